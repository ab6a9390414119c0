//! An independent measurement of a level's error, written apart from the
//! crate's: decode every frame in `f64`, sample both surfaces densely (every
//! vertex, points along every edge and inside every triangle, at most
//! `SPACING` apart), and find each sample's exact distance to the other
//! surface through a uniform grid. The largest distance over every frame
//! is a lower bound on the true error, so it must never exceed the crate's
//! reported bound.

use md2_wgpu::Md2Model;

pub type P = [f64; 3];

/// Samples are at most this far apart along an edge (model units).
pub const SPACING: f64 = 1.0;

pub fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross(a: P, b: P) -> P {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Every vertex of `frame` in model units, in `f64`: byte × scale +
/// translate.
pub fn positions(model: &Md2Model, frame: u32) -> Vec<P> {
    let f = model.keyframes().frames()[frame as usize];
    model
        .keyframes()
        .frame_data(frame)
        .packed()
        .iter()
        .map(|v| {
            std::array::from_fn(|k| {
                f64::from(v.position[k]) * f64::from(f.scale[k]) + f64::from(f.translate[k])
            })
        })
        .collect()
}

/// The squared distance from `p` to the segment `a`–`b` (written out:
/// this runs hundreds of millions of times in a debug build).
fn segment_distance_squared(p: P, a: P, b: P) -> f64 {
    let (ux, uy, uz) = (b[0] - a[0], b[1] - a[1], b[2] - a[2]);
    let (wx, wy, wz) = (p[0] - a[0], p[1] - a[1], p[2] - a[2]);
    let len2 = ux * ux + uy * uy + uz * uz;
    let t = if len2 > 0.0 {
        (wx * ux + wy * uy + wz * uz) / len2
    } else {
        0.0
    };
    let t = t.clamp(0.0, 1.0);
    let (dx, dy, dz) = (wx - ux * t, wy - uy * t, wz - uz * t);
    dx * dx + dy * dy + dz * dz
}

/// The exact squared distance from `p` to the closed triangle: to its
/// plane where `p` projects inside it (barycentric coordinates from the
/// normal equations), else to its nearest edge.
pub fn triangle_distance_squared(p: P, [a, b, c]: [P; 3]) -> f64 {
    let (u, v, w) = (sub(b, a), sub(c, a), sub(p, a));
    let (uu, uv, vv, wu, wv) = (dot(u, u), dot(u, v), dot(v, v), dot(w, u), dot(w, v));
    let det = uu * vv - uv * uv;
    if det > 1e-12 * uu * vv {
        let s = (vv * wu - uv * wv) / det;
        let t = (uu * wv - uv * wu) / det;
        if s >= 0.0 && t >= 0.0 && s + t <= 1.0 {
            let n = cross(u, v);
            let h = dot(w, n);
            return h * h / dot(n, n);
        }
    }
    let ab = segment_distance_squared(p, a, b);
    let bc = segment_distance_squared(p, b, c);
    let ca = segment_distance_squared(p, c, a);
    let m = if ab < bc { ab } else { bc };
    if m < ca { m } else { ca }
}

/// The exact distance from `p` to the closed triangle.
pub fn triangle_distance(p: P, t: [P; 3]) -> f64 {
    triangle_distance_squared(p, t).sqrt()
}

/// Triangles bucketed by the grid cells their boxes touch (a dense grid
/// over their box, so a cell is found by arithmetic).
pub struct Grid {
    cell: f64,
    /// Per cell, from `lo`, x fastest: the triangles touching it.
    cells: Vec<Vec<usize>>,
    triangles: Vec<[P; 3]>,
    /// Each triangle's bounding sphere (centre, radius): most triangles of
    /// a cell are passed over by it.
    spheres: Vec<(P, f64)>,
    lo: [i64; 3],
    hi: [i64; 3],
}

impl Grid {
    pub fn new(triangles: Vec<[P; 3]>, cell: f64) -> Grid {
        let key = |p: P| -> [i64; 3] { p.map(|x| (x / cell).floor() as i64) };
        let boxes: Vec<([i64; 3], [i64; 3])> = triangles
            .iter()
            .map(|t| {
                let (mut a, mut b) = (key(t[0]), key(t[0]));
                for &p in &t[1..] {
                    let k = key(p);
                    for d in 0..3 {
                        a[d] = a[d].min(k[d]);
                        b[d] = b[d].max(k[d]);
                    }
                }
                (a, b)
            })
            .collect();
        let (mut lo, mut hi) = ([0i64; 3], [-1i64; 3]);
        if let Some(first) = boxes.first() {
            (lo, hi) = *first;
            for (a, b) in &boxes {
                for d in 0..3 {
                    lo[d] = lo[d].min(a[d]);
                    hi[d] = hi[d].max(b[d]);
                }
            }
        }
        let dims: Vec<usize> = (0..3)
            .map(|d| (hi[d] - lo[d] + 1).max(0) as usize)
            .collect();
        let mut cells = vec![Vec::new(); dims.iter().product()];
        for (i, (a, b)) in boxes.iter().enumerate() {
            for z in a[2]..=b[2] {
                for y in a[1]..=b[1] {
                    for x in a[0]..=b[0] {
                        let at = ((z - lo[2]) as usize * dims[1] + (y - lo[1]) as usize) * dims[0]
                            + (x - lo[0]) as usize;
                        cells[at].push(i);
                    }
                }
            }
        }
        let spheres = triangles
            .iter()
            .map(|t| {
                let c: P = std::array::from_fn(|k| (t[0][k] + t[1][k] + t[2][k]) / 3.0);
                let r = t
                    .iter()
                    .map(|&p| dot(sub(p, c), sub(p, c)))
                    .fold(0.0, f64::max)
                    .sqrt();
                (c, r)
            })
            .collect();
        Grid {
            cell,
            cells,
            triangles,
            spheres,
            lo,
            hi,
        }
    }

    fn cell(&self, [x, y, z]: [i64; 3]) -> &[usize] {
        let dims = [0, 1, 2].map(|d| (self.hi[d] - self.lo[d] + 1) as usize);
        let at = ((z - self.lo[2]) as usize * dims[1] + (y - self.lo[1]) as usize) * dims[0]
            + (x - self.lo[0]) as usize;
        &self.cells[at]
    }

    /// The distance from `p` to the nearest triangle.
    pub fn distance(&self, p: P) -> f64 {
        self.nearest(p).0
    }

    /// The distance from `p` to the nearest triangle, and that triangle
    /// (its index in the list): cells in growing shells around `p`'s cell, until no cell
    /// further out can hold anything nearer.
    pub fn nearest(&self, p: P) -> (f64, usize) {
        let c = p.map(|x| (x / self.cell).floor() as i64);
        // How far p is inside its own cell: every cell beyond shell r is at
        // least r cells plus this far away.
        let inside = (0..3)
            .map(|k| {
                let f = p[k] / self.cell - c[k] as f64;
                f.min(1.0 - f) * self.cell
            })
            .fold(f64::INFINITY, f64::min);
        let reach = (0..3)
            .map(|k| (c[k] - self.lo[k]).abs().max((self.hi[k] - c[k]).abs()))
            .max()
            .unwrap_or(0);
        // Squared distance and triangle.
        let mut best = (f64::INFINITY, 0);
        for r in 0..=reach {
            for z in (c[2] - r).max(self.lo[2])..=(c[2] + r).min(self.hi[2]) {
                for y in (c[1] - r).max(self.lo[1])..=(c[1] + r).min(self.hi[1]) {
                    let edge = (z - c[2]).abs() == r || (y - c[1]).abs() == r;
                    for x in (c[0] - r).max(self.lo[0])..=(c[0] + r).min(self.hi[0]) {
                        // Only the shell: cells nearer were searched before.
                        if !edge && (x - c[0]).abs() != r {
                            continue;
                        }
                        for &t in self.cell([x, y, z]) {
                            let (c, r) = self.spheres[t];
                            let (dx, dy, dz) = (p[0] - c[0], p[1] - c[1], p[2] - c[2]);
                            let gap = (dx * dx + dy * dy + dz * dz).sqrt() - r;
                            if gap > 0.0 && gap * gap > best.0 {
                                continue;
                            }
                            let d = triangle_distance_squared(p, self.triangles[t]);
                            if d < best.0 || (d == best.0 && t < best.1) {
                                best = (d, t);
                            }
                        }
                    }
                }
            }
            let reached = r as f64 * self.cell + inside;
            if best.0 <= reached * reached {
                break;
            }
        }
        (best.0.sqrt(), best.1)
    }
}

/// Points on a triangle list at most `SPACING` apart in every frame: each
/// vertex once, each edge's inner points once, and a barycentric grid
/// inside each triangle; as (vertices, weights), to pose in any frame.
pub struct Samples(Vec<([u32; 3], [f64; 3])>);

impl Samples {
    pub fn new(model: &Md2Model, triangles: &[[u32; 3]]) -> Samples {
        let mut longest = vec![0.0f64; triangles.len()];
        for f in 0..model.keyframes().frame_count() {
            let pos = positions(model, f);
            for (l, t) in longest.iter_mut().zip(triangles) {
                for k in 0..3 {
                    let d = sub(pos[t[k] as usize], pos[t[(k + 1) % 3] as usize]);
                    *l = l.max(dot(d, d).sqrt());
                }
            }
        }
        let mut out = Vec::new();
        let mut vertices = std::collections::HashSet::new();
        let mut edges = std::collections::HashSet::new();
        for (t, l) in triangles.iter().zip(longest) {
            let n = ((l / SPACING).ceil() as usize).clamp(1, 64);
            for k in 0..3 {
                if vertices.insert(t[k]) {
                    out.push(([t[k]; 3], [1.0, 0.0, 0.0]));
                }
                let (a, b) = (t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3]));
                if edges.insert((a, b)) {
                    out.extend((1..n).map(|i| {
                        let s = i as f64 / n as f64;
                        ([a, b, b], [1.0 - s, s, 0.0])
                    }));
                }
            }
            for i in 1..n {
                for j in 1..n - i {
                    let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                    out.push((*t, [1.0 - u - v, u, v]));
                }
            }
        }
        Samples(out)
    }

    /// The points in the pose `positions`.
    pub fn posed<'a>(&'a self, positions: &'a [P]) -> impl Iterator<Item = P> + 'a {
        self.0.iter().map(|(t, w)| {
            let [a, b, c] = t.map(|v| positions[v as usize]);
            [
                w[0] * a[0] + w[1] * b[0] + w[2] * c[0],
                w[0] * a[1] + w[1] * b[1] + w[2] * c[1],
                w[0] * a[2] + w[1] * b[2] + w[2] * c[2],
            ]
        })
    }
}

