//! Pictures: what reaches the screen. Each test renders offscreen (small
//! targets: lavapipe is a CPU), reads the pixels back and checks them.
//! Pictures go to target/test-pictures for people to look at.

use crate::common::*;
use glam::{Mat4, Vec3};
use image::RgbaImage;
use md2_wgpu::{
    Camera, GpuModel, Md2Instance, Md2Model, Md2Renderer, Md2RendererOptions,
    anim::{FrameLerp, Pose},
    contract::GpuModelOptions,
    mesh::{RenderMesh, TriangleOrder},
};

const SIZE: u32 = 128;

fn renderer(gpu: &Gpu, format: wgpu::TextureFormat, options: Md2RendererOptions) -> Md2Renderer {
    Md2Renderer::new(&gpu.device, format, options).expect("renderer")
}

fn srgb_renderer(gpu: &Gpu) -> Md2Renderer {
    srgb_renderer_with(gpu, Md2RendererOptions::WITH_DEPTH)
}

/// `options` with back faces drawn too.
fn both_sides(options: Md2RendererOptions) -> Md2RendererOptions {
    Md2RendererOptions {
        cull_back_faces: false,
        ..options
    }
}

fn render_pose(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    model: &GpuModel,
    pose: impl Into<Pose>,
) -> RgbaImage {
    let instances = [Md2Instance::new(Mat4::IDENTITY, pose)];
    render_instances(gpu, renderer, camera, model, &instances, SIZE)
}

/// [`render_pose`] of frame 0.
fn render_still(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    model: &GpuModel,
) -> RgbaImage {
    render_pose(gpu, renderer, camera, model, FrameLerp::still(0))
}

#[test]
fn skin_colours_reach_the_screen_the_right_way_up() {
    let Some(gpu) = gpu() else { return };
    // A 4 × 4 skin in quadrants: red top left, green top right, blue bottom
    // left, white bottom right.
    let skin = RgbaImage::from_fn(4, 4, |x, y| {
        image::Rgba(match (x < 2, y < 2) {
            (true, true) => [255, 0, 0, 255],
            (false, true) => [0, 255, 0, 255],
            (true, false) => [0, 0, 255, 255],
            (false, false) => [255, 255, 255, 255],
        })
    });
    let model = front_square(3, 3, (4, 4));
    let mut renderer = srgb_renderer(&gpu);
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &[skin]).unwrap();
    assert!(!gpu_model.uses_default_skin());
    let camera = ortho_camera(-0.5, 0.5, -0.5, 0.5, 1.0);
    let image = render_still(&gpu, &mut renderer, &camera, &gpu_model);
    save_picture(&image, "skin-quadrants.png");
    let q = SIZE / 4;
    let expect = [
        ((q, q), [255, 0, 0]),
        ((3 * q, q), [0, 255, 0]),
        ((q, 3 * q), [0, 0, 255]),
        ((3 * q, 3 * q), [255, 255, 255]),
    ];
    for ((x, y), rgb) in expect {
        let p = image.get_pixel(x, y).0;
        for c in 0..3 {
            assert!(
                p[c].abs_diff(rgb[c]) <= 2,
                "pixel ({x}, {y}) is {p:?}, the skin says {rgb:?}"
            );
        }
        assert_eq!(p[3], 255);
    }
}

#[test]
fn a_model_without_skin_shows_the_default_checker() {
    let Some(gpu) = gpu() else { return };
    let model = front_square(63, 63, (64, 64));
    let mut renderer = srgb_renderer(&gpu);
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &[]).unwrap();
    assert!(gpu_model.uses_default_skin());
    assert_eq!(gpu_model.skin_count(), 1);
    let camera = ortho_camera(-0.5, 0.5, -0.5, 0.5, 1.0);
    let image = render_still(&gpu, &mut renderer, &camera, &gpu_model);
    save_picture(&image, "default-skin.png");
    // 8 × 8 squares over 128 pixels: 16 pixels a square. Sample square
    // centres: magenta and dark grey alternate.
    let magenta = |p: [u8; 4]| p[0] > 200 && p[1] < 40 && p[2] > 200;
    let grey = |p: [u8; 4]| p[0] < 80 && p[1] < 80 && p[2] < 80 && p[3] == 255;
    for j in 0..8u32 {
        for i in 0..8u32 {
            let p = image.get_pixel(i * 16 + 8, j * 16 + 8).0;
            if (i + j) % 2 == 0 {
                assert!(magenta(p), "square ({i}, {j}) is {p:?}, not magenta");
            } else {
                assert!(grey(p), "square ({i}, {j}) is {p:?}, not grey");
            }
        }
    }
}

