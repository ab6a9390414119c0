//! What one view keeps of one crowd: the visible records its compute passes
//! write, the work buffer they count and sort in (with the draw arguments at
//! its start), and the draws that read them.

use super::layout::CrowdLayout;
use super::md2_crowd::Md2Crowd;
use super::pipelines::{CrowdPipelines, view_group};
use crate::contract::crowd::{SEEN, SORT_BLOCK, SORT_WORKGROUP, WORKGROUP_SIZE};
use crate::contract::{BUCKETS, InstanceRecord};
use crate::gpu::device::buffers::grow;
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::error::PrepareError;
use crate::gpu::model::DrawModel;

const RECORD: u64 = size_of::<InstanceRecord>() as u64;
/// One `DrawIndexedIndirectArgs`.
pub(crate) const ARGS: u64 = 20;
/// Dispatches are at most this many workgroups wide (WebGPU's
/// `maxComputeWorkgroupsPerDimension`); larger ones add rows.
const MAX_GROUPS_X: u32 = 65535;

/// The `SEEN` word of a view that has not drawn the crowd yet: nothing it
/// shows has moved.
const NOT_SEEN: u32 = u32::MAX;

#[derive(Debug)]
pub(crate) struct CrowdView {
    crowd_id: u64,
    /// Whether this view sorts translucent members and shells.
    sort: bool,
    /// Whether it writes the extra records (a material, motion vectors).
    extra: bool,
    /// The crowd's generation when this view last drew it, and what the
    /// work buffer's SEEN word holds.
    seen: u32,
    seen_written: Option<u32>,
    records: Option<wgpu::Buffer>,
    work: Option<wgpu::Buffer>,
    group: Option<wgpu::BindGroup>,
    /// The crowd's own bind group, as of the last `fit`.
    crowd_group: Option<wgpu::BindGroup>,
    /// Of the crowd, as of the last `fit`.
    model: Option<DrawModel>,
    layout: CrowdLayout,
}

impl CrowdView {
    pub(crate) fn new(crowd: &Md2Crowd, sort: bool, extra: bool) -> CrowdView {
        CrowdView {
            crowd_id: crowd.id(),
            sort,
            extra,
            seen: NOT_SEEN,
            seen_written: None,
            records: None,
            work: None,
            group: None,
            crowd_group: None,
            model: None,
            layout: CrowdLayout::default(),
        }
    }

    pub(crate) fn crowd_id(&self) -> u64 {
        self.crowd_id
    }

    /// Makes room for every record and work word the crowd can need, takes
    /// the crowd's current layout, and writes which generation of its
    /// changes this view has seen; returns the view and the bytes written.
    pub(crate) fn fit(
        mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &Md2Cache,
        crowd: &Md2Crowd,
        frame: &wgpu::Buffer,
    ) -> Result<(CrowdView, u64), PrepareError> {
        let layout = crowd.layout();
        let copies = if self.extra { 2 } else { 1 };
        let records_needed = copies * layout.records(self.sort).max(1) * RECORD;
        let work_needed = layout.work_words(self.sort) * 4;
        let limits = device.limits();
        let cap = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let device_error = |operation| move |message| PrepareError::Device { operation, message };
        // A view that sorts keeps its sorted buckets' records twice.
        for bytes in [records_needed, work_needed] {
            if bytes > cap {
                return Err(PrepareError::TooManyInstances {
                    instances: layout.records(self.sort) as usize,
                    bytes,
                    limit: cap,
                });
            }
        }
        let mut rebind = false;
        if self
            .records
            .as_ref()
            .is_none_or(|b| b.size() < records_needed)
        {
            self.records = Some(
                grow(
                    device,
                    "md2-wgpu crowd visible records",
                    records_needed,
                    64 * RECORD,
                    cap / RECORD * RECORD,
                    wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::VERTEX
                        | wgpu::BufferUsages::COPY_SRC,
                )
                .map_err(device_error("growing a view's crowd records"))?,
            );
            rebind = true;
        }
        if self.work.as_ref().is_none_or(|b| b.size() < work_needed) {
            self.seen_written = None;
            self.work = Some(
                grow(
                    device,
                    "md2-wgpu crowd work",
                    work_needed,
                    1024,
                    cap / 4 * 4,
                    wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::INDIRECT
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                )
                .map_err(device_error("growing a view's crowd work buffer"))?,
            );
            rebind = true;
        }
        if rebind || self.group.is_none() {
            let (Some(records), Some(work)) = (&self.records, &self.work) else {
                unreachable!("both buffers were just made");
            };
            let steps = &cache.crowd_pipelines(device).steps;
            self.group = Some(view_group(
                device,
                cache.layouts(),
                frame,
                records,
                work,
                steps,
            ));
        }
        self.crowd_group = Some(crowd.group().clone());
        if self.model.is_none() {
            self.model = Some(crowd.draw_model().clone());
        }
        self.layout = layout;
        let mut written = 0;
        if let (true, Some(work)) = (self.extra, &self.work)
            && self.seen_written != Some(self.seen)
        {
            queue.write_buffer(work, u64::from(SEEN) * 4, bytemuck::bytes_of(&self.seen));
            self.seen_written = Some(self.seen);
            written += 4;
        }
        // What the next frame will have seen.
        self.seen = crowd.generation();
        Ok((self, written))
    }

