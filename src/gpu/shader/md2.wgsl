// md2-wgpu: the vertex stage every colour pass shares, the built-in Quake II
// shading, and the captures tests compare with the CPU. It follows pose.wgsl
// (md2_pose_vertex and friends) in one module: the crate concatenates them.
//
// Every vertex entry point calls `md2_vertex` (or, without extra records,
// `md2_vertex_now`), which hands the fragment stage one documented struct, `Md2Fragment`, whatever the pass: the built-in
// fragment stage (`md2_fs_builtin*`) and an app's material (md2_wgpu's
// Md2Material: its function is called from `md2_fs_material`, which the crate
// appends to the app's code) read the same inputs, so every pass an app's
// material draws (opaque, translucent, shells, planar shadows) shows the
// animated pose.
//
// Every struct the CPU writes has a #[repr(C)] mirror in
// src/gpu/shader/mod.rs, and a test holds their sizes and offsets equal.

// Quake II's shell alpha.
const MD2_SHELL_ALPHA: f32 = 0.3;
// RF_MINLIGHT: the light never falls below this.
const MD2_MIN_LIGHT: f32 = 0.1;

// Bits of Md2Fragment.effects (and of the instance record's effects word):
// md2_wgpu's EFFECT_* and MEMBER_* constants mirror them.
const MD2_EFFECT_SHELL_RGB: u32 = 0x00ffffffu;
const MD2_EFFECT_FULLBRIGHT: u32 = 0x01000000u;
const MD2_EFFECT_MINLIGHT: u32 = 0x02000000u;
const MD2_EFFECT_NO_SHADOW: u32 = 0x04000000u;
// The instance's transform mirrors (a negative determinant).
const MD2_MEMBER_MIRRORED: u32 = 0x20000000u;

// Md2Fragment.pass_kind: which pass calls the fragment stage.
const MD2_PASS_OPAQUE: u32 = 0u;
const MD2_PASS_TRANSLUCENT: u32 = 1u;
const MD2_PASS_SHELL: u32 = 2u;
const MD2_PASS_SHADOW: u32 = 3u;

// Whether the fragment stage culls faces turned away from the camera, per
// instance: set for the translucent and shell pipelines of a renderer that
// culls. Those draw mirrored and plain instances in one draw, so that they
// blend in one defined order, and the rasteriser cannot cull both ways at
// once; opaque draws split by winding and let the rasteriser cull.
override MD2_CULL_IN_FRAGMENT: bool = false;

// The pass a pipeline of the built-in look draws (MD2_PASS_*; the opaque and
// translucent passes shade alike). A pipeline constant rather than a branch
// on Md2Fragment.pass_kind: a software rasteriser runs every side of a
// branch it cannot prove uniform, and the shell's and shadow's colours cost
// each lit fragment 3% on lavapipe.
override MD2_BUILTIN_PASS: u32 = MD2_PASS_OPAQUE;

struct Md2View {
    // World to clip space, without jitter.
    view_proj: mat4x4<f32>,
    // The previous frame's view_proj, for motion vectors.
    previous_view_proj: mat4x4<f32>,
    // xy: the camera's jitter in clip-space units (added after projecting;
    // motion is measured without it).
    jitter: vec4<f32>,
    // World to world: a point projected along the light onto the shadow
    // plane (lifted a little off it).
    shadow_proj: mat4x4<f32>,
    // xyz: unit vector from a surface towards the light (world space).
    towards_light: vec4<f32>,
    light_color: vec4<f32>,
    ambient: vec4<f32>,
    // The colour of planar shadows (Quake II: black at alpha 0.5).
    shadow_color: vec4<f32>,
    // Dotted with a world point (w = 1), its depth along the view: larger
    // is farther (the crowd sorts by it; see Md2Renderer::view_depth).
    depth_row: vec4<f32>,
    // x: VIEW_* bits (crowd.wgsl reads them).
    flags: vec4<u32>,
    // x: pixels per world unit at clip-space w = 1, divided by the largest
    // error in pixels a level of detail may make (0: full detail only).
    // The crowd chooses levels with it.
    detail: vec4<f32>,
};

@group(0) @binding(0) var<uniform> md2_view: Md2View;
@group(0) @binding(1) var md2_skin_sampler: sampler;
// The model's skins (the rest of group 1 is pose.wgsl's).
@group(1) @binding(4) var md2_skins: texture_2d_array<f32>;

// A welded corner: the vertex it poses and its texture coordinates.
struct Md2CornerIn {
    @location(0) xyz: u32,
    @location(1) uv: vec2<f32>,
};

