//! Quake I's MDL: the shared Block Quake models and a model built in code
//! with what they lack (seam vertices, triangles facing back, uneven
//! groups, a skin group, fullbright texels), read, checked against an
//! independent decoder, written back byte for byte, timed and coloured.
//! The GPU half is `tests/gpu/mdl.rs`, the hostile half
//! `tests/mdl_hostile.rs`.

use md2_wgpu_tests as common;

mod built;
mod convert;
mod independent;
mod shared;
