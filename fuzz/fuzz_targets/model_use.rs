//! Everything the crate does with a model that loads, on any bytes: the
//! render mesh in both orders, levels of detail under a work budget (no
//! input makes the build long), the levels saved and loaded back, the GPU
//! data and the glTF export. Results or typed errors, never a panic, and
//! no allocation past libFuzzer's `-malloc_limit_mb`. The checks are
//! `md2_wgpu::support::check_model_use`, which `cargo test` also runs on
//! seeded mutations of the real files (tests/format_hostile.rs).
//!
//! ```text
//! mkdir -p fuzz/corpus/model_use
//! cp target/tmp/md2-fuzz-seeds/* fuzz/corpus/model_use/
//! RUSTC_BOOTSTRAP=1 cargo fuzz run -a model_use -- -max_total_time=600
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| md2_wgpu::support::check_model_use(data));
