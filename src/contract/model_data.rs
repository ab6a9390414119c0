//! A model's GPU data as plain bytes: what any host uploads, once, to draw
//! it with the pose WGSL. [`GpuModel`](crate::GpuModel) uploads exactly
//! this with the crate's wgpu; a Bevy plugin or a browser build uploads the
//! same bytes with its own.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::buckets::MAX_LEVELS;
use super::level::ModelLevels;
use super::normals::{lat_long_normal_table, normal_table};
use super::records::ModelInfo;
use super::wgsl::MAX_GPU_FRAMES;
use crate::mesh::{Level, LevelOptions, Levels, MeshError, RenderMesh, TriangleOrder};
use crate::model::{Bounds, Corner, FrameWord, KeyframeModel};

/// How a model's GPU data is made: the triangle order and the levels of
/// detail to build.
///
/// ```
/// use md2_wgpu::{contract::GpuModelOptions, mesh::{LevelOptions, TriangleOrder}};
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
    /// [`Levels`]), after full detail in the same index lists.
    /// [`LevelOptions::NONE`] (the default) builds none: levels take time
    /// to build (see [`Levels::new`]).
    pub levels: LevelOptions,
    /// Whether the skins given with the model are its layers followed by
    /// a fullbright mask for each (twice as many, alpha 1 where a texel is
    /// drawn unlit: [`SkinImages::with_masks`](crate::format::mdl::SkinImages::with_masks)
    /// makes them for a Quake I model). The built-in shading then lights
    /// those texels fully, as Quake drew its fire and eyes; instances still
    /// name skins by the first half's layers.
    pub fullbright_masks: bool,
}

impl GpuModelOptions {
    /// The vertex-cache order, full detail only.
    pub const DEFAULT: GpuModelOptions = GpuModelOptions {
        triangle_order: TriangleOrder::VertexCache,
        levels: LevelOptions::NONE,
        fullbright_masks: false,
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

    /// The same options, the skins followed (or not) by fullbright masks.
    pub const fn with_fullbright_masks(self, fullbright_masks: bool) -> GpuModelOptions {
        GpuModelOptions {
            fullbright_masks,
            ..self
        }
    }
}

impl Default for GpuModelOptions {
    fn default() -> Self {
        GpuModelOptions::DEFAULT
    }
}

/// The width of a model's indices: 16 bits wherever every corner fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexFormat {
    /// `u16` indices (wgpu's `IndexFormat::Uint16`).
    Uint16,
    /// `u32` indices.
    Uint32,
}

impl IndexFormat {
    /// The width `mesh`'s indices need: 16 bits where every corner fits.
    pub(crate) fn for_mesh(mesh: &RenderMesh) -> IndexFormat {
        if mesh.corners().len() <= usize::from(u16::MAX) {
            IndexFormat::Uint16
        } else {
            IndexFormat::Uint32
        }
    }

    /// Bytes per index.
    pub const fn size(self) -> u64 {
        match self {
            IndexFormat::Uint16 => 2,
            IndexFormat::Uint32 => 4,
        }
    }
}

/// Why a model cannot become GPU data.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelDataError {
    /// The model has more frames than an instance record can address.
    TooManyFrames {
        /// The model's frame count.
        frames: u32,
        /// The most the records address ([`MAX_GPU_FRAMES`]; Quake II
        /// allowed 512).
        max: u32,
    },
    /// Levels of detail given to [`ModelData::with_levels`] are not this
    /// model's (another model's, or built over another triangle order).
    LevelsMismatch(MeshError),
}

impl fmt::Display for ModelDataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelDataError::TooManyFrames { frames, max } => write!(
                f,
                "the model has {frames} frames; an instance record addresses at most {max}"
            ),
            ModelDataError::LevelsMismatch(e) => write!(f, "levels not this model's: {e}"),
        }
    }
}

impl std::error::Error for ModelDataError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ModelDataError::LevelsMismatch(e) => Some(e),
            ModelDataError::TooManyFrames { .. } => None,
        }
    }
}

