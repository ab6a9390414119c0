//! A resident crowd in Bevy ([`Md2Crowd`]): one entity holding every
//! member of one model, kept on the GPU. Members are added, changed and
//! removed by handle (md2-wgpu's [`CrowdMembers`]); each frame the plugin
//! writes what changed (nothing per member that did not) and the time, and
//! the render world runs md2-wgpu's crowd passes in every view.

use std::sync::Arc;

use bevy::asset::Handle;
use bevy::camera::visibility::{self, NoFrustumCulling, Visibility, VisibilityClass};
use bevy::color::LinearRgba;
use bevy::core_pipeline::prepass::MotionVectorPrepass;
use bevy::ecs::component::Component;
use bevy::ecs::query::With;
use bevy::ecs::system::{Query, Res};
use bevy::render::renderer::RenderDevice;
use bevy::time::Time;
use bevy::transform::components::Transform;
use md2_wgpu::CrowdMember;
use md2_wgpu::crowd::{
    CrowdBuffers, CrowdFrame, CrowdHandle, CrowdLayout, CrowdMembers, CrowdParams,
};
use md2_wgpu::glam::Mat4;
use md2_wgpu::scene::CrowdError;

use crate::animator::Md2Animator;
use crate::asset::{CrowdModel, Md2Asset};
use crate::entity::Md2;

/// The most bytes a crowd's member buffer takes where the device is not
/// known (the main world without a renderer): WebGPU's default storage
/// binding size.
const DEFAULT_MAX_BINDING: u64 = 128 << 20;

/// One resident crowd of one model: every member lives on the GPU with its
/// own clock (md2-wgpu's [`CrowdMembers`]: place, clip, speed, phase,
/// crossfade, skin, tint, effects, by [`CrowdHandle`](md2_wgpu::crowd::CrowdHandle)),
/// and per frame the CPU writes only what changed and the time: no
/// entity, no extraction and no upload per member. Every camera draws the
/// members in its view, each at the level of detail its distance allows
/// (the model's levels: [`Md2Asset::levels_of_detail`]), with one
/// indirect draw per level and bucket (mirrored or not, translucent,
/// shell), culled and laid out on the GPU by md2-wgpu's own passes.
///
/// A member's transform is what an [`Md2`](crate::Md2) entity's would be
/// (the world from the mesh's Y-up model space, md2-wgpu's
/// [`CrowdMember::transform`](md2_wgpu::CrowdMember::transform)):
/// [`member_transform`] of a Bevy [`Transform`]. Members' clocks run on Bevy's [`Time`] (the same clock
/// as [`Md2Animator`](crate::Md2Animator)'s): a clip started at
/// `time.elapsed_secs_f64()` starts now.
///
/// Drawn in the main pass (forward, lit by Bevy's lights and shadow maps),
/// in a camera's depth, normal and motion-vector prepasses and, where
/// opaque materials draw deferred (`DefaultOpaqueRendererMethod`), in its
/// G-buffer pass instead of the main pass, as an [`Md2`](crate::Md2)
/// entity is; and in every shadow map (each cascade of a directional
/// light, each face of a point light's, each spot light's: every shadow
/// view runs the crowd's passes, culled against it; a member whose effects
/// say `no_shadow` casts none). Motion vectors: once
/// a camera has a `MotionVectorPrepass`, each change to a member keeps what
/// the previous frame showed of it, and the passes sample every member's
/// clocks at the view's previous time too; a still crowd's are exactly
/// zero. Translucent members (a tint's alpha below 1) and shells
/// ([`Effects::shell`](md2_wgpu::scene::Effects::shell)) are drawn in each
/// camera's transparent pass, sorted back to front by md2-wgpu's sorting
/// passes (the crowd's two items come after the view's other transparent
/// things); they cast no shadow and are in no prepass, as Bevy's blended
/// materials.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use md2_bevy::{Md2Asset, Md2Crowd, member_transform};
/// # use md2_wgpu::{CrowdMember, Quake2Player, anim::ClipClock};
/// fn spawn(mut commands: Commands, assets: Res<Assets<Md2Asset>>, model: Res<MyModel>,
///          time: Res<Time>) {
///     let Some(asset) = assets.get(&model.0) else { return };
///     let mut crowd = Md2Crowd::new(model.0.clone(), asset);
///     for i in 0..10_000 {
///         let place = Transform::from_xyz((i % 100) as f32 * 60.0, 0.0, (i / 100) as f32 * 60.0);
///         let run = ClipClock::new(Quake2Player::Run.clip(), time.elapsed_secs_f64() - i as f64 * 0.01);
///         crowd.members_mut().add(CrowdMember::new(member_transform(&place), run)).unwrap();
///     }
///     commands.spawn(crowd);
/// }
/// # #[derive(Resource)] struct MyModel(Handle<Md2Asset>);
/// ```
#[derive(Component)]
#[require(Transform, Visibility, VisibilityClass, NoFrustumCulling)]
#[component(on_add = visibility::add_visibility_class::<Md2Crowd>)]
pub struct Md2Crowd {
    model: Handle<Md2Asset>,
    members: CrowdMembers,
    culling: bool,
    level_error_pixels: f32,
    level_tint: bool,
    pub(crate) drawn: Arc<CrowdModel>,
    /// What the last flush wrote, for the render world to write the same.
    pub(crate) frame: CrowdFrameWrites,
}

