//! The inspector's animation player: which clip plays, its clock, pausing,
//! speed, stepping and crossfades. Plain CPU state, so that UI tests can
//! read what a click did.

use md2_wgpu::{
    Clip,
    anim::{ClipClock, FrameLerp, Playback, Pose, TICKS_PER_SECOND},
};

/// How long a one-shot animation (a death) holds its last frame before it
/// plays again: a viewer is for looking at it.
pub const HOLD_SECONDS: f64 = 1.0;
/// The playback speeds offered, slowest first.
pub const SPEEDS: [f32; 9] = [0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0];
/// The longest crossfade the slider offers, in seconds.
pub const MAX_FADE: f64 = 1.0;

/// A model's clips and the one playing.
#[derive(Clone, Debug)]
pub struct Player {
    clips: Vec<Clip>,
    current: usize,
    playback: Playback,
    /// The animation clock, in seconds: it stands still while paused and
    /// runs at `speed`.
    time: f64,
    /// Whether the clock stands still.
    pub paused: bool,
    /// How fast the clock runs (1 is the game's rate).
    pub speed: f32,
    /// Blend between keyframes (the crate's way), or show whole frames as
    /// Quake II's software renderer did.
    pub interpolate: bool,
    /// How long a change of clip takes: 0 cuts.
    pub fade_seconds: f64,
}

impl Player {
    /// Plays the first of `clips`; with none, one looping clip over frames
    /// `0..=last_frame`, so that a model whose frames have no names to
    /// group still plays.
    pub fn new(clips: Vec<Clip>, last_frame: u32) -> Player {
        let clips = if clips.is_empty() {
            vec![Clip::looping("all frames", 0, last_frame)]
        } else {
            clips
        };
        let playback = Playback::new(clips[0].clone(), 0.0);
        Player {
            clips,
            current: 0,
            playback,
            time: 0.0,
            paused: false,
            speed: 1.0,
            interpolate: true,
            fade_seconds: 0.3,
        }
    }

    /// Every clip, in the model's order.
    pub fn clips(&self) -> &[Clip] {
        &self.clips
    }

    /// The index of the clip playing (or being faded into).
    pub fn current(&self) -> usize {
        self.current
    }

    /// The clip playing (or being faded into).
    pub fn clip(&self) -> &Clip {
        &self.clips[self.current]
    }

    /// What plays: the clip faded from, and the fade, if one is on.
    pub fn playback(&self) -> &Playback {
        &self.playback
    }

    /// The weight of the clip faded into, 1 once the fade is over.
    pub fn weight(&self) -> f32 {
        self.playback
            .fade
            .as_ref()
            .map_or(1.0, |fade| fade.weight(self.time))
    }

    /// The clock of the clip playing (or being faded into).
    fn clock(&self) -> &ClipClock {
        self.playback
            .fade
            .as_ref()
            .map_or(&self.playback.clock, |fade| &fade.to)
    }

    /// Plays clip `index`, fading into it over [`Player::fade_seconds`]
    /// from whatever shows now.
    pub fn play(&mut self, index: usize) {
        let Some(next) = self.clips.get(index) else {
            return;
        };
        self.current = index;
        let next = ClipClock::new(next.clone(), self.time);
        self.playback = if self.fade_seconds > 0.0 {
            self.playback.then(next, self.time, self.fade_seconds)
        } else {
            next.into()
        };
    }

    /// Plays the clip `step` places on in the list, wrapping.
    pub fn play_next(&mut self, step: isize) {
        let n = self.clips.len() as isize;
        self.play((self.current as isize + step).rem_euclid(n) as usize);
    }

    /// Moves the clock on by `dt` seconds of real time (unless paused).
    pub fn advance(&mut self, dt: f64) {
        if self.paused {
            return;
        }
        self.time += dt * f64::from(self.speed);
        let clock = self.clock();
        if !clock.clip.looping && self.time - clock.start > clock.clip.duration() + HOLD_SECONDS {
            self.playback = Playback::new(clock.clip.clone(), self.time);
        }
    }

    /// The pose to draw: whole frames when interpolation is off.
    pub fn pose(&self) -> Pose {
        let mut pose = self.playback.pose(self.time);
        if !self.interpolate {
            pose.primary.t = 0.0;
            pose.secondary.t = 0.0;
        }
        pose
    }

    /// The current clip's side of the pose: where its clock is.
    pub fn lerp(&self) -> FrameLerp {
        self.clock().sample(self.time)
    }

    /// The frame the current clip shows: its nearer keyframe.
    pub fn frame(&self) -> u32 {
        let lerp = self.lerp();
        if self.interpolate && lerp.t >= 0.5 {
            lerp.frame_b
        } else {
            lerp.frame_a
        }
    }

    /// Pauses on `frame` of the current clip (clamped into it), exactly:
    /// no blend towards the next one, no fade.
    pub fn set_frame(&mut self, frame: u32) {
        let clip = self.clip().clone();
        let frames = clip.frames();
        let frame = frame.clamp(*frames.start(), *frames.end());
        let fps = f64::from(clip.fps);
        let since = if fps.is_finite() && fps > 0.0 {
            f64::from(frame - clip.first) / fps
        } else {
            0.0
        };
        // The clock restarts at the clip's start, and runs on the tick grid:
        // from the first tick at or after `k / fps` (which can come out a
        // hair below k, frame k - 1 at t almost 1), step up to the first
        // tick that samples as frame k itself.
        let clock = ClipClock::new(clip, 0.0);
        let mut ticks = (since * TICKS_PER_SECOND).ceil();
        for _ in 0..8 {
            if clock.sample(ticks / TICKS_PER_SECOND).frame_a >= frame {
                break;
            }
            ticks += 1.0;
        }
        self.time = ticks / TICKS_PER_SECOND;
        self.playback = clock.into();
        self.paused = true;
    }

    /// Pauses and moves to the next (`frames > 0`) or previous whole frame
    /// of the current clip, wrapping round a looping clip and stopping at
    /// the ends of a one-shot one.
    pub fn step(&mut self, frames: i32) {
        let clip = self.clip().clone();
        let lerp = self.lerp();
        let first = i64::from(clip.first);
        let len = clip.len() as i64;
        let at = i64::from(lerp.frame_a) - first;
        let target = if frames > 0 {
            at + i64::from(frames)
        } else if lerp.t > 0.0 {
            at + i64::from(frames) + 1
        } else {
            at + i64::from(frames)
        };
        let target = if clip.looping {
            target.rem_euclid(len)
        } else {
            target.clamp(0, len - 1)
        };
        self.set_frame((first + target) as u32);
    }

    /// Playback speed one step slower (`-1`) or faster (`1`) in [`SPEEDS`].
    pub fn change_speed(&mut self, step: i32) {
        let now = SPEEDS
            .iter()
            .position(|&s| s >= self.speed)
            .unwrap_or(SPEEDS.len() - 1) as i32;
        self.speed = SPEEDS[(now + step).clamp(0, SPEEDS.len() as i32 - 1) as usize];
    }
}
