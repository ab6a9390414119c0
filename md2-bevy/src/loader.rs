//! The `.md2` and `.mdl` asset loader: the file's bytes through Bevy's
//! reader, the model's GPU data from md2-wgpu's contract, its skins found
//! beside it (a Quake I model's in its game's palette).

use std::fmt;
use std::sync::Arc;

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, AssetServer, LoadContext};
use bevy::log::{info, warn};
use bevy::reflect::TypePath;
use md2_wgpu::contract::SkinArray;
use md2_wgpu::format::md3::{Md3Error, Md3PlayerError, Md3SurfaceError};
use md2_wgpu::format::mdl::{MdlError, MdlModel};
use md2_wgpu::{Md2Model, QuakeModel, contract::ModelDataError, format::Md2Error};
use serde::{Deserialize, Serialize};

use crate::asset::{AssetModel, Md2Asset};
use crate::levels::Md2Levels;
use crate::model_assets::{MAX_SKIN_SIDE, Skins, add_model};
use crate::skins::{load_palette, load_skins};

/// Why an `.md2`, `.mdl` or `.md3` asset, or a Quake III player, did not load. Bevy reports it (in the log, and to
/// [`AssetServer::load_state`] as `LoadState::Failed`), and every other
/// asset keeps loading.
#[derive(Debug)]
#[non_exhaustive]
pub enum Md2LoadError {
    /// The asset reader could not give the file's bytes.
    Read(std::io::Error),
    /// The bytes are not a model md2-wgpu accepts: the crate's typed error
    /// says what and where (a truncated header, a section past the end of
    /// the file, an index out of range, ...).
    Model(Md2Error),
    /// The bytes are not a Quake I model md2-wgpu accepts (an `.mdl`
    /// file): md2-wgpu's typed error says what and where.
    Mdl(MdlError),
    /// The model is valid but cannot become GPU data (more frames than a
    /// pose can address).
    GpuData(ModelDataError),
    /// The bytes are not a Quake III model md2-wgpu accepts (an `.md3`).
    Md3(Md3Error),
    /// A surface of an MD3 that md2-wgpu's model seam refuses (other than
    /// one without triangles, which is left out as Quake III leaves it).
    Md3Surface(Md3SurfaceError),
    /// A Quake III player's files (a model, a `.skin`, the
    /// `animation.cfg`) are missing or not valid: md2-wgpu's error names
    /// the file.
    Player(Md3PlayerError),
    /// The weapon a player's settings named did not load.
    Weapon {
        /// The weapon's asset path.
        path: std::path::PathBuf,
        /// Why.
        error: Box<Md2LoadError>,
    },
}

impl fmt::Display for Md2LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Md2LoadError::Read(e) => write!(f, "cannot read the file: {e}"),
            Md2LoadError::Model(e) => write!(f, "not a valid MD2 model: {e}"),
            Md2LoadError::Mdl(e) => write!(f, "not a valid MDL model: {e}"),
            Md2LoadError::GpuData(e) => write!(f, "the model cannot be drawn: {e}"),
            Md2LoadError::Md3(e) => write!(f, "not a valid MD3 model: {e}"),
            Md2LoadError::Md3Surface(e) => write!(f, "an MD3 surface cannot be drawn: {e}"),
            Md2LoadError::Player(e) => write!(f, "the Quake III player does not load: {e}"),
            Md2LoadError::Weapon { path, error } => {
                write!(f, "the weapon {}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for Md2LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Md2LoadError::Read(e) => Some(e),
            Md2LoadError::Model(e) => Some(e),
            Md2LoadError::Mdl(e) => Some(e),
            Md2LoadError::GpuData(e) => Some(e),
            Md2LoadError::Md3(e) => Some(e),
            Md2LoadError::Md3Surface(e) => Some(e),
            Md2LoadError::Player(e) => Some(e),
            Md2LoadError::Weapon { error, .. } => Some(error.as_ref()),
        }
    }
}

/// Loads `.md2` (Quake II) and `.mdl` (Quake I) files as [`Md2Asset`]s:
/// parses the bytes with md2-wgpu (validation as strict as Q2PRO's or
/// QuakeSpasm's, never a panic), builds the model's
/// GPU data ([`ModelData`](md2_wgpu::ModelData)) and its skins' texture array ([`SkinArray`]),
/// and makes the model's mesh, buffers, skins and material as labelled
/// sub-assets. Its levels of detail come as [`Md2LoaderSettings::levels`]
/// says: by default those saved beside the model (`tris.levels` beside
/// `tris.md2`, as `md2info tris.md2 --levels tris.levels` writes them).
#[derive(TypePath)]
pub struct Md2Loader {
    server: AssetServer,
}

