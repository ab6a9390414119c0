//! Levels of detail chosen on both paths: the resident crowd's compute pass
//! and the immediate path choose the same level for the same member and
//! view, and culling with levels still draws every member in view.

use crate::common::*;
use glam::{Mat4, Vec3};
use md2_wgpu::support::Rng;
use md2_wgpu::{
    Camera, CrowdMember, GpuModel, Md2Crowd, Md2Instance, Md2Renderer, Md2RendererOptions,
    Quake2Player,
    anim::ClipClock,
    contract::MAX_LEVELS,
    demo,
    gpu::{Md2Batch, Md2Cache},
    mesh::{LevelOptions, Levels, RenderMesh, TriangleOrder},
};

const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

use md2_wgpu_tests::cases::levels::{self, street_camera};

/// The demo model with its levels of detail.
fn demo_with_levels(gpu: &Gpu, cache: &Md2Cache) -> GpuModel {
    levels::demo_with_levels(&gpu.device, &gpu.queue, cache)
}

/// The shared cases' drawing, waited for.
fn draw(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
    crowd: Option<&mut Md2Crowd>,
    now: f64,
) -> image::RgbaImage {
    md2_wgpu::support::wait(
        &gpu.device,
        levels::draw(
            (&gpu.device, &gpu.queue),
            renderer,
            camera,
            batches,
            crowd,
            now,
        ),
    )
}

#[test]
fn both_paths_choose_the_same_level_for_the_same_member_and_view() {
    let Some(gpu) = gpu() else { return };
    // The browser suite runs the same case, awaited.
    run_case(
        &gpu,
        levels::both_paths_choose_the_same_level_for_the_same_member_and_view,
    );
}

#[test]
fn culling_with_levels_never_drops_a_visible_member() {
    let Some(gpu) = gpu() else { return };
    run_case(
        &gpu,
        levels::culling_with_levels_never_drops_a_visible_member,
    );
}

/// One crowd past the old room (279,620 members of the demo model with its
/// five levels, when a view kept room for every member at every level):
/// 300,000 members, a few hundred in view down the street among the rest
/// behind the camera, spread through the member order so that every
/// workgroup's share lands in the compact records. The members in view
/// draw exactly the immediate path's picture, with the same counts per
/// level.
#[test]
fn a_crowd_past_the_old_limit_draws_what_the_immediate_path_draws() {
    const MEMBERS: usize = 300_000;
    // Every this many members, one stands in view.
    const EVERY: usize = 1_000;
    let Some(gpu) = gpu() else { return };
    let cache = Md2Cache::new(&gpu.device).unwrap();
    let gpu_model = demo_with_levels(&gpu, &cache);
    assert_eq!(gpu_model.level_choice().levels().len(), MAX_LEVELS);
    let camera = street_camera();
    let options = Md2RendererOptions::WITH_DEPTH;
    let pixels = options.level_error_pixels;
    let now = 11.0;
    let clips = Quake2Player::clips();
    let mut rng = Rng::new(300);
    let mut resident = Md2Renderer::with_cache(&gpu.device, &cache, SRGB, options).unwrap();
    let mut crowd = Md2Crowd::new(&gpu.device, &resident, &gpu_model).unwrap();
    assert!(crowd.max_members() >= 1_000_000, "{}", crowd.max_members());
    crowd.reserve(MEMBERS);
    let mut in_view = Vec::new();
    let mut expected = [0u32; MAX_LEVELS];
    while crowd.len() < MEMBERS {
        let clip = clips[rng.below(clips.len())].clone();
        let clock = ClipClock::new(clip, now - rng.unit_f64() * 5.0);
        let turn = Mat4::from_rotation_y(rng.range(0.0, std::f32::consts::TAU));
        if crowd.len() % EVERY == EVERY / 2 {
            // Down the street, near to far, none so near a level's
            // switching distance that rounding could choose either.
            let at = Vec3::new(rng.range(-60.0, 60.0), 0.0, rng.range(0.0, 3000.0));
            let transform = Mat4::from_translation(at) * turn;
            let level = gpu_model
                .level_choice()
                .for_view(&camera, pixels, transform);
            if [0.99, 1.01].iter().any(|k| {
                gpu_model
                    .level_choice()
                    .for_view(&camera, pixels * k, transform)
                    != level
            }) {
                continue;
            }
            expected[level] += 1;
            let member = CrowdMember::new(transform, clock);
            in_view.push(Md2Instance::new(transform, member.playback.pose(now)));
            crowd.add(member).unwrap();
        } else {
            // Behind the camera, a field of them.
            let i = crowd.len();
            let at = Vec3::new(
                (i % 600) as f32 * 50.0 - 15_000.0,
                0.0,
                -500.0 - (i / 600) as f32 * 50.0,
            );
            crowd
                .add(CrowdMember::new(Mat4::from_translation(at) * turn, clock))
                .unwrap();
        }
    }
    assert_eq!(in_view.len(), MEMBERS / EVERY);
    assert!(
        expected.iter().filter(|&&n| n > 0).count() >= 3,
        "the street shows three levels or more: {expected:?}"
    );
    let from_crowd = draw(&gpu, &mut resident, &camera, &[], Some(&mut crowd), now);
    let counted = visible(&gpu, &resident).per_level[0];
    assert_eq!(counted, expected, "members per level, in view");
    // What the crowd and this view hold on the GPU, per member: the
    // member (128 bytes), its share of the records (24) and of the work
    // buffer (about 5), and the room the buffers keep to grow.
    let bytes =
        crowd.gpu_bytes() + md2_wgpu::gpu::low_level::crowd_view_bytes(&resident, 0).unwrap();
    let per_member = bytes as f64 / MEMBERS as f64;
    eprintln!("GPU memory per member: {per_member:.1} bytes");
    assert!(per_member <= 160.0, "{per_member:.1} bytes per member");

    assert_eq!(
        with_drawn_poses(&gpu, &resident, 0, &mut in_view),
        in_view.len()
    );
    let mut immediate = Md2Renderer::with_cache(&gpu.device, &cache, SRGB, options).unwrap();
    let batch = [Md2Batch::new(&gpu_model, &in_view)];
    let report = immediate
        .prepare(&gpu.device, &gpu.queue, &camera, &batch)
        .unwrap();
    assert_eq!(report.levels, expected, "instances per level");
    let from_batch = draw(&gpu, &mut immediate, &camera, &batch, None, now);
    save_picture(&from_crowd, "levels-300k-resident.png");
    save_picture(&from_batch, "levels-300k-immediate.png");
    assert!(coverage(&from_crowd) > 2000);
    assert_same_drawing(
        &from_crowd,
        &from_batch,
        "300,000 members, resident and immediate",
    );
}

