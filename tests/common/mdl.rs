//! Quake I models for the tests: one built in code with everything the
//! shared models lack (seam vertices read by triangles facing back, frame
//! groups with even and uneven steps, a skin group, fullbright texels), and
//! the shared Block Quake models (`../shared/mdl`), skipped with the reason
//! printed where the folder is absent.

use std::path::PathBuf;

use md2_wgpu::format::mdl::{
    MdlFrame, MdlFrameGroup, MdlModel, MdlParts, MdlSkin, MdlTexCoord, MdlTriangle, Palette,
};
use md2_wgpu::model::PackedVertex;

/// The skin's size: a front half (columns 0 to 7) and a back half (8 to 15).
pub const SEAM_SKIN: (u32, u32) = (16, 8);
/// The palette index of the front half, the back half, and the fullbright
/// stripe (row 7, both halves).
pub const FRONT_INDEX: u8 = 20;
pub const BACK_INDEX: u8 = 100;
pub const GLOW_INDEX: u8 = 250;

/// A palette where the three indices above are easy to tell apart (the
/// rest is the built-in one).
pub fn seam_palette() -> Palette {
    let mut palette = Palette::builtin();
    palette.colors[usize::from(FRONT_INDEX)] = [200, 40, 40];
    palette.colors[usize::from(BACK_INDEX)] = [40, 60, 220];
    palette.colors[usize::from(GLOW_INDEX)] = [250, 240, 60];
    palette
}

/// A skin image: the front half one index, the back half another, the last
/// row fullbright.
fn seam_image(front: u8, back: u8) -> Vec<u8> {
    let (w, h) = SEAM_SKIN;
    (0..h)
        .flat_map(|y| {
            (0..w).map(move |x| match (y, x) {
                (7, _) => GLOW_INDEX,
                (_, x) if x < w / 2 => front,
                _ => back,
            })
        })
        .collect()
}

/// Two quads side by side in Quake's x = 0 plane, facing +X (the front):
/// the left one (Quake y from −1 to 0) on the skin's front half, the right
/// one (y from 0 to 1) facing back (`faces_front` 0). The middle column's
/// two vertices are on the seam at s = 6: the left quad reads them there,
/// the right quad half a skin on, at s = 14, so it lies wholly in the back
/// half (s 13 to 14) where without the rule it would span both. Poses: a
/// single `stand`, a group `flick1..3` stepping evenly (0.1 s), a group
/// `burn1..2` stepping unevenly (0.1 s, then 0.2 s); each pose lifts the
/// quads by a step. Skins: one image, then a group of two (0.2 s, 0.3 s).
pub fn seam_mdl_parts() -> MdlParts {
    // Packed grid: scale 0.01, translate −1, so a byte b is b / 100 − 1.
    let at = |y: f32, z: f32, lift: u8| PackedVertex {
        position: [
            100,
            ((y + 1.0) * 100.0) as u8,
            ((z + 1.0) * 100.0) as u8 + lift,
        ],
        // The table's +X, towards the viewer.
        normal_index: 52,
    };
    let pose = |lift: u8| {
        [
            at(-1.0, 0.5, lift),
            at(0.0, 0.5, lift),
            at(1.0, 0.5, lift),
            at(-1.0, -0.5, lift),
            at(0.0, -0.5, lift),
            at(1.0, -0.5, lift),
        ]
    };
    let tc = |on_seam, s, t| MdlTexCoord { on_seam, s, t };
    let tex_coords = vec![
        tc(0, 1, 1),
        tc(1, 6, 1),
        tc(0, 13, 1),
        tc(0, 1, 6),
        tc(1, 6, 6),
        tc(0, 13, 6),
    ];
    let tri = |faces_front, vertices| MdlTriangle {
        faces_front,
        vertices,
    };
    let triangles = vec![
        tri(1, [0, 1, 4]),
        tri(1, [0, 4, 3]),
        tri(0, [1, 2, 5]),
        tri(0, [1, 5, 4]),
    ];
    let names = ["stand", "flick1", "flick2", "flick3", "burn1", "burn2"];
    let vertices = (0..names.len() as u8).flat_map(|i| pose(i * 2)).collect();
    let group = |intervals: Vec<f32>| {
        Some(MdlFrameGroup {
            bbox_min: PackedVertex::default(),
            bbox_max: PackedVertex::default(),
            intervals,
        })
    };
    let frames = vec![
        MdlFrame {
            first: 0,
            count: 1,
            group: None,
        },
        MdlFrame {
            first: 1,
            count: 3,
            group: group(vec![0.1, 0.2, 0.3]),
        },
        MdlFrame {
            first: 4,
            count: 2,
            group: group(vec![0.1, 0.3]),
        },
    ];
    MdlParts {
        scale: [0.01; 3],
        translate: [-1.0; 3],
        skin_size: SEAM_SKIN,
        skins: vec![
            MdlSkin::Single(seam_image(FRONT_INDEX, BACK_INDEX)),
            MdlSkin::Group {
                intervals: vec![0.2, 0.5],
                images: vec![
                    seam_image(BACK_INDEX, FRONT_INDEX),
                    seam_image(FRONT_INDEX, FRONT_INDEX),
                ],
            },
        ],
        tex_coords,
        triangles,
        pose_names: names.iter().map(|n| n.to_string()).collect(),
        vertices,
        frames,
        ..MdlParts::default()
    }
}

/// [`seam_mdl_parts`] built.
pub fn seam_mdl() -> MdlModel {
    MdlModel::from_parts(seam_mdl_parts()).expect("the seam model builds")
}

/// The shared Quake I models' folder, or `None` with the reason printed.
pub fn shared_mdl_dir() -> Option<PathBuf> {
    crate::shared::present_dir(
        md2_wgpu::support::shared_mdl_dir(),
        "the shared Quake I models",
        "set MD2_SHARED_MODELS to point beside it",
    )
}

/// A shared Quake I model's bytes and the model, or `None` with the reason
/// printed.
pub fn shared_mdl(name: &str) -> Option<(Vec<u8>, MdlModel)> {
    let bytes = std::fs::read(shared_mdl_dir()?.join(name)).expect("read a shared MDL");
    let model = MdlModel::from_bytes(&bytes).expect("a shared MDL loads");
    Some((bytes, model))
}

/// The shared palette (`palette.lmp` beside the models), or `None`.
pub fn shared_palette() -> Option<Palette> {
    Some(Palette::open(shared_mdl_dir()?.join("palette.lmp")).expect("the shared palette reads"))
}
