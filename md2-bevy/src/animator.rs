//! What an MD2 entity plays: md2-wgpu's CPU animation ([`Playback`]: a clip
//! clock with its speed, and an optional crossfade) on Bevy's clock, with
//! the entity's skin and tint.

use bevy::color::{Color, LinearRgba};
use bevy::ecs::component::Component;
use md2_wgpu::{
    Clip, Quake2Player,
    anim::{ClipClock, FrameLerp, Playback, Pose},
};

/// The animation, skin and tint of an entity with an [`Md2`](crate::Md2).
///
/// Times are seconds on Bevy's [`Time`](bevy::time::Time) (the virtual
/// clock's [`elapsed_secs_f64`](bevy::time::Time::elapsed_secs_f64)), which
/// the plugin samples every frame: pausing or scaling virtual time pauses
/// or scales every MD2 entity. Each change (`play`, `crossfade`,
/// `set_speed`) takes the time it happens at, so a change is exact however
/// late in the frame it is made.
///
/// ```
/// use md2_bevy::Md2Animator;
/// use md2_wgpu::Quake2Player;
///
/// // Running, a third of a second into the loop, a little faster than Quake II.
/// let mut animator = Md2Animator::new(Quake2Player::Run.clip())
///     .with_phase(0.3)
///     .with_speed(1.2);
/// // At 5 s it starts attacking; the change takes a quarter of a second.
/// animator.crossfade(Quake2Player::Attack.clip(), 5.0, 0.25);
/// assert_eq!(animator.pose(5.125).weight, 0.5);
/// assert_eq!(animator.clip().name.as_ref(), "attack");
/// ```
#[derive(Component, Clone, Debug, PartialEq)]
pub struct Md2Animator {
    playback: Playback,
    speed: f32,
    /// The skin layer drawn (a layer past the model's last draws its last).
    pub skin: u32,
    /// Multiplied into the skin, linear RGBA (alpha is not blended: MD2
    /// materials are opaque).
    pub tint: LinearRgba,
}

impl Default for Md2Animator {
    /// Frame 0, held, skin 0, no tint.
    fn default() -> Self {
        Md2Animator::new(Clip::once("frame0", 0, 0))
    }
}

impl Md2Animator {
    /// Playing `playback` (its clocks, and any crossfade, as they are: a
    /// resident crowd's member taken out as an entity goes on where it
    /// was), later clips at the speed of the one it plays (faded into),
    /// skin 0, no tint.
    pub fn from_playback(playback: Playback) -> Self {
        let speed = playback
            .fade
            .as_ref()
            .map_or(playback.clock.speed, |fade| fade.to.speed);
        Md2Animator {
            playback,
            speed,
            skin: 0,
            tint: LinearRgba::WHITE,
        }
    }

    /// `clip` playing from time 0 at its own speed, skin 0, no tint.
    pub fn new(clip: Clip) -> Self {
        Md2Animator {
            playback: Playback::new(clip, 0.0),
            speed: 1.0,
            skin: 0,
            tint: LinearRgba::WHITE,
        }
    }

    /// One of the Quake II player's animations (for any 198-frame player
    /// model, whatever its frame names say).
    pub fn player(animation: Quake2Player) -> Self {
        Md2Animator::new(animation.clip())
    }

    /// The same animator with its clip started at `start` (seconds on
    /// Bevy's clock).
    pub fn starting_at(mut self, start: f64) -> Self {
        self.playback.clock.start = start;
        self
    }

    /// The same animator `seconds` (of clip time) into its clip at time 0:
    /// an entity's own phase, so a crowd does not move in step.
    pub fn with_phase(mut self, seconds: f64) -> Self {
        let speed = f64::from(self.speed);
        self.playback.clock.start = if speed == 0.0 { 0.0 } else { -seconds / speed };
        self
    }

    /// The same animator at another speed (1 is the clip's own rate),
    /// keeping the pose it has at time 0.
    pub fn with_speed(mut self, speed: f32) -> Self {
        self.set_speed(speed, 0.0);
        self
    }

    /// The same animator drawing skin layer `skin`.
    pub fn with_skin(mut self, skin: u32) -> Self {
        self.skin = skin;
        self
    }

    /// The same animator with its skin multiplied by `tint`.
    pub fn with_tint(mut self, tint: impl Into<Color>) -> Self {
        self.tint = tint.into().to_linear();
        self
    }

    /// Cuts to `clip` at `now`: it starts there, at the animator's speed.
    pub fn play(&mut self, clip: Clip, now: f64) {
        self.playback = ClipClock::new(clip, now).with_speed(self.speed).into();
    }

    /// Fades from what plays at `now` into `clip`, which starts at `now`,
    /// over `duration` seconds (a smoothstep; 0 is a cut). A change asked
    /// for during a fade starts from whichever clip weighs more then, as
    /// [`Playback::then`] says.
    pub fn crossfade(&mut self, clip: Clip, now: f64, duration: f64) {
        let next = ClipClock::new(clip, now).with_speed(self.speed);
        self.playback = self.playback.then(next, now, duration);
    }

    /// Changes the speed at `now` without a jump: the clips keep the pose
    /// they have at `now` and go on at the new rate. A speed of 0 holds each
    /// clip's first frame (md2-wgpu's [`ClipClock`] rule); to freeze a pose,
    /// pause Bevy's virtual time instead.
    pub fn set_speed(&mut self, speed: f32, now: f64) {
        let rebase = |clock: &mut ClipClock| {
            if clock.speed != 0.0 && speed != 0.0 {
                let played = (now - clock.start) * f64::from(clock.speed);
                clock.start = now - played / f64::from(speed);
            }
            clock.speed = speed;
        };
        rebase(&mut self.playback.clock);
        if let Some(fade) = self.playback.fade.as_mut() {
            rebase(&mut fade.to);
        }
        self.speed = speed;
    }

    /// The speed (1 is the clip's own rate).
    pub fn speed(&self) -> f32 {
        self.speed
    }

    /// What plays: md2-wgpu's clip clock and crossfade.
    pub fn playback(&self) -> &Playback {
        &self.playback
    }

    /// The clip playing (the one faded into, during a fade).
    pub fn clip(&self) -> &Clip {
        match &self.playback.fade {
            Some(fade) => &fade.to.clip,
            None => &self.playback.clock.clip,
        }
    }

    /// The pose at `now`: what the plugin writes for the entity.
    pub fn pose(&self, now: f64) -> Pose {
        self.playback.pose(now)
    }

    /// Whether a one-shot clip has reached its last frame by `now` (and the
    /// fade into it, if any, is over).
    pub fn is_finished(&self, now: f64) -> bool {
        let clock = match &self.playback.fade {
            Some(fade) if fade.weight(now) < 1.0 => return false,
            Some(fade) => &fade.to,
            None => &self.playback.clock,
        };
        !clock.clip.looping
            && clock.sample(now) == FrameLerp::still(clock.clip.last.max(clock.clip.first))
    }
}
