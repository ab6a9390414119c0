//! What every renderer of a device shares: the shader modules, the layouts,
//! the sampler, the normal table and the pipelines, built once and keyed by
//! what the pass they draw into looks like.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use wgpu::util::DeviceExt;

use super::device::check_device;
use super::error::SetupError;
use super::options::{ColorOutput, DepthState};
use super::shader::{
    CROWD_WGSL, CULL_IN_FRAGMENT, Layouts, MD2_WGSL, SORT_BLOCK, SortStep, entry, vertex_buffers,
};
use crate::format::ANORMS;

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
    pipelines: Mutex<HashMap<PipelineKey, wgpu::RenderPipeline>>,
    capture: OnceLock<wgpu::ComputePipeline>,
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

/// Which draw a pipeline makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Draw {
    /// Lit and skinned, no blending, depth as the app says.
    Opaque,
    /// Lit and skinned, alpha-blended, depth tested but not written; culled
    /// per instance in the fragment stage.
    Translucent,
    /// Pushed out along the normals, flat colour, blended, no depth writes;
    /// culled per instance in the fragment stage.
    Shell,
    /// Projected onto the shadow plane, flat colour, blended once per pixel
    /// by the stencil (these read and write masks), no depth writes.
    Shadow { read_mask: u32, write_mask: u32 },
    /// Positions only, no colour target.
    DepthOnly,
}

/// Everything a render pipeline depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PipelineKey {
    /// The colour format and whether the shader encodes sRGB; `None` for a
    /// depth-only pass.
    pub color: Option<(wgpu::TextureFormat, bool)>,
    pub multisample: wgpu::MultisampleState,
    pub depth: Option<DepthKey>,
    pub cull_back_faces: bool,
    pub draw: Draw,
}

/// A [`DepthState`] as a hash key (the bias floats by their bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct DepthKey {
    format: wgpu::TextureFormat,
    compare: wgpu::CompareFunction,
    write: bool,
    bias: (i32, u32, u32),
}

impl From<DepthState> for DepthKey {
    fn from(d: DepthState) -> DepthKey {
        DepthKey {
            format: d.format,
            compare: d.compare,
            write: d.write,
            bias: (
                d.bias.constant,
                d.bias.slope_scale.to_bits(),
                d.bias.clamp.to_bits(),
            ),
        }
    }
}

