//! TinyJoin's browser worker crate.
//!
//! - `protocol`: the wire protocol between clients and the owner Worker
//!   (spec: `worker/PROTOCOL.md`).
//! - `opfs` (wasm32 only): the OPFS [`tinyjoin_engine::storage::Device`] over a
//!   `FileSystemSyncAccessHandle`.
//! - `owner`: the owner's request loop over the engine (serialized write
//!   transactions, commit records, epochs), driven by protocol bytes.
//! - `direct`: the in-worker API's calls through two buffers in wasm memory.
//! - `device_contract`: the Device contract checks, run natively against the
//!   memory device and in a real browser Worker against OPFS.
//! - `warm_up`: what an owner runs so that V8 compiles common code early:
//!   a statement as it opens, writes on a scratch database just after.
//! - `allocator`: the wasm build's global allocator (size-class free lists
//!   in front of dlmalloc), tested natively over the system allocator.
//!
//! Logic lives in plain Rust modules that run natively in tests; the
//! wasm-bindgen exports only convert arguments and delegate.

// Natively only the tests use it; the wasm build installs it below.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod allocator;
pub mod device_contract;
pub mod direct;
#[cfg(target_arch = "wasm32")]
mod opfs;
pub mod owner;
pub mod protocol;
pub mod warm_up;

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: allocator::WasmAllocator = allocator::WasmAllocator::new();

#[cfg(target_arch = "wasm32")]
mod bindings {
    //! The wasm-bindgen exports: argument conversion and delegation only.
    use tinyjoin_engine::storage::{CommitMode, Validation};
    use wasm_bindgen::prelude::*;
    use web_sys::FileSystemSyncAccessHandle;

    /// Converts an engine error into the `{ code, message }` object the
    /// TypeScript side expects (owner-runtime.ts, `wasmError`).
    fn js_error(e: &tinyjoin_engine::Error) -> JsValue {
        let o = js_sys::Object::new();
        // Setting a property on a fresh plain object cannot fail.
        let _ = js_sys::Reflect::set(&o, &"code".into(), &e.code().into());
        let _ = js_sys::Reflect::set(&o, &"message".into(), &e.to_string().into());
        o.into()
    }

    fn options(
        batch_limit_bytes: f64,
        validation: &str,
        cache_pages: u32,
        commit: &str,
    ) -> crate::owner::OwnerOptions {
        let validation = if validation == "quick" {
            Validation::Quick
        } else {
            Validation::Full
        };
        let commit = match commit {
            "two-flush" => CommitMode::TwoFlush,
            "deferred" => CommitMode::Deferred,
            _ => CommitMode::OneFlush,
        };
        crate::owner::OwnerOptions {
            batch_limit_bytes: batch_limit_bytes as u64,
            validation,
            cache_pages: cache_pages as usize,
            commit,
        }
    }

    /// The owner of one database (worker/src/owner.rs), for owner-runtime.ts.
    #[wasm_bindgen]
    pub struct Owner {
        inner: crate::owner::Owner,
        direct: crate::direct::DirectBuffers,
        /// The write warm-up under way (`warmUpWrites`).
        writes: Option<crate::warm_up::WriteWarmUp>,
    }

    #[wasm_bindgen]
    impl Owner {
        /// Opens (creating if empty) the database in an OPFS file; `temp`, an
        /// OPFS file of its own, is the scratch space of sorts that outgrow
        /// the batch limit. `commit` is "two-flush", "one-flush" or
        /// "deferred".
        #[wasm_bindgen(js_name = openOpfs)]
        pub fn open_opfs(
            handle: FileSystemSyncAccessHandle,
            temp: Option<FileSystemSyncAccessHandle>,
            client: &str,
            batch_limit_bytes: f64,
            validation: &str,
            cache_pages: u32,
            commit: &str,
        ) -> Result<Owner, JsValue> {
            let dev = Box::new(crate::opfs::OpfsDevice::new(handle));
            let temp = temp.map(|t| {
                let d: Box<dyn tinyjoin_engine::storage::Device> =
                    Box::new(crate::opfs::OpfsDevice::new(t));
                d
            });
            let inner = crate::owner::Owner::open_with_temp(
                dev,
                temp,
                client,
                &options(batch_limit_bytes, validation, cache_pages, commit),
            )
            .map_err(|e| js_error(&e))?;
            Ok(Owner {
                inner,
                direct: Default::default(),
                writes: None,
            })
        }

        /// Opens an empty in-memory database.
        #[wasm_bindgen(js_name = openMemory)]
        pub fn open_memory(
            client: &str,
            batch_limit_bytes: f64,
            cache_pages: u32,
        ) -> Result<Owner, JsValue> {
            let inner = crate::owner::Owner::open_memory(
                client,
                &options(batch_limit_bytes, "full", cache_pages, "two-flush"),
            )
            .map_err(|e| js_error(&e))?;
            Ok(Owner {
                inner,
                direct: Default::default(),
                writes: None,
            })
        }

