//! The MD3 export (`md3_to_glb`, `player_to_glb`): the tiny model and
//! player built in code and the shared OpenArena players (skipped, with
//! the reason, where absent) read back with the gltf crate (node tree,
//! tags at frame 0, morph targets, clips, winding) and checked by the
//! Khronos glTF-Validator, with textures embedded (a tiny image on the
//! tiny player's legs; the shared players' own `.tga`s).

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3, Vec4};
use md2_wgpu::format::md3::{Md3Model, Md3Player, PlayerAnimation, PlayerPart};
use md2_wgpu::gltf::{ALL_FRAMES_ANIMATION, GltfOptions, md3_to_glb, player_to_glb};
use md2_wgpu::image::{Rgba, RgbaImage};

use crate::cases::Read;
use crate::common;

/// Quake's axes to glTF's, as the export turns them: `(x, y, z)` to
/// `(y, z, x)`.
fn to_gltf() -> Mat4 {
    Mat4::from_cols(Vec4::Z, Vec4::X, Vec4::Y, Vec4::W)
}

/// The players to check: the tiny one (with and without the tiny model
/// as its weapon) and the shared ones present.
fn players() -> Vec<(String, Md3Player)> {
    let armed = common::tiny_player().with_weapon(common::tiny_md3());
    let mut players = vec![
        ("tiny".to_owned(), common::tiny_player()),
        ("tiny-armed".to_owned(), armed),
    ];
    if let Some(dir) = common::shared_md3_dir() {
        for name in ["major", "penguin"] {
            let path = dir.join(name);
            if !path.is_dir() {
                eprintln!("skipping the MD3 player {}: absent", path.display());
                continue;
            }
            let player = Md3Player::open(&path, "default")
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            players.push((name.to_owned(), player));
        }
    }
    players
}

/// Images by the texture paths that name them, as the exports take them.
type Textures = Vec<(String, RgbaImage)>;

/// The texture path the tiny player's skin gives its legs.
const TINY_LEGS: &str = "models/players/tiny/legs.tga";

/// A 2 × 2 image for the tiny player's legs, by the path its skin names.
fn tiny_textures() -> Textures {
    let image = RgbaImage::from_pixel(2, 2, Rgba([200, 40, 40, 255]));
    vec![(TINY_LEGS.to_owned(), image)]
}

/// The textures of `player` in its folder `dir`: each surface's texture
/// (as its skin names it) found by the last parts of the names Quake III
/// tries, decoded with the crate's skin decoder.
fn folder_textures(player: &Md3Player, dir: &Path) -> Textures {
    let mut textures: Textures = Vec::new();
    for part in PlayerPart::ALL {
        for t in player.textures(part) {
            let file = t.file_names().map(|n| dir.join(n)).find(|f| f.is_file());
            let Some(path) = t.texture else { continue };
            if textures.iter().any(|(p, _)| *p == path) {
                continue;
            }
            if let Some(file) = file {
                let image = md2_wgpu::skins::load_skin(&file)
                    .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                textures.push((path, image));
            }
        }
    }
    textures
}

/// The shared players present, each with its folder's textures.
fn textured_shared_players() -> Vec<(String, Md3Player, Textures)> {
    let Some(dir) = common::shared_md3_dir() else {
        return Vec::new();
    };
    let mut players = Vec::new();
    for name in ["major", "penguin"] {
        let path = dir.join(name);
        if !path.is_dir() {
            eprintln!("skipping the MD3 player {}: absent", path.display());
            continue;
        }
        let player =
            Md3Player::open(&path, "default").unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let textures = folder_textures(&player, &path);
        players.push((name.to_owned(), player, textures));
    }
    players
}

/// The names of `read`'s materials with a base colour texture, and of
/// those without.
fn textured_and_plain(read: &Read) -> (Vec<String>, Vec<String>) {
    let (mut textured, mut plain) = (Vec::new(), Vec::new());
    for m in read.doc.materials() {
        let name = m.name().unwrap_or_default().to_owned();
        if m.pbr_metallic_roughness().base_color_texture().is_some() {
            textured.push(name);
        } else {
            plain.push(name);
        }
    }
    (textured, plain)
}

