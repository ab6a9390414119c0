//! A player animation as a [`Clip`] of the model it plays on, timed and
//! looped as Quake III's `CG_RunLerpFrame` (`cg_players.c`) plays it,
//! where a clip can say it.

use super::animation_config::{AnimationConfig, AnimationEntry};
use super::player_animation::PlayerAnimation;
use crate::anim::Clip;

impl AnimationEntry {
    /// The rate the game really plays it at: one frame each
    /// [`frame_milliseconds`](AnimationEntry::frame_milliseconds), whole
    /// milliseconds (`frameLerp`), so 15 frames per second plays at
    /// 1000/66. Infinite where the file's rate rounds to 0 milliseconds (a
    /// rate above 1,000), which a [`Clip`] reads as holding its first
    /// frame, as the game never advances such an animation
    /// (`if (!anim->frameLerp) return;`).
    pub fn playback_fps(&self) -> f32 {
        1000.0 / self.frame_milliseconds() as f32
    }

    /// Whether [`AnimationConfig::clip`] plays it exactly as Quake III
    /// does: it has frames, is not reversed, and loops all of its frames
    /// or none of them.
    pub fn clip_is_exact(&self) -> bool {
        self.num_frames > 0
            && !self.reversed
            && (self.looping_frames == 0 || self.looping_frames == self.num_frames)
    }
}

impl AnimationConfig {
    /// `animation` as a clip named after it (`LEGS_IDLE`), over its frames
    /// in the numbering of the model it plays on
    /// ([`AnimationConfig::frames_in_model`]: `upper.md3`'s for `TORSO_`,
    /// `lower.md3`'s, after the offset, for `LEGS_`, and the same frames
    /// of both for `BOTH_`), at the rate the game plays it
    /// ([`AnimationEntry::playback_fps`]). `None` where
    /// `frames_in_model` has no frames for it.
    ///
    /// Quake III (`CG_RunLerpFrame`) shows the first frame when the
    /// animation starts and blends each frame into the next, as a clip
    /// does; after the last frame it loops the last `looping_frames`
    /// frames, or holds the last frame where that is 0. A [`Clip`] loops
    /// the whole of its range or holds its last frame, and plays forwards
    /// only, so:
    ///
    /// - `looping_frames` equal to the frame count: a looping clip, as the
    ///   game plays it (the last frame blends into the first).
    /// - `looping_frames` 0: a clip played once, holding its last frame,
    ///   as the game plays it.
    /// - `looping_frames` between: a clip played once. The game plays it
    ///   the same way up to the last frame, then loops its tail (the last
    ///   `looping_frames` frames); the clip holds the last frame instead.
    ///   A host that wants the tail plays a looping clip over it next.
    /// - A reversed animation (a negative count in the file): the game
    ///   plays its frames from the last to the first (and loops its first
    ///   `looping_frames`); the clip has the same frames, rate and
    ///   looping but plays them forwards.
    /// - No frames: the game shows the frame before the first (a quirk of
    ///   its arithmetic); the clip holds the first.
    ///
    /// [`AnimationEntry::clip_is_exact`] says which entries the clip
    /// plays exactly. The game's haste speed-up (`speedScale`) and its
    /// blend from the previous animation's frame into a new one's first
    /// are the host's.
    pub fn clip(&self, animation: PlayerAnimation) -> Option<Clip> {
        let entry = self.entry(animation);
        let frames = self.frames_in_model(animation)?;
        let last = frames.end.saturating_sub(1).max(frames.start);
        Some(Clip {
            name: animation.name().into(),
            first: frames.start,
            last,
            fps: entry.playback_fps(),
            looping: entry.looping_frames > 0 && entry.looping_frames == entry.num_frames,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_follow_the_games_numbering_rate_and_looping() {
        let mut text = String::new();
        for i in 0..25 {
            // TORSO_STAND (11) loops part of its frames; LEGS_WALK (14)
            // all; LEGS_RUN (15) is reversed.
            let (frames, looping) = match i {
                11 => (4, 2),
                14 => (4, 4),
                15 => (-4, 4),
                _ => (4, 0),
            };
            text += &format!("{} {frames} {looping} 15\n", 10 * i);
        }
        let config = AnimationConfig::parse(&text).unwrap();
        let clip = |a| config.clip(a).unwrap();
        let walk = clip(PlayerAnimation::LegsWalk);
        assert_eq!(
            (&*walk.name, walk.first, walk.last, walk.looping),
            ("LEGS_WALK", 70, 73, true)
        );
        assert_eq!(walk.fps, 1000.0 / 66.0);
        let stand = clip(PlayerAnimation::TorsoStand);
        assert_eq!((stand.first, stand.last, stand.looping), (110, 113, false));
        let death = clip(PlayerAnimation::BothDeath2);
        assert_eq!((death.first, death.last, death.looping), (20, 23, false));
        let exact = |a| config.entry(a).clip_is_exact();
        assert!(exact(PlayerAnimation::LegsWalk) && exact(PlayerAnimation::BothDeath2));
        assert!(!exact(PlayerAnimation::TorsoStand) && !exact(PlayerAnimation::LegsRun));
        assert!(clip(PlayerAnimation::LegsRun).looping);
    }
}
