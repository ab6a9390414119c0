//! A Quake III player on the GPU, for the immediate path: every surface of
//! its three parts (and of its weapon) uploaded once as a [`GpuModel`] of
//! 8-byte words with the picture it wears, and each instance's tree of
//! parts (legs and torso on their own poses, head and weapon on the
//! torso's tags) placed on the CPU as Quake III's `CG_Player` places it.

use std::fmt;
use std::sync::Arc;

use glam::Mat4;
use image::RgbaImage;

use super::device::Md2Cache;
use super::error::SetupError;
use super::model::GpuModel;
use super::view::Md2Batch;
use crate::anim::{FrameLerp, Pose};
use crate::contract::GpuModelOptions;
use crate::format::md3::{Md3Model, Md3Player, Md3SurfaceError, PlayerPart, PlayerTagError};
use crate::scene::{Md2Instance, QUAKE_TO_Y_UP};

/// Which piece of a player a surface belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlayerPiece {
    /// One of the three models.
    Part(PlayerPart),
    /// The weapon in the hand.
    Weapon,
}

impl fmt::Display for PlayerPiece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerPiece::Part(part) => f.write_str(&part.model_file()),
            PlayerPiece::Weapon => f.write_str("the weapon"),
        }
    }
}

/// Why a player could not be uploaded (or made a
/// [`PlayerCrowd`](crate::gpu::PlayerCrowd)): a surface the model seam
/// refuses (other than one without triangles, which is left out as Quake
/// III leaves it out), an upload the device refuses, or, for a crowd, a
/// tag or a part the tree of parts needs and does not have.
#[derive(Debug)]
#[non_exhaustive]
pub enum PlayerSetupError {
    /// A surface does not make a model.
    Surface {
        /// The piece it belongs to.
        piece: PlayerPiece,
        /// What the seam said.
        error: Md3SurfaceError,
    },
    /// A surface's upload (or its crowd's buffers) was refused.
    Upload {
        /// The piece it belongs to.
        piece: PlayerPiece,
        /// The surface's name.
        surface: String,
        /// What the device said.
        error: SetupError,
    },
    /// A part that another rides has a frame without the tag the rider
    /// sits on (`tag_torso` in `lower.md3`, `tag_head` or `tag_weapon` in
    /// `upper.md3`).
    Tag(PlayerTagError),
    /// A part that another rides has no surface to draw, so no clock for
    /// its riders to follow.
    NoSurface {
        /// The part.
        part: PlayerPart,
    },
}

impl fmt::Display for PlayerSetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSetupError::Surface { piece, error } => write!(f, "{piece}: {error}"),
            PlayerSetupError::Upload {
                piece,
                surface,
                error,
            } => write!(f, "{piece}, surface {surface:?}: {error}"),
            PlayerSetupError::Tag(error) => error.fmt(f),
            PlayerSetupError::NoSurface { part } => write!(
                f,
                "{} has no surface to draw, and other parts ride it",
                part.model_file()
            ),
        }
    }
}

impl std::error::Error for PlayerSetupError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlayerSetupError::Surface { error, .. } => Some(error),
            PlayerSetupError::Upload { error, .. } => Some(error),
            PlayerSetupError::Tag(error) => Some(error),
            PlayerSetupError::NoSurface { .. } => None,
        }
    }
}

/// One player to draw: where it stands and what its legs and torso play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayerInstance {
    /// The player's transform, from its Y-up model space (Quake's axes
    /// turned by [`QUAKE_TO_Y_UP`], the legs' origin at the origin) to the
    /// world, as [`Md2Instance::transform`].
    pub transform: Mat4,
    /// The legs' pose, of `lower.md3`'s frames (its
    /// [`AnimationConfig::clip`](crate::format::md3::AnimationConfig::clip)s'
    /// numbering): a lerp (`FrameLerp::into()`), or a crossfade as
    /// [`Playback::pose`](crate::anim::Playback::pose) gives it.
    pub legs: Pose,
    /// The torso's pose, of `upper.md3`'s frames.
    pub torso: Pose,
}

/// Each surface's instances for a frame, filled by [`GpuPlayer::place`]:
/// kept by the app between frames so that placing allocates nothing once
/// it has grown.
#[derive(Clone, Debug, Default)]
pub struct PlacedPlayers {
    per_surface: Vec<Vec<Md2Instance>>,
}

impl PlacedPlayers {
    /// Empty, for no players yet.
    pub fn new() -> PlacedPlayers {
        PlacedPlayers::default()
    }

    /// Forgets the players placed, keeping the room.
    pub fn clear(&mut self) {
        self.per_surface.iter_mut().for_each(Vec::clear);
    }

    /// The instances placed for surface `index` of the player
    /// ([`GpuPlayer::surface`]), in the order the players were placed.
    pub fn instances(&self, index: usize) -> &[Md2Instance] {
        self.per_surface.get(index).map_or(&[], Vec::as_slice)
    }
}

