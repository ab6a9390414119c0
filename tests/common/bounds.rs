//! How far two conforming evaluations of the pose's `f32` arithmetic can
//! differ, derived from WGSL's accuracy rules rather than from one
//! adapter's bits:
//!
//! - `+`, `-`, `*` are correctly rounded: a result is within `U · |x|` of
//!   the exact value (`U` = 2⁻²⁴, half an ULP relative);
//! - `a * b + c` may be fused (one rounding) or not (two): the unfused
//!   bound covers both;
//! - `x / y` is within 2.5 ULP; `inverseSqrt` within 2 ULP; `sqrt` inherits
//!   `1 / inverseSqrt`'s (2 ULP, then a division's 2.5);
//! - an operation on exact inputs whose exact result is representable
//!   gives that result whatever is fused: `0 * x`, `x + 0`, a table value
//!   copied, small integers. Where every step is exact the bound is 0 and
//!   the comparison asks for equal bits.
//!
//! [`Approx`] carries a value (computed in `f64` from the `f32` inputs) and a
//! bound on how far any conforming `f32` evaluation can be from it; two
//! evaluations (the GPU's and the CPU reference's, which is one of the
//! conforming ones) differ by at most twice the bound.

use md2_wgpu::anim::Pose;
use md2_wgpu::model::{FrameData, KeyframeModel};

/// Half an `f32` ULP, relative: the rounding of a correctly rounded result.
pub const U: f64 = 1.0 / 16_777_216.0;
/// An `f32` ULP of `x` is at most `2 · U · |x|`.
const ULP: f64 = 2.0 * U;

/// A value and a bound on any conforming evaluation's distance from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Approx {
    pub value: f64,
    pub error: f64,
}

fn representable(x: f64) -> bool {
    (x as f32) as f64 == x
}

impl Approx {
    /// An input the shader reads as it is.
    pub fn exact(x: f32) -> Approx {
        Approx {
            value: f64::from(x),
            error: 0.0,
        }
    }

    /// A correctly rounded result `value` of inputs off by `carried`: exact
    /// where everything is.
    fn rounded(value: f64, carried: f64) -> Approx {
        let rounding = if carried == 0.0 && representable(value) {
            0.0
        } else {
            U * (value.abs() + carried)
        };
        Approx {
            value,
            error: carried + rounding,
        }
    }

    /// `self / other`: 2.5 ULP, never promised exact.
    fn quotient(self, other: Approx) -> Approx {
        let value = self.value / other.value;
        let low = other.value.abs() - other.error;
        let carried = if low > 0.0 {
            (self.error + value.abs() * other.error) / low
        } else {
            f64::INFINITY
        };
        Approx {
            value,
            error: carried + 2.5 * ULP * (value.abs() + carried),
        }
    }

    /// `sqrt(self)`: `1 / inverseSqrt`, 2 ULP then 2.5 ULP.
    pub fn sqrt(self) -> Approx {
        let value = self.value.max(0.0).sqrt();
        let low = (self.value - self.error).max(0.0).sqrt();
        // |√x − √y| ≤ |x − y| / (√x + √y).
        let carried = if low + value > 0.0 {
            self.error / (low + value)
        } else {
            self.error.sqrt()
        };
        Approx {
            value,
            error: carried + (2.0 + 2.5) * ULP * 1.0001 * (value + carried),
        }
    }

    /// `a + (b - a) * t`, the pose's lerp.
    pub fn lerp(a: Approx, b: Approx, t: Approx) -> Approx {
        a + (b - a) * t
    }

    /// The largest distance between two conforming evaluations.
    pub fn spread(self) -> f64 {
        2.0 * self.error
    }
}

impl std::ops::Add for Approx {
    type Output = Approx;
    fn add(self, other: Approx) -> Approx {
        Approx::rounded(self.value + other.value, self.error + other.error)
    }
}

impl std::ops::Sub for Approx {
    type Output = Approx;
    fn sub(self, other: Approx) -> Approx {
        Approx::rounded(self.value - other.value, self.error + other.error)
    }
}

impl std::ops::Mul for Approx {
    type Output = Approx;
    fn mul(self, other: Approx) -> Approx {
        let carried = self.value.abs() * other.error
            + other.value.abs() * self.error
            + self.error * other.error;
        Approx::rounded(self.value * other.value, carried)
    }
}

impl std::ops::Div for Approx {
    type Output = Approx;
    fn div(self, other: Approx) -> Approx {
        self.quotient(other)
    }
}

type Vec3 = [Approx; 3];

fn lerp3(a: Vec3, b: Vec3, t: Approx) -> Vec3 {
    [0, 1, 2].map(|k| Approx::lerp(a[k], b[k], t))
}

/// A blend factor as the pose reads it (`PoseWords::of`): clamped to
/// [0, 1], NaN as 0.
fn unit(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// How far apart two conforming evaluations of one vertex's pose can be:
/// the largest over its components.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VertexBound {
    pub position: f32,
    pub normal: f32,
}

