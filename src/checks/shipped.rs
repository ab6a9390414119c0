//! Every shader the crate ships, held to the real-GPU rules, and the rules
//! held to what they must catch: the pose as it shipped before 0.2 (the
//! normal table a uniform), planted reads, and reads the rules must leave
//! alone.

use super::{Finding, Rule, check_wgsl};
use crate::contract::{
    CAPTURE_WGSL, CROWD_READ_WGSL, CROWD_WGSL, MD2_POSE_WGSL, MD2_RENDERER_WGSL,
};

fn findings(name: &str, source: &str) -> Vec<Finding> {
    check_wgsl(name, source).unwrap_or_else(|e| panic!("{e}"))
}

fn assert_clean(name: &str, source: &str) {
    let found = findings(name, source);
    let list: Vec<String> = found.iter().map(|f| format!("  {f}")).collect();
    assert!(
        found.is_empty(),
        "{name} breaks the real-GPU rules (shaders/README.md):\n{}",
        list.join("\n")
    );
}

#[test]
fn every_module_the_crate_ships_keeps_the_real_gpu_rules() {
    assert_clean("the pose module", MD2_POSE_WGSL);
    assert_clean("the render module", MD2_RENDERER_WGSL);
    assert_clean("the crowd module", CROWD_WGSL);
    assert_clean("the capture module", CAPTURE_WGSL);
    // The pose moved to another group and other bindings, as hosts use it.
    assert_clean("the pose at group 3", &crate::contract::pose_wgsl(3));
    // The crowd reader behind a host's own declarations and vertex stage.
    assert_clean("the crowd reader in a host", &crowd_reader_in_a_host());
}

/// What a host that draws a crowd with its own vertex stage compiles: its
/// bindings where its layout has room, the pose, the crowd reader, and a
/// stage that reads this frame's record and the previous frame's.
fn crowd_reader_in_a_host() -> String {
    format!(
        "{}\n{CROWD_READ_WGSL}\n{}",
        crate::contract::pose_wgsl(2),
        r#"
        @group(2) @binding(5) var<storage, read> md2_crowd_records: array<u32>;
        @group(2) @binding(6) var<storage, read> md2_crowd_members: array<vec4<u32>>;
        @group(0) @binding(0) var<uniform> host_extra_base: u32;
        @vertex fn host_vertex(@builtin(instance_index) i: u32, @location(0) xyz: u32)
            -> @builtin(position) vec4<f32> {
            let now = md2_crowd_record(i);
            let before = md2_crowd_previous_record(md2_crowd_extra_at(host_extra_base, i));
            let posed = md2_pose_vertex(xyz, now.frames, now.lerp, 0.0);
            let was = md2_pose_vertex(xyz, before.frames, before.lerp, 0.0);
            let look = md2_crowd_look_words(now.member);
            let world = md2_world_position(now.rows, posed.position)
                - md2_world_position(before.rows, was.position);
            return vec4<f32>(world, f32(look.x & 1u));
        }
        "#
    )
}

/// Every name the crowd reader declares is md2-prefixed, so that it sits
/// in a host's module beside the host's own names.
#[test]
fn the_crowd_reader_declares_only_md2_names() {
    let module = naga::front::wgsl::parse_str(&crowd_reader_in_a_host()).unwrap();
    let pose = naga::front::wgsl::parse_str(&crate::contract::pose_wgsl(2)).unwrap();
    let md2 = |name: &str| ["md2_", "Md2", "MD2_"].iter().any(|p| name.starts_with(p));
    let mut names: Vec<String> = Vec::new();
    names.extend(module.functions.iter().filter_map(|(_, f)| f.name.clone()));
    names.extend(module.constants.iter().filter_map(|(_, c)| c.name.clone()));
    names.extend(module.types.iter().filter_map(|(_, t)| t.name.clone()));
    let theirs: Vec<&String> = names.iter().filter(|n| !md2(n)).collect();
    assert!(theirs.is_empty(), "{theirs:?}");
    // And the reader declares what the docs say, beyond the pose.
    for name in [
        "md2_look_tint",
        "md2_crowd_member",
        "md2_crowd_record",
        "md2_crowd_look_words",
        "md2_crowd_extra_at",
        "md2_crowd_previous_record",
        "md2_crowd_previous_id",
    ] {
        assert!(names.iter().any(|n| n == name), "{name}");
        assert!(
            !pose
                .functions
                .iter()
                .any(|(_, f)| f.name.as_deref() == Some(name))
        );
    }
}

