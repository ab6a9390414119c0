//! A skinned character to glTF: one mesh whose vertices each follow one
//! joint, the joints as a node hierarchy, every clip an animation of the
//! joints' rotations and translations. What skeletal animation (Bevy's
//! skinned meshes, three.js's `SkinnedMesh`) draws, so that it can be set
//! beside a keyframe model of the very same character
//! ([`demo::demo_skinned_glb`](crate::demo::demo_skinned_glb)).
//!
//! The mesh is the keyframe model's own [`RenderMesh`] (its welded corners
//! in the same order, its triangles wound for glTF as [`to_glb`](super::to_glb)
//! winds them), at the rest pose; axes and texture coordinates as
//! [`to_glb`](super::to_glb) maps them. Each vertex has one joint with
//! weight 1 and the joints rest at the identity, so the inverse bind
//! matrices are the identity and left out, as glTF allows.

use std::collections::BTreeMap;

use ::gltf::json;
use image::RgbaImage;
use json::accessor::{ComponentType, Type};
use json::animation::{Interpolation, Property};
use json::buffer::Target as ViewTarget;
use json::mesh::{Mode, Primitive, Semantic};
use json::validation::Checked;
use json::{Index, Node};

use super::animation::{add_channel, clip_keys};
use super::buffer::{AccessorSpec, Builder, float_bounds, put_f32s};
use super::error::GltfError;
use super::export::{asset, finish_glb};
use super::frames::to_gltf_axes;
use super::materials;
use super::options::MAX_GLB_BYTES;
use super::report::{GltfExport, GltfReport};
use crate::anim::Clip;
use crate::mesh::{RenderMesh, TriangleOrder};
use crate::model::{Bounds, KeyframeModel};

/// A joint: its name and its parent's index (a parent comes first).
pub(crate) struct Joint {
    pub name: &'static str,
    pub parent: Option<usize>,
}

/// A joint's transform in its parent's space (the root's in the model's),
/// in Quake's axes and model units: `x ↦ rotation · x + translation`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointPose {
    /// A unit quaternion, `[x, y, z, w]`.
    pub rotation: [f32; 4],
    pub translation: [f32; 3],
}

/// What the export needs of a skinned character.
pub(crate) struct SkinnedSource<'a> {
    pub name: &'a str,
    /// The keyframe model the character is: its corners, triangles, frame
    /// count and clips.
    pub model: &'a KeyframeModel,
    /// Each of the model's vertices at the rest pose (Quake axes).
    pub rest_positions: &'a [[f32; 3]],
    /// Each vertex's unit normal at the rest pose.
    pub rest_normals: &'a [[f32; 3]],
    /// The joint each vertex follows.
    pub vertex_joints: &'a [u8],
    pub joints: &'a [Joint],
    /// For each of the model's frames, every joint's pose.
    pub frames: &'a [Vec<JointPose>],
    pub skin: &'a RgbaImage,
    /// The clips' rate, frames a second.
    pub fps: f32,
}

