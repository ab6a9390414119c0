// md2-wgpu: the crowd's ordered compaction: classify, scan, emit.

// (PLACED_MAIN), and whether it has a shell (PLACED_SHELL) with its rank
// among the workgroup's shells (bits 12-17).
const PLACED_MAIN: u32 = 0x400u;
const PLACED_SHELL: u32 = 0x800u;

fn main_bucket(effects: u32, level: u32) -> u32 {
    if (effects & MD2_MEMBER_TRANSLUCENT) != 0u {
        return TRANSLUCENT;
    }
    return opaque_at(level, (effects & MD2_MEMBER_MIRRORED) != 0u);
}

fn sums_at(group: u32) -> u32 {
    return SUMS + GROUP_WORDS * group;
}

fn placed_at(member: u32) -> u32 {
    return SUMS + GROUP_WORDS * crowd.groups + member;
}

var<workgroup> ranks: array<array<u32, BUCKETS>, WORKGROUP>;
// The finest level the workgroup's visible translucent members and its
// shells need.
var<workgroup> finest: array<atomic<u32>, 2>;

@compute @workgroup_size(64)
fn cs_classify(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let group = wid.y * groups.x + wid.x;
    let index = group * WORKGROUP + lid;
    if lid < 2u {
        atomicStore(&finest[lid], NO_LEVEL);
    }
    var mine: array<u32, BUCKETS>;
    var main = BUCKETS;
    var shell = false;
    var level = 0u;
    if index < crowd.count {
        let m = members[index];
        if (crowd.flags & CROWD_CULL) == 0u || visible(m) {
            level = member_level(m);
            main = main_bucket(m.effects, level);
            mine[main] = 1u;
            shell = (m.effects & MD2_MEMBER_SHELL) != 0u;
            if shell {
                mine[SHELL] = 1u;
            }
        }
    }
    // After the initial stores (the prefix sum's barriers order these
    // before the final loads).
    workgroupBarrier();
    if main == TRANSLUCENT {
        atomicMin(&finest[0], level);
    }
    if shell {
        atomicMin(&finest[1], level);
    }
    // An inclusive prefix sum over the workgroup, every bucket at once
    // (Hillis-Steele: log2(64) steps).
    ranks[lid] = mine;
    workgroupBarrier();
    for (var offset = 1u; offset < WORKGROUP; offset <<= 1u) {
        var sum = ranks[lid];
        if lid >= offset {
            let other = ranks[lid - offset];
            for (var b = 0u; b < BUCKETS; b++) {
                sum[b] += other[b];
            }
        }
        workgroupBarrier();
        ranks[lid] = sum;
        workgroupBarrier();
    }
    let inclusive = ranks[lid];
    if index < crowd.count {
        var word = 0u;
        if main < BUCKETS {
            word = PLACED_MAIN | main | ((inclusive[main] - 1u) << 4u);
        }
        if shell {
            word |= PLACED_SHELL | ((inclusive[SHELL] - 1u) << 12u);
        }
        work[placed_at(index)] = word;
    }
    // Rows of workgroups may end past the crowd: those have no sums.
    if lid == WORKGROUP - 1u && group < crowd.groups {
        let at = sums_at(group);
        for (var b = 0u; b < BUCKETS; b++) {
            work[at + b] = inclusive[b];
        }
        work[at + BUCKETS] = atomicLoad(&finest[0]);
        work[at + BUCKETS + 1u] = atomicLoad(&finest[1]);
    }
}

var<workgroup> chunk: array<vec4<u32>, SCAN_WORKGROUP>;
var<workgroup> finest_scan: array<atomic<u32>, 2>;

// The bucket-th count word of a workgroup's sums, or 0 past the buckets.
fn sum_word(at: u32, bucket: u32) -> u32 {
    return select(0u, work[at + bucket], bucket < BUCKETS);
}