/// Every entry point of the modules is walked: the render module has the
/// immediate and resident vertex stages of every phase, and the fragment
/// stages; the crowd module every compute pass.
#[test]
fn the_walk_reaches_every_entry_point() {
    for (source, expected) in [
        (MD2_RENDERER_WGSL, 18usize),
        (CROWD_WGSL, 7),
        (CAPTURE_WGSL, 20),
    ] {
        let module = naga::front::wgsl::parse_str(source).unwrap();
        assert_eq!(module.entry_points.len(), expected);
        // A planted uniform read in each entry point's first statement is
        // found in each: the walk does not stop at the first.
        let planted = plant_in_every_entry_point(source);
        let found = findings("planted", &planted);
        let mut names: Vec<&str> = found.iter().map(|f| f.entry_point.as_str()).collect();
        names.dedup();
        assert_eq!(names.len(), expected, "{found:#?}");
    }
}

/// Declares a uniform table and reads it at a varying index at the start
/// of every entry point.
fn plant_in_every_entry_point(source: &str) -> String {
    let mut out = String::from(
        "@group(3) @binding(7) var<uniform> planted: array<vec4<u32>, 64>;\n\
         var<private> planted_sink: u32;\n",
    );
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        let entry = line.starts_with("@vertex")
            || line.starts_with("@fragment")
            || line.starts_with("@compute");
        if !entry {
            continue;
        }
        // The signature may span lines: plant after its `{`.
        let mut signature = String::new();
        for next in lines.by_ref() {
            out.push_str(next);
            out.push('\n');
            signature.push_str(next);
            if next.trim_end().ends_with('{') {
                break;
            }
        }
        let position = signature.find("@builtin(position) position").is_some();
        let index = if signature.contains("global_invocation_id) id") {
            "id.x"
        } else if signature.contains("local_invocation_index) lid") {
            "lid"
        } else if signature.contains("corner: Md2CornerIn") {
            "corner.xyz"
        } else if position {
            "u32(position.x)"
        } else if signature.contains("in: Md2Fragment") {
            "in.id"
        } else if signature.contains("front_facing: bool") {
            "select(0u, 1u, front_facing)"
        } else {
            panic!("no input to index by in: {signature}");
        };
        out.push_str(&format!("    planted_sink = planted[{index} % 64u].x;\n"));
    }
    out
}

/// The pose as it shipped until 0.2: the normal table a uniform, indexed by
/// each vertex's own normal byte. Caught in the function that reads it, for
/// every vertex entry point that poses a vertex.
#[test]
fn the_uniform_normal_table_that_made_nvidia_slow_is_caught() {
    let planted = MD2_RENDERER_WGSL
        .replace(
            "@group(1) @binding(2) var<storage, read> md2_frame_params",
            "@group(1) @binding(3) var<uniform> md2_anorms: array<vec4<f32>, 256>;\n\
             @group(1) @binding(2) var<storage, read> md2_frame_params",
        )
        .replace("md2_frame_params[word >> 24u]", "md2_anorms[word >> 24u]");
    assert_ne!(planted, MD2_RENDERER_WGSL, "the plant took");
    let found = findings("the pose with a uniform normal table", &planted);
    assert!(!found.is_empty());
    for finding in &found {
        assert_eq!(finding.rule, Rule::VaryingUniformIndex, "{finding}");
        assert_eq!(finding.variable, "md2_anorms");
        assert_eq!(finding.function, "md2_decode");
        let (_, text) = finding.line.as_ref().expect("a line");
        assert!(text.contains("md2_anorms[word >> 24u]"), "{text}");
        assert!(
            finding
                .varies_because
                .as_deref()
                .is_some_and(|why| why.contains("md2_verts")),
            "{finding}"
        );
    }
    let entries: Vec<&str> = found.iter().map(|f| f.entry_point.as_str()).collect();
    for entry in [
        "md2_vs_main",
        "md2_vs_shadow_extra",
        "md2_vs_depth",
        "md2_vs_main_crowd",
    ] {
        assert!(entries.contains(&entry), "{entry}: {entries:?}");
    }
    // Fragment stages pose nothing.
    assert!(!entries.iter().any(|e| e.starts_with("md2_fs")));
    eprintln!("{}", found[0]);
}

const VIEW: &str = "
struct Params { count: u32, pad: vec3<u32>, table: array<vec4<f32>, 8> };
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> data: array<u32>;
";

fn module(body: &str) -> String {
    format!("{VIEW}\n{body}")
}

fn rules(body: &str) -> Vec<(Rule, String)> {
    findings("planted", &module(body))
        .into_iter()
        .map(|f| (f.rule, f.entry_point))
        .collect()
}

