//! md2info: what a Quake model file holds, MD2 (Quake II), MDL (Quake I)
//! or MD3 (Quake III), told apart by its ident; or what a Quake III
//! player's folder holds.
//!
//! ```text
//! cargo run --bin md2info -- FILE [--json] [--obj FRAME] [--palette PATH]
//! cargo run --bin md2info -- FILE --gltf OUT.glb [--skin PATH] [--quantize] [--step] [--scale S]
//! cargo run --bin md2info -- FILE --convert OUT.mdl|OUT.md2 [--palette PATH]
//! cargo run --release --bin md2info -- FILE --levels OUT.md2l
//! cargo run --bin md2info -- PLAYER_DIR [--json] [--skin NAME]
//! cargo run --bin md2info -- --demo OUT.md2|OUT.mdl|OUT.glb|OUT_DIR/
//! ```
//!
//! - `--demo OUT`: writes the crate's built-in demo model to OUT, as an MD2
//!   or (by the extension) as an MDL (`md2_wgpu::demo::demo_mdl`): a file to
//!   try the viewer, the crowd or md2info on; as a GLB, the same soldier
//!   skinned (`md2_wgpu::demo::demo_skinned_glb`: its bones as joints, its
//!   animations as joint keys), skeletal animation to set beside it;
//!
//! - no option: a readable summary (header, skins, animations with their
//!   frame ranges, warnings; for an MDL its frame and skin groups with
//!   their intervals, the rate each clip plays at, and the palette; for an
//!   MD3 its frames with their bounds' radii, its tags with where frame 0
//!   holds them, and its surfaces with their shaders);
//! - `--json`: one JSON object. For an MD2 the keys `header` (the 17 fields
//!   by their conventional names, `ident` as a string), `skins`, `frames`,
//!   `animations` (`{name, first, last}`) and `warnings`; for an MDL
//!   `format` ("MDL"), `header` (Quake's field names), `skins`
//!   (`{images, intervals}`), `frames` (`{first, count, intervals}`),
//!   `poses`, `animations` (`{name, first, last, fps}`) and `warnings`;
//!   for an MD3 `format` ("MD3"), `header` (Quake III's field names),
//!   `frames` (the count), `tags` (frame 0's names), `surfaces`
//!   (`{name, vertices, triangles, shaders}`) and `warnings`;
//! - `--obj FRAME`: frame FRAME (0-based; an MDL's pose) as Wavefront OBJ on
//!   stdout; an MD3's surfaces are one object (`o` and `g`) each;
//! - `PLAYER_DIR`, a Quake III player's folder (`lower.md3`, `upper.md3`,
//!   `head.md3`, `animation.cfg` and a skin set's `.skin` files), loaded
//!   as `Md3Player::open` loads it with the skin set `--skin NAME` (else
//!   `default`): each part's surfaces with the texture its skin gives
//!   them (and which of the files Quake III tries is in the folder: a
//!   texture elsewhere under the game's root is not looked for), every
//!   animation (the part it plays on, its frames in that model's
//!   numbering, its rate, its looping, and a note where its clip plays it
//!   otherwise than the game: `AnimationEntry::clip_is_exact`), the tags
//!   that join the parts, and where the torso, head and weapon stand in
//!   the standing pose (`LEGS_IDLE`'s and `TORSO_STAND`'s first frames);
//!   with `--json`, the same as one object (`format` "MD3 player",
//!   `skin`, `parts`, `animations`, `tags`, `standing`, `warnings`);
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
//! An MD3 (or a player's folder) exports with `--gltf` through
//! `md2_wgpu::gltf::md3_to_glb` (`player_to_glb`: the parts as a node tree
//! joined at their tags, every animation by its name), with `--step` and
//! `--scale`; it embeds each surface's texture it finds (a player's in
//! its folder, by the names Quake III tries; a lone MD3's first shaders
//! beside it), decoded by `skins::load_skin`, says which it embedded and
//! which it did not find, and writes floats, so `--skin PATH` and
//! `--quantize` are refused for it. An MD3 is not yet a `KeyframeModel`,
//! so `--convert` and `--levels` are refused for one (and for a player's
//! folder, with `--obj`: name one of its models), as `--palette` is (an
//! MD3's textures are images of their own).
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
//!
//! MD3 triangles wind the same way. Quake III culls as Quake II does: a
//! shader is front-sided unless it says otherwise, and the renderer's
//! `GL_Cull` (`tr_backend.c`) culls `GL_FRONT` for it, with OpenGL's
//! counter-clockwise front faces, so the faces drawn are the clockwise
//! ones. The shared OpenArena players agree: of major's and penguin's
//! 2,892 triangles, 2,876 have a right-hand normal pointing against their
//! vertices' stored normals (`Md3Vertex::normal_vector`). So an MD3's `f`
//! lines are reversed too (md2info's tests check the shared players).

mod convert;
mod export;
mod md2;
mod md3;
mod mdl;

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use md2_wgpu::QuakeModel;
use md2_wgpu::gltf::{GltfOptions, KeyInterpolation};
use md2_wgpu::model::KeyframeModel;

