// md2-wgpu: the vertex stage every pass of the crate shares. It follows
// constants.wgsl, view.wgsl and pose.wgsl in one module (and shading.wgsl
// follows it): md2_wgpu's renderer compiles them together, and a material's
// code comes after all four.
//
// Every vertex entry point calls `md2_vertex` (or, without extra records,
// `md2_vertex_now`), which hands the fragment stage one documented struct,
// `Md2Fragment`, whatever the phase: the built-in fragment stage
// (`md2_fs_builtin*`) and an app's material (md2_wgpu's Md2Material: its
// function is called from `md2_fs_material`, which the crate appends to the
// app's code) read the same inputs, so every phase an app's material draws
// (opaque, translucent, shells, planar shadows) shows the animated pose.
//
// Every struct the CPU writes has a #[repr(C)] mirror in src/contract/, and
// a test holds their sizes and offsets equal.

@group(0) @binding(0) var<uniform> md2_view: Md2View;

// A welded corner: the vertex it poses and its texture coordinates.
struct Md2CornerIn {
    @location(0) xyz: u32,
    @location(1) uv: vec2<f32>,
};

// The per-instance record (md2_wgpu::InstanceRecord): the model -> world
// affine as three rows (Quake -> Y-up already folded in), the four frames,
// (t, secondary t, weight), the skin layer with the tint's intensity, the
// tint and the effect bits. The immediate path's draws read it as vertex
// attributes; the resident crowd's draws assemble the same struct from the
// crowd's members and visible records (crowd/draw.wgsl), so every other
// line of the vertex stage is the same on both paths.
struct Md2InstanceIn {
    @location(2) row0: vec4<f32>,
    @location(3) row1: vec4<f32>,
    @location(4) row2: vec4<f32>,
    @location(5) frames: vec4<u32>,
    @location(6) lerp: vec3<f32>,
    // Low 16 bits: skin layer; high 16 bits: the tint's intensity as f16.
    @location(7) skin_intensity: u32,
    // Linear RGBA8, unpacked in the shader (unpack4x8unorm) on both paths.
    @location(8) tint: u32,
    @location(9) effects: u32,
};

// The extra per-instance record of materials and motion
// (md2_wgpu::ExtraRecord): the previous frame's transform and pose, the
// instance's index and its id. The same layout as the instance record's
// first 76 bytes.
struct Md2ExtraIn {
    @location(10) row0: vec4<f32>,
    @location(11) row1: vec4<f32>,
    @location(12) row2: vec4<f32>,
    @location(13) frames: vec4<u32>,
    @location(14) lerp: vec3<f32>,
    // x: the instance's index in its batch (or the member's in its crowd);
    // y: its id (Md2Instance::id, or the member's CrowdHandle::id).
    @location(15) index_id: vec2<u32>,
};

// What every colour phase hands its fragment stage: the built-in one or an
// app's material. Stable: fields are only ever added.
struct Md2Fragment {
    // Invariant: two pipelines that pose and place a vertex from the same
    // words compute the same position, so they cover the same pixels (the
    // resident and immediate paths, a material and the built-in look, a
    // depth pre-pass and the colour pass).
    @builtin(position) @invariant position: vec4<f32>,
    // World space (Y up), after the instance's transform (for a planar
    // shadow: on the shadow plane).
    @location(0) world_position: vec3<f32>,
    // World space, NOT unit length: the instance transform's cofactor
    // with the determinant's sign (its inverse transpose times the
    // determinant's absolute value) applied to the
    // interpolated model normal, then interpolated across the triangle.
    // Normalise it before lighting (md2_unit_normal does).
    @location(1) world_normal: vec3<f32>,
    // Skin texture coordinates: (st + 0.5) / skin size.
    @location(2) uv: vec2<f32>,
    // The layer of md2_skins.
    @location(3) @interpolate(flat) skin: u32,
    // Linear: rgb is the tint times its intensity (may exceed 1); a is alpha.
    @location(4) @interpolate(flat) tint: vec4<f32>,
    // MD2_EFFECT_* and MD2_MEMBER_MIRRORED bits; the shell's colour is in
    // the low 24 bits (md2_shell_color).
    @location(5) @interpolate(flat) effects: u32,
    // MD2_PHASE_*: the phase drawing.
    @location(6) @interpolate(flat) phase: u32,
    // The instance's index in its batch, or the member's dense index in its
    // crowd (0 where the renderer keeps no extra record).
    @location(7) @interpolate(flat) instance: u32,
    // A stable id: Md2Instance::id, or the member's CrowdHandle::id.
    @location(8) @interpolate(flat) id: u32,
    // Where this point was in the world in the previous frame (for
    // md2_motion).
    @location(9) previous_world_position: vec3<f32>,
};

