//! A headless device (the crate's own helper), offscreen targets, and
//! rendering with read-back.

use image::RgbaImage;
use md2_wgpu::format::{Md2Parts, TexCoord, Triangle};
use md2_wgpu::gpu::{Md2Cache, PrepareError, VisibleMembers};
use md2_wgpu::model::{Frame, PackedVertex};
use md2_wgpu::support::Headless;
use md2_wgpu::{Camera, GpuModel, Md2Crowd, Md2Instance, Md2Model, Md2Renderer, gpu::Md2Batch};
/// A device and its queue, on whatever adapter the machine has.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: wgpu::AdapterInfo,
    pub features: wgpu::Features,
}

/// No adapter: print why and skip, unless MD2_REQUIRE_GPU=1 makes it a
/// failure.
fn skip(reason: &str) -> Option<Gpu> {
    if std::env::var("MD2_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        panic!("MD2_REQUIRE_GPU=1 but no usable GPU: {reason}");
    }
    eprintln!("SKIPPING GPU test: {reason} (set MD2_REQUIRE_GPU=1 to make this a failure)");
    None
}

/// The crate's headless device itself (adapter included, for code that
/// takes the adapter too: egui's `RenderState`), with the limits `limits`
/// picks and those of `features` the adapter has; `None` (said loudly)
/// without one.
pub fn headless(
    limits: impl FnOnce(&wgpu::Adapter) -> wgpu::Limits,
    features: wgpu::Features,
) -> Option<Headless> {
    match Headless::new(limits, features) {
        Ok(h) => Some(h),
        Err(reason) => {
            skip(&reason);
            None
        }
    }
}

/// A headless device with the limits the renderer says it needs.
pub fn gpu() -> Option<Gpu> {
    gpu_with(
        |_| md2_wgpu::gpu::required_limits(),
        wgpu::Features::empty(),
    )
}

/// A headless device with every limit the adapter has: room for the
/// hundred thousand members and instances the larger tests draw.
pub fn gpu_at_limits() -> Option<Gpu> {
    gpu_with(|a| a.limits(), wgpu::Features::empty())
}

/// A renderer with `options` (its own cache) for an `Rgba8UnormSrgb`
/// target: what most pictures are drawn into.
pub fn srgb_renderer_with(gpu: &Gpu, options: md2_wgpu::Md2RendererOptions) -> Md2Renderer {
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    Md2Renderer::new(&gpu.device, format, options).expect("a renderer")
}

/// A headless device with the limits `limits` picks from the adapter's, and
/// those of `features` the adapter has.
pub fn gpu_with(
    limits: impl FnOnce(&wgpu::Adapter) -> wgpu::Limits,
    features: wgpu::Features,
) -> Option<Gpu> {
    match Headless::new(limits, features) {
        Ok(h) => Some(Gpu {
            adapter: h.adapter.get_info(),
            features: h.device.features(),
            device: h.device,
            queue: h.queue,
        }),
        Err(reason) => skip(&reason),
    }
}

/// The colour the target is cleared to: transparent black, so alpha tells
/// model pixels from background.
pub const CLEAR: wgpu::Color = wgpu::Color::TRANSPARENT;

/// Renders the batches with `renderer` into a fresh `width` × `height`
/// target of the renderer's format (with depth and multisampling as its
/// options say) and reads the pixels back.
pub fn render(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
    width: u32,
    height: u32,
) -> RgbaImage {
    renderer
        .prepare(&gpu.device, &gpu.queue, camera, batches)
        .expect("prepare");
    draw_and_read(gpu, &[renderer], width, height)
}

/// [`render`] into a square target `size` pixels on a side.
pub fn render_square(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
    size: u32,
) -> RgbaImage {
    render(gpu, renderer, camera, batches, size, size)
}

/// [`render_square`] of one batch: `instances` of `model`.
pub fn render_instances(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    model: &GpuModel,
    instances: &[Md2Instance],
    size: u32,
) -> RgbaImage {
    render_square(
        gpu,
        renderer,
        camera,
        &[Md2Batch::new(model, instances)],
        size,
    )
}

/// Prepares `renderer` for `camera` and `batches`, runs `crowd`'s compute
/// pass at `time`, and draws both into a fresh target `size` pixels square
/// (the renderer's format and options), read back. The first refusal
/// (`prepare`'s or `prepare_crowds`') is the error.
pub fn draw_crowd(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
    crowd: &mut Md2Crowd,
    time: f64,
    size: u32,
) -> Result<RgbaImage, PrepareError> {
    draw_crowds(gpu, renderer, camera, batches, [crowd], time, size)
}

