//! Nearest points on a posed triangle soup: the exact point-to-triangle
//! distance, and a bounding-volume hierarchy to find the nearest triangle
//! fast.
//!
//! The error bound measures thousands of points against every frame of
//! the model, so the hierarchy is built once per triangle list (its
//! topology fitted to one pose) and only its boxes are refitted per frame:
//! a box tree stays correct for any pose, it is merely less tight for poses
//! far from the one it was built for. Distances are computed in `f64`, so
//! degenerate and needle triangles (real MD2 files have both) cannot turn
//! them into NaN or make them much too small.

/// A point in model units.
pub(super) type P3 = [f64; 3];

pub(super) fn sub(a: P3, b: P3) -> P3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(super) fn dot(a: P3, b: P3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(super) fn cross(a: P3, b: P3) -> P3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub(super) fn mid(a: P3, b: P3) -> P3 {
    [
        0.5 * (a[0] + b[0]),
        0.5 * (a[1] + b[1]),
        0.5 * (a[2] + b[2]),
    ]
}

pub(super) fn distance_squared(a: P3, b: P3) -> f64 {
    let d = sub(a, b);
    dot(d, d)
}

/// Squared distance from `p` to the segment `a`–`b` (a point where they
/// coincide).
fn segment_distance_squared(p: P3, a: P3, b: P3) -> f64 {
    let ab = sub(b, a);
    let ap = sub(p, a);
    let len2 = dot(ab, ab);
    let t = if len2 > 0.0 {
        (dot(ap, ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let q = [a[0] + ab[0] * t, a[1] + ab[1] * t, a[2] + ab[2] * t];
    distance_squared(p, q)
}

/// Below this squared sine of its sharpest corner a triangle is measured
/// by its edges alone: its plane is too ill-defined to project onto, and
/// its edges are then within rounding of its surface.
const FLAT_SINE_SQUARED: f64 = 1e-18;

/// A posed triangle with what every distance to it needs, computed once
/// per pose.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Posed {
    a: P3,
    b: P3,
    c: P3,
    ab: P3,
    ac: P3,
    /// ab·ab, ab·ac, ac·ac.
    d00: f64,
    d01: f64,
    d11: f64,
    /// The normal ab × ac and its squared length; `flat` where that is too
    /// small to trust.
    n: P3,
    nn: f64,
    flat: bool,
}

impl Posed {
    pub(super) fn new([a, b, c]: [P3; 3]) -> Posed {
        let (ab, ac) = (sub(b, a), sub(c, a));
        let n = cross(ab, ac);
        let (d00, d01, d11, nn) = (dot(ab, ab), dot(ab, ac), dot(ac, ac), dot(n, n));
        Posed {
            a,
            b,
            c,
            ab,
            ac,
            d00,
            d01,
            d11,
            n,
            nn,
            flat: nn.is_nan() || nn <= FLAT_SINE_SQUARED * d00 * d11,
        }
    }

    /// The corners.
    pub(super) fn corners(&self) -> [P3; 3] {
        [self.a, self.b, self.c]
    }

    /// The unit normal by the right-hand rule, if the triangle has one.
    pub(super) fn unit_normal(&self) -> Option<P3> {
        (!self.flat).then(|| self.n.map(|x| x / self.nn.sqrt()))
    }

    /// Squared distance from `p` to the closed triangle, whatever its
    /// shape: by the Voronoi regions of its corners, edges and face
    /// (Ericson, *Real-Time Collision Detection*, 5.1.5), or, for a flat
    /// one, to the nearest of its edges.
    #[inline]
    pub(super) fn distance_squared(&self, p: P3) -> f64 {
        if self.flat {
            return segment_distance_squared(p, self.a, self.b)
                .min(segment_distance_squared(p, self.b, self.c))
                .min(segment_distance_squared(p, self.c, self.a));
        }
        let ap = sub(p, self.a);
        let d1 = dot(self.ab, ap);
        let d2 = dot(self.ac, ap);
        if d1 <= 0.0 && d2 <= 0.0 {
            return dot(ap, ap);
        }
        // p − b and p − c against the edges, from d1 and d2.
        let (d3, d4) = (d1 - self.d00, d2 - self.d01);
        if d3 >= 0.0 && d4 <= d3 {
            return distance_squared(p, self.b);
        }
        let vc = d1 * d4 - d3 * d2;
        if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
            return segment_distance_squared(p, self.a, self.b);
        }
        let (d5, d6) = (d1 - self.d01, d2 - self.d11);
        if d6 >= 0.0 && d5 <= d6 {
            return distance_squared(p, self.c);
        }
        let vb = d5 * d2 - d1 * d6;
        if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
            return segment_distance_squared(p, self.a, self.c);
        }
        let va = d3 * d6 - d5 * d4;
        if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
            return segment_distance_squared(p, self.b, self.c);
        }
        let h = dot(ap, self.n);
        h * h / self.nn
    }
}

