//! Motion vectors: what the vertex stage computes equals the CPU's
//! projection of (previous pose, transform, camera) → (current ...), for a
//! thousand random cases on each path; a still scene writes exactly zero; a
//! frozen pose under a moving camera writes the camera's motion only.

use crate::common::*;
use crate::crowd::random_clock;
use glam::{DMat4, DVec4, Mat4, Quat, Vec3};
use md2_wgpu::contract::phase;
use md2_wgpu::contract::{ExtraRecord, InstanceRecord};
use md2_wgpu::support::{MotionProbe, PoseCapture, Rng, pack_instance};
use md2_wgpu::{
    Camera, CrowdMember, GpuModel, Md2Crowd, Md2Instance, Md2Model, Md2Renderer,
    Md2RendererOptions,
    anim::{FrameLerp, Pose},
    demo,
    gpu::{CrowdHandle, Md2Cache, low_level::read_crowd_extras},
    scene::{Md2Previous, PlanarShadow, SHELL_OFFSET},
};

/// The largest motion error allowed, in UV units.
const TOLERANCE: f64 = 1e-4;

/// A camera somewhere around the origin, looking at it.
fn random_camera(rng: &mut Rng) -> Camera {
    let eye = Vec3::new(
        rng.range(-200.0, 200.0),
        rng.range(20.0, 150.0),
        rng.range(120.0, 260.0),
    );
    let target = Vec3::new(
        rng.range(-10.0, 10.0),
        rng.range(-5.0, 15.0),
        rng.range(-10.0, 10.0),
    );
    Camera::look_at(
        eye,
        target,
        rng.range(0.6, 1.2),
        rng.range(0.8, 1.8),
        1.0,
        2000.0,
    )
}

fn random_transform(rng: &mut Rng) -> Mat4 {
    let mirror = if rng.chance(0.2) { -1.0 } else { 1.0 };
    Mat4::from_scale_rotation_translation(
        Vec3::new(
            rng.range(0.7, 1.3) * mirror,
            rng.range(0.7, 1.3),
            rng.range(0.7, 1.3),
        ),
        Quat::from_rotation_y(rng.range(-3.1, 3.1)),
        Vec3::new(
            rng.range(-30.0, 30.0),
            rng.range(-5.0, 5.0),
            rng.range(-30.0, 30.0),
        ),
    )
}

fn random_pose(rng: &mut Rng, frames: u32) -> Pose {
    let lerp = |rng: &mut Rng| FrameLerp {
        frame_a: rng.below(frames as usize) as u32,
        frame_b: rng.below(frames as usize) as u32,
        t: rng.unit(),
    };
    Pose {
        primary: lerp(rng),
        secondary: lerp(rng),
        weight: if rng.chance(0.4) { rng.unit() } else { 0.0 },
    }
}

/// Every vertex of `model` in `pose`, pushed `push` along its normals,
/// placed by `transform` (and on the shadow pass projected by `shadow`),
/// in normalised device coordinates of `view_proj`: the CPU reference, in
/// f64 from the reference's f32 pose.
fn cpu_ndc(
    model: &Md2Model,
    pose: &Pose,
    push: f32,
    transform: Mat4,
    shadow: Option<Mat4>,
    view_proj: Mat4,
) -> Vec<[f64; 2]> {
    let n = model.keyframes().vertex_count();
    let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    md2_wgpu::anim::reference::blend(model, pose, &mut p, &mut nrm).unwrap();
    md2_wgpu::anim::reference::push_along_normals(&mut p, &nrm, push);
    let world = (transform * md2_wgpu::scene::QUAKE_TO_Y_UP).as_dmat4();
    let onto = shadow.map_or(DMat4::IDENTITY, |s| s.as_dmat4());
    let view_proj = view_proj.as_dmat4();
    p.iter()
        .map(|v| {
            let w = world * DVec4::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]), 1.0);
            let on = onto * w;
            let c = view_proj * on;
            [c.x / c.w, c.y / c.w]
        })
        .collect()
}

fn motion_of(now: &[[f64; 2]], before: &[[f64; 2]]) -> Vec<[f64; 2]> {
    now.iter()
        .zip(before)
        .map(|(a, b)| [(a[0] - b[0]) * 0.5, (a[1] - b[1]) * -0.5])
        .collect()
}

/// The largest difference between the GPU's motion and the CPU's.
fn worst(gpu: &[[f32; 2]], cpu: &[[f64; 2]]) -> f64 {
    gpu.iter()
        .zip(cpu)
        .map(|(g, c)| {
            (f64::from(g[0]) - c[0])
                .abs()
                .max((f64::from(g[1]) - c[1]).abs())
        })
        .fold(0.0, f64::max)
}

