//! A Quake III player as one thing: its three models, its
//! `animation.cfg`, a skin set's three `.skin` files, and a weapon in its
//! hand; loaded by asking the host for files ([`Md3PlayerLoader`], no I/O
//! of its own) or from a folder ([`Md3Player::open`]), and posed part by
//! part on its tags as Quake III's `CG_Player` (`cg_players.c`) poses it.

use std::fmt;
use std::path::{Path, PathBuf};

use glam::Mat4;

use super::animation_config::{AnimationConfig, AnimationConfigError};
use super::error::Md3Error;
use super::model::Md3Model;
use super::skin::{Md3Skin, Md3SkinError, texture_candidates};
use super::tag::Md3TagError;
use crate::anim::Pose;

/// One of a player's three models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PlayerPart {
    /// `lower.md3`: the legs, which stand at the player's origin.
    Lower,
    /// `upper.md3`: the torso, on the legs' `tag_torso`; it holds the
    /// head (`tag_head`) and the weapon (`tag_weapon`).
    Upper,
    /// `head.md3`: the head, on the torso's `tag_head`.
    Head,
}

impl PlayerPart {
    /// The three, in the order a player's files are asked for.
    pub const ALL: [PlayerPart; 3] = [PlayerPart::Lower, PlayerPart::Upper, PlayerPart::Head];

    /// `lower`, `upper` or `head`: the stem of the part's file names.
    pub fn name(self) -> &'static str {
        match self {
            PlayerPart::Lower => "lower",
            PlayerPart::Upper => "upper",
            PlayerPart::Head => "head",
        }
    }

    /// The model's file name (`lower.md3`), as Quake III's
    /// `CG_RegisterClientModelname` names it.
    pub fn model_file(self) -> String {
        format!("{}.md3", self.name())
    }

    /// The file name of the part's `.skin` for the skin set `skin`
    /// (`lower_red.skin`), as Quake III's `CG_RegisterClientSkin` names
    /// it.
    pub fn skin_file(self, skin: &str) -> String {
        format!("{}_{skin}.skin", self.name())
    }

    /// Its place in [`PlayerPart::ALL`]: 0, 1 or 2.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for PlayerPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a player could not be loaded. Every variant but
/// [`BadSkinName`](Md3PlayerError::BadSkinName) names its file
/// ([`Md3PlayerError::file`]), as the loader asked for it: the player's
/// folder joined with the file's name. Displayed as `file: what`.
#[derive(Debug)]
#[non_exhaustive]
pub enum Md3PlayerError {
    /// The skin set's name would name files outside the player's folder
    /// (it is empty, or holds `/`, `\` or `..`).
    BadSkinName {
        /// The name given.
        skin: String,
    },
    /// A file the player needs is not there (the host answered that it
    /// has no such file, or never answered).
    Missing {
        /// The file.
        file: PathBuf,
    },
    /// A file could not be read ([`Md3Player::open`]).
    Io {
        /// The file.
        file: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A model did not load.
    Model {
        /// The file.
        file: PathBuf,
        /// Why.
        error: Md3Error,
    },
    /// A `.skin` or `animation.cfg` is not UTF-8 text.
    NotText {
        /// The file.
        file: PathBuf,
    },
    /// A `.skin` file did not parse.
    Skin {
        /// The file.
        file: PathBuf,
        /// Why, with its line.
        error: Md3SkinError,
    },
    /// The `animation.cfg` did not parse.
    AnimationConfig {
        /// The file.
        file: PathBuf,
        /// Why, with its line.
        error: AnimationConfigError,
    },
}

impl fmt::Display for Md3PlayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = self.file() {
            write!(f, "{}: ", file.display())?;
        }
        match self {
            Md3PlayerError::BadSkinName { skin } => write!(
                f,
                "skin name {skin:?} would name files outside the player's folder"
            ),
            Md3PlayerError::Missing { .. } => f.write_str("no such file"),
            Md3PlayerError::Io { source, .. } => write!(f, "cannot read: {source}"),
            Md3PlayerError::Model { error, .. } => write!(f, "{error}"),
            Md3PlayerError::NotText { .. } => f.write_str("not UTF-8 text"),
            Md3PlayerError::Skin { error, .. } => write!(f, "{error}"),
            Md3PlayerError::AnimationConfig { error, .. } => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for Md3PlayerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let source: &(dyn std::error::Error + 'static) = match self {
            Md3PlayerError::Io { source, .. } => source,
            Md3PlayerError::Model { error, .. } => error,
            Md3PlayerError::Skin { error, .. } => error,
            Md3PlayerError::AnimationConfig { error, .. } => error,
            _ => return None,
        };
        Some(source)
    }
}

