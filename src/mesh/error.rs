//! What can go wrong building or measuring a render mesh.

use std::fmt;

/// Why a [`RenderMesh`](crate::RenderMesh) question has no answer.
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
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeshError::CacheTooSmall { cache_size, min } => write!(
                f,
                "a vertex cache of {cache_size} entries is too small to simulate: \
                 it must hold at least {min} (one triangle's corners)"
            ),
        }
    }
}

impl std::error::Error for MeshError {}
