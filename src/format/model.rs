//! The in-memory MD2 model: every section of the file, with the frames' packed
//! vertices kept exactly as stored, in the model seam
//! ([`KeyframeModel`]) every other room reads.

use super::error::Md2Warning;
use crate::model::{Animation, Frame, KeyframeModel, PackedVertex, fixed_name, name_until_nul};

/// The 68-byte MD2 header, field by field, as the file gives it (for a model
/// built in code: as [`Md2Model::to_bytes`] will write it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the fields carry the format's conventional names
pub struct Md2Header {
    pub ident: [u8; 4],
    pub version: i32,
    pub skinwidth: i32,
    pub skinheight: i32,
    pub framesize: i32,
    pub num_skins: i32,
    pub num_xyz: i32,
    pub num_st: i32,
    pub num_tris: i32,
    pub num_glcmds: i32,
    pub num_frames: i32,
    pub ofs_skins: i32,
    pub ofs_st: i32,
    pub ofs_tris: i32,
    pub ofs_frames: i32,
    pub ofs_glcmds: i32,
    pub ofs_end: i32,
}

impl Md2Header {
    /// The size of the header in bytes.
    pub const SIZE: usize = 68;
    /// The magic `IDP2`.
    pub const IDENT: [u8; 4] = *b"IDP2";
    /// The only version there is.
    pub const VERSION: i32 = 8;

    /// The fields by their conventional names, in file order (`ident` as its
    /// little-endian integer).
    pub fn fields(&self) -> [(&'static str, i32); 17] {
        [
            ("ident", i32::from_le_bytes(self.ident)),
            ("version", self.version),
            ("skinwidth", self.skinwidth),
            ("skinheight", self.skinheight),
            ("framesize", self.framesize),
            ("num_skins", self.num_skins),
            ("num_xyz", self.num_xyz),
            ("num_st", self.num_st),
            ("num_tris", self.num_tris),
            ("num_glcmds", self.num_glcmds),
            ("num_frames", self.num_frames),
            ("ofs_skins", self.ofs_skins),
            ("ofs_st", self.ofs_st),
            ("ofs_tris", self.ofs_tris),
            ("ofs_frames", self.ofs_frames),
            ("ofs_glcmds", self.ofs_glcmds),
            ("ofs_end", self.ofs_end),
        ]
    }
}

/// A texture coordinate in texels, as stored (`s` right, `t` down).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TexCoord {
    /// Horizontal texel.
    pub s: i16,
    /// Vertical texel.
    pub t: i16,
}

/// A triangle: three vertex indices and three texture-coordinate indices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Triangle {
    /// Indices into each frame's vertices.
    pub xyz: [u16; 3],
    /// Indices into [`Md2Model::tex_coords`].
    pub st: [u16; 3],
}

/// A skin path as stored in the header's skin list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SkinName {
    /// The 64 bytes as stored.
    pub bytes: [u8; 64],
}

impl SkinName {
    /// A skin name (truncated to 63 bytes).
    pub fn new(name: &str) -> Self {
        SkinName {
            bytes: fixed_name(name),
        }
    }

    /// The path up to the first NUL (bytes that are not UTF-8 replaced).
    pub fn name(&self) -> String {
        name_until_nul(&self.bytes)
    }
}

/// Whether a GL command draws a strip or a fan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlCmdKind {
    /// `GL_TRIANGLE_STRIP`: a positive count in the file.
    Strip,
    /// `GL_TRIANGLE_FAN`: a negative count in the file.
    Fan,
}

/// A vertex of a GL command: its own texture coordinate and a vertex index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlVertex {
    /// Horizontal texture coordinate, normalised: (st.s + 0.5) / skinwidth.
    pub s: f32,
    /// Vertical texture coordinate, normalised.
    pub t: f32,
    /// Index into each frame's vertices.
    pub xyz: u32,
}

/// One GL command: a triangle strip or fan, as Quake II drew the model.
#[derive(Clone, Debug, PartialEq)]
pub struct GlCmd {
    /// Strip or fan.
    pub kind: GlCmdKind,
    /// At least three vertices.
    pub vertices: Vec<GlVertex>,
}

impl GlCmd {
    /// The triangles this command draws, as (three vertices) in the order a
    /// GL strip or fan gives them (odd strip triangles swap their first two).
    pub fn triangles(&self) -> impl Iterator<Item = [GlVertex; 3]> + '_ {
        let v = &self.vertices;
        (0..v.len().saturating_sub(2)).map(move |i| match self.kind {
            GlCmdKind::Strip if i % 2 == 0 => [v[i], v[i + 1], v[i + 2]],
            GlCmdKind::Strip => [v[i + 1], v[i], v[i + 2]],
            GlCmdKind::Fan => [v[0], v[i + 1], v[i + 2]],
        })
    }
}

/// An MD2 model: every section of the file.
///
/// Load one with [`Md2Model::from_bytes`] or [`Md2Model::open`], build one
/// with [`Md2Model::from_parts`], write one with [`Md2Model::to_bytes`].
/// Fields are private so that a model is always valid: every index in range,
/// every frame complete, every scale finite.
///
/// Its frames, welded corners and animations are a [`KeyframeModel`]
/// ([`keyframes`](Md2Model::keyframes), [`Deref`](std::ops::Deref) and
/// [`AsRef`]): what meshes, levels, the CPU reference, the GPU and the glTF
/// export read, so an `&Md2Model` (or `&Arc<Md2Model>`) goes wherever they
/// take a `&KeyframeModel`.
#[derive(Clone, Debug, PartialEq)]
pub struct Md2Model {
    pub(crate) header: Md2Header,
    pub(crate) skins: Vec<SkinName>,
    pub(crate) tex_coords: Vec<TexCoord>,
    pub(crate) triangles: Vec<Triangle>,
    pub(crate) glcmds: Vec<GlCmd>,
    pub(crate) warnings: Vec<Md2Warning>,
    /// The frames, their packed vertices, the welded corners and the
    /// animations.
    pub(crate) keyframes: KeyframeModel,
}

