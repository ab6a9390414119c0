//! The two baselines, drawn with as much of the crate as they can share:
//!
//! - `cpu`: the Quake II / Yamagi / vkQuake2 way. Per frame every vertex of
//!   every instance is decoded and interpolated by the crate's CPU reference
//!   ([`md2_wgpu::anim::reference::blend`], which also renormalises the normals,
//!   as the GPU does and Quake II did not) and uploaded as float positions
//!   and normals through reused staging memory; one instanced draw reads
//!   them (`vs_posed`).
//! - `static`: the limit. Every frame decoded once at load into float
//!   positions and normals; each instance draws its frame a (`vs_static`),
//!   no decode, no interpolation.
//!
//! They get every advantage the crate has, by construction rather than by
//! copying: one instanced draw for the whole crowd (Quake II issued a draw
//! per entity); the crate's own corner and index buffers, skins, sampler,
//! camera and light (groups 0 and 1 of the render module, `MD2_RENDERER_WGSL`, bound as the renderer
//! binds them); the crate's instance records, packed and uploaded by
//! `Md2Renderer::prepare`; the render module's transform, lighting and fragment
//! code (see baselines.wgsl.part). Only the float vertices are their own.

use std::borrow::Cow;

use md2_wgpu::gpu::low_level::{instance_buffer, vertex_buffer_layouts, view_bind_group};
use md2_wgpu::model::KeyframeModel;
use md2_wgpu::support::block_on;
use md2_wgpu::{
    Camera, GpuModel, Md2Instance, Md2Renderer,
    contract::{InstanceRecord, MD2_RENDERER_WGSL},
    gpu::{Md2Batch, Md2Cache},
};
use wgpu::util::DeviceExt;

use crate::gpu::{COLOR_FORMAT, DEPTH_FORMAT, Gpu};
use crate::scene::{Member, Scene};
use crate::strategies::{Strategy, instance, pose_all, renderer};

/// Where a baseline's float vertices come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Every frame decoded once, at load.
    Static,
    /// Every instance decoded and interpolated on the CPU, every frame.
    Posed,
}

/// `static` and `cpu`: float vertices read by a vertex stage of their own.
pub struct Baseline {
    source: Source,
    model: KeyframeModel,
    records: Records,
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::BindGroup,
    positions: wgpu::Buffer,
    normals: wgpu::Buffer,
    posed_positions: Vec<[f32; 3]>,
    posed_normals: Vec<[f32; 3]>,
    /// `cpu`'s upload path: staging memory reused from frame to frame, as a
    /// renderer streaming vertices keeps a persistently mapped ring
    /// (`queue.write_buffer` would take fresh staging memory every frame,
    /// and faulting in ~50 MB of new pages costs as much as the
    /// interpolation itself).
    belt: Option<wgpu::util::StagingBelt>,
    uploaded: u64,
}

impl Baseline {
    pub fn new(
        gpu: &Gpu,
        cache: &Md2Cache,
        model: &KeyframeModel,
        gpu_model: GpuModel,
        scene: &Scene,
        source: Source,
    ) -> Result<Baseline, String> {
        // Their draw reads the records in the order given, which holds
        // only while `prepare` puts none in another bucket.
        if scene.has_effects() {
            return Err("the baselines draw no effects".into());
        }
        let device = gpu.device();
        let count = scene.members.len();
        let num_xyz = model.vertex_count();
        let records = Records::new(gpu, cache, gpu_model, scene)?;

        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);

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
        let entry = match source {
            Source::Static => "vs_static",
            Source::Posed => "vs_posed",
        };
        let (pipeline, layout) = pipeline(device, cache, entry, &[floats(2), floats(3)]);
        let vertices = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu crowd bench float vertices"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: positions.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: normals.as_entire_binding(),
                },
            ],
        });

        let oom = block_on(oom.pop());
        let validation = block_on(validation.pop());
        if let Some(e) = oom.or(validation) {
            return Err(format!("setting up a baseline: {e}"));
        }
        let belt = (source == Source::Posed)
            .then(|| wgpu::util::StagingBelt::new(device.clone(), 2 * positions.size().max(4)));
        Ok(Baseline {
            source,
            model: model.clone(),
            records,
            pipeline,
            vertices,
            positions,
            normals,
            posed_positions,
            posed_normals,
            belt,
            uploaded: 0,
        })
    }
}

/// A read-only storage buffer of the vertex stage at `binding` of group 2.
pub fn floats(binding: u32) -> wgpu::BindGroupLayoutEntry {
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

/// The render module with the baselines appended, vertex stage `entry`, its groups 0
/// and 1 as the crate lays them out, a group 2 of `entries` for the
/// baseline's own vertex data, and the crate's vertex buffers; depth,
/// culling and winding as the crate's opaque pipeline has them.
pub fn pipeline(
    device: &wgpu::Device,
    cache: &Md2Cache,
    entry: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> (wgpu::RenderPipeline, wgpu::BindGroupLayout) {
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("md2-wgpu crowd bench float vertices layout"),
        entries,
    });
    let (view, model) = (cache.view_layout(), cache.model_layout());
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("md2-wgpu crowd bench baseline pipeline layout"),
        bind_group_layouts: &[Some(view), Some(model), Some(&layout)],
        immediate_size: 0,
    });
    let source_text = format!(
        "{MD2_RENDERER_WGSL}\n{}",
        include_str!("baselines.wgsl.part")
    );
    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("md2-wgpu crowd bench baselines"),
        source: wgpu::ShaderSource::Wgsl(Cow::Owned(source_text)),
    });
    // Corners and instance records: no extra records.
    let [corners, instances, _] = vertex_buffer_layouts();
    let buffers = [Some(corners), Some(instances)];
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("md2-wgpu crowd bench baseline pipeline"),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &shader,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            buffers: &buffers,
        },
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
            entry_point: Some("md2_fs_builtin"),
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
    (pipeline, layout)
}

