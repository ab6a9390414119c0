//! The resident crowd: members that live on the GPU with their own clocks
//! ([`Md2Crowd`]), kept without a heap allocation each, uploaded only where
//! they changed, and drawn by every view through compute passes that cull,
//! choose levels and compact the visible members in member order.

mod clips;
pub(crate) mod counts;
mod handle;
mod layout;
mod md2_crowd;
mod member;
mod motion;
mod uploads;
pub(crate) mod view;
pub(crate) mod views;

pub use counts::VisibleMembers;
pub use handle::CrowdHandle;
pub use md2_crowd::{Md2Crowd, MemberEdit};
