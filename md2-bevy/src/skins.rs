//! A model's skins, found the way Quake II mods lay them out and decoded
//! from bytes, all through Bevy's asset reader (so models load from any
//! asset source: a folder, an embedded or in-memory source, the web).
//!
//! The rules are md2-wgpu's [`search_skins`](md2_wgpu::skins::search_skins),
//! which reads the file system; here the same rules read the model's asset
//! source:
//!
//! 1. Each header name is looked for in the model's folder by its file
//!    name, ignoring case, `\` read as `/`: as written, then with each of
//!    [`SKIN_EXTENSIONS`]. A name not found there is tried as a game path
//!    (`players/male/skin.pcx`) from the folders above the model, never
//!    above the asset source's root.
//! 2. Where the header names no skin that exists, the folder's images are
//!    taken instead, except `*_i` icons, images another `.md2` in the folder
//!    names, and, where some images have the header's skin size, the images
//!    of other sizes; named after the folder or model first, `ctf_*` last.
//!
//! Images are decoded with md2-wgpu's `image` (PCX through `image-extras`),
//! with a size limit, and a decoder's panic is caught: a skin that does not
//! decode keeps its slot with md2-wgpu's checker and is reported, so skin
//! `i` is always the header's skin `i`.

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use bevy::asset::io::{AssetReaderError, ErasedAssetReader};
use bevy::asset::{AssetPath, LoadContext, ReadAssetBytesError};
use bevy::tasks::futures_lite::StreamExt;
use md2_wgpu::Md2Model;
use md2_wgpu::image::{ImageFormat, ImageReader, Limits, RgbaImage};
use md2_wgpu::mdl::Palette;
use md2_wgpu::skins::{
    FailedSkin, LoadedSkins, MAX_SKIN_SIDE, SKIN_EXTENSIONS, SkinError, SkinSource,
    candidate_names, split_skin_name,
};

/// Finds and decodes the skins of `model`, loaded from `ctx`'s path, with
/// `reader` (the model's asset source) listing folders. Skin files are read
/// through `ctx`, so a changed skin reloads the model where Bevy watches
/// for changes.
pub(crate) async fn load_skins(
    ctx: &mut LoadContext<'_>,
    reader: &dyn ErasedAssetReader,
    model: &Md2Model,
) -> LoadedSkins {
    image_extras::register();
    let model_path = ctx.path().path().to_path_buf();
    let folder = model_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let source = ctx.path().source().clone_owned();

    let mut paths = Vec::new();
    let mut unresolved = Vec::new();
    for skin in model.skins() {
        let name = skin.name();
        let path = resolve_skin_name(reader, &folder, &name).await;
        if path.is_none() {
            unresolved.push(name);
        }
        paths.push(path);
    }
    let source_kind = if paths.iter().any(Option::is_some) {
        SkinSource::Header
    } else {
        paths = folder_images(reader, &folder, &model_path, model.skin_size())
            .await
            .into_iter()
            .map(Some)
            .collect();
        if paths.is_empty() {
            SkinSource::None
        } else {
            SkinSource::Folder
        }
    };

    let mut images = Vec::with_capacity(paths.len());
    let mut failed = Vec::new();
    for (index, path) in paths.iter().enumerate() {
        let image = match path {
            None => RgbaImage::new(0, 0),
            Some(path) => {
                let asset_path = AssetPath::from_path_buf(path.clone()).with_source(source.clone());
                let decoded = match ctx.read_asset_bytes(asset_path).await {
                    Ok(bytes) => decode_skin(&bytes, path),
                    Err(error) => Err(read_error(path, error)),
                };
                decoded.unwrap_or_else(|error| {
                    failed.push(FailedSkin { index, error });
                    RgbaImage::new(0, 0)
                })
            }
        };
        images.push(image);
    }
    LoadedSkins {
        images,
        paths,
        source: source_kind,
        unresolved,
        failed,
    }
}