pub use export::{palette_for, write_gltf, write_levels};
pub use md2::{json, obj, summary};

const USAGE: &str = "usage: md2info FILE [--json] [--obj FRAME] [--palette PATH] | \
                     md2info FILE --gltf OUT.glb [--skin PATH] [--quantize] [--step] [--scale S] | \
                     md2info FILE --convert OUT.mdl|OUT.md2 [--palette PATH] | \
                     md2info FILE --levels OUT | md2info PLAYER_DIR [--json] [--skin NAME] | \
                     md2info --demo OUT.md2|OUT.mdl|OUT.glb|OUT_DIR/";

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

impl Output {
    /// The option that asks for it (`--obj`); "" for the summary.
    fn option(&self) -> &'static str {
        match self {
            Output::Summary => "",
            Output::Json => "--json",
            Output::Obj(_) => "--obj",
            Output::Gltf(_) => "--gltf",
            Output::Levels(_) => "--levels",
            Output::Convert(_) => "--convert",
            Output::Demo(_) => "--demo",
        }
    }
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

impl GltfArgs {
    /// The export options the flags give (`--quantize`, `--step`,
    /// `--scale`) for the model `file`, named after it; the rest default.
    fn options(&self, file: &Path) -> GltfOptions {
        GltfOptions {
            quantize: self.quantize,
            interpolation: if self.step {
                KeyInterpolation::Step
            } else {
                KeyInterpolation::Linear
            },
            scale: self.scale,
            name: Some(stem(file)),
            ..GltfOptions::DEFAULT
        }
    }
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
    /// The skin set of a Quake III player's folder (`--skin NAME` without
    /// `--gltf`; `default` where none is given).
    pub skin: Option<String>,
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
    // The --gltf options, and the first of them seen (they need --gltf;
    // --skin names a player's skin set without it).
    let mut skin: Option<OsString> = None;
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
            Some("--skin") => skin = Some(value("an image file or a skin set's name")?),
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
            skin: None,
        }));
    }
    let file = file.ok_or_else(|| format!("no file given ({USAGE})"))?;
    let mut skin_set = None;
    match &mut output {
        Output::Gltf(gltf) => {
            gltf.skin = skin.map(PathBuf::from);
            gltf.quantize = quantize;
            gltf.step = step;
            gltf.scale = scale;
        }
        _ => {
            if let Some(option) = gltf_option {
                return Err(format!("{option} goes with --gltf OUT.glb ({USAGE})"));
            }
            skin_set = skin.map(|s| s.to_string_lossy().into_owned());
        }
    }
    Ok(Some(Args {
        file,
        output,
        palette,
        skin: skin_set,
    }))
}

/// Runs md2info on `args` (without the program name), writing to `out`.
/// An error is the one message for stderr.
pub fn run(
    args: impl IntoIterator<Item = OsString>,
    out: &mut dyn std::io::Write,
) -> Result<(), String> {
    let text = match parse_args(args)? {
        Some(args) => describe(args)?,
        None => format!("{USAGE}\n"),
    };
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write: {e}"))
}

/// What md2info prints for `args`: a model's description by its ident, a
/// player folder's, or what an option wrote.
fn describe(args: Args) -> Result<String, String> {
    if let Output::Demo(path) = &args.output {
        return write_demo(path);
    }
    if args.file.is_dir() {
        return md3::player(&args);
    }
    if args.skin.is_some() {
        return Err(format!(
            "--skin goes with --gltf OUT.glb, or names the skin set of a player's folder ({USAGE})"
        ));
    }
    if md3::is_md3(&args.file) {
        return md3::model(&args);
    }
    // The error names the file.
    let model = QuakeModel::open(&args.file).map_err(|e| e.to_string())?;
    let name = args.file.display().to_string();
    let palette = args.palette.as_deref();
    match (args.output, &model) {
        (Output::Summary, QuakeModel::Md2(m)) => Ok(summary(m, &name)),
        (Output::Summary, QuakeModel::Mdl(m)) => {
            let (_, from) = palette_for(&args.file, palette)?;
            Ok(mdl::summary(m, &name, &from))
        }
        (Output::Json, QuakeModel::Md2(m)) => json_text(&json(m)),
        (Output::Json, QuakeModel::Mdl(m)) => json_text(&mdl::json(m)),
        (Output::Obj(frame), QuakeModel::Md2(m)) => obj(m, frame, &name),
        (Output::Obj(pose), QuakeModel::Mdl(m)) => mdl::obj(m, pose, &name),
        (Output::Gltf(gltf), model) => write_gltf(model, &args.file, &gltf, palette),
        (Output::Levels(out), model) => write_levels(model, &out),
        (Output::Convert(out), model) => convert::convert(model, &args.file, &out, palette),
        (Output::Demo(_), _) => unreachable!("written above"),
    }
}

