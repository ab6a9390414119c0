//! A renderer is one view: a camera, the instances it draws this frame and
//! the resident crowds it culls, drawn into a pass the caller owns with
//! pipelines shared through an [`Md2Cache`].

use std::sync::atomic::{AtomicU64, Ordering};

use glam::Vec3;

use super::batch::{Md2Batch, PackOptions, Packing, Ranges};
use super::cache::{BuiltinKey, Md2Cache};
use super::camera::{Camera, depth_row, view_depth};
use super::crowd::{ARGS, CrowdView, Md2Crowd};
use super::detail::DetailView;
use super::device::{grow, ready_error, write_changed};
use super::effects::PlanarShadow;
use super::error::{PrepareError, PrepareReport, SetupError};
use super::instance::{SHELL, TRANSLUCENT, opaque_at};
use super::material::Md2Material;
use super::model::DrawModel;
use super::options::{ColorOutput, Md2RendererOptions, TranslucentOrder};
use super::pipeline::{Draw, PassKey};
use super::shader::{
    BUCKETS, COUNTED_WORDS, ExtraRecord, FRAME_EXTRA, FRAME_FIRST, FRAME_SORT, InstanceRecord,
    MAX_LEVELS, ViewUniform,
};
use super::visible::{VisibleCounts, VisibleMembers};

const RECORD: u64 = size_of::<InstanceRecord>() as u64;
const EXTRA: u64 = size_of::<ExtraRecord>() as u64;
/// The instance buffer's first size, in records: enough for a small scene
/// without regrowing.
const MIN_INSTANCE_CAPACITY: u64 = 64;

/// What [`Md2Renderer::render_phase`] draws. [`Md2Renderer::render`] draws
/// all four, in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Md2Phase {
    /// Opaque instances (tint alpha 1): lit, skinned, writing depth as the
    /// renderer's [`DepthState`](crate::DepthState) says. A depth-only
    /// renderer draws only this phase. Mirrored and plain instances are two
    /// draws; their order does not show, as the depth test decides each
    /// pixel (up to exactly equal depths, where a strict test keeps the
    /// first drawn: the order is fixed there too, plain before mirrored, in
    /// the order given).
    Opaque,
    /// Planar shadows of the opaque instances, if the view has a
    /// [`PlanarShadow`]: after the opaque world they fall on. Each pixel is
    /// darkened once (the stencil), in one colour, so order does not show.
    Shadows,
    /// Translucent instances (tint alpha below 1), blended, without depth
    /// writes, in the renderer's [`TranslucentOrder`], mirrored or not: one
    /// draw per model.
    Translucent,
    /// Powerup shells, blended over everything, without depth writes, in
    /// the renderer's [`TranslucentOrder`].
    Shells,
}

impl Md2Phase {
    /// Every phase, in the order [`Md2Renderer::render`] draws them.
    pub const ALL: [Md2Phase; 4] = [
        Md2Phase::Opaque,
        Md2Phase::Shadows,
        Md2Phase::Translucent,
        Md2Phase::Shells,
    ];

    /// The buckets (see `Buckets`) whose records this phase draws, each
    /// with whether it binds the reversed index list.
    fn draws(self) -> &'static [(usize, bool)] {
        /// Every level's opaque pair, the mirrored one reversed.
        const OPAQUE_DRAWS: [(usize, bool); 2 * MAX_LEVELS] = {
            let mut draws = [(0, false); 2 * MAX_LEVELS];
            let mut level = 0;
            while level < MAX_LEVELS {
                draws[2 * level] = (opaque_at(level, false), false);
                draws[2 * level + 1] = (opaque_at(level, true), true);
                level += 1;
            }
            draws
        };
        match self {
            Md2Phase::Opaque | Md2Phase::Shadows => &OPAQUE_DRAWS,
            Md2Phase::Translucent => &[(TRANSLUCENT, false)],
            Md2Phase::Shells => &[(SHELL, false)],
        }
    }
}

/// What a renderer's colour passes look like.
#[derive(Clone, Debug)]
enum Look {
    /// Quake II's shading in one target of this format (sRGB-encoded by
    /// the shader or not), and motion vectors in a second where asked.
    Builtin {
        format: wgpu::TextureFormat,
        encode: bool,
        motion: Option<wgpu::TextureFormat>,
    },
    /// The app's material.
    Material(Md2Material),
    /// No colour: depth only.
    DepthOnly,
}

/// The pipelines one renderer draws with, from its cache.
#[derive(Debug)]
struct Pipelines {
    /// Opaque (or depth-only) instances.
    opaque: wgpu::RenderPipeline,
    translucent: Option<wgpu::RenderPipeline>,
    shell: Option<wgpu::RenderPipeline>,
    /// The shadow's, for the stencil masks of the shadow it was built for;
    /// fetched by `prepare` when the shadow's masks change.
    shadow: Option<(Draw, wgpu::RenderPipeline)>,
}

/// One batch of the last `prepare`, as drawn.
#[derive(Debug)]
struct BatchDraw {
    model: DrawModel,
    ranges: Ranges,
}

