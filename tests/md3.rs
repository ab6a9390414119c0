//! Quake III's MD3, CPU only. A tiny model built in code writes and reads
//! back byte for byte; hostile files (cut anywhere, lying counts and
//! offsets, parts outside their bounds or over each other, indices out of
//! range, names with no end, NaNs) each give the expected typed error,
//! never a panic or an allocation out of proportion to the file; layouts
//! other than the built one load and write back as they were; the fuzz
//! target's checks (`support::check_md3_from_bytes`) hold on thousands of
//! seeded mutations; and the shared OpenArena players load, write back
//! byte for byte, and agree with their `animation.cfg` and `.skin` files.

use md2_wgpu_tests as common;

use md2_wgpu::format::md3::{
    AnimationConfig, Footsteps, Gender, Md3Error, Md3Model, Md3Name, Md3Part, Md3Parts, Md3Skin,
    Md3SurfaceParts, Md3Warning, PlayerAnimation, texture_candidates,
};

#[global_allocator]
static ALLOCATOR: common::Tracking = common::Tracking;

/// The tiny model's bytes with the `i32` at `at` set to `value`.
fn with(at: usize, value: i32) -> Vec<u8> {
    let mut bytes = base();
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    bytes
}

/// `from_bytes`, failing where a single allocation is out of proportion
/// to the file.
fn load(bytes: &[u8]) -> Result<Md3Model, Md3Error> {
    common::load_bounded(bytes, Md3Model::from_bytes)
}

/// The tiny model's bytes.
fn base() -> Vec<u8> {
    common::tiny_md3().to_bytes()
}

/// The header's fields after the name: where each `i32` is.
const NUM_FRAMES: usize = 76;
const NUM_TAGS: usize = 80;
const NUM_SURFACES: usize = 84;
const NUM_SKINS: usize = 88;
const OFS_FRAMES: usize = 92;
const OFS_TAGS: usize = 96;
const OFS_SURFACES: usize = 100;
const OFS_END: usize = 104;

/// Where the tiny model's parts are: its layout is the built one, the
/// parts end to end.
const TAGS: usize = 220;
const SURFACE_0: usize = 668;
const SURFACE_1: usize = 964;
const LENGTH: usize = 1292;

/// A surface header's fields after the name, from the surface's start.
const S_NUM_FRAMES: usize = 72;
const S_NUM_SHADERS: usize = 76;
const S_NUM_VERTS: usize = 80;
const S_NUM_TRIANGLES: usize = 84;
const S_OFS_TRIANGLES: usize = 88;
const S_OFS_SHADERS: usize = 92;
const S_OFS_ST: usize = 96;
const S_OFS_XYZ: usize = 100;
const S_OFS_END: usize = 104;

fn close(a: [f32; 3], b: [f32; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
}

#[test]
fn a_model_built_in_code_writes_and_reads_back_byte_for_byte() {
    let model = common::tiny_md3();
    let bytes = model.to_bytes();
    let h = model.header();
    assert_eq!(bytes.len(), LENGTH);
    assert_eq!(
        (h.ofs_frames, h.ofs_tags, h.ofs_surfaces, h.ofs_end),
        (108, TAGS as i32, SURFACE_0 as i32, LENGTH as i32)
    );
    assert_eq!((h.num_frames, h.num_tags, h.num_surfaces), (2, 2, 2));
    let again = load(&bytes).expect("the built bytes load");
    assert_eq!(again, model);
    assert!(again.to_bytes() == bytes, "a rewrite is the same bytes");
    assert!(model.warnings().is_empty(), "{:?}", model.warnings());

    // What the parts said, and what the builder made of them.
    assert_eq!(h.name(), "models/tiny/tiny.md3");
    let names: Vec<String> = model.frames().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["idle1", "idle2"]);
    let [idle1, idle2] = [model.frames()[0], model.frames()[1]];
    assert_eq!((idle1.min, idle1.max), ([0.0; 3], [4.0, 4.0, 6.0]));
    assert_eq!((idle2.min, idle2.max), ([0.0, 0.0, 1.0], [4.0, 4.0, 7.0]));
    assert_eq!(idle1.radius, 68f32.sqrt());
    assert_eq!(
        model.tag(1, "tag_head").map(|t| t.origin),
        Some([2.0, 2.0, 8.0])
    );
    assert_eq!(model.frame_tags(1)[1].name(), "tag_weapon");
    assert!(model.tag(0, "tag_torso").is_none() && model.frame_tags(2).is_empty());
    let weapon = model.tag(0, "tag_weapon").expect("the weapon's tag");
    assert_eq!(weapon.place([1.0, 0.0, 0.0]), [4.0, 1.0, 3.0]);

    let [body, cap] = [&model.surfaces()[0], &model.surfaces()[1]];
    assert_eq!(
        (body.name(), body.name_for_skins()),
        ("body".into(), "body".into())
    );
    assert_eq!(
        (cap.name(), cap.name_for_skins()),
        ("cap_1".into(), "cap".into())
    );
    assert_eq!(cap.shaders()[1].name(), "models/tiny/cap_glow");
    assert_eq!(cap.header().flags, 3);
    assert_eq!(cap.triangles(), [[0, 2, 1]]);
    // The built layout: triangles, shaders, texture coordinates, vertices.
    let c = cap.header();
    assert_eq!(
        [
            c.ofs_triangles,
            c.ofs_shaders,
            c.ofs_st,
            c.ofs_xyz_normals,
            c.ofs_end
        ],
        [108, 120, 256, 280, 328]
    );
    assert_eq!(body.frame_vertices(1)[2].position(), [4.0, 4.0, 1.0]);
    let normals: Vec<[f32; 3]> = body
        .frame_vertices(0)
        .iter()
        .map(|v| v.normal_vector())
        .collect();
    let expected = [
        [0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, -1.0],
    ];
    assert!(
        normals.iter().zip(expected).all(|(&n, e)| close(n, e)),
        "{normals:?}"
    );
}

