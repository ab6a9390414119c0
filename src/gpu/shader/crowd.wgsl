// md2-wgpu: the resident crowd's compute passes.
//
// Every member of a crowd lives on the GPU (`Member`): its transform, what it
// plays and since when, an optional crossfade, skin, tint and effects. Per
// view and frame, three passes turn the members into the records the vertex
// shader reads (md2.wgsl's InstanceIn, here `InstanceOut`), bucket by bucket,
// in member order:
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
// Clocks (src/anim/clock.rs is the CPU reference): times are integer ticks
// (2^20 a second) in two's-complement 64 bits, split in u32 words. A clip's
// position is (now - start) * rate frames. The part that matters, the
// position modulo the clip's length (looping) or its fraction (one-shot), is
// computed exactly in integers as frac(dt * step), where `step` is the
// position gained per tick (divided by the length for looping clips) as a
// 96-bit fixed-point fraction: no f32 rounding grows with the clock, so a
// crowd that has run for years samples as precisely as on its first frame.
//
// Every struct here has a #[repr(C)] mirror in src/gpu/shader/mod.rs, and a
// test holds their sizes and offsets equal.

// The same Md2View as md2.wgsl (the camera the view draws with).
struct Md2View {
    view_proj: mat4x4<f32>,
    previous_view_proj: mat4x4<f32>,
    jitter: vec4<f32>,
    shadow_proj: mat4x4<f32>,
    towards_light: vec4<f32>,
    light_color: vec4<f32>,
    ambient: vec4<f32>,
    shadow_color: vec4<f32>,
    // Dotted with a world point (w = 1), its depth along the view: larger
    // is farther (see Md2Renderer::view_depth).
    depth_row: vec4<f32>,
    // x: VIEW_* bits.
    flags: vec4<u32>,
    // x: pixels per world unit at clip-space w = 1 over the largest error
    // in pixels a level may make (0: full detail only).
    detail: vec4<f32>,
};

// The view draws planar shadows: a member's shadow can be in view when the
// member is not.
const VIEW_SHADOWS: u32 = 1u;

// One clip's clock.
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
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};

const CLOCK_LOOPING: u32 = 1u;
// The clip cannot advance (one frame, or an fps that is not positive and
// finite): it holds its first frame.
const CLOCK_HOLD: u32 = 2u;

// Laid out so that each of the crowd's setters rewrites one short run of
// bytes: the transform is bytes 0..64 (with the effects word, whose
// mirrored bit follows the transform), the look (effects, skin, tint) bytes
// 60..84, the clocks bytes 48..192.
struct Member {
    // Model (Quake axes) to world, three rows.
    rows: array<vec4<f32>, 3>,
    // Model-space box of every frame either clip can show.
    bounds_min: vec3<f32>,
    // md2.wgsl's EFFECT_* bits, plus MEMBER_* bits.
    effects: u32,
    bounds_max: vec3<f32>,
    skin_intensity: u32,
    tint: u32,
    // How long the crossfade into `secondary` takes, and when it starts.
    fade_ticks: u32,
    fade_start: vec2<u32>,
    primary: Clock,
    secondary: Clock,
};

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

// Bits of Member.effects that only the crowd uses.
const EFFECT_NO_SHADOW: u32 = 0x04000000u;
const MEMBER_SHELL: u32 = 0x08000000u;
const MEMBER_TRANSLUCENT: u32 = 0x10000000u;
const MEMBER_MIRRORED: u32 = 0x20000000u;
const MEMBER_FADING: u32 = 0x80000000u;

// Quake II's POWERSUIT_SCALE (md2.wgsl's SHELL_OFFSET).
const SHELL_OFFSET: f32 = 4.0;

