// md2-wgpu: the resident crowd's records, parameters and bindings, shared by
// its compute passes (clock.wgsl, cull.wgsl, compact.wgsl, sort.wgsl follow
// this file, after constants.wgsl and view.wgsl, in one module).
//
// Every member of a crowd lives on the GPU (`Member`): its transform, what it
// plays and since when, an optional crossfade, skin, tint and effects. Per
// view and frame, three passes turn the members into the records the vertex
// shader reads (vertex.wgsl's Md2InstanceIn, here `InstanceOut`), bucket by
// bucket, in member order:
//
// 1. `cs_classify`, one invocation per member: tests the member's
//    conservative bounds against the view's frustum, picks its buckets, and
//    numbers it within its workgroup by a workgroup-wide prefix sum.
// 2. `cs_scan`, one workgroup: a prefix sum over the workgroups' counts, so
//    each workgroup knows where its members go; it writes the draw counts
//    into DrawIndexedIndirectArgs.
// 3. `cs_emit`, one invocation per member: samples the visible members'
//    clocks into (frame a, frame b, t) and a crossfade weight and writes
//    each record at its place.
//
// Every visible member lands at the same place whatever order the GPU runs
// the workgroups in, so the same inputs give the same records, and the same
// pixels, every frame: translucent members and shells blend in member order.
// (An atomic append would number members in the order their workgroups
// happen to finish: a translucent crowd would flicker.) With the view's
// BackToFront order, `cs_sort_*` then sort the visible translucent members
// and shells by view depth (ties in member order) with a bitonic sort, and
// `cs_gather` writes them in that order.
//
// Every struct here has a #[repr(C)] mirror in src/contract/crowd.rs, and a
// test holds their sizes and offsets equal.

// A clip clock, as the passes sample it: the member's own words (start,
// step, rate) with its clip's (first, len, flags).
struct Clock {
    // Position gained per tick, as a fraction of 2^96: of a loop for looping
    // clips, of a frame for one-shot ones.
    step: vec3<u32>,
    // CLOCK_* bits.
    flags: u32,
    // When the clip started, in ticks (i64: low word, high word).
    start: vec2<u32>,
    first: u32,
    // Frames in the clip (>= 2 unless CLOCK_HOLD).
    len: u32,
    // Frames per second (fps × speed), for one-shot clips' coarse position.
    rate: f32,
};

const CLOCK_LOOPING: u32 = 1u;
// The clip cannot advance (one frame, or an fps that is not positive and
// finite): it holds its first frame.
const CLOCK_HOLD: u32 = 2u;

// Every member lives on the GPU as MEMBER_VEC4S vec4<u32> of `members`
// (md2_wgpu's contract/crowd.rs lays them out and names the setters' byte
// ranges), 128 bytes:
//   [0..3) rows: model (Quake axes) to world, three rows (f32 bits)
//   [3]    skin | intensity << 16, tint (RGBA8), effects (MD2_EFFECT_* and
//          MD2_MEMBER_* bits), primary clip
//   [4]    primary clock: start (low, high), step.x, step.y
//   [5]    primary step.z, primary rate (f32 bits), secondary start (low,
//          high)
//   [6]    secondary step.x, .y, .z, secondary rate
//   [7]    fade start (low, high), fade ticks, secondary clip
// The first four are all the vertex stage reads (vertex.wgsl's resident
// draws); the compute passes read the first four of every member and the
// clocks of the visible ones. The crowd's clip table follows the members in
// the same buffer, at crowd.clips_at, CLIP_VEC4S each:
//   [0]    bounds_min (f32 bits), first | CLOCK_* flags << 16
//   [1]    bounds_max (f32 bits), len
// bounds being the model-space box of every frame the clip plays.
const MEMBER_VEC4S: u32 = 8u;
const CLIP_VEC4S: u32 = 2u;
// In a member's effects word (beside the MD2_MEMBER_* bits): a member that
// rides another's tag (crowd/attach.wgsl) whose root member is out of the
// view being laid out. cs_attach sets or clears it per view, before the
// rider's passes; cs_classify leaves such a member out.
const MEMBER_HIDDEN: u32 = 0x40000000u;

