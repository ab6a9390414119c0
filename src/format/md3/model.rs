//! The in-memory MD3 model: every part of the file, kept as stored (names
//! as their whole fields, offsets as the file gives them), so that a
//! loaded model writes back byte for byte.

use super::error::Md3Warning;
use super::layout::{FRAME_NAME_SIZE, HEADER_SIZE, NAME_SIZE, SURFACE_HEADER_SIZE};
use super::vertex::Md3Vertex;
use crate::model::{fixed_name, name_until_nul};

/// The 108-byte MD3 header, field by field, as the file gives it (for a
/// model built in code: as [`Md3Model::to_bytes`] will write it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Md3Header {
    /// `IDP3`.
    pub ident: [u8; 4],
    /// 15.
    pub version: i32,
    /// The model's name: the 64-byte field as stored (the game names a
    /// model by its path and never reads this).
    pub name_bytes: [u8; NAME_SIZE],
    /// Flags: kept as read; the game reads none.
    pub flags: i32,
    /// Frames, 1 to 1,024.
    pub num_frames: i32,
    /// Tags in each frame, 0 to 16.
    pub num_tags: i32,
    /// Surfaces, 0 to 32.
    pub num_surfaces: i32,
    /// Kept as read: MD3 files store no skins (each surface names its
    /// shaders, and `.skin` files map surfaces to textures); never
    /// negative.
    pub num_skins: i32,
    /// Where the frames start.
    pub ofs_frames: i32,
    /// Where the tags start.
    pub ofs_tags: i32,
    /// Where the first surface starts.
    pub ofs_surfaces: i32,
    /// Where the model ends (`ofsEnd`, the "end of file" of the format's
    /// descriptions): the game loads this many bytes.
    pub ofs_end: i32,
}

impl Md3Header {
    /// The header's size in bytes.
    pub const SIZE: usize = HEADER_SIZE;
    /// The ident every MD3 file (and each of its surfaces) starts with.
    pub const IDENT: [u8; 4] = *b"IDP3";
    /// The version this crate reads and writes (`MD3_VERSION`).
    pub const VERSION: i32 = 15;

    /// The model's name, up to the first NUL (bytes that are not UTF-8
    /// replaced).
    pub fn name(&self) -> String {
        name_until_nul(&self.name_bytes)
    }
}

/// A frame's header: its bounds and a name. Its vertices are each
/// surface's ([`Md3Surface::frame_vertices`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Md3Frame {
    /// The least corner of the frame's bounds.
    pub min: [f32; 3],
    /// The greatest corner.
    pub max: [f32; 3],
    /// The frame's local origin (0 in files q3data wrote).
    pub local_origin: [f32; 3],
    /// The radius of a sphere around the local origin that holds the
    /// frame, for the game's culling.
    pub radius: f32,
    /// The name's 16 bytes as stored, NUL padding included.
    pub name_bytes: [u8; FRAME_NAME_SIZE],
}

impl Md3Frame {
    /// The name up to the first NUL (bytes that are not UTF-8 replaced).
    pub fn name(&self) -> String {
        name_until_nul(&self.name_bytes)
    }
}

/// A tag in one frame: a named place and orientation that joins another
/// model to this one (`tag_torso` on a player's legs holds the torso,
/// `tag_head` and `tag_weapon` on the torso the head and the weapon).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Md3Tag {
    /// The name's 64 bytes as stored, NUL padding included.
    pub name_bytes: [u8; NAME_SIZE],
    /// Where the joined model's origin goes.
    pub origin: [f32; 3],
    /// The joined model's axes (forward, left, up) in this model's space.
    pub axis: [[f32; 3]; 3],
}

impl Md3Tag {
    /// A tag with the given name (truncated to 63 bytes).
    pub fn new(name: &str, origin: [f32; 3], axis: [[f32; 3]; 3]) -> Md3Tag {
        Md3Tag {
            name_bytes: fixed_name(name),
            origin,
            axis,
        }
    }

