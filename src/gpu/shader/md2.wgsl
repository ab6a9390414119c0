// md2-wgpu: MD2 keyframes decoded, interpolated and shaded on the GPU.
//
// The frames stay in the file's packed form: one u32 per vertex per frame,
// bytes {x, y, z, normal index}, little-endian. `pose_vertex` is the single
// place where they are decoded and blended; the vertex shader and the
// `cs_capture` compute entry point (used by the tests to compare with the CPU
// reference) both call it, so what is tested is what is drawn.
//
// The arithmetic follows the contract with the CPU reference
// (src/reference.rs): position = xyz * scale + translate; normal =
// table[index] (index past the table reads FALLBACK_NORMAL_INDEX); each pair
// lerped as a + (b - a) * t; the crossfade lerps the two pairs by the weight;
// the normal is divided by its length unless that is ~0, where the primary
// frame a's table normal stands in.

// Must equal md2_wgpu::FALLBACK_NORMAL_INDEX (tests/shaders.rs checks it).
const FALLBACK_NORMAL_INDEX: u32 = 5u;

struct Camera {
    view_proj: mat4x4<f32>,
    // xyz: unit vector from a surface towards the light (world space).
    towards_light: vec4<f32>,
    light_color: vec4<f32>,
    ambient: vec4<f32>,
};

struct ModelInfo {
    num_xyz: u32,
    num_frames: u32,
    _pad0: u32,
    _pad1: u32,
};

@group(0) @binding(0) var<uniform> camera: Camera;
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
// (primary a, b; secondary a, b) and (t, secondary t, weight).
//
// Frames are clamped to the model here as well as checked on the CPU, so no
// input can read outside the vertex buffer. The CPU already turned NaN into 0;
// the clamp keeps any other value in [0, 1].
fn pose_vertex(i_in: u32, frames_in: vec4<u32>, lerp_in: vec3<f32>) -> Posed {
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
    return Posed(p, n);
}

struct CornerIn {
    @location(0) xyz: u32,
    @location(1) uv: vec2<f32>,
};

// The per-instance record (see src/instance.rs, GpuInstance): the model ->
// world affine as three rows (Quake -> Y-up already folded in), the four
// frames, (t, secondary t, weight), the skin layer and the tint.
struct InstanceIn {
    @location(2) row0: vec4<f32>,
    @location(3) row1: vec4<f32>,
    @location(4) row2: vec4<f32>,
    @location(5) frames: vec4<u32>,
    @location(6) lerp: vec3<f32>,
    @location(7) skin: u32,
    @location(8) tint: vec4<f32>,
};

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) @interpolate(flat) skin: u32,
    @location(3) tint: vec4<f32>,
};

@vertex
fn vs_main(corner: CornerIn, inst: InstanceIn) -> VsOut {
    let v = pose_vertex(corner.xyz, inst.frames, inst.lerp);
    let p = vec4<f32>(v.position, 1.0);
    let world = vec3<f32>(dot(inst.row0, p), dot(inst.row1, p), dot(inst.row2, p));

    // Normals need the inverse transpose of the 3x3 part. Its cofactor
    // matrix is that times the determinant: three cross products, exact for
    // any invertible affine (non-uniform scale, shear) and cheaper than an
    // inverse. The fragment shader renormalises, so only the determinant's
    // sign matters.
    let c0 = vec3<f32>(inst.row0.x, inst.row1.x, inst.row2.x);
    let c1 = vec3<f32>(inst.row0.y, inst.row1.y, inst.row2.y);
    let c2 = vec3<f32>(inst.row0.z, inst.row1.z, inst.row2.z);
    let cofactor = mat3x3<f32>(cross(c1, c2), cross(c2, c0), cross(c0, c1));
    let det_sign = select(1.0, -1.0, dot(c0, cross(c1, c2)) < 0.0);

    var out: VsOut;
    out.clip = camera.view_proj * vec4<f32>(world, 1.0);
    out.normal = cofactor * v.normal * det_sign;
    out.uv = corner.uv;
    out.skin = inst.skin;
    out.tint = inst.tint;
    return out;
}

// Linear colour, lit and tinted. Skins are sRGB textures, so the sample is
// already linear.
fn shade(in: VsOut) -> vec4<f32> {
    let albedo = textureSample(skins, skin_sampler, in.uv, in.skin);
    let len2 = dot(in.normal, in.normal);
    let n = in.normal * select(0.0, inverseSqrt(len2), len2 > 1e-12);
    let diffuse = max(dot(n, camera.towards_light.xyz), 0.0);
    let light = camera.ambient.rgb + camera.light_color.rgb * diffuse;
    return vec4<f32>(albedo.rgb * light * in.tint.rgb, albedo.a * in.tint.a);
}

// For sRGB render targets: the hardware encodes.
@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    return shade(in);
}

fn linear_to_srgb(c: vec3<f32>) -> vec3<f32> {
    let x = clamp(c, vec3<f32>(0.0), vec3<f32>(1.0));
    let low = x * 12.92;
    let high = 1.055 * pow(x, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(high, low, x <= vec3<f32>(0.0031308));
}

// For linear (non-sRGB) render targets: encode here, so the stored bytes
// are the same as an sRGB target's.
@fragment
fn fs_main_linear_target(in: VsOut) -> @location(0) vec4<f32> {
    let c = shade(in);
    return vec4<f32>(linear_to_srgb(c.rgb), c.a);
}

struct CaptureParams {
    frames: vec4<u32>,
    lerp: vec4<f32>,
};

@group(2) @binding(0) var<uniform> capture_params: CaptureParams;
// Two entries per vertex: (position, 1), (normal, 0).
@group(2) @binding(1) var<storage, read_write> capture_out: array<vec4<f32>>;

// Writes every vertex of one pose, computed by the same `pose_vertex` the
// vertex shader uses, so tests can compare it with the CPU reference.
@compute @workgroup_size(64)
fn cs_capture(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= model.num_xyz {
        return;
    }
    let v = pose_vertex(i, capture_params.frames, capture_params.lerp.xyz);
    capture_out[2u * i] = vec4<f32>(v.position, 1.0);
    capture_out[2u * i + 1u] = vec4<f32>(v.normal, 0.0);
}
