//! A Quake III player as the inspector holds it: its folder's three
//! models, `animation.cfg` and skin set loaded (`Md3Player`), each
//! surface's texture found as Quake III finds it, uploaded as a
//! `GpuPlayer`, and two animation players, the legs' and the torso's, each
//! on its own clock as the game runs them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use md2_wgpu::format::md3::{
    Md3Model, Md3Player, Md3SurfaceTexture, PlayerAnimation, PlayerPart, texture_candidates,
};
use md2_wgpu::glam::{Mat4, Vec3};
use md2_wgpu::gpu::{GpuPlayer, Md2Cache, PlayerInstance, PlayerPiece};
use md2_wgpu::image::RgbaImage;
use md2_wgpu::scene::quake_to_y_up;
use md2_wgpu::{Clip, skins, wgpu};

use super::files::NamedFile;
use super::player::Player;

/// The files that make a folder a Quake III player's.
const PLAYER_FILES: [&str; 4] = ["lower.md3", "upper.md3", "head.md3", "animation.cfg"];

/// Whether `path` is a Quake III player's folder, or a file in one: where
/// the inspector opens the player rather than a model.
pub fn player_dir(path: &Path) -> Option<PathBuf> {
    let dir = if path.is_dir() {
        path
    } else {
        let is_md3 = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md3"));
        path.parent().filter(|_| is_md3)?
    };
    PLAYER_FILES
        .iter()
        .all(|f| dir.join(f).is_file())
        .then(|| dir.to_path_buf())
}

/// A player read from its folder, with its textures: everything but the
/// GPU.
#[derive(Clone, Debug)]
pub struct PlayerFile {
    /// The folder's name (`major`).
    pub name: String,
    /// The folder.
    pub dir: PathBuf,
    /// The player, with the `default` skin set.
    pub player: Md3Player,
    /// Each texture found, by the key its surfaces find it by.
    pub textures: Vec<(String, RgbaImage)>,
    /// Per piece (each part, then the weapon), per surface: the surface,
    /// and where its texture came from or why it is missing.
    pub surfaces: Vec<(PlayerPiece, String, String)>,
}

impl PlayerFile {
    /// Loads the player in `dir` with its `default` skins, and each texture
    /// its skins name from the folder (by the names Quake III tries: a
    /// `.jpg` name is found as `.tga`). The error names the file.
    pub fn open(dir: &Path) -> Result<PlayerFile, String> {
        let name = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        PlayerFile::from_source(name, dir, |file| std::fs::read(dir.join(file)).ok())
    }

    /// The player among files given as bytes (a browser's dropped files),
    /// found by their names: `lower.md3`, `upper.md3`, `head.md3`,
    /// `animation.cfg`, the `default` skins and the textures they name.
    /// `None` where the three models are not all there.
    pub fn from_files(files: &[NamedFile]) -> Option<Result<PlayerFile, String>> {
        let named = |file: &str| {
            files
                .iter()
                .find(|f| f.name.eq_ignore_ascii_case(file))
                .map(|f| f.bytes.clone())
        };
        let parts = ["lower.md3", "upper.md3", "head.md3"];
        if !parts.iter().all(|p| named(p).is_some()) {
            return None;
        }
        let dir = Path::new("dropped files");
        Some(PlayerFile::from_source(
            "dropped player".to_owned(),
            dir,
            named,
        ))
    }

    /// The player whose files `read` gives by name (the last part of the
    /// path a loader or a skin asks for), as if in `dir`.
    fn from_source(
        name: String,
        dir: &Path,
        read: impl Fn(&str) -> Option<Vec<u8>>,
    ) -> Result<PlayerFile, String> {
        let player =
            Md3Player::from_named(dir, "default", &read).map_err(|e| format!("{name}: {e}"))?;
        let mut textures: Vec<(String, RgbaImage)> = Vec::new();
        let mut surfaces = Vec::new();
        for part in PlayerPart::ALL {
            let keys = player.texture_keys(part);
            for (texture, key) in player.textures(part).iter().zip(keys) {
                let status = if textures.iter().any(|(k, _)| *k == key) {
                    format!("{key} (as above)")
                } else {
                    match found(&read, texture) {
                        Ok((file, image)) => {
                            let status = format!("{file} ({}x{})", image.width(), image.height());
                            textures.push((key, image));
                            status
                        }
                        Err(why) => why,
                    }
                };
                surfaces.push((PlayerPiece::Part(part), texture.surface.clone(), status));
            }
        }
        Ok(PlayerFile {
            name,
            dir: dir.to_path_buf(),
            player,
            textures,
            surfaces,
        })
    }
}

