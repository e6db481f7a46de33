//! The storage layer: devices, pages, the pager, copy-on-write B+trees and
//! the commit protocol. See `engine/FORMAT.md` for the on-disk format.
//!
//! - `device`: the [`Device`] trait and the memory and file devices.
//! - `fault`: the fault-injecting device for crash and fault tests.
//! - `fasthash`: the hasher of the in-memory page and tree maps.
//! - `format`: every on-disk constant, the checksum rule, the superblock.
//! - `node`: B+tree nodes, decoded and encoded.
//! - `pager`: device access, checksum verification, the node cache, poisoning.
//! - `alloc`: free page extents.
//! - `btree`: copy-on-write insert, remove and lookup.
//! - `cursor`: ordered iteration.
//! - `store`: the open store, snapshots, ranges.
//! - `txn`: the write transaction and spilling.
//! - `savepoint`: copy-on-write and undo-log savepoints.
//! - `commit`: the commit protocol, recovery, the free list on disk.
//! - `check`: validation.

mod alloc;
mod btree;
mod check;
mod commit;
mod cursor;
mod device;
pub(crate) mod fasthash;
mod fault;
pub mod format;
mod node;
mod pager;
mod savepoint;
mod store;
mod txn;
mod xxh64;

pub use check::{CheckReport, Problem};
pub use device::{Device, FileDevice, MemoryDevice};
pub use fault::{CrashMode, DeviceCall, FaultDevice, FaultHandle, FaultKind};
/// Key order without a library call per comparison (the SQL layer's key
/// sorts use it too, so sorted keys meet the trees in the trees' order).
pub(crate) use node::{cmp_keys, cmp_keys_from, key_prefix};
pub use pager::PagerStats;
pub use savepoint::Savepoint;
pub use store::{
    CommitMode, Compaction, Range, ReadTxn, Store, StoreOptions, TreeRead, Validation,
    COMPACT_PASSES, COMPACT_SLACK, DEFERRED_HELD_LIMIT, DEFERRED_HELD_RUNS,
};
pub use txn::{SortedSource, WriteTxn};
