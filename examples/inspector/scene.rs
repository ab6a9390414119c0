//! The 3D view as an egui-wgpu paint callback: [`SceneFrame`] is what one
//! frame draws (built by the interface, handed to egui), [`SceneResources`]
//! what lasts (the renderer, the ground, a vertex counter), kept in
//! egui-wgpu's callback resources because `paint` gets nothing else.
//!
//! egui-wgpu calls `prepare` on its own encoder before its render pass and
//! `paint` inside that pass (a `RenderPass<'static>`, which the crate's
//! `render(&mut RenderPass<'_>)` takes as it is). The pass is egui's, so the
//! pipelines must be built for what egui's renderer was made with
//! ([`SceneTarget`]): egui cannot say it afterwards.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use egui_wgpu::{CallbackResources, CallbackTrait, ScreenDescriptor};
use md2_wgpu::{
    Camera, DepthState, GpuModel, Md2Instance, Md2Renderer, Md2RendererOptions,
    gpu::{GpuPlayer, Md2Batch, PlacedPlayers, PlayerInstance},
    scene::PlanarShadow,
    wgpu,
};

use crate::ground::{Ground, GroundParams, GroundTarget};

/// The pass the paint callback draws in: egui's. Whoever makes egui's
/// renderer knows these (egui-wgpu's `RendererOptions` and the colour
/// format) and must say them here: they cannot be read back from egui.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SceneTarget {
    /// The colour format of egui's pass.
    pub color_format: wgpu::TextureFormat,
    /// Its samples per pixel (egui's `msaa_samples`; 0 means 1).
    pub samples: u32,
    /// Its depth-stencil format (egui's `depth_stencil_format`), if any.
    pub depth_stencil_format: Option<wgpu::TextureFormat>,
}

impl SceneTarget {
    /// The pass of an egui renderer made for `color_format` with `options`.
    pub fn of_egui(
        color_format: wgpu::TextureFormat,
        options: &egui_wgpu::RendererOptions,
    ) -> Self {
        SceneTarget {
            color_format,
            samples: options.msaa_samples.max(1),
            depth_stencil_format: options.depth_stencil_format,
        }
    }

    /// Whether planar shadows can be drawn: they need a stencil so that no
    /// pixel darkens twice.
    pub fn has_stencil(&self) -> bool {
        self.depth_stencil_format
            .is_some_and(|f| f.has_stencil_aspect())
    }

    /// The renderer's options for this pass. egui clears depth to 1.0 once
    /// a frame, so nearer is less (no reverse-Z), and without a depth
    /// buffer the models draw in triangle order.
    pub fn renderer_options(&self) -> Md2RendererOptions {
        let options = Md2RendererOptions::DEFAULT.with_sample_count(self.samples);
        match self.depth_stencil_format {
            Some(format) => options.with_depth(DepthState::standard(format)),
            None => options,
        }
    }

    fn ground(&self) -> GroundTarget {
        GroundTarget {
            color_format: self.color_format,
            depth_format: self.depth_stencil_format,
            samples: self.samples,
        }
    }
}

/// What the paint callback reports back to the interface: draws and
/// vertex-shader runs of the last frame painted, and a failure to prepare.
#[derive(Debug, Default)]
pub struct SceneStats {
    draws: AtomicU64,
    /// Vertex-shader runs of a recent frame, plus one (0: none counted).
    vertices: AtomicU64,
    error: Mutex<Option<String>>,
}

impl SceneStats {
    /// Draw calls the last paint recorded.
    pub fn draws(&self) -> u64 {
        self.draws.load(Ordering::Relaxed)
    }

    /// Vertex-shader runs of a recent frame, counted by the GPU (a
    /// pipeline-statistics query, a few frames old); `None` until one is
    /// read back or where the adapter cannot count.
    pub fn vertices(&self) -> Option<u64> {
        self.vertices.load(Ordering::Relaxed).checked_sub(1)
    }

