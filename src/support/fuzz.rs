//! The fuzz target's body (`fuzz/fuzz_targets/from_bytes.rs` calls it), here
//! so that it compiles with the crate on stable and `cargo test` runs it on
//! seeded mutations of real files.

use crate::format::{Md2Model, Md2Warning};
use crate::model::Bounds;

/// `Md2Model::from_bytes` on any bytes: a model or a typed error, never a
/// panic. A model that loads has animations that tile its frames with unique
/// names and ordered bounds, and writes back: byte for byte when it had no
/// warnings (but renamed animations, which are about names, not bytes), and
/// always as a file that loads again with the same geometry. Panics where
/// any of that fails: that is the finding.
pub fn check_from_bytes(data: &[u8]) {
    let Ok(model) = Md2Model::from_bytes(data) else {
        return;
    };

    animations_tile_the_frames(&model);

    for f in 0..model.keyframes().frame_count() {
        let Bounds { min: lo, max: hi } = model.keyframes().frame_bounds(f);
        for k in 0..3 {
            assert!(lo[k] <= hi[k], "frame {f}: bounds {lo:?} {hi:?}");
        }
    }

    let written = model.to_bytes();
    let again = Md2Model::from_bytes(&written).expect("a written model loads");
    let renamed = |w: &Md2Warning| matches!(w, Md2Warning::AnimationRenamed { .. });
    if model.warnings().iter().all(renamed) {
        assert!(written == data, "a clean file writes back byte for byte");
        assert_eq!(again, model);
    } else {
        assert_eq!(again.header(), &model.canonical_header());
        assert_eq!(again.skins(), model.skins());
        assert_eq!(again.tex_coords(), model.tex_coords());
        assert_eq!(again.triangles(), model.triangles());
        assert_eq!(again.keyframes().frames(), model.keyframes().frames());
        assert_eq!(again.keyframes().vertices(), model.keyframes().vertices());
        // Only the quirks that live in the data itself survive a rewrite.
        for w in again.warnings() {
            assert!(
                matches!(
                    w,
                    Md2Warning::BeyondQuake2Limit { .. }
                        | Md2Warning::NormalIndexOutOfTable { .. }
                        | Md2Warning::SkinNameUnterminated { .. }
                        | Md2Warning::AnimationRenamed { .. }
                ),
                "a rewritten file warns {w:?}"
            );
        }
        assert!(again.to_bytes() == written, "a rewrite is a fixed point");
    }
}

/// The work budget the fuzz bodies give level builds: enough for a few
/// levels of a player-sized model, little enough that any model finishes
/// in a fraction of a second.
const FUZZ_LEVEL_BUDGET: u64 = 600_000;

/// Everything the crate does with a model that loads, on any bytes: the
/// render mesh in both triangle orders, levels of detail (with a bounded
/// work budget: no input can make the build long), the levels saved and
/// loaded back, the GPU data, and the glTF export. Each is a result or a
/// typed error, never a panic; levels keep to their mesh; the export holds
/// every frame. Panics where any of that fails: that is the finding.
pub fn check_model_use(data: &[u8]) {
    if let Ok(model) = Md2Model::from_bytes(data) {
        check_keyframes_use(&model);
    }
}

/// `MdlModel::from_bytes` on any bytes: a model or a typed error, never a
/// panic. A model that loads writes back byte for byte (trailing bytes
/// kept), its animations tile its poses with unique names and every frame
/// group is one of them, its clips have finite, positive rates, its timed
/// poses and skin layers are in range, its skins decode, and everything
/// the crate does with a model works on it ([`check_model_use`]'s checks).
/// Panics where any of that fails: that is the finding.
pub fn check_mdl_from_bytes(data: &[u8]) {
    use crate::format::mdl::{MdlModel, Palette, SkinImages};

    let Ok(model) = MdlModel::from_bytes(data) else {
        return;
    };
    assert!(
        model.to_bytes() == data,
        "an MDL that loads writes back byte for byte"
    );
    animations_tile_the_frames(&model);
    for frame in model.file_frames().iter().filter(|f| f.group.is_some()) {
        let whole = model
            .animations()
            .iter()
            .any(|a| a.frames() == (frame.first..=frame.first + frame.count - 1));
        assert!(whole, "frame group {frame:?} is an animation of its own");
    }
    for clip in model.clips() {
        assert!(clip.fps.is_finite() && clip.fps > 0.0, "{clip:?}");
    }
    for frame in model.file_frames() {
        for time in [-1.5, 0.0, 0.05, 1.0e9] {
            assert!(frame.poses().contains(&frame.pose_at(time)));
        }
    }
    let images = SkinImages::new(&model, &Palette::builtin());
    assert_eq!(images.layers.len(), images.fullbright.len());
    for s in 0..model.skins().len() {
        let layer = model.skin_layer_at(s, 0.37).expect("the skin exists");
        assert!((layer as usize) < images.layers.len());
    }
    check_keyframes_use(&model);
}

