//! The core of md2-wgpu's GPU suite, in a real browser: headless Chromium
//! with WebGPU, which is Dawn (Google's implementation, validating more
//! strictly than wgpu-core), on SwiftShader in CI. Every device is made
//! with exactly [`md2_wgpu::gpu::required_limits`], WebGPU's defaults, and every
//! test fails on any validation error Dawn reports.
//!
//! - `adapter.rs`: the adapter (its `adapter.info`, printed), the crate's
//!   limits and downlevel flags are enough;
//! - `drawn.rs`: the demo model and a real one drawn on the immediate path
//!   equal the CPU reference (positions and normals through a G-buffer
//!   material with its own bind group), and the demo model's reference
//!   picture;
//! - `crowd.rs`: a resident crowd's compute pass (clocks, culling, ordered
//!   compaction, levels of detail) draws what the immediate path draws,
//!   member by member and pixel for pixel;
//! - `motion.rs`: motion vectors, zero for a still scene and the camera's
//!   own when it moves;
//! - `gpu.rs`: the device, read-backs awaited (a browser cannot block).
//!
//! Run with `cargo test -p md2-wgpu-web --target wasm32-unknown-unknown`
//! (see web/README.md); `.ci/web.sh` does.

#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod adapter;
mod crowd;
mod drawn;
mod gpu;
mod motion;

/// The shared community models `web/build.rs` found.
mod shared {
    include!(concat!(env!("OUT_DIR"), "/shared.rs"));
}
