//! A seek on an indexed expression enforces its `expression = value`
//! conjunct exactly, so the planner drops that conjunct when the index then
//! covers the query (no row fetched: `SELECT id FROM t WHERE lower(e) = ?`).
//! Random rows (NULLs, numbers, numeric-looking text, mixed case, blobs)
//! and random queries through expression indexes (alone, with other
//! conjuncts, in joins, LEFT JOINs, correlated subqueries, IN lists) return
//! exactly SQLite's rows; the plans that may cover do.

mod common;

use common::{plan, rows, sqlite_rows};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tinyjoin_engine::{Connection, Database};

const SCHEMA: &[&str] = &[
    "CREATE TABLE t(id INTEGER PRIMARY KEY, e TEXT, b INTEGER, n, x TEXT COLLATE NOCASE)",
    "CREATE INDEX t_le ON t(lower(e))",
    "CREATE INDEX t_ab ON t(abs(b))",
    "CREATE INDEX t_len ON t(lower(e), b)",
    "CREATE INDEX t_nn ON t(n + 0)",
    "CREATE INDEX t_ux ON t(upper(x))",
    "CREATE TABLE s(k, v INTEGER)",
];

fn text(rng: &mut SmallRng) -> String {
    [
        "NULL", "'Ab'", "'ab'", "'AB'", "'b'", "'1'", "'1.0'", "'01'", "1", "1.0", "x'6162'", "''",
        "' ab'",
    ][rng.gen_range(0..13)]
    .to_string()
}

fn number(rng: &mut SmallRng) -> String {
    [
        "NULL",
        "-2",
        "2",
        "2.0",
        "'2'",
        "0",
        "-0.0",
        "3.5",
        "'x'",
        "9007199254740993",
    ][rng.gen_range(0..10)]
    .to_string()
}

/// A random query through one of the expression indexes.
fn query(rng: &mut SmallRng) -> String {
    let t = text(rng);
    let b = number(rng);
    match rng.gen_range(0..13) {
        0 => format!("SELECT id FROM t WHERE lower(e) = {t} ORDER BY id"),
        1 => format!("SELECT count(*) FROM t WHERE lower(e) = {t}"),
        2 => format!("SELECT id, e FROM t WHERE lower(e) = {t} ORDER BY id"),
        3 => format!("SELECT id FROM t WHERE lower(e) = {t} AND b > 1 ORDER BY id DESC"),
        4 => format!("SELECT id FROM t WHERE abs(b) = {b} ORDER BY id"),
        5 => format!("SELECT id, b FROM t WHERE lower(e) = {t} AND b = {b} ORDER BY id"),
        6 => format!("SELECT sum(id) FROM t WHERE n + 0 = {b}"),
        7 => format!("SELECT id FROM t WHERE upper(x) = upper({t}) ORDER BY id"),
        8 => "SELECT s.k, t.id FROM s JOIN t ON lower(t.e) = s.k ORDER BY s.k, t.id".to_string(),
        9 => {
            "SELECT s.k, t.id FROM s LEFT JOIN t ON lower(t.e) = s.k ORDER BY s.k, t.id".to_string()
        }
        10 => "SELECT s.k, (SELECT count(*) FROM t WHERE lower(t.e) = s.k) FROM s ORDER BY 1, 2"
            .to_string(),
        // A later level reads the column the seek's conjunct reads.
        11 => format!(
            "SELECT t.id, s.v FROM t JOIN s ON s.k = t.e WHERE lower(t.e) = {t} ORDER BY 1, 2"
        ),
        _ => format!("SELECT id FROM t WHERE lower(e) IN ({t}, 'ab') ORDER BY id"),
    }
}

