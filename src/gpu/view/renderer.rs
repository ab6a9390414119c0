//! A renderer is one view: a camera, the instances it draws this frame and
//! the resident crowds it culls, drawn into a pass the caller owns with
//! pipelines shared through an [`Md2Cache`].

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::Vec3;

use super::batch::Md2Batch;
use super::immediate::Immediate;
use super::look::{Look, Pipelines};
use super::options::{ColorOutput, Md2RendererOptions};
use super::packing::PackOptions;
use super::phase::Md2Phase;
use super::view_buffer::ViewBuffer;
use crate::contract::LevelView;
use crate::gpu::crowd::Md2Crowd;
use crate::gpu::crowd::counts::VisibleMembers;
use crate::gpu::crowd::views::{CrowdViews, ViewKind};
use crate::gpu::device::buffers::caught;
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::device::material::Md2Material;
use crate::gpu::device::submit::Submit;
use crate::gpu::error::{PrepareError, PrepareReport, SetupError};
use crate::scene::{Camera, PlanarShadow, TranslucentOrder, depth_row};

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
/// use md2_wgpu::{Camera, GpuModel, Md2Instance, Md2Renderer, Md2RendererOptions, anim::FrameLerp, gpu::Md2Batch};
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
    options: Md2RendererOptions,
    output: ColorOutput,
    /// The immediate path's pipelines.
    pipelines: Pipelines,
    /// The resident crowds' pipelines, made by the first `prepare_crowds`.
    resident: Option<Pipelines>,
    view: ViewBuffer,
    shadow: Option<PlanarShadow>,
    immediate: Immediate,
    crowds: CrowdViews,
    /// Bytes the last `prepare` and `prepare_crowds` wrote.
    uploaded: u64,
    /// Draw calls recorded by `render`/`render_phase` since the last
    /// `prepare`, for tests that count them.
    recorded: AtomicU64,
    /// A `prepare` or `prepare_crowds` was refused since the last
    /// successful `prepare`: `render` records nothing.
    refused: bool,
}