// The per-instance record (src/gpu/shader/mod.rs, InstanceRecord): the
// model -> world affine as three rows (Quake -> Y-up already folded in), the
// four frames, (t, secondary t, weight), the skin layer with the tint's
// intensity, the tint and the effect bits. The crowd's compute pass writes
// the same record (crowd.wgsl, InstanceOut), so one vertex shader serves both.
struct Md2InstanceIn {
    @location(2) row0: vec4<f32>,
    @location(3) row1: vec4<f32>,
    @location(4) row2: vec4<f32>,
    @location(5) frames: vec4<u32>,
    @location(6) lerp: vec3<f32>,
    // Low 16 bits: skin layer; high 16 bits: the tint's intensity as f16.
    @location(7) skin_intensity: u32,
    @location(8) tint: vec4<f32>,
    @location(9) effects: u32,
};

// The extra per-instance record of materials and motion (ExtraRecord): the
// previous frame's transform and pose, the instance's index and its id. The
// same layout as the instance record's first 76 bytes.
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

// What every colour pass hands its fragment stage: the built-in one or an
// app's material. Stable: fields are only ever added.
struct Md2Fragment {
    @builtin(position) position: vec4<f32>,
    // World space (Y up), after the instance's transform (for a planar
    // shadow: on the shadow plane).
    @location(0) world_position: vec3<f32>,
    // World space, not normalised (normalise it: interpolation shortens it).
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
    // MD2_PASS_*.
    @location(6) @interpolate(flat) pass_kind: u32,
    // The instance's index in its batch, or the member's dense index in its
    // crowd (0 where the renderer keeps no extra record).
    @location(7) @interpolate(flat) instance: u32,
    // A stable id: Md2Instance::id, or the member's CrowdHandle::id.
    @location(8) @interpolate(flat) id: u32,
    // Where this point was in the world in the previous frame (for
    // md2_motion).
    @location(9) previous_world_position: vec3<f32>,
};

// What the built-in look without motion vectors reads of Md2Fragment: the
// same locations, less the world position, instance, id and previous world
// position. A software rasteriser interpolates every input a fragment stage
// declares, read or not: on lavapipe those four cost a crowd frame 10%.
// (A material's entry point declares what its function reads, likewise.)
struct Md2BuiltinInputs {
    @builtin(position) position: vec4<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) @interpolate(flat) skin: u32,
    @location(4) @interpolate(flat) tint: vec4<f32>,
    @location(5) @interpolate(flat) effects: u32,
    @location(6) @interpolate(flat) pass_kind: u32,
};

// The Md2Fragment the built-in look shades: the members Md2BuiltinInputs
// lacks are zero (the built-in look reads none of them).
fn md2_fragment_of(v: Md2BuiltinInputs) -> Md2Fragment {
    var out: Md2Fragment;
    out.position = v.position;
    out.world_normal = v.world_normal;
    out.uv = v.uv;
    out.skin = v.skin;
    out.tint = v.tint;
    out.effects = v.effects;
    out.pass_kind = v.pass_kind;
    return out;
}

// The tint's intensity: an f16 (non-negative) in the low 16 bits. Decoded by
// hand: unpack2x16float needs a capability some backends lack.
fn md2_half_to_f32(h: u32) -> f32 {
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if e == 0u {
        return f32(m) * exp2(-24.0);
    }
    // Rebias the exponent from 15 to 127.
    return bitcast<f32>(((e + 112u) << 23u) | (m << 13u));
}

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

// The world point a posed vertex draws at: placed by `rows`, and on the
// shadow pass projected onto the shadow plane.
fn md2_placed(rows: array<vec4<f32>, 3>, p: vec3<f32>, pass_kind: u32) -> vec3<f32> {
    let world = md2_world_position(rows, p);
    if pass_kind == MD2_PASS_SHADOW {
        return (md2_view.shadow_proj * vec4<f32>(world, 1.0)).xyz;
    }
    return world;
}

