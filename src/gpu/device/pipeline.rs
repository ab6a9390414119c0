//! What a render pipeline of the crate depends on, and how one is built:
//! the draw it makes (opaque, translucent, shell, shadow, depth-only), the
//! pass it draws into (targets, samples, depth state, culling), and the
//! shading (the built-in look, or an app's material). The cache builds the
//! built-in pipelines, a material builds its own; both with [`build`].

use super::depth::DepthState;
use super::layouts::vertex_buffers_with_extra;
use crate::contract::{BUILTIN_PHASE, CULL_IN_FRAGMENT, entry, phase};

/// Which draw a pipeline makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Draw {
    /// Lit and skinned, no blending, depth as the app says.
    Opaque,
    /// Lit and skinned, alpha-blended, depth tested but not written; culled
    /// per instance in the fragment stage.
    Translucent,
    /// Pushed out along the normals, flat colour, blended, no depth writes;
    /// culled per instance in the fragment stage.
    Shell,
    /// Projected onto the shadow plane, flat colour, blended once per pixel
    /// by the stencil (these read and write masks), no depth writes.
    Shadow { read_mask: u32, write_mask: u32 },
    /// Positions only, no colour target.
    DepthOnly,
}

impl Draw {
    /// Whether the draw blends over what is below (and writes no depth).
    fn blends(self) -> bool {
        matches!(self, Draw::Translucent | Draw::Shell | Draw::Shadow { .. })
    }

    /// The vertex entry point, reading the extra record or not, of the
    /// immediate path's draws (instances as vertex attributes) or the
    /// resident crowd's (instances from the crowd's storage).
    fn vertex_entry(self, extra: bool, resident: bool) -> &'static str {
        match (self, extra, resident) {
            (Draw::Opaque | Draw::Translucent, false, false) => entry::VS_MAIN,
            (Draw::Opaque | Draw::Translucent, true, false) => entry::VS_MAIN_EXTRA,
            (Draw::Shell, false, false) => entry::VS_SHELL,
            (Draw::Shell, true, false) => entry::VS_SHELL_EXTRA,
            (Draw::Shadow { .. }, false, false) => entry::VS_SHADOW,
            (Draw::Shadow { .. }, true, false) => entry::VS_SHADOW_EXTRA,
            (Draw::DepthOnly, _, false) => entry::VS_DEPTH,
            (Draw::Opaque | Draw::Translucent, false, true) => entry::VS_MAIN_CROWD,
            (Draw::Opaque | Draw::Translucent, true, true) => entry::VS_MAIN_EXTRA_CROWD,
            (Draw::Shell, false, true) => entry::VS_SHELL_CROWD,
            (Draw::Shell, true, true) => entry::VS_SHELL_EXTRA_CROWD,
            (Draw::Shadow { .. }, false, true) => entry::VS_SHADOW_CROWD,
            (Draw::Shadow { .. }, true, true) => entry::VS_SHADOW_EXTRA_CROWD,
            (Draw::DepthOnly, _, true) => entry::VS_DEPTH_CROWD,
        }
    }

    /// The phase (`MD2_PHASE_*`) the built-in look draws in: opaque and
    /// translucent shade alike.
    fn builtin_phase(self) -> u32 {
        match self {
            Draw::Shell => phase::SHELLS,
            Draw::Shadow { .. } => phase::SHADOWS,
            _ => phase::OPAQUE,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Draw::Opaque => "md2-wgpu opaque pipeline",
            Draw::Translucent => "md2-wgpu translucent pipeline",
            Draw::Shell => "md2-wgpu shell pipeline",
            Draw::Shadow { .. } => "md2-wgpu shadow pipeline",
            Draw::DepthOnly => "md2-wgpu depth-only pipeline",
        }
    }
}

/// The pass a pipeline draws into, as a hash key: samples, depth state,
/// culling, the draw, and where its instances come from (the colour
/// targets are the shading's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PassKey {
    pub multisample: wgpu::MultisampleState,
    pub depth: Option<DepthKey>,
    pub cull_back_faces: bool,
    pub draw: Draw,
    /// The resident crowd's draws (instances from storage, group 3), not
    /// the immediate path's (instances as vertex attributes).
    pub resident: bool,
}

/// A [`DepthState`] as a hash key (the bias floats by their bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct DepthKey {
    format: wgpu::TextureFormat,
    compare: wgpu::CompareFunction,
    write: bool,
    bias: (i32, u32, u32),
}

impl From<DepthState> for DepthKey {
    fn from(d: DepthState) -> DepthKey {
        DepthKey {
            format: d.format,
            compare: d.compare,
            write: d.write,
            bias: (
                d.bias.constant,
                d.bias.slope_scale.to_bits(),
                d.bias.clamp.to_bits(),
            ),
        }
    }
}

