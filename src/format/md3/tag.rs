//! Tags between frames and tags as matrices, as Quake III uses them: a
//! tag lerped as its renderer lerps it (`R_LerpTag`, `tr_model.c`), and a
//! model placed on a tag as its game code places one
//! (`CG_PositionEntityOnTag`, `CG_PositionRotatedEntityOnTag`,
//! `cg_ents.c`).

use std::fmt;

use glam::{Mat3, Mat4, Vec3};

use super::model::{Md3Model, Md3Tag};
use crate::anim::{FrameLerp, Pose};

/// Why a model has no tag to give for a pose.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Md3TagError {
    /// The pose names a frame past the model's last.
    NoSuchFrame {
        /// The frame named.
        frame: u32,
        /// The frames the model has.
        frames: usize,
    },
    /// A frame of the pose has no tag of that name.
    NoSuchTag {
        /// The tag's name.
        tag: String,
        /// The frame.
        frame: u32,
    },
}

impl fmt::Display for Md3TagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Md3TagError::NoSuchFrame { frame, frames } => {
                write!(f, "frame {frame} is past the model's {frames} frames")
            }
            Md3TagError::NoSuchTag { tag, frame } => {
                write!(f, "frame {frame} has no tag named {tag:?}")
            }
        }
    }
}

impl std::error::Error for Md3TagError {}

/// A vector scaled to unit length, as Quake III's `VectorNormalize`
/// (`q_math.c`) scales it: by the reciprocal of its length, and a vector
/// of length 0 left as it is.
fn normalize(v: [f32; 3]) -> [f32; 3] {
    let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if length == 0.0 {
        return v;
    }
    let inverse = 1.0 / length;
    v.map(|c| c * inverse)
}

impl Md3Tag {
    /// The tag `t` of the way from `self` to `to`, as Quake III's
    /// `R_LerpTag` makes it: the origin and each axis lerped
    /// (`start × (1 − t) + end × t`), then each axis scaled back to unit
    /// length (`VectorNormalize`; an axis lerped to zero stays zero).
    ///
    /// The axes are only normalised, not made perpendicular again: Quake
    /// III does not orthogonalise them, so neither does this. Between two
    /// orientations far apart the axes are a little skewed, as they were
    /// in the game. `t` is used as given; the name is `self`'s.
    pub fn lerp(&self, to: &Md3Tag, t: f32) -> Md3Tag {
        let (front, back) = (t, 1.0 - t);
        let mix = |a: [f32; 3], b: [f32; 3]| std::array::from_fn(|i| a[i] * back + b[i] * front);
        Md3Tag {
            name_bytes: self.name_bytes,
            origin: mix(self.origin, to.origin),
            axis: std::array::from_fn(|k| normalize(mix(self.axis[k], to.axis[k]))),
        }
    }

    /// The tag as a matrix from the joined model's space to this model's:
    /// its columns are `axis[0]`, `axis[1]`, `axis[2]` (each axis, stored
    /// as a row of the file's 3 × 3, is a column here) and the origin. A
    /// point `p` of the joined model lands at
    /// `origin + p.x·axis[0] + p.y·axis[1] + p.z·axis[2]`
    /// ([`Md3Tag::place`]).
    pub fn matrix(&self) -> Mat4 {
        let column = |v: [f32; 3]| Vec3::from_array(v).extend(0.0);
        Mat4::from_cols(
            column(self.axis[0]),
            column(self.axis[1]),
            column(self.axis[2]),
            Vec3::from_array(self.origin).extend(1.0),
        )
    }

    /// Where a model joined at this tag goes, for a parent placed at
    /// `parent`: `parent × matrix()`, Quake III's `CG_PositionEntityOnTag`
    /// (the child's origin is the parent's plus the tag's origin along
    /// the parent's axes; its axes are the tag's times the parent's). The
    /// game places the weapon on the torso so.
    pub fn attach(&self, parent: Mat4) -> Mat4 {
        parent * self.matrix()
    }

    /// [`Md3Tag::attach`] with the child turned by its own `rotation`
    /// first (its axes as columns): `parent × matrix() × rotation`,
    /// Quake III's `CG_PositionRotatedEntityOnTag`, which places the
    /// torso on the legs and the head on the torso, each turned by the
    /// player's view (`CG_PlayerAngles`). The rotation turns the child
    /// about the tag's origin; no offset along the tag is added (nor does
    /// the game add one).
    pub fn attach_rotated(&self, parent: Mat4, rotation: Mat3) -> Mat4 {
        self.attach(parent) * Mat4::from_mat3(rotation)
    }
}

