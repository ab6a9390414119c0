//! The WebGPU device the page runs on, and the pass the inspector's paint
//! callback draws in.

use std::sync::Arc;

use eframe::egui_wgpu::{self, WgpuSetup, WgpuSetupCreateNew};
use md2_wgpu::wgpu;
use md2_wgpu_examples::inspector::scene::SceneTarget;

/// Bits of depth in eframe's pass. eframe's web painter gives its pass a
/// depth buffer but no stencil, so planar shadows (which need one) are off
/// on the page.
const DEPTH_BITS: u8 = 24;

/// eframe's options for the page: WebGPU only (the crate needs storage
/// buffers in the vertex stage, which WebGL2 lacks), a device with the
/// crate's [`required_limits`](md2_wgpu::gpu::required_limits) (WebGPU's
/// defaults), and a depth buffer for the models.
pub fn web_options() -> eframe::WebOptions {
    let mut setup = WgpuSetupCreateNew::without_display_handle();
    setup.instance_descriptor.backends = wgpu::Backends::BROWSER_WEBGPU;
    setup.device_descriptor = Arc::new(device_descriptor);
    eframe::WebOptions {
        depth_buffer: DEPTH_BITS,
        wgpu_options: egui_wgpu::WgpuConfiguration {
            wgpu_setup: WgpuSetup::CreateNew(setup),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The device the page asks for: md2-wgpu's limits, raised only where
/// egui needs more (a texture as large as the canvas).
pub fn device_descriptor(adapter: &wgpu::Adapter) -> wgpu::DeviceDescriptor<'static> {
    let available = adapter.limits();
    let required = md2_wgpu::gpu::required_limits();
    wgpu::DeviceDescriptor {
        label: Some("md2-wgpu web device"),
        required_limits: wgpu::Limits {
            max_texture_dimension_2d: required
                .max_texture_dimension_2d
                .max(available.max_texture_dimension_2d.min(8192)),
            ..required
        },
        ..Default::default()
    }
}

/// The depth format of eframe's pass.
pub fn depth_stencil_format() -> Option<wgpu::TextureFormat> {
    egui_wgpu::depth_format_from_bits(DEPTH_BITS, 0)
}

/// eframe's pass as the inspector must build its pipelines for it: one
/// sample, the surface's format, the depth buffer above.
pub fn scene_target(color_format: wgpu::TextureFormat) -> SceneTarget {
    SceneTarget {
        color_format,
        samples: 1,
        depth_stencil_format: depth_stencil_format(),
    }
}
