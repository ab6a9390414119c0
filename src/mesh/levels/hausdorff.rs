//! The error of a level of detail: an upper bound on the Hausdorff distance
//! between the full-detail surface and the level's, in every frame.
//!
//! For one frame, with both triangle lists posed in it, the distance is the
//! larger of two one-sided ones: how far a point of the full surface can be
//! from the level's surface, and how far a point of the level's can be from
//! the full one. Both are maxima over infinitely many points, so sampling
//! alone only ever finds a lower bound. Three facts turn finitely many
//! distances into an upper bound over a whole (part of a) triangle `S`:
//!
//! - convexity: the distance to one triangle `t` is a convex function of
//!   the point, so over `S` it is largest at one of `S`'s corners; and the
//!   distance to a surface is at most the distance to any one of its
//!   triangles: `max over S ≤ max over S's corners of d(corner, t)`, for
//!   any `t` of the other surface;
//! - two triangles: a plane cuts `S` in two convex pieces; bounding one
//!   piece by one triangle and the other by another, each by convexity at
//!   the piece's corners, bounds `S` across the edge between two triangles
//!   (where no one triangle is near all of `S`);
//! - Lipschitz: the distance to a surface changes no faster than the point
//!   moves, and every point of `S` lies within `longest edge / √3` of a
//!   corner: `max over S ≤ max over corners of d(corner) + longest / √3`.
//!
//! Where no bound is within a tolerance of the largest distance found
//! at an actual point so far, `S` is split in four and each part bounded on
//! its own (branch and bound), for good: later frames start from the
//! parts. The result lies between the true distance and that plus the
//! tolerance (5%), rounded up for floating point.
//!
//! Frames are many (198 for a player) and mostly alike, so each part keeps
//! the few triangles of the other surface that bounded it before, which in
//! most frames bound it again with no search; and a part whose bound
//! leaves room is not measured again until its vertices and its bounding
//! triangle's have moved, relative to each other, by more than that room
//! (moving the points of both by at most `m` changes their distance by at
//! most `m`).

use std::collections::HashSet;

use super::nearest::{P3, TriangleTree, cross, distance_squared, dot, mid, sub};
use super::poses::Poses;

/// Refinement stops once a part's bound is within this fraction of the
/// largest distance found (plus [`ABSOLUTE_TOLERANCE`] of the model's size).
const RELATIVE_TOLERANCE: f64 = 0.05;

/// The tolerance's floor, as a fraction of the model's size: what a level
/// that is exact nearly everywhere is refined to.
const ABSOLUTE_TOLERANCE: f64 = 1e-4;

/// Added to the bound, as a fraction of the model's size, to cover the
/// rounding of the distances (computed in `f64` from `f32` positions).
const ROUNDING: f64 = 1e-6;

/// Parts of a triangle are split at most this often (4^6 parts): past it a
/// part's bound is taken as it is, still an upper bound.
const MAX_DEPTH: u32 = 6;

/// Triangles of the other surface each part remembers.
const CANDIDATES: usize = 6;

/// Frames measured first, the most different poses: they find large
/// distances early, which lets the rest settle sooner.
const SEED_FRAMES: usize = 6;

/// Frames a first look samples, the most different poses.
const LOOK_FRAMES: usize = 16;

