//! Sorts past the batch limit: with temp space (`Database::open_with_temp`)
//! ORDER BY, INSERT ... SELECT and CREATE INDEX over data ten times the
//! limit complete and agree with SQLite; without it they fail with
//! `BatchLimitExceeded` and change nothing; a temp device that fails
//! gives `Error::Io` and leaves committed data intact.

mod common;

use common::sqlite_rows;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tinyjoin_engine::storage::{Device, MemoryDevice};
use tinyjoin_engine::{Connection, Database, DbOptions, Error, Params, Value};

const LIMIT: u64 = 256 * 1024;
const ROWS: i64 = 20_000;

fn opts() -> DbOptions {
    DbOptions {
        batch_limit_bytes: LIMIT,
        ..DbOptions::default()
    }
}

/// A memory database with memory temp space and a batch limit of `limit`.
fn in_memory_with_temp(limit: u64) -> Database {
    let opts = DbOptions {
        batch_limit_bytes: limit,
        ..DbOptions::default()
    };
    let temp = Box::new(MemoryDevice::new());
    Database::open_with_temp(Box::new(MemoryDevice::new()), temp, opts).unwrap()
}

fn rows(c: &mut Connection, sql: &str) -> Vec<Vec<Value>> {
    c.execute(sql, &Params::None)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .rows
}

fn to_sql(v: &Value) -> rusqlite::types::Value {
    match v {
        Value::Null => rusqlite::types::Value::Null,
        Value::Integer(i) => rusqlite::types::Value::Integer(*i),
        Value::Real(f) => rusqlite::types::Value::Real(*f),
        Value::Text(s) => rusqlite::types::Value::Text(s.clone()),
        Value::Blob(b) => rusqlite::types::Value::Blob(b.clone()),
    }
}

/// `t(id, a TEXT, b INTEGER, c REAL, d BLOB, e)`: mixed-case text with
/// many duplicates, small integers (ties), reals, blobs, NULLs in every
/// column, and an untyped column holding every type. About 3 MiB.
fn random_rows(seed: u64, n: i64) -> Vec<Vec<Value>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let words = [
        "apple", "Apple", "APPLE", "banana", "Banana ", "cherry", "", "Zed",
    ];
    (1..=n)
        .map(|id| {
            let null = |rng: &mut SmallRng| rng.gen_ratio(1, 10);
            let a = if null(&mut rng) {
                Value::Null
            } else {
                let w = words[rng.gen_range(0..words.len())];
                Value::Text(format!("{w}{}", "x".repeat(rng.gen_range(0..240))))
            };
            let b = if null(&mut rng) {
                Value::Null
            } else {
                Value::Integer(rng.gen_range(-5..5))
            };
            let c = if null(&mut rng) {
                Value::Null
            } else {
                Value::Real(f64::from(rng.gen_range(-8..8)) / 4.0)
            };
            let d = if null(&mut rng) {
                Value::Null
            } else {
                Value::Blob(
                    (0..rng.gen_range(0..6))
                        .map(|_| rng.gen_range(0..3))
                        .collect(),
                )
            };
            let e = match rng.gen_range(0..5) {
                0 => Value::Null,
                1 => Value::Integer(rng.gen_range(0..3)),
                2 => Value::Real(f64::from(rng.gen_range(0..3))),
                3 => Value::Text(words[rng.gen_range(0..words.len())].into()),
                _ => Value::Blob(vec![rng.gen_range(0..3)]),
            };
            vec![Value::Integer(id), a, b, c, d, e]
        })
        .collect()
}

const SCHEMA: &str = "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b INTEGER, c REAL, d BLOB, e);
     CREATE TABLE t2(k INTEGER PRIMARY KEY, id, a TEXT, b INTEGER, c REAL, d BLOB, e);";

fn load(c: &mut Connection, data: &[Vec<Value>]) {
    c.execute_batch(SCHEMA).unwrap();
    let mut ins = c
        .prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)")
        .unwrap();
    c.execute_batch("BEGIN").unwrap();
    for r in data {
        ins.execute(c, &Params::Positional(r.clone())).unwrap();
    }
    c.execute_batch("COMMIT").unwrap();
}

fn load_sqlite(data: &[Vec<Value>]) -> rusqlite::Connection {
    let lite = rusqlite::Connection::open_in_memory().unwrap();
    lite.execute_batch(SCHEMA).unwrap();
    lite.execute_batch("BEGIN").unwrap();
    {
        let mut st = lite
            .prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)")
            .unwrap();
        for r in data {
            st.execute(rusqlite::params_from_iter(r.iter().map(to_sql)))
                .unwrap();
        }
    }
    lite.execute_batch("COMMIT").unwrap();
    lite
}

