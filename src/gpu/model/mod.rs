//! A model on the GPU: its [`ModelData`](crate::ModelData) and skins
//! uploaded once, and what a draw of it binds.

mod draw;
mod gpu_model;
mod skins;

pub(crate) use draw::{DrawModel, Published};
pub use gpu_model::{GpuModel, GpuModelBuffers, GpuModelBytes};