/// Squared distance from `p` to the closed triangle `t`.
#[cfg(test)]
pub(super) fn triangle_distance_squared(p: P3, t: &[P3; 3]) -> f64 {
    Posed::new(*t).distance_squared(p)
}

/// Squared distance from `p` to the box `[lo, hi]` (0 inside).
fn box_distance_squared(p: P3, lo: P3, hi: P3) -> f64 {
    let mut d = 0.0;
    for k in 0..3 {
        let e = (lo[k] - p[k]).max(p[k] - hi[k]).max(0.0);
        d += e * e;
    }
    d
}

/// Triangles per leaf: few, since a leaf's triangles are all measured.
const LEAF: usize = 4;

#[derive(Clone, Copy, Debug)]
struct Node {
    lo: P3,
    hi: P3,
    /// A leaf's first entry in `order`, or an inner node's first child
    /// (the second is `first + 1`).
    first: u32,
    /// Triangles in a leaf; 0 for an inner node.
    count: u32,
}

/// A box tree over a triangle list whose corners move from pose to pose.
#[derive(Clone, Debug)]
pub(super) struct TriangleTree {
    nodes: Vec<Node>,
    /// Triangle ids, leaf by leaf.
    order: Vec<u32>,
    /// Each triangle in the current pose.
    posed: Vec<Posed>,
}

