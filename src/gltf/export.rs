//! The export: a model, its skins and its clips to one GLB.

use std::borrow::Cow;
use std::collections::BTreeMap;

use ::gltf::json;
use image::RgbaImage;
use json::accessor::{ComponentType, Type};
use json::buffer::Target as ViewTarget;
use json::mesh::{Mode, MorphTarget, Primitive, Semantic};
use json::validation::Checked;
use json::{Accessor, Index};

use super::animation::{self, Keys};
use super::buffer::{AccessorSpec, Builder, float_bounds, int_bounds, put_f32s, put_i16s};
use super::error::GltfError;
use super::frames::{CornerFrame, CornerFrames, Survey};
use super::materials::{self, EncodedSkin};
use super::options::{GltfOptions, MAX_GLB_BYTES};
use super::quantize::{Grid, SHORT_UNIT, distance, short, unit_short};
use super::report::{GltfExport, GltfReport, QuantizationReport};
use crate::mesh::RenderMesh;
use crate::model::{Bounds, KeyframeModel};

/// The GLB header and the two chunk headers.
const GLB_HEADERS: u64 = 12 + 8 + 8;

/// The extension that allows integer positions and normalised normals.
const QUANTIZATION: &str = "KHR_mesh_quantization";
/// The extension that lists several skins as variants of one primitive.
const VARIANTS: &str = "KHR_materials_variants";

/// `model` as a GLB: its welded corners (as the renderer draws them), every
/// frame a morph target, every clip an animation of the morph weights, each
/// skin a material. See the [module docs](super) for what maps to what.
///
/// `skins` are RGBA images, as [`skins::load_skins`](crate::skins::load_skins)
/// or [`demo::demo_skin`](crate::demo::demo_skin) give them; an empty one
/// (0 × 0, a skin that did not load) gets a plain material in its place.
///
/// ```
/// use md2_wgpu::gltf::{GltfOptions, to_glb};
///
/// let model = md2_wgpu::demo::demo_model();
/// let export = to_glb(&model, &[md2_wgpu::demo::demo_skin()], &GltfOptions::DEFAULT)?;
/// assert_eq!(&export.glb[..4], b"glTF");
/// assert_eq!(export.report.morph_targets, 198);
/// assert_eq!(export.report.animations, 20);
/// # Ok::<(), md2_wgpu::gltf::GltfError>(())
/// ```
pub fn to_glb(
    model: &KeyframeModel,
    skins: &[RgbaImage],
    options: &GltfOptions,
) -> Result<GltfExport, GltfError> {
    let frame_count = model.frame_count();
    check_options(options, frame_count)?;
    let keys = animation::keys(model, options)?;
    animation::check_weight_counts(&keys, frame_count)?;
    let mesh = RenderMesh::new(model, options.order);
    let corners = mesh.corners();
    let limit = options.max_bytes.min(MAX_GLB_BYTES);

    // The frames alone take at least this much (quantised: 8 bytes of
    // position and at least 8 of normal per corner per frame): refuse an
    // absurd model before decoding it.
    let per_corner = if options.quantize { 16 } else { 24 };
    let least = (corners.len() as u64)
        .saturating_mul(u64::from(frame_count))
        .saturating_mul(per_corner)
        .saturating_add(GLB_HEADERS);
    if least > limit {
        return Err(GltfError::TooLarge { size: least, limit });
    }

    let frames = CornerFrames::new(model, corners, options.scale);
    let survey = Survey::new(&frames, options.base_frame)?;
    let grid = options
        .quantize
        .then(|| Grid::fit(survey.base_min, survey.base_max, survey.max_delta));
    let skins = materials::encode(skins, &options.skin_names)?;
    let bin_size = bin_size(&mesh, &survey, grid.is_some(), &keys, &skins);
    if bin_size.saturating_add(GLB_HEADERS) > limit {
        return Err(GltfError::TooLarge {
            size: bin_size.saturating_add(GLB_HEADERS),
            limit,
        });
    }

    // Within the limit, which is below 4 GiB: the size fits a usize.
    let mut b = Builder::new(asset(), usize::try_from(bin_size).unwrap_or(0));
    let indices = write_indices(&mut b, &mesh);
    let mut report_q = None;
    let (attributes, targets) = match grid {
        None => float_frames(&mut b, &mesh, &frames, &survey)?,
        Some(grid) => {
            let (attributes, targets, q) = quantized_frames(&mut b, &mesh, &frames, &survey, grid)?;
            report_q = Some(q);
            (attributes, targets)
        }
    };
    let materials = materials::write(&mut b, &skins);

    let primitive = Primitive {
        attributes,
        extensions: variant_mappings(&materials),
        extras: None,
        indices: Some(indices),
        material: materials.first().copied(),
        mode: Checked::Valid(Mode::Triangles),
        targets: Some(targets),
    };
    let name = options.name.clone().unwrap_or_else(|| "md2".into());
    let node = write_scene(&mut b, model, primitive, name, grid)?;
    animation::write(&mut b, node, &keys, frame_count, options.interpolation)?;
    b.finish_buffer();

    if grid.is_some() {
        b.root.extensions_used.push(QUANTIZATION.into());
        b.root.extensions_required.push(QUANTIZATION.into());
    }
    if materials.len() > 1 {
        b.root.extensions_used.push(VARIANTS.into());
        b.root.extensions = Some(variants(&skins));
    }

    let bin_bytes = b.bin.len();
    let (glb, json_padded) = finish_glb(b, limit)?;
    let report = GltfReport {
        corners: corners.len(),
        triangles: mesh.triangle_count(),
        morph_targets: frame_count,
        animations: keys.len(),
        materials: materials.len(),
        json_bytes: json_padded,
        bin_bytes,
        quantization: report_q,
    };
    Ok(GltfExport { glb, report })
}

