//! Streaming reads: a query that consumes its rows as they stream (scan,
//! filter, aggregate, outer join level) reads tables far larger than the
//! batch limit, because nothing is materialized; a query that does
//! materialize (a sort of every row) is still charged and fails cleanly.
//! Streamed rows decode only the columns a query reads: checked against
//! SQLite where that is easy to get wrong (`*`, rowid aliases, columns
//! added by ALTER TABLE, correlated subqueries, overflow values).

mod common;

use tinyjoin_engine::storage::MemoryDevice;
use tinyjoin_engine::{Database, DbOptions, Error, Params, Value};

const LIMIT: u64 = 64 * 1024;
const ROWS: i64 = 2_000;
const TEXT_LEN: usize = 500;

fn rows(conn: &mut tinyjoin_engine::Connection, sql: &str) -> Vec<Vec<Value>> {
    conn.execute(sql, &Params::None)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .rows
}

fn int(i: i64) -> Value {
    Value::Integer(i)
}

/// A database whose batch limit is `LIMIT`, with a table `t` holding about
/// 1 MiB of rows (16 times the limit) and a small table `g`.
fn big_table() -> (Database, tinyjoin_engine::Connection) {
    let opts = DbOptions {
        batch_limit_bytes: LIMIT,
        ..DbOptions::default()
    };
    let db = Database::open(Box::new(MemoryDevice::new()), opts).unwrap();
    let mut c = db.connect();
    c.execute_batch(
        "CREATE TABLE t(id INTEGER PRIMARY KEY, g INTEGER, s TEXT);
         CREATE TABLE g(id INTEGER PRIMARY KEY, name TEXT);
         INSERT INTO g VALUES (0, 'zero'), (1, 'one'), (2, 'two');",
    )
    .unwrap();
    for chunk in 0..ROWS / 50 {
        let values: Vec<String> = (0..50)
            .map(|j| {
                let id = chunk * 50 + j + 1;
                format!("({id}, {}, '{}')", id % 3, "x".repeat(TEXT_LEN))
            })
            .collect();
        c.execute_batch(&format!("INSERT INTO t VALUES {}", values.join(", ")))
            .unwrap();
    }
    (db, c)
}

#[test]
fn scans_and_aggregates_over_more_than_the_batch_limit_succeed() {
    let (_db, mut c) = big_table();
    let total = ROWS * TEXT_LEN as i64;
    assert!(total as u64 > 10 * LIMIT, "the table must dwarf the limit");
    assert_eq!(
        rows(&mut c, "SELECT count(*), sum(length(s)) FROM t"),
        vec![vec![int(ROWS), int(total)]]
    );
    assert_eq!(
        rows(
            &mut c,
            "SELECT count(*) FROM t WHERE s LIKE 'x%' AND id % 2 = 0"
        ),
        vec![vec![int(ROWS / 2)]]
    );
    let grouped = rows(
        &mut c,
        "SELECT g, count(*), max(length(s)) FROM t GROUP BY g ORDER BY g",
    );
    assert_eq!(grouped.len(), 3);
    assert_eq!(
        grouped.iter().map(|r| r[1].clone()).collect::<Vec<_>>(),
        vec![int(ROWS / 3), int(ROWS / 3 + 1), int(ROWS / 3 + 1)]
    );
    // The big table as the outer level of a join (rowid lookups inside; a
    // LEFT JOIN keeps the written order).
    assert_eq!(
        rows(
            &mut c,
            "SELECT g.name, count(*) FROM t LEFT JOIN g ON g.id = t.g GROUP BY g.name ORDER BY 1"
        ),
        vec![
            vec![Value::Text("one".into()), int(ROWS / 3 + 1)],
            vec![Value::Text("two".into()), int(ROWS / 3 + 1)],
            vec![Value::Text("zero".into()), int(ROWS / 3)],
        ]
    );
    // An inner join builds its hash (or looks up rows) on the small side
    // and streams the big one.
    let sql = "SELECT g.name, count(*) FROM t JOIN g ON g.id = t.g GROUP BY g.name ORDER BY 1";
    let plan = rows(&mut c, &format!("EXPLAIN QUERY PLAN {sql}"));
    assert_eq!(plan[0][3], Value::Text("SCAN t".into()), "{plan:?}");
    assert_eq!(rows(&mut c, sql).len(), 3);
    // A LIMIT stops the stream early.
    assert_eq!(
        rows(&mut c, "SELECT id FROM t WHERE id > 10 LIMIT 2"),
        vec![vec![int(11)], vec![int(12)]]
    );
}

