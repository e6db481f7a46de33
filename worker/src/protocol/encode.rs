//! Encoding: `Writer` appends the protocol's primitives; the encoders build
//! whole messages. Lengths come from data the owner holds, so encoding
//! cannot fail.

use super::message::*;

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
        Request::Open | Request::Export | Request::Close | Request::Check | Request::Sync => {}
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
        Request::Sync => kind::SYNC,
    }
}

/// Encodes a response.
pub fn encode_response(env: &Envelope, resp: &Response) -> Vec<u8> {
    let mut w = Writer::message(response_kind(resp), env);
    write_response_body(&mut w, resp);
    w.finish()
}

/// A response without envelope: its kind byte, then its body. The in-worker
/// API's direct calls (one client, no epochs, no routing) answer this way.
pub fn encode_response_body(resp: &Response) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    encode_response_body_into(resp, &mut out);
    out
}

/// [`encode_response_body`] appended to `out` (a buffer reused across calls).
pub fn encode_response_body_into(resp: &Response, out: &mut Vec<u8>) {
    let mut w = Writer {
        buf: std::mem::take(out),
    };
    w.u8(response_kind(resp));
    write_response_body(&mut w, resp);
    *out = w.finish();
}

fn response_kind(resp: &Response) -> u8 {
    match resp {
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
    }
}

fn write_response_body(w: &mut Writer, resp: &Response) {
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
}
