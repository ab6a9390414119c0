//! A resident crowd without wgpu: its members as the CPU keeps them
//! ([`CrowdMembers`]): handles that stay valid until their member is
//! removed ([`CrowdHandle`]), clips stored once however many members play
//! them, each member's record as the crowd's passes read it, and what of
//! them the host's GPU buffers still lack, written through the host's
//! [`CrowdBuffers`]; and what a host needs to run the crowd's passes in
//! each view ([`CrowdLayout`], [`CrowdParams`], [`CrowdFrame`],
//! [`CROWD_PASSES_WGSL`], [`CrowdLayout::dispatches`], and to sort
//! translucent members and shells back to front, [`CrowdSortSteps`]) and
//! to draw what they lay out ([`BucketDraw`]).
//! md2-wgpu's [`Md2Crowd`](crate::Md2Crowd) is built on it; so is any
//! other host's crowd.

// Without the `wgpu` feature, what the crate's own host (`gpu::crowd`)
// asks of the members beyond the public API has no user.
#![cfg_attr(not(feature = "wgpu"), allow(dead_code, unused_imports))]
mod clips;
mod handle;
mod layout;
mod member;
mod members;
mod motion;
mod passes;
mod room;
mod sort;
mod uploads;

pub use crate::contract::crowd::{CrowdFrame, CrowdParams};
pub use handle::CrowdHandle;
pub use layout::{BucketDraw, CrowdLayout};
pub use members::{CrowdFlush, CrowdMembers, MemberEdit};
pub use passes::{CLASSIFY_ENTRY, CROWD_PASSES_WGSL, EMIT_ENTRY, SCAN_ENTRY, WORKGROUP_SIZE};
pub use room::CrowdBuffers;
pub use sort::{CrowdDispatch, CrowdSortSteps, GATHER_ENTRY, SORT_BLOCK_ENTRY, SORT_STEP_ENTRY};

pub(crate) use room::{RESERVED_CLIPS, Room, grown_size};
