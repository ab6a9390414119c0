//! An app's own fragment stage for the crate's passes: its WGSL, its colour
//! targets (any number: a G-buffer) and one bind group of its own. The crate
//! keeps the vertex stage (the pose), the depth state, multisampling and
//! culling, so a material draws the animated pose in every pass.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use super::cache::Md2Cache;
use super::device::ready_error;
use super::error::SetupError;
use super::pipeline::{self, PassKey, Shading};
use super::shader::{MATERIAL_PRELUDE_WGSL, entry};

mod reads;

/// An app's fragment stage for the crate's passes: give it to
/// [`Md2Renderer::with_material`](crate::Md2Renderer::with_material).
///
/// # Writing one
///
/// The material's WGSL follows the crate's (the pose and the vertex stage:
/// [`MD2_POSE_WGSL`](crate::MD2_POSE_WGSL) and md2.wgsl) in one module, so
/// it can use everything the crate declares: every such name begins with
/// `md2_`, `Md2` or `MD2_`, and every other name is the material's. It
/// defines a plain function (not an entry point) that takes the crate's
/// `Md2Fragment` and returns its colour, or a struct with one
/// `@location(i)` member per target:
///
/// ```wgsl
/// struct GBuffer {
///     @location(0) albedo: vec4<f32>,
///     @location(1) normal: vec4<f32>,
///     @location(2) motion: vec4<f32>,
/// };
/// @group(2) @binding(0) var<uniform> exposure: f32;
///
/// fn gbuffer(in: Md2Fragment) -> GBuffer {
///     let n = normalize(in.world_normal);
///     let albedo = md2_albedo(in) * in.tint * exposure;
///     return GBuffer(albedo, vec4<f32>(n, 0.0), vec4<f32>(md2_motion(in), 0.0, 0.0));
/// }
/// ```
///
/// The crate appends the `@fragment` entry point that calls it (after
/// culling the faces of translucent and mirrored instances that face away,
/// which the rasteriser cannot do for both windings in one draw).
///
/// # Its inputs: `Md2Fragment`
///
/// | field | what |
/// |---|---|
/// | `position` | `@builtin(position)`: the fragment's framebuffer position |
/// | `world_position` | world space, after the instance transform (on a planar shadow: on the plane) |
/// | `world_normal` | world space, unnormalised |
/// | `uv` | skin coordinates; `md2_albedo(in)` samples the skin (`md2_skins`, `md2_skin_sampler`) |
/// | `skin` | the skin layer |
/// | `tint` | linear rgb × intensity, alpha |
/// | `effects` | `MD2_EFFECT_*` bits, `MD2_MEMBER_MIRRORED`; `md2_shell_color(in)` |
/// | `pass_kind` | `MD2_PASS_OPAQUE`, `_TRANSLUCENT`, `_SHELL` or `_SHADOW`: the pass calling |
/// | `instance` | the instance's index in its batch, the member's in its crowd |
/// | `id` | a stable id: [`Md2Instance::id`](crate::Md2Instance::id), [`CrowdHandle::id`](crate::CrowdHandle::id) |
/// | `previous_world_position` | where this point was a frame ago (world space); `md2_motion(in)` is the motion vector |
///
/// `md2_shade(in)` is the built-in Quake II look (the view's light,
/// minlight, fullbright), `md2_view` the view's uniform (camera, light,
/// shadow colour).
///
/// The entry point the crate writes declares only the members the function
/// reads (following the functions it hands `in` to; copying `in` whole
/// counts as reading all): a software rasteriser interpolates every input
/// declared. The renderers write the extra per-instance record behind
/// `instance`, `id` and `previous_world_position` only for a material that
/// reads one of them ([`Md2Material::reads_extra`]).
///
/// # Which passes run it
///
/// Every colour pass: opaque instances (blending off, depth written as the
/// renderer's [`DepthState`](crate::DepthState) says), translucent ones,
/// powerup shells and planar shadows (those three with the targets' blend
/// states, depth not written). `in.pass_kind` says which: a material that
/// wants Quake II's shells returns `md2_shell_color(in)` there, and
/// `md2_view.shadow_color` for shadows. Depth-only renderers need no
/// material.
///
/// # Bind groups
///
/// Group 0 is the crate's view (`md2_view`, the skin sampler), group 1 the
/// model's (the pose's data, `md2_skins`); group 2 is the material's
/// ([`Md2Material::GROUP`]): its layout is given here, its bind group to
/// the renderer ([`Md2Renderer::set_material_bind_group`](crate::Md2Renderer::set_material_bind_group)).
///
/// # Errors
///
/// [`Md2Material::new`] checks the material before wgpu sees it, and says
/// what is wrong as a [`SetupError::Material`]:
///
/// ```text
/// material "gbuffer": `gbuffer` returns 3 colour outputs (locations 0, 1, 2), but 2 targets were given
/// ```
#[derive(Clone, Debug)]
pub struct Md2Material(Arc<MaterialInner>);

