//! Exports for run.mjs: build the comparison's join dataset in memory,
//! reopen its bytes (full validation, as the package opens), run J2 / J5 /
//! J4, point lookups, and an UPDATE of an indexed column (I8's shape).
//! The allocator is the wasm build's own (worker/src/allocator.rs).

#[path = "../../worker/src/allocator.rs"]
#[allow(dead_code)]
mod allocator;

#[path = "../examples/common/mixed_ops.rs"]
mod mixed_ops;

#[global_allocator]
static ALLOCATOR: allocator::WasmAllocator = allocator::WasmAllocator::new();

use std::cell::RefCell;
use tinyjoin_engine::storage::MemoryDevice;
use tinyjoin_engine::{Connection, Database, DbOptions, Params, Value};

thread_local! {
    static IMAGE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static DB: RefCell<Option<(Database, Connection)>> = const { RefCell::new(None) };
}

/// The join tables of scripts/compare (s, f, u with indexes on f(s_id) and
/// u(f_id)) at the full profile's sizes.
const LOAD: &str = "
CREATE TABLE s(id INTEGER PRIMARY KEY, cat INTEGER NOT NULL, name TEXT NOT NULL, code INTEGER NOT NULL);
CREATE TABLE f(id INTEGER PRIMARY KEY, s_id INTEGER NOT NULL, amount INTEGER NOT NULL, tag INTEGER NOT NULL, ref INTEGER NOT NULL);
CREATE TABLE u(id INTEGER PRIMARY KEY, f_id INTEGER NOT NULL, qty INTEGER NOT NULL);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 10000) INSERT INTO s SELECT i, i % 100, 'name-' || i, i*3 FROM c;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 200000) INSERT INTO f SELECT i, 1 + ((i * 7919) % 9000), (i*31) % 1000, i % 10, 1 + ((i*13) % 30000) FROM c;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 402000) INSERT INTO u SELECT i, 1 + ((i * 104729) % 200000), i % 100 FROM c;
CREATE INDEX f_s ON f(s_id); CREATE INDEX u_f ON u(f_id);";

const QUERIES: [&str; 3] = [
    "SELECT count(*), sum(f.amount) FROM s JOIN f ON f.s_id = s.id WHERE s.cat = 7",
    "SELECT f.id, f.amount, s.name FROM f JOIN s ON f.s_id = s.id WHERE f.id = 4242",
    "SELECT s.cat, count(*), sum(u.qty) FROM u JOIN f ON u.f_id = f.id JOIN s ON f.s_id = s.id GROUP BY s.cat",
];

/// Builds the dataset; returns the image's size in bytes (0 on failure).
#[no_mangle]
pub extern "C" fn build_image() -> u32 {
    let device = MemoryDevice::new();
    let temp = Box::new(MemoryDevice::new());
    let built = Database::open_with_temp(Box::new(device.clone()), temp, DbOptions::default())
        .and_then(|db| db.connect().execute_batch(LOAD).and_then(|()| db.sync()));
    match built {
        Ok(()) => IMAGE.with(|i| {
            *i.borrow_mut() = device.to_bytes();
            i.borrow().len() as u32
        }),
        Err(_) => 0,
    }
}

/// Opens a copy of the image with the default options; 1 on success.
#[no_mangle]
pub extern "C" fn open() -> u32 {
    DB.with(|d| *d.borrow_mut() = None);
    let bytes = IMAGE.with(|i| i.borrow().clone());
    match Database::open(
        Box::new(MemoryDevice::from_bytes(bytes)),
        DbOptions::default(),
    ) {
        Ok(db) => {
            let c = db.connect();
            DB.with(|d| *d.borrow_mut() = Some((db, c)));
            1
        }
        Err(_) => 0,
    }
}

/// Runs query `i` (0: J2, 1: J5, 2: J4) from its SQL text; its row count, or
/// u32::MAX on failure.
#[no_mangle]
pub extern "C" fn query(i: u32) -> u32 {
    DB.with(
        |d| match (d.borrow_mut().as_mut(), QUERIES.get(i as usize)) {
            (Some((_, c)), Some(sql)) => c
                .execute(sql, &Params::None)
                .map_or(u32::MAX, |r| r.rows.len() as u32),
            _ => u32::MAX,
        },
    )
}

/// `f` on the open connection; u32::MAX when nothing is open.
fn with_connection(f: impl FnOnce(&mut Connection) -> u32) -> u32 {
    DB.with(|d| match d.borrow_mut().as_mut() {
        Some((_, c)) => f(c),
        None => u32::MAX,
    })
}