impl DepthKey {
    fn state(&self, draw: Draw) -> wgpu::DepthStencilState {
        let writes = self.write && matches!(draw, Draw::Opaque | Draw::DepthOnly);
        let biased = matches!(draw, Draw::Opaque | Draw::DepthOnly);
        let stencil = if let Draw::Shadow {
            read_mask,
            write_mask,
        } = draw
        {
            // The first shadow fragment of a pixel passes and inverts the
            // write-mask bits, so every later one fails (see ShadowStencil).
            // Inverting, unlike incrementing, touches no bit outside the
            // mask, whatever the app keeps in the others.
            let face = wgpu::StencilFaceState {
                compare: wgpu::CompareFunction::Equal,
                fail_op: wgpu::StencilOperation::Keep,
                depth_fail_op: wgpu::StencilOperation::Keep,
                pass_op: wgpu::StencilOperation::Invert,
            };
            wgpu::StencilState {
                front: face,
                back: face,
                read_mask,
                write_mask,
            }
        } else {
            // Leave the app's stencil alone.
            wgpu::StencilState {
                front: wgpu::StencilFaceState::IGNORE,
                back: wgpu::StencilFaceState::IGNORE,
                read_mask: 0,
                write_mask: 0,
            }
        };
        wgpu::DepthStencilState {
            format: self.format,
            depth_write_enabled: Some(writes),
            depth_compare: Some(self.compare),
            stencil,
            bias: if biased {
                wgpu::DepthBiasState {
                    constant: self.bias.0,
                    slope_scale: f32::from_bits(self.bias.1),
                    clamp: f32::from_bits(self.bias.2),
                }
            } else {
                wgpu::DepthBiasState::default()
            },
        }
    }
}

/// The shading half of a pipeline: the module, its layouts (the immediate
/// path's and the resident crowd's), whether its vertex stage reads the
/// extra record, its fragment entry point and targets.
pub(crate) struct Shading<'a> {
    pub module: &'a wgpu::ShaderModule,
    pub layout: &'a wgpu::PipelineLayout,
    pub resident_layout: &'a wgpu::PipelineLayout,
    pub extra: bool,
    pub fragment: &'a str,
    /// The colour targets of the opaque pass.
    pub opaque_targets: &'a [wgpu::ColorTargetState],
    /// The colour targets of the passes that blend (translucent, shells,
    /// shadows).
    pub blended_targets: &'a [wgpu::ColorTargetState],
}

/// Builds the pipeline of `pass` with `shading` (`None`: depth-only, with
/// the module and the immediate and resident layouts of `depth_only`).
pub(crate) fn build(
    device: &wgpu::Device,
    pass: &PassKey,
    shading: Option<&Shading<'_>>,
    depth_only: (
        &wgpu::ShaderModule,
        &wgpu::PipelineLayout,
        &wgpu::PipelineLayout,
    ),
) -> wgpu::RenderPipeline {
    let draw = pass.draw;
    let extra = shading.is_some_and(|s| s.extra);
    let buffers = vertex_buffers_with_extra();
    // The resident draws read their instances from storage: corners only.
    let buffers = match (pass.resident, extra) {
        (true, _) => &buffers[..1],
        (false, true) => &buffers[..],
        (false, false) => &buffers[..2],
    };
    // Translucent instances and shells draw both windings in one draw, so
    // that they blend in one order: the fragment stage culls them.
    let cull_in_fragment = matches!(draw, Draw::Translucent | Draw::Shell);
    let cull = f64::from(u8::from(cull_in_fragment && pass.cull_back_faces));
    let constants = [
        (CULL_IN_FRAGMENT, cull),
        (BUILTIN_PHASE, f64::from(draw.builtin_phase())),
    ];
    let targets: Vec<Option<wgpu::ColorTargetState>> = shading
        .map(|s| {
            let targets = if draw.blends() {
                s.blended_targets
            } else {
                s.opaque_targets
            };
            targets.iter().cloned().map(Some).collect()
        })
        .unwrap_or_default();
    let (module, layout) = match (shading, pass.resident) {
        (Some(s), false) => (s.module, s.layout),
        (Some(s), true) => (s.module, s.resident_layout),
        (None, false) => (depth_only.0, depth_only.1),
        (None, true) => (depth_only.0, depth_only.2),
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(draw.label()),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(draw.vertex_entry(extra, pass.resident)),
            compilation_options: Default::default(),
            buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            // Measured on real files (yohko, ogro): cross(v1 - v0, v2 - v0)
            // points against the stored vertex normals in over 99% of
            // triangles, i.e. triangles run clockwise seen from outside.
            // Quake II drew them with glCullFace(GL_FRONT). QUAKE_TO_Y_UP
            // is a rotation, so the winding survives into our world;
            // mirrored opaque instances draw with the reversed index list.
            front_face: wgpu::FrontFace::Cw,
            // A projected shadow's triangles face either way; the stencil
            // keeps them from darkening twice.
            cull_mode: (pass.cull_back_faces && matches!(draw, Draw::Opaque | Draw::DepthOnly))
                .then_some(wgpu::Face::Back),
            ..Default::default()
        },
        depth_stencil: pass.depth.map(|d| d.state(draw)),
        multisample: pass.multisample,
        fragment: shading.map(|s| wgpu::FragmentState {
            module: s.module,
            entry_point: Some(s.fragment),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &constants,
                ..Default::default()
            },
            targets: &targets,
        }),
        multiview_mask: None,
        cache: None,
    })
}