impl PlayerFile {
    /// The player holding the Quake III weapon in the file at `path`, its
    /// textures found in the weapon's folder ([`PlayerFile::with_weapon`]).
    pub fn with_weapon_file(self, path: &Path) -> Result<PlayerFile, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let dir = path.parent().unwrap_or(Path::new("."));
        self.with_weapon(&name, &bytes, |file| std::fs::read(dir.join(file)).ok())
    }

    /// The player holding the Quake III weapon model `name` (its bytes):
    /// each surface in the texture its first shader names (Quake III's
    /// default for a weapon's surface), found among the files `read`
    /// gives by name as the player's are (`.tga` for a `.jpg` name). The
    /// weapon it held before is let go; the error names the file.
    pub fn with_weapon(
        mut self,
        name: &str,
        bytes: &[u8],
        read: impl Fn(&str) -> Option<Vec<u8>>,
    ) -> Result<PlayerFile, String> {
        let weapon = Md3Model::from_bytes(bytes).map_err(|e| format!("{name}: {e}"))?;
        self.surfaces
            .retain(|(piece, _, _)| *piece != PlayerPiece::Weapon);
        for surface in weapon.surfaces() {
            let key = surface.default_texture();
            let texture = Md3SurfaceTexture {
                surface: surface.name(),
                candidates: texture_candidates(&key),
                texture: Some(key.clone()).filter(|k| !k.is_empty()),
            };
            let status = if self.textures.iter().any(|(k, _)| *k == key) {
                format!("{key} (as above)")
            } else {
                match found(&read, &texture) {
                    Ok((file, image)) => {
                        let status = format!("{file} ({}x{})", image.width(), image.height());
                        self.textures.push((key, image));
                        status
                    }
                    Err(why) => why,
                }
            };
            self.surfaces
                .push((PlayerPiece::Weapon, texture.surface, status));
        }
        self.player = self.player.with_weapon(weapon);
        Ok(self)
    }

    /// The player with nothing in its hand.
    pub fn without_weapon(mut self) -> PlayerFile {
        self.surfaces
            .retain(|(piece, _, _)| *piece != PlayerPiece::Weapon);
        self.player = self.player.without_weapon();
        self
    }
}

/// A surface's texture among the files `read` gives, decoded, or why there
/// is none: the first of the names Quake III tries whose last part is
/// there.
fn found(
    read: &impl Fn(&str) -> Option<Vec<u8>>,
    texture: &Md3SurfaceTexture,
) -> Result<(String, RgbaImage), String> {
    let Some(path) = &texture.texture else {
        return Err("no texture: the skin names none (the checker stands in)".into());
    };
    let (file, bytes) = texture
        .file_names()
        .find_map(|f| read(f).map(|bytes| (f, bytes)))
        .ok_or_else(|| {
            format!(
                "{path}: not in the folder (tried {})",
                texture.candidates.join(", ")
            )
        })?;
    skins::decode_skin(&bytes, Path::new(file))
        .map(|image| (file.to_owned(), image))
        .map_err(|e| format!("{file}: {e}"))
}

/// A player on the GPU, with its two clocks.
pub struct LoadedPlayer {
    /// The files.
    pub file: PlayerFile,
    /// Its upload (shared with the paint callbacks in flight).
    pub gpu: Arc<GpuPlayer>,
    /// The legs: LEGS_ and BOTH_ animations, on `lower.md3`.
    pub legs: Player,
    /// The torso: TORSO_ and BOTH_ animations, on `upper.md3`.
    pub torso: Player,
    /// The box the player stands in at its first pose, in the Y-up world.
    pub bounds: (Vec3, Vec3),
}

