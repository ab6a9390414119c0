//! A resident crowd of Quake III players: one [`Md2Crowd`] per surface of a
//! [`GpuPlayer`], kept in step (the same members in the same order), the
//! legs' surfaces playing each member's legs clock, the torso's its torso
//! clock, and the torso, head and weapon riding their parents' tags on the
//! GPU (`shaders/crowd/attach.wgsl`): per frame the CPU writes the time and
//! nothing per member, however the members animate.

use std::fmt;
use std::sync::Arc;

use glam::Mat4;

use super::attach::tag_table;
use super::md2_crowd::Md2Crowd;
use crate::anim::{Clip, ClipClock, Playback};
use crate::crowd::CrowdHandle;
use crate::format::md3::{Md3Model, Md3Player, PlayerPart, PlayerTagError, PlayerTransforms};
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::player::{GpuPlayer, PlayerPiece, PlayerSetupError};
use crate::model::Bounds;
use crate::scene::{CrowdError, CrowdMember, Effects, QUAKE_TO_Y_UP};

/// One player of a [`PlayerCrowd`]: where it stands and what its legs and
/// its torso play, each on its own clock (crossfades included), as the
/// resident crowd plays an MD2 member's.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerMember {
    /// The player's transform, from its Y-up model space (Quake's axes
    /// turned by [`QUAKE_TO_Y_UP`](crate::scene::QUAKE_TO_Y_UP), the legs'
    /// origin at the origin) to the world, as
    /// [`PlayerInstance::transform`](crate::gpu::PlayerInstance::transform).
    pub transform: Mat4,
    /// What the legs play: clips of `lower.md3`'s frames (the
    /// [`AnimationConfig::clip`](crate::format::md3::AnimationConfig::clip)s'
    /// numbering).
    pub legs: Playback,
    /// What the torso plays: clips of `upper.md3`'s frames.
    pub torso: Playback,
    /// Every part's tint (see [`CrowdMember::tint`]).
    pub tint: [f32; 4],
    /// Every part's effects.
    pub effects: Effects,
}

impl PlayerMember {
    /// A player at `transform` whose legs and torso play `legs` and
    /// `torso`, untinted, without effects.
    pub fn new(
        transform: Mat4,
        legs: impl Into<Playback>,
        torso: impl Into<Playback>,
    ) -> PlayerMember {
        PlayerMember {
            transform,
            legs: legs.into(),
            torso: torso.into(),
            tint: [1.0; 4],
            effects: Effects::NONE,
        }
    }
}

/// Why a player crowd refused a change: the piece whose crowd refused it
/// (the legs' for a stale handle or a transform), and why. Nothing was
/// changed.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerCrowdError {
    /// The piece.
    pub piece: PlayerPiece,
    /// What its crowd said.
    pub error: CrowdError,
}

impl fmt::Display for PlayerCrowdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.piece, self.error)
    }
}

