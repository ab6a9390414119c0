//! An MDL's part of the model seam: its poses as frames (one scale for all
//! of them), its triangles welded by Quake's seam rule, its frames grouped
//! into animations (each frame group one of its own).

use std::collections::HashMap;

use super::error::{MdlPart, MdlWarning};
use super::model::{MdlFrame, MdlHeader, MdlModel, MdlPoseBox, MdlSkin, MdlTexCoord, MdlTriangle};
use crate::model::{Corner, Frame, KeyframeModel, PackedVertex, group_around, name_until_nul};

/// The poses as the reader (or a model built in code) gives them.
pub(crate) struct Poses {
    pub frames: Vec<MdlFrame>,
    pub boxes: Vec<MdlPoseBox>,
    pub names: Vec<[u8; 16]>,
    pub vertices: Vec<PackedVertex>,
    bad_normals: usize,
    first_bad: Option<(u32, usize, u8)>,
}

impl Poses {
    pub(crate) fn with_capacity(poses: usize, verts: usize) -> Poses {
        Poses {
            frames: Vec::with_capacity(poses),
            boxes: Vec::with_capacity(poses),
            names: Vec::with_capacity(poses),
            vertices: Vec::with_capacity(poses * verts),
            bad_normals: 0,
            first_bad: None,
        }
    }

    /// Poses so far.
    pub(crate) fn count(&self) -> u32 {
        self.boxes.len() as u32
    }

    pub(crate) fn note_bad_normal(&mut self, pose: u32, vertex: usize, index: u8) {
        self.bad_normals += 1;
        self.first_bad.get_or_insert((pose, vertex, index));
    }
}

/// Whether a group's cumulative intervals step evenly: the `i`th at
/// `(i + 1)` times the first, within a thousandth of a step (what a float
/// sum of the same step, as the tools wrote them, stays within).
pub(crate) fn even(intervals: &[f32]) -> bool {
    let step = f64::from(intervals[0]);
    intervals
        .iter()
        .enumerate()
        .all(|(i, &t)| (f64::from(t) - step * (i + 1) as f64).abs() <= step * 1e-3)
}

/// The distinct (vertex, skin half) pairs of the triangles, in order of
/// first use, with the texture coordinate `(s + 0.5) / width`,
/// `(t + 0.5) / height` (the texel's centre, as GLQuake's display lists
/// have it), `s` moved on by `width / 2` (integer) for a seam vertex of a
/// triangle facing back; and the triangle list over them, in the file's
/// order and winding.
fn weld(
    triangles: &[MdlTriangle],
    tex_coords: &[MdlTexCoord],
    (w, h): (u32, u32),
) -> (Vec<Corner>, Vec<u32>) {
    let mut index_of: HashMap<(i32, bool), u32> = HashMap::with_capacity(triangles.len() * 3);
    let mut corners = Vec::new();
    let mut indices = Vec::with_capacity(triangles.len() * 3);
    for tri in triangles {
        for k in 0..3 {
            let back = tri.reads_back_half(k, tex_coords);
            let vertex = tri.vertices[k];
            let index = *index_of.entry((vertex, back)).or_insert_with(|| {
                let tc = tex_coords[vertex as usize];
                let s = i64::from(tc.s) + if back { i64::from(w / 2) } else { 0 };
                corners.push(Corner {
                    xyz: vertex as u32,
                    uv: [
                        ((s as f64 + 0.5) / f64::from(w)) as f32,
                        ((f64::from(tc.t) + 0.5) / f64::from(h)) as f32,
                    ],
                });
                corners.len() as u32 - 1
            });
            indices.push(index);
        }
    }
    (corners, indices)
}

/// An MDL model from its checked parts: the seam built from them, the
/// warnings the parts give added to `warnings`.
pub(crate) fn keyframes_of(
    header: MdlHeader,
    skins: Vec<MdlSkin>,
    tex_coords: Vec<MdlTexCoord>,
    triangles: Vec<MdlTriangle>,
    poses: Poses,
    trailing: Vec<u8>,
    mut warnings: Vec<MdlWarning>,
) -> MdlModel {
    let skin_size = (header.skin_width as u32, header.skin_height as u32);
    if let Some(first) = poses.first_bad {
        warnings.push(MdlWarning::NormalIndexOutOfTable {
            count: poses.bad_normals,
            first,
        });
    }
    for (index, frame) in poses.frames.iter().enumerate() {
        if let Some(group) = &frame.group
            && !even(&group.intervals)
        {
            warnings.push(MdlWarning::UnevenIntervals {
                part: MdlPart::Frames,
                index,
            });
        }
    }
    let frames: Vec<Frame> = poses
        .names
        .iter()
        .map(|&name_bytes| Frame {
            scale: header.scale,
            translate: header.translate,
            name_bytes,
        })
        .collect();
    let names: Vec<String> = poses.names.iter().map(|n| name_until_nul(n)).collect();
    let wholes: Vec<_> = poses
        .frames
        .iter()
        .filter(|f| f.group.is_some())
        .map(MdlFrame::poses)
        .collect();
    let (animations, renamed) = group_around(&names, &wholes);
    warnings.extend(renamed.into_iter().map(|r| {
        let a = &animations[r.index];
        MdlWarning::AnimationRenamed {
            name: r.name,
            renamed: a.name.clone(),
            first: a.first,
            last: a.last,
        }
    }));
    let (corners, indices) = weld(&triangles, &tex_coords, skin_size);
    let keyframes = KeyframeModel::checked_by_caller(
        frames,
        poses.vertices,
        corners,
        indices,
        skin_size,
        animations,
    );
    MdlModel {
        header,
        skins,
        tex_coords,
        triangles,
        file_frames: poses.frames,
        pose_boxes: poses.boxes,
        trailing,
        warnings,
        keyframes,
    }
}
