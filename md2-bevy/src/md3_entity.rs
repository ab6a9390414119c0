//! An MD3 model in the world: the component, the children the plugin
//! gives it once its model has loaded (one entity per surface, each an
//! [`Md2`] entity of the surface's [`Md2Asset`](crate::Md2Asset) posed as
//! its model; one entity per tag, placed where the tag is at the model's
//! pose every frame, for anything to ride), and the systems that keep them.

use bevy::asset::{AssetId, Assets, Handle};
use bevy::camera::visibility::Visibility;
use bevy::ecs::prelude::*;
use bevy::math::{Mat3, Quat, Vec3};
use bevy::time::Time;
use bevy::transform::components::Transform;
use md2_wgpu::format::md3::Md3Tag as TagRecord;

use crate::animator::Md2Animator;
use crate::entity::Md2;
use crate::md3_asset::Md3Asset;

/// A Quake III model in the world: each of its surfaces drawn (with its
/// own texture, in one draw per surface per pass for every entity of the
/// model) where its [`Transform`] puts it, posed by its [`Md2Animator`],
/// and each of its tags an [`Md3Tag`] child entity that follows the pose:
/// parent anything to it (a weapon, a light, another model) and it rides
/// the tag, as Quake III puts a torso on the legs' `tag_torso`.
///
/// The model stands in Bevy's Y-up space facing +Z, as an MD2 does
/// ([`md2_wgpu::scene::QUAKE_TO_Y_UP`]), in the file's units.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
#[require(Md2Animator, Transform, Visibility)]
pub struct Md3(pub Handle<Md3Asset>);

/// What the plugin spawned for an [`Md3`] entity once its model loaded:
/// its surfaces' and tags' entities (children of it). Read it, do not
/// add it.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct Md3Children {
    pub(crate) model: AssetId<Md3Asset>,
    pub(crate) surfaces: Vec<Entity>,
    pub(crate) tags: Vec<(String, Entity)>,
}

impl Md3Children {
    /// The surfaces' entities, in the order of [`Md3Asset::surfaces`].
    pub fn surfaces(&self) -> &[Entity] {
        &self.surfaces
    }

    /// The entity of the tag named `name` (`tag_weapon`).
    pub fn tag(&self, name: &str) -> Option<Entity> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, e)| *e)
    }

    /// Every tag's name and entity, in the model's order.
    pub fn tags(&self) -> &[(String, Entity)] {
        &self.tags
    }
}

/// A tag of an [`Md3`] entity's model: a child entity of it whose
/// [`Transform`] the plugin sets every frame (before Bevy propagates
/// transforms) to where the tag is at the model's pose: its origin lerped,
/// its axes lerped and normalised, as Quake III's `R_LerpTag`.
///
/// A Bevy transform is a rotation and a scale, and lerped axes are unit
/// length but not quite perpendicular: the rotation is the one nearest
/// the tag's axes (their polar decomposition), which differs from the
/// axes by no more than they differ from perpendicular (‖AᵀA − I‖).
#[derive(Component, Clone, Debug, PartialEq, Eq)]
#[require(Transform, Visibility)]
pub struct Md3Tag {
    name: String,
}

