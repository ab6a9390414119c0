//! One view's uniform (`Md2View`: the camera, the previous frame's camera,
//! the light and shadow plane) on the GPU, rewritten only where it changed,
//! and the bind groups the render pipelines and the crowds' compute passes
//! read it through.

use crate::contract::ViewUniform;
use crate::gpu::device::buffers::{buffer_init, write_changed};
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::device::crowd_pipelines::camera_group;
use crate::scene::{Camera, PlanarShadow};

#[derive(Debug)]
pub(crate) struct ViewBuffer {
    buffer: wgpu::Buffer,
    /// Group 0 of the render pipelines: the uniform and the sampler.
    group: wgpu::BindGroup,
    /// The uniform alone, group 0 of the crowds' compute passes.
    crowd_group: wgpu::BindGroup,
    /// What the buffer holds, so an unchanged camera is not rewritten.
    written: Option<ViewUniform>,
    /// The camera of the last write: the previous frame's, for motion.
    previous_view_proj: Option<glam::Mat4>,
}

impl ViewBuffer {
    /// The view's buffer (zeroed) and bind groups; an error where the
    /// device cannot make them (it was lost).
    pub fn new(device: &wgpu::Device, cache: &Md2Cache) -> Result<ViewBuffer, String> {
        // Made mapped, so a lost device is noticed here, not at the first
        // frame.
        let buffer = buffer_init(
            device,
            "md2-wgpu view",
            &[0; size_of::<ViewUniform>()],
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        Ok(ViewBuffer {
            group: cache.view_group(device, &buffer),
            crowd_group: camera_group(device, cache.layouts(), &buffer),
            buffer,
            written: None,
            previous_view_proj: None,
        })
    }

    /// Group 0 of the render pipelines.
    pub fn group(&self) -> &wgpu::BindGroup {
        &self.group
    }

    /// Group 0 of the crowds' compute passes.
    pub fn crowd_group(&self) -> &wgpu::BindGroup {
        &self.crowd_group
    }

    /// Writes the camera, the previous frame's camera and the light, with
    /// the view's shadow plane: the changed words only (a moving camera
    /// changes the matrices and the jitter, which lie first, 144 bytes; a
    /// still one nothing). Returns the bytes written.
    pub fn write(
        &mut self,
        queue: &wgpu::Queue,
        camera: &Camera,
        shadow: Option<&PlanarShadow>,
        reverse_z: bool,
        level_error_pixels: f32,
    ) -> u64 {
        let previous = self.previous_view_proj.unwrap_or(camera.view_proj);
        self.previous_view_proj = Some(camera.view_proj);
        let uniform = camera.uniform(shadow, reverse_z, previous, level_error_pixels);
        let written = write_changed(queue, &self.buffer, self.written.as_ref(), &uniform);
        self.written = Some(uniform);
        written
    }

    /// Forgets the previous frame's camera: the next frame shows no camera
    /// motion.
    pub fn reset_motion(&mut self) {
        self.previous_view_proj = None;
    }
}