#[test]
fn back_faces_are_culled_the_right_way_round() {
    let Some(gpu) = gpu() else { return };
    let model = cube_model();
    let no_depth = Md2RendererOptions::DEFAULT;
    let mut culled = srgb_renderer_with(&gpu, no_depth);
    let mut unculled = srgb_renderer_with(&gpu, both_sides(no_depth));
    let mut depth_unculled = srgb_renderer_with(&gpu, both_sides(Md2RendererOptions::WITH_DEPTH));
    let gpu_model =
        GpuModel::new(&gpu.device, &gpu.queue, &culled, &model, &[cube_skin()]).unwrap();

    // Straight on, without depth: the front face (red) must win although the
    // back face (blue) is drawn after it.
    let mut front = ortho_camera(-2.0, 2.0, -2.0, 2.0, 1.0);
    let center = (SIZE / 2, SIZE / 2);
    let image = render_still(&gpu, &mut culled, &front, &gpu_model);
    save_picture(&image, "cube-front-culled.png");
    assert_eq!(&image.get_pixel(center.0, center.1).0[..3], &[255, 0, 0]);
    let image = render_still(&gpu, &mut unculled, &front, &gpu_model);
    assert_eq!(
        &image.get_pixel(center.0, center.1).0[..3],
        &[0, 0, 255],
        "without culling or depth the back face drawn last shows: the test can tell"
    );

    // A perspective three-quarter view: culling alone (no depth) must give
    // the picture that depth testing gives without culling.
    front.view_proj =
        Camera::look_at(Vec3::new(3.0, 2.5, 4.0), Vec3::ZERO, 0.8, 1.0, 0.5, 20.0).view_proj;
    let by_culling = render_still(&gpu, &mut culled, &front, &gpu_model);
    let by_depth = render_still(&gpu, &mut depth_unculled, &front, &gpu_model);
    save_picture(&by_culling, "cube-3q-culled.png");
    save_picture(&by_depth, "cube-3q-depth.png");
    let differ = differing_pixels(&by_culling, &by_depth, 2);
    assert!(
        differ <= 8,
        "{differ} pixels differ between culling and depth testing"
    );
    // Three faces are visible: front (red), +Y (Quake left, on the viewer's
    // right: green) and top (+Z: cyan).
    let mut seen = std::collections::HashSet::new();
    for p in by_culling.pixels().filter(|p| p.0[3] > 0) {
        seen.insert([p.0[0], p.0[1], p.0[2]]);
    }
    for colour in [[255, 0, 0], [0, 255, 0], [0, 255, 255]] {
        assert!(seen.contains(&colour), "face {colour:?} not visible");
    }
    for colour in [[0, 0, 255], [255, 255, 0], [255, 0, 255]] {
        assert!(!seen.contains(&colour), "hidden face {colour:?} visible");
    }
}

#[test]
fn culling_leaves_real_models_unchanged() {
    let Some(gpu) = gpu() else { return };
    let mut culled = srgb_renderer(&gpu);
    let mut unculled = srgb_renderer_with(&gpu, both_sides(Md2RendererOptions::WITH_DEPTH));
    for (name, model, skins) in animated_models() {
        let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &culled, &model, &skins).unwrap();
        let camera = frames_camera(&model, &[0], 1.0);
        let a = render_still(&gpu, &mut culled, &camera, &gpu_model);
        let b = render_still(&gpu, &mut unculled, &camera, &gpu_model);
        save_picture(&a, &format!("{name}-culled.png"));
        save_picture(&b, &format!("{name}-unculled.png"));
        let colours = distinct_colours(&a);
        assert!(
            colours >= 64,
            "{name}: only {colours} colours: not lit and textured"
        );
        // Real models are not closed everywhere: a back face seen edge-on
        // at the outline may add a pixel or two without culling.
        let covered = coverage(&a);
        let extra = coverage(&b).abs_diff(covered);
        assert!(
            extra * 200 <= covered,
            "{name}: culling changed the silhouette by {extra} of {covered} pixels"
        );
        // Single-sided cloth (yohko's skirt flaps) shows its back without
        // culling; culled the wrong way round, nearly every pixel would
        // show an inside face instead.
        let differ = differing_pixels(&a, &b, 2);
        assert!(
            differ * 10 <= covered,
            "{name}: {differ} of {covered} pixels change with culling: faces culled wrongly"
        );
    }
}