/// A model's GPU data as plain bytes, built on the CPU from a
/// [`KeyframeModel`] (an MD2, an MDL, an MD3's surface): everything the pose WGSL and a draw of the model read,
/// uploaded once and never written again while the model animates.
///
/// | data | where it goes | bytes |
/// |---|---|---|
/// | [`info_bytes`](Self::info_bytes) | uniform, [`PoseBindings::model`](super::PoseBindings::model) | 16 |
/// | [`vertex_bytes`](Self::vertex_bytes) | storage, [`PoseBindings::vertices`](super::PoseBindings::vertices) | 4 (or 8: [`FrameWord::Wide8`]) × vertices × frames: the file's records verbatim |
/// | [`frame_param_bytes`](Self::frame_param_bytes) | storage, [`PoseBindings::frame_params`](super::PoseBindings::frame_params) | 4,096 (the normal table of the model's word) + 32 a frame: (scale, 0), (translate, 0) |
/// | [`corner_bytes`](Self::corner_bytes) | vertex buffer: `u32` xyz index at location 0, `vec2<f32>` uv at location 1, 12-byte stride | 12 a corner |
/// | [`index_bytes`](Self::index_bytes) | index buffer, [`index_format`](Self::index_format); every level after full detail | 2 or 4 an index |
/// | [`mirrored_index_bytes`](Self::mirrored_index_bytes) | index buffer for mirrored instances: the same ranges, the other winding | as the indices |
///
/// A draw of level `l` (see [`levels`](Self::levels)) draws the index range
/// `first_index..first_index + index_count` of either index buffer over the
/// corners, one instance per record. The normal table at the start of the
/// frame parameters is the same for every model of one word:
/// [`normal_table`](super::normal_table) for 4-byte words,
/// [`lat_long_normal_table`](super::lat_long_normal_table) for 8-byte ones
/// (whose info's flags carry [`MODEL_WIDE_WORD`](super::MODEL_WIDE_WORD)).
///
/// ```
/// use md2_wgpu::{ModelData, demo, contract::GpuModelOptions};
///
/// let model = demo::demo_model();
/// let data = ModelData::new(&model, GpuModelOptions::DEFAULT)?;
/// assert_eq!(data.vertex_bytes().len(), 4 * model.vertex_count() * model.frame_count() as usize);
/// assert_eq!(data.frame_param_bytes().len(), 4096 + 32 * model.frame_count() as usize);
/// assert_eq!(data.levels().len(), 1);
/// # Ok::<(), md2_wgpu::contract::ModelDataError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ModelData {
    info: ModelInfo,
    vertices: Vec<u32>,
    frame_params: Vec<[f32; 4]>,
    mesh: RenderMesh,
    levels: Levels,
    mirrored: Vec<u32>,
    frame_bounds: Arc<[Bounds]>,
    sphere: [f32; 4],
}

impl ModelData {
    /// `model`'s GPU data: its frames as they are, its corners and
    /// triangles in `options.triangle_order`, and the levels of detail
    /// `options.levels` asks for (at most [`MAX_LEVELS`] in all).
    pub fn new(
        model: &KeyframeModel,
        options: GpuModelOptions,
    ) -> Result<ModelData, ModelDataError> {
        let frames = model.frame_count();
        if frames > MAX_GPU_FRAMES {
            return Err(ModelDataError::TooManyFrames {
                frames,
                max: MAX_GPU_FRAMES,
            });
        }
        let mesh = RenderMesh::new(model, options.triangle_order);
        // The renderers draw MAX_LEVELS levels at most: no more are built.
        let level_options = LevelOptions {
            coarser_levels: options.levels.coarser_levels.min(MAX_LEVELS as u8 - 1),
            ..options.levels
        };
        // The mesh is the model's own, which is all `new` checks.
        let levels = Levels::new(model, &mesh, &level_options)
            .unwrap_or_else(|_| Levels::full_detail(&mesh));
        let frame_bounds: Arc<[_]> = (0..frames).map(|f| model.frame_bounds(f)).collect();
        let sphere = bounding_sphere(&frame_bounds);
        Ok(ModelData {
            info: ModelInfo {
                num_xyz: model.vertex_count() as u32,
                num_frames: frames,
                flags: model_flags(model, options),
                padding_b: 0,
            },
            vertices: model.all_words(),
            frame_params: frame_params(model),
            mirrored: reversed(levels.indices()),
            mesh,
            levels,
            frame_bounds,
            sphere,
        })
    }

