//! The GPU half, behind the default `wgpu` feature: everything that owns
//! wgpu objects, in rooms. Per device, `device`: the cache of shader
//! modules, layouts and pipelines, and the app's materials. A model on the
//! GPU, `model`; a Quake III player's surfaces and their tree of parts,
//! `player`. Per view, `view`: the renderer, which packs the
//! immediate path's instances, prepares the crowds and records the draws.
//! `crowd`: the resident crowd, its layout, uploads, motion, compute
//! pipelines, per-view state and counts. Read-backs that never block, the
//! documented `low_level` access, and the helpers of the crate's own
//! tests.

pub(crate) mod crowd;
pub(crate) mod device;
mod error;
pub mod low_level;
pub(crate) mod model;
pub(crate) mod old_paths;
pub(crate) mod player;
pub(crate) mod readback;
// The harness `support` re-exports: only with the `testing` feature.
#[cfg(any(test, feature = "testing"))]
pub(crate) mod testing;
pub(crate) mod view;

pub use crowd::{
    CrowdHandle, Md2Crowd, MemberEdit, PlayerCrowd, PlayerCrowdError, PlayerMember, VisibleMembers,
};
pub use device::{
    DepthState, MaterialError, Md2Cache, Md2Material, Md2MaterialDescriptor, adapter_limits,
    required_downlevel_flags, required_limits,
};
pub use error::{PrepareError, PrepareReport, SetupError};
pub use model::{GpuModel, GpuModelBuffers, GpuModelBytes};
pub use player::{GpuPlayer, PlacedPlayers, PlayerInstance, PlayerPiece, PlayerSetupError};
pub use readback::Readback;
pub use view::{ColorOutput, Md2Batch, Md2Phase, Md2Renderer, Md2RendererOptions};
