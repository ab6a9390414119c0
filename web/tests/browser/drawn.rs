//! Models drawn on the immediate path equal the CPU reference (a G-buffer
//! material's world positions and normals against the CPU's posed
//! triangles, ray-cast at each pixel's centre), on the demo model and real
//! ones; the demo model's picture matches the reference picture the native
//! suite keeps. The native suite's cases, awaited.

use md2_wgpu::{Md2Model, demo};
use md2_wgpu_tests::cases::{Measured, drawn};
use md2_wgpu_tests::mean_difference;
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

use crate::gpu::{gpu, shared};

fn log(measured: &Measured) {
    for line in &measured.lines {
        console_log!("{line}");
    }
}

#[wasm_bindgen_test]
async fn the_demo_model_drawn_equals_the_cpu_reference() {
    let gpu = gpu().await;
    let model = demo::demo_model();
    let measured = gpu
        .checked(async || {
            drawn::holds_to_the_reference(&gpu.device, &gpu.queue, "demo", &model).await
        })
        .await;
    log(&measured);
}

#[wasm_bindgen_test]
async fn real_models_drawn_equal_the_cpu_reference() {
    let gpu = gpu().await;
    for path in ["yohko/tris.md2", "ogro/ogros.MD2"] {
        let Some(bytes) = shared(path) else { continue };
        let model = Md2Model::from_bytes(bytes).expect("the real model parses");
        let measured = gpu
            .checked(async || {
                drawn::holds_to_the_reference(&gpu.device, &gpu.queue, path, &model).await
            })
            .await;
        log(&measured);
    }
}

/// The native suite's reference picture of the demo model halfway through
/// a crossfade from run to attack (tests/reference/demo-crossfade.png,
/// drawn on lavapipe), within the native test's own tolerance.
#[wasm_bindgen_test]
async fn the_demo_model_matches_its_reference_picture() {
    const REFERENCE: &[u8] = include_bytes!("../../../tests/reference/demo-crossfade.png");
    let gpu = gpu().await;
    let picture = gpu
        .checked(async || drawn::demo_crossfade_picture(&gpu.device, &gpu.queue).await)
        .await;
    let reference = image::load_from_memory(REFERENCE)
        .expect("the reference picture decodes")
        .into_rgba8();
    let mean = mean_difference(&reference, &picture);
    console_log!(
        "demo reference picture: mean difference {mean:.3} (lavapipe's picture, drawn on Dawn)"
    );
    // Written so that a NaN mean fails too.
    assert!(
        mean <= 2.0,
        "the demo model's picture differs from the reference by {mean:.3}"
    );
}