    /// Why the last frame could not be prepared, if it could not.
    pub fn error(&self) -> Option<String> {
        self.error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_error(&self, error: Option<String>) {
        *self.error.lock().unwrap_or_else(PoisonError::into_inner) = error;
    }
}

/// What lasts between frames, in egui-wgpu's callback resources.
pub struct SceneResources {
    renderer: Md2Renderer,
    ground: Ground,
    counter: Option<VertexCounter>,
    /// Draw the ground alone (for the screenshot check's background).
    pub background_only: bool,
}

impl SceneResources {
    /// The renderer and the ground for `target`, sharing `renderer`'s
    /// pipelines cache; a vertex counter where the device has pipeline
    /// statistics.
    pub fn new(device: &wgpu::Device, renderer: Md2Renderer, target: SceneTarget) -> Self {
        let counter = device
            .features()
            .contains(wgpu::Features::PIPELINE_STATISTICS_QUERY)
            .then(|| VertexCounter::new(device));
        SceneResources {
            renderer,
            ground: Ground::new(device, target.ground(), wgpu::CompareFunction::Less),
            counter,
            background_only: false,
        }
    }

    /// Whether vertex-shader runs are counted.
    pub fn counts_vertices(&self) -> bool {
        self.counter.is_some()
    }
}

/// One frame of the 3D view: a paint callback.
pub struct SceneFrame {
    /// The camera for the view's rectangle.
    pub camera: Camera,
    /// Each model with its one instance this frame.
    pub models: Vec<(Arc<GpuModel>, Md2Instance)>,
    /// A Quake III player and where it stands this frame.
    pub player: Option<(Arc<GpuPlayer>, PlayerInstance)>,
    /// The planar shadow, where the pass has a stencil.
    pub shadow: Option<PlanarShadow>,
    /// The ground under the models.
    pub ground: GroundParams,
    /// Where to report.
    pub stats: Arc<SceneStats>,
}

impl CallbackTrait for SceneFrame {
    fn prepare(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        _screen: &ScreenDescriptor,
        encoder: &mut wgpu::CommandEncoder,
        resources: &mut CallbackResources,
    ) -> Vec<wgpu::CommandBuffer> {
        let Some(scene) = resources.get_mut::<SceneResources>() else {
            return Vec::new();
        };
        let mut placed = PlacedPlayers::new();
        if let Some((player, instance)) = &self.player
            && let Err(e) = player.place(instance, &mut placed)
        {
            self.stats.set_error(Some(e.to_string()));
            return Vec::new();
        }
        let mut batches: Vec<Md2Batch<'_>> = self
            .models
            .iter()
            .map(|(model, instance)| Md2Batch::new(model, std::slice::from_ref(instance)))
            .collect();
        if let Some((player, _)) = &self.player {
            batches.extend(player.batches(&placed));
        }
        let prepared = scene
            .renderer
            .set_shadow(self.shadow)
            .map_err(|e| e.to_string())
            .and_then(|()| {
                scene
                    .renderer
                    .prepare(device, queue, &self.camera, &batches)
                    .map_err(|e| e.to_string())
            });
        self.stats.set_error(prepared.err());
        scene
            .ground
            .prepare(queue, self.camera.view_proj, &self.ground);
        if let Some(counter) = &mut scene.counter {
            counter.prepare(encoder, &self.stats);
        }
        Vec::new()
    }

