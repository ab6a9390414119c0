//! Levels of detail chosen on both paths: the resident crowd's compute pass
//! and the immediate path choose the same level for the same member and
//! view, and culling with levels still draws every member in view.

use glam::{Mat4, UVec2, Vec3};
use image::RgbaImage;
use md2_wgpu::support::Rng;
use md2_wgpu::wgpu;
use md2_wgpu::{
    Camera, CrowdMember, GpuModel, Md2Crowd, Md2Instance, Md2Renderer, Md2RendererOptions,
    Quake2Player,
    anim::ClipClock,
    contract::{GpuModelOptions, MAX_LEVELS},
    demo,
    gpu::{Md2Batch, Md2Cache, VisibleMembers, low_level},
};

use super::{Measured, draw_picture, record_pose};
use crate::{assert_same_drawing, coverage, differing_pixels};

/// The pictures' side, in pixels.
pub const SIZE: u32 = 256;
const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// The demo model with its levels of detail, built where the test runs.
pub fn demo_with_levels(device: &wgpu::Device, queue: &wgpu::Queue, cache: &Md2Cache) -> GpuModel {
    let model = GpuModel::with_options(
        device,
        queue,
        cache,
        &demo::demo_model(),
        &[demo::demo_skin()],
        GpuModelOptions::WITH_LEVELS,
    )
    .expect("the demo model uploads with its levels");
    assert!(
        model.level_choice().levels().len() > 2,
        "the demo model has coarser levels"
    );
    model
}

/// Looking down a long street from head height, on a `SIZE` square
/// viewport.
pub fn street_camera() -> Camera {
    Camera::look_at(
        Vec3::new(0.0, 40.0, -60.0),
        Vec3::new(0.0, 20.0, 400.0),
        0.8,
        1.0,
        1.0,
        5000.0,
    )
    .with_viewport(UVec2::splat(SIZE))
}

/// Runs the crowd's compute pass (if any) for `camera` and draws
/// everything `renderer` has into a fresh target, in one submission.
pub async fn draw(
    (device, queue): (&wgpu::Device, &wgpu::Queue),
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
    crowd: Option<&mut Md2Crowd>,
    now: f64,
) -> RgbaImage {
    renderer
        .prepare(device, queue, camera, batches)
        .expect("prepare");
    let mut encoder = device.create_command_encoder(&Default::default());
    renderer
        .prepare_crowds(device, queue, &mut encoder, now, crowd)
        .expect("prepare_crowds");
    draw_picture(device, queue, encoder, renderer, SIZE).await
}

/// Soldiers down the street, near to far, each turned and scaled its own
/// way (one stretched along one axis), none so near a level's switching
/// distance that rounding could choose either, with the level the CPU
/// chooses for each.
fn street(
    gpu_model: &GpuModel,
    camera: &Camera,
    pixels: f32,
    now: f64,
) -> Vec<(CrowdMember, usize)> {
    let clips = Quake2Player::clips();
    let mut rng = Rng::new(18);
    let mut members = Vec::new();
    while members.len() < 120 {
        let z = rng.range(0.0, 3000.0);
        let scale = if members.len() % 17 == 5 {
            Vec3::new(1.0, 1.8, 1.0)
        } else {
            Vec3::splat(rng.range(0.5, 2.0))
        };
        let transform = Mat4::from_translation(Vec3::new(rng.range(-60.0, 60.0), 0.0, z))
            * Mat4::from_rotation_y(rng.range(0.0, std::f32::consts::TAU))
            * Mat4::from_scale(scale);
        let choice = gpu_model.level_choice();
        let level = choice.for_view(camera, pixels, transform);
        let near_a_switch = [0.99, 1.01]
            .iter()
            .any(|k| choice.for_view(camera, pixels * k, transform) != level);
        if near_a_switch {
            continue;
        }
        let clip = clips[rng.below(clips.len())].clone();
        let clock = ClipClock::new(clip, now - rng.unit_f64() * 5.0);
        members.push((CrowdMember::new(transform, clock), level));
    }
    members
}

