//! The contract held by naga: every module of `shaders/` parses and
//! validates with WebGPU's capabilities, every `#[repr(C)]` record equals
//! its WGSL struct field by field, every constant the CPU mirrors equals the
//! shader's, every entry point the crate names exists. A field added on one
//! side only fails `cargo test` on any machine, GPU or not (and without
//! the `wgpu` feature).

use super::bits::*;
use super::buckets::{BUCKETS, MAX_LEVELS, OPAQUE, OPAQUE_MIRRORED, SHELL, TRANSLUCENT};
use super::crowd::*;
use super::records::{ModelInfo, ViewUniform};
use super::wgsl::{CROWD_WGSL, MD2_POSE_WGSL, MD2_RENDERER_WGSL, entry};

/// `source` parsed and validated with default capabilities: nothing beyond
/// what every WebGPU-class adapter offers.
pub(crate) fn parse(name: &str, source: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string_with_path(source, name)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{}", e.emit_to_string_with_path(source, name)));
    module
}

pub(crate) fn renderer() -> naga::Module {
    parse("the render module", MD2_RENDERER_WGSL)
}

pub(crate) fn crowd() -> naga::Module {
    parse("the crowd module", CROWD_WGSL)
}

/// The [`RecordLayout`](crate::checks::RecordLayout) of a Rust struct,
/// to hold against the WGSL struct named `$wgsl`: the host-facing
/// [`record_layout!`](crate::record_layout).
macro_rules! mirror {
    ($($layout:tt)*) => {
        record_layout!($($layout)*)
    };
}
pub(crate) use mirror;

/// Checks `layout` against the struct of that name in `module`
/// ([`check_record`](crate::checks::check_record)), failing the test with
/// what differs.
pub(crate) fn check(module: &naga::Module, layout: &crate::checks::RecordLayout) {
    if let Err(e) = crate::checks::check_record(module, layout) {
        panic!("{e}");
    }
}

/// The shader locations of the members of struct `name` in `module`.
pub(crate) fn locations(module: &naga::Module, name: &str) -> Vec<u32> {
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no struct {name}"));
    let naga::TypeInner::Struct { members, .. } = &ty.inner else {
        panic!("{name} is not a struct");
    };
    members
        .iter()
        .map(|m| match m.binding {
            Some(naga::Binding::Location { location, .. }) => location,
            ref other => panic!("{other:?}"),
        })
        .collect()
}

pub(crate) fn has_entry_point(module: &naga::Module, name: &str, stage: naga::ShaderStage) -> bool {
    module
        .entry_points
        .iter()
        .any(|ep| ep.name == name && ep.stage == stage)
}

fn constant(module: &naga::Module, name: &str) -> naga::Literal {
    let (_, c) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no constant {name}"));
    match module.global_expressions[c.init] {
        naga::Expression::Literal(l) => l,
        ref other => panic!("{name} is not a literal: {other:?}"),
    }
}

fn u32_constant(module: &naga::Module, name: &str) -> u32 {
    match constant(module, name) {
        naga::Literal::U32(v) => v,
        other => panic!("{name} is not a u32: {other:?}"),
    }
}

pub(crate) fn f32_constant(module: &naga::Module, name: &str) -> f32 {
    match constant(module, name) {
        naga::Literal::F32(v) => v,
        other => panic!("{name} is not an f32: {other:?}"),
    }
}

#[test]
fn the_pose_module_stands_alone() {
    let pose = parse("MD2_POSE_WGSL", MD2_POSE_WGSL);
    check(
        &pose,
        &mirror!(
            ModelInfo,
            "Md2ModelInfo",
            [num_xyz, num_frames, flags, padding_b]
        ),
    );
}

#[test]
fn every_wgsl_struct_the_cpu_touches_matches_its_mirror() {
    let renderer = renderer();
    let crowd = crowd();
    let view = mirror!(
        ViewUniform,
        "Md2View",
        [
            view_proj,
            previous_view_proj,
            jitter,
            shadow_proj,
            towards_light,
            light_color,
            ambient,
            shadow_color,
            depth_row,
            flags,
            level
        ]
    );
    check(&renderer, &view);
    check(&crowd, &view);
    check(
        &crowd,
        &mirror!(
            CrowdParams,
            "CrowdParams",
            [
                count,
                levels,
                flags,
                groups,
                clips_at,
                generation,
                _pad0,
                _pad1,
                level_first,
                level_count,
                level_error,
                level_sphere
            ]
        ),
    );
    check(
        &crowd,
        &mirror!(
            MotionRecord,
            "MemberMotion",
            [
                previous_rows,
                previous_frames,
                changed_at,
                flags_id,
                previous_lerp,
                _pad
            ]
        ),
    );
    check(&crowd, &mirror!(SortStep, "SortStep", [k, j, region, _pad]));
    check(
        &crowd,
        &mirror!(
            CrowdFrame,
            "CrowdFrame",
            [now, flags, _pad0, previous, _pad1, _pad2]
        ),
    );
}

