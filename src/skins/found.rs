//! What a skin search found, and the skins it found, decoded.

use std::path::{Path, PathBuf};

use image::RgbaImage;

use super::error::SkinError;

/// Where the skins a search found came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SkinSource {
    /// The header's skin names, resolved in the model's folder.
    Header,
    /// The header named none that exist; these are the folder's images.
    Folder,
    /// Nothing was found: the renderer will use its default texture.
    None,
}

/// The result of looking for a model's skins: the files, where they came
/// from, and the header names that led nowhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkinSearch {
    /// The skin file of each skin index. From the header: one per header
    /// name, `None` where the name matched no file. From the folder: each
    /// image taken, all `Some`.
    pub paths: Vec<Option<PathBuf>>,
    /// Whether they are the header's skins or the folder's images.
    pub source: SkinSource,
    /// Header names that matched no file, as stored.
    pub unresolved: Vec<String>,
}

/// A model's skins, decoded: what [`load_skins`](super::load_skins) returns.
#[derive(Debug)]
pub struct LoadedSkins {
    /// One image per skin index, ready for
    /// [`GpuModel::new`](crate::GpuModel::new). Where a skin could not be
    /// loaded (its header name matched no file, or the file did not decode)
    /// the image is empty (0 × 0), which the renderer draws with its default
    /// checker texture: skin `i` stays the header's skin `i`.
    pub images: Vec<RgbaImage>,
    /// The file of each skin index, as [`SkinSearch::paths`] gives it.
    pub paths: Vec<Option<PathBuf>>,
    /// Whether they are the header's skins or the folder's images.
    pub source: SkinSource,
    /// Header names that matched no file, as stored; their images are
    /// empty.
    pub unresolved: Vec<String>,
    /// Files that were found but did not decode, by skin index; their
    /// images are empty.
    pub failed: Vec<FailedSkin>,
}

/// A skin file that was found but did not load: see
/// [`LoadedSkins::failed`].
#[derive(Debug)]
pub struct FailedSkin {
    /// Its skin index: the slot in [`LoadedSkins::images`] left empty.
    pub index: usize,
    /// Why it did not load; it names the file.
    pub error: SkinError,
}

impl LoadedSkins {
    /// The skins `search` found, each decoded by `decode` (given its skin
    /// index and file): a skin that is not there or does not decode keeps
    /// its slot as an empty image (the renderer's default texture) and is
    /// reported in [`LoadedSkins::unresolved`] or [`LoadedSkins::failed`].
    pub fn from_search(
        search: SkinSearch,
        mut decode: impl FnMut(usize, &Path) -> Result<RgbaImage, SkinError>,
    ) -> LoadedSkins {
        let mut images = Vec::with_capacity(search.paths.len());
        let mut failed = Vec::new();
        for (index, path) in search.paths.iter().enumerate() {
            let image = match path.as_deref().map(|path| decode(index, path)) {
                Some(Ok(image)) => image,
                Some(Err(error)) => {
                    failed.push(FailedSkin { index, error });
                    RgbaImage::new(0, 0)
                }
                None => RgbaImage::new(0, 0),
            };
            images.push(image);
        }
        LoadedSkins {
            images,
            paths: search.paths,
            source: search.source,
            unresolved: search.unresolved,
            failed,
        }
    }

    /// How many skins loaded: the images that are not empty stand-ins.
    pub fn loaded_count(&self) -> usize {
        self.images.iter().filter(|i| i.width() > 0).count()
    }

    /// One line per thing the user may want to know: names that matched no
    /// file, files that did not decode, and where the skins came from when it
    /// was not the header.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        // Mods often ship a model whose header names a dozen skins that are
        // not there: one line, not a dozen.
        match self.unresolved.as_slice() {
            [] => {}
            [name] => notes.push(format!(
                "header skin {name:?}: no such file next to the model"
            )),
            names => {
                let shown: Vec<String> = names.iter().take(3).map(|n| format!("{n:?}")).collect();
                let more = names.len() - shown.len();
                notes.push(format!(
                    "{} header skins match no file next to the model: {}{}",
                    names.len(),
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                ));
            }
        }
        for FailedSkin { index, error } in &self.failed {
            notes.push(format!("{error} (skin {index} gets the default texture)"));
        }
        match self.source {
            SkinSource::Folder if self.loaded_count() > 0 => notes.push(format!(
                "using {} image(s) from the model's folder",
                self.loaded_count()
            )),
            _ if self.loaded_count() == 0 => notes.push("no skin found".to_owned()),
            _ => {}
        }
        notes
    }
}