impl Md3PlayerError {
    /// The file the error is about (none for a bad skin name).
    pub fn file(&self) -> Option<&Path> {
        match self {
            Md3PlayerError::BadSkinName { .. } => None,
            Md3PlayerError::Missing { file }
            | Md3PlayerError::Io { file, .. }
            | Md3PlayerError::Model { file, .. }
            | Md3PlayerError::NotText { file }
            | Md3PlayerError::Skin { file, .. }
            | Md3PlayerError::AnimationConfig { file, .. } => Some(file),
        }
    }
}

/// A part of a player has no tag to pose another on: which part, and
/// why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerTagError {
    /// The part whose tag is missing (or whose pose is past its frames).
    pub part: PlayerPart,
    /// Why.
    pub error: Md3TagError,
}

impl fmt::Display for PlayerTagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.part.model_file(), self.error)
    }
}

impl std::error::Error for PlayerTagError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Where each part of a player goes for a pose: each a matrix from the
/// part's model space to the player's (Quake's axes: X forward, Y left,
/// Z up; the legs' origin at the player's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayerTransforms {
    /// The legs: the identity.
    pub lower: Mat4,
    /// The torso, on the legs' `tag_torso`.
    pub upper: Mat4,
    /// The head, on the torso's `tag_head`.
    pub head: Mat4,
    /// The weapon, on the torso's `tag_weapon` (where the hand is, with
    /// or without a weapon).
    pub weapon: Mat4,
}

/// The texture a surface of a player's part wears: what its skin says,
/// and the files Quake III would try for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Md3SurfaceTexture {
    /// The surface's name, as stored in the model.
    pub surface: String,
    /// The texture as the `.skin` file writes it (a game path such as
    /// `models/players/major/head.tga`), or `None` where the skin gives
    /// the surface none (no line, or an empty one: OpenArena's `tony`
    /// names no texture for `l_belt`, its `beret` gives `u_vest,`), which
    /// Quake III draws with its default shader (`R_AddMD3Surfaces`).
    pub texture: Option<String>,
    /// The files Quake III tries for it, in order ([`texture_candidates`]).
    pub candidates: Vec<String>,
}

impl Md3SurfaceTexture {
    /// The last part of each of [`candidates`](Md3SurfaceTexture::candidates),
    /// in order: the names a folder of the player's files (or files
    /// dropped together) holds the texture by, where the game's paths do
    /// not apply.
    ///
    /// ```
    /// use md2_wgpu::format::md3::{Md3SurfaceTexture, texture_candidates};
    /// let texture = Md3SurfaceTexture {
    ///     surface: "h_head".into(),
    ///     texture: Some("models/players/major/head.jpg".into()),
    ///     candidates: texture_candidates("models/players/major/head.jpg"),
    /// };
    /// let names: Vec<&str> = texture.file_names().collect();
    /// assert_eq!(names, ["head.jpg", "head.tga"]);
    /// ```
    pub fn file_names(&self) -> impl Iterator<Item = &str> {
        self.candidates
            .iter()
            .map(|c| c.rsplit(['/', '\\']).next().unwrap_or(c))
    }
}

/// A Quake III player: its three models, `animation.cfg`, one skin set's
/// `.skin` files (each giving a texture to every surface of its model)
/// and, optionally, a weapon.
///
/// Load one with [`Md3PlayerLoader`] (any host's files) or
/// [`Md3Player::open`] (a folder). Pose it with
/// [`Md3Player::parts_at`], whose poses come from its animations'
/// clips ([`AnimationConfig::clip`]): the legs play `LEGS_` and `BOTH_`
/// animations on `lower.md3`, the torso `TORSO_` and `BOTH_` ones on
/// `upper.md3`; the head has no animation of its own.
#[derive(Clone, Debug)]
pub struct Md3Player {
    parts: [Md3Model; 3],
    skins: [Md3Skin; 3],
    animations: AnimationConfig,
    skin_name: String,
    weapon: Option<Md3Model>,
}

