//! Every test that needs a GPU, in one binary (one device set-up, one
//! shader compile per renderer configuration): on lavapipe in CI, skipped
//! loudly without an adapter unless MD2_REQUIRE_GPU=1.

// The shared harness lives beside the other test binaries, which reach it
// as `mod common`; this binary is a folder of its own.
#[path = "../common/mod.rs"]
mod common;

mod capture;
mod crowd;
mod effects;
mod hostile;
mod levels;
mod materials;
mod motion;
mod order;
mod pictures;
mod rules;
mod views;
