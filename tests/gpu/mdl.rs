//! Quake I models on the GPU, through the paths MD2s take: the seam rule's
//! texels where the CPU reference puts them, fullbright texels drawn unlit
//! when the masks are given, and the shared Block Quake models drawn where
//! the CPU reference covers.

use glam::{Mat4, Vec3};
use md2_wgpu::format::mdl::{MdlModel, MdlSkin, Palette, SkinImages};
use md2_wgpu::{
    Camera, GpuModel, Md2Instance, Md2Renderer, Md2RendererOptions,
    anim::{FrameLerp, Pose},
    contract::GpuModelOptions,
    gpu::{Md2Batch, SetupError},
};

use crate::common::*;

const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const AMBIENT: f32 = 0.5;
const W: u32 = 96;
const H: u32 = 64;

/// The seam model with its back half fullbright: the front quad reads the
/// front half (lit), the back quad, by the seam rule, only the back half
/// (unlit where the masks say so).
fn glowing_seam_model() -> MdlModel {
    let mut parts = seam_mdl_parts();
    let (w, h) = SEAM_SKIN;
    let image = (0..h)
        .flat_map(|_| (0..w).map(move |x| if x < w / 2 { FRONT_INDEX } else { GLOW_INDEX }))
        .collect();
    parts.skins = vec![MdlSkin::Single(image)];
    MdlModel::from_parts(parts).expect("builds")
}

/// Looks at the quads from the front (Quake +X), ambient light only.
fn camera() -> Camera {
    ortho_camera(-1.2, 1.2, -0.7, 0.9, AMBIENT)
}

/// Draws pose 0 of `model` with `skins` and `options`.
fn draw(
    gpu: &Gpu,
    model: &MdlModel,
    skins: &[image::RgbaImage],
    options: GpuModelOptions,
) -> image::RgbaImage {
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let gpu_model =
        GpuModel::with_options(&gpu.device, &gpu.queue, &renderer, model, skins, options).unwrap();
    let instances = [Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0))];
    render(
        gpu,
        &mut renderer,
        &camera(),
        &[Md2Batch::new(&gpu_model, &instances)],
        W,
        H,
    )
}

/// For every pixel the CPU reference covers well inside one quad (two
/// pixels clear of the seam between them): whether it is the front quad's.
fn quads(model: &MdlModel) -> Vec<(u32, u32, bool)> {
    let camera = camera();
    let triangles = cpu_triangles(model, &Pose::from(FrameLerp::still(0)), Mat4::IDENTITY);
    let screen_x = |p: Vec3| {
        let ndc = camera.view_proj.project_point3(p);
        (ndc.x + 1.0) * 0.5 * W as f32
    };
    // The seam runs down the middle column (vertex 1); the front quad is
    // on vertex 0's side.
    let seam = screen_x(triangles[0][1].0);
    let front_side = screen_x(triangles[0][0].0) < seam;
    let mut out = Vec::new();
    for y in 0..H {
        for x in 0..W {
            let centre = x as f32 + 0.5;
            if (centre - seam).abs() < 2.0 {
                continue;
            }
            if cpu_coverage(&camera, (W, H), &triangles, x, y) == Some(true) {
                out.push((x, y, (centre < seam) == front_side));
            }
        }
    }
    out
}

/// The byte the renderer writes for skin colour `rgb` lit by `light`.
fn lit(rgb: [u8; 3], light: f32) -> [u8; 3] {
    rgb.map(|c| srgb_byte(srgb_to_linear(c) * light))
}

fn assert_colours(
    picture: &image::RgbaImage,
    pixels: &[(u32, u32, bool)],
    front: [u8; 3],
    back: [u8; 3],
) {
    let mut seen = [0, 0];
    for &(x, y, is_front) in pixels {
        let want = if is_front { front } else { back };
        let got = picture.get_pixel(x, y).0;
        for k in 0..3 {
            // One step of rounding either way: the sRGB encode of a lit
            // linear value.
            assert!(
                got[k].abs_diff(want[k]) <= 1,
                "pixel ({x}, {y}) of the {} quad: {got:?}, want {want:?}",
                if is_front { "front" } else { "back" }
            );
        }
        seen[usize::from(!is_front)] += 1;
    }
    assert!(
        seen[0] > 300 && seen[1] > 300,
        "both quads decided: {seen:?}"
    );
}

