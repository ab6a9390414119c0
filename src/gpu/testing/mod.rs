//! Helpers for the crate's tests, examples and benchmarks, which `support`
//! re-exports: a headless device, blocking read-backs, and the capture of
//! what the vertex stage computes. Not part of the supported API.

mod capture;
mod headless;

pub use capture::{CapturedMotion, CapturedPose, PoseCapture};
pub use headless::{Headless, block_on, read_buffer, read_rgba8, read_texture, wait};
