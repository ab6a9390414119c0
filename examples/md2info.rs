//! md2info: what an MD2 file holds.
//!
//! ```text
//! cargo run --bin md2info -- FILE [--json] [--obj FRAME]
//! cargo run --bin md2info -- FILE --gltf OUT.glb [--skin PATH] [--quantize] [--step] [--scale S]
//! cargo run --release --bin md2info -- FILE --levels OUT.md2l
//! ```
//!
//! - no option: a readable summary (header, skins, animations with their
//!   frame ranges, warnings);
//! - `--json`: one JSON object with the keys `header` (the 17 fields by their
//!   conventional names, `ident` as a string), `skins`, `frames`,
//!   `animations` (`{name, first, last}`) and `warnings`;
//! - `--obj FRAME`: frame FRAME (0-based) as Wavefront OBJ on stdout;
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

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use md2_wgpu::gltf::{GltfOptions, KeyInterpolation, to_glb};
use md2_wgpu::{GpuModelOptions, Levels, Md2Model, RenderMesh, skins};

const USAGE: &str = "usage: md2info FILE [--json] [--obj FRAME] | \
                     md2info FILE --gltf OUT.glb [--skin PATH] [--quantize] [--step] [--scale S] | \
                     md2info FILE --levels OUT";

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
            return Err(format!(
                "--json, --obj, --gltf and --levels exclude each other ({USAGE})"
            ));
        }
        *output = new;
        Ok(())
    };
    // The --gltf options, and the first of them seen (they need --gltf).
    let mut skin = None;
    let (mut quantize, mut step, mut scale) = (false, false, 1.0f32);
    let mut gltf_option = None;
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(None),
            Some("--json") => set(Output::Json, &mut output)?,
            Some("--gltf") => {
                let out = args
                    .next()
                    .ok_or_else(|| format!("--gltf needs an output file ({USAGE})"))?;
                let gltf = GltfArgs {
                    out: PathBuf::from(out),
                    skin: None,
                    quantize: false,
                    step: false,
                    scale: 1.0,
                };
                set(Output::Gltf(gltf), &mut output)?;
            }
            Some("--levels") => {
                let out = args
                    .next()
                    .ok_or_else(|| format!("--levels needs an output file ({USAGE})"))?;
                set(Output::Levels(PathBuf::from(out)), &mut output)?;
            }
            Some("--skin") => {
                let path = args
                    .next()
                    .ok_or_else(|| format!("--skin needs an image file ({USAGE})"))?;
                skin = Some(PathBuf::from(path));
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
                let s = args
                    .next()
                    .ok_or_else(|| format!("--scale needs a number ({USAGE})"))?;
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
        Output::Gltf(gltf) => write_gltf(&model, &args.file, &gltf)?,
        Output::Levels(out) => write_levels(&model, &out)?,
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

/// Builds and writes the levels `--levels` asks for; what was written, for
/// stdout.
pub fn write_levels(model: &Md2Model, out: &Path) -> Result<String, String> {
    let options = GpuModelOptions::WITH_LEVELS;
    let mesh = RenderMesh::new(model, options.triangle_order);
    let started = std::time::Instant::now();
    let levels = Levels::new(model, &mesh, &options.levels).map_err(|e| e.to_string())?;
    let took = started.elapsed();
    let bytes = levels.to_bytes(model, &mesh);
    std::fs::write(out, &bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let mut s = String::new();
    for (l, level) in levels.levels().iter().enumerate() {
        let _ = writeln!(
            s,
            "level {l}: {} triangles, error {:.3} units",
            level.triangle_count(),
            level.error
        );
    }
    let _ = writeln!(
        s,
        "wrote {} ({} bytes; built in {:.0} ms)",
        out.display(),
        bytes.len(),
        took.as_secs_f64() * 1000.0
    );
    Ok(s)
}

/// Writes the GLB `--gltf` asks for; what was written, for stdout.
pub fn write_gltf(model: &Md2Model, file: &Path, args: &GltfArgs) -> Result<String, String> {
    let (skins, skin_names) = match &args.skin {
        Some(path) => {
            let image = skins::load_skin(path).map_err(|e| e.to_string())?;
            (vec![image], vec![stem(path)])
        }
        // The model's own, as the viewer finds them; those that did not load
        // are left out rather than exported as blank materials.
        None => skins::load_skins(file, model)
            .images
            .into_iter()
            .zip(skins::find_skins(file, model))
            .filter(|(image, _)| image.width() > 0)
            .map(|(image, path)| (image, path.map(|p| stem(&p)).unwrap_or_default()))
            .unzip(),
    };
    let options = GltfOptions {
        quantize: args.quantize,
        interpolation: if args.step {
            KeyInterpolation::Step
        } else {
            KeyInterpolation::Linear
        },
        scale: args.scale,
        name: Some(stem(file)),
        skin_names: skin_names.clone(),
        ..GltfOptions::DEFAULT
    };
    let export = to_glb(model, &skins, &options).map_err(|e| format!("{}: {e}", file.display()))?;
    std::fs::write(&args.out, &export.glb)
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    let md2_bytes = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    let r = &export.report;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "wrote {}: {} bytes (the MD2 file: {md2_bytes}); {} vertices, {} triangles, {} morph targets, {} animations",
        args.out.display(),
        export.glb.len(),
        r.corners,
        r.triangles,
        r.morph_targets,
        r.animations,
    );
    let _ = if skin_names.is_empty() {
        writeln!(s, "skins: none found, one plain material")
    } else {
        writeln!(s, "skins: {}", skin_names.join(", "))
    };
    if let Some(q) = r.quantization {
        // The saving, against the same export with float data.
        let float = to_glb(
            model,
            &skins,
            &GltfOptions {
                quantize: false,
                ..options
            },
        )
        .map_err(|e| format!("{}: {e}", file.display()))?;
        let _ = writeln!(
            s,
            "quantized: {} bytes against {} as floats ({:.0}%, {} bytes saved); grid step {:.3e} units, \
             positions within {:.3e} units, normals within {:.1e}; {} of {} targets keep float normals",
            export.glb.len(),
            float.glb.len(),
            100.0 * export.glb.len() as f64 / float.glb.len() as f64,
            float.glb.len().saturating_sub(export.glb.len()),
            q.step,
            q.max_position_error,
            q.max_normal_error,
            q.float_normal_targets,
            r.morph_targets,
        );
    }
    Ok(s)
}

/// A file's name without its extension.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// An OBJ object name: one word, printable.
fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { '_' })
        .collect();
    if s.is_empty() { "frame".into() } else { s }
}
