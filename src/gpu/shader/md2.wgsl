// md2-wgpu: MD2 keyframes decoded, interpolated and shaded on the GPU.
//
// The frames stay in the file's packed form: one u32 per vertex per frame,
// bytes {x, y, z, normal index}, little-endian. `pose_vertex` is the single
// place where they are decoded and blended; every vertex entry point (colour,
// depth-only, shell, shadow) and the `cs_capture` compute entry point (used
// by the tests to compare with the CPU reference) call it, so what is tested
// is what is drawn.
//
// The arithmetic follows the contract with the CPU reference
// (src/anim/reference.rs): position = xyz * scale + translate; normal =
// table[index] (index past the table reads FALLBACK_NORMAL_INDEX); each pair
// lerped as a + (b - a) * t; the crossfade lerps the two pairs by the weight;
// the normal is divided by its length unless that is ~0, where the primary
// frame a's table normal stands in; a shell pushes the position out along
// that unit normal.
//
// Every struct here has a #[repr(C)] mirror in src/gpu/shader/mod.rs, and a
// test holds their sizes and offsets equal.

// Must equal md2_wgpu::FALLBACK_NORMAL_INDEX (a test checks it).
const FALLBACK_NORMAL_INDEX: u32 = 5u;
// Quake II's POWERSUIT_SCALE: how far a shell stands off the skin, in model
// units (a test checks it against md2_wgpu::SHELL_OFFSET).
const SHELL_OFFSET: f32 = 4.0;
// Quake II's shell alpha.
const SHELL_ALPHA: f32 = 0.3;
// RF_MINLIGHT: the light never falls below this.
const MIN_LIGHT: f32 = 0.1;

// Bits of InstanceIn.effects (md2_wgpu's EFFECT_* constants mirror them).
const EFFECT_SHELL_RGB: u32 = 0x00ffffffu;
const EFFECT_FULLBRIGHT: u32 = 0x01000000u;
const EFFECT_MINLIGHT: u32 = 0x02000000u;
const EFFECT_NO_SHADOW: u32 = 0x04000000u;
// The instance's transform mirrors (set by the CPU and the crowd).
const MEMBER_MIRRORED: u32 = 0x20000000u;

// Whether the fragment stage culls faces turned away from the camera, per
// instance: set for the translucent and shell pipelines of a renderer that
// culls. Those draw mirrored and plain instances in one draw, so that they
// blend in one defined order, and the rasteriser cannot cull both ways at
// once; opaque draws split by winding and let the rasteriser cull.
override CULL_IN_FRAGMENT: bool = false;

struct View {
    // World to clip space.
    view_proj: mat4x4<f32>,
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
};

struct ModelInfo {
    num_xyz: u32,
    num_frames: u32,
    _pad0: u32,
    _pad1: u32,
};

@group(0) @binding(0) var<uniform> view: View;
// md2_wgpu::ANORMS as uploaded: 162 × [f32; 3], tightly packed.
@group(0) @binding(1) var<storage, read> anorms: array<array<f32, 3>>;
@group(0) @binding(2) var skin_sampler: sampler;

@group(1) @binding(0) var<uniform> model: ModelInfo;
// verts[frame * num_xyz + i]: the file's 4 bytes as one little-endian u32.
@group(1) @binding(1) var<storage, read> verts: array<u32>;
// Two entries per frame: (scale, 0), (translate, 0).
@group(1) @binding(2) var<storage, read> frame_params: array<vec4<f32>>;
@group(1) @binding(3) var skins: texture_2d_array<f32>;

struct Decoded {
    position: vec3<f32>,
    normal: vec3<f32>,
};

// One vertex of one frame. `frame` and `i` are already clamped in range.
fn decode(frame: u32, i: u32) -> Decoded {
    let word = verts[frame * model.num_xyz + i];
    let q = vec3<f32>(
        f32(word & 0xffu),
        f32((word >> 8u) & 0xffu),
        f32((word >> 16u) & 0xffu),
    );
    let scale = frame_params[2u * frame].xyz;
    let translate = frame_params[2u * frame + 1u].xyz;
    var index = word >> 24u;
    if index >= arrayLength(&anorms) {
        index = FALLBACK_NORMAL_INDEX;
    }
    let n = anorms[index];
    return Decoded(q * scale + translate, vec3<f32>(n[0], n[1], n[2]));
}

struct Posed {
    position: vec3<f32>,
    normal: vec3<f32>,
};