impl Md3Player {
    /// Loads the player in `dir` with the skin set `skin` (`default`,
    /// `red`, `blue`...), reading its files with `std::fs`: what an
    /// [`Md3PlayerLoader`] asks for, answered from the folder. A file
    /// that is not there is [`Md3PlayerError::Missing`]; one that cannot
    /// be read, [`Md3PlayerError::Io`].
    pub fn open(dir: impl AsRef<Path>, skin: &str) -> Result<Md3Player, Md3PlayerError> {
        let mut loader = Md3PlayerLoader::new(dir.as_ref(), skin);
        while let Some(file) = loader.wanted() {
            match std::fs::read(&file) {
                Ok(bytes) => loader.read(&file, Some(&bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => loader.read(&file, None),
                Err(source) => return Err(Md3PlayerError::Io { file, source }),
            }
        }
        loader.finish()
    }

    /// Loads the player whose files `read` gives by name (`lower.md3`,
    /// `upper_red.skin`: the last part of each path an [`Md3PlayerLoader`]
    /// for `dir` asks for), with the skin set `skin`: files held in memory
    /// (dropped on a page, built in code, out of an archive). A name
    /// `read` has no bytes for is [`Md3PlayerError::Missing`], naming the
    /// path in `dir`.
    ///
    /// ```
    /// use md2_wgpu::format::md3::Md3Player;
    ///
    /// let files = md2_wgpu::demo::demo_player_files();
    /// let by_name = |name: &str| files.iter().find(|(n, _)| n == name).map(|(_, b)| b.clone());
    /// let player = Md3Player::from_named("models/players/demo", "blue", by_name)?;
    /// assert_eq!(player.skin_name(), "blue");
    /// # Ok::<(), md2_wgpu::format::md3::Md3PlayerError>(())
    /// ```
    pub fn from_named(
        dir: impl AsRef<Path>,
        skin: &str,
        read: impl Fn(&str) -> Option<Vec<u8>>,
    ) -> Result<Md3Player, Md3PlayerError> {
        let mut loader = Md3PlayerLoader::new(dir.as_ref(), skin);
        while let Some(file) = loader.wanted() {
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
            let bytes = name.and_then(|n| read(&n));
            loader.read(&file, bytes.as_deref());
        }
        loader.finish()
    }

    /// The player with `weapon` in its hand (on the torso's
    /// `tag_weapon`), in place of any it held.
    pub fn with_weapon(self, weapon: Md3Model) -> Md3Player {
        Md3Player {
            weapon: Some(weapon),
            ..self
        }
    }

    /// The player with nothing in its hand.
    pub fn without_weapon(self) -> Md3Player {
        Md3Player {
            weapon: None,
            ..self
        }
    }

    /// A part's model.
    pub fn part(&self, part: PlayerPart) -> &Md3Model {
        &self.parts[part.index()]
    }

    /// A part's `.skin` of the player's skin set.
    pub fn skin(&self, part: PlayerPart) -> &Md3Skin {
        &self.skins[part.index()]
    }

    /// The skin set's name (`default`).
    pub fn skin_name(&self) -> &str {
        &self.skin_name
    }

    /// The `animation.cfg`: each animation's frames, rate and looping
    /// ([`AnimationConfig::clip`] makes them clips).
    pub fn animations(&self) -> &AnimationConfig {
        &self.animations
    }

    /// The weapon in the player's hand, if one was given.
    pub fn weapon(&self) -> Option<&Md3Model> {
        self.weapon.as_ref()
    }

    /// The texture of each surface of a part, in the model's order: the
    /// name its skin gives the surface (found as Quake III finds it:
    /// [`Md3Skin::texture_for`] with
    /// [`Md3Surface::name_for_skins`](super::Md3Surface::name_for_skins))
    /// and the files Quake III would try for it. No file is looked for.
    pub fn textures(&self, part: PlayerPart) -> Vec<Md3SurfaceTexture> {
        let skin = self.skin(part);
        self.part(part)
            .surfaces()
            .iter()
            .map(|surface| {
                let texture = skin.texture_for(&surface.name_for_skins());
                Md3SurfaceTexture {
                    surface: surface.name(),
                    texture: texture.map(str::to_owned),
                    candidates: texture.map(texture_candidates).unwrap_or_default(),
                }
            })
            .collect()
    }

    /// The key each surface of a part finds its picture by, in the
    /// model's order: the texture its skin names, else
    /// [`Md3Surface::default_texture`](super::Md3Surface::default_texture).
    /// What the glTF export and [`GpuPlayer`](crate::gpu::GpuPlayer) take
    /// textures by.
    pub fn texture_keys(&self, part: PlayerPart) -> Vec<String> {
        self.textures(part)
            .into_iter()
            .zip(self.part(part).surfaces())
            .map(|(t, s)| t.texture.unwrap_or_else(|| s.default_texture()))
            .collect()
    }

    /// Where each part goes for the legs at `legs` (a pose of
    /// `lower.md3`: a [`FrameLerp`](crate::anim::FrameLerp), or a
    /// crossfading [`Pose`]) and the
    /// torso at `torso` (a pose of `upper.md3`), as
    /// Quake III's `CG_Player` places them: the legs at the identity, the
    /// torso on the legs' `tag_torso` lerped at the legs' pose, the head
    /// on the torso's `tag_head` and the weapon on its `tag_weapon`, both
    /// lerped at the torso's pose ([`Md3Model::tag_at`],
    /// [`Md3Tag::attach`](super::Md3Tag::attach)).
    ///
    /// The game also turns the legs, torso and head by the player's
    /// movement and view (`CG_PlayerAngles`), attaching the torso and head
    /// with `CG_PositionRotatedEntityOnTag`; these transforms are those
    /// with no turn. A host that turns them multiplies its own rotations
    /// in with [`Md3Tag::attach_rotated`](super::Md3Tag::attach_rotated).
    ///
    /// A missing tag, or a pose past its model's frames, is a
    /// [`PlayerTagError`] naming the part.
    pub fn parts_at(
        &self,
        legs: impl Into<Pose>,
        torso: impl Into<Pose>,
    ) -> Result<PlayerTransforms, PlayerTagError> {
        let (legs, torso) = (legs.into(), torso.into());
        let tag = |part: PlayerPart, lerp: Pose, name: &str| {
            self.part(part)
                .tag_at(lerp, name)
                .map_err(|error| PlayerTagError { part, error })
        };
        let lower = Mat4::IDENTITY;
        let upper = tag(PlayerPart::Lower, legs, "tag_torso")?.attach(lower);
        let head = tag(PlayerPart::Upper, torso, "tag_head")?.attach(upper);
        let weapon = tag(PlayerPart::Upper, torso, "tag_weapon")?.attach(upper);
        Ok(PlayerTransforms {
            lower,
            upper,
            head,
            weapon,
        })
    }
}

/// Which of a player's files an answer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PlayerFile {
    Model(PlayerPart),
    AnimationConfig,
    Skin(PlayerPart),
}

/// Loads a Quake III player without touching a file itself: it asks for
/// the files it needs, one at a time, and whoever holds them answers with
/// their bytes or with none (blocking or not: a Bevy asset reader, a
/// browser's dropped files, an archive).
///
/// It asks for `lower.md3`, `upper.md3`, `head.md3`, `animation.cfg`,
/// then `lower_<skin>.skin`, `upper_<skin>.skin` and `head_<skin>.skin`,
/// each as the player's folder joined with the name, as Quake III's
/// `CG_RegisterClientModelname` and `CG_RegisterClientSkin` name them.
/// Each answer is read as it comes (its bytes are not kept), and the first
/// that fails stops the questions.
///
/// ```
/// use std::path::Path;
/// use md2_wgpu::format::md3::{Md3PlayerError, Md3PlayerLoader};
///
/// let mut loader = Md3PlayerLoader::new("models/players/major", "red");
/// assert_eq!(loader.wanted().as_deref(), Some(Path::new("models/players/major/lower.md3")));
/// // A host with no such files.
/// while let Some(file) = loader.wanted() {
///     loader.read(&file, None);
/// }
/// match loader.finish() {
///     Err(Md3PlayerError::Missing { file }) => assert!(file.ends_with("lower.md3")),
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug)]
pub struct Md3PlayerLoader {
    dir: PathBuf,
    skin: String,
    models: [Option<Md3Model>; 3],
    skins: [Option<Md3Skin>; 3],
    animations: Option<AnimationConfig>,
    error: Option<Md3PlayerError>,
}

