//! How a renderer draws: the pass it draws into (multisampling, the app's
//! depth conventions), what its colour output means, and what it does with
//! instances that ask for frames or skins a model lacks. Chosen once per
//! renderer, like the pipelines they select.

/// The depth test and write of the app's pass, as the renderer's pipelines
/// take it: format, compare, write, bias.
///
/// Presets cover the usual conventions; any field may be set.
///
/// ```
/// use md2_wgpu::DepthState;
/// // Depth cleared to 0, nearer is greater: reverse-Z.
/// let reverse = DepthState::reverse_z(wgpu::TextureFormat::Depth32Float);
/// assert_eq!(reverse.compare, wgpu::CompareFunction::Greater);
/// // A colour pass after a depth pre-pass: test against it, do not write.
/// let after_prepass = DepthState::LESS.with_compare(wgpu::CompareFunction::LessEqual).without_write();
/// assert!(!after_prepass.write);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthState {
    /// The depth attachment's format (a stencil aspect is only needed for
    /// planar shadows).
    pub format: wgpu::TextureFormat,
    /// The depth test.
    pub compare: wgpu::CompareFunction,
    /// Whether the opaque draws write depth. Translucent instances, shells
    /// and shadows never do.
    pub write: bool,
    /// Depth bias of the opaque and depth-only draws (for shadow maps).
    pub bias: wgpu::DepthBiasState,
}

impl DepthState {
    /// `Depth32Float`, `Less`, writing: depth cleared to 1, nearer is less.
    pub const LESS: DepthState = DepthState::standard(wgpu::TextureFormat::Depth32Float);

    /// `Depth24PlusStencil8`, `Less`, writing: [`DepthState::LESS`] with the
    /// stencil aspect that [planar shadows](crate::PlanarShadow) need.
    pub const LESS_STENCIL: DepthState =
        DepthState::standard(wgpu::TextureFormat::Depth24PlusStencil8);

    /// Nearer is less (`Less`), writing: depth cleared to 1.
    pub const fn standard(format: wgpu::TextureFormat) -> DepthState {
        DepthState {
            format,
            compare: wgpu::CompareFunction::Less,
            write: true,
            bias: NO_BIAS,
        }
    }

    /// Reverse-Z (`Greater`, writing): depth cleared to 0, nearer is
    /// greater. Pair it with [`Camera::perspective_reverse_z`](crate::Camera::perspective_reverse_z).
    pub const fn reverse_z(format: wgpu::TextureFormat) -> DepthState {
        DepthState {
            compare: wgpu::CompareFunction::Greater,
            ..DepthState::standard(format)
        }
    }

    /// The same state with another depth test.
    pub const fn with_compare(self, compare: wgpu::CompareFunction) -> DepthState {
        DepthState { compare, ..self }
    }

    /// The same state, testing depth without writing it.
    pub const fn without_write(self) -> DepthState {
        DepthState {
            write: false,
            ..self
        }
    }

    /// The same state with a depth bias (constant in depth-buffer units,
    /// slope-scaled, clamped), as shadow maps want.
    pub const fn with_bias(self, constant: i32, slope_scale: f32, clamp: f32) -> DepthState {
        DepthState {
            bias: wgpu::DepthBiasState {
                constant,
                slope_scale,
                clamp,
            },
            ..self
        }
    }

    /// The same state in another format.
    pub const fn with_format(self, format: wgpu::TextureFormat) -> DepthState {
        DepthState { format, ..self }
    }

    /// Whether the format has a stencil aspect (needed for planar shadows).
    pub fn has_stencil(&self) -> bool {
        self.format.has_stencil_aspect()
    }
}

const NO_BIAS: wgpu::DepthBiasState = wgpu::DepthBiasState {
    constant: 0,
    slope_scale: 0.0,
    clamp: 0.0,
};