impl std::error::Error for PlayerCrowdError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Quake III players that live on the GPU, each a small tree of parts: the
/// legs on the member's transform with their own clock, the torso on the
/// legs' `tag_torso` with its own, the head on the torso's `tag_head` and
/// the weapon on its `tag_weapon`, placed every frame on the GPU from the
/// parents' clocks (as [`Md3Player::parts_at`](crate::format::md3::Md3Player::parts_at)
/// places them on the CPU: the tag lerped at the parent's pose, a
/// crossfading parent's two tags crossfaded).
///
/// It is one [`Md2Crowd`] per surface of its [`GpuPlayer`], kept in step:
/// each change is made to every surface's crowd, and draws are one
/// indirect draw per surface, level and bucket, however many players.
/// Give its crowds to
/// [`Md2Renderer::prepare_crowds`](crate::Md2Renderer::prepare_crowds) as
/// [`crowds_mut`](PlayerCrowd::crowds_mut) yields them (each part before
/// the parts that ride it), alone or among other crowds.
///
/// One culling test decides for a whole player, in each view: the legs'
/// crowds cull on a box that holds every part on every frame (its tags'
/// reach, made when the crowd is), and the torso, head and weapon are
/// placed, and drawn, only where their legs are in view (each surface is
/// then culled on its own box too). A player at the edge of a view does
/// not lose its torso with its legs, and players out of it cost their
/// parts no clock.
///
/// The head and the weapon show their first frame, as
/// [`GpuPlayer::place`] draws them. Motion vectors of the parts that ride
/// show their own pose's motion and the player's moves
/// ([`set_transform`](PlayerCrowd::set_transform)), not their parent's
/// animation carrying them (the transform the GPU places is not kept for
/// the next frame).
///
/// ```no_run
/// # fn frame(device: &wgpu::Device, queue: &wgpu::Queue, renderer: &mut md2_wgpu::Md2Renderer,
/// #          gpu_player: &md2_wgpu::gpu::GpuPlayer, time: f64)
/// # -> Result<(), Box<dyn std::error::Error>> {
/// use md2_wgpu::anim::ClipClock;
/// use md2_wgpu::format::md3::PlayerAnimation;
/// use md2_wgpu::gpu::{PlayerCrowd, PlayerMember};
///
/// let cfg = gpu_player.player().animations();
/// let walk = cfg.clip(PlayerAnimation::LegsWalk).expect("a walk");
/// let attack = cfg.clip(PlayerAnimation::TorsoAttack).expect("an attack");
/// let mut players = PlayerCrowd::new(device, renderer, gpu_player)?;
/// let soldier = players.add(PlayerMember::new(
///     md2_wgpu::glam::Mat4::IDENTITY,
///     ClipClock::new(walk, time),
///     ClipClock::new(attack, time).with_speed(1.5),
/// ))?;
/// // Every frame, before the render pass:
/// let mut encoder = device.create_command_encoder(&Default::default());
/// renderer.prepare_crowds(device, queue, &mut encoder, time, players.crowds_mut())?;
/// # let _ = soldier; Ok(()) }
/// ```
#[derive(Debug)]
pub struct PlayerCrowd {
    /// Each surface's piece and crowd, in the player's order (legs, torso,
    /// head, weapon): every parent before its riders.
    surfaces: Vec<(PlayerPiece, Md2Crowd)>,
    /// What the head and the weapon play.
    still: Playback,
    /// The player, for where its riding parts were when it moves (the
    /// motion of views that draw it).
    player: Arc<Md3Player>,
}

impl PlayerCrowd {
    /// An empty crowd of `player` (any renderer of the same device draws
    /// it). The legs and, where a head or weapon rides it, the torso need
    /// a surface to draw, and every frame of theirs the tags their riders
    /// sit on.
    pub fn new(
        device: &wgpu::Device,
        cache: &impl AsRef<Md2Cache>,
        player: &GpuPlayer,
    ) -> Result<PlayerCrowd, PlayerSetupError> {
        let mut surfaces = Vec::with_capacity(player.surface_count());
        for (piece, name, model) in (0..player.surface_count()).filter_map(|s| player.surface(s)) {
            let crowd =
                Md2Crowd::new(device, cache, model).map_err(|error| PlayerSetupError::Upload {
                    piece,
                    surface: name.to_owned(),
                    error,
                })?;
            surfaces.push((piece, crowd));
        }
        let first_of = |part: PlayerPart, surfaces: &[(PlayerPiece, Md2Crowd)]| {
            surfaces
                .iter()
                .find(|(piece, _)| *piece == PlayerPiece::Part(part))
                .map(|(_, crowd)| crowd.id())
                .ok_or(PlayerSetupError::NoSurface { part })
        };
        let md3 = player.player();
        let table = |part: PlayerPart, tag: &str| {
            tag_table(md3.part(part), tag)
                .map_err(|error| PlayerSetupError::Tag(PlayerTagError { part, error }))
        };
        let rides = |piece: PlayerPiece| match piece {
            PlayerPiece::Part(PlayerPart::Lower) => None,
            PlayerPiece::Part(PlayerPart::Upper) => Some((PlayerPart::Lower, "tag_torso")),
            PlayerPiece::Part(PlayerPart::Head) => Some((PlayerPart::Upper, "tag_head")),
            PlayerPiece::Weapon => Some((PlayerPart::Upper, "tag_weapon")),
        };
        // Each tag's table is made once, whatever the surfaces riding it.
        let mut tables: Vec<(&str, u64, Vec<[f32; 4]>)> = Vec::new();
        for s in 0..surfaces.len() {
            let Some((parent, tag)) = rides(surfaces[s].0) else {
                continue;
            };
            if !tables.iter().any(|(name, _, _)| *name == tag) {
                let id = first_of(parent, &surfaces)?;
                tables.push((tag, id, table(parent, tag)?));
            }
            let (_, id, rows) = tables
                .iter()
                .find(|(name, _, _)| *name == tag)
                .expect("made above");
            let (piece, crowd) = &mut surfaces[s];
            crowd
                .ride(device, *id, rows)
                .map_err(|error| PlayerSetupError::Upload {
                    piece: *piece,
                    surface: "its tags".into(),
                    error,
                })?;
        }
        // One culling test for the whole tree: the legs' crowds cull on a
        // box that holds every part on every frame, and the parts riding
        // them are drawn where the legs are in view (cs_attach).
        if let Some(bounds) = tree_bounds(md3) {
            let bounds: Arc<[Bounds]> = bounds.into();
            for (piece, crowd) in &mut surfaces {
                if *piece == PlayerPiece::Part(PlayerPart::Lower) {
                    crowd.set_frame_bounds(Arc::clone(&bounds));
                }
            }
        }
        Ok(PlayerCrowd {
            surfaces,
            still: ClipClock::new(Clip::looping("still", 0, 0), 0.0).into(),
            player: player.shared_player(),
        })
    }

