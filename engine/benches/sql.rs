//! SQL benchmarks against SQLite (rusqlite, bundled) in one run: the
//! analytic, join and index workloads of issue 3, the same SQL text on both
//! engines. TinyJoin runs through the public API (`tinyjoin_engine::db`) on a
//! `FileDevice` with default options; SQLite runs on a file in
//! journal_mode=WAL, synchronous=FULL. Both use prepared statements.
//!
//! Each workload runs `reps` times per engine, alternating which engine
//! goes first. Read workloads are timed twice per repetition: "first" is
//! prepare + run right after the database was reopened (cold engine cache,
//! warm OS cache), "repeat" is running the same prepared statement again.
//! Writes are timed once per repetition. Every run's rows are compared
//! between the engines (as bags unless the query has an ORDER BY; reals
//! within 1e-9 relative) and the benchmark panics on any difference.
//! Writes are followed by an untimed check query compared the same way.
//!
//! Prints a markdown table: min / median / max per engine in milliseconds,
//! the ratio SQLite median / TinyJoin median (> 1 means TinyJoin is
//! faster), and a verdict only when the min–max ranges do not overlap.
//! A tool, not a test: nothing here asserts a time.
//!
//! `cargo bench -p tinyjoin-engine --bench sql [-- --quick | --profile] [--only SUBSTR]`
//! (`--profile`: one repetition of a small profile, for callgrind).
//! `TINYJOIN_BENCH_CACHE_PAGES=N` sets TinyJoin's page cache (default: the
//! engine's default), to see how a workload depends on it.

// The integration tests' SQLite helpers (SQLite values as TinyJoin's).
#[path = "../tests/common/mod.rs"]
mod common;

use rusqlite::types::Value as SqValue;
use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tinyjoin_engine::storage::FileDevice;
use tinyjoin_engine::{Connection, Database, DbOptions, Params, Value};

type Rows = Vec<Vec<Value>>;

/// Sizes of one profile.
struct Config {
    reps: usize,
    /// Rows of the analytic table `t`.
    analytic_rows: u64,
    /// Rows of `cust`, `orders`, `items`.
    cust_rows: u64,
    order_rows: u64,
    item_rows: u64,
    /// Rows of the index table `a`.
    a_rows: u64,
    eq_lookups: u64,
    range_lookups: u64,
    composite_lookups: u64,
    expr_lookups: u64,
    point_joins: u64,
    /// Rows changed by the UPDATE and DELETE workloads.
    write_rows: u64,
    bulk_rows: u64,
    /// Only workloads whose name contains this run (`--only`).
    only: Option<String>,
}

