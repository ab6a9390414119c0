// md2-wgpu: the bitonic sort of a view's visible translucent members and
// shells by depth, and the gather that writes them in that order.


fn visible_in(r: u32) -> u32 {
    return work[(TRANSLUCENT + r) * 5u + 1u];
}

fn load_key(r: u32, i: u32) -> vec2<u32> {
    let at = sort_keys(r) + 2u * i;
    return vec2<u32>(work[at], work[at + 1u]);
}

fn store_key(r: u32, i: u32, key: vec2<u32>) {
    let at = sort_keys(r) + 2u * i;
    work[at] = key.x;
    work[at + 1u] = key.y;
}

fn key_less(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

// Whether the pair (a, b = a + j) of sequences of `k` must swap: sequences
// whose index has bit k clear sort ascending, the others descending.
fn must_swap(a: u32, k: u32, lo: vec2<u32>, hi: vec2<u32>) -> bool {
    let ascending = (a & k) == 0u;
    return select(key_less(lo, hi), key_less(hi, lo), ascending);
}

// The first of the pair invocation `t` compares, `j` apart.
fn pair_first(t: u32, j: u32) -> u32 {
    let low = t & (j - 1u);
    return ((t - low) << 1u) + low;
}

var<workgroup> block: array<vec2<u32>, SORT_BLOCK>;
// cs_sort_block's sort size, uniform to the workgroup.
var<workgroup> block_size: u32;

fn block_pass(lid: u32, first: u32, k: u32, j: u32) {
    let a = pair_first(lid, j);
    let lo = block[a];
    let hi = block[a + j];
    if must_swap(first + a, k, lo, hi) {
        block[a] = hi;
        block[a + j] = lo;
    }
}

@compute @workgroup_size(SORT_WORKGROUP)
fn cs_sort_block(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let r = step.region;
    let first = (wid.y * groups.x + wid.x) * SORT_BLOCK;
    // The same for the whole workgroup, so returning before the barriers
    // is allowed; but WGSL's uniformity analysis takes no storage read as
    // uniform (Dawn refuses the module), so it is read through a
    // workgroup variable with workgroupUniformLoad.
    if lid == 0u {
        block_size = sort_size(r);
    }
    if first >= workgroupUniformLoad(&block_size) {
        return;
    }
    let count = visible_in(r);
    for (var e = lid; e < SORT_BLOCK; e += SORT_WORKGROUP) {
        let i = first + e;
        var key = load_key(r, i);
        if step.k == 0u && i >= count {
            key = vec2<u32>(0xffffffffu);
        }
        block[e] = key;
    }
    workgroupBarrier();
    if step.k == 0u {
        for (var k = 2u; k <= SORT_BLOCK; k <<= 1u) {
            for (var j = k >> 1u; j > 0u; j >>= 1u) {
                block_pass(lid, first, k, j);
                workgroupBarrier();
            }
        }
    } else {
        for (var j = SORT_BLOCK >> 1u; j > 0u; j >>= 1u) {
            block_pass(lid, first, step.k, j);
            workgroupBarrier();
        }
    }
    for (var e = lid; e < SORT_BLOCK; e += SORT_WORKGROUP) {
        store_key(r, first + e, block[e]);
    }
}

@compute @workgroup_size(SORT_WORKGROUP)
fn cs_sort_step(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let r = step.region;
    let t = (wid.y * groups.x + wid.x) * SORT_WORKGROUP + lid;
    if t >= sort_size(r) / 2u {
        return;
    }
    let a = pair_first(t, step.j);
    let lo = load_key(r, a);
    let hi = load_key(r, a + step.j);
    if must_swap(a, step.k, lo, hi) {
        store_key(r, a, hi);
        store_key(r, a + step.j, lo);
    }
}

// Moves the sorted bucket's records from their scratch place into the
// bucket, in key order.
@compute @workgroup_size(64)
fn cs_gather(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let r = step.region;
    let i = (wid.y * groups.x + wid.x) * WORKGROUP + lid;
    if i >= visible_in(r) {
        return;
    }
    let rank = load_key(r, i).y;
    let to = base(TRANSLUCENT + r) + i;
    let source = sort_scratch(r) + rank;
    for (var w = 0u; w < RECORD_WORDS; w++) {
        out_records[to * RECORD_WORDS + w] = out_records[source * RECORD_WORDS + w];
    }
    if (frame.flags & FRAME_EXTRA) != 0u {
        let extras = extra_base();
        for (var w = 0u; w < EXTRA_WORDS; w++) {
            out_records[extras + to * EXTRA_WORDS + w] = out_records[extras + source * EXTRA_WORDS + w];
        }
    }
}
