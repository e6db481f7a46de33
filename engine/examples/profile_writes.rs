//! Write workloads of the browser comparison, natively, for instruction
//! counts under callgrind (deterministic, unlike timings on a shared host):
//!
//! ```sh
//! cargo build --release -p tinyjoin-engine --example profile_writes
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured*' \
//!     target/release/examples/profile_writes i8
//! ```
//!
//! `i8`: the index suite's table `a` (200,000 rows, indexes on b, (d, c) and
//! lower(e)), then I8's `UPDATE a SET b = b + 1` over 10,000 rows.
//! `i4`: 1,000 of I4's equality lookups (about 200 rows each) on that table.
//! `i10`: 100,000 rows into a table with those three indexes, one transaction.
//! `index-lower`: the index on lower(e) created over the loaded table.
//! `mixed`: the envelope's mixed transactions of 25, 100, 250 and 1,000
//! operations (insert / update the UNIQUE title / delete) in one process;
//! `mixed-sqlite` the same on SQLite (rusqlite, in memory), as `i8-sqlite`
//! is I8 on SQLite: the instruction-count ratio.
//! `lookups`: the comparison's 10,000 warm point lookups (prepared, each an
//! autocommit read) over a 100,000-row table.
//! `j2`: the comparison's join tables s and f (10,000 and 200,000 rows, an
//! index on f(s_id)), then J2 once unmeasured and its repeat measured;
//! `j2-sqlite` the same on SQLite (in memory). `J2_SQL` replaces J2's text
//! (TinyJoin only): parts of it measured alone. `j2-cold`: the same tables
//! synced, reopened from a copy of the device's bytes (full validation, as a
//! fresh Worker opens), and J2's first run measured: every page it reads
//! comes from the device. `j2-reopened`: the same, J2's second run there
//! measured (the comparison's repeat: its leaves still as read, in page form).
//! `j4`: the tables s, f and u (402,000 rows, an index on u(f_id)), then
//! J4 (u JOIN f by rowid JOIN s, GROUP BY s.cat) once unmeasured and its
//! repeat measured; `j4-reopened` the same on the database reopened from
//! its bytes (the comparison's repeat); `j4-sqlite` on SQLite (in memory).
//! `durable`: the comparison's 200 single-row autocommit INSERTs (each its
//! own commit, default one-flush commits on a memory device); `durable-sqlite`
//! the same on SQLite in a temporary file, WAL with synchronous=NORMAL and
//! exclusive locking (the comparison's fastest SQLite mode).
//! With `PROFILE_LOAD=1`, `i8` measures the 200,000-row load (one
//! transaction, no index) instead. Only the function `measured` is
//! counted; it also prints wall time.
//! A tool, not a test.

#[path = "common/kv.rs"]
mod kv;
#[path = "common/measured.rs"]
mod measured;
#[path = "common/mixed_ops.rs"]
mod mixed_ops;
#[path = "common/recording.rs"]
mod recording;

use kv::{kv_rows_and_ids, prng, KV_INSERT, KV_LOOKUP, KV_TABLE};
use measured::measured;
use mixed_ops::mixed_ops;
use recording::{logged, totals_since, Recording};
use tinyjoin_engine::storage::MemoryDevice;
use tinyjoin_engine::{Connection, Database, DbOptions, Params, Statement, Value};

fn run(c: &mut Connection, sql: &str, p: Vec<Value>) -> u64 {
    c.execute(sql, &Params::Positional(p))
        .unwrap_or_else(|e| panic!("`{sql}`: {e:?}"))
        .changes
}

/// Rows 1..=n shaped like the index suite's table `a` (the comparison's `aRow`).
fn a_rows(seed: u32, n: i64) -> Vec<Vec<Value>> {
    let words = ["Alpha", "BETA", "gamma", "DeLta"];
    let mut r = prng(seed);
    (1..=n)
        .map(|i| {
            vec![
                Value::Integer(i),
                Value::Integer(i64::from(r() % 1000)),
                Value::Integer(i64::from(r() % 1000)),
                Value::Integer(i64::from(r() % 1000)),
                Value::Text(format!("{}{}", words[(r() % 4) as usize], r() % 250)),
            ]
        })
        .collect()
}

