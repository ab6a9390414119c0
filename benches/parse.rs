//! How fast MD2 files load and write: `Md2Model::from_bytes` and
//! `Md2Model::to_bytes` in MB/s (10^6 bytes of file per second), the median
//! of many timed batches, on the real files in ../shared/md2 where present
//! and on a model generated here (500 vertices × 198 frames).
//!
//! ```text
//! cargo bench --bench parse
//! ```

// The tests' harness: the shared models folder and the generated meshes
// (the module allows what this leaves unused).
#[path = "../tests/common/mod.rs"]
mod common;

mod timing;

use std::hint::black_box;

use md2_wgpu::Md2Model;
use timing::median_seconds;

/// Batches per measurement; the median batch is reported.
const SAMPLES: usize = 41;

fn main() {
    let mut inputs: Vec<(String, Vec<u8>)> = common::real_files();
    // A player-sized model: a closed sphere of 20 × 25 vertices (a texture
    // seam included), 198 frames, glcmds generated.
    let generated = common::sphere(19, 25, 198).model();
    assert_eq!(generated.vertex_count(), 500);
    inputs.push((
        format!(
            "generated: {} xyz, {} tris, {} frames",
            generated.vertex_count(),
            generated.triangles().len(),
            generated.frame_count()
        ),
        generated.to_bytes(),
    ));

    println!(
        "{:<44} {:>9} {:>12} {:>12} {:>12}",
        "input", "bytes", "from_bytes", "to_bytes", "from_bytes"
    );
    println!(
        "{:<44} {:>9} {:>12} {:>12} {:>12}",
        "", "", "MB/s", "MB/s", "µs"
    );
    for (name, bytes) in &inputs {
        let model = Md2Model::from_bytes(bytes).expect("the inputs load");
        let read = median_seconds(SAMPLES, |_| {
            black_box(Md2Model::from_bytes(black_box(bytes)).unwrap());
        });
        let written_len = model.to_bytes().len();
        let write = median_seconds(SAMPLES, |_| {
            black_box(black_box(&model).to_bytes());
        });
        println!(
            "{:<44} {:>9} {:>12.0} {:>12.0} {:>12.1}",
            name,
            bytes.len(),
            bytes.len() as f64 / read / 1e6,
            written_len as f64 / write / 1e6,
            read * 1e6,
        );
    }
}
