//! How much room a crowd's visible records and work words take in every
//! view, where a view's extra records and sort keys lie, the workgroups of
//! the per-member passes, and the parameters the compute passes read.
//!
//! The visible records themselves are compact: the compute passes lay the
//! buckets out one after another, each as long as it has visible members,
//! so a view keeps room for one record per member (and one per shell),
//! whatever the levels of detail drawn, and the CPU never needs to know
//! how many members land in which bucket.

use super::members::{CrowdFlush, CrowdMembers};
use crate::contract::crowd::{
    CrowdParams, DRAW_STRIDE, DRAWS, EXTRA_BASE, EXTRA_WORDS, GROUP_WORDS, RECORD_WORDS, SEEN,
    SORT_BLOCK, SORT_LAYOUT, SUMS, WORKGROUP_SIZE,
};
use crate::contract::{
    BUCKETS, MAX_LEVELS, ModelLevels, OPAQUE, OPAQUE_MIRRORED, SHELL, TRANSLUCENT, level_of_opaque,
    model_levels, opaque_at,
};
use crate::mesh::Levels;

/// What room a crowd needs in every view that draws it, and where its
/// passes put what the view draws: each view sizes its visible-record and
/// work buffers from it, writes its layout words, dispatches its passes and
/// draws its buckets by it (see [`CrowdLayout::draws`]). Made from the
/// crowd's members as they are at a flush ([`CrowdLayout::of`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrowdLayout {
    pub(crate) count: u32,
    /// Levels of detail drawn.
    pub(crate) levels: u32,
    /// Opaque members whose transform keeps the winding, and those whose
    /// transform mirrors it.
    pub(crate) opaque: [u32; 2],
    /// Members that are translucent, and members with a shell: what the
    /// sorted buckets can hold at most.
    pub(crate) sorted: [u32; 2],
    /// Workgroups of the per-member passes.
    pub(crate) groups: u32,
    /// Per sorted bucket (translucent, shell): its keys' padded count (0
    /// for an empty bucket).
    pub(crate) sort_size: [u32; 2],
}

/// One value per level of detail, as CrowdParams holds them: vec4s, level
/// `l` at `[l / 4][l % 4]`, `fill` past the last.
fn levels_of<T: Copy>(values: [T; MAX_LEVELS], fill: T) -> [[T; 4]; 2] {
    let mut out = [[fill; 4]; 2];
    for (l, v) in values.into_iter().enumerate() {
        out[l / 4][l % 4] = v;
    }
    out
}

/// One bucket's indirect draw in a view that draws a crowd
/// ([`CrowdLayout::draws`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BucketDraw {
    /// The bucket (opaque and opaque mirrored at each level of detail, then
    /// translucent, then shell).
    pub bucket: usize,
    /// Where its `DrawIndexedIndirectArgs` (20 bytes, written by the
    /// passes: the level's index range, the visible count) lie in the
    /// view's work buffer.
    pub args_offset: u64,
    /// The dynamic offset, in the view's work buffer, of its draw words
    /// (`Md2CrowdDraw`: where its records start, where the extra records
    /// start), which the crowd's vertex stage binds as a uniform.
    pub draw_offset: u32,
    /// Whether its members' transforms mirror: draw it with the model's
    /// mirrored index list ([`ModelData::mirrored_indices`](crate::ModelData::mirrored_indices)).
    pub mirrored: bool,
    /// The level of detail its index range is (translucent and shell
    /// buckets: the finest any of their visible members needs, which the
    /// passes write into its arguments; `None`).
    pub level: Option<usize>,
}

impl CrowdLayout {
    /// The layout of `members` as they are now, drawn at `levels` levels of
    /// detail (the model's levels: its [`ModelData::levels_of_detail`](crate::ModelData::levels_of_detail)'s count).
    pub fn of(members: &CrowdMembers, levels: usize) -> CrowdLayout {
        CrowdLayout::of_counts(members.counts(), members.len() as u32, levels)
    }

    /// Workgroups of the per-member passes (`cs_classify`, `cs_emit`): one
    /// per [`WORKGROUP_SIZE`](super::WORKGROUP_SIZE) members, dispatched
    /// `(x, y, 1)` with `x` at most 65,535 (the passes number them row by
    /// row and ignore those past the end). `cs_scan` is one workgroup.
    pub fn workgroups(&self) -> u32 {
        self.groups
    }

