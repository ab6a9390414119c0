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
        let rows = member_rows(index);
        let effects = member_effects(index);
        let shown = (effects & MEMBER_HIDDEN) == 0u;
        if shown && ((crowd.flags & CROWD_CULL) == 0u || visible(index, rows, effects)) {
            level = member_level(rows);
            main = main_bucket(effects, level);
            mine[main] = 1u;
            shell = (effects & MD2_MEMBER_SHELL) != 0u;
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

var<workgroup> totals: array<u32, BUCKETS>;

// One workgroup: the workgroups' counts become where each workgroup's
// members of each bucket start within the bucket, the buckets are laid out
// one after another (each as long as its visible records), the totals
// become the draw counts, and each bucket's draw gets its level's index
// range and where its records start.
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
                let start = carry + chunk[lid] - count;
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
            totals[quad + lid] = carry[lid];
        }
        workgroupBarrier();
    }
    // Each bucket's draw: its level's index range, its count, where its
    // records start (after every earlier bucket's) and where the view's
    // extra records start.
    if lid < BUCKETS {
        let bucket = lid;
        var start = 0u;
        for (var b = 0u; b < bucket; b++) {
            start += totals[b];
        }
        var level = bucket / 2u;
        if bucket >= TRANSLUCENT {
            level = atomicLoad(&finest_scan[bucket - TRANSLUCENT]);
            level = select(min(level, crowd.levels - 1u), 0u, level == NO_LEVEL);
            work[SORTED_LEVELS + bucket - TRANSLUCENT] = level;
        }
        let drawn = level < crowd.levels;
        let args = bucket * 5u;
        work[args] = select(0u, level_count(min(level, MAX_LEVELS - 1u)), drawn);
        work[args + 1u] = select(0u, totals[bucket], drawn);
        work[args + 2u] = select(0u, level_first(min(level, MAX_LEVELS - 1u)), drawn);
        work[args + 3u] = 0u;
        work[args + 4u] = 0u;
        let draw = DRAWS + DRAW_STRIDE * bucket;
        work[draw] = start;
        work[draw + 1u] = extra_base();
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

// A record's pose: frames as u16 pairs (primary, secondary), then (t, t2,
// weight).
struct PoseOut {
    frames: vec2<u32>,
    lerp: vec3<f32>,
};

// Member `index`'s pose at `time` (ticks), by the clock rules.
fn member_pose(index: u32, effects: u32, time: vec2<u32>) -> PoseOut {
    let p = sample(member_clock(index, false), time);
    var s = p;
    var weight = 0.0;
    if (effects & MD2_MEMBER_FADING) != 0u {
        s = sample(member_clock(index, true), time);
        weight = fade_weight(index, time);
    }
    return PoseOut(vec2<u32>(p.a | (p.b << 16u), s.a | (s.b << 16u)), vec3<f32>(p.t, s.t, weight));
}

// The extra record of member `index`, whose pose now is `now`, into slot
// `at`: the previous frame's rows and pose (where they differ from now's),
// the index and the id (vertex.wgsl's Md2ExtraIn).
fn put_extra(at: u32, index: u32, rows: array<vec4<f32>, 3>, effects: u32, now: PoseOut) {
    var previous_rows = rows;
    var pose = now;
    let mm = motions[index];
    let seen = work[SEEN];
    // Nothing was shown before in the view's first frame, or the first of
    // this crowd in it.
    if (frame.flags & FRAME_FIRST) == 0u && seen != NOT_SEEN {
        let fresh = mm.changed_at > seen;
        if !(fresh && (mm.flags_id & MOTION_NEW) != 0u) {
            if fresh && (mm.flags_id & MOTION_MOVED) != 0u {
                previous_rows = mm.previous_rows;
            }
            if fresh && (mm.flags_id & MOTION_POSE) != 0u {
                pose = PoseOut(mm.previous_frames, mm.previous_lerp);
            } else {
                // The playback did not change since: its pose at the
                // previous frame's time, by the same clock rules.
                pose = member_pose(index, effects, frame.previous);
            }
        }
    }
    let w = extra_base() + at * EXTRA_WORDS;
    for (var k = 0u; k < 3u; k++) {
        for (var c = 0u; c < 4u; c++) {
            out_records[w + 4u * k + c] = bitcast<u32>(previous_rows[k][c]);
        }
    }
    out_records[w + 12u] = pose.frames.x;
    out_records[w + 13u] = pose.frames.y;
    out_records[w + 14u] = bitcast<u32>(pose.lerp.x);
    out_records[w + 15u] = bitcast<u32>(pose.lerp.y);
    out_records[w + 16u] = bitcast<u32>(pose.lerp.z);
    out_records[w + 17u] = index;
    out_records[w + 18u] = mm.flags_id >> MOTION_FLAG_BITS;
    out_records[w + 19u] = 0u;
}

// Writes member `index`'s record (and in a view that wants it, its extra
// record) as the `rank`-th of `bucket`. In a view that sorts, a translucent
// or shell record waits at its rank in the bucket's scratch place with a
// sort key, and cs_gather moves it.
fn put(bucket: u32, rank: u32, index: u32, rows: array<vec4<f32>, 3>, effects: u32, pose: PoseOut) {
    var at = base(bucket) + rank;
    if (frame.flags & FRAME_SORT) != 0u && bucket >= TRANSLUCENT {
        let r = bucket - TRANSLUCENT;
        at = sort_scratch(r) + rank;
        let key_at = sort_keys(r) + 2u * rank;
        work[key_at] = depth_key(rows);
        work[key_at + 1u] = rank;
    }
    let w = at * RECORD_WORDS;
    out_records[w] = index;
    out_records[w + 1u] = pose.frames.x;
    out_records[w + 2u] = pose.frames.y;
    out_records[w + 3u] = bitcast<u32>(pose.lerp.x);
    out_records[w + 4u] = bitcast<u32>(pose.lerp.y);
    out_records[w + 5u] = bitcast<u32>(pose.lerp.z);
    if (frame.flags & FRAME_EXTRA) != 0u {
        put_extra(at, index, rows, effects, pose);
    }
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
    let rows = member_rows(index);
    let effects = member_effects(index);
    let pose = member_pose(index, effects, frame.now);
    let sums = sums_at(group);
    let bucket = word & 15u;
    put(bucket, work[sums + bucket] + ((word >> 4u) & 63u), index, rows, effects, pose);
    if (word & PLACED_SHELL) != 0u {
        put(SHELL, work[sums + SHELL] + ((word >> 12u) & 63u), index, rows, effects, pose);
    }
}

// The bitonic sort of one sorted bucket's (key, rank) pairs: ascending key,
// so the farthest first, and ties by rank, which is member order. Keys past
// the bucket's count are filled with the largest pair, so they sort last.