/// The index suite's table as `t`: its CREATE TABLE, its three indexes and
/// its INSERT (the same SQL for both engines).
fn a_table(t: &str) -> String {
    format!("CREATE TABLE {t}(id INTEGER PRIMARY KEY, b INTEGER NOT NULL, c INTEGER NOT NULL, d INTEGER NOT NULL, e TEXT NOT NULL)")
}
fn a_indexes(t: &str) -> String {
    format!("CREATE INDEX {t}_b ON {t}(b); CREATE INDEX {t}_dc ON {t}(d, c); CREATE INDEX {t}_le ON {t}(lower(e));")
}
fn a_insert(t: &str) -> String {
    format!("INSERT INTO {t}(id, b, c, d, e) VALUES (?, ?, ?, ?, ?)")
}
/// `rows` through the prepared INSERT `st`, in one transaction.
fn load(c: &mut Connection, st: &mut Statement, rows: Vec<Vec<Value>>) {
    run(c, "BEGIN", vec![]);
    for p in rows {
        st.execute_owned(c, Params::Positional(p)).unwrap();
    }
    run(c, "COMMIT", vec![]);
}

const I8_UPDATE: &str = "UPDATE a SET b = b + 1 WHERE id BETWEEN ? AND ?";

/// The index suite's table `a` and its 200,000 rows, loaded in one
/// transaction (`measure`: the load is what is measured).
fn load_a(c: &mut Connection, measure: bool) {
    c.execute_batch(&a_table("a")).unwrap();
    let rows = a_rows(6, 200_000);
    let mut st = c.prepare(&a_insert("a")).unwrap();
    match measure {
        true => measured("load 200k rows", || load(c, &mut st, rows)),
        false => load(c, &mut st, rows),
    }
}

/// The index suite's table `a`: 200,000 rows loaded in one transaction
/// (the load is what is measured with `PROFILE_LOAD` set: false returned),
/// then its three indexes.
fn indexed_a(c: &mut Connection) -> bool {
    let profile_load = std::env::var_os("PROFILE_LOAD").is_some();
    load_a(c, profile_load);
    if profile_load {
        return false;
    }
    c.execute_batch(&a_indexes("a")).unwrap();
    true
}

fn i8(c: &mut Connection) {
    if !indexed_a(c) {
        return;
    }
    let lo = 50_000i64;
    let mut upd = c.prepare(I8_UPDATE).unwrap();
    let p = Params::Positional(vec![Value::Integer(lo + 1), Value::Integer(lo + 10_000)]);
    let mark = logged();
    let n = measured("I8", || upd.execute(c, &p).unwrap().changes);
    assert_eq!(n, 10_000);
    let t = totals_since(mark);
    eprintln!(
        "I8 wrote {} bytes in {} writes and {} flushes, the furthest to byte {}",
        t.bytes, t.writes, t.flushes, t.end
    );
    // I8_REPEAT=N: N more runs of the same UPDATE, for a sampling profiler
    // (`perf record`) to see mostly I8.
    let more: usize = std::env::var("I8_REPEAT").map_or(0, |v| v.parse().unwrap());
    for _ in 0..more {
        assert_eq!(upd.execute(c, &p).unwrap().changes, 10_000);
    }
}

/// I4: 1,000 of the index suite's equality lookups (`b = ?`, about 200
/// rows each through the index on b) after the same load.
fn i4(c: &mut Connection) {
    if !indexed_a(c) {
        return;
    }
    let mut q = c.prepare("SELECT id, c FROM a WHERE b = ?").unwrap();
    let rows = measured("1,000 I4 lookups", || {
        (0..1_000i64)
            .map(|i| {
                let p = Params::Positional(vec![Value::Integer(i * 7 % 1000)]);
                q.execute(c, &p).unwrap().rows.len()
            })
            .sum::<usize>()
    });
    assert!(rows > 100_000, "{rows} rows");
}