/// The crowd benchmark's baselines are the render module with vertex stages
/// appended (so they shade with the crate's own code): validated here, so
/// a change to the shaders that breaks them fails `cargo test`, not only a
/// benchmark run.
#[test]
fn the_benchmark_baselines_validate_appended_to_the_render_module() {
    let source = format!(
        "{MD2_RENDERER_WGSL}\n{}",
        include_str!("../../benches/crowd/baselines.wgsl.part")
    );
    let module = parse("the render module + baselines.wgsl.part", &source);
    for name in ["vs_static", "vs_posed", "vs_morph_loop", "vs_morph_pair"] {
        assert!(
            has_entry_point(&module, name, naga::ShaderStage::Vertex),
            "{name}"
        );
    }
}

#[test]
fn the_entry_points_the_crate_names_exist() {
    use naga::ShaderStage::{Compute, Fragment, Vertex};
    let renderer = renderer();
    for (name, stage) in [
        (entry::VS_MAIN, Vertex),
        (entry::VS_MAIN_EXTRA, Vertex),
        (entry::VS_SHELL, Vertex),
        (entry::VS_SHELL_EXTRA, Vertex),
        (entry::VS_SHADOW, Vertex),
        (entry::VS_SHADOW_EXTRA, Vertex),
        (entry::VS_DEPTH, Vertex),
        (entry::VS_MAIN_CROWD, Vertex),
        (entry::VS_MAIN_EXTRA_CROWD, Vertex),
        (entry::VS_SHELL_CROWD, Vertex),
        (entry::VS_SHELL_EXTRA_CROWD, Vertex),
        (entry::VS_SHADOW_CROWD, Vertex),
        (entry::VS_SHADOW_EXTRA_CROWD, Vertex),
        (entry::VS_DEPTH_CROWD, Vertex),
        (entry::FS_BUILTIN, Fragment),
        (entry::FS_BUILTIN_SRGB, Fragment),
        (entry::FS_BUILTIN_MOTION, Fragment),
        (entry::FS_BUILTIN_MOTION_SRGB, Fragment),
    ] {
        assert!(
            has_entry_point(&renderer, name, stage),
            "render module: {name}"
        );
    }
    let crowd = crowd();
    for name in [
        entry::CS_CLASSIFY,
        entry::CS_SCAN,
        entry::CS_EMIT,
        entry::CS_SORT_BLOCK,
        entry::CS_SORT_STEP,
        entry::CS_GATHER,
        entry::CS_ATTACH,
    ] {
        assert!(
            has_entry_point(&crowd, name, Compute),
            "crowd module: {name}"
        );
    }
}

