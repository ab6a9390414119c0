//! md2info: what a Quake model file holds, MD2 (Quake II) or MDL (Quake I),
//! told apart by its ident.
//!
//! ```text
//! cargo run --bin md2info -- FILE [--json] [--obj FRAME] [--palette PATH]
//! cargo run --bin md2info -- FILE --gltf OUT.glb [--skin PATH] [--quantize] [--step] [--scale S]
//! cargo run --bin md2info -- FILE --convert OUT.mdl|OUT.md2 [--palette PATH]
//! cargo run --release --bin md2info -- FILE --levels OUT.md2l
//! cargo run --bin md2info -- --demo OUT.md2|OUT.mdl
//! ```
//!
//! - `--demo OUT`: writes the crate's built-in demo model to OUT, as an MD2
//!   or (by the extension) as an MDL (`md2_wgpu::demo::demo_mdl`): a file to
//!   try the viewer, the crowd or md2info on;
//!
//! - no option: a readable summary (header, skins, animations with their
//!   frame ranges, warnings; for an MDL its frame and skin groups with
//!   their intervals, the rate each clip plays at, and the palette);
//! - `--json`: one JSON object. For an MD2 the keys `header` (the 17 fields
//!   by their conventional names, `ident` as a string), `skins`, `frames`,
//!   `animations` (`{name, first, last}`) and `warnings`; for an MDL
//!   `format` ("MDL"), `header` (Quake's field names), `skins`
//!   (`{images, intervals}`), `frames` (`{first, count, intervals}`),
//!   `poses`, `animations` (`{name, first, last, fps}`) and `warnings`;
//! - `--obj FRAME`: frame FRAME (0-based; an MDL's pose) as Wavefront OBJ on
//!   stdout;
//! - `--convert OUT`: the model in the other format, by OUT's extension. An
//!   MD2 becomes an MDL on one grid for every frame (the position error
//!   that costs is printed) with its skins in the palette's colours; an MDL
//!   becomes an MD2 with exact positions and its skins written as
//!   `OUT_<i>.png` beside it. What is lost (groups' intervals, flags) is
//!   printed. `--palette PATH` names the palette (else `palette.lmp`
//!   beside the model or in the game's `gfx/`, else the crate's built-in
//!   one); it applies to an MDL's skins everywhere;
//! - `--gltf OUT.glb`: the model as binary glTF 2.0 with every frame a morph
//!   target and every animation a glTF animation (see `md2_wgpu::gltf`),
//!   and on stdout what was written and its size against the MD2's. The
//!   skins are the model's own, found as the viewer finds them, or the one
//!   image `--skin` names; `--quantize` stores positions as 16-bit integers
//!   (`KHR_mesh_quantization`) and prints the error that makes and the size
//!   saved against the float export; `--step` holds each frame instead of
//!   blending; `--scale S` multiplies every position (0.03125 gives metres,
//!   a Quake II player 1.75 m tall).
//! - `--levels OUT`: the model's levels of detail, built as
//!   `GpuModelOptions::WITH_LEVELS` builds them (the default options, over
//!   the mesh in vertex-cache order), saved with `Levels::to_bytes`, so an
//!   app loads them (`Levels::from_bytes(&bytes, &model, gpu_model.mesh())`,
//!   then `GpuModel::set_levels`, or `ModelData::with_levels`) instead of
//!   building them at start-up; on stdout each level and the build time.
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

mod convert;
mod export;
mod md2;
mod mdl;

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use md2_wgpu::QuakeModel;
use md2_wgpu::model::KeyframeModel;

pub use export::{palette_for, write_gltf, write_levels};
pub use md2::{json, obj, summary};