impl Md2Loader {
    /// A loader that lists folders through `server`'s asset sources.
    pub(crate) fn new(server: AssetServer) -> Md2Loader {
        Md2Loader { server }
    }
}

/// How an [`Md2Loader`] loads a model: where its levels of detail come
/// from. Set per load with `AssetServer::load_builder().with_settings(..)`,
/// or in the model's `.meta` file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Md2LoaderSettings {
    /// Saved beside the model (the default), built where none are saved,
    /// or none.
    pub levels: Md2Levels,
}

impl AssetLoader for Md2Loader {
    type Asset = Md2Asset;
    type Settings = Md2LoaderSettings;
    type Error = Md2LoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &Md2LoaderSettings,
        ctx: &mut LoadContext<'_>,
    ) -> Result<Md2Asset, Md2LoadError> {
        let bytes = read_file(reader).await?;
        // The extension says which format, as Bevy chose this loader by it.
        let is_mdl = ctx
            .path()
            .path()
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("mdl"));
        let model: QuakeModel = if is_mdl {
            MdlModel::from_bytes(&bytes)
                .map_err(Md2LoadError::Mdl)?
                .into()
        } else {
            Md2Model::from_bytes(&bytes)
                .map_err(Md2LoadError::Model)?
                .into()
        };
        for warning in model.warnings() {
            warn!("{}: {warning}", ctx.path());
        }

        let source = ctx.path().source().clone_owned();
        let reader = self.server.get_source(source).ok();
        let (images, skin_notes, trouble, masks) = match &model {
            QuakeModel::Md2(md2) => {
                let skins = match &reader {
                    Some(source) => load_skins(ctx, source.reader(), md2).await,
                    // The model came from this very source: it exists.
                    None => load_skins_without_source(),
                };
                // Names that led nowhere, images that did not decode and no
                // skin at all are worth a warning; skins taken from the
                // folder are how many mods ship.
                let trouble = !skins.unresolved.is_empty()
                    || !skins.failed.is_empty()
                    || skins.loaded_count() == 0;
                (skins.images.clone(), skins.notes(), trouble, false)
            }
            QuakeModel::Mdl(mdl) => {
                let model_path = ctx.path().path().to_path_buf();
                let (found, palette) = match &reader {
                    Some(source) => load_palette(source.reader(), &model_path).await,
                    None => (None, md2_wgpu::format::mdl::Palette::builtin()),
                };
                let note = match found {
                    Some(path) => format!("palette: {}", path.display()),
                    None => "no palette.lmp beside the model or in the game's gfx/: \
                             the crate's built-in palette (colours approximate)"
                        .to_owned(),
                };
                let (images, masks) =
                    md2_wgpu::format::mdl::SkinImages::new(mdl, &palette).for_upload();
                (images, vec![note], false, masks)
            }
        };
        for note in &skin_notes {
            if trouble {
                warn!("{}: {note}", ctx.path());
            } else {
                info!("{}: {note}", ctx.path());
            }
        }
        let skin_array = SkinArray::new(&images, MAX_SKIN_SIDE);
        let skins = Skins::add(ctx, "", &skin_array, masks);
        let model = Arc::new(model);
        add_model(
            ctx,
            "",
            &model,
            AssetModel::Quake(model.clone()),
            skins,
            skin_notes,
            settings.levels,
        )
        .await
        .map_err(Md2LoadError::GpuData)
    }

    fn extensions(&self) -> &[&str] {
        &["md2", "MD2", "mdl", "MDL"]
    }
}

/// Every byte of the file being loaded.
pub(crate) async fn read_file(reader: &mut dyn Reader) -> Result<Vec<u8>, Md2LoadError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .await
        .map_err(Md2LoadError::Read)?;
    Ok(bytes)
}

/// No skins found (the model's source cannot list folders).
fn load_skins_without_source() -> md2_wgpu::skins::LoadedSkins {
    md2_wgpu::skins::LoadedSkins {
        images: Vec::new(),
        paths: Vec::new(),
        source: md2_wgpu::skins::SkinSource::None,
        unresolved: Vec::new(),
        failed: Vec::new(),
    }
}