/// Runs `n` prepared point lookups of `f` by id (ids from a xorshift
/// generator, the same for every call); the rows found, or u32::MAX on
/// failure.
#[no_mangle]
pub extern "C" fn lookups(n: u32) -> u32 {
    with_connection(|c| {
        let Ok(mut stmt) = c.prepare("SELECT s_id, amount FROM f WHERE id = ?") else {
            return u32::MAX;
        };
        let mut s: u32 = 0x9e37_79b9;
        let mut found = 0;
        for _ in 0..n {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let id = Value::Integer(1 + i64::from(s % 200_000));
            match stmt.execute(c, &Params::Positional(vec![id])) {
                Ok(r) => found += r.rows.len() as u32,
                Err(_) => return u32::MAX,
            }
        }
        found
    })
}

/// I8's shape on this dataset: one autocommit UPDATE of the indexed column
/// `f.s_id` over 10,000 consecutive ids (round `k` takes the next 10,000);
/// the rows changed, or u32::MAX on failure.
#[no_mangle]
pub extern "C" fn update(k: u32) -> u32 {
    with_connection(|c| {
        let lo = 50_001 + i64::from(k) * 10_000;
        let p = Params::Positional(vec![Value::Integer(lo), Value::Integer(lo + 9_999)]);
        c.execute("UPDATE f SET s_id = s_id + 1 WHERE id BETWEEN ? AND ?", &p)
            .map_or(u32::MAX, |r| r.changes as u32)
    })
}

/// Runs `setup`, then the prepared `insert` once for each row `1..=n` with
/// `row(i)`'s values; `n`, or u32::MAX on failure.
fn insert_rows(
    c: &mut Connection,
    setup: &str,
    insert: &str,
    n: u32,
    row: impl Fn(i64) -> Vec<Value>,
) -> u32 {
    let Ok(mut ins) = c.execute_batch(setup).and_then(|()| c.prepare(insert)) else {
        return u32::MAX;
    };
    for i in 1..=i64::from(n) {
        if ins.execute(c, &Params::Positional(row(i))).is_err() {
            return u32::MAX;
        }
    }
    n
}

/// The comparison's durable row: a fresh table `log{k}`, then `n`
/// autocommit single-row INSERTs through one prepared statement (each its
/// own one-flush commit on the memory device); the rows inserted, or
/// u32::MAX on failure.
#[no_mangle]
pub extern "C" fn durable(k: u32, n: u32) -> u32 {
    with_connection(|c| {
        insert_rows(
            c,
            &format!("CREATE TABLE log{k}(id INTEGER PRIMARY KEY, v TEXT NOT NULL)"),
            &format!("INSERT INTO log{k}(id, v) VALUES (?, ?)"),
            n,
            |i| vec![Value::Integer(i), Value::Text(format!("entry {i}"))],
        )
    })
}

/// The comparison's mixed transactions, part one: a fresh table `mx{k}` of
/// `n` rows (a UNIQUE title, a 64-byte payload), loaded in one transaction;
/// `n`, or u32::MAX on failure.
#[no_mangle]
pub extern "C" fn mixed_setup(k: u32, n: u32) -> u32 {
    with_connection(|c| {
        let loaded = insert_rows(
            c,
            &format!("CREATE TABLE mx{k}(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL); BEGIN"),
            &format!("INSERT INTO mx{k}(id, title, payload) VALUES (?, ?, ?)"),
            n,
            |i| vec![Value::Integer(i), Value::Text(format!("t{i}")), Value::Text(payload(i))],
        );
        match loaded {
            u32::MAX => u32::MAX,
            n => c.execute_batch("COMMIT").map_or(u32::MAX, |()| n),
        }
    })
}

/// Part two: one transaction of `n` operations on `mx{k}` (a third each
/// INSERTs, UPDATEs of the UNIQUE title by id and DELETEs by id, the
/// comparison's `mixedOps`) through prepared statements, committed; the
/// rows changed, or u32::MAX on failure.
#[no_mangle]
pub extern "C" fn mixed_run(k: u32, n: u32) -> u32 {
    with_connection(|c| {
        let t = format!("mx{k}");
        let sql = [
            format!("INSERT INTO {t}(id, title, payload) VALUES (?, ?, ?)"),
            format!("UPDATE {t} SET title = ? WHERE id = ?"),
            format!("DELETE FROM {t} WHERE id = ?"),
        ];
        let Ok(mut stmts) = sql
            .iter()
            .map(|s| c.prepare(s))
            .collect::<Result<Vec<_>, _>>()
        else {
            return u32::MAX;
        };
        if c.execute_batch("BEGIN").is_err() {
            return u32::MAX;
        }
        let mut changed = 0;
        for (kind, p) in mixed_ops::mixed_ops(i64::from(n), payload) {
            match stmts[kind].execute_owned(c, Params::Positional(p)) {
                Ok(r) => changed += r.changes as u32,
                Err(_) => return u32::MAX,
            }
        }
        c.execute_batch("COMMIT").map_or(u32::MAX, |()| changed)
    })
}

/// The comparison's 64-byte payload of row `i`.
fn payload(i: i64) -> String {
    let mut s = format!("p{i}-");
    while s.len() < 64 {
        s.push((b'a' + (s.len() % 26) as u8) as char);
    }
    s
}
