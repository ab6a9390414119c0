//! CPU clocks: the time a thread (or the whole process) actually ran, which
//! a busy machine does not inflate the way it inflates wall-clock time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static DISABLED: AtomicBool = AtomicBool::new(false);

/// Makes [`thread`] and [`process`] return `None` from now on: for running
/// under valgrind, which rustix's vDSO lookup crashes
/// (bytecodealliance/rustix#1559).
pub fn disable() {
    DISABLED.store(true, Ordering::Relaxed);
}

fn read(id: ClockId) -> Option<Duration> {
    if DISABLED.load(Ordering::Relaxed) {
        return None;
    }
    clock_time(id)
}

#[derive(Clone, Copy)]
enum ClockId {
    Thread,
    Process,
}

#[cfg(unix)]
fn clock_time(id: ClockId) -> Option<Duration> {
    use rustix::time::{ClockId as Id, clock_gettime};
    let t = clock_gettime(match id {
        ClockId::Thread => Id::ThreadCPUTime,
        ClockId::Process => Id::ProcessCPUTime,
    });
    Some(Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    ))
}

/// No such clocks here: the benchmark reports wall-clock time only.
#[cfg(not(unix))]
fn clock_time(_: ClockId) -> Option<Duration> {
    None
}

/// CPU time every thread of this process has run so far (on a software
/// adapter that includes the rasteriser's threads).
pub fn process() -> Option<Duration> {
    read(ClockId::Process)
}

/// `later - earlier` in milliseconds, where both clocks were read.
pub fn ms_between(earlier: Option<Duration>, later: Option<Duration>) -> Option<f64> {
    Some(later?.checked_sub(earlier?)?.as_secs_f64() * 1000.0)
}

/// A point in time on the wall clock and on the calling thread's CPU
/// clock.
#[derive(Clone, Copy)]
pub struct Mark {
    wall: Instant,
    thread: Option<Duration>,
}

impl Mark {
    pub fn now() -> Mark {
        Mark {
            wall: Instant::now(),
            thread: read(ClockId::Thread),
        }
    }

    /// The thread's CPU time from `self` to `later`, in milliseconds (the
    /// wall clock where there is no thread clock).
    pub fn cpu_ms(&self, later: &Mark) -> f64 {
        ms_between(self.thread, later.thread).unwrap_or_else(|| self.wall_ms(later))
    }

    /// Wall-clock time from `self` to `later`, in milliseconds.
    pub fn wall_ms(&self, later: &Mark) -> f64 {
        later.wall.duration_since(self.wall).as_secs_f64() * 1000.0
    }
}