struct CrowdParams {
    count: u32,
    // Levels of detail drawn (1 to MAX_LEVELS).
    levels: u32,
    // CROWD_* bits.
    flags: u32,
    // Workgroups of cs_classify and cs_emit: ceil(count / WORKGROUP).
    groups: u32,
    // First record of each bucket in the visible records (`base(bucket)`):
    // opaque and opaque mirrored at each level, translucent, shell.
    bases: array<vec4<u32>, 3>,
    // For views that sort, per sorted bucket (translucent, shell): where its
    // keys start in `work` (x, y; `size` (key, rank) pairs each), where its
    // records wait in member order before cs_gather (z, w).
    sort: vec4<u32>,
    // The sorted buckets' key counts: powers of two, at least SORT_BLOCK
    // (0 for an empty bucket).
    sort_size: vec2<u32>,
    // Where the extra records start, in a view that does not sort (x) and
    // in one that does (y): parallel to every record, scratch included.
    extra_base: vec2<u32>,
    // Counts the flushes that uploaded motion (see MemberMotion.changed_at).
    generation: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // Each level's range of the model's index buffers (both windings).
    level_first: array<vec4<u32>, 2>,
    level_count: array<vec4<u32>, 2>,
    // Each level's error, in model units (see src/gpu/detail.rs).
    level_error: array<vec4<f32>, 2>,
    // A sphere around every frame of the model, in model space: centre,
    // radius.
    lod_sphere: vec4<f32>,
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

fn base(bucket: u32) -> u32 {
    return crowd.bases[bucket / 4u][bucket % 4u];
}

// Level `level`'s first index, index count and error (CrowdParams keeps
// them four to a vec4).
fn level_first(level: u32) -> u32 {
    return crowd.level_first[level / 4u][level % 4u];
}

fn level_count(level: u32) -> u32 {
    return crowd.level_count[level / 4u][level % 4u];
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

// md2.wgsl's InstanceIn, as memory.
struct InstanceOut {
    rows: array<vec4<f32>, 3>,
    // Frames as u16 pairs: (primary a | primary b << 16, secondary a | b << 16).
    frames: vec2<u32>,
    t: f32,
    t2: f32,
    weight: f32,
    skin_intensity: u32,
    tint: u32,
    effects: u32,
};

@group(0) @binding(0) var<uniform> view: Md2View;

@group(1) @binding(0) var<storage, read> members: array<Member>;
@group(1) @binding(1) var<uniform> crowd: CrowdParams;
// Parallel to `members` where a view draws motion (else a stand-in).
@group(1) @binding(2) var<storage, read> motions: array<MemberMotion>;

@group(2) @binding(0) var<uniform> frame: CrowdFrame;
@group(2) @binding(1) var<storage, read_write> out_records: array<InstanceOut>;
// One buffer for everything else a view keeps of a crowd (a device may
// offer only four storage buffers to a compute stage), in words:
// - [0, 5 × BUCKETS): the buckets' DrawIndexedIndirectArgs, five words
//   each;
// - SEEN: the crowd's generation when this view last drew it (written by
//   the CPU); SORTED_LEVELS, + 1: the levels the translucent and shell
//   buckets are drawn at; one unused;
// - [SUMS, SUMS + GROUP_WORDS × groups): per workgroup, its visible members
//   per bucket, then (after cs_scan) where its first one goes; then the
//   finest level its translucent members and its shells need;
// - [SUMS + GROUP_WORDS × groups, + count): per member, where it goes
//   within its workgroup (`placed`);
// - then the sort keys of the sorted buckets (CrowdParams.sort).
@group(2) @binding(2) var<storage, read_write> work: array<u32>;
@group(2) @binding(3) var<uniform> step: SortStep;

const WORKGROUP: u32 = 64u;
const SCAN_WORKGROUP: u32 = 256u;
const SORT_WORKGROUP: u32 = 256u;
// Elements one workgroup of the sort holds in workgroup memory.
const SORT_BLOCK: u32 = 512u;
const SEEN: u32 = 60u;
const SORTED_LEVELS: u32 = 61u;
// SEEN of a view that has not drawn the crowd yet.
const NOT_SEEN: u32 = 0xffffffffu;
const SUMS: u32 = 64u;
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


// a * b as (low word, high word).
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    let lo = (p00 & 0xffffu) | (mid << 16u);
    let hi = p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
    return vec2<u32>(lo, hi);
}

// a - b for two's-complement i64 (low word, high word).
fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let borrow = select(0u, 1u, a.x < b.x);
    return vec2<u32>(a.x - b.x, a.y - b.y - borrow);
}

fn is_negative(x: vec2<u32>) -> bool {
    return (x.y >> 31u) != 0u;
}

// frac(dt * step) as a 64-bit fraction (high word, low word): dt a signed
// tick count, step a 96-bit fraction. Only the product's low 96 bits are
// needed (the rest is whole loops or frames), so dt is sign-extended to 96
// bits and everything is arithmetic modulo 2^96.
fn phase(dt: vec2<u32>, step: vec3<u32>) -> vec2<u32> {
    let d0 = dt.x;
    let d1 = dt.y;
    let d2 = select(0u, 0xffffffffu, is_negative(dt));
    let p00 = mul_wide(d0, step.x);
    let p01 = mul_wide(d0, step.y);
    let p10 = mul_wide(d1, step.x);
    var w1 = p00.y + p01.x;
    var carry = select(0u, 1u, w1 < p01.x);
    let w1b = w1 + p10.x;
    carry += select(0u, 1u, w1b < p10.x);
    w1 = w1b;
    let w2 = p01.y + p10.y + d0 * step.z + d1 * step.y + d2 * step.x + carry;
    return vec2<u32>(w2, w1);
}

fn fraction(words: vec2<u32>) -> f32 {
    return f32(words.x) * TWO_POW_M32 + f32(words.y) * TWO_POW_M64;
}

