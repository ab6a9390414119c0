//! What every renderer of a device shares: the shader modules, the layouts,
//! the sampler, the normal table and the pipelines, built once and keyed by
//! what the pass they draw into looks like.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use wgpu::util::DeviceExt;

use super::device::check_device;
use super::error::SetupError;
use super::pipeline::{self, PassKey, Shading};
use super::shader::{CROWD_WGSL, Layouts, MD2_WGSL, SORT_BLOCK, SortStep, entry};
use crate::format::ANORMS;

/// A built-in pipeline's key: the colour format and whether the shader
/// encodes sRGB (`None` for a depth-only pass), the motion target's format,
/// and the pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BuiltinKey {
    pub color: Option<(wgpu::TextureFormat, bool)>,
    pub motion: Option<wgpu::TextureFormat>,
    pub pass: PassKey,
}

/// Shared GPU state for any number of renderers (views) of one device:
/// shader modules, bind-group layouts, the skin sampler, the normal table,
/// and a pipeline cache keyed by (colour format, output, samples, depth
/// state, culling, draw).
///
/// Cheap to clone (an `Arc`). A renderer made with
/// [`Md2Renderer::new`](crate::Md2Renderer::new) has a cache of its own;
/// renderers made with [`Md2Renderer::with_cache`](crate::Md2Renderer::with_cache)
/// share one, so a second view costs a uniform and an instance buffer, not a
/// shader compile. Models and crowds can be drawn by any renderer of the
/// same device (their bind-group layouts are equal whatever cache made
/// them), so sharing a cache only saves compiles and memory.
#[derive(Clone, Debug)]
pub struct Md2Cache(Arc<CacheInner>);

#[derive(Debug)]
struct CacheInner {
    md2: wgpu::ShaderModule,
    crowd: wgpu::ShaderModule,
    layouts: Layouts,
    sampler: wgpu::Sampler,
    anorms: wgpu::Buffer,
    pipelines: Mutex<HashMap<BuiltinKey, wgpu::RenderPipeline>>,
    capture: OnceLock<[wgpu::ComputePipeline; 2]>,
    crowd_passes: OnceLock<CrowdPipelines>,
}

/// The crowd's compute pipelines, and the table of sort steps their
/// dynamic offsets pick from.
#[derive(Debug)]
pub(crate) struct CrowdPipelines {
    pub classify: wgpu::ComputePipeline,
    pub scan: wgpu::ComputePipeline,
    pub emit: wgpu::ComputePipeline,
    pub sort_block: wgpu::ComputePipeline,
    pub sort_step: wgpu::ComputePipeline,
    pub gather: wgpu::ComputePipeline,
    pub steps: SortSteps,
}

/// Every step of a bitonic sort of up to 2^[`SortSteps::MAX_LOG`] keys, for
/// both sorted buckets, one [`SortStep`] per `stride` bytes (the device's
/// uniform offset alignment), so a dispatch picks its step with a dynamic
/// offset: WebGPU has no push constants.
#[derive(Debug)]
pub(crate) struct SortSteps {
    pub buffer: wgpu::Buffer,
    stride: u64,
    /// Steps of one region in the table.
    per_region: u64,
}

impl SortSteps {
    /// The largest sorted bucket: 2^31 keys.
    const MAX_LOG: u32 = 31;

    /// The steps of one bucket's sort, in table order: the block sort
    /// (`k == 0`), then for each sequence length `k` from 2 × SORT_BLOCK up
    /// to the size, the global steps `j = k/2 .. SORT_BLOCK` and the block
    /// merge (`j == 0`).
    fn table(region: u32, log_size: u32) -> impl Iterator<Item = SortStep> {
        let first = SORT_BLOCK.trailing_zeros() + 1;
        let block = std::iter::once(SortStep {
            region,
            ..SortStep::default()
        });
        let merges = (first..=log_size).flat_map(move |log_k| {
            let k = 1u32 << log_k;
            let global = (SORT_BLOCK.trailing_zeros()..log_k)
                .rev()
                .map(move |log_j| SortStep {
                    k,
                    j: 1 << log_j,
                    region,
                    _pad: 0,
                });
            global.chain(std::iter::once(SortStep {
                k,
                j: 0,
                region,
                _pad: 0,
            }))
        });
        block.chain(merges)
    }

