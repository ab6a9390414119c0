//! Levels of detail: coarser triangle lists over the same welded corners,
//! each with its geometric error measured over every frame.
//!
//! Every frame of an MD2 model shares the vertex ids, so a level of detail
//! is only another index list: no new vertex memory. Simplifiers judge a
//! collapse on one pose (glTF tools on the base pose of a morphed mesh),
//! which can fold an arm that is straight in frame 0 and bent in frame 60.
//! Here the simplifier weighs several frames at once (frame 0's positions
//! and, as attributes, those of the frames that differ most), and then
//! every level is *measured* in every frame; where a level strays further
//! than [`LevelOptions::max_error`] the vertices there are locked and the
//! level is simplified again.
//!
//! A level's [`error`](Level::error) is the largest distance, over
//! every frame, between the full-detail surface and the level's surface:
//! in each frame, the Hausdorff distance between the two triangle sets
//! posed in it (how far a point of either can be from the other), bounded
//! from above by a branch-and-bound over the triangles; see
//! [`Level::error`] for exactly what is measured.

//!
//! This module only names its rooms: `set` (the options, a level, the
//! builder), `file` (saved levels), and the builder's parts.

mod file;
mod hausdorff;
mod nearest;
mod poses;
mod set;
mod simplify;

pub use file::LevelsFileError;
#[cfg(any(test, feature = "testing"))]
pub(crate) use file::checksum as levels_checksum;
pub use set::{Level, LevelOptions, Levels};