impl TriangleTree {
    /// A tree over `triangles` (vertex ids), its topology split by the
    /// triangles' centres in `positions`. Pose it with [`TriangleTree::pose`]
    /// before asking it anything.
    pub(super) fn new(triangles: &[[u32; 3]], positions: &[P3]) -> TriangleTree {
        let centres: Vec<P3> = triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|v| positions[v as usize]);
                std::array::from_fn(|k| (a[k] + b[k] + c[k]) / 3.0)
            })
            .collect();
        let mut order: Vec<u32> = (0..triangles.len() as u32).collect();
        let empty = Node {
            lo: [0.0; 3],
            hi: [0.0; 3],
            first: 0,
            count: 0,
        };
        let mut nodes = vec![empty];
        // (node, range of `order`), split until leaves are small; children
        // are allocated in pairs so a node names only its first.
        let mut stack = vec![(0usize, 0usize, order.len())];
        while let Some((node, start, end)) = stack.pop() {
            if end - start <= LEAF {
                nodes[node].first = start as u32;
                nodes[node].count = (end - start) as u32;
                continue;
            }
            let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
            for &t in &order[start..end] {
                for k in 0..3 {
                    lo[k] = lo[k].min(centres[t as usize][k]);
                    hi[k] = hi[k].max(centres[t as usize][k]);
                }
            }
            let axis = (0..3)
                .max_by(|&i, &j| (hi[i] - lo[i]).total_cmp(&(hi[j] - lo[j])))
                .unwrap_or(0);
            let half = start + (end - start) / 2;
            // Ties broken by id, so the tree is a pure function of its input.
            order[start..end].select_nth_unstable_by(half - start, |&a, &b| {
                centres[a as usize][axis]
                    .total_cmp(&centres[b as usize][axis])
                    .then(a.cmp(&b))
            });
            let first = nodes.len();
            nodes.push(empty);
            nodes.push(empty);
            nodes[node].first = first as u32;
            stack.push((first, start, half));
            stack.push((first + 1, half, end));
        }
        TriangleTree {
            nodes,
            order,
            posed: vec![Posed::default(); triangles.len()],
        }
    }

    /// Moves the triangles to a pose (`positions` by vertex id) and refits
    /// every box around them.
    pub(super) fn pose(&mut self, triangles: &[[u32; 3]], positions: &[P3]) {
        for (posed, t) in self.posed.iter_mut().zip(triangles) {
            *posed = Posed::new(t.map(|v| positions[v as usize]));
        }
        // Children come after their parent, so a backward sweep sees both
        // children's boxes before the parent's.
        for n in (0..self.nodes.len()).rev() {
            let node = self.nodes[n];
            let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
            if node.count > 0 {
                let range = node.first as usize..(node.first + node.count) as usize;
                for &t in &self.order[range] {
                    for p in &self.posed[t as usize].corners() {
                        for k in 0..3 {
                            lo[k] = lo[k].min(p[k]);
                            hi[k] = hi[k].max(p[k]);
                        }
                    }
                }
            } else if node.first != 0 {
                let (a, b) = (
                    self.nodes[node.first as usize],
                    self.nodes[node.first as usize + 1],
                );
                for k in 0..3 {
                    lo[k] = a.lo[k].min(b.lo[k]);
                    hi[k] = a.hi[k].max(b.hi[k]);
                }
            }
            self.nodes[n].lo = lo;
            self.nodes[n].hi = hi;
        }
    }

    /// Triangle `t` in the current pose.
    pub(super) fn posed(&self, t: u32) -> &Posed {
        &self.posed[t as usize]
    }

    /// Squared distance from `p` to triangle `t` in the current pose.
    #[inline]
    pub(super) fn distance_squared_to(&self, p: P3, t: u32) -> f64 {
        self.posed[t as usize].distance_squared(p)
    }

    /// The nearest triangle to `p` and its squared distance, starting from
    /// a known candidate (`hint`, any triangle id) whose distance bounds
    /// the search; `None` for an empty list.
    pub(super) fn nearest(&self, p: P3, hint: Option<u32>) -> Option<(f64, u32)> {
        if self.posed.is_empty() {
            return None;
        }
        let hint = hint
            .filter(|&t| (t as usize) < self.posed.len())
            .unwrap_or(0);
        let mut best = (self.distance_squared_to(p, hint), hint);
        let mut stack: Vec<u32> = Vec::with_capacity(64);
        stack.push(0);
        while let Some(n) = stack.pop() {
            let node = self.nodes[n as usize];
            if box_distance_squared(p, node.lo, node.hi) >= best.0 {
                continue;
            }
            if node.count > 0 {
                let range = node.first as usize..(node.first + node.count) as usize;
                for &t in &self.order[range] {
                    let d = self.distance_squared_to(p, t);
                    if d < best.0 {
                        best = (d, t);
                    }
                }
                continue;
            }
            let (a, b) = (node.first, node.first + 1);
            let da = {
                let c = self.nodes[a as usize];
                box_distance_squared(p, c.lo, c.hi)
            };
            let db = {
                let c = self.nodes[b as usize];
                box_distance_squared(p, c.lo, c.hi)
            };
            // The nearer child is popped first.
            if da < db {
                stack.extend([b, a]);
            } else {
                stack.extend([a, b]);
            }
        }
        Some(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::Rng;

    #[test]
    fn distances_to_a_triangle_by_region() {
        let t = [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]];
        // Above the inside: the height.
        assert_eq!(triangle_distance_squared([1.0, 1.0, 3.0], &t), 9.0);
        // Beyond a corner and beyond an edge.
        assert_eq!(triangle_distance_squared([-3.0, -4.0, 0.0], &t), 25.0);
        assert_eq!(triangle_distance_squared([2.0, -2.0, 1.0], &t), 5.0);
        // Past the long edge: to (2, 2, 0).
        assert_eq!(triangle_distance_squared([3.0, 3.0, 0.0], &t), 2.0);
        // Beyond each corner and past each edge, from both sides.
        for (p, d) in [
            ([5.0, -1.0, 0.0], 2.0),
            ([-1.0, 5.0, 2.0], 6.0),
            ([-1.0, 2.0, -1.0], 2.0),
            ([1.0, 1.0, -2.0], 4.0),
        ] {
            assert_eq!(triangle_distance_squared(p, &t), d, "{p:?}");
        }
    }

    #[test]
    fn the_regions_agree_with_a_brute_force_search() {
        let mut rng = Rng::new(3);
        for _ in 0..2000 {
            let mut corner = || {
                [
                    rng.range(-2.0, 2.0),
                    rng.range(-2.0, 2.0),
                    rng.range(-2.0, 2.0),
                ]
            };
            let t: [P3; 3] = [corner(), corner(), corner()].map(|c| c.map(f64::from));
            let p = corner().map(|x| f64::from(x) * 2.0);
            // The nearest of a dense barycentric grid over the triangle is
            // never nearer than the exact distance, and not much farther.
            let mut brute = f64::INFINITY;
            let n = 60;
            for i in 0..=n {
                for j in 0..=n - i {
                    let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                    let q: P3 = std::array::from_fn(|k| {
                        t[0][k] + u * (t[1][k] - t[0][k]) + v * (t[2][k] - t[0][k])
                    });
                    brute = brute.min(distance_squared(p, q).sqrt());
                }
            }
            let exact = triangle_distance_squared(p, &t).sqrt();
            assert!(exact <= brute + 1e-12, "{exact} > {brute}");
            assert!(brute - exact < 0.2, "{exact} vs {brute}");
        }
    }

    #[test]
    fn degenerate_triangles_are_measured_by_their_edges() {
        let segment = [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [4.0, 0.0, 0.0]];
        assert_eq!(triangle_distance_squared([1.0, 3.0, 0.0], &segment), 9.0);
        assert_eq!(triangle_distance_squared([6.0, 0.0, 0.0], &segment), 4.0);
        let point = [[1.0, 1.0, 1.0]; 3];
        assert_eq!(triangle_distance_squared([1.0, 1.0, 3.0], &point), 4.0);
    }

    #[test]
    fn the_tree_finds_the_nearest_triangle_in_any_pose() {
        let mut rng = Rng::new(7);
        let mut positions: Vec<P3> = (0..90)
            .map(|_| [rng.unit_f64() * 10.0, rng.unit_f64() * 10.0, rng.unit_f64()])
            .collect();
        let triangles: Vec<[u32; 3]> = (0..30).map(|i| [3 * i, 3 * i + 1, 3 * i + 2]).collect();
        let mut tree = TriangleTree::new(&triangles, &positions);
        for pose in 0..3 {
            if pose > 0 {
                for p in &mut positions {
                    p[2] += rng.unit_f64() * 5.0;
                }
            }
            tree.pose(&triangles, &positions);
            for _ in 0..200 {
                let p = [
                    rng.unit_f64() * 12.0 - 1.0,
                    rng.unit_f64() * 12.0 - 1.0,
                    rng.unit_f64() * 6.0,
                ];
                let brute = triangles
                    .iter()
                    .map(|t| triangle_distance_squared(p, &t.map(|v| positions[v as usize])))
                    .fold(f64::INFINITY, f64::min);
                let hint = Some(rng.below(30) as u32);
                let (d, t) = tree.nearest(p, hint).unwrap();
                assert_eq!(d, brute);
                assert_eq!(tree.distance_squared_to(p, t), d);
            }
        }
    }
}