/// What the colour a renderer writes means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ColorOutput {
    /// [`Linear`](ColorOutput::Linear) for sRGB formats (the hardware
    /// encodes) and float formats; [`SrgbEncoded`](ColorOutput::SrgbEncoded)
    /// for other formats, as a surface that is shown as it is wants.
    #[default]
    Auto,
    /// Linear light, unclamped: for sRGB targets, float targets and targets
    /// the application post-processes itself (tone mapping, bloom), whatever
    /// their format.
    Linear,
    /// Colour encoded to sRGB by the shader (clamped to `[0, 1]`): for a
    /// non-sRGB unorm target that is displayed directly. On an sRGB format it
    /// would be encoded twice; [`Md2Renderer::new`](crate::Md2Renderer::new)
    /// refuses that.
    SrgbEncoded,
}

impl ColorOutput {
    /// What `Auto` means for `format`, and the others as they are.
    pub fn resolve(self, format: wgpu::TextureFormat) -> ColorOutput {
        match self {
            ColorOutput::Auto if shader_should_encode(format) => ColorOutput::SrgbEncoded,
            ColorOutput::Auto => ColorOutput::Linear,
            other => other,
        }
    }
}

/// Whether a displayed target of this format needs the shader to encode
/// sRGB: normalised formats without sRGB hardware encoding. Float targets
/// hold linear light, as sRGB ones do after decoding.
fn shader_should_encode(format: wgpu::TextureFormat) -> bool {
    use wgpu::TextureFormat as F;
    !format.is_srgb()
        && !matches!(
            format,
            F::R16Float
                | F::Rg16Float
                | F::Rgba16Float
                | F::R32Float
                | F::Rg32Float
                | F::Rgba32Float
                | F::Rg11b10Ufloat
                | F::Rgb9e5Ufloat
        )
}

/// What `prepare` does with a bad instance: one whose frame or skin the
/// model does not have, or with a value that is not finite.
///
/// # Bad values, on both paths
///
/// One rule holds for the immediate path and the resident crowd: **a value
/// that is NaN or infinite never reaches the GPU and is never silently read
/// as another value; it is refused with a typed error that names it.** On
/// the immediate path the refusal follows this policy; a crowd refuses the
/// change at the call ([`CrowdError`](crate::CrowdError), and nothing
/// changes), as `Strict` does.
///
/// | value not finite | `Strict` | `Skip` | `Clamp` | [`Md2Crowd`](crate::Md2Crowd) |
/// |---|---|---|---|---|
/// | transform | error `"transform"` | left out | left out (nothing to clamp to) | `NotFinite("transform")` |
/// | tint channel | error `"tint"` | left out | drawn: NaN as 0, ±∞ clamped to the range below | `NotFinite("tint")` |
/// | time or speed (a pose's `t` or `weight` is NaN) | error `"pose.primary.t"`, ... | left out | drawn: NaN as 0, ±∞ clamped to `[0, 1]` | `NotFinite("start")`, `("speed")`, ...; a frame time: [`PrepareError::TimeNotFinite`](crate::PrepareError::TimeNotFinite) |
/// | fade duration | as time | as time | as time | `NotFinite("fade duration")` |
///
/// The immediate path receives poses, not times: the CPU helpers that turn
/// a time into a pose ([`Clip::sample`](crate::Clip::sample),
/// [`Playback::pose`](crate::Playback::pose),
/// [`Crossfade::pose`](crate::Crossfade::pose),
/// [`Md2Instance::from_clip`](crate::Md2Instance::from_clip)) give a NaN
/// blend factor for a time, speed or duration that is not finite, so the
/// same bad value meets the same rule here as in a crowd. Finite values
/// out of range are read, on both paths, as documented where they are
/// given: blend factors clamped to `[0, 1]`; tint colour channels below 0
/// as 0 and above 65,504 (the largest f16 intensity) as 65,504, alpha
/// clamped to `[0, 1]`; a clip's `fps` that is 0, negative or not finite
/// holds its first frame (a clip that cannot advance).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InstancePolicy {
    /// Fail the whole `prepare` with the first bad instance's error; nothing
    /// is drawn until the next successful one. For development.
    #[default]
    Strict,
    /// Leave bad instances out and draw the rest; the report says how many
    /// and names the first few.
    Skip,
    /// Draw bad instances repaired where a repair exists (frames and skin
    /// clamped to the model's last, tint and blend factors as the table
    /// says) and leave out those with a non-finite transform; the report
    /// says how many and names the first few.
    Clamp,
}

