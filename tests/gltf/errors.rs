//! What an export refuses, with a typed error that says what and where,
//! before it allocates the large buffers; nothing panics.

use md2_wgpu::gltf::{GltfError, GltfOptions, to_glb};
use md2_wgpu::{
    Clip, Md2Model,
    format::{Md2Parts, TexCoord, Triangle},
    model::{Frame, PackedVertex},
};

use crate::cases;

/// `frames` frames of `name` over one triangle; `scale` for every frame.
fn triangle_frames(frames: usize, scale: f32) -> Md2Model {
    Md2Model::from_parts(Md2Parts {
        skin_size: (8, 8),
        skins: Vec::new(),
        tex_coords: vec![TexCoord { s: 0, t: 0 }; 3],
        triangles: vec![Triangle {
            xyz: [0, 1, 2],
            st: [0, 1, 2],
        }],
        frames: vec![Frame::new("f", [scale; 3], [0.0; 3]); frames],
        vertices: (0..frames * 3)
            .map(|i| PackedVertex {
                position: [(i % 3) as u8 * 100, 255, 7],
                normal_index: 0,
            })
            .collect(),
    })
    .unwrap()
}

#[test]
fn bad_options_are_typed_errors() {
    let model = cases::demo().model;
    let export = |options: GltfOptions| to_glb(&model, &[], &options).unwrap_err();
    let e = export(GltfOptions {
        base_frame: 198,
        ..GltfOptions::DEFAULT
    });
    assert!(
        matches!(
            e,
            GltfError::BaseFrameOutOfRange {
                frame: 198,
                frame_count: 198
            }
        ),
        "{e}"
    );
    for scale in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let e = export(GltfOptions::DEFAULT.with_scale(scale));
        assert!(matches!(e, GltfError::InvalidScale { .. }), "{e}");
    }
    for fps in [0.0, -10.0, f32::NAN, f32::INFINITY, 1e-38] {
        let e = export(GltfOptions {
            fps,
            ..GltfOptions::DEFAULT
        });
        assert!(
            matches!(&e, GltfError::InvalidFps { clip, .. } if clip == "stand"),
            "{fps}: {e}"
        );
    }
    let e = export(GltfOptions {
        clips: Some(vec![Clip::looping("beyond", 190, 198)]),
        ..GltfOptions::DEFAULT
    });
    assert!(
        matches!(&e, GltfError::ClipOutOfRange { clip, last: 198, frame_count: 198, .. } if clip == "beyond"),
        "{e}"
    );
    let text = e.to_string();
    assert!(text.contains("beyond") && text.contains("198"), "{text}");
}

#[test]
fn positions_that_overflow_the_output_units_are_refused() {
    // Finite in the file (255 × 1e36), infinite times a scale of 1e3.
    let model = triangle_frames(2, 1e36);
    let e = to_glb(&model, &[], &GltfOptions::DEFAULT.with_scale(1e3)).unwrap_err();
    assert!(
        matches!(e, GltfError::NonFinitePosition { frame: 0, .. }),
        "{e}"
    );
    assert!(to_glb(&model, &[], &GltfOptions::DEFAULT).is_ok());
}

#[test]
fn an_export_past_the_size_limit_is_refused_before_it_is_built() {
    let model = cases::demo().model;
    let e = to_glb(
        &model,
        &[],
        &GltfOptions {
            max_bytes: 100_000,
            ..GltfOptions::DEFAULT
        },
    )
    .unwrap_err();
    assert!(
        matches!(e, GltfError::TooLarge { limit: 100_000, size } if size > 100_000),
        "{e}"
    );
    // The exact size passes, one byte less does not.
    let glb = to_glb(&model, &[], &GltfOptions::DEFAULT).unwrap().glb;
    for (max_bytes, ok) in [(glb.len() as u64, true), (glb.len() as u64 - 1, false)] {
        let options = GltfOptions {
            max_bytes,
            ..GltfOptions::DEFAULT
        };
        assert_eq!(to_glb(&model, &[], &options).is_ok(), ok, "{max_bytes}");
    }
}

#[test]
fn absurd_counts_are_refused_without_building_them() {
    // 20,000 frames of 4,000 corners: some 2 GB of morph targets from a
    // 1 MB MD2, far past a sensible limit; refused at once.
    let corners = 4000u16;
    let frames = 20_000usize;
    let model = Md2Model::from_parts(Md2Parts {
        skin_size: (64, 64),
        skins: Vec::new(),
        tex_coords: (0..corners)
            .map(|i| TexCoord { s: i as i16, t: 0 })
            .collect(),
        triangles: (0..corners / 3)
            .map(|i| Triangle {
                xyz: [0, 1, 2],
                st: [3 * i, 3 * i + 1, 3 * i + 2],
            })
            .collect(),
        frames: vec![Frame::new("f", [1.0; 3], [0.0; 3]); frames],
        vertices: vec![PackedVertex::default(); frames * 3],
    })
    .unwrap();
    let options = GltfOptions {
        max_bytes: 1 << 30,
        ..GltfOptions::DEFAULT
    };
    let e = to_glb(&model, &[], &options).unwrap_err();
    assert!(
        matches!(e, GltfError::TooLarge { size, .. } if size > 1 << 30),
        "{e}"
    );

    // 70,000 frames in one clip: 4.9 billion weights, more than a sparse
    // accessor's 32-bit indices reach.
    let model = triangle_frames(70_000, 1.0);
    let e = to_glb(&model, &[], &GltfOptions::DEFAULT).unwrap_err();
    assert!(
        matches!(&e, GltfError::TooManyWeights { clip, count } if clip == "f" && *count == 70_001 * 70_000),
        "{e}"
    );
}
