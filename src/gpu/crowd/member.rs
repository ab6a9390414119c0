//! One member of a resident crowd as the app describes it, how the crowd
//! keeps it on the CPU (clips by number, no heap per member), and the record
//! it keeps of it on the GPU.

use glam::Mat4;

use super::super::effects::Effects;
use super::super::error::CrowdError;
use super::super::instance::{mirrors, rows, tint_words};
use super::super::shader::{
    CLOCK_HOLD, CLOCK_LOOPING, ClockRecord, MEMBER_FADING, MEMBER_MIRRORED, MEMBER_TRANSLUCENT,
    MemberRecord,
};
use super::clips::{ClipId, ClipTable};
use crate::anim::clock::{GpuClock, fade_ticks, to_ticks};
use crate::anim::{Clip, ClipClock, Fade, MAX_FADE_SECONDS, Playback};

/// One instance of a resident crowd: where it stands, what it plays, its
/// skin, tint and effects. The input to [`Md2Crowd::add`](crate::Md2Crowd::add)
/// and [`Md2Crowd::set`](crate::Md2Crowd::set), and what
/// [`Md2Crowd::get`](crate::Md2Crowd::get) gives back.
///
/// Every value must be finite (see [`InstancePolicy`](crate::InstancePolicy)
/// for the rule both paths share): a crowd refuses the change with
/// [`CrowdError::NotFinite`] naming the value, and changes nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct CrowdMember {
    /// Model to world, as [`Md2Instance::transform`](crate::Md2Instance::transform).
    pub transform: Mat4,
    /// What it plays, from when, how fast, and any crossfade. Times within
    /// ±2⁴³ s, a fade at most [`MAX_FADE_SECONDS`](crate::MAX_FADE_SECONDS)
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

/// A clip clock with its clip by number in the crowd's [`ClipTable`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ClockState {
    pub clip: ClipId,
    pub start: f64,
    pub speed: f32,
}

/// A [`Playback`] with its clips by number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PlaybackState {
    pub clock: ClockState,
    /// The clock faded in, when the fade starts, how long it takes.
    pub fade: Option<(ClockState, f64, f64)>,
}

impl PlaybackState {
    /// Every clip it holds (one or two).
    pub fn clips(&self) -> impl Iterator<Item = ClipId> {
        std::iter::once(self.clock.clip).chain(self.fade.map(|(to, _, _)| to.clip))
    }
}

/// What a crowd keeps of a member on the CPU: a [`CrowdMember`] without a
/// heap allocation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MemberState {
    pub transform: Mat4,
    pub playback: PlaybackState,
    pub skin: u32,
    pub tint: [f32; 4],
    pub effects: Effects,
}

impl MemberState {
    /// The member as the app gave it.
    pub fn member(&self, clips: &ClipTable) -> CrowdMember {
        let clock = |c: &ClockState| ClipClock {
            clip: clips.clip(c.clip).clone(),
            start: c.start,
            speed: c.speed,
        };
        CrowdMember {
            transform: self.transform,
            playback: Playback {
                clock: clock(&self.playback.clock),
                fade: self.playback.fade.map(|(to, start, duration)| Fade {
                    to: clock(&to),
                    start,
                    duration,
                }),
            },
            skin: self.skin,
            tint: self.tint,
            effects: self.effects,
        }
    }

    /// The record's effects word: the effects' bits, and the crowd's own
    /// bits that follow from the tint, the transform and the playback.
    pub fn effects_word(&self) -> u32 {
        let mut word = self.effects.bits();
        let (rgba, _) = tint_words(self.tint);
        if rgba[3] < 255 {
            word |= MEMBER_TRANSLUCENT;
        }
        if mirrors(&self.transform) {
            word |= MEMBER_MIRRORED;
        }
        if self.playback.fade.is_some() {
            word |= MEMBER_FADING;
        }
        word
    }
}

/// What checking a member needs to know of the model.
pub(crate) struct ModelFacts {
    pub frame_count: u32,
    pub skin_count: u32,
}

pub(crate) fn check_transform(transform: &Mat4) -> Result<(), CrowdError> {
    if transform.is_finite() {
        Ok(())
    } else {
        Err(CrowdError::NotFinite { what: "transform" })
    }
}

