// md2-wgpu: the resident crowd's compute pass.
//
// Every member of a crowd lives on the GPU (`Member`): its transform, what it
// plays and since when, an optional crossfade, skin, tint and effects. Per
// view and frame, `cs_reset` clears the draw counts and `cs_cull` turns every
// member's clocks into (frame a, frame b, t) and a crossfade weight, tests its
// conservative bounds against the view's frustum and appends the visible ones
// to the records the vertex shader reads (md2.wgsl's InstanceIn, here
// `InstanceOut`), counting them into DrawIndexedIndirectArgs.
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

// The same View as md2.wgsl (the camera the view draws with).
struct View {
    view_proj: mat4x4<f32>,
    shadow_proj: mat4x4<f32>,
    towards_light: vec4<f32>,
    light_color: vec4<f32>,
    ambient: vec4<f32>,
    shadow_color: vec4<f32>,
};

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

struct Member {
    // Model (Quake axes) to world, three rows.
    rows: array<vec4<f32>, 3>,
    // Model-space box of every frame either clip can show.
    bounds_min: vec3<f32>,
    skin_intensity: u32,
    bounds_max: vec3<f32>,
    tint: u32,
    // When the crossfade into `secondary` starts (ticks) and how long it takes.
    fade_start: vec2<u32>,
    fade_ticks: u32,
    // md2.wgsl's EFFECT_* bits, plus MEMBER_* bits.
    effects: u32,
    primary: Clock,
    secondary: Clock,
};

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
    index_count: u32,
    // CROWD_* bits.
    flags: u32,
    _pad: u32,
    // First record of each of the six buckets in the output buffer:
    // opaque, opaque mirrored, translucent, translucent mirrored, shell,
    // shell mirrored.
    bases: array<vec4<u32>, 2>,
};

const CROWD_CULL: u32 = 1u;

struct CrowdFrame {
    // The view's time, in ticks.
    now: vec2<u32>,
    // FRAME_* bits.
    flags: u32,
    _pad: u32,
};

// The view draws planar shadows: a member's shadow can be in view when the
// member is not.
const FRAME_SHADOWS: u32 = 1u;

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

@group(0) @binding(0) var<uniform> view: View;

@group(1) @binding(0) var<storage, read> members: array<Member>;
@group(1) @binding(1) var<uniform> crowd: CrowdParams;

@group(2) @binding(0) var<uniform> frame: CrowdFrame;
@group(2) @binding(1) var<storage, read_write> out_records: array<InstanceOut>;
// Six DrawIndexedIndirectArgs, five words each.
@group(2) @binding(2) var<storage, read_write> draw_args: array<atomic<u32>>;

const WORKGROUP: u32 = 64u;
const BUCKETS: u32 = 6u;
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

// Clip::sample_f64((now - start) * speed), in integers where it matters.
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
    let casts = (frame.flags & FRAME_SHADOWS) != 0u
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

fn append(bucket: u32, record: InstanceOut) {
    let slot = atomicAdd(&draw_args[bucket * 5u + 1u], 1u);
    out_records[crowd.bases[bucket / 4u][bucket % 4u] + slot] = record;
}

// Sets every bucket's draw to (index_count, 0 instances, 0, 0, 0).
@compute @workgroup_size(8)
fn cs_reset(@builtin(local_invocation_index) i: u32) {
    if i < BUCKETS {
        atomicStore(&draw_args[i * 5u], crowd.index_count);
        atomicStore(&draw_args[i * 5u + 1u], 0u);
        atomicStore(&draw_args[i * 5u + 2u], 0u);
        atomicStore(&draw_args[i * 5u + 3u], 0u);
        atomicStore(&draw_args[i * 5u + 4u], 0u);
    }
}

@compute @workgroup_size(64)
fn cs_cull(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let index = id.y * groups.x * WORKGROUP + id.x;
    if index >= crowd.count {
        return;
    }
    let m = members[index];
    if (crowd.flags & CROWD_CULL) != 0u && !visible(m) {
        return;
    }
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
    let mirrored = select(0u, 1u, (m.effects & MEMBER_MIRRORED) != 0u);
    let translucent = select(0u, 2u, (m.effects & MEMBER_TRANSLUCENT) != 0u);
    append(translucent + mirrored, record);
    if (m.effects & MEMBER_SHELL) != 0u {
        append(4u + mirrored, record);
    }
}
