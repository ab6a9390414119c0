//! Quake III's MD3 models: reading, validating and writing them byte for
//! byte, the text files that go with a player (`.skin`,
//! `animation.cfg`), tags lerped and attached as the game does, and a
//! whole player as one thing. CPU only: nothing here knows about wgpu.
//!
//! An [`Md3Model`] is every part of the file; each of its surfaces is a
//! [`KeyframeModel`](crate::model::KeyframeModel) of 8-byte words
//! ([`Md3Model::surface_model`]), which every path past the parser takes
//! as it takes an MD2: the GPU decodes the file's bytes as they are.
//!
//! What an MD3 is, against MD2:
//!
//! - **Surfaces**: a model is up to 32 meshes, each with its own vertices,
//!   texture coordinates, triangles and shaders; a `.skin` file
//!   ([`Md3Skin`]) says which texture each surface wears.
//! - **Vertices** of 8 bytes: `i16` coordinates in 1/64 units and the
//!   normal as two angles ([`Md3Vertex`]), not a grid and a table index.
//! - **Tags**: named places and orientations in each frame that join
//!   models (a player is three: `lower.md3` holds `upper.md3` at
//!   `tag_torso`, which holds `head.md3` at `tag_head` and the weapon at
//!   `tag_weapon`).
//! - **Animations** are not in the file: a player's `animation.cfg`
//!   ([`AnimationConfig`]) lists each [`PlayerAnimation`]'s frames and
//!   rate, the legs' frames numbered as if the torso's were among them
//!   ([`AnimationConfig::legs_first_frame_offset`]).
//!
//! # Players
//!
//! An [`Md3Player`] is a player's three models, its `animation.cfg` and
//! one skin set's `.skin` files, loaded by answering an
//! [`Md3PlayerLoader`]'s questions (no I/O here) or from a folder
//! ([`Md3Player::open`]). [`AnimationConfig::clip`] makes each animation
//! a [`Clip`](crate::anim::Clip) of the model it plays on;
//! [`Md3Model::tag_at`] lerps a tag as Quake III's `R_LerpTag` does (each
//! axis normalised, none made perpendicular again), [`Md3Tag::matrix`]
//! and [`Md3Tag::attach`] place a model on it as `CG_PositionEntityOnTag`
//! does, and [`Md3Player::parts_at`] gives each part's transform for a
//! pose of the legs and one of the torso.
//!
//! # Normals
//!
//! A normal's two bytes decode as Quake III's renderer decodes them, each
//! angle in steps of 2π/256 ([`Md3Vertex::normal_vector`]). The format's
//! public description says 2π/255 (and the tools' encoder,
//! `NormalToLatLong`, scales by 255/360 a degree); the game's decode is
//! what players saw, so that is the one followed.
//!
//! # Limits
//!
//! Files are held to Quake III's limits (`qfiles.h`): 1 to 1,024 frames,
//! 16 tags, 32 surfaces, and per surface 4,096 vertices, 8,192 triangles
//! and 256 shaders. A count past one is an [`Md3Error::BeyondLimit`]
//! naming it. Quake III's renderer draws fewer (a surface of under 1,000
//! vertices and 2,000 triangles): a surface past that loads with
//! [`Md3Warning::BeyondRendererLimit`].
//!
//! # Layout
//!
//! An MD3 says where each part is, so parts may come in any order with
//! bytes between them: the shared models put a surface's triangles before
//! its shaders, q3data put them after. The layout is kept, not refused:
//! every part is checked to lie inside the model (after the header,
//! before `ofsEnd`) and each surface's tables inside the surface, and two
//! parts that share a byte are refused ([`Md3Error::Overlap`]). Bytes no
//! part covers are kept ([`Md3Warning::UnreadBytes`], and
//! [`Md3Warning::TrailingBytes`] after `ofsEnd`), so every file that loads
//! writes back byte for byte. A model built in code
//! ([`Md3Model::from_parts`]) is laid out as the shared models are, with
//! no bytes between its parts.

mod animation_config;
mod clip;
mod error;
mod keyframes;
mod layout;
mod model;
mod parse;
mod player;
mod player_animation;
mod regions;
mod skin;
mod tag;
mod vertex;
mod write;

pub use animation_config::{
    AnimationConfig, AnimationConfigError, AnimationConfigWarning, AnimationEntry, Footsteps,
    Gender,
};
pub use error::{Md3Error, Md3Name, Md3Part, Md3Warning};
pub use keyframes::{MD3_SKIN_SIZE, Md3SurfaceError};
pub use model::{Md3Frame, Md3Header, Md3Model, Md3Shader, Md3Surface, Md3SurfaceHeader, Md3Tag};
pub use player::{
    Md3Player, Md3PlayerError, Md3PlayerLoader, Md3SurfaceTexture, PlayerPart, PlayerTagError,
    PlayerTransforms,
};
pub use player_animation::PlayerAnimation;
pub use skin::{Md3Skin, Md3SkinError, Md3SkinSurface, texture_candidates};
pub use tag::Md3TagError;
pub use vertex::Md3Vertex;
pub use write::{Md3Parts, Md3SurfaceParts};