struct Lerp {
    a: u32,
    b: u32,
    t: f32,
};

// Clip::sample((now - start) * speed), in integers where it matters.
fn sample(clock: Clock, now: vec2<u32>) -> Lerp {
    if (clock.flags & CLOCK_HOLD) != 0u {
        return Lerp(clock.first, clock.first, 0.0);
    }
    let dt = sub64(now, clock.start);
    let ph = phase(dt, clock.step);
    if (clock.flags & CLOCK_LOOPING) != 0u {
        // The loop's phase times its length: the whole part is the frame,
        // the rest is t.
        let hi = mul_wide(ph.x, clock.len);
        let lo = mul_wide(ph.y, clock.len);
        let frac_hi = hi.x + lo.y;
        let carry = select(0u, 1u, frac_hi < lo.y);
        let index = hi.y + carry;
        let t = min(fraction(vec2<u32>(frac_hi, lo.x)), BELOW_ONE);
        let a = clock.first + index;
        let b = select(a + 1u, clock.first, index + 1u == clock.len);
        return Lerp(a, b, t);
    }
    // One-shot: before the start it holds the first frame, from len - 1
    // frames on the last. The sign is exact (dt's times the rate's); the
    // coarse f32 position only has to pick the whole frame, within 0.5.
    let last = clock.first + clock.len - 1u;
    let zero = (dt.x == 0u && dt.y == 0u) || clock.rate == 0.0;
    if zero {
        return Lerp(clock.first, clock.first + 1u, 0.0);
    }
    if is_negative(dt) != (clock.rate < 0.0) {
        return Lerp(clock.first, clock.first, 0.0);
    }
    let seconds = (f32(bitcast<i32>(dt.y)) * TWO_POW_32 + f32(dt.x)) * TICK;
    let approx = seconds * clock.rate;
    let end = f32(clock.len - 1u);
    if approx > end + 1.0 {
        return Lerp(last, last, 0.0);
    }
    let t = fraction(ph);
    let whole = u32(max(round(approx - t), 0.0));
    if whole >= clock.len - 1u {
        return Lerp(last, last, 0.0);
    }
    let a = clock.first + whole;
    return Lerp(a, a + 1u, min(t, BELOW_ONE));
}

// Crossfade::weight on ticks: 0 before the start, smoothstep over the
// duration, 1 after (and at once for a duration of 0).
fn fade_weight(m: Member, now: vec2<u32>) -> f32 {
    let since = sub64(now, m.fade_start);
    if is_negative(since) {
        return 0.0;
    }
    if m.fade_ticks == 0u || since.y != 0u || since.x >= m.fade_ticks {
        return 1.0;
    }
    let u = f32(since.x) / f32(m.fade_ticks);
    return u * u * (3.0 - 2.0 * u);
}

fn frustum_plane(i: u32) -> vec4<f32> {
    let m = view.view_proj;
    let row0 = vec4<f32>(m[0].x, m[1].x, m[2].x, m[3].x);
    let row1 = vec4<f32>(m[0].y, m[1].y, m[2].y, m[3].y);
    let row2 = vec4<f32>(m[0].z, m[1].z, m[2].z, m[3].z);
    let row3 = vec4<f32>(m[0].w, m[1].w, m[2].w, m[3].w);
    switch i {
        case 0u: { return row3 + row0; }
        case 1u: { return row3 - row0; }
        case 2u: { return row3 + row1; }
        case 3u: { return row3 - row1; }
        // wgpu's depth runs 0..w.
        case 4u: { return row2; }
        default: { return row3 - row2; }
    }
}

// Whether the world box (centre, half extent) is on the inner side of every
// plane (conservatively: boxes near a frustum corner may pass).
fn box_in_view(center: vec3<f32>, extent: vec3<f32>) -> bool {
    for (var i = 0u; i < 6u; i++) {
        let p = frustum_plane(i);
        if dot(p.xyz, center) + p.w + dot(abs(p.xyz), extent) < 0.0 {
            return false;
        }
    }
    return true;
}

