//! Quake III's MD3 to glTF: a model's surfaces as the primitives of one
//! mesh with every frame a morph target, its tags as child nodes moved
//! frame by frame, and a player's three parts joined on those tags.

use ::gltf::json;
use glam::{Mat3, Quat, Vec3};
use json::accessor::{ComponentType, Type};
use json::animation::Property;
use json::buffer::Target as ViewTarget;
use json::mesh::{Mode, MorphTarget, Primitive, Semantic};
use json::validation::Checked;
use json::{Accessor, Index, Node};

use super::animation::{self, Keys};
use super::buffer::{AccessorSpec, Builder, float_bounds, put_f32s};
use super::error::GltfError;
use super::export::{asset, check_options, finish_glb, raw};
use super::frames::to_gltf_axes;
use super::materials::{self, EncodedSkin};
use super::options::{GltfOptions, MAX_GLB_BYTES};
use super::report::{GltfExport, GltfReport};
use image::RgbaImage;

use crate::anim::Clip;
use crate::format::md3::{Md3Model, Md3Player, Md3Tag, PlayerAnimation, PlayerPart};
use crate::model::Bounds;

/// The name of the animation over every frame of a lone model.
pub const ALL_FRAMES_ANIMATION: &str = "frames";

/// `model` as a GLB: one node holding one mesh (a primitive per surface,
/// every frame a morph target), a child node per tag placed frame by
/// frame, and one animation, [`ALL_FRAMES_ANIMATION`], stepping through
/// every frame at [`GltfOptions::fps`] (or one per [`GltfOptions::clips`]
/// where given). Each surface's material is named after its first shader
/// (the surface's name where it has none): textured with the image of
/// that name in `textures` where there is one, else plain. See the
/// [module docs](super#quake-iiis-md3) for what maps to what.
///
/// `textures` are images by texture path (`models/tiny/body.tga`, matched
/// ignoring ASCII case, as Quake III does), decoded as
/// [`skins::load_skin`](crate::skins::load_skin) decodes them; each one a
/// surface uses is embedded once, as a PNG. An empty image (0 × 0) gets
/// the plain material, as a skin that did not load does in [`to_glb`](super::to_glb).
pub fn md3_to_glb(
    model: &Md3Model,
    textures: &[(String, RgbaImage)],
    options: &GltfOptions,
) -> Result<GltfExport, GltfError> {
    let frame_count = frame_count(model);
    check_options(options, frame_count)?;
    let clips = match &options.clips {
        Some(clips) => clips.clone(),
        None => vec![Clip {
            name: ALL_FRAMES_ANIMATION.into(),
            first: 0,
            last: frame_count.saturating_sub(1),
            fps: options.fps,
            looping: true,
        }],
    };
    let keys = clips
        .into_iter()
        .map(|clip| animation::clip_keys(frame_count, clip))
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<String> = model
        .surfaces()
        .iter()
        .map(|s| s.default_texture())
        .collect();
    let name = options.name.clone().unwrap_or_else(|| "md3".into());
    let mut w = Writer::new(options, textures)?;
    let part = w.part(model, &name, &names)?;
    w.animate(&part, &keys)?;
    w.finish(vec![part.node], name)
}

