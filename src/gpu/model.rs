//! A model uploaded once: its frames as the file's bytes, its corners and
//! triangles, its skins.

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use image::RgbaImage;
use wgpu::util::DeviceExt;

use super::error::RenderError;
use super::renderer::Md2Renderer;
use super::skin_texture::upload_skins;
use crate::format::Md2Model;

/// The most frames an instance record can address (frame numbers travel as
/// `u16`; Quake II itself stopped at 512).
pub const MAX_GPU_FRAMES: usize = 1 << 16;

/// A render vertex: an (xyz, st) pair the triangles use, welded.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Corner {
    pub xyz: u32,
    pub uv: [f32; 2],
}

/// The `ModelInfo` struct of shaders/md2.wgsl.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct ModelInfo {
    num_xyz: u32,
    num_frames: u32,
    pad: [u32; 2],
}

/// How many GPU bytes a [`GpuModel`] holds, buffer by buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuModelBytes {
    /// The frames' packed vertices: exactly 4 × vertices × frames.
    pub vertex_data: u64,
    /// Per-frame scale and translate: 32 bytes a frame.
    pub frame_params: u64,
    /// The welded corners (xyz index and uv): 12 bytes each.
    pub corners: u64,
    /// The triangle list (u16 or u32 indices, padded to 4 bytes).
    pub indices: u64,
    /// The skin texture array with its mipmaps.
    pub skins: u64,
    /// The small uniform with the model's counts.
    pub info: u64,
}

impl GpuModelBytes {
    /// All of it.
    pub fn total(&self) -> u64 {
        self.vertex_data + self.frame_params + self.corners + self.indices + self.skins + self.info
    }
}

/// An [`Md2Model`] on the GPU, ready to draw any number of instances of.
///
/// Everything is uploaded once by [`GpuModel::new`] and never written again
/// while the model animates: the frames stay in the file's packed 4-byte
/// form and the vertex shader decodes them.
#[derive(Debug)]
pub struct GpuModel {
    pub(crate) bind_group: wgpu::BindGroup,
    pub(crate) corners: wgpu::Buffer,
    pub(crate) indices: wgpu::Buffer,
    pub(crate) index_format: wgpu::IndexFormat,
    pub(crate) index_count: u32,
    pub(crate) info: wgpu::Buffer,
    pub(crate) vertex_data: wgpu::Buffer,
    pub(crate) frame_params: wgpu::Buffer,
    pub(crate) frame_count: u32,
    pub(crate) vertex_count: u32,
    skin_count: u32,
    skin_size: (u32, u32),
    corner_count: u32,
    uses_default_skin: bool,
    bytes: GpuModelBytes,
}

impl GpuModel {
    /// Uploads `model` and its decoded `skins` for drawing with `renderer`
    /// (and any other renderer of this device).
    ///
    /// Skins of different sizes are scaled to the largest width and height
    /// among them. With no skins (or an empty image) the model gets a
    /// magenta-and-grey checker instead, and [`GpuModel::uses_default_skin`]
    /// says so. Texture coordinates are `(st + 0.5) / header skin size`, as
    /// Quake II's GL commands have them, so a skin image of another size than
    /// the header's still maps right.
    ///
    /// Sizes are checked against the device's limits first: a model too big
    /// for this device is a [`RenderError::ModelTooLarge`], never a wgpu
    /// validation error.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &Md2Renderer,
        model: &Md2Model,
        skins: &[RgbaImage],
    ) -> Result<GpuModel, RenderError> {
        let frame_count = model.frame_count() as usize;
        if frame_count > MAX_GPU_FRAMES {
            return Err(RenderError::TooManyFrames {
                frames: frame_count,
                max: MAX_GPU_FRAMES,
            });
        }
        let vertex_bytes: &[u8] = bytemuck::cast_slice(model.vertices());
        let frame_params = frame_params(model);
        let (corners, indices) = weld(model);
        let (index_bytes, index_format) = index_bytes(&indices, corners.len());

        let limits = device.limits();
        check_size("vertex data", vertex_bytes.len(), &limits, true)?;
        check_size("frame parameters", frame_params.len() * 16, &limits, true)?;
        check_size(
            "corners",
            corners.len() * size_of::<Corner>(),
            &limits,
            false,
        )?;
        check_size("indices", index_bytes.len(), &limits, false)?;

        // The checks above cover the limits wgpu validates; the scope turns
        // anything left (out of memory) into an error instead of a panic.
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);

        let info = ModelInfo {
            num_xyz: model.vertex_count() as u32,
            num_frames: frame_count as u32,
            pad: [0; 2],
        };
        let info_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu model info"),
            contents: bytemuck::bytes_of(&info),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let vertex_data = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu vertex data"),
            contents: vertex_bytes,
            usage: wgpu::BufferUsages::STORAGE,
        });
        let frame_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu frame parameters"),
            contents: bytemuck::cast_slice(&frame_params),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let corner_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu corners"),
            contents: bytemuck::cast_slice(&corners),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("md2-wgpu indices"),
            contents: &index_bytes,
            usage: wgpu::BufferUsages::INDEX,
        });
        let skin = upload_skins(device, queue, skins)?;
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu model bind group"),
            layout: renderer.model_layout(),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: info_buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: vertex_data.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: frame_buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&skin.view),
                },
            ],
        });

        let validation_error = ready_error(validation.pop());
        let oom_error = ready_error(oom.pop());
        if let Some(message) = oom_error.or(validation_error) {
            return Err(RenderError::Device {
                operation: "uploading a model",
                message,
            });
        }

        let bytes = GpuModelBytes {
            vertex_data: vertex_data.size(),
            frame_params: frame_buffer.size(),
            corners: corner_buffer.size(),
            indices: index_buffer.size(),
            skins: skin.bytes,
            info: info_buffer.size(),
        };
        Ok(GpuModel {
            bind_group,
            corners: corner_buffer,
            indices: index_buffer,
            index_format,
            index_count: indices.len() as u32,
            info: info_buffer,
            vertex_data,
            frame_params: frame_buffer,
            frame_count: frame_count as u32,
            vertex_count: model.vertex_count() as u32,
            skin_count: skin.layers,
            skin_size: skin.size,
            corner_count: corners.len() as u32,
            uses_default_skin: skin.uses_default,
            bytes,
        })
    }

    /// How many frames the model has.
    pub fn frame_count(&self) -> u32 {
        self.frame_count
    }

    /// How many vertices each frame has (`num_xyz`).
    pub fn vertex_count(&self) -> u32 {
        self.vertex_count
    }

    /// How many skins an instance can choose from (1 with the default
    /// texture).
    pub fn skin_count(&self) -> u32 {
        self.skin_count
    }

    /// The size every skin was scaled to, in texels.
    pub fn skin_size(&self) -> (u32, u32) {
        self.skin_size
    }

    /// True when the model was given no skin and draws with the default
    /// checker texture.
    pub fn uses_default_skin(&self) -> bool {
        self.uses_default_skin
    }

    /// The welded (xyz, st) corners the triangles draw.
    pub fn corner_count(&self) -> u32 {
        self.corner_count
    }

    /// How many triangles one instance draws.
    pub fn triangle_count(&self) -> u32 {
        self.index_count / 3
    }

    /// GPU bytes held, in all.
    pub fn gpu_bytes(&self) -> u64 {
        self.bytes.total()
    }

    /// GPU bytes held, buffer by buffer.
    pub fn gpu_bytes_breakdown(&self) -> GpuModelBytes {
        self.bytes
    }
}

