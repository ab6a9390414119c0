//! Hostile input, generated here: truncations, lying headers, broken
//! sections. Each gives the expected typed error or loads with the expected
//! warning; none panics, and none makes the loader allocate more than the
//! file's length justifies.

use md2_wgpu_tests as common;

use common::{Mesh, Tolerance, assert_glcmds_cover};
use md2_wgpu::{
    Md2Model,
    format::{Md2Error, Md2Parts, Md2Warning, Section, SkinName, TexCoord, Triangle},
    model::{Frame, PackedVertex},
};

#[global_allocator]
static ALLOCATOR: common::Tracking = common::Tracking;

/// `from_bytes`, asserting that no single allocation is out of proportion to
/// the file: every record the loader keeps is no larger than its bytes in the
/// file, and glcmd generation's tables are a small multiple of the triangles.
fn load(bytes: &[u8]) -> Result<Md2Model, Md2Error> {
    common::load_bounded(bytes, Md2Model::from_bytes)
}

/// The small file every test mutates: a box with seams, two frames, one
/// skin name.
fn base() -> (Md2Model, Vec<u8>) {
    let model = common::seamed_box(2).model();
    let bytes = model.to_bytes();
    (model, bytes)
}

/// A model like the base but with no skin names.
fn base_without_skins() -> (Md2Model, Vec<u8>) {
    let mut parts = common::seamed_box(2).parts();
    parts.skins.clear();
    let model = Md2Model::from_parts(parts).unwrap();
    let bytes = model.to_bytes();
    (model, bytes)
}

