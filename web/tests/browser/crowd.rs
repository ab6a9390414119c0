//! Levels of detail in the browser: levels built here (the simplifier on
//! wasm32), the resident crowd's compute pass and the immediate path
//! choosing the same level for the same member and view and drawing the
//! same pixels, and culling with levels still drawing every member in
//! view. The native suite's cases, awaited.

use md2_wgpu_tests::cases::{Measured, levels};
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

use crate::gpu::gpu;

fn log(measured: Measured) {
    for line in &measured.lines {
        console_log!("{line}");
    }
}

#[wasm_bindgen_test]
async fn both_paths_choose_the_same_level_and_draw_the_same_pixels() {
    let gpu = gpu().await;
    log(gpu
        .checked(async || {
            levels::both_paths_choose_the_same_level_for_the_same_member_and_view(
                &gpu.device,
                &gpu.queue,
            )
            .await
        })
        .await);
}

#[wasm_bindgen_test]
async fn culling_with_levels_never_drops_a_visible_member() {
    let gpu = gpu().await;
    log(gpu
        .checked(async || {
            levels::culling_with_levels_never_drops_a_visible_member(&gpu.device, &gpu.queue).await
        })
        .await);
}
