//! A model uploaded once: its [`ModelData`] (the frames as the file's
//! bytes, the corners and triangles with every level of detail) and its
//! skins, in wgpu buffers and one texture array.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use glam::Mat4;
use image::RgbaImage;

use super::draw::{DrawModel, Published};
use super::skins::{SkinTexture, upload_skins};
use crate::contract::{
    GpuModelOptions, IndexFormat, MAX_LEVELS, ModelData, ModelDataError, ModelLevels, model_levels,
    narrow, reversed,
};
use crate::gpu::device::buffers::{buffer_init, caught, check_size};
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::error::SetupError;
use crate::mesh::{Level, Levels, MeshError, RenderMesh, TriangleOrder, VertexCacheStats};
use crate::model::{Bounds, KeyframeModel};
use crate::scene::{Camera, LevelChoice};

/// How many GPU bytes a [`GpuModel`] holds, buffer by buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuModelBytes {
    /// The frames' vertices: exactly 4 × vertices × frames (8 × for a
    /// model of [`FrameWord::Wide8`](crate::model::FrameWord::Wide8)).
    pub vertex_data: u64,
    /// The normal table (4,096 bytes), then per-frame scale and translate:
    /// 32 bytes a frame.
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

/// A [`GpuModel`]'s buffers, for an app that draws the model with a vertex
/// stage of its own around [`MD2_POSE_WGSL`](crate::contract::MD2_POSE_WGSL): what
/// [`ModelData`] describes, on the GPU.
#[derive(Clone, Copy, Debug)]
pub struct GpuModelBuffers<'a> {
    /// `md2_model`: the counts (uniform, 16 bytes).
    pub info: &'a wgpu::Buffer,
    /// `md2_verts`: the frames' packed vertices (storage).
    pub vertex_data: &'a wgpu::Buffer,
    /// `md2_frame_params`: the normal table, then per frame scale and
    /// translate (storage).
    pub frame_params: &'a wgpu::Buffer,
    /// The welded corners (vertex buffer: `Uint32` at location 0,
    /// `Float32x2` at location 1, 12-byte stride).
    pub corners: &'a wgpu::Buffer,
    /// Every level's triangles, full detail first (index buffer).
    pub indices: &'a wgpu::Buffer,
    /// The same ranges wound the other way, for mirrored instances.
    pub mirrored_indices: &'a wgpu::Buffer,
    /// The width of both index buffers.
    pub index_format: wgpu::IndexFormat,
}

/// A [`KeyframeModel`] (an MD2, an MDL, an MD3's surface, one built in
/// code) on the GPU, ready to draw any number of instances of.
///
/// Everything is uploaded once and never written again while the model
/// animates: the frames stay in the file's packed 4-byte form (8-byte for
/// Quake III's) and the vertex
/// shader decodes them. The bytes are a [`ModelData`]'s; another host that
/// wants the same data with its own wgpu uploads a `ModelData` itself.
#[derive(Debug)]
pub struct GpuModel {
    bind_group: wgpu::BindGroup,
    info: wgpu::Buffer,
    vertex_data: wgpu::Buffer,
    frame_params: wgpu::Buffer,
    corners: wgpu::Buffer,
    indices: wgpu::Buffer,
    /// The same triangles wound the other way, for mirrored instances: every
    /// level at the same range as in `indices`.
    mirrored: wgpu::Buffer,
    index_format: wgpu::IndexFormat,
    /// Every level's range of both index buffers, full detail first.
    levels: Arc<[Level]>,
    facts: ModelFacts,
    /// The corners and triangles as uploaded, for the cache statistics.
    mesh: RenderMesh,
    bytes: GpuModelBytes,
    /// What the crowds of this model draw, republished when its levels
    /// change (made when the first crowd is).
    published: OnceLock<Arc<Published>>,
    /// The cache it was made with: it knows whether the device was lost.
    cache: Md2Cache,
    /// Its skins, which another model of the same pictures may share.
    skin: SkinTexture,
}