    /// The same data with `levels` (built for this model's mesh, say on
    /// another thread, or loaded) in place of the levels it had: full
    /// detail must be this data's own, every level within the corners, and
    /// at most [`MAX_LEVELS`] are kept.
    pub fn with_levels(mut self, levels: Levels) -> Result<ModelData, ModelDataError> {
        levels
            .check_for(&self.mesh)
            .map_err(ModelDataError::LevelsMismatch)?;
        self.levels = levels.truncated(MAX_LEVELS);
        self.mirrored = reversed(self.levels.indices());
        Ok(self)
    }

    /// The model's counts (`Md2ModelInfo`).
    pub fn info(&self) -> ModelInfo {
        self.info
    }

    /// [`info`](Self::info) as the uniform's 16 bytes.
    pub fn info_bytes(&self) -> &[u8] {
        bytemuck::bytes_of(&self.info)
    }

    /// Every frame's vertices, the file's 4 bytes each, frame after frame:
    /// `md2_verts[frame * num_xyz + i]`; for a model of
    /// [`FrameWord::Wide8`], 8 bytes each, `md2_verts[2 * (frame * num_xyz +
    /// i)]` and the `u32` after it ([`WideVertex::words`](crate::model::WideVertex::words)).
    pub fn vertex_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.vertices)
    }

    /// `md2_frame_params`, as `vec4<f32>`s: the normal table of the model's
    /// word ([`normal_table`](super::normal_table) or
    /// [`lat_long_normal_table`](super::lat_long_normal_table),
    /// [`NORMAL_TABLE_LEN`](super::NORMAL_TABLE_LEN) entries), then per
    /// frame `(scale, 0)` and `(translate, 0)`.
    pub fn frame_param_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.frame_params)
    }

    /// The welded corners the triangles draw.
    #[deprecated(note = "use `data.mesh().corners()`; this method goes in the next release")]
    pub fn corners(&self) -> &[Corner] {
        self.mesh.corners()
    }

    /// [`RenderMesh::corners`] as vertex-buffer bytes.
    pub fn corner_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.mesh.corners())
    }

    /// The width of the indices: 16 bits where every corner fits.
    pub fn index_format(&self) -> IndexFormat {
        IndexFormat::for_mesh(&self.mesh)
    }

    /// Every level's triangles, level after level, full detail first, as
    /// 32-bit indices (see [`index_bytes`](Self::index_bytes) for the
    /// uploaded width).
    #[deprecated(
        note = "use `data.levels_of_detail().indices()`; this method goes in the next release"
    )]
    pub fn indices(&self) -> &[u32] {
        self.levels.indices()
    }

    /// [`Levels::indices`] with each triangle's winding reversed (its
    /// last two corners swapped): what mirrored instances draw, so that
    /// culling still shows their outside.
    pub fn mirrored_indices(&self) -> &[u32] {
        &self.mirrored
    }

    /// [`Levels::indices`] in [`index_format`](Self::index_format).
    pub fn index_bytes(&self) -> Vec<u8> {
        narrow(self.levels.indices(), self.index_format())
    }

    /// [`mirrored_indices`](Self::mirrored_indices) in
    /// [`index_format`](Self::index_format).
    pub fn mirrored_index_bytes(&self) -> Vec<u8> {
        narrow(&self.mirrored, self.index_format())
    }

    /// The levels of detail, full detail first: each one's range of both
    /// index lists, its triangles and its error.
    #[deprecated(
        note = "use `data.levels_of_detail().levels()`; this method goes in the next release"
    )]
    pub fn levels(&self) -> &[Level] {
        self.levels.levels()
    }

    /// The levels of detail, full detail first (each one's range of both
    /// index lists, its triangles and its error), with their index list and
    /// how long they took to build.
    pub fn levels_of_detail(&self) -> &Levels {
        &self.levels
    }

    /// The corners and full detail's triangles.
    pub fn mesh(&self) -> &RenderMesh {
        &self.mesh
    }

    /// Per frame, the box of its vertices in model space (Quake axes).
    pub fn frame_bounds(&self) -> &[Bounds] {
        &self.frame_bounds
    }

    /// A sphere around every frame's box (model space): centre, radius.
    /// Levels of detail measure an instance's distance from it.
    pub fn bounding_sphere(&self) -> [f32; 4] {
        self.sphere
    }

    /// How long building the levels took (zero where none were asked for).
    #[deprecated(
        note = "use `data.levels_of_detail().build_time()`; this method goes in the next release"
    )]
    pub fn level_build_time(&self) -> Duration {
        self.levels.build_time()
    }

    /// The frame boxes, shared.
    pub(crate) fn shared_frame_bounds(&self) -> Arc<[Bounds]> {
        Arc::clone(&self.frame_bounds)
    }
}

