// md2-wgpu: the crowd's clocks (src/anim/clock.rs is the CPU reference).
//
// Times are integer ticks (2^20 a second) in two's-complement 64 bits, split
// in u32 words. A clip's position is (now - start) * rate frames. The part
// that matters, the position modulo the clip's length (looping) or its
// fraction (one-shot), is computed exactly in integers as frac(dt * step),
// where `step` is the position gained per tick (divided by the length for
// looping clips) as a 96-bit fixed-point fraction: no f32 rounding grows
// with the clock, so a crowd that has run for years samples as precisely as
// on its first frame.


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
fn fade_weight(index: u32, now: vec2<u32>) -> f32 {
    let fade = members[index * MEMBER_VEC4S + 7u];
    let since = sub64(now, fade.xy);
    if is_negative(since) {
        return 0.0;
    }
    let ticks = fade.z;
    if ticks == 0u || since.y != 0u || since.x >= ticks {
        return 1.0;
    }
    let u = f32(since.x) / f32(ticks);
    return u * u * (3.0 - 2.0 * u);
}
