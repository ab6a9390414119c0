//! `MdlModel::from_bytes` on any bytes: a model or a typed error, never a
//! panic, and no allocation past libFuzzer's `-malloc_limit_mb`. What loads
//! writes back byte for byte, plays, decodes its skins and goes through
//! everything the crate does with a model. The checks are
//! `md2_wgpu::support::check_mdl_from_bytes`, which `cargo test` also runs
//! on seeded mutations of models built in code and of the shared Quake I
//! models (tests/mdl_hostile.rs).
//!
//! ```text
//! mkdir -p fuzz/corpus/mdl_from_bytes
//! cp ../shared/mdl/*.mdl fuzz/corpus/mdl_from_bytes/
//! RUSTC_BOOTSTRAP=1 cargo fuzz run -a mdl_from_bytes -- -max_total_time=600
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| md2_wgpu::support::check_mdl_from_bytes(data));
