//! A view's passes in order, and the sort of its translucent and shell
//! records back to front, for a host: md2-wgpu's bitonic sort dispatches
//! one pass per step, each picking its step (`SortStep`: the sequence
//! length `k`, the distance `j`, the bucket) from a table at a dynamic
//! offset, as WebGPU has no push constants; [`CrowdSortSteps`] is that
//! table, [`CrowdLayout::dispatches`] the passes.

use super::layout::CrowdLayout;
use crate::contract::crowd::{SORT_BLOCK, SORT_WORKGROUP, SortStep, WORKGROUP_SIZE};
use crate::contract::entry;

/// The pass that sorts each block of 512 keys of a sorted bucket (and
/// merges blocks once the global steps are done).
pub const SORT_BLOCK_ENTRY: &str = entry::CS_SORT_BLOCK;
/// One global step of the bitonic sort: one invocation per pair of keys.
pub const SORT_STEP_ENTRY: &str = entry::CS_SORT_STEP;
/// The pass that copies a sorted bucket's records into its place, in key
/// order.
pub const GATHER_ENTRY: &str = entry::CS_GATHER;

/// Every step of a bitonic sort of up to 2³¹ keys, for both sorted buckets
/// (translucent, shell), one 16-byte step per `stride` bytes (the device's
/// `min_uniform_buffer_offset_alignment`): a host uploads
/// [`bytes`](Self::bytes) once as a uniform buffer and binds it as the
/// passes' sort step (group 2, binding 3) at each dispatch's
/// [`CrowdDispatch::step_offset`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrowdSortSteps {
    bytes: Vec<u8>,
    stride: u64,
    /// Steps of one bucket in the table.
    per_region: u64,
}

impl CrowdSortSteps {
    /// The largest sorted bucket: 2^31 keys.
    const MAX_LOG: u32 = 31;

    /// The steps of one bucket's sort, in table order: the block sort
    /// (`k == 0`), then for each sequence length `k` from 2 × SORT_BLOCK up
    /// to the size, the global steps `j = k/2 .. SORT_BLOCK` and the block
    /// merge (`j == 0`).
    fn table(region: u32, log_size: u32) -> impl Iterator<Item = SortStep> {
        let first = SORT_BLOCK.trailing_zeros() + 1;
        let block = std::iter::once(SortStep {
            region,
            ..SortStep::default()
        });
        let merges = (first..=log_size).flat_map(move |log_k| {
            let k = 1u32 << log_k;
            let global = (SORT_BLOCK.trailing_zeros()..log_k)
                .rev()
                .map(move |log_j| SortStep {
                    k,
                    j: 1 << log_j,
                    region,
                    _pad: 0,
                });
            global.chain(std::iter::once(SortStep {
                k,
                j: 0,
                region,
                _pad: 0,
            }))
        });
        block.chain(merges)
    }

    /// The table for a device whose uniform offsets align to
    /// `uniform_offset_alignment` bytes (its
    /// `min_uniform_buffer_offset_alignment`; at least 16 is used).
    pub fn new(uniform_offset_alignment: u32) -> CrowdSortSteps {
        let stride = u64::from(uniform_offset_alignment).max(size_of::<SortStep>() as u64);
        let steps: Vec<SortStep> = (0..2)
            .flat_map(|region| CrowdSortSteps::table(region, CrowdSortSteps::MAX_LOG))
            .collect();
        let mut bytes = vec![0u8; steps.len() * stride as usize];
        for (i, step) in steps.iter().enumerate() {
            let at = i * stride as usize;
            bytes[at..at + size_of::<SortStep>()].copy_from_slice(bytemuck::bytes_of(step));
        }
        CrowdSortSteps {
            bytes,
            stride,
            per_region: (steps.len() / 2) as u64,
        }
    }

    /// The uniform buffer's contents.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The steps that sort `region`'s `size` keys (a power of two, at least
    /// SORT_BLOCK), each with its dynamic offset.
    pub(crate) fn sort(
        &self,
        region: u32,
        size: u32,
    ) -> impl Iterator<Item = (SortStep, u32)> + '_ {
        let log_size = size.trailing_zeros();
        CrowdSortSteps::table(region, log_size)
            .enumerate()
            .map(move |(i, step)| {
                let index = u64::from(region) * self.per_region + i as u64;
                (step, (index * self.stride) as u32)
            })
    }

    /// The dynamic offset of `region`'s first step, for the passes that
    /// read only its region (and offset 0 for those that read nothing).
    pub(crate) fn region(&self, region: u32) -> u32 {
        self.sort(region, SORT_BLOCK).next().map_or(0, |(_, at)| at)
    }
}

/// One dispatch of a view's crowd passes ([`CrowdLayout::dispatches`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrowdDispatch {
    /// The entry point of [`CROWD_PASSES_WGSL`](super::CROWD_PASSES_WGSL).
    pub entry: &'static str,
    /// Workgroups, dispatched `(x, y, 1)` with `x` at most 65,535 (the
    /// passes number them row by row and ignore those past the end).
    pub workgroups: u32,
    /// The sort step's dynamic offset (group 2, binding 3): 0 outside the
    /// sort.
    pub step_offset: u32,
}

impl CrowdLayout {
    /// A view's passes, in order, in one compute pass: `cs_classify`,
    /// `cs_scan` (also for an empty crowd: it zeroes the draw counts) and
    /// `cs_emit`; and where the view draws translucent members and shells
    /// back to front (`sort`: the sort steps' table; its frame
    /// [`CrowdFrame::sorted`](super::CrowdFrame::sorted), its buffers
    /// [`sorted_record_bytes`](Self::sorted_record_bytes) and
    /// [`sorted_work_bytes`](Self::sorted_work_bytes), its
    /// [`sort_words`](Self::sort_words) written), each non-empty sorted
    /// bucket's sort steps and its gather. A view that draws in member
    /// order passes `None`.
    pub fn dispatches(&self, sort: Option<&CrowdSortSteps>) -> Vec<CrowdDispatch> {
        let pass = |entry, workgroups, step_offset| CrowdDispatch {
            entry,
            workgroups,
            step_offset,
        };
        let mut out = vec![
            pass(entry::CS_CLASSIFY, self.groups, 0),
            pass(entry::CS_SCAN, 1, 0),
            pass(entry::CS_EMIT, self.groups, 0),
        ];
        let Some(steps) = sort else {
            return out;
        };
        for region in 0..2u32 {
            let size = self.sort_size[region as usize];
            if size == 0 {
                continue;
            }
            for (step, offset) in steps.sort(region, size) {
                out.push(if step.k == 0 || step.j == 0 {
                    pass(SORT_BLOCK_ENTRY, size / SORT_BLOCK, offset)
                } else {
                    pass(SORT_STEP_ENTRY, size / 2 / SORT_WORKGROUP, offset)
                });
            }
            let sorted = self.sorted[region as usize];
            out.push(pass(
                GATHER_ENTRY,
                sorted.div_ceil(WORKGROUP_SIZE),
                steps.region(region),
            ));
        }
        out
    }
}
