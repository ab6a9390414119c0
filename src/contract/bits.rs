//! The bits of the words the GPU reads: the instance record's effects word,
//! the phase a fragment stage is called in, and the flags of the crowd's
//! clocks, parameters and frames. Each mirrors a constant of `shaders/`
//! (`constants.wgsl`, `view.wgsl`, `crowd/types.wgsl`); a naga test holds
//! them equal.

/// The effects word's low 24 bits: a shell's colour, RGB8
/// (`MD2_EFFECT_SHELL_RGB`).
pub const EFFECT_SHELL_RGB: u32 = 0x00ff_ffff;
/// Lit by nothing but itself (`MD2_EFFECT_FULLBRIGHT`).
pub const EFFECT_FULLBRIGHT: u32 = 0x0100_0000;
/// Never darker than [`MIN_LIGHT`](crate::scene::MIN_LIGHT) (`MD2_EFFECT_MINLIGHT`).
pub const EFFECT_MINLIGHT: u32 = 0x0200_0000;
/// Casts no planar shadow (`MD2_EFFECT_NO_SHADOW`).
pub const EFFECT_NO_SHADOW: u32 = 0x0400_0000;
/// Has a powerup shell (`MD2_MEMBER_SHELL`).
pub const MEMBER_SHELL: u32 = 0x0800_0000;
/// Translucent: tint alpha below 1 in 8 bits (`MD2_MEMBER_TRANSLUCENT`).
pub const MEMBER_TRANSLUCENT: u32 = 0x1000_0000;
/// The transform mirrors: a negative determinant (`MD2_MEMBER_MIRRORED`).
pub const MEMBER_MIRRORED: u32 = 0x2000_0000;
/// A crowd member's second clock is live: it crossfades
/// (`MD2_MEMBER_FADING`).
pub const MEMBER_FADING: u32 = 0x8000_0000;

/// [`ModelInfo::flags`](super::ModelInfo::flags): the skin array's second
/// half holds a fullbright mask for each layer of its first half (alpha 1
/// where the texel is drawn unlit), as
/// [`GpuModelOptions::fullbright_masks`](super::GpuModelOptions::fullbright_masks)
/// asks (`MD2_MODEL_FULLBRIGHT_MASKS`).
pub const MODEL_FULLBRIGHT_MASKS: u32 = 1;

/// [`ModelInfo::flags`](super::ModelInfo::flags): the model's vertices are
/// [`FrameWord::Wide8`](crate::model::FrameWord::Wide8), two `u32`s each,
/// and its frame parameters begin with
/// [`lat_long_normal_table`](super::lat_long_normal_table)
/// (`MD2_MODEL_WIDE_WORD`). The flag is the same for every vertex of a
/// draw, so the pose's branch on it never diverges.
pub const MODEL_WIDE_WORD: u32 = 2;

/// The values of `Md2Fragment::phase` (`MD2_PHASE_*`): which
/// [`Md2Phase`](crate::gpu::Md2Phase) calls the fragment stage.
pub mod phase {
    /// Opaque instances (`MD2_PHASE_OPAQUE`).
    pub const OPAQUE: u32 = 0;
    /// Translucent instances (`MD2_PHASE_TRANSLUCENT`).
    pub const TRANSLUCENT: u32 = 1;
    /// Powerup shells (`MD2_PHASE_SHELLS`).
    pub const SHELLS: u32 = 2;
    /// Planar shadows (`MD2_PHASE_SHADOWS`).
    pub const SHADOWS: u32 = 3;
}

/// `Md2View::flags.x`: the view draws planar shadows (`MD2_VIEW_SHADOWS`).
pub(crate) const VIEW_SHADOWS: u32 = 1;

// Bits of the crowd's `Clock::flags`.
pub(crate) const CLOCK_LOOPING: u32 = 1;
pub(crate) const CLOCK_HOLD: u32 = 2;
// Bits of `CrowdParams::flags` and `CrowdFrame::flags`.
pub(crate) const CROWD_CULL: u32 = 1;
pub(crate) const FRAME_SORT: u32 = 1;
pub(crate) const FRAME_EXTRA: u32 = 2;
pub(crate) const FRAME_FIRST: u32 = 4;
// Bits of `MemberMotion::flags_id`, below the id.
pub(crate) const MOTION_MOVED: u32 = 1;
pub(crate) const MOTION_POSE: u32 = 2;
pub(crate) const MOTION_NEW: u32 = 4;
pub(crate) const MOTION_FLAG_BITS: u32 = 3;
