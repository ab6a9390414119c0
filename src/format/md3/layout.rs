//! Where everything sits in an MD3 file: the sizes of its records, where
//! the header's fields are, and the limits files are held to. The reader
//! checks each part's extent against these sizes and the writer lays parts
//! out with them, so both read one table.

/// The header's size in bytes (`Md3Header::SIZE`).
pub(crate) const HEADER_SIZE: usize = 108;
/// A surface's header: ident, name, then ten `i32`s.
pub(crate) const SURFACE_HEADER_SIZE: u64 = 108;

/// A name field of the header, a tag, a surface or a shader (`MAX_QPATH`).
pub(crate) const NAME_SIZE: usize = 64;
/// A frame's name field.
pub(crate) const FRAME_NAME_SIZE: usize = 16;

/// A frame: bounds min and max, local origin, radius (`f32`s), name.
pub(crate) const FRAME_SIZE: u64 = 56;
/// A tag: name, origin, a 3 × 3 axis (`f32`s).
pub(crate) const TAG_SIZE: u64 = 112;
/// A shader: name, `i32` shader index.
pub(crate) const SHADER_SIZE: u64 = 68;
/// A triangle: three `i32` vertex indices.
pub(crate) const TRIANGLE_SIZE: u64 = 12;
/// A texture coordinate: `f32 s, t`.
pub(crate) const ST_SIZE: u64 = 8;
/// A vertex of one frame: `i16 x, y, z` and the packed normal.
pub(crate) const XYZ_NORMAL_SIZE: u64 = 8;

/// Quake III's limits (`qfiles.h`): a file past one is refused, naming it.
pub(crate) const MAX_FRAMES: i64 = 1024;
pub(crate) const MAX_TAGS: i64 = 16;
pub(crate) const MAX_SURFACES: i64 = 32;
pub(crate) const MAX_SHADERS: i64 = 256;
pub(crate) const MAX_VERTS: i64 = 4096;
pub(crate) const MAX_TRIANGLES: i64 = 8192;

/// Quake III's renderer draws a surface only below these (`tr_local.h`'s
/// `SHADER_MAX_VERTEXES` and `SHADER_MAX_INDEXES`, checked by
/// `R_LoadMD3`): lower than the file format's own limits, so a surface
/// past them loads here with a warning.
pub(crate) const RENDERER_MAX_VERTS: i64 = 1000;
pub(crate) const RENDERER_MAX_INDEXES: i64 = 6000;
