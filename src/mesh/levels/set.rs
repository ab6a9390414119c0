//! The levels themselves: how they are asked for ([`LevelOptions`]), what
//! each is ([`Level`]) and how a model's are built ([`Levels::new`]).

use super::hausdorff::ErrorMeasure;
use super::poses::Poses;
use super::simplify::{MAX_ATTRIBUTE_FRAMES, Simplifier};
use crate::mesh::{MeshError, RenderMesh, TriangleOrder};
use crate::model::KeyframeModel;
use std::time::Duration;

/// How a model's levels of detail are built.
///
/// Level `i` (full detail is level 0) may stray at most
/// `first_error × error_growth^(i − 1)` of the model's size from full detail
/// (see [`Level::error`]), and aims at `triangle_ratio` of the
/// triangles of the level before it.
///
/// ```
/// use md2_wgpu::mesh::{LevelOptions, Levels, RenderMesh, TriangleOrder};
///
/// let model = md2_wgpu::demo::demo_model();
/// let mesh = RenderMesh::new(&model, TriangleOrder::VertexCache);
/// let lods = Levels::new(&model, &mesh, &LevelOptions::DEFAULT)?;
/// let full = lods.levels()[0];
/// assert_eq!((full.first_index, full.error), (0, 0.0));
/// assert_eq!(full.triangle_count() as usize, mesh.triangle_count());
/// assert!(lods.levels().len() > 1);
/// for pair in lods.levels().windows(2) {
///     assert!(pair[1].triangle_count() < pair[0].triangle_count());
///     assert!(pair[1].error >= pair[0].error);
/// }
/// // Full detail only: no work, nothing extra.
/// let none = Levels::new(&model, &mesh, &LevelOptions::NONE)?;
/// assert_eq!(none.levels().len(), 1);
/// # Ok::<(), md2_wgpu::mesh::MeshError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelOptions {
    /// How many levels coarser than full detail to build, at most; 0 builds
    /// none. Fewer come out where simplifying stops paying: each level must
    /// have at most [`MIN_REDUCTION`](Self::MIN_REDUCTION) of the triangles of the level before
    /// it, within its error limit.
    pub coarser_levels: u8,
    /// The largest [`error`](Level::error) of the first coarser level,
    /// as a fraction of the model's size (the longest side of the box
    /// around any one frame). Where a level strays further, the vertices
    /// there are locked and it is simplified again.
    pub first_error: f32,
    /// How much larger each next level's error limit is than the one
    /// before.
    pub error_growth: f32,
    /// The fraction of the previous level's triangles each level aims at:
    /// the simplifier stops there even if the error limit allows more.
    pub triangle_ratio: f32,
    /// How many frames besides frame 0 the simplifier weighs (the ones that
    /// differ most from each other), at most 10: meshoptimizer takes at most
    /// 32 attribute floats, three per frame. 0 simplifies frame 0's shape
    /// alone, as glTF tools simplify a morphed mesh's base pose; the error
    /// is measured over every frame either way.
    pub weighed_frames: u8,
    /// The most measuring a build may do, in triangle-frames: each time a
    /// candidate level is checked, the triangles of full detail and of the
    /// level, times the frames they are checked in (a first look at a few
    /// frames, then, where that passes, every frame). A build that would go
    /// past it stops with the levels it has finished (fewer, never worse),
    /// so no model can make it take long: see
    /// [`DEFAULT_WORK_BUDGET`](Self::DEFAULT_WORK_BUDGET). It counts work,
    /// not time, so a build gives the same levels on any machine.
    pub work_budget: u64,
}

/// Tries per level: the first, and one after each locking of the vertices
/// where the level strayed too far.
const ATTEMPTS: usize = 10;

/// How many error limits may pass with no level built.
const SKIPPED_LIMITS: usize = 1;

impl LevelOptions {
    /// A level must keep at most this fraction of the previous level's
    /// triangles: a level that saves less is not worth a draw of its own.
    pub const MIN_REDUCTION: f32 = 0.85;

    /// [`work_budget`](Self::work_budget) of [`DEFAULT`](Self::DEFAULT):
    /// 8 million triangle-frames. The demo model's levels take about 1.5
    /// million and a player model's about 3 million (yohko); a model at
    /// Quake II's limits (4,096 triangles, 512 frames: 3 million for each
    /// level it checks) stops there with fewer levels. `cargo bench --bench
    /// levels` measures what that takes.
    pub const DEFAULT_WORK_BUDGET: u64 = 8_000_000;