fn member_rows(index: u32) -> array<vec4<f32>, 3> {
    let at = index * MEMBER_VEC4S;
    return array<vec4<f32>, 3>(
        bitcast<vec4<f32>>(members[at]),
        bitcast<vec4<f32>>(members[at + 1u]),
        bitcast<vec4<f32>>(members[at + 2u]),
    );
}

// (skin | intensity << 16, tint, effects, primary clip).
fn member_look(index: u32) -> vec4<u32> {
    return members[index * MEMBER_VEC4S + 3u];
}

fn member_effects(index: u32) -> u32 {
    return member_look(index).z;
}

fn clip_of(id: u32) -> array<vec4<u32>, 2> {
    let at = crowd.clips_at + id * CLIP_VEC4S;
    return array<vec4<u32>, 2>(members[at], members[at + 1u]);
}

// The member's primary clock (or its secondary one).
fn member_clock(index: u32, secondary: bool) -> Clock {
    let at = index * MEMBER_VEC4S;
    let w4 = members[at + 4u];
    let w5 = members[at + 5u];
    let w6 = members[at + 6u];
    var clock: Clock;
    var id: u32;
    if secondary {
        clock.start = w5.zw;
        clock.step = w6.xyz;
        clock.rate = bitcast<f32>(w6.w);
        id = members[at + 7u].w;
    } else {
        clock.start = w4.xy;
        clock.step = vec3<u32>(w4.zw, w5.x);
        clock.rate = bitcast<f32>(w5.y);
        id = members[at + 3u].w;
    }
    let clip = clip_of(id);
    clock.first = clip[0].w & 0xffffu;
    clock.flags = clip[0].w >> 16u;
    clock.len = clip[1].w;
    return clock;
}

// The model-space box of every frame the member's clips can show: (min,
// max).
fn member_bounds(index: u32) -> array<vec3<f32>, 2> {
    let primary = clip_of(member_look(index).w);
    var lo = bitcast<vec3<f32>>(primary[0].xyz);
    var hi = bitcast<vec3<f32>>(primary[1].xyz);
    if (member_effects(index) & MD2_MEMBER_FADING) != 0u {
        let secondary = clip_of(members[index * MEMBER_VEC4S + 7u].w);
        lo = min(lo, bitcast<vec3<f32>>(secondary[0].xyz));
        hi = max(hi, bitcast<vec3<f32>>(secondary[1].xyz));
    }
    return array<vec3<f32>, 2>(lo, hi);
}

// What the previous frame showed of a member where it changed since (its
// transform moved, its playback changed, it was added or teleported): kept
// by the crowd on the CPU, uploaded with the change, read by views that
// draw motion.
struct MemberMotion {
    // The transform the member had before the change (MOTION_MOVED).
    previous_rows: array<vec4<f32>, 3>,
    // The pose it showed at the crowd's last frame before the change
    // (MOTION_POSE): frames as u16 pairs, then (t, t2, weight).
    previous_frames: vec2<u32>,
    // The crowd's generation (CrowdParams.generation) that uploaded the
    // change: a view that last drew the crowd at an earlier generation has
    // not seen it.
    changed_at: u32,
    // MOTION_* bits (low 3), and the member's stable id (CrowdHandle::id)
    // above them.
    flags_id: u32,
    previous_lerp: vec3<f32>,
    _pad: u32,
};

const MOTION_MOVED: u32 = 1u;
const MOTION_POSE: u32 = 2u;
// Added or teleported: the previous frame is taken to have shown it as now.
const MOTION_NEW: u32 = 4u;
const MOTION_FLAG_BITS: u32 = 3u;


struct CrowdParams {
    count: u32,
    // Levels of detail drawn (1 to MAX_LEVELS).
    levels: u32,
    // CROWD_* bits.
    flags: u32,
    // Workgroups of cs_classify and cs_emit: ceil(count / WORKGROUP).
    groups: u32,
    // Where the clip table starts in `members`, in vec4s.
    clips_at: u32,
    // Counts the flushes that uploaded motion (see MemberMotion.changed_at).
    generation: u32,
    _pad0: u32,
    _pad1: u32,
    // Each level's range of the model's index buffers (both windings).
    level_first: array<vec4<u32>, 2>,
    level_count: array<vec4<u32>, 2>,
    // Each level's error, in model units (see src/contract/level.rs).
    level_error: array<vec4<f32>, 2>,
    // A sphere around every frame of the model, in model space: centre,
    // radius.
    level_sphere: vec4<f32>,
};

