//! The resident crowd's records, as `crowd/types.wgsl` declares them (a
//! naga test holds every size and offset equal), and the words of a view's
//! work buffer. The crate's own: another host draws its instances with
//! [`InstanceRecord`](super::InstanceRecord)s, not with a crowd.

use super::buckets::BUCKETS;

/// Workgroup size of `cs_capture`, `cs_classify`, `cs_emit` and `cs_gather`.
pub(crate) const WORKGROUP_SIZE: u32 = 64;
/// Workgroup size of `cs_sort_block` and `cs_sort_step`: each sorts or
/// swaps two keys per invocation.
pub(crate) const SORT_WORKGROUP: u32 = 256;
/// Keys one workgroup of `cs_sort_block` sorts in workgroup memory; a
/// sorted bucket's keys are padded to a power of two at least this large.
pub(crate) const SORT_BLOCK: u32 = 512;
/// The word of a crowd view's work buffer that holds the crowd's
/// generation when the view last drew it (after the buckets' draw
/// arguments, five words each).
pub(crate) const SEEN: u32 = 5 * BUCKETS as u32;
/// The words after [`SEEN`] that hold the level of detail the translucent
/// bucket and the shell bucket were drawn at (the finest any of their
/// visible members needs).
pub(crate) const SORTED_LEVELS: u32 = SEEN + 1;
/// Words at the start of a crowd view's work buffer: the buckets' draw
/// arguments, [`SEEN`], [`SORTED_LEVELS`] and one unused.
pub(crate) const SUMS: u32 = SEEN + 4;
/// Words of a crowd view's work buffer that the visible counts read: the
/// draw arguments and the sorted buckets' levels.
pub(crate) const COUNTED_WORDS: u32 = SORTED_LEVELS + 2;
/// Words per workgroup of the per-member passes in a crowd view's work
/// buffer: its visible members per bucket (after `cs_scan`: where its
/// first one goes), then the finest level its translucent members and its
/// shells need.
pub(crate) const GROUP_WORDS: u32 = BUCKETS as u32 + 2;

/// crowd/types.wgsl's `Clock`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct ClockRecord {
    pub step: [u32; 3],
    pub flags: u32,
    pub start: [u32; 2],
    pub first: u32,
    pub len: u32,
    pub rate: f32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}

/// crowd/types.wgsl's `Member`: one resident instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct MemberRecord {
    pub rows: [[f32; 4]; 3],
    pub bounds_min: [f32; 3],
    pub effects: u32,
    pub bounds_max: [f32; 3],
    pub skin_intensity: u32,
    pub tint: u32,
    pub fade_ticks: u32,
    pub fade_start: [u32; 2],
    pub primary: ClockRecord,
    pub secondary: ClockRecord,
}

/// The byte ranges of a [`MemberRecord`] each of the crowd's setters
/// rewrites (see crowd/types.wgsl's `Member`).
pub(crate) mod member_part {
    use std::ops::Range;

    use super::MemberRecord;

    const fn at(offset: usize, end: usize) -> Range<usize> {
        offset..end
    }

    /// The transform, and the effects word whose mirrored bit follows it.
    pub const TRANSFORM: Range<usize> = at(0, std::mem::offset_of!(MemberRecord, bounds_max));
    /// The effects word alone (shell, fullbright, minlight, shadow).
    pub const EFFECTS: Range<usize> = at(
        std::mem::offset_of!(MemberRecord, effects),
        std::mem::offset_of!(MemberRecord, bounds_max),
    );
    /// The skin layer (with the tint's intensity beside it).
    pub const SKIN: Range<usize> = at(
        std::mem::offset_of!(MemberRecord, skin_intensity),
        std::mem::offset_of!(MemberRecord, tint),
    );
    /// The tint: its intensity, its colour, and the translucency bit in the
    /// effects word.
    pub const TINT: Range<usize> = at(
        std::mem::offset_of!(MemberRecord, effects),
        std::mem::offset_of!(MemberRecord, fade_ticks),
    );
    /// What plays: the clocks, the fade, the bounds of every frame they
    /// show, and the fading bit in the effects word.
    pub const PLAYBACK: Range<usize> = at(
        std::mem::offset_of!(MemberRecord, bounds_min),
        size_of::<MemberRecord>(),
    );
    /// The whole record.
    pub const ALL: Range<usize> = at(0, size_of::<MemberRecord>());
}

/// crowd/types.wgsl's `CrowdParams`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct CrowdParams {
    pub count: u32,
    pub levels: u32,
    pub flags: u32,
    pub groups: u32,
    pub bases: [[u32; 4]; 3],
    pub sort: [u32; 4],
    pub sort_size: [u32; 2],
    pub extra_base: [u32; 2],
    pub generation: u32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
    pub level_first: [[u32; 4]; 2],
    pub level_count: [[u32; 4]; 2],
    pub level_error: [[f32; 4]; 2],
    pub level_sphere: [f32; 4],
}

/// crowd/types.wgsl's `MemberMotion`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct MotionRecord {
    pub previous_rows: [[f32; 4]; 3],
    pub previous_frames: [u32; 2],
    pub changed_at: u32,
    pub flags_id: u32,
    pub previous_lerp: [f32; 3],
    pub _pad: u32,
}

/// crowd/types.wgsl's `SortStep`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct SortStep {
    pub k: u32,
    pub j: u32,
    pub region: u32,
    pub _pad: u32,
}

/// crowd/types.wgsl's `CrowdFrame`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct CrowdFrame {
    pub now: [u32; 2],
    pub flags: u32,
    pub _pad0: u32,
    pub previous: [u32; 2],
    pub _pad1: u32,
    pub _pad2: u32,
}