    fn new(device: &wgpu::Device) -> SortSteps {
        let stride = u64::from(device.limits().min_uniform_buffer_offset_alignment)
            .max(size_of::<SortStep>() as u64);
        let steps: Vec<SortStep> = (0..2)
            .flat_map(|region| SortSteps::table(region, SortSteps::MAX_LOG))
            .collect();
        let mut bytes = vec![0u8; steps.len() * stride as usize];
        for (i, step) in steps.iter().enumerate() {
            let at = i * stride as usize;
            bytes[at..at + size_of::<SortStep>()].copy_from_slice(bytemuck::bytes_of(step));
        }
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu crowd sort steps"),
            contents: &bytes,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        SortSteps {
            buffer,
            stride,
            per_region: (steps.len() / 2) as u64,
        }
    }

    /// The steps that sort `region`'s `size` keys (a power of two, at least
    /// SORT_BLOCK), each with its dynamic offset.
    pub fn sort(&self, region: u32, size: u32) -> impl Iterator<Item = (SortStep, u32)> + '_ {
        let log_size = size.trailing_zeros();
        SortSteps::table(region, log_size)
            .enumerate()
            .map(move |(i, step)| {
                let index = u64::from(region) * self.per_region + i as u64;
                (step, (index * self.stride) as u32)
            })
    }

    /// The dynamic offset of `region`'s first step, for the passes that
    /// read only its region (and offset 0 for those that read nothing).
    pub fn region(&self, region: u32) -> u32 {
        self.sort(region, SORT_BLOCK).next().map_or(0, |(_, at)| at)
    }
}

impl AsRef<Md2Cache> for Md2Cache {
    fn as_ref(&self) -> &Md2Cache {
        self
    }
}

