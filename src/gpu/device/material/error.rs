//! What is wrong with a material.

use std::fmt;

/// What is wrong with a material, in [`SetupError::Material`](crate::gpu::SetupError::Material).
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

impl std::error::Error for MaterialError {}
