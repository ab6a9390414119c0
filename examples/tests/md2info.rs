//! md2info: its JSON, its OBJ and its refusals, checked through its own
//! functions, and its exit codes through the built binary (cargo builds it
//! for these tests).

use md2_wgpu_examples::md2info;
use md2_wgpu_tests as common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use md2_wgpu::Md2Model;

/// A generated model (a closed sphere with a texture seam, five frames)
/// written to a file of its own.
fn sphere_file(name: &str) -> (Md2Model, PathBuf) {
    let model = common::sphere(6, 8, 5).model();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("md2info");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, model.to_bytes()).unwrap();
    (model, path)
}

fn garbage_file() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("md2info");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("garbage.md2");
    let bytes: Vec<u8> = (0..500u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(&path, bytes).unwrap();
    path
}

fn run(args: &[&OsString]) -> Result<String, String> {
    let mut out = Vec::new();
    md2info::run(args.iter().map(|a| (*a).clone()), &mut out)?;
    Ok(String::from_utf8(out).expect("UTF-8 output"))
}

fn os(s: &str) -> OsString {
    s.into()
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
    let mut v = Vec::new();
    let mut vn = Vec::new();
    let mut vt = Vec::new();
    let mut faces = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let kind = words.next().unwrap_or("");
        let rest: Vec<&str> = words.collect();
        let nums = || -> Vec<f32> { rest.iter().map(|w| w.parse().unwrap()).collect() };
        match kind {
            "v" => v.push(nums()),
            "vn" => vn.push(nums()),
            "vt" => vt.push(nums()),
            "f" => faces.push(
                rest.iter()
                    .map(|c| {
                        let ix: Vec<usize> = c.split('/').map(|i| i.parse().unwrap()).collect();
                        assert_eq!(ix.len(), 3, "{line}");
                        assert_eq!(ix[0], ix[2], "vn follows v: {line}");
                        (ix[0], ix[1])
                    })
                    .collect::<Vec<_>>(),
            ),
            "#" | "o" => {}
            other => panic!("unexpected OBJ line kind {other:?}: {line}"),
        }
    }
    assert_eq!(v.len(), model.keyframes().vertex_count());
    assert_eq!(vn.len(), model.keyframes().vertex_count());
    assert_eq!(vt.len(), model.tex_coords().len());
    assert_eq!(faces.len(), model.triangles().len());

    let f = &model.keyframes().frames()[frame as usize];
    for (i, p) in model.keyframes().frame_vertices(frame).iter().enumerate() {
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
        let p: Vec<[f32; 3]> = face
            .iter()
            .map(|&(i, _)| [v[i - 1][0], v[i - 1][1], v[i - 1][2]])
            .collect();
        let n = common::cross(common::sub(p[1], p[0]), common::sub(p[2], p[0]));
        let stored: f32 = face
            .iter()
            .map(|&(i, _)| common::dot(n, [vn[i - 1][0], vn[i - 1][1], vn[i - 1][2]]))
            .sum();
        assert!(stored > 0.0, "face {face:?} faces inwards");
    }
}

#[test]
fn the_summary_lists_header_skins_animations_and_warnings() {
    let (_, path) = sphere_file("summary.md2");
    let text = run(&[&path.into_os_string()]).unwrap();
    for want in [
        "ident       IDP2",
        "num_frames  5",
        "models/test/skin.pcx",
        "animations: 1",
        "stand",
        "0..4",
        "warnings: 0",
    ] {
        assert!(text.contains(want), "{want:?} missing from\n{text}");
    }
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
    for (args, want) in cases {
        let err = run(args).unwrap_err();
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains('\n'), "{args:?}: one line: {err}");
    }
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
    for (args, want) in cases {
        let err = run(args).unwrap_err();
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains('\n'), "{args:?}: one line: {err}");
    }
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
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("md2info");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, model.to_bytes()).unwrap();
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

#[test]
fn an_mdl_exports_to_gltf_with_its_groups_rates() {
    let (_, path) = mdl_file("seam-gltf.mdl");
    let out = path.with_extension("glb");
    let text = run_to(&path, "--gltf", &out).unwrap();
    assert!(text.contains("the MDL file"), "{text}");
    assert!(text.contains("3 animations"), "{text}");
    let glb = std::fs::read(&out).unwrap();
    assert!(glb.starts_with(b"glTF"));
}
