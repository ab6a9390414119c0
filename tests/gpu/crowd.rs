//! The resident crowd: GPU clocks equal the CPU's, culling never drops a
//! visible member, adds/changes/removes draw exactly the members alive, and
//! bad input is a typed error.

use crate::common::*;
use glam::{Mat4, Vec3};
use md2_wgpu::gpu::VisibleMembers;
use md2_wgpu::support::Rng;
use md2_wgpu::{
    Camera, Clip, CrowdMember, GpuModel, Md2Crowd, Md2Instance, Md2Model, Md2Renderer,
    Md2RendererOptions,
    anim::{ClipClock, Fade, FrameLerp, Playback, Pose},
    format::TexCoord,
    model::{Frame, PackedVertex},
    scene::{CrowdError, Effects},
};

/// `frames` frames of one triangle whose corners move from frame to frame
/// (so every frame has its own box).
fn moving_triangle(frames: usize) -> Md2Model {
    one_triangle(
        TexCoord { s: 1, t: 1 },
        // Clockwise seen from the front (+X in Quake axes), as MD2 files wind.
        [0, 2, 1],
        (0..frames)
            .map(|i| Frame::new(&format!("f{i:03}"), [0.01; 3], [-1.28, -1.28, -1.28]))
            .collect(),
        (0..frames)
            .flat_map(|f| {
                let wobble = (f % 7) as u8 * 4;
                [
                    PackedVertex {
                        position: [128, 28 + wobble, 28],
                        normal_index: 0,
                    },
                    PackedVertex {
                        position: [128, 228, 28 + wobble],
                        normal_index: 0,
                    },
                    PackedVertex {
                        position: [128, 128 + wobble, 228],
                        normal_index: 0,
                    },
                ]
            })
            .collect(),
    )
}

fn renderer(gpu: &Gpu) -> Md2Renderer {
    srgb_renderer_with(gpu, Md2RendererOptions::WITH_DEPTH)
}

/// `moving_triangle(frames)` in `skins`, uploaded for `renderer`.
fn upload_triangle(
    gpu: &Gpu,
    renderer: &Md2Renderer,
    frames: usize,
    skins: &[image::RgbaImage],
) -> GpuModel {
    GpuModel::new(
        &gpu.device,
        &gpu.queue,
        renderer,
        &moving_triangle(frames),
        skins,
    )
    .unwrap()
}

/// [`upload_triangle`], and an empty crowd of it.
fn triangle_crowd(
    gpu: &Gpu,
    renderer: &Md2Renderer,
    frames: usize,
    skins: &[image::RgbaImage],
) -> (GpuModel, Md2Crowd) {
    let gpu_model = upload_triangle(gpu, renderer, frames, skins);
    let crowd = Md2Crowd::new(&gpu.device, renderer, &gpu_model).unwrap();
    (gpu_model, crowd)
}

/// A random clip of a `frames`-frame model: any range, any rate (some that
/// cannot advance), looping or not.
pub(crate) fn random_clip(rng: &mut Rng, frames: u32) -> Clip {
    let first = rng.below(frames as usize) as u32;
    let last = if rng.chance(0.05) {
        first
    } else {
        first + rng.below((frames - first) as usize) as u32
    };
    let fps = match rng.below(20) {
        0 => 0.0,
        1 => f32::NAN,
        2 => -10.0,
        _ => rng.range(0.5, 60.0),
    };
    let clip = if rng.chance(0.5) {
        Clip::looping("random", first, last)
    } else {
        Clip::once("random", first, last)
    };
    clip.with_fps(fps)
}

pub(crate) fn random_clock(rng: &mut Rng, frames: u32, now: f64) -> ClipClock {
    let start = match rng.below(4) {
        // Long before: a day's worth of loops.
        0 => now - rng.unit_f64() * 86_400.0,
        // Recently, or a little in the future.
        1 => now - rng.unit_f64() * 30.0 + 5.0,
        2 => rng.unit_f64() * 86_400.0,
        _ => now - rng.unit_f64() * 2.0,
    };
    let speed = match rng.below(12) {
        0 => 0.0,
        1 => -rng.range(0.1, 3.0),
        _ => rng.range(0.1, 3.0),
    };
    ClipClock::new(random_clip(rng, frames), start).with_speed(speed)
}

/// The crowd member `index` is found by its translation.
fn placed(index: usize) -> Mat4 {
    Mat4::from_translation(Vec3::new(index as f32, 0.0, 0.0))
}

