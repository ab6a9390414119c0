// md2-wgpu: the vertex entry points of the resident crowd's draws. It
// follows vertex.wgsl in the render module.
//
// A crowd's visible records lie bucket after bucket, each bucket as long as
// the compute passes found it (crowd/compact.wgsl): the CPU never learns
// where a bucket starts. So the draws read their instances from storage:
// each bucket's indirect draw binds `md2_crowd_draw` at the bucket's own
// dynamic offset, where cs_scan wrote where the bucket starts, and
// instance `i` of the draw is the record at that start + i. A record names
// its member and holds its pose; the member's transform, skin, tint and
// effects come from the crowd's member buffer, which the app's changes
// write and nothing copies.
//
// Bindings of a resident draw (group 3; md2_wgpu lays it out): the bucket's
// draw (a uniform at a dynamic offset), the view's visible records, the
// crowd's members. With the pose's two storage buffers, four in the vertex
// stage: WebGPU's downlevel limit.

struct Md2CrowdDraw {
    // The bucket's first record, in records.
    base: u32,
    // Where the view's extra records start, in words.
    extra_base: u32,
    // The host's words: the passes never write them (docs/contract.md).
    _pad0: u32,
    _pad1: u32,
};

@group(3) @binding(0) var<uniform> md2_crowd_draw: Md2CrowdDraw;
// Records of RECORD_WORDS words (crowd/types.wgsl), then the extra records.
@group(3) @binding(1) var<storage, read> md2_crowd_records: array<u32>;
// MEMBER_VEC4S vec4s a member (crowd/types.wgsl); the first four are read.
@group(3) @binding(2) var<storage, read> md2_crowd_members: array<vec4<u32>>;

// crowd/types.wgsl's RECORD_WORDS, EXTRA_WORDS and MEMBER_VEC4S (a test
// holds them equal).
const MD2_CROWD_RECORD_WORDS: u32 = 6u;
const MD2_CROWD_EXTRA_WORDS: u32 = 20u;
const MD2_CROWD_MEMBER_VEC4S: u32 = 8u;

// Instance `i` of the bucket being drawn, as the immediate path's
// attributes would hold it.
fn md2_crowd_instance(i: u32) -> Md2InstanceIn {
    let at = (md2_crowd_draw.base + i) * MD2_CROWD_RECORD_WORDS;
    let member = md2_crowd_records[at] * MD2_CROWD_MEMBER_VEC4S;
    let look = md2_crowd_members[member + 3u];
    let frames = vec2<u32>(md2_crowd_records[at + 1u], md2_crowd_records[at + 2u]);
    var inst: Md2InstanceIn;
    inst.row0 = bitcast<vec4<f32>>(md2_crowd_members[member]);
    inst.row1 = bitcast<vec4<f32>>(md2_crowd_members[member + 1u]);
    inst.row2 = bitcast<vec4<f32>>(md2_crowd_members[member + 2u]);
    inst.frames = vec4<u32>(frames.x & 0xffffu, frames.x >> 16u, frames.y & 0xffffu, frames.y >> 16u);
    inst.lerp = bitcast<vec3<f32>>(vec3<u32>(
        md2_crowd_records[at + 3u],
        md2_crowd_records[at + 4u],
        md2_crowd_records[at + 5u],
    ));
    inst.skin_intensity = look.x;
    inst.tint = look.y;
    inst.effects = look.z;
    return inst;
}

// Four words of the crowd's records from `at`, as a row.
fn md2_crowd_row(at: u32) -> vec4<f32> {
    return bitcast<vec4<f32>>(vec4<u32>(
        md2_crowd_records[at],
        md2_crowd_records[at + 1u],
        md2_crowd_records[at + 2u],
        md2_crowd_records[at + 3u],
    ));
}

// What the previous frame showed of instance `i` of the bucket being drawn
// (its extra record), read word by word at fixed offsets: a local array
// filled in a loop and indexed by its counter would live in memory where
// the compiler does not unroll it (shaders/README.md).
fn md2_crowd_previous(i: u32) -> Md2Previous {
    let at = md2_crowd_draw.extra_base + (md2_crowd_draw.base + i) * MD2_CROWD_EXTRA_WORDS;
    let rows = array<vec4<f32>, 3>(
        md2_crowd_row(at),
        md2_crowd_row(at + 4u),
        md2_crowd_row(at + 8u),
    );
    let pose = vec2<u32>(md2_crowd_records[at + 12u], md2_crowd_records[at + 13u]);
    let frames = vec4<u32>(pose.x & 0xffffu, pose.x >> 16u, pose.y & 0xffffu, pose.y >> 16u);
    let lerp = bitcast<vec3<f32>>(vec3<u32>(
        md2_crowd_records[at + 14u],
        md2_crowd_records[at + 15u],
        md2_crowd_records[at + 16u],
    ));
    return Md2Previous(rows, frames, lerp, md2_crowd_records[at + 17u], md2_crowd_records[at + 18u]);
}

@vertex
fn md2_vs_main_crowd(corner: Md2CornerIn, @builtin(instance_index) i: u32) -> Md2Fragment {
    let inst = md2_crowd_instance(i);
    return md2_vertex_now(corner, inst, md2_main_phase(inst), 0.0);
}

@vertex
fn md2_vs_main_extra_crowd(corner: Md2CornerIn, @builtin(instance_index) i: u32) -> Md2Fragment {
    let inst = md2_crowd_instance(i);
    return md2_vertex(corner, inst, md2_crowd_previous(i), md2_main_phase(inst), 0.0);
}

@vertex
fn md2_vs_shell_crowd(corner: Md2CornerIn, @builtin(instance_index) i: u32) -> Md2Fragment {
    return md2_vertex_now(corner, md2_crowd_instance(i), MD2_PHASE_SHELLS, MD2_SHELL_OFFSET);
}

@vertex
fn md2_vs_shell_extra_crowd(corner: Md2CornerIn, @builtin(instance_index) i: u32) -> Md2Fragment {
    return md2_vertex(corner, md2_crowd_instance(i), md2_crowd_previous(i), MD2_PHASE_SHELLS, MD2_SHELL_OFFSET);
}

@vertex
fn md2_vs_shadow_crowd(corner: Md2CornerIn, @builtin(instance_index) i: u32) -> Md2Fragment {
    let inst = md2_crowd_instance(i);
    if md2_casts_no_shadow(inst) {
        return md2_no_shadow_vertex();
    }
    return md2_vertex_now(corner, inst, MD2_PHASE_SHADOWS, 0.0);
}

@vertex
fn md2_vs_shadow_extra_crowd(corner: Md2CornerIn, @builtin(instance_index) i: u32) -> Md2Fragment {
    let inst = md2_crowd_instance(i);
    if md2_casts_no_shadow(inst) {
        return md2_no_shadow_vertex();
    }
    return md2_vertex(corner, inst, md2_crowd_previous(i), MD2_PHASE_SHADOWS, 0.0);
}

@vertex
fn md2_vs_depth_crowd(corner: Md2CornerIn, @builtin(instance_index) i: u32) -> @builtin(position) @invariant vec4<f32> {
    return md2_depth_vertex(corner, md2_crowd_instance(i));
}
