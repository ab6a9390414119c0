//! An app's own fragment stage for the crate's passes: its WGSL, its colour
//! targets (any number: a G-buffer) and one bind group of its own. The crate
//! keeps the vertex stage (the pose), the depth state, multisampling and
//! culling, so a material draws the animated pose in every pass.

mod compose;
mod descriptor;
mod error;
mod md2_material;
mod reads;

pub use descriptor::Md2MaterialDescriptor;
pub use error::MaterialError;
pub use md2_material::Md2Material;
