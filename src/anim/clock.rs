//! The crate's animation vocabulary: a clip, when it started and how fast
//! it plays ([`ClipClock`]), and an optional crossfade into another
//! ([`Playback`], with one [`then`](Playback::then)). The immediate path
//! draws a playback's pose ([`Md2Instance::from_playback`](crate::Md2Instance::from_playback));
//! the resident crowd ([`Md2Crowd`](crate::Md2Crowd)) evaluates the same
//! playbacks on the GPU every frame, and [`Playback::pose`] is the CPU
//! reference it is tested against.
//!
//! # Time
//!
//! Times are seconds on the application's clock, as `f64`, quantised to
//! ticks of 2⁻²⁰ s (about a microsecond; [`TICKS_PER_SECOND`]), so the CPU
//! and the GPU agree on every instant exactly. An instance's pose at `now` is
//! its clip [sampled](Clip::sample) at `(now − start) × speed` seconds,
//! with exactly [`Clip`]'s rules (loop wrap, one-shot hold, negative times,
//! speed 0 holding the start).
//!
//! A time that is not finite, or beyond ±2⁴³ s (the tick count's range), and
//! a speed or fade duration that is not finite, are no clock: sampled on the
//! CPU they give a NaN blend factor (which a renderer refuses, as the
//! [playback](crate::anim::playback) module says), and a crowd refuses them as
//! [`CrowdError::NotFinite`](crate::scene::CrowdError::NotFinite).
//!
//! # Precision
//!
//! The GPU has only `f32`, which after a day holds a time to no better than
//! 8 ms: a frame's `t` would jitter by a tenth at 10 frames a second. The
//! crowd's compute pass therefore keeps time as integer ticks in 64 bits and
//! reduces `(now − start) × rate` modulo the clip in integer arithmetic with
//! a 96-bit fixed-point rate (see `shaders/crowd/clock.wgsl`). The result is exact to about
//! 2⁻²⁴ of a frame however long the application has run, until the elapsed
//! frames (time × fps × speed) approach 2⁵³·10⁻⁴ ≈ 9·10¹¹ (some 2,800 years
//! at 10 frames a second), where the `f64` rate itself starts to show; the
//! tick count itself lasts 2⁴³ s.

use super::playback::{Clip, FrameLerp, Pose, fade_weight};

// The tick grid is the GPU contract's: the crowd's clock counts it.
pub use crate::contract::TICKS_PER_SECOND;

/// The longest crossfade a clock takes, in seconds: its length travels to
/// the GPU as a 32-bit tick count (a little over 68 minutes).
pub const MAX_FADE_SECONDS: f64 = u32::MAX as f64 / TICKS_PER_SECOND;

/// `seconds` on the tick grid, or `None` where it is not finite or beyond
/// ±2⁴³ s.
pub fn to_ticks(seconds: f64) -> Option<i64> {
    let ticks = (seconds * TICKS_PER_SECOND).round();
    // i64::MAX as f64 rounds up to 2^63, which does not fit: stay below it.
    (ticks.is_finite() && ticks.abs() < 9.2e18).then_some(ticks as i64)
}

/// A clip playing from `start` (seconds on the application's clock) at
/// `speed` (1 is the clip's own fps; negative plays a looping clip
/// backwards and holds a one-shot clip at its first frame).
#[derive(Clone, Debug, PartialEq)]
pub struct ClipClock {
    /// What plays.
    pub clip: Clip,
    /// When it started.
    pub start: f64,
    /// How fast: clip seconds per second.
    pub speed: f32,
}

impl ClipClock {
    /// `clip` from `start`, at its own speed.
    pub fn new(clip: Clip, start: f64) -> ClipClock {
        ClipClock {
            clip,
            start,
            speed: 1.0,
        }
    }

    /// The same clock at another speed.
    pub fn with_speed(self, speed: f32) -> ClipClock {
        ClipClock { speed, ..self }
    }

    /// Where the clip is at `now`: [`Clip::sample`] at
    /// `(now − start) × speed`, both times on the tick grid. A time off the
    /// clock or a speed that is not finite gives a NaN `t` (see the
    /// [module docs](self)).
    pub fn sample(&self, now: f64) -> FrameLerp {
        let elapsed = ticks_between(self.start, now).map_or(f64::NAN, |t| t as f64);
        self.clip
            .sample(elapsed / TICKS_PER_SECOND * f64::from(self.speed))
    }
}

/// A crossfade into `to`, its weight rising from 0 at `start` to 1 at
/// `start + duration` (seconds) along a smoothstep (`3u² − 2u³`), so the
/// change starts and ends without a jolt, on the tick grid. A duration of
/// 0 or less is a cut.
#[derive(Clone, Debug, PartialEq)]
pub struct Fade {
    /// The clock faded in.
    pub to: ClipClock,
    /// When the fade starts.
    pub start: f64,
    /// How long it takes, in seconds; 0 (or less) is a cut. At most
    /// [`MAX_FADE_SECONDS`].
    pub duration: f64,
}

