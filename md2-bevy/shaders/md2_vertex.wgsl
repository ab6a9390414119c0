// md2-bevy: the vertex stage of every pass an MD2 material draws in: the
// main pass, the depth, normal and motion-vector prepasses, every shadow map
// and the deferred G-buffer pass. One vertex layout for all (the material's
// `specialize` sets it): the welded corner's xyz index at location 0 and its
// uv at location 1. The pose is md2_wgpu's own md2_pose_vertex.

#import bevy_pbr::{
    mesh_functions,
    view_transformations::position_world_to_clip,
}
#import md2_bevy::pose::{md2_pose_vertex, md2_world_position, md2_world_normal}
#import md2_bevy::instance::{md2_entity_poses, md2_rows}

#ifdef PREPASS_PIPELINE
#import bevy_pbr::prepass_io::VertexOutput
#else
#import bevy_pbr::forward_io::VertexOutput
#endif

struct Md2Vertex {
    @builtin(instance_index) instance_index: u32,
    @location(0) xyz: u32,
    @location(1) uv: vec2<f32>,
};

@vertex
fn vertex(vertex: Md2Vertex) -> VertexOutput {
    var out: VertexOutput;
    let pose = md2_entity_poses[mesh_functions::get_tag(vertex.instance_index)];
    let world_from_local = mesh_functions::get_world_from_local(vertex.instance_index);
    let rows = md2_rows(world_from_local);
    let posed = md2_pose_vertex(vertex.xyz, pose.frames, pose.lerp, 0.0);
    let world = md2_world_position(rows, posed.position);
    out.world_position = vec4<f32>(world, 1.0);
    out.position = position_world_to_clip(world);

#ifdef PREPASS_PIPELINE
#ifdef UNCLIPPED_DEPTH_ORTHO_EMULATION
    // Directional shadow maps without depth-clip control: the prepass
    // fragment writes this depth, clamped geometry keeps casting.
    out.unclipped_depth = out.position.z;
    out.position.z = min(out.position.z, 1.0);
#endif
#ifdef NORMAL_PREPASS_OR_DEFERRED_PREPASS
    out.world_normal = normalize(md2_world_normal(rows, posed.normal));
#endif
#ifdef MOTION_VECTOR_PREPASS
    let previous_from_local = mesh_functions::get_previous_world_from_local(vertex.instance_index);
    let unmoved = all(pose.previous_frames == pose.frames)
        && all(pose.previous_lerp == pose.lerp)
        && all(previous_from_local[0] == world_from_local[0])
        && all(previous_from_local[1] == world_from_local[1])
        && all(previous_from_local[2] == world_from_local[2])
        && all(previous_from_local[3] == world_from_local[3]);
    if unmoved {
        // The same inputs give the same position; reusing it makes a still
        // entity's motion exactly zero whatever the compiler fuses.
        out.previous_world_position = out.world_position;
    } else {
        let previous = md2_pose_vertex(vertex.xyz, pose.previous_frames, pose.previous_lerp, 0.0);
        let previous_world = md2_world_position(md2_rows(previous_from_local), previous.position);
        out.previous_world_position = vec4<f32>(previous_world, 1.0);
    }
#endif
#else
    out.world_normal = normalize(md2_world_normal(rows, posed.normal));
#endif

#ifdef VERTEX_UVS_A
    out.uv = vertex.uv;
#endif
#ifdef VERTEX_OUTPUT_INSTANCE_INDEX
    out.instance_index = vertex.instance_index;
#endif
#ifdef VISIBILITY_RANGE_DITHER
    out.visibility_range_dither = mesh_functions::get_visibility_range_dither_level(
        vertex.instance_index,
        world_from_local[3],
    );
#endif
    return out;
}
