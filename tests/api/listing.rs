//! Prints the public API listing of a crate from its rustdoc JSON (what
//! `tests/api.rs` compares): how `docs/api/0.1.0.txt` was made from the
//! 0.1.0 sources.
//!
//! ```text
//! RUSTC_BOOTSTRAP=1 cargo rustdoc -p md2-wgpu --lib --all-features -- \
//!     -Z unstable-options --output-format json
//! cargo run -p md2-wgpu-tests --bin api-listing -- target/doc/md2_wgpu.json
//! ```

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: api-listing RUSTDOC_JSON");
        return std::process::ExitCode::from(2);
    };
    let json = match std::fs::read_to_string(&path) {
        Ok(json) => json,
        Err(e) => {
            eprintln!("api-listing: {path}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match md2_wgpu_tests::api::listing(&json) {
        Ok(lines) => {
            for line in lines {
                println!("{line}");
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("api-listing: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