#[test]
fn parts_that_disagree_are_refused_before_anything_is_written() {
    let refused = |parts: Md3Parts| match Md3Model::from_parts(parts) {
        Err(Md3Error::InvalidParts { reason }) => reason,
        other => panic!("{other:?}"),
    };
    let mut parts = common::tiny_md3_parts();
    parts.frame_names.clear();
    assert!(refused(parts).contains("at least one frame"));
    let mut parts = common::tiny_md3_parts();
    parts.tags.pop();
    assert!(refused(parts).contains("3 tags over 2 frames"));
    let mut parts = common::tiny_md3_parts();
    parts.surfaces[1].vertices.pop();
    assert!(refused(parts).starts_with("surface 1: 5 vertices"));
    // What the loader checks, a built model is held to.
    let mut parts = common::tiny_md3_parts();
    parts.surfaces[0].triangles[1] = [0, 2, 4];
    assert!(matches!(
        Md3Model::from_parts(parts),
        Err(Md3Error::IndexOutOfRange {
            surface: 0,
            triangle: 1,
            corner: 2,
            index: 4,
            count: 4,
            ..
        })
    ));
    let mut parts = common::tiny_md3_parts();
    parts.tags = parts.tags.iter().cycle().take(2 * 17).copied().collect();
    assert!(matches!(
        Md3Model::from_parts(parts),
        Err(Md3Error::BeyondLimit {
            field: "numTags",
            value: 17,
            limit: 16,
            limit_name: "MD3_MAX_TAGS",
            ..
        })
    ));
}

#[test]
fn a_file_cut_anywhere_is_refused_as_cut() {
    let bytes = base();
    for n in 0..bytes.len() {
        let cut = match load(&bytes[..n]) {
            Err(Md3Error::TruncatedHeader { length }) => n < 108 && length == n,
            Err(Md3Error::Truncated { needed, length }) => {
                n >= 108 && length == n && needed == LENGTH as u64
            }
            _ => false,
        };
        assert!(cut, "the first {n} bytes");
    }
}

#[test]
fn wrong_idents_and_versions_are_refused() {
    let mut bytes = base();
    bytes[..4].copy_from_slice(b"IDP2");
    assert!(matches!(load(&bytes), Err(Md3Error::BadIdent { found }) if &found == b"IDP2"));
    assert!(matches!(
        load(&with(4, 16)),
        Err(Md3Error::UnsupportedVersion { found: 16 })
    ));
    let mut bytes = base();
    bytes[SURFACE_1..SURFACE_1 + 4].copy_from_slice(b"IDP4");
    assert!(matches!(
        load(&bytes),
        Err(Md3Error::BadSurfaceIdent {
            surface: 1,
            offset: 964,
            ..
        })
    ));
}

