//! Writing an MDL file, and building a model in code (which writes its
//! parts and reads them back, so a built model passes exactly the loader's
//! checks and writes back to the same bytes).

use super::error::MdlError;
use super::layout::{GROUP_BOX_SIZE, POSE_HEADER_SIZE, TEX_COORD_SIZE, TRIANGLE_SIZE};
use super::model::{
    MdlFrame, MdlFrameGroup, MdlHeader, MdlModel, MdlPoseBox, MdlSkin, MdlTexCoord, MdlTriangle,
};
use crate::model::{PackedVertex, fixed_name};

/// Everything needed to build a model in code; see [`MdlModel::from_parts`].
#[derive(Clone, Debug, PartialEq)]
pub struct MdlParts {
    /// One scale for every pose.
    pub scale: [f32; 3],
    /// One translate for every pose.
    pub translate: [f32; 3],
    /// The skin's size in texels (width, height).
    pub skin_size: (u32, u32),
    /// The skins, as palette indices (at least one).
    pub skins: Vec<MdlSkin>,
    /// One texture coordinate per vertex.
    pub tex_coords: Vec<MdlTexCoord>,
    /// The triangles, clockwise seen from outside.
    pub triangles: Vec<MdlTriangle>,
    /// Each pose's name (at most 16 bytes are kept).
    pub pose_names: Vec<String>,
    /// Every pose's vertices, pose-major: `pose_names.len() ×
    /// tex_coords.len()` entries.
    pub vertices: Vec<PackedVertex>,
    /// The frames as the file will list them, covering the poses in order;
    /// empty: each pose a single frame.
    pub frames: Vec<MdlFrame>,
    /// Quake's effect flags ([`MdlHeader::flags`]).
    pub flags: i32,
    /// 0: in step; 1: random start ([`MdlHeader::sync_type`]).
    pub sync_type: i32,
}

impl Default for MdlParts {
    fn default() -> Self {
        MdlParts {
            scale: [1.0; 3],
            translate: [0.0; 3],
            skin_size: (0, 0),
            skins: Vec::new(),
            tex_coords: Vec::new(),
            triangles: Vec::new(),
            pose_names: Vec::new(),
            vertices: Vec::new(),
            frames: Vec::new(),
            flags: 0,
            sync_type: 0,
        }
    }
}

