//! TinyJoin's engine: a crash-safe, checksummed copy-on-write B+tree file
//! ([`storage`]) and a SQLite-dialect SQL engine on top of it ([`sql`]),
//! exposed through the API in [`db`]. Pure Rust, no web dependencies: the
//! browser worker links this crate and supplies an OPFS [`storage::Device`].
#![deny(unsafe_code)]

pub mod db;
pub mod error;
pub mod slt;
pub mod sql;
pub mod storage;

pub use db::{Connection, Database, DbOptions, Params, QueryResult, Statement, Value};
pub use error::{ConstraintKind, Error, Result};