/// `md2_pose_vertex`'s arithmetic for vertex `i` of `model` in `pose`,
/// pushed `push` along the normal, with its bound (the model's frame
/// parameters and the normal table of its word as the GPU reads them: the
/// padded table's entry, or a wide vertex's two products of table
/// entries, each rounded once).
pub fn pose_bound(model: &KeyframeModel, pose: &Pose, push: f32, i: usize) -> VertexBound {
    let table = md2_wgpu::contract::normal_table();
    let angles = md2_wgpu::model::lat_long_table();
    let decode = |frame: u32| -> (Vec3, Vec3) {
        let (f, grid, normal) = match model.frame_data(frame) {
            FrameData::Packed4(f, v) => {
                let n = table[usize::from(v[i].normal_index)];
                let normal = [0, 1, 2].map(|k| Approx::exact(n[k]));
                (f, v[i].position.map(f32::from), normal)
            }
            FrameData::Wide8(f, v) => {
                let [lng, lat] = v[i].normal.to_le_bytes();
                let [cos_lat, sin_lat] = angles[usize::from(lat)].map(Approx::exact);
                let [cos_lng, sin_lng] = angles[usize::from(lng)].map(Approx::exact);
                let normal = [cos_lat * sin_lng, sin_lat * sin_lng, cos_lng];
                (f, v[i].position.map(f32::from), normal)
            }
            other => panic!("a word the bounds do not know: {other:?}"),
        };
        let position = [0, 1, 2].map(|k| {
            Approx::exact(grid[k]) * Approx::exact(f.scale[k]) + Approx::exact(f.translate[k])
        });
        (position, normal)
    };
    let (t, t2, w) = (
        Approx::exact(unit(pose.primary.t)),
        Approx::exact(unit(pose.secondary.t)),
        Approx::exact(unit(pose.weight)),
    );
    let (pa, na) = decode(pose.primary.frame_a);
    let (pb, nb) = decode(pose.primary.frame_b);
    let mut p = lerp3(pa, pb, t);
    let mut n = lerp3(na, nb, t);
    if w.value > 0.0 {
        let (pc, nc) = decode(pose.secondary.frame_a);
        let (pd, nd) = decode(pose.secondary.frame_b);
        let p2 = lerp3(pc, pd, t2);
        let n2 = lerp3(nc, nd, t2);
        p = lerp3(p, p2, w);
        n = lerp3(n, n2, w);
    }
    let len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    let threshold = f64::from(md2_wgpu::anim::reference::MIN_NORMAL_LENGTH_SQUARED);
    let unit_normal: Option<Vec3> = if len2.value - len2.error > threshold {
        let length = len2.sqrt();
        Some(n.map(|c| c / length))
    } else if len2.value + len2.error <= threshold {
        // The fallback: frame a's table normal, copied.
        Some(na)
    } else {
        // Either branch may be taken: any two unit vectors.
        None
    };
    let Some(normal) = unit_normal else {
        return VertexBound {
            position: (p.iter().map(|c| c.spread()).fold(0.0, f64::max)
                + 2.0 * f64::from(push.abs())) as f32,
            normal: 2.0,
        };
    };
    let pushed: Vec3 = [0, 1, 2].map(|k| p[k] + normal[k] * Approx::exact(push));
    let widest = |v: &Vec3| v.iter().map(|c| c.spread()).fold(0.0, f64::max);
    // Rounded up to the next f32, so the comparison in f32 holds it.
    let up = |x: f64| {
        let f = x as f32;
        if f64::from(f) < x { f.next_up() } else { f }
    };
    VertexBound {
        position: up(widest(&pushed)),
        normal: up(widest(&normal)),
    }
}

/// [`pose_bound`] for every vertex.
pub fn pose_bounds(model: &KeyframeModel, pose: &Pose, push: f32) -> Vec<VertexBound> {
    (0..model.vertex_count())
        .map(|i| pose_bound(model, pose, push, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_steps_stay_exact_and_rounded_ones_do_not() {
        let a = Approx::exact(3.0);
        let b = Approx::exact(0.5);
        assert_eq!((a * b).error, 0.0);
        assert_eq!((a + b).error, 0.0);
        assert_eq!(
            Approx::lerp(a, Approx::exact(7.0), Approx::exact(0.0)).error,
            0.0
        );
        let third = Approx::exact(0.1) * Approx::exact(3.0);
        assert!(third.error > 0.0 && third.error < 1e-7);
        // A product a fused multiply-add may keep unrounded: both
        // evaluations within the bound.
        let (x, y, z) = (0.1f32, 3.0f32, 0.7f32);
        let bound = Approx::exact(x) * Approx::exact(y) + Approx::exact(z);
        let fused = x.mul_add(y, z);
        let unfused = x * y + z;
        assert!((f64::from(fused) - bound.value).abs() <= bound.error);
        assert!((f64::from(unfused) - bound.value).abs() <= bound.error);
        assert!((f64::from(fused) - f64::from(unfused)).abs() <= bound.spread());
    }
}
