//! The device (the crate's headless helper, with the adapter's own limits
//! so the largest crowds fit), the offscreen target every strategy draws
//! into, the pipeline-statistics query that counts vertex-shader runs, and
//! the timestamps that split a frame's GPU time into its compute passes
//! and its draws where the adapter has them.

use std::sync::{Arc, Mutex, PoisonError};

use md2_wgpu::support::{Headless, cleared, read_buffer, read_rgba8, scratch_depth_stencil};
use md2_wgpu::{DepthState, Md2RendererOptions};

/// Offscreen target size: a 720p frame.
pub const WIDTH: u32 = 1280;
/// See [`WIDTH`].
pub const HEIGHT: u32 = 720;
/// sRGB colour, as a window's surface usually is: every pipeline takes
/// the built-in `md2_fs_builtin` (the hardware encodes).
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Planar shadows need a stencil aspect; every strategy draws with the same
/// depth buffer, with or without them.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth24PlusStencil8;
/// The motion-vector attachment of the strategies that write one (the
/// crate's built-in motion target, as TAA reads it).
pub const MOTION_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg16Float;

/// What every renderer of the benchmark is built with.
pub const OPTIONS: Md2RendererOptions =
    Md2RendererOptions::DEFAULT.with_depth(DepthState::standard(DEPTH_FORMAT));

/// The device, and the errors no error scope caught.
pub struct Gpu {
    pub headless: Headless,
    uncaptured: Arc<Mutex<Vec<String>>>,
}

impl Gpu {
    /// The first adapter wgpu offers (WGPU_BACKEND and friends apply), with
    /// its own limits, and pipeline statistics where it has them.
    pub fn new() -> Result<Gpu, String> {
        let headless = Headless::new(
            |adapter| adapter.limits(),
            wgpu::Features::PIPELINE_STATISTICS_QUERY
                | wgpu::Features::TIMESTAMP_QUERY
                | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
        )?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&uncaptured);
        // wgpu panics on an error nothing catches; a failed strategy should
        // be a row that says why instead.
        headless
            .device
            .on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
                sink.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(e.to_string());
            }));
        Ok(Gpu {
            headless,
            uncaptured,
        })
    }

    pub fn device(&self) -> &wgpu::Device {
        &self.headless.device
    }

    pub fn queue(&self) -> &wgpu::Queue {
        &self.headless.queue
    }

    pub fn info(&self) -> wgpu::AdapterInfo {
        self.headless.adapter.get_info()
    }

    /// Whether vertex-shader invocations can be counted.
    pub fn has_statistics(&self) -> bool {
        self.device()
            .features()
            .contains(wgpu::Features::PIPELINE_STATISTICS_QUERY)
    }

    /// What the frames' GPU time can be split into: `(draws, compute)`,
    /// the render pass (timestamps at its ends) and everything the encoder
    /// records before it (timestamps between passes).
    pub fn timestamps(&self) -> (bool, bool) {
        let features = self.device().features();
        let draws = features.contains(wgpu::Features::TIMESTAMP_QUERY);
        (
            draws,
            draws && features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS),
        )
    }

    /// The uncaptured errors since the last call, as one message.
    pub fn take_uncaptured(&self) -> Option<String> {
        let mut errors = self
            .uncaptured
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if errors.is_empty() {
            None
        } else {
            Some(std::mem::take(&mut *errors).join("; "))
        }
    }

    /// Blocks until the GPU has finished submission `index`.
    pub fn wait(&self, index: wgpu::SubmissionIndex) -> Result<(), String> {
        self.device()
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            })
            .map(drop)
            .map_err(|e| format!("waiting for the GPU: {e}"))
    }
}

/// The offscreen colour and depth-stencil attachments, and the query that
/// counts a pass's vertex-shader invocations.
pub struct Target {
    color_texture: wgpu::Texture,
    color: wgpu::TextureView,
    depth: wgpu::TextureView,
    /// Bound as a second colour attachment for strategies that write
    /// motion vectors; the others draw into the colour target alone.
    motion: wgpu::TextureView,
    statistics: Option<Statistics>,
    timestamps: Option<Timestamps>,
}

struct Statistics {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
}

/// Four timestamps a frame: the encoder's start and the end of what it
/// records before the pass (where the adapter writes timestamps between
/// passes), and the pass's two ends.
struct Timestamps {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    read: wgpu::Buffer,
    /// Whether the encoder's two are written.
    between_passes: bool,
    /// Nanoseconds a tick.
    period: f64,
}

/// A frame's GPU time, split: milliseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct GpuSplit {
    /// What the encoder recorded before the pass: the resident crowds'
    /// compute passes, copies.
    pub compute: Option<f64>,
    /// The render pass.
    pub draws: Option<f64>,
}

