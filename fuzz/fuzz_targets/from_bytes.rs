//! `Md2Model::from_bytes` on any bytes: a model or a typed error, never a
//! panic, and no allocation past libFuzzer's `-malloc_limit_mb`. A model that
//! loads also writes back: byte for byte when it had no warnings (but
//! renamed animations, which are about names, not bytes), and always
//! as a file that loads again with the same geometry. The checks are
//! `md2_wgpu::support::check_from_bytes`, which `cargo test` also runs on
//! seeded mutations of the real files (tests/format_hostile.rs), and CI
//! type-checks this target (`cargo check` in `fuzz/`).
//!
//! Seeds: the generated models that `cargo test --test format_built` writes
//! to `target/tmp/md2-fuzz-seeds`, plus, where present, ../shared/md2 (never
//! committed):
//!
//! ```text
//! mkdir -p fuzz/corpus/from_bytes
//! cp target/tmp/md2-fuzz-seeds/* fuzz/corpus/from_bytes/
//! find ../shared/md2 -iname '*.md2' -exec cp {} fuzz/corpus/from_bytes/ \;
//! RUSTC_BOOTSTRAP=1 cargo fuzz run -a from_bytes -- -max_total_time=600
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| md2_wgpu::support::check_from_bytes(data));
