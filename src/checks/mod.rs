//! Checks a host can run over WGSL of its own (the `checks` feature, which
//! brings naga): the rules real GPUs enforce with their costs, decided in
//! naga's IR where no GPU is at hand ([`check_wgsl`]), and a Rust record
//! held to the WGSL struct it feeds ([`check_record`], and
//! [`record_layout!`](crate::record_layout) at the crate root).
//! The crate's tests hold every shader it ships and every record it packs
//! to them, and a material's module composed with them.
//!
//! ```
//! # #[cfg(feature = "checks")] {
//! use md2_wgpu::checks::{Rule, check_wgsl};
//!
//! // A uniform table read at each vertex's own index: one read per lane on
//! // NVIDIA.
//! let slow = r#"
//!     @group(0) @binding(0) var<uniform> table: array<vec4<f32>, 16>;
//!     @vertex fn main(@location(0) i: u32) -> @builtin(position) vec4<f32> {
//!         return table[i];
//!     }
//! "#;
//! let findings = check_wgsl("slow", slow).unwrap();
//! assert_eq!(findings[0].rule, Rule::VaryingUniformIndex);
//! assert_eq!(findings[0].entry_point, "main");
//! # }
//! ```

mod gpu_rules;
// `record_layout!` is defined there: in scope for the crate's own records
// (contract/mirrors.rs) by name, as an exported macro is at the root.
#[macro_use]
mod records;
#[cfg(test)]
mod shipped;

pub use gpu_rules::{Finding, Rule, check, check_wgsl};
// What `record_layout!` expands to call, so public; not for hands.
#[doc(hidden)]
pub use records::field_size;
pub use records::{FieldLayout, RecordLayout, RecordMismatch, check_record, check_record_wgsl};
