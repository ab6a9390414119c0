//! What the previous frame showed of each crowd member that changed since,
//! for motion vectors: kept on the CPU as changes are made, written with
//! them into the host's motion buffer, stamped with the crowd's generation
//! so that each view knows which changes it has not drawn yet (see
//! `crowd/types.wgsl`'s `MemberMotion`).

use super::room::{CrowdBuffers, grown_size};
use crate::anim::Pose;
use crate::contract::crowd::MotionRecord;
use crate::contract::{MOTION_FLAG_BITS, MOTION_MOVED, MOTION_NEW, MOTION_POSE};
use crate::scene::{CrowdError, pose_words};

pub(crate) const MOTION: u64 = size_of::<MotionRecord>() as u64;
/// The motion buffer's first size, in members.
const MIN_MEMBERS: u64 = 64;

/// The crowd's motion records and what is pending of them.
#[derive(Debug, Default)]
pub(crate) struct MotionBook {
    /// Dense: what the previous frame showed of each member that changed,
    /// as last written or about to be.
    records: Vec<MotionRecord>,
    /// Per member, the MOTION_* bits of changes since the last flush (0:
    /// none).
    pending: Vec<u8>,
    /// Dense indices whose record must be written, each once.
    upload: Vec<u32>,
    in_upload: Vec<bool>,
    /// Counts the flushes that wrote motion.
    generation: u32,
    /// The time of the last flush: the previous frame's.
    last_now: Option<f64>,
    /// Members the host's motion buffer holds: `None` until a view first
    /// draws motion (until then the host binds a stand-in).
    room: Option<u64>,
}

impl MotionBook {
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
    /// arrays' `swap_remove`), and is written at its new place.
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
        self.last_now.filter(|_| self.room.is_some())
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
            match self.last_time() {
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

    /// Lists member `i`'s record for the next flush.
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

    /// Counts the flushes that wrote motion.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// Has the host make a motion buffer that holds every member where a
    /// view draws motion (or one exists and is outgrown), at most `cap`
    /// bytes.
    fn fit(
        &mut self,
        host: &mut impl CrowdBuffers,
        cap: u64,
        drawn: bool,
    ) -> Result<(), CrowdError> {
        let needed = self.records.len().max(1) as u64;
        match self.room {
            Some(room) if room >= needed => return Ok(()),
            None if !drawn => return Ok(()),
            _ => {}
        }
        let bytes = needed * MOTION;
        let cap = cap / MOTION * MOTION;
        if bytes > cap {
            return Err(CrowdError::TooManyMembers {
                members: self.records.len(),
                bytes,
                limit: cap,
            });
        }
        let size = grown_size(bytes)
            .max(MIN_MEMBERS * MOTION)
            .min(cap)
            .max(bytes);
        host.new_motion_buffer(size)
            .map_err(|message| CrowdError::HostBuffer { message })?;
        if self.room.is_none() {
            // Changes made before any view drew motion kept no pose: they
            // show none.
            for (m, pending) in self.records.iter_mut().zip(&mut self.pending) {
                m.flags_id &= !((1 << MOTION_FLAG_BITS) - 1);
                *pending = 0;
            }
        }
        self.room = Some(size / MOTION);
        for i in 0..self.records.len() {
            self.queue(i);
        }
        Ok(())
    }

    /// Writes the listed records into the host's motion buffer (made or
    /// grown first where `drawn` needs it), stamping those with changes since
    /// the last flush with a new generation, and takes `now` as the frame's
    /// time; returns the bytes written.
    pub fn flush(
        &mut self,
        host: &mut impl CrowdBuffers,
        cap: u64,
        drawn: bool,
        now: f64,
    ) -> Result<u64, CrowdError> {
        self.fit(host, cap, drawn)?;
        let mut written = 0;
        let len = self.records.len() as u32;
        let mut list = std::mem::take(&mut self.upload);
        list.retain(|&i| i < len);
        list.sort_unstable();
        list.dedup();
        if self.room.is_some() {
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
                host.write_motion(start as u64 * MOTION, run);
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
        Ok(written)
    }
}
