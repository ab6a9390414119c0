//! md2info on Quake III's MD3: a model's summary, its JSON and the OBJ of
//! a frame; a player's folder (three models, `animation.cfg`, a skin set)
//! as a summary or JSON.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::Path;

use md2_wgpu::anim::FrameLerp;
use md2_wgpu::format::md3::{
    AnimationConfig, Md3Header, Md3Model, Md3Player, Md3Surface, Md3SurfaceTexture, Md3Vertex,
    PlayerAnimation, PlayerPart, PlayerTransforms, texture_candidates,
};
use md2_wgpu::skins;
use serde_json::json;

use md2_wgpu::gltf::{GltfError, GltfExport, GltfOptions};

use super::{
    Args, GltfArgs, Output, USAGE, fields_json, json_text, no_such, number, obj_comments, point,
    sanitize, write_fields, write_vectors, write_warnings,
};

/// Whether `path` is a file that starts with MD3's ident (`IDP3`).
pub(super) fn is_md3(path: &Path) -> bool {
    let mut ident = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut ident))
        .is_ok_and(|()| ident == Md3Header::IDENT)
}

/// The error for an option md2info has no MD3 answer for; `what` is what
/// it was given ("an MD3 file").
fn refused(option: &str, what: &str, instead: &str) -> String {
    format!("{option} does not apply to {what}; {instead} ({USAGE})")
}

/// `--palette` colours an MDL's skins only: refused for `what`.
fn no_palette(args: &Args, what: &str) -> Result<(), String> {
    match args.palette {
        Some(_) => Err(refused(
            "--palette",
            what,
            "it colours an MDL's skins, and MD3 textures are images of their own",
        )),
        None => Ok(()),
    }
}

/// What md2info prints for the MD3 file `args.file`: the summary, the
/// JSON or a frame's OBJ; every other option refused.
pub(super) fn model(args: &Args) -> Result<String, String> {
    let what = "an MD3 (Quake III) model";
    no_palette(args, what)?;
    let name = args.file.display().to_string();
    // The error names the file.
    let model = Md3Model::open(&args.file).map_err(|e| e.to_string())?;
    match &args.output {
        Output::Summary => Ok(summary(&model, &name)),
        Output::Json => json_text(&json(&model)),
        Output::Obj(frame) => obj(&model, *frame, &name),
        Output::Gltf(gltf) => {
            let found = model_textures(&model, &args.file);
            write_gltf(gltf, what, &args.file, &found, |options| {
                md2_wgpu::gltf::md3_to_glb(&model, &found.images, options)
            })
        }
        other => Err(refused(
            other.option(),
            what,
            "md2info gives its summary, --json, --obj FRAME or --gltf OUT.glb",
        )),
    }
}

/// What md2info prints for the player in the folder `args.file`, with
/// the skin set `args.skin` (else `default`).
pub(super) fn player(args: &Args) -> Result<String, String> {
    let what = "a Quake III player's folder";
    no_palette(args, what)?;
    let dir = &args.file;
    let skin = args.skin.as_deref().unwrap_or("default");
    let player = Md3Player::open(dir, skin)
        .map_err(|e| format!("{} is read as {what}: {e}", dir.display()))?;
    match &args.output {
        Output::Summary => Ok(player_summary(&player, dir)),
        Output::Json => json_text(&player_json(&player, dir)),
        Output::Gltf(gltf) => {
            let found = player_textures(&player, dir);
            write_gltf(gltf, what, dir, &found, |options| {
                md2_wgpu::gltf::player_to_glb(&player, &found.images, options)
            })
        }
        other => Err(refused(
            other.option(),
            what,
            "md2info gives its summary, --json or --gltf OUT.glb; name one of its .md3 files for the rest",
        )),
    }
}

/// The textures `--gltf` embeds: the images by texture path, and a line
/// per texture saying where it was found or that it was not.
#[derive(Default)]
struct FoundTextures {
    images: Vec<(String, md2_wgpu::image::RgbaImage)>,
    lines: Vec<String>,
    /// The paths looked for so far, each once.
    looked_for: Vec<String>,
}