impl MdlModel {
    /// Builds a model from its parts: the header's bounding radius and
    /// average triangle size computed from the first pose, each pose's box
    /// and each group's box from its vertices. The checks are the loader's
    /// (the parts are written and read back), so a built model is one the
    /// loader accepts, with the same warnings.
    pub fn from_parts(parts: MdlParts) -> Result<MdlModel, MdlError> {
        let invalid = |reason: String| Err(MdlError::InvalidParts { reason });
        let verts = parts.tex_coords.len();
        let poses = parts.pose_names.len();
        if verts == 0 || poses == 0 || parts.vertices.len() != verts * poses {
            return invalid(format!(
                "{} vertices are not {verts} texture coordinates' worth for each of {poses} poses (at least one of each)",
                parts.vertices.len()
            ));
        }
        let frames = if parts.frames.is_empty() {
            (0..poses as u32)
                .map(|first| MdlFrame {
                    first,
                    count: 1,
                    group: None,
                })
                .collect()
        } else {
            parts.frames.clone()
        };
        let (w, h) = parts.skin_size;
        for (i, skin) in parts.skins.iter().enumerate() {
            let images = skin.images();
            let sizes_right = images
                .iter()
                .all(|i| i.len() as u64 == u64::from(w) * u64::from(h));
            let grouped_right = match skin {
                MdlSkin::Single(_) => true,
                MdlSkin::Group { intervals, images } => {
                    !images.is_empty() && intervals.len() == images.len()
                }
            };
            if !sizes_right || !grouped_right {
                return invalid(format!(
                    "skin {i}: {} images of {:?} bytes with {} intervals; each image is {w} × {h} bytes, a group's one interval per image, at least one",
                    images.len(),
                    images.iter().map(Vec::len).collect::<Vec<_>>(),
                    skin.intervals().len()
                ));
            }
        }
        let mut next = 0u32;
        for (i, f) in frames.iter().enumerate() {
            let group_len = f.group.as_ref().map(|g| g.intervals.len());
            if f.first != next
                || f.count == 0
                || group_len.is_some_and(|n| n != f.count as usize)
                || (group_len.is_none() && f.count != 1)
            {
                return invalid(format!(
                    "frame {i} covers poses {}..{} (a group's intervals: {group_len:?}); the frames must cover the poses in order, a single frame one pose, a group one per interval",
                    f.first,
                    f.first as u64 + f.count as u64
                ));
            }
            next = f.first + f.count;
        }
        if next as usize != poses {
            return invalid(format!("the frames cover {next} of {poses} poses"));
        }
        let clamp = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
        let mut header = MdlHeader {
            ident: MdlHeader::IDENT,
            version: MdlHeader::VERSION,
            scale: parts.scale,
            translate: parts.translate,
            bounding_radius: 0.0,
            eye_position: [0.0; 3],
            num_skins: clamp(parts.skins.len().try_into().unwrap_or(u32::MAX)),
            skin_width: clamp(parts.skin_size.0),
            skin_height: clamp(parts.skin_size.1),
            num_verts: clamp(verts.try_into().unwrap_or(u32::MAX)),
            num_tris: clamp(parts.triangles.len().try_into().unwrap_or(u32::MAX)),
            num_frames: clamp(frames.len().try_into().unwrap_or(u32::MAX)),
            sync_type: parts.sync_type,
            flags: parts.flags,
            size: 0.0,
        };
        let decode = |v: &PackedVertex| -> [f32; 3] {
            std::array::from_fn(|k| f32::from(v.position[k]) * parts.scale[k] + parts.translate[k])
        };
        let first_pose: Vec<[f32; 3]> = parts.vertices[..verts].iter().map(decode).collect();
        header.bounding_radius = first_pose
            .iter()
            .map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt())
            .fold(0.0, f32::max);
        header.size = average_area(&first_pose, &parts.triangles);
        let bytes = write_built(&header, &parts, &frames)?;
        MdlModel::from_bytes(&bytes)
    }

    /// The file's bytes: exactly what was read, for a loaded model (trailing
    /// bytes included).
    pub fn to_bytes(&self) -> Vec<u8> {
        let names: Vec<[u8; 16]> = self.frames().iter().map(|f| f.name_bytes).collect();
        FileParts {
            header: &self.header,
            skins: &self.skins,
            tex_coords: &self.tex_coords,
            triangles: &self.triangles,
            frames: &self.file_frames,
            names: &names,
            boxes: &self.pose_boxes,
            vertices: self.vertices(),
            trailing: &self.trailing,
        }
        .write()
    }
}

/// The average triangle area of a pose (the header's `size`; the game's
/// software renderer reads it as a level-of-detail hint), 0 for a triangle
/// list that indexes past the pose.
fn average_area(pose: &[[f32; 3]], triangles: &[MdlTriangle]) -> f32 {
    let mut total = 0.0f64;
    for tri in triangles {
        let p = tri
            .vertices
            .map(|v| usize::try_from(v).ok().and_then(|v| pose.get(v)));
        let [Some(a), Some(b), Some(c)] = p else {
            return 0.0;
        };
        let u: [f64; 3] = std::array::from_fn(|k| f64::from(b[k] - a[k]));
        let w: [f64; 3] = std::array::from_fn(|k| f64::from(c[k] - a[k]));
        let n = [
            u[1] * w[2] - u[2] * w[1],
            u[2] * w[0] - u[0] * w[2],
            u[0] * w[1] - u[1] * w[0],
        ];
        total += 0.5 * (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    }
    (total / triangles.len().max(1) as f64) as f32
}

/// Every part of a file, borrowed: what [`FileParts::write`] writes.
struct FileParts<'a> {
    header: &'a MdlHeader,
    skins: &'a [MdlSkin],
    tex_coords: &'a [MdlTexCoord],
    triangles: &'a [MdlTriangle],
    frames: &'a [MdlFrame],
    names: &'a [[u8; 16]],
    boxes: &'a [MdlPoseBox],
    vertices: &'a [PackedVertex],
    trailing: &'a [u8],
}

/// A pose's box: the least and greatest packed coordinates of its
/// vertices (normal index 0).
fn pose_box(pose: &[PackedVertex]) -> MdlPoseBox {
    let mut b = MdlPoseBox {
        min: PackedVertex {
            position: [u8::MAX; 3],
            normal_index: 0,
        },
        max: PackedVertex::default(),
    };
    for v in pose {
        for k in 0..3 {
            b.min.position[k] = b.min.position[k].min(v.position[k]);
            b.max.position[k] = b.max.position[k].max(v.position[k]);
        }
    }
    b
}

