//! The public API (`tinyjoin_engine::db`): transactions and savepoints,
//! statement atomicity, one writer at a time, snapshots for readers,
//! parameters, prepared statements, `changes` / `last_insert_rowid`,
//! persistence across reopen, the batch limit, and index consistency
//! (`Database::check` after every kind of write).

mod common;

use common::TempDir;
use tinyjoin_engine::storage::{CommitMode, DeviceCall, FaultDevice, FileDevice, MemoryDevice};
use tinyjoin_engine::{ConstraintKind, Database, DbOptions, Error, Params, Value};

fn rows(conn: &mut tinyjoin_engine::Connection, sql: &str) -> Vec<Vec<Value>> {
    conn.execute(sql, &Params::None)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .rows
}

/// A database on `dev` (default options) after `sql`, and a connection.
fn memory_db_with(dev: &MemoryDevice, sql: &str) -> (Database, tinyjoin_engine::Connection) {
    let db = Database::open(Box::new(dev.clone()), DbOptions::default()).unwrap();
    let mut c = db.connect();
    c.execute_batch(sql).unwrap();
    (db, c)
}

fn int(i: i64) -> Value {
    Value::Integer(i)
}

#[test]
fn autocommit_and_explicit_transactions() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    c.execute_batch(
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT); INSERT INTO t VALUES (1, 'x');",
    )
    .unwrap();
    c.execute_batch("BEGIN; INSERT INTO t VALUES (2, 'y');")
        .unwrap();
    assert!(c.in_transaction());
    // Another connection reads the last commit, without waiting.
    let mut other = db.connect();
    assert_eq!(
        rows(&mut other, "SELECT count(*) FROM t"),
        vec![vec![int(1)]]
    );
    // ... and cannot write while the transaction is open.
    let busy = other.execute("INSERT INTO t VALUES (3, 'z')", &Params::None);
    assert!(matches!(busy, Err(Error::Busy(_))), "{busy:?}");
    c.execute_batch("ROLLBACK").unwrap();
    assert!(!c.in_transaction());
    assert_eq!(rows(&mut c, "SELECT count(*) FROM t"), vec![vec![int(1)]]);
    c.execute_batch("BEGIN; INSERT INTO t VALUES (2, 'y'); COMMIT;")
        .unwrap();
    assert_eq!(
        rows(&mut other, "SELECT count(*) FROM t"),
        vec![vec![int(2)]]
    );
    assert!(c.execute("COMMIT", &Params::None).is_err());
}

fn assert_unique_violation(err: &Error) {
    assert!(
        matches!(
            err,
            Error::Constraint {
                kind: ConstraintKind::Unique,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn failed_statement_inside_transaction_is_undone_alone() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    c.execute_batch("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE)")
        .unwrap();
    c.execute_batch("BEGIN; INSERT INTO t VALUES (1, 'x');")
        .unwrap();
    // The second row conflicts: the whole statement (both rows) is undone.
    let err = c
        .execute("INSERT INTO t VALUES (2, 'y'), (3, 'x')", &Params::None)
        .unwrap_err();
    assert_unique_violation(&err);
    assert!(c.in_transaction());
    c.execute_batch("COMMIT").unwrap();
    assert_eq!(
        rows(&mut c, "SELECT a FROM t ORDER BY a"),
        vec![vec![int(1)]]
    );
    assert!(db.check().unwrap().problems.is_empty());
}

#[test]
fn a_failed_statement_in_an_atomic_transaction_rolls_it_all_back() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    c.execute_batch(
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE); INSERT INTO t VALUES (1, 'x')",
    )
    .unwrap();
    c.begin_atomic().unwrap();
    assert!(c.in_transaction());
    c.execute_batch("INSERT INTO t VALUES (2, 'y'); UPDATE t SET b = b || '!'")
        .unwrap();
    let err = c
        .execute("INSERT INTO t VALUES (3, 'z'), (4, 'x!')", &Params::None)
        .unwrap_err();
    assert_unique_violation(&err);
    // Nothing of the transaction stays, and the connection is free again.
    assert!(!c.in_transaction());
    assert_eq!(
        rows(&mut c, "SELECT a, b FROM t ORDER BY a"),
        vec![vec![int(1), Value::Text("x".into())]]
    );
    c.begin_atomic().unwrap();
    c.execute_batch("DELETE FROM t; INSERT INTO t VALUES (5, 'v'); COMMIT")
        .unwrap();
    assert_eq!(
        rows(&mut c, "SELECT a, b FROM t"),
        vec![vec![int(5), Value::Text("v".into())]]
    );
    assert!(db.check().unwrap().problems.is_empty());
}

#[test]
fn savepoints_nest_and_release() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    c.execute_batch("CREATE TABLE t(a)").unwrap();
    c.execute_batch(
        "SAVEPOINT s1; INSERT INTO t VALUES (1); SAVEPOINT s2; INSERT INTO t VALUES (2);",
    )
    .unwrap();
    c.execute_batch("ROLLBACK TO s2").unwrap();
    assert_eq!(rows(&mut c, "SELECT a FROM t"), vec![vec![int(1)]]);
    // DDL inside a savepoint is undone with it, catalog included.
    c.execute_batch("SAVEPOINT s3; CREATE TABLE u(x); ROLLBACK TO s3;")
        .unwrap();
    assert!(c.execute("SELECT * FROM u", &Params::None).is_err());
    c.execute_batch("RELEASE s1").unwrap();
    assert!(
        !c.in_transaction(),
        "releasing the outermost savepoint commits"
    );
    let mut other = db.connect();
    assert_eq!(rows(&mut other, "SELECT a FROM t"), vec![vec![int(1)]]);
    assert!(c.execute("ROLLBACK TO nosuch", &Params::None).is_err());
}

#[test]
fn parameters_and_prepared_statements() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    c.execute_batch("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")
        .unwrap();
    let mut ins = c.prepare("INSERT INTO t(b) VALUES (?)").unwrap();
    assert_eq!(ins.param_count(), 1);
    for s in ["x", "y", "z"] {
        let r = ins
            .execute(&mut c, &Params::Positional(vec![Value::Text(s.into())]))
            .unwrap();
        assert_eq!(r.changes, 1);
    }
    assert_eq!(c.last_insert_rowid(), 3);
    let r = c
        .execute(
            "SELECT b FROM t WHERE a = :id OR b = $name ORDER BY a",
            &Params::Named(vec![
                (":id".into(), int(1)),
                ("name".into(), Value::Text("z".into())),
            ]),
        )
        .unwrap();
    assert_eq!(*r.columns, ["b".to_string()]);
    assert_eq!(
        r.rows,
        vec![vec![Value::Text("x".into())], vec![Value::Text("z".into())]]
    );
    let r = c
        .execute("SELECT ?2, ?1", &Params::Positional(vec![int(1), int(2)]))
        .unwrap();
    assert_eq!(r.rows, vec![vec![int(2), int(1)]]);
    let sel = c.prepare("SELECT a AS id, b FROM t").unwrap();
    assert_eq!(sel.column_names(), ["id".to_string(), "b".to_string()]);
    let r = c
        .execute("UPDATE t SET b = upper(b) WHERE a >= 2", &Params::None)
        .unwrap();
    assert_eq!(r.changes, 2);
}