/// One surface on the GPU.
#[derive(Debug)]
struct Surface {
    piece: PlayerPiece,
    name: String,
    /// The key of the picture it wears.
    key: String,
    gpu: GpuModel,
    /// The model's last frame: a head or weapon is drawn at its first
    /// frame, clamped.
    last_frame: u32,
}

/// A Quake III player ([`Md3Player`]) on the GPU for the immediate path:
/// each surface of `lower.md3`, `upper.md3` and `head.md3` (and of the
/// weapon, where the player holds one) a [`GpuModel`] wearing its picture,
/// drawn with one [`Md2Batch`] per surface however many players.
///
/// ```no_run
/// # fn frame(device: &wgpu::Device, queue: &wgpu::Queue,
/// #          renderer: &mut md2_wgpu::Md2Renderer, camera: &md2_wgpu::Camera)
/// #          -> Result<(), Box<dyn std::error::Error>> {
/// use md2_wgpu::anim::FrameLerp;
/// use md2_wgpu::format::md3::{Md3Player, PlayerAnimation};
/// use md2_wgpu::gpu::{GpuPlayer, PlacedPlayers, PlayerInstance};
///
/// let player = Md3Player::open("models/players/major", "default")?;
/// // Pictures by the keys the skins give (Md3Player::texture_keys); none
/// // here, so the renderer's checker stands in.
/// let gpu = GpuPlayer::new(device, queue, renderer, &player, &[])?;
/// let cfg = player.animations();
/// let idle = cfg.clip(PlayerAnimation::LegsIdle).expect("an idle");
/// let stand = cfg.clip(PlayerAnimation::TorsoStand).expect("a stand");
/// let mut placed = PlacedPlayers::new();
/// gpu.place(
///     &PlayerInstance {
///         transform: md2_wgpu::glam::Mat4::IDENTITY,
///         legs: FrameLerp::still(idle.first).into(),
///         torso: FrameLerp::still(stand.first).into(),
///     },
///     &mut placed,
/// )?;
/// renderer.prepare(device, queue, camera, &gpu.batches(&placed))?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct GpuPlayer {
    /// Shared with the player crowds made of it.
    player: Arc<Md3Player>,
    surfaces: Vec<Surface>,
}