/// The order in which translucent instances (tint alpha below 1) and
/// shells are blended, on both paths.
///
/// Either way the picture depends only on the inputs: the same frame drawn
/// twice gives the same pixels. Order is kept within one batch (one
/// [`Md2Batch`](crate::Md2Batch)) or one crowd; batches and crowds are
/// drawn one after another in the order given to `prepare` and
/// `prepare_crowds`, as each is one instanced draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TranslucentOrder {
    /// The order given: a batch's instances in slice order, a crowd's
    /// members in its order ([`Md2Crowd::iter`](crate::Md2Crowd::iter)).
    /// Quake II did not sort either.
    #[default]
    AsGiven,
    /// Back to front by view depth: the farthest instance first, so that
    /// overlapping translucent instances blend as they would in the world.
    /// The depth is that of the instance's origin (the transform's
    /// translation; [`Md2Renderer::view_depth`](crate::Md2Renderer::view_depth)
    /// computes it); equal depths keep the given order. A crowd sorts its
    /// visible translucent members and shells on the GPU, every frame.
    BackToFront,
}

/// How a [`Md2Renderer`](crate::Md2Renderer) draws: chosen once, like the
/// pipelines it selects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Md2RendererOptions {
    /// The render pass's multisample state (any sample count the adapter
    /// allows for the colour format).
    pub multisample: wgpu::MultisampleState,
    /// The render pass's depth attachment and how to test it, or `None`
    /// for a pass without depth.
    pub depth: Option<DepthState>,
    /// What the colour output means (ignored by depth-only renderers).
    pub output: ColorOutput,
    /// What `prepare` does with bad instances.
    pub policy: InstancePolicy,
    /// Cull faces turned away from the camera (the default). MD2 triangles
    /// are wound clockwise seen from outside, and mirrored instances
    /// (negative determinant) are culled the other way round, so culling
    /// shows every instance's outside.
    pub cull_back_faces: bool,
    /// The blending order of translucent instances and shells.
    pub translucent_order: TranslucentOrder,
    /// Motion vectors from the built-in look too: a second colour target of
    /// this format (`Rg16Float`), to which the opaque pass writes each
    /// pixel's motion, `md2_motion` in md2.wgsl (x, y in UV units: current
    /// minus previous, y down), and the blending passes nothing (a pixel's
    /// motion is that of the opaque surface behind). Needs the previous
    /// frame's transforms and poses: the resident crowd keeps them; the
    /// immediate path takes them in [`Md2Batch::with_previous`](crate::Md2Batch::with_previous).
    /// A material writes motion where it likes (`md2_motion(in)`), and
    /// ignores this.
    pub motion_target: Option<wgpu::TextureFormat>,
    /// Levels of detail: each instance of a model that has them
    /// ([`GpuModelOptions::levels`](crate::GpuModelOptions)) is drawn at
    /// the coarsest level whose error, projected at its distance, is at
    /// most this many pixels on the camera's viewport
    /// ([`Camera::with_viewport`](crate::Camera::with_viewport)). 1 by
    /// default; 0 draws everything at full detail.
    pub lod_error_pixels: f32,
}

impl Md2RendererOptions {
    /// No multisampling, no depth, automatic colour output, strict,
    /// back faces culled.
    pub const DEFAULT: Md2RendererOptions = Md2RendererOptions {
        multisample: wgpu::MultisampleState {
            count: 1,
            mask: !0,
            alpha_to_coverage_enabled: false,
        },
        depth: None,
        output: ColorOutput::Auto,
        policy: InstancePolicy::Strict,
        cull_back_faces: true,
        translucent_order: TranslucentOrder::AsGiven,
        motion_target: None,
        lod_error_pixels: 1.0,
    };