    /// How many players.
    pub fn len(&self) -> usize {
        self.surfaces.first().map_or(0, |(_, c)| c.len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes room for `additional` more players on the CPU and the GPU
    /// (see [`Md2Crowd::reserve`]).
    pub fn reserve(&mut self, additional: usize) {
        for (_, crowd) in &mut self.surfaces {
            crowd.reserve(additional);
        }
    }

    /// Adds a player at the end of the crowd's order; its handle stays
    /// valid until it is removed. Where a piece's crowd refuses it (a clip
    /// past the part's frames, say), no crowd keeps it.
    pub fn add(&mut self, member: PlayerMember) -> Result<CrowdHandle, PlayerCrowdError> {
        // Out of step (a surface's crowd changed on its own): refused, as
        // the players it lacks are.
        let len = self.len();
        if let Some((piece, _)) = self.surfaces.iter().find(|(_, c)| c.len() != len) {
            return Err(PlayerCrowdError {
                piece: *piece,
                error: CrowdError::StaleHandle,
            });
        }
        let mut first = None;
        for k in 0..self.surfaces.len() {
            let (piece, crowd) = &mut self.surfaces[k];
            let playback = match piece {
                PlayerPiece::Part(PlayerPart::Lower) => member.legs.clone(),
                PlayerPiece::Part(PlayerPart::Upper) => member.torso.clone(),
                _ => self.still.clone(),
            };
            let one = CrowdMember::new(member.transform, playback)
                .with_tint(member.tint)
                .with_effects(member.effects);
            match crowd.add(one) {
                Ok(handle) => {
                    first.get_or_insert(handle);
                }
                Err(error) => {
                    let piece = *piece;
                    // The crowds before took it as their last member:
                    // removing that leaves each as it was.
                    for (_, crowd) in &mut self.surfaces[..k] {
                        if let Some(last) =
                            crowd.len().checked_sub(1).and_then(|i| crowd.handle_at(i))
                        {
                            let _ = crowd.remove(last);
                        }
                    }
                    return Err(PlayerCrowdError { piece, error });
                }
            }
        }
        first.ok_or(PlayerCrowdError {
            piece: PlayerPiece::Part(PlayerPart::Lower),
            error: CrowdError::StaleHandle,
        })
    }

    /// The player behind `handle`, if it is still in the crowd.
    pub fn get(&self, handle: CrowdHandle) -> Option<PlayerMember> {
        let i = self.index(handle).ok()?;
        let of = |part: PlayerPart| {
            self.surfaces
                .iter()
                .find(|(piece, _)| *piece == PlayerPiece::Part(part))
                .and_then(|(_, crowd)| crowd.get(crowd.handle_at(i)?))
        };
        let legs = of(PlayerPart::Lower)?;
        let torso = of(PlayerPart::Upper).map_or_else(|| legs.playback.clone(), |m| m.playback);
        Some(PlayerMember {
            transform: legs.transform,
            legs: legs.playback,
            torso,
            tint: legs.tint,
            effects: legs.effects,
        })
    }

    /// Removes the player behind `handle`: the last player moves into its
    /// place in every surface's crowd, and the handle goes stale.
    pub fn remove(&mut self, handle: CrowdHandle) -> Result<PlayerMember, PlayerCrowdError> {
        let i = self.index(handle)?;
        let member = self.get(handle).ok_or(PlayerCrowdError {
            piece: PlayerPiece::Part(PlayerPart::Lower),
            error: CrowdError::StaleHandle,
        })?;
        for (_, crowd) in &mut self.surfaces {
            if let Some(handle) = crowd.handle_at(i) {
                let _ = crowd.remove(handle);
            }
        }
        Ok(member)
    }

    /// Crossfades the legs of the player behind `handle` into `next`, from
    /// `at` over `duration` seconds (see [`MemberEdit::play`](super::MemberEdit::play)).
    pub fn play_legs(
        &mut self,
        handle: CrowdHandle,
        next: ClipClock,
        at: f64,
        duration: f64,
    ) -> Result<(), PlayerCrowdError> {
        let legs = Some(PlayerPiece::Part(PlayerPart::Lower));
        self.each(handle, legs, |edit| edit.play(next.clone(), at, duration))
    }

    /// Crossfades the torso of the player behind `handle` into `next`: its
    /// head and weapon follow.
    pub fn play_torso(
        &mut self,
        handle: CrowdHandle,
        next: ClipClock,
        at: f64,
        duration: f64,
    ) -> Result<(), PlayerCrowdError> {
        let torso = Some(PlayerPiece::Part(PlayerPart::Upper));
        self.each(handle, torso, |edit| edit.play(next.clone(), at, duration))
    }

    /// Moves the player behind `handle`: every part follows. Views that
    /// draw motion see each riding part come from where the last frame
    /// drew it (the player's transform then, the part at its tag at the
    /// legs' and torso's poses then).
    pub fn set_transform(
        &mut self,
        handle: CrowdHandle,
        transform: Mat4,
    ) -> Result<(), PlayerCrowdError> {
        let i = self.index(handle)?;
        let before = self.placed_before(i);
        for (piece, crowd) in &mut self.surfaces {
            let piece = *piece;
            let previous = match (piece, &before) {
                (PlayerPiece::Part(PlayerPart::Lower), _) | (_, None) => None,
                (piece, Some((moved, at))) => {
                    let part = match piece {
                        PlayerPiece::Part(PlayerPart::Upper) => at.upper,
                        PlayerPiece::Part(PlayerPart::Head) => at.head,
                        _ => at.weapon,
                    };
                    Some(*moved * QUAKE_TO_Y_UP * part * QUAKE_TO_Y_UP.inverse())
                }
            };
            let handle = crowd.handle_at(i).ok_or(PlayerCrowdError {
                piece,
                error: CrowdError::StaleHandle,
            })?;
            crowd
                .set_transform_from(handle, transform, previous)
                .map_err(|error| PlayerCrowdError { piece, error })?;
        }
        Ok(())
    }

    /// Tints every part of the player behind `handle`.
    pub fn set_tint(
        &mut self,
        handle: CrowdHandle,
        tint: [f32; 4],
    ) -> Result<(), PlayerCrowdError> {
        self.each(handle, None, |edit| edit.set_tint(tint))
    }

    /// Gives every part of the player behind `handle` these effects.
    pub fn set_effects(
        &mut self,
        handle: CrowdHandle,
        effects: Effects,
    ) -> Result<(), PlayerCrowdError> {
        self.each(handle, None, |edit| edit.set_effects(effects))
    }

    /// Every surface's crowd, each part before the parts that ride it: what
    /// [`Md2Renderer::prepare_crowds`](crate::Md2Renderer::prepare_crowds)
    /// takes (chain it with other crowds: `players.crowds_mut().chain([&mut
    /// md2_crowd])`), and where a setting of each (culling) is changed.
    /// Adding or removing members of one of them on its own takes it out of
    /// step with the others: the player crowd then refuses the players it
    /// no longer has in every surface ([`CrowdError::StaleHandle`], naming
    /// the piece), and draws riders only for members their parents have.
    pub fn crowds_mut(&mut self) -> impl Iterator<Item = &mut Md2Crowd> {
        self.surfaces.iter_mut().map(|(_, crowd)| crowd)
    }

    /// Every surface's crowd with its piece, in the same order.
    pub fn crowds(&self) -> impl Iterator<Item = (PlayerPiece, &Md2Crowd)> {
        self.surfaces.iter().map(|(piece, crowd)| (*piece, crowd))
    }

    /// Bytes of GPU memory the crowd holds itself (every surface's crowd,
    /// its tags included; each view keeps its visible records too).
    pub fn gpu_bytes(&self) -> u64 {
        self.surfaces.iter().map(|(_, c)| c.gpu_bytes()).sum()
    }

    /// Where player `i`'s parts were drawn in the last frame of a view that
    /// draws motion: its transform, and its parts placed at the legs' and
    /// torso's poses at that frame's time; `None` where no view draws
    /// motion (or a tag is missing, which the crowd refused before).
    fn placed_before(&self, i: usize) -> Option<(Mat4, PlayerTransforms)> {
        let (_, legs) = self.surfaces.first()?;
        let then = legs.motion_time()?;
        let member = self.get(legs.handle_at(i)?)?;
        let at = self
            .player
            .parts_at(member.legs.pose(then), member.torso.pose(then))
            .ok()?;
        Some((member.transform, at))
    }

    /// The dense index of `handle`'s player.
    fn index(&self, handle: CrowdHandle) -> Result<usize, PlayerCrowdError> {
        let piece = PlayerPiece::Part(PlayerPart::Lower);
        let (_, crowd) = self.surfaces.first().ok_or(PlayerCrowdError {
            piece,
            error: CrowdError::StaleHandle,
        })?;
        let i = crowd
            .index_of(handle)
            .map_err(|error| PlayerCrowdError { piece, error })?;
        // A surface's crowd changed on its own (through `crowds_mut`) may
        // no longer have the player: refused before anything changes.
        match self.surfaces.iter().find(|(_, c)| c.handle_at(i).is_none()) {
            Some((piece, _)) => Err(PlayerCrowdError {
                piece: *piece,
                error: CrowdError::StaleHandle,
            }),
            None => Ok(i),
        }
    }

    /// `change` made to every surface's member of the player behind
    /// `handle` (of `only` that piece's surfaces, where given). It checks
    /// its value the same way in each (the surfaces of one part have the
    /// same frames), so the first refuses what all would, before any
    /// changed.
    fn each(
        &mut self,
        handle: CrowdHandle,
        only: Option<PlayerPiece>,
        mut change: impl FnMut(&mut super::MemberEdit<'_>) -> Result<(), CrowdError>,
    ) -> Result<(), PlayerCrowdError> {
        let i = self.index(handle)?;
        let chosen = |piece: &PlayerPiece| only.is_none_or(|only| only == *piece);
        for (piece, crowd) in self.surfaces.iter_mut().filter(|(p, _)| chosen(p)) {
            let handle = crowd.handle_at(i).ok_or(PlayerCrowdError {
                piece: *piece,
                error: CrowdError::StaleHandle,
            })?;
            change(&mut crowd.member(handle)).map_err(|error| PlayerCrowdError {
                piece: *piece,
                error,
            })?;
        }
        Ok(())
    }
}

/// How far from its origin any vertex of `model` is on any frame, as the
/// sum of its coordinates' magnitudes (`|x| + |y| + |z|`, the L1 norm).
fn l1_reach(model: &Md3Model) -> f32 {
    model
        .surfaces()
        .iter()
        .flat_map(|s| s.vertices())
        .map(|v| v.position().iter().map(|c| c.abs()).sum::<f32>())
        .fold(0.0, f32::max)
}

/// Per frame of the legs, a box in their space (Quake axes) that holds the
/// whole player on that frame, whatever the torso plays: the legs' own box
/// and a cube around `tag_torso`'s origin as large as the torso, head and
/// weapon reach from it.
///
/// A point `p` of a part riding a tag lands at the tag's origin plus
/// `Σ pᵢ uᵢ`, the `uᵢ` the tag's axes: each of unit length (lerped and
/// crossfaded axes are normalised), not quite perpendicular. Along any
/// axis that sum is at most `Σ |pᵢ|` (`p`'s L1 norm) from the origin, and
/// its own L1 norm at most √3 × `p`'s (a unit vector's is at most √3). So
/// a torso-space point (the torso's own, or the head's or the weapon's
/// placed on the torso's tags: the tag's origin's L1 norm plus √3 × the
/// rider's) is within the torso's L1 reach of `tag_torso`'s origin on
/// every axis: the cube holds every pose, lerped or crossfaded, of frames
/// whose tag origins it holds (a lerped origin lies between them). `None`
/// where a frame lacks a tag (the crowd was refused before this).
fn tree_bounds(player: &Md3Player) -> Option<Vec<Bounds>> {
    const ROOT3: f32 = 1.732_051;
    let (legs, torso, head) = (
        player.part(PlayerPart::Lower),
        player.part(PlayerPart::Upper),
        player.part(PlayerPart::Head),
    );
    let l1 = |v: [f32; 3]| v.iter().map(|c| c.abs()).sum::<f32>();
    let riding = |model: &Md3Model, tag: &str, rider: f32| -> Option<f32> {
        (0..model.frames().len())
            .map(|f| Some(l1(model.tag(f, tag)?.origin) + ROOT3 * rider))
            .try_fold(0.0f32, |m, r| Some(m.max(r?)))
    };
    let mut around = l1_reach(torso).max(riding(torso, "tag_head", l1_reach(head))?);
    if let Some(weapon) = player.weapon() {
        around = around.max(riding(torso, "tag_weapon", l1_reach(weapon))?);
    }
    (0..legs.frames().len())
        .map(|f| {
            let frame = &legs.frames()[f];
            let o = legs.tag(f, "tag_torso")?.origin;
            let cube = Bounds {
                min: std::array::from_fn(|k| o[k] - around),
                max: std::array::from_fn(|k| o[k] + around),
            };
            Some(cube.union(Bounds {
                min: frame.min,
                max: frame.max,
            }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{FrameLerp, Pose};
    use glam::Vec3;

    /// Every vertex of every part, for legs and torso lerped between any
    /// two of their frames and crossfading, lies in the union of the two
    /// legs frames' boxes: the demo player holding its gun, at seeded
    /// random poses.
    #[test]
    fn the_player_box_holds_every_part_of_every_pose() {
        let player = crate::demo::demo_player("default").unwrap();
        let bounds = tree_bounds(&player).unwrap();
        let legs_frames = player.part(PlayerPart::Lower).frames().len() as u32;
        let torso_frames = player.part(PlayerPart::Upper).frames().len() as u32;
        let mut rng = crate::support::Rng::new(36);
        let mut pick = |n: u32| rng.below(n as usize) as u32;
        let mut checked = 0;
        let mut worst = 0.0f32;
        for _ in 0..200 {
            let lerp = |a: u32, b: u32, t: f32| FrameLerp {
                frame_a: a,
                frame_b: b,
                t,
            };
            let (la, lb) = (pick(legs_frames), pick(legs_frames));
            let (ta, tb, tc) = (pick(torso_frames), pick(torso_frames), pick(torso_frames));
            let t = pick(1000) as f32 / 1000.0;
            let legs = Pose::from(lerp(la, lb, t));
            let torso = Pose {
                secondary: lerp(tc, ta, 1.0 - t),
                weight: t,
                ..Pose::from(lerp(ta, tb, 0.5))
            };
            let at = player.parts_at(legs, torso).unwrap();
            let room = bounds[la as usize].union(bounds[lb as usize]);
            let mut riders = vec![
                (at.upper, player.part(PlayerPart::Upper)),
                (at.head, player.part(PlayerPart::Head)),
            ];
            riders.extend(player.weapon().map(|w| (at.weapon, w)));
            for (matrix, model) in riders {
                for v in model.surfaces().iter().flat_map(|s| s.vertices()) {
                    let p = matrix.transform_point3(Vec3::from(v.position()));
                    for k in 0..3 {
                        assert!(
                            p[k] >= room.min[k] - 1e-3 && p[k] <= room.max[k] + 1e-3,
                            "{p:?} outside {room:?}"
                        );
                        let half = (room.max[k] - room.min[k]) / 2.0;
                        let centre = (room.max[k] + room.min[k]) / 2.0;
                        worst = worst.max((p[k] - centre).abs() / half);
                    }
                    checked += 1;
                }
            }
        }
        eprintln!(
            "{checked} placed vertices, the farthest {:.0}% of the way out",
            worst * 100.0
        );
    }
}
