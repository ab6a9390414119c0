//! Reading back what the shader computes for a pose, and for a motion
//! vector, for tests that compare them with the CPU reference. Not part of
//! the supported API.
//!
//! It runs the compute entry points of `shaders/testing/capture.wgsl`, a
//! module of its own that follows the render module and calls the same
//! `md2_pose_vertex` and `md2_vertex` functions as every vertex entry
//! point: the numbers compared are the numbers drawn.

use std::borrow::Cow;

use wgpu::util::DeviceExt;

use super::headless::read_buffer;
use crate::anim::Pose;
use crate::contract::crowd::WORKGROUP_SIZE;
use crate::contract::{CAPTURE_WGSL, ExtraRecord, InstanceRecord, ViewUniform, entry, phase};
use crate::gpu::GpuModel;
use crate::gpu::device::buffers::ready_error;
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::device::layouts::{storage, uniform};
use crate::gpu::error::PrepareError;
use crate::scene::{
    Camera, InstanceError, InstancePolicy, Md2Instance, Packed, PlanarShadow, pack, pose_words,
};

/// `capture.wgsl`'s `Md2CaptureParams`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct CaptureParams {
    pub frames: [u32; 4],
    pub lerp: [f32; 4],
    pub rows: [[f32; 4]; 3],
    pub previous_frames: [u32; 4],
    pub previous_lerp: [f32; 4],
    pub previous_rows: [[f32; 4]; 3],
}

/// Every vertex of a pose as the shader computes it, in Quake axes.
#[derive(Clone, Debug, PartialEq)]
pub struct CapturedPose {
    /// Positions in model units.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals.
    pub normals: Vec<[f32; 3]>,
}

/// How [`PoseCapture::capture_motion`] sees an instance: the camera and
/// the previous frame's view-projection, the planar shadow (for the
/// shadow phase), how far the vertices are pushed along their normals (a
/// shell), and the phase (`MD2_PHASE_*`; 3 projects onto `shadow`'s
/// plane; opaque where `None`).
#[derive(Clone, Copy, Debug)]
pub struct MotionProbe<'a> {
    /// The current camera.
    pub camera: &'a Camera,
    /// The previous frame's view-projection.
    pub previous_view_proj: glam::Mat4,
    /// The planar shadow the shadow phase projects onto.
    pub shadow: Option<&'a PlanarShadow>,
    /// The push along the normals.
    pub push: f32,
    /// The phase.
    pub pass: Option<u32>,
}

/// Every vertex's motion vector and where it is now, as the vertex stage
/// computes them.
#[derive(Clone, Debug, PartialEq)]
pub struct CapturedMotion {
    /// `md2_motion`: UV units, current minus previous, y down.
    pub motion: Vec<[f32; 2]>,
    /// Normalised device coordinates now.
    pub ndc: Vec<[f32; 2]>,
}

/// Evaluates poses and motion on the GPU with the capture module's
/// pipelines (groups: the cache's view layout, its model layout, and the
/// capture's own parameters and output).
#[derive(Debug)]
pub struct PoseCapture {
    view: wgpu::Buffer,
    globals: wgpu::BindGroup,
    io_layout: wgpu::BindGroupLayout,
    /// `md2_cs_capture`, `md2_cs_capture_motion`.
    pipelines: [wgpu::ComputePipeline; 2],
}

