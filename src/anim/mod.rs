//! Animation on the CPU: clips and crossfades that turn time into poses, and
//! the reference decode and interpolation every GPU result is held to. No
//! wgpu here.

pub mod playback;
pub mod reference;

pub use playback::{Clip, Crossfade, FrameLerp, Playing, Pose, QUAKE2_FPS, Quake2Player};
pub use reference::ReferenceError;
