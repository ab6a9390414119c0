//! A model and the instances to draw of it this frame: the input to a
//! renderer's `prepare`.

use crate::gpu::model::GpuModel;
use crate::scene::{Md2Instance, Md2Previous};

/// One model and the instances to draw of it: the input to
/// [`Md2Renderer::prepare`](crate::Md2Renderer::prepare).
#[derive(Clone, Copy, Debug)]
pub struct Md2Batch<'a> {
    /// The model.
    pub model: &'a GpuModel,
    /// Its instances this frame.
    pub instances: &'a [Md2Instance],
    /// What each instance showed in the previous frame (its transform and
    /// pose), for motion vectors; one per instance. Without them the
    /// previous frame is taken to have shown the same (only the camera
    /// moved). Read only by renderers that keep motion (a material, or a
    /// motion target).
    pub previous: Option<&'a [Md2Previous]>,
    /// The level of detail of every instance of the batch, where set
    /// ([`Md2Batch::at_level`]; past the model's coarsest level, its
    /// coarsest). Unset (the default), each instance is drawn at the
    /// coarsest level whose error on screen is at most
    /// [`Md2RendererOptions::level_error_pixels`](crate::Md2RendererOptions::level_error_pixels),
    /// as crowd members are.
    pub level: Option<usize>,
}

impl<'a> Md2Batch<'a> {
    /// `instances` of `model`, at full detail.
    pub fn new(model: &'a GpuModel, instances: &'a [Md2Instance]) -> Md2Batch<'a> {
        Md2Batch {
            model,
            instances,
            previous: None,
            level: None,
        }
    }

    /// The same batch with what each instance showed in the previous frame.
    pub fn with_previous(self, previous: &'a [Md2Previous]) -> Md2Batch<'a> {
        Md2Batch {
            previous: Some(previous),
            ..self
        }
    }

    /// The same batch with every instance at level of detail `level` (see
    /// [`GpuModel::levels`]), whatever its distance: for tools that show a
    /// level, and tests.
    pub fn at_level(self, level: usize) -> Md2Batch<'a> {
        Md2Batch {
            level: Some(level),
            ..self
        }
    }
}

impl<'a> From<(&'a GpuModel, &'a [Md2Instance])> for Md2Batch<'a> {
    fn from((model, instances): (&'a GpuModel, &'a [Md2Instance])) -> Self {
        Md2Batch::new(model, instances)
    }
}
