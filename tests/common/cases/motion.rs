//! Motion vectors on both paths: a still scene writes exactly zero (an
//! immediate instance given its previous pose, a resident member at a
//! paused clock), and under a moving camera each pixel's motion is the
//! camera's own for the surface point it shows.

use glam::{DVec4, Mat4, Vec3};
use md2_wgpu::wgpu;
use md2_wgpu::{
    CrowdMember, GpuModel, Md2Crowd, Md2Instance, Md2Renderer, Md2RendererOptions, Quake2Player,
    anim::{ClipClock, FrameLerp},
    demo,
    gpu::{Md2Batch, Md2Cache, Md2Material, Md2MaterialDescriptor},
    scene::Md2Previous,
};

use super::{FLOAT_TARGET, Measured, draw_and_read, square_camera};

const SIZE: u32 = 128;

/// The largest motion error allowed, in UV units: the motion target is
/// `Rg16Float` (11 significant bits) and positions `Rgba32Float`.
pub const TOLERANCE: f64 = 1e-4;

/// f16 bits as f32.
pub fn half(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f32.powi(-24),
        31 => f32::INFINITY,
        e => (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Draws with `renderer` (the built-in look with an `Rg16Float` motion
/// target) and returns the motion per pixel.
async fn draw_motion(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    renderer: &Md2Renderer,
) -> Vec<[f32; 2]> {
    let [_, motion] = <[Vec<u16>; 2]>::try_from(
        draw_and_read::<u16>(
            device,
            queue,
            SIZE,
            &[
                wgpu::TextureFormat::Rgba8UnormSrgb,
                wgpu::TextureFormat::Rg16Float,
            ],
            |pass| renderer.render(pass),
        )
        .await,
    )
    .expect("two targets");
    motion
        .chunks_exact(2)
        .map(|h| [half(h[0]), half(h[1])])
        .collect()
}

/// A still scene writes zero motion on both paths, and a frozen pose under
/// a moving camera the camera's motion at every covered pixel.
pub async fn a_still_scene_writes_zero_motion_and_a_moving_camera_its_own(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
) -> Measured {
    let cache = Md2Cache::new(device).unwrap();
    let gpu_model = GpuModel::new(
        device,
        queue,
        &cache,
        &demo::demo_model(),
        &[demo::demo_skin()],
    )
    .unwrap();
    let options = Md2RendererOptions::WITH_DEPTH.with_motion_target(wgpu::TextureFormat::Rg16Float);
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut renderer = Md2Renderer::with_cache(device, &cache, format, options).unwrap();
    let camera = square_camera(Vec3::new(10.0, 20.0, 90.0), Vec3::ZERO, 0.9, 1.0, 400.0);
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
        renderer.prepare(device, queue, &camera, &batch).unwrap();
    }
    let still = draw_motion(device, queue, &renderer).await;
    assert!(
        still.iter().all(|m| m[0] == 0.0 && m[1] == 0.0),
        "a still scene moves"
    );
    // A resident crowd at a paused clock: zero too.
    let mut crowd = Md2Crowd::new(device, &cache, &gpu_model).unwrap();
    crowd
        .add(CrowdMember::new(
            Mat4::IDENTITY,
            ClipClock::new(Quake2Player::Run.clip(), 0.0),
        ))
        .unwrap();
    let mut resident = Md2Renderer::with_cache(device, &cache, format, options).unwrap();
    for _ in 0..3 {
        resident.prepare(device, queue, &camera, &[]).unwrap();
        let mut encoder = device.create_command_encoder(&Default::default());
        resident
            .prepare_crowds(device, queue, &mut encoder, 5.0, [&mut crowd])
            .unwrap();
        queue.submit([encoder.finish()]);
    }
    let paused = draw_motion(device, queue, &resident).await;
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
    let probe = Md2Material::new(
        device,
        &cache,
        &Md2MaterialDescriptor {
            label: "probe",
            source,
            fragment: "probe",
            targets: &[FLOAT_TARGET, FLOAT_TARGET],
            bind_group_layout: None,
        },
    )
    .unwrap();
    let mut probing =
        Md2Renderer::with_material(device, &cache, &probe, Md2RendererOptions::WITH_DEPTH).unwrap();
    probing.prepare(device, queue, &camera, &batch).unwrap();
    let moved = square_camera(Vec3::new(14.0, 22.0, 86.0), Vec3::X, 0.9, 1.0, 400.0);
    probing.prepare(device, queue, &moved, &batch).unwrap();
    let float = wgpu::TextureFormat::Rgba32Float;
    let [positions, motions] = <[Vec<[f32; 4]>; 2]>::try_from(
        draw_and_read::<[f32; 4]>(device, queue, SIZE, &[float, float], |pass| {
            probing.render(pass)
        })
        .await,
    )
    .expect("two targets");
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
        // NDC to UV: half the difference, y down.
        let expected = [(now[0] - before[0]) * 0.5, (now[1] - before[1]) * -0.5];
        let error = (f64::from(m[0]) - expected[0])
            .abs()
            .max((f64::from(m[1]) - expected[1]).abs());
        largest = largest.max(error);
        checked += 1;
    }
    assert!(checked > 500, "{checked} pixels checked");
    assert!(
        largest <= TOLERANCE,
        "motion off the camera's by {largest:e}"
    );
    let mut measured = Measured::default();
    measured.log(format!(
        "moving camera: {checked} pixels, largest error against the camera's motion {largest:e}"
    ));
    measured
}