impl Strategy for Baseline {
    fn animate(&mut self, frame: u64) {
        self.records.animate(frame);
    }

    fn prepare(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        _: u64,
    ) -> Result<(), String> {
        let mut uploaded = 0;
        if let (Source::Posed, Some(belt)) = (self.source, &mut self.belt) {
            let num_xyz = self.model.vertex_count();
            let outputs = self
                .posed_positions
                .chunks_exact_mut(num_xyz)
                .zip(self.posed_normals.chunks_exact_mut(num_xyz));
            for (instance, (positions, normals)) in self.records.instances.iter().zip(outputs) {
                md2_wgpu::anim::reference::blend(&self.model, &instance.pose, positions, normals)
                    .map_err(|e| e.to_string())?;
            }
            for (buffer, floats) in [
                (&self.positions, &self.posed_positions),
                (&self.normals, &self.posed_normals),
            ] {
                let bytes: &[u8] = bytemuck::cast_slice(floats);
                let Some(size) = wgpu::BufferSize::new(bytes.len() as u64) else {
                    continue;
                };
                belt.write_buffer(encoder, buffer, 0, size)
                    .copy_from_slice(bytes);
                uploaded += size.get();
            }
            belt.finish_and_recall_on_submit(encoder);
        }
        self.records.prepare(gpu)?;
        self.uploaded = uploaded + self.records.uploaded_bytes();
        Ok(())
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.records.draw(pass, &self.pipeline, &self.vertices);
    }

    fn uploaded_bytes(&self) -> u64 {
        self.uploaded
    }

    fn gpu_model_bytes(&self) -> u64 {
        self.positions.size() + self.normals.size()
    }
}

/// What the baselines and the decode's variants draw from: the crate's
/// renderer, which packs and uploads the instance records and the camera
/// and holds the view group the draw binds (it draws nothing itself), the
/// crate's upload of the model (its groups, corners and indices), and the
/// crowd as the application poses it. They differ only in their vertex
/// stage and its data.
pub struct Records {
    renderer: Md2Renderer,
    gpu_model: GpuModel,
    camera: Camera,
    members: Vec<Member>,
    instances: Vec<Md2Instance>,
}

impl Records {
    /// `scene`'s members as instances of `gpu_model`, packed by a renderer
    /// of `cache` with `scene`'s shadow.
    pub fn new(
        gpu: &Gpu,
        cache: &Md2Cache,
        gpu_model: GpuModel,
        scene: &Scene,
    ) -> Result<Records, String> {
        Ok(Records {
            renderer: renderer(gpu, cache, scene)?,
            gpu_model,
            camera: scene.camera,
            members: scene.members.clone(),
            instances: scene.members.iter().map(instance).collect(),
        })
    }

    /// The instances, as the last `animate` posed them.
    pub fn instances(&self) -> &[Md2Instance] {
        &self.instances
    }

    /// The crate's upload of the model.
    pub fn gpu_model(&self) -> &GpuModel {
        &self.gpu_model
    }

    /// Poses every instance at simulated frame `frame`: the application's
    /// animation work.
    pub fn animate(&mut self, frame: u64) {
        pose_all(&mut self.instances, &self.members, frame);
    }

    /// Packs and uploads the records and the camera.
    pub fn prepare(&mut self, gpu: &Gpu) -> Result<(), String> {
        self.renderer
            .prepare(
                gpu.device(),
                gpu.queue(),
                &self.camera,
                &[Md2Batch::new(&self.gpu_model, &self.instances)],
            )
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Bytes the last `prepare` wrote to the GPU.
    pub fn uploaded_bytes(&self) -> u64 {
        self.renderer.uploaded_bytes()
    }

    /// One instanced draw of every record, with a baseline's `pipeline` and
    /// its own vertex data as group 2, and the crate's groups, corners and
    /// indices.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        pipeline: &wgpu::RenderPipeline,
        vertices: &wgpu::BindGroup,
    ) {
        let Some(records) = instance_buffer(&self.renderer) else {
            return;
        };
        let count = self.instances.len() as u32;
        let buffers = self.gpu_model.buffers();
        let full_detail = self.gpu_model.level_choice().levels()[0];
        let index_count = full_detail.index_count;
        let record_bytes = u64::from(count) * size_of::<InstanceRecord>() as u64;
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, view_bind_group(&self.renderer), &[]);
        pass.set_bind_group(1, self.gpu_model.bind_group(), &[]);
        pass.set_bind_group(2, vertices, &[]);
        pass.set_vertex_buffer(0, buffers.corners.slice(..));
        pass.set_vertex_buffer(1, records.slice(..record_bytes));
        pass.set_index_buffer(buffers.indices.slice(..), buffers.index_format);
        pass.draw_indexed(0..index_count, 0, 0..count);
    }
}

/// Float positions and normals, one triple per vertex each.
pub type FloatVertices = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// Every frame of `model` decoded by the CPU reference, frame-major.
pub fn decode_all_frames(model: &KeyframeModel) -> Result<FloatVertices, String> {
    let n = model.vertex_count().max(1);
    // Every frame's packed vertices: vertices × frames.
    let total = model.vertices().len();
    let mut positions = vec![[0.0; 3]; total];
    let mut normals = vec![[0.0; 3]; total];
    let frames = positions
        .chunks_exact_mut(n)
        .zip(normals.chunks_exact_mut(n));
    for (frame, (p, nrm)) in (0u32..).zip(frames) {
        md2_wgpu::anim::reference::decode_frame(model, frame, p, nrm).map_err(|e| e.to_string())?;
    }
    Ok((positions, normals))
}
