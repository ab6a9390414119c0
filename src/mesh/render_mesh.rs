//! The mesh the GPU draws: a model's welded corners and the triangles over
//! them, in the source's order or the vertex cache's.

use super::error::MeshError;
use super::vertex_cache::{self, VertexCacheStats};
use crate::model::{Corner, KeyframeModel};

/// The order a [`RenderMesh`] draws its triangles in. The triangles, their
/// winding and their corners are the same either way: only the order of
/// the triangles and the numbering of the corners differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TriangleOrder {
    /// The file's order, corners numbered by first use in it: to compare
    /// against, or to draw triangle by triangle as the file lists them.
    File,
    /// Ordered for the GPU's post-transform vertex cache by meshoptimizer's
    /// `optimizeVertexCache`, then the corners numbered by first use in
    /// that order, so fetching them walks the corner buffer forward.
    #[default]
    VertexCache,
}

/// A model's welded corners and triangle list, as the GPU draws them.
///
/// A pure function of the model and the [`TriangleOrder`]: building it twice
/// gives identical buffers.
///
/// ```
/// use md2_wgpu::mesh::{RenderMesh, TriangleOrder};
///
/// let model = md2_wgpu::demo::demo_model();
/// let file = RenderMesh::new(&model, TriangleOrder::File);
/// let ordered = RenderMesh::new(&model, TriangleOrder::VertexCache);
/// let (before, after) = (file.vertex_cache_stats(16)?, ordered.vertex_cache_stats(16)?);
/// assert!(after.acmr() < before.acmr());
/// assert_eq!(ordered.triangle_count(), model.triangles().len());
/// # Ok::<(), md2_wgpu::mesh::MeshError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RenderMesh {
    corners: Vec<Corner>,
    indices: Vec<u32>,
    order: TriangleOrder,
}

impl RenderMesh {
    /// `model`'s welded corners and triangles, ordered as `order` says.
    pub fn new(model: &KeyframeModel, order: TriangleOrder) -> RenderMesh {
        let (corners, indices) = (model.corners().to_vec(), model.indices().to_vec());
        let (corners, indices) = match order {
            TriangleOrder::File => (corners, indices),
            TriangleOrder::VertexCache => vertex_cache::optimize(&corners, &indices),
        };
        RenderMesh {
            corners,
            indices,
            order,
        }
    }

    /// The distinct (xyz, st) pairs the triangles use, each once.
    pub fn corners(&self) -> &[Corner] {
        &self.corners
    }

    /// The triangle list: three indices into [`corners`](Self::corners) per
    /// triangle, each triangle's corners in the file's order (MD2 triangles
    /// run clockwise seen from outside).
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// The order the triangles are in.
    pub fn order(&self) -> TriangleOrder {
        self.order
    }

