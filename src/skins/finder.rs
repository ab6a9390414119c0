//! The skin search's rules, with no I/O of their own: a [`SkinFinder`]
//! asks for what it needs to know (a folder's entries, a file's bytes) and
//! whoever holds the files answers, blocking or not. The file system
//! ([`search_skins`](super::search_skins)), Bevy's asset reader and a
//! browser's dropped files all drive this one search.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::decode::image_size;
use super::found::{SkinSearch, SkinSource};
use super::names::{SKIN_EXTENSIONS, candidate_names, split_skin_name};
use crate::format::Md2Model;

/// What a [`SkinFinder`] needs to know next.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SkinQuestion {
    /// The entries of this folder (the empty path is the root of a source
    /// of relative paths): answer with [`SkinFinder::listed`].
    List(PathBuf),
    /// The bytes of this file (another model beside this one, or an image
    /// whose size decides whether it can be this model's skin): answer
    /// with [`SkinFinder::read`].
    Read(PathBuf),
}

/// Looks for a model's skins, the way Quake II mods lay them out, without
/// touching a file itself.
///
/// 1. Each header name is resolved in the model's folder by its file name,
///    case-insensitively, with `\` read as `/`: first as written, then with
///    each of [`SKIN_EXTENSIONS`](super::SKIN_EXTENSIONS). A name not found
///    there is tried as a game path (`players/male/skin.pcx` from
///    `baseq2/players/female/tris.md2` finds `baseq2/players/male/skin.pcx`),
///    never above the game root the name implies, nor above the root of the
///    paths given.
/// 2. When the header names no skin, or none of its names exist, the
///    folder's images are taken instead, except those that belong to
///    something else: `*_i` icons, images another `.md2` in the folder
///    names (a player's `weapon.pcx`), and, when some images have exactly
///    the header's skin size, every image of another size (a weapon's skin
///    beside a player's). They are ordered: named after the folder or model
///    first, team skins (`ctf_*`) last, otherwise by name ignoring case.
///
/// Drive it with [`search`](SkinFinder::search) until it gives the search:
///
/// ```
/// use std::path::{Path, PathBuf};
/// use md2_wgpu::skins::{SkinFinder, SkinQuestion, SkinSource};
///
/// // A folder of two files, as a host with its own storage would list it.
/// let folder = [PathBuf::from("ogro/tris.md2"), PathBuf::from("ogro/Igdosh.PCX")];
/// let mut finder = SkinFinder::new("ogro/tris.md2", vec!["players/ogro/igdosh.pcx".into()], (256, 256));
/// let search = loop {
///     match finder.search() {
///         Ok(search) => break search,
///         Err(SkinQuestion::List(dir)) if dir == Path::new("ogro") => {
///             finder.listed(&dir, folder.to_vec(), Vec::new())
///         }
///         Err(SkinQuestion::List(dir)) => finder.listed(&dir, Vec::new(), Vec::new()),
///         Err(SkinQuestion::Read(file)) => finder.read(&file, None),
///     }
/// };
/// assert_eq!(search.source, SkinSource::Header);
/// assert_eq!(search.paths, [Some(PathBuf::from("ogro/Igdosh.PCX"))]);
/// ```
#[derive(Clone, Debug)]
pub struct SkinFinder {
    model_path: PathBuf,
    folder: PathBuf,
    names: Vec<String>,
    skin_size: (u32, u32),
    listings: HashMap<PathBuf, Listing>,
    reads: HashMap<PathBuf, Read>,
    last: Option<SkinQuestion>,
}

/// A folder's entries, sorted.
#[derive(Clone, Debug, Default)]
struct Listing {
    files: Vec<PathBuf>,
    folders: Vec<PathBuf>,
}

/// What a file's bytes told: only what the rules use is kept, not the
/// bytes.
#[derive(Clone, Debug)]
enum Read {
    /// Another model's header skin names (none where it did not load).
    SkinNames(Vec<String>),
    /// An image's size (`None` where it did not decode).
    Size(Option<(u32, u32)>),
}

