//! The plugin: the asset and its loader, the material, the shaders, and the
//! systems that give entities their model and write their poses.

use bevy::app::{App, Plugin, PostUpdate};
use bevy::asset::{AssetApp, AssetServer, Assets};
use bevy::camera::visibility::VisibilitySystems;
use bevy::ecs::schedule::IntoScheduleConfigs;
use bevy::pbr::MaterialPlugin;
use bevy::shader::Shader;

use crate::asset::Md2Asset;
use crate::entity::{attach_models, free_slot};
use crate::loader::Md2Loader;
use crate::material::Md2Material;
use crate::poses::{Md2Poses, write_poses};

/// MD2 models in a Bevy app: add it after Bevy's `DefaultPlugins` (it needs
/// the asset server, the renderer and PBR), then load `.md2` files and
/// spawn [`Md2`](crate::Md2) entities.
///
/// Every frame (in `PostUpdate`, before Bevy computes visibility) it gives
/// newly loaded entities their model's mesh, material, [`MeshTag`](bevy::mesh::MeshTag)
/// and box, then samples every entity's [`Md2Animator`](crate::Md2Animator)
/// on Bevy's clock and rewrites each model's pose buffer in place.
#[derive(Default)]
pub struct Md2Plugin;

/// The plugin's systems, in order: attach models, then write poses.
#[derive(bevy::ecs::schedule::SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Md2Systems {
    /// Entities whose model has loaded get its mesh, material, slot and box.
    Attach,
    /// Every entity's pose is sampled and written to its model's buffer.
    WritePoses,
}

impl Plugin for Md2Plugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(MaterialPlugin::<Md2Material>::default())
            .init_asset::<Md2Asset>()
            .init_resource::<Md2Poses>()
            .configure_sets(
                PostUpdate,
                (Md2Systems::Attach, Md2Systems::WritePoses)
                    .chain()
                    .before(VisibilitySystems::CalculateBounds),
            )
            .add_systems(
                PostUpdate,
                (
                    attach_models.in_set(Md2Systems::Attach),
                    write_poses.in_set(Md2Systems::WritePoses),
                ),
            )
            .add_observer(free_slot);

        crate::shaders::register(&mut app.world_mut().resource_mut::<Assets<Shader>>());
        let server = app.world().resource::<AssetServer>().clone();
        app.register_asset_loader(Md2Loader::new(server));
    }
}
