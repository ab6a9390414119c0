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
// The view's records, then its extra records (crowd/read.wgsl reads them).
@group(3) @binding(1) var<storage, read> md2_crowd_records: array<u32>;
// The crowd's members (crowd/read.wgsl).
@group(3) @binding(2) var<storage, read> md2_crowd_members: array<vec4<u32>>;

// Instance `i` of the bucket being drawn, as the immediate path's
// attributes would hold it.
fn md2_crowd_instance(i: u32) -> Md2InstanceIn {
    let record = md2_crowd_record(md2_crowd_draw.base + i);
    let look = md2_crowd_look_words(record.member);
    var inst: Md2InstanceIn;
    inst.row0 = record.rows[0];
    inst.row1 = record.rows[1];
    inst.row2 = record.rows[2];
    inst.frames = record.frames;
    inst.lerp = record.lerp;
    inst.skin_intensity = look.x;
    inst.tint = look.y;
    inst.effects = look.z;
    return inst;
}

// What the previous frame showed of instance `i` of the bucket being drawn
// (its extra record).
fn md2_crowd_previous(i: u32) -> Md2Previous {
    let at = md2_crowd_extra_at(md2_crowd_draw.extra_base, md2_crowd_draw.base + i);
    let before = md2_crowd_previous_record(at);
    return Md2Previous(before.rows, before.frames, before.lerp, before.member, md2_crowd_previous_id(at));
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