// Vertex `i` (Quake axes, model units) in the pose given by four frames
// (primary a, b; secondary a, b) and (t, secondary t, weight), pushed
// `push` units out along its normal (0, or SHELL_OFFSET for a shell).
//
// Frames are clamped to the model here as well as checked on the CPU, so no
// input can read outside the vertex buffer. The CPU already turned NaN into 0;
// the clamp keeps any other value in [0, 1].
fn pose_vertex(i_in: u32, frames_in: vec4<u32>, lerp_in: vec3<f32>, push: f32) -> Posed {
    let frames = min(frames_in, vec4<u32>(model.num_frames - 1u));
    let i = min(i_in, model.num_xyz - 1u);
    let lerp = clamp(lerp_in, vec3<f32>(0.0), vec3<f32>(1.0));

    let a = decode(frames.x, i);
    let b = decode(frames.y, i);
    var p = a.position + (b.position - a.position) * lerp.x;
    var n = a.normal + (b.normal - a.normal) * lerp.x;

    // Most instances are not crossfading: skip the second pair's fetches.
    // With weight 0 the blend below would return (p, n) unchanged anyway.
    if lerp.z > 0.0 {
        let c = decode(frames.z, i);
        let d = decode(frames.w, i);
        let p2 = c.position + (d.position - c.position) * lerp.y;
        let n2 = c.normal + (d.normal - c.normal) * lerp.y;
        p = p + (p2 - p) * lerp.z;
        n = n + (n2 - n) * lerp.z;
    }

    let len2 = dot(n, n);
    if len2 > 1e-12 {
        n = n / sqrt(len2);
    } else {
        n = a.normal;
    }
    return Posed(p + n * push, n);
}

struct CornerIn {
    @location(0) xyz: u32,
    @location(1) uv: vec2<f32>,
};

// The per-instance record (src/gpu/shader/mod.rs, InstanceRecord): the
// model -> world affine as three rows (Quake -> Y-up already folded in), the
// four frames, (t, secondary t, weight), the skin layer with the tint's
// intensity, the tint and the effect bits. The crowd's compute pass writes
// the same record (crowd.wgsl, InstanceOut), so one vertex shader serves both.
struct InstanceIn {
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

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) @interpolate(flat) skin: u32,
    // rgb: the tint times its intensity (may exceed 1); a: alpha.
    @location(3) tint: vec4<f32>,
    @location(4) @interpolate(flat) effects: u32,
};

fn world_position(inst: InstanceIn, p: vec3<f32>) -> vec3<f32> {
    let h = vec4<f32>(p, 1.0);
    return vec3<f32>(dot(inst.row0, h), dot(inst.row1, h), dot(inst.row2, h));
}

// Normals need the inverse transpose of the 3x3 part. Its cofactor matrix is
// that times the determinant: three cross products, exact for any invertible
// affine (non-uniform scale, shear) and cheaper than an inverse. The fragment
// shader renormalises, so only the determinant's sign matters.
fn world_normal(inst: InstanceIn, n: vec3<f32>) -> vec3<f32> {
    let c0 = vec3<f32>(inst.row0.x, inst.row1.x, inst.row2.x);
    let c1 = vec3<f32>(inst.row0.y, inst.row1.y, inst.row2.y);
    let c2 = vec3<f32>(inst.row0.z, inst.row1.z, inst.row2.z);
    let cofactor = mat3x3<f32>(cross(c1, c2), cross(c2, c0), cross(c0, c1));
    let det_sign = select(1.0, -1.0, dot(c0, cross(c1, c2)) < 0.0);
    return cofactor * n * det_sign;
}

// The tint's intensity: an f16 (non-negative) in the low 16 bits. Decoded by
// hand: unpack2x16float needs a capability some backends lack.
fn half_to_f32(h: u32) -> f32 {
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if e == 0u {
        return f32(m) * exp2(-24.0);
    }
    // Rebias the exponent from 15 to 127.
    return bitcast<f32>(((e + 112u) << 23u) | (m << 13u));
}

// The colour stages' output for corner `corner` of `inst` in pose `v`.
fn shaded(corner: CornerIn, inst: InstanceIn, v: Posed) -> VsOut {
    var out: VsOut;
    out.clip = view.view_proj * vec4<f32>(world_position(inst, v.position), 1.0);
    out.normal = world_normal(inst, v.normal);
    out.uv = corner.uv;
    out.skin = inst.skin_intensity & 0xffffu;
    let intensity = half_to_f32(inst.skin_intensity >> 16u);
    out.tint = vec4<f32>(inst.tint.rgb * intensity, inst.tint.a);
    out.effects = inst.effects;
    return out;
}

fn shaded_vertex(corner: CornerIn, inst: InstanceIn, push: f32) -> VsOut {
    return shaded(corner, inst, pose_vertex(corner.xyz, inst.frames, inst.lerp, push));
}

@vertex
fn vs_main(corner: CornerIn, inst: InstanceIn) -> VsOut {
    return shaded_vertex(corner, inst, 0.0);
}

// A powerup shell: the same pose pushed out along the normal.
@vertex
fn vs_shell(corner: CornerIn, inst: InstanceIn) -> VsOut {
    return shaded_vertex(corner, inst, SHELL_OFFSET);
}