/// The crowd's compute pass and the immediate path choose the same level
/// for the same member and view, and draw the same pixels.
pub async fn both_paths_choose_the_same_level_for_the_same_member_and_view(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
) -> Measured {
    let mut measured = Measured::default();
    let cache = Md2Cache::new(device).unwrap();
    let gpu_model = demo_with_levels(device, queue, &cache);
    measured.log(format!(
        "demo levels of detail built in {:?}",
        gpu_model.level_choice().build_time()
    ));
    let camera = street_camera();
    let options = Md2RendererOptions::WITH_DEPTH;
    let now = 3.0;
    let members = street(&gpu_model, &camera, options.level_error_pixels, now);
    let mut expected = [0u32; MAX_LEVELS];
    for (_, level) in &members {
        expected[*level] += 1;
    }
    measured.log(format!("members per level: {expected:?}"));
    assert!(
        expected.iter().filter(|&&n| n > 0).count() >= 3,
        "the street shows three levels or more: {expected:?}"
    );

    // The resident path: each member's record lies in its level's bucket.
    let mut resident = Md2Renderer::with_cache(device, &cache, SRGB, options).unwrap();
    let mut crowd = Md2Crowd::new(device, &resident, &gpu_model).unwrap();
    for (member, _) in &members {
        crowd.add(member.clone()).unwrap();
    }
    let gpu = (device, queue);
    let from_crowd = draw(gpu, &mut resident, &camera, &[], Some(&mut crowd), now).await;
    let records = low_level::read_crowd_records(&resident, device, queue, 0)
        .await
        .expect("the crowd's records read back");
    for (bucket, record) in &records {
        let at = [record.rows[0][3], record.rows[1][3], record.rows[2][3]];
        let (_, level) = members
            .iter()
            .find(|(m, _)| m.transform.w_axis.truncate().to_array() == at)
            .expect("every record is a member's");
        assert_eq!(bucket / 2, *level, "the member at {at:?}");
    }
    let visible = VisibleMembers::read(&resident, device, queue)
        .await
        .expect("the visible counts read back");
    let in_view: u32 = visible.per_level[0].iter().sum();
    assert_eq!(records.len(), in_view as usize);

    // The immediate path: the same members as instances, in the poses the
    // crowd drew (the GPU's clocks equal the CPU's to within a few ULP of
    // t, which the crowd's tests hold): the same words on both paths, so
    // the pictures are held to the same pixels, and the same counts per
    // level (of those in view: the immediate path does not cull).
    let instances: Vec<Md2Instance> = members
        .iter()
        .map(|(m, _)| {
            let at = m.transform.w_axis.truncate().to_array();
            let drawn = records
                .iter()
                .find(|(_, r)| [r.rows[0][3], r.rows[1][3], r.rows[2][3]] == at);
            let pose = drawn.map_or_else(|| m.playback.pose(now), |(_, r)| record_pose(r));
            Md2Instance::new(m.transform, pose)
        })
        .collect();
    let batches = [Md2Batch::new(&gpu_model, &instances)];
    let mut immediate = Md2Renderer::with_cache(device, &cache, SRGB, options).unwrap();
    let report = immediate.prepare(device, queue, &camera, &batches).unwrap();
    assert_eq!(report.levels, expected, "instances per level");
    let from_batch = draw(gpu, &mut immediate, &camera, &batches, None, now).await;
    assert!(coverage(&from_crowd) > 2000);
    measured.log(format!(
        "street: {in_view} members in view, per level {:?}; {} pixels differ between the paths",
        visible.per_level[0],
        differing_pixels(&from_crowd, &from_batch, 0)
    ));
    assert_same_drawing(
        &from_crowd,
        &from_batch,
        "the street, resident and immediate",
    );
    measured.picture("levels-street-resident.png", from_crowd);
    measured.picture("levels-street-immediate.png", from_batch);
    measured
}

/// A field of soldiers drawn culled and not: the same pixels, from two
/// cameras, with some members at coarser levels.
pub async fn culling_with_levels_never_drops_a_visible_member(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
) -> Measured {
    let mut measured = Measured::default();
    let cache = Md2Cache::new(device).unwrap();
    let gpu_model = demo_with_levels(device, queue, &cache);
    let mut renderer =
        Md2Renderer::with_cache(device, &cache, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let now = 7.25;
    let mut rng = Rng::new(4);
    let clips = Quake2Player::clips();
    let mut crowd = Md2Crowd::new(device, &renderer, &gpu_model).unwrap();
    // A field of 30 × 30 soldiers, 80 units apart.
    for i in 0..900 {
        let at = Vec3::new((i % 30) as f32 * 80.0 - 1200.0, 0.0, (i / 30) as f32 * 80.0);
        let transform = Mat4::from_translation(at) * Mat4::from_rotation_y(rng.range(0.0, 6.3));
        let clip = clips[rng.below(clips.len())].clone();
        let clock = ClipClock::new(clip, now - rng.unit_f64() * 10.0);
        crowd.add(CrowdMember::new(transform, clock)).unwrap();
    }
    let cameras = [
        ("across", street_camera()),
        (
            "corner",
            Camera::look_at(
                Vec3::new(-1300.0, 60.0, -100.0),
                Vec3::new(-900.0, 0.0, 300.0),
                1.0,
                1.0,
                1.0,
                4000.0,
            )
            .with_viewport(UVec2::splat(SIZE)),
        ),
    ];
    let gpu = (device, queue);
    for (name, camera) in cameras {
        crowd.set_culling(true);
        let culled = draw(gpu, &mut renderer, &camera, &[], Some(&mut crowd), now).await;
        let per_level = VisibleMembers::read(&renderer, device, queue)
            .await
            .expect("the visible counts read back")
            .per_level[0];
        crowd.set_culling(false);
        let all = draw(gpu, &mut renderer, &camera, &[], Some(&mut crowd), now).await;
        let differ = differing_pixels(&culled, &all, 0);
        assert_eq!(differ, 0, "{name}: culling changed {differ} pixels");
        let visible: u32 = per_level.iter().sum();
        measured.log(format!(
            "{name}: {visible} of 900 in view, per level {per_level:?}"
        ));
        assert!(coverage(&culled) > 2000, "{name}: the crowd is in view");
        assert!(visible < 900, "{name}: culling left some out");
        assert!(
            per_level[1..].iter().any(|&n| n > 0),
            "{name}: some members at a coarser level"
        );
        measured.picture(&format!("levels-{name}-culled.png"), culled);
    }
    measured
}
