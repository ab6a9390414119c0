//! Models drawn on the immediate path equal the CPU reference: a G-buffer
//! material (with its own bind group, a uniform it writes out) writes each
//! pixel's world position and normal, which the CPU's posed triangles,
//! ray-cast at the pixel's centre, must match; the demo model's picture
//! matches the reference picture the native suite keeps.

use glam::{DVec2, DVec3, Mat3, Mat4, Vec3, Vec4};
use md2_wgpu::wgpu;
use md2_wgpu::{
    Camera, FrameLerp, GpuModel, Md2Batch, Md2Cache, Md2Instance, Md2Material,
    Md2MaterialDescriptor, Md2Model, Md2Renderer, Md2RendererOptions, Pose, demo,
};
use md2_wgpu_tests::mean_difference;
use wasm_bindgen_test::{console_log, wasm_bindgen_test};
use wgpu::util::DeviceExt;

use crate::gpu::{Gpu, attachment, draw_into, gpu, read_rgba8, shared, texels};

/// The G-buffer's side, in pixels.
const SIZE: u32 = 192;
/// The reference picture's side (tests/reference/demo-crossfade.png).
const PICTURE: u32 = 128;

/// A G-buffer: world position (w: the material's own uniform) and world
/// normal, as floats.
const GBUFFER: &str = r#"
struct GBuffer {
    @location(0) position: vec4<f32>,
    @location(1) normal: vec4<f32>,
};

@group(2) @binding(0) var<uniform> marker: vec4<f32>;

fn gbuffer(in: Md2Fragment) -> GBuffer {
    return GBuffer(vec4<f32>(in.world_position, marker.x), vec4<f32>(normalize(in.world_normal), 1.0));
}
"#;

