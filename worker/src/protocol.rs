//! The wire protocol between a TinyJoin client and the owner Worker: the bytes
//! that cross `postMessage` (owner's own tab) and the `BroadcastChannel`
//! (follower tabs). `worker/PROTOCOL.md` is the normative spec; this module is
//! its one Rust mirror and `client-ts/src/protocol.ts` its one TypeScript
//! mirror (tests on both sides compare each mirror with the spec and with the
//! golden vectors in `worker/protocol-vectors.txt`).
//!
//! Invariants:
//! - Every message starts with the same envelope layout, in every protocol
//!   version: magic, version, kind, epoch, client id, request id. A receiver
//!   that cannot understand a version can still read who asked and answer
//!   with a typed `PROTOCOL_VERSION` error.
//! - Messages come from other tabs and are untrusted. Decoding checks every
//!   length and count against the bytes that remain before allocating, never
//!   panics, and rejects trailing bytes. A malformed message yields a
//!   [`DecodeError`] that still carries the envelope when it was readable, so
//!   the owner can answer the sender instead of going silent.
//! - Integers are little-endian, fixed width; strings are UTF-8 with a `u32`
//!   byte length. Fixed widths keep the TypeScript decoder a handful of
//!   `DataView` calls; values are tagged, so a row of small numbers costs
//!   9 bytes per value, which is cheap next to one JS call per value.

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

/// A SQL value on the wire.
#[derive(Clone, Debug, PartialEq)]
pub enum WireValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// Parameters bound to one statement.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Params {
    #[default]
    None,
    Positional(Vec<WireValue>),
    Named(Vec<(String, WireValue)>),
}

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
}

/// The rows and counters of one statement.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ResultSet {
    pub columns: Vec<String>,
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

