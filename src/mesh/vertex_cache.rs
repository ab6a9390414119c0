//! The post-transform vertex cache: reordering triangles for it, and
//! measuring what an order costs.
//!
//! Both halves are meshoptimizer's (through the `meshopt` crate): its
//! `optimizeVertexCache` is what engines use, and its `analyzeVertexCache`
//! simulates the cache the orders are judged by.

use std::fmt;

use super::error::MeshError;
use crate::model::Corner;

/// What a first-in-first-out post-transform cache of `cache_size` entries
/// makes of a triangle list: how often the vertex shader runs.
///
/// The simulation, meshoptimizer's `meshopt_analyzeVertexCache` with no warp
/// and no primitive-group limit (both parameters 0), is exactly this: the
/// indices are read in order, three per triangle; an index already among
/// the last `cache_size` corners that ran is a hit and changes nothing (a
/// hit does not move it, as it would in an LRU cache); any other index is a
/// miss: the vertex shader runs for it and it enters the cache, pushing out
/// the corner that entered first once the cache is full. The cache starts
/// empty and is never flushed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexCacheStats {
    /// The FIFO size simulated, in corners.
    pub cache_size: u32,
    /// Triangles in the list.
    pub triangles: usize,
    /// Distinct corners the list uses: the fewest vertex-shader runs any
    /// order of these triangles can have.
    pub corners: usize,
    /// Cache misses: how many times the vertex shader runs to draw the list
    /// once.
    pub vertex_shader_runs: usize,
}

impl VertexCacheStats {
    /// Average cache miss ratio (ACMR): vertex-shader runs per triangle;
    /// 0 for an empty list. 3 means no corner is ever reused; a large
    /// regular mesh can approach 0.5.
    pub fn acmr(&self) -> f64 {
        ratio(self.vertex_shader_runs, self.triangles)
    }

    /// Average transformed vertex ratio (ATVR): vertex-shader runs per
    /// distinct corner; 0 for an empty list. 1 is the floor: every corner
    /// runs exactly once.
    pub fn atvr(&self) -> f64 {
        ratio(self.vertex_shader_runs, self.corners)
    }
}

impl fmt::Display for VertexCacheStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} runs for {} triangles over {} corners (FIFO of {}): ACMR {:.3}, ATVR {:.3}",
            self.vertex_shader_runs,
            self.triangles,
            self.corners,
            self.cache_size,
            self.acmr(),
            self.atvr()
        )
    }
}

fn ratio(runs: usize, per: usize) -> f64 {
    if per == 0 {
        0.0
    } else {
        runs as f64 / per as f64
    }
}

/// The smallest cache meshoptimizer's simulation accepts: it asserts at
/// least one triangle's worth of corners.
pub(crate) const MIN_CACHE_SIZE: u32 = 3;

/// [`VertexCacheStats`] of a triangle list over `corner_count` corners
/// (every index must be below it).
pub(crate) fn fifo_stats(
    indices: &[u32],
    corner_count: usize,
    cache_size: u32,
) -> Result<VertexCacheStats, MeshError> {
    if cache_size < MIN_CACHE_SIZE {
        return Err(MeshError::CacheTooSmall {
            cache_size,
            min: MIN_CACHE_SIZE,
        });
    }
    debug_assert!(indices.len().is_multiple_of(3));
    debug_assert!(indices.iter().all(|&i| (i as usize) < corner_count));
    // A FIFO at least as large as the corner count never evicts, so larger
    // sizes give the same runs; simulating at most that size keeps
    // meshoptimizer's timestamps (which start at cache_size + 1 and count
    // up in u32) from wrapping for sizes near u32::MAX.
    let simulated = cache_size.min(
        u32::try_from(corner_count)
            .unwrap_or(u32::MAX)
            .max(MIN_CACHE_SIZE),
    );
    let analysis = meshopt::analyze_vertex_cache(indices, corner_count, simulated, 0, 0);
    let mut used = vec![false; corner_count];
    for &i in indices {
        used[i as usize] = true;
    }
    Ok(VertexCacheStats {
        cache_size,
        triangles: indices.len() / 3,
        corners: used.iter().filter(|&&u| u).count(),
        vertex_shader_runs: analysis.vertices_transformed as usize,
    })
}

