//! Reading back what the shader computes for a pose, for tests that compare
//! it with the CPU reference. Not part of the supported API.
//!
//! It runs the `cs_capture` entry point of shaders/md2.wgsl, which calls the
//! same `pose_vertex` function as the vertex shader: the numbers compared
//! are the numbers drawn.

use std::borrow::Cow;
use std::sync::mpsc;

use glam::Mat4;
use wgpu::util::DeviceExt;

use super::error::RenderError;
use super::instance::{GpuInstance, Md2Instance, pose_words};
use super::model::{GpuModel, ready_error};
use super::renderer::SHADER;
use crate::anim::Pose;
use crate::format::ANORMS;

/// The `CaptureParams` struct of shaders/md2.wgsl.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct CaptureParams {
    frames: [u32; 4],
    lerp: [f32; 4],
}

/// Every vertex of a pose as the shader computes it, in Quake axes.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq)]
pub struct CapturedPose {
    /// Positions in model units.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals.
    pub normals: Vec<[f32; 3]>,
}

/// The compute pipeline that evaluates poses on the GPU.
#[doc(hidden)]
#[derive(Debug)]
pub struct PoseCapture {
    pipeline: wgpu::ComputePipeline,
    globals: wgpu::BindGroup,
}

impl PoseCapture {
    /// Builds the pipeline (needs compute shaders).
    pub fn new(device: &wgpu::Device) -> PoseCapture {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("md2-wgpu shader (capture)"),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(SHADER)),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("md2-wgpu capture pipeline"),
            layout: None,
            module: &shader,
            entry_point: Some("cs_capture"),
            compilation_options: Default::default(),
            cache: None,
        });
        let anorms = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu normal table (capture)"),
            contents: bytemuck::cast_slice(&ANORMS),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let globals = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu capture globals"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 1,
                resource: anorms.as_entire_binding(),
            }],
        });
        PoseCapture { pipeline, globals }
    }

    /// Every vertex of `model` in `pose` as the vertex shader computes it,
    /// before the instance transform.
    /// Frames are checked as `prepare` checks them.
    pub fn capture(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &GpuModel,
        pose: &Pose,
    ) -> Result<CapturedPose, RenderError> {
        GpuInstance::pack(
            &Md2Instance::new(Mat4::IDENTITY, *pose),
            model.frame_count,
            model.skin_count(),
            0,
            0,
        )?;
        let (frames, lerp) = pose_words(pose);
        let params = CaptureParams {
            frames,
            lerp: [lerp[0], lerp[1], lerp[2], 0.0],
        };
        let count = model.vertex_count as u64;
        let bytes = count * 32;

        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu capture params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let output = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu capture output"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu capture readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let model_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu capture model"),
            layout: &self.pipeline.get_bind_group_layout(1),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: model.info.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: model.vertex_data.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: model.frame_params.as_entire_binding(),
                },
            ],
        });
        let io_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu capture io"),
            layout: &self.pipeline.get_bind_group_layout(2),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: output.as_entire_binding(),
                },
            ],
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("md2-wgpu capture"),
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("md2-wgpu capture pass"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.globals, &[]);
            pass.set_bind_group(1, &model_group, &[]);
            pass.set_bind_group(2, &io_group, &[]);
            pass.dispatch_workgroups(count.div_ceil(64) as u32, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&output, 0, &readback, 0, bytes);
        queue.submit([encoder.finish()]);
        if let Some(message) = ready_error(scope.pop()) {
            return Err(RenderError::Device {
                operation: "capturing a pose",
                message,
            });
        }

        let (sender, receiver) = mpsc::channel();
        readback.map_async(wgpu::MapMode::Read, .., move |result| {
            // The receiver outlives the poll below; a failed send cannot happen.
            let _ = sender.send(result);
        });
        let device_error = |message: String| RenderError::Device {
            operation: "reading a pose back",
            message,
        };
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| device_error(e.to_string()))?;
        receiver
            .recv()
            .map_err(|e| device_error(e.to_string()))?
            .map_err(|e| device_error(e.to_string()))?;
        let floats: Vec<f32> = {
            let view = readback
                .get_mapped_range(..)
                .map_err(|e| device_error(e.to_string()))?;
            bytemuck::pod_collect_to_vec(&view)
        };
        readback.unmap();
        let mut positions = Vec::with_capacity(count as usize);
        let mut normals = Vec::with_capacity(count as usize);
        for v in floats.chunks_exact(8) {
            positions.push([v[0], v[1], v[2]]);
            normals.push([v[4], v[5], v[6]]);
        }
        Ok(CapturedPose { positions, normals })
    }
}