/// `player` as a GLB: its lower part's node; under it a node per tag of
/// the legs, `tag_torso` holding the upper part's node; under that a node
/// per tag of the torso, `tag_head` holding the head's node and
/// `tag_weapon` the weapon's (if the player holds one). Every
/// [`PlayerAnimation`] that has a clip ([`AnimationConfig::clip`](crate::format::md3::AnimationConfig::clip))
/// is an animation named after it (`LEGS_WALK`) at the clip's rate:
/// `LEGS_` ones drive the legs' morph weights and their tags, `TORSO_`
/// ones the torso's weights and its tags, `BOTH_` ones both.
/// [`GltfOptions::clips`] and [`GltfOptions::fps`] are not read.
///
/// Each surface gets a material named after the texture its skin gives
/// it (the surface's first shader where the skin gives none), textured
/// with the image of that name in `textures` where there is one, else
/// plain; `textures` are as [`md3_to_glb`] reads them (the weapon's
/// surfaces look up their first shaders there too).
///
/// The report's counts are over every part: the surfaces' vertices and
/// triangles, the morph targets of each part's mesh summed, a material per
/// surface; its `quantization` is `None`.
pub fn player_to_glb(
    player: &Md3Player,
    textures: &[(String, RgbaImage)],
    options: &GltfOptions,
) -> Result<GltfExport, GltfError> {
    let mut w = Writer::new(options, textures)?;
    let lower_model = player.part(PlayerPart::Lower);
    check_options(options, frame_count(lower_model))?;
    let textures = |part: PlayerPart| player.texture_keys(part);
    let lower = w.part(lower_model, "lower", &textures(PlayerPart::Lower))?;
    let upper = w.part(
        player.part(PlayerPart::Upper),
        "upper",
        &textures(PlayerPart::Upper),
    )?;
    let head = w.part(
        player.part(PlayerPart::Head),
        "head",
        &textures(PlayerPart::Head),
    )?;
    w.attach(&lower, "tag_torso", upper.node)?;
    w.attach(&upper, "tag_head", head.node)?;
    if let Some(weapon) = player.weapon() {
        let weapon_textures: Vec<String> = weapon
            .surfaces()
            .iter()
            .map(|s| s.default_texture())
            .collect();
        let weapon = w.part(weapon, "weapon", &weapon_textures)?;
        w.attach(&upper, "tag_weapon", weapon.node)?;
    }

    let mut legs = Vec::new();
    let mut torso = Vec::new();
    let config = player.animations();
    for a in PlayerAnimation::ALL {
        let Some(clip) = config.clip(a) else {
            continue;
        };
        if !a.is_torso() {
            legs.push(animation::clip_keys(lower.frames, clip.clone())?);
        }
        if !a.is_legs() {
            torso.push(animation::clip_keys(upper.frames, clip)?);
        }
    }
    w.animate(&lower, &legs)?;
    w.animate(&upper, &torso)?;
    merge_by_name(&mut w.b.root.animations);
    let name = options.name.clone().unwrap_or_else(|| "player".into());
    w.finish(vec![lower.node], name)
}

/// The frames of a model, as the exports count them.
fn frame_count(model: &Md3Model) -> u32 {
    u32::try_from(model.frames().len()).unwrap_or(u32::MAX)
}

/// A model written into the document: its node, its tags' nodes.
struct Part<'a> {
    model: &'a Md3Model,
    node: Index<Node>,
    /// Whether the node has a mesh (a model with no drawable surface has
    /// none, and no weights to animate).
    mesh: bool,
    frames: u32,
    tags: Vec<(String, Index<Node>)>,
}

/// The document being built and what the options say of it.
struct Writer<'o> {
    b: Builder,
    options: &'o GltfOptions,
    report: GltfReport,
    /// The textures given, encoded, each with its texture once written.
    textures: Vec<(EncodedSkin, Option<Index<json::Texture>>)>,
    /// The sampler every texture shares, once one is written.
    sampler: Option<Index<json::texture::Sampler>>,
}

impl<'o> Writer<'o> {
    fn new(options: &'o GltfOptions, textures: &[(String, RgbaImage)]) -> Result<Self, GltfError> {
        let textures = textures
            .iter()
            .enumerate()
            .map(|(i, (name, image))| Ok((materials::encode_one(i, name.clone(), image)?, None)))
            .collect::<Result<Vec<_>, GltfError>>()?;
        Ok(Writer {
            b: Builder::new(asset(), 0),
            options,
            textures,
            sampler: None,
            report: GltfReport {
                corners: 0,
                triangles: 0,
                morph_targets: 0,
                animations: 0,
                materials: 0,
                json_bytes: 0,
                bin_bytes: 0,
                quantization: None,
            },
        })
    }

    /// The material of a surface whose texture is `name`: textured where
    /// `textures` has a non-empty image of that name (its image written
    /// the first time), else plain.
    fn material(&mut self, name: String) -> Index<json::Material> {
        let Some(i) = self
            .textures
            .iter()
            .position(|(t, _)| t.png.is_some() && t.name.eq_ignore_ascii_case(&name))
        else {
            return materials::plain(&mut self.b, name);
        };
        // Two paths may name one picture (the penguin's skins name
        // `skin.tga` and `skin.jpg`, both found as `skin.tga`): the same
        // PNG is written once, its texture shared.
        let png = self.textures.get(i).and_then(|t| t.0.png.as_ref());
        let same = self
            .textures
            .iter()
            .find(|(t, written)| written.is_some() && t.png.as_ref() == png)
            .and_then(|t| t.1);
        let texture = match self.textures.get(i).and_then(|t| t.1).or(same) {
            Some(texture) => {
                if let Some(t) = self.textures.get_mut(i) {
                    t.1 = Some(texture);
                }
                texture
            }
            None => {
                let sampler = *self
                    .sampler
                    .get_or_insert_with(|| materials::sampler(&mut self.b));
                let Some((skin, written)) = self.textures.get_mut(i) else {
                    return materials::plain(&mut self.b, name);
                };
                let png = skin.png.as_deref().unwrap_or_default();
                let texture = materials::texture(&mut self.b, sampler, &skin.name, png);
                *written = Some(texture);
                texture
            }
        };
        materials::textured(&mut self.b, name, texture)
    }

