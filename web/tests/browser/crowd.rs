//! A resident crowd's compute pass (clocks in integer ticks, frustum
//! culling, each member's level of detail, ordered compaction into the
//! buckets the draws read) draws what the immediate path draws for the
//! same members: the same level for each member, the same counts, the same
//! pixels; and culling drops no member in view.

use glam::{Mat4, UVec2, Vec3};
use image::RgbaImage;
use md2_wgpu::support::Rng;
use md2_wgpu::wgpu;
use md2_wgpu::{
    Camera, ClipClock, CrowdMember, GpuModel, GpuModelOptions, MAX_LEVELS, Md2Batch, Md2Cache,
    Md2Crowd, Md2Instance, Md2Renderer, Md2RendererOptions, Quake2Player, demo,
};
use md2_wgpu_tests::{coverage, differing_pixels};
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

use crate::gpu::{Gpu, attachment, draw_into, gpu, read_rgba8};

const SIZE: u32 = 256;
const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// The demo model with its levels of detail, built here, in the browser.
fn demo_with_levels(gpu: &Gpu, cache: &Md2Cache) -> GpuModel {
    let model = GpuModel::with_options(
        &gpu.device,
        &gpu.queue,
        cache,
        &demo::demo_model(),
        &[demo::demo_skin()],
        GpuModelOptions::WITH_LEVELS,
    )
    .expect("the demo model uploads with its levels");
    assert!(
        model.levels().len() > 2,
        "the demo model has coarser levels"
    );
    console_log!(
        "demo levels of detail built in the browser in {:?}",
        model.level_build_time()
    );
    model
}

/// Looking down a long street from head height.
fn street_camera() -> Camera {
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
async fn draw(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
    crowd: Option<&mut Md2Crowd>,
    now: f64,
) -> RgbaImage {
    renderer
        .prepare(&gpu.device, &gpu.queue, camera, batches)
        .expect("prepare");
    let color = attachment(gpu, SRGB, SIZE, SIZE);
    let depth_format = renderer.options().depth.expect("a depth state").format;
    let depth = attachment(gpu, depth_format, SIZE, SIZE);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer
        .prepare_crowds(&gpu.device, &gpu.queue, &mut encoder, now, crowd)
        .expect("prepare_crowds");
    draw_into(&mut encoder, &[&color], Some(&depth), |pass| {
        renderer.render(pass)
    });
    read_rgba8(gpu, encoder, &color).await
}

#[wasm_bindgen_test]
async fn both_paths_choose_the_same_level_and_draw_the_same_pixels() {
    let gpu = gpu().await;
    gpu.checked(async || {
        let cache = Md2Cache::new(&gpu.device).unwrap();
        let gpu_model = demo_with_levels(&gpu, &cache);
        let camera = street_camera();
        let options = Md2RendererOptions::WITH_DEPTH;
        let pixels = options.level_error_pixels;
        let now = 3.0;
        let clips = Quake2Player::clips();
        let mut rng = Rng::new(18);
        // Soldiers down the street, each turned and scaled its own way,
        // none so near a level's switching distance that rounding could
        // choose either.
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
            let level = gpu_model.level_for(&camera, pixels, transform);
            let near_a_switch = [0.99, 1.01]
                .iter()
                .any(|k| gpu_model.level_for(&camera, pixels * k, transform) != level);
            if near_a_switch {
                continue;
            }
            let clip = clips[rng.below(clips.len())].clone();
            let clock = ClipClock::new(clip, now - rng.unit_f64() * 5.0);
            members.push((CrowdMember::new(transform, clock), level));
        }
        let mut expected = [0u32; MAX_LEVELS];
        for (_, level) in &members {
            expected[*level] += 1;
        }
        console_log!("members per level: {expected:?}");
        assert!(expected.iter().filter(|&&n| n > 0).count() >= 3);

        // The resident path: each member's record lies in its level's
        // bucket, read back without waiting.
        let mut resident = Md2Renderer::with_cache(&gpu.device, &cache, SRGB, options).unwrap();
        let mut crowd = Md2Crowd::new(&gpu.device, &resident, &gpu_model).unwrap();
        for (member, _) in &members {
            crowd.add(member.clone()).unwrap();
        }
        let from_crowd = draw(&gpu, &mut resident, &camera, &[], Some(&mut crowd), now).await;
        let records =
            md2_wgpu::low_level::read_crowd_records(&resident, &gpu.device, &gpu.queue, 0)
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
        let visible = resident
            .visible_members(&gpu.device, &gpu.queue)
            .await
            .expect("the visible counts read back");
        let in_view: u32 = visible.per_level[0].iter().sum();
        assert_eq!(records.len(), in_view as usize);

        // The immediate path: the same members as instances.
        let instances: Vec<Md2Instance> = members
            .iter()
            .map(|(m, _)| Md2Instance::new(m.transform, m.playback.pose(now)))
            .collect();
        let batches = [Md2Batch::new(&gpu_model, &instances)];
        let mut immediate = Md2Renderer::with_cache(&gpu.device, &cache, SRGB, options).unwrap();
        let report = immediate
            .prepare(&gpu.device, &gpu.queue, &camera, &batches)
            .unwrap();
        assert_eq!(report.levels, expected, "instances per level");
        let from_batch = draw(&gpu, &mut immediate, &camera, &batches, None, now).await;
        assert!(coverage(&from_crowd) > 2000);
        let differ = differing_pixels(&from_crowd, &from_batch, 0);
        console_log!(
            "street: {in_view} members in view, per level {:?}; {differ} pixels differ between the paths",
            visible.per_level[0]
        );
        assert_eq!(differ, 0, "{differ} pixels differ between the paths");
    })
    .await;
}

