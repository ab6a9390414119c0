//! The clips a crowd's members play, each stored once however many members
//! play it: members hold a number, so a crowd of a million runners holds one
//! `run` clip, and adding a member allocates nothing for its clip.

use std::collections::HashMap;
use std::sync::Arc;

use crate::anim::clock::to_ticks;
use crate::anim::{Clip, ClipClock};
use crate::contract::clock::{ClockParts, GpuClock};
use crate::contract::crowd::ClipRecord;
use crate::contract::{CLOCK_HOLD, CLOCK_LOOPING};
use crate::model::Bounds;

/// A clip's number in its crowd's [`ClipTable`].
pub(crate) type ClipId = u32;

/// What identifies a clip: two clips equal in every field are one entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ClipKey {
    name: Arc<str>,
    first: u32,
    last: u32,
    fps_bits: u32,
    looping: bool,
}

impl ClipKey {
    fn of(clip: &Clip) -> ClipKey {
        ClipKey {
            name: Arc::clone(&clip.name),
            first: clip.first,
            last: clip.last,
            fps_bits: clip.fps.to_bits(),
            looping: clip.looping,
        }
    }
}

/// `clock` in the crowd's integer form ([`GpuClock`]); `None` where its
/// start is not on the tick range or its speed is not finite.
pub(crate) fn gpu_clock(clock: &ClipClock) -> Option<GpuClock> {
    GpuClock::encode(ClockParts {
        start: to_ticks(clock.start)?,
        speed: clock.speed,
        fps: clock.clip.fps,
        first: clock.clip.first,
        len: clock.clip.len(),
        looping: clock.clip.looping,
    })
}

#[derive(Debug)]
struct Entry {
    clip: Clip,
    /// Model-space box of every frame the clip plays.
    bounds: Bounds,
    /// Members' clocks that play it (a fading member counts twice).
    users: u64,
}

impl Entry {
    /// The clip as the GPU's clip table holds it.
    fn record(&self) -> ClipRecord {
        let gpu = gpu_clock(&ClipClock::new(self.clip.clone(), 0.0)).unwrap_or_default();
        let mut flags = 0;
        if gpu.looping {
            flags |= CLOCK_LOOPING;
        }
        if gpu.hold {
            flags |= CLOCK_HOLD;
        }
        ClipRecord {
            bounds_min: self.bounds.min,
            first_flags: gpu.first | flags << 16,
            bounds_max: self.bounds.max,
            len: gpu.len,
        }
    }
}

/// The clips of one crowd, counted by use; an entry no member plays any
/// more is freed and its number reused.
#[derive(Debug, Default)]
pub(crate) struct ClipTable {
    entries: Vec<Option<Entry>>,
    ids: HashMap<ClipKey, ClipId>,
    free: Vec<ClipId>,
    /// Entries made since the GPU's copy was last written.
    fresh: Vec<ClipId>,
}

impl ClipTable {
    /// The number of `clip`, entered if new, with one more user. `frame_bounds`
    /// (per frame of the model, its box) gives a new entry its bounds; the
    /// clip's frames were checked against the model.
    pub fn acquire(&mut self, clip: &Clip, frame_bounds: &[Bounds]) -> ClipId {
        let key = ClipKey::of(clip);
        if let Some(&id) = self.ids.get(&key) {
            if let Some(entry) = &mut self.entries[id as usize] {
                entry.users += 1;
            }
            return id;
        }
        let entry = Entry {
            clip: clip.clone(),
            bounds: clip_bounds(clip, frame_bounds),
            users: 1,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.entries[id as usize] = Some(entry);
                id
            }
            None => {
                self.entries.push(Some(entry));
                (self.entries.len() - 1) as ClipId
            }
        };
        self.ids.insert(key, id);
        self.fresh.push(id);
        id
    }

    /// One user more of `id`, an entry in the table (a member keeps a clip
    /// it already plays).
    pub fn share(&mut self, id: ClipId) {
        if let Some(Some(entry)) = self.entries.get_mut(id as usize) {
            entry.users += 1;
        }
    }

    /// One user fewer of `id`; the entry goes when it has none.
    pub fn release(&mut self, id: ClipId) {
        let Some(slot) = self.entries.get_mut(id as usize) else {
            return;
        };
        let Some(entry) = slot else {
            return;
        };
        entry.users -= 1;
        if entry.users == 0 {
            self.ids.remove(&ClipKey::of(&entry.clip));
            *slot = None;
            self.free.push(id);
        }
    }

    /// Every entry gone (the crowd was cleared).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.ids.clear();
        self.free.clear();
        self.fresh.clear();
    }

    /// How many numbers are in use or free: the table's size on the GPU.
    pub fn capacity(&self) -> usize {
        self.entries.len()
    }

    /// Every entry as the GPU holds it, by number (a free number's is
    /// zeroes: no member names it).
    pub fn records(&self) -> impl Iterator<Item = ClipRecord> + '_ {
        self.entries
            .iter()
            .map(|e| e.as_ref().map(Entry::record).unwrap_or_default())
    }

    /// The numbers entered since the last call (each with its record), for
    /// the GPU's copy.
    pub fn take_fresh(&mut self) -> Vec<(ClipId, ClipRecord)> {
        let fresh = std::mem::take(&mut self.fresh);
        fresh
            .into_iter()
            .filter_map(|id| Some((id, self.entries.get(id as usize)?.as_ref()?.record())))
            .collect()
    }

    /// The clip numbered `id`.
    pub fn clip(&self, id: ClipId) -> &Clip {
        &self.entry(id).clip
    }

    /// How many distinct clips the crowd's members play.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    fn entry(&self, id: ClipId) -> &Entry {
        match self.entries.get(id as usize) {
            Some(Some(entry)) => entry,
            _ => unreachable!("clip {id} is held by a member, so it is entered"),
        }
    }
}

/// The box of every frame `clip` plays.
fn clip_bounds(clip: &Clip, frame_bounds: &[Bounds]) -> Bounds {
    clip.frames()
        .filter_map(|frame| frame_bounds.get(frame as usize))
        .fold(Bounds::EMPTY, |all, &b| all.union(b))
}
