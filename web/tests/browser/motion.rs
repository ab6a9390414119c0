//! Motion vectors: a still scene writes exactly zero on both paths (an
//! immediate instance given its previous pose, a resident member at a
//! paused clock), and under a moving camera each pixel's motion is the
//! camera's own for the surface point it shows.

use glam::{DVec4, Mat4, Vec3};
use md2_wgpu::wgpu;
use md2_wgpu::{
    Camera, ClipClock, CrowdMember, FrameLerp, Md2Batch, Md2Cache, Md2Crowd, Md2Instance,
    Md2Material, Md2MaterialDescriptor, Md2Previous, Md2Renderer, Md2RendererOptions, Quake2Player,
    demo,
};
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

use crate::gpu::{Gpu, attachment, draw_into, gpu, texels};

const SIZE: u32 = 128;

/// The largest motion error allowed, in UV units.
const TOLERANCE: f64 = 1e-4;

/// f16 bits as f32.
fn half(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f32.powi(-24),
        31 => f32::INFINITY,
        e => (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Draws with `renderer` (the built-in look with a motion target) into a
/// colour and an `Rg16Float` motion target; the motion per pixel.
async fn draw_motion(gpu: &Gpu, renderer: &Md2Renderer) -> Vec<[f32; 2]> {
    let color = attachment(gpu, wgpu::TextureFormat::Rgba8UnormSrgb, SIZE, SIZE);
    let motion = attachment(gpu, wgpu::TextureFormat::Rg16Float, SIZE, SIZE);
    let depth = attachment(gpu, wgpu::TextureFormat::Depth32Float, SIZE, SIZE);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    draw_into(&mut encoder, &[&color, &motion], Some(&depth), |pass| {
        renderer.render(pass)
    });
    let halves: Vec<u16> = texels(gpu, encoder, &motion).await;
    halves
        .chunks_exact(2)
        .map(|h| [half(h[0]), half(h[1])])
        .collect()
}

#[wasm_bindgen_test]
async fn a_still_scene_writes_zero_motion_and_a_moving_camera_its_own() {
    let gpu = gpu().await;
    gpu.checked(async || {
        let cache = Md2Cache::new(&gpu.device).unwrap();
        let gpu_model = md2_wgpu::GpuModel::new(
            &gpu.device,
            &gpu.queue,
            &cache,
            &demo::demo_model(),
            &[demo::demo_skin()],
        )
        .unwrap();
        let options =
            Md2RendererOptions::WITH_DEPTH.with_motion_target(wgpu::TextureFormat::Rg16Float);
        let format = wgpu::TextureFormat::Rgba8UnormSrgb;
        let mut renderer = Md2Renderer::with_cache(&gpu.device, &cache, format, options).unwrap();
        let camera = Camera::look_at(Vec3::new(10.0, 20.0, 90.0), Vec3::ZERO, 0.9, 1.0, 1.0, 400.0);
        let instances = [Md2Instance::new(
            Mat4::from_rotation_y(0.4),
            FrameLerp {
                frame_a: 41,
                frame_b: 42,
                t: 0.5,
            },
        )];
        let previous = [Md2Previous::of(&instances[0])];
        let batch = [Md2Batch::new(&gpu_model, &instances).with_previous(&previous)];
        // Two frames of the same scene: the second writes exactly zero.
        for _ in 0..2 {
            renderer
                .prepare(&gpu.device, &gpu.queue, &camera, &batch)
                .unwrap();
        }
        let still = draw_motion(&gpu, &renderer).await;
        assert!(
            still.iter().all(|m| m[0] == 0.0 && m[1] == 0.0),
            "a still scene moves"
        );
        // A resident crowd at a paused clock: zero too.
        let mut crowd = Md2Crowd::new(&gpu.device, &cache, &gpu_model).unwrap();
        crowd
            .add(CrowdMember::new(
                Mat4::IDENTITY,
                ClipClock::new(Quake2Player::Run.clip(), 0.0),
            ))
            .unwrap();
        let mut resident = Md2Renderer::with_cache(&gpu.device, &cache, format, options).unwrap();
        for _ in 0..3 {
            resident
                .prepare(&gpu.device, &gpu.queue, &camera, &[])
                .unwrap();
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            resident
                .prepare_crowds(&gpu.device, &gpu.queue, &mut encoder, 5.0, [&mut crowd])
                .unwrap();
            gpu.queue.submit([encoder.finish()]);
        }
        let paused = draw_motion(&gpu, &resident).await;
        assert!(
            paused.iter().all(|m| m[0] == 0.0 && m[1] == 0.0),
            "a paused crowd moves"
        );

        // The same frozen pose under a camera that moves: a material writes
        // each pixel's surface point and its motion.
        let source = "struct Out { @location(0) position: vec4<f32>, @location(1) motion: vec4<f32> };
                      fn probe(in: Md2Fragment) -> Out {
                          return Out(vec4<f32>(in.world_position, 1.0), vec4<f32>(md2_motion(in), 0.0, 1.0));
                      }";
        let float = wgpu::ColorTargetState {
            format: wgpu::TextureFormat::Rgba32Float,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        };
        let probe = Md2Material::new(
            &gpu.device,
            &cache,
            &Md2MaterialDescriptor {
                label: "probe",
                source,
                fragment: "probe",
                targets: &[float.clone(), float],
                bind_group_layout: None,
            },
        )
        .unwrap();
        let mut probing =
            Md2Renderer::with_material(&gpu.device, &cache, &probe, Md2RendererOptions::WITH_DEPTH)
                .unwrap();
        probing
            .prepare(&gpu.device, &gpu.queue, &camera, &batch)
            .unwrap();
        let moved = Camera::look_at(
            Vec3::new(14.0, 22.0, 86.0),
            Vec3::new(1.0, 0.0, 0.0),
            0.9,
            1.0,
            1.0,
            400.0,
        );
        probing
            .prepare(&gpu.device, &gpu.queue, &moved, &batch)
            .unwrap();
        let targets =
            [0, 1].map(|_| attachment(&gpu, wgpu::TextureFormat::Rgba32Float, SIZE, SIZE));
        let depth = attachment(&gpu, wgpu::TextureFormat::Depth32Float, SIZE, SIZE);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        draw_into(&mut encoder, &[&targets[0], &targets[1]], Some(&depth), |pass| {
            probing.render(pass)
        });
        gpu.queue.submit([encoder.finish()]);
        let positions: Vec<[f32; 4]> =
            texels(&gpu, gpu.device.create_command_encoder(&Default::default()), &targets[0]).await;
        let motions: Vec<[f32; 4]> =
            texels(&gpu, gpu.device.create_command_encoder(&Default::default()), &targets[1]).await;
        let (mut checked, mut largest) = (0, 0.0f64);
        for (p, m) in positions.iter().zip(&motions) {
            if p[3] == 0.0 {
                continue;
            }
            let world = DVec4::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2]), 1.0);
            let project = |view_proj: Mat4| {
                let c = view_proj.as_dmat4() * world;
                [c.x / c.w, c.y / c.w]
            };
            let (now, before) = (project(moved.view_proj), project(camera.view_proj));
            let expected = [(now[0] - before[0]) * 0.5, (now[1] - before[1]) * -0.5];
            let error = (f64::from(m[0]) - expected[0])
                .abs()
                .max((f64::from(m[1]) - expected[1]).abs());
            largest = largest.max(error);
            checked += 1;
        }
        console_log!("moving camera: {checked} pixels, largest error against the camera's motion {largest:e}");
        assert!(checked > 500, "{checked} pixels checked");
        assert!(largest <= TOLERANCE, "motion off the camera's by {largest:e}");
    })
    .await;
}
