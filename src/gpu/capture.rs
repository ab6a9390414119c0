//! Reading back what the shader computes for a pose, and for a motion
//! vector, for tests that compare them with the CPU reference. Not part of
//! the supported API.
//!
//! It runs the compute entry points of capture.wgsl, which call the same
//! `md2_pose_vertex` and `md2_vertex` functions as every vertex entry point:
//! the numbers compared are the numbers drawn.

use wgpu::util::DeviceExt;

use super::cache::Md2Cache;
use super::device::ready_error;
use super::error::{InstanceError, PrepareError};
use super::headless::read_buffer;
use super::instance::{Md2Instance, Packed, pack, pose_words};
use super::model::GpuModel;
use super::options::InstancePolicy;
use super::shader::{CaptureParams, ExtraRecord, InstanceRecord, PASS_OPAQUE, WORKGROUP_SIZE};
use crate::anim::Pose;

/// Every vertex of a pose as the shader computes it, in Quake axes.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq)]
pub struct CapturedPose {
    /// Positions in model units.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals.
    pub normals: Vec<[f32; 3]>,
}

/// Every vertex's motion vector and where it is now, as the vertex stage
/// computes them.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq)]
pub struct CapturedMotion {
    /// `md2_motion`: UV units, current minus previous, y down.
    pub motion: Vec<[f32; 2]>,
    /// Normalised device coordinates now.
    pub ndc: Vec<[f32; 2]>,
}

/// Evaluates poses and motion on the GPU with the cache's capture
/// pipelines.
#[doc(hidden)]
#[derive(Debug)]
pub struct PoseCapture {
    cache: Md2Cache,
    view: wgpu::Buffer,
    globals: wgpu::BindGroup,
}

impl PoseCapture {
    /// Builds what a capture binds (needs compute shaders).
    pub fn new(device: &wgpu::Device, cache: &impl AsRef<Md2Cache>) -> PoseCapture {
        let cache = cache.as_ref().clone();
        // The pose capture reads no view; the motion capture writes the
        // cameras here first.
        let view = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu capture view"),
            size: size_of::<super::shader::ViewUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals = cache.view_group(device, &view);
        PoseCapture {
            cache,
            view,
            globals,
        }
    }

    /// Every vertex of `model` in `pose`, pushed `push` model units out
    /// along its normal (0, or [`SHELL_OFFSET`](crate::SHELL_OFFSET) for a
    /// shell), as the vertex shaders compute it before the instance
    /// transform. Frames are checked as `prepare` checks them; blend factors
    /// are read as the shader reads whatever reaches it (clamped to
    /// `[0, 1]`, NaN as 0: the contract with the CPU reference), so that
    /// reading can be tested although `prepare` lets no NaN through under
    /// `Strict`.
    pub fn capture(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &GpuModel,
        pose: &Pose,
        push: f32,
    ) -> Result<CapturedPose, PrepareError> {
        let probe = Md2Instance::new(glam::Mat4::IDENTITY, *pose);
        if let Packed::Refused(problem) | Packed::Clamped(_, problem) = pack(
            &probe,
            model.frame_count,
            model.skin_count(),
            InstancePolicy::Clamp,
            0,
            0,
        ) && !matches!(problem, InstanceError::NotFinite { .. })
        {
            return Err(problem.into());
        }
        let (frames, lerp) = pose_words(pose);
        let params = CaptureParams {
            frames,
            lerp: [lerp[0], lerp[1], lerp[2], push],
            ..CaptureParams::default()
        };
        let floats = self.run(device, queue, model, &params, 0)?;
        let mut positions = Vec::with_capacity(floats.len() / 8);
        let mut normals = Vec::with_capacity(floats.len() / 8);
        for v in floats.chunks_exact(8) {
            positions.push([v[0], v[1], v[2]]);
            normals.push([v[4], v[5], v[6]]);
        }
        Ok(CapturedPose { positions, normals })
    }

    /// Every vertex's motion vector (UV units, as `md2_motion` gives it) and
    /// its current normalised device coordinates, as the vertex stage
    /// computes them for the instance `current` (a record as `prepare` or
    /// the crowd writes it) with `previous` (its extra record) under
    /// `camera` (and its `previous_view_proj`), pushed `push` along the
    /// normals, in the pass `pass` (md2.wgsl's MD2_PASS_*: 3 projects onto
    /// `shadow`'s plane).
    #[allow(clippy::too_many_arguments)]
    pub fn capture_motion(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &GpuModel,
        camera: &super::camera::Camera,
        previous_view_proj: glam::Mat4,
        shadow: Option<&super::effects::PlanarShadow>,
        current: &InstanceRecord,
        previous: &ExtraRecord,
        push: f32,
        pass: Option<u32>,
    ) -> Result<CapturedMotion, PrepareError> {
        let uniform = camera.uniform(shadow, false, previous_view_proj, 0.0);
        queue.write_buffer(&self.view, 0, bytemuck::bytes_of(&uniform));
        let params = CaptureParams {
            frames: current.frames.map(u32::from),
            lerp: [current.t, current.t2, current.weight, push],
            rows: current.rows,
            previous_frames: previous.frames.map(u32::from),
            previous_lerp: [
                previous.lerp[0],
                previous.lerp[1],
                previous.lerp[2],
                pass.unwrap_or(PASS_OPAQUE) as f32,
            ],
            previous_rows: previous.rows,
        };
        let floats = self.run(device, queue, model, &params, 1)?;
        let (motion, ndc) = floats
            .chunks_exact(8)
            .map(|v| ([v[0], v[1]], [v[2], v[3]]))
            .unzip();
        Ok(CapturedMotion { motion, ndc })
    }

    /// Runs capture pipeline `which` over every vertex of `model` with
    /// `params`; two vec4 per vertex come back.
    fn run(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &GpuModel,
        params: &CaptureParams,
        which: usize,
    ) -> Result<Vec<f32>, PrepareError> {
        let count = u64::from(model.vertex_count);
        let bytes = count * 32;
        let device_error = |operation, message| PrepareError::Device { operation, message };
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipeline = &self.cache.capture_pipelines(device)[which];
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu capture params"),
            contents: bytemuck::bytes_of(params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let output = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu capture output"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let layouts = self.cache.layouts();
        let model_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu capture model"),
            layout: &layouts.capture_model,
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
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: self.cache.anorms().as_entire_binding(),
                },
            ],
        });
        let io_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu capture io"),
            layout: &layouts.capture_io,
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
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &self.globals, &[]);
            pass.set_bind_group(1, &model_group, &[]);
            pass.set_bind_group(2, &io_group, &[]);
            pass.dispatch_workgroups(count.div_ceil(u64::from(WORKGROUP_SIZE)) as u32, 1, 1);
        }
        if let Some(message) = ready_error(scope.pop()) {
            return Err(device_error("capturing a pose", message));
        }
        let raw = read_buffer(device, queue, encoder, &output, 0, bytes)
            .map_err(|message| device_error("reading a pose back", message))?;
        Ok(bytemuck::pod_collect_to_vec(&raw))
    }
}
