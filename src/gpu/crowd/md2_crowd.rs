//! The resident crowd: instances that live on the GPU with their own
//! animation clocks. The app adds, changes and removes members through
//! handles; each frame compute passes per view sample every clock, cull
//! against the view and lay the visible members out in member order for
//! one indirect draw per model and bucket. Per frame the CPU writes only
//! what changed.

use std::sync::Arc;

use glam::Mat4;

use super::attach::Attachment;
use super::clips::ClipTable;
use super::handle::{CrowdHandle, Slots};
use super::layout::CrowdLayout;
use super::member::{
    ClockState, MemberState, PlaybackState, pack, write_look, write_playback, write_transform,
};
use super::motion::Motion;
use super::uploads::{MotionAt, RESERVED_CLIPS, Uploads, binding_cap};
use crate::anim::{ClipClock, Playback, fade_weight_at};
use crate::contract::crowd::{ClipRecord, MemberRecord, member_part};
use crate::contract::{BUCKETS, Buckets, CROWD_CULL, MOTION_MOVED, MOTION_NEW, MOTION_POSE, rows};
use crate::gpu::device::buffers::caught;
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::device::submit::Submit;
use crate::gpu::error::{PrepareError, SetupError};
use crate::gpu::model::{DrawModel, GpuModel, Published};
use crate::model::Bounds;
use crate::scene::{
    CrowdError, CrowdMember, Effects, ModelFacts, check_play, check_playback, check_skin,
    check_tint, check_transform,
};

const MEMBER: u64 = size_of::<MemberRecord>() as u64;

