//! The in-memory MDL model: every part of the file, kept as stored, and the
//! model seam's view of it.

use super::error::MdlWarning;
use crate::model::{KeyframeModel, PackedVertex};

/// The 84-byte MDL header, field by field, as the file gives it (for a model
/// built in code: as [`MdlModel::to_bytes`] will write it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MdlHeader {
    /// `IDPO`.
    pub ident: [u8; 4],
    /// 6.
    pub version: i32,
    /// Multiplies each packed coordinate, in every frame: one scale for the
    /// whole model (MD2 has one per frame).
    pub scale: [f32; 3],
    /// Added after scaling, in every frame (`scale_origin` in Quake's
    /// sources).
    pub translate: [f32; 3],
    /// The model's radius, for the game's culling.
    pub bounding_radius: f32,
    /// Where the eyes are, for a player's view (unused by the game).
    pub eye_position: [f32; 3],
    /// Skins (single or groups).
    pub num_skins: i32,
    /// The skin's width in texels.
    pub skin_width: i32,
    /// The skin's height in texels.
    pub skin_height: i32,
    /// Vertices per frame, and texture coordinates (one per vertex).
    pub num_verts: i32,
    /// Triangles.
    pub num_tris: i32,
    /// Frames (single or groups) as the file counts them: a group counts
    /// once, however many poses it holds.
    pub num_frames: i32,
    /// 0: every entity animates in step; 1: each starts at a random time.
    pub sync_type: i32,
    /// Quake's effect flags (`EF_ROCKET` 1, `EF_GRENADE` 2, `EF_GIB` 4,
    /// `EF_ROTATE` 8, `EF_TRACER` 16, `EF_ZOMGIB` 32, `EF_TRACER2` 64,
    /// `EF_TRACER3` 128): a trail or a spin the game gives the entity.
    pub flags: i32,
    /// The average triangle size, for the software renderer.
    pub size: f32,
}

impl MdlHeader {
    /// The header's size in bytes.
    pub const SIZE: usize = super::layout::HEADER_SIZE;
    /// The ident every MDL file starts with.
    pub const IDENT: [u8; 4] = *b"IDPO";
    /// The version this crate reads and writes (Quake's `ALIAS_VERSION`).
    pub const VERSION: i32 = 6;
}

/// A skin: one image, or a group of images that the game cycles through by
/// their intervals (a flickering torch). Each image is `skin_width ×
/// skin_height` indices into the game's palette, row by row from the top.
#[derive(Clone, Debug, PartialEq)]
pub enum MdlSkin {
    /// One image.
    Single(Vec<u8>),
    /// Images shown in turn: image `i` until `intervals[i]` seconds into
    /// the cycle (the intervals are cumulative end times, each above the
    /// last; the cycle lasts the last one).
    Group {
        /// Cumulative end times in seconds, one per image, each positive.
        intervals: Vec<f32>,
        /// The images.
        images: Vec<Vec<u8>>,
    },
}

impl MdlSkin {
    /// The skin's images: one for a single skin.
    pub fn images(&self) -> &[Vec<u8>] {
        match self {
            MdlSkin::Single(image) => std::slice::from_ref(image),
            MdlSkin::Group { images, .. } => images,
        }
    }

    /// The intervals of a group; none for a single skin.
    pub fn intervals(&self) -> &[f32] {
        match self {
            MdlSkin::Single(_) => &[],
            MdlSkin::Group { intervals, .. } => intervals,
        }
    }
}

/// A vertex's texture coordinate, in texels, as stored: one per vertex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MdlTexCoord {
    /// Non-zero where the vertex lies on the seam between the skin's front
    /// half and its back half: a triangle facing back then reads it half a
    /// skin to the right.
    pub on_seam: i32,
    /// Column, in texels.
    pub s: i32,
    /// Row, in texels.
    pub t: i32,
}

/// A triangle, as stored: which side of the skin it reads, and its vertices
/// (clockwise seen from outside, as MD2's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MdlTriangle {
    /// Non-zero for a triangle on the skin's front half; 0 for one on the
    /// back half, whose seam vertices read `s + skin_width / 2`.
    pub faces_front: i32,
    /// Indices into the vertices (and their texture coordinates).
    pub vertices: [i32; 3],
}

impl MdlTriangle {
    /// Whether vertex `k`'s texture coordinate is read on the back half:
    /// the triangle faces back and the vertex is on the seam (Quake's rule).
    pub fn reads_back_half(&self, k: usize, tex_coords: &[MdlTexCoord]) -> bool {
        let coord = usize::try_from(self.vertices[k])
            .ok()
            .and_then(|v| tex_coords.get(v));
        self.faces_front == 0 && coord.is_some_and(|c| c.on_seam != 0)
    }
}

