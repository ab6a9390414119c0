//! The five shared Block Quake models: they load, agree with the
//! independent decoder, write back byte for byte, and their groups, clips
//! and skins are what their files say.

use md2_wgpu::format::mdl::{MdlModel, MdlWarning, Palette, SkinImages};

use super::independent::agrees;
use crate::common::*;

/// A shared model's file, vertices, triangles, file frames, poses and
/// skin size.
type Expected = (&'static str, usize, usize, usize, u32, (u32, u32));

const MODELS: [Expected; 5] = [
    ("player.mdl", 1416, 1390, 143, 143, (960, 480)),
    ("soldier.mdl", 1236, 1254, 114, 114, (960, 480)),
    ("candle1.mdl", 434, 316, 6, 12, (240, 240)),
    ("flame2.mdl", 288, 272, 2, 17, (240, 240)),
    ("backpack.mdl", 570, 364, 1, 1, (240, 240)),
];

#[test]
fn every_shared_model_loads_agrees_with_an_independent_decoder_and_writes_back() {
    for (name, verts, tris, frames, poses, skin) in MODELS {
        let Some((bytes, model)) = shared_mdl(name) else {
            return;
        };
        assert_eq!(model.vertex_count(), verts, "{name}");
        assert_eq!(model.triangle_count(), tris, "{name}");
        assert_eq!(model.file_frames().len(), frames, "{name}");
        assert_eq!(model.frame_count(), poses, "{name}");
        assert_eq!(model.skin_size(), skin, "{name}");
        agrees(&bytes, &model);
        assert!(
            model.to_bytes() == bytes,
            "{name} writes back byte for byte"
        );
        // No seam vertices and no triangle facing back: a corner per vertex
        // the triangles use.
        assert!(model.tex_coords().iter().all(|t| t.on_seam == 0));
        assert!(model.corners().len() <= verts);
        // Every frame group is one animation, at its intervals' rate.
        let clips = model.clips();
        for frame in model.file_frames() {
            let Some(group) = &frame.group else { continue };
            let clip = clips
                .iter()
                .find(|c| c.first == frame.first)
                .expect("a group's clip");
            assert_eq!(clip.last, frame.first + frame.count - 1, "{name}");
            let step = group.intervals.last().unwrap() / group.intervals.len() as f32;
            assert!((clip.fps - 1.0 / step).abs() < 1e-3, "{name}: {clip:?}");
            assert!(clip.looping);
        }
        eprintln!(
            "{name}: {} animations ({}), warnings {:?}",
            model.animations().len(),
            model
                .animations()
                .iter()
                .take(4)
                .map(|a| format!("{} {}..={}", a.name, a.first, a.last))
                .collect::<Vec<_>>()
                .join(", "),
            model.warnings()
        );
    }
}

#[test]
fn flame2s_trailing_bytes_load_with_a_warning_and_write_back() {
    let Some((bytes, model)) = shared_mdl("flame2.mdl") else {
        return;
    };
    assert_eq!(model.trailing_bytes().len(), 99_177);
    assert!(model.warnings().contains(&MdlWarning::TrailingBytes {
        end: bytes.len() - 99_177,
        length: bytes.len()
    }));
    // Two groups of 6 and 11 poses, stepping 0.1 s: 10 a second.
    let groups: Vec<_> = model.file_frames().iter().map(|f| f.count).collect();
    assert_eq!(groups, [6, 11]);
    let first = model.file_frames()[0].first;
    for (time, pose) in [
        (0.0, 0),
        (0.05, 0),
        (0.15, 1),
        (0.55, 5),
        (0.61, 0),
        (-0.05, 5),
    ] {
        assert_eq!(
            model.file_frames()[0].pose_at(time),
            first + pose,
            "at {time} s"
        );
    }
}

#[test]
fn candle1s_groups_of_one_and_of_three_are_six_animations() {
    let Some((_, model)) = shared_mdl("candle1.mdl") else {
        return;
    };
    let ranges: Vec<_> = model
        .animations()
        .iter()
        .map(|a| (a.first, a.last))
        .collect();
    assert_eq!(ranges, [(0, 0), (1, 3), (4, 4), (5, 7), (8, 8), (9, 11)]);
    // Their poses all say frame1..3: names stay unique.
    let names: Vec<_> = model.animations().iter().map(|a| a.name.clone()).collect();
    assert_eq!(names[0], "frame");
    assert_eq!(names[1], "frame_2");
}

#[test]
fn the_shared_palette_colours_the_skins_and_marks_fullbright_texels() {
    let (Some((_, model)), Some(palette)) = (shared_mdl("player.mdl"), shared_palette()) else {
        return;
    };
    assert_eq!(palette.to_lmp().len(), 768);
    let found = Palette::find(shared_mdl_dir().unwrap().join("player.mdl")).expect("beside it");
    assert_eq!(found.1, palette);
    let images = SkinImages::new(&model, &palette);
    assert_eq!(images.layers.len(), 1);
    let (w, h) = model.skin_size();
    assert_eq!(images.layers[0].dimensions(), (w, h));
    let indices = model.skins()[0].images()[0].clone();
    for (i, (pixel, mask)) in images.layers[0]
        .pixels()
        .zip(images.fullbright[0].pixels())
        .enumerate()
    {
        let index = indices[i];
        assert_eq!(pixel.0, palette.rgba(index));
        assert_eq!(
            mask.0[3] == 255,
            index >= md2_wgpu::format::mdl::FULLBRIGHT_FIRST
        );
    }
    let _ = MdlModel::clips(&model);
}
