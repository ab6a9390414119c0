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
/// The word of a crowd view's work buffer that holds where the view's extra
/// records start among its records, in words (written by the CPU).
pub(crate) const EXTRA_BASE: u32 = SORTED_LEVELS + 2;
/// Words of a crowd view's work buffer that the visible counts read: the
/// draw arguments and the sorted buckets' levels.
pub(crate) const COUNTED_WORDS: u32 = SORTED_LEVELS + 2;
/// Where each bucket's draw (vertex.wgsl's `Md2CrowdDraw`: where its
/// records start, where the extra records start) lies in a crowd view's
/// work buffer, [`DRAW_STRIDE`] words apart.
pub(crate) const DRAWS: u32 = 64;
/// Words between two buckets' draws: 256 bytes, which every device's
/// uniform offset alignment divides, so each draw binds its own at a
/// dynamic offset.
pub(crate) const DRAW_STRIDE: u32 = 64;
/// Where a sorting view's layout of its sorted buckets lies in its work
/// buffer (written by the CPU): per sorted bucket where its keys start
/// (two words), where its records wait before the gather (two words), and
/// its padded key count (two words).
pub(crate) const SORT_LAYOUT: u32 = DRAWS + DRAW_STRIDE * BUCKETS as u32;
/// Words at the start of a crowd view's work buffer before the workgroups'
/// sums.
pub(crate) const SUMS: u32 = SORT_LAYOUT + 8;
/// Words per workgroup of the per-member passes in a crowd view's work
/// buffer: its visible members per bucket (after `cs_scan`: where its
/// first one goes within the bucket), then the finest level its translucent
/// members and its shells need.
pub(crate) const GROUP_WORDS: u32 = BUCKETS as u32 + 2;
/// Words of a visible record (the member and its pose).
pub(crate) const RECORD_WORDS: u32 = 6;
/// Words of an extra record (`vertex.wgsl`'s `Md2ExtraIn` as memory).
pub(crate) const EXTRA_WORDS: u32 = 20;
/// `vec4<u32>`s of a member in the member buffer.
pub(crate) const MEMBER_VEC4S: u32 = 8;
/// `vec4<u32>`s of a clip in the member buffer's clip table.
pub(crate) const CLIP_VEC4S: u32 = 2;
/// vec4s per frame of an attached crowd's tag table (crowd/attach.wgsl's
/// `TAG_VEC4S`): (axis k, origin component k) for k = 0, 1, 2.
pub(crate) const TAG_VEC4S: u32 = 3;
/// A riding member whose root is out of the view being laid out
/// (crowd/types.wgsl's `MEMBER_HIDDEN`, in the effects word): set on the
/// GPU only, by the attach pass.
pub(crate) const MEMBER_HIDDEN: u32 = 0x4000_0000;

/// One resident member as the member buffer holds it, 128 bytes (see
/// crowd/types.wgsl, which reads it as eight `vec4<u32>`): what the vertex
/// stage reads first (rows, skin, tint, effects), then the clocks the
/// compute passes sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct MemberRecord {
    /// Model (Quake axes) to world, three rows.
    pub rows: [[f32; 4]; 3],
    /// Skin layer, and the tint's intensity (f16) above it.
    pub skin_intensity: u32,
    /// Linear RGBA8.
    pub tint: u32,
    /// `EFFECT_*` and `MEMBER_*` bits.
    pub effects: u32,
    /// The primary clock's clip, in the crowd's clip table.
    pub primary_clip: u32,
    /// When the primary clip started, in ticks (low, high word).
    pub primary_start: [u32; 2],
    /// Its position gained per tick (see crowd/clock.wgsl).
    pub primary_step: [u32; 3],
    /// Its frames per second (fps × speed).
    pub primary_rate: f32,
    pub secondary_start: [u32; 2],
    pub secondary_step: [u32; 3],
    pub secondary_rate: f32,
    /// When the crossfade into the secondary clock starts, in ticks.
    pub fade_start: [u32; 2],
    /// How long it takes, in ticks.
    pub fade_ticks: u32,
    pub secondary_clip: u32,
}

/// One clip of a crowd's clip table, 32 bytes, after the members in the
/// member buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct ClipRecord {
    /// The model-space box of every frame the clip plays.
    pub bounds_min: [f32; 3],
    /// The first frame, and the `CLOCK_*` bits above it.
    pub first_flags: u32,
    pub bounds_max: [f32; 3],
    /// Frames in the clip.
    pub len: u32,
}

/// The byte ranges of a [`MemberRecord`] each of the crowd's setters
/// rewrites.
pub(crate) mod member_part {
    use std::mem::offset_of;
    use std::ops::Range;