/// An INSERT, UPDATE or DELETE is planned when prepared if it binds then;
/// one that does not yet (its table is created later) still prepares, and
/// runs once the table exists; a planned one follows schema changes.
#[test]
fn writes_prepare_before_and_after_their_table_exists() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    let mut early = c.prepare("INSERT INTO t(a, b) VALUES (?, ?)").unwrap();
    let two = |a: i64, b: &str| Params::Positional(vec![int(a), Value::Text(b.into())]);
    assert!(
        early.execute(&mut c, &two(1, "x")).is_err(),
        "no table t yet"
    );
    c.execute_batch("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")
        .unwrap();
    assert_eq!(early.execute(&mut c, &two(1, "x")).unwrap().changes, 1);
    let mut upd = c.prepare("UPDATE t SET b = ? WHERE a = ?").unwrap();
    let mut del = c.prepare("DELETE FROM t WHERE a = ?").unwrap();
    let set = |b: &str, a: i64| Params::Positional(vec![Value::Text(b.into()), int(a)]);
    assert_eq!(upd.execute(&mut c, &set("y", 1)).unwrap().changes, 1);
    // A schema change between prepare and run: planned again.
    c.execute_batch("CREATE UNIQUE INDEX t_b ON t(b); INSERT INTO t VALUES (2, 'z')")
        .unwrap();
    assert!(upd.execute(&mut c, &set("z", 1)).is_err(), "UNIQUE(b) now");
    assert_eq!(upd.execute(&mut c, &set("w", 1)).unwrap().changes, 1);
    assert_eq!(
        del.execute(&mut c, &Params::Positional(vec![int(2)]))
            .unwrap()
            .changes,
        1
    );
    assert_eq!(
        rows(&mut c, "SELECT a, b FROM t"),
        vec![vec![int(1), Value::Text("w".into())]]
    );
}

/// Every shape of parameters binds the same through a prepared statement
/// (`execute`, which uses a full positional list where it is, and
/// `execute_owned`) and through SQL text: missing trailing values are NULL,
/// extra values and unknown names are misuse errors.
#[test]
fn parameter_shapes_bind_alike_borrowed_or_owned() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    let sql = "SELECT ?1, ?2, ?2 IS NULL";
    let text = |s: &str| Value::Text(s.into());
    let cases: Vec<(Params, Option<Vec<Value>>)> = vec![
        (
            Params::Positional(vec![int(1), text("a")]),
            Some(vec![int(1), text("a"), int(0)]),
        ),
        (
            Params::Positional(vec![int(1)]),
            Some(vec![int(1), Value::Null, int(1)]),
        ),
        (Params::Positional(vec![int(1), int(2), int(3)]), None),
        (Params::None, Some(vec![Value::Null, Value::Null, int(1)])),
        (
            Params::Named(vec![("?2".into(), text("b"))]),
            Some(vec![Value::Null, text("b"), int(0)]),
        ),
        (Params::Named(vec![(":x".into(), int(1))]), None),
    ];
    let mut st = c.prepare(sql).unwrap();
    for (p, want) in cases {
        let got = [
            st.execute(&mut c, &p).map(|r| r.rows),
            st.execute_owned(&mut c, p.clone()).map(|r| r.rows),
            c.execute(sql, &p).map(|r| r.rows),
        ];
        for g in got {
            match (&want, g) {
                (Some(w), Ok(rows)) => assert_eq!(rows, vec![w.clone()], "{p:?}"),
                (None, Err(Error::Misuse(_))) => {}
                (w, g) => panic!("{p:?}: want {w:?}, got {g:?}"),
            }
        }
    }
}

#[test]
fn constraint_kinds_and_messages() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    c.execute_batch(
        "CREATE TABLE p(id INTEGER PRIMARY KEY);
         CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER NOT NULL CHECK (n > 0), p INTEGER REFERENCES p(id));
         INSERT INTO p VALUES (1);",
    )
    .unwrap();
    let cases = [
        (
            "INSERT INTO t VALUES (1, NULL, 1)",
            ConstraintKind::NotNull,
            "NOT NULL constraint failed: t.n",
        ),
        (
            "INSERT INTO t VALUES (1, 0, 1)",
            ConstraintKind::Check,
            "CHECK constraint failed: n > 0",
        ),
        (
            "INSERT INTO t VALUES (1, 1, 2)",
            ConstraintKind::ForeignKey,
            "FOREIGN KEY constraint failed",
        ),
    ];
    for (sql, kind, message) in cases {
        match c.execute(sql, &Params::None) {
            Err(Error::Constraint {
                kind: k,
                message: m,
            }) => {
                assert_eq!((k, m.as_str()), (kind, message), "{sql}");
            }
            other => panic!("{sql}: {other:?}"),
        }
    }
    c.execute_batch("INSERT INTO t VALUES (1, 1, 1)").unwrap();
    let dup = c
        .execute("INSERT INTO t VALUES (1, 2, 1)", &Params::None)
        .unwrap_err();
    assert!(
        matches!(
            dup,
            Error::Constraint {
                kind: ConstraintKind::PrimaryKey,
                ..
            }
        ),
        "{dup:?}"
    );
    let fk = c.execute("DELETE FROM p", &Params::None).unwrap_err();
    assert!(
        matches!(
            fk,
            Error::Constraint {
                kind: ConstraintKind::ForeignKey,
                ..
            }
        ),
        "{fk:?}"
    );
    c.execute_batch("PRAGMA foreign_keys = OFF; DELETE FROM p;")
        .unwrap();
    assert_eq!(rows(&mut c, "PRAGMA foreign_keys"), vec![vec![int(0)]]);
}

/// A new database file `name` in a temp directory of its own (one per
/// test, as tests run at once), removed with the returned guard.
fn fresh_path(name: &str) -> (std::path::PathBuf, TempDir) {
    let tmp = TempDir::new(&format!("sql-api-{}", name.trim_end_matches(".db")));
    (tmp.0.join(name), tmp)
}

/// The database in the file at `path`, with the default options.
fn open_file(path: &std::path::Path) -> Database {
    Database::open(
        Box::new(FileDevice::open(path).unwrap()),
        DbOptions::default(),
    )
    .unwrap()
}

