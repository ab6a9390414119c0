//! The renderer: one pipeline, built once, drawing any number of instances
//! of any number of models into the caller's render pass.

use std::borrow::Cow;
use std::num::NonZeroU64;

use wgpu::util::DeviceExt;

use super::camera::{Camera, CameraUniform};
use super::error::RenderError;
use super::instance::{GpuInstance, Md2Instance};
use super::model::{Corner, GpuModel, ready_error};
use crate::format::ANORMS;

/// The WGSL source of every pipeline in the crate.
pub(crate) const SHADER: &str = include_str!("shader/md2.wgsl");

const INSTANCE_STRIDE: u64 = size_of::<GpuInstance>() as u64;
/// The instance buffer's first size, in instances: enough for a small scene
/// without regrowing.
const MIN_INSTANCE_CAPACITY: u64 = 64;

/// How a [`Md2Renderer`] draws: chosen once, like the pipeline it builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Md2RendererOptions {
    /// The render pass's multisample state (any sample count the adapter
    /// allows for the colour format).
    pub multisample: wgpu::MultisampleState,
    /// The render pass's depth format, or `None` for a pass without depth.
    /// With one, the renderer tests and writes depth (`Less`).
    pub depth_format: Option<wgpu::TextureFormat>,
    /// Cull faces turned away from the camera (the default). MD2 triangles
    /// are wound clockwise seen from outside; the pipeline knows.
    pub cull_back_faces: bool,
}

impl Md2RendererOptions {
    /// No multisampling, no depth, back faces culled.
    pub const DEFAULT: Md2RendererOptions = Md2RendererOptions {
        multisample: wgpu::MultisampleState {
            count: 1,
            mask: !0,
            alpha_to_coverage_enabled: false,
        },
        depth_format: None,
        cull_back_faces: true,
    };

    /// [`Md2RendererOptions::DEFAULT`] with a `Depth32Float` depth buffer:
    /// what a 3D scene usually wants.
    pub const WITH_DEPTH: Md2RendererOptions = Md2RendererOptions::DEFAULT.with_depth();

    /// The same options with a `Depth32Float` depth buffer.
    pub const fn with_depth(self) -> Md2RendererOptions {
        Md2RendererOptions {
            depth_format: Some(wgpu::TextureFormat::Depth32Float),
            ..self
        }
    }

    /// The same options with `count` samples per pixel.
    pub const fn with_sample_count(self, count: u32) -> Md2RendererOptions {
        Md2RendererOptions {
            multisample: wgpu::MultisampleState {
                count,
                ..self.multisample
            },
            ..self
        }
    }
}

impl Default for Md2RendererOptions {
    fn default() -> Self {
        Md2RendererOptions::DEFAULT
    }
}

/// The limits the renderer needs from a device: WebGPU's downlevel defaults
/// (it uses 3 vertex-stage storage buffers, 2 vertex buffers, 9 vertex
/// attributes and 2 bind groups). Pass them, or the adapter's own limits,
/// as `DeviceDescriptor::required_limits`; a model's vertex data must also
/// fit `max_storage_buffer_binding_size` (a Quake II model needs at most
/// 4 MiB).
pub fn required_limits() -> wgpu::Limits {
    wgpu::Limits::downlevel_defaults()
}

/// The downlevel capabilities the renderer needs: storage buffers in the
/// vertex stage, which WebGL2 lacks.
pub fn required_downlevel_flags() -> wgpu::DownlevelFlags {
    wgpu::DownlevelFlags::VERTEX_STORAGE
}

/// One draw recorded by `prepare` for `render`.
#[derive(Debug)]
struct Draw {
    bind_group: wgpu::BindGroup,
    corners: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_format: wgpu::IndexFormat,
    index_count: u32,
    /// Range in the instance buffer, in instances.
    first_instance: u64,
    instance_count: u32,
}

