//! A WebGPU device with the crate's limits, its validation errors caught,
//! and the shared models the build found: what the browser suite has of
//! its own. The cases themselves, their targets and read-backs are the
//! native suite's (`md2_wgpu_tests::cases`), awaited here where the native
//! suite waits.

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
/// crate's [`required_limits`](md2_wgpu::gpu::required_limits).
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
            required_limits: md2_wgpu::gpu::required_limits(),
            ..Default::default()
        })
        .await
        .expect("a device with md2_wgpu::gpu::required_limits()");
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