/// I8 on SQLite (rusqlite, in memory), for the instruction-count ratio.
fn i8_sqlite() {
    let c = rusqlite::Connection::open_in_memory().unwrap();
    c.execute_batch(&a_table("a")).unwrap();
    c.execute_batch("BEGIN").unwrap();
    {
        let mut st = c.prepare(&a_insert("a")).unwrap();
        for row in a_rows(6, 200_000) {
            st.execute(rusqlite::params_from_iter(row.into_iter().map(sq_value)))
                .unwrap();
        }
    }
    c.execute_batch("COMMIT").unwrap();
    c.execute_batch(&a_indexes("a")).unwrap();
    let mut upd = c.prepare(I8_UPDATE).unwrap();
    let n = measured("I8 (SQLite)", || upd.execute([50_001i64, 60_000]).unwrap());
    assert_eq!(n, 10_000);
}

/// The index suite's CREATE INDEX on lower(e) over the loaded table `a`.
fn index_lower(c: &mut Connection) {
    load_a(c, false);
    measured("CREATE INDEX ON a(lower(e))", || {
        c.execute_batch("CREATE INDEX a_le ON a(lower(e))").unwrap()
    });
}

/// I10: 100,000 rows into a table with three indexes, one transaction.
fn i10(c: &mut Connection) {
    c.execute_batch(&a_table("a2")).unwrap();
    c.execute_batch(&a_indexes("a2")).unwrap();
    let rows = a_rows(8, 100_000);
    let mut st = c.prepare(&a_insert("a2")).unwrap();
    measured("I10", || load(c, &mut st, rows));
}

fn payload(i: i64) -> String {
    let mut s = format!("p{i}-");
    while s.len() < 64 {
        s.push((b'a' + (s.len() % 26) as u8) as char);
    }
    s
}

fn mixed(c: &mut Connection) {
    for n in [25i64, 100, 250, 1000] {
        let t = format!("m{n}");
        run(
            c,
            &format!("CREATE TABLE {t}(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)"),
            vec![],
        );
        let mut ins = c
            .prepare(&format!(
                "INSERT INTO {t}(id, title, payload) VALUES (?, ?, ?)"
            ))
            .unwrap();
        let mut upd = c
            .prepare(&format!("UPDATE {t} SET title = ? WHERE id = ?"))
            .unwrap();
        let mut del = c.prepare(&format!("DELETE FROM {t} WHERE id = ?")).unwrap();
        run(c, "BEGIN", vec![]);
        for i in 1..=n {
            let p = vec![
                Value::Integer(i),
                Value::Text(format!("t{i}")),
                Value::Text(payload(i)),
            ];
            ins.execute(c, &Params::Positional(p)).unwrap();
        }
        run(c, "COMMIT", vec![]);
        let ops = mixed_ops(n, payload);
        measured(&format!("mixed {n}"), || {
            run(c, "BEGIN", vec![]);
            for (kind, p) in ops {
                let st = match kind {
                    0 => &mut ins,
                    1 => &mut upd,
                    _ => &mut del,
                };
                let r = st.execute_owned(c, Params::Positional(p)).unwrap();
                assert_eq!(r.changes, 1);
            }
            run(c, "COMMIT", vec![]);
        });
    }
}

/// An integer or text parameter as rusqlite's value.
fn sq_value(v: Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as Sq;
    match v {
        Value::Integer(i) => Sq::Integer(i),
        Value::Text(t) => Sq::Text(t),
        other => unreachable!("the workloads bind integers and text, not {other:?}"),
    }
}

/// The mixed transactions on SQLite (rusqlite, in memory, prepared
/// statements), for the instruction-count ratio.
fn mixed_sqlite() {
    use rusqlite::types::Value as Sq;
    let c = rusqlite::Connection::open_in_memory().unwrap();
    for n in [25i64, 100, 250, 1000] {
        let t = format!("m{n}");
        c.execute_batch(&format!("CREATE TABLE {t}(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)")).unwrap();
        let sql = [
            format!("INSERT INTO {t}(id, title, payload) VALUES (?, ?, ?)"),
            format!("UPDATE {t} SET title = ? WHERE id = ?"),
            format!("DELETE FROM {t} WHERE id = ?"),
        ];
        c.execute_batch("BEGIN").unwrap();
        for i in 1..=n {
            c.prepare_cached(&sql[0])
                .unwrap()
                .execute(rusqlite::params![i, format!("t{i}"), payload(i)])
                .unwrap();
        }
        c.execute_batch("COMMIT").unwrap();
        let ops: Vec<(usize, Vec<Sq>)> = mixed_ops(n, payload)
            .into_iter()
            .map(|(kind, p)| (kind, p.into_iter().map(sq_value).collect()))
            .collect();
        let mut st: Vec<_> = sql.iter().map(|q| c.prepare(q).unwrap()).collect();
        measured(&format!("mixed {n} (SQLite)"), || {
            c.execute_batch("BEGIN").unwrap();
            for (kind, p) in ops {
                let changed = st[kind].execute(rusqlite::params_from_iter(p)).unwrap();
                assert_eq!(changed, 1);
            }
            c.execute_batch("COMMIT").unwrap();
        });
    }
}

