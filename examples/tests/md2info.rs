//! md2info: its JSON, its OBJ and its refusals, checked through its own
//! functions, and its exit codes through the built binary (cargo builds it
//! for these tests).

use md2_wgpu_examples::md2info;
use md2_wgpu_tests as common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use md2_wgpu::Md2Model;
use md2_wgpu::format::md3::{Md3Model, PlayerAnimation, PlayerPart};

/// The tests' folder, made where absent.
fn tmp_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("md2info");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `bytes` written to a file `name` of its own in the tests' folder.
fn write_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = tmp_dir().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A generated model (a closed sphere with a texture seam, five frames)
/// written to a file of its own.
fn sphere_file(name: &str) -> (Md2Model, PathBuf) {
    let model = common::sphere(6, 8, 5).model();
    let path = write_file(name, &model.to_bytes());
    (model, path)
}

fn garbage_file() -> PathBuf {
    let bytes: Vec<u8> = (0..500u32).map(|i| (i * 7919 % 251) as u8).collect();
    write_file("garbage.md2", &bytes)
}

fn run(args: &[&OsString]) -> Result<String, String> {
    let mut out = Vec::new();
    md2info::run(args.iter().map(|a| (*a).clone()), &mut out)?;
    Ok(String::from_utf8(out).expect("UTF-8 output"))
}

fn os(s: &str) -> OsString {
    s.into()
}

/// Asserts `text` says each of `wants`.
fn says_all(text: &str, wants: &[&str]) {
    for want in wants {
        assert!(text.contains(want), "{want:?} missing from\n{text}");
    }
}

/// Each case's arguments refused with one line that says its words.
fn refused_in_one_line(cases: &[(&[&OsString], &str)]) {
    for (args, want) in cases {
        let err = run(args).unwrap_err();
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains('\n'), "{args:?}: one line: {err}");
    }
}

/// md2info on `file` with an option that writes `out`: `md2info FILE
/// --convert OUT`, say.
fn run_to(file: &Path, option: &str, out: &Path) -> Result<String, String> {
    run(&[
        &file.as_os_str().to_owned(),
        &os(option),
        &out.as_os_str().to_owned(),
    ])
}

#[test]
fn json_has_the_header_skins_frames_animations_and_warnings() {
    let (model, path) = sphere_file("json.md2");
    let text = run(&[&path.clone().into_os_string(), &os("--json")]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let obj = v.as_object().unwrap();
    let mut keys: Vec<&str> = obj.keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(
        keys,
        ["animations", "frames", "header", "skins", "warnings"]
    );

    let header = v["header"].as_object().unwrap();
    assert_eq!(header.len(), 17);
    assert_eq!(header["ident"], "IDP2");
    for (field, value) in model.header().fields().iter().skip(1) {
        assert_eq!(header[*field], *value, "{field}");
    }
    assert_eq!(header["num_frames"], 5);
    assert_eq!(v["skins"], serde_json::json!(["models/test/skin.pcx"]));
    assert_eq!(
        v["frames"],
        serde_json::json!(["stand01", "stand02", "stand03", "stand04", "stand05"])
    );
    assert_eq!(
        v["animations"],
        serde_json::json!([{"name": "stand", "first": 0, "last": 4}])
    );
    assert_eq!(v["warnings"], serde_json::json!([]));

    // A quirk shows as one string per warning.
    let mut bytes = model.to_bytes();
    bytes.extend_from_slice(b"xyz");
    let odd = path.with_file_name("trailing.md2");
    std::fs::write(&odd, &bytes).unwrap();
    let text = run(&[&odd.into_os_string(), &os("--json")]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].as_str().unwrap().contains("3 trailing bytes"));
}

#[test]
fn obj_has_a_line_per_vertex_normal_texcoord_and_triangle() {
    let (model, path) = sphere_file("obj.md2");
    let frame = 3;
    let text = run(&[
        &path.into_os_string(),
        &os("--obj"),
        &os(&frame.to_string()),
    ])
    .unwrap();
    let Obj { v, vn, vt, faces } = parse_obj(&text);
    assert_eq!(v.len(), model.keyframes().vertex_count());
    assert_eq!(vn.len(), model.keyframes().vertex_count());
    assert_eq!(vt.len(), model.tex_coords().len());
    assert_eq!(faces.len(), model.triangles().len());

    let f = &model.keyframes().frames()[frame as usize];
    for (i, p) in model
        .keyframes()
        .frame_data(frame)
        .packed()
        .iter()
        .enumerate()
    {
        assert_eq!(v[i], p.decode_position(f).to_vec(), "v {i}");
        assert_eq!(vn[i], p.normal().to_vec(), "vn {i}");
    }
    let (w, h) = model.skin_size();
    for (i, st) in model.tex_coords().iter().enumerate() {
        let want = [
            (st.s as f32 + 0.5) / w as f32,
            1.0 - (st.t as f32 + 0.5) / h as f32,
        ];
        assert_eq!(vt[i], want, "vt {i}");
    }
    // Every face is the triangle's, 1-based, and counter-clockwise seen
    // from outside: its right-hand normal agrees with its vertex normals.
    for (face, tri) in faces.iter().zip(model.triangles()) {
        let mut corners: Vec<(usize, usize)> = face.clone();
        let mut want: Vec<(usize, usize)> = (0..3)
            .map(|k| (tri.xyz[k] as usize + 1, tri.st[k] as usize + 1))
            .collect();
        corners.sort();
        want.sort();
        assert_eq!(corners, want);
    }
    let inwards = faces_inwards(&v, &vn, &faces);
    assert!(inwards.is_empty(), "faces {inwards:?} face inwards");
}