#[test]
fn gpu_clocks_equal_the_cpu_for_ten_thousand_random_cases_over_a_day() {
    let Some(gpu) = gpu_at_limits() else { return };
    let frames = 200;
    let mut renderer = renderer(&gpu);
    let gpu_model = upload_triangle(&gpu, &renderer, frames, &[]);
    let mut rng = Rng::new(0x636c_6f63_6b73);
    let camera = Camera::default();
    let (mut worst_t, mut worst_weight, mut cases) = (0.0f32, 0.0f32, 0);
    // Times from the epoch to a day after it.
    for now in [0.0, 0.25, 3_599.987_654, 86_399.999_9] {
        let mut crowd = Md2Crowd::new(&gpu.device, &renderer, &gpu_model).unwrap();
        crowd.set_culling(false);
        let mut expected = Vec::new();
        for i in 0..2_600 {
            let clock = random_clock(&mut rng, frames as u32, now);
            let fade = rng.chance(0.5).then(|| Fade {
                to: random_clock(&mut rng, frames as u32, now),
                start: now - rng.unit_f64() * 3.0 + 1.0,
                duration: if rng.chance(0.1) {
                    0.0
                } else {
                    f64::from(rng.range(0.01, 2.0))
                },
            });
            let playback = Playback { clock, fade };
            expected.push(playback.pose(now));
            crowd.add(CrowdMember::new(placed(i), playback)).unwrap();
        }
        step_crowd(&gpu, &mut renderer, &camera, &mut crowd, now);
        let records = crowd_records(&gpu, &renderer, 0).unwrap();
        assert_eq!(records.len(), expected.len(), "every member drawn");
        for (_, record) in records {
            let i = record.rows[0][3] as usize;
            let want: Pose = expected[i];
            let got = [
                record.frames[0],
                record.frames[1],
                record.frames[2],
                record.frames[3],
            ]
            .map(u32::from);
            let want_frames = [
                want.primary.frame_a,
                want.primary.frame_b,
                want.secondary.frame_a,
                want.secondary.frame_b,
            ];
            assert_eq!(
                got, want_frames,
                "member {i} at {now}: frames on the GPU {got:?}, on the CPU {want:?}"
            );
            let dt = (record.t - want.primary.t)
                .abs()
                .max((record.t2 - want.secondary.t).abs());
            let dw = (record.weight - want.weight).abs();
            assert!(
                dt <= 1e-4 && dw <= 1e-4,
                "member {i} at {now}: GPU (t {}, t2 {}, weight {}) vs CPU {want:?}",
                record.t,
                record.t2,
                record.weight
            );
            worst_t = worst_t.max(dt);
            worst_weight = worst_weight.max(dw);
            cases += 1;
        }
    }
    assert!(cases >= 10_000);
    eprintln!(
        "{cases} random clocks: frames identical, largest |Δt| {worst_t:e}, largest |Δweight| \
         {worst_weight:e}"
    );
}

/// A grid of demo models, each with its own clip, phase and heading.
fn demo_crowd(
    gpu: &Gpu,
    renderer: &Md2Renderer,
    gpu_model: &GpuModel,
    side: usize,
    now: f64,
) -> Md2Crowd {
    let mut rng = Rng::new(7);
    let clips = md2_wgpu::Quake2Player::clips();
    let mut crowd = Md2Crowd::new(&gpu.device, renderer, gpu_model).unwrap();
    for i in 0..side * side {
        let at = Vec3::new((i % side) as f32 * 50.0, 0.0, (i / side) as f32 * 50.0);
        let transform = Mat4::from_translation(at)
            * Mat4::from_rotation_y(rng.range(0.0, std::f32::consts::TAU));
        let clip = clips[rng.below(clips.len())].clone();
        let clock = ClipClock::new(clip, now - rng.unit_f64() * 10.0);
        crowd.add(CrowdMember::new(transform, clock)).unwrap();
    }
    crowd
}

