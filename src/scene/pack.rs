//! How what the app describes packs into the records the vertex stage
//! reads: an [`Md2Instance`] into an [`InstanceRecord`] (and its previous
//! frame into an [`ExtraRecord`]), a [`Pose`] into [`PoseWords`]. The
//! renderer's `prepare` packs with these, and so can any other host. The
//! words themselves are the contract's (`contract/pack.rs`); this is the
//! floor above, where the instance, the pose and the errors live.

use super::error::InstanceError;
use super::fields;
use super::instance::{Md2Instance, Md2Previous};
use super::policy::InstancePolicy;
use crate::anim::Pose;
use crate::contract::{
    ExtraRecord, InstanceRecord, MEMBER_MIRRORED, MEMBER_TRANSLUCENT, PoseWords, mirrors, rows,
    tint_words, unmoved_extra,
};

impl PoseWords {
    /// `pose` as the shader reads it.
    pub fn of(pose: &Pose) -> PoseWords {
        let (frames, lerp) = pose_words(pose);
        PoseWords { frames, lerp }
    }
}

impl InstanceRecord {
    /// `instance` as the vertex stage reads it, for a model with
    /// `frame_count` frames and `skin_count` skins: the record the
    /// renderer's `prepare` writes under [`InstancePolicy::Strict`]. A frame
    /// or skin the model lacks, or a value that is not finite, is the error
    /// `prepare` would give (batch 0, instance 0).
    pub fn pack(
        instance: &Md2Instance,
        frame_count: u32,
        skin_count: u32,
    ) -> Result<InstanceRecord, InstanceError> {
        match pack(
            instance,
            frame_count,
            skin_count,
            InstancePolicy::Strict,
            0,
            0,
        ) {
            Packed::Good(record) => Ok(record),
            Packed::Clamped(_, e) | Packed::Refused(e) => Err(e),
        }
    }
}

/// The names [`InstanceError::NotFinite`] gives the blend factors.
const BLEND_FIELDS: [&str; 3] = [fields::POSE_T, fields::POSE_T2, fields::POSE_WEIGHT];

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

/// The extra record of the instance whose record is `record`: `previous`
/// (or, without one, [`unmoved_extra`]), its index in the batch and its
/// id. A previous transform or pose that is not finite, or names a frame
/// the model lacks, is the error (to which [`unmoved_extra`] is the
/// repair).
pub(crate) fn pack_previous(
    record: &InstanceRecord,
    previous: Option<&Md2Previous>,
    frame_count: u32,
    id: u32,
    batch: usize,
    index: usize,
) -> Result<ExtraRecord, InstanceError> {
    let current = unmoved_extra(record, index, id);
    let Some(previous) = previous else {
        return Ok(current);
    };
    let not_finite = |field| InstanceError::NotFinite {
        batch,
        instance: index,
        field,
    };
    if !previous.transform.is_finite() {
        return Err(not_finite(fields::PREVIOUS_TRANSFORM));
    }
    let p = &previous.pose;
    for (value, field) in [p.primary.t, p.secondary.t, p.weight].into_iter().zip([
        fields::PREVIOUS_POSE_T,
        fields::PREVIOUS_POSE_T2,
        fields::PREVIOUS_POSE_WEIGHT,
    ]) {
        if !value.is_finite() {
            return Err(not_finite(field));
        }
    }
    let (frames, lerp) = pose_words(p);
    for (frame, field) in frames.into_iter().zip(fields::PREVIOUS_POSE_FRAMES) {
        if frame >= frame_count {
            return Err(InstanceError::FrameOutOfRange {
                batch,
                instance: index,
                field,
                frame,
                frame_count,
            });
        }
    }
    Ok(ExtraRecord {
        rows: rows(&previous.transform),
        frames: frames.map(|f| f as u16),
        lerp,
        ..current
    })
}

/// What [`pack`] found wrong with an instance, and whether it is drawn.
pub(crate) enum Packed {
    /// Drawn as given.
    Good(InstanceRecord),
    /// Drawn with frames or skin clamped (the problem is reported).
    Clamped(InstanceRecord, InstanceError),
    /// Not drawn.
    Refused(InstanceError),
}

