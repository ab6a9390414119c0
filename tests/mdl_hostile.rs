//! Hostile MDL files, generated here: every truncation, lying counts,
//! indices out of range, absurd sizes, NaN scales, bad intervals and group
//! types. Each gives the expected typed error; none panics, and none makes
//! the loader allocate more than the file's length justifies. The fuzz
//! target's checks (`support::check_mdl_from_bytes`) run on thousands of
//! seeded mutations of a model built in code and of the shared models.

use md2_wgpu_tests as common;

use md2_wgpu::format::mdl::{MdlError, MdlModel, MdlPart};

#[global_allocator]
static ALLOCATOR: common::Tracking = common::Tracking;

/// `from_bytes`, asserting that no single allocation is out of proportion
/// to the file: every part the loader keeps is no larger than its bytes
/// in the file, and the seam a small multiple of the triangles.
fn load(bytes: &[u8]) -> Result<MdlModel, MdlError> {
    common::load_bounded(bytes, MdlModel::from_bytes)
}

fn base() -> Vec<u8> {
    common::seam_mdl().to_bytes()
}

fn set(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Header field offsets.
const SCALE: usize = 8;
const NUM_SKINS: usize = 48;
const SKIN_WIDTH: usize = 52;
const SKIN_HEIGHT: usize = 56;
const NUM_VERTS: usize = 60;
const NUM_TRIS: usize = 64;
const NUM_FRAMES: usize = 68;

/// Where the parts of the base file start: (skins, texture coordinates,
/// triangles, frames).
fn offsets() -> (usize, usize, usize, usize) {
    let model = common::seam_mdl();
    let (w, h) = model.skin_size();
    let image = (w * h) as usize;
    let skins = 84;
    let st = skins + (4 + image) + (4 + 4 + 2 * 4 + 2 * image);
    let tris = st + 12 * model.vertex_count();
    let frames = tris + 16 * model.triangle_count();
    (skins, st, tris, frames)
}

#[test]
fn every_truncation_is_a_typed_error() {
    let bytes = base();
    assert!(load(&bytes).is_ok());
    for len in 0..bytes.len() {
        match load(&bytes[..len]) {
            Err(MdlError::TruncatedHeader { length }) => {
                assert!(len < 84);
                assert_eq!(length, len);
            }
            Err(MdlError::Truncated {
                length,
                needed,
                offset,
                ..
            }) => {
                assert_eq!(length, len);
                assert!(offset as u64 + needed > len as u64, "{len}");
            }
            other => panic!("{len} bytes: {other:?}"),
        }
    }
}

#[test]
fn lying_counts_are_refused_naming_the_field_or_limit_before_allocating() {
    let cases: [(usize, i32, &str); 14] = [
        (NUM_SKINS, 0, "InvalidField numskins"),
        (NUM_SKINS, 33, "BeyondLimit numskins"),
        (NUM_SKINS, i32::MAX, "BeyondLimit numskins"),
        (NUM_VERTS, 0, "InvalidField numverts"),
        (NUM_VERTS, 2001, "BeyondLimit numverts"),
        (NUM_VERTS, -5, "InvalidField numverts"),
        (NUM_TRIS, 4097, "BeyondLimit numtris"),
        (NUM_TRIS, 0, "InvalidField numtris"),
        (NUM_FRAMES, 1025, "BeyondLimit numframes"),
        (NUM_FRAMES, -1, "InvalidField numframes"),
        (SKIN_WIDTH, 0, "InvalidField skinwidth"),
        (SKIN_HEIGHT, -480, "InvalidField skinheight"),
        (SKIN_WIDTH, i32::MAX, "Truncated"),
        (NUM_FRAMES, 1000, "Truncated"),
    ];
    for (at, value, expected) in cases {
        let mut bytes = base();
        set(&mut bytes, at, value);
        let error = load(&bytes).expect_err(expected);
        let got = match &error {
            MdlError::InvalidField { field, .. } => format!("InvalidField {field}"),
            MdlError::BeyondLimit { field, .. } => format!("BeyondLimit {field}"),
            MdlError::Truncated { .. } => "Truncated".into(),
            other => format!("{other:?}"),
        };
        assert_eq!(got, expected, "{at} = {value}: {error}");
    }
}

/// The base file with each word at `at` set to `value` in turn, refused as
/// `check` says, naming group 1 of `part` where the error names a group.
fn refused_in_group(part: MdlPart, cases: &[(usize, i32, &str)]) {
    for &(at, value, check) in cases {
        let mut bytes = base();
        set(&mut bytes, at, value);
        let error = load(&bytes).expect_err(check);
        let right = match check {
            "type" | "count" => matches!(error, MdlError::InvalidField { .. }),
            "poses" => matches!(
                error,
                MdlError::BeyondLimit {
                    field: "poses",
                    limit: 1024,
                    ..
                }
            ),
            "truncated" => {
                matches!(error, MdlError::Truncated { part: p, index: 1, .. } if p == part)
            }
            _ => matches!(error, MdlError::BadInterval { part: p, index: 1, .. } if p == part),
        };
        assert!(right, "{check}: {error}");
    }
}

#[test]
fn groups_with_lying_counts_or_bad_intervals_are_refused_where_they_are() {
    let (skins, _, tris, frames) = offsets();
    let model = common::seam_mdl();
    let (w, h) = model.skin_size();
    let group = skins + 4 + (w * h) as usize;
    // The skin group: type, count, intervals, images.
    refused_in_group(
        MdlPart::Skins,
        &[
            (group, 7, "type"),
            (group + 4, 0, "count"),
            (group + 4, i32::MAX, "truncated"),
            (group + 8, f32::NAN.to_bits() as i32, "interval"),
            (group + 12, (-1.0f32).to_bits() as i32, "interval"),
        ],
    );
    // The first frame group (frame 1): after frame 0's type and pose.
    let pose = 24 + 4 * model.vertex_count();
    let frame1 = frames + 4 + pose;
    refused_in_group(
        MdlPart::Frames,
        &[
            (frame1, 2, "type"),
            (frame1 + 4, 0, "count"),
            (frame1 + 4, 1024, "poses"),
            (frame1 + 4, 1000, "truncated"),
            (frame1 + 16, 0, "interval"),
            (frame1 + 20, f32::INFINITY.to_bits() as i32, "interval"),
        ],
    );
    // A triangle's vertex out of range, each way.
    for value in [-1, 6, i32::MAX] {
        let mut bytes = base();
        set(&mut bytes, tris + 16 + 8, value);
        let error = load(&bytes).unwrap_err();
        assert!(
            matches!(error, MdlError::IndexOutOfRange { triangle: 1, corner: 1, index, count: 6, offset } if index == value && offset == tris + 24),
            "{error}"
        );
    }
}

#[test]
fn bad_idents_versions_and_scales_are_refused() {
    let mut bytes = base();
    bytes[..4].copy_from_slice(b"IDP2");
    assert!(matches!(load(&bytes), Err(MdlError::BadIdent { found }) if &found == b"IDP2"));
    let mut bytes = base();
    set(&mut bytes, 4, 8);
    assert!(matches!(
        load(&bytes),
        Err(MdlError::UnsupportedVersion { found: 8 })
    ));
    for bad in [f32::NAN, f32::INFINITY] {
        let mut bytes = base();
        set(&mut bytes, SCALE + 4, bad.to_bits() as i32);
        assert!(matches!(
            load(&bytes),
            Err(MdlError::NonFinite { field: "scale", .. })
        ));
        let mut bytes = base();
        set(&mut bytes, SCALE + 12, bad.to_bits() as i32);
        assert!(matches!(
            load(&bytes),
            Err(MdlError::NonFinite {
                field: "translate",
                ..
            })
        ));
    }
}

#[test]
fn a_tall_skin_and_normals_past_the_table_load_with_warnings() {
    use md2_wgpu::format::mdl::{MdlParts, MdlSkin, MdlWarning};
    let mut parts = common::seam_mdl_parts();
    parts.skin_size = (4, 600);
    parts.skins = vec![MdlSkin::Single(vec![3; 2400])];
    parts.vertices[7].normal_index = 200;
    parts.vertices[9].normal_index = 255;
    let model = MdlModel::from_parts(MdlParts { ..parts }).unwrap();
    assert!(
        model
            .warnings()
            .contains(&MdlWarning::TallSkin { height: 600 })
    );
    assert!(
        model
            .warnings()
            .contains(&MdlWarning::NormalIndexOutOfTable {
                count: 2,
                first: (1, 1, 200)
            })
    );
    assert!(model.to_bytes() == MdlModel::from_bytes(&model.to_bytes()).unwrap().to_bytes());
}

#[test]
fn the_fuzz_targets_checks_hold_on_thousands_of_seeded_mutations() {
    let mut seeds = vec![("seam model".to_string(), base())];
    if let Some(dir) = common::shared_mdl_dir() {
        for (name, bytes) in md2_wgpu::support::files_in(&dir, "mdl").expect("the shared MDLs") {
            seeds.push((name, bytes));
        }
    }
    // Every seed as it is, then mutated (a large one less, for time), its
    // 21 header words favoured.
    let (loaded, refused) = common::seeded_mutations(
        &seeds,
        (0x0d1e, 21),
        |bytes| if bytes.len() > 100_000 { 12 } else { 500 },
        "fuzz-finding.mdl",
        load,
        md2_wgpu::support::check_mdl_from_bytes,
    );
    assert!(loaded + refused >= 500);
    assert!(loaded > 0 && refused > 0, "both outcomes are exercised");
}