    /// [`Md2RendererOptions::DEFAULT`] with a `Depth32Float` depth buffer
    /// tested with `Less`: what a 3D scene usually wants.
    pub const WITH_DEPTH: Md2RendererOptions =
        Md2RendererOptions::DEFAULT.with_depth(DepthState::LESS);

    /// [`Md2RendererOptions::DEFAULT`] with a `Depth24PlusStencil8` depth
    /// buffer tested with `Less` ([`DepthState::LESS_STENCIL`]): a 3D scene
    /// with planar shadows.
    pub const WITH_DEPTH_STENCIL: Md2RendererOptions =
        Md2RendererOptions::DEFAULT.with_depth(DepthState::LESS_STENCIL);

    /// The same options with levels of detail chosen at most `pixels` off
    /// (see [`Md2RendererOptions::lod_error_pixels`]).
    pub const fn with_lod_error_pixels(self, pixels: f32) -> Md2RendererOptions {
        Md2RendererOptions {
            lod_error_pixels: pixels,
            ..self
        }
    }

    /// The same options with this depth state.
    pub const fn with_depth(self, depth: DepthState) -> Md2RendererOptions {
        Md2RendererOptions {
            depth: Some(depth),
            ..self
        }
    }

    /// The same options with `count` samples per pixel.
    pub const fn with_sample_count(self, count: u32) -> Md2RendererOptions {
        Md2RendererOptions {
            multisample: wgpu::MultisampleState {
                count,
                ..self.multisample
            },
            ..self
        }
    }

    /// The same options with this colour output.
    pub const fn with_output(self, output: ColorOutput) -> Md2RendererOptions {
        Md2RendererOptions { output, ..self }
    }

    /// The same options with this policy for bad instances.
    pub const fn with_policy(self, policy: InstancePolicy) -> Md2RendererOptions {
        Md2RendererOptions { policy, ..self }
    }

    /// The same options with the built-in look's motion vectors in a second
    /// target of this format (see [`Md2RendererOptions::motion_target`]).
    pub const fn with_motion_target(self, format: wgpu::TextureFormat) -> Md2RendererOptions {
        Md2RendererOptions {
            motion_target: Some(format),
            ..self
        }
    }

    /// The same options with this blending order for translucent instances
    /// and shells.
    pub const fn with_translucent_order(self, order: TranslucentOrder) -> Md2RendererOptions {
        Md2RendererOptions {
            translucent_order: order,
            ..self
        }
    }
}

impl Default for Md2RendererOptions {
    fn default() -> Self {
        Md2RendererOptions::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_output_encodes_only_for_displayed_unorm_targets() {
        use wgpu::TextureFormat as F;
        let auto = |f| ColorOutput::Auto.resolve(f);
        assert_eq!(auto(F::Rgba8UnormSrgb), ColorOutput::Linear);
        assert_eq!(auto(F::Bgra8UnormSrgb), ColorOutput::Linear);
        assert_eq!(auto(F::Rgba16Float), ColorOutput::Linear);
        assert_eq!(auto(F::Rgba8Unorm), ColorOutput::SrgbEncoded);
        assert_eq!(auto(F::Bgra8Unorm), ColorOutput::SrgbEncoded);
        assert_eq!(auto(F::Rgb10a2Unorm), ColorOutput::SrgbEncoded);
        assert_eq!(
            ColorOutput::Linear.resolve(F::Rgba8Unorm),
            ColorOutput::Linear
        );
    }

    #[test]
    fn presets() {
        assert_eq!(Md2RendererOptions::default(), Md2RendererOptions::DEFAULT);
        assert_eq!(Md2RendererOptions::WITH_DEPTH.depth, Some(DepthState::LESS));
        assert_eq!(
            Md2RendererOptions::DEFAULT
                .with_sample_count(4)
                .multisample
                .count,
            4
        );
        let reverse = DepthState::reverse_z(wgpu::TextureFormat::Depth24PlusStencil8);
        assert!(reverse.write && reverse.has_stencil());
        assert_eq!(reverse.compare, wgpu::CompareFunction::Greater);
    }
}
