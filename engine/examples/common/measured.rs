//! The one timed region of the profiling examples (`profile_writes`, and
//! `profile_owner` in the worker crate): callgrind counts only this
//! function (`--toggle-collect='*measured*'`); it also prints wall time.

use std::time::Instant;

#[inline(never)]
pub fn measured<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    eprintln!("{label}: {:.2} ms", t.elapsed().as_secs_f64() * 1000.0);
    out
}