/// `levels` (full detail first) and a model's bounding sphere as choosing
/// a level needs them.
pub(crate) fn model_levels(levels: &[Level], sphere: [f32; 4]) -> ModelLevels {
    let mut errors = [0.0; MAX_LEVELS];
    for (e, l) in errors.iter_mut().zip(levels) {
        *e = l.error;
    }
    ModelLevels {
        count: levels.len().clamp(1, MAX_LEVELS),
        errors,
        sphere,
    }
}

/// A sphere around every frame's box, in model space: centre, radius.
fn bounding_sphere(frame_bounds: &[Bounds]) -> [f32; 4] {
    if frame_bounds.is_empty() {
        return [0.0; 4];
    }
    let all = frame_bounds
        .iter()
        .fold(Bounds::EMPTY, |all, &b| all.union(b));
    let center = all.center();
    let half = [0, 1, 2].map(|k| (all.max[k] - all.min[k]) * 0.5);
    let radius = (half[0] * half[0] + half[1] * half[1] + half[2] * half[2]).sqrt();
    [center[0], center[1], center[2], radius]
}

/// `Md2ModelInfo::flags`: the word the pose decodes, and whether the skins
/// have fullbright masks.
fn model_flags(model: &KeyframeModel, options: GpuModelOptions) -> u32 {
    let word = match model.frame_word() {
        FrameWord::Packed4 => 0,
        FrameWord::Wide8 => super::MODEL_WIDE_WORD,
    };
    let masks = if options.fullbright_masks {
        super::MODEL_FULLBRIGHT_MASKS
    } else {
        0
    };
    word | masks
}

/// The normal table of the model's word, then two vec4 per frame:
/// (scale, 0), (translate, 0).
fn frame_params(model: &KeyframeModel) -> Vec<[f32; 4]> {
    let frames = model.frames().iter().flat_map(|f| {
        [
            [f.scale[0], f.scale[1], f.scale[2], 0.0],
            [f.translate[0], f.translate[1], f.translate[2], 0.0],
        ]
    });
    let table = match model.frame_word() {
        FrameWord::Packed4 => normal_table(),
        FrameWord::Wide8 => lat_long_normal_table(),
    };
    table.into_iter().chain(frames).collect()
}

/// The index list as bytes of `format`.
pub(crate) fn narrow(indices: &[u32], format: IndexFormat) -> Vec<u8> {
    match format {
        IndexFormat::Uint16 => {
            let narrow: Vec<u16> = indices.iter().map(|&i| i as u16).collect();
            bytemuck::cast_slice(&narrow).to_vec()
        }
        IndexFormat::Uint32 => bytemuck::cast_slice(indices).to_vec(),
    }
}

/// The triangle list wound the other way: each triangle's last two corners
/// swapped, so a mirrored instance (which turns winding around) is culled
/// like the others and the triangles keep their order in the vertex cache.
pub(crate) fn reversed(indices: &[u32]) -> Vec<u32> {
    indices
        .chunks_exact(3)
        .flat_map(|t| [t[0], t[2], t[1]])
        .collect()
}
