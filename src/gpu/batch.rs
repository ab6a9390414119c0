//! A model and the instances to draw of it this frame, and how a frame's
//! batches pack into one instance buffer, each batch's records grouped by
//! the draw that reads them.

use super::camera::depth_key;
use super::error::{PrepareError, PrepareReport};
use super::instance::{Buckets, Md2Instance, Packed, SHELL, TRANSLUCENT, pack};
use super::model::GpuModel;
use super::options::InstancePolicy;
use super::shader::{BUCKETS, InstanceRecord};

/// One model and the instances to draw of it: the input to
/// [`Md2Renderer::prepare`](crate::Md2Renderer::prepare).
#[derive(Clone, Copy, Debug)]
pub struct Md2Batch<'a> {
    /// The model.
    pub model: &'a GpuModel,
    /// Its instances this frame.
    pub instances: &'a [Md2Instance],
    /// The level of detail every instance of the batch is drawn at (see
    /// [`GpuModel::levels`]): 0, full detail, unless set; past the model's
    /// coarsest level, its coarsest. Instances at different levels go in
    /// different batches, one draw per batch and effect as ever.
    pub level: usize,
}

impl<'a> Md2Batch<'a> {
    /// `instances` of `model`, at full detail.
    pub fn new(model: &'a GpuModel, instances: &'a [Md2Instance]) -> Md2Batch<'a> {
        Md2Batch {
            model,
            instances,
            level: 0,
        }
    }

    /// The same batch drawn at level of detail `level` (see
    /// [`Md2Batch::level`]); [`GpuModel::coarsest_level_within`] picks one
    /// by error.
    pub fn at_level(self, level: usize) -> Md2Batch<'a> {
        Md2Batch { level, ..self }
    }
}

impl<'a> From<(&'a GpuModel, &'a [Md2Instance])> for Md2Batch<'a> {
    fn from((model, instances): (&'a GpuModel, &'a [Md2Instance])) -> Self {
        Md2Batch::new(model, instances)
    }
}

/// Where one batch's records lie in the packed list, bucket by bucket (see
/// [`Buckets`]): opaque, opaque mirrored, translucent, shell. Shelled
/// instances have a record in their main bucket and one in the shell
/// bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ranges {
    pub first: [u32; BUCKETS],
    pub count: [u32; BUCKETS],
}

/// Packs every batch's instances into `packed` (cleared first), each batch
/// bucket by bucket, each bucket in the order given, and returns the
/// batches' ranges. With `back_to_front` (the view's depth row), the
/// translucent and shell buckets are then sorted by the view depth of each
/// instance's origin, farthest first, ties in the order given (the crowd's
/// GPU sort uses the same key). `scratch` is reused memory.
pub(crate) fn pack_batches(
    batches: &[Md2Batch<'_>],
    policy: InstancePolicy,
    back_to_front: Option<[f32; 4]>,
    packed: &mut Vec<InstanceRecord>,
    scratch: &mut Vec<InstanceRecord>,
    report: &mut PrepareReport,
) -> Result<Vec<Ranges>, PrepareError> {
    packed.clear();
    let mut ranges = Vec::with_capacity(batches.len());
    for (b, batch) in batches.iter().enumerate() {
        let model = batch.model;
        let start = packed.len();
        let mut count = [0u32; BUCKETS];
        for (i, instance) in batch.instances.iter().enumerate() {
            let record = match pack(
                instance,
                model.frame_count,
                model.skin_count(),
                policy,
                b,
                i,
            ) {
                Packed::Good(record) => record,
                Packed::Clamped(record, problem) => {
                    report.note(problem, false);
                    record
                }
                Packed::Refused(problem) => {
                    if policy == InstancePolicy::Strict {
                        return Err(problem.into());
                    }
                    report.note(problem, true);
                    continue;
                }
            };
            let buckets = Buckets::of(record.effects);
            count[buckets.main] += 1;
            if let Some(shell) = buckets.shell {
                count[shell] += 1;
            }
            packed.push(record);
        }
        // The common case, every record opaque with the model's winding and
        // no shell, is already in order.
        let in_order = count[1..].iter().all(|&c| c == 0);
        if !in_order {
            scratch.clear();
            scratch.extend(packed.drain(start..));
            for bucket in 0..BUCKETS {
                packed.extend(scratch.iter().filter(|r| {
                    let b = Buckets::of(r.effects);
                    b.main == bucket || b.shell == Some(bucket)
                }));
            }
        }
        let mut first = [0u32; BUCKETS];
        let mut at = start as u32;
        for bucket in 0..BUCKETS {
            first[bucket] = at;
            at += count[bucket];
        }
        if let Some(row) = back_to_front {
            for bucket in [TRANSLUCENT, SHELL] {
                let range = first[bucket] as usize..(first[bucket] + count[bucket]) as usize;
                // Stable: equal depths keep the order given.
                packed[range].sort_by_key(|r| depth_key(row, &r.rows));
            }
        }
        ranges.push(Ranges { first, count });
    }
    Ok(ranges)
}
