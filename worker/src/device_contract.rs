//! The [`Device`] contract as a runnable check, so one suite runs against
//! every implementation: natively against the engine's memory device (the
//! tests below) and in a real browser Worker against the OPFS device (the
//! wasm export `deviceContract`, driven by `scripts/test-browser`).
//!
//! The contract (engine/src/storage/device.rs): `read_at` fills the whole
//! buffer and bytes past the end read as zeros; `write_at` past the end grows
//! the device and any gap reads as zeros; `truncate` shrinks or zero-extends;
//! `len` reports the length; `flush` succeeds on a healthy device.

use tinyjoin_engine::storage::Device;

/// Runs every check on `dev`, which must be empty. Returns the number of
/// checks passed, or a message naming the first that failed. Leaves the
/// device empty again.
pub fn run(dev: &mut dyn Device) -> Result<u32, String> {
    let mut c = Checker { dev, passed: 0 };
    c.empty_device()?;
    c.write_then_read()?;
    c.gap_reads_as_zeros()?;
    c.overwrite_in_place()?;
    c.read_straddling_the_end()?;
    c.truncate_shrinks_and_extends()?;
    c.large_write_read_in_pieces()?;
    c.empty_calls()?;
    c.call("truncate(0)", |d| d.truncate(0))?;
    c.expect_len(0)?;
    Ok(c.passed)
}

struct Checker<'a> {
    dev: &'a mut dyn Device,
    passed: u32,
}

/// A byte pattern that differs at every offset within a page and between
/// pages, so a misplaced read cannot match by accident.
fn pattern(offset: u64, len: usize, seed: u8) -> Vec<u8> {
    (0..len as u64)
        .map(|i| ((offset + i).wrapping_mul(31) >> 3) as u8 ^ seed)
        .collect()
}

