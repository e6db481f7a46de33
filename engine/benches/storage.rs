//! Storage benchmarks against SQLite (rusqlite, bundled) on files, in one
//! run: SQLite in journal_mode=WAL and journal_mode=TRUNCATE, both with
//! synchronous=FULL, doing the same work as TinyJoin's storage layer.
//! Prints a markdown table with min/median/max per engine and the ratio of
//! the faster SQLite mode's median to TinyJoin's (> 1 means TinyJoin is
//! faster). A tool, not a test: nothing here asserts a time.
//!
//! `cargo bench -p tinyjoin-engine --bench storage [-- --quick]`

use rusqlite::{params, Connection};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tinyjoin_engine::storage::{CommitMode, FileDevice, Store, StoreOptions, TreeRead};

struct Config {
    reps: usize,
    bulk_rows: u64,
    lookups: u64,
    small_txns: u64,
    kib_rows: u64,
    validate_mb: u64,
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("tinyjoin-bench-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fresh(path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

fn tj_open(path: &Path) -> Store {
    Store::open(
        Box::new(FileDevice::open(path).unwrap()),
        StoreOptions::default(),
    )
    .unwrap()
}

fn sqlite_open(path: &Path, mode: &str) -> Connection {
    let c = Connection::open(path).unwrap();
    c.pragma_update(None, "journal_mode", mode).unwrap();
    c.pragma_update(None, "synchronous", "FULL").unwrap();
    c.execute_batch("CREATE TABLE IF NOT EXISTS t(k INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        .unwrap();
    c
}

fn value(i: u64, len: usize) -> Vec<u8> {
    (0..len).map(|j| (i as usize * 31 + j) as u8).collect()
}

/// The engines compared: TinyJoin and the two SQLite modes.
#[derive(Clone, Copy, PartialEq)]
enum Engine {
    TinyJoin,
    Sqlite(&'static str),
}

const ENGINES: [Engine; 3] = [
    Engine::TinyJoin,
    Engine::Sqlite("WAL"),
    Engine::Sqlite("TRUNCATE"),
];

/// Fills a database with `rows` rows of `len`-byte values in one transaction.
fn fill(engine: Engine, path: &Path, rows: u64, len: usize) {
    match engine {
        Engine::TinyJoin => {
            let s = tj_open(path);
            let mut t = s.write().unwrap();
            t.create_tree("t").unwrap();
            for i in 0..rows {
                t.insert("t", &i.to_be_bytes(), &value(i, len)).unwrap();
            }
            t.commit().unwrap();
            // Closing confirms the commit, as SQLite checkpoints its WAL when
            // its connection closes.
            s.sync().unwrap();
        }
        Engine::Sqlite(mode) => {
            let mut c = sqlite_open(path, mode);
            let tx = c.transaction().unwrap();
            {
                let mut st = tx.prepare("INSERT INTO t(k, v) VALUES (?, ?)").unwrap();
                for i in 0..rows {
                    st.execute(params![i as i64, value(i, len)]).unwrap();
                }
            }
            tx.commit().unwrap();
        }
    }
}

fn lookups(engine: Engine, path: &Path, rows: u64, n: u64) -> u64 {
    let mut sum = 0u64;
    let mut x = 88172645463325252u64;
    match engine {
        Engine::TinyJoin => {
            let s = tj_open(path);
            let r = s.read().unwrap();
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = r.get("t", &(x % rows).to_be_bytes()).unwrap().unwrap();
                sum += u64::from(v[0]);
            }
        }
        Engine::Sqlite(mode) => {
            let c = sqlite_open(path, mode);
            let mut st = c.prepare("SELECT v FROM t WHERE k = ?").unwrap();
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v: Vec<u8> = st
                    .query_row(params![(x % rows) as i64], |r| r.get(0))
                    .unwrap();
                sum += u64::from(v[0]);
            }
        }
    }
    sum
}

fn scan(engine: Engine, path: &Path) -> u64 {
    let mut sum = 0u64;
    match engine {
        Engine::TinyJoin => {
            let s = tj_open(path);
            let r = s.read().unwrap();
            let mut it = r.range("t", Bound::Unbounded, Bound::Unbounded).unwrap();
            while let Some((_, v)) = it.next().unwrap() {
                sum += v.len() as u64;
            }
        }
        Engine::Sqlite(mode) => {
            let c = sqlite_open(path, mode);
            let mut st = c.prepare("SELECT k, v FROM t").unwrap();
            let mut rows = st.query([]).unwrap();
            while let Some(row) = rows.next().unwrap() {
                let v = row.get_ref(1).unwrap().as_blob().unwrap();
                sum += v.len() as u64;
            }
        }
    }
    sum
}

fn small_txns(engine: Engine, path: &Path, n: u64) {
    match engine {
        Engine::TinyJoin => {
            let s = tj_open(path);
            for i in 0..n {
                let mut t = s.write().unwrap();
                t.create_tree("t").unwrap();
                t.insert("t", &(1_000_000 + i).to_be_bytes(), &value(i, 100))
                    .unwrap();
                t.commit().unwrap();
            }
            s.sync().unwrap();
        }
        Engine::Sqlite(mode) => {
            let c = sqlite_open(path, mode);
            let mut st = c.prepare("INSERT INTO t(k, v) VALUES (?, ?)").unwrap();
            for i in 0..n {
                st.execute(params![(1_000_000 + i) as i64, value(i, 100)])
                    .unwrap();
            }
        }
    }
}

/// `n` single-row transactions that do not flush at commit: TinyJoin's
/// deferred commits (then one sync) against SQLite's WAL with
/// synchronous=NORMAL, the same guarantee. Per engine: milliseconds per rep.
fn small_txns_unflushed(cfg: &Config) -> [Vec<f64>; 2] {
    let d = dir();
    let mut out = [Vec::new(), Vec::new()];
    for rep in 0..cfg.reps {
        for k in 0..2 {
            let i = (k + rep) % 2;
            let path = d.join(format!("unflushed-{i}.db"));
            fresh(&path);
            let t = Instant::now();
            if i == 0 {
                let opts = StoreOptions {
                    commit: CommitMode::Deferred,
                    ..StoreOptions::default()
                };
                let s = Store::open(Box::new(FileDevice::open(&path).unwrap()), opts).unwrap();
                for j in 0..cfg.small_txns {
                    let mut t = s.write().unwrap();
                    t.create_tree("t").unwrap();
                    t.insert("t", &(1_000_000 + j).to_be_bytes(), &value(j, 100))
                        .unwrap();
                    t.commit().unwrap();
                }
                s.sync().unwrap();
            } else {
                let c = sqlite_open(&path, "WAL");
                c.pragma_update(None, "synchronous", "NORMAL").unwrap();
                let mut st = c.prepare("INSERT INTO t(k, v) VALUES (?, ?)").unwrap();
                for j in 0..cfg.small_txns {
                    st.execute(params![(1_000_000 + j) as i64, value(j, 100)])
                        .unwrap();
                }
            }
            out[i].push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    out
}

fn open_validate(engine: Engine, path: &Path) {
    match engine {
        Engine::TinyJoin => {
            let s = tj_open(path); // full validation is the default
            assert!(s.read().unwrap().tree_len("t").unwrap() > 0);
        }
        Engine::Sqlite(mode) => {
            let c = sqlite_open(path, mode);
            let ok: String = c
                .query_row("PRAGMA integrity_check", [], |r| r.get(0))
                .unwrap();
            assert_eq!(ok, "ok");
        }
    }
}

struct Row {
    name: String,
    /// Per engine: samples in milliseconds.
    samples: Vec<Vec<f64>>,
}

fn stats(s: &[f64]) -> (f64, f64, f64) {
    let mut v = s.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[0], v[v.len() / 2], v[v.len() - 1])
}

/// Times `work` for each engine `reps` times, rotating the engine order.
/// `setup` prepares the file before each timed run (untimed).
fn measure(
    cfg: &Config,
    name: &str,
    setup: &dyn Fn(Engine, &Path),
    work: &dyn Fn(Engine, &Path),
) -> Row {
    let d = dir();
    let mut samples = vec![Vec::new(); ENGINES.len()];
    for rep in 0..cfg.reps {
        for k in 0..ENGINES.len() {
            let i = (k + rep) % ENGINES.len();
            let e = ENGINES[i];
            let path = d.join(format!("bench-{i}.db"));
            fresh(&path);
            setup(e, &path);
            let t = Instant::now();
            work(e, &path);
            samples[i].push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    eprintln!("done: {name}");
    Row {
        name: name.into(),
        samples,
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let cfg = if quick {
        Config {
            reps: 2,
            bulk_rows: 10_000,
            lookups: 1000,
            small_txns: 20,
            kib_rows: 500,
            validate_mb: 5,
        }
    } else {
        Config {
            reps: 5,
            bulk_rows: 100_000,
            lookups: 10_000,
            small_txns: 200,
            kib_rows: 5000,
            validate_mb: 50,
        }
    };
    let none = |_: Engine, _: &Path| {};
    let bulk = cfg.bulk_rows;
    let filled = move |e: Engine, p: &Path| fill(e, p, bulk, 100);
    let validate_rows = cfg.validate_mb * 1024 * 1024 / 120;
    let rows = vec![
        measure(
            &cfg,
            &format!(
                "bulk insert {} rows (8 B key, 100 B value), one txn",
                cfg.bulk_rows
            ),
            &none,
            &|e, p| fill(e, p, bulk, 100),
        ),
        measure(
            &cfg,
            &format!("{} point lookups (open included)", cfg.lookups),
            &filled,
            &|e, p| {
                lookups(e, p, bulk, cfg.lookups);
            },
        ),
        measure(
            &cfg,
            &format!("full scan of {} rows (open included)", cfg.bulk_rows),
            &filled,
            &|e, p| {
                scan(e, p);
            },
        ),
        measure(
            &cfg,
            &format!("{} single-row durable transactions", cfg.small_txns),
            &none,
            &|e, p| small_txns(e, p, cfg.small_txns),
        ),
        measure(
            &cfg,
            &format!("{} x 1 KiB rows, one txn", cfg.kib_rows),
            &none,
            &|e, p| fill(e, p, cfg.kib_rows, 1024),
        ),
        measure(
            &cfg,
            &format!("open + full validation of a {} MB file", cfg.validate_mb),
            &move |e, p| fill(e, p, validate_rows, 100),
            &|e, p| open_validate(e, p),
        ),
    ];
    println!("| workload | TinyJoin min / median / max (ms) | SQLite WAL+FULL min / median / max | SQLite TRUNCATE+FULL min / median / max | ratio vs faster SQLite (median) |");
    println!("|---|---|---|---|---|");
    for r in &rows {
        let s: Vec<(f64, f64, f64)> = r.samples.iter().map(|v| stats(v)).collect();
        // The faster SQLite mode (by median) is the one compared with: the
        // ratio and the verdict (given only when the min-max ranges do not
        // overlap) both use it.
        let best = if s[1].1 <= s[2].1 { s[1] } else { s[2] };
        let best_sqlite = best.1;
        let cells: Vec<String> = s
            .iter()
            .map(|(a, b, c)| format!("{a:.1} / {b:.1} / {c:.1}"))
            .collect();
        let verdict = if s[0].2 < best.0 {
            "faster"
        } else if s[0].0 > best.2 {
            "slower"
        } else {
            "ranges overlap"
        };
        println!(
            "| {} | {} | {} | {} | {:.2}x ({verdict}) |",
            r.name,
            cells[0],
            cells[1],
            cells[2],
            best_sqlite / s[0].1
        );
    }
    let [tj, sq] = small_txns_unflushed(&cfg);
    let ((a, b, c), (x, y, z)) = (stats(&tj), stats(&sq));
    println!(
        "\n{} single-row transactions without a flush per commit: TinyJoin `CommitMode::Deferred` (one sync at the end) {a:.1} / {b:.1} / {c:.1} ms, SQLite WAL+NORMAL {x:.1} / {y:.1} / {z:.1} ms (min / median / max; ratio {:.2}x)",
        cfg.small_txns,
        y / b
    );
    if let Some(v) = rows.last() {
        let (min, median, _) = stats(&v.samples[0]);
        let mb = cfg.validate_mb as f64;
        println!(
            "\nTinyJoin open + full validation: {:.0} MB/s at the fastest run, {:.0} MB/s at the median",
            mb / min * 1000.0,
            mb / median * 1000.0
        );
    }
    let _ = std::fs::remove_dir_all(dir());
}