fn get(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn set(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// ofs_end = the file's length.
fn set_end(b: &mut [u8]) {
    let len = b.len() as i32;
    set(b, 64, len);
}

fn set_f32(b: &mut [u8], at: usize, v: f32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

const FIELDS: [&str; 17] = [
    "ident",
    "version",
    "skinwidth",
    "skinheight",
    "framesize",
    "num_skins",
    "num_xyz",
    "num_st",
    "num_tris",
    "num_glcmds",
    "num_frames",
    "ofs_skins",
    "ofs_st",
    "ofs_tris",
    "ofs_frames",
    "ofs_glcmds",
    "ofs_end",
];

fn field_index(name: &str) -> usize {
    FIELDS.iter().position(|&f| f == name).unwrap()
}

/// Header field `name` of a file, read from its bytes.
fn hdr(b: &[u8], name: &str) -> usize {
    get(b, 4 * field_index(name)) as usize
}

fn warning_names(model: &Md2Model) -> Vec<String> {
    model
        .warnings()
        .iter()
        .map(|w| {
            let d = format!("{w:?}");
            d.split([' ', '{', '(']).next().unwrap().to_string()
        })
        .collect()
}

/// Asserts that a model loaded from a damaged file still has the base's
/// mesh and frames.
fn assert_same_mesh(model: &Md2Model, base: &Md2Model) {
    assert_eq!(model.skins(), base.skins());
    assert_eq!(model.tex_coords(), base.tex_coords());
    assert_eq!(model.triangles(), base.triangles());
    assert_eq!(model.keyframes().frames(), base.keyframes().frames());
    assert_eq!(model.keyframes().vertices(), base.keyframes().vertices());
}

#[test]
fn truncation_at_every_length_is_a_typed_error() {
    let (_, bytes) = base();
    assert!(load(&bytes).is_ok());
    for len in 0..bytes.len() {
        let cut = &bytes[..len];
        match load(cut) {
            Err(Md2Error::TruncatedHeader { length }) if len < 68 => assert_eq!(length, len),
            Err(Md2Error::BadEnd {
                ofs_end, length, ..
            }) if len >= 68 => {
                assert_eq!(ofs_end, bytes.len() as i64);
                assert_eq!(length, len);
            }
            other => panic!("cut to {len} bytes: {other:?}"),
        }
    }
}

#[test]
fn truncation_with_a_consistent_ofs_end_names_the_section_cut() {
    // A truncated file whose ofs_end was fixed up to match: the first
    // section that no longer fits is named.
    let (_, bytes) = base();
    let starts = [
        ("ofs_skins", Section::Skins),
        ("ofs_st", Section::TexCoords),
        ("ofs_tris", Section::Triangles),
        ("ofs_frames", Section::Frames),
        ("ofs_glcmds", Section::GlCmds),
    ];
    for len in 68..bytes.len() {
        let mut cut = bytes[..len].to_vec();
        set(&mut cut, 64, len as i32);
        // The first section that ends past the cut.
        let ends = [
            hdr(&bytes, "ofs_st"),
            hdr(&bytes, "ofs_tris"),
            hdr(&bytes, "ofs_frames"),
            hdr(&bytes, "ofs_glcmds"),
            bytes.len(),
        ];
        let k = ends.iter().position(|&e| e > len).unwrap();
        match load(&cut) {
            Err(Md2Error::SectionOutOfBounds {
                section,
                offset,
                end,
                allowed,
            }) => {
                assert_eq!(section, starts[k].1, "cut to {len}");
                assert_eq!(offset, hdr(&bytes, starts[k].0) as i64, "cut to {len}");
                assert_eq!(end, ends[k] as i64, "cut to {len}");
                assert_eq!(allowed, (68, len), "cut to {len}");
            }
            other => panic!("cut to {len}: {other:?}"),
        }
    }
}

/// What a header field set to a value should do.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// Loads, with exactly these warnings (by variant name).
    Loads(&'static [&'static str]),
    BadIdent,
    Version,
    /// InvalidField naming this field.
    Invalid(&'static str),
    OutOfBounds(Section),
    BadEnd,
}

fn check(bytes: &[u8], want: Want, what: &str) {
    let len = bytes.len();
    match (load(bytes), want) {
        (Ok(model), Want::Loads(warnings)) => {
            assert_eq!(warning_names(&model), warnings, "{what}");
            // Whatever loads writes back as a file that loads.
            let again = Md2Model::from_bytes(&model.to_bytes()).unwrap();
            assert_eq!(again.triangles(), model.triangles(), "{what}");
        }
        (Err(Md2Error::BadIdent { found }), Want::BadIdent) => {
            assert_eq!(found, bytes[..4], "{what}")
        }
        (Err(Md2Error::UnsupportedVersion { found }), Want::Version) => {
            assert_eq!(found, get(bytes, 4), "{what}")
        }
        (
            Err(Md2Error::InvalidField {
                field,
                value,
                length,
                ..
            }),
            Want::Invalid(name),
        ) => {
            assert_eq!(field, name, "{what}");
            assert_eq!(value, get(bytes, 4 * field_index(name)) as i64, "{what}");
            assert_eq!(length, len, "{what}");
        }
        (Err(Md2Error::SectionOutOfBounds { section, .. }), Want::OutOfBounds(s)) => {
            assert_eq!(section, s, "{what}")
        }
        (
            Err(Md2Error::BadEnd {
                ofs_end, length, ..
            }),
            Want::BadEnd,
        ) => {
            assert_eq!(ofs_end, get(bytes, 64) as i64, "{what}");
            assert_eq!(length, len, "{what}");
        }
        (got, want) => panic!("{what}: expected {want:?}, got {got:?}"),
    }
}

#[test]
fn each_header_field_set_to_hostile_values() {
    use Want::*;
    let (_, bytes) = base();
    let len = bytes.len() as i32;
    // Columns: 0, -1, i32::MAX, the file's length, length + 1, length + 1000.
    let values = [0, -1, i32::MAX, len, len + 1, len + 1000];
    // What 0 and -1 do, then what every large value does.
    let row =
        |zero: Want, negative: Want, large: Want| [zero, negative, large, large, large, large];
    // A count that may not be 0 or -1.
    let count = |name: &'static str, large: Want| (name, row(Invalid(name), Invalid(name), large));
    // A count whose 0 loads, with `warnings`.
    let may_be_zero = |name: &'static str, warnings: &'static [&'static str], large: Want| {
        (name, row(Loads(warnings), Invalid(name), large))
    };
    // Any side up to 32768 texels loads: the glcmds' s and t are not
    // checked against it, only the header's own range.
    let side = |name: &'static str| {
        let (invalid, loads) = (Invalid(name), Loads(&[]));
        (name, [invalid, invalid, invalid, loads, loads, loads])
    };
    let table: [(&str, [Want; 6]); 17] = [
        ("ident", [BadIdent; 6]),
        ("version", [Version; 6]),
        side("skinwidth"),
        side("skinheight"),
        // Larger than a frame needs passes the size check, then the frames
        // no longer fit in the file.
        count("framesize", OutOfBounds(Section::Frames)),
        // No skins: the skin bytes lie unclaimed, a layout a rewrite changes.
        may_be_zero(
            "num_skins",
            &["NonCanonicalLayout"],
            OutOfBounds(Section::Skins),
        ),
        // More vertices make the frames too small for them.
        count("num_xyz", Invalid("framesize")),
        count("num_st", OutOfBounds(Section::TexCoords)),
        count("num_tris", OutOfBounds(Section::Triangles)),
        may_be_zero(
            "num_glcmds",
            &["GlCmdsMissing"],
            OutOfBounds(Section::GlCmds),
        ),
        count("num_frames", OutOfBounds(Section::Frames)),
        // Offsets: 0 overlaps the header, -1 is before the file, the rest
        // run past its end.
        ("ofs_skins", [OutOfBounds(Section::Skins); 6]),
        ("ofs_st", [OutOfBounds(Section::TexCoords); 6]),
        ("ofs_tris", [OutOfBounds(Section::Triangles); 6]),
        ("ofs_frames", [OutOfBounds(Section::Frames); 6]),
        ("ofs_glcmds", [OutOfBounds(Section::GlCmds); 6]),
        // ofs_end 0 leaves no room for any section; the file's own length is
        // the base file, unchanged.
        (
            "ofs_end",
            [
                OutOfBounds(Section::Skins),
                BadEnd,
                BadEnd,
                Loads(&[]),
                BadEnd,
                BadEnd,
            ],
        ),
    ];
    for (i, (name, wants)) in table.iter().enumerate() {
        assert_eq!(*name, FIELDS[i]);
        for (&value, &want) in values.iter().zip(wants) {
            let mut b = bytes.clone();
            set(&mut b, 4 * i, value);
            check(&b, want, &format!("{name} = {value}"));
        }
    }
}

#[test]
fn offsets_of_empty_sections_are_harmless_where_inside_the_file() {
    use Want::*;
    let (_, bytes) = base_without_skins();
    let len = bytes.len() as i32;
    let at = 4 * field_index("ofs_skins");
    assert_eq!(get(&bytes, at), get(&bytes, 4 * field_index("ofs_st")));
    // With no skins, ofs_skins places nothing; a value other than the
    // usual one loads, noting that a rewrite changes it. Outside the file
    // it is still refused.
    for (value, want) in [
        (0, Loads(&["NonCanonicalLayout"])),
        (68, Loads(&[])),
        (-1, OutOfBounds(Section::Skins)),
        (i32::MAX, OutOfBounds(Section::Skins)),
        (len, Loads(&["NonCanonicalLayout"])),
        (len + 1, OutOfBounds(Section::Skins)),
        (len + 1000, OutOfBounds(Section::Skins)),
    ] {
        let mut b = bytes.clone();
        set(&mut b, at, value);
        check(&b, want, &format!("ofs_skins = {value} without skins"));
    }
}

#[test]
fn out_of_range_triangle_indices_name_the_triangle_corner_and_offset() {
    let (model, bytes) = base();
    let ofs_tris = hdr(&bytes, "ofs_tris");
    let num_xyz = model.keyframes().vertex_count();
    let num_st = model.tex_coords().len();
    for (tri, corner) in [(0, 0), (5, 1), (11, 2)] {
        for (field, count, index, at) in [
            (
                "index_xyz",
                num_xyz,
                num_xyz as u16,
                ofs_tris + 12 * tri + 2 * corner,
            ),
            (
                "index_xyz",
                num_xyz,
                u16::MAX,
                ofs_tris + 12 * tri + 2 * corner,
            ),
            (
                "index_st",
                num_st,
                num_st as u16,
                ofs_tris + 12 * tri + 6 + 2 * corner,
            ),
            (
                "index_st",
                num_st,
                40000,
                ofs_tris + 12 * tri + 6 + 2 * corner,
            ),
        ] {
            let mut b = bytes.clone();
            b[at..at + 2].copy_from_slice(&index.to_le_bytes());
            match load(&b) {
                Err(Md2Error::IndexOutOfRange {
                    triangle,
                    field: f,
                    corner: c,
                    index: i,
                    count: n,
                    offset,
                }) => {
                    assert_eq!(
                        (triangle, f, c, i, n, offset),
                        (tri, field, corner, index as u32, count, at)
                    );
                }
                other => panic!("triangle {tri} {field}[{corner}] = {index}: {other:?}"),
            }
        }
    }
}

/// The base file with its glcmd block replaced by `words` (laid out anew, so
/// only the block itself is broken).
fn with_glcmds(words: &[i32]) -> Vec<u8> {
    let (_, bytes) = base();
    let ofs = hdr(&bytes, "ofs_glcmds");
    let mut b = bytes[..ofs].to_vec();
    for w in words {
        b.extend_from_slice(&w.to_le_bytes());
    }
    set(&mut b, 4 * field_index("num_glcmds"), words.len() as i32);
    set_end(&mut b);
    b
}

/// The base's glcmd words.
fn base_glcmd_words() -> Vec<i32> {
    let (_, bytes) = base();
    let ofs = hdr(&bytes, "ofs_glcmds");
    (0..hdr(&bytes, "num_glcmds"))
        .map(|i| get(&bytes, ofs + 4 * i))
        .collect()
}

#[test]
fn broken_glcmds_are_dropped_with_a_warning_and_the_triangles_kept() {
    let (base_model, bytes) = base();
    let ofs = hdr(&bytes, "ofs_glcmds");
    let good = base_glcmd_words();
    let nan = f32::NAN.to_bits() as i32;
    let inf = f32::INFINITY.to_bits() as i32;
    // The first command: its count, then (s, t, xyz) per vertex.
    assert!(good[0].unsigned_abs() >= 3);
    let n = good.len();

    let mut cases: Vec<(&str, Vec<i32>, usize, &str)> = Vec::new();
    let mut w = good.clone();
    w[3] = 8; // the first vertex's xyz: one past the last vertex
    cases.push(("index = num_xyz", w, ofs + 12, "vertex index 8"));
    let mut w = good.clone();
    w[3] = -1;
    cases.push(("negative index", w, ofs + 12, "vertex index -1"));
    let mut w = good.clone();
    w[3] = i32::MIN;
    cases.push(("index i32::MIN", w, ofs + 12, "vertex index"));
    let mut w = good.clone();
    w[1] = nan;
    cases.push(("NaN s", w, ofs + 4, "not finite"));
    let mut w = good.clone();
    w[2] = inf;
    cases.push(("infinite t", w, ofs + 4, "not finite"));
    let mut w = good.clone();
    w[0] = (n / 3) as i32 + 1;
    cases.push(("count past the block", w, ofs, "runs past"));
    let mut w = good.clone();
    w[0] = -((n / 3) as i32 + 1);
    cases.push(("fan count past the block", w, ofs, "runs past"));
    let mut w = good.clone();
    w[0] = i32::MAX;
    cases.push(("count i32::MAX", w, ofs, "runs past"));
    let mut w = good.clone();
    w[0] = i32::MIN;
    cases.push(("count i32::MIN", w, ofs, "runs past"));
    let mut w = good.clone();
    w[0] = 2;
    cases.push(("a two-vertex strip", w, ofs, "2 vertices"));
    let mut w = good.clone();
    w.pop();
    let end = ofs + 4 * w.len();
    cases.push(("no terminating 0", w, end, "does not end with 0"));
    // The last command's count runs into the missing terminator's place.
    let w = vec![3, 0, 0, 0, 0, 0, 1, 0, 0, 2];
    cases.push((
        "a lone command without 0",
        w,
        ofs + 40,
        "does not end with 0",
    ));

    for (what, words, offset, reason_has) in cases {
        let b = with_glcmds(&words);
        let model = load(&b).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(model.glcmds().is_empty(), "{what}");
        match model.warnings() {
            [Md2Warning::GlCmdsDropped { reason, offset: at }] => {
                assert_eq!(*at, offset, "{what}: {reason}");
                assert!(reason.contains(reason_has), "{what}: {reason}");
            }
            other => panic!("{what}: warnings {other:?}"),
        }
        assert_same_mesh(&model, &base_model);
        // Writing generates glcmds again: the file becomes the base file.
        let written = model.to_bytes();
        assert_eq!(written, bytes, "{what}");
    }
}

#[test]
fn words_after_the_terminating_zero_are_ignored_with_a_warning() {
    let (base_model, _) = base();
    let mut words = base_glcmd_words();
    words.extend([7, -3, 0]);
    let model = load(&with_glcmds(&words)).unwrap();
    assert_eq!(
        model.warnings(),
        &[Md2Warning::GlCmdsTrailingWords { words: 3 }]
    );
    assert_eq!(model.glcmds(), base_model.glcmds());
    assert_eq!(model.to_bytes(), base_model.to_bytes());

    // A block that is only its 0: no commands, but nothing broken either;
    // the rewrite, which generates them, changes the layout.
    let model = load(&with_glcmds(&[0])).unwrap();
    assert!(model.glcmds().is_empty());
    assert_eq!(warning_names(&model), ["NonCanonicalLayout"]);
    assert_eq!(model.to_bytes(), base_model.to_bytes());
}

#[test]
fn no_glcmds_warns_and_the_writer_generates_them() {
    let (base_model, bytes) = base();
    let mut b = bytes[..hdr(&bytes, "ofs_glcmds")].to_vec();
    set(&mut b, 4 * field_index("num_glcmds"), 0);
    set_end(&mut b);
    let model = load(&b).unwrap();
    assert_eq!(model.warnings(), &[Md2Warning::GlCmdsMissing]);
    assert!(model.glcmds().is_empty());
    assert_same_mesh(&model, &base_model);
    let written = model.to_bytes();
    assert_eq!(written, bytes);
    let again = load(&written).unwrap();
    assert!(again.warnings().is_empty());
    assert_glcmds_cover(&again, again.glcmds(), Tolerance::Exact, "generated");
}

#[test]
fn non_finite_scale_or_translate_names_the_frame() {
    let (_, bytes) = base();
    let ofs_frames = hdr(&bytes, "ofs_frames");
    let framesize = hdr(&bytes, "framesize");
    for (frame, field, axis, value) in [
        (0, "scale", 0, f32::NAN),
        (1, "scale", 2, f32::INFINITY),
        (1, "translate", 1, f32::NEG_INFINITY),
        (0, "translate", 0, -f32::NAN),
    ] {
        let mut b = bytes.clone();
        let start = ofs_frames + frame * framesize + if field == "scale" { 0 } else { 12 };
        set_f32(&mut b, start + 4 * axis, value);
        match load(&b) {
            Err(Md2Error::NonFiniteFrame {
                frame: f,
                field: name,
                value: v,
                offset,
            }) => {
                assert_eq!((f as usize, name, offset), (frame, field, start));
                assert_eq!(v[axis].to_bits(), value.to_bits());
            }
            other => panic!("frame {frame} {field}[{axis}] = {value}: {other:?}"),
        }
    }
}

#[test]
fn framesize_too_small_is_refused_and_larger_is_padding() {
    let (base_model, bytes) = base();
    let needed = 40 + 4 * base_model.keyframes().vertex_count();
    assert_eq!(hdr(&bytes, "framesize"), needed);
    let mut b = bytes.clone();
    set(&mut b, 16, needed as i32 - 1);
    check(&b, Want::Invalid("framesize"), "framesize - 1");

    // Frames padded with 8 bytes each: the layout of an odd exporter.
    let pad = 8;
    let ofs_frames = hdr(&bytes, "ofs_frames");
    let ofs_glcmds = hdr(&bytes, "ofs_glcmds");
    let mut b = bytes[..ofs_frames].to_vec();
    for f in 0..base_model.keyframes().frame_count() as usize {
        let at = ofs_frames + f * needed;
        b.extend_from_slice(&bytes[at..at + needed]);
        b.extend_from_slice(&[0xAB; 8][..pad]);
    }
    let new_glcmds = b.len();
    b.extend_from_slice(&bytes[ofs_glcmds..]);
    set(&mut b, 16, (needed + pad) as i32);
    set(&mut b, 4 * field_index("ofs_glcmds"), new_glcmds as i32);
    set_end(&mut b);
    let model = load(&b).unwrap();
    assert_eq!(
        model.warnings(),
        &[Md2Warning::FramePadding {
            framesize: needed + pad,
            needed
        }]
    );
    assert_same_mesh(&model, &base_model);
    assert_eq!(model.glcmds(), base_model.glcmds());
    assert_eq!(model.to_bytes(), bytes);
}

#[test]
fn normal_index_past_the_table_warns_and_reads_as_up() {
    let (base_model, bytes) = base();
    let ofs_frames = hdr(&bytes, "ofs_frames");
    let framesize = hdr(&bytes, "framesize");
    let mut b = bytes.clone();
    // frame 1 vertex 3, frame 1 vertex 7, frame 0 vertex 2 (file order:
    // frame 0 first).
    for (frame, vertex, index) in [(1, 3, 162u8), (1, 7, 255), (0, 2, 200)] {
        b[ofs_frames + frame * framesize + 40 + 4 * vertex + 3] = index;
    }
    let model = load(&b).unwrap();
    assert_eq!(
        model.warnings(),
        &[Md2Warning::NormalIndexOutOfTable {
            count: 3,
            first: (0, 2, 200)
        }]
    );
    let v = model.keyframes().frame_data(1).packed()[7];
    assert_eq!(v.normal_index, 255, "kept as stored");
    assert_eq!(v.normal(), [0.0, 0.0, 1.0]);
    assert_eq!(
        model.keyframes().frame_data(0).packed()[2].normal(),
        [0.0, 0.0, 1.0]
    );
    assert_eq!(
        model.keyframes().frame_data(0).packed()[3],
        base_model.keyframes().frame_data(0).packed()[3]
    );
    // The data is the file's: a rewrite keeps the bytes.
    assert_eq!(model.to_bytes(), b);
}

#[test]
fn counts_beyond_quake2_limits_warn_and_load() {
    // 600 frames of 3 vertices: past MAX_FRAMES (512) only.
    let tri = Mesh {
        skin: (8, 8),
        st: vec![(0, 0), (7, 0), (0, 7)],
        tris: vec![([0, 1, 2], [0, 1, 2])],
        frames: (0..600)
            .map(|i| {
                let x = i as f32;
                (
                    format!("f{i:03}"),
                    vec![[x, 0.0, 0.0], [x + 1.0, 0.0, 0.0], [x, 1.0, 0.0]],
                )
            })
            .collect(),
    };
    let built = tri.model();
    let model = load(&built.to_bytes()).unwrap();
    assert_eq!(
        model.warnings(),
        &[Md2Warning::BeyondQuake2Limit {
            field: "num_frames",
            value: 600,
            limit: 512
        }]
    );
    assert_eq!(model.keyframes().frame_count(), 600);
    assert_same_mesh(&model, &built);

    // 2049 vertices, 4097 triangles, 33 skin names, one frame.
    let n = 2049;
    let parts = Md2Parts {
        skin_size: (64, 64),
        skins: (0..33)
            .map(|i| SkinName::new(&format!("s{i}.pcx")))
            .collect(),
        tex_coords: vec![TexCoord { s: 1, t: 2 }],
        triangles: (0..4097)
            .map(|i| Triangle {
                xyz: [(i % n) as u16, ((i + 1) % n) as u16, ((i + 2) % n) as u16],
                st: [0; 3],
            })
            .collect(),
        frames: vec![Frame::new("big", [1.0; 3], [0.0; 3])],
        vertices: (0..n)
            .map(|i| PackedVertex {
                position: [i as u8, (i >> 8) as u8, 0],
                normal_index: 5,
            })
            .collect(),
    };
    let built = Md2Model::from_parts(parts).unwrap();
    let model = load(&built.to_bytes()).unwrap();
    let limits: Vec<_> = model
        .warnings()
        .iter()
        .map(|w| match w {
            Md2Warning::BeyondQuake2Limit {
                field,
                value,
                limit,
            } => (*field, *value, *limit),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        limits,
        [
            ("num_xyz", 2049, 2048),
            ("num_tris", 4097, 4096),
            ("num_skins", 33, 32)
        ]
    );
    assert_same_mesh(&model, &built);
}

#[test]
fn an_unterminated_skin_name_warns_and_keeps_all_64_bytes() {
    let (base_model, bytes) = base();
    let ofs_skins = hdr(&bytes, "ofs_skins");
    let mut b = bytes.clone();
    for (i, c) in b[ofs_skins..ofs_skins + 64].iter_mut().enumerate() {
        *c = b'a' + (i % 26) as u8;
    }
    let model = load(&b).unwrap();
    assert_eq!(
        model.warnings(),
        &[Md2Warning::SkinNameUnterminated { skin: 0 }]
    );
    assert_eq!(model.skins()[0].name().len(), 64);
    assert_eq!(model.skins()[0].bytes[..], b[ofs_skins..ofs_skins + 64]);
    assert_eq!(model.triangles(), base_model.triangles());
    assert_eq!(model.to_bytes(), b);
}

/// A 112-byte file that loads: one vertex, texture coordinate, triangle
/// and frame, every section at byte 68 (overlapping, which the format
/// allows), no skins and no glcmds.
fn tiny() -> Vec<u8> {
    let mut b = vec![0u8; 68 + 44];
    b[..4].copy_from_slice(b"IDP2");
    for (name, value) in [
        ("version", 8),
        ("skinwidth", 8),
        ("skinheight", 8),
        ("framesize", 44),
        ("num_xyz", 1),
        ("num_st", 1),
        ("num_tris", 1),
        ("num_frames", 1),
        ("ofs_skins", 68),
        ("ofs_st", 68),
        ("ofs_tris", 68),
        ("ofs_frames", 68),
        ("ofs_glcmds", 68),
        ("ofs_end", 112),
    ] {
        set(&mut b, 4 * field_index(name), value);
    }
    b
}

#[test]
fn huge_counts_in_a_tiny_file_fail_before_allocating() {
    let b = tiny();
    let model = load(&b).unwrap();
    assert_eq!(
        warning_names(&model),
        ["GlCmdsMissing", "NonCanonicalLayout"]
    );

    // Each count claims gigabytes; `load` asserts that nothing out of
    // proportion to the 112 bytes was allocated on the way to the error.
    for (name, want) in [
        ("num_frames", Want::OutOfBounds(Section::Frames)),
        ("num_xyz", Want::Invalid("framesize")),
        ("num_tris", Want::OutOfBounds(Section::Triangles)),
        ("num_st", Want::OutOfBounds(Section::TexCoords)),
        ("num_skins", Want::OutOfBounds(Section::Skins)),
        ("num_glcmds", Want::OutOfBounds(Section::GlCmds)),
        ("framesize", Want::OutOfBounds(Section::Frames)),
    ] {
        for value in [i32::MAX, i32::MAX / 2, 1 << 24] {
            let mut b = tiny();
            set(&mut b, 4 * field_index(name), value);
            check(&b, want, &format!("{name} = {value} in 112 bytes"));
        }
    }

    // All of them at once, in a bare 68-byte header.
    let mut b = tiny();
    b.truncate(68);
    set_end(&mut b);
    // framesize and every count after it.
    for i in field_index("framesize")..=field_index("num_frames") {
        set(&mut b, 4 * i, i32::MAX);
    }
    check(&b, Want::Invalid("framesize"), "every count at i32::MAX");
    set(&mut b, 4 * field_index("num_xyz"), 1);
    check(
        &b,
        Want::OutOfBounds(Section::Skins),
        "every count but num_xyz at i32::MAX",
    );
}

#[test]
fn a_glcmd_count_of_i32_max_in_a_valid_file_allocates_nothing_for_it() {
    let mut words = base_glcmd_words();
    words[0] = i32::MAX;
    let model = load(&with_glcmds(&words)).unwrap();
    assert_eq!(warning_names(&model), ["GlCmdsDropped"]);
}

/// Regression: glcmd generation (run by `from_bytes` for a file whose
/// glcmd block is just its 0, and by `to_bytes`) was cubic in the copies of
/// a triangle that a strip can zig-zag through: 4000 such triangles took
/// seconds, 40000 would take hours. It is linear now.
#[test]
fn thousands_of_alternating_copies_of_one_triangle_load() {
    let mut tris = Vec::new();
    for _ in 0..20_000 {
        tris.push(([0u16, 1, 2], [0u16, 1, 2]));
        tris.push(([2u16, 1, 0], [2u16, 1, 0]));
    }
    let mesh = Mesh {
        skin: (8, 8),
        st: vec![(0, 0), (1, 0), (0, 1)],
        tris,
        frames: vec![("a".into(), vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])],
    };
    let model = mesh.model();
    assert_glcmds_cover(&model, model.glcmds(), Tolerance::Exact, "zig-zag");
    // The file with an empty glcmd block: loading it generates them.
    let mut b = model.to_bytes();
    let ofs = hdr(&b, "ofs_glcmds");
    b.truncate(ofs);
    b.extend_from_slice(&0i32.to_le_bytes());
    set(&mut b, 4 * field_index("num_glcmds"), 1);
    set_end(&mut b);
    let loaded = load(&b).unwrap();
    assert_eq!(
        warning_names(&loaded),
        ["BeyondQuake2Limit", "NonCanonicalLayout"]
    );
    assert_eq!(loaded.to_bytes(), model.to_bytes());
}

#[test]
fn every_error_says_what_and_where() {
    let (_, bytes) = base();
    let msg = |r: Result<Md2Model, Md2Error>| r.unwrap_err().to_string();

    // The one rule for paths: `open` names the file once, whatever went
    // wrong, and `from_bytes` names none.
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = tmp.join("no-such-model.md2");
    let err = Md2Model::open(&path).unwrap_err();
    let m = err.to_string();
    assert!(m.starts_with(&format!("{}: ", path.display())), "{m}");
    assert_eq!(m.matches("no-such-model.md2").count(), 1, "{m}");
    assert_eq!(err.path(), Some(path.as_path()));
    assert!(matches!(err.without_path(), Md2Error::Io { .. }), "{err:?}");
    let inner = std::error::Error::source(&err).expect("the error inside");
    assert_eq!(inner.to_string(), err.without_path().to_string());

    let path = tmp.join("idp3-model.md2");
    let mut b = bytes.clone();
    b[..4].copy_from_slice(b"IDP3");
    std::fs::write(&path, &b).unwrap();
    let err = Md2Model::open(&path).unwrap_err();
    let m = err.to_string();
    assert_eq!(m.matches("idp3-model.md2").count(), 1, "{m}");
    assert!(m.contains("IDP3"), "{m}");
    assert!(
        matches!(err.without_path(), Md2Error::BadIdent { .. }),
        "{err:?}"
    );
    let bare = load(&b).unwrap_err();
    assert_eq!(bare.path(), None);
    assert_eq!(m, format!("{}: {bare}", path.display()));
    std::fs::remove_file(&path).unwrap();

    let m = msg(load(&bytes[..10]));
    assert!(m.contains("10") && m.contains("68"), "{m}");

    let mut b = bytes.clone();
    b[..4].copy_from_slice(b"IDP3");
    let m = msg(load(&b));
    assert!(m.contains("IDP3") && m.contains("IDP2"), "{m}");

    let mut b = bytes.clone();
    set(&mut b, 4, 9);
    let m = msg(load(&b));
    assert!(m.contains('9') && m.contains('8'), "{m}");

    let len = bytes.len().to_string();
    let mut b = bytes.clone();
    set(&mut b, 4 * field_index("num_tris"), -7);
    let m = msg(load(&b));
    assert!(
        m.contains("num_tris") && m.contains("-7") && m.contains(&len),
        "{m}"
    );

    let mut b = bytes.clone();
    set(&mut b, 4 * field_index("ofs_st"), 5000);
    let m = msg(load(&b));
    let st_end = (5000 + 4 * hdr(&bytes, "num_st")).to_string();
    assert!(
        m.contains("ofs_st") && m.contains("num_st") && m.contains("5000"),
        "{m}"
    );
    assert!(m.contains(&st_end) && m.contains(&len), "{m}");

    let mut b = bytes.clone();
    set(&mut b, 64, bytes.len() as i32 + 9);
    let m = msg(load(&b));
    assert!(
        m.contains("ofs_end") && m.contains(&(bytes.len() + 9).to_string()) && m.contains(&len),
        "{m}"
    );

    let mut b = bytes.clone();
    let at = hdr(&bytes, "ofs_tris") + 12 * 4 + 2;
    b[at..at + 2].copy_from_slice(&99u16.to_le_bytes());
    let m = msg(load(&b));
    assert!(
        m.contains("triangle 4")
            && m.contains("index_xyz[1]")
            && m.contains("99")
            && m.contains(&at.to_string()),
        "{m}"
    );

    let mut b = bytes.clone();
    let at = hdr(&bytes, "ofs_frames") + hdr(&bytes, "framesize") + 12;
    set_f32(&mut b, at + 4, f32::NAN);
    let m = msg(load(&b));
    assert!(
        m.contains("frame 1") && m.contains("translate") && m.contains(&at.to_string()),
        "{m}"
    );

    let m = Md2Model::from_parts(Md2Parts::default())
        .unwrap_err()
        .to_string();
    assert!(m.contains("(0, 0)"), "{m}");
}

#[test]
fn every_warning_says_what_and_where() {
    let cases: [(Md2Warning, &[&str]); 10] = [
        (
            Md2Warning::TrailingBytes {
                ofs_end: 100,
                length: 103,
            },
            &["3", "100", "103"],
        ),
        (Md2Warning::SkinNameUnterminated { skin: 4 }, &["4"]),
        (
            Md2Warning::NormalIndexOutOfTable {
                count: 17,
                first: (2, 33, 200),
            },
            &["17", "2", "33", "200"],
        ),
        (
            Md2Warning::BeyondQuake2Limit {
                field: "num_frames",
                value: 600,
                limit: 512,
            },
            &["num_frames", "600", "512"],
        ),
        (Md2Warning::GlCmdsMissing, &["glcmds"]),
        (
            Md2Warning::GlCmdsDropped {
                reason: "why".into(),
                offset: 1234,
            },
            &["why", "1234"],
        ),
        (Md2Warning::GlCmdsTrailingWords { words: 6 }, &["6"]),
        (
            Md2Warning::FramePadding {
                framesize: 80,
                needed: 72,
            },
            &["80", "72"],
        ),
        (Md2Warning::NonCanonicalLayout, &["sections"]),
        (
            Md2Warning::AnimationRenamed {
                name: "crstand".into(),
                renamed: "crstand_2".into(),
                first: 173,
                last: 191,
            },
            &["\"crstand\"", "\"crstand_2\"", "173", "191"],
        ),
    ];
    for (w, parts) in cases {
        let s = w.to_string();
        for p in parts {
            assert!(s.contains(p), "{s:?} lacks {p}");
        }
    }
}

#[test]
fn the_fuzz_targets_checks_hold_on_thousands_of_seeded_mutations() {
    let mut seeds = vec![
        ("demo".to_string(), md2_wgpu::demo::demo_model_bytes()),
        ("seamed box".to_string(), base().1),
    ];
    seeds.extend(common::real_files());
    // Every seed as it is, then 400 mutations of it, its 17 header words
    // favoured.
    let (loaded, refused) = common::seeded_mutations(
        &seeds,
        (0x5eed, 17),
        |_| 400,
        "fuzz-finding.md2",
        load,
        md2_wgpu::support::check_from_bytes,
    );
    assert!(loaded + refused >= 800);
    assert!(loaded > 0 && refused > 0, "both outcomes are exercised");
}

/// The model fuzz target's checks (`support::check_model_use`: meshes,
/// levels under a work budget, saved levels, GPU data, glTF) on seeded
/// mutations of a small model and the demo: whatever loads goes through
/// everything without a panic.
#[test]
fn the_model_use_checks_hold_on_seeded_mutations() {
    let seeds = [
        ("seamed box", base().1, 150),
        ("demo", md2_wgpu::demo::demo_model_bytes(), 12),
    ];
    let mut rng = md2_wgpu::support::Rng::new(0x0de1);
    let mut used = 0;
    for (name, bytes, mutants) in seeds {
        md2_wgpu::support::check_model_use(&bytes);
        for _ in 0..mutants {
            let mutant = common::mutate(&mut rng, &bytes, 17);
            used += usize::from(md2_wgpu::Md2Model::from_bytes(&mutant).is_ok());
            common::check_mutant(
                &format!("a mutation of {name} fails the checks"),
                "fuzz-finding-model-use.md2",
                &mutant,
                md2_wgpu::support::check_model_use,
            );
        }
    }
    eprintln!("{used} mutants loaded and went through every use");
    assert!(used > 20, "{used} mutants loaded");
}
