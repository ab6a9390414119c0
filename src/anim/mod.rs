//! Animation on the CPU: clips and crossfades that turn time into poses,
//! clocks that instances keep running on their own, and the reference
//! decode and interpolation every GPU result is held to. No wgpu here.

pub mod clock;
pub mod playback;
pub mod reference;

pub use clock::{ClipClock, Fade, MAX_FADE_SECONDS, Playback, TICKS_PER_SECOND};
pub use playback::{Clip, FrameLerp, Pose, QUAKE2_FPS, Quake2Player};
// 0.1.0's crossfade, deprecated for one release.
#[allow(deprecated)]
pub use playback::{Crossfade, Playing};
pub use reference::ReferenceError;

pub(crate) use clock::fade_weight_at;
