//! A material's WGSL checked with naga against the crate's vertex stage and
//! completed with the entry point that calls its function: typed errors
//! instead of wgpu validation panics.

use super::descriptor::{MATERIAL_GROUP, Md2MaterialDescriptor};
use super::error::MaterialError;
use super::reads;
use crate::contract::{MD2_RENDERER_WGSL, entry};

/// A material's module, and whether it reads the extra record.
pub(super) struct Composed {
    pub source: String,
    pub extra: bool,
}

/// The `Md2Fragment` members the extra per-instance record feeds.
const EXTRA_MEMBERS: [&str; 3] = ["instance", "id", "previous_world_position"];

/// The material's module: the crate's prelude, the material's WGSL, and the
/// entry point that calls its function; checked with naga first.
pub(super) fn compose(descriptor: &Md2MaterialDescriptor<'_>) -> Result<Composed, MaterialError> {
    let name = descriptor.fragment;
    let with_prelude = format!("{MD2_RENDERER_WGSL}\n{}\n", descriptor.source);
    let module = parse(&with_prelude)?;
    let prelude = parse(MD2_RENDERER_WGSL)?;
    check_bindings(&module, &prelude, descriptor.bind_group_layout.is_some())?;
    if module.entry_points.iter().any(|e| e.name == name) {
        return Err(MaterialError::FragmentIsEntryPoint { name: name.into() });
    }
    let function = module
        .functions
        .iter()
        .map(|(_, f)| f)
        .find(|f| f.name.as_deref() == Some(name))
        .ok_or_else(|| MaterialError::FragmentMissing { name: name.into() })?;
    check_inputs(&module, function, name)?;
    let (ret, locations) = outputs(&module, function, name)?;
    check_targets(&locations, descriptor.targets.len(), name)?;
    let (inputs, copies, extra) = inputs_read(&module, function);
    let source = format!(
        "{with_prelude}
struct Md2MaterialInputs {{
{inputs}}};

@fragment
fn {entry}(md2_read: Md2MaterialInputs, @builtin(front_facing) md2_front_facing: bool) -> {ret} {{
    md2_cull_face(md2_front_facing, md2_read.effects);
    var md2_fragment: Md2Fragment;
{copies}    return {name}(md2_fragment);
}}
",
        entry = entry::FS_MATERIAL,
    );
    parse(&source)?;
    Ok(Composed { source, extra })
}

/// The function takes one `Md2Fragment`, or the error says what it takes.
fn check_inputs(
    module: &naga::Module,
    function: &naga::Function,
    name: &str,
) -> Result<(), MaterialError> {
    let takes_fragment = match function.arguments.as_slice() {
        [argument] => module.types[argument.ty].name.as_deref() == Some("Md2Fragment"),
        _ => false,
    };
    if takes_fragment {
        return Ok(());
    }
    let found = if function.arguments.is_empty() {
        "nothing".to_string()
    } else {
        function
            .arguments
            .iter()
            .map(|a| format!("`{}`", type_wgsl(module, a.ty)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(MaterialError::Inputs {
        name: name.into(),
        found,
    })
}

/// The entry point's return type, as WGSL, and the locations of the
/// function's outputs: a vector at location 0, or a struct of `@location`
/// members.
fn outputs(
    module: &naga::Module,
    function: &naga::Function,
    name: &str,
) -> Result<(String, Vec<u32>), MaterialError> {
    let type_name = |ty: naga::Handle<naga::Type>| type_wgsl(module, ty);
    let result = function
        .result
        .as_ref()
        .ok_or_else(|| MaterialError::Outputs {
            name: name.into(),
            reason: "returns nothing: return the colour (or a struct of one per target)".into(),
        })?;
    match &module.types[result.ty].inner {
        naga::TypeInner::Struct { members, .. } => {
            let mut locations = Vec::new();
            for m in members {
                match m.binding {
                    Some(naga::Binding::Location { location, .. }) => locations.push(location),
                    _ => {
                        return Err(MaterialError::Outputs {
                            name: name.into(),
                            reason: format!(
                                "returns `{}`, whose member `{}` has no @location",
                                type_name(result.ty),
                                m.name.as_deref().unwrap_or("?")
                            ),
                        });
                    }
                }
            }
            Ok((type_name(result.ty), locations))
        }
        naga::TypeInner::Scalar(_) | naga::TypeInner::Vector { .. } => {
            Ok((format!("@location(0) {}", type_name(result.ty)), vec![0]))
        }
        _ => Err(MaterialError::Outputs {
            name: name.into(),
            reason: format!(
                "returns `{}`: return a vector, or a struct of @location members",
                type_name(result.ty)
            ),
        }),
    }
}

/// One output per target, at locations 0 to `targets - 1`.
fn check_targets(locations: &[u32], targets: usize, name: &str) -> Result<(), MaterialError> {
    let mut sorted = locations.to_vec();
    sorted.sort_unstable();
    if sorted == (0..targets as u32).collect::<Vec<_>>() {
        return Ok(());
    }
    let list = sorted
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    Err(MaterialError::Outputs {
        name: name.into(),
        reason: format!(
            "returns {} (locations {list}), but {} given: one output per target, at \
             locations 0 to {}",
            counted(locations.len(), "colour output", "colour outputs"),
            counted(targets, "target was", "targets were"),
            targets.saturating_sub(1)
        ),
    })
}

/// The entry point declares the members the function reads (and the
/// effects, for culling) and fills an Md2Fragment with them: its input
/// members and its copies, as WGSL lines, and whether it reads the extra
/// record.
fn inputs_read(module: &naga::Module, function: &naga::Function) -> (String, String, bool) {
    let read = reads::members_read(module, function, 0);
    let fragment_type = function.arguments[0].ty;
    let naga::TypeInner::Struct { members, .. } = &module.types[fragment_type].inner else {
        unreachable!("Md2Fragment is the crate's struct");
    };
    let mut inputs = String::new();
    let mut copies = String::new();
    let mut extra = false;
    for (index, member) in members.iter().enumerate() {
        let member_name = member.name.as_deref().unwrap_or_default();
        if !(read.contains(index as u32) || member_name == "effects") {
            continue;
        }
        extra |= EXTRA_MEMBERS.contains(&member_name);
        let binding = match &member.binding {
            Some(naga::Binding::BuiltIn(_)) => "@builtin(position)".to_string(),
            Some(naga::Binding::Location {
                location,
                interpolation,
                ..
            }) => match interpolation {
                Some(naga::Interpolation::Flat) => {
                    format!("@location({location}) @interpolate(flat)")
                }
                _ => format!("@location({location})"),
            },
            None => continue,
        };
        let ty = type_wgsl(module, member.ty);
        inputs.push_str(&format!("    {binding} {member_name}: {ty},\n"));
        copies.push_str(&format!(
            "    md2_fragment.{member_name} = md2_read.{member_name};\n"
        ));
    }
    (inputs, copies, extra)
}

/// The WGSL, parsed and validated by naga (all capabilities: the device
/// checks its own when wgpu compiles it).
fn parse(source: &str) -> Result<naga::Module, MaterialError> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| MaterialError::Source {
        message: e.emit_to_string(source),
    })?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| MaterialError::Source {
        message: e.emit_to_string(source),
    })?;
    Ok(module)
}