/// Draws MD2 models, each with any number of independently animated
/// instances, into a render pass you own: one view (a camera and what it
/// draws).
///
/// Per frame: [`prepare`](Md2Renderer::prepare) uploads the camera and the
/// instances (80 bytes an instance; the camera only when it changed),
/// [`prepare_crowds`](Md2Renderer::prepare_crowds) records the resident
/// crowds' compute passes, then [`render`](Md2Renderer::render) records the
/// draws into your pass: per model one instanced draw, and one more for each
/// effect in use (mirrored opaque instances, shadows, translucency, shells).
///
/// Several views in one frame (split screen, a minimap, shadow cascades)
/// are several renderers sharing one [`Md2Cache`]: each has its own camera
/// and instances, so all of them can be prepared before a single submit.
///
/// The same inputs give the same pixels: every draw's order is fixed by
/// the inputs (see [`Md2Phase`] and [`TranslucentOrder`]), on both paths.
///
/// ```no_run
/// # fn frame(device: &wgpu::Device, queue: &wgpu::Queue, view: &wgpu::TextureView,
/// #          model: &md2_wgpu::Md2Model) -> Result<(), Box<dyn std::error::Error>> {
/// use md2_wgpu::{Camera, FrameLerp, GpuModel, Md2Batch, Md2Instance, Md2Renderer, Md2RendererOptions};
/// let format = wgpu::TextureFormat::Rgba8UnormSrgb;
/// let mut renderer = Md2Renderer::new(device, format, Md2RendererOptions::DEFAULT)?;
/// let gpu_model = GpuModel::new(device, queue, &renderer, model, &[])?;
/// let instances = [Md2Instance::new(glam::Mat4::IDENTITY, FrameLerp::still(0))];
/// let camera = Camera::framing_model(model, 1.0);
/// renderer.prepare(device, queue, &camera, &[Md2Batch::new(&gpu_model, &instances)])?;
/// let mut encoder = device.create_command_encoder(&Default::default());
/// {
///     let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
///         color_attachments: &[Some(wgpu::RenderPassColorAttachment {
///             view,
///             depth_slice: None,
///             resolve_target: None,
///             ops: wgpu::Operations::default(),
///         })],
///         ..Default::default()
///     });
///     renderer.render(&mut pass);
/// }
/// queue.submit([encoder.finish()]);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Md2Renderer {
    cache: Md2Cache,
    look: Look,
    /// The material's own bind group (group 2), where it has one.
    material_group: Option<wgpu::BindGroup>,
    options: Md2RendererOptions,
    output: ColorOutput,
    pipelines: Pipelines,
    view_buffer: wgpu::Buffer,
    view_group: wgpu::BindGroup,
    /// The view uniform alone, for the crowds' compute passes.
    crowd_camera_group: wgpu::BindGroup,
    /// What the view buffer holds, so an unchanged camera is not rewritten.
    view_written: Option<ViewUniform>,
    shadow: Option<PlanarShadow>,
    instance_buffer: Option<wgpu::Buffer>,
    /// The extra records (previous transform and pose, index, id), parallel
    /// to the instance records, where the renderer keeps them.
    extra_buffer: Option<wgpu::Buffer>,
    /// The records of the last `prepare`, kept to reuse the memory.
    packing: Packing,
    /// The camera of the last `prepare`: the previous frame's, for motion.
    previous_view_proj: Option<glam::Mat4>,
    /// The crowds' time of the last `prepare_crowds`, in ticks, where the
    /// renderer draws motion.
    previous_crowd_time: Option<i64>,
    batches: Vec<BatchDraw>,
    crowds: Vec<CrowdView>,
    /// Last frame's crowd views, kept to reuse the memory of the list.
    spare_crowds: Vec<CrowdView>,
    /// The crowds' per-view uniform (the time), made on first use.
    crowd_frame: Option<wgpu::Buffer>,
    crowd_frame_written: Option<super::shader::CrowdFrame>,
    /// Visible-member counts read back without waiting, once asked for.
    counts: Option<VisibleCounts>,
    uploaded: u64,
    /// Draw calls recorded by `render`/`render_phase` since the last
    /// `prepare`, for tests that count them.
    recorded: AtomicU64,
}

// The renderer lives wherever the application's render state lives,
// including other threads.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Md2Renderer>();
    send_sync::<Md2Cache>();
    send_sync::<super::model::GpuModel>();
    send_sync::<Md2Crowd>();
};

impl AsRef<Md2Cache> for Md2Renderer {
    fn as_ref(&self) -> &Md2Cache {
        &self.cache
    }
}

impl Md2Renderer {
    /// A renderer for passes with this colour format and `options`, with a
    /// cache of its own. Use [`Md2Renderer::with_cache`] for a second view,
    /// [`Md2Renderer::depth_only`] for a pass without colour.
    ///
    /// Fails if the device lacks what [`required_limits`](crate::required_limits)
    /// lists, or the options contradict the format.
    pub fn new(
        device: &wgpu::Device,
        color_format: wgpu::TextureFormat,
        options: Md2RendererOptions,
    ) -> Result<Md2Renderer, SetupError> {
        Md2Renderer::with_cache(device, &Md2Cache::new(device)?, color_format, options)
    }

