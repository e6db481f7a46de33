//! The in-worker API's direct calls through two buffers in wasm memory.
//!
//! A request from a client in the owner's own thread (`tinyjoin/worker`)
//! needs no envelope, no message and no copy through wasm-bindgen's glue:
//! the TypeScript side writes its text fields and parameters into
//! [`DirectBuffers::input`] (whose address it keeps: the vector only moves
//! when [`DirectBuffers::input_for`] grows it), makes one call, and reads
//! the answer from [`DirectBuffers::output`]. Each call costs one crossing
//! into the module instead of five (three allocations, the call, a free).
//!
//! Input layout for [`serve`]: `txn_len` bytes of the transaction id (none
//! when `txn_len` is negative), `sql_len` bytes of SQL, `params_len` bytes
//! of parameters in the protocol's parameter form. Output: a `u32`
//! little-endian length, then the response's kind byte and body
//! (`encode_response_body`). Lengths past the input, text that is not
//! UTF-8 and malformed parameters are answered with a typed error, never
//! a panic: the TypeScript side is trusted code, but a bug there must not
//! take the owner down.

use crate::owner::Owner;
use crate::protocol::{
    code, decode_params, encode_response_body_into, kind as k, Request, Response, WireError,
};

/// The two buffers of the direct calls, kept by the owner's binding.
#[derive(Default)]
pub struct DirectBuffers {
    /// Written by the caller before [`serve`]; all initialized (grown with
    /// zeros), so reading any of it is defined.
    pub input: Vec<u8>,
    /// The last answer: length, then kind byte and body.
    pub output: Vec<u8>,
}

/// The smallest input buffer handed out.
const MIN_INPUT: usize = 256;

/// An input buffer past this size is given back when a smaller one will do
/// (one long statement must not keep its memory for good).
const KEEP_INPUT: usize = 1 << 20;

impl DirectBuffers {
    /// The input buffer, at least `len` bytes long. The only place the
    /// buffer moves: the caller keeps its address until it asks again.
    pub fn input_for(&mut self, len: usize) -> &mut [u8] {
        let size = len.max(MIN_INPUT).next_power_of_two();
        if self.input.len() < size || (self.input.len() > KEEP_INPUT && size < self.input.len()) {
            self.input = vec![0; size];
        }
        &mut self.input
    }
}

/// Serves the request of kind `kind` whose fields are in `bufs.input`,
/// leaving the answer in `bufs.output`. False when the request must go as
/// a message instead (`Owner::call_local` answered `None`, or the kind has
/// no direct form).
pub fn serve(
    owner: &mut Owner,
    bufs: &mut DirectBuffers,
    kind: u8,
    txn_len: i32,
    sql_len: usize,
    stmt: u32,
    params_len: usize,
) -> bool {
    let resp = match fields(&bufs.input, txn_len, sql_len, params_len) {
        Ok((txn, sql, params)) => match request(kind, txn, sql, stmt, params) {
            Some(Ok(req)) => match owner.call_local(&req) {
                Some(resp) => resp,
                None => return false,
            },
            Some(Err(e)) => Response::Failed(e),
            None => return false,
        },
        Err(e) => Response::Failed(e),
    };
    bufs.output.clear();
    bufs.output.extend_from_slice(&[0; 4]);
    encode_response_body_into(&resp, &mut bufs.output);
    let len = u32::try_from(bufs.output.len() - 4).unwrap_or(u32::MAX);
    bufs.output[..4].copy_from_slice(&len.to_le_bytes());
    true
}

/// The transaction id, SQL and parameter bytes in `input`.
fn fields(
    input: &[u8],
    txn_len: i32,
    sql_len: usize,
    params_len: usize,
) -> Result<(Option<&str>, &str, &[u8]), WireError> {
    let bad = |what: &str| WireError::new(code::MALFORMED_MESSAGE, what.to_string());
    let txn_len = usize::try_from(txn_len).ok();
    let sql_at = txn_len.unwrap_or(0);
    let params_at = sql_at
        .checked_add(sql_len)
        .ok_or_else(|| bad("direct call: lengths overflow"))?;
    let end = params_at
        .checked_add(params_len)
        .ok_or_else(|| bad("direct call: lengths overflow"))?;
    if end > input.len() {
        return Err(bad("direct call: fields run past the input buffer"));
    }
    let txn = match txn_len {
        Some(n) => Some(utf8(&input[..n])?),
        None => None,
    };
    Ok((
        txn,
        utf8(&input[sql_at..params_at])?,
        &input[params_at..end],
    ))
}

fn utf8(bytes: &[u8]) -> Result<&str, WireError> {
    std::str::from_utf8(bytes).map_err(|_| {
        WireError::new(
            code::MALFORMED_MESSAGE,
            "direct call: text is not valid UTF-8".to_string(),
        )
    })
}

