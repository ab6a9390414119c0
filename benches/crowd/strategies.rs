//! The ways of drawing an animated crowd, behind one interface.
//!
//! - `gpu`: the crate's immediate path. Per frame the application samples
//!   every member's clock and `prepare` writes one 80-byte record per
//!   instance; the pose (`shaders/pose.wgsl`) decodes and interpolates.
//! - `resident`: the crate's resident crowd. The members and their clocks
//!   live on the GPU; per frame the CPU writes the time, a compute pass
//!   samples every clock, culls against the view and compacts the visible
//!   members for one indirect draw.
//! - `cpu` and `static`: the baselines (see `baselines.rs`).

use md2_wgpu::gpu::VisibleMembers;
use md2_wgpu::{
    CrowdMember, GpuModel, Md2Crowd, Md2Instance, Md2Renderer, Md2RendererOptions,
    anim::Pose,
    contract::{GpuModelOptions, MAX_LEVELS},
    gpu::{Md2Batch, Md2Cache, Md2Material, Md2MaterialDescriptor},
    mesh::TriangleOrder,
    scene::Md2Previous,
};

use crate::gpu::{COLOR_FORMAT, Gpu, MOTION_FORMAT, OPTIONS};
use crate::scene::{BenchModel, Member, Scene, time};

/// One way of drawing the crowd. A frame is `animate`, then `prepare`
/// (before the render pass), then `draw` (inside it); the benchmark times
/// each.
pub trait Strategy {
    /// The application's own work for simulated frame `frame`: sampling the
    /// clocks, where the CPU does.
    fn animate(&mut self, frame: u64);

    /// The renderer's work before the pass: uploads, and any CPU decoding
    /// or compute pass it records into `encoder`.
    fn prepare(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        frame: u64,
    ) -> Result<(), String>;

    /// Records the draws.
    fn draw(&self, pass: &mut wgpu::RenderPass<'_>);

    /// Bytes the last `prepare` wrote to the GPU.
    fn uploaded_bytes(&self) -> u64;

    /// GPU bytes held for the model's vertex data (positions and normals in
    /// whatever form the strategy keeps them).
    fn gpu_model_bytes(&self) -> u64;

    /// How many members the last submitted frame found in view, where the
    /// strategy culls.
    fn visible_members(&self, _gpu: &Gpu) -> Option<u32> {
        None
    }

    /// GPU bytes held for the members themselves (their records, and what
    /// a view keeps of them), where the strategy keeps members on the GPU.
    fn member_gpu_bytes(&self) -> Option<u64> {
        None
    }

    /// Whether the strategy writes motion vectors: its pass then has the
    /// motion target as a second colour attachment.
    fn motion_target(&self) -> bool {
        false
    }

    /// How many members (instances) the last frame drew at each level of
    /// detail, where the strategy draws levels.
    fn drawn_per_level(&self, _gpu: &Gpu) -> Option<[u32; MAX_LEVELS]> {
        None
    }
}

/// How the crate's renderers shade the crowd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shading {
    /// The built-in look.
    Builtin,
    /// The same look written as an application's material
    /// ([`md2_wgpu::support::QUAKE_AGAIN_WGSL`]): what the material path
    /// costs over the built-in one.
    Material,
    /// The built-in look and the built-in motion target, every instance
    /// with its previous transform and pose.
    Motion,
}

/// `model` uploaded by the crate for renderers of `cache`.
pub fn upload(gpu: &Gpu, cache: &Md2Cache, model: &BenchModel) -> Result<GpuModel, String> {
    upload_in(gpu, cache, model, TriangleOrder::default())
}

/// `model` uploaded with its triangles in `order`.
pub fn upload_in(
    gpu: &Gpu,
    cache: &Md2Cache,
    model: &BenchModel,
    triangle_order: TriangleOrder,
) -> Result<GpuModel, String> {
    upload_with(
        gpu,
        cache,
        model,
        GpuModelOptions::DEFAULT.with_triangle_order(triangle_order),
    )
}

