//! What can go wrong building or measuring a render mesh.

use std::fmt;

/// Why a [`RenderMesh`](crate::mesh::RenderMesh) question has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MeshError {
    /// A vertex-cache simulation was asked for a cache smaller than one
    /// triangle's corners, which the simulation does not model.
    CacheTooSmall {
        /// The size asked for.
        cache_size: u32,
        /// The smallest size simulated (3).
        min: u32,
    },
    /// Levels of detail were asked for a mesh that is not the model's: one
    /// of its corners names a vertex the model does not have.
    NotTheModelsMesh {
        /// The vertex a corner names.
        xyz: u32,
        /// How many vertices the model has.
        vertex_count: usize,
    },
    /// Levels of detail were given for a mesh they were not built over:
    /// their full detail is not its triangle list, or a level reaches past
    /// its corners or its index list.
    NotTheMeshsLevels {
        /// What does not fit.
        what: &'static str,
    },
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeshError::CacheTooSmall { cache_size, min } => write!(
                f,
                "a vertex cache of {cache_size} entries is too small to simulate: \
                 it must hold at least {min} (one triangle's corners)"
            ),
            MeshError::NotTheModelsMesh { xyz, vertex_count } => write!(
                f,
                "the mesh is not this model's: a corner names vertex {xyz}, \
                 but the model has {vertex_count} vertices"
            ),
            MeshError::NotTheMeshsLevels { what } => {
                write!(f, "the levels of detail are not this mesh's: {what}")
            }
        }
    }
}

impl std::error::Error for MeshError {}