    /// A renderer sharing `cache`'s shaders and pipelines (pass the cache,
    /// or a renderer, which has one): a new view costs a uniform and an
    /// instance buffer, not a shader compile.
    pub fn with_cache(
        device: &wgpu::Device,
        cache: &impl AsRef<Md2Cache>,
        color_format: wgpu::TextureFormat,
        options: Md2RendererOptions,
    ) -> Result<Md2Renderer, SetupError> {
        let output = options.output.resolve(color_format);
        if output == ColorOutput::SrgbEncoded && color_format.is_srgb() {
            return Err(SetupError::EncodedTwice {
                format: color_format,
            });
        }
        let look = Look::Builtin {
            format: color_format,
            encode: output == ColorOutput::SrgbEncoded,
            motion: options.motion_target,
        };
        Md2Renderer::build(device, cache.as_ref(), look, output, options)
    }

    /// A renderer whose colour passes run the app's `material` (see
    /// [`Md2Material`]): its fragment code, colour targets and bind group
    /// (set with [`Md2Renderer::set_material_bind_group`]), with the
    /// crate's vertex stage, depth state, multisampling and culling from
    /// `options` (`output` and `motion_target` are the material's business
    /// and ignored). Every pass draws the animated pose: opaque,
    /// translucent, shells, planar shadows.
    pub fn with_material(
        device: &wgpu::Device,
        cache: &impl AsRef<Md2Cache>,
        material: &Md2Material,
        options: Md2RendererOptions,
    ) -> Result<Md2Renderer, SetupError> {
        let look = Look::Material(material.clone());
        Md2Renderer::build(device, cache.as_ref(), look, ColorOutput::Linear, options)
    }

    /// A renderer for a pass without colour (a shadow map, a depth
    /// pre-pass), sharing `cache`: it draws only opaque instances, positions
    /// only, and `options.depth` is required.
    pub fn depth_only(
        device: &wgpu::Device,
        cache: &impl AsRef<Md2Cache>,
        options: Md2RendererOptions,
    ) -> Result<Md2Renderer, SetupError> {
        if options.depth.is_none() {
            return Err(SetupError::NothingToDraw);
        }
        Md2Renderer::build(
            device,
            cache.as_ref(),
            Look::DepthOnly,
            ColorOutput::Linear,
            options,
        )
    }

