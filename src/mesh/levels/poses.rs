//! Every frame of a model decoded once, for the simplifier and the error
//! bound; and the handful of frames the simplifier weighs.

use super::nearest::{P3, distance_squared};
use crate::model::KeyframeModel;

/// Every frame's vertex positions in model units, decoded as
/// [`reference::decode_frame`](crate::anim::reference::decode_frame) does (in
/// `f32`: the scale times the byte, plus the translate), then widened.
pub(super) struct Poses {
    vertex_count: usize,
    positions: Vec<P3>,
}

impl Poses {
    pub(super) fn new(model: &KeyframeModel) -> Poses {
        let vertex_count = model.vertex_count();
        let mut positions = Vec::with_capacity(vertex_count * model.frames().len());
        for f in 0..model.frame_count() {
            let frame = model.frame_data(f).positions();
            positions.extend(frame.into_iter().map(|p| p.map(f64::from)));
        }
        Poses {
            vertex_count,
            positions,
        }
    }

    /// Whether every position is a number: a scale near `f32::MAX` can
    /// overflow a decoded position to infinity.
    pub(super) fn all_finite(&self) -> bool {
        self.positions.iter().flatten().all(|x| x.is_finite())
    }

    pub(super) fn frame_count(&self) -> usize {
        self.positions
            .len()
            .checked_div(self.vertex_count)
            .unwrap_or(0)
    }

    /// One frame's positions, by vertex id.
    pub(super) fn frame(&self, frame: usize) -> &[P3] {
        &self.positions[frame * self.vertex_count..(frame + 1) * self.vertex_count]
    }

    /// The model's size: the longest side of any one frame's box. (Not of
    /// the box around every frame, which grows with how far an animation
    /// carries the model, not with its shape.)
    pub(super) fn size(&self) -> f64 {
        let mut size = 0.0f64;
        for f in 0..self.frame_count() {
            let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
            for p in self.frame(f) {
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
            }
            size = (0..3).map(|k| hi[k] - lo[k]).fold(size, f64::max);
        }
        size
    }

    /// Up to `count` frames, frame 0 first, each next one the frame
    /// farthest from all chosen so far (by the largest distance any vertex
    /// moves between them): the poses that differ most, so a fold that only
    /// one animation makes is among them. Ties go to the lower frame, so the
    /// choice is a pure function of the model.
    pub(super) fn spread_frames(&self, count: usize) -> Vec<usize> {
        let frames = self.frame_count();
        let mut chosen = Vec::new();
        if frames == 0 || count == 0 {
            return chosen;
        }
        chosen.push(0);
        let mut nearest = vec![f64::INFINITY; frames];
        while chosen.len() < count.min(frames) {
            let last = self.frame(*chosen.last().unwrap_or(&0));
            for (f, d) in nearest.iter_mut().enumerate() {
                let apart = self
                    .frame(f)
                    .iter()
                    .zip(last)
                    .map(|(&a, &b)| distance_squared(a, b))
                    .fold(0.0, f64::max);
                *d = d.min(apart);
            }
            let (far, &apart) = nearest
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
                .unwrap_or((0, &0.0));
            if apart == 0.0 {
                // Every frame left is a copy of one chosen.
                break;
            }
            chosen.push(far);
        }
        chosen
    }
}
