//! Models drawn on the immediate path equal the CPU reference: a G-buffer
//! material (with its own bind group, a uniform it writes out) writes each
//! pixel's world position and normal, which the CPU's posed triangles,
//! ray-cast at the pixel's centre, must match; and the demo model's
//! picture, which the native suite keeps as its reference.

use glam::{Mat4, Vec3};
use image::RgbaImage;
use md2_wgpu::wgpu;
use md2_wgpu::{
    Camera, GpuModel, Md2Instance, Md2Model, Md2Renderer, Md2RendererOptions,
    anim::{FrameLerp, Pose},
    demo,
    gpu::{Md2Batch, Md2Cache, Md2Material, Md2MaterialDescriptor, PrepareError},
};
use wgpu::util::DeviceExt;

use super::{FLOAT_TARGET, Measured, draw_and_read, draw_picture};
use crate::{cpu_triangles, gbuffer_against_reference, pixel_width};

/// The G-buffer's side, in pixels.
pub const SIZE: u32 = 192;
/// The reference picture's side (tests/reference/demo-crossfade.png).
pub const PICTURE: u32 = 128;

/// A G-buffer: world position (w: the material's own uniform), and the
/// unit world normal as the docs tell a material to get it
/// (`md2_unit_normal`) with the length of the raw `world_normal` beside it,
/// as floats.
pub const GBUFFER: &str = r#"
struct GBuffer {
    @location(0) position: vec4<f32>,
    @location(1) normal: vec4<f32>,
};

@group(2) @binding(0) var<uniform> marker: vec4<f32>;

fn gbuffer(in: Md2Fragment) -> GBuffer {
    return GBuffer(vec4<f32>(in.world_position, marker.x), vec4<f32>(md2_unit_normal(in), length(in.world_normal)));
}
"#;

