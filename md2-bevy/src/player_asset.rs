//! A Quake III player as one Bevy asset: its three models wearing one
//! skin set's textures, its `animation.cfg`'s clips, and a weapon, read
//! through Bevy's reader by md2-wgpu's sans-I/O player loader.

use std::path::PathBuf;
use std::sync::Arc;

use bevy::asset::io::{AssetReaderError, AssetSourceId, Reader};
use bevy::asset::{Asset, AssetLoader, AssetPath, Handle, LoadContext, ReadAssetBytesError};
use bevy::reflect::TypePath;
use md2_wgpu::Clip;
use md2_wgpu::format::md3::{Md3Model, Md3Player, Md3PlayerLoader, PlayerAnimation, PlayerPart};
use serde::{Deserialize, Serialize};

use crate::animator::Md2Animator;
use crate::loader::{Md2LoadError, read_file};
use crate::md3_asset::{Md3Asset, Textures, add_md3, default_keys, parent_dir};

/// Which skin set and weapon a player loads with: give them with
/// `AssetServer::load_builder().with_settings(..)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Md3PlayerSettings {
    /// The skin set (`default`, `red`, `blue`...): the `.skin` files
    /// `lower_<skin>.skin`, `upper_<skin>.skin`, `head_<skin>.skin`.
    pub skin: String,
    /// A weapon for the hand (on the torso's `tag_weapon`): an `.md3`'s
    /// asset path (in the player's asset source unless it names another:
    /// `weapons://machinegun.md3`), each surface wearing its first
    /// shader's texture found from that source's root or beside it.
    pub weapon: Option<String>,
}

impl Default for Md3PlayerSettings {
    /// The `default` skins, no weapon.
    fn default() -> Self {
        Md3PlayerSettings {
            skin: "default".to_owned(),
            weapon: None,
        }
    }
}

/// A Quake III player loaded by [`Md3PlayerAssetLoader`](crate::Md3PlayerAssetLoader)
/// from its folder's `animation.cfg` (`lower.md3`, `upper.md3`, `head.md3`
/// and the skin set's `.skin` files read beside it): each part an
/// [`Md3Asset`] wearing the textures its skin names, the animations as
/// clips by name, and the weapon, if one was asked for. Draw it with an
/// [`Md3PlayerEntity`](crate::Md3PlayerEntity).
///
/// ```no_run
/// # use bevy::prelude::*;
/// use md2_bevy::{Md3PlayerAsset, Md3PlayerSettings};
///
/// fn load(assets: Res<AssetServer>) {
///     let major: Handle<Md3PlayerAsset> = assets
///         .load_builder()
///         .with_settings(|s: &mut Md3PlayerSettings| {
///             s.skin = "red".into();
///             s.weapon = Some("models/weapons2/machinegun/machinegun.md3".into());
///         })
///         .load("models/players/major/animation.cfg");
/// # let _ = major;
/// }
/// ```
///
/// Labelled sub-assets: `#lower`, `#upper`, `#head` and `#weapon`, each an
/// [`Md3Asset`] (with its surfaces under it: `#upper/u_torso`).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct Md3PlayerAsset {
    pub(crate) player: Arc<Md3Player>,
    pub(crate) parts: [Handle<Md3Asset>; 3],
    pub(crate) weapon: Option<Handle<Md3Asset>>,
}

impl Md3PlayerAsset {
    /// The player as md2-wgpu loaded it: models, skins, `animation.cfg`,
    /// weapon; [`Md3Player::parts_at`] places its parts on the CPU.
    pub fn player(&self) -> &Md3Player {
        &self.player
    }

    /// A part's model.
    pub fn part(&self, part: PlayerPart) -> &Handle<Md3Asset> {
        &self.parts[part.index()]
    }

    /// The weapon's model, if the settings named one.
    pub fn weapon(&self) -> Option<&Handle<Md3Asset>> {
        self.weapon.as_ref()
    }

    /// An animation of `animation.cfg` as a clip of its part's model (the
    /// legs' `LEGS_` and `BOTH_`, the torso's `TORSO_` and `BOTH_`), or
    /// `None` where the file gives it no frames in that model.
    pub fn clip(&self, animation: PlayerAnimation) -> Option<Clip> {
        self.player.animations().clip(animation)
    }

    /// An animator playing `animation` from time 0 (the legs' or the
    /// torso's: [`Md3PlayerEntity::legs`](crate::Md3PlayerEntity::legs)).
    pub fn animator(&self, animation: PlayerAnimation) -> Option<Md2Animator> {
        self.clip(animation).map(Md2Animator::new)
    }
}