impl AsRef<KeyframeModel> for Md2Model {
    fn as_ref(&self) -> &KeyframeModel {
        &self.keyframes
    }
}

/// An MD2 model is its keyframes plus the file's own sections (header,
/// skins, texel coordinates, GL commands): deref lets every path past the
/// parser take `&KeyframeModel` and still be handed an `&Md2Model`, without
/// generics or a conversion at each call.
impl std::ops::Deref for Md2Model {
    type Target = KeyframeModel;

    fn deref(&self) -> &KeyframeModel {
        &self.keyframes
    }
}

impl Md2Model {
    /// The model seam's view of this model: frames, welded corners,
    /// animations.
    pub fn keyframes(&self) -> &KeyframeModel {
        &self.keyframes
    }

    /// The header, as read (or as it will be written, for a built model).
    pub fn header(&self) -> &Md2Header {
        &self.header
    }

    /// The skin's size in texels, as the header gives it: (width, height).
    pub fn skin_size(&self) -> (u32, u32) {
        (self.header.skinwidth as u32, self.header.skinheight as u32)
    }

    /// The skin paths named in the header (often none, often stale).
    pub fn skins(&self) -> &[SkinName] {
        &self.skins
    }

    /// Texture coordinates in texels.
    pub fn tex_coords(&self) -> &[TexCoord] {
        &self.tex_coords
    }

    /// The triangles.
    pub fn triangles(&self) -> &[Triangle] {
        &self.triangles
    }

    /// The frame headers (scale, translate, name).
    #[deprecated(
        note = "use `model.keyframes().frames()`, the model seam's; this method goes in the next release"
    )]
    pub fn frames(&self) -> &[Frame] {
        self.keyframes.frames()
    }

    /// How many vertices each frame has (`num_xyz`).
    #[deprecated(
        note = "use `model.keyframes().vertex_count()`, the model seam's; this method goes in the next release"
    )]
    pub fn vertex_count(&self) -> usize {
        self.keyframes.vertex_count()
    }

    /// How many frames there are (at least 1).
    #[deprecated(
        note = "use `model.keyframes().frame_count()`, the model seam's; this method goes in the next release"
    )]
    pub fn frame_count(&self) -> u32 {
        self.keyframes.frame_count()
    }

    /// Every frame's packed vertices, frame-major, exactly as in the file:
    /// the bytes the GPU receives unchanged.
    #[deprecated(
        note = "use `model.keyframes().vertices()`, the model seam's; this method goes in the next release"
    )]
    pub fn vertices(&self) -> &[PackedVertex] {
        self.keyframes.vertices()
    }

    /// One frame's packed vertices. Panics if `frame` is out of range, like
    /// slice indexing; see [`Md2Model::frame_count`].
    #[deprecated(
        note = "use `model.keyframes().frame_data(frame).packed()`, the model seam's; this method goes in the next release"
    )]
    pub fn frame_vertices(&self, frame: u32) -> &[PackedVertex] {
        self.keyframes.frame_data(frame).packed()
    }

    /// The GL commands (strips and fans) as stored; empty where the file had
    /// none or they were broken (see [`Md2Model::warnings`]).
    pub fn glcmds(&self) -> &[GlCmd] {
        &self.glcmds
    }

    /// The quirks met while loading, in the order met. Empty for a clean file.
    /// A model built with [`Md2Model::from_parts`] reports the one quirk its
    /// parts can have, [`Md2Warning::AnimationRenamed`].
    pub fn warnings(&self) -> &[Md2Warning] {
        &self.warnings
    }

    /// The frames grouped into named animations, in frame order, by the rule
    /// documented in [`animations`](crate::model::animations): contiguous ranges
    /// that cover every frame, with unique names.
    #[deprecated(
        note = "use `model.keyframes().animations()`, the model seam's; this method goes in the next release"
    )]
    pub fn animations(&self) -> &[Animation] {
        self.keyframes.animations()
    }

    /// The animation with this name (exactly as [`Md2Model::animations`]
    /// gives it), if there is one.
    #[deprecated(
        note = "use `model.keyframes().animation(name)`, the model seam's; this method goes in the next release"
    )]
    pub fn animation(&self, name: &str) -> Option<&Animation> {
        self.keyframes.animation(name)
    }

    /// The axis-aligned bounds of one frame in model units: (min, max).
    /// Panics if `frame` is out of range, like
    /// [`frame_vertices`](Md2Model::frame_vertices).
    /// [`KeyframeModel::frame_bounds`] gives them as [`Bounds`](crate::model::Bounds).
    #[deprecated(
        note = "use `model.keyframes().frame_bounds(frame)`, the model seam's, as a `Bounds`; this method goes in the next release"
    )]
    pub fn frame_bounds(&self, frame: u32) -> ([f32; 3], [f32; 3]) {
        self.keyframes.frame_bounds(frame).to_pair()
    }

    /// The bounds over every frame: what a camera frames to show the model
    /// whatever it does. [`KeyframeModel::bounds`] gives them as [`Bounds`](crate::model::Bounds).
    #[deprecated(
        note = "use `model.keyframes().bounds()`, the model seam's, as a `Bounds`; this method goes in the next release"
    )]
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        self.keyframes.bounds().to_pair()
    }
}
