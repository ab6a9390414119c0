//! The plugin: the asset and its loader, the material, the shaders, and the
//! systems that give entities their model and write their poses.

use bevy::app::{App, Plugin, PostUpdate};
use bevy::asset::{AssetApp, AssetServer, Assets};
use bevy::camera::CameraUpdateSystems;
use bevy::camera::visibility::VisibilitySystems;
use bevy::ecs::schedule::IntoScheduleConfigs;
use bevy::pbr::MaterialPlugin;
use bevy::shader::Shader;

use bevy::transform::TransformSystems;

use crate::asset::Md2Asset;
use crate::crowd::{Md2Crowd, flush_crowds};
use crate::crowd_render::{
    CrowdPipelines, DrawCrowd, DrawCrowdPrepass, GpuCrowds, Md2CrowdLevels, OPAQUE,
    PendingCrowdQueues, QueuedCrowdShadows, SHELLS, TRANSLUCENT, map_crowd_readbacks,
    prepare_crowd_groups, prepare_crowds, queue_crowd_shadows, queue_crowd_transparent,
    queue_crowds, run_crowd_passes,
};
use crate::entity::{attach_models, free_slot};
use crate::entity_levels::choose_entity_levels;
use crate::loader::Md2Loader;
use crate::material::Md2Material;
use crate::md3_asset::{Md3Asset, Md3Loader};
use crate::md3_entity::{attach_md3, follow_md3_animators, place_tags};
use crate::player_asset::{Md3PlayerAsset, Md3PlayerAssetLoader};
use crate::player_entity::{attach_players, follow_players};
use crate::poses::{Md2Poses, write_poses};
use bevy::core_pipeline::core_3d::{Opaque3d, Transparent3d};
use bevy::core_pipeline::deferred::AlphaMask3dDeferred;
use bevy::core_pipeline::prepass::Opaque3dPrepass;
use bevy::core_pipeline::schedule::camera_driver;
use bevy::pbr::{MeshPipelineSystems, Shadow, init_prepass_pipeline};
use bevy::render::extract_component::ExtractComponentPlugin;
use bevy::render::render_phase::AddRenderCommand;
use bevy::render::render_resource::SpecializedMeshPipelines;
use bevy::render::renderer::RenderGraph;
use bevy::render::{Render, RenderApp, RenderStartup, RenderSystems, init_gpu_resource};

/// MD2, MDL and MD3 models in a Bevy app: add it after Bevy's
/// `DefaultPlugins` (it needs the asset server, the renderer and PBR),
/// then load `.md2`, `.mdl` or `.md3` files (or a Quake III player's
/// `animation.cfg` as an [`Md3PlayerAsset`]) and spawn [`Md2`](crate::Md2),
/// [`Md3`](crate::Md3) or [`Md3PlayerEntity`](crate::Md3PlayerEntity)
/// entities.
///
/// Every frame (in `PostUpdate`, before Bevy propagates transforms and
/// computes visibility) it spawns the parts of newly loaded players and
/// the surfaces and tags of newly loaded MD3 entities, gives newly loaded
/// entities their model's mesh, material, [`MeshTag`](bevy::mesh::MeshTag)
/// and box, places every MD3 tag at its model's pose, then samples every
/// entity's [`Md2Animator`](crate::Md2Animator) on Bevy's clock and
/// rewrites each model's pose buffer in place; after Bevy has placed
/// everything and the cameras, before it computes visibility, it gives
/// each entity the mesh of its level of detail
/// ([`Md2LevelOfDetail`](crate::Md2LevelOfDetail)).
#[derive(Default)]
pub struct Md2Plugin;