/// The G-buffer material's renderer, and a maker of the material's bind
/// group holding a marker in its uniform.
pub fn gbuffer_renderer(
    device: &wgpu::Device,
    cache: &Md2Cache,
) -> (Md2Renderer, impl Fn(f32) -> wgpu::BindGroup) {
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("marker layout"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let material = Md2Material::new(
        device,
        cache,
        &Md2MaterialDescriptor {
            label: "gbuffer",
            source: GBUFFER,
            fragment: "gbuffer",
            targets: &[FLOAT_TARGET, FLOAT_TARGET],
            bind_group_layout: Some(&layout),
        },
    )
    .expect("the G-buffer material builds");
    let renderer =
        Md2Renderer::with_material(device, cache, &material, Md2RendererOptions::WITH_DEPTH)
            .expect("a renderer with the material");
    let device = device.clone();
    let marker = move |value: f32| {
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("marker"),
            contents: bytemuck::cast_slice(&[value, 0.0, 0.0, 0.0]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("marker"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        })
    };
    (renderer, marker)
}

/// Prepares `batches` and draws them into two `Rgba32Float` targets;
/// their texels (positions, normals).
pub async fn draw_gbuffer(
    (device, queue): (&wgpu::Device, &wgpu::Queue),
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
) -> [Vec<[f32; 4]>; 2] {
    renderer
        .prepare(device, queue, camera, batches)
        .expect("prepare");
    let float = wgpu::TextureFormat::Rgba32Float;
    let read = draw_and_read(device, queue, SIZE, &[float, float], |pass| {
        renderer.render(pass)
    })
    .await;
    <[Vec<[f32; 4]>; 2]>::try_from(read).expect("two targets")
}

/// Draws `model` in a crossfade (scaled unevenly and turned) through the
/// G-buffer material and holds every `step`-th pixel to the CPU reference;
/// the material's bind group and its uniform reach it, and without it the
/// renderer refuses to draw.
pub async fn holds_to_the_reference(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    name: &str,
    model: &Md2Model,
) -> Measured {
    let mut measured = Measured::default();
    let cache = Md2Cache::new(device).expect("a cache");
    let gpu_model = GpuModel::new(device, queue, &cache, model, &[]).expect("the model uploads");
    let last = model.keyframes().frame_count() - 1;
    let frame = |k: u32| k.min(last);
    let pose = Pose {
        primary: FrameLerp {
            frame_a: frame(41),
            frame_b: frame(42),
            t: 0.3,
        },
        secondary: FrameLerp::still(frame(70)),
        weight: 0.25,
    };
    // Scaled unevenly and turned: normals need the inverse transpose.
    let transform = Mat4::from_rotation_y(0.6) * Mat4::from_scale(Vec3::new(1.3, 0.8, 1.1));
    let eye = Vec3::new(20.0, 30.0, 80.0);
    let camera = Camera::look_at(eye, Vec3::ZERO, 0.9, 1.0, 1.0, 400.0);
    let instances = [Md2Instance::new(transform, pose)];
    let batches = [Md2Batch::new(&gpu_model, &instances)];
    let (mut renderer, marker) = gbuffer_renderer(device, &cache);
    // Without its bind group the material cannot draw: a typed error.
    let error = renderer
        .prepare(device, queue, &camera, &batches)
        .expect_err("a material without its bind group");
    assert_eq!(error, PrepareError::MaterialBindGroupMissing);
    renderer.set_material_bind_group(Some(marker(1.0)));
    let gpu = (device, queue);
    let [positions, normals] = draw_gbuffer(gpu, &mut renderer, &camera, &batches).await;
    let triangles = cpu_triangles(model, &pose, transform);
    // A conformant rasteriser shades a point on the triangle's plane, up
    // to a fraction of a pixel from the pixel's centre (it snaps corners to
    // its sub-pixel grid: lavapipe lands on the centre, NVIDIA 3e-3 world
    // units from it, SwiftShader on a coarser grid): each written point is
    // held to its CPU triangle's plane, its pixel's ray, and the normal the
    // CPU interpolates where the point is (`surface`).
    let pixel = pixel_width(f64::from(eye.length()), 0.9, SIZE);
    // How far from unit length the raw world normal is, and the unit one.
    let (mut raw_off, mut unit_off) = (0.0f32, 0.0f32);
    let (checked, worst) = gbuffer_against_reference(
        &camera,
        (SIZE, SIZE),
        &triangles,
        (&positions, &normals),
        (2, pixel),
        |p, n| {
            assert_eq!(p[3], 1.0, "{name}: the material's uniform reaches it");
            raw_off = raw_off.max((n[3] - 1.0).abs());
            unit_off = unit_off.max((Vec3::new(n[0], n[1], n[2]).length() - 1.0).abs());
        },
    );
    measured.log(format!("{name}: {}", worst.describe(checked)));
    worst.assert_within_bounds(name, checked, 250);
    // What `Md2Fragment`'s docs say: `world_normal` is not unit length (an
    // uneven scale and the interpolation shorten or lengthen it), and
    // `md2_unit_normal` is.
    measured.log(format!(
        "{name}: |world_normal| is off unit length by up to {raw_off}; md2_unit_normal by {unit_off:e}"
    ));
    assert!(
        raw_off > 0.05,
        "{name}: world_normal is off unit length by only {raw_off}"
    );
    assert!(
        unit_off <= 1e-5,
        "{name}: md2_unit_normal is off unit length by {unit_off}"
    );
    // The material's own uniform, changed, reaches it.
    renderer.set_material_bind_group(Some(marker(0.5)));
    let [halved, _] = draw_gbuffer(gpu, &mut renderer, &camera, &batches).await;
    let changed = positions
        .iter()
        .zip(&halved)
        .filter(|(a, b)| a[3] == 1.0 && b[3] == 0.5)
        .count();
    assert!(
        changed > 1000,
        "{name}: the uniform changed {changed} pixels"
    );
    measured
}

/// The demo model halfway through a crossfade from run to attack (every
/// stage of the shader is in the picture), framed, `PICTURE` pixels
/// square: the picture tests/reference/demo-crossfade.png holds.
pub async fn demo_crossfade_picture(device: &wgpu::Device, queue: &wgpu::Queue) -> RgbaImage {
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut renderer = Md2Renderer::new(device, format, Md2RendererOptions::WITH_DEPTH).unwrap();
    let model = demo::demo_model();
    let gpu_model = GpuModel::new(device, queue, &renderer, &model, &[demo::demo_skin()]).unwrap();
    let pose = Pose {
        primary: FrameLerp {
            frame_a: 41,
            frame_b: 42,
            t: 0.5,
        },
        secondary: FrameLerp {
            frame_a: 47,
            frame_b: 48,
            t: 0.25,
        },
        weight: 0.5,
    };
    let camera = Camera::framing_frames(&model, [0, 41, 42, 47, 48], 1.0);
    let instances = [Md2Instance::new(Mat4::IDENTITY, pose)];
    renderer
        .prepare(
            device,
            queue,
            &camera,
            &[Md2Batch::new(&gpu_model, &instances)],
        )
        .unwrap();
    let encoder = device.create_command_encoder(&Default::default());
    draw_picture(device, queue, encoder, &renderer, PICTURE).await
}