#[derive(Debug)]
struct MaterialInner {
    label: String,
    module: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    has_group: bool,
    /// Whether it reads what the extra record feeds (the instance's index
    /// and id, its previous world position).
    extra: bool,
    opaque_targets: Vec<wgpu::ColorTargetState>,
    blended_targets: Vec<wgpu::ColorTargetState>,
    cache: Md2Cache,
    pipelines: Mutex<HashMap<PassKey, wgpu::RenderPipeline>>,
}

/// What makes a [`Md2Material`].
#[derive(Clone, Copy, Debug)]
pub struct Md2MaterialDescriptor<'a> {
    /// A name for messages and labels.
    pub label: &'a str,
    /// The material's WGSL (see [`Md2Material`]).
    pub source: &'a str,
    /// The name of its function `fn(Md2Fragment) -> ...`.
    pub fragment: &'a str,
    /// Its colour targets, in location order, as the blending passes use
    /// them (the opaque pass turns blending off).
    pub targets: &'a [wgpu::ColorTargetState],
    /// The layout of its own bind group, group [`Md2Material::GROUP`], if it
    /// has one.
    pub bind_group_layout: Option<&'a wgpu::BindGroupLayout>,
}

/// What is wrong with a material, in [`SetupError::Material`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MaterialError {
    /// The WGSL does not parse or validate (after the crate's); naga's
    /// message, with the line in the material's source.
    Source {
        /// naga's message.
        message: String,
    },
    /// No function of that name.
    FragmentMissing {
        /// The name given.
        name: String,
    },
    /// The function is an entry point: the crate writes the entry point.
    FragmentIsEntryPoint {
        /// The name given.
        name: String,
    },
    /// The function does not take exactly one `Md2Fragment`.
    Inputs {
        /// The function.
        name: String,
        /// What it takes instead.
        found: String,
    },
    /// Its outputs do not match the targets.
    Outputs {
        /// The function.
        name: String,
        /// How.
        reason: String,
    },
    /// No target: a material writes at least one (a depth-only pass needs
    /// none: use [`Md2Renderer::depth_only`](crate::Md2Renderer::depth_only)).
    NoTargets,
    /// More colour targets than the device's `max_color_attachments`.
    TooManyTargets {
        /// Targets given.
        targets: usize,
        /// The device's limit.
        max: u32,
    },
    /// A resource binding outside the material's group, or in it without a
    /// bind group layout.
    BindGroup {
        /// The binding's variable.
        variable: String,
        /// Its group.
        group: u32,
        /// Why it does not fit.
        reason: String,
    },
    /// wgpu refused the module or a pipeline (a bind group layout that does
    /// not match the WGSL's declarations, a target format the outputs cannot
    /// write): its message.
    Device {
        /// What was being built.
        operation: &'static str,
        /// wgpu's message.
        message: String,
    },
}

