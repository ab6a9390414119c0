//! The app's depth conventions, as the crate's pipelines take them.

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
    /// stencil aspect that [planar shadows](crate::scene::PlanarShadow) need.
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
