//! The resident crowd: instances that live on the GPU with their own
//! animation clocks. The app adds, changes and removes members through
//! handles; each frame compute passes per view sample every clock, cull
//! against the view and lay the visible members out in member order for
//! one indirect draw per model and bucket. Per frame the CPU writes only
//! what changed.

mod clips;
mod member;
mod view;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::Mat4;

pub use member::CrowdMember;
pub(crate) use view::{ARGS, CrowdView};

use super::cache::Md2Cache;
use super::device::{grow, write_changed};
use super::effects::Effects;
use super::error::{CrowdError, PrepareError, SetupError};
use super::instance::pose_words;
use super::instance::{Buckets, OPAQUE, OPAQUE_MIRRORED, SHELL, TRANSLUCENT, opaque_at};
use super::model::{DrawModel, GpuModel};
use super::shader::{
    BUCKETS, CROWD_CULL, CrowdParams, GROUP_WORDS, MAX_LEVELS, MOTION_FLAG_BITS, MOTION_MOVED,
    MOTION_NEW, MOTION_POSE, MemberRecord, MotionRecord, SORT_BLOCK, SUMS, WORKGROUP_SIZE,
    member_part,
};
use crate::anim::{ClipClock, Playback};
use clips::ClipTable;
use member::{
    ClockState, MemberState, ModelFacts, PlaybackState, check_playback, check_skin, check_tint,
    check_transform, pack, write_look, write_playback, write_transform,
};

const MEMBER: u64 = size_of::<MemberRecord>() as u64;
const MOTION: u64 = size_of::<MotionRecord>() as u64;
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

/// Where a crowd's visible records and work words lie, the same in every
/// view (each view sizes its buffers from it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CrowdLayout {
    pub count: u32,
    /// Levels of detail drawn.
    pub levels: u32,
    /// Room in each bucket: what a view can find visible at most (an
    /// opaque member may be at any level drawn).
    pub counts: [u32; BUCKETS],
    /// Where each bucket starts among the visible records.
    pub bases: [u32; BUCKETS],
    /// Workgroups of the per-member passes.
    pub groups: u32,
    /// Per sorted bucket (translucent, shell): its keys' padded count (0
    /// for an empty bucket).
    pub sort_size: [u32; 2],
}

/// One value per level of detail, as CrowdParams holds them: vec4s, level
/// `l` at `[l / 4][l % 4]`, `fill` past the last.
fn levels_of<T: Copy>(values: [T; MAX_LEVELS], fill: T) -> [[T; 4]; 2] {
    let mut out = [[fill; 4]; 2];
    for (l, v) in values.into_iter().enumerate() {
        out[l / 4][l % 4] = v;
    }
    out
}

impl CrowdLayout {
    /// The layout of `count` members, `kinds` of them in each full-detail
    /// bucket, drawn at `levels` levels of detail.
    fn of(kinds: [u32; BUCKETS], count: u32, levels: usize) -> CrowdLayout {
        let mut counts = [0; BUCKETS];
        for level in 0..levels {
            counts[opaque_at(level, false)] = kinds[OPAQUE];
            counts[opaque_at(level, true)] = kinds[OPAQUE_MIRRORED];
        }
        counts[TRANSLUCENT] = kinds[TRANSLUCENT];
        counts[SHELL] = kinds[SHELL];
        let mut bases = [0; BUCKETS];
        let mut at = 0;
        for (base, c) in bases.iter_mut().zip(counts) {
            *base = at;
            at += c;
        }
        let padded = |c: u32| {
            if c == 0 {
                0
            } else {
                c.next_power_of_two().max(SORT_BLOCK)
            }
        };
        CrowdLayout {
            count,
            levels: levels as u32,
            counts,
            bases,
            groups: count.div_ceil(WORKGROUP_SIZE),
            sort_size: [padded(counts[TRANSLUCENT]), padded(counts[SHELL])],
        }
    }

    /// The bucket sorted as `region` 0 or 1.
    pub fn sorted_bucket(&self, region: u32) -> usize {
        if region == 0 { TRANSLUCENT } else { SHELL }
    }

    fn total(&self) -> u64 {
        self.counts.iter().map(|&c| u64::from(c)).sum()
    }

