//! What is wrong with what the app describes: an instance the renderer
//! cannot draw as given ([`InstanceError`]), a change a resident crowd
//! refuses ([`CrowdError`]). Both are found on the CPU, before anything
//! reaches the GPU.

use std::fmt;

/// Why an instance cannot be drawn as given.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InstanceError {
    /// It names a frame the model does not have.
    FrameOutOfRange {
        /// Index of the batch in the slice given to `prepare`.
        batch: usize,
        /// Index of the instance in its batch.
        instance: usize,
        /// Which frame, as [`fields`](crate::scene::fields) names it:
        /// `"pose.primary.frame_a"`, ..., or `"previous.pose.primary.frame_a"`,
        /// ....
        field: &'static str,
        /// The frame asked for.
        frame: u32,
        /// How many frames the model has.
        frame_count: u32,
    },
    /// It names a skin the model does not have.
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
    /// A value that must be finite is NaN or infinite: the transform, the
    /// tint, or a blend factor of the pose (where a time or speed that is
    /// not finite ends up: see the [playback](crate::anim::playback) module).
    NotFinite {
        /// Index of the batch in the slice given to `prepare`.
        batch: usize,
        /// Index of the instance in its batch.
        instance: usize,
        /// Which value, as [`fields`](crate::scene::fields) names it:
        /// `"transform"`, `"tint"`, `"pose.primary.t"`, ..., or the same
        /// under `"previous."` for a [`Md2Previous`](crate::scene::Md2Previous).
        field: &'static str,
    },
}

impl fmt::Display for InstanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceError::FrameOutOfRange {
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
            InstanceError::SkinOutOfRange {
                batch,
                instance,
                skin,
                skin_count,
            } => write!(
                f,
                "batch {batch}, instance {instance}: skin {skin} asked for, but the model has \
                 {skin_count} skin(s)"
            ),
            InstanceError::NotFinite {
                batch,
                instance,
                field,
            } => write!(
                f,
                "batch {batch}, instance {instance}: the {field} is not finite (NaN or infinite)"
            ),
        }
    }
}

impl std::error::Error for InstanceError {}

/// Why a resident crowd refused a change. Nothing is changed when it does.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum CrowdError {
    /// A clip names a frame the crowd's model does not have.
    FrameOutOfRange {
        /// Which clip, as [`fields`](crate::scene::fields) names it:
        /// `"playback.clock.clip"`, `"playback.fade.to.clip"` or
        /// `"next.clip"`.
        field: &'static str,
        /// The frame asked for.
        frame: u32,
        /// How many frames the model has.
        frame_count: u32,
    },
    /// A skin the model does not have.
    SkinOutOfRange {
        /// The skin asked for.
        skin: u32,
        /// How many skins the model has.
        skin_count: u32,
    },
    /// The handle's member was removed (or belongs to another crowd).
    StaleHandle,
    /// A value that must be finite is not (NaN or infinite), or a time lies
    /// beyond the clock's ±2⁴³ s.
    NotFinite {
        /// Which value, as [`fields`](crate::scene::fields) names it:
        /// `"transform"`, `"tint"`, `"playback.clock.speed"`, `"next.start"`,
        /// `"duration"`, ....
        field: &'static str,
    },
    /// A crossfade longer than the clock carries
    /// ([`MAX_FADE_SECONDS`](crate::anim::MAX_FADE_SECONDS)).
    FadeTooLong {
        /// The duration asked for, in seconds.
        seconds: f64,
    },
    /// More members than one buffer of this device holds.
    TooManyMembers {
        /// Members asked for.
        members: usize,
        /// The bytes they need (the largest of the crowd's buffers).
        bytes: u64,
        /// The device's `max_buffer_size` (or storage binding size).
        limit: u64,
    },
    /// The host could not make a buffer the crowd needs
    /// ([`CrowdBuffers`](crate::crowd::CrowdBuffers)): its message (out of
    /// memory, a lost device).
    HostBuffer {
        /// The host's message.
        message: String,
    },
}

impl fmt::Display for CrowdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CrowdError::FrameOutOfRange {
                field,
                frame,
                frame_count,
            } => write!(
                f,
                "{field} plays frame {frame}, but the model has {frame_count} frames (0..={})",
                frame_count.saturating_sub(1)
            ),
            CrowdError::SkinOutOfRange { skin, skin_count } => write!(
                f,
                "skin {skin} asked for, but the model has {skin_count} skin(s)"
            ),
            CrowdError::StaleHandle => write!(
                f,
                "the handle's member was removed (or belongs to another crowd)"
            ),
            CrowdError::NotFinite { field } => write!(
                f,
                "{field} is not finite (or beyond the clock's range of ±2^43 s)"
            ),
            CrowdError::FadeTooLong { seconds } => write!(
                f,
                "a crossfade of {seconds} s is longer than the {:.0} s a crowd's clock carries",
                crate::anim::MAX_FADE_SECONDS
            ),
            CrowdError::TooManyMembers {
                members,
                bytes,
                limit,
            } => write!(
                f,
                "{members} crowd members need {bytes} bytes, more than this device's limit of \
                 {limit} bytes"
            ),
            CrowdError::HostBuffer { message } => {
                write!(f, "the crowd's buffer could not be made: {message}")
            }
        }
    }
}

impl std::error::Error for CrowdError {}