impl FoundTextures {
    /// Looks for `texture` (the game path `path`) as the files it may be
    /// (by their last parts) in `dir`, once per path, decoding the first
    /// there.
    fn look_for(&mut self, dir: &Path, path: &str, texture: &Md3SurfaceTexture) {
        if self.looked_for.iter().any(|p| p == path) {
            return;
        }
        self.looked_for.push(path.to_owned());
        let line = match found_in(dir, texture) {
            Some(file) => match skins::load_skin(dir.join(&file)) {
                Ok(image) => {
                    let line = format!(
                        "embedded texture {path} from {file} ({}x{})",
                        image.width(),
                        image.height()
                    );
                    self.images.push((path.to_owned(), image));
                    line
                }
                Err(e) => format!("did not embed texture {path}: {e}"),
            },
            None => format!(
                "did not embed texture {path}: not found in {} (tried {})",
                dir.display(),
                texture.candidates.join(", ")
            ),
        };
        self.lines.push(line);
    }
}

/// The textures of a lone MD3 at `file`: each surface's first shader
/// looked for beside it by the names Quake III tries.
fn model_textures(model: &Md3Model, file: &Path) -> FoundTextures {
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut found = FoundTextures::default();
    for surface in model.surfaces() {
        let shader = surface.shaders().first().map(|s| s.name());
        if let Some(path) = shader.filter(|n| !n.is_empty()) {
            let texture = Md3SurfaceTexture {
                surface: surface.name(),
                candidates: texture_candidates(&path),
                texture: Some(path.clone()),
            };
            found.look_for(dir, &path, &texture);
        }
    }
    found
}

/// The textures of a player in `dir`: each surface's texture (as its
/// skin names it) looked for in the folder, as the summary reports it.
fn player_textures(player: &Md3Player, dir: &Path) -> FoundTextures {
    let mut found = FoundTextures::default();
    for part in PlayerPart::ALL {
        for texture in player.textures(part) {
            if let Some(path) = &texture.texture {
                found.look_for(dir, path, &texture);
            }
        }
    }
    found
}

/// `--gltf OUT.glb` for an MD3 or a player (`what`, from `file`): the
/// GLB `export` writes with the options md2info's flags give, and what
/// was written, with which of the `found` textures were embedded. The
/// MD3 export takes its textures by their paths, found beside the model,
/// and writes float positions, so `--skin PATH` and `--quantize` are
/// refused.
fn write_gltf(
    gltf: &GltfArgs,
    what: &str,
    file: &Path,
    found: &FoundTextures,
    export: impl FnOnce(&GltfOptions) -> Result<GltfExport, GltfError>,
) -> Result<String, String> {
    if gltf.skin.is_some() {
        let instead =
            "the MD3 export embeds the textures its skins and shaders name, found beside the model";
        return Err(refused("--skin PATH", what, instead));
    }
    if gltf.quantize {
        return Err(refused(
            "--quantize",
            what,
            "the MD3 export writes float positions",
        ));
    }
    let export = export(&gltf.options(file)).map_err(|e| format!("{}: {e}", file.display()))?;
    std::fs::write(&gltf.out, &export.glb)
        .map_err(|e| format!("cannot write {}: {e}", gltf.out.display()))?;
    let r = &export.report;
    let mut s = format!(
        "wrote {}: {} bytes; {} vertices, {} triangles, {} morph targets, {} animations\n",
        gltf.out.display(),
        export.glb.len(),
        r.corners,
        r.triangles,
        r.morph_targets,
        r.animations,
    );
    for line in &found.lines {
        let _ = writeln!(s, "{line}");
    }
    Ok(s)
}

