// md2-wgpu: captures, for tests that compare what the GPU computes with the
// CPU reference, through the same functions the vertex stages call. It
// follows the vertex and shading modules in a module of its own, built only
// by the tests' PoseCapture: no pipeline the crate draws with has it.

struct Md2CaptureParams {
    frames: vec4<u32>,
    // xyz: (t, secondary t, weight); w: how far to push along the normal.
    lerp: vec4<f32>,
    rows: array<vec4<f32>, 3>,
    previous_frames: vec4<u32>,
    // xyz: the previous (t, secondary t, weight); w: the phase (MD2_PHASE_*).
    previous_lerp: vec4<f32>,
    previous_rows: array<vec4<f32>, 3>,
};

@group(2) @binding(0) var<uniform> md2_capture: Md2CaptureParams;
// Two entries per vertex: md2_cs_capture (position, 1), (normal, 0);
// md2_cs_capture_motion (motion, current NDC xy), (current clip position).
@group(2) @binding(1) var<storage, read_write> md2_capture_out: array<vec4<f32>>;

// Writes every vertex of one pose, computed by the same `md2_pose_vertex`
// the vertex shaders use, so tests can compare it with the CPU reference.
@compute @workgroup_size(64)
fn md2_cs_capture(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= md2_model.num_xyz {
        return;
    }
    let c = md2_capture;
    let v = md2_pose_vertex(i, c.frames, c.lerp.xyz, c.lerp.w);
    md2_capture_out[2u * i] = vec4<f32>(v.position, 1.0);
    md2_capture_out[2u * i + 1u] = vec4<f32>(v.normal, 0.0);
}

// Writes every vertex's motion as `md2_vertex` and `md2_motion` compute it
// for one instance record and its previous transform and pose, under the
// view's current and previous cameras.
@compute @workgroup_size(64)
fn md2_cs_capture_motion(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= md2_model.num_xyz {
        return;
    }
    let c = md2_capture;
    var inst: Md2InstanceIn;
    inst.row0 = c.rows[0];
    inst.row1 = c.rows[1];
    inst.row2 = c.rows[2];
    inst.frames = c.frames;
    inst.lerp = c.lerp.xyz;
    inst.tint = 0xffffffffu;
    let previous = Md2Previous(c.previous_rows, c.previous_frames, c.previous_lerp.xyz, 0u, 0u);
    let v = md2_vertex(Md2CornerIn(i, vec2<f32>(0.0)), inst, previous, u32(c.previous_lerp.w), c.lerp.w);
    let clip = md2_view.view_proj * vec4<f32>(v.world_position, 1.0);
    md2_capture_out[2u * i] = vec4<f32>(md2_motion(v), clip.xy / clip.w);
    md2_capture_out[2u * i + 1u] = clip;
}
