//! A model uploaded once: its frames as the file's bytes, its corners and
//! triangles, its skins.

use std::sync::Arc;

use image::RgbaImage;
use wgpu::util::DeviceExt;

use super::cache::Md2Cache;
use super::device::{check_size, ready_error};
use super::error::SetupError;
use super::shader::{MAX_GPU_FRAMES, ModelInfo};
use super::skin_texture::upload_skins;
use crate::format::Md2Model;
use crate::mesh::{MeshError, RenderMesh, TriangleOrder, VertexCacheStats};

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

/// How a model is uploaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GpuModelOptions {
    /// The order of the triangles in the index buffer: by default ordered for
    /// the GPU's post-transform vertex cache (the same triangles, winding
    /// and corners; fewer vertex-shader runs), or the file's, to compare.
    pub triangle_order: TriangleOrder,
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
    /// The same triangles wound the other way, for mirrored instances.
    pub(crate) reversed: wgpu::Buffer,
    pub(crate) index_format: wgpu::IndexFormat,
    pub(crate) index_count: u32,
    pub(crate) info: wgpu::Buffer,
    pub(crate) vertex_data: wgpu::Buffer,
    pub(crate) frame_params: wgpu::Buffer,
    pub(crate) frame_count: u32,
    pub(crate) vertex_count: u32,
    /// Per frame, the box of its vertices in model space (Quake axes): what
    /// the crowd's culling bounds are made of.
    pub(crate) frame_bounds: Arc<[([f32; 3], [f32; 3])]>,
    /// The corners and triangles as uploaded, for the cache statistics.
    mesh: RenderMesh,
    skin_count: u32,
    skin_size: (u32, u32),
    uses_default_skin: bool,
    bytes: GpuModelBytes,
}