    fn build(
        device: &wgpu::Device,
        cache: &Md2Cache,
        look: Look,
        output: ColorOutput,
        options: Md2RendererOptions,
    ) -> Result<Md2Renderer, SetupError> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let fetch = |draw| fetch_pipeline(device, cache, &look, &options, draw);
        let pipelines = match look {
            Look::DepthOnly => Pipelines {
                opaque: fetch(Draw::DepthOnly)?,
                translucent: None,
                shell: None,
                shadow: None,
            },
            _ => Pipelines {
                opaque: fetch(Draw::Opaque)?,
                translucent: Some(fetch(Draw::Translucent)?),
                shell: Some(fetch(Draw::Shell)?),
                shadow: None,
            },
        };
        let view_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu view"),
            size: size_of::<ViewUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let view_group = cache.view_group(device, &view_buffer);
        let crowd_camera_group = cache.crowd_camera_group(device, &view_buffer);
        if let Some(message) = ready_error(scope.pop()) {
            return Err(SetupError::Device {
                operation: "building the renderer's pipelines",
                message,
            });
        }
        Ok(Md2Renderer {
            cache: cache.clone(),
            look,
            material_group: None,
            options,
            output,
            pipelines,
            view_buffer,
            view_group,
            crowd_camera_group,
            view_written: None,
            shadow: None,
            instance_buffer: None,
            extra_buffer: None,
            packing: Packing::default(),
            previous_view_proj: None,
            previous_crowd_time: None,
            batches: Vec::new(),
            crowds: Vec::new(),
            spare_crowds: Vec::new(),
            crowd_frame: None,
            crowd_frame_written: None,
            counts: None,
            uploaded: 0,
            recorded: AtomicU64::new(0),
        })
    }

    /// The cache this renderer draws with (share it with the next view).
    pub fn cache(&self) -> &Md2Cache {
        &self.cache
    }

    /// The (first) colour format the pipelines were built for; `None` for a
    /// depth-only renderer.
    pub fn color_format(&self) -> Option<wgpu::TextureFormat> {
        match &self.look {
            Look::Builtin { format, .. } => Some(*format),
            Look::Material(material) => material.targets().first().map(|t| t.format),
            Look::DepthOnly => None,
        }
    }

    /// Every colour target the passes write, in location order: the
    /// built-in look's (and its motion target), or the material's.
    pub fn color_targets(&self) -> Vec<wgpu::TextureFormat> {
        match &self.look {
            Look::Builtin { format, motion, .. } => {
                std::iter::once(*format).chain(*motion).collect()
            }
            Look::Material(material) => material.targets().iter().map(|t| t.format).collect(),
            Look::DepthOnly => Vec::new(),
        }
    }

    /// The material the colour passes run, if any.
    pub fn material(&self) -> Option<&Md2Material> {
        match &self.look {
            Look::Material(material) => Some(material),
            _ => None,
        }
    }

    /// The material's own bind group (group [`Md2Material::GROUP`]), bound
    /// by every draw. Required before `prepare` where the material has a
    /// bind group layout.
    pub fn set_material_bind_group(&mut self, group: Option<wgpu::BindGroup>) {
        self.material_group = group;
    }

    /// Whether the draws read the extra record (previous transform and
    /// pose, index, id): for motion vectors, and for a material that reads
    /// them.
    fn extra(&self) -> bool {
        match &self.look {
            Look::Builtin { motion, .. } => motion.is_some(),
            Look::Material(material) => material.reads_extra(),
            Look::DepthOnly => false,
        }
    }

    /// The options the pipelines were built with.
    pub fn options(&self) -> Md2RendererOptions {
        self.options
    }

    /// What the colour output means, `Auto` resolved for the format.
    pub fn output(&self) -> ColorOutput {
        self.output
    }

    /// How many instance records the instance buffer holds before it must
    /// grow.
    pub fn instance_capacity(&self) -> u64 {
        self.instance_buffer
            .as_ref()
            .map_or(0, |b| b.size() / RECORD)
    }

    /// Bytes the last [`prepare`](Md2Renderer::prepare) and
    /// [`prepare_crowds`](Md2Renderer::prepare_crowds) wrote to the GPU (the
    /// camera when it changed, instance records, crowd changes, the crowds'
    /// clock).
    pub fn uploaded_bytes(&self) -> u64 {
        self.uploaded
    }

    /// Planar shadows for this view's opaque instances (Quake II's
    /// `gl_shadows`), or none. They need a depth format with a stencil
    /// aspect; see [`ShadowStencil`](crate::ShadowStencil) for how they use
    /// it. Takes effect at the next `prepare`. A depth-only renderer draws
    /// no shadows, and accepts any.
    pub fn set_shadow(&mut self, shadow: Option<PlanarShadow>) -> Result<(), SetupError> {
        let stencil = self.options.depth.is_some_and(|d| d.has_stencil());
        if shadow.is_some() && !stencil && self.color_format().is_some() {
            return Err(SetupError::ShadowsNeedStencil {
                depth_format: self.options.depth.map(|d| d.format),
            });
        }
        self.shadow = shadow;
        Ok(())
    }

    /// The planar shadow this view draws, if any.
    pub fn shadow(&self) -> Option<PlanarShadow> {
        self.shadow
    }

    /// The view depth of the world point `point` as this renderer sorts by
    /// it ([`TranslucentOrder::BackToFront`]), larger farther: for a
    /// perspective camera the distance along the line of sight (clip-space
    /// `w`), for an orthographic one the clip-space depth (negated for a
    /// reverse-Z [`DepthState`](crate::DepthState)).
    pub fn view_depth(&self, camera: &Camera, point: Vec3) -> f32 {
        view_depth(depth_row(&camera.view_proj, self.reverse_z()), point)
    }

    /// Whether nearer is greater in this renderer's depth test.
    fn reverse_z(&self) -> bool {
        self.options.depth.is_some_and(|d| {
            matches!(
                d.compare,
                wgpu::CompareFunction::Greater | wgpu::CompareFunction::GreaterEqual
            )
        })
    }

    /// Uploads what the next [`render`](Md2Renderer::render) draws: the
    /// camera, and every batch's instances.
    ///
    /// Every instance is checked first. A frame or skin the model does not
    /// have, or a value that is not finite, is handled as the renderer's
    /// [`InstancePolicy`](crate::InstancePolicy) says: under `Strict` it is
    /// an error naming the batch, the instance and the value, and nothing is
    /// drawn until the next successful `prepare`; under `Skip` and `Clamp`
    /// the returned report counts the bad instances and names the first
    /// few. The instance buffer grows geometrically and is reused; with a
    /// stable instance count no memory is allocated, on the CPU or the GPU.
    ///
    /// Call it once per view per queue submission. The camera is a uniform
    /// that every draw of the submission reads as the queue last wrote it,
    /// so a second `prepare` of the same renderer before the submit gives
    /// every draw the second camera: the draws the first `render` recorded
    /// then show the second camera with the second batches' instances, or,
    /// where the second call had to grow the instance buffer, with the first
    /// batches' instances (they read the old buffer). Use one renderer per
    /// view (they share a cache); other renderers are independent.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        camera: &Camera,
        batches: &[Md2Batch<'_>],
    ) -> Result<PrepareReport, PrepareError> {
        self.batches.clear();
        self.uploaded = 0;
        self.recorded.store(0, Ordering::Relaxed);
        self.fit_shadow_pipeline(device)?;
        if self
            .material()
            .is_some_and(|m| m.has_bind_group() && self.material_group.is_none())
        {
            return Err(PrepareError::MaterialBindGroupMissing);
        }
        let mut report = PrepareReport::default();
        let options = PackOptions {
            policy: self.options.policy,
            back_to_front: (self.options.translucent_order == TranslucentOrder::BackToFront)
                .then(|| depth_row(&camera.view_proj, self.reverse_z())),
            extras: self.extra(),
            detail: DetailView {
                w_row: camera.view_proj.row(3).to_array(),
                scale: camera.detail_scale(self.options.lod_error_pixels),
            },
        };
        let ranges = self.packing.pack(batches, options, &mut report)?;
        for r in &ranges {
            for (bucket, &count) in r.count.iter().enumerate().take(SHELL) {
                report.levels[r.level(bucket)] += count as usize;
            }
        }
        let records = self.packing.records.len() as u64;
        let bytes = records * RECORD;
        let max_buffer_size = device.limits().max_buffer_size;
        if bytes > max_buffer_size || u32::try_from(records).is_err() {
            return Err(PrepareError::TooManyInstances {
                instances: self.packing.records.len(),
                bytes,
                limit: max_buffer_size,
            });
        }
        if records > 0 {
            let buffer = grow_buffer(
                device,
                &mut self.instance_buffer,
                "md2-wgpu instances",
                bytes,
                RECORD,
            )?;
            queue.write_buffer(buffer, 0, bytemuck::cast_slice(&self.packing.records));
            self.uploaded += bytes;
            if options.extras {
                let buffer = grow_buffer(
                    device,
                    &mut self.extra_buffer,
                    "md2-wgpu extra instance records",
                    records * EXTRA,
                    EXTRA,
                )?;
                queue.write_buffer(buffer, 0, bytemuck::cast_slice(&self.packing.extras));
                self.uploaded += records * EXTRA;
            }
        }
        for (batch, ranges) in batches.iter().zip(ranges) {
            if ranges.count.iter().any(|&c| c > 0) {
                self.batches.push(BatchDraw {
                    model: batch.model.draw_model(),
                    ranges,
                });
            }
        }
        self.write_view(queue, camera);
        Ok(report)
    }

    /// The shadow pipeline for the current shadow's stencil masks, fetched
    /// when they changed.
    fn fit_shadow_pipeline(&mut self, device: &wgpu::Device) -> Result<(), PrepareError> {
        let Some(shadow) = self.shadow.filter(|_| self.color_format().is_some()) else {
            return Ok(());
        };
        let draw = Draw::Shadow {
            read_mask: shadow.stencil.read_mask,
            write_mask: shadow.stencil.write_mask,
        };
        if self
            .pipelines
            .shadow
            .as_ref()
            .is_some_and(|(d, _)| *d == draw)
        {
            return Ok(());
        }
        let pipeline = fetch_pipeline(device, &self.cache, &self.look, &self.options, draw)
            .map_err(PrepareError::Setup)?;
        self.pipelines.shadow = Some((draw, pipeline));
        Ok(())
    }

    /// The shadow pipeline and stencil reference to draw shadows with, if
    /// this view draws them.
    fn shadow_draw(&self) -> Option<(&wgpu::RenderPipeline, u32)> {
        let shadow = self.shadow?;
        let (_, pipeline) = self.pipelines.shadow.as_ref()?;
        Some((pipeline, shadow.stencil.reference))
    }

    /// Writes the view uniform where it changed: the camera matrix alone
    /// (the common case, 64 bytes), or all of it.
    /// The camera, the previous frame's camera and the light, with the
    /// view's shadow plane. The changed words only: a moving camera changes
    /// the matrices (and the jitter), which lie first, 144 bytes; a still
    /// one nothing.
    fn write_view(&mut self, queue: &wgpu::Queue, camera: &Camera) {
        let shadow = self.shadow.filter(|_| self.shadow_draw().is_some());
        let previous = self.previous_view_proj.unwrap_or(camera.view_proj);
        self.previous_view_proj = Some(camera.view_proj);
        let uniform = camera.uniform(
            shadow.as_ref(),
            self.reverse_z(),
            previous,
            self.options.lod_error_pixels,
        );
        self.uploaded += write_changed(
            queue,
            &self.view_buffer,
            self.view_written.as_ref(),
            &uniform,
        );
        self.view_written = Some(uniform);
    }

    /// Forgets the previous frame: the next frame takes its camera, and its
    /// crowds' members, to have been where they are now, so the motion
    /// vectors show no motion (after a cut, or a jump of the clock).
    pub fn reset_motion(&mut self) {
        self.previous_view_proj = None;
        self.previous_crowd_time = None;
    }

    /// Records the resident crowds' compute passes into `encoder`: for each
    /// crowd, every member's clocks at `time` (seconds on the crowds' clock)
    /// and its culling against this view's camera, laying the visible ones
    /// out in member order (or sorted, for
    /// [`TranslucentOrder::BackToFront`]) for what
    /// [`render`](Md2Renderer::render) draws with one indirect draw per
    /// model and bucket. Changes to the crowds (adds, removes, edits) are
    /// uploaded first, only the bytes that changed.
    ///
    /// `crowds` is any collection of them: `[&mut crowd]`, or
    /// `crowds.iter_mut()` over the app's own `Vec<Md2Crowd>` (nothing is
    /// allocated per frame). They replace those of the previous call, and
    /// are drawn in the order given.
    ///
    /// Call it before the render pass, with the encoder whose pass draws
    /// this view (or any encoder submitted before it). It may come before
    /// or after [`prepare`](Md2Renderer::prepare): the compute passes read
    /// the camera when the GPU runs them, so both orders draw the same
    /// picture. Per frame the CPU writes the time (16 bytes) and whatever
    /// changed, however large the crowds.
    pub fn prepare_crowds<'c>(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        time: f64,
        crowds: impl IntoIterator<Item = &'c mut Md2Crowd>,
    ) -> Result<(), PrepareError> {
        let now = crate::anim::clock::to_ticks(time).ok_or(PrepareError::TimeNotFinite { time })?;
        let sort = self.options.translucent_order == TranslucentOrder::BackToFront;
        let extra = self.extra();
        let mut flags = if sort { FRAME_SORT } else { 0 };
        // The previous frame's time matters only where motion is drawn.
        let previous = match (extra, self.previous_crowd_time) {
            (false, _) => 0,
            (true, Some(previous)) => previous,
            (true, None) => {
                flags |= FRAME_EXTRA | FRAME_FIRST;
                now
            }
        };
        if extra {
            flags |= FRAME_EXTRA;
            self.previous_crowd_time = Some(now);
        }
        let split = |ticks: i64| [ticks as u32, (ticks as u64 >> 32) as u32];
        let frame = super::shader::CrowdFrame {
            now: split(now),
            flags,
            previous: split(previous),
            ..Default::default()
        };
        let frame_buffer = self.crowd_frame.get_or_insert_with(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("md2-wgpu crowd frame"),
                size: size_of::<super::shader::CrowdFrame>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        self.uploaded += write_changed(
            queue,
            frame_buffer,
            self.crowd_frame_written.as_ref(),
            &frame,
        );
        self.crowd_frame_written = Some(frame);
        let frame_buffer = frame_buffer.clone();
        let mut views = std::mem::take(&mut self.spare_crowds);
        views.clear();
        for crowd in crowds {
            self.uploaded += crowd.flush(device, queue, time, extra)?;
            let view = match self.crowds.iter().position(|v| v.crowd_id() == crowd.id()) {
                Some(i) => self.crowds.swap_remove(i),
                None => CrowdView::new(crowd, sort, extra),
            };
            let (view, written) = view.fit(device, queue, &self.cache, crowd, &frame_buffer)?;
            self.uploaded += written;
            views.push(view);
        }
        self.spare_crowds = std::mem::replace(&mut self.crowds, views);
        let pipelines = self.cache.crowd_pipelines(device);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("md2-wgpu crowd pass"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &self.crowd_camera_group, &[]);
            for view in &self.crowds {
                view.record(&mut pass, pipelines);
            }
        }
        if let Some(counts) = &mut self.counts {
            counts.record(device, encoder, &self.crowds);
        }
        Ok(())
    }

    /// Records every phase of the last `prepare` (and `prepare_crowds`):
    /// opaque instances, shadows, translucent instances, shells. Records
    /// nothing when there is nothing to draw. The pass must match the colour
    /// format and options the renderer was built with.
    pub fn render(&self, pass: &mut wgpu::RenderPass<'_>) {
        for phase in Md2Phase::ALL {
            self.render_phase(pass, phase);
        }
    }

    /// Records one phase: for apps that draw their own geometry between
    /// ours (their translucent surfaces between our opaque and translucent
    /// instances, say). Each phase is one draw per model and crowd (two for
    /// opaque instances and shadows where some are mirrored), whatever the
    /// number of instances. The shadow phase sets the pass's stencil
    /// reference (see [`ShadowStencil`](crate::ShadowStencil)).
    pub fn render_phase(&self, pass: &mut wgpu::RenderPass<'_>, phase: Md2Phase) {
        let mut reference = None;
        let pipeline = match phase {
            Md2Phase::Opaque => Some(&self.pipelines.opaque),
            Md2Phase::Shadows => self.shadow_draw().map(|(pipeline, r)| {
                reference = Some(r);
                pipeline
            }),
            Md2Phase::Translucent => self.pipelines.translucent.as_ref(),
            Md2Phase::Shells => self.pipelines.shell.as_ref(),
        };
        let Some(pipeline) = pipeline else {
            return;
        };
        let draws = phase.draws();
        let immediate = self.instance_buffer.as_ref().filter(|_| {
            self.batches
                .iter()
                .any(|b| draws.iter().any(|&(k, _)| b.ranges.count[k] > 0))
        });
        let crowds = self
            .crowds
            .iter()
            .any(|v| draws.iter().any(|&(k, _)| v.draws_any(k)));
        if immediate.is_none() && !crowds {
            return;
        }
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &self.view_group, &[]);
        if let Some(group) = &self.material_group {
            pass.set_bind_group(Md2Material::GROUP, group, &[]);
        }
        if let Some(reference) = reference {
            pass.set_stencil_reference(reference);
        }
        if let Some(instances) = immediate {
            let records = Records {
                instances,
                extras: self.extra_buffer.as_ref().filter(|_| self.extra()),
            };
            for batch in &self.batches {
                let r = &batch.ranges;
                if phase == Md2Phase::Shadows {
                    // Shadows are not culled, so both opaque buckets of a
                    // level (which lie side by side) are one draw with
                    // either winding.
                    for level in 0..MAX_LEVELS {
                        let (plain, mirrored) = (opaque_at(level, false), opaque_at(level, true));
                        let count = r.count[plain] + r.count[mirrored];
                        let draw = InstancedDraw {
                            first: r.first[plain],
                            count,
                            level,
                            reversed: false,
                        };
                        self.count_draws(records.draw(pass, &batch.model, draw));
                    }
                    continue;
                }
                for &(bucket, reversed) in draws {
                    let draw = InstancedDraw {
                        first: r.first[bucket],
                        count: r.count[bucket],
                        level: r.level(bucket),
                        reversed,
                    };
                    self.count_draws(records.draw(pass, &batch.model, draw));
                }
            }
        }
        for view in &self.crowds {
            for &(bucket, reversed) in draws {
                self.count_draws(view.draw(pass, bucket, reversed));
            }
        }
    }

    fn count_draws(&self, draws: u64) {
        self.recorded.fetch_add(draws, Ordering::Relaxed);
    }

    /// Draw calls `render` and `render_phase` recorded since the last
    /// `prepare`, for tests that hold the count flat.
    #[doc(hidden)]
    pub fn recorded_draws(&self) -> u64 {
        self.recorded.load(Ordering::Relaxed)
    }

    /// How many crowd members the last submitted
    /// [`prepare_crowds`](Md2Renderer::prepare_crowds) found in view, crowd
    /// by crowd (in the order given). It reads the draw arguments back, so
    /// it waits for the GPU: for tests and tools. An app that wants the
    /// counts every frame uses [`Md2Renderer::recent_visible_members`],
    /// which never waits.
    pub fn visible_members(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<u32>, PrepareError> {
        self.read_counts(device, queue, VisibleCounts::visible)
    }

    /// Of [`Md2Renderer::visible_members`], how many were drawn at each
    /// level of detail, crowd by crowd, full detail first (translucent
    /// members at the level their bucket was drawn at). Waits for the GPU,
    /// as `visible_members` does; [`Md2Renderer::recent_visible_members`]
    /// has the same without waiting.
    pub fn visible_members_per_level(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<[u32; MAX_LEVELS]>, PrepareError> {
        self.read_counts(device, queue, VisibleCounts::per_level)
    }

    /// Reads every crowd view's counted words back (waiting) and makes
    /// `count` of each.
    fn read_counts<T: Default>(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        count: fn(&[u32]) -> T,
    ) -> Result<Vec<T>, PrepareError> {
        let mut out = Vec::with_capacity(self.crowds.len());
        for view in &self.crowds {
            let Some((_, work, _)) = view.buffers() else {
                out.push(T::default());
                continue;
            };
            let encoder = device.create_command_encoder(&Default::default());
            let bytes = super::headless::read_buffer(
                device,
                queue,
                encoder,
                work,
                0,
                4 * u64::from(COUNTED_WORDS),
            )
            .map_err(|message| PrepareError::Device {
                operation: "reading the crowd's draw arguments back",
                message,
            })?;
            out.push(count(bytemuck::cast_slice(&bytes)));
        }
        Ok(out)
    }

    /// The visible-member counts of a recent frame, without waiting for the
    /// GPU: `None` until one is ready.
    ///
    /// The first call starts the counting: from then on every
    /// [`prepare_crowds`](Md2Renderer::prepare_crowds) copies its crowds'
    /// draw arguments (80 bytes a crowd) into one of a few small read-back
    /// buffers, maps the copy of an earlier, submitted frame, and this call
    /// returns the newest one mapped so far (typically two or three frames
    /// old). Mapping completes as the device is polled; native wgpu polls
    /// at every submit, an app that submits every frame need do nothing.
    /// Each count comes with the number of the `prepare_crowds` call it is
    /// from (counted from 1), so the app sees how old it is.
    pub fn recent_visible_members(&mut self, device: &wgpu::Device) -> Option<VisibleMembers> {
        match &mut self.counts {
            Some(counts) => counts.latest(device),
            None => {
                self.counts = Some(VisibleCounts::default());
                None
            }
        }
    }

    /// Every visible record the last `prepare_crowds` wrote for crowd
    /// `index` (in the order given), read back with its bucket: for tests
    /// that compare the GPU's clocks and culling with the CPU. Submits and
    /// waits.
    #[doc(hidden)]
    pub fn read_crowd_records(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        index: usize,
    ) -> Result<Vec<(usize, InstanceRecord)>, String> {
        self.read_crowd(device, queue, index, false)
    }

    /// The extra records (previous transform and pose, index, id) beside
    /// [`read_crowd_records`](Md2Renderer::read_crowd_records)' records, in
    /// the same order, for a renderer that keeps them.
    #[doc(hidden)]
    pub fn read_crowd_extras(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        index: usize,
    ) -> Result<Vec<(usize, ExtraRecord)>, String> {
        if !self.extra() {
            return Err("this renderer keeps no extra records".into());
        }
        let records = self.read_crowd::<InstanceRecord>(device, queue, index, true)?;
        Ok(records
            .into_iter()
            .map(|(bucket, r)| (bucket, bytemuck::cast(r)))
            .collect())
    }

    fn read_crowd<T: bytemuck::Pod>(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        index: usize,
        extras: bool,
    ) -> Result<Vec<(usize, T)>, String> {
        let view = self.crowds.get(index).ok_or("no such crowd")?;
        let Some((records, work, bases)) = view.buffers() else {
            return Ok(Vec::new());
        };
        let offset = if extras { view.extra_base() } else { 0 };
        let encoder = device.create_command_encoder(&Default::default());
        let args =
            super::headless::read_buffer(device, queue, encoder, work, 0, ARGS * BUCKETS as u64)?;
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&args);
        let mut out = Vec::new();
        for (bucket, &base) in bases.iter().enumerate() {
            let count = u64::from(words[bucket * 5 + 1]);
            if count == 0 {
                continue;
            }
            let encoder = device.create_command_encoder(&Default::default());
            let bytes = super::headless::read_buffer(
                device,
                queue,
                encoder,
                records,
                (offset + u64::from(base)) * RECORD,
                count * RECORD,
            )?;
            let got: Vec<T> = bytemuck::pod_collect_to_vec(&bytes);
            out.extend(got.into_iter().map(|r| (bucket, r)));
        }
        Ok(out)
    }

    /// The view's bind group (group 0: the view uniform, the normal table,
    /// the sampler), for the crowd benchmark's baselines, which draw with
    /// this very camera.
    #[doc(hidden)]
    pub fn view_bind_group(&self) -> &wgpu::BindGroup {
        &self.view_group
    }

    /// The records the last `prepare` wrote, batch after batch (a batch of
    /// opaque, unmirrored, shell-less instances in the order given), for the
    /// crowd benchmark's baselines, which draw the crate's own records.
    #[doc(hidden)]
    pub fn instance_buffer(&self) -> Option<&wgpu::Buffer> {
        self.instance_buffer.as_ref()
    }
}