/// An OBJ's lines, by kind: `v`, `vn` and `vt` as numbers, each face's
/// corners as (v, vt), 1-based.
struct Obj {
    v: Vec<Vec<f32>>,
    vn: Vec<Vec<f32>>,
    vt: Vec<Vec<f32>>,
    faces: Vec<Vec<(usize, usize)>>,
}

/// Reads md2info's OBJ, checking each corner is `v/vt/vn` with `vn` the
/// same as `v`.
fn parse_obj(text: &str) -> Obj {
    let mut obj = Obj {
        v: Vec::new(),
        vn: Vec::new(),
        vt: Vec::new(),
        faces: Vec::new(),
    };
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let kind = words.next().unwrap_or("");
        let rest: Vec<&str> = words.collect();
        let nums = || -> Vec<f32> { rest.iter().map(|w| w.parse().unwrap()).collect() };
        match kind {
            "v" => obj.v.push(nums()),
            "vn" => obj.vn.push(nums()),
            "vt" => obj.vt.push(nums()),
            "f" => obj.faces.push(
                rest.iter()
                    .map(|c| {
                        let ix: Vec<usize> = c.split('/').map(|i| i.parse().unwrap()).collect();
                        assert_eq!(ix.len(), 3, "{line}");
                        assert_eq!(ix[0], ix[2], "vn follows v: {line}");
                        (ix[0], ix[1])
                    })
                    .collect::<Vec<_>>(),
            ),
            "#" | "o" | "g" => {}
            other => panic!("unexpected OBJ line kind {other:?}: {line}"),
        }
    }
    obj
}

/// The faces (by index) whose right-hand normal points against their
/// corners' normals: faces not counter-clockwise seen from outside.
fn faces_inwards(v: &[Vec<f32>], vn: &[Vec<f32>], faces: &[Vec<(usize, usize)>]) -> Vec<usize> {
    let at = |list: &[Vec<f32>], i: usize| [list[i - 1][0], list[i - 1][1], list[i - 1][2]];
    (0..faces.len())
        .filter(|&k| {
            let p: Vec<[f32; 3]> = faces[k].iter().map(|&(i, _)| at(v, i)).collect();
            let n = common::cross(common::sub(p[1], p[0]), common::sub(p[2], p[0]));
            let stored: f32 = faces[k]
                .iter()
                .map(|&(i, _)| common::dot(n, at(vn, i)))
                .sum();
            stored <= 0.0
        })
        .collect()
}

#[test]
fn the_summary_lists_header_skins_animations_and_warnings() {
    let (_, path) = sphere_file("summary.md2");
    let text = run(&[&path.into_os_string()]).unwrap();
    says_all(
        &text,
        &[
            "ident       IDP2",
            "num_frames  5",
            "models/test/skin.pcx",
            "animations: 1",
            "stand",
            "0..4",
            "warnings: 0",
        ],
    );
}

#[test]
fn bad_arguments_and_bad_files_are_one_line_errors() {
    let (_, path) = sphere_file("args.md2");
    let file = path.into_os_string();
    let garbage = garbage_file().into_os_string();
    let missing = os("/no/such/dir/model.md2");
    let cases: [(&[&OsString], &str); 9] = [
        (&[], "no file"),
        (&[&os("--json")], "no file"),
        (&[&file, &os("--obj")], "frame number"),
        (&[&file, &os("--obj"), &os("x")], "frame number"),
        (&[&file, &os("--obj"), &os("5")], "no frame 5"),
        (&[&file, &os("--frobnicate")], "--frobnicate"),
        (&[&file, &file], "one file"),
        (&[&garbage], "IDP2"),
        (&[&missing], "/no/such/dir/model.md2"),
    ];
    refused_in_one_line(&cases);
    assert!(run(&[&file, &os("--json"), &os("--obj"), &os("1")]).is_err());
    assert!(run(&[&os("--help")]).unwrap().contains("usage"));
}

/// The binary, which cargo builds for this package's tests.
fn md2info_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_md2info"))
}

