//! The `.md2` and `.mdl` asset loader: the file's bytes through Bevy's
//! reader, the model's GPU data from md2-wgpu's contract, its skins found
//! beside it (a Quake I model's in its game's palette).

use std::fmt;
use std::sync::Arc;

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, AssetServer, LoadContext, RenderAssetUsages};
use bevy::image::{Image, ImageAddressMode, ImageFilterMode, ImageSampler, ImageSamplerDescriptor};
use bevy::log::{info, warn};
use bevy::reflect::TypePath;
use bevy::render::render_resource::{
    Extent3d, TextureDataOrder, TextureDimension, TextureFormat, TextureViewDescriptor,
    TextureViewDimension,
};
use bevy::render::storage::ShaderBuffer;
use md2_wgpu::contract::SkinArray;
use md2_wgpu::format::mdl::{MdlError, MdlModel};
use md2_wgpu::{
    Md2Model, ModelData, QuakeModel,
    contract::{GpuModelOptions, ModelDataError},
    format::Md2Error,
};

use crate::asset::{Md2Asset, Md2GpuBytes};
use crate::material::{Md2Material, Md2ModelInfo};
use crate::mesh::{every_frame_aabb, md2_mesh};
use crate::poses::{PoseRecord, pose_buffer};
use crate::skins::{load_palette, load_skins};

/// The largest skin side uploaded: larger skins are scaled down (WebGPU's
/// smallest `max_texture_dimension_2d` is 8192; MD2 skins are a few
/// hundred texels).
pub const MAX_SKIN_SIDE: u32 = 2048;

/// How many entity records a model's pose buffer starts with; it doubles
/// when more entities draw the model.
pub const INITIAL_POSE_CAPACITY: u32 = 64;

/// Why an `.md2` or `.mdl` asset did not load. Bevy reports it (in the log, and to
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
}

impl fmt::Display for Md2LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Md2LoadError::Read(e) => write!(f, "cannot read the MD2 file: {e}"),
            Md2LoadError::Model(e) => write!(f, "not a valid MD2 model: {e}"),
            Md2LoadError::Mdl(e) => write!(f, "not a valid MDL model: {e}"),
            Md2LoadError::GpuData(e) => write!(f, "the MD2 model cannot be drawn: {e}"),
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
        }
    }
}

/// Loads `.md2` (Quake II) and `.mdl` (Quake I) files as [`Md2Asset`]s:
/// parses the bytes with md2-wgpu (validation as strict as Q2PRO's or
/// QuakeSpasm's, never a panic), builds the model's
/// GPU data ([`ModelData`]) and its skins' texture array ([`SkinArray`]),
/// and makes the model's mesh, buffers, skins and material as labelled
/// sub-assets.
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

impl AssetLoader for Md2Loader {
    type Asset = Md2Asset;
    type Settings = ();
    type Error = Md2LoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<Md2Asset, Md2LoadError> {
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(Md2LoadError::Read)?;
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
        let options = GpuModelOptions::DEFAULT.with_fullbright_masks(masks);
        let data = ModelData::new(&model, options).map_err(Md2LoadError::GpuData)?;
        let skin_array = SkinArray::new(&images, MAX_SKIN_SIDE);

        let vertices = ctx.add_labeled_asset(
            "vertices".to_owned(),
            ShaderBuffer::new(data.vertex_bytes(), RenderAssetUsages::RENDER_WORLD),
        );
        let frame_params = ctx.add_labeled_asset(
            "frame_params".to_owned(),
            ShaderBuffer::new(data.frame_param_bytes(), RenderAssetUsages::RENDER_WORLD),
        );
        let poses = ctx.add_labeled_asset(
            "poses".to_owned(),
            pose_buffer(&vec![PoseRecord::default(); INITIAL_POSE_CAPACITY as usize]),
        );
        let skin_image = ctx.add_labeled_asset("skins".to_owned(), skin_image(&skin_array));
        let mesh = ctx.add_labeled_asset("mesh".to_owned(), md2_mesh(&data));
        let info = data.info();
        let material = ctx.add_labeled_asset(
            "material".to_owned(),
            Md2Material {
                info: Md2ModelInfo {
                    num_xyz: info.num_xyz,
                    num_frames: info.num_frames,
                    flags: info.flags,
                    padding_b: 0,
                },
                vertices,
                frame_params,
                poses: poses.clone(),
                skins: skin_image,
            },
        );

        let full = data.levels_of_detail().levels()[0];
        let gpu_bytes = Md2GpuBytes {
            vertices: data.vertex_bytes().len() as u64,
            frame_params: data.frame_param_bytes().len() as u64,
            info: data.info_bytes().len() as u64,
            corners: data.corner_bytes().len() as u64,
            indices: u64::from(full.index_count) * data.index_format().size(),
            skins: skin_array.bytes(),
        };
        Ok(Md2Asset {
            aabb: every_frame_aabb(&data),
            clips: model.clips(),
            // Masks are not skins an entity chooses.
            skin_count: if masks {
                skin_array.layer_count() / 2
            } else {
                skin_array.layer_count()
            },
            model: Arc::new(model),
            mesh,
            material,
            poses,
            pose_capacity: INITIAL_POSE_CAPACITY,
            skin_notes,
            gpu_bytes,
        })
    }

    fn extensions(&self) -> &[&str] {
        &["md2", "MD2", "mdl", "MDL"]
    }
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

/// The skins as one sRGB 2D-array texture, every layer with its mips
/// (layer after layer, each largest first), sampled as md2-wgpu samples
/// them: bilinear, mipmapped, repeating.
fn skin_image(skins: &SkinArray) -> Image {
    let (width, height) = skins.size();
    let mut data = Vec::with_capacity(skins.bytes() as usize);
    for layer in 0..skins.layer_count() {
        for mip in skins.mips(layer) {
            data.extend_from_slice(mip.as_raw());
        }
    }
    let mut image = Image::new_uninit(
        Extent3d {
            width,
            height,
            depth_or_array_layers: skins.layer_count(),
        },
        TextureDimension::D2,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::RENDER_WORLD,
    );
    image.data = Some(data);
    image.data_order = TextureDataOrder::LayerMajor;
    image.texture_descriptor.mip_level_count = skins.mip_level_count();
    // One skin is still an array of one layer: the view must say so.
    image.texture_view_descriptor = Some(TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2Array),
        ..Default::default()
    });
    image.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
        label: Some("md2_bevy skins".to_owned()),
        address_mode_u: ImageAddressMode::Repeat,
        address_mode_v: ImageAddressMode::Repeat,
        mag_filter: ImageFilterMode::Linear,
        min_filter: ImageFilterMode::Linear,
        mipmap_filter: ImageFilterMode::Linear,
        ..Default::default()
    });
    image
}