/// The comparison's warm point lookups: 10,000 prepared `SELECT k, v FROM
/// kv WHERE id = ?`, each its own autocommit read, over 100,000 rows.
fn lookups(c: &mut Connection) {
    run(c, KV_TABLE, vec![]);
    let (rows, ids) = kv_rows_and_ids();
    let mut ins = c.prepare(KV_INSERT).unwrap();
    load(c, &mut ins, rows);
    let mut st = c.prepare(KV_LOOKUP).unwrap();
    let found = measured("10k point lookups", || {
        ids.iter()
            .map(|&id| {
                st.execute(c, &Params::Positional(vec![Value::Integer(id)]))
                    .unwrap()
                    .rows
                    .len()
            })
            .sum::<usize>()
    });
    assert_eq!(found, 10_000);
}

const J2: &str = "SELECT count(*), sum(f.amount) FROM s JOIN f ON f.s_id = s.id WHERE s.cat = 7";

/// The join tables' rows: s (10,000: id, cat, name, code) and f (200,000:
/// id, s_id, amount, tag, ref), shaped like the comparison's.
fn join_rows() -> (Vec<Vec<Value>>, Vec<Vec<Value>>) {
    let s = (1..=10_000i64)
        .map(|i| {
            vec![
                Value::Integer(i),
                Value::Integer(i % 100),
                Value::Text(format!("name-{i}")),
                Value::Integer(i * 3),
            ]
        })
        .collect();
    let mut r = prng(4);
    let f = (1..=200_000i64)
        .map(|i| {
            let mut n = |k: u32| i64::from(r() % k);
            vec![
                Value::Integer(i),
                Value::Integer(1 + n(9_000)),
                Value::Integer(n(1_000)),
                Value::Integer(n(10)),
                Value::Integer(1 + n(30_000)),
            ]
        })
        .collect();
    (s, f)
}

const JOIN_TABLES: &str = "CREATE TABLE s(id INTEGER PRIMARY KEY, cat INTEGER NOT NULL, name TEXT NOT NULL, code INTEGER NOT NULL); CREATE TABLE f(id INTEGER PRIMARY KEY, s_id INTEGER NOT NULL, amount INTEGER NOT NULL, tag INTEGER NOT NULL, ref INTEGER NOT NULL);";

fn j2(c: &mut Connection) {
    j2_tables(c);
    let sql = j2_sql();
    let first = run_query(c, &sql);
    let again = measured("J2 repeat", || run_query(c, &sql));
    assert_eq!(first, again);
    println!("{again:?}");
}

/// J2's text, or `J2_SQL` in its place.
fn j2_sql() -> String {
    std::env::var("J2_SQL").unwrap_or_else(|_| J2.to_string())
}

/// The join tables s and f, loaded, and the index on f(s_id).
fn j2_tables(c: &mut Connection) {
    c.execute_batch(JOIN_TABLES).unwrap();
    let (s, f) = join_rows();
    let mut st = c.prepare("INSERT INTO s VALUES (?, ?, ?, ?)").unwrap();
    load(c, &mut st, s);
    let mut st = c.prepare("INSERT INTO f VALUES (?, ?, ?, ?, ?)").unwrap();
    load(c, &mut st, f);
    c.execute_batch("CREATE INDEX f_s ON f(s_id)").unwrap();
}

