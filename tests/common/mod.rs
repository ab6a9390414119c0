//! The one test harness of md2-wgpu's integration suite (this crate's test
//! binaries, and the viewer's UI tests): the shared models folder
//! (`$MD2_SHARED_MODELS`, else `../shared/md2`), a headless device on
//! whatever adapter exists (the crate's own `support::Headless`, skipping
//! loudly without one unless MD2_REQUIRE_GPU=1), offscreen rendering with
//! the crate's one read-back, models built in code, picture comparisons,
//! and the bounds a GPU result is held to (derived from WGSL's accuracy
//! rules, `bounds`). The GPU part needs the `gpu` feature (on by default):
//! without it the suite tests md2-wgpu built without wgpu.

pub mod api;
pub mod bounds;
#[cfg(feature = "cases")]
pub mod cases;
mod glcmds;
#[cfg(feature = "gpu")]
mod gpu;
mod hostile;
mod images;
mod md3;
mod mdl;
mod models;
mod shared;
mod surface;

pub use glcmds::*;
#[cfg(feature = "gpu")]
pub use gpu::*;
pub use hostile::*;
pub use images::*;
pub use md3::*;
pub use mdl::*;
pub use models::*;
pub use shared::*;
pub use surface::*;
