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
//! compiles about 600 KB already).
//!
//! Writes are warmed later, on a database of their own: [`WriteWarmUp`]
//! runs a short write workload (a table with a UNIQUE and a plain index;
//! INSERT, UPDATE and DELETE by id, prepared, in a transaction and alone;
//! then an UPDATE and a DELETE of a range of ids, the UPDATE's index
//! entries queued and applied in key order as a bulk UPDATE's are)
//! on a scratch in-memory owner with the real one's options, one group of
//! statements per call. The runtime makes those calls from timers after
//! the open has answered, so they use the time before the first request
//! (a request that arrives meanwhile waits for at most one group) and the
//! DDL they compile is not paid by the open. Without it the first
//! transaction that writes compiled about 35 KB (its first UPDATE 29.8,
//! its first DELETE 4.4: `first-use.mjs`). The real database is never
//! touched.
//!
//! [`SQL`] reads only the schema, so it runs on any database, writes
//! nothing, holds no lock past its own call and takes microseconds once
//! compiled; on an empty database it reaches less (no rows to group). Its
//! answer is dropped. A failure is reported to the caller (the runtime
//! ignores it: a database whose warm-up fails fails its first statement
//! too, which says why); a trap fails the open.

use crate::direct::{serve, DirectBuffers};
use crate::owner::Owner;
use crate::protocol::{
    encode_response, kind, Envelope, Params, Request, Response, WireValue, Writer,
};

/// A parameter, a filter, an aggregate with GROUP BY, ORDER BY, text and
/// integer columns: the code most first statements share.
pub const SQL: &str = "SELECT type, count(*), max(rootpage) FROM sqlite_schema \
                       WHERE name <> ?1 GROUP BY type ORDER BY 1";

fn params() -> Params {
    Params::Positional(vec![WireValue::Text(String::new())])
}

/// The `n`th transaction id of `owner`'s own client, as a client's
/// autocommit statements carry (they take the path that prepares first, to
/// learn whether they only read). The open's warm-up runs under id 0; a
/// client's own ids count from 1.
fn txn(owner: &Owner, n: u32) -> String {
    format!("{}.{n}", owner.local())
}

/// [`SQL`] as a request: the owner also runs it when an import installs a
/// new database, whose schema reaches more of the statement code than an
/// empty one's.
pub(crate) fn request(owner: &Owner) -> Request {
    Request::Query {
        txn: Some(txn(owner, 0)),
        sql: SQL.to_string(),
        params: params(),
    }
}

