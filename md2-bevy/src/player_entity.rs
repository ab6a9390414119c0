//! A Quake III player in the world: the component with its legs' and
//! torso's animators, and the tree of [`Md3`] entities the plugin spawns
//! for it once loaded, each part riding its parent's tag as Quake III's
//! `CG_Player` places them.

use bevy::asset::{AssetId, Assets, Handle};
use bevy::camera::visibility::Visibility;
use bevy::ecs::prelude::*;
use bevy::log::warn;
use bevy::transform::components::Transform;
use md2_wgpu::format::md3::PlayerPart;

use crate::animator::Md2Animator;
use crate::md3_asset::Md3Asset;
use crate::md3_entity::{Md3, Md3Children, spawn_md3_children};
use crate::player_asset::Md3PlayerAsset;

/// A Quake III player in the world, where its [`Transform`] puts it: the
/// legs (`lower.md3`) playing [`legs`](Self::legs), the torso
/// (`upper.md3`) on the legs' `tag_torso` playing [`torso`](Self::torso)
/// (its own clip, speed and phase), the head on the torso's `tag_head`,
/// the weapon on its `tag_weapon`. Change the animators here: the plugin
/// gives them to the parts.
///
/// Once the player has loaded its entity gets [`Md3PlayerParts`]: the
/// parts are [`Md3`] entities (each surface one draw per pass for every
/// player), and every tag an [`Md3Tag`](crate::Md3Tag) entity to parent
/// anything to.
///
/// ```no_run
/// # use bevy::prelude::*;
/// use md2_bevy::{Md3PlayerAsset, Md3PlayerEntity};
/// use md2_wgpu::format::md3::PlayerAnimation;
///
/// fn spawn(mut commands: Commands, assets: Res<AssetServer>) {
///     let major: Handle<Md3PlayerAsset> = assets.load("models/players/major/animation.cfg");
///     commands.spawn((
///         Md3PlayerEntity::new(major)
///             .playing(PlayerAnimation::LegsRun, PlayerAnimation::TorsoAttack),
///         Transform::from_scale(Vec3::splat(1.0 / 40.0)),
///     ));
/// }
/// ```
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform, Visibility)]
pub struct Md3PlayerEntity {
    /// The player.
    pub asset: Handle<Md3PlayerAsset>,
    /// What the legs play: a clip of `lower.md3` (the player's `LEGS_` and
    /// `BOTH_` animations), and the tint of the legs.
    pub legs: Md2Animator,
    /// What the torso plays: a clip of `upper.md3` (`TORSO_` and `BOTH_`),
    /// and the tint of the torso, head and weapon.
    pub torso: Md2Animator,
    /// Animations to start once the player has loaded (their clips are in
    /// its `animation.cfg`), each keeping its animator's speed and start.
    pending: Option<(
        md2_wgpu::format::md3::PlayerAnimation,
        md2_wgpu::format::md3::PlayerAnimation,
    )>,
}

impl Md3PlayerEntity {
    /// The player holding its first frames until told otherwise.
    pub fn new(asset: Handle<Md3PlayerAsset>) -> Md3PlayerEntity {
        Md3PlayerEntity {
            asset,
            legs: Md2Animator::default(),
            torso: Md2Animator::default(),
            pending: None,
        }
    }

    /// The same player starting `legs` and `torso` (animations of its
    /// `animation.cfg`) once loaded, at the speeds and starts its animators
    /// have then; an animation the file gives no frames holds its part's
    /// first frame.
    pub fn playing(
        mut self,
        legs: md2_wgpu::format::md3::PlayerAnimation,
        torso: md2_wgpu::format::md3::PlayerAnimation,
    ) -> Md3PlayerEntity {
        self.pending = Some((legs, torso));
        self
    }
}

/// The entities the plugin spawned for an [`Md3PlayerEntity`]: its parts
/// (each an [`Md3`] entity, whose [`Md3Children`] hold its surfaces and
/// tags). Read it, do not add it.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct Md3PlayerParts {
    pub(crate) player: AssetId<Md3PlayerAsset>,
    parts: [Entity; 3],
    weapon: Option<Entity>,
}

impl Md3PlayerParts {
    /// A part's entity: the legs (a child of the player's), the torso (of
    /// the legs' `tag_torso`), the head (of the torso's `tag_head`).
    pub fn part(&self, part: PlayerPart) -> Entity {
        self.parts[part.index()]
    }

    /// The weapon's entity (a child of the torso's `tag_weapon`).
    pub fn weapon(&self) -> Option<Entity> {
        self.weapon
    }
}

/// Players without their parts yet, or whose player changed.
type Unattached = Or<(Without<Md3PlayerParts>, Changed<Md3PlayerEntity>)>;

