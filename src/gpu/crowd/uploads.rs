//! A crowd's records on the GPU: the member buffer (the members, then the
//! crowd's clip table), written only where a member changed (and, of a
//! changed member, only the bytes that changed) or a clip was entered, the
//! parameters, written when they change, and the bind group over both and
//! the motion records.

use super::clips::ClipTable;
use super::motion::Motion;
use crate::contract::crowd::{CLIP_VEC4S, ClipRecord, CrowdParams, MEMBER_VEC4S, MemberRecord};
use crate::gpu::device::buffers::{buffer_init, grown_size, write_changed};
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::device::submit::Submit;
use crate::gpu::error::PrepareError;

/// A crowd's motion records at a flush: kept (and grown) only where a
/// view draws motion, their previous poses and transforms written at `now`.
pub(crate) struct MotionAt<'a> {
    pub motion: &'a mut Motion,
    pub drawn: bool,
    pub now: f64,
}

pub(crate) const MEMBER: u64 = size_of::<MemberRecord>() as u64;
const CLIP: u64 = size_of::<ClipRecord>() as u64;
// A clip is CLIP_VEC4S vec4s of the member buffer.
const _: () = assert!(CLIP == CLIP_VEC4S as u64 * 16);
/// The member buffer's first room, in members and in clips.
const MIN_MEMBERS: u64 = 64;
const MIN_CLIPS: u64 = 16;
/// Room for clips a crowd keeps however many members it has: a crowd's
/// most members leave this much of the storage binding to its clip table.
pub(crate) const RESERVED_CLIPS: u64 = 1024;

/// Room in a member buffer: members, then clips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Room {
    members: u64,
    clips: u64,
}

impl Room {
    fn bytes(self) -> u64 {
        self.members * MEMBER + self.clips * CLIP
    }

    /// Where the clip table starts, in `vec4`s.
    fn clips_at(self) -> u32 {
        (self.members * u64::from(MEMBER_VEC4S)) as u32
    }

    /// Room for `members` and `clips`, grown geometrically from `self`
    /// (or to exactly `reserved` members, where the app reserved room for
    /// at least as many) within `cap` bytes; `None` where they cannot fit.
    fn fit(self, members: u64, reserved: u64, clips: u64, cap: u64) -> Option<Room> {
        let clips = if clips <= self.clips {
            self.clips
        } else {
            clips.next_power_of_two().max(MIN_CLIPS)
        };
        let most = cap.checked_sub(clips * CLIP)? / MEMBER;
        let members = if members <= self.members {
            self.members
        } else if reserved >= members {
            reserved.min(most).max(members)
        } else {
            (grown_size(members * MEMBER) / MEMBER)
                .max(MIN_MEMBERS)
                .min(most)
        };
        (members * MEMBER + clips * CLIP <= cap && members >= 1).then_some(Room { members, clips })
    }
}

/// What of the member records is on the GPU, and what is still to write.
#[derive(Debug)]
pub(crate) struct Uploads {
    /// Dense indices changed since the last flush (each listed once), and
    /// per index the bytes of its record to write (empty: not listed).
    dirty: Vec<u32>,
    dirty_bytes: Vec<(u8, u8)>,
    /// Every record must be written (after the buffer grew).
    all_dirty: bool,
    /// Members the app reserved room for: the buffer grows to exactly this
    /// many where it must grow and they are enough.
    reserved: u64,
    members: wgpu::Buffer,
    room: Room,
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
        let room = Room {
            members: MIN_MEMBERS,
            clips: MIN_CLIPS,
        };
        let members = member_buffer(device, room.bytes())?;
        // Made mapped (zeroed), so a lost device is noticed here.
        let params = buffer_init(
            device,
            "md2-wgpu crowd params",
            &[0; size_of::<CrowdParams>()],
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        let group = crowd_group(device, cache, &members, &params, motion.binding());
        Ok(Uploads {
            dirty: Vec::new(),
            dirty_bytes: Vec::new(),
            all_dirty: false,
            reserved: 0,
            members,
            room,
            params,
            params_written: None,
            group,
        })
    }

    /// The crowd's group 1: members, parameters, motion records.
    pub fn group(&self) -> &wgpu::BindGroup {
        &self.group
    }