/// One write into a crowd's GPU buffers, as [`CrowdBuffers`] asks it.
#[derive(Clone, Debug)]
pub(crate) enum CrowdWrite {
    NewMembers(u64),
    Members(u64, Vec<u8>),
    NewMotion(u64),
    Motion(u64, Vec<u8>),
}

/// What one frame's flush of a crowd gives the render world.
#[derive(Clone, Debug, Default)]
pub(crate) struct CrowdFrameWrites {
    pub writes: Vec<CrowdWrite>,
    pub layout: CrowdLayout,
    pub params: CrowdParams,
    pub frame: CrowdFrame,
    /// The time the flush was made at (the crowd's clock, Bevy's elapsed
    /// seconds): views that draw motion sample their previous frame's too.
    pub now: f64,
    /// The flush's motion generation ([`md2_wgpu::crowd::CrowdFlush::motion_generation`]).
    pub motion_generation: u32,
    /// Bytes written into the crowd's buffers this frame.
    pub written: u64,
}

struct Writes<'a>(&'a mut Vec<CrowdWrite>);

impl CrowdBuffers for Writes<'_> {
    fn new_member_buffer(&mut self, bytes: u64) -> Result<(), String> {
        self.0.push(CrowdWrite::NewMembers(bytes));
        Ok(())
    }

    fn write_members(&mut self, offset: u64, bytes: &[u8]) {
        self.0.push(CrowdWrite::Members(offset, bytes.to_vec()));
    }

    // Asked for once a camera draws motion vectors.
    fn new_motion_buffer(&mut self, bytes: u64) -> Result<(), String> {
        self.0.push(CrowdWrite::NewMotion(bytes));
        Ok(())
    }

    fn write_motion(&mut self, offset: u64, bytes: &[u8]) {
        self.0.push(CrowdWrite::Motion(offset, bytes.to_vec()));
    }
}

impl Md2Crowd {
    /// An empty crowd of `model` (loaded: `asset`), drawn at its levels of
    /// detail with at most a pixel of error.
    pub fn new(model: Handle<Md2Asset>, asset: &Md2Asset) -> Md2Crowd {
        let drawn = Arc::clone(&asset.crowd_model);
        Md2Crowd {
            model,
            members: CrowdMembers::new(Arc::clone(&drawn.frame_bounds), asset.skin_count().max(1)),
            culling: true,
            level_error_pixels: 1.0,
            level_tint: false,
            drawn,
            frame: CrowdFrameWrites::default(),
        }
    }

    /// The model.
    pub fn model(&self) -> &Handle<Md2Asset> {
        &self.model
    }

    /// The members, to read: where each stands and what it plays (the CPU's
    /// copy is the truth: `get(handle)`'s `playback.pose(t)` is what the
    /// GPU draws at `t`).
    pub fn members(&self) -> &CrowdMembers {
        &self.members
    }

    /// The members, to add, change or remove: the next frame writes what
    /// changed.
    pub fn members_mut(&mut self) -> &mut CrowdMembers {
        &mut self.members
    }

    /// Whether members outside a view are left out of its draws (the
    /// default). Off, every member is drawn by every view.
    pub fn with_culling(self, culling: bool) -> Md2Crowd {
        Md2Crowd { culling, ..self }
    }

    /// The same crowd with levels of detail chosen at most `pixels` off (0:
    /// full detail only).
    pub fn with_level_error_pixels(self, pixels: f32) -> Md2Crowd {
        Md2Crowd {
            level_error_pixels: pixels,
            ..self
        }
    }

    /// Levels of detail chosen at most `pixels` off from now on (0: full
    /// detail only).
    pub fn set_level_error_pixels(&mut self, pixels: f32) {
        self.level_error_pixels = pixels;
    }

    /// The largest error in pixels a level of detail may make.
    pub fn level_error_pixels(&self) -> f32 {
        self.level_error_pixels
    }

    /// The same crowd with every member painted in its level of detail's
    /// colour ([`LEVEL_COLOURS`], still lit) where `on`: where each view
    /// switches levels, seen.
    pub fn with_level_tint(self, on: bool) -> Md2Crowd {
        Md2Crowd {
            level_tint: on,
            ..self
        }
    }

    /// Paints every member in its level of detail's colour from now on
    /// (`on`), or in its skin again.
    pub fn set_level_tint(&mut self, on: bool) {
        self.level_tint = on;
    }