/// Draws MD2 models, each with any number of independently animated
/// instances, into a render pass you own.
///
/// Per frame: [`prepare`](Md2Renderer::prepare) uploads the instances and
/// the camera (the only per-frame writes: 76 bytes an instance, 112 for the
/// camera when it changed), then [`render`](Md2Renderer::render) records one
/// instanced draw per model into your pass.
///
/// ```no_run
/// # fn frame(device: &wgpu::Device, queue: &wgpu::Queue, view: &wgpu::TextureView,
/// #          model: &md2_wgpu::Md2Model) -> Result<(), md2_wgpu::RenderError> {
/// use md2_wgpu::{Camera, FrameLerp, GpuModel, Md2Instance, Md2Renderer, Md2RendererOptions};
/// let format = wgpu::TextureFormat::Rgba8UnormSrgb;
/// let mut renderer = Md2Renderer::new(device, format, Md2RendererOptions::DEFAULT)?;
/// let gpu_model = GpuModel::new(device, queue, &renderer, model, &[])?;
/// let instances = [Md2Instance::new(glam::Mat4::IDENTITY, FrameLerp::still(0))];
/// let camera = Camera::framing_model(model, 1.0);
/// renderer.prepare(device, queue, &camera, &[(&gpu_model, &instances)])?;
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
    pipeline: wgpu::RenderPipeline,
    model_layout: wgpu::BindGroupLayout,
    globals: wgpu::BindGroup,
    camera_buffer: wgpu::Buffer,
    /// What the camera buffer holds, so an unchanged camera is not rewritten.
    camera_written: Option<CameraUniform>,
    instance_buffer: Option<wgpu::Buffer>,
    /// The packed instances of the last `prepare`, kept to reuse its memory.
    packed: Vec<GpuInstance>,
    draws: Vec<Draw>,
    color_format: wgpu::TextureFormat,
    options: Md2RendererOptions,
}

// The renderer lives wherever the application's render state lives,
// including other threads.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Md2Renderer>();
    send_sync::<GpuModel>();
};