    /// Four coarser levels within 2%, 4%, 8% and 16% of the model's size, each
    /// aiming at half the triangles of the one before, simplified weighing
    /// ten frames besides frame 0.
    pub const DEFAULT: LevelOptions = LevelOptions {
        coarser_levels: 4,
        first_error: 0.02,
        error_growth: 2.0,
        triangle_ratio: 0.5,
        weighed_frames: MAX_ATTRIBUTE_FRAMES as u8,
        work_budget: LevelOptions::DEFAULT_WORK_BUDGET,
    };

    /// Full detail only.
    pub const NONE: LevelOptions = LevelOptions {
        coarser_levels: 0,
        ..LevelOptions::DEFAULT
    };
}

impl Default for LevelOptions {
    fn default() -> Self {
        LevelOptions::DEFAULT
    }
}

/// One level of detail: a range of the combined index list and what it
/// costs and loses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// The level's first index in the combined list (full detail: 0).
    pub first_index: u32,
    /// How many indices it has: three per triangle.
    pub index_count: u32,
    /// The largest distance, in model units (the frames' scale and
    /// translate applied, before any instance transform), between the
    /// full-detail surface and this level's surface, over every frame of
    /// the model; 0 for full detail.
    ///
    /// Exactly: in each keyframe, both triangle lists are posed with the
    /// frame's decoded positions (as [`reference::decode_frame`](crate::anim::reference::decode_frame)
    /// gives them); the distance is the larger of the farthest any point of
    /// a full-detail triangle lies from the nearest point of the level's
    /// triangles and the farthest any point of a level triangle lies from
    /// the nearest point of the full-detail triangles (the symmetric
    /// Hausdorff distance of the two triangle sets); the error is the
    /// largest over the keyframes. Triangles with a repeated vertex draw
    /// nothing and count on neither side. The value is an upper bound,
    /// at most 5% (plus 1e-4 of the model's size) above the true distance;
    /// poses between keyframes are not measured.
    pub error: f32,
}

impl Level {
    /// Triangles the level draws.
    pub fn triangle_count(&self) -> u32 {
        self.index_count / 3
    }
}

/// A model's levels of detail: one index list over a [`RenderMesh`]'s
/// corners holding every level's triangles, level after level, full detail
/// (the mesh's own list, unchanged) first.
///
/// A pure function of the model, the mesh and the options: building it
/// twice gives identical lists. Each coarser level:
///
/// - draws only the mesh's corners (no new vertex data, and only existing
///   (xyz, st) pairs: no corner gets another texture coordinate), each
///   triangle with the winding the simplifier kept from the full mesh;
/// - keeps texture seams closed: the two sides of a seam are collapsed
///   together, so wherever full detail has no hole the level has none;
/// - is ordered for the vertex cache when the mesh is
///   ([`TriangleOrder::VertexCache`]).
#[derive(Clone, Debug)]
pub struct Levels {
    // The saved-levels file (a sibling room) reads and rebuilds them.
    pub(super) indices: Vec<u32>,
    pub(super) levels: Vec<Level>,
    /// How long `new` took (zero for levels loaded or of full detail alone).
    pub(super) build_time: Duration,
}

/// Levels are equal where they draw the same: how long they took to build
/// is not part of them.
impl PartialEq for Levels {
    fn eq(&self, other: &Levels) -> bool {
        self.indices == other.indices && self.levels == other.levels
    }
}