/// The node named `name` among `node`'s children.
fn child<'a>(node: &gltf::Node<'a>, name: &str) -> gltf::Node<'a> {
    node.children()
        .find(|c| c.name() == Some(name))
        .unwrap_or_else(|| panic!("{:?} has no child {name}", node.name()))
}

/// Asserts `node`'s own transform is `model`'s tag of its name at frame 0,
/// in glTF's axes, within 1e-5.
fn assert_tag_at_frame_0(node: &gltf::Node<'_>, model: &Md3Model) {
    let name = node.name().expect("a tag node is named");
    let tag = model.tag(0, name).expect("the model has the tag");
    let p = to_gltf();
    let want = p * tag.matrix() * p.inverse();
    let got = Mat4::from_cols_array_2d(&node.transform().matrix());
    let diff = (got - want).to_cols_array().map(f32::abs);
    let worst = diff.iter().copied().fold(0.0, f32::max);
    assert!(worst <= 1e-5, "{name}: {got:?} is not {want:?}");
}

/// Asserts every primitive of the mesh on `node` has one morph target per
/// frame of `model`, and one primitive per surface that has triangles.
fn assert_morph_targets(node: &gltf::Node<'_>, model: &Md3Model) {
    let mesh = node.mesh().expect("a part's node holds its mesh");
    let surfaces = model
        .surfaces()
        .iter()
        .filter(|s| !s.triangles().is_empty())
        .count();
    assert_eq!(mesh.primitives().count(), surfaces);
    for p in mesh.primitives() {
        assert_eq!(p.morph_targets().count(), model.frames().len());
    }
}

/// The share of triangles (over every surface of `read`'s meshes) whose
/// right-hand normal, from the written corners of the base frame, points
/// the way the sum of their vertex normals does.
fn outward_share(read: &Read) -> f64 {
    let (mut outward, mut all) = (0usize, 0usize);
    for mesh in read.doc.meshes() {
        for p in mesh.primitives() {
            let v = read.vectors(p.get(&gltf::Semantic::Positions).unwrap());
            let n = read.vectors(p.get(&gltf::Semantic::Normals).unwrap());
            let i = read.scalars(p.indices().unwrap());
            for t in i.chunks_exact(3) {
                let [a, b, c] = [0, 1, 2].map(|k| t[k] as usize);
                let at = |x: usize| Vec3::from_array(v[x].map(|c| c as f32));
                let face = (at(b) - at(a)).cross(at(c) - at(a));
                let normal: Vec3 = [a, b, c]
                    .iter()
                    .map(|&x| Vec3::from_array(n[x].map(|c| c as f32)))
                    .sum();
                if face.length() > 1e-6 {
                    all += 1;
                    outward += usize::from(face.dot(normal) > 0.0);
                }
            }
        }
    }
    outward as f64 / all.max(1) as f64
}

#[test]
fn a_lone_md3_has_every_frame_and_its_tags() {
    let model = common::tiny_md3();
    let export = md3_to_glb(&model, &[], &GltfOptions::DEFAULT).unwrap();
    let read = Read::new(&export.glb);
    let root = read.doc.default_scene().unwrap().nodes().next().unwrap();
    assert_morph_targets(&root, &model);
    for tag in ["tag_head", "tag_weapon"] {
        assert_tag_at_frame_0(&child(&root, tag), &model);
    }
    let names: Vec<_> = read
        .doc
        .animations()
        .map(|a| a.name().unwrap().to_owned())
        .collect();
    assert_eq!(names, [ALL_FRAMES_ANIMATION]);
    assert_eq!(export.report.morph_targets, 2);
    assert_eq!(export.report.animations, 1);
    assert_eq!(export.report.materials, 2);
    let materials: Vec<_> = read
        .doc
        .materials()
        .map(|m| m.name().unwrap().to_owned())
        .collect();
    assert_eq!(materials, ["models/tiny/body.tga", "models/tiny/cap"]);
}

