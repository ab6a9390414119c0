//! The draw buckets: which draw an instance's record goes to. A frame's
//! records (a batch's on the immediate path, a crowd view's visible ones on
//! the resident path) lie bucket by bucket, each bucket one instanced draw.

use super::bits::{MEMBER_MIRRORED, MEMBER_SHELL, MEMBER_TRANSLUCENT};

/// The most levels of detail the renderers draw, full detail included (a
/// model's [`levels`](crate::GpuModel::levels) stop there).
pub const MAX_LEVELS: usize = 5;

/// The buckets, in the order a batch's records (and a crowd's visible
/// records) lie in memory: opaque and opaque mirrored at full detail, then
/// the same pair at each coarser level ([`opaque_at`]), then translucent
/// and shell. Translucent records and shells keep one bucket whatever their
/// level, so their one defined blending order holds; each such bucket is
/// drawn at the finest level any of its records needs.
pub(crate) const BUCKETS: usize = 2 * MAX_LEVELS + 2;
pub(crate) const OPAQUE: usize = 0;
pub(crate) const OPAQUE_MIRRORED: usize = 1;
pub(crate) const TRANSLUCENT: usize = 2 * MAX_LEVELS;
pub(crate) const SHELL: usize = TRANSLUCENT + 1;

/// The opaque bucket (`mirrored` or not) of level `level`.
pub(crate) const fn opaque_at(level: usize, mirrored: bool) -> usize {
    2 * level + mirrored as usize
}

/// The level of detail of an opaque bucket.
pub(crate) const fn level_of_opaque(bucket: usize) -> usize {
    bucket / 2
}

/// Which draw an instance's record goes to: its main draw and maybe a
/// shell draw.
///
/// Opaque records are split by winding (a mirrored one draws the reversed
/// index list, so the rasteriser culls it), as the depth test makes their
/// order irrelevant. Translucent records and shells are one bucket each,
/// whatever their winding, so that they blend in one defined order: their
/// pipelines cull in the fragment shader, per instance (see
/// `shading.wgsl`'s `md2_cull_face`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Buckets {
    /// [`OPAQUE`], [`OPAQUE_MIRRORED`] (or their pair at a coarser level)
    /// or [`TRANSLUCENT`].
    pub main: usize,
    /// [`SHELL`] where the record has a shell.
    pub shell: Option<usize>,
}

impl Buckets {
    /// The buckets at level `level`: an opaque record moves to that
    /// level's bucket; translucent records and shells stay where they are.
    pub(crate) fn at_level(self, level: usize) -> Buckets {
        let main = if self.main < TRANSLUCENT {
            opaque_at(level, self.main == OPAQUE_MIRRORED)
        } else {
            self.main
        };
        Buckets { main, ..self }
    }

    /// The buckets of a record with these `MEMBER_*` bits, at full detail.
    pub(crate) fn of(effects: u32) -> Buckets {
        let main = if effects & MEMBER_TRANSLUCENT != 0 {
            TRANSLUCENT
        } else if effects & MEMBER_MIRRORED != 0 {
            OPAQUE_MIRRORED
        } else {
            OPAQUE
        };
        Buckets {
            main,
            shell: (effects & MEMBER_SHELL != 0).then_some(SHELL),
        }
    }
}
