//! `KHR_mesh_quantization`: every frame's positions on one grid of 16-bit
//! integers, and normal deltas as normalised 16-bit integers.
//!
//! An MD2 frame is already quantised, to 8 bits on a grid of its own (its
//! scale and translate), but each frame's grid differs, and a morph target
//! is added to the base in the base's units: so every frame is quantised
//! again, onto one grid, with the step the node's uniform scale and the
//! grid's centre its translation. The step is chosen so that both the
//! base's coordinates and every frame's difference from the base fit in a
//! `SHORT`; a position is then off by at most half a step per axis.

/// The largest magnitude a grid coordinate or difference is given: the
/// `i16` range less one, so a difference of two rounded coordinates still
/// fits.
const GRID_REACH: f64 = 32_766.0;

/// The scale of a normalised `SHORT`: `q / 32767` is the value.
pub(super) const SHORT_UNIT: f64 = 32_767.0;

/// One grid for every frame's positions: `position = centre + step · q`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Grid {
    pub centre: [f32; 3],
    pub step: f32,
}

impl Grid {
    /// The grid centred on the base's bounds whose reach holds the base and
    /// every frame's difference from it (`max_delta` per coordinate).
    pub fn fit(base_min: [f32; 3], base_max: [f32; 3], max_delta: f64) -> Grid {
        let centre: [f32; 3] = std::array::from_fn(|k| base_min[k] / 2.0 + base_max[k] / 2.0);
        let mut reach = max_delta;
        for k in 0..3 {
            let (lo, hi, c) = (
                f64::from(base_min[k]),
                f64::from(base_max[k]),
                f64::from(centre[k]),
            );
            reach = reach.max(hi - c).max(c - lo);
        }
        let wanted = reach / GRID_REACH;
        let mut step = wanted as f32;
        // Rounded to f32 the step may fall short of the reach: one ulp up.
        if f64::from(step) < wanted {
            step = step.next_up();
        }
        // A model that never moves and is a single point still needs a step.
        if !(step.is_finite() && step > 0.0) {
            step = 1.0;
        }
        Grid { centre, step }
    }

    /// The grid point nearest `p`.
    pub fn quantize(&self, p: [f32; 3]) -> [i32; 3] {
        std::array::from_fn(|k| {
            ((f64::from(p[k]) - f64::from(self.centre[k])) / f64::from(self.step)).round() as i32
        })
    }

    /// Where grid point `q` is, exactly.
    pub fn position(&self, q: [i32; 3]) -> [f64; 3] {
        std::array::from_fn(|k| f64::from(self.centre[k]) + f64::from(self.step) * f64::from(q[k]))
    }
}

/// A grid coordinate or difference as a `SHORT` (the grid's reach keeps it
/// in range; the clamp only makes that total).
pub(super) fn short(q: i32) -> i16 {
    q.clamp(-32_767, 32_767) as i16
}

/// A value in `[-1, 1]` as a normalised `SHORT`.
pub(super) fn unit_short(x: f32) -> i16 {
    (f64::from(x) * SHORT_UNIT)
        .round()
        .clamp(-SHORT_UNIT, SHORT_UNIT) as i16
}

/// The distance between two points.
pub(super) fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_holds_the_base_and_every_difference_in_a_short() {
        let grid = Grid::fit([-10.0, 0.0, 3.0], [30.0, 56.0, 3.0], 70.0);
        assert_eq!(grid.centre, [10.0, 28.0, 3.0]);
        assert!(f64::from(grid.step) * GRID_REACH >= 70.0);
        let q = grid.quantize([30.0, 56.0, 3.0]);
        assert!(q.iter().all(|&c| c.abs() <= 32_767), "{q:?}");
        let back = grid.position(q);
        assert!(distance(back, [30.0, 56.0, 3.0]) <= f64::from(grid.step));
    }

    #[test]
    fn a_point_that_never_moves_still_gets_a_grid() {
        let grid = Grid::fit([1.0; 3], [1.0; 3], 0.0);
        assert!(grid.step > 0.0);
        assert_eq!(grid.quantize([1.0; 3]), [0; 3]);
    }

    #[test]
    fn unit_shorts_round_and_clamp() {
        assert_eq!(unit_short(1.0), 32_767);
        assert_eq!(unit_short(-1.0), -32_767);
        assert_eq!(unit_short(0.5), 16_384);
        assert_eq!(short(40_000), 32_767);
    }
}
