//! The [`Device`] trait, the seam between the pager and whatever holds the
//! bytes, and its two plain implementations: [`MemoryDevice`] and
//! [`FileDevice`]. The fault-injecting device for tests lives in `fault`.
//!
//! Contract every implementation keeps (the contract suite in
//! `tests/device_contract.rs` runs against each):
//! - `read_at` fills the whole buffer; bytes past the end read as zeros.
//! - `write_at` past the end grows the device; any gap reads as zeros.
//! - A write is durable only after a later `flush` returns `Ok`. Before that a
//!   crash may keep it, drop it, or (for a write spanning several pages) keep
//!   any subset of its 4 KiB pages, or tear one page.
//! - An error from `write_at` or `flush` leaves the durable state unknown for
//!   the writes since the last successful flush; the pager poisons itself.

use crate::{Error, Result};
use std::cell::RefCell;
use std::fs::File;
use std::rc::Rc;

/// A byte-addressed, flushable store: the only way the engine touches storage.
#[allow(clippy::len_without_is_empty)] // a device's length is a size, not a collection's
pub trait Device {
    /// Reads `buf.len()` bytes at `offset`; bytes past the end read as zeros.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()>;
    /// Writes `data` at `offset`, growing the device if needed.
    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<()>;
    /// Makes every write so far durable.
    fn flush(&mut self) -> Result<()>;
    /// The current length in bytes.
    fn len(&mut self) -> Result<u64>;
    /// Sets the length (shrinking or zero-extending).
    fn truncate(&mut self, len: u64) -> Result<()>;
}

/// Converts a device offset to an in-memory index, refusing what does not fit.
pub(crate) fn mem_index(offset: u64, len: usize) -> Result<(usize, usize)> {
    let start =
        usize::try_from(offset).map_err(|_| Error::Io(format!("offset {offset} out of range")))?;
    let end = start
        .checked_add(len)
        .ok_or_else(|| Error::Io(format!("range at {offset} overflows")))?;
    Ok((start, end))
}

/// A device in memory. Clones share the same bytes, so a test can keep a
/// handle and inspect or reopen what the engine wrote.
#[derive(Clone, Default)]
pub struct MemoryDevice {
    bytes: Rc<RefCell<Vec<u8>>>,
}

impl MemoryDevice {
    /// An empty device.
    pub fn new() -> MemoryDevice {
        MemoryDevice::default()
    }

    /// A device holding a copy of `bytes`.
    pub fn from_bytes(bytes: Vec<u8>) -> MemoryDevice {
        MemoryDevice {
            bytes: Rc::new(RefCell::new(bytes)),
        }
    }

    /// A copy of the current bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bytes.borrow().clone()
    }
}

impl Device for MemoryDevice {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let bytes = self.bytes.borrow();
        let (start, _) = mem_index(offset, buf.len())?;
        buf.fill(0);
        if start < bytes.len() {
            let n = buf.len().min(bytes.len() - start);
            buf[..n].copy_from_slice(&bytes[start..start + n]);
        }
        Ok(())
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        let mut bytes = self.bytes.borrow_mut();
        let (start, end) = mem_index(offset, data.len())?;
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        bytes[start..end].copy_from_slice(data);
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        Ok(())
    }

    fn len(&mut self) -> Result<u64> {
        Ok(self.bytes.borrow().len() as u64)
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        let (n, _) = mem_index(len, 0)?;
        self.bytes.borrow_mut().resize(n, 0);
        Ok(())
    }
}

/// A device over a `std::fs::File`; `flush` is `sync_data`.
pub struct FileDevice {
    file: File,
}

impl FileDevice {
    /// Opens (creating if missing) the file at `path` for reading and writing.
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<FileDevice> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path.as_ref())
            .map_err(io_error)?;
        Ok(FileDevice { file })
    }
}

/// Maps an OS error to the engine's: "no space" becomes [`Error::DiskFull`].
fn io_error(e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::StorageFull {
        Error::DiskFull
    } else {
        Error::Io(e.to_string())
    }
}

#[cfg(unix)]
impl Device for FileDevice {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()> {
        use std::os::unix::fs::FileExt;
        let mut done = 0;
        while done < buf.len() {
            let n = self
                .file
                .read_at(&mut buf[done..], offset + done as u64)
                .map_err(io_error)?;
            if n == 0 {
                buf[done..].fill(0);
                break;
            }
            done += n;
        }
        Ok(())
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        use std::os::unix::fs::FileExt;
        self.file.write_all_at(data, offset).map_err(io_error)
    }

    fn flush(&mut self) -> Result<()> {
        self.file.sync_data().map_err(io_error)
    }

    fn len(&mut self) -> Result<u64> {
        Ok(self.file.metadata().map_err(io_error)?.len())
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        self.file.set_len(len).map_err(io_error)
    }
}

#[cfg(not(unix))]
impl Device for FileDevice {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        self.file.seek(SeekFrom::Start(offset)).map_err(io_error)?;
        let mut done = 0;
        while done < buf.len() {
            let n = self.file.read(&mut buf[done..]).map_err(io_error)?;
            if n == 0 {
                buf[done..].fill(0);
                break;
            }
            done += n;
        }
        Ok(())
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        use std::io::{Seek, SeekFrom, Write};
        self.file.seek(SeekFrom::Start(offset)).map_err(io_error)?;
        self.file.write_all(data).map_err(io_error)
    }

    fn flush(&mut self) -> Result<()> {
        self.file.sync_data().map_err(io_error)
    }

    fn len(&mut self) -> Result<u64> {
        Ok(self.file.metadata().map_err(io_error)?.len())
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        self.file.set_len(len).map_err(io_error)
    }
}
