//! md2-bevy's GPU tests: the plugin in a headless Bevy app on whatever
//! adapter exists (lavapipe in CI), its pictures and prepass read back and
//! held to md2-wgpu's CPU reference. Without an adapter every test skips,
//! saying so; with `MD2_REQUIRE_GPU=1` it fails instead.

mod draws;
mod harness;
mod probe;
mod reference;
mod scene_types;

mod crowd;
mod crowd_passes;
mod crowd_translucent;
mod instancing;
mod levels;
mod loading;
mod motion;
mod pose;
mod quake1;
mod quake3;
mod rules;
mod shadows;
mod skinned;
