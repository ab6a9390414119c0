//! The resident crowd: instances that live on the GPU with their own
//! animation clocks. The app adds, changes and removes members through
//! handles; each frame a compute pass per view samples every clock, culls
//! against the view and compacts the visible members for one indirect draw
//! per model and effect. Per frame the CPU writes only what changed.

mod member;
mod view;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::Mat4;

pub use member::CrowdMember;
pub(crate) use view::CrowdView;

use super::cache::Md2Cache;
use super::device::grow;
use super::error::{CrowdError, PrepareError, SetupError};
use super::instance::Buckets;
use super::model::{DrawModel, GpuModel};
use super::shader::{BUCKETS, CROWD_CULL, CrowdParams, MemberRecord};
use crate::anim::ClipClock;
use member::{ModelFacts, pack};

const MEMBER: u64 = size_of::<MemberRecord>() as u64;
/// The member buffer's first size, in members.
const MIN_MEMBERS: u64 = 64;

/// A handle to one member of an [`Md2Crowd`]: stays valid until the member
/// is removed, whatever else is added or removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CrowdHandle {
    crowd: u64,
    slot: u32,
    generation: u32,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    generation: u32,
    /// Index in the dense arrays, or `FREE`.
    dense: u32,
}

const FREE: u32 = u32::MAX;

static NEXT_CROWD: AtomicU64 = AtomicU64::new(1);

/// Instances of one model that live on the GPU, each with its own clock:
/// transform, [`Playback`](crate::Playback) (a clip from a start time at a
/// speed, maybe crossfading into another), skin, tint and effects.
///
/// Changes are batched: [`add`](Md2Crowd::add), [`set`](Md2Crowd::set),
/// [`remove`](Md2Crowd::remove) and friends touch the CPU copy, and the next
/// [`Md2Renderer::prepare_crowds`](crate::Md2Renderer::prepare_crowds)
/// writes only the members that changed (removal moves the last member into
/// the hole, so the set stays dense and one member is rewritten). A frame
/// in which nothing changed uploads nothing but the time.
///
/// Every frame, per view, a compute pass turns each member's clock into a
/// pose by exactly [`Playback::pose`](crate::Playback::pose)'s rules, tests
/// the member's bounds (the union of every frame its clips can show,
/// transformed; shells and shadows included) against the view's frustum,
/// and appends the visible ones for `draw_indexed_indirect`. Nothing needs
/// a wgpu feature beyond WebGPU's. Times are seconds on the app's clock as
/// `f64`, kept on the GPU as integer ticks, so a crowd samples as precisely
/// after days (or centuries) as on its first frame: see [`clock`](crate::clock).
///
/// ```no_run
/// # fn frame(device: &wgpu::Device, queue: &wgpu::Queue, renderer: &mut md2_wgpu::Md2Renderer,
/// #          gpu_model: &md2_wgpu::GpuModel, camera: &md2_wgpu::Camera, time: f64)
/// # -> Result<(), Box<dyn std::error::Error>> {
/// use md2_wgpu::{ClipClock, CrowdMember, Md2Crowd, Quake2Player};
/// let mut crowd = Md2Crowd::new(device, renderer, gpu_model)?;
/// let walker = crowd.add(CrowdMember::new(
///     glam::Mat4::from_translation(glam::vec3(40.0, 0.0, 0.0)),
///     ClipClock::new(Quake2Player::Run.clip(), time).with_speed(1.2),
/// ))?;
/// // Later: crossfade into an attack over a fifth of a second.
/// crowd.play(walker, ClipClock::new(Quake2Player::Attack.clip(), time), time, 0.2)?;
///
/// // Every frame, before the render pass:
/// let mut encoder = device.create_command_encoder(&Default::default());
/// renderer.prepare(device, queue, camera, &[])?;
/// renderer.prepare_crowds(device, queue, &mut encoder, time, &mut [&mut crowd])?;
/// // ... begin the pass, renderer.render(&mut pass), submit.
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Md2Crowd {
    id: u64,
    model: DrawModel,
    frame_count: u32,
    skin_count: u32,
    frame_bounds: Arc<[([f32; 3], [f32; 3])]>,
    /// Dense: what the app gave, and what the GPU holds of it.
    members: Vec<CrowdMember>,
    records: Vec<MemberRecord>,
    buckets: Vec<Buckets>,
    /// Dense index to slot.
    slot_of: Vec<u32>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Members in each draw bucket.
    counts: [u32; BUCKETS],
    /// Dense indices changed since the last flush, and a flag per index so
    /// each is listed once.
    dirty: Vec<u32>,
    is_dirty: Vec<bool>,
    /// Every record must be written (after the buffer grew).
    all_dirty: bool,
    culling: bool,
    member_buffer: wgpu::Buffer,
    params_buffer: wgpu::Buffer,
    params_written: Option<CrowdParams>,
    group: wgpu::BindGroup,
    cache: Md2Cache,
    /// The most members the device's buffers hold.
    max_members: usize,
}

