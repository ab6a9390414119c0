//! The resident crowd: instances that live on the GPU with their own
//! animation clocks. The app adds, changes and removes members through
//! handles; each frame compute passes per view sample every clock, cull
//! against the view and lay the visible members out in member order for
//! one indirect draw per model and bucket. Per frame the CPU writes only
//! what changed.

use std::sync::Arc;

use glam::Mat4;

use super::attach::Attachment;
use super::uploads::{Uploads, binding_cap};
use crate::anim::ClipClock;
use crate::contract::CROWD_CULL;
use crate::contract::crowd::ClipRecord;
use crate::crowd::{CrowdHandle, CrowdLayout, CrowdMembers, MemberEdit, RESERVED_CLIPS, Room};
use crate::gpu::device::buffers::caught;
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::device::submit::Submit;
use crate::gpu::error::{PrepareError, SetupError};
use crate::gpu::model::{DrawModel, GpuModel, Published};
use crate::model::Bounds;
use crate::scene::{CrowdError, CrowdMember, Effects};

const MEMBER: u64 = size_of::<crate::contract::crowd::MemberRecord>() as u64;

/// Instances of one model that live on the GPU, each with its own clock:
/// transform, [`Playback`](crate::anim::Playback) (a clip from a start time
/// at a speed, maybe crossfading into another), skin, tint and effects. Its
/// members as the CPU keeps them are a [`CrowdMembers`], which another host
/// can keep in its own buffers; this one keeps them in wgpu's.
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
/// pose by exactly [`Playback::pose`](crate::anim::Playback::pose)'s rules, test the member's bounds
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
    /// The members as the CPU keeps them, and what the GPU lacks of them.
    members: CrowdMembers,
    /// What the crowd draws, as of its model's last change it took.
    model: DrawModel,
    model_generation: u64,
    /// Where its model publishes what it draws when its levels change.
    published: Arc<Published>,
    /// The member buffer, the motion records and the parameters.
    uploads: Uploads,
    culling: bool,
    cache: Md2Cache,
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
        let (uploads, error) = caught(device, || Uploads::new(device, cache, Room::FIRST));
        let device_error = |message| SetupError::Device {
            operation: "creating a crowd",
            message,
        };
        let uploads = uploads.map_err(device_error)?;
        if let Some(message) = error {
            return Err(device_error(message));
        }
        let mut members = CrowdMembers::new(Arc::clone(model.frame_bounds()), model.skin_count());
        members.set_max_members(member_limit.min(u64::from(u32::MAX)) as usize);
        members.hosted(Room::FIRST);
        Ok(Md2Crowd {
            members,
            model: draw,
            model_generation,
            published,
            uploads,
            culling: true,
            cache: cache.clone(),
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
        self.members.max_members()
    }

    /// Bytes of GPU memory the crowd holds itself (each view that draws it
    /// keeps its visible records too: see
    /// [`low_level::crowd_view_bytes`](crate::gpu::low_level::crowd_view_bytes)):
    /// its members (128 bytes each, and room to grow), its clip table, its
    /// parameters and, once a view draws motion, each member's motion
    /// record (80 bytes).
    pub fn gpu_bytes(&self) -> u64 {
        self.uploads.gpu_bytes() + self.attachment.as_ref().map_or(0, Attachment::gpu_bytes)
    }

    /// How many distinct clips the members play (each is stored once).
    pub fn clip_count(&self) -> usize {
        self.members.clip_count()
    }

    /// Makes room for `additional` more members on the CPU, so that adding
    /// them allocates nothing, and on the GPU: the next `prepare_crowds`
    /// that needs a larger member buffer makes it exactly this large (where
    /// it would otherwise grow by up to an eighth past what it needs).
    pub fn reserve(&mut self, additional: usize) {
        self.members.reserve(additional);
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
        self.members.add(member)
    }

    /// The member behind `handle`, if it is still in the crowd, as it was
    /// given (its clips share their names with the crowd's: no allocation).
    pub fn get(&self, handle: CrowdHandle) -> Option<CrowdMember> {
        self.members.get(handle)
    }

    /// Replaces the member behind `handle` (its whole record is uploaded).
    pub fn set(&mut self, handle: CrowdHandle, member: CrowdMember) -> Result<(), CrowdError> {
        self.members.set(handle, member)
    }

    /// The member behind `handle`, to change one part of it (transform,
    /// clip, skin, tint, effects), each change uploading only its own
    /// words. A stale handle is an error at the change, as every change to
    /// the crowd can fail:
    /// `crowd.member(handle).set_tint([1.0, 0.2, 0.2, 1.0])?`.
    pub fn member(&mut self, handle: CrowdHandle) -> MemberEdit<'_> {
        self.members.member(handle)
    }

    /// Removes the member behind `handle`: the last member moves into its
    /// place (one record rewritten), and the handle goes stale.
    pub fn remove(&mut self, handle: CrowdHandle) -> Result<CrowdMember, CrowdError> {
        self.members.remove(handle)
    }

    /// Removes every member (their handles go stale).
    pub fn clear(&mut self) {
        self.members.clear();
    }

    /// Every member with its handle, in the crowd's order: the order its
    /// translucent members blend in (with [`TranslucentOrder::AsGiven`](crate::scene::TranslucentOrder::AsGiven)).
    /// Members are added at the end; a removal moves the last member into
    /// the hole.
    pub fn iter(&self) -> impl Iterator<Item = (CrowdHandle, CrowdMember)> + '_ {
        self.members.iter()
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
        self.members.set_transform_from(handle, transform, previous)
    }

    /// The time of the frame a change's previous transform and pose are
    /// those of, where some view draws the crowd's motion.
    pub(super) fn motion_time(&self) -> Option<f64> {
        self.members.motion_time()
    }

    pub(crate) fn id(&self) -> u64 {
        self.members.id()
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
        self.members.handle_at(i)
    }

    /// The dense index of the member behind `handle`.
    pub(super) fn index_of(&self, handle: CrowdHandle) -> Result<usize, CrowdError> {
        self.members.index_of(handle)
    }

    /// Counts the flushes that uploaded motion.
    pub(crate) fn generation(&self) -> u32 {
        self.members.generation()
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
        CrowdLayout::of_counts(
            self.members.counts(),
            self.members.len() as u32,
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
        self.members.set_frame_bounds(bounds);
    }

    /// Uploads what changed since the last flush (see
    /// [`CrowdMembers::flush`]); returns the bytes written. `now` is the
    /// frame's time; `motion` says the view draws motion, so the members'
    /// motion records must be on the GPU.
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
            &mut self.members,
            now,
            motion,
            |clips_at, generation| {
                layout.params_for(&model.ranges, &model.levels, flags, clips_at, generation)
            },
        )
    }
}