    /// How many triangles (the model's, each once).
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// What a first-in-first-out post-transform cache of `cache_size`
    /// corners makes of [`indices`](Self::indices): see
    /// [`VertexCacheStats`] for exactly what is simulated. 16 is a fair
    /// stand-in for the caches of desktop GPUs.
    ///
    /// A cache of fewer than 3 corners is a [`MeshError::CacheTooSmall`].
    pub fn vertex_cache_stats(&self, cache_size: u32) -> Result<VertexCacheStats, MeshError> {
        vertex_cache::fifo_stats(&self.indices, self.corners.len(), cache_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{Md2Model, Md2Parts, SkinName, TexCoord, Triangle};
    use crate::model::{Frame, PackedVertex};

    /// A quad strip of `quads` quads with a texture seam on its middle
    /// column: xyz 2·i and 2·i+1 sit at column i; the seam column's two
    /// vertices have a second texel pair, used by the quads right of it.
    fn strip(quads: u16) -> Md2Model {
        let columns = quads + 1;
        let seam = quads / 2;
        let mut tex_coords: Vec<TexCoord> = (0..columns)
            .flat_map(|i| {
                [
                    TexCoord {
                        s: 2 * i as i16,
                        t: 0,
                    },
                    TexCoord {
                        s: 2 * i as i16,
                        t: 9,
                    },
                ]
            })
            .collect();
        tex_coords.extend([TexCoord { s: 60, t: 0 }, TexCoord { s: 60, t: 9 }]);
        let seam_st = 2 * columns;
        let mut triangles = Vec::new();
        for q in 0..quads {
            let (a, b, c, d) = (2 * q, 2 * q + 1, 2 * q + 2, 2 * q + 3);
            let st = |x: u16| {
                if q == seam && x / 2 == seam {
                    seam_st + x % 2
                } else {
                    x
                }
            };
            triangles.push(Triangle {
                xyz: [a, c, b],
                st: [st(a), st(c), st(b)],
            });
            triangles.push(Triangle {
                xyz: [b, c, d],
                st: [st(b), st(c), st(d)],
            });
        }
        let vertices = (0..2 * columns)
            .map(|i| PackedVertex {
                position: [i as u8, (i % 2) as u8, 0],
                normal_index: 0,
            })
            .collect();
        Md2Model::from_parts(Md2Parts {
            skin_size: (64, 16),
            skins: vec![SkinName::new("strip.pcx")],
            tex_coords,
            triangles,
            frames: vec![Frame::new("strip", [1.0; 3], [0.0; 3])],
            vertices,
        })
        .unwrap()
    }

    #[test]
    fn welding_keeps_each_pair_once_in_order_of_first_use() {
        let model = strip(4);
        let mesh = RenderMesh::new(&model, TriangleOrder::File);
        // 10 xyz; the two on the seam column have two texels each.
        assert_eq!(mesh.corners().len(), 12);
        // Triangle 0 is (0 2 1), triangle 1 (1 2 3): corners 0, 2, 1, 3.
        assert_eq!(&mesh.indices()[..6], &[0, 1, 2, 2, 1, 3]);
        let xyz: Vec<u32> = mesh.corners()[..4].iter().map(|c| c.xyz).collect();
        assert_eq!(xyz, [0, 2, 1, 3]);
        // Texel (2, 9) of a 64 × 16 skin, at the texel's centre.
        assert_eq!(mesh.corners()[3].uv, [2.5 / 64.0, 9.5 / 16.0]);
        assert_eq!(mesh.order(), TriangleOrder::File);
        assert_eq!(mesh.triangle_count(), 8);
    }

    /// The triangles as (xyz, uv bits) corners, each rotated to start at
    /// its smallest corner (so the winding is kept), sorted.
    fn triangles(mesh: &RenderMesh) -> Vec<[(u32, [u32; 2]); 3]> {
        let mut out: Vec<_> = mesh
            .indices()
            .chunks(3)
            .map(|t| {
                let c: [(u32, [u32; 2]); 3] = std::array::from_fn(|k| {
                    let c = mesh.corners()[t[k] as usize];
                    (c.xyz, c.uv.map(f32::to_bits))
                });
                let k = (0..3).min_by_key(|&k| c[k]).unwrap();
                [c[k], c[(k + 1) % 3], c[(k + 2) % 3]]
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn the_cache_order_draws_the_same_triangles_with_fewer_runs() {
        let model = strip(40);
        let file = RenderMesh::new(&model, TriangleOrder::File);
        let ordered = RenderMesh::new(&model, TriangleOrder::default());
        assert_eq!(ordered.order(), TriangleOrder::VertexCache);
        assert_eq!(triangles(&ordered), triangles(&file));
        assert_eq!(ordered.corners().len(), file.corners().len());
        // Corners numbered by first use: each index is at most one past the
        // largest before it.
        let mut next = 0;
        for &i in ordered.indices() {
            assert!(i <= next, "corner {i} used before corner {next}");
            next = next.max(i + 1);
        }
        // A strip in file order is already good for a cache; the order
        // must not make it worse.
        let (before, after) = (
            file.vertex_cache_stats(16).unwrap(),
            ordered.vertex_cache_stats(16).unwrap(),
        );
        assert!(
            after.vertex_shader_runs <= before.vertex_shader_runs,
            "{after} vs {before}"
        );
        assert_eq!(RenderMesh::new(&model, TriangleOrder::VertexCache), ordered);
    }
}
