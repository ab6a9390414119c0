//! A loaded MD2 (or Quake I MDL) model, or one surface of a Quake III
//! MD3: the Bevy assets its entities draw with, its clips, and what it
//! costs on the GPU.

use std::sync::Arc;

use bevy::asset::{Asset, Handle};
use bevy::camera::primitives::Aabb;
use bevy::mesh::Mesh;
use bevy::reflect::TypePath;
use bevy::render::storage::ShaderBuffer;
use md2_wgpu::mesh::Levels;
use md2_wgpu::model::KeyframeModel;
use md2_wgpu::{Clip, Quake2Player, QuakeModel};

use crate::levels::Md2LevelSource;
use crate::material::Md2Material;

/// What a model keeps on the GPU, in bytes: each of the buffers and
/// textures its entities draw from, once per model however many entities.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Md2GpuBytes {
    /// Every frame's packed vertices: 4 bytes a vertex a frame.
    pub vertices: u64,
    /// Every frame's scale and translate: 32 bytes a frame.
    pub frame_params: u64,
    /// The model's counts: 16 bytes.
    pub info: u64,
    /// The meshes' vertex buffers: 12 bytes a welded corner, once per
    /// level of detail's mesh.
    pub corners: u64,
    /// The meshes' index buffers, every level's.
    pub indices: u64,
    /// The skins, every layer and mip level.
    pub skins: u64,
}

impl Md2GpuBytes {
    /// The geometry: vertices, frame parameters, counts, corners, indices
    /// (the skins apart, and the normal table, 4,096 bytes a model).
    pub fn geometry(&self) -> u64 {
        self.vertices + self.frame_params + self.info + self.corners + self.indices
    }

    /// Everything, skins included.
    pub fn total(&self) -> u64 {
        self.geometry() + self.skins
    }
}

/// What an [`Md2Asset`] draws: a whole MD2 or MDL, or one surface of an
/// MD3 (whose tags and other surfaces are its [`Md3Asset`](crate::Md3Asset)'s).
#[derive(Debug, Clone)]
pub(crate) enum AssetModel {
    /// A Quake II or Quake I model.
    Quake(Arc<QuakeModel>),
    /// A surface of an MD3, as md2-wgpu's model seam holds it
    /// ([`Md3Model::surface_model`](md2_wgpu::format::md3::Md3Model::surface_model)).
    Md3Surface { keyframes: Arc<KeyframeModel> },
}

/// An MD2 or MDL model loaded by [`Md2Loader`](crate::Md2Loader), or a
/// surface of an MD3 (an [`Md3Asset`](crate::Md3Asset)'s, each surface with
/// its own texture): give its handle to an [`Md2`](crate::Md2) component
/// to draw it.
///
/// Its labelled sub-assets are the mesh (`#mesh`), the material
/// (`#material`), the GPU buffers (`#vertices`, `#frame_params`,
/// `#poses`) and the skins (`#skins`).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct Md2Asset {
    pub(crate) model: AssetModel,
    pub(crate) mesh: Handle<Mesh>,
    pub(crate) level_meshes: Vec<Handle<Mesh>>,
    pub(crate) material: Handle<Md2Material>,
    pub(crate) poses: Handle<ShaderBuffer>,
    pub(crate) pose_capacity: u32,
    pub(crate) aabb: Aabb,
    pub(crate) clips: Vec<Clip>,
    pub(crate) skin_count: u32,
    pub(crate) skin_notes: Vec<String>,
    pub(crate) gpu_bytes: Md2GpuBytes,
    pub(crate) level_source: Md2LevelSource,
    pub(crate) crowd_model: Arc<CrowdModel>,
}

/// What a resident crowd ([`Md2Crowd`](crate::Md2Crowd)) of a model draws
/// with beside the material's buffers, shared by every crowd of it.
#[derive(Debug)]
pub(crate) struct CrowdModel {
    /// The welded corners, the contract's 12 bytes each (xyz index, uv).
    pub corners: Arc<[u8]>,
    /// Every level's triangles facing outwards counter-clockwise (the
    /// contract's mirrored list: MD2 files wind them the other way), and
    /// wound the file's way, for members whose transform mirrors.
    pub indices: Arc<[u32]>,
    pub mirrored_indices: Arc<[u32]>,
    /// Each frame's box (Quake axes), and the sphere around them all.
    pub frame_bounds: Arc<[md2_wgpu::model::Bounds]>,
    pub sphere: [f32; 4],
    /// Full detail, and the coarser levels where the model has them (the
    /// asset's `levels_of_detail`).
    pub levels: Levels,
    pub info: md2_wgpu::contract::ModelInfo,
    /// The mesh entities draw (its vertex layout specialises the crowd's
    /// pipelines as it does the material's).
    pub mesh: bevy::asset::AssetId<Mesh>,
    /// The material's frames, frame parameters and skins.
    pub vertices: bevy::asset::AssetId<ShaderBuffer>,
    pub frame_params: bevy::asset::AssetId<ShaderBuffer>,
    pub skins: bevy::asset::AssetId<bevy::image::Image>,
}

