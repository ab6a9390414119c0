//! Finding and decoding a model's skins the way Quake II mods lay them out.
//!
//! A model's header names its skins as game paths (`players/ogro/igdosh.pcx`,
//! `players\Yohko\weapon.pcx`, `models/weapons/g_rail/skin.pcx`), written on
//! whatever machine the author had: backslashes, any letter case, and often
//! names that were never shipped. [`find_skins`] resolves them against the
//! model's folder, and when the header names none (or none that exist) it
//! takes the folder's images, minus what clearly belongs to something else.
//! [`load_skin`] decodes one image with the `image` crate (PCX through
//! `image-extras`), with a size limit, and never panics whatever the bytes.
//! [`load_skins`] does both, and keeps one slot per skin index, so that
//! skin `i` is always the header's skin `i` whatever failed to load.
//!
//! Every [`SkinError`] names its file, once; the model's own errors follow
//! the same rule (see [`Md2Error`](crate::Md2Error)).
//!
//! This module has no GPU types: it hands over decoded RGBA images.

use std::fmt;
use std::fs;
use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use image::{ImageReader, Limits, RgbaImage};

use crate::format::Md2Model;

/// The largest skin side [`load_skin`] accepts, in texels. Quake II skins are
/// at most a few hundred texels; high-resolution replacements reach 2048.
/// The limit keeps a hostile header from making a decoder allocate more than
/// 64 MiB of RGBA.
pub const MAX_SKIN_SIDE: u32 = 4096;

/// The image extensions tried for a skin name, in this order, after the
/// extension the name itself carries.
pub const SKIN_EXTENSIONS: [&str; 5] = ["pcx", "png", "tga", "bmp", "jpg"];

/// Why a skin image could not be loaded. Every variant names the file.
#[derive(Debug)]
#[non_exhaustive]
pub enum SkinError {
    /// There is no file at this path.
    Missing {
        /// The path that was looked for.
        path: PathBuf,
    },
    /// The file exists but could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// The bytes are not an image the decoders understand, or are corrupt.
    Undecodable {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        reason: String,
    },
    /// The image declares a size no skin has: zero, or a side above
    /// [`MAX_SKIN_SIDE`].
    AbsurdSize {
        /// The file.
        path: PathBuf,
        /// The width the file declares.
        width: u32,
        /// The height the file declares.
        height: u32,
    },
}

impl SkinError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            SkinError::Missing { path }
            | SkinError::Io { path, .. }
            | SkinError::Undecodable { path, .. }
            | SkinError::AbsurdSize { path, .. } => path,
        }
    }
}

