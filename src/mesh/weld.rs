//! Welding: the (xyz, st) pairs the triangles use become one indexed list.

use std::collections::HashMap;

use crate::format::Md2Model;

/// A render vertex: one (xyz, st) pair the triangles use, welded, as the
/// vertex buffer holds it (12 bytes).
///
/// An MD2 file indexes positions and texture coordinates separately
/// (`num_st` differs from `num_xyz`); a GPU index buffer has one index per
/// corner, so every distinct pair becomes one `Corner`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Corner {
    /// The vertex index into each frame's packed vertices (`num_xyz`).
    pub xyz: u32,
    /// The texture coordinate, `(st + 0.5) / skin size`: the centre of the
    /// texel, as Quake II's GL commands have it, so triangles and GL
    /// commands give the same picture.
    pub uv: [f32; 2],
}

/// The distinct (xyz, st) pairs of the triangles, in order of first use,
/// and the triangle list over them (in the file's order and winding).
pub(crate) fn weld(model: &Md2Model) -> (Vec<Corner>, Vec<u32>) {
    let (w, h) = model.skin_size();
    let (w, h) = (w as f32, h as f32);
    let st = model.tex_coords();
    let triangles = model.triangles();
    let mut index_of: HashMap<(u16, u16), u32> = HashMap::with_capacity(triangles.len() * 3);
    let mut corners = Vec::new();
    let mut indices = Vec::with_capacity(triangles.len() * 3);
    for tri in triangles {
        for k in 0..3 {
            let key = (tri.xyz[k], tri.st[k]);
            let index = *index_of.entry(key).or_insert_with(|| {
                let tc = st[usize::from(tri.st[k])];
                corners.push(Corner {
                    xyz: u32::from(tri.xyz[k]),
                    uv: [(f32::from(tc.s) + 0.5) / w, (f32::from(tc.t) + 0.5) / h],
                });
                corners.len() as u32 - 1
            });
            indices.push(index);
        }
    }
    (corners, indices)
}
