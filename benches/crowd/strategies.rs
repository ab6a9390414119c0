//! The three ways of drawing an animated crowd, behind one interface.
//!
//! - `gpu`: this crate. Per frame only the instance records (and the camera,
//!   when it changes) are written; md2.wgsl decodes and interpolates.
//! - `cpu`: the Quake II / Yamagi / vkQuake2 way. Per frame every vertex of
//!   every instance is decoded and interpolated by the crate's CPU reference
//!   ([`md2_wgpu::reference::blend`], which also renormalises the normals,
//!   as the GPU does and Quake II did not) and uploaded as float positions
//!   and normals through reused staging memory; one instanced draw reads
//!   them (`vs_posed`).
//! - `static`: the limit. Every frame decoded once at load into float
//!   positions and normals; each instance draws its frame a (`vs_static`),
//!   no decode, no interpolation.
//!
//! The baselines get every advantage the crate has: one instanced draw for
//! the whole crowd (Quake II issued a draw per entity), the same welded
//! corners and index list, the same skin texture size and sampler, the same
//! fragment shader.

use std::borrow::Cow;
use std::collections::HashMap;

use glam::Mat4;
use image::RgbaImage;
use image::imageops::{self, FilterType};
use md2_wgpu::{
    Camera, GpuModel, Md2Instance, Md2Model, Md2Renderer, Md2RendererOptions, reference,
};
use wgpu::util::DeviceExt;

use crate::gpu::{COLOR_FORMAT, DEPTH_FORMAT, Gpu, Target};
use crate::scene::{BenchModel, Crowd};

/// Bytes `Md2Renderer::prepare` writes per instance (its documentation:
/// "76 bytes an instance"; the record itself is private to the crate).
pub const RENDERER_INSTANCE_BYTES: u64 = 76;

/// md2.wgsl with the baselines' vertex stages appended: see
/// shaders/crowd_baselines.wgsl.part.
fn baseline_shader_source() -> String {
    let md2 = include_str!("../../src/gpu/shader/md2.wgsl");
    let baselines = include_str!("baselines.wgsl.part");
    format!("{md2}\n{baselines}")
}

/// Which strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Gpu,
    Cpu,
    Static,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Gpu, Kind::Cpu, Kind::Static];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Gpu => "gpu",
            Kind::Cpu => "cpu",
            Kind::Static => "static",
        }
    }

    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One way of drawing the crowd.
pub trait Strategy {
    /// Everything the application thread does for simulated frame `frame`
    /// before the submit: animation, CPU work, buffer writes, encoding.
    fn frame(
        &mut self,
        gpu: &Gpu,
        target: &Target,
        crowd: &Crowd,
        frame: u64,
    ) -> Result<wgpu::CommandBuffer, String>;

    /// Bytes written to the GPU per frame once the camera is in place.
    fn upload_bytes_per_frame(&self) -> u64;

    /// GPU bytes held for the model's vertex data (positions and normals in
    /// whatever form the strategy keeps them).
    fn gpu_model_bytes(&self) -> u64;
}

/// Builds strategy `kind` for drawing `crowd` (of `model`).
pub fn build(
    kind: Kind,
    gpu: &Gpu,
    model: &BenchModel,
    crowd: &Crowd,
) -> Result<Box<dyn Strategy>, String> {
    Ok(match kind {
        Kind::Gpu => Box::new(GpuStrategy::new(gpu, model)?),
        Kind::Cpu => Box::new(Baseline::new(gpu, model, crowd, Source::Posed)?),
        Kind::Static => Box::new(Baseline::new(gpu, model, crowd, Source::Static)?),
    })
}

/// The crate's renderer.
pub struct GpuStrategy {
    renderer: Md2Renderer,
    model: GpuModel,
    /// Kept from frame to frame, as an application keeps its instances:
    /// each frame sets the poses.
    instances: Vec<Md2Instance>,
}