        /// Commit records on or off (`Owner::set_record_commits`).
        #[wasm_bindgen(js_name = recordCommits)]
        pub fn record_commits(&mut self, on: bool) {
            self.inner.set_record_commits(on);
        }

        #[wasm_bindgen(getter)]
        pub fn epoch(&self) -> u32 {
            self.inner.epoch()
        }

        /// Makes deferred commits durable (one flush); throws `{ code, message }`.
        pub fn sync(&mut self) -> Result<(), JsValue> {
            self.inner.sync().map_err(|e| js_error(&e))
        }

        /// Whether a deferred commit waits for `sync`.
        #[wasm_bindgen(js_name = needsSync)]
        pub fn needs_sync(&self) -> bool {
            self.inner.needs_sync()
        }

        pub fn ready(&self) -> Vec<u8> {
            self.inner.ready()
        }

        pub fn handle(&mut self, bytes: &[u8]) -> Vec<u8> {
            crate::owner::encode_replies(&self.inner.handle(bytes))
        }

        /// Runs `warm_up::SQL` as a direct call (`direct`) or as a message
        /// of this tab's client; true when it answered rows.
        #[wasm_bindgen(js_name = warmUp)]
        pub fn warm_up(&mut self, direct: bool) -> bool {
            crate::warm_up::run(&mut self.inner, &mut self.direct, direct)
        }

        /// Runs the next group of the write warm-up
        /// (`warm_up::WriteWarmUp`), on a scratch database; true while
        /// groups remain.
        #[wasm_bindgen(js_name = warmUpWrites)]
        pub fn warm_up_writes(&mut self) -> bool {
            let more = match &mut self.writes {
                Some(w) => w.step(),
                None => match crate::warm_up::WriteWarmUp::new(&self.inner) {
                    Ok(w) => self.writes.insert(w).step(),
                    Err(_) => false,
                },
            };
            if !more {
                self.writes = None;
            }
            more
        }

        /// The address of the direct calls' input buffer, at least `len`
        /// bytes long (`direct::DirectBuffers`). It stays valid until a
        /// later call asks for more.
        #[wasm_bindgen(js_name = inputBuffer)]
        pub fn input_buffer(&mut self, len: usize) -> *mut u8 {
            self.direct.input_for(len).as_mut_ptr()
        }

        /// The size of the input buffer `inputBuffer` handed out.
        #[wasm_bindgen(js_name = inputCapacity)]
        pub fn input_capacity(&self) -> usize {
            self.direct.input.len()
        }

        /// The in-worker API's direct call (`direct::serve`): request
        /// `kind` with its fields in the input buffer. Returns the address
        /// of the answer (a `u32` length, then the response's kind byte and
        /// body), valid until the next call into the module, or 0 when the
        /// request must go as a message instead (`Owner::call_local`).
        #[wasm_bindgen(js_name = directIn)]
        pub fn direct_in(
            &mut self,
            kind: u8,
            txn_len: i32,
            sql_len: usize,
            stmt: u32,
            params_len: usize,
        ) -> *const u8 {
            let served = crate::direct::serve(
                &mut self.inner,
                &mut self.direct,
                kind,
                txn_len,
                sql_len,
                stmt,
                params_len,
            );
            if served {
                self.direct.output.as_ptr()
            } else {
                std::ptr::null()
            }
        }

        /// Opens the file the Worker wrote an import into (a reply of route
        /// 3); throws `{ code, message }` if it does not open and check clean.
        #[wasm_bindgen(js_name = stageImport)]
        pub fn stage_import(&mut self, handle: FileSystemSyncAccessHandle) -> Result<(), JsValue> {
            let dev = Box::new(crate::opfs::OpfsDevice::new(handle));
            self.inner.stage_import(dev).map_err(|e| js_error(&e))
        }

        /// The manifest names the staged file: swap it in.
        #[wasm_bindgen(js_name = finishImport)]
        pub fn finish_import(&mut self) -> Vec<u8> {
            crate::owner::encode_replies(&self.inner.finish_import())
        }

        /// The import failed with `code`/`message`; `poison` when the
        /// manifest switch itself failed.
        #[wasm_bindgen(js_name = abortImport)]
        pub fn abort_import(&mut self, code: &str, message: &str, poison: bool) -> Vec<u8> {
            let e = crate::protocol::WireError::new(code, message);
            crate::owner::encode_replies(&self.inner.abort_import(e, poison))
        }

        #[wasm_bindgen(js_name = clientGone)]
        pub fn client_gone(&mut self, client: &str) -> Vec<u8> {
            crate::owner::encode_replies(&self.inner.client_gone(client))
        }
    }

    /// Runs the Device contract checks against an OPFS file (which must be
    /// empty) through the real OPFS device; returns the number of checks
    /// passed or throws a message naming the first failure.
    #[wasm_bindgen(js_name = deviceContract)]
    pub fn device_contract(handle: FileSystemSyncAccessHandle) -> Result<u32, JsValue> {
        let mut dev = crate::opfs::OpfsDevice::new(handle);
        crate::device_contract::run(&mut dev).map_err(|m| JsValue::from(js_sys::Error::new(&m)))
    }
}