/// A triangle's corners as ids, rotated to start at the smallest: equal for
/// two triangles with the same corners and winding.
fn key(t: [u32; 3]) -> [u32; 3] {
    let k = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
    [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
}

/// A triangle with a repeated corner has no area in any frame: the GPU
/// draws nothing for it, so it is no part of either surface.
fn has_area(t: &[u32; 3]) -> bool {
    t[0] != t[1] && t[1] != t[2] && t[2] != t[0]
}

/// One surface (full detail or a level) ready to be posed and searched.
#[derive(Clone)]
struct Surface {
    triangles: Vec<[u32; 3]>,
    tree: TriangleTree,
    /// Per vertex, one triangle that uses it (`u32::MAX`: none).
    incident: Vec<u32>,
    /// Whether this is the full-detail surface (else a level).
    is_full: bool,
}

impl Surface {
    fn new(triangles: Vec<[u32; 3]>, poses: &Poses, is_full: bool) -> Surface {
        let rest = poses.frame(0);
        let mut incident = vec![u32::MAX; rest.len()];
        for (i, t) in triangles.iter().enumerate() {
            for &v in t {
                if incident[v as usize] == u32::MAX {
                    incident[v as usize] = i as u32;
                }
            }
        }
        Surface {
            tree: TriangleTree::new(&triangles, rest),
            triangles,
            incident,
            is_full,
        }
    }

    fn pose(&mut self, positions: &[P3]) {
        self.tree.pose(&self.triangles, positions);
    }

    /// A triangle to start a search for `parent`'s points from.
    fn hint(&self, parent: [u32; 3]) -> Option<u32> {
        parent
            .iter()
            .map(|&v| self.incident[v as usize])
            .find(|&t| t != u32::MAX)
    }

    /// The distance from `p` to the nearest triangle and that triangle,
    /// searched from `hint`; infinitely far from an empty surface.
    fn nearest(&self, p: P3, hint: Option<u32>) -> (f64, u32) {
        self.tree
            .nearest(p, hint)
            .map_or((f64::INFINITY, 0), |(d2, t)| (d2.sqrt(), t))
    }
}

/// A part of a triangle being measured: its parent's vertex ids and its
/// corners in the parent's barycentric coordinates, so it can be posed in
/// any frame; the triangles of the other surface that bounded it; and how
/// much room its last bound leaves.
#[derive(Clone)]
struct Part {
    parent: [u32; 3],
    corners: [[f64; 3]; 3],
    /// Most useful first; the first bounded it last.
    candidates: Candidates,
    /// How often the parent was split to make this part.
    depth: u32,
    /// The bound by the triangles `by` when last measured, plus how far
    /// its points and theirs may have moved apart since; infinite where it
    /// must be measured.
    bound: f64,
    by: [u32; 2],
    /// The frame `bound` was measured in.
    at: usize,
}

impl Part {
    fn whole(parent: [u32; 3]) -> Part {
        Part {
            parent,
            corners: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            candidates: Candidates::default(),
            depth: 0,
            bound: f64::INFINITY,
            by: [0; 2],
            at: 0,
        }
    }

    /// The four parts between the corners and the edges' middles, each
    /// starting from this part's candidates.
    fn split(&self) -> [Part; 4] {
        let [a, b, c] = self.corners;
        let (ab, bc, ca) = (mid(a, b), mid(b, c), mid(c, a));
        [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]].map(|corners| Part {
            parent: self.parent,
            corners,
            candidates: self.candidates,
            depth: self.depth + 1,
            bound: f64::INFINITY,
            by: [0; 2],
            at: 0,
        })
    }

    fn posed(&self, positions: &[P3]) -> [P3; 3] {
        let p = self.parent.map(|v| positions[v as usize]);
        self.corners
            .map(|b| std::array::from_fn(|k| b[0] * p[0][k] + b[1] * p[1][k] + b[2] * p[2][k]))
    }

    /// Adds `t` as the first candidate to try, forgetting the one tried
    /// last when there are too many.
    fn remember(&mut self, t: u32) {
        self.candidates.remember(t);
    }
}

/// A few triangles of the other surface, most useful first: held inline,
/// since every part has them and they are copied with it.
#[derive(Clone, Copy, Default)]
struct Candidates {
    ids: [u32; CANDIDATES],
    len: u8,
}

impl Candidates {
    fn as_slice(&self) -> &[u32] {
        &self.ids[..usize::from(self.len)]
    }

    fn first(&self) -> Option<u32> {
        self.as_slice().first().copied()
    }

