//! Helpers shared by the tests, examples and benchmarks: a headless device,
//! blocking read-backs, the GPU pose capture, a seeded random number
//! generator, the community models, the fuzz targets' checks. Not part of
//! the supported API: nothing here is covered by semver.

mod fuzz;
mod limits;
mod md3;
mod models;
mod quake_again;
#[cfg(feature = "wgpu")]
mod records;
mod rng;

pub use fuzz::{
    check_from_bytes, check_levels_file, check_md3_from_bytes, check_mdl_from_bytes,
    check_model_use,
};
pub use limits::{limits_model, limits_model_with};
pub use md3::{
    QUARTER_TURN, STRAIGHT, TINY_PLAYER_DIR, load_player, tiny_md3, tiny_md3_parts, tiny_part,
    tiny_player, tiny_player_files,
};
pub use models::{files_in, md2_files_in, player_clips, shared_mdl_dir, shared_models_dir};
pub use quake_again::QUAKE_AGAIN_WGSL;
#[cfg(feature = "wgpu")]
pub use records::pack_instance;
pub use rng::Rng;

#[cfg(feature = "wgpu")]
pub use crate::gpu::testing::{
    CapturedMotion, CapturedPose, Headless, MotionProbe, PoseCapture, attachment, block_on,
    check_material, cleared, draw_into, read_buffer, read_rgba8, read_texture, read_texture_later,
    scratch_depth_stencil, wait,
};
