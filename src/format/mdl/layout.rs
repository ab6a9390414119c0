//! Where everything sits in an MDL file: the sizes of its records and the
//! limits files are held to. The reader checks the bytes each record needs
//! against these sizes, and the writer writes the same records.

/// The header's size in bytes (`MdlHeader::SIZE`).
pub(crate) const HEADER_SIZE: usize = 84;

/// The limits (QuakeSpasm's, `gl_model.h`): the strictest that load every
/// real model found. The original Quake's are lower (1,024 vertices, 2,048
/// triangles, 256 poses), and Block Quake's player has 1,416 vertices.
pub(crate) const MAX_VERTS: i64 = 2000;
pub(crate) const MAX_TRIANGLES: i64 = 4096;
/// Poses over all frames (`MAXALIASFRAMES`).
pub(crate) const MAX_POSES: i64 = 1024;
pub(crate) const MAX_SKINS: i64 = 32;
/// The original Quake refuses a taller skin; QuakeSpasm warns and loads it.
pub(crate) const ORIGINAL_MAX_SKIN_HEIGHT: u32 = 480;

/// A texture coordinate: `i32 onseam, s, t`.
pub(crate) const TEX_COORD_SIZE: u64 = 12;
/// A triangle: `i32 facesfront, vertindex[3]`.
pub(crate) const TRIANGLE_SIZE: u64 = 16;
/// A pose before its vertices: bbox min and max (4-byte vertices) and a
/// 16-byte name.
pub(crate) const POSE_HEADER_SIZE: u64 = 24;
/// A group's header after its count: bbox min and max.
pub(crate) const GROUP_BOX_SIZE: u64 = 8;
