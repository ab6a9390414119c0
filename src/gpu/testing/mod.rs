//! Helpers for the crate's tests, examples and benchmarks, which `support`
//! re-exports: a headless device, blocking read-backs, the capture of what
//! the vertex stage computes, and the material fuzz target's check. Not
//! part of the supported API.

mod capture;
mod fuzz;
mod headless;
mod targets;

pub use capture::{CapturedMotion, CapturedPose, MotionProbe, PoseCapture};
pub use fuzz::check_material;
pub use headless::{Headless, block_on, read_buffer, read_rgba8, read_texture, wait};
pub use targets::{attachment, cleared, draw_into, read_texture_later, scratch_depth_stencil};
