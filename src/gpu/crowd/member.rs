//! One member of a resident crowd as the app describes it, and the record
//! the crowd keeps of it on the GPU.

use glam::Mat4;

use super::super::effects::Effects;
use super::super::error::CrowdError;
use super::super::instance::{mirrors, rows, tint_words};
use super::super::shader::{
    CLOCK_HOLD, CLOCK_LOOPING, ClockRecord, MEMBER_FADING, MEMBER_MIRRORED, MEMBER_TRANSLUCENT,
    MemberRecord,
};
use crate::anim::clock::{GpuClock, fade_ticks, to_ticks};
use crate::anim::{Clip, MAX_FADE_SECONDS, Playback};

/// One instance of a resident crowd: where it stands, what it plays, its
/// skin, tint and effects. The input to [`Md2Crowd::add`](crate::Md2Crowd::add)
/// and [`Md2Crowd::set`](crate::Md2Crowd::set).
#[derive(Clone, Debug, PartialEq)]
pub struct CrowdMember {
    /// Model to world, as [`Md2Instance::transform`](crate::Md2Instance::transform).
    /// Must be finite.
    pub transform: Mat4,
    /// What it plays, from when, how fast, and any crossfade. Times must be
    /// finite and within ±2⁴³ s, the speed finite (0 holds the clip at its
    /// start; negative plays a looping clip backwards and holds a one-shot
    /// one at its first frame), a fade at most
    /// [`MAX_FADE_SECONDS`](crate::MAX_FADE_SECONDS) long (0 or negative is
    /// a cut).
    pub playback: Playback,
    /// Layer of the model's skin array.
    pub skin: u32,
    /// As [`Md2Instance::tint`](crate::Md2Instance::tint): HDR colour, alpha
    /// below 1 draws translucent; NaN reads as 0.
    pub tint: [f32; 4],
    /// Shell, fullbright, minlight, shadow.
    pub effects: Effects,
}

impl CrowdMember {
    /// A member placed by `transform` playing `playback` (a [`Playback`] or
    /// a [`ClipClock`](crate::ClipClock)), skin 0, no tint, no effects.
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

/// What packing a member needs to know of the model.
pub(crate) struct ModelFacts<'a> {
    pub frame_count: u32,
    pub skin_count: u32,
    /// Per frame, its box in model space (Quake axes).
    pub frame_bounds: &'a [([f32; 3], [f32; 3])],
}

/// Checks `member` against the model and packs it. Nothing is changed on
/// an error.
pub(crate) fn pack(
    member: &CrowdMember,
    model: &ModelFacts<'_>,
) -> Result<MemberRecord, CrowdError> {
    if !member.transform.is_finite() {
        return Err(CrowdError::NotFinite { what: "transform" });
    }
    if member.skin >= model.skin_count {
        return Err(CrowdError::SkinOutOfRange {
            skin: member.skin,
            skin_count: model.skin_count,
        });
    }
    let playback = &member.playback;
    check_frames(&playback.clock.clip, "clip", model.frame_count)?;
    let primary = clock(&playback.clock)?;
    let mut bounds = clip_bounds(&playback.clock.clip, model.frame_bounds);
    let (rgba, intensity) = tint_words(member.tint);
    let tint = u32::from_le_bytes(rgba);
    let mut effects = member.effects.bits();
    if tint >> 24 < 255 {
        effects |= MEMBER_TRANSLUCENT;
    }
    if mirrors(&member.transform) {
        effects |= MEMBER_MIRRORED;
    }
    let mut record = MemberRecord {
        rows: rows(&member.transform),
        skin_intensity: member.skin | u32::from(intensity) << 16,
        primary,
        ..MemberRecord::default()
    };
    if let Some(fade) = &playback.fade {
        check_frames(&fade.to.clip, "fade", model.frame_count)?;
        record.secondary = clock(&fade.to)?;
        let start = to_ticks(fade.start).ok_or(CrowdError::NotFinite { what: "fade start" })?;
        if !fade.duration.is_finite() {
            return Err(CrowdError::NotFinite {
                what: "fade duration",
            });
        }
        if f64::from(fade.duration) > MAX_FADE_SECONDS {
            return Err(CrowdError::FadeTooLong {
                seconds: fade.duration,
            });
        }
        record.fade_start = split(start);
        record.fade_ticks = fade_ticks(fade.duration);
        effects |= MEMBER_FADING;
        let (lo, hi) = clip_bounds(&fade.to.clip, model.frame_bounds);
        bounds = (min3(bounds.0, lo), max3(bounds.1, hi));
    }
    record.tint = tint;
    record.effects = effects;
    record.bounds_min = bounds.0;
    record.bounds_max = bounds.1;
    Ok(record)
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

fn clock(clock: &crate::anim::ClipClock) -> Result<ClockRecord, CrowdError> {
    if to_ticks(clock.start).is_none() {
        return Err(CrowdError::NotFinite { what: "start" });
    }
    let gpu: GpuClock = clock
        .to_gpu()
        .ok_or(CrowdError::NotFinite { what: "speed" })?;
    let mut flags = 0;
    if gpu.looping {
        flags |= CLOCK_LOOPING;
    }
    if gpu.hold {
        flags |= CLOCK_HOLD;
    }
    Ok(ClockRecord {
        step: gpu.step,
        flags,
        start: split(gpu.start),
        first: gpu.first,
        len: gpu.len,
        rate: f32::from_bits(gpu.rate_bits),
        ..ClockRecord::default()
    })
}

/// An i64 as the shader's (low word, high word).
pub(crate) fn split(ticks: i64) -> [u32; 2] {
    [ticks as u32, ((ticks as u64) >> 32) as u32]
}

/// The box of every frame `clip` plays.
fn clip_bounds(clip: &Clip, frame_bounds: &[([f32; 3], [f32; 3])]) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for frame in clip.frames() {
        let (a, b) = frame_bounds[frame as usize];
        lo = min3(lo, a);
        hi = max3(hi, b);
    }
    (lo, hi)
}

fn min3(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0].min(b[0]), a[1].min(b[1]), a[2].min(b[2])]
}

fn max3(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0].max(b[0]), a[1].max(b[1]), a[2].max(b[2])]
}