impl Md3PlayerLoader {
    /// A loader for the player in `dir` with the skin set `skin`. A skin
    /// name that would name files outside the folder (empty, or holding
    /// `/`, `\` or `..`) asks for nothing and finishes as
    /// [`Md3PlayerError::BadSkinName`].
    pub fn new(dir: impl Into<PathBuf>, skin: &str) -> Md3PlayerLoader {
        let bad = skin.is_empty() || skin.contains(['/', '\\']) || skin.contains("..");
        Md3PlayerLoader {
            dir: dir.into(),
            skin: skin.to_owned(),
            models: [None, None, None],
            skins: [None, None, None],
            animations: None,
            error: bad.then(|| Md3PlayerError::BadSkinName {
                skin: skin.to_owned(),
            }),
        }
    }

    /// Every file the player needs, in the order they are asked for.
    fn files(&self) -> [(PathBuf, PlayerFile); 7] {
        let [lower, upper, head] = PlayerPart::ALL;
        let model = |p: PlayerPart| (self.dir.join(p.model_file()), PlayerFile::Model(p));
        let skin = |p: PlayerPart| (self.dir.join(p.skin_file(&self.skin)), PlayerFile::Skin(p));
        [
            model(lower),
            model(upper),
            model(head),
            (self.dir.join("animation.cfg"), PlayerFile::AnimationConfig),
            skin(lower),
            skin(upper),
            skin(head),
        ]
    }