#[test]
fn schema_and_data_survive_reopen() {
    let (path, _tmp) = fresh_path("reopen.db");
    {
        let db = open_file(&path);
        let mut c = db.connect();
        c.execute_batch(
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE, c);
             CREATE INDEX t_c ON t(c) WHERE c IS NOT NULL;
             CREATE VIEW v AS SELECT b FROM t WHERE a > 1;
             INSERT INTO t VALUES (1, 'x', NULL), (2, 'y', 5);
             ALTER TABLE t ADD COLUMN d DEFAULT 7;",
        )
        .unwrap();
        // The view names t: renaming t would break it, so the ALTER fails
        // and changes nothing (SQLite would rewrite the view instead).
        assert!(c
            .execute("ALTER TABLE t RENAME TO t2", &Params::None)
            .is_err());
        c.execute_batch("DROP VIEW v; ALTER TABLE t RENAME TO t2; CREATE VIEW v AS SELECT b FROM t2 WHERE a > 1;").unwrap();
    }
    let db = open_file(&path);
    let mut c = db.connect();
    assert_eq!(
        rows(&mut c, "SELECT a, b, c, d FROM t2 ORDER BY a"),
        vec![
            vec![int(1), Value::Text("x".into()), Value::Null, int(7)],
            vec![int(2), Value::Text("y".into()), int(5), int(7)],
        ]
    );
    assert_eq!(
        rows(&mut c, "SELECT * FROM v"),
        vec![vec![Value::Text("y".into())]]
    );
    let dup = c.execute("INSERT INTO t2(b) VALUES ('x')", &Params::None);
    assert!(
        matches!(
            dup,
            Err(Error::Constraint {
                kind: ConstraintKind::Unique,
                ..
            })
        ),
        "{dup:?}"
    );
    assert!(db.check().unwrap().problems.is_empty());
}

#[test]
fn a_sort_beyond_the_batch_limit_fails_cleanly() {
    let opts = DbOptions {
        batch_limit_bytes: 64 * 1024,
        ..DbOptions::default()
    };
    let db = Database::open(Box::new(MemoryDevice::new()), opts).unwrap();
    let mut c = db.connect();
    c.execute_batch("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")
        .unwrap();
    c.execute_batch("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO t SELECT i, 'row' FROM n").unwrap();
    let big = c.execute(
        "SELECT t.a, t.b || u.a FROM t, t AS u ORDER BY 2",
        &Params::None,
    );
    assert!(
        matches!(big, Err(Error::BatchLimitExceeded { .. })),
        "{big:?}"
    );
    // The database is intact and usable afterwards.
    assert_eq!(rows(&mut c, "SELECT count(*) FROM t"), vec![vec![int(200)]]);
}

#[test]
fn indexes_stay_consistent_under_every_write() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    c.execute_batch(
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE, c REAL, d);
         CREATE INDEX t_cd ON t(c DESC, d);
         CREATE INDEX t_lower ON t(lower(b));
         INSERT INTO t VALUES (1, 'A', 1.5, 'x'), (2, 'b', 2, NULL), (3, 'C', NULL, 3);
         UPDATE t SET c = c * 2, b = b || '!' WHERE a >= 2;
         INSERT OR REPLACE INTO t VALUES (4, 'A', 0, 0);
         INSERT INTO t VALUES (5, 'e', 1, 1) ON CONFLICT(b) DO UPDATE SET c = 9;
         INSERT INTO t VALUES (6, 'e', 1, 1) ON CONFLICT(b) DO UPDATE SET c = 9;
         DELETE FROM t WHERE a = 3;
         UPDATE t SET a = a + 10 WHERE a = 2;",
    )
    .unwrap();
    let report = db.check().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(
        rows(&mut c, "SELECT a FROM t WHERE lower(b) = 'b!'"),
        vec![vec![int(12)]]
    );
    assert_eq!(
        rows(&mut c, "SELECT a, c FROM t WHERE b = 'e'"),
        vec![vec![int(5), Value::Real(9.0)]]
    );
}

/// `DbOptions::commit` reaches the storage layer: a small durable
/// transaction flushes twice by default and once with `OneFlush`, and the
/// file reopens with every commit in either case.
#[test]
fn the_commit_option_sets_the_flushes_per_commit() {
    use tinyjoin_engine::db::CommitMode;
    for (mode, per_commit) in [(CommitMode::TwoFlush, 2), (CommitMode::OneFlush, 1)] {
        let (dev, log) = FaultDevice::new(Vec::new());
        let opts = DbOptions {
            commit: mode,
            ..DbOptions::default()
        };
        let db = Database::open(Box::new(dev), opts.clone()).unwrap();
        let mut c = db.connect();
        c.execute_batch("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
            .unwrap();
        log.take_log();
        for i in 0..10 {
            c.execute(
                "INSERT INTO t VALUES (?, 'x')",
                &Params::Positional(vec![Value::Integer(i)]),
            )
            .unwrap();
        }
        let flushes = log
            .take_log()
            .into_iter()
            .filter(|c| *c == DeviceCall::Flush);
        assert_eq!(flushes.count(), 10 * per_commit, "{mode:?}");
        drop(c);
        drop(db);
        let (dev, _) = FaultDevice::new(log.current());
        let db = Database::open(Box::new(dev), opts).unwrap();
        let r = db
            .connect()
            .execute("SELECT count(*) FROM t", &Params::None)
            .unwrap();
        assert_eq!(r.rows, vec![vec![Value::Integer(10)]], "{mode:?}");
    }
}

/// A request run in `begin_atomic` ends exactly as the same statements run
/// under `BEGIN` with a rollback on the first error: all of them, or none.
/// Random scripts of inserts, updates and deletes on a table with a UNIQUE
/// and a CHECK constraint, some of which fail.
#[test]
fn atomic_transactions_end_like_begin_with_a_rollback_on_error() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let stmt = prop_oneof![
        (0i64..12, 0i64..6).prop_map(|(a, b)| format!("INSERT INTO t VALUES ({a}, {b}, 'v{a}')")),
        (0i64..6, -1i64..3).prop_map(|(b, d)| format!("UPDATE t SET b = b + {d} WHERE b >= {b}")),
        (0i64..12).prop_map(|a| format!("DELETE FROM t WHERE a = {a}")),
        (0i64..6).prop_map(|b| format!("UPDATE t SET c = NULL WHERE b = {b}")),
    ];
    let requests = proptest::collection::vec(proptest::collection::vec(stmt, 1..5), 1..8);
    let setup = "CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER UNIQUE, c TEXT NOT NULL CHECK (length(c) < 4))";
    let run = |reqs: &[Vec<String>], atomic: bool| -> (Vec<Vec<Value>>, Vec<bool>) {
        let db = Database::open_in_memory().unwrap();
        let mut c = db.connect();
        c.execute_batch(setup).unwrap();
        let mut outcomes = Vec::new();
        for req in reqs {
            if atomic {
                c.begin_atomic().unwrap();
            } else {
                c.execute_batch("BEGIN").unwrap();
            }
            let ok = req.iter().all(|s| c.execute(s, &Params::None).is_ok());
            if ok {
                c.execute_batch("COMMIT").unwrap();
            } else if !atomic {
                c.rollback_open_transaction();
            }
            // An atomic transaction has ended by itself at the failure.
            assert!(!c.in_transaction());
            outcomes.push(ok);
        }
        assert!(db.check().unwrap().problems.is_empty());
        (rows(&mut c, "SELECT a, b, c FROM t ORDER BY a"), outcomes)
    };
    TestRunner::new(Config {
        cases: 200,
        ..Config::default()
    })
    .run(&requests, |reqs| {
        prop_assert_eq!(run(&reqs, true), run(&reqs, false));
        Ok(())
    })
    .unwrap();
}