/// The asset description every export writes.
pub(super) fn asset() -> json::Asset {
    json::Asset {
        copyright: None,
        extensions: None,
        extras: None,
        generator: Some(format!("md2-wgpu {}", env!("CARGO_PKG_VERSION"))),
        min_version: None,
        version: "2.0".into(),
    }
}

/// The finished document (its buffer in) as GLB bytes, refused where it
/// is larger than `limit`; with its padded JSON chunk's size.
pub(super) fn finish_glb(b: Builder, limit: u64) -> Result<(Vec<u8>, usize), GltfError> {
    let json_bytes = json::serialize::to_vec(&b.root).map_err(|e| GltfError::Write {
        reason: e.to_string(),
    })?;
    let json_padded = json_bytes.len().next_multiple_of(4);
    let total = GLB_HEADERS
        .saturating_add(json_padded as u64)
        .saturating_add(b.bin.len() as u64);
    if total > limit {
        return Err(GltfError::TooLarge { size: total, limit });
    }
    let glb = ::gltf::binary::Glb {
        header: ::gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            // Below the limit, itself at most u32::MAX.
            length: total as u32,
        },
        json: Cow::Owned(json_bytes),
        bin: Some(Cow::Owned(b.bin)),
    }
    .to_vec()
    .map_err(|e| GltfError::Write {
        reason: e.to_string(),
    })?;
    Ok((glb, json_padded))
}

/// Refuses a base frame past the model's frames and a scale that is not a
/// positive number.
pub(super) fn check_options(options: &GltfOptions, frame_count: u32) -> Result<(), GltfError> {
    if options.base_frame >= frame_count {
        return Err(GltfError::BaseFrameOutOfRange {
            frame: options.base_frame,
            frame_count,
        });
    }
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return Err(GltfError::InvalidScale {
            scale: options.scale,
        });
    }
    Ok(())
}

/// The mesh (its morph targets named after the frames), the node that
/// holds it (placing the grid of quantised positions) and the scene: the
/// node, for the animations.
fn write_scene(
    b: &mut Builder,
    model: &KeyframeModel,
    primitive: Primitive,
    name: String,
    grid: Option<Grid>,
) -> Result<json::Index<json::Node>, GltfError> {
    let target_names: Vec<String> = model.frames().iter().map(|f| f.name()).collect();
    let mesh_extras = raw(&serde_json::json!({ "targetNames": target_names }))?;
    let gltf_mesh = b.root.push(json::Mesh {
        extensions: None,
        extras: Some(mesh_extras),
        name: Some(name.clone()),
        primitives: vec![primitive],
        weights: None,
    });
    let node = b.root.push(json::Node {
        mesh: Some(gltf_mesh),
        name: Some(name.clone()),
        // Quantised positions are grid coordinates: the node places the grid.
        translation: grid.map(|g| g.centre),
        scale: grid.map(|g| [g.step; 3]),
        ..Default::default()
    });
    let scene = b.root.push(json::Scene {
        extensions: None,
        extras: None,
        name: Some(name),
        nodes: vec![node],
    });
    b.root.scene = Some(scene);
    Ok(node)
}