impl Md2Cache {
    /// Compiles the shaders and makes the shared objects. Fails only if the
    /// device lacks what [`required_limits`](crate::required_limits) lists.
    pub fn new(device: &wgpu::Device) -> Result<Md2Cache, SetupError> {
        check_device(device)?;
        let module = |label: &str, source: &'static str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(source)),
            })
        };
        let anorms = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu normal table"),
            contents: bytemuck::cast_slice(&ANORMS),
            usage: wgpu::BufferUsages::STORAGE,
        });
        // Repeat: real files have st outside the skin. Mipmaps keep crowds
        // seen from afar from shimmering.
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("md2-wgpu skin sampler"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        Ok(Md2Cache(Arc::new(CacheInner {
            md2: module("md2-wgpu shader", MD2_WGSL),
            crowd: module("md2-wgpu crowd shader", CROWD_WGSL),
            layouts: Layouts::new(device),
            sampler,
            anorms,
            pipelines: Mutex::new(HashMap::new()),
            capture: OnceLock::new(),
            crowd_passes: OnceLock::new(),
        })))
    }

    pub(crate) fn layouts(&self) -> &Layouts {
        &self.0.layouts
    }

    /// Group 0 of every render pipeline for a view whose uniform is `view`:
    /// the view and the sampler.
    pub(crate) fn view_group(&self, device: &wgpu::Device, view: &wgpu::Buffer) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu view bind group"),
            layout: &self.0.layouts.view,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: view.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&self.0.sampler),
                },
            ],
        })
    }

    /// The layouts of groups 0 (view) and 1 (model) of md2.wgsl, for the
    /// crowd benchmark's baselines, which bind the crate's own groups.
    #[doc(hidden)]
    pub fn render_layouts(&self) -> [&wgpu::BindGroupLayout; 2] {
        [&self.0.layouts.view, &self.0.layouts.model]
    }

    /// The layout of a model's bind group (group 1 of md2.wgsl, and of
    /// [`MD2_POSE_WGSL`](crate::MD2_POSE_WGSL)): the model's counts, packed
    /// frames, frame parameters and normal table, and its skins. Bind a
    /// [`GpuModel::bind_group`](crate::GpuModel::bind_group) with it.
    pub fn model_layout(&self) -> &wgpu::BindGroupLayout {
        &self.0.layouts.model
    }

    /// The layout of a view's bind group (group 0 of md2.wgsl): the view
    /// uniform (`Md2View`) and the skin sampler.
    pub fn view_layout(&self) -> &wgpu::BindGroupLayout {
        &self.0.layouts.view
    }

    /// Quake II's normal table on the GPU, which every model's bind group
    /// binds.
    pub(crate) fn anorms(&self) -> &wgpu::Buffer {
        &self.0.anorms
    }

    /// The built-in pipeline for `key`, built on first use.
    pub(crate) fn pipeline(&self, device: &wgpu::Device, key: BuiltinKey) -> wgpu::RenderPipeline {
        let mut pipelines = self
            .0
            .pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        pipelines
            .entry(key)
            .or_insert_with(|| self.build(device, &key))
            .clone()
    }

    fn build(&self, device: &wgpu::Device, key: &BuiltinKey) -> wgpu::RenderPipeline {
        let md2 = &self.0.md2;
        let layout = &self.0.layouts.render_pipeline;
        let Some((format, encode)) = key.color else {
            return pipeline::build(device, &key.pass, None, md2, layout);
        };
        let color = |blend| wgpu::ColorTargetState {
            format,
            blend,
            write_mask: wgpu::ColorWrites::ALL,
        };
        // Translucent surfaces, shells and shadows leave the motion target
        // alone: a pixel's motion is that of the opaque surface behind.
        let motion = |write_mask| {
            key.motion.map(|format| wgpu::ColorTargetState {
                format,
                blend: None,
                write_mask,
            })
        };
        let opaque: Vec<_> = std::iter::once(color(None))
            .chain(motion(wgpu::ColorWrites::ALL))
            .collect();
        let blended: Vec<_> = std::iter::once(color(Some(wgpu::BlendState::ALPHA_BLENDING)))
            .chain(motion(wgpu::ColorWrites::empty()))
            .collect();
        let fragment = match (key.motion.is_some(), encode) {
            (false, false) => entry::FS_BUILTIN,
            (false, true) => entry::FS_BUILTIN_SRGB,
            (true, false) => entry::FS_BUILTIN_MOTION,
            (true, true) => entry::FS_BUILTIN_MOTION_SRGB,
        };
        let shading = Shading {
            module: md2,
            layout,
            // Motion needs the previous transform and pose.
            extra: key.motion.is_some(),
            fragment,
            opaque_targets: &opaque,
            blended_targets: &blended,
        };
        pipeline::build(device, &key.pass, Some(&shading), md2, layout)
    }

    /// The module and layout of depth-only pipelines (which any shading
    /// shares), for materials.
    pub(crate) fn depth_only_parts(&self) -> (&wgpu::ShaderModule, &wgpu::PipelineLayout) {
        (&self.0.md2, &self.0.layouts.render_pipeline)
    }

    /// The captures of a pose and of motion, built on first use.
    pub(crate) fn capture_pipelines(&self, device: &wgpu::Device) -> &[wgpu::ComputePipeline; 2] {
        self.0.capture.get_or_init(|| {
            [entry::CS_CAPTURE, entry::CS_CAPTURE_MOTION].map(|entry_point| {
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some("md2-wgpu capture pipeline"),
                    layout: Some(&self.0.layouts.capture_pipeline),
                    module: &self.0.md2,
                    entry_point: Some(entry_point),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
        })
    }

    /// The crowd's compute pipelines, built on first use.
    pub(crate) fn crowd_pipelines(&self, device: &wgpu::Device) -> &CrowdPipelines {
        self.0.crowd_passes.get_or_init(|| {
            let pipeline = |label: &str, entry_point: &str| {
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(label),
                    layout: Some(&self.0.layouts.crowd_pipeline),
                    module: &self.0.crowd,
                    entry_point: Some(entry_point),
                    compilation_options: Default::default(),
                    cache: None,
                })
            };
            CrowdPipelines {
                classify: pipeline("md2-wgpu crowd classify pipeline", entry::CS_CLASSIFY),
                scan: pipeline("md2-wgpu crowd scan pipeline", entry::CS_SCAN),
                emit: pipeline("md2-wgpu crowd emit pipeline", entry::CS_EMIT),
                sort_block: pipeline("md2-wgpu crowd sort block pipeline", entry::CS_SORT_BLOCK),
                sort_step: pipeline("md2-wgpu crowd sort step pipeline", entry::CS_SORT_STEP),
                gather: pipeline("md2-wgpu crowd gather pipeline", entry::CS_GATHER),
                steps: SortSteps::new(device),
            }
        })
    }

    /// Group 0 of the crowd's compute passes for a view whose uniform is
    /// `view`.
    pub(crate) fn crowd_camera_group(
        &self,
        device: &wgpu::Device,
        view: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu crowd camera bind group"),
            layout: &self.0.layouts.crowd_camera,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: view.as_entire_binding(),
            }],
        })
    }

    /// Group 2 of the crowd's compute passes for one view of one crowd.
    pub(crate) fn crowd_view_group(
        &self,
        device: &wgpu::Device,
        frame: &wgpu::Buffer,
        records: &wgpu::Buffer,
        work: &wgpu::Buffer,
        steps: &SortSteps,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu crowd view bind group"),
            layout: &self.0.layouts.crowd_view,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: frame.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: records.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: work.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &steps.buffer,
                        offset: 0,
                        size: std::num::NonZeroU64::new(size_of::<SortStep>() as u64),
                    }),
                },
            ],
        })
    }
}
