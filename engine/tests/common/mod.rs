//! Helpers shared by the integration tests that compare TinyJoin with
//! SQLite (rusqlite, bundled). Each test crate includes this module with
//! `mod common;` and uses what it needs.

use rusqlite::types::ValueRef;
use tinyjoin_engine::storage::MemoryDevice;
use tinyjoin_engine::{Connection, Database, DbOptions, Params, Value};

/// A SQLite value as TinyJoin's (text that is not UTF-8 replaced lossily).
pub fn from_sqlite(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Integer(i),
        ValueRef::Real(f) => Value::Real(f),
        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
    }
}

/// Every row `sql` returns in SQLite, in SQLite's order; panics naming the
/// SQL if SQLite rejects it.
#[allow(dead_code)] // sql_vs_sqlite maps SQLite's errors itself
pub fn sqlite_rows(lite: &rusqlite::Connection, sql: &str) -> Vec<Vec<Value>> {
    let mut stmt = lite.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let n = stmt.column_count();
    let mut out = Vec::new();
    let mut rows = stmt.query([]).unwrap_or_else(|e| panic!("{sql}: {e}"));
    while let Some(row) = rows.next().unwrap_or_else(|e| panic!("{sql}: {e}")) {
        out.push(
            (0..n)
                .map(|i| from_sqlite(row.get_ref(i).expect("column exists")))
                .collect(),
        );
    }
    out
}

/// Every row `sql` returns in SQLite, or its error's text.
#[allow(dead_code)] // for the differential tests that expect errors too
pub fn sqlite_outcome(lite: &rusqlite::Connection, sql: &str) -> Result<Vec<Vec<Value>>, String> {
    let mut stmt = lite.prepare(sql).map_err(|e| e.to_string())?;
    let n = stmt.column_count();
    let mut rows = stmt.query([]).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(|e| e.to_string())? {
        out.push(
            (0..n)
                .map(|i| from_sqlite(row.get_ref(i).expect("column exists")))
                .collect(),
        );
    }
    Ok(out)
}

/// Every row `sql` returns in TinyJoin; panics naming the SQL on an error.
#[allow(dead_code)] // not every test crate runs SQL through a Connection
pub fn rows(c: &mut Connection, sql: &str) -> Vec<Vec<Value>> {
    c.execute(sql, &Params::None)
        .unwrap_or_else(|e| panic!("{sql}: {e:?}"))
        .rows
}

/// The detail column of `EXPLAIN QUERY PLAN sql`, a string per step.
#[allow(dead_code)]
pub fn plan(c: &mut Connection, sql: &str) -> Vec<String> {
    rows(c, &format!("EXPLAIN QUERY PLAN {sql}"))
        .iter()
        .map(|r| match r.last() {
            Some(Value::Text(s)) => s.clone(),
            other => panic!("plan detail is not text: {other:?}"),
        })
        .collect()
}

/// A TinyJoin database in memory, with in-memory temp space for sorts
/// past the batch limit, beside an empty in-memory SQLite.
#[allow(dead_code)] // for the differential tests that run both engines
pub fn memory_pair(opts: DbOptions) -> (Database, rusqlite::Connection) {
    let db = Database::open_with_temp(
        Box::new(MemoryDevice::new()),
        Box::new(MemoryDevice::new()),
        opts,
    )
    .expect("open an in-memory database");
    let lite = rusqlite::Connection::open_in_memory().expect("open an in-memory SQLite");
    (db, lite)
}

/// The seeds named by environment variable `var` as `a..b`, if it is set;
/// panics naming the expected form when it is malformed.
#[allow(dead_code)] // for the randomized tests
pub fn seed_range(var: &str) -> Option<std::ops::Range<u64>> {
    let spec = std::env::var(var).ok()?;
    let parse = |s: &str| -> u64 {
        s.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{var}=a..b, got {spec:?}"))
    };
    let (a, b) = spec
        .split_once("..")
        .unwrap_or_else(|| panic!("{var}=a..b, got {spec:?}"));
    Some(parse(a)..parse(b))
}

/// One of `xs`, chosen by `rng`.
#[allow(dead_code)] // for the randomized tests
pub fn pick<'a>(rng: &mut impl rand::Rng, xs: &[&'a str]) -> &'a str {
    xs[rng.gen_range(0..xs.len())]
}

/// A directory of its own under the temp directory, removed with what it
/// holds when dropped, whether the test passed or panicked.
#[allow(dead_code)] // for the tests that keep files
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    /// `tinyjoin-<label>-<pid>` under the temp directory, made empty.
    #[allow(dead_code)]
    pub fn new(label: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("tinyjoin-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