/// The pipeline of `draw` for a renderer with this look and options: the
/// cache's built-in one, or the material's.
fn fetch_pipeline(
    device: &wgpu::Device,
    cache: &Md2Cache,
    look: &Look,
    options: &Md2RendererOptions,
    draw: Draw,
) -> Result<wgpu::RenderPipeline, SetupError> {
    let pass = PassKey {
        multisample: options.multisample,
        depth: options.depth.map(Into::into),
        cull_back_faces: options.cull_back_faces,
        draw,
    };
    match look {
        Look::Builtin {
            format,
            encode,
            motion,
        } => Ok(cache.pipeline(
            device,
            BuiltinKey {
                color: Some((*format, *encode)),
                motion: *motion,
                pass,
            },
        )),
        Look::DepthOnly => Ok(cache.pipeline(
            device,
            BuiltinKey {
                color: None,
                motion: None,
                pass,
            },
        )),
        Look::Material(material) => material.pipeline(device, pass),
    }
}

/// Makes `slot` a buffer of at least `bytes` (growing it to the next power
/// of two, so a growing crowd reallocates a logarithmic number of times),
/// for records of `stride` bytes, and returns it.
fn grow_buffer<'b>(
    device: &wgpu::Device,
    slot: &'b mut Option<wgpu::Buffer>,
    label: &str,
    bytes: u64,
    stride: u64,
) -> Result<&'b wgpu::Buffer, PrepareError> {
    if slot.as_ref().is_none_or(|b| b.size() < bytes) {
        let max = device.limits().max_buffer_size;
        *slot = None;
        let buffer = grow(
            device,
            label,
            bytes,
            MIN_INSTANCE_CAPACITY * stride,
            max / stride * stride,
            wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        )
        .map_err(|message| PrepareError::Device {
            operation: "growing an instance buffer",
            message,
        })?;
        *slot = Some(buffer);
    }
    Ok(slot.as_ref().expect("made above"))
}

/// The immediate path's records on the GPU: the instance records and,
/// where the renderer keeps them, the extra records beside them.
struct Records<'b> {
    instances: &'b wgpu::Buffer,
    extras: Option<&'b wgpu::Buffer>,
}

/// One instanced draw of the immediate path: `count` records from `first`,
/// at level of detail `level`, with the reversed index list where
/// `reversed`.
struct InstancedDraw {
    first: u32,
    count: u32,
    level: usize,
    reversed: bool,
}

impl Records<'_> {
    /// Records `draw`; returns how many draws it recorded (0 or 1).
    fn draw(&self, pass: &mut wgpu::RenderPass<'_>, model: &DrawModel, draw: InstancedDraw) -> u64 {
        if draw.count == 0 {
            return 0;
        }
        let (first, count) = (u64::from(draw.first), u64::from(draw.count));
        model.bind(pass, draw.reversed);
        let records = first * RECORD..(first + count) * RECORD;
        pass.set_vertex_buffer(1, self.instances.slice(records));
        if let Some(extras) = self.extras {
            pass.set_vertex_buffer(2, extras.slice(first * EXTRA..(first + count) * EXTRA));
        }
        pass.draw_indexed(model.indices_at(draw.level), 0, 0..count as u32);
        1
    }
}
