//! One drawn copy of a model: where it stands, what pose it is in, which
//! skin and tint; and the small record that carries it to the GPU.

use glam::Mat4;

use super::error::RenderError;
use crate::anim::{Clip, Crossfade, Pose};

/// One instance of a model to draw: the input to
/// [`Md2Renderer::prepare`](crate::Md2Renderer::prepare).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Md2Instance {
    /// Model to world. It applies after [`QUAKE_TO_Y_UP`](crate::QUAKE_TO_Y_UP):
    /// the identity stands the model at the origin of a Y-up world, facing
    /// +Z. Any invertible affine transform works (normals use its inverse
    /// transpose); one with a negative determinant (a mirror) turns the
    /// triangles' winding around, so back-face culling would show the inside.
    pub transform: Mat4,
    /// Frames and blend factors. Every frame must exist in the model
    /// (checked by `prepare`); `t` and `weight` are clamped to `[0, 1]`, NaN
    /// read as 0.
    pub pose: Pose,
    /// Layer of the model's skin array (checked by `prepare`).
    pub skin: u32,
    /// Linear RGBA multiplied with the lit skin; each channel is clamped to
    /// `[0, 1]` and sent as 8 bits.
    pub tint: [f32; 4],
}

impl Default for Md2Instance {
    /// Frame 0 at the origin, skin 0, no tint.
    fn default() -> Self {
        Md2Instance {
            transform: Mat4::IDENTITY,
            pose: Pose::default(),
            skin: 0,
            tint: [1.0; 4],
        }
    }
}

impl Md2Instance {
    /// An instance in `pose` (a [`Pose`] or a
    /// [`FrameLerp`](crate::FrameLerp)) placed by `transform`, with skin 0
    /// and no tint.
    pub fn new(transform: Mat4, pose: impl Into<Pose>) -> Self {
        Md2Instance {
            transform,
            pose: pose.into(),
            ..Md2Instance::default()
        }
    }

    /// An instance playing `clip`, `time` seconds after it started.
    pub fn from_clip(transform: Mat4, clip: &Clip, time: f32) -> Self {
        Md2Instance::new(transform, clip.sample(time))
    }

    /// An instance in the middle of `fade` at `time` (on the fade's clock).
    pub fn from_crossfade(transform: Mat4, fade: &Crossfade, time: f32) -> Self {
        Md2Instance::new(transform, fade.pose(time))
    }

    /// The same instance with another skin layer.
    pub fn with_skin(self, skin: u32) -> Self {
        Md2Instance { skin, ..self }
    }

    /// The same instance with another tint.
    pub fn with_tint(self, tint: [f32; 4]) -> Self {
        Md2Instance { tint, ..self }
    }
}

/// The per-instance record uploaded every frame: 76 bytes.
///
/// It travels as a vertex buffer with `step_mode: Instance` rather than a
/// storage array indexed by `instance_index`. Both read the same bytes, but
/// instance-rate attributes are fetched by the vertex-input hardware (or a
/// fetch preamble the driver schedules ahead of the shader) once per
/// instance and handed to every vertex in registers, while storage loads
/// are issued by each vertex invocation. Attributes also let one buffer
/// hold every model's instances with a plain buffer slice per draw: no
/// per-model bind group, dynamic offset or `first_instance` needed.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct GpuInstance {
    /// Rows of (transform × QUAKE_TO_Y_UP), the bottom row (0, 0, 0, 1) left out.
    rows: [[f32; 4]; 3],
    /// primary a, primary b, secondary a, secondary b.
    frames: [u16; 4],
    /// primary t, secondary t, weight.
    lerp: [f32; 3],
    skin: u32,
    tint: [u8; 4],
}

impl GpuInstance {
    /// The vertex layout of shaders/md2.wgsl's `InstanceIn`.
    pub(crate) const ATTRIBUTES: [wgpu::VertexAttribute; 7] = wgpu::vertex_attr_array![
        2 => Float32x4,
        3 => Float32x4,
        4 => Float32x4,
        5 => Uint16x4,
        6 => Float32x3,
        7 => Uint32,
        8 => Unorm8x4,
    ];

    /// Checks `instance` against a model with `frame_count` frames and
    /// `skin_count` skins, and packs it. `batch` and `index` only name the
    /// instance in the error.
    #[inline]
    pub(crate) fn pack(
        instance: &Md2Instance,
        frame_count: u32,
        skin_count: u32,
        batch: usize,
        index: usize,
    ) -> Result<GpuInstance, RenderError> {
        let (frames, lerp) = pose_words(&instance.pose);
        for (frame, field) in frames.into_iter().zip(POSE_FIELDS) {
            if frame >= frame_count {
                return Err(RenderError::FrameOutOfRange {
                    batch,
                    instance: index,
                    field,
                    frame,
                    frame_count,
                });
            }
        }
        if instance.skin >= skin_count {
            return Err(RenderError::SkinOutOfRange {
                batch,
                instance: index,
                skin: instance.skin,
                skin_count,
            });
        }
        // transform × QUAKE_TO_Y_UP is a column permutation: (x, y, z) in
        // Quake axes reads the transform's (z, x, y) columns.
        let t = &instance.transform;
        let cols = [t.z_axis, t.x_axis, t.y_axis, t.w_axis];
        let row = |i: usize| [cols[0][i], cols[1][i], cols[2][i], cols[3][i]];
        // GpuModel::new refuses models with more than 65,536 frames, so a
        // frame below frame_count fits in u16.
        let [a, b, c, d] = frames;
        Ok(GpuInstance {
            rows: [row(0), row(1), row(2)],
            frames: [a as u16, b as u16, c as u16, d as u16],
            lerp,
            skin: instance.skin,
            tint: instance.tint.map(unorm8),
        })
    }
}