#[test]
fn a_player_is_its_parts_on_their_tags_with_every_clip() {
    for (name, player) in players() {
        let export = player_to_glb(&player, &[], &GltfOptions::DEFAULT)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let read = Read::new(&export.glb);
        let roots: Vec<_> = read.doc.default_scene().unwrap().nodes().collect();
        assert_eq!(roots.len(), 1, "{name}");
        let lower = &roots[0];
        assert_eq!(lower.name(), Some("lower"), "{name}");
        let tag_torso = child(lower, "tag_torso");
        let upper = child(&tag_torso, "upper");
        let tag_head = child(&upper, "tag_head");
        let tag_weapon = child(&upper, "tag_weapon");
        let head = child(&tag_head, "head");
        if let Some(weapon) = player.weapon() {
            assert_morph_targets(&child(&tag_weapon, "weapon"), weapon);
        } else {
            assert_eq!(tag_weapon.children().count(), 0, "{name}");
        }
        assert_tag_at_frame_0(&tag_torso, player.part(PlayerPart::Lower));
        assert_tag_at_frame_0(&tag_head, player.part(PlayerPart::Upper));
        assert_tag_at_frame_0(&tag_weapon, player.part(PlayerPart::Upper));
        for (node, part) in [
            (lower, PlayerPart::Lower),
            (&upper, PlayerPart::Upper),
            (&head, PlayerPart::Head),
        ] {
            assert_morph_targets(node, player.part(part));
        }

        let animations: Vec<_> = read.doc.animations().collect();
        let config = player.animations();
        let with_clips: Vec<_> = PlayerAnimation::ALL
            .into_iter()
            .filter(|&a| config.clip(a).is_some())
            .collect();
        assert_eq!(animations.len(), with_clips.len(), "{name}");
        for a in with_clips {
            let animation = animations
                .iter()
                .find(|x| x.name() == Some(a.name()))
                .unwrap_or_else(|| panic!("{name}: no animation {}", a.name()));
            let driven: Vec<_> = animation
                .channels()
                .map(|c| c.target().node().name().unwrap().to_owned())
                .collect();
            let legs = driven.iter().any(|n| n == "lower");
            let torso = driven.iter().any(|n| n == "upper");
            assert_eq!(
                (legs, torso),
                (!a.is_torso(), !a.is_legs()),
                "{name} {}",
                a.name()
            );
            if legs {
                assert!(
                    driven.iter().any(|n| n == "tag_torso"),
                    "{name} {}",
                    a.name()
                );
            }
            if torso {
                assert!(
                    driven.iter().any(|n| n == "tag_head"),
                    "{name} {}",
                    a.name()
                );
                assert!(
                    driven.iter().any(|n| n == "tag_weapon"),
                    "{name} {}",
                    a.name()
                );
            }
        }
        if !name.starts_with("tiny") {
            // MD3 triangles run clockwise from outside, as MD2's do: the
            // export's reversed corners face the way the normals do.
            let share = outward_share(&read);
            eprintln!(
                "{name}: {:.1}% of the faces face their normals",
                share * 100.0
            );
            assert!(share > 0.9, "{name}: only {share} face outwards");
        }
    }
}

