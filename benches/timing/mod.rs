//! The timer the CPU benchmarks (parse, interpolate) share: the median of
//! many timed batches, each long enough that the clock's resolution is
//! noise; and the lines of their tables.

use std::time::{Duration, Instant};

/// A batch runs at least this long.
const BATCH: Duration = Duration::from_millis(20);

/// Median seconds per call of `f` over `samples` batches; `f` gets the
/// call's index in its batch, so calls can walk through their inputs.
pub fn median_seconds(samples: usize, mut f: impl FnMut(usize)) -> f64 {
    // Warm up, and find how many calls fill a batch.
    let mut per_batch = 1usize;
    loop {
        let t = Instant::now();
        for i in 0..per_batch {
            f(i);
        }
        if t.elapsed() >= BATCH {
            break;
        }
        per_batch *= 2;
    }
    let mut times: Vec<f64> = (0..samples.max(1))
        .map(|_| {
            let t = Instant::now();
            for i in 0..per_batch {
                f(i);
            }
            t.elapsed().as_secs_f64() / per_batch as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Prints one line of a plain-text table, its cells one space apart, each
/// padded to its column's width in `widths`: the first (the input's name)
/// to the left, the figures to the right.
pub fn print_row(widths: &[usize], cells: &[&str]) {
    let cells: Vec<String> = cells
        .iter()
        .zip(widths)
        .enumerate()
        .map(|(i, (cell, &width))| {
            if i == 0 {
                format!("{cell:<width$}")
            } else {
                format!("{cell:>width$}")
            }
        })
        .collect();
    println!("{}", cells.join(" "));
}