    /// Bytes of a view's visible records: one record (24 bytes) per member
    /// and per shell, and where the view keeps `extra` records (motion
    /// vectors, a material's), 80 more each. For a view that draws in
    /// member order.
    pub fn record_bytes(&self, extra: bool) -> u64 {
        self.record_words(false, extra).max(1) * 4
    }

    /// Bytes of a view's work buffer (the buckets' draw arguments and draw
    /// words, then the passes' counts): storage, indirect, uniform and copy
    /// destination. For a view that draws in member order.
    pub fn work_bytes(&self) -> u64 {
        self.work_words(false) * 4
    }

    /// What a view that keeps extra records (motion vectors) writes into
    /// its work buffer before its passes, as (byte offset, word): where its
    /// extra records start, and the motion generation ([`CrowdFlush::motion_generation`])
    /// of the last frame it drew the crowd in (`u32::MAX` before its
    /// first: nothing it shows has moved).
    pub fn extra_words(&self, seen: u32) -> [(u64, u32); 2] {
        [
            (u64::from(EXTRA_BASE) * 4, self.extra_base(false) as u32),
            (u64::from(SEEN) * 4, seen),
        ]
    }

    /// Bytes of the visible records of a view that draws translucent
    /// members and shells back to front ([`dispatches`](Self::dispatches)
    /// with the sort): [`record_bytes`](Self::record_bytes)' and room for
    /// the sorted buckets' records while they wait for their order.
    pub fn sorted_record_bytes(&self, extra: bool) -> u64 {
        self.record_words(true, extra).max(1) * 4
    }

    /// Bytes of the work buffer of a view that sorts:
    /// [`work_bytes`](Self::work_bytes)' and the sorted buckets' keys.
    pub fn sorted_work_bytes(&self) -> u64 {
        self.work_words(true) * 4
    }

    /// What a view that sorts writes into its work buffer before its
    /// passes, as (byte offset, words): where each sorted bucket's keys
    /// start, where its records wait, and its padded key count.
    pub fn sort_words(&self) -> (u64, [u32; 6]) {
        (u64::from(SORT_LAYOUT) * 4, self.sort_layout())
    }

    /// [`extra_words`](Self::extra_words) for a view that sorts (its extra
    /// records start after the waiting room).
    pub fn sorted_extra_words(&self, seen: u32) -> [(u64, u32); 2] {
        [
            (u64::from(EXTRA_BASE) * 4, self.extra_base(true) as u32),
            (u64::from(SEEN) * 4, seen),
        ]
    }

    /// The crowd's parameters (its uniform, `CrowdParams`) for the passes:
    /// counts, where the flush put the clip table, the motion generation,
    /// the model's `levels` (their index ranges and errors:
    /// [`ModelData::levels_of_detail`](crate::ModelData::levels_of_detail)) and the sphere around every frame
    /// ([`ModelData::bounding_sphere`](crate::ModelData::bounding_sphere)) that levels are chosen by, and
    /// whether members outside a view are culled.
    pub fn params(
        &self,
        levels: &Levels,
        sphere: [f32; 4],
        flush: &CrowdFlush,
        culling: bool,
    ) -> CrowdParams {
        let levels = levels.levels();
        let range = |level: usize| {
            let level = levels.get(level).or(levels.last());
            level.map_or((0, 0), |l| (l.first_index, l.index_count))
        };
        self.params_for(
            &std::array::from_fn(range),
            &model_levels(levels, sphere),
            if culling {
                crate::contract::CROWD_CULL
            } else {
                0
            },
            flush.clips_at,
            flush.motion_generation,
        )
    }