impl Config {
    /// Distinct values of `a.b`: 200 rows each.
    fn b_distinct(&self) -> u64 {
        (self.a_rows / 200).max(1)
    }
    fn wanted(&self, name: &str) -> bool {
        self.only.as_deref().is_none_or(|o| name.contains(o))
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    TinyJoin,
    Sqlite,
}

const KINDS: [Kind; 2] = [Kind::TinyJoin, Kind::Sqlite];

/// An open connection of one engine.
enum Conn {
    Tj(Box<Connection>),
    Sq(rusqlite::Connection),
}

fn open(kind: Kind, path: &Path) -> Conn {
    match kind {
        Kind::TinyJoin => {
            let dev = FileDevice::open(path).expect("open TinyJoin file");
            let mut opts = DbOptions::default();
            if let Some(n) = std::env::var("TINYJOIN_BENCH_CACHE_PAGES")
                .ok()
                .and_then(|v| v.parse().ok())
            {
                opts.cache_pages = n;
            }
            // Scratch space for sorts past the batch limit (CREATE INDEX on
            // the 200k-row tables), as the shell and the browser have.
            let temp = FileDevice::open(path.with_extension("temp")).expect("open temp file");
            let db = Database::open_with_temp(Box::new(dev), Box::new(temp), opts)
                .expect("open TinyJoin");
            Conn::Tj(Box::new(db.connect()))
        }
        Kind::Sqlite => {
            let c = rusqlite::Connection::open(path).expect("open SQLite file");
            c.pragma_update(None, "journal_mode", "WAL").unwrap();
            c.pragma_update(None, "synchronous", "FULL").unwrap();
            Conn::Sq(c)
        }
    }
}

fn to_sq(v: &Value) -> SqValue {
    match v {
        Value::Null => SqValue::Null,
        Value::Integer(i) => SqValue::Integer(*i),
        Value::Real(r) => SqValue::Real(*r),
        Value::Text(s) => SqValue::Text(s.clone()),
        Value::Blob(b) => SqValue::Blob(b.clone()),
    }
}

/// What one engine returned for each parameter set, and the times.
struct Timed {
    first_ms: f64,
    repeat_ms: Option<f64>,
    results: Vec<Rows>,
}

/// A statement without result columns reports its change count as a row.
fn tj_run(c: &mut Connection, st: &mut tinyjoin_engine::Statement, sql: &str, p: &[Value]) -> Rows {
    let r = st
        .execute(c, &Params::Positional(p.to_vec()))
        .unwrap_or_else(|e| panic!("TinyJoin failed on `{sql}` with {p:?}: {e:?}"));
    if r.columns.is_empty() {
        vec![vec![Value::Integer(r.changes as i64)]]
    } else {
        r.rows
    }
}

fn sq_run(st: &mut rusqlite::Statement<'_>, sql: &str, p: &[Value]) -> Rows {
    let n = st.column_count();
    let params = rusqlite::params_from_iter(p.iter().map(to_sq));
    if n == 0 {
        let changes = st
            .execute(params)
            .unwrap_or_else(|e| panic!("SQLite failed on `{sql}`: {e:?}"));
        return vec![vec![Value::Integer(changes as i64)]];
    }
    let mut rows = st
        .query(params)
        .unwrap_or_else(|e| panic!("SQLite failed on `{sql}`: {e:?}"));
    let mut out = Vec::new();
    while let Some(r) = rows.next().unwrap() {
        out.push(
            (0..n)
                .map(|i| common::from_sqlite(r.get_ref(i).unwrap()))
                .collect(),
        );
    }
    out
}

/// Prepares `sql` and runs it once per parameter set (inside one
/// transaction when `txn`), timed with the preparation; then, when
/// `repeat`, runs the prepared statement over the sets again, timed alone.
fn timed(conn: &mut Conn, sql: &str, sets: &[Vec<Value>], txn: bool, repeat: bool) -> Timed {
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
    match conn {
        Conn::Tj(c) => {
            let t = Instant::now();
            if txn {
                c.execute("BEGIN", &Params::None).unwrap();
            }
            let mut st = c
                .prepare(sql)
                .unwrap_or_else(|e| panic!("TinyJoin cannot prepare `{sql}`: {e:?}"));
            let results: Vec<Rows> = sets.iter().map(|p| tj_run(c, &mut st, sql, p)).collect();
            if txn {
                c.execute("COMMIT", &Params::None).unwrap();
            }
            let first_ms = ms(t);
            let repeat_ms = repeat.then(|| {
                let t = Instant::now();
                let again: Vec<Rows> = sets.iter().map(|p| tj_run(c, &mut st, sql, p)).collect();
                let d = ms(t);
                same_runs("TinyJoin repeat", sql, sets, &results, &again, true);
                d
            });
            Timed {
                first_ms,
                repeat_ms,
                results,
            }
        }
        Conn::Sq(c) => {
            let t = Instant::now();
            if txn {
                c.execute_batch("BEGIN").unwrap();
            }
            let results: Vec<Rows> = {
                let mut st = c
                    .prepare_cached(sql)
                    .unwrap_or_else(|e| panic!("SQLite cannot prepare `{sql}`: {e:?}"));
                sets.iter().map(|p| sq_run(&mut st, sql, p)).collect()
            };
            if txn {
                c.execute_batch("COMMIT").unwrap();
            }
            let first_ms = ms(t);
            let repeat_ms = repeat.then(|| {
                let mut st = c.prepare_cached(sql).unwrap();
                let t = Instant::now();
                let again: Vec<Rows> = sets.iter().map(|p| sq_run(&mut st, sql, p)).collect();
                let d = ms(t);
                same_runs("SQLite repeat", sql, sets, &results, &again, true);
                d
            });
            Timed {
                first_ms,
                repeat_ms,
                results,
            }
        }
    }
}

/// Order for bag comparison: by type, then value.
fn cmp_value(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Integer(_) => 1,
            Value::Real(_) => 2,
            Value::Text(_) => 3,
            Value::Blob(_) => 4,
        }
    }
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Real(x), Value::Real(y)) => x.total_cmp(y),
        (Value::Text(x), Value::Text(y)) => x.cmp(y),
        (Value::Blob(x), Value::Blob(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn cmp_row(a: &[Value], b: &[Value]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| cmp_value(x, y))
        .find(|o| o.is_ne())
        .unwrap_or(a.len().cmp(&b.len()))
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        _ => a == b,
    }
}