/// `source` as a GLB.
pub(crate) fn skinned_to_glb(source: &SkinnedSource<'_>) -> Result<GltfExport, GltfError> {
    let model = source.model;
    let mesh = RenderMesh::new(model, TriangleOrder::VertexCache);
    let corners = mesh.corners();
    let vertex = |xyz: u32| xyz as usize;
    let joint_count = source.joints.len();
    let consistent = corners.iter().all(|c| {
        vertex(c.xyz) < source.rest_positions.len()
            && vertex(c.xyz) < source.rest_normals.len()
            && source
                .vertex_joints
                .get(vertex(c.xyz))
                .is_some_and(|&j| usize::from(j) < joint_count)
    }) && source.frames.len() == model.frame_count() as usize
        && source.frames.iter().all(|f| f.len() == joint_count);
    if !consistent {
        return Err(GltfError::Write {
            reason: "the skinned source's vertices, joints and frames disagree".into(),
        });
    }

    let mut b = Builder::new(asset(), 0);
    let mut attributes = BTreeMap::new();
    let positions: Vec<[f32; 3]> = corners
        .iter()
        .map(|c| to_gltf_axes(source.rest_positions[vertex(c.xyz)]))
        .collect();
    let bounds = Bounds::around(&positions);
    let view = b.view(None, Some(ViewTarget::ArrayBuffer), |bin| {
        put_f32s(bin, positions.as_flattened())
    });
    let position = b.accessor(
        AccessorSpec::dense(view, 0, corners.len(), ComponentType::F32, Type::Vec3)
            .bounds(float_bounds(&bounds.min), float_bounds(&bounds.max)),
    );
    attributes.insert(Checked::Valid(Semantic::Positions), position);
    let n = corners.len();
    let normal = vertex_attribute(&mut b, n, ComponentType::F32, Type::Vec3, |bin| {
        for c in corners {
            put_f32s(bin, &to_gltf_axes(source.rest_normals[vertex(c.xyz)]));
        }
    });
    attributes.insert(Checked::Valid(Semantic::Normals), normal);
    let uv = vertex_attribute(&mut b, n, ComponentType::F32, Type::Vec2, |bin| {
        for c in corners {
            put_f32s(bin, &c.uv);
        }
    });
    attributes.insert(Checked::Valid(Semantic::TexCoords(0)), uv);
    // One joint per vertex, at full weight.
    let joints = vertex_attribute(&mut b, n, ComponentType::U8, Type::Vec4, |bin| {
        for c in corners {
            bin.extend_from_slice(&[source.vertex_joints[vertex(c.xyz)], 0, 0, 0]);
        }
    });
    attributes.insert(Checked::Valid(Semantic::Joints(0)), joints);
    let weights = vertex_attribute(&mut b, n, ComponentType::F32, Type::Vec4, |bin| {
        for _ in corners {
            put_f32s(bin, &[1.0, 0.0, 0.0, 0.0]);
        }
    });
    attributes.insert(Checked::Valid(Semantic::Weights(0)), weights);
    let triangles = mesh.indices().chunks_exact(3).map(|t| [t[0], t[1], t[2]]);
    let short = corners.len() <= usize::from(u16::MAX);
    let indices = b.reversed_triangles(triangles, mesh.indices().len(), short);
    let skin = materials::encode_one(0, "skin".into(), source.skin)?;
    let material = materials::write(&mut b, std::slice::from_ref(&skin));

    let gltf_mesh = b.root.push(json::Mesh {
        extensions: None,
        extras: None,
        name: Some(source.name.into()),
        primitives: vec![Primitive {
            attributes,
            extensions: None,
            extras: None,
            indices: Some(indices),
            material: material.first().copied(),
            mode: Checked::Valid(Mode::Triangles),
            targets: None,
        }],
        weights: None,
    });

    // The joints, at rest (the identity), each under its parent.
    let joint_nodes: Vec<Index<Node>> = source
        .joints
        .iter()
        .map(|j| {
            b.root.push(Node {
                name: Some(j.name.into()),
                ..Default::default()
            })
        })
        .collect();
    let mut roots = Vec::new();
    for (i, j) in source.joints.iter().enumerate() {
        match j.parent {
            Some(p) if p < i => {
                if let Some(node) = b.root.nodes.get_mut(joint_nodes[p].value()) {
                    node.children
                        .get_or_insert_with(Vec::new)
                        .push(joint_nodes[i]);
                }
            }
            Some(_) => {
                return Err(GltfError::Write {
                    reason: format!("joint {} comes before its parent", j.name),
                });
            }
            None => roots.push(joint_nodes[i]),
        }
    }
    let skin_index = b.root.push(json::Skin {
        extensions: None,
        extras: None,
        inverse_bind_matrices: None,
        joints: joint_nodes.clone(),
        name: Some(source.name.into()),
        skeleton: roots.first().copied(),
    });
    let mesh_node = b.root.push(Node {
        mesh: Some(gltf_mesh),
        skin: Some(skin_index),
        name: Some(format!("{} mesh", source.name)),
        ..Default::default()
    });
    // The mesh node is a root of the scene, as glTF wants a skinned
    // mesh's node (its parents' transforms would not move it), beside the
    // skeleton's root.
    let mut nodes = roots;
    nodes.push(mesh_node);
    let scene = b.root.push(json::Scene {
        extensions: None,
        extras: None,
        name: Some(source.name.into()),
        nodes,
    });
    b.root.scene = Some(scene);

    let clips: Vec<Clip> = Clip::for_model(model)
        .into_iter()
        .map(|c| c.with_fps(source.fps))
        .collect();
    for clip in clips {
        animate(&mut b, source, &joint_nodes, clip)?;
    }
    b.finish_buffer();
    let bin_bytes = b.bin.len();
    let animations = b.root.animations.len();
    let (glb, json_bytes) = finish_glb(b, MAX_GLB_BYTES)?;
    Ok(GltfExport {
        glb,
        report: GltfReport {
            corners: corners.len(),
            triangles: mesh.triangle_count(),
            morph_targets: 0,
            animations,
            materials: material.len(),
            json_bytes,
            bin_bytes,
            quantization: None,
        },
    })
}

