//! Where a crowd's visible records and work words lie in every view: room
//! in each draw bucket, where each bucket starts, the workgroups of the
//! per-member passes, and the parameters the compute passes read.

use crate::contract::crowd::{CrowdParams, GROUP_WORDS, SORT_BLOCK, SUMS, WORKGROUP_SIZE};
use crate::contract::{
    BUCKETS, MAX_LEVELS, OPAQUE, OPAQUE_MIRRORED, SHELL, TRANSLUCENT, opaque_at,
};
use crate::gpu::model::DrawModel;

/// Where a crowd's visible records and work words lie, the same in every
/// view (each view sizes its buffers from it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CrowdLayout {
    pub count: u32,
    /// Levels of detail drawn.
    pub levels: u32,
    /// Room in each bucket: what a view can find visible at most (an
    /// opaque member may be at any level drawn).
    pub counts: [u32; BUCKETS],
    /// Where each bucket starts among the visible records.
    pub bases: [u32; BUCKETS],
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
        let mut counts = [0; BUCKETS];
        for level in 0..levels {
            counts[opaque_at(level, false)] = kinds[OPAQUE];
            counts[opaque_at(level, true)] = kinds[OPAQUE_MIRRORED];
        }
        counts[TRANSLUCENT] = kinds[TRANSLUCENT];
        counts[SHELL] = kinds[SHELL];
        let mut bases = [0; BUCKETS];
        let mut at = 0;
        for (base, c) in bases.iter_mut().zip(counts) {
            *base = at;
            at += c;
        }
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
            counts,
            bases,
            groups: count.div_ceil(WORKGROUP_SIZE),
            sort_size: [padded(counts[TRANSLUCENT]), padded(counts[SHELL])],
        }
    }

    /// The bucket sorted as `region` 0 or 1.
    pub fn sorted_bucket(&self, region: u32) -> usize {
        if region == 0 { TRANSLUCENT } else { SHELL }
    }

    fn total(&self) -> u64 {
        self.counts.iter().map(|&c| u64::from(c)).sum()
    }

    /// Visible records a view needs room for; one that sorts keeps its
    /// sorted buckets' records a second time before ordering them. Without
    /// the extra records, which a view that wants them keeps as many again.
    pub fn records(&self, sort: bool) -> u64 {
        let scratch = u64::from(self.counts[TRANSLUCENT]) + u64::from(self.counts[SHELL]);
        self.total() + if sort { scratch } else { 0 }
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

    pub fn params(&self, model: &DrawModel, flags: u32, generation: u32) -> CrowdParams {
        let keys = self.key_bases();
        let total = self.total() as u32;
        let mut bases = [[0; 4]; 3];
        for (b, &base) in self.bases.iter().enumerate() {
            bases[b / 4][b % 4] = base;
        }
        CrowdParams {
            count: self.count,
            levels: self.levels,
            flags,
            groups: self.groups,
            bases,
            sort: [
                keys[0] as u32,
                keys[1] as u32,
                total,
                total + self.counts[TRANSLUCENT],
            ],
            sort_size: self.sort_size,
            extra_base: [self.records(false) as u32, self.records(true) as u32],
            generation,
            _pad0: 0,
            _pad1: 0,
            _pad2: 0,
            level_first: levels_of(model.ranges.map(|(first, _)| first), 0),
            level_count: levels_of(model.ranges.map(|(_, count)| count), 0),
            level_error: levels_of(model.levels.errors, 0.0),
            level_sphere: model.levels.sphere,
        }
    }
}