    /// `model`'s node (named `name`) with its mesh and a child per tag.
    fn part<'a>(
        &mut self,
        model: &'a Md3Model,
        name: &str,
        textures: &[String],
    ) -> Result<Part<'a>, GltfError> {
        let frames = frame_count(model);
        let scale = self.options.scale;
        // A part may have fewer frames than the base frame asked for (a
        // player's one-frame head): its last frame stands in.
        let base = self.options.base_frame.min(frames.saturating_sub(1));
        let mut primitives = Vec::new();
        for (s, surface) in model.surfaces().iter().enumerate() {
            let n = surface.vertex_count();
            if n == 0 || surface.triangles().is_empty() {
                continue;
            }
            let position = |frame: u32, v: usize| -> Result<[f32; 3], GltfError> {
                let vertex = surface.frame_vertices(frame as usize).get(v);
                let p = to_gltf_axes(vertex.map_or([0.0; 3], |x| x.position()).map(|c| c * scale));
                if p.iter().all(|c| c.is_finite()) {
                    Ok(p)
                } else {
                    Err(GltfError::NonFinitePosition {
                        frame,
                        vertex: v as u32,
                        value: p,
                    })
                }
            };
            let normal = |frame: u32, v: usize| {
                let vertex = surface.frame_vertices(frame as usize).get(v);
                to_gltf_axes(vertex.map_or([0.0, 0.0, 1.0], |x| x.normal_vector()))
            };
            let base_p = (0..n)
                .map(|v| position(base, v))
                .collect::<Result<Vec<_>, _>>()?;
            let base_n: Vec<[f32; 3]> = (0..n).map(|v| normal(base, v)).collect();
            let mut attributes = std::collections::BTreeMap::new();
            let positions = self.positions(&base_p);
            attributes.insert(Checked::Valid(Semantic::Positions), positions);
            let normals = self.floats(base_n.as_flattened(), n, Type::Vec3, true);
            attributes.insert(Checked::Valid(Semantic::Normals), normals);
            let uvs = self.floats(surface.tex_coords().as_flattened(), n, Type::Vec2, true);
            attributes.insert(Checked::Valid(Semantic::TexCoords(0)), uvs);

            let mut targets = Vec::with_capacity(frames as usize);
            for f in 0..frames {
                let mut dp = Vec::with_capacity(n);
                for (v, q) in base_p.iter().enumerate() {
                    let p = position(f, v)?;
                    dp.push([p[0] - q[0], p[1] - q[1], p[2] - q[2]]);
                }
                let dn: Vec<[f32; 3]> = base_n
                    .iter()
                    .enumerate()
                    .map(|(v, q)| {
                        let m = normal(f, v);
                        [m[0] - q[0], m[1] - q[1], m[2] - q[2]]
                    })
                    .collect();
                let positions = self.positions(&dp);
                let normals = self.floats(dn.as_flattened(), n, Type::Vec3, true);
                targets.push(MorphTarget {
                    positions: Some(positions),
                    normals: Some(normals),
                    tangents: None,
                });
            }

            let indices = self.indices(surface.triangles(), n);
            let texture = textures.get(s).cloned().unwrap_or_else(|| surface.name());
            let material = self.material(texture);
            self.report.materials += 1;
            self.report.corners += n;
            self.report.triangles += surface.triangles().len();
            primitives.push(Primitive {
                attributes,
                extensions: None,
                extras: None,
                indices: Some(indices),
                material: Some(material),
                mode: Checked::Valid(Mode::Triangles),
                targets: (!targets.is_empty()).then_some(targets),
            });
        }
        let mesh = (!primitives.is_empty()).then(|| {
            self.report.morph_targets += frames;
            let target_names: Vec<String> = model.frames().iter().map(|f| f.name()).collect();
            raw(&serde_json::json!({ "targetNames": target_names })).map(|extras| {
                self.b.root.push(json::Mesh {
                    extensions: None,
                    extras: Some(extras),
                    name: Some(name.into()),
                    primitives,
                    weights: None,
                })
            })
        });
        let mesh = mesh.transpose()?;
        let tags: Vec<(String, Index<Node>)> = model
            .frame_tags(base as usize)
            .iter()
            .map(|tag| {
                let (translation, rotation, scale) = trs(tag, self.options.scale);
                let node = self.b.root.push(Node {
                    name: Some(tag.name()),
                    translation: Some(translation),
                    rotation: Some(json::scene::UnitQuaternion(rotation)),
                    scale: Some(scale),
                    ..Default::default()
                });
                (tag.name(), node)
            })
            .collect();
        let node = self.b.root.push(Node {
            mesh,
            name: Some(name.into()),
            children: (!tags.is_empty()).then(|| tags.iter().map(|t| t.1).collect()),
            ..Default::default()
        });
        Ok(Part {
            model,
            node,
            mesh: mesh.is_some(),
            frames,
            tags,
        })
    }

    /// Dense floats of `kind` (`n` of them) in a view of their own: vertex
    /// data, or (`vertex` false) animation keys, whose views have no target.
    fn floats(&mut self, values: &[f32], n: usize, kind: Type, vertex: bool) -> Index<Accessor> {
        let target = vertex.then_some(ViewTarget::ArrayBuffer);
        let view = self.b.view(None, target, |bin| put_f32s(bin, values));
        self.b
            .accessor(AccessorSpec::dense(view, 0, n, ComponentType::F32, kind))
    }

    /// The triangles, each wound the other way (MD3's run clockwise seen
    /// from outside, as MD2's do), as 16-bit indices where the vertices
    /// allow.
    fn indices(&mut self, triangles: &[[i32; 3]], n: usize) -> Index<Accessor> {
        // Loaded models index their own vertices: none is negative.
        let corners = triangles
            .iter()
            .map(|t| t.map(|i| u32::try_from(i).unwrap_or(0)));
        self.b
            .reversed_triangles(corners, triangles.len() * 3, n <= usize::from(u16::MAX))
    }

    /// Positions (or their differences from the base) with their bounds.
    fn positions(&mut self, values: &[[f32; 3]]) -> Index<Accessor> {
        let bounds = Bounds::around(values);
        let view = self.b.view(None, Some(ViewTarget::ArrayBuffer), |bin| {
            put_f32s(bin, values.as_flattened())
        });
        self.b.accessor(
            AccessorSpec::dense(view, 0, values.len(), ComponentType::F32, Type::Vec3)
                .bounds(float_bounds(&bounds.min), float_bounds(&bounds.max)),
        )
    }

    /// Puts `child` under `part`'s tag `tag`; a part without that tag is
    /// an error naming it.
    fn attach(&mut self, part: &Part<'_>, tag: &str, child: Index<Node>) -> Result<(), GltfError> {
        let node = part
            .tags
            .iter()
            .find(|(name, _)| name == tag)
            .map(|t| t.1)
            .ok_or_else(|| GltfError::MissingTag {
                tag: tag.into(),
                model: part.model.header().name(),
            })?;
        if let Some(n) = self.b.root.nodes.get_mut(node.value()) {
            n.children.get_or_insert_with(Vec::new).push(child);
        }
        Ok(())
    }

    /// An animation per clip of `keys`: `part`'s weights (where it has a
    /// mesh) and each of its tags' translation, rotation and scale.
    fn animate(&mut self, part: &Part<'_>, keys: &[Keys]) -> Result<(), GltfError> {
        let start = self.b.root.animations.len();
        let interpolation = self.options.interpolation;
        if part.mesh {
            animation::write(&mut self.b, part.node, keys, part.frames, interpolation)?;
        } else {
            for k in keys {
                self.b.root.push(json::Animation {
                    extensions: None,
                    extras: None,
                    channels: Vec::new(),
                    name: Some(k.clip.name.to_string()),
                    samplers: Vec::new(),
                });
            }
        }
        let glb_interpolation = animation::gltf_interpolation(interpolation);
        for (i, k) in keys.iter().enumerate() {
            let mut channels = Vec::new();
            if !part.tags.is_empty() {
                let input = self.times(&k.times);
                for (name, node) in &part.tags {
                    let mut t = Vec::new();
                    let mut r = Vec::new();
                    let mut s = Vec::new();
                    let mut last = Quat::IDENTITY;
                    for &f in &k.frames {
                        let tag = part.model.tag(f as usize, name).ok_or_else(|| {
                            GltfError::MissingTag {
                                tag: name.clone(),
                                model: part.model.header().name(),
                            }
                        })?;
                        let (translation, rotation, scale) = trs(tag, self.options.scale);
                        // The short way round from the key before.
                        let mut q = Quat::from_array(rotation);
                        if q.dot(last) < 0.0 {
                            q = -q;
                        }
                        last = q;
                        t.extend(translation);
                        r.extend(q.to_array());
                        s.extend(scale);
                    }
                    let n = k.frames.len();
                    for (path, values, kind) in [
                        (Property::Translation, t, Type::Vec3),
                        (Property::Rotation, r, Type::Vec4),
                        (Property::Scale, s, Type::Vec3),
                    ] {
                        let output = self.floats(&values, n, kind, false);
                        channels.push((*node, path, input, output));
                    }
                }
            }
            let Some(a) = self.b.root.animations.get_mut(start + i) else {
                continue;
            };
            for (node, path, input, output) in channels {
                animation::add_channel(a, (node, path), input, output, glb_interpolation);
            }
        }
        Ok(())
    }

    /// Key times, with their bounds, in a view of their own.
    fn times(&mut self, times: &[f32]) -> Index<Accessor> {
        let view = self.b.view(None, None, |bin| put_f32s(bin, times));
        let first = times.first().copied().unwrap_or(0.0);
        let last = times.last().copied().unwrap_or(0.0);
        self.b.accessor(
            AccessorSpec::dense(view, 0, times.len(), ComponentType::F32, Type::Scalar)
                .bounds(float_bounds(&[first]), float_bounds(&[last])),
        )
    }

    /// The scene of `nodes`, the buffer and the GLB.
    fn finish(mut self, nodes: Vec<Index<Node>>, name: String) -> Result<GltfExport, GltfError> {
        // Drop animations that animate nothing (a model with no mesh and
        // no tags), which glTF does not allow.
        self.b.root.animations.retain(|a| !a.channels.is_empty());
        let scene = self.b.root.push(json::Scene {
            extensions: None,
            extras: None,
            name: Some(name),
            nodes,
        });
        self.b.root.scene = Some(scene);
        self.b.finish_buffer();
        let bin_bytes = self.b.bin.len();
        let limit = self.options.max_bytes.min(MAX_GLB_BYTES);
        let animations = self.b.root.animations.len();
        let (glb, json_bytes) = finish_glb(self.b, limit)?;
        let report = GltfReport {
            animations,
            json_bytes,
            bin_bytes,
            ..self.report
        };
        Ok(GltfExport { glb, report })
    }
}