/// The header's fields by their names in Quake III's `qfiles.h`, in the
/// file's order.
fn header_fields(model: &Md3Model) -> Vec<(&'static str, serde_json::Value)> {
    let h = model.header();
    let numbers = [
        ("version", h.version),
        ("flags", h.flags),
        ("numFrames", h.num_frames),
        ("numTags", h.num_tags),
        ("numSurfaces", h.num_surfaces),
        ("numSkins", h.num_skins),
        ("ofsFrames", h.ofs_frames),
        ("ofsTags", h.ofs_tags),
        ("ofsSurfaces", h.ofs_surfaces),
        ("ofsEnd", h.ofs_end),
    ];
    let mut fields: Vec<(&'static str, serde_json::Value)> =
        numbers.iter().map(|&(k, v)| (k, v.into())).collect();
    let ident = String::from_utf8_lossy(&h.ident).into_owned();
    fields.insert(0, ("ident", ident.into()));
    fields.insert(2, ("name", h.name().into()));
    fields
}

/// Frame 0's tag names, in order (every frame's, unless the model warns
/// that they differ).
fn tag_names(model: &Md3Model) -> Vec<String> {
    model.frame_tags(0).iter().map(|t| t.name()).collect()
}

/// `n` of a thing in words: `1 frame`, `2 frames`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A surface in a line: its name (padded to `width`), counts and shaders.
fn surface_line(surface: &Md3Surface, width: usize) -> String {
    let shaders: Vec<String> = surface.shaders().iter().map(|s| s.name()).collect();
    format!(
        "{:<width$}  {}, {}; shaders: {}",
        surface.name(),
        count(surface.vertex_count(), "vertex", "vertices"),
        count(surface.triangles().len(), "triangle", "triangles"),
        if shaders.is_empty() {
            "none".into()
        } else {
            shaders.join(", ")
        }
    )
}

/// A surface in `--json`: `{name, vertices, triangles, shaders}`.
fn surface_json(surface: &Md3Surface) -> serde_json::Map<String, serde_json::Value> {
    let shaders: Vec<String> = surface.shaders().iter().map(|s| s.name()).collect();
    let value = json!({
        "name": surface.name(),
        "vertices": surface.vertex_count(),
        "triangles": surface.triangles().len(),
        "shaders": shaders,
    });
    value.as_object().cloned().unwrap_or_default()
}

/// The longest surface name of `models`, to line the names up.
fn name_width<'a>(models: impl IntoIterator<Item = &'a Md3Model>) -> usize {
    models
        .into_iter()
        .flat_map(|m| m.surfaces())
        .map(|s| s.name().len())
        .max()
        .unwrap_or(0)
}

/// The readable summary: the header, the frames (their names and bounds'
/// radii), the tags (where frame 0 holds them), the surfaces and the
/// warnings.
pub fn summary(model: &Md3Model, name: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{name} (Quake III MD3)");
    write_fields(&mut s, header_fields(model), 11);
    let frames = model.frames();
    let radii = frames.iter().map(|f| f.radius);
    let (least, most) = radii.fold((f32::INFINITY, 0.0f32), |(a, b), r| (a.min(r), b.max(r)));
    let names = match frames {
        [only] => only.name(),
        [first, .., last] => format!("{} .. {}", first.name(), last.name()),
        [] => String::new(),
    };
    let _ = writeln!(
        s,
        "frames: {} ({names}), bounds radius {} to {}",
        frames.len(),
        number(least),
        number(most)
    );
    let tags = model.frame_tags(0);
    match tags.len() {
        0 => s.push_str("tags: none\n"),
        n => {
            let _ = writeln!(s, "tags: {n} a frame, in frame 0:");
        }
    }
    let width = tags.iter().map(|t| t.name().len()).max().unwrap_or(0);
    for tag in tags {
        let _ = writeln!(s, "  {:<width$}  at {}", tag.name(), point(tag.origin));
    }
    let _ = writeln!(s, "surfaces: {}", model.surfaces().len());
    let width = name_width([model]);
    for surface in model.surfaces() {
        let _ = writeln!(s, "  {}", surface_line(surface, width));
    }
    write_warnings(&mut s, model.warnings());
    s
}

/// The JSON object of `--json`: `format` "MD3", `header` (Quake III's
/// field names), `frames` (the count), `tags` (frame 0's names),
/// `surfaces` (`{name, vertices, triangles, shaders}`) and `warnings`.
pub fn json(model: &Md3Model) -> serde_json::Value {
    json!({
        "format": "MD3",
        "header": fields_json(header_fields(model)),
        "frames": model.frames().len(),
        "tags": tag_names(model),
        "surfaces": model.surfaces().iter().map(surface_json).collect::<Vec<_>>(),
        "warnings": model.warnings().iter().map(|w| w.to_string()).collect::<Vec<_>>(),
    })
}

