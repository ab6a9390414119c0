//! A model inspector: an MD2 model's animations, interpolated on the GPU,
//! as a list to click, a timeline to scrub, its skins, Quake II's effects,
//! the weapon a player holds, and the file's facts and warnings, in an egui
//! interface. Drop a file on the window (or type its path) to open it.
//!
//! ```text
//! cargo run --release --example viewer [-- FILE [--skin PATH] [--weapon FILE]]
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
use md2_wgpu_examples::inspector::scene::SceneTarget;
use md2_wgpu_examples::inspector::{Inspector, InspectorGpu, KEYS};

const USAGE: &str = "\
usage: viewer [FILE] [--skin PATH] [--weapon FILE] [options]

  FILE                  an .md2 or .mdl model (default: the built-in demo model)
  --skin PATH           use this image as the skin instead of looking for them
  --weapon FILE         a Quake II weapon model, drawn with the body's frames";

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
    let body = match (&common.file, &skin) {
        (Some(file), skin) => ModelFile::open(file, skin.as_deref()),
        (None, Some(skin)) => ModelFile::demo().with_skin(skin),
        (None, None) => Ok(ModelFile::demo()),
    };
    let loaded = body.and_then(|body| {
        let weapon = weapon
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
    let title = format!("md2-wgpu viewer — {}", body.name);
    framework::gui::run(title, KEYS, common, move |setup: GuiSetup<'_>| {
        let gpu = InspectorGpu {
            device: setup.device.clone(),
            queue: setup.queue.clone(),
            target: SceneTarget::of_egui(setup.color_format, &setup.options),
        };
        Inspector::new(gpu, setup.resources, body, weapon)
    })
}
