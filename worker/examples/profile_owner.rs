//! The owner's message path natively, for instruction counts under
//! callgrind: the comparison's mixed transaction (insert / update the UNIQUE
//! title by id / delete by id, prepared statements, one request each, as the page
//! client sends them) through `Owner::handle`, request bytes in and reply
//! bytes out, on a memory device.
//!
//! ```sh
//! cargo build --release -p tinyjoin-worker --example profile_owner
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured*' \
//!     target/release/examples/profile_owner
//! ```
//!
//! `N=250` runs a transaction of 250 operations over 250 rows instead of
//! 1,000 over 1,000. `profile_owner lookups` instead times the comparison's
//! 10,000 warm point lookups (a prepared `SELECT k, v FROM kv WHERE id = ?`
//! over 100,000 rows, each an autocommit read) through `direct::serve`, the
//! in-worker API's path (`LOOKUP_SQL` replaces the query, which takes one
//! parameter and must answer at least a few bytes per call: `SELECT ?, 'x'`
//! measures what every statement pays). A tool, not a test.

#[path = "../../engine/examples/common/kv.rs"]
mod kv;
#[path = "../../engine/examples/common/measured.rs"]
mod measured;
#[path = "../../engine/examples/common/mixed_ops.rs"]
mod mixed_ops;

use kv::{kv_rows_and_ids, KV_INSERT, KV_LOOKUP, KV_TABLE};
use measured::measured;
use mixed_ops::mixed_ops;
use tinyjoin_engine::storage::{CommitMode, Validation};
use tinyjoin_worker::direct::{serve, DirectBuffers};
use tinyjoin_worker::owner::{Owner, OwnerOptions};
use tinyjoin_worker::protocol::{
    decode_response, encode_request, kind, params_tag, tag, Envelope, Params, Request, Response,
    WireValue,
};

const CLIENT: &str = "c0ffee00c0ffee00";

struct Driver {
    owner: Owner,
    next: u32,
}

impl Driver {
    fn call(&mut self, req: Request) -> Response {
        self.next += 1;
        let env = Envelope {
            epoch: self.owner.epoch(),
            client: CLIENT.to_string(),
            request: self.next,
        };
        let bytes = encode_request(&env, &req);
        let replies = self.owner.handle(&bytes);
        let reply = replies.last().expect("a reply");
        let (_, resp) = decode_response(&reply.bytes).expect("a valid response");
        if let Response::Failed(e) = &resp {
            panic!("{req:?}: {e:?}");
        }
        resp
    }
    fn prepare(&mut self, sql: &str) -> u32 {
        match self.call(Request::Prepare {
            sql: sql.to_string(),
        }) {
            Response::Prepared { stmt, .. } => stmt,
            r => panic!("{r:?}"),
        }
    }
}

fn payload(i: i64) -> String {
    format!("{i:08}").repeat(8)
}

fn main() {
    let opts = OwnerOptions {
        batch_limit_bytes: 64 << 20,
        validation: Validation::Full,
        cache_pages: 4096,
        commit: CommitMode::OneFlush,
    };
    let owner = Owner::open_memory(CLIENT, &opts).expect("open");
    let mut d = Driver { owner, next: 0 };
    d.call(Request::Open);
    if std::env::args().nth(1).as_deref() == Some("lookups") {
        return lookups(d);
    }
    d.call(Request::Exec {
        txn: None,
        sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)".into(),
    });
    let ins = d.prepare("INSERT INTO t(id, title, payload) VALUES (?, ?, ?)");
    let upd = d.prepare("UPDATE t SET title = ? WHERE id = ?");
    let del = d.prepare("DELETE FROM t WHERE id = ?");
    let n: i64 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let run = |d: &mut Driver, txn: &str, stmt: u32, p: Vec<WireValue>| -> u64 {
        match d.call(Request::Run {
            txn: Some(txn.to_string()),
            stmt,
            params: Params::Positional(p),
        }) {
            Response::Rows(rs) => rs.changes,
            r => panic!("{r:?}"),
        }
    };
    d.call(Request::Begin { txn: "c.1".into() });
    for i in 1..=n {
        run(
            &mut d,
            "c.1",
            ins,
            vec![
                WireValue::Integer(i),
                WireValue::Text(format!("t{i}")),
                WireValue::Text(payload(i)),
            ],
        );
    }
    d.call(Request::Commit { txn: "c.1".into() });
    measured("mixed 1000 ops through Owner::handle", || {
        d.call(Request::Begin { txn: "c.2".into() });
        // The comparison's operations (scripts/compare/web/common.js, `mixedOps`).
        for (k, (kind, p)) in mixed_ops(n, payload).into_iter().enumerate() {
            let stmt = [ins, upd, del][kind];
            assert_eq!(
                run(&mut d, "c.2", stmt, p),
                1,
                "operation {k} changed one row"
            );
        }
        d.call(Request::Commit { txn: "c.2".into() });
    });
}

/// The comparison's warm point lookups through the in-worker API's direct
/// calls: the request's fields written into the input buffer as the
/// TypeScript side writes them, one `serve` per lookup.
fn lookups(mut d: Driver) {
    d.call(Request::Exec {
        txn: None,
        sql: KV_TABLE.into(),
    });
    let ins = d.prepare(KV_INSERT);
    let (rows, ids) = kv_rows_and_ids();
    d.call(Request::Begin { txn: "c.1".into() });
    for row in rows {
        d.call(Request::Run {
            txn: Some("c.1".into()),
            stmt: ins,
            params: Params::Positional(row),
        });
    }
    d.call(Request::Commit { txn: "c.1".into() });
    let sql = std::env::var("LOOKUP_SQL").unwrap_or_else(|_| KV_LOOKUP.into());
    let st = d.prepare(&sql);
    let mut bufs = DirectBuffers::default();
    let found = measured("10k point lookups through direct::serve", || {
        let mut found = 0;
        for &id in &ids {
            let input = bufs.input_for(14);
            input[0] = params_tag::POSITIONAL;
            input[1..5].copy_from_slice(&1u32.to_le_bytes());
            input[5] = tag::INTEGER;
            input[6..14].copy_from_slice(&id.to_le_bytes());
            assert!(serve(&mut d.owner, &mut bufs, kind::RUN, -1, 0, st, 14));
            found += usize::from(bufs.output.len() > 30);
        }
        found
    });
    assert_eq!(found, 10_000);
}
