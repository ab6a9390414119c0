//! Skins as PNG textures and materials, the way the renderer samples them.

use ::gltf::json;
use image::RgbaImage;
use json::Index;
use json::material::{PbrBaseColorFactor, PbrMetallicRoughness, StrengthFactor};
use json::texture::{Info, MagFilter, MinFilter, Sampler, WrappingMode};
use json::validation::Checked;

use super::buffer::Builder;
use super::error::GltfError;

/// The colour of a model without a skin: a light grey, like the renderer's
/// lit default.
const PLAIN_COLOUR: [f32; 4] = [0.8, 0.8, 0.8, 1.0];

/// A skin ready to embed: its name and its PNG bytes (`None` for an empty
/// image, which gets a plain material).
pub(super) struct EncodedSkin {
    pub name: String,
    pub png: Option<Vec<u8>>,
}

/// Encodes each skin as PNG; `names` name them by index.
pub(super) fn encode(skins: &[RgbaImage], names: &[String]) -> Result<Vec<EncodedSkin>, GltfError> {
    skins
        .iter()
        .enumerate()
        .map(|(i, image)| {
            let name = names.get(i).cloned().unwrap_or_else(|| format!("skin{i}"));
            encode_one(i, name, image)
        })
        .collect()
}

/// Encodes `image` (the `i`th skin or texture, for the error) as PNG.
pub(super) fn encode_one(
    i: usize,
    name: String,
    image: &RgbaImage,
) -> Result<EncodedSkin, GltfError> {
    if image.width() == 0 || image.height() == 0 {
        return Ok(EncodedSkin { name, png: None });
    }
    let mut png = Vec::new();
    image::DynamicImage::ImageRgba8(image.clone())
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| GltfError::SkinEncoding {
            skin: i,
            reason: e.to_string(),
        })?;
    Ok(EncodedSkin {
        name,
        png: Some(png),
    })
}

/// One material per skin (one plain material where there are none), in
/// skin order; their indices.
pub(super) fn write(builder: &mut Builder, skins: &[EncodedSkin]) -> Vec<Index<json::Material>> {
    if skins.is_empty() {
        return vec![plain(builder, "md2 (no skin)".into())];
    }
    let sampler = skins
        .iter()
        .any(|s| s.png.is_some())
        .then(|| sampler(builder));
    skins
        .iter()
        .map(|skin| match (&skin.png, sampler) {
            (Some(png), Some(sampler)) => {
                let texture = texture(builder, sampler, &skin.name, png);
                textured(builder, skin.name.clone(), texture)
            }
            _ => plain(builder, skin.name.clone()),
        })
        .collect()
}

/// The renderer's sampler: bilinear, mipmapped, repeating.
pub(super) fn sampler(builder: &mut Builder) -> Index<Sampler> {
    builder.root.push(Sampler {
        mag_filter: Some(Checked::Valid(MagFilter::Linear)),
        min_filter: Some(Checked::Valid(MinFilter::LinearMipmapLinear)),
        name: None,
        wrap_s: Checked::Valid(WrappingMode::Repeat),
        wrap_t: Checked::Valid(WrappingMode::Repeat),
        extensions: None,
        extras: None,
    })
}

/// `png` embedded in the buffer as an image named `name`, and a texture
/// sampling it with `sampler`.
pub(super) fn texture(
    builder: &mut Builder,
    sampler: Index<Sampler>,
    name: &str,
    png: &[u8],
) -> Index<json::Texture> {
    let view = builder.view(None, None, |bin| bin.extend_from_slice(png));
    let image = builder.root.push(json::Image {
        buffer_view: Some(view),
        mime_type: Some(json::image::MimeType("image/png".into())),
        name: Some(name.into()),
        uri: None,
        extensions: None,
        extras: None,
    });
    builder.root.push(json::Texture {
        name: Some(name.into()),
        sampler: Some(sampler),
        source: image,
        extensions: None,
        extras: None,
    })
}

/// A material whose base colour is `texture`: not metal, fully rough.
pub(super) fn textured(
    builder: &mut Builder,
    name: String,
    texture: Index<json::Texture>,
) -> Index<json::Material> {
    builder.root.push(json::Material {
        name: Some(name),
        pbr_metallic_roughness: PbrMetallicRoughness {
            base_color_texture: Some(Info {
                index: texture,
                tex_coord: 0,
                extensions: None,
                extras: None,
            }),
            metallic_factor: StrengthFactor(0.0),
            roughness_factor: StrengthFactor(1.0),
            ..Default::default()
        },
        ..Default::default()
    })
}

/// A material with no texture: light grey, not metal, fully rough.
pub(super) fn plain(builder: &mut Builder, name: String) -> Index<json::Material> {
    builder.root.push(json::Material {
        name: Some(name),
        pbr_metallic_roughness: PbrMetallicRoughness {
            base_color_factor: PbrBaseColorFactor(PLAIN_COLOUR),
            metallic_factor: StrengthFactor(0.0),
            roughness_factor: StrengthFactor(1.0),
            ..Default::default()
        },
        ..Default::default()
    })
}
