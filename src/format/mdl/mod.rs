//! Quake I's MDL models: reading, validating and writing them, their
//! conversion into the model seam ([`KeyframeModel`](crate::model::KeyframeModel),
//! so they draw, crowd, simplify and export as MD2s do), their palette
//! skins and their timed groups. CPU only: nothing here knows about wgpu.
//!
//! An MDL is MD2's parent: the same 4-byte vertex and the same 162 normals,
//! so its poses upload as they are, with no new decode. What differs:
//!
//! - **One scale** for every pose (MD2 has one per frame).
//! - **Texture coordinates per vertex**, with Quake's seam rule: a triangle
//!   that faces back reads a vertex marked on the seam half a skin to the
//!   right, so welding makes a corner from each (vertex, skin half) pair
//!   the triangles use.
//! - **Palette skins**: indices into the game's 256 colours
//!   ([`Palette`]), the last 32 of which are fullbright (drawn unlit).
//! - **Groups**: a frame may be a group of poses, a skin a group of images,
//!   each cycled by its own intervals ([`MdlFrame::pose_at`],
//!   [`MdlModel::skin_layer_at`]); a frame group is an animation of its
//!   own, and [`MdlModel::clips`] plays it at its intervals' rate.
//!
//! # Limits
//!
//! Files are held to QuakeSpasm's limits (`gl_model.h`), the strictest
//! that load every real model found: 1 to 2,000 vertices, 1 to 4,096
//! triangles, 1 to 1,024 poses over all frames, 1 to 32 skins. The original
//! Quake's are lower (1,024 vertices, 2,048 triangles, 256 poses, and skins
//! at most 480 rows tall), and real models exceed them: Block Quake's
//! player has 1,416 vertices. A count past a limit is an
//! [`MdlError::BeyondLimit`] naming it; a skin taller than 480 rows loads
//! with [`MdlWarning::TallSkin`], as in QuakeSpasm. Every interval must be
//! a positive number of seconds (the original refuses any other). Bytes
//! after the last frame are kept ([`MdlWarning::TrailingBytes`]), so every
//! file that loads writes back byte for byte.

mod convert;
mod error;
mod keyframes;
mod layout;
mod model;
mod palette;
mod parse;
mod timing;
mod write;

pub use convert::{Conversion, from_keyframes, to_md2};
pub use error::{MdlError, MdlPart, MdlWarning};
pub use model::{
    MdlFrame, MdlFrameGroup, MdlHeader, MdlModel, MdlPoseBox, MdlSkin, MdlTexCoord, MdlTriangle,
};
pub use palette::{FULLBRIGHT_FIRST, Palette, PaletteError, SkinImages};
pub use write::MdlParts;
