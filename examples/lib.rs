//! md2-wgpu's examples and tools, and what they share: the framework every
//! windowed example runs in (window, surface, frame loop, the egui host,
//! screenshots, the ground), and md2info's logic. Each example holds only
//! its idea; see the README beside this file.

pub mod framework;
pub mod md2info;