#[test]
fn culling_never_drops_a_visible_member() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = renderer(&gpu);
    let gpu_model = demo_gpu_model(&gpu, &renderer);
    let now = 12.5;
    let mut crowd = demo_crowd(&gpu, &renderer, &gpu_model, 12, now);
    let center = Vec3::new(275.0, 30.0, 275.0);
    // (name, eye, target, vertical field of view)
    let cameras = [
        ("inside", center, center + Vec3::new(1.0, -0.1, 0.3), 1.2),
        (
            "edge",
            Vec3::new(-150.0, 60.0, -40.0),
            Vec3::new(0.0, 20.0, 100.0),
            0.9,
        ),
        (
            "none",
            Vec3::new(-200.0, 50.0, -200.0),
            Vec3::new(-400.0, 50.0, -400.0),
            0.9,
        ),
    ];
    for (name, eye, target, fov_y) in cameras {
        let camera = square_camera(eye, target, fov_y, 1.0, 2000.0);
        crowd.set_culling(true);
        let culled = draw_crowd(&gpu, &mut renderer, &camera, &[], &mut crowd, now, 192).unwrap();
        let visible = visible(&gpu, &renderer).per_crowd[0];
        crowd.set_culling(false);
        let all = draw_crowd(&gpu, &mut renderer, &camera, &[], &mut crowd, now, 192).unwrap();
        save_picture(&culled, &format!("crowd-{name}-culled.png"));
        let differ = differing_pixels(&culled, &all, 0);
        assert_eq!(differ, 0, "{name}: culling changed {differ} pixels");
        eprintln!(
            "{name}: {visible} of {} members in view, {} pixels covered",
            crowd.len(),
            coverage(&culled)
        );
        match name {
            "none" => {
                assert_eq!(visible, 0);
                assert_eq!(coverage(&culled), 0);
            }
            _ => {
                assert!(coverage(&culled) > 1000, "{name}: the crowd is in view");
                assert!(
                    (visible as usize) < crowd.len(),
                    "{name}: culling left nothing out"
                );
            }
        }
    }
}

/// `member` with `change` made to it.
fn changed(member: &CrowdMember, change: impl FnOnce(&mut CrowdMember)) -> CrowdMember {
    let mut changed = member.clone();
    change(&mut changed);
    changed
}

/// The immediate path's instances for the crowd's members at `now`.
fn as_instances(crowd: &Md2Crowd, now: f64) -> Vec<Md2Instance> {
    crowd
        .iter()
        .map(|(_, m)| {
            Md2Instance::new(m.transform, m.playback.pose(now))
                .with_skin(m.skin)
                .with_tint(m.tint)
        })
        .collect()
}

#[test]
fn adds_changes_and_removes_draw_exactly_the_members_alive() {
    let Some(gpu) = gpu_at_limits() else { return };
    let frames = 40;
    let mut renderer = renderer(&gpu);
    let white = solid_skin(4, 4, [255, 255, 255, 255]);
    let (gpu_model, mut crowd) = triangle_crowd(&gpu, &renderer, frames, &[white]);
    crowd.set_culling(false);
    let mut rng = Rng::new(99);
    // 400 × 250 cells over a square of world units seen from the front.
    let cell = |i: usize| {
        let (x, y) = ((i % 400) as f32, (i / 400) as f32);
        Mat4::from_translation(Vec3::new(x * 3.0 + 1.5, y * 3.0 + 1.5, 0.0))
    };
    let member = |rng: &mut Rng, i: usize, now: f64| {
        let tint = [
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            1.0,
        ];
        CrowdMember::new(cell(i), random_clock(rng, frames as u32, now)).with_tint(tint)
    };
    let camera = ortho_camera(0.0, 1200.0, 0.0, 750.0, 1.0);
    let mut handles = Vec::new();
    let mut now = 3.0;
    for target in [1usize, 1_000, 100_000, 10] {
        while handles.len() < target {
            let i = handles.len();
            handles.push(crowd.add(member(&mut rng, i, now)).unwrap());
        }
        // Remove from everywhere (the front, the middle, the back).
        while handles.len() > target {
            let k = rng.below(handles.len());
            let h = handles.swap_remove(k);
            crowd.remove(h).unwrap();
            assert_eq!(crowd.remove(h), Err(CrowdError::StaleHandle));
        }
        // Change a few: new clocks, crossfades, moves.
        for k in 0..target.min(50) {
            let h = handles[rng.below(handles.len())];
            let next = random_clock(&mut rng, frames as u32, now);
            // Some mid-fade, heavier on either side: the crowd's own `then`
            // (on the member as it keeps it) is `Playback::then`.
            let at = now - 0.1 - 0.15 * (k % 3) as f64;
            let before = crowd.get(h).unwrap().playback;
            crowd.member(h).play(next.clone(), at, 0.3).unwrap();
            // As text: a random clip's rate may be NaN, which is not equal
            // to itself.
            assert_eq!(
                format!("{:?}", crowd.get(h).unwrap().playback),
                format!("{:?}", before.then(next, at, 0.3))
            );
        }
        now += 1.0;
        assert_eq!(crowd.len(), target);
        let image = draw_crowd(&gpu, &mut renderer, &camera, &[], &mut crowd, now, 512).unwrap();
        // Every member alive is drawn once, in its pose.
        let records = crowd_records(&gpu, &renderer, 0).unwrap();
        assert_eq!(
            records.len(),
            target,
            "{target} members: every one drawn once"
        );
        let alive: std::collections::HashMap<(i64, i64), Pose> = crowd
            .iter()
            .map(|(_, m)| {
                let t = m.transform.w_axis;
                ((t.x as i64, t.y as i64), m.playback.pose(now))
            })
            .collect();
        for (_, r) in &records {
            let key = (r.rows[0][3] as i64, r.rows[1][3] as i64);
            let pose = alive
                .get(&key)
                .unwrap_or_else(|| panic!("{target}: a record at {key:?} belongs to no member"));
            assert_eq!(
                r.frames.map(u32::from),
                [
                    pose.primary.frame_a,
                    pose.primary.frame_b,
                    pose.secondary.frame_a,
                    pose.secondary.frame_b
                ]
            );
        }
        // And the picture is the immediate path's, given the poses the
        // crowd drew (the frames above are the CPU's; t may differ by a
        // few ULP, which `gpu_clocks_equal_the_cpu_clocks` bounds).
        let mut instances = as_instances(&crowd, now);
        with_drawn_poses(&gpu, &renderer, 0, &mut instances);
        let mut immediate = Md2Renderer::with_cache(
            &gpu.device,
            &renderer,
            wgpu::TextureFormat::Rgba8UnormSrgb,
            renderer.options(),
        )
        .unwrap();
        let reference =
            render_instances(&gpu, &mut immediate, &camera, &gpu_model, &instances, 512);
        save_picture(&image, &format!("crowd-{target}.png"));
        assert_same_drawing(&image, &reference, &format!("{target} members"));
        assert!(coverage(&image) > 0);
    }
}