/// The error's kind and what it names, in a word or three.
fn named(error: &Md3Error) -> String {
    match error {
        Md3Error::InvalidField { field, .. } => format!("InvalidField {field}"),
        Md3Error::BeyondLimit {
            field, limit_name, ..
        } => format!("BeyondLimit {field} {limit_name}"),
        Md3Error::OutOfBounds { part, .. } => format!("OutOfBounds {part:?}"),
        Md3Error::Overlap { first, second, .. } => format!("Overlap {first:?} {second:?}"),
        Md3Error::BadSurfaceIdent { surface, .. } => format!("BadSurfaceIdent {surface}"),
        Md3Error::FrameCountMismatch {
            surface,
            found,
            expected,
        } => format!("FrameCountMismatch {surface} {found} {expected}"),
        Md3Error::Truncated { .. } => "Truncated".into(),
        other => format!("{other:?}"),
    }
}

#[test]
fn lying_counts_and_offsets_are_refused_naming_what_and_where() {
    let s0 = |field: usize| SURFACE_0 + field;
    let cases: &[(usize, &str, i32)] = &[
        (NUM_FRAMES, "InvalidField numFrames", 0),
        (NUM_FRAMES, "InvalidField numFrames", -1),
        (NUM_FRAMES, "BeyondLimit numFrames MD3_MAX_FRAMES", 1025),
        (NUM_FRAMES, "BeyondLimit numFrames MD3_MAX_FRAMES", i32::MAX),
        (NUM_FRAMES, "OutOfBounds Frames", 1000),
        (NUM_FRAMES, "FrameCountMismatch 0 2 3", 3),
        (NUM_TAGS, "InvalidField numTags", -1),
        (NUM_TAGS, "BeyondLimit numTags MD3_MAX_TAGS", 17),
        (NUM_TAGS, "OutOfBounds Tags", 16),
        (NUM_TAGS, "Overlap Tags Surface(0)", 3),
        (NUM_SURFACES, "InvalidField numSurfaces", -1),
        (NUM_SURFACES, "BeyondLimit numSurfaces MD3_MAX_SURFACES", 33),
        (NUM_SURFACES, "OutOfBounds Surface(2)", 3),
        (NUM_SKINS, "InvalidField numSkins", i32::MIN),
        (OFS_FRAMES, "OutOfBounds Frames", -1),
        (OFS_FRAMES, "OutOfBounds Frames", 0),
        (OFS_FRAMES, "OutOfBounds Frames", i32::MAX),
        (OFS_FRAMES, "OutOfBounds Frames", LENGTH as i32 - 100),
        (OFS_FRAMES, "Overlap Frames Tags", TAGS as i32),
        (OFS_TAGS, "OutOfBounds Tags", -5),
        (OFS_TAGS, "OutOfBounds Tags", 100),
        (OFS_TAGS, "OutOfBounds Tags", 2000),
        (OFS_SURFACES, "OutOfBounds Surface(0)", -1),
        (OFS_SURFACES, "OutOfBounds Surface(0)", LENGTH as i32),
        (OFS_SURFACES, "BadSurfaceIdent 0", SURFACE_0 as i32 + 4),
        (OFS_END, "InvalidField ofsEnd", -1),
        (OFS_END, "InvalidField ofsEnd", 107),
        (OFS_END, "Truncated", LENGTH as i32 + 1),
        (OFS_END, "Truncated", i32::MAX),
        // The model's end cuts the last surface: a surface past the end.
        (OFS_END, "OutOfBounds Surface(1)", 1000),
        (s0(S_NUM_FRAMES), "FrameCountMismatch 0 3 2", 3),
        (s0(S_NUM_SHADERS), "InvalidField surface 0's numShaders", -1),
        (
            s0(S_NUM_SHADERS),
            "BeyondLimit numShaders MD3_MAX_SHADERS",
            257,
        ),
        (s0(S_NUM_VERTS), "InvalidField surface 0's numVerts", -1),
        (s0(S_NUM_VERTS), "BeyondLimit numVerts MD3_MAX_VERTS", 4097),
        (s0(S_NUM_VERTS), "OutOfBounds Vertices(0)", 5),
        (
            s0(S_NUM_TRIANGLES),
            "InvalidField surface 0's numTriangles",
            -1,
        ),
        (
            s0(S_NUM_TRIANGLES),
            "BeyondLimit numTriangles MD3_MAX_TRIANGLES",
            8193,
        ),
        (s0(S_NUM_TRIANGLES), "Overlap Triangles(0) Shaders(0)", 3),
        (s0(S_OFS_TRIANGLES), "OutOfBounds Triangles(0)", -4),
        (s0(S_OFS_TRIANGLES), "OutOfBounds Triangles(0)", 0),
        (s0(S_OFS_SHADERS), "OutOfBounds Shaders(0)", 10_000),
        (s0(S_OFS_ST), "OutOfBounds TexCoords(0)", 290),
        (s0(S_OFS_XYZ), "OutOfBounds Vertices(0)", i32::MIN),
        (s0(S_OFS_END), "InvalidField surface 0's ofsEnd", 0),
        (s0(S_OFS_END), "InvalidField surface 0's ofsEnd", 107),
        (s0(S_OFS_END), "OutOfBounds Surface(0)", 1000),
        // A surface that ends before its tables do.
        (s0(S_OFS_END), "OutOfBounds TexCoords(0)", 200),
    ];
    for &(at, expected, value) in cases {
        let error = load(&with(at, value)).expect_err(expected);
        assert_eq!(named(&error), expected, "{at} = {value}: {error}");
    }
}

