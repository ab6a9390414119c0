//! How values become the words the GPU reads: colour channels as unorm8,
//! intensities as f16. The shaders decode them (`unpack4x8unorm`,
//! `md2_half_to_f32`); these encode exactly what those decode.

/// A colour channel as the shader's `Unorm8x4` reads it: clamped to
/// `[0, 1]`, scaled to 255 and rounded half up, NaN as 0. The same byte as
/// `(c.clamp(0.0, 1.0) * 255.0).round() as u8` for every `f32` (checked),
/// without the libm `roundf` call that baseline x86-64 (no SSE4.1) makes for
/// `round`: four per instance were a sixth of `prepare`'s instructions in
/// the crowd benchmark.
#[inline]
pub fn unorm8(c: f32) -> u8 {
    let x = c.clamp(0.0, 1.0) * 255.0;
    // Truncates; NaN gives 0. `x - whole` is exact: `whole <= x < 2 * whole`
    // from 1 up, and `whole` is 0 below.
    let whole = x as u8;
    whole + u8::from(x - f32::from(whole) >= 0.5)
}

/// 1.0 as f16 bits.
pub(crate) const F16_ONE: u16 = 0x3c00;
/// The largest finite f16.
pub(crate) const F16_MAX: f32 = 65504.0;

/// `x` in `[1, 65504]` as f16 bits, rounded to nearest (ties to even).
pub(crate) fn f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let exponent = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mantissa = bits & 0x7f_ffff;
    // 13 low bits fall away; round half to even, carrying into the exponent.
    let round = mantissa & 0x1fff;
    let mut half = ((exponent as u32) << 10) | (mantissa >> 13);
    if round > 0x1000 || (round == 0x1000 && half & 1 == 1) {
        half += 1;
    }
    half.min(0x7bff) as u16
}

/// The value of normal f16 bits (an exponent field above 0).
pub(crate) fn f16_value(half: u16) -> f32 {
    let exponent = i32::from(half >> 10) - 15;
    let mantissa = f32::from(half & 0x3ff) / 1024.0;
    (1.0 + mantissa) * 2f32.powi(exponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unorm8_rounds_as_f32_round_does() {
        let round = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
        let mut inputs = vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, f32::MAX];
        inputs.extend((-128..=1152).map(|i| i as f32 / 1024.0));
        // Around every rounding boundary, where a sloppy conversion slips.
        for k in 0..=255u8 {
            let half = (f32::from(k) + 0.5) / 255.0;
            let (mut below, mut above) = (half, half);
            for _ in 0..4 {
                inputs.extend([below, above]);
                (below, above) = (below.next_down(), above.next_up());
            }
        }
        for c in inputs {
            assert_eq!(unorm8(c), round(c), "channel {c:?}");
        }
    }

    #[test]
    fn every_f16_from_one_up_survives_the_round_trip() {
        for half in F16_ONE..=0x7bff {
            assert_eq!(f16_bits(f16_value(half)), half);
        }
        assert_eq!(f16_bits(F16_MAX * 2.0), 0x7bff);
    }
}