/// Where a model's skins come from.
#[derive(Clone, Copy)]
enum Skins<'a> {
    /// Pictures to upload.
    Upload(&'a [RgbaImage]),
    /// Another model's texture.
    Shared(&'a SkinTexture),
}

/// What a model is, beside its buffers.
#[derive(Clone, Debug)]
struct ModelFacts {
    frame_count: u32,
    vertex_count: u32,
    skin_count: u32,
    skin_size: (u32, u32),
    uses_default_skin: bool,
    /// Per frame, the box of its vertices in model space (Quake axes): what
    /// the crowd's culling bounds are made of.
    frame_bounds: Arc<[Bounds]>,
    /// A sphere around every frame (model space, Quake axes): where levels
    /// of detail measure an instance's distance from.
    sphere: [f32; 4],
    level_build_time: Duration,
}

impl GpuModel {
    /// Uploads `model` and its decoded `skins` for drawing by every renderer
    /// of `cache` (pass the cache, or a renderer, which has one), at full
    /// detail in the vertex-cache order ([`GpuModelOptions::DEFAULT`]).
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
        model: &KeyframeModel,
        skins: &[RgbaImage],
    ) -> Result<GpuModel, SetupError> {
        GpuModel::with_options(device, queue, cache, model, skins, GpuModelOptions::DEFAULT)
    }

    /// [`GpuModel::new`] with upload options (the triangle order, levels of
    /// detail, built here on this thread: see [`GpuModel::from_data`] to
    /// build them elsewhere).
    pub fn with_options(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &impl AsRef<Md2Cache>,
        model: &KeyframeModel,
        skins: &[RgbaImage],
        options: GpuModelOptions,
    ) -> Result<GpuModel, SetupError> {
        let data = ModelData::new(model, options).map_err(too_many_frames)?;
        GpuModel::from_data(device, queue, cache, &data, skins)
    }

    /// Uploads `data` (a model's GPU data, built on any thread) and `skins`.
    pub fn from_data(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &impl AsRef<Md2Cache>,
        data: &ModelData,
        skins: &[RgbaImage],
    ) -> Result<GpuModel, SetupError> {
        GpuModel::from_data_with(device, queue, cache.as_ref(), data, Skins::Upload(skins))
    }

    /// [`GpuModel::with_options`] for a model that wears the very skins
    /// `with` wears: their texture is shared, not uploaded again (a Quake
    /// III player's surfaces that name one picture). The model's
    /// [`gpu_bytes_breakdown`](GpuModel::gpu_bytes_breakdown) counts no
    /// skin bytes: `with`'s does.
    pub(crate) fn with_options_sharing_skins(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &Md2Cache,
        model: &KeyframeModel,
        options: GpuModelOptions,
        with: &GpuModel,
    ) -> Result<GpuModel, SetupError> {
        let data = ModelData::new(model, options).map_err(too_many_frames)?;
        GpuModel::from_data_with(device, queue, cache, &data, Skins::Shared(&with.skin))
    }

    fn from_data_with(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &Md2Cache,
        data: &ModelData,
        skins: Skins<'_>,
    ) -> Result<GpuModel, SetupError> {
        cache.check_setup("uploading a model")?;
        let masks = data.info().flags & crate::contract::MODEL_FULLBRIGHT_MASKS != 0;
        let given = match skins {
            Skins::Upload(skins) => skins.len(),
            Skins::Shared(skin) => skin.layers as usize,
        };
        if masks && (given == 0 || !given.is_multiple_of(2)) {
            return Err(SetupError::FullbrightMasks { skins: given });
        }
        let limits = device.limits();
        check_size(
            "vertex data",
            data.vertex_bytes().len() as u64,
            &limits,
            true,
        )?;
        check_size(
            "frame parameters",
            data.frame_param_bytes().len() as u64,
            &limits,
            true,
        )?;
        check_size("corners", data.corner_bytes().len() as u64, &limits, false)?;
        let (indices, mirrored) =
            upload_indices(device, data.levels_of_detail(), data.index_format())?;

        // The checks above cover the limits wgpu validates; `caught` turns
        // anything left (out of memory, a lost device) into an error
        // instead of a panic.
        let device_error = |message| SetupError::Device {
            operation: "uploading a model",
            message,
        };
        let (made, error) = caught(device, || {
            use wgpu::BufferUsages as U;
            let buffer =
                |label: &str, contents: &[u8], usage| buffer_init(device, label, contents, usage);
            let info = buffer("md2-wgpu model info", data.info_bytes(), U::UNIFORM)?;
            let vertex_data = buffer("md2-wgpu vertex data", data.vertex_bytes(), U::STORAGE)?;
            let frame_params = buffer(
                "md2-wgpu frame parameters",
                data.frame_param_bytes(),
                U::STORAGE,
            )?;
            let corners = buffer("md2-wgpu corners", data.corner_bytes(), U::VERTEX)?;
            let skin = match skins {
                Skins::Upload(skins) => upload_skins(device, queue, skins),
                Skins::Shared(skin) => Ok(skin.clone()),
            };
            let bind_group = skin.as_ref().ok().map(|skin| {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("md2-wgpu model bind group"),
                    layout: cache.model_layout(),
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: info.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: vertex_data.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: frame_params.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 4,
                            resource: wgpu::BindingResource::TextureView(&skin.view),
                        },
                    ],
                })
            });
            Ok::<_, String>((info, vertex_data, frame_params, corners, skin, bind_group))
        });
        if let Some(message) = error {
            return Err(device_error(message));
        }
        let (info, vertex_data, frame_params, corners, skin, bind_group) =
            made.map_err(device_error)?;
        let skin = skin?;
        let bind_group = bind_group.expect("made with the skins");

        let format = data.index_format();
        let mut bytes = GpuModelBytes {
            vertex_data: vertex_data.size(),
            frame_params: frame_params.size(),
            corners: corners.size(),
            // A shared texture is counted by the model that uploaded it.
            skins: match skins {
                Skins::Upload(_) => skin.bytes,
                Skins::Shared(_) => 0,
            },
            info: info.size(),
            ..GpuModelBytes::default()
        };
        bytes.count_indices(&indices, &mirrored, data.mesh(), format);
        let model_info = data.info();
        Ok(GpuModel {
            bind_group,
            info,
            vertex_data,
            frame_params,
            corners,
            indices,
            mirrored,
            index_format: match format {
                IndexFormat::Uint16 => wgpu::IndexFormat::Uint16,
                IndexFormat::Uint32 => wgpu::IndexFormat::Uint32,
            },
            levels: data.levels_of_detail().levels().into(),
            facts: ModelFacts {
                frame_count: model_info.num_frames,
                vertex_count: model_info.num_xyz,
                // With fullbright masks, instances choose among the first
                // half's layers.
                skin_count: if masks { skin.layers / 2 } else { skin.layers },
                skin_size: skin.size,
                uses_default_skin: skin.uses_default,
                frame_bounds: data.shared_frame_bounds(),
                sphere: data.bounding_sphere(),
                level_build_time: data.levels_of_detail().build_time(),
            },
            mesh: data.mesh().clone(),
            bytes,
            published: OnceLock::new(),
            cache: cache.clone(),
            skin,
        })
    }

    /// Gives the model `levels` in place of the levels it has: built for
    /// its [`mesh`](GpuModel::mesh) on another thread (with
    /// [`Levels::new`]), or loaded ([`Levels::from_bytes`]), so an app can
    /// upload a model at full detail at once and add its levels when they
    /// are ready. Only the index buffers are made anew (the frames, corners
    /// and skins stay); every renderer and crowd of the model draws the
    /// levels from its next frame on. At most [`MAX_LEVELS`] are kept.
    ///
    /// Levels built for another mesh (another model, or another triangle
    /// order) are a [`SetupError::ModelData`] and change nothing.
    ///
    /// ```no_run
    /// # fn app(device: &wgpu::Device, queue: &wgpu::Queue, renderer: &md2_wgpu::Md2Renderer)
    /// # -> Result<(), Box<dyn std::error::Error>> {
    /// use md2_wgpu::{GpuModel, demo, mesh::{LevelOptions, Levels}};
    ///
    /// let model = demo::demo_model();
    /// let mut gpu_model = GpuModel::new(device, queue, renderer, &model, &[demo::demo_skin()])?;
    /// // Drawn at full detail from the first frame; the levels come later.
    /// let mesh = gpu_model.mesh().clone();
    /// let building = std::thread::spawn(move || Levels::new(&model, &mesh, &LevelOptions::DEFAULT));
    /// // ... frames go by ...
    /// gpu_model.set_levels(device, building.join().expect("built")?)?;
    /// # Ok(()) }
    /// ```
    pub fn set_levels(&mut self, device: &wgpu::Device, levels: Levels) -> Result<(), SetupError> {
        self.cache.check_setup("adding levels of detail")?;
        levels
            .check_for(&self.mesh)
            .map_err(|e| SetupError::ModelData(ModelDataError::LevelsMismatch(e)))?;
        let levels = levels.truncated(MAX_LEVELS);
        let format = IndexFormat::for_mesh(&self.mesh);
        let (indices, mirrored) = upload_indices(device, &levels, format)?;
        self.bytes
            .count_indices(&indices, &mirrored, &self.mesh, format);
        self.indices = indices;
        self.mirrored = mirrored;
        self.levels = levels.levels().into();
        self.facts.level_build_time = levels.build_time();
        if let Some(published) = self.published.get() {
            published.publish(self.draw_model());
        }
        Ok(())
    }

    /// The welded corners and full-detail triangles as uploaded: what
    /// levels of detail for this model are built over
    /// ([`Levels::new`]`(model, mesh, options)`).
    pub fn mesh(&self) -> &RenderMesh {
        &self.mesh
    }

    /// How many frames the model has.
    pub fn frame_count(&self) -> u32 {
        self.facts.frame_count
    }

    /// How many vertices each frame has (`num_xyz`).
    pub fn vertex_count(&self) -> u32 {
        self.facts.vertex_count
    }

    /// How many skins an instance can choose from (1 with the default
    /// texture).
    pub fn skin_count(&self) -> u32 {
        self.facts.skin_count
    }

    /// The size every skin was scaled to, in texels.
    pub fn skin_size(&self) -> (u32, u32) {
        self.facts.skin_size
    }

    /// True when the model was given no skin and draws with the default
    /// checker texture.
    pub fn uses_default_skin(&self) -> bool {
        self.facts.uses_default_skin
    }

    /// The welded (xyz, st) corners the triangles draw.
    #[deprecated(note = "use `model.mesh().corners().len()`; this method goes in the next release")]
    pub fn corner_count(&self) -> u32 {
        self.mesh.corners().len() as u32
    }

    /// The order the index buffer holds the triangles in.
    #[deprecated(note = "use `model.mesh().order()`; this method goes in the next release")]
    pub fn triangle_order(&self) -> TriangleOrder {
        self.mesh.order()
    }

    /// Deprecated: [`RenderMesh::vertex_cache_stats`] of [`GpuModel::mesh`].
    #[deprecated(
        note = "use `model.mesh().vertex_cache_stats(cache_size)`; this method goes in the next release"
    )]
    pub fn vertex_cache_stats(&self, cache_size: u32) -> Result<VertexCacheStats, MeshError> {
        self.mesh.vertex_cache_stats(cache_size)
    }

    /// How many triangles one instance draws at full detail.
    #[deprecated(
        note = "use `model.mesh().triangle_count()`; this method goes in the next release"
    )]
    pub fn triangle_count(&self) -> u32 {
        self.mesh.triangle_count() as u32
    }

    /// Deprecated: [`LevelChoice::levels`] of [`GpuModel::level_choice`].
    #[deprecated(
        note = "use `model.level_choice().levels()`; this method goes in the next release"
    )]
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// Deprecated: [`LevelChoice::coarsest_within`] of
    /// [`GpuModel::level_choice`].
    #[deprecated(
        note = "use `model.level_choice().coarsest_within(max_error)`; this method goes in the next release"
    )]
    pub fn coarsest_level_within(&self, max_error: f32) -> usize {
        self.level_choice().coarsest_within(max_error)
    }

    /// Deprecated: [`LevelChoice::for_view`] of [`GpuModel::level_choice`].
    #[deprecated(
        note = "use `model.level_choice().for_view(camera, level_error_pixels, transform)`; this method goes in the next release"
    )]
    pub fn level_for(&self, camera: &Camera, level_error_pixels: f32, transform: Mat4) -> usize {
        self.level_choice()
            .for_view(camera, level_error_pixels, transform)
    }

    /// Deprecated: [`LevelChoice::build_time`] of [`GpuModel::level_choice`].
    #[deprecated(
        note = "use `model.level_choice().build_time()`; this method goes in the next release"
    )]
    pub fn level_build_time(&self) -> Duration {
        self.facts.level_build_time
    }

    /// The model's levels of detail, full detail first, and which of them
    /// an instance is drawn at ([`LevelChoice::for_view`]: the renderers'
    /// own choice, made on the CPU).
    pub fn level_choice(&self) -> LevelChoice<'_> {
        LevelChoice::new(&self.levels, self.facts.sphere, self.facts.level_build_time)
    }

    /// GPU bytes held, in all.
    pub fn gpu_bytes(&self) -> u64 {
        self.bytes.total()
    }

    /// GPU bytes held, buffer by buffer.
    pub fn gpu_bytes_breakdown(&self) -> GpuModelBytes {
        self.bytes
    }

    /// The model's bind group, group 1 of the render module: the pose's
    /// three bindings as [`PoseBindings::CRATE`](crate::contract::PoseBindings::CRATE)
    /// lists them, and the skins (`texture_2d_array<f32>`) at binding 4;
    /// its layout is [`Md2Cache::model_layout`]. Bind it where a shader of
    /// the app's reads [`MD2_POSE_WGSL`](crate::contract::MD2_POSE_WGSL) (moved with
    /// [`pose_wgsl`](crate::contract::pose_wgsl) to the group the app binds it at).
    pub fn bind_group(&self) -> &wgpu::BindGroup {
        &self.bind_group
    }

    /// The model's buffers: the pose's data, the corners and both index
    /// buffers, for an app's own pipelines (they need no copy of their
    /// own).
    pub fn buffers(&self) -> GpuModelBuffers<'_> {
        GpuModelBuffers {
            info: &self.info,
            vertex_data: &self.vertex_data,
            frame_params: &self.frame_params,
            corners: &self.corners,
            indices: &self.indices,
            mirrored_indices: &self.mirrored,
            index_format: self.index_format,
        }
    }

    /// What a draw of this model binds, and where its levels lie.
    pub(crate) fn draw_model(&self) -> DrawModel {
        let range = |level: usize| {
            let level = self.levels.get(level).or(self.levels.last());
            level.map_or((0, 0), |l| (l.first_index, l.index_count))
        };
        DrawModel {
            bind_group: self.bind_group.clone(),
            corners: self.corners.clone(),
            indices: self.indices.clone(),
            mirrored: self.mirrored.clone(),
            index_format: self.index_format,
            ranges: std::array::from_fn(range),
            levels: self.model_levels(),
        }
    }

    /// What the crowds of this model draw, as it changes.
    pub(crate) fn published(&self) -> &Arc<Published> {
        self.published
            .get_or_init(|| Published::new(self.draw_model()))
    }

    /// The levels as choosing one needs them.
    pub(crate) fn model_levels(&self) -> ModelLevels {
        model_levels(&self.levels, self.facts.sphere)
    }

    /// Per frame, its box in model space.
    pub(crate) fn frame_bounds(&self) -> &Arc<[Bounds]> {
        &self.facts.frame_bounds
    }
}

