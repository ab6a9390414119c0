//! Quake II MD2 models (and Quake I MDL, and Quake III MD3 models and
//! players) in [Bevy](https://bevyengine.org), drawn the way
//! [md2-wgpu](md2_wgpu) draws them: every frame uploaded once in the file's
//! packed 4-byte form, decoded and interpolated in the vertex shader by
//! md2-wgpu's own `md2_pose_vertex`, in every pass Bevy draws a mesh in
//! (the main pass under Bevy's PBR lights, the depth, normal and
//! motion-vector prepasses, every shadow map, the deferred G-buffer), with
//! every entity of a model in one draw per pass.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use md2_bevy::{Md2, Md2Animator, Md2Plugin};
//! use md2_wgpu::Quake2Player;
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((DefaultPlugins, Md2Plugin))
//!         .add_systems(Startup, setup)
//!         .run();
//! }
//!
//! fn setup(mut commands: Commands, assets: Res<AssetServer>) {
//!     let model = assets.load("players/male/tris.md2");
//!     for i in 0..100 {
//!         commands.spawn((
//!             Md2(model.clone()),
//!             Md2Animator::player(Quake2Player::Run).with_phase(i as f64 * 0.07),
//!             Transform::from_xyz((i % 10) as f32 * 60.0, 0.0, (i / 10) as f32 * 60.0),
//!         ));
//!     }
//!     commands.spawn((DirectionalLight { shadow_maps_enabled: true, ..default() },
//!         Transform::from_xyz(1.0, 2.0, 1.0).looking_at(Vec3::ZERO, Vec3::Y)));
//!     commands.spawn((Camera3d::default(),
//!         Transform::from_xyz(300.0, 200.0, 700.0).looking_at(Vec3::ZERO, Vec3::Y)));
//! }
//! ```
//!
//! # The rooms
//!
//! - [`Md2Loader`] (`loader`): `.md2` bytes through Bevy's reader into an
//!   [`Md2Asset`] (`asset`): md2-wgpu's [`ModelData`](md2_wgpu::ModelData)
//!   as buffers, the mesh (`mesh`), the skins (`skins`, found the Quake II
//!   way through Bevy's reader) as a [`SkinArray`](md2_wgpu::contract::SkinArray)
//!   texture, and the [`Md2Material`] (`material`).
//! - [`Md2`] (`entity`): a model in the world, given its shared mesh and
//!   material, a [`MeshTag`](bevy::mesh::MeshTag) and a box around every
//!   frame once loaded.
//! - [`Md2Animator`] (`animator`): md2-wgpu's [`Playback`](md2_wgpu::anim::Playback)
//!   (clips by name or Quake II preset, looping and one-shot, speed,
//!   crossfades) on Bevy's [`Time`](bevy::time::Time), with skin and tint.
//! - [`PoseRecord`], [`Md2Poses`] and [`Md2Slot`] (`poses`): each entity's
//!   pose (and its previous pose, for motion vectors) in its model's
//!   storage buffer at its slot, its `MeshTag`, rewritten in place every
//!   frame.
//! - `shaders`: md2-wgpu's pose WGSL at the material's bind group, and the
//!   vertex and fragment stages (`md2-bevy/shaders/`), with the material's
//!   binding numbers they declare.
//! - `model_assets`: one model's buffers, mesh, pose buffer, skins and
//!   material as labelled sub-assets, whatever file it came from.
//! - [`Md3Loader`] and [`Md3Asset`] (`md3_asset`): an `.md3`'s surfaces,
//!   each an [`Md2Asset`] wearing the texture found as Quake III finds it,
//!   and its tags.
//! - [`Md3PlayerAsset`] (`player_asset`): a Quake III player loaded from its
//!   `animation.cfg` by md2-wgpu's sans-I/O loader through Bevy's reader,
//!   with a skin set and a weapon ([`Md3PlayerSettings`]).
//! - [`Md3`], [`Md3Tag`] (`md3_entity`): an MD3 in the world, a child
//!   entity per surface and per tag, the tags placed at the pose every
//!   frame; [`Md3PlayerEntity`] (`player_entity`): a player's parts, each
//!   riding its parent's tag.
//! - [`Md2Crowd`] (`crowd`): a resident crowd of one model, its members
//!   md2-wgpu's [`CrowdMembers`](md2_wgpu::crowd::CrowdMembers), written
//!   to the GPU only where they change; `crowd_render`: the crowd's
//!   buffers in the render world, md2-wgpu's crowd passes run for every
//!   camera and shadow map before it draws (sorting translucent members
//!   and shells back to front in cameras), and its draws (one phase item
//!   per pass: main, prepasses, deferred, shadow, and transparent for the
//!   translucent members and for the shells; one indirect draw per level
//!   and bucket).
//! - `levels` ([`Md2Levels`], [`Md2LevelSource`]): a model's levels of
//!   detail, read from the file saved beside it or built by the loader;
//!   [`Md2LevelOfDetail`] (`entity_levels`): each entity drawn with its
//!   level's mesh, chosen as the crowd's passes choose.
//! - [`Md2Plugin`] (`plugin`): all of it registered.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod animator;
mod asset;
mod crowd;
mod crowd_render;
mod entity;
mod entity_levels;
mod levels;
mod loader;
mod material;
mod md3_asset;
mod md3_entity;
mod mesh;
mod model_assets;
mod player_asset;
mod player_entity;
mod plugin;
mod poses;
pub mod shaders;
mod skins;

pub use animator::Md2Animator;
pub use asset::{Md2Asset, Md2GpuBytes};
pub use crowd::{LEVEL_COLOURS, Md2Crowd, member_transform};
pub use crowd_render::{
    CROWD_DRAW_BINDING, CROWD_MEMBERS_BINDING, CROWD_RECORDS_BINDING, Md2CrowdLevels, Md2CrowdStats,
};
pub use entity::Md2;
pub use entity_levels::Md2LevelOfDetail;
pub use levels::{Md2LevelSource, Md2Levels, levels_path};
pub use loader::{Md2LoadError, Md2Loader, Md2LoaderSettings};
pub use material::{Md2Material, Md2ModelInfo};
pub use md3_asset::{Md3Asset, Md3AssetSurface, Md3Loader};
pub use md3_entity::{Md3, Md3Children, Md3Tag, nearest_rotation, tag_transform};
pub use mesh::{ATTRIBUTE_MD2_VERTEX, every_frame_aabb, md2_mesh};
pub use model_assets::{INITIAL_POSE_CAPACITY, MAX_SKIN_SIDE};
pub use player_asset::{Md3PlayerAsset, Md3PlayerAssetLoader, Md3PlayerSettings};
pub use player_entity::{Md3PlayerEntity, Md3PlayerParts};
pub use plugin::{Md2Plugin, Md2Systems};
pub use poses::{Md2Poses, Md2Slot, PoseRecord};
pub use shaders::{INSTANCES_BINDING, POSE_FIRST_BINDING, SAMPLER_BINDING, SKINS_BINDING};
pub use skins::decode_skin;

// The README's quick start compiles as a doc test, so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