#[test]
fn triangles_naming_missing_vertices_are_refused_where_they_are() {
    // Surface 1's triangle: after its header, corner 1 is 4 bytes in.
    let corner = SURFACE_1 + 108 + 4;
    for index in [-1, 3, i32::MAX] {
        let error = load(&with(corner, index)).unwrap_err();
        assert!(
            matches!(error, Md3Error::IndexOutOfRange { surface: 1, triangle: 0, corner: 1, index: i, count: 3, offset: 1076 } if i == index),
            "{error}"
        );
    }
}

#[test]
fn names_with_no_end_and_numbers_that_are_not_are_refused_where_the_game_reads_them() {
    let filled = |at: usize, len: usize| {
        let mut bytes = base();
        bytes[at..at + len].fill(b'a');
        bytes
    };
    let refused = [
        (
            filled(SURFACE_0 + 4, 64),
            Md3Name::Surface(0),
            SURFACE_0 + 4,
        ),
        // Surface 1's second shader, after its triangle and first shader.
        (
            filled(SURFACE_1 + 120 + 68, 64),
            Md3Name::Shader {
                surface: 1,
                shader: 1,
            },
            SURFACE_1 + 188,
        ),
        (filled(TAGS + 3 * 112, 64), Md3Name::Tag(3), TAGS + 336),
    ];
    for (bytes, name, offset) in refused {
        let error = load(&bytes).unwrap_err();
        assert!(
            matches!(error, Md3Error::UnterminatedName { name: n, offset: o } if n == name && o == offset as u64),
            "{error}"
        );
    }
    // The game never reads the model's name or a frame's: they load, with
    // a warning, and write back.
    for (bytes, name) in [
        (filled(8, 64), Md3Name::Model),
        (filled(108 + 56 + 40, 16), Md3Name::Frame(1)),
    ] {
        let model = load(&bytes).expect("loads");
        assert_eq!(model.warnings(), [Md3Warning::UnterminatedName { name }]);
        assert!(model.to_bytes() == bytes);
    }
    let nan = f32::NAN.to_bits() as i32;
    let infinite = f32::INFINITY.to_bits() as i32;
    let cases = [
        (with(108 + 36, nan), Md3Part::Frames, 0, 108),
        (
            with(TAGS + 112 + 64 + 12, infinite),
            Md3Part::Tags,
            1,
            TAGS + 112,
        ),
        (
            with(SURFACE_0 + 200 + 16, nan),
            Md3Part::TexCoords(0),
            2,
            SURFACE_0 + 216,
        ),
    ];
    for (bytes, part, index, offset) in cases {
        let error = load(&bytes).unwrap_err();
        assert!(
            matches!(error, Md3Error::NonFinite { part: p, index: i, offset: o } if p == part && i == index && o == offset as u64),
            "{error}"
        );
    }
}

