//! GPU test cases written once for the native suite and the browser's:
//! each an `async fn` over a device and its queue that reads back through
//! `md2_wgpu::support::read_texture_later`, so a native test waits for it
//! (`md2_wgpu::support::wait`, polling the device) and a browser test
//! awaits it. A case returns what it measured, to log, and the pictures
//! it drew, which the native suite saves.

pub mod drawn;
pub mod levels;
pub mod motion;

use glam::Vec3;
use image::RgbaImage;
use md2_wgpu::{Camera, wgpu};

/// What a case measured (lines to log) and drew (pictures, by file name).
#[derive(Debug, Default)]
pub struct Measured {
    /// Lines to log, in order.
    pub lines: Vec<String>,
    /// Pictures worth looking at, by file name.
    pub pictures: Vec<(String, RgbaImage)>,
}

impl Measured {
    /// Adds a line to log.
    pub fn log(&mut self, line: String) {
        self.lines.push(line);
    }

    /// Adds a picture, by file name.
    pub fn picture(&mut self, name: &str, picture: RgbaImage) {
        self.pictures.push((name.to_owned(), picture));
    }
}

/// A perspective camera at `eye` looking at `target`, for a square
/// target: [`Camera::look_at`] with an aspect of 1.
pub fn square_camera(eye: Vec3, target: Vec3, fov_y: f32, near: f32, far: f32) -> Camera {
    Camera::look_at(eye, target, fov_y, 1.0, near, far)
}

/// An `Rgba32Float` colour target written as is (no blending): what a
/// material that writes positions, normals or ids draws into.
pub const FLOAT_TARGET: wgpu::ColorTargetState = wgpu::ColorTargetState {
    format: wgpu::TextureFormat::Rgba32Float,
    blend: None,
    write_mask: wgpu::ColorWrites::ALL,
};

/// `renderer`'s draws, after the work already in `encoder` (a crowd's
/// compute pass), into a fresh `Rgba8UnormSrgb` target `size` pixels
/// square with the depth format the renderer was built for, read back.
pub async fn draw_picture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    mut encoder: wgpu::CommandEncoder,
    renderer: &md2_wgpu::Md2Renderer,
    size: u32,
) -> RgbaImage {
    use md2_wgpu::support::{attachment, draw_into, read_texture_later};
    let color = attachment(device, wgpu::TextureFormat::Rgba8UnormSrgb, size, size);
    let depth_format = renderer.options().depth.expect("a depth state").format;
    let depth = attachment(device, depth_format, size, size);
    draw_into(
        &mut encoder,
        &[&color],
        Some(&depth),
        wgpu::Color::TRANSPARENT,
        |pass| renderer.render(pass),
    );
    let bytes = read_texture_later(device, queue, encoder, &color, wgpu::TextureAspect::All)
        .await
        .expect("the picture reads back");
    RgbaImage::from_raw(size, size, bytes).expect("RGBA8 texels")
}

/// The pose a crowd's record holds, as an instance takes it: packed again
/// (`PoseWords::of`), it gives the record's words.
pub fn record_pose(record: &md2_wgpu::contract::InstanceRecord) -> md2_wgpu::anim::Pose {
    let [a, b, c, d] = record.frames.map(u32::from);
    md2_wgpu::anim::Pose {
        primary: md2_wgpu::anim::FrameLerp {
            frame_a: a,
            frame_b: b,
            t: record.t,
        },
        secondary: md2_wgpu::anim::FrameLerp {
            frame_a: c,
            frame_b: d,
            t: record.t2,
        },
        weight: record.weight,
    }
}

/// Draws with `draw` into fresh `colors` of these formats (cleared to
/// transparent black) and a `Depth32Float` buffer, `size` × `size`, and
/// reads each colour target back as `T`s.
pub async fn draw_and_read<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    size: u32,
    colors: &[wgpu::TextureFormat],
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
) -> Vec<Vec<T>> {
    use md2_wgpu::support::{attachment, draw_into, read_texture_later};
    let targets: Vec<_> = colors
        .iter()
        .map(|&format| attachment(device, format, size, size))
        .collect();
    let depth = attachment(device, wgpu::TextureFormat::Depth32Float, size, size);
    let mut encoder = device.create_command_encoder(&Default::default());
    let views: Vec<&wgpu::Texture> = targets.iter().collect();
    draw_into(
        &mut encoder,
        &views,
        Some(&depth),
        wgpu::Color::TRANSPARENT,
        draw,
    );
    queue.submit([encoder.finish()]);
    let mut read = Vec::with_capacity(targets.len());
    for target in &targets {
        let encoder = device.create_command_encoder(&Default::default());
        let bytes = read_texture_later(device, queue, encoder, target, wgpu::TextureAspect::All)
            .await
            .expect("the target reads back");
        read.push(bytemuck::pod_collect_to_vec(&bytes));
    }
    read
}