impl fmt::Display for MaterialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaterialError::Source { message } => write!(f, "its WGSL does not compile: {message}"),
            MaterialError::FragmentMissing { name } => {
                write!(f, "it defines no function `{name}`")
            }
            MaterialError::FragmentIsEntryPoint { name } => write!(
                f,
                "`{name}` is an entry point; declare it as a plain `fn {name}(in: Md2Fragment)` \
                 (the crate writes the @fragment entry point that calls it)"
            ),
            MaterialError::Inputs { name, found } => {
                write!(f, "`{name}` must take one `Md2Fragment`, but takes {found}")
            }
            MaterialError::Outputs { name, reason } => write!(f, "`{name}` {reason}"),
            MaterialError::NoTargets => write!(f, "it has no colour target"),
            MaterialError::TooManyTargets { targets, max } => write!(
                f,
                "{targets} colour targets given; this device allows {max} (max_color_attachments)"
            ),
            MaterialError::BindGroup {
                variable,
                group,
                reason,
            } => write!(f, "`{variable}` at @group({group}): {reason}"),
            MaterialError::Device { operation, message } => {
                write!(f, "wgpu refused {operation}: {message}")
            }
        }
    }
}

impl Md2Material {
    /// The bind group index that is the material's.
    pub const GROUP: u32 = 2;

    /// Checks the material against the crate's vertex stage and the device,
    /// and compiles it: its pipelines are built as renderers need them.
    pub fn new(
        device: &wgpu::Device,
        cache: &impl AsRef<Md2Cache>,
        descriptor: &Md2MaterialDescriptor<'_>,
    ) -> Result<Md2Material, SetupError> {
        let cache = cache.as_ref();
        let fail = |error| SetupError::Material {
            label: descriptor.label.to_string(),
            error,
        };
        let max = device.limits().max_color_attachments;
        match descriptor.targets.len() {
            0 => return Err(fail(MaterialError::NoTargets)),
            n if n > max as usize => {
                return Err(fail(MaterialError::TooManyTargets { targets: n, max }));
            }
            _ => {}
        }
        let Composed { source, extra } = compose(descriptor).map_err(fail)?;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(descriptor.label),
            source: wgpu::ShaderSource::Wgsl(Cow::Owned(source)),
        });
        let view = cache.view_layout();
        let model = cache.model_layout();
        let groups: Vec<Option<&wgpu::BindGroupLayout>> = match descriptor.bind_group_layout {
            Some(own) => vec![Some(view), Some(model), Some(own)],
            None => vec![Some(view), Some(model)],
        };
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("md2-wgpu material pipeline layout"),
            bind_group_layouts: &groups,
            immediate_size: 0,
        });
        if let Some(message) = ready_error(scope.pop()) {
            return Err(fail(MaterialError::Device {
                operation: "the material's module",
                message,
            }));
        }
        let blended_targets = descriptor.targets.to_vec();
        let opaque_targets = blended_targets
            .iter()
            .map(|t| wgpu::ColorTargetState {
                blend: None,
                ..t.clone()
            })
            .collect();
        Ok(Md2Material(Arc::new(MaterialInner {
            label: descriptor.label.to_string(),
            module,
            layout,
            has_group: descriptor.bind_group_layout.is_some(),
            extra,
            opaque_targets,
            blended_targets,
            cache: cache.clone(),
            pipelines: Mutex::new(HashMap::new()),
        })))
    }

    /// The name it was given.
    pub fn label(&self) -> &str {
        &self.0.label
    }

    /// Its colour targets, as the blending passes use them.
    pub fn targets(&self) -> &[wgpu::ColorTargetState] {
        &self.0.blended_targets
    }

    /// Whether it has a bind group of its own (group [`Md2Material::GROUP`]).
    pub fn has_bind_group(&self) -> bool {
        self.0.has_group
    }

    /// Whether it reads `instance`, `id` or `previous_world_position` (or
    /// calls `md2_motion`): only then do its renderers write and read the
    /// extra per-instance record those come from.
    pub fn reads_extra(&self) -> bool {
        self.0.extra
    }

    /// The pipeline of `pass`, built on first use; a wgpu error (the
    /// material's bind group layout against its WGSL, its outputs against
    /// the target formats) is a typed error.
    pub(crate) fn pipeline(
        &self,
        device: &wgpu::Device,
        pass: PassKey,
    ) -> Result<wgpu::RenderPipeline, SetupError> {
        let mut pipelines = self
            .0
            .pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(pipeline) = pipelines.get(&pass) {
            return Ok(pipeline.clone());
        }
        let inner = &self.0;
        let shading = Shading {
            module: &inner.module,
            layout: &inner.layout,
            extra: inner.extra,
            fragment: entry::FS_MATERIAL,
            opaque_targets: &inner.opaque_targets,
            blended_targets: &inner.blended_targets,
        };
        let (depth_module, depth_layout) = inner.cache.depth_only_parts();
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipeline = pipeline::build(device, &pass, Some(&shading), depth_module, depth_layout);
        if let Some(message) = ready_error(scope.pop()) {
            return Err(SetupError::Material {
                label: inner.label.clone(),
                error: MaterialError::Device {
                    operation: "a pipeline of the material",
                    message,
                },
            });
        }
        pipelines.insert(pass, pipeline.clone());
        Ok(pipeline)
    }
}

