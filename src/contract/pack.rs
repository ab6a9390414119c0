//! The words a record is made of, whatever describes it: a pose's two
//! words as `md2_pose_vertex` takes them, a transform's rows, a tint's
//! RGBA8 and intensity, an unmoved previous frame. Packing what the app
//! describes (an instance, its previous frame) into records is the
//! scene's (`scene/pack.rs`), a floor above: the contract names no type of
//! the rooms that use it.

use glam::Mat4;

use super::records::{ExtraRecord, InstanceRecord};
use super::words::{F16_MAX, F16_ONE, f16_bits, f16_value, unorm8};

/// A pose as `md2_pose_vertex(vertex, frames, lerp, push)` takes it: the
/// four frames (primary a and b, secondary a and b) and (t, secondary t,
/// weight), clamped to `[0, 1]` with NaN as 0, as the contract with the CPU
/// reference says.
///
/// ```
/// use md2_wgpu::{anim::FrameLerp, contract::PoseWords};
/// let words = PoseWords::of(&FrameLerp { frame_a: 3, frame_b: 4, t: 0.25 }.into());
/// assert_eq!(words.frames, [3, 4, 3, 4]);
/// assert_eq!(words.lerp, [0.25, 0.25, 0.0]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PoseWords {
    /// `frames`: `vec4<u32>`.
    pub frames: [u32; 4],
    /// `lerp`: `vec3<f32>`.
    pub lerp: [f32; 3],
}

/// The rows an instance record carries for `transform`: `transform ×`
/// [`QUAKE_TO_Y_UP`](crate::scene::QUAKE_TO_Y_UP) without its bottom row, what
/// `md2_world_position` and `md2_world_normal` take.
pub fn transform_rows(transform: &Mat4) -> [[f32; 4]; 3] {
    rows(transform)
}

/// The record's transform rows: `transform × QUAKE_TO_Y_UP`, which is a
/// column permutation ((x, y, z) in Quake axes reads the transform's
/// (z, x, y) columns), bottom row left out.
pub(crate) fn rows(t: &Mat4) -> [[f32; 4]; 3] {
    let cols = [t.z_axis, t.x_axis, t.y_axis, t.w_axis];
    let row = |i: usize| [cols[0][i], cols[1][i], cols[2][i], cols[3][i]];
    [row(0), row(1), row(2)]
}

/// Whether `transform` mirrors (negative determinant of its 3 × 3 part).
pub(crate) fn mirrors(transform: &Mat4) -> bool {
    glam::Mat3::from_mat4(*transform).determinant() < 0.0
}

/// The tint as the record carries it: RGBA8 (colour divided by its
/// brightest channel where that exceeds 1) and that channel as an f16
/// intensity (1 otherwise). NaN reads as 0 and +∞ as the largest value: the
/// repair [`InstancePolicy::Clamp`](crate::scene::InstancePolicy::Clamp) makes; callers refuse non-finite tints
/// before they get here otherwise.
pub(crate) fn tint_words(tint: [f32; 4]) -> ([u8; 4], u16) {
    let finite = |x: f32| if x.is_nan() { 0.0 } else { x.max(0.0) };
    let [r, g, b, a] = tint.map(finite);
    let brightest = r.max(g).max(b).min(F16_MAX);
    let (scale, intensity) = if brightest > 1.0 {
        let half = f16_bits(brightest);
        (1.0 / f16_value(half), half)
    } else {
        (1.0, F16_ONE)
    };
    (
        [
            unorm8(r * scale),
            unorm8(g * scale),
            unorm8(b * scale),
            unorm8(a),
        ],
        intensity,
    )
}

/// The extra record of an instance whose previous frame showed what its
/// record shows now (no motion but the camera's): index `index` in its
/// batch, id `id`.
pub(crate) fn unmoved_extra(record: &InstanceRecord, index: usize, id: u32) -> ExtraRecord {
    ExtraRecord {
        rows: record.rows,
        frames: record.frames,
        lerp: [record.t, record.t2, record.weight],
        index: index as u32,
        id,
        _pad: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bright_tints_keep_their_ratio_and_brightness() {
        assert_eq!(
            tint_words([1.0, 0.5, 0.0, 1.0]),
            ([255, 128, 0, 255], F16_ONE)
        );
        let (rgba, half) = tint_words([4.0, 2.0, 1.0, 0.5]);
        assert_eq!(half, 0x4400, "4.0 as f16");
        assert_eq!(rgba, [255, 128, 64, 128]);
        let (rgba, half) = tint_words([3.3, 0.0, f32::NAN, 1.0]);
        let back = f16_value(half);
        assert!((back - 3.3).abs() < 3.3 / 1024.0, "{back}");
        assert_eq!(rgba[0], 255);
        assert_eq!(tint_words([f32::INFINITY, 0.0, 0.0, 1.0]).1, 0x7bff);
        // Every f16 in [1, 65504] survives the round trip.
        for half in F16_ONE..=0x7bff {
            assert_eq!(f16_bits(f16_value(half)), half);
        }
    }
}