/// Every resource the material declares is in its own group, and only if
/// it has a bind group layout.
fn check_bindings(
    module: &naga::Module,
    prelude: &naga::Module,
    has_layout: bool,
) -> Result<(), MaterialError> {
    let crate_globals = prelude.global_variables.len();
    for (_, global) in module.global_variables.iter().skip(crate_globals) {
        let Some(binding) = &global.binding else {
            continue;
        };
        let variable = global.name.clone().unwrap_or_default();
        let reason = if binding.group != MATERIAL_GROUP {
            format!(
                "the material's resources go in group {}; groups 0 and 1 are the crate's",
                MATERIAL_GROUP
            )
        } else if !has_layout {
            "the material declares resources but no bind_group_layout was given".to_string()
        } else {
            continue;
        };
        return Err(MaterialError::BindGroup {
            variable,
            group: binding.group,
            reason,
        });
    }
    Ok(())
}

/// A type as WGSL writes it, for the entry point the crate appends and for
/// messages: named types by name, scalars and vectors spelled out.
fn type_wgsl(module: &naga::Module, ty: naga::Handle<naga::Type>) -> String {
    let t = &module.types[ty];
    if let Some(name) = &t.name {
        return name.clone();
    }
    let scalar = |s: &naga::Scalar| match (s.kind, s.width) {
        (naga::ScalarKind::Float, 2) => "f16",
        (naga::ScalarKind::Float, _) => "f32",
        (naga::ScalarKind::Sint, _) => "i32",
        (naga::ScalarKind::Uint, _) => "u32",
        (naga::ScalarKind::Bool, _) => "bool",
        _ => "?",
    };
    match &t.inner {
        naga::TypeInner::Scalar(s) => scalar(s).to_string(),
        naga::TypeInner::Vector { size, scalar: s } => {
            format!("vec{}<{}>", *size as u8, scalar(s))
        }
        other => format!("{other:?}"),
    }
}

/// "1 target was", "2 targets were".
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The real-GPU rules (`crate::checks`) over composed materials: the
/// crate's part of a material's module keeps them, and an app's own breach
/// is found in its function.
#[cfg(test)]
mod rules {
    use super::compose;
    use crate::checks::{Rule, check_wgsl};

    /// A material's module is the render module, the app's WGSL and the entry
    /// point the crate writes: the crate's part of it keeps the rules, and an
    /// app's table read per fragment is found.
    #[test]
    fn a_composed_material_keeps_the_rules_and_a_bad_one_is_caught() {
        let target = [Some(wgpu::ColorTargetState::from(
            wgpu::TextureFormat::Rgba8UnormSrgb,
        ))];
        let targets: Vec<wgpu::ColorTargetState> = target.iter().flatten().cloned().collect();
        let descriptor = |source, fragment| super::Md2MaterialDescriptor {
            label: "rules",
            source,
            fragment,
            targets: &targets,
            bind_group_layout: None,
        };
        let composed =
            compose(&descriptor(crate::support::QUAKE_AGAIN_WGSL, "quake_again")).unwrap();
        assert!(composed.source.contains("md2_fs_material"));
        let found = check_wgsl("the quake_again material", &composed.source).unwrap();
        assert!(found.is_empty(), "{found:#?}");

        let palette = "
    const PALETTE = array<vec4<f32>, 4>(vec4<f32>(1.0), vec4<f32>(0.5), vec4<f32>(0.25), vec4<f32>(0.0));
    fn by_id(in: Md2Fragment) -> vec4<f32> {
        var palette = PALETTE;
        return palette[in.id % 4u];
    }";
        let composed = compose(&descriptor(palette, "by_id")).unwrap();
        let found = check_wgsl("a palette material", &composed.source).unwrap();
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].rule, Rule::DynamicLocalIndex);
        assert_eq!(found[0].function, "by_id");
        assert_eq!(found[0].entry_point, "md2_fs_material");
    }
}
