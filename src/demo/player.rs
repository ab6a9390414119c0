//! The demo soldier as a Quake III player: its skeleton cut where Quake III
//! cuts a player (legs and hips; chest and arms; head), each part a model
//! of its own in its own space, joined by tags that follow the bones, so
//! that its legs and torso can play different animations as a real
//! player's do, and a gun for its hand.
//!
//! Each source frame is a Quake II demo frame posed as the MD2 is, then:
//! the legs' vertices as posed; `tag_torso` at the spine's joint, turned
//! as the spine is; the torso's vertices in that tag's space, with
//! `tag_head` at the neck and `tag_weapon` at the right hand in it; the
//! head's vertices in its own space, one frame. A torso played on the legs
//! of the same frame is the MD2's pose again (to the 1/64 the file
//! stores); on other legs, it rides them.

use std::ops::RangeInclusive;
use std::sync::OnceLock;

use super::body::{self, BONES, Bone};
use super::math::{Quat, Rigid, V3, normalize, sub};
use super::normals::encode_lat_long;
use super::skin::tga;
use super::soldier::{SKIN_HEIGHT, SKIN_WIDTH, demo_skin, pose_mesh, vertex_normals};
use super::{animation, weapon};
use crate::anim::Quake2Player;
use crate::format::md3::{
    Md3Model, Md3Parts, Md3Player, Md3Shader, Md3SurfaceParts, Md3Tag, Md3Vertex, PlayerAnimation,
};

/// The folder the demo player's skins name its picture in (Quake III's
/// layout), and where [`demo_player`] loads it from.
pub const DEMO_PLAYER_DIR: &str = "models/players/demo";

/// The skin sets the demo player has: each `.skin` file names a picture of
/// its own (the demo skin; the others tinted).
pub const DEMO_PLAYER_SKINS: [&str; 3] = ["default", "red", "blue"];

/// One `animation.cfg` entry: which demo frames it plays.
struct Entry {
    animation: PlayerAnimation,
    source: Quake2Player,
    /// Frames of `source`, from its first (0).
    frames: RangeInclusive<u32>,
    looping: bool,
    fps: u32,
}

const fn entry(
    animation: PlayerAnimation,
    source: Quake2Player,
    frames: RangeInclusive<u32>,
    looping: bool,
    fps: u32,
) -> Entry {
    Entry {
        animation,
        source,
        frames,
        looping,
        fps,
    }
}

/// Quake III's 25 animations, in `animation.cfg`'s order, from the demo's
/// Quake II ones.
fn entries() -> [Entry; 25] {
    use PlayerAnimation as A;
    use Quake2Player as Q;
    let all = |q: Q| 0..=q.frames().count() as u32 - 1;
    let last = |q: Q| {
        let n = q.frames().count() as u32 - 1;
        n..=n
    };
    [
        entry(A::BothDeath1, Q::Death1, all(Q::Death1), false, 10),
        entry(A::BothDead1, Q::Death1, last(Q::Death1), false, 10),
        entry(A::BothDeath2, Q::Death2, all(Q::Death2), false, 10),
        entry(A::BothDead2, Q::Death2, last(Q::Death2), false, 10),
        entry(A::BothDeath3, Q::Death3, all(Q::Death3), false, 10),
        entry(A::BothDead3, Q::Death3, last(Q::Death3), false, 10),
        entry(A::TorsoGesture, Q::Wave, all(Q::Wave), false, 10),
        entry(A::TorsoAttack, Q::Attack, all(Q::Attack), false, 10),
        entry(A::TorsoAttack2, Q::Point, all(Q::Point), false, 10),
        entry(A::TorsoDrop, Q::Pain1, all(Q::Pain1), false, 10),
        entry(A::TorsoRaise, Q::Pain2, all(Q::Pain2), false, 10),
        entry(A::TorsoStand, Q::Stand, all(Q::Stand), true, 10),
        entry(A::TorsoStand2, Q::Salute, all(Q::Salute), true, 10),
        entry(A::LegsWalkcr, Q::CrouchWalk, all(Q::CrouchWalk), true, 10),
        entry(A::LegsWalk, Q::Run, all(Q::Run), true, 7),
        entry(A::LegsRun, Q::Run, all(Q::Run), true, 10),
        entry(A::LegsBack, Q::Run, all(Q::Run), true, 10),
        entry(A::LegsSwim, Q::Run, all(Q::Run), true, 6),
        entry(A::LegsJump, Q::Jump, 0..=2, false, 10),
        entry(A::LegsLand, Q::Jump, 3..=5, false, 10),
        entry(A::LegsJumpb, Q::Jump, 0..=2, false, 10),
        entry(A::LegsLandb, Q::Jump, 3..=5, false, 10),
        entry(A::LegsIdle, Q::Stand, all(Q::Stand), true, 10),
        entry(A::LegsIdlecr, Q::CrouchStand, all(Q::CrouchStand), true, 10),
        entry(A::LegsTurn, Q::Stand, 0..=7, true, 10),
    ]
}

