//! What the previous frame showed of each crowd member that changed since,
//! for motion vectors: kept on the CPU as changes are made, uploaded with
//! them, stamped with the crowd's generation so that each view knows which
//! changes it has not drawn yet (see `crowd/types.wgsl`'s `MemberMotion`).

use crate::anim::Pose;
use crate::contract::crowd::MotionRecord;
use crate::contract::{MOTION_FLAG_BITS, MOTION_MOVED, MOTION_NEW, MOTION_POSE};
use crate::gpu::device::buffers::grow;
use crate::scene::pose_words;

const MOTION: u64 = size_of::<MotionRecord>() as u64;
/// The motion buffer's first size, in members.
const MIN_MEMBERS: u64 = 64;

/// The crowd's motion records and what is pending of them.
#[derive(Debug)]
pub(crate) struct Motion {
    /// Dense: what the previous frame showed of each member that changed,
    /// as last uploaded or about to be.
    records: Vec<MotionRecord>,
    /// Per member, the MOTION_* bits of changes since the last flush (0:
    /// none).
    pending: Vec<u8>,
    /// Dense indices whose record must be uploaded, each once.
    upload: Vec<u32>,
    in_upload: Vec<bool>,
    /// Counts the flushes that uploaded motion.
    generation: u32,
    /// The time of the last flush: the previous frame's.
    last_now: Option<f64>,
    /// The records on the GPU, made when a view first draws motion; until
    /// then a stand-in fills the binding.
    buffer: Option<wgpu::Buffer>,
    stand_in: wgpu::Buffer,
}

impl Motion {
    pub fn new(device: &wgpu::Device) -> Motion {
        Motion {
            records: Vec::new(),
            pending: Vec::new(),
            upload: Vec::new(),
            in_upload: Vec::new(),
            generation: 0,
            last_now: None,
            buffer: None,
            stand_in: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("md2-wgpu crowd motion stand-in"),
                size: MOTION,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
        }
    }

    /// A member added at the end, placed by `rows`, with stable id `id`:
    /// the next frame shows no motion of it.
    pub fn push(&mut self, rows: [[f32; 4]; 3], id: u32) {
        self.records.push(MotionRecord {
            previous_rows: rows,
            flags_id: id << MOTION_FLAG_BITS,
            ..MotionRecord::default()
        });
        self.pending.push(MOTION_NEW as u8);
        self.in_upload.push(false);
        self.queue(self.records.len() - 1);
    }

    /// Member `i` removed; the last member takes its index (as the dense
    /// arrays' `swap_remove`), and is uploaded at its new place.
    pub fn swap_remove(&mut self, i: usize) {
        // Whether index `i` is in the upload list stays as it was (the list
        // holds indices); the moved member's old index, if listed, is now
        // past the end (flush skips it).
        let i_listed = self.in_upload.swap_remove(i);
        self.records.swap_remove(i);
        self.pending.swap_remove(i);
        if i < self.records.len() {
            self.in_upload[i] = i_listed;
            self.queue(i);
        }
    }

    /// The time of the last flush, where some view draws motion: the frame
    /// a change's previous transform and pose are those of.
    pub fn last_time(&self) -> Option<f64> {
        self.last_now.filter(|_| self.buffer.is_some())
    }

    /// Notes what member `i` showed in the last frame before a change of the
    /// kinds in `bits` (MOTION_*): the first change of each kind since the
    /// last flush keeps the transform (MOVED: `rows`, its rows until now) or
    /// the pose at the last flush's time (POSE: `pose_at` of that time) it
    /// replaces; MOTION_NEW says there is none.
    pub fn capture(
        &mut self,
        i: usize,
        mut bits: u8,
        rows: [[f32; 4]; 3],
        pose_at: impl FnOnce(f64) -> Pose,
    ) {
        let pending = self.pending[i];
        let new = MOTION_NEW as u8;
        if bits & MOTION_MOVED as u8 != 0 && pending & (MOTION_MOVED as u8 | new) == 0 {
            self.records[i].previous_rows = rows;
        }
        if bits & MOTION_POSE as u8 != 0 && pending & (MOTION_POSE as u8 | new) == 0 {
            // The pose costs a CPU sample: only for a crowd some view draws
            // motion of. Without a previous frame there is no motion.
            match self.last_now.filter(|_| self.buffer.is_some()) {
                Some(then) => {
                    let (frames, lerp) = pose_words(&pose_at(then));
                    let m = &mut self.records[i];
                    m.previous_frames = [frames[0] | frames[1] << 16, frames[2] | frames[3] << 16];
                    m.previous_lerp = lerp;
                }
                None => bits = new,
            }
        }
        self.pending[i] = pending | bits;
        self.queue(i);
    }

