//! Between MD2 and MDL, where the target can hold the model, saying what
//! the conversion loses: MDL has one scale for every pose (so an MD2's
//! per-frame grids are requantised onto one), one texture coordinate per
//! vertex (so each welded corner becomes a vertex) and palette skins; MD2
//! has no frame or skin groups.

use image::RgbaImage;
use image::imageops::{FilterType, resize};

use super::error::MdlError;
use super::layout::MAX_VERTS;
use super::model::{MdlModel, MdlSkin, MdlTexCoord, MdlTriangle};
use super::palette::{FULLBRIGHT_FIRST, Palette};
use super::write::MdlParts;
use crate::format::{Md2Error, Md2Model, Md2Parts, SkinName, TexCoord, Triangle};
use crate::model::{Frame, KeyframeModel, PackedVertex};

/// What a conversion kept and what it lost.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Conversion {
    /// The largest distance, in model units, between a vertex as the source
    /// decodes it and as the result does (0 where the grids are the same).
    pub max_position_error: f32,
    /// The model's size (the diagonal of its box over every frame), to read
    /// the error against.
    pub model_size: f32,
    /// The largest difference of a skin texel from the source's, in sRGB
    /// steps on the worst channel (0 without skins to convert).
    pub max_colour_error: u8,
    /// What else changed, as sentences.
    pub notes: Vec<String>,
}

/// An MDL of a keyframe model (an MD2's, say): every welded corner a
/// vertex, every frame a single pose on one grid (the box of all frames,
/// 255 steps a side), `skins` (scaled to the model's skin size) in
/// `palette`'s colours below the fullbright range, so nothing glows that
/// did not. Refused where the corners are past MDL's 2,000 vertices.
pub fn from_keyframes(
    model: &KeyframeModel,
    skins: &[RgbaImage],
    palette: &Palette,
) -> Result<(MdlModel, Conversion), MdlError> {
    let corners = model.corners();
    if corners.len() as i64 > MAX_VERTS {
        return Err(MdlError::BeyondLimit {
            field: "numverts (one per welded corner)",
            value: corners.len() as i64,
            limit: MAX_VERTS,
        });
    }
    let (w, h) = model.skin_size();
    let texel = |x: f32, size: u32| (x * size as f32 - 0.5).round() as i32;
    let tex_coords: Vec<MdlTexCoord> = corners
        .iter()
        .map(|c| MdlTexCoord {
            on_seam: 0,
            s: texel(c.uv[0], w),
            t: texel(c.uv[1], h),
        })
        .collect();
    let triangles = model
        .indices()
        .chunks_exact(3)
        .map(|t| MdlTriangle {
            faces_front: 1,
            vertices: [t[0] as i32, t[1] as i32, t[2] as i32],
        })
        .collect();

    let grid = one_grid(model);
    let (lo, hi, scale) = (grid.lo, grid.hi, grid.scale);
    let (vertices, max_position_error) = grid.vertices;
    let (mdl_skins, max_colour_error) = palette_skins(skins, (w, h), palette);
    let diagonal = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f32>().sqrt();
    let mut notes = vec![format!(
        "one grid for all {} frames: positions move by up to {max_position_error:.4} units ({:.3}% of the model's {diagonal:.1})",
        model.frame_count(),
        100.0 * max_position_error / diagonal.max(f32::MIN_POSITIVE)
    )];
    notes.push(format!(
        "{} welded corners became {} vertices (MDL has one texture coordinate per vertex)",
        corners.len(),
        corners.len()
    ));
    if !skins.is_empty() {
        notes.push(format!(
            "{} skin(s) in the palette's colours, none fullbright: up to {max_colour_error} sRGB steps off",
            skins.len()
        ));
    }
    let parts = MdlParts {
        scale,
        translate: lo,
        skin_size: (w, h),
        skins: mdl_skins,
        tex_coords,
        triangles,
        pose_names: model.frames().iter().map(Frame::name).collect(),
        vertices,
        ..MdlParts::default()
    };
    let mdl = MdlModel::from_parts(parts)?;
    if mdl.animations() != model.animations() {
        notes.push(
            "the frame names group into other animations than the source's (MDL lists none)".into(),
        );
    }
    let conversion = Conversion {
        max_position_error,
        model_size: diagonal,
        max_colour_error,
        notes,
    };
    Ok((mdl, conversion))
}

/// Every frame's corners on one grid: the box of them all, 255 steps a
/// side.
struct OneGrid {
    lo: [f32; 3],
    hi: [f32; 3],
    scale: [f32; 3],
    /// Frame after frame, a vertex per corner; and the largest distance a
    /// position moved onto the grid.
    vertices: (Vec<PackedVertex>, f32),
}

