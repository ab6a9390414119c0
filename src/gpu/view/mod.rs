//! One view: a renderer's camera, the immediate path's batches and the
//! crowds it draws, prepared (uploads, compute passes) and then recorded
//! into the app's render pass, phase by phase.

mod batch;
pub(crate) mod immediate;
mod look;
mod options;
mod packing;
mod phase;
mod renderer;
pub(crate) mod view_buffer;
mod visible;

pub use batch::Md2Batch;
pub use options::{ColorOutput, Md2RendererOptions};
pub use phase::Md2Phase;
pub use renderer::Md2Renderer;