    /// Puts `t` first, forgetting the last when full.
    fn remember(&mut self, t: u32) {
        let len = usize::from(self.len);
        let end = match self.ids[..len].iter().position(|&c| c == t) {
            Some(i) => i,
            None => {
                self.len = (len + 1).min(CANDIDATES) as u8;
                usize::from(self.len) - 1
            }
        };
        self.ids[..=end].rotate_right(1);
        self.ids[0] = t;
    }
}

/// The full-detail surface of a model, posed in every frame, that levels
/// are measured against.
pub(super) struct ErrorMeasure<'a> {
    poses: &'a Poses,
    full: Surface,
    full_keys: HashSet<[u32; 3]>,
    size: f64,
    /// The most different frames, measured first.
    seeds: Vec<usize>,
    /// The frames a first look samples.
    looks: Vec<usize>,
}

/// What a measurement found.
pub(super) struct Measured {
    /// The upper bound (the level's error), in model units; `None` where
    /// it is past the limit.
    pub error: Option<f64>,
    /// Per full-detail vertex: whether it is near a point found farther
    /// than the limit from the other surface in some frame (where to lock
    /// before trying again).
    pub over_limit: Vec<bool>,
}

impl<'a> ErrorMeasure<'a> {
    /// The full surface: `triangles` as vertex ids of `poses`.
    pub(super) fn new(poses: &'a Poses, triangles: &[[u32; 3]]) -> ErrorMeasure<'a> {
        let full: Vec<[u32; 3]> = triangles.iter().copied().filter(has_area).collect();
        let full_keys = full.iter().map(|&t| key(t)).collect();
        ErrorMeasure {
            size: poses.size(),
            full: Surface::new(full, poses, true),
            full_keys,
            poses,
            seeds: poses.spread_frames(SEED_FRAMES),
            looks: poses.spread_frames(LOOK_FRAMES),
        }
    }

    /// How many vertices each frame has.
    pub(super) fn vertex_count(&self) -> usize {
        self.full.incident.len()
    }

    /// Frames a first look ([`ErrorMeasure::samples_over_limit`]) checks.
    pub(super) fn look_frames(&self) -> usize {
        self.looks.len()
    }

    /// Frames a measurement checks: every one.
    pub(super) fn frame_count(&self) -> usize {
        self.poses.frame_count()
    }

    /// The model's size (see [`Poses::size`]).
    pub(super) fn size(&self) -> f64 {
        self.size
    }

    /// Where the level drawn by `level` (vertex ids) strays further than
    /// `limit` at a few points of each surface, in some frame, if anywhere:
    /// a cheap first look before [`ErrorMeasure::measure`]. The points are
    /// the vertices the level drops, and the middles and edge middles of
    /// the triangles one surface has and the other does not; the result
    /// marks the full-detail vertices that would keep them closer.
    pub(super) fn samples_over_limit(&self, level: &[[u32; 3]], limit: f64) -> Option<Vec<bool>> {
        let level: Vec<[u32; 3]> = level.iter().copied().filter(has_area).collect();
        let level_keys: HashSet<[u32; 3]> = level.iter().map(|&t| key(t)).collect();
        let mut level = Surface::new(level, self.poses, false);
        let mut full = self.full.clone();
        const MIDDLES: [[f64; 3]; 4] = [
            [1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0],
            [0.5, 0.5, 0.0],
            [0.0, 0.5, 0.5],
            [0.5, 0.0, 0.5],
        ];
        // (triangle's vertices, barycentric point, on the full surface?).
        let mut samples: Vec<([u32; 3], [f64; 3], bool)> = self
            .dropped(&level)
            .into_iter()
            .map(|v| ([v; 3], [1.0, 0.0, 0.0], true))
            .collect();
        for t in self
            .full
            .triangles
            .iter()
            .filter(|t| !level_keys.contains(&key(**t)))
        {
            samples.extend(MIDDLES.map(|b| (*t, b, true)));
        }
        for t in level
            .triangles
            .iter()
            .filter(|t| !self.full_keys.contains(&key(**t)))
        {
            samples.extend(MIDDLES.map(|b| (*t, b, false)));
        }
        let mut nearest: Vec<Option<u32>> = vec![None; samples.len()];
        let mut over = vec![false; self.full.incident.len()];
        for &f in &self.looks {
            let positions = self.poses.frame(f);
            level.pose(positions);
            full.pose(positions);
            for ((vs, b, on_full), t) in samples.iter().zip(&mut nearest) {
                let other = if *on_full { &level } else { &full };
                let c = vs.map(|v| positions[v as usize]);
                let p = std::array::from_fn(|k| b[0] * c[0][k] + b[1] * c[1][k] + b[2] * c[2][k]);
                // The last nearest triangle usually still is near enough.
                if t.is_some_and(|t| other.tree.distance_squared_to(p, t) <= limit * limit) {
                    continue;
                }
                let (d, near) = other.nearest(p, t.or(other.hint(*vs)));
                *t = Some(near);
                if d > limit {
                    let keep = if *on_full {
                        *vs
                    } else {
                        full.triangles[near as usize]
                    };
                    for v in keep {
                        over[v as usize] = true;
                    }
                }
            }
        }
        over.contains(&true).then_some(over)
    }

    /// The vertices the full surface uses and `level` does not.
    fn dropped(&self, level: &Surface) -> Vec<u32> {
        let mut kept = vec![false; self.full.incident.len()];
        for &v in level.triangles.iter().flatten() {
            kept[v as usize] = true;
        }
        (0..kept.len() as u32)
            .filter(|&v| !kept[v as usize] && self.full.incident[v as usize] != u32::MAX)
            .collect()
    }

    /// The error of the level drawn by `level` (vertex ids): the largest
    /// distance, over every frame, between a point of either surface and
    /// the other surface, bounded from above within the tolerance.
    ///
    /// Gives up (the error is `None`) where a point farther than `limit`
    /// from the other surface turns up, or the bound is past it;
    /// `over_limit` then says where points were found too far.
    ///
    /// The frames are measured in [`CHUNKS`] runs of consecutive frames, on
    /// as many threads as the machine offers: each run starts from what
    /// the seed frames found, so the result is the same on any machine.
    pub(super) fn measure(&self, level: &[[u32; 3]], limit: f64) -> Measured {
        let level: Vec<[u32; 3]> = level.iter().copied().filter(has_area).collect();
        let level_keys: HashSet<[u32; 3]> = level.iter().map(|&t| key(t)).collect();
        // A triangle both surfaces have is on both: its points are at
        // distance 0 from the other surface.
        let full_parts: Vec<Part> = self
            .full
            .triangles
            .iter()
            .filter(|t| !level_keys.contains(&key(**t)))
            .map(|&t| Part::whole(t))
            .collect();
        let mut level_parts: Vec<Part> = level
            .iter()
            .filter(|t| !self.full_keys.contains(&key(**t)))
            .map(|&t| Part::whole(t))
            .collect();
        let mut level = Surface::new(level, self.poses, false);
        let mut full = self.full.clone();
        let dropped = self.dropped(&level);
        let mut seed = Bound {
            lo: 0.0,
            hi: 0.0,
            size: self.size,
            limit,
            over_limit: vec![false; self.full.incident.len()],
        };
        // First the points most likely to be far, in the most different
        // frames: the dropped vertices and the middles of the level's
        // triangles. They give the refinement a distance to aim at.
        let mut hints = vec![None; dropped.len()];
        for &f in &self.seeds {
            let positions = self.poses.frame(f);
            level.pose(positions);
            full.pose(positions);
            for (&v, hint) in dropped.iter().zip(&mut hints) {
                let (d, t) = level.nearest(positions[v as usize], *hint);
                *hint = Some(t);
                seed.found(d, [v; 3]);
            }
            for part in &mut level_parts {
                let c = part.posed(positions);
                let centre = std::array::from_fn(|k| (c[0][k] + c[1][k] + c[2][k]) / 3.0);
                let hint = part.candidates.first().or(full.hint(part.parent));
                let (d, t) = full.nearest(centre, hint);
                part.remember(t);
                seed.found(d, full.triangles[t as usize]);
            }
        }
        if seed.lo > limit {
            return Measured {
                error: None,
                over_limit: seed.over_limit,
            };
        }
        let frames = self.poses.frame_count();
        let chunk = frames.div_ceil(CHUNKS).max(1);
        let run = |c: usize| {
            let mut state = seed.clone();
            let (mut full, mut level) = (full.clone(), level.clone());
            let (mut full_parts, mut level_parts) = (full_parts.clone(), level_parts.clone());
            for f in (c * chunk..(c + 1) * chunk).take_while(|&f| f < frames) {
                full.pose(self.poses.frame(f));
                level.pose(self.poses.frame(f));
                state.bound_parts(&mut full_parts, (self.poses, f), &level);
                state.bound_parts(&mut level_parts, (self.poses, f), &full);
            }
            state
        };
        let runs = in_parallel(CHUNKS, run);
        let mut over_limit = seed.over_limit;
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for state in runs {
            lo = lo.max(state.lo);
            hi = hi.max(state.hi);
            for (o, s) in over_limit.iter_mut().zip(state.over_limit) {
                *o |= s;
            }
        }
        let error = hi + ROUNDING * self.size;
        Measured {
            error: (error <= limit).then_some(error),
            over_limit,
        }
    }
}

/// The runs of consecutive frames a measurement is split into, whatever
/// the machine: the result depends on the runs, never on the threads.
const CHUNKS: usize = 2;

/// `work(0..count)`, in order, spread over the threads the machine offers
/// (on this thread where it offers none, as on the web).
fn in_parallel<T: Send>(count: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(count));
    if threads <= 1 {
        return (0..count).map(work).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let drain = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= count {
                return done;
            }
            done.push((i, work(i)));
        }
    };
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, drain).ok())
            .collect();
        let mut done = drain();
        for helper in helpers {
            // A helper that panicked leaves its runs undone: they are done
            // again below.
            done.extend(helper.join().unwrap_or_default());
        }
        done
    });
    done.sort_by_key(|&(i, _)| i);
    let mut done = done.into_iter().peekable();
    (0..count)
        .map(|i| match done.next_if(|&(j, _)| j == i) {
            Some((_, t)) => t,
            None => work(i),
        })
        .collect()
}