/// The same triangles, each with its corners in the same order, reordered
/// for the post-transform cache by meshoptimizer's `optimizeVertexCache`
/// (Forsyth's scoring, tuned by meshoptimizer for the caches of current
/// GPUs); then the corners renumbered in order of first use, so the vertex
/// fetches walk the corner buffer forward (`optimizeVertexFetch`).
/// Deterministic: a pure function of its input.
pub(crate) fn optimize(corners: &[Corner], indices: &[u32]) -> (Vec<Corner>, Vec<u32>) {
    let mut indices = meshopt::optimize_vertex_cache(indices, corners.len());
    let corners = meshopt::optimize_vertex_fetch(&mut indices, corners);
    (corners, indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(indices: &[u32], cache_size: u32) -> VertexCacheStats {
        let corner_count = indices.iter().max().map_or(0, |&m| m as usize + 1);
        fifo_stats(indices, corner_count, cache_size).unwrap()
    }

    #[test]
    fn a_fifo_keeps_hits_where_they_are() {
        // Cache of 3, by hand:
        // (0 1 2): three misses, cache [0 1 2].
        // (0 1 3): 0 and 1 hit; 3 misses and pushes out 0, the first in:
        //          [1 2 3]. (An LRU cache would push out 2.)
        // (0 1 3): 0 misses, pushes out 1: [2 3 0]; 1 misses, pushes out
        //          2: [3 0 1]; 3 hits. (An LRU cache would hit all three.)
        let s = stats(&[0, 1, 2, 0, 1, 3, 0, 1, 3], 3);
        assert_eq!(
            s,
            VertexCacheStats {
                cache_size: 3,
                triangles: 3,
                corners: 4,
                vertex_shader_runs: 6,
            }
        );
        assert_eq!(s.acmr(), 2.0);
        assert_eq!(s.atvr(), 1.5);
        // With room for all four corners every corner runs once.
        let s = stats(&[0, 1, 2, 0, 1, 3, 0, 1, 3], 4);
        assert_eq!(s.vertex_shader_runs, 4);
        assert_eq!(s.atvr(), 1.0);
        assert_eq!(s.acmr(), 4.0 / 3.0);
    }

    #[test]
    fn a_corner_repeated_in_a_triangle_runs_once() {
        // (0 0 0): one run; (0 1 1): one more; (2 2 2): one more.
        let s = stats(&[0, 0, 0, 0, 1, 1, 2, 2, 2], 3);
        assert_eq!(s.vertex_shader_runs, 3);
        assert_eq!(s.corners, 3);
        assert_eq!(s.acmr(), 1.0);
    }

    #[test]
    fn a_sixteen_entry_fifo_pushes_out_the_oldest_even_when_just_used() {
        // A fan around corner 0, triangles (0 i i+1) for i = 1..=19, by
        // hand: each triangle after the first brings in one new corner, so
        // after triangle 14 the cache holds exactly 0..=15. Triangle 15
        // (0 15 16): 0 and 15 hit; 16 pushes out 0, the first in, although
        // 0 was just used. Triangle 16 (0 16 17): 0 runs again (pushing out
        // 1) and 17 pushes out 2; 0 then stays to the end. An LRU cache,
        // which keeps what was just used, would run each corner once.
        let mut indices = Vec::new();
        for i in 1..=19u32 {
            indices.extend([0, i, i + 1]);
        }
        let s = stats(&indices, 16);
        // 21 distinct corners, plus the one re-run of corner 0.
        assert_eq!(s.corners, 21);
        assert_eq!(s.vertex_shader_runs, 22);
        assert_eq!(s.triangles, 19);
    }

    #[test]
    fn caches_below_three_are_refused_and_huge_ones_never_evict() {
        assert_eq!(
            fifo_stats(&[0, 1, 2], 3, 2),
            Err(MeshError::CacheTooSmall {
                cache_size: 2,
                min: 3
            })
        );
        let indices = [0, 1, 2, 2, 1, 3, 3, 1, 0, 4, 0, 3];
        for size in [5, 6, 1000, u32::MAX] {
            let s = stats(&indices, size);
            assert_eq!(s.vertex_shader_runs, 5, "FIFO of {size}");
            assert_eq!(s.cache_size, size);
        }
    }

    #[test]
    fn no_triangles_no_runs() {
        let s = fifo_stats(&[], 0, 16).unwrap();
        assert_eq!((s.triangles, s.corners, s.vertex_shader_runs), (0, 0, 0));
        assert_eq!((s.acmr(), s.atvr()), (0.0, 0.0));
    }
}
