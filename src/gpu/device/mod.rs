//! What a device shares: the shader modules, bind-group and vertex layouts,
//! the sampler and normal table, the pipelines built once and keyed by the
//! pass they draw into, the app's materials, and what the crate needs of
//! the device.

pub(crate) mod buffers;
pub(crate) mod cache;
pub(crate) mod crowd_pipelines;
mod depth;
pub(crate) mod layouts;
mod limits;
pub(crate) mod material;
pub(crate) mod pipeline;
pub(crate) mod submit;

pub use cache::Md2Cache;
pub use depth::DepthState;
pub use limits::{adapter_limits, required_downlevel_flags, required_limits};
pub use material::{MaterialError, Md2Material, Md2MaterialDescriptor};
