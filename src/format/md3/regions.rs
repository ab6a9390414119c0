//! Where each part of an MD3 lies, checked before anything is read: every
//! part inside its bounds (the model after its header, or its surface), no
//! two parts sharing a byte, and what lies between them, which the model
//! keeps so that a rewrite is exact.
//!
//! The file's offsets may put its parts in any order with bytes between
//! them (the shared files put a surface's triangles before its shaders;
//! q3data put them after): the layout is kept as read, not refused, and
//! only a part outside its bounds or over another is an error.

use super::error::{Md3Error, Md3Part};

/// The parts placed so far: where each starts and ends, in bytes from the
/// file's start.
#[derive(Default)]
pub(crate) struct Regions {
    spans: Vec<(u64, u64, Md3Part)>,
}

impl Regions {
    /// Checks that `size` bytes of `part` at `offset` lie within
    /// `start..end`; where `size` is 0 (a part with no records, which
    /// nothing reads) the offset need only lie within `0..=end`. Returns
    /// the offset, checked.
    pub(crate) fn within(
        part: Md3Part,
        offset: i64,
        size: u64,
        (start, end): (u64, u64),
    ) -> Result<u64, Md3Error> {
        let at = u64::try_from(offset).ok().filter(|&at| match size {
            0 => at <= end,
            _ => at >= start && at.checked_add(size).is_some_and(|e| e <= end),
        });
        at.ok_or(Md3Error::OutOfBounds {
            part,
            offset,
            size,
            start,
            end,
        })
    }

    /// Places `size` bytes of `part` at `offset`, checked as
    /// [`Regions::within`] checks them, to be held to the others'.
    pub(crate) fn place(
        &mut self,
        part: Md3Part,
        offset: i64,
        size: u64,
        bounds: (u64, u64),
    ) -> Result<u64, Md3Error> {
        let at = Regions::within(part, offset, size, bounds)?;
        if size > 0 {
            self.spans.push((at, at + size, part));
        }
        Ok(at)
    }

    /// Refuses two parts that share a byte; after this the parts are in
    /// the file's order.
    pub(crate) fn check_disjoint(&mut self) -> Result<(), Md3Error> {
        self.spans
            .sort_unstable_by_key(|&(start, end, _)| (start, end));
        for pair in self.spans.windows(2) {
            let ((_, first_end, first), (second_start, _, second)) = (pair[0], pair[1]);
            if second_start < first_end {
                return Err(Md3Error::Overlap {
                    first,
                    second,
                    offset: second_start,
                });
            }
        }
        Ok(())
    }

    /// The stretches of `0..end` no part covers, as (start, end), in order
    /// (after [`Regions::check_disjoint`]).
    pub(crate) fn gaps(&self, end: u64) -> Vec<(u64, u64)> {
        let mut gaps = Vec::new();
        let mut at = 0;
        for &(start, stop, _) in &self.spans {
            if start > at {
                gaps.push((at, start));
            }
            at = at.max(stop);
        }
        if end > at {
            gaps.push((at, end));
        }
        gaps
    }
}
