//! What can go wrong on the GPU side, before wgpu ever sees it: once at
//! set-up ([`SetupError`]), and every frame ([`PrepareError`], and the
//! [`PrepareReport`] of a lenient policy).
//!
//! Every check runs on the CPU before anything reaches the GPU, so a bad
//! frame number, skin or size is one of these errors rather than a wgpu
//! validation panic.

use std::fmt;

use crate::scene::InstanceError;

/// Why a renderer, cache, model or crowd could not be created, or an
/// option could not be set.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SetupError {
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
        frames: u32,
        /// The most the renderer supports (65,536; Quake II allowed 512).
        max: u32,
    },
    /// The model has more skins than an instance can address or the device
    /// allows texture array layers.
    TooManySkins {
        /// Skins given.
        skins: usize,
        /// The most this device takes.
        max: u32,
    },
    /// A model uploaded with
    /// [`GpuModelOptions::fullbright_masks`](crate::contract::GpuModelOptions::fullbright_masks)
    /// needs its layers followed by as many masks: an even number of skins,
    /// at least two.
    FullbrightMasks {
        /// Skins given.
        skins: usize,
    },
    /// The device offers less than the renderer needs (see
    /// [`required_limits`](crate::gpu::required_limits)).
    UnsupportedDevice {
        /// The `wgpu::Limits` field, or the missing downlevel flag.
        limit_name: &'static str,
        /// What the renderer needs.
        needed: u32,
        /// What the device has.
        available: u32,
    },
    /// A depth-only renderer (no colour format) was asked for without a
    /// depth state: it would draw nothing.
    NothingToDraw,
    /// [`ColorOutput::SrgbEncoded`](crate::gpu::ColorOutput::SrgbEncoded) was
    /// asked for on an sRGB format, which would encode twice.
    EncodedTwice {
        /// The colour format.
        format: wgpu::TextureFormat,
    },
    /// Planar shadows were asked for on a renderer whose depth format has
    /// no stencil aspect (or that has no depth at all).
    ShadowsNeedStencil {
        /// The renderer's depth format, if any.
        depth_format: Option<wgpu::TextureFormat>,
    },
    /// wgpu reported an error (for example out of memory) while creating an
    /// object.
    Device {
        /// What was being done.
        operation: &'static str,
        /// wgpu's message.
        message: String,
    },
    /// The model cannot become GPU data (see
    /// [`ModelDataError`](crate::contract::ModelDataError)).
    ModelData(crate::contract::ModelDataError),
    /// A material does not fit the crate's vertex stage, its targets or the
    /// device: see [`MaterialError`](crate::gpu::MaterialError).
    Material {
        /// The material's label.
        label: String,
        /// What is wrong.
        error: crate::gpu::MaterialError,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::ModelTooLarge {
                buffer,
                bytes,
                limit_name,
                limit,
            } => write!(
                f,
                "the model's {buffer} needs {bytes} bytes, more than this device's \
                 {limit_name} of {limit} bytes"
            ),
            SetupError::TooManyFrames { frames, max } => write!(
                f,
                "the model has {frames} frames; the renderer addresses at most {max}"
            ),
            SetupError::TooManySkins { skins, max } => write!(
                f,
                "{skins} skins given, but at most {max} can be used on this device"
            ),
            SetupError::FullbrightMasks { skins } => write!(
                f,
                "{skins} skins given with fullbright masks; the layers and their masks are an even number, at least two"
            ),
            SetupError::UnsupportedDevice {
                limit_name,
                needed,
                available,
            } => write!(
                f,
                "the device's {limit_name} is {available}; the renderer needs at least {needed}"
            ),
            SetupError::NothingToDraw => write!(
                f,
                "a depth-only renderer (no colour format) needs a depth state"
            ),
            SetupError::EncodedTwice { format } => write!(
                f,
                "ColorOutput::SrgbEncoded on the sRGB format {format:?} would encode twice; \
                 use ColorOutput::Linear (or Auto) there"
            ),
            SetupError::ShadowsNeedStencil { depth_format } => match depth_format {
                Some(format) => write!(
                    f,
                    "planar shadows need a depth format with stencil (e.g. \
                     Depth24PlusStencil8); this renderer's is {format:?}"
                ),
                None => write!(
                    f,
                    "planar shadows need a depth format with stencil (e.g. \
                     Depth24PlusStencil8); this renderer has no depth"
                ),
            },
            SetupError::Device { operation, message } => {
                write!(f, "wgpu error while {operation}: {message}")
            }
            SetupError::ModelData(e) => e.fmt(f),
            SetupError::Material { label, error } => write!(f, "material {label:?}: {error}"),
        }
    }
}

