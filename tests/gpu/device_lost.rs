//! A lost device (`wgpu::Device::destroy`, as a browser's GPU reset or a
//! driver update does it): every call of the crate after it returns a
//! typed error or draws nothing, none panics or hangs, and a new device
//! rebuilt from the same models draws the same pixels as before.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::{Mat4, Vec3};
use md2_wgpu::gpu::VisibleMembers;
use md2_wgpu::{
    Camera, CrowdMember, GpuModel, Md2Crowd, Md2Instance, Md2Model, Md2Renderer,
    Md2RendererOptions, Quake2Player,
    anim::{ClipClock, FrameLerp},
    demo,
    gpu::{Md2Batch, PrepareError, PrepareReport},
};

use crate::common::*;

const SIZE: u32 = 128;
const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// `model` in the demo's skin, uploaded for `renderer`.
fn upload(
    gpu: &Gpu,
    renderer: &Md2Renderer,
    model: &Md2Model,
) -> Result<GpuModel, md2_wgpu::gpu::SetupError> {
    GpuModel::new(
        &gpu.device,
        &gpu.queue,
        renderer,
        model,
        &[demo::demo_skin()],
    )
}

/// A crowd of a dozen runners and a batch of three still ones, drawn on
/// `gpu`; returns the picture.
fn scene(gpu: &Gpu, model: &Md2Model) -> Result<image::RgbaImage, String> {
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH)
        .map_err(|e| e.to_string())?;
    let gpu_model = upload(gpu, &renderer, model).map_err(|e| e.to_string())?;
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
    let camera = square_camera(Vec3::new(0.0, 80.0, 200.0), Vec3::ZERO, 0.9, 1.0, 1000.0);
    let batch = [Md2Batch::new(&gpu_model, &still)];
    draw_crowd(gpu, &mut renderer, &camera, &batch, &mut crowd, 2.5, SIZE)
        .map_err(|e| e.to_string())
}

/// The renderer, model and crowd of one device, made before it is lost,
/// as an app's would be, with a frame drawn.
struct Before {
    renderer: Md2Renderer,
    gpu_model: GpuModel,
    crowd: Md2Crowd,
    member: CrowdMember,
    instances: Vec<Md2Instance>,
    camera: Camera,
}

fn before(gpu: &Gpu, model: &Md2Model, cache: Option<&md2_wgpu::gpu::Md2Cache>) -> Before {
    let renderer = match cache {
        Some(cache) => {
            Md2Renderer::with_cache(&gpu.device, cache, SRGB, Md2RendererOptions::WITH_DEPTH)
        }
        None => Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH),
    }
    .unwrap();
    let gpu_model = upload(gpu, &renderer, model).unwrap();
    let mut crowd = Md2Crowd::new(&gpu.device, &renderer, &gpu_model).unwrap();
    let member = CrowdMember::new(
        Mat4::IDENTITY,
        ClipClock::new(Quake2Player::Run.clip(), 0.0),
    );
    crowd.add(member.clone()).unwrap();
    let instances = vec![Md2Instance::new(
        Mat4::from_translation(Vec3::X * 40.0),
        FrameLerp::still(0),
    )];
    let mut frame = Before {
        renderer,
        gpu_model,
        crowd,
        member,
        instances,
        camera: Camera::framing_model(model, 1.0),
    };
    let target = frame.draw(gpu).expect("a frame before the loss");
    assert!(coverage(&target) > 100, "the frame before the loss draws");
    frame
}

impl Before {
    /// A frame with the same instances and crowd as the last: `prepare`,
    /// `prepare_crowds`, `render`.
    fn draw(&mut self, gpu: &Gpu) -> Result<image::RgbaImage, PrepareError> {
        let Before {
            renderer,
            gpu_model,
            crowd,
            instances,
            camera,
            ..
        } = self;
        let batches = [Md2Batch::new(gpu_model, instances)];
        draw_crowd(gpu, renderer, camera, &batches, crowd, 1.0, SIZE)
    }

    /// `prepare` with the same instances as the last frame.
    fn prepare(&mut self, gpu: &Gpu) -> Result<PrepareReport, PrepareError> {
        let batches = [Md2Batch::new(&self.gpu_model, &self.instances)];
        self.renderer
            .prepare(&gpu.device, &gpu.queue, &self.camera, &batches)
    }

