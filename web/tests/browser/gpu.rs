//! A WebGPU device with the crate's limits, offscreen targets, and
//! read-backs as futures: a browser has no blocking wait, so a test awaits
//! the mapping the GPU finishes.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use image::RgbaImage;
use md2_wgpu::wgpu;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// A device and its queue on the browser's WebGPU adapter.
pub struct Gpu {
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

/// The browser's WebGPU adapter and a device on it with exactly the
/// crate's [`required_limits`](md2_wgpu::required_limits).
pub async fn gpu() -> Gpu {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::BROWSER_WEBGPU,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .expect("a WebGPU adapter (headless Chromium needs --enable-unsafe-webgpu)");
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("md2-wgpu browser test device"),
            required_limits: md2_wgpu::required_limits(),
            ..Default::default()
        })
        .await
        .expect("a device with md2_wgpu::required_limits()");
    Gpu {
        adapter,
        device,
        queue,
    }
}

impl Gpu {
    /// Runs `test` with every validation error caught, and fails on the
    /// first (Dawn's message in the panic).
    pub async fn checked<T>(&self, test: impl AsyncFnOnce() -> T) -> T {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = test().await;
        if let Some(error) = scope.pop().await {
            panic!("WebGPU validation error: {error}");
        }
        out
    }
}

/// The browser's own account of its adapter (`GPUAdapterInfo`: vendor,
/// architecture, device, description, fallback), which wgpu's `AdapterInfo`
/// keeps only part of, as JSON.
pub async fn adapter_info() -> String {
    let navigator = web_sys::window().expect("a window").navigator();
    let gpu = js_sys::Reflect::get(&navigator, &"gpu".into()).expect("navigator.gpu");
    let request: js_sys::Function = js_sys::Reflect::get(&gpu, &"requestAdapter".into())
        .expect("requestAdapter")
        .unchecked_into();
    let promise: js_sys::Promise = request
        .call0(&gpu)
        .expect("requestAdapter()")
        .unchecked_into();
    let adapter = JsFuture::from(promise).await.expect("an adapter");
    let info = js_sys::Reflect::get(&adapter, &"info".into()).expect("adapter.info");
    let field = |name: &str| {
        js_sys::Reflect::get(&info, &name.into())
            .ok()
            .and_then(|v| v.as_string().or_else(|| v.as_bool().map(|b| b.to_string())))
            .unwrap_or_default()
    };
    format!(
        "{{\"vendor\":{:?},\"architecture\":{:?},\"device\":{:?},\"description\":{:?},\"isFallbackAdapter\":{}}}",
        field("vendor"),
        field("architecture"),
        field("device"),
        field("description"),
        if field("isFallbackAdapter").is_empty() {
            "null".to_owned()
        } else {
            field("isFallbackAdapter")
        }
    )
}

/// A `width` × `height` texture of `format` to draw into and read back.
pub fn attachment(
    gpu: &Gpu,
    format: wgpu::TextureFormat,
    width: u32,
    height: u32,
) -> wgpu::Texture {
    gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("md2-wgpu browser test attachment"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// Runs `draw` in one pass over the colour targets `colors` (cleared to
/// transparent black) and `depth` (cleared to 1.0), recorded into
/// `encoder`.
pub fn draw_into(
    encoder: &mut wgpu::CommandEncoder,
    colors: &[&wgpu::Texture],
    depth: Option<&wgpu::Texture>,
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
) {
    let views: Vec<_> = colors
        .iter()
        .map(|t| t.create_view(&Default::default()))
        .collect();
    let depth_view = depth.map(|t| t.create_view(&Default::default()));
    let attachments: Vec<_> = views
        .iter()
        .map(|view| {
            Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            })
        })
        .collect();
    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("md2-wgpu browser test pass"),
        color_attachments: &attachments,
        depth_stencil_attachment: depth_view.as_ref().map(|view| {
            wgpu::RenderPassDepthStencilAttachment {
                view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }
        }),
        ..Default::default()
    });
    draw(&mut pass);
}

/// The texels of `texture` (mip 0, layer 0, all aspects), rows packed
/// without the padding copies need, after the work already in `encoder`.
pub async fn read_texture(
    gpu: &Gpu,
    mut encoder: wgpu::CommandEncoder,
    texture: &wgpu::Texture,
) -> Vec<u8> {
    let (width, height) = (texture.width(), texture.height());
    let texel = texture
        .format()
        .block_copy_size(None)
        .expect("a colour format");
    let row = texel * width;
    let padded =
        row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("md2-wgpu browser test read-back"),
        size: u64::from(padded) * u64::from(height),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &staging,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(height),
            },
        },
        texture.size(),
    );
    let mapped = Mapped::new();
    let done = mapped.clone();
    encoder.map_buffer_on_submit(&staging, wgpu::MapMode::Read, .., move |result| {
        done.finish(result.map_err(|e| e.to_string()))
    });
    gpu.queue.submit([encoder.finish()]);
    mapped.await.expect("the read-back maps");
    let bytes = {
        let view = staging.get_mapped_range(..).expect("the mapped range");
        view.chunks_exact(padded as usize)
            .flat_map(|r| &r[..row as usize])
            .copied()
            .collect()
    };
    staging.unmap();
    bytes
}

/// An `Rgba8*` texture read back as an image, after `encoder`'s work.
pub async fn read_rgba8(
    gpu: &Gpu,
    encoder: wgpu::CommandEncoder,
    texture: &wgpu::Texture,
) -> RgbaImage {
    let bytes = read_texture(gpu, encoder, texture).await;
    RgbaImage::from_raw(texture.width(), texture.height(), bytes).expect("RGBA8 texels")
}

/// `texture`'s texels as `T`s, after `encoder`'s work.
pub async fn texels<T: bytemuck::Pod>(
    gpu: &Gpu,
    encoder: wgpu::CommandEncoder,
    texture: &wgpu::Texture,
) -> Vec<T> {
    bytemuck::pod_collect_to_vec(&read_texture(gpu, encoder, texture).await)
}

/// A mapping on its way: resolves when the browser has mapped the buffer.
#[derive(Clone, Default)]
struct Mapped(Arc<Mutex<Mapping>>);

/// The mapping's outcome once known, and who waits for it.
#[derive(Default)]
struct Mapping {
    outcome: Option<Result<(), String>>,
    waker: Option<Waker>,
}

impl Mapped {
    fn new() -> Mapped {
        Mapped::default()
    }

    fn finish(&self, result: Result<(), String>) {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        state.outcome = Some(result);
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }
}

impl Future for Mapped {
    type Output = Result<(), String>;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match state.outcome.take() {
            Some(result) => Poll::Ready(result),
            None => {
                state.waker = Some(context.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// The shared community models the build found (`web/build.rs`), by path
/// under the shared folder: `None`, said on the console, where the folder
/// was absent when the tests were built.
pub fn shared(path: &str) -> Option<&'static [u8]> {
    let found = crate::shared::FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, bytes)| *bytes);
    if found.is_none() {
        wasm_bindgen_test::console_log!(
            "skipping the part that needs the shared model {path}: {}",
            crate::shared::WHY_ABSENT
        );
    }
    found
}