#[test]
fn materializing_every_row_is_still_charged() {
    let (_db, mut c) = big_table();
    let sorted = c.execute("SELECT s FROM t ORDER BY s, id", &Params::None);
    assert!(
        matches!(sorted, Err(Error::BatchLimitExceeded { .. })),
        "{:?}",
        sorted.map(|r| r.rows.len())
    );
    // An aggregate's ORDER BY holds its group's rows until the group ends.
    let ordered = c.execute(
        "SELECT g, length(group_concat(s, '' ORDER BY id DESC)) FROM t GROUP BY g",
        &Params::None,
    );
    assert!(
        matches!(ordered, Err(Error::BatchLimitExceeded { .. })),
        "{:?}",
        ordered.map(|r| r.rows)
    );
    assert_eq!(
        rows(&mut c, "SELECT count(*) FROM t"),
        vec![vec![int(ROWS)]]
    );
}

#[test]
fn streamed_rows_with_overflow_values_read_whole() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    c.execute_batch(
        "CREATE TABLE v(id INTEGER PRIMARY KEY, k INTEGER, s TEXT, b BLOB);
         CREATE INDEX v_k ON v(k);",
    )
    .unwrap();
    for i in 0..20i64 {
        c.execute(
            "INSERT INTO v VALUES (?, ?, ?, ?)",
            &Params::Positional(vec![
                int(i),
                int(i % 4),
                Value::Text(format!("{i:05}{}", "y".repeat(20_000))),
                Value::Blob(vec![i as u8; 9_000]),
            ]),
        )
        .unwrap();
    }
    // Scan, index probe and rowid range, each reading overflow values.
    assert_eq!(
        rows(
            &mut c,
            "SELECT count(*), sum(length(s)), sum(length(b)) FROM v WHERE substr(s, 1, 5) >= '00010'"
        ),
        vec![vec![int(10), int(10 * 20_005), int(10 * 9_000)]]
    );
    assert_eq!(
        rows(
            &mut c,
            "SELECT id, substr(s, 1, 5), length(b) FROM v WHERE k = 3 ORDER BY id"
        ),
        (0..20)
            .filter(|i| i % 4 == 3)
            .map(|i| vec![int(i), Value::Text(format!("{i:05}")), int(9_000)])
            .collect::<Vec<_>>()
    );
    assert_eq!(
        rows(
            &mut c,
            "SELECT sum(length(s)) FROM v WHERE id BETWEEN 3 AND 6"
        ),
        vec![vec![int(4 * 20_005)]]
    );
}

/// Runs `sql` on both engines and compares the rows (as SQLite orders them
/// when the query has an ORDER BY).
fn same_as_sqlite(c: &mut tinyjoin_engine::Connection, lite: &rusqlite::Connection, sql: &str) {
    let ours = rows(c, sql);
    assert_eq!(ours, common::sqlite_rows(lite, sql), "{sql}");
}