impl fmt::Display for SkinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkinError::Missing { path } => write!(f, "skin {}: no such file", path.display()),
            SkinError::Io { path, source } => {
                write!(f, "skin {}: cannot read: {source}", path.display())
            }
            SkinError::Undecodable { path, reason } => {
                write!(
                    f,
                    "skin {}: not a decodable image: {reason}",
                    path.display()
                )
            }
            SkinError::AbsurdSize {
                path,
                width,
                height,
            } => write!(
                f,
                "skin {}: declares {width}x{height} texels (a skin is 1 to {MAX_SKIN_SIDE} a side)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for SkinError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SkinError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Where the skins [`find_skins`] returned came from.
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

/// A model's skins, decoded: what [`load_skins`] returns.
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

/// The skin file of each skin index of the model at `model_path` (`None`
/// where a header name matched no file).
///
/// See [`search_skins`] for the rules; this is its list of paths.
pub fn find_skins(model_path: impl AsRef<Path>, model: &Md2Model) -> Vec<Option<PathBuf>> {
    search_skins(model_path, model).paths
}

/// Looks for the skins of the model at `model_path`, the way Quake II mods
/// lay them out.
///
/// 1. Each header name is resolved in the model's folder by its file name,
///    case-insensitively, with `\` read as `/`: first as written, then with
///    each of [`SKIN_EXTENSIONS`]. A name not found there is tried as a game
///    path (`players/male/skin.pcx` from `baseq2/players/female/tris.md2`
///    finds `baseq2/players/male/skin.pcx`), never above the game root the
///    name implies.
/// 2. When the header names no skin, or none of its names exist, the folder's
///    images are taken instead, except those that belong to something else:
///    `*_i` icons, images another `.md2` in the folder names (a player's
///    `weapon.pcx`), and, when some images have exactly the header's skin
///    size, every image of another size (a weapon's skin beside a player's).
///    They are ordered: named after the folder or model first, team skins
///    (`ctf_*`) last, otherwise by name ignoring case.
///
/// Never fails: an unreadable folder simply yields nothing.
pub fn search_skins(model_path: impl AsRef<Path>, model: &Md2Model) -> SkinSearch {
    image_extras::register();
    let model_path = model_path.as_ref();
    let folder = model_folder(model_path);

    let mut paths = Vec::new();
    let mut unresolved = Vec::new();
    for skin in model.skins() {
        let name = skin.name();
        let path = resolve_skin_name(&folder, &name);
        if path.is_none() {
            unresolved.push(name);
        }
        paths.push(path);
    }
    if paths.iter().any(Option::is_some) {
        return SkinSearch {
            paths,
            source: SkinSource::Header,
            unresolved,
        };
    }

    let paths: Vec<Option<PathBuf>> = folder_images(&folder, model_path, model.skin_size())
        .into_iter()
        .map(Some)
        .collect();
    let source = if paths.is_empty() {
        SkinSource::None
    } else {
        SkinSource::Folder
    };
    SkinSearch {
        paths,
        source,
        unresolved,
    }
}

/// Finds and decodes the skins of the model at `model_path` (see
/// [`search_skins`]), one image per skin index. A skin that is not there or
/// does not decode keeps its slot as an empty image (the renderer's default
/// texture) and is reported in [`LoadedSkins::unresolved`] or
/// [`LoadedSkins::failed`], so one corrupt image beside a model neither
/// stops it from being shown nor moves the other skins to other indices.
pub fn load_skins(model_path: impl AsRef<Path>, model: &Md2Model) -> LoadedSkins {
    let search = search_skins(model_path, model);
    let mut images = Vec::with_capacity(search.paths.len());
    let mut failed = Vec::new();
    for (index, path) in search.paths.iter().enumerate() {
        let image = match path.as_deref().map(load_skin) {
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

/// Decodes one skin image (PCX, PNG, TGA, BMP or JPEG) into RGBA.
///
/// The format is read from the file's first bytes, falling back to the
/// extension (TGA has no signature). A file that is not there is
/// [`SkinError::Missing`]; a size of zero or above [`MAX_SKIN_SIDE`] is
/// refused before any pixel is decoded.
pub fn load_skin(path: impl AsRef<Path>) -> Result<RgbaImage, SkinError> {
    image_extras::register();
    let path = path.as_ref();
    let (width, height) = guarded(path, || dimensions(path))?;
    if width == 0 || height == 0 || width > MAX_SKIN_SIDE || height > MAX_SKIN_SIDE {
        return Err(SkinError::AbsurdSize {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    guarded(path, || {
        let mut reader = open_reader(path)?;
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_SKIN_SIDE);
        limits.max_image_height = Some(MAX_SKIN_SIDE);
        // The decoded image plus one RGBA copy of it, with room for a
        // decoder's row buffers.
        limits.max_alloc = Some(3 * 4 * u64::from(width) * u64::from(height) + (1 << 20));
        reader.limits(limits);
        let image = reader.decode().map_err(|e| undecodable(path, e))?;
        Ok(image.into_rgba8())
    })
}

/// Runs a decoder step, turning a panic inside a third-party decoder (old
/// formats, hostile headers) into an error that names the file.
fn guarded<T>(path: &Path, step: impl FnOnce() -> Result<T, SkinError>) -> Result<T, SkinError> {
    catch_unwind(AssertUnwindSafe(step)).unwrap_or_else(|_| {
        Err(SkinError::Undecodable {
            path: path.to_path_buf(),
            reason: "the decoder gave up on malformed data".to_owned(),
        })
    })
}

fn open_reader(path: &Path) -> Result<ImageReader<io::BufReader<fs::File>>, SkinError> {
    let reader = ImageReader::open(path).map_err(|source| io_error(path, source))?;
    if has_extension(path, "tga") {
        // TGA has no signature, and its first bytes can look like PCX's.
        return Ok(reader);
    }
    reader
        .with_guessed_format()
        .map_err(|source| io_error(path, source))
}

fn dimensions(path: &Path) -> Result<(u32, u32), SkinError> {
    open_reader(path)?
        .into_dimensions()
        .map_err(|e| undecodable(path, e))
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

fn undecodable(path: &Path, error: image::ImageError) -> SkinError {
    SkinError::Undecodable {
        path: path.to_path_buf(),
        reason: error.to_string(),
    }
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

fn model_folder(model_path: &Path) -> PathBuf {
    match model_path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A header skin name split into its folders and file name: `\` read as
/// `/`, empty and `.` parts dropped. `..` parts make the name unusable: a
/// skin name must not lead out of the game's folders.
///
/// Public so that a host that finds files its own way (Bevy's asset
/// reader, a browser's dropped files) applies the same rule as
/// [`search_skins`].
///
/// ```
/// use md2_wgpu::skins::split_skin_name;
///
/// assert_eq!(
///     split_skin_name("players\\Soldier\\Blue.PCX"),
///     Some((vec!["players", "Soldier"], "Blue.PCX"))
/// );
/// assert_eq!(split_skin_name("../../etc/passwd"), None);
/// ```
pub fn split_skin_name(name: &str) -> Option<(Vec<&str>, &str)> {
    let mut parts: Vec<&str> = name
        .trim()
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return None;
    }
    let file = parts.pop()?;
    Some((parts, file))
}

/// The file names to try for a skin's file name: as written, then its stem
/// with each of [`SKIN_EXTENSIONS`] (compare them to files ignoring ASCII
/// case, as [`search_skins`] does). Public for the same reason as
/// [`split_skin_name`].
///
/// ```
/// use md2_wgpu::skins::candidate_names;
///
/// assert_eq!(candidate_names("skin.PCX"), ["skin.PCX", "skin.png", "skin.tga", "skin.bmp", "skin.jpg"]);
/// ```
pub fn candidate_names(file: &str) -> Vec<String> {
    let stem = match file.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => file,
    };
    let mut names = vec![file.to_owned()];
    for ext in SKIN_EXTENSIONS {
        let name = format!("{stem}.{ext}");
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            names.push(name);
        }
    }
    names
}

/// Resolves one header skin name, see [`search_skins`].
fn resolve_skin_name(folder: &Path, name: &str) -> Option<PathBuf> {
    let (dirs, file) = split_skin_name(name)?;
    let names = candidate_names(file);
    if let Some(found) = find_in_dir(folder, &names) {
        return Some(found);
    }
    // As a game path: the game root lies as many folders above the model's
    // folder as the name has folders, or fewer (a model kept shallower).
    let absolute = std::path::absolute(folder).ok()?;
    for up in 1..=dirs.len() {
        let Some(root) = absolute.ancestors().nth(up) else {
            break;
        };
        let mut dir = root.to_path_buf();
        let mut ok = true;
        for part in &dirs {
            match find_entry(&dir, part, true) {
                Some(next) => dir = next,
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok && let Some(found) = find_in_dir(&dir, &names) {
            return Some(found);
        }
    }
    None
}

/// The first of `names` (in order) that is a file in `dir`, ignoring case.
fn find_in_dir(dir: &Path, names: &[String]) -> Option<PathBuf> {
    names.iter().find_map(|name| find_entry(dir, name, false))
}

/// The entry of `dir` called `name`, ignoring ASCII case; an exact match wins
/// over a case-insensitive one. `want_dir` picks folders, otherwise files.
fn find_entry(dir: &Path, name: &str, want_dir: bool) -> Option<PathBuf> {
    let exact = dir.join(name);
    let is_kind =
        |p: &Path| fs::metadata(p).is_ok_and(|m| if want_dir { m.is_dir() } else { m.is_file() });
    if is_kind(&exact) {
        return Some(exact);
    }
    let mut matches: Vec<PathBuf> = fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
        .map(|e| e.path())
        .filter(|p| is_kind(p))
        .collect();
    // Several spellings of one name (possible on a case-sensitive disk): the
    // same one every time.
    matches.sort();
    matches.into_iter().next()
}

fn is_skin_image(path: &Path) -> bool {
    SKIN_EXTENSIONS
        .iter()
        .chain(&["jpeg"])
        .any(|ext| has_extension(path, ext))
}

fn file_stem_lower(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// The folder's images that can be this model's skins, see [`search_skins`].
fn folder_images(folder: &Path, model_path: &Path, skin_size: (u32, u32)) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut images = Vec::new();
    let mut other_models = Vec::new();
    let model_name = model_path.file_name();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if !fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        if has_extension(&path, "md2") {
            if path.file_name() != model_name {
                other_models.push(path);
            }
        } else if is_skin_image(&path) && !file_stem_lower(&path).ends_with("_i") {
            images.push(path);
        }
    }

    let mut taken = Vec::new();
    for other in &other_models {
        // A sibling that does not load names nothing.
        if let Ok(model) = Md2Model::open(other) {
            taken.extend(
                model
                    .skins()
                    .iter()
                    .filter_map(|s| resolve_skin_name(folder, &s.name())),
            );
        }
    }
    let taken: Vec<String> = taken.iter().map(|p| file_name_lower(p)).collect();
    images.retain(|p| !taken.contains(&file_name_lower(p)));

    let fitting: Vec<bool> = images
        .iter()
        .map(|p| guarded(p, || dimensions(p)).ok() == Some(skin_size))
        .collect();
    if fitting.contains(&true) {
        let mut keep = fitting.into_iter();
        images.retain(|_| keep.next().unwrap_or(false));
    }

    let folder_name = std::path::absolute(folder)
        .ok()
        .and_then(|f| {
            f.file_name()
                .map(|n| n.to_string_lossy().to_ascii_lowercase())
        })
        .unwrap_or_default();
    let model_stem = file_stem_lower(model_path);
    images.sort_by_cached_key(|p| {
        let stem = file_stem_lower(p);
        let named_after = stem == folder_name || stem == model_stem;
        (
            !named_after,
            stem.starts_with("ctf_"),
            file_name_lower(p),
            p.clone(),
        )
    });
    images
}

fn file_name_lower(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skin_names_split_on_both_slashes() {
        assert_eq!(
            split_skin_name("players\\Yohko\\weapon.pcx"),
            Some((vec!["players", "Yohko"], "weapon.pcx"))
        );
        assert_eq!(
            split_skin_name("models//weapons/./g_rail/skin.pcx"),
            Some((vec!["models", "weapons", "g_rail"], "skin.pcx"))
        );
        assert_eq!(split_skin_name("skin.pcx"), Some((vec![], "skin.pcx")));
        assert_eq!(split_skin_name(""), None);
        assert_eq!(split_skin_name("  / "), None);
        assert_eq!(split_skin_name("../../etc/passwd"), None);
    }

    #[test]
    fn candidates_keep_the_written_name_first() {
        assert_eq!(
            candidate_names("Skin.PCX"),
            ["Skin.PCX", "Skin.png", "Skin.tga", "Skin.bmp", "Skin.jpg"]
        );
        assert_eq!(
            candidate_names("skin"),
            [
                "skin", "skin.pcx", "skin.png", "skin.tga", "skin.bmp", "skin.jpg"
            ]
        );
        assert_eq!(candidate_names(".pcx")[0], ".pcx");
    }
}
