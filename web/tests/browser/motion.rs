//! Motion vectors: a still scene writes exactly zero on both paths (an
//! immediate instance given its previous pose, a resident member at a
//! paused clock), and under a moving camera each pixel's motion is the
//! camera's own for the surface point it shows. The native suite's case,
//! awaited.

use md2_wgpu_tests::cases::motion;
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

use crate::gpu::gpu;

#[wasm_bindgen_test]
async fn a_still_scene_writes_zero_motion_and_a_moving_camera_its_own() {
    let gpu = gpu().await;
    let measured = gpu
        .checked(async || {
            motion::a_still_scene_writes_zero_motion_and_a_moving_camera_its_own(
                &gpu.device,
                &gpu.queue,
            )
            .await
        })
        .await;
    for line in &measured.lines {
        console_log!("{line}");
    }
}