/// The running bounds of one measurement.
#[derive(Clone)]
struct Bound {
    /// The largest distance found at an actual point: a lower bound on the
    /// error.
    lo: f64,
    /// The largest upper bound of any settled part: the error.
    hi: f64,
    size: f64,
    limit: f64,
    over_limit: Vec<bool>,
}

impl Bound {
    fn tolerance(&self) -> f64 {
        RELATIVE_TOLERANCE * self.lo + ABSOLUTE_TOLERANCE * self.size
    }

    /// How close a part's bound must be to settle it: within the tolerance
    /// of the largest distance found; once that is past the limit, within
    /// the limit, so every part that may stray further is searched for
    /// points that do (the error no longer matters, where it strays does).
    fn enough(&self) -> f64 {
        if self.lo > self.limit {
            self.limit
        } else {
            self.lo + self.tolerance()
        }
    }

    /// Notes the distance `d` of an actual point, and where it is farther
    /// than the limit, the full-detail vertices that would keep it closer
    /// (`near`).
    fn found(&mut self, d: f64, near: [u32; 3]) {
        self.lo = self.lo.max(d);
        if d > self.limit {
            for v in near {
                self.over_limit[v as usize] = true;
            }
        }
    }

    /// Records a settled part's upper bound.
    fn settle(&mut self, ub: f64) {
        self.hi = self.hi.max(ub);
    }

