//! The component that puts an MD2 model in the world, and what the plugin
//! adds to its entity once the model has loaded: the model's shared mesh
//! and material (so every entity of a model is one draw per pass), its
//! [`MeshTag`] (the entity's slot in the model's pose buffer) and a box
//! around every frame.

use bevy::asset::{Assets, Handle};
use bevy::camera::visibility::{NoAutoAabb, Visibility};
use bevy::ecs::prelude::*;
use bevy::mesh::{Mesh3d, MeshTag};
use bevy::pbr::MeshMaterial3d;
use bevy::render::storage::ShaderBuffer;
use bevy::transform::components::Transform;

use crate::animator::Md2Animator;
use crate::asset::Md2Asset;
use crate::material::Md2Material;
use crate::poses::{Md2Poses, Md2Slot};

/// An MD2 model in the world: the entity draws `0` where its
/// [`Transform`] puts it (model units; the model stands in Bevy's Y-up
/// space facing +Z, as [`md2_wgpu::scene::QUAKE_TO_Y_UP`] maps it), posed by its
/// [`Md2Animator`] (frame 0 without one).
///
/// ```no_run
/// # use bevy::prelude::*;
/// use md2_bevy::{Md2, Md2Animator};
/// use md2_wgpu::Quake2Player;
///
/// fn spawn(mut commands: Commands, assets: Res<AssetServer>) {
///     commands.spawn((
///         Md2(assets.load("players/male/tris.md2")),
///         Md2Animator::player(Quake2Player::Run),
///         Transform::from_scale(Vec3::splat(1.0 / 32.0)),
///     ));
/// }
/// ```
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
#[require(Md2Animator, Transform, Visibility)]
pub struct Md2(pub Handle<Md2Asset>);

/// MD2 entities without their model's components yet, or whose model
/// changed.
type Unattached = Or<(Without<Md2Slot>, Changed<Md2>)>;

/// Gives every MD2 entity whose model has loaded (and every entity whose
/// model changed) its mesh, material, slot and box.
pub(crate) fn attach_models(
    mut commands: Commands,
    entities: Query<(Entity, &Md2, Option<&Md2Slot>), Unattached>,
    models: Res<Assets<Md2Asset>>,
    mut poses: ResMut<Md2Poses>,
    mut buffers: ResMut<Assets<ShaderBuffer>>,
    mut materials: ResMut<Assets<Md2Material>>,
) {
    for (entity, md2, old) in &entities {
        let id = md2.0.id();
        if old.is_some_and(|old| old.model == id) {
            continue;
        }
        let Some(asset) = models.get(id) else {
            continue;
        };
        if let Some(old) = old {
            poses.free(old.model, old.slot);
        }
        let slot = poses.allocate(id, asset, &mut buffers, &mut materials);
        commands.entity(entity).insert((
            Mesh3d(asset.mesh.clone()),
            MeshMaterial3d(asset.material.clone()),
            MeshTag(slot),
            Md2Slot {
                model: id,
                slot,
                previous: None,
            },
            asset.aabb,
            NoAutoAabb,
        ));
    }
}

/// Gives a despawned (or stripped) entity's slot back.
pub(crate) fn free_slot(
    remove: On<Remove, Md2Slot>,
    slots: Query<&Md2Slot>,
    mut poses: ResMut<Md2Poses>,
) {
    if let Ok(slot) = slots.get(remove.entity) {
        poses.free(slot.model, slot.slot);
    }
}