/// [`j2`]'s first run on a database reopened from its bytes; with
/// `repeat`, its second run there (the comparison's repeat: the pages
/// cached as they were read, in page form).
fn j2_reopened(repeat: bool) {
    let db = reopened(j2_tables);
    let mut c = db.connect();
    let sql = j2_sql();
    let rows = if repeat {
        run_query(&mut c, &sql);
        measured("J2 repeat after reopening", || run_query(&mut c, &sql))
    } else {
        measured("J2 first run", || run_query(&mut c, &sql))
    };
    println!("{rows:?}");
}

fn run_query(c: &mut Connection, sql: &str) -> Vec<Vec<Value>> {
    c.execute(sql, &Params::Positional(vec![])).unwrap().rows
}

/// The join tables s and f (and with `u`, u) on SQLite, in memory, loaded
/// in one transaction, with the indexes on f(s_id) (and u(f_id)).
fn sqlite_join_tables(u: bool) -> rusqlite::Connection {
    let c = rusqlite::Connection::open_in_memory().unwrap();
    c.execute_batch(JOIN_TABLES).unwrap();
    let (s, f) = join_rows();
    let mut tables = vec![("s", s), ("f", f)];
    if u {
        c.execute_batch(U_TABLE).unwrap();
        tables.push(("u", u_rows()));
    }
    let sql = |v: &Value| match v {
        Value::Integer(i) => rusqlite::types::Value::Integer(*i),
        Value::Text(t) => rusqlite::types::Value::Text(t.clone()),
        _ => unreachable!(),
    };
    c.execute_batch("BEGIN").unwrap();
    for (table, rows) in tables {
        let marks = vec!["?"; rows[0].len()].join(", ");
        let mut st = c
            .prepare(&format!("INSERT INTO {table} VALUES ({marks})"))
            .unwrap();
        for row in rows {
            st.execute(rusqlite::params_from_iter(row.iter().map(sql)))
                .unwrap();
        }
    }
    c.execute_batch("COMMIT; CREATE INDEX f_s ON f(s_id)")
        .unwrap();
    if u {
        c.execute_batch("CREATE INDEX u_f ON u(f_id)").unwrap();
    }
    c
}

/// [`j2`] on SQLite, in memory.
fn j2_sqlite() {
    let c = sqlite_join_tables(false);
    let q = |c: &rusqlite::Connection| {
        c.query_row(J2, [], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
            .unwrap()
    };
    let first = q(&c);
    let again = measured("J2 repeat (SQLite)", || q(&c));
    assert_eq!(first, again);
    println!("{again:?}");
}

const J4: &str = "SELECT s.cat, count(*), sum(u.qty) FROM u JOIN f ON u.f_id = f.id JOIN s ON f.s_id = s.id GROUP BY s.cat";

/// The rows of the comparison's table u (402,000: id, f_id, qty).
fn u_rows() -> Vec<Vec<Value>> {
    let mut r = prng(5);
    (1..=402_000i64)
        .map(|i| {
            let mut n = |k: u32| i64::from(r() % k);
            vec![
                Value::Integer(i),
                Value::Integer(1 + n(200_000)),
                Value::Integer(n(100)),
            ]
        })
        .collect()
}

const U_TABLE: &str =
    "CREATE TABLE u(id INTEGER PRIMARY KEY, f_id INTEGER NOT NULL, qty INTEGER NOT NULL)";

/// The join tables s, f and u, loaded, and the indexes on f(s_id) and
/// u(f_id).
fn j4_tables(c: &mut Connection) {
    j2_tables(c);
    c.execute_batch(U_TABLE).unwrap();
    let mut st = c.prepare("INSERT INTO u VALUES (?, ?, ?)").unwrap();
    load(c, &mut st, u_rows());
    c.execute_batch("CREATE INDEX u_f ON u(f_id)").unwrap();
}

/// J4 over [`j4_tables`]: once unmeasured, then its repeat measured.
fn j4(c: &mut Connection) {
    for row in run_query(c, &format!("EXPLAIN QUERY PLAN {J4}")) {
        println!("{row:?}");
    }
    let first = run_query(c, J4);
    let again = measured("J4 repeat", || run_query(c, J4));
    assert_eq!(first, again);
    println!("{} groups, first {:?}", again.len(), again.first());
}

/// [`j4`] on the database reopened from its bytes: its leaves in page
/// form, as a fresh Worker reads them (the comparison's repeat).
fn j4_reopened() {
    j4(&mut reopened(j4_tables).connect());
}

/// A database that `build` filled on a memory device, synced and opened
/// again from a copy of the device's bytes (full validation, as a fresh
/// Worker opens its file; every page then comes from the device).
fn reopened(build: fn(&mut Connection)) -> Database {
    let device = MemoryDevice::new();
    let db = Database::open_with_temp(
        Box::new(device.clone()),
        Box::new(MemoryDevice::new()),
        DbOptions::default(),
    )
    .unwrap();
    build(&mut db.connect());
    db.sync().unwrap();
    drop(db);
    Database::open(
        Box::new(MemoryDevice::from_bytes(device.to_bytes())),
        DbOptions::default(),
    )
    .unwrap()
}

/// [`j4`] on SQLite, in memory.
fn j4_sqlite() {
    let c = sqlite_join_tables(true);
    let q = |c: &rusqlite::Connection| {
        let mut st = c.prepare(J4).unwrap();
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            })
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        rows
    };
    let first = q(&c);
    let again = measured("J4 repeat (SQLite)", || q(&c));
    assert_eq!(first, again);
    println!("{} groups, first {:?}", again.len(), again.first());
}

