//! Finds the shared community models the browser tests draw (a browser
//! reads no files): `$MD2_SHARED_MODELS`, else `../shared/md2` beside the
//! workspace, as md2-wgpu's own tests look. The tests include whichever of
//! [`FILES`] are there from `$OUT_DIR/shared.rs`; nothing is copied into
//! the repository, and the page itself includes none of them.

use std::path::{Path, PathBuf};

/// The files the browser tests use, relative to the shared folder.
const FILES: [&str; 3] = ["yohko/tris.md2", "yohko/Yohko.pcx", "ogro/ogros.MD2"];

fn main() {
    println!("cargo::rerun-if-env-changed=MD2_SHARED_MODELS");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dir = match std::env::var_os("MD2_SHARED_MODELS") {
        Some(dir) => PathBuf::from(dir),
        None => manifest.join("../../shared/md2"),
    };
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut entries = String::new();
    for file in FILES {
        let path = dir.join(file);
        println!("cargo::rerun-if-changed={}", path.display());
        if let Ok(path) = std::fs::canonicalize(&path) {
            entries += &format!("    ({file:?}, include_bytes!({:?})),\n", path_text(&path));
        }
    }
    let why = format!(
        "{} had none of them when the tests were built (set MD2_SHARED_MODELS to point elsewhere)",
        dir.display()
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    let source = format!(
        "/// The shared files found, by path under the shared folder.\n\
         pub const FILES: &[(&str, &[u8])] = &[\n{entries}];\n\
         /// Why a file is absent.\n\
         pub const WHY_ABSENT: &str = {why:?};\n"
    );
    std::fs::write(out.join("shared.rs"), source).expect("write $OUT_DIR/shared.rs");
}

fn path_text(path: &Path) -> String {
    path.to_str().expect("a UTF-8 path").to_owned()
}