// Every colour pass's vertex: corner `corner` of `inst` in the pass
// `pass_kind`, pushed `push` units along its normal (a shell); `previous` is
// what the last frame showed, for motion.
fn md2_vertex(
    corner: Md2CornerIn,
    inst: Md2InstanceIn,
    previous: Md2Previous,
    pass_kind: u32,
    push: f32,
) -> Md2Fragment {
    let posed = md2_pose_vertex(corner.xyz, inst.frames, inst.lerp, push);
    return md2_vertex_posed(corner, inst, posed, previous, pass_kind, push);
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
    pass_kind: u32,
) -> Md2Fragment {
    let rows = md2_rows(inst);
    let world = md2_placed(rows, posed.position, pass_kind);
    var out: Md2Fragment;
    out.world_position = world;
    out.world_normal = md2_world_normal(rows, posed.normal);
    out.uv = corner.uv;
    out.skin = inst.skin_intensity & 0xffffu;
    let intensity = md2_half_to_f32(inst.skin_intensity >> 16u);
    out.tint = vec4<f32>(inst.tint.rgb * intensity, inst.tint.a);
    out.effects = inst.effects;
    out.pass_kind = pass_kind;
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
    pass_kind: u32,
    push: f32,
) -> Md2Fragment {
    var out = md2_vertex_unmoved(corner, inst, posed, pass_kind);
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
        previous_world = md2_placed(previous.rows, p, pass_kind);
    }
    out.previous_world_position = previous_world;
    return out;
}

// `md2_vertex` without an extra record: see `md2_vertex_unmoved`.
fn md2_vertex_now(corner: Md2CornerIn, inst: Md2InstanceIn, pass_kind: u32, push: f32) -> Md2Fragment {
    let posed = md2_pose_vertex(corner.xyz, inst.frames, inst.lerp, push);
    return md2_vertex_unmoved(corner, inst, posed, pass_kind);
}

// Opaque and translucent instances: the pass is the tint's.
fn md2_main_pass(inst: Md2InstanceIn) -> u32 {
    return select(MD2_PASS_OPAQUE, MD2_PASS_TRANSLUCENT, inst.tint.a < 1.0);
}

@vertex
fn md2_vs_main(corner: Md2CornerIn, inst: Md2InstanceIn) -> Md2Fragment {
    return md2_vertex_now(corner, inst, md2_main_pass(inst), 0.0);
}

@vertex
fn md2_vs_main_extra(corner: Md2CornerIn, inst: Md2InstanceIn, extra: Md2ExtraIn) -> Md2Fragment {
    return md2_vertex(corner, inst, md2_previous(extra), md2_main_pass(inst), 0.0);
}

// A powerup shell: the same pose pushed out along the normal.
@vertex
fn md2_vs_shell(corner: Md2CornerIn, inst: Md2InstanceIn) -> Md2Fragment {
    return md2_vertex_now(corner, inst, MD2_PASS_SHELL, MD2_SHELL_OFFSET);
}

@vertex
fn md2_vs_shell_extra(corner: Md2CornerIn, inst: Md2InstanceIn, extra: Md2ExtraIn) -> Md2Fragment {
    return md2_vertex(corner, inst, md2_previous(extra), MD2_PASS_SHELL, MD2_SHELL_OFFSET);
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
    return md2_vertex_now(corner, inst, MD2_PASS_SHADOW, 0.0);
}

@vertex
fn md2_vs_shadow_extra(corner: Md2CornerIn, inst: Md2InstanceIn, extra: Md2ExtraIn) -> Md2Fragment {
    if md2_casts_no_shadow(inst) {
        return md2_no_shadow_vertex();
    }
    return md2_vertex(corner, inst, md2_previous(extra), MD2_PASS_SHADOW, 0.0);
}

// Positions only, for depth-only passes (shadow maps, depth pre-passes).
@vertex
fn md2_vs_depth(corner: Md2CornerIn, inst: Md2InstanceIn) -> @builtin(position) vec4<f32> {
    let v = md2_pose_vertex(corner.xyz, inst.frames, inst.lerp, 0.0);
    let clip = md2_view.view_proj * vec4<f32>(md2_world_position(md2_rows(inst), v.position), 1.0);
    return clip + vec4<f32>(md2_view.jitter.xy * clip.w, 0.0, 0.0);
}

// ---------------------------------------------------------------- helpers
// for the fragment stage, the built-in one and an app's material alike.

// With MD2_CULL_IN_FRAGMENT, drops the fragments of faces turned away from
// the camera: those that do not face front (the pipeline's front face is
// clockwise, MD2's outside), or for a mirrored instance those that do. The
// same faces the rasteriser would cull, found by the same rasteriser sign.
fn md2_cull_face(front_facing: bool, effects: u32) {
    let mirrored = (effects & MD2_MEMBER_MIRRORED) != 0u;
    if MD2_CULL_IN_FRAGMENT && front_facing == mirrored {
        discard;
    }
}

// The skin texel under this fragment (linear colour: skins are sRGB
// textures).
fn md2_albedo(in: Md2Fragment) -> vec4<f32> {
    return textureSample(md2_skins, md2_skin_sampler, in.uv, in.skin);
}