/// A step of the search: its value, or the question that stopped it.
type Step<T> = Result<T, SkinQuestion>;

impl SkinFinder {
    /// A search for the skins of the model at `model_path`, whose header
    /// names `skin_names` and gives `skin_size`. Paths in questions and in
    /// the search are `model_path`'s folder joined with the names the
    /// answers give.
    pub fn new(
        model_path: impl Into<PathBuf>,
        skin_names: Vec<String>,
        skin_size: (u32, u32),
    ) -> SkinFinder {
        let model_path = model_path.into();
        let folder = model_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        SkinFinder {
            model_path,
            folder,
            names: skin_names,
            skin_size,
            listings: HashMap::new(),
            reads: HashMap::new(),
            last: None,
        }
    }

    /// [`SkinFinder::new`] with `model`'s header skin names and size.
    pub fn for_model(model_path: impl Into<PathBuf>, model: &Md2Model) -> SkinFinder {
        let names = model.skins().iter().map(|s| s.name()).collect();
        SkinFinder::new(model_path, names, model.skin_size())
    }

    /// The search, where the answers given so far settle it; else the
    /// question to answer next. A question asked again without its answer
    /// is taken as answered with nothing (an empty folder, an unreadable
    /// file), so the search always ends.
    pub fn search(&mut self) -> Result<SkinSearch, SkinQuestion> {
        loop {
            match self.run() {
                Ok(search) => return Ok(search),
                Err(question) if self.last.as_ref() == Some(&question) => match question {
                    SkinQuestion::List(dir) => self.listed(&dir, Vec::new(), Vec::new()),
                    SkinQuestion::Read(file) => self.read(&file, None),
                },
                Err(question) => {
                    self.last = Some(question.clone());
                    return Err(question);
                }
            }
        }
    }

    /// Answers [`SkinQuestion::List`]: the folder's files and subfolders,
    /// as paths under `folder`.
    pub fn listed(&mut self, folder: &Path, mut files: Vec<PathBuf>, mut folders: Vec<PathBuf>) {
        // Sorted, so that of two spellings of one name the same one is
        // found every time, whatever order the host lists them in.
        files.sort();
        folders.sort();
        self.listings
            .insert(folder.to_path_buf(), Listing { files, folders });
    }

    /// Answers [`SkinQuestion::Read`]: the file's bytes, `None` where it
    /// could not be read.
    pub fn read(&mut self, file: &Path, bytes: Option<&[u8]>) {
        let read = if has_extension(file, "md2") {
            Read::SkinNames(
                bytes
                    .and_then(|b| Md2Model::from_bytes(b).ok())
                    .map(|m| m.skins().iter().map(|s| s.name()).collect())
                    .unwrap_or_default(),
            )
        } else {
            Read::Size(bytes.and_then(|b| image_size(b, file).ok()))
        };
        self.reads.insert(file.to_path_buf(), read);
    }

    /// The whole search over the answers so far; it is cheap (a few
    /// folders), so each answer runs it again from the start rather than
    /// keeping a half-done search.
    fn run(&self) -> Step<SkinSearch> {
        let mut paths = Vec::new();
        let mut unresolved = Vec::new();
        for name in &self.names {
            let path = self.resolve(name)?;
            if path.is_none() {
                unresolved.push(name.clone());
            }
            paths.push(path);
        }
        if paths.iter().any(Option::is_some) {
            return Ok(SkinSearch {
                paths,
                source: SkinSource::Header,
                unresolved,
            });
        }
        let paths: Vec<Option<PathBuf>> = self.folder_images()?.into_iter().map(Some).collect();
        let source = if paths.is_empty() {
            SkinSource::None
        } else {
            SkinSource::Folder
        };
        Ok(SkinSearch {
            paths,
            source,
            unresolved,
        })
    }