#[test]
fn bad_input_is_a_typed_error_and_changes_nothing() {
    let Some(gpu) = gpu() else { return };
    let renderer = renderer(&gpu);
    let (gpu_model, mut crowd) = triangle_crowd(&gpu, &renderer, 10, &[]);
    let good = CrowdMember::new(
        Mat4::IDENTITY,
        ClipClock::new(Clip::looping("a", 0, 9), 0.0),
    );
    let h = crowd.add(good.clone()).unwrap();
    // `good` fading to frames 5 to `last` over `duration` seconds.
    let fading_to = |last: u32, duration: f64| {
        changed(&good, |m| {
            m.playback.fade = Some(Fade {
                to: ClipClock::new(Clip::once("b", 5, last), 0.0),
                start: 0.0,
                duration,
            })
        })
    };

    let bad = changed(&good, |m| m.playback.clock.clip.last = 10);
    assert_eq!(
        crowd.add(bad.clone()),
        Err(CrowdError::FrameOutOfRange {
            field: md2_wgpu::scene::fields::CLOCK_CLIP,
            frame: 10,
            frame_count: 10
        })
    );
    assert_eq!(
        crowd.set(h, good.clone().with_skin(1)),
        Err(CrowdError::SkinOutOfRange {
            skin: 1,
            skin_count: 1
        })
    );
    assert!(matches!(
        crowd.add(fading_to(12, 1.0)),
        Err(CrowdError::FrameOutOfRange {
            field: md2_wgpu::scene::fields::FADE_TO_CLIP,
            ..
        })
    ));
    for (field, member) in [
        (
            "transform",
            CrowdMember {
                transform: Mat4::from_translation(Vec3::new(f32::NAN, 0.0, 0.0)),
                ..good.clone()
            },
        ),
        (
            "transform",
            CrowdMember {
                transform: Mat4::from_scale(Vec3::splat(f32::INFINITY)),
                ..good.clone()
            },
        ),
        (
            "playback.clock.speed",
            changed(&good, |m| m.playback.clock.speed = f32::NAN),
        ),
        (
            "playback.clock.speed",
            changed(&good, |m| m.playback.clock.speed = f32::INFINITY),
        ),
        (
            "playback.clock.start",
            changed(&good, |m| m.playback.clock.start = f64::NEG_INFINITY),
        ),
        (
            "playback.clock.start",
            changed(&good, |m| m.playback.clock.start = 1e300),
        ),
    ] {
        assert_eq!(
            crowd.add(member.clone()),
            Err(CrowdError::NotFinite { field }),
            "{member:?}"
        );
    }
    assert!(matches!(
        crowd.add(fading_to(9, 1e6)),
        Err(CrowdError::FadeTooLong { .. })
    ));
    // Nothing above changed the crowd.
    assert_eq!(crowd.len(), 1);
    assert_eq!(crowd.get(h), Some(good.clone()));
    // Handles of removed members, and of other crowds, are stale.
    let mut other = Md2Crowd::new(&gpu.device, &renderer, &gpu_model).unwrap();
    let foreign = other.add(good.clone()).unwrap();
    assert_eq!(crowd.get(foreign), None);
    assert_eq!(crowd.remove(foreign), Err(CrowdError::StaleHandle));
    crowd.remove(h).unwrap();
    assert_eq!(
        crowd.member(h).set_transform(Mat4::IDENTITY),
        Err(CrowdError::StaleHandle)
    );
    // A NaN time is refused at the frame.
    let mut renderer = renderer;
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let err = renderer
        .prepare_crowds(
            &gpu.device,
            &gpu.queue,
            &mut encoder,
            f64::NAN,
            [&mut crowd],
        )
        .unwrap_err();
    assert!(err.to_string().contains("not finite"), "{err}");
}

