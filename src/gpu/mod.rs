//! The GPU half: models uploaded once, views that draw their instances and
//! resident crowds in the caller's render pass, the shader contract that
//! ties the CPU's records to the WGSL.

mod batch;
mod cache;
mod camera;
mod capture;
mod crowd;
mod detail;
mod device;
mod effects;
mod error;
mod headless;
mod instance;
mod material;
mod model;
mod options;
mod pipeline;
mod renderer;
pub(crate) mod shader;
mod skin_texture;
mod visible;

pub use batch::Md2Batch;
pub use cache::Md2Cache;
pub use camera::{Camera, Light, QUAKE_TO_Y_UP, quake_to_y_up, stand_on_ground};
pub use capture::{CapturedMotion, CapturedPose, PoseCapture};
pub use crowd::{CrowdHandle, CrowdMember, Md2Crowd};
pub use device::{adapter_limits, required_downlevel_flags, required_limits};
pub use effects::{
    Effects, MIN_LIGHT, PlanarShadow, SHELL_ALPHA, SHELL_OFFSET, ShadowStencil, quake_flags,
};
pub use error::{CrowdError, InstanceError, PrepareError, PrepareReport, SetupError};
pub use headless::{Headless, block_on, read_buffer, read_rgba8, read_texture};
pub use instance::{Md2Instance, Md2Previous};
pub use material::{MaterialError, Md2Material, Md2MaterialDescriptor};
pub use model::{GpuModel, GpuModelBytes, GpuModelOptions};
pub use options::{ColorOutput, DepthState, InstancePolicy, Md2RendererOptions, TranslucentOrder};
pub use renderer::{Md2Phase, Md2Renderer};
pub use shader::{MAX_GPU_FRAMES, MAX_GPU_SKINS, MAX_LEVELS, MD2_POSE_WGSL, pose_wgsl};
pub use visible::VisibleMembers;

pub(crate) use instance::pack_strict;