/// Decodes one skin image (PCX, PNG, TGA, BMP or JPEG) from its bytes:
/// the format from the first bytes, else from `path`'s extension (TGA has
/// no signature); a size of zero or above [`MAX_SKIN_SIDE`] is refused
/// before any pixel is decoded, and a decoder's panic is an error.
pub fn decode_skin(bytes: &[u8], path: &Path) -> Result<RgbaImage, SkinError> {
    image_extras::register();
    let (width, height) = guarded(path, || {
        reader(bytes, path)?
            .into_dimensions()
            .map_err(|e| undecodable(path, e))
    })?;
    if width == 0 || height == 0 || width > MAX_SKIN_SIDE || height > MAX_SKIN_SIDE {
        return Err(SkinError::AbsurdSize {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    guarded(path, || {
        let mut reader = reader(bytes, path)?;
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_SKIN_SIDE);
        limits.max_image_height = Some(MAX_SKIN_SIDE);
        // The image, one RGBA copy of it, and a decoder's row buffers.
        limits.max_alloc = Some(3 * 4 * u64::from(width) * u64::from(height) + (1 << 20));
        reader.limits(limits);
        let image = reader.decode().map_err(|e| undecodable(path, e))?;
        Ok(image.into_rgba8())
    })
}

/// An image reader over `bytes` with the format `path` and the bytes say.
fn reader<'a>(bytes: &'a [u8], path: &Path) -> Result<ImageReader<Cursor<&'a [u8]>>, SkinError> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let mut reader = ImageReader::new(Cursor::new(bytes));
    if extension.as_deref() == Some("tga") {
        // No signature, and a TGA's first bytes can look like a PCX's.
        reader.set_format(ImageFormat::Tga);
        return Ok(reader);
    }
    let mut reader = reader
        .with_guessed_format()
        .map_err(|source| SkinError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if reader.format().is_none()
        && let Some(format) = extension.as_deref().and_then(ImageFormat::from_extension)
    {
        reader.set_format(format);
    }
    Ok(reader)
}

fn guarded<T>(path: &Path, step: impl FnOnce() -> Result<T, SkinError>) -> Result<T, SkinError> {
    catch_unwind(AssertUnwindSafe(step)).unwrap_or_else(|_| {
        Err(SkinError::Undecodable {
            path: path.to_path_buf(),
            reason: "the decoder gave up on malformed data".to_owned(),
        })
    })
}

fn undecodable(path: &Path, error: md2_wgpu::image::ImageError) -> SkinError {
    SkinError::Undecodable {
        path: path.to_path_buf(),
        reason: error.to_string(),
    }
}

fn read_error(path: &Path, error: ReadAssetBytesError) -> SkinError {
    match error {
        ReadAssetBytesError::AssetReaderError(AssetReaderError::NotFound(_)) => {
            SkinError::Missing {
                path: path.to_path_buf(),
            }
        }
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
    let mut dirs = Vec::new();
    while let Some(path) = stream.next().await {
        if reader.is_directory(&path).await.unwrap_or(false) {
            dirs.push(path);
        } else {
            files.push(path);
        }
    }
    files.sort();
    dirs.sort();
    (files, dirs)
}

fn file_name(path: &Path) -> &str {
    path.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
}

/// The entry of `entries` called `name`, ignoring ASCII case; an exact
/// match wins, then the first (sorted) spelling, the same every time.
fn find_named<'a>(entries: &'a [PathBuf], name: &str) -> Option<&'a PathBuf> {
    entries.iter().find(|p| file_name(p) == name).or_else(|| {
        entries
            .iter()
            .find(|p| file_name(p).eq_ignore_ascii_case(name))
    })
}

async fn find_in_dir(
    reader: &dyn ErasedAssetReader,
    dir: &Path,
    names: &[String],
) -> Option<PathBuf> {
    let (files, _) = list(reader, dir).await;
    names.iter().find_map(|n| find_named(&files, n).cloned())
}