impl Md2Crowd {
    /// An empty crowd of `model`, drawn by renderers of `cache` (pass the
    /// cache or a renderer). Needs compute shaders.
    pub fn new(
        device: &wgpu::Device,
        cache: &impl AsRef<Md2Cache>,
        model: &GpuModel,
    ) -> Result<Md2Crowd, SetupError> {
        let cache = cache.as_ref();
        let limits = device.limits();
        // Members are bound as storage; the visible records (with shells,
        // up to two per member) are bound as storage and as vertices.
        let member_limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
            / MEMBER;
        let record_limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
            / (2 * size_of::<super::shader::InstanceRecord>() as u64);
        let max_members = member_limit.min(record_limit).min(u64::from(u32::MAX)) as usize;
        let member_buffer =
            member_buffer(device, MIN_MEMBERS * MEMBER).map_err(|message| SetupError::Device {
                operation: "creating a crowd",
                message,
            })?;
        let params_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu crowd params"),
            size: size_of::<CrowdParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = crowd_group(device, cache, &member_buffer, &params_buffer);
        Ok(Md2Crowd {
            id: NEXT_CROWD.fetch_add(1, Ordering::Relaxed),
            model: model.draw_model(),
            frame_count: model.frame_count,
            skin_count: model.skin_count(),
            frame_bounds: Arc::clone(&model.frame_bounds),
            members: Vec::new(),
            records: Vec::new(),
            buckets: Vec::new(),
            slot_of: Vec::new(),
            slots: Vec::new(),
            free: Vec::new(),
            counts: [0; BUCKETS],
            dirty: Vec::new(),
            is_dirty: Vec::new(),
            all_dirty: false,
            culling: true,
            member_buffer,
            params_buffer,
            params_written: None,
            group,
            cache: cache.clone(),
            max_members,
        })
    }

    /// How many members the crowd has.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the crowd has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The most members this device's buffers hold.
    pub fn max_members(&self) -> usize {
        self.max_members
    }

    /// Whether members outside a view are left out of its draws (the
    /// default). Off, every member is drawn by every view.
    pub fn set_culling(&mut self, culling: bool) {
        self.culling = culling;
    }

    /// Whether culling is on.
    pub fn culling(&self) -> bool {
        self.culling
    }

    /// Adds a member; its handle stays valid until it is removed.
    pub fn add(&mut self, member: CrowdMember) -> Result<CrowdHandle, CrowdError> {
        if self.members.len() >= self.max_members {
            return Err(CrowdError::TooManyMembers {
                members: self.members.len() + 1,
                bytes: (self.members.len() as u64 + 1) * MEMBER,
                limit: self.max_members as u64 * MEMBER,
            });
        }
        let record = pack(&member, &self.facts())?;
        let dense = self.members.len() as u32;
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
        let buckets = Buckets::of(record.effects);
        self.count(buckets, 1);
        self.members.push(member);
        self.records.push(record);
        self.buckets.push(buckets);
        self.slot_of.push(slot);
        self.is_dirty.push(false);
        self.mark(dense);
        Ok(CrowdHandle {
            crowd: self.id,
            slot,
            generation: self.slots[slot as usize].generation,
        })
    }