    /// Whether members are painted in their level's colour.
    pub fn level_tint(&self) -> bool {
        self.level_tint
    }

    /// Takes the member behind `handle` out of the crowd as an entity's
    /// components (a soldier leaving the formation): an [`Md2`] of the
    /// crowd's model, an [`Md2Animator`] playing what the member played
    /// (the same clocks and crossfade: its pose goes on unbroken), its
    /// skin and tint, and its `Transform`. Effects (shells, fullbright) do
    /// not come along: entities have none. The handle goes stale; the last
    /// member moves into its place.
    pub fn take_member(
        &mut self,
        handle: CrowdHandle,
    ) -> Result<(Md2, Md2Animator, Transform), CrowdError> {
        let member = self.members.remove(handle)?;
        let mut animator = Md2Animator::from_playback(member.playback);
        animator.skin = member.skin;
        let [r, g, b, a] = member.tint;
        animator.tint = LinearRgba::new(r, g, b, a);
        let matrix = bevy::math::Mat4::from_cols_array(&member.transform.to_cols_array());
        Ok((
            Md2(self.model.clone()),
            animator,
            Transform::from_matrix(matrix),
        ))
    }

    /// Puts an entity's animator and transform into the crowd (a soldier
    /// joining the formation): a member playing what the animator plays,
    /// with its skin and tint, placed by `transform`. The app despawns the
    /// entity (or keeps it for later).
    pub fn add_entity(
        &mut self,
        animator: &Md2Animator,
        transform: &Transform,
    ) -> Result<CrowdHandle, CrowdError> {
        let tint = animator.tint;
        let member = CrowdMember::new(member_transform(transform), animator.playback().clone())
            .with_skin(animator.skin)
            .with_tint([tint.red, tint.green, tint.blue, tint.alpha]);
        self.members.add(member)
    }

    /// Bytes the last frame wrote into the crowd's GPU buffers (its
    /// members' changes, and nothing for members that did not change).
    pub fn written_last_frame(&self) -> u64 {
        self.frame.written
    }

    /// Writes what changed since the last frame, at `now`; where `motion`
    /// (a camera draws motion vectors), what the previous frame showed of
    /// each member changed since too.
    fn flush(&mut self, now: f64, max_binding: u64, motion: bool) {
        let mut writes = std::mem::take(&mut self.frame.writes);
        writes.clear();
        let flushed = self
            .members
            .flush(&mut Writes(&mut writes), max_binding, now, motion);
        let flushed = match flushed {
            Ok(flushed) => flushed,
            Err(error) => {
                // Nothing is lost: the next frame tries again.
                bevy::log::error!("a crowd of {:?}: {error}", self.model.path());
                self.frame.writes = writes;
                return;
            }
        };
        let layout = CrowdLayout::of(&self.members, self.drawn.levels.levels().len());
        self.frame = CrowdFrameWrites {
            writes,
            layout,
            params: layout.params(
                &self.drawn.levels,
                self.drawn.sphere,
                &flushed,
                self.culling,
            ),
            // A time past the clock's range draws the last good frame.
            frame: CrowdFrame::new(now, None).unwrap_or(self.frame.frame),
            now,
            motion_generation: flushed.motion_generation,
            written: flushed.written,
        };
    }
}

/// The colour a member drawn at each level of detail is painted in where
/// a crowd's level tint is on ([`Md2Crowd::set_level_tint`]), full detail
/// first: green, blue, red, yellow, magenta (linear RGB; `md2_crowd.wgsl`
/// holds the same).
pub const LEVEL_COLOURS: [[f32; 3]; md2_wgpu::contract::MAX_LEVELS] = [
    [0.0, 1.0, 0.0],
    [0.0, 0.0, 1.0],
    [1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0],
    [1.0, 0.0, 1.0],
];

/// A crowd member's transform for a Bevy `transform` (the world from the
/// mesh's Y-up model space, as an [`Md2`](crate::Md2) entity's), in
/// md2-wgpu's `glam`.
pub fn member_transform(transform: &Transform) -> Mat4 {
    Mat4::from_cols_array(&transform.to_matrix().to_cols_array())
}

/// Every crowd's changes and time, written for the render world (and,
/// once a camera draws motion vectors, what the previous frame showed of
/// the members changed).
pub(crate) fn flush_crowds(
    mut crowds: Query<&mut Md2Crowd>,
    motion_cameras: Query<(), With<MotionVectorPrepass>>,
    time: Res<Time>,
    device: Option<Res<RenderDevice>>,
) {
    let motion = !motion_cameras.is_empty();
    let max_binding = device.map_or(DEFAULT_MAX_BINDING, |d| {
        let limits = d.limits();
        limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
    });
    let now = time.elapsed_secs_f64();
    for mut crowd in &mut crowds {
        crowd.flush(now, max_binding, motion);
    }
}