/// A database with the limit and temp space in memory, and SQLite with
/// the same rows.
fn both(temp: Option<Box<dyn Device>>) -> (Database, MemoryDevice, rusqlite::Connection) {
    let data = random_rows(7, ROWS);
    let dev = MemoryDevice::new();
    let db = match temp {
        Some(t) => Database::open_with_temp(Box::new(dev.clone()), t, opts()),
        None => Database::open(Box::new(dev.clone()), opts()),
    }
    .unwrap();
    load(&mut db.connect(), &data);
    (db, dev, load_sqlite(&data))
}

/// Sorts of the whole table, each needing far more than the limit.
const SORTS: &[&str] = &[
    "SELECT * FROM t ORDER BY a",
    "SELECT * FROM t ORDER BY b",
    "SELECT * FROM t ORDER BY a COLLATE NOCASE DESC, b",
    "SELECT * FROM t ORDER BY c DESC, d",
    "SELECT id, a, e FROM t ORDER BY e, a DESC",
    "SELECT * FROM t ORDER BY d DESC, c, id DESC",
    "SELECT a || b, e FROM t ORDER BY 1 DESC",
    "SELECT * FROM t WHERE b > 0 ORDER BY a, c",
    "SELECT * FROM t ORDER BY a DESC LIMIT 30 OFFSET 15000",
    "SELECT * FROM t ORDER BY b, c LIMIT 12000",
    "SELECT e, a, id FROM t ORDER BY e DESC, a COLLATE NOCASE",
];

/// Temp space in memory that counts its writes and their largest size.
#[derive(Clone, Default)]
struct CountingTemp {
    bytes: MemoryDevice,
    writes: std::rc::Rc<std::cell::Cell<(u64, usize)>>,
}