impl GpuStrategy {
    pub fn new(gpu: &Gpu, model: &BenchModel) -> Result<GpuStrategy, String> {
        let renderer = Md2Renderer::new(&gpu.device, COLOR_FORMAT, Md2RendererOptions::WITH_DEPTH)
            .map_err(|e| e.to_string())?;
        let gpu_model = GpuModel::new(
            &gpu.device,
            &gpu.queue,
            &renderer,
            &model.model,
            &model.skins,
        )
        .map_err(|e| e.to_string())?;
        Ok(GpuStrategy {
            renderer,
            model: gpu_model,
            instances: Vec::new(),
        })
    }

    pub fn renderer(&self) -> &Md2Renderer {
        &self.renderer
    }

    pub fn model(&self) -> &GpuModel {
        &self.model
    }
}

impl Strategy for GpuStrategy {
    fn frame(
        &mut self,
        gpu: &Gpu,
        target: &Target,
        crowd: &Crowd,
        frame: u64,
    ) -> Result<wgpu::CommandBuffer, String> {
        if self.instances.len() != crowd.members.len() {
            self.instances = crowd
                .members
                .iter()
                .map(|m| Md2Instance {
                    transform: m.transform,
                    skin: m.skin,
                    tint: m.tint,
                    ..Md2Instance::default()
                })
                .collect();
        }
        for (instance, m) in self.instances.iter_mut().zip(&crowd.members) {
            instance.pose = crowd.pose(m, frame);
        }
        self.renderer
            .prepare(
                &gpu.device,
                &gpu.queue,
                &crowd.camera,
                &[(&self.model, &self.instances)],
            )
            .map_err(|e| e.to_string())?;
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("md2-wgpu crowd bench gpu frame"),
            });
        {
            let mut pass = target.begin(&mut encoder);
            self.renderer.render(&mut pass);
        }
        Ok(encoder.finish())
    }

    fn upload_bytes_per_frame(&self) -> u64 {
        RENDERER_INSTANCE_BYTES * self.instances.len() as u64
    }

    fn gpu_model_bytes(&self) -> u64 {
        self.model.gpu_bytes_breakdown().vertex_data
    }
}

/// Where a baseline's float vertices come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// Every frame decoded once, at load.
    Static,
    /// Every instance decoded and interpolated on the CPU, every frame.
    Posed,
}

/// The per-instance record of the baselines: md2.wgsl's instance record
/// without the pose (one frame for `static`, unused by `cpu`).
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct BaselineInstance {
    rows: [[f32; 4]; 3],
    frame: u32,
    skin: u32,
    tint: [u8; 4],
}

const BASELINE_ATTRIBUTES: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    2 => Float32x4,
    3 => Float32x4,
    4 => Float32x4,
    5 => Uint32,
    7 => Uint32,
    8 => Unorm8x4,
];

/// md2.wgsl's `CornerIn`: a welded (xyz, st) pair.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Corner {
    xyz: u32,
    uv: [f32; 2],
}

/// The `BaselineInfo` uniform of crowd_baselines.wgsl.part.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct BaselineInfo {
    num_xyz: u32,
    num_frames: u32,
    pad: [u32; 2],
}

/// md2.wgsl's `Camera` uniform, filled as `Md2Renderer` fills it (the
/// renderer's own conversion is private to the crate).
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct CameraUniform {
    view_proj: [[f32; 4]; 4],
    towards_light: [f32; 4],
    light_color: [f32; 4],
    ambient: [f32; 4],
}

impl CameraUniform {
    fn new(camera: &Camera) -> CameraUniform {
        let towards = camera.light.towards_light.normalize_or_zero();
        CameraUniform {
            view_proj: camera.view_proj.to_cols_array_2d(),
            towards_light: towards.extend(0.0).to_array(),
            light_color: camera.light.color.extend(0.0).to_array(),
            ambient: camera.light.ambient.extend(0.0).to_array(),
        }
    }
}

/// `static` and `cpu`: float vertices read by a plain vertex stage.
pub struct Baseline {
    source: Source,
    model: Md2Model,
    pipeline: wgpu::RenderPipeline,
    bind_groups: [wgpu::BindGroup; 3],
    corners: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_format: wgpu::IndexFormat,
    index_count: u32,
    instances: wgpu::Buffer,
    positions: wgpu::Buffer,
    normals: wgpu::Buffer,
    /// The instance records, kept from frame to frame (`static` sets the
    /// frames each frame) and uploaded every frame, as the renderer uploads
    /// its own.
    packed: Vec<BaselineInstance>,
    posed_positions: Vec<[f32; 3]>,
    posed_normals: Vec<[f32; 3]>,
    /// `cpu`'s upload path: staging memory reused from frame to frame, as a
    /// renderer streaming vertices keeps a persistently mapped ring
    /// (`queue.write_buffer` would take fresh staging memory every frame,
    /// and faulting in ~50 MB of new pages costs as much as the
    /// interpolation itself).
    belt: Option<wgpu::util::StagingBelt>,
}

