//! Generational handles to a crowd's members: a handle stays valid until
//! its member is removed, whatever else is added or removed, and a stale
//! one is refused rather than read as another member.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::scene::CrowdError;

/// A handle to one member of an [`Md2Crowd`](crate::Md2Crowd): stays valid
/// until the member is removed, whatever else is added or removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CrowdHandle {
    crowd: u64,
    slot: u32,
    generation: u32,
}

impl CrowdHandle {
    /// The member's id, stable while it is in the crowd (a removed member's
    /// id is given to a later one): what a material's fragment stage gets
    /// as `Md2Fragment::id`.
    pub fn id(&self) -> u32 {
        self.slot
    }
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    generation: u32,
    /// Index in the dense arrays, or `FREE`.
    dense: u32,
}

const FREE: u32 = u32::MAX;

static NEXT_CROWD: AtomicU64 = AtomicU64::new(1);

/// The slots behind one crowd's handles, and which slot each dense member
/// has.
#[derive(Debug)]
pub(crate) struct Slots {
    crowd: u64,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Dense index to slot.
    slot_of: Vec<u32>,
}

impl Slots {
    /// The slots of a new crowd, with an id no other crowd has.
    pub fn new() -> Slots {
        Slots {
            crowd: NEXT_CROWD.fetch_add(1, Ordering::Relaxed),
            slots: Vec::new(),
            free: Vec::new(),
            slot_of: Vec::new(),
        }
    }

    /// The crowd's id.
    pub fn crowd(&self) -> u64 {
        self.crowd
    }

    /// A slot for a member added at the end (dense index `slot_of.len()`).
    pub fn push(&mut self) -> CrowdHandle {
        let dense = self.slot_of.len() as u32;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize].dense = dense;
                slot
            }
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    dense,
                });
                self.slots.len() as u32 - 1
            }
        };
        self.slot_of.push(slot);
        self.handle(dense as usize)
    }

    /// The dense index of `handle`'s member, or why there is none.
    pub fn dense(&self, handle: CrowdHandle) -> Result<usize, CrowdError> {
        match self.slots.get(handle.slot as usize) {
            Some(slot)
                if handle.crowd == self.crowd
                    && slot.generation == handle.generation
                    && slot.dense != FREE =>
            {
                Ok(slot.dense as usize)
            }
            _ => Err(CrowdError::StaleHandle),
        }
    }

    /// The handle of dense member `i`.
    pub fn handle(&self, i: usize) -> CrowdHandle {
        let slot = self.slot_of[i];
        CrowdHandle {
            crowd: self.crowd,
            slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    /// Frees `handle`'s slot (its handles go stale), which is dense member
    /// `i`; the last member takes index `i`, as the dense arrays'
    /// `swap_remove` moves it.
    pub fn swap_remove(&mut self, handle: CrowdHandle, i: usize) {
        let slot = &mut self.slots[handle.slot as usize];
        slot.generation = slot.generation.wrapping_add(1);
        slot.dense = FREE;
        self.free.push(handle.slot);
        self.slot_of.swap_remove(i);
        if let Some(&moved) = self.slot_of.get(i) {
            self.slots[moved as usize].dense = i as u32;
        }
    }

    /// Frees every slot.
    pub fn clear(&mut self) {
        for &slot in &self.slot_of {
            let s = &mut self.slots[slot as usize];
            s.generation = s.generation.wrapping_add(1);
            s.dense = FREE;
            self.free.push(slot);
        }
        self.slot_of.clear();
    }

    /// Room for `additional` more members.
    pub fn reserve(&mut self, additional: usize) {
        self.slot_of.reserve(additional);
        self.slots
            .reserve(additional.saturating_sub(self.free.len()));
    }
}
