//! Buffers on a device: made (grown) without a wgpu panic, rewritten only
//! where they changed, checked against the device's limits first.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use crate::crowd::grown_size;
use crate::gpu::error::SetupError;

/// The error an error scope caught, if its result is already known. Native
/// wgpu answers at once; on the web the answer comes later and is left to
/// the device's uncaptured-error handler.
pub(crate) fn ready_error(future: impl Future<Output = Option<wgpu::Error>>) -> Option<String> {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(error) => error.map(|e| e.to_string()),
        Poll::Pending => None,
    }
}

/// Runs `work` with the device's errors caught instead of handed to its
/// uncaptured-error handler (wgpu's default panics): out of memory,
/// validation (every object made after the device is lost is invalid, and
/// using one is a validation error), internal. Returns what `work` gave,
/// and the first error's message where there was one (natively at once; on
/// the web the answer comes later and is left to the device's handler).
pub(crate) fn caught<T>(device: &wgpu::Device, work: impl FnOnce() -> T) -> (T, Option<String>) {
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let value = work();
    let validation = ready_error(validation.pop());
    let oom = ready_error(oom.pop());
    let internal = ready_error(internal.pop());
    (value, oom.or(validation).or(internal))
}

/// A buffer holding `contents`, as wgpu's `create_buffer_init` makes one,
/// but an error where its mapping fails (the device was lost: the buffer
/// is invalid) rather than a panic.
pub(crate) fn buffer_init(
    device: &wgpu::Device,
    label: &str,
    contents: &[u8],
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer, String> {
    // Whole 4-byte words, and never empty, as Vulkan wants.
    let size = (contents.len() as u64)
        .next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT)
        .max(wgpu::COPY_BUFFER_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: true,
    });
    let mut view = buffer
        .get_mapped_range_mut(..)
        .map_err(|e| format!("{label}: {e}"))?;
    view.slice(..contents.len()).copy_from_slice(contents);
    drop(view);
    buffer.unmap();
    Ok(buffer)
}

/// Checks a buffer of `bytes` against the device's limits (and the storage
/// binding limit where it is bound as storage).
pub(crate) fn check_size(
    buffer: &'static str,
    bytes: u64,
    limits: &wgpu::Limits,
    storage: bool,
) -> Result<(), SetupError> {
    if storage && bytes > limits.max_storage_buffer_binding_size {
        return Err(SetupError::ModelTooLarge {
            buffer,
            bytes,
            limit_name: "max_storage_buffer_binding_size",
            limit: limits.max_storage_buffer_binding_size,
        });
    }
    if bytes > limits.max_buffer_size {
        return Err(SetupError::ModelTooLarge {
            buffer,
            bytes,
            limit_name: "max_buffer_size",
            limit: limits.max_buffer_size,
        });
    }
    Ok(())
}

/// A buffer of at least `bytes` ([`grown_size`], at least `min`, at most
/// `cap` unless `bytes` needs more), or wgpu's out-of-memory message.
pub(crate) fn grow(
    device: &wgpu::Device,
    label: &str,
    bytes: u64,
    min: u64,
    cap: u64,
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer, String> {
    // Round to whole 4-byte words, as copies need.
    let size = grown_size(bytes).max(min).min(cap).max(bytes);
    let size = size.div_ceil(4) * 4;
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    });
    match ready_error(oom.pop()) {
        Some(message) => Err(message),
        None => Ok(buffer),
    }
}

/// Writes the words of `new` that differ from `old` (all of it without an
/// `old`) into `buffer`, as one run from the first changed word to the
/// last; returns the bytes written.
pub(crate) fn write_changed<T: bytemuck::Pod>(
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    old: Option<&T>,
    new: &T,
) -> u64 {
    let new_bytes = bytemuck::bytes_of(new);
    let range = match old {
        None => 0..new_bytes.len(),
        Some(old) => {
            let old_bytes = bytemuck::bytes_of(old);
            let differs = |k: &usize| old_bytes[4 * k..4 * k + 4] != new_bytes[4 * k..4 * k + 4];
            let words = new_bytes.len() / 4;
            let Some(first) = (0..words).find(differs) else {
                return 0;
            };
            let last = (0..words).rev().find(differs).unwrap_or(first);
            4 * first..4 * last + 4
        }
    };
    queue.write_buffer(buffer, range.start as u64, &new_bytes[range.clone()]);
    range.len() as u64
}
