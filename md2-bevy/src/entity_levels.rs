//! Levels of detail for entities: each frame, each MD2 entity draws the
//! mesh of the coarsest level whose error stays within its pixels in every
//! camera (md2-wgpu's choice, `LevelChoice::for_view`, the one the
//! resident crowd's passes make per view), so that no camera sees it worse
//! than it allows. Shadow maps draw the mesh the cameras chose.

use bevy::asset::Assets;
use bevy::camera::{Camera, Camera3d};
use bevy::ecs::component::Component;
use bevy::ecs::query::With;
use bevy::ecs::system::{Query, Res};
use bevy::mesh::Mesh3d;
use bevy::transform::components::GlobalTransform;
use md2_wgpu::glam::{Mat4, UVec2};
use md2_wgpu::scene::LevelChoice;

use crate::asset::Md2Asset;
use crate::entity::Md2;

/// How far an [`Md2`] entity's level of detail may stray: at most
/// `error_pixels` from full detail in any camera (the default: one pixel,
/// as a resident crowd's). An entity without it takes the default; a model
/// without levels of detail ([`Md2Asset::levels_of_detail`]) always draws
/// full detail.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Md2LevelOfDetail {
    /// The largest error in pixels a level may make (0: full detail only).
    pub error_pixels: f32,
}

impl Md2LevelOfDetail {
    /// Full detail only.
    pub const FULL_DETAIL: Md2LevelOfDetail = Md2LevelOfDetail { error_pixels: 0.0 };
}

impl Default for Md2LevelOfDetail {
    fn default() -> Md2LevelOfDetail {
        Md2LevelOfDetail { error_pixels: 1.0 }
    }
}

/// A camera as md2-wgpu's level choice reads it: world to clip, and its
/// viewport in physical pixels.
fn md2_camera(camera: &Camera, transform: &GlobalTransform) -> Option<md2_wgpu::Camera> {
    if !camera.is_active {
        return None;
    }
    let size = camera.physical_viewport_size()?;
    let clip_from_world = camera.clip_from_view() * transform.to_matrix().inverse();
    let view_proj = Mat4::from_cols_array(&clip_from_world.to_cols_array());
    Some(md2_wgpu::Camera::new(view_proj).with_viewport(UVec2::new(size.x, size.y)))
}

/// Gives each MD2 entity the mesh of its level of detail: the finest any
/// active 3D camera needs.
pub(crate) fn choose_entity_levels(
    assets: Res<Assets<Md2Asset>>,
    cameras: Query<(&Camera, &GlobalTransform), With<Camera3d>>,
    mut entities: Query<(
        &Md2,
        &GlobalTransform,
        &mut Mesh3d,
        Option<&Md2LevelOfDetail>,
    )>,
) {
    // Without a model that has coarser levels, nothing to choose (and no
    // entity to visit).
    if assets
        .iter()
        .all(|(_, asset)| asset.level_meshes().len() < 2)
    {
        return;
    }
    let cameras: Vec<md2_wgpu::Camera> = cameras
        .iter()
        .filter_map(|(camera, transform)| md2_camera(camera, transform))
        .collect();
    for (md2, transform, mut mesh, detail) in &mut entities {
        let Some(asset) = assets.get(&md2.0) else {
            continue;
        };
        let meshes = asset.level_meshes();
        if meshes.len() < 2 {
            continue;
        }
        let pixels = detail.copied().unwrap_or_default().error_pixels;
        let level = if pixels > 0.0 && !cameras.is_empty() {
            let model = &asset.crowd_model;
            let choice = LevelChoice::new(model.levels.levels(), model.sphere, Default::default());
            let world = Mat4::from_cols_array(&transform.to_matrix().to_cols_array());
            cameras
                .iter()
                .map(|camera| choice.for_view(camera, pixels, world))
                .min()
                .unwrap_or(0)
        } else {
            0
        };
        let wanted = &meshes[level.min(meshes.len() - 1)];
        // Only a change is written: Bevy re-queues an entity whose mesh
        // changed.
        if mesh.0 != *wanted {
            mesh.0 = wanted.clone();
        }
    }
}