#[test]
fn a_given_texture_is_embedded_for_its_surface() {
    let player = common::tiny_player();
    let export = player_to_glb(&player, &tiny_textures(), &GltfOptions::DEFAULT).unwrap();
    let read = Read::new(&export.glb);
    let (textured, plain) = textured_and_plain(&read);
    assert_eq!(textured, [TINY_LEGS]);
    assert_eq!(textured.len() + plain.len(), export.report.materials);
    assert_eq!(read.doc.images().count(), 1);
    let image = read.doc.images().next().unwrap();
    assert_eq!(image.name(), Some(TINY_LEGS));

    // A lone model's surfaces look up their first shaders.
    let model = common::tiny_md3();
    let body = vec![(
        "MODELS/TINY/BODY.TGA".to_owned(),
        RgbaImage::from_pixel(1, 1, Rgba([1, 2, 3, 255])),
    )];
    let export = md3_to_glb(&model, &body, &GltfOptions::DEFAULT).unwrap();
    let (textured, plain) = textured_and_plain(&Read::new(&export.glb));
    assert_eq!(textured, ["models/tiny/body.tga"]);
    assert_eq!(plain, ["models/tiny/cap"]);

    // One picture under two paths, for two surfaces: embedded once.
    let pixel = RgbaImage::from_pixel(1, 1, Rgba([9, 8, 7, 255]));
    let both = vec![
        ("models/tiny/body.tga".to_owned(), pixel.clone()),
        ("models/tiny/cap".to_owned(), pixel),
    ];
    let export = md3_to_glb(&model, &both, &GltfOptions::DEFAULT).unwrap();
    let read = Read::new(&export.glb);
    assert_eq!(textured_and_plain(&read).0.len(), 2);
    assert_eq!(read.doc.images().count(), 1);
    assert_eq!(read.doc.textures().count(), 1);
}

#[test]
fn the_shared_players_embed_their_folders_textures() {
    for (name, player, textures) in textured_shared_players() {
        assert!(!textures.is_empty(), "{name}: no texture in the folder");
        let export = player_to_glb(&player, &textures, &GltfOptions::DEFAULT)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let read = Read::new(&export.glb);
        let (textured, plain) = textured_and_plain(&read);
        assert!(plain.is_empty(), "{name}: plain materials {plain:?}");
        assert_eq!(textured.len(), export.report.materials, "{name}");
        // One image a picture: two paths to one file embed it once.
        let mut pictures: Vec<&[u8]> = textures
            .iter()
            .map(|(_, i)| i.as_raw().as_slice())
            .collect();
        pictures.sort();
        pictures.dedup();
        assert_eq!(read.doc.images().count(), pictures.len(), "{name}");
    }
}

#[test]
fn the_khronos_validator_accepts_the_md3_exports() {
    let Some((modules, dir)) = crate::node::node_and_out_dir("md3") else {
        return;
    };
    let mut files: Vec<PathBuf> = Vec::new();
    let lone = md3_to_glb(&common::tiny_md3(), &[], &GltfOptions::DEFAULT).unwrap();
    let path = dir.join("tiny-md3.glb");
    std::fs::write(&path, lone.glb).unwrap();
    files.push(path);
    for (name, player) in players() {
        let part = md3_to_glb(player.part(PlayerPart::Upper), &[], &GltfOptions::DEFAULT).unwrap();
        let path = dir.join(format!("{name}-upper.glb"));
        std::fs::write(&path, part.glb).unwrap();
        files.push(path);
        let export = player_to_glb(&player, &[], &GltfOptions::DEFAULT).unwrap();
        let path = dir.join(format!("{name}-player.glb"));
        std::fs::write(&path, export.glb).unwrap();
        files.push(path);
    }
    let textured = player_to_glb(
        &common::tiny_player(),
        &tiny_textures(),
        &GltfOptions::DEFAULT,
    );
    let path = dir.join("tiny-textured-player.glb");
    std::fs::write(&path, textured.unwrap().glb).unwrap();
    files.push(path);
    for (name, player, textures) in textured_shared_players() {
        let export = player_to_glb(&player, &textures, &GltfOptions::DEFAULT).unwrap();
        let path = dir.join(format!("{name}-textured-player.glb"));
        std::fs::write(&path, export.glb).unwrap();
        files.push(path);
    }
    let bad = crate::node::validator_complaints(&modules, &files);
    assert!(
        bad.is_empty(),
        "the validator complained:\n{}",
        bad.join("\n")
    );
}
