//! The GPU half: models uploaded once, instances drawn in the caller's
//! render pass, the shader that decodes and interpolates the frames.

mod camera;
mod capture;
mod error;
mod instance;
mod model;
mod renderer;
mod skin_texture;

pub use camera::{Camera, Light, QUAKE_TO_Y_UP, quake_to_y_up};
pub use capture::{CapturedPose, PoseCapture};
pub use error::RenderError;
pub use instance::Md2Instance;
pub use model::{GpuModel, GpuModelBytes, MAX_GPU_FRAMES};
pub use renderer::{Md2Renderer, Md2RendererOptions, required_downlevel_flags, required_limits};