/// The request of kind `kind` (EXEC, QUERY, PREPARE, RUN, FINALIZE, BEGIN,
/// COMMIT or ROLLBACK) with these fields; `None` for another kind.
fn request(
    kind: u8,
    txn: Option<&str>,
    sql: &str,
    stmt: u32,
    params: &[u8],
) -> Option<Result<Request, WireError>> {
    let txn_owned = txn.map(str::to_string);
    let id = || txn.unwrap_or_default().to_string();
    let sql = || sql.to_string();
    Some(match kind {
        k::EXEC => Ok(Request::Exec {
            txn: txn_owned,
            sql: sql(),
        }),
        k::QUERY => decode_params(params).map(|params| Request::Query {
            txn: txn_owned,
            sql: sql(),
            params,
        }),
        k::PREPARE => Ok(Request::Prepare { sql: sql() }),
        k::RUN => decode_params(params).map(|params| Request::Run {
            txn: txn_owned,
            stmt,
            params,
        }),
        k::FINALIZE => Ok(Request::Finalize { stmt }),
        k::BEGIN => Ok(Request::Begin { txn: id() }),
        k::COMMIT => Ok(Request::Commit { txn: id() }),
        k::ROLLBACK => Ok(Request::Rollback { txn: id() }),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owner::tests::opts;
    use crate::protocol::{encode_response_body, params_tag, tag};

    fn owner() -> Owner {
        let mut o = Owner::open_memory("me", &opts()).unwrap();
        o.set_record_commits(false);
        o
    }

    /// Writes the fields as the TypeScript side does and serves them.
    fn call(
        o: &mut Owner,
        b: &mut DirectBuffers,
        kind: u8,
        txn: Option<&str>,
        sql: &str,
        stmt: u32,
        params: &[u8],
    ) -> Option<Vec<u8>> {
        let t = txn.unwrap_or("").as_bytes();
        let input = b.input_for(t.len() + sql.len() + params.len());
        input[..t.len()].copy_from_slice(t);
        input[t.len()..t.len() + sql.len()].copy_from_slice(sql.as_bytes());
        input[t.len() + sql.len()..][..params.len()].copy_from_slice(params);
        let txn_len = txn.map_or(-1, |t| t.len() as i32);
        serve(o, b, kind, txn_len, sql.len(), stmt, params.len()).then(|| {
            let len = u32::from_le_bytes(b.output[..4].try_into().unwrap()) as usize;
            assert_eq!(len, b.output.len() - 4);
            b.output[4..].to_vec()
        })
    }

    fn int_param(v: i64) -> Vec<u8> {
        let mut p = vec![params_tag::POSITIONAL];
        p.extend_from_slice(&1u32.to_le_bytes());
        p.push(tag::INTEGER);
        p.extend_from_slice(&v.to_le_bytes());
        p
    }

    /// A direct call's kind, transaction id, SQL, statement and parameters.
    type Step<'a> = (u8, Option<&'a str>, &'a str, u32, Vec<u8>);

    #[test]
    fn answers_as_call_local_does() {
        let (mut o, mut twin) = (owner(), owner());
        let mut b = DirectBuffers::default();
        let none = [params_tag::NONE];
        let steps: Vec<Step> = vec![
            (
                k::EXEC,
                None,
                "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)",
                0,
                vec![],
            ),
            (k::BEGIN, Some("me.1"), "", 0, vec![]),
            (
                k::QUERY,
                Some("me.1"),
                "INSERT INTO t VALUES (?, 'é')",
                0,
                int_param(7),
            ),
            (k::COMMIT, Some("me.1"), "", 0, vec![]),
            (k::PREPARE, None, "SELECT b FROM t WHERE a = ?", 0, vec![]),
            (k::RUN, Some("me.2"), "", 1, int_param(7)),
            (k::QUERY, None, "SELECT count(*) FROM t", 0, none.to_vec()),
            (k::FINALIZE, None, "", 1, vec![]),
            // Errors: an unknown statement, bad SQL, malformed parameters.
            (k::RUN, Some("me.3"), "", 99, int_param(1)),
            (k::QUERY, Some("me.4"), "SELEC 1", 0, none.to_vec()),
            (
                k::QUERY,
                Some("me.5"),
                "SELECT ?",
                0,
                vec![params_tag::POSITIONAL, 9],
            ),
        ];
        for (kind, txn, sql, stmt, params) in steps {
            let got = call(&mut o, &mut b, kind, txn, sql, stmt, &params).unwrap();
            let want = request(kind, txn, sql, stmt, &params).unwrap();
            let want = match want {
                Ok(req) => twin.call_local(&req).unwrap(),
                Err(e) => Response::Failed(e),
            };
            assert_eq!(got, encode_response_body(&want), "{sql}");
        }
    }

    #[test]
    fn a_long_input_is_given_back() {
        let mut b = DirectBuffers::default();
        assert_eq!(b.input_for(10).len(), MIN_INPUT);
        assert_eq!(b.input_for(3000).len(), 4096);
        assert_eq!(b.input_for(10).len(), 4096, "small buffers are kept");
        assert_eq!(b.input_for(5 << 20).len(), 8 << 20);
        assert_eq!(b.input_for(100).len(), MIN_INPUT, "a long one is not");
    }

    #[test]
    fn bad_fields_are_typed_errors() {
        let mut o = owner();
        let mut b = DirectBuffers::default();
        b.input_for(8);
        let n = b.input.len();
        let failed = |b: &DirectBuffers| b.output[4] == k::FAILED;
        // Past the buffer, or overflowing.
        assert!(serve(&mut o, &mut b, k::EXEC, 4, n, 0, 0) && failed(&b));
        assert!(serve(&mut o, &mut b, k::EXEC, -1, usize::MAX, 0, 2) && failed(&b));
        // Not UTF-8.
        b.input[0] = 0xff;
        assert!(serve(&mut o, &mut b, k::EXEC, -1, 1, 0, 0) && failed(&b));
        // A kind without a direct form goes as a message.
        assert!(!serve(&mut o, &mut b, 0xee, -1, 0, 0, 0));
    }
}
