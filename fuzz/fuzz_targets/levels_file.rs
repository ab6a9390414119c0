//! Saved levels of detail (`Levels::from_bytes`) from any bytes, for the
//! demo model's mesh: the levels or a typed `LevelsFileError`, never a
//! panic, and what loads saves back to the same bytes. Inputs with an odd
//! first byte get their checksum made right, so mutations reach the checks
//! behind it. The checks are `md2_wgpu::support::check_levels_file`, which
//! `cargo test` also runs on seeded mutations of a saved file
//! (tests/levels/file.rs).
//!
//! ```text
//! mkdir -p fuzz/corpus/levels_file
//! cargo run --release --bin md2info -- path/to/tris.md2 --levels fuzz/corpus/levels_file/seed
//! RUSTC_BOOTSTRAP=1 cargo fuzz run -a levels_file -- -max_total_time=600
//! ```
//! (The seed must be the demo model's levels to load: `cargo test --test
//! levels` writes one to `target/tmp/md2-fuzz-seeds/demo.md2l`.)

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| md2_wgpu::support::check_levels_file(data));
