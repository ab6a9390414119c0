//! The files: reading, validating and writing MD2 models (and Quake I's
//! MDL, [`mdl`]; Quake III's MD3, [`md3`], is read and written but not yet
//! converted), and their
//! conversion into the model every other room reads
//! ([`KeyframeModel`](crate::model::KeyframeModel)). CPU only: nothing here
//! knows about wgpu.

mod error;
mod glcmds;
mod keyframes;
mod layout;
pub mod md3;
pub mod mdl;
mod model;
mod parse;
mod quake_model;
mod write;

pub use error::{Md2Error, Md2Warning, Section};
pub use model::{GlCmd, GlCmdKind, GlVertex, Md2Header, Md2Model, SkinName, TexCoord, Triangle};
pub use quake_model::{QuakeModel, QuakeModelError};
pub use write::Md2Parts;
