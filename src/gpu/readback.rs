//! Reading GPU buffers back without blocking: a copy into a mappable
//! buffer, mapped once the submission is done, as a future. Browsers have
//! no blocking waits; native apps poll the device (every submit does, or
//! `device.poll`) and the future completes.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use crate::gpu::device::buffers::caught;

/// `bytes` read back from the GPU as the `u32` words they hold. Copied, not
/// cast in place: a `Vec<u8>` (or a mapped range) is aligned to 4 only by
/// the allocator's grace, and an empty one not at all, where
/// `bytemuck::cast_slice` panics.
pub(crate) fn words(bytes: &[u8]) -> Vec<u32> {
    bytemuck::pod_collect_to_vec(bytes)
}

/// What a read-back has come to.
#[derive(Debug, Default)]
struct State {
    /// The mapping's outcome, once known.
    mapped: Option<Result<(), String>>,
    waker: Option<Waker>,
}

/// Bytes of GPU buffers on their way back to the CPU: a future that
/// resolves once the GPU has finished the submission that copies them and
/// the copy is mapped (natively, when the device is next polled).
#[derive(Debug)]
#[must_use = "a read-back does nothing unless awaited (and, natively, the device polled)"]
pub struct Readback {
    staging: wgpu::Buffer,
    size: u64,
    state: Arc<Mutex<State>>,
}

/// One range of a buffer to read: the buffer (it needs `COPY_SRC`), the
/// offset and the size in bytes, both multiples of 4.
pub(crate) type Part<'a> = (&'a wgpu::Buffer, u64, u64);

impl Readback {
    /// Copies `parts` one after another into one staging buffer with
    /// `encoder` (which may already hold the work that fills them), submits
    /// it, and maps the copy when the GPU is done.
    pub(crate) fn start(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: wgpu::CommandEncoder,
        parts: &[Part<'_>],
    ) -> Readback {
        // A device that was lost makes the staging buffer invalid and its
        // mapping an error: the read-back then resolves to that error at
        // once instead of waiting for a mapping that never comes.
        let (readback, error) = caught(device, || Readback::submit(device, queue, encoder, parts));
        if let Some(message) = error {
            let mut state = readback
                .state
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            state.mapped = Some(Err(message));
        }
        readback
    }

    fn submit(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mut encoder: wgpu::CommandEncoder,
        parts: &[Part<'_>],
    ) -> Readback {
        let size: u64 = parts.iter().map(|&(_, _, size)| size).sum();
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu read-back"),
            size: size.max(4),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut at = 0;
        for &(buffer, offset, bytes) in parts {
            if bytes > 0 {
                encoder.copy_buffer_to_buffer(buffer, offset, &staging, at, bytes);
            }
            at += bytes;
        }
        let state = Arc::new(Mutex::new(State::default()));
        let done = Arc::clone(&state);
        encoder.map_buffer_on_submit(&staging, wgpu::MapMode::Read, .., move |result| {
            let mut state = done.lock().unwrap_or_else(PoisonError::into_inner);
            state.mapped = Some(result.map_err(|e| e.to_string()));
            if let Some(waker) = state.waker.take() {
                waker.wake();
            }
        });
        queue.submit([encoder.finish()]);
        Readback {
            staging,
            size,
            state,
        }
    }
}

impl Future for Readback {
    /// The parts' bytes, one after another, or why they could not be read
    /// (the device was lost, say).
    type Output = Result<Vec<u8>, String>;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match state.mapped.take() {
            None => {
                state.waker = Some(context.waker().clone());
                Poll::Pending
            }
            Some(Err(message)) => Poll::Ready(Err(message)),
            Some(Ok(())) => {
                drop(state);
                let bytes = match self.staging.get_mapped_range(..) {
                    Ok(view) => Ok(view[..self.size as usize].to_vec()),
                    Err(e) => Err(e.to_string()),
                };
                self.staging.unmap();
                Poll::Ready(bytes)
            }
        }
    }
}
