//! The file: reading, validating and writing MD2 models, the normal table,
//! and naming animations from frame names. CPU only: nothing here knows
//! about wgpu.

pub mod animations;
mod anorms;
mod error;
mod glcmds;
mod layout;
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
