//! A Quake I model built in code, with what the shared ones lack: the seam
//! rule welds its corners, its groups play at their intervals, its skin
//! group cycles, its fullbright texels are marked, and it writes back.

use md2_wgpu::format::mdl::{
    FULLBRIGHT_FIRST, MdlError, MdlModel, MdlPart, MdlParts, MdlSkin, MdlWarning, Palette,
    PaletteError, SkinImages,
};

use super::independent::agrees;
use crate::common::*;

#[test]
fn the_seam_rule_gives_a_back_facing_triangle_the_back_half() {
    let model = seam_mdl();
    let bytes = model.to_bytes();
    agrees(&bytes, &model);
    assert_eq!(MdlModel::from_bytes(&bytes).unwrap(), model);
    // Six vertices, two of them on the seam and read from both halves:
    // eight corners.
    assert_eq!(model.corners().len(), 8);
    let (w, h) = SEAM_SKIN;
    let u = |s: i32| (s as f32 + 0.5) / w as f32;
    let corner =
        |triangle: usize, k: usize| model.corners()[model.indices()[3 * triangle + k] as usize];
    // The front quad reads the seam vertex (1) at s = 6, the back quad at
    // 6 + 16 / 2 = 14.
    assert_eq!(corner(0, 1).xyz, 1);
    assert_eq!(corner(0, 1).uv, [u(6), 1.5 / h as f32]);
    assert_eq!(corner(2, 0).xyz, 1);
    assert_eq!(corner(2, 0).uv, [u(14), 1.5 / h as f32]);
    // A vertex off the seam reads one texel whichever way its triangle
    // faces.
    assert_eq!(corner(2, 1).uv, [u(13), 1.5 / h as f32]);
    assert!(model.triangles()[2].reads_back_half(0, model.tex_coords()));
    assert!(!model.triangles()[2].reads_back_half(1, model.tex_coords()));
    assert!(!model.triangles()[0].reads_back_half(1, model.tex_coords()));
}

#[test]
fn frame_groups_are_animations_playing_at_their_intervals() {
    let model = seam_mdl();
    let animations: Vec<_> = model
        .animations()
        .iter()
        .map(|a| (a.name.as_str(), a.first, a.last))
        .collect();
    assert_eq!(
        animations,
        [("stand", 0, 0), ("flick", 1, 3), ("burn", 4, 5)]
    );
    // The even group plays at 10 a second; the uneven one keeps its 0.3 s
    // cycle over two poses and says so.
    let clips = model.clips();
    assert_eq!(clips[1].fps, 10.0);
    assert!((clips[2].fps - 2.0 / 0.3).abs() < 1e-5);
    assert!(clips[1].looping && clips[2].looping);
    assert!(model.warnings().contains(&MdlWarning::UnevenIntervals {
        part: MdlPart::Frames,
        index: 2
    }));
    // The group's own timing: pose i until intervals[i] into the cycle
    // (times a millisecond off each end: the intervals are f32).
    let flick = |t: f64| model.file_frames()[1].pose_at(t);
    assert_eq!(
        [0.0, 0.099, 0.101, 0.25, 0.299, 0.301, 0.41, 3.05].map(flick),
        [1, 1, 2, 3, 3, 1, 2, 1]
    );
    let burn = |t: f64| model.file_frames()[2].pose_at(t);
    assert_eq!(
        [0.0, 0.05, 0.101, 0.29, 0.31, -0.01].map(burn),
        [4, 4, 5, 5, 4, 5]
    );
    assert_eq!(model.file_frames()[0].pose_at(12.3), 0);
}

#[test]
fn a_skin_group_cycles_its_layers_by_its_intervals() {
    let model = seam_mdl();
    // Layer 0 is skin 0's image; layers 1 and 2 are skin 1's.
    assert_eq!(model.skin_layer_at(2, 0.0), None);
    assert_eq!(model.skins()[1].image_at(0.3), 1);
    let layer = |t: f64| model.skin_layer_at(1, t).unwrap();
    // Image 0 for 0.2 s, image 1 until 0.5 s, then over again.
    assert_eq!(
        [0.0, 0.19, 0.201, 0.49, 0.501, 0.71, 1.01].map(layer),
        [1, 1, 2, 2, 1, 2, 1]
    );
    assert_eq!(model.skin_layer_at(0, 5.0), Some(0));
    let images = SkinImages::new(&model, &seam_palette());
    assert_eq!(images.layers.len(), 3);
    assert_eq!(images.fullbright.len(), 3);
}