impl Md2Renderer {
    /// Builds the pipeline for passes with this colour format and `options`.
    ///
    /// Works for sRGB and linear targets alike (the same picture): sRGB and
    /// floating-point targets receive linear colour, other targets receive
    /// colour already encoded to sRGB by the shader. Fails only if the device
    /// lacks what [`required_limits`] lists.
    pub fn new(
        device: &wgpu::Device,
        color_format: wgpu::TextureFormat,
        options: Md2RendererOptions,
    ) -> Result<Md2Renderer, RenderError> {
        check_device(device)?;
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("md2-wgpu shader"),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(SHADER)),
        });
        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("md2-wgpu globals layout"),
            entries: &[
                uniform_entry(
                    0,
                    wgpu::ShaderStages::VERTEX_FRAGMENT,
                    size_of::<CameraUniform>(),
                ),
                storage_entry(1),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let model_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("md2-wgpu model layout"),
            entries: &[
                uniform_entry(0, wgpu::ShaderStages::VERTEX, 16),
                storage_entry(1),
                storage_entry(2),
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                    count: None,
                },
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("md2-wgpu pipeline layout"),
            bind_group_layouts: &[Some(&globals_layout), Some(&model_layout)],
            immediate_size: 0,
        });

        let camera_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu camera"),
            size: size_of::<CameraUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
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
        let globals = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu globals"),
            layout: &globals_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: camera_buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: anorms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });

        let corner_attributes = wgpu::vertex_attr_array![0 => Uint32, 1 => Float32x2];
        let buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<Corner>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &corner_attributes,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: INSTANCE_STRIDE,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &GpuInstance::ATTRIBUTES,
            }),
        ];
        let fragment_entry = if shader_encodes_srgb(color_format) {
            "fs_main_linear_target"
        } else {
            "fs_main"
        };
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("md2-wgpu pipeline"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                // Measured on real files (yohko, ogro): cross(v1 - v0, v2 - v0)
                // points against the stored vertex normals in over 99% of
                // triangles, i.e. triangles run clockwise seen from outside.
                // Quake II drew them with glCullFace(GL_FRONT). QUAKE_TO_Y_UP
                // is a rotation, so the winding survives into our world.
                front_face: wgpu::FrontFace::Cw,
                cull_mode: options.cull_back_faces.then_some(wgpu::Face::Back),
                ..Default::default()
            },
            depth_stencil: options.depth_format.map(|format| wgpu::DepthStencilState {
                format,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: options.multisample,
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some(fragment_entry),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: color_format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });

        Ok(Md2Renderer {
            pipeline,
            model_layout,
            globals,
            camera_buffer,
            camera_written: None,
            instance_buffer: None,
            packed: Vec::new(),
            draws: Vec::new(),
            color_format,
            options,
        })
    }

    /// The colour format the pipeline was built for.
    pub fn color_format(&self) -> wgpu::TextureFormat {
        self.color_format
    }

    /// The options the pipeline was built with.
    pub fn options(&self) -> Md2RendererOptions {
        self.options
    }

    /// How many instances the instance buffer holds before it must grow.
    pub fn instance_capacity(&self) -> u64 {
        self.instance_buffer
            .as_ref()
            .map_or(0, |b| b.size() / INSTANCE_STRIDE)
    }

    pub(crate) fn model_layout(&self) -> &wgpu::BindGroupLayout {
        &self.model_layout
    }

    /// Uploads what the next [`render`](Md2Renderer::render) draws: every
    /// batch's instances (a model and its instances) and the camera.
    ///
    /// Every instance is checked first: a frame or skin the model does not
    /// have is an error naming the batch, the instance and the value, and
    /// nothing is drawn until the next successful `prepare`. The instance
    /// buffer grows geometrically and is reused; with a stable instance
    /// count no memory is allocated, on the CPU or the GPU.
    ///
    /// Call it once per queue submission: like any `queue.write_buffer`, a
    /// second `prepare` before the submit replaces what the first one's
    /// draws read.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        camera: &Camera,
        batches: &[(&GpuModel, &[Md2Instance])],
    ) -> Result<(), RenderError> {
        self.draws.clear();
        self.packed.clear();
        let result = self.pack_and_upload(device, queue, batches);
        if result.is_err() {
            self.draws.clear();
        }
        result?;
        let uniform = camera.uniform();
        if self.camera_written != Some(uniform) {
            queue.write_buffer(&self.camera_buffer, 0, bytemuck::bytes_of(&uniform));
            self.camera_written = Some(uniform);
        }
        Ok(())
    }

    fn pack_and_upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        batches: &[(&GpuModel, &[Md2Instance])],
    ) -> Result<(), RenderError> {
        let total: usize = batches.iter().map(|(_, instances)| instances.len()).sum();
        let bytes = total as u64 * INSTANCE_STRIDE;
        let max_buffer_size = device.limits().max_buffer_size;
        if bytes > max_buffer_size || u32::try_from(total).is_err() {
            return Err(RenderError::TooManyInstances {
                instances: total,
                bytes,
                limit: max_buffer_size,
            });
        }
        self.packed.reserve(total);
        for (batch, (model, instances)) in batches.iter().enumerate() {
            let first_instance = self.packed.len() as u64;
            for (index, instance) in instances.iter().enumerate() {
                self.packed.push(GpuInstance::pack(
                    instance,
                    model.frame_count,
                    model.skin_count(),
                    batch,
                    index,
                )?);
            }
            if !instances.is_empty() {
                self.draws.push(Draw {
                    bind_group: model.bind_group.clone(),
                    corners: model.corners.clone(),
                    indices: model.indices.clone(),
                    index_format: model.index_format,
                    index_count: model.index_count,
                    first_instance,
                    instance_count: instances.len() as u32,
                });
            }
        }
        if total == 0 {
            return Ok(());
        }
        self.grow_instance_buffer(device, bytes, max_buffer_size)?;
        if let Some(buffer) = &self.instance_buffer {
            queue.write_buffer(buffer, 0, bytemuck::cast_slice(&self.packed));
        }
        Ok(())
    }

    /// Makes the instance buffer at least `bytes` long (growing it to the
    /// next power of two, so a growing crowd reallocates a logarithmic number
    /// of times).
    fn grow_instance_buffer(
        &mut self,
        device: &wgpu::Device,
        bytes: u64,
        max_buffer_size: u64,
    ) -> Result<(), RenderError> {
        let fits = self
            .instance_buffer
            .as_ref()
            .is_some_and(|b| b.size() >= bytes);
        if !fits {
            let wanted = bytes
                .next_power_of_two()
                .max(MIN_INSTANCE_CAPACITY * INSTANCE_STRIDE);
            // Round the cap down to whole instances: any size is a multiple
            // of 4 then, as copies need.
            let cap = max_buffer_size / INSTANCE_STRIDE * INSTANCE_STRIDE;
            let size = wanted.min(cap).max(bytes);
            let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("md2-wgpu instances"),
                size,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            if let Some(message) = ready_error(oom.pop()) {
                self.instance_buffer = None;
                return Err(RenderError::Device {
                    operation: "growing the instance buffer",
                    message,
                });
            }
            self.instance_buffer = Some(buffer);
        }
        Ok(())
    }

    /// Records the draws of the last [`prepare`](Md2Renderer::prepare): one
    /// instanced draw per batch. Records nothing when there is nothing to
    /// draw. The pass must match the colour format and options the renderer
    /// was built with.
    pub fn render(&self, pass: &mut wgpu::RenderPass<'_>) {
        let Some(instances) = &self.instance_buffer else {
            return;
        };
        if self.draws.is_empty() {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.globals, &[]);
        for draw in &self.draws {
            let start = draw.first_instance * INSTANCE_STRIDE;
            let end = start + u64::from(draw.instance_count) * INSTANCE_STRIDE;
            pass.set_bind_group(1, &draw.bind_group, &[]);
            pass.set_vertex_buffer(0, draw.corners.slice(..));
            pass.set_vertex_buffer(1, instances.slice(start..end));
            pass.set_index_buffer(draw.indices.slice(..), draw.index_format);
            pass.draw_indexed(0..draw.index_count, 0, 0..draw.instance_count);
        }
    }
}