/// A material's module, and whether it reads the extra record.
struct Composed {
    source: String,
    extra: bool,
}

/// The `Md2Fragment` members the extra per-instance record feeds.
const EXTRA_MEMBERS: [&str; 3] = ["instance", "id", "previous_world_position"];

/// The material's module: the crate's prelude, the material's WGSL, and the
/// entry point that calls its function; checked with naga first.
fn compose(descriptor: &Md2MaterialDescriptor<'_>) -> Result<Composed, MaterialError> {
    let name = descriptor.fragment;
    let with_prelude = format!("{MATERIAL_PRELUDE_WGSL}\n{}\n", descriptor.source);
    let module = parse(&with_prelude)?;
    let prelude = parse(MATERIAL_PRELUDE_WGSL)?;
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
    let type_name = |ty: naga::Handle<naga::Type>| type_wgsl(&module, ty);
    let takes_fragment = match function.arguments.as_slice() {
        [argument] => module.types[argument.ty].name.as_deref() == Some("Md2Fragment"),
        _ => false,
    };
    if !takes_fragment {
        let found = if function.arguments.is_empty() {
            "nothing".to_string()
        } else {
            function
                .arguments
                .iter()
                .map(|a| format!("`{}`", type_name(a.ty)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(MaterialError::Inputs {
            name: name.into(),
            found,
        });
    }
    let result = function
        .result
        .as_ref()
        .ok_or_else(|| MaterialError::Outputs {
            name: name.into(),
            reason: "returns nothing: return the colour (or a struct of one per target)".into(),
        })?;
    let (ret, locations) = match &module.types[result.ty].inner {
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
            (type_name(result.ty), locations)
        }
        naga::TypeInner::Scalar(_) | naga::TypeInner::Vector { .. } => {
            (format!("@location(0) {}", type_name(result.ty)), vec![0])
        }
        _ => {
            return Err(MaterialError::Outputs {
                name: name.into(),
                reason: format!(
                    "returns `{}`: return a vector, or a struct of @location members",
                    type_name(result.ty)
                ),
            });
        }
    };
    let mut sorted = locations.clone();
    sorted.sort_unstable();
    let targets = descriptor.targets.len();
    if sorted != (0..targets as u32).collect::<Vec<_>>() {
        let list = sorted
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        return Err(MaterialError::Outputs {
            name: name.into(),
            reason: format!(
                "returns {} (locations {list}), but {} given: one output per target, at \
                 locations 0 to {}",
                counted(locations.len(), "colour output", "colour outputs"),
                counted(targets, "target was", "targets were"),
                targets.saturating_sub(1)
            ),
        });
    }
    // The entry point declares the members the function reads (and the
    // effects, for culling) and fills an Md2Fragment with them; culling
    // first, as the built-in fragment stage does, then the app's function.
    let read = reads::members_read(&module, function, 0);
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
        let ty = type_wgsl(&module, member.ty);
        inputs.push_str(&format!("    {binding} {member_name}: {ty},\n"));
        copies.push_str(&format!(
            "    md2_fragment.{member_name} = md2_read.{member_name};\n"
        ));
    }
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
        let reason = if binding.group != Md2Material::GROUP {
            format!(
                "the material's resources go in group {}; groups 0 and 1 are the crate's",
                Md2Material::GROUP
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
