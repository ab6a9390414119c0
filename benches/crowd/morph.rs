//! The ways a user would otherwise draw the crowd: the model converted to
//! glTF morph targets (every frame a target of f32 position and normal
//! deltas from the base frame, per welded corner) and drawn as engines draw
//! them:
//!
//! - `morph-loop`, Bevy's way (`bevy_pbr`'s `morph.wesl` and
//!   `mesh.wesl::morph_vertex`): per instance a weight for every target (2
//!   of them non-zero), written every frame; per vertex the shader visits
//!   every weight and skips the zeros.
//! - `morph-pair`, three.js's instanced morphing, the best case for float
//!   targets: per instance the two (target, influence) pairs; the shader
//!   reads exactly two targets.
//!
//! Bevy's targets also carry a tangent (9 floats a vertex a target); these
//! carry position and normal (6), as MD2 has no tangents: they are lighter
//! than Bevy's. Both draw the crate's records (transform, skin, tint) with
//! the render module's `md2_shade` and fragment code, as the other baselines do.

use md2_wgpu::model::KeyframeModel;
use md2_wgpu::{GpuModel, gpu::Md2Cache, mesh::RenderMesh};
use wgpu::util::DeviceExt;

use crate::baselines::{FloatVertices, Records, decode_all_frames, floats, pipeline};
use crate::gpu::Gpu;
use crate::scene::Scene;
use crate::strategies::Strategy;

/// How the shader finds its targets' weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weights {
    /// Every target's weight per instance, visited in a loop.
    Loop,
    /// The two non-zero (target, influence) pairs per instance.
    Pair,
}

pub struct Morph {
    weights: Weights,
    frame_count: usize,
    records: Records,
    pipeline: wgpu::RenderPipeline,
    group: wgpu::BindGroup,
    targets_bytes: u64,
    /// `Loop`'s per-instance weights, on the GPU and as written each frame.
    weight_buffer: Option<wgpu::Buffer>,
    weight_values: Vec<f32>,
    uploaded: u64,
}

impl Morph {
    pub fn new(
        gpu: &Gpu,
        cache: &Md2Cache,
        model: &KeyframeModel,
        gpu_model: GpuModel,
        scene: &Scene,
        weights: Weights,
    ) -> Result<Morph, String> {
        if scene.has_effects() {
            return Err("the baselines draw no effects".into());
        }
        let device = gpu.device();
        let records = Records::new(gpu, cache, gpu_model, scene)?;
        let (positions, normals) = targets(model)?;
        let limit = device.limits().max_storage_buffer_binding_size;
        let bytes = (positions.len() * size_of::<[f32; 3]>()) as u64;
        if bytes > limit {
            return Err(format!(
                "{bytes} bytes of morph targets exceed max_storage_buffer_binding_size ({limit})"
            ));
        }
        let init = |label, floats: &[[f32; 3]]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::cast_slice(floats),
                usage: wgpu::BufferUsages::STORAGE,
            })
        };
        let position_buffer = init("md2-wgpu crowd bench morph positions", &positions);
        let normal_buffer = init("md2-wgpu crowd bench morph normals", &normals);
        let frame_count = model.frame_count() as usize;
        let count = scene.members.len();
        let weight_buffer = (weights == Weights::Loop).then(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("md2-wgpu crowd bench morph weights"),
                size: (count * frame_count * 4).max(4) as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        let (entry, layout_entries) = match weights {
            Weights::Loop => ("vs_morph_loop", vec![floats(2), floats(3), floats(4)]),
            Weights::Pair => ("vs_morph_pair", vec![floats(2), floats(3)]),
        };
        let (pipeline, layout) = pipeline(device, cache, entry, &layout_entries);
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 2,
                resource: position_buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: normal_buffer.as_entire_binding(),
            },
        ];
        if let Some(buffer) = &weight_buffer {
            entries.push(wgpu::BindGroupEntry {
                binding: 4,
                resource: buffer.as_entire_binding(),
            });
        }
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu crowd bench morph targets"),
            layout: &layout,
            entries: &entries,
        });
        Ok(Morph {
            weights,
            frame_count,
            records,
            pipeline,
            group,
            targets_bytes: position_buffer.size() + normal_buffer.size(),
            weight_values: vec![
                0.0;
                if weight_buffer.is_some() {
                    count * frame_count
                } else {
                    0
                }
            ],
            weight_buffer,
            uploaded: 0,
        })
    }
}

/// The model as morph targets over its welded corners, in the crate's
/// triangle order: the base frame's corners, then per frame every corner's
/// delta from the base (positions and normals alike).
fn targets(model: &KeyframeModel) -> Result<FloatVertices, String> {
    let (frame_positions, frame_normals) = decode_all_frames(model)?;
    let mesh = RenderMesh::new(model, md2_wgpu::mesh::TriangleOrder::default());
    let num_xyz = model.vertex_count();
    let corner = |data: &[[f32; 3]], frame: usize, c: &md2_wgpu::model::Corner| {
        data[frame * num_xyz + c.xyz as usize]
    };
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    for (data, out) in [
        (&frame_positions, &mut positions),
        (&frame_normals, &mut normals),
    ] {
        out.extend(mesh.corners().iter().map(|c| corner(data, 0, c)));
        for frame in 0..model.frame_count() as usize {
            out.extend(mesh.corners().iter().map(|c| {
                let (v, base) = (corner(data, frame, c), corner(data, 0, c));
                [v[0] - base[0], v[1] - base[1], v[2] - base[2]]
            }));
        }
    }
    Ok((positions, normals))
}

impl Strategy for Morph {
    fn animate(&mut self, frame: u64) {
        self.records.animate(frame);
        if self.weights == Weights::Loop {
            // The application's morph weights, as an engine's animation
            // system writes them: every target's, two of them non-zero.
            let per = self.frame_count;
            for (weights, instance) in self
                .weight_values
                .chunks_exact_mut(per)
                .zip(self.records.instances())
            {
                weights.fill(0.0);
                let lerp = instance.pose.primary;
                weights[lerp.frame_a as usize] += 1.0 - lerp.t;
                weights[lerp.frame_b as usize] += lerp.t;
            }
        }
    }

    fn prepare(&mut self, gpu: &Gpu, _: &mut wgpu::CommandEncoder, _: u64) -> Result<(), String> {
        let mut uploaded = 0;
        if let Some(buffer) = &self.weight_buffer {
            let bytes: &[u8] = bytemuck::cast_slice(&self.weight_values);
            gpu.queue().write_buffer(buffer, 0, bytes);
            uploaded += bytes.len() as u64;
        }
        self.records.prepare(gpu)?;
        self.uploaded = uploaded + self.records.uploaded_bytes();
        Ok(())
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.records.draw(pass, &self.pipeline, &self.group);
    }

    fn uploaded_bytes(&self) -> u64 {
        self.uploaded
    }

    fn gpu_model_bytes(&self) -> u64 {
        self.targets_bytes
    }
}
