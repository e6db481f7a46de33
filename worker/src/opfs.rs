//! The OPFS [`Device`]: a database file in the origin private file system,
//! accessed through a `FileSystemSyncAccessHandle` held by the owner Worker.
//!
//! Why a sync access handle: it is the only OPFS API with synchronous,
//! in-place reads and writes at an offset, and it is exclusive — while one
//! Worker holds it no other context can open the file, which is what makes the
//! single-owner design safe (DESIGN.md, "Browser runtime").
//!
//! Mapping of the contract (engine/src/storage/device.rs):
//! - `read_at`: `read(buf, {at})` returns how many bytes it read; the rest of
//!   the buffer (past the end of the file) is zero-filled here.
//! - `write_at`: `write(data, {at})`; a write past the end extends the file and
//!   OPFS fills the gap with zeros. A short write is an `Io` error.
//! - `flush`: `flush()`; only then are writes durable.
//! - `len` / `truncate`: `getSize()` / `truncate(len)`.
//! - A `QuotaExceededError` from any call becomes [`Error::DiskFull`] (code
//!   `QUOTA_EXCEEDED`); any other exception becomes [`Error::Io`] carrying the
//!   exception's name and message.
//!
//! Offsets cross to JavaScript as `f64`, exact below 2^53 bytes; larger
//! offsets are refused with `Io` rather than silently rounded.

use tinyjoin_engine::storage::Device;
use tinyjoin_engine::{Error, Result};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DomException, FileSystemReadWriteOptions, FileSystemSyncAccessHandle};

/// Largest offset a JavaScript number represents exactly.
const MAX_SAFE_OFFSET: u64 = (1 << 53) - 1;

/// A [`Device`] over an OPFS sync access handle. Closing the handle is the
/// caller's business (the Worker closes it when the database closes), so a
/// device can be dropped and the handle reused, as the contract test does.
pub struct OpfsDevice {
    handle: FileSystemSyncAccessHandle,
}

impl OpfsDevice {
    /// Wraps an open handle.
    pub fn new(handle: FileSystemSyncAccessHandle) -> OpfsDevice {
        OpfsDevice { handle }
    }
}

/// Maps a JavaScript exception to the engine's error.
fn js_error(op: &str, e: JsValue) -> Error {
    if let Some(dom) = e.dyn_ref::<DomException>() {
        if dom.name() == "QuotaExceededError" {
            return Error::DiskFull;
        }
        return Error::Io(format!("OPFS {op}: {}: {}", dom.name(), dom.message()));
    }
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return Error::Io(format!(
            "OPFS {op}: {}: {}",
            String::from(err.name()),
            String::from(err.message())
        ));
    }
    Error::Io(format!("OPFS {op}: {e:?}"))
}

fn at(offset: u64, len: usize) -> Result<FileSystemReadWriteOptions> {
    if offset.saturating_add(len as u64) > MAX_SAFE_OFFSET {
        return Err(Error::Io(format!(
            "offset {offset} + {len} is beyond what OPFS can address exactly"
        )));
    }
    let opts = FileSystemReadWriteOptions::new();
    opts.set_at(offset as f64);
    Ok(opts)
}

impl Device for OpfsDevice {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let opts = at(offset, buf.len())?;
        let n = self
            .handle
            .read_with_u8_array_and_options(buf, &opts)
            .map_err(|e| js_error("read", e))?;
        let n = (n.max(0.0) as usize).min(buf.len());
        buf[n..].fill(0);
        Ok(())
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let opts = at(offset, data.len())?;
        let n = self
            .handle
            .write_with_u8_array_and_options(data, &opts)
            .map_err(|e| js_error("write", e))?;
        if n as usize != data.len() {
            return Err(Error::Io(format!(
                "OPFS write at {offset} wrote {n} of {} bytes",
                data.len()
            )));
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.handle.flush().map_err(|e| js_error("flush", e))
    }

    fn len(&mut self) -> Result<u64> {
        let n = self.handle.get_size().map_err(|e| js_error("getSize", e))?;
        Ok(n as u64)
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        at(len, 0)?;
        self.handle
            .truncate_with_f64(len as f64)
            .map_err(|e| js_error("truncate", e))
    }
}
