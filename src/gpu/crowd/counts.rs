//! Visible-member counts read back without waiting: each `prepare_crowds`
//! copies its crowds' draw arguments into a small read-back buffer that
//! maps itself once the frame is submitted and done, and the app takes the
//! newest counts mapped so far.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use std::future::Future;

use super::view::CrowdView;
use crate::contract::crowd::{COUNTED_WORDS, SORTED_LEVELS};
use crate::contract::{MAX_LEVELS, TRANSLUCENT, level_of_opaque};
use crate::gpu::readback::{Readback, words};

/// One crowd's draw arguments, every bucket's, and the levels of its
/// translucent and shell buckets: the words the counts read.
const CROWD_ARGS: u64 = 4 * COUNTED_WORDS as u64;

/// How many crowd members a view found in view, crowd by crowd, in a
/// recent frame: see [`VisibleMembers::recent`] and [`VisibleMembers::read`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VisibleMembers {
    /// Which `prepare_crowds` call of the renderer it counts (from 1).
    pub frame: u64,
    /// Members in view, per crowd in the order given to `prepare_crowds`.
    pub per_crowd: Vec<u32>,
    /// Of those, how many were drawn at each level of detail, full detail
    /// first (translucent members at the level their bucket was drawn at).
    pub per_level: Vec<[u32; MAX_LEVELS]>,
}

/// Read-back buffers in flight at most: a frame's counts are typically
/// mapped two or three frames later.
const SLOTS: usize = 3;
/// A slot whose mapping has not come back after this many frames belongs to
/// an encoder that was never submitted: it is replaced, not reused.
const STALE_FRAMES: u64 = 16;

const FREE: u8 = 0;
const PENDING: u8 = 1;
const READY: u8 = 2;

#[derive(Debug)]
struct Slot {
    buffer: wgpu::Buffer,
    state: Arc<AtomicU8>,
    frame: u64,
    crowds: usize,
}

/// The renderer's read-back ring.
#[derive(Debug, Default)]
pub(crate) struct VisibleCounts {
    frame: u64,
    slots: Vec<Slot>,
    latest: Option<VisibleMembers>,
}

impl VisibleCounts {
    /// The members a view drew, from a crowd's counted words: each visible
    /// member is in exactly one of the opaque buckets (of its level) and
    /// the translucent bucket (shells are counted in theirs a second time).
    pub(crate) fn visible(words: &[u32]) -> u32 {
        VisibleCounts::per_level(words).iter().sum()
    }

    /// The members a view drew at each level of detail, from a crowd's
    /// counted words.
    pub(crate) fn per_level(words: &[u32]) -> [u32; MAX_LEVELS] {
        let mut levels = [0; MAX_LEVELS];
        for bucket in 0..TRANSLUCENT {
            levels[level_of_opaque(bucket)] += words[bucket * 5 + 1];
        }
        let translucent_level = (words[SORTED_LEVELS as usize] as usize).min(MAX_LEVELS - 1);
        levels[translucent_level] += words[TRANSLUCENT * 5 + 1];
        levels
    }

    /// The counts of `views` (drawn by prepare_crowds call `frame`), read
    /// back once the GPU has drawn them: a submission of its own, nothing
    /// blocks.
    pub(crate) fn read(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        views: &[CrowdView],
        frame: u64,
    ) -> impl Future<Output = Result<VisibleMembers, String>> + use<> {
        let parts: Vec<_> = views
            .iter()
            .filter_map(|v| v.buffers().map(|(_, work, _)| (work, 0, CROWD_ARGS)))
            .collect();
        let drawn: Vec<bool> = views.iter().map(|v| v.buffers().is_some()).collect();
        let encoder = device.create_command_encoder(&Default::default());
        let read = Readback::start(device, queue, encoder, &parts);
        async move {
            let bytes = read.await?;
            let words = words(&bytes);
            let mut chunks = words.chunks_exact(CROWD_ARGS as usize / 4);
            let mut counted = VisibleMembers {
                frame,
                ..VisibleMembers::default()
            };
            for drawn in drawn {
                let (visible, levels) = match drawn.then(|| chunks.next()).flatten() {
                    Some(words) => (
                        VisibleCounts::visible(words),
                        VisibleCounts::per_level(words),
                    ),
                    None => (0, [0; MAX_LEVELS]),
                };
                counted.per_crowd.push(visible);
                counted.per_level.push(levels);
            }
            Ok(counted)
        }
    }