    fn has(&self, file: PlayerFile) -> bool {
        match file {
            PlayerFile::Model(p) => self.models[p.index()].is_some(),
            PlayerFile::AnimationConfig => self.animations.is_some(),
            PlayerFile::Skin(p) => self.skins[p.index()].is_some(),
        }
    }

    /// The file to read next: answer with [`Md3PlayerLoader::read`].
    /// `None` once every file is answered, or an answer has failed: then
    /// [`Md3PlayerLoader::finish`].
    pub fn wanted(&self) -> Option<PathBuf> {
        if self.error.is_some() {
            return None;
        }
        self.files()
            .into_iter()
            .find(|(_, which)| !self.has(*which))
            .map(|(path, _)| path)
    }

    /// Answers a question: `file`'s bytes, or `None` where the host has
    /// no such file. An answer for a file not asked for, or already
    /// answered, is ignored.
    pub fn read(&mut self, file: &Path, bytes: Option<&[u8]>) {
        if self.error.is_some() {
            return;
        }
        let Some((path, which)) = self
            .files()
            .into_iter()
            .find(|(path, which)| path == file && !self.has(*which))
        else {
            return;
        };
        if let Err(error) = self.take(path, which, bytes) {
            self.error = Some(error);
        }
    }

    /// Reads one answered file into its place.
    fn take(
        &mut self,
        file: PathBuf,
        which: PlayerFile,
        bytes: Option<&[u8]>,
    ) -> Result<(), Md3PlayerError> {
        let Some(bytes) = bytes else {
            return Err(Md3PlayerError::Missing { file });
        };
        match (which, std::str::from_utf8(bytes).ok()) {
            (PlayerFile::Model(p), _) => {
                let model = Md3Model::from_bytes(bytes)
                    .map_err(|error| Md3PlayerError::Model { file, error })?;
                self.models[p.index()] = Some(model);
            }
            (_, None) => return Err(Md3PlayerError::NotText { file }),
            (PlayerFile::Skin(p), Some(text)) => {
                let skin =
                    Md3Skin::parse(text).map_err(|error| Md3PlayerError::Skin { file, error })?;
                self.skins[p.index()] = Some(skin);
            }
            (PlayerFile::AnimationConfig, Some(text)) => {
                let config = AnimationConfig::parse(text)
                    .map_err(|error| Md3PlayerError::AnimationConfig { file, error })?;
                self.animations = Some(config);
            }
        }
        Ok(())
    }

    /// The player, from the answers given: the first answer that failed,
    /// or a file not answered ([`Md3PlayerError::Missing`]), is the
    /// error. A surface its skin gives no texture loads (see
    /// [`Md3Player::textures`]).
    pub fn finish(self) -> Result<Md3Player, Md3PlayerError> {
        let unanswered = self
            .files()
            .into_iter()
            .find(|(_, which)| !self.has(*which))
            .map(|(path, _)| path);
        let Md3PlayerLoader {
            dir: _,
            skin,
            models,
            skins,
            animations,
            error,
        } = self;
        if let Some(error) = error {
            return Err(error);
        }
        let ([Some(lower), Some(upper), Some(head)], [Some(l), Some(u), Some(h)], Some(animations)) =
            (models, skins, animations)
        else {
            // Some file is unanswered, so `unanswered` names it.
            let file = unanswered.unwrap_or_default();
            return Err(Md3PlayerError::Missing { file });
        };
        let player = Md3Player {
            parts: [lower, upper, head],
            skins: [l, u, h],
            animations,
            skin_name: skin,
            weapon: None,
        };
        Ok(player)
    }
}
