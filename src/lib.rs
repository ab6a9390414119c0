//! Quake II MD2 models on [wgpu](https://wgpu.rs), the way a modern GPU wants
//! them.
//!
//! Every frame of a model is uploaded once, still in the file's packed 4-byte
//! form; a WGSL vertex shader unpacks it, looks up the normal table and
//! interpolates between keyframes. One model or fifty thousand independently
//! animated ones cost the CPU a few dozen bytes each per frame.
//!
//! The crate has two halves:
//!
//! - **The CPU half**, free of wgpu, usable and tested on any machine:
//!   [`Md2Model`] reads, validates and writes MD2 files (every failure a typed
//!   [`Md2Error`], every quirk a [`Md2Warning`]); [`RenderMesh`] welds its
//!   corners and orders its triangles for the GPU's vertex cache
//!   ([`VertexCacheStats`] says what that buys); [`LevelsOfDetail`] adds
//!   coarser triangle lists over the same corners, each with its error
//!   measured over every frame; [`animations`] groups frames
//!   into named animations; [`playback`] turns time into keyframe pairs
//!   ([`Clip`], [`Crossfade`], the [`Quake2Player`] preset); [`reference`](mod@reference)
//!   decodes and interpolates on the CPU, the yardstick every GPU test is
//!   held to; [`skins`] finds and decodes a model's skin images; [`demo`]
//!   builds an animated model the crate may ship.
//! - **The GPU half**: [`Md2Renderer`] draws [`GpuModel`]s, each uploaded
//!   once, as instanced batches of [`Md2Instance`]s inside your own render
//!   pass, in the idiom of glyphon and egui-wgpu: `prepare` uploads, `render`
//!   only records.
//!
//! Quake II's axes are X forward, Y left, Z up; [`QUAKE_TO_Y_UP`] maps them
//! into the Y-up world the renderer draws in. MD2 triangles run clockwise
//! seen from outside.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod anim;
pub mod demo;
mod format;
pub mod gltf;
mod gpu;
mod mesh;
pub mod skins;

// The versions of the crates the public API speaks in.
pub use glam;
pub use image;
pub use wgpu;

pub use anim::{clock, playback, reference};
pub use format::animations;

pub use anim::{
    Clip, ClipClock, Crossfade, Fade, FrameLerp, MAX_FADE_SECONDS, Playback, Playing, Pose,
    QUAKE2_FPS, Quake2Player, ReferenceError, TICKS_PER_SECOND,
};
pub use format::{
    ANORMS, Animation, FALLBACK_NORMAL_INDEX, Frame, GlCmd, GlCmdKind, GlVertex, Md2Error,
    Md2Header, Md2Model, Md2Parts, Md2Warning, PackedVertex, Section, SkinName, TexCoord, Triangle,
    nearest_normal_index, normal_from_index,
};
pub use gpu::{
    Camera, ColorOutput, CrowdError, CrowdHandle, CrowdMember, DepthState, Effects, GpuModel,
    GpuModelBytes, GpuModelOptions, InstanceError, InstancePolicy, Light, MAX_GPU_FRAMES,
    MAX_GPU_SKINS, MAX_LEVELS, MD2_POSE_WGSL, MIN_LIGHT, MaterialError, Md2Batch, Md2Cache,
    Md2Crowd, Md2Instance, Md2Material, Md2MaterialDescriptor, Md2Phase, Md2Previous, Md2Renderer,
    Md2RendererOptions, PlanarShadow, PrepareError, PrepareReport, QUAKE_TO_Y_UP, SHELL_ALPHA,
    SHELL_OFFSET, SetupError, ShadowStencil, TranslucentOrder, VisibleMembers, adapter_limits,
    pose_wgsl, quake_flags, quake_to_y_up, required_downlevel_flags, required_limits,
    stand_on_ground,
};
pub use mesh::{
    Corner, DetailLevel, LevelOptions, LevelsOfDetail, MeshError, RenderMesh, TriangleOrder,
    VertexCacheStats,
};

#[doc(hidden)]
pub mod support;

// The README's examples run as doc tests, so the quick start cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
