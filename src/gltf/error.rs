//! What can stop an export.

use std::fmt;

/// Why a model could not be exported to glTF.
///
/// A loaded [`Md2Model`](crate::Md2Model) is always consistent (at least one
/// frame and triangle, every index in range, finite scales: a file without
/// them is refused when it loads, with an [`Md2Error`](crate::format::Md2Error)), so
/// these are about the options and about what the numbers become: each says
/// what was wrong and where.
#[derive(Debug)]
#[non_exhaustive]
pub enum GltfError {
    /// [`GltfOptions::base_frame`](super::GltfOptions::base_frame) is past
    /// the model's frames.
    BaseFrameOutOfRange {
        /// The frame asked for.
        frame: u32,
        /// How many frames the model has.
        frame_count: u32,
    },
    /// [`GltfOptions::scale`](super::GltfOptions::scale) is zero, negative
    /// (a mirror, which would turn every face inside out), NaN or infinite.
    InvalidScale {
        /// The scale given.
        scale: f32,
    },
    /// A clip's frame rate is zero, negative, NaN or infinite, or so small
    /// or large that its key times are not finite and increasing in `f32`.
    InvalidFps {
        /// The clip's name.
        clip: String,
        /// Its frames per second.
        fps: f32,
    },
    /// A clip plays frames the model does not have.
    ClipOutOfRange {
        /// The clip's name.
        clip: String,
        /// Its first frame.
        first: u32,
        /// Its last frame.
        last: u32,
        /// How many frames the model has.
        frame_count: u32,
    },
    /// A position, scaled to the output units, is not finite (a frame
    /// scale near `f32::MAX` times the scale option overflows).
    NonFinitePosition {
        /// The frame.
        frame: u32,
        /// The vertex (index into the frame's vertices).
        vertex: u32,
        /// The position found, in glTF's axes.
        value: [f32; 3],
    },
    /// A skin image could not be encoded as PNG.
    SkinEncoding {
        /// Its index in the skins given.
        skin: usize,
        /// What the encoder said.
        reason: String,
    },
    /// The GLB would be larger than
    /// [`GltfOptions::max_bytes`](super::GltfOptions::max_bytes) (or than
    /// the 4 GiB a GLB header can describe). Found before the large buffers
    /// are allocated.
    TooLarge {
        /// The size the GLB would have, at least, in bytes.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A clip's weights (keys × morph targets) are more than the 32-bit
    /// indices of a sparse accessor reach: a model of tens of thousands of
    /// frames.
    TooManyWeights {
        /// The clip's name.
        clip: String,
        /// Keys × morph targets.
        count: u64,
    },
    /// An MD3 model lacks a tag the export needs: a player's `tag_torso`
    /// (legs), `tag_head` or `tag_weapon` (torso), in some frame.
    MissingTag {
        /// The tag's name.
        tag: String,
        /// The model's name (from its header).
        model: String,
    },
    /// The glTF JSON or the GLB container could not be written (what
    /// serde_json or gltf said: not expected for the values an export
    /// holds).
    Write {
        /// What went wrong.
        reason: String,
    },
}

impl fmt::Display for GltfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GltfError::BaseFrameOutOfRange { frame, frame_count } => write!(
                f,
                "base frame {frame} does not exist: the model has {frame_count} frames"
            ),
            GltfError::InvalidScale { scale } => write!(
                f,
                "scale {scale} is not a positive finite number of output units per model unit"
            ),
            GltfError::InvalidFps { clip, fps } => write!(
                f,
                "clip {clip:?}: {fps} frames per second does not give finite, increasing key times"
            ),
            GltfError::ClipOutOfRange {
                clip,
                first,
                last,
                frame_count,
            } => write!(
                f,
                "clip {clip:?} plays frames {first}..={last}, but the model has {frame_count} frames"
            ),
            GltfError::NonFinitePosition {
                frame,
                vertex,
                value,
            } => write!(
                f,
                "frame {frame}, vertex {vertex}: position {value:?} is not finite in the output units"
            ),
            GltfError::SkinEncoding { skin, reason } => {
                write!(f, "skin {skin}: cannot encode as PNG: {reason}")
            }
            GltfError::TooLarge { size, limit } => write!(
                f,
                "the GLB would be at least {size} bytes, more than the limit of {limit}"
            ),
            GltfError::TooManyWeights { clip, count } => write!(
                f,
                "clip {clip:?} has {count} weights (keys × morph targets), more than a 32-bit sparse index reaches"
            ),
            GltfError::MissingTag { tag, model } => {
                write!(f, "MD3 model {model:?} has no tag {tag:?} in some frame")
            }
            GltfError::Write { reason } => write!(f, "cannot write the GLB: {reason}"),
        }
    }
}

impl std::error::Error for GltfError {}
