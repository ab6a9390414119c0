//! Choosing an instance's level of detail: the coarsest whose error,
//! projected at the instance's distance, stays within the renderer's
//! budget in pixels. The CPU does it here for the immediate path, and
//! `crowd/cull.wgsl`'s `member_level` does the same arithmetic on the GPU
//! for crowd members, in the same order, so both paths choose alike.

use super::buckets::MAX_LEVELS;

/// What a view chooses levels by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LevelView {
    /// The view-projection's last row: dotted with a world point (w = 1),
    /// its clip-space `w` (for a perspective camera, the distance along the
    /// line of sight; 1 everywhere for an orthographic one).
    pub w_row: [f32; 4],
    /// Pixels per world unit at `w` = 1 over the largest error in pixels
    /// (`Camera::level_scale`); 0: full detail only.
    pub scale: f32,
}

/// A model's levels as the choice needs them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ModelLevels {
    /// Levels drawn (at least 1, at most [`MAX_LEVELS`]).
    pub count: usize,
    /// Each level's error, in model units (full detail: 0).
    pub errors: [f32; MAX_LEVELS],
    /// A sphere around every frame of the model, in model space (Quake
    /// axes): centre, radius.
    pub sphere: [f32; 4],
}

/// The level to draw an instance placed by `rows` (model to world, three
/// rows) at: the coarsest whose error, scaled by the transform's largest
/// column (its largest stretch along a model axis) and projected where the
/// model's sphere comes nearest the camera, is within budget:
/// `error × stretch × scale <= w_nearest`.
pub(crate) fn choose(view: &LevelView, levels: &ModelLevels, rows: &[[f32; 4]; 3]) -> usize {
    if view.scale <= 0.0 || levels.count <= 1 {
        return 0;
    }
    let column =
        |j: usize| rows[0][j] * rows[0][j] + rows[1][j] * rows[1][j] + rows[2][j] * rows[2][j];
    let stretch = column(0).max(column(1)).max(column(2)).sqrt();
    let c = levels.sphere;
    let at = |r: &[f32; 4]| r[0] * c[0] + r[1] * c[1] + r[2] * c[2] + r[3];
    let center = [at(&rows[0]), at(&rows[1]), at(&rows[2])];
    let w = view.w_row;
    let w_length = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    let nearest =
        w[0] * center[0] + w[1] * center[1] + w[2] * center[2] + w[3] - c[3] * stretch * w_length;
    let mut level = 0;
    for (l, &error) in levels.errors.iter().enumerate().take(levels.count).skip(1) {
        if error * stretch * view.scale <= nearest {
            level = l;
        }
    }
    level
}
