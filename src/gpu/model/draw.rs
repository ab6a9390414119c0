//! What a draw of a model binds: its bind group, corners and index buffers
//! (wgpu handles: clones are cheap), and where its levels lie; and where a
//! model publishes the levels it is given after its upload, for the crowds
//! that draw it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::contract::{MAX_LEVELS, ModelLevels};

/// A model's latest [`DrawModel`] and how many times it changed: a crowd
/// keeps a copy of what it draws, and takes the new one when the count
/// moved (its model got levels later, say).
#[derive(Debug)]
pub(crate) struct Published {
    generation: AtomicU64,
    latest: Mutex<DrawModel>,
}

impl Published {
    pub(crate) fn new(draw: DrawModel) -> Arc<Published> {
        Arc::new(Published {
            generation: AtomicU64::new(0),
            latest: Mutex::new(draw),
        })
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The latest, and its generation.
    pub(crate) fn latest(&self) -> (DrawModel, u64) {
        let latest = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
        (latest.clone(), self.generation())
    }

    pub(crate) fn publish(&self, draw: DrawModel) {
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = draw;
        self.generation.fetch_add(1, Ordering::Release);
    }
}

/// What a draw of a model binds, and where its levels lie.
#[derive(Clone, Debug)]
pub(crate) struct DrawModel {
    pub bind_group: wgpu::BindGroup,
    pub corners: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub mirrored: wgpu::Buffer,
    pub index_format: wgpu::IndexFormat,
    /// Each level's range of both index buffers (first index, count);
    /// levels past the model's coarsest repeat it.
    pub ranges: [(u32, u32); MAX_LEVELS],
    /// What choosing a level needs.
    pub levels: ModelLevels,
}

impl DrawModel {
    /// The index range of `level` (the coarsest there is, past it).
    pub(crate) fn indices_at(&self, level: usize) -> std::ops::Range<u32> {
        let (first, count) = self.ranges[level.min(MAX_LEVELS - 1)];
        first..first + count
    }

    /// Binds the model for a draw of instances with the model's winding, or
    /// mirrored ones (the reversed index list).
    pub(crate) fn bind(&self, pass: &mut wgpu::RenderPass<'_>, mirrored: bool) {
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.set_vertex_buffer(0, self.corners.slice(..));
        let indices = if mirrored {
            &self.mirrored
        } else {
            &self.indices
        };
        pass.set_index_buffer(indices.slice(..), self.index_format);
    }
}