    /// Lists member `i`'s record for the next flush's upload.
    fn queue(&mut self, i: usize) {
        if !std::mem::replace(&mut self.in_upload[i], true) {
            self.upload.push(i as u32);
        }
    }

    /// Every member gone.
    pub fn clear(&mut self) {
        self.records.clear();
        self.pending.clear();
        self.upload.clear();
        self.in_upload.clear();
    }

    /// Room for `additional` more members.
    pub fn reserve(&mut self, additional: usize) {
        self.records.reserve(additional);
        self.pending.reserve(additional);
        self.upload.reserve(additional);
        self.in_upload.reserve(additional);
    }

    /// Counts the flushes that uploaded motion.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// What the crowd's group binds: the records, or the stand-in.
    /// Bytes of the motion records on the GPU (none until a view draws
    /// motion).
    pub fn gpu_bytes(&self) -> u64 {
        self.buffer.as_ref().map_or(0, wgpu::Buffer::size)
    }

    pub fn binding(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().unwrap_or(&self.stand_in)
    }

    /// Makes the GPU buffer fit every member where a view draws motion (or
    /// a buffer exists and is outgrown); returns whether it was made anew
    /// (the crowd's group must bind it), or wgpu's out-of-memory message.
    pub fn fit(&mut self, device: &wgpu::Device, motion: bool) -> Result<bool, String> {
        let needed = self.records.len().max(1) as u64 * MOTION;
        let fits = self.buffer.as_ref().map(|b| b.size() >= needed);
        if fits != Some(false) && !(motion && fits.is_none()) {
            return Ok(false);
        }
        self.buffer = Some(grow(
            device,
            "md2-wgpu crowd motion",
            needed,
            MIN_MEMBERS * MOTION,
            device.limits().max_buffer_size / MOTION * MOTION,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        )?);
        if fits.is_none() {
            // Changes made before any view drew motion kept no pose: they
            // show none.
            for (m, pending) in self.records.iter_mut().zip(&mut self.pending) {
                m.flags_id &= !((1 << MOTION_FLAG_BITS) - 1);
                *pending = 0;
            }
        }
        for i in 0..self.records.len() {
            self.queue(i);
        }
        Ok(true)
    }

    /// Uploads the listed records, stamping those with changes since the
    /// last flush with a new generation, and takes `now` as the frame's
    /// time; returns the bytes written.
    pub fn flush(&mut self, queue: &wgpu::Queue, now: f64) -> u64 {
        let mut written = 0;
        let len = self.records.len() as u32;
        let mut list = std::mem::take(&mut self.upload);
        list.retain(|&i| i < len);
        list.sort_unstable();
        list.dedup();
        if let Some(buffer) = &self.buffer {
            if list.iter().any(|&i| self.pending[i as usize] != 0) {
                self.generation = self.generation.wrapping_add(1);
            }
            for &i in &list {
                let i = i as usize;
                let pending = u32::from(self.pending[i]);
                let m = &mut self.records[i];
                if pending != 0 {
                    m.flags_id = (m.flags_id & !((1 << MOTION_FLAG_BITS) - 1)) | pending;
                    m.changed_at = self.generation;
                }
            }
            // One write for each run of consecutive members.
            let mut k = 0;
            while k < list.len() {
                let start = list[k] as usize;
                let mut end = start + 1;
                k += 1;
                while k < list.len() && list[k] as usize == end {
                    end += 1;
                    k += 1;
                }
                let run: &[u8] = bytemuck::cast_slice(&self.records[start..end]);
                queue.write_buffer(buffer, start as u64 * MOTION, run);
                written += run.len() as u64;
            }
        }
        for &i in &list {
            self.pending[i as usize] = 0;
            self.in_upload[i as usize] = false;
        }
        list.clear();
        self.upload = list;
        self.last_now = Some(now);
        written
    }
}
