//! The resident crowd: members that live on the GPU with their own clocks
//! ([`Md2Crowd`]), kept without a heap allocation each, uploaded only where
//! they changed, and drawn by every view through compute passes that cull,
//! choose levels and compact the visible members in member order; and
//! crowds of Quake III players ([`PlayerCrowd`]), whose parts ride each
//! other's tags on the GPU.

mod attach;
pub(crate) mod counts;
mod md2_crowd;
mod player_crowd;
mod uploads;
pub(crate) mod view;
pub(crate) mod views;

pub use crate::crowd::{CrowdHandle, MemberEdit};
pub use counts::VisibleMembers;
pub use md2_crowd::Md2Crowd;
pub use player_crowd::{PlayerCrowd, PlayerCrowdError, PlayerMember};
