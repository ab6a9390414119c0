//! How a frame's batches pack into one instance buffer, each batch's
//! records grouped by the draw that reads them (see the contract's
//! buckets), each instance checked as the renderer's policy says.

use bytemuck::Zeroable as _;

use super::batch::Md2Batch;
use crate::contract::{
    BUCKETS, Buckets, ExtraRecord, InstanceRecord, LevelView, SHELL, TRANSLUCENT, choose,
    level_of_opaque, unmoved_extra,
};
use crate::gpu::error::{PrepareError, PrepareReport};
use crate::scene::{InstancePolicy, Md2Previous, Packed, depth_key, pack, pack_previous};

/// Where one batch's records lie in the packed list, bucket by bucket (see
/// [`Buckets`]): opaque and opaque mirrored at each level of detail,
/// translucent, shell. Shelled instances have a record in their main bucket
/// and one in the shell bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ranges {
    pub first: [u32; BUCKETS],
    pub count: [u32; BUCKETS],
    /// The level the translucent bucket and the shell bucket are drawn at:
    /// the finest any of their instances needs.
    pub sorted_levels: [usize; 2],
}

impl Ranges {
    /// The level of detail `bucket` is drawn at.
    pub(crate) fn level(&self, bucket: usize) -> usize {
        if bucket < TRANSLUCENT {
            level_of_opaque(bucket)
        } else {
            self.sorted_levels[bucket - TRANSLUCENT]
        }
    }
}

/// The records of a frame's batches, and reused memory.
#[derive(Debug, Default)]
pub(crate) struct Packing {
    pub records: Vec<InstanceRecord>,
    /// Parallel to `records` where the renderer keeps extra records.
    pub extras: Vec<ExtraRecord>,
    /// One batch's records in the order given, and their extras (where
    /// made), before they are placed bucket by bucket.
    given: Vec<InstanceRecord>,
    given_extras: Vec<ExtraRecord>,
    /// The level of detail of each record in `given`.
    given_levels: Vec<u8>,
    /// A bucket's records and extras while they are sorted together.
    sorting: Vec<(InstanceRecord, ExtraRecord)>,
}

/// How to pack.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PackOptions {
    pub policy: InstancePolicy,
    /// The view's depth row, where translucent instances and shells are
    /// sorted back to front.
    pub back_to_front: Option<[f32; 4]>,
    /// Whether to make the extra records (previous transform and pose,
    /// index, id).
    pub extras: bool,
    /// What levels of detail are chosen by.
    pub levels: LevelView,
}