pub(crate) fn check_tint(tint: &[f32; 4]) -> Result<(), CrowdError> {
    if tint.iter().all(|c| c.is_finite()) {
        Ok(())
    } else {
        Err(CrowdError::NotFinite { what: "tint" })
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

/// Checks everything of `playback` a crowd needs: frames in the model,
/// finite times on the clock, finite speeds, a fade that fits.
pub(crate) fn check_playback(playback: &Playback, model: &ModelFacts) -> Result<(), CrowdError> {
    check_clock(&playback.clock, "clip", "start", "speed", model)?;
    if let Some(fade) = &playback.fade {
        check_clock(&fade.to, "fade", "fade clip start", "fade speed", model)?;
        if to_ticks(fade.start).is_none() {
            return Err(CrowdError::NotFinite { what: "fade start" });
        }
        if fade_ticks(fade.duration).is_none() {
            return Err(CrowdError::NotFinite {
                what: "fade duration",
            });
        }
        if fade.duration > MAX_FADE_SECONDS {
            return Err(CrowdError::FadeTooLong {
                seconds: fade.duration,
            });
        }
    }
    Ok(())
}

fn check_clock(
    clock: &ClipClock,
    clip: &'static str,
    start: &'static str,
    speed: &'static str,
    model: &ModelFacts,
) -> Result<(), CrowdError> {
    check_frames(&clock.clip, clip, model.frame_count)?;
    if to_ticks(clock.start).is_none() {
        return Err(CrowdError::NotFinite { what: start });
    }
    if !clock.speed.is_finite() {
        return Err(CrowdError::NotFinite { what: speed });
    }
    Ok(())
}

fn check_frames(clip: &Clip, which: &'static str, frame_count: u32) -> Result<(), CrowdError> {
    let last = *clip.frames().end();
    if last >= frame_count {
        return Err(CrowdError::FrameOutOfRange {
            clip: which,
            frame: last,
            frame_count,
        });
    }
    Ok(())
}

/// The transform's part of the record: its rows and the effects word.
pub(crate) fn write_transform(record: &mut MemberRecord, state: &MemberState) {
    record.rows = rows(&state.transform);
    record.effects = state.effects_word();
}

/// The look's part of the record: skin, tint and the effects word.
pub(crate) fn write_look(record: &mut MemberRecord, state: &MemberState) {
    let (rgba, intensity) = tint_words(state.tint);
    record.skin_intensity = state.skin | u32::from(intensity) << 16;
    record.tint = u32::from_le_bytes(rgba);
    record.effects = state.effects_word();
}

/// The playback's part of the record: the clocks, the fade, the bounds of
/// every frame either clip shows, and the effects word. The playback was
/// checked ([`check_playback`]).
pub(crate) fn write_playback(record: &mut MemberRecord, state: &MemberState, clips: &ClipTable) {
    let playback = &state.playback;
    record.primary = clock(&playback.clock, clips);
    let mut bounds = clips.bounds(playback.clock.clip);
    match playback.fade {
        Some((to, start, duration)) => {
            record.secondary = clock(&to, clips);
            record.fade_start = split(to_ticks(start).unwrap_or(0));
            record.fade_ticks = fade_ticks(duration).unwrap_or(0);
            let (lo, hi) = clips.bounds(to.clip);
            bounds = (min3(bounds.0, lo), max3(bounds.1, hi));
        }
        None => {
            record.secondary = ClockRecord::default();
            record.fade_start = [0; 2];
            record.fade_ticks = 0;
        }
    }
    record.bounds_min = bounds.0;
    record.bounds_max = bounds.1;
    record.effects = state.effects_word();
}

/// The whole record of `state`.
pub(crate) fn pack(state: &MemberState, clips: &ClipTable) -> MemberRecord {
    let mut record = MemberRecord::default();
    write_transform(&mut record, state);
    write_look(&mut record, state);
    write_playback(&mut record, state, clips);
    record
}

fn clock(state: &ClockState, clips: &ClipTable) -> ClockRecord {
    let clock = ClipClock {
        clip: clips.clip(state.clip).clone(),
        start: state.start,
        speed: state.speed,
    };
    // Checked on the way in: the start is on the clock, the speed finite.
    let gpu: GpuClock = clock.to_gpu().unwrap_or_default();
    let mut flags = 0;
    if gpu.looping {
        flags |= CLOCK_LOOPING;
    }
    if gpu.hold {
        flags |= CLOCK_HOLD;
    }
    ClockRecord {
        step: gpu.step,
        flags,
        start: split(gpu.start),
        first: gpu.first,
        len: gpu.len,
        rate: f32::from_bits(gpu.rate_bits),
        ..ClockRecord::default()
    }
}

/// An i64 as the shader's (low word, high word).
pub(crate) fn split(ticks: i64) -> [u32; 2] {
    [ticks as u32, ((ticks as u64) >> 32) as u32]
}

pub(crate) fn min3(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0].min(b[0]), a[1].min(b[1]), a[2].min(b[2])]
}

pub(crate) fn max3(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0].max(b[0]), a[1].max(b[1]), a[2].max(b[2])]
}
