//! Every WGSL file in shaders/ parses and validates with naga, so a shader
//! error fails `cargo test` on any machine, GPU or not.

use std::fs;
use std::path::{Path, PathBuf};

fn shader_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gpu/shader");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "wgsl"))
        .collect();
    files.sort();
    files
}

fn parse_and_validate(path: &Path) -> naga::Module {
    let source =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| {
        panic!(
            "{}",
            e.emit_to_string_with_path(&source, &path.display().to_string())
        )
    });
    // Default capabilities: the shaders must not need anything beyond what
    // every WebGPU-class adapter offers.
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| {
        panic!(
            "{}",
            e.emit_to_string_with_path(&source, &path.display().to_string())
        )
    });
    module
}

#[test]
fn every_wgsl_file_parses_and_validates() {
    let files = shader_files();
    assert!(!files.is_empty(), "no .wgsl files found in shaders/");
    for path in &files {
        parse_and_validate(path);
    }
}

fn has_entry_point(module: &naga::Module, name: &str, stage: naga::ShaderStage) -> bool {
    module
        .entry_points
        .iter()
        .any(|ep| ep.name == name && ep.stage == stage)
}

#[test]
fn md2_shader_has_the_entry_points_the_renderer_uses() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gpu/shader/md2.wgsl");
    let module = parse_and_validate(&path);
    assert!(has_entry_point(
        &module,
        "vs_main",
        naga::ShaderStage::Vertex
    ));
    assert!(has_entry_point(
        &module,
        "fs_main",
        naga::ShaderStage::Fragment
    ));
    assert!(has_entry_point(
        &module,
        "fs_main_linear_target",
        naga::ShaderStage::Fragment
    ));
    assert!(has_entry_point(
        &module,
        "cs_capture",
        naga::ShaderStage::Compute
    ));
}

#[test]
fn shader_fallback_normal_index_matches_the_crate() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gpu/shader/md2.wgsl");
    let module = parse_and_validate(&path);
    let (_, constant) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some("FALLBACK_NORMAL_INDEX"))
        .expect("md2.wgsl declares FALLBACK_NORMAL_INDEX");
    match module.global_expressions[constant.init] {
        naga::Expression::Literal(naga::Literal::U32(value)) => assert_eq!(
            value,
            u32::from(md2_wgpu::FALLBACK_NORMAL_INDEX),
            "the shader and the CPU reference must read a bad normal index the same way"
        ),
        ref other => panic!("FALLBACK_NORMAL_INDEX is not a u32 literal: {other:?}"),
    }
}

/// The crowd benchmark's baselines are not a module of their own: the
/// benchmark appends them to md2.wgsl so they shade with its very code.
#[test]
fn crowd_baselines_validate_appended_to_md2() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |name: &str| {
        let path = root.join(name);
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
    };
    let source = read("src/gpu/shader/md2.wgsl") + &read("benches/crowd/baselines.wgsl.part");
    let name = "md2.wgsl + crowd_baselines.wgsl.part";
    let module = naga::front::wgsl::parse_str(&source)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string_with_path(&source, name)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{}", e.emit_to_string_with_path(&source, name)));
    assert!(has_entry_point(
        &module,
        "vs_static",
        naga::ShaderStage::Vertex
    ));
    assert!(has_entry_point(
        &module,
        "vs_posed",
        naga::ShaderStage::Vertex
    ));
}
