//! The exports checked by other people's code, in node: the Khronos
//! glTF-Validator must find no error and no warning, and three.js's
//! GLTFLoader and AnimationMixer must pose every vertex where the crate's
//! CPU reference puts it.
//!
//! Node and the npm packages (`.ci/node/package.json`; .ci/run installs
//! them into `.ci/node/node_modules`, which git ignores) are found or the
//! tests skip, loudly; with MD2_REQUIRE_NODE=1 (as CI sets) they fail
//! instead.

use std::path::{Path, PathBuf};
use std::process::Command;

use md2_wgpu::gltf::{GltfOptions, KeyInterpolation};
use md2_wgpu::{
    Clip,
    anim::{FrameLerp, reference},
    mesh::{RenderMesh, TriangleOrder},
};

use crate::cases::{self, Case, exported};

/// `node` and the folder holding `three` and `gltf-validator`, or `None`
/// with the reason printed (a failure under MD2_REQUIRE_NODE=1).
fn node_tools() -> Option<PathBuf> {
    let modules = crate::common::workspace_dir().join(".ci/node/node_modules");
    let node = Command::new("node").arg("--version").output();
    let missing = match node {
        Err(e) => Some(format!("node does not run ({e})")),
        Ok(out) if !out.status.success() => Some("node --version failed".to_owned()),
        Ok(_) => ["three", "gltf-validator"]
            .into_iter()
            .find(|p| !modules.join(p).join("package.json").is_file())
            .map(|p| {
                format!(
                    "{} is not installed (npm ci --prefix .ci/node, as .ci/run does)",
                    modules.join(p).display()
                )
            }),
    };
    match missing {
        None => Some(modules),
        Some(why) if std::env::var_os("MD2_REQUIRE_NODE").is_some_and(|v| v == "1") => {
            panic!("MD2_REQUIRE_NODE=1 but {why}")
        }
        Some(why) => {
            eprintln!("skipping the node checks of the glTF export: {why}");
            None
        }
    }
}

/// [`node_tools`]'s folder and the output folder `what` of a test that
/// runs node, or `None` where it skips.
pub fn node_and_out_dir(what: &str) -> Option<(PathBuf, PathBuf)> {
    Some((node_tools()?, cases::out_dir(what)))
}

/// Runs a script of tests/gltf in node; its stdout's lines as JSON.
fn run_script(script: &str, args: &[&Path]) -> Vec<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("gltf")
        .join(script);
    let out = Command::new("node")
        .arg(&path)
        .args(args)
        .output()
        .expect("node runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script} failed: {stderr}");
    if !stderr.trim().is_empty() {
        eprintln!("{script} said on stderr:\n{stderr}");
    }
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{script}: {e}: {l}")))
        .collect()
}

