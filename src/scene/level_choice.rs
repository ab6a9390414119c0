//! A model's levels of detail as a view chooses among them: the same
//! arithmetic the immediate path runs on the CPU and the crowd's compute
//! pass runs on the GPU (`contract::choose`), so an app can tell which
//! instances get which detail.

use std::time::Duration;

use glam::Mat4;

use super::camera::Camera;
use crate::contract::{LevelView, choose, model_levels, rows};
use crate::mesh::Level;

/// A model's levels of detail (full detail first) with the sphere around
/// every frame they are measured from: which level an instance is drawn
/// at. [`GpuModel::level_choice`](crate::GpuModel::level_choice) gives a
/// model's; a host with its own wgpu makes one from a
/// [`ModelData`](crate::ModelData) with [`LevelChoice::new`].
#[derive(Clone, Copy, Debug)]
pub struct LevelChoice<'a> {
    levels: &'a [Level],
    sphere: [f32; 4],
    build_time: Duration,
}

impl<'a> LevelChoice<'a> {
    /// The choice among `levels` (full detail first, as
    /// [`Levels::levels`](crate::mesh::Levels::levels) has them) of a model
    /// whose frames all lie in `sphere` (model space, Quake axes: centre,
    /// radius; [`ModelData::bounding_sphere`](crate::ModelData::bounding_sphere)),
    /// built in `build_time`.
    pub fn new(levels: &'a [Level], sphere: [f32; 4], build_time: Duration) -> LevelChoice<'a> {
        LevelChoice {
            levels,
            sphere,
            build_time,
        }
    }

    /// Every level, full detail first: each one's range of the index
    /// buffers, its triangles and its error in model units. A coarser level
    /// draws the same corners and frames as full detail: a draw of a level
    /// binds what a full-detail draw binds and draws another range (the
    /// same range of the mirrored index buffer for mirrored instances):
    /// [`Md2Batch::at_level`](crate::gpu::Md2Batch::at_level) draws a batch
    /// at a level.
    pub fn levels(&self) -> &'a [Level] {
        self.levels
    }

    /// The coarsest level whose error is at most `max_error` model units
    /// (0, full detail, where none is): the level to draw an instance at
    /// when an error of `max_error` units covers at most the pixels the
    /// app tolerates (at distance `d` with a vertical field of view `fov`
    /// and a viewport `h` pixels high, one pixel is `2 d tan(fov / 2) / h`
    /// units, times the instance's scale).
    pub fn coarsest_within(&self, max_error: f32) -> usize {
        // Errors grow with the level, so the last one within is the one.
        self.levels
            .iter()
            .rposition(|l| l.error <= max_error)
            .unwrap_or(0)
    }

    /// The level an instance placed by `transform` is drawn at, seen by
    /// `camera` by a renderer whose
    /// [`level_error_pixels`](crate::Md2RendererOptions::level_error_pixels)
    /// is `level_error_pixels`: the coarsest level whose error, scaled by the
    /// transform's largest stretch along a model axis and projected where
    /// the sphere around every frame comes nearest the camera, is at most
    /// that many pixels. Both paths choose by this very arithmetic (the
    /// crowd's on the GPU). 0 without levels or without a viewport
    /// ([`Camera::with_viewport`]).
    pub fn for_view(&self, camera: &Camera, level_error_pixels: f32, transform: Mat4) -> usize {
        let view = LevelView {
            w_row: camera.view_proj.row(3).to_array(),
            scale: camera.level_scale(level_error_pixels),
        };
        choose(
            &view,
            &model_levels(self.levels, self.sphere),
            &rows(&transform),
        )
    }

    /// How long building the levels took (zero where none were asked for,
    /// or they were loaded).
    pub fn build_time(&self) -> Duration {
        self.build_time
    }
}
