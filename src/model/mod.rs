//! The model seam: the one model type every room past a file's parser
//! reads (meshes, levels of detail, the CPU reference, the GPU contract,
//! the renderer, the glTF export). A keyframe format is a parser under
//! `format/` and a conversion into a [`KeyframeModel`]; an
//! [`Md2Model`](crate::Md2Model) holds one, and so can a model built in code
//! ([`KeyframeModel::from_parts`]). Also here, because every keyframe
//! format shares them: the packed 4-byte vertex and Quake's normal table,
//! the wide 8-byte vertex and Quake III's two-angle normals,
//! a frame's header, a welded corner, bounds, and the grouping of frames
//! into animations by their names. CPU only: nothing here knows about
//! wgpu.

pub mod animations;
mod anorms;
mod frame;
mod keyframe_model;
mod lat_long;

pub use animations::Animation;
pub use anorms::{ANORMS, FALLBACK_NORMAL_INDEX, nearest_normal_index, normal_from_index};
pub use frame::{Bounds, Corner, Frame, PackedVertex, WideVertex};
pub use keyframe_model::{FrameData, FrameWord, KeyframeError, KeyframeModel, KeyframeParts};
pub use lat_long::{LAT_LONG_STEPS, lat_long_table, normal_from_lat_long};

pub(crate) use animations::{group, group_around};
pub(crate) use frame::{fixed_name, name_until_nul};