impl LoadedPlayer {
    /// Uploads `file` for the renderers of `cache`; the legs idle and the
    /// torso stands, as a player waits in the game.
    pub fn upload(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &Md2Cache,
        file: PlayerFile,
    ) -> Result<LoadedPlayer, String> {
        let gpu = GpuPlayer::new(device, queue, cache, &file.player, &file.textures)
            .map_err(|e| format!("{}: {e}", file.name))?;
        let cfg = file.player.animations();
        let clips = |on: fn(PlayerAnimation) -> bool| -> Vec<Clip> {
            PlayerAnimation::ALL
                .into_iter()
                .filter(|a| on(*a))
                .filter_map(|a| cfg.clip(a))
                .collect()
        };
        let last = |part| file.player.part(part).frames().len().saturating_sub(1) as u32;
        let mut legs = Player::new(clips(|a| !a.is_torso()), last(PlayerPart::Lower));
        let mut torso = Player::new(clips(|a| !a.is_legs()), last(PlayerPart::Upper));
        let start = |player: &mut Player, name: &str| {
            if let Some(i) = player.clips().iter().position(|c| &*c.name == name) {
                player.play(i);
            }
        };
        start(&mut legs, PlayerAnimation::LegsIdle.name());
        start(&mut torso, PlayerAnimation::TorsoStand.name());
        let mut loaded = LoadedPlayer {
            gpu: Arc::new(gpu),
            legs,
            torso,
            bounds: (Vec3::ZERO, Vec3::ZERO),
            file,
        };
        loaded.bounds = loaded
            .pose_box()
            .unwrap_or((Vec3::splat(-24.0), Vec3::splat(32.0)));
        Ok(loaded)
    }

    /// Shows `file` (the same player, holding another weapon or none) in
    /// place of the files shown, its legs and torso playing on where they
    /// were.
    pub fn replace_file(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &Md2Cache,
        file: PlayerFile,
    ) -> Result<(), String> {
        let gpu = GpuPlayer::new(device, queue, cache, &file.player, &file.textures)
            .map_err(|e| format!("{}: {e}", file.name))?;
        self.gpu = Arc::new(gpu);
        self.file = file;
        Ok(())
    }

    /// Both clocks on by `dt` seconds.
    pub fn advance(&mut self, dt: f64) {
        self.legs.advance(dt);
        self.torso.advance(dt);
    }

    /// Where the player stands this frame: at the origin, its legs and
    /// torso where their clocks are.
    pub fn instance(&self) -> PlayerInstance {
        PlayerInstance {
            transform: Mat4::IDENTITY,
            legs: self.legs.lerp().into(),
            torso: self.torso.lerp().into(),
        }
    }

    /// Each tag of the pose shown, where it is in the player's space
    /// (Quake axes): the legs' `tag_torso`, the torso's `tag_head` and
    /// `tag_weapon`, as (name, origin).
    pub fn tags(&self) -> Vec<(String, [f32; 3])> {
        let instance = self.instance();
        let Ok(at) = self.file.player.parts_at(instance.legs, instance.torso) else {
            return Vec::new();
        };
        let origin = |m: Mat4| m.w_axis.truncate().to_array();
        vec![
            ("tag_torso".to_owned(), origin(at.upper)),
            ("tag_head".to_owned(), origin(at.head)),
            ("tag_weapon".to_owned(), origin(at.weapon)),
        ]
    }

    /// The box around every part's first-frame bounds, each placed at its
    /// tag for the pose shown, in the Y-up world.
    fn pose_box(&self) -> Option<(Vec3, Vec3)> {
        let instance = self.instance();
        parts_box(&self.file.player, instance.legs, instance.torso)
    }
}

/// The box around every part's first-frame bounds (legs, torso, head),
/// each placed at its tag for the legs at `legs` and the torso at `torso`,
/// in the Y-up world (the legs' origin at the origin).
pub fn parts_box(
    player: &Md3Player,
    legs: impl Into<md2_wgpu::anim::Pose>,
    torso: impl Into<md2_wgpu::anim::Pose>,
) -> Option<(Vec3, Vec3)> {
    let at = player.parts_at(legs, torso).ok()?;
    let mut lo = Vec3::INFINITY;
    let mut hi = Vec3::NEG_INFINITY;
    for (part, matrix) in [
        (PlayerPart::Lower, at.lower),
        (PlayerPart::Upper, at.upper),
        (PlayerPart::Head, at.head),
    ] {
        let frame = player.part(part).frames().first()?;
        for corner in 0..8 {
            let pick = |k: usize| {
                if corner >> k & 1 == 0 {
                    frame.min[k]
                } else {
                    frame.max[k]
                }
            };
            let p = matrix.transform_point3(Vec3::new(pick(0), pick(1), pick(2)));
            let p = quake_to_y_up(p.to_array());
            lo = lo.min(p);
            hi = hi.max(p);
        }
    }
    lo.is_finite().then_some((lo, hi))
}
