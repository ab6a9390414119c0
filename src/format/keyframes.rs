//! An MD2 model's part of the model seam: its frames and vertices as they
//! are, its triangles welded (its (xyz, st) pairs become the one indexed
//! list of corners the seam holds), its frames grouped into animations.

use std::collections::HashMap;

use super::error::Md2Warning;
use super::model::{TexCoord, Triangle};
use crate::model::{Animation, Corner, Frame, KeyframeModel, PackedVertex, group};

/// The distinct (xyz, st) pairs of the triangles, in order of first use,
/// with the texture coordinate `(st + 0.5) / skin size` (the centre of the
/// texel, as Quake II's GL commands have it); and the triangle list over
/// them, in the file's order and winding.
fn weld(
    triangles: &[Triangle],
    tex_coords: &[TexCoord],
    (w, h): (u32, u32),
) -> (Vec<Corner>, Vec<u32>) {
    let (w, h) = (w as f32, h as f32);
    let mut index_of: HashMap<(u16, u16), u32> = HashMap::with_capacity(triangles.len() * 3);
    let mut corners = Vec::new();
    let mut indices = Vec::with_capacity(triangles.len() * 3);
    for tri in triangles {
        for k in 0..3 {
            let key = (tri.xyz[k], tri.st[k]);
            let index = *index_of.entry(key).or_insert_with(|| {
                let tc = tex_coords[usize::from(tri.st[k])];
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

/// The model seam's part of an MD2 model: its frames and vertices, its
/// triangles welded, its frames grouped into animations (whose renames the
/// loader reports as warnings).
pub(crate) fn keyframes_of(
    skin_size: (u32, u32),
    tex_coords: &[TexCoord],
    triangles: &[Triangle],
    frames: Vec<Frame>,
    vertices: Vec<PackedVertex>,
) -> (KeyframeModel, Vec<Md2Warning>) {
    let (animations, warnings) = name_animations(&frames);
    let (corners, indices) = weld(triangles, tex_coords, skin_size);
    let keyframes =
        KeyframeModel::checked_by_caller(frames, vertices, corners, indices, skin_size, animations);
    (keyframes, warnings)
}

/// The animations of these frames, and a warning for each one renamed to
/// keep the names unique.
fn name_animations(frames: &[Frame]) -> (Vec<Animation>, Vec<Md2Warning>) {
    let (animations, renamed) = group(frames.iter().map(Frame::name));
    let warnings = renamed
        .into_iter()
        .map(|r| {
            let a = &animations[r.index];
            Md2Warning::AnimationRenamed {
                name: r.name,
                renamed: a.name.clone(),
                first: a.first,
                last: a.last,
            }
        })
        .collect();
    (animations, warnings)
}