// Quake II's look: the skin lit by the view's light and ambient (minlight
// and fullbright as the effects say), times the tint; linear colour.
fn md2_shade(in: Md2Fragment) -> vec4<f32> {
    let albedo = md2_albedo(in);
    let len2 = dot(in.world_normal, in.world_normal);
    let n = in.world_normal * select(0.0, inverseSqrt(len2), len2 > 1e-12);
    let diffuse = max(dot(n, md2_view.towards_light.xyz), 0.0);
    var light = md2_view.ambient.rgb + md2_view.light_color.rgb * diffuse;
    if (in.effects & MD2_EFFECT_MINLIGHT) != 0u {
        light = max(light, vec3<f32>(MD2_MIN_LIGHT));
    }
    if (in.effects & MD2_EFFECT_FULLBRIGHT) != 0u {
        light = vec3<f32>(1.0);
    }
    return vec4<f32>(albedo.rgb * light * in.tint.rgb, albedo.a * in.tint.a);
}

// A shell's flat colour at Quake II's alpha.
fn md2_shell_color(in: Md2Fragment) -> vec4<f32> {
    let rgb = unpack4x8unorm(in.effects & MD2_EFFECT_SHELL_RGB).rgb;
    return vec4<f32>(rgb, MD2_SHELL_ALPHA);
}

// Where this point moved on screen since the previous frame, in UV units
// (x right, y down): (current - previous) * (0.5, -0.5) of the unjittered
// normalised device coordinates, as Bevy's motion vectors are. A pixel's
// previous UV is its UV minus this.
fn md2_motion(in: Md2Fragment) -> vec2<f32> {
    let now = md2_view.view_proj * vec4<f32>(in.world_position, 1.0);
    let before = md2_view.previous_view_proj * vec4<f32>(in.previous_world_position, 1.0);
    return (now.xy / now.w - before.xy / before.w) * vec2<f32>(0.5, -0.5);
}

fn md2_linear_to_srgb(c: vec3<f32>) -> vec3<f32> {
    let x = clamp(c, vec3<f32>(0.0), vec3<f32>(1.0));
    let low = x * 12.92;
    let high = 1.055 * pow(x, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(high, low, x <= vec3<f32>(0.0031308));
}

// ---------------------------------------------------------------- the
// built-in fragment stage: Quake II's look in every pass.

// Linear colour of the built-in look, whatever the pass.
fn md2_builtin_color(in: Md2Fragment) -> vec4<f32> {
    switch MD2_BUILTIN_PASS {
        case MD2_PASS_SHELL: {
            return md2_shell_color(in);
        }
        case MD2_PASS_SHADOW: {
            return md2_view.shadow_color;
        }
        default: {
            return md2_shade(in);
        }
    }
}

// Linear output: for sRGB targets (the hardware encodes), float targets and
// any target the application post-processes as linear light.
@fragment
fn md2_fs_builtin(slim: Md2BuiltinInputs, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    md2_cull_face(front_facing, slim.effects);
    return md2_builtin_color(md2_fragment_of(slim));
}

// sRGB-encoded output: for non-sRGB unorm targets that are displayed as they
// are, so the stored bytes are the same as an sRGB target's.
@fragment
fn md2_fs_builtin_srgb(slim: Md2BuiltinInputs, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    md2_cull_face(front_facing, slim.effects);
    let c = md2_builtin_color(md2_fragment_of(slim));
    return vec4<f32>(md2_linear_to_srgb(c.rgb), c.a);
}

// The built-in look plus motion vectors in a second target (Rg16Float).
struct Md2BuiltinMotionOut {
    @location(0) color: vec4<f32>,
    @location(1) motion: vec4<f32>,
};

@fragment
fn md2_fs_builtin_motion(in: Md2Fragment, @builtin(front_facing) front_facing: bool) -> Md2BuiltinMotionOut {
    md2_cull_face(front_facing, in.effects);
    return Md2BuiltinMotionOut(md2_builtin_color(in), vec4<f32>(md2_motion(in), 0.0, 0.0));
}

@fragment
fn md2_fs_builtin_motion_srgb(in: Md2Fragment, @builtin(front_facing) front_facing: bool) -> Md2BuiltinMotionOut {
    md2_cull_face(front_facing, in.effects);
    let c = md2_builtin_color(in);
    let encoded = vec4<f32>(md2_linear_to_srgb(c.rgb), c.a);
    return Md2BuiltinMotionOut(encoded, vec4<f32>(md2_motion(in), 0.0, 0.0));
}
