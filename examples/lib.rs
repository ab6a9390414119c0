//! md2-wgpu's examples and tools, and what they share: the framework every
//! windowed example runs in (window, surface, frame loop, the egui host,
//! screenshots), the ground models stand on, the viewer's inspector (which
//! the web page in `web/` shows too), and md2info's logic. Each example
//! holds only its idea; see the README beside this file.
//!
//! Built for the web (wasm32) this library is the inspector and the ground
//! alone: the framework's window, files and clocks are native.

#[cfg(not(target_arch = "wasm32"))]
pub mod framework;
pub mod ground;
pub mod inspector;
#[cfg(not(target_arch = "wasm32"))]
pub mod md2info;
