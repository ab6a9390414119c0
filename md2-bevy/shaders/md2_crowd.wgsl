// md2-bevy: what a resident crowd's draws bind beside the pose
// (md2_bevy::pose, bindings 0 to 2 of the material's group) and the skins
// (md2_bevy::instance's bindings 5 and 6): the bucket being drawn, the
// view's visible records the crowd's passes laid out, and the crowd's
// members. The layout is md2-wgpu's (crowd/draw.wgsl, docs/contract.md):
// a record is six words (the member's index; its frames as two u16 pairs;
// t, t2 and the crossfade's weight as f32 bits), an extra record (views
// that draw motion vectors) twenty (the previous frame's rows, frames and
// t, t2, weight, then the member's index and id), a member eight
// vec4<u32> of which the first four are read (its rows, then
// skin | intensity, tint, effects).
//
// Binding numbers are Rust constants in src/crowd_render.rs; a test holds
// this file to them.

#define_import_path md2_bevy::crowd

struct Md2CrowdDraw {
    // The bucket's first record, in records.
    base: u32,
    // Where the view's extra records start, in words.
    extra_base: u32,
    // The host's words (md2-wgpu's passes never write them), which
    // src/crowd_render.rs writes: the bucket's level of detail, and
    // whether members are painted in their level's colour (1) or not (0).
    level: u32,
    level_tint: u32,
};