    /// Visible records a view needs room for; one that sorts keeps its
    /// sorted buckets' records a second time before ordering them. Without
    /// the extra records, which a view that wants them keeps as many again.
    pub fn records(&self, sort: bool) -> u64 {
        let scratch = u64::from(self.counts[TRANSLUCENT]) + u64::from(self.counts[SHELL]);
        self.total() + if sort { scratch } else { 0 }
    }

    /// Where the keys of each sorted bucket start in the work buffer.
    fn key_bases(&self) -> [u64; 2] {
        let first = u64::from(SUMS)
            + u64::from(GROUP_WORDS) * u64::from(self.groups)
            + u64::from(self.count);
        [first, first + 2 * u64::from(self.sort_size[0])]
    }

    /// Words of a view's work buffer.
    pub fn work_words(&self, sort: bool) -> u64 {
        let keys = 2 * (u64::from(self.sort_size[0]) + u64::from(self.sort_size[1]));
        self.key_bases()[0] + if sort { keys } else { 0 }
    }

    fn params(&self, model: &DrawModel, flags: u32, generation: u32) -> CrowdParams {
        let keys = self.key_bases();
        let total = self.total() as u32;
        let mut bases = [[0; 4]; 3];
        for (b, &base) in self.bases.iter().enumerate() {
            bases[b / 4][b % 4] = base;
        }
        CrowdParams {
            count: self.count,
            levels: self.levels,
            flags,
            groups: self.groups,
            bases,
            sort: [
                keys[0] as u32,
                keys[1] as u32,
                total,
                total + self.counts[TRANSLUCENT],
            ],
            sort_size: self.sort_size,
            extra_base: [self.records(false) as u32, self.records(true) as u32],
            generation,
            _pad0: 0,
            _pad1: 0,
            _pad2: 0,
            level_first: levels_of(model.ranges.map(|(first, _)| first), 0),
            level_count: levels_of(model.ranges.map(|(_, count)| count), 0),
            level_error: levels_of(model.detail.errors, 0.0),
            lod_sphere: model.detail.sphere,
        }
    }
}

