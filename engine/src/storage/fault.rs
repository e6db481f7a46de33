//! [`FaultDevice`]: an in-memory device for crash and fault tests. It keeps
//! what a flush made durable apart from the writes since, counts every
//! write and flush, and can:
//! - crash at the N-th call: that call and every later one fail, and
//!   [`FaultHandle::crash_image`] gives the bytes a reboot would find --
//!   unflushed writes dropped, kept, or kept with the in-flight write torn;
//! - fail the N-th call once with an I/O error or "disk full" and go on;
//! - flip bits in the durable bytes.

use super::device::{mem_index, Device};
use super::format::PAGE_SIZE;
use crate::{Error, Result};
use std::cell::RefCell;
use std::rc::Rc;

/// What a crash does to the writes not yet flushed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrashMode {
    /// Every unflushed write is lost.
    DropUnflushed,
    /// Unflushed writes before the crashing call survive; the write in
    /// flight (if the crashing call is a write) survives only in part: its
    /// first page torn in half, the rest lost.
    TearInFlight,
    /// Each unflushed page survives or not by a seeded coin toss.
    Random(u64),
    /// Every completed unflushed write survives but one page: the page at
    /// this position (modulo their number) in the order they were written.
    /// The write in flight is lost. Unflushed writes reach the disk in any
    /// order, so the newest superblock may survive without an older page.
    LoseOnePage(usize),
}

/// A write or flush the device completed ([`FaultHandle::take_log`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceCall {
    Write { offset: u64, len: u64 },
    Flush,
}

/// The call to fail, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    Io,
    DiskFull,
}

#[derive(Default)]
struct FaultState {
    durable: Vec<u8>,
    /// What a reader sees: durable plus pending writes.
    view: Vec<u8>,
    /// Writes since the last flush, in order.
    pending: Vec<(u64, Vec<u8>)>,
    /// The write that was in flight when the device crashed.
    in_flight: Option<(u64, Vec<u8>)>,
    calls: u64,
    crash_at: Option<u64>,
    crashed: bool,
    fail_at: Option<(u64, FaultKind)>,
    /// Completed writes and flushes since the last `take_log`.
    log: Vec<DeviceCall>,
}

impl FaultState {
    /// Counts a write or flush call and decides its fate.
    fn enter(&mut self) -> Result<()> {
        if self.crashed {
            return Err(Error::Io("device crashed".into()));
        }
        self.calls += 1;
        if self.crash_at == Some(self.calls) {
            self.crashed = true;
            return Err(Error::Io("device crashed".into()));
        }
        match self.fail_at {
            Some((n, kind)) if n == self.calls => {
                self.fail_at = None;
                Err(match kind {
                    FaultKind::Io => Error::Io("injected I/O error".into()),
                    FaultKind::DiskFull => Error::DiskFull,
                })
            }
            _ => Ok(()),
        }
    }
}

/// The pages of `writes`, in order, each with its offset.
fn by_page<'a>(
    writes: impl Iterator<Item = &'a (u64, Vec<u8>)>,
) -> impl Iterator<Item = (u64, &'a [u8])> {
    writes.flat_map(|(off, data)| {
        data.chunks(PAGE_SIZE)
            .enumerate()
            .map(move |(i, p)| (off + (i * PAGE_SIZE) as u64, p))
    })
}

fn apply(bytes: &mut Vec<u8>, offset: u64, data: &[u8]) {
    let start = offset as usize;
    if bytes.len() < start + data.len() {
        bytes.resize(start + data.len(), 0);
    }
    bytes[start..start + data.len()].copy_from_slice(data);
}

/// The device half: give it to the store.
pub struct FaultDevice {
    state: Rc<RefCell<FaultState>>,
}

/// The test's half: controls and inspects the device.
#[derive(Clone)]
pub struct FaultHandle {
    state: Rc<RefCell<FaultState>>,
}

impl FaultDevice {
    /// A device whose durable bytes start as `bytes`.
    pub fn new(bytes: Vec<u8>) -> (FaultDevice, FaultHandle) {
        let state = Rc::new(RefCell::new(FaultState {
            view: bytes.clone(),
            durable: bytes,
            ..Default::default()
        }));
        (
            FaultDevice {
                state: state.clone(),
            },
            FaultHandle { state },
        )
    }
}