/// Which part a bone is cut into: 0 the legs, 1 the torso, 2 the head.
fn part_of(bone: Bone) -> usize {
    match bone {
        Bone::Pelvis
        | Bone::ThighL
        | Bone::ShinL
        | Bone::FootL
        | Bone::ThighR
        | Bone::ShinR
        | Bone::FootR => 0,
        Bone::Head => 2,
        _ => 1,
    }
}

/// Where the gun's grip is in the right hand's rest pose: the palm, below
/// the wrist.
const GRIP_DROP: f64 = 3.0;

/// One demo frame posed: every vertex's position and (unnormalised) normal
/// in the model's space, and the bones as posed.
struct Posed {
    positions: Vec<V3>,
    normals: Vec<V3>,
    world: [Rigid; body::BONE_COUNT],
}

/// A part's surface as it is built: the welded corners (demo vertex, st)
/// it keeps, its triangles, and each frame's vertices.
struct Surface {
    corners: Vec<(u16, u16)>,
    triangles: Vec<[i32; 3]>,
    vertices: Vec<Md3Vertex>,
}

impl Surface {
    /// The corners and triangles of `part` in the demo's rest mesh, wound
    /// as files wind them (clockwise seen from outside).
    fn new(mesh: &body::RestMesh, part: usize) -> Surface {
        let mut corners: Vec<(u16, u16)> = Vec::new();
        let mut triangles = Vec::new();
        for tri in &mesh.triangles {
            if part_of(mesh.bones[tri[0].0 as usize]) != part {
                continue;
            }
            let mut index = |c: (u16, u16)| -> i32 {
                let at = corners.iter().position(|&k| k == c).unwrap_or_else(|| {
                    corners.push(c);
                    corners.len() - 1
                });
                at as i32
            };
            let [a, b, c] = tri.map(&mut index);
            triangles.push([a, c, b]);
        }
        Surface {
            corners,
            triangles,
            vertices: Vec::new(),
        }
    }

    /// Adds a frame: each corner's vertex through `place` (position and
    /// normal into the part's space).
    fn add_frame(&mut self, posed: &Posed, place: &dyn Fn(V3, V3) -> (V3, V3)) {
        for &(v, _) in &self.corners {
            let (p, n) = place(posed.positions[v as usize], posed.normals[v as usize]);
            self.vertices.push(Md3Vertex {
                xyz: p.map(|c| (c * 64.0).round().clamp(-32768.0, 32767.0) as i16),
                normal: encode_lat_long(n),
            });
        }
    }

    /// The surface's parts: `name`, wearing `shader`.
    fn parts(self, mesh: &body::RestMesh, name: &str, shader: &str) -> Md3SurfaceParts {
        let st = |i: u16| mesh.st[i as usize];
        let tex_coords = self
            .corners
            .iter()
            .map(|&(_, s)| {
                let [s, t] = st(s);
                // As an MD2's texel coordinates are drawn: the texel's centre.
                [
                    (f32::from(s) + 0.5) / SKIN_WIDTH as f32,
                    (f32::from(t) + 0.5) / SKIN_HEIGHT as f32,
                ]
            })
            .collect();
        Md3SurfaceParts {
            name: name.to_owned(),
            flags: 0,
            shaders: vec![Md3Shader::new(shader)],
            triangles: self.triangles,
            tex_coords,
            vertices: self.vertices,
        }
    }
}

/// `rigid`'s rotation as a tag's axes (the images of X, Y and Z).
fn axes(rotation: Quat) -> [[f32; 3]; 3] {
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        .map(|e| rotation.rotate(e).map(|c| c as f32))
}

/// A tag named `name` at `origin`, turned by `rotation`.
fn tag(name: &str, origin: V3, rotation: Quat) -> Md3Tag {
    Md3Tag::new(name, origin.map(|c| c as f32), axes(rotation))
}

/// The three parts' models and `animation.cfg`, built once.
struct Built {
    parts: [Md3Model; 3],
    config: String,
}

fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(build)
}

fn build() -> Built {
    let parts = body::parts();
    let mesh = body::rest_mesh(&parts);
    let n = mesh.positions.len();
    let entries = entries();
    let pose = |q: Quake2Player, k: u32| -> Posed {
        let mut positions = vec![[0.0; 3]; n];
        let mut normals = vec![[0.0; 3]; n];
        let world = pose_mesh(&mesh, &animation::pose(q, k), &mut positions);
        vertex_normals(&mesh, &positions, &mut normals);
        Posed {
            positions,
            normals,
            world,
        }
    };
    let spine = |posed: &Posed| {
        let bone = posed.world[Bone::Spine as usize];
        (bone.apply(BONES[Bone::Spine as usize].pivot), bone.rotation)
    };

    // Quake III's layout: both models start with the BOTH_ frames; the
    // torso's then hold the TORSO_ ones, the legs' the LEGS_ ones, which
    // animation.cfg numbers as if they came after the torso's.
    let is_torso = PlayerAnimation::is_torso;
    let is_legs = PlayerAnimation::is_legs;
    let mut lower = Surface::new(&mesh, 0);
    let mut upper = Surface::new(&mesh, 1);
    let (mut lower_names, mut upper_names) = (Vec::new(), Vec::new());
    let (mut lower_tags, mut upper_tags) = (Vec::new(), Vec::new());
    let mut config = String::from(
        "// The md2-wgpu demo soldier as a Quake III player (made in code).\nsex m\n\n",
    );
    let torso_frames: u32 = entries
        .iter()
        .filter(|e| is_torso(e.animation))
        .map(|e| e.frames.clone().count() as u32)
        .sum();
    for e in &entries {
        let count = e.frames.clone().count() as u32;
        let first = if is_legs(e.animation) {
            lower_names.len() as u32 + torso_frames
        } else if is_torso(e.animation) {
            upper_names.len() as u32
        } else {
            lower_names.len() as u32
        };
        let looping = if e.looping { count } else { 0 };
        config.push_str(&format!(
            "{first}\t{count}\t{looping}\t{}\t// {}\n",
            e.fps,
            e.animation.name()
        ));
        for k in e.frames.clone() {
            let posed = pose(e.source, k);
            let name = e.source.frame_name(k);
            let (origin, rotation) = spine(&posed);
            let back = rotation.conjugate();
            if !is_torso(e.animation) {
                lower.add_frame(&posed, &|p, n| (p, n));
                lower_tags.push(tag("tag_torso", origin, rotation));
                lower_names.push(name.clone());
            }
            if !is_legs(e.animation) {
                let local = |p: V3| back.rotate(sub(p, origin));
                upper.add_frame(&posed, &|p, n| (local(p), back.rotate(n)));
                let head = posed.world[Bone::Head as usize];
                let neck = head.apply(BONES[Bone::Head as usize].pivot);
                upper_tags.push(tag("tag_head", local(neck), back.then_after(head.rotation)));
                let hand = posed.world[Bone::HandR as usize];
                let forearm = posed.world[Bone::ForearmR as usize];
                let wrist_at = BONES[Bone::HandR as usize].pivot;
                let wrist = hand.apply(wrist_at);
                let elbow = forearm.apply(BONES[Bone::ForearmR as usize].pivot);
                let grip = hand.apply([wrist_at[0], wrist_at[1], wrist_at[2] - GRIP_DROP]);
                // The gun (its barrel along +X) along the forearm: down as
                // the arm hangs, forward as it aims.
                let along =
                    back.then_after(Quat::from_to([1.0, 0.0, 0.0], normalize(sub(wrist, elbow))));
                upper_tags.push(tag("tag_weapon", local(grip), along));
                upper_names.push(name);
            }
        }
    }

    // The head: one frame, in its own space at the neck, as it rests.
    let mut head = Surface::new(&mesh, 2);
    let mut rest_normals = vec![[0.0; 3]; n];
    vertex_normals(&mesh, &mesh.positions, &mut rest_normals);
    let neck = BONES[Bone::Head as usize].pivot;
    let rest = Posed {
        positions: mesh.positions.clone(),
        normals: rest_normals,
        world: [Rigid::IDENTITY; body::BONE_COUNT],
    };
    head.add_frame(&rest, &|p, n| (sub(p, neck), n));

    let picture = format!("{DEMO_PLAYER_DIR}/skin.tga");
    let model = |name: &str, frames: Vec<String>, tags: Vec<Md3Tag>, surface: Md3SurfaceParts| {
        Md3Model::from_parts(Md3Parts {
            name: format!("{DEMO_PLAYER_DIR}/{name}.md3"),
            frame_names: frames,
            tags,
            surfaces: vec![surface],
            flags: 0,
        })
        .expect("the demo player's parts are consistent by construction")
    };
    let parts = [
        model(
            "lower",
            lower_names,
            lower_tags,
            lower.parts(&mesh, "l_legs", &picture),
        ),
        model(
            "upper",
            upper_names,
            upper_tags,
            upper.parts(&mesh, "u_torso", &picture),
        ),
        model(
            "head",
            vec!["head".to_owned()],
            Vec::new(),
            head.parts(&mesh, "h_head", &picture),
        ),
    ];
    Built { parts, config }
}