/// With several skins, the primitive's `KHR_materials_variants` mapping:
/// variant `i` is material `i`.
fn variant_mappings(
    materials: &[json::Index<json::Material>],
) -> Option<json::extensions::mesh::Primitive> {
    // The extension structs gain an `others` map where another crate in the
    // build turns on gltf's `extensions` feature: the update fills it then.
    #[allow(clippy::needless_update)]
    (materials.len() > 1).then(|| json::extensions::mesh::Primitive {
        khr_materials_variants: Some(json::extensions::mesh::KhrMaterialsVariants {
            mappings: materials
                .iter()
                .enumerate()
                .map(|(i, m)| json::extensions::mesh::Mapping {
                    material: m.value() as u32,
                    variants: vec![i as u32],
                })
                .collect(),
        }),
        ..Default::default()
    })
}

/// The root's `KHR_materials_variants`: a variant per skin, by its name.
fn variants(skins: &[materials::EncodedSkin]) -> json::extensions::root::Root {
    // As for the primitive's extension above.
    #[allow(clippy::needless_update)]
    json::extensions::root::Root {
        khr_materials_variants: Some(json::extensions::root::KhrMaterialsVariants {
            variants: skins
                .iter()
                .map(
                    |s| json::extensions::scene::khr_materials_variants::Variant {
                        name: s.name.clone(),
                    },
                )
                .collect(),
        }),
        ..Default::default()
    }
}

/// Extras as glTF-JSON holds them.
pub(super) fn raw(
    value: &serde_json::Value,
) -> Result<Box<serde_json::value::RawValue>, GltfError> {
    serde_json::value::to_raw_value(value).map_err(|e| GltfError::Write {
        reason: e.to_string(),
    })
}

/// Whether the corners are few enough for 16-bit indices (65,535 itself
/// is the primitive-restart value, which no index may take).
fn short_indices(mesh: &RenderMesh) -> bool {
    mesh.corners().len() <= usize::from(u16::MAX)
}

/// Exactly the bytes of the binary chunk, from what the survey found.
fn bin_size(
    mesh: &RenderMesh,
    survey: &Survey,
    quantize: bool,
    keys: &[Keys],
    skins: &[EncodedSkin],
) -> u64 {
    let corners = mesh.corners().len() as u64;
    let frames = survey.normals_fit_unit.len() as u64;
    let index_size = if short_indices(mesh) { 2 } else { 4 };
    let position = if quantize { 8 } else { 12 };
    let indices = (mesh.indices().len() as u64 * index_size).next_multiple_of(4);
    let base = corners * (position + 12 + 8);
    let target_positions = frames.saturating_mul(corners).saturating_mul(position);
    let short_normals = if quantize {
        survey.normals_fit_unit.iter().filter(|&&f| f).count() as u64
    } else {
        0
    };
    let target_normals = corners.saturating_mul(short_normals * 8 + (frames - short_normals) * 12);
    let animations = animation::bin_size(keys, frames as u32);
    let images: u64 = skins
        .iter()
        .filter_map(|s| s.png.as_ref())
        .map(|png| (png.len() as u64).next_multiple_of(4))
        .sum();
    [
        indices,
        base,
        target_positions,
        target_normals,
        animations,
        images,
    ]
    .into_iter()
    .fold(0u64, u64::saturating_add)
}

/// The triangle list, each triangle's winding reversed: MD2 triangles run
/// clockwise seen from outside, glTF's front faces counter-clockwise.
fn write_indices(b: &mut Builder, mesh: &RenderMesh) -> Index<Accessor> {
    let triangles = mesh.indices().chunks_exact(3).map(|t| [t[0], t[1], t[2]]);
    b.reversed_triangles(triangles, mesh.indices().len(), short_indices(mesh))
}

type Attributes = BTreeMap<Checked<Semantic>, Index<Accessor>>;

/// The base's normals and texture coordinates (the same in both forms).
fn normals_and_uvs(
    b: &mut Builder,
    mesh: &RenderMesh,
    survey: &Survey,
    attributes: &mut Attributes,
) {
    let n = mesh.corners().len();
    let view = b.view(None, Some(ViewTarget::ArrayBuffer), |bin| {
        put_f32s(bin, survey.base.normals.as_flattened())
    });
    let normals = b.accessor(AccessorSpec::dense(
        view,
        0,
        n,
        ComponentType::F32,
        Type::Vec3,
    ));
    // The crate's texture coordinates as they are: (st + 0.5) / skin size,
    // origin at the image's top-left, which is glTF's origin too.
    let view = b.view(None, Some(ViewTarget::ArrayBuffer), |bin| {
        for c in mesh.corners() {
            put_f32s(bin, &c.uv);
        }
    });
    let uvs = b.accessor(AccessorSpec::dense(
        view,
        0,
        n,
        ComponentType::F32,
        Type::Vec2,
    ));
    attributes.insert(Checked::Valid(Semantic::Normals), normals);
    attributes.insert(Checked::Valid(Semantic::TexCoords(0)), uvs);
}