/// A device over memory that, once armed, hands back damaged bytes for
/// every page written after arming: what a statement spilled reads back
/// corrupt.
struct DamagesSpills {
    inner: MemoryDevice,
    armed: std::rc::Rc<std::cell::Cell<bool>>,
    written: std::rc::Rc<std::cell::RefCell<std::collections::HashSet<u64>>>,
}

impl tinyjoin_engine::storage::Device for DamagesSpills {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tinyjoin_engine::Result<()> {
        self.inner.read_at(offset, buf)?;
        let written = self.written.borrow();
        for (i, page) in buf.chunks_mut(4096).enumerate() {
            if written.contains(&(offset / 4096 + i as u64)) && page.len() > 100 {
                page[100] ^= 0x40;
            }
        }
        Ok(())
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> tinyjoin_engine::Result<()> {
        if self.armed.get() {
            let first = offset / 4096;
            let pages = (data.len() as u64).div_ceil(4096);
            self.written.borrow_mut().extend(first..first + pages);
        }
        self.inner.write_at(offset, data)
    }
    fn flush(&mut self) -> tinyjoin_engine::Result<()> {
        self.inner.flush()
    }
    fn len(&mut self) -> tinyjoin_engine::Result<u64> {
        self.inner.len()
    }
    fn truncate(&mut self, len: u64) -> tinyjoin_engine::Result<()> {
        self.inner.truncate(len)
    }
}

/// A failed statement whose undo cannot be replayed (a page it spilled
/// reads back corrupt) ends the whole transaction: the statement is half
/// undone, and a later COMMIT must not write that. The file keeps its
/// last commit.
#[test]
fn a_statement_that_cannot_be_undone_ends_its_transaction() {
    let mem = MemoryDevice::new();
    let armed = std::rc::Rc::new(std::cell::Cell::new(false));
    let dev = DamagesSpills {
        inner: mem.clone(),
        armed: armed.clone(),
        written: Default::default(),
    };
    let opts = DbOptions {
        batch_limit_bytes: 64 * 1024,
        cache_pages: 4,
        ..DbOptions::default()
    };
    let temp = Box::new(MemoryDevice::new());
    let db = Database::open_with_temp(Box::new(dev), temp, opts.clone()).unwrap();
    let mut c = db.connect();
    c.execute_batch(
        "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'base')",
    )
    .unwrap();
    db.sync().unwrap();
    c.execute_batch("BEGIN; INSERT INTO t VALUES (2, 'kept until the end')")
        .unwrap();
    armed.set(true);
    // About 300 rows of 600 bytes spill; the last row's rowid conflicts,
    // so the statement is undone, which reads the spilled leaves back.
    let err = c
        .execute(
            "INSERT INTO t SELECT x, printf('%600d', x) FROM \
             (WITH RECURSIVE s(x) AS (SELECT 10 UNION ALL SELECT x + 1 FROM s WHERE x < 300) \
              SELECT x FROM s UNION ALL SELECT 1)",
            &Params::None,
        )
        .expect_err("the statement fails");
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    assert!(
        !c.in_transaction(),
        "a half-undone statement left its transaction open"
    );
    assert!(
        c.execute_batch("COMMIT").is_err(),
        "nothing is left to commit"
    );
    armed.set(false);
    drop(c);
    drop(db);
    let db = Database::open(Box::new(mem), opts).unwrap();
    assert_eq!(
        rows(&mut db.connect(), "SELECT id, v FROM t"),
        vec![vec![int(1), Value::Text("base".into())]]
    );
}

/// Identical UNIQUE constraints make one index (as in SQLite); after a
/// reopen each remaining index still finds its own tree (the stored
/// automatic indexes tell a merged table from one made before merging).
#[test]
fn identical_constraints_share_one_index_across_reopen() {
    let (path, _tmp) = fresh_path("merged.db");
    {
        let db = open_file(&path);
        let mut c = db.connect();
        c.execute_batch(
            "CREATE TABLE t(a UNIQUE, b UNIQUE, c, UNIQUE(a) ON CONFLICT REPLACE, UNIQUE(c));
             INSERT INTO t VALUES (1, 10, 100), (2, 20, 200);
             ALTER TABLE t RENAME TO t2;",
        )
        .unwrap();
    }
    let db = open_file(&path);
    let mut c = db.connect();
    // a's one index replaces; c's finds its own keys.
    c.execute_batch("INSERT INTO t2 VALUES (1, 30, 300)")
        .unwrap();
    assert_eq!(
        rows(&mut c, "SELECT a, b, c FROM t2 ORDER BY a"),
        vec![
            vec![int(1), int(30), int(300)],
            vec![int(2), int(20), int(200)]
        ]
    );
    assert_eq!(
        rows(&mut c, "SELECT a FROM t2 WHERE c = 200"),
        vec![vec![int(2)]]
    );
    assert!(c
        .execute("INSERT INTO t2 VALUES (3, 40, 200)", &Params::None)
        .is_err());
    assert_eq!(
        rows(&mut c, "PRAGMA integrity_check"),
        vec![vec![Value::Text("ok".into())]]
    );
}

/// The full check compares every index with its table, entry by entry: an
/// index entry removed behind the engine's back is reported missing, one
/// added is reported as an entry without a row, each naming its index; the
/// table's other indexes (a partial one, one on an expression) still agree.
#[test]
fn check_reports_index_entries_that_disagree_with_the_table() {
    use std::ops::Bound;
    use tinyjoin_engine::storage::{Store, StoreOptions, TreeRead};
    let dev = MemoryDevice::new();
    let (db, mut c) = memory_db_with(
        &dev,
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT);
         CREATE INDEX ta ON t(a);
         CREATE INDEX tb ON t(lower(b)) WHERE a > 10;
         CREATE TABLE u(x);",
    );
    let mut ins = c.prepare("INSERT INTO t(a, b) VALUES (?, ?)").unwrap();
    for i in 0..3000i64 {
        let p = Params::Positional(vec![Value::Integer(i % 97), Value::Text(format!("B{i}"))]);
        ins.execute(&mut c, &p).unwrap();
    }
    assert!(db.check().unwrap().is_ok());
    // The trees are named by the catalog: find them by what they hold.
    drop(c);
    drop(db);
    let store = Store::open(Box::new(dev.clone()), StoreOptions::default()).unwrap();
    let snap = store.read().unwrap();
    let sizes: Vec<(String, u64)> = snap
        .tree_names()
        .unwrap()
        .into_iter()
        .map(|n| {
            let len = snap.tree_len(&n).unwrap();
            (n, len)
        })
        .collect();
    drop(snap);
    // Two trees hold 3000 entries (the table and the index on a); the
    // partial index holds the rows with a > 10.
    let with = |n: u64| {
        sizes
            .iter()
            .filter(|s| s.1 == n)
            .map(|s| s.0.clone())
            .collect::<Vec<_>>()
    };
    let full = with(3000);
    assert_eq!(full.len(), 2, "{sizes:?}");
    let partial_len = (0..3000).filter(|i| i % 97 > 10).count() as u64;
    assert_eq!(with(partial_len).len(), 1, "{sizes:?}");
    // An index entry's value is empty; a row's is its record.
    let snap = store.read().unwrap();
    let first = |t: &str| {
        let mut r = snap.range(t, Bound::Unbounded, Bound::Unbounded).unwrap();
        r.next().unwrap().unwrap()
    };
    let index = full.iter().find(|t| first(t).1.is_empty()).unwrap().clone();
    let table = full
        .iter()
        .find(|t| !first(t).1.is_empty())
        .unwrap()
        .clone();
    let row_key = first(&table).0;
    let victim = first(&index).0;
    let last = {
        let mut r = snap
            .range(&index, Bound::Unbounded, Bound::Unbounded)
            .unwrap();
        r.next_back().unwrap().unwrap().0
    };
    drop(snap);
    let mut w = store.write().unwrap();
    // The first entry and the last go (the merge's two ends).
    assert!(w.remove(&index, &victim).unwrap());
    assert!(w.remove(&index, &last).unwrap());
    // Two entries of no row: the first key with its last byte changed.
    for flip in [0x55, 0x33] {
        let mut bogus = victim.clone();
        *bogus.last_mut().unwrap() ^= flip;
        w.insert(&index, &bogus, &[]).unwrap();
    }
    // A row of u, the table without indexes, whose record does not decode
    // (checksums and tree are sound: only a full check reads records).
    let empty = with(0);
    assert_eq!(empty.len(), 1, "{sizes:?}");
    w.insert(&empty[0], &row_key, &[0xff; 3]).unwrap();
    w.commit().unwrap();
    drop(store);
    let expected = vec![
        "index ta of t: 2 entries missing, 2 entries without a row".to_string(),
        "table u: ".to_string(),
    ];
    let problems = |db: &Database| -> Vec<String> {
        let report = db.check().unwrap();
        let mut found: Vec<String> = report.problems.into_iter().map(|p| p.detail).collect();
        // The undecodable record's detail is the decoder's.
        for p in &mut found {
            if p.starts_with("table u: ") {
                p.truncate("table u: ".len());
            }
        }
        found.sort();
        found
    };
    let db = Database::open(Box::new(dev.clone()), DbOptions::default()).unwrap();
    assert_eq!(problems(&db), expected);
    drop(db);
    // The expected keys are held within the batch limit: past a quarter of
    // it they go to temp space in sorted runs (here runs of about 70 keys,
    // merged in several passes), and the findings are the same.
    let small = DbOptions {
        batch_limit_bytes: 16 * 1024,
        ..DbOptions::default()
    };
    let db = Database::open_with_temp(
        Box::new(dev.clone()),
        Box::new(MemoryDevice::new()),
        small.clone(),
    )
    .unwrap();
    assert_eq!(problems(&db), expected);
    // The same through SQL, where the statement's temp space is in use.
    let mut c = db.connect();
    let rows = c
        .execute("PRAGMA integrity_check", &Params::None)
        .unwrap()
        .rows;
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows.iter()
            .any(|r| matches!(&r[0], Value::Text(t) if t.contains(&expected[0]))),
        "{rows:?}"
    );
    drop(c);
    drop(db);
    // Without temp space the check stops at the limit with a typed error:
    // it is not the file's problem.
    let db = Database::open(Box::new(dev.clone()), small).unwrap();
    let err = db.check().unwrap_err();
    assert!(matches!(err, Error::BatchLimitExceeded { .. }), "{err:?}");
}