/// Frames with visible motion between them: run frames for a Quake II
/// player, else the first and the middle frame.
fn moving_frames(model: &Md2Model) -> (u32, u32) {
    match model.keyframes().animation("run") {
        Some(run) if run.len() >= 4 => (run.first, run.first + 3),
        _ => (0, model.keyframes().frame_count() / 2),
    }
}

#[test]
fn t0_and_t1_show_frames_a_and_b_and_interpolation_moves_between() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = srgb_renderer(&gpu);
    for (name, model, skins) in animated_models() {
        let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &skins).unwrap();
        let (a, b) = moving_frames(&model);
        let camera = frames_camera(&model, &[a, b], 1.0);
        let lerp = |t| FrameLerp {
            frame_a: a,
            frame_b: b,
            t,
        };
        let mut shot =
            |pose: FrameLerp| render_pose(&gpu, &mut renderer, &camera, &gpu_model, pose);
        let still_a = shot(FrameLerp::still(a));
        let still_b = shot(FrameLerp::still(b));
        let at = [0.0, 0.25, 0.5, 0.75, 1.0].map(|t| shot(lerp(t)));
        for (image, t) in at.iter().zip(["0", "025", "05", "075", "1"]) {
            save_picture(image, &format!("{name}-lerp-{t}.png"));
        }
        let covered = coverage(&still_a);
        assert!(covered > 500, "{name}: the model covers {covered} pixels");
        let colours = distinct_colours(&still_a);
        assert!(
            colours >= 64,
            "{name}: only {colours} colours: not lit and textured"
        );

        assert_eq!(
            differing_pixels(&at[0], &still_a, 0),
            0,
            "{name}: t = 0 must be frame a exactly"
        );
        // a + (b - a) * 1 may differ from b in the last bit.
        let off = differing_pixels(&at[4], &still_b, 2);
        assert!(
            off * 200 <= covered,
            "{name}: t = 1 differs from frame b in {off} pixels"
        );

        let from_a: Vec<usize> = at
            .iter()
            .map(|i| differing_pixels(i, &still_a, 2))
            .collect();
        let from_b: Vec<usize> = at
            .iter()
            .map(|i| differing_pixels(i, &still_b, 2))
            .collect();
        assert!(
            from_a[0] < from_a[1] && from_a[1] < from_a[2] && from_a[2] < from_a[3],
            "{name}: moving away from frame a: {from_a:?}"
        );
        assert!(
            from_b[1] > from_b[2] && from_b[2] > from_b[3] && from_b[3] > from_b[4],
            "{name}: moving towards frame b: {from_b:?}"
        );
        assert!(
            from_a[2] * 20 > covered && from_b[2] * 20 > covered,
            "{name}: halfway must differ from both ends: {from_a:?} {from_b:?}"
        );
    }
}

#[test]
fn srgb_and_linear_targets_give_the_same_bytes() {
    let Some(gpu) = gpu() else { return };
    let mut srgb = renderer(
        &gpu,
        wgpu::TextureFormat::Rgba8UnormSrgb,
        Md2RendererOptions::WITH_DEPTH,
    );
    let mut linear = renderer(
        &gpu,
        wgpu::TextureFormat::Rgba8Unorm,
        Md2RendererOptions::WITH_DEPTH,
    );
    let mut bgra = renderer(
        &gpu,
        wgpu::TextureFormat::Bgra8Unorm,
        Md2RendererOptions::WITH_DEPTH,
    );
    let mut scenes = vec![("cube", cube_model(), vec![cube_skin()])];
    scenes.extend(animated_models());
    for (name, model, skins) in scenes {
        let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &srgb, &model, &skins).unwrap();
        let mut camera = frames_camera(&model, &[0], 1.0);
        // Shade with a tint, so the tint's path is compared too.
        let instances = [Md2Instance::default().with_tint([0.9, 0.6, 0.8, 1.0])];
        camera.light.towards_light = Vec3::new(0.3, 0.5, 0.8);
        let [a, b, c] = [&mut srgb, &mut linear, &mut bgra].map(|renderer| {
            render_instances(&gpu, renderer, &camera, &gpu_model, &instances, SIZE)
        });
        save_picture(&a, &format!("{name}-srgb-target.png"));
        save_picture(&b, &format!("{name}-linear-target.png"));
        assert!(coverage(&a) > 500);
        assert!(distinct_colours(&a) >= 3, "{name}: not lit and textured");
        for (other, what) in [(&b, "Rgba8Unorm"), (&c, "Bgra8Unorm")] {
            let differ = differing_pixels(&a, other, 1);
            let mean = mean_difference(&a, other);
            assert!(
                differ == 0,
                "{name}: {differ} pixels differ by more than 1 between Rgba8UnormSrgb and {what} \
                 (mean difference {mean})"
            );
        }
    }
}