fn md2_rows(inst: Md2InstanceIn) -> array<vec4<f32>, 3> {
    return array<vec4<f32>, 3>(inst.row0, inst.row1, inst.row2);
}

// What the previous frame showed of an instance: its transform and pose.
struct Md2Previous {
    rows: array<vec4<f32>, 3>,
    frames: vec4<u32>,
    lerp: vec3<f32>,
    index: u32,
    id: u32,
};

fn md2_previous(extra: Md2ExtraIn) -> Md2Previous {
    return Md2Previous(
        array<vec4<f32>, 3>(extra.row0, extra.row1, extra.row2),
        extra.frames,
        extra.lerp,
        extra.index_id.x,
        extra.index_id.y,
    );
}

// The world point a posed vertex draws at: placed by `rows`, and in the
// shadow phase projected onto the shadow plane.
fn md2_placed(rows: array<vec4<f32>, 3>, p: vec3<f32>, phase: u32) -> vec3<f32> {
    let world = md2_world_position(rows, p);
    if phase == MD2_PHASE_SHADOWS {
        return (md2_view.shadow_proj * vec4<f32>(world, 1.0)).xyz;
    }
    return world;
}

// Every colour phase's vertex: corner `corner` of `inst` in the phase
// `phase`, pushed `push` units along its normal (a shell); `previous` is
// what the last frame showed, for motion.
fn md2_vertex(
    corner: Md2CornerIn,
    inst: Md2InstanceIn,
    previous: Md2Previous,
    phase: u32,
    push: f32,
) -> Md2Fragment {
    let posed = md2_pose_vertex(corner.xyz, inst.frames, inst.lerp, push);
    return md2_vertex_posed(corner, inst, posed, previous, phase, push);
}

// The vertex stage of an instance without an extra record, posed already
// (as `md2_pose_vertex` would pose it): the previous frame showed the same
// transform and pose (only the camera moved), and instance and id are 0.
// No previous pose is looked at: the pipelines without extra records pay
// nothing for motion.
fn md2_vertex_unmoved(
    corner: Md2CornerIn,
    inst: Md2InstanceIn,
    posed: Md2Posed,
    phase: u32,
) -> Md2Fragment {
    let rows = md2_rows(inst);
    let world = md2_placed(rows, posed.position, phase);
    var out: Md2Fragment;
    out.world_position = world;
    out.world_normal = md2_world_normal(rows, posed.normal);
    out.uv = corner.uv;
    out.skin = inst.skin_intensity & 0xffffu;
    out.tint = md2_look_tint(inst.skin_intensity, inst.tint);
    out.effects = inst.effects;
    out.phase = phase;
    out.instance = 0u;
    out.id = 0u;
    out.previous_world_position = world;
    let clip = md2_view.view_proj * vec4<f32>(world, 1.0);
    out.position = clip + vec4<f32>(md2_view.jitter.xy * clip.w, 0.0, 0.0);
    return out;
}

// `md2_vertex` for a vertex already posed (as `md2_pose_vertex` would pose
// it): the rest of the vertex stage.
fn md2_vertex_posed(
    corner: Md2CornerIn,
    inst: Md2InstanceIn,
    posed: Md2Posed,
    previous: Md2Previous,
    phase: u32,
    push: f32,
) -> Md2Fragment {
    var out = md2_vertex_unmoved(corner, inst, posed, phase);
    out.instance = previous.index;
    out.id = previous.id;
    let rows = md2_rows(inst);
    let world = out.world_position;
    // The previous pose costs decodes only where it differs from this one:
    // positions only, unless a shell needs the normal to push along.
    var previous_world = world;
    let same_pose = all(previous.frames == inst.frames) && all(previous.lerp == inst.lerp);
    let same_place = all(previous.rows[0] == rows[0]) && all(previous.rows[1] == rows[1])
        && all(previous.rows[2] == rows[2]);
    if !(same_pose && same_place) {
        var p = posed.position;
        if !same_pose {
            p = md2_pose_vertex(corner.xyz, previous.frames, previous.lerp, push).position;
        }
        previous_world = md2_placed(previous.rows, p, phase);
    }
    out.previous_world_position = previous_world;
    return out;
}