/// Whether the fragment shader must encode sRGB itself: for 8-/10-/16-bit
/// normalised targets without sRGB hardware encoding. Float targets hold
/// linear light, as sRGB ones do after decoding.
fn shader_encodes_srgb(format: wgpu::TextureFormat) -> bool {
    use wgpu::TextureFormat as F;
    !format.is_srgb()
        && !matches!(
            format,
            F::R16Float
                | F::Rg16Float
                | F::Rgba16Float
                | F::R32Float
                | F::Rg32Float
                | F::Rgba32Float
                | F::Rg11b10Ufloat
                | F::Rgb9e5Ufloat
        )
}

fn check_device(device: &wgpu::Device) -> Result<(), RenderError> {
    let limits = device.limits();
    let needs = [
        (
            "max_storage_buffers_per_shader_stage",
            3,
            limits.max_storage_buffers_per_shader_stage,
        ),
        ("max_vertex_buffers", 2, limits.max_vertex_buffers),
        ("max_vertex_attributes", 9, limits.max_vertex_attributes),
        ("max_bind_groups", 2, limits.max_bind_groups),
    ];
    for (limit_name, needed, available) in needs {
        if available < needed {
            return Err(RenderError::UnsupportedDevice {
                limit_name,
                needed,
                available,
            });
        }
    }
    Ok(())
}

fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    size: usize,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(size as u64),
        },
        count: None,
    }
}

fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_unorm_targets_get_srgb_from_the_shader() {
        use wgpu::TextureFormat as F;
        assert!(!shader_encodes_srgb(F::Rgba8UnormSrgb));
        assert!(!shader_encodes_srgb(F::Bgra8UnormSrgb));
        assert!(!shader_encodes_srgb(F::Rgba16Float));
        assert!(shader_encodes_srgb(F::Rgba8Unorm));
        assert!(shader_encodes_srgb(F::Bgra8Unorm));
        assert!(shader_encodes_srgb(F::Rgb10a2Unorm));
    }

    #[test]
    fn options_presets() {
        assert_eq!(Md2RendererOptions::default(), Md2RendererOptions::DEFAULT);
        assert_eq!(
            Md2RendererOptions::WITH_DEPTH.depth_format,
            Some(wgpu::TextureFormat::Depth32Float)
        );
        assert_eq!(
            Md2RendererOptions::DEFAULT
                .with_sample_count(4)
                .multisample
                .count,
            4
        );
    }
}
