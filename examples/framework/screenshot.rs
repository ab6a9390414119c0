//! The last frame as a PNG, and the check that it shows something.
//!
//! The frame is drawn again into an offscreen texture of the surface's
//! format rather than copied from the surface, which not every platform
//! lets us read; the app has not been updated since, so the picture is the
//! frame last shown. For the check, the background alone is drawn as well:
//! the pixels that differ are the models'.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, RgbaImage};

use super::{App, Gpu, Targets, record};

/// The least share of the picture the models must cover for the check.
const MIN_MODEL_SHARE: f64 = 0.001;
/// The least number of colours among the models' pixels: a lit, textured
/// model has many; a flat silhouette has one or two.
const MIN_MODEL_COLOURS: usize = 8;

/// Draws the last frame offscreen, saves it at `path` as PNG and, with
/// `check`, fails when it shows nothing. Returns a line describing it.
pub fn save<A: App>(gpu: &Gpu, app: &mut A, path: &Path, check: bool) -> Result<String, String> {
    let picture = draw(gpu, app, false)?;
    write_png(&picture, path)?;
    let colours = distinct_colours(picture.pixels());
    let mut report = format!(
        "{}x{}, {colours} colours",
        picture.width(),
        picture.height()
    );
    if check {
        let background = draw(gpu, app, true)?;
        let model: Vec<&image::Rgba<u8>> = picture
            .pixels()
            .zip(background.pixels())
            .filter(|(a, b)| a != b)
            .map(|(a, _)| a)
            .collect();
        let share = model.len() as f64 / (picture.width() as f64 * picture.height() as f64);
        let model_colours = distinct_colours(model.iter().copied());
        report += &format!(
            "; models cover {:.2}% of it in {model_colours} colours",
            share * 100.0
        );
        if colours < 2 {
            return Err(format!("the picture is one colour ({report})"));
        }
        if share < MIN_MODEL_SHARE || model_colours < MIN_MODEL_COLOURS {
            return Err(format!(
                "no model to be seen: want at least {:.1}% of the picture in {MIN_MODEL_COLOURS} \
                 colours ({report})",
                MIN_MODEL_SHARE * 100.0
            ));
        }
        report += "; check passed";
    }
    Ok(report)
}

fn distinct_colours<'a>(pixels: impl Iterator<Item = &'a image::Rgba<u8>>) -> usize {
    let mut all: Vec<[u8; 4]> = pixels.map(|p| p.0).collect();
    all.sort_unstable();
    all.dedup();
    all.len()
}

/// Renders one frame of `app` offscreen and reads it back as RGBA.
fn draw<A: App>(gpu: &Gpu, app: &mut A, background_only: bool) -> Result<RgbaImage, String> {
    let swap_red_blue = match gpu.color_format {
        wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Rgba8UnormSrgb => false,
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb => true,
        other => return Err(format!("cannot save a {other:?} frame as PNG")),
    };
    let (width, height) = gpu.size;
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("md2-wgpu example screenshot"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: gpu.color_format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let targets = Targets::new(gpu, gpu.size);
    let row = (4 * width).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("md2-wgpu example screenshot readback"),
        size: u64::from(row) * u64::from(height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("md2-wgpu example screenshot"),
        });
    record(
        &mut encoder,
        &texture.create_view(&Default::default()),
        &targets,
        app,
        background_only,
    );
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: None,
            },
        },
        texture.size(),
    );
    gpu.queue.submit([encoder.finish()]);

    let slice = buffer.slice(..);
    slice.map_async(wgpu::MapMode::Read, |_| {});
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| format!("the GPU did not finish the frame: {e}"))?;
    let mapped = slice
        .get_mapped_range()
        .map_err(|e| format!("cannot read the frame back: {e}"))?;
    let mut pixels = Vec::with_capacity(4 * width as usize * height as usize);
    for line in mapped.chunks(row as usize) {
        pixels.extend_from_slice(&line[..4 * width as usize]);
    }
    drop(mapped);
    buffer.unmap();
    if swap_red_blue {
        for p in pixels.chunks_exact_mut(4) {
            p.swap(0, 2);
        }
    }
    RgbaImage::from_raw(width, height, pixels).ok_or_else(|| "the frame came back short".to_owned())
}

/// Writes `picture` as a small PNG: best compression, opaque as RGB.
fn write_png(picture: &RgbaImage, path: &Path) -> Result<(), String> {
    let rgb = image::DynamicImage::ImageRgba8(picture.clone()).into_rgb8();
    let file = File::create(path).map_err(|e| format!("cannot create the file: {e}"))?;
    PngEncoder::new_with_quality(
        BufWriter::new(file),
        CompressionType::Best,
        FilterType::Adaptive,
    )
    .write_image(
        rgb.as_raw(),
        rgb.width(),
        rgb.height(),
        image::ExtendedColorType::Rgb8,
    )
    .map_err(|e| format!("cannot write the PNG: {e}"))
}