    fn listing(&self, dir: &Path) -> Step<&Listing> {
        self.listings
            .get(dir)
            .ok_or_else(|| SkinQuestion::List(dir.to_path_buf()))
    }

    fn read_of(&self, file: &Path) -> Step<&Read> {
        self.reads
            .get(file)
            .ok_or_else(|| SkinQuestion::Read(file.to_path_buf()))
    }

    /// Resolves one header skin name (rule 1).
    fn resolve(&self, name: &str) -> Step<Option<PathBuf>> {
        let Some((dirs, file)) = split_skin_name(name) else {
            return Ok(None);
        };
        let names = candidate_names(file);
        if let Some(found) = self.find_file(&self.folder, &names)? {
            return Ok(Some(found));
        }
        // As a game path: the game root lies as many folders above the
        // model's folder as the name has folders, or fewer (a model kept
        // shallower).
        for up in 1..=dirs.len() {
            let Some(root) = self.folder.ancestors().nth(up) else {
                break;
            };
            let mut dir = root.to_path_buf();
            let mut found = true;
            for part in &dirs {
                match find_named(&self.listing(&dir)?.folders, part) {
                    Some(next) => dir = next.clone(),
                    None => {
                        found = false;
                        break;
                    }
                }
            }
            if found && let Some(path) = self.find_file(&dir, &names)? {
                return Ok(Some(path));
            }
        }
        Ok(None)
    }

    /// The first of `names` (in order) that is a file in `dir`.
    fn find_file(&self, dir: &Path, names: &[String]) -> Step<Option<PathBuf>> {
        let files = &self.listing(dir)?.files;
        Ok(names.iter().find_map(|n| find_named(files, n).cloned()))
    }

    /// The folder's images that can be this model's skins (rule 2).
    fn folder_images(&self) -> Step<Vec<PathBuf>> {
        let mut images = Vec::new();
        let mut others = Vec::new();
        let model_name = self.model_path.file_name();
        for path in &self.listing(&self.folder)?.files {
            if has_extension(path, "md2") {
                if path.file_name() != model_name {
                    others.push(path);
                }
            } else if is_skin_image(path) && !stem_lower(path).ends_with("_i") {
                images.push(path.clone());
            }
        }

        // Images a sibling model names (a player's weapon.pcx) are its own;
        // a sibling that does not load names nothing.
        let mut taken = Vec::new();
        for other in others {
            if let Read::SkinNames(names) = self.read_of(other)? {
                for name in names {
                    if let Some(path) = self.resolve(name)? {
                        taken.push(file_name_lower(&path));
                    }
                }
            }
        }
        images.retain(|p| !taken.contains(&file_name_lower(p)));

        // Where some images have the header's skin size, the others belong
        // to something else.
        let mut fitting = Vec::with_capacity(images.len());
        for path in &images {
            let size = match self.read_of(path)? {
                Read::Size(size) => *size,
                Read::SkinNames(_) => None,
            };
            fitting.push(size == Some(self.skin_size));
        }
        if fitting.contains(&true) {
            let mut keep = fitting.into_iter();
            images.retain(|_| keep.next().unwrap_or(false));
        }

        let folder_name = self
            .folder
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let model_stem = stem_lower(&self.model_path);
        images.sort_by_cached_key(|p| {
            let stem = stem_lower(p);
            let named_after = stem == folder_name || stem == model_stem;
            (
                !named_after,
                stem.starts_with("ctf_"),
                file_name_lower(p),
                p.clone(),
            )
        });
        Ok(images)
    }
}

/// The entry of `entries` (sorted) called `name`, ignoring ASCII case; an
/// exact match wins, then the first spelling, the same every time.
fn find_named<'a>(entries: &'a [PathBuf], name: &str) -> Option<&'a PathBuf> {
    let file_name = |p: &PathBuf| p.file_name().and_then(|n| n.to_str()).map(str::to_owned);
    entries
        .iter()
        .find(|p| file_name(p).as_deref() == Some(name))
        .or_else(|| {
            entries
                .iter()
                .find(|p| file_name(p).is_some_and(|n| n.eq_ignore_ascii_case(name)))
        })
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