/// Appends protocol primitives to a buffer.
#[derive(Default)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// Starts a message with its envelope.
    pub fn message(kind: u8, env: &Envelope) -> Writer {
        let mut w = Writer {
            buf: Vec::with_capacity(64),
        };
        w.u8(MAGIC);
        w.u8(PROTOCOL_VERSION);
        w.u8(kind);
        w.u32(env.epoch);
        w.short_str(&env.client);
        w.u32(env.request);
        w
    }
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// A length that must fit the wire's `u32`; lengths come from data the
    /// owner holds in memory, far below 4 GiB on wasm32.
    pub fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.buf.extend_from_slice(b);
    }
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    /// An id (client or transaction): `u8` length, at most [`MAX_ID_LEN`].
    pub fn short_str(&mut self, s: &str) {
        let b = &s.as_bytes()[..s.len().min(MAX_ID_LEN)];
        self.u8(b.len() as u8);
        self.buf.extend_from_slice(b);
    }
    pub fn opt_short_str(&mut self, s: Option<&str>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.short_str(s);
            }
        }
    }
    pub fn null(&mut self) {
        self.u8(tag::NULL);
    }
    pub fn integer(&mut self, v: i64) {
        self.u8(tag::INTEGER);
        self.i64(v);
    }
    pub fn real(&mut self, v: f64) {
        self.u8(tag::REAL);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn text(&mut self, s: &str) {
        self.u8(tag::TEXT);
        self.str(s);
    }
    pub fn blob(&mut self, b: &[u8]) {
        self.u8(tag::BLOB);
        self.bytes(b);
    }
    pub fn value(&mut self, v: &WireValue) {
        match v {
            WireValue::Null => self.null(),
            WireValue::Integer(i) => self.integer(*i),
            WireValue::Real(r) => self.real(*r),
            WireValue::Text(s) => self.text(s),
            WireValue::Blob(b) => self.blob(b),
        }
    }
    pub fn params(&mut self, p: &Params) {
        match p {
            Params::None => self.u8(params_tag::NONE),
            Params::Positional(vs) => {
                self.u8(params_tag::POSITIONAL);
                self.len(vs.len());
                vs.iter().for_each(|v| self.value(v));
            }
            Params::Named(vs) => {
                self.u8(params_tag::NAMED);
                self.len(vs.len());
                for (name, v) in vs {
                    self.str(name);
                    self.value(v);
                }
            }
        }
    }
    /// Column names of a result set; rows follow with [`Writer::row_count`].
    pub fn columns(&mut self, cols: &[String]) {
        self.len(cols.len());
        cols.iter().for_each(|c| self.str(c));
    }
    pub fn row_count(&mut self, n: usize) {
        self.len(n);
    }
    pub fn result_set(&mut self, rs: &ResultSet) {
        self.columns(&rs.columns);
        self.row_count(rs.rows.len());
        rs.rows.iter().flatten().for_each(|v| self.value(v));
        self.u64(rs.changes);
        self.i64(rs.last_insert_rowid);
    }
    pub fn error(&mut self, e: &WireError) {
        self.str(&e.code);
        self.str(&e.message);
        match e.position {
            None => self.u8(0),
            Some(p) => {
                self.u8(1);
                self.u32(p);
            }
        }
    }
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

/// Encodes a request.
pub fn encode_request(env: &Envelope, req: &Request) -> Vec<u8> {
    let mut w = Writer::message(request_kind(req), env);
    match req {
        Request::Open | Request::Export | Request::Close | Request::Check => {}
        Request::Exec { txn, sql } => {
            w.opt_short_str(txn.as_deref());
            w.str(sql);
        }
        Request::Query { txn, sql, params } => {
            w.opt_short_str(txn.as_deref());
            w.str(sql);
            w.params(params);
        }
        Request::Prepare { sql } => w.str(sql),
        Request::Run { txn, stmt, params } => {
            w.opt_short_str(txn.as_deref());
            w.u32(*stmt);
            w.params(params);
        }
        Request::Finalize { stmt } => w.u32(*stmt),
        Request::Import { bytes } => w.bytes(bytes),
        Request::Batch { txn, items } => {
            w.short_str(txn);
            w.len(items.len());
            for item in items {
                w.str(&item.sql);
                w.params(&item.params);
            }
        }
        Request::Begin { txn }
        | Request::Commit { txn }
        | Request::Rollback { txn }
        | Request::TxnStatus { txn } => w.short_str(txn),
    }
    w.finish()
}

/// The kind byte of a request.
pub fn request_kind(req: &Request) -> u8 {
    match req {
        Request::Open => kind::OPEN,
        Request::Exec { .. } => kind::EXEC,
        Request::Query { .. } => kind::QUERY,
        Request::Prepare { .. } => kind::PREPARE,
        Request::Run { .. } => kind::RUN,
        Request::Finalize { .. } => kind::FINALIZE,
        Request::Batch { .. } => kind::BATCH,
        Request::Begin { .. } => kind::BEGIN,
        Request::Commit { .. } => kind::COMMIT,
        Request::Rollback { .. } => kind::ROLLBACK,
        Request::TxnStatus { .. } => kind::TXN_STATUS,
        Request::Export => kind::EXPORT,
        Request::Close => kind::CLOSE,
        Request::Import { .. } => kind::IMPORT,
        Request::Check => kind::CHECK,
    }
}

/// Encodes a response.
pub fn encode_response(env: &Envelope, resp: &Response) -> Vec<u8> {
    let k = match resp {
        Response::Ready { .. } => kind::READY,
        Response::Opened { .. } => kind::OPENED,
        Response::Done => kind::DONE,
        Response::Rows(_) => kind::ROWS,
        Response::Prepared { .. } => kind::PREPARED,
        Response::BatchDone(_) => kind::BATCH_DONE,
        Response::TxnState { .. } => kind::TXN_STATE,
        Response::Bytes(_) => kind::BYTES,
        Response::Failed(_) => kind::FAILED,
        Response::Checked(_) => kind::CHECKED,
    };
    let mut w = Writer::message(k, env);
    match resp {
        Response::Ready { owner } | Response::Opened { owner } => w.short_str(owner),
        Response::Done => {}
        Response::Rows(rs) => w.result_set(rs),
        Response::Prepared {
            stmt,
            param_count,
            columns,
        } => {
            w.u32(*stmt);
            w.u32(*param_count);
            w.columns(columns);
        }
        Response::BatchDone(sets) => {
            w.len(sets.len());
            sets.iter().for_each(|rs| w.result_set(rs));
        }
        Response::TxnState { committed } => w.u8(u8::from(*committed)),
        Response::Bytes(b) => w.bytes(b),
        Response::Failed(e) => w.error(e),
        Response::Checked(c) => {
            w.len(c.problems.len());
            for p in &c.problems {
                w.u64(p.page);
                w.str(&p.detail);
            }
            for n in [c.pages, c.trees, c.entries, c.free_pages] {
                w.u64(n);
            }
        }
    }
    w.finish()
}

/// A bounds-checked cursor over untrusted bytes.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

type ReadResult<T> = std::result::Result<T, String>;

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> ReadResult<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| {
            format!(
                "message ends at byte {} but {n} more bytes were expected at byte {}",
                self.buf.len(),
                self.pos
            )
        })?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> ReadResult<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    fn u8(&mut self) -> ReadResult<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> ReadResult<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> ReadResult<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn i64(&mut self) -> ReadResult<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }
    fn f64(&mut self) -> ReadResult<f64> {
        Ok(f64::from_le_bytes(self.array()?))
    }
    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// A count of items each at least `min_item` bytes long: refused when the
    /// remaining bytes cannot hold that many, before anything is allocated.
    fn count(&mut self, min_item: usize, what: &str) -> ReadResult<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_item) > self.remaining() {
            return Err(format!(
                "{what} count {n} is larger than the message can hold"
            ));
        }
        Ok(n)
    }
    fn bytes(&mut self) -> ReadResult<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn utf8(b: &[u8], what: &str) -> ReadResult<String> {
        std::str::from_utf8(b)
            .map(str::to_string)
            .map_err(|_| format!("{what} is not valid UTF-8"))
    }
    fn str(&mut self, what: &str) -> ReadResult<String> {
        let b = self.bytes()?;
        Self::utf8(b, what)
    }
    fn short_str(&mut self, what: &str) -> ReadResult<String> {
        let n = self.u8()? as usize;
        if n > MAX_ID_LEN {
            return Err(format!(
                "{what} is {n} bytes long, over the limit of {MAX_ID_LEN}"
            ));
        }
        let b = self.take(n)?;
        Self::utf8(b, what)
    }
    fn id(&mut self, what: &str) -> ReadResult<String> {
        let s = self.short_str(what)?;
        if s.is_empty() {
            return Err(format!("{what} is empty"));
        }
        Ok(s)
    }
    fn opt_id(&mut self, what: &str) -> ReadResult<Option<String>> {
        match self.u8()? {
            0 => Ok(None),
            1 => self.id(what).map(Some),
            t => Err(format!("{what}: presence flag {t} is neither 0 nor 1")),
        }
    }
    fn value(&mut self) -> ReadResult<WireValue> {
        Ok(match self.u8()? {
            tag::NULL => WireValue::Null,
            tag::INTEGER => WireValue::Integer(self.i64()?),
            tag::REAL => WireValue::Real(self.f64()?),
            tag::TEXT => WireValue::Text(self.str("text value")?),
            tag::BLOB => WireValue::Blob(self.bytes()?.to_vec()),
            t => return Err(format!("unknown value tag {t} at byte {}", self.pos - 1)),
        })
    }
    fn params(&mut self) -> ReadResult<Params> {
        Ok(match self.u8()? {
            params_tag::NONE => Params::None,
            params_tag::POSITIONAL => {
                let n = self.count(1, "parameter")?;
                Params::Positional((0..n).map(|_| self.value()).collect::<ReadResult<_>>()?)
            }
            params_tag::NAMED => {
                let n = self.count(5, "named parameter")?;
                let mut out = Vec::with_capacity(n);
                for _ in 0..n {
                    out.push((self.str("parameter name")?, self.value()?));
                }
                Params::Named(out)
            }
            t => return Err(format!("unknown parameter list tag {t}")),
        })
    }
    fn columns(&mut self) -> ReadResult<Vec<String>> {
        let n = self.count(4, "column")?;
        (0..n).map(|_| self.str("column name")).collect()
    }
    fn result_set(&mut self) -> ReadResult<ResultSet> {
        let columns = self.columns()?;
        let nrows = self.count(columns.len(), "row")?;
        if columns.is_empty() && nrows > 0 {
            return Err(format!("{nrows} rows of zero columns"));
        }
        let mut rows = Vec::with_capacity(nrows);
        for _ in 0..nrows {
            rows.push(
                (0..columns.len())
                    .map(|_| self.value())
                    .collect::<ReadResult<_>>()?,
            );
        }
        Ok(ResultSet {
            columns,
            rows,
            changes: self.u64()?,
            last_insert_rowid: self.i64()?,
        })
    }
    fn error(&mut self) -> ReadResult<WireError> {
        let code = self.str("error code")?;
        let message = self.str("error message")?;
        let position = match self.u8()? {
            0 => None,
            1 => Some(self.u32()?),
            t => return Err(format!("error position flag {t} is neither 0 nor 1")),
        };
        Ok(WireError {
            code,
            message,
            position,
        })
    }
    fn end(&self) -> ReadResult<()> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(format!("{n} unexpected bytes after the end of the message")),
        }
    }
}