    /// The name up to the first NUL (bytes that are not UTF-8 replaced).
    pub fn name(&self) -> String {
        name_until_nul(&self.name_bytes)
    }

    /// A point of the joined model in this model's space: the origin plus
    /// each axis scaled by the point's coordinate on it, as Quake III
    /// places a model on a tag (`CG_PositionEntityOnTag`).
    pub fn place(&self, point: [f32; 3]) -> [f32; 3] {
        std::array::from_fn(|k| {
            self.origin[k]
                + point[0] * self.axis[0][k]
                + point[1] * self.axis[1][k]
                + point[2] * self.axis[2][k]
        })
    }
}

/// A shader a surface names: a texture path or the name of a shader in
/// the game's scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Md3Shader {
    /// The name's 64 bytes as stored, NUL padding included.
    pub name_bytes: [u8; NAME_SIZE],
    /// Kept as read: the game overwrites it with its own shader's index
    /// when it loads the model.
    pub shader_index: i32,
}

impl Md3Shader {
    /// A shader with the given name (truncated to 63 bytes) and index 0.
    pub fn new(name: &str) -> Md3Shader {
        Md3Shader {
            name_bytes: fixed_name(name),
            shader_index: 0,
        }
    }

    /// The name up to the first NUL (bytes that are not UTF-8 replaced).
    pub fn name(&self) -> String {
        name_until_nul(&self.name_bytes)
    }
}

/// A surface's 108-byte header, field by field, as the file gives it.
/// Its offsets count from the surface's own start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Md3SurfaceHeader {
    /// `IDP3`.
    pub ident: [u8; 4],
    /// The name's 64 bytes as stored, NUL padding included.
    pub name_bytes: [u8; NAME_SIZE],
    /// Flags: kept as read; the game reads none.
    pub flags: i32,
    /// Frames: the header's `num_frames`.
    pub num_frames: i32,
    /// Shaders, 0 to 256.
    pub num_shaders: i32,
    /// Vertices in each frame, 0 to 4,096.
    pub num_verts: i32,
    /// Triangles, 0 to 8,192.
    pub num_triangles: i32,
    /// Where the triangles start.
    pub ofs_triangles: i32,
    /// Where the shaders start.
    pub ofs_shaders: i32,
    /// Where the texture coordinates start.
    pub ofs_st: i32,
    /// Where the vertices start.
    pub ofs_xyz_normals: i32,
    /// The surface's size: the next surface starts here.
    pub ofs_end: i32,
}

impl Md3SurfaceHeader {
    /// The header's size in bytes.
    pub const SIZE: usize = SURFACE_HEADER_SIZE as usize;
}

/// A surface: a mesh with its own vertices, texture coordinates and
/// shaders, animated through the model's frames.
#[derive(Clone, Debug, PartialEq)]
pub struct Md3Surface {
    pub(crate) header: Md3SurfaceHeader,
    pub(crate) shaders: Vec<Md3Shader>,
    pub(crate) triangles: Vec<[i32; 3]>,
    pub(crate) tex_coords: Vec<[f32; 2]>,
    pub(crate) vertices: Vec<Md3Vertex>,
}

impl Md3Surface {
    /// The header, as read (or as it will be written, for a built model).
    pub fn header(&self) -> &Md3SurfaceHeader {
        &self.header
    }

    /// The name up to the first NUL (bytes that are not UTF-8 replaced).
    pub fn name(&self) -> String {
        name_until_nul(&self.header.name_bytes)
    }

    /// The name a `.skin` file's lines are matched against, as Quake III
    /// makes it when it loads the model (`R_LoadMD3`): lowercased, and a
    /// last `_` and character stripped where the name is longer than two
    /// (q3data named a surface's levels of detail `name_1`, `name_2`).
    pub fn name_for_skins(&self) -> String {
        let mut name = self.name().to_ascii_lowercase();
        let len = name.len();
        // A `_` second to last leaves one byte after it: an ASCII
        // character, so the cut is on a character boundary.
        if len > 2 && name.as_bytes()[len - 2] == b'_' {
            name.truncate(len - 2);
        }
        name
    }