    /// Settles every part in the current pose, splitting those that
    /// need it (for good: the parts are what later frames start from).
    /// `other` is posed in `frame`.
    fn bound_parts(
        &mut self,
        parts: &mut Vec<Part>,
        (poses, frame): (&Poses, usize),
        other: &Surface,
    ) {
        let positions = poses.frame(frame);
        // Parts split in this pose, past the first piece of each (which
        // takes its whole's place): in place, the parts are not moved.
        let mut born = Vec::new();
        let mut stack = Vec::new();
        for part in parts.iter_mut() {
            if part.bound.is_finite() {
                // Where the room the last bound left is wider than the
                // part and its triangles have moved apart since, it still
                // holds.
                let [t1, t2] = part.by.map(|t| other.triangles[t as usize]);
                let moved = drift(part.parent, t1, t2, (positions, poses.frame(part.at)));
                if part.bound + moved <= self.enough() {
                    self.settle(part.bound + moved);
                    continue;
                }
            }
            part.at = frame;
            if self.bound_part(part, positions, other) {
                continue;
            }
            let first = born.len();
            stack.extend(part.split());
            while let Some(mut piece) = stack.pop() {
                piece.at = frame;
                if self.bound_part(&mut piece, positions, other) {
                    born.push(piece);
                } else {
                    stack.extend(piece.split());
                }
            }
            *part = born.swap_remove(first);
        }
        parts.append(&mut born);
    }

