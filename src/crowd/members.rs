//! The members of one resident crowd as the CPU keeps them: handles,
//! clips stored once, the record each member has on the GPU, the draw
//! buckets they fall in, and what of it the host's buffers still lack.

use std::sync::Arc;

use glam::Mat4;

use super::clips::ClipTable;
use super::handle::{CrowdHandle, Slots};
use super::member::{
    ClockState, MemberState, PlaybackState, pack, write_look, write_playback, write_transform,
};
use super::motion::MotionBook;
use super::room::{CrowdBuffers, MEMBER, Room};
use super::uploads::RecordUploads;
use crate::anim::{ClipClock, Playback, fade_weight_at};
use crate::contract::crowd::{MemberRecord, member_part};
use crate::contract::{BUCKETS, Buckets, MOTION_MOVED, MOTION_NEW, MOTION_POSE, rows};
use crate::model::Bounds;
use crate::scene::{
    CrowdError, CrowdMember, Effects, ModelFacts, check_play, check_playback, check_skin,
    check_tint, check_transform,
};

/// The members of one resident crowd of a model, as the CPU keeps them,
/// without wgpu: what [`Md2Crowd`](crate::Md2Crowd) is built on, and what
/// another host (md2-bevy's crowd, an app on its own wgpu) drives the
/// crowd's passes with.
///
/// Members are added, changed and removed by [`CrowdHandle`]; a clip is
/// stored once however many members play it, and a member without a heap
/// allocation. Each member has a 128-byte record in the host's member
/// buffer (then the crowd's clip table, 32 bytes a clip) and, once a view
/// draws motion, an 80-byte motion record; [`flush`](CrowdMembers::flush)
/// writes only what changed since the last flush (of a changed member,
/// only the bytes its change touched) through the host's
/// [`CrowdBuffers`], and has the host make larger buffers where the crowd
/// outgrew them. A frame in which nothing changed writes nothing.
///
/// Every change is checked first (a stale handle, a frame or skin the
/// model lacks, a value that is not finite: [`CrowdError`]) and changes
/// nothing when refused.
///
/// For picking and game logic, the CPU's copy is the truth and nothing
/// needs reading back: [`get`](CrowdMembers::get) gives where a member
/// stands and what it plays, and its `playback.pose(t)` is the pose the
/// passes draw at `t` (they sample the same integer-tick clocks,
/// [`anim::clock`](crate::anim::clock); md2-wgpu's GPU tests hold the two
/// equal).
#[derive(Debug)]
pub struct CrowdMembers {
    slots: Slots,
    facts: ModelFacts,
    frame_bounds: Arc<[Bounds]>,
    clips: ClipTable,
    /// Dense: what the app gave, and what the GPU holds of it.
    members: Vec<MemberState>,
    records: Vec<MemberRecord>,
    buckets: Vec<Buckets>,
    /// Members in each draw bucket.
    counts: [u32; BUCKETS],
    uploads: RecordUploads,
    /// What the previous frame showed of each member that changed.
    motion: MotionBook,
    /// The most members taken.
    max_members: usize,
}

/// What a [`CrowdMembers::flush`] wrote, and what the crowd's parameters
/// (`crowd/types.wgsl`'s `CrowdParams`) take of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrowdFlush {
    /// Bytes written into the host's buffers.
    pub written: u64,
    /// Where the clip table starts in the member buffer, in `vec4<u32>`s.
    pub clips_at: u32,
    /// Counts the flushes that wrote motion: a view that last drew the
    /// crowd at an older generation has changes of it not drawn yet.
    pub motion_generation: u32,
}

impl CrowdMembers {
    /// No members yet, of a model whose frames' boxes are `frame_bounds`
    /// (one per frame, in the model's space: [`ModelData::frame_bounds`](crate::ModelData::frame_bounds))
    /// and which has `skin_count` skins.
    pub fn new(frame_bounds: impl Into<Arc<[Bounds]>>, skin_count: u32) -> CrowdMembers {
        let frame_bounds = frame_bounds.into();
        CrowdMembers {
            slots: Slots::new(),
            facts: ModelFacts {
                frame_count: frame_bounds.len() as u32,
                skin_count,
            },
            frame_bounds,
            clips: ClipTable::default(),
            members: Vec::new(),
            records: Vec::new(),
            buckets: Vec::new(),
            counts: [0; BUCKETS],
            uploads: RecordUploads::default(),
            motion: MotionBook::default(),
            max_members: u32::MAX as usize,
        }
    }

    /// How many members the crowd has.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the crowd has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// How many distinct clips the members play (each is stored once).
    pub fn clip_count(&self) -> usize {
        self.clips.len()
    }

