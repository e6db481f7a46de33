//! Bounds on nesting that recurses on the stack, so that it ends in a
//! typed error instead of a stack overflow: triggers and foreign key
//! actions ([`Frame`]), and the binder's chains of CTEs and views
//! ([`stack_exhausted`]). The parser keeps its own bounds
//! (`parser::cursor`), measured by the same [`stack_address`].

use std::cell::Cell;

use crate::{sql_err, Result};

thread_local! {
    /// The frames entered ([`Frame`]) and the stack address of the first.
    static FRAMES: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// The deepest nesting of frames: SQLite's SQLITE_MAX_TRIGGER_DEPTH,
/// natively; fewer in wasm, whose code runs on the browser's own stack
/// (below).
const MAX_DEPTH: usize = if cfg!(target_arch = "wasm32") {
    400
} else {
    1000
};

/// The most stack, in bytes, nested frames may use below the first (and a
/// binder's chain of CTEs and views, [`stack_exhausted`]).
///
/// Natively the measure is the thread's stack, which must hold this, the
/// statement that began the frames and the deepest frame's own work:
/// 1 MiB of Rust's 2 MiB thread default.
///
/// In wasm the measure is only the shadow stack in linear memory (locals
/// whose address is taken, large values); the functions' frames are on
/// the engine's (V8's) own stack, about 1 MB in a Chromium Worker, which
/// overflowing kills the instance. Measured there (the Chromium test
/// "deep triggers, cascades and CTE chains ..."), that stack held about
/// 850 levels of a recursive trigger, 750 of a CASCADE and 250 links of a
/// CTE chain, which use 0.7, 0.45 and 4.6 KiB of shadow stack a level:
/// the engine's stack per level is 0.85 to 3 times the shadow stack's. So
/// wasm stops at 400 frames (about half the engine's stack for a trigger
/// or a cascade) and at 320 KiB of shadow stack (about 70 links of a CTE
/// chain, a quarter of it).
const MAX_FRAME_STACK: usize = if cfg!(target_arch = "wasm32") {
    320 << 10
} else {
    1 << 20
};

/// One level of nesting of what a statement's write sets off: a trigger
/// firing for a row, or a foreign key action for a parent row, each of
/// which runs statements that may write and set off more (SQLite runs
/// both as trigger programs, one frame each). Past [`MAX_DEPTH`] frames,
/// or [`MAX_FRAME_STACK`] bytes of stack since the first, entering fails
/// with SQLite's "too many levels of trigger recursion" instead of
/// overflowing the stack: a frame costs kilobytes of stack (a statement's
/// execution), so the stack bound, not the count, may come first (in an
/// unoptimised build, or for a trigger doing more than one write).
/// Leaving is the guard's drop.
pub(crate) struct Frame(());

impl Frame {
    pub(crate) fn enter() -> Result<Frame> {
        let here = stack_address();
        FRAMES.with(|f| {
            let (depth, base) = f.get();
            let base = if depth == 0 { here } else { base };
            if depth >= MAX_DEPTH || base.saturating_sub(here) > MAX_FRAME_STACK {
                return Err(sql_err!("too many levels of trigger recursion"));
            }
            f.set((depth + 1, base));
            Ok(Frame(()))
        })
    }
}

/// Whether the stack used since `base` (a [`stack_address`] taken by a
/// caller that nests, such as the binder expanding CTEs) exceeds
/// [`MAX_FRAME_STACK`]; counted from the first frame when frames are
/// entered (which began further up the stack), so that work nested inside
/// triggers shares their bound.
pub(crate) fn stack_exhausted(base: usize) -> bool {
    let here = stack_address();
    let (depth, first) = FRAMES.with(Cell::get);
    let base = if depth > 0 { base.max(first) } else { base };
    base.saturating_sub(here) > MAX_FRAME_STACK
}

/// The address of a local of the caller's frame: comparing two such
/// addresses measures the stack used between them (stacks grow downwards).
#[inline(never)]
pub(crate) fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

impl Drop for Frame {
    fn drop(&mut self) {
        FRAMES.with(|f| {
            let (depth, base) = f.get();
            f.set((depth.saturating_sub(1), base));
        });
    }
}
