//! Quake III models built in code for the tests, examples and benchmarks
//! (this crate's and md2-bevy's): a tiny model (two frames, two tags in
//! each, two surfaces, one named as q3data named a level of detail) and a
//! tiny player built from it (three parts joined by tags, an
//! `animation.cfg`, `default` skins), loaded through the sans-I/O loader.

use crate::format::md3::{
    Md3Model, Md3Parts, Md3Player, Md3PlayerError, Md3Shader, Md3SurfaceParts, Md3Tag, Md3Vertex,
};

/// A tag's axes that turn nothing: forward +X, left +Y, up +Z.
pub const STRAIGHT: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// A tag's axes turned a quarter about Z: forward +Y, left −X, up +Z.
pub const QUARTER_TURN: [[f32; 3]; 3] = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];

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
    let tags = [0.0, 1.0]
        .into_iter()
        .flat_map(|lift| {
            [
                Md3Tag::new("tag_head", [2.0, 2.0, 7.0 + lift], STRAIGHT),
                Md3Tag::new("tag_weapon", [4.0, 0.0, 3.0], QUARTER_TURN),
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

/// A part of the tiny player: [`tiny_md3_parts`]' two frames with its
/// first surface alone, named `surface`, and `tags` (frame-major).
pub fn tiny_part(surface: &str, tags: Vec<Md3Tag>) -> Md3Model {
    let mut parts = tiny_md3_parts();
    parts.tags = tags;
    parts.surfaces.truncate(1);
    parts.surfaces[0].name = surface.into();
    Md3Model::from_parts(parts).expect("a tiny player's part builds")
}

/// The tiny player's folder, as its loader is given it.
pub const TINY_PLAYER_DIR: &str = "models/players/tiny";

/// The tiny player's files, by name. `lower.md3` (surface `l_legs`)
/// holds `tag_torso` at (0, 0, 10) turned a quarter about Z in frame 0,
/// at (0, 0, 12) straight in frame 1; `upper.md3` (`u_torso`) holds
/// `tag_head` at (1, 0, 5) straight and `tag_weapon` at (3, −2, 4) turned
/// a quarter, in both frames; `head.md3` (`h_head_1`, which skins name
/// `h_head`) has no tags. Every animation plays frames 0 and 1, looping,
/// at 10 frames a second; the `default` skins give each surface a
/// texture.
pub fn tiny_player_files() -> Vec<(String, Vec<u8>)> {
    let torso = |origin, axis| Md3Tag::new("tag_torso", origin, axis);
    let lower = tiny_part(
        "l_legs",
        vec![
            torso([0.0, 0.0, 10.0], QUARTER_TURN),
            torso([0.0, 0.0, 12.0], STRAIGHT),
        ],
    );
    let held = [
        Md3Tag::new("tag_head", [1.0, 0.0, 5.0], STRAIGHT),
        Md3Tag::new("tag_weapon", [3.0, -2.0, 4.0], QUARTER_TURN),
    ];
    let upper = tiny_part("u_torso", [held, held].concat());
    let head = tiny_part("h_head_1", Vec::new());
    let text = |s: &str| s.as_bytes().to_vec();
    [
        ("lower.md3", lower.to_bytes()),
        ("upper.md3", upper.to_bytes()),
        ("head.md3", head.to_bytes()),
        ("animation.cfg", text(&"0 2 2 10\n".repeat(25))),
        (
            "lower_default.skin",
            text("l_legs,models/players/tiny/legs.tga\ntag_torso\n"),
        ),
        (
            "upper_default.skin",
            text("u_torso,models/players/tiny/torso\ntag_head\ntag_weapon\n"),
        ),
        (
            "head_default.skin",
            text("h_head,models/players/tiny/head.jpg\n"),
        ),
    ]
    .into_iter()
    .map(|(name, bytes)| (name.to_owned(), bytes))
    .collect()
}

/// The player `files` (by name, in [`TINY_PLAYER_DIR`]) make with the
/// `default` skins, loaded by [`Md3Player::from_named`] answering an
/// [`Md3PlayerLoader`](crate::format::md3::Md3PlayerLoader)'s
/// questions from them (a file not among them is answered as absent).
pub fn load_player(files: &[(String, Vec<u8>)]) -> Result<Md3Player, Md3PlayerError> {
    let by_name = |name: &str| {
        files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
    };
    Md3Player::from_named(TINY_PLAYER_DIR, "default", by_name)
}

/// The tiny player, loaded.
pub fn tiny_player() -> Md3Player {
    load_player(&tiny_player_files()).expect("the tiny player loads")
}