/// Instances of one model that live on the GPU, each with its own clock:
/// transform, [`Playback`] (a clip from a start time at a speed, maybe
/// crossfading into another), skin, tint and effects.
///
/// Changes are batched: [`add`](Md2Crowd::add), [`set`](Md2Crowd::set),
/// the setters of one part ([`set_transform`](Md2Crowd::set_transform),
/// [`set_tint`](Md2Crowd::set_tint), [`set_skin`](Md2Crowd::set_skin),
/// [`set_effects`](Md2Crowd::set_effects), [`play`](Md2Crowd::play)) and
/// [`remove`](Md2Crowd::remove) touch the CPU copy, and the next
/// [`Md2Renderer::prepare_crowds`](crate::Md2Renderer::prepare_crowds)
/// writes only the bytes that changed: a setter of one part uploads that
/// part of the member's record, not all of it. Removal moves the last member
/// into the hole, so the set stays dense and one member is rewritten. A
/// frame in which nothing changed uploads nothing but the time.
///
/// Every frame, per view, compute passes turn each member's clock into a
/// pose by exactly [`Playback::pose`]'s rules, test the member's bounds
/// (the union of every frame its clips can show, transformed; shells and
/// shadows included) against the view's frustum, and lay the visible ones
/// out for `draw_indexed_indirect`, in member order: the same crowd at the
/// same time gives the same pixels every frame. Nothing needs a wgpu
/// feature beyond WebGPU's. Times are seconds on the app's clock as `f64`,
/// kept on the GPU as integer ticks, so a crowd samples as precisely after
/// days (or centuries) as on its first frame: see [`clock`](crate::clock).
///
/// Members are kept without a heap allocation each: a clip is stored once
/// per crowd however many members play it.
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
/// // Later: crossfade into an attack over a fifth of a second, and glow.
/// crowd.play(walker, ClipClock::new(Quake2Player::Attack.clip(), time), time, 0.2)?;
/// crowd.set_tint(walker, [2.0, 1.5, 1.0, 1.0])?;
///
/// // Every frame, before the render pass:
/// let mut encoder = device.create_command_encoder(&Default::default());
/// renderer.prepare(device, queue, camera, &[])?;
/// renderer.prepare_crowds(device, queue, &mut encoder, time, [&mut crowd])?;
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
    clips: ClipTable,
    /// Dense: what the app gave, and what the GPU holds of it.
    members: Vec<MemberState>,
    records: Vec<MemberRecord>,
    buckets: Vec<Buckets>,
    /// Dense index to slot.
    slot_of: Vec<u32>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Members in each draw bucket.
    counts: [u32; BUCKETS],
    /// Dense indices changed since the last flush (each listed once), and
    /// per index the bytes of its record to write (empty: not listed).
    dirty: Vec<u32>,
    dirty_bytes: Vec<(u8, u8)>,
    /// Every record must be written (after the buffer grew).
    all_dirty: bool,
    /// What the previous frame showed of each member that changed (see
    /// crowd.wgsl's `MemberMotion`), as last uploaded or about to be.
    motions: Vec<MotionRecord>,
    /// Per member, the MOTION_* bits of changes since the last flush (0:
    /// none).
    motion_pending: Vec<u8>,
    /// Dense indices whose motion record must be uploaded, each once.
    motion_upload: Vec<u32>,
    in_motion_upload: Vec<bool>,
    /// Counts the flushes that uploaded motion.
    generation: u32,
    /// The time of the last flush: the previous frame's.
    last_now: Option<f64>,
    /// The members' motion records on the GPU, made when a view first
    /// draws motion; until then a stand-in fills the binding.
    motion_buffer: Option<wgpu::Buffer>,
    motion_stand_in: wgpu::Buffer,
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
    /// An empty crowd of `model`. Any renderer of the same device draws it
    /// (pass the renderer's cache, or the renderer, to share the cache's
    /// layouts). Needs compute shaders.
    pub fn new(
        device: &wgpu::Device,
        cache: &impl AsRef<Md2Cache>,
        model: &GpuModel,
    ) -> Result<Md2Crowd, SetupError> {
        let cache = cache.as_ref();
        let limits = device.limits();
        // Members are bound as storage; the visible records are bound as
        // storage and as vertices, with room for each member at every level
        // of detail drawn and for a shell. A view that sorts keeps up to
        // twice as many, and says so at `prepare_crowds` if they do not fit.
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let member_limit = binding / MEMBER;
        let room = model.draw_model().detail.count as u64 + 1;
        let record_limit = binding / (room * size_of::<super::shader::InstanceRecord>() as u64);
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
        let motion_stand_in = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu crowd motion stand-in"),
            size: MOTION,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let group = crowd_group(
            device,
            cache,
            &member_buffer,
            &params_buffer,
            &motion_stand_in,
        );
        Ok(Md2Crowd {
            id: NEXT_CROWD.fetch_add(1, Ordering::Relaxed),
            model: model.draw_model(),
            frame_count: model.frame_count,
            skin_count: model.skin_count(),
            frame_bounds: Arc::clone(&model.frame_bounds),
            clips: ClipTable::default(),
            members: Vec::new(),
            records: Vec::new(),
            buckets: Vec::new(),
            slot_of: Vec::new(),
            slots: Vec::new(),
            free: Vec::new(),
            counts: [0; BUCKETS],
            dirty: Vec::new(),
            dirty_bytes: Vec::new(),
            all_dirty: false,
            motions: Vec::new(),
            motion_pending: Vec::new(),
            motion_upload: Vec::new(),
            in_motion_upload: Vec::new(),
            generation: 0,
            last_now: None,
            motion_buffer: None,
            motion_stand_in,
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

    /// How many distinct clips the members play (each is stored once).
    pub fn clip_count(&self) -> usize {
        self.clips.len()
    }

    /// Makes room for `additional` more members on the CPU, so that adding
    /// them allocates nothing (the GPU buffer grows at the next
    /// `prepare_crowds`).
    pub fn reserve(&mut self, additional: usize) {
        self.members.reserve(additional);
        self.records.reserve(additional);
        self.buckets.reserve(additional);
        self.slot_of.reserve(additional);
        self.slots
            .reserve(additional.saturating_sub(self.free.len()));
        self.dirty.reserve(additional);
        self.dirty_bytes.reserve(additional);
        self.motions.reserve(additional);
        self.motion_pending.reserve(additional);
        self.motion_upload.reserve(additional);
        self.in_motion_upload.reserve(additional);
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

    /// Adds a member at the end of the crowd's order; its handle stays
    /// valid until it is removed.
    pub fn add(&mut self, member: CrowdMember) -> Result<CrowdHandle, CrowdError> {
        if self.members.len() >= self.max_members {
            return Err(CrowdError::TooManyMembers {
                members: self.members.len() + 1,
                bytes: (self.members.len() as u64 + 1) * MEMBER,
                limit: self.max_members as u64 * MEMBER,
            });
        }
        let state = self.admit(&member)?;
        let record = pack(&state, &self.clips);
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
        self.members.push(state);
        self.records.push(record);
        self.buckets.push(buckets);
        self.slot_of.push(slot);
        self.dirty_bytes.push((0, 0));
        self.mark(dense, member_part::ALL);
        self.motions.push(MotionRecord {
            previous_rows: record.rows,
            flags_id: slot << MOTION_FLAG_BITS,
            ..MotionRecord::default()
        });
        self.motion_pending.push(0);
        self.in_motion_upload.push(false);
        self.capture_motion(dense as usize, MOTION_NEW as u8);
        Ok(CrowdHandle {
            crowd: self.id,
            slot,
            generation: self.slots[slot as usize].generation,
        })
    }

    /// The member behind `handle`, if it is still in the crowd, as it was
    /// given (its clips share their names with the crowd's: no allocation).
    pub fn get(&self, handle: CrowdHandle) -> Option<CrowdMember> {
        self.dense(handle)
            .ok()
            .map(|i| self.members[i].member(&self.clips))
    }

    /// Replaces the member behind `handle` (its whole record is uploaded).
    pub fn set(&mut self, handle: CrowdHandle, member: CrowdMember) -> Result<(), CrowdError> {
        let i = self.dense(handle)?;
        let state = self.admit(&member)?;
        self.capture_motion(i, (MOTION_MOVED | MOTION_POSE) as u8);
        self.release(i);
        self.members[i] = state;
        let record = pack(&state, &self.clips);
        self.records[i] = record;
        self.rebucket(i);
        self.mark(i as u32, member_part::ALL);
        Ok(())
    }

    /// Moves the member behind `handle`. Uploads 64 bytes.
    pub fn set_transform(
        &mut self,
        handle: CrowdHandle,
        transform: Mat4,
    ) -> Result<(), CrowdError> {
        let i = self.dense(handle)?;
        check_transform(&transform)?;
        self.capture_motion(i, MOTION_MOVED as u8);
        self.members[i].transform = transform;
        write_transform(&mut self.records[i], &self.members[i]);
        self.rebucket(i);
        self.mark(i as u32, member_part::TRANSFORM);
        Ok(())
    }

    /// Tints the member behind `handle` (see [`CrowdMember::tint`]); alpha
    /// below 1 makes it translucent. Uploads 24 bytes.
    pub fn set_tint(&mut self, handle: CrowdHandle, tint: [f32; 4]) -> Result<(), CrowdError> {
        let i = self.dense(handle)?;
        check_tint(&tint)?;
        self.members[i].tint = tint;
        write_look(&mut self.records[i], &self.members[i]);
        self.rebucket(i);
        self.mark(i as u32, member_part::TINT);
        Ok(())
    }

    /// Gives the member behind `handle` another skin layer. Uploads 4
    /// bytes.
    pub fn set_skin(&mut self, handle: CrowdHandle, skin: u32) -> Result<(), CrowdError> {
        let i = self.dense(handle)?;
        check_skin(skin, &self.facts())?;
        self.members[i].skin = skin;
        write_look(&mut self.records[i], &self.members[i]);
        self.mark(i as u32, member_part::SKIN);
        Ok(())
    }

    /// Gives the member behind `handle` these effects (shell, fullbright,
    /// minlight, shadow). Uploads 4 bytes.
    pub fn set_effects(&mut self, handle: CrowdHandle, effects: Effects) -> Result<(), CrowdError> {
        let i = self.dense(handle)?;
        self.members[i].effects = effects;
        self.records[i].effects = self.members[i].effects_word();
        self.rebucket(i);
        self.mark(i as u32, member_part::EFFECTS);
        Ok(())
    }

    /// Crossfades the member behind `handle` into `next`, from `at` over
    /// `duration` seconds (0 is a cut), starting from whichever of its
    /// current clips weighs more at `at` (see [`Playback::then`]). Uploads
    /// its clocks and bounds (144 bytes).
    pub fn play(
        &mut self,
        handle: CrowdHandle,
        next: ClipClock,
        at: f64,
        duration: f64,
    ) -> Result<(), CrowdError> {
        let i = self.dense(handle)?;
        let playback = self.members[i]
            .member(&self.clips)
            .playback
            .then(next, at, duration);
        check_playback(&playback, &self.facts())?;
        self.capture_motion(i, MOTION_POSE as u8);
        let state = self.enter(&playback);
        self.release(i);
        self.members[i].playback = state;
        write_playback(&mut self.records[i], &self.members[i], &self.clips);
        self.mark(i as u32, member_part::PLAYBACK);
        Ok(())
    }

    /// Removes the member behind `handle`: the last member moves into its
    /// place (one record rewritten), and the handle goes stale.
    pub fn remove(&mut self, handle: CrowdHandle) -> Result<CrowdMember, CrowdError> {
        let i = self.dense(handle)?;
        let last = self.members.len() - 1;
        let member = self.members[i].member(&self.clips);
        self.release(i);
        self.count(self.buckets[i], -1);
        let slot = &mut self.slots[handle.slot as usize];
        slot.generation = slot.generation.wrapping_add(1);
        slot.dense = FREE;
        self.free.push(handle.slot);
        self.members.swap_remove(i);
        self.records.swap_remove(i);
        self.buckets.swap_remove(i);
        self.slot_of.swap_remove(i);
        // Whether index `i` is in the dirty lists stays as it was; the
        // moved member's old index, if listed, is now past the end (flush
        // skips it).
        let at_i = self.dirty_bytes.swap_remove(i);
        let motion_at_i = self.in_motion_upload.swap_remove(i);
        self.motions.swap_remove(i);
        self.motion_pending.swap_remove(i);
        if i != last {
            self.slots[self.slot_of[i] as usize].dense = i as u32;
            self.dirty_bytes[i] = at_i;
            self.mark(i as u32, member_part::ALL);
            self.in_motion_upload[i] = motion_at_i;
            self.queue_motion(i);
        }
        Ok(member)
    }

    /// Marks the member behind `handle` as teleported: the next frame shows
    /// no motion for it (its previous transform and pose are taken to be its
    /// current ones), as for a member just added.
    pub fn mark_teleported(&mut self, handle: CrowdHandle) -> Result<(), CrowdError> {
        let i = self.dense(handle)?;
        self.capture_motion(i, MOTION_NEW as u8);
        Ok(())
    }

    /// Removes every member (their handles go stale).
    pub fn clear(&mut self) {
        for &slot in &self.slot_of {
            let s = &mut self.slots[slot as usize];
            s.generation = s.generation.wrapping_add(1);
            s.dense = FREE;
            self.free.push(slot);
        }
        self.clips.clear();
        self.members.clear();
        self.records.clear();
        self.buckets.clear();
        self.slot_of.clear();
        self.dirty_bytes.clear();
        self.dirty.clear();
        self.motions.clear();
        self.motion_pending.clear();
        self.motion_upload.clear();
        self.in_motion_upload.clear();
        self.counts = [0; BUCKETS];
    }

    /// Every member with its handle, in the crowd's order: the order its
    /// translucent members blend in (with [`TranslucentOrder::AsGiven`](crate::TranslucentOrder::AsGiven)).
    /// Members are added at the end; a removal moves the last member into
    /// the hole.
    pub fn iter(&self) -> impl Iterator<Item = (CrowdHandle, CrowdMember)> + '_ {
        self.slot_of.iter().zip(&self.members).map(|(&slot, m)| {
            (
                CrowdHandle {
                    crowd: self.id,
                    slot,
                    generation: self.slots[slot as usize].generation,
                },
                m.member(&self.clips),
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

    fn facts(&self) -> ModelFacts {
        ModelFacts {
            frame_count: self.frame_count,
            skin_count: self.skin_count,
        }
    }

    /// Checks `member` and enters its clips: its state. Nothing is changed
    /// on an error.
    fn admit(&mut self, member: &CrowdMember) -> Result<MemberState, CrowdError> {
        check_transform(&member.transform)?;
        check_tint(&member.tint)?;
        check_skin(member.skin, &self.facts())?;
        check_playback(&member.playback, &self.facts())?;
        Ok(MemberState {
            transform: member.transform,
            playback: self.enter(&member.playback),
            skin: member.skin,
            tint: member.tint,
            effects: member.effects,
        })
    }

    /// A checked playback with its clips entered in the table.
    fn enter(&mut self, playback: &Playback) -> PlaybackState {
        let mut clock = |c: &ClipClock| ClockState {
            clip: self.clips.acquire(&c.clip, &self.frame_bounds),
            start: c.start,
            speed: c.speed,
        };
        PlaybackState {
            clock: clock(&playback.clock),
            fade: playback
                .fade
                .as_ref()
                .map(|f| (clock(&f.to), f.start, f.duration)),
        }
    }

    /// Lets go of the clips member `i` plays.
    fn release(&mut self, i: usize) {
        for clip in self.members[i].playback.clips() {
            self.clips.release(clip);
        }
    }

    /// Moves member `i` to the buckets its record's effects say.
    fn rebucket(&mut self, i: usize) {
        let buckets = Buckets::of(self.records[i].effects);
        if buckets != self.buckets[i] {
            self.count(self.buckets[i], -1);
            self.count(buckets, 1);
            self.buckets[i] = buckets;
        }
    }

    fn count(&mut self, buckets: Buckets, delta: i32) {
        let add = |c: &mut u32| *c = c.wrapping_add_signed(delta);
        add(&mut self.counts[buckets.main]);
        if let Some(shell) = buckets.shell {
            add(&mut self.counts[shell]);
        }
    }

    /// Notes what member `i` showed in the last frame before a change of the
    /// kinds in `bits` (MOTION_*): the first change of each kind since the
    /// last flush keeps the transform (MOVED) or the pose at the last
    /// flush's time (POSE) it replaces; MOTION_NEW says there is none.
    fn capture_motion(&mut self, i: usize, mut bits: u8) {
        let pending = self.motion_pending[i];
        let new = MOTION_NEW as u8;
        if bits & MOTION_MOVED as u8 != 0 && pending & (MOTION_MOVED as u8 | new) == 0 {
            self.motions[i].previous_rows = self.records[i].rows;
        }
        if bits & MOTION_POSE as u8 != 0 && pending & (MOTION_POSE as u8 | new) == 0 {
            // The pose costs a CPU sample: only for a crowd some view draws
            // motion of. Without a previous frame there is no motion.
            match self.last_now.filter(|_| self.motion_buffer.is_some()) {
                Some(then) => {
                    let pose = self.members[i].member(&self.clips).playback.pose(then);
                    let (frames, lerp) = pose_words(&pose);
                    let m = &mut self.motions[i];
                    m.previous_frames = [frames[0] | frames[1] << 16, frames[2] | frames[3] << 16];
                    m.previous_lerp = lerp;
                }
                None => bits = new,
            }
        }
        self.motion_pending[i] = pending | bits;
        self.queue_motion(i);
    }

    /// Lists member `i`'s motion record for the next flush's upload.
    fn queue_motion(&mut self, i: usize) {
        if !std::mem::replace(&mut self.in_motion_upload[i], true) {
            self.motion_upload.push(i as u32);
        }
    }

    /// Marks `bytes` of member `dense`'s record for the next flush.
    fn mark(&mut self, dense: u32, bytes: std::ops::Range<usize>) {
        let range = &mut self.dirty_bytes[dense as usize];
        let (lo, hi) = (bytes.start as u8, bytes.end as u8);
        if *range == (0, 0) {
            *range = (lo, hi);
            self.dirty.push(dense);
        } else {
            *range = (range.0.min(lo), range.1.max(hi));
        }
    }

    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Counts the flushes that uploaded motion.
    pub(crate) fn generation(&self) -> u32 {
        self.generation
    }

    pub(crate) fn draw_model(&self) -> &DrawModel {
        &self.model
    }

    /// Where the crowd's visible records and work words lie.
    pub(crate) fn layout(&self) -> CrowdLayout {
        CrowdLayout::of(
            self.counts,
            self.records.len() as u32,
            self.model.detail.count,
        )
    }

    pub(crate) fn group(&self) -> &wgpu::BindGroup {
        &self.group
    }

    /// Uploads what changed since the last flush: each changed member's
    /// changed bytes (one write for a run of consecutive wholly changed
    /// members), and the parameters if they changed. Grows the member
    /// buffer when the crowd outgrew it (then every member is written once).
    /// Returns the bytes written.
    ///
    /// `now` is the frame's time; `motion` says the view draws motion, so
    /// the members' motion records must be on the GPU.
    pub(crate) fn flush(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        now: f64,
        motion: bool,
    ) -> Result<u64, PrepareError> {
        let mut written = 0;
        let device_error = |message| PrepareError::Device {
            operation: "growing a crowd",
            message,
        };
        let needed = self.records.len() as u64 * MEMBER;
        let mut regroup = false;
        if needed > self.member_buffer.size() {
            self.member_buffer = member_buffer(device, needed).map_err(device_error)?;
            self.all_dirty = true;
            regroup = true;
        }
        let motion_needed = self.records.len().max(1) as u64 * MOTION;
        let motion_fits = self
            .motion_buffer
            .as_ref()
            .map(|b| b.size() >= motion_needed);
        if motion_fits == Some(false) || (motion && motion_fits.is_none()) {
            self.motion_buffer = Some(
                grow(
                    device,
                    "md2-wgpu crowd motion",
                    motion_needed,
                    MIN_MEMBERS * MOTION,
                    device.limits().max_buffer_size / MOTION * MOTION,
                    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                )
                .map_err(device_error)?,
            );
            if motion_fits.is_none() {
                // Changes made before any view drew motion kept no pose:
                // they show none.
                for (m, pending) in self.motions.iter_mut().zip(&mut self.motion_pending) {
                    m.flags_id &= !((1 << MOTION_FLAG_BITS) - 1);
                    *pending = 0;
                }
            }
            for i in 0..self.motions.len() {
                self.queue_motion(i);
            }
            regroup = true;
        }
        if regroup {
            self.group = crowd_group(
                device,
                &self.cache,
                &self.member_buffer,
                &self.params_buffer,
                self.motion_buffer.as_ref().unwrap_or(&self.motion_stand_in),
            );
        }
        if self.all_dirty {
            queue.write_buffer(&self.member_buffer, 0, bytemuck::cast_slice(&self.records));
            written += needed;
            self.all_dirty = false;
        } else if !self.dirty.is_empty() {
            // An index can be listed twice (removed past the end, then
            // added again), and be past the end.
            self.dirty.sort_unstable();
            self.dirty.dedup();
            let len = self.records.len() as u32;
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
                let run: &[u8] = bytemuck::cast_slice(&self.records[start..end]);
                let (lo, hi) = (usize::from(bytes.0), usize::from(bytes.1));
                let run = &run[lo..run.len() - (MEMBER as usize - hi)];
                queue.write_buffer(&self.member_buffer, start as u64 * MEMBER + lo as u64, run);
                written += run.len() as u64;
            }
        }
        for &i in &self.dirty {
            if let Some(range) = self.dirty_bytes.get_mut(i as usize) {
                *range = (0, 0);
            }
        }
        self.dirty.clear();
        written += self.flush_motion(queue);
        self.last_now = Some(now);
        let flags = if self.culling { CROWD_CULL } else { 0 };
        let params = self.layout().params(&self.model, flags, self.generation);
        written += write_changed(
            queue,
            &self.params_buffer,
            self.params_written.as_ref(),
            &params,
        );
        self.params_written = Some(params);
        Ok(written)
    }
}

impl Md2Crowd {
    /// Uploads the listed motion records, stamping those with changes since
    /// the last flush with a new generation; returns the bytes written.
    fn flush_motion(&mut self, queue: &wgpu::Queue) -> u64 {
        let mut written = 0;
        let len = self.motions.len() as u32;
        let mut list = std::mem::take(&mut self.motion_upload);
        list.retain(|&i| i < len);
        list.sort_unstable();
        list.dedup();
        if let Some(buffer) = &self.motion_buffer {
            if list.iter().any(|&i| self.motion_pending[i as usize] != 0) {
                self.generation = self.generation.wrapping_add(1);
            }
            for &i in &list {
                let i = i as usize;
                let pending = u32::from(self.motion_pending[i]);
                let m = &mut self.motions[i];
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
                let run: &[u8] = bytemuck::cast_slice(&self.motions[start..end]);
                queue.write_buffer(buffer, start as u64 * MOTION, run);
                written += run.len() as u64;
            }
        }
        for &i in &list {
            self.motion_pending[i as usize] = 0;
            self.in_motion_upload[i as usize] = false;
        }
        list.clear();
        self.motion_upload = list;
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
