//! The GPU data contract, without wgpu: the bytes the CPU half and the
//! shaders agree on, for the crate's own renderer and for any other host
//! (a Bevy plugin, a browser build, a converter, an app's own vertex stage).
//!
//! # What a host uploads and binds
//!
//! Once per model, [`ModelData`] (built from a
//! [`KeyframeModel`](crate::model::KeyframeModel)):
//!
//! - the pose's bind group ([`PoseBindings`]; [`PoseBindings::CRATE`] is
//!   group 1, bindings 0 to 2): the model's counts and flags (a 16-byte
//!   uniform), its frames' vertices (the file's 4 bytes per vertex per
//!   frame, verbatim; 8 for Quake III's, flagged [`MODEL_WIDE_WORD`]), and
//!   the normal table of its word ([`normal_table`]:
//!   [`ANORMS`](crate::model::ANORMS) padded to 256 entries, or
//!   [`lat_long_normal_table`] for 8-byte words; the same for every model of
//!   one word) followed by its frames' scale and translate, both storage;
//! - a vertex buffer of welded corners ([`Corner`](crate::model::Corner): the
//!   vertex's xyz index, `u32` at location 0, and its uv, `vec2<f32>` at
//!   location 1, 12 bytes a corner) and an index buffer (and a mirrored one,
//!   for instances whose transform mirrors) holding every level of detail;
//! - the skins as the layers of one texture array ([`SkinArray`]).
//!
//! Per instance, per frame, what `md2_pose_vertex` takes: a pose as
//! [`PoseWords`] (four frames, three blend factors) and the instance's
//! transform as three rows ([`transform_rows`]), or the crate's whole
//! 80-byte [`InstanceRecord`] (packed by [`InstanceRecord::pack`]), which
//! the crate's vertex stage reads as instance-rate vertex attributes.
//!
//! The WGSL is text: [`MD2_POSE_WGSL`] (the pose alone, for an app's own
//! vertex or compute stage; [`PoseBindings::wgsl`] moves its bindings) and
//! [`MD2_RENDERER_WGSL`] (the crate's vertex stage and built-in shading,
//! which a [material](crate::gpu::Md2Material)'s code follows). The files are in
//! the crate's `shaders/` folder, each declaration once; a test parses them
//! with naga and holds every `#[repr(C)]` record here equal to its WGSL
//! struct, field by field, and another walks every entry point for what
//! real GPUs punish (`shaders/README.md`).
//!
//! What the types leave implicit (the skin sampler, the winding and when an
//! instance counts as mirrored, the byte layout of saved levels of detail)
//! is stated for another host in
//! [docs/contract.md](https://github.com/md2-wgpu/md2-wgpu/blob/main/docs/contract.md).
//!
//! # From bytes to pixels
//!
//! For vertex `i` of corner `c` in frames `a` and `b`:
//! `word = md2_verts[a * num_xyz + i]`, its low three bytes the quantised
//! position and its high byte the normal index; the position is
//! `xyz * scale[a] + translate[a]`, the normal `ANORMS[index]` (an index
//! past the table reads [`FALLBACK_NORMAL_INDEX`](crate::model::FALLBACK_NORMAL_INDEX));
//! the same for `b`; both lerped by `t` (and a second pair by the
//! crossfade's weight), the normal renormalised; then placed by the rows.
//! [`reference`](crate::anim::reference) is the same arithmetic on the CPU, and
//! the GPU tests hold the two within bounds derived from WGSL's accuracy
//! rules (an implementation may fuse `a * b + c` or not: equal bits are
//! promised only where the arithmetic is exact).

// Without the `wgpu` feature, what the contract holds for the crate's own GPU half (its buckets,
// crowd records, entry points, packing) have
// no user.
#![cfg_attr(not(feature = "wgpu"), allow(dead_code, unused_imports))]
mod bits;
mod buckets;
pub(crate) mod clock;
pub(crate) mod crowd;
mod level;
mod model_data;
mod normals;
mod pack;
mod records;
mod skin_array;
mod wgsl;
mod words;

#[cfg(test)]
pub(crate) mod mirrors;

pub use bits::{
    EFFECT_FULLBRIGHT, EFFECT_MINLIGHT, EFFECT_NO_SHADOW, EFFECT_SHELL_RGB, MEMBER_FADING,
    MEMBER_MIRRORED, MEMBER_SHELL, MEMBER_TRANSLUCENT, MODEL_FULLBRIGHT_MASKS, MODEL_WIDE_WORD,
    phase,
};
pub use buckets::MAX_LEVELS;
pub use clock::TICKS_PER_SECOND;
pub use model_data::{GpuModelOptions, IndexFormat, ModelData, ModelDataError};
pub use normals::{NORMAL_TABLE_LEN, lat_long_normal_table, normal_table, normal_table_bytes};
pub use pack::{PoseWords, transform_rows};
pub use records::{ExtraRecord, InstanceRecord, ModelInfo, ViewUniform};
pub use skin_array::{SkinArray, default_skin};
pub use wgsl::{
    CROWD_READ_WGSL, MAX_GPU_FRAMES, MAX_GPU_SKINS, MD2_POSE_WGSL, MD2_RENDERER_WGSL, PoseBindings,
    pose_wgsl,
};
pub use words::unorm8;

pub(crate) use bits::{
    CLOCK_HOLD, CLOCK_LOOPING, CROWD_CULL, FRAME_EXTRA, FRAME_FIRST, FRAME_SORT, MOTION_FLAG_BITS,
    MOTION_MOVED, MOTION_NEW, MOTION_POSE, VIEW_SHADOWS,
};
pub(crate) use buckets::{
    BUCKETS, Buckets, OPAQUE, OPAQUE_MIRRORED, SHELL, TRANSLUCENT, level_of_opaque, opaque_at,
};
pub(crate) use level::{LevelView, ModelLevels, choose};
pub(crate) use model_data::{model_levels, narrow, reversed};
pub(crate) use normals::NORMALS;
pub(crate) use pack::{mirrors, rows, tint_words, unmoved_extra};
#[cfg(any(test, feature = "testing"))]
pub(crate) use wgsl::CAPTURE_WGSL;
pub(crate) use wgsl::{BUILTIN_PHASE, CROWD_WGSL, CULL_IN_FRAGMENT, entry};
