//! CPU clocks: the time a thread (or the whole process) actually ran, which
//! a busy machine does not inflate the way it inflates wall-clock time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

static DISABLED: AtomicBool = AtomicBool::new(false);

/// Makes [`thread`] and [`process`] return `None` from now on: for running
/// under valgrind, which rustix's vDSO lookup crashes
/// (bytecodealliance/rustix#1559).
pub fn disable() {
    DISABLED.store(true, Ordering::Relaxed);
}

/// CPU time the calling thread has run so far; `None` where the platform
/// offers no such clock (then the benchmark reports wall-clock time only).
#[cfg(unix)]
pub fn thread() -> Option<Duration> {
    if DISABLED.load(Ordering::Relaxed) {
        return None;
    }
    Some(duration(rustix::time::clock_gettime(
        rustix::time::ClockId::ThreadCPUTime,
    )))
}

/// CPU time every thread of this process has run so far (on a software
/// adapter that includes the rasteriser's threads).
#[cfg(unix)]
pub fn process() -> Option<Duration> {
    if DISABLED.load(Ordering::Relaxed) {
        return None;
    }
    Some(duration(rustix::time::clock_gettime(
        rustix::time::ClockId::ProcessCPUTime,
    )))
}

#[cfg(unix)]
fn duration(t: rustix::time::Timespec) -> Duration {
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

#[cfg(not(unix))]
pub fn thread() -> Option<Duration> {
    None
}

#[cfg(not(unix))]
pub fn process() -> Option<Duration> {
    None
}

/// `later - earlier` in milliseconds, where both clocks were read.
pub fn ms_between(earlier: Option<Duration>, later: Option<Duration>) -> Option<f64> {
    Some(later?.checked_sub(earlier?)?.as_secs_f64() * 1000.0)
}