    /// The shaders, as stored.
    pub fn shaders(&self) -> &[Md3Shader] {
        &self.shaders
    }

    /// What the surface wears where no skin names a texture for it (a
    /// lone model, a weapon): its first shader's name, or its own name
    /// where it has none. The key the glTF export and
    /// [`GpuPlayer`](crate::gpu::GpuPlayer) find its picture by.
    pub fn default_texture(&self) -> String {
        self.shaders
            .first()
            .map(|s| s.name())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| self.name())
    }

    /// The triangles: three vertex indices each, every one below
    /// [`Md3Surface::vertex_count`].
    pub fn triangles(&self) -> &[[i32; 3]] {
        &self.triangles
    }

    /// One texture coordinate (s, t) per vertex, 0 to 1 across the
    /// texture.
    pub fn tex_coords(&self) -> &[[f32; 2]] {
        &self.tex_coords
    }

    /// Vertices in each frame.
    pub fn vertex_count(&self) -> usize {
        self.tex_coords.len()
    }

    /// Every frame's vertices, frame-major: frame `f`'s vertex `v` is
    /// `vertices()[f * vertex_count() + v]`.
    pub fn vertices(&self) -> &[Md3Vertex] {
        &self.vertices
    }

    /// Frame `frame`'s vertices (empty past the last frame).
    pub fn frame_vertices(&self, frame: usize) -> &[Md3Vertex] {
        let n = self.vertex_count();
        let start = frame.saturating_mul(n);
        self.vertices
            .get(start..start.saturating_add(n))
            .unwrap_or(&[])
    }
}

/// A Quake III MD3 model: every part of the file.
///
/// Load one with [`Md3Model::from_bytes`] or [`Md3Model::open`], build one
/// with [`Md3Model::from_parts`], write one with [`Md3Model::to_bytes`]
/// (byte for byte what was read: parts in the file's order and places,
/// bytes between and after them included).
#[derive(Clone, Debug, PartialEq)]
pub struct Md3Model {
    pub(crate) header: Md3Header,
    /// The file's length.
    pub(crate) length: usize,
    pub(crate) frames: Vec<Md3Frame>,
    pub(crate) tags: Vec<Md3Tag>,
    /// Bytes no part covers, by offset, kept so a rewrite is exact.
    pub(crate) unread: Vec<(usize, Vec<u8>)>,
    pub(crate) surfaces: Vec<Md3Surface>,
    pub(crate) warnings: Vec<Md3Warning>,
}

impl Md3Model {
    /// The header, as read (or as it will be written, for a built model).
    pub fn header(&self) -> &Md3Header {
        &self.header
    }

    /// The frames' headers, in order.
    pub fn frames(&self) -> &[Md3Frame] {
        &self.frames
    }

    /// Every frame's tags, frame-major: frame `f`'s tag `t` is
    /// `tags()[f * num_tags + t]`.
    pub fn tags(&self) -> &[Md3Tag] {
        &self.tags
    }

    /// Frame `frame`'s tags (empty past the last frame).
    pub fn frame_tags(&self, frame: usize) -> &[Md3Tag] {
        let n = self.tags.len() / self.frames.len().max(1);
        let start = frame.saturating_mul(n);
        self.tags.get(start..start.saturating_add(n)).unwrap_or(&[])
    }

    /// The tag named `name` in frame `frame`, as the game finds it: the
    /// first of that frame's tags with exactly that name.
    pub fn tag(&self, frame: usize, name: &str) -> Option<&Md3Tag> {
        self.frame_tags(frame)
            .iter()
            .find(|t| name_until_nul(&t.name_bytes) == name)
    }

    /// The surfaces, in order.
    pub fn surfaces(&self) -> &[Md3Surface] {
        &self.surfaces
    }

    /// The quirks the file loaded with.
    pub fn warnings(&self) -> &[Md3Warning] {
        &self.warnings
    }
}
