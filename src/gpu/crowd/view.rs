//! What one view keeps of one crowd: the visible records its compute passes
//! write, the work buffer they count and sort in (with the draw arguments at
//! its start, and each bucket's draw words), and the draws that read them.

use super::md2_crowd::Md2Crowd;
use crate::contract::crowd::{DRAW_STRIDE, DRAWS, EXTRA_BASE, SEEN, SORT_LAYOUT};
use crate::contract::entry;
use crate::crowd::CrowdLayout;
use crate::gpu::device::buffers::grow;
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::device::crowd_pipelines::{CrowdPipelines, attach_groups, draw_group, view_group};
use crate::gpu::error::PrepareError;
use crate::gpu::model::DrawModel;

/// Bytes of a record word.
const WORD: u64 = 4;
/// One `DrawIndexedIndirectArgs`.
pub(crate) const ARGS: u64 = 20;
/// Dispatches are at most this many workgroups wide (WebGPU's
/// `maxComputeWorkgroupsPerDimension`); larger ones add rows.
const MAX_GROUPS_X: u32 = 65535;

/// The `SEEN` word of a view that has not drawn the crowd yet: nothing it
/// shows has moved.
const NOT_SEEN: u32 = u32::MAX;

/// What a riding crowd's attach pass binds of the crowd it rides and of
/// the root of its tree, in one view.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Parent {
    pub members: wgpu::Buffer,
    pub params: wgpu::Buffer,
    /// The root crowd's work buffer in this view: whether its passes found
    /// each member in view.
    pub root_work: wgpu::Buffer,
}

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
    /// The draws' group 3 (each bucket's draw words, the records, the
    /// crowd's members), and the member buffer it was made with.
    draw_group: Option<(wgpu::BindGroup, wgpu::Buffer)>,
    /// Of a crowd that rides another on a tag: the attach pass's groups 1
    /// and 2, and what they were made with (the parent's and the root's
    /// buffers, the crowd's members).
    attach: Option<([wgpu::BindGroup; 2], (Parent, wgpu::Buffer))>,
    /// The layout words last written into the work buffer (extra base,
    /// sort layout), to write them again only where they change.
    layout_written: Option<(u32, [u32; 6])>,
    /// Of the crowd, as of the last `fit`, and the crowd's model's
    /// generation it is.
    model: Option<DrawModel>,
    model_generation: Option<u64>,
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
            draw_group: None,
            attach: None,
            layout_written: None,
            model: None,
            model_generation: None,
            layout: CrowdLayout::default(),
        }
    }

    pub(crate) fn crowd_id(&self) -> u64 {
        self.crowd_id
    }

    /// Makes room for every record and work word the crowd can need, takes
    /// the crowd's current layout, and writes which generation of its
    /// changes this view has seen; returns the view and the bytes written.
    /// `parent` is what the attach pass binds of the crowd this one rides
    /// and of its root, where it rides one.
    pub(crate) fn fit(
        mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &Md2Cache,
        crowd: &Md2Crowd,
        frame: &wgpu::Buffer,
        parent: Option<&Parent>,
    ) -> Result<(CrowdView, u64), PrepareError> {
        let layout = crowd.layout();
        let grown = self.grow(device, &layout)?;
        self.bind(device, cache, crowd, frame, grown);
        self.bind_attach(device, cache, crowd, frame, parent);
        if self.model_generation != Some(crowd.model_generation()) {
            self.model = Some(crowd.draw_model().clone());
            self.model_generation = Some(crowd.model_generation());
        }
        let written = self.write_words(queue, &layout);
        self.layout = layout;
        // What the next frame will have seen.
        self.seen = crowd.generation();
        Ok((self, written))
    }

    /// Grows the records and work buffers to what `layout` needs (refused
    /// past the device's storage binding size); whether either was made
    /// anew, so the groups that bind them must be too.
    fn grow(&mut self, device: &wgpu::Device, layout: &CrowdLayout) -> Result<bool, PrepareError> {
        let records_needed = layout.record_words(self.sort, self.extra).max(1) * WORD;
        let work_needed = layout.work_words(self.sort) * 4;
        let limits = device.limits();
        let cap = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let device_error = |operation| move |message| PrepareError::Device { operation, message };
        for bytes in [records_needed, work_needed] {
            if bytes > cap {
                return Err(PrepareError::TooManyInstances {
                    instances: layout.slots(self.sort) as usize,
                    bytes,
                    limit: cap,
                });
            }
        }
        let mut grown = false;
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
                    1024,
                    cap / WORD * WORD,
                    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                )
                .map_err(device_error("growing a view's crowd records"))?,
            );
            grown = true;
        }
        if self.work.as_ref().is_none_or(|b| b.size() < work_needed) {
            self.seen_written = None;
            self.layout_written = None;
            self.work = Some(
                grow(
                    device,
                    "md2-wgpu crowd work",
                    work_needed,
                    1024,
                    cap / 4 * 4,
                    // The draws read their bucket's draw words as a uniform.
                    wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::INDIRECT
                        | wgpu::BufferUsages::UNIFORM
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                )
                .map_err(device_error("growing a view's crowd work buffer"))?,
            );
            grown = true;
        }
        Ok(grown)
    }

    /// The compute passes' group and the draws' group, made anew where a
    /// buffer they bind was (`grown`) or the crowd's members moved.
    fn bind(
        &mut self,
        device: &wgpu::Device,
        cache: &Md2Cache,
        crowd: &Md2Crowd,
        frame: &wgpu::Buffer,
        grown: bool,
    ) {
        let (Some(records), Some(work)) = (&self.records, &self.work) else {
            unreachable!("grow makes both buffers");
        };
        if grown || self.group.is_none() {
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
        let members = crowd.member_buffer();
        if grown || self.draw_group.as_ref().is_none_or(|(_, m)| m != members) {
            let group = draw_group(device, cache.layouts(), work, records, members);
            self.draw_group = Some((group, members.clone()));
        }
    }

    /// The attach pass's groups, where the crowd rides another, made anew
    /// where a buffer they bind changed.
    fn bind_attach(
        &mut self,
        device: &wgpu::Device,
        cache: &Md2Cache,
        crowd: &Md2Crowd,
        frame: &wgpu::Buffer,
        parent: Option<&Parent>,
    ) {
        let (Some(attachment), Some(parent)) = (crowd.attachment(), parent) else {
            self.attach = None;
            return;
        };
        let members = crowd.member_buffer();
        let made_with = (parent.clone(), members.clone());
        if self
            .attach
            .as_ref()
            .is_none_or(|(_, with)| *with != made_with)
        {
            let groups = attach_groups(
                device,
                cache.layouts(),
                (&parent.members, &parent.params),
                (frame, &parent.root_work, members, attachment.tags()),
            );
            self.attach = Some((groups, made_with));
        }
    }

    /// This view's work buffer (after `fit`).
    pub(crate) fn work_buffer(&self) -> Option<&wgpu::Buffer> {
        self.work.as_ref()
    }

    /// Writes the work words that changed: where the extra records start
    /// and a sorting view's sort layout (a member's shell or translucency
    /// changes the room they need), and the generation this view has seen.
    /// The bytes written.
    fn write_words(&mut self, queue: &wgpu::Queue, layout: &CrowdLayout) -> u64 {
        let mut written = 0;
        let words = (
            if self.extra {
                layout.extra_base(self.sort) as u32
            } else {
                0
            },
            if self.sort {
                layout.sort_layout()
            } else {
                [0; 6]
            },
        );
        if let Some(work) = &self.work
            && self.layout_written != Some(words)
        {
            let old = self.layout_written;
            if old.is_none_or(|(base, _)| base != words.0) {
                queue.write_buffer(
                    work,
                    u64::from(EXTRA_BASE) * 4,
                    bytemuck::bytes_of(&words.0),
                );
                written += 4;
            }
            if old.is_none_or(|(_, sort)| sort != words.1) {
                queue.write_buffer(
                    work,
                    u64::from(SORT_LAYOUT) * 4,
                    bytemuck::cast_slice(&words.1),
                );
                written += 24;
            }
            self.layout_written = Some(words);
        }
        if let (true, Some(work)) = (self.extra, &self.work)
            && self.seen_written != Some(self.seen)
        {
            queue.write_buffer(work, u64::from(SEEN) * 4, bytemuck::bytes_of(&self.seen));
            self.seen_written = Some(self.seen);
            written += 4;
        }
        written
    }

    /// Records this crowd's passes: classify, scan, emit, and the sort of
    /// each non-empty sorted bucket where the view sorts.
    pub(crate) fn record(&self, pass: &mut wgpu::ComputePass<'_>, pipelines: &CrowdPipelines) {
        let (Some(group), Some(crowd_group)) = (&self.group, &self.crowd_group) else {
            return;
        };
        let layout = &self.layout;
        // A rider is placed first, where its root is in this view.
        if let Some(([parent, attach], _)) = &self.attach {
            pass.set_bind_group(1, parent, &[]);
            pass.set_bind_group(2, attach, &[]);
            pass.set_pipeline(&pipelines.attach);
            dispatch(pass, layout.groups);
        }
        pass.set_bind_group(1, crowd_group, &[]);
        let sort = self.sort.then_some(&pipelines.steps.table);
        for step in layout.dispatches(sort) {
            let pipeline = match step.entry {
                entry::CS_CLASSIFY => &pipelines.classify,
                entry::CS_SCAN => &pipelines.scan,
                entry::CS_EMIT => &pipelines.emit,
                entry::CS_SORT_BLOCK => &pipelines.sort_block,
                entry::CS_SORT_STEP => &pipelines.sort_step,
                _ => &pipelines.gather,
            };
            pass.set_bind_group(2, group, &[step.step_offset]);
            pass.set_pipeline(pipeline);
            dispatch(pass, step.workgroups);
        }
    }

    /// Whether `bucket` can have records.
    pub(crate) fn draws_any(&self, bucket: usize) -> bool {
        self.records.is_some() && self.layout.may_draw(bucket)
    }

    /// The indirect draw of `bucket` (with the reversed index list where
    /// `reversed`): its records' start is the draw words the compute
    /// passes wrote for it, bound at the bucket's dynamic offset. Returns
    /// how many draws it recorded (0 or 1).
    pub(crate) fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        bucket: usize,
        reversed: bool,
    ) -> u64 {
        let (Some((group, _)), Some(work), Some(model)) =
            (&self.draw_group, &self.work, &self.model)
        else {
            return 0;
        };
        if !self.layout.may_draw(bucket) {
            return 0;
        }
        model.bind(pass, reversed);
        let offset = (DRAWS + DRAW_STRIDE * bucket as u32) * 4;
        pass.set_bind_group(3, group, &[offset]);
        pass.draw_indexed_indirect(work, bucket as u64 * ARGS);
        1
    }

    /// The visible records, the work buffer (draw arguments first, each
    /// bucket's start in its draw words) and the crowd's member buffer, for
    /// tests that read them back and for the renderer's counts.
    pub(crate) fn buffers(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer, &wgpu::Buffer)> {
        Some((
            self.records.as_ref()?,
            self.work.as_ref()?,
            &self.draw_group.as_ref()?.1,
        ))
    }

    /// Bytes of GPU memory this view keeps of the crowd: its visible
    /// records and its work buffer.
    pub(crate) fn gpu_bytes(&self) -> u64 {
        self.records.as_ref().map_or(0, wgpu::Buffer::size)
            + self.work.as_ref().map_or(0, wgpu::Buffer::size)
    }

    /// Members of the crowd, as of the last `fit`.
    pub(crate) fn member_count(&self) -> u32 {
        self.layout.count
    }

    /// Where this view's extra records start among its records, in words.
    pub(crate) fn extra_base(&self) -> u64 {
        self.layout.extra_base(self.sort)
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
