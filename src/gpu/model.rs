//! A model uploaded once: its frames as the file's bytes, its corners and
//! triangles (and coarser levels of detail over the same corners), its
//! skins.

use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::Mat4;
use image::RgbaImage;
use wgpu::util::DeviceExt;

use super::cache::Md2Cache;
use super::camera::Camera;
use super::detail::{DetailLevels, DetailView, choose};
use super::device::{check_size, ready_error};
use super::error::SetupError;
use super::instance::rows;
use super::shader::{MAX_GPU_FRAMES, MAX_LEVELS, ModelInfo};
use super::skin_texture::upload_skins;
use crate::format::Md2Model;
use crate::mesh::{
    DetailLevel, LevelOptions, LevelsOfDetail, MeshError, RenderMesh, TriangleOrder,
    VertexCacheStats,
};

/// How many GPU bytes a [`GpuModel`] holds, buffer by buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuModelBytes {
    /// The frames' packed vertices: exactly 4 × vertices × frames.
    pub vertex_data: u64,
    /// Per-frame scale and translate: 32 bytes a frame.
    pub frame_params: u64,
    /// The welded corners (xyz index and uv): 12 bytes each.
    pub corners: u64,
    /// The triangle lists, with the model's winding and reversed for
    /// mirrored instances (u16 or u32 indices, each buffer padded to 4
    /// bytes): full detail and, where built, the coarser levels.
    pub indices: u64,
    /// The part of [`indices`](Self::indices) the coarser levels of detail
    /// take (0 without them): the only memory levels cost, since they draw
    /// the same corners and frames.
    pub level_indices: u64,
    /// The skin texture array with its mipmaps.
    pub skins: u64,
    /// The small uniform with the model's counts.
    pub info: u64,
}

impl GpuModelBytes {
    /// All of it ([`level_indices`](Self::level_indices) is part of
    /// [`indices`](Self::indices), counted once).
    pub fn total(&self) -> u64 {
        self.vertex_data + self.frame_params + self.corners + self.indices + self.skins + self.info
    }
}

/// How a model is uploaded.
///
/// ```
/// use md2_wgpu::{GpuModelOptions, LevelOptions, TriangleOrder};
///
/// // Full detail only, in the vertex-cache order: what GpuModel::new does.
/// assert_eq!(GpuModelOptions::default(), GpuModelOptions::DEFAULT);
/// assert_eq!(GpuModelOptions::DEFAULT.levels, LevelOptions::NONE);
/// // Four coarser levels of detail for crowds, at some cost at upload.
/// let crowd = GpuModelOptions::WITH_LEVELS;
/// assert_eq!(crowd.levels, LevelOptions::DEFAULT);
/// let file_order = GpuModelOptions::DEFAULT.with_triangle_order(TriangleOrder::File);
/// # let _ = file_order;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuModelOptions {
    /// The order of the triangles in the index buffer: by default ordered for
    /// the GPU's post-transform vertex cache (the same triangles, winding
    /// and corners; fewer vertex-shader runs), or the file's, to compare.
    pub triangle_order: TriangleOrder,
    /// The levels of detail to build: coarser triangle lists over the same
    /// corners, each with its error measured over every frame (see
    /// [`LevelsOfDetail`]), uploaded after full detail in the same index
    /// buffers. [`LevelOptions::NONE`] (the default) builds none: levels
    /// take time at upload (a player model: a fraction of a second in a
    /// release build, several seconds in a debug one; see the README).
    pub levels: LevelOptions,
}

impl GpuModelOptions {
    /// The vertex-cache order, full detail only.
    pub const DEFAULT: GpuModelOptions = GpuModelOptions {
        triangle_order: TriangleOrder::VertexCache,
        levels: LevelOptions::NONE,
    };

    /// The vertex-cache order with [`LevelOptions::DEFAULT`]'s levels of
    /// detail: for models drawn in crowds.
    pub const WITH_LEVELS: GpuModelOptions = GpuModelOptions {
        levels: LevelOptions::DEFAULT,
        ..GpuModelOptions::DEFAULT
    };

    /// The same options with another triangle order.
    pub const fn with_triangle_order(self, triangle_order: TriangleOrder) -> GpuModelOptions {
        GpuModelOptions {
            triangle_order,
            ..self
        }
    }

    /// The same options with other levels of detail.
    pub const fn with_levels(self, levels: LevelOptions) -> GpuModelOptions {
        GpuModelOptions { levels, ..self }
    }
}

