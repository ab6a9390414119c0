//! A model's levels of detail in Bevy: read from the saved file beside the
//! model (`md2info FILE --levels STEM.levels`, md2-wgpu's
//! [`Levels::to_bytes`](md2_wgpu::mesh::Levels::to_bytes)) or built by the
//! loader, on Bevy's asset task pool (never the main thread), so a scene
//! starts without waiting for them.

use std::path::PathBuf;
use std::time::Duration;

use bevy::asset::io::AssetReaderError;
use bevy::asset::{AssetPath, LoadContext, ReadAssetBytesError};
use bevy::log::warn;
use md2_wgpu::mesh::{LevelOptions, Levels, RenderMesh};
use md2_wgpu::model::KeyframeModel;
use serde::{Deserialize, Serialize};

/// Where a model's levels of detail come from
/// ([`Md2LoaderSettings::levels`](crate::Md2LoaderSettings::levels)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Md2Levels {
    /// The levels saved beside the model (`tris.levels` beside
    /// `tris.md2`), where that file is there and is this model's; else
    /// full detail only. The default: nothing is built unasked.
    #[default]
    Saved,
    /// The saved levels where they are there, else built by the loader
    /// with md2-wgpu's default options (about a third of a second for a
    /// Quake II player in a release build, off the main thread).
    SavedOrBuilt,
    /// Full detail only; no file is read.
    FullDetail,
}

/// Where a loaded model's levels came from ([`Md2Asset::level_source`](crate::Md2Asset::level_source)).
#[derive(Clone, Debug, PartialEq)]
pub enum Md2LevelSource {
    /// Full detail only: none were asked for, none were saved, or the
    /// model is too small to simplify.
    FullDetail,
    /// Read from this file (an asset path beside the model).
    Saved(PathBuf),
    /// Built by the loader, in this long.
    Built(Duration),
}

/// The path of the levels saved for the model at `model` (an asset path):
/// the same folder and stem, extension `levels`.
pub fn levels_path(model: &std::path::Path) -> PathBuf {
    model.with_extension("levels")
}

/// The levels `wanted` for `keyframes` meshed as `mesh`, loaded at `ctx`'s
/// path: `None` for full detail. A saved file that is not this model's
/// (another model's, or damaged) is passed over with a warning naming the
/// file and what is wrong with it.
pub(crate) async fn load_levels(
    ctx: &mut LoadContext<'_>,
    wanted: Md2Levels,
    keyframes: &KeyframeModel,
    mesh: &RenderMesh,
) -> (Option<Levels>, Md2LevelSource) {
    if wanted == Md2Levels::FullDetail {
        return (None, Md2LevelSource::FullDetail);
    }
    let path = levels_path(ctx.path().path());
    let asset_path =
        AssetPath::from_path_buf(path.clone()).with_source(ctx.path().source().clone_owned());
    let read = ctx.read_asset_bytes(asset_path).await;
    // A missing file is the usual case: no saved levels. A file that is
    // there and cannot be read is said.
    if let Err(error) = &read
        && !matches!(
            error,
            ReadAssetBytesError::AssetReaderError(AssetReaderError::NotFound(_))
        )
    {
        warn!(
            "{}: the saved levels {}: {error}",
            ctx.path(),
            path.display()
        );
    }
    if let Ok(bytes) = read {
        match Levels::from_bytes(&bytes, keyframes, mesh) {
            Ok(levels) => return (Some(levels), Md2LevelSource::Saved(path)),
            Err(error) => warn!(
                "{}: the saved levels {} are not this model's ({error}); {}",
                ctx.path(),
                path.display(),
                if wanted == Md2Levels::SavedOrBuilt {
                    "building them"
                } else {
                    "drawing at full detail"
                }
            ),
        }
    }
    if wanted != Md2Levels::SavedOrBuilt {
        return (None, Md2LevelSource::FullDetail);
    }
    match Levels::new(keyframes, mesh, &LevelOptions::DEFAULT) {
        Ok(levels) => {
            let took = levels.build_time();
            (Some(levels), Md2LevelSource::Built(took))
        }
        Err(error) => {
            warn!("{}: no levels of detail: {error}", ctx.path());
            (None, Md2LevelSource::FullDetail)
        }
    }
}