impl Md3Model {
    /// The tag named `name` at a pose, as Quake III's renderer gives it
    /// (`R_LerpTag`): the tag found by name in `frame_a` and in `frame_b`
    /// (each frame's first tag of exactly that name, as `R_GetTag` finds
    /// it) and lerped by `t` ([`Md3Tag::lerp`]: the axes normalised, not
    /// orthogonalised). `t` is read as the renderer reads a pose's:
    /// clamped to 0..=1, NaN as 0. At `t = 0` the result is `frame_a`'s
    /// tag and at `t = 1` `frame_b`'s, each axis normalised.
    ///
    /// A [`Pose`] that crossfades (which Quake III has no word for) gives
    /// its primary lerp's tag lerped towards its secondary's by the
    /// weight, the same [`Md3Tag::lerp`] (a weight of 0, or NaN, gives
    /// the primary's tag as it is): the tag moves with the blended
    /// vertices, and the resident crowd places attached parts by the same
    /// rule on the GPU. A [`FrameLerp`] is the pose of that lerp alone.
    ///
    /// A frame past the model's last (any of the pose's four) is an error
    /// ([`Md3TagError::NoSuchFrame`]) where Quake III's `R_GetTag` quietly
    /// takes the last frame ("it is possible to have a bad frame while
    /// changing models"); a host that wants the game's leniency clamps
    /// the pose's frames first. A frame without the tag is
    /// [`Md3TagError::NoSuchTag`] (the game then gives an identity tag).
    pub fn tag_at(&self, pose: impl Into<Pose>, name: &str) -> Result<Md3Tag, Md3TagError> {
        let pose = pose.into();
        let frames = self.frames().len();
        let find = |frame: u32| {
            let index = usize::try_from(frame)
                .ok()
                .filter(|&f| f < frames)
                .ok_or(Md3TagError::NoSuchFrame { frame, frames })?;
            self.tag(index, name).ok_or_else(|| Md3TagError::NoSuchTag {
                tag: name.to_owned(),
                frame,
            })
        };
        let unit = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
        let lerped = |lerp: FrameLerp| -> Result<Md3Tag, Md3TagError> {
            let (start, end) = (find(lerp.frame_a)?, find(lerp.frame_b)?);
            Ok(start.lerp(end, unit(lerp.t)))
        };
        let primary = lerped(pose.primary)?;
        let secondary = lerped(pose.secondary)?;
        let weight = unit(pose.weight);
        if weight == 0.0 {
            return Ok(primary);
        }
        Ok(primary.lerp(&secondary, weight))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRAIGHT: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    /// A quarter turn about Z: forward is +Y, left is −X.
    const TURNED: [[f32; 3]; 3] = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];

    #[test]
    fn a_lerped_tag_is_r_lerptags() {
        let a = Md3Tag::new("tag_x", [0.0, 0.0, 2.0], STRAIGHT);
        let b = Md3Tag::new("tag_x", [4.0, 0.0, 6.0], TURNED);
        assert_eq!(a.lerp(&b, 0.0), a);
        assert_eq!(a.lerp(&b, 1.0), b);
        let half = a.lerp(&b, 0.5);
        assert_eq!(half.origin, [2.0, 0.0, 4.0]);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let close = |x: [f32; 3], y: [f32; 3]| x.iter().zip(y).all(|(p, q)| (p - q).abs() < 1e-6);
        assert!(close(half.axis[0], [h, h, 0.0]), "{:?}", half.axis);
        assert!(close(half.axis[1], [-h, h, 0.0]), "{:?}", half.axis);
        // An axis lerped through zero stays zero, as VectorNormalize
        // leaves it.
        let flipped = Md3Tag::new(
            "tag_x",
            [0.0; 3],
            [[-1.0, 0.0, 0.0], STRAIGHT[1], STRAIGHT[2]],
        );
        assert_eq!(a.lerp(&flipped, 0.5).axis[0], [0.0; 3]);
    }

    #[test]
    fn a_tags_matrix_places_points_as_place_does() {
        let tag = Md3Tag::new("tag_x", [1.0, 2.0, 3.0], TURNED);
        let m = tag.matrix();
        let p = [2.0, 1.0, -1.0];
        assert_eq!(
            m.transform_point3(Vec3::from_array(p)).to_array(),
            tag.place(p)
        );
        let parent = Mat4::from_translation(Vec3::new(0.0, 0.0, 10.0));
        assert_eq!(tag.attach(parent), parent * m);
        let quarter = Mat3::from_cols_array_2d(&TURNED);
        assert_eq!(
            tag.attach_rotated(parent, quarter),
            parent * m * Mat4::from_mat3(quarter)
        );
    }
}