impl Default for GpuModelOptions {
    fn default() -> Self {
        GpuModelOptions::DEFAULT
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
    /// The same triangles wound the other way, for mirrored instances: every
    /// level at the same range as in `indices`.
    pub(crate) reversed: wgpu::Buffer,
    pub(crate) index_format: wgpu::IndexFormat,
    /// Full detail's index count (level 0, from index 0).
    pub(crate) index_count: u32,
    /// Every level's range of both index buffers, full detail first.
    pub(crate) levels: Arc<[DetailLevel]>,
    level_build_time: Duration,
    pub(crate) info: wgpu::Buffer,
    pub(crate) vertex_data: wgpu::Buffer,
    pub(crate) frame_params: wgpu::Buffer,
    pub(crate) frame_count: u32,
    pub(crate) vertex_count: u32,
    /// Per frame, the box of its vertices in model space (Quake axes): what
    /// the crowd's culling bounds are made of.
    pub(crate) frame_bounds: Arc<[([f32; 3], [f32; 3])]>,
    /// A sphere around every frame (model space, Quake axes): where levels
    /// of detail measure an instance's distance from.
    sphere: [f32; 4],
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

    /// [`GpuModel::new`] with upload options (the triangle order, levels of
    /// detail).
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
        let started = Instant::now();
        // The mesh is the model's own, which is all `new` checks.
        // The renderers draw MAX_LEVELS levels at most: no more are built.
        let level_options = LevelOptions {
            coarser_levels: options.levels.coarser_levels.min(MAX_LEVELS as u8 - 1),
            ..options.levels
        };
        let lods = LevelsOfDetail::new(model, &mesh, &level_options)
            .unwrap_or_else(|_| LevelsOfDetail::full_detail(&mesh));
        let level_build_time = if options.levels.coarser_levels == 0 {
            Duration::ZERO
        } else {
            started.elapsed()
        };
        let corners = mesh.corners();
        // Every level in one list (full detail first, unchanged), so a
        // level is a range of the one index buffer the model binds.
        let indices = lods.indices();
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
        // COPY_SRC lets tests read back what a level draws.
        let index_buffer = buffer("md2-wgpu indices", &index_bytes, U::INDEX | U::COPY_SRC);
        let reversed_buffer = buffer(
            "md2-wgpu mirrored indices",
            &reversed_bytes,
            U::INDEX | U::COPY_SRC,
        );
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

        let full_detail = mesh.indices().len() as u64;
        let index_size = match index_format {
            wgpu::IndexFormat::Uint16 => 2,
            wgpu::IndexFormat::Uint32 => 4,
        };
        let bytes = GpuModelBytes {
            vertex_data: vertex_data.size(),
            frame_params: frame_buffer.size(),
            corners: corner_buffer.size(),
            indices: index_buffer.size() + reversed_buffer.size(),
            level_indices: index_buffer.size() + reversed_buffer.size()
                - 2 * (full_detail * index_size).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
            skins: skin.bytes,
            info: info_buffer.size(),
        };
        let frame_bounds: Arc<[_]> = (0..model.frame_count())
            .map(|f| model.frame_bounds(f))
            .collect();
        let sphere = bounding_sphere(&frame_bounds);
        Ok(GpuModel {
            bind_group,
            corners: corner_buffer,
            indices: index_buffer,
            reversed: reversed_buffer,
            index_format,
            index_count: mesh.indices().len() as u32,
            levels: lods.levels().into(),
            level_build_time,
            info: info_buffer,
            vertex_data,
            frame_params: frame_buffer,
            frame_count,
            vertex_count: model.vertex_count() as u32,
            frame_bounds,
            sphere,
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

    /// How many triangles one instance draws at full detail.
    pub fn triangle_count(&self) -> u32 {
        self.index_count / 3
    }

    /// The levels of detail, full detail first (the only one where none
    /// were built), each with fewer triangles and no smaller an error than
    /// the one before: per level, its index range, triangles and error in
    /// model units (see [`DetailLevel`]).
    ///
    /// Level `l` is indices `first_index..first_index + index_count` of the
    /// model's index buffer (the model's winding) and of its mirrored one
    /// (reversed winding, same ranges), over the same corners and frames
    /// as full detail: a draw of a level binds what a full-detail draw
    /// binds and draws another range. [`Md2Batch::at_level`](crate::Md2Batch::at_level)
    /// draws a batch at a level.
    pub fn levels(&self) -> &[DetailLevel] {
        &self.levels
    }

    /// The coarsest level whose error is at most `max_error` model units
    /// (0, full detail, where none is): the level to draw an instance at
    /// when an error of `max_error` units covers at most the pixels the
    /// app tolerates (at distance `d` with a vertical field of view `fov`
    /// and a viewport `h` pixels high, one pixel is `2 d tan(fov / 2) / h`
    /// units, times the instance's scale).
    pub fn coarsest_level_within(&self, max_error: f32) -> usize {
        // Errors grow with the level, so the last one within is the one.
        self.levels
            .iter()
            .rposition(|l| l.error <= max_error)
            .unwrap_or(0)
    }

    /// The level of detail an instance placed by `transform` is drawn at,
    /// seen by `camera` by a renderer whose
    /// [`lod_error_pixels`](crate::Md2RendererOptions::lod_error_pixels) is
    /// `lod_error_pixels`: the coarsest level whose error, scaled by the
    /// transform's largest stretch along a model axis and projected where
    /// the sphere around every frame comes nearest the camera, is at most
    /// that many pixels. Both paths choose by this very arithmetic (the
    /// crowd's on the GPU), so an app can tell which members get which
    /// detail. 0 without levels or without a viewport
    /// ([`Camera::with_viewport`](crate::Camera::with_viewport)).
    pub fn detail_level(&self, camera: &Camera, lod_error_pixels: f32, transform: Mat4) -> usize {
        let view = DetailView {
            w_row: camera.view_proj.row(3).to_array(),
            scale: camera.detail_scale(lod_error_pixels),
        };
        choose(&view, &self.detail_levels(), &rows(&transform))
    }

    /// How long building the levels of detail took at upload (zero where
    /// none were asked for).
    pub fn level_build_time(&self) -> Duration {
        self.level_build_time
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

    /// The index buffer and its format, and full detail's index count, for
    /// the crowd benchmark's baselines.
    #[doc(hidden)]
    pub fn index_buffer(&self) -> (&wgpu::Buffer, wgpu::IndexFormat, u32) {
        (&self.indices, self.index_format, self.index_count)
    }

    /// The mirrored index buffer (every level's triangles with the reversed
    /// winding, at the same ranges), for tests that read it back.
    #[doc(hidden)]
    pub fn mirrored_index_buffer(&self) -> &wgpu::Buffer {
        &self.reversed
    }

    /// The model's bind group (group 1 of md2.wgsl: counts, frames, skins),
    /// for the crowd benchmark's baselines, which texture with it.
    #[doc(hidden)]
    pub fn bind_group(&self) -> &wgpu::BindGroup {
        &self.bind_group
    }

    /// What a draw of this model binds, and where its levels lie.
    pub(crate) fn draw_model(&self) -> DrawModel {
        let range = |level: usize| {
            self.levels
                .get(level)
                .or(self.levels.last())
                .map_or((0, self.index_count), |l| (l.first_index, l.index_count))
        };
        DrawModel {
            bind_group: self.bind_group.clone(),
            corners: self.corners.clone(),
            indices: self.indices.clone(),
            reversed: self.reversed.clone(),
            index_format: self.index_format,
            ranges: std::array::from_fn(range),
            detail: self.detail_levels(),
        }
    }

    /// The model's levels as choosing one needs them.
    pub(crate) fn detail_levels(&self) -> DetailLevels {
        let mut errors = [0.0; MAX_LEVELS];
        for (e, l) in errors.iter_mut().zip(self.levels.iter()) {
            *e = l.error;
        }
        DetailLevels {
            count: self.levels.len().clamp(1, MAX_LEVELS),
            errors,
            sphere: self.sphere,
        }
    }
}

/// A sphere around every frame's box, in model space: centre, radius.
fn bounding_sphere(frame_bounds: &[([f32; 3], [f32; 3])]) -> [f32; 4] {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for (min, max) in frame_bounds {
        for k in 0..3 {
            lo[k] = lo[k].min(min[k]);
            hi[k] = hi[k].max(max[k]);
        }
    }
    if frame_bounds.is_empty() {
        return [0.0; 4];
    }
    let center = [0, 1, 2].map(|k| (lo[k] + hi[k]) * 0.5);
    let half = [0, 1, 2].map(|k| (hi[k] - lo[k]) * 0.5);
    let radius = (half[0] * half[0] + half[1] * half[1] + half[2] * half[2]).sqrt();
    [center[0], center[1], center[2], radius]
}

/// What a draw of a model binds (wgpu handles: clones are cheap).
#[derive(Clone, Debug)]
pub(crate) struct DrawModel {
    pub bind_group: wgpu::BindGroup,
    pub corners: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub reversed: wgpu::Buffer,
    pub index_format: wgpu::IndexFormat,
    /// Each level's range of both index buffers (first index, count);
    /// levels past the model's coarsest repeat it.
    pub ranges: [(u32, u32); MAX_LEVELS],
    /// What choosing a level needs.
    pub detail: DetailLevels,
}

impl DrawModel {
    /// The index range of `level` (the coarsest there is, past it).
    pub(crate) fn indices_at(&self, level: usize) -> std::ops::Range<u32> {
        let (first, count) = self.ranges[level.min(MAX_LEVELS - 1)];
        first..first + count
    }

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