/// Instances of one model that live on the GPU, each with its own clock:
/// transform, [`Playback`] (a clip from a start time at a speed, maybe
/// crossfading into another), skin, tint and effects.
///
/// Changes are batched: [`add`](Md2Crowd::add), [`set`](Md2Crowd::set),
/// the changes of one part through [`member`](Md2Crowd::member)
/// ([`set_transform`](MemberEdit::set_transform),
/// [`set_tint`](MemberEdit::set_tint), [`set_skin`](MemberEdit::set_skin),
/// [`set_effects`](MemberEdit::set_effects), [`play`](MemberEdit::play)) and
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
/// days (or centuries) as on its first frame: see [`clock`](crate::anim::clock).
///
/// Members are kept without a heap allocation each: a clip is stored once
/// per crowd however many members play it.
///
/// ```no_run
/// # fn frame(device: &wgpu::Device, queue: &wgpu::Queue, renderer: &mut md2_wgpu::Md2Renderer,
/// #          gpu_model: &md2_wgpu::GpuModel, camera: &md2_wgpu::Camera, time: f64)
/// # -> Result<(), Box<dyn std::error::Error>> {
/// use md2_wgpu::{CrowdMember, Md2Crowd, Quake2Player, anim::ClipClock};
/// let mut crowd = Md2Crowd::new(device, renderer, gpu_model)?;
/// let walker = crowd.add(CrowdMember::new(
///     glam::Mat4::from_translation(glam::vec3(40.0, 0.0, 0.0)),
///     ClipClock::new(Quake2Player::Run.clip(), time).with_speed(1.2),
/// ))?;
/// // Later: crossfade into an attack over a fifth of a second, and glow.
/// crowd.member(walker).play(ClipClock::new(Quake2Player::Attack.clip(), time), time, 0.2)?;
/// crowd.member(walker).set_tint([2.0, 1.5, 1.0, 1.0])?;
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
    slots: Slots,
    /// What the crowd draws, as of its model's last change it took.
    model: DrawModel,
    model_generation: u64,
    /// Where its model publishes what it draws when its levels change.
    published: Arc<Published>,
    facts: ModelFacts,
    frame_bounds: Arc<[Bounds]>,
    clips: ClipTable,
    /// Dense: what the app gave, and what the GPU holds of it.
    members: Vec<MemberState>,
    records: Vec<MemberRecord>,
    buckets: Vec<Buckets>,
    /// Members in each draw bucket.
    counts: [u32; BUCKETS],
    uploads: Uploads,
    /// What the previous frame showed of each member that changed.
    motion: Motion,
    culling: bool,
    cache: Md2Cache,
    /// The most members the device's buffers hold.
    max_members: usize,
    /// The crowd whose members this one's ride on a tag, if any.
    attachment: Option<Attachment>,
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
        cache.check_setup("creating a crowd")?;
        // Members are bound as storage, with the crowd's clip table after
        // them (room for RESERVED_CLIPS clips kept). Each view's visible
        // records take one small record per visible member (and per
        // shell); a view says at `prepare_crowds` if they do not fit.
        let binding = binding_cap(device);
        let member_limit =
            binding.saturating_sub(RESERVED_CLIPS * size_of::<ClipRecord>() as u64) / MEMBER;
        let published = Arc::clone(model.published());
        let (draw, model_generation) = published.latest();
        let max_members = member_limit.min(u64::from(u32::MAX)) as usize;
        let ((motion, uploads), error) = caught(device, || {
            let motion = Motion::new(device);
            let uploads = Uploads::new(device, cache, &motion);
            (motion, uploads)
        });
        let device_error = |message| SetupError::Device {
            operation: "creating a crowd",
            message,
        };
        let uploads = uploads.map_err(device_error)?;
        if let Some(message) = error {
            return Err(device_error(message));
        }
        Ok(Md2Crowd {
            slots: Slots::new(),
            model: draw,
            model_generation,
            published,
            facts: ModelFacts {
                frame_count: model.frame_count(),
                skin_count: model.skin_count(),
            },
            frame_bounds: Arc::clone(model.frame_bounds()),
            clips: ClipTable::default(),
            members: Vec::new(),
            records: Vec::new(),
            buckets: Vec::new(),
            counts: [0; BUCKETS],
            uploads,
            motion,
            culling: true,
            cache: cache.clone(),
            max_members,
            attachment: None,
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

    /// Bytes of GPU memory the crowd holds itself (each view that draws it
    /// keeps its visible records too: see
    /// [`low_level::crowd_view_bytes`](crate::gpu::low_level::crowd_view_bytes)):
    /// its members (128 bytes each, and room to grow), its clip table, its
    /// parameters and, once a view draws motion, each member's motion
    /// record (80 bytes).
    pub fn gpu_bytes(&self) -> u64 {
        self.uploads.gpu_bytes()
            + self.motion.gpu_bytes()
            + self.attachment.as_ref().map_or(0, Attachment::gpu_bytes)
    }

    /// How many distinct clips the members play (each is stored once).
    pub fn clip_count(&self) -> usize {
        self.clips.len()
    }

    /// Makes room for `additional` more members on the CPU, so that adding
    /// them allocates nothing, and on the GPU: the next `prepare_crowds`
    /// that needs a larger member buffer makes it exactly this large (where
    /// it would otherwise grow by up to an eighth past what it needs).
    pub fn reserve(&mut self, additional: usize) {
        self.members.reserve(additional);
        self.records.reserve(additional);
        self.buckets.reserve(additional);
        self.slots.reserve(additional);
        self.uploads.reserve(additional);
        self.motion.reserve(additional);
    }

    /// Whether members outside a view are left out of its draws (the
    /// default). Off, every member is drawn by every view.
    pub fn set_culling(&mut self, culling: bool) {
        self.culling = culling;
    }

    /// Whether culling is on.
    #[deprecated(
        note = "the app holds the setting it gave `set_culling`; this method goes in the next release"
    )]
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
        let handle = self.slots.push();
        let buckets = Buckets::of(record.effects);
        self.count(buckets, 1);
        self.members.push(state);
        self.records.push(record);
        self.buckets.push(buckets);
        self.uploads.push();
        self.motion.push(record.rows, handle.id());
        Ok(handle)
    }

    /// The member behind `handle`, if it is still in the crowd, as it was
    /// given (its clips share their names with the crowd's: no allocation).
    pub fn get(&self, handle: CrowdHandle) -> Option<CrowdMember> {
        self.slots
            .dense(handle)
            .ok()
            .map(|i| self.members[i].member(&self.clips))
    }

    /// Replaces the member behind `handle` (its whole record is uploaded).
    pub fn set(&mut self, handle: CrowdHandle, member: CrowdMember) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        let state = self.admit(&member)?;
        self.capture_motion(i, (MOTION_MOVED | MOTION_POSE) as u8);
        self.release(i);
        self.members[i] = state;
        self.records[i] = pack(&state, &self.clips);
        self.rebucket(i);
        self.uploads.mark(i, member_part::ALL);
        Ok(())
    }

    /// Moves the member behind `handle`. Uploads 60 bytes (the rows, and
    /// the look's words beside them, whose effects word says whether the
    /// transform mirrors).
    pub(super) fn edit_set_transform(
        &mut self,
        handle: CrowdHandle,
        transform: Mat4,
    ) -> Result<(), CrowdError> {
        self.set_transform_from(handle, transform, None)
    }

    /// Moves the member behind `handle` to `transform`; a view that draws
    /// motion takes it to have shown `previous` in the last frame where
    /// given (a riding part, whose drawn transform the GPU placed), else
    /// the transform it had.
    pub(super) fn set_transform_from(
        &mut self,
        handle: CrowdHandle,
        transform: Mat4,
        previous: Option<Mat4>,
    ) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        check_transform(&transform)?;
        let shown = previous.map_or(self.records[i].rows, |m| rows(&m));
        self.capture_motion_from(i, MOTION_MOVED as u8, shown);
        self.members[i].transform = transform;
        write_transform(&mut self.records[i], &self.members[i]);
        self.rebucket(i);
        self.uploads.mark(i, member_part::TRANSFORM);
        Ok(())
    }

    /// Tints the member behind `handle` (see [`CrowdMember::tint`]); alpha
    /// below 1 makes it translucent. Uploads 12 bytes (its intensity,
    /// colour and effects words), and nothing else in views that draw in
    /// member order, even where the member becomes (or stops being)
    /// translucent: the compute passes lay the draws out. A view that
    /// sorts translucent members back to front also rewrites its sort
    /// layout (24 bytes) where the number of translucent members changes.
    pub(super) fn edit_set_tint(
        &mut self,
        handle: CrowdHandle,
        tint: [f32; 4],
    ) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        check_tint(&tint)?;
        self.members[i].tint = tint;
        write_look(&mut self.records[i], &self.members[i]);
        self.rebucket(i);
        self.uploads.mark(i, member_part::TINT);
        Ok(())
    }

    /// Gives the member behind `handle` another skin layer. Uploads 4
    /// bytes.
    pub(super) fn edit_set_skin(
        &mut self,
        handle: CrowdHandle,
        skin: u32,
    ) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        check_skin(skin, &self.facts)?;
        self.members[i].skin = skin;
        write_look(&mut self.records[i], &self.members[i]);
        self.uploads.mark(i, member_part::SKIN);
        Ok(())
    }

    /// Gives the member behind `handle` these effects (shell, fullbright,
    /// minlight, shadow). Uploads 4 bytes. Where it adds or removes a
    /// shell, the views that keep extra records (materials, motion) also
    /// rewrite where those start (4 bytes), and views that sort rewrite
    /// their sort layout (24 bytes).
    pub(super) fn edit_set_effects(
        &mut self,
        handle: CrowdHandle,
        effects: Effects,
    ) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        self.members[i].effects = effects;
        self.records[i].effects = self.members[i].effects_word();
        self.rebucket(i);
        self.uploads.mark(i, member_part::EFFECTS);
        Ok(())
    }

    /// Crossfades the member behind `handle` into `next`, from `at` over
    /// `duration` seconds (0 is a cut), starting from whichever of its
    /// current clips weighs more at `at` (see [`Playback::then`]). Uploads
    /// its clips and clocks (72 bytes), and a clip the crowd did not play
    /// yet (32 bytes).
    pub(super) fn edit_play(
        &mut self,
        handle: CrowdHandle,
        next: ClipClock,
        at: f64,
        duration: f64,
    ) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        // Checked by the names it was given (`next`, `at`, `duration`);
        // the clock it fades from was checked when it came in.
        check_play(&next, at, duration, &self.facts)?;
        // `Playback::then` on the member as the crowd keeps it (clips by
        // number, nothing cloned): the new fade starts from whichever of
        // its current two clocks weighs more at `at`.
        let current = self.members[i].playback;
        let from = match current.fade {
            Some((to, start, length)) if fade_weight_at(start, length, at) >= 0.5 => to,
            _ => current.clock,
        };
        self.capture_motion(i, MOTION_POSE as u8);
        let to = ClockState {
            clip: self.clips.acquire(&next.clip, &self.frame_bounds),
            start: next.start,
            speed: next.speed,
        };
        // The kept clock's clip stays entered while the old ones are let go.
        self.clips.share(from.clip);
        self.release(i);
        self.members[i].playback = PlaybackState {
            clock: from,
            fade: Some((to, at, duration)),
        };
        write_playback(&mut self.records[i], &self.members[i], &self.clips);
        self.uploads.mark(i, member_part::PLAYBACK);
        Ok(())
    }

    /// The member behind `handle`, to change one part of it (transform,
    /// clip, skin, tint, effects), each change uploading only its own
    /// words. A stale handle is an error at the change, as every change to
    /// the crowd can fail:
    /// `crowd.member(handle).set_tint([1.0, 0.2, 0.2, 1.0])?`.
    pub fn member(&mut self, handle: CrowdHandle) -> MemberEdit<'_> {
        MemberEdit::new(self, handle)
    }

    /// Removes the member behind `handle`: the last member moves into its
    /// place (one record rewritten), and the handle goes stale.
    pub fn remove(&mut self, handle: CrowdHandle) -> Result<CrowdMember, CrowdError> {
        let i = self.slots.dense(handle)?;
        let member = self.members[i].member(&self.clips);
        self.release(i);
        self.count(self.buckets[i], -1);
        self.slots.swap_remove(handle, i);
        self.members.swap_remove(i);
        self.records.swap_remove(i);
        self.buckets.swap_remove(i);
        self.uploads.swap_remove(i);
        self.motion.swap_remove(i);
        Ok(member)
    }

    /// Marks the member behind `handle` as teleported: the next frame shows
    /// no motion for it (its previous transform and pose are taken to be its
    /// current ones), as for a member just added.
    pub(super) fn edit_mark_teleported(&mut self, handle: CrowdHandle) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        self.capture_motion(i, MOTION_NEW as u8);
        Ok(())
    }

    /// Removes every member (their handles go stale).
    pub fn clear(&mut self) {
        self.slots.clear();
        self.clips.clear();
        self.members.clear();
        self.records.clear();
        self.buckets.clear();
        self.uploads.clear();
        self.motion.clear();
        self.counts = [0; BUCKETS];
    }

    /// Every member with its handle, in the crowd's order: the order its
    /// translucent members blend in (with [`TranslucentOrder::AsGiven`](crate::scene::TranslucentOrder::AsGiven)).
    /// Members are added at the end; a removal moves the last member into
    /// the hole.
    pub fn iter(&self) -> impl Iterator<Item = (CrowdHandle, CrowdMember)> + '_ {
        self.members
            .iter()
            .enumerate()
            .map(|(i, m)| (self.slots.handle(i), m.member(&self.clips)))
    }

    /// Deprecated: [`Md2Crowd::member`]`(handle).set_transform(transform)`.
    #[deprecated(
        note = "use `crowd.member(handle).set_transform(transform)`; this method goes in the next release"
    )]
    pub fn set_transform(
        &mut self,
        handle: CrowdHandle,
        transform: Mat4,
    ) -> Result<(), CrowdError> {
        self.member(handle).set_transform(transform)
    }

    /// Deprecated: [`Md2Crowd::member`]`(handle).set_tint(tint)`.
    #[deprecated(
        note = "use `crowd.member(handle).set_tint(tint)`; this method goes in the next release"
    )]
    pub fn set_tint(&mut self, handle: CrowdHandle, tint: [f32; 4]) -> Result<(), CrowdError> {
        self.member(handle).set_tint(tint)
    }

    /// Deprecated: [`Md2Crowd::member`]`(handle).set_skin(skin)`.
    #[deprecated(
        note = "use `crowd.member(handle).set_skin(skin)`; this method goes in the next release"
    )]
    pub fn set_skin(&mut self, handle: CrowdHandle, skin: u32) -> Result<(), CrowdError> {
        self.member(handle).set_skin(skin)
    }

    /// Deprecated: [`Md2Crowd::member`]`(handle).set_effects(effects)`.
    #[deprecated(
        note = "use `crowd.member(handle).set_effects(effects)`; this method goes in the next release"
    )]
    pub fn set_effects(&mut self, handle: CrowdHandle, effects: Effects) -> Result<(), CrowdError> {
        self.member(handle).set_effects(effects)
    }

    /// Deprecated: [`Md2Crowd::member`]`(handle).play(next, at, duration)`.
    #[deprecated(
        note = "use `crowd.member(handle).play(next, at, duration)`; this method goes in the next release"
    )]
    pub fn play(
        &mut self,
        handle: CrowdHandle,
        next: ClipClock,
        at: f64,
        duration: f64,
    ) -> Result<(), CrowdError> {
        self.member(handle).play(next, at, duration)
    }

    /// Deprecated: [`Md2Crowd::member`]`(handle).mark_teleported()`.
    #[deprecated(
        note = "use `crowd.member(handle).mark_teleported()`; this method goes in the next release"
    )]
    pub fn mark_teleported(&mut self, handle: CrowdHandle) -> Result<(), CrowdError> {
        self.member(handle).mark_teleported()
    }

    /// Checks `member` and enters its clips: its state. Nothing is changed
    /// on an error.
    fn admit(&mut self, member: &CrowdMember) -> Result<MemberState, CrowdError> {
        check_transform(&member.transform)?;
        check_tint(&member.tint)?;
        check_skin(member.skin, &self.facts)?;
        check_playback(&member.playback, &self.facts)?;
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

    /// The time of the frame a change's previous transform and pose are
    /// those of, where some view draws the crowd's motion.
    pub(super) fn motion_time(&self) -> Option<f64> {
        self.motion.last_time()
    }

    /// Keeps what member `i` showed before a change of the kinds in `bits`.
    fn capture_motion(&mut self, i: usize, bits: u8) {
        self.capture_motion_from(i, bits, self.records[i].rows);
    }

    /// [`capture_motion`](Md2Crowd::capture_motion), the member having
    /// been drawn with `rows`.
    fn capture_motion_from(&mut self, i: usize, bits: u8, rows: [[f32; 4]; 3]) {
        let (members, clips) = (&self.members, &self.clips);
        self.motion.capture(i, bits, rows, |then| {
            members[i].member(clips).playback.pose(then)
        });
    }

    pub(crate) fn id(&self) -> u64 {
        self.slots.crowd()
    }

    /// Makes this crowd's members ride those of the crowd with id `parent`
    /// on the tag whose every frame `table` holds
    /// ([`tag_table`](super::attach::tag_table)): from the next
    /// `prepare_crowds` on, member `i`'s transform is placed on the GPU each
    /// frame from the parent's member `i` (see [`Attachment`]); the
    /// transforms the app gives are not drawn.
    pub(super) fn ride(
        &mut self,
        device: &wgpu::Device,
        parent: u64,
        table: &[[f32; 4]],
    ) -> Result<(), SetupError> {
        let attachment =
            Attachment::new(device, parent, table).map_err(|message| SetupError::Device {
                operation: "uploading a crowd's tags",
                message,
            })?;
        self.attachment = Some(attachment);
        Ok(())
    }

    /// The crowd ridden, if any.
    pub(crate) fn attachment(&self) -> Option<&Attachment> {
        self.attachment.as_ref()
    }

    /// The handle of the member at dense index `i`, if there is one.
    pub(super) fn handle_at(&self, i: usize) -> Option<CrowdHandle> {
        (i < self.members.len()).then(|| self.slots.handle(i))
    }

    /// The dense index of the member behind `handle`.
    pub(super) fn index_of(&self, handle: CrowdHandle) -> Result<usize, CrowdError> {
        self.slots.dense(handle)
    }

    /// Counts the flushes that uploaded motion.
    pub(crate) fn generation(&self) -> u32 {
        self.motion.generation()
    }

    pub(crate) fn draw_model(&self) -> &DrawModel {
        &self.model
    }

    /// How many times the crowd's model changed (got levels) before the
    /// crowd took what it draws now.
    pub(crate) fn model_generation(&self) -> u64 {
        self.model_generation
    }

    /// Where the crowd's visible records and work words lie.
    pub(crate) fn layout(&self) -> CrowdLayout {
        CrowdLayout::of(
            self.counts,
            self.records.len() as u32,
            self.model.levels.count,
        )
    }

    pub(crate) fn group(&self) -> &wgpu::BindGroup {
        self.uploads.group()
    }

    /// The member buffer the resident draws read.
    pub(crate) fn member_buffer(&self) -> &wgpu::Buffer {
        self.uploads.members()
    }

    /// The parameters' uniform buffer.
    pub(crate) fn params_buffer(&self) -> &wgpu::Buffer {
        self.uploads.params()
    }

    /// Culls the members on `bounds`, one per frame of the model, in its
    /// space (Quake axes), instead of the model's own: a player's legs are
    /// culled on a box that holds every part riding them. Clips entered
    /// before keep the bounds they were entered with: call it on an empty
    /// crowd.
    pub(super) fn set_frame_bounds(&mut self, bounds: Arc<[Bounds]>) {
        self.frame_bounds = bounds;
    }

    /// Uploads what changed since the last flush (see [`Uploads::flush`]);
    /// returns the bytes written. `now` is the frame's time; `motion` says
    /// the view draws motion, so the members' motion records must be on the
    /// GPU.
    pub(crate) fn flush(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        now: f64,
        motion: bool,
    ) -> Result<u64, PrepareError> {
        // The model got levels (or others) since: draw those.
        if self.published.generation() != self.model_generation {
            (self.model, self.model_generation) = self.published.latest();
        }
        let flags = if self.culling { CROWD_CULL } else { 0 };
        let layout = self.layout();
        let model = &self.model;
        let gpu = Submit {
            device,
            queue,
            cache: &self.cache,
        };
        self.uploads.flush(
            gpu,
            &self.records,
            &mut self.clips,
            MotionAt {
                motion: &mut self.motion,
                drawn: motion,
                now,
            },
            |clips_at, generation| layout.params(model, flags, clips_at, generation),
        )
    }
}