async fn resolve_skin_name(
    reader: &dyn ErasedAssetReader,
    folder: &Path,
    name: &str,
) -> Option<PathBuf> {
    let (dirs, file) = split_skin_name(name)?;
    let names = candidate_names(file);
    if let Some(found) = find_in_dir(reader, folder, &names).await {
        return Some(found);
    }
    // As a game path: its root is as many folders above the model's folder
    // as the name has folders, or fewer; never above the source's root.
    for up in 1..=dirs.len() {
        let Some(root) = folder.ancestors().nth(up) else {
            break;
        };
        let mut dir = root.to_path_buf();
        let mut found = true;
        for part in &dirs {
            let (_, subdirs) = list(reader, &dir).await;
            match find_named(&subdirs, part) {
                Some(next) => dir = next.clone(),
                None => {
                    found = false;
                    break;
                }
            }
        }
        if found && let Some(path) = find_in_dir(reader, &dir, &names).await {
            return Some(path);
        }
    }
    None
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

fn stem_lower(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
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

/// The folder's images that can be the model's skins (rule 2).
async fn folder_images(
    reader: &dyn ErasedAssetReader,
    folder: &Path,
    model_path: &Path,
    skin_size: (u32, u32),
) -> Vec<PathBuf> {
    let (files, _) = list(reader, folder).await;
    let mut images = Vec::new();
    let mut others = Vec::new();
    for path in files {
        if has_extension(&path, "md2") {
            if path.file_name() != model_path.file_name() {
                others.push(path);
            }
        } else if SKIN_EXTENSIONS
            .iter()
            .chain(&["jpeg"])
            .any(|ext| has_extension(&path, ext))
            && !stem_lower(&path).ends_with("_i")
        {
            images.push(path);
        }
    }

    // Images a sibling model names (a player's weapon.pcx) are its own.
    let mut taken = Vec::new();
    for other in &others {
        let Some(bytes) = read_all(reader, other).await else {
            continue;
        };
        if let Ok(sibling) = Md2Model::from_bytes(&bytes) {
            for skin in sibling.skins() {
                if let Some(path) = resolve_skin_name(reader, folder, &skin.name()).await {
                    taken.push(file_name(&path).to_ascii_lowercase());
                }
            }
        }
    }
    images.retain(|p| !taken.contains(&file_name(p).to_ascii_lowercase()));

    // Where some images have the header's skin size, the others belong to
    // something else.
    let mut fitting = Vec::with_capacity(images.len());
    for path in &images {
        let size = match read_all(reader, path).await {
            Some(bytes) => guarded(path, || reader_dimensions(&bytes, path)).ok(),
            None => None,
        };
        fitting.push(size == Some(skin_size));
    }
    if fitting.contains(&true) {
        let mut keep = fitting.into_iter();
        images.retain(|_| keep.next().unwrap_or(false));
    }

    let folder_name = folder
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let model_stem = stem_lower(model_path);
    images.sort_by_cached_key(|p| {
        let stem = stem_lower(p);
        (
            !(stem == folder_name || stem == model_stem),
            stem.starts_with("ctf_"),
            file_name(p).to_ascii_lowercase(),
            p.clone(),
        )
    });
    images
}

fn reader_dimensions(bytes: &[u8], path: &Path) -> Result<(u32, u32), SkinError> {
    reader(bytes, path)?
        .into_dimensions()
        .map_err(|e| undecodable(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skin_names_split_like_quake_paths() {
        assert_eq!(
            split_skin_name("players\\Yohko\\weapon.pcx"),
            Some((vec!["players", "Yohko"], "weapon.pcx"))
        );
        assert_eq!(split_skin_name("./skin.pcx"), Some((vec![], "skin.pcx")));
        assert_eq!(split_skin_name("../../etc/passwd"), None);
        assert_eq!(split_skin_name("  "), None);
        let names = candidate_names("Skin.PCX");
        assert_eq!(names[0], "Skin.PCX");
        assert!(names.iter().any(|n| n == "Skin.png"));
        assert!(
            !names[1..]
                .iter()
                .any(|n| n.eq_ignore_ascii_case("skin.pcx"))
        );
    }

    #[test]
    fn exact_spellings_win_then_case_is_ignored() {
        let entries = vec![PathBuf::from("a/SKIN.pcx"), PathBuf::from("a/skin.pcx")];
        assert_eq!(find_named(&entries, "skin.pcx"), Some(&entries[1]));
        assert_eq!(find_named(&entries, "Skin.Pcx"), Some(&entries[0]));
        assert_eq!(find_named(&entries, "other.pcx"), None);
    }

    #[test]
    fn hostile_images_are_errors_not_panics() {
        let path = Path::new("skin.pcx");
        assert!(decode_skin(&[], path).is_err());
        assert!(decode_skin(&[0x0a, 0x05, 0x01, 0x08, 0xff, 0xff], path).is_err());
        assert!(decode_skin(b"\x89PNG\r\n\x1a\n garbage", Path::new("s.png")).is_err());
        // A PNG of the demo skin decodes to itself.
        let skin = md2_wgpu::demo::demo_skin();
        let mut png = Vec::new();
        skin.write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
            .expect("PNG encodes");
        assert_eq!(
            decode_skin(&png, Path::new("s.png")).expect("decodes"),
            skin
        );
    }
}