/// `model` uploaded with `options` (levels of detail, say).
pub fn upload_with(
    gpu: &Gpu,
    cache: &Md2Cache,
    model: &BenchModel,
    options: GpuModelOptions,
) -> Result<GpuModel, String> {
    GpuModel::with_options(
        gpu.device(),
        gpu.queue(),
        cache,
        &model.model,
        &model.skins,
        GpuModelOptions {
            fullbright_masks: model.options.fullbright_masks,
            ..options
        },
    )
    .map_err(|e| e.to_string())
}

/// A renderer of `cache` for the benchmark's target, with `scene`'s shadow.
pub fn renderer(gpu: &Gpu, cache: &Md2Cache, scene: &Scene) -> Result<Md2Renderer, String> {
    shaded_renderer(gpu, cache, scene, Shading::Builtin)
}

/// A renderer of `cache` shading as `shading` says, with `scene`'s shadow.
pub fn shaded_renderer(
    gpu: &Gpu,
    cache: &Md2Cache,
    scene: &Scene,
    shading: Shading,
) -> Result<Md2Renderer, String> {
    let device = gpu.device();
    let renderer = match shading {
        Shading::Builtin => Md2Renderer::with_cache(device, cache, COLOR_FORMAT, OPTIONS),
        Shading::Motion => {
            let options = Md2RendererOptions {
                motion_target: Some(MOTION_FORMAT),
                ..OPTIONS
            };
            Md2Renderer::with_cache(device, cache, COLOR_FORMAT, options)
        }
        Shading::Material => {
            let material = Md2Material::new(
                device,
                cache,
                &Md2MaterialDescriptor {
                    label: "quake again",
                    source: md2_wgpu::support::QUAKE_AGAIN_WGSL,
                    fragment: "quake_again",
                    targets: &[wgpu::ColorTargetState {
                        format: COLOR_FORMAT,
                        blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    }],
                    bind_group_layout: None,
                },
            )
            .map_err(|e| e.to_string())?;
            Md2Renderer::with_material(device, cache, &material, OPTIONS)
        }
    };
    let mut renderer = renderer.map_err(|e| e.to_string())?;
    renderer
        .set_shadow(scene.shadow)
        .map_err(|e| e.to_string())?;
    Ok(renderer)
}

/// `member` as an immediate-path instance (its pose set by `animate`).
pub fn instance(member: &Member) -> Md2Instance {
    Md2Instance::new(member.transform, Pose::default())
        .with_skin(member.skin)
        .with_tint(member.tint)
        .with_effects(member.effects)
}

/// Sets every instance's pose to its member's clock at simulated frame
/// `frame`: the application's animation work on the immediate paths.
pub fn pose_all(instances: &mut [Md2Instance], members: &[Member], frame: u64) {
    let now = time(frame);
    for (instance, m) in instances.iter_mut().zip(members) {
        instance.pose = m.clock.sample(now).into();
    }
}

/// The crate's immediate path: every instance's record written every frame.
pub struct Immediate {
    renderer: Md2Renderer,
    model: GpuModel,
    camera: md2_wgpu::Camera,
    members: Vec<Member>,
    /// Kept from frame to frame, as an application keeps its instances:
    /// each frame sets the poses.
    instances: Vec<Md2Instance>,
    /// With motion vectors: what each instance showed in the frame before,
    /// kept by the application as it sets the new poses.
    previous: Option<Vec<Md2Previous>>,
    /// Instances per level of detail in the last `prepare`.
    levels: [u32; MAX_LEVELS],
}

impl Immediate {
    pub fn new(
        gpu: &Gpu,
        cache: &Md2Cache,
        model: GpuModel,
        scene: &Scene,
    ) -> Result<Immediate, String> {
        Immediate::shaded(gpu, cache, model, scene, Shading::Builtin)
    }

    pub fn shaded(
        gpu: &Gpu,
        cache: &Md2Cache,
        model: GpuModel,
        scene: &Scene,
        shading: Shading,
    ) -> Result<Immediate, String> {
        let instances: Vec<Md2Instance> = scene.members.iter().map(instance).collect();
        let previous =
            (shading == Shading::Motion).then(|| instances.iter().map(Md2Previous::of).collect());
        Ok(Immediate {
            renderer: shaded_renderer(gpu, cache, scene, shading)?,
            model,
            camera: scene.camera,
            members: scene.members.clone(),
            instances,
            previous,
            levels: [0; MAX_LEVELS],
        })
    }