impl Packing {
    /// Packs every batch's instances (cleared first), each batch bucket by
    /// bucket, each bucket in the order given, and returns the batches'
    /// ranges. With `back_to_front`, the translucent and shell buckets are
    /// then sorted by the view depth of each instance's origin, farthest
    /// first, ties in the order given (the crowd's GPU sort uses the same
    /// key).
    pub(crate) fn pack(
        &mut self,
        batches: &[Md2Batch<'_>],
        options: PackOptions,
        report: &mut PrepareReport,
    ) -> Result<Vec<Ranges>, PrepareError> {
        self.records.clear();
        self.extras.clear();
        let mut ranges = Vec::with_capacity(batches.len());
        for (b, batch) in batches.iter().enumerate() {
            let start = self.records.len();
            let previous = match batch.previous {
                Some(previous) if options.extras => {
                    if previous.len() != batch.instances.len() {
                        return Err(PrepareError::PreviousMismatch {
                            batch: b,
                            instances: batch.instances.len(),
                            previous: previous.len(),
                        });
                    }
                    Some(previous)
                }
                _ => None,
            };
            let (count, sorted_levels) = self.pack_batch(b, batch, previous, options, report)?;
            let mut first = [0u32; BUCKETS];
            let mut at = start as u32;
            for bucket in 0..BUCKETS {
                first[bucket] = at;
                at += count[bucket];
            }
            if let Some(row) = options.back_to_front {
                for bucket in [TRANSLUCENT, SHELL] {
                    let range = first[bucket] as usize..(first[bucket] + count[bucket]) as usize;
                    self.sort_back_to_front(range, row, options.extras);
                }
            }
            ranges.push(Ranges {
                first,
                count,
                sorted_levels,
            });
        }
        Ok(ranges)
    }

    /// One batch: its records (and extras) appended bucket by bucket;
    /// returns how many went into each bucket, and the levels of the
    /// translucent and shell buckets.
    fn pack_batch(
        &mut self,
        b: usize,
        batch: &Md2Batch<'_>,
        previous: Option<&[Md2Previous]>,
        options: PackOptions,
        report: &mut PrepareReport,
    ) -> Result<([u32; BUCKETS], [usize; 2]), PrepareError> {
        let model = batch.model;
        let levels = model.model_levels();
        let start = self.records.len();
        let mut count = [0u32; BUCKETS];
        // The finest level any translucent instance (shell) needs.
        let mut sorted_levels = [usize::MAX; 2];
        self.given.clear();
        self.given_extras.clear();
        self.given_levels.clear();
        for (i, instance) in batch.instances.iter().enumerate() {
            let policy = options.policy;
            let packed = pack(
                instance,
                model.frame_count(),
                model.skin_count(),
                policy,
                b,
                i,
            );
            let (record, mut problem) = match packed {
                Packed::Good(record) => (record, None),
                Packed::Clamped(record, problem) => (record, Some(problem)),
                Packed::Refused(problem) => {
                    if policy == InstancePolicy::Strict {
                        return Err(problem.into());
                    }
                    report.note(problem, true);
                    continue;
                }
            };
            if options.extras {
                let earlier = previous.map(|p| &p[i]);
                let extra =
                    match pack_previous(&record, earlier, model.frame_count(), instance.id, b, i) {
                        Ok(extra) => extra,
                        Err(previous_problem) => {
                            if policy == InstancePolicy::Strict {
                                return Err(previous_problem.into());
                            }
                            if policy == InstancePolicy::Skip {
                                report.note(previous_problem, true);
                                continue;
                            }
                            // Clamp: as if the previous frame had shown this
                            // one (no motion but the camera's); the instance is
                            // reported once, with its first problem.
                            problem.get_or_insert(previous_problem);
                            unmoved_extra(&record, i, instance.id)
                        }
                    };
                self.given_extras.push(extra);
            }
            if let Some(problem) = problem {
                report.note(problem, false);
            }
            let level = match batch.level {
                Some(level) => level.min(levels.count - 1),
                None => choose(&options.levels, &levels, &record.rows),
            };
            let buckets = Buckets::of(record.effects).at_level(level);
            count[buckets.main] += 1;
            if buckets.main == TRANSLUCENT {
                sorted_levels[0] = sorted_levels[0].min(level);
            }
            if let Some(shell) = buckets.shell {
                count[shell] += 1;
                sorted_levels[1] = sorted_levels[1].min(level);
            }
            self.given.push(record);
            self.given_levels.push(level as u8);
        }
        // Bucket by bucket, each in the order given: every record goes to
        // the next free slot of its bucket (a shelled one to its main
        // bucket's and the shell bucket's), in one pass.
        let mut next = [0usize; BUCKETS];
        let mut at = start;
        for (bucket, n) in count.iter().enumerate() {
            next[bucket] = at;
            at += *n as usize;
        }
        self.records.resize(at, InstanceRecord::zeroed());
        if options.extras {
            self.extras.resize(at, ExtraRecord::zeroed());
        }
        for (k, record) in self.given.iter().enumerate() {
            let b = Buckets::of(record.effects).at_level(usize::from(self.given_levels[k]));
            for bucket in std::iter::once(b.main).chain(b.shell) {
                self.records[next[bucket]] = *record;
                if options.extras {
                    self.extras[next[bucket]] = self.given_extras[k];
                }
                next[bucket] += 1;
            }
        }
        Ok((
            count,
            sorted_levels.map(|l| if l == usize::MAX { 0 } else { l }),
        ))
    }

    /// Sorts the records in `range` (and their extras) by view depth,
    /// farthest first; stable, so equal depths keep the order given.
    fn sort_back_to_front(&mut self, range: std::ops::Range<usize>, row: [f32; 4], extras: bool) {
        if !extras {
            self.records[range].sort_by_key(|r| depth_key(row, &r.rows));
            return;
        }
        self.sorting.clear();
        self.sorting.extend(
            self.records[range.clone()]
                .iter()
                .copied()
                .zip(self.extras[range.clone()].iter().copied()),
        );
        self.sorting.sort_by_key(|(r, _)| depth_key(row, &r.rows));
        for (k, (record, extra)) in self.sorting.iter().enumerate() {
            self.records[range.start + k] = *record;
            self.extras[range.start + k] = *extra;
        }
    }
}