// `md2_vertex` without an extra record: see `md2_vertex_unmoved`.
fn md2_vertex_now(corner: Md2CornerIn, inst: Md2InstanceIn, phase: u32, push: f32) -> Md2Fragment {
    let posed = md2_pose_vertex(corner.xyz, inst.frames, inst.lerp, push);
    return md2_vertex_unmoved(corner, inst, posed, phase);
}

// Opaque and translucent instances: the phase is the tint's.
fn md2_main_phase(inst: Md2InstanceIn) -> u32 {
    return select(MD2_PHASE_OPAQUE, MD2_PHASE_TRANSLUCENT, (inst.tint >> 24u) < 255u);
}

@vertex
fn md2_vs_main(corner: Md2CornerIn, inst: Md2InstanceIn) -> Md2Fragment {
    return md2_vertex_now(corner, inst, md2_main_phase(inst), 0.0);
}

@vertex
fn md2_vs_main_extra(corner: Md2CornerIn, inst: Md2InstanceIn, extra: Md2ExtraIn) -> Md2Fragment {
    return md2_vertex(corner, inst, md2_previous(extra), md2_main_phase(inst), 0.0);
}

// A powerup shell: the same pose pushed out along the normal.
@vertex
fn md2_vs_shell(corner: Md2CornerIn, inst: Md2InstanceIn) -> Md2Fragment {
    return md2_vertex_now(corner, inst, MD2_PHASE_SHELLS, MD2_SHELL_OFFSET);
}

@vertex
fn md2_vs_shell_extra(corner: Md2CornerIn, inst: Md2InstanceIn, extra: Md2ExtraIn) -> Md2Fragment {
    return md2_vertex(corner, inst, md2_previous(extra), MD2_PHASE_SHELLS, MD2_SHELL_OFFSET);
}

// A planar shadow: the posed vertex projected along the light onto the
// plane. Instances that cast none collapse to a point outside the clip
// volume, so their triangles are dropped before rasterisation.
fn md2_casts_no_shadow(inst: Md2InstanceIn) -> bool {
    return (inst.effects & MD2_EFFECT_NO_SHADOW) != 0u;
}

fn md2_no_shadow_vertex() -> Md2Fragment {
    var out: Md2Fragment;
    out.position = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    return out;
}

@vertex
fn md2_vs_shadow(corner: Md2CornerIn, inst: Md2InstanceIn) -> Md2Fragment {
    if md2_casts_no_shadow(inst) {
        return md2_no_shadow_vertex();
    }
    return md2_vertex_now(corner, inst, MD2_PHASE_SHADOWS, 0.0);
}

@vertex
fn md2_vs_shadow_extra(corner: Md2CornerIn, inst: Md2InstanceIn, extra: Md2ExtraIn) -> Md2Fragment {
    if md2_casts_no_shadow(inst) {
        return md2_no_shadow_vertex();
    }
    return md2_vertex(corner, inst, md2_previous(extra), MD2_PHASE_SHADOWS, 0.0);
}

// Positions only, for depth-only passes (shadow maps, depth pre-passes).
fn md2_depth_vertex(corner: Md2CornerIn, inst: Md2InstanceIn) -> vec4<f32> {
    let v = md2_pose_vertex(corner.xyz, inst.frames, inst.lerp, 0.0);
    let clip = md2_view.view_proj * vec4<f32>(md2_world_position(md2_rows(inst), v.position), 1.0);
    return clip + vec4<f32>(md2_view.jitter.xy * clip.w, 0.0, 0.0);
}

@vertex
fn md2_vs_depth(corner: Md2CornerIn, inst: Md2InstanceIn) -> @builtin(position) @invariant vec4<f32> {
    return md2_depth_vertex(corner, inst);
}