#[test]
fn shader_constants_match_the_crate() {
    // Both modules include constants.wgsl: checking each holds that they
    // include the one file.
    for module in [renderer(), crowd()] {
        assert_eq!(
            u32_constant(&module, "MD2_FALLBACK_NORMAL_INDEX"),
            u32::from(crate::model::FALLBACK_NORMAL_INDEX),
            "the shader and the CPU reference must read a bad normal index the same way"
        );
        assert_eq!(
            u32_constant(&module, "MD2_NORMAL_TABLE_LEN") as usize,
            super::normals::NORMAL_TABLE_LEN,
            "the frame parameters start after the normal table"
        );
        for (name, value) in [
            ("MD2_EFFECT_SHELL_RGB", EFFECT_SHELL_RGB),
            ("MD2_EFFECT_FULLBRIGHT", EFFECT_FULLBRIGHT),
            ("MD2_EFFECT_MINLIGHT", EFFECT_MINLIGHT),
            ("MD2_EFFECT_NO_SHADOW", EFFECT_NO_SHADOW),
            ("MD2_MEMBER_SHELL", MEMBER_SHELL),
            ("MD2_MEMBER_TRANSLUCENT", MEMBER_TRANSLUCENT),
            ("MD2_MEMBER_MIRRORED", MEMBER_MIRRORED),
            ("MD2_MEMBER_FADING", MEMBER_FADING),
            ("MD2_MODEL_FULLBRIGHT_MASKS", super::MODEL_FULLBRIGHT_MASKS),
            ("MD2_MODEL_WIDE_WORD", super::MODEL_WIDE_WORD),
            ("MD2_PHASE_OPAQUE", phase::OPAQUE),
            ("MD2_PHASE_TRANSLUCENT", phase::TRANSLUCENT),
            ("MD2_PHASE_SHELLS", phase::SHELLS),
            ("MD2_PHASE_SHADOWS", phase::SHADOWS),
            ("MD2_VIEW_SHADOWS", VIEW_SHADOWS),
        ] {
            assert_eq!(u32_constant(&module, name), value, "{name}");
        }
    }
    let crowd = crowd();
    for (name, value) in [
        ("CLOCK_LOOPING", CLOCK_LOOPING),
        ("CLOCK_HOLD", CLOCK_HOLD),
        ("CROWD_CULL", CROWD_CULL),
        ("FRAME_SORT", FRAME_SORT),
        ("FRAME_EXTRA", FRAME_EXTRA),
        ("FRAME_FIRST", FRAME_FIRST),
        ("MOTION_MOVED", MOTION_MOVED),
        ("MOTION_POSE", MOTION_POSE),
        ("MOTION_NEW", MOTION_NEW),
        ("MOTION_FLAG_BITS", MOTION_FLAG_BITS),
        ("SEEN", SEEN),
        ("WORKGROUP", WORKGROUP_SIZE),
        ("SORT_BLOCK", SORT_BLOCK),
        ("SORT_WORKGROUP", SORT_WORKGROUP),
        ("SUMS", SUMS),
        ("SORTED_LEVELS", SORTED_LEVELS),
        ("EXTRA_BASE", EXTRA_BASE),
        ("DRAWS", DRAWS),
        ("DRAW_STRIDE", DRAW_STRIDE),
        ("SORT_LAYOUT", SORT_LAYOUT),
        ("RECORD_WORDS", RECORD_WORDS),
        ("EXTRA_WORDS", EXTRA_WORDS),
        ("MEMBER_VEC4S", MEMBER_VEC4S),
        ("CLIP_VEC4S", CLIP_VEC4S),
        ("TAG_VEC4S", TAG_VEC4S),
        ("MEMBER_HIDDEN", MEMBER_HIDDEN),
        ("GROUP_WORDS", GROUP_WORDS),
        ("BUCKETS", BUCKETS as u32),
        ("MAX_LEVELS", MAX_LEVELS as u32),
        ("OPAQUE", OPAQUE as u32),
        ("OPAQUE_MIRRORED", OPAQUE_MIRRORED as u32),
        ("TRANSLUCENT", TRANSLUCENT as u32),
        ("SHELL", SHELL as u32),
    ] {
        assert_eq!(u32_constant(&crowd, name), value, "crowd module: {name}");
    }
    // The resident draws read the crowd's records and members as the
    // compute passes write them.
    let renderer = renderer();
    for (name, value) in [
        ("MD2_CROWD_RECORD_WORDS", RECORD_WORDS),
        ("MD2_CROWD_EXTRA_WORDS", EXTRA_WORDS),
        ("MD2_CROWD_MEMBER_VEC4S", MEMBER_VEC4S),
    ] {
        assert_eq!(
            u32_constant(&renderer, name),
            value,
            "render module: {name}"
        );
    }
    assert_eq!(
        f32_constant(&crowd, "TICK"),
        (1.0 / super::TICKS_PER_SECOND) as f32
    );
    assert_eq!(
        f32_constant(&crowd, "BELOW_ONE"),
        1.0 - f32::EPSILON / 2.0,
        "the largest f32 below 1, as Clip::sample uses"
    );
    assert_eq!(f32_constant(&crowd, "TWO_POW_32"), 2f32.powi(32));
    assert_eq!(f32_constant(&crowd, "TWO_POW_M32"), 2f32.powi(-32));
    assert_eq!(f32_constant(&crowd, "TWO_POW_M64"), 2f32.powi(-64));
}

/// Every shared declaration lives in one file: no struct, constant or
/// function is declared in two of `shaders/`' files.
#[test]
fn every_declaration_is_made_once() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut seen = std::collections::HashMap::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("shaders/ is readable") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a WGSL file");
            for line in text.lines() {
                let mut words = line.split_whitespace();
                let (Some(kind), Some(name)) = (words.next(), words.next()) else {
                    continue;
                };
                if !matches!(kind, "struct" | "const" | "fn" | "override") {
                    continue;
                }
                let name: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let file = path
                    .strip_prefix(&dir)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                if let Some(other) = seen.insert(name.clone(), file.clone()) {
                    assert_eq!(other, file, "{name} is declared in {other} and {file}");
                }
            }
        }
    }
    assert!(seen.contains_key("Md2View") && seen.contains_key("md2_pose_vertex"));
}