/// Spawns the parts of every player whose files have loaded, the whole
/// tree at once (each part's tags are spawned with it, so the next part
/// can ride them in the same frame).
pub(crate) fn attach_players(
    mut commands: Commands,
    mut players: Query<(Entity, &mut Md3PlayerEntity, Option<&Md3PlayerParts>), Unattached>,
    assets: Res<Assets<Md3PlayerAsset>>,
    models: Res<Assets<Md3Asset>>,
) {
    for (entity, mut player, old) in &mut players {
        let id = player.asset.id();
        let Some(asset) = assets.get(id) else {
            continue;
        };
        if let Some((legs, torso)) = player.pending {
            let start = |animator: &Md2Animator, animation| match asset.clip(animation) {
                Some(clip) => {
                    let clock = &animator.playback().clock;
                    Md2Animator::new(clip)
                        .with_speed(animator.speed())
                        .starting_at(clock.start)
                        .with_tint(animator.tint)
                }
                None => animator.clone(),
            };
            let (legs, torso) = (start(&player.legs, legs), start(&player.torso, torso));
            player.legs = legs;
            player.torso = torso;
            player.pending = None;
        }
        if old.is_some_and(|old| old.player == id) {
            continue;
        }
        let model = |h: &Handle<Md3Asset>| models.get(h).map(|m| (h.clone(), m));
        let (Some(lower), Some(upper), Some(head)) = (
            model(asset.part(PlayerPart::Lower)),
            model(asset.part(PlayerPart::Upper)),
            model(asset.part(PlayerPart::Head)),
        ) else {
            continue;
        };
        let weapon = match asset.weapon() {
            Some(handle) => match model(handle) {
                Some(weapon) => Some(weapon),
                None => continue,
            },
            None => None,
        };
        if let Some(old) = old {
            // Everything else rides the legs.
            commands.entity(old.part(PlayerPart::Lower)).despawn();
        }
        let c = &mut commands;
        let (legs, on_legs) = spawn_part(c, entity, lower, player.legs.clone());
        let torso_tag = riding(&on_legs, "tag_torso", legs);
        let (torso, on_torso) = spawn_part(c, torso_tag, upper, player.torso.clone());
        let rider = still_like(&player.torso);
        let head_tag = riding(&on_torso, "tag_head", torso);
        let (head, _) = spawn_part(c, head_tag, head, rider.clone());
        let weapon = weapon.map(|weapon| {
            let hand = riding(&on_torso, "tag_weapon", torso);
            spawn_part(c, hand, weapon, rider.clone()).0
        });
        commands.entity(entity).insert(Md3PlayerParts {
            player: id,
            parts: [legs, torso, head],
            weapon,
        });
    }
}

/// Spawns a part under `parent`: an [`Md3`] entity of `model` posed by
/// `animator`, with its surfaces and tags.
fn spawn_part(
    commands: &mut Commands,
    parent: Entity,
    (handle, model): (Handle<Md3Asset>, &Md3Asset),
    animator: Md2Animator,
) -> (Entity, Md3Children) {
    let part = commands
        .spawn((Md3(handle.clone()), animator.clone(), ChildOf(parent)))
        .id();
    let children = spawn_md3_children(commands, part, handle.id(), model, &animator, Vec::new());
    (part, children)
}

/// The entity of the tag a part rides, or, where its parent has no such
/// tag (a player that does not load in Quake III), the parent itself.
fn riding(parent: &Md3Children, tag: &str, part: Entity) -> Entity {
    parent.tag(tag).unwrap_or_else(|| {
        warn!("a player's part has no {tag}: what rides it stands at the part's origin");
        part
    })
}

/// Gives the parts of every player whose animators changed the new ones
/// (the head and weapon the torso's tint), once per change.
pub(crate) fn follow_players(
    players: Query<(&Md3PlayerEntity, &Md3PlayerParts), Changed<Md3PlayerEntity>>,
    mut parts: Query<&mut Md2Animator, With<Md3>>,
) {
    for (player, spawned) in &players {
        let rider = still_like(&player.torso);
        let wanted = [
            (spawned.part(PlayerPart::Lower), &player.legs),
            (spawned.part(PlayerPart::Upper), &player.torso),
            (spawned.part(PlayerPart::Head), &rider),
        ]
        .into_iter()
        .chain(spawned.weapon().map(|w| (w, &rider)));
        for (part, animator) in wanted {
            if let Ok(mut own) = parts.get_mut(part)
                && *own != *animator
            {
                own.clone_from(animator);
            }
        }
    }
}

/// The head's and weapon's animator: their first frame, in the torso's
/// tint.
fn still_like(torso: &Md2Animator) -> Md2Animator {
    Md2Animator::default().with_tint(torso.tint)
}