#[test]
fn uniform_indices_that_do_not_vary_are_left_alone() {
    // A loop counter over a uniform bound, a uniform value, a constant, a
    // pipeline constant: the same address in every invocation.
    let body = "
override PICK: u32 = 3u;
@vertex fn vs(@builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> {
    var sum = vec4<f32>(0.0);
    for (var i = 0u; i < min(params.count, 8u); i++) {
        // A branch on a varying value inside, but no varying exit.
        if v > i { sum += params.table[i]; }
    }
    sum += params.table[params.count % 8u] + params.table[2] + params.table[PICK];
    return sum;
}";
    assert_eq!(rules(body), vec![]);
}

#[test]
fn every_source_of_variation_is_caught() {
    let cases = [
        (
            "vertex index",
            "@vertex fn e(@builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> { return params.table[v % 8u]; }",
        ),
        (
            "instance index",
            "@vertex fn e(@builtin(instance_index) v: u32) -> @builtin(position) vec4<f32> { return params.table[v % 8u]; }",
        ),
        (
            "a location",
            "@vertex fn e(@location(0) v: u32) -> @builtin(position) vec4<f32> { return params.table[v]; }",
        ),
        // naga's own uniformity analysis calls a flat input uniform: it is
        // not across a draw's primitives.
        (
            "a flat fragment input",
            "@fragment fn e(@location(0) @interpolate(flat) v: u32) -> @location(0) vec4<f32> { return params.table[v]; }",
        ),
        (
            "a storage read at a uniform address",
            "@vertex fn e() -> @builtin(position) vec4<f32> { return params.table[data[0]]; }",
        ),
        (
            "an invocation id",
            "@compute @workgroup_size(64) fn e(@builtin(local_invocation_index) v: u32) { let x = params.table[v % 8u]; }",
        ),
        (
            "a local stored under a varying branch",
            "@vertex fn e(@builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> { var k = 0u; if v > 3u { k = 1u; } return params.table[k]; }",
        ),
        (
            "a loop with a varying exit",
            "@vertex fn e(@builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> { var i = 0u; loop { if i >= v { break; } i++; } return params.table[i % 8u]; }",
        ),
        (
            "a vector component",
            "@vertex fn e(@builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> { return vec4<f32>(params.table[0][v % 4u]); }",
        ),
        (
            "a value through a pointer argument",
            "fn put(p: ptr<function, u32>, v: u32) { *p = v; }\n@vertex fn e(@builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> { var k = 0u; put(&k, v); return params.table[k % 8u]; }",
        ),
        (
            "a varying return",
            "fn pick(v: u32) -> u32 { if v > 2u { return 1u; } return 0u; }\n@vertex fn e(@builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> { return params.table[pick(v)]; }",
        ),
    ];
    for (what, body) in cases {
        assert_eq!(
            rules(body),
            vec![(Rule::VaryingUniformIndex, "e".to_string())],
            "{what}"
        );
    }
}

#[test]
fn a_helper_is_judged_at_each_call() {
    // `row` indexes the uniform by its argument: a loop counter in one entry
    // point, an invocation's vertex in the other.
    let body = "
fn row(i: u32) -> vec4<f32> { return params.table[i]; }
@vertex fn calm() -> @builtin(position) vec4<f32> {
    var sum = vec4<f32>(0.0);
    for (var i = 0u; i < 8u; i++) { sum += row(i); }
    return sum;
}
@vertex fn busy(@builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> { return row(v % 8u); }";
    let found = findings("helper", &module(body));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].entry_point, "busy");
    assert_eq!(found[0].function, "row");
    assert_eq!(found[0].variable, "params");
    assert_eq!(found[0].line.as_ref().map(|l| l.0), Some(7));
}

#[test]
fn local_arrays_indexed_dynamically_spill_in_drawing_stages_only() {
    let body = "
@vertex fn drawn(@builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> {
    var corners = array<vec4<f32>, 3>(vec4<f32>(0.0), vec4<f32>(1.0), vec4<f32>(2.0));
    return corners[v % 3u];
}
@vertex fn constant_index() -> @builtin(position) vec4<f32> {
    var corners = array<vec4<f32>, 3>(vec4<f32>(0.0), vec4<f32>(1.0), vec4<f32>(2.0));
    return corners[1];
}
@compute @workgroup_size(64) fn computed(@builtin(local_invocation_index) v: u32) {
    var corners = array<u32, 3>(0u, 1u, 2u);
    let x = corners[v % 3u];
}";
    let found = findings("locals", &module(body));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, Rule::DynamicLocalIndex);
    assert_eq!(found[0].entry_point, "drawn");
    assert_eq!(found[0].variable, "corners");
}
