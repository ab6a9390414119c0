//! What the hostile-input suites share: an allocator that records the
//! largest single allocation (a binary installs it as its global
//! allocator), and the seeded mutations the fuzz checks run on.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Records the largest single allocation made on each thread, so a test can
/// see what parsing a hostile header asked the allocator for.
pub struct Tracking;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// bookkeeping touches only a const-initialised thread-local Cell, which
// neither allocates nor has a destructor.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `f` and returns its result with the largest single allocation
/// this thread made meanwhile (0 unless the binary's global allocator is
/// [`Tracking`]).
pub fn largest_allocation<R>(f: impl FnOnce() -> R) -> (R, usize) {
    LARGEST.with(|l| l.set(0));
    let result = f();
    (result, LARGEST.with(|l| l.get()))
}

/// One seeded mutation of `bytes`, of the kinds fuzzers find bugs with:
/// bits flipped, a word (a count, an offset, a float) set to a hostile
/// value (often one of the first `header_words` words, where a header
/// keeps its counts), the file cut short, a stretch copied over another.
pub fn mutate(rng: &mut md2_wgpu::support::Rng, bytes: &[u8], header_words: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let words = out.len() / 4;
    let hostile = |rng: &mut md2_wgpu::support::Rng, len: usize| -> [u8; 4] {
        let v: u32 = match rng.below(10) {
            0 => 0,
            1 => 1,
            2 => u32::MAX,
            3 => i32::MAX as u32,
            4 => i32::MIN as u32,
            5 => len as u32,
            6 => len as u32 + 1,
            7 => f32::NAN.to_bits(),
            8 => f32::INFINITY.to_bits(),
            _ => rng.next_u64() as u32,
        };
        v.to_le_bytes()
    };
    match rng.below(5) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(out.len());
                out[at] ^= 1 << rng.below(8);
            }
        }
        // A header field, where the counts and offsets are.
        1 => {
            let at = 4 * rng.below(header_words.min(words));
            out[at..at + 4].copy_from_slice(&hostile(rng, bytes.len()));
        }
        2 => {
            let at = 4 * rng.below(words);
            out[at..at + 4].copy_from_slice(&hostile(rng, bytes.len()));
        }
        3 => out.truncate(rng.below(out.len())),
        _ => {
            let len = 1 + rng.below(256.min(out.len()));
            let from = rng.below(out.len() - len + 1);
            let to = rng.below(out.len() - len + 1);
            let chunk = bytes[from..from + len].to_vec();
            out[to..to + len].copy_from_slice(&chunk);
        }
    }
    out
}

/// Runs a fuzz target's `check` on `mutant`; where it panics, keeps the
/// mutant as `tmp/<file>` in the target directory (to reproduce it) and
/// fails with `what` and that path.
pub fn check_mutant(what: &str, file: &str, mutant: &[u8], check: fn(&[u8])) {
    if std::panic::catch_unwind(|| check(mutant)).is_ok() {
        return;
    }
    let path = crate::target_dir().join("tmp").join(file);
    std::fs::create_dir_all(path.parent().expect("tmp/")).unwrap();
    std::fs::write(&path, mutant).unwrap();
    panic!("{what}: {}", path.display());
}

/// `parse` of `bytes`, failing the test where it allocated more at once
/// than the file justifies (4 KiB, plus 16 bytes a byte of file): how
/// every hostile suite loads, so that none promises less than the others.
pub fn load_bounded<T: std::fmt::Debug, E: std::fmt::Debug>(
    bytes: &[u8],
    parse: impl FnOnce(&[u8]) -> Result<T, E>,
) -> Result<T, E> {
    let (result, largest) = largest_allocation(|| parse(bytes));
    let allowed = 4096 + 16 * bytes.len();
    assert!(
        largest <= allowed,
        "loading {} bytes allocated {largest} bytes at once (allowed {allowed}); result {result:?}",
        bytes.len()
    );
    result
}

/// A fuzz target's seeded run: `check` on each seed as it is, then on
/// `mutants(seed)` mutations of it (favouring its first `header_words`
/// words, from random numbers seeded with `rng_seed`), each also loaded
/// with `load`; a mutant that fails `check` is kept as `tmp/<file>`.
/// Returns how many mutants loaded and how many were refused.
pub fn seeded_mutations<T, E>(
    seeds: &[(String, Vec<u8>)],
    (rng_seed, header_words): (u64, usize),
    mutants: impl Fn(&[u8]) -> usize,
    file: &str,
    load: impl Fn(&[u8]) -> Result<T, E>,
    check: fn(&[u8]),
) -> (usize, usize) {
    let mut rng = md2_wgpu::support::Rng::new(rng_seed);
    let (mut loaded, mut refused) = (0, 0);
    for (name, bytes) in seeds {
        check(bytes);
        for _ in 0..mutants(bytes) {
            let mutant = mutate(&mut rng, bytes, header_words);
            match load(&mutant) {
                Ok(_) => loaded += 1,
                Err(_) => refused += 1,
            }
            check_mutant(
                &format!("a mutation of {name} fails the fuzz checks"),
                file,
                &mutant,
                check,
            );
        }
    }
    eprintln!(
        "{} mutations of {} seeds: {loaded} loaded, {refused} refused with a typed error",
        loaded + refused,
        seeds.len()
    );
    (loaded, refused)
}