    pub fn renderer(&self) -> &Md2Renderer {
        &self.renderer
    }

    pub fn model(&self) -> &GpuModel {
        &self.model
    }
}

impl Strategy for Immediate {
    fn animate(&mut self, frame: u64) {
        if let Some(previous) = &mut self.previous {
            for (p, instance) in previous.iter_mut().zip(&self.instances) {
                *p = Md2Previous::of(instance);
            }
        }
        pose_all(&mut self.instances, &self.members, frame);
    }

    fn prepare(&mut self, gpu: &Gpu, _: &mut wgpu::CommandEncoder, _: u64) -> Result<(), String> {
        let mut batch = Md2Batch::new(&self.model, &self.instances);
        if let Some(previous) = &self.previous {
            batch = batch.with_previous(previous);
        }
        let report = self
            .renderer
            .prepare(gpu.device(), gpu.queue(), &self.camera, &[batch])
            .map_err(|e| e.to_string())?;
        self.levels = report.levels;
        Ok(())
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.renderer.render(pass);
    }

    fn uploaded_bytes(&self) -> u64 {
        self.renderer.uploaded_bytes()
    }

    fn gpu_model_bytes(&self) -> u64 {
        self.model.gpu_bytes_breakdown().vertex_data
    }

    fn motion_target(&self) -> bool {
        self.previous.is_some()
    }

    fn drawn_per_level(&self, _gpu: &Gpu) -> Option<[u32; MAX_LEVELS]> {
        Some(self.levels)
    }
}

/// What the resident strategy leaves out, to find what limits it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResidentDraw {
    /// The crowd's compute pass and its indirect draws: the real thing.
    All,
    /// The compute pass only; the render pass records nothing.
    ComputeOnly,
}

/// The crate's resident crowd: members added once, per frame the time.
pub struct Resident {
    renderer: Md2Renderer,
    model: GpuModel,
    /// One crowd, or as many as the device's buffer limits need (each
    /// holds at most `Md2Crowd::max_members`).
    crowds: Vec<Md2Crowd>,
    camera: md2_wgpu::Camera,
    draw: ResidentDraw,
    motion: bool,
}

impl Resident {
    pub fn new(
        gpu: &Gpu,
        cache: &Md2Cache,
        model: GpuModel,
        scene: &Scene,
        culling: bool,
        draw: ResidentDraw,
    ) -> Result<Resident, String> {
        Resident::shaded(gpu, cache, model, scene, (culling, draw), Shading::Builtin)
    }

