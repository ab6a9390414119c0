//! [`nearest_normal_index`] for a hundred thousand normals: the same answer,
//! from a handful of candidates instead of all 162 entries.
//!
//! Directions are binned on a cube map. For each cell, the candidates are
//! the table entries within `cell radius + covering radius` of the cell's
//! centre: by the triangle inequality that holds every entry that can be
//! nearest to any direction in the cell (and every entry tied with it), so
//! the search over them, in index order with the same `f32` dot product,
//! gives exactly what the full search gives.
//!
//! And [`encode_lat_long`], a normal as the demo player's MD3 files store
//! it: Quake III's pair of angles.

use crate::model::{ANORMS, FALLBACK_NORMAL_INDEX};

use super::math::{V3, dot, normalize};

/// Cells along each side of a cube face.
const GRID: usize = 8;
/// No direction is further than this from its nearest table entry (the
/// table is a subdivided icosahedron with about 0.19 rad between
/// neighbours, so the true figure is near 0.11); generous, as only speed
/// depends on it.
const COVERING_RADIUS: f64 = 0.3;

pub(crate) struct NormalIndex {
    cells: Vec<Vec<u8>>,
}

/// The face (0..6) and cell of a direction, and the face's axes.
fn cell_of(q: [f64; 3]) -> usize {
    let a = q.map(f64::abs);
    let axis = if a[0] >= a[1] && a[0] >= a[2] {
        0
    } else if a[1] >= a[2] {
        1
    } else {
        2
    };
    let face = axis * 2 + usize::from(q[axis] < 0.0);
    let (u, v) = (q[(axis + 1) % 3] / a[axis], q[(axis + 2) % 3] / a[axis]);
    let bin = |x: f64| (((x + 1.0) * 0.5 * GRID as f64) as usize).min(GRID - 1);
    (face * GRID + bin(u)) * GRID + bin(v)
}

/// The direction at face coordinates (u, v) in [−1, 1]².
fn direction(face: usize, u: f64, v: f64) -> V3 {
    let axis = face / 2;
    let mut d = [0.0; 3];
    d[axis] = if face.is_multiple_of(2) { 1.0 } else { -1.0 };
    d[(axis + 1) % 3] = u;
    d[(axis + 2) % 3] = v;
    normalize(d)
}

impl NormalIndex {
    pub(crate) fn new() -> NormalIndex {
        let (sin_r, cos_r) = super::math::sin_cos(COVERING_RADIUS);
        let mut cells = Vec::with_capacity(6 * GRID * GRID);
        for face in 0..6 {
            for i in 0..GRID {
                for j in 0..GRID {
                    let edge = |k: usize| -1.0 + 2.0 * k as f64 / GRID as f64;
                    let mid = |k: usize| -1.0 + (2.0 * k as f64 + 1.0) / GRID as f64;
                    let centre = direction(face, mid(i), mid(j));
                    // The cell's farthest point from its centre is a corner.
                    let cos_cell = [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)]
                        .into_iter()
                        .map(|(a, b)| dot(centre, direction(face, edge(a), edge(b))))
                        .fold(1.0, f64::min);
                    let sin_cell = (1.0 - cos_cell * cos_cell).max(0.0).sqrt();
                    // cos(cell radius + covering radius), less a margin for
                    // rounding.
                    let threshold = cos_cell * cos_r - sin_cell * sin_r - 1e-3;
                    let candidates = (0..ANORMS.len())
                        .filter(|&k| dot(ANORMS[k].map(f64::from), centre) >= threshold)
                        .map(|k| k as u8)
                        .collect();
                    cells.push(candidates);
                }
            }
        }
        NormalIndex { cells }
    }

    /// Exactly [`crate::model::nearest_normal_index`]`(normal)`.
    pub(crate) fn nearest(&self, normal: [f32; 3]) -> u8 {
        let len2 = normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2];
        if !(len2.is_finite() && len2 > 0.0) {
            return FALLBACK_NORMAL_INDEX;
        }
        let mut best = FALLBACK_NORMAL_INDEX;
        let mut best_dot = f32::NEG_INFINITY;
        for &k in &self.cells[cell_of(normal.map(f64::from))] {
            let n = ANORMS[k as usize];
            let d = n[0] * normal[0] + n[1] * normal[1] + n[2] * normal[2];
            if d > best_dot {
                best_dot = d;
                best = k;
            }
        }
        best
    }
}

/// The stored normal nearest `n`: the longitude whose cosine is nearest
/// its z, the latitude nearest its direction in the xy plane, then the
/// best of their neighbours by the decoded normal, all from md2-wgpu's
/// table (no platform trigonometry: the bytes are the same everywhere).
pub(super) fn encode_lat_long(n: V3) -> u16 {
    let n = normalize(n);
    let table = crate::model::lat_long_table();
    let nearest = |range: std::ops::Range<usize>, score: &dyn Fn(usize) -> f64| {
        range
            .map(|k| (k, score(k)))
            .fold((0, f64::NEG_INFINITY), |best, (k, s)| {
                if s > best.1 { (k, s) } else { best }
            })
            .0
    };
    let lng = nearest(0..129, &|k| -(f64::from(table[k][0]) - n[2]).abs());
    let lat = nearest(0..256, &|k| {
        f64::from(table[k][0]) * n[0] + f64::from(table[k][1]) * n[1]
    });
    let mut best = (0u16, f64::NEG_INFINITY);
    for dlng in [0, 1, 255] {
        for dlat in [0, 1, 255] {
            let packed = ((((lat + dlat) % 256) << 8) | ((lng + dlng) % 256)) as u16;
            let d = crate::model::normal_from_lat_long(packed);
            let score = f64::from(d[0]) * n[0] + f64::from(d[1]) * n[1] + f64::from(d[2]) * n[2];
            if score > best.1 {
                best = (packed, score);
            }
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::nearest_normal_index;

    #[test]
    fn agrees_with_the_full_search_everywhere() {
        let index = NormalIndex::new();
        let most = index.cells.iter().map(Vec::len).max().unwrap();
        assert!(most < 40, "cells hold up to {most} candidates");
        let mut queries: Vec<[f32; 3]> = ANORMS.to_vec();
        queries.extend(ANORMS.iter().map(|n| n.map(|x| -x * 3.0)));
        // Axes, cell and face boundaries, and midpoints between entries.
        for a in [-1.0f32, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0] {
            for b in [-1.0f32, -0.75, -0.5, 0.0, 0.5, 0.75, 1.0] {
                queries.extend([[1.0, a, b], [a, -1.0, b], [a, b, 1.0], [b, a, -2.0]]);
            }
        }
        for (i, n) in ANORMS.iter().enumerate() {
            for m in &ANORMS[i + 1..] {
                queries.push([n[0] + m[0], n[1] + m[1], n[2] + m[2]]);
            }
        }
        let mut x: u32 = 0x9e37_79b9;
        for _ in 0..200_000 {
            let mut c = [0.0f32; 3];
            for v in &mut c {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *v = (x as f32 / u32::MAX as f32) * 2.0 - 1.0;
            }
            queries.push(c);
        }
        queries.extend([[0.0; 3], [f32::NAN, 0.0, 1.0], [f32::INFINITY, 0.0, 0.0]]);
        for q in queries {
            assert_eq!(index.nearest(q), nearest_normal_index(q), "{q:?}");
        }
    }
}