impl Levels {
    /// Builds up to `options.coarser_levels` levels of `mesh`, which must be
    /// `model`'s ([`MeshError::NotTheModelsMesh`] otherwise).
    pub fn new(
        model: &KeyframeModel,
        mesh: &RenderMesh,
        options: &LevelOptions,
    ) -> Result<Levels, MeshError> {
        let vertex_count = model.vertex_count();
        if let Some(c) = mesh
            .corners()
            .iter()
            .find(|c| c.xyz as usize >= vertex_count)
        {
            return Err(MeshError::NotTheModelsMesh {
                xyz: c.xyz,
                vertex_count,
            });
        }
        let started = web_time::Instant::now();
        let full = mesh.indices();
        let mut lods = Levels::full_detail(mesh);
        if options.coarser_levels == 0 || model.frame_count() == 0 || full.len() < 6 {
            return Ok(lods);
        }
        let poses = Poses::new(model);
        // A frame whose scale overflows has no surface to measure.
        if !poses.all_finite() {
            return Ok(lods);
        }
        let weighed = usize::from(options.weighed_frames).min(MAX_ATTRIBUTE_FRAMES);
        let simplifier = Simplifier::new(
            mesh.corners(),
            full,
            &poses,
            &poses.spread_frames(1 + weighed),
        );
        let xyz = |indices: &[u32]| -> Vec<[u32; 3]> {
            indices
                .chunks_exact(3)
                .map(|t| std::array::from_fn(|k| mesh.corners()[t[k] as usize].xyz))
                .collect()
        };
        let measure = ErrorMeasure::new(&poses, &xyz(full));
        let mut budget = Budget {
            left: options.work_budget,
        };
        let ratio = f64::from(options.triangle_ratio);
        let mut limit = f64::from(options.first_error) * measure.size();
        let mut previous = mesh.triangle_count();
        // A limit no level can keep to while saving enough is passed over
        // for the next: the model then gets its levels at larger errors,
        // never more of them than asked for.
        for _ in 0..usize::from(options.coarser_levels) + SKIPPED_LIMITS {
            let target = (previous as f64 * ratio).floor();
            if lods.levels.len() > usize::from(options.coarser_levels)
                || !(target >= 1.0 && limit.is_finite() && limit > 0.0)
            {
                break;
            }
            let target = (target as usize).min(previous);
            let level = coarser_level(
                &simplifier,
                &measure,
                mesh,
                (target, previous, limit),
                &xyz,
                &mut budget,
            );
            limit *= f64::from(options.error_growth);
            let (mut indices, error) = match level {
                Attempt::Built(indices, error) => (indices, error),
                Attempt::NotAtThisLimit => continue,
                // What is built stays: each level was measured in full.
                Attempt::OutOfBudget => break,
            };
            if mesh.order() == TriangleOrder::VertexCache {
                indices = meshopt::optimize_vertex_cache(&indices, mesh.corners().len());
            }
            previous = indices.len() / 3;
            // A coarser level that happens to stray less still has its
            // finer neighbour's error as a bound: errors only grow, so the
            // coarsest level within a tolerance is the last one within it.
            let error = round_up(error).max(lods.levels.last().map_or(0.0, |l| l.error));
            lods.levels.push(Level {
                first_index: lods.indices.len() as u32,
                index_count: indices.len() as u32,
                error,
            });
            lods.indices.extend(indices);
        }
        lods.build_time = started.elapsed();
        Ok(lods)
    }

    /// Full detail alone.
    pub(crate) fn full_detail(mesh: &RenderMesh) -> Levels {
        Levels {
            indices: mesh.indices().to_vec(),
            levels: vec![Level {
                first_index: 0,
                index_count: mesh.indices().len() as u32,
                error: 0.0,
            }],
            build_time: Duration::ZERO,
        }
    }

    /// Whether these are levels over `mesh`: full detail is its triangle
    /// list, every level a whole number of triangles within the index list,
    /// every index one of its corners.
    pub(crate) fn check_for(&self, mesh: &RenderMesh) -> Result<(), MeshError> {
        let fail = |what| Err(MeshError::NotTheMeshsLevels { what });
        let full = mesh.indices();
        match self.levels.first() {
            Some(l) if l.first_index == 0 && l.index_count as usize == full.len() => {}
            _ => return fail("full detail is not level 0"),
        }
        if self.indices.get(..full.len()) != Some(full) {
            return fail("full detail's triangles differ from the mesh's");
        }
        let corners = mesh.corners().len();
        if self.indices.iter().any(|&i| i as usize >= corners) {
            return fail("an index names a corner the mesh does not have");
        }
        for l in &self.levels {
            let end = u64::from(l.first_index) + u64::from(l.index_count);
            if l.index_count % 3 != 0 || end > self.indices.len() as u64 {
                return fail("a level's range is not whole triangles within the indices");
            }
        }
        Ok(())
    }

    /// The first `count` levels (at least full detail) and their indices.
    pub(crate) fn truncated(mut self, count: usize) -> Levels {
        self.levels.truncate(count.max(1));
        let end = self
            .levels
            .iter()
            .map(|l| (l.first_index + l.index_count) as usize)
            .max()
            .unwrap_or(0);
        self.indices.truncate(end);
        self
    }

