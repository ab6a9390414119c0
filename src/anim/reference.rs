//! The CPU reference: decoding and interpolating frames exactly as the GPU
//! shader does, in `f32`.
//!
//! Every GPU test compares against these functions, and the benchmark uses
//! them as the CPU baseline (decode and interpolate every vertex every
//! frame, as Quake II, Yamagi and vkQuake2 do). The arithmetic is fixed:
//!
//! - position of vertex `i` in frame `f`: `p = xyz · scale_f + translate_f`
//!   per component (the packed bytes, or a wide vertex's 16-bit integers,
//!   as `f32`; multiply, then add);
//! - normal of a packed vertex: [`ANORMS`](crate::model::ANORMS)`[index]`,
//!   an index ≥ 162 read as
//!   [`FALLBACK_NORMAL_INDEX`](crate::model::FALLBACK_NORMAL_INDEX) (`[0, 0, 1]`):
//!   the padded [`normal_table`](crate::contract::normal_table) the GPU
//!   reads too; of a wide vertex: `(cos lat · sin lng, sin lat · sin lng,
//!   cos lng)`, each factor from
//!   [`lat_long_table`](crate::model::lat_long_table), which the GPU reads
//!   too ([`normal_from_lat_long`]);
//! - a [`FrameLerp`]: `p = pa + (pb − pa) · t`, `n = na + (nb − na) · t`;
//! - a [`Pose`]: `p = p1 + (p2 − p1) · w`, `n = n1 + (n2 − n1) · w`, with
//!   (p1, n1) from `primary` and (p2, n2) from `secondary`;
//! - `t` and `w` clamped to `[0, 1]`, NaN read as 0;
//! - the final normal is `n / length(n)` where `dot(n, n) > 1e-12`, else the
//!   table normal of `primary.frame_a`'s vertex: never NaN.
//!
//! [`interpolate`]`(lerp)` gives exactly [`blend`]`(Pose::from(lerp))`.
//! Output slices must hold exactly [`KeyframeModel::vertex_count`](crate::model::KeyframeModel::vertex_count) entries; the
//! frames and lengths are checked once, up front, and nothing is allocated.

use std::fmt;

use super::playback::{FrameLerp, POSE_FRAME_FIELDS, Pose};
use crate::contract::NORMALS;
use crate::model::{
    FrameData, FrameWord, KeyframeModel, PackedVertex, WideVertex, normal_from_lat_long,
};

/// Below this squared length a blended normal is replaced by the table
/// normal (the shader uses the same threshold).
pub const MIN_NORMAL_LENGTH_SQUARED: f32 = 1e-12;

/// Why a reference call was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReferenceError {
    /// A frame index is past the model's frames.
    FrameOutOfRange {
        /// Which input named it: `frame`, `frame_a`, `frame_b`, or one of
        /// [`fields::POSE_FRAMES`](crate::scene::fields::POSE_FRAMES) for a pose.
        field: &'static str,
        /// The index given.
        frame: u32,
        /// How many frames the model has.
        frame_count: u32,
    },
    /// An output slice does not have one entry per vertex.
    OutputLength {
        /// `positions` or `normals`.
        output: &'static str,
        /// Its length.
        len: usize,
        /// The model's vertex count.
        expected: usize,
    },
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReferenceError::FrameOutOfRange {
                field,
                frame,
                frame_count,
            } => write!(
                f,
                "{field} is frame {frame}, but the model has {frame_count} frames"
            ),
            ReferenceError::OutputLength {
                output,
                len,
                expected,
            } => write!(
                f,
                "{output} has {len} entries, but the model has {expected} vertices"
            ),
        }
    }
}

impl std::error::Error for ReferenceError {}

/// A vertex word the reference decodes: its grid coordinates as `f32` and
/// its table normal.
trait Word: Copy {
    fn grid(&self) -> [f32; 3];
    fn table_normal(&self) -> [f32; 3];
    /// A frame's vertices in this word.
    fn of(data: FrameData<'_>) -> &[Self];
}

impl Word for PackedVertex {
    #[inline(always)]
    fn grid(&self) -> [f32; 3] {
        self.position.map(f32::from)
    }

