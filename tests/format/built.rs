//! Models built in code: they write, read back equal, and their generated
//! glcmds draw every triangle exactly once with the triangle's winding, for
//! awkward meshes and for the real files' meshes alike. And what
//! `Md2Model::from_parts` refuses.

use crate::common::{Mesh, Tolerance, assert_glcmds_cover, parts_of, real_files};
use md2_wgpu::{
    Md2Model,
    format::{GlCmdKind, Md2Error, Md2Parts, Md2Warning, TexCoord, Triangle},
    model::{Frame, PackedVertex},
};

fn meshes() -> Vec<(&'static str, Mesh)> {
    vec![
        ("single", crate::common::single()),
        ("ribbon1", crate::common::ribbon(1, 2)),
        ("ribbon", crate::common::ribbon(40, 3)),
        ("disc", crate::common::disc(12, 2)),
        ("disconnected", crate::common::disconnected(5, 2)),
        ("seamed_box", crate::common::seamed_box(4)),
        ("sphere", crate::common::sphere(8, 12, 5)),
        ("duplicated", crate::common::duplicated(2)),
    ]
}

fn is_rename(warning: &Md2Warning) -> bool {
    matches!(warning, Md2Warning::AnimationRenamed { .. })
}

/// Checks a built model; a generated one (not one made from a real file's
/// parts, which must stay out of anything shared) is also written where the
/// fuzzer's seeds are taken from (see fuzz/fuzz_targets/from_bytes.rs).
fn check_built(name: &str, model: &Md2Model) {
    check(name, model, true);
}

fn check(name: &str, model: &Md2Model, seed: bool) {
    // Names that repeat an animation's are the one quirk parts can have.
    assert!(
        model.warnings().iter().all(is_rename),
        "{name}: {:?}",
        model.warnings()
    );
    assert_eq!(model.header(), &model.canonical_header(), "{name}");
    assert!(!model.glcmds().is_empty(), "{name}: glcmds generated");
    for cmd in model.glcmds() {
        assert!(cmd.vertices.len() >= 3, "{name}: {cmd:?}");
    }
    assert_glcmds_cover(model, model.glcmds(), Tolerance::Exact, name);

    let bytes = model.to_bytes();
    assert_eq!(bytes.len(), model.header().ofs_end as usize, "{name}");
    let back = Md2Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(&back, model, "{name}: parses back equal");
    assert_eq!(back.to_bytes(), bytes, "{name}: writes back the same");

    if !seed {
        return;
    }
    let seeds = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("md2-fuzz-seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join(format!("{name}.md2")), &bytes).unwrap();
}

#[test]
fn built_models_parse_back_equal_with_glcmds_covering_each_triangle_once() {
    for (name, mesh) in meshes() {
        let model = mesh.model();
        assert_eq!(model.triangles().len(), mesh.tris.len(), "{name}");
        assert_eq!(
            model.keyframes().frame_count() as usize,
            mesh.frames.len(),
            "{name}"
        );
        check_built(name, &model);
    }
}

#[test]
fn a_ribbon_is_one_strip_and_a_disc_one_fan() {
    let ribbon = crate::common::ribbon(40, 1).model();
    assert_eq!(ribbon.glcmds().len(), 1, "{:?}", ribbon.glcmds());
    assert_eq!(ribbon.glcmds()[0].kind, GlCmdKind::Strip);
    assert_eq!(ribbon.glcmds()[0].vertices.len(), 80 + 2);

    let disc = crate::common::disc(12, 1).model();
    assert_eq!(disc.glcmds().len(), 1, "{:?}", disc.glcmds());
    assert_eq!(disc.glcmds()[0].kind, GlCmdKind::Fan);
    assert_eq!(disc.glcmds()[0].vertices.len(), 12 + 2);

    // Nothing joins disconnected triangles.
    assert_eq!(crate::common::disconnected(5, 1).model().glcmds().len(), 5);
}

#[test]
fn a_seam_stops_a_strip() {
    // Two triangles sharing both vertices of an edge, but each with its own
    // texels there: a glcmd vertex carries one s, t, so no strip joins them.
    let mesh = Mesh {
        skin: (32, 32),
        st: vec![(0, 0), (10, 0), (0, 10), (20, 20), (30, 20), (30, 30)],
        tris: vec![([0, 1, 2], [0, 1, 2]), ([2, 1, 3], [3, 4, 5])],
        frames: vec![(
            "seam".into(),
            vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [1.0, 1.0, 0.0],
            ],
        )],
    };
    let model = mesh.model();
    assert_eq!(model.glcmds().len(), 2);
    check_built("seam", &model);

    // The same with shared texels joins into one command.
    let joined = Mesh {
        tris: vec![([0, 1, 2], [0, 1, 2]), ([2, 1, 3], [2, 1, 3])],
        st: vec![(0, 0), (10, 0), (0, 10), (10, 10)],
        ..mesh
    }
    .model();
    assert_eq!(joined.glcmds().len(), 1);
    check_built("joined", &joined);
}

