//! The little 3D math the demo needs, in `f64` and in plain IEEE arithmetic
//! only (`+ − × ÷ √`, no platform `sin`), so the model's bytes are the same
//! on every machine: a platform libm that differs in the last bit would move
//! a quantised vertex or a frame's scale and change the pinned hash.

use std::f64::consts::{FRAC_PI_2, PI};

/// A point or direction.
pub(crate) type V3 = [f64; 3];

pub(crate) fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub(crate) fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn mul(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

pub(crate) fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub(crate) fn length(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// `a` scaled to unit length; zero stays zero.
pub(crate) fn normalize(a: V3) -> V3 {
    let len = length(a);
    if len > 0.0 { mul(a, 1.0 / len) } else { a }
}

pub(crate) fn lerp(a: V3, b: V3, t: f64) -> V3 {
    add(a, mul(sub(b, a), t))
}

/// `(sin x, cos x)` from a quadrant reduction and Taylor polynomials:
/// accurate to about 1e-15 for the angles of a pose, and bit-identical
/// everywhere.
pub(crate) fn sin_cos(x: f64) -> (f64, f64) {
    let quadrant = (x / FRAC_PI_2).round();
    let r = x - quadrant * FRAC_PI_2;
    let r2 = r * r;
    // |r| <= π/4: the first omitted terms are below 1e-17.
    let mut s = 0.0;
    let mut c = 0.0;
    for k in (0..9).rev() {
        let n = 2.0 * k as f64;
        s = 1.0 - s * r2 / ((n + 2.0) * (n + 3.0));
        c = 1.0 - c * r2 / ((n + 1.0) * (n + 2.0));
    }
    let s = s * r;
    match (quadrant as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// Degrees to radians.
pub(crate) fn rad(degrees: f64) -> f64 {
    degrees * (PI / 180.0)
}

/// Smoothstep on `[0, 1]`: eases keyframe blends in and out.
pub(crate) fn ease(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A unit quaternion `[x, y, z, w]`: a joint's rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Quat(pub(crate) [f64; 4]);

impl Quat {
    pub(crate) const IDENTITY: Quat = Quat([0.0, 0.0, 0.0, 1.0]);

    /// A rotation by `degrees` about a unit `axis`, right-handed.
    pub(crate) fn axis_angle(axis: V3, degrees: f64) -> Quat {
        let (s, c) = sin_cos(rad(degrees) * 0.5);
        Quat([axis[0] * s, axis[1] * s, axis[2] * s, c])
    }

    pub(crate) fn x(degrees: f64) -> Quat {
        Quat::axis_angle([1.0, 0.0, 0.0], degrees)
    }

    pub(crate) fn y(degrees: f64) -> Quat {
        Quat::axis_angle([0.0, 1.0, 0.0], degrees)
    }

    pub(crate) fn z(degrees: f64) -> Quat {
        Quat::axis_angle([0.0, 0.0, 1.0], degrees)
    }

    /// The shortest rotation taking unit `from` to unit `to`.
    pub(crate) fn from_to(from: V3, to: V3) -> Quat {
        let d = dot(from, to);
        if d < -0.999_999 {
            // Opposite: any axis at right angles will do; pick one that keeps
            // a limb in the body's side plane.
            let axis = normalize(cross(from, [1.0, 0.0, 0.0]));
            let axis = if length(axis) > 0.0 {
                axis
            } else {
                [0.0, 1.0, 0.0]
            };
            return Quat([axis[0], axis[1], axis[2], 0.0]);
        }
        let c = cross(from, to);
        Quat([c[0], c[1], c[2], 1.0 + d]).normalized()
    }

    pub(crate) fn normalized(self) -> Quat {
        let q = self.0;
        let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
        Quat([q[0] / len, q[1] / len, q[2] / len, q[3] / len])
    }

    pub(crate) fn conjugate(self) -> Quat {
        let q = self.0;
        Quat([-q[0], -q[1], -q[2], q[3]])
    }

    /// `self` after `other`: rotating by the product rotates by `other`
    /// first.
    pub(crate) fn then_after(self, other: Quat) -> Quat {
        let [ax, ay, az, aw] = self.0;
        let [bx, by, bz, bw] = other.0;
        Quat([
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ])
    }

    /// The rotation as a 3×3 matrix, rows.
    pub(crate) fn matrix(self) -> [V3; 3] {
        let [x, y, z, w] = self.0;
        [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - w * z),
                2.0 * (x * z + w * y),
            ],
            [
                2.0 * (x * y + w * z),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - w * x),
            ],
            [
                2.0 * (x * z - w * y),
                2.0 * (y * z + w * x),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ]
    }

    pub(crate) fn rotate(self, v: V3) -> V3 {
        let m = self.matrix();
        [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
    }

    /// Normalised linear blend, along the shorter way round.
    pub(crate) fn nlerp(self, other: Quat, t: f64) -> Quat {
        let (a, b) = (self.0, other.0);
        let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
        let s = if d < 0.0 { -1.0 } else { 1.0 };
        let mut q = [0.0; 4];
        for i in 0..4 {
            q[i] = a[i] + (s * b[i] - a[i]) * t;
        }
        Quat(q).normalized()
    }
}

/// A rigid transform: `x ↦ rotation · x + translation`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rigid {
    pub(crate) rotation: Quat,
    pub(crate) translation: V3,
}

impl Rigid {
    pub(crate) const IDENTITY: Rigid = Rigid {
        rotation: Quat::IDENTITY,
        translation: [0.0; 3],
    };

    /// A rotation about `pivot`.
    pub(crate) fn about(pivot: V3, rotation: Quat) -> Rigid {
        Rigid {
            rotation,
            translation: sub(pivot, rotation.rotate(pivot)),
        }
    }

    pub(crate) fn apply(&self, p: V3) -> V3 {
        add(self.rotation.rotate(p), self.translation)
    }

    /// The transform that undoes `self`.
    pub(crate) fn inverse(&self) -> Rigid {
        let rotation = self.rotation.conjugate();
        Rigid {
            rotation,
            translation: mul(rotation.rotate(self.translation), -1.0),
        }
    }

    /// `self` after `inner`.
    pub(crate) fn compose(&self, inner: &Rigid) -> Rigid {
        Rigid {
            rotation: self.rotation.then_after(inner.rotation).normalized(),
            translation: self.apply(inner.translation),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sin_cos_matches_the_platform_closely() {
        let mut x = -20.0;
        while x < 20.0 {
            let (s, c) = sin_cos(x);
            assert!((s - x.sin()).abs() < 1e-14, "sin {x}");
            assert!((c - x.cos()).abs() < 1e-14, "cos {x}");
            x += 0.0137;
        }
    }

    #[test]
    fn quaternions_rotate_right_handed_and_compose() {
        let q = Quat::z(90.0);
        let v = q.rotate([1.0, 0.0, 0.0]);
        assert!((v[0]).abs() < 1e-12 && (v[1] - 1.0).abs() < 1e-12);
        let both = Quat::x(90.0).then_after(Quat::z(90.0));
        let v = both.rotate([1.0, 0.0, 0.0]);
        // z turns +X to +Y, then x turns +Y to +Z.
        assert!((v[2] - 1.0).abs() < 1e-12, "{v:?}");
        let f = Quat::from_to([0.0, 0.0, -1.0], [1.0, 0.0, 0.0]);
        let v = f.rotate([0.0, 0.0, -1.0]);
        assert!((v[0] - 1.0).abs() < 1e-12, "{v:?}");
        let r = Rigid::about([0.0, 0.0, 5.0], Quat::y(90.0));
        let p = r.apply([0.0, 0.0, 6.0]);
        assert!(
            (p[0] - 1.0).abs() < 1e-12 && (p[2] - 5.0).abs() < 1e-12,
            "{p:?}"
        );
    }
}