/// Checks `instance` against a model with `frame_count` frames and
/// `skin_count` skins and packs it, as `policy` says. `batch` and `index`
/// only name the instance in an error.
#[inline]
pub(crate) fn pack(
    instance: &Md2Instance,
    frame_count: u32,
    skin_count: u32,
    policy: InstancePolicy,
    batch: usize,
    index: usize,
) -> Packed {
    let not_finite = |field| InstanceError::NotFinite {
        batch,
        instance: index,
        field,
    };
    // Nothing to clamp a transform to: refused under every policy.
    if !instance.transform.is_finite() {
        return Packed::Refused(not_finite(fields::TRANSFORM));
    }
    let (mut frames, lerp) = pose_words(&instance.pose);
    let mut skin = instance.skin;
    let mut problem = None;
    for (frame, field) in frames.iter_mut().zip(fields::POSE_FRAMES) {
        if *frame >= frame_count {
            problem.get_or_insert(InstanceError::FrameOutOfRange {
                batch,
                instance: index,
                field,
                frame: *frame,
                frame_count,
            });
            *frame = frame_count.saturating_sub(1);
        }
    }
    if skin >= skin_count {
        problem.get_or_insert(InstanceError::SkinOutOfRange {
            batch,
            instance: index,
            skin,
            skin_count,
        });
        skin = skin_count.saturating_sub(1);
    }
    if instance.tint.iter().any(|c| !c.is_finite()) {
        problem.get_or_insert(not_finite(fields::TINT));
    }
    let p = &instance.pose;
    for (value, field) in [p.primary.t, p.secondary.t, p.weight]
        .into_iter()
        .zip(BLEND_FIELDS)
    {
        if !value.is_finite() {
            problem.get_or_insert(not_finite(field));
        }
    }
    if policy != InstancePolicy::Clamp
        && let Some(problem) = problem.take()
    {
        return Packed::Refused(problem);
    }
    let (tint, intensity) = tint_words(instance.tint);
    let mut effects = instance.effects.bits();
    if tint[3] < 255 {
        effects |= MEMBER_TRANSLUCENT;
    }
    if mirrors(&instance.transform) {
        effects |= MEMBER_MIRRORED;
    }
    // GpuModel::new refuses models with more than 65,536 frames or skins,
    // so both fit in 16 bits.
    let record = InstanceRecord {
        rows: rows(&instance.transform),
        frames: frames.map(|f| f as u16),
        t: lerp[0],
        t2: lerp[1],
        weight: lerp[2],
        skin_intensity: skin | u32::from(intensity) << 16,
        tint,
        effects,
    };
    match problem {
        None => Packed::Good(record),
        Some(problem) => Packed::Clamped(record, problem),
    }
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec3, Vec4};

    use super::*;
    use crate::anim::FrameLerp;
    use crate::contract::{Buckets, OPAQUE, OPAQUE_MIRRORED, SHELL, TRANSLUCENT, opaque_at};
    use crate::scene::{Effects, QUAKE_TO_Y_UP};

    fn good(p: Packed) -> InstanceRecord {
        match p {
            Packed::Good(r) => r,
            _ => panic!("not good"),
        }
    }

    #[test]
    fn rows_are_the_transform_after_the_axis_change() {
        let transform = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 3.0),
            glam::Quat::from_rotation_y(0.7),
            Vec3::new(5.0, -6.0, 7.0),
        );
        let packed = good(pack(
            &Md2Instance::new(transform, FrameLerp::still(0)),
            1,
            1,
            InstancePolicy::Strict,
            0,
            0,
        ));
        let expected = transform * QUAKE_TO_Y_UP;
        let p = Vec4::new(0.5, -1.5, 2.5, 1.0);
        let want = expected * p;
        let got = Vec3::new(
            Vec4::from(packed.rows[0]).dot(p),
            Vec4::from(packed.rows[1]).dot(p),
            Vec4::from(packed.rows[2]).dot(p),
        );
        assert!((got - want.truncate()).length() < 1e-5, "{got} vs {want}");
        assert_eq!(Buckets::of(packed.effects).main, 0);
    }

    #[test]
    fn bad_frames_and_skins_are_named_refused_or_clamped() {
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
        let want = InstanceError::FrameOutOfRange {
            batch: 4,
            instance: 7,
            field: "pose.secondary.frame_b",
            frame: 9,
            frame_count: 3,
        };
        match pack(&inst, 3, 1, InstancePolicy::Strict, 4, 7) {
            Packed::Refused(e) => assert_eq!(e, want),
            _ => panic!("strict refuses"),
        }
        match pack(&inst, 3, 1, InstancePolicy::Clamp, 4, 7) {
            Packed::Clamped(record, e) => {
                assert_eq!(e, want);
                assert_eq!(record.frames, [1, 1, 2, 2]);
            }
            _ => panic!("clamp clamps"),
        }
        let inst = Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0)).with_skin(2);
        match pack(&inst, 3, 2, InstancePolicy::Skip, 0, 1) {
            Packed::Refused(e) => assert_eq!(
                e,
                InstanceError::SkinOutOfRange {
                    batch: 0,
                    instance: 1,
                    skin: 2,
                    skin_count: 2,
                }
            ),
            _ => panic!("skip refuses"),
        }
    }

    #[test]
    fn buckets_follow_alpha_mirroring_and_shells() {
        let base = Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0));
        let bucket = |inst: Md2Instance| {
            Buckets::of(good(pack(&inst, 1, 1, InstancePolicy::Strict, 0, 0)).effects)
        };
        assert_eq!(
            bucket(base),
            Buckets {
                main: OPAQUE,
                shell: None
            }
        );
        let mirror = base.transform * Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        let mirrored = Md2Instance {
            transform: mirror,
            ..base
        };
        assert_eq!(
            bucket(mirrored),
            Buckets {
                main: OPAQUE_MIRRORED,
                shell: None
            }
        );
        // A coarser level moves an opaque record to that level's pair.
        assert_eq!(bucket(base).at_level(2).main, opaque_at(2, false));
        assert_eq!(bucket(mirrored).at_level(3).main, opaque_at(3, true));
        let glass = base.with_tint([1.0, 1.0, 1.0, 0.5]);
        assert_eq!(
            bucket(glass),
            Buckets {
                main: TRANSLUCENT,
                shell: None
            }
        );
        assert_eq!(bucket(glass).at_level(3), bucket(glass));
        let shelled = mirrored
            .with_tint([1.0, 1.0, 1.0, 0.5])
            .with_effects(Effects::NONE.with_shell([1.0, 0.0, 0.0]));
        // Translucent records and shells keep one bucket whatever their
        // winding, so they blend in one order.
        assert_eq!(
            bucket(shelled),
            Buckets {
                main: TRANSLUCENT,
                shell: Some(SHELL)
            }
        );
    }

    #[test]
    fn non_finite_values_follow_the_policy() {
        let base = Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(0));
        let field = |p: &Packed| match p {
            Packed::Refused(InstanceError::NotFinite { field, .. })
            | Packed::Clamped(_, InstanceError::NotFinite { field, .. }) => Some(*field),
            _ => None,
        };
        let mut nan_transform = base;
        nan_transform.transform.w_axis.x = f32::NAN;
        let nan_tint = base.with_tint([1.0, f32::NAN, 1.0, 1.0]);
        let inf_tint = base.with_tint([f32::INFINITY, 0.0, 0.0, 1.0]);
        let mut nan_t = base;
        nan_t.pose.primary.t = f32::NAN;
        let mut inf_weight = base;
        inf_weight.pose.weight = f32::NEG_INFINITY;
        for policy in [InstancePolicy::Strict, InstancePolicy::Skip] {
            for (instance, name) in [
                (nan_transform, "transform"),
                (nan_tint, "tint"),
                (inf_tint, "tint"),
                (nan_t, "pose.primary.t"),
                (inf_weight, "pose.weight"),
            ] {
                let packed = pack(&instance, 1, 1, policy, 0, 0);
                assert!(matches!(packed, Packed::Refused(_)), "{policy:?} {name}");
                assert_eq!(field(&packed), Some(name));
            }
        }
        // Clamp repairs what has a repair, and still refuses a transform.
        let clamp = |i: &Md2Instance| pack(i, 1, 1, InstancePolicy::Clamp, 0, 0);
        assert!(matches!(clamp(&nan_transform), Packed::Refused(_)));
        let Packed::Clamped(record, _) = clamp(&nan_tint) else {
            panic!("a NaN tint is repaired under Clamp");
        };
        assert_eq!(record.tint, [255, 0, 255, 255]);
        let Packed::Clamped(record, _) = clamp(&inf_tint) else {
            panic!("an infinite tint is repaired under Clamp");
        };
        assert_eq!(record.skin_intensity >> 16, 0x7bff, "the largest f16");
        let Packed::Clamped(record, _) = clamp(&nan_t) else {
            panic!("a NaN t is repaired under Clamp");
        };
        assert_eq!(record.t, 0.0);
        let Packed::Clamped(record, _) = clamp(&inf_weight) else {
            panic!("an infinite weight is repaired under Clamp");
        };
        assert_eq!(record.weight, 0.0);
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