/// Two vec4 per frame: (scale, 0), (translate, 0).
fn frame_params(model: &Md2Model) -> Vec<[f32; 4]> {
    model
        .frames()
        .iter()
        .flat_map(|f| {
            [
                [f.scale[0], f.scale[1], f.scale[2], 0.0],
                [f.translate[0], f.translate[1], f.translate[2], 0.0],
            ]
        })
        .collect()
}

/// The distinct (xyz, st) pairs of the triangles, in order of first use,
/// and the triangle list over them (in the file's order and winding).
pub(crate) fn weld(model: &Md2Model) -> (Vec<Corner>, Vec<u32>) {
    let (w, h) = model.skin_size();
    let (w, h) = (w as f32, h as f32);
    let st = model.tex_coords();
    let triangles = model.triangles();
    let mut index_of: HashMap<(u16, u16), u32> = HashMap::with_capacity(triangles.len() * 3);
    let mut corners = Vec::new();
    let mut indices = Vec::with_capacity(triangles.len() * 3);
    for tri in triangles {
        for k in 0..3 {
            let key = (tri.xyz[k], tri.st[k]);
            let index = *index_of.entry(key).or_insert_with(|| {
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

/// The index list as bytes: u16 where every index fits.
fn index_bytes(indices: &[u32], corner_count: usize) -> (Vec<u8>, wgpu::IndexFormat) {
    if corner_count <= usize::from(u16::MAX) {
        let narrow: Vec<u16> = indices.iter().map(|&i| i as u16).collect();
        (
            bytemuck::cast_slice(&narrow).to_vec(),
            wgpu::IndexFormat::Uint16,
        )
    } else {
        (
            bytemuck::cast_slice(indices).to_vec(),
            wgpu::IndexFormat::Uint32,
        )
    }
}

fn check_size(
    buffer: &'static str,
    bytes: usize,
    limits: &wgpu::Limits,
    storage: bool,
) -> Result<(), RenderError> {
    let bytes = bytes as u64;
    if storage && bytes > limits.max_storage_buffer_binding_size {
        return Err(RenderError::ModelTooLarge {
            buffer,
            bytes,
            limit_name: "max_storage_buffer_binding_size",
            limit: limits.max_storage_buffer_binding_size,
        });
    }
    if bytes > limits.max_buffer_size {
        return Err(RenderError::ModelTooLarge {
            buffer,
            bytes,
            limit_name: "max_buffer_size",
            limit: limits.max_buffer_size,
        });
    }
    Ok(())
}

/// The error an error scope caught, if its result is already known. Native
/// wgpu answers at once; on the web the answer comes later and is left to
/// the device's uncaptured-error handler.
pub(crate) fn ready_error(future: impl Future<Output = Option<wgpu::Error>>) -> Option<String> {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(error) => error.map(|e| e.to_string()),
        Poll::Pending => None,
    }
}
