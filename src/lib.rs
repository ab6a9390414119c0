#![doc = include_str!("../docs/crate.md")]
#![cfg_attr(feature = "wgpu", doc = include_str!("../docs/crate-gpu.md"))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod anim;
#[cfg(any(test, feature = "checks"))]
// Its `record_layout!` is in scope by name in the rooms declared after it.
#[macro_use]
pub mod checks;
pub mod contract;
pub mod demo;
mod format;
pub mod gltf;
#[cfg(feature = "wgpu")]
mod gpu;
mod mesh;
pub mod model;
mod scene;
pub mod skins;

// The versions of the crates the public API speaks in.
pub use glam;
pub use image;
#[cfg(feature = "wgpu")]
pub use wgpu;

pub use anim::{clock, playback, reference};
pub use format::mdl;
pub use model::animations;

pub use anim::{
    Clip, ClipClock, Crossfade, Fade, FrameLerp, MAX_FADE_SECONDS, Playback, Playing, Pose,
    QUAKE2_FPS, Quake2Player, ReferenceError, TICKS_PER_SECOND,
};
pub use contract::{
    ExtraRecord, GpuModelOptions, InstanceRecord, MAX_GPU_FRAMES, MAX_GPU_SKINS, MAX_LEVELS,
    MD2_POSE_WGSL, MD2_RENDERER_WGSL, ModelData, ModelDataError, PoseWords, pose_wgsl,
};
pub use format::{
    GlCmd, GlCmdKind, GlVertex, Md2Error, Md2Header, Md2Model, Md2Parts, Md2Warning, QuakeModel,
    QuakeModelError, Section, SkinName, TexCoord, Triangle,
};
pub use mesh::{
    Level, LevelOptions, Levels, LevelsFileError, MeshError, RenderMesh, TriangleOrder,
    VertexCacheStats,
};
pub use model::{
    ANORMS, Animation, Corner, FALLBACK_NORMAL_INDEX, Frame, PackedVertex, nearest_normal_index,
    normal_from_index,
};
pub use scene::fields;
pub use scene::{
    Camera, CrowdError, CrowdMember, Effects, InstanceError, InstancePolicy, Light, MIN_LIGHT,
    Md2Instance, Md2Previous, PlanarShadow, QUAKE_TO_Y_UP, SHELL_ALPHA, SHELL_OFFSET,
    ShadowStencil, TranslucentOrder, quake_flags, quake_to_y_up, stand_on_ground,
};

#[cfg(feature = "wgpu")]
pub use gpu::low_level;
#[cfg(feature = "wgpu")]
pub use gpu::{
    ColorOutput, CrowdHandle, DepthState, GpuModel, GpuModelBuffers, GpuModelBytes, MaterialError,
    Md2Batch, Md2Cache, Md2Crowd, Md2Material, Md2MaterialDescriptor, Md2Phase, Md2Renderer,
    Md2RendererOptions, PrepareError, PrepareReport, Readback, SetupError, VisibleMembers,
    adapter_limits, required_downlevel_flags, required_limits,
};

#[cfg(any(test, feature = "testing"))]
/// Helpers for the crate's own tests, examples, benchmarks and fuzz
/// targets (a headless device, blocking read-backs, the GPU pose capture,
/// a seeded random number generator, the community models' folder, the
/// fuzz targets' bodies): only with the `testing` feature, and hidden
/// because none of it is API, and none of it is covered by semver.
#[doc(hidden)]
pub mod support;

// The README's examples run as doc tests, so the quick start cannot rot.
#[cfg(all(doctest, feature = "wgpu"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
