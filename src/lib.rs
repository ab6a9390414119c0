#![doc = include_str!("../docs/crate.md")]
#![cfg_attr(feature = "wgpu", doc = include_str!("../docs/crate-gpu.md"))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// First, so that its `moved_types!` and `moved_consts!` are in scope by
// name in the GPU half's deprecated paths too.
#[macro_use]
mod old_paths;
pub mod anim;
#[cfg(any(test, feature = "checks"))]
// Its `record_layout!` is in scope by name in the rooms declared after it.
#[macro_use]
pub mod checks;
pub mod contract;
pub mod crowd;
pub mod demo;
pub mod format;
pub mod gltf;
#[cfg(feature = "wgpu")]
pub mod gpu;
pub mod mesh;
pub mod model;
pub mod scene;
pub mod skins;

// The versions of the crates the public API speaks in.
pub use glam;
pub use image;
#[cfg(feature = "wgpu")]
pub use wgpu;

// The front door: what the README's first programs name. Everything else
// is reached through its room, whose path is its folder under `src/`.
pub use anim::{Clip, Quake2Player};
pub use contract::ModelData;
pub use format::{Md2Model, QuakeModel};
#[cfg(feature = "wgpu")]
pub use gpu::{DepthState, GpuModel, Md2Crowd, Md2Renderer, Md2RendererOptions};
pub use scene::{Camera, CrowdMember, Light, Md2Instance};

// 0.1.0's root paths, deprecated, for one release (see `old_paths.rs`).
#[doc(hidden)]
#[allow(deprecated)]
pub use old_paths::*;

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
