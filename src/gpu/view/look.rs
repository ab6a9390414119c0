//! What a renderer's colour passes look like (the built-in Quake II look,
//! the app's material, or no colour at all), and the pipelines it draws
//! with, fetched from the cache (or the material) once.

use super::options::Md2RendererOptions;
use crate::gpu::device::cache::{BuiltinKey, Md2Cache};
use crate::gpu::device::material::Md2Material;
use crate::gpu::device::pipeline::{Draw, PassKey};
use crate::gpu::error::{PrepareError, SetupError};
use crate::scene::PlanarShadow;

/// What a renderer's colour passes look like.
#[derive(Clone, Debug)]
pub(crate) enum Look {
    /// Quake II's shading in one target of this format (sRGB-encoded by
    /// the shader or not), and motion vectors in a second where asked.
    Builtin {
        format: wgpu::TextureFormat,
        encode: bool,
        motion: Option<wgpu::TextureFormat>,
    },
    /// The app's material, with its own bind group (group 2) once set.
    Material {
        material: Md2Material,
        group: Option<wgpu::BindGroup>,
    },
    /// No colour: depth only.
    DepthOnly,
}

impl Look {
    /// The (first) colour format; `None` for depth only.
    pub fn color_format(&self) -> Option<wgpu::TextureFormat> {
        match self {
            Look::Builtin { format, .. } => Some(*format),
            Look::Material { material, .. } => material.targets().first().map(|t| t.format),
            Look::DepthOnly => None,
        }
    }

    /// Every colour target, in location order.
    pub fn color_targets(&self) -> Vec<wgpu::TextureFormat> {
        match self {
            Look::Builtin { format, motion, .. } => {
                std::iter::once(*format).chain(*motion).collect()
            }
            Look::Material { material, .. } => {
                material.targets().iter().map(|t| t.format).collect()
            }
            Look::DepthOnly => Vec::new(),
        }
    }

    /// Whether the draws read the extra record (previous transform and
    /// pose, index, id): for motion vectors, and for a material that reads
    /// them.
    pub fn extra(&self) -> bool {
        match self {
            Look::Builtin { motion, .. } => motion.is_some(),
            Look::Material { material, .. } => material.reads_extra(),
            Look::DepthOnly => false,
        }
    }

    /// The material's bind group is missing where its layout wants one.
    pub fn check_bind_group(&self) -> Result<(), PrepareError> {
        match self {
            Look::Material { material, group } if material.has_bind_group() && group.is_none() => {
                Err(PrepareError::MaterialBindGroupMissing)
            }
            _ => Ok(()),
        }
    }

    /// The pipeline of `draw` for a renderer with this look and options
    /// (for the resident crowd's draws, or the immediate path's): the
    /// cache's built-in one, or the material's.
    pub fn pipeline(
        &self,
        device: &wgpu::Device,
        cache: &Md2Cache,
        options: &Md2RendererOptions,
        draw: Draw,
        resident: bool,
    ) -> Result<wgpu::RenderPipeline, SetupError> {
        let pass = PassKey {
            multisample: options.multisample,
            depth: options.depth.map(Into::into),
            cull_back_faces: options.cull_back_faces,
            draw,
            resident,
        };
        let builtin = |color, motion| {
            cache.pipeline(
                device,
                BuiltinKey {
                    color,
                    motion,
                    pass,
                },
            )
        };
        match self {
            Look::Builtin {
                format,
                encode,
                motion,
            } => Ok(builtin(Some((*format, *encode)), *motion)),
            Look::DepthOnly => Ok(builtin(None, None)),
            Look::Material { material, .. } => material.pipeline(device, pass),
        }
    }
}

/// The pipelines one renderer draws with, from its cache: one set for the
/// immediate path's draws, one for the resident crowd's.
#[derive(Debug)]
pub(crate) struct Pipelines {
    /// The resident crowd's draws (instances from storage).
    resident: bool,
    /// Opaque (or depth-only) instances.
    pub opaque: wgpu::RenderPipeline,
    pub translucent: Option<wgpu::RenderPipeline>,
    pub shell: Option<wgpu::RenderPipeline>,
    /// The shadow's, for the stencil masks of the shadow it was built for;
    /// fetched by `prepare` when the shadow's masks change.
    pub shadow: Option<(Draw, wgpu::RenderPipeline)>,
}

impl Pipelines {
    /// The pipelines `look` draws with (the shadow's comes later).
    pub fn new(
        device: &wgpu::Device,
        cache: &Md2Cache,
        look: &Look,
        options: &Md2RendererOptions,
        resident: bool,
    ) -> Result<Pipelines, SetupError> {
        let fetch = |draw| look.pipeline(device, cache, options, draw, resident);
        Ok(match look {
            Look::DepthOnly => Pipelines {
                resident,
                opaque: fetch(Draw::DepthOnly)?,
                translucent: None,
                shell: None,
                shadow: None,
            },
            _ => Pipelines {
                resident,
                opaque: fetch(Draw::Opaque)?,
                translucent: Some(fetch(Draw::Translucent)?),
                shell: Some(fetch(Draw::Shell)?),
                shadow: None,
            },
        })
    }

    /// Fetches the shadow pipeline for `shadow`'s stencil masks where they
    /// changed (a depth-only look draws no shadows).
    pub fn fit_shadow(
        &mut self,
        device: &wgpu::Device,
        cache: &Md2Cache,
        look: &Look,
        options: &Md2RendererOptions,
        shadow: Option<&PlanarShadow>,
    ) -> Result<(), PrepareError> {
        let Some(shadow) = shadow.filter(|_| look.color_format().is_some()) else {
            return Ok(());
        };
        let draw = Draw::Shadow {
            read_mask: shadow.stencil.read_mask,
            write_mask: shadow.stencil.write_mask,
        };
        if self.shadow.as_ref().is_some_and(|(d, _)| *d == draw) {
            return Ok(());
        }
        let pipeline = look
            .pipeline(device, cache, options, draw, self.resident)
            .map_err(PrepareError::Setup)?;
        self.shadow = Some((draw, pipeline));
        Ok(())
    }
}