/// Reads the envelope; returns it with the kind byte and the body's reader.
fn decode_envelope(bytes: &[u8]) -> std::result::Result<(Envelope, u8, Reader<'_>), DecodeError> {
    let malformed = |env: Option<Envelope>, m: String| DecodeError {
        envelope: env,
        error: WireError::new(code::MALFORMED_MESSAGE, m),
    };
    if bytes.len() > MAX_MESSAGE_LEN {
        return Err(malformed(
            None,
            format!(
                "message of {} bytes exceeds the limit of {MAX_MESSAGE_LEN}",
                bytes.len()
            ),
        ));
    }
    let mut r = Reader { buf: bytes, pos: 0 };
    let head = (|| -> ReadResult<(u8, u8, u8, Envelope)> {
        let (magic, version, k) = (r.u8()?, r.u8()?, r.u8()?);
        let epoch = r.u32()?;
        let client = r.short_str("client id")?;
        let request = r.u32()?;
        Ok((
            magic,
            version,
            k,
            Envelope {
                epoch,
                client,
                request,
            },
        ))
    })();
    let (magic, version, k, env) =
        head.map_err(|m| malformed(None, format!("unreadable envelope: {m}")))?;
    if magic != MAGIC {
        return Err(malformed(None, format!("bad magic byte {magic:#04x}")));
    }
    if version != PROTOCOL_VERSION {
        let e = WireError::new(
            code::PROTOCOL_VERSION,
            format!("message has protocol version {version}, this owner speaks {PROTOCOL_VERSION}"),
        );
        return Err(DecodeError {
            envelope: Some(env),
            error: e,
        });
    }
    Ok((env, k, r))
}