impl GpuPlayer {
    /// Uploads every surface of `player` for the renderers of `cache`,
    /// each with the picture `textures` holds under its key
    /// ([`Md3Player::texture_keys`]; a weapon's surfaces by
    /// [`Md3Surface::default_texture`](crate::format::md3::Md3Surface::default_texture)),
    /// or the renderer's checker where there is none. A picture several
    /// surfaces wear is uploaded once (the first surface's
    /// [`gpu_bytes_breakdown`](GpuModel::gpu_bytes_breakdown) counts it). A surface without
    /// triangles is left out, as Quake III leaves it out.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &impl AsRef<Md2Cache>,
        player: &Md3Player,
        textures: &[(String, RgbaImage)],
    ) -> Result<GpuPlayer, PlayerSetupError> {
        let options = GpuModelOptions::DEFAULT;
        GpuPlayer::with_options(device, queue, cache, player, textures, options)
    }

    /// [`GpuPlayer::new`] with every surface uploaded as `options` say:
    /// [`GpuModelOptions::WITH_LEVELS`] builds each surface's levels of
    /// detail over every one of its frames, so that players far away
    /// (immediate or in a [`PlayerCrowd`](crate::gpu::PlayerCrowd)) draw
    /// fewer triangles, each surface's level chosen on its own.
    pub fn with_options(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &impl AsRef<Md2Cache>,
        player: &Md3Player,
        textures: &[(String, RgbaImage)],
        options: GpuModelOptions,
    ) -> Result<GpuPlayer, PlayerSetupError> {
        let mut pieces: Vec<(PlayerPiece, &Md3Model, Vec<String>)> = PlayerPart::ALL
            .into_iter()
            .map(|part| {
                let keys = player.texture_keys(part);
                (PlayerPiece::Part(part), player.part(part), keys)
            })
            .collect();
        if let Some(weapon) = player.weapon() {
            let keys = weapon
                .surfaces()
                .iter()
                .map(|s| s.default_texture())
                .collect();
            pieces.push((PlayerPiece::Weapon, weapon, keys));
        }
        let mut surfaces = Vec::new();
        for (piece, model, keys) in pieces {
            for (index, key) in keys.iter().enumerate() {
                let keyframes = match model.surface_model(index) {
                    Some(Ok(k)) => k,
                    Some(Err(error)) if error.is_skipped() => continue,
                    Some(Err(error)) => return Err(PlayerSetupError::Surface { piece, error }),
                    None => continue,
                };
                let name = model.surfaces()[index].name();
                let picture: Vec<RgbaImage> = textures
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, image)| image.clone())
                    .into_iter()
                    .collect();
                // A picture another surface wears already (the penguin's
                // skin.tga, on its legs and its head) is uploaded once.
                let wearing = surfaces
                    .iter()
                    .find(|s: &&Surface| !picture.is_empty() && s.key == *key);
                let gpu = match wearing {
                    Some(other) => GpuModel::with_options_sharing_skins(
                        device,
                        queue,
                        cache.as_ref(),
                        &keyframes,
                        options,
                        &other.gpu,
                    ),
                    None => {
                        GpuModel::with_options(device, queue, cache, &keyframes, &picture, options)
                    }
                }
                .map_err(|error| PlayerSetupError::Upload {
                    piece,
                    surface: name.clone(),
                    error,
                })?;
                surfaces.push(Surface {
                    piece,
                    name,
                    key: key.clone(),
                    gpu,
                    last_frame: keyframes.frame_count() - 1,
                });
            }
        }
        Ok(GpuPlayer {
            player: Arc::new(player.clone()),
            surfaces,
        })
    }

    /// The player uploaded (its tags place the parts).
    pub fn player(&self) -> &Md3Player {
        &self.player
    }

    /// The player uploaded, for a crowd of it to keep without a copy.
    pub(crate) fn shared_player(&self) -> Arc<Md3Player> {
        Arc::clone(&self.player)
    }

    /// How many surfaces were uploaded.
    pub fn surface_count(&self) -> usize {
        self.surfaces.len()
    }

    /// Surface `index`: its piece, its name and its model on the GPU, in
    /// the order of the lower part's surfaces, the upper's, the head's,
    /// then the weapon's.
    pub fn surface(&self, index: usize) -> Option<(PlayerPiece, &str, &GpuModel)> {
        self.surfaces
            .get(index)
            .map(|s| (s.piece, s.name.as_str(), &s.gpu))
    }

    /// Places one player: for every surface, an instance whose transform
    /// puts its part where Quake III puts it ([`Md3Player::parts_at`]: the
    /// torso on the legs' `tag_torso` at the legs' pose, the head and
    /// weapon on the torso's `tag_head` and `tag_weapon` at the torso's)
    /// and whose pose is its part's (the head and the weapon at their
    /// first frame). A missing tag or a pose past its model's frames is
    /// the error, and nothing is placed.
    pub fn place(
        &self,
        instance: &PlayerInstance,
        placed: &mut PlacedPlayers,
    ) -> Result<(), PlayerTagError> {
        let parts = self.player.parts_at(instance.legs, instance.torso)?;
        // The renderer turns model space to Y-up before an instance's
        // transform: a part's Quake-axes matrix is conjugated into it.
        let y_up = |m: Mat4| instance.transform * QUAKE_TO_Y_UP * m * QUAKE_TO_Y_UP.inverse();
        let still = Pose::from(FrameLerp::still(0));
        let placed_parts = [
            (y_up(parts.lower), instance.legs),
            (y_up(parts.upper), instance.torso),
            (y_up(parts.head), still),
            (y_up(parts.weapon), still),
        ];
        placed
            .per_surface
            .resize_with(self.surfaces.len(), Vec::new);
        for (surface, out) in self.surfaces.iter().zip(&mut placed.per_surface) {
            let (transform, pose) = placed_parts[match surface.piece {
                PlayerPiece::Part(PlayerPart::Lower) => 0,
                PlayerPiece::Part(PlayerPart::Upper) => 1,
                PlayerPiece::Part(PlayerPart::Head) => 2,
                PlayerPiece::Weapon => 3,
            }];
            let clamp = |lerp: FrameLerp| FrameLerp {
                frame_a: lerp.frame_a.min(surface.last_frame),
                frame_b: lerp.frame_b.min(surface.last_frame),
                t: lerp.t,
            };
            let pose = Pose {
                primary: clamp(pose.primary),
                secondary: clamp(pose.secondary),
                weight: pose.weight,
            };
            out.push(Md2Instance::new(transform, pose));
        }
        Ok(())
    }

    /// One batch per surface with the instances `placed` holds for it
    /// (surfaces with none are left out): what
    /// [`Md2Renderer::prepare`](crate::Md2Renderer::prepare) takes.
    pub fn batches<'a>(&'a self, placed: &'a PlacedPlayers) -> Vec<Md2Batch<'a>> {
        self.surfaces
            .iter()
            .enumerate()
            .map(|(i, s)| Md2Batch::new(&s.gpu, placed.instances(i)))
            .filter(|b| !b.instances.is_empty())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyframeError;

    #[test]
    fn errors_name_the_piece_as_a_person_would() {
        let surface = Md3SurfaceError {
            surface: 2,
            name: "u_torso".into(),
            error: KeyframeError::Empty { what: "triangles" },
        };
        let error = PlayerSetupError::Surface {
            piece: PlayerPiece::Part(PlayerPart::Upper),
            error: surface.clone(),
        };
        assert_eq!(
            error.to_string(),
            "upper.md3: surface 2 (\"u_torso\"): a model needs triangles: it has none"
        );
        assert_eq!(PlayerPiece::Weapon.to_string(), "the weapon");
        assert!(surface.is_skipped());
        let framesless = Md3SurfaceError {
            error: KeyframeError::Empty { what: "frames" },
            ..surface.clone()
        };
        assert!(!framesless.is_skipped());
    }
}