// One workgroup: the workgroups' counts become where each workgroup's
// members of each bucket start, the totals become the draw counts, and
// each bucket's draw gets its level's index range.
@compute @workgroup_size(SCAN_WORKGROUP)
fn cs_scan(@builtin(local_invocation_index) lid: u32) {
    // The finest level the translucent and shell buckets need.
    if lid < 2u {
        atomicStore(&finest_scan[lid], NO_LEVEL);
    }
    workgroupBarrier();
    for (var group = lid; group < crowd.groups; group += SCAN_WORKGROUP) {
        let at = sums_at(group);
        atomicMin(&finest_scan[0], work[at + BUCKETS]);
        atomicMin(&finest_scan[1], work[at + BUCKETS + 1u]);
    }
    workgroupBarrier();
    // Four buckets at a time.
    for (var quad = 0u; quad < BUCKETS; quad += 4u) {
        let bases = vec4<u32>(base(quad), base(quad + 1u), base(quad + 2u), base(min(quad + 3u, BUCKETS - 1u)));
        var carry = vec4<u32>(0u);
        for (var first = 0u; first < crowd.groups; first += SCAN_WORKGROUP) {
            let group = first + lid;
            let at = sums_at(group);
            var count = vec4<u32>(0u);
            if group < crowd.groups {
                count = vec4<u32>(
                    sum_word(at, quad),
                    sum_word(at, quad + 1u),
                    sum_word(at, quad + 2u),
                    sum_word(at, quad + 3u),
                );
            }
            chunk[lid] = count;
            workgroupBarrier();
            for (var offset = 1u; offset < SCAN_WORKGROUP; offset <<= 1u) {
                var sum = chunk[lid];
                if lid >= offset {
                    sum += chunk[lid - offset];
                }
                workgroupBarrier();
                chunk[lid] = sum;
                workgroupBarrier();
            }
            if group < crowd.groups {
                let start = bases + carry + chunk[lid] - count;
                for (var k = 0u; k < 4u; k++) {
                    if quad + k < BUCKETS {
                        work[at + quad + k] = start[k];
                    }
                }
            }
            carry += chunk[SCAN_WORKGROUP - 1u];
            workgroupBarrier();
        }
        if lid < 4u && quad + lid < BUCKETS {
            let bucket = quad + lid;
            var level = bucket / 2u;
            if bucket >= TRANSLUCENT {
                level = atomicLoad(&finest_scan[bucket - TRANSLUCENT]);
                level = select(min(level, crowd.levels - 1u), 0u, level == NO_LEVEL);
                work[SORTED_LEVELS + bucket - TRANSLUCENT] = level;
            }
            let drawn = level < crowd.levels;
            let args = bucket * 5u;
            work[args] = select(0u, level_count(min(level, MAX_LEVELS - 1u)), drawn);
            work[args + 1u] = select(0u, carry[lid], drawn);
            work[args + 2u] = select(0u, level_first(min(level, MAX_LEVELS - 1u)), drawn);
            work[args + 3u] = 0u;
            work[args + 4u] = 0u;
        }
        workgroupBarrier();
    }
}

// The view depth of a member's origin as a key that sorts ascending from
// the farthest: the float's bits made monotonic, then inverted.
fn depth_key(rows: array<vec4<f32>, 3>) -> u32 {
    let origin = vec4<f32>(rows[0].w, rows[1].w, rows[2].w, 1.0);
    let bits = bitcast<u32>(dot(view.depth_row, origin));
    let ordered = select(bits | 0x80000000u, ~bits, (bits & 0x80000000u) != 0u);
    return ~ordered;
}

// Where a view's extra records start: one per record, scratch included.
fn extra_base() -> u32 {
    return select(crowd.extra_base.x, crowd.extra_base.y, (frame.flags & FRAME_SORT) != 0u);
}

