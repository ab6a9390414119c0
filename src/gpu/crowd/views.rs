//! What one renderer (one view) keeps of the crowds it draws: a
//! [`CrowdView`] per crowd, the crowds' per-view uniform (the time), the
//! previous frame's time for motion, and the visible counts read back
//! without waiting. The renderer delegates `prepare_crowds` and the
//! crowds' draws here.

use std::future::Future;

use super::counts::{VisibleCounts, VisibleMembers};
use super::md2_crowd::Md2Crowd;
use super::view::{CrowdView, Parent};
use crate::contract::crowd::CrowdFrame;
use crate::contract::{FRAME_EXTRA, FRAME_FIRST, FRAME_SORT};
use crate::gpu::device::buffers::write_changed;
use crate::gpu::device::submit::Submit;
use crate::gpu::error::PrepareError;

/// How a view draws its crowds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ViewKind {
    /// It sorts translucent members and shells back to front.
    pub sort: bool,
    /// It draws the extra records (a material that reads them, motion).
    pub extra: bool,
}

/// One view's state of every crowd it draws.
#[derive(Debug, Default)]
pub(crate) struct CrowdViews {
    views: Vec<CrowdView>,
    /// Last frame's views, kept to reuse the memory of the list.
    spare: Vec<CrowdView>,
    /// The crowds' per-view uniform (the time), made on first use.
    frame: Option<wgpu::Buffer>,
    frame_written: Option<CrowdFrame>,
    /// The time of the last `prepare`, in ticks, where the view draws
    /// motion.
    previous_time: Option<i64>,
    /// Visible-member counts read back without waiting, once asked for.
    counts: Option<VisibleCounts>,
    /// `prepare` calls so far.
    frames: u64,
    /// The crowds of this `prepare` so far, by id: where a crowd that
    /// rides another finds what its attach pass binds of its parent and
    /// root.
    seen: Vec<(u64, Parent)>,
}

impl CrowdViews {
    /// Records the compute passes of `crowds` at `time` (seconds) into
    /// `encoder`, after uploading their changes; returns the bytes
    /// written. `camera_group` is the view's uniform as the passes' group 0.
    pub(crate) fn prepare<'c>(
        &mut self,
        gpu: Submit<'_>,
        encoder: &mut wgpu::CommandEncoder,
        camera_group: &wgpu::BindGroup,
        kind: ViewKind,
        time: f64,
        crowds: impl IntoIterator<Item = &'c mut Md2Crowd>,
    ) -> Result<u64, PrepareError> {
        let Submit {
            device,
            queue,
            cache,
        } = gpu;
        let now = crate::anim::clock::to_ticks(time).ok_or(PrepareError::TimeNotFinite { time })?;
        self.frames += 1;
        let mut uploaded = 0;
        let mut flags = if kind.sort { FRAME_SORT } else { 0 };
        // The previous frame's time matters only where motion is drawn.
        let previous = match (kind.extra, self.previous_time) {
            (false, _) => 0,
            (true, Some(previous)) => previous,
            (true, None) => {
                flags |= FRAME_FIRST;
                now
            }
        };
        if kind.extra {
            flags |= FRAME_EXTRA;
            self.previous_time = Some(now);
        }
        let split = |ticks: i64| [ticks as u32, (ticks as u64 >> 32) as u32];
        let frame = CrowdFrame {
            now: split(now),
            flags,
            previous: split(previous),
            ..Default::default()
        };
        let frame_buffer = self.frame.get_or_insert_with(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("md2-wgpu crowd frame"),
                size: size_of::<CrowdFrame>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        uploaded += write_changed(queue, frame_buffer, self.frame_written.as_ref(), &frame);
        self.frame_written = Some(frame);
        let frame_buffer = frame_buffer.clone();
        let mut views = std::mem::take(&mut self.spare);
        views.clear();
        self.seen.clear();
        for (position, crowd) in crowds.into_iter().enumerate() {
            uploaded += crowd.flush(device, queue, time, kind.extra)?;
            let parent = match crowd.attachment() {
                Some(attachment) => Some(
                    self.seen
                        .iter()
                        .find(|(id, _)| *id == attachment.parent())
                        .map(|(_, parent)| parent.clone())
                        .ok_or(PrepareError::ParentCrowdMissing { crowd: position })?,
                ),
                None => None,
            };
            let view = match self.views.iter().position(|v| v.crowd_id() == crowd.id()) {
                Some(i) => self.views.swap_remove(i),
                None => CrowdView::new(crowd, kind.sort, kind.extra),
            };
            let (view, written) =
                view.fit(device, queue, cache, crowd, &frame_buffer, parent.as_ref())?;
            // A root's riders are placed where its own passes in this view
            // found it: they bind its work buffer.
            let root_work = match (&parent, view.work_buffer()) {
                (Some(parent), _) => parent.root_work.clone(),
                (None, Some(work)) => work.clone(),
                (None, None) => unreachable!("fit makes the work buffer"),
            };
            let seen = Parent {
                members: crowd.member_buffer().clone(),
                params: crowd.params_buffer().clone(),
                root_work,
            };
            self.seen.push((crowd.id(), seen));
            uploaded += written;
            views.push(view);
        }
        self.spare = std::mem::replace(&mut self.views, views);
        let pipelines = cache.crowd_pipelines(device);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("md2-wgpu crowd pass"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, camera_group, &[]);
            // In the order given: a rider after its parent and its root,
            // whose passes decided whether it is in view.
            for view in &self.views {
                view.record(&mut pass, pipelines);
            }
        }
        if let Some(counts) = &mut self.counts {
            counts.record(device, encoder, &self.views);
        }
        Ok(uploaded)
    }

    /// Draws no crowd until the next `prepare` (the last one failed
    /// half-way), and forgets what the views had: the next `prepare`
    /// makes them anew.
    pub(crate) fn forget(&mut self) {
        self.views.clear();
        self.spare.clear();
        self.seen.clear();
        self.frame_written = None;
        self.counts = None;
    }

    /// Forgets the previous frame's time: the next frame shows no motion
    /// of the crowds' clocks.
    pub(crate) fn reset_motion(&mut self) {
        self.previous_time = None;
    }

    /// The views of the last `prepare`, in the order the crowds were given.
    pub(crate) fn views(&self) -> &[CrowdView] {
        &self.views
    }

    /// Whether any crowd can have records in one of `buckets`.
    pub(crate) fn draws_any(&self, buckets: &[(usize, bool)]) -> bool {
        self.views
            .iter()
            .any(|v| buckets.iter().any(|&(k, _)| v.draws_any(k)))
    }

    /// Records every crowd's indirect draws of `buckets`; returns how many.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, buckets: &[(usize, bool)]) -> u64 {
        let mut draws = 0;
        for view in &self.views {
            for &(bucket, reversed) in buckets {
                draws += view.draw(pass, bucket, reversed);
            }
        }
        draws
    }

    /// The visible counts of the last `prepare`, read back (see
    /// `Md2Renderer::visible_members`).
    pub(crate) fn read_visible(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> impl Future<Output = Result<VisibleMembers, String>> + use<> {
        VisibleCounts::read(device, queue, &self.views, self.frames)
    }

    /// The newest visible counts mapped so far; the first call starts the
    /// counting (see `VisibleMembers::recent`).
    pub(crate) fn recent(&mut self, device: &wgpu::Device) -> Option<VisibleMembers> {
        match &mut self.counts {
            Some(counts) => counts.latest(device),
            None => {
                self.counts = Some(VisibleCounts::default());
                None
            }
        }
    }
}