impl Fade {
    /// The weight of `to` at `now`; NaN where a time or the duration is not
    /// finite (see the [module docs](self)).
    pub fn weight(&self, now: f64) -> f32 {
        fade_weight_at(self.start, self.duration, now)
    }
}

/// What an instance plays: a clip clock, and maybe a crossfade into another.
#[derive(Clone, Debug, PartialEq)]
pub struct Playback {
    /// The clip playing (the pose's `primary`).
    pub clock: ClipClock,
    /// A crossfade into another clip (the pose's `secondary`), if one is
    /// under way.
    pub fade: Option<Fade>,
}

impl From<ClipClock> for Playback {
    fn from(clock: ClipClock) -> Playback {
        Playback { clock, fade: None }
    }
}

impl Playback {
    /// `clip` from `start` at its own speed, no fade.
    pub fn new(clip: Clip, start: f64) -> Playback {
        ClipClock::new(clip, start).into()
    }

    /// The pose at `now`: the clock's sample, blended into the fade's by
    /// its weight. Without a fade, `secondary` equals `primary` and the
    /// weight is 0.
    pub fn pose(&self, now: f64) -> Pose {
        let primary = self.clock.sample(now);
        match &self.fade {
            None => primary.into(),
            Some(fade) => Pose {
                primary,
                secondary: fade.to.sample(now),
                weight: fade.weight(now),
            },
        }
    }

    /// Crossfades from this playback into `next` from `at` over `duration`
    /// seconds. A pose blends two clips, not three: the new fade starts from
    /// whichever of the current two weighs more at `at`, so a change
    /// requested mid-fade drops the lighter clip.
    pub fn then(&self, next: ClipClock, at: f64, duration: f64) -> Playback {
        let from = match &self.fade {
            Some(fade) if fade.weight(at) >= 0.5 => fade.to.clone(),
            _ => self.clock.clone(),
        };
        Playback {
            clock: from,
            fade: Some(Fade {
                to: next,
                start: at,
                duration,
            }),
        }
    }
}

/// The weight at `now` of a fade that starts at `start` and takes
/// `duration` seconds, on the tick grid: [`Fade::weight`], for a crowd that
/// keeps its fades without their clips.
pub(crate) fn fade_weight_at(start: f64, duration: f64, now: f64) -> f32 {
    let since = ticks_between(start, now).map_or(f64::NAN, |t| t as f64);
    let duration = fade_ticks(duration).map_or(f64::NAN, f64::from);
    fade_weight(since, duration)
}

/// `to − from` in ticks; `None` where either is off the clock.
fn ticks_between(from: f64, to: f64) -> Option<i64> {
    Some(to_ticks(to)?.wrapping_sub(to_ticks(from)?))
}

/// A fade's length as the GPU holds it: ticks, clamped to `u32`; 0 for a
/// cut (0 or negative); `None` where it is not finite.
pub(crate) fn fade_ticks(duration: f64) -> Option<u32> {
    let ticks = (duration * TICKS_PER_SECOND).round();
    if !ticks.is_finite() {
        None
    } else if ticks <= 0.0 {
        Some(0)
    } else {
        Some(ticks.min(f64::from(u32::MAX)) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_exact_and_bounded() {
        assert_eq!(to_ticks(1.0), Some(1 << 20));
        assert_eq!(to_ticks(-0.5), Some(-(1 << 19)));
        assert_eq!(to_ticks(f64::NAN), None);
        assert_eq!(to_ticks(f64::INFINITY), None);
        assert_eq!(to_ticks(1e13), None);
        assert!(to_ticks(8e12).is_some());
    }

    #[test]
    fn the_pose_follows_the_clip_on_the_tick_grid() {
        let run = Clip::looping("run", 40, 45);
        let playback = Playback::new(run.clone(), 2.0);
        assert_eq!(playback.pose(2.25), run.sample(0.25).into());
        let fast = ClipClock::new(run.clone(), 2.0).with_speed(2.0);
        assert_eq!(fast.sample(2.25), run.sample(0.5));
        let backwards = ClipClock::new(run.clone(), 0.0).with_speed(-1.0);
        assert_eq!(backwards.sample(0.0625), run.sample(-0.0625));
    }

    #[test]
    fn then_drops_the_lighter_clip() {
        let stand = Clip::looping("stand", 0, 39);
        let run = Clip::looping("run", 40, 45);
        let attack = Clip::once("attack", 46, 53);
        let a = Playback::new(stand.clone(), 0.0).then(ClipClock::new(run.clone(), 1.0), 1.0, 1.0);
        // At 1.1 the run weighs little: the new fade starts from stand.
        let b = a.then(ClipClock::new(attack.clone(), 1.1), 1.1, 0.2);
        assert_eq!(b.clock.clip, stand);
        // At 1.9 the run weighs most: the new fade starts from the run.
        let c = a.then(ClipClock::new(attack, 1.9), 1.9, 0.2);
        assert_eq!(c.clock.clip, run);
        assert!(c.pose(1.9).weight == 0.0 && c.pose(2.2).weight == 1.0);
    }
}