fn one_grid(model: &KeyframeModel) -> OneGrid {
    let corners = model.corners();
    let decoded: Vec<Vec<([f32; 3], u8)>> = (0..model.frame_count())
        .map(|f| {
            let frame = &model.frames()[f as usize];
            let vertices = model.frame_data(f).packed();
            corners
                .iter()
                .map(|c| {
                    let v = vertices[c.xyz as usize];
                    (v.decode_position(frame), v.normal_index)
                })
                .collect()
        })
        .collect();
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for (p, _) in decoded.iter().flatten() {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let scale: [f32; 3] = std::array::from_fn(|k| ((hi[k] - lo[k]) / 255.0).max(f32::MIN_POSITIVE));
    let mut vertices = Vec::with_capacity(decoded.len() * corners.len());
    let mut max_position_error = 0.0f32;
    for (p, normal_index) in decoded.iter().flatten() {
        let position =
            std::array::from_fn(|k| ((p[k] - lo[k]) / scale[k]).round().clamp(0.0, 255.0) as u8);
        let back: [f32; 3] = std::array::from_fn(|k| f32::from(position[k]) * scale[k] + lo[k]);
        let d = (0..3).map(|k| (back[k] - p[k]).powi(2)).sum::<f32>().sqrt();
        max_position_error = max_position_error.max(d);
        vertices.push(PackedVertex {
            position,
            normal_index: *normal_index,
        });
    }
    OneGrid {
        lo,
        hi,
        scale,
        vertices: (vertices, max_position_error),
    }
}

/// `skins` scaled to `size` in `palette`'s nearest colours below the
/// fullbright range (a grey skin where there are none), and the largest
/// channel difference that made.
fn palette_skins(skins: &[RgbaImage], (w, h): (u32, u32), palette: &Palette) -> (Vec<MdlSkin>, u8) {
    if skins.is_empty() {
        let grey = nearest(palette, [128, 128, 128]).0;
        return (vec![MdlSkin::Single(vec![grey; (w * h) as usize])], 0);
    }
    let mut max_colour_error = 0u8;
    let converted = skins
        .iter()
        .map(|image| {
            let image = if image.dimensions() == (w, h) {
                image.clone()
            } else {
                resize(image, w, h, FilterType::Triangle)
            };
            let indices = image
                .pixels()
                .map(|p| {
                    let (index, error) = nearest(palette, [p.0[0], p.0[1], p.0[2]]);
                    max_colour_error = max_colour_error.max(error);
                    index
                })
                .collect();
            MdlSkin::Single(indices)
        })
        .collect();
    (converted, max_colour_error)
}

/// The palette index (below the fullbright range) nearest `rgb`, and the
/// largest channel difference.
fn nearest(palette: &Palette, rgb: [u8; 3]) -> (u8, u8) {
    let distance = |c: &[u8; 3]| {
        (0..3)
            .map(|k| (i32::from(c[k]) - i32::from(rgb[k])).pow(2))
            .sum::<i32>()
    };
    let (index, colour) = palette.colors[..usize::from(FULLBRIGHT_FIRST)]
        .iter()
        .enumerate()
        .min_by_key(|(_, c)| distance(c))
        .expect("224 colours");
    let error = (0..3)
        .map(|k| colour[k].abs_diff(rgb[k]))
        .max()
        .unwrap_or(0);
    (index as u8, error)
}

/// An MD2 of an MDL: the same vertices and poses (every pose a frame on
/// the MDL's one grid, so positions are exact), a texture coordinate per
/// (s, t) the triangles read (the seam rule applied), the skins named
/// `skin_names` (an MD2 names its skin files; write the images there).
/// Frame groups become plain frames and skin groups separate skins, as the
/// notes say. Refused where a texture coordinate is past MD2's 16 bits.
pub fn to_md2(model: &MdlModel, skin_names: &[String]) -> Result<(Md2Model, Conversion), Md2Error> {
    let (w, _) = model.skin_size();
    let mut tex_coords: Vec<TexCoord> = Vec::new();
    let mut index_of = std::collections::HashMap::new();
    let mut triangles = Vec::with_capacity(model.triangles().len());
    for tri in model.triangles() {
        let mut out = Triangle::default();
        for k in 0..3 {
            let v = tri.vertices[k] as usize;
            let tc = model.tex_coords()[v];
            let half = if tri.reads_back_half(k, model.tex_coords()) {
                (w / 2) as i32
            } else {
                0
            };
            let st = (tc.s.saturating_add(half), tc.t);
            let fit = |x: i32| i16::try_from(x).ok();
            let (Some(s), Some(t)) = (fit(st.0), fit(st.1)) else {
                return Err(Md2Error::InvalidParts {
                    reason: format!("vertex {v}'s texture coordinate {st:?} is past MD2's 16 bits"),
                });
            };
            let next = tex_coords.len() as u16;
            out.st[k] = *index_of.entry((s, t)).or_insert_with(|| {
                tex_coords.push(TexCoord { s, t });
                next
            });
            out.xyz[k] = v as u16;
        }
        triangles.push(out);
    }
    let md2 = Md2Model::from_parts(Md2Parts {
        skin_size: model.skin_size(),
        skins: skin_names.iter().map(|n| SkinName::new(n)).collect(),
        tex_coords,
        triangles,
        frames: model.frames().to_vec(),
        vertices: model.vertices().to_vec(),
    })?;
    let mut notes = vec!["every pose a frame on the MDL's grid: positions exact".to_string()];
    let groups = model
        .file_frames()
        .iter()
        .filter(|f| f.group.is_some())
        .count();
    if groups > 0 {
        notes.push(format!(
            "{groups} frame group(s) became plain frames: MD2 keeps no intervals"
        ));
    }
    let images: usize = model.skins().iter().map(|s| s.images().len()).sum();
    if images != model.skins().len() {
        notes.push(format!(
            "skin groups became {images} separate skins: MD2 keeps no intervals"
        ));
    }
    if model.header().flags != 0 || model.header().sync_type != 0 {
        notes.push("the effect flags and sync type are not kept: MD2 has neither".into());
    }
    let diagonal = model.bounds().to_pair();
    let size = (0..3)
        .map(|k| (diagonal.1[k] - diagonal.0[k]).powi(2))
        .sum::<f32>()
        .sqrt();
    Ok((
        md2,
        Conversion {
            max_position_error: 0.0,
            model_size: size,
            max_colour_error: 0,
            notes,
        },
    ))
}