/// The member behind a handle, borrowed from its crowd to change
/// ([`Md2Crowd::member`]). Each change checks the handle (a removed
/// member's is stale: [`CrowdError::StaleHandle`]) and its value, and
/// uploads only the words it changes at the next `prepare_crowds`.
#[must_use = "a member edit changes nothing until one of its methods is called"]
#[derive(Debug)]
pub struct MemberEdit<'a> {
    crowd: &'a mut Md2Crowd,
    handle: CrowdHandle,
}

impl<'a> MemberEdit<'a> {
    pub(super) fn new(crowd: &'a mut Md2Crowd, handle: CrowdHandle) -> MemberEdit<'a> {
        MemberEdit { crowd, handle }
    }

    /// Moves the member. Uploads 60 bytes (the rows, and the look's words
    /// beside them, whose effects word says whether the transform mirrors).
    pub fn set_transform(&mut self, transform: Mat4) -> Result<(), CrowdError> {
        self.crowd.edit_set_transform(self.handle, transform)
    }

    /// Tints the member (see [`CrowdMember::tint`](crate::CrowdMember::tint));
    /// alpha below 1 makes it translucent. Uploads 12 bytes (its intensity,
    /// colour and effects words), and nothing else in views that draw in
    /// member order, even where the member becomes (or stops being)
    /// translucent: the compute passes lay the draws out. A view that
    /// sorts translucent members back to front also rewrites its sort
    /// layout (24 bytes) where the number of translucent members changes.
    pub fn set_tint(&mut self, tint: [f32; 4]) -> Result<(), CrowdError> {
        self.crowd.edit_set_tint(self.handle, tint)
    }

    /// Gives the member another skin layer. Uploads 4 bytes.
    pub fn set_skin(&mut self, skin: u32) -> Result<(), CrowdError> {
        self.crowd.edit_set_skin(self.handle, skin)
    }

    /// Gives the member these effects (shell, fullbright, minlight,
    /// shadow). Uploads 4 bytes. Where it adds or removes a shell, the
    /// views that keep extra records (materials, motion) also rewrite where
    /// those start (4 bytes), and views that sort rewrite their sort layout
    /// (24 bytes).
    pub fn set_effects(&mut self, effects: Effects) -> Result<(), CrowdError> {
        self.crowd.edit_set_effects(self.handle, effects)
    }

    /// Crossfades the member into `next`, from `at` over `duration` seconds
    /// (0 is a cut), starting from whichever of its current clips weighs
    /// more at `at` (see [`Playback::then`](crate::anim::Playback::then)).
    /// Uploads its clips and clocks (72 bytes), and a clip the crowd did not
    /// play yet (32 bytes).
    pub fn play(&mut self, next: ClipClock, at: f64, duration: f64) -> Result<(), CrowdError> {
        self.crowd.edit_play(self.handle, next, at, duration)
    }

    /// Marks the member as teleported: the next frame shows no motion for
    /// it (its previous transform and pose are taken to be its current
    /// ones), as for a member just added.
    pub fn mark_teleported(&mut self) -> Result<(), CrowdError> {
        self.crowd.edit_mark_teleported(self.handle)
    }
}
