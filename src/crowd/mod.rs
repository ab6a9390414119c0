//! A resident crowd's members as the CPU keeps them, without wgpu
//! ([`CrowdMembers`]): handles that stay valid until their member is
//! removed ([`CrowdHandle`]), clips stored once however many members play
//! them, each member's record as the crowd's passes read it, and what of
//! them the host's GPU buffers still lack, written through the host's
//! [`CrowdBuffers`]. md2-wgpu's [`Md2Crowd`](crate::Md2Crowd) is built on
//! it; so is any other host's crowd.

// Without the `wgpu` feature, what the crate's own host (`gpu::crowd`)
// asks of the members beyond the public API has no user.
#![cfg_attr(not(feature = "wgpu"), allow(dead_code, unused_imports))]
mod clips;
mod handle;
mod member;
mod members;
mod motion;
mod room;
mod uploads;

pub use handle::CrowdHandle;
pub use members::{CrowdFlush, CrowdMembers, MemberEdit};
pub use room::CrowdBuffers;

pub(crate) use room::{RESERVED_CLIPS, Room, grown_size};
