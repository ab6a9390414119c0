//! A headless device and read-backs, shared by the tests, the `render`
//! example and the crowd benchmark so each holds only its own idea. Not part
//! of the supported API.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use image::RgbaImage;

use super::targets::read_texture_later;
use crate::gpu::readback::Readback;

/// A device on whatever adapter the machine has.
#[derive(Debug)]
pub struct Headless {
    /// The adapter it came from.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
}

impl Headless {
    /// The first adapter wgpu offers (`WGPU_BACKEND` and friends apply) that
    /// has [`required_downlevel_flags`](crate::gpu::required_downlevel_flags),
    /// and a device on it with the limits `limits` picks from the adapter's
    /// and the `features` asked for (those the adapter lacks are left out).
    /// `Err` says why there is none.
    pub fn new(
        limits: impl FnOnce(&wgpu::Adapter) -> wgpu::Limits,
        features: wgpu::Features,
    ) -> Result<Headless, String> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let options = wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        };
        let adapter =
            block_on(instance.request_adapter(&options)).map_err(|e| format!("no adapter: {e}"))?;
        let info = adapter.get_info();
        let needs = crate::gpu::required_downlevel_flags();
        if !adapter.get_downlevel_capabilities().flags.contains(needs) {
            return Err(format!("adapter {} lacks {needs:?}", info.name));
        }
        let (device, queue) = block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("md2-wgpu headless device"),
            required_limits: limits(&adapter),
            required_features: features & adapter.features(),
            ..Default::default()
        }))
        .map_err(|e| format!("adapter {} gave no device: {e}", info.name))?;
        Ok(Headless {
            adapter,
            device,
            queue,
        })
    }

    /// "name (backend, device type[, driver])".
    pub fn adapter_label(&self) -> String {
        let info = self.adapter.get_info();
        let driver = if info.driver_info.is_empty() {
            String::new()
        } else {
            format!(", {}", info.driver_info)
        };
        format!(
            "{} ({:?}, {:?}{driver})",
            info.name, info.backend, info.device_type
        )
    }
}

/// Runs a future to completion on this thread. wgpu's native futures are
/// ready at once or after a `device.poll`; this only parks between wakes.
pub fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        match future.as_mut().poll(&mut context) {
            Poll::Ready(output) => return output,
            Poll::Pending => std::thread::park(),
        }
    }
}

/// Waits for `future`, a read-back of the crate's (say
/// [`Md2Renderer::visible_members`](crate::Md2Renderer::visible_members)),
/// polling `device` until the GPU is done: the blocking way tests and
/// tools take.
pub fn wait<F: Future>(device: &wgpu::Device, future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        // The mapping callbacks run inside this poll; an error is a lost
        // device, which the future then reports. A future still pending
        // after it has submitted more work (a read-back in two steps).
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
    }
}

/// Copies `size` bytes of `buffer` from `offset` back to the CPU: records
/// the copy into `encoder` (which may already hold the work that fills the
/// buffer), submits it, and waits. The buffer needs `COPY_SRC`.
pub fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    encoder: wgpu::CommandEncoder,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, String> {
    wait(
        device,
        Readback::start(device, queue, encoder, &[(buffer, offset, size)]),
    )
}

/// The texels of mip 0, layer 0 of `texture` (the given aspect), rows
/// packed without the 256-byte padding copies need. Records the copy into
/// `encoder` (which may hold the pass that drew it), submits and waits.
pub fn read_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    encoder: wgpu::CommandEncoder,
    texture: &wgpu::Texture,
    aspect: wgpu::TextureAspect,
) -> Result<Vec<u8>, String> {
    wait(
        device,
        read_texture_later(device, queue, encoder, texture, aspect),
    )
}

/// An RGBA8 or BGRA8 (sRGB or not) colour texture as an image, channels in
/// RGBA order.
pub fn read_rgba8(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    encoder: wgpu::CommandEncoder,
    texture: &wgpu::Texture,
) -> Result<RgbaImage, String> {
    use wgpu::TextureFormat as F;
    let format = texture.format();
    let bgra = match format {
        F::Bgra8Unorm | F::Bgra8UnormSrgb => true,
        F::Rgba8Unorm | F::Rgba8UnormSrgb => false,
        other => return Err(format!("{other:?} is not an 8-bit RGBA format")),
    };
    let mut pixels = read_texture(device, queue, encoder, texture, wgpu::TextureAspect::All)?;
    if bgra {
        for p in pixels.chunks_exact_mut(4) {
            p.swap(0, 2);
        }
    }
    RgbaImage::from_raw(texture.width(), texture.height(), pixels)
        .ok_or_else(|| "pixel count".to_string())
}