impl PoseCapture {
    /// Builds what a capture binds (needs compute shaders).
    pub fn new(device: &wgpu::Device, cache: &impl AsRef<Md2Cache>) -> PoseCapture {
        let cache = cache.as_ref();
        // The pose capture reads no view; the motion capture writes the
        // cameras here first.
        let view = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu capture view"),
            size: size_of::<ViewUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals = cache.view_group(device, &view);
        let io_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("md2-wgpu capture io layout"),
            entries: &[
                uniform(0, wgpu::ShaderStages::COMPUTE, size_of::<CaptureParams>()),
                storage(1, wgpu::ShaderStages::COMPUTE, false),
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("md2-wgpu capture pipeline layout"),
            bind_group_layouts: &[
                Some(cache.view_layout()),
                Some(cache.model_layout()),
                Some(&io_layout),
            ],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("md2-wgpu capture shader"),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(CAPTURE_WGSL)),
        });
        let pipelines = [entry::CS_CAPTURE, entry::CS_CAPTURE_MOTION].map(|entry_point| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("md2-wgpu capture pipeline"),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: Default::default(),
                cache: None,
            })
        });
        PoseCapture {
            view,
            globals,
            io_layout,
            pipelines,
        }
    }

    /// Every vertex of `model` in `pose`, pushed `push` model units out
    /// along its normal (0, or [`SHELL_OFFSET`](crate::scene::SHELL_OFFSET) for a
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
            model.frame_count(),
            model.skin_count(),
            InstancePolicy::Clamp,
            0,
            0,
        ) && !matches!(problem, InstanceError::NotFinite { .. })
        {
            return Err(problem.into());
        }
        let (frames, [t, t2, weight]) = pose_words(pose);
        self.posed((device, queue), model, frames, [t, t2, weight, push])
    }

    /// Every vertex of `model` posed by `md2_pose_vertex` from the words
    /// exactly as given, checked by nothing on the CPU: what a host that
    /// hands the pose WGSL hostile words gets (frames past the model, NaN
    /// factors). Positions and normals, as [`capture`](Self::capture).
    pub fn capture_raw(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &GpuModel,
        frames: [u32; 4],
        lerp: [f32; 3],
    ) -> Result<CapturedPose, PrepareError> {
        let [t, t2, weight] = lerp;
        self.posed((device, queue), model, frames, [t, t2, weight, 0.0])
    }

    /// The capture of `frames` blended by `lerp` (t, secondary t, weight,
    /// and the push along the normal), as the shader reads the words.
    fn posed(
        &self,
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        model: &GpuModel,
        frames: [u32; 4],
        lerp: [f32; 4],
    ) -> Result<CapturedPose, PrepareError> {
        let params = CaptureParams {
            frames,
            lerp,
            ..CaptureParams::default()
        };
        let floats = self.run((device, queue), model, &params, 0)?;
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
    /// the crowd writes it) with `previous` (its extra record), seen as
    /// `probe` says.
    pub fn capture_motion(
        &self,
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        model: &GpuModel,
        probe: MotionProbe<'_>,
        current: &InstanceRecord,
        previous: &ExtraRecord,
    ) -> Result<CapturedMotion, PrepareError> {
        let MotionProbe {
            camera,
            previous_view_proj,
            shadow,
            push,
            pass,
        } = probe;
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
                pass.unwrap_or(phase::OPAQUE) as f32,
            ],
            previous_rows: previous.rows,
        };
        let floats = self.run((device, queue), model, &params, 1)?;
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
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        model: &GpuModel,
        params: &CaptureParams,
        which: usize,
    ) -> Result<Vec<f32>, PrepareError> {
        let count = u64::from(model.vertex_count());
        let bytes = count * 32;
        let device_error = |operation, message| PrepareError::Device { operation, message };
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
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
        let io_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu capture io"),
            layout: &self.io_layout,
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
            pass.set_pipeline(&self.pipelines[which]);
            pass.set_bind_group(0, &self.globals, &[]);
            pass.set_bind_group(1, model.bind_group(), &[]);
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

#[cfg(test)]
mod tests {
    use super::CaptureParams;
    use crate::contract::CAPTURE_WGSL;
    use crate::contract::mirrors::{check, mirror, parse};

    #[test]
    fn the_capture_module_validates_and_its_params_match() {
        let module = parse("the capture module", CAPTURE_WGSL);
        check(
            &module,
            &mirror!(
                CaptureParams,
                "Md2CaptureParams",
                [
                    frames,
                    lerp,
                    rows,
                    previous_frames,
                    previous_lerp,
                    previous_rows
                ]
            ),
        );
    }
}
