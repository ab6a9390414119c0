//! The headless device, the offscreen target every strategy draws into, and
//! the timing of one frame.

use std::sync::{Arc, Mutex, PoisonError};

/// Offscreen target size: a 720p frame.
pub const WIDTH: u32 = 1280;
/// See [`WIDTH`].
pub const HEIGHT: u32 = 720;
/// sRGB colour, as a window's surface usually is: every pipeline takes
/// md2.wgsl's `fs_main` (the hardware encodes).
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// What `Md2RendererOptions::WITH_DEPTH` asks for.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The device, its queue, and what it reported.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: wgpu::AdapterInfo,
    /// Errors no error scope caught (wgpu would panic on them otherwise).
    uncaptured: Arc<Mutex<Vec<String>>>,
}

impl Gpu {
    /// The first adapter wgpu offers (WGPU_BACKEND and friends apply), with
    /// its own limits so the largest crowds fit.
    pub fn new() -> Result<Gpu, String> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let options = wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        };
        let adapter = pollster::block_on(instance.request_adapter(&options))
            .map_err(|e| format!("no adapter: {e}"))?;
        let info = adapter.get_info();
        let needs = md2_wgpu::required_downlevel_flags();
        if !adapter.get_downlevel_capabilities().flags.contains(needs) {
            return Err(format!("adapter {} lacks {needs:?}", info.name));
        }
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("md2-wgpu crowd bench device"),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| format!("adapter {} gave no device: {e}", info.name))?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&uncaptured);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(e.to_string());
        }));
        Ok(Gpu {
            device,
            queue,
            adapter: info,
            uncaptured,
        })
    }

    /// "name (backend, device type)".
    pub fn adapter_label(&self) -> String {
        format!(
            "{} ({:?}, {:?}{})",
            self.adapter.name,
            self.adapter.backend,
            self.adapter.device_type,
            if self.adapter.driver_info.is_empty() {
                String::new()
            } else {
                format!(", {}", self.adapter.driver_info)
            }
        )
    }

    /// The uncaptured errors since the last call, as one message.
    pub fn take_uncaptured(&self) -> Option<String> {
        let mut errors = self
            .uncaptured
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if errors.is_empty() {
            None
        } else {
            Some(std::mem::take(&mut *errors).join("; "))
        }
    }

    /// Blocks until the GPU has finished submission `index`.
    pub fn wait(&self, index: wgpu::SubmissionIndex) -> Result<(), String> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            })
            .map(drop)
            .map_err(|e| format!("waiting for the GPU: {e}"))
    }

    /// Submits `commands` and blocks until the GPU has finished them.
    pub fn submit_and_wait(&self, commands: wgpu::CommandBuffer) -> Result<(), String> {
        let index = self.queue.submit([commands]);
        self.wait(index)
    }
}

/// The offscreen colour and depth attachments.
pub struct Target {
    color_texture: wgpu::Texture,
    color: wgpu::TextureView,
    depth: wgpu::TextureView,
}

impl Target {
    pub fn new(device: &wgpu::Device) -> Target {
        let texture = |label, format, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width: WIDTH,
                    height: HEIGHT,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT;
        let color_texture = texture(
            "md2-wgpu crowd bench colour",
            COLOR_FORMAT,
            attachment | wgpu::TextureUsages::COPY_SRC,
        );
        let depth = texture("md2-wgpu crowd bench depth", DEPTH_FORMAT, attachment);
        Target {
            color: color_texture.create_view(&Default::default()),
            color_texture,
            depth: depth.create_view(&Default::default()),
        }
    }

    /// The colour target's pixels (after the last submitted frame).
    pub fn read(&self, gpu: &Gpu) -> Result<image::RgbaImage, String> {
        // 1280 × 4 bytes is a multiple of COPY_BYTES_PER_ROW_ALIGNMENT.
        let row = 4 * WIDTH;
        let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu crowd bench readback"),
            size: u64::from(row * HEIGHT),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            self.color_texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(HEIGHT),
                },
            },
            self.color_texture.size(),
        );
        gpu.submit_and_wait(encoder.finish())?;
        let (sender, receiver) = std::sync::mpsc::channel();
        buffer.map_async(wgpu::MapMode::Read, .., move |result| {
            let _ = sender.send(result);
        });
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("reading the frame back: {e}"))?;
        receiver
            .recv()
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("reading the frame back: {e}"))?;
        let pixels = buffer
            .get_mapped_range(..)
            .map_err(|e| format!("reading the frame back: {e}"))?
            .to_vec();
        image::RgbaImage::from_raw(WIDTH, HEIGHT, pixels)
            .ok_or_else(|| "reading the frame back: wrong size".to_string())
    }

    /// A pass that clears both attachments (the state every frame starts
    /// from), for the strategies to record into.
    pub fn begin<'e>(&self, encoder: &'e mut wgpu::CommandEncoder) -> wgpu::RenderPass<'e> {
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("md2-wgpu crowd bench pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &self.color,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: 0.05,
                        g: 0.06,
                        b: 0.08,
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            ..Default::default()
        })
    }
}
