//! md2info on an MD2: the summary, the JSON and the OBJ of a frame.

use std::fmt::Write as _;

use md2_wgpu::Md2Model;

use super::{obj_vertices, write_warnings};

/// The readable summary.
pub fn summary(model: &Md2Model, name: &str) -> String {
    let h = model.header();
    let mut s = String::new();
    let _ = writeln!(s, "{name}");
    let _ = writeln!(s, "header:");
    for (field, value) in h.fields() {
        if field == "ident" {
            let _ = writeln!(s, "  {field:<11} {}", String::from_utf8_lossy(&h.ident));
        } else {
            let _ = writeln!(s, "  {field:<11} {value}");
        }
    }
    let (w, hh) = model.skin_size();
    let _ = writeln!(
        s,
        "mesh: {} vertices, {} texture coordinates, {} triangles, {} frames, {} glcmds, skin {w}x{hh}",
        model.keyframes().vertex_count(),
        model.tex_coords().len(),
        model.triangles().len(),
        model.keyframes().frame_count(),
        model.glcmds().len(),
    );
    let _ = writeln!(s, "skins: {}", model.skins().len());
    for (i, skin) in model.skins().iter().enumerate() {
        let _ = writeln!(s, "  {i}: {}", skin.name());
    }
    let anims = model.keyframes().animations();
    let _ = writeln!(s, "animations: {}", anims.len());
    let width = anims.iter().map(|a| a.name.len()).max().unwrap_or(0);
    for a in anims {
        let frame_name = |i: u32| model.keyframes().frames()[i as usize].name();
        let names = if a.len() == 1 {
            frame_name(a.first)
        } else {
            format!("{} .. {}", frame_name(a.first), frame_name(a.last))
        };
        let _ = writeln!(
            s,
            "  {:<width$}  frames {:>3}..{:<3}  ({} frame{}: {names})",
            a.name,
            a.first,
            a.last,
            a.len(),
            if a.len() == 1 { "" } else { "s" },
        );
    }
    write_warnings(&mut s, model.warnings());
    s
}

/// The JSON object of `--json`.
pub fn json(model: &Md2Model) -> serde_json::Value {
    let h = model.header();
    let mut header = serde_json::Map::new();
    for (field, value) in h.fields() {
        let v = if field == "ident" {
            String::from_utf8_lossy(&h.ident).into_owned().into()
        } else {
            value.into()
        };
        header.insert(field.to_string(), v);
    }
    serde_json::json!({
        "header": header,
        "skins": model.skins().iter().map(|s| s.name()).collect::<Vec<_>>(),
        "frames": model.keyframes().frames().iter().map(|f| f.name()).collect::<Vec<_>>(),
        "animations": model
            .keyframes().animations()
            .iter()
            .map(|a| serde_json::json!({"name": a.name, "first": a.first, "last": a.last}))
            .collect::<Vec<_>>(),
        "warnings": model.warnings().iter().map(|w| w.to_string()).collect::<Vec<_>>(),
    })
}

/// One frame as Wavefront OBJ: `v` per vertex (model units, Quake axes),
/// `vn` per vertex from the normal table, `vt` per texture coordinate,
/// `f v/vt/vn` per triangle, counter-clockwise seen from outside.
pub fn obj(model: &Md2Model, frame: u32, name: &str) -> Result<String, String> {
    let mut s = obj_vertices(model.keyframes(), "frame", frame, name)?;
    let (w, h) = model.skin_size();
    for st in model.tex_coords() {
        let u = (st.s as f32 + 0.5) / w as f32;
        let v = 1.0 - (st.t as f32 + 0.5) / h as f32;
        let _ = writeln!(s, "vt {u} {v}");
    }
    for tri in model.triangles() {
        // Reversed: MD2 is clockwise seen from outside, OBJ counter-clockwise.
        let corner = |k: usize| {
            let (v, t) = (tri.xyz[k] as usize + 1, tri.st[k] as usize + 1);
            format!("{v}/{t}/{v}")
        };
        let _ = writeln!(s, "f {} {} {}", corner(0), corner(2), corner(1));
    }
    Ok(s)
}
