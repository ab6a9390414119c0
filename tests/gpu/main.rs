//! Every test that needs a GPU, in one binary (one device set-up, one
//! shader compile per renderer configuration): on lavapipe in CI, skipped
//! loudly without an adapter unless MD2_REQUIRE_GPU=1.

use md2_wgpu_tests as common;

mod capture;
mod crowd;
mod crowd_host;
mod device_lost;
mod effects;
mod hostile;
mod levels;
mod materials;
mod md3;
mod mdl;
mod motion;
mod order;
mod pictures;
mod players;
mod refused;
mod rules;
mod seam;
mod views;
