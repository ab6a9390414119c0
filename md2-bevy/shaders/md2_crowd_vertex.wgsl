// md2-bevy: the vertex stage of a resident crowd's draws in the main pass
// (opaque, translucent, and shells: MD2_CROWD_SHELL) and in every prepass
// (PREPASS_PIPELINE): each shadow map, a camera's depth, normal and
// motion-vector prepasses, its deferred G-buffer pass.
// Instance `i` of a bucket's indirect draw is the visible record at the
// bucket's first plus `i`; its member's rows place the pose md2-wgpu's own
// md2_pose_vertex decodes, and the fragment stage (md2_fragment.wgsl with
// MD2_CROWD) finds the member's skin and tint through the record index
// passed on as the instance index.

#import bevy_pbr::view_transformations::position_world_to_clip
#ifdef PREPASS_PIPELINE
#import bevy_pbr::prepass_io::VertexOutput
#else
#import bevy_pbr::forward_io::VertexOutput
#endif
#import md2_bevy::pose::{md2_pose_vertex, md2_world_position, md2_world_normal}
#import md2_bevy::crowd::{
    MD2_CROWD_SHELL_OFFSET, md2_crowd_casts_no_shadow, md2_crowd_draw, md2_crowd_record,
    md2_crowd_previous,
}

struct Md2Vertex {
    @builtin(instance_index) instance_index: u32,
    @location(0) xyz: u32,
    @location(1) uv: vec2<f32>,
};

@vertex
fn vertex(vertex: Md2Vertex) -> VertexOutput {
    var out: VertexOutput;
    let record = md2_crowd_draw.base + vertex.instance_index;
#ifdef MD2_CROWD_SHADOW_CASTER
    // A member that casts no shadow: every vertex of its instance outside
    // the view (as md2-wgpu's md2_vs_shadow_crowd leaves it out).
    if md2_crowd_casts_no_shadow(record) {
        out.position = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
#endif
    let inst = md2_crowd_record(record);
#ifdef MD2_CROWD_SHELL
    // A shell: the pose pushed out along its normals.
    let posed = md2_pose_vertex(vertex.xyz, inst.frames, inst.lerp, MD2_CROWD_SHELL_OFFSET);
#else
    let posed = md2_pose_vertex(vertex.xyz, inst.frames, inst.lerp, 0.0);
#endif
    let world = md2_world_position(inst.rows, posed.position);
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
    out.world_normal = normalize(md2_world_normal(inst.rows, posed.normal));
#endif
#ifdef MOTION_VECTOR_PREPASS
    // Where the previous frame showed this vertex: the member's extra
    // record (its previous transform and pose, which md2-wgpu's passes
    // sampled at the view's previous time).
    let before = md2_crowd_previous(record);
    let unmoved = all(before.frames == inst.frames)
        && all(before.lerp == inst.lerp)
        && all(before.rows[0] == inst.rows[0])
        && all(before.rows[1] == inst.rows[1])
        && all(before.rows[2] == inst.rows[2]);
    if unmoved {
        // The same inputs give the same position; reusing it makes a still
        // member's motion exactly zero whatever the compiler fuses.
        out.previous_world_position = out.world_position;
    } else {
        let previous = md2_pose_vertex(vertex.xyz, before.frames, before.lerp, 0.0);
        out.previous_world_position = vec4<f32>(md2_world_position(before.rows, previous.position), 1.0);
    }
#endif
#else
    out.world_normal = normalize(md2_world_normal(inst.rows, posed.normal));
#endif
#ifdef VERTEX_UVS_A
    out.uv = vertex.uv;
#endif
#ifdef VERTEX_OUTPUT_INSTANCE_INDEX
    out.instance_index = record;
#endif
    return out;
}
