//! The skin search over the file system: [`SkinFinder`]'s questions
//! answered with `std::fs`, and skins decoded from files.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use image::RgbaImage;

use super::decode::{decode_with, reader};
use super::error::SkinError;
use super::finder::{SkinFinder, SkinQuestion};
use super::found::{LoadedSkins, SkinSearch};
use crate::format::Md2Model;

/// The skin file of each skin index of the model at `model_path` (`None`
/// where a header name matched no file).
///
/// See [`search_skins`] for the rules; this is its list of paths.
pub fn find_skins(model_path: impl AsRef<Path>, model: &Md2Model) -> Vec<Option<PathBuf>> {
    search_skins(model_path, model).paths
}

/// Looks for the skins of the model at `model_path` in the file system,
/// by [`SkinFinder`]'s rules. Paths in the model's folder are given as
/// `model_path`'s folder joined with the file's name; skins found as game
/// paths above it are absolute.
///
/// Never fails: an unreadable folder simply yields nothing.
pub fn search_skins(model_path: impl AsRef<Path>, model: &Md2Model) -> SkinSearch {
    let model_path = model_path.as_ref();
    // Absolute, so that a game path can climb above the working folder.
    let absolute = std::path::absolute(model_path).unwrap_or_else(|_| model_path.to_path_buf());
    let mut finder = SkinFinder::for_model(&absolute, model);
    let mut search = loop {
        match finder.search() {
            Ok(search) => break search,
            Err(SkinQuestion::List(dir)) => {
                let (files, folders) = list(&dir);
                finder.listed(&dir, files, folders);
            }
            Err(SkinQuestion::Read(file)) => finder.read(&file, fs::read(&file).ok().as_deref()),
        }
    };
    // The model's folder as the caller wrote it.
    let given = match model_path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if let Some(folder) = absolute.parent() {
        for path in search.paths.iter_mut().flatten() {
            if let Ok(name) = path.strip_prefix(folder) {
                *path = given.join(name);
            }
        }
    }
    search
}

/// Finds and decodes the skins of the model at `model_path` (see
/// [`search_skins`]), one image per skin index. A skin that is not there or
/// does not decode keeps its slot as an empty image (the renderer's default
/// texture) and is reported in [`LoadedSkins::unresolved`] or
/// [`LoadedSkins::failed`], so one corrupt image beside a model neither
/// stops it from being shown nor moves the other skins to other indices.
pub fn load_skins(model_path: impl AsRef<Path>, model: &Md2Model) -> LoadedSkins {
    LoadedSkins::from_search(search_skins(model_path, model), |_, path| load_skin(path))
}

/// Decodes one skin image file (PCX, PNG, TGA, BMP or JPEG) into RGBA, as
/// [`decode_skin`](super::decode_skin) decodes bytes, reading the file as
/// it decodes.
///
/// A file that is not there is [`SkinError::Missing`]; a size of zero or
/// above [`MAX_SKIN_SIDE`](super::MAX_SKIN_SIDE) is refused before any
/// pixel is decoded.
pub fn load_skin(path: impl AsRef<Path>) -> Result<RgbaImage, SkinError> {
    let path = path.as_ref();
    decode_with(path, || {
        let file = fs::File::open(path).map_err(|source| io_error(path, source))?;
        reader(io::BufReader::new(file), path)
    })
}

/// A folder's files and subfolders (links followed); nothing where it
/// cannot be read.
fn list(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut files, mut folders) = (Vec::new(), Vec::new());
    let Ok(entries) = fs::read_dir(dir) else {
        return (files, folders);
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() => folders.push(path),
            Ok(m) if m.is_file() => files.push(path),
            _ => {}
        }
    }
    (files, folders)
}

fn io_error(path: &Path, source: io::Error) -> SkinError {
    if source.kind() == io::ErrorKind::NotFound {
        SkinError::Missing {
            path: path.to_path_buf(),
        }
    } else {
        SkinError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