/// A frame as the file lists it: one pose, or a group of poses the game
/// cycles through by their intervals. The poses themselves are frames of
/// the model seam, `first..first + count`
/// ([`KeyframeModel::frames`](crate::model::KeyframeModel::frames): their
/// names; [`frame_data`](crate::model::KeyframeModel::frame_data):
/// their vertices).
#[derive(Clone, Debug, PartialEq)]
pub struct MdlFrame {
    /// The first pose, a frame index of the seam.
    pub first: u32,
    /// How many poses: 1 for a single frame, 1 or more for a group.
    pub count: u32,
    /// The group's header; `None` for a single frame.
    pub group: Option<MdlFrameGroup>,
}

impl MdlFrame {
    /// The poses, as frame indices of the seam.
    pub fn poses(&self) -> std::ops::Range<u32> {
        self.first..self.first + self.count
    }
}

/// What a frame group stores beside its poses.
#[derive(Clone, Debug, PartialEq)]
pub struct MdlFrameGroup {
    /// The group's bounding box, low corner, as a packed vertex.
    pub bbox_min: PackedVertex,
    /// The group's bounding box, high corner.
    pub bbox_max: PackedVertex,
    /// Cumulative end times in seconds, one per pose, each positive: pose
    /// `i` shows until `intervals[i]` into the cycle.
    pub intervals: Vec<f32>,
}

/// A pose's own bounding box as the file stores it, kept so a rewrite is
/// exact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MdlPoseBox {
    /// Low corner, as a packed vertex.
    pub min: PackedVertex,
    /// High corner.
    pub max: PackedVertex,
}

/// A Quake I MDL model: every part of the file.
///
/// Load one with [`MdlModel::from_bytes`] or [`MdlModel::open`], build one
/// with [`MdlModel::from_parts`], write one with [`MdlModel::to_bytes`]
/// (byte for byte what was read, trailing bytes included).
///
/// Its poses, welded corners and animations are a [`KeyframeModel`]
/// (it derefs to one, as [`Md2Model`](crate::Md2Model) does), so everything
/// that draws, crowds, simplifies or exports an MD2 takes an MDL unchanged.
/// The seam's frames are the file's poses in order, every frame group's
/// poses in turn; its corners are the (vertex, skin half) pairs the
/// triangles use, by Quake's seam rule; its animations group single frames
/// by name as MD2's are, and make each frame group an animation of its own.
#[derive(Clone, Debug, PartialEq)]
pub struct MdlModel {
    pub(crate) header: MdlHeader,
    pub(crate) skins: Vec<MdlSkin>,
    pub(crate) tex_coords: Vec<MdlTexCoord>,
    pub(crate) triangles: Vec<MdlTriangle>,
    pub(crate) file_frames: Vec<MdlFrame>,
    pub(crate) pose_boxes: Vec<MdlPoseBox>,
    pub(crate) trailing: Vec<u8>,
    pub(crate) warnings: Vec<MdlWarning>,
    pub(crate) keyframes: KeyframeModel,
}

impl std::ops::Deref for MdlModel {
    type Target = KeyframeModel;

    fn deref(&self) -> &KeyframeModel {
        &self.keyframes
    }
}

impl AsRef<KeyframeModel> for MdlModel {
    fn as_ref(&self) -> &KeyframeModel {
        &self.keyframes
    }
}

impl MdlModel {
    /// The header, as read (or as it will be written, for a built model).
    pub fn header(&self) -> &MdlHeader {
        &self.header
    }

    /// The skins, as palette indices.
    pub fn skins(&self) -> &[MdlSkin] {
        &self.skins
    }

    /// One texture coordinate per vertex.
    pub fn tex_coords(&self) -> &[MdlTexCoord] {
        &self.tex_coords
    }

    /// The triangles, as stored.
    pub fn triangles(&self) -> &[MdlTriangle] {
        &self.triangles
    }

    /// The frames as the file lists them: single poses and groups.
    pub fn file_frames(&self) -> &[MdlFrame] {
        &self.file_frames
    }

    /// Each pose's bounding box as stored, one per seam frame.
    pub fn pose_boxes(&self) -> &[MdlPoseBox] {
        &self.pose_boxes
    }

    /// Bytes after the last frame (kept, so a rewrite is exact; the game
    /// ignores them).
    pub fn trailing_bytes(&self) -> &[u8] {
        &self.trailing
    }

    /// The quirks the file loaded with.
    pub fn warnings(&self) -> &[MdlWarning] {
        &self.warnings
    }
}
