//! A gun for the demo player's hand: three boxes (grip, receiver, barrel)
//! in one surface, flat-shaded, with a `tag_flash` at the muzzle, as a
//! Quake III weapon model is laid out (the grip at the origin, the barrel
//! along +X).

use super::math::{V3, cross, normalize, sub};
use super::normals::encode_lat_long;
use super::skin::tga;
use crate::format::md3::{Md3Model, Md3Parts, Md3Shader, Md3SurfaceParts, Md3Tag, Md3Vertex};

/// The folder the gun's shader names its picture in.
pub const DEMO_WEAPON_DIR: &str = "models/weapons/demo";

/// The boxes, (min, max) corners in model units: grip, receiver, barrel.
const BOXES: [(V3, V3); 3] = [
    ([-1.0, -0.8, -4.0], [1.5, 0.8, 0.5]),
    ([-2.5, -1.0, 0.5], [6.0, 1.0, 3.0]),
    ([6.0, -0.6, 1.2], [14.0, 0.6, 2.4]),
];

/// The picture: gunmetal, a lighter band on every face's middle third, so
/// that the faces' orientation shows.
fn picture() -> image::RgbaImage {
    image::RgbaImage::from_fn(32, 32, |x, y| {
        let band = (11..21).contains(&y);
        let edge = x == 0 || y == 0 || x == 31 || y == 31;
        let v = if edge {
            30
        } else if band {
            120
        } else {
            70
        };
        image::Rgba([v, v + 4, v + 10, 255])
    })
}

/// A gun for the demo player's hand ([`demo_player`](super::demo_player)
/// holds it): three boxes (grip, receiver, barrel) in one flat-shaded
/// surface, `w_gun`, wearing `models/weapons/demo/gun.tga`, the grip at the
/// origin and the barrel along +X as Quake III's weapons are laid out,
/// with a `tag_flash` at the muzzle; one frame.
pub fn demo_weapon() -> Md3Model {
    let mut tex_coords = Vec::new();
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for (lo, hi) in BOXES {
        // Each face: its four corners counter-clockwise seen from outside.
        let c = |x: usize, y: usize, z: usize| -> V3 {
            [[lo[0], hi[0]][x], [lo[1], hi[1]][y], [lo[2], hi[2]][z]]
        };
        let faces = [
            [c(1, 0, 0), c(1, 1, 0), c(1, 1, 1), c(1, 0, 1)],
            [c(0, 1, 0), c(0, 0, 0), c(0, 0, 1), c(0, 1, 1)],
            [c(1, 1, 0), c(0, 1, 0), c(0, 1, 1), c(1, 1, 1)],
            [c(0, 0, 0), c(1, 0, 0), c(1, 0, 1), c(0, 0, 1)],
            [c(0, 0, 1), c(1, 0, 1), c(1, 1, 1), c(0, 1, 1)],
            [c(0, 1, 0), c(1, 1, 0), c(1, 0, 0), c(0, 0, 0)],
        ];
        for face in faces {
            let normal = normalize(cross(sub(face[1], face[0]), sub(face[3], face[0])));
            let base = vertices.len() as i32;
            for (corner, uv) in face
                .iter()
                .zip([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
            {
                vertices.push(Md3Vertex {
                    xyz: corner.map(|c| (c * 64.0).round() as i16),
                    normal: encode_lat_long(normal),
                });
                tex_coords.push(uv);
            }
            // Files wind triangles clockwise seen from outside.
            triangles.push([base, base + 2, base + 1]);
            triangles.push([base, base + 3, base + 2]);
        }
    }
    let muzzle = [14.0, 0.0, 1.8];
    Md3Model::from_parts(Md3Parts {
        name: format!("{DEMO_WEAPON_DIR}/gun.md3"),
        frame_names: vec!["gun".to_owned()],
        tags: vec![Md3Tag::new(
            "tag_flash",
            muzzle,
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        )],
        surfaces: vec![Md3SurfaceParts {
            name: "w_gun".to_owned(),
            flags: 0,
            shaders: vec![Md3Shader::new(&format!("{DEMO_WEAPON_DIR}/gun.tga"))],
            triangles,
            tex_coords,
            vertices,
        }],
        flags: 0,
    })
    .expect("the demo gun's parts are consistent by construction")
}

/// The gun's files, by name, as a folder of them holds them: `gun.md3`
/// and its picture `gun.tga`.
pub fn demo_weapon_files() -> Vec<(String, Vec<u8>)> {
    vec![
        ("gun.md3".to_owned(), demo_weapon().to_bytes()),
        ("gun.tga".to_owned(), tga(&picture())),
    ]
}