    #[inline(always)]
    fn table_normal(&self) -> [f32; 3] {
        NORMALS[self.normal_index as usize]
    }

    fn of(data: FrameData<'_>) -> &[Self] {
        data.packed()
    }
}

impl Word for WideVertex {
    #[inline(always)]
    fn grid(&self) -> [f32; 3] {
        self.position.map(f32::from)
    }

    #[inline(always)]
    fn table_normal(&self) -> [f32; 3] {
        normal_from_lat_long(self.normal)
    }

    fn of(data: FrameData<'_>) -> &[Self] {
        data.wide()
    }
}

/// One frame's vertices with its decode parameters.
struct FrameRef<'a, V> {
    vertices: &'a [V],
    scale: [f32; 3],
    translate: [f32; 3],
}

impl<V: Word> FrameRef<'_, V> {
    #[inline(always)]
    fn position(&self, v: &V) -> [f32; 3] {
        let (s, t, p) = (self.scale, self.translate, v.grid());
        [p[0] * s[0] + t[0], p[1] * s[1] + t[1], p[2] * s[2] + t[2]]
    }
}

/// Frame `frame` of `model`, whose word is `V`.
fn frame<'a, V: Word>(
    model: &'a KeyframeModel,
    field: &'static str,
    frame: u32,
) -> Result<FrameRef<'a, V>, ReferenceError> {
    let f = model
        .frames()
        .get(frame as usize)
        .ok_or(ReferenceError::FrameOutOfRange {
            field,
            frame,
            frame_count: model.frame_count(),
        })?;
    Ok(FrameRef {
        vertices: V::of(model.frame_data(frame)),
        scale: f.scale,
        translate: f.translate,
    })
}

/// Calls the generic function `$f` with the model's word as its type.
macro_rules! in_word {
    ($model:expr, $f:ident($($arg:expr),*)) => {
        match $model.frame_word() {
            FrameWord::Packed4 => $f::<PackedVertex>($($arg),*),
            FrameWord::Wide8 => $f::<WideVertex>($($arg),*),
        }
    };
}

fn check_outputs(
    model: &KeyframeModel,
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
) -> Result<(), ReferenceError> {
    let expected = model.vertex_count();
    for (output, len) in [("positions", positions.len()), ("normals", normals.len())] {
        if len != expected {
            return Err(ReferenceError::OutputLength {
                output,
                len,
                expected,
            });
        }
    }
    Ok(())
}

