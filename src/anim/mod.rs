//! Animation on the CPU: clips and crossfades that turn time into poses,
//! clocks that instances keep running on their own, and the reference
//! decode and interpolation every GPU result is held to. No wgpu here.

pub mod clock;
pub mod playback;
pub mod reference;

pub use clock::{ClipClock, Fade, MAX_FADE_SECONDS, Playback, TICKS_PER_SECOND};
pub use playback::{Clip, Crossfade, FrameLerp, Playing, Pose, QUAKE2_FPS, Quake2Player};
pub use reference::ReferenceError;