/// The demo model, uploaded through a fresh cache, and a pose capture for
/// that cache: (cache, GPU model, model, capture).
fn demo_capture(gpu: &Gpu) -> (Md2Cache, GpuModel, Md2Model, PoseCapture) {
    let (cache, gpu_model) = demo_cache(gpu);
    let capture = PoseCapture::new(&gpu.device, &cache);
    (cache, gpu_model, demo::demo_model(), capture)
}

#[test]
fn immediate_motion_equals_the_cpu_for_a_thousand_random_cases() {
    let Some(gpu) = gpu() else { return };
    let (_cache, gpu_model, model, capture) = demo_capture(&gpu);
    let frames = model.keyframes().frame_count();
    let shadow = PlanarShadow::on_ground(-30.0, Vec3::new(0.3, 1.0, -0.2));
    let mut rng = Rng::new(1717);
    let mut largest = 0.0f64;
    for case in 0..1000 {
        let camera = random_camera(&mut rng);
        // Some cases keep the camera, the transform or the pose.
        let previous_camera = if rng.chance(0.2) {
            camera
        } else {
            random_camera(&mut rng)
        };
        let instance = Md2Instance::new(random_transform(&mut rng), random_pose(&mut rng, frames));
        let previous = Md2Previous {
            transform: if rng.chance(0.3) {
                instance.transform
            } else {
                random_transform(&mut rng)
            },
            pose: if rng.chance(0.3) {
                instance.pose
            } else {
                random_pose(&mut rng, frames)
            },
        };
        let shell = rng.chance(0.2);
        let push = if shell { SHELL_OFFSET } else { 0.0 };
        let on_shadow = !shell && rng.chance(0.2);
        let (record, extra) = pack_instance(&instance, Some(&previous), &gpu_model).unwrap();
        let got = capture
            .capture_motion(
                (&gpu.device, &gpu.queue),
                &gpu_model,
                MotionProbe {
                    camera: &camera,
                    previous_view_proj: previous_camera.view_proj,
                    shadow: Some(&shadow),
                    push,
                    pass: Some(if on_shadow {
                        phase::SHADOWS
                    } else {
                        phase::OPAQUE
                    }),
                },
                &record,
                &extra,
            )
            .unwrap();
        let onto = on_shadow.then(|| shadow.projection());
        let now = cpu_ndc(
            &model,
            &instance.pose,
            push,
            instance.transform,
            onto,
            camera.view_proj,
        );
        let before = cpu_ndc(
            &model,
            &previous.pose,
            push,
            previous.transform,
            onto,
            previous_camera.view_proj,
        );
        let error = worst(&got.motion, &motion_of(&now, &before));
        assert!(error <= TOLERANCE, "case {case}: motion off by {error:e}");
        largest = largest.max(error);
    }
    eprintln!("immediate: 1,000 cases, largest motion error {largest:e} (UV units)");
}

/// What a resident member's test changes before the second frame.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Change {
    Nothing,
    Moved,
    Played,
    SpeedChanged,
    Added,
    Teleported,
}