const CROWD_CULL: u32 = 1u;

// The buckets, in record order: opaque and opaque mirrored at each level
// of detail (opaque_at), then translucent and shell, which keep one bucket
// each whatever their members' levels (so that they blend in one order)
// and are drawn at the finest level any of their visible members needs.
const MAX_LEVELS: u32 = 5u;
const OPAQUE: u32 = 0u;
const OPAQUE_MIRRORED: u32 = 1u;
const TRANSLUCENT: u32 = 10u;
const SHELL: u32 = 11u;
const BUCKETS: u32 = 12u;

fn opaque_at(level: u32, mirrored: bool) -> u32 {
    return 2u * level + select(0u, 1u, mirrored);
}

// Where `bucket` starts among the visible records: cs_scan lays the
// buckets out one after another, each as long as it has visible records,
// and writes each start where the bucket's draw reads it (DRAWS).
fn base(bucket: u32) -> u32 {
    return work[DRAWS + DRAW_STRIDE * bucket];
}

// Level `level`'s first index, index count and error (CrowdParams keeps
// them four to a vec4). cs_scan's invocations each ask for their own
// bucket's level: the first two read every level at the same index in all
// invocations and keep the one asked for, since a uniform read whose index
// differs between invocations is serialised on NVIDIA (shaders/README.md).
// level_error's callers pass the same level in every invocation.
fn level_first(level: u32) -> u32 {
    var first = 0u;
    for (var l = 0u; l < MAX_LEVELS; l++) {
        first = select(first, crowd.level_first[l / 4u][l % 4u], l == level);
    }
    return first;
}

fn level_count(level: u32) -> u32 {
    var count = 0u;
    for (var l = 0u; l < MAX_LEVELS; l++) {
        count = select(count, crowd.level_count[l / 4u][l % 4u], l == level);
    }
    return count;
}

fn level_error(level: u32) -> f32 {
    return crowd.level_error[level / 4u][level % 4u];
}

struct CrowdFrame {
    // The view's time, in ticks.
    now: vec2<u32>,
    // FRAME_* bits.
    flags: u32,
    _pad0: u32,
    // The view's previous frame's time, in ticks (motion).
    previous: vec2<u32>,
    _pad1: u32,
    _pad2: u32,
};

// Sort the visible translucent members and shells back to front.
const FRAME_SORT: u32 = 1u;
// Write each visible record's extra record (previous transform and pose,
// index, id): the view draws a material or motion vectors.
const FRAME_EXTRA: u32 = 2u;
// The view's first frame: nothing was shown before, so no motion.
const FRAME_FIRST: u32 = 4u;

// One step of the bitonic sort of one sorted bucket (the dynamic offset of
// `step` picks it): `k == 0` sorts each block of SORT_BLOCK keys on its own;
// otherwise compare-and-swap keys `j` apart in sequences of `k` (`j == 0`:
// every j below SORT_BLOCK, in workgroup memory).
struct SortStep {
    k: u32,
    j: u32,
    // 0: the translucent bucket; 1: the shells.
    region: u32,
    _pad: u32,
};

// A visible record, RECORD_WORDS words of `out_records`: the member it
// draws and its pose now (crowd/draw.wgsl reads it):
//   member, frames (primary a | b << 16), frames (secondary a | b << 16),
//   t, t2, weight (f32 bits)
// and, in a view that draws them, its extra record (EXTRA_WORDS words at
// extra_base() + EXTRA_WORDS × slot, vertex.wgsl's Md2ExtraIn as memory):
// the previous frame's rows, frames and (t, t2, weight), the member's index
// and its id.
const RECORD_WORDS: u32 = 6u;
const EXTRA_WORDS: u32 = 20u;