#[test]
fn duplicated_triangles_are_each_drawn_once() {
    let model = crate::common::duplicated(1).model();
    let drawn: usize = model.glcmds().iter().map(|c| c.vertices.len() - 2).sum();
    assert_eq!(drawn, model.triangles().len());
    check_built("duplicated_once", &model);
}

#[test]
fn degenerate_triangles_are_drawn_too() {
    // Corners repeated within a triangle: still one drawn triangle each.
    let mesh = Mesh {
        skin: (8, 8),
        st: vec![(0, 0), (1, 0), (0, 1)],
        tris: vec![
            ([0, 0, 0], [0, 0, 0]),
            ([0, 0, 1], [0, 0, 1]),
            ([0, 1, 0], [0, 1, 0]),
            ([1, 2, 1], [1, 2, 1]),
            ([0, 1, 2], [0, 1, 2]),
        ],
        frames: vec![(
            "flat".into(),
            vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        )],
    };
    check_built("degenerate", &mesh.model());
}

#[test]
fn real_meshes_get_glcmds_covering_each_triangle_once() {
    for (path, bytes) in real_files() {
        let real = Md2Model::from_bytes(&bytes).unwrap();
        let built = Md2Model::from_parts(parts_of(&real)).unwrap();
        assert_eq!(built.triangles(), real.triangles(), "{path}");
        assert_eq!(
            built.keyframes().vertices(),
            real.keyframes().vertices(),
            "{path}"
        );
        // A built model reports the renames its frame names call for, as the
        // loaded file does (yohko/weapon.md2 repeats crstand and crwalk).
        let renames: Vec<_> = real.warnings().iter().filter(|w| is_rename(w)).collect();
        assert_eq!(
            built.warnings().iter().collect::<Vec<_>>(),
            renames,
            "{path}"
        );
        assert_eq!(
            built.keyframes().animations(),
            real.keyframes().animations(),
            "{path}"
        );
        check(&path, &built, false);
        let words = |m: &Md2Model| m.header().num_glcmds;
        eprintln!(
            "{path}: {} glcmd words generated, {} in the file",
            words(&built),
            words(&real)
        );
    }
}

#[test]
fn repeated_animation_names_are_renamed_with_a_warning_built_or_loaded() {
    let corner = |x: u8| PackedVertex {
        position: [x, 255 - x, 7],
        normal_index: 5,
    };
    let names = ["run1", "run2", "stand01", "run1", "run2", "run3"];
    let built = Md2Model::from_parts(Md2Parts {
        skin_size: (8, 8),
        tex_coords: vec![TexCoord { s: 1, t: 2 }; 3],
        triangles: vec![Triangle {
            xyz: [0, 1, 2],
            st: [0, 1, 2],
        }],
        frames: names
            .iter()
            .map(|n| Frame::new(n, [1.0; 3], [0.0; 3]))
            .collect(),
        vertices: (0..names.len() * 3).map(|i| corner(i as u8)).collect(),
        ..Default::default()
    })
    .unwrap();
    let want = [Md2Warning::AnimationRenamed {
        name: "run".into(),
        renamed: "run_2".into(),
        first: 3,
        last: 5,
    }];
    assert_eq!(built.warnings(), want);
    let found: Vec<_> = built
        .keyframes()
        .animations()
        .iter()
        .map(|a| (a.name.as_str(), a.first, a.last))
        .collect();
    assert_eq!(found, [("run", 0, 1), ("stand", 2, 2), ("run_2", 3, 5)]);
    assert_eq!(
        built.keyframes().animation("run_2").map(|a| a.len()),
        Some(3)
    );
    assert_eq!(built.keyframes().animation("walk"), None);

    // The written file loads with the same warning, and is still a clean
    // rewrite: the warning is about names, not bytes.
    let bytes = built.to_bytes();
    let loaded = Md2Model::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.warnings(), want);
    assert_eq!(loaded, built);
    assert_eq!(loaded.to_bytes(), bytes);
    let text = want[0].to_string();
    assert!(
        text.contains("3 to 5") && text.contains("\"run_2\""),
        "{text}"
    );
}

