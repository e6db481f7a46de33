//! Streaming reads: a query that consumes its rows as they stream (scan,
//! filter, aggregate, outer join level) reads tables far larger than the
//! batch limit, because nothing is materialized; a query that does
//! materialize (a sort of every row) is still charged and fails cleanly.

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
    assert_eq!(
        rows(&mut c, "SELECT count(*) FROM t"),
        vec![vec![int(ROWS)]]
    );
}
