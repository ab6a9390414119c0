//! A crowd's records on the GPU: the member buffer, written only where a
//! member changed (and, of a changed member, only the bytes that changed),
//! the parameters, written when they change, and the bind group over both
//! and the motion records.

use super::motion::Motion;
use crate::contract::crowd::{CrowdParams, MemberRecord};
use crate::gpu::device::buffers::{grow, write_changed};
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::error::PrepareError;

const MEMBER: u64 = size_of::<MemberRecord>() as u64;
/// The member buffer's first size, in members.
const MIN_MEMBERS: u64 = 64;

/// What of the member records is on the GPU, and what is still to write.
#[derive(Debug)]
pub(crate) struct Uploads {
    /// Dense indices changed since the last flush (each listed once), and
    /// per index the bytes of its record to write (empty: not listed).
    dirty: Vec<u32>,
    dirty_bytes: Vec<(u8, u8)>,
    /// Every record must be written (after the buffer grew).
    all_dirty: bool,
    members: wgpu::Buffer,
    params: wgpu::Buffer,
    params_written: Option<CrowdParams>,
    group: wgpu::BindGroup,
}

impl Uploads {
    /// Buffers for a few members, and the group over them and `motion`'s
    /// binding.
    pub fn new(
        device: &wgpu::Device,
        cache: &Md2Cache,
        motion: &Motion,
    ) -> Result<Uploads, String> {
        let members = member_buffer(device, MIN_MEMBERS * MEMBER)?;
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu crowd params"),
            size: size_of::<CrowdParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = crowd_group(device, cache, &members, &params, motion.binding());
        Ok(Uploads {
            dirty: Vec::new(),
            dirty_bytes: Vec::new(),
            all_dirty: false,
            members,
            params,
            params_written: None,
            group,
        })
    }

    /// The crowd's group 1: members, parameters, motion records.
    pub fn group(&self) -> &wgpu::BindGroup {
        &self.group
    }

    /// A member added at the end: its whole record is written.
    pub fn push(&mut self) {
        self.dirty_bytes.push((0, 0));
        self.mark(self.dirty_bytes.len() - 1, 0..MEMBER as usize);
    }

    /// Marks `bytes` of member `dense`'s record for the next flush.
    pub fn mark(&mut self, dense: usize, bytes: std::ops::Range<usize>) {
        let range = &mut self.dirty_bytes[dense];
        let (lo, hi) = (bytes.start as u8, bytes.end as u8);
        if *range == (0, 0) {
            *range = (lo, hi);
            self.dirty.push(dense as u32);
        } else {
            *range = (range.0.min(lo), range.1.max(hi));
        }
    }

    /// Member `i` removed; the last member takes its index (as the dense
    /// arrays' `swap_remove`), and its whole record is written there.
    pub fn swap_remove(&mut self, i: usize) {
        // Whether index `i` is in the dirty list stays as it was; the moved
        // member's old index, if listed, is now past the end (flush skips
        // it).
        let at_i = self.dirty_bytes.swap_remove(i);
        if i < self.dirty_bytes.len() {
            self.dirty_bytes[i] = at_i;
            self.mark(i, 0..MEMBER as usize);
        }
    }

    /// Every member gone.
    pub fn clear(&mut self) {
        self.dirty_bytes.clear();
        self.dirty.clear();
    }

    /// Room for `additional` more members.
    pub fn reserve(&mut self, additional: usize) {
        self.dirty.reserve(additional);
        self.dirty_bytes.reserve(additional);
    }

    /// Uploads what changed since the last flush: each changed member's
    /// changed bytes (one write for a run of consecutive wholly changed
    /// members), the motion records (grown to fit where a view draws
    /// `with_motion`), and the parameters `params` makes of the motion's
    /// generation, if they changed. Grows the member buffer when the crowd
    /// outgrew it (then every member is written once). Returns the bytes
    /// written.
    #[allow(clippy::too_many_arguments)]
    pub fn flush(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &Md2Cache,
        records: &[MemberRecord],
        motion: &mut Motion,
        with_motion: bool,
        now: f64,
        params: impl FnOnce(u32) -> CrowdParams,
    ) -> Result<u64, PrepareError> {
        let mut written = 0;
        let device_error = |message| PrepareError::Device {
            operation: "growing a crowd",
            message,
        };
        let needed = records.len() as u64 * MEMBER;
        let mut regroup = false;
        if needed > self.members.size() {
            self.members = member_buffer(device, needed).map_err(device_error)?;
            self.all_dirty = true;
            regroup = true;
        }
        regroup |= motion.fit(device, with_motion).map_err(device_error)?;
        if regroup {
            self.group = crowd_group(device, cache, &self.members, &self.params, motion.binding());
        }
        if self.all_dirty {
            queue.write_buffer(&self.members, 0, bytemuck::cast_slice(records));
            written += needed;
            self.all_dirty = false;
        } else if !self.dirty.is_empty() {
            written += self.write_dirty(queue, records);
        }
        for &i in &self.dirty {
            if let Some(range) = self.dirty_bytes.get_mut(i as usize) {
                *range = (0, 0);
            }
        }
        self.dirty.clear();
        written += motion.flush(queue, now);
        let params = params(motion.generation());
        written += write_changed(queue, &self.params, self.params_written.as_ref(), &params);
        self.params_written = Some(params);
        Ok(written)
    }

    /// Writes the dirty bytes of `records`; returns how many.
    fn write_dirty(&mut self, queue: &wgpu::Queue, records: &[MemberRecord]) -> u64 {
        let mut written = 0;
        // An index can be listed twice (removed past the end, then added
        // again), and be past the end.
        self.dirty.sort_unstable();
        self.dirty.dedup();
        let len = records.len() as u32;
        self.dirty.retain(|&i| i < len);
        let whole = (0u8, MEMBER as u8);
        let mut k = 0;
        while k < self.dirty.len() {
            let start = self.dirty[k] as usize;
            let bytes = self.dirty_bytes[start];
            k += 1;
            let mut end = start + 1;
            if bytes == whole {
                while k < self.dirty.len()
                    && self.dirty[k] as usize == end
                    && self.dirty_bytes[end] == whole
                {
                    end += 1;
                    k += 1;
                }
            }
            let run: &[u8] = bytemuck::cast_slice(&records[start..end]);
            let (lo, hi) = (usize::from(bytes.0), usize::from(bytes.1));
            let run = &run[lo..run.len() - (MEMBER as usize - hi)];
            queue.write_buffer(&self.members, start as u64 * MEMBER + lo as u64, run);
            written += run.len() as u64;
        }
        written
    }
}

fn member_buffer(device: &wgpu::Device, bytes: u64) -> Result<wgpu::Buffer, String> {
    grow(
        device,
        "md2-wgpu crowd members",
        bytes,
        MIN_MEMBERS * MEMBER,
        device.limits().max_buffer_size / MEMBER * MEMBER,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    )
}

fn crowd_group(
    device: &wgpu::Device,
    cache: &Md2Cache,
    members: &wgpu::Buffer,
    params: &wgpu::Buffer,
    motions: &wgpu::Buffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("md2-wgpu crowd bind group"),
        layout: &cache.layouts().crowd,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: members.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: motions.as_entire_binding(),
            },
        ],
    })
}
