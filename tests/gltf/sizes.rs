//! Each model's MD2 file against its GLB, float and quantised (no skins
//! embedded: an MD2 holds none either): quantising makes every GLB
//! smaller, within the error it reports.
//!
//! `cargo test --test gltf -- --nocapture sizes` prints the table.

use md2_wgpu::gltf::GltfOptions;

use crate::cases;

#[test]
fn quantized_exports_are_smaller_than_float_ones() {
    eprintln!(
        "| model | frames | corners | MD2 | GLB, float | GLB, quantized | quantized / float | largest quantization error |"
    );
    eprintln!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut all = vec![cases::demo()];
    all.extend(cases::real());
    for case in all {
        let float = md2_wgpu::gltf::to_glb(&case.model, &[], &GltfOptions::DEFAULT).unwrap();
        let quantized =
            md2_wgpu::gltf::to_glb(&case.model, &[], &GltfOptions::DEFAULT.quantized()).unwrap();
        let q = quantized.report.quantization.unwrap();
        let kib = |n: usize| format!("{:.1} KiB", n as f64 / 1024.0);
        assert!(quantized.glb.len() < float.glb.len(), "{}", case.name);
        // 16-bit positions over the model's extent: a 65,536th of it.
        let extent = case.model.bounds();
        let size = (0..3)
            .map(|k| extent.max[k] - extent.min[k])
            .fold(0.0f32, f32::max);
        assert!(
            q.max_position_error <= size / 30_000.0,
            "{}: {} over a model {size} units across",
            case.name,
            q.max_position_error
        );
        eprintln!(
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