/// A temp device that fails while the full check spills its index keys
/// (each of its calls in turn, with an I/O error and a full disk): the
/// check returns that error, never a report of problems in the file, and
/// the database is unchanged: the next check, with the device working
/// again, finds nothing, and the rows are all there.
#[test]
fn a_failing_temp_device_fails_the_check_and_leaves_the_database_whole() {
    use tinyjoin_engine::storage::FaultKind;
    let main = MemoryDevice::new();
    drop(memory_db_with(
        &main,
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT);
         CREATE INDEX ta ON t(a);
         CREATE INDEX tb ON t(b, a);
         WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 3000)
         INSERT INTO t SELECT i, i * 7 % 1000, 'b' || (i % 31) FROM k;",
    ));
    let small = DbOptions {
        batch_limit_bytes: 16 * 1024,
        ..DbOptions::default()
    };
    let open = |fail: Option<(u64, FaultKind)>| {
        let (temp, handle) = FaultDevice::new(Vec::new());
        let db = Database::open_with_temp(Box::new(main.clone()), Box::new(temp), small.clone())
            .unwrap();
        let opened = handle.calls();
        if let Some((n, kind)) = fail {
            handle.fail_at(opened + n, kind);
        }
        (db, handle, opened)
    };
    // The calls a clean check makes on the temp device.
    let (db, handle, opened) = open(None);
    assert!(db.check().unwrap().problems.is_empty());
    let calls = handle.calls() - opened;
    assert!(calls > 10, "the check spilled: {calls} temp calls");
    drop(db);
    for n in 1..=calls {
        for kind in [FaultKind::Io, FaultKind::DiskFull] {
            let (db, _handle, _) = open(Some((n, kind)));
            match db.check() {
                Err(Error::Io(_)) if kind == FaultKind::Io => {}
                Err(Error::DiskFull) if kind == FaultKind::DiskFull => {}
                // A failed call the check does not depend on (emptying the
                // temp space afterwards) leaves a clean report.
                Ok(report) => assert!(report.problems.is_empty(), "call {n}: {report:?}"),
                Err(e) => panic!("call {n} ({kind:?}): {e:?}"),
            }
            let report = db.check().unwrap();
            assert!(report.problems.is_empty(), "call {n}, again: {report:?}");
            let rows = db
                .connect()
                .execute("SELECT count(*), sum(a) FROM t", &Params::None)
                .unwrap()
                .rows;
            assert_eq!(
                rows,
                vec![vec![Value::Integer(3000), Value::Integer(1_498_500)]]
            );
        }
    }
}