/// Frame `frame` as Wavefront OBJ: each surface an object (`o` and `g`,
/// by its name) with `v` (model units, Quake axes) and `vn`
/// ([`Md3Vertex::normal_vector`]) per vertex, `vt` per vertex (its s, and
/// its t flipped: OBJ's v runs up the image), and `f v/vt/vn` per
/// triangle, counter-clockwise seen from outside (the file's are
/// clockwise, as MD2's are: see the module's docs).
pub fn obj(model: &Md3Model, frame: u32, name: &str) -> Result<String, String> {
    let Some(f) = model.frames().get(frame as usize) else {
        return Err(no_such(name, "frame", frame, model.frames().len()));
    };
    let mut s = obj_comments(name, "frame", frame, &f.name());
    // OBJ numbers vertices across the whole file, from 1.
    let mut first = 1;
    for (i, surface) in model.surfaces().iter().enumerate() {
        let object = sanitize(&surface.name(), &format!("surface{i}"));
        let _ = writeln!(s, "o {object}\ng {object}");
        let verts = surface.frame_vertices(frame as usize);
        write_vectors(&mut s, "v", verts.iter().map(Md3Vertex::position));
        write_vectors(&mut s, "vn", verts.iter().map(Md3Vertex::normal_vector));
        for [u, t] in surface.tex_coords() {
            let _ = writeln!(s, "vt {u} {}", 1.0 - t);
        }
        for &[a, b, c] in surface.triangles() {
            // Reversed (0, 2, 1); every index is below the vertex count.
            let [a, b, c] = [a, c, b].map(|k| first + k as usize);
            let _ = writeln!(s, "f {a}/{a}/{a} {b}/{b}/{b} {c}/{c}/{c}");
        }
        first += surface.vertex_count();
    }
    Ok(s)
}

/// A texture's file in the player's folder: the first of the names Quake
/// III tries whose last part is a file in `dir` (a texture elsewhere
/// under the game's root is not looked for).
fn found_in(dir: &Path, texture: &Md3SurfaceTexture) -> Option<String> {
    texture
        .file_names()
        .find(|file| dir.join(file).is_file())
        .map(str::to_owned)
}

/// A surface's texture in words: what the skin names and whether it is in
/// the folder.
fn texture_text(dir: &Path, texture: &Md3SurfaceTexture) -> String {
    let Some(path) = &texture.texture else {
        return "no texture: the skin names none (Quake III draws its default shader)".into();
    };
    match found_in(dir, texture) {
        Some(file) => format!("texture {path}: {file} is in the folder"),
        None => format!(
            "texture {path}: not in the folder (tried {}; a game root may hold it)",
            texture.candidates.join(", ")
        ),
    }
}

/// The part an animation plays on: `legs`, `torso` or `both`, and the
/// model (or models) whose frames it names.
fn plays_on(animation: PlayerAnimation) -> (&'static str, &'static [PlayerPart]) {
    if animation.is_legs() {
        ("legs", &[PlayerPart::Lower])
    } else if animation.is_torso() {
        ("torso", &[PlayerPart::Upper])
    } else {
        ("both", &[PlayerPart::Lower, PlayerPart::Upper])
    }
}

/// What a reader should know about an animation: where its clip plays
/// otherwise than the game ([`AnimationEntry::clip_is_exact`]), a Team
/// Arena gesture the file leaves out, frames past its model's.
///
/// [`AnimationEntry::clip_is_exact`]: md2_wgpu::format::md3::AnimationEntry::clip_is_exact
fn animation_notes(player: &Md3Player, animation: PlayerAnimation) -> Vec<String> {
    let config = player.animations();
    let entry = config.entry(animation);
    let mut notes = Vec::new();
    // Team Arena's gestures the file leaves out play TORSO_GESTURE.
    let listed = PlayerAnimation::REQUIRED + config.team_arena.len();
    if animation.index() >= listed {
        notes.push("not in the file: TORSO_GESTURE's, as the game plays it".to_owned());
    }
    if !entry.clip_is_exact() {
        notes.push(if entry.num_frames == 0 {
            "no frames: the game shows the frame before the first; the clip holds the first".into()
        } else if entry.reversed {
            "reversed: the game plays it backwards; the clip plays it forwards".into()
        } else {
            let tail = count(entry.looping_frames as usize, "frame", "frames");
            format!("the game loops its last {tail}; the clip plays once and holds the last")
        });
    }
    match config.frames_in_model(animation) {
        None => notes.push("its frames are out of range".into()),
        Some(frames) => {
            for &part in plays_on(animation).1 {
                let have = player.part(part).frames().len();
                if frames.end as usize > have {
                    notes.push(format!("past {}'s {have} frames", part.model_file()));
                }
            }
        }
    }
    notes
}