/// [`draw_crowd`] of several crowds, in the order given.
pub fn draw_crowds<'c>(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[Md2Batch<'_>],
    crowds: impl IntoIterator<Item = &'c mut Md2Crowd>,
    time: f64,
    size: u32,
) -> Result<RgbaImage, PrepareError> {
    renderer.prepare(&gpu.device, &gpu.queue, camera, batches)?;
    let target = Target::for_renderer(gpu, renderer, size, size);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.prepare_crowds(&gpu.device, &gpu.queue, &mut encoder, time, crowds)?;
    {
        let mut pass = target.begin(&mut encoder, renderer.options().depth);
        renderer.render(&mut pass);
    }
    Ok(target.read(gpu, encoder))
}

/// A resident crowd of `model` with one member at the origin playing `clip`
/// from 0 s, drawn at `time` from `camera` into a fresh target `size`
/// pixels square (sRGB, with depth), read back; and the instance the
/// crowd drew (its pose as the crowd's clock sampled it), for the
/// immediate path to draw alike.
pub fn crowd_of_one(
    gpu: &Gpu,
    cache: &md2_wgpu::gpu::Md2Cache,
    model: &GpuModel,
    clip: md2_wgpu::Clip,
    camera: &Camera,
    time: f64,
    size: u32,
) -> (RgbaImage, md2_wgpu::Md2Instance) {
    use md2_wgpu::anim::{ClipClock, FrameLerp};
    use md2_wgpu::glam::Mat4;
    use md2_wgpu::{CrowdMember, Md2RendererOptions};
    let mut crowd = Md2Crowd::new(&gpu.device, cache, model).unwrap();
    crowd
        .add(CrowdMember::new(Mat4::IDENTITY, ClipClock::new(clip, 0.0)))
        .unwrap();
    let srgb = wgpu::TextureFormat::Rgba8UnormSrgb;
    let mut resident =
        Md2Renderer::with_cache(&gpu.device, cache, srgb, Md2RendererOptions::WITH_DEPTH).unwrap();
    let picture = draw_crowd(gpu, &mut resident, camera, &[], &mut crowd, time, size).unwrap();
    let mut instances = [Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0))];
    assert_eq!(with_drawn_poses(gpu, &resident, 0, &mut instances), 1);
    (picture, instances[0])
}

/// Runs `crowd`'s compute pass at `time` for `renderer`'s view from
/// `camera` (no batches) and submits it: a frame that draws nothing here,
/// for what the crowd wrote and uploaded.
pub fn step_crowd(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    crowd: &mut Md2Crowd,
    time: f64,
) {
    step_crowds(gpu, renderer, camera, [crowd], time);
}

/// [`step_crowd`] of several crowds, in the order given.
pub fn step_crowds<'c>(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    crowds: impl IntoIterator<Item = &'c mut Md2Crowd>,
    time: f64,
) {
    renderer
        .prepare(&gpu.device, &gpu.queue, camera, &[])
        .unwrap();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer
        .prepare_crowds(&gpu.device, &gpu.queue, &mut encoder, time, crowds)
        .unwrap();
    gpu.queue.submit([encoder.finish()]);
}

/// An offscreen colour target (resolved, and multisampled where asked) with
/// its depth buffer.
pub struct Target {
    pub color: wgpu::Texture,
    pub msaa: Option<wgpu::Texture>,
    pub depth: Option<wgpu::Texture>,
}

impl Target {
    /// A target for `renderer`'s format and options.
    pub fn for_renderer(gpu: &Gpu, renderer: &Md2Renderer, width: u32, height: u32) -> Target {
        let format = renderer
            .color_targets()
            .first()
            .copied()
            .expect("a colour renderer");
        let options = renderer.options();
        let samples = options.multisample.count;
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let texture = |label, format, sample_count, usage| {
            gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        use wgpu::TextureUsages as U;
        Target {
            color: texture(
                "md2-wgpu test target",
                format,
                1,
                U::RENDER_ATTACHMENT | U::COPY_SRC,
            ),
            msaa: (samples > 1).then(|| {
                texture(
                    "md2-wgpu test msaa target",
                    format,
                    samples,
                    U::RENDER_ATTACHMENT,
                )
            }),
            depth: options.depth.map(|d| {
                texture(
                    "md2-wgpu test depth",
                    d.format,
                    samples,
                    U::RENDER_ATTACHMENT | U::COPY_SRC,
                )
            }),
        }
    }

    /// Begins a pass that clears colour to [`CLEAR`], depth to the far
    /// value of `depth` (0 for reverse-Z) and stencil to 0.
    pub fn begin<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        depth: Option<md2_wgpu::DepthState>,
    ) -> wgpu::RenderPass<'e> {
        let resolved = self.color.create_view(&Default::default());
        let msaa = self
            .msaa
            .as_ref()
            .map(|t| t.create_view(&Default::default()));
        let depth_view = self
            .depth
            .as_ref()
            .map(|t| t.create_view(&Default::default()));
        let (view, resolve_target) = match &msaa {
            Some(msaa) => (msaa, Some(&resolved)),
            None => (&resolved, None),
        };
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("md2-wgpu test pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(CLEAR),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: depth_view.as_ref().map(|view| {
                let state = depth.expect("a depth state for a depth target");
                wgpu::RenderPassDepthStencilAttachment {
                    view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(far_depth(state.compare)),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: state.has_stencil().then_some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0),
                        store: wgpu::StoreOp::Store,
                    }),
                }
            }),
            ..Default::default()
        })
    }

    /// Reads the resolved colour back, submitting `encoder` first.
    pub fn read(&self, gpu: &Gpu, encoder: wgpu::CommandEncoder) -> RgbaImage {
        md2_wgpu::support::read_rgba8(&gpu.device, &gpu.queue, encoder, &self.color)
            .expect("read the target back")
    }
}

