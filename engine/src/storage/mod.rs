//! The storage layer: devices, pages, the pager, copy-on-write B+trees and
//! the commit protocol. See `engine/FORMAT.md` for the on-disk format.
//!
//! - `device`: the [`Device`] trait and the memory, file and fault devices.