    /// Makes room for `additional` more members on the CPU, so that adding
    /// them allocates nothing, and in the host's member buffer: the next
    /// flush that needs a larger one makes it exactly this large (where it
    /// would otherwise grow by up to an eighth past what it needs).
    pub fn reserve(&mut self, additional: usize) {
        self.members.reserve(additional);
        self.records.reserve(additional);
        self.buckets.reserve(additional);
        self.slots.reserve(additional);
        self.uploads.reserve(additional);
        self.motion.reserve(additional);
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

    /// Replaces the member behind `handle` (its whole record is written).
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

    /// The member behind `handle`, to change one part of it (transform,
    /// clip, skin, tint, effects), each change writing only its own words
    /// at the next flush. A stale handle is an error at the change:
    /// `crowd.member(handle).set_tint([1.0, 0.2, 0.2, 1.0])?`.
    pub fn member(&mut self, handle: CrowdHandle) -> MemberEdit<'_> {
        MemberEdit {
            crowd: self,
            handle,
        }
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

    /// Writes what changed since the last flush into the host's buffers:
    /// the changed bytes of each changed member's record, the clips entered
    /// since, and (where `motion`, some view draws the crowd's motion
    /// vectors) the motion records of members changed since, stamped with
    /// a new generation. Has the host make a larger buffer (at most
    /// `max_binding` bytes: its device's storage binding size) where the
    /// crowd outgrew one; the first flush makes the member buffer. `now` is
    /// the frame's time, in seconds on the crowd's clock: a later change's
    /// previous pose is sampled at it.
    ///
    /// Fails with [`CrowdError::TooManyMembers`] where the members do not
    /// fit `max_binding`, and [`CrowdError::HostBuffer`] where the host
    /// could not make a buffer; nothing is lost (the next flush tries
    /// again).
    pub fn flush(
        &mut self,
        host: &mut impl CrowdBuffers,
        max_binding: u64,
        now: f64,
        motion: bool,
    ) -> Result<CrowdFlush, CrowdError> {
        let mut written = self
            .uploads
            .flush(host, max_binding, &self.records, &mut self.clips)?;
        written += self.motion.flush(host, max_binding, motion, now)?;
        Ok(CrowdFlush {
            written,
            clips_at: self.uploads.room().map_or(0, Room::clips_at),
            motion_generation: self.motion.generation(),
        })
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

    /// Keeps what member `i` showed before a change of the kinds in `bits`.
    fn capture_motion(&mut self, i: usize, bits: u8) {
        self.capture_motion_from(i, bits, self.records[i].rows);
    }

    /// [`capture_motion`](CrowdMembers::capture_motion), the member having
    /// been drawn with `rows`.
    fn capture_motion_from(&mut self, i: usize, bits: u8, rows: [[f32; 4]; 3]) {
        let (members, clips) = (&self.members, &self.clips);
        self.motion.capture(i, bits, rows, |then| {
            members[i].member(clips).playback.pose(then)
        });
    }

    /// Moves the member behind `handle` to `transform`; a view that draws
    /// motion takes it to have shown `previous` in the last frame where
    /// given (a riding part, whose drawn transform the GPU placed), else
    /// the transform it had.
    pub(crate) fn set_transform_from(
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

    fn set_tint(&mut self, handle: CrowdHandle, tint: [f32; 4]) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        check_tint(&tint)?;
        self.members[i].tint = tint;
        write_look(&mut self.records[i], &self.members[i]);
        self.rebucket(i);
        self.uploads.mark(i, member_part::TINT);
        Ok(())
    }

    fn set_skin(&mut self, handle: CrowdHandle, skin: u32) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        check_skin(skin, &self.facts)?;
        self.members[i].skin = skin;
        write_look(&mut self.records[i], &self.members[i]);
        self.uploads.mark(i, member_part::SKIN);
        Ok(())
    }

    fn set_effects(&mut self, handle: CrowdHandle, effects: Effects) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        self.members[i].effects = effects;
        self.records[i].effects = self.members[i].effects_word();
        self.rebucket(i);
        self.uploads.mark(i, member_part::EFFECTS);
        Ok(())
    }