@group(#{MATERIAL_BIND_GROUP}) @binding(7) var<uniform> md2_crowd_draw: Md2CrowdDraw;
@group(#{MATERIAL_BIND_GROUP}) @binding(8) var<storage, read> md2_crowd_records: array<u32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(9) var<storage, read> md2_crowd_members: array<vec4<u32>>;

const MD2_CROWD_RECORD_WORDS: u32 = 6u;
const MD2_CROWD_EXTRA_WORDS: u32 = 20u;
const MD2_CROWD_MEMBER_VEC4S: u32 = 8u;

// What one visible member draws with.
struct Md2CrowdInstance {
    rows: array<vec4<f32>, 3>,
    frames: vec4<u32>,
    lerp: vec3<f32>,
};

// Record `record` (the bucket's first plus the instance's index).
fn md2_crowd_instance(record: u32) -> Md2CrowdInstance {
    let at = record * MD2_CROWD_RECORD_WORDS;
    let member = md2_crowd_records[at] * MD2_CROWD_MEMBER_VEC4S;
    let frames = vec2<u32>(md2_crowd_records[at + 1u], md2_crowd_records[at + 2u]);
    var out: Md2CrowdInstance;
    out.rows = array<vec4<f32>, 3>(
        bitcast<vec4<f32>>(md2_crowd_members[member]),
        bitcast<vec4<f32>>(md2_crowd_members[member + 1u]),
        bitcast<vec4<f32>>(md2_crowd_members[member + 2u]),
    );
    out.frames = vec4<u32>(frames.x & 0xffffu, frames.x >> 16u, frames.y & 0xffffu, frames.y >> 16u);
    out.lerp = bitcast<vec3<f32>>(vec3<u32>(
        md2_crowd_records[at + 3u],
        md2_crowd_records[at + 4u],
        md2_crowd_records[at + 5u],
    ));
    return out;
}

// Four words of the records buffer from `at`, as a row.
fn md2_crowd_row(at: u32) -> vec4<f32> {
    return bitcast<vec4<f32>>(vec4<u32>(
        md2_crowd_records[at],
        md2_crowd_records[at + 1u],
        md2_crowd_records[at + 2u],
        md2_crowd_records[at + 3u],
    ));
}

// What the previous frame showed of record `record`'s member (its extra
// record, which a view that draws motion vectors keeps: md2-wgpu's
// crowd/compact.wgsl writes it), read word by word at fixed offsets: the
// previous rows, frames and (t, t2, weight).
fn md2_crowd_previous(record: u32) -> Md2CrowdInstance {
    let at = md2_crowd_draw.extra_base + record * MD2_CROWD_EXTRA_WORDS;
    let frames = vec2<u32>(md2_crowd_records[at + 12u], md2_crowd_records[at + 13u]);
    var out: Md2CrowdInstance;
    out.rows = array<vec4<f32>, 3>(
        md2_crowd_row(at),
        md2_crowd_row(at + 4u),
        md2_crowd_row(at + 8u),
    );
    out.frames = vec4<u32>(frames.x & 0xffffu, frames.x >> 16u, frames.y & 0xffffu, frames.y >> 16u);
    out.lerp = bitcast<vec3<f32>>(vec3<u32>(
        md2_crowd_records[at + 14u],
        md2_crowd_records[at + 15u],
        md2_crowd_records[at + 16u],
    ));
    return out;
}

// md2-wgpu's MD2_EFFECT_NO_SHADOW (contract::EFFECT_NO_SHADOW; a test
// holds them equal).
const MD2_CROWD_EFFECT_NO_SHADOW: u32 = 0x04000000u;

// Whether record `record`'s member casts no shadow (its effects say so).
fn md2_crowd_casts_no_shadow(record: u32) -> bool {
    let member = md2_crowd_records[record * MD2_CROWD_RECORD_WORDS] * MD2_CROWD_MEMBER_VEC4S;
    return (md2_crowd_members[member + 3u].z & MD2_CROWD_EFFECT_NO_SHADOW) != 0u;
}

// A shell's push along the normals and its alpha: md2-wgpu's SHELL_OFFSET
// and SHELL_ALPHA (a test holds them equal).
const MD2_CROWD_SHELL_OFFSET: f32 = 4.0;
const MD2_CROWD_SHELL_ALPHA: f32 = 0.3;

// Record `record`'s member's shell colour (the effects word's low 24 bits,
// RGB8) at the shell's alpha.
fn md2_crowd_shell_colour(record: u32) -> vec4<f32> {
    let member = md2_crowd_records[record * MD2_CROWD_RECORD_WORDS] * MD2_CROWD_MEMBER_VEC4S;
    let rgb = unpack4x8unorm(md2_crowd_members[member + 3u].z & 0x00ffffffu).rgb;
    return vec4<f32>(rgb, MD2_CROWD_SHELL_ALPHA);
}

// Record `record`'s member's skin layer and tint (linear RGBA, the colour
// times its intensity), as md2-wgpu's vertex stage decodes them.
struct Md2CrowdLook {
    skin: u32,
    tint: vec4<f32>,
};

// The colour of level `level` where the crowd's level tint is on
// (src/crowd.rs's LEVEL_COLOURS: green, blue, red, yellow, magenta), made
// by selects: no array indexed at run time.
fn md2_crowd_level_colour(level: u32) -> vec3<f32> {
    var colour = vec3<f32>(1.0, 0.0, 1.0);
    colour = select(colour, vec3<f32>(1.0, 1.0, 0.0), level == 3u);
    colour = select(colour, vec3<f32>(1.0, 0.0, 0.0), level == 2u);
    colour = select(colour, vec3<f32>(0.0, 0.0, 1.0), level == 1u);
    colour = select(colour, vec3<f32>(0.0, 1.0, 0.0), level == 0u);
    return colour;
}

// A member's surface colour as drawn: its skin's, or where the crowd's
// level tint is on, its level's (a uniform of the draw: every fragment of
// a draw takes the same side).
fn md2_crowd_paint(colour: vec4<f32>) -> vec4<f32> {
    if md2_crowd_draw.level_tint != 0u {
        return vec4<f32>(md2_crowd_level_colour(md2_crowd_draw.level), colour.a);
    }
    return colour;
}

fn md2_crowd_look(record: u32) -> Md2CrowdLook {
    let member = md2_crowd_records[record * MD2_CROWD_RECORD_WORDS] * MD2_CROWD_MEMBER_VEC4S;
    let look = md2_crowd_members[member + 3u];
    let intensity = unpack2x16float(look.x >> 16u).x;
    let tint = unpack4x8unorm(look.y);
    return Md2CrowdLook(look.x & 0xffffu, vec4<f32>(tint.rgb * intensity, tint.a));
}
