//! md2info: what an MD2 file holds.
//!
//! ```text
//! cargo run --example md2info -- FILE [--json] [--obj FRAME]
//! ```
//!
//! - no option: a readable summary (header, skins, animations with their
//!   frame ranges, warnings);
//! - `--json`: one JSON object with the keys `header` (the 17 fields by their
//!   conventional names, `ident` as a string), `skins`, `frames`,
//!   `animations` (`{name, first, last}`) and `warnings`;
//! - `--obj FRAME`: frame FRAME (0-based) as Wavefront OBJ on stdout.
//!
//! Exits 0 on success, and 1 with one message on stderr for bad arguments or
//! a file that does not load.
//!
//! # OBJ faces
//!
//! MD2 triangles are clockwise seen from outside: on yohko/tris.md2, 767 of
//! 772 triangles have a right-hand-rule normal pointing against their stored
//! vertex normals (tests/format_real.rs checks this on the real files). OBJ
//! faces are counter-clockwise seen from outside, so each `f` line lists its
//! triangle's corners in reverse (0, 2, 1); the positions keep Quake's axes
//! (X forward, Y left, Z up: right-handed, like OBJ).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use md2_wgpu::Md2Model;

const USAGE: &str = "usage: md2info FILE [--json] [--obj FRAME]";

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Output {
    /// The readable summary.
    Summary,
    /// One JSON object.
    Json,
    /// One frame as Wavefront OBJ.
    Obj(u32),
}

/// The parsed command line.
#[derive(Debug, PartialEq)]
pub struct Args {
    /// The MD2 file.
    pub file: PathBuf,
    /// What to print.
    pub output: Output,
}

/// `None` for `--help`.
pub fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Option<Args>, String> {
    let mut file = None;
    let mut output = Output::Summary;
    let mut args = args.into_iter();
    let set = |new: Output, output: &mut Output| {
        if *output != Output::Summary {
            return Err(format!("--json and --obj exclude each other ({USAGE})"));
        }
        *output = new;
        Ok(())
    };
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(None),
            Some("--json") => set(Output::Json, &mut output)?,
            Some("--obj") => {
                let frame = args
                    .next()
                    .ok_or_else(|| format!("--obj needs a frame number ({USAGE})"))?;
                let frame = frame.to_str().and_then(|f| f.parse().ok()).ok_or_else(|| {
                    format!(
                        "--obj needs a frame number (0, 1, ...), not {:?} ({USAGE})",
                        frame.to_string_lossy()
                    )
                })?;
                set(Output::Obj(frame), &mut output)?;
            }
            Some(flag) if flag.starts_with('-') && flag.len() > 1 => {
                return Err(format!("unknown option {flag} ({USAGE})"));
            }
            _ if file.is_some() => {
                return Err(format!(
                    "one file at a time, not also {:?} ({USAGE})",
                    arg.to_string_lossy()
                ));
            }
            _ => file = Some(PathBuf::from(arg)),
        }
    }
    let file = file.ok_or_else(|| format!("no file given ({USAGE})"))?;
    Ok(Some(Args { file, output }))
}

/// Runs md2info on `args` (without the program name), writing to `out`.
/// An error is the one message for stderr.
pub fn run(
    args: impl IntoIterator<Item = OsString>,
    out: &mut dyn std::io::Write,
) -> Result<(), String> {
    let Some(args) = parse_args(args)? else {
        return writeln!(out, "{USAGE}").map_err(|e| format!("cannot write: {e}"));
    };
    // The error names the file.
    let model = Md2Model::open(&args.file).map_err(|e| e.to_string())?;
    let text = match args.output {
        Output::Summary => summary(&model, &args.file.display().to_string()),
        Output::Json => {
            let mut s = serde_json::to_string_pretty(&json(&model))
                .map_err(|e| format!("cannot write JSON: {e}"))?;
            s.push('\n');
            s
        }
        Output::Obj(frame) => obj(&model, frame, &args.file.display().to_string())?,
    };
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write: {e}"))
}

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
        model.vertex_count(),
        model.tex_coords().len(),
        model.triangles().len(),
        model.frame_count(),
        model.glcmds().len(),
    );
    let _ = writeln!(s, "skins: {}", model.skins().len());
    for (i, skin) in model.skins().iter().enumerate() {
        let _ = writeln!(s, "  {i}: {}", skin.name());
    }
    let anims = model.animations();
    let _ = writeln!(s, "animations: {}", anims.len());
    let width = anims.iter().map(|a| a.name.len()).max().unwrap_or(0);
    for a in anims {
        let frame_name = |i: u32| model.frames()[i as usize].name();
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
    let _ = writeln!(s, "warnings: {}", model.warnings().len());
    for w in model.warnings() {
        let _ = writeln!(s, "  {w}");
    }
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
        "frames": model.frames().iter().map(|f| f.name()).collect::<Vec<_>>(),
        "animations": model
            .animations()
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
    let Some(f) = model.frames().get(frame as usize) else {
        return Err(format!(
            "{name}: no frame {frame}: the model has {} frames (0..={})",
            model.frame_count(),
            model.frame_count() - 1
        ));
    };
    let verts = model.frame_vertices(frame);
    let (w, h) = model.skin_size();
    let mut s = String::new();
    let _ = writeln!(s, "# md2info: {name}, frame {frame} ({:?})", f.name());
    let _ = writeln!(s, "# Quake axes: X forward, Y left, Z up; model units");
    let _ = writeln!(s, "o {}", sanitize(&f.name()));
    for v in verts {
        let [x, y, z] = v.decode_position(f);
        let _ = writeln!(s, "v {x} {y} {z}");
    }
    for v in verts {
        let [x, y, z] = v.normal();
        let _ = writeln!(s, "vn {x} {y} {z}");
    }
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

/// An OBJ object name: one word, printable.
fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { '_' })
        .collect();
    if s.is_empty() { "frame".into() } else { s }
}

fn main() {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Err(message) = run(std::env::args_os().skip(1), &mut out) {
        let _ = writeln!(std::io::stderr(), "md2info: {message}");
        std::process::exit(1);
    }
}
