//! Every frame at the mesh's corners, in glTF's axes and the export's units,
//! and what an export must know of all of them before it writes any.

use super::error::GltfError;
use crate::model::{Corner, KeyframeModel};

/// Quake's axes (X forward, Y left, Z up) as glTF's (Y up, the model facing
/// +Z): `(x, y, z)` becomes `(y, z, x)`, the mapping of
/// [`QUAKE_TO_Y_UP`](crate::scene::QUAKE_TO_Y_UP). A rotation, so handedness and
/// the winding of every triangle are kept.
pub(super) fn to_gltf_axes(v: [f32; 3]) -> [f32; 3] {
    [v[1], v[2], v[0]]
}

/// One frame at every corner of the mesh.
#[derive(Clone, Debug, Default)]
pub(super) struct CornerFrame {
    /// Positions, scaled to the output units.
    pub positions: Vec<[f32; 3]>,
    /// The table normals.
    pub normals: Vec<[f32; 3]>,
}

/// Decodes frames at the mesh's corners.
pub(super) struct CornerFrames<'a> {
    model: &'a KeyframeModel,
    corners: &'a [Corner],
    scale: f32,
}

impl<'a> CornerFrames<'a> {
    pub fn new(model: &'a KeyframeModel, corners: &'a [Corner], scale: f32) -> Self {
        CornerFrames {
            model,
            corners,
            scale,
        }
    }

    /// Frame `frame` (which the caller has checked exists) into `out`:
    /// each position decoded as the CPU reference decodes it
    /// (`xyz · scale + translate` in `f32`), then scaled and turned into
    /// glTF's axes.
    pub fn decode(&self, frame: u32, out: &mut CornerFrame) -> Result<(), GltfError> {
        let data = self.model.frame_data(frame);
        let (positions, normals) = (data.positions(), data.normals());
        out.positions.clear();
        out.normals.clear();
        for corner in self.corners {
            // Every corner names a vertex of every frame (the seam checks).
            let i = corner.xyz as usize;
            let (p, n) = (positions[i], normals[i]);
            let p = p.map(|x| x * self.scale);
            let p = to_gltf_axes(p);
            if !p.iter().all(|x| x.is_finite()) {
                return Err(GltfError::NonFinitePosition {
                    frame,
                    vertex: corner.xyz,
                    value: p,
                });
            }
            out.positions.push(p);
            out.normals.push(to_gltf_axes(n));
        }
        Ok(())
    }
}

/// What every frame holds, relative to the base: found in one pass before
/// anything is written, so the quantisation grid can hold every frame and
/// each target's normals get the smallest form they fit.
#[derive(Debug)]
pub(super) struct Survey {
    /// The base frame at the corners.
    pub base: CornerFrame,
    /// The base frame's bounds.
    pub base_min: [f32; 3],
    /// The base frame's bounds.
    pub base_max: [f32; 3],
    /// The largest difference of any coordinate of any frame from the base.
    pub max_delta: f64,
    /// Per frame: whether every component of its normals minus the base's
    /// lies in `[-1, 1]`, so a normalised integer can hold it.
    pub normals_fit_unit: Vec<bool>,
}

impl Survey {
    /// Decodes every frame once.
    pub fn new(frames: &CornerFrames<'_>, base_frame: u32) -> Result<Survey, GltfError> {
        let mut base = CornerFrame::default();
        frames.decode(base_frame, &mut base)?;
        let mut base_min = [f32::INFINITY; 3];
        let mut base_max = [f32::NEG_INFINITY; 3];
        for p in &base.positions {
            for k in 0..3 {
                base_min[k] = base_min[k].min(p[k]);
                base_max[k] = base_max[k].max(p[k]);
            }
        }
        let frame_count = frames.model.frame_count();
        let mut max_delta = 0f64;
        let mut normals_fit_unit = Vec::with_capacity(frame_count as usize);
        let mut frame = CornerFrame::default();
        for f in 0..frame_count {
            frames.decode(f, &mut frame)?;
            for (p, b) in frame.positions.iter().zip(&base.positions) {
                for k in 0..3 {
                    max_delta = max_delta.max((f64::from(p[k]) - f64::from(b[k])).abs());
                }
            }
            let fits = frame
                .normals
                .iter()
                .zip(&base.normals)
                .all(|(n, b)| (0..3).all(|k| (n[k] - b[k]).abs() <= 1.0));
            normals_fit_unit.push(fits);
        }
        Ok(Survey {
            base,
            base_min,
            base_max,
            max_delta,
            normals_fit_unit,
        })
    }
}