#[test]
fn the_binary_exits_0_on_success_and_1_with_one_message_on_garbage() {
    let bin = md2info_binary();
    let (_, path) = sphere_file("binary.md2");
    let ok = Command::new(&bin)
        .arg(&path)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    let v: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert_eq!(v["header"]["ident"], "IDP2");

    let obj = Command::new(&bin)
        .arg(&path)
        .args(["--obj", "0"])
        .output()
        .unwrap();
    assert_eq!(obj.status.code(), Some(0));
    let text = String::from_utf8(obj.stdout).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("f ")).count(),
        6 * 8 * 2 - 2 * 8
    );

    let glb = path.with_file_name("binary.glb");
    let gltf = Command::new(&bin)
        .arg(&path)
        .arg("--gltf")
        .arg(&glb)
        .output()
        .unwrap();
    assert_eq!(gltf.status.code(), Some(0), "{gltf:?}");
    assert_eq!(&std::fs::read(&glb).unwrap()[..4], b"glTF");

    for args in [
        vec![
            garbage_file().into_os_string(),
            os("--gltf"),
            glb.into_os_string(),
        ],
        vec![garbage_file().into_os_string()],
        vec![],
        vec![path.clone().into_os_string(), os("--obj"), os("99")],
    ] {
        let out = Command::new(&bin).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("md2info: "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// The sphere's bytes with header field `index` (0-based, 4 bytes each) set.
fn with_field(bytes: &[u8], index: usize, value: i32) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[4 * index..4 * index + 4].copy_from_slice(&value.to_le_bytes());
    b
}

#[test]
fn gltf_writes_a_glb_with_every_frame_and_animation() {
    let (model, path) = sphere_file("gltf.md2");
    let dir = path.parent().unwrap().to_path_buf();
    let file = path.clone().into_os_string();
    let out = dir.join("sphere.glb");
    let text = run_to(&path, "--gltf", &out).unwrap();
    assert!(text.starts_with("wrote "), "{text}");
    assert!(
        text.contains("5 morph targets") && text.contains("1 animations"),
        "{text}"
    );
    let glb = std::fs::read(&out).unwrap();
    assert!(text.contains(&format!("{} bytes", glb.len())), "{text}");
    let g = gltf::Gltf::from_slice(&glb).expect("a valid glTF");
    let prim = g.meshes().next().unwrap().primitives().next().unwrap();
    assert_eq!(
        prim.morph_targets().count(),
        model.keyframes().frame_count() as usize
    );
    assert_eq!(g.animations().count(), model.keyframes().animations().len());
    assert_eq!(g.nodes().next().unwrap().name(), Some("gltf"));
    // No skin beside it: one plain material.
    assert!(text.contains("skins: none found"), "{text}");
    assert_eq!(g.materials().count(), 1);

    // Quantised, held keys, in metres, with a skin of one's own.
    // In a folder of its own: beside the model, the export would take it
    // as the model's skin (the folder's images, when the header's is absent).
    let skin = dir.join("skins").join("red.png");
    std::fs::create_dir_all(skin.parent().unwrap()).unwrap();
    common::solid_skin(16, 16, [200, 0, 0, 255])
        .save(&skin)
        .unwrap();
    let out_q = dir.join("sphere-q.glb");
    let text = run(&[
        &file,
        &os("--gltf"),
        &out_q.clone().into_os_string(),
        &os("--quantize"),
        &os("--step"),
        &os("--scale"),
        &os("0.03125"),
        &os("--skin"),
        &skin.into_os_string(),
    ])
    .unwrap();
    assert!(
        text.contains("quantized: ") && text.contains("positions within"),
        "{text}"
    );
    assert!(text.contains("skins: red"), "{text}");
    let glb = std::fs::read(&out_q).unwrap();
    let g = gltf::Gltf::from_slice_without_validation(&glb).unwrap();
    assert_eq!(
        g.extensions_required().collect::<Vec<_>>(),
        ["KHR_mesh_quantization"]
    );
    let sampler = g.animations().next().unwrap().samplers().next().unwrap();
    assert_eq!(
        sampler.interpolation(),
        gltf::animation::Interpolation::Step
    );
    let material = g.materials().next().unwrap();
    assert!(
        material
            .pbr_metallic_roughness()
            .base_color_texture()
            .is_some()
    );
    // The grid step is the node's scale: metres, so about a 32nd of the
    // float export's.
    let (_, _, scale) = g.nodes().next().unwrap().transform().decomposed();
    assert!(
        scale[0] > 0.0 && scale[0] < 40.0 / 32.0 / 32_000.0,
        "{scale:?}"
    );
}

#[test]
fn gltf_refusals_are_one_line_errors() {
    let (model, path) = sphere_file("gltf-bad.md2");
    let file = path.clone().into_os_string();
    let dir = path.parent().unwrap();
    let out = dir.join("bad.glb").into_os_string();
    let bytes = model.to_bytes();
    let write = |name: &str, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.into_os_string()
    };
    // num_tris is field 8, num_frames 10, ofs_frames 14.
    let no_frames = write("no-frames.md2", with_field(&bytes, 10, 0));
    let no_triangles = write("no-tris.md2", with_field(&bytes, 8, 0));
    let absurd = write("absurd.md2", with_field(&bytes, 10, i32::MAX));
    let ofs_frames = model.header().ofs_frames as usize;
    let mut nan = bytes.clone();
    nan[ofs_frames..ofs_frames + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let nan = write("nan-scale.md2", nan);
    let missing_dir = os("/no/such/dir/out.glb");
    let cases: [(&[&OsString], &str); 12] = [
        (&[&file, &os("--gltf")], "output file"),
        (&[&file, &os("--quantize")], "--quantize goes with --gltf"),
        (
            &[&file, &os("--json"), &os("--step")],
            "--step goes with --gltf",
        ),
        (
            &[&file, &os("--gltf"), &out, &os("--scale"), &os("0")],
            "positive number",
        ),
        (
            &[&file, &os("--gltf"), &out, &os("--scale"), &os("x")],
            "positive number",
        ),
        (
            &[
                &file,
                &os("--gltf"),
                &out,
                &os("--skin"),
                &os("/no/such.png"),
            ],
            "/no/such.png",
        ),
        (
            &[&file, &os("--gltf"), &missing_dir],
            "cannot write /no/such/dir/out.glb",
        ),
        (
            &[&file, &os("--gltf"), &out, &os("--obj"), &os("1")],
            "exclude each other",
        ),
        (&[&no_frames, &os("--gltf"), &out], "num_frames"),
        (&[&no_triangles, &os("--gltf"), &out], "num_tris"),
        (&[&absurd, &os("--gltf"), &out], "frames"),
        (&[&nan, &os("--gltf"), &out], "not finite"),
    ];
    refused_in_one_line(&cases);
}

/// `--levels OUT` writes the levels `GpuModelOptions::WITH_LEVELS` builds,
/// and they load back for the model's mesh as exactly those.
#[test]
fn levels_writes_what_an_upload_would_build() {
    let (model, path) = sphere_file("levels.md2");
    let out = path.with_extension("md2l");
    let text = run_to(&path, "--levels", &out).unwrap();
    assert!(
        text.contains("level 0:") && text.contains("wrote"),
        "{text}"
    );
    let bytes = std::fs::read(&out).unwrap();
    let data =
        md2_wgpu::ModelData::new(&model, md2_wgpu::contract::GpuModelOptions::WITH_LEVELS).unwrap();
    let loaded = md2_wgpu::mesh::Levels::from_bytes(&bytes, &model, data.mesh()).unwrap();
    assert_eq!(&loaded, data.levels_of_detail());
    assert!(loaded.levels().len() > 1, "the sphere gets coarser levels");
    let err = run(&[&path.into_os_string(), &os("--levels")]).unwrap_err();
    assert!(err.contains("output file"), "{err}");
}

/// The Quake I model built in code (seam vertices, groups) written to a
/// file of its own.
fn mdl_file(name: &str) -> (md2_wgpu::format::mdl::MdlModel, PathBuf) {
    let model = common::seam_mdl();
    let path = write_file(name, &model.to_bytes());
    (model, path)
}

#[test]
fn an_mdl_is_summarised_with_its_groups_rates_and_palette() {
    let (_, path) = mdl_file("seam.mdl");
    let text = run(&[&path.clone().into_os_string()]).unwrap();
    assert!(text.contains("(Quake I MDL)"), "{text}");
    assert!(text.contains("3 frames (2 groups, 6 poses)"), "{text}");
    assert!(
        text.contains("a group of 2 images, intervals [0.2, 0.5] s"),
        "{text}"
    );
    assert!(text.contains("flick  poses   1..3"), "{text}");
    assert!(text.contains("plays at 10 a second"), "{text}");
    assert!(text.contains("plays at 6.667 a second"), "{text}");
    assert!(text.contains("built-in palette"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&run(&[&path.clone().into_os_string(), &os("--json")]).unwrap())
            .unwrap();
    assert_eq!(json["format"], "MDL");
    assert_eq!(json["header"]["numverts"], 6);
    assert_eq!(json["frames"][1]["count"], 3);
    assert_eq!(json["skins"][1]["images"], 2);
    assert_eq!(json["animations"][2]["name"], "burn");
    assert_eq!(json["poses"].as_array().unwrap().len(), 6);
}

#[test]
fn an_mdls_obj_has_a_texcoord_per_welded_corner() {
    let (model, path) = mdl_file("seam-obj.mdl");
    let text = run(&[&path.into_os_string(), &os("--obj"), &os("2")]).unwrap();
    let count = |prefix: &str| text.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(count("v "), 6);
    assert_eq!(count("vn "), 6);
    assert_eq!(count("vt "), model.corners().len());
    assert_eq!(count("f "), 4);
    assert!(text.contains("pose 2 (\"flick2\")"), "{text}");
}

#[test]
fn convert_writes_the_other_format_and_says_what_it_lost() {
    let (mdl, path) = mdl_file("seam-convert.mdl");
    let dir = path.parent().unwrap();
    let out = dir.join("seam-converted.md2");
    let text = run_to(&path, "--convert", &out).unwrap();
    assert!(text.contains("positions: up to 0.0000 units off"), "{text}");
    assert!(
        text.contains("frame group(s) became plain frames"),
        "{text}"
    );
    let md2 = Md2Model::open(&out).unwrap();
    assert_eq!(md2.keyframes().frame_count(), mdl.frame_count());
    for i in 0..3 {
        assert!(dir.join(format!("seam-converted_{i}.png")).is_file());
    }
    // And back: an MD2 becomes an MDL on one grid.
    let back = dir.join("seam-back.mdl");
    let text = run_to(&out, "--convert", &back).unwrap();
    assert!(text.contains("one grid for all 6 frames"), "{text}");
    let again = md2_wgpu::format::mdl::MdlModel::open(&back).unwrap();
    assert_eq!(again.frame_count(), 6);
    // The same format is refused, with the way round said.
    let error = run(&[&path.into_os_string(), &os("--convert"), &os("x.mdl")]).unwrap_err();
    assert!(error.contains("an MDL becomes .md2"), "{error}");
}

/// md2info's `--gltf` of `path` into `path` with `.glb`: what it
/// printed, and the GLB.
fn gltf_of(path: &Path) -> (String, Vec<u8>) {
    let out = path.with_extension("glb");
    let text = run_to(path, "--gltf", &out).unwrap();
    (text, std::fs::read(&out).unwrap())
}

#[test]
fn an_mdl_exports_to_gltf_with_its_groups_rates() {
    let (_, path) = mdl_file("seam-gltf.mdl");
    let (text, glb) = gltf_of(&path);
    assert!(text.contains("the MDL file"), "{text}");
    assert!(text.contains("3 animations"), "{text}");
    assert!(glb.starts_with(b"glTF"));
}

/// The Quake III model built in code (two frames, tags `tag_head` and
/// `tag_weapon`, surfaces `body` and `cap_1`) written to a file of its
/// own.
fn md3_file(name: &str) -> (Md3Model, PathBuf) {
    let model = common::tiny_md3();
    let path = write_file(name, &model.to_bytes());
    (model, path)
}

#[test]
fn an_md3_is_summarised_with_its_frames_tags_and_surfaces() {
    let text = run(&[&md3_file("tiny.md3").1.into_os_string()]).unwrap();
    says_all(
        &text,
        &[
            "(Quake III MD3)",
            "ident       IDP3",
            "name        models/tiny/tiny.md3",
            "numFrames   2",
            "numSurfaces 2",
            // The farthest corners: (4, 4, 6) in frame 0, (4, 4, 7) in 1.
            "frames: 2 (idle1 .. idle2), bounds radius 8.246 to 9",
            "tags: 2 a frame, in frame 0:",
            "tag_head    at (2, 2, 7)",
            "tag_weapon  at (4, 0, 3)",
            "surfaces: 2",
            "body   4 vertices, 2 triangles; shaders: models/tiny/body.tga",
            "cap_1  3 vertices, 1 triangle; shaders: models/tiny/cap, models/tiny/cap_glow",
            "warnings: 0",
        ],
    );
}

#[test]
fn an_md3s_json_has_its_header_frames_tags_surfaces_and_warnings() {
    let (model, path) = md3_file("tiny-json.md3");
    let text = run(&[&path.into_os_string(), &os("--json")]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(
        keys,
        ["format", "frames", "header", "surfaces", "tags", "warnings"]
    );
    assert_eq!(v["format"], "MD3");
    let header = &v["header"];
    assert_eq!(header.as_object().unwrap().len(), 12);
    assert_eq!(header["ident"], "IDP3");
    assert_eq!(header["version"], 15);
    assert_eq!(header["name"], "models/tiny/tiny.md3");
    assert_eq!(header["numFrames"], 2);
    assert_eq!(header["numTags"], 2);
    assert_eq!(header["ofsEnd"], model.header().ofs_end);
    assert_eq!(v["frames"], 2);
    assert_eq!(v["tags"], serde_json::json!(["tag_head", "tag_weapon"]));
    assert_eq!(
        v["surfaces"],
        serde_json::json!([
            {"name": "body", "vertices": 4, "triangles": 2, "shaders": ["models/tiny/body.tga"]},
            {"name": "cap_1", "vertices": 3, "triangles": 1,
             "shaders": ["models/tiny/cap", "models/tiny/cap_glow"]},
        ])
    );
    assert_eq!(v["warnings"], serde_json::json!([]));
}

#[test]
fn an_md3s_obj_has_every_surface_of_the_frame() {
    let (model, path) = md3_file("tiny-obj.md3");
    let text = run(&[&path.clone().into_os_string(), &os("--obj"), &os("1")]).unwrap();
    let Obj { v, vn, vt, faces } = parse_obj(&text);
    let vertices: usize = model.surfaces().iter().map(|s| s.vertex_count()).sum();
    let triangles: usize = model.surfaces().iter().map(|s| s.triangles().len()).sum();
    assert_eq!((vertices, triangles), (7, 3));
    assert_eq!((v.len(), vn.len(), vt.len()), (7, 7, 7));
    assert_eq!(faces.len(), 3);
    says_all(
        &text,
        &[
            "o body",
            "g body",
            "o cap_1",
            "g cap_1",
            "frame 1 (\"idle2\")",
        ],
    );
    // Frame 1's positions in Quake units, its normals and each surface's
    // st with t flipped, surface after surface.
    let mut i = 0;
    for surface in model.surfaces() {
        let verts = surface.frame_vertices(1);
        for (vertex, [s, t]) in verts.iter().zip(surface.tex_coords()) {
            assert_eq!(v[i], vertex.position().to_vec(), "v {i}");
            assert_eq!(vn[i], vertex.normal_vector().to_vec(), "vn {i}");
            assert_eq!(vt[i], [*s, 1.0 - t], "vt {i}");
            i += 1;
        }
    }
    assert_eq!(v[0], [0.0f32, 0.0, 1.0], "frame 1 lifts the body a unit");
    // Each triangle's corners reversed, as MD2's are; the cap's numbered
    // after the body's four vertices.
    assert_eq!(
        faces,
        [
            vec![(1, 1), (3, 3), (2, 2)],
            vec![(1, 1), (4, 4), (3, 3)],
            vec![(5, 5), (6, 6), (7, 7)],
        ]
    );
    let err = run(&[&path.into_os_string(), &os("--obj"), &os("2")]).unwrap_err();
    assert!(
        err.contains("no frame 2") && err.contains("(0..=1)"),
        "{err}"
    );
}

#[test]
fn options_an_md3_has_no_answer_for_are_one_line_errors() {
    let (_, path) = md3_file("tiny-refused.md3");
    let file = path.clone().into_os_string();
    let out = path.with_extension("out").into_os_string();
    let cases: [(&[&OsString], &str); 5] = [
        (
            &[&file, &os("--gltf"), &out, &os("--quantize")],
            "--quantize does not apply to an MD3",
        ),
        (&[&file, &os("--convert"), &out], "--convert does not apply"),
        (&[&file, &os("--levels"), &out], "--levels does not apply"),
        (&[&file, &os("--palette"), &out], "--palette does not apply"),
        (
            &[&file, &os("--skin"), &os("red")],
            "--skin goes with --gltf",
        ),
    ];
    refused_in_one_line(&cases);
    // The binary exits 1 with the one message, and writes nothing.
    let refused = Command::new(md2info_binary())
        .arg(&path)
        .arg("--convert")
        .arg(path.with_extension("mdl"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(refused.stdout.is_empty());
    let err = String::from_utf8(refused.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("md2info: --convert does not apply"),
        "{err}"
    );
    assert!(!path.with_extension("mdl").exists());
}

#[test]
fn an_md3_and_a_players_folder_export_to_gltf() {
    let (model, path) = md3_file("tiny-gltf.md3");
    let (text, glb) = gltf_of(&path);
    assert!(text.starts_with("wrote "), "{text}");
    let g = gltf::Gltf::from_slice(&glb).expect("a valid glTF");
    let mesh = g.meshes().next().expect("a mesh");
    let targets = mesh.primitives().next().unwrap().morph_targets().count();
    assert_eq!(targets, model.frames().len());

    // A player: its parts joined at their tags, its animations by name.
    let (text, glb) = gltf_of(&tiny_player_dir("tiny-player-gltf"));
    assert!(text.starts_with("wrote "), "{text}");
    says_all(
        &text,
        &[
            "embedded texture models/players/tiny/legs.tga from legs.tga (1x1)",
            "embedded texture models/players/tiny/head.jpg from head.tga (1x1)",
            "did not embed texture models/players/tiny/torso: not found in",
            "(tried models/players/tiny/torso.tga, models/players/tiny/torso.jpg)",
        ],
    );
    let g = gltf::Gltf::from_slice(&glb).expect("a valid glTF");
    assert_eq!(g.images().count(), 2);
    let textured: Vec<_> = g
        .materials()
        .filter(|m| m.pbr_metallic_roughness().base_color_texture().is_some())
        .filter_map(|m| m.name().map(str::to_owned))
        .collect();
    assert_eq!(
        textured,
        [
            "models/players/tiny/legs.tga",
            "models/players/tiny/head.jpg"
        ]
    );
    let names: Vec<_> = g
        .nodes()
        .filter_map(|n| n.name().map(str::to_owned))
        .collect();
    for node in ["tag_torso", "tag_head", "tag_weapon"] {
        assert!(names.iter().any(|n| n == node), "{node} in {names:?}");
    }
    assert!(
        g.animations().any(|a| a.name() == Some("TORSO_STAND")),
        "the animations are named"
    );
}

/// The tiny player's files (`md2_wgpu_tests::tiny_player_files`) in the
/// folder `name` (one a test: they run at once), with `TORSO_STAND` looping only its last frame,
/// `legs.tga` beside them and `head.tga` for the head's `head.jpg` (1 × 1
/// images; the torso's texture is not there).
fn tiny_player_dir(name: &str) -> PathBuf {
    let dir = tmp_dir().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in common::tiny_player_files() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let mut lines = vec!["0 2 2 10"; 25];
    lines[PlayerAnimation::TorsoStand.index()] = "0 2 1 10";
    std::fs::write(dir.join("animation.cfg"), lines.join("\n")).unwrap();
    // Two pictures, red legs and a magenta head: alike ones would be
    // embedded as one image.
    for (texture, blue) in [("legs.tga", 0), ("head.tga", 255)] {
        let mut tga = TINY_TGA.to_vec();
        tga[18] = blue;
        std::fs::write(dir.join(texture), tga).unwrap();
    }
    dir
}

/// A 1 × 1 uncompressed 32-bit TGA (top-left origin) of one red texel.
const TINY_TGA: &[u8] = &[
    0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 32, 0x28, // header
    0, 0, 255, 255, // BGRA
];

#[test]
fn a_players_folder_is_described_part_by_part() {
    let dir = tiny_player_dir("tiny-player");
    let text = run(&[&dir.into_os_string()]).unwrap();
    says_all(
        &text,
        &[
            "(Quake III player, skin set \"default\")",
            "lower.md3: 2 frames, tags [tag_torso], 1 surface; skin lower_default.skin",
            "upper.md3: 2 frames, tags [tag_head, tag_weapon], 1 surface",
            "l_legs    4 vertices, 2 triangles",
            "texture models/players/tiny/legs.tga: legs.tga is in the folder",
            "texture models/players/tiny/torso: not in the folder (tried \
         models/players/tiny/torso.tga, models/players/tiny/torso.jpg",
            "texture models/players/tiny/head.jpg: head.tga is in the folder",
            "animations: 31",
            "lower.md3 tag_torso holds upper.md3",
            "upper.md3 tag_head holds head.md3",
            "upper.md3 tag_weapon holds the weapon",
            "standing (LEGS_IDLE at lower.md3's frame 0, TORSO_STAND at upper.md3's frame 0):",
            // tag_torso at (0, 0, 10) turned a quarter: the torso's (1, 0, 5)
            // and (3, -2, 4) land at (0, 1, 15) and (2, 3, 14).
            "torso  at (0, 0, 10)",
            "head   at (0, 1, 15)",
            "weapon at (2, 3, 14)",
            "warnings: 0",
        ],
    );
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
            .to_owned()
    };
    let idle = line("LEGS_IDLE");
    for want in [
        "legs",
        "frames   0..1",
        "10 fps: a frame each 100 ms",
        "loops",
    ] {
        assert!(idle.contains(want), "{want:?}: {idle}");
    }
    assert!(line("BOTH_DEATH1").contains(" both "), "{text}");
    assert!(
        line("TORSO_STAND")
            .contains("loops its last 1); the game loops its last 1 frame; the clip plays once"),
        "{text}"
    );
    assert!(
        line("TORSO_GETFLAG").contains("not in the file: TORSO_GESTURE's"),
        "{text}"
    );
}

#[test]
fn a_players_json_has_its_parts_animations_tags_and_pose() {
    let dir = tiny_player_dir("tiny-player-json");
    let text = run(&[&dir.into_os_string(), &os("--json")]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["format"], "MD3 player");
    assert_eq!(v["skin"], "default");
    let parts = v["parts"].as_array().unwrap();
    let names: Vec<&str> = parts.iter().map(|p| p["part"].as_str().unwrap()).collect();
    assert_eq!(names, ["lower", "upper", "head"]);
    assert_eq!(
        parts[1]["tags"],
        serde_json::json!(["tag_head", "tag_weapon"])
    );
    let surface = |k: usize| &parts[k]["surfaces"][0];
    assert_eq!(surface(0)["name"], "l_legs");
    assert_eq!(surface(0)["vertices"], 4);
    assert_eq!(surface(0)["found"], "legs.tga");
    assert_eq!(surface(1)["found"], serde_json::Value::Null);
    assert_eq!(surface(2)["texture"], "models/players/tiny/head.jpg");
    assert_eq!(surface(2)["found"], "head.tga");
    let animations = v["animations"].as_array().unwrap();
    assert_eq!(animations.len(), PlayerAnimation::ALL.len());
    let animation = |name: &str| {
        animations
            .iter()
            .find(|a| a["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    // The fields the test reads of an animation, as one object.
    let fields = |name: &str| {
        let a = animation(name);
        let keys = [
            "part", "first", "last", "fps", "frame_ms", "looping", "exact",
        ];
        serde_json::Value::Object(keys.iter().map(|&k| (k.into(), a[k].clone())).collect())
    };
    assert_eq!(
        fields("LEGS_IDLE"),
        serde_json::json!({"part": "legs", "first": 0, "last": 1, "fps": 10.0,
                           "frame_ms": 100, "looping": true, "exact": true})
    );
    assert_eq!(
        fields("TORSO_STAND"),
        serde_json::json!({"part": "torso", "first": 0, "last": 1, "fps": 10.0,
                           "frame_ms": 100, "looping": false, "exact": false})
    );
    let stand = animation("TORSO_STAND");
    assert_eq!(stand["notes"].as_array().unwrap().len(), 1);
    assert_eq!(animation("BOTH_DEAD2")["part"], "both");
    assert_eq!(
        v["tags"][0],
        serde_json::json!({"part": "lower", "tag": "tag_torso", "holds": "upper.md3", "present": true})
    );
    let standing = &v["standing"];
    assert_eq!(standing["legs_frame"], 0);
    assert_eq!(standing["torso"], serde_json::json!([0.0, 0.0, 10.0]));
    assert_eq!(standing["head"], serde_json::json!([0.0, 1.0, 15.0]));
    assert_eq!(standing["weapon"], serde_json::json!([2.0, 3.0, 14.0]));
    assert_eq!(v["warnings"], serde_json::json!([]));
}

#[test]
fn a_players_folder_refuses_what_it_has_no_answer_for() {
    let dir = tiny_player_dir("tiny-player-refused").into_os_string();
    let empty = tmp_dir().join("not-a-player");
    std::fs::create_dir_all(&empty).unwrap();
    let empty = empty.into_os_string();
    let cases: [(&[&OsString], &str); 5] = [
        (&[&dir, &os("--skin"), &os("red")], "lower_red.skin"),
        (&[&dir, &os("--skin"), &os("../x")], "skin name"),
        (
            &[&dir, &os("--obj"), &os("0")],
            "--obj does not apply to a Quake III player",
        ),
        (
            &[&dir, &os("--convert"), &os("x.mdl")],
            "--convert does not apply",
        ),
        (&[&empty], "lower.md3: no such file"),
    ];
    refused_in_one_line(&cases);
}

/// The shared OpenArena players (`../shared/md3`), each described as a
/// folder, as JSON and model by model; their OBJ faces are
/// counter-clockwise seen from outside, as the module's docs say.
#[test]
fn the_shared_players_are_described() {
    let Some(shared) = common::shared_md3_dir() else {
        return;
    };
    for name in ["major", "penguin"] {
        let dir = shared.join(name);
        if !dir.is_dir() {
            eprintln!("skipping {}: absent", dir.display());
            continue;
        }
        let text = run(&[&dir.clone().into_os_string()]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(text.contains("(Quake III player"), "{text}");
        assert!(text.contains("standing (LEGS_IDLE"), "{text}");
        // Every texture is beside the models (penguin's head.jpg as
        // skin.tga), as tests/md3.rs checks.
        assert!(!text.contains("not in the folder"), "{text}");
        let json = run(&[&dir.clone().into_os_string(), &os("--json")]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["animations"].as_array().unwrap().len(), 31, "{name}");
        assert!(
            v["standing"]["head"].is_array(),
            "{name}: {}",
            v["standing"]
        );
        for part in PlayerPart::ALL {
            let file = dir.join(part.model_file()).into_os_string();
            let text = run(&[&file]).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(text.contains("(Quake III MD3)"), "{text}");
            let obj = parse_obj(&run(&[&file, &os("--obj"), &os("0")]).unwrap());
            let inwards = faces_inwards(&obj.v, &obj.vn, &obj.faces);
            // 16 of 2,892 triangles (1% of a part at most) point against
            // their normals.
            assert!(
                inwards.len() * 50 < obj.faces.len(),
                "{name} {part}: {} of {} faces inwards",
                inwards.len(),
                obj.faces.len()
            );
        }
    }
}

#[test]
fn demo_writes_a_player_and_its_gun_that_load() {
    let root = tmp_dir().join("demo-tree/");
    let out = run(&[&os("--demo"), &root.clone().into_os_string()]).unwrap();
    says_all(&out, &["models/players/demo", "models/weapons/demo"]);
    let dir = root.join(md2_wgpu::demo::DEMO_PLAYER_DIR);
    for skin in md2_wgpu::demo::DEMO_PLAYER_SKINS {
        let player = md2_wgpu::format::md3::Md3Player::open(&dir, skin).unwrap();
        assert_eq!(player.skin_name(), skin);
    }
    // The folder summarised as any player's is.
    let summary = run(&[&dir.clone().into_os_string()]).unwrap();
    says_all(
        &summary,
        &["l_legs", "u_torso", "h_head", "tag_weapon", "LEGS_RUN"],
    );
    let gun = root.join(md2_wgpu::demo::DEMO_WEAPON_DIR).join("gun.md3");
    let model = md2_wgpu::format::md3::Md3Model::open(&gun).unwrap();
    assert_eq!(model.surfaces()[0].name(), "w_gun");
    assert!(
        root.join(md2_wgpu::demo::DEMO_WEAPON_DIR)
            .join("gun.tga")
            .is_file()
    );
}

#[test]
fn demo_writes_the_skinned_soldier_as_a_glb() {
    let path = tmp_dir().join("demo-skinned.glb");
    let out = run(&[&os("--demo"), &path.clone().into_os_string()]).unwrap();
    says_all(&out, &["skinned glTF", "15 joints"]);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes, md2_wgpu::demo::demo_skinned_glb());
    let refused = run(&[&os("--demo"), &tmp_dir().join("demo.obj").into_os_string()]);
    says_all(&refused.unwrap_err(), &[".md2", ".mdl", ".glb"]);
}