#[test]
fn more_members_than_the_device_holds_is_a_typed_error() {
    // A device whose storage bindings hold 1,000 members (128 bytes each)
    // and the crowd's reserve for its clip table (1,024 clips of 32 bytes).
    let Some(gpu) = gpu_with(
        |_| wgpu::Limits {
            max_storage_buffer_binding_size: 128 * 1_000 + 32 * 1_024,
            ..md2_wgpu::gpu::required_limits()
        },
        wgpu::Features::empty(),
    ) else {
        return;
    };
    let renderer = renderer(&gpu);
    let (_gpu_model, mut crowd) = triangle_crowd(&gpu, &renderer, 2, &[]);
    let member = CrowdMember::new(
        Mat4::IDENTITY,
        ClipClock::new(Clip::looping("a", 0, 1), 0.0),
    );
    let max = crowd.max_members();
    assert_eq!(max, 1_000, "1,000 members and the clip table's reserve");
    for _ in 0..max {
        crowd.add(member.clone()).unwrap();
    }
    let err = crowd.add(member).unwrap_err();
    assert!(
        matches!(err, CrowdError::TooManyMembers { members, .. } if members == max + 1),
        "{err}"
    );
    let _ = FrameLerp::still(0);
}

#[test]
fn each_setter_uploads_only_its_part_of_the_record() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = renderer(&gpu);
    let skins = [
        solid_skin(4, 4, [255, 255, 255, 255]),
        solid_skin(4, 4, [255, 0, 0, 255]),
    ];
    let (_gpu_model, mut crowd) = triangle_crowd(&gpu, &renderer, 10, &skins);
    let clip = Clip::looping("a", 0, 9);
    let handles: Vec<_> = (0..1000)
        .map(|i| {
            let member = CrowdMember::new(placed(i), ClipClock::new(clip.clone(), 0.0));
            crowd.add(member).unwrap()
        })
        .collect();
    let camera = ortho_camera(0.0, 1000.0, -10.0, 10.0, 1.0);
    let now = 1.0;
    // The first frame writes everything; an unchanged one writes nothing.
    step_crowd(&gpu, &mut renderer, &camera, &mut crowd, now);
    assert!(renderer.uploaded_bytes() >= 1000 * 128);
    step_crowd(&gpu, &mut renderer, &camera, &mut crowd, now);
    assert_eq!(renderer.uploaded_bytes(), 0, "nothing changed");
    // A steady frame at another time: the low word of the tick count, as
    // `prepare_crowds`' docs say (and back).
    for time in [now + 1.0 / 60.0, now] {
        step_crowd(&gpu, &mut renderer, &camera, &mut crowd, time);
        assert_eq!(
            renderer.uploaded_bytes(),
            4,
            "a steady frame uploads the time"
        );
    }
    let h = handles[500];
    let mut frame = |crowd: &mut Md2Crowd| {
        step_crowd(&gpu, &mut renderer, &camera, crowd, now);
        renderer.uploaded_bytes()
    };
    crowd
        .member(h)
        .set_transform(placed(500) * Mat4::from_rotation_x(0.3))
        .unwrap();
    assert_eq!(
        frame(&mut crowd),
        60,
        "set_transform: rows, and the look's words to the effects word"
    );
    crowd.member(h).set_tint([0.5, 0.2, 0.9, 1.0]).unwrap();
    assert_eq!(frame(&mut crowd), 12, "set_tint: skin word, tint, effects");
    crowd.member(h).set_skin(1).unwrap();
    assert_eq!(frame(&mut crowd), 4, "set_skin: the skin word");
    let glowing = Effects {
        fullbright: true,
        ..Effects::NONE
    };
    crowd.member(h).set_effects(glowing).unwrap();
    assert_eq!(frame(&mut crowd), 4, "set_effects: the effects word");
    crowd
        .member(h)
        .play(ClipClock::new(Clip::once("b", 2, 7), now), now, 0.5)
        .unwrap();
    assert_eq!(
        frame(&mut crowd),
        72 + 32,
        "play: effects word, clips, clocks and fade; the clip the crowd did not play yet"
    );
    // Two setters of one member in one frame: one write of both parts.
    crowd.member(h).set_skin(0).unwrap();
    crowd.member(h).set_effects(Effects::NONE).unwrap();
    assert_eq!(frame(&mut crowd), 12, "skin to effects words, one run");
    // A change of bucket uploads nothing more: the compute passes lay the
    // buckets out on the GPU.
    crowd.member(h).set_tint([1.0, 1.0, 1.0, 0.5]).unwrap();
    assert_eq!(frame(&mut crowd), 12, "set_tint to translucent");
    // Whole members, and neighbours in one write.
    let whole = crowd.get(handles[10]).unwrap();
    crowd.set(handles[10], whole.clone()).unwrap();
    crowd.set(handles[11], whole.clone()).unwrap();
    assert_eq!(frame(&mut crowd), 2 * 128, "set: whole records");

    // What was written is what is drawn: the member's record says so.
    let records = crowd_records(&gpu, &renderer, 0).unwrap();
    let (bucket, record) = records
        .iter()
        .find(|(_, r)| r.rows[0][3] == 500.0)
        .expect("member 500 is drawn");
    // The translucent bucket follows the two opaque ones of every level.
    assert_eq!(*bucket, 2 * md2_wgpu::contract::MAX_LEVELS, "translucent");
    assert_eq!(record.tint, [255, 255, 255, 128]);
    let member = crowd.get(h).unwrap();
    assert_eq!(member.tint, [1.0, 1.0, 1.0, 0.5]);
    assert_eq!(member.skin, 0);
    assert_eq!(member.effects, Effects::NONE);
    assert!(member.playback.fade.is_some());
    assert_eq!(crowd.clip_count(), 2, "two clips, stored once each");
}

