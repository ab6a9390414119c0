//! How a crowd keeps a member on the CPU (clips by number, no heap per
//! member), and the record it keeps of it on the GPU.

use glam::Mat4;

use super::clips::{ClipId, ClipTable, gpu_clock};
use crate::anim::clock::{fade_ticks, to_ticks};
use crate::anim::{ClipClock, Fade, Playback};
use crate::contract::clock::GpuClock;
use crate::contract::crowd::{MEMBER_HIDDEN, MemberRecord};
use crate::contract::{
    MEMBER_FADING, MEMBER_MIRRORED, MEMBER_TRANSLUCENT, mirrors, rows, tint_words,
};
use crate::scene::{CrowdMember, Effects};

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
        // The attach pass's bit: the GPU's alone.
        debug_assert_eq!(word & MEMBER_HIDDEN, 0);
        word
    }
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

/// The playback's part of the record: the clips, the clocks, the fade, and
/// the effects word. The playback was checked ([`check_playback`]).
pub(crate) fn write_playback(record: &mut MemberRecord, state: &MemberState, clips: &ClipTable) {
    let playback = &state.playback;
    let primary = clock(&playback.clock, clips);
    record.primary_clip = playback.clock.clip;
    record.primary_start = primary.start;
    record.primary_step = primary.step;
    record.primary_rate = primary.rate;
    match playback.fade {
        Some((to, start, duration)) => {
            let secondary = clock(&to, clips);
            record.secondary_clip = to.clip;
            record.secondary_start = secondary.start;
            record.secondary_step = secondary.step;
            record.secondary_rate = secondary.rate;
            record.fade_start = split(to_ticks(start).unwrap_or(0));
            record.fade_ticks = fade_ticks(duration).unwrap_or(0);
        }
        None => {
            // Never read (the fading bit is clear): the primary clip keeps
            // the word a valid clip number all the same.
            record.secondary_clip = playback.clock.clip;
            record.secondary_start = [0; 2];
            record.secondary_step = [0; 3];
            record.secondary_rate = 0.0;
            record.fade_start = [0; 2];
            record.fade_ticks = 0;
        }
    }
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

/// What a member's record keeps of one clock (its clip's frames and flags
/// are the clip table's).
struct ClockWords {
    start: [u32; 2],
    step: [u32; 3],
    rate: f32,
}

fn clock(state: &ClockState, clips: &ClipTable) -> ClockWords {
    let clock = ClipClock {
        clip: clips.clip(state.clip).clone(),
        start: state.start,
        speed: state.speed,
    };
    // Checked on the way in: the start is on the clock, the speed finite.
    let gpu: GpuClock = gpu_clock(&clock).unwrap_or_default();
    ClockWords {
        start: split(gpu.start),
        step: gpu.step,
        rate: f32::from_bits(gpu.rate_bits),
    }
}

/// An i64 as the shader's (low word, high word).
pub(crate) fn split(ticks: i64) -> [u32; 2] {
    [ticks as u32, ((ticks as u64) >> 32) as u32]
}
