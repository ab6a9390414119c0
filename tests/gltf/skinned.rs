//! The demo soldier as a skinned glTF (`demo::demo_skinned_glb`): read back
//! with the gltf crate and posed by its skin at every key of every
//! animation, it must put each vertex where the MD2 frame does, within
//! that frame's quantisation; the Khronos validator must accept it.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use gltf::Semantic;
use gltf::animation::util::{ReadOutputs, Rotations};
use md2_wgpu::{
    Clip,
    anim::reference,
    mesh::{RenderMesh, TriangleOrder},
};

use crate::cases::{self, Read, exported};

/// A joint's keys in one animation: translations and rotations.
#[derive(Default)]
struct JointKeys {
    translations: Vec<Vec3>,
    rotations: Vec<Quat>,
}

#[test]
fn the_skinned_demo_poses_every_key_where_the_md2_frame_is() {
    let glb = md2_wgpu::demo::demo_skinned_glb();
    let read = Read::new(&glb);
    let data = |_: gltf::Buffer<'_>| Some(read.blob.as_slice());
    let md2 = md2_wgpu::demo::demo_model();
    let model = md2.keyframes();
    let mesh = RenderMesh::new(model, TriangleOrder::VertexCache);

    let skin = read.doc.skins().next().expect("a skin");
    assert_eq!(read.doc.skins().count(), 1);
    assert!(
        skin.inverse_bind_matrices().is_none(),
        "the joints rest at the identity"
    );
    let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    assert_eq!(joints.len(), 15, "the demo's 15 bones");
    // Each joint's parent among the joints (the skeleton's root has none).
    let mut parent: HashMap<usize, usize> = HashMap::new();
    for node in read.doc.nodes() {
        for child in node.children() {
            if joints.contains(&node.index()) {
                parent.insert(child.index(), node.index());
            }
        }
    }
    for node in read.doc.nodes().filter(|n| joints.contains(&n.index())) {
        let (t, r, s) = node.transform().decomposed();
        assert_eq!((t, r, s), ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
    }

    let primitive = read.primitive();
    let reader = primitive.reader(data);
    let positions: Vec<Vec3> = reader
        .read_positions()
        .expect("positions")
        .map(Vec3::from)
        .collect();
    let normals: Vec<Vec3> = reader
        .read_normals()
        .expect("normals")
        .map(Vec3::from)
        .collect();
    let vertex_joints: Vec<[u16; 4]> = reader
        .read_joints(0)
        .expect("JOINTS_0")
        .into_u16()
        .collect();
    let weights: Vec<[f32; 4]> = reader
        .read_weights(0)
        .expect("WEIGHTS_0")
        .into_f32()
        .collect();
    assert_eq!(
        positions.len(),
        mesh.corners().len(),
        "the renderer's corners"
    );
    assert!(primitive.get(&Semantic::TexCoords(0)).is_some());
    for (n, w) in normals.iter().zip(&weights) {
        assert!((n.length() - 1.0).abs() < 1e-5, "unit normals: {n}");
        assert_eq!(*w, [1.0, 0.0, 0.0, 0.0], "one joint at full weight");
    }
    // Wound for glTF: each face's right-hand normal leans the way its
    // corners' normals do.
    let indices = read.indices();
    let outward = indices
        .chunks(3)
        .filter(|t| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
            let face = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
            face.dot(normals[a] + normals[b] + normals[c]) > 0.0
        })
        .count();
    assert_eq!(outward, indices.len() / 3, "every face wound outward");

    let clips = Clip::for_model(model);
    let animations: Vec<_> = read.doc.animations().collect();
    let names: Vec<&str> = animations.iter().filter_map(|a| a.name()).collect();
    let want: Vec<&str> = clips.iter().map(|c| c.name.as_ref()).collect();
    assert_eq!(names, want, "to_glb's animations, in its order");

    let n = model.vertex_count();
    let (mut p, mut nn) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let mut worst = 0f64;
    let mut keys_checked = 0;
    for (animation, clip) in animations.iter().zip(&clips) {
        let mut keys: HashMap<usize, JointKeys> = HashMap::new();
        for channel in animation.channels() {
            let node = channel.target().node().index();
            let entry = keys.entry(node).or_default();
            match channel.reader(data).read_outputs().expect("outputs") {
                ReadOutputs::Translations(t) => entry.translations = t.map(Vec3::from).collect(),
                ReadOutputs::Rotations(Rotations::F32(r)) => {
                    entry.rotations = r.map(Quat::from_array).collect()
                }
                _ => panic!(
                    "{}: only translations and rotations, not {:?}",
                    clip.name,
                    channel.target().property()
                ),
            }
        }
        assert_eq!(keys.len(), 15, "{}: every joint animated", clip.name);
        let mut frames: Vec<u32> = clip.frames().collect();
        if clip.looping {
            frames.push(clip.first);
        }
        for (k, &f) in frames.iter().enumerate() {
            // Each joint's world transform: its parents' after its own.
            let world: HashMap<usize, Mat4> = joints
                .iter()
                .map(|&j| {
                    let mut m = Mat4::IDENTITY;
                    let mut at = Some(j);
                    while let Some(node) = at {
                        let key = &keys[&node];
                        let local =
                            Mat4::from_rotation_translation(key.rotations[k], key.translations[k]);
                        m = local * m;
                        at = parent.get(&node).copied();
                    }
                    (j, m)
                })
                .collect();
            reference::decode_frame(model, f, &mut p, &mut nn).unwrap();
            let frame = &model.frames()[f as usize];
            // Half the frame's step on each axis, in glTF's axes, and f32's
            // rounding through four joints at 30 units (1e-4 is ~50× it).
            let half = exported(frame.scale, 1.0).map(|s| f64::from(s) / 2.0 + 1e-4);
            for (c, corner) in mesh.corners().iter().enumerate() {
                let joint = joints[usize::from(vertex_joints[c][0])];
                let got = world[&joint].transform_point3(positions[c]);
                let want = exported(p[corner.xyz as usize], 1.0);
                for axis in 0..3 {
                    let off = (f64::from(got[axis]) - f64::from(want[axis])).abs();
                    assert!(
                        off <= half[axis],
                        "{} key {k} (frame {f}) corner {c} axis {axis}: off by {off}, allowed {}",
                        clip.name,
                        half[axis]
                    );
                    worst = worst.max(off / half[axis]);
                }
            }
            keys_checked += 1;
        }
    }
    eprintln!(
        "skinned demo: {keys_checked} keys, {} corners each, worst {:.3} of the allowed half step",
        mesh.corners().len(),
        worst
    );
    assert!(keys_checked >= 198, "every frame is some animation's key");
}

#[test]
fn the_khronos_validator_accepts_the_skinned_demo() {
    let Some((modules, dir)) = crate::node::node_and_out_dir("skinned") else {
        return;
    };
    let path = dir.join(cases::file_name("demo-skinned", ".glb"));
    std::fs::write(&path, md2_wgpu::demo::demo_skinned_glb()).unwrap();
    let bad = crate::node::validator_complaints(&modules, &[path]);
    assert!(
        bad.is_empty(),
        "the validator complained:\n{}",
        bad.join("\n")
    );
}