/// Whether two results are equal (as bags unless `ordered`).
fn same_rows(a: &Rows, b: &Rows, ordered: bool) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a.clone(), b.clone());
    if !ordered {
        x.sort_by(|p, q| cmp_row(p, q));
        y.sort_by(|p, q| cmp_row(p, q));
    }
    x.iter()
        .zip(&y)
        .all(|(p, q)| p.len() == q.len() && p.iter().zip(q).all(|(u, v)| same_value(u, v)))
}

/// Panics, showing the first difference, unless the runs agree.
fn same_runs(what: &str, sql: &str, sets: &[Vec<Value>], a: &[Rows], b: &[Rows], ordered: bool) {
    assert_eq!(a.len(), b.len(), "{what}: run counts differ for `{sql}`");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if !same_rows(x, y, ordered) {
            let show = |r: &Rows| {
                let mut r = r.clone();
                if !ordered {
                    r.sort_by(|p, q| cmp_row(p, q));
                }
                r.truncate(20);
                r
            };
            panic!(
                "\n!!! RESULT MISMATCH ({what})\n  sql: {sql}\n  params: {:?}\n  \
                 left ({} rows, first 20): {:?}\n  right ({} rows, first 20): {:?}\n",
                sets.get(i),
                x.len(),
                show(x),
                y.len(),
                show(y)
            );
        }
    }
}

/// Times of one table row, per engine (index into `KINDS`).
struct Sample {
    name: String,
    ms: [Vec<f64>; 2],
}

/// The database files of one engine group and their open connections.
struct Files {
    paths: [PathBuf; 2],
    conns: [Option<Conn>; 2],
}

impl Files {
    fn new(dir: &Path, name: &str) -> Files {
        let paths = [
            dir.join(format!("{name}-tinyjoin.db")),
            dir.join(format!("{name}-sqlite.db")),
        ];
        for p in &paths {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
            }
        }
        let conns = [
            Some(open(Kind::TinyJoin, &paths[0])),
            Some(open(Kind::Sqlite, &paths[1])),
        ];
        Files { paths, conns }
    }

    fn conn(&mut self, i: usize) -> &mut Conn {
        self.conns[i].as_mut().expect("connection open")
    }

    /// Closes and reopens engine `i`'s database (untimed).
    fn reopen(&mut self, i: usize) {
        self.conns[i] = None;
        self.conns[i] = Some(open(KINDS[i], &self.paths[i]));
    }

    /// Runs a script on both engines (untimed).
    fn batch(&mut self, sql: &str) {
        for i in 0..2 {
            match self.conn(i) {
                Conn::Tj(c) => c
                    .execute_batch(sql)
                    .unwrap_or_else(|e| panic!("TinyJoin failed on `{sql}`: {e:?}")),
                Conn::Sq(c) => c
                    .execute_batch(sql)
                    .unwrap_or_else(|e| panic!("SQLite failed on `{sql}`: {e:?}")),
            }
        }
    }

    /// Runs a query on both engines (untimed) and compares the rows.
    fn check(&mut self, sql: &str, ordered: bool) {
        let a = timed(self.conn(0), sql, &[vec![]], false, false).results;
        let b = timed(self.conn(1), sql, &[vec![]], false, false).results;
        same_runs("check", sql, &[vec![]], &a, &b, ordered);
    }

    /// Loads `rows` rows made by `row(i)` with `insert`, 50,000 rows per
    /// transaction. Returns the load time per engine (ms).
    fn load(&mut self, insert: &str, rows: u64, row: &dyn Fn(u64) -> Vec<Value>) -> [f64; 2] {
        let mut ms = [0.0; 2];
        let mut start = 0;
        while start < rows {
            let end = (start + 50_000).min(rows);
            let sets: Vec<Vec<Value>> = (start..end).map(row).collect();
            for (i, m) in ms.iter_mut().enumerate() {
                *m += timed(self.conn(i), insert, &sets, true, false).first_ms;
            }
            start = end;
        }
        ms
    }
}