/// Decodes and validates a request from an untrusted sender.
pub fn decode_request(bytes: &[u8]) -> std::result::Result<(Envelope, Request), DecodeError> {
    let (env, k, mut r) = decode_envelope(bytes)?;
    let body = (|| -> ReadResult<Request> {
        let req = match k {
            kind::OPEN => Request::Open,
            kind::EXEC => Request::Exec {
                txn: r.opt_id("transaction id")?,
                sql: r.str("sql")?,
            },
            kind::QUERY => Request::Query {
                txn: r.opt_id("transaction id")?,
                sql: r.str("sql")?,
                params: r.params()?,
            },
            kind::PREPARE => Request::Prepare { sql: r.str("sql")? },
            kind::RUN => Request::Run {
                txn: r.opt_id("transaction id")?,
                stmt: r.u32()?,
                params: r.params()?,
            },
            kind::FINALIZE => Request::Finalize { stmt: r.u32()? },
            kind::BATCH => {
                let txn = r.id("transaction id")?;
                let n = r.count(5, "batch statement")?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(BatchItem {
                        sql: r.str("sql")?,
                        params: r.params()?,
                    });
                }
                Request::Batch { txn, items }
            }
            kind::BEGIN => Request::Begin {
                txn: r.id("transaction id")?,
            },
            kind::COMMIT => Request::Commit {
                txn: r.id("transaction id")?,
            },
            kind::ROLLBACK => Request::Rollback {
                txn: r.id("transaction id")?,
            },
            kind::TXN_STATUS => Request::TxnStatus {
                txn: r.id("transaction id")?,
            },
            kind::EXPORT => Request::Export,
            kind::CLOSE => Request::Close,
            kind::IMPORT => Request::Import {
                bytes: r.bytes()?.to_vec(),
            },
            kind::CHECK => Request::Check,
            k => return Err(format!("unknown request kind {k:#04x}")),
        };
        r.end()?;
        Ok(req)
    })();
    match body {
        Ok(req) if env.client.is_empty() => Err(DecodeError {
            envelope: None,
            error: WireError::new(
                code::MALFORMED_MESSAGE,
                format!("request {req:?} has an empty client id"),
            ),
        }),
        Ok(req) => Ok((env, req)),
        Err(m) => Err(DecodeError {
            envelope: Some(env),
            error: WireError::new(code::MALFORMED_MESSAGE, m),
        }),
    }
}