/// How an animation's frames loop, in words.
fn looping_text(config: &AnimationConfig, animation: PlayerAnimation) -> String {
    let entry = config.entry(animation);
    match entry.looping_frames {
        0 => "plays once".into(),
        n if n == entry.num_frames => "loops".into(),
        n => format!("loops its last {n}"),
    }
}

/// The tags that join a player's parts: the part that holds each, its
/// name, and what it holds.
const JOINS: [(PlayerPart, &str, &str); 3] = [
    (PlayerPart::Lower, "tag_torso", "upper.md3"),
    (PlayerPart::Upper, "tag_head", "head.md3"),
    (PlayerPart::Upper, "tag_weapon", "the weapon"),
];

/// The standing pose: `LEGS_IDLE`'s and `TORSO_STAND`'s first frames (in
/// `lower.md3`'s and `upper.md3`'s numbering) and where the parts stand
/// in it; or why there is none.
fn standing(player: &Md3Player) -> Result<(u32, u32, PlayerTransforms), String> {
    let config = player.animations();
    let first = |animation: PlayerAnimation| {
        config
            .frames_in_model(animation)
            .map(|frames| frames.start)
            .ok_or_else(|| format!("{}'s frames are out of range", animation.name()))
    };
    let legs = first(PlayerAnimation::LegsIdle)?;
    let torso = first(PlayerAnimation::TorsoStand)?;
    let parts = player
        .parts_at(FrameLerp::still(legs), FrameLerp::still(torso))
        .map_err(|e| e.to_string())?;
    Ok((legs, torso, parts))
}

