//! md2info on an MDL: the summary, the JSON and the OBJ of a pose.

use std::fmt::Write as _;

use md2_wgpu::format::mdl::{MdlModel, MdlSkin};

use super::{fields_json, number, obj_vertices, write_fields, write_warnings};

/// The header's fields by their names in Quake's sources.
fn header_fields(model: &MdlModel) -> Vec<(&'static str, serde_json::Value)> {
    let h = model.header();
    vec![
        (
            "ident",
            String::from_utf8_lossy(&h.ident).into_owned().into(),
        ),
        ("version", h.version.into()),
        ("scale", h.scale.to_vec().into()),
        ("scale_origin", h.translate.to_vec().into()),
        ("boundingradius", h.bounding_radius.into()),
        ("eyeposition", h.eye_position.to_vec().into()),
        ("numskins", h.num_skins.into()),
        ("skinwidth", h.skin_width.into()),
        ("skinheight", h.skin_height.into()),
        ("numverts", h.num_verts.into()),
        ("numtris", h.num_tris.into()),
        ("numframes", h.num_frames.into()),
        ("synctype", h.sync_type.into()),
        ("flags", h.flags.into()),
        ("size", h.size.into()),
    ]
}

/// A skin as words: one image, or a group and its intervals.
fn skin_text(skin: &MdlSkin) -> String {
    match skin {
        MdlSkin::Single(_) => "one image".into(),
        MdlSkin::Group { intervals, .. } => {
            format!(
                "a group of {} images, intervals {intervals:?} s",
                intervals.len()
            )
        }
    }
}

/// The readable summary: the header, skins, frames and their groups, the
/// animations with the rate each clip plays at, the warnings; and the
/// palette `palette` names.
pub fn summary(model: &MdlModel, name: &str, palette: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{name} (Quake I MDL)");
    write_fields(&mut s, header_fields(model), 14);
    let (w, h) = model.skin_size();
    let groups = model
        .file_frames()
        .iter()
        .filter(|f| f.group.is_some())
        .count();
    let _ = writeln!(
        s,
        "mesh: {} vertices, {} triangles ({} welded corners), {} frames ({groups} groups, {} poses), skin {w}x{h}",
        model.vertex_count(),
        model.triangle_count(),
        model.corners().len(),
        model.file_frames().len(),
        model.frame_count(),
    );
    let _ = writeln!(s, "skins: {} (palette: {palette})", model.skins().len());
    for (i, skin) in model.skins().iter().enumerate() {
        let _ = writeln!(s, "  {i}: {}", skin_text(skin));
    }
    let clips = model.clips();
    let _ = writeln!(s, "animations: {}", model.animations().len());
    let width = model
        .animations()
        .iter()
        .map(|a| a.name.len())
        .max()
        .unwrap_or(0);
    for (a, clip) in model.animations().iter().zip(&clips) {
        let group = model
            .file_frames()
            .iter()
            .find(|f| f.first == a.first && f.group.is_some())
            .and_then(|f| f.group.as_ref());
        let kind = match group {
            Some(g) => format!("a frame group, intervals {:?} s", g.intervals),
            None => format!("{} frame{}", a.len(), if a.len() == 1 { "" } else { "s" }),
        };
        let fps = number(clip.fps);
        let _ = writeln!(
            s,
            "  {:<width$}  poses {:>3}..{:<3}  ({kind}; plays at {fps} a second)",
            a.name, a.first, a.last
        );
    }
    write_warnings(&mut s, model.warnings());
    s
}

/// The JSON object of `--json`: `format` "MDL", `header`, `skins` (each
/// `{images, intervals}`), `frames` (each `{first, count, intervals}`,
/// intervals empty for a single frame), `poses` (names), `animations`
/// (`{name, first, last, fps}`) and `warnings`.
pub fn json(model: &MdlModel) -> serde_json::Value {
    let header = fields_json(header_fields(model));
    let clips = model.clips();
    serde_json::json!({
        "format": "MDL",
        "header": header,
        "skins": model.skins().iter().map(|s| serde_json::json!({
            "images": s.images().len(),
            "intervals": s.intervals(),
        })).collect::<Vec<_>>(),
        "frames": model.file_frames().iter().map(|f| serde_json::json!({
            "first": f.first,
            "count": f.count,
            "intervals": f.group.as_ref().map(|g| g.intervals.clone()).unwrap_or_default(),
        })).collect::<Vec<_>>(),
        "poses": model.frames().iter().map(|f| f.name()).collect::<Vec<_>>(),
        "animations": model.animations().iter().zip(&clips).map(|(a, c)| serde_json::json!({
            "name": a.name, "first": a.first, "last": a.last, "fps": c.fps,
        })).collect::<Vec<_>>(),
        "warnings": model.warnings().iter().map(|w| w.to_string()).collect::<Vec<_>>(),
    })
}

/// Pose `pose` as Wavefront OBJ: `v` and `vn` per vertex, `vt` per welded
/// corner (the seam rule applied), `f v/vt/vn` per triangle,
/// counter-clockwise seen from outside.
pub fn obj(model: &MdlModel, pose: u32, name: &str) -> Result<String, String> {
    let mut s = obj_vertices(model, "pose", pose, name)?;
    for c in model.corners() {
        let _ = writeln!(s, "vt {} {}", c.uv[0], 1.0 - c.uv[1]);
    }
    for t in model.indices().chunks_exact(3) {
        let corner = |k: usize| {
            let c = t[k] as usize;
            let v = model.corners()[c].xyz as usize + 1;
            format!("{v}/{}/{v}", c + 1)
        };
        let _ = writeln!(s, "f {} {} {}", corner(0), corner(2), corner(1));
    }
    Ok(s)
}