/// Decodes and validates a response (used by native tests and tools; the
/// TypeScript client has its own mirror).
pub fn decode_response(bytes: &[u8]) -> std::result::Result<(Envelope, Response), DecodeError> {
    let (env, k, mut r) = decode_envelope(bytes)?;
    let body = (|| -> ReadResult<Response> {
        let resp = match k {
            kind::READY => Response::Ready {
                owner: r.id("owner id")?,
            },
            kind::OPENED => Response::Opened {
                owner: r.id("owner id")?,
            },
            kind::DONE => Response::Done,
            kind::ROWS => Response::Rows(r.result_set()?),
            kind::PREPARED => Response::Prepared {
                stmt: r.u32()?,
                param_count: r.u32()?,
                columns: r.columns()?,
            },
            kind::BATCH_DONE => {
                let n = r.count(24, "result set")?;
                Response::BatchDone((0..n).map(|_| r.result_set()).collect::<ReadResult<_>>()?)
            }
            kind::TXN_STATE => Response::TxnState {
                committed: match r.u8()? {
                    0 => false,
                    1 => true,
                    t => return Err(format!("committed flag {t} is neither 0 nor 1")),
                },
            },
            kind::BYTES => Response::Bytes(r.bytes()?.to_vec()),
            kind::FAILED => Response::Failed(r.error()?),
            kind::CHECKED => {
                let n = r.count(12, "problem")?;
                let mut problems = Vec::with_capacity(n);
                for _ in 0..n {
                    problems.push(CheckProblem {
                        page: r.u64()?,
                        detail: r.str("problem detail")?,
                    });
                }
                Response::Checked(CheckSummary {
                    problems,
                    pages: r.u64()?,
                    trees: r.u64()?,
                    entries: r.u64()?,
                    free_pages: r.u64()?,
                })
            }
            k => return Err(format!("unknown response kind {k:#04x}")),
        };
        r.end()?;
        Ok(resp)
    })();
    body.map(|resp| (env.clone(), resp))
        .map_err(|m| DecodeError {
            envelope: Some(env),
            error: WireError::new(code::MALFORMED_MESSAGE, m),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Envelope {
        Envelope {
            epoch: 7,
            client: "c1".into(),
            request: 42,
        }
    }

    fn all_requests() -> Vec<Request> {
        let vals = vec![
            WireValue::Null,
            WireValue::Integer(-1 << 60),
            WireValue::Real(1.5),
            WireValue::Text("héllo".into()),
            WireValue::Blob(vec![0, 255, 7]),
        ];
        vec![
            Request::Open,
            Request::Exec {
                txn: None,
                sql: "CREATE TABLE t(a)".into(),
            },
            Request::Exec {
                txn: Some("t1".into()),
                sql: "".into(),
            },
            Request::Query {
                txn: None,
                sql: "SELECT ?".into(),
                params: Params::Positional(vals.clone()),
            },
            Request::Query {
                txn: Some("x".into()),
                sql: "SELECT :a".into(),
                params: Params::Named(vec![(":a".into(), WireValue::Integer(3))]),
            },
            Request::Prepare {
                sql: "SELECT 1".into(),
            },
            Request::Run {
                txn: None,
                stmt: 9,
                params: Params::None,
            },
            Request::Finalize { stmt: 9 },
            Request::Batch {
                txn: "b".into(),
                items: vec![BatchItem {
                    sql: "INSERT".into(),
                    params: Params::Positional(vals),
                }],
            },
            Request::Begin { txn: "t".into() },
            Request::Commit { txn: "t".into() },
            Request::Rollback { txn: "t".into() },
            Request::TxnStatus { txn: "t".into() },
            Request::Export,
            Request::Close,
            Request::Import { bytes: vec![9; 10] },
            Request::Check,
        ]
    }

    fn all_responses() -> Vec<Response> {
        let rs = ResultSet {
            columns: vec!["a".into(), "b".into()],
            rows: vec![
                vec![WireValue::Integer(1), WireValue::Text("x".into())],
                vec![WireValue::Null, WireValue::Blob(vec![])],
            ],
            changes: 2,
            last_insert_rowid: -5,
        };
        vec![
            Response::Ready { owner: "o".into() },
            Response::Opened { owner: "o".into() },
            Response::Done,
            Response::Rows(rs.clone()),
            Response::Rows(ResultSet::default()),
            Response::Prepared {
                stmt: 3,
                param_count: 2,
                columns: vec!["c".into()],
            },
            Response::BatchDone(vec![rs, ResultSet::default()]),
            Response::TxnState { committed: true },
            Response::TxnState { committed: false },
            Response::Bytes(vec![1, 2, 3]),
            Response::Failed(WireError {
                code: "SQL_SYNTAX".into(),
                message: "near x".into(),
                position: Some(4),
            }),
            Response::Failed(WireError::new(code::MISUSE, "no")),
            Response::Checked(CheckSummary {
                problems: vec![CheckProblem {
                    page: 3,
                    detail: "bad".into(),
                }],
                pages: 9,
                trees: 2,
                entries: 5,
                free_pages: 1,
            }),
        ]
    }

    #[test]
    fn requests_round_trip() {
        for req in all_requests() {
            let bytes = encode_request(&env(), &req);
            assert_eq!(decode_request(&bytes), Ok((env(), req)));
        }
    }

    #[test]
    fn responses_round_trip() {
        for resp in all_responses() {
            let bytes = encode_response(&env(), &resp);
            assert_eq!(decode_response(&bytes), Ok((env(), resp)));
        }
    }

    /// Every strict prefix of every valid message is refused with a typed
    /// error, and no prefix panics.
    #[test]
    fn truncated_messages_are_refused() {
        for req in all_requests() {
            let bytes = encode_request(&env(), &req);
            for cut in 0..bytes.len() {
                let err = decode_request(&bytes[..cut]).unwrap_err();
                assert_eq!(
                    err.error.code,
                    code::MALFORMED_MESSAGE,
                    "{req:?} cut at {cut}"
                );
            }
        }
        for resp in all_responses() {
            let bytes = encode_response(&env(), &resp);
            for cut in 0..bytes.len() {
                assert!(
                    decode_response(&bytes[..cut]).is_err(),
                    "{resp:?} cut at {cut}"
                );
            }
        }
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let mut bytes = encode_request(&env(), &Request::Open);
        bytes.push(0);
        let err = decode_request(&bytes).unwrap_err();
        assert_eq!(
            err.envelope,
            Some(env()),
            "the sender can still be answered"
        );
        assert!(
            err.error.message.contains("unexpected bytes"),
            "{}",
            err.error.message
        );
    }

    #[test]
    fn bad_header_fields_are_refused() {
        let good = encode_request(&env(), &Request::Open);
        let mut bad_magic = good.clone();
        bad_magic[0] = 0;
        assert_eq!(decode_request(&bad_magic).unwrap_err().envelope, None);

        let mut new_version = good.clone();
        new_version[1] = PROTOCOL_VERSION + 1;
        let err = decode_request(&new_version).unwrap_err();
        assert_eq!(err.error.code, code::PROTOCOL_VERSION);
        assert_eq!(
            err.envelope,
            Some(env()),
            "the envelope layout is the same in every version"
        );

        let mut unknown_kind = good.clone();
        unknown_kind[2] = 0x3F;
        let err = decode_request(&unknown_kind).unwrap_err();
        assert!(
            err.error.message.contains("unknown request kind"),
            "{}",
            err.error.message
        );

        let no_client = encode_request(
            &Envelope {
                client: String::new(),
                ..env()
            },
            &Request::Open,
        );
        assert_eq!(
            decode_request(&no_client).unwrap_err().error.code,
            code::MALFORMED_MESSAGE
        );

        let mut long_client = good;
        long_client[ENVELOPE_PREFIX_LEN] = (MAX_ID_LEN + 1) as u8;
        assert!(decode_request(&long_client).is_err());
    }

    /// A count far beyond the message's size is refused before allocation.
    #[test]
    fn huge_counts_do_not_allocate() {
        let mut w = Writer::message(kind::QUERY, &env());
        w.opt_short_str(None);
        w.str("SELECT ?");
        w.u8(params_tag::POSITIONAL);
        w.u32(u32::MAX);
        let err = decode_request(&w.finish()).unwrap_err();
        assert!(
            err.error.message.contains("larger than the message"),
            "{}",
            err.error.message
        );

        let mut w = Writer::message(kind::ROWS, &env());
        w.u32(1);
        w.str("a");
        w.u32(u32::MAX);
        assert!(decode_response(&w.finish()).is_err());
    }

    #[test]
    fn invalid_utf8_and_tags_are_refused() {
        let mut w = Writer::message(kind::EXEC, &env());
        w.opt_short_str(None);
        w.bytes(&[0xff, 0xfe]);
        let err = decode_request(&w.finish()).unwrap_err();
        assert!(err.error.message.contains("UTF-8"), "{}", err.error.message);

        let mut w = Writer::message(kind::QUERY, &env());
        w.opt_short_str(None);
        w.str("SELECT ?");
        w.u8(params_tag::POSITIONAL);
        w.u32(1);
        w.u8(9);
        let err = decode_request(&w.finish()).unwrap_err();
        assert!(
            err.error.message.contains("unknown value tag"),
            "{}",
            err.error.message
        );

        let mut w = Writer::message(kind::BEGIN, &env());
        w.u8(0);
        assert!(decode_request(&w.finish()).is_err(), "empty transaction id");
    }

    /// Deterministic pseudo-random byte flips never panic the decoder.
    #[test]
    fn flipped_bytes_never_panic() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for req in all_requests() {
            let bytes = encode_request(&env(), &req);
            for _ in 0..200 {
                let mut b = bytes.clone();
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let i = (seed % b.len() as u64) as usize;
                b[i] ^= (seed >> 32) as u8 | 1;
                let _ = decode_request(&b);
            }
        }
    }

    #[test]
    fn engine_errors_keep_code_and_position() {
        let e = tinyjoin_engine::Error::Syntax {
            message: "near FROM".into(),
            position: 7,
        };
        let w = WireError::from(&e);
        assert_eq!(w.code, "SQL_SYNTAX");
        assert_eq!(w.position, Some(7));
        assert_eq!(
            WireError::from(&tinyjoin_engine::Error::DiskFull).code,
            "QUOTA_EXCEEDED"
        );
    }
}
