//! What a preparation writes with: the device, its queue and the cache of
//! pipelines and layouts, passed as one, so each step of `prepare_crowds`
//! takes its own inputs beside them.

use super::cache::Md2Cache;

/// The device, queue and cache a preparation writes with.
#[derive(Clone, Copy)]
pub(crate) struct Submit<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub cache: &'a Md2Cache,
}
