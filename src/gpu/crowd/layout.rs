//! How much room a crowd's visible records and work words take in every
//! view, where a view's extra records and sort keys lie, the workgroups of
//! the per-member passes, and the parameters the compute passes read.
//!
//! The visible records themselves are compact: the compute passes lay the
//! buckets out one after another, each as long as it has visible members,
//! so a view keeps room for one record per member (and one per shell),
//! whatever the levels of detail drawn, and the CPU never needs to know
//! how many members land in which bucket.

use crate::contract::crowd::{
    CrowdParams, EXTRA_WORDS, GROUP_WORDS, RECORD_WORDS, SORT_BLOCK, SUMS, WORKGROUP_SIZE,
};
use crate::contract::{
    BUCKETS, MAX_LEVELS, OPAQUE, OPAQUE_MIRRORED, SHELL, TRANSLUCENT, level_of_opaque, opaque_at,
};
use crate::gpu::model::DrawModel;

/// What room a crowd needs in every view (each view sizes its buffers and
/// writes its layout words from it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CrowdLayout {
    pub count: u32,
    /// Levels of detail drawn.
    pub levels: u32,
    /// Opaque members whose transform keeps the winding, and those whose
    /// transform mirrors it.
    pub opaque: [u32; 2],
    /// Members that are translucent, and members with a shell: what the
    /// sorted buckets can hold at most.
    pub sorted: [u32; 2],
    /// Workgroups of the per-member passes.
    pub groups: u32,
    /// Per sorted bucket (translucent, shell): its keys' padded count (0
    /// for an empty bucket).
    pub sort_size: [u32; 2],
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

impl CrowdLayout {
    /// The layout of `count` members, `kinds` of them in each full-detail
    /// bucket, drawn at `levels` levels of detail.
    pub fn of(kinds: [u32; BUCKETS], count: u32, levels: usize) -> CrowdLayout {
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
    pub fn may_draw(&self, bucket: usize) -> bool {
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
    pub fn slots(&self, sort: bool) -> u64 {
        let scratch = u64::from(self.sorted[0]) + u64::from(self.sorted[1]);
        self.room() + if sort { scratch } else { 0 }
    }

    /// Words of a view's records: its slots' records, and where it keeps
    /// them, as many extra records.
    pub fn record_words(&self, sort: bool, extra: bool) -> u64 {
        let per_slot = RECORD_WORDS + if extra { EXTRA_WORDS } else { 0 };
        self.slots(sort) * u64::from(per_slot)
    }

    /// Where a view's extra records start among its records, in words.
    pub fn extra_base(&self, sort: bool) -> u64 {
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
    pub fn work_words(&self, sort: bool) -> u64 {
        let keys = 2 * (u64::from(self.sort_size[0]) + u64::from(self.sort_size[1]));
        self.key_bases()[0] + if sort { keys } else { 0 }
    }

    /// A sorting view's sort layout words (work's SORT_LAYOUT): where each
    /// sorted bucket's keys start, where its records wait (after the
    /// compact region), and its key count.
    pub fn sort_layout(&self) -> [u32; 6] {
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

    pub fn params(
        &self,
        model: &DrawModel,
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
            level_first: levels_of(model.ranges.map(|(first, _)| first), 0),
            level_count: levels_of(model.ranges.map(|(_, count)| count), 0),
            level_error: levels_of(model.levels.errors, 0.0),
            level_sphere: model.levels.sphere,
        }
    }
}