impl Target {
    pub fn new(gpu: &Gpu) -> Target {
        let device = gpu.device();
        let texture = |label, format, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width: WIDTH,
                    height: HEIGHT,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT;
        let color_texture = texture(
            "md2-wgpu crowd bench colour",
            COLOR_FORMAT,
            attachment | wgpu::TextureUsages::COPY_SRC,
        );
        let depth = texture("md2-wgpu crowd bench depth", DEPTH_FORMAT, attachment);
        let motion = texture("md2-wgpu crowd bench motion", MOTION_FORMAT, attachment);
        let statistics = gpu.has_statistics().then(|| Statistics {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("md2-wgpu crowd bench statistics"),
                ty: wgpu::QueryType::PipelineStatistics(
                    wgpu::PipelineStatisticsTypes::VERTEX_SHADER_INVOCATIONS,
                ),
                count: 1,
            }),
            resolved: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("md2-wgpu crowd bench statistics resolved"),
                size: size_of::<u64>() as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
        });
        let (draws, between_passes) = gpu.timestamps();
        let timestamps = draws.then(|| Timestamps {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("md2-wgpu crowd bench timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 4,
            }),
            resolved: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("md2-wgpu crowd bench timestamps resolved"),
                size: 4 * size_of::<u64>() as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            read: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("md2-wgpu crowd bench timestamps read"),
                size: 4 * size_of::<u64>() as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            between_passes,
            period: f64::from(gpu.queue().get_timestamp_period()),
        });
        Target {
            color: color_texture.create_view(&Default::default()),
            color_texture,
            depth: depth.create_view(&Default::default()),
            motion: motion.create_view(&Default::default()),
            statistics,
            timestamps,
        }
    }

    /// Writes timestamp `index` (0: the frame's start, 1: before its pass)
    /// into `encoder`, where the adapter writes them between passes.
    pub fn mark(&self, encoder: &mut wgpu::CommandEncoder, index: u32) {
        if let Some(t) = self.timestamps.as_ref().filter(|t| t.between_passes) {
            encoder.write_timestamp(&t.queries, index);
        }
    }

    /// Resolves the frame's timestamps into the buffer [`split`](Self::split)
    /// reads, at the end of `encoder`.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        if let Some(t) = &self.timestamps {
            let first = if t.between_passes { 0 } else { 2 };
            encoder.resolve_query_set(&t.queries, first..4, &t.resolved, u64::from(first) * 8);
            encoder.copy_buffer_to_buffer(&t.resolved, 0, &t.read, 0, t.read.size());
        }
    }

    /// The split of the frame just finished (its submission waited for).
    pub fn split(&self, gpu: &Gpu) -> GpuSplit {
        let Some(t) = &self.timestamps else {
            return GpuSplit::default();
        };
        let slice = t.read.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        if gpu
            .device()
            .poll(wgpu::PollType::wait_indefinitely())
            .is_err()
        {
            return GpuSplit::default();
        }
        let ticks: Vec<u64> = match slice.get_mapped_range() {
            Ok(view) => bytemuck::pod_collect_to_vec(&view),
            Err(_) => return GpuSplit::default(),
        };
        t.read.unmap();
        let ms = |from: u64, to: u64| to.checked_sub(from).map(|d| d as f64 * t.period / 1e6);
        GpuSplit {
            compute: t.between_passes.then(|| ms(ticks[0], ticks[1])).flatten(),
            draws: ms(ticks[2], ticks[3]),
        }
    }

    /// A pass that clears every attachment (the state every frame starts
    /// from; shadows need the stencil at 0), with the motion target as a
    /// second colour attachment where `motion`.
    pub fn begin<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        motion: bool,
    ) -> wgpu::RenderPass<'e> {
        let background = wgpu::Color {
            r: 0.05,
            g: 0.06,
            b: 0.08,
            a: 1.0,
        };
        let color = [
            cleared(&self.color, background),
            cleared(&self.motion, wgpu::Color::TRANSPARENT),
        ];
        let count = if motion { 2 } else { 1 };
        let timestamp_writes = self
            .timestamps
            .as_ref()
            .map(|t| wgpu::RenderPassTimestampWrites {
                query_set: &t.queries,
                beginning_of_pass_write_index: Some(2),
                end_of_pass_write_index: Some(3),
            });
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("md2-wgpu crowd bench pass"),
            color_attachments: &color[..count],
            timestamp_writes,
            depth_stencil_attachment: Some(scratch_depth_stencil(&self.depth)),
            ..Default::default()
        })
    }

    /// Records `draw` into a pass of its own, counting its vertex-shader
    /// invocations where the adapter can, then submits `encoder` and
    /// returns the count (`None` without pipeline statistics).
    pub fn count_vertex_invocations(
        &self,
        gpu: &Gpu,
        mut encoder: wgpu::CommandEncoder,
        motion: bool,
        draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
    ) -> Result<Option<u64>, String> {
        {
            let mut pass = self.begin(&mut encoder, motion);
            if let Some(s) = &self.statistics {
                pass.begin_pipeline_statistics_query(&s.queries, 0);
            }
            draw(&mut pass);
            if self.statistics.is_some() {
                pass.end_pipeline_statistics_query();
            }
        }
        let Some(s) = &self.statistics else {
            let index = gpu.queue().submit([encoder.finish()]);
            return gpu.wait(index).map(|()| None);
        };
        encoder.resolve_query_set(&s.queries, 0..1, &s.resolved, 0);
        let bytes = read_buffer(
            gpu.device(),
            gpu.queue(),
            encoder,
            &s.resolved,
            0,
            size_of::<u64>() as u64,
        )?;
        Ok(Some(bytemuck::pod_read_unaligned(&bytes)))
    }

    /// The colour target's pixels (after the last submitted frame).
    pub fn read(&self, gpu: &Gpu) -> Result<image::RgbaImage, String> {
        let encoder = gpu.device().create_command_encoder(&Default::default());
        read_rgba8(gpu.device(), gpu.queue(), encoder, &self.color_texture)
    }
}