    /// Copies the draw arguments of `views` into a free slot that maps
    /// itself when `encoder` is submitted; skips the frame when all are in
    /// flight.
    pub(crate) fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        views: &[CrowdView],
    ) {
        self.frame += 1;
        let bytes = (views.len().max(1) as u64) * CROWD_ARGS;
        let frame = self.frame;
        let index = self
            .slots
            .iter()
            .position(|s| s.state.load(Ordering::Acquire) == FREE && s.buffer.size() >= bytes)
            .or_else(|| {
                self.slots.iter().position(|s| {
                    let state = s.state.load(Ordering::Acquire);
                    state == FREE || (state == PENDING && frame - s.frame > STALE_FRAMES)
                })
            });
        let index = match index {
            Some(i)
                if self.slots[i].buffer.size() >= bytes
                    && self.slots[i].state.load(Ordering::Acquire) == FREE =>
            {
                i
            }
            Some(i) => {
                self.slots[i] = Slot::new(device, bytes);
                i
            }
            None if self.slots.len() < SLOTS => {
                self.slots.push(Slot::new(device, bytes));
                self.slots.len() - 1
            }
            None => return,
        };
        let slot = &mut self.slots[index];
        for (i, view) in views.iter().enumerate() {
            if let Some((_, work, _)) = view.buffers() {
                encoder.copy_buffer_to_buffer(
                    work,
                    0,
                    &slot.buffer,
                    i as u64 * CROWD_ARGS,
                    CROWD_ARGS,
                );
            }
        }
        slot.frame = frame;
        slot.crowds = views.len();
        slot.state.store(PENDING, Ordering::Release);
        let state = Arc::clone(&slot.state);
        encoder.map_buffer_on_submit(&slot.buffer, wgpu::MapMode::Read, .., move |result| {
            // A failed mapping (the device lost, say) frees the slot.
            state.store(if result.is_ok() { READY } else { FREE }, Ordering::Release);
        });
    }

    /// The newest counts mapped so far (polling the device once, without
    /// waiting), and frees every mapped slot.
    pub(crate) fn latest(&mut self, device: &wgpu::Device) -> Option<VisibleMembers> {
        // An error here is a lost device, which the app hears of elsewhere.
        let _ = device.poll(wgpu::PollType::Poll);
        for slot in &self.slots {
            if slot.state.load(Ordering::Acquire) != READY {
                continue;
            }
            if self.latest.as_ref().is_none_or(|l| l.frame < slot.frame) {
                let bytes = (slot.crowds as u64 * CROWD_ARGS).max(4);
                if let Ok(view) = slot.buffer.get_mapped_range(..bytes) {
                    let words = words(&view);
                    let crowds = || {
                        words
                            .chunks_exact(CROWD_ARGS as usize / 4)
                            .take(slot.crowds)
                    };
                    self.latest = Some(VisibleMembers {
                        frame: slot.frame,
                        per_crowd: crowds().map(VisibleCounts::visible).collect(),
                        per_level: crowds().map(VisibleCounts::per_level).collect(),
                    });
                }
            }
            slot.buffer.unmap();
            slot.state.store(FREE, Ordering::Release);
        }
        self.latest.clone()
    }
}

impl Slot {
    fn new(device: &wgpu::Device, bytes: u64) -> Slot {
        Slot {
            buffer: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("md2-wgpu visible counts read-back"),
                size: bytes,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            }),
            state: Arc::new(AtomicU8::new(FREE)),
            frame: 0,
            crowds: 0,
        }
    }
}
