//! The protocol's constants and message types (the tables of PROTOCOL.md).

use std::fmt;

/// First byte of every message.
pub const MAGIC: u8 = 0x54;
/// The protocol version this build speaks. Bumped on any change to the bytes;
/// see "Version rule" in PROTOCOL.md.
pub const PROTOCOL_VERSION: u8 = 1;
/// Largest message accepted (256 MiB): bounds what one malformed or hostile
/// message can make the owner allocate.
pub const MAX_MESSAGE_LEN: usize = 256 << 20;
/// Longest client id or transaction id, in bytes.
pub const MAX_ID_LEN: usize = 64;
/// Bytes of the envelope before the client id: magic, version, kind, epoch.
pub const ENVELOPE_PREFIX_LEN: usize = 1 + 1 + 1 + 4;

/// Message kinds. Requests go from a client to the owner, responses back.
/// The numbers are part of the wire format (PROTOCOL.md, "Kinds").
pub mod kind {
    pub const OPEN: u8 = 0x01;
    pub const EXEC: u8 = 0x02;
    pub const QUERY: u8 = 0x03;
    pub const PREPARE: u8 = 0x04;
    pub const RUN: u8 = 0x05;
    pub const FINALIZE: u8 = 0x06;
    pub const BATCH: u8 = 0x07;
    pub const BEGIN: u8 = 0x08;
    pub const COMMIT: u8 = 0x09;
    pub const ROLLBACK: u8 = 0x0A;
    pub const TXN_STATUS: u8 = 0x0B;
    pub const EXPORT: u8 = 0x0C;
    pub const CLOSE: u8 = 0x0D;
    pub const IMPORT: u8 = 0x0E;
    pub const CHECK: u8 = 0x0F;
    pub const SYNC: u8 = 0x10;
    pub const READY: u8 = 0x40;
    pub const OPENED: u8 = 0x41;
    pub const DONE: u8 = 0x42;
    pub const ROWS: u8 = 0x43;
    pub const PREPARED: u8 = 0x44;
    pub const BATCH_DONE: u8 = 0x45;
    pub const TXN_STATE: u8 = 0x46;
    pub const BYTES: u8 = 0x47;
    pub const FAILED: u8 = 0x48;
    pub const CHECKED: u8 = 0x49;

    /// Every kind with its name in PROTOCOL.md's table (checked by a test).
    pub const ALL: &[(&str, u8)] = &[
        ("OPEN", OPEN),
        ("EXEC", EXEC),
        ("QUERY", QUERY),
        ("PREPARE", PREPARE),
        ("RUN", RUN),
        ("FINALIZE", FINALIZE),
        ("BATCH", BATCH),
        ("BEGIN", BEGIN),
        ("COMMIT", COMMIT),
        ("ROLLBACK", ROLLBACK),
        ("TXN_STATUS", TXN_STATUS),
        ("EXPORT", EXPORT),
        ("CLOSE", CLOSE),
        ("IMPORT", IMPORT),
        ("CHECK", CHECK),
        ("SYNC", SYNC),
        ("READY", READY),
        ("OPENED", OPENED),
        ("DONE", DONE),
        ("ROWS", ROWS),
        ("PREPARED", PREPARED),
        ("BATCH_DONE", BATCH_DONE),
        ("TXN_STATE", TXN_STATE),
        ("BYTES", BYTES),
        ("FAILED", FAILED),
        ("CHECKED", CHECKED),
    ];
}

/// Value tags (PROTOCOL.md, "Values").
pub mod tag {
    pub const NULL: u8 = 0;
    pub const INTEGER: u8 = 1;
    pub const REAL: u8 = 2;
    pub const TEXT: u8 = 3;
    pub const BLOB: u8 = 4;

    /// Every tag with its name in PROTOCOL.md's table (checked by a test).
    pub const ALL: &[(&str, u8)] = &[
        ("NULL", NULL),
        ("INTEGER", INTEGER),
        ("REAL", REAL),
        ("TEXT", TEXT),
        ("BLOB", BLOB),
    ];
}

/// Parameter list tags.
pub mod params_tag {
    pub const NONE: u8 = 0;
    pub const POSITIONAL: u8 = 1;
    pub const NAMED: u8 = 2;
}

/// Error codes the protocol layer itself produces; engine errors carry the
/// engine's codes (`Error::code`) unchanged.
pub mod code {
    /// The bytes are not a valid message of this version.
    pub const MALFORMED_MESSAGE: &str = "MALFORMED_MESSAGE";
    /// The message is of a protocol version this owner does not speak.
    pub const PROTOCOL_VERSION: &str = "PROTOCOL_VERSION";
    /// The request was addressed to an earlier owner (epoch mismatch).
    pub const STALE_EPOCH: &str = "STALE_EPOCH";
    /// The request names a prepared statement or transaction that does not
    /// exist, or comes out of order.
    pub const MISUSE: &str = "MISUSE";
    /// The database is closed.
    pub const CLOSED: &str = "CLOSED";

