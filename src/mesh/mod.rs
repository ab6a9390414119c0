//! The mesh the GPU draws: the file's (xyz, st) pairs welded into one list
//! of corners, and the triangles over them. CPU only: nothing here knows
//! about wgpu.

mod weld;

pub(crate) use weld::{Corner, weld};
