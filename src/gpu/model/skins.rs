//! A model's skins uploaded as one sRGB texture array with mipmaps (the
//! layers and mips a [`SkinArray`] made on the CPU).

use image::RgbaImage;

use crate::contract::{MAX_GPU_SKINS, SkinArray};
use crate::gpu::error::SetupError;

/// The uploaded skins.
#[derive(Clone, Debug)]
pub(crate) struct SkinTexture {
    pub view: wgpu::TextureView,
    pub layers: u32,
    pub size: (u32, u32),
    pub uses_default: bool,
    pub bytes: u64,
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
    let layers = u32::try_from(skins.len().max(1)).unwrap_or(u32::MAX);
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
    // Checked first: scaling a thousand skins the device cannot hold would
    // be wasted work.
    let array = SkinArray::new(skins, limits.max_texture_dimension_2d);
    let (width, height) = array.size();
    let levels = array.mip_level_count();
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
    for layer in 0..allocated_layers {
        // The GL padding layer repeats the first skin.
        let source = if layer < array.layer_count() {
            layer
        } else {
            0
        };
        for (level, image) in (0u32..).zip(array.mips(source)) {
            let (w, h) = image.dimensions();
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
                image.as_raw(),
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
        layers: array.layer_count(),
        size: (width, height),
        uses_default: array.uses_default_skin(),
        bytes,
    })
}
