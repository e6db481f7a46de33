//! The device calls of single-row autocommit INSERTs (the comparison's 200
//! durable transactions) under each commit mode: how many writes, of how
//! many bytes, and flushes each commit makes. A tool, not a test.
//!
//! ```sh
//! cargo run --release -p tinyjoin-engine --example commit_io
//! ```

#[path = "common/recording.rs"]
mod recording;

use recording::{calls_since, logged, totals_since, Call, Recording};
use tinyjoin_engine::storage::{CommitMode, MemoryDevice};
use tinyjoin_engine::{Database, DbOptions, Params, Value};

fn main() {
    for mode in [
        CommitMode::OneFlush,
        CommitMode::TwoFlush,
        CommitMode::Deferred,
    ] {
        let dev = Recording(MemoryDevice::new());
        let opts = DbOptions {
            commit: mode,
            ..DbOptions::default()
        };
        let db = Database::open(Box::new(dev), opts).expect("open");
        let mut c = db.connect();
        c.execute(
            "CREATE TABLE log(id INTEGER PRIMARY KEY, v TEXT NOT NULL)",
            &Params::None,
        )
        .expect("create");
        let mut ins = c
            .prepare("INSERT INTO log(id, v) VALUES (?, ?)")
            .expect("prepare");
        let n = 200;
        let start = logged();
        let mut last = Vec::new();
        for i in 1..=n {
            let p = Params::Positional(vec![Value::Integer(i), Value::Text(format!("entry {i}"))]);
            let before = logged();
            ins.execute(&mut c, &p).expect("insert");
            if i == n {
                last = calls_since(before, |c| match c {
                    Call::Write(at, len) => format!("write {len} bytes at {at}"),
                    Call::Flush => "flush".to_string(),
                });
            }
        }
        let t = totals_since(start);
        println!(
            "{mode:?}: {n} commits, {:.2} writes ({:.0} bytes) and {:.2} flushes per commit; the last commit: {}",
            t.writes as f64 / n as f64,
            t.bytes as f64 / n as f64,
            t.flushes as f64 / n as f64,
            last.join(", "),
        );
    }
}
