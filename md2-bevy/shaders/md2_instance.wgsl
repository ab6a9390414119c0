// md2-bevy: what an MD2 material binds beside the pose (md2_bevy::pose, the
// crate's pose WGSL at the material's group, bindings 0 to 2), and the one
// conversion between Bevy's transform and the pose's rows.
//
// Binding numbers are Rust constants in src/material.rs (INSTANCES_BINDING,
// SKINS_BINDING, SAMPLER_BINDING); a test holds this file to them.

#define_import_path md2_bevy::instance

// One entity's pose, at md2_entity_poses[MeshTag]: src/poses.rs's
// PoseRecord, 80 bytes. `frames` and `lerp` are md2_pose_vertex's arguments
// (md2_wgpu::PoseWords); `previous_*` the same a frame earlier, for motion
// vectors.
struct Md2EntityPose {
    frames: vec4<u32>,
    previous_frames: vec4<u32>,
    lerp: vec3<f32>,
    skin: u32,
    previous_lerp: vec3<f32>,
    pad: u32,
    // Linear RGBA, multiplied into the skin.
    tint: vec4<f32>,
};

@group(#{MATERIAL_BIND_GROUP}) @binding(4) var<storage, read> md2_entity_poses: array<Md2EntityPose>;
@group(#{MATERIAL_BIND_GROUP}) @binding(5) var md2_skins: texture_2d_array<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(6) var md2_skin_sampler: sampler;

// Bevy's world_from_local as the three rows md2_world_position and
// md2_world_normal take: the rows of world_from_local x QUAKE_TO_Y_UP
// (md2_wgpu::transform_rows). QUAKE_TO_Y_UP maps Quake's (x, y, z) to
// (y, z, x), so the product's columns are world_from_local's z, x, y and
// translation columns: the mesh's local space is the Y-up model space the
// entity's Aabb is given in.
fn md2_rows(m: mat4x4<f32>) -> array<vec4<f32>, 3> {
    return array<vec4<f32>, 3>(
        vec4<f32>(m[2].x, m[0].x, m[1].x, m[3].x),
        vec4<f32>(m[2].y, m[0].y, m[1].y, m[3].y),
        vec4<f32>(m[2].z, m[0].z, m[1].z, m[3].z),
    );
}
