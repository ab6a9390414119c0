//! A Quake III model in Bevy: an `.md3`'s surfaces, each an [`Md2Asset`]
//! wearing its own texture (the pose shader reads their 8-byte words, as
//! the model info's flag says), and its tags; the `.md3` loader, and the
//! textures found through Bevy's reader as Quake III finds them.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use bevy::asset::io::{AssetSourceId, Reader};
use bevy::asset::{Asset, AssetLoader, AssetPath, Handle, LoadContext};
use bevy::log::{info, warn};
use bevy::reflect::TypePath;
use md2_wgpu::contract::SkinArray;
use md2_wgpu::format::md3::{Md3Model, texture_candidates};
use md2_wgpu::skins::decode_skin;

use crate::asset::{AssetModel, Md2Asset};
use crate::levels::Md2Levels;
use crate::loader::{Md2LoadError, read_file};
use crate::model_assets::{MAX_SKIN_SIDE, Skins, add_model};

/// One drawn surface of an [`Md3Asset`].
#[derive(Clone, Debug)]
pub struct Md3AssetSurface {
    /// The surface's name in the model (`h_head`, `u_torso`...).
    pub name: String,
    /// Its index among the model's surfaces.
    pub index: usize,
    /// What draws it: give it to an [`Md2`](crate::Md2) (an
    /// [`Md3`](crate::Md3) entity does so for each surface).
    pub asset: Handle<Md2Asset>,
    /// The file its texture came from, or `None` where none was found (it
    /// wears md2-wgpu's checker).
    pub texture: Option<PathBuf>,
}

/// A Quake III model loaded from an `.md3` by [`Md3Loader`], or a part of
/// a player ([`Md3PlayerAsset`](crate::Md3PlayerAsset)): each surface an
/// [`Md2Asset`] with its own texture and material, so that every entity of
/// the model draws each surface in one draw per pass, and the model's
/// tags, which an [`Md3`](crate::Md3) entity follows with child entities.
///
/// Labelled sub-assets: each surface by its name (`#h_head`), with its
/// buffers, mesh and material under it (`#h_head/mesh`).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct Md3Asset {
    pub(crate) model: Arc<Md3Model>,
    pub(crate) surfaces: Vec<Md3AssetSurface>,
}

impl Md3Asset {
    /// The model as md2-wgpu parsed it: frames, tags, surfaces, warnings.
    pub fn model(&self) -> &Md3Model {
        &self.model
    }

    /// The surfaces drawn, in the model's order (a surface with no
    /// triangles is left out, as Quake III leaves it out).
    pub fn surfaces(&self) -> &[Md3AssetSurface] {
        &self.surfaces
    }

    /// The tags' names, in the model's order: an [`Md3`](crate::Md3)
    /// entity's [`Md3Tag`](crate::Md3Tag) children are these.
    pub fn tag_names(&self) -> Vec<String> {
        // Every frame has the same tags, in the same order.
        self.model.frame_tags(0).iter().map(|t| t.name()).collect()
    }
}

/// Where a model's textures are looked for, and the pictures already made
/// in this load (a picture several surfaces wear is uploaded once).
pub(crate) struct Textures {
    /// The asset source the model came from.
    source: AssetSourceId<'static>,
    /// The folder of the file that names them.
    dir: PathBuf,
    found: Vec<(String, Skins, Option<PathBuf>)>,
}

impl Textures {
    /// Textures for models in `dir` of `source`.
    pub fn new(source: AssetSourceId<'static>, dir: PathBuf) -> Textures {
        Textures {
            source,
            dir,
            found: Vec::new(),
        }
    }

    /// The picture of `key` (a game path such as
    /// `models/players/major/head.tga`), found as Quake III finds it: each
    /// of [`texture_candidates`] from the source's root, then each by its
    /// last part in the folder ([`Md3SurfaceTexture::file_names`]'s rule:
    /// a folder of a player's files), decoded with md2-wgpu's
    /// [`decode_skin`]; md2-wgpu's checker where none is there. No path
    /// above the source's root is read.
    ///
    /// [`Md3SurfaceTexture::file_names`]: md2_wgpu::format::md3::Md3SurfaceTexture::file_names
    async fn get(
        &mut self,
        ctx: &mut LoadContext<'_>,
        prefix: &str,
        key: &str,
    ) -> (Skins, Option<PathBuf>) {
        if let Some((_, skins, file)) = self.found.iter().find(|(k, _, _)| k == key) {
            return (skins.shared(), file.clone());
        }
        let candidates = texture_candidates(key);
        let names = candidates
            .iter()
            .filter_map(|c| c.rsplit(['/', '\\']).next())
            .map(|name| self.dir.join(name));
        let tries: Vec<PathBuf> = candidates
            .iter()
            .map(|c| PathBuf::from(c.replace('\\', "/")))
            .chain(names)
            .filter(|path| within_root(path))
            .collect();
        let mut picture = None;
        for path in tries {
            let asset_path =
                AssetPath::from_path_buf(path.clone()).with_source(self.source.clone());
            let Ok(bytes) = ctx.read_asset_bytes(asset_path).await else {
                continue;
            };
            match decode_skin(&bytes, &path) {
                Ok(image) => {
                    picture = Some((path, image));
                    break;
                }
                Err(e) => warn!("{}: {e}", ctx.path()),
            }
        }
        let (images, file) = match picture {
            Some((path, image)) => (vec![image], Some(path)),
            None => (Vec::new(), None),
        };
        let label = format!("{prefix}texture{}/", self.found.len());
        let skins = Skins::add(ctx, &label, &SkinArray::new(&images, MAX_SKIN_SIDE), false);
        self.found
            .push((key.to_owned(), skins.clone(), file.clone()));
        (skins, file)
    }
}

