//! The GPU half's crate-root names of 0.1.0, deprecated, for one release
//! (see the crate's `old_paths.rs`, whose macros these are).
#![allow(missing_docs)]

moved_types!(gpu: ColorOutput, CrowdHandle, GpuModelBytes, MaterialError, Md2Cache, Md2Material, Md2Phase, PrepareError, PrepareReport, Readback, SetupError, VisibleMembers);

#[deprecated = "moved to `md2_wgpu::gpu::GpuModelBuffers`; the root path goes in the next release"]
pub type GpuModelBuffers<'a> = crate::gpu::GpuModelBuffers<'a>;

#[deprecated = "moved to `md2_wgpu::gpu::Md2Batch`; the root path goes in the next release"]
pub type Md2Batch<'a> = crate::gpu::Md2Batch<'a>;

#[deprecated = "moved to `md2_wgpu::gpu::Md2MaterialDescriptor`; the root path goes in the next release"]
pub type Md2MaterialDescriptor<'a> = crate::gpu::Md2MaterialDescriptor<'a>;

pub use crate::gpu::low_level;

#[deprecated = "moved to `md2_wgpu::gpu::adapter_limits`; the root path goes in the next release"]
#[inline]
pub fn adapter_limits(adapter: &wgpu::Adapter) -> Result<wgpu::Limits, crate::gpu::SetupError> {
    crate::gpu::adapter_limits(adapter)
}

#[deprecated = "moved to `md2_wgpu::gpu::required_downlevel_flags`; the root path goes in the next release"]
#[inline]
pub fn required_downlevel_flags() -> wgpu::DownlevelFlags {
    crate::gpu::required_downlevel_flags()
}

#[deprecated = "moved to `md2_wgpu::gpu::required_limits`; the root path goes in the next release"]
#[inline]
pub fn required_limits() -> wgpu::Limits {
    crate::gpu::required_limits()
}