/// Float positions and normals: the base, and each frame's differences
/// from it.
fn float_frames(
    b: &mut Builder,
    mesh: &RenderMesh,
    frames: &CornerFrames<'_>,
    survey: &Survey,
) -> Result<(Attributes, Vec<MorphTarget>), GltfError> {
    let n = mesh.corners().len();
    let frame_count = survey.normals_fit_unit.len() as u32;
    let mut attributes = Attributes::new();
    let view = b.view(None, Some(ViewTarget::ArrayBuffer), |bin| {
        put_f32s(bin, survey.base.positions.as_flattened())
    });
    let positions = b.accessor(
        AccessorSpec::dense(view, 0, n, ComponentType::F32, Type::Vec3).bounds(
            float_bounds(&survey.base_min),
            float_bounds(&survey.base_max),
        ),
    );
    attributes.insert(Checked::Valid(Semantic::Positions), positions);
    normals_and_uvs(b, mesh, survey, &mut attributes);

    let mut bounds = Vec::with_capacity(frame_count as usize);
    let mut frame = CornerFrame::default();
    let mut delta = Vec::with_capacity(n);
    let positions_view = b.view_with(Some(12), Some(ViewTarget::ArrayBuffer), |bin| {
        for f in 0..frame_count {
            frames.decode(f, &mut frame)?;
            delta.clear();
            delta.extend(
                frame
                    .positions
                    .iter()
                    .zip(&survey.base.positions)
                    .map(|(p, q)| [p[0] - q[0], p[1] - q[1], p[2] - q[2]]),
            );
            bounds.push(Bounds::around(&delta));
            put_f32s(bin, delta.as_flattened());
        }
        Ok(())
    })?;
    let normals_view = b.view_with(Some(12), Some(ViewTarget::ArrayBuffer), |bin| {
        for f in 0..frame_count {
            frames.decode(f, &mut frame)?;
            for (m, q) in frame.normals.iter().zip(&survey.base.normals) {
                put_f32s(bin, &[m[0] - q[0], m[1] - q[1], m[2] - q[2]]);
            }
        }
        Ok(())
    })?;
    let targets = bounds
        .into_iter()
        .enumerate()
        .map(|(f, Bounds { min, max })| {
            let offset = f * n * 12;
            let positions = b.accessor(
                AccessorSpec::dense(positions_view, offset, n, ComponentType::F32, Type::Vec3)
                    .bounds(float_bounds(&min), float_bounds(&max)),
            );
            let normals = b.accessor(AccessorSpec::dense(
                normals_view,
                offset,
                n,
                ComponentType::F32,
                Type::Vec3,
            ));
            MorphTarget {
                positions: Some(positions),
                normals: Some(normals),
                tangents: None,
            }
        })
        .collect();
    Ok((attributes, targets))
}

