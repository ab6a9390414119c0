//! Which bytes of a crowd's member records and clip table the host's member
//! buffer still lacks: only where a member changed (and, of a changed
//! member, only the bytes that changed) or a clip was entered; everything
//! once after the buffer grew.

use super::clips::ClipTable;
use super::room::{CLIP, CrowdBuffers, MEMBER, Room};
use crate::contract::crowd::{ClipRecord, MemberRecord};
use crate::scene::CrowdError;

/// What of the member records is in the host's buffer, and what is still
/// to write.
#[derive(Debug, Default)]
pub(crate) struct RecordUploads {
    /// Dense indices changed since the last flush (each listed once), and
    /// per index the bytes of its record to write (empty: not listed).
    dirty: Vec<u32>,
    dirty_bytes: Vec<(u8, u8)>,
    /// Every record must be written (after the buffer grew).
    all_dirty: bool,
    /// Members the app reserved room for: the buffer grows to exactly this
    /// many where it must grow and they are enough.
    reserved: u64,
    /// The host's member buffer's room; `None` before it has one.
    room: Option<Room>,
}

impl RecordUploads {
    /// The host already holds a member buffer of `room`, nothing written.
    pub fn hosted(&mut self, room: Room) {
        self.room = Some(room);
    }

    /// The host's member buffer's room, once it has one.
    pub fn room(&self) -> Option<Room> {
        self.room
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

    /// Room for `additional` more members, in the host's buffer too at the
    /// next flush that has to grow it.
    pub fn reserve(&mut self, additional: usize) {
        self.dirty.reserve(additional);
        self.dirty_bytes.reserve(additional);
        self.reserved = (self.dirty_bytes.len() + additional) as u64;
    }

    /// Writes what changed since the last flush into the host's member
    /// buffer: each changed member's changed bytes (one write for a run of
    /// consecutive wholly changed members) and the clips entered since.
    /// Has the host make a larger buffer (at most `cap` bytes) where the
    /// crowd outgrew its own, and then writes every member and clip once.
    /// Returns the bytes written.
    pub fn flush(
        &mut self,
        host: &mut impl CrowdBuffers,
        cap: u64,
        records: &[MemberRecord],
        clips: &mut ClipTable,
    ) -> Result<u64, CrowdError> {
        let mut written = 0;
        let (members, clip_count) = (records.len() as u64, clips.capacity() as u64);
        let room = self.room.unwrap_or(Room {
            members: 0,
            clips: 0,
        });
        if self.room.is_none() || members > room.members || clip_count > room.clips {
            let grown = self
                .room
                .unwrap_or(Room::FIRST)
                .fit(members, self.reserved, clip_count, cap)
                .ok_or(CrowdError::TooManyMembers {
                    members: records.len(),
                    bytes: members * MEMBER + clip_count * CLIP,
                    limit: cap,
                })?;
            host.new_member_buffer(grown.bytes())
                .map_err(|message| CrowdError::HostBuffer { message })?;
            self.room = Some(grown);
            self.all_dirty = true;
        }
        let room = self.room.unwrap_or(Room::FIRST);
        let clips_at = u64::from(room.clips_at()) * 16;
        if self.all_dirty {
            host.write_members(0, bytemuck::cast_slice(records));
            let table: Vec<ClipRecord> = clips.records().collect();
            host.write_members(clips_at, bytemuck::cast_slice(&table));
            clips.take_fresh();
            written += members * MEMBER + clip_count * CLIP;
            self.all_dirty = false;
        } else {
            if !self.dirty.is_empty() {
                written += self.write_dirty(host, records);
            }
            for (id, clip) in clips.take_fresh() {
                let at = clips_at + u64::from(id) * CLIP;
                host.write_members(at, bytemuck::bytes_of(&clip));
                written += CLIP;
            }
        }
        for &i in &self.dirty {
            if let Some(range) = self.dirty_bytes.get_mut(i as usize) {
                *range = (0, 0);
            }
        }
        self.dirty.clear();
        Ok(written)
    }

    /// Writes the dirty bytes of `records`; returns how many.
    fn write_dirty(&mut self, host: &mut impl CrowdBuffers, records: &[MemberRecord]) -> u64 {
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
            host.write_members(start as u64 * MEMBER + lo as u64, run);
            written += run.len() as u64;
        }
        written
    }
}