/// `PRAGMA user_version` is kept in the file: a new file reads 0, the
/// value survives reopening and later DDL, and a rolled-back write leaves
/// the old value.
#[test]
fn user_version_survives_reopen() {
    let device = MemoryDevice::new();
    let open = || Database::open(Box::new(device.clone()), DbOptions::default()).expect("open");
    let version = |db: &Database| {
        let r = db
            .connect()
            .execute("PRAGMA user_version", &Params::None)
            .expect("read user_version");
        r.rows[0][0].clone()
    };
    {
        let db = open();
        assert_eq!(version(&db), Value::Integer(0), "a new file");
        let mut c = db.connect();
        c.execute_batch("CREATE TABLE t(a); PRAGMA user_version = 3")
            .expect("set");
        c.execute_batch("BEGIN; PRAGMA user_version = 4; ROLLBACK")
            .expect("rolled back");
        assert_eq!(version(&db), Value::Integer(3));
    }
    let db = open();
    assert_eq!(version(&db), Value::Integer(3), "after reopen");
    let mut c = db.connect();
    c.execute_batch("PRAGMA user_version = -7; CREATE INDEX ta ON t(a)")
        .expect("set again, then DDL");
    drop(c);
    drop(db);
    let db = open();
    assert_eq!(version(&db), Value::Integer(-7), "DDL keeps it");
    assert!(db.check().expect("check").problems.is_empty());
}

/// The SQLite settings TinyJoin has one answer to: `synchronous` reads
/// the commit mode's level and accepts only that level, `encoding` only
/// UTF-8 and `page_size` only 4096; `journal_mode`, `busy_timeout` and the
/// memory settings are refused with the reason. A refused PRAGMA changes
/// nothing, in or out of a transaction.
#[test]
fn database_settings_have_one_answer() {
    let err = |c: &mut tinyjoin_engine::Connection, sql: &str| match c.execute(sql, &Params::None) {
        Ok(r) => panic!("{sql}: {:?}", r.rows),
        Err(e) => e.to_string(),
    };
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    c.execute_batch("CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        .unwrap();
    assert_eq!(rows(&mut c, "PRAGMA synchronous"), vec![vec![int(2)]]);
    for ok in ["FULL", "full", "2", "'FULL'"] {
        rows(&mut c, &format!("PRAGMA synchronous = {ok}"));
    }
    for refused in ["NORMAL", "1", "OFF", "0", "EXTRA", "3", "'x'"] {
        let e = err(&mut c, &format!("PRAGMA synchronous = {refused}"));
        assert!(
            e.contains("chosen when the database is opened"),
            "{refused}: {e}"
        );
    }
    let e = err(&mut c, "PRAGMA journal_mode");
    assert!(e.contains("no journal"), "{e}");
    let e = err(&mut c, "PRAGMA journal_mode = WAL");
    assert!(e.contains("no journal"), "{e}");
    let e = err(&mut c, "PRAGMA busy_timeout = 5000");
    assert!(e.contains("does not wait for locks"), "{e}");
    let e = err(&mut c, "PRAGMA cache_size = -20000");
    assert!(e.contains("options the database is opened with"), "{e}");
    let e = err(&mut c, "PRAGMA no_such_pragma");
    assert!(e.ends_with("unsupported pragma: no_such_pragma"), "{e}");
    for refused in ["'UTF-16'", "'utf16le'", "'UTF-16BE'"] {
        let e = err(&mut c, &format!("PRAGMA encoding = {refused}"));
        assert!(e.contains("UTF-8 only"), "{refused}: {e}");
    }
    let e = err(&mut c, "PRAGMA encoding = 'latin1'");
    assert!(e.contains("unsupported encoding: latin1"), "{e}");
    for refused in ["8192", "512", "'abc'", "0"] {
        let e = err(&mut c, &format!("PRAGMA page_size = {refused}"));
        assert!(e.contains("pages are 4096 bytes"), "{refused}: {e}");
    }
    c.execute_batch("BEGIN; INSERT INTO t VALUES (2)").unwrap();
    err(&mut c, "PRAGMA synchronous = OFF");
    err(&mut c, "PRAGMA page_size = 1024");
    c.execute_batch("COMMIT").unwrap();
    assert_eq!(
        rows(&mut c, "SELECT a FROM t"),
        vec![vec![int(1)], vec![int(2)]]
    );
    assert_eq!(
        rows(&mut c, "PRAGMA encoding"),
        vec![vec![Value::Text("UTF-8".into())]]
    );
    assert_eq!(rows(&mut c, "PRAGMA page_size"), vec![vec![int(4096)]]);

    // Deferred commits are SQLite's WAL at synchronous = NORMAL.
    let opts = DbOptions {
        commit: CommitMode::Deferred,
        ..DbOptions::default()
    };
    let db = Database::open(Box::new(MemoryDevice::new()), opts).unwrap();
    let mut c = db.connect();
    assert_eq!(rows(&mut c, "PRAGMA synchronous"), vec![vec![int(1)]]);
    rows(&mut c, "PRAGMA synchronous = normal");
    rows(&mut c, "PRAGMA synchronous = 1");
    let e = err(&mut c, "PRAGMA synchronous = FULL");
    assert!(e.contains("it is NORMAL"), "{e}");
}

/// A prepared query of a `pragma_*` table-valued function reads the
/// schema of the latest commit: it plans again after DDL and PRAGMA
/// writes, in its own connection or another.
#[test]
fn pragma_functions_follow_schema_changes() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    let mut other = db.connect();
    c.execute_batch("CREATE TABLE t(a)").unwrap();
    let mut columns = c
        .prepare("SELECT group_concat(name, ',') FROM pragma_table_info('t')")
        .unwrap();
    let mut version = c.prepare("SELECT * FROM pragma_user_version").unwrap();
    let one = |s: &mut tinyjoin_engine::Statement, c: &mut tinyjoin_engine::Connection| {
        s.execute(c, &Params::None).unwrap().rows[0][0].clone()
    };
    assert_eq!(one(&mut columns, &mut c), Value::Text("a".into()));
    assert_eq!(one(&mut version, &mut c), int(0));
    c.execute_batch("ALTER TABLE t ADD COLUMN b").unwrap();
    assert_eq!(one(&mut columns, &mut c), Value::Text("a,b".into()));
    other
        .execute_batch("ALTER TABLE t RENAME COLUMN a TO x; PRAGMA user_version = 5")
        .unwrap();
    assert_eq!(one(&mut columns, &mut c), Value::Text("x,b".into()));
    assert_eq!(one(&mut version, &mut c), int(5));
    c.execute_batch("BEGIN; ALTER TABLE t ADD COLUMN y")
        .unwrap();
    assert_eq!(one(&mut columns, &mut c), Value::Text("x,b,y".into()));
    c.execute_batch("ROLLBACK").unwrap();
    assert_eq!(one(&mut columns, &mut c), Value::Text("x,b".into()));
}