    /// `prepare_crowds` with the crowd as it is, into `encoder`.
    fn prepare_crowd(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), PrepareError> {
        let crowds = [&mut self.crowd];
        self.renderer
            .prepare_crowds(&gpu.device, &gpu.queue, encoder, 1.0, crowds)
    }

    fn draws(&self) -> u64 {
        md2_wgpu::gpu::low_level::recorded_draws(&self.renderer)
    }
}

fn is_device_error(result: &Result<impl std::fmt::Debug, PrepareError>) -> bool {
    matches!(result, Err(PrepareError::Device { .. }))
}

fn is_setup_device_error(result: &Result<impl std::fmt::Debug, md2_wgpu::gpu::SetupError>) -> bool {
    matches!(result, Err(md2_wgpu::gpu::SetupError::Device { .. }))
}

/// Every call that makes GPU objects, on a lost device: a `SetupError::Device`.
fn every_maker_fails(
    gpu: &Gpu,
    model: &Md2Model,
    cache: &md2_wgpu::gpu::Md2Cache,
    gpu_model: &mut GpuModel,
) {
    let made = GpuModel::new(&gpu.device, &gpu.queue, cache, model, &[]);
    assert!(is_setup_device_error(&made), "{made:?}");
    let made = Md2Crowd::new(&gpu.device, cache, gpu_model);
    assert!(is_setup_device_error(&made), "{made:?}");
    let made = Md2Renderer::with_cache(&gpu.device, cache, SRGB, Md2RendererOptions::WITH_DEPTH);
    assert!(is_setup_device_error(&made), "{made:?}");
    let made = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH);
    assert!(is_setup_device_error(&made), "{made:?}");
    let levels =
        md2_wgpu::mesh::Levels::new(model, gpu_model.mesh(), &md2_wgpu::mesh::LevelOptions::NONE)
            .unwrap();
    let set = gpu_model.set_levels(&gpu.device, levels);
    assert!(is_setup_device_error(&set), "{set:?}");
}

/// The app's own calls on a lost device are errors too (its textures, its
/// pass): an app that survives a loss catches them, as this one counts
/// them. The crate's own calls must not reach this handler.
fn count_uncaptured(gpu: &Gpu) -> Arc<AtomicUsize> {
    let uncaptured = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&uncaptured);
    gpu.device.on_uncaptured_error(Arc::new(move |_| {
        counter.fetch_add(1, Ordering::Relaxed);
    }));
    uncaptured
}

/// With the cache watching the device (`Md2Cache::watch_device_lost`, the
/// app's own callback handed to it), every call after the loss says so,
/// call by call, once wgpu has reported it (at the device's next poll);
/// the app's callback runs once; CPU-side changes go on. A new device
/// rebuilt from the same models draws the same pixels as before.
#[test]
fn a_watched_lost_device_makes_every_call_an_error_and_a_new_one_draws_the_same() {
    let Some(gpu) = gpu() else { return };
    let model = demo::demo_model();
    let picture_before = scene(&gpu, &model).unwrap();
    assert!(coverage(&picture_before) > 500, "the scene draws");

    let cache = md2_wgpu::gpu::Md2Cache::new(&gpu.device).unwrap();
    let heard = Arc::new(AtomicUsize::new(0));
    let app_heard = Arc::clone(&heard);
    cache.watch_device_lost(&gpu.device, move |reason, message| {
        eprintln!("the app's callback: {reason:?}: {message}");
        app_heard.fetch_add(1, Ordering::Relaxed);
    });
    let mut frame = before(&gpu, &model, Some(&cache));
    let uncaptured = count_uncaptured(&gpu);
    assert!(cache.device_lost().is_none());
    gpu.device.destroy();
    // wgpu reports the loss at the device's next poll (an app's frame loop,
    // or a read-back, polls).
    let _ = gpu.device.poll(wgpu::PollType::Poll);
    assert_eq!(heard.load(Ordering::Relaxed), 1, "the app's callback ran");
    let why = cache.device_lost().expect("the cache knows").to_string();
    assert!(why.contains("Destroyed"), "{why}");

    // `prepare` with the same instances as the frame before: nothing grows,
    // and still an error.
    let prepared = frame.prepare(&gpu);
    assert!(is_device_error(&prepared), "{prepared:?}");
    assert!(
        prepared
            .unwrap_err()
            .to_string()
            .contains("the device was lost"),
        "says why"
    );
    // `prepare_crowds` with an unchanged crowd.
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let crowds = frame.prepare_crowd(&gpu, &mut encoder);
    assert!(is_device_error(&crowds), "{crowds:?}");
    {
        let target = Target::for_renderer(&gpu, &frame.renderer, SIZE, SIZE);
        let mut pass = target.begin(&mut encoder, frame.renderer.options().depth);
        frame.renderer.render(&mut pass);
    }
    assert_eq!(frame.draws(), 0, "nothing is drawn after a refused frame");
    gpu.queue.submit([encoder.finish()]);
    // The read-backs.
    let visible = md2_wgpu::support::wait(
        &gpu.device,
        VisibleMembers::read(&frame.renderer, &gpu.device, &gpu.queue),
    );
    assert!(is_device_error(&visible), "{visible:?}");
    assert!(
        VisibleMembers::recent(&mut frame.renderer, &gpu.device)
            .is_none_or(|v| v.per_crowd.is_empty())
    );
    // Everything that makes GPU objects.
    every_maker_fails(&gpu, &model, &cache, &mut frame.gpu_model);
    // The CPU side goes on.
    for _ in 0..300 {
        frame.crowd.add(frame.member.clone()).unwrap();
    }
    assert_eq!(frame.crowd.len(), 301);
    assert!(is_device_error(&frame.draw(&gpu)));
    assert_eq!(frame.draws(), 0);
    eprintln!(
        "the app's own calls on the lost device raised {} errors",
        uncaptured.load(Ordering::Relaxed)
    );

    // A new device, everything rebuilt from the same model: the same
    // picture.
    let Some(again) = crate::common::gpu() else {
        return;
    };
    let after = scene(&again, &model).unwrap();
    assert_eq!(differing_pixels(&picture_before, &after, 0), 0);
}

