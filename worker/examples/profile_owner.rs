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
//! 1,000 over 1,000. A tool, not a test.

#[path = "../../engine/examples/common/measured.rs"]
mod measured;

use measured::measured;
use tinyjoin_engine::storage::{CommitMode, Validation};
use tinyjoin_worker::owner::{Owner, OwnerOptions};
use tinyjoin_worker::protocol::{
    decode_response, encode_request, Envelope, Params, Request, Response, WireValue,
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
        // The comparison's operations (scripts/compare/web/common.js,
        // `mixedOps`): updates hit odd initial ids, deletes even ones.
        let (mut u, mut del_n) = (0i64, 0i64);
        for k in 0..n {
            let (stmt, p) = match k % 3 {
                0 => {
                    let id = n + 1 + k;
                    let row = vec![
                        WireValue::Integer(id),
                        WireValue::Text(format!("n{id}")),
                        WireValue::Text(payload(id)),
                    ];
                    (ins, row)
                }
                1 => {
                    let id = 2 * u + 1;
                    u += 1;
                    let p = vec![
                        WireValue::Text(format!("u{id}-{k}")),
                        WireValue::Integer(id),
                    ];
                    (upd, p)
                }
                _ => {
                    del_n += 1;
                    (del, vec![WireValue::Integer(2 * del_n)])
                }
            };
            assert_eq!(
                run(&mut d, "c.2", stmt, p),
                1,
                "operation {k} changed one row"
            );
        }
        d.call(Request::Commit { txn: "c.2".into() });
    });
}
