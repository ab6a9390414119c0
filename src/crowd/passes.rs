//! The crowd's passes for another host: the WGSL, its entry points and
//! bindings, and the view's frame uniform. md2-wgpu's own renderer runs the
//! same module; `docs/contract.md` says what a host binds and dispatches.

use crate::anim::clock::to_ticks;
use crate::contract::crowd::{CrowdFrame, WORKGROUP_SIZE as GROUP};
use crate::contract::{FRAME_EXTRA, FRAME_FIRST, FRAME_SORT};

/// The crowd's compute passes as one WGSL module (its clocks, culling,
/// level choice and compaction, and md2-wgpu's sorting and tag-riding
/// passes, which a host that draws in member order does not dispatch).
/// Bindings, for `cs_classify`, `cs_scan` and `cs_emit`:
///
/// | group | binding | what |
/// |---|---|---|
/// | 0 | 0 | the view: [`ViewUniform`](crate::contract::ViewUniform), uniform |
/// | 1 | 0 | the crowd's member buffer ([`CrowdBuffers`](super::CrowdBuffers)), read-only storage |
/// | 1 | 1 | the crowd's [`CrowdParams`](super::CrowdParams), uniform |
/// | 1 | 2 | its motion buffer (or an 80-byte stand-in), read-only storage |
/// | 2 | 0 | the view's [`CrowdFrame`], uniform |
/// | 2 | 1 | the view's visible records ([`CrowdLayout::record_bytes`](super::CrowdLayout::record_bytes)), read-write storage |
/// | 2 | 2 | the view's work buffer ([`CrowdLayout::work_bytes`](super::CrowdLayout::work_bytes)), read-write storage |
/// | 2 | 3 | a sort step: a 16-byte uniform at a dynamic offset (0; read only by the sorting passes) |
pub const CROWD_PASSES_WGSL: &str = crate::contract::CROWD_WGSL;

/// The per-member pass that culls each member against the view, chooses
/// its level and bucket, and numbers it within its workgroup:
/// [`CrowdLayout::workgroups`](super::CrowdLayout::workgroups) workgroups.
pub const CLASSIFY_ENTRY: &str = "cs_classify";
/// The pass that sums the workgroups' counts and writes each bucket's draw
/// arguments and draw words: one workgroup, also for an empty crowd.
pub const SCAN_ENTRY: &str = "cs_scan";
/// The per-member pass that samples each visible member's clocks and writes
/// its record (and extra record) at its place:
/// [`CrowdLayout::workgroups`](super::CrowdLayout::workgroups) workgroups.
pub const EMIT_ENTRY: &str = "cs_emit";
/// Members per workgroup of the per-member passes.
pub const WORKGROUP_SIZE: u32 = GROUP;

impl CrowdFrame {
    /// The same frame in a view that draws translucent members and shells
    /// back to front: its passes key them by depth for the sort
    /// ([`CrowdLayout::dispatches`](super::CrowdLayout::dispatches)).
    pub fn sorted(self) -> CrowdFrame {
        CrowdFrame {
            flags: self.flags | FRAME_SORT,
            ..self
        }
    }

    /// The frame at `now` (seconds on the crowd's clock) of a view that
    /// draws in member order ([`sorted`](Self::sorted): back to front). Where the view keeps extra records
    /// (`motion`: its previous frame's time, `None` in its first frame,
    /// which shows no motion), the passes write each visible member's
    /// previous transform and pose beside its record. `None` where a time
    /// is not finite or lies beyond the clock's ±2⁴³ s.
    pub fn new(now: f64, motion: Option<Option<f64>>) -> Option<CrowdFrame> {
        let now = to_ticks(now)?;
        let split = |ticks: i64| [ticks as u32, (ticks as u64 >> 32) as u32];
        let (flags, previous) = match motion {
            None => (0, 0),
            Some(None) => (FRAME_EXTRA | FRAME_FIRST, now),
            Some(Some(previous)) => (FRAME_EXTRA, to_ticks(previous)?),
        };
        Some(CrowdFrame {
            now: split(now),
            flags,
            previous: split(previous),
            ..CrowdFrame::default()
        })
    }
}
