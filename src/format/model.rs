//! The in-memory MD2 model: every section of the file, with the frames' packed
//! vertices kept exactly as stored.

use super::animations::{Animation, group};
use super::anorms::normal_from_index;
use super::error::Md2Warning;

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

/// One vertex of one frame, exactly the file's 4 bytes: a position quantised
/// to a byte per axis and an index into [`ANORMS`](crate::ANORMS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct PackedVertex {
    /// x, y, z in the frame's quantised grid.
    pub position: [u8; 3],
    /// Index into the normal table (≥ 162 is read as straight up).
    pub normal_index: u8,
}

impl PackedVertex {
    /// The vertex in model units: position × scale + translate.
    #[inline]
    pub fn decode_position(&self, frame: &Frame) -> [f32; 3] {
        let p = self.position;
        [
            p[0] as f32 * frame.scale[0] + frame.translate[0],
            p[1] as f32 * frame.scale[1] + frame.translate[1],
            p[2] as f32 * frame.scale[2] + frame.translate[2],
        ]
    }

    /// The unit normal from the table.
    #[inline]
    pub fn normal(&self) -> [f32; 3] {
        normal_from_index(self.normal_index)
    }
}

/// A keyframe's header: how its packed vertices map to model units, and its
/// name. The vertices themselves are in [`Md2Model::frame_vertices`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Multiplies each packed coordinate.
    pub scale: [f32; 3],
    /// Added after scaling.
    pub translate: [f32; 3],
    /// The name's 16 bytes as stored, NUL padding (and whatever an old tool
    /// left after the NUL) included, so a rewrite is exact.
    pub name_bytes: [u8; 16],
}

impl Frame {
    /// A frame header with the given name (truncated to 15 bytes).
    pub fn new(name: &str, scale: [f32; 3], translate: [f32; 3]) -> Self {
        Frame {
            scale,
            translate,
            name_bytes: fixed_name(name),
        }
    }

    /// The name up to the first NUL (bytes that are not UTF-8 replaced).
    pub fn name(&self) -> String {
        name_until_nul(&self.name_bytes)
    }
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
#[derive(Clone, Debug, PartialEq)]
pub struct Md2Model {
    pub(crate) header: Md2Header,
    pub(crate) skins: Vec<SkinName>,
    pub(crate) tex_coords: Vec<TexCoord>,
    pub(crate) triangles: Vec<Triangle>,
    pub(crate) frames: Vec<Frame>,
    /// All frames' vertices, frame-major: `vertices[frame * num_xyz + i]`.
    pub(crate) vertices: Vec<PackedVertex>,
    pub(crate) glcmds: Vec<GlCmd>,
    /// The frames grouped by name: derived from `frames`, kept so that the
    /// renames are reported once, when the model is made.
    pub(crate) animations: Vec<Animation>,
    pub(crate) warnings: Vec<Md2Warning>,
}

impl Md2Model {
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
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// How many vertices each frame has (`num_xyz`).
    pub fn vertex_count(&self) -> usize {
        self.header.num_xyz as usize
    }

    /// How many frames there are (at least 1).
    pub fn frame_count(&self) -> u32 {
        // Both constructors refuse a model too large for a 32-bit header,
        // and every frame takes at least 40 bytes of it.
        self.frames.len() as u32
    }

    /// Every frame's packed vertices, frame-major, exactly as in the file:
    /// the bytes the GPU receives unchanged.
    pub fn vertices(&self) -> &[PackedVertex] {
        &self.vertices
    }

    /// One frame's packed vertices. Panics if `frame` is out of range, like
    /// slice indexing; see [`Md2Model::frame_count`].
    pub fn frame_vertices(&self, frame: u32) -> &[PackedVertex] {
        let n = self.vertex_count();
        let frame = frame as usize;
        &self.vertices[frame * n..(frame + 1) * n]
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
    /// documented in [`animations`](crate::animations): contiguous ranges
    /// that cover every frame, with unique names.
    pub fn animations(&self) -> &[Animation] {
        &self.animations
    }

    /// The animation with this name (exactly as [`Md2Model::animations`]
    /// gives it), if there is one.
    pub fn animation(&self, name: &str) -> Option<&Animation> {
        self.animations.iter().find(|a| a.name == name)
    }

    /// The axis-aligned bounds of one frame in model units: (min, max).
    /// Panics if `frame` is out of range, like
    /// [`frame_vertices`](Md2Model::frame_vertices).
    pub fn frame_bounds(&self, frame: u32) -> ([f32; 3], [f32; 3]) {
        let f = &self.frames[frame as usize];
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for v in self.frame_vertices(frame) {
            let p = v.decode_position(f);
            for k in 0..3 {
                min[k] = min[k].min(p[k]);
                max[k] = max[k].max(p[k]);
            }
        }
        (min, max)
    }

    /// The bounds over every frame: what a camera frames to show the model
    /// whatever it does.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for frame in 0..self.frame_count() {
            let (lo, hi) = self.frame_bounds(frame);
            for k in 0..3 {
                min[k] = min[k].min(lo[k]);
                max[k] = max[k].max(hi[k]);
            }
        }
        (min, max)
    }
}

/// The animations of these frames, and a warning for each one renamed to
/// keep the names unique.
pub(crate) fn name_animations(frames: &[Frame]) -> (Vec<Animation>, Vec<Md2Warning>) {
    let (animations, renamed) = group(frames.iter().map(Frame::name));
    let warnings = renamed
        .into_iter()
        .map(|r| {
            let a = &animations[r.index];
            Md2Warning::AnimationRenamed {
                name: r.name,
                renamed: a.name.clone(),
                first: a.first,
                last: a.last,
            }
        })
        .collect();
    (animations, warnings)
}

/// A name as a NUL-padded fixed-size field, truncated so one NUL remains.
pub(crate) fn fixed_name<const N: usize>(name: &str) -> [u8; N] {
    let mut out = [0u8; N];
    let bytes = name.as_bytes();
    let n = bytes.len().min(N - 1);
    out[..n].copy_from_slice(&bytes[..n]);
    out
}

fn name_until_nul(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}