#[test]
fn resident_motion_equals_the_cpu_for_a_thousand_random_cases() {
    let Some(gpu) = gpu_at_limits() else { return };
    let (cache, gpu_model, model, capture) = demo_capture(&gpu);
    let frames = model.keyframes().frame_count();
    let options = Md2RendererOptions::WITH_DEPTH.with_motion_target(wgpu::TextureFormat::Rg16Float);
    let mut renderer = Md2Renderer::with_cache(
        &gpu.device,
        &cache,
        wgpu::TextureFormat::Rgba8UnormSrgb,
        options,
    )
    .unwrap();
    let mut crowd = Md2Crowd::new(&gpu.device, &cache, &gpu_model).unwrap();
    crowd.set_culling(false);
    let mut rng = Rng::new(4242);
    let (t0, t1) = (3600.0, 3600.0 + 1.0 / 24.0);
    // A member placed and playing at random from `time`, added.
    let add = |crowd: &mut Md2Crowd, rng: &mut Rng, time: f64, change: Change| {
        let member = CrowdMember::new(random_transform(rng), random_clock(rng, frames, time));
        (crowd.add(member.clone()).unwrap(), member, change)
    };
    // The first frame: 900 members; 100 more are added before the second.
    let mut members: Vec<(CrowdHandle, CrowdMember, Change)> = (0..900)
        .map(|_| add(&mut crowd, &mut rng, t0, Change::Nothing))
        .collect();
    let camera0 = random_camera(&mut rng);
    step_crowd(&gpu, &mut renderer, &camera0, &mut crowd, t0);
    // A frame at t0 is the view's first: no motion. Frame again at t0, so
    // the next frame's previous is t0 with a view that has drawn before.
    step_crowd(&gpu, &mut renderer, &camera0, &mut crowd, t0);
    for (handle, member, change) in members.iter_mut() {
        *change = match rng.below(6) {
            0 => {
                crowd
                    .member(*handle)
                    .set_transform(random_transform(&mut rng))
                    .unwrap();
                Change::Moved
            }
            1 => {
                let next = random_clock(&mut rng, frames, t1 - 0.02);
                crowd
                    .member(*handle)
                    .play(next, t1 - 0.03, f64::from(rng.range(0.0, 0.2)))
                    .unwrap();
                Change::Played
            }
            2 => {
                let mut faster = crowd.get(*handle).unwrap();
                faster.playback.clock.speed *= 1.7;
                crowd.set(*handle, faster).unwrap();
                Change::SpeedChanged
            }
            3 => {
                crowd
                    .member(*handle)
                    .set_transform(random_transform(&mut rng))
                    .unwrap();
                crowd.member(*handle).mark_teleported().unwrap();
                Change::Teleported
            }
            _ => Change::Nothing,
        };
        let _ = member;
    }
    members.extend((0..100).map(|_| add(&mut crowd, &mut rng, t1, Change::Added)));
    let camera1 = random_camera(&mut rng);
    step_crowd(&gpu, &mut renderer, &camera1, &mut crowd, t1);
    let records = crowd_records(&gpu, &renderer, 0).unwrap();
    let extras = crowd_read_back(&gpu, &renderer, 0, read_crowd_extras).unwrap();
    assert_eq!(records.len(), 1000, "every member drawn once");
    let mut largest = 0.0f64;
    let mut seen = std::collections::HashSet::new();
    for ((_, record), (_, extra)) in records.iter().zip(&extras) {
        let (handle, before, change) = members
            .iter()
            .find(|(h, ..)| h.id() == extra.id)
            .unwrap_or_else(|| panic!("no member has id {}", extra.id));
        assert!(seen.insert(extra.id), "member {} drawn twice", extra.id);
        let now = crowd.get(*handle).unwrap();
        let (previous_transform, previous_pose) = match change {
            Change::Added | Change::Teleported => (now.transform, now.playback.pose(t1)),
            Change::Moved => (before.transform, now.playback.pose(t0)),
            Change::Played | Change::SpeedChanged => (now.transform, before.playback.pose(t0)),
            Change::Nothing => (now.transform, now.playback.pose(t0)),
        };
        let got = capture_record(
            &capture,
            &gpu,
            &gpu_model,
            &camera1,
            camera0.view_proj,
            record,
            extra,
        );
        let cpu_now = cpu_ndc(
            &model,
            &now.playback.pose(t1),
            0.0,
            now.transform,
            None,
            camera1.view_proj,
        );
        let cpu_before = cpu_ndc(
            &model,
            &previous_pose,
            0.0,
            previous_transform,
            None,
            camera0.view_proj,
        );
        let error = worst(&got, &motion_of(&cpu_now, &cpu_before));
        assert!(
            error <= TOLERANCE,
            "{change:?} member {}: motion off by {error:e}",
            extra.id
        );
        largest = largest.max(error);
        // Between the frames `before` was replaced for Moved and the
        // playback changes; the members list kept the first frame's.
        let _ = before;
    }
    eprintln!("resident: 1,000 cases, largest motion error {largest:e} (UV units)");
}

/// The GPU's per-vertex motion for one crowd record and its extra record.
fn capture_record(
    capture: &PoseCapture,
    gpu: &Gpu,
    model: &GpuModel,
    camera: &Camera,
    previous: Mat4,
    record: &InstanceRecord,
    extra: &ExtraRecord,
) -> Vec<[f32; 2]> {
    capture
        .capture_motion(
            (&gpu.device, &gpu.queue),
            model,
            MotionProbe {
                camera,
                previous_view_proj: previous,
                shadow: None,
                push: 0.0,
                pass: None,
            },
            record,
            extra,
        )
        .unwrap()
        .motion
}

#[test]
fn a_still_scene_writes_zero_motion_and_a_moving_camera_its_own() {
    let Some(gpu) = gpu() else { return };
    // The browser suite runs the same case, awaited.
    run_case(
        &gpu,
        cases::motion::a_still_scene_writes_zero_motion_and_a_moving_camera_its_own,
    );
}