    /// Records this crowd's passes: classify, scan, emit, and the sort of
    /// each non-empty sorted bucket where the view sorts.
    pub(crate) fn record(&self, pass: &mut wgpu::ComputePass<'_>, pipelines: &CrowdPipelines) {
        let (Some(group), Some(crowd_group)) = (&self.group, &self.crowd_group) else {
            return;
        };
        let layout = &self.layout;
        pass.set_bind_group(1, crowd_group, &[]);
        pass.set_bind_group(2, group, &[0]);
        pass.set_pipeline(&pipelines.classify);
        dispatch(pass, layout.groups);
        // Also for an empty crowd: it zeroes the draw counts.
        pass.set_pipeline(&pipelines.scan);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&pipelines.emit);
        dispatch(pass, layout.groups);
        if !self.sort {
            return;
        }
        for region in 0..2u32 {
            let size = layout.sort_size[region as usize];
            if size == 0 {
                continue;
            }
            for (step, offset) in pipelines.steps.sort(region, size) {
                pass.set_bind_group(2, group, &[offset]);
                if step.k == 0 || step.j == 0 {
                    pass.set_pipeline(&pipelines.sort_block);
                    dispatch(pass, size / SORT_BLOCK);
                } else {
                    // One invocation per pair of keys.
                    pass.set_pipeline(&pipelines.sort_step);
                    dispatch(pass, size / 2 / SORT_WORKGROUP);
                }
            }
            let bucket = layout.sorted_bucket(region);
            pass.set_bind_group(2, group, &[pipelines.steps.region(region)]);
            pass.set_pipeline(&pipelines.gather);
            dispatch(pass, layout.counts[bucket].div_ceil(WORKGROUP_SIZE));
        }
    }

    /// Whether `bucket` can have records.
    pub(crate) fn draws_any(&self, bucket: usize) -> bool {
        self.records.is_some() && self.layout.counts[bucket] > 0
    }

    /// The indirect draw of `bucket` (with the reversed index list where
    /// `reversed`); returns how many draws it recorded (0 or 1).
    pub(crate) fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        bucket: usize,
        reversed: bool,
    ) -> u64 {
        let (Some(records), Some(work), Some(model)) = (&self.records, &self.work, &self.model)
        else {
            return 0;
        };
        let count = self.layout.counts[bucket];
        if count == 0 {
            return 0;
        }
        let start = u64::from(self.layout.bases[bucket]) * RECORD;
        let bytes = u64::from(count) * RECORD;
        model.bind(pass, reversed);
        pass.set_vertex_buffer(1, records.slice(start..start + bytes));
        if self.extra {
            // The extra records lie after every record, in the same order.
            let extras = start + self.extra_base() * RECORD;
            pass.set_vertex_buffer(2, records.slice(extras..extras + bytes));
        }
        pass.draw_indexed_indirect(work, bucket as u64 * ARGS);
        1
    }

    /// Where this view's extra records start among its records.
    pub(crate) fn extra_base(&self) -> u64 {
        self.layout.records(self.sort)
    }

    /// The visible records and the work buffer (draw arguments first), with
    /// the buckets' bases, for tests that read them back and for the
    /// renderer's counts.
    pub(crate) fn buffers(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer, [u32; BUCKETS])> {
        Some((
            self.records.as_ref()?,
            self.work.as_ref()?,
            self.layout.bases,
        ))
    }
}

/// `groups` workgroups, in rows of at most [`MAX_GROUPS_X`] (the shaders
/// number them row by row and ignore those past the end).
fn dispatch(pass: &mut wgpu::ComputePass<'_>, groups: u32) {
    if groups == 0 {
        return;
    }
    let x = groups.min(MAX_GROUPS_X);
    pass.dispatch_workgroups(x, groups.div_ceil(x), 1);
}
