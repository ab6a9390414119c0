//! The app's fragment stage for the crate's passes: its WGSL (checked and
//! completed by [`compose`](super::compose)), colour targets and bind
//! group, and the pipelines of every pass built from it on first use.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::compose::{Composed, compose};
use super::descriptor::{MATERIAL_GROUP, Md2MaterialDescriptor};
use super::error::MaterialError;
use crate::contract::entry;
use crate::gpu::device::buffers::ready_error;
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::device::layouts::resident_layout;
use crate::gpu::device::pipeline::{self, PassKey, Shading};
use crate::gpu::error::SetupError;

/// An app's fragment stage for the crate's passes: give it to
/// [`Md2Renderer::with_material`](crate::Md2Renderer::with_material).
///
/// # Writing one
///
/// The material's WGSL follows the crate's (the pose and the vertex stage:
/// [`MD2_POSE_WGSL`](crate::contract::MD2_POSE_WGSL) and the rest of [`MD2_RENDERER_WGSL`](crate::contract::MD2_RENDERER_WGSL)) in one module, so
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
/// | `world_normal` | world space and **not unit length**: the instance transform's cofactor with its determinant's sign (its inverse transpose times the determinant's absolute value) applied to the pose's unit normal at each vertex, then interpolated across the triangle, which shortens it (and a non-uniform scale makes even the vertices' normals other than unit). Normalise it before lighting: `md2_unit_normal(in)` |
/// | `uv` | skin coordinates; `md2_albedo(in)` samples the skin (`md2_skins`, `md2_skin_sampler`) |
/// | `skin` | the skin layer |
/// | `tint` | linear rgb × intensity, alpha |
/// | `effects` | `MD2_EFFECT_*` bits, `MD2_MEMBER_MIRRORED`; `md2_shell_color(in)` |
/// | `phase` | `MD2_PHASE_OPAQUE`, `_TRANSLUCENT`, `_SHELLS` or `_SHADOWS`: the [phase](crate::gpu::Md2Phase) drawing |
/// | `instance` | the instance's index in its batch, the member's in its crowd |
/// | `id` | a stable id: [`Md2Instance::id`](crate::Md2Instance::id), [`CrowdHandle::id`](crate::gpu::CrowdHandle::id) |
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
/// states, depth not written). `in.phase` says which: a material that
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
    /// For the resident crowd's draws: the crowd's group after the
    /// material's.
    resident_layout: wgpu::PipelineLayout,
    has_group: bool,
    /// Whether it reads what the extra record feeds (the instance's index
    /// and id, its previous world position).
    extra: bool,
    opaque_targets: Vec<wgpu::ColorTargetState>,
    blended_targets: Vec<wgpu::ColorTargetState>,
    cache: Md2Cache,
    pipelines: Mutex<HashMap<PassKey, wgpu::RenderPipeline>>,
}

// The layouts' index and the public constant are one number.
const _: () = assert!(Md2Material::GROUP == MATERIAL_GROUP);

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
        // naga is a large parser of arbitrary text: where it panics on some
        // source, that is a material the crate cannot take, not a crash of
        // the app that offered it.
        let composed =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| compose(descriptor)))
                .unwrap_or_else(|panic| {
                    let what = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    Err(MaterialError::Source {
                        message: format!("the WGSL compiler (naga) failed on this source: {what}"),
                    })
                });
        let Composed { source, extra } = composed.map_err(fail)?;
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
        let resident_layout = resident_layout(
            device,
            view,
            model,
            descriptor.bind_group_layout,
            &cache.layouts().crowd_draw,
        );
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
            resident_layout,
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
            resident_layout: &inner.resident_layout,
            extra: inner.extra,
            fragment: entry::FS_MATERIAL,
            opaque_targets: &inner.opaque_targets,
            blended_targets: &inner.blended_targets,
        };
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipeline = pipeline::build(
            device,
            &pass,
            Some(&shading),
            inner.cache.depth_only_parts(),
        );
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