impl Md3Tag {
    /// The tag's name (`tag_torso`).
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Marks a surface entity of an [`Md3`] entity: its animator is its
/// model's.
#[derive(Component, Clone, Copy, Debug)]
pub(crate) struct Md3Surface;

/// Spawns the surfaces and tags of `asset` (whose id is `id`) under
/// `entity`, posed by `animator`, and gives `entity` its [`Md3Children`].
/// `keep` holds tags spawned for a model `entity` had before: a tag of the
/// same name keeps its entity (and whatever rides it).
pub(crate) fn spawn_md3_children(
    commands: &mut Commands,
    entity: Entity,
    id: AssetId<Md3Asset>,
    asset: &Md3Asset,
    animator: &Md2Animator,
    mut keep: Vec<(String, Entity)>,
) -> Md3Children {
    let surfaces = asset
        .surfaces
        .iter()
        .map(|surface| {
            commands
                .spawn((
                    Md2(surface.asset.clone()),
                    animator.clone(),
                    Md3Surface,
                    ChildOf(entity),
                ))
                .id()
        })
        .collect();
    let tags = asset
        .tag_names()
        .into_iter()
        .map(|name| {
            let tag = match keep.iter().position(|(n, _)| *n == name) {
                Some(i) => keep.swap_remove(i).1,
                None => commands
                    .spawn((Md3Tag { name: name.clone() }, ChildOf(entity)))
                    .id(),
            };
            (name, tag)
        })
        .collect();
    for (_, gone) in keep {
        commands.entity(gone).despawn();
    }
    let children = Md3Children {
        model: id,
        surfaces,
        tags,
    };
    commands.entity(entity).insert(children.clone());
    children
}

/// MD3 entities without their children yet, or whose model changed.
type Unattached = Or<(Without<Md3Children>, Changed<Md3>)>;

/// Gives every MD3 entity whose model has loaded (and every one whose
/// model changed) its surfaces and tags.
pub(crate) fn attach_md3(
    mut commands: Commands,
    entities: Query<(Entity, &Md3, &Md2Animator, Option<&Md3Children>), Unattached>,
    models: Res<Assets<Md3Asset>>,
) {
    for (entity, md3, animator, old) in &entities {
        let id = md3.0.id();
        if old.is_some_and(|old| old.model == id) {
            continue;
        }
        let Some(asset) = models.get(id) else {
            continue;
        };
        let keep = match old {
            Some(old) => {
                for &surface in &old.surfaces {
                    commands.entity(surface).despawn();
                }
                old.tags.clone()
            }
            None => Vec::new(),
        };
        spawn_md3_children(&mut commands, entity, id, asset, animator, keep);
    }
}

/// MD3 entities (not their surfaces) whose animator changed.
type ChangedModels = (Changed<Md2Animator>, Without<Md3Surface>);

/// Gives each surface of an MD3 entity whose animator changed the same
/// animator (its pose, skin and tint), once per change.
pub(crate) fn follow_md3_animators(
    models: Query<(&Md2Animator, &Md3Children), ChangedModels>,
    mut surfaces: Query<&mut Md2Animator, With<Md3Surface>>,
) {
    for (animator, children) in &models {
        for &surface in &children.surfaces {
            if let Ok(mut own) = surfaces.get_mut(surface) {
                own.clone_from(animator);
            }
        }
    }
}

/// Puts every MD3 entity's tags where they are at its pose now, on Bevy's
/// clock (the time its surfaces are drawn at).
pub(crate) fn place_tags(
    time: Res<Time>,
    entities: Query<(&Md3, &Md2Animator, &Md3Children)>,
    mut tags: Query<&mut Transform, With<Md3Tag>>,
    models: Res<Assets<Md3Asset>>,
) {
    let now = time.elapsed_secs_f64();
    for (md3, animator, children) in &entities {
        let Some(asset) = models.get(&md3.0) else {
            continue;
        };
        let pose = animator.pose(now);
        for (name, tag) in &children.tags {
            // A pose past the model's frames leaves the tag where it was.
            let Ok(record) = asset.model().tag_at(pose, name) else {
                continue;
            };
            if let Ok(mut transform) = tags.get_mut(*tag) {
                *transform = tag_transform(&record);
            }
        }
    }
}

/// A tag as a transform of the mesh's Y-up space: Quake's axes `(x, y, z)`
/// are `(y, z, x)` here ([`md2_wgpu::scene::quake_to_y_up`]), and the
/// rotation is the one nearest the tag's axes.
pub fn tag_transform(tag: &TagRecord) -> Transform {
    // P takes Quake's (x, y, z) to (y, z, x); a tag whose axes are the
    // columns of A acts on Y-up points as P A Pᵀ.
    let p = Mat3::from_cols(Vec3::Z, Vec3::X, Vec3::Y);
    let a = Mat3::from_cols(
        Vec3::from_array(tag.axis[0]),
        Vec3::from_array(tag.axis[1]),
        Vec3::from_array(tag.axis[2]),
    );
    Transform {
        translation: p * Vec3::from_array(tag.origin),
        rotation: nearest_rotation(p * a * p.transpose()),
        scale: Vec3::ONE,
    }
}

/// The rotation nearest `m` (the orthogonal factor of its polar
/// decomposition), by Newton's iteration `Q ← (Q + Q⁻ᵀ) / 2`, which
/// converges quadratically from a matrix near a rotation, as a lerped
/// tag's axes are; the identity for a matrix that is no rotation at all
/// (a hostile file's zero axes).
pub fn nearest_rotation(m: Mat3) -> Quat {
    let mut q = m;
    for _ in 0..8 {
        let det = q.determinant();
        if !det.is_finite() || det.abs() < 1e-6 {
            return Quat::IDENTITY;
        }
        q = (q + q.inverse().transpose()) * 0.5;
    }
    if q.determinant() <= 0.0 || !q.is_finite() {
        return Quat::IDENTITY;
    }
    Quat::from_mat3(&q).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest element of `a − b`.
    fn largest(a: Mat3, b: Mat3) -> f32 {
        (a - b)
            .to_cols_array()
            .iter()
            .fold(0.0f32, |m, x| m.max(x.abs()))
    }

    #[test]
    fn the_nearest_rotation_is_a_rotation_no_farther_than_the_axes_skew() {
        let turn = Mat3::from_quat(Quat::from_euler(bevy::math::EulerRot::XYZ, 0.3, -1.1, 2.0));
        assert!(largest(Mat3::from_quat(nearest_rotation(turn)), turn) < 1e-6);
        // Two frames' axes lerped half way and each normalised, as R_LerpTag
        // does: unit length, not perpendicular.
        let other = Mat3::from_quat(Quat::from_euler(bevy::math::EulerRot::XYZ, 1.4, 0.2, -0.5));
        let lerped = Mat3::from_cols(
            (turn.x_axis + other.x_axis).normalize(),
            (turn.y_axis + other.y_axis).normalize(),
            (turn.z_axis + other.z_axis).normalize(),
        );
        let skew = largest(lerped.transpose() * lerped, Mat3::IDENTITY);
        assert!(skew > 0.01, "the test's axes are skewed ({skew})");
        let nearest = Mat3::from_quat(nearest_rotation(lerped));
        assert!(largest(nearest.transpose() * nearest, Mat3::IDENTITY) < 1e-5);
        assert!((nearest.determinant() - 1.0).abs() < 1e-5);
        // |σ − 1| ≤ |σ² − 1| for every singular value σ: the polar factor is
        // within the spectral norm of AᵀA − I, which 3 × its largest
        // element bounds.
        let off = largest(nearest, lerped);
        assert!(off <= 3.0 * skew + 1e-5, "{off} from the axes, skew {skew}");
        // A hostile file's zero axes: no rotation, not a NaN.
        assert_eq!(nearest_rotation(Mat3::ZERO), Quat::IDENTITY);
    }

    #[test]
    fn a_tag_turns_and_moves_in_y_up_space() {
        // A quarter turn about Quake's Z (up): +X forward to +Y left. In
        // Y-up space that is a quarter turn about +Y taking +Z to +X.
        let tag = TagRecord::new(
            "tag_weapon",
            [1.0, 2.0, 3.0],
            [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        );
        let t = tag_transform(&tag);
        assert_eq!(t.translation, Vec3::new(2.0, 3.0, 1.0));
        assert!((t.rotation * Vec3::Z - Vec3::X).length() < 1e-6);
        assert!((t.rotation * Vec3::Y - Vec3::Y).length() < 1e-6);
    }
}
