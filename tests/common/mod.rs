//! The one test harness: the shared models folder (`$MD2_SHARED_MODELS`,
//! else `../shared/md2`), a headless device on whatever adapter exists (the
//! crate's own `support::Headless`, skipping loudly without one unless
//! MD2_REQUIRE_GPU=1), offscreen rendering with the crate's one read-back,
//! models built in code, and picture comparisons.

#![allow(dead_code, unused_imports)] // each test binary uses its own part

mod glcmds;
mod gpu;
mod images;
mod models;
mod shared;

pub use glcmds::*;
pub use gpu::*;
pub use images::*;
pub use models::*;
pub use shared::*;