#[test]
fn partial_decoding_agrees_with_sqlite() {
    let setup = "CREATE TABLE p(id INTEGER PRIMARY KEY, a TEXT, b INTEGER, c REAL);
         INSERT INTO p VALUES (1, 'one', 10, 1.5), (2, 'two', 20, NULL), (3, NULL, 30, 3.5), (7, 'seven', NULL, 7.0);
         ALTER TABLE p ADD COLUMN d TEXT DEFAULT 'dflt';
         ALTER TABLE p ADD COLUMN e INTEGER DEFAULT -4;
         INSERT INTO p VALUES (9, 'nine', 90, 9.5, 'mine', 99);
         CREATE TABLE q(x INTEGER, y TEXT);
         INSERT INTO q VALUES (1, 'a'), (2, 'b'), (9, 'c'), (7, NULL);
         CREATE INDEX q_x ON q(x);";
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    c.execute_batch(setup).unwrap();
    let lite = rusqlite::Connection::open_in_memory().unwrap();
    lite.execute_batch(setup).unwrap();
    for sql in [
        "SELECT * FROM p ORDER BY id",
        "SELECT rowid, id, oid FROM p WHERE b > 15 ORDER BY 1",
        "SELECT d, e FROM p ORDER BY id",
        "SELECT e + 1, upper(d) FROM p WHERE id < 5 ORDER BY id",
        "SELECT a FROM p WHERE d = 'dflt' ORDER BY a",
        "SELECT id, (SELECT y FROM q WHERE q.x = p.id) FROM p ORDER BY id",
        "SELECT id FROM p WHERE EXISTS (SELECT 1 FROM q WHERE q.x = p.id AND p.c > 2) ORDER BY id",
        "SELECT p.a, q.y FROM q JOIN p ON p.id = q.x ORDER BY q.x",
        "SELECT q.*, p.e FROM q LEFT JOIN p ON p.id = q.x ORDER BY q.x",
        "SELECT count(*), sum(b), max(a), min(d) FROM p",
        "SELECT e, count(*), group_concat(a) FROM p GROUP BY e ORDER BY e",
        "SELECT x, y FROM q WHERE x = 9",
        "SELECT a FROM p ORDER BY c DESC LIMIT 2",
    ] {
        same_as_sqlite(&mut c, &lite, sql);
    }
}

/// A recursive CTE streams one generation at a time, and the first level of
/// a join streams its subquery's rows: a series 30 times the batch limit
/// aggregates, feeds an INSERT (whose rows spool to temp space) and joins
/// with itself; the results match SQLite's, and a recursion that keeps
/// every row (a sort) still fails cleanly.
#[test]
fn recursive_ctes_longer_than_the_batch_limit_stream() {
    let opts = DbOptions {
        batch_limit_bytes: LIMIT,
        ..DbOptions::default()
    };
    let (db, lite) = common::memory_pair(opts);
    let mut c = db.connect();
    let n = 100_000;
    assert!(
        n * 24 > 30 * LIMIT as i64,
        "the series must dwarf the limit"
    );
    let series =
        format!("WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < {n})");
    let queries = [
        format!("{series} SELECT count(*), sum(x), max(x) FROM s"),
        format!("{series} SELECT x FROM s WHERE x % 9973 = 0"),
        // Two references to one CTE: the inner one runs whole inside the
        // outer's stream.
        format!("{series} SELECT count(*) FROM s AS a JOIN (SELECT x FROM s WHERE x <= 3) AS b ON a.x = b.x"),
        format!("{series} SELECT x, (SELECT count(*) FROM s AS t WHERE t.x < 4) FROM s WHERE x > {} ", n - 2),
        // UNION keeps the keys it has seen (charged), not the rows.
        "WITH RECURSIVE u(x) AS (SELECT 1 UNION SELECT (x * 7) % 1009 FROM u) SELECT count(*), sum(x) FROM u".into(),
        format!("{series} SELECT x FROM s LIMIT 5 OFFSET 10"),
    ];
    for sql in &queries {
        assert_eq!(rows(&mut c, sql), common::sqlite_rows(&lite, sql), "{sql}");
    }
    c.execute_batch("CREATE TABLE n(x INTEGER)").unwrap();
    c.execute_batch(&format!("INSERT INTO n {series} SELECT x FROM s"))
        .unwrap();
    assert_eq!(
        rows(&mut c, "SELECT count(*), sum(x) FROM n"),
        vec![vec![int(n), int(n * (n + 1) / 2)]]
    );
    // Without temp space a sort of every row still exceeds the limit.
    let plain = Database::open(
        Box::new(MemoryDevice::new()),
        DbOptions {
            batch_limit_bytes: LIMIT,
            ..DbOptions::default()
        },
    )
    .unwrap();
    let err = plain
        .connect()
        .execute(
            &format!("{series} SELECT x FROM s ORDER BY -x"),
            &Params::None,
        )
        .unwrap_err();
    assert!(matches!(err, Error::BatchLimitExceeded { .. }), "{err}");
}
