//! Quake III's MD3, CPU only. A tiny model built in code writes and reads
//! back byte for byte; hostile files (cut anywhere, lying counts and
//! offsets, parts outside their bounds or over each other, indices out of
//! range, names with no end, NaNs) each give the expected typed error,
//! never a panic or an allocation out of proportion to the file; layouts
//! other than the built one load and write back as they were; the fuzz
//! target's checks (`support::check_md3_from_bytes`) hold on thousands of
//! seeded mutations; and the shared OpenArena players load, write back
//! byte for byte, and agree with their `animation.cfg` and `.skin` files.
//! Tags lerp as Quake III's `R_LerpTag` lerps them; a player (three
//! models, its clips, a skin set, a weapon) loads as one, through the
//! sans-I/O loader or from a folder, and its parts stand where the tags
//! put them (exactly, for a tiny player built in code); a player missing
//! a file or a tag is refused naming it (a texture is not: the game has a default).

use md2_wgpu_tests as common;

use glam::{Mat4, Vec3};
use md2_wgpu::anim::FrameLerp;
use md2_wgpu::format::md3::{
    AnimationConfig, Footsteps, Gender, Md3Error, Md3Model, Md3Name, Md3Part, Md3Parts, Md3Player,
    Md3PlayerError, Md3PlayerLoader, Md3Skin, Md3SurfaceParts, Md3Tag, Md3TagError, Md3Warning,
    PlayerAnimation, PlayerPart, PlayerTagError, texture_candidates,
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

/// `tag` with each axis scaled to unit length (zero left as it is): what
/// Quake III's `R_LerpTag` makes of a stored tag at either end of a lerp.
fn normalised(tag: &Md3Tag) -> [[f32; 3]; 3] {
    tag.axis.map(|a| {
        let length = Vec3::from_array(a).length();
        if length == 0.0 {
            a
        } else {
            a.map(|c| c / length)
        }
    })
}

fn close_axes(a: [[f32; 3]; 3], b: [[f32; 3]; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| close(*x, y))
}

/// Each part's tags, checked at the ends and the middle of lerps between
/// frames `0..frames` apart: the stored tag at t = 0 and t = 1 (its axes
/// normalised, as the game's are), unit axes and the midpoint between.
fn tags_lerp_as_the_game_lerps_them(model: &Md3Model, name: &str) {
    let frames = model.frames().len() as u32;
    let step = (frames / 7).max(1);
    for a in (0..frames).step_by(step as usize) {
        let b = (a + step) % frames;
        let stored = |f: u32| *model.tag(f as usize, name).expect("the tag");
        let at = |t: f32| {
            let lerp = FrameLerp {
                frame_a: a,
                frame_b: b,
                t,
            };
            model.tag_at(lerp, name).expect("a lerped tag")
        };
        for (t, end) in [(0.0, stored(a)), (1.0, stored(b))] {
            let tag = at(t);
            assert_eq!(tag.origin, end.origin, "{name} {a}..{b} at {t}");
            assert!(close_axes(tag.axis, normalised(&end)), "{name} {a}..{b}");
        }
        let half = at(0.5);
        let middle = std::array::from_fn(|k| (stored(a).origin[k] + stored(b).origin[k]) / 2.0);
        assert!(close(half.origin, middle), "{name} {a}..{b}: {half:?}");
        for axis in half.axis {
            let length = Vec3::from_array(axis).length();
            assert!((length - 1.0).abs() < 1e-5, "{name} {a}..{b}: {axis:?}");
        }
    }
}

#[test]
fn tags_lerp_as_r_lerptag_does() {
    // The tiny player's legs turn a quarter and rise two units from frame
    // 0 to frame 1: halfway, the torso's tag is an eighth turned (its
    // axes normalised, as Quake III's are) and a unit up.
    let player = common::tiny_player();
    let lower = player.part(PlayerPart::Lower);
    tags_lerp_as_the_game_lerps_them(lower, "tag_torso");
    let half = FrameLerp {
        frame_a: 0,
        frame_b: 1,
        t: 0.5,
    };
    let tag = lower.tag_at(half, "tag_torso").unwrap();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert_eq!(tag.origin, [0.0, 0.0, 11.0]);
    assert!(close_axes(
        tag.axis,
        [[h, h, 0.0], [-h, h, 0.0], [0.0, 0.0, 1.0]]
    ));
    // t is read as a pose's: clamped, NaN as 0.
    let at = |t| lower.tag_at(FrameLerp { t, ..half }, "tag_torso").unwrap();
    assert_eq!((at(-3.0), at(f32::NAN)), (at(0.0), at(0.0)));
    assert_eq!(at(7.0), at(1.0));
    assert_eq!(
        lower.tag_at(FrameLerp::still(2), "tag_torso"),
        Err(Md3TagError::NoSuchFrame {
            frame: 2,
            frames: 2
        })
    );
    assert_eq!(
        lower.tag_at(half, "tag_head"),
        Err(Md3TagError::NoSuchTag {
            tag: "tag_head".into(),
            frame: 0
        })
    );

    let Some(dir) = common::shared_md3_dir() else {
        return;
    };
    for name in ["major", "penguin"] {
        let player = Md3Player::open(dir.join(name), "default").expect("a shared player");
        tags_lerp_as_the_game_lerps_them(player.part(PlayerPart::Lower), "tag_torso");
        for tag in ["tag_head", "tag_weapon"] {
            // The penguin's tag_weapon axes are about 1.4 long: Quake III
            // scales them back to 1, and so does tag_at.
            tags_lerp_as_the_game_lerps_them(player.part(PlayerPart::Upper), tag);
        }
    }
}

#[test]
fn a_tiny_player_built_in_code_is_posed_where_the_math_says() {
    let player = common::tiny_player();
    assert_eq!(player.skin_name(), "default");
    assert!(player.weapon().is_none());
    let weapon = common::tiny_md3();
    let player = player.with_weapon(weapon.clone());
    assert_eq!(player.weapon(), Some(&weapon));

    let at = |m: Mat4, p: [f32; 3]| m.transform_point3(Vec3::from_array(p)).to_array();
    let parts = player
        .parts_at(FrameLerp::still(0), FrameLerp::still(0))
        .unwrap();
    assert_eq!(parts.lower, Mat4::IDENTITY);
    // The torso stands on tag_torso: (0, 0, 10), a quarter turned about Z.
    assert_eq!(at(parts.upper, [1.0, 0.0, 0.0]), [0.0, 1.0, 10.0]);
    // The head's (1, 0, 0) is (2, 0, 5) on the torso, turned a quarter and
    // lifted ten.
    assert_eq!(at(parts.head, [1.0, 0.0, 0.0]), [0.0, 2.0, 15.0]);
    // The weapon's (1, 0, 0) is (3, -1, 4) on the torso; turned twice it
    // points backwards.
    assert_eq!(at(parts.weapon, [1.0, 0.0, 0.0]), [1.0, 3.0, 14.0]);
    assert_eq!(parts.weapon.x_axis.truncate().to_array(), [-1.0, 0.0, 0.0]);
    // Each is the parent times the tag's matrix (CG_PositionEntityOnTag).
    let tag_head = *player.part(PlayerPart::Upper).tag(0, "tag_head").unwrap();
    assert_eq!(parts.head, tag_head.attach(parts.upper));
    assert_eq!(parts.head, parts.upper * tag_head.matrix());
    // A turned head (CG_PositionRotatedEntityOnTag): its forward turns
    // about its own origin.
    let quarter = glam::Mat3::from_cols_array_2d(&common::QUARTER_TURN);
    let turned = tag_head.attach_rotated(parts.upper, quarter);
    assert_eq!(at(turned, [1.0, 0.0, 0.0]), [-1.0, 1.0, 15.0]);

    // The legs' pose moves what stands on them: frame 1 lifts the torso
    // to 12 and turns it back.
    let lifted = player
        .parts_at(FrameLerp::still(1), FrameLerp::still(0))
        .unwrap();
    assert_eq!(at(lifted.head, [1.0, 0.0, 0.0]), [2.0, 0.0, 17.0]);

    // Each surface's texture, by the skin, and the files Quake III tries.
    let head = player.textures(PlayerPart::Head);
    assert_eq!(head.len(), 1);
    assert_eq!(
        (head[0].surface.as_str(), head[0].texture.as_deref()),
        ("h_head_1", Some("models/players/tiny/head.jpg"))
    );
    assert_eq!(
        head[0].candidates,
        [
            "models/players/tiny/head.jpg",
            "models/players/tiny/head.tga"
        ]
    );
    assert_eq!(
        player.textures(PlayerPart::Upper)[0].candidates,
        [
            "models/players/tiny/torso.tga",
            "models/players/tiny/torso.jpg"
        ]
    );
}

#[test]
fn a_player_missing_a_file_or_a_tag_is_refused_naming_it() {
    let dir = std::path::Path::new(common::TINY_PLAYER_DIR);
    let files = common::tiny_player_files();
    let with = |name: &str, bytes: Option<&[u8]>| {
        let mut files: Vec<(String, Vec<u8>)> =
            files.iter().filter(|(n, _)| n != name).cloned().collect();
        if let Some(bytes) = bytes {
            files.push((name.to_owned(), bytes.to_vec()));
        }
        common::load_player(&files).expect_err(name)
    };
    for name in [
        "lower.md3",
        "upper.md3",
        "head.md3",
        "animation.cfg",
        "head_default.skin",
    ] {
        let error = with(name, None);
        assert!(
            matches!(&error, Md3PlayerError::Missing { file } if *file == dir.join(name)),
            "{error}"
        );
        assert_eq!(error.file(), Some(dir.join(name).as_path()));
    }
    let cut = &files[1].1[..200];
    let error = with("upper.md3", Some(cut));
    assert!(
        matches!(&error, Md3PlayerError::Model { file, error: Md3Error::Truncated { .. } } if file.ends_with("upper.md3")),
        "{error}"
    );
    let error = with("animation.cfg", Some(b"sex m\n0 1 0 10\n"));
    assert!(
        matches!(&error, Md3PlayerError::AnimationConfig { error, .. } if error.line() == Some(2)),
        "{error}"
    );
    let error = with("upper_default.skin", Some(b"u_torso\n"));
    assert!(
        matches!(&error, Md3PlayerError::Skin { file, .. } if file.ends_with("upper_default.skin")),
        "{error}"
    );
    let error = with("lower_default.skin", Some(b"l_legs,\xff.tga\n"));
    assert!(matches!(&error, Md3PlayerError::NotText { .. }), "{error}");
    // A skin naming no surface of its model, or giving one no texture,
    // loads: Quake III draws such a surface with its default shader
    // (OpenArena's tony and beret have both), so it has no texture.
    for skin in [&b"tag_torso\nl_other,x.tga\n"[..], b"tag_torso\nl_legs,\n"] {
        let mut files = files.clone();
        files.retain(|(n, _)| n != "lower_default.skin");
        files.push(("lower_default.skin".to_owned(), skin.to_vec()));
        let player = common::load_player(&files).expect("a skin without a texture loads");
        let lower = player.textures(PlayerPart::Lower);
        assert_eq!(lower.len(), 1);
        assert_eq!(
            (lower[0].surface.as_str(), lower[0].texture.as_deref()),
            ("l_legs", None)
        );
        assert!(lower[0].candidates.is_empty());
    }

    // The first failure ends the questions; a skin name that would leave
    // the folder asks none.
    let mut loader = Md3PlayerLoader::new(dir, "default");
    let first = loader.wanted().expect("a question");
    loader.read(&first, None);
    assert_eq!(loader.wanted(), None);
    for bad in ["", "../red", "a/b", "a\\b"] {
        let loader = Md3PlayerLoader::new(dir, bad);
        assert_eq!(loader.wanted(), None);
        assert!(
            matches!(loader.finish(), Err(Md3PlayerError::BadSkinName { skin }) if skin == bad)
        );
    }
    // A loader finished early names the first file it still wanted.
    let error = Md3PlayerLoader::new(dir, "blue").finish().unwrap_err();
    assert_eq!(error.file(), Some(dir.join("lower.md3").as_path()));
    let error = Md3Player::open("/nonexistent/player", "default").unwrap_err();
    assert!(matches!(error, Md3PlayerError::Missing { .. }), "{error}");

    // A part missing a tag, or posed past its frames: the part is named.
    let mut files = common::tiny_player_files();
    let upper = common::tiny_part(
        "u_torso",
        vec![Md3Tag::new("tag_head", [0.0; 3], common::STRAIGHT); 2],
    );
    files[1].1 = upper.to_bytes();
    let player = common::load_player(&files).expect("loads: tags are asked for when posed");
    let error = player
        .parts_at(FrameLerp::still(0), FrameLerp::still(1))
        .unwrap_err();
    assert_eq!(
        error,
        PlayerTagError {
            part: PlayerPart::Upper,
            error: Md3TagError::NoSuchTag {
                tag: "tag_weapon".into(),
                frame: 1
            }
        }
    );
    assert_eq!(
        error.to_string(),
        "upper.md3: frame 1 has no tag named \"tag_weapon\""
    );
    let error = common::tiny_player()
        .parts_at(FrameLerp::still(5), FrameLerp::still(0))
        .unwrap_err();
    assert_eq!(
        (error.part, error.error),
        (
            PlayerPart::Lower,
            Md3TagError::NoSuchFrame {
                frame: 5,
                frames: 2
            }
        )
    );
}

/// A crossfading pose (which Quake III has no word for) places a part on
/// its primary lerp's tag lerped towards the secondary's by the weight:
/// `Md3Tag::lerp` again, so the tag moves as the blended vertices do; a
/// weight of 0 (or NaN) is the primary's tag as it is, and every frame the
/// pose names is checked.
#[test]
fn a_crossfading_pose_blends_its_two_tags_as_a_lerp_does() {
    use md2_wgpu::anim::Pose;
    let player = common::tiny_player();
    let legs = player.part(PlayerPart::Lower);
    let half = FrameLerp {
        frame_a: 0,
        frame_b: 1,
        t: 0.5,
    };
    let pose = Pose {
        primary: FrameLerp::still(0),
        secondary: half,
        weight: 0.25,
    };
    let primary = legs.tag_at(FrameLerp::still(0), "tag_torso").unwrap();
    let secondary = legs.tag_at(half, "tag_torso").unwrap();
    let blended = legs.tag_at(pose, "tag_torso").unwrap();
    assert_eq!(blended, primary.lerp(&secondary, 0.25));
    // Frame 0's tag is turned a quarter, frame 1's straight: the blend is
    // neither.
    assert_ne!(blended.axis, primary.axis);
    assert_ne!(blended.axis, secondary.axis);
    for weight in [0.0, f32::NAN] {
        let still = Pose { weight, ..pose };
        assert_eq!(legs.tag_at(still, "tag_torso").unwrap(), primary);
    }
    let far = Pose {
        secondary: FrameLerp::still(7),
        ..pose
    };
    assert_eq!(
        legs.tag_at(far, "tag_torso"),
        Err(Md3TagError::NoSuchFrame {
            frame: 7,
            frames: 2
        })
    );
    // The player's parts follow: the torso sits on the blended tag.
    let at = player.parts_at(pose, FrameLerp::still(0)).unwrap();
    assert_eq!(at.upper, blended.matrix());
}

#[test]
fn the_shared_players_load_as_one_and_stand_as_the_game_stands_them() {
    let Some(dir) = common::shared_md3_dir() else {
        return;
    };
    // (player, LEGS_WALK's clip: first, last, looping)
    for (name, walk) in [("major", (124, 133, true)), ("penguin", (98, 109, true))] {
        let dir = dir.join(name);
        let player = Md3Player::open(&dir, "default").unwrap_or_else(|e| panic!("{e}"));
        let config = player.animations();
        let frames = |part| player.part(part).frames().len() as u32;
        let offset = config.legs_first_frame_offset();

        // Every clip by name plays the frames the cfg gives it, in the
        // model it plays on.
        for animation in PlayerAnimation::ALL {
            let clip = config.clip(animation).expect("a clip");
            let entry = config.entry(animation);
            assert_eq!(&*clip.name, animation.name());
            assert_eq!(u64::from(entry.num_frames.max(1)), clip.len(), "{name}");
            let first = i64::from(entry.first_frame) - if animation.is_legs() { offset } else { 0 };
            assert_eq!(i64::from(clip.first), first, "{name} {}", animation.name());
            assert_eq!(clip.fps, 1000.0 / entry.frame_milliseconds() as f32);
            let looping = entry.looping_frames > 0 && entry.looping_frames == entry.num_frames;
            assert_eq!(clip.looping, looping, "{name} {}", animation.name());
            let on = [
                (!animation.is_legs(), PlayerPart::Upper),
                (!animation.is_torso(), PlayerPart::Lower),
            ];
            for (plays, part) in on {
                assert!(
                    !plays || clip.last < frames(part),
                    "{name} {}",
                    animation.name()
                );
            }
        }
        let clip = config.clip(PlayerAnimation::LegsWalk).unwrap();
        assert_eq!((clip.first, clip.last, clip.looping), walk, "{name}");

        // Standing (LEGS_IDLE, TORSO_STAND), the head sits above the legs'
        // origin and the torso's, and the hand within the torso's bounds.
        let legs = config.clip(PlayerAnimation::LegsIdle).unwrap();
        let torso = config.clip(PlayerAnimation::TorsoStand).unwrap();
        for time in [0.0, 0.3, 1.7] {
            let parts = player
                .parts_at(legs.sample(time), torso.sample(time))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let origin = |m: Mat4| m.w_axis.truncate();
            let (upper, head, hand) = (
                origin(parts.upper),
                origin(parts.head),
                origin(parts.weapon),
            );
            assert!(head.z > upper.z && upper.z > 0.0, "{name}: {upper} {head}");
            let frame = torso.sample(time).frame_a as usize;
            let radius = player.part(PlayerPart::Upper).frames()[frame].radius;
            assert!(
                hand.distance(upper) < radius,
                "{name}: {hand} {upper} {radius}"
            );
        }

        // The penguin's head names skin.jpg, which is not there; the
        // other name Quake III tries, skin.tga, is.
        for part in PlayerPart::ALL {
            for texture in player.textures(part) {
                let there: Vec<bool> = texture
                    .candidates
                    .iter()
                    .map(|c| dir.join(c.rsplit('/').next().unwrap_or(c)).is_file())
                    .collect();
                assert!(there.contains(&true), "{name}: {texture:?}");
                if texture
                    .texture
                    .as_deref()
                    .is_some_and(|t| t.ends_with("skin.jpg"))
                {
                    assert_eq!(there, [false, true]);
                    assert!(texture.candidates[1].ends_with("/skin.tga"));
                }
            }
        }

        // The skin set by name: the shared players have only `default`.
        let error = Md3Player::open(&dir, "red").unwrap_err();
        assert!(
            error.file().is_some_and(|f| f.ends_with("lower_red.skin")),
            "{error}"
        );
    }
}
