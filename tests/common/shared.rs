//! Where the community models and the test pictures are.

use std::path::{Path, PathBuf};

use image::RgbaImage;
use md2_wgpu::Md2Model;
/// Where the shared community models are: `$MD2_SHARED_MODELS`, else
/// `../shared/md2` beside the crate; `None` (with the reason printed) where
/// that folder is absent, as in a fresh clone.
pub fn shared_dir() -> Option<PathBuf> {
    present_dir(
        md2_wgpu::support::shared_models_dir(),
        "the shared models",
        "set MD2_SHARED_MODELS to point elsewhere",
    )
}

/// `dir` where it is a folder; else `None`, printing that the part that
/// needs `what` is skipped and how to point at it (`hint`).
pub(crate) fn present_dir(dir: PathBuf, what: &str, hint: &str) -> Option<PathBuf> {
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping the part that needs {what}: {} is absent (a fresh clone has no \
             ../shared; {hint})",
            dir.display()
        );
        None
    }
}

/// `<shared models>/<relative>`, or `None` with the reason printed.
pub fn shared_file(relative: &str) -> Option<PathBuf> {
    let path = shared_dir()?.join(relative);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!("skipping the part that needs {}: absent", path.display());
        None
    }
}

/// A real model from ../shared/md2 and (optionally) its skin, or `None`
/// with the reason printed.
pub fn shared_model(relative: &str, skin: Option<&str>) -> Option<(Md2Model, Vec<RgbaImage>)> {
    let model = Md2Model::open(shared_file(relative)?).expect("real model parses");
    let skins = match skin {
        Some(skin) => vec![md2_wgpu::skins::load_skin(shared_file(skin)?).expect("skin decodes")],
        None => Vec::new(),
    };
    Some((model, skins))
}

/// The animated models the picture tests draw, with their skins: the demo
/// model, and yohko and ogro where ../shared is present.
pub fn animated_models() -> Vec<(&'static str, Md2Model, Vec<RgbaImage>)> {
    let mut models = vec![(
        "demo",
        md2_wgpu::demo::demo_model(),
        vec![md2_wgpu::demo::demo_skin()],
    )];
    if let Some((m, s)) = shared_model("yohko/tris.md2", Some("yohko/Yohko.pcx")) {
        models.push(("yohko", m, s));
    }
    if let Some((m, s)) = shared_model("ogro/ogros.MD2", Some("ogro/ogrobase.bmp")) {
        models.push(("ogro", m, s));
    }
    models
}

/// Every `*.md2` (any case) in the shared models folder, as (path relative to that
/// folder with `/` separators, bytes), sorted by path. Empty where absent.
pub fn real_files() -> Vec<(String, Vec<u8>)> {
    let Some(dir) = shared_dir() else {
        return Vec::new();
    };
    md2_wgpu::support::md2_files_in(&dir).expect("read the shared models folder")
}

/// Quake II's player animations, as the game names them (and
/// `Quake2Player` does): name, first frame, last frame, in order. The
/// shared player models and weapons keep these frames under names of
/// their own.
pub const QUAKE2_PLAYER_FRAMES: [(&str, u32, u32); 20] = [
    ("stand", 0, 39),
    ("run", 40, 45),
    ("attack", 46, 53),
    ("pain1", 54, 57),
    ("pain2", 58, 61),
    ("pain3", 62, 65),
    ("jump", 66, 71),
    ("flip", 72, 83),
    ("salute", 84, 94),
    ("taunt", 95, 111),
    ("wave", 112, 122),
    ("point", 123, 134),
    ("crstand", 135, 153),
    ("crwalk", 154, 159),
    ("crattack", 160, 168),
    ("crpain", 169, 172),
    ("crdeath", 173, 177),
    ("death1", 178, 183),
    ("death2", 184, 189),
    ("death3", 190, 197),
];

/// The workspace's root: the md2-wgpu crate's folder, above this one.
pub fn workspace_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives in the workspace")
        .to_path_buf()
}

/// Where the reference pictures are: `$MD2_REFERENCE_DIR`, else
/// `tests/reference` of the workspace the binary was built in, else of the
/// current directory (a test binary copied to another machine runs from a
/// checkout's root there: `benches/device.sh`).
pub fn reference_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MD2_REFERENCE_DIR") {
        return PathBuf::from(dir);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("reference");
    let here = Path::new("tests").join("reference");
    if !built.is_dir() && here.is_dir() {
        here
    } else {
        built
    }
}

/// Cargo's target directory (which `CARGO_TARGET_DIR` may move).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_dir().join("target"),
    }
}

/// Where test pictures go for people to look at: <target>/test-pictures.
pub fn picture_dir() -> PathBuf {
    let dir = target_dir().join("test-pictures");
    std::fs::create_dir_all(&dir).expect("create target/test-pictures");
    dir
}

/// Saves `image` under target/test-pictures for looking at.
pub fn save_picture(image: &RgbaImage, name: &str) {
    let path = picture_dir().join(name);
    image.save(&path).expect("write test picture");
}
