//! Finding and decoding a model's skins the way Quake II mods lay them out.
//!
//! A model's header names its skins as game paths (`players/ogro/igdosh.pcx`,
//! `players\Yohko\weapon.pcx`, `models/weapons/g_rail/skin.pcx`), written on
//! whatever machine the author had: backslashes, any letter case, and often
//! names that were never shipped. The rules that resolve them against the
//! model's folder, and take the folder's images when the header names none
//! that exist, are written once, in [`SkinFinder`], which does no I/O: it
//! asks for folder listings and file bytes ([`SkinQuestion`]) and whoever
//! has the files answers. [`search_skins`] and [`load_skins`] answer from
//! the file system; md2-bevy answers from Bevy's asset reader and the web
//! page from the files dropped on it, so a model finds the same skins
//! wherever it is opened.
//!
//! [`decode_skin`] decodes one image with the `image` crate (PCX through
//! `image-extras`), with a size limit, and never panics whatever the bytes;
//! [`load_skin`] does it for a file. [`load_skins`] keeps one slot per skin
//! index, so that skin `i` is always the header's skin `i` whatever failed
//! to load.
//!
//! Every [`SkinError`] names its file, once; the model's own errors follow
//! the same rule (see [`Md2Error`](crate::format::Md2Error)).
//!
//! This room has no GPU types: it hands over decoded RGBA images.

mod decode;
mod error;
mod files;
mod finder;
mod found;
mod names;

pub use decode::decode_skin;
pub use error::{MAX_SKIN_SIDE, SkinError};
pub use files::{find_skins, load_skin, load_skins, search_skins};
pub use finder::{SkinFinder, SkinQuestion};
pub use found::{FailedSkin, LoadedSkins, SkinSearch, SkinSource};
pub use names::{SKIN_EXTENSIONS, candidate_names, split_skin_name};