/// A blend factor as the shader reads it: clamped to `[0, 1]`, NaN as 0.
#[inline]
fn unit(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

#[inline(always)]
fn lerp3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// `n / length(n)`, or `fallback` where `n` is (nearly) zero.
#[inline(always)]
fn normalize_or(n: [f32; 3], fallback: [f32; 3]) -> [f32; 3] {
    let len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if len2 > MIN_NORMAL_LENGTH_SQUARED {
        let len = len2.sqrt();
        [n[0] / len, n[1] / len, n[2] / len]
    } else {
        fallback
    }
}

/// Decodes one frame: positions in model units and the table normals.
pub fn decode_frame(
    model: &KeyframeModel,
    frame_index: u32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), ReferenceError> {
    in_word!(model, decode_in(model, frame_index, positions, normals))
}

fn decode_in<V: Word>(
    model: &KeyframeModel,
    frame_index: u32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), ReferenceError> {
    let f = frame::<V>(model, "frame", frame_index)?;
    check_outputs(model, positions, normals)?;
    for ((v, p), n) in f.vertices.iter().zip(positions).zip(normals) {
        *p = f.position(v);
        *n = v.table_normal();
    }
    Ok(())
}

/// Interpolates between two frames: positions lerped, normals lerped and
/// renormalised (see the [module docs](self) for the exact arithmetic).
///
/// Gives exactly what [`blend`] gives for `Pose::from(lerp)`.
pub fn interpolate(
    model: &KeyframeModel,
    lerp: FrameLerp,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), ReferenceError> {
    in_word!(model, interpolate_in(model, lerp, positions, normals))
}

fn interpolate_in<V: Word>(
    model: &KeyframeModel,
    lerp: FrameLerp,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), ReferenceError> {
    let a = frame::<V>(model, "frame_a", lerp.frame_a)?;
    let b = frame::<V>(model, "frame_b", lerp.frame_b)?;
    check_outputs(model, positions, normals)?;
    lerp_frames(&a, &b, unit(lerp.t), positions, normals);
    Ok(())
}

fn lerp_frames<V: Word>(
    a: &FrameRef<'_, V>,
    b: &FrameRef<'_, V>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) {
    let vertices = a.vertices.iter().zip(b.vertices);
    for (((va, vb), p), n) in vertices.zip(positions).zip(normals) {
        let na = va.table_normal();
        let nb = vb.table_normal();
        *p = lerp3(a.position(va), b.position(vb), t);
        *n = normalize_or(lerp3(na, nb, t), na);
    }
}

/// The four-frame crossfade of a [`Pose`]: each [`FrameLerp`] interpolated,
/// then the two blended by the weight, then the normal renormalised (see the
/// [module docs](self) for the exact arithmetic).
pub fn blend(
    model: &KeyframeModel,
    pose: &Pose,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), ReferenceError> {
    in_word!(model, blend_in(model, pose, positions, normals))
}

fn blend_in<V: Word>(
    model: &KeyframeModel,
    pose: &Pose,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), ReferenceError> {
    let [fa1, fb1, fa2, fb2] = POSE_FRAME_FIELDS;
    let a1 = frame::<V>(model, fa1, pose.primary.frame_a)?;
    let b1 = frame::<V>(model, fb1, pose.primary.frame_b)?;
    let a2 = frame::<V>(model, fa2, pose.secondary.frame_a)?;
    let b2 = frame::<V>(model, fb2, pose.secondary.frame_b)?;
    check_outputs(model, positions, normals)?;
    let (t1, t2, w) = (
        unit(pose.primary.t),
        unit(pose.secondary.t),
        unit(pose.weight),
    );
    if w == 0.0 {
        // p1 + (p2 − p1) · 0 is p1 for any finite p2: the same numbers for
        // half the work (and what makes `interpolate` equal `blend`).
        lerp_frames(&a1, &b1, t1, positions, normals);
        return Ok(());
    }
    let primary = a1.vertices.iter().zip(b1.vertices);
    let secondary = a2.vertices.iter().zip(b2.vertices);
    for ((((va1, vb1), (va2, vb2)), p), n) in primary.zip(secondary).zip(positions).zip(normals) {
        let na1 = va1.table_normal();
        let p1 = lerp3(a1.position(va1), b1.position(vb1), t1);
        let n1 = lerp3(na1, vb1.table_normal(), t1);
        let p2 = lerp3(a2.position(va2), b2.position(vb2), t2);
        let n2 = lerp3(va2.table_normal(), vb2.table_normal(), t2);
        *p = lerp3(p1, p2, w);
        *n = normalize_or(lerp3(n1, n2, w), na1);
    }
    Ok(())
}
/// Pushes every position `distance` model units out along its normal, as a
/// powerup shell stands off the skin (Quake II's `POWERSUIT_SCALE`, 4 units:
/// [`SHELL_OFFSET`](crate::scene::SHELL_OFFSET)): `p + n × distance`, after
/// [`blend`] or [`interpolate`] has renormalised `n`, as the shader does.
/// Extra entries of the longer slice are left alone.
pub fn push_along_normals(positions: &mut [[f32; 3]], normals: &[[f32; 3]], distance: f32) {
    for (p, n) in positions.iter_mut().zip(normals) {
        for k in 0..3 {
            p[k] += n[k] * distance;
        }
    }
}
