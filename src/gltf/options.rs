//! What an export writes: the base frame, units, clips, keys, quantisation.

use crate::anim::{Clip, QUAKE2_FPS};
use crate::mesh::TriangleOrder;

/// Metres per Quake unit, for [`GltfOptions::scale`]: 1/32, so a Quake II
/// player, 56 units from its feet (z = −24) to the top of its head
/// (z = +32), stands 1.75 m tall.
///
/// This is an assumption, not a fact of the format: Quake never said what
/// a unit measures. 1/32 is chosen because a player then has a person's
/// height and because it is a power of two, so scaling changes no bit of a
/// position's precision. The other common choice is an inch (0.0254).
pub const METRES_PER_QUAKE_UNIT: f32 = 1.0 / 32.0;

/// The largest GLB a 32-bit GLB header can describe, in bytes: the default
/// [`GltfOptions::max_bytes`].
pub const MAX_GLB_BYTES: u64 = u32::MAX as u64;

/// How an animation moves from one keyframe to the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KeyInterpolation {
    /// glTF's `LINEAR`: the weights blend from one frame into the next, which
    /// with one-hot keys is exactly MD2's linear interpolation of positions
    /// (and of normals, before the renderer renormalises them).
    #[default]
    Linear,
    /// glTF's `STEP`: each frame held until the next, the snapped look of a
    /// renderer without interpolation (Quake II with `r_lerpmodels 0`).
    Step,
}

/// What [`to_glb`](super::to_glb) writes. [`GltfOptions::DEFAULT`] (also
/// [`Default`]) exports in model units, frame 0 as the base, every
/// animation the model's frame names give at Quake II's 10 frames a
/// second, with float vertex data.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfOptions {
    /// The frame the mesh's own `POSITION` and `NORMAL` hold: what a viewer
    /// that ignores morph targets shows. Every frame, this one included, is
    /// also a morph target.
    pub base_frame: u32,
    /// Output units per model unit (positive and finite): 1 keeps model
    /// units, [`METRES_PER_QUAKE_UNIT`] gives metres.
    pub scale: f32,
    /// Frames per second of the clips made from the model's animations
    /// (positive and finite); ignored where [`clips`](Self::clips) are
    /// given, which carry their own.
    pub fps: f32,
    /// The clips to export, each as one glTF animation; `None` exports one
    /// per [`Md2Model::animations`](crate::Md2Model::animations), looping as
    /// [`Clip::from`] an animation decides (so
    /// [`Quake2Player::clips`](crate::Quake2Player::clips) can name a
    /// player model's animations whatever its frame names say).
    pub clips: Option<Vec<Clip>>,
    /// Linear keys (MD2's interpolation) or held ones.
    pub interpolation: KeyInterpolation,
    /// Store positions as 16-bit integers on one grid for every frame, and
    /// normal deltas as normalised 16-bit integers where they fit, with
    /// `KHR_mesh_quantization`: see [Quantization](super#quantization).
    pub quantize: bool,
    /// The triangle order: by default the one the renderer draws.
    pub order: TriangleOrder,
    /// The name of the node and mesh (and the scene); `None` names them
    /// `md2`.
    pub name: Option<String>,
    /// The name of each skin's material (and material variant), by index;
    /// a skin without one is named `skin<index>`.
    pub skin_names: Vec<String>,
    /// Refuse an export whose GLB would be larger than this many bytes,
    /// before the large buffers are allocated. At most (and by default)
    /// [`MAX_GLB_BYTES`].
    pub max_bytes: u64,
}

impl GltfOptions {
    /// Model units, frame 0 as the base, the model's animations at
    /// [`QUAKE2_FPS`], linear keys, float data, the renderer's triangle
    /// order.
    pub const DEFAULT: GltfOptions = GltfOptions {
        base_frame: 0,
        scale: 1.0,
        fps: QUAKE2_FPS,
        clips: None,
        interpolation: KeyInterpolation::Linear,
        quantize: false,
        order: TriangleOrder::VertexCache,
        name: None,
        skin_names: Vec::new(),
        max_bytes: MAX_GLB_BYTES,
    };

    /// The same options with quantised vertex data.
    pub fn quantized(self) -> Self {
        GltfOptions {
            quantize: true,
            ..self
        }
    }

    /// The same options with output units of `scale` per model unit.
    pub fn with_scale(self, scale: f32) -> Self {
        GltfOptions { scale, ..self }
    }

    /// The same options with keys interpolated as `interpolation` says.
    pub fn with_interpolation(self, interpolation: KeyInterpolation) -> Self {
        GltfOptions {
            interpolation,
            ..self
        }
    }
}

impl Default for GltfOptions {
    fn default() -> Self {
        GltfOptions::DEFAULT
    }
}