/// Where the torso, head and weapon stand in a pose: their origins.
fn standing_points(parts: &PlayerTransforms) -> [(&'static str, [f32; 3]); 3] {
    let origin = |m: md2_wgpu::glam::Mat4| m.w_axis.truncate().to_array();
    [
        ("torso", origin(parts.upper)),
        ("head", origin(parts.head)),
        ("weapon", origin(parts.weapon)),
    ]
}

/// Every file's warnings, each named by its file.
fn player_warnings(player: &Md3Player) -> Vec<String> {
    let models = PlayerPart::ALL.iter().flat_map(|&part| {
        let file = part.model_file();
        let warnings = player.part(part).warnings();
        warnings.iter().map(move |w| format!("{file}: {w}"))
    });
    let config = player.animations().warnings.iter();
    models
        .chain(config.map(|w| format!("animation.cfg: {w}")))
        .collect()
}

/// A player's readable summary: each part's surfaces and their textures,
/// the animations, the tags that join the parts, the standing pose and
/// the warnings.
fn player_summary(player: &Md3Player, dir: &Path) -> String {
    let mut s = String::new();
    let skin = player.skin_name();
    let _ = writeln!(s, "{} (Quake III player, skin set {skin:?})", dir.display());
    let _ = writeln!(s, "parts:");
    let width = name_width(PlayerPart::ALL.map(|part| player.part(part)));
    for part in PlayerPart::ALL {
        let model = player.part(part);
        let _ = writeln!(
            s,
            "  {}: {}, tags [{}], {}; skin {}",
            part.model_file(),
            count(model.frames().len(), "frame", "frames"),
            tag_names(model).join(", "),
            count(model.surfaces().len(), "surface", "surfaces"),
            part.skin_file(skin),
        );
        for (surface, texture) in model.surfaces().iter().zip(player.textures(part)) {
            let _ = writeln!(s, "    {}", surface_line(surface, width));
            let _ = writeln!(s, "    {:<width$}  {}", "", texture_text(dir, &texture));
        }
    }
    let config = player.animations();
    let _ = writeln!(
        s,
        "animations: {} (frames in the numbering of the model each plays on)",
        PlayerAnimation::ALL.len()
    );
    for animation in PlayerAnimation::ALL {
        let entry = config.entry(animation);
        let (part, _) = plays_on(animation);
        let frames = match config.frames_in_model(animation) {
            Some(f) if !f.is_empty() => format!("frames {:>3}..{:<3}", f.start, f.end - 1),
            Some(f) => format!("frames {:>3} (none)", f.start),
            None => "frames out of range".into(),
        };
        let notes: String = animation_notes(player, animation)
            .iter()
            .map(|n| format!("; {n}"))
            .collect();
        let _ = writeln!(
            s,
            "  {:<17}  {part:<5}  {frames}  ({}, {} fps: a frame each {} ms, {}){notes}",
            animation.name(),
            count(entry.num_frames as usize, "frame", "frames"),
            number(entry.fps),
            entry.frame_milliseconds(),
            looping_text(config, animation),
        );
    }
    let _ = writeln!(s, "tags:");
    for (part, tag, holds) in JOINS {
        let missing = if player.part(part).tag(0, tag).is_some() {
            ""
        } else {
            " (missing)"
        };
        let _ = writeln!(s, "  {} {tag} holds {holds}{missing}", part.model_file());
    }
    match standing(player) {
        Ok((legs, torso, parts)) => {
            let _ = writeln!(
                s,
                "standing (LEGS_IDLE at lower.md3's frame {legs}, TORSO_STAND at upper.md3's frame {torso}):"
            );
            for (what, at) in standing_points(&parts) {
                let _ = writeln!(s, "  {what:<6} at {}", point(at));
            }
        }
        Err(why) => {
            let _ = writeln!(s, "standing: none ({why})");
        }
    }
    write_warnings(&mut s, &player_warnings(player));
    s
}

/// A player as one JSON object: `format` ("MD3 player"), `skin`, `parts`
/// (`{part, file, skin, frames, tags, surfaces}`, each surface's
/// `{name, vertices, triangles, shaders, texture, candidates, found}`),
/// `animations` (`{name, part, first, last, frames, fps, frame_ms,
/// looping_frames, looping, exact, notes}`), `tags` (`{part, tag, holds,
/// present}`), `standing` (`{legs_frame, torso_frame, torso, head,
/// weapon}`, or `{error}`) and `warnings`.
fn player_json(player: &Md3Player, dir: &Path) -> serde_json::Value {
    let skin = player.skin_name();
    let parts: Vec<_> = PlayerPart::ALL
        .iter()
        .map(|&part| {
            let model = player.part(part);
            let surfaces: Vec<_> = model
                .surfaces()
                .iter()
                .zip(player.textures(part))
                .map(|(surface, texture)| {
                    let mut object = surface_json(surface);
                    object.insert("found".into(), found_in(dir, &texture).into());
                    object.insert("texture".into(), texture.texture.into());
                    object.insert("candidates".into(), texture.candidates.into());
                    object
                })
                .collect();
            json!({
                "part": part.name(),
                "file": part.model_file(),
                "skin": part.skin_file(skin),
                "frames": model.frames().len(),
                "tags": tag_names(model),
                "surfaces": surfaces,
            })
        })
        .collect();
    let config = player.animations();
    let animations: Vec<_> = PlayerAnimation::ALL
        .iter()
        .map(|&animation| {
            let entry = config.entry(animation);
            let frames = config.frames_in_model(animation);
            let clip = config.clip(animation);
            json!({
                "name": animation.name(),
                "part": plays_on(animation).0,
                "first": frames.as_ref().map(|f| f.start),
                "last": frames.as_ref().and_then(|f| f.end.checked_sub(1)),
                "frames": entry.num_frames,
                "fps": entry.fps,
                "frame_ms": entry.frame_milliseconds(),
                "looping_frames": entry.looping_frames,
                "looping": clip.is_some_and(|c| c.looping),
                "exact": entry.clip_is_exact(),
                "notes": animation_notes(player, animation),
            })
        })
        .collect();
    let tags: Vec<_> = JOINS
        .iter()
        .map(|&(part, tag, holds)| {
            json!({
                "part": part.name(),
                "tag": tag,
                "holds": holds,
                "present": player.part(part).tag(0, tag).is_some(),
            })
        })
        .collect();
    let standing = match standing(player) {
        Ok((legs, torso, parts)) => {
            let mut object = serde_json::Map::new();
            object.insert("legs_frame".into(), legs.into());
            object.insert("torso_frame".into(), torso.into());
            for (what, at) in standing_points(&parts) {
                object.insert(what.into(), at.to_vec().into());
            }
            serde_json::Value::Object(object)
        }
        Err(why) => json!({ "error": why }),
    };
    json!({
        "format": "MD3 player",
        "skin": skin,
        "parts": parts,
        "animations": animations,
        "tags": tags,
        "standing": standing,
        "warnings": player_warnings(player),
    })
}