/// The renderer with the G-buffer material, and the material's bind group
/// holding `marker` in its uniform.
fn gbuffer_renderer(gpu: &Gpu, cache: &Md2Cache, marker: f32) -> Md2Renderer {
    let layout = gpu
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
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
    let float = wgpu::ColorTargetState {
        format: wgpu::TextureFormat::Rgba32Float,
        blend: None,
        write_mask: wgpu::ColorWrites::ALL,
    };
    let material = Md2Material::new(
        &gpu.device,
        cache,
        &Md2MaterialDescriptor {
            label: "gbuffer",
            source: GBUFFER,
            fragment: "gbuffer",
            targets: &[float.clone(), float],
            bind_group_layout: Some(&layout),
        },
    )
    .expect("the G-buffer material builds");
    let mut renderer = Md2Renderer::with_material(
        &gpu.device,
        cache,
        &material,
        Md2RendererOptions::WITH_DEPTH,
    )
    .expect("a renderer with the material");
    let buffer = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("marker"),
            contents: bytemuck::cast_slice(&[marker, 0.0, 0.0, 0.0]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
    renderer.set_material_bind_group(Some(gpu.device.create_bind_group(
        &wgpu::BindGroupDescriptor {
            label: Some("marker"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        },
    )));
    renderer
}

/// Draws `batches` into two `Rgba32Float` targets; their texels.
async fn draw_gbuffer(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
) -> [Vec<[f32; 4]>; 2] {
    renderer
        .prepare(&gpu.device, &gpu.queue, camera, batches)
        .expect("prepare");
    let targets = [0, 1].map(|_| attachment(gpu, wgpu::TextureFormat::Rgba32Float, SIZE, SIZE));
    let depth = attachment(gpu, wgpu::TextureFormat::Depth32Float, SIZE, SIZE);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    draw_into(
        &mut encoder,
        &[&targets[0], &targets[1]],
        Some(&depth),
        |pass| renderer.render(pass),
    );
    gpu.queue.submit([encoder.finish()]);
    let mut out = Vec::new();
    for target in &targets {
        let encoder = gpu.device.create_command_encoder(&Default::default());
        out.push(texels(gpu, encoder, target).await);
    }
    let normals = out.pop().expect("two targets");
    let positions = out.pop().expect("two targets");
    [positions, normals]
}

/// The posed model's triangles in world space, with world normals as the
/// vertex stage computes them (the inverse transpose, not normalised).
fn cpu_triangles(model: &Md2Model, pose: &Pose, transform: Mat4) -> Vec<[(Vec3, Vec3); 3]> {
    let n = model.vertex_count();
    let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    md2_wgpu::reference::blend(model, pose, &mut p, &mut nrm).expect("the CPU reference poses");
    let world = transform * md2_wgpu::QUAKE_TO_Y_UP;
    let normal_matrix = Mat3::from_mat4(world).inverse().transpose();
    let vertex = |i: u16| {
        let i = usize::from(i);
        (
            world.transform_point3(Vec3::from(p[i])),
            normal_matrix * Vec3::from(nrm[i]),
        )
    };
    model
        .triangles()
        .iter()
        .map(|t| t.xyz.map(vertex))
        .collect()
}

/// A triangle the CPU reference posed: corners and their normals, in f64.
type Corners = [(DVec3, DVec3); 3];

/// The ray through the centre of pixel (x, y): its origin on the near
/// plane and its direction to the far plane.
fn pixel_ray(camera: &Camera, x: u32, y: u32) -> (DVec3, DVec3) {
    let ndc = DVec2::new(
        (f64::from(x) + 0.5) / f64::from(SIZE) * 2.0 - 1.0,
        1.0 - (f64::from(y) + 0.5) / f64::from(SIZE) * 2.0,
    );
    let inverse = camera.view_proj.as_dmat4().inverse();
    let near = inverse.project_point3(ndc.extend(0.0));
    let far = inverse.project_point3(ndc.extend(1.0));
    (near, far - near)
}

/// The front face of `triangles` (the renderer culls the others:
/// clockwise on screen is front) the ray through pixel (x, y) meets first,
/// well inside it (barycentrics above 2%), unless a nearer front face
/// nearly covers the pixel too (within 2% of its edge: which of the two a
/// rasteriser shows there is a matter of rounding), or a face lies just
/// behind it.
fn cpu_triangle(
    camera: &Camera,
    triangles: &[[(Vec3, Vec3); 3]],
    x: u32,
    y: u32,
) -> Option<Corners> {
    let view_proj = camera.view_proj.as_dmat4();
    let (near, dir) = pixel_ray(camera, x, y);
    // (distance, corners, smallest barycentric)
    let mut hits: Vec<(f64, Corners, f64)> = Vec::new();
    for tri in triangles {
        let corners = tri.map(|(p, n)| (p.as_dvec3(), n.as_dvec3()));
        let [a, b, c] = corners.map(|(p, _)| p);
        let [sa, sb, sc] = [a, b, c].map(|p| view_proj.project_point3(p));
        if (sb.x - sa.x) * (sc.y - sa.y) - (sc.x - sa.x) * (sb.y - sa.y) >= 0.0 {
            continue; // counter-clockwise in NDC (y up): a back face
        }
        // Möller–Trumbore.
        let (e1, e2) = (b - a, c - a);
        let p = dir.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-12 {
            continue;
        }
        let s = near - a;
        let u = s.dot(p) / det;
        let q = s.cross(e1);
        let v = dir.dot(q) / det;
        let t = e2.dot(q) / det;
        let inside = u.min(v).min(1.0 - u - v);
        if inside >= -0.02 && t >= 0.0 {
            hits.push((t, corners, inside));
        }
    }
    let nearest = hits
        .iter()
        .filter(|h| h.2 > 0.02)
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    // A surface within a hundredth of a unit behind it (coplanar faces,
    // which some models have) fights it for the depth test: either wins.
    let fights = |t: f64| ((t - nearest.0) * dir.length()).abs() < 0.01;
    let ambiguous = hits
        .iter()
        .any(|h| (h.0 < nearest.0 && h.2 <= 0.02) || (h.1 != nearest.1 && fights(h.0)));
    (!ambiguous).then_some(nearest.1)
}

/// How far `point` lies off the plane of `corners`, and the normal the CPU
/// reference interpolates where it lies on that plane.
fn on_triangle(corners: &Corners, point: DVec3) -> (f64, DVec3) {
    let [(a, na), (b, nb), (c, nc)] = *corners;
    let (e1, e2) = (b - a, c - a);
    let plane = e1.cross(e2).normalize();
    let off = (point - a).dot(plane);
    let p = point - plane * off - a;
    // Barycentrics of the point's projection.
    let (d11, d12, d22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (d1, d2) = (p.dot(e1), p.dot(e2));
    let det = d11 * d22 - d12 * d12;
    let u = (d22 * d1 - d12 * d2) / det;
    let v = (d11 * d2 - d12 * d1) / det;
    let normal = (na * (1.0 - u - v) + nb * u + nc * v).normalize();
    (off.abs(), normal)
}

/// Draws `model` in a crossfade through the G-buffer material and holds
/// every sampled pixel to the CPU reference.
async fn holds_to_the_reference(gpu: &Gpu, name: &str, model: &Md2Model) {
    let cache = Md2Cache::new(&gpu.device).expect("a cache");
    let gpu_model =
        GpuModel::new(&gpu.device, &gpu.queue, &cache, model, &[]).expect("the model uploads");
    let last = model.frame_count() - 1;
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
    // Scaled unevenly and turned (normals need the inverse transpose),
    // seen from above and aside (as the native suite's G-buffer test sees
    // it; Quake II's players and monsters are about this size).
    let transform = Mat4::from_rotation_y(0.6) * Mat4::from_scale(Vec3::new(1.3, 0.8, 1.1));
    let camera = Camera::look_at(
        Vec3::new(20.0, 30.0, 80.0),
        Vec3::ZERO,
        0.9,
        1.0,
        1.0,
        400.0,
    );
    let instances = [Md2Instance::new(transform, pose)];
    let batches = [Md2Batch::new(&gpu_model, &instances)];
    let mut renderer = gbuffer_renderer(gpu, &cache, 1.0);
    let [positions, normals] = draw_gbuffer(gpu, &mut renderer, &camera, &batches).await;
    let triangles = cpu_triangles(model, &pose, transform);
    // A pixel a world unit wide at this distance, about: the rasteriser
    // may place its sample a fraction of that from the pixel's centre
    // (SwiftShader snaps corners to a coarser subpixel grid than
    // lavapipe), which moves the point along the surface, never off it.
    let pixel = 2.0 * 86.0 * (0.45f64).tan() / f64::from(SIZE);
    let (mut checked, mut off_surface, mut along, mut worst_n) = (0, 0.0f64, 0.0f64, 0.0f64);
    for y in (0..SIZE).step_by(2) {
        for x in (0..SIZE).step_by(2) {
            let k = (y * SIZE + x) as usize;
            let Some(corners) = cpu_triangle(&camera, &triangles, x, y) else {
                continue;
            };
            let got = Vec4::from(positions[k]);
            if got.w == 0.0 {
                continue; // an edge pixel the rasteriser left to a neighbour
            }
            assert_eq!(got.w, 1.0, "{name}: the material's uniform reaches it");
            let point = got.truncate().as_dvec3();
            let (off, normal) = on_triangle(&corners, point);
            let (origin, dir) = pixel_ray(&camera, x, y);
            let from_ray = (point - origin).cross(dir.normalize()).length();
            off_surface = off_surface.max(off);
            along = along.max(from_ray / pixel);
            let got_n = Vec4::from(normals[k]).truncate().as_dvec3();
            worst_n = worst_n.max((got_n - normal).abs().max_element());
            checked += 1;
        }
    }
    console_log!(
        "{name}: {checked} pixels against the CPU reference: largest distance off its surface \
         {off_surface:e}, from the pixel's centre {along:.3} pixels; normal error {worst_n:e}"
    );
    assert!(checked > 250, "{name}: {checked} pixels checked");
    assert!(
        off_surface <= 1e-4,
        "{name}: a point {off_surface} off the surface"
    );
    assert!(
        along <= 0.1,
        "{name}: a point {along} pixels from its pixel's centre"
    );
    assert!(worst_n <= 1e-4, "{name}: normal error {worst_n}");
    // Without its bind group the material cannot draw: a typed error.
    renderer.set_material_bind_group(None);
    let error = renderer
        .prepare(&gpu.device, &gpu.queue, &camera, &batches)
        .expect_err("a material without its bind group");
    assert_eq!(error, md2_wgpu::PrepareError::MaterialBindGroupMissing);
}

#[wasm_bindgen_test]
async fn the_demo_model_drawn_equals_the_cpu_reference() {
    let gpu = gpu().await;
    gpu.checked(async || holds_to_the_reference(&gpu, "demo", &demo::demo_model()).await)
        .await;
}

#[wasm_bindgen_test]
async fn real_models_drawn_equal_the_cpu_reference() {
    let gpu = gpu().await;
    for path in ["yohko/tris.md2", "ogro/ogros.MD2"] {
        let Some(bytes) = shared(path) else { continue };
        let model = Md2Model::from_bytes(bytes).expect("the real model parses");
        gpu.checked(async || holds_to_the_reference(&gpu, path, &model).await)
            .await;
    }
}

/// The native suite's reference picture of the demo model halfway through
/// a crossfade from run to attack (tests/reference/demo-crossfade.png,
/// drawn on lavapipe), within the native test's own tolerance.
#[wasm_bindgen_test]
async fn the_demo_model_matches_its_reference_picture() {
    const REFERENCE: &[u8] = include_bytes!("../../../tests/reference/demo-crossfade.png");
    let gpu = gpu().await;
    let picture = gpu
        .checked(async || {
            let format = wgpu::TextureFormat::Rgba8UnormSrgb;
            let mut renderer =
                Md2Renderer::new(&gpu.device, format, Md2RendererOptions::WITH_DEPTH).unwrap();
            let model = demo::demo_model();
            let gpu_model = GpuModel::new(
                &gpu.device,
                &gpu.queue,
                &renderer,
                &model,
                &[demo::demo_skin()],
            )
            .unwrap();
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
                    &gpu.device,
                    &gpu.queue,
                    &camera,
                    &[Md2Batch::new(&gpu_model, &instances)],
                )
                .unwrap();
            let color = attachment(&gpu, format, PICTURE, PICTURE);
            let depth_format = renderer.options().depth.expect("a depth state").format;
            let depth = attachment(&gpu, depth_format, PICTURE, PICTURE);
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            draw_into(&mut encoder, &[&color], Some(&depth), |pass| {
                renderer.render(pass)
            });
            read_rgba8(&gpu, encoder, &color).await
        })
        .await;
    let reference = image::load_from_memory(REFERENCE)
        .expect("the reference picture decodes")
        .into_rgba8();
    let mean = mean_difference(&reference, &picture);
    console_log!(
        "demo reference picture: mean difference {mean:.3} (lavapipe's picture, drawn on Dawn)"
    );
    // Written so that a NaN mean fails too.
    assert!(
        mean <= 2.0,
        "the demo model's picture differs from the reference by {mean:.3}"
    );
}