const USAGE: &str = "usage: md2info FILE [--json] [--obj FRAME] [--palette PATH] | \
                     md2info FILE --gltf OUT.glb [--skin PATH] [--quantize] [--step] [--scale S] | \
                     md2info FILE --convert OUT.mdl|OUT.md2 [--palette PATH] | \
                     md2info FILE --levels OUT | md2info --demo OUT.md2|OUT.mdl";

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Output {
    /// The readable summary.
    Summary,
    /// One JSON object.
    Json,
    /// One frame as Wavefront OBJ.
    Obj(u32),
    /// The model as a GLB file.
    Gltf(GltfArgs),
    /// The model's levels of detail, saved.
    Levels(PathBuf),
    /// The model in the other format.
    Convert(PathBuf),
    /// The built-in demo model, written (no FILE).
    Demo(PathBuf),
}

/// What `--gltf` writes.
#[derive(Debug, PartialEq)]
pub struct GltfArgs {
    /// The GLB file to write.
    pub out: PathBuf,
    /// The one skin to embed, instead of the model's own.
    pub skin: Option<PathBuf>,
    /// Quantised positions.
    pub quantize: bool,
    /// Held keys instead of blended ones.
    pub step: bool,
    /// Output units per model unit.
    pub scale: f32,
}

/// The parsed command line.
#[derive(Debug, PartialEq)]
pub struct Args {
    /// The model file.
    pub file: PathBuf,
    /// What to print.
    pub output: Output,
    /// The palette for an MDL's skins (`--palette`).
    pub palette: Option<PathBuf>,
}