#[test]
fn fullbright_texels_are_marked_and_index_255_is_a_hole_only_where_flagged() {
    let palette = seam_palette();
    let model = seam_mdl();
    let images = SkinImages::new(&model, &palette);
    assert!(images.has_fullbright());
    let (w, h) = SEAM_SKIN;
    for y in 0..h {
        for x in 0..w {
            let glow = images.fullbright[0].get_pixel(x, y).0;
            let colour = images.layers[0].get_pixel(x, y).0;
            if y == 7 {
                assert_eq!(glow, palette.rgba(GLOW_INDEX));
                assert_eq!(colour, palette.rgba(GLOW_INDEX));
            } else {
                assert_eq!(glow, [0; 4]);
                let index = if x < w / 2 { FRONT_INDEX } else { BACK_INDEX };
                assert_eq!(colour, palette.rgba(index));
            }
        }
    }
    const { assert!(GLOW_INDEX >= FULLBRIGHT_FIRST) };
    // An upload takes the layers, then their masks.
    let (skins, masks) = images.clone().for_upload();
    assert!(masks);
    assert_eq!(
        skins,
        [images.layers.clone(), images.fullbright.clone()].concat()
    );
    // MF_HOLEY: index 255 transparent, and never fullbright.
    let mut parts = seam_mdl_parts();
    parts.flags = 1 << 14;
    parts.skins = vec![MdlSkin::Single(vec![255; (w * h) as usize])];
    let holey = MdlModel::from_parts(parts).unwrap();
    let images = SkinImages::new(&holey, &palette);
    assert!(images.layers[0].pixels().all(|p| p.0[3] == 0));
    assert!(!images.has_fullbright());
    // Nothing glows: the layers alone.
    assert_eq!(images.clone().for_upload(), (images.layers, false));
}

#[test]
fn parts_that_do_not_make_a_model_are_refused_by_name() {
    let refused = |change: fn(&mut MdlParts)| {
        let mut parts = seam_mdl_parts();
        change(&mut parts);
        let error = MdlModel::from_parts(parts).expect_err("refused");
        assert!(!error.to_string().is_empty());
        error
    };
    assert!(matches!(
        refused(|p| {
            p.vertices.pop();
        }),
        MdlError::InvalidParts { .. }
    ));
    assert!(matches!(
        refused(|p| p.frames[1].count = 2),
        MdlError::InvalidParts { .. }
    ));
    assert!(matches!(
        refused(|p| p.skins[0] = MdlSkin::Single(vec![0; 3])),
        MdlError::InvalidParts { .. }
    ));
    assert!(matches!(
        refused(|p| p.skins.clear()),
        MdlError::InvalidField { .. }
    ));
    assert!(matches!(
        refused(|p| p.triangles[1].vertices[2] = 6),
        MdlError::IndexOutOfRange {
            triangle: 1,
            corner: 2,
            index: 6,
            count: 6,
            ..
        }
    ));
    assert!(matches!(
        refused(|p| p.scale[1] = f32::NAN),
        MdlError::NonFinite { field: "scale", .. }
    ));
    assert!(matches!(
        refused(|p| {
            if let MdlSkin::Group { intervals, .. } = &mut p.skins[1] {
                intervals[1] = 0.0;
            }
        }),
        MdlError::BadInterval {
            part: MdlPart::Skins,
            index: 1,
            interval: 1,
            ..
        }
    ));
}

#[test]
fn a_palette_is_768_bytes_and_the_built_in_one_keeps_quakes_layout() {
    assert!(matches!(
        Palette::from_lmp(&[0; 767]),
        Err(PaletteError::WrongLength { length: 767 })
    ));
    let bytes: Vec<u8> = (0..768).map(|i| (i * 7 % 256) as u8).collect();
    let palette = Palette::from_lmp(&bytes).unwrap();
    assert_eq!(palette.to_lmp(), bytes);
    assert_eq!(palette.rgba(1), [21, 28, 35, 255]);
    let builtin = Palette::builtin();
    assert_eq!(builtin.colors[0], [0, 0, 0]);
    // Ramps brighten from dark to light.
    let brightness = |c: [u8; 3]| c.iter().map(|&v| u32::from(v)).sum::<u32>();
    for ramp in 0..14 {
        let first = brightness(builtin.colors[ramp * 16]);
        let last = brightness(builtin.colors[ramp * 16 + 15]);
        assert!(last > first, "ramp {ramp}");
    }
    let candidates = Palette::candidates("id1/progs/player.mdl");
    assert_eq!(
        candidates,
        [
            std::path::PathBuf::from("id1/progs/palette.lmp"),
            "id1/gfx/palette.lmp".into(),
            "id1/progs/gfx/palette.lmp".into()
        ]
    );
    assert!(Palette::find("/nonexistent/progs/x.mdl").is_none());
}