#[test]
fn other_layouts_load_and_write_back_as_they_were() {
    let built = common::tiny_md3();
    let same_parts = |model: &Md3Model| {
        assert_eq!(model.frames(), built.frames());
        assert_eq!(model.tags(), built.tags());
        for (a, b) in model.surfaces().iter().zip(built.surfaces()) {
            assert_eq!(a.shaders(), b.shaders());
            assert_eq!(a.triangles(), b.triangles());
            assert_eq!(a.tex_coords(), b.tex_coords());
            assert_eq!(a.vertices(), b.vertices());
        }
    };
    let loads_as = |bytes: &[u8], warnings: &[Md3Warning]| {
        let model = load(bytes).expect("loads");
        assert_eq!(model.warnings(), warnings);
        assert!(model.to_bytes() == bytes, "writes back byte for byte");
        model
    };

    // Bytes after the model's end.
    let mut bytes = base();
    bytes.extend_from_slice(b"junk");
    same_parts(&loads_as(
        &bytes,
        &[Md3Warning::TrailingBytes {
            end: LENGTH,
            length: LENGTH + 4,
        }],
    ));

    // Eight bytes between the frames and the tags: every later offset on.
    let mut bytes = base();
    bytes.splice(TAGS..TAGS, [7; 8]);
    for at in [OFS_TAGS, OFS_SURFACES, OFS_END] {
        let value = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        bytes[at..at + 4].copy_from_slice(&(value + 8).to_le_bytes());
    }
    let unread = [Md3Warning::UnreadBytes {
        offset: TAGS,
        length: 8,
    }];
    same_parts(&loads_as(&bytes, &unread));

    // q3data's order in surface 1: its two shaders before its triangle.
    let mut bytes = base();
    let tables = SURFACE_1 + 108;
    let (triangle, shaders) = (12, 2 * 68);
    bytes[tables..tables + triangle + shaders].rotate_left(triangle);
    let s1 = |field: usize| SURFACE_1 + field;
    bytes[s1(S_OFS_SHADERS)..s1(S_OFS_SHADERS) + 4].copy_from_slice(&108i32.to_le_bytes());
    let moved = (108 + shaders) as i32;
    bytes[s1(S_OFS_TRIANGLES)..s1(S_OFS_TRIANGLES) + 4].copy_from_slice(&moved.to_le_bytes());
    let model = loads_as(&bytes, &[]);
    same_parts(&model);
    let h = model.surfaces()[1].header();
    assert_eq!((h.ofs_shaders, h.ofs_triangles), (108, moved));

    // The header counts one surface: the second is bytes nothing reads.
    let model = loads_as(
        &with(NUM_SURFACES, 1),
        &[Md3Warning::UnreadBytes {
            offset: SURFACE_1,
            length: LENGTH - SURFACE_1,
        }],
    );
    assert_eq!(model.surfaces().len(), 1);
    // A count the game never reads is kept.
    assert_eq!(loads_as(&with(NUM_SKINS, 7), &[]).header().num_skins, 7);
}

#[test]
fn what_quake_iiis_renderer_would_not_draw_or_find_loads_with_warnings() {
    let mut parts = common::tiny_md3_parts();
    let template = parts.surfaces[0].vertices[0];
    parts.surfaces.push(Md3SurfaceParts {
        name: "big".into(),
        triangles: vec![[0, 1, 2]; 2000],
        tex_coords: vec![[0.0; 2]; 1000],
        vertices: vec![template; 2000],
        ..Md3SurfaceParts::default()
    });
    // Frame 1 names its tags the other way round.
    parts.tags.swap(2, 3);
    let model = Md3Model::from_parts(parts).expect("loads");
    let beyond = |field, value, limit| Md3Warning::BeyondRendererLimit {
        surface: 2,
        field,
        value,
        limit,
    };
    assert_eq!(
        model.warnings(),
        [
            beyond("numVerts", 1000, 1000),
            beyond("numTriangles", 2000, 2000),
            Md3Warning::TagNamesDiffer { frame: 1, tag: 0 },
        ]
    );
    // The game finds a tag by its name in each frame.
    assert_eq!(
        model.tag(1, "tag_head").map(|t| t.origin),
        Some([2.0, 2.0, 8.0])
    );
    assert!(Md3Model::from_bytes(&model.to_bytes()).unwrap() == model);
}

