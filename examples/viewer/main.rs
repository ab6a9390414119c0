//! A model inspector: an MD2 model's animations, interpolated on the GPU,
//! as a list to click, a timeline to scrub, its skins, Quake II's effects,
//! the weapon a player holds, and the file's facts and warnings, in an egui
//! interface; or a Quake III player (its folder), legs and torso each on
//! their own animation, head on the torso's tag, every surface in its
//! skin's texture, its tags listed. Drop a file on the window (or type its
//! path) to open it.
//!
//! ```text
//! cargo run --release --example viewer [-- FILE [--skin PATH] [--weapon FILE]]
//! # the built-in demo soldier as a Quake III player, a gun in its hand
//! cargo run --release --bin md2info -- --demo /tmp/demo/
//! cargo run --release --example viewer -- /tmp/demo/models/players/demo --weapon /tmp/demo/models/weapons/demo/gun.md3
//! ```
//!
//! Without FILE it shows the crate's built-in demo model. The 3D view is an
//! egui-wgpu paint callback (`examples/inspector/scene.rs`) drawing into
//! egui's own render pass; the interface is `examples/inspector/` (which
//! the web page in `web/` shows too), the window and the pass are
//! `framework/gui.rs`. A FILE on the command line that does not load ends
//! the viewer before any window opens; one opened from the window shows its
//! error there and the model shown stays.

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::process::ExitCode;

use md2_wgpu_examples::framework::{self, gui::GuiSetup};
use md2_wgpu_examples::inspector::model::ModelFile;
use md2_wgpu_examples::inspector::quake3::{PlayerFile, player_dir};
use md2_wgpu_examples::inspector::scene::SceneTarget;
use md2_wgpu_examples::inspector::{Inspector, InspectorGpu, KEYS};

const USAGE: &str = "\
usage: viewer [FILE] [--skin PATH] [--weapon FILE] [options]

  FILE                  an .md2 or .mdl model, or a Quake III player's folder
                        (lower.md3, upper.md3, head.md3, animation.cfg and its
                        default skins; or an .md3 in one) (default: the
                        built-in demo model)
  --skin PATH           use this image as the skin instead of looking for them
  --weapon FILE         a Quake II weapon model, drawn with the body's frames;
                        for a Quake III player, an .md3 in its hand";

fn main() -> ExitCode {
    let mut skin = None;
    let mut weapon = None;
    let common = match framework::parse_args(USAGE, KEYS, |flag, args| {
        match flag {
            "--skin" => skin = Some(PathBuf::from(framework::value(args, flag)?)),
            "--weapon" => weapon = Some(PathBuf::from(framework::value(args, flag)?)),
            _ => return Ok(false),
        }
        Ok(true)
    }) {
        Ok(common) => common,
        Err(code) => return code,
    };
    // What the command line names loads before the window opens, so that an
    // unattended run with a bad file fails at once.
    // A Quake III player's folder opens once the inspector is made (the
    // demo model stands behind it); it is read here first, so that a bad
    // one fails before any window opens too.
    let quake3 = common.file.as_deref().and_then(player_dir);
    if let Some(dir) = &quake3
        && let Err(e) = PlayerFile::open(dir)
    {
        return framework::fail(&e);
    }
    let body = match (common.file.as_ref().filter(|_| quake3.is_none()), &skin) {
        (Some(file), skin) => ModelFile::open(file, skin.as_deref()),
        (None, Some(skin)) => ModelFile::demo().with_skin(skin),
        (None, None) => Ok(ModelFile::demo()),
    };
    // A Quake III player's weapon goes in its hand once it is shown.
    let held = weapon.clone().filter(|_| quake3.is_some());
    let loaded = body.and_then(|body| {
        let weapon = weapon
            .filter(|_| quake3.is_none())
            .map(|path| ModelFile::open(&path, None))
            .transpose()?;
        Ok((body, weapon))
    });
    let (body, weapon) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => return framework::fail(&e),
    };
    for warning in body.model.warnings() {
        println!("note: {}: {warning}", body.name);
    }
    let shown = match &quake3 {
        Some(dir) => dir.display().to_string(),
        None => body.name.clone(),
    };
    let title = format!("md2-wgpu viewer — {shown}");
    framework::gui::run(title, KEYS, common, move |setup: GuiSetup<'_>| {
        let gpu = InspectorGpu {
            device: setup.device.clone(),
            queue: setup.queue.clone(),
            target: SceneTarget::of_egui(setup.color_format, &setup.options),
        };
        let mut inspector = Inspector::new(gpu, setup.resources, body, weapon)?;
        if let Some(dir) = &quake3
            && !inspector.open_player(dir)
        {
            return Err(inspector.errors().join("; "));
        }
        if let Some(weapon) = &held
            && !inspector.open_weapon(weapon)
        {
            return Err(inspector.errors().join("; "));
        }
        Ok(inspector)
    })
}