    /// Settles `part` in the current pose: by remembered candidates if
    /// they bound it closely enough, else by searching `other` from its
    /// corners. False where no bound is close enough: the part is to be
    /// split.
    fn bound_part(&mut self, part: &mut Part, positions: &[P3], other: &Surface) -> bool {
        let corners = part.posed(positions);
        let enough = self.enough();
        // The triangles that bounded it last usually still do.
        let last = part.bound.is_finite().then(|| {
            let [t1, t2] = part.by;
            let ub = if t1 == t2 {
                single_bound(&corners, t1, &other.tree, f64::INFINITY)
            } else {
                pair_bound(&corners, part.by, other, f64::INFINITY)
            };
            (part.by, ub)
        });
        let quick = last
            .filter(|&(_, ub)| ub <= enough)
            .or_else(|| bound_by_candidates(&corners, part.candidates.as_slice(), other, enough));
        if let Some((by, ub)) = quick.filter(|&(_, ub)| ub <= enough) {
            self.settle_by(part, by, ub);
            return true;
        }
        let hint = part.candidates.first().or(other.hint(part.parent));
        let mut worst = 0.0f64;
        for &p in &corners {
            let (d, t) = other.nearest(p, hint);
            part.remember(t);
            worst = worst.max(d);
            // A point of the full surface far from the level is kept close
            // by keeping its triangle's vertices; a point of the level far
            // from the full surface, by keeping the nearest full vertices.
            let near = if other.is_full {
                other.triangles[t as usize]
            } else {
                part.parent
            };
            self.found(d, near);
        }
        let longest = (0..3)
            .map(|k| distance_squared(corners[k], corners[(k + 1) % 3]))
            .fold(0.0, f64::max)
            .sqrt();
        let lipschitz = worst + longest / 3f64.sqrt();
        let by_candidates =
            bound_by_candidates(&corners, part.candidates.as_slice(), other, enough)
                .filter(|&(_, ub)| ub < lipschitz);
        let ub = by_candidates.map_or(lipschitz, |(_, ub)| ub);
        // A part with a point past the limit has shown where to lock.
        let strays = worst > self.limit;
        if ub <= self.enough() || strays || part.depth >= MAX_DEPTH {
            match by_candidates {
                Some((by, ub)) => self.settle_by(part, by, ub),
                None => {
                    part.bound = f64::INFINITY;
                    self.settle(ub);
                }
            }
            return true;
        }
        false
    }