#[test]
fn visible_counts_come_back_without_waiting() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = renderer(&gpu);
    let (_gpu_model, mut crowd) = triangle_crowd(&gpu, &renderer, 4, &[]);
    for i in 0..300 {
        let clock = ClipClock::new(Clip::looping("a", 0, 3), 0.0);
        crowd.add(CrowdMember::new(placed(i), clock)).unwrap();
    }
    // A view of members 0 to 99 only.
    let camera = ortho_camera(0.0, 100.0, -10.0, 10.0, 1.0);
    assert_eq!(
        VisibleMembers::recent(&mut renderer, &gpu.device),
        None,
        "counting starts"
    );
    let mut seen = None;
    for frame in 1..=20u64 {
        step_crowd(&gpu, &mut renderer, &camera, &mut crowd, frame as f64);
        if let Some(counts) = VisibleMembers::recent(&mut renderer, &gpu.device) {
            assert!(counts.frame <= frame, "from a frame already prepared");
            seen = Some(counts);
        }
    }
    let counts = seen.expect("some frame's counts came back");
    let blocking = visible(&gpu, &renderer).per_crowd;
    assert_eq!(counts.per_crowd, blocking);
    assert!(
        (100..=104).contains(&blocking[0]),
        "a hundred in view, and a few at the edges (conservative boxes): {blocking:?}"
    );
    // Once the GPU is idle the newest frame's counts are there.
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let latest = VisibleMembers::recent(&mut renderer, &gpu.device).unwrap();
    assert_eq!(latest.frame, 20);
}