impl Baseline {
    fn new(
        gpu: &Gpu,
        model: &BenchModel,
        crowd: &Crowd,
        source: Source,
    ) -> Result<Baseline, String> {
        let device = &gpu.device;
        let bench_model = model;
        let model = &bench_model.model;
        let count = crowd.members.len();
        let num_xyz = model.vertex_count();

        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);

        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("md2-wgpu crowd bench baselines"),
            source: wgpu::ShaderSource::Wgsl(Cow::Owned(baseline_shader_source())),
        });
        let buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<Corner>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Uint32, 1 => Float32x2],
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<BaselineInstance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &BASELINE_ATTRIBUTES,
            }),
        ];
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("md2-wgpu crowd bench baseline pipeline"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some(match source {
                    Source::Static => "vs_static",
                    Source::Posed => "vs_posed",
                }),
                compilation_options: Default::default(),
                buffers: &buffers,
            },
            // As Md2Renderer builds its pipeline: MD2 triangles run
            // clockwise seen from outside.
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                front_face: wgpu::FrontFace::Cw,
                cull_mode: Some(wgpu::Face::Back),
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: COLOR_FORMAT,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });

        let camera = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu crowd bench camera"),
            contents: bytemuck::bytes_of(&CameraUniform::new(&crowd.camera)),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("md2-wgpu crowd bench sampler"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        let skins = upload_skins(gpu, &bench_model.skins);
        let info = BaselineInfo {
            num_xyz: num_xyz as u32,
            num_frames: model.frame_count(),
            pad: [0; 2],
        };
        let info = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu crowd bench baseline info"),
            contents: bytemuck::bytes_of(&info),
            usage: wgpu::BufferUsages::UNIFORM,
        });

        let (positions, normals, posed_positions, posed_normals) = match source {
            Source::Static => {
                let (p, n) = decode_all_frames(model)?;
                let init = |label, floats: &[[f32; 3]]| {
                    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some(label),
                        contents: bytemuck::cast_slice(floats),
                        usage: wgpu::BufferUsages::STORAGE,
                    })
                };
                (
                    init("md2-wgpu crowd bench static positions", &p),
                    init("md2-wgpu crowd bench static normals", &n),
                    Vec::new(),
                    Vec::new(),
                )
            }
            Source::Posed => {
                let floats = count * num_xyz;
                let bytes = (floats * size_of::<[f32; 3]>()).max(4) as u64;
                let limit = device.limits().max_storage_buffer_binding_size;
                if bytes > limit {
                    return Err(format!(
                        "cpu: {bytes} bytes of posed positions exceed this adapter's \
                         max_storage_buffer_binding_size ({limit})"
                    ));
                }
                let make = |label| {
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(label),
                        size: bytes,
                        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                };
                (
                    make("md2-wgpu crowd bench posed positions"),
                    make("md2-wgpu crowd bench posed normals"),
                    vec![[0.0; 3]; floats],
                    vec![[0.0; 3]; floats],
                )
            }
        };

        let (corners, indices) = weld(model);
        let corner_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu crowd bench corners"),
            contents: bytemuck::cast_slice(&corners),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let (index_bytes, index_format) = if corners.len() <= usize::from(u16::MAX) {
            let narrow: Vec<u16> = indices.iter().map(|&i| i as u16).collect();
            let mut bytes = bytemuck::cast_slice::<u16, u8>(&narrow).to_vec();
            bytes.resize(bytes.len().next_multiple_of(4), 0);
            (bytes, wgpu::IndexFormat::Uint16)
        } else {
            (
                bytemuck::cast_slice::<u32, u8>(&indices).to_vec(),
                wgpu::IndexFormat::Uint32,
            )
        };
        let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu crowd bench indices"),
            contents: &index_bytes,
            usage: wgpu::BufferUsages::INDEX,
        });
        let instances = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu crowd bench baseline instances"),
            size: (count.max(1) * size_of::<BaselineInstance>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });

        let group = |index: u32, label, entries: &[wgpu::BindGroupEntry<'_>]| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &pipeline.get_bind_group_layout(index),
                entries,
            })
        };
        let bind_groups = [
            group(
                0,
                "md2-wgpu crowd bench globals",
                &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: camera.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Sampler(&sampler),
                    },
                ],
            ),
            group(
                1,
                "md2-wgpu crowd bench skins",
                &[wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&skins),
                }],
            ),
            group(
                2,
                "md2-wgpu crowd bench vertex data",
                &[
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: info.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: positions.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: normals.as_entire_binding(),
                    },
                ],
            ),
        ];

        let oom = pollster::block_on(oom.pop());
        let validation = pollster::block_on(scope.pop());
        if let Some(e) = oom.or(validation) {
            return Err(format!("setting up a baseline: {e}"));
        }
        Ok(Baseline {
            source,
            model: model.clone(),
            pipeline,
            bind_groups,
            corners: corner_buffer,
            indices: index_buffer,
            index_format,
            index_count: indices.len() as u32,
            instances,
            positions,
            normals,
            packed: crowd
                .members
                .iter()
                .map(|m| pack(&m.quake_to_world, 0, m.skin, m.tint))
                .collect(),
            belt: (source == Source::Posed).then(|| {
                wgpu::util::StagingBelt::new(
                    device.clone(),
                    2 * (count * num_xyz * size_of::<[f32; 3]>()).max(4) as u64,
                )
            }),
            posed_positions,
            posed_normals,
        })
    }
}

