//! One drawn copy of a model on the immediate path: where it stands, what
//! pose it is in, which skin, tint and effects, and what it showed in the
//! previous frame. [`InstanceRecord::pack`](crate::contract::InstanceRecord::pack)
//! turns one into the record the vertex stage reads.

use glam::Mat4;

use super::effects::Effects;
#[allow(deprecated)]
use crate::anim::Crossfade;
use crate::anim::{Clip, Playback, Pose};

/// One instance of a model to draw: the input to
/// [`Md2Renderer::prepare`](crate::Md2Renderer::prepare).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Md2Instance {
    /// Model to world. It applies after [`QUAKE_TO_Y_UP`](crate::scene::QUAKE_TO_Y_UP):
    /// the identity stands the model at the origin of a Y-up world, facing
    /// +Z. Any invertible affine transform works (normals use its inverse
    /// transpose); one with a negative determinant (a mirror) is culled the
    /// other way round, so culling still shows its outside. Must be finite
    /// (see [`InstancePolicy`](crate::scene::InstancePolicy)).
    pub transform: Mat4,
    /// Frames and blend factors. Every frame must exist in the model and
    /// every blend factor be finite (see [`InstancePolicy`](crate::scene::InstancePolicy)); `t` and
    /// `weight` are clamped to `[0, 1]`.
    pub pose: Pose,
    /// Layer of the model's skin array (see [`InstancePolicy`](crate::scene::InstancePolicy)).
    pub skin: u32,
    /// Linear RGBA multiplied with the lit skin; every channel finite (see
    /// [`InstancePolicy`](crate::scene::InstancePolicy)).
    ///
    /// - Colour channels may exceed 1 for a flash or glow (an HDR target
    ///   shows it; others clamp): they travel as 8-bit colour times an f16
    ///   intensity, so the brightest channel keeps 11 bits and the others
    ///   are relative to it. The intensity caps at 65,504 (the largest
    ///   f16); negative channels read as 0.
    /// - Alpha is clamped to `[0, 1]`; below 1 (in 8 bits: below 255/255)
    ///   the instance is drawn translucent, after the opaque ones, blended
    ///   and without writing depth, in the renderer's
    ///   [`TranslucentOrder`](crate::scene::TranslucentOrder). Alpha 0 draws an
    ///   invisible instance (it still costs its vertices).
    pub tint: [f32; 4],
    /// Shell, fullbright, minlight, shadow.
    pub effects: Effects,
    /// The app's id for the instance, handed to a material's fragment stage
    /// (`Md2Fragment::id`) as it is: to pick it with the mouse, say.
    pub id: u32,
}

impl Default for Md2Instance {
    /// Frame 0 at the origin, skin 0, no tint, no effects, id 0.
    fn default() -> Self {
        Md2Instance {
            transform: Mat4::IDENTITY,
            pose: Pose::default(),
            skin: 0,
            tint: [1.0; 4],
            effects: Effects::NONE,
            id: 0,
        }
    }
}

/// What an instance showed in the previous frame: its transform and pose,
/// for motion vectors (see [`Md2Batch::with_previous`](crate::gpu::Md2Batch::with_previous)).
/// The same rules as the instance's own hold: finite values, frames the
/// model has.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Md2Previous {
    /// Model to world in the previous frame.
    pub transform: Mat4,
    /// The pose in the previous frame.
    pub pose: Pose,
}

impl Md2Previous {
    /// What `instance` shows now, to keep for the next frame.
    pub fn of(instance: &Md2Instance) -> Md2Previous {
        Md2Previous {
            transform: instance.transform,
            pose: instance.pose,
        }
    }
}

impl Md2Instance {
    /// An instance in `pose` (a [`Pose`] or a
    /// [`FrameLerp`](crate::anim::FrameLerp)) placed by `transform`, with skin 0,
    /// no tint and no effects.
    pub fn new(transform: Mat4, pose: impl Into<Pose>) -> Self {
        Md2Instance {
            transform,
            pose: pose.into(),
            ..Md2Instance::default()
        }
    }

    /// An instance playing `clip`, `time` seconds after it started.
    pub fn from_clip(transform: Mat4, clip: &Clip, time: f64) -> Self {
        Md2Instance::new(transform, clip.sample(time))
    }

    /// An instance in the middle of `fade` at `time` (on the fade's clock).
    #[deprecated(
        note = "use `Md2Instance::from_playback` with a `Playback`; this method goes in the next release"
    )]
    #[allow(deprecated)]
    pub fn from_crossfade(transform: Mat4, fade: &Crossfade, time: f64) -> Self {
        Md2Instance::new(transform, fade.pose(time))
    }

    /// An instance playing `playback` at `now`: the pose a crowd member with
    /// this playback has at `now` ([`Playback::pose`]).
    pub fn from_playback(transform: Mat4, playback: &Playback, now: f64) -> Self {
        Md2Instance::new(transform, playback.pose(now))
    }

    /// The same instance with another skin layer.
    pub fn with_skin(self, skin: u32) -> Self {
        Md2Instance { skin, ..self }
    }

    /// The same instance with another tint.
    pub fn with_tint(self, tint: [f32; 4]) -> Self {
        Md2Instance { tint, ..self }
    }

    /// The same instance with these effects.
    pub fn with_effects(self, effects: Effects) -> Self {
        Md2Instance { effects, ..self }
    }

    /// The same instance with this id.
    pub fn with_id(self, id: u32) -> Self {
        Md2Instance { id, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{ClipClock, Quake2Player};

    #[test]
    fn an_instance_from_a_playback_has_the_playbacks_pose() {
        let run = Playback::new(Quake2Player::Run.clip(), 0.0);
        let fade = run.then(ClipClock::new(Quake2Player::Attack.clip(), 1.0), 1.0, 0.5);
        let at = Mat4::from_translation(glam::Vec3::X);
        for time in [0.0, 1.1, 1.3, 2.0] {
            let instance = Md2Instance::from_playback(at, &fade, time);
            assert_eq!(instance.pose, fade.pose(time), "{time}");
            assert_eq!(instance.transform, at);
        }
        assert!(Md2Instance::from_playback(at, &fade, 1.25).pose.weight > 0.0);
    }
}
