//! MD2 to glTF 2.0: a model with every frame and every animation in one GLB
//! (binary glTF), for Blender, three.js and game engines. CPU only: nothing
//! here knows about wgpu.
//!
//! [`to_glb`] writes it in memory; `md2info FILE --gltf OUT.glb` writes it
//! to a file. The JSON is built from the `gltf` crate's schema types and the
//! GLB container written by its `Glb`, so neither is hand-rolled.
//!
//! # What maps to what
//!
//! - **Mesh**: one primitive, the [`RenderMesh`](crate::mesh::RenderMesh) the
//!   renderer draws: its welded (xyz, st) corners as vertices, its triangles
//!   in its order ([`GltfOptions::order`]).
//! - **Base and morph targets**: the mesh's own `POSITION` and `NORMAL`
//!   hold one frame ([`GltfOptions::base_frame`], the first by default);
//!   *every* frame, the base included, is a morph target holding `POSITION`
//!   and `NORMAL` differences from the base, in frame order, named by the
//!   frame names in the mesh's `extras.targetNames` (where three.js and
//!   Blender read them).
//! - **Animations**: every clip (by default one per
//!   [`Md2Model::animations`](crate::Md2Model::animations), at
//!   [`GltfOptions::fps`], Quake II's 10 by default) is an animation of the
//!   node's morph `weights` with one-hot keys, `LINEAR` (MD2's own
//!   interpolation, exactly) or `STEP`; a looping clip ends with a key back
//!   on its first frame. Each animation's `extras` say `looping`, `fps` and
//!   `frames` (first and last): play one-shot clips once and hold the end
//!   (three.js: `LoopOnce` with `clampWhenFinished`), looping ones repeated.
//!   The weights are sparse accessors, a few bytes per key.
//! - **Axes**: Quake's X forward, Y left, Z up become glTF's Y up with the
//!   model facing +Z: `(x, y, z)` → `(y, z, x)`, the mapping of
//!   [`QUAKE_TO_Y_UP`](crate::scene::QUAKE_TO_Y_UP), a rotation.
//! - **Units**: model units times [`GltfOptions::scale`];
//!   [`METRES_PER_QUAKE_UNIT`] (1/32: a 56-unit player is 1.75 m) gives
//!   metres.
//! - **Winding**: MD2 triangles run clockwise seen from outside; glTF's
//!   front faces run counter-clockwise, so each triangle's corners are
//!   written in reverse order (0, 2, 1). The exported normals and faces
//!   then agree: the right-hand normal of a face points the way its vertex
//!   normals do (the tests count it on every model).
//! - **Texture coordinates**: as the renderer has them,
//!   `(st + 0.5) / skin size` of the header's skin size, the centre of the
//!   texel. glTF's UV origin is the image's top-left corner, as the crate's
//!   is (`t` counts rows down from the top), so they are written unchanged
//!   (three.js reads glTF textures with `flipY = false` for this reason).
//! - **Skins**: each an embedded PNG with a material (base colour from the
//!   skin, metallic 0, roughness 1, the renderer's bilinear mipmapped
//!   repeating sampler); several skins are several materials, the first on
//!   the primitive and all of them listed as `KHR_materials_variants`; a
//!   model without skins gets one plain light-grey material.
//!
//! # Quake III's MD3
//!
//! [`md3_to_glb`] exports an [`Md3Model`](crate::format::md3::Md3Model)
//! and [`player_to_glb`] a whole [`Md3Player`](crate::format::md3::Md3Player),
//! with the axes, units, winding (MD3 triangles run clockwise seen from
//! outside too) and morph targets above. A model is one node holding one
//! mesh, a primitive per surface with the surface's own vertices (each
//! morph target of a primitive is that surface's frame, so every
//! primitive has one per frame), and a child node per tag: its origin as
//! the translation, its axes orthonormalised (Gram–Schmidt, forward
//! first) into the rotation a glTF node needs, their lengths (1 in a
//! well-made file) as the scale, negative on one axis where the axes are
//! a mirror. Each animation moves the morph weights as above and each tag
//! node with a key per frame; glTF blends the keys' rotations by `slerp`
//! where Quake III lerps the axes and renormalises them (`R_LerpTag`),
//! the same at the keys and close between them for the small turns
//! between frames (not checked against three.js yet). A lone model gets one looping animation,
//! [`ALL_FRAMES_ANIMATION`], over every frame; a player is
//! `lower` → `tag_torso` → `upper` → `tag_head` → `head` (and
//! `tag_weapon` → `weapon`), each `PlayerAnimation` with a
//! [clip](crate::format::md3::AnimationConfig::clip) an animation by its
//! name at the clip's rate (`LEGS_` ones move the legs and their tags,
//! `TORSO_` ones the torso and its tags, `BOTH_` ones both). Every
//! surface gets a material named after its texture (the skin's, else the
//! surface's first shader): where the caller gives an image of that name
//! (decoded by [`skins::load_skin`](crate::skins::load_skin), say), it is
//! embedded once as a PNG and the material samples it as an MD2 skin's
//! does; the others are plain light grey (`md2info --gltf` finds the
//! images beside the model or in the player's folder).
//! [`GltfOptions::quantize`], [`GltfOptions::order`] and
//! [`GltfOptions::skin_names`] are not read: MD3 data is exported as
//! floats, surfaces' triangles in their file order.
//!
//! # The skinned demo
//!
//! [`demo::demo_skinned_glb`](crate::demo::demo_skinned_glb) writes the demo
//! soldier the other way, as skeletal animation: the same corners,
//! triangles, axes and texture coordinates, one joint per vertex (its
//! bone, weight 1), and each animation a key per frame of every joint's
//! rotation and translation, so Bevy's or three.js's skinning can be set
//! beside md2-wgpu's keyframes on one character. At every key each skinned
//! vertex is within half its MD2 frame's quantisation step of the frame's
//! (`cargo test --test gltf skinned`).
//!
//! # Quantization
//!
//! [`GltfOptions::quantize`] stores positions as `SHORT` grid coordinates
//! with `KHR_mesh_quantization`: one grid for every frame, since each MD2
//! frame has a scale and translate of its own and morph targets are added
//! in the base's units. The node's uniform scale is the grid step and its
//! translation the grid's centre. Each position is off by at most half a
//! step per axis; the export measures the largest error over every frame
//! ([`QuantizationReport::max_position_error`]), which bounds any pose
//! between frames too. Normal deltas are normalised `SHORT`s (off by at
//! most 1/65534 per component), except for the frames where some
//! component of a delta is beyond ±1 (a normal turned more than about 60°),
//! which keep float deltas. Texture coordinates and the base's normals
//! stay float: they are stored once, not per frame.
//!
//! # Errors
//!
//! Bad options, positions that overflow in the output units, or a GLB
//! beyond [`GltfOptions::max_bytes`] are a [`GltfError`]; nothing panics,
//! and the size is checked before the large buffers are allocated.
//!
//! # Checked
//!
//! `cargo test --test gltf` exports the demo, three built models and every
//! model in `../shared/md2`, float and quantized: read back with the `gltf`
//! crate, every frame's positions are within 4.3e-6 model units of the
//! MD2's decoded ones (quantized: within the reported error) and its normals
//! within 1e-7 (quantized: 2.5e-5); the Khronos glTF-Validator reports no
//! error and no warning on any of them; three.js's `GLTFLoader` and
//! `AnimationMixer`, playing every animation inside and across keyframes,
//! across the loop's wrap and past a one-shot's end, pose every vertex
//! within 9.5e-5 model units of [`reference::interpolate`](crate::anim::reference::interpolate)
//! (quantized exports within their reported error). A GLB is 7 to 9 times
//! its MD2 (a morph target holds 24 bytes per welded corner where an MD2
//! frame holds 4 per vertex); quantizing saves 5 to 32%
//! (`cargo test --test gltf -- --ignored --nocapture size_table` prints the
//! table).

mod animation;
mod buffer;
mod error;
mod export;
mod frames;
mod materials;
mod md3;
mod options;
mod quantize;
mod report;
mod skinned;

pub use error::GltfError;
pub use export::to_glb;
pub use md3::{ALL_FRAMES_ANIMATION, md3_to_glb, player_to_glb};
pub use options::{GltfOptions, KeyInterpolation, MAX_GLB_BYTES, METRES_PER_QUAKE_UNIT};
pub use report::{GltfExport, GltfReport, QuantizationReport};
pub(crate) use skinned::{Joint, JointPose, SkinnedSource, skinned_to_glb};