/// Generated columns and renamed columns survive reopening: the schema
/// read back computes the same values, and CHECKs and generated
/// expressions that read a renamed column still do.
#[test]
fn generated_and_renamed_columns_survive_reopen() {
    let device = MemoryDevice::new();
    let open = || Database::open(Box::new(device.clone()), DbOptions::default()).expect("open");
    {
        let db = open();
        let mut c = db.connect();
        c.execute_batch(
            "CREATE TABLE t(a CHECK (a > 0), b AS (a * 2) STORED, c AS (b + 1));
             INSERT INTO t(a) VALUES (1), (2);
             ALTER TABLE t RENAME COLUMN a TO x;
             ALTER TABLE t ADD COLUMN d AS (x || c);
             INSERT INTO t(x) VALUES (3)",
        )
        .expect("schema and rows");
    }
    let db = open();
    let mut c = db.connect();
    let rows = |c: &mut tinyjoin_engine::Connection| {
        c.execute("SELECT x, b, c, d FROM t ORDER BY x", &Params::None)
            .expect("read")
            .rows
    };
    let t = |s: &str| Value::Text(s.into());
    assert_eq!(
        rows(&mut c),
        vec![
            vec![int(1), int(2), int(3), t("13")],
            vec![int(2), int(4), int(5), t("25")],
            vec![int(3), int(6), int(7), t("37")],
        ]
    );
    let e = c.execute("INSERT INTO t(x) VALUES (-1)", &Params::None);
    assert!(
        matches!(
            &e,
            Err(Error::Constraint {
                kind: ConstraintKind::Check,
                ..
            })
        ),
        "{e:?}"
    );
    c.execute("UPDATE t SET x = 10 WHERE x = 1", &Params::None)
        .expect("update");
    assert_eq!(rows(&mut c)[2], vec![int(10), int(20), int(21), t("1021")]);
    assert!(db.check().expect("check").problems.is_empty());
}

/// A renamed parent keeps its children's and its own foreign keys after
/// reopening: the definitions read back name it by its new name.
#[test]
fn renamed_parents_keep_foreign_keys_after_reopen() {
    let device = MemoryDevice::new();
    let open = || Database::open(Box::new(device.clone()), DbOptions::default()).expect("open");
    {
        let db = open();
        db.connect()
            .execute_batch(
                "CREATE TABLE p(a PRIMARY KEY, up REFERENCES p(a));
                 ALTER TABLE p ADD COLUMN side REFERENCES p(a);
                 CREATE TABLE ch(x REFERENCES p(a));
                 INSERT INTO p VALUES (1, 1, 1);
                 ALTER TABLE p RENAME TO p2;
                 ALTER TABLE p2 RENAME COLUMN a TO id",
            )
            .expect("schema");
    }
    let db = open();
    let mut c = db.connect();
    c.execute_batch("INSERT INTO ch VALUES (1); INSERT INTO p2 VALUES (2, 1, 1)")
        .expect("the keys find the renamed parent");
    for bad in [
        "INSERT INTO ch VALUES (9)",
        "INSERT INTO p2 VALUES (3, 9, 1)",
        "INSERT INTO p2 VALUES (4, 1, 9)",
    ] {
        let e = c.execute(bad, &Params::None);
        assert!(
            matches!(
                &e,
                Err(Error::Constraint {
                    kind: ConstraintKind::ForeignKey,
                    ..
                })
            ),
            "{bad}: {e:?}"
        );
    }
    let parents = c
        .execute(
            "SELECT DISTINCT \"table\", \"to\" FROM pragma_foreign_key_list('p2')",
            &Params::None,
        )
        .expect("keys")
        .rows;
    assert_eq!(
        parents,
        vec![vec![Value::Text("p2".into()), Value::Text("id".into())]]
    );
}

/// AUTOINCREMENT's sequence is stored: after deleting every row and
/// reopening, a new row still gets a rowid past every one given before.
#[test]
fn autoincrement_survives_reopen() {
    let device = MemoryDevice::new();
    let open = || Database::open(Box::new(device.clone()), DbOptions::default()).expect("open");
    {
        let db = open();
        db.connect()
            .execute_batch(
                "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, x);
                 INSERT INTO t(x) VALUES (1), (2), (3);
                 DELETE FROM t",
            )
            .expect("rows given and deleted");
    }
    let db = open();
    let mut c = db.connect();
    let r = c
        .execute("INSERT INTO t(x) VALUES (4) RETURNING id", &Params::None)
        .expect("insert");
    assert_eq!(r.rows, vec![vec![int(4)]]);
    let r = c
        .execute("SELECT name, seq FROM sqlite_sequence", &Params::None)
        .expect("sequence");
    assert_eq!(r.rows, vec![vec![Value::Text("t".into()), int(4)]]);
    assert!(db.check().expect("check").problems.is_empty());
}

/// Rows older than an ADD COLUMN read its constant DEFAULT (signed or
/// CAST, as SQLite computes it) after reopening, and a CHECK added with a
/// column is tried before the table's, as the rewritten definition orders
/// them, in the session that added it and after reopening alike.
#[test]
fn added_columns_read_their_defaults_after_reopen() {
    let device = MemoryDevice::new();
    let open = || Database::open(Box::new(device.clone()), DbOptions::default()).expect("open");
    let failed_check = |c: &mut tinyjoin_engine::Connection| {
        c.execute("INSERT INTO t(a, b) VALUES (2, 5)", &Params::None)
            .expect_err("both CHECKs fail")
            .to_string()
    };
    {
        let db = open();
        let mut c = db.connect();
        c.execute_batch(
            "CREATE TABLE t(a, CHECK (a > 10));
             INSERT INTO t VALUES (11);
             ALTER TABLE t ADD COLUMN b CHECK (b > 100) DEFAULT (+101);
             ALTER TABLE t ADD COLUMN c DEFAULT (CAST(7 AS TEXT));
             ALTER TABLE t ADD COLUMN d REAL DEFAULT (-'3');
             ALTER TABLE t ADD COLUMN e DEFAULT (- -2)",
        )
        .expect("columns added");
        assert!(failed_check(&mut c).contains("b > 100"));
    }
    let db = open();
    let mut c = db.connect();
    let r = c
        .execute(
            "SELECT a, b, c, typeof(c), d, typeof(d), e FROM t",
            &Params::None,
        )
        .expect("select");
    let text = |s: &str| Value::Text(s.into());
    assert_eq!(
        r.rows,
        vec![vec![
            int(11),
            int(101),
            text("7"),
            text("text"),
            Value::Real(-3.0),
            text("real"),
            int(2),
        ]]
    );
    assert!(failed_check(&mut c).contains("b > 100"));
    assert!(db.check().expect("check").problems.is_empty());
}

