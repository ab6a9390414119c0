//! The soldier as a skinned glTF: the skeleton it is built from, animated,
//! instead of its frames as morph targets. What a Bevy (or three.js) user
//! would draw the same character with, so that benchmarks can set skeletal
//! animation beside md2-wgpu's keyframes on one model.

use super::body::{self, BONE_COUNT, BONES};
use super::math::{Rigid, V3, normalize};
use super::soldier::{pose_mesh, vertex_normals};
use super::{animation, demo_model, demo_skin};
use crate::anim::{QUAKE2_FPS, Quake2Player};
use crate::gltf::{Joint, JointPose, SkinnedSource, skinned_to_glb};

/// The joints' names, in the order of the skeleton's bones.
const JOINT_NAMES: [&str; BONE_COUNT] = [
    "pelvis",
    "spine",
    "head",
    "upper_arm.L",
    "forearm.L",
    "hand.L",
    "upper_arm.R",
    "forearm.R",
    "hand.R",
    "thigh.L",
    "shin.L",
    "foot.L",
    "thigh.R",
    "shin.R",
    "foot.R",
];

/// [`demo_model`] as a skinned GLB: its 15 bones as joints (every vertex
/// follows one, with weight 1), its rest mesh with [`demo_skin`], and its
/// twenty animations as joint rotations and translations at Quake II's 10
/// frames a second, a key per frame, the animations' names and order as
/// [`to_glb`](crate::gltf::to_glb) gives them. Axes, units, texture
/// coordinates and winding as `to_glb`'s; the mesh's vertices are its
/// corners in `to_glb`'s order.
///
/// At every key the skinned vertices are where the MD2 frame has them,
/// within the frame's quantisation (half its step on each axis); between
/// keys the joints turn by `slerp`, where the MD2 moves each vertex in a
/// straight line. Normals turn with their joints, where the MD2's are
/// recomputed for each frame (they differ at the joints).
///
/// ```
/// let glb = md2_wgpu::demo::demo_skinned_glb();
/// assert_eq!(&glb[..4], b"glTF");
/// ```
pub fn demo_skinned_glb() -> Vec<u8> {
    let model = demo_model();
    let parts = body::parts();
    let mesh = body::rest_mesh(&parts);
    let n = mesh.positions.len();
    let mut positions = vec![[0.0; 3]; n];
    let mut frames = Vec::with_capacity(Quake2Player::FRAME_COUNT as usize);
    for anim in Quake2Player::ALL {
        for k in 0..anim.frames().count() as u32 {
            let world = pose_mesh(&mesh, &animation::pose(anim, k), &mut positions);
            frames.push(local_poses(&world));
        }
    }
    let mut normals = vec![[0.0; 3]; n];
    vertex_normals(&mesh, &mesh.positions, &mut normals);
    let f32s = |v: &V3| v.map(|c| c as f32);
    let rest_positions: Vec<[f32; 3]> = mesh.positions.iter().map(f32s).collect();
    let rest_normals: Vec<[f32; 3]> = normals.iter().map(|n| f32s(&normalize(*n))).collect();
    let vertex_joints: Vec<u8> = mesh.bones.iter().map(|&b| b as u8).collect();
    let joints: Vec<Joint> = BONES
        .iter()
        .zip(JOINT_NAMES)
        .map(|(def, name)| Joint {
            name,
            parent: def.parent.map(|p| p as usize),
        })
        .collect();
    let skin = demo_skin();
    let source = SkinnedSource {
        name: "soldier",
        model: model.keyframes(),
        rest_positions: &rest_positions,
        rest_normals: &rest_normals,
        vertex_joints: &vertex_joints,
        joints: &joints,
        frames: &frames,
        skin: &skin,
        fps: QUAKE2_FPS,
    };
    skinned_to_glb(&source)
        .expect("the demo's skeleton, mesh and frames agree by construction")
        .glb
}

/// Each bone's transform in its parent's space, from the posed world
/// transforms.
fn local_poses(world: &[Rigid; BONE_COUNT]) -> Vec<JointPose> {
    BONES
        .iter()
        .zip(world)
        .map(|(def, w)| {
            let local = match def.parent {
                Some(p) => world[p as usize].inverse().compose(w),
                None => *w,
            };
            JointPose {
                rotation: local.rotation.0.map(|c| c as f32),
                translation: local.translation.map(|c| c as f32),
            }
        })
        .collect()
}
