//! What can go wrong on the GPU side, before wgpu ever sees it.

use std::fmt;

/// Why a model could not be uploaded or a frame could not be prepared.
///
/// Every check runs on the CPU before anything reaches the GPU, so a bad
/// frame number, skin or model size is this error rather than a wgpu
/// validation panic.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RenderError {
    /// An instance names a frame the model does not have.
    FrameOutOfRange {
        /// Index of the batch in the slice given to `prepare`.
        batch: usize,
        /// Index of the instance in its batch.
        instance: usize,
        /// Which frame of the pose: `"primary.frame_a"`, `"primary.frame_b"`,
        /// `"secondary.frame_a"` or `"secondary.frame_b"`.
        field: &'static str,
        /// The frame asked for.
        frame: u32,
        /// How many frames the model has.
        frame_count: u32,
    },
    /// An instance names a skin the model does not have.
    SkinOutOfRange {
        /// Index of the batch in the slice given to `prepare`.
        batch: usize,
        /// Index of the instance in its batch.
        instance: usize,
        /// The skin asked for.
        skin: u32,
        /// How many skins the model has (1 for the default texture).
        skin_count: u32,
    },
    /// One of the model's buffers is larger than the device allows.
    ModelTooLarge {
        /// Which buffer: `"vertex data"`, `"frame parameters"`, ...
        buffer: &'static str,
        /// Its size in bytes.
        bytes: u64,
        /// The device limit it exceeds, by its `wgpu::Limits` field name.
        limit_name: &'static str,
        /// The limit's value on this device.
        limit: u64,
    },
    /// The model has more frames than an instance record can address.
    TooManyFrames {
        /// The model's frame count.
        frames: usize,
        /// The most the renderer supports (65,536; Quake II allowed 512).
        max: usize,
    },
    /// The model has more skins than the device allows texture array layers.
    TooManySkins {
        /// Skins given.
        skins: usize,
        /// The device's `max_texture_array_layers`.
        max: u32,
    },
    /// The instances of one `prepare` call do not fit in one buffer.
    TooManyInstances {
        /// Instances in all batches together.
        instances: usize,
        /// The bytes they need.
        bytes: u64,
        /// The device's `max_buffer_size`.
        limit: u64,
    },
    /// The device offers less than the renderer needs (see
    /// [`required_limits`](crate::required_limits)).
    UnsupportedDevice {
        /// The `wgpu::Limits` field.
        limit_name: &'static str,
        /// What the renderer needs.
        needed: u32,
        /// What the device has.
        available: u32,
    },
    /// wgpu reported an error (for example out of memory) while creating
    /// or reading back an object.
    Device {
        /// What was being done.
        operation: &'static str,
        /// wgpu's message.
        message: String,
    },
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenderError::FrameOutOfRange {
                batch,
                instance,
                field,
                frame,
                frame_count,
            } => write!(
                f,
                "batch {batch}, instance {instance}: {field} is {frame}, but the model has \
                 {frame_count} frames (0..={})",
                frame_count.saturating_sub(1)
            ),
            RenderError::SkinOutOfRange {
                batch,
                instance,
                skin,
                skin_count,
            } => write!(
                f,
                "batch {batch}, instance {instance}: skin {skin} asked for, but the model has \
                 {skin_count} skin(s)"
            ),
            RenderError::ModelTooLarge {
                buffer,
                bytes,
                limit_name,
                limit,
            } => write!(
                f,
                "the model's {buffer} needs {bytes} bytes, more than this device's \
                 {limit_name} of {limit} bytes"
            ),
            RenderError::TooManyFrames { frames, max } => write!(
                f,
                "the model has {frames} frames; the renderer addresses at most {max}"
            ),
            RenderError::TooManySkins { skins, max } => write!(
                f,
                "{skins} skins given, but this device allows {max} texture array layers"
            ),
            RenderError::TooManyInstances {
                instances,
                bytes,
                limit,
            } => write!(
                f,
                "{instances} instances need {bytes} bytes of instance data, more than this \
                 device's max_buffer_size of {limit} bytes"
            ),
            RenderError::UnsupportedDevice {
                limit_name,
                needed,
                available,
            } => write!(
                f,
                "the device's {limit_name} is {available}; the renderer needs at least {needed}"
            ),
            RenderError::Device { operation, message } => {
                write!(f, "wgpu error while {operation}: {message}")
            }
        }
    }
}

impl std::error::Error for RenderError {}
