//! The mesh the GPU draws: a model's welded corners and the triangles over
//! them, ordered so the vertex shader
//! runs as few times as it can. CPU only: nothing here knows about wgpu.
//!
//! The vertex shader is where this crate spends its GPU time (it decodes two
//! keyframes per corner), and a GPU runs it again for a corner that has
//! fallen out of its small post-transform cache. Under a 16-entry FIFO the
//! player models tried (the demo's, Yohko's, the Ogro's) run it 1.5 to 1.7
//! times per corner in the file's triangle order and 1.03 to 1.06 times in
//! the cache order; `cargo test --test vertex_cache -- --nocapture` prints
//! the figures (see [`VertexCacheStats`]).
//!
//! Far away, fewer triangles do: [`Levels`] simplifies the triangle
//! list into coarser ones over the same corners, and bounds how far each
//! strays from full detail in every frame of the model.

mod error;
mod levels;
mod render_mesh;
mod vertex_cache;

pub use error::MeshError;
#[cfg(any(test, feature = "testing"))]
pub(crate) use levels::levels_checksum;
pub use levels::{Level, LevelOptions, Levels, LevelsFileError};
pub use render_mesh::{RenderMesh, TriangleOrder};
pub use vertex_cache::VertexCacheStats;