impl Device for CountingTemp {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tinyjoin_engine::Result<()> {
        self.bytes.read_at(offset, buf)
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> tinyjoin_engine::Result<()> {
        let (n, max) = self.writes.get();
        self.writes.set((n + 1, max.max(data.len())));
        self.bytes.write_at(offset, data)
    }
    fn flush(&mut self) -> tinyjoin_engine::Result<()> {
        self.bytes.flush()
    }
    fn len(&mut self) -> tinyjoin_engine::Result<u64> {
        self.bytes.len()
    }
    fn truncate(&mut self, len: u64) -> tinyjoin_engine::Result<()> {
        self.bytes.truncate(len)
    }
}

#[test]
fn order_by_past_the_limit_spills_and_agrees_with_sqlite() {
    let counting = CountingTemp::default();
    let temp = counting.bytes.clone();
    let (db, _, lite) = both(Some(Box::new(counting.clone())));
    let mut c = db.connect();
    let bytes: i64 = rows(&mut c, "SELECT sum(length(a) + length(d) + 40) FROM t")[0][0]
        .clone()
        .try_into_i64();
    assert!(bytes as u64 > 10 * LIMIT, "the data must dwarf the limit");
    for sql in SORTS {
        assert_eq!(rows(&mut c, sql), sqlite_rows(&lite, sql), "{sql}");
        // Temp space is emptied when the statement ends.
        assert_eq!(temp.to_bytes().len(), 0, "{sql}");
        // It was used, in writes of a whole 64 KiB buffer.
        let (writes, largest) = counting.writes.replace((0, 0));
        assert!(
            writes >= 10 && largest >= 64 << 10,
            "{sql}: {writes} writes, largest {largest}"
        );
    }
}

trait IntValue {
    fn try_into_i64(self) -> i64;
}

impl IntValue for Value {
    fn try_into_i64(self) -> i64 {
        match self {
            Value::Integer(i) => i,
            v => panic!("not an integer: {v:?}"),
        }
    }
}

#[test]
fn insert_select_and_create_index_past_the_limit() {
    let (db, _, lite) = both(Some(Box::new(MemoryDevice::new())));
    let mut c = db.connect();
    for sql in [
        "INSERT INTO t2(id, a, b, c, d, e) SELECT * FROM t ORDER BY a DESC, id",
        "INSERT INTO t2(id, a, b, c, d, e) SELECT * FROM t WHERE b < 0",
        "CREATE INDEX t_a ON t(a, c)",
        "CREATE INDEX t_lower ON t(lower(a)) WHERE b > 0",
        "CREATE UNIQUE INDEX t_ida ON t(a, id)",
        "CREATE INDEX t2_e ON t2(e, d)",
    ] {
        c.execute_batch(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        lite.execute_batch(sql).unwrap();
    }
    let report = db.check().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    for sql in [
        "SELECT * FROM t2",
        "SELECT count(*) FROM t2",
        "SELECT id FROM t WHERE a = 'apple' ORDER BY c, id",
        "SELECT id, a FROM t WHERE lower(a) = 'banana ' AND b > 0 ORDER BY id",
        "SELECT k FROM t2 WHERE e = 1 ORDER BY d, k",
    ] {
        assert_eq!(rows(&mut c, sql), sqlite_rows(&lite, sql), "{sql}");
    }
    // A UNIQUE index over duplicates fails as before, and changes nothing.
    let e = c.execute_batch("CREATE UNIQUE INDEX t_b ON t(b)");
    assert!(matches!(e, Err(Error::Constraint { .. })), "{e:?}");
    assert!(db.check().unwrap().problems.is_empty());
}

#[test]
fn filtered_scans_of_a_table_past_the_limit_stream_without_temp_space() {
    // Equality filters on the only (outermost) table must not hash the
    // whole table: a scan with the filter reads it once, in constant memory.
    let (db, _dev, lite) = both(None);
    let mut c = db.connect();
    for sql in [
        "SELECT count(*), sum(b) FROM t WHERE b = 3",
        "SELECT id FROM t WHERE b = 2 AND c = 0.5 ORDER BY id LIMIT 50",
        "SELECT count(*) FROM t WHERE a = 'Zed' AND b = -1",
        "SELECT count(*), total(c) FROM t WHERE e = 1 OR b = 4",
    ] {
        assert_eq!(rows(&mut c, sql), sqlite_rows(&lite, sql), "{sql}");
    }
}

#[test]
fn without_temp_space_the_same_work_fails_and_changes_nothing() {
    let (db, dev, _) = both(None);
    let mut c = db.connect();
    let before = dev.to_bytes();
    for sql in SORTS.iter().take(8).copied().chain([
        "INSERT INTO t2(id, a, b, c, d, e) SELECT * FROM t ORDER BY a DESC, id",
        "INSERT INTO t2(id, a, b, c, d, e) SELECT * FROM t",
        "CREATE INDEX t_a ON t(a, c)",
    ]) {
        let r = c.execute(sql, &Params::None);
        assert!(
            matches!(r, Err(Error::BatchLimitExceeded { .. })),
            "{sql}: {:?}",
            r.map(|r| r.rows.len())
        );
    }
    assert_eq!(dev.to_bytes(), before, "the file changed");
    assert_eq!(
        rows(&mut c, "SELECT count(*) FROM t2"),
        vec![vec![Value::Integer(0)]]
    );
    assert!(db.check().unwrap().problems.is_empty());
    // Small sorts still run in memory.
    assert_eq!(
        rows(&mut c, "SELECT id FROM t ORDER BY a, id LIMIT 3").len(),
        3
    );
}

/// A temp device whose writes fail (reads of nothing succeed).
struct FailingTemp;

impl Device for FailingTemp {
    fn read_at(&mut self, _: u64, buf: &mut [u8]) -> tinyjoin_engine::Result<()> {
        buf.fill(0);
        Ok(())
    }
    fn write_at(&mut self, _: u64, _: &[u8]) -> tinyjoin_engine::Result<()> {
        Err(Error::Io("temp device refuses writes".into()))
    }
    fn flush(&mut self) -> tinyjoin_engine::Result<()> {
        Ok(())
    }
    fn len(&mut self) -> tinyjoin_engine::Result<u64> {
        Ok(0)
    }
    fn truncate(&mut self, _: u64) -> tinyjoin_engine::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_temp_device_gives_io_errors_and_keeps_committed_data() {
    let (db, dev, lite) = both(Some(Box::new(FailingTemp)));
    let mut c = db.connect();
    let before = dev.to_bytes();
    for sql in [
        "SELECT * FROM t ORDER BY a",
        "INSERT INTO t2(id, a, b, c, d, e) SELECT * FROM t ORDER BY a DESC, id",
        "CREATE INDEX t_a ON t(a, c)",
    ] {
        let r = c.execute(sql, &Params::None);
        assert!(
            matches!(r, Err(Error::Io(_))),
            "{sql}: {:?}",
            r.map(|r| r.rows.len())
        );
    }
    assert_eq!(dev.to_bytes(), before, "the file changed");
    assert!(db.check().unwrap().problems.is_empty());
    // Inside a transaction: the statement is undone, the transaction goes on.
    c.execute_batch("BEGIN; INSERT INTO t2(id) VALUES (1)")
        .unwrap();
    let r = c.execute(
        "INSERT INTO t2(id, a) SELECT id, a FROM t ORDER BY a",
        &Params::None,
    );
    assert!(matches!(r, Err(Error::Io(_))), "{r:?}");
    c.execute_batch("COMMIT").unwrap();
    assert_eq!(
        rows(&mut c, "SELECT count(*) FROM t2"),
        vec![vec![Value::Integer(1)]]
    );
    let sql = "SELECT * FROM t ORDER BY id LIMIT 100";
    assert_eq!(rows(&mut c, sql), sqlite_rows(&lite, sql));
}

#[test]
fn nested_sorts_spill_at_the_same_time() {
    let (db, _, lite) = both(Some(Box::new(MemoryDevice::new())));
    let mut c = db.connect();
    // The outer sort has written runs when the correlated subquery's own
    // sort (12,000 rows kept) spills for some outer rows; both merge.
    // Subqueries in FROM sort past the limit (keeping 9,300 rows), but
    // their results are held in memory and charged, so they are small.
    for sql in [
        "SELECT id, a, CASE WHEN id % 4000 = 0 THEN \
           (SELECT u.a || u.id FROM t AS u WHERE u.b <> t.b \
            ORDER BY u.a DESC, u.c, u.id LIMIT 1 OFFSET 11000) END \
         FROM t ORDER BY a, c, id",
        "SELECT * FROM (SELECT id, a, b FROM t ORDER BY a DESC LIMIT 300) ORDER BY b, a",
        "SELECT b, count(*), min(a) FROM (SELECT * FROM t ORDER BY c, id LIMIT 300 OFFSET 9000) GROUP BY b ORDER BY 3",
    ] {
        assert_eq!(rows(&mut c, sql), sqlite_rows(&lite, sql), "{sql}");
    }
}

#[test]
fn spilled_and_in_memory_sorts_agree_on_random_data() {
    // TinyJoin against itself: a small limit with temp space (spills)
    // and a large one (sorts in memory), over random rows and sorts.
    let mut rng = SmallRng::seed_from_u64(99);
    for case in 0..6 {
        let n = rng.gen_range(2_000..8_000);
        let data = random_rows(case, n);
        let limit = [64u64 << 10, 128 << 10, 256 << 10][rng.gen_range(0..3)];
        let small = in_memory_with_temp(limit);
        let big = Database::open_in_memory().unwrap();
        let (mut s, mut b) = (small.connect(), big.connect());
        load(&mut s, &data);
        load(&mut b, &data);
        let cols = ["a", "b", "c", "d", "e", "a COLLATE NOCASE", "id"];
        for _ in 0..4 {
            let keys: Vec<String> = (0..rng.gen_range(1..4))
                .map(|_| {
                    let dir = if rng.gen() { " DESC" } else { "" };
                    format!("{}{dir}", cols[rng.gen_range(0..cols.len())])
                })
                .collect();
            let limit = if rng.gen_bool(0.3) {
                format!(" LIMIT {}", rng.gen_range(0..n))
            } else {
                String::new()
            };
            let sql = format!("SELECT * FROM t ORDER BY {}{limit}", keys.join(", "));
            assert_eq!(rows(&mut s, &sql), rows(&mut b, &sql), "case {case}: {sql}");
        }
    }
}

/// Timing, not a check: `cargo test --release --test sql_spill -- --ignored
/// --nocapture`. ORDER BY over 1M rows with the default limit in memory
/// (a 1 GiB limit) and spilled (16 MiB limit, temp space in memory).
#[test]
#[ignore]
fn time_order_by_of_a_million_rows() {
    let n = 1_000_000i64;
    for (name, limit) in [("in memory", 1u64 << 30), ("spilled", 16 << 20)] {
        let db = in_memory_with_temp(limit);
        let mut c = db.connect();
        c.execute_batch("CREATE TABLE m(id INTEGER PRIMARY KEY, k INTEGER, s TEXT)")
            .unwrap();
        let chunk = 50_000;
        for first in (1..=n).step_by(chunk as usize) {
            c.execute_batch(&format!(
                "WITH RECURSIVE n(i) AS (SELECT {first} UNION ALL SELECT i + 1 FROM n \
                 WHERE i < {}) \
                 INSERT INTO m SELECT i, (i * 7919) % 1000003, 'row ' || ((i * 31) % 1000) FROM n",
                first + chunk - 1
            ))
            .unwrap();
        }
        for sql in [
            "SELECT id, k, s FROM m ORDER BY k",
            "SELECT id, s FROM m ORDER BY s, k DESC",
            "SELECT id FROM m ORDER BY k DESC LIMIT 10",
        ] {
            let start = std::time::Instant::now();
            let got = rows(&mut c, sql).len();
            println!("{name:>9}: {sql}: {got} rows in {:?}", start.elapsed());
        }
        let start = std::time::Instant::now();
        c.execute_batch("CREATE INDEX m_s ON m(s, k)").unwrap();
        println!(
            "{name:>9}: CREATE INDEX m_s ON m(s, k): {:?}",
            start.elapsed()
        );
    }
}
