//! The names errors give the values they refuse, one vocabulary on both
//! paths: every name is the path, from the argument the app passed, to the
//! value itself, as the app's own code writes it (`pose.primary.t` is
//! `instance.pose.primary.t`; `playback.clock.speed` is
//! `member.playback.clock.speed`). [`InstanceError`](crate::scene::InstanceError)
//! and [`CrowdError`](crate::scene::CrowdError) carry them as `field`.
//!
//! | name | where it comes from | refused by |
//! |---|---|---|
//! | [`TRANSFORM`] | `Md2Instance::transform`, `CrowdMember::transform`, `MemberEdit::set_transform` | `prepare`, a crowd |
//! | [`TINT`] | `Md2Instance::tint`, `CrowdMember::tint`, `MemberEdit::set_tint` | `prepare`, a crowd |
//! | [`POSE_T`], [`POSE_T2`], [`POSE_WEIGHT`] | `Md2Instance::pose`'s blend factors (where a time, speed or duration that is not finite ends up: [`Clip::sample`](crate::Clip::sample) gives NaN) | `prepare` |
//! | [`POSE_FRAMES`] | `Md2Instance::pose`'s four frames | `prepare` (out of range) |
//! | [`PREVIOUS_TRANSFORM`], [`PREVIOUS_POSE_T`], [`PREVIOUS_POSE_T2`], [`PREVIOUS_POSE_WEIGHT`], [`PREVIOUS_POSE_FRAMES`] | `Md2Batch::with_previous`' [`Md2Previous`](crate::scene::Md2Previous) | `prepare` |
//! | [`CLOCK_START`], [`CLOCK_SPEED`], [`CLOCK_CLIP`] | `CrowdMember::playback.clock` | `Md2Crowd::add`, `set` |
//! | [`FADE_START`], [`FADE_DURATION`], [`FADE_TO_START`], [`FADE_TO_SPEED`], [`FADE_TO_CLIP`] | `CrowdMember::playback.fade` | `Md2Crowd::add`, `set` |
//! | [`NEXT_START`], [`NEXT_SPEED`], [`NEXT_CLIP`], [`AT`], [`DURATION`] | `MemberEdit::play(next, at, duration)` | `MemberEdit::play` |
//!
//! A frame's time given to `prepare_crowds` that is not finite is its own
//! error, [`PrepareError::TimeNotFinite`](crate::gpu::PrepareError::TimeNotFinite).

/// The instance's (member's) transform.
pub const TRANSFORM: &str = "transform";
/// The tint, any channel.
pub const TINT: &str = "tint";
/// The pose's primary blend factor.
pub const POSE_T: &str = "pose.primary.t";
/// The pose's secondary blend factor.
pub const POSE_T2: &str = "pose.secondary.t";
/// The pose's crossfade weight.
pub const POSE_WEIGHT: &str = "pose.weight";
/// The pose's frames: primary a and b, secondary a and b.
pub const POSE_FRAMES: [&str; 4] = crate::anim::playback::POSE_FRAME_FIELDS;
/// The previous frame's transform.
pub const PREVIOUS_TRANSFORM: &str = "previous.transform";
/// The previous frame's primary blend factor.
pub const PREVIOUS_POSE_T: &str = "previous.pose.primary.t";
/// The previous frame's secondary blend factor.
pub const PREVIOUS_POSE_T2: &str = "previous.pose.secondary.t";
/// The previous frame's crossfade weight.
pub const PREVIOUS_POSE_WEIGHT: &str = "previous.pose.weight";
/// The previous frame's frames.
pub const PREVIOUS_POSE_FRAMES: [&str; 4] = [
    "previous.pose.primary.frame_a",
    "previous.pose.primary.frame_b",
    "previous.pose.secondary.frame_a",
    "previous.pose.secondary.frame_b",
];
/// When the member's clip started (on the crowd's clock).
pub const CLOCK_START: &str = "playback.clock.start";
/// How fast the member's clip plays.
pub const CLOCK_SPEED: &str = "playback.clock.speed";
/// The member's clip (its frames).
pub const CLOCK_CLIP: &str = "playback.clock.clip";
/// When the member's crossfade starts.
pub const FADE_START: &str = "playback.fade.start";
/// How long the member's crossfade takes.
pub const FADE_DURATION: &str = "playback.fade.duration";
/// When the clip faded into started.
pub const FADE_TO_START: &str = "playback.fade.to.start";
/// How fast the clip faded into plays.
pub const FADE_TO_SPEED: &str = "playback.fade.to.speed";
/// The clip faded into (its frames).
pub const FADE_TO_CLIP: &str = "playback.fade.to.clip";
/// When the clip `play` starts began.
pub const NEXT_START: &str = "next.start";
/// How fast the clip `play` starts plays.
pub const NEXT_SPEED: &str = "next.speed";
/// The clip `play` starts (its frames).
pub const NEXT_CLIP: &str = "next.clip";
/// When `play`'s crossfade starts.
pub const AT: &str = "at";
/// How long `play`'s crossfade takes.
pub const DURATION: &str = "duration";