/// Float and quantised exports, the name saying which.
fn variants() -> [(&'static str, GltfOptions); 2] {
    [
        ("float", GltfOptions::DEFAULT),
        ("quantized", GltfOptions::DEFAULT.quantized()),
    ]
}

#[test]
fn the_khronos_validator_finds_no_error_and_no_warning() {
    let Some((modules, dir)) = node_and_out_dir("validator") else {
        return;
    };
    let mut files = Vec::new();
    for case in cases::all() {
        for (what, options) in variants() {
            let path = dir.join(cases::file_name(&case.name, &format!("-{what}.glb")));
            std::fs::write(&path, case.export(&options).glb).unwrap();
            files.push(path);
        }
    }
    // Held keys, and more than one skin (material variants), on the demo.
    let demo = cases::demo();
    let step = GltfOptions::DEFAULT.with_interpolation(KeyInterpolation::Step);
    let path = dir.join("demo-step.glb");
    std::fs::write(&path, demo.export(&step).glb).unwrap();
    files.push(path);
    let two_skins = md2_wgpu::gltf::to_glb(
        &demo.model,
        &[demo.skins[0].clone(), demo.skins[0].clone()],
        &GltfOptions::DEFAULT.quantized(),
    )
    .unwrap();
    let path = dir.join("demo-two-skins.glb");
    std::fs::write(&path, two_skins.glb).unwrap();
    files.push(path);

    let bad = validator_complaints(&modules, &files);
    assert!(
        bad.is_empty(),
        "the validator complained:\n{}",
        bad.join("\n")
    );
}

/// Runs the Khronos glTF-Validator on `files`, printing a line for each;
/// the files it found an error or a warning in, with its messages.
pub fn validator_complaints(modules: &Path, files: &[PathBuf]) -> Vec<String> {
    let mut args = vec![modules];
    args.extend(files.iter().map(PathBuf::as_path));
    let reports = run_script("validate.mjs", &args);
    assert_eq!(reports.len(), files.len());
    let mut bad = Vec::new();
    for r in &reports {
        let name = Path::new(r["file"].as_str().unwrap())
            .file_name()
            .unwrap()
            .to_string_lossy();
        let count = |k: &str| r[k].as_u64().unwrap();
        let mut codes: Vec<String> = r["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| format!("{} ({})", m["code"].as_str().unwrap(), m["pointer"]))
            .collect();
        codes.dedup();
        eprintln!(
            "{name:<48} validator {}: {} errors, {} warnings, {} infos, {} hints {}",
            r["version"].as_str().unwrap_or("?"),
            count("errors"),
            count("warnings"),
            count("infos"),
            count("hints"),
            codes.iter().take(6).cloned().collect::<Vec<_>>().join(", ")
        );
        if count("errors") + count("warnings") > 0 {
            bad.push(format!("{name}: {}", r["messages"]));
        }
    }
    bad
}

/// When to look at a clip: inside and across keyframes, on a key, across
/// the loop's wrap and loops later for a looping clip, the last blend and
/// long after the end for a one-shot one.
fn sample_times(clip: &Clip) -> Vec<f64> {
    let d = 1.0 / f64::from(clip.fps);
    let len = clip.len() as f64;
    let mut times = vec![0.0, 0.25 * d, 0.5 * d, d, (len / 2.0).floor() * d + 0.6 * d];
    if clip.looping {
        times.extend([(len - 1.0 + 0.4) * d, len * d + 0.3 * d, 3.7 * len * d]);
    } else {
        times.extend([(len - 2.0 + 0.7).max(0.1) * d, (len - 1.0) * d + 5.0]);
    }
    times
}

/// The crate's pose of `case` playing `clip` at `time`, at every corner, in
/// glTF's axes and units: `reference::interpolate` of what `Clip` samples
/// (held on `frame_a` for step keys).
fn expected(
    case: &Case,
    mesh: &RenderMesh,
    clip: &Clip,
    time: f64,
    step: bool,
    out: &mut Vec<f32>,
) {
    let n = case.model.vertex_count();
    let (mut p, mut nn) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let mut lerp = clip.sample(time);
    if step {
        lerp = FrameLerp::still(lerp.frame_a);
    }
    reference::interpolate(&case.model, lerp, &mut p, &mut nn).unwrap();
    for c in mesh.corners() {
        out.extend(exported(p[c.xyz as usize], 1.0));
    }
}

#[test]
fn three_js_plays_every_animation_as_the_crate_does() {
    let Some((modules, dir)) = node_and_out_dir("three") else {
        return;
    };
    let mut cases_json = Vec::new();
    let mut tolerances = std::collections::HashMap::new();
    let demo_step = (
        "step",
        GltfOptions::DEFAULT.with_interpolation(KeyInterpolation::Step),
    );
    for case in cases::all() {
        let mut runs: Vec<(&str, GltfOptions)> = variants().into();
        if case.name == "demo" {
            runs.push(demo_step.clone());
        }
        for (what, options) in runs {
            let step = options.interpolation == KeyInterpolation::Step;
            let export = case.export(&options);
            let name = format!("{} {what}", case.name);
            let glb = dir.join(cases::file_name(&case.name, &format!("-{what}.glb")));
            std::fs::write(&glb, &export.glb).unwrap();
            let mesh = RenderMesh::new(&case.model, TriangleOrder::VertexCache);
            let mut floats = Vec::new();
            let mut clips = Vec::new();
            for clip in Clip::for_model(&case.model) {
                let mut times = sample_times(&clip);
                if step {
                    // Held keys jump at a key, whose time glTF stores as an
                    // f32 (0.1 is 0.10000000149): on the key itself either
                    // side is right. Keep the times between keys.
                    let fps = f64::from(clip.fps);
                    times.retain(|&t| t == 0.0 || ((t * fps) - (t * fps).round()).abs() > 1e-3);
                }
                let offset = floats.len();
                for &t in &times {
                    expected(&case, &mesh, &clip, t, step, &mut floats);
                }
                clips.push(serde_json::json!({
                    "name": &*clip.name, "looping": clip.looping, "times": times, "offset": offset,
                }));
            }
            let expected_path = dir.join(cases::file_name(&case.name, &format!("-{what}.f32")));
            let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
            std::fs::write(&expected_path, bytes).unwrap();
            // Float: 1e-3 model units. Quantised: the error the export
            // reports (every pose is a blend of two stored frames), plus
            // what f32 key times and weights add.
            let tolerance = match export.report.quantization {
                None => 1e-3,
                Some(q) => f64::from(q.max_position_error) + 1e-4,
            };
            tolerances.insert(name.clone(), tolerance);
            cases_json.push(serde_json::json!({
                "name": name, "glb": glb, "expected": expected_path,
                "corners": mesh.corners().len(), "clips": clips,
            }));
        }
    }
    let manifest = dir.join("manifest.json");
    std::fs::write(
        &manifest,
        serde_json::json!({ "cases": cases_json }).to_string(),
    )
    .unwrap();
    let lines = run_script("play.mjs", &[modules.as_path(), manifest.as_path()]);
    let mut worst: std::collections::BTreeMap<String, (f64, usize, String)> = Default::default();
    let mut bad = Vec::new();
    for l in &lines {
        let case = l["case"].as_str().unwrap().to_owned();
        let clip = l["clip"].as_str().unwrap();
        if let Some(e) = l.get("error") {
            bad.push(format!("{case} {clip}: {e}"));
            continue;
        }
        // A missing figure (a NaN became null in JSON) is as far off as it gets.
        let diff = l["max_diff"].as_f64().unwrap_or(f64::INFINITY);
        let samples = l["samples"].as_u64().unwrap() as usize;
        let tolerance = tolerances[&case];
        if diff > tolerance {
            bad.push(format!(
                "{case} {clip}: off by {diff:.3e} > {tolerance:.3e}: {}",
                l["worst"]
            ));
        }
        let entry = worst.entry(case).or_insert((0.0, 0, String::new()));
        entry.1 += samples;
        if diff >= entry.0 {
            entry.0 = diff;
            entry.2 = clip.to_owned();
        }
    }
    assert_eq!(
        worst.len(),
        tolerances.len(),
        "every case played: {lines:?}"
    );
    for (case, (diff, samples, clip)) in &worst {
        eprintln!(
            "{case:<48} three.js vs the crate: largest difference {diff:.2e} model units \
             ({clip}), {samples} poses, allowed {:.2e}",
            tolerances[case]
        );
    }
    assert!(bad.is_empty(), "three.js disagrees:\n{}", bad.join("\n"));
}