/// The comparison's durable row: 200 autocommit single-row INSERTs.
fn durable(c: &mut Connection) {
    run(c, DURABLE_TABLE, vec![]);
    let mut ins = c.prepare(DURABLE_INSERT).unwrap();
    measured("200 durable inserts", || {
        for i in 1..=200i64 {
            let p = vec![Value::Integer(i), Value::Text(format!("entry {i}"))];
            ins.execute(c, &Params::Positional(p)).unwrap();
        }
    });
}

const DURABLE_TABLE: &str = "CREATE TABLE log(id INTEGER PRIMARY KEY, v TEXT NOT NULL)";
const DURABLE_INSERT: &str = "INSERT INTO log(id, v) VALUES (?, ?)";

/// [`durable`] on SQLite: a temporary file in WAL mode, synchronous=NORMAL.
fn durable_sqlite() {
    let dir = std::env::temp_dir().join(format!("tj-durable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = rusqlite::Connection::open(dir.join("d.db")).unwrap();
    c.execute_batch(
        "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    )
    .unwrap();
    c.execute_batch(DURABLE_TABLE).unwrap();
    let mut st = c.prepare(DURABLE_INSERT).unwrap();
    measured("200 durable inserts (SQLite)", || {
        for i in 1..=200i64 {
            st.execute(rusqlite::params![i, format!("entry {i}")])
                .unwrap();
        }
    });
    drop(st);
    drop(c);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    let db = Database::open_with_temp(
        Box::new(Recording(MemoryDevice::new())),
        Box::new(MemoryDevice::new()),
        DbOptions::default(),
    )
    .unwrap();
    let mut c = db.connect();
    match what.as_str() {
        "i8" => i8(&mut c),
        "i4" => i4(&mut c),
        "mixed" => mixed(&mut c),
        "i8-sqlite" => i8_sqlite(),
        "mixed-sqlite" => mixed_sqlite(),
        "i10" => i10(&mut c),
        "index-lower" => index_lower(&mut c),
        "lookups" => lookups(&mut c),
        "durable" => durable(&mut c),
        "j2" => j2(&mut c),
        "j2-cold" => j2_reopened(false),
        "j2-reopened" => j2_reopened(true),
        "j2-sqlite" => j2_sqlite(),
        "j4" => {
            j4_tables(&mut c);
            j4(&mut c)
        }
        "j4-reopened" => j4_reopened(),
        "j4-sqlite" => j4_sqlite(),
        "durable-sqlite" => durable_sqlite(),
        _ => {
            eprintln!("usage: profile_writes i8|i8-sqlite|i4|i10|index-lower|mixed|mixed-sqlite|lookups|j2|j2-cold|j2-reopened|j2-sqlite|j4|j4-reopened|j4-sqlite|durable|durable-sqlite");
            std::process::exit(2);
        }
    }
}
