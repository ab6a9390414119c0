//! One rule for a refused frame, and read-backs of nothing. A `prepare` or
//! `prepare_crowds` that returns an error leaves `render` recording nothing,
//! batches and crowds alike, until the next successful `prepare` (the
//! crate docs' "A refused frame"); a read-back with nothing to read
//! resolves to nothing, never a panic.

use glam::{Mat4, Vec3};
use md2_wgpu::gpu::VisibleMembers;
use md2_wgpu::{
    Camera, CrowdMember, GpuModel, Md2Crowd, Md2Instance, Md2Renderer, Md2RendererOptions,
    Quake2Player,
    anim::{ClipClock, FrameLerp},
    demo,
    gpu::{Md2Batch, PrepareError},
    scene::InstanceError,
};

use crate::common::*;

const SIZE: u32 = 128;
const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

struct View {
    renderer: Md2Renderer,
    gpu_model: GpuModel,
    crowd: Md2Crowd,
    camera: Camera,
}

fn view(gpu: &Gpu) -> View {
    let renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let gpu_model = demo_gpu_model(gpu, &renderer);
    let mut crowd = Md2Crowd::new(&gpu.device, &renderer, &gpu_model).unwrap();
    for i in 0..24 {
        let at = Vec3::new((i % 6) as f32 * 40.0 - 100.0, 0.0, (i / 6) as f32 * -40.0);
        let clock = ClipClock::new(Quake2Player::Run.clip(), f64::from(i) * 0.1);
        crowd
            .add(CrowdMember::new(Mat4::from_translation(at), clock))
            .unwrap();
    }
    let camera = Camera::look_at(
        Vec3::new(0.0, 120.0, 260.0),
        Vec3::new(0.0, 0.0, -60.0),
        0.9,
        1.0,
        1.0,
        1000.0,
    );
    View {
        renderer,
        gpu_model,
        crowd,
        camera,
    }
}

impl View {
    /// A frame of `instances` and the crowd: what `prepare` and
    /// `prepare_crowds` said, the picture, and the draws recorded.
    fn frame(
        &mut self,
        gpu: &Gpu,
        instances: &[Md2Instance],
        crowds: Option<f64>,
    ) -> (
        Result<(), PrepareError>,
        Result<(), PrepareError>,
        image::RgbaImage,
        u64,
    ) {
        let batches = [Md2Batch::new(&self.gpu_model, instances)];
        let prepared = self
            .renderer
            .prepare(&gpu.device, &gpu.queue, &self.camera, &batches)
            .map(drop);
        let target = Target::for_renderer(gpu, &self.renderer, SIZE, SIZE);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let crowded = match crowds {
            Some(time) => self.renderer.prepare_crowds(
                &gpu.device,
                &gpu.queue,
                &mut encoder,
                time,
                [&mut self.crowd],
            ),
            None => Ok(()),
        };
        {
            let mut pass = target.begin(&mut encoder, self.renderer.options().depth);
            self.renderer.render(&mut pass);
        }
        let draws = md2_wgpu::gpu::low_level::recorded_draws(&self.renderer);
        (prepared, crowded, target.read(gpu, encoder), draws)
    }
}

fn good() -> Vec<Md2Instance> {
    vec![Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0))]
}

fn bad() -> Vec<Md2Instance> {
    vec![Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(10_000))]
}

#[test]
fn a_refused_prepare_draws_nothing_crowds_included_until_the_next_good_one() {
    let Some(gpu) = gpu() else { return };
    let mut view = view(&gpu);
    let (prepared, crowded, picture, draws) = view.frame(&gpu, &good(), Some(2.0));
    prepared.unwrap();
    crowded.unwrap();
    assert!(draws >= 2 && coverage(&picture) > 1000, "{draws} draws");

    // Refused under Strict (a frame past the model), crowd prepared after.
    let (prepared, crowded, picture, draws) = view.frame(&gpu, &bad(), Some(2.0));
    assert!(
        matches!(
            prepared,
            Err(PrepareError::Instance(
                InstanceError::FrameOutOfRange { .. }
            ))
        ),
        "{prepared:?}"
    );
    crowded.unwrap();
    assert_eq!(draws, 0, "a refused frame records no draw");
    assert_eq!(coverage(&picture), 0);
    // Refused, and no prepare_crowds this frame: the last one's crowd does
    // not show either.
    let (_, _, picture, draws) = view.frame(&gpu, &bad(), None);
    assert_eq!((draws, coverage(&picture)), (0, 0));

    // The next good frame draws again, both paths.
    let (prepared, crowded, picture, draws) = view.frame(&gpu, &good(), Some(2.0));
    prepared.unwrap();
    crowded.unwrap();
    assert!(draws >= 2 && coverage(&picture) > 1000, "{draws} draws");
}

