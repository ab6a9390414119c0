//! Quake III models for the tests: a tiny one built in code (two frames,
//! two tags in each, two surfaces, one named as q3data named a level of
//! detail), and the shared OpenArena players (`../shared/md3`), skipped
//! with the reason printed where the folder is absent.

use std::path::PathBuf;

use md2_wgpu::format::md3::{Md3Model, Md3Parts, Md3Shader, Md3SurfaceParts, Md3Tag, Md3Vertex};

/// The shared Quake III players' folder (`md3` beside the shared MD2
/// models: `$MD2_SHARED_MODELS/../md3`, else `../shared/md3`), or `None`
/// with the reason printed.
pub fn shared_md3_dir() -> Option<PathBuf> {
    let beside = md2_wgpu::support::shared_models_dir().join("..");
    let hint = "set MD2_SHARED_MODELS to point beside it";
    crate::shared::present_dir(beside.join("md3"), "the shared Quake III players", hint)
}

/// A vertex at whole units (stored in 1/64ths) with a packed normal.
fn at(x: i16, y: i16, z: i16, normal: u16) -> Md3Vertex {
    Md3Vertex {
        xyz: [x, y, z].map(|c| c * 64),
        normal,
    }
}

/// [`tiny_md3`]'s parts. Frames `idle1` and `idle2`, the second lifting
/// everything a unit. Tags `tag_head` (rising with the frames) and
/// `tag_weapon` (turned a quarter about Z). Surfaces: `body`, a 4 × 4
/// quad at z = 0 (two triangles, four vertices, one shader; normals up,
/// +X, +Y and down), and `cap_1` (which `.skin` files name `cap`, as
/// Quake III strips q3data's level-of-detail suffix), one triangle above
/// it with two shaders.
pub fn tiny_md3_parts() -> Md3Parts {
    let quad = |lift: i16| {
        [
            at(0, 0, lift, 0),
            at(4, 0, lift, 64),
            at(4, 4, lift, 64 | (64 << 8)),
            at(0, 4, lift, 128),
        ]
    };
    let cap = |lift: i16| {
        [
            at(2, 2, 6 + lift, 0x1234),
            at(3, 2, 5 + lift, 0x4321),
            at(2, 3, 5 + lift, 0x8080),
        ]
    };
    let straight = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let turned = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    let tags = [0.0, 1.0]
        .into_iter()
        .flat_map(|lift| {
            [
                Md3Tag::new("tag_head", [2.0, 2.0, 7.0 + lift], straight),
                Md3Tag::new("tag_weapon", [4.0, 0.0, 3.0], turned),
            ]
        })
        .collect();
    Md3Parts {
        name: "models/tiny/tiny.md3".into(),
        frame_names: vec!["idle1".into(), "idle2".into()],
        tags,
        surfaces: vec![
            Md3SurfaceParts {
                name: "body".into(),
                shaders: vec![Md3Shader::new("models/tiny/body.tga")],
                triangles: vec![[0, 1, 2], [0, 2, 3]],
                tex_coords: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
                vertices: quad(0).into_iter().chain(quad(1)).collect(),
                ..Md3SurfaceParts::default()
            },
            Md3SurfaceParts {
                name: "cap_1".into(),
                flags: 3,
                shaders: vec![
                    Md3Shader::new("models/tiny/cap"),
                    Md3Shader::new("models/tiny/cap_glow"),
                ],
                triangles: vec![[0, 2, 1]],
                tex_coords: vec![[0.5, 0.0], [1.0, 1.0], [0.0, 1.0]],
                vertices: cap(0).into_iter().chain(cap(1)).collect(),
            },
        ],
        ..Md3Parts::default()
    }
}

/// [`tiny_md3_parts`] built: 1,292 bytes, laid out as the shared players
/// are.
pub fn tiny_md3() -> Md3Model {
    Md3Model::from_parts(tiny_md3_parts()).expect("the tiny MD3 builds")
}