    /// Every level, full detail first, each coarser than the one before.
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// How long [`Levels::new`] took to build these levels: zero where
    /// none were asked for, and for levels loaded with
    /// [`Levels::from_bytes`].
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// Every level's indices, level after level (see
    /// [`Level::first_index`]).
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// One level's triangle list; `None` past the coarsest.
    pub fn level_indices(&self, level: usize) -> Option<&[u32]> {
        let l = self.levels.get(level)?;
        let start = l.first_index as usize;
        self.indices.get(start..start + l.index_count as usize)
    }
}

/// What is left of a build's [`LevelOptions::work_budget`].
struct Budget {
    left: u64,
}

impl Budget {
    /// Takes `cost` triangle-frames if they are left.
    fn spend(&mut self, cost: u64) -> bool {
        match self.left.checked_sub(cost) {
            Some(left) => {
                self.left = left;
                true
            }
            None => false,
        }
    }
}

/// What one try at a coarser level came to.
enum Attempt {
    /// A level and its error.
    Built(Vec<u32>, f64),
    /// No level saves enough within this limit.
    NotAtThisLimit,
    /// Measuring the next try would go past the budget.
    OutOfBudget,
}

/// One coarser level: about `target` triangles, at most [`LevelOptions::MIN_REDUCTION`]
/// of `previous`, within `limit` of full detail, with its error. Each try
/// that strays too far locks the vertices where it did and tries again.
fn coarser_level(
    simplifier: &Simplifier,
    measure: &ErrorMeasure<'_>,
    mesh: &RenderMesh,
    (target, previous, limit): (usize, usize, f64),
    xyz: &impl Fn(&[u32]) -> Vec<[u32; 3]>,
    budget: &mut Budget,
) -> Attempt {
    let corners = mesh.corners();
    let full_triangles = xyz(mesh.indices());
    let mut locked = vec![false; corners.len()];
    let mut locked_xyz = vec![false; measure.vertex_count()];
    // meshoptimizer's own error (a quadric's, frame 0 and the weighed
    // frames) is a cheap guess at the measured one: start at the limit and
    // lower it where locking finds nothing new to keep.
    let mut guess = limit as f32;
    let mut target = target;
    for _ in 0..ATTEMPTS {
        let indices = simplifier.simplify(target, guess, &locked);
        let count = indices.len() / 3;
        // Next time, aim no lower than this: with more vertices locked the
        // simplifier would otherwise make up the count elsewhere, and stray
        // there instead.
        target = target.max(count);
        if count == 0 || count as f64 > previous as f64 * f64::from(LevelOptions::MIN_REDUCTION) {
            return Attempt::NotAtThisLimit;
        }
        let triangles = xyz(&indices);
        // Both surfaces' triangles, in each frame measured.
        let per_frame = (full_triangles.len() + triangles.len()) as u64;
        if !budget.spend(per_frame * measure.look_frames() as u64) {
            return Attempt::OutOfBudget;
        }
        let over = match measure.samples_over_limit(&triangles, limit) {
            Some(over) => over,
            None => {
                if !budget.spend(per_frame * measure.frame_count() as u64) {
                    return Attempt::OutOfBudget;
                }
                let measured = measure.measure(&triangles, limit);
                if let Some(error) = measured.error {
                    return Attempt::Built(indices, error);
                }
                measured.over_limit
            }
        };
        // Lock the vertices near where the level strayed; where they are
        // locked already, the level's own triangles there cut across, and
        // locking their neighbours too keeps those triangles as they were.
        let mut grow = over.clone();
        if !corners
            .iter()
            .any(|c| over[c.xyz as usize] && !locked_xyz[c.xyz as usize])
        {
            for t in &full_triangles {
                if t.iter().any(|&v| over[v as usize]) {
                    for &v in t {
                        grow[v as usize] = true;
                    }
                }
            }
        }
        let mut more = false;
        for (v, &g) in grow.iter().enumerate() {
            if g && !locked_xyz[v] {
                locked_xyz[v] = true;
                more = true;
            }
        }
        for (lock, c) in locked.iter_mut().zip(corners) {
            *lock = locked_xyz[c.xyz as usize];
        }
        if !more {
            guess *= 0.7;
        }
    }
    Attempt::NotAtThisLimit
}

/// The nearest `f32` at or above `x`, so a bound stays a bound.
fn round_up(x: f64) -> f32 {
    let y = x as f32;
    if f64::from(y) < x { y.next_up() } else { y }
}
