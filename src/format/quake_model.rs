//! A Quake model of either format, told apart by its first four bytes: what
//! an app that opens whatever file it is given (the viewer, md2info, the
//! crowd) holds.

use std::fmt;
use std::path::{Path, PathBuf};

use super::error::Md2Error;
use super::mdl::{MdlError, MdlHeader, MdlModel};
use super::model::{Md2Header, Md2Model};
use crate::anim::Clip;
use crate::model::KeyframeModel;

/// A Quake II MD2 or a Quake I MDL, as its ident says; either derefs to
/// the model seam's [`KeyframeModel`], so it draws, crowds and exports the
/// same way.
///
/// ```
/// use md2_wgpu::QuakeModel;
///
/// let model = QuakeModel::from_bytes(&md2_wgpu::demo::demo_model_bytes())?;
/// assert_eq!(model.format(), "MD2");
/// assert!(model.frame_count() > 1);
/// # Ok::<(), md2_wgpu::format::QuakeModelError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum QuakeModel {
    /// `IDP2`: Quake II.
    Md2(Md2Model),
    /// `IDPO`: Quake I.
    Mdl(MdlModel),
}

/// Why a file is not a Quake model this crate reads.
#[derive(Debug)]
#[non_exhaustive]
pub enum QuakeModelError {
    /// The file could not be read.
    Io {
        /// The path.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file starts with neither `IDP2` nor `IDPO`.
    Unrecognised {
        /// Its first bytes (up to four).
        found: Vec<u8>,
    },
    /// An MD2 that does not load.
    Md2(Md2Error),
    /// An MDL that does not load.
    Mdl(MdlError),
}

impl fmt::Display for QuakeModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuakeModelError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            QuakeModelError::Unrecognised { found } => write!(
                f,
                "the file starts with {:?}: neither a Quake II model (IDP2) nor a Quake I one (IDPO)",
                String::from_utf8_lossy(found)
            ),
            QuakeModelError::Md2(e) => e.fmt(f),
            QuakeModelError::Mdl(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for QuakeModelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            QuakeModelError::Io { source, .. } => Some(source),
            QuakeModelError::Md2(e) => Some(e),
            QuakeModelError::Mdl(e) => Some(e),
            QuakeModelError::Unrecognised { .. } => None,
        }
    }
}

impl QuakeModel {
    /// Reads an MD2 or an MDL, by its ident.
    pub fn from_bytes(bytes: &[u8]) -> Result<QuakeModel, QuakeModelError> {
        match bytes.get(..4) {
            Some(ident) if ident == Md2Header::IDENT => Md2Model::from_bytes(bytes)
                .map(QuakeModel::Md2)
                .map_err(QuakeModelError::Md2),
            Some(ident) if ident == MdlHeader::IDENT => MdlModel::from_bytes(bytes)
                .map(QuakeModel::Mdl)
                .map_err(QuakeModelError::Mdl),
            _ => Err(QuakeModelError::Unrecognised {
                found: bytes[..bytes.len().min(4)].to_vec(),
            }),
        }
    }

    /// Reads the file at `path`. Errors of the formats name the path
    /// (`InFile`), as their own `open` does.
    pub fn open(path: impl AsRef<Path>) -> Result<QuakeModel, QuakeModelError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| QuakeModelError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        QuakeModel::from_bytes(&bytes).map_err(|e| match e {
            QuakeModelError::Md2(e) => QuakeModelError::Md2(e.in_file(path)),
            QuakeModelError::Mdl(e) => QuakeModelError::Mdl(e.in_file(path)),
            e => e,
        })
    }

    /// `"MD2"` or `"MDL"`.
    pub fn format(&self) -> &'static str {
        match self {
            QuakeModel::Md2(_) => "MD2",
            QuakeModel::Mdl(_) => "MDL",
        }
    }

    /// The quirks the file loaded with, as sentences.
    pub fn warnings(&self) -> Vec<String> {
        match self {
            QuakeModel::Md2(m) => m.warnings().iter().map(ToString::to_string).collect(),
            QuakeModel::Mdl(m) => m.warnings().iter().map(ToString::to_string).collect(),
        }
    }

    /// The clips the model's animations play as: an MD2's at Quake II's 10
    /// frames a second ([`Clip::for_model`]), an MDL's frame groups at
    /// their intervals' rate ([`MdlModel::clips`]).
    pub fn clips(&self) -> Vec<Clip> {
        match self {
            QuakeModel::Md2(m) => Clip::for_model(m),
            QuakeModel::Mdl(m) => m.clips(),
        }
    }

    /// The file's bytes as [`Md2Model::to_bytes`] or [`MdlModel::to_bytes`]
    /// write them.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            QuakeModel::Md2(m) => m.to_bytes(),
            QuakeModel::Mdl(m) => m.to_bytes(),
        }
    }
}

impl std::ops::Deref for QuakeModel {
    type Target = KeyframeModel;

    fn deref(&self) -> &KeyframeModel {
        match self {
            QuakeModel::Md2(m) => m,
            QuakeModel::Mdl(m) => m,
        }
    }
}

impl From<Md2Model> for QuakeModel {
    fn from(model: Md2Model) -> QuakeModel {
        QuakeModel::Md2(model)
    }
}

impl From<MdlModel> for QuakeModel {
    fn from(model: MdlModel) -> QuakeModel {
        QuakeModel::Mdl(model)
    }
}
