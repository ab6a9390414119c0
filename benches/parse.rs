//! How fast MD2 files load and write: `Md2Model::from_bytes` and
//! `Md2Model::to_bytes` in MB/s (10^6 bytes of file per second), the median
//! of many timed batches, on the real files in ../shared/md2 (or
//! `$MD2_SHARED_MODELS`) where present and on the built-in demo model (588
//! vertices × 198 frames, a player's size).
//!
//! ```text
//! cargo bench --bench parse
//! ```

mod timing;

use std::hint::black_box;

use md2_wgpu::Md2Model;
use timing::{median_seconds, print_row};

/// Batches per measurement; the median batch is reported.
const SAMPLES: usize = 41;

/// The table's column widths.
const COLUMNS: [usize; 5] = [44, 9, 12, 12, 12];

fn main() {
    let shared = md2_wgpu::support::shared_models_dir();
    let mut inputs: Vec<(String, Vec<u8>)> = if shared.is_dir() {
        md2_wgpu::support::md2_files_in(&shared).expect("read the shared models")
    } else {
        println!("(no {}: the demo model only)", shared.display());
        Vec::new()
    };
    let demo = md2_wgpu::demo::demo_model();
    inputs.push((
        format!(
            "demo: {} xyz, {} tris, {} frames",
            demo.keyframes().vertex_count(),
            demo.triangles().len(),
            demo.keyframes().frame_count()
        ),
        md2_wgpu::demo::demo_model_bytes(),
    ));

    print_row(
        &COLUMNS,
        &["input", "bytes", "from_bytes", "to_bytes", "from_bytes"],
    );
    print_row(&COLUMNS, &["", "", "MB/s", "MB/s", "µs"]);
    for (name, bytes) in &inputs {
        let model = Md2Model::from_bytes(bytes).expect("the inputs load");
        let read = median_seconds(SAMPLES, |_| {
            black_box(Md2Model::from_bytes(black_box(bytes)).unwrap());
        });
        let written_len = model.to_bytes().len();
        let write = median_seconds(SAMPLES, |_| {
            black_box(black_box(&model).to_bytes());
        });
        print_row(
            &COLUMNS,
            &[
                name,
                &bytes.len().to_string(),
                &format!("{:.0}", bytes.len() as f64 / read / 1e6),
                &format!("{:.0}", written_len as f64 / write / 1e6),
                &format!("{:.1}", read * 1e6),
            ],
        );
    }
}
