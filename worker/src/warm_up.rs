//! The statement an owner runs once as it opens (and when an import
//! installs a new database), so that a user's first statement does not pay
//! for compiling the code every statement shares.
//!
//! V8 compiles each wasm function on its first call (lazily, with its
//! baseline compiler, at about 20 MB/s here). Without this, the
//! comparison's first queries each compiled 22-48 KB of wasm
//! (`scripts/inworker-timing/first-use.mjs`: the request path, the parser,
//! the planner, the executor's common operators, the syntax tree's drop
//! code), 1-2.5 ms before any work of their own; with it, 3-7 KB. In
//! Chromium J5's first run (a point join) went from 2.60 ms to 1.10, the
//! open's time unchanged within its spread (it validates the file and
//! compiles about 600 KB already). Writes are not warmed: that would need
//! a table to write.
//!
//! [`SQL`] reads only the schema, so it runs on any database, writes
//! nothing, holds no lock past its own call and takes microseconds once
//! compiled; on an empty database it reaches less (no rows to group). Its
//! answer is dropped. A failure is reported to the caller (the runtime
//! ignores it: a database whose warm-up fails fails its first statement
//! too, which says why); a trap fails the open.

use crate::direct::{serve, DirectBuffers};
use crate::owner::Owner;
use crate::protocol::{encode_response, kind, Envelope, Params, Request, WireValue, Writer};

/// A parameter, a filter, an aggregate with GROUP BY, ORDER BY, text and
/// integer columns: the code most first statements share.
pub const SQL: &str = "SELECT type, count(*), max(rootpage) FROM sqlite_schema \
                       WHERE name <> ?1 GROUP BY type ORDER BY 1";

fn params() -> Params {
    Params::Positional(vec![WireValue::Text(String::new())])
}

/// The transaction id the warm-up runs under, as a client's autocommit
/// statements do (they take the path that prepares first, to learn whether
/// they only read). A client's own ids count from 1.
fn txn(owner: &Owner) -> String {
    format!("{}.0", owner.local())
}

/// [`SQL`] as a request: the owner also runs it when an import installs a
/// new database, whose schema reaches more of the statement code than an
/// empty one's.
pub(crate) fn request(owner: &Owner) -> Request {
    Request::Query {
        txn: Some(txn(owner)),
        sql: SQL.to_string(),
        params: params(),
    }
}

/// Runs [`SQL`] as the in-worker API's direct call (`direct`) or as a
/// message from this owner's own client; true when it answered rows.
pub fn run(owner: &mut Owner, bufs: &mut DirectBuffers, direct: bool) -> bool {
    if direct {
        let txn = txn(owner);
        let mut w = Writer::default();
        w.params(&params());
        let p = w.finish();
        let (t, q) = (txn.len(), SQL.len());
        let input = bufs.input_for(t + q + p.len());
        input[..t].copy_from_slice(txn.as_bytes());
        input[t..t + q].copy_from_slice(SQL.as_bytes());
        input[t + q..t + q + p.len()].copy_from_slice(&p);
        let t = i32::try_from(t).unwrap_or(i32::MAX);
        serve(owner, bufs, kind::QUERY, t, q, 0, p.len()) && bufs.output.get(4) == Some(&kind::ROWS)
    } else {
        // As `Owner::handle` serves a message of this tab's client once
        // decoded (the client's OPEN, sent before any statement, has
        // compiled the decoding), and encodes the answer.
        let Some(resp) = owner.call_local(&request(owner)) else {
            return false;
        };
        let env = Envelope {
            epoch: owner.epoch(),
            client: owner.local().to_string(),
            request: 0,
        };
        encode_response(&env, &resp).get(2) == Some(&kind::ROWS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owner::tests::{opts, send};
    use crate::owner::Route;
    use crate::protocol::Response;

    fn owner() -> Owner {
        Owner::open_memory("local", &opts()).unwrap()
    }

    fn query(o: &mut Owner, sql: &str) -> Vec<(Route, Envelope, Response)> {
        let params = Params::None;
        send(
            o,
            "local",
            7,
            Request::Query {
                txn: None,
                sql: sql.to_string(),
                params,
            },
        )
    }

    #[test]
    fn answers_rows_on_both_paths_and_changes_nothing() {
        for direct in [true, false] {
            let mut o = owner();
            let mut bufs = DirectBuffers::default();
            let sql = "CREATE TABLE t(a); CREATE INDEX ti ON t(a); INSERT INTO t VALUES (1)";
            send(
                &mut o,
                "local",
                1,
                Request::Exec {
                    txn: None,
                    sql: sql.to_string(),
                },
            );
            let before = query(&mut o, "SELECT * FROM sqlite_schema, t");
            let epoch = o.epoch();
            assert!(run(&mut o, &mut bufs, direct), "direct: {direct}");
            assert_eq!(o.epoch(), epoch);
            assert_eq!(query(&mut o, "SELECT * FROM sqlite_schema, t"), before);
            // The owner goes on serving its client as before.
            assert!(run(&mut o, &mut bufs, direct));
        }
    }

    #[test]
    fn an_empty_database_answers_too() {
        let mut bufs = DirectBuffers::default();
        assert!(run(&mut owner(), &mut bufs, true));
        assert!(run(&mut owner(), &mut bufs, false));
    }
}
