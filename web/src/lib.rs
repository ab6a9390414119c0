//! md2-wgpu on the web: the viewer's inspector (`examples/inspector/`) as a
//! page, on WebGPU, through eframe's web runner; and, in `tests/browser/`,
//! the core of the GPU suite run in a browser (Dawn's WebGPU, not
//! wgpu-core). See `web/README.md` for how to build, serve and test it.
//!
//! The page's script (`web/index.html`) checks that the browser offers
//! WebGPU, then calls [`start`] with its canvas.
//!
//! - `device.rs`: the WebGPU device eframe asks for, and the pass the
//!   inspector draws in;
//! - `app.rs`: the eframe app around the inspector;
//! - `files.rs`: files picked or dropped, read into bytes;
//! - `download.rs`: bytes offered as a download;
//! - `state.rs`: what the page shows, published for its tests.

#![cfg(target_arch = "wasm32")]

mod app;
mod device;
mod download;
mod files;
mod state;

pub use device::{depth_stencil_format, device_descriptor, scene_target, web_options};

use wasm_bindgen::prelude::*;

/// Runs the inspector on `canvas` with the built-in demo model; rejects
/// (with a message for the page) where no WebGPU device could be made.
#[wasm_bindgen]
pub async fn start(canvas: web_sys::HtmlCanvasElement) -> Result<(), JsValue> {
    // Logs and panics reach the browser's console.
    let _ = eframe::WebLogger::init(log::LevelFilter::Info);
    let runner = eframe::WebRunner::new();
    runner
        .start(canvas, web_options(), Box::new(app::Page::create))
        .await?;
    // The runner lives as long as the page: its event handlers hold it.
    std::mem::forget(runner);
    Ok(())
}
