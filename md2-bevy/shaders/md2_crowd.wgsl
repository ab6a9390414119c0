// md2-bevy: what a resident crowd's draws bind beside the pose
// (md2_bevy::pose, bindings 0 to 2 of the material's group) and the skins
// (md2_bevy::instance's bindings 5 and 6): the bucket being drawn, the
// view's visible records the crowd's passes laid out, and the crowd's
// members. md2-wgpu reads them: src/shaders.rs's crowd_module() appends
// md2-wgpu's crowd reader (md2_wgpu::contract::CROWD_READ_WGSL:
// md2_crowd_record, md2_crowd_look_words, the previous frame's from the
// extra records) to this file, so the words' layout is read in one place
// for md2-wgpu's draws and these.
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

// What the previous frame showed of record `record`'s member (its extra
// record, which a view that draws motion vectors keeps: md2-wgpu's
// crowd/compact.wgsl writes it), the view's extra records starting where
// the bucket's draw words say.
fn md2_crowd_previous(record: u32) -> Md2CrowdRecord {
    return md2_crowd_previous_record(md2_crowd_extra_at(md2_crowd_draw.extra_base, record));
}

// md2-wgpu's MD2_EFFECT_NO_SHADOW (contract::EFFECT_NO_SHADOW; a test
// holds them equal).
const MD2_CROWD_EFFECT_NO_SHADOW: u32 = 0x04000000u;

// Whether record `record`'s member casts no shadow (its effects say so).
fn md2_crowd_casts_no_shadow(record: u32) -> bool {
    let member = md2_crowd_member(record);
    return (md2_crowd_look_words(member).z & MD2_CROWD_EFFECT_NO_SHADOW) != 0u;
}

// A shell's push along the normals and its alpha: md2-wgpu's SHELL_OFFSET
// and SHELL_ALPHA (a test holds them equal).
const MD2_CROWD_SHELL_OFFSET: f32 = 4.0;
const MD2_CROWD_SHELL_ALPHA: f32 = 0.3;

// Record `record`'s member's shell colour (the effects word's low 24 bits,
// RGB8) at the shell's alpha.
fn md2_crowd_shell_colour(record: u32) -> vec4<f32> {
    let member = md2_crowd_member(record);
    let rgb = unpack4x8unorm(md2_crowd_look_words(member).z & 0x00ffffffu).rgb;
    return vec4<f32>(rgb, MD2_CROWD_SHELL_ALPHA);
}

// Record `record`'s member's skin layer and tint (linear RGBA, the colour
// times its intensity), decoded by md2-wgpu's md2_look_tint as its own
// vertex stage decodes them.
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
    let member = md2_crowd_member(record);
    let look = md2_crowd_look_words(member);
    return Md2CrowdLook(look.x & 0xffffu, md2_look_tint(look.x, look.y));
}
