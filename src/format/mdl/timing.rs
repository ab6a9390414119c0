//! Time in an MDL: frame groups and skin groups cycle by their own
//! intervals, as the original Quake's renderer chose their poses and images;
//! and the clips the model's animations play as.

use crate::anim::{Clip, QUAKE2_FPS};

use super::model::{MdlFrame, MdlModel, MdlSkin};

/// The index a group of cumulative `intervals` shows `time` seconds in,
/// as Quake's `R_AliasSetupFrame` and `R_AliasSetupSkin` choose it: the
/// first whose end lies past the time into the cycle (the cycle lasts the
/// last interval), else the last. Negative times count back from 0.
fn at(intervals: &[f32], time: f64) -> usize {
    let Some(&full) = intervals.last() else {
        return 0;
    };
    let t = time.rem_euclid(f64::from(full));
    intervals
        .iter()
        .position(|&end| f64::from(end) > t)
        .unwrap_or(intervals.len() - 1)
}

impl MdlFrame {
    /// The pose (a frame index of the seam) this frame shows `time` seconds
    /// into its cycle: its only pose for a single frame, the pose its
    /// group's intervals choose for a group.
    pub fn pose_at(&self, time: f64) -> u32 {
        let i = self.group.as_ref().map_or(0, |g| at(&g.intervals, time));
        self.first + i as u32
    }
}

impl MdlSkin {
    /// The image (an index into [`MdlSkin::images`]) this skin shows `time`
    /// seconds into its cycle: 0 for a single skin, the one its group's
    /// intervals choose for a group.
    pub fn image_at(&self, time: f64) -> usize {
        at(self.intervals(), time)
    }
}

impl MdlModel {
    /// The skin layers of skin `skin`: indices into
    /// [`SkinImages::layers`](super::SkinImages::layers) (one for a single
    /// skin, one per image for a group).
    pub(crate) fn skin_layers(&self, skin: usize) -> Option<std::ops::Range<u32>> {
        let first: usize = self
            .skins
            .get(..skin)?
            .iter()
            .map(|s| s.images().len())
            .sum();
        let count = self.skins.get(skin)?.images().len();
        Some(first as u32..(first + count) as u32)
    }

    /// The skin layer skin `skin` shows `time` seconds into its cycle (an
    /// [`Md2Instance`](crate::Md2Instance)'s `skin`, or a crowd member's):
    /// its only layer for a single skin, the image its group's intervals
    /// choose for a group. `None` where there is no such skin.
    pub fn skin_layer_at(&self, skin: usize, time: f64) -> Option<u32> {
        let layers = self.skin_layers(skin)?;
        Some(layers.start + self.skins[skin].image_at(time) as u32)
    }

    /// The clips the model's animations play as: an animation of single
    /// frames at Quake's 10 frames a second (as [`Clip::from`] an
    /// [`Animation`](crate::model::Animation) makes it), a frame group looping at
    /// the rate its intervals give (its poses over its cycle: 10 a second
    /// for the usual 0.1 s steps). Where a group's steps are uneven
    /// ([`MdlWarning::UnevenIntervals`](super::MdlWarning::UnevenIntervals))
    /// the clip keeps the cycle's length; [`MdlFrame::pose_at`] keeps each
    /// step's.
    pub fn clips(&self) -> Vec<Clip> {
        self.animations()
            .iter()
            .map(|animation| {
                let group = self
                    .file_frames
                    .iter()
                    .find(|f| f.first == animation.first && f.group.is_some())
                    .and_then(|f| f.group.as_ref());
                let clip = Clip::from(animation);
                match group.and_then(|g| g.intervals.last().map(|&full| (g, full))) {
                    Some((g, full)) => Clip {
                        // Finite for any positive interval: a rate past a
                        // million frames a second is no animation anyone
                        // sees, and a clock must not divide by infinity.
                        fps: (g.intervals.len() as f64 / f64::from(full)).min(1.0e6) as f32,
                        looping: true,
                        ..clip
                    },
                    None => Clip {
                        fps: QUAKE2_FPS,
                        ..clip
                    },
                }
            })
            .collect()
    }
}
