//! The glTF export (`md2_wgpu::gltf`): every model read back on the CPU with
//! the gltf crate (`roundtrip`), bad options refused (`errors`), and in node
//! the Khronos glTF-Validator and three.js's loader and mixer (`node`,
//! skipped loudly without node or the packages .ci/run installs, unless
//! MD2_REQUIRE_NODE=1). `sizes` prints the README's size table; `skinned`
//! poses the skinned demo soldier by its joints at every key.

use md2_wgpu_tests as common;

mod cases;
mod errors;
mod md3;
mod node;
mod roundtrip;
mod sizes;
mod skinned;
