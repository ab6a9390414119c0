//! Why a skin image could not be loaded: every variant names its file.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The largest skin side [`load_skin`](super::load_skin) (and [`decode_skin`](super::decode_skin)) accepts, in texels. Quake II skins are
/// at most a few hundred texels; high-resolution replacements reach 2048.
/// The limit keeps a hostile header from making a decoder allocate more than
/// 64 MiB of RGBA.
pub const MAX_SKIN_SIDE: u32 = 4096;

/// Why a skin image could not be loaded. Every variant names the file.
#[derive(Debug)]
#[non_exhaustive]
pub enum SkinError {
    /// There is no file at this path.
    Missing {
        /// The path that was looked for.
        path: PathBuf,
    },
    /// The file exists but could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// The bytes are not an image the decoders understand, or are corrupt.
    Undecodable {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        reason: String,
    },
    /// The image declares a size no skin has: zero, or a side above
    /// [`MAX_SKIN_SIDE`].
    AbsurdSize {
        /// The file.
        path: PathBuf,
        /// The width the file declares.
        width: u32,
        /// The height the file declares.
        height: u32,
    },
}

impl SkinError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            SkinError::Missing { path }
            | SkinError::Io { path, .. }
            | SkinError::Undecodable { path, .. }
            | SkinError::AbsurdSize { path, .. } => path,
        }
    }
}

impl fmt::Display for SkinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkinError::Missing { path } => write!(f, "skin {}: no such file", path.display()),
            SkinError::Io { path, source } => {
                write!(f, "skin {}: cannot read: {source}", path.display())
            }
            SkinError::Undecodable { path, reason } => {
                write!(
                    f,
                    "skin {}: not a decodable image: {reason}",
                    path.display()
                )
            }
            SkinError::AbsurdSize {
                path,
                width,
                height,
            } => write!(
                f,
                "skin {}: declares {width}x{height} texels (a skin is 1 to {MAX_SKIN_SIDE} a side)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for SkinError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SkinError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