#[test]
fn a_model_with_its_glcmds_dropped_writes_generated_ones() {
    // Loading a file whose glcmds are gone, then writing it: the writer
    // generates them, and the file reads back clean.
    let model = crate::common::sphere(6, 10, 2).model();
    let mut bytes = model.to_bytes();
    let h = *model.header();
    // num_glcmds = 0 and ofs_end at the glcmds: a file without them.
    bytes.truncate(h.ofs_glcmds as usize);
    bytes[36..40].copy_from_slice(&0i32.to_le_bytes());
    bytes[64..68].copy_from_slice(&h.ofs_glcmds.to_le_bytes());
    let loaded = Md2Model::from_bytes(&bytes).unwrap();
    assert!(loaded.glcmds().is_empty());
    let written = loaded.to_bytes();
    let again = Md2Model::from_bytes(&written).unwrap();
    assert!(again.warnings().is_empty(), "{:?}", again.warnings());
    assert_eq!(written, model.to_bytes());
    assert_glcmds_cover(&again, again.glcmds(), Tolerance::Exact, "regenerated");
}

fn valid_parts() -> Md2Parts {
    crate::common::seamed_box(2).parts()
}

fn refused(parts: Md2Parts) -> String {
    match Md2Model::from_parts(parts) {
        Err(e @ Md2Error::InvalidParts { .. }) => e.to_string(),
        Err(e) => panic!("expected InvalidParts, got {e:?}"),
        Ok(_) => panic!("expected InvalidParts, the model was built"),
    }
}

#[test]
fn from_parts_refuses_inconsistent_parts() {
    assert!(Md2Model::from_parts(valid_parts()).is_ok());

    let mut p = valid_parts();
    p.triangles[3].xyz[2] = 8;
    let msg = refused(p);
    assert!(
        msg.contains("triangle 3") && msg.contains("corner 2") && msg.contains('8'),
        "{msg}"
    );

    let mut p = valid_parts();
    let n = p.tex_coords.len() as u16;
    p.triangles[0].st[1] = n;
    let msg = refused(p);
    assert!(
        msg.contains("triangle 0") && msg.contains(&n.to_string()),
        "{msg}"
    );

    let mut p = valid_parts();
    p.frames[1].scale[1] = f32::NAN;
    assert!(refused(p).contains("frame 1"));

    let mut p = valid_parts();
    p.frames[0].translate[2] = f32::INFINITY;
    assert!(refused(p).contains("frame 0"));

    let mut p = valid_parts();
    p.frames.clear();
    refused(p);

    let mut p = valid_parts();
    p.vertices.pop();
    let msg = refused(p);
    assert!(
        msg.contains("15 vertices") && msg.contains("2 frames"),
        "{msg}"
    );

    let mut p = valid_parts();
    p.vertices.clear();
    refused(p);

    let mut p = valid_parts();
    p.triangles.clear();
    refused(p);

    let mut p = valid_parts();
    p.tex_coords.clear();
    refused(p);

    for size in [(0, 64), (64, 0), (0, 0), (32769, 8), (8, u32::MAX)] {
        let mut p = valid_parts();
        p.skin_size = size;
        let msg = refused(p);
        assert!(msg.contains(&format!("{size:?}")), "{msg}");
    }
}

#[test]
fn from_parts_accepts_the_smallest_model() {
    let model = Md2Model::from_parts(Md2Parts {
        skin_size: (1, 1),
        tex_coords: vec![TexCoord::default()],
        triangles: vec![Triangle::default()],
        frames: vec![Frame::new("a", [1.0; 3], [0.0; 3])],
        vertices: vec![PackedVertex::default()],
        ..Default::default()
    })
    .unwrap();
    check_built("smallest", &model);
}