struct Bench {
    cfg: Config,
    samples: Vec<Sample>,
}

impl Bench {
    /// A read workload: per repetition and engine (alternating order),
    /// reopen, then time "first" (prepare + run) and "repeat".
    fn read(&mut self, f: &mut Files, name: &str, sql: &str, sets: Vec<Vec<Value>>, ordered: bool) {
        if !self.cfg.wanted(name) {
            return;
        }
        let mut first = [Vec::new(), Vec::new()];
        let mut repeat = [Vec::new(), Vec::new()];
        for rep in 0..self.cfg.reps {
            let mut results: [Vec<Rows>; 2] = [Vec::new(), Vec::new()];
            for k in 0..2 {
                let i = (k + rep) % 2;
                f.reopen(i);
                let t = timed(f.conn(i), sql, &sets, false, true);
                first[i].push(t.first_ms);
                repeat[i].push(t.repeat_ms.unwrap_or(f64::NAN));
                results[i] = t.results;
            }
            same_runs(
                "TinyJoin vs SQLite",
                sql,
                &sets,
                &results[0],
                &results[1],
                ordered,
            );
        }
        eprintln!("done: {name}");
        self.samples.push(Sample {
            name: format!("{name} (first)"),
            ms: first,
        });
        self.samples.push(Sample {
            name: format!("{name} (repeat)"),
            ms: repeat,
        });
    }

    /// A write workload: per repetition and engine (alternating order),
    /// run `before` (untimed), time `sql` over `sets(rep)` (in one
    /// transaction when `txn`), then compare `verify` (untimed).
    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        f: &mut Files,
        name: &str,
        before: Option<&str>,
        sql: &str,
        sets: &dyn Fn(usize) -> Vec<Vec<Value>>,
        txn: bool,
        verify: &str,
    ) {
        if !self.cfg.wanted(name) {
            return;
        }
        let mut ms = [Vec::new(), Vec::new()];
        for rep in 0..self.cfg.reps {
            let sets = sets(rep);
            let mut results: [Vec<Rows>; 2] = [Vec::new(), Vec::new()];
            if let Some(b) = before {
                f.batch(b);
            }
            for k in 0..2 {
                let i = (k + rep) % 2;
                let t = timed(f.conn(i), sql, &sets, txn, false);
                ms[i].push(t.first_ms);
                results[i] = t.results;
            }
            // DDL reports no change count (SQLite's is stale for it).
            if !sql.starts_with("CREATE") {
                same_runs(
                    "TinyJoin vs SQLite",
                    sql,
                    &sets,
                    &results[0],
                    &results[1],
                    true,
                );
            }
            f.check(verify, false);
        }
        eprintln!("done: {name}");
        self.samples.push(Sample {
            name: name.into(),
            ms,
        });
    }
}