/// The depth a buffer is cleared to for this test: the far end.
pub fn far_depth(compare: wgpu::CompareFunction) -> f32 {
    use wgpu::CompareFunction as C;
    if matches!(compare, C::Greater | C::GreaterEqual) {
        0.0
    } else {
        1.0
    }
}

/// Renders whatever the last `prepare` of each renderer left, one after
/// the other into one pass of one target (the first renderer's format and
/// options), and reads the pixels back.
pub fn draw_and_read(gpu: &Gpu, renderers: &[&Md2Renderer], width: u32, height: u32) -> RgbaImage {
    let target = Target::for_renderer(gpu, renderers[0], width, height);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = target.begin(&mut encoder, renderers[0].options().depth);
        for renderer in renderers {
            renderer.render(&mut pass);
        }
    }
    target.read(gpu, encoder)
}

/// The built-in demo model with its skin, uploaded for `cache`'s renderers.
pub fn demo_gpu_model(
    gpu: &Gpu,
    cache: &impl AsRef<md2_wgpu::gpu::Md2Cache>,
) -> md2_wgpu::GpuModel {
    md2_wgpu::GpuModel::new(
        &gpu.device,
        &gpu.queue,
        cache,
        &md2_wgpu::demo::demo_model(),
        &[md2_wgpu::demo::demo_skin()],
    )
    .expect("the demo model uploads")
}

/// A cache for a test's renderers, and the built-in demo model uploaded
/// through it.
pub fn demo_cache(gpu: &Gpu) -> (Md2Cache, GpuModel) {
    let cache = Md2Cache::new(&gpu.device).unwrap();
    let gpu_model = demo_gpu_model(gpu, &cache);
    (cache, gpu_model)
}

/// A unit square facing the camera (`front_square`) in a white 1 × 1 skin,
/// uploaded for `cache`'s renderers.
pub fn white_square(gpu: &Gpu, cache: &impl AsRef<Md2Cache>) -> GpuModel {
    GpuModel::new(
        &gpu.device,
        &gpu.queue,
        cache,
        &crate::front_square(0, 0, (1, 1)),
        &[crate::solid_skin(1, 1, [255, 255, 255, 255])],
    )
    .unwrap()
}

/// One triangle (vertices `xyz` of each frame, every corner at texel
/// `st` of a 4 × 4 skin) through `frames`, with three vertices a frame:
/// the small models the crowd and hostile-input tests move and stretch.
pub fn one_triangle(
    st: TexCoord,
    xyz: [u16; 3],
    frames: Vec<Frame>,
    vertices: Vec<PackedVertex>,
) -> Md2Model {
    Md2Model::from_parts(Md2Parts {
        skin_size: (4, 4),
        skins: Vec::new(),
        tex_coords: vec![st],
        triangles: vec![Triangle { xyz, st: [0; 3] }],
        frames,
        vertices,
    })
    .unwrap()
}

/// A `width` × `height` texture of `format` to draw into and read back.
pub fn attachment(
    gpu: &Gpu,
    format: wgpu::TextureFormat,
    width: u32,
    height: u32,
) -> wgpu::Texture {
    md2_wgpu::support::attachment(&gpu.device, format, width, height)
}

/// Runs `draw` in one pass over the colour targets `colors` (cleared to
/// [`CLEAR`]) and the depth buffer `depth` (cleared to 1.0, no stencil),
/// and submits it.
pub fn draw_into(
    gpu: &Gpu,
    colors: &[&wgpu::Texture],
    depth: Option<&wgpu::Texture>,
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
) {
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    md2_wgpu::support::draw_into(&mut encoder, colors, depth, CLEAR, draw);
    gpu.queue.submit([encoder.finish()]);
}

