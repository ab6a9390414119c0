//! The phases a renderer draws, in order, and the buckets each draws.

use crate::contract::{MAX_LEVELS, SHELL, TRANSLUCENT, opaque_at};

/// What [`Md2Renderer::render_phase`](crate::Md2Renderer::render_phase) draws. [`Md2Renderer::render`](crate::Md2Renderer::render) draws
/// all four, in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Md2Phase {
    /// Opaque instances (tint alpha 1): lit, skinned, writing depth as the
    /// renderer's [`DepthState`](crate::DepthState) says. A depth-only
    /// renderer draws only this phase. Mirrored and plain instances are two
    /// draws; their order does not show, as the depth test decides each
    /// pixel (up to exactly equal depths, where a strict test keeps the
    /// first drawn: the order is fixed there too, plain before mirrored, in
    /// the order given).
    Opaque,
    /// Planar shadows of the opaque instances, if the view has a
    /// [`PlanarShadow`](crate::scene::PlanarShadow): after the opaque world they fall on. Each pixel is
    /// darkened once (the stencil), in one colour, so order does not show.
    Shadows,
    /// Translucent instances (tint alpha below 1), blended, without depth
    /// writes, in the renderer's [`TranslucentOrder`](crate::scene::TranslucentOrder), mirrored or not: one
    /// draw per model.
    Translucent,
    /// Powerup shells, blended over everything, without depth writes, in
    /// the renderer's [`TranslucentOrder`](crate::scene::TranslucentOrder).
    Shells,
}

impl Md2Phase {
    /// Every phase, in the order [`Md2Renderer::render`](crate::Md2Renderer::render) draws them.
    pub const ALL: [Md2Phase; 4] = [
        Md2Phase::Opaque,
        Md2Phase::Shadows,
        Md2Phase::Translucent,
        Md2Phase::Shells,
    ];

    /// The buckets (see `Buckets`) whose records this phase draws, each
    /// with whether it binds the reversed index list.
    pub(crate) fn draws(self) -> &'static [(usize, bool)] {
        /// Every level's opaque pair, the mirrored one reversed.
        const OPAQUE_DRAWS: [(usize, bool); 2 * MAX_LEVELS] = {
            let mut draws = [(0, false); 2 * MAX_LEVELS];
            let mut level = 0;
            while level < MAX_LEVELS {
                draws[2 * level] = (opaque_at(level, false), false);
                draws[2 * level + 1] = (opaque_at(level, true), true);
                level += 1;
            }
            draws
        };
        match self {
            Md2Phase::Opaque | Md2Phase::Shadows => &OPAQUE_DRAWS,
            Md2Phase::Translucent => &[(TRANSLUCENT, false)],
            Md2Phase::Shells => &[(SHELL, false)],
        }
    }
}
