//! A memory device that logs its calls (writes with their offsets and
//! lengths, flushes) in a thread-local log, for the tools that count what
//! a workload writes.

use std::cell::RefCell;
use tinyjoin_engine::storage::{Device, MemoryDevice};

/// One device call: a write (offset, length) or a flush.
pub enum Call {
    Write(u64, usize),
    Flush,
}

thread_local! {
    static LOG: RefCell<Vec<Call>> = const { RefCell::new(Vec::new()) };
}

/// Calls logged so far (a mark for [`calls_since`]).
pub fn logged() -> usize {
    LOG.with(|l| l.borrow().len())
}

/// The calls logged since the mark `from`, described by `f`.
#[allow(dead_code)] // each example uses what it needs
pub fn calls_since<T>(from: usize, f: impl Fn(&Call) -> T) -> Vec<T> {
    LOG.with(|l| l.borrow()[from..].iter().map(f).collect())
}

/// What the calls since a mark did.
pub struct Totals {
    pub writes: usize,
    pub bytes: usize,
    pub flushes: usize,
    /// The end of the furthest write (0 without writes).
    pub end: u64,
}

/// The totals of the calls since the mark `from`.
pub fn totals_since(from: usize) -> Totals {
    let mut t = Totals {
        writes: 0,
        bytes: 0,
        flushes: 0,
        end: 0,
    };
    LOG.with(|l| {
        for c in &l.borrow()[from..] {
            match c {
                Call::Write(at, len) => {
                    t.writes += 1;
                    t.bytes += len;
                    t.end = t.end.max(at + *len as u64);
                }
                Call::Flush => t.flushes += 1,
            }
        }
    });
    t
}

/// A [`MemoryDevice`] whose writes and flushes go to the log.
pub struct Recording(pub MemoryDevice);

impl Device for Recording {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tinyjoin_engine::Result<()> {
        self.0.read_at(offset, buf)
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> tinyjoin_engine::Result<()> {
        LOG.with(|l| l.borrow_mut().push(Call::Write(offset, data.len())));
        self.0.write_at(offset, data)
    }
    fn flush(&mut self) -> tinyjoin_engine::Result<()> {
        LOG.with(|l| l.borrow_mut().push(Call::Flush));
        self.0.flush()
    }
    fn len(&mut self) -> tinyjoin_engine::Result<u64> {
        self.0.len()
    }
    fn truncate(&mut self, len: u64) -> tinyjoin_engine::Result<()> {
        self.0.truncate(len)
    }
}
