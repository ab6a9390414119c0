//! A built-in animated character: a real MD2 model, made in code, that the
//! examples, benchmarks and tests can use on any machine.
//!
//! [`demo_model`] is a small soldier, 588 vertices and 1,116 triangles, in
//! Quake axes (X forward, Y left, Z up) and Quake II player size: feet at
//! z = −24, the top of the head at z = +32 when standing. It has all 198
//! frames of the Quake II player table with the game's frame names
//! (`stand01`..`stand40`, `run1`..`run6`, ..., `death301`..`death308`), so
//! [`Quake2Player`](crate::anim::Quake2Player) and
//! [`Md2Model::animations`](crate::format::Md2Model::animations) both find its twenty
//! animations: it stands and looks around, runs, fires, flinches, jumps,
//! gestures (flip, salute, taunt, wave, point), crouches, walks crouched and
//! dies three ways, ending on the ground.
//!
//! [`demo_skin`] is its skin, 256 × 128 (not square, so a swapped width and
//! height shows): a face with eyes and hair on the front of the head, a
//! blue shirt with a yellow chest emblem, olive trousers with a belt and a
//! buckle at the front, bare forearms and hands, brown boots. Texels that no
//! triangle uses are a loud magenta and green checker.
//!
//! # Winding
//!
//! The triangles are wound the way real MD2 files wind theirs (checked on
//! the Quake II player and weapon models in `../shared/md2`: 767 of 772,
//! 28 of 28, 667 of 670 triangles agree, and every model's signed volume is
//! negative): **seen from outside, the corners run clockwise** in Quake's
//! right-handed axes, so `(v1 − v0) × (v2 − v0)` points *into* the model,
//! against the stored vertex normals. Quake II draws them with
//! `glCullFace(GL_FRONT)` and the default counter-clockwise front face,
//! which keeps exactly these. A renderer whose view and projection do not
//! mirror the picture sees a front-facing MD2 triangle clockwise on screen:
//! in wgpu, `front_face: Cw` with `cull_mode: Some(Face::Back)`.
//!
//! [`demo_player`] is the same soldier as a Quake III player (legs, torso
//! and head joined by tags that follow its bones, Quake III's 25
//! animations from its own, three skin sets), holding [`demo_weapon`]:
//! [`demo_player_files`] and [`demo_weapon_files`] are their files.
//!
//! [`demo_skinned_glb`] is the same soldier as a skinned glTF (its 15
//! bones as joints, its animations as joint keys): skeletal animation on
//! the very character md2-wgpu draws from keyframes, for benchmarks.
//!
//! Everything is built from plain IEEE arithmetic (no platform `sin`), so
//! the bytes are the same on every machine; a test pins their hash. The
//! model is built once per process (a few milliseconds) and cached.

mod animation;
mod body;
mod math;
mod normals;
mod player;
mod skin;
mod skinned;
mod soldier;
mod weapon;

pub use player::{DEMO_PLAYER_DIR, DEMO_PLAYER_SKINS, demo_player, demo_player_files};
pub use skinned::demo_skinned_glb;
pub use soldier::{SKIN_HEIGHT, SKIN_WIDTH, demo_mdl, demo_model, demo_model_bytes, demo_skin};
pub use weapon::{DEMO_WEAPON_DIR, demo_weapon, demo_weapon_files};