// Writes `record` (and in a view that wants it, `extra`) at `slot` of the
// visible records. In a view that sorts, a translucent or shell record
// waits at its rank in the bucket's scratch place with a sort key, and
// cs_gather moves it.
fn put(bucket: u32, slot: u32, record: InstanceOut, extra: InstanceOut, key: u32) {
    var at = slot;
    if (frame.flags & FRAME_SORT) != 0u && bucket >= TRANSLUCENT {
        let r = bucket - TRANSLUCENT;
        let rank = slot - base(bucket);
        at = crowd.sort[2u + r] + rank;
        let key_at = crowd.sort[r] + 2u * rank;
        work[key_at] = key;
        work[key_at + 1u] = rank;
    }
    out_records[at] = record;
    if (frame.flags & FRAME_EXTRA) != 0u {
        out_records[extra_base() + at] = extra;
    }
}

// The extra record (vertex.wgsl's Md2ExtraIn, written as an InstanceOut: the
// previous rows, frames and (t, t2, weight) where the current ones lie, the
// index and id in the skin and tint words) of member `index`, whose record
// now is `now`.
fn previous_record(m: Member, index: u32, now: InstanceOut) -> InstanceOut {
    var out = now;
    out.skin_intensity = index;
    out.effects = 0u;
    let mm = motions[index];
    out.tint = mm.flags_id >> MOTION_FLAG_BITS;
    // The view's first frame, or the first of this crowd in it: nothing
    // was shown before.
    let seen = work[SEEN];
    if (frame.flags & FRAME_FIRST) != 0u || seen == NOT_SEEN {
        return out;
    }
    let fresh = mm.changed_at > seen;
    if fresh && (mm.flags_id & MOTION_NEW) != 0u {
        return out;
    }
    if fresh && (mm.flags_id & MOTION_MOVED) != 0u {
        out.rows = mm.previous_rows;
    }
    if fresh && (mm.flags_id & MOTION_POSE) != 0u {
        out.frames = mm.previous_frames;
        out.t = mm.previous_lerp.x;
        out.t2 = mm.previous_lerp.y;
        out.weight = mm.previous_lerp.z;
        return out;
    }
    // The playback did not change since: its pose at the previous frame's
    // time, by the same clock rules.
    let p = sample(m.primary, frame.previous);
    var s = p;
    var weight = 0.0;
    if (m.effects & MD2_MEMBER_FADING) != 0u {
        s = sample(m.secondary, frame.previous);
        weight = fade_weight(m, frame.previous);
    }
    out.frames = vec2<u32>(p.a | (p.b << 16u), s.a | (s.b << 16u));
    out.t = p.t;
    out.t2 = s.t;
    out.weight = weight;
    return out;
}

@compute @workgroup_size(64)
fn cs_emit(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let group = wid.y * groups.x + wid.x;
    let index = group * WORKGROUP + lid;
    if index >= crowd.count {
        return;
    }
    let word = work[placed_at(index)];
    if (word & PLACED_MAIN) == 0u {
        return;
    }
    let m = members[index];
    let p = sample(m.primary, frame.now);
    var s = p;
    var weight = 0.0;
    if (m.effects & MD2_MEMBER_FADING) != 0u {
        s = sample(m.secondary, frame.now);
        weight = fade_weight(m, frame.now);
    }
    var record: InstanceOut;
    record.rows = m.rows;
    record.frames = vec2<u32>(p.a | (p.b << 16u), s.a | (s.b << 16u));
    record.t = p.t;
    record.t2 = s.t;
    record.weight = weight;
    record.skin_intensity = m.skin_intensity;
    record.tint = m.tint;
    record.effects = m.effects;
    var extra = record;
    if (frame.flags & FRAME_EXTRA) != 0u {
        extra = previous_record(m, index, record);
    }
    let sums = sums_at(group);
    let key = depth_key(m.rows);
    let bucket = word & 15u;
    put(bucket, work[sums + bucket] + ((word >> 4u) & 63u), record, extra, key);
    if (word & PLACED_SHELL) != 0u {
        put(SHELL, work[sums + SHELL] + ((word >> 12u) & 63u), record, extra, key);
    }
}

// The bitonic sort of one sorted bucket's (key, rank) pairs: ascending key,
// so the farthest first, and ties by rank, which is member order. Keys past
// the bucket's count are filled with the largest pair, so they sort last.
