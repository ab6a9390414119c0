//! The model seam's door: `KeyframeModel::from_parts` refuses every part
//! that would let a later room index past a buffer or read a value that is
//! not finite, with the error that says what and where, and keeps what
//! it is given.

use md2_wgpu_tests as common;

use md2_wgpu::model::{Animation, Corner, Frame};
use md2_wgpu::model::{KeyframeError, KeyframeModel, KeyframeParts};

/// The parts of a small valid model (a generated mesh over 3 frames).
fn parts() -> KeyframeParts {
    let model = common::ribbon(4, 3).keyframes(None);
    KeyframeParts {
        frames: model.frames().to_vec(),
        vertices: model.vertices().to_vec(),
        corners: model.corners().to_vec(),
        indices: model.indices().to_vec(),
        skin_size: model.skin_size(),
        animations: Some(model.animations().to_vec()),
        wide_vertices: Vec::new(),
    }
}

fn refused(parts: KeyframeParts) -> KeyframeError {
    let error = KeyframeModel::from_parts(parts).expect_err("the parts are refused");
    // Every error reads as a sentence that names the part.
    assert!(!error.to_string().is_empty());
    error
}

fn animation(name: &str, first: u32, last: u32) -> Animation {
    Animation {
        name: name.into(),
        first,
        last,
    }
}

#[test]
fn valid_parts_make_the_model_they_describe() {
    let p = parts();
    let model = KeyframeModel::from_parts(p.clone()).unwrap();
    assert_eq!(model.frames(), &p.frames[..]);
    assert_eq!(model.vertices(), &p.vertices[..]);
    assert_eq!(model.corners(), &p.corners[..]);
    assert_eq!(model.indices(), &p.indices[..]);
    assert_eq!(
        model.vertex_count() * model.frames().len(),
        p.vertices.len()
    );
    assert_eq!(model.triangle_count() * 3, p.indices.len());
    // Without animations, the frames are grouped by name, as MD2's are.
    let grouped = KeyframeModel::from_parts(KeyframeParts {
        animations: None,
        ..p
    })
    .unwrap();
    assert_eq!(grouped.animations(), model.animations());
}

#[test]
fn empty_parts_say_what_is_missing() {
    for (what, clear) in [
        (
            "frames",
            (|p: &mut KeyframeParts| p.frames.clear()) as fn(&mut KeyframeParts),
        ),
        ("vertices", |p| p.vertices.clear()),
        ("triangles", |p| p.indices.clear()),
    ] {
        let mut p = parts();
        clear(&mut p);
        p.animations = None;
        assert_eq!(refused(p), KeyframeError::Empty { what }, "{what}");
    }
}

/// The parts with the last item of the list `list` picks taken off,
/// refused: the error, and how many items the list has left.
fn refused_one_short<T>(
    list: impl FnOnce(&mut KeyframeParts) -> &mut Vec<T>,
) -> (KeyframeError, usize) {
    let mut p = parts();
    let items = list(&mut p);
    items.pop();
    let left = items.len();
    (refused(p), left)
}

#[test]
fn vertices_that_do_not_divide_into_the_frames_are_refused() {
    let (error, vertices) = refused_one_short(|p| &mut p.vertices);
    assert_eq!(
        error,
        KeyframeError::VerticesPerFrame {
            vertices,
            frames: 3
        }
    );
}

#[test]
fn a_partial_triangle_is_refused() {
    let (error, indices) = refused_one_short(|p| &mut p.indices);
    assert_eq!(error, KeyframeError::PartialTriangle { indices });
}

#[test]
fn indices_past_the_corners_and_corners_past_the_vertices_name_the_culprit() {
    let mut p = parts();
    let corners = p.corners.len();
    p.indices[7] = corners as u32;
    assert_eq!(
        refused(p),
        KeyframeError::CornerOutOfRange {
            triangle: 2,
            corner: corners as u32,
            corners
        }
    );

    let mut p = parts();
    let per_frame = p.vertices.len() / p.frames.len();
    p.corners[4].xyz = u32::MAX;
    assert_eq!(
        refused(p),
        KeyframeError::VertexOutOfRange {
            corner: 4,
            vertex: u32::MAX,
            vertices: per_frame
        }
    );
}