/// `--json`'s text: `value` pretty-printed, with a final newline.
fn json_text(value: &serde_json::Value) -> Result<String, String> {
    let mut s =
        serde_json::to_string_pretty(value).map_err(|e| format!("cannot write JSON: {e}"))?;
    s.push('\n');
    Ok(s)
}

/// A header's `fields` as a JSON object.
fn fields_json(
    fields: Vec<(&'static str, serde_json::Value)>,
) -> serde_json::Map<String, serde_json::Value> {
    fields
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// Writes `fields` one a line under `header:`, each name padded to
/// `width`, a string's value unquoted.
fn write_fields(s: &mut String, fields: Vec<(&'static str, serde_json::Value)>, width: usize) {
    let _ = writeln!(s, "header:");
    for (field, value) in fields {
        let value = match value {
            serde_json::Value::String(v) => v,
            v => v.to_string(),
        };
        let _ = writeln!(s, "  {field:<width$} {value}");
    }
}

/// Writes `warnings: N` and each warning on a line of its own.
fn write_warnings<W: std::fmt::Display>(s: &mut String, warnings: &[W]) {
    let _ = writeln!(s, "warnings: {}", warnings.len());
    for w in warnings {
        let _ = writeln!(s, "  {w}");
    }
}

/// A number as words: at most three decimals, no trailing zeros (11 poses
/// over 1.1000001 s play at 9.999999: say 10).
fn number(x: f32) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// A point as words: `(x, y, z)`, each a [`number`].
fn point(p: [f32; 3]) -> String {
    let [x, y, z] = p.map(number);
    format!("({x}, {y}, {z})")
}

/// Writes the built-in demo model to `path`, an MD2, an MDL or a skinned
/// GLB by its extension, or (a folder: a path ending in `/`, or one that is a folder)
/// the demo as a Quake III player and its gun in a game's layout under it;
/// what was written, for stdout.
fn write_demo(path: &Path) -> Result<String, String> {
    let is_dir = path.is_dir() || path.as_os_str().to_string_lossy().ends_with(['/', '\\']);
    if is_dir {
        return write_demo_player(path);
    }
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
        "glb" => (
            md2_wgpu::demo::demo_skinned_glb(),
            "skinned glTF (15 joints, its animations as joint keys)",
        ),
        _ => {
            return Err(format!(
                "--demo writes an .md2, an .mdl or a .glb, not {:?} ({USAGE})",
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

/// The demo player's files in `root/models/players/demo/` and its gun's in
/// `root/models/weapons/demo/`, where the game paths its skins and the
/// gun's shader name lead.
fn write_demo_player(root: &Path) -> Result<String, String> {
    let mut written = String::new();
    for (dir, files) in [
        (
            md2_wgpu::demo::DEMO_PLAYER_DIR,
            md2_wgpu::demo::demo_player_files(),
        ),
        (
            md2_wgpu::demo::DEMO_WEAPON_DIR,
            md2_wgpu::demo::demo_weapon_files(),
        ),
    ] {
        let dir = root.join(dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        for (name, bytes) in files {
            let file = dir.join(&name);
            std::fs::write(&file, &bytes)
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        }
        written.push_str(&format!("wrote {}\n", dir.display()));
    }
    written.push_str(
        "the demo soldier as a Quake III player (skins default, red, blue) and its gun\n",
    );
    Ok(written)
}

/// A file's name without its extension.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The error for a frame (`kind`: "frame" or "pose") past a model's
/// `count`.
fn no_such(name: &str, kind: &str, frame: u32, count: usize) -> String {
    format!(
        "{name}: no {kind} {frame}: the model has {count} {kind}s (0..={})",
        count.saturating_sub(1)
    )
}

/// An OBJ's first lines: where it comes from and its axes.
fn obj_comments(name: &str, kind: &str, frame: u32, frame_name: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# md2info: {name}, {kind} {frame} ({frame_name:?})");
    let _ = writeln!(s, "# Quake axes: X forward, Y left, Z up; model units");
    s
}

/// Writes a line `KIND x y z` for each of `vectors` (`v`, `vn`).
fn write_vectors(s: &mut String, kind: &str, vectors: impl Iterator<Item = [f32; 3]>) {
    for [x, y, z] in vectors {
        let _ = writeln!(s, "{kind} {x} {y} {z}");
    }
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
        return Err(no_such(name, kind, frame, keyframes.frames().len()));
    };
    let verts = keyframes.frame_data(frame).packed();
    let mut s = obj_comments(name, kind, frame, &f.name());
    let _ = writeln!(s, "o {}", sanitize(&f.name(), "frame"));
    write_vectors(&mut s, "v", verts.iter().map(|v| v.decode_position(f)));
    write_vectors(&mut s, "vn", verts.iter().map(|v| v.normal()));
    Ok(s)
}

/// An OBJ object name: one word, printable; `fallback` for an empty name.
fn sanitize(name: &str, fallback: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { '_' })
        .collect();
    if s.is_empty() { fallback.into() } else { s }
}
