//! TinyJoin's browser worker crate.
//!
//! - `protocol`: the wire protocol between clients and the owner Worker
//!   (spec: `worker/PROTOCOL.md`).
//! - `opfs` (wasm32 only): the OPFS [`tinyjoin_engine::storage::Device`] over a
//!   `FileSystemSyncAccessHandle`.
//! - `owner`: the owner's request loop over the engine (serialized write
//!   transactions, commit records, epochs), driven by protocol bytes.
//! - `device_contract`: the Device contract checks, run natively against the
//!   memory device and in a real browser Worker against OPFS.
//!
//! Logic lives in plain Rust modules that run natively in tests; the
//! wasm-bindgen exports only convert arguments and delegate.

pub mod device_contract;
#[cfg(target_arch = "wasm32")]
mod opfs;
pub mod protocol;

#[cfg(target_arch = "wasm32")]
mod bindings {
    //! The wasm-bindgen exports: argument conversion and delegation only.
    use wasm_bindgen::prelude::*;
    use web_sys::FileSystemSyncAccessHandle;

    /// Runs the Device contract checks against an OPFS file (which must be
    /// empty) through the real OPFS device; returns the number of checks
    /// passed or throws a message naming the first failure.
    #[wasm_bindgen(js_name = deviceContract)]
    pub fn device_contract(handle: FileSystemSyncAccessHandle) -> Result<u32, JsValue> {
        let mut dev = crate::opfs::OpfsDevice::new(handle);
        crate::device_contract::run(&mut dev).map_err(|m| JsValue::from(js_sys::Error::new(&m)))
    }
}