#[test]
fn values_that_are_not_finite_are_refused_where_they_are() {
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut p = parts();
        p.frames[2].scale[1] = bad;
        assert_eq!(
            refused(p),
            KeyframeError::NotFinite {
                what: "frame",
                index: 2
            }
        );
        let mut p = parts();
        p.frames[1] = Frame::new("ribbon02", [1.0; 3], [0.0, 0.0, bad]);
        assert_eq!(
            refused(p),
            KeyframeError::NotFinite {
                what: "frame",
                index: 1
            }
        );
        let mut p = parts();
        p.corners[5] = Corner {
            uv: [0.5, bad],
            ..p.corners[5]
        };
        assert_eq!(
            refused(p),
            KeyframeError::NotFinite {
                what: "corner",
                index: 5
            }
        );
    }
}

#[test]
fn a_skin_with_a_side_of_zero_is_refused() {
    for size in [(0, 64), (64, 0), (0, 0)] {
        let mut p = parts();
        p.skin_size = size;
        assert_eq!(refused(p), KeyframeError::SkinSize { size });
    }
}

#[test]
fn animations_must_cover_every_frame_once_in_order_with_one_name_each() {
    for (why, animations) in [
        ("a gap", vec![animation("a", 0, 0), animation("b", 2, 2)]),
        (
            "an overlap",
            vec![animation("a", 0, 1), animation("b", 1, 2)],
        ),
        (
            "out of order",
            vec![animation("b", 1, 2), animation("a", 0, 0)],
        ),
        ("short", vec![animation("a", 0, 1)]),
        ("past the frames", vec![animation("a", 0, 3)]),
        (
            "backwards",
            vec![animation("a", 0, 0), animation("b", 2, 1)],
        ),
        (
            "one name twice",
            vec![animation("a", 0, 0), animation("a", 1, 2)],
        ),
        ("none", vec![]),
    ] {
        let mut p = parts();
        p.animations = Some(animations);
        let error = refused(p);
        assert!(
            matches!(error, KeyframeError::Animations { .. }),
            "{why}: {error:?}"
        );
    }
    let mut p = parts();
    p.animations = Some(vec![animation("walk", 0, 1), animation("die", 2, 2)]);
    let model = KeyframeModel::from_parts(p).unwrap();
    assert_eq!(model.animation("die").map(|a| a.first), Some(2));
}

#[test]
fn a_model_has_one_word_and_a_wide_one_decodes_as_the_file_says() {
    use md2_wgpu::model::{FrameData, FrameWord, WideVertex};
    let p = parts();
    let n = p.vertices.len();
    let wide: Vec<WideVertex> = (0..n)
        .map(|i| WideVertex {
            position: [i as i16 * 64, -(i as i16), i16::MIN + i as i16],
            normal: (i * 1_000) as u16,
        })
        .collect();
    // Both words at once: refused, naming how many of each.
    let both = KeyframeParts {
        wide_vertices: wide.clone(),
        ..parts()
    };
    assert_eq!(
        refused(both),
        KeyframeError::TwoWords { packed: n, wide: n }
    );
    // The 8-byte word alone: every frame decodes as the vertex says.
    let model = KeyframeModel::from_parts(KeyframeParts {
        vertices: Vec::new(),
        wide_vertices: wide.clone(),
        ..parts()
    })
    .unwrap();
    assert_eq!(model.frame_word(), FrameWord::Wide8);
    assert!(model.vertices().is_empty());
    for f in 0..model.frame_count() {
        let data = model.frame_data(f);
        assert!(matches!(data, FrameData::Wide8(..)));
        assert_eq!(data.word(), FrameWord::Wide8);
        assert!(data.packed().is_empty());
        let frame = &model.frames()[f as usize];
        assert_eq!(data.frame(), frame);
        let per_frame = model.vertex_count();
        assert_eq!((data.len(), data.is_empty()), (per_frame, false));
        let (positions, normals) = (data.positions(), data.normals());
        for (i, v) in data.wide().iter().enumerate() {
            assert_eq!(*v, wide[f as usize * per_frame + i]);
            assert_eq!(data.position(i), Some(v.decode_position(frame)));
            assert_eq!(data.normal(i), Some(v.normal()));
            assert_eq!(
                (positions[i], normals[i]),
                (v.decode_position(frame), v.normal())
            );
        }
        let mut words = Vec::new();
        data.push_words(&mut words);
        assert_eq!(words.len(), 2 * per_frame);
        let v = data.wide()[1];
        assert_eq!(words[2] & 0xffff, v.position[0] as u16 as u32);
        assert_eq!(words[3] >> 16, u32::from(v.normal));
    }
}