    /// Settles `part` with the bound `ub` by the triangles `by`.
    fn settle_by(&mut self, part: &mut Part, by: [u32; 2], ub: f64) {
        part.remember(by[1]);
        part.remember(by[0]);
        part.by = by;
        part.bound = ub;
        self.settle(ub);
    }
}

/// Candidates after the first few are tried alone, not in pairs.
const PAIRED: usize = 3;

/// The best bound of the triangle `points` by one candidate, or else by a
/// pair of the first few (see [`pair_bound`]), with the triangles that
/// gave it; the first one within `enough` is taken as it is.
fn bound_by_candidates(
    points: &[P3; 3],
    candidates: &[u32],
    other: &Surface,
    enough: f64,
) -> Option<([u32; 2], f64)> {
    let mut best: Option<([u32; 2], f64)> = None;
    let paired = &candidates[..candidates.len().min(PAIRED)];
    let pairs = paired
        .iter()
        .enumerate()
        .flat_map(|(i, &t1)| paired[i + 1..].iter().map(move |&t2| [t1, t2]));
    for by in candidates.iter().map(|&t| [t, t]).chain(pairs) {
        let stop = best.map_or(f64::INFINITY, |b| b.1);
        let ub = if by[0] == by[1] {
            single_bound(points, by[0], &other.tree, stop)
        } else {
            pair_bound(points, by, other, stop)
        };
        if ub < stop {
            best = Some((by, ub));
        }
        if ub <= enough {
            break;
        }
    }
    best
}

/// The convexity bound of the triangle `points` by triangle `t`: the
/// farthest of them from it; anything at or past `stop` once it is clear
/// the bound is no better.
fn single_bound(points: &[P3; 3], t: u32, tree: &TriangleTree, stop: f64) -> f64 {
    let stop2 = stop * stop;
    let mut worst = 0.0f64;
    for &p in points {
        worst = worst.max(tree.distance_squared_to(p, t));
        if worst >= stop2 {
            return stop;
        }
    }
    worst.sqrt()
}

/// The bound of the triangle `points` by two triangles: a plane cuts it in
/// two convex pieces, the one on `t1`'s side bounded by `t1` at its
/// corners and the other by `t2` (the corners on the plane by both). Any
/// plane gives a bound; a good one is the plane through an edge the two
/// triangles share, upright on the surface there, so each piece lies over
/// its own triangle. Anything at or past `stop` once it is clear the bound
/// is no better.
fn pair_bound(points: &[P3; 3], [t1, t2]: [u32; 2], other: &Surface, stop: f64) -> f64 {
    let Some((normal, offset)) = separating_plane(other, t1, t2) else {
        return f64::INFINITY;
    };
    let stop2 = stop * stop;
    let side = points.map(|p| dot(normal, p) - offset);
    let tree = &other.tree;
    let mut worst = 0.0f64;
    for k in 0..3 {
        if side[k] >= 0.0 {
            worst = worst.max(tree.distance_squared_to(points[k], t1));
        }
        if side[k] <= 0.0 {
            worst = worst.max(tree.distance_squared_to(points[k], t2));
        }
        let j = (k + 1) % 3;
        if (side[k] < 0.0) != (side[j] < 0.0) && side[k] != side[j] {
            let s = side[k] / (side[k] - side[j]);
            let e = sub(points[j], points[k]);
            let x = std::array::from_fn(|c| points[k][c] + e[c] * s);
            worst = worst
                .max(tree.distance_squared_to(x, t1))
                .max(tree.distance_squared_to(x, t2));
        }
        if worst >= stop2 {
            return stop;
        }
    }
    worst.sqrt()
}

