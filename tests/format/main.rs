//! The file format on the CPU: models built in code (`built`) and the real
//! community files (`real`), read, checked and written back.

// The shared harness lives beside the other test binaries, which reach it
// as `mod common`; this binary is a folder of its own.
#[path = "../common/mod.rs"]
mod common;

mod built;
mod real;
