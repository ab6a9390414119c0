//! How a renderer draws: the pass it draws into (multisampling, the app's
//! depth conventions), what its colour output means, what it does with bad
//! instances, its translucent order, motion target and level-of-detail
//! budget. Chosen once per renderer, like the pipelines they select.

use crate::gpu::device::DepthState;
use glam::Vec3;

use crate::scene::{Camera, InstancePolicy, TranslucentOrder, depth_row, view_depth};

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
    /// pixel's motion, `md2_motion` in `shaders/shading.wgsl` (x, y in UV units: current
    /// minus previous, y down), and the blending passes nothing (a pixel's
    /// motion is that of the opaque surface behind). Needs the previous
    /// frame's transforms and poses: the resident crowd keeps them; the
    /// immediate path takes them in [`Md2Batch::with_previous`](crate::gpu::Md2Batch::with_previous).
    /// A material writes motion where it likes (`md2_motion(in)`), and
    /// ignores this.
    pub motion_target: Option<wgpu::TextureFormat>,
    /// Levels of detail: each instance of a model that has them
    /// ([`GpuModelOptions::levels`](crate::contract::GpuModelOptions)) is drawn at
    /// the coarsest level whose error, projected at its distance, is at
    /// most this many pixels on the camera's viewport
    /// ([`Camera::with_viewport`](crate::Camera::with_viewport)). 1 by
    /// default; 0 draws everything at full detail.
    pub level_error_pixels: f32,
}

impl Md2RendererOptions {
    /// The view depth of the world point `point` as a renderer with these
    /// options sorts by it ([`TranslucentOrder::BackToFront`]), larger
    /// farther: for a perspective camera the distance along the line of
    /// sight (clip-space `w`), for an orthographic one the clip-space depth
    /// (negated for a reverse-Z [`DepthState`]).
    pub fn view_depth(&self, camera: &Camera, point: Vec3) -> f32 {
        view_depth(depth_row(&camera.view_proj, self.reverse_z()), point)
    }

    /// Whether nearer is greater in this depth test.
    pub(crate) fn reverse_z(&self) -> bool {
        self.depth.is_some_and(|d| {
            matches!(
                d.compare,
                wgpu::CompareFunction::Greater | wgpu::CompareFunction::GreaterEqual
            )
        })
    }

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
        level_error_pixels: 1.0,
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
    /// (see [`Md2RendererOptions::level_error_pixels`]).
    pub const fn with_level_error_pixels(self, pixels: f32) -> Md2RendererOptions {
        Md2RendererOptions {
            level_error_pixels: pixels,
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

    /// The same options culling faces turned away from the camera, or not
    /// (see [`Md2RendererOptions::cull_back_faces`]).
    pub const fn with_cull_back_faces(self, cull_back_faces: bool) -> Md2RendererOptions {
        Md2RendererOptions {
            cull_back_faces,
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

    /// Every field has its `with_` method, each setting that field alone.
    #[test]
    fn every_field_has_a_with_method() {
        let base = Md2RendererOptions::DEFAULT;
        let motion = wgpu::TextureFormat::Rg16Float;
        let all = base
            .with_depth(DepthState::LESS)
            .with_sample_count(4)
            .with_output(ColorOutput::Linear)
            .with_policy(InstancePolicy::Skip)
            .with_cull_back_faces(!base.cull_back_faces)
            .with_translucent_order(TranslucentOrder::BackToFront)
            .with_motion_target(motion)
            .with_level_error_pixels(2.5);
        let Md2RendererOptions {
            multisample,
            depth,
            output,
            policy,
            cull_back_faces,
            translucent_order,
            motion_target,
            level_error_pixels,
        } = all;
        assert_eq!(multisample.count, 4);
        assert_eq!(depth, Some(DepthState::LESS));
        assert_eq!(output, ColorOutput::Linear);
        assert_eq!(policy, InstancePolicy::Skip);
        assert_eq!(cull_back_faces, !base.cull_back_faces);
        assert_eq!(translucent_order, TranslucentOrder::BackToFront);
        assert_eq!(motion_target, Some(motion));
        assert_eq!(level_error_pixels, 2.5);
        assert_eq!(
            base.with_cull_back_faces(false),
            Md2RendererOptions {
                cull_back_faces: false,
                ..base
            }
        );
    }
}
