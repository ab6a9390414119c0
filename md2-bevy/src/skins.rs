//! A model's skins and a Quake I model's palette, found through Bevy's
//! asset reader (so models load from any asset source: a folder, an
//! embedded or in-memory source, the web).
//!
//! The rules are md2-wgpu's, written once in its
//! [`SkinFinder`](md2_wgpu::skins::SkinFinder), which does no I/O: here
//! its questions (a folder's entries, a file's bytes) are answered by the
//! model's asset source, never above the source's root. Images are decoded
//! with md2-wgpu's [`decode_skin`]: a skin that does not decode keeps its
//! slot with md2-wgpu's checker and is reported, so skin `i` is always the
//! header's skin `i`.

use std::path::{Path, PathBuf};

use bevy::asset::io::{AssetReaderError, ErasedAssetReader};
use bevy::asset::{AssetPath, LoadContext, ReadAssetBytesError};
use bevy::tasks::futures_lite::StreamExt;
use md2_wgpu::Md2Model;
use md2_wgpu::format::mdl::Palette;
pub use md2_wgpu::skins::decode_skin;
use md2_wgpu::skins::{LoadedSkins, SkinError, SkinFinder, SkinQuestion};

/// Finds and decodes the skins of `model`, loaded from `ctx`'s path, with
/// `reader` (the model's asset source) answering the search's questions.
/// Skin files are read through `ctx`, so a changed skin reloads the model
/// where Bevy watches for changes.
pub(crate) async fn load_skins(
    ctx: &mut LoadContext<'_>,
    reader: &dyn ErasedAssetReader,
    model: &Md2Model,
) -> LoadedSkins {
    let mut finder = SkinFinder::for_model(ctx.path().path(), model);
    let search = loop {
        match finder.search() {
            Ok(search) => break search,
            Err(SkinQuestion::List(dir)) => {
                let (files, folders) = list(reader, &dir).await;
                finder.listed(&dir, files, folders);
            }
            Err(SkinQuestion::Read(file)) => {
                let bytes = read_all(reader, &file).await;
                finder.read(&file, bytes.as_deref());
            }
        }
    };
    let source = ctx.path().source().clone_owned();
    let mut read = Vec::with_capacity(search.paths.len());
    for path in search.paths.iter().flatten() {
        let asset_path = AssetPath::from_path_buf(path.clone()).with_source(source.clone());
        read.push(
            ctx.read_asset_bytes(asset_path)
                .await
                .map_err(|error| read_error(path, error)),
        );
    }
    let mut read = read.into_iter();
    LoadedSkins::from_search(search, |_, path| {
        let bytes = read.next().unwrap_or_else(|| Err(missing(path)))?;
        decode_skin(&bytes, path)
    })
}

fn missing(path: &Path) -> SkinError {
    SkinError::Missing {
        path: path.to_path_buf(),
    }
}

fn read_error(path: &Path, error: ReadAssetBytesError) -> SkinError {
    match error {
        ReadAssetBytesError::AssetReaderError(AssetReaderError::NotFound(_)) => missing(path),
        other => SkinError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(other.to_string()),
        },
    }
}

/// A folder's entries: (files, folders).
async fn list(reader: &dyn ErasedAssetReader, dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let Ok(mut stream) = reader.read_directory(dir).await else {
        return (Vec::new(), Vec::new());
    };
    let mut files = Vec::new();
    let mut folders = Vec::new();
    while let Some(path) = stream.next().await {
        if reader.is_directory(&path).await.unwrap_or(false) {
            folders.push(path);
        } else {
            files.push(path);
        }
    }
    (files, folders)
}

/// A Quake I model's palette, looked for where md2-wgpu's
/// [`Palette::find`] looks ([`Palette::candidates`]: `palette.lmp` beside
/// the model, then the game's `gfx/palette.lmp`) through `reader`: the
/// first that reads as a palette and where it was, else the crate's
/// built-in one.
pub(crate) async fn load_palette(
    reader: &dyn ErasedAssetReader,
    model_path: &Path,
) -> (Option<PathBuf>, Palette) {
    for path in Palette::candidates(model_path) {
        if let Some(bytes) = read_all(reader, &path).await
            && let Ok(palette) = Palette::from_lmp(&bytes)
        {
            return (Some(path), palette);
        }
    }
    (None, Palette::builtin())
}

async fn read_all(reader: &dyn ErasedAssetReader, path: &Path) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut file = reader.read(path).await.ok()?;
    bevy::tasks::futures_lite::AsyncReadExt::read_to_end(&mut file, &mut bytes)
        .await
        .ok()?;
    Some(bytes)
}