    /// Bytes of the member buffer and the parameters.
    pub fn gpu_bytes(&self) -> u64 {
        self.members.size() + self.params.size()
    }

    /// The parameters' uniform buffer.
    pub fn params(&self) -> &wgpu::Buffer {
        &self.params
    }

    /// The member buffer (members, then the clip table), which the
    /// resident draws read too.
    pub fn members(&self) -> &wgpu::Buffer {
        &self.members
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

    /// Room for `additional` more members, on the GPU too at the next
    /// flush that has to grow the buffer.
    pub fn reserve(&mut self, additional: usize) {
        self.dirty.reserve(additional);
        self.dirty_bytes.reserve(additional);
        self.reserved = (self.dirty_bytes.len() + additional) as u64;
    }

    /// Uploads what changed since the last flush: each changed member's
    /// changed bytes (one write for a run of consecutive wholly changed
    /// members), the clips entered since, the motion records (grown to fit
    /// where a view draws `with_motion`), and the parameters `params` makes
    /// of the clip table's place and the motion's generation, if they
    /// changed. Grows the member buffer when the crowd outgrew it (then
    /// every member and clip is written once). Returns the bytes written.
    pub fn flush(
        &mut self,
        gpu: Submit<'_>,
        records: &[MemberRecord],
        clips: &mut ClipTable,
        motion: MotionAt<'_>,
        params: impl FnOnce(u32, u32) -> CrowdParams,
    ) -> Result<u64, PrepareError> {
        let Submit {
            device,
            queue,
            cache,
        } = gpu;
        let MotionAt {
            motion,
            drawn: with_motion,
            now,
        } = motion;
        let mut written = 0;
        let device_error = |message| PrepareError::Device {
            operation: "growing a crowd",
            message,
        };
        let (members, clip_count) = (records.len() as u64, clips.capacity() as u64);
        let mut regroup = false;
        if members > self.room.members || clip_count > self.room.clips {
            let cap = binding_cap(device);
            let room = self
                .room
                .fit(members, self.reserved, clip_count, cap)
                .ok_or(PrepareError::TooManyInstances {
                    instances: records.len(),
                    bytes: members * MEMBER + clip_count * CLIP,
                    limit: cap,
                })?;
            self.members = member_buffer(device, room.bytes()).map_err(device_error)?;
            self.room = room;
            self.all_dirty = true;
            regroup = true;
        }
        regroup |= motion.fit(device, with_motion).map_err(device_error)?;
        if regroup {
            self.group = crowd_group(device, cache, &self.members, &self.params, motion.binding());
        }
        let clips_at = u64::from(self.room.clips_at()) * 16;
        if self.all_dirty {
            queue.write_buffer(&self.members, 0, bytemuck::cast_slice(records));
            let table: Vec<ClipRecord> = clips.records().collect();
            queue.write_buffer(&self.members, clips_at, bytemuck::cast_slice(&table));
            clips.take_fresh();
            written += members * MEMBER + clip_count * CLIP;
            self.all_dirty = false;
        } else {
            if !self.dirty.is_empty() {
                written += self.write_dirty(queue, records);
            }
            for (id, clip) in clips.take_fresh() {
                let at = clips_at + u64::from(id) * CLIP;
                queue.write_buffer(&self.members, at, bytemuck::bytes_of(&clip));
                written += CLIP;
            }
        }
        for &i in &self.dirty {
            if let Some(range) = self.dirty_bytes.get_mut(i as usize) {
                *range = (0, 0);
            }
        }
        self.dirty.clear();
        written += motion.flush(queue, now);
        let params = params(self.room.clips_at(), motion.generation());
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

/// The largest member buffer the device binds.
pub(crate) fn binding_cap(device: &wgpu::Device) -> u64 {
    let limits = device.limits();
    limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
}

fn member_buffer(device: &wgpu::Device, bytes: u64) -> Result<wgpu::Buffer, String> {
    // Exactly the room asked for: `Room::fit` grew it geometrically, and
    // the clip table's place follows from it.
    crate::gpu::device::buffers::grow(
        device,
        "md2-wgpu crowd members",
        bytes,
        bytes,
        bytes,
        // COPY_SRC: `low_level::read_crowd_records` reads members back.
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
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