    /// The member behind `handle`, if it is still in the crowd.
    pub fn get(&self, handle: CrowdHandle) -> Option<&CrowdMember> {
        self.dense(handle).ok().map(|i| &self.members[i])
    }

    /// Replaces the member behind `handle`.
    pub fn set(&mut self, handle: CrowdHandle, member: CrowdMember) -> Result<(), CrowdError> {
        let i = self.dense(handle)?;
        let record = pack(&member, &self.facts())?;
        let buckets = Buckets::of(record.effects);
        self.count(self.buckets[i], -1);
        self.count(buckets, 1);
        self.members[i] = member;
        self.records[i] = record;
        self.buckets[i] = buckets;
        self.mark(i as u32);
        Ok(())
    }

    /// Moves the member behind `handle`.
    pub fn set_transform(
        &mut self,
        handle: CrowdHandle,
        transform: Mat4,
    ) -> Result<(), CrowdError> {
        let i = self.dense(handle)?;
        let member = CrowdMember {
            transform,
            ..self.members[i].clone()
        };
        self.set(handle, member)
    }

    /// Crossfades the member behind `handle` into `next`, from `at` over
    /// `duration` seconds (0 is a cut), starting from whichever of its
    /// current clips weighs more at `at` (see [`Playback::then`](crate::Playback::then)).
    pub fn play(
        &mut self,
        handle: CrowdHandle,
        next: ClipClock,
        at: f64,
        duration: f32,
    ) -> Result<(), CrowdError> {
        let i = self.dense(handle)?;
        let member = CrowdMember {
            playback: self.members[i].playback.then(next, at, duration),
            ..self.members[i].clone()
        };
        self.set(handle, member)
    }

    /// Removes the member behind `handle`: the last member moves into its
    /// place (one record rewritten), and the handle goes stale.
    pub fn remove(&mut self, handle: CrowdHandle) -> Result<CrowdMember, CrowdError> {
        let i = self.dense(handle)?;
        let last = self.members.len() - 1;
        self.count(self.buckets[i], -1);
        let slot = &mut self.slots[handle.slot as usize];
        slot.generation = slot.generation.wrapping_add(1);
        slot.dense = FREE;
        self.free.push(handle.slot);
        let member = self.members.swap_remove(i);
        self.records.swap_remove(i);
        self.buckets.swap_remove(i);
        self.slot_of.swap_remove(i);
        let was_dirty = self.is_dirty.swap_remove(i);
        if i != last {
            self.slots[self.slot_of[i] as usize].dense = i as u32;
            // The flag that came along with the moved member was its old
            // index's; whether `i` is listed is what `i` had.
            self.is_dirty[i] = was_dirty;
            self.mark(i as u32);
        }
        Ok(member)
    }

    /// Removes every member (their handles go stale).
    pub fn clear(&mut self) {
        for &slot in &self.slot_of {
            let s = &mut self.slots[slot as usize];
            s.generation = s.generation.wrapping_add(1);
            s.dense = FREE;
            self.free.push(slot);
        }
        self.members.clear();
        self.records.clear();
        self.buckets.clear();
        self.slot_of.clear();
        self.is_dirty.clear();
        self.dirty.clear();
        self.counts = [0; BUCKETS];
    }

    /// Every member with its handle, in the crowd's (dense) order.
    pub fn iter(&self) -> impl Iterator<Item = (CrowdHandle, &CrowdMember)> {
        self.slot_of.iter().zip(&self.members).map(|(&slot, m)| {
            (
                CrowdHandle {
                    crowd: self.id,
                    slot,
                    generation: self.slots[slot as usize].generation,
                },
                m,
            )
        })
    }

    fn dense(&self, handle: CrowdHandle) -> Result<usize, CrowdError> {
        match self.slots.get(handle.slot as usize) {
            Some(slot)
                if handle.crowd == self.id
                    && slot.generation == handle.generation
                    && slot.dense != FREE =>
            {
                Ok(slot.dense as usize)
            }
            _ => Err(CrowdError::StaleHandle),
        }
    }

