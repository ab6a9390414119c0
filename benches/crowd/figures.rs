//! Where the report goes: standard output, and with `--markdown PATH` the
//! figures file too, so the README and the docs quote what a run measured
//! instead of figures copied by hand.

use std::io::Write as _;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

static FILE: Mutex<Option<std::fs::File>> = Mutex::new(None);

/// From now on, the report also goes to `path` (created anew).
pub fn tee_to(path: &Path) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    *FILE.lock().unwrap_or_else(PoisonError::into_inner) = Some(file);
    Ok(())
}

/// One line of the report (what `say!` prints).
pub fn line(text: &str) {
    println!("{text}");
    let mut file = FILE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(file) = file.as_mut()
        && let Err(e) = writeln!(file, "{text}")
    {
        eprintln!("crowd: writing the figures file: {e}");
    }
}

/// `println!` for the report: to standard output and the figures file.
macro_rules! say {
    () => {
        $crate::figures::line("")
    };
    ($($arg:tt)*) => {
        $crate::figures::line(&format!($($arg)*))
    };
}
pub(crate) use say;
