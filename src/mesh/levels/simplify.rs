//! meshoptimizer's simplifier, told about more than one pose.
//!
//! `meshopt_simplifyWithAttributes` collapses edges by a quadric error over
//! one set of positions, plus the error of up to 32 attribute floats
//! interpolated over the surface. Here the positions are frame 0's and the
//! attributes are the positions of up to ten more frames (the ones that
//! differ most, [`Poses::spread_frames`]), each weighted like the
//! positions themselves: a collapse that is harmless in frame 0 but folds
//! an arm that another frame stretches costs what it costs in that frame.
//!
//! Texture seams need no help: corners are welded (xyz, st) pairs, so the
//! two sides of a seam are different corners at one position in every
//! frame, which meshoptimizer recognises as a seam and only collapses
//! together, along the seam (so neither side tears). Collapses never
//! change a kept triangle's winding.

use meshopt::{SimplifyOptions, SimplifyVertex, VertexDataAdapter};

use super::poses::Poses;
use crate::model::Corner;

/// At most this many attribute floats (meshoptimizer's limit is 32).
pub(super) const MAX_ATTRIBUTE_FRAMES: usize = 10;

/// A mesh ready to be simplified again and again (once per level and per
/// retry), with the frames it weighs.
pub(super) struct Simplifier {
    /// Frame 0's position of every corner.
    positions: Vec<[f32; 3]>,
    /// Per corner, the positions in each weighed frame after frame 0.
    attributes: Vec<f32>,
    weights: Vec<f32>,
    indices: Vec<u32>,
}

impl Simplifier {
    /// `frames` (from [`Poses::spread_frames`]): frame 0 first, whose
    /// positions the quadrics are built on, then those weighed as
    /// attributes (at most [`MAX_ATTRIBUTE_FRAMES`]).
    pub(super) fn new(
        corners: &[Corner],
        indices: &[u32],
        poses: &Poses,
        frames: &[usize],
    ) -> Simplifier {
        let position = |f: usize, c: &Corner| poses.frame(f)[c.xyz as usize].map(|x| x as f32);
        let base = frames.first().copied().unwrap_or(0);
        let positions: Vec<[f32; 3]> = corners.iter().map(|c| position(base, c)).collect();
        let extra: Vec<usize> = frames
            .iter()
            .skip(1)
            .take(MAX_ATTRIBUTE_FRAMES)
            .copied()
            .collect();
        let attributes = corners
            .iter()
            .flat_map(|c| extra.iter().flat_map(move |&f| position(f, c)))
            .collect();
        // meshoptimizer measures positions in units of the largest side of
        // their box and attributes as they come: dividing by that side makes
        // a unit of error in another frame cost what it costs in frame 0.
        let scale = meshopt::simplify_scale_decoder(&positions);
        let weight = if scale > 0.0 { 1.0 / scale } else { 0.0 };
        Simplifier {
            positions,
            attributes,
            weights: vec![weight; 3 * extra.len()],
            indices: indices.to_vec(),
        }
    }

    /// A triangle list over the same corners with about `target` triangles
    /// (more where the topology, `locked` corners or `max_error` allow no
    /// fewer), `max_error` in model units as meshoptimizer measures it.
    pub(super) fn simplify(&self, target: usize, max_error: f32, locked: &[bool]) -> Vec<u32> {
        debug_assert_eq!(locked.len(), self.positions.len());
        let Ok(vertices) = VertexDataAdapter::new(
            bytemuck::cast_slice(&self.positions),
            size_of::<[f32; 3]>(),
            0,
        ) else {
            return self.indices.clone();
        };
        let lock: Vec<SimplifyVertex> = locked
            .iter()
            .map(|&l| {
                if l {
                    SimplifyVertex::Lock
                } else {
                    SimplifyVertex::None
                }
            })
            .collect();
        // The binding passes its slices to C unchecked: the attributes hold
        // weights.len() floats for every corner and the locks one byte for
        // every corner, as built above.
        meshopt::simplify_with_attributes_and_locks(
            &self.indices,
            &vertices,
            &self.attributes,
            &self.weights,
            self.weights.len().max(1) * size_of::<f32>(),
            &lock,
            (target * 3).min(self.indices.len()),
            max_error,
            SimplifyOptions::ErrorAbsolute,
            None,
        )
    }
}