    /// Every bucket a view may have to draw, in the order md2-wgpu's own
    /// renderer draws them (each level's opaque pair, then translucent,
    /// then shell): a bucket with no visible member draws nothing, its
    /// arguments' instance count being 0.
    pub fn draws(&self) -> impl Iterator<Item = BucketDraw> + '_ {
        (0..BUCKETS)
            .filter(|&b| self.may_draw(b))
            .map(|bucket| BucketDraw {
                bucket,
                args_offset: bucket as u64 * 20,
                draw_offset: (DRAWS + DRAW_STRIDE * bucket as u32) * 4,
                mirrored: bucket < TRANSLUCENT
                    && bucket == opaque_at(level_of_opaque(bucket), true),
                level: (bucket < TRANSLUCENT).then(|| level_of_opaque(bucket)),
            })
    }

    /// The layout of `count` members, `kinds` of them in each full-detail
    /// bucket, drawn at `levels` levels of detail.
    pub(crate) fn of_counts(kinds: [u32; BUCKETS], count: u32, levels: usize) -> CrowdLayout {
        let sorted = [kinds[TRANSLUCENT], kinds[SHELL]];
        let padded = |c: u32| {
            if c == 0 {
                0
            } else {
                c.next_power_of_two().max(SORT_BLOCK)
            }
        };
        CrowdLayout {
            count,
            levels: levels as u32,
            opaque: [kinds[OPAQUE], kinds[OPAQUE_MIRRORED]],
            sorted,
            groups: count.div_ceil(WORKGROUP_SIZE),
            sort_size: sorted.map(padded),
        }
    }

    /// Whether `bucket` can have visible records.
    pub(crate) fn may_draw(&self, bucket: usize) -> bool {
        match bucket {
            TRANSLUCENT => self.sorted[0] > 0,
            SHELL => self.sorted[1] > 0,
            _ => {
                level_of_opaque(bucket) < self.levels as usize
                    && self.opaque[usize::from(bucket == opaque_at(level_of_opaque(bucket), true))]
                        > 0
            }
        }
    }

    /// Record slots of the compact region: one per member, one per shell.
    fn room(&self) -> u64 {
        u64::from(self.count) + u64::from(self.sorted[1])
    }

    /// Record slots a view needs: the compact region, and in a view that
    /// sorts, the sorted buckets' records a second time before ordering
    /// them.
    pub(crate) fn slots(&self, sort: bool) -> u64 {
        let scratch = u64::from(self.sorted[0]) + u64::from(self.sorted[1]);
        self.room() + if sort { scratch } else { 0 }
    }

    /// Words of a view's records: its slots' records, and where it keeps
    /// them, as many extra records.
    pub(crate) fn record_words(&self, sort: bool, extra: bool) -> u64 {
        let per_slot = RECORD_WORDS + if extra { EXTRA_WORDS } else { 0 };
        self.slots(sort) * u64::from(per_slot)
    }

    /// Where a view's extra records start among its records, in words.
    pub(crate) fn extra_base(&self, sort: bool) -> u64 {
        self.slots(sort) * u64::from(RECORD_WORDS)
    }

    /// Where the keys of each sorted bucket start in the work buffer.
    fn key_bases(&self) -> [u64; 2] {
        let first = u64::from(SUMS)
            + u64::from(GROUP_WORDS) * u64::from(self.groups)
            + u64::from(self.count);
        [first, first + 2 * u64::from(self.sort_size[0])]
    }

    /// Words of a view's work buffer.
    pub(crate) fn work_words(&self, sort: bool) -> u64 {
        let keys = 2 * (u64::from(self.sort_size[0]) + u64::from(self.sort_size[1]));
        self.key_bases()[0] + if sort { keys } else { 0 }
    }

    /// A sorting view's sort layout words (work's SORT_LAYOUT): where each
    /// sorted bucket's keys start, where its records wait (after the
    /// compact region), and its key count.
    pub(crate) fn sort_layout(&self) -> [u32; 6] {
        let keys = self.key_bases();
        let room = self.room() as u32;
        [
            keys[0] as u32,
            keys[1] as u32,
            room,
            room + self.sorted[0],
            self.sort_size[0],
            self.sort_size[1],
        ]
    }

    /// The parameters of levels whose index ranges are `ranges` (first,
    /// count) and whose choice `levels` describes.
    pub(crate) fn params_for(
        &self,
        ranges: &[(u32, u32); MAX_LEVELS],
        levels: &ModelLevels,
        flags: u32,
        clips_at: u32,
        generation: u32,
    ) -> CrowdParams {
        CrowdParams {
            count: self.count,
            levels: self.levels,
            flags,
            groups: self.groups,
            clips_at,
            generation,
            _pad0: 0,
            _pad1: 0,
            level_first: levels_of(ranges.map(|(first, _)| first), 0),
            level_count: levels_of(ranges.map(|(_, count)| count), 0),
            level_error: levels_of(levels.errors, 0.0),
            level_sphere: levels.sphere,
        }
    }
}
