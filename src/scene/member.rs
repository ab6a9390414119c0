//! One member of a resident crowd as the app describes it, and the checks
//! a crowd makes of it before taking it.

use glam::Mat4;

use super::effects::Effects;
use super::error::CrowdError;
use super::fields;
use crate::anim::clock::{fade_ticks, to_ticks};
use crate::anim::{Clip, ClipClock, MAX_FADE_SECONDS, Playback};

/// One instance of a resident crowd: where it stands, what it plays, its
/// skin, tint and effects. The input to [`Md2Crowd::add`](crate::Md2Crowd::add)
/// and [`Md2Crowd::set`](crate::Md2Crowd::set), and what
/// [`Md2Crowd::get`](crate::Md2Crowd::get) gives back.
///
/// Every value must be finite (see [`InstancePolicy`](crate::scene::InstancePolicy)
/// for the rule both paths share): a crowd refuses the change with
/// [`CrowdError::NotFinite`] naming the value, and changes nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct CrowdMember {
    /// Model to world, as [`Md2Instance::transform`](crate::Md2Instance::transform).
    pub transform: Mat4,
    /// What it plays, from when, how fast, and any crossfade. Times within
    /// ±2⁴³ s, a fade at most [`MAX_FADE_SECONDS`](crate::anim::MAX_FADE_SECONDS)
    /// long (0 or negative is a cut). Speed 0 holds the clip at its start;
    /// negative plays a looping clip backwards and holds a one-shot one at
    /// its first frame.
    pub playback: Playback,
    /// Layer of the model's skin array.
    pub skin: u32,
    /// As [`Md2Instance::tint`](crate::Md2Instance::tint): HDR colour, alpha
    /// below 1 draws translucent.
    pub tint: [f32; 4],
    /// Shell, fullbright, minlight, shadow.
    pub effects: Effects,
}

impl CrowdMember {
    /// A member placed by `transform` playing `playback` (a [`Playback`] or
    /// a [`ClipClock`]), skin 0, no tint, no effects.
    pub fn new(transform: Mat4, playback: impl Into<Playback>) -> CrowdMember {
        CrowdMember {
            transform,
            playback: playback.into(),
            skin: 0,
            tint: [1.0; 4],
            effects: Effects::NONE,
        }
    }

    /// The same member with another skin layer.
    pub fn with_skin(self, skin: u32) -> CrowdMember {
        CrowdMember { skin, ..self }
    }

    /// The same member with another tint.
    pub fn with_tint(self, tint: [f32; 4]) -> CrowdMember {
        CrowdMember { tint, ..self }
    }

    /// The same member with these effects.
    pub fn with_effects(self, effects: Effects) -> CrowdMember {
        CrowdMember { effects, ..self }
    }
}

/// What checking a member needs to know of the model.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ModelFacts {
    pub frame_count: u32,
    pub skin_count: u32,
}

pub(crate) fn check_transform(transform: &Mat4) -> Result<(), CrowdError> {
    if transform.is_finite() {
        Ok(())
    } else {
        Err(CrowdError::NotFinite {
            field: fields::TRANSFORM,
        })
    }
}

pub(crate) fn check_tint(tint: &[f32; 4]) -> Result<(), CrowdError> {
    if tint.iter().all(|c| c.is_finite()) {
        Ok(())
    } else {
        Err(CrowdError::NotFinite {
            field: fields::TINT,
        })
    }
}

pub(crate) fn check_skin(skin: u32, model: &ModelFacts) -> Result<(), CrowdError> {
    if skin < model.skin_count {
        Ok(())
    } else {
        Err(CrowdError::SkinOutOfRange {
            skin,
            skin_count: model.skin_count,
        })
    }
}

/// The names of a clock's values in an error: its clip, start and speed.
struct ClockFields {
    clip: &'static str,
    start: &'static str,
    speed: &'static str,
}

/// Checks everything of `playback` a crowd needs: frames in the model,
/// finite times on the clock, finite speeds, a fade that fits.
pub(crate) fn check_playback(playback: &Playback, model: &ModelFacts) -> Result<(), CrowdError> {
    let clock = ClockFields {
        clip: fields::CLOCK_CLIP,
        start: fields::CLOCK_START,
        speed: fields::CLOCK_SPEED,
    };
    check_clock(&playback.clock, &clock, model)?;
    if let Some(fade) = &playback.fade {
        let to = ClockFields {
            clip: fields::FADE_TO_CLIP,
            start: fields::FADE_TO_START,
            speed: fields::FADE_TO_SPEED,
        };
        check_clock(&fade.to, &to, model)?;
        check_fade(
            fade.start,
            fade.duration,
            fields::FADE_START,
            fields::FADE_DURATION,
        )?;
    }
    Ok(())
}

/// Checks what `MemberEdit::play` is given, by the names it was given:
/// `next`, `at` and `duration`.
pub(crate) fn check_play(
    next: &ClipClock,
    at: f64,
    duration: f64,
    model: &ModelFacts,
) -> Result<(), CrowdError> {
    let names = ClockFields {
        clip: fields::NEXT_CLIP,
        start: fields::NEXT_START,
        speed: fields::NEXT_SPEED,
    };
    check_clock(next, &names, model)?;
    check_fade(at, duration, fields::AT, fields::DURATION)
}

/// A crossfade from `start` over `duration`: both on the clock, the
/// duration within what it carries (0 or negative is a cut).
fn check_fade(
    start: f64,
    duration: f64,
    start_field: &'static str,
    duration_field: &'static str,
) -> Result<(), CrowdError> {
    if to_ticks(start).is_none() {
        return Err(CrowdError::NotFinite { field: start_field });
    }
    if fade_ticks(duration).is_none() {
        return Err(CrowdError::NotFinite {
            field: duration_field,
        });
    }
    if duration > MAX_FADE_SECONDS {
        return Err(CrowdError::FadeTooLong { seconds: duration });
    }
    Ok(())
}

fn check_clock(
    clock: &ClipClock,
    names: &ClockFields,
    model: &ModelFacts,
) -> Result<(), CrowdError> {
    check_frames(&clock.clip, names.clip, model.frame_count)?;
    if to_ticks(clock.start).is_none() {
        return Err(CrowdError::NotFinite { field: names.start });
    }
    if !clock.speed.is_finite() {
        return Err(CrowdError::NotFinite { field: names.speed });
    }
    Ok(())
}

fn check_frames(clip: &Clip, field: &'static str, frame_count: u32) -> Result<(), CrowdError> {
    let last = *clip.frames().end();
    if last >= frame_count {
        return Err(CrowdError::FrameOutOfRange {
            field,
            frame: last,
            frame_count,
        });
    }
    Ok(())
}