/// `None` for `--help`.
pub fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Option<Args>, String> {
    let mut file = None;
    let mut output = Output::Summary;
    let mut args = args.into_iter();
    let set = |new: Output, output: &mut Output| {
        if *output != Output::Summary {
            return Err(format!(
                "--json, --obj, --gltf, --convert and --levels exclude each other ({USAGE})"
            ));
        }
        *output = new;
        Ok(())
    };
    // The --gltf options, and the first of them seen (they need --gltf).
    let mut skin = None;
    let mut palette = None;
    let (mut quantize, mut step, mut scale) = (false, false, 1.0f32);
    let mut gltf_option = None;
    while let Some(arg) = args.next() {
        // The option's value, the next argument; `what` it is, for the
        // error without one.
        let mut value = |what: &str| {
            args.next()
                .ok_or_else(|| format!("{} needs {what} ({USAGE})", arg.to_string_lossy()))
        };
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(None),
            Some("--json") => set(Output::Json, &mut output)?,
            Some("--gltf") => {
                let gltf = GltfArgs {
                    out: PathBuf::from(value("an output file")?),
                    skin: None,
                    quantize: false,
                    step: false,
                    scale: 1.0,
                };
                set(Output::Gltf(gltf), &mut output)?;
            }
            Some("--levels") => {
                let out = PathBuf::from(value("an output file")?);
                set(Output::Levels(out), &mut output)?;
            }
            Some("--convert") => {
                let out = PathBuf::from(value("an output file")?);
                set(Output::Convert(out), &mut output)?;
            }
            Some("--demo") => {
                let out = PathBuf::from(value("an output file")?);
                set(Output::Demo(out), &mut output)?;
            }
            Some("--palette") => palette = Some(PathBuf::from(value("a palette.lmp")?)),
            Some("--skin") => {
                skin = Some(PathBuf::from(value("an image file")?));
                gltf_option.get_or_insert("--skin");
            }
            Some("--quantize") => {
                quantize = true;
                gltf_option.get_or_insert("--quantize");
            }
            Some("--step") => {
                step = true;
                gltf_option.get_or_insert("--step");
            }
            Some("--scale") => {
                let s = value("a number")?;
                scale = s
                    .to_str()
                    .and_then(|s| s.parse::<f32>().ok())
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| {
                        format!(
                            "--scale needs a positive number (0.03125 for metres), not {:?} ({USAGE})",
                            s.to_string_lossy()
                        )
                    })?;
                gltf_option.get_or_insert("--scale");
            }
            Some("--obj") => {
                let frame = value("a frame number")?;
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
    if let Output::Demo(_) = output {
        if let Some(file) = file {
            return Err(format!(
                "--demo writes the demo; no FILE ({}) with it ({USAGE})",
                file.display()
            ));
        }
        return Ok(Some(Args {
            file: PathBuf::new(),
            output,
            palette,
        }));
    }
    let file = file.ok_or_else(|| format!("no file given ({USAGE})"))?;
    match &mut output {
        Output::Gltf(gltf) => {
            gltf.skin = skin;
            gltf.quantize = quantize;
            gltf.step = step;
            gltf.scale = scale;
        }
        _ => {
            if let Some(option) = gltf_option {
                return Err(format!("{option} goes with --gltf OUT.glb ({USAGE})"));
            }
        }
    }
    Ok(Some(Args {
        file,
        output,
        palette,
    }))
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
    if let Output::Demo(path) = &args.output {
        let text = write_demo(path)?;
        return out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write: {e}"));
    }
    // The error names the file.
    let model = QuakeModel::open(&args.file).map_err(|e| e.to_string())?;
    let name = args.file.display().to_string();
    let palette = args.palette.as_deref();
    let text = match (args.output, &model) {
        (Output::Summary, QuakeModel::Md2(m)) => summary(m, &name),
        (Output::Summary, QuakeModel::Mdl(m)) => {
            let (_, from) = palette_for(&args.file, palette)?;
            mdl::summary(m, &name, &from)
        }
        (Output::Json, model) => {
            let value = match model {
                QuakeModel::Md2(m) => json(m),
                QuakeModel::Mdl(m) => mdl::json(m),
            };
            let mut s = serde_json::to_string_pretty(&value)
                .map_err(|e| format!("cannot write JSON: {e}"))?;
            s.push('\n');
            s
        }
        (Output::Obj(frame), QuakeModel::Md2(m)) => obj(m, frame, &name)?,
        (Output::Obj(pose), QuakeModel::Mdl(m)) => mdl::obj(m, pose, &name)?,
        (Output::Gltf(gltf), model) => write_gltf(model, &args.file, &gltf, palette)?,
        (Output::Levels(out), model) => write_levels(model, &out)?,
        (Output::Convert(out), model) => convert::convert(model, &args.file, &out, palette)?,
        (Output::Demo(_), _) => unreachable!("written above"),
    };
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write: {e}"))
}

/// Writes the built-in demo model to `path`, an MD2 or an MDL by its
/// extension; what was written, for stdout.
fn write_demo(path: &Path) -> Result<String, String> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let (bytes, what) = match ext.as_str() {
        "md2" => (md2_wgpu::demo::demo_model_bytes(), "MD2"),
        "mdl" => (
            md2_wgpu::demo::demo_mdl().to_bytes(),
            "MDL (its skin in the built-in palette)",
        ),
        _ => {
            return Err(format!(
                "--demo writes an .md2 or an .mdl, not {:?} ({USAGE})",
                path.display().to_string()
            ));
        }
    };
    std::fs::write(path, &bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(format!(
        "wrote {}: the demo model as an {what}, {} bytes\n",
        path.display(),
        bytes.len()
    ))
}

/// A file's name without its extension.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The start of an OBJ of frame `frame` of `keyframes` (`kind`: "frame",
/// or "pose" for an MDL's): the comments, the object, and `v` and `vn` per
/// vertex. The format adds the texture coordinates and the faces.
fn obj_vertices(
    keyframes: &KeyframeModel,
    kind: &str,
    frame: u32,
    name: &str,
) -> Result<String, String> {
    let Some(f) = keyframes.frames().get(frame as usize) else {
        return Err(format!(
            "{name}: no {kind} {frame}: the model has {} {kind}s (0..={})",
            keyframes.frame_count(),
            keyframes.frame_count() - 1
        ));
    };
    let verts = keyframes.frame_vertices(frame);
    let mut s = String::new();
    let _ = writeln!(s, "# md2info: {name}, {kind} {frame} ({:?})", f.name());
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
