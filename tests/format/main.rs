//! The file format on the CPU: models built in code (`built`) and the real
//! community files (`real`), read, checked and written back.

use md2_wgpu_tests as common;

mod built;
mod real;