/// A skin set's picture: the demo skin, tinted for a team.
fn picture(skin: &str) -> image::RgbaImage {
    let mut image = demo_skin();
    let tint: [f32; 3] = match skin {
        "red" => [1.0, 0.45, 0.4],
        "blue" => [0.45, 0.55, 1.0],
        _ => return image,
    };
    for p in image.pixels_mut() {
        for (c, t) in p.0.iter_mut().zip(tint) {
            *c = (f32::from(*c) * t).round() as u8;
        }
    }
    image
}

/// The demo soldier as a Quake III player's files, by name, as a folder
/// of them holds them (its skins name them in [`DEMO_PLAYER_DIR`]):
/// `lower.md3`, `upper.md3` and `head.md3` (one surface each: `l_legs`,
/// `u_torso`, `h_head`), `animation.cfg` (Quake III's 25 animations from
/// the demo's: `LEGS_RUN` its run, `TORSO_ATTACK` its attack,
/// `TORSO_GESTURE` its wave, `BOTH_DEATH1` its first death...), and for
/// each of [`DEMO_PLAYER_SKINS`] three `.skin` files and a picture
/// (`skin.tga`, `red.tga`, `blue.tga`).
///
/// ```
/// let files = md2_wgpu::demo::demo_player_files();
/// assert!(files.iter().any(|(name, _)| name == "upper_red.skin"));
/// ```
pub fn demo_player_files() -> Vec<(String, Vec<u8>)> {
    let built = built();
    let mut files: Vec<(String, Vec<u8>)> = ["lower", "upper", "head"]
        .iter()
        .zip(&built.parts)
        .map(|(name, model)| (format!("{name}.md3"), model.to_bytes()))
        .collect();
    files.push((
        "animation.cfg".to_owned(),
        built.config.clone().into_bytes(),
    ));
    for skin in DEMO_PLAYER_SKINS {
        let file = if skin == "default" { "skin" } else { skin };
        let path = format!("{DEMO_PLAYER_DIR}/{file}.tga");
        for (part, surface, tags) in [
            ("lower", "l_legs", "tag_torso,\n"),
            ("upper", "u_torso", "tag_head,\ntag_weapon,\n"),
            ("head", "h_head", ""),
        ] {
            let text = format!("{surface},{path}\n{tags}");
            files.push((format!("{part}_{skin}.skin"), text.into_bytes()));
        }
        files.push((format!("{file}.tga"), tga(&picture(skin))));
    }
    files
}