impl std::error::Error for SetupError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SetupError::ModelData(e) => Some(e),
            SetupError::Material { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Why a frame could not be prepared.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PrepareError {
    /// An instance cannot be drawn as given (with
    /// [`InstancePolicy::Strict`](crate::scene::InstancePolicy::Strict)).
    Instance(InstanceError),
    /// The instances of one `prepare` call, or the visible records of a
    /// crowd in one view, do not fit in one buffer.
    TooManyInstances {
        /// Instance records in all batches together (shelled instances count
        /// twice; a crowd in a view that sorts counts its translucent
        /// members and shells twice more).
        instances: usize,
        /// The bytes they need.
        bytes: u64,
        /// The device's `max_buffer_size` (or, for a crowd, its storage
        /// binding size where smaller).
        limit: u64,
    },
    /// The crowds' time is NaN, infinite or beyond the clock's ±2⁴³ s.
    TimeNotFinite {
        /// The time given, in seconds.
        time: f64,
    },
    /// wgpu reported an error (for example out of memory) while growing a
    /// buffer.
    Device {
        /// What was being done.
        operation: &'static str,
        /// wgpu's message.
        message: String,
    },
    /// A pipeline the frame needs (the shadow's, for new stencil masks)
    /// could not be built.
    Setup(SetupError),
    /// The renderer's material has a bind group layout, but no bind group
    /// was set ([`Md2Renderer::set_material_bind_group`](crate::Md2Renderer::set_material_bind_group)).
    MaterialBindGroupMissing,
    /// A crowd that rides another's members on a tag (a
    /// [`PlayerCrowd`](crate::gpu::PlayerCrowd)'s torso, head or weapon)
    /// was given to `prepare_crowds` without the crowd it rides before it:
    /// give a player crowd's crowds as
    /// [`PlayerCrowd::crowds_mut`](crate::gpu::PlayerCrowd::crowds_mut)
    /// yields them.
    ParentCrowdMissing {
        /// Its position among the crowds given.
        crowd: usize,
    },
    /// A batch's previous transforms and poses are not one per instance.
    PreviousMismatch {
        /// Index of the batch.
        batch: usize,
        /// Its instances.
        instances: usize,
        /// The previous transforms and poses given.
        previous: usize,
    },
}

impl From<InstanceError> for PrepareError {
    fn from(e: InstanceError) -> Self {
        PrepareError::Instance(e)
    }
}

impl fmt::Display for PrepareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrepareError::Instance(e) => e.fmt(f),
            PrepareError::TooManyInstances {
                instances,
                bytes,
                limit,
            } => write!(
                f,
                "{instances} instance records need {bytes} bytes, more than this device's \
                 max_buffer_size of {limit} bytes"
            ),
            PrepareError::TimeNotFinite { time } => write!(
                f,
                "the crowds' time {time} s is not finite (or beyond the clock's range of \
                 ±2^43 s)"
            ),
            PrepareError::Device { operation, message } => {
                write!(f, "wgpu error while {operation}: {message}")
            }
            PrepareError::Setup(e) => e.fmt(f),
            PrepareError::MaterialBindGroupMissing => write!(
                f,
                "the material has a bind group layout, but no bind group was set \
                 (Md2Renderer::set_material_bind_group)"
            ),
            PrepareError::ParentCrowdMissing { crowd } => write!(
                f,
                "crowd {crowd} of prepare_crowds rides another crowd's tags, but that \
                 crowd was not given before it (give a player crowd's crowds as \
                 PlayerCrowd::crowds_mut yields them)"
            ),
            PrepareError::PreviousMismatch {
                batch,
                instances,
                previous,
            } => write!(
                f,
                "batch {batch}: {previous} previous transforms and poses for {instances} \
                 instances (give one per instance, or none)"
            ),
        }
    }
}

impl std::error::Error for PrepareError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PrepareError::Instance(e) => Some(e),
            PrepareError::Setup(e) => Some(e),
            _ => None,
        }
    }
}

/// What a successful `prepare` left out or changed, under
/// [`InstancePolicy::Skip`](crate::scene::InstancePolicy::Skip) or
/// [`Clamp`](crate::scene::InstancePolicy::Clamp). Empty under `Strict`, and
/// whenever every instance was good.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrepareReport {
    /// Instances left out.
    pub skipped: usize,
    /// Instances drawn with a value repaired: frames or skin clamped, a
    /// non-finite tint or blend factor read as [`InstancePolicy::Clamp`](crate::scene::InstancePolicy::Clamp)
    /// says.
    pub clamped: usize,
    /// The first few problems ([`PrepareReport::MAX_LISTED`]), in order.
    pub first: Vec<InstanceError>,
    /// Instances drawn at each level of detail (see
    /// [`Md2RendererOptions::level_error_pixels`](crate::Md2RendererOptions::level_error_pixels)),
    /// full detail first; a translucent instance counts at the level its
    /// bucket was drawn at.
    pub levels: [u32; crate::contract::MAX_LEVELS],
}

impl PrepareReport {
    /// How many problems [`PrepareReport::first`] lists at most.
    pub const MAX_LISTED: usize = 8;

    /// Whether every instance was drawn as given.
    pub fn is_clean(&self) -> bool {
        self.skipped == 0 && self.clamped == 0
    }

    pub(crate) fn note(&mut self, problem: InstanceError, skipped: bool) {
        if skipped {
            self.skipped += 1;
        } else {
            self.clamped += 1;
        }
        if self.first.len() < Self::MAX_LISTED {
            self.first.push(problem);
        }
    }
}