// The level of detail to draw member `m` at: the coarsest whose error,
// scaled by the transform's largest column and projected where the
// model's sphere comes nearest the camera, is within the view's budget.
// The same arithmetic, in the same order, as src/gpu/detail.rs's `choose`
// (the immediate path), so both paths choose alike.
fn detail_level(m: Member) -> u32 {
    let scale = view.detail.x;
    if scale <= 0.0 || crowd.levels <= 1u {
        return 0u;
    }
    let r = m.rows;
    let c0 = r[0].x * r[0].x + r[1].x * r[1].x + r[2].x * r[2].x;
    let c1 = r[0].y * r[0].y + r[1].y * r[1].y + r[2].y * r[2].y;
    let c2 = r[0].z * r[0].z + r[1].z * r[1].z + r[2].z * r[2].z;
    let stretch = sqrt(max(max(c0, c1), c2));
    let c = crowd.lod_sphere;
    let center = vec3<f32>(
        r[0].x * c.x + r[0].y * c.y + r[0].z * c.z + r[0].w,
        r[1].x * c.x + r[1].y * c.y + r[1].z * c.z + r[1].w,
        r[2].x * c.x + r[2].y * c.y + r[2].z * c.z + r[2].w,
    );
    let m4 = view.view_proj;
    let w = vec4<f32>(m4[0].w, m4[1].w, m4[2].w, m4[3].w);
    let w_length = sqrt(w.x * w.x + w.y * w.y + w.z * w.z);
    let nearest = w.x * center.x + w.y * center.y + w.z * center.z + w.w
        - c.w * stretch * w_length;
    var level = 0u;
    for (var l = 1u; l < min(crowd.levels, MAX_LEVELS); l++) {
        if level_error(l) * stretch * scale <= nearest {
            level = l;
        }
    }
    return level;
}

fn visible(m: Member) -> bool {
    var lo = m.bounds_min;
    var hi = m.bounds_max;
    if (m.effects & MEMBER_SHELL) != 0u {
        lo -= vec3<f32>(SHELL_OFFSET);
        hi += vec3<f32>(SHELL_OFFSET);
    }
    let c = vec4<f32>((lo + hi) * 0.5, 1.0);
    let e = (hi - lo) * 0.5;
    let center = vec3<f32>(dot(m.rows[0], c), dot(m.rows[1], c), dot(m.rows[2], c));
    let extent = vec3<f32>(
        dot(abs(m.rows[0].xyz), e),
        dot(abs(m.rows[1].xyz), e),
        dot(abs(m.rows[2].xyz), e),
    );
    if box_in_view(center, extent) {
        return true;
    }
    let casts = (view.flags.x & VIEW_SHADOWS) != 0u
        && (m.effects & (EFFECT_NO_SHADOW | MEMBER_TRANSLUCENT)) == 0u;
    if !casts {
        return false;
    }
    // The shadow: the world box's corners projected onto the plane.
    var s_lo = vec3<f32>(3.4e38);
    var s_hi = vec3<f32>(-3.4e38);
    for (var k = 0u; k < 8u; k++) {
        let sign = vec3<f32>(
            select(-1.0, 1.0, (k & 1u) != 0u),
            select(-1.0, 1.0, (k & 2u) != 0u),
            select(-1.0, 1.0, (k & 4u) != 0u),
        );
        let p = view.shadow_proj * vec4<f32>(center + extent * sign, 1.0);
        let q = p.xyz / p.w;
        s_lo = min(s_lo, q);
        s_hi = max(s_hi, q);
    }
    return box_in_view((s_lo + s_hi) * 0.5, (s_hi - s_lo) * 0.5);
}


// A member's place word: its main bucket (bits 0-3) and rank among its
// workgroup's members of that bucket (bits 4-9), whether it is drawn
// (PLACED_MAIN), and whether it has a shell (PLACED_SHELL) with its rank
// among the workgroup's shells (bits 12-17).
const PLACED_MAIN: u32 = 0x400u;
const PLACED_SHELL: u32 = 0x800u;

fn main_bucket(effects: u32, level: u32) -> u32 {
    if (effects & MEMBER_TRANSLUCENT) != 0u {
        return TRANSLUCENT;
    }
    return opaque_at(level, (effects & MEMBER_MIRRORED) != 0u);
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
            level = detail_level(m);
            main = main_bucket(m.effects, level);
            mine[main] = 1u;
            shell = (m.effects & MEMBER_SHELL) != 0u;
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

// The extra record (md2.wgsl's Md2ExtraIn, written as an InstanceOut: the
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
    if (m.effects & MEMBER_FADING) != 0u {
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
    if (m.effects & MEMBER_FADING) != 0u {
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

fn visible_in(r: u32) -> u32 {
    return work[(TRANSLUCENT + r) * 5u + 1u];
}

fn load_key(r: u32, i: u32) -> vec2<u32> {
    let at = crowd.sort[r] + 2u * i;
    return vec2<u32>(work[at], work[at + 1u]);
}

fn store_key(r: u32, i: u32, key: vec2<u32>) {
    let at = crowd.sort[r] + 2u * i;
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
    // Workgroup-uniform, so returning before the barriers is allowed.
    if first >= crowd.sort_size[r] {
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
    if t >= crowd.sort_size[r] / 2u {
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
    let source = crowd.sort[2u + r] + rank;
    out_records[to] = out_records[source];
    if (frame.flags & FRAME_EXTRA) != 0u {
        out_records[extra_base() + to] = out_records[extra_base() + source];
    }
}