/// The demo soldier as a Quake III player with the skin set `skin` (one
/// of [`DEMO_PLAYER_SKINS`]), holding [`demo_weapon`](super::demo_weapon):
/// [`demo_player_files`] answered to md2-wgpu's player loader. Its
/// textures are the pictures among those files.
///
/// ```
/// use md2_wgpu::format::md3::{PlayerAnimation, PlayerPart};
///
/// let player = md2_wgpu::demo::demo_player("default").unwrap();
/// let run = player.animations().clip(PlayerAnimation::LegsRun).unwrap();
/// let attack = player.animations().clip(PlayerAnimation::TorsoAttack).unwrap();
/// // Legs running, torso attacking: each part where its tag puts it.
/// let placed = player.parts_at(md2_wgpu::anim::FrameLerp::still(run.first),
///     md2_wgpu::anim::FrameLerp::still(attack.first)).unwrap();
/// assert!(placed.head.w_axis.z > placed.upper.w_axis.z, "the head is above the torso");
/// assert_eq!(player.part(PlayerPart::Upper).surfaces().len(), 1);
/// ```
pub fn demo_player(skin: &str) -> Result<Md3Player, crate::format::md3::Md3PlayerError> {
    let files = demo_player_files();
    let by_name = |name: &str| {
        files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
    };
    Ok(Md3Player::from_named(DEMO_PLAYER_DIR, skin, by_name)?.with_weapon(weapon::demo_weapon()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{FrameLerp, reference};
    use crate::format::md3::PlayerPart;

    /// Legs and torso on the same demo frame put every vertex where the
    /// MD2 has it: within the MD2's quantisation (half its frame's largest
    /// step on each axis), MD3's (1/128 a unit on each axis) and f32
    /// rounding of the tags' products (1e-3), as a distance.
    #[test]
    fn legs_and_torso_of_the_same_frame_are_the_md2s_pose() {
        let player = demo_player("default").unwrap();
        let md2 = super::super::demo_model();
        let mesh = body::rest_mesh(&body::parts());
        let cfg = player.animations();
        let idle = cfg.clip(PlayerAnimation::LegsIdle).unwrap();
        let stand = cfg.clip(PlayerAnimation::TorsoStand).unwrap();
        let n = md2.keyframes().vertex_count();
        for k in [0, 7, 23, 39] {
            // The demo's stand is frames 0 to 39.
            let mut positions = vec![[0.0; 3]; n];
            let mut normals = vec![[0.0; 3]; n];
            let pose = FrameLerp::still(k).into();
            reference::blend(&md2, &pose, &mut positions, &mut normals).unwrap();
            let step = md2.keyframes().frames()[k as usize]
                .scale
                .iter()
                .fold(0.0f32, |a, &b| a.max(b));
            let bound = 3f32.sqrt() * (step / 2.0 + 1.0 / 128.0) + 1e-3;
            let at = player
                .parts_at(
                    FrameLerp::still(idle.first + k),
                    FrameLerp::still(stand.first + k),
                )
                .unwrap();
            let mut worst = 0.0f32;
            for (index, part, matrix, frame) in [
                (0, PlayerPart::Lower, at.lower, idle.first + k),
                (1, PlayerPart::Upper, at.upper, stand.first + k),
                (2, PlayerPart::Head, at.head, 0),
            ] {
                let corners = Surface::new(&mesh, index).corners;
                let stored = player.part(part).surfaces()[0].frame_vertices(frame as usize);
                assert_eq!(stored.len(), corners.len());
                for (vertex, &(v, _)) in stored.iter().zip(&corners) {
                    let p = matrix.transform_point3(vertex.position().into());
                    let d = (p - glam::Vec3::from(positions[v as usize])).length();
                    worst = worst.max(d / bound);
                }
            }
            eprintln!(
                "demo player, stand frame {k}: {:.0}% of the bound",
                worst * 100.0
            );
            assert!(worst <= 1.0, "stand frame {k}: past the bound");
        }
    }

    #[test]
    fn normals_encode_to_their_nearest_stored_pair() {
        for n in [
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
            [1.0, 0.0, 0.0],
            [0.3, -0.5, 0.81],
        ] {
            let packed = encode_lat_long(n);
            let d = crate::model::normal_from_lat_long(packed);
            let n = normalize(n);
            let dot = f64::from(d[0]) * n[0] + f64::from(d[1]) * n[1] + f64::from(d[2]) * n[2];
            // A step is 2π/256: the nearest pair is within half a step of
            // each angle, about 0.025 rad in all.
            assert!(dot > (0.025f64).cos(), "{n:?}: {dot}");
        }
    }

    #[test]
    fn the_animation_config_numbers_frames_as_quake_iii_does() {
        let player = demo_player("red").unwrap();
        let cfg = player.animations();
        for animation in PlayerAnimation::ALL
            .into_iter()
            .take(PlayerAnimation::REQUIRED)
        {
            let frames = cfg.frames_in_model(animation).unwrap();
            let model = if animation.is_legs() {
                PlayerPart::Lower
            } else {
                PlayerPart::Upper
            };
            let count = player.part(model).frames().len() as u32;
            assert!(
                frames.end <= count,
                "{animation:?}: {frames:?} past {count}"
            );
            let name = player.part(model).frames()[frames.start as usize].name();
            assert!(!name.is_empty());
        }
        // The run plays the demo's run frames on the legs.
        let run = cfg.frames_in_model(PlayerAnimation::LegsRun).unwrap();
        assert_eq!(
            player.part(PlayerPart::Lower).frames()[run.start as usize].name(),
            "run1"
        );
        assert_eq!(player.skin_name(), "red");
        assert!(player.weapon().is_some());
    }
}