impl Checker<'_> {
    fn call<T>(
        &mut self,
        what: &str,
        f: impl FnOnce(&mut dyn Device) -> tinyjoin_engine::Result<T>,
    ) -> Result<T, String> {
        f(&mut *self.dev).map_err(|e| format!("{what} failed: {e} ({})", e.code()))
    }
    fn read(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, String> {
        let mut buf = vec![0xAAu8; len];
        self.call(&format!("read_at({offset}, {len})"), |d| {
            d.read_at(offset, &mut buf)
        })?;
        Ok(buf)
    }
    fn expect_read(&mut self, offset: u64, want: &[u8], check: &str) -> Result<(), String> {
        let got = self.read(offset, want.len())?;
        if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
            return Err(format!(
                "{check}: byte {} (offset {}) is {:#04x}, expected {:#04x}",
                i,
                offset + i as u64,
                got[i],
                want[i]
            ));
        }
        Ok(())
    }
    fn expect_len(&mut self, want: u64) -> Result<(), String> {
        let got = self.call("len()", |d| d.len())?;
        if got != want {
            return Err(format!("len() is {got}, expected {want}"));
        }
        self.passed += 1;
        Ok(())
    }
    fn write(&mut self, offset: u64, data: &[u8]) -> Result<(), String> {
        self.call(&format!("write_at({offset}, {} bytes)", data.len()), |d| {
            d.write_at(offset, data)
        })
    }

    fn empty_device(&mut self) -> Result<(), String> {
        self.expect_len(0)?;
        self.expect_read(0, &[0; 4096], "reading an empty device")?;
        self.expect_read(1 << 20, &[0; 100], "reading far past the end")?;
        self.passed += 1;
        Ok(())
    }
    fn write_then_read(&mut self) -> Result<(), String> {
        let data = pattern(0, 5000, 1);
        self.write(0, &data)?;
        self.expect_read(0, &data, "read after write")?;
        self.expect_len(5000)?;
        self.call("flush()", |d| d.flush())?;
        self.expect_read(0, &data, "read after flush")?;
        self.passed += 1;
        Ok(())
    }
    fn gap_reads_as_zeros(&mut self) -> Result<(), String> {
        let data = pattern(12288, 4096, 2);
        self.write(12288, &data)?;
        self.expect_len(16384)?;
        self.expect_read(
            5000,
            &vec![0; 12288 - 5000],
            "the gap left by a write past the end",
        )?;
        self.expect_read(12288, &data, "the write past the end")?;
        self.passed += 1;
        Ok(())
    }
    fn overwrite_in_place(&mut self) -> Result<(), String> {
        let data = pattern(4090, 20, 3);
        self.write(4090, &data)?;
        let mut want = pattern(0, 5000, 1);
        want[4090..4110].copy_from_slice(&data);
        self.expect_read(0, &want, "an overwrite across a page boundary")?;
        self.expect_len(16384)?;
        self.passed += 1;
        Ok(())
    }
    fn read_straddling_the_end(&mut self) -> Result<(), String> {
        let mut want = pattern(12288, 4096, 2)[2048..].to_vec();
        want.extend_from_slice(&[0; 2048]);
        self.expect_read(14336, &want, "a read straddling the end")?;
        self.passed += 1;
        Ok(())
    }
    fn truncate_shrinks_and_extends(&mut self) -> Result<(), String> {
        self.call("truncate(4096)", |d| d.truncate(4096))?;
        self.expect_len(4096)?;
        self.expect_read(4096, &[0; 4096], "bytes cut by truncate")?;
        self.call("truncate(10000)", |d| d.truncate(10000))?;
        self.expect_len(10000)?;
        self.expect_read(4096, &vec![0; 5904], "bytes added by truncate")?;
        self.expect_read(0, &pattern(0, 4090, 1), "bytes kept by truncate")?;
        self.passed += 1;
        Ok(())
    }
    fn large_write_read_in_pieces(&mut self) -> Result<(), String> {
        let base = 3 * 4096 + 17;
        let data = pattern(base, 1 << 20, 4);
        self.write(base, &data)?;
        self.call("flush()", |d| d.flush())?;
        for (start, len) in [
            (0usize, 4096usize),
            (4095, 8193),
            (500_000, 65_536),
            ((1 << 20) - 10, 10),
        ] {
            self.expect_read(
                base + start as u64,
                &data[start..start + len],
                "a piece of a 1 MiB write",
            )?;
        }
        self.expect_len(base + (1 << 20))?;
        self.passed += 1;
        Ok(())
    }
    fn empty_calls(&mut self) -> Result<(), String> {
        // Zero-length calls succeed; whether an empty write past the end grows
        // the device is left open by the contract, so it is made at the end.
        let len = self.call("len()", |d| d.len())?;
        self.write(len, &[])?;
        self.read(len + 100, 0)?;
        self.expect_len(len)?;
        self.passed += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use tinyjoin_engine::storage::MemoryDevice;

    #[test]
    fn memory_device_keeps_the_contract() {
        let passed = super::run(&mut MemoryDevice::new()).expect("contract");
        assert!(passed > 10, "{passed}");
    }

    /// The suite can fail: a device that forgets to zero-fill is caught.
    #[test]
    fn a_broken_device_fails_the_contract() {
        struct NoZeroFill(MemoryDevice);
        impl tinyjoin_engine::storage::Device for NoZeroFill {
            fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tinyjoin_engine::Result<()> {
                let len = self.0.len()?;
                if offset + buf.len() as u64 > len {
                    return Ok(()); // leaves the caller's bytes in place: the bug
                }
                self.0.read_at(offset, buf)
            }
            fn write_at(&mut self, offset: u64, data: &[u8]) -> tinyjoin_engine::Result<()> {
                self.0.write_at(offset, data)
            }
            fn flush(&mut self) -> tinyjoin_engine::Result<()> {
                self.0.flush()
            }
            fn len(&mut self) -> tinyjoin_engine::Result<u64> {
                self.0.len()
            }
            fn truncate(&mut self, len: u64) -> tinyjoin_engine::Result<()> {
                self.0.truncate(len)
            }
        }
        let err = super::run(&mut NoZeroFill(MemoryDevice::new())).unwrap_err();
        assert!(err.contains("empty device"), "{err}");
    }
}