/// A model uploaded at full detail draws at once; its levels, built on
/// another thread, saved and loaded back, are added later without a new
/// upload, and from the next frame its crowd and its batches draw exactly
/// what a model uploaded with them draws.
#[test]
fn levels_added_later_draw_what_levels_at_upload_draw() {
    let Some(gpu) = gpu() else { return };
    let cache = Md2Cache::new(&gpu.device).unwrap();
    let with_levels = demo_with_levels(&gpu, &cache);
    let model = demo::demo_model();
    let mut later = GpuModel::new(
        &gpu.device,
        &gpu.queue,
        &cache,
        &model,
        &[demo::demo_skin()],
    )
    .unwrap();
    assert_eq!(later.level_choice().levels().len(), 1);
    let camera = street_camera();
    let options = Md2RendererOptions::WITH_DEPTH;
    let now = 5.0;
    let clips = Quake2Player::clips();
    let mut rng = Rng::new(7);
    let members: Vec<CrowdMember> = (0..200)
        .map(|i| {
            let at = Vec3::new((i % 10) as f32 * 30.0 - 135.0, 0.0, (i / 10) as f32 * 150.0);
            let clip = clips[rng.below(clips.len())].clone();
            CrowdMember::new(
                Mat4::from_translation(at),
                ClipClock::new(clip, now - rng.unit_f64()),
            )
        })
        .collect();
    let instances: Vec<Md2Instance> = members
        .iter()
        .map(|m| Md2Instance::new(m.transform, m.playback.pose(now)))
        .collect();
    // Draws `gpu_model`'s crowd (made before its levels came, where it is
    // `later`) and its batch; returns both pictures and the crowd's counts.
    let frame = |gpu_model: &GpuModel, crowd: &mut Md2Crowd| {
        let mut renderer = Md2Renderer::with_cache(&gpu.device, &cache, SRGB, options).unwrap();
        let resident = draw(&gpu, &mut renderer, &camera, &[], Some(crowd), now);
        let counts = visible(&gpu, &renderer).per_level[0];
        // The poses the crowd drew: the same words on both paths.
        let mut instances = instances.clone();
        with_drawn_poses(&gpu, &renderer, 0, &mut instances);
        let batch = [Md2Batch::new(gpu_model, &instances)];
        let immediate = draw(&gpu, &mut renderer, &camera, &batch, None, now);
        (resident, immediate, counts)
    };
    let crowd_of = |gpu_model: &GpuModel| {
        let mut crowd = Md2Crowd::new(&gpu.device, &cache, gpu_model).unwrap();
        for m in &members {
            crowd.add(m.clone()).unwrap();
        }
        crowd
    };
    let mut reference_crowd = crowd_of(&with_levels);
    let (reference, reference_immediate, reference_counts) =
        frame(&with_levels, &mut reference_crowd);
    assert_same_drawing(&reference, &reference_immediate, "levels at upload");
    assert!(
        reference_counts[1..].iter().any(|&n| n > 0),
        "{reference_counts:?}"
    );

    let mut crowd = crowd_of(&later);
    let (full, _, counts) = frame(&later, &mut crowd);
    assert_eq!(
        counts[1..],
        [0; MAX_LEVELS - 1],
        "full detail only, at first"
    );
    assert!(differing_pixels(&full, &reference, 0) > 0);

    let mesh = later.mesh().clone();
    let building = {
        let model = model.clone();
        std::thread::spawn(move || {
            let levels = Levels::new(&model, &mesh, &LevelOptions::DEFAULT).unwrap();
            levels.to_bytes(&model, &mesh)
        })
    };
    let bytes = building.join().unwrap();
    // Levels of another mesh are refused, and change nothing.
    let other_order = RenderMesh::new(&model, TriangleOrder::File);
    let other = Levels::new(&model, &other_order, &LevelOptions::DEFAULT).unwrap();
    assert!(later.set_levels(&gpu.device, other).is_err());
    assert_eq!(later.level_choice().levels().len(), 1);
    let loaded = Levels::from_bytes(&bytes, &model, later.mesh()).unwrap();
    later.set_levels(&gpu.device, loaded).unwrap();
    assert_eq!(
        later.level_choice().levels(),
        with_levels.level_choice().levels()
    );
    let (resident, immediate, counts) = frame(&later, &mut crowd);
    assert_eq!(counts, reference_counts);
    // The same pipelines and words as the reference: the same bits.
    assert_eq!(differing_pixels(&resident, &reference, 0), 0);
    assert_eq!(differing_pixels(&immediate, &reference_immediate, 0), 0);
}