/// Quantised positions (grid coordinates, `SHORT`, padded to 8 bytes) and
/// normal deltas (normalised `SHORT` where every component fits in ±1,
/// float otherwise), with the largest errors they make.
fn quantized_frames(
    b: &mut Builder,
    mesh: &RenderMesh,
    frames: &CornerFrames<'_>,
    survey: &Survey,
    grid: Grid,
) -> Result<(Attributes, Vec<MorphTarget>, QuantizationReport), GltfError> {
    let n = mesh.corners().len();
    let frame_count = survey.normals_fit_unit.len() as u32;
    let mut attributes = Attributes::new();
    let base_q: Vec<[i32; 3]> = survey
        .base
        .positions
        .iter()
        .map(|&p| grid.quantize(p))
        .collect();
    let (base_min, base_max) = int_min_max(&base_q);
    let view = b.view(Some(8), Some(ViewTarget::ArrayBuffer), |bin| {
        for q in &base_q {
            put_i16s(bin, &[short(q[0]), short(q[1]), short(q[2]), 0]);
        }
    });
    let positions = b.accessor(
        AccessorSpec::dense(view, 0, n, ComponentType::I16, Type::Vec3)
            .bounds(int_bounds(&base_min), int_bounds(&base_max)),
    );
    attributes.insert(Checked::Valid(Semantic::Positions), positions);
    normals_and_uvs(b, mesh, survey, &mut attributes);

    let mut max_position_error = 0f64;
    let mut max_normal_error = 0f64;
    let mut bounds = Vec::with_capacity(frame_count as usize);
    let mut frame = CornerFrame::default();
    let mut delta = Vec::with_capacity(n);
    let positions_view = b.view_with(Some(8), Some(ViewTarget::ArrayBuffer), |bin| {
        for f in 0..frame_count {
            frames.decode(f, &mut frame)?;
            delta.clear();
            for (p, q0) in frame.positions.iter().zip(&base_q) {
                let q = grid.quantize(*p);
                let d = [q[0] - q0[0], q[1] - q0[1], q[2] - q0[2]].map(|x| i32::from(short(x)));
                let stored = grid.position([q0[0] + d[0], q0[1] + d[1], q0[2] + d[2]]);
                max_position_error = max_position_error.max(distance(stored, p.map(f64::from)));
                delta.push(d);
            }
            bounds.push(int_min_max(&delta));
            for d in &delta {
                put_i16s(bin, &[short(d[0]), short(d[1]), short(d[2]), 0]);
            }
        }
        Ok(())
    })?;
    // Normal deltas: two views, one per form, each frame in the one it fits.
    let mut normal_slot = vec![(0usize, false); frame_count as usize];
    let mut write_normals = |b: &mut Builder, as_short: bool| {
        let stride = if as_short { 8 } else { 12 };
        let mut slot = 0;
        // A view may not be empty: a form no frame takes gets none.
        if !survey.normals_fit_unit.contains(&as_short) {
            return Ok(None);
        }
        b.view_with(Some(stride), Some(ViewTarget::ArrayBuffer), |bin| {
            for f in 0..frame_count {
                if survey.normals_fit_unit[f as usize] != as_short {
                    continue;
                }
                frames.decode(f, &mut frame)?;
                for (m, q) in frame.normals.iter().zip(&survey.base.normals) {
                    let d = [m[0] - q[0], m[1] - q[1], m[2] - q[2]];
                    let stored: [f64; 3] = if as_short {
                        let s = d.map(unit_short);
                        put_i16s(bin, &[s[0], s[1], s[2], 0]);
                        std::array::from_fn(|k| f64::from(q[k]) + f64::from(s[k]) / SHORT_UNIT)
                    } else {
                        put_f32s(bin, &d);
                        std::array::from_fn(|k| f64::from(q[k]) + f64::from(d[k]))
                    };
                    max_normal_error = max_normal_error.max(distance(stored, m.map(f64::from)));
                }
                normal_slot[f as usize] = (slot * n * stride, as_short);
                slot += 1;
            }
            Ok::<(), GltfError>(())
        })
        .map(Some)
    };
    let short_view = write_normals(b, true)?;
    let float_view = write_normals(b, false)?;
    let float_normal_targets = survey.normals_fit_unit.iter().filter(|&&f| !f).count() as u32;

    let targets = bounds
        .into_iter()
        .enumerate()
        .map(|(f, (min, max))| {
            let positions = b.accessor(
                AccessorSpec::dense(positions_view, f * n * 8, n, ComponentType::I16, Type::Vec3)
                    .bounds(int_bounds(&min), int_bounds(&max)),
            );
            let (offset, as_short) = normal_slot[f];
            // Each frame went into the view of its form, which therefore exists.
            let view = if as_short { short_view } else { float_view };
            let normals = b.accessor(AccessorSpec {
                normalized: as_short,
                view,
                ..AccessorSpec::dense(
                    Index::new(0),
                    offset,
                    n,
                    if as_short {
                        ComponentType::I16
                    } else {
                        ComponentType::F32
                    },
                    Type::Vec3,
                )
            });
            MorphTarget {
                positions: Some(positions),
                normals: Some(normals),
                tangents: None,
            }
        })
        .collect();
    let report = QuantizationReport {
        step: grid.step,
        centre: grid.centre,
        max_position_error: round_up(max_position_error),
        max_normal_error: round_up(max_normal_error),
        float_normal_targets,
    };
    Ok((attributes, targets, report))
}

/// `x` as the nearest `f32` not below it, so a bound stays a bound.
fn round_up(x: f64) -> f32 {
    let y = x as f32;
    if f64::from(y) < x { y.next_up() } else { y }
}

/// The smallest and largest of each component.
fn int_min_max(values: &[[i32; 3]]) -> ([i32; 3], [i32; 3]) {
    let mut min = [i32::MAX; 3];
    let mut max = [i32::MIN; 3];
    for v in values {
        for k in 0..3 {
            min[k] = min[k].min(v[k]);
            max[k] = max[k].max(v[k]);
        }
    }
    (min, max)
}