/// A tag's transform in glTF's axes and the output units: its origin as
/// the translation; its axes (turned into glTF's axes as the positions
/// are) orthonormalised for the rotation, with their lengths as the scale
/// (negative on the third axis where the axes are a mirror).
fn trs(tag: &Md3Tag, scale: f32) -> ([f32; 3], [f32; 4], [f32; 3]) {
    let translation = to_gltf_axes(tag.origin.map(|c| c * scale));
    let axes = tag.axis.map(|a| Vec3::from_array(to_gltf_axes(a)));
    // The axes in glTF's order: Quake's X, Y, Z axes become glTF's Z, X, Y.
    let [z, x, y] = axes;
    let lengths = [x.length(), y.length(), z.length()];
    let x1 = x.normalize_or(Vec3::X);
    let y1 = (y - x1 * y.dot(x1)).normalize_or(x1.any_orthonormal_vector());
    let z1 = x1.cross(y1);
    let mut scale3 = lengths;
    if Mat3::from_cols(x, y, z).determinant() < 0.0 {
        scale3[2] = -scale3[2];
    }
    let rotation = Quat::from_mat3(&Mat3::from_cols(x1, y1, z1))
        .normalize()
        .to_array();
    (translation, rotation, scale3)
}

/// Merges animations of one name (a `BOTH_` clip written once for the
/// legs and once for the torso) into the first of them.
fn merge_by_name(animations: &mut Vec<json::Animation>) {
    let mut merged: Vec<json::Animation> = Vec::with_capacity(animations.len());
    for mut a in animations.drain(..) {
        match merged.iter_mut().find(|m| m.name == a.name) {
            Some(m) => {
                let offset = m.samplers.len() as u32;
                for c in &mut a.channels {
                    c.sampler = Index::new(c.sampler.value() as u32 + offset);
                }
                m.samplers.append(&mut a.samplers);
                m.channels.append(&mut a.channels);
            }
            None => merged.push(a),
        }
    }
    *animations = merged;
}