/// A deterministic pseudo-random number for (`seed`, `i`) (splitmix64).
fn rnd(seed: u64, i: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(i)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn int(v: u64) -> Value {
    Value::Integer(v as i64)
}

/// Analytic workloads on `t` (200k rows): filter + sum, GROUP BY with 100
/// groups, arithmetic filter + aggregate, a text equality filter and a
/// LIKE prefix filter.
fn analytic(b: &mut Bench, dir: &Path) {
    let names = ["A1", "A2", "A3", "A4", "A5"];
    if !names.iter().any(|n| b.cfg.wanted(n)) {
        return;
    }
    let n = b.cfg.analytic_rows;
    let mut f = Files::new(dir, "analytic");
    f.batch(
        "CREATE TABLE t(id INTEGER PRIMARY KEY, g INTEGER, x INTEGER, y INTEGER, r REAL, s TEXT)",
    );
    let load = f.load("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", n, &|i| {
        vec![
            int(i + 1),
            int(i % 100),
            int(rnd(1, i) % 1000),
            int(rnd(2, i) % 10_000),
            Value::Real((rnd(3, i) % 100_000) as f64 / 100.0),
            Value::Text(format!("item{i}")),
        ]
    });
    eprintln!(
        "loaded t ({n} rows): TinyJoin {:.0} ms, SQLite {:.0} ms",
        load[0], load[1]
    );
    let one = || vec![vec![]];
    b.read(
        &mut f,
        &format!("A1 filter + sum over {n} rows"),
        "SELECT sum(x), count(*) FROM t WHERE y < 5000",
        one(),
        false,
    );
    b.read(
        &mut f,
        &format!("A2 GROUP BY 100 groups over {n} rows"),
        "SELECT g, count(*), sum(x), min(y), max(y) FROM t GROUP BY g",
        one(),
        false,
    );
    b.read(
        &mut f,
        &format!("A3 arithmetic filter + aggregate over {n} rows"),
        "SELECT count(*), sum(x * y), avg(r) FROM t WHERE x * 3 + y / 2 > 2500 AND r < 500.0",
        one(),
        false,
    );
    b.read(
        &mut f,
        &format!("A4 text equality filter over {n} rows"),
        "SELECT count(*), sum(x) FROM t WHERE s = 'item4242'",
        one(),
        false,
    );
    b.read(
        &mut f,
        &format!("A5 LIKE prefix filter over {n} rows"),
        "SELECT count(*), sum(x) FROM t WHERE s LIKE 'item12%'",
        one(),
        false,
    );
}

/// The join schema: `cust` (small side), `orders` (big side, indexed on
/// cust_id), `items` (third table, indexed on order_id). Customers above
/// 90% of the ids have no orders (LEFT JOIN's unmatched rows); `code` and
/// `cust_code` join without an index.
const JOIN_SCHEMA: &str = "
CREATE TABLE cust(id INTEGER PRIMARY KEY, name TEXT, region INTEGER, tier INTEGER, code INTEGER);
CREATE TABLE orders(id INTEGER PRIMARY KEY, cust_id INTEGER, amount INTEGER, cust_code INTEGER, status INTEGER);
CREATE TABLE items(id INTEGER PRIMARY KEY, order_id INTEGER, qty INTEGER, price INTEGER);
";

/// The join indexes, created after loading (the usual bulk-load order).
const JOIN_INDEXES: &str = "
CREATE INDEX orders_cust ON orders(cust_id);
CREATE INDEX items_order ON items(order_id);
";

/// The join workloads J1–J7.
fn joins(b: &mut Bench, dir: &Path) {
    if !(1..=7).any(|j| b.cfg.wanted(&format!("J{j}"))) {
        return;
    }
    let (nc, no, ni) = (b.cfg.cust_rows, b.cfg.order_rows, b.cfg.item_rows);
    let mut f = Files::new(dir, "join");
    f.batch(JOIN_SCHEMA);
    let matched = nc * 9 / 10;
    let code = |c: u64| int(c * 7 + 3);
    let l1 = f.load("INSERT INTO cust VALUES (?, ?, ?, ?, ?)", nc, &|i| {
        vec![
            int(i + 1),
            Value::Text(format!("customer {i}")),
            int(i % 20),
            int(rnd(4, i) % 100),
            code(i + 1),
        ]
    });
    let l2 = f.load("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", no, &|i| {
        let c = rnd(5, i) % matched + 1;
        vec![
            int(i + 1),
            int(c),
            int(rnd(6, i) % 1000),
            code(c),
            int(i % 5),
        ]
    });
    let l3 = f.load("INSERT INTO items VALUES (?, ?, ?, ?)", ni, &|i| {
        vec![
            int(i + 1),
            int(rnd(7, i) % no + 1),
            int(rnd(8, i) % 10 + 1),
            int(rnd(9, i) % 500),
        ]
    });
    let t = Instant::now();
    f.batch(JOIN_INDEXES);
    eprintln!(
        "join indexes: {:.0} ms (both engines)",
        t.elapsed().as_secs_f64() * 1000.0
    );
    eprintln!(
        "loaded join tables ({} rows): TinyJoin {:.0} ms, SQLite {:.0} ms",
        nc + no + ni,
        l1[0] + l2[0] + l3[0],
        l1[1] + l2[1] + l3[1]
    );
    let one = || vec![vec![]];
    b.read(
        &mut f,
        &format!("J1 join {nc} x {no} + GROUP BY"),
        "SELECT c.region, count(*), sum(o.amount) FROM cust c JOIN orders o ON o.cust_id = c.id GROUP BY c.region",
        one(),
        false,
    );
    b.read(
        &mut f,
        "J2 join, selective filter on the small side",
        "SELECT c.id, count(*), sum(o.amount) FROM cust c JOIN orders o ON o.cust_id = c.id WHERE c.tier = 42 GROUP BY c.id",
        one(),
        false,
    );
    b.read(
        &mut f,
        "J3 J1 written in a bad order",
        "SELECT c.region, count(*), sum(o.amount) FROM orders o JOIN cust c ON c.id = o.cust_id GROUP BY c.region",
        one(),
        false,
    );
    b.read(
        &mut f,
        &format!("J4 three-way join ({} rows) + GROUP BY", nc + no + ni),
        "SELECT c.region, count(*), sum(i.qty * i.price) FROM cust c JOIN orders o ON o.cust_id = c.id \
         JOIN items i ON i.order_id = o.id GROUP BY c.region",
        one(),
        false,
    );
    let points = b.cfg.point_joins;
    b.read(
        &mut f,
        &format!("J5 {points} point joins"),
        "SELECT o.id, o.amount, c.name, c.region FROM orders o JOIN cust c ON c.id = o.cust_id WHERE o.id = ?",
        (0..points).map(|k| vec![int(rnd(10, k) % no + 1)]).collect(),
        false,
    );
    b.read(
        &mut f,
        "J6 LEFT JOIN with unmatched rows + GROUP BY",
        "SELECT c.region, count(*), count(o.id), sum(o.amount) FROM cust c LEFT JOIN orders o ON o.cust_id = c.id GROUP BY c.region",
        one(),
        false,
    );
    b.read(
        &mut f,
        "J7 join on a non-indexed column + GROUP BY",
        "SELECT c.region, count(*), sum(o.amount) FROM orders o JOIN cust c ON c.code = o.cust_code GROUP BY c.region",
        one(),
        false,
    );
}

/// The index workloads on `a`: CREATE INDEX, lookups through each index,
/// and writes maintaining three indexes.
fn indexes(b: &mut Bench, dir: &Path) {
    // Fixed parts of the workload names below.
    let names = [
        "CREATE INDEX on 1 column",
        "CREATE INDEX on 2 columns",
        "CREATE INDEX on lower(e)",
        "equality lookups of 200 rows (a.b = ?)",
        "range lookups of 1% (a.b >= ? AND a.b < ?)",
        "composite lookups (d = ? AND c > 500)",
        "expression lookups (lower(e) = ?)",
        "UPDATE indexed column on",
        "rows with 3 indexes",
        "bulk insert",
    ];
    if !names.iter().any(|n| b.cfg.wanted(n)) {
        return;
    }
    let n = b.cfg.a_rows;
    let bd = b.cfg.b_distinct();
    let mut f = Files::new(dir, "index");
    f.batch("CREATE TABLE a(id INTEGER PRIMARY KEY, b INTEGER, c INTEGER, d INTEGER, e TEXT)");
    let row = move |i: u64| {
        let name = format!("Name{}", i % (n / 4).max(1));
        let e = match i % 3 {
            0 => name.to_uppercase(),
            1 => name.to_lowercase(),
            _ => name,
        };
        vec![
            int(i + 1),
            int(rnd(11, i) % bd),
            int(rnd(12, i) % 1000),
            int(rnd(13, i) % 1000),
            Value::Text(e),
        ]
    };
    let load = f.load("INSERT INTO a VALUES (?, ?, ?, ?, ?)", n, &row);
    eprintln!(
        "loaded a ({n} rows): TinyJoin {:.0} ms, SQLite {:.0} ms",
        load[0], load[1]
    );

    let none = |_: usize| vec![vec![]];
    let ddl = [
        (
            "a_b",
            "CREATE INDEX a_b ON a(b)",
            "1 column",
            "SELECT count(*), sum(c) FROM a WHERE b = 3",
        ),
        (
            "a_dc",
            "CREATE INDEX a_dc ON a(d, c)",
            "2 columns",
            "SELECT count(*), sum(b) FROM a WHERE d = 3 AND c > 500",
        ),
        (
            "a_le",
            "CREATE INDEX a_le ON a(lower(e))",
            "lower(e)",
            "SELECT id, e FROM a WHERE lower(e) = 'name3'",
        ),
    ];
    for (index, sql, what, verify) in ddl {
        b.write(
            &mut f,
            &format!("CREATE INDEX on {what} ({n} rows)"),
            Some(&format!("DROP INDEX IF EXISTS {index}")),
            sql,
            &none,
            false,
            verify,
        );
        // Later workloads need the index even when this one was skipped.
        f.batch(&sql.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS"));
    }

    let eq = b.cfg.eq_lookups;
    b.read(
        &mut f,
        &format!("{eq} equality lookups of 200 rows (a.b = ?)"),
        "SELECT count(*), sum(c), max(id) FROM a WHERE b = ?",
        (0..eq).map(|k| vec![int(rnd(14, k) % bd)]).collect(),
        false,
    );
    let width = (bd / 100).max(1);
    let rl = b.cfg.range_lookups;
    b.read(
        &mut f,
        &format!("{rl} range lookups of 1% (a.b >= ? AND a.b < ?)"),
        "SELECT count(*), sum(c), max(id) FROM a WHERE b >= ? AND b < ?",
        (0..rl)
            .map(|k| {
                let lo = rnd(15, k) % (bd - width + 1);
                vec![int(lo), int(lo + width)]
            })
            .collect(),
        false,
    );
    let cl = b.cfg.composite_lookups;
    b.read(
        &mut f,
        &format!("{cl} composite lookups (d = ? AND c > 500)"),
        "SELECT count(*), sum(b), max(id) FROM a WHERE d = ? AND c > 500",
        (0..cl).map(|k| vec![int(rnd(16, k) % 1000)]).collect(),
        false,
    );
    let xl = b.cfg.expr_lookups;
    b.read(
        &mut f,
        &format!("{xl} expression lookups (lower(e) = ?)"),
        "SELECT id, e FROM a WHERE lower(e) = ?",
        (0..xl)
            .map(|k| vec![Value::Text(format!("name{}", rnd(17, k) % (n / 4).max(1)))])
            .collect(),
        false,
    );

    let w = b.cfg.write_rows;
    b.write(
        &mut f,
        &format!("UPDATE indexed column on {w} rows"),
        None,
        "UPDATE a SET b = (b + 1) % ?3 WHERE id > ?1 AND id <= ?2",
        &|rep| {
            let lo = rep as u64 * w;
            vec![vec![int(lo), int(lo + w), int(bd)]]
        },
        false,
        "SELECT b, count(*), sum(c) FROM a WHERE b < 5 GROUP BY b",
    );
    b.write(
        &mut f,
        &format!("DELETE {w} rows with 3 indexes"),
        None,
        "DELETE FROM a WHERE id > ?1 AND id <= ?2",
        &|rep| {
            let lo = n / 2 + rep as u64 * w;
            vec![vec![int(lo), int(lo + w)]]
        },
        false,
        "SELECT count(*), sum(b), sum(d) FROM a WHERE d = 7 AND c > 100",
    );
    let bulk = b.cfg.bulk_rows;
    b.write(
        &mut f,
        &format!("bulk insert {bulk} rows with 3 indexes, one txn"),
        Some(
            "DROP TABLE IF EXISTS bulk;
             CREATE TABLE bulk(id INTEGER PRIMARY KEY, b INTEGER, c INTEGER, d INTEGER, e TEXT);
             CREATE INDEX bulk_b ON bulk(b);
             CREATE INDEX bulk_dc ON bulk(d, c);
             CREATE INDEX bulk_le ON bulk(lower(e));",
        ),
        "INSERT INTO bulk VALUES (?, ?, ?, ?, ?)",
        &|_| (0..bulk).map(row).collect(),
        true,
        "SELECT count(*), sum(b), sum(c), count(DISTINCT lower(e)) FROM bulk WHERE b < 10",
    );
}

fn stats(s: &[f64]) -> (f64, f64, f64) {
    let mut v = s.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    (v[0], median, v[n - 1])
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let cfg = if args.iter().any(|a| a == "--profile") {
        // Small enough to run under valgrind --tool=callgrind.
        Config {
            reps: 1,
            analytic_rows: 4_000,
            cust_rows: 200,
            order_rows: 4_000,
            item_rows: 8_040,
            a_rows: 4_000,
            eq_lookups: 100,
            range_lookups: 20,
            composite_lookups: 20,
            expr_lookups: 20,
            point_joins: 20,
            write_rows: 200,
            bulk_rows: 2_000,
            only,
        }
    } else if quick {
        Config {
            reps: 2,
            analytic_rows: 20_000,
            cust_rows: 1_000,
            order_rows: 20_000,
            item_rows: 40_200,
            a_rows: 20_000,
            eq_lookups: 1_000,
            range_lookups: 100,
            composite_lookups: 100,
            expr_lookups: 100,
            point_joins: 100,
            write_rows: 1_000,
            bulk_rows: 10_000,
            only,
        }
    } else {
        Config {
            reps: 5,
            analytic_rows: 200_000,
            cust_rows: 10_000,
            order_rows: 200_000,
            item_rows: 402_000,
            a_rows: 200_000,
            eq_lookups: 10_000,
            range_lookups: 1_000,
            composite_lookups: 1_000,
            expr_lookups: 1_000,
            point_joins: 1_000,
            write_rows: 10_000,
            bulk_rows: 100_000,
            only,
        }
    };
    let dir = std::env::temp_dir().join(format!("tinyjoin-sqlbench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut b = Bench {
        cfg,
        samples: Vec::new(),
    };
    analytic(&mut b, &dir);
    joins(&mut b, &dir);
    indexes(&mut b, &dir);

    println!(
        "| workload | TinyJoin min / median / max (ms) | SQLite WAL+FULL min / median / max (ms) | SQLite / TinyJoin (median) | verdict |"
    );
    println!("|---|---|---|---|---|");
    for s in &b.samples {
        let t = stats(&s.ms[0]);
        let q = stats(&s.ms[1]);
        let verdict = if t.2 < q.0 {
            "faster"
        } else if t.0 > q.2 {
            "slower"
        } else {
            "ranges overlap"
        };
        println!(
            "| {} | {:.1} / {:.1} / {:.1} | {:.1} / {:.1} / {:.1} | {:.2}x | {verdict} |",
            s.name,
            t.0,
            t.1,
            t.2,
            q.0,
            q.1,
            q.2,
            q.1 / t.1
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
