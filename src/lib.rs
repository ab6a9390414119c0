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
//! - the CPU half, free of wgpu: [`Md2Model`] reads, validates and writes MD2
//!   files; [`animations`] groups frames into named animations;
//! - the GPU half: the renderer that draws models in your own render pass.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod animations;
mod anorms;
mod error;
mod glcmds;
mod model;
mod parse;
mod write;

pub use animations::Animation;
pub use anorms::{ANORMS, FALLBACK_NORMAL_INDEX, nearest_normal_index, normal_from_index};
pub use error::{Md2Error, Md2Warning, Section};
pub use model::{
    Frame, GlCmd, GlCmdKind, GlVertex, Md2Header, Md2Model, PackedVertex, SkinName, TexCoord,
    Triangle,
};
pub use write::Md2Parts;
