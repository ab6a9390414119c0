//! `Md3Model::from_bytes` on any bytes: a model or a typed error, never a
//! panic, and no allocation past libFuzzer's `-malloc_limit_mb`. What loads
//! writes back byte for byte and decodes every vertex and tag. The checks
//! are `md2_wgpu::support::check_md3_from_bytes`, which `cargo test` also
//! runs on seeded mutations of a model built in code and of the shared
//! Quake III models (tests/md3.rs).
//!
//! ```text
//! mkdir -p fuzz/corpus/md3_from_bytes
//! cp ../shared/md3/*/*.md3 fuzz/corpus/md3_from_bytes/
//! RUSTC_BOOTSTRAP=1 cargo fuzz run -a md3_from_bytes -- -max_total_time=600
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| md2_wgpu::support::check_md3_from_bytes(data));
