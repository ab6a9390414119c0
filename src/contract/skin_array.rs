//! A model's skins as the layers of one texture array with mipmaps, on the
//! CPU: every skin scaled to the largest width and height among them, each
//! mip level averaged in linear light. The GPU half uploads it as one sRGB
//! `texture_2d_array`; another host uploads the same images.

use image::RgbaImage;
use image::imageops::{self, FilterType};

/// Side of the default texture, in texels.
const CHECKER_SIDE: u32 = 64;
/// Side of one checker square.
const CHECKER_CELL: u32 = 8;

/// The texture a model without skins gets: magenta and dark grey squares,
/// the conventional "missing texture" that no real skin is mistaken for.
pub fn default_skin() -> RgbaImage {
    RgbaImage::from_fn(CHECKER_SIDE, CHECKER_SIDE, |x, y| {
        if (x / CHECKER_CELL + y / CHECKER_CELL).is_multiple_of(2) {
            image::Rgba([255, 0, 255, 255])
        } else {
            image::Rgba([40, 40, 40, 255])
        }
    })
}

/// A model's skins, ready to upload as the layers of one sRGB texture
/// array: layer `i` is skin `i` with its whole mip chain, every layer the
/// same size.
///
/// ```
/// use md2_wgpu::contract::SkinArray;
/// let skins = SkinArray::new(&[], 2048);
/// assert!(skins.uses_default_skin());
/// assert_eq!((skins.layer_count(), skins.size()), (1, (64, 64)));
/// assert_eq!(skins.mip_level_count(), 7);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SkinArray {
    size: (u32, u32),
    uses_default: bool,
    /// Per layer, its mip chain, largest first.
    layers: Vec<Vec<RgbaImage>>,
}

impl SkinArray {
    /// `skins` (the default checker when empty; an empty image stands for
    /// the checker too), each scaled to the largest width and height among
    /// them, at most `max_side` texels a side.
    pub fn new(skins: &[RgbaImage], max_side: u32) -> SkinArray {
        let uses_default = skins.is_empty();
        let checker;
        let skins: &[RgbaImage] = if uses_default {
            checker = [default_skin()];
            &checker
        } else {
            skins
        };
        let (mut width, mut height) = skins
            .iter()
            .filter(|s| s.width() > 0 && s.height() > 0)
            .fold((0, 0), |(w, h), s| (w.max(s.width()), h.max(s.height())));
        if width == 0 {
            (width, height) = (CHECKER_SIDE, CHECKER_SIDE);
        }
        let max_side = max_side.max(1);
        let (width, height) = (width.min(max_side), height.min(max_side));
        let levels = 32 - width.max(height).leading_zeros();
        let layers = skins
            .iter()
            .map(|skin| {
                let mut image = if skin.width() == 0 || skin.height() == 0 {
                    imageops::resize(&default_skin(), width, height, FilterType::Nearest)
                } else if skin.dimensions() == (width, height) {
                    skin.clone()
                } else {
                    imageops::resize(skin, width, height, FilterType::Triangle)
                };
                let mut chain = Vec::with_capacity(levels as usize);
                for level in 0..levels {
                    if level > 0 {
                        image = half_size(&image);
                    }
                    chain.push(image.clone());
                }
                chain
            })
            .collect();
        SkinArray {
            size: (width, height),
            uses_default,
            layers,
        }
    }

    /// Layers: one per skin (one for the checker).
    pub fn layer_count(&self) -> u32 {
        self.layers.len() as u32
    }

    /// Every layer's size, in texels.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// Mip levels per layer, down to 1 × 1.
    pub fn mip_level_count(&self) -> u32 {
        32 - self.size.0.max(self.size.1).leading_zeros()
    }

    /// Whether no skin was given and the checker stands in.
    pub fn uses_default_skin(&self) -> bool {
        self.uses_default
    }

    /// Layer `layer`'s mip chain, largest first (sRGB RGBA8).
    pub fn mips(&self, layer: u32) -> &[RgbaImage] {
        self.layers.get(layer as usize).map_or(&[], Vec::as_slice)
    }

    /// Bytes of every layer and level.
    pub fn bytes(&self) -> u64 {
        self.layers
            .iter()
            .flatten()
            .map(|i| 4 * u64::from(i.width()) * u64::from(i.height()))
            .sum()
    }
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