/// `clip` as an animation: a key per frame it shows (a looping clip's
/// last back on its first), each joint's translation and rotation,
/// `LINEAR` (glTF blends rotations by `slerp`).
fn animate(
    b: &mut Builder,
    source: &SkinnedSource<'_>,
    joint_nodes: &[Index<Node>],
    clip: Clip,
) -> Result<(), GltfError> {
    let keys = clip_keys(source.model.frame_count(), clip)?;
    let n = keys.times.len();
    let view = b.view(None, None, |bin| put_f32s(bin, &keys.times));
    let first = keys.times.first().copied().unwrap_or(0.0);
    let last = keys.times.last().copied().unwrap_or(0.0);
    let input = b.accessor(
        AccessorSpec::dense(view, 0, n, ComponentType::F32, Type::Scalar)
            .bounds(float_bounds(&[first]), float_bounds(&[last])),
    );
    // As `to_glb` says of its clips: play one-shot clips once and hold the end.
    let extras = super::export::raw(&serde_json::json!({
        "looping": keys.clip.looping,
        "fps": f64::from(keys.clip.fps),
        "frames": [keys.clip.first, keys.clip.last.max(keys.clip.first)],
    }))?;
    let mut animation = json::Animation {
        extensions: None,
        extras: Some(extras),
        channels: Vec::new(),
        name: Some(keys.clip.name.to_string()),
        samplers: Vec::new(),
    };
    for (j, &node) in joint_nodes.iter().enumerate() {
        let mut translations = Vec::with_capacity(3 * n);
        let mut rotations = Vec::with_capacity(4 * n);
        let mut previous = [0.0, 0.0, 0.0, 1.0f32];
        for &f in &keys.frames {
            let pose = source.frames[f as usize][j];
            translations.extend(to_gltf_axes(pose.translation));
            let [x, y, z] = to_gltf_axes([pose.rotation[0], pose.rotation[1], pose.rotation[2]]);
            let mut q = [x, y, z, pose.rotation[3]];
            // The short way round from the key before: slerp follows the
            // sign it is given.
            let dot: f32 = q.iter().zip(&previous).map(|(a, b)| a * b).sum();
            if dot < 0.0 {
                q = q.map(|c| -c);
            }
            previous = q;
            rotations.extend(q);
        }
        for (path, values, kind) in [
            (Property::Translation, translations, Type::Vec3),
            (Property::Rotation, rotations, Type::Vec4),
        ] {
            let view = b.view(None, None, |bin| put_f32s(bin, &values));
            let output = b.accessor(AccessorSpec::dense(view, 0, n, ComponentType::F32, kind));
            add_channel(
                &mut animation,
                (node, path),
                input,
                output,
                Interpolation::Linear,
            );
        }
    }
    b.root.push(animation);
    Ok(())
}

/// A vertex attribute of `count` elements in a view of its own, its bytes
/// from `write`.
fn vertex_attribute(
    b: &mut Builder,
    count: usize,
    component: ComponentType,
    kind: Type,
    write: impl FnOnce(&mut Vec<u8>),
) -> Index<json::Accessor> {
    let view = b.view(None, Some(ViewTarget::ArrayBuffer), write);
    b.accessor(AccessorSpec::dense(view, 0, count, component, kind))
}
