//! A clip clock as the crowd's compute pass runs it
//! (`shaders/crowd/types.wgsl`'s `Clock`, `shaders/crowd/clock.wgsl`):
//! integer ticks and a 96-bit fixed-point rate, so the GPU's position in a
//! clip is exact however long the application has run (see the `clock`
//! room's docs, `md2_wgpu::anim::clock`, for why). The encoding is the wire
//! format's; the clip and its clock are the animation room's.

/// Ticks per second of the crowd's clock: 2²⁰.
pub const TICKS_PER_SECOND: f64 = 1_048_576.0;

/// A clip clock in the crowd's integer form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(not(feature = "wgpu"), allow(dead_code))]
pub(crate) struct GpuClock {
    /// Position per tick as a 96-bit fraction: of a loop (looping clips) or
    /// of a frame (one-shot), low word first.
    pub step: [u32; 3],
    pub looping: bool,
    /// The clip cannot advance: it holds its first frame.
    pub hold: bool,
    pub start: i64,
    pub first: u32,
    pub len: u32,
    /// Frames per second, `fps × speed` (bits of an f32).
    pub rate_bits: u32,
}

/// What a clock is made of: a clip of `len` frames from `first` at `fps`,
/// `looping` or not, started at tick `start` and played at `speed`.
#[cfg_attr(not(feature = "wgpu"), allow(dead_code))]
pub(crate) struct ClockParts {
    pub start: i64,
    pub speed: f32,
    pub fps: f32,
    pub first: u32,
    pub len: u64,
    pub looping: bool,
}

impl GpuClock {
    /// The clock in the crowd's integer form; `None` where the speed is not
    /// finite.
    #[cfg_attr(not(feature = "wgpu"), allow(dead_code))]
    pub(crate) fn encode(parts: ClockParts) -> Option<GpuClock> {
        if !parts.speed.is_finite() {
            return None;
        }
        let fps = f64::from(parts.fps);
        let hold = parts.len == 1 || !(fps.is_finite() && fps > 0.0);
        // fps × speed is exact in f64 (two 24-bit mantissas).
        let rate = fps * f64::from(parts.speed);
        let step = if hold {
            [0; 3]
        } else if parts.looping {
            fraction_96(rate / (parts.len as f64 * TICKS_PER_SECOND))
        } else {
            fraction_96(rate / TICKS_PER_SECOND)
        };
        Some(GpuClock {
            step,
            looping: parts.looping,
            hold,
            start: parts.start,
            first: parts.first,
            len: u32::try_from(parts.len).unwrap_or(u32::MAX),
            rate_bits: if hold { 0 } else { (rate as f32).to_bits() },
        })
    }
}

/// `x` modulo 1 as a 96-bit two's-complement fraction (a negative `x` gives
/// `1 + frac(x)`), low word first. Only the fraction matters: the clip's
/// position is taken modulo whole loops or frames anyway.
#[cfg_attr(not(feature = "wgpu"), allow(dead_code))]
fn fraction_96(x: f64) -> [u32; 3] {
    // Both steps are exact: subtracting the integer part, scaling by 2^96.
    let frac = x - x.trunc();
    let scaled = (frac * 2f64.powi(96)).round() as i128;
    let bits = (scaled as u128) & ((1u128 << 96) - 1);
    [bits as u32, (bits >> 32) as u32, (bits >> 64) as u32]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_wrap_negative_values() {
        assert_eq!(fraction_96(0.5), [0, 0, 0x8000_0000]);
        assert_eq!(fraction_96(-0.25), [0, 0, 0xc000_0000]);
        assert_eq!(fraction_96(3.75), [0, 0, 0xc000_0000]);
        assert_eq!(fraction_96(2f64.powi(-96)), [1, 0, 0]);
    }

    #[test]
    fn a_clock_that_cannot_advance_holds_and_a_bad_speed_is_none() {
        let parts = |len, fps, speed| ClockParts {
            start: 5,
            speed,
            fps,
            first: 3,
            len,
            looping: true,
        };
        let one = GpuClock::encode(parts(1, 10.0, 1.0)).unwrap();
        assert!(one.hold && one.step == [0; 3] && one.rate_bits == 0);
        assert!(GpuClock::encode(parts(4, 0.0, 1.0)).unwrap().hold);
        assert_eq!(GpuClock::encode(parts(4, 10.0, f32::NAN)), None);
        // 10 frames a second over a 4-frame loop: 2.5 loops a second.
        let run = GpuClock::encode(parts(4, 10.0, 1.0)).unwrap();
        assert_eq!(run.step, fraction_96(2.5 / TICKS_PER_SECOND));
        assert_eq!((run.start, run.first, run.len), (5, 3, 4));
        assert_eq!(f32::from_bits(run.rate_bits), 10.0);
    }
}