// Positions only, for depth-only passes (shadow maps, depth pre-passes).
@vertex
fn vs_depth(corner: CornerIn, inst: InstanceIn) -> @builtin(position) vec4<f32> {
    let v = pose_vertex(corner.xyz, inst.frames, inst.lerp, 0.0);
    return view.view_proj * vec4<f32>(world_position(inst, v.position), 1.0);
}

// A planar shadow: the posed vertex projected along the light onto the
// plane. Instances that cast none collapse to a point outside the clip
// volume, so their triangles are dropped before rasterisation.
@vertex
fn vs_shadow(corner: CornerIn, inst: InstanceIn) -> @builtin(position) vec4<f32> {
    if (inst.effects & EFFECT_NO_SHADOW) != 0u {
        return vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    let v = pose_vertex(corner.xyz, inst.frames, inst.lerp, 0.0);
    let on_plane = view.shadow_proj * vec4<f32>(world_position(inst, v.position), 1.0);
    return view.view_proj * on_plane;
}

// Linear colour, lit and tinted. Skins are sRGB textures, so the sample is
// already linear.
fn shade(in: VsOut) -> vec4<f32> {
    let albedo = textureSample(skins, skin_sampler, in.uv, in.skin);
    let len2 = dot(in.normal, in.normal);
    let n = in.normal * select(0.0, inverseSqrt(len2), len2 > 1e-12);
    let diffuse = max(dot(n, view.towards_light.xyz), 0.0);
    var light = view.ambient.rgb + view.light_color.rgb * diffuse;
    if (in.effects & EFFECT_MINLIGHT) != 0u {
        light = max(light, vec3<f32>(MIN_LIGHT));
    }
    if (in.effects & EFFECT_FULLBRIGHT) != 0u {
        light = vec3<f32>(1.0);
    }
    return vec4<f32>(albedo.rgb * light * in.tint.rgb, albedo.a * in.tint.a);
}

fn linear_to_srgb(c: vec3<f32>) -> vec3<f32> {
    let x = clamp(c, vec3<f32>(0.0), vec3<f32>(1.0));
    let low = x * 12.92;
    let high = 1.055 * pow(x, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(high, low, x <= vec3<f32>(0.0031308));
}

// With CULL_IN_FRAGMENT, drops the fragments of faces turned away from the
// camera: those that do not face front (the pipeline's front face is
// clockwise, MD2's outside), or for a mirrored instance those that do. The
// same faces the rasteriser would cull, found by the same rasteriser sign.
fn cull_face(front_facing: bool, effects: u32) {
    let mirrored = (effects & MEMBER_MIRRORED) != 0u;
    if CULL_IN_FRAGMENT && front_facing == mirrored {
        discard;
    }
}

// Linear output: for sRGB targets (the hardware encodes), float targets and
// any target the application post-processes as linear light.
@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    cull_face(front_facing, in.effects);
    return shade(in);
}

// sRGB-encoded output: for non-sRGB unorm targets that are displayed as they
// are, so the stored bytes are the same as an sRGB target's.
@fragment
fn fs_main_srgb(in: VsOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    cull_face(front_facing, in.effects);
    let c = shade(in);
    return vec4<f32>(linear_to_srgb(c.rgb), c.a);
}

fn shell_color(effects: u32) -> vec4<f32> {
    let rgb = unpack4x8unorm(effects & EFFECT_SHELL_RGB).rgb;
    return vec4<f32>(rgb, SHELL_ALPHA);
}

@fragment
fn fs_shell(in: VsOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    cull_face(front_facing, in.effects);
    return shell_color(in.effects);
}

@fragment
fn fs_shell_srgb(in: VsOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    cull_face(front_facing, in.effects);
    let c = shell_color(in.effects);
    return vec4<f32>(linear_to_srgb(c.rgb), c.a);
}

@fragment
fn fs_shadow() -> @location(0) vec4<f32> {
    return view.shadow_color;
}

@fragment
fn fs_shadow_srgb() -> @location(0) vec4<f32> {
    return vec4<f32>(linear_to_srgb(view.shadow_color.rgb), view.shadow_color.a);
}

struct CaptureParams {
    frames: vec4<u32>,
    // xyz: (t, secondary t, weight); w: how far to push along the normal.
    lerp: vec4<f32>,
};

@group(2) @binding(0) var<uniform> capture_params: CaptureParams;
// Two entries per vertex: (position, 1), (normal, 0).
@group(2) @binding(1) var<storage, read_write> capture_out: array<vec4<f32>>;

// Writes every vertex of one pose, computed by the same `pose_vertex` the
// vertex shaders use, so tests can compare it with the CPU reference.
@compute @workgroup_size(64)
fn cs_capture(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= model.num_xyz {
        return;
    }
    let v = pose_vertex(i, capture_params.frames, capture_params.lerp.xyz, capture_params.lerp.w);
    capture_out[2u * i] = vec4<f32>(v.position, 1.0);
    capture_out[2u * i + 1u] = vec4<f32>(v.normal, 0.0);
}