/// A tint channel as the shader's `Unorm8x4` reads it: clamped to `[0, 1]`,
/// scaled to 255 and rounded half up, NaN as 0. The same byte as
/// `(c.clamp(0.0, 1.0) * 255.0).round() as u8` for every `f32` (checked
/// exhaustively), without the libm `roundf` call that baseline x86-64 (no
/// SSE4.1) makes for `round`: four per instance were a sixth of `prepare`'s
/// instructions in the crowd benchmark.
#[inline]
fn unorm8(c: f32) -> u8 {
    let x = c.clamp(0.0, 1.0) * 255.0;
    // Truncates; NaN gives 0. `x - whole` is exact: `whole <= x < 2 * whole`
    // from 1 up, and `whole` is 0 below.
    let whole = x as u8;
    whole + u8::from(x - f32::from(whole) >= 0.5)
}

/// The names [`RenderError::FrameOutOfRange`] gives the four frames.
const POSE_FIELDS: [&str; 4] = [
    "primary.frame_a",
    "primary.frame_b",
    "secondary.frame_a",
    "secondary.frame_b",
];

/// A pose as the shader receives it: the four frames, and (t, secondary t,
/// weight) clamped to `[0, 1]` with NaN as 0, as the contract with the CPU
/// reference says.
pub(crate) fn pose_words(pose: &Pose) -> ([u32; 4], [f32; 3]) {
    let unit = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    (
        [
            pose.primary.frame_a,
            pose.primary.frame_b,
            pose.secondary.frame_a,
            pose.secondary.frame_b,
        ],
        [
            unit(pose.primary.t),
            unit(pose.secondary.t),
            unit(pose.weight),
        ],
    )
}

#[cfg(test)]
mod tests {
    use glam::{Vec3, Vec4};

    use super::*;
    use crate::anim::FrameLerp;
    use crate::gpu::camera::QUAKE_TO_Y_UP;

    #[test]
    fn tint_bytes_round_as_f32_round_does() {
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
            assert_eq!(unorm8(c), round(c), "tint channel {c:?}");
        }
    }

    #[test]
    fn record_is_76_bytes_and_matches_the_attributes() {
        assert_eq!(size_of::<GpuInstance>(), 76);
        let last = GpuInstance::ATTRIBUTES[6];
        assert_eq!(last.offset + last.format.size(), 76);
    }

    #[test]
    fn rows_are_the_transform_after_the_axis_change() {
        let transform = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 3.0),
            glam::Quat::from_rotation_y(0.7),
            Vec3::new(5.0, -6.0, 7.0),
        );
        let packed = GpuInstance::pack(
            &Md2Instance::new(transform, FrameLerp::still(0)),
            1,
            1,
            0,
            0,
        )
        .expect("in range");
        let expected = transform * QUAKE_TO_Y_UP;
        let p = Vec4::new(0.5, -1.5, 2.5, 1.0);
        let want = expected * p;
        let got = Vec3::new(
            Vec4::from(packed.rows[0]).dot(p),
            Vec4::from(packed.rows[1]).dot(p),
            Vec4::from(packed.rows[2]).dot(p),
        );
        assert!((got - want.truncate()).length() < 1e-5, "{got} vs {want}");
    }

    #[test]
    fn bad_frames_and_skins_are_named() {
        let pose = Pose {
            primary: FrameLerp::still(1),
            secondary: FrameLerp {
                frame_a: 2,
                frame_b: 9,
                t: 0.5,
            },
            weight: 0.5,
        };
        let inst = Md2Instance::new(Mat4::IDENTITY, pose);
        assert_eq!(
            GpuInstance::pack(&inst, 3, 1, 4, 7),
            Err(RenderError::FrameOutOfRange {
                batch: 4,
                instance: 7,
                field: "secondary.frame_b",
                frame: 9,
                frame_count: 3,
            })
        );
        let inst = Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0)).with_skin(2);
        assert_eq!(
            GpuInstance::pack(&inst, 3, 2, 0, 1),
            Err(RenderError::SkinOutOfRange {
                batch: 0,
                instance: 1,
                skin: 2,
                skin_count: 2,
            })
        );
    }

    #[test]
    fn blend_factors_are_clamped_and_nan_is_zero() {
        let pose = Pose {
            primary: FrameLerp {
                frame_a: 0,
                frame_b: 1,
                t: f32::NAN,
            },
            secondary: FrameLerp {
                frame_a: 0,
                frame_b: 1,
                t: 7.0,
            },
            weight: -2.0,
        };
        assert_eq!(pose_words(&pose).1, [0.0, 1.0, 0.0]);
    }
}
