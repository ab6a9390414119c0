//! A model's skins as one sRGB texture array with mipmaps.

use image::RgbaImage;
use image::imageops::{self, FilterType};

use super::error::SetupError;
use super::shader::MAX_GPU_SKINS;

/// Side of the default texture, in texels.
const CHECKER_SIDE: u32 = 64;
/// Side of one checker square.
const CHECKER_CELL: u32 = 8;

/// The uploaded skins.
pub(crate) struct SkinTexture {
    pub view: wgpu::TextureView,
    pub layers: u32,
    pub size: (u32, u32),
    pub uses_default: bool,
    pub bytes: u64,
}

/// The texture a model without skins gets: magenta and dark grey squares,
/// the conventional "missing texture" that no real skin is mistaken for.
pub(crate) fn default_skin() -> RgbaImage {
    RgbaImage::from_fn(CHECKER_SIDE, CHECKER_SIDE, |x, y| {
        if (x / CHECKER_CELL + y / CHECKER_CELL).is_multiple_of(2) {
            image::Rgba([255, 0, 255, 255])
        } else {
            image::Rgba([40, 40, 40, 255])
        }
    })
}

/// Uploads `skins` (the default texture when empty; an empty image stands
/// for the default texture too) as layers of one array, each scaled to the
/// largest width and height among them, within the device's limits.
pub(crate) fn upload_skins(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    skins: &[RgbaImage],
) -> Result<SkinTexture, SetupError> {
    let limits = device.limits();
    let uses_default = skins.is_empty();
    let checker;
    let skins: &[RgbaImage] = if uses_default {
        checker = [default_skin()];
        &checker
    } else {
        skins
    };
    let layers = u32::try_from(skins.len()).unwrap_or(u32::MAX);
    // wgpu's GL backend makes a one-layer 2D texture a GL_TEXTURE_2D, which
    // a texture_2d_array binding samples as black (wgpu issues #1574,
    // #1614). There a lone skin gets a second, never addressed, copy.
    let gl = device.adapter_info().backend == wgpu::Backend::Gl;
    let allocated_layers = if gl { layers.max(2) } else { layers };
    let max_layers = limits.max_texture_array_layers.min(MAX_GPU_SKINS);
    if allocated_layers > max_layers {
        return Err(SetupError::TooManySkins {
            skins: skins.len(),
            max: max_layers,
        });
    }
    let max_side = limits.max_texture_dimension_2d.max(1);
    let (mut width, mut height) = skins
        .iter()
        .filter(|s| s.width() > 0 && s.height() > 0)
        .fold((0, 0), |(w, h), s| (w.max(s.width()), h.max(s.height())));
    if width == 0 {
        (width, height) = (CHECKER_SIDE, CHECKER_SIDE);
    }
    let (width, height) = (width.min(max_side), height.min(max_side));
    let levels = 32 - width.max(height).leading_zeros();

    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("md2-wgpu skins"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: allocated_layers,
        },
        mip_level_count: levels,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });

    let mut bytes = 0u64;
    let padding = skins
        .iter()
        .cycle()
        .take((allocated_layers - layers) as usize);
    for (layer, skin) in (0u32..).zip(skins.iter().chain(padding)) {
        let mut level_image = if skin.width() == 0 || skin.height() == 0 {
            imageops::resize(&default_skin(), width, height, FilterType::Nearest)
        } else if skin.dimensions() == (width, height) {
            skin.clone()
        } else {
            imageops::resize(skin, width, height, FilterType::Triangle)
        };
        for level in 0..levels {
            if level > 0 {
                level_image = half_size(&level_image);
            }
            let (w, h) = level_image.dimensions();
            queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: level,
                    origin: wgpu::Origin3d {
                        x: 0,
                        y: 0,
                        z: layer,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                level_image.as_raw(),
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(4 * w),
                    rows_per_image: Some(h),
                },
                wgpu::Extent3d {
                    width: w,
                    height: h,
                    depth_or_array_layers: 1,
                },
            );
            bytes += 4 * u64::from(w) * u64::from(h);
        }
    }

    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some("md2-wgpu skins view"),
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    Ok(SkinTexture {
        view,
        layers,
        size: (width, height),
        uses_default,
        bytes,
    })
}

/// The next mip level: each texel the mean of (up to) 2 × 2 texels, averaged
/// in linear light as the sampler will blend them.
fn half_size(image: &RgbaImage) -> RgbaImage {
    let (w, h) = image.dimensions();
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let to_linear: [f32; 256] = std::array::from_fn(|i| srgb_to_linear(i as f32 / 255.0));
    RgbaImage::from_fn(nw, nh, |x, y| {
        let xs = [(2 * x).min(w - 1), (2 * x + 1).min(w - 1)];
        let ys = [(2 * y).min(h - 1), (2 * y + 1).min(h - 1)];
        let mut sum = [0.0f32; 4];
        for &sy in &ys {
            for &sx in &xs {
                let p = image.get_pixel(sx, sy).0;
                for c in 0..3 {
                    sum[c] += to_linear[p[c] as usize];
                }
                sum[3] += f32::from(p[3]) / 255.0;
            }
        }
        let mut out = [0u8; 4];
        for c in 0..3 {
            out[c] = (linear_to_srgb(sum[c] / 4.0) * 255.0).round() as u8;
        }
        out[3] = (sum[3] / 4.0 * 255.0).round() as u8;
        image::Rgba(out)
    })
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mip_of_black_and_white_is_linear_grey() {
        let img = RgbaImage::from_fn(2, 2, |x, _| {
            if x == 0 {
                image::Rgba([0, 0, 0, 255])
            } else {
                image::Rgba([255, 255, 255, 255])
            }
        });
        let half = half_size(&img);
        assert_eq!(half.dimensions(), (1, 1));
        // Half the light is sRGB 188, not 128.
        assert_eq!(half.get_pixel(0, 0).0, [188, 188, 188, 255]);
    }

    #[test]
    fn odd_sizes_halve_down_to_one_texel() {
        let mut img = RgbaImage::new(5, 3);
        let mut sizes = vec![img.dimensions()];
        while img.dimensions() != (1, 1) {
            img = half_size(&img);
            sizes.push(img.dimensions());
        }
        assert_eq!(sizes, [(5, 3), (2, 1), (1, 1)]);
    }
}
