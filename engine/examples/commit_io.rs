//! The device calls of single-row autocommit INSERTs (the comparison's 200
//! durable transactions) under each commit mode: how many writes, of how
//! many bytes, and flushes each commit makes. A tool, not a test.
//!
//! ```sh
//! cargo run --release -p tinyjoin-engine --example commit_io
//! ```

use std::cell::RefCell;
use std::rc::Rc;
use tinyjoin_engine::storage::{CommitMode, Device, MemoryDevice};
use tinyjoin_engine::{Database, DbOptions, Params, Value};

/// One device call: a write (offset, length) or a flush.
enum Call {
    Write(u64, usize),
    Flush,
}

/// A memory device that records its writes and flushes.
struct Recording {
    inner: MemoryDevice,
    log: Rc<RefCell<Vec<Call>>>,
}

impl Device for Recording {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tinyjoin_engine::Result<()> {
        self.inner.read_at(offset, buf)
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> tinyjoin_engine::Result<()> {
        self.log.borrow_mut().push(Call::Write(offset, data.len()));
        self.inner.write_at(offset, data)
    }
    fn flush(&mut self) -> tinyjoin_engine::Result<()> {
        self.log.borrow_mut().push(Call::Flush);
        self.inner.flush()
    }
    fn len(&mut self) -> tinyjoin_engine::Result<u64> {
        self.inner.len()
    }
    fn truncate(&mut self, len: u64) -> tinyjoin_engine::Result<()> {
        self.inner.truncate(len)
    }
}

fn main() {
    for mode in [
        CommitMode::OneFlush,
        CommitMode::TwoFlush,
        CommitMode::Deferred,
    ] {
        let log = Rc::new(RefCell::new(Vec::new()));
        let dev = Recording {
            inner: MemoryDevice::new(),
            log: log.clone(),
        };
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
        log.borrow_mut().clear();
        let mut last = Vec::new();
        for i in 1..=n {
            let p = Params::Positional(vec![Value::Integer(i), Value::Text(format!("entry {i}"))]);
            let before = log.borrow().len();
            ins.execute(&mut c, &p).expect("insert");
            if i == n {
                last = log.borrow()[before..]
                    .iter()
                    .map(|c| match c {
                        Call::Write(at, len) => format!("write {len} bytes at {at}"),
                        Call::Flush => "flush".to_string(),
                    })
                    .collect();
            }
        }
        let log = log.borrow();
        let writes: Vec<usize> = log
            .iter()
            .filter_map(|c| match c {
                Call::Write(_, len) => Some(*len),
                Call::Flush => None,
            })
            .collect();
        let flushes = log.iter().filter(|c| matches!(c, Call::Flush)).count();
        println!(
            "{mode:?}: {n} commits, {:.2} writes ({:.0} bytes) and {:.2} flushes per commit; the last commit: {}",
            writes.len() as f64 / n as f64,
            writes.iter().sum::<usize>() as f64 / n as f64,
            flushes as f64 / n as f64,
            last.join(", "),
        );
    }
}