/// The texels of `texture` (its depth alone for a depth format), tightly
/// packed row by row, as `T`s.
pub fn texels<T: bytemuck::Pod>(gpu: &Gpu, texture: &wgpu::Texture) -> Vec<T> {
    let aspect = if texture.format().is_depth_stencil_format() {
        wgpu::TextureAspect::DepthOnly
    } else {
        wgpu::TextureAspect::All
    };
    aspect_texels(gpu, texture, aspect)
}

/// The texels of `aspect` of `texture` (a depth-stencil buffer's stencil,
/// say), tightly packed row by row, as `T`s.
pub fn aspect_texels<T: bytemuck::Pod>(
    gpu: &Gpu,
    texture: &wgpu::Texture,
    aspect: wgpu::TextureAspect,
) -> Vec<T> {
    let encoder = gpu.device.create_command_encoder(&Default::default());
    let bytes = md2_wgpu::support::read_texture(&gpu.device, &gpu.queue, encoder, texture, aspect)
        .expect("read the texture back");
    bytemuck::pod_collect_to_vec(&bytes)
}

/// Every crowd's visible members of `renderer`'s last `prepare_crowds`,
/// waited for.
pub fn visible(gpu: &Gpu, renderer: &Md2Renderer) -> md2_wgpu::gpu::VisibleMembers {
    md2_wgpu::support::wait(
        &gpu.device,
        VisibleMembers::read(renderer, &gpu.device, &gpu.queue),
    )
    .expect("the visible counts read back")
}

/// The visible records `renderer`'s last `prepare_crowds` wrote for crowd
/// `index`, with their buckets, waited for.
pub fn crowd_records(
    gpu: &Gpu,
    renderer: &Md2Renderer,
    index: usize,
) -> Result<Vec<(usize, md2_wgpu::contract::InstanceRecord)>, String> {
    crowd_read_back(
        gpu,
        renderer,
        index,
        md2_wgpu::gpu::low_level::read_crowd_records,
    )
}

/// What `read` (one of `md2_wgpu::gpu::low_level`'s crowd read-backs:
/// `read_crowd_records`, `read_crowd_extras`) reads of crowd `index` from
/// `renderer`'s last `prepare_crowds`, waited for.
pub fn crowd_read_back<F: Future>(
    gpu: &Gpu,
    renderer: &Md2Renderer,
    index: usize,
    read: impl FnOnce(&Md2Renderer, &wgpu::Device, &wgpu::Queue, usize) -> F,
) -> F::Output {
    md2_wgpu::support::wait(&gpu.device, read(renderer, &gpu.device, &gpu.queue, index))
}

pub use crate::cases::{FLOAT_TARGET, record_pose, square_camera};

/// Runs a case of [`cases`](crate::cases) on `gpu`, waited for, and
/// reports what it measured and drew.
pub fn run_case<'g, F: Future<Output = crate::cases::Measured>>(
    gpu: &'g Gpu,
    case: impl FnOnce(&'g wgpu::Device, &'g wgpu::Queue) -> F,
) {
    report(md2_wgpu::support::wait(
        &gpu.device,
        case(&gpu.device, &gpu.queue),
    ));
}

/// Asserts that `a` and `b` are the same picture to the bit, saying
/// `what` and in how many pixels they differ where they do not.
pub fn assert_identical(a: &RgbaImage, b: &RgbaImage, what: &str) {
    let differ = crate::differing_pixels(a, b, 0);
    assert_eq!(differ, 0, "{what}: {differ} pixels differ");
}

/// Logs what a case of [`cases`](crate::cases) measured and saves the
/// pictures it drew (the browser suite logs them on its console).
pub fn report(measured: crate::cases::Measured) {
    for line in &measured.lines {
        eprintln!("{line}");
    }
    for (name, picture) in &measured.pictures {
        crate::save_picture(picture, name);
    }
}

/// `instances` with each one's pose replaced by the pose the crowd drew for
/// the member standing where it stands (the translation of its transform),
/// read back from view `index` of `renderer`'s last `prepare_crowds`. The
/// immediate path then packs the very words the crowd's compute pass
/// wrote, so two pictures can be held to the same pixels; how the GPU's
/// clocks compare with the CPU's is the clock tests' business. Returns how
/// many were replaced.
pub fn with_drawn_poses(
    gpu: &Gpu,
    renderer: &Md2Renderer,
    index: usize,
    instances: &mut [md2_wgpu::Md2Instance],
) -> usize {
    let records = crowd_records(gpu, renderer, index).expect("the crowd's records");
    let mut replaced = 0;
    for instance in instances {
        let at = instance.transform.w_axis.truncate().to_array();
        let drawn = records
            .iter()
            .find(|(_, r)| [r.rows[0][3], r.rows[1][3], r.rows[2][3]] == at);
        if let Some((_, record)) = drawn {
            instance.pose = record_pose(record);
            replaced += 1;
        }
    }
    replaced
}