// The renderer lives wherever the application's render state lives,
// including other threads. (wgpu's web types are not Send: the browser
// build, which has one thread, goes without the promise.)
#[cfg(not(target_arch = "wasm32"))]
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Md2Renderer>();
    send_sync::<Md2Cache>();
    send_sync::<crate::gpu::GpuModel>();
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
    /// Fails if the device lacks what [`required_limits`](crate::gpu::required_limits)
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
        let look = Look::Material {
            material: material.clone(),
            group: None,
        };
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
        cache.check_setup("building a renderer")?;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipelines = Pipelines::new(device, cache, &look, &options, false)?;
        let view = ViewBuffer::new(device, cache).map_err(|message| SetupError::Device {
            operation: "building a renderer",
            message,
        })?;
        if let Some(message) = crate::gpu::device::buffers::ready_error(scope.pop()) {
            return Err(SetupError::Device {
                operation: "building the renderer's pipelines",
                message,
            });
        }
        Ok(Md2Renderer {
            cache: cache.clone(),
            look,
            options,
            output,
            pipelines,
            resident: None,
            view,
            shadow: None,
            immediate: Immediate::default(),
            crowds: CrowdViews::default(),
            uploaded: 0,
            recorded: AtomicU64::new(0),
            refused: false,
        })
    }

    /// The cache this renderer draws with (share it with the next view).
    #[deprecated(
        note = "a renderer is `AsRef<Md2Cache>`: pass it where a cache is asked for, or use `renderer.as_ref()`; this method goes in the next release"
    )]
    pub fn cache(&self) -> &Md2Cache {
        &self.cache
    }

    /// The (first) colour format the pipelines were built for; `None` for a
    /// depth-only renderer.
    #[deprecated(
        note = "use `renderer.color_targets().first()`; this method goes in the next release"
    )]
    pub fn color_format(&self) -> Option<wgpu::TextureFormat> {
        self.look.color_format()
    }

    /// Every colour target the passes write, in location order: the
    /// built-in look's (and its motion target), or the material's.
    pub fn color_targets(&self) -> Vec<wgpu::TextureFormat> {
        self.look.color_targets()
    }

    /// The material the colour passes run, if any.
    #[deprecated(
        note = "the app holds the material it made the renderer with; this method goes in the next release"
    )]
    pub fn material(&self) -> Option<&Md2Material> {
        match &self.look {
            Look::Material { material, .. } => Some(material),
            _ => None,
        }
    }

    /// The material's own bind group (group [`Md2Material::GROUP`]), bound
    /// by every draw. Required before `prepare` where the material has a
    /// bind group layout; ignored by a renderer without a material.
    pub fn set_material_bind_group(&mut self, bind_group: Option<wgpu::BindGroup>) {
        if let Look::Material { group, .. } = &mut self.look {
            *group = bind_group;
        }
    }

    /// The options the pipelines were built with.
    pub fn options(&self) -> Md2RendererOptions {
        self.options
    }

    /// What the colour output means, `Auto` resolved for the format.
    #[deprecated(
        note = "use `renderer.options().output.resolve(format)`; this method goes in the next release"
    )]
    pub fn output(&self) -> ColorOutput {
        self.output
    }

    /// How many instance records the instance buffer holds before it must
    /// grow.
    pub fn instance_capacity(&self) -> u64 {
        self.immediate.capacity()
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
    /// aspect; see [`ShadowStencil`](crate::scene::ShadowStencil) for how they use
    /// it. Takes effect at the next `prepare`. A depth-only renderer draws
    /// no shadows, and accepts any.
    pub fn set_shadow(&mut self, shadow: Option<PlanarShadow>) -> Result<(), SetupError> {
        let stencil = self.options.depth.is_some_and(|d| d.has_stencil());
        if shadow.is_some() && !stencil && self.color_targets().first().copied().is_some() {
            return Err(SetupError::ShadowsNeedStencil {
                depth_format: self.options.depth.map(|d| d.format),
            });
        }
        self.shadow = shadow;
        Ok(())
    }

    /// The planar shadow this view draws, if any.
    #[deprecated(note = "the app holds the shadow it set; this method goes in the next release")]
    pub fn shadow(&self) -> Option<PlanarShadow> {
        self.shadow
    }

    /// Deprecated: [`Md2RendererOptions::view_depth`] of this renderer's
    /// [`options`](Md2Renderer::options).
    #[deprecated(
        note = "use `renderer.options().view_depth(camera, point)`; this method goes in the next release"
    )]
    pub fn view_depth(&self, camera: &Camera, point: Vec3) -> f32 {
        self.options.view_depth(camera, point)
    }

    /// Uploads what the next [`render`](Md2Renderer::render) draws: the
    /// camera, and every batch's instances.
    ///
    /// Every instance is checked first. A frame or skin the model does not
    /// have, or a value that is not finite, is handled as the renderer's
    /// [`InstancePolicy`](crate::scene::InstancePolicy) says: under `Strict` it is
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
        self.uploaded = 0;
        self.recorded.store(0, Ordering::Relaxed);
        // A refused frame draws nothing, crowds included, until a prepare
        // succeeds (the crate docs' "A refused frame").
        self.refused = true;
        let report = self.prepare_batches(device, queue, camera, batches);
        if report.is_err() {
            self.immediate.forget();
        }
        self.refused = report.is_err();
        report
    }

    fn prepare_batches(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        camera: &Camera,
        batches: &[Md2Batch<'_>],
    ) -> Result<PrepareReport, PrepareError> {
        self.cache.check_prepare("preparing a frame")?;
        for pipelines in std::iter::once(&mut self.pipelines).chain(&mut self.resident) {
            pipelines.fit_shadow(
                device,
                &self.cache,
                &self.look,
                &self.options,
                self.shadow.as_ref(),
            )?;
        }
        self.look.check_bind_group()?;
        let mut report = PrepareReport::default();
        let options = PackOptions {
            policy: self.options.policy,
            back_to_front: (self.options.translucent_order == TranslucentOrder::BackToFront)
                .then(|| depth_row(&camera.view_proj, self.options.reverse_z())),
            extras: self.look.extra(),
            levels: LevelView {
                w_row: camera.view_proj.row(3).to_array(),
                scale: camera.level_scale(self.options.level_error_pixels),
            },
        };
        let shadow = self
            .shadow
            .filter(|_| self.shadow_draw(&self.pipelines).is_some());
        let reverse_z = self.options.reverse_z();
        let (uploaded, error) = caught(device, || {
            let uploaded = self
                .immediate
                .prepare(device, queue, batches, options, &mut report)?;
            Ok::<_, PrepareError>(
                uploaded
                    + self.view.write(
                        queue,
                        camera,
                        shadow.as_ref(),
                        reverse_z,
                        self.options.level_error_pixels,
                    ),
            )
        });
        if let Some(message) = error {
            // Nothing half-written is drawn: a lost device, say.
            return Err(PrepareError::Device {
                operation: "preparing a frame",
                message,
            });
        }
        self.uploaded += uploaded?;
        Ok(report)
    }

    /// The shadow pipeline of `pipelines` and the stencil reference to draw
    /// shadows with, if this view draws them.
    fn shadow_draw<'p>(&self, pipelines: &'p Pipelines) -> Option<(&'p wgpu::RenderPipeline, u32)> {
        let shadow = self.shadow?;
        let (_, pipeline) = pipelines.shadow.as_ref()?;
        Some((pipeline, shadow.stencil.reference))
    }

    /// Forgets the previous frame: the next frame takes its camera, and its
    /// crowds' members, to have been where they are now, so the motion
    /// vectors show no motion (after a cut, or a jump of the clock).
    pub fn reset_motion(&mut self) {
        self.view.reset_motion();
        self.crowds.reset_motion();
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
    /// picture. Per frame the CPU writes the time (4 bytes: the low word of
    /// the tick count, when the high word did not change) and whatever
    /// changed, however large the crowds.
    pub fn prepare_crowds<'c>(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        time: f64,
        crowds: impl IntoIterator<Item = &'c mut Md2Crowd>,
    ) -> Result<(), PrepareError> {
        let prepared = self.prepare_resident(device, queue, encoder, time, crowds);
        if prepared.is_err() {
            // Nothing half-written is drawn, and nothing else of the frame
            // until the next successful `prepare`.
            self.crowds.forget();
            self.refused = true;
        }
        prepared
    }

    fn prepare_resident<'c>(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        time: f64,
        crowds: impl IntoIterator<Item = &'c mut Md2Crowd>,
    ) -> Result<(), PrepareError> {
        self.cache.check_prepare("preparing the crowds")?;
        let kind = ViewKind {
            sort: self.options.translucent_order == TranslucentOrder::BackToFront,
            extra: self.look.extra(),
        };
        if self.resident.is_none() {
            let mut resident = Pipelines::new(device, &self.cache, &self.look, &self.options, true)
                .map_err(PrepareError::Setup)?;
            resident.fit_shadow(
                device,
                &self.cache,
                &self.look,
                &self.options,
                self.shadow.as_ref(),
            )?;
            self.resident = Some(resident);
        }
        let (uploaded, error) = caught(device, || {
            let gpu = Submit {
                device,
                queue,
                cache: &self.cache,
            };
            self.crowds
                .prepare(gpu, encoder, self.view.crowd_group(), kind, time, crowds)
        });
        if let Some(message) = error {
            return Err(PrepareError::Device {
                operation: "preparing the crowds",
                message,
            });
        }
        self.uploaded += uploaded?;
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
    /// reference (see [`ShadowStencil`](crate::scene::ShadowStencil)).
    pub fn render_phase(&self, pass: &mut wgpu::RenderPass<'_>, phase: Md2Phase) {
        if self.refused {
            return;
        }
        let buckets = phase.draws();
        let mut draws = 0;
        if self.immediate.draws_any(buckets)
            && self.begin_phase(pass, phase, &self.pipelines).is_some()
        {
            let shadows = phase == Md2Phase::Shadows;
            draws += self.immediate.draw(pass, buckets, shadows);
        }
        if self.crowds.draws_any(buckets)
            && let Some(resident) = &self.resident
            && self.begin_phase(pass, phase, resident).is_some()
        {
            draws += self.crowds.draw(pass, buckets);
        }
        self.recorded.fetch_add(draws, Ordering::Relaxed);
    }

    /// Sets `pipelines`' pipeline of `phase` and the groups every draw of
    /// it shares (the view, the material's), and the stencil reference of
    /// the shadows; `None` where this view does not draw the phase.
    fn begin_phase(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        phase: Md2Phase,
        pipelines: &Pipelines,
    ) -> Option<()> {
        let mut reference = None;
        let pipeline = match phase {
            Md2Phase::Opaque => Some(&pipelines.opaque),
            Md2Phase::Shadows => self.shadow_draw(pipelines).map(|(pipeline, r)| {
                reference = Some(r);
                pipeline
            }),
            Md2Phase::Translucent => pipelines.translucent.as_ref(),
            Md2Phase::Shells => pipelines.shell.as_ref(),
        }?;
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, self.view.group(), &[]);
        if let Look::Material {
            group: Some(group), ..
        } = &self.look
        {
            pass.set_bind_group(Md2Material::GROUP, group, &[]);
        }
        if let Some(reference) = reference {
            pass.set_stencil_reference(reference);
        }
        Some(())
    }

    /// Deprecated: [`VisibleMembers::read`].
    #[deprecated(
        note = "use `VisibleMembers::read(&renderer, device, queue)`; this method goes in the next release"
    )]
    pub fn visible_members(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> impl Future<Output = Result<VisibleMembers, PrepareError>> + use<> {
        VisibleMembers::read(self, device, queue)
    }

    /// Deprecated: [`VisibleMembers::recent`].
    #[deprecated(
        note = "use `VisibleMembers::recent(&mut renderer, device)`; this method goes in the next release"
    )]
    pub fn recent_visible_members(&mut self, device: &wgpu::Device) -> Option<VisibleMembers> {
        VisibleMembers::recent(self, device)
    }

    /// The view's uniform and its bind groups.
    pub(crate) fn view(&self) -> &ViewBuffer {
        &self.view
    }

    /// The immediate path's records.
    pub(crate) fn immediate(&self) -> &Immediate {
        &self.immediate
    }

    /// The crowds' views of the last `prepare_crowds`.
    pub(crate) fn crowd_views(&self) -> &CrowdViews {
        &self.crowds
    }

    /// The crowds' views, to count what they draw.
    pub(crate) fn crowd_views_mut(&mut self) -> &mut CrowdViews {
        &mut self.crowds
    }

    /// Draw calls recorded since the last `prepare`.
    pub(crate) fn recorded_draws(&self) -> u64 {
        self.recorded.load(Ordering::Relaxed)
    }

    /// Whether the draws read the extra records.
    pub(crate) fn keeps_extras(&self) -> bool {
        self.look.extra()
    }
}