#[test]
fn expression_index_seeks_agree_with_sqlite() {
    for seed in 0..8u64 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let db = Database::open_in_memory().unwrap();
        let mut c = db.connect();
        let lite = rusqlite::Connection::open_in_memory().unwrap();
        let both = |sql: &str, c: &mut Connection| {
            c.execute_batch(sql)
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
            lite.execute_batch(sql).unwrap();
        };
        for s in SCHEMA {
            both(s, &mut c);
        }
        for id in 1..=80 {
            let sql = format!(
                "INSERT INTO t VALUES ({id}, {}, {}, {}, {})",
                text(&mut rng),
                number(&mut rng),
                number(&mut rng),
                text(&mut rng)
            );
            both(&sql, &mut c);
        }
        for v in 0..6 {
            let sql = format!("INSERT INTO s VALUES ({}, {v})", text(&mut rng));
            both(&sql, &mut c);
        }
        if seed % 2 == 1 {
            both("ANALYZE", &mut c);
        }
        for _ in 0..120 {
            let q = query(&mut rng);
            assert_eq!(rows(&mut c, &q), sqlite_rows(&lite, &q), "seed {seed}: {q}");
        }
    }
}

#[test]
fn an_exact_expression_seek_covers_what_reads_nothing_else() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    for s in SCHEMA {
        c.execute_batch(s).unwrap();
    }
    c.execute_batch(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
           INSERT INTO t SELECT i, 'E' || (i % 100), i % 7, i, 'x' || i FROM n",
    )
    .unwrap();
    let covering = "SEARCH t USING COVERING INDEX t_le (<expr>=?)";
    let fetching = "SEARCH t USING INDEX t_le (<expr>=?)";
    for (sql, expected) in [
        ("SELECT id FROM t WHERE lower(e) = ?", covering),
        ("SELECT count(*) FROM t WHERE lower(e) = 'ab'", covering),
        (
            "SELECT id FROM t WHERE lower(e) = ? ORDER BY id DESC",
            covering,
        ),
        // e itself, or another column, is still read: the rows are fetched.
        ("SELECT id, e FROM t WHERE lower(e) = ?", fetching),
        ("SELECT id FROM t WHERE lower(e) = ? AND e > 'a'", fetching),
        ("SELECT id FROM t WHERE lower(e) = ? ORDER BY b", fetching),
        // The composite index holds b: its range is checked on the key.
        (
            "SELECT id FROM t WHERE lower(e) = ? AND b > 3",
            "SEARCH t USING COVERING INDEX t_len (<expr>=? AND b>?)",
        ),
        ("SELECT id FROM t WHERE lower(e) = ? AND n > 3", fetching),
    ] {
        assert_eq!(plan(&mut c, sql)[0], expected, "{sql}");
    }
    // The composite index holds b: equality on both covers.
    assert_eq!(
        plan(&mut c, "SELECT id, b FROM t WHERE lower(e) = ? AND b = ?"),
        vec!["SEARCH t USING COVERING INDEX t_len (<expr>=? AND b=?)".to_string()]
    );
}

#[test]
fn a_later_level_reading_the_column_keeps_the_rows_fetched() {
    let db = Database::open_in_memory().unwrap();
    let mut c = db.connect();
    let lite = rusqlite::Connection::open_in_memory().unwrap();
    let data =
        "INSERT INTO t VALUES (1, 'ab', 1, 1, 'x'), (2, 'AB', 1, 1, 'x'), (3, 'b', 1, 1, 'x');
                INSERT INTO s VALUES ('ab', 1), ('AB', 2), ('b', 3)";
    for s in SCHEMA.iter().copied().chain([data]) {
        c.execute_batch(s).unwrap();
        lite.execute_batch(s).unwrap();
    }
    // t is bound first, by the seek; s's level reads t.e.
    let q = "SELECT t.id, s.v FROM t JOIN s ON s.k = t.e WHERE lower(t.e) = 'ab' ORDER BY 1, 2";
    assert_eq!(
        plan(&mut c, q)[..2],
        ["SEARCH t USING INDEX t_le (<expr>=?)", "SCAN s"]
    );
    assert_eq!(rows(&mut c, q), sqlite_rows(&lite, q));
    assert_eq!(rows(&mut c, q).len(), 2);
}
