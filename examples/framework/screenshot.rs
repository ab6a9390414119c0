//! The last frame as a PNG, and the checks that it shows something (shared
//! with the egui host, `gui.rs`).
//!
//! The frame is drawn again into an offscreen texture of the surface's
//! format rather than copied from the surface, which not every platform
//! lets us read; the app has not been updated since, so the picture is the
//! frame last shown. For the check, the background alone is drawn as well:
//! the pixels that differ are the models'.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use md2_wgpu::image::codecs::png::{CompressionType, FilterType, PngEncoder};
use md2_wgpu::image::{self, ImageEncoder, RgbaImage};
use md2_wgpu::support::read_rgba8;
use md2_wgpu::wgpu;

use super::{App, Gpu, record, targets};

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
    let mut report = describe(&picture);
    if check {
        let background = draw(gpu, app, true)?;
        report += &check_models(&picture, &background)?;
        report += "; check passed";
    }
    Ok(report)
}

/// "WxH, N colours".
pub fn describe(picture: &RgbaImage) -> String {
    format!(
        "{}x{}, {} colours",
        picture.width(),
        picture.height(),
        distinct_colours(picture.pixels())
    )
}

/// Checks that `picture` shows models: that it is not one colour, and that
/// the pixels where it differs from `background` (the same frame drawn
/// without the models) cover enough of it in enough colours. Returns the
/// figures, or why it fails.
pub fn check_models(picture: &RgbaImage, background: &RgbaImage) -> Result<String, String> {
    let (share, model_colours) = difference(picture, background);
    let report = format!(
        "; models cover {:.2}% of it in {model_colours} colours",
        share * 100.0
    );
    if distinct_colours(picture.pixels()) < 2 {
        return Err(format!("the picture is one colour ({report})"));
    }
    if share < MIN_MODEL_SHARE || model_colours < MIN_MODEL_COLOURS {
        return Err(format!(
            "no model to be seen: want at least {:.1}% of the picture in {MIN_MODEL_COLOURS} \
             colours ({report})",
            MIN_MODEL_SHARE * 100.0
        ));
    }
    Ok(report)
}

/// The least share of an egui app's picture its interface must cover.
const MIN_INTERFACE_SHARE: f64 = 0.05;
/// The least number of colours among the interface's pixels: text and
/// widgets, anti-aliased, have dozens.
const MIN_INTERFACE_COLOURS: usize = 16;

/// Checks that `picture` shows an interface: that the pixels where it
/// differs from `scene` (the same frame drawn with the paint callbacks
/// alone) cover enough of it in enough colours. Returns the figures, or why
/// it fails.
pub fn check_interface(picture: &RgbaImage, scene: &RgbaImage) -> Result<String, String> {
    let (share, colours) = difference(picture, scene);
    let report = format!(
        "; the interface covers {:.2}% of it in {colours} colours",
        share * 100.0
    );
    if share < MIN_INTERFACE_SHARE || colours < MIN_INTERFACE_COLOURS {
        return Err(format!(
            "no interface to be seen: want at least {:.0}% of the picture in \
             {MIN_INTERFACE_COLOURS} colours ({report})",
            MIN_INTERFACE_SHARE * 100.0
        ));
    }
    Ok(report)
}

/// The share of `picture`'s pixels that differ from `other`'s, and how many
/// colours they have.
fn difference(picture: &RgbaImage, other: &RgbaImage) -> (f64, usize) {
    let differing: Vec<&image::Rgba<u8>> = picture
        .pixels()
        .zip(other.pixels())
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a)
        .collect();
    let share = differing.len() as f64 / (picture.width() as f64 * picture.height() as f64);
    (share, distinct_colours(differing.iter().copied()))
}

fn distinct_colours<'a>(pixels: impl Iterator<Item = &'a image::Rgba<u8>>) -> usize {
    let mut all: Vec<[u8; 4]> = pixels.map(|p| p.0).collect();
    all.sort_unstable();
    all.dedup();
    all.len()
}

/// Renders one frame of `app` offscreen and reads it back as RGBA.
fn draw<A: App>(gpu: &Gpu, app: &mut A, background_only: bool) -> Result<RgbaImage, String> {
    let texture = targets::picture_target(&gpu.device, gpu.color_format, gpu.size);
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("md2-wgpu example screenshot"),
        });
    record(
        gpu,
        &mut encoder,
        &texture.create_view(&Default::default()),
        &gpu.targets(),
        app,
        background_only,
    );
    read_rgba8(&gpu.device, &gpu.queue, encoder, &texture)
        .map_err(|e| format!("cannot read the frame back: {e}"))
}

/// Writes `picture` as a small PNG: best compression, opaque as RGB.
pub fn write_png(picture: &RgbaImage, path: &Path) -> Result<(), String> {
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