impl Strategy for Baseline {
    fn frame(
        &mut self,
        gpu: &Gpu,
        target: &Target,
        crowd: &Crowd,
        frame: u64,
    ) -> Result<wgpu::CommandBuffer, String> {
        let num_xyz = self.model.vertex_count();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("md2-wgpu crowd bench baseline frame"),
            });
        match self.source {
            Source::Static => {
                for (record, m) in self.packed.iter_mut().zip(&crowd.members) {
                    record.frame = crowd.pose(m, frame).primary.frame_a;
                }
            }
            Source::Posed => {
                let outputs = self
                    .posed_positions
                    .chunks_exact_mut(num_xyz)
                    .zip(self.posed_normals.chunks_exact_mut(num_xyz));
                for (m, (positions, normals)) in crowd.members.iter().zip(outputs) {
                    let pose = crowd.pose(m, frame);
                    reference::blend(&self.model, &pose, positions, normals)
                        .map_err(|e| e.to_string())?;
                }
                if let Some(belt) = &mut self.belt {
                    for (buffer, floats) in [
                        (&self.positions, &self.posed_positions),
                        (&self.normals, &self.posed_normals),
                    ] {
                        let bytes: &[u8] = bytemuck::cast_slice(floats);
                        let Some(size) = wgpu::BufferSize::new(bytes.len() as u64) else {
                            continue;
                        };
                        belt.write_buffer(&mut encoder, buffer, 0, size)
                            .copy_from_slice(bytes);
                    }
                    belt.finish_and_recall_on_submit(&encoder);
                }
            }
        }
        gpu.queue
            .write_buffer(&self.instances, 0, bytemuck::cast_slice(&self.packed));
        {
            let mut pass = target.begin(&mut encoder);
            if !self.packed.is_empty() {
                pass.set_pipeline(&self.pipeline);
                for (index, group) in (0u32..).zip(&self.bind_groups) {
                    pass.set_bind_group(index, group, &[]);
                }
                pass.set_vertex_buffer(0, self.corners.slice(..));
                pass.set_vertex_buffer(1, self.instances.slice(..));
                pass.set_index_buffer(self.indices.slice(..), self.index_format);
                pass.draw_indexed(0..self.index_count, 0, 0..self.packed.len() as u32);
            }
        }
        Ok(encoder.finish())
    }

    fn upload_bytes_per_frame(&self) -> u64 {
        let instances = (self.packed.len() * size_of::<BaselineInstance>()) as u64;
        match self.source {
            Source::Static => instances,
            Source::Posed => instances + self.positions.size() + self.normals.size(),
        }
    }

    fn gpu_model_bytes(&self) -> u64 {
        self.positions.size() + self.normals.size()
    }
}