    /// Every protocol-level code (PROTOCOL.md, "Error codes").
    pub const ALL: &[&str] = &[
        MALFORMED_MESSAGE,
        PROTOCOL_VERSION,
        STALE_EPOCH,
        MISUSE,
        CLOSED,
    ];
}

/// Who sent a message and which request it answers; present on every message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// The owner epoch the sender believes current (0 in a first `Open`).
    pub epoch: u32,
    /// The client the message comes from (request) or is for (response).
    pub client: String,
    /// Chosen by the client, unique among its requests in flight.
    pub request: u32,
}

/// A SQL value on the wire: the engine's own value, so parameters and
/// rows pass between the protocol and the engine without conversion.
pub type WireValue = tinyjoin_engine::Value;

/// Parameters bound to one statement: the engine's own (see [`WireValue`]).
pub use tinyjoin_engine::Params;

/// One statement of a batch.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchItem {
    pub sql: String,
    pub params: Params,
}

/// What a client asks of the owner.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Handshake: registers the client with the owner.
    Open,
    /// Runs every statement of `sql` (no parameters, no rows returned).
    Exec { txn: Option<String>, sql: String },
    /// Runs one statement and returns its rows.
    Query {
        txn: Option<String>,
        sql: String,
        params: Params,
    },
    /// Compiles a statement kept at the owner until `Finalize`.
    Prepare { sql: String },
    /// Runs a prepared statement.
    Run {
        txn: Option<String>,
        stmt: u32,
        params: Params,
    },
    /// Forgets a prepared statement.
    Finalize { stmt: u32 },
    /// Runs `items` as one transaction with id `txn`.
    Batch { txn: String, items: Vec<BatchItem> },
    /// Opens a client transaction with a client-chosen id.
    Begin { txn: String },
    /// Commits the client's open transaction `txn`.
    Commit { txn: String },
    /// Rolls back the client's open transaction `txn`.
    Rollback { txn: String },
    /// Asks whether transaction `txn` committed (answerable after failover).
    TxnStatus { txn: String },
    /// Asks for a consistent copy of the database file.
    Export,
    /// The client leaves; its open transaction is rolled back.
    Close,
    /// Replaces the database with `bytes` (a database file), after
    /// validating them fully.
    Import { bytes: Vec<u8> },
    /// Runs the full validation of the database (like SQLite's
    /// `integrity_check`) and reports every problem found.
    Check,
    /// Makes every commit so far durable (deferred commits wait for a
    /// flush; with the other commit modes there is nothing to do).
    Sync,
}

/// The rows and counters of one statement.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ResultSet {
    /// Shared with the statement's plan: answering does not copy the names.
    pub columns: std::rc::Rc<[String]>,
    /// Each row has exactly `columns.len()` values.
    pub rows: Vec<Vec<WireValue>>,
    pub changes: u64,
    pub last_insert_rowid: i64,
}

/// A typed failure: the stable code, a message a person can act on, and for
/// SQL errors the byte position in the statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    pub code: String,
    pub message: String,
    pub position: Option<u32>,
}

impl WireError {
    /// A protocol-level error with one of the [`code`] constants.
    pub fn new(code: &str, message: impl Into<String>) -> WireError {
        WireError {
            code: code.to_string(),
            message: message.into(),
            position: None,
        }
    }
}

impl From<&tinyjoin_engine::Error> for WireError {
    fn from(e: &tinyjoin_engine::Error) -> WireError {
        WireError {
            code: e.code().to_string(),
            message: e.to_string(),
            position: e.position().and_then(|p| u32::try_from(p).ok()),
        }
    }
}

/// One problem found by `CHECK`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckProblem {
    /// The page at fault (0 when no single page is).
    pub page: u64,
    pub detail: String,
}

/// The answer to `CHECK`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CheckSummary {
    pub problems: Vec<CheckProblem>,
    pub pages: u64,
    pub trees: u64,
    pub entries: u64,
    pub free_pages: u64,
}

/// What the owner sends.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    /// Broadcast when an owner starts listening; `owner` is its client id.
    Ready {
        owner: String,
    },
    /// Answer to `Open`.
    Opened {
        owner: String,
    },
    /// Success without rows.
    Done,
    Rows(ResultSet),
    Prepared {
        stmt: u32,
        param_count: u32,
        columns: Vec<String>,
    },
    BatchDone(Vec<ResultSet>),
    TxnState {
        committed: bool,
    },
    Bytes(Vec<u8>),
    Failed(WireError),
    Checked(CheckSummary),
}

/// A message that could not be decoded. `envelope` is set when the header was
/// readable, so the owner can still answer the sender.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub envelope: Option<Envelope>,
    pub error: WireError,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.error.code, self.error.message)
    }
}
