//! What the app describes, without wgpu: the camera and light, Quake II's
//! effects and planar shadows, the instances of the immediate path and the
//! members of a resident crowd, the rules for bad values and translucent
//! order, and what is wrong when a description cannot be drawn.

// Without the `wgpu` feature, the checks and depth keys the crate's own GPU half makes of
// what the app describes have
// no user.
#![cfg_attr(not(feature = "wgpu"), allow(dead_code, unused_imports))]
mod camera;
mod effects;
mod error;
pub mod fields;
mod instance;
mod level_choice;
mod member;
mod pack;
mod policy;

pub use camera::{Camera, Light, QUAKE_TO_Y_UP, quake_to_y_up, stand_on_ground};
pub use effects::{
    Effects, MIN_LIGHT, PlanarShadow, SHELL_ALPHA, SHELL_OFFSET, ShadowStencil, quake_flags,
};
pub use error::{CrowdError, InstanceError};
pub use instance::{Md2Instance, Md2Previous};
pub use level_choice::LevelChoice;
pub use member::CrowdMember;
pub use policy::{InstancePolicy, TranslucentOrder};

pub(crate) use camera::{depth_key, depth_row, view_depth};
pub(crate) use member::{
    ModelFacts, check_play, check_playback, check_skin, check_tint, check_transform,
};
pub(crate) use pack::{Packed, pack, pack_previous, pose_words};
