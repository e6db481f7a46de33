//! TinyJoin's browser worker crate.
//!
//! - `protocol`: the wire protocol between clients and the owner Worker
//!   (spec: `worker/PROTOCOL.md`).
//! - `opfs` (wasm32 only): the OPFS [`tinyjoin_engine::storage::Device`] over a
//!   `FileSystemSyncAccessHandle`.
//! - `device_contract`: the Device contract checks, run natively against the
//!   memory device and in a real browser Worker against OPFS.
//!
//! Logic lives in plain Rust modules that run natively in tests; the
//! wasm-bindgen exports only convert arguments and delegate.

pub mod protocol;