/// Whether `path` stays inside the source's root: relative, without `..`
/// or a prefix (a texture name comes from the file, which may be hostile).
fn within_root(path: &Path) -> bool {
    !path.as_os_str().is_empty()
        && !path.to_string_lossy().contains(':')
        && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// `model`'s surfaces as [`Md2Asset`]s under labels that begin with
/// `prefix`, each wearing the texture its key names (`keys[i]` for
/// surface `i`), and the [`Md3Asset`] holding them.
pub(crate) async fn add_md3(
    ctx: &mut LoadContext<'_>,
    prefix: &str,
    model: Md3Model,
    keys: &[String],
    textures: &mut Textures,
) -> Result<Md3Asset, Md2LoadError> {
    for warning in model.warnings() {
        warn!("{}: {prefix}{warning}", ctx.path());
    }
    let mut surfaces = Vec::new();
    for (index, key) in keys.iter().enumerate() {
        let keyframes = match model.surface_model(index) {
            Some(Ok(k)) => Arc::new(k),
            Some(Err(error)) if error.is_skipped() => continue,
            Some(Err(error)) => return Err(Md2LoadError::Md3Surface(error)),
            None => continue,
        };
        let name = model.surfaces()[index].name();
        let (skins, texture) = textures.get(ctx, prefix, key).await;
        let note = match &texture {
            Some(file) => format!("{prefix}{name}: {}", file.display()),
            None => format!("{prefix}{name}: no file for {key:?}: md2-wgpu's checker"),
        };
        if texture.is_some() {
            info!("{}: {note}", ctx.path());
        } else {
            warn!("{}: {note}", ctx.path());
        }
        let label = format!("{prefix}{name}");
        let surface = add_model(
            ctx,
            &format!("{label}/"),
            &keyframes,
            AssetModel::Md3Surface {
                keyframes: keyframes.clone(),
            },
            skins,
            vec![note],
            // A surface's levels are not saved beside the file.
            Md2Levels::FullDetail,
        )
        .await
        .map_err(Md2LoadError::GpuData)?;
        surfaces.push(Md3AssetSurface {
            name,
            index,
            asset: ctx.add_labeled_asset(label, surface),
            texture,
        });
    }
    Ok(Md3Asset {
        model: Arc::new(model),
        surfaces,
    })
}

/// Loads `.md3` files as [`Md3Asset`]s: md2-wgpu's reader (typed errors,
/// never a panic), each surface wearing the texture its first shader
/// names ([`Md3Surface::default_texture`]: a weapon's, a lone model's),
/// found from the source's root or beside the model. A player's parts wear
/// the textures its `.skin` files give: load the player with
/// [`Md3PlayerAsset`](crate::Md3PlayerAsset).
///
/// [`Md3Surface::default_texture`]: md2_wgpu::format::md3::Md3Surface::default_texture
#[derive(TypePath, Default)]
pub struct Md3Loader;

impl AssetLoader for Md3Loader {
    type Asset = Md3Asset;
    type Settings = ();
    type Error = Md2LoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<Md3Asset, Md2LoadError> {
        let bytes = read_file(reader).await?;
        let model = Md3Model::from_bytes(&bytes).map_err(Md2LoadError::Md3)?;
        let keys = default_keys(&model);
        let dir = parent_dir(ctx.path().path());
        let source = ctx.path().source().clone_owned();
        add_md3(ctx, "", model, &keys, &mut Textures::new(source, dir)).await
    }

    fn extensions(&self) -> &[&str] {
        &["md3", "MD3"]
    }
}

/// Each surface's texture key where no skin names one: its first shader.
pub(crate) fn default_keys(model: &Md3Model) -> Vec<String> {
    model
        .surfaces()
        .iter()
        .map(|s| s.default_texture())
        .collect()
}

/// The folder holding `file` (empty at the source's root).
pub(crate) fn parent_dir(file: &Path) -> PathBuf {
    file.parent().map(Path::to_path_buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_names_from_a_file_stay_under_the_sources_root() {
        for ok in ["models/players/major/head.tga", "head.tga"] {
            assert!(within_root(Path::new(ok)), "{ok}");
        }
        for bad in [
            "",
            "../secret.tga",
            "models/../../x.tga",
            "/etc/passwd",
            "c:/x.tga",
            "other://x.tga",
        ] {
            assert!(!within_root(Path::new(bad)), "{bad}");
        }
    }
}
