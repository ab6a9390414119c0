//! One model's Bevy assets, whatever file it came from: md2-wgpu's
//! [`ModelData`] as storage buffers, the mesh, the pose buffer, the skins'
//! texture array and the material, as labelled sub-assets of the asset
//! being loaded. An `.md2` or `.mdl` makes one; an `.md3` one per surface.

use std::sync::Arc;

use bevy::asset::{Handle, LoadContext, RenderAssetUsages};
use bevy::image::{Image, ImageAddressMode, ImageFilterMode, ImageSampler, ImageSamplerDescriptor};
use bevy::render::render_resource::{
    Extent3d, TextureDataOrder, TextureDimension, TextureFormat, TextureViewDescriptor,
    TextureViewDimension,
};
use bevy::render::storage::ShaderBuffer;
use md2_wgpu::ModelData;
use md2_wgpu::contract::{GpuModelOptions, ModelDataError, SkinArray};
use md2_wgpu::model::KeyframeModel;

use crate::asset::{AssetModel, CrowdModel, Md2Asset, Md2GpuBytes};
use crate::levels::{Md2Levels, load_levels};
use crate::material::{Md2Material, Md2ModelInfo};
use crate::mesh::{every_frame_aabb, md2_level_mesh, md2_mesh};
use crate::poses::{PoseRecord, pose_buffer};

/// The largest skin side uploaded: larger skins are scaled down (WebGPU's
/// smallest `max_texture_dimension_2d` is 8192; MD2 skins are a few
/// hundred texels).
pub const MAX_SKIN_SIDE: u32 = 2048;

/// How many entity records a model's pose buffer starts with; it doubles
/// when more entities draw the model.
pub const INITIAL_POSE_CAPACITY: u32 = 64;

/// A model's skins as one texture, made here or shared with a model made
/// before it in the same load (an MD3's surfaces that wear one picture).
#[derive(Clone, Debug)]
pub(crate) struct Skins {
    /// The texture array.
    pub image: Handle<Image>,
    /// Its layers (fullbright masks included).
    pub layers: u32,
    /// Its bytes on the GPU, or 0 where another model counts them.
    pub bytes: u64,
    /// Whether the second half of the layers are fullbright masks.
    pub masks: bool,
}

impl Skins {
    /// `skins` as a labelled texture `{prefix}skins`.
    pub fn add(ctx: &mut LoadContext<'_>, prefix: &str, skins: &SkinArray, masks: bool) -> Skins {
        let image = ctx.add_labeled_asset(format!("{prefix}skins"), skin_image(skins));
        Skins {
            image,
            layers: skins.layer_count(),
            bytes: skins.bytes(),
            masks,
        }
    }

    /// The same texture for another model, its bytes counted once.
    pub fn shared(&self) -> Skins {
        Skins {
            bytes: 0,
            ..self.clone()
        }
    }
}

/// Adds `keyframes`' GPU data, mesh, pose buffer and material to `ctx`
/// under labels that begin with `prefix` (`""` for a whole model,
/// `"surface/"` for a part of one), and gives the [`Md2Asset`] that draws
/// them with `skins`.
pub(crate) async fn add_model(
    ctx: &mut LoadContext<'_>,
    prefix: &str,
    keyframes: &KeyframeModel,
    model: AssetModel,
    skins: Skins,
    skin_notes: Vec<String>,
    levels: Md2Levels,
) -> Result<Md2Asset, ModelDataError> {
    let options = GpuModelOptions::DEFAULT.with_fullbright_masks(skins.masks);
    let data = ModelData::new(keyframes, options)?;
    let (levels, level_source) = load_levels(ctx, levels, keyframes, data.mesh()).await;
    let data = match levels {
        Some(levels) => data.with_levels(levels)?,
        None => data,
    };
    let label = |name: &str| format!("{prefix}{name}");
    let vertices = ctx.add_labeled_asset(
        label("vertices"),
        ShaderBuffer::new(data.vertex_bytes(), RenderAssetUsages::RENDER_WORLD),
    );
    let frame_params = ctx.add_labeled_asset(
        label("frame_params"),
        ShaderBuffer::new(data.frame_param_bytes(), RenderAssetUsages::RENDER_WORLD),
    );
    let poses = ctx.add_labeled_asset(
        label("poses"),
        pose_buffer(&vec![PoseRecord::default(); INITIAL_POSE_CAPACITY as usize]),
    );
    let info = data.info();
    // What a resident crowd of the model draws with beside the material's
    // buffers: the corners in the contract's layout, both windings of
    // every level, the boxes its members are culled by.
    let mesh = ctx.add_labeled_asset(label("mesh"), md2_mesh(&data));
    // Entities draw a coarser level's mesh where their views allow it
    // (entity_levels.rs): one per level, `mesh` for full detail.
    let level_count = data.levels_of_detail().levels().len();
    let level_meshes: Vec<Handle<bevy::mesh::Mesh>> = std::iter::once(mesh.clone())
        .chain((1..level_count).map(|level| {
            ctx.add_labeled_asset(
                label(&format!("mesh_level{level}")),
                md2_level_mesh(&data, level),
            )
        }))
        .collect();
    let crowd_model = Arc::new(CrowdModel {
        mesh: mesh.id(),
        corners: data.corner_bytes().into(),
        indices: data.mirrored_indices().into(),
        mirrored_indices: data.levels_of_detail().indices().into(),
        frame_bounds: data.frame_bounds().into(),
        sphere: data.bounding_sphere(),
        levels: data.levels_of_detail().clone(),
        info,
        vertices: vertices.id(),
        frame_params: frame_params.id(),
        skins: skins.image.id(),
    });
    let material = ctx.add_labeled_asset(
        label("material"),
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
            skins: skins.image,
        },
    );
    let index_count: u64 = data
        .levels_of_detail()
        .levels()
        .iter()
        .map(|l| u64::from(l.index_count))
        .sum();
    let gpu_bytes = Md2GpuBytes {
        vertices: data.vertex_bytes().len() as u64,
        frame_params: data.frame_param_bytes().len() as u64,
        info: data.info_bytes().len() as u64,
        corners: data.corner_bytes().len() as u64 * level_count as u64,
        indices: index_count * data.index_format().size(),
        skins: skins.bytes,
    };
    let clips = match &model {
        AssetModel::Quake(quake) => quake.clips(),
        // A surface's clips are its player's animation.cfg's (or its
        // frames grouped by name, for a lone model).
        AssetModel::Md3Surface { keyframes } => md2_wgpu::Clip::for_model(keyframes),
    };
    Ok(Md2Asset {
        aabb: every_frame_aabb(&data),
        clips,
        // Masks are not skins an entity chooses.
        skin_count: if skins.masks {
            skins.layers / 2
        } else {
            skins.layers
        },
        model,
        mesh,
        level_meshes,
        material,
        poses,
        pose_capacity: INITIAL_POSE_CAPACITY,
        skin_notes,
        gpu_bytes,
        level_source,
        crowd_model,
    })
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