    fn paint(
        &self,
        _info: egui::PaintCallbackInfo,
        pass: &mut wgpu::RenderPass<'static>,
        resources: &CallbackResources,
    ) {
        let Some(scene) = resources.get::<SceneResources>() else {
            return;
        };
        // egui has set the viewport to the callback's rectangle and the
        // scissor to its clip rectangle.
        scene.ground.render(pass);
        if scene.background_only {
            return;
        }
        if let Some(counter) = &scene.counter {
            counter.begin(pass);
        }
        scene.renderer.render(pass);
        if let Some(counter) = &scene.counter {
            counter.end(pass);
        }
        self.stats.draws.store(
            md2_wgpu::gpu::low_level::recorded_draws(&scene.renderer),
            Ordering::Relaxed,
        );
    }
}

/// Read-back slot states.
const FREE: u8 = 0;
const COPIED: u8 = 1;
const MAPPING: u8 = 2;
const READY: u8 = 3;

/// Counts the vertex-shader runs of the models' draws with a pipeline
/// statistics query, without ever waiting for the GPU.
///
/// `paint` runs inside egui's pass, and a query is resolved outside a
/// pass, so each frame's `prepare` resolves the query the previous frame's
/// `paint` wrote (queries keep their results across submissions) into one
/// of a few small buffers, and maps buffers copied in earlier, submitted
/// frames. The figure shown is thus two or three frames old.
struct VertexCounter {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    slots: Vec<(wgpu::Buffer, Arc<AtomicU8>)>,
    /// Whether a `paint` has written the query since the last `prepare`.
    painted: AtomicBool,
}

impl VertexCounter {
    fn new(device: &wgpu::Device) -> Self {
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("md2-wgpu inspector vertex count"),
            ty: wgpu::QueryType::PipelineStatistics(
                wgpu::PipelineStatisticsTypes::VERTEX_SHADER_INVOCATIONS,
            ),
            count: 1,
        });
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size_of::<u64>() as u64,
                usage,
                mapped_at_creation: false,
            })
        };
        let resolved = buffer(
            "md2-wgpu inspector vertex count resolved",
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        );
        let slots = (0..3)
            .map(|_| {
                let b = buffer(
                    "md2-wgpu inspector vertex count read-back",
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                );
                (b, Arc::new(AtomicU8::new(FREE)))
            })
            .collect();
        VertexCounter {
            queries,
            resolved,
            slots,
            painted: AtomicBool::new(false),
        }
    }

    fn prepare(&mut self, encoder: &mut wgpu::CommandEncoder, stats: &SceneStats) {
        for (buffer, state) in &self.slots {
            match state.load(Ordering::Acquire) {
                READY => {
                    let count =
                        buffer.slice(..).get_mapped_range().ok().and_then(|bytes| {
                            bytes.get(..8).map(bytemuck::pod_read_unaligned::<u64>)
                        });
                    buffer.unmap();
                    if let Some(count) = count {
                        stats.vertices.store(count + 1, Ordering::Relaxed);
                    }
                    state.store(FREE, Ordering::Release);
                }
                // Copied by an earlier prepare, whose encoder has been
                // submitted since.
                COPIED => {
                    state.store(MAPPING, Ordering::Release);
                    let done = Arc::clone(state);
                    buffer
                        .slice(..)
                        .map_async(wgpu::MapMode::Read, move |result| {
                            done.store(if result.is_ok() { READY } else { FREE }, Ordering::Release)
                        });
                }
                _ => {}
            }
        }
        if !self.painted.swap(false, Ordering::Relaxed) {
            return;
        }
        // With every slot busy this frame's count is skipped: the figure is
        // a sample, not a sum.
        if let Some((buffer, state)) = self
            .slots
            .iter()
            .find(|(_, s)| s.load(Ordering::Acquire) == FREE)
        {
            encoder.resolve_query_set(&self.queries, 0..1, &self.resolved, 0);
            encoder.copy_buffer_to_buffer(&self.resolved, 0, buffer, 0, size_of::<u64>() as u64);
            state.store(COPIED, Ordering::Release);
        }
    }

    fn begin(&self, pass: &mut wgpu::RenderPass<'static>) {
        pass.begin_pipeline_statistics_query(&self.queries, 0);
    }

    fn end(&self, pass: &mut wgpu::RenderPass<'static>) {
        pass.end_pipeline_statistics_query();
        self.painted.store(true, Ordering::Relaxed);
    }
}