    /// A resident crowd shaded as `shading` says, culling and drawing as
    /// `how` says.
    pub fn shaded(
        gpu: &Gpu,
        cache: &Md2Cache,
        model: GpuModel,
        scene: &Scene,
        (culling, draw): (bool, ResidentDraw),
        shading: Shading,
    ) -> Result<Resident, String> {
        let renderer = shaded_renderer(gpu, cache, scene, shading)?;
        let crowd = || {
            let mut crowd =
                Md2Crowd::new(gpu.device(), &renderer, &model).map_err(|e| e.to_string())?;
            crowd.set_culling(culling);
            Ok::<_, String>(crowd)
        };
        let mut crowds = vec![crowd()?];
        let per_crowd = crowds[0].max_members().max(1);
        for chunk in scene.members.chunks(per_crowd) {
            if !crowds.last().is_some_and(Md2Crowd::is_empty) {
                crowds.push(crowd()?);
            }
            let crowd = crowds.last_mut().expect("just pushed");
            // As an app that knows its crowd's size does: the member buffer
            // made exactly this large.
            crowd.reserve(chunk.len());
            for m in chunk {
                crowd
                    .add(
                        CrowdMember::new(m.transform, m.clock.clone())
                            .with_skin(m.skin)
                            .with_tint(m.tint)
                            .with_effects(m.effects),
                    )
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(Resident {
            renderer,
            model,
            crowds,
            camera: scene.camera,
            draw,
            motion: shading == Shading::Motion,
        })
    }

    /// How many crowds the members needed.
    pub fn crowd_count(&self) -> usize {
        self.crowds.len()
    }
}

impl Resident {
    /// Looks through `camera` from the next frame on.
    pub fn set_camera(&mut self, camera: md2_wgpu::Camera) {
        self.camera = camera;
    }
}

impl Strategy for Resident {
    /// Nothing: the clocks run on the GPU.
    fn animate(&mut self, _: u64) {}

    fn prepare(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        frame: u64,
    ) -> Result<(), String> {
        let crowds = self.crowds.iter_mut();
        prepare_resident(
            &mut self.renderer,
            &self.camera,
            (gpu, encoder),
            frame,
            crowds,
        )
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.draw == ResidentDraw::All {
            self.renderer.render(pass);
        }
    }

    fn uploaded_bytes(&self) -> u64 {
        self.renderer.uploaded_bytes()
    }

    fn gpu_model_bytes(&self) -> u64 {
        self.model.gpu_bytes_breakdown().vertex_data
    }

    fn visible_members(&self, gpu: &Gpu) -> Option<u32> {
        Some(visible(&self.renderer, gpu)?.per_crowd.iter().sum())
    }

    fn member_gpu_bytes(&self) -> Option<u64> {
        let view = (0..self.crowds.len())
            .filter_map(|i| md2_wgpu::gpu::low_level::crowd_view_bytes(&self.renderer, i))
            .sum::<u64>();
        Some(self.crowds.iter().map(Md2Crowd::gpu_bytes).sum::<u64>() + view)
    }

    fn motion_target(&self) -> bool {
        self.motion
    }

    fn drawn_per_level(&self, gpu: &Gpu) -> Option<[u32; MAX_LEVELS]> {
        let per_crowd = visible(&self.renderer, gpu)?.per_level;
        let mut total = [0; MAX_LEVELS];
        for crowd in per_crowd {
            for (t, n) in total.iter_mut().zip(crowd) {
                *t += n;
            }
        }
        Some(total)
    }
}

/// A resident frame's work before the pass: `renderer` prepared for
/// `camera` (no immediate batches) and `crowds`' compute passes recorded
/// into the encoder at frame `frame`'s time.
pub fn prepare_resident<'c>(
    renderer: &mut Md2Renderer,
    camera: &md2_wgpu::Camera,
    (gpu, encoder): (&Gpu, &mut wgpu::CommandEncoder),
    frame: u64,
    crowds: impl IntoIterator<Item = &'c mut Md2Crowd>,
) -> Result<(), String> {
    let (device, queue) = (gpu.device(), gpu.queue());
    renderer
        .prepare(device, queue, camera, &[])
        .map_err(|e| e.to_string())?;
    renderer
        .prepare_crowds(device, queue, encoder, time(frame), crowds)
        .map_err(|e| e.to_string())
}

/// The members `renderer`'s last submitted frame found in view, per crowd
/// and level, waited for.
pub fn visible(renderer: &Md2Renderer, gpu: &Gpu) -> Option<VisibleMembers> {
    let read = VisibleMembers::read(renderer, gpu.device(), gpu.queue());
    md2_wgpu::support::wait(gpu.device(), read).ok()
}

/// Draws nothing: what a frame of the benchmark costs around any renderer
/// (an encoder, a cleared pass, `finish`, the submit).
pub struct Idle;

impl Strategy for Idle {
    fn animate(&mut self, _: u64) {}

    fn prepare(&mut self, _: &Gpu, _: &mut wgpu::CommandEncoder, _: u64) -> Result<(), String> {
        Ok(())
    }

    fn draw(&self, _: &mut wgpu::RenderPass<'_>) {}

    fn uploaded_bytes(&self) -> u64 {
        0
    }

    fn gpu_model_bytes(&self) -> u64 {
        0
    }
}