/// The file's bytes for parts built in code: each pose's box from its
/// vertices, each group's from its poses'; refuses a file past 2 GiB.
fn write_built(
    header: &MdlHeader,
    parts: &MdlParts,
    frames: &[MdlFrame],
) -> Result<Vec<u8>, MdlError> {
    let verts = parts.tex_coords.len();
    let images: u64 = parts
        .skins
        .iter()
        .map(|s| 12 + s.images().iter().map(|i| 4 + i.len() as u64).sum::<u64>())
        .sum();
    let size = MdlHeader::SIZE as u64
        + images
        + TEX_COORD_SIZE * verts as u64
        + TRIANGLE_SIZE * parts.triangles.len() as u64
        + (16 + GROUP_BOX_SIZE + POSE_HEADER_SIZE + 4 * verts as u64)
            * parts.pose_names.len() as u64;
    if size > i32::MAX as u64 {
        return Err(MdlError::TooLargeToWrite { size });
    }
    let names: Vec<[u8; 16]> = parts.pose_names.iter().map(|n| fixed_name(n)).collect();
    let boxes: Vec<MdlPoseBox> = parts.vertices.chunks(verts).map(pose_box).collect();
    let frames: Vec<MdlFrame> = frames
        .iter()
        .map(|f| MdlFrame {
            group: f.group.as_ref().map(|g| {
                let poses = &boxes[f.first as usize..(f.first + f.count) as usize];
                let all = pose_box(
                    &poses
                        .iter()
                        .flat_map(|b| [b.min, b.max])
                        .collect::<Vec<_>>(),
                );
                MdlFrameGroup {
                    bbox_min: all.min,
                    bbox_max: all.max,
                    intervals: g.intervals.clone(),
                }
            }),
            ..f.clone()
        })
        .collect();
    Ok(FileParts {
        header,
        skins: &parts.skins,
        tex_coords: &parts.tex_coords,
        triangles: &parts.triangles,
        frames: &frames,
        names: &names,
        boxes: &boxes,
        vertices: &parts.vertices,
        trailing: &[],
    }
    .write())
}

fn i32s(out: &mut Vec<u8>, values: &[i32]) {
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn f32s(out: &mut Vec<u8>, values: &[f32]) {
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn packed(out: &mut Vec<u8>, v: &PackedVertex) {
    out.extend_from_slice(&v.position);
    out.push(v.normal_index);
}

impl FileParts<'_> {
    /// Every part, in the file's order.
    fn write(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let h = self.header;
        out.extend_from_slice(&h.ident);
        i32s(&mut out, &[h.version]);
        f32s(&mut out, &h.scale);
        f32s(&mut out, &h.translate);
        f32s(&mut out, &[h.bounding_radius]);
        f32s(&mut out, &h.eye_position);
        let counts = [
            h.num_skins,
            h.skin_width,
            h.skin_height,
            h.num_verts,
            h.num_tris,
            h.num_frames,
            h.sync_type,
            h.flags,
        ];
        i32s(&mut out, &counts);
        f32s(&mut out, &[h.size]);
        for skin in self.skins {
            match skin {
                MdlSkin::Single(image) => {
                    i32s(&mut out, &[0]);
                    out.extend_from_slice(image);
                }
                MdlSkin::Group { intervals, images } => {
                    i32s(&mut out, &[1, intervals.len() as i32]);
                    f32s(&mut out, intervals);
                    for image in images {
                        out.extend_from_slice(image);
                    }
                }
            }
        }
        for tc in self.tex_coords {
            i32s(&mut out, &[tc.on_seam, tc.s, tc.t]);
        }
        for tri in self.triangles {
            i32s(&mut out, &[tri.faces_front]);
            i32s(&mut out, &tri.vertices);
        }
        let verts = self.tex_coords.len();
        for frame in self.frames {
            match &frame.group {
                None => i32s(&mut out, &[0]),
                Some(g) => {
                    i32s(&mut out, &[1, frame.count as i32]);
                    packed(&mut out, &g.bbox_min);
                    packed(&mut out, &g.bbox_max);
                    f32s(&mut out, &g.intervals);
                }
            }
            for pose in frame.poses() {
                let pose = pose as usize;
                packed(&mut out, &self.boxes[pose].min);
                packed(&mut out, &self.boxes[pose].max);
                out.extend_from_slice(&self.names[pose]);
                for v in &self.vertices[pose * verts..(pose + 1) * verts] {
                    packed(&mut out, v);
                }
            }
        }
        out.extend_from_slice(self.trailing);
        out
    }
}