impl GpuModel {
    /// Uploads `model` and its decoded `skins` for drawing by every renderer
    /// of `cache` (pass the cache, or a renderer, which has one).
    ///
    /// Skins of different sizes are scaled to the largest width and height
    /// among them. With no skins (or an empty image) the model gets a
    /// magenta-and-grey checker instead, and [`GpuModel::uses_default_skin`]
    /// says so. Texture coordinates are `(st + 0.5) / header skin size`, as
    /// Quake II's GL commands have them, so a skin image of another size than
    /// the header's still maps right.
    ///
    /// Sizes are checked against the device's limits first: a model too big
    /// for this device is a [`SetupError::ModelTooLarge`], never a wgpu
    /// validation error.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &impl AsRef<Md2Cache>,
        model: &Md2Model,
        skins: &[RgbaImage],
    ) -> Result<GpuModel, SetupError> {
        GpuModel::with_options(
            device,
            queue,
            cache,
            model,
            skins,
            GpuModelOptions::default(),
        )
    }

    /// [`GpuModel::new`] with upload options (the triangle order).
    pub fn with_options(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &impl AsRef<Md2Cache>,
        model: &Md2Model,
        skins: &[RgbaImage],
        options: GpuModelOptions,
    ) -> Result<GpuModel, SetupError> {
        let cache = cache.as_ref();
        let frame_count = model.frame_count();
        if frame_count > MAX_GPU_FRAMES {
            return Err(SetupError::TooManyFrames {
                frames: frame_count,
                max: MAX_GPU_FRAMES,
            });
        }
        let vertex_bytes: &[u8] = bytemuck::cast_slice(model.vertices());
        let frame_params = frame_params(model);
        let mesh = RenderMesh::new(model, options.triangle_order);
        let (corners, indices) = (mesh.corners(), mesh.indices());
        let (reversed_bytes, _) = index_bytes(&reversed(indices), corners.len());
        let (index_bytes, index_format) = index_bytes(indices, corners.len());

        let limits = device.limits();
        check_size("vertex data", vertex_bytes.len() as u64, &limits, true)?;
        check_size(
            "frame parameters",
            (frame_params.len() * 16) as u64,
            &limits,
            true,
        )?;
        check_size("corners", size_of_val(corners) as u64, &limits, false)?;
        check_size("indices", index_bytes.len() as u64, &limits, false)?;

        // The checks above cover the limits wgpu validates; the scope turns
        // anything left (out of memory) into an error instead of a panic.
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);

        let info = ModelInfo {
            num_xyz: model.vertex_count() as u32,
            num_frames: frame_count,
            _pad0: 0,
            _pad1: 0,
        };
        let buffer = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        use wgpu::BufferUsages as U;
        let info_buffer = buffer("md2-wgpu model info", bytemuck::bytes_of(&info), U::UNIFORM);
        let vertex_data = buffer("md2-wgpu vertex data", vertex_bytes, U::STORAGE);
        let frame_buffer = buffer(
            "md2-wgpu frame parameters",
            bytemuck::cast_slice(&frame_params),
            U::STORAGE,
        );
        let corner_buffer = buffer("md2-wgpu corners", bytemuck::cast_slice(corners), U::VERTEX);
        let index_buffer = buffer("md2-wgpu indices", &index_bytes, U::INDEX);
        let reversed_buffer = buffer("md2-wgpu mirrored indices", &reversed_bytes, U::INDEX);
        let skin = upload_skins(device, queue, skins);
        let bind_group = skin.as_ref().ok().map(|skin| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("md2-wgpu model bind group"),
                layout: &cache.layouts().model,
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
                        resource: cache.anorms().as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: wgpu::BindingResource::TextureView(&skin.view),
                    },
                ],
            })
        });

        let validation_error = ready_error(validation.pop());
        let oom_error = ready_error(oom.pop());
        if let Some(message) = oom_error.or(validation_error) {
            return Err(SetupError::Device {
                operation: "uploading a model",
                message,
            });
        }
        let skin = skin?;
        let bind_group = bind_group.expect("made with the skins");

        let bytes = GpuModelBytes {
            vertex_data: vertex_data.size(),
            frame_params: frame_buffer.size(),
            corners: corner_buffer.size(),
            indices: index_buffer.size() + reversed_buffer.size(),
            skins: skin.bytes,
            info: info_buffer.size(),
        };
        let frame_bounds = (0..model.frame_count())
            .map(|f| model.frame_bounds(f))
            .collect();
        Ok(GpuModel {
            bind_group,
            corners: corner_buffer,
            indices: index_buffer,
            reversed: reversed_buffer,
            index_format,
            index_count: indices.len() as u32,
            info: info_buffer,
            vertex_data,
            frame_params: frame_buffer,
            frame_count,
            vertex_count: model.vertex_count() as u32,
            frame_bounds,
            mesh,
            skin_count: skin.layers,
            skin_size: skin.size,
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
        self.mesh.corners().len() as u32
    }

    /// The order the index buffer holds the triangles in.
    pub fn triangle_order(&self) -> TriangleOrder {
        self.mesh.order()
    }

    /// What a first-in-first-out post-transform cache of `cache_size`
    /// corners makes of the uploaded index buffer: misses per triangle
    /// (ACMR) and vertex-shader runs per corner (ATVR). See
    /// [`VertexCacheStats`].
    pub fn vertex_cache_stats(&self, cache_size: u32) -> Result<VertexCacheStats, MeshError> {
        self.mesh.vertex_cache_stats(cache_size)
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

    /// The corner buffer (vertex buffer 0 of every pipeline), for the crowd
    /// benchmark's baselines, which draw the same corners.
    #[doc(hidden)]
    pub fn corner_buffer(&self) -> &wgpu::Buffer {
        &self.corners
    }

    /// The index buffer and its format, for the crowd benchmark's baselines.
    #[doc(hidden)]
    pub fn index_buffer(&self) -> (&wgpu::Buffer, wgpu::IndexFormat, u32) {
        (&self.indices, self.index_format, self.index_count)
    }

    /// The model's bind group (group 1 of md2.wgsl: counts, frames, skins),
    /// for the crowd benchmark's baselines, which texture with it.
    #[doc(hidden)]
    pub fn bind_group(&self) -> &wgpu::BindGroup {
        &self.bind_group
    }

    /// What a draw of this model binds.
    pub(crate) fn draw_model(&self) -> DrawModel {
        DrawModel {
            bind_group: self.bind_group.clone(),
            corners: self.corners.clone(),
            indices: self.indices.clone(),
            reversed: self.reversed.clone(),
            index_format: self.index_format,
            index_count: self.index_count,
        }
    }
}

/// What a draw of a model binds (wgpu handles: clones are cheap).
#[derive(Clone, Debug)]
pub(crate) struct DrawModel {
    pub bind_group: wgpu::BindGroup,
    pub corners: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub reversed: wgpu::Buffer,
    pub index_format: wgpu::IndexFormat,
    pub index_count: u32,
}

impl DrawModel {
    /// Binds the model for a draw of instances with the model's winding, or
    /// mirrored ones (the reversed index list).
    pub(crate) fn bind(&self, pass: &mut wgpu::RenderPass<'_>, mirrored: bool) {
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.set_vertex_buffer(0, self.corners.slice(..));
        let indices = if mirrored {
            &self.reversed
        } else {
            &self.indices
        };
        pass.set_index_buffer(indices.slice(..), self.index_format);
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

/// The triangle list wound the other way: each triangle's last two corners
/// swapped, so a mirrored instance (which turns winding around) is culled
/// like the others and the triangles keep their order in the vertex cache.
fn reversed(indices: &[u32]) -> Vec<u32> {
    indices
        .chunks_exact(3)
        .flat_map(|t| [t[0], t[2], t[1]])
        .collect()
}