/// `Md3Model::from_bytes` on any bytes: a model or a typed error, never a
/// panic. A model that loads writes back byte for byte (its layout, and
/// the bytes between and after its parts, kept), reads back as the same
/// model, and every vertex, frame and tag it has decodes: positions
/// finite, normals of unit length, each frame's vertices and tags where
/// their counts say, every tag found by its name. Panics where any of that
/// fails: that is the finding.
pub fn check_md3_from_bytes(data: &[u8]) {
    use crate::format::md3::Md3Model;

    let Ok(model) = Md3Model::from_bytes(data) else {
        return;
    };
    let written = model.to_bytes();
    assert!(
        written == data,
        "an MD3 that loads writes back byte for byte"
    );
    let again = Md3Model::from_bytes(&written).expect("a written MD3 loads");
    assert_eq!(again, model);
    let frames = model.frames().len();
    let per_frame = usize::try_from(model.header().num_tags).expect("a checked count");
    assert_eq!(model.tags().len(), frames * per_frame);
    for frame in 0..frames {
        assert_eq!(model.frame_tags(frame).len(), per_frame);
        for tag in model.frame_tags(frame) {
            let found = model.tag(frame, &tag.name()).expect("a tag by its name");
            assert_eq!(found.name(), tag.name());
            let _ = tag.place([1.0, -2.0, 3.0]);
        }
    }
    for surface in model.surfaces() {
        let _ = surface.name_for_skins();
        for frame in 0..frames {
            assert_eq!(surface.frame_vertices(frame).len(), surface.vertex_count());
        }
        assert!(surface.frame_vertices(frames).is_empty());
        for v in surface.vertices() {
            assert!(v.position().iter().all(|c| c.is_finite()));
            let n = v.normal_vector();
            let length = n.iter().map(|c| c * c).sum::<f32>().sqrt();
            assert!(
                (length - 1.0).abs() < 1e-4,
                "normal {:#06x}: {n:?}",
                v.normal
            );
        }
        let verts = surface.vertex_count();
        for t in surface.triangles() {
            assert!(
                t.iter()
                    .all(|&i| usize::try_from(i).is_ok_and(|i| i < verts))
            );
        }
    }
}

/// Everything the crate does with a model, checked (see
/// [`check_model_use`]).
fn check_keyframes_use(model: &crate::model::KeyframeModel) {
    use crate::contract::{GpuModelOptions, ModelData};
    use crate::mesh::{LevelOptions, Levels, RenderMesh, TriangleOrder};

    for order in [TriangleOrder::File, TriangleOrder::VertexCache] {
        let mesh = RenderMesh::new(model, order);
        assert_eq!(mesh.triangle_count(), mesh.indices().len() / 3);
        assert!(
            mesh.indices()
                .iter()
                .all(|&i| (i as usize) < mesh.corners().len())
        );
        assert!(
            mesh.corners()
                .iter()
                .all(|c| (c.xyz as usize) < model.vertex_count())
        );
        let options = LevelOptions {
            work_budget: FUZZ_LEVEL_BUDGET,
            ..LevelOptions::DEFAULT
        };
        let levels = Levels::new(model, &mesh, &options).expect("the model's own mesh");
        levels.check_for(&mesh).expect("levels keep to their mesh");
        assert_eq!(levels.level_indices(0), Some(mesh.indices()));
        for pair in levels.levels().windows(2) {
            assert!(pair[1].index_count < pair[0].index_count);
            assert!(pair[1].error >= pair[0].error && pair[1].error.is_finite());
        }
        let saved = levels.to_bytes(model, &mesh);
        assert_eq!(
            Levels::from_bytes(&saved, model, &mesh).as_ref(),
            Ok(&levels),
            "saved levels load back"
        );
        if order == TriangleOrder::VertexCache {
            let options = GpuModelOptions::DEFAULT.with_levels(options);
            if let Ok(gpu) = ModelData::new(model, options) {
                assert_eq!(gpu.vertex_bytes().len(), 4 * model.vertices().len());
                assert!(gpu.levels_of_detail().levels().len() <= crate::contract::MAX_LEVELS);
                assert_eq!(
                    gpu.mirrored_indices().len(),
                    gpu.levels_of_detail().indices().len()
                );
            }
        }
    }
    // Frames past the export's limits or skins it cannot use are typed
    // errors; what exports holds every frame as a morph target.
    if let Ok(export) = crate::gltf::to_glb(model, &[], &crate::gltf::GltfOptions::DEFAULT) {
        assert!(export.glb.starts_with(b"glTF"));
        assert_eq!(export.report.morph_targets, model.frame_count());
    }
}

/// Levels of detail loaded from any bytes, for the demo model's mesh: the
/// levels or a typed error, never a panic; what loads keeps to the mesh and
/// saves back to exactly those bytes. An odd first byte has the checksum
/// made right first, so mutations reach the checks behind it.
pub fn check_levels_file(data: &[u8]) {
    use crate::mesh::{Levels, RenderMesh, TriangleOrder};
    use std::sync::OnceLock;

    static DEMO: OnceLock<(Md2Model, RenderMesh)> = OnceLock::new();
    let (model, mesh) = DEMO.get_or_init(|| {
        let model = crate::demo::demo_model();
        let mesh = RenderMesh::new(&model, TriangleOrder::VertexCache);
        (model, mesh)
    });
    let mut bytes = data.to_vec();
    if data.first().is_some_and(|b| b & 1 == 1) && bytes.len() >= 8 {
        let body = bytes.len() - 8;
        let sum = crate::mesh::levels_checksum(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }
    if let Ok(levels) = Levels::from_bytes(&bytes, model, mesh) {
        levels
            .check_for(mesh)
            .expect("loaded levels keep to their mesh");
        assert!(
            levels.to_bytes(model, mesh) == bytes,
            "loaded levels save back to their bytes"
        );
    }
}

/// The animations tile the frames, in order, with unique names.
fn animations_tile_the_frames(model: &crate::model::KeyframeModel) {
    let mut next = 0;
    let mut names = std::collections::HashSet::new();
    for a in model.animations() {
        assert_eq!(a.first, next);
        assert!(a.last >= a.first);
        assert!(names.insert(&a.name), "two animations named {:?}", a.name);
        next = a.last + 1;
    }
    assert_eq!(next, model.frame_count());
}