    fn play(
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

    fn mark_teleported(&mut self, handle: CrowdHandle) -> Result<(), CrowdError> {
        let i = self.slots.dense(handle)?;
        self.capture_motion(i, MOTION_NEW as u8);
        Ok(())
    }

    /// The crowd's id (its handles carry it).
    pub(crate) fn id(&self) -> u64 {
        self.slots.crowd()
    }

    /// At most `max` members are taken (the device's buffers hold no more).
    pub(crate) fn set_max_members(&mut self, max: usize) {
        self.max_members = max;
    }

    pub(crate) fn max_members(&self) -> usize {
        self.max_members
    }

    /// The host made a member buffer of `room` before the first flush.
    pub(crate) fn hosted(&mut self, room: Room) {
        self.uploads.hosted(room);
    }

    /// Members in each draw bucket.
    pub(crate) fn counts(&self) -> [u32; BUCKETS] {
        self.counts
    }

    /// The time of the frame a change's previous transform and pose are
    /// those of, where some view draws the crowd's motion.
    pub(crate) fn motion_time(&self) -> Option<f64> {
        self.motion.last_time()
    }

    /// Counts the flushes that wrote motion.
    pub(crate) fn generation(&self) -> u32 {
        self.motion.generation()
    }

    /// The handle of the member at dense index `i`, if there is one.
    pub(crate) fn handle_at(&self, i: usize) -> Option<CrowdHandle> {
        (i < self.members.len()).then(|| self.slots.handle(i))
    }

    /// The dense index of the member behind `handle`.
    pub(crate) fn index_of(&self, handle: CrowdHandle) -> Result<usize, CrowdError> {
        self.slots.dense(handle)
    }

    /// Culls the members on `bounds`, one per frame of the model, in its
    /// space (Quake axes), instead of the model's own: a player's legs are
    /// culled on a box that holds every part riding them. Clips entered
    /// before keep the bounds they were entered with: call it on an empty
    /// crowd.
    pub(crate) fn set_frame_bounds(&mut self, bounds: Arc<[Bounds]>) {
        self.frame_bounds = bounds;
    }
}

/// The member behind a handle, borrowed from its crowd to change
/// ([`Md2Crowd::member`](crate::Md2Crowd::member),
/// [`CrowdMembers::member`]). Each change checks the handle (a removed
/// member's is stale: [`CrowdError::StaleHandle`]) and its value, and
/// writes only the words it changes at the next flush.
#[must_use = "a member edit changes nothing until one of its methods is called"]
#[derive(Debug)]
pub struct MemberEdit<'a> {
    crowd: &'a mut CrowdMembers,
    handle: CrowdHandle,
}

impl MemberEdit<'_> {
    /// Moves the member. Writes 60 bytes (the rows, and the look's words
    /// beside them, whose effects word says whether the transform mirrors).
    pub fn set_transform(&mut self, transform: Mat4) -> Result<(), CrowdError> {
        self.crowd.set_transform_from(self.handle, transform, None)
    }

    /// Tints the member (see [`CrowdMember::tint`]); alpha below 1 makes it
    /// translucent. Writes 12 bytes (its intensity, colour and effects
    /// words), and nothing else in views that draw in member order, even
    /// where the member becomes (or stops being) translucent: the compute
    /// passes lay the draws out. A view that sorts translucent members back
    /// to front also rewrites its sort layout (24 bytes) where the number
    /// of translucent members changes.
    pub fn set_tint(&mut self, tint: [f32; 4]) -> Result<(), CrowdError> {
        self.crowd.set_tint(self.handle, tint)
    }

    /// Gives the member another skin layer. Writes 4 bytes.
    pub fn set_skin(&mut self, skin: u32) -> Result<(), CrowdError> {
        self.crowd.set_skin(self.handle, skin)
    }

    /// Gives the member these effects (shell, fullbright, minlight,
    /// shadow). Writes 4 bytes. Where it adds or removes a shell, the views
    /// that keep extra records (materials, motion) also rewrite where those
    /// start (4 bytes), and views that sort rewrite their sort layout (24
    /// bytes).
    pub fn set_effects(&mut self, effects: Effects) -> Result<(), CrowdError> {
        self.crowd.set_effects(self.handle, effects)
    }

    /// Crossfades the member into `next`, from `at` over `duration` seconds
    /// (0 is a cut), starting from whichever of its current clips weighs
    /// more at `at` (see [`Playback::then`]). Writes its clips and clocks
    /// (72 bytes), and a clip the crowd did not play yet (32 bytes).
    pub fn play(&mut self, next: ClipClock, at: f64, duration: f64) -> Result<(), CrowdError> {
        self.crowd.play(self.handle, next, at, duration)
    }

    /// Marks the member as teleported: the next frame shows no motion for
    /// it (its previous transform and pose are taken to be its current
    /// ones), as for a member just added.
    pub fn mark_teleported(&mut self) -> Result<(), CrowdError> {
        self.crowd.mark_teleported(self.handle)
    }
}