impl GpuModelBytes {
    /// Counts `indices` and `mirrored`, the index buffers of `mesh`'s
    /// levels in `format`.
    fn count_indices(
        &mut self,
        indices: &wgpu::Buffer,
        mirrored: &wgpu::Buffer,
        mesh: &RenderMesh,
        format: IndexFormat,
    ) {
        let full_detail = mesh.indices().len() as u64 * format.size();
        self.indices = indices.size() + mirrored.size();
        self.level_indices =
            self.indices - 2 * full_detail.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
    }
}

/// Both index buffers of `levels`: the model's winding and the mirrored
/// one, in `format`, checked against the device's limits.
fn upload_indices(
    device: &wgpu::Device,
    levels: &Levels,
    format: IndexFormat,
) -> Result<(wgpu::Buffer, wgpu::Buffer), SetupError> {
    let index_bytes = narrow(levels.indices(), format);
    check_size("indices", index_bytes.len() as u64, &device.limits(), false)?;
    let mirrored_bytes = narrow(&reversed(levels.indices()), format);
    let device_error = |message| SetupError::Device {
        operation: "uploading a model's indices",
        message,
    };
    let (made, error) = caught(device, || {
        // COPY_SRC lets tests read back what a level draws.
        let usage = wgpu::BufferUsages::INDEX | wgpu::BufferUsages::COPY_SRC;
        Ok::<_, String>((
            buffer_init(device, "md2-wgpu indices", &index_bytes, usage)?,
            buffer_init(device, "md2-wgpu mirrored indices", &mirrored_bytes, usage)?,
        ))
    });
    if let Some(message) = error {
        return Err(device_error(message));
    }
    made.map_err(device_error)
}

/// The one way [`ModelData::new`] fails, as a set-up error.
fn too_many_frames(e: ModelDataError) -> SetupError {
    match e {
        ModelDataError::TooManyFrames { frames, max } => SetupError::TooManyFrames { frames, max },
        other => SetupError::ModelData(other),
    }
}