impl Md2Asset {
    /// The model as md2-wgpu parsed it (frames, animations, warnings): an
    /// MD2 or an MDL, either deref'ing to md2-wgpu's
    /// [`KeyframeModel`]; `None` for a surface of an MD3, whose model is
    /// [`Md3Asset::model`](crate::Md3Asset::model).
    pub fn model(&self) -> Option<&QuakeModel> {
        match &self.model {
            AssetModel::Quake(model) => Some(model),
            AssetModel::Md3Surface { .. } => None,
        }
    }

    /// The frames the shaders decode, as md2-wgpu's model seam holds them:
    /// the MD2's or MDL's, or the MD3 surface's 8-byte words.
    pub fn keyframes(&self) -> &KeyframeModel {
        match &self.model {
            AssetModel::Quake(model) => model,
            AssetModel::Md3Surface { keyframes, .. } => keyframes,
        }
    }

    /// The mesh every entity of the model shares at full detail: welded
    /// corners (vertex index and uv) and triangles, no positions.
    pub fn mesh(&self) -> &Handle<Mesh> {
        &self.mesh
    }

    /// One mesh per level of detail, full detail ([`mesh`](Self::mesh))
    /// first: the same corners, each level's triangles. An entity draws
    /// the one its views allow ([`Md2LevelOfDetail`](crate::Md2LevelOfDetail)).
    pub fn level_meshes(&self) -> &[Handle<Mesh>] {
        &self.level_meshes
    }

    /// The material every entity of the model shares.
    pub fn material(&self) -> &Handle<Md2Material> {
        &self.material
    }

    /// The box around every frame in the mesh's local space: the
    /// [`Aabb`] each entity gets.
    pub fn aabb(&self) -> Aabb {
        self.aabb
    }

    /// The model's animations as clips, by the frame names
    /// ([`QuakeModel::clips`]: an MDL's frame groups at their intervals).
    pub fn clips(&self) -> &[Clip] {
        &self.clips
    }

    /// The clip named `name`: one of the model's animations (by the name
    /// [`KeyframeModel::animations`](md2_wgpu::model::KeyframeModel::animations) gives it), else, for a 198-frame player
    /// model, the Quake II player animation of that name (`run`,
    /// `crattack`, `death3`, ...) whatever its frames are named.
    pub fn clip(&self, name: &str) -> Option<Clip> {
        if let Some(clip) = self.clips.iter().find(|c| &*c.name == name) {
            return Some(clip.clone());
        }
        Quake2Player::from_name(name)
            .filter(|_| Quake2Player::fits(self.keyframes()))
            .map(Quake2Player::clip)
    }

    /// How many skin layers the material has (at least 1: a model without
    /// skins has md2-wgpu's checker).
    pub fn skin_count(&self) -> u32 {
        self.skin_count
    }

    /// What the skin search found worth saying: header names that led
    /// nowhere, images that did not decode, where the skins came from.
    pub fn skin_notes(&self) -> &[String] {
        &self.skin_notes
    }

    /// What the model keeps on the GPU.
    pub fn gpu_bytes(&self) -> Md2GpuBytes {
        self.gpu_bytes
    }

    /// The model's levels of detail: full detail first, then each coarser
    /// level with its error bounded over every frame (md2-wgpu's
    /// [`Levels`]), as the loader's settings asked
    /// ([`Md2LoaderSettings::levels`](crate::Md2LoaderSettings::levels));
    /// full detail alone where none were saved or built. Entities draw at
    /// full detail.
    pub fn levels_of_detail(&self) -> &Levels {
        &self.crowd_model.levels
    }

    /// Where the levels came from: a saved file, the loader's build (and
    /// how long it took, off the main thread), or nowhere.
    pub fn level_source(&self) -> &Md2LevelSource {
        &self.level_source
    }
}