/// Runs [`SQL`] as the in-worker API's direct call (`direct`) or as a
/// message from this owner's own client; true when it answered rows.
pub fn run(owner: &mut Owner, bufs: &mut DirectBuffers, direct: bool) -> bool {
    if direct {
        let txn = txn(owner, 0);
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

/// The scratch database's table: an integer key, a UNIQUE text column and
/// an indexed one, as most applications' tables have.
const TABLE: &str = "CREATE TABLE w(id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, \
                     n INTEGER, v TEXT NOT NULL); CREATE INDEX w_n ON w(n)";
const INSERT: &str = "INSERT INTO w(id, k, n, v) VALUES (?1, ?2, ?3, ?4)";
const UPDATE: &str = "UPDATE w SET k = ?1, n = ?2 WHERE id = ?3";
const DELETE: &str = "DELETE FROM w WHERE id = ?1";
const UPDATE_RANGE: &str = "UPDATE w SET n = n + 1 WHERE id BETWEEN ?1 AND ?2";
const DELETE_RANGE: &str = "DELETE FROM w WHERE id BETWEEN ?1 AND ?2";

/// The write workload on a scratch in-memory owner, in three groups of
/// statements (the schema; the writes by id; the writes of a range), one per
/// [`WriteWarmUp::step`]; its answers are dropped.
pub struct WriteWarmUp {
    scratch: Owner,
    done: usize,
    stmts: [u32; 5],
}

impl WriteWarmUp {
    /// Opens the scratch owner with `owner`'s options (its commit mode,
    /// whether it records commits). Fails as an open of a memory database
    /// fails (out of memory).
    pub fn new(owner: &Owner) -> tinyjoin_engine::Result<WriteWarmUp> {
        let mut scratch = Owner::open_memory(owner.local(), owner.options())?;
        scratch.set_record_commits(owner.records_commits());
        Ok(WriteWarmUp {
            scratch,
            done: 0,
            stmts: [0; 5],
        })
    }

    /// Runs the next group; false once every group has run (or one failed:
    /// the warm-up is only worth its time while it follows the plan).
    pub fn step(&mut self) -> bool {
        let row = |id: i64, k: &str, n: i64| {
            Params::Positional(vec![
                WireValue::Integer(id),
                WireValue::Text(k.to_string()),
                WireValue::Integer(n),
                WireValue::Text("v".repeat(40)),
            ])
        };
        let ok = match self.done {
            0 => self.call(Request::Exec {
                txn: Some(txn(&self.scratch, 0)),
                sql: TABLE.to_string(),
            }),
            1 => {
                let set = |k: &str, n: i64, id: i64| {
                    Params::Positional(vec![
                        WireValue::Text(k.to_string()),
                        WireValue::Integer(n),
                        WireValue::Integer(id),
                    ])
                };
                let by_id = |id: i64| Params::Positional(vec![WireValue::Integer(id)]);
                let w = || Some("w".to_string());
                let mut ok =
                    self.prepare(0, INSERT) && self.prepare(1, UPDATE) && self.prepare(2, DELETE);
                // Autocommit, then a transaction: both commit paths.
                ok = ok && self.run(Some(txn(&self.scratch, 1)), 0, row(1, "a", 1));
                ok = ok && self.call(Request::Begin { txn: "w".into() });
                for id in 2..=6 {
                    ok = ok && self.run(w(), 0, row(id, &format!("k{id}"), id % 2));
                }
                ok && self.run(w(), 1, set("b", 3, 2))
                    && self.run(w(), 1, set("c", 4, 3))
                    && self.run(w(), 2, by_id(4))
                    && self.run(w(), 2, by_id(5))
                    && self.call(Request::Commit { txn: "w".into() })
            }
            2 => {
                let range = |lo: i64, hi: i64| {
                    Params::Positional(vec![WireValue::Integer(lo), WireValue::Integer(hi)])
                };
                self.prepare(3, UPDATE_RANGE)
                    && self.prepare(4, DELETE_RANGE)
                    && self.run(Some(txn(&self.scratch, 2)), 3, range(1, 6))
                    && self.run(Some(txn(&self.scratch, 3)), 4, range(5, 6))
            }
            _ => false,
        };
        self.done += 1;
        ok && self.done < 3
    }

    /// Sends `req` as the scratch owner's own client; true unless it failed.
    fn call(&mut self, req: Request) -> bool {
        !matches!(
            self.scratch.call_local(&req),
            None | Some(Response::Failed(_))
        )
    }

    fn prepare(&mut self, slot: usize, sql: &str) -> bool {
        match self.scratch.call_local(&Request::Prepare {
            sql: sql.to_string(),
        }) {
            Some(Response::Prepared { stmt, .. }) => {
                self.stmts[slot] = stmt;
                true
            }
            _ => false,
        }
    }

    fn run(&mut self, txn: Option<String>, slot: usize, params: Params) -> bool {
        let stmt = self.stmts[slot];
        self.call(Request::Run { txn, stmt, params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owner::tests::{opts, send};
    use crate::owner::{OwnerOptions, Route};
    use tinyjoin_engine::storage::CommitMode;

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
    fn the_write_warm_up_runs_every_group_on_its_own_database() {
        for commit in [CommitMode::OneFlush, CommitMode::Deferred] {
            let mut o = Owner::open_memory("local", &OwnerOptions { commit, ..opts() }).unwrap();
            let before = query(&mut o, "SELECT * FROM sqlite_schema");
            let mut w = WriteWarmUp::new(&o).unwrap();
            let groups = std::iter::from_fn(|| Some(w.step()))
                .take(5)
                .collect::<Vec<_>>();
            assert_eq!(groups, [true, true, false, false, false]);
            // Every statement did its work: rows 4 and 5 deleted, 2 and 3
            // updated, then every n incremented and row 6 deleted.
            let Response::Rows(rows) = w
                .scratch
                .call_local(&Request::Query {
                    txn: None,
                    sql: "SELECT id, k, n FROM w ORDER BY id".into(),
                    params: Params::None,
                })
                .unwrap()
            else {
                panic!("no rows");
            };
            let want: Vec<Vec<WireValue>> = [(1, "a", 2), (2, "b", 4), (3, "c", 5)]
                .iter()
                .map(|&(id, k, n)| {
                    vec![
                        WireValue::Integer(id),
                        WireValue::Text(k.into()),
                        WireValue::Integer(n),
                    ]
                })
                .collect();
            assert_eq!(rows.rows, want);
            // The real database is untouched.
            assert_eq!(query(&mut o, "SELECT * FROM sqlite_schema"), before);
        }
    }

    #[test]
    fn an_empty_database_answers_too() {
        let mut bufs = DirectBuffers::default();
        assert!(run(&mut owner(), &mut bufs, true));
        assert!(run(&mut owner(), &mut bufs, false));
    }
}