impl FaultHandle {
    /// Write and flush calls made so far.
    pub fn calls(&self) -> u64 {
        self.state.borrow().calls
    }

    /// The writes and flushes completed since the last call, in order.
    pub fn take_log(&self) -> Vec<DeviceCall> {
        std::mem::take(&mut self.state.borrow_mut().log)
    }

    /// Crash at the `n`-th write or flush call from the start (1-based).
    pub fn crash_at(&self, n: u64) {
        self.state.borrow_mut().crash_at = Some(n);
    }

    /// Fail the `n`-th write or flush call once.
    pub fn fail_at(&self, n: u64, kind: FaultKind) {
        self.state.borrow_mut().fail_at = Some((n, kind));
    }

    pub fn crashed(&self) -> bool {
        self.state.borrow().crashed
    }

    /// The bytes a reboot would find, by `mode`.
    pub fn crash_image(&self, mode: CrashMode) -> Vec<u8> {
        let s = self.state.borrow();
        let mut b = s.durable.clone();
        match mode {
            CrashMode::DropUnflushed => {}
            CrashMode::TearInFlight => {
                for (off, data) in &s.pending {
                    apply(&mut b, *off, data);
                }
                if let Some((off, data)) = &s.in_flight {
                    let half = data.len().min(PAGE_SIZE) / 2;
                    apply(&mut b, *off, &data[..half]);
                }
            }
            CrashMode::LoseOnePage(n) => {
                let pages: Vec<(u64, &[u8])> = by_page(s.pending.iter()).collect();
                let lost = n % pages.len().max(1);
                for (i, (off, page)) in pages.into_iter().enumerate() {
                    if i != lost {
                        apply(&mut b, off, page);
                    }
                }
            }
            CrashMode::Random(seed) => {
                let mut x = seed | 1;
                let mut coin = || {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x & 1 == 1
                };
                for (off, page) in by_page(s.pending.iter().chain(s.in_flight.iter())) {
                    if coin() {
                        apply(&mut b, off, page);
                    }
                }
            }
        }
        b
    }

    /// The bytes a reader would see now (durable plus unflushed writes).
    pub fn current(&self) -> Vec<u8> {
        self.state.borrow().view.clone()
    }

    /// Flips one bit of the durable bytes (and of any pending copy).
    pub fn flip_bit(&self, offset: u64, bit: u8) {
        let mut s = self.state.borrow_mut();
        let i = offset as usize;
        if i < s.durable.len() {
            s.durable[i] ^= 1 << (bit % 8);
        }
        if i < s.view.len() {
            s.view[i] ^= 1 << (bit % 8);
        }
    }
}

impl Device for FaultDevice {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let s = self.state.borrow();
        if s.crashed {
            return Err(Error::Io("device crashed".into()));
        }
        let cur = &s.view;
        let (start, _) = mem_index(offset, buf.len())?;
        buf.fill(0);
        if start < cur.len() {
            let n = buf.len().min(cur.len() - start);
            buf[..n].copy_from_slice(&cur[start..start + n]);
        }
        Ok(())
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        mem_index(offset, data.len())?;
        let mut s = self.state.borrow_mut();
        if let Err(e) = s.enter() {
            if s.crashed && s.in_flight.is_none() {
                s.in_flight = Some((offset, data.to_vec()));
            }
            return Err(e);
        }
        apply(&mut s.view, offset, data);
        s.pending.push((offset, data.to_vec()));
        let len = data.len() as u64;
        s.log.push(DeviceCall::Write { offset, len });
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let mut s = self.state.borrow_mut();
        s.enter()?;
        s.durable = s.view.clone();
        s.pending.clear();
        s.log.push(DeviceCall::Flush);
        Ok(())
    }

    fn len(&mut self) -> Result<u64> {
        let s = self.state.borrow();
        if s.crashed {
            return Err(Error::Io("device crashed".into()));
        }
        Ok(s.view.len() as u64)
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        let mut s = self.state.borrow_mut();
        s.enter()?;
        s.view.resize(len as usize, 0);
        s.durable = s.view.clone();
        s.pending.clear();
        Ok(())
    }
}
