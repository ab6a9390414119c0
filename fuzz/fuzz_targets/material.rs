//! A material (`Md2Material::new`) from any bytes, on whatever adapter the
//! machine has (lavapipe here): the first byte picks the targets and the
//! bind group, the rest is WGSL. A material or a typed `MaterialError`,
//! never a panic (naga's included) and never a wgpu validation error. The
//! checks are `md2_wgpu::support::check_material`, which `cargo test` also
//! runs on seeded mutations of working materials (tests/gpu/materials.rs).
//!
//! ```text
//! mkdir -p fuzz/corpus/material
//! cp target/tmp/md2-fuzz-seeds/*.wgsl fuzz/corpus/material/
//! RUSTC_BOOTSTRAP=1 cargo fuzz run -a material -- -max_total_time=600
//! ```

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use md2_wgpu::gpu::Md2Cache;
use md2_wgpu::support::Headless;

fn device() -> &'static (Headless, Md2Cache) {
    static DEVICE: OnceLock<(Headless, Md2Cache)> = OnceLock::new();
    DEVICE.get_or_init(|| {
        let gpu = Headless::new(
            |_| md2_wgpu::gpu::required_limits(),
            wgpu::Features::empty(),
        )
        .expect("the material target needs an adapter (lavapipe will do)");
        let cache = Md2Cache::new(&gpu.device).expect("a cache");
        (gpu, cache)
    })
}

fuzz_target!(|data: &[u8]| {
    let (gpu, cache) = device();
    md2_wgpu::support::check_material(&gpu.device, cache, data);
});
