//! The types a glTF scene's instance holds, registered by hand: Bevy's
//! `reflect_auto_register` feature (on in Bevy's defaults, off in
//! md2-bevy's build, which names only the features it uses) would have
//! registered them, and Bevy's scene spawner refuses a world holding a
//! type it cannot reflect. Shared by the skinned test and the benchmark's
//! skinned soldiers (`#[path]`).

use bevy::prelude::*;

/// Registers every type an instance of md2-wgpu's skinned demo's glTF
/// scene holds (its nodes' components and those they require).
pub fn register_scene_types(app: &mut App) {
    use bevy::animation::{AnimatedBy, AnimationTargetId};
    use bevy::camera::primitives::Aabb;
    use bevy::camera::visibility::{DynamicSkinnedMeshBounds, NoFrustumCulling, VisibilityClass};
    use bevy::gltf::{
        GltfExtras, GltfMaterialExtras, GltfMaterialName, GltfMeshExtras, GltfMeshName,
        GltfSceneExtras, GltfSceneName,
    };
    use bevy::mesh::skinning::SkinnedMesh;
    use bevy::transform::components::TransformTreeChanged;
    app.register_type::<Name>()
        .register_type::<Transform>()
        .register_type::<GlobalTransform>()
        .register_type::<Visibility>()
        .register_type::<InheritedVisibility>()
        .register_type::<ViewVisibility>()
        .register_type::<Mesh3d>()
        .register_type::<MeshMaterial3d<StandardMaterial>>()
        .register_type::<SkinnedMesh>()
        .register_type::<AnimationPlayer>()
        .register_type::<AnimationTargetId>()
        .register_type::<AnimatedBy>()
        .register_type::<GltfExtras>()
        .register_type::<GltfMeshName>()
        .register_type::<GltfMaterialName>()
        .register_type::<GltfSceneName>()
        .register_type::<Aabb>()
        .register_type::<DynamicSkinnedMeshBounds>()
        .register_type::<NoFrustumCulling>()
        .register_type::<VisibilityClass>()
        .register_type::<TransformTreeChanged>()
        .register_type::<GltfMeshExtras>()
        .register_type::<GltfMaterialExtras>()
        .register_type::<GltfSceneExtras>()
        .register_type::<ChildOf>()
        .register_type::<Children>();
}