/// A plane (normal, offset) with `t1` on its positive side and `t2` on its
/// negative: upright on their shared edge where they have one, else half
/// way between their centres; `None` where neither is defined.
fn separating_plane(other: &Surface, t1: u32, t2: u32) -> Option<(P3, f64)> {
    let (ids1, ids2) = (other.triangles[t1 as usize], other.triangles[t2 as usize]);
    let (p1, p2) = (other.tree.posed(t1), other.tree.posed(t2));
    let corners1 = p1.corners();
    let shared: Vec<usize> = (0..3).filter(|&k| ids2.contains(&ids1[k])).collect();
    if let (&[a, b], Some(n1), Some(n2)) = (&shared[..], p1.unit_normal(), p2.unit_normal()) {
        let apex = corners1[3 - a - b];
        let (a, b) = (corners1[a], corners1[b]);
        // n1 and n2 as MD2 or level winding gives them may point to either
        // side; the upright plane is the same for n1 + n2 and n1 − n2
        // swapped, so take the sum of the pair that agrees.
        let up = if dot(n1, n2) >= 0.0 {
            std::array::from_fn(|k| n1[k] + n2[k])
        } else {
            std::array::from_fn(|k| n1[k] - n2[k])
        };
        let normal = cross(sub(b, a), up);
        if dot(normal, normal) > 0.0 {
            let sign = if dot(normal, sub(apex, a)) >= 0.0 {
                1.0
            } else {
                -1.0
            };
            let normal = normal.map(|x| x * sign);
            return Some((normal, dot(normal, a)));
        }
    }
    let centre =
        |c: [P3; 3]| -> P3 { std::array::from_fn(|k| (c[0][k] + c[1][k] + c[2][k]) / 3.0) };
    let (c1, c2) = (centre(corners1), centre(p2.corners()));
    let normal = sub(c1, c2);
    if dot(normal, normal) > 0.0 {
        Some((normal, dot(normal, mid(c1, c2))))
    } else {
        None
    }
}

/// How far any point of a triangle over `part`'s vertices and any point of
/// triangle `t1` or `t2` can have moved apart between two frames (the
/// positions now and before): each point moves by a weighted average of its
/// triangle's vertices' moves, so two points' moves differ by at most the
/// largest difference between the move of a vertex of `part` and of one of
/// `t1` or `t2`.
fn drift(part: [u32; 3], t1: [u32; 3], t2: [u32; 3], (now, before): (&[P3], &[P3])) -> f64 {
    let step = |v: u32| sub(now[v as usize], before[v as usize]);
    let ours = part.map(step);
    let mut farthest = 0.0f64;
    for v in t1.iter().chain(if t1 == t2 { &[][..] } else { &t2[..] }) {
        let theirs = step(*v);
        for &s in &ours {
            farthest = farthest.max(distance_squared(s, theirs));
        }
    }
    farthest.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_the_winding() {
        assert_eq!(key([5, 2, 9]), [2, 9, 5]);
        assert_eq!(key([9, 5, 2]), [2, 9, 5]);
        assert_ne!(key([5, 9, 2]), key([5, 2, 9]));
    }

    #[test]
    fn drift_is_relative_motion() {
        let before: Vec<P3> = (0..6).map(|i| [i as f64, 0.0, 1.0]).collect();
        // Everything moved the same way: nothing moved apart.
        let now: Vec<P3> = before
            .iter()
            .map(|p| [p[0] + 1.0, p[1] + 2.0, p[2] + 3.0])
            .collect();
        assert_eq!(drift([0, 1, 2], [3, 4, 5], [3, 4, 5], (&now, &before)), 0.0);
        // One vertex of t moved 2 units against the rest.
        let mut now = before.clone();
        now[4][1] += 2.0;
        assert_eq!(drift([0, 1, 2], [3, 4, 5], [3, 4, 5], (&now, &before)), 2.0);
        assert_eq!(drift([0, 1, 2], [0, 1, 2], [3, 4, 5], (&now, &before)), 2.0);
    }
}
