//! A lost device (`wgpu::Device::destroy`, as a browser's GPU reset or a
//! driver update does it): every call of the crate after it returns a
//! typed error or draws nothing, none panics or hangs, and a new device
//! rebuilt from the same models draws the same pixels as before.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::{Mat4, Vec3};
use md2_wgpu::{
    Camera, ClipClock, CrowdMember, FrameLerp, GpuModel, Md2Batch, Md2Crowd, Md2Instance, Md2Model,
    Md2Renderer, Md2RendererOptions, Quake2Player, demo,
};

use crate::common::*;

const SIZE: u32 = 128;
const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A crowd of a dozen runners and a batch of three still ones, drawn on
/// `gpu`; returns the picture.
fn scene(gpu: &Gpu, model: &Md2Model) -> Result<image::RgbaImage, String> {
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH)
        .map_err(|e| e.to_string())?;
    let gpu_model = GpuModel::new(
        &gpu.device,
        &gpu.queue,
        &renderer,
        model,
        &[demo::demo_skin()],
    )
    .map_err(|e| e.to_string())?;
    let mut crowd = Md2Crowd::new(&gpu.device, &renderer, &gpu_model).map_err(|e| e.to_string())?;
    for i in 0..12 {
        let at = Mat4::from_translation(Vec3::new(
            (i % 4) as f32 * 40.0 - 60.0,
            0.0,
            (i / 4) as f32 * -40.0,
        ));
        let clock = ClipClock::new(Quake2Player::Run.clip(), f64::from(i) * 0.1);
        crowd
            .add(CrowdMember::new(at, clock))
            .map_err(|e| e.to_string())?;
    }
    let still: Vec<Md2Instance> = (0..3)
        .map(|i| {
            let at = Mat4::from_translation(Vec3::new(i as f32 * 40.0 - 40.0, 0.0, 40.0));
            Md2Instance::new(at, FrameLerp::still(i * 30))
        })
        .collect();
    let camera = Camera::look_at(
        Vec3::new(0.0, 80.0, 200.0),
        Vec3::ZERO,
        0.9,
        1.0,
        1.0,
        1000.0,
    );
    renderer
        .prepare(
            &gpu.device,
            &gpu.queue,
            &camera,
            &[Md2Batch::new(&gpu_model, &still)],
        )
        .map_err(|e| e.to_string())?;
    let target = Target::for_renderer(gpu, &renderer, SIZE, SIZE);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer
        .prepare_crowds(&gpu.device, &gpu.queue, &mut encoder, 2.5, [&mut crowd])
        .map_err(|e| e.to_string())?;
    {
        let mut pass = target.begin(&mut encoder, renderer.options().depth);
        renderer.render(&mut pass);
    }
    Ok(target.read(gpu, encoder))
}

#[test]
fn after_a_lost_device_calls_fail_typed_and_a_new_device_draws_the_same_pixels() {
    let Some(gpu) = gpu() else { return };
    let model = demo::demo_model();
    let before = scene(&gpu, &model).unwrap();
    assert!(coverage(&before) > 500, "the scene draws");

    // The renderer, model and crowd of the lost device, made before it is
    // lost, as an app's would be.
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let gpu_model = GpuModel::new(
        &gpu.device,
        &gpu.queue,
        &renderer,
        &model,
        &[demo::demo_skin()],
    )
    .unwrap();
    let mut crowd = Md2Crowd::new(&gpu.device, &renderer, &gpu_model).unwrap();
    let member = CrowdMember::new(
        Mat4::IDENTITY,
        ClipClock::new(Quake2Player::Run.clip(), 0.0),
    );
    crowd.add(member.clone()).unwrap();
    // The app's own calls on the lost device are errors too (its textures,
    // its pass): an app that survives a loss catches them, as this one
    // counts them. The crate's own calls must not reach this handler.
    let uncaptured = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&uncaptured);
    gpu.device.on_uncaptured_error(Arc::new(move |_| {
        counter.fetch_add(1, Ordering::Relaxed);
    }));
    gpu.device.destroy();

    let camera = Camera::framing_model(&model, 1.0);
    let many: Vec<Md2Instance> = (0..5000)
        .map(|i| {
            Md2Instance::new(
                Mat4::from_translation(Vec3::X * i as f32),
                FrameLerp::still(0),
            )
        })
        .collect();
    // The first frame after the loss: with as many instances as before it
    // writes into buffers made before the loss (nothing shows); with more,
    // the grown buffer is the device's error.
    let small = renderer.prepare(
        &gpu.device,
        &gpu.queue,
        &camera,
        &[Md2Batch::new(&gpu_model, &many[..1])],
    );
    assert!(small.is_ok() || matches!(small, Err(md2_wgpu::PrepareError::Device { .. })));
    let grown = renderer.prepare(
        &gpu.device,
        &gpu.queue,
        &camera,
        &[Md2Batch::new(&gpu_model, &many)],
    );
    assert!(
        matches!(grown, Err(md2_wgpu::PrepareError::Device { .. })),
        "{grown:?}"
    );
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    for _ in 0..300 {
        crowd.add(member.clone()).unwrap();
    }
    let crowds = renderer.prepare_crowds(&gpu.device, &gpu.queue, &mut encoder, 1.0, [&mut crowd]);
    assert!(
        matches!(crowds, Err(md2_wgpu::PrepareError::Device { .. })),
        "{crowds:?}"
    );
    {
        let target = Target::for_renderer(&gpu, &renderer, SIZE, SIZE);
        let mut pass = target.begin(&mut encoder, renderer.options().depth);
        renderer.render(&mut pass);
        assert_eq!(
            md2_wgpu::low_level::recorded_draws(&renderer),
            0,
            "nothing is drawn after a failed prepare"
        );
    }
    gpu.queue.submit([encoder.finish()]);
    let visible = md2_wgpu::support::wait(
        &gpu.device,
        renderer.visible_members(&gpu.device, &gpu.queue),
    );
    assert!(visible.is_err(), "{visible:?}");
    assert!(
        GpuModel::new(
            &gpu.device,
            &gpu.queue,
            &renderer,
            &model,
            &[demo::demo_skin()]
        )
        .is_err()
    );
    assert!(Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH).is_err());
    let captured = uncaptured.load(Ordering::Relaxed);
    eprintln!("the app's own calls on the lost device raised {captured} errors");

    // A new device, everything rebuilt from the same model: the same
    // picture.
    let Some(again) = crate::common::gpu() else {
        return;
    };
    let after = scene(&again, &model).unwrap();
    assert_eq!(differing_pixels(&before, &after, 0), 0);
}