@group(0) @binding(0) var<uniform> view: Md2View;

@group(1) @binding(0) var<storage, read> members: array<vec4<u32>>;
@group(1) @binding(1) var<uniform> crowd: CrowdParams;
// Parallel to `members` where a view draws motion (else a stand-in).
@group(1) @binding(2) var<storage, read> motions: array<MemberMotion>;

@group(2) @binding(0) var<uniform> frame: CrowdFrame;
@group(2) @binding(1) var<storage, read_write> out_records: array<u32>;
// One buffer for everything else a view keeps of a crowd (a device may
// offer only four storage buffers to a compute stage), in words:
// - [0, 5 × BUCKETS): the buckets' DrawIndexedIndirectArgs, five words
//   each;
// - SEEN: the crowd's generation when this view last drew it (written by
//   the CPU); SORTED_LEVELS, + 1: the levels the translucent and shell
//   buckets are drawn at; EXTRA_BASE: where the view's extra records start
//   in `out_records`, in words (written by the CPU: one per record slot,
//   scratch included);
// - [DRAWS, DRAWS + DRAW_STRIDE × BUCKETS): per bucket, where its records
//   start and where the view's extra records start (crowd/draw.wgsl's
//   Md2CrowdDraw), 256 bytes apart: the draw of a bucket binds them as a
//   uniform at its own dynamic offset;
// - SORT_LAYOUT: in a view that sorts (written by the CPU where it
//   changes), per sorted bucket (translucent, shell) where its keys start
//   (two words; `sort_size` (key, rank) pairs each), where its records wait
//   in member order before cs_gather (two words, record slots), and its key
//   count (two words: a power of two, at least SORT_BLOCK; 0 for an empty
//   bucket);
// - [SUMS, SUMS + GROUP_WORDS × groups): per workgroup, its visible members
//   per bucket (after cs_scan: where its first one goes within the
//   bucket); then the finest level its translucent members and its shells
//   need;
// - [SUMS + GROUP_WORDS × groups, + count): per member, where it goes
//   within its workgroup (`placed`);
// - then the sort keys of the sorted buckets.
@group(2) @binding(2) var<storage, read_write> work: array<u32>;
@group(2) @binding(3) var<uniform> step: SortStep;

const WORKGROUP: u32 = 64u;
const SCAN_WORKGROUP: u32 = 256u;
const SORT_WORKGROUP: u32 = 256u;
// Elements one workgroup of the sort holds in workgroup memory.
const SORT_BLOCK: u32 = 512u;
const SEEN: u32 = 60u;
const SORTED_LEVELS: u32 = 61u;
const EXTRA_BASE: u32 = 63u;
// SEEN of a view that has not drawn the crowd yet.
const NOT_SEEN: u32 = 0xffffffffu;
const DRAWS: u32 = 64u;
// 256 bytes: any device's uniform offset alignment divides it.
const DRAW_STRIDE: u32 = 64u;
const SORT_LAYOUT: u32 = 832u;
const SUMS: u32 = 840u;

fn extra_base() -> u32 {
    return work[EXTRA_BASE];
}

// Where sorted bucket `r`'s keys start in `work`.
fn sort_keys(r: u32) -> u32 {
    return work[SORT_LAYOUT + r];
}

// Where sorted bucket `r`'s records wait before cs_gather, as a record slot.
fn sort_scratch(r: u32) -> u32 {
    return work[SORT_LAYOUT + 2u + r];
}

// Sorted bucket `r`'s key count.
fn sort_size(r: u32) -> u32 {
    return work[SORT_LAYOUT + 4u + r];
}
const GROUP_WORDS: u32 = 14u;
// A finest level where no member needs one.
const NO_LEVEL: u32 = 0xffffffffu;
// The largest f32 below 1, where a clip's t stops (as on the CPU).
const BELOW_ONE: f32 = 0.99999994;
const TWO_POW_32: f32 = 4294967296.0;
const TWO_POW_M32: f32 = 2.3283064e-10;
const TWO_POW_M64: f32 = 5.421011e-20;
// Seconds per tick.
const TICK: f32 = 9.536743e-7;