#[wasm_bindgen_test]
async fn culling_with_levels_never_drops_a_visible_member() {
    let gpu = gpu().await;
    gpu.checked(async || {
        let cache = Md2Cache::new(&gpu.device).unwrap();
        let gpu_model = demo_with_levels(&gpu, &cache);
        let mut renderer =
            Md2Renderer::with_cache(&gpu.device, &cache, SRGB, Md2RendererOptions::WITH_DEPTH)
                .unwrap();
        let now = 7.25;
        let mut rng = Rng::new(4);
        let clips = Quake2Player::clips();
        let mut crowd = Md2Crowd::new(&gpu.device, &renderer, &gpu_model).unwrap();
        // A field of 30 × 30 soldiers, 80 units apart.
        for i in 0..900 {
            let at = Vec3::new((i % 30) as f32 * 80.0 - 1200.0, 0.0, (i / 30) as f32 * 80.0);
            let transform =
                Mat4::from_translation(at) * Mat4::from_rotation_y(rng.range(0.0, 6.3));
            let clip = clips[rng.below(clips.len())].clone();
            let clock = ClipClock::new(clip, now - rng.unit_f64() * 10.0);
            crowd.add(CrowdMember::new(transform, clock)).unwrap();
        }
        let camera = street_camera();
        crowd.set_culling(true);
        let culled = draw(&gpu, &mut renderer, &camera, &[], Some(&mut crowd), now).await;
        let per_level = renderer
            .visible_members(&gpu.device, &gpu.queue)
            .await
            .expect("the visible counts read back")
            .per_level[0];
        crowd.set_culling(false);
        let all = draw(&gpu, &mut renderer, &camera, &[], Some(&mut crowd), now).await;
        let differ = differing_pixels(&culled, &all, 0);
        let visible: u32 = per_level.iter().sum();
        console_log!("field: {visible} of 900 in view, per level {per_level:?}; culling changed {differ} pixels");
        assert_eq!(differ, 0, "culling changed {differ} pixels");
        assert!(coverage(&culled) > 2000, "the crowd is in view");
        assert!(visible < 900, "culling left some out");
        assert!(per_level[1..].iter().any(|&n| n > 0), "some members at a coarser level");
    })
    .await;
}