#[test]
fn the_seam_rule_draws_the_back_half_on_the_triangles_facing_back() {
    let Some(gpu) = gpu() else { return };
    let model = seam_mdl();
    let palette = seam_palette();
    let skins = SkinImages::new(&model, &palette).layers;
    let picture = draw(&gpu, &model, &skins, GpuModelOptions::DEFAULT);
    save_picture(&picture, "mdl-seam.png");
    let front = palette.colors[usize::from(FRONT_INDEX)];
    let back = palette.colors[usize::from(BACK_INDEX)];
    assert_colours(
        &picture,
        &quads(&model),
        lit(front, AMBIENT),
        lit(back, AMBIENT),
    );
}

#[test]
fn fullbright_texels_draw_unlit_where_the_masks_are_given() {
    let Some(gpu) = gpu() else { return };
    let model = glowing_seam_model();
    let palette = seam_palette();
    let images = SkinImages::new(&model, &palette);
    let front = palette.colors[usize::from(FRONT_INDEX)];
    let glow = palette.colors[usize::from(GLOW_INDEX)];
    let pixels = quads(&model);
    // Without masks every texel is lit alike.
    let plain = draw(&gpu, &model, &images.layers, GpuModelOptions::DEFAULT);
    assert_colours(&plain, &pixels, lit(front, AMBIENT), lit(glow, AMBIENT));
    // With them, the back half glows at its own colour.
    let masked = draw(
        &gpu,
        &model,
        &images.with_masks(),
        GpuModelOptions::DEFAULT.with_fullbright_masks(true),
    );
    save_picture(&masked, "mdl-fullbright.png");
    assert_colours(&masked, &pixels, lit(front, AMBIENT), lit(glow, 1.0));
    // Masks need an even number of skins.
    let renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let odd = GpuModel::with_options(
        &gpu.device,
        &gpu.queue,
        &renderer,
        &model,
        &images.layers,
        GpuModelOptions::DEFAULT.with_fullbright_masks(true),
    );
    assert!(matches!(odd, Err(SetupError::FullbrightMasks { skins: 1 })));
}

#[test]
fn the_shared_quake_models_draw_where_the_cpu_reference_covers() {
    let Some(gpu) = gpu() else { return };
    let Some(dir) = shared_mdl_dir() else { return };
    let palette = shared_palette().unwrap_or_else(Palette::builtin);
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    const SIZE: u32 = 96;
    for name in [
        "player.mdl",
        "soldier.mdl",
        "candle1.mdl",
        "flame2.mdl",
        "backpack.mdl",
    ] {
        let model = MdlModel::open(dir.join(name)).unwrap();
        let images = SkinImages::new(&model, &palette);
        let gpu_model = GpuModel::with_options(
            &gpu.device,
            &gpu.queue,
            &renderer,
            &model,
            &images.with_masks(),
            GpuModelOptions::DEFAULT.with_fullbright_masks(true),
        )
        .unwrap();
        let last = model.frame_count() - 1;
        let pose = Pose::from(FrameLerp {
            frame_a: last / 2,
            frame_b: last,
            t: 0.5,
        });
        let camera = Camera::framing_frames(&model, [last / 2, last], 1.0);
        let instances = [Md2Instance::new(Mat4::IDENTITY, pose)];
        let picture = render_instances(&gpu, &mut renderer, &camera, &gpu_model, &instances, SIZE);
        save_picture(&picture, &format!("mdl-{name}.png"));
        let triangles = cpu_triangles(&model, &pose, Mat4::IDENTITY);
        let (mut decided, mut wrong) = (0, 0);
        for y in 0..SIZE {
            for x in 0..SIZE {
                if let Some(covered) = cpu_coverage(&camera, (SIZE, SIZE), &triangles, x, y) {
                    decided += 1;
                    wrong += usize::from(covered != (picture.get_pixel(x, y).0[3] > 0));
                }
            }
        }
        eprintln!("{name}: {decided} pixels decided, {wrong} disagree");
        assert!(coverage(&picture) > 500, "{name} draws");
        assert_eq!(wrong, 0, "{name}");
    }
}
