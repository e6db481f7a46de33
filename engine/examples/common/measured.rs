//! The one timed region of the profiling examples (`profile_writes`, and
//! `profile_owner` in the worker crate): callgrind counts only this
//! function (`--toggle-collect='*measured*'`); it also prints wall time
//! and how many heap allocations the region made. `TRACE_ALLOCS=FROM:COUNT`
//! prints where allocations FROM..FROM+COUNT of the region were made (the
//! engine's frames of their backtraces).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// The system allocator, counting allocations (reallocations included).
pub struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static MEASURING: AtomicBool = AtomicBool::new(false);
static TRACE: AtomicU64 = AtomicU64::new(u64::MAX);
static TRACE_END: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Set while a backtrace is taken (it allocates too).
    static TRACING: Cell<bool> = const { Cell::new(false) };
}

fn count(size: usize) {
    if TRACING.with(Cell::get) {
        return;
    }
    let n = ALLOCS.fetch_add(1, Ordering::Relaxed);
    if !MEASURING.load(Ordering::Relaxed)
        || n < TRACE.load(Ordering::Relaxed)
        || n >= TRACE_END.load(Ordering::Relaxed)
    {
        return;
    }
    TRACING.with(|t| t.set(true));
    let bt = std::backtrace::Backtrace::force_capture().to_string();
    let frames: Vec<String> = bt
        .lines()
        .map(str::trim)
        .filter(|l| l.contains("tinyjoin_") && !l.starts_with("at ") && !l.contains("measured"))
        .take(4)
        .map(|l| {
            l.split_once(": ")
                .map_or(l, |(_, f)| f)
                .replace("tinyjoin_engine::", "")
        })
        .collect();
    eprintln!("alloc {size} B: {}", frames.join(" <- "));
    TRACING.with(|t| t.set(false));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[inline(never)]
pub fn measured<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let a = ALLOCS.load(Ordering::Relaxed);
    if let Some((from, n)) = std::env::var("TRACE_ALLOCS").ok().and_then(|v| {
        let (f, n) = v.split_once(':')?;
        Some((f.parse::<u64>().ok()?, n.parse::<u64>().ok()?))
    }) {
        TRACE.store(a + from, Ordering::Relaxed);
        TRACE_END.store(a + from + n, Ordering::Relaxed);
    }
    MEASURING.store(true, Ordering::Relaxed);
    let t = Instant::now();
    let out = f();
    MEASURING.store(false, Ordering::Relaxed);
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    let n = ALLOCS.load(Ordering::Relaxed) - a;
    eprintln!("{label}: {ms:.2} ms, {n} heap allocations");
    out
}