#[test]
fn a_refused_prepare_crowds_draws_nothing_until_the_next_good_prepare() {
    let Some(gpu) = gpu() else { return };
    let mut view = view(&gpu);
    // A good prepare, then prepare_crowds refused (a time that is not a
    // number): neither the batches nor the crowd are drawn.
    let (prepared, crowded, picture, draws) = view.frame(&gpu, &good(), Some(f64::NAN));
    prepared.unwrap();
    assert!(
        matches!(crowded, Err(PrepareError::TimeNotFinite { .. })),
        "{crowded:?}"
    );
    assert_eq!((draws, coverage(&picture)), (0, 0));
    // The next frame whose prepare succeeds draws its batches; its crowds
    // once prepare_crowds succeeds again.
    let (prepared, _, picture, draws) = view.frame(&gpu, &good(), None);
    prepared.unwrap();
    assert_eq!(draws, 1, "the batch, and no crowd");
    assert!(coverage(&picture) > 100);
    let (_, crowded, _, draws) = view.frame(&gpu, &good(), Some(2.0));
    crowded.unwrap();
    assert!(draws >= 2, "{draws} draws");
}

/// Every read-back of nothing resolves to nothing: the visible counts of a
/// renderer that never prepared a crowd, and of one whose crowds are
/// empty, the recent counts, and the records of a crowd it never drew.
#[test]
fn read_backs_of_nothing_resolve_to_nothing() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = Md2Renderer::new(&gpu.device, SRGB, Md2RendererOptions::WITH_DEPTH).unwrap();
    let counts = md2_wgpu::support::wait(
        &gpu.device,
        VisibleMembers::read(&renderer, &gpu.device, &gpu.queue),
    )
    .unwrap();
    assert!(counts.per_crowd.is_empty() && counts.per_level.is_empty());
    assert_eq!(VisibleMembers::recent(&mut renderer, &gpu.device), None);
    let records = crowd_records(&gpu, &renderer, 0);
    assert!(records.is_err() || records.unwrap().is_empty());

    // A crowd with no members, prepared and drawn.
    let gpu_model =
        GpuModel::new(&gpu.device, &gpu.queue, &renderer, &demo::demo_model(), &[]).unwrap();
    let mut crowd = Md2Crowd::new(&gpu.device, &renderer, &gpu_model).unwrap();
    renderer
        .prepare(
            &gpu.device,
            &gpu.queue,
            &Camera::framing_model(&demo::demo_model(), 1.0),
            &[],
        )
        .unwrap();
    for _ in 0..4 {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        renderer
            .prepare_crowds(&gpu.device, &gpu.queue, &mut encoder, 1.0, [&mut crowd])
            .unwrap();
        gpu.queue.submit([encoder.finish()]);
        let _ = VisibleMembers::recent(&mut renderer, &gpu.device);
    }
    let counts = md2_wgpu::support::wait(
        &gpu.device,
        VisibleMembers::read(&renderer, &gpu.device, &gpu.queue),
    )
    .unwrap();
    assert_eq!(counts.per_crowd, [0]);
    assert_eq!(crowd_records(&gpu, &renderer, 0).unwrap(), []);
    // Many empty and small read-backs: none lands on an allocation the cast
    // would have refused.
    for _ in 0..50 {
        let counts = md2_wgpu::support::wait(
            &gpu.device,
            VisibleMembers::read(&renderer, &gpu.device, &gpu.queue),
        )
        .unwrap();
        assert_eq!(counts.per_crowd, [0]);
    }
}