/// Triggers and writable views survive a reopen (read back from their
/// tree), a RENAME TO of their table included; an ALTER that would leave
/// a trigger's statements naming what no longer exists fails and changes
/// nothing (SQLite rewrites them instead: README).
#[test]
fn triggers_survive_reopen_and_alters_that_break_them_fail() {
    let device = MemoryDevice::new();
    let open = || Database::open(Box::new(device.clone()), DbOptions::default()).expect("open");
    {
        let db = open();
        let mut c = db.connect();
        c.execute_batch(
            "CREATE TABLE t(a, b);
             CREATE TABLE log(x);
             CREATE TRIGGER ti AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.a + new.b); END;
             CREATE VIEW v AS SELECT a, b FROM t;
             CREATE TRIGGER vi INSTEAD OF INSERT ON v BEGIN INSERT INTO t VALUES (new.a, 100); END;
             INSERT INTO t VALUES (1, 2)",
        )
        .expect("schema");
        for (alter, object) in [
            ("ALTER TABLE t RENAME COLUMN a TO aa", "view v"),
            ("ALTER TABLE log RENAME TO log2", "trigger ti"),
            ("DROP VIEW v", ""),
            ("ALTER TABLE t RENAME COLUMN b TO bb", "trigger ti"),
            ("ALTER TABLE t DROP COLUMN b", "trigger ti"),
        ] {
            match object {
                "" => c.execute_batch(alter).expect(alter),
                _ => {
                    let e = c
                        .execute(alter, &Params::None)
                        .expect_err(alter)
                        .to_string();
                    assert!(e.contains(&format!("error in {object}")), "{alter}: {e}");
                }
            }
        }
        c.execute_batch(
            "ALTER TABLE log RENAME COLUMN x TO y;
             ALTER TABLE log RENAME COLUMN y TO x;
             ALTER TABLE t ADD COLUMN c;
             ALTER TABLE t RENAME TO t2;
             CREATE VIEW v AS SELECT a, b FROM t2;
             CREATE TRIGGER vi INSTEAD OF INSERT ON v BEGIN INSERT INTO t2(a, b) VALUES (new.a, 100); END",
        )
        .expect("alters that break nothing");
    }
    let db = open();
    let mut c = db.connect();
    c.execute_batch("INSERT INTO t2(a, b) VALUES (3, 4); INSERT INTO v(a) VALUES (5)")
        .expect("the triggers fire after reopen");
    assert_eq!(
        rows(&mut c, "SELECT x FROM log ORDER BY rowid"),
        vec![vec![int(3)], vec![int(7)], vec![int(105)]]
    );
    let sql = rows(&mut c, "SELECT sql FROM sqlite_schema WHERE name = 'ti'");
    assert_eq!(
        sql,
        vec![vec![Value::Text(
            "CREATE TRIGGER ti AFTER INSERT ON \"t2\" BEGIN INSERT INTO log VALUES (new.a + new.b); END".into()
        )]]
    );
    assert!(db.check().expect("check").problems.is_empty());
}

/// VACUUM gives the pages deleted rows left back: `PRAGMA page_count`
/// and the file shrink to about what the rows left need, the rows,
/// indexes and schema stay (integrity_check, the same query results, a
/// reopen), and later writes go on. Not inside a transaction, not INTO a
/// file, `temp` has nothing to compact, another schema is unknown.
#[test]
fn vacuum_shrinks_the_file_and_keeps_everything() {
    let dev = MemoryDevice::new();
    let (db, mut c) = memory_db_with(
        &dev,
        "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, big BLOB);
         CREATE INDEX t_name ON t(name);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
         INSERT INTO t SELECT i, 'name ' || (i * 7919 % 20000),
           CASE WHEN i % 500 = 0 THEN zeroblob(30000) END FROM n;
         DELETE FROM t WHERE id % 10 <> 0;",
    );
    let count = |c: &mut tinyjoin_engine::Connection, p: &str| match &rows(c, p)[0][0] {
        Value::Integer(n) => *n,
        v => panic!("{p}: {v:?}"),
    };
    let query = "SELECT count(*), sum(id), sum(length(big)), min(name), max(name) FROM t";
    let before = rows(&mut c, query);
    let (pages, free) = (
        count(&mut c, "PRAGMA page_count"),
        count(&mut c, "PRAGMA freelist_count"),
    );
    assert!(free > pages / 2, "{free} of {pages} pages free");
    assert_eq!(dev.to_bytes().len() as i64, pages * 4096);

    c.execute_batch("VACUUM").unwrap();
    let (after, free_after) = (
        count(&mut c, "PRAGMA page_count"),
        count(&mut c, "PRAGMA freelist_count"),
    );
    assert!(
        after <= pages - free + 8,
        "{pages} pages, {free} free, {after} after"
    );
    assert!(free_after <= 4, "{free_after} free after VACUUM");
    assert_eq!(dev.to_bytes().len() as i64, after * 4096, "the file is cut");
    assert_eq!(rows(&mut c, query), before);
    assert_eq!(
        rows(&mut c, "PRAGMA integrity_check"),
        vec![vec![Value::Text("ok".into())]]
    );
    assert!(db.check().unwrap().is_ok());
    // The index still serves its lookups.
    assert_eq!(
        rows(&mut c, "SELECT id FROM t WHERE name = 'name 790'"),
        rows(&mut c, "SELECT id FROM t WHERE +name = 'name 790'")
    );

    for (sql, message) in [
        ("VACUUM INTO 'copy.db'", "VACUUM INTO is not supported"),
        ("VACUUM other", "unknown database other"),
    ] {
        match c.execute(sql, &Params::None) {
            Err(Error::Sql { message: m, .. }) => assert!(m.contains(message), "{sql}: {m}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
    c.execute_batch("VACUUM temp; VACUUM main; BEGIN").unwrap();
    match c.execute("VACUUM", &Params::None) {
        Err(Error::Sql { message, .. }) => {
            assert_eq!(message, "cannot VACUUM from within a transaction")
        }
        other => panic!("VACUUM in a transaction: {other:?}"),
    }
    c.execute_batch("INSERT INTO t(id, name) VALUES (20001, 'late'); COMMIT")
        .unwrap();
    drop(c);
    drop(db);
    let db = Database::open(Box::new(dev.clone()), DbOptions::default()).unwrap();
    let mut c = db.connect();
    assert_eq!(
        rows(&mut c, "SELECT count(*) FROM t WHERE id <= 20000"),
        vec![before[0][..1].to_vec()]
    );
    assert_eq!(
        rows(&mut c, "SELECT name FROM t WHERE id = 20001"),
        vec![vec![Value::Text("late".into())]]
    );
}