#[test]
fn a_thousand_instances_in_one_draw_all_appear() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = srgb_renderer(&gpu);
    let gpu_model = white_square(&gpu, &renderer);
    // A 32 × 32 grid of 8-pixel cells; squares 0.75 of a cell, tinted by
    // their number.
    let tint = |i: u32| {
        [
            (i % 32) as f32 * 8.0 / 255.0,
            (i / 32) as f32 * 8.0 / 255.0,
            0.5,
            1.0,
        ]
    };
    let instances: Vec<Md2Instance> = (0..1000u32)
        .map(|i| {
            let at = Vec3::new((i % 32) as f32 + 0.5, (i / 32) as f32 + 0.5, 0.0);
            let transform = Mat4::from_translation(at) * Mat4::from_scale(Vec3::splat(0.75));
            Md2Instance::new(transform, FrameLerp::still(0)).with_tint(tint(i))
        })
        .collect();
    let camera = ortho_camera(0.0, 32.0, 0.0, 32.0, 1.0);
    let image = render_instances(&gpu, &mut renderer, &camera, &gpu_model, &instances, 256);
    save_picture(&image, "thousand-instances.png");
    for i in 0..1000u32 {
        let (x, y) = ((i % 32) * 8 + 4, 255 - ((i / 32) * 8 + 4));
        let p = image.get_pixel(x, y).0;
        let want = tint(i).map(srgb_byte);
        for c in 0..3 {
            assert!(
                p[c].abs_diff(want[c]) <= 1,
                "instance {i} at ({x}, {y}) is {p:?}, its tint gives {want:?}"
            );
        }
    }
    // Between the squares: background.
    assert_eq!(image.get_pixel(0, 0).0, [0, 0, 0, 0]);
    assert_eq!(coverage(&image), 1000 * 6 * 6);
}

#[test]
fn multisampling_works_and_keeps_the_picture() {
    let Some(gpu) = gpu() else { return };
    let mut single = srgb_renderer(&gpu);
    let mut msaa = srgb_renderer_with(&gpu, Md2RendererOptions::WITH_DEPTH.with_sample_count(4));
    let mut scenes = vec![("cube", cube_model(), vec![cube_skin()])];
    scenes.extend(animated_models());
    for (name, model, skins) in scenes {
        let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &single, &model, &skins).unwrap();
        let camera = frames_camera(&model, &[0], 1.0);
        let a = render_still(&gpu, &mut single, &camera, &gpu_model);
        let b = render_still(&gpu, &mut msaa, &camera, &gpu_model);
        save_picture(&b, &format!("{name}-msaa4.png"));
        // Area covered, counting an edge pixel by its alpha.
        let area = |i: &RgbaImage| i.pixels().map(|p| f64::from(p.0[3]) / 255.0).sum::<f64>();
        let (ca, cb) = (area(&a), area(&b));
        assert!(
            ca > 500.0 && (ca - cb).abs() <= ca * 0.05,
            "{name}: area {ca} vs {cb}"
        );
        let mean = mean_difference(&a, &b);
        assert!(
            mean < 4.0,
            "{name}: 4× MSAA changes the picture by {mean} on average"
        );
        // Anti-aliased edges have partial alpha; aliased ones do not.
        assert!(
            b.pixels().any(|p| p.0[3] > 0 && p.0[3] < 255),
            "{name}: no edge blending"
        );
    }
}

/// Mean difference (per channel, 0..255) the reference picture allows: other
/// adapters rasterise and filter a little differently from lavapipe.
const REFERENCE_TOLERANCE: f64 = 2.0;