impl DepthKey {
    fn state(&self, draw: Draw) -> wgpu::DepthStencilState {
        let writes = self.write && matches!(draw, Draw::Opaque | Draw::DepthOnly);
        let biased = matches!(draw, Draw::Opaque | Draw::DepthOnly);
        let stencil = if let Draw::Shadow {
            read_mask,
            write_mask,
        } = draw
        {
            // The first shadow fragment of a pixel passes and inverts the
            // write-mask bits, so every later one fails (see ShadowStencil).
            // Inverting, unlike incrementing, touches no bit outside the
            // mask, whatever the app keeps in the others.
            let face = wgpu::StencilFaceState {
                compare: wgpu::CompareFunction::Equal,
                fail_op: wgpu::StencilOperation::Keep,
                depth_fail_op: wgpu::StencilOperation::Keep,
                pass_op: wgpu::StencilOperation::Invert,
            };
            wgpu::StencilState {
                front: face,
                back: face,
                read_mask,
                write_mask,
            }
        } else {
            // Leave the app's stencil alone.
            wgpu::StencilState {
                front: wgpu::StencilFaceState::IGNORE,
                back: wgpu::StencilFaceState::IGNORE,
                read_mask: 0,
                write_mask: 0,
            }
        };
        wgpu::DepthStencilState {
            format: self.format,
            depth_write_enabled: Some(writes),
            depth_compare: Some(self.compare),
            stencil,
            bias: if biased {
                wgpu::DepthBiasState {
                    constant: self.bias.0,
                    slope_scale: f32::from_bits(self.bias.1),
                    clamp: f32::from_bits(self.bias.2),
                }
            } else {
                wgpu::DepthBiasState::default()
            },
        }
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

    /// Group 0 of every pipeline for a view whose uniform is `view`: the
    /// view, the normal table, the sampler.
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
                    resource: self.0.anorms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
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

    /// The render pipeline for `key`, built on first use.
    pub(crate) fn pipeline(&self, device: &wgpu::Device, key: PipelineKey) -> wgpu::RenderPipeline {
        let mut pipelines = self
            .0
            .pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        pipelines
            .entry(key)
            .or_insert_with(|| self.build(device, key))
            .clone()
    }

    fn build(&self, device: &wgpu::Device, key: PipelineKey) -> wgpu::RenderPipeline {
        let (vertex, label) = match key.draw {
            Draw::Opaque => (entry::VS_MAIN, "md2-wgpu opaque pipeline"),
            Draw::Translucent => (entry::VS_MAIN, "md2-wgpu translucent pipeline"),
            Draw::Shell => (entry::VS_SHELL, "md2-wgpu shell pipeline"),
            Draw::Shadow { .. } => (entry::VS_SHADOW, "md2-wgpu shadow pipeline"),
            Draw::DepthOnly => (entry::VS_DEPTH, "md2-wgpu depth-only pipeline"),
        };
        // Translucent instances and shells draw both windings in one draw,
        // so that they blend in one order: the fragment stage culls them.
        let cull_in_fragment = matches!(key.draw, Draw::Translucent | Draw::Shell);
        let constants = [(CULL_IN_FRAGMENT, f64::from(u8::from(key.cull_back_faces)))];
        let fragment_options = wgpu::PipelineCompilationOptions {
            constants: if cull_in_fragment { &constants } else { &[] },
            ..Default::default()
        };
        let blend = match key.draw {
            Draw::Opaque | Draw::DepthOnly => None,
            _ => Some(wgpu::BlendState::ALPHA_BLENDING),
        };
        let targets = key.color.map(|(format, encode)| {
            let fragment = match (key.draw, encode) {
                (Draw::Shell, false) => entry::FS_SHELL,
                (Draw::Shell, true) => entry::FS_SHELL_SRGB,
                (Draw::Shadow { .. }, false) => entry::FS_SHADOW,
                (Draw::Shadow { .. }, true) => entry::FS_SHADOW_SRGB,
                (_, false) => entry::FS_MAIN,
                (_, true) => entry::FS_MAIN_SRGB,
            };
            (
                fragment,
                [Some(wgpu::ColorTargetState {
                    format,
                    blend,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            )
        });
        let buffers = vertex_buffers();
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(label),
            layout: Some(&self.0.layouts.render_pipeline),
            vertex: wgpu::VertexState {
                module: &self.0.md2,
                entry_point: Some(vertex),
                compilation_options: Default::default(),
                buffers: &buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                // Measured on real files (yohko, ogro): cross(v1 - v0, v2 - v0)
                // points against the stored vertex normals in over 99% of
                // triangles, i.e. triangles run clockwise seen from outside.
                // Quake II drew them with glCullFace(GL_FRONT). QUAKE_TO_Y_UP
                // is a rotation, so the winding survives into our world;
                // mirrored instances draw with the reversed index list.
                front_face: wgpu::FrontFace::Cw,
                // A projected shadow's triangles face either way; the stencil
                // keeps them from darkening twice.
                cull_mode: (key.cull_back_faces
                    && matches!(key.draw, Draw::Opaque | Draw::DepthOnly))
                .then_some(wgpu::Face::Back),
                ..Default::default()
            },
            depth_stencil: key.depth.map(|d| d.state(key.draw)),
            multisample: key.multisample,
            fragment: targets
                .as_ref()
                .map(|(fragment, targets)| wgpu::FragmentState {
                    module: &self.0.md2,
                    entry_point: Some(fragment),
                    compilation_options: fragment_options,
                    targets,
                }),
            multiview_mask: None,
            cache: None,
        })
    }

    /// `cs_capture`, built on first use.
    pub(crate) fn capture_pipeline(&self, device: &wgpu::Device) -> &wgpu::ComputePipeline {
        self.0.capture.get_or_init(|| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("md2-wgpu capture pipeline"),
                layout: Some(&self.0.layouts.capture_pipeline),
                module: &self.0.md2,
                entry_point: Some(entry::CS_CAPTURE),
                compilation_options: Default::default(),
                cache: None,
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

    /// The key of `draw` for a pass with this colour target and options.
    pub(crate) fn key(
        color: Option<(wgpu::TextureFormat, ColorOutput)>,
        multisample: wgpu::MultisampleState,
        depth: Option<DepthState>,
        cull_back_faces: bool,
        draw: Draw,
    ) -> PipelineKey {
        PipelineKey {
            color: color.map(|(format, output)| (format, output == ColorOutput::SrgbEncoded)),
            multisample,
            depth: depth.map(DepthKey::from),
            cull_back_faces,
            draw,
        }
    }
}
