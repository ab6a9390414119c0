//! The README's size table: each model's MD2 file against its GLB, float
//! and quantised (no skins embedded: an MD2 holds none either).
//!
//! `cargo test --test gltf -- --ignored --nocapture size_table`

use md2_wgpu::gltf::GltfOptions;

use crate::cases;

#[test]
#[ignore = "prints the README's size table"]
fn size_table() {
    println!(
        "| model | frames | corners | MD2 | GLB, float | GLB, quantized | quantized / float | largest quantization error |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut all = vec![cases::demo()];
    all.extend(cases::real());
    for case in all {
        let float = md2_wgpu::gltf::to_glb(&case.model, &[], &GltfOptions::DEFAULT).unwrap();
        let quantized =
            md2_wgpu::gltf::to_glb(&case.model, &[], &GltfOptions::DEFAULT.quantized()).unwrap();
        let q = quantized.report.quantization.unwrap();
        let kib = |n: usize| format!("{:.1} KiB", n as f64 / 1024.0);
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.2} | {:.1e} units |",
            case.name,
            case.model.frame_count(),
            float.report.corners,
            kib(case.md2_bytes),
            kib(float.glb.len()),
            kib(quantized.glb.len()),
            quantized.glb.len() as f64 / float.glb.len() as f64,
            q.max_position_error,
        );
    }
}