    use super::MemberRecord;

    /// The transform, and the effects word whose mirrored bit follows it.
    pub const TRANSFORM: Range<usize> = 0..offset_of!(MemberRecord, primary_clip);
    /// The effects word alone (shell, fullbright, minlight, shadow).
    pub const EFFECTS: Range<usize> =
        offset_of!(MemberRecord, effects)..offset_of!(MemberRecord, primary_clip);
    /// The skin layer (with the tint's intensity beside it).
    pub const SKIN: Range<usize> =
        offset_of!(MemberRecord, skin_intensity)..offset_of!(MemberRecord, tint);
    /// The tint: its intensity, its colour, and the translucency bit in the
    /// effects word.
    pub const TINT: Range<usize> =
        offset_of!(MemberRecord, skin_intensity)..offset_of!(MemberRecord, primary_clip);
    /// What plays: the clips, the clocks, the fade, and the fading bit in
    /// the effects word.
    pub const PLAYBACK: Range<usize> = offset_of!(MemberRecord, effects)..size_of::<MemberRecord>();
    /// The whole record.
    pub const ALL: Range<usize> = 0..size_of::<MemberRecord>();
}

/// A crowd's parameters, the uniform its passes read (crowd/types.wgsl's
/// `CrowdParams`, 112 bytes: write [`bytemuck::bytes_of`] of it), made by
/// [`CrowdLayout::params`](crate::crowd::CrowdLayout::params).
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct CrowdParams {
    pub(crate) count: u32,
    pub(crate) levels: u32,
    pub(crate) flags: u32,
    pub(crate) groups: u32,
    pub(crate) clips_at: u32,
    pub(crate) generation: u32,
    pub(crate) _pad0: u32,
    pub(crate) _pad1: u32,
    pub(crate) level_first: [[u32; 4]; 2],
    pub(crate) level_count: [[u32; 4]; 2],
    pub(crate) level_error: [[f32; 4]; 2],
    pub(crate) level_sphere: [f32; 4],
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

/// A view's frame, the uniform a crowd's passes read beside the view's
/// records (crowd/types.wgsl's `CrowdFrame`, 32 bytes: write
/// [`bytemuck::bytes_of`] of it): the time the clocks are sampled at, and
/// for a view that keeps extra records (motion vectors), the previous
/// frame's time.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct CrowdFrame {
    pub(crate) now: [u32; 2],
    pub(crate) flags: u32,
    pub(crate) _pad0: u32,
    pub(crate) previous: [u32; 2],
    pub(crate) _pad1: u32,
    pub(crate) _pad2: u32,
}

#[cfg(test)]
mod tests {
    use std::mem::offset_of;

    use super::*;

    /// crowd/types.wgsl reads a member as vec4s by position: these are the
    /// positions it reads (word = byte / 4).
    #[test]
    fn the_member_record_is_where_the_shaders_read_it() {
        assert_eq!(size_of::<MemberRecord>(), MEMBER_VEC4S as usize * 16);
        assert_eq!(size_of::<ClipRecord>(), CLIP_VEC4S as usize * 16);
        let word = |bytes: usize| bytes / 4;
        // [3]: skin | intensity, tint, effects, primary clip.
        assert_eq!(word(offset_of!(MemberRecord, skin_intensity)), 12);
        assert_eq!(word(offset_of!(MemberRecord, tint)), 13);
        assert_eq!(word(offset_of!(MemberRecord, effects)), 14);
        assert_eq!(word(offset_of!(MemberRecord, primary_clip)), 15);
        // [4], [5]: primary start, step, rate; secondary start.
        assert_eq!(word(offset_of!(MemberRecord, primary_start)), 16);
        assert_eq!(word(offset_of!(MemberRecord, primary_step)), 18);
        assert_eq!(word(offset_of!(MemberRecord, primary_rate)), 21);
        assert_eq!(word(offset_of!(MemberRecord, secondary_start)), 22);
        // [6]: secondary step, rate; [7]: fade start, ticks, secondary clip.
        assert_eq!(word(offset_of!(MemberRecord, secondary_step)), 24);
        assert_eq!(word(offset_of!(MemberRecord, secondary_rate)), 27);
        assert_eq!(word(offset_of!(MemberRecord, fade_start)), 28);
        assert_eq!(word(offset_of!(MemberRecord, fade_ticks)), 30);
        assert_eq!(word(offset_of!(MemberRecord, secondary_clip)), 31);
        assert_eq!(word(offset_of!(ClipRecord, first_flags)), 3);
        assert_eq!(word(offset_of!(ClipRecord, len)), 7);
    }
}