/// Triangles with three different vertices (a repeated one draws nothing).
pub fn with_area(triangles: &[[u32; 3]]) -> Vec<[u32; 3]> {
    triangles
        .iter()
        .copied()
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[2] != t[0])
        .collect()
}

/// The largest distance found, over every frame, from a sample of either
/// surface to the other, and the frame it was found in.
pub fn sampled_error(
    model: &Md2Model,
    full: &[[u32; 3]],
    level: &[[u32; 3]],
    frames: impl Iterator<Item = u32> + Clone + Send,
) -> (f64, u32) {
    let (full, level) = (with_area(full), with_area(level));
    let frames: Vec<u32> = frames.collect();
    let (on_full, on_level) = (Samples::new(model, &full), Samples::new(model, &level));
    // Two threads: the frames are independent.
    let worst_of = |frames: &[u32]| -> (f64, u32) {
        let mut worst = (0.0f64, 0);
        for &f in frames {
            let pos = positions(model, f);
            let posed = |ts: &[[u32; 3]]| -> Vec<[P; 3]> {
                ts.iter().map(|t| t.map(|v| pos[v as usize])).collect()
            };
            let cell = 4.0 * SPACING;
            let (to_level, to_full) = (
                Grid::new(posed(&level), cell),
                Grid::new(posed(&full), cell),
            );
            for (from, to) in [(&on_full, &to_level), (&on_level, &to_full)] {
                for p in from.posed(&pos) {
                    let d = to.distance(p);
                    if d > worst.0 {
                        worst = (d, f);
                    }
                }
            }
        }
        worst
    };
    let half = frames.len() / 2;
    let (a, b) = std::thread::scope(|s| {
        let first = s.spawn(|| worst_of(&frames[..half]));
        let second = worst_of(&frames[half..]);
        (first.join().expect("measuring thread"), second)
    });
    if a.0 >= b.0 { a } else { b }
}

