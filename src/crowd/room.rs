//! The host's buffers a crowd's records go into, and how they grow: the
//! member buffer (the members, then the crowd's clip table) and the motion
//! buffer. The crowd decides their sizes and what to write where; the host
//! (md2-wgpu's own renderer, a Bevy plugin, any wgpu app) makes the buffers
//! and queues the writes.

use crate::contract::crowd::{CLIP_VEC4S, ClipRecord, MEMBER_VEC4S, MemberRecord};

/// A host's GPU buffers for one crowd, which
/// [`CrowdMembers::flush`](super::CrowdMembers::flush) sizes and writes.
/// Both are bound as read-only storage by the crowd's passes (the member
/// buffer by its draws too); every size asked for is a multiple of 16
/// bytes.
pub trait CrowdBuffers {
    /// Replaces the member buffer with one of exactly `bytes` (storage and
    /// copy destination). Its old contents are not needed: every member
    /// and clip is written into the new one before the flush returns. An
    /// error is the host's message (out of memory, a lost device).
    fn new_member_buffer(&mut self, bytes: u64) -> Result<(), String>;
    /// Writes `bytes` at `offset` of the member buffer.
    fn write_members(&mut self, offset: u64, bytes: &[u8]);
    /// Replaces the motion buffer with one of exactly `bytes`, made when a
    /// view first draws the crowd's motion (until then a host binds a
    /// stand-in of one record's 80 bytes) and when the crowd outgrows it;
    /// every record is written into it before the flush returns.
    fn new_motion_buffer(&mut self, bytes: u64) -> Result<(), String>;
    /// Writes `bytes` at `offset` of the motion buffer.
    fn write_motion(&mut self, offset: u64, bytes: &[u8]);
}

/// Bytes past which buffers grow by eighths rather than doubling.
const DOUBLING_UP_TO: u64 = 1 << 20;

/// How large a buffer that must hold `bytes` is made: the next power of
/// two, and past [`DOUBLING_UP_TO`] the next eighth of one, so a large
/// buffer keeps at most an eighth of its size spare (still geometric: a
/// steadily growing crowd reallocates a logarithmic number of times).
pub(crate) fn grown_size(bytes: u64) -> u64 {
    let power = bytes.next_power_of_two();
    if bytes <= DOUBLING_UP_TO {
        power
    } else {
        let step = power / 8;
        bytes.div_ceil(step) * step
    }
}

pub(crate) const MEMBER: u64 = size_of::<MemberRecord>() as u64;
pub(crate) const CLIP: u64 = size_of::<ClipRecord>() as u64;
// A clip is CLIP_VEC4S vec4s of the member buffer.
const _: () = assert!(CLIP == CLIP_VEC4S as u64 * 16);
/// The member buffer's first room, in members and in clips.
const MIN_MEMBERS: u64 = 64;
const MIN_CLIPS: u64 = 16;
/// Room for clips a crowd keeps however many members it has: a crowd's
/// most members leave this much of the storage binding to its clip table.
pub(crate) const RESERVED_CLIPS: u64 = 1024;

/// Room in a member buffer: members, then clips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Room {
    pub members: u64,
    pub clips: u64,
}

impl Room {
    /// The room of a crowd's first member buffer.
    pub const FIRST: Room = Room {
        members: MIN_MEMBERS,
        clips: MIN_CLIPS,
    };

    pub fn bytes(self) -> u64 {
        self.members * MEMBER + self.clips * CLIP
    }

    /// Where the clip table starts, in `vec4`s.
    pub fn clips_at(self) -> u32 {
        (self.members * u64::from(MEMBER_VEC4S)) as u32
    }

    /// Room for `members` and `clips`, grown geometrically from `self`
    /// (or to exactly `reserved` members, where the app reserved room for
    /// at least as many) within `cap` bytes; `None` where they cannot fit.
    pub fn fit(self, members: u64, reserved: u64, clips: u64, cap: u64) -> Option<Room> {
        let clips = if clips <= self.clips {
            self.clips
        } else {
            clips.next_power_of_two().max(MIN_CLIPS)
        };
        let most = cap.checked_sub(clips * CLIP)? / MEMBER;
        let room = if members <= self.members {
            self.members
        } else if reserved >= members {
            reserved.min(most).max(members)
        } else {
            (grown_size(members * MEMBER) / MEMBER)
                .max(MIN_MEMBERS)
                .min(most)
        };
        // Growth is clamped to the cap, never below what is asked for.
        (room >= members.max(1) && room * MEMBER + clips * CLIP <= cap).then_some(Room {
            members: room,
            clips,
        })
    }
}
