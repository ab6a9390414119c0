//! The adapter the browser offers, and the crate's claim that WebGPU's
//! defaults are all it needs.

use md2_wgpu::wgpu;
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

use crate::gpu::{adapter_info, gpu};

#[wasm_bindgen_test]
async fn the_crates_limits_and_downlevel_flags_are_what_the_adapter_offers() {
    console_log!("adapter.info: {}", adapter_info().await);
    let gpu = gpu().await;
    let info = gpu.adapter.get_info();
    console_log!(
        "wgpu: {} ({:?}, {:?})",
        info.name,
        info.backend,
        info.device_type
    );
    assert_eq!(info.backend, wgpu::Backend::BrowserWebGpu);
    let required = md2_wgpu::gpu::required_limits();
    // Every limit the crate asks for is within the adapter's, and the
    // device made with them has them.
    assert!(
        required.check_limits(&gpu.adapter.limits()),
        "the adapter offers less than md2_wgpu::gpu::required_limits()"
    );
    assert!(required.check_limits(&gpu.device.limits()));
    let flags = gpu.adapter.get_downlevel_capabilities().flags;
    let needs = md2_wgpu::gpu::required_downlevel_flags();
    assert!(
        flags.contains(needs),
        "the adapter lacks {:?}",
        needs - flags
    );
    // The renderer's pipelines, the crowd's compute pipelines and a
    // model's upload all validate on a device with exactly those limits.
    gpu.checked(async || {
        let renderer = md2_wgpu::Md2Renderer::new(
            &gpu.device,
            wgpu::TextureFormat::Rgba8UnormSrgb,
            md2_wgpu::Md2RendererOptions::WITH_DEPTH,
        )
        .expect("the renderer builds");
        let model = md2_wgpu::GpuModel::new(
            &gpu.device,
            &gpu.queue,
            &renderer,
            &md2_wgpu::demo::demo_model(),
            &[md2_wgpu::demo::demo_skin()],
        )
        .expect("the demo model uploads");
        md2_wgpu::Md2Crowd::new(&gpu.device, &renderer, &model).expect("a crowd");
    })
    .await;
}