/// Loads a Quake III player from its `animation.cfg`, as
/// `load::<Md3PlayerAsset>("models/players/major/animation.cfg")`: the
/// file every player folder has. It claims no extension (`.cfg` is not
/// only Quake III's): Bevy picks it by the handle's type.
#[derive(TypePath, Default)]
pub struct Md3PlayerAssetLoader;

impl AssetLoader for Md3PlayerAssetLoader {
    type Asset = Md3PlayerAsset;
    type Settings = Md3PlayerSettings;
    type Error = Md2LoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &Md3PlayerSettings,
        ctx: &mut LoadContext<'_>,
    ) -> Result<Md3PlayerAsset, Md2LoadError> {
        let config = read_file(reader).await?;
        let config_path = ctx.path().path().to_path_buf();
        let dir = parent_dir(&config_path);
        // md2-wgpu's loader asks for each file in turn; Bevy's reader
        // answers (the cfg with the bytes already read).
        let mut files = Md3PlayerLoader::new(&dir, &settings.skin);
        while let Some(file) = files.wanted() {
            let bytes = if file == config_path {
                Some(config.clone())
            } else {
                let source = ctx.path().source().clone_owned();
                let path = AssetPath::from_path_buf(file.clone()).with_source(source);
                read_or_none(ctx, path).await?
            };
            files.read(&file, bytes.as_deref());
        }
        let mut player = files.finish().map_err(Md2LoadError::Player)?;

        let mut textures = Textures::new(ctx.path().source().clone_owned(), dir);
        let mut parts = Vec::new();
        for part in PlayerPart::ALL {
            let keys = player.texture_keys(part);
            let prefix = format!("{}/", part.name());
            let model = player.part(part).clone();
            let asset = add_md3(ctx, &prefix, model, &keys, &mut textures).await?;
            parts.push(ctx.add_labeled_asset(part.name().to_owned(), asset));
        }
        let weapon = match &settings.weapon {
            Some(path) => {
                let (model, asset) = load_weapon(ctx, path).await?;
                player = player.with_weapon(model);
                Some(ctx.add_labeled_asset("weapon".to_owned(), asset))
            }
            None => None,
        };
        let [lower, upper, head] = <[Handle<Md3Asset>; 3]>::try_from(parts)
            .unwrap_or_else(|_| unreachable!("PlayerPart::ALL has three parts"));
        Ok(Md3PlayerAsset {
            player: Arc::new(player),
            parts: [lower, upper, head],
            weapon,
        })
    }
}

/// The weapon at `path`: its model, and its surfaces wearing their first
/// shaders' textures.
async fn load_weapon(
    ctx: &mut LoadContext<'_>,
    path: &str,
) -> Result<(Md3Model, Md3Asset), Md2LoadError> {
    let failed = |error: Md2LoadError| Md2LoadError::Weapon {
        path: PathBuf::from(path),
        error: Box::new(error),
    };
    let mut asset_path = AssetPath::try_parse(path)
        .map_err(|e| failed(Md2LoadError::Read(std::io::Error::other(e.to_string()))))?
        .into_owned();
    if matches!(asset_path.source(), AssetSourceId::Default) {
        asset_path = asset_path.with_source(ctx.path().source().clone_owned());
    }
    let file = asset_path.path().to_path_buf();
    let source = asset_path.source().clone_owned();
    let bytes = read_or_none(ctx, asset_path)
        .await
        .map_err(failed)?
        .ok_or_else(|| {
            failed(Md2LoadError::Read(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file in the player's asset source",
            )))
        })?;
    let model = Md3Model::from_bytes(&bytes).map_err(|e| failed(Md2LoadError::Md3(e)))?;
    let keys = default_keys(&model);
    let mut textures = Textures::new(source, parent_dir(&file));
    let asset = add_md3(ctx, "weapon/", model.clone(), &keys, &mut textures)
        .await
        .map_err(failed)?;
    Ok((model, asset))
}

/// `path`'s bytes, `None` where there is no such file; any other failure
/// to read is the error.
async fn read_or_none(
    ctx: &mut LoadContext<'_>,
    path: AssetPath<'static>,
) -> Result<Option<Vec<u8>>, Md2LoadError> {
    match ctx.read_asset_bytes(path).await {
        Ok(bytes) => Ok(Some(bytes)),
        Err(ReadAssetBytesError::AssetReaderError(AssetReaderError::NotFound(_))) => Ok(None),
        Err(error) => Err(Md2LoadError::Read(std::io::Error::other(error.to_string()))),
    }
}