fn is_skin_image(path: &Path) -> bool {
    SKIN_EXTENSIONS
        .iter()
        .chain(&["jpeg"])
        .any(|ext| has_extension(path, ext))
}

fn stem_lower(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

fn file_name_lower(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers every question from `files` (paths of files; their folders
    /// are listed from them), counting the questions.
    fn drive(finder: &mut SkinFinder, files: &[(&str, &[u8])]) -> (SkinSearch, usize) {
        let mut asked = 0;
        loop {
            match finder.search() {
                Ok(search) => return (search, asked),
                Err(SkinQuestion::List(dir)) => {
                    asked += 1;
                    let mut entries = Vec::new();
                    let mut folders = Vec::new();
                    for (path, _) in files {
                        let path = Path::new(path);
                        if path.parent() == Some(&dir) {
                            entries.push(path.to_path_buf());
                        }
                        for folder in path.ancestors().skip(1) {
                            if folder.parent() == Some(&dir)
                                && !folders.contains(&folder.to_path_buf())
                            {
                                folders.push(folder.to_path_buf());
                            }
                        }
                    }
                    finder.listed(&dir, entries, folders);
                }
                Err(SkinQuestion::Read(file)) => {
                    asked += 1;
                    let bytes = files
                        .iter()
                        .find(|(p, _)| Path::new(p) == file)
                        .map(|(_, b)| *b);
                    finder.read(&file, bytes);
                }
            }
        }
    }

    #[test]
    fn header_names_resolve_in_the_folder_then_as_game_paths() {
        let files: &[(&str, &[u8])] = &[
            ("baseq2/players/female/tris.md2", b""),
            ("baseq2/players/female/Athena.PCX", b""),
            ("baseq2/players/male/grunt.pcx", b""),
        ];
        let mut finder = SkinFinder::new(
            "baseq2/players/female/tris.md2",
            vec![
                "players\\female\\athena.pcx".into(),
                "players/male/grunt.pcx".into(),
                "players/male/nothere.pcx".into(),
                "../../../secret.pcx".into(),
            ],
            (256, 256),
        );
        let (search, asked) = drive(&mut finder, files);
        assert_eq!(search.source, SkinSource::Header);
        assert_eq!(
            search.paths,
            [
                Some(PathBuf::from("baseq2/players/female/Athena.PCX")),
                Some(PathBuf::from("baseq2/players/male/grunt.pcx")),
                None,
                None
            ]
        );
        assert_eq!(
            search.unresolved,
            ["players/male/nothere.pcx", "../../../secret.pcx"]
        );
        assert!(asked <= 6, "each folder is listed once: {asked}");
    }

    #[test]
    fn exact_spellings_win_then_case_is_ignored() {
        let entries = vec![PathBuf::from("a/SKIN.pcx"), PathBuf::from("a/skin.pcx")];
        assert_eq!(find_named(&entries, "skin.pcx"), Some(&entries[1]));
        assert_eq!(find_named(&entries, "Skin.Pcx"), Some(&entries[0]));
        assert_eq!(find_named(&entries, "skin.png"), None);
    }

    #[test]
    fn a_host_that_never_answers_still_gets_an_answer() {
        let mut finder = SkinFinder::new("m/tris.md2", vec!["skin.pcx".into()], (8, 8));
        let mut questions = 0;
        let search = loop {
            match finder.search() {
                Ok(search) => break search,
                Err(_) => questions += 1,
            }
            assert!(questions < 100, "the search ends");
        };
        assert_eq!(search.source, SkinSource::None);
        assert_eq!(search.unresolved, ["skin.pcx"]);
    }
}