/// The plugin's systems, in order: attach models, place tags, write
/// poses.
#[derive(bevy::ecs::schedule::SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Md2Systems {
    /// Players whose files have loaded get their parts, MD3 entities their
    /// surfaces and tags, and entities whose model has loaded its mesh,
    /// material, slot and box.
    Attach,
    /// Players' animators go to their parts, MD3 entities' to their
    /// surfaces, and every MD3 tag is placed at its model's pose (before
    /// Bevy propagates transforms, so what rides a tag follows it in the
    /// same frame).
    Tags,
    /// Every entity's pose is sampled and written to its model's buffer.
    WritePoses,
    /// Every entity gets the mesh of its level of detail (after Bevy
    /// propagates transforms and updates cameras, before visibility).
    Levels,
}

impl Plugin for Md2Plugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(MaterialPlugin::<Md2Material>::default())
            .init_asset::<Md2Asset>()
            .init_asset::<Md3Asset>()
            .init_asset::<Md3PlayerAsset>()
            .init_resource::<Md2Poses>()
            .configure_sets(
                PostUpdate,
                (Md2Systems::Attach, Md2Systems::Tags, Md2Systems::WritePoses)
                    .chain()
                    .before(VisibilitySystems::CalculateBounds),
            )
            .configure_sets(
                PostUpdate,
                Md2Systems::Tags.before(TransformSystems::Propagate),
            )
            .configure_sets(
                PostUpdate,
                Md2Systems::Levels
                    .after(TransformSystems::Propagate)
                    .after(CameraUpdateSystems)
                    .before(VisibilitySystems::CheckVisibility),
            )
            .add_systems(
                PostUpdate,
                (
                    (attach_players, attach_md3, attach_models)
                        .chain()
                        .in_set(Md2Systems::Attach),
                    (follow_players, follow_md3_animators, place_tags)
                        .chain()
                        .in_set(Md2Systems::Tags),
                    (write_poses, flush_crowds).in_set(Md2Systems::WritePoses),
                    choose_entity_levels.in_set(Md2Systems::Levels),
                ),
            )
            .add_observer(free_slot)
            .add_plugins(ExtractComponentPlugin::<Md2Crowd>::default());
        let levels = Md2CrowdLevels::default();
        app.insert_resource(levels.clone());
        if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
            render_app
                .insert_resource(levels)
                .init_resource::<GpuCrowds>()
                .init_resource::<PendingCrowdQueues>()
                .init_resource::<QueuedCrowdShadows>()
                .init_resource::<SpecializedMeshPipelines<CrowdPipelines>>()
                .add_render_command::<Opaque3d, DrawCrowd<OPAQUE>>()
                .add_render_command::<Transparent3d, DrawCrowd<TRANSLUCENT>>()
                .add_render_command::<Transparent3d, DrawCrowd<SHELLS>>()
                .add_render_command::<Shadow, DrawCrowdPrepass>()
                .add_render_command::<Opaque3dPrepass, DrawCrowdPrepass>()
                .add_render_command::<AlphaMask3dDeferred, DrawCrowdPrepass>()
                .add_systems(
                    Render,
                    (
                        prepare_crowds.in_set(RenderSystems::PrepareResources),
                        prepare_crowd_groups.in_set(RenderSystems::PrepareBindGroups),
                        (queue_crowds, queue_crowd_shadows, queue_crowd_transparent)
                            .in_set(RenderSystems::Queue),
                        map_crowd_readbacks.in_set(RenderSystems::Cleanup),
                    ),
                )
                .add_systems(RenderGraph, run_crowd_passes.before(camera_driver))
                // Made with the renderer, after Bevy's mesh and prepass
                // pipelines (which the crowd's pipelines specialise).
                .add_systems(
                    RenderStartup,
                    init_gpu_resource::<CrowdPipelines>
                        .after(MeshPipelineSystems)
                        .after(init_prepass_pipeline),
                );
        }

        crate::shaders::register(&mut app.world_mut().resource_mut::<Assets<Shader>>());
        let server = app.world().resource::<AssetServer>().clone();
        app.register_asset_loader(Md2Loader::new(server))
            .register_asset_loader(Md3Loader)
            .register_asset_loader(Md3PlayerAssetLoader);
    }
}
