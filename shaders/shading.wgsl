// md2-wgpu: the built-in Quake II shading, and the helpers a material's
// fragment stage calls (md2_albedo, md2_unit_normal, md2_shade,
// md2_shell_color, md2_motion). It follows vertex.wgsl in one module.

// Whether the fragment stage culls faces turned away from the camera, per
// instance: set for the translucent and shell pipelines of a renderer that
// culls. Those draw mirrored and plain instances in one draw, so that they
// blend in one defined order, and the rasteriser cannot cull both ways at
// once; opaque draws split by winding and let the rasteriser cull.
override MD2_CULL_IN_FRAGMENT: bool = false;

// The phase a pipeline of the built-in look draws (MD2_PHASE_*; the opaque
// and translucent phases shade alike). A pipeline constant rather than a
// branch on Md2Fragment.phase: a software rasteriser runs every side of a
// branch it cannot prove uniform, and the shell's and shadow's colours cost
// each lit fragment 3% on lavapipe.
override MD2_BUILTIN_PHASE: u32 = MD2_PHASE_OPAQUE;

@group(0) @binding(1) var md2_skin_sampler: sampler;
// The model's skins (the rest of group 1 is pose.wgsl's).
@group(1) @binding(4) var md2_skins: texture_2d_array<f32>;

// What the built-in look without motion vectors reads of Md2Fragment: the
// same locations, less the world position, instance, id and previous world
// position. A software rasteriser interpolates every input a fragment stage
// declares, read or not: on lavapipe those four cost a crowd frame 10%.
// (A material's entry point declares what its function reads, likewise.)
struct Md2BuiltinInputs {
    @builtin(position) @invariant position: vec4<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) @interpolate(flat) skin: u32,
    @location(4) @interpolate(flat) tint: vec4<f32>,
    @location(5) @interpolate(flat) effects: u32,
    @location(6) @interpolate(flat) phase: u32,
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
    out.phase = v.phase;
    return out;
}

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

// Md2Fragment.world_normal made unit length (zero where it has none):
// what lighting wants.
fn md2_unit_normal(in: Md2Fragment) -> vec3<f32> {
    let len2 = dot(in.world_normal, in.world_normal);
    return in.world_normal * select(0.0, inverseSqrt(len2), len2 > 1e-12);
}

// Quake II's look: the skin lit by the view's light and ambient (minlight
// and fullbright as the effects say), times the tint; linear colour.
fn md2_shade(in: Md2Fragment) -> vec4<f32> {
    let albedo = md2_albedo(in);
    let n = md2_unit_normal(in);
    let diffuse = max(dot(n, md2_view.towards_light.xyz), 0.0);
    var light = md2_view.ambient.rgb + md2_view.light_color.rgb * diffuse;
    if (in.effects & MD2_EFFECT_MINLIGHT) != 0u {
        light = max(light, vec3<f32>(MD2_MIN_LIGHT));
    }
    // Quake I's fullbright texels: the mask layer's alpha lights them
    // fully. A branch on the model's uniform flags, the same for every
    // fragment of a draw, so the sample stays in uniform control flow.
    if (md2_model.flags & MD2_MODEL_FULLBRIGHT_MASKS) != 0u {
        let masks = textureNumLayers(md2_skins) / 2u;
        let glow = textureSample(md2_skins, md2_skin_sampler, in.uv, in.skin + masks).a;
        light = mix(light, vec3<f32>(1.0), glow);
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
// built-in fragment stage: Quake II's look in every phase.

// Linear colour of the built-in look, whatever the phase.
fn md2_builtin_color(in: Md2Fragment) -> vec4<f32> {
    switch MD2_BUILTIN_PHASE {
        case MD2_PHASE_SHELLS: {
            return md2_shell_color(in);
        }
        case MD2_PHASE_SHADOWS: {
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