#[test]
fn the_demo_model_matches_its_reference_picture() {
    let Some(gpu) = gpu() else { return };
    // The browser suite draws the same picture and holds it to this one.
    let actual = md2_wgpu::support::wait(
        &gpu.device,
        md2_wgpu_tests::cases::drawn::demo_crossfade_picture(&gpu.device, &gpu.queue),
    );

    let dir = reference_dir();
    let reference_path = dir.join("demo-crossfade.png");
    let actual_path = dir.join("demo-crossfade-actual.png");
    std::fs::create_dir_all(&dir).unwrap();
    if std::env::var("MD2_ACCEPT").is_ok_and(|v| v == "1") {
        actual.save(&reference_path).unwrap();
        eprintln!("MD2_ACCEPT=1: wrote {}", reference_path.display());
        return;
    }
    let reference = image::open(&reference_path)
        .unwrap_or_else(|e| {
            actual.save(&actual_path).unwrap();
            panic!(
                "no reference picture {} ({e}); wrote {}: look at it and accept it with \
                 MD2_ACCEPT=1",
                reference_path.display(),
                actual_path.display()
            )
        })
        .into_rgba8();
    let mean = if reference.dimensions() == actual.dimensions() {
        mean_difference(&reference, &actual)
    } else {
        f64::INFINITY
    };
    // Written so that a NaN mean fails too.
    let within = mean <= REFERENCE_TOLERANCE;
    if !within {
        actual.save(&actual_path).unwrap();
        panic!(
            "the demo model's picture differs from {} by {mean:.3} on average (allowed \
             {REFERENCE_TOLERANCE}); wrote {}",
            reference_path.display(),
            actual_path.display()
        );
    }
    // A stale failure picture would mislead.
    let _ = std::fs::remove_file(&actual_path);
    eprintln!("demo reference picture: mean difference {mean:.3}");
}

#[test]
fn skins_of_different_sizes_share_one_array() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = srgb_renderer(&gpu);
    // Each layer's size and colour.
    let layers = [
        ((4, 4), [255, 0, 0]),
        ((8, 2), [0, 255, 0]),
        ((3, 5), [0, 0, 255]),
    ];
    let skins =
        layers.map(|((width, height), [r, g, b])| solid_skin(width, height, [r, g, b, 255]));
    let square = front_square(0, 0, (4, 4));
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &square, &skins).unwrap();
    assert_eq!(gpu_model.skin_size(), (8, 5));
    assert_eq!(gpu_model.skin_count(), 3);
    let camera = ortho_camera(-0.5, 0.5, -0.5, 0.5, 1.0);
    for (layer, (_, rgb)) in layers.into_iter().enumerate() {
        let instances = [Md2Instance::default().with_skin(layer as u32)];
        let image = render_instances(&gpu, &mut renderer, &camera, &gpu_model, &instances, 64);
        assert_eq!(&image.get_pixel(32, 32).0[..3], &rgb, "skin {layer}");
    }
}

#[test]
fn the_vertex_cache_order_draws_the_same_picture_as_the_file_order() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = srgb_renderer(&gpu);
    for (name, model, skins) in animated_models() {
        let upload = |triangle_order| {
            GpuModel::with_options(
                &gpu.device,
                &gpu.queue,
                &renderer,
                &model,
                &skins,
                GpuModelOptions::DEFAULT.with_triangle_order(triangle_order),
            )
            .unwrap()
        };
        let (file, ordered) = (
            upload(TriangleOrder::File),
            upload(TriangleOrder::VertexCache),
        );
        assert_eq!(ordered.mesh().order(), TriangleOrder::VertexCache);
        assert_eq!(
            GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &skins)
                .unwrap()
                .mesh()
                .order(),
            TriangleOrder::VertexCache,
            "the default"
        );
        // The statistics are those of the uploaded index lists.
        let (before, after) = (
            file.mesh().vertex_cache_stats(16).unwrap(),
            ordered.mesh().vertex_cache_stats(16).unwrap(),
        );
        assert_eq!(
            before,
            RenderMesh::new(&model, TriangleOrder::File)
                .vertex_cache_stats(16)
                .unwrap()
        );
        assert!(after.acmr() < before.acmr(), "{name}: {after} vs {before}");
        assert_eq!(file.mesh().corners().len(), ordered.mesh().corners().len());
        let (a, b) = moving_frames(&model);
        let camera = frames_camera(&model, &[a, b], 1.0);
        let pose = FrameLerp {
            frame_a: a,
            frame_b: b,
            t: 0.4,
        };
        let x = render_pose(&gpu, &mut renderer, &camera, &file, pose);
        let y = render_pose(&gpu, &mut renderer, &camera, &ordered, pose);
        let differ = differing_pixels(&x, &y, 0);
        assert!(
            differ <= 2,
            "{name}: {differ} pixels differ between the orders"
        );
        eprintln!("{name}: file order: {before}; vertex-cache order: {after}");
    }
}
