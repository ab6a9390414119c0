//! Quake III models for the tests: the tiny model and player built in code
//! (`md2_wgpu::support`'s, which md2-bevy's tests share), and the shared
//! OpenArena players (`../shared/md3`), skipped with the reason printed
//! where the folder is absent.

use std::path::{Path, PathBuf};

use md2_wgpu::format::md3::Md3SurfaceTexture;
pub use md2_wgpu::support::{
    QUARTER_TURN, STRAIGHT, TINY_PLAYER_DIR, load_player, tiny_md3, tiny_md3_parts, tiny_part,
    tiny_player, tiny_player_files,
};

/// The shared Quake III players' folder (`md3` beside the shared MD2
/// models: `$MD2_SHARED_MODELS/../md3`, else `../shared/md3`), or `None`
/// with the reason printed.
pub fn shared_md3_dir() -> Option<PathBuf> {
    let beside = md2_wgpu::support::shared_models_dir().join("..");
    let hint = "set MD2_SHARED_MODELS to point beside it";
    crate::shared::present_dir(beside.join("md3"), "the shared Quake III players", hint)
}

/// A surface's texture as Quake III finds it for a player in `dir`: the
/// first of the files it tries (`.tga`, then `.jpg`) whose last part is a
/// file in the folder, decoded; `None` where the skin names none or no
/// such file is there.
pub fn texture_in(dir: &Path, texture: &Md3SurfaceTexture) -> Option<image::RgbaImage> {
    texture
        .file_names()
        .map(|name| dir.join(name))
        .find(|file| file.is_file())
        .map(|file| {
            image::open(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
                .to_rgba8()
        })
}