/// The record for one instance: the rows of its model-to-world transform
/// (Quake axes in), as `Md2Renderer` packs them.
#[inline]
fn pack(quake_to_world: &Mat4, frame: u32, skin: u32, tint: [f32; 4]) -> BaselineInstance {
    let m = quake_to_world;
    BaselineInstance {
        rows: [m.row(0), m.row(1), m.row(2)].map(|r| r.to_array()),
        frame,
        skin,
        tint: tint.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8),
    }
}

/// Float positions and normals, one triple per vertex each.
type FloatVertices = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// Every frame of `model` decoded by the CPU reference, frame-major.
fn decode_all_frames(model: &Md2Model) -> Result<FloatVertices, String> {
    let n = model.vertex_count();
    let total = n * model.frame_count() as usize;
    let mut positions = vec![[0.0; 3]; total];
    let mut normals = vec![[0.0; 3]; total];
    let frames = positions
        .chunks_exact_mut(n.max(1))
        .zip(normals.chunks_exact_mut(n.max(1)));
    for (frame, (p, nrm)) in (0u32..).zip(frames) {
        reference::decode_frame(model, frame, p, nrm).map_err(|e| e.to_string())?;
    }
    Ok((positions, normals))
}

/// The distinct (xyz, st) pairs the triangles use, in order of first use,
/// and the triangle list over them: the same corners, in the same order, as
/// `GpuModel` builds (its welding is private to the crate).
fn weld(model: &Md2Model) -> (Vec<Corner>, Vec<u32>) {
    let (w, h) = model.skin_size();
    let (w, h) = (w as f32, h as f32);
    let st = model.tex_coords();
    let mut index_of: HashMap<(u16, u16), u32> = HashMap::new();
    let mut corners = Vec::new();
    let mut indices = Vec::with_capacity(model.triangles().len() * 3);
    for tri in model.triangles() {
        for k in 0..3 {
            let index = *index_of.entry((tri.xyz[k], tri.st[k])).or_insert_with(|| {
                let tc = st[usize::from(tri.st[k])];
                corners.push(Corner {
                    xyz: u32::from(tri.xyz[k]),
                    uv: [(f32::from(tc.s) + 0.5) / w, (f32::from(tc.t) + 0.5) / h],
                });
                corners.len() as u32 - 1
            });
            indices.push(index);
        }
    }
    (corners, indices)
}

/// The skins as an sRGB texture array with a full mip chain, the size,
/// format and level count `GpuModel` gives them, so the fragment stage
/// samples the same way.
fn upload_skins(gpu: &Gpu, skins: &[RgbaImage]) -> wgpu::TextureView {
    let fallback = [RgbaImage::from_pixel(
        64,
        64,
        image::Rgba([200, 200, 200, 255]),
    )];
    let skins = if skins.is_empty() {
        &fallback[..]
    } else {
        skins
    };
    let (width, height) = skins
        .iter()
        .fold((1, 1), |(w, h), s| (w.max(s.width()), h.max(s.height())));
    let levels = 32 - width.max(height).leading_zeros();
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("md2-wgpu crowd bench skins"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: skins.len() as u32,
        },
        mip_level_count: levels,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    for (layer, skin) in (0u32..).zip(skins) {
        for level in 0..levels {
            let (w, h) = ((width >> level).max(1), (height >> level).max(1));
            let image = imageops::resize(skin, w, h, FilterType::Triangle);
            gpu.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: level,
                    origin: wgpu::Origin3d {
                        x: 0,
                        y: 0,
                        z: layer,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                image.as_raw(),
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(4 * w),
                    rows_per_image: Some(h),
                },
                wgpu::Extent3d {
                    width: w,
                    height: h,
                    depth_or_array_layers: 1,
                },
            );
        }
    }
    texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some("md2-wgpu crowd bench skins view"),
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    })
}