    fn facts(&self) -> ModelFacts<'_> {
        ModelFacts {
            frame_count: self.frame_count,
            skin_count: self.skin_count,
            frame_bounds: &self.frame_bounds,
        }
    }

    fn count(&mut self, buckets: Buckets, delta: i32) {
        let add = |c: &mut u32| *c = c.wrapping_add_signed(delta);
        add(&mut self.counts[buckets.main]);
        if let Some(shell) = buckets.shell {
            add(&mut self.counts[shell]);
        }
    }

    fn mark(&mut self, dense: u32) {
        let flag = &mut self.is_dirty[dense as usize];
        if !*flag {
            *flag = true;
            self.dirty.push(dense);
        }
    }

    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    pub(crate) fn draw_model(&self) -> &DrawModel {
        &self.model
    }

    /// Members in each draw bucket.
    pub(crate) fn counts(&self) -> [u32; BUCKETS] {
        self.counts
    }

    /// Where each bucket starts among a view's visible records: bucket by
    /// bucket, each as large as its membership.
    pub(crate) fn bases(&self) -> [u32; BUCKETS] {
        let mut bases = [0; BUCKETS];
        let mut at = 0;
        for (base, count) in bases.iter_mut().zip(self.counts) {
            *base = at;
            at += count;
        }
        bases
    }

    /// Visible records a view can get at most.
    pub(crate) fn record_capacity(&self) -> u64 {
        self.counts.iter().map(|&c| u64::from(c)).sum()
    }

    pub(crate) fn group(&self) -> &wgpu::BindGroup {
        &self.group
    }

    /// Uploads what changed since the last flush: the changed members (as
    /// few writes as there are runs of consecutive changed members) and the
    /// parameters if they changed. Grows the member buffer when the crowd
    /// outgrew it (then every member is written once). Returns the bytes
    /// written.
    pub(crate) fn flush(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<u64, PrepareError> {
        let mut written = 0;
        let needed = self.records.len() as u64 * MEMBER;
        if needed > self.member_buffer.size() {
            self.member_buffer =
                member_buffer(device, needed).map_err(|message| PrepareError::Device {
                    operation: "growing a crowd",
                    message,
                })?;
            self.group = crowd_group(
                device,
                &self.cache,
                &self.member_buffer,
                &self.params_buffer,
            );
            self.all_dirty = true;
        }
        if self.all_dirty {
            queue.write_buffer(&self.member_buffer, 0, bytemuck::cast_slice(&self.records));
            written += needed;
            for &i in &self.dirty {
                self.is_dirty[i as usize] = false;
            }
            self.dirty.clear();
            self.all_dirty = false;
        } else if !self.dirty.is_empty() {
            self.dirty.sort_unstable();
            self.dirty.dedup();
            let mut k = 0;
            while k < self.dirty.len() {
                let start = self.dirty[k];
                let mut end = start + 1;
                k += 1;
                while k < self.dirty.len() && self.dirty[k] == end {
                    end += 1;
                    k += 1;
                }
                // Indices past the end were removed after being marked.
                let end = end.min(self.records.len() as u32);
                if start < end {
                    let run = &self.records[start as usize..end as usize];
                    queue.write_buffer(
                        &self.member_buffer,
                        u64::from(start) * MEMBER,
                        bytemuck::cast_slice(run),
                    );
                    written += (end - start) as u64 * MEMBER;
                }
            }
            for &i in &self.dirty {
                if let Some(flag) = self.is_dirty.get_mut(i as usize) {
                    *flag = false;
                }
            }
            self.dirty.clear();
        }
        let bases = self.bases();
        let params = CrowdParams {
            count: self.records.len() as u32,
            index_count: self.model.index_count,
            flags: if self.culling { CROWD_CULL } else { 0 },
            _pad: 0,
            bases: [
                [bases[0], bases[1], bases[2], bases[3]],
                [bases[4], bases[5], 0, 0],
            ],
        };
        if self.params_written != Some(params) {
            queue.write_buffer(&self.params_buffer, 0, bytemuck::bytes_of(&params));
            written += size_of::<CrowdParams>() as u64;
            self.params_written = Some(params);
        }
        Ok(written)
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
        ],
    })
}