#[test]
fn the_fuzz_targets_checks_hold_on_thousands_of_seeded_mutations() {
    let shared = common::shared_md3_dir()
        .map(|dir| md2_wgpu::support::files_in(&dir, "md3").expect("the shared MD3s"))
        .unwrap_or_default();
    let seeds: Vec<(String, Vec<u8>)> = std::iter::once(("the tiny model".into(), base()))
        .chain(shared)
        .collect();
    // Every seed as it is, then mutated (a large one less, for time), its
    // 27 header words favoured.
    let mutants = |bytes: &[u8]| if bytes.len() > 100_000 { 12 } else { 600 };
    let check = md2_wgpu::support::check_md3_from_bytes;
    let run = (0x3d3, 27);
    let found = common::seeded_mutations(&seeds, run, mutants, "fuzz-finding.md3", load, check);
    assert!(found.0 > 0 && found.1 > 0, "both outcomes are exercised");
}

/// A shared player's three models (head, upper, lower), each checked to
/// load and write back byte for byte with no warning, and to have its
/// number of frames.
fn player(dir: &std::path::Path, frames: [usize; 3]) -> [Md3Model; 3] {
    let parts = ["head", "upper", "lower"];
    std::array::from_fn(|i| {
        let path = dir.join(format!("{}.md3", parts[i]));
        let bytes = std::fs::read(&path).expect("a shared MD3");
        let model = load(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(model.to_bytes() == bytes, "{} writes back", path.display());
        assert!(model.warnings().is_empty(), "{}", path.display());
        assert_eq!(model.frames().len(), frames[i], "{}", path.display());
        model
    })
}

#[test]
fn the_shared_players_load_write_back_and_agree_with_their_text_files() {
    // (player, head, upper and lower frames, the legs' offset, sex,
    // footsteps, head offset)
    let players = [
        (
            "major",
            [1, 174, 213],
            60,
            Gender::Female,
            Footsteps::Boot,
            [3.0, 0.0, 0.0],
        ),
        (
            "penguin",
            [200; 3],
            63,
            Gender::Male,
            Footsteps::Normal,
            [0.0; 3],
        ),
    ];
    let Some(dir) = common::shared_md3_dir() else {
        return;
    };
    for (name, frames, offset, gender, footsteps, head_offset) in players {
        let dir = dir.join(name);
        let [head, upper, lower] = player(&dir, frames);

        // The tags that join the three, in every frame.
        for f in 0..upper.frames().len() {
            assert!(upper.tag(f, "tag_head").is_some() && upper.tag(f, "tag_weapon").is_some());
        }
        assert!((0..lower.frames().len()).all(|f| lower.tag(f, "tag_torso").is_some()));
        assert!(head.tags().is_empty());

        let text = std::fs::read_to_string(dir.join("animation.cfg")).expect("animation.cfg");
        let config = AnimationConfig::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(config.warnings.is_empty(), "{name}: {:?}", config.warnings);
        assert_eq!(
            (config.gender, config.footsteps, config.head_offset),
            (gender, footsteps, head_offset)
        );
        assert_eq!(config.legs_first_frame_offset(), offset, "{name}");
        let walkcr = config.frames_in_model(PlayerAnimation::LegsWalkcr).unwrap();
        let gesture = config.entry(PlayerAnimation::TorsoGesture).first_frame;
        assert_eq!(
            walkcr.start, gesture,
            "{name}: the legs start where the torso's did"
        );
        // Every animation plays frames its model has: the torso's and the
        // deaths on upper.md3, the legs' (offset) and the deaths on
        // lower.md3.
        for animation in PlayerAnimation::ALL {
            let frames = config.frames_in_model(animation).expect("in range");
            let on_upper = !animation.is_legs();
            let on_lower = !animation.is_torso();
            for (plays, model) in [(on_upper, &upper), (on_lower, &lower)] {
                assert!(
                    !plays || frames.end as usize <= model.frames().len(),
                    "{name}: {} plays {frames:?}",
                    animation.name()
                );
            }
        }

        // Each skin names a texture for every surface of its model, which
        // is there under its name or Quake III's other extension.
        for (part, model) in [("head", &head), ("upper", &upper), ("lower", &lower)] {
            let path = dir.join(format!("{part}_default.skin"));
            let text = std::fs::read_to_string(&path).expect("a .skin");
            let skin = Md3Skin::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for surface in model.surfaces() {
                let texture = skin
                    .texture_for(&surface.name_for_skins())
                    .unwrap_or_else(|| panic!("{}: no {}", path.display(), surface.name()));
                let found = texture_candidates(texture).iter().any(|candidate| {
                    let file = candidate.rsplit('/').next().unwrap_or(candidate);
                    dir.join(file).is_file()
                });
                assert!(found, "{}: {texture} is not beside it", path.display());
            }
        }
    }
}