/// Without a watch the crate cannot know of a loss it is not told of: what
/// the crate docs say holds, call by call. Calls that make or grow GPU
/// objects (a model, a crowd, a renderer, levels, a grown instance
/// buffer, a crowd's grown buffers) and read-backs are errors; a frame that
/// only rewrites buffers made before the loss returns Ok and draws into a
/// target the lost device never shows. The app's signal is wgpu's own
/// device-lost callback; `Md2Cache::mark_device_lost` hands it on.
#[test]
fn an_unwatched_lost_device_is_noticed_where_the_docs_say() {
    let Some(gpu) = gpu() else { return };
    let model = demo::demo_model();
    let mut frame = before(&gpu, &model, None);
    let _uncaptured = count_uncaptured(&gpu);
    gpu.device.destroy();
    let _ = gpu.device.poll(wgpu::PollType::Poll);

    // The same frame again: nothing is made, nothing is noticed.
    let same = frame.prepare(&gpu);
    assert!(same.is_ok(), "{same:?}");
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let crowds = frame.prepare_crowd(&gpu, &mut encoder);
    assert!(crowds.is_ok(), "{crowds:?}");
    // More instances than the buffer holds: the grown buffer is an error.
    let many: Vec<Md2Instance> = (0..5000)
        .map(|i| {
            Md2Instance::new(
                Mat4::from_translation(Vec3::X * i as f32),
                FrameLerp::still(0),
            )
        })
        .collect();
    let grown = frame.renderer.prepare(
        &gpu.device,
        &gpu.queue,
        &frame.camera,
        &[Md2Batch::new(&frame.gpu_model, &many)],
    );
    assert!(is_device_error(&grown), "{grown:?}");
    // A crowd that outgrew its buffers.
    for _ in 0..300 {
        frame.crowd.add(frame.member.clone()).unwrap();
    }
    let crowds = frame.prepare_crowd(&gpu, &mut encoder);
    assert!(is_device_error(&crowds), "{crowds:?}");
    drop(encoder);
    let visible = md2_wgpu::support::wait(
        &gpu.device,
        VisibleMembers::read(&frame.renderer, &gpu.device, &gpu.queue),
    );
    assert!(is_device_error(&visible), "{visible:?}");
    let cache = frame.renderer.as_ref().clone();
    every_maker_fails(&gpu, &model, &cache, &mut frame.gpu_model);

    // Told by the app (from its own wgpu callback), every call says so.
    cache.mark_device_lost("the app's callback said so");
    let told = frame.prepare(&gpu);
    assert!(is_device_error(&told), "{told:?}");
    assert!(
        told.unwrap_err()
            .to_string()
            .contains("the app's callback said so")
    );
}