#[test]
fn the_grid_finds_the_nearest_triangle() {
    let mut rng = md2_wgpu::support::Rng::new(11);
    let mut triangles = Vec::new();
    for _ in 0..60 {
        let o: P = [
            rng.unit_f64() * 20.0,
            rng.unit_f64() * 20.0,
            rng.unit_f64() * 5.0,
        ];
        let corner = |rng: &mut md2_wgpu::support::Rng| -> P {
            std::array::from_fn(|k| o[k] + rng.unit_f64() * 3.0)
        };
        triangles.push([corner(&mut rng), corner(&mut rng), corner(&mut rng)]);
    }
    let grid = Grid::new(triangles.clone(), 2.0);
    for _ in 0..300 {
        let p: P = [
            rng.unit_f64() * 30.0 - 5.0,
            rng.unit_f64() * 30.0 - 5.0,
            rng.unit_f64() * 15.0 - 5.0,
        ];
        let brute = triangles
            .iter()
            .map(|&t| triangle_distance(p, t))
            .fold(f64::INFINITY, f64::min);
        assert_eq!(grid.distance(p), brute);
    }
    // The distance itself, against points on a fine grid of the triangle.
    let t = [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 3.0, 0.0]];
    for p in [
        [1.0, 1.0, 2.0],
        [5.0, 1.0, 0.0],
        [-1.0, -1.0, 1.0],
        [2.5, 2.5, -1.0],
    ] {
        let mut fine = f64::INFINITY;
        for i in 0..=200 {
            for j in 0..=200 - i {
                let q = [4.0 * i as f64 / 200.0, 3.0 * j as f64 / 200.0, 0.0];
                let d = sub(p, q);
                fine = fine.min(dot(d, d).sqrt());
            }
        }
        let exact = triangle_distance(p, t);
        assert!(
            exact <= fine + 1e-12 && fine - exact < 0.03,
            "{p:?}: {exact} {fine}"
        );
    }
}
