//! Differential tests: the same statements on TinyJoin (public API) and on
//! real SQLite (rusqlite, bundled), with the same results required.
//!
//! - `semantic_scripts`: every statement of `src/sql/testscripts/semantics`
//!   (constraints, upsert, RETURNING, LEFT JOIN, CTEs, window functions...).
//! - `random_queries`: seeded random schemas (with and without indexes),
//!   data (integers, reals, numeric-looking and other text, NULLs) and
//!   queries (joins, WHERE, subqueries, GROUP BY/HAVING, DISTINCT, compound,
//!   ORDER BY/LIMIT). Results are compared as bags unless the query orders
//!   every column; reals with a relative tolerance of 1e-9 (summation order
//!   may differ). Both engines must fail, or both succeed.
//!
//! Reproduce a failure with the printed seed: `SQL_VS_SQLITE_SEED=<n>`; run
//! more seeds than the default with `SQL_VS_SQLITE_SEEDS=a..b` (both random
//! tests take the range).

use std::path::Path;

mod common;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tinyjoin_engine::storage::MemoryDevice;
use tinyjoin_engine::{Connection, Database, DbOptions, Params, Value};

/// A normalized result: rows of values, or the fact of an error.
type Outcome = Result<Vec<Vec<Value>>, String>;

fn sqlite_run(conn: &rusqlite::Connection, sql: &str) -> Outcome {
    sqlite_run_with(conn, sql, &[])
}

fn tinyjoin_run(conn: &mut Connection, sql: &str) -> Outcome {
    conn.execute(sql, &Params::None)
        .map(|r| r.rows)
        .map_err(|e| e.to_string())
}

/// `loose`: an integer equals a real of the same value. DISTINCT and
/// compound queries keep one of several equal values, which one depends on
/// row order, and row order legitimately differs between the engines.
fn same_value(a: &Value, b: &Value, loose: bool) -> bool {
    match (a, b) {
        (Value::Integer(i), Value::Real(r)) | (Value::Real(r), Value::Integer(i)) if loose => {
            *r == *i as f64
        }
        (Value::Real(x), Value::Real(y)) => x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        _ => a == b,
    }
}

fn sort_key(row: &[Value]) -> String {
    row.iter()
        .map(|v| match v {
            // `+ 0.0` turns -0.0 into 0.0: equal values, and which of them
            // a DISTINCT or GROUP BY keeps depends on row order.
            Value::Real(r) => format!("N{:.6e}R", r + 0.0),
            Value::Integer(i) => format!("N{:.6e}I", *i as f64),
            other => format!("{other:?}"),
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// Compares two outcomes; `ordered` keeps row order.
fn same_outcome(a: &Outcome, b: &Outcome, ordered: bool, loose: bool) -> bool {
    match (a, b) {
        (Err(_), Err(_)) => true,
        (Ok(x), Ok(y)) => {
            if x.len() != y.len() {
                return false;
            }
            let (mut x, mut y) = (x.clone(), y.clone());
            if !ordered {
                x.sort_by_key(|r| sort_key(r));
                y.sort_by_key(|r| sort_key(r));
            }
            x.iter().zip(&y).all(|(r, s)| {
                r.len() == s.len() && r.iter().zip(s).all(|(p, q)| same_value(p, q, loose))
            })
        }
        _ => false,
    }
}

fn open_pair() -> (Connection, rusqlite::Connection) {
    open_pair_with(DbOptions::default())
}

fn open_pair_with(opts: DbOptions) -> (Connection, rusqlite::Connection) {
    let temp = Box::new(MemoryDevice::new());
    let db = Database::open_with_temp(Box::new(MemoryDevice::new()), temp, opts)
        .expect("in-memory database");
    let lite = rusqlite::Connection::open_in_memory().expect("sqlite");
    lite.execute_batch("PRAGMA foreign_keys = ON")
        .expect("pragma");
    (db.connect(), lite)
}

#[test]
fn semantic_scripts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sql/testscripts/semantics");
    let mut mismatches = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("scripts")
        .filter_map(|e| e.ok())
        .collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let text = std::fs::read_to_string(entry.path()).expect("read script");
        let (mut tj, lite) = open_pair();
        for line in text.lines() {
            let Some(sql) = line.strip_prefix("> ") else {
                continue;
            };
            let a = tinyjoin_run(&mut tj, sql);
            let b = sqlite_run(&lite, sql);
            let ordered = sql.to_ascii_uppercase().contains("ORDER BY");
            if !same_outcome(&a, &b, ordered, false) {
                mismatches.push(format!(
                    "{}: {sql}\n  tinyjoin: {a:?}\n  sqlite:   {b:?}",
                    entry.path().display()
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// Random SQL over a small fixed vocabulary.
struct Gen {
    rng: SmallRng,
}

const TABLES: [&str; 3] = ["t0", "t1", "t2"];
const COLS: [&str; 4] = ["a", "b", "c", "d"];

impl Gen {
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.rng.gen_range(0..xs.len())]
    }

    fn literal(&mut self) -> String {
        match self.rng.gen_range(0..10) {
            0 => "NULL".into(),
            1 => format!("{}.5", self.rng.gen_range(-3..6)),
            2 => format!("'{}'", self.pick(&["1", "2", " 3", "x", "abc", "1.0", ""])),
            _ => self.rng.gen_range(-3..8).to_string(),
        }
    }

    fn column(&mut self, tables: &[&str]) -> String {
        let t = self.pick(tables);
        let c = self.pick(&COLS);
        format!("{t}.{c}")
    }

    fn expr(&mut self, tables: &[&str], depth: u32) -> String {
        if depth == 0 {
            return if self.rng.gen_bool(0.6) {
                self.column(tables)
            } else {
                self.literal()
            };
        }
        let d = depth - 1;
        match self.rng.gen_range(0..14) {
            0 => format!(
                "({} {} {})",
                self.expr(tables, d),
                self.pick(&["+", "-", "*", "/", "%", "||"]),
                self.expr(tables, d)
            ),
            1 => format!(
                "({} {} {})",
                self.expr(tables, d),
                self.pick(&["=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT"]),
                self.expr(tables, d)
            ),
            2 => format!(
                "({} {} {})",
                self.cond(tables, d),
                self.pick(&["AND", "OR"]),
                self.cond(tables, d)
            ),
            3 => format!("(NOT {})", self.cond(tables, d)),
            4 => format!(
                "({} IN ({}, {}, {}))",
                self.expr(tables, d),
                self.literal(),
                self.literal(),
                self.literal()
            ),
            5 => format!(
                "({} BETWEEN {} AND {})",
                self.expr(tables, d),
                self.literal(),
                self.literal()
            ),
            6 => format!(
                "CASE WHEN {} THEN {} ELSE {} END",
                self.cond(tables, d),
                self.expr(tables, d),
                self.expr(tables, d)
            ),
            7 => format!("coalesce({}, {})", self.expr(tables, d), self.literal()),
            8 => format!("abs({})", self.expr(tables, d)),
            9 => format!(
                "CAST({} AS {})",
                self.expr(tables, d),
                self.pick(&["INTEGER", "REAL", "TEXT", "NUMERIC"])
            ),
            10 => format!("({} IS NULL)", self.expr(tables, d)),
            11 => format!(
                "(SELECT max(x.a) FROM t0 AS x WHERE x.b <> {})",
                self.expr(tables, d)
            ),
            12 => format!(
                "({} LIKE '{}')",
                self.expr(tables, d),
                self.pick(&["1%", "%b%", "_", "x"])
            ),
            _ => format!("(-{})", self.expr(tables, d)),
        }
    }

    fn cond(&mut self, tables: &[&str], depth: u32) -> String {
        match self.rng.gen_range(0..5) {
            0 => format!(
                "{} IN (SELECT {} FROM {})",
                self.column(tables),
                self.pick(&["a", "b", "c"]),
                self.pick(&TABLES)
            ),
            1 => format!(
                "EXISTS (SELECT 1 FROM t1 AS y WHERE y.a = {})",
                self.column(tables)
            ),
            _ => {
                let op = self.pick(&["=", "<", ">", "<=", ">=", "<>"]);
                format!(
                    "{} {op} {}",
                    self.expr(tables, depth),
                    self.expr(tables, depth)
                )
            }
        }
    }

    fn query(&mut self) -> (String, bool) {
        let n = self.rng.gen_range(1..=3);
        let tables: Vec<&str> = TABLES[..n].to_vec();
        let from = match (n, self.rng.gen_range(0..3)) {
            (2, 0) => format!("t0 LEFT JOIN t1 ON t1.a = t0.{}", self.pick(&COLS)),
            (2, 1) => format!("t0 JOIN t1 ON {}", self.cond(&tables, 1)),
            _ => tables.join(", "),
        };
        let where_clause = if self.rng.gen_bool(0.8) {
            format!(" WHERE {}", self.cond(&tables, 2))
        } else {
            String::new()
        };
        match self.rng.gen_range(0..7) {
            5 => {
                // Window functions whose value does not depend on the order
                // of peers (rank, and aggregates over the default frame).
                let (p, o) = (self.column(&tables), self.column(&tables));
                let f = match self.rng.gen_range(0..5) {
                    0 => "rank()".to_string(),
                    1 => "dense_rank()".to_string(),
                    2 => "count(*)".to_string(),
                    3 => format!("max({})", self.column(&tables)),
                    _ => format!("sum({})", self.column(&tables)),
                };
                let e = self.expr(&tables, 1);
                (format!("SELECT {e}, {f} OVER (PARTITION BY {p} ORDER BY {o}) FROM {from}{where_clause}"), false)
            }
            6 => {
                let (e1, e2) = (self.expr(&tables, 1), self.expr(&tables, 1));
                (format!("WITH c(x, y) AS (SELECT {e1}, {e2} FROM {from}{where_clause}) SELECT x, count(*), max(y) FROM c GROUP BY x"), false)
            }
            0 => {
                let g = self.column(&tables);
                let agg = self.pick(&["count(*)", "sum", "avg", "min", "max", "total", "count"]);
                let agg = if agg == "count(*)" {
                    agg.to_string()
                } else {
                    format!("{agg}({})", self.expr(&tables, 1))
                };
                (format!("SELECT {g}, {agg} FROM {from}{where_clause} GROUP BY {g} HAVING count(*) > {}", self.rng.gen_range(0..2)), false)
            }
            1 => {
                let e = self.expr(&tables, 2);
                (
                    format!("SELECT DISTINCT {e} FROM {from}{where_clause}"),
                    false,
                )
            }
            2 => {
                let (e1, e2) = (self.expr(&tables, 1), self.expr(&tables, 1));
                let op = self.pick(&["UNION", "UNION ALL", "INTERSECT", "EXCEPT"]);
                (
                    format!("SELECT {e1} FROM {from}{where_clause} {op} SELECT {e2} FROM {from}"),
                    false,
                )
            }
            3 => {
                let (e1, e2) = (self.expr(&tables, 1), self.expr(&tables, 2));
                (format!("SELECT {e1}, {e2} FROM {from}{where_clause} ORDER BY 1, 2 LIMIT {} OFFSET {}", self.rng.gen_range(0..6), self.rng.gen_range(0..3)), true)
            }
            _ => {
                let (e1, e2) = (self.expr(&tables, 2), self.column(&tables));
                (
                    format!("SELECT {e1}, {e2} FROM {from}{where_clause}"),
                    false,
                )
            }
        }
    }

    /// A random INSERT, UPDATE or DELETE.
    fn dml(&mut self) -> String {
        let t = self.pick(&TABLES);
        let one = [t];
        match self.rng.gen_range(0..4) {
            0 => format!(
                "UPDATE {t} SET {} = {} WHERE {}",
                self.pick(&["b", "c", "d"]),
                self.expr(&one, 1),
                self.cond(&one, 1)
            ),
            1 => format!("DELETE FROM {t} WHERE {}", self.cond(&one, 1)),
            2 => format!(
                "INSERT INTO {t}(b, c, d) SELECT b, c, d FROM {} WHERE {} ORDER BY b, c, d",
                self.pick(&TABLES),
                self.cond(&one, 0).replace(&format!("{t}."), "")
            ),
            _ => format!(
                "INSERT OR REPLACE INTO {t}(a, b, c, d) VALUES ({}, {}, {}, {})",
                self.rng.gen_range(0..6),
                self.literal(),
                self.literal(),
                self.literal()
            ),
        }
    }

    fn schema(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for t in TABLES {
            let a = if self.rng.gen_bool(0.3) {
                "a INTEGER PRIMARY KEY"
            } else {
                "a INTEGER"
            };
            out.push(format!("CREATE TABLE {t}({a}, b TEXT, c REAL, d)"));
            for c in COLS {
                if self.rng.gen_bool(0.3) {
                    // No DESC indexes here: SQLite answers `x IN (SELECT c
                    // ...)` with 0 instead of NULL when c has NULLs and a
                    // DESC index (3.40-3.46); the corpus covers DESC.
                    out.push(format!("CREATE INDEX {t}_{c} ON {t}({c})"));
                }
            }
            if self.rng.gen_bool(0.3) {
                out.push(format!("CREATE INDEX {t}_ab ON {t}(a, b)"));
            }
            for i in 0..self.rng.gen_range(0..9) {
                let a = if a.contains("PRIMARY") {
                    (i + 1).to_string()
                } else {
                    self.literal()
                };
                out.push(format!(
                    "INSERT INTO {t} VALUES ({a}, {}, {}, {})",
                    self.literal(),
                    self.literal(),
                    self.literal()
                ));
            }
        }
        out
    }
}

#[test]
fn random_queries() {
    compare_random(1..=100, DbOptions::default());
}

/// The same with a 16-page cache: nearly every node access misses, so
/// leaves are read back in page form, changed (copied, then given slots)
/// and promoted when hot, under random queries and writes.
#[test]
fn random_queries_with_a_tiny_page_cache() {
    let opts = DbOptions {
        cache_pages: 16,
        ..DbOptions::default()
    };
    compare_random(1001..=1030, opts);
}

/// Runs the seeds (or only `SQL_VS_SQLITE_SEED` when set) on TinyJoin
/// opened with `opts` and on SQLite, and fails listing the mismatches.
/// Filters whose operands are integers (columns, literals, arithmetic of
/// them) are decided without building values; checked here against SQLite
/// on edge values, beside reals, numeric text, other text and NULLs, with
/// every comparison operator and every `+ - * / %` shape, including
/// overflow (redone in floating point) and division by zero (NULL).
#[test]
fn integer_filters_on_edge_values() {
    let (mut tj, lite) = open_pair();
    let edges = [
        "0",
        "1",
        "-1",
        "2",
        "7",
        "-7",
        "3",
        "9223372036854775807",
        "-9223372036854775808",
        "4611686018427387904",
        "2.5",
        "-0.0",
        "'3'",
        "'x'",
        "' 7'",
        "NULL",
        "x'07'",
    ];
    let mut setup =
        vec!["CREATE TABLE e(id INTEGER PRIMARY KEY, a, b INTEGER, c TEXT)".to_string()];
    for (i, a) in edges.iter().enumerate() {
        let b = edges[(i * 5 + 3) % edges.len()];
        let c = edges[(i * 3 + 1) % edges.len()];
        setup.push(format!("INSERT INTO e VALUES ({i}, {a}, {b}, {c})"));
    }
    run_on_both(&mut tj, &lite, &setup);
    let cmps = ["=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT"];
    let ops = ["+", "-", "*", "/", "%"];
    let mut lefts: Vec<String> = vec!["a".into(), "b".into(), "c".into(), "id".into()];
    for op in ops {
        lefts.push(format!("(a {op} b)"));
        lefts.push(format!("((a {op} b) {op} 3)"));
        lefts.push(format!("(b {op} 9223372036854775807)"));
        lefts.push(format!("(id {op} 0)"));
    }
    let rights = [
        "3",
        "-1",
        "0",
        "b",
        "'3'",
        "2.5",
        "9223372036854775807",
        "NULL",
    ];
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for l in &lefts {
        for cmp in cmps {
            for r in rights {
                let sql = format!("SELECT id FROM e WHERE {l} {cmp} {r} ORDER BY id");
                let (x, y) = (tinyjoin_run(&mut tj, &sql), sqlite_run(&lite, &sql));
                compared += 1;
                if !same_outcome(&x, &y, true, false) {
                    mismatches.push(format!("{sql}\n  tinyjoin: {x:?}\n  sqlite:   {y:?}"));
                }
            }
        }
    }
    assert_no_mismatches("filters", compared, &mismatches);
}

/// A rowid lookup (`id = v`, a join on the rowid) answers for the
/// comparison it comes from, which the planner no longer tests again on
/// the row found: checked against SQLite with probe values of every kind
/// (integers at the edges, reals whole and not, numeric and other text,
/// text with spaces, blobs, NULL) from columns of each affinity, from
/// expressions without one, and as literals, from either side of `=`.
#[test]
fn rowid_lookups_on_edge_values() {
    let (mut tj, lite) = open_pair();
    let edges = [
        "0",
        "3",
        "-1",
        "9223372036854775807",
        "-9223372036854775808",
        "3.0",
        "2.5",
        "-0.0",
        "1e0",
        "'3'",
        "'3.0'",
        "' 7'",
        "'7 '",
        "'0x7'",
        "'x'",
        "NULL",
        "x'07'",
        "'9223372036854775808'",
    ];
    let mut setup = vec![
        "CREATE TABLE e(id INTEGER PRIMARY KEY, a, b INTEGER, c TEXT, d REAL)".to_string(),
        "CREATE TABLE r(x)".to_string(),
    ];
    for (i, a) in edges.iter().enumerate() {
        let b = edges[(i * 5 + 3) % edges.len()];
        let c = edges[(i * 3 + 1) % edges.len()];
        let d = edges[(i * 7 + 2) % edges.len()];
        setup.push(format!("INSERT INTO e VALUES ({i}, {a}, {b}, {c}, {d})"));
        setup.push(format!("INSERT INTO r VALUES ({a})"));
    }
    run_on_both(&mut tj, &lite, &setup);
    let mut queries = Vec::new();
    let probes = [
        "x.a",
        "x.b",
        "x.c",
        "x.d",
        "x.a + 0",
        "x.c || ''",
        "CAST(x.a AS TEXT)",
    ];
    for p in probes {
        for rowid in ["y.id", "y.rowid"] {
            queries.push(format!(
                "SELECT x.id, y.id, y.c FROM e x JOIN e y ON {rowid} = {p} ORDER BY 1, 2"
            ));
            queries.push(format!(
                "SELECT x.id, y.id FROM e x, e y WHERE {p} = {rowid} ORDER BY 1, 2"
            ));
        }
    }
    for p in ["x.x", "x.x + 0", "x.x || ''", "CAST(x.x AS TEXT)", "-x.x"] {
        queries.push(format!(
            "SELECT count(*), sum(y.id) FROM r x JOIN e y ON y.id = {p}"
        ));
    }
    for v in edges {
        queries.push(format!("SELECT id, a FROM e WHERE id = {v}"));
        queries.push(format!("SELECT id, a FROM e WHERE {v} = rowid"));
        queries.push(format!("SELECT id FROM e WHERE id = {v} AND id = 3"));
        queries.push(format!(
            "SELECT count(*) FROM r JOIN e ON e.id = r.x WHERE r.x IS NOT {v}"
        ));
    }
    for sql in &queries {
        let plan = tinyjoin_run(&mut tj, &format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        assert!(
            format!("{plan:?}").contains("INTEGER PRIMARY KEY (rowid=?)"),
            "{sql}: not a rowid lookup: {plan:?}"
        );
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("rowid lookups", queries.len(), &mismatches);
}

/// An index seek answers for the `column = value` or `column IN (...)`
/// conjunct it comes from, which the planner no longer tests again on the
/// rows found (`Access::Index::exact`): checked against SQLite on indexed
/// columns of every affinity and of the NOCASE and RTRIM collations, with
/// probe values of every kind (integers at the edges, reals whole and not,
/// numeric and other text, text differing in case or trailing spaces,
/// blobs, NULL) from columns of each affinity, from expressions without
/// one or with a CAST's, and as literals and IN lists. Most of the
/// queries must be answered by a seek (the count is asserted).
#[test]
fn index_seeks_on_edge_values() {
    let (mut tj, lite) = open_pair();
    let edges = [
        "0",
        "3",
        "-1",
        "9223372036854775807",
        "9007199254740993",
        "9007199254740992.0",
        "3.0",
        "2.5",
        "-0.0",
        "'3'",
        "'3.0'",
        "' 3'",
        "'3 '",
        "'x'",
        "'X'",
        "'x  '",
        "NULL",
        "x'33'",
    ];
    const COLS: [&str; 7] = ["a", "b", "c", "d", "n", "t", "r"];
    let mut setup = vec![
        "CREATE TABLE e(id INTEGER PRIMARY KEY, a, b INTEGER, c TEXT, d REAL, n NUMERIC, \
         t TEXT COLLATE NOCASE, r TEXT COLLATE RTRIM)"
            .to_string(),
    ];
    setup.extend(COLS.map(|c| format!("CREATE INDEX e_{c} ON e({c})")));
    for (i, v) in edges.iter().enumerate() {
        let vals: Vec<&str> = (0..COLS.len())
            .map(|k| {
                if k == 0 {
                    *v
                } else {
                    edges[(i * (2 * k + 1) + k) % edges.len()]
                }
            })
            .collect();
        setup.push(format!("INSERT INTO e VALUES ({i}, {})", vals.join(", ")));
    }
    run_on_both(&mut tj, &lite, &setup);
    let probes = [
        "x.a",
        "x.b",
        "x.c",
        "x.d",
        "x.n",
        "x.t",
        "x.r",
        "x.a + 0",
        "x.c || ''",
        "CAST(x.a AS TEXT)",
        "CAST(x.c AS NUMERIC)",
        "CAST(x.t AS TEXT)",
        "+x.c",
        "+x.t",
        "-x.t",
        "x.c COLLATE NOCASE",
        "CAST(x.c COLLATE RTRIM AS TEXT)",
    ];
    let mut queries = Vec::new();
    for col in COLS {
        for p in probes {
            queries.push(format!(
                "SELECT x.id, y.id FROM e x JOIN e y ON y.{col} = {p} ORDER BY 1, 2"
            ));
            queries.push(format!(
                "SELECT x.id, y.id, y.{col} FROM e x, e y WHERE {p} = y.{col} ORDER BY 1, 2"
            ));
        }
        for (i, v) in edges.iter().enumerate() {
            let w = edges[(i * 7 + 5) % edges.len()];
            queries.push(format!("SELECT id FROM e WHERE {col} = {v} ORDER BY id"));
            queries.push(format!(
                "SELECT id, {col} FROM e WHERE {v} = {col} ORDER BY id"
            ));
            queries.push(format!(
                "SELECT id FROM e WHERE {col} IN ({v}, {w}, NULL) ORDER BY id"
            ));
        }
    }
    let seeks = queries
        .iter()
        .filter(|sql| {
            let plan = tinyjoin_run(&mut tj, &format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            format!("{plan:?}").contains("INDEX e_")
        })
        .count();
    assert!(
        seeks * 2 > queries.len(),
        "only {seeks} of {} queries seek an index",
        queries.len()
    );
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    let what = format!("index seek queries ({seeks} through an index)");
    assert_no_mismatches(&what, queries.len(), &mismatches);
}

/// A CAST and a unary `+` keep their operand's collation, and an explicit
/// COLLATE carries through every operator (SQLite's `sqlite3ExprCollSeq`):
/// in comparisons (either side), ORDER BY, GROUP BY, DISTINCT, min / max
/// and IN, against SQLite.
#[test]
fn collations_carry_through_cast_and_unary_plus() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE k(id INTEGER PRIMARY KEY, b TEXT, t TEXT COLLATE NOCASE, r TEXT COLLATE RTRIM)",
        "INSERT INTO k VALUES (1, 'a', 'A', 'a '), (2, 'A', 'a', 'a'), (3, 'b', 'B', 'b  '), \
         (4, 'B', 'b', 'B'), (5, 'a ', 'a ', 'A'), (6, NULL, NULL, NULL)",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    // `$` stands for the table's qualifier: `x.` in the joins, none alone.
    let exprs = [
        "$t",
        "CAST($t AS TEXT)",
        "+$t",
        "-$t",
        "CAST($r AS TEXT)",
        "+$r",
        "CAST($b COLLATE NOCASE AS TEXT)",
        "-($b COLLATE NOCASE)",
        "+($b COLLATE RTRIM)",
        "$b",
        "$t || ''",
        "($b COLLATE NOCASE) || ''",
        "coalesce($b COLLATE NOCASE, '')",
        "coalesce($t, '')",
        "CASE WHEN $id > 0 THEN $t END",
        "CASE WHEN $id > 0 THEN $b COLLATE NOCASE END",
        "CASE WHEN $b COLLATE RTRIM = 'a' THEN $b ELSE $b END",
        "CASE $b COLLATE NOCASE WHEN 'a' THEN $b ELSE $t END",
        "CASE WHEN $id > 9 THEN 'x' ELSE $b COLLATE NOCASE END",
        "lower($b COLLATE RTRIM)",
        "substr($t, 1)",
    ];
    let mut queries = Vec::new();
    for e in exprs {
        let (x, e) = (e.replace('$', "x."), e.replace('$', ""));
        queries.push(format!(
            "SELECT x.id, y.id FROM k x, k y WHERE {x} = y.b ORDER BY 1, 2"
        ));
        queries.push(format!(
            "SELECT x.id, y.id FROM k x, k y WHERE y.b = {x} ORDER BY 1, 2"
        ));
        queries.push(format!("SELECT id FROM k WHERE {e} = 'a' ORDER BY id"));
        queries.push(format!(
            "SELECT id FROM k WHERE {e} IN ('a', 'B') ORDER BY id"
        ));
        queries.push(format!("SELECT {e}, id FROM k ORDER BY {e}, id"));
        queries.push(format!(
            "SELECT count(*), min(id) FROM k GROUP BY {e} ORDER BY 2"
        ));
        queries.push(format!("SELECT count(DISTINCT {e}) FROM k"));
        queries.push(format!("SELECT min({e}), max({e}) FROM k"));
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("collation queries", queries.len(), &mismatches);
}

/// A simple CASE compares its operand with each WHEN value as `operand =
/// value` would: each WHEN under its own affinities and collation, not
/// under those of one WHEN for all.
#[test]
fn simple_case_compares_each_when_under_its_own_rules() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE k(id INTEGER PRIMARY KEY, b TEXT, t TEXT COLLATE NOCASE, n INTEGER, v)",
        "INSERT INTO k VALUES (1, 'a', 'A', 1, '1'), (2, 'A', 'a', 2, 1), (3, 'b', 'B', 10, 'b'), \
         (4, '1', 'b', NULL, 2.0), (5, '2', '10', 2, NULL), (6, NULL, NULL, 3, 'A')",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let cases = [
        "CASE t WHEN 'zz' THEN 0 WHEN 'a' THEN 1 WHEN 'b' COLLATE BINARY THEN 2 END",
        "CASE t WHEN 'a' COLLATE BINARY THEN 1 WHEN 'b' THEN 2 END",
        "CASE b WHEN 'A' COLLATE NOCASE THEN 1 WHEN 'b' THEN 2 END",
        "CASE b WHEN 'b' THEN 2 WHEN 'A' COLLATE NOCASE THEN 1 END",
        "CASE b WHEN t THEN 1 WHEN 'B' THEN 2 END",
        "CASE b WHEN 'B' THEN 2 WHEN t THEN 1 END",
        "CASE n WHEN '1' THEN 1 WHEN v THEN 2 WHEN '10' THEN 3 END",
        "CASE n WHEN v THEN 2 WHEN '1' THEN 1 END",
        "CASE v WHEN 1 THEN 1 WHEN n THEN 2 WHEN 'a' COLLATE NOCASE THEN 3 END",
        "CASE v WHEN 'a' COLLATE NOCASE THEN 3 WHEN 1 THEN 1 WHEN n THEN 2 END",
        "CASE b WHEN n THEN 1 WHEN 2 THEN 2 WHEN '2' THEN 3 END",
        "CASE b WHEN 2 THEN 2 WHEN n THEN 1 END",
        "CASE +n WHEN '2' THEN 1 WHEN n THEN 2 END",
        "CASE n WHEN +'2' THEN 1 WHEN b THEN 2 END",
        "CASE t COLLATE BINARY WHEN 'a' THEN 1 WHEN 'B' COLLATE NOCASE THEN 2 END",
    ];
    let mut queries = Vec::new();
    for c in cases {
        queries.push(format!("SELECT id, {c} FROM k ORDER BY id"));
        queries.push(format!(
            "SELECT id FROM k WHERE ({c}) IS NOT NULL ORDER BY id"
        ));
        queries.push(format!(
            "SELECT x.id, y.id FROM k x, k y WHERE {} = y.id ORDER BY 1, 2",
            c.replace("CASE ", "CASE x.")
                .replace("WHEN t", "WHEN x.t")
                .replace("WHEN n", "WHEN x.n")
                .replace("WHEN v", "WHEN x.v")
                .replace("WHEN b", "WHEN x.b")
        ));
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("simple CASE queries", queries.len(), &mismatches);
}

/// The table of the collation tests over views, subqueries and compounds:
/// BINARY, NOCASE and RTRIM text that differs only in case or trailing
/// spaces, and a view whose columns come from each kind of expression.
fn open_collation_pair() -> (Connection, rusqlite::Connection) {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE k(id INTEGER PRIMARY KEY, b TEXT, t TEXT COLLATE NOCASE, r TEXT COLLATE RTRIM, n INTEGER)",
        "INSERT INTO k VALUES (1, 'a', 'A', 'a ', 1), (2, 'A', 'a', 'a', '2'), (3, 'b', 'B', 'b  ', 3), \
         (4, 'B', 'b', 'B', 4), (5, 'a ', 'a ', 'A', 5), (6, NULL, NULL, NULL, NULL)",
        "CREATE VIEW vt AS SELECT id, t, b COLLATE NOCASE AS bn, +t AS pt, t || '' AS ct, \
         CAST(n AS TEXT) AS nt, n FROM k",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    (tj, lite)
}

/// A column of a view, a subquery in FROM or a CTE has the collation of
/// its expression (its first SELECT's), as an implicit one like a table
/// column's; `x IN (SELECT ...)` compares under the last SELECT's result
/// expression's; a scalar subquery has none.
#[test]
fn collations_carry_into_views_subqueries_and_ctes() {
    let (mut tj, lite) = open_collation_pair();
    let sources = [
        "vt",
        "(SELECT * FROM vt)",
        "(SELECT id, t, bn, pt, ct, nt, n FROM vt UNION ALL SELECT 0, 'zz', 'zz', 'zz', 'zz', 'zz', 0)",
        "(SELECT id, t, bn, pt, ct, nt, n FROM vt ORDER BY id LIMIT 10)",
    ];
    let mut queries = Vec::new();
    for src in sources {
        for c in ["t", "bn", "pt", "ct"] {
            queries.push(format!("SELECT id FROM {src} WHERE {c} = 'a' ORDER BY id"));
            queries.push(format!("SELECT {c}, id FROM {src} ORDER BY {c}, id"));
            queries.push(format!(
                "SELECT count(*), min(id) FROM {src} GROUP BY {c} ORDER BY 2"
            ));
            queries.push(format!("SELECT count(DISTINCT {c}) FROM {src}"));
            queries.push(format!("SELECT min({c}), max({c}) FROM {src}"));
            queries.push(format!(
                "SELECT x.id, k.id FROM {src} x, k WHERE x.{c} = k.b ORDER BY 1, 2"
            ));
            queries.push(format!(
                "SELECT x.id, k.id FROM {src} x, k WHERE k.b = x.{c} ORDER BY 1, 2"
            ));
            queries.push(format!(
                "SELECT id FROM k WHERE b IN (SELECT {c} FROM {src}) ORDER BY id"
            ));
            queries.push(format!(
                "SELECT id FROM k WHERE (SELECT {c} FROM {src} WHERE id = 2) = b ORDER BY id"
            ));
            queries.push(format!("SELECT DISTINCT {c} FROM {src} ORDER BY 1"));
        }
        for c in ["nt", "n"] {
            queries.push(format!("SELECT id FROM {src} WHERE {c} = 2 ORDER BY id"));
            queries.push(format!("SELECT id FROM {src} WHERE {c} = '2' ORDER BY id"));
            queries.push(format!(
                "SELECT id FROM {src} WHERE {c} IN (2, '3') ORDER BY id"
            ));
            queries.push(format!(
                "SELECT id FROM k WHERE n IN (SELECT {c} FROM {src}) ORDER BY id"
            ));
            queries.push(format!(
                "SELECT x.id, k.id FROM {src} x, k WHERE x.{c} = k.b ORDER BY 1, 2"
            ));
        }
    }
    // Outside the view, a column from an explicit COLLATE is implicit: the
    // left operand's column collation wins.
    for c in ["t", "bn", "pt", "ct"] {
        queries.extend([
            format!("SELECT x.id, k.id FROM vt x, k WHERE k.r = x.{c} ORDER BY 1, 2"),
            format!("SELECT x.id, k.id FROM vt x, k WHERE x.{c} = k.r ORDER BY 1, 2"),
            format!("SELECT id FROM k WHERE r IN (SELECT {c} FROM vt) ORDER BY id"),
            format!("SELECT id FROM k WHERE b || '' IN (SELECT {c} FROM vt) ORDER BY id"),
            format!("SELECT id FROM k WHERE b || '' IN (SELECT {c} FROM vt WHERE id < 3 UNION ALL SELECT b FROM k WHERE id = 3) ORDER BY id"),
            format!("SELECT id FROM k WHERE b || '' IN (SELECT b FROM k WHERE id = 3 UNION ALL SELECT {c} FROM vt WHERE id < 3) ORDER BY id"),
            format!("SELECT id FROM k WHERE b || '' IN (SELECT {c} FROM (SELECT * FROM vt)) ORDER BY id"),
            format!("SELECT id FROM k WHERE b || '' IN (SELECT {c} FROM vt WHERE id < 3 UNION SELECT 'B') ORDER BY id"),
            format!("WITH w AS (SELECT {c} AS c, id FROM vt) SELECT id FROM w WHERE c = 'a' ORDER BY id"),
            format!("WITH w(c, i) AS (SELECT {c}, id FROM vt) SELECT count(DISTINCT c) FROM w"),
            format!("WITH RECURSIVE r(c, i) AS (SELECT {c}, 1 FROM vt WHERE id = 1 UNION ALL SELECT 'a', i + 1 FROM r WHERE i < 3) SELECT * FROM r WHERE c = 'a'"),
            format!("WITH RECURSIVE r(c, i) AS (SELECT {c}, 1 FROM vt WHERE id < 5 UNION SELECT lower(c), i FROM r) SELECT * FROM r ORDER BY i, c"),
            format!("WITH RECURSIVE r(c, i) AS (SELECT {c}, id FROM vt WHERE id < 5 UNION ALL SELECT c, i + 10 FROM r WHERE i < 10 ORDER BY 1 LIMIT 20) SELECT * FROM r"),
            format!("SELECT id FROM k WHERE b = (SELECT {c} FROM vt WHERE id = 1) ORDER BY id"),
            format!("SELECT id FROM k WHERE b || '' = (SELECT {c} FROM vt WHERE id = 1) ORDER BY id"),
            format!("SELECT x.id FROM (SELECT {c} AS c, id FROM vt UNION ALL SELECT b, id FROM k) x WHERE c = 'a' ORDER BY 1"),
            format!("SELECT x.id FROM (SELECT b AS c, id FROM k UNION ALL SELECT {c}, id FROM vt) x WHERE c = 'a' ORDER BY 1"),
            format!("SELECT c FROM (SELECT 'a' AS c UNION ALL SELECT {c} FROM vt) GROUP BY c ORDER BY 1"),
            format!("SELECT c FROM (SELECT {c} AS c FROM vt UNION SELECT b FROM k) ORDER BY 1"),
            format!("SELECT {c}, count(*) FROM vt GROUP BY 1 ORDER BY 1"),
        ]);
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches(
        "view and subquery collation queries",
        queries.len(),
        &mismatches,
    );
}

/// UNION, INTERSECT and EXCEPT find equal rows, and a compound's ORDER BY
/// sorts, under each column's collation: the first SELECT's from the left
/// that has one. Of equal rows, the one kept is SQLite's: with ORDER BY
/// its merge's, without its temporary index's.
#[test]
fn compound_operators_find_equal_rows_under_their_collations() {
    let (mut tj, lite) = open_collation_pair();
    let mut queries = Vec::new();
    let pairs = [
        ("t", "b"),
        ("b", "t"),
        ("'a'", "t"),
        ("t", "'a'"),
        ("b COLLATE NOCASE", "t"),
        ("b", "t COLLATE RTRIM"),
        ("+t", "b"),
        ("t || ''", "t"),
        ("NULL", "r"),
        ("'x'", "'y'"),
    ];
    for op in ["UNION", "UNION ALL", "INTERSECT", "EXCEPT"] {
        for (l, r) in pairs {
            queries.extend([
                format!("SELECT {l} FROM k {op} SELECT {r} FROM k"),
                format!("SELECT {l} FROM k {op} SELECT {r} FROM k ORDER BY 1"),
                format!("SELECT {l} FROM k {op} SELECT {r} FROM k ORDER BY 1 DESC"),
                format!("SELECT {l}, id FROM k {op} SELECT {r}, id FROM k ORDER BY 1, 2"),
                format!("SELECT count(*) FROM (SELECT {l} FROM k {op} SELECT {r} FROM k)"),
                format!("SELECT {l} FROM k WHERE id < 3 {op} SELECT {r} FROM k WHERE id > 1 {op} SELECT 'B' ORDER BY 1"),
                format!("SELECT {l} FROM k WHERE id < 3 {op} SELECT {r} FROM k WHERE id > 1 {op} SELECT 'B'"),
            ]);
        }
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("compound collation queries", queries.len(), &mismatches);
}

/// Row values compare item by item, each pair under its own affinities
/// and collation: `(a, b) = (x, y)`, `<` and the others, IS, and
/// `(a, b) IN (SELECT x, y ...)`. A NULL makes `=` NULL only when no pair
/// is unequal, and an ordering NULL only when it reaches that pair.
#[test]
fn row_values_compare_item_by_item() {
    let (mut tj, lite) = open_collation_pair();
    let mut queries: Vec<String> = [
        "SELECT (NULL, 1) IN (SELECT 2, 2)",
        "SELECT (NULL, 1) IN (SELECT 2, 1)",
        "SELECT (1, 1) IN (SELECT NULL, 2)",
        "SELECT (1, 1) IN (SELECT NULL, 1)",
        "SELECT (1, 1) IN (SELECT NULL, 1 UNION ALL SELECT 1, 1)",
        "SELECT (NULL, 1) IN (SELECT 2, 2 WHERE 0)",
        "SELECT (NULL, NULL) IN (SELECT 2, 2)",
        "SELECT (1, 2) IN (VALUES (1, 2), (3, 4))",
        "SELECT (1, '2') IN (SELECT 1, 2)",
        "SELECT (1, 2) NOT IN (SELECT NULL, 3)",
        "SELECT (1, 2) NOT IN (SELECT NULL, 2)",
        "SELECT (1, 2) IN (SELECT 1)",
        "SELECT 1 IN (SELECT 1, 2)",
        "SELECT (SELECT 1, 2) IN (SELECT 1, 2)",
        "SELECT (SELECT 1, 3) IN (SELECT 1, 2)",
        "SELECT (SELECT t, id FROM k WHERE id = 1) IN (SELECT b, id FROM k)",
        "SELECT (SELECT b, id FROM k WHERE id = 2) NOT IN (SELECT t, id FROM k)",
    ]
    .map(String::from)
    .to_vec();
    for (l, r) in [
        ("b, id", "b, id"),
        ("b, id", "t, id"),
        ("t, id", "b, id"),
        ("b, id", "bn, id"),
        ("b || '', id", "t, id"),
        ("n, b", "nt, t"),
        ("n, b", "'2', 'A'"),
        ("id, n", "n, id"),
        ("r, t", "b, b"),
    ] {
        let from = if r.contains('\'') { "" } else { " FROM vt" };
        queries.push(format!(
            "SELECT id FROM k WHERE ({l}) IN (SELECT {r}{from}) ORDER BY id"
        ));
        queries.push(format!(
            "SELECT id FROM k WHERE ({l}) NOT IN (SELECT {r}{from}) ORDER BY id"
        ));
        queries.push(format!(
            "SELECT id, ({l}) IN (SELECT {r}{from}) FROM k ORDER BY id"
        ));
    }
    queries.push(
        "SELECT (NULL, 1) = (NULL, 2), (NULL, 1) = (NULL, 1), (NULL, 1) IS (NULL, 2), \
         (NULL, 1) IS (NULL, 1), (NULL, 1) IS NOT (NULL, 2), (1, NULL) < (2, 1), \
         (NULL, 1) < (2, 1), (1, NULL) < (1, 2), (1, 2) <> (NULL, 3), (1, 2) <> (NULL, 2), \
         (1, NULL) IS (1, NULL), (2, NULL) > (1, NULL), (1, 2) <= (1, 2), (1, 2) >= (1, 3), \
         (1, '2') = (1, 2), (1, 2) = (SELECT 1, 2), (SELECT 1, 2) < (1, 3)"
            .into(),
    );
    for (l, r) in [
        ("n, b", "'2', 'A'"),
        ("t, id", "'a', 1"),
        ("'a', 1", "t, id"),
        ("t, id", "'a', 2"),
        ("b, id", "'a', 2"),
        ("b COLLATE NOCASE, id", "'a', 2"),
        ("r, id", "'a', 2"),
        ("n, id", "'2', 2"),
        ("b, n", "(SELECT t, nt FROM vt WHERE id = 2)"),
        ("b || '', id", "(SELECT t, id FROM vt WHERE id = 2)"),
    ] {
        for op in ["=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT"] {
            let r = if r.starts_with('(') {
                r.to_string()
            } else {
                format!("({r})")
            };
            queries.push(format!("SELECT id FROM k WHERE ({l}) {op} {r} ORDER BY id"));
        }
    }
    queries.push(
        "SELECT id FROM k WHERE (t, id) > (SELECT t, id FROM k WHERE id = 1) ORDER BY t, id".into(),
    );
    queries.push("SELECT (1, 2) = (1, 2, 3)".into());
    queries.push("SELECT (1, 2) = 1".into());
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("row value IN queries", queries.len(), &mismatches);
}

/// Collations and affinities where SQLite has rules of its own: an IN
/// list compares under its left operand's alone; `min()`, `max()` and
/// `nullif()` under their first argument's that has one; PARTITION BY
/// groups and window `min()` / `max()` compare under their expression's.
/// The rest (BETWEEN, LIKE, GLOB, joins, EXISTS, indexes on collated
/// columns) checks the paths these share.
#[test]
fn collations_in_in_lists_functions_and_windows() {
    let (mut tj, lite) = open_collation_pair();
    let setup = [
        "CREATE INDEX kt ON k(t)",
        "CREATE INDEX kb ON k(b COLLATE NOCASE)",
        "CREATE TABLE w(x TEXT COLLATE NOCASE PRIMARY KEY, y)",
        "INSERT INTO w VALUES ('a', 1), ('B', 2), ('c ', 3)",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let mut queries: Vec<String> = Vec::new();
    for e in [
        "t",
        "b",
        "b COLLATE NOCASE",
        "r",
        "t COLLATE BINARY",
        "b || ''",
        "n",
    ] {
        queries.extend([
            format!("SELECT id FROM k WHERE {e} BETWEEN 'a' AND 'b' ORDER BY id"),
            format!("SELECT id FROM k WHERE 'a' BETWEEN {e} AND 'b' ORDER BY id"),
            format!("SELECT id FROM k WHERE {e} IN (t, 'x') ORDER BY id"),
            format!("SELECT id FROM k WHERE {e} IN ('A', 'x') ORDER BY id"),
            format!("SELECT id FROM k WHERE {e} NOT IN ('A', 'x') ORDER BY id"),
            format!("SELECT id FROM k WHERE 'A' IN ({e}, 'x') ORDER BY id"),
            format!("SELECT id, row_number() OVER (PARTITION BY {e} ORDER BY id) FROM k ORDER BY id"),
            format!("SELECT id, rank() OVER (ORDER BY {e}) FROM k ORDER BY id"),
            format!("SELECT id, count(*) OVER (ORDER BY {e} RANGE BETWEEN CURRENT ROW AND CURRENT ROW) FROM k ORDER BY id"),
            format!("SELECT group_concat(DISTINCT {e}) FROM (SELECT * FROM k ORDER BY id)"),
            format!("SELECT count(DISTINCT {e}), min({e}), max({e}) FROM k"),
            format!("SELECT {e}, count(*) FROM k GROUP BY 1 ORDER BY 1"),
            format!("SELECT id FROM k ORDER BY {e}, id"),
            format!("SELECT id FROM k WHERE {e} > 'a' ORDER BY id"),
            format!("SELECT id FROM k WHERE {e} = 'A' ORDER BY id"),
            format!("SELECT id FROM k WHERE {e} LIKE 'a%' ORDER BY id"),
            format!("SELECT id FROM k WHERE {e} GLOB 'a*' ORDER BY id"),
            format!("SELECT k.id, w.y FROM k JOIN w ON w.x = k.{} ORDER BY 1, 2", if e.contains(' ') || e == "n" {"b"} else {e}),
            format!("SELECT k.id, w.y FROM k JOIN w ON k.{} = w.x ORDER BY 1, 2", if e.contains(' ') || e == "n" {"b"} else {e}),
            format!("SELECT id FROM k WHERE {e} = (SELECT x FROM w WHERE y = 2) ORDER BY id"),
            format!("SELECT id FROM k WHERE EXISTS (SELECT 1 FROM w WHERE x = {e}) ORDER BY id"),
            format!("SELECT id, nullif({e}, 'a'), iif({e} = 'a', 1, 0), {e} IS 'A', coalesce({e}, 'z') = 'A' FROM k ORDER BY id"),
            format!("SELECT id, instr({e}, 'A'), replace({e}, 'a', 'x'), max({e}, 'a'), min({e}, 'B') FROM k ORDER BY id"),
            format!("SELECT DISTINCT {e} FROM k ORDER BY 1"),
            format!("SELECT id FROM k WHERE {e} IN (SELECT x FROM w) ORDER BY id"),
            format!("SELECT id FROM k WHERE {e} IN (SELECT x FROM w UNION SELECT 'A') ORDER BY id"),
        ]);
    }
    for e in [
        "t",
        "b",
        "b COLLATE NOCASE",
        "r",
        "b || ''",
        "n",
        "'2'",
        "CAST(n AS TEXT)",
    ] {
        queries.extend([
            format!("SELECT id FROM k WHERE {e} IN (n, 'x') ORDER BY id"),
            format!("SELECT id FROM k WHERE {e} IN ('2', 2, 'A') ORDER BY id"),
            format!("SELECT id FROM k WHERE {e} IN (b COLLATE NOCASE, 'x') ORDER BY id"),
            format!("SELECT id, max({e}) OVER (), min({e}) OVER (PARTITION BY id > 2) FROM k ORDER BY id"),
            format!("SELECT id, max({e}, t), max(t, {e}), nullif({e}, t), min('a', {e}, b), max({e}, 'a' COLLATE RTRIM) FROM k ORDER BY id"),
            format!("SELECT id, first_value(id) OVER (PARTITION BY {e} ORDER BY id DESC) FROM k ORDER BY id"),
        ]);
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches(
        "IN list, function and window collation queries",
        queries.len(),
        &mismatches,
    );
}

/// LIKE and GLOB filters on a table's stored column, which a scan decides
/// on each record's bytes (a pattern's literal prefix first): literal
/// prefixes in either case, wildcards, escapes, non-ASCII letters (whose
/// case LIKE does not fold), NULs inside the text, and values that are
/// not text (numbers, blobs, NULL).
#[test]
fn like_and_glob_filters_on_stored_values() {
    let (mut tj, lite) = open_pair();
    let values = [
        "'item12'",
        "'ITEM123'",
        "'Item1'",
        "'item'",
        "''",
        "'ite'",
        "'ab%c'",
        "'ab_c'",
        "'abxc'",
        "'aé'",
        "'AÉ'",
        "'é'",
        "'a!b'",
        "'ab' || char(0) || 'c'",
        "'item12' || char(0) || 'x'",
        "char(0)",
        "12",
        "120",
        "1.5",
        "NULL",
        "X'6974656d3132'",
        "'[ab]'",
        "'a*'",
        "' item12'",
    ];
    let mut setup =
        vec!["CREATE TABLE s(id INTEGER PRIMARY KEY, v, t TEXT, n INTEGER)".to_string()];
    for (i, v) in values.iter().enumerate() {
        setup.push(format!("INSERT INTO s VALUES ({i}, {v}, {v}, {v})"));
    }
    run_on_both(&mut tj, &lite, &setup);
    let likes = [
        "'item12%'",
        "'ITEM1%%'",
        "'item%'",
        "'%'",
        "''",
        "'item'",
        "'ite_'",
        "'a%c'",
        "'ab!%%' ESCAPE '!'",
        "'ab!_c' ESCAPE '!'",
        "'a%%' ESCAPE '%'",
        "'aé%'",
        "'AÉ'",
        "'é%'",
        "'É%'",
        "'12%'",
        "'1%'",
        "'_tem%'",
        "'item12' || char(0) || 'y'",
        "'ab' || char(0) || '%'",
        "'ab%' ESCAPE 'ab'",
    ];
    let globs = [
        "'item1*'", "'ITEM*'", "'[ab]*'", "'a[*]'", "'1*'", "'ab?c'", "'*'", "''", "'I*'",
        "'item12'",
    ];
    let mut queries = Vec::new();
    for col in ["v", "t", "n"] {
        for p in likes {
            for not in ["", "NOT "] {
                queries.push(format!(
                    "SELECT id FROM s WHERE {col} {not}LIKE {p} ORDER BY id"
                ));
            }
        }
        for p in globs {
            for not in ["", "NOT "] {
                queries.push(format!(
                    "SELECT id FROM s WHERE {col} {not}GLOB {p} ORDER BY id"
                ));
            }
        }
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("LIKE and GLOB filters", queries.len(), &mismatches);
}

/// LIKE and GLOB filters on stored text, at random: strings and patterns
/// over a small alphabet (both cases of two letters, a non-ASCII letter,
/// the wildcards of both operators, an escape character, a bracket, NUL),
/// so that literal prefixes often match in part, in another case or up to
/// a NUL; every pattern as LIKE, LIKE with an escape, GLOB and their NOTs.
#[test]
fn like_and_glob_filters_at_random() {
    let (mut tj, lite) = open_pair();
    let mut rng = SmallRng::seed_from_u64(59);
    const PIECES: [&str; 12] = [
        "a",
        "A",
        "b",
        "B",
        "é",
        "%",
        "_",
        "*",
        "?",
        "!",
        "[a]",
        "' || char(0) || '",
    ];
    let mut random_text = |max: usize| -> String {
        let n = rng.gen_range(0..=max);
        let body: String = (0..n)
            .map(|_| PIECES[rng.gen_range(0..PIECES.len())])
            .collect();
        format!("'{body}'")
    };
    let mut setup = vec!["CREATE TABLE r(id INTEGER PRIMARY KEY, v, t TEXT)".to_string()];
    for i in 0..80 {
        let v = random_text(6);
        setup.push(format!("INSERT INTO r VALUES ({i}, {v}, {v})"));
    }
    let patterns: Vec<String> = (0..120).map(|_| random_text(4)).collect();
    run_on_both(&mut tj, &lite, &setup);
    let mut queries = Vec::new();
    for (k, p) in patterns.iter().enumerate() {
        let col = ["v", "t"][k % 2];
        for not in ["", "NOT "] {
            queries.push(format!(
                "SELECT id FROM r WHERE {col} {not}LIKE {p} ORDER BY id"
            ));
            queries.push(format!(
                "SELECT id FROM r WHERE {col} {not}LIKE {p} ESCAPE '!' ORDER BY id"
            ));
            queries.push(format!(
                "SELECT id FROM r WHERE {col} {not}GLOB {p} ORDER BY id"
            ));
        }
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("random LIKE and GLOB filters", queries.len(), &mismatches);
}

/// SQLite's LIKE optimization: `c LIKE 'pre%'` on an index of `c` in
/// NOCASE order, and `c GLOB 'pre*'` on one in BINARY order, seek the
/// range of texts that begin with `pre`, then the same bounds as blobs
/// (LIKE and GLOB read a blob as text); a column that may hold numbers
/// qualifies only for prefixes no number's text begins with. The rows
/// must be SQLite's whatever the path, with mixed case, blobs, numbers,
/// NULL, non-ASCII text and prefixes whose last character has unusual
/// neighbours ('@', '`', 'z', U+10FFFF); ascending, descending and
/// composite indexes. The plans must use the indexes where SQLite's rule
/// allows.
#[test]
fn like_and_glob_prefixes_seek_indexes() {
    let (mut tj, lite) = open_pair();
    let values = [
        "'abc'",
        "'ABX'",
        "'aBd'",
        "'BCD'",
        "'ab'",
        "'a'",
        "''",
        "x'616263'",
        "x'414258'",
        "x'424344'",
        "x'61'",
        "12",
        "-3",
        "1.5",
        "NULL",
        "'a@b'",
        "'A`c'",
        "'a{'",
        "'az'",
        "'aZ'",
        "'é'",
        "'éa'",
        "'Éa'",
        "'a' || char(1114111)",
        "'a' || char(1114111) || 'b'",
        "'b'",
        "'ab' || char(0) || 'c'",
        "'Inf'",
        "'item12'",
        "'ITEM123'",
    ];
    let mut setup = vec![
        "CREATE TABLE t(id INTEGER PRIMARY KEY, g INTEGER, nt TEXT COLLATE NOCASE, bt TEXT, \
         nu COLLATE NOCASE, bu, nd TEXT COLLATE NOCASE)"
            .to_string(),
        "CREATE INDEX t_nt ON t(nt)".to_string(),
        "CREATE INDEX t_bt ON t(bt)".to_string(),
        "CREATE INDEX t_nu ON t(nu)".to_string(),
        "CREATE INDEX t_bu ON t(bu)".to_string(),
        "CREATE INDEX t_nd ON t(nd DESC)".to_string(),
        "CREATE INDEX t_g_nt ON t(g, nt)".to_string(),
    ];
    for (i, v) in values.iter().enumerate() {
        setup.push(format!(
            "INSERT INTO t VALUES ({i}, {}, {v}, {v}, {v}, {v}, {v})",
            i % 3
        ));
    }
    run_on_both(&mut tj, &lite, &setup);
    let patterns = [
        "'ab%'",
        "'aB%'",
        "'a%'",
        "'A_%'",
        "'a@%'",
        "'a`%'",
        "'az%'",
        "'a{%'",
        "'é%'",
        "'É%'",
        "'a' || char(1114111) || '%'",
        "'ab'",
        "'b%'",
        "'1%'",
        "'-%'",
        "'I%'",
        "'i%'",
        "'item1%'",
        "'ab!%%' ESCAPE '!'",
        "'a!_%' ESCAPE '!'",
        "'%b'",
    ];
    let mut queries = Vec::new();
    for col in ["nt", "bt", "nu", "bu", "nd"] {
        for p in patterns {
            queries.push(format!("SELECT id FROM t WHERE {col} LIKE {p} ORDER BY id"));
            queries.push(format!("SELECT id FROM t WHERE {col} GLOB {p} ORDER BY id"));
            queries.push(format!(
                "SELECT id FROM t WHERE g = 1 AND nt LIKE {p} ORDER BY id"
            ));
            queries.push(format!(
                "SELECT count(*) FROM t WHERE {col} LIKE {p} AND {col} > 'a'"
            ));
        }
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("LIKE and GLOB prefix seeks", queries.len(), &mismatches);
    let plan = |tj: &mut Connection, sql: &str| match tinyjoin_run(
        tj,
        &format!("EXPLAIN QUERY PLAN {sql}"),
    ) {
        Ok(rows) => rows
            .iter()
            .map(|r| format!("{:?}", r.last()))
            .collect::<Vec<_>>()
            .join("; "),
        Err(e) => e,
    };
    for (sql, index) in [
        ("SELECT id FROM t WHERE nt LIKE 'ab%'", Some("t_nt")),
        ("SELECT id FROM t WHERE bt GLOB 'ab*'", Some("t_bt")),
        ("SELECT id FROM t WHERE nu LIKE 'ab%'", Some("t_nu")),
        ("SELECT id FROM t WHERE nd LIKE 'ab%'", Some("t_nd")),
        (
            "SELECT id FROM t WHERE g = 2 AND nt LIKE 'ab%'",
            Some("t_g_nt"),
        ),
        // BINARY order does not hold LIKE's matches together, nor NOCASE
        // GLOB's; numbers' texts begin with digits; no literal prefix.
        ("SELECT id FROM t WHERE bt LIKE 'ab%'", None),
        ("SELECT id FROM t WHERE nt GLOB 'ab*'", None),
        ("SELECT id FROM t WHERE nu LIKE '1%'", None),
        ("SELECT id FROM t WHERE nt LIKE '%b'", None),
    ] {
        let p = plan(&mut tj, sql);
        match index {
            Some(ix) => assert!(p.contains(&format!("INDEX {ix} ")), "{sql}: {p}"),
            None => assert!(!p.contains("SEARCH"), "{sql}: {p}"),
        }
    }
}

/// A compound's column takes the affinity of its first SELECT whose
/// expression has one, and none when a later SELECT may give a value of the
/// other kind (text for a numeric column, a number for a TEXT one), as
/// SQLite's columns of subqueries, views and CTEs do; `x IN (SELECT ...)`
/// takes its last SELECT's; CREATE TABLE AS types its columns by them and
/// writes its statement as SQLite does.
#[test]
fn compound_columns_take_sqlites_affinities() {
    let (mut tj, lite) = open_collation_pair();
    let mut queries: Vec<String> = Vec::new();
    // Where the first SELECT with an affinity is not the first, or is a
    // CAST, SQLite 3.46 pushes a WHERE term on the column into each SELECT,
    // where it compares under that SELECT's affinity (see the README): the
    // sources after this many are not filtered by constants.
    let consistent = 21;
    let srcs = [
        "(SELECT n AS c FROM k UNION ALL SELECT '2')",
        "(SELECT '2' AS c UNION ALL SELECT n FROM k)",
        "(SELECT n AS c FROM k UNION SELECT b FROM k)",
        "(SELECT b AS c FROM k UNION ALL SELECT n FROM k)",
        "(SELECT CAST(n AS TEXT) AS c FROM k UNION ALL SELECT n FROM k)",
        "(SELECT n AS c FROM k INTERSECT SELECT '2')",
        "(SELECT n AS c FROM k EXCEPT SELECT '2')",
        "(VALUES (1), ('2'), (2.0))",
        "(SELECT c FROM (SELECT n AS c FROM k UNION ALL SELECT '2') GROUP BY c)",
        "(WITH RECURSIVE r(c) AS (SELECT n FROM k WHERE id = 1 UNION ALL SELECT c + 1 FROM r WHERE c < 3) SELECT c FROM r)",
        "(WITH RECURSIVE r(c) AS (SELECT '1' UNION ALL SELECT c + 1 FROM r WHERE c < 3) SELECT c FROM r)",
        "(SELECT NULL AS c UNION ALL SELECT n FROM k)",
        "(SELECT CAST(b AS TEXT) AS c FROM k UNION ALL SELECT 2)",
        "(SELECT b AS c FROM k UNION ALL SELECT CASE WHEN 1 THEN 'x' ELSE NULL END)",
        "(SELECT b AS c FROM k UNION ALL SELECT CASE WHEN 1 THEN 'x' ELSE 2 END)",
        "(SELECT n AS c FROM k UNION ALL SELECT +b FROM k)",
        "(SELECT n AS c FROM k UNION ALL SELECT b COLLATE NOCASE FROM k)",
        "(SELECT n AS c FROM k UNION ALL SELECT -id FROM k)",
        "(SELECT n AS c FROM k UNION ALL SELECT x'32')",
        "(SELECT n AS c FROM k UNION ALL SELECT (SELECT b FROM k WHERE id = 2))",
        "(SELECT n AS c FROM k UNION ALL SELECT CURRENT_DATE)",
        "(SELECT n + 0 AS c FROM k UNION ALL SELECT n FROM k)",
        "(SELECT CAST(n AS INTEGER) AS c FROM k UNION ALL SELECT 2.5)",
    ];
    assert_eq!(srcs.len(), consistent + 2);
    for (i, src) in srcs.iter().enumerate() {
        let src = if src.starts_with("(VALUES") {
            format!("(SELECT column1 AS c FROM {src})")
        } else {
            src.to_string()
        };
        if i < consistent {
            queries.extend([
                format!("SELECT count(*) FROM {src} x WHERE c = '2'"),
                format!("SELECT count(*) FROM {src} x WHERE c = 2"),
                format!("SELECT count(*) FROM {src} x WHERE c IN ('2', 3)"),
                format!("SELECT count(*) FROM {src} x WHERE c > '1'"),
            ]);
        }
        queries.extend([
            format!("SELECT c, typeof(c) FROM {src} x ORDER BY 1, 2"),
            format!("SELECT count(*) FROM k WHERE n IN (SELECT c FROM {src} x)"),
            format!("SELECT count(*) FROM k WHERE b IN (SELECT c FROM {src} x)"),
            format!("SELECT count(*) FROM k, {src} x WHERE x.c = k.b"),
            format!("SELECT count(*) FROM k, {src} x WHERE x.c = k.n"),
        ]);
    }
    for (l, r) in [
        ("n", "'2'"),
        ("'2'", "n"),
        ("b", "n"),
        ("n", "b"),
        ("CAST(n AS TEXT)", "n"),
        ("n", "CAST(n AS TEXT)"),
    ] {
        for x in ["n", "b", "'2'", "2", "id"] {
            queries.push(format!("SELECT count(*) FROM k WHERE {x} IN (SELECT {l} FROM k UNION ALL SELECT {r} FROM k)"));
            queries.push(format!(
                "SELECT count(*) FROM k WHERE {x} IN (SELECT {l} FROM k UNION SELECT {r} FROM k)"
            ));
        }
    }
    queries.extend([
        "CREATE VIEW va AS SELECT n AS c FROM k UNION ALL SELECT '2'".to_string(),
        "SELECT count(*) FROM va WHERE c = '2'".into(),
        "SELECT count(*) FROM va WHERE c = 2".into(),
        "SELECT c, typeof(c) FROM va ORDER BY 1, 2".into(),
        "CREATE TABLE t2 AS SELECT n AS c FROM k UNION ALL SELECT '2'".into(),
        "SELECT c, typeof(c) FROM t2 ORDER BY 1, 2".into(),
        "SELECT sql FROM sqlite_schema WHERE name = 't2'".into(),
        "CREATE TABLE \"select\" AS SELECT n AS \"1x\", b AS \"a b\", t AS \"order\", CAST(n AS REAL) AS r_1 FROM k".into(),
        "CREATE TABLE long_enough_name_for_lines AS SELECT n AS first_column, b AS second_column FROM k".into(),
        "SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY name".into(),
    ]);
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("compound affinity queries", queries.len(), &mismatches);
}

/// `x IN (SELECT c ...)` over values of every kind, each column affinity
/// and collation on either side, with and without NULLs on the right: the
/// uncorrelated subquery's values are sorted once and searched, which must
/// find exactly the rows comparing one by one finds (TEXT affinity, which
/// renders a number as text only against text, makes `1`, `1.0` and `'1'`
/// a non-transitive trio).
#[test]
fn in_subqueries_over_values_of_every_kind() {
    let (mut tj, lite) = open_pair();
    let cols = ["x", "n", "i", "r", "t", "b", "tn", "tr"];
    let mut setup = vec![
        "CREATE TABLE m(id INTEGER PRIMARY KEY, x, n NUMERIC, i INTEGER, r REAL, t TEXT, b BLOB, \
         tn TEXT COLLATE NOCASE, tr TEXT COLLATE RTRIM)"
            .to_string(),
    ];
    let values = [
        "1",
        "1.0",
        "'1'",
        "'1.0'",
        "' 1'",
        "'1 '",
        "2.5",
        "'2.5'",
        "-0.0",
        "'a'",
        "'A'",
        "'a '",
        "x'61'",
        "x'31'",
        "NULL",
        "9223372036854775807",
        "9223372036854775808.0",
        "'abc'",
        "'ABC'",
        "''",
    ];
    for (k, v) in values.iter().enumerate() {
        setup.push(format!(
            "INSERT INTO m VALUES ({}, {v}, {v}, {v}, {v}, {v}, {v}, {v}, {v})",
            k + 1
        ));
    }
    run_on_both(&mut tj, &lite, &setup);
    let mut queries = vec![
        "SELECT id, typeof(x), typeof(n), typeof(r), typeof(t) FROM m ORDER BY id".to_string(),
    ];
    let lefts = cols.iter().map(|c| c.to_string()).chain(
        [
            "1",
            "'1'",
            "1.0",
            "'a'",
            "x'61'",
            "NULL",
            "t COLLATE NOCASE",
            "x COLLATE RTRIM",
        ]
        .map(String::from),
    );
    for l in lefts {
        for r in cols
            .iter()
            .copied()
            .chain(["t COLLATE NOCASE", "+n", "x || ''"])
        {
            for w in ["", " WHERE id % 3 <> 0", " WHERE 0"] {
                queries.push(format!(
                    "SELECT id, {l} IN (SELECT {r} FROM m{w}) FROM m ORDER BY id"
                ));
            }
        }
    }
    // Sources whose rows are not a plain column: a compound, VALUES, a
    // correlated subquery (searched one by one, every row).
    queries.extend([
        "SELECT id FROM m WHERE x IN (SELECT t FROM m UNION SELECT 1.0) ORDER BY id".to_string(),
        "SELECT id FROM m WHERE t NOT IN (VALUES (1), ('a'), (x'61')) ORDER BY id".into(),
        "SELECT id FROM m AS o WHERE n IN (SELECT t FROM m WHERE m.id <> o.id) ORDER BY id".into(),
        "SELECT id, (x, t) IN (SELECT n, tn FROM m) FROM m ORDER BY id".into(),
    ]);
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("IN subquery queries", queries.len(), &mismatches);
}

/// Window aggregates and value functions over every kind of frame, with
/// partitions, peers, NULL order keys and EXCLUDE: the values must be
/// SQLite's. Every value column is a function of the order key, so the
/// order SQLite gives peers cannot change a result.
#[test]
fn window_frames_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let mut setup = vec![
        "CREATE TABLE w(id INTEGER PRIMARY KEY, g INTEGER, o INTEGER, r REAL, s TEXT)".to_string(),
    ];
    for i in 1..=90 {
        let o = if i % 11 == 0 {
            "NULL".to_string()
        } else {
            ((i * 7) % 13).to_string()
        };
        setup.push(format!(
            "INSERT INTO w SELECT {i}, {g}, o, CASE WHEN o % 5 = 0 THEN NULL ELSE o * 0.1 - (o % 2) * 1e16 END, \
             CASE WHEN o % 6 = 0 THEN NULL WHEN o % 4 = 1 THEN '' ELSE 'v' || o END FROM (SELECT {o} AS o)",
            g = i % 3
        ));
    }
    run_on_both(&mut tj, &lite, &setup);
    let funcs = [
        "sum(r)",
        "total(r)",
        "avg(r)",
        "count(r)",
        "count(*)",
        "min(r)",
        "max(s)",
        "group_concat(s)",
        "group_concat(s, '')",
        "sum(DISTINCT o)",
        "count(*) FILTER (WHERE o > 4)",
        "sum(o) FILTER (WHERE s IS NOT NULL)",
        "first_value(s)",
        "last_value(r)",
        "nth_value(s, 2)",
    ];
    let frames = [
        "ORDER BY o",
        "ORDER BY o DESC",
        "ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
        "ORDER BY o ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING",
        "ORDER BY o ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
        "ORDER BY o ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING",
        "ORDER BY o ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING",
        "ORDER BY o RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING",
        "ORDER BY o DESC RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING",
        "ORDER BY o RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
        "ORDER BY o RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING",
        "ORDER BY o NULLS LAST RANGE BETWEEN 1 PRECEDING AND CURRENT ROW",
        "ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
        "ORDER BY o GROUPS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING",
        "ORDER BY o GROUPS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING",
        "ORDER BY o GROUPS BETWEEN 1 FOLLOWING AND 2 FOLLOWING",
        "ORDER BY o GROUPS BETWEEN 2 PRECEDING AND 1 PRECEDING",
        "ORDER BY o RANGE BETWEEN 3 PRECEDING AND 1 PRECEDING",
        "ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW",
        "ORDER BY o RANGE BETWEEN 3 PRECEDING AND CURRENT ROW EXCLUDE TIES",
        "ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP",
        "ORDER BY o ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW",
        "",
    ];
    let mut queries = Vec::new();
    for f in funcs {
        for frame in frames {
            for part in ["", "PARTITION BY g "] {
                queries.push(format!(
                    "SELECT id, {f} OVER ({part}{frame}) FROM w ORDER BY id"
                ));
            }
        }
    }
    for f in [
        "rank()",
        "dense_rank()",
        "percent_rank()",
        "cume_dist()",
        "ntile(4)",
        "lag(s, 2, 'x')",
        "lead(r)",
    ] {
        for part in ["", "PARTITION BY g "] {
            for o in ["o", "o DESC NULLS FIRST", "o NULLS LAST"] {
                queries.push(format!(
                    "SELECT id, {f} OVER ({part}ORDER BY {o}) FROM w ORDER BY id"
                ));
            }
        }
    }
    // Frame and argument rules: offsets that are not constants, negative,
    // fractional or text; frames that run backwards; FILTER and DISTINCT.
    for over in [
        "ORDER BY o ROWS BETWEEN -1 PRECEDING AND CURRENT ROW",
        "ORDER BY o ROWS BETWEEN 1.5 PRECEDING AND CURRENT ROW",
        "ORDER BY o ROWS BETWEEN 1.0 PRECEDING AND '2' FOLLOWING",
        "ORDER BY o ROWS BETWEEN NULL PRECEDING AND CURRENT ROW",
        "ORDER BY o ROWS BETWEEN o PRECEDING AND CURRENT ROW",
        "ORDER BY o ROWS BETWEEN abs(1) PRECEDING AND CURRENT ROW",
        "ORDER BY o ROWS BETWEEN (SELECT 1) PRECEDING AND CURRENT ROW",
        "ORDER BY o ROWS BETWEEN 1 + 1 PRECEDING AND CURRENT ROW",
        "ORDER BY o GROUPS BETWEEN CURRENT ROW AND 'x' FOLLOWING",
        "ORDER BY o RANGE BETWEEN 1.5 PRECEDING AND 0.5 FOLLOWING",
        "ORDER BY o RANGE BETWEEN '1' PRECEDING AND CURRENT ROW",
        "ORDER BY o RANGE BETWEEN 'x' PRECEDING AND CURRENT ROW",
        "ORDER BY o RANGE BETWEEN -2 PRECEDING AND CURRENT ROW",
        "ORDER BY o, id RANGE BETWEEN 1 PRECEDING AND CURRENT ROW",
        "RANGE BETWEEN 1 PRECEDING AND CURRENT ROW",
        "ORDER BY s RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING",
        "ORDER BY r DESC RANGE BETWEEN 0.5 PRECEDING AND CURRENT ROW",
        "ORDER BY o ROWS BETWEEN CURRENT ROW AND 1 PRECEDING",
        "ORDER BY o ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW",
        "ORDER BY o ROWS 1 FOLLOWING",
        "ORDER BY o ROWS BETWEEN 2 FOLLOWING AND 1 FOLLOWING",
        "ORDER BY o ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING",
        "ORDER BY o GROUPS 2 PRECEDING",
    ] {
        for f in [
            "count(*)",
            "sum(o)",
            "group_concat(s)",
            "first_value(id)",
            "row_number()",
        ] {
            queries.push(format!("SELECT id, {f} OVER ({over}) FROM w ORDER BY id"));
        }
        queries.push(format!("SELECT count(*) OVER ({over}) FROM w WHERE 0"));
    }
    for e in [
        "count(*) FILTER (WHERE o > 1) OVER ()",
        "first_value(s) FILTER (WHERE 1) OVER ()",
        "row_number() FILTER (WHERE 1) OVER ()",
        "count(DISTINCT o) OVER ()",
        "nth_value(s, 0) OVER (ORDER BY o)",
        "nth_value(s, 1.5) OVER (ORDER BY o)",
        "nth_value(s, '2') OVER (ORDER BY o)",
        "nth_value(s, NULL) OVER (ORDER BY o)",
        "nth_value(s, 3) OVER (ORDER BY o)",
        "ntile(1.5) OVER (ORDER BY o)",
        "ntile('2') OVER (ORDER BY o)",
        "ntile(NULL) OVER (ORDER BY o)",
        "lag(id, -1) OVER (ORDER BY id)",
        "lag(id, 1.5) OVER (ORDER BY id)",
        "lag(id, 2.0) OVER (ORDER BY id)",
        "lag(id, NULL, 'd') OVER (ORDER BY id)",
        "lead(id, '1') OVER (ORDER BY id)",
        "lead(id, 'x') OVER (ORDER BY id)",
        "lead(id, o, -1) OVER (PARTITION BY g ORDER BY id)",
    ] {
        queries.push(format!("SELECT id, {e} FROM w ORDER BY id"));
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("window queries", queries.len(), &mismatches);
}

/// Numbers with `_` digit separators (SQLite 3.46): in every part of a
/// decimal, real or hex literal, between two digits only; taken by an
/// expression and by DEFAULT, refused by a type's size and a pragma's value.
#[test]
fn digit_separators_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let queries = [
        "SELECT 1_000, 0x7fff_ffff_ffff_ffff, 1_0.5_0, 1e1_0, .5_5, 1_2e-1_1, 0xA_b",
        "SELECT -9_223_372_036_854_775_808, 9_223_372_036_854_775_808, -1_0, 12_34 + 1",
        "SELECT typeof(1_000), typeof(1_0.0), typeof(0x1_0), typeof(-0x1_0)",
        "SELECT 1 LIMIT 1_0 OFFSET 0_0",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("digit separator queries", queries.len(), &mismatches);
    run_with_sqlite_errors(
        &mut tj,
        &lite,
        &[
            "SELECT 1__0",
            "SELECT 1_",
            "SELECT 1_.5",
            "SELECT 1._5",
            "SELECT 1e_5",
            "SELECT 1_e5",
            "SELECT 0x_1",
            "SELECT 0x1_",
            "SELECT 1_000abc",
            "CREATE TABLE d(a DEFAULT 1_000, b DEFAULT -2_5.5, c VARCHAR(1_0))",
            "CREATE TABLE d(a DEFAULT 1_000, b DEFAULT -2_5.5, c DEFAULT +0x1_0)",
            "INSERT INTO d DEFAULT VALUES",
            "SELECT a, b, c, typeof(b) FROM d",
            "PRAGMA user_version = 1_0",
        ],
    );
}

/// How a CTE's name resolves, as in SQLite (`resolveFromTermToCte`): a
/// CTE is recursive by its shape (its last SELECT joined by UNION [ALL]
/// naming it in FROM), whether or not RECURSIVE is written; its name
/// hides a table of that name in its own body, where any other reference
/// is a "circular reference"; a subquery of the recursive step may not
/// read it; it may have several recursive SELECTs; and a CTE may read
/// those after it in its WITH clause.
/// (Before, without RECURSIVE a self-reference read the table of that
/// name: wrong rows.)
#[test]
fn cte_names_resolve_as_sqlite() {
    let (mut tj, lite) = open_pair();
    run_on_both(
        &mut tj,
        &lite,
        &["CREATE TABLE t(a)", "INSERT INTO t VALUES (1), (2)"].map(String::from),
    );
    let queries = [
        "WITH t(a) AS (SELECT 5 UNION ALL SELECT a + 1 FROM t WHERE a < 7) SELECT * FROM t",
        "WITH t(a) AS (SELECT 5 UNION SELECT a FROM t) SELECT * FROM t",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 3) SELECT count(*), group_concat(a ORDER BY a DESC) FROM u",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 3), v AS (SELECT a FROM u UNION ALL SELECT a * 10 FROM u) SELECT * FROM v",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 3 ORDER BY 1 LIMIT 2) SELECT * FROM u",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM (u) WHERE a < 3) SELECT * FROM u",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT u.a + 1 FROM t JOIN (u JOIN t AS s ON s.a = 1) WHERE u.a < 3) SELECT * FROM u",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT (SELECT max(a) FROM t) + a FROM u WHERE a < 5) SELECT * FROM u",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 3) SELECT * FROM u AS p JOIN u AS q ON p.a = q.a",
        "WITH x AS (SELECT * FROM y), y AS (SELECT 1) SELECT * FROM x",
        "WITH x AS (SELECT 1 AS a), y AS (SELECT a + 1 AS a FROM x) SELECT * FROM y, x",
        "WITH x AS (SELECT 2 AS a) SELECT * FROM (WITH x AS (SELECT a + 1 AS a FROM x) SELECT * FROM x)",
        "WITH t AS (SELECT 7 AS a) SELECT (SELECT a FROM t), a FROM t",
        "WITH x AS (SELECT a FROM t) SELECT * FROM (WITH t AS (SELECT 9 AS a) SELECT * FROM x)",
        // Several recursive SELECTs (SQLite 3.34): rows in the order of
        // SQLite's queue, UNION and UNION ALL, an initial part of several.
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 3 UNION ALL SELECT a + 10 FROM u WHERE a < 2) SELECT * FROM u",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT a + 10 FROM u WHERE a < 5 UNION ALL SELECT a * 3 FROM u WHERE a < 5) SELECT * FROM u",
        "WITH u(a) AS (SELECT 1 UNION SELECT a + 1 FROM u WHERE a < 5 UNION SELECT a + 2 FROM u WHERE a < 5) SELECT * FROM u",
        "WITH u(a) AS (SELECT 1 UNION SELECT a + 1 FROM u WHERE a < 5 UNION ALL SELECT a + 2 FROM u WHERE a < 5) SELECT * FROM u",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 5 UNION SELECT a + 2 FROM u WHERE a < 5) SELECT * FROM u",
        "WITH u(a, d) AS (SELECT 1, 0 UNION ALL SELECT a * 2, d + 1 FROM u WHERE d < 3 UNION ALL SELECT a * 2 + 1, d + 1 FROM u WHERE d < 3) SELECT * FROM u LIMIT 9",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 3 UNION ALL SELECT u.a + t.a FROM u JOIN t WHERE u.a < 2) SELECT * FROM u",
        "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 3 UNION ALL SELECT a + 10 FROM u WHERE a < 2 ORDER BY 1 LIMIT 4) SELECT * FROM u",
        "SELECT count(*) FROM (WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 300 UNION ALL SELECT a + 1000 FROM u WHERE a < 3) SELECT * FROM u)",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("CTE name queries", queries.len(), &mismatches);
    run_with_sqlite_errors(
        &mut tj,
        &lite,
        &[
            "WITH t AS (SELECT a + 10 AS a FROM t) SELECT * FROM t",
            "WITH RECURSIVE t AS (SELECT a + 10 AS a FROM t) SELECT * FROM t",
            "WITH t AS (SELECT a FROM t WHERE a > 1) SELECT * FROM t",
            "WITH t(a) AS (SELECT a FROM t UNION ALL SELECT 5) SELECT * FROM t",
            "WITH u(a) AS (SELECT 1 INTERSECT SELECT a FROM u) SELECT * FROM u",
            "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM (SELECT * FROM u) WHERE a < 3) SELECT * FROM u",
            "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 3 AND a IN (SELECT a FROM u)) SELECT * FROM u",
            "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE EXISTS (SELECT 1 FROM u)) SELECT * FROM u",
            "WITH u(a) AS (SELECT 1 UNION ALL SELECT u.a + 1 FROM u, u AS w WHERE u.a < 3) SELECT * FROM u",
            "WITH x AS (SELECT * FROM y), y AS (SELECT * FROM x) SELECT * FROM x",
            "WITH u(a) AS (SELECT 1 UNION ALL SELECT a, a FROM u WHERE a < 3) SELECT * FROM u",
            "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 3 UNION ALL SELECT a, a FROM u) SELECT * FROM u",
            "WITH u(a) AS (SELECT 1 UNION ALL SELECT a + 1 FROM u WHERE a < 3 UNION ALL SELECT u.a FROM u, u AS v) SELECT * FROM u",
        ],
    );
}

/// An aggregate's own ORDER BY (SQLite 3.44's `group_concat(x ORDER BY y)`)
/// over values of every kind: each aggregate with and without DISTINCT and
/// FILTER, grouped and not, ordered by its argument, by other columns, by
/// expressions, constants and correlated subqueries, under collations and
/// NULLS FIRST / LAST; the JSON subtype carried through the sort; DISTINCT
/// keeping the first of equal values, or the last when its ORDER BY is its
/// argument (SQLite's sorter); min and max ignoring it; and SQLite's
/// errors where ORDER BY may not be written.
#[test]
fn ordered_aggregates_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let mut setup = vec![
        "CREATE TABLE a(id INTEGER PRIMARY KEY, g INTEGER, x, y, c TEXT COLLATE NOCASE)"
            .to_string(),
    ];
    let xs = [
        "1", "1.0", "2", "NULL", "'a'", "'A'", "x'00'", "-3", "2.5", "'b'", "'1'", "x''", "0.1",
        "'B'", "NULL", "7",
    ];
    let ys = [
        "3", "NULL", "1", "3", "'k'", "2", "0.5", "1", "NULL", "-1", "2",
    ];
    let cs = ["'a'", "'A'", "'b'", "NULL", "'B'", "'c'", "'a'"];
    for i in 0..48usize {
        setup.push(format!(
            "INSERT INTO a VALUES ({i}, {}, {}, {}, {})",
            i % 4,
            xs[i % xs.len()],
            ys[(i * 5) % ys.len()],
            cs[(i * 3) % cs.len()]
        ));
    }
    run_on_both(&mut tj, &lite, &setup);
    let funcs = [
        "group_concat({d}x{o})",
        "group_concat(x, '-'{o})",
        "string_agg(c, id{o})",
        "group_concat({d}c{o})",
        "json_group_array({d}x{o})",
        "json_group_array(json_array(x, y){o})",
        "json_group_object(coalesce(c, 'none'), x{o})",
        "hex(jsonb_group_array({d}y{o}))",
        "sum({d}x{o})",
        "total(x{o})",
        "avg({d}y{o})",
        "count({d}c{o})",
        "min(x{o})",
        "max({d}c{o})",
    ];
    let orders = [
        " ORDER BY x",
        " ORDER BY x DESC",
        " ORDER BY c",
        " ORDER BY c DESC NULLS FIRST",
        " ORDER BY y NULLS LAST",
        " ORDER BY y DESC, id",
        " ORDER BY c COLLATE BINARY, id DESC",
        " ORDER BY x COLLATE NOCASE",
        " ORDER BY id % 5, -id",
        " ORDER BY 1",
        " ORDER BY (SELECT count(*) FROM a b WHERE b.id < a.id) DESC",
        " ORDER BY y, x, c, id",
    ];
    let mut queries = Vec::new();
    for f in funcs {
        for o in orders {
            for d in ["", "DISTINCT "] {
                if d.is_empty() && !f.contains("{d}") {
                    continue;
                }
                let call = f.replace("{d}", d).replace("{o}", o);
                queries.push(format!("SELECT {call} FROM a"));
                queries.push(format!("SELECT g, {call} FROM a GROUP BY g ORDER BY g"));
                if f.starts_with("group_concat") || f.starts_with("json") {
                    let filtered = call.replacen(')', ") FILTER (WHERE id % 3 <> 1)", 1);
                    // (the replacen hits the call's first ')', so only
                    // calls without one inside get a FILTER)
                    if !call.contains("(SELECT") && !call.contains("json_array(") {
                        queries.push(format!("SELECT g, {filtered} FROM a GROUP BY g ORDER BY g"));
                    }
                }
            }
        }
    }
    queries.extend(
        [
            // DISTINCT of equal values that differ (1 and 1.0, 'a' and 'A'
            // under NOCASE): first kept, or last when ordered by itself.
            "SELECT group_concat(DISTINCT x ORDER BY x), group_concat(DISTINCT x ORDER BY y) FROM a WHERE typeof(x) <> 'blob'",
            "SELECT group_concat(DISTINCT c ORDER BY c), group_concat(DISTINCT c ORDER BY c DESC) FROM a",
            "SELECT group_concat(DISTINCT c ORDER BY c COLLATE BINARY), group_concat(DISTINCT c COLLATE BINARY ORDER BY c) FROM a",
            "SELECT json_group_array(DISTINCT x), json_group_array(DISTINCT x ORDER BY x), json_group_array(DISTINCT x ORDER BY id DESC) FROM a",
            // In HAVING, in an outer ORDER BY, in a view, in a correlated
            // subquery, over a join, with the rows in a CTE.
            "SELECT g FROM a GROUP BY g HAVING group_concat(id ORDER BY id DESC) LIKE '4%' ORDER BY g",
            "SELECT g, group_concat(id ORDER BY id DESC) AS s FROM a GROUP BY g ORDER BY s",
            "SELECT g, (SELECT group_concat(b.id, '.' ORDER BY b.id DESC) FROM a b WHERE b.g = a.g AND b.id < 12) FROM a GROUP BY g ORDER BY g",
            "SELECT a.g, group_concat(b.id ORDER BY b.id DESC, a.id) FROM a JOIN a b ON b.g = a.g AND b.id < 6 WHERE a.id < 6 GROUP BY a.g ORDER BY 1",
            "WITH r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 30) SELECT group_concat(n ORDER BY n % 7, n DESC) FROM r",
            "SELECT group_concat(x ORDER BY y) FROM a WHERE 0",
            "SELECT count(ORDER BY x), count(ORDER BY nope) FROM a",
            "SELECT random(ORDER BY 1) IS NOT NULL",
        ]
        .map(String::from),
    );
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("ordered aggregate queries", queries.len(), &mismatches);
    run_on_both(
        &mut tj,
        &lite,
        &["CREATE VIEW av AS SELECT g, group_concat(id, ';' ORDER BY x DESC, id) AS s FROM a GROUP BY g".to_string()],
    );
    let mismatches = ordered_mismatches(
        &mut tj,
        &lite,
        &[
            "SELECT * FROM av ORDER BY g",
            "SELECT sql FROM sqlite_schema WHERE name = 'av'",
        ],
    );
    assert_no_mismatches("ordered aggregate views", 2, &mismatches);
    run_with_sqlite_errors(
        &mut tj,
        &lite,
        &[
            "SELECT abs(x ORDER BY y) FROM a",
            "SELECT group_concat(x ORDER BY y) OVER () FROM a",
            "SELECT sum(x ORDER BY y) OVER (PARTITION BY g) FROM a",
            "SELECT group_concat(x ORDER BY count(*)) FROM a",
            "SELECT group_concat(x ORDER BY row_number() OVER ()) FROM a",
            "SELECT group_concat(x ORDER BY nope) FROM a",
            "SELECT count(DISTINCT ORDER BY x) FROM a",
            "SELECT group_concat(DISTINCT x, '-' ORDER BY y) FROM a",
            "SELECT group_concat(x ORDER BY) FROM a",
        ],
    );
}

/// The JSON functions through SQL: `->` and `->>`, SQLite's JSON subtype
/// passed from one JSON function's result to another's argument (so
/// `json_array(json('[1]'))` nests an array where `json_array('[1]')`
/// quotes a string), the JSON aggregates over groups and window frames,
/// and an index on a JSON expression.
#[test]
fn json_through_sql_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE j(id INTEGER PRIMARY KEY, g INTEGER, doc TEXT, t TEXT, n NUMERIC)",
        r#"INSERT INTO j VALUES
           (1, 1, '{"a":1,"b":[1,2,{"c":"x"}],"s":"str"}', 'a', 1),
           (2, 1, '{"a":2.5,"b":[],"s":"q\"uote"}', 'b', 2.5),
           (3, 2, '[10,20,30]', 'c', NULL),
           (4, 2, '{"a":null,"b":{"k":[true,false]}}', NULL, '7'),
           (5, 3, 'not json', 'e', 5),
           (6, 3, NULL, 'f', 6),
           (7, 1, '{"a":"1","b":[[1],[2,[3]]]}', 'g', -1)"#,
        "CREATE INDEX j_a ON j(json_extract(doc, '$.a'))",
        "CREATE INDEX j_s ON j(doc ->> 's')",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let mut queries: Vec<String> = Vec::new();
    for e in [
        "doc -> 'a'", "doc ->> 'a'", "doc -> '$.b'", "doc ->> '$.b[2].c'", "doc -> '$.b[#-1]'",
        "doc -> 1", "doc ->> -1", "doc -> 'b' -> 0", "doc -> '$'", "doc ->> '$.s'",
        "json_extract(doc, '$.a', '$.s')", "json_type(doc, '$.b')", "json_valid(doc)",
        "json_array(doc -> 'b', doc ->> 'b', json(doc), doc)",
        "json_object('d', doc -> '$.b', 'e', json_extract(doc, '$.b'), 'f', json_extract(doc, '$.s'))",
        "json_set('{}', '$.x', doc -> 'a', '$.y', json_array(1, t))",
        "json_insert(coalesce(doc, '[]'), '$[#]', t)",
        "json_quote(doc -> 'b')", "json_array_length(doc, '$.b')", "typeof(doc ->> 'a')",
        "json_array(json_array(1, 2), json_object('k', json('[3]')), json_quote(t))",
        "json_array(CASE WHEN 1 THEN json('[1]') END, CASE id WHEN 1 THEN doc -> 'b' ELSE doc END)",
        "json_array(coalesce(NULL, json('[2]')), ifnull(doc -> 'b', 'x'), iif(id > 2, json('{}'), '{}'))",
        "json_array(n, t, id * 1.5, x'00' IS NULL)",
    ] {
        // Row 5 is not JSON: most of these fail on it (checked below).
        queries.push(format!("SELECT id, {e} FROM j WHERE id <> 5 ORDER BY id"));
    }
    queries.extend([
        "SELECT g, json_group_array(t), json_group_object(t, n) FROM j WHERE t IS NOT NULL GROUP BY g ORDER BY g".to_string(),
        "SELECT g, json_group_array(doc -> 'a'), json_group_array(doc ->> 'a') FROM j WHERE json_valid(doc) GROUP BY g ORDER BY g".into(),
        "SELECT json_object('all', json_group_array(id)) FROM j".into(),
        "SELECT json_group_array(json_object('id', id, 't', t)) FROM j".into(),
        "SELECT id, json_group_array(t) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM j ORDER BY id".into(),
        "SELECT id, json_group_object(t, id) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM j WHERE t IS NOT NULL ORDER BY id".into(),
        "SELECT id, json_array(json_group_array(id) OVER (PARTITION BY g)) FROM j ORDER BY id".into(),
        "SELECT json_group_array(t) FROM j WHERE 0".into(),
        "SELECT json_group_object(t, n) FROM j WHERE 0".into(),
        "SELECT id FROM j WHERE json_extract(doc, '$.a') = 1 ORDER BY id".into(),
        "SELECT id FROM j WHERE json_extract(doc, '$.a') > 1 ORDER BY id".into(),
        "SELECT id FROM j WHERE doc ->> 's' = 'str'".into(),
        "SELECT id FROM j WHERE doc -> 'a' = '1' ORDER BY id".into(),
        "SELECT id FROM j WHERE json_valid(doc) AND json_type(doc) = 'object' ORDER BY id".into(),
        "SELECT json('{\"x\": 1}') -> 'x', '[1,2]' ->> 1, NULL -> 'a', '{}' -> NULL".into(),
        "SELECT id, doc -> 'a' FROM j WHERE id = 5".into(),
    ]);
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("JSON queries", queries.len(), &mismatches);
}

/// JSONB through SQL: documents stored as SQLite's JSONB blobs (written by
/// jsonb(), edited in place by jsonb_set / jsonb_remove in UPDATEs), read by
/// the text functions, `->` / `->>`, json_each and an index on a
/// jsonb_extract expression; the jsonb_* aggregates over groups and window
/// frames (the text `[]` for no rows, as SQLite 3.46 gives); the bytes must
/// be SQLite's (compared through hex()).
#[test]
fn jsonb_through_sql_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE b(id INTEGER PRIMARY KEY, g INTEGER, doc BLOB, t TEXT)",
        r#"INSERT INTO b VALUES
           (1, 1, jsonb('{"a":1,"b":[1,2,{"c":"x"}],"s":"str"}'), 'a'),
           (2, 1, jsonb('{a:2.50,b:[],s:"q\"uote",h:0x1F}'), 'b'),
           (3, 2, jsonb('[10,20,30]'), 'c'),
           (4, 2, jsonb_object('a', NULL, 'b', jsonb_array(1, 'two', 3.5)), NULL),
           (5, 3, NULL, 'e'),
           (6, 3, jsonb_set('{}', '$.a', 'x', '$.n', json('[1,{"k":2}]')), 'f')"#,
        "CREATE INDEX b_a ON b(jsonb_extract(doc, '$.a'))",
        "UPDATE b SET doc = jsonb_set(doc, '$.u', id * 10) WHERE id IN (1, 3)",
        "UPDATE b SET doc = jsonb_remove(doc, '$.s') WHERE id = 2",
        "UPDATE b SET doc = jsonb_insert(doc, '$.b[#]', jsonb('{\"z\":[]}')) WHERE id = 1",
        "UPDATE b SET doc = jsonb_patch(doc, '{\"a\":null,\"p\":[7]}') WHERE id = 4",
        "UPDATE b SET doc = jsonb_replace(doc, '$[1]', 'twenty') WHERE id = 3",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let mut queries: Vec<String> = Vec::new();
    for e in [
        "hex(doc)",
        "typeof(doc)",
        "json(doc)",
        "doc -> 'a'",
        "doc ->> 'b'",
        "doc -> '$.b[2]'",
        "hex(jsonb_extract(doc, '$.b'))",
        "jsonb_extract(doc, '$.a')",
        "hex(jsonb_extract(doc, '$.a', '$.s'))",
        "json_type(doc, '$.b')",
        "json_valid(doc, 8)",
        "hex(jsonb(doc))",
        "hex(jsonb(json(doc)))",
        "json_array(doc, jsonb_extract(doc, '$.b'))",
        "hex(jsonb_array(doc, t, id))",
        "hex(jsonb_object('d', doc, 't', t))",
        "json_array_length(doc, '$.b')",
        "hex(jsonb_set(doc, '$.new', jsonb('[1]')))",
        "json_pretty(doc)",
        "json_quote(jsonb_extract(doc, '$.b'))",
    ] {
        queries.push(format!("SELECT id, {e} FROM b ORDER BY id"));
    }
    queries.extend([
        "SELECT g, hex(jsonb_group_array(t)), hex(jsonb_group_object(t, id)) FROM b WHERE t IS NOT NULL GROUP BY g ORDER BY g".to_string(),
        "SELECT g, json(jsonb_group_array(doc)), typeof(jsonb_group_array(doc)) FROM b GROUP BY g ORDER BY g".into(),
        "SELECT id, hex(jsonb_group_array(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)) FROM b ORDER BY id".into(),
        "SELECT id, hex(jsonb_group_object(t, doc) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)) FROM b WHERE t IS NOT NULL ORDER BY id".into(),
        "SELECT jsonb_group_array(t), typeof(jsonb_group_array(t)), json_array(jsonb_group_array(t)) FROM b WHERE 0".into(),
        "SELECT jsonb_group_object(t, id), json_array(jsonb_group_object(t, id)) FROM b WHERE 0".into(),
        "SELECT id FROM b WHERE jsonb_extract(doc, '$.a') = 1 ORDER BY id".into(),
        "SELECT id FROM b WHERE jsonb_extract(doc, '$.a') > 1 ORDER BY id".into(),
        "SELECT id FROM b WHERE jsonb_extract(doc, '$.a') = 'x' ORDER BY id".into(),
        "SELECT b.id, j.key, j.value, j.type FROM b, json_each(b.doc) j ORDER BY b.id, j.id".into(),
        "SELECT b.id, j.fullkey, j.atom FROM b, json_tree(b.doc) j WHERE j.type <> 'object' ORDER BY b.id, j.id".into(),
        "SELECT hex(jsonb(x'0b')), hex(jsonb(x'c70161')), hex(jsonb('  [1 , 2 ] '))".into(),
        "SELECT jsonb(x'0c01')".into(),
        "SELECT jsonb('{')".into(),
        "SELECT jsonb_set('[]', '$[0]', 1, '$[1]')".into(),
        "SELECT jsonb_array(x'00')".into(),
        "SELECT jsonb_object(1, 2)".into(),
        "SELECT jsonb_extract('[1]', 'x')".into(),
        "SELECT jsonb_group_array(x'00') FROM b".into(),
        "SELECT jsonb()".into(),
        "SELECT jsonb_patch('{}')".into(),
    ]);
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("JSONB queries", queries.len(), &mismatches);
}

/// `json_each` and `json_tree` as FROM items: alone, reading the columns
/// of the items before them (or after: they are joined first), in LEFT
/// joins, subqueries and UPDATE ... FROM; their `value` column carrying
/// the JSON subtype into other JSON functions; their rowid and hidden
/// columns; errors.
#[test]
fn json_each_and_json_tree_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT, tags TEXT)",
        r#"INSERT INTO t VALUES
           (1, '{"a":1,"b":[1,2,{"c":"x"}],"s":"str"}', '["red","blue"]'),
           (2, '{"a":2.5,"b":[],"s":"q\"uote","d":{"e":null}}', '[]'),
           (3, '[10,20,[30,[40]]]', '["blue"]'),
           (4, NULL, NULL),
           (5, '"scalar"', '["green","red","red"]'),
           (6, '{"x y":true,"1":false,"":0}', '[1, 2.0, "3", null, {"k":[1]}]')"#,
        "CREATE TABLE u(id INTEGER PRIMARY KEY, tag TEXT UNIQUE)",
        "INSERT INTO u VALUES (1, 'red'), (2, 'blue'), (3, 'green'), (4, 'none')",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let mut queries: Vec<String> = Vec::new();
    for f in ["json_each", "json_tree"] {
        for doc in [
            r#"'[1,[2],{"a":3},"x",null,true,1.5e0,-0x1F]'"#,
            r#"'{"a":{"b":[{"c":1},2]},"d e":"f","g.h":[],"":{}}'"#,
            // The last: SQLite's jsonb('[1,{"k":[2,3]}]').
            "'5'",
            "'\"s\"'",
            "'[]'",
            "'{}'",
            "NULL",
            "x'AB13317C176B4B13321333'",
        ] {
            queries.push(format!(
                "SELECT key, value, type, atom, id, parent, fullkey, path, json, root, rowid FROM {f}({doc})"
            ));
            for path in ["'$'", "'$.a'", "'$[1]'", "'$.a.b[0]'", "'$.nope'", "NULL"] {
                queries.push(format!("SELECT * FROM {f}({doc}, {path})"));
            }
        }
        queries.extend([
            format!("SELECT t.id, j.* FROM t, {f}(t.doc) AS j WHERE t.id <> 5 ORDER BY t.id, j.id"),
            format!("SELECT t.id, j.key, j.value FROM {f}(t.doc) j, t WHERE t.id IN (1, 3) ORDER BY t.id, j.id"),
            format!("SELECT t.id, j.fullkey, j.atom FROM t LEFT JOIN {f}(t.tags) j ORDER BY t.id, j.id"),
            format!("SELECT t.id, count(j.key) FROM t LEFT JOIN {f}(t.doc, '$.b') j GROUP BY t.id ORDER BY t.id"),
            format!("SELECT t.id, json_group_array(j.value) FROM t, {f}(t.tags) j GROUP BY t.id ORDER BY t.id"),
            format!("SELECT json_group_array(value), json_group_object(fullkey, value) FROM {f}('[[1],{{\"a\":[2]}},3,\"x\"]')"),
            format!("SELECT json_array(value, atom), json_object('v', value), value -> '$[0]' FROM {f}('[[1],{{\"a\":[2]}},3]')"),
            format!("SELECT key, json_quote(value), typeof(value) FROM {f}('{{\"a\":[1],\"b\":\"[2]\",\"c\":null}}')"),
            format!("SELECT t.id, u.id FROM t, {f}(t.tags) j, u WHERE u.tag = j.value ORDER BY t.id, j.id"),
            format!("SELECT u.tag, (SELECT count(*) FROM t, {f}(t.tags) j WHERE j.value = u.tag) FROM u ORDER BY u.id"),
            format!("SELECT id FROM t WHERE 'red' IN (SELECT value FROM {f}(t.tags)) ORDER BY id"),
            format!("SELECT id, (SELECT group_concat(key, '|') FROM {f}(t.doc)) FROM t ORDER BY id"),
            format!("SELECT a.key, b.key, b.value FROM {f}('[[1,2],[3]]') a, {f}(a.value) b ORDER BY a.id, b.id"),
            format!("SELECT b.value FROM {f}(a.value) b, {f}('[[1,2],[3]]') a WHERE a.type = 'array' ORDER BY a.id, b.id"),
            format!("SELECT key, value FROM {f}('[3,1,2]') WHERE value > 1 ORDER BY value DESC"),
            format!("SELECT DISTINCT value FROM t, {f}(t.tags) WHERE type = 'text' ORDER BY 1"),
            format!("SELECT count(*), sum(value) FROM {f}((SELECT tags FROM t WHERE id = 6))"),
            format!("SELECT * FROM main.{f}('[1]')"),
            format!("SELECT * FROM {f}()"),
            format!("SELECT * FROM {f}('[1]', '$', 'x')"),
            format!("SELECT * FROM {f}('[1')"),
            format!("SELECT * FROM {f}('[1]', 'x')"),
            format!("SELECT * FROM {f}('[1]', '$[')"),
            format!("SELECT * FROM t, {f}(t.doc) WHERE t.id = 5"),
            format!("SELECT key FROM {f}(x'00')"),
        ]);
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("json_each / json_tree queries", queries.len(), &mismatches);
    // The plans' texts are SQLite's (their ids are not).
    for (sql, want) in [
        (
            "SELECT * FROM t, json_each(t.doc) j",
            ["SCAN t", "SCAN j VIRTUAL TABLE INDEX 1:"],
        ),
        (
            "SELECT * FROM json_tree(t.doc, '$') j, t",
            ["SCAN t", "SCAN j VIRTUAL TABLE INDEX 3:"],
        ),
    ] {
        let explain = format!("EXPLAIN QUERY PLAN {sql}");
        for (i, got) in [tinyjoin_run(&mut tj, &explain), sqlite_run(&lite, &explain)]
            .iter()
            .enumerate()
        {
            let details: Vec<&Value> = got.as_ref().expect("plans").iter().map(|r| &r[3]).collect();
            let want: Vec<Value> = want.iter().map(|d| Value::Text(d.to_string())).collect();
            assert_eq!(
                details,
                want.iter().collect::<Vec<_>>(),
                "{sql} (engine {i})"
            );
        }
    }
    // UPDATE ... FROM a JSON document of changes.
    let update = r#"UPDATE u SET tag = j.value FROM json_each('{"1":"RED","3":"GREEN"}') j WHERE u.id = j.key"#;
    run_on_both(&mut tj, &lite, &[update.to_string()]);
    let after = ["SELECT * FROM u ORDER BY id".to_string()];
    let mismatches = ordered_mismatches(&mut tj, &lite, &after);
    assert_no_mismatches("after UPDATE ... FROM json_each", 1, &mismatches);
}

/// Correlated subqueries nested in subqueries: a FROM item's subquery
/// inside a scalar, EXISTS or IN subquery reads the outer query's columns
/// even where the outer query reads them nowhere else (they were left
/// undecoded, so the subquery saw NULLs), and each evaluation's rows are
/// given back to the statement's budget (they piled up until the batch
/// limit failed the statement).
#[test]
fn correlated_subqueries_read_outer_rows_and_give_back_memory() {
    let (mut tj, lite) = open_pair_with(DbOptions {
        batch_limit_bytes: 256 * 1024,
        ..DbOptions::default()
    });
    let setup = [
        "CREATE TABLE t(a INTEGER, g INTEGER, s TEXT)",
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500) \
         INSERT INTO t SELECT i, i % 10, 'row' || i FROM c",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let queries = [
        "SELECT a, (SELECT count(*) FROM (SELECT a FROM t WHERE g = o.g)) FROM t o WHERE a < 20 ORDER BY a",
        "SELECT a, (SELECT max(x.a) FROM (SELECT a FROM t WHERE g = o.g AND a < o.a) x) FROM t o WHERE a < 50 ORDER BY a",
        "SELECT a, (SELECT s FROM (SELECT s, a FROM t WHERE g = o.g) ORDER BY a DESC LIMIT 1) FROM t o WHERE a < 12 ORDER BY a",
        "SELECT count(*) FROM t o WHERE EXISTS (SELECT 1 FROM (SELECT * FROM t WHERE g = o.g AND a > 1495))",
        "SELECT count(*) FROM t o WHERE a IN (SELECT a FROM (SELECT a, g FROM t WHERE a < 500) WHERE g = o.g)",
        "SELECT count(*) FROM t o WHERE a IN (SELECT a FROM t WHERE g = o.g AND a < 1000)",
        "SELECT count(*) FROM t o WHERE EXISTS (SELECT * FROM t WHERE g = o.g)",
        "SELECT sum((SELECT count(*) FROM (SELECT s FROM t WHERE g = o.g AND a < 600))) FROM t o",
    ]
    .map(String::from);
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("correlated subquery queries", queries.len(), &mismatches);
}

/// STRICT tables: declared types checked at CREATE, each value stored as
/// its column's type after the affinity conversion or refused (in INSERT,
/// UPDATE, upserts, REPLACE and ALTER TABLE ADD COLUMN), ANY columns kept
/// as given. WITHOUT ROWID tables: a PRIMARY KEY required and NOT NULL, no
/// rowid to name, an INTEGER PRIMARY KEY that is not one.
#[test]
fn strict_and_without_rowid_tables_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE bad1(a) STRICT",
        "CREATE TABLE bad2(a VARCHAR(10)) STRICT",
        "CREATE TABLE bad3(a INT, b int, c Integer, d REAL, e TEXT, f BLOB, g ANY, h DOUBLE) STRICT",
        "CREATE TABLE s(id INTEGER PRIMARY KEY, a INT, b INTEGER NOT NULL DEFAULT 0, c REAL, d TEXT, e BLOB, f ANY, g any UNIQUE) STRICT",
        "INSERT INTO s(a) VALUES (1), ('2'), (' 3 '), (4.0), (5.5)",
        "INSERT INTO s(a) VALUES ('x')",
        "INSERT INTO s(a) VALUES (x'01')",
        "INSERT INTO s(a, b) VALUES ('x', NULL)",
        "INSERT OR IGNORE INTO s(a) VALUES ('y')",
        "INSERT OR REPLACE INTO s(a) VALUES ('z')",
        "INSERT INTO s(c) VALUES (1), ('2.5'), ('1e3'), (9223372036854775807)",
        "INSERT INTO s(c) VALUES ('abc')",
        "INSERT INTO s(d) VALUES (1), (2.5), ('t'), (NULL)",
        "INSERT INTO s(d) VALUES (x'00')",
        "INSERT INTO s(e) VALUES (x'00')",
        "INSERT INTO s(e) VALUES ('t')",
        "INSERT INTO s(e) VALUES (1)",
        "INSERT INTO s(f, g) VALUES ('1', 1), (1.0, '1.0'), (x'01', NULL), ('007', '007')",
        "INSERT INTO s(id, a) VALUES ('10', 1)",
        "INSERT INTO s(id, a) VALUES ('ten', 1)",
        "UPDATE s SET a = '42' WHERE id = 1",
        "UPDATE s SET a = 'forty' WHERE id = 1",
        "UPDATE OR IGNORE s SET a = 'forty' WHERE id = 1",
        "UPDATE s SET c = a WHERE a IS NOT NULL",
        "INSERT INTO s(id, a) VALUES (1, 0) ON CONFLICT(id) DO UPDATE SET a = 'no'",
        "INSERT INTO s(id, a) VALUES (1, 0) ON CONFLICT(id) DO UPDATE SET a = '7'",
        "ALTER TABLE s ADD COLUMN h TEXT",
        "ALTER TABLE s ADD COLUMN i VARCHAR",
        "ALTER TABLE s ADD COLUMN j INT DEFAULT 'x'",
        "CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID",
        "CREATE TABLE w2(k, v) WITHOUT ROWID",
        "CREATE TABLE w3(k INTEGER PRIMARY KEY AUTOINCREMENT, v) WITHOUT ROWID",
        "CREATE TABLE wi(k INTEGER PRIMARY KEY, v) WITHOUT ROWID",
        "CREATE TABLE wc(a, b, c, PRIMARY KEY (b, a)) WITHOUT ROWID",
        "INSERT INTO w VALUES ('b', 1), ('a', 2)",
        "INSERT INTO w VALUES (NULL, 3)",
        "INSERT INTO w VALUES ('a', 4)",
        "INSERT OR REPLACE INTO w VALUES ('a', 5)",
        "INSERT INTO wi(v) VALUES (1)",
        "INSERT INTO wi VALUES ('7', 1), (8.0, 2)",
        "INSERT INTO wc VALUES (1, NULL, 2)",
        "INSERT INTO wc VALUES (1, 2, 3), (2, 1, 4)",
        "SELECT rowid FROM w",
        "SELECT _rowid_, * FROM wi",
        "SELECT w.oid FROM w",
        "CREATE TABLE ws(k INT PRIMARY KEY, v ANY) STRICT, WITHOUT ROWID",
        "INSERT INTO ws VALUES ('1', '1'), (2, 2.5)",
        "INSERT INTO ws VALUES ('x', 1)",
        "DELETE FROM w WHERE k = 'b'",
        "UPDATE wi SET k = NULL",
        "UPDATE w SET k = NULL",
        "UPDATE OR IGNORE wc SET a = NULL",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let queries = [
        "SELECT id, a, typeof(a), b, c, typeof(c), d, typeof(d), e, f, typeof(f), g, typeof(g) FROM s ORDER BY id",
        "SELECT * FROM w ORDER BY k",
        "SELECT k, typeof(k), v FROM wi ORDER BY k",
        "SELECT * FROM wc ORDER BY b, a",
        "SELECT k, typeof(k), v, typeof(v) FROM ws ORDER BY k",
        // (Not s: ADD COLUMN renders its CREATE TABLE anew, where SQLite
        // edits the text.)
        "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name <> 's' ORDER BY name",
        // A WITHOUT ROWID table's key is the table: no index of its own
        // in sqlite_schema, though index_list shows it.
        "SELECT type, name, tbl_name FROM sqlite_schema WHERE name <> 'sqlite_sequence' ORDER BY name",
        "SELECT name, origin FROM pragma_index_list('wc')",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("STRICT / WITHOUT ROWID", queries.len(), &mismatches);
}

/// The schema PRAGMAs an ORM or a migration tool reads: table_info,
/// table_xinfo, index_list, index_info, index_xinfo, foreign_key_list
/// (tables of every kind, views, unknown names), and user_version read
/// and written (values of every kind, a rolled-back write, and after
/// reopening the file).
#[test]
fn schema_pragmas_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT 'x', n REAL DEFAULT (datetime('now')), u UNIQUE, c VARCHAR(5) COLLATE NOCASE DEFAULT NULL, d DECIMAL(10, 2) DEFAULT -1, e DEFAULT CURRENT_TIMESTAMP, f BLOB DEFAULT x'01')",
        "CREATE TABLE c(a, b, pid INT REFERENCES p(id) ON DELETE CASCADE, x, y, PRIMARY KEY (b, a), UNIQUE (a, pid), FOREIGN KEY (x, y) REFERENCES c(a, b) ON UPDATE SET NULL, FOREIGN KEY (y) REFERENCES p ON DELETE RESTRICT)",
        "CREATE INDEX ci ON c(b DESC, lower(a)) WHERE a > 0",
        "CREATE INDEX cn ON c(x COLLATE NOCASE, y)",
        "CREATE TABLE w(k TEXT, v INTEGER NOT NULL, PRIMARY KEY (v, k)) WITHOUT ROWID",
        "CREATE VIEW v AS SELECT id, name, n + 1 AS z FROM p",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let mut queries = Vec::new();
    for t in ["p", "c", "w", "v", "nope", "'p'", "main.p"] {
        let (schema, t) = t.split_once('.').map_or(("", t), |(s, t)| (s, t));
        let schema = if schema.is_empty() {
            String::new()
        } else {
            format!("{schema}.")
        };
        for pragma in [
            "table_info",
            "table_xinfo",
            "index_list",
            "foreign_key_list",
        ] {
            queries.push(format!("PRAGMA {schema}{pragma}({t})"));
        }
    }
    for ix in [
        "ci",
        "cn",
        "sqlite_autoindex_c_1",
        "sqlite_autoindex_c_2",
        "sqlite_autoindex_p_1",
        "sqlite_autoindex_w_1",
        "nope",
    ] {
        queries.push(format!("PRAGMA index_info({ix})"));
        queries.push(format!("PRAGMA index_xinfo({ix})"));
    }
    for v in [
        "7",
        "'12'",
        "-3",
        "+4",
        "5.7",
        "'abc'",
        "4294967297",
        "2147483648",
        "' 9x'",
    ] {
        queries.push(format!("PRAGMA user_version = {v}"));
        queries.push("PRAGMA user_version".to_string());
    }
    queries.extend(
        [
            "BEGIN",
            "PRAGMA user_version = 99",
            "PRAGMA user_version",
            "ROLLBACK",
            "PRAGMA user_version",
            "PRAGMA user_version = 42",
        ]
        .map(String::from),
    );
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("schema pragmas", queries.len(), &mismatches);
}

/// Generated columns (VIRTUAL and STORED) as SQLite computes them: from
/// other columns and other generated ones, with their affinity and
/// collation, through INSERT, UPDATE, upserts, REPLACE, foreign key
/// actions, indexes, constraints and ALTER TABLE (ADD, DROP and RENAME
/// COLUMN, the last rewriting CHECK, generated and index expressions), and
/// SQLite's errors for what they refuse.
#[test]
fn generated_columns_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE g(a INT, b AS (a * 2), c TEXT GENERATED ALWAYS AS (b || 'x') STORED, d AS (upper(c)) VIRTUAL, e REAL AS (a), f AS (a) COLLATE NOCASE)",
        "INSERT INTO g VALUES (1)",
        "INSERT INTO g(a) VALUES (3), (NULL), ('7'), ('x')",
        "INSERT INTO g VALUES (1, 2)",
        "INSERT INTO g(a, b) VALUES (1, 2)",
        "INSERT INTO g DEFAULT VALUES",
        "INSERT INTO g SELECT a + 100 FROM g WHERE a < 5",
        "INSERT INTO g SELECT * FROM g",
        "UPDATE g SET a = a + 10 WHERE a = 3",
        "UPDATE g SET b = 1",
        "UPDATE g SET (a, d) = (1, 2)",
        "CREATE TABLE h(id INTEGER PRIMARY KEY, a, b AS (id * 10 + a) STORED, c AS (b + 1), u AS (lower(a)) UNIQUE, n AS (a + 1) NOT NULL, CHECK (c < 1000))",
        "INSERT INTO h(a) VALUES (1), (2)",
        "INSERT INTO h(a) VALUES ('A')",
        "INSERT INTO h(a) VALUES ('a')",
        "INSERT OR IGNORE INTO h(a) VALUES ('a')",
        "INSERT OR REPLACE INTO h(a) VALUES ('a')",
        "INSERT INTO h(a) VALUES (NULL)",
        "INSERT INTO h(a) VALUES (200)",
        "INSERT INTO h(id, a) VALUES (1, 5) ON CONFLICT(id) DO UPDATE SET a = excluded.a + 1",
        "INSERT INTO h(id, a) VALUES (1, 5) ON CONFLICT(id) DO UPDATE SET b = 1",
        "INSERT INTO h(a) VALUES (9) RETURNING id, b, c, u, n",
        "UPDATE h SET a = 30 WHERE id = 2 RETURNING *",
        "UPDATE h SET id = id + 100 WHERE a = 9",
        "CREATE INDEX hc ON h(c)",
        "CREATE INDEX hb ON h(b DESC) WHERE c > 20",
        "UPDATE h SET a = a + 1",
        "DELETE FROM h WHERE c > 500",
        "CREATE TABLE p(k PRIMARY KEY)",
        "CREATE TABLE ch(x REFERENCES p(k) ON UPDATE CASCADE ON DELETE SET NULL, y AS (coalesce(x, 'none')) STORED)",
        "INSERT INTO p VALUES (1), (2)",
        "INSERT INTO ch(x) VALUES (1), (2)",
        "UPDATE p SET k = 10 WHERE k = 1",
        "DELETE FROM p WHERE k = 2",
        "ALTER TABLE g ADD COLUMN z AS (a * 3) STORED",
        "ALTER TABLE g ADD COLUMN z AS (a * 3)",
        "ALTER TABLE g ADD COLUMN nn AS (a) NOT NULL",
        "ALTER TABLE g ADD COLUMN ck AS (a) CHECK (ck < 0)",
        "ALTER TABLE g ADD COLUMN w",
        "INSERT INTO g VALUES (4, 5)",
        "ALTER TABLE g DROP COLUMN a",
        "ALTER TABLE g DROP COLUMN d",
        "ALTER TABLE g DROP COLUMN c",
        "ALTER TABLE g RENAME COLUMN a TO aa",
        "INSERT INTO g(aa) VALUES (8)",
        "CREATE TABLE r(a CHECK (a > 0), b AS (a + 1), CHECK (r.a < 100))",
        "ALTER TABLE r RENAME COLUMN a TO x",
        "INSERT INTO r VALUES (5)",
        "INSERT INTO r VALUES (-5)",
        "INSERT INTO r VALUES (500)",
        "CREATE TABLE ri(a, b)",
        "CREATE INDEX ri1 ON ri(lower(a))",
        "CREATE INDEX ri2 ON ri(b) WHERE ri.a > 0",
        "CREATE UNIQUE INDEX ri3 ON ri(a DESC, b)",
        "INSERT INTO ri VALUES ('A', 1), (-1, 3)",
        "ALTER TABLE ri RENAME COLUMN a TO x",
        "INSERT INTO ri VALUES ('B', 2)",
        "INSERT INTO ri VALUES ('B', 2)",
        "UPDATE ri SET x = 'C' WHERE x = 'B'",
        "CREATE TABLE x1(a, b AS (a) PRIMARY KEY)",
        "CREATE TABLE x2(a, b AS (a), PRIMARY KEY (b))",
        "CREATE TABLE x3(a, b AS (a) DEFAULT 1)",
        "CREATE TABLE x4(a, b AS (rowid))",
        "CREATE TABLE x5(a, b AS (nope))",
        "CREATE TABLE x6(a AS (1))",
        "CREATE TABLE x7(a, b AS (?))",
        "CREATE TABLE x8(a, b AS (random()))",
        "CREATE TABLE x9(a, b AS ((SELECT 1)))",
        "CREATE TABLE x10(a, b AS (count(a)))",
        "CREATE TABLE x11(a, b AS (a), c AS (b))",
        "CREATE TABLE x12(a, b AS (x12.a))",
        "CREATE TABLE x13(a, b AS (main.x13.a))",
        "CREATE TABLE q(a, b, CHECK (q.a < 100))",
        "CREATE INDEX qa ON q(q.a)",
        "CREATE INDEX qb ON q(b) WHERE q.a > 0",
        "CREATE INDEX qc ON q(lower(b), a)",
        "INSERT INTO q VALUES (1, 'X'), (-1, 'Y')",
        "ALTER TABLE q RENAME TO q2",
        "INSERT INTO q2 VALUES (2, 'Z')",
        "INSERT INTO q2 VALUES (200, 'Z')",
        "ALTER TABLE q2 RENAME COLUMN a TO aa",
        "INSERT INTO q2 VALUES (3, 'W')",
        "CREATE TABLE vt(a, b)",
        "CREATE VIEW vv AS SELECT vt.a, b FROM vt",
        "DROP TABLE vt",
        "ALTER TABLE x11 ADD COLUMN d",
        "DROP VIEW vv",
        "ALTER TABLE x11 DROP COLUMN a",
        "ALTER TABLE x11 DROP COLUMN c",
        "ALTER TABLE x11 DROP COLUMN a",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let queries = [
        "SELECT *, typeof(b), typeof(c), typeof(e) FROM g ORDER BY rowid",
        "SELECT count(*) FROM g WHERE f = 'X'",
        "SELECT * FROM h ORDER BY id",
        "SELECT id, c FROM h WHERE c > 20 ORDER BY c",
        "SELECT b FROM h WHERE c > 20 ORDER BY b DESC",
        "SELECT * FROM ch ORDER BY rowid",
        "SELECT * FROM r",
        "SELECT * FROM x11",
        "SELECT * FROM ri WHERE lower(x) = 'c'",
        "SELECT * FROM q2 WHERE b > 'V' AND q2.aa > 0 ORDER BY b",
        "SELECT * FROM q2 WHERE lower(b) = 'z'",
        "SELECT name, tbl_name FROM sqlite_schema WHERE name LIKE 'q%' ORDER BY name",
        "PRAGMA integrity_check",
        "SELECT b FROM ri WHERE b > 0 AND x > 0 ORDER BY b",
        "SELECT * FROM ri ORDER BY x DESC, b",
        "PRAGMA index_xinfo(ri3)",
        "PRAGMA table_info(g)",
        "PRAGMA table_xinfo(g)",
        "PRAGMA table_info(h)",
        "PRAGMA table_xinfo(h)",
        "SELECT * FROM pragma_table_xinfo('ch')",
        "PRAGMA integrity_check",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("generated columns", queries.len(), &mismatches);
}

/// RENAME TO and RENAME COLUMN of a table other tables' foreign keys (and
/// its own) name: the keys follow, so the children's writes are checked
/// against the renamed parent and its actions still run, as in SQLite.
#[test]
fn renames_carry_foreign_keys_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE p(a PRIMARY KEY, up REFERENCES p(a), k UNIQUE)",
        "CREATE TABLE ch(x REFERENCES p(a) ON DELETE CASCADE, y, z, FOREIGN KEY (y) REFERENCES p, FOREIGN KEY (z) REFERENCES p(k) ON UPDATE SET NULL)",
        "ALTER TABLE p ADD COLUMN self2 REFERENCES p(k)",
        "ALTER TABLE ch ADD COLUMN w REFERENCES p(a)",
        "INSERT INTO p VALUES (1, 1, 'a', 'a'), (2, 1, 'b', 'a')",
        "INSERT INTO ch VALUES (1, 2, 'a', 2)",
        "ALTER TABLE p RENAME TO parent",
        "INSERT INTO ch VALUES (2, 1, 'b', 1)",
        "INSERT INTO ch VALUES (3, 1, 'b', 1)",
        "INSERT INTO parent VALUES (3, 9, 'c', 'a')",
        "ALTER TABLE parent RENAME COLUMN a TO id",
        "ALTER TABLE parent RENAME COLUMN k TO code",
        "INSERT INTO ch VALUES (1, 1, 'c', 1)",
        "INSERT INTO ch VALUES (1, 1, 'zz', 1)",
        "INSERT INTO parent VALUES (3, 2, 'c', 'b')",
        "INSERT INTO parent VALUES (4, 2, 'd', 'zz')",
        "UPDATE parent SET code = 'aa' WHERE code = 'a'",
        "UPDATE parent SET code = 'a2' WHERE code = 'c'",
        "DELETE FROM ch WHERE x = 3",
        "DELETE FROM parent WHERE id = 3",
        "DELETE FROM parent WHERE id = 2",
        "ALTER TABLE ch RENAME TO child",
        "INSERT INTO child VALUES (1, 1, NULL, 1)",
        "PRAGMA foreign_key_check",
        "PRAGMA foreign_keys = OFF",
        "INSERT INTO child VALUES (7, 1, 'nope', 8)",
        "INSERT INTO child VALUES (NULL, 9, NULL, NULL)",
        "INSERT INTO parent VALUES (5, 6, 'e', 'nope')",
        "CREATE TABLE orphan(a REFERENCES gone(x), b REFERENCES gone)",
        "INSERT INTO orphan VALUES (1, NULL), (NULL, NULL), (2, 3)",
        "CREATE TABLE wr(k PRIMARY KEY, p REFERENCES parent(id)) WITHOUT ROWID",
        "INSERT INTO wr VALUES ('x', 99), ('y', 1)",
        "PRAGMA foreign_keys = ON",
        "PRAGMA foreign_key_check(nope)",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let queries = [
        "SELECT * FROM parent ORDER BY id",
        "SELECT * FROM child ORDER BY rowid",
        "PRAGMA foreign_key_list(child)",
        "PRAGMA foreign_key_list(parent)",
        "PRAGMA foreign_key_check(child)",
        "PRAGMA foreign_key_check(parent)",
        "PRAGMA foreign_key_check(orphan)",
        "PRAGMA foreign_key_check(wr)",
        "SELECT count(*) FROM (SELECT 1 FROM child)",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("renames and foreign keys", queries.len(), &mismatches);
}

/// AUTOINCREMENT as SQLite keeps it: a new rowid passes every rowid the
/// table ever gave (deleted rows', explicit ones', rolled-back
/// statements' excepted), through every kind of INSERT, failures, rollbacks,
/// RENAME and DROP, and `sqlite_sequence` reads the sequences.
#[test]
fn autoincrement_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let seq = "SELECT name, seq FROM sqlite_sequence ORDER BY name";
    let statements = [
        "CREATE TABLE a(id INTEGER PRIMARY KEY AUTOINCREMENT, x UNIQUE)",
        "CREATE TABLE b(id INTEGER PRIMARY KEY AUTOINCREMENT, x)",
        "CREATE TABLE plain(id INTEGER PRIMARY KEY, x)",
        "INSERT INTO a(x) VALUES (1), (2), (3)",
        "INSERT INTO plain(x) VALUES (1), (2), (3)",
        seq,
        "DELETE FROM a WHERE id = 3",
        "DELETE FROM plain WHERE id = 3",
        "INSERT INTO a(x) VALUES (4) RETURNING id",
        "INSERT INTO plain(x) VALUES (4) RETURNING id",
        "DELETE FROM a",
        "INSERT INTO a(x) VALUES (5) RETURNING id",
        "INSERT INTO a(id, x) VALUES (100, 6)",
        "INSERT INTO a(x) VALUES (7) RETURNING id",
        "INSERT INTO a(id, x) VALUES (50, 8)",
        "INSERT INTO a(id, x) VALUES (-5, 9)",
        "INSERT INTO a(x) VALUES (10) RETURNING id",
        seq,
        "INSERT OR REPLACE INTO a(x) VALUES (10) RETURNING id",
        "INSERT INTO a(x) VALUES (10) ON CONFLICT(x) DO UPDATE SET x = 11 RETURNING id",
        "INSERT OR IGNORE INTO a(x) VALUES (11)",
        "INSERT INTO a(x) VALUES (12), (12)",
        "INSERT OR FAIL INTO a(x) VALUES (13), (14), (13)",
        seq,
        "BEGIN",
        "INSERT INTO a(x) VALUES (20), (21)",
        "INSERT INTO b(x) VALUES (1)",
        seq,
        "ROLLBACK",
        seq,
        "INSERT INTO b SELECT NULL, x FROM a",
        "INSERT INTO b DEFAULT VALUES",
        seq,
        "ALTER TABLE b RENAME TO b2",
        seq,
        "INSERT INTO b2(x) VALUES (99) RETURNING id",
        "DROP TABLE a",
        seq,
        "CREATE TABLE a(id INTEGER PRIMARY KEY AUTOINCREMENT, x)",
        "INSERT INTO a(x) VALUES (1) RETURNING id",
        "SELECT * FROM b2 ORDER BY id",
        seq,
        "UPDATE sqlite_sequence SET seq = 1000 WHERE name = 'b2'",
        "INSERT INTO b2(x) VALUES (1) RETURNING id",
        "DELETE FROM b2",
        "DELETE FROM sqlite_sequence WHERE name = 'b2'",
        "INSERT INTO b2(x) VALUES (1) RETURNING id",
        "UPDATE sqlite_sequence AS s SET seq = s.seq + 10",
        seq,
        "INSERT INTO a(x) VALUES (2) RETURNING id",
        "DELETE FROM sqlite_sequence",
        seq,
        "INSERT INTO a(x) VALUES (3) RETURNING id",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &statements);
    assert_no_mismatches("AUTOINCREMENT", statements.len(), &mismatches);
}

/// The schema PRAGMAs as table-valued functions (`pragma_table_info(t)`
/// and the others): their columns, hidden `arg` and `schema`, rowid,
/// arguments of every type, joined with `sqlite_schema` and each other,
/// correlated, in subqueries, and their errors.
#[test]
fn pragma_functions_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT 'x', u UNIQUE, c VARCHAR(5) COLLATE NOCASE)",
        "CREATE TABLE c(a, b, pid INT REFERENCES p(id) ON DELETE CASCADE, x, y, PRIMARY KEY (b, a), UNIQUE (a, pid), FOREIGN KEY (x, y) REFERENCES c(a, b) ON UPDATE SET NULL)",
        "CREATE INDEX ci ON c(b DESC, lower(a)) WHERE a > 0",
        "CREATE INDEX cn ON c(x COLLATE NOCASE, y)",
        "CREATE TABLE lc(a int, b text, c Real, d integer primary key, e blob, f any, g FlOat, h varchar(3))",
        "CREATE TABLE \"3\"(k)",
        "CREATE VIEW v AS SELECT id, name, a, b AS bee FROM p, lc",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let mut queries = Vec::new();
    for arg in [
        "'p'", "'c'", "'lc'", "'v'", "'P'", "'nope'", "NULL", "3", "'3'", "x'70'",
    ] {
        for f in [
            "table_info",
            "table_xinfo",
            "index_list",
            "foreign_key_list",
        ] {
            queries.push(format!(
                "SELECT *, arg, schema, rowid FROM pragma_{f}({arg})"
            ));
        }
    }
    for ix in [
        "ci",
        "cn",
        "sqlite_autoindex_c_1",
        "sqlite_autoindex_p_1",
        "nope",
    ] {
        queries.push(format!("SELECT *, arg FROM pragma_index_info('{ix}')"));
        queries.push(format!("SELECT * FROM pragma_index_xinfo('{ix}')"));
    }
    queries.extend(
        [
            "SELECT * FROM pragma_table_info('p', 'main')",
            "SELECT *, schema FROM pragma_table_info('p', 'MAIN')",
            "SELECT * FROM pragma_table_info('p', 'temp')",
            "SELECT * FROM pragma_table_info('p', NULL)",
            "SELECT * FROM pragma_table_info('p', 'nope')",
            "SELECT * FROM pragma_table_info('p', 'main', 1)",
            "SELECT * FROM main.pragma_table_info('p')",
            "SELECT * FROM pragma_table_info()",
            "SELECT * FROM pragma_table_info",
            "SELECT * FROM pragma_user_version",
            "SELECT user_version + 1 FROM pragma_user_version()",
            "SELECT * FROM pragma_user_version(1)",
            "SELECT arg FROM pragma_user_version",
            "PRAGMA user_version = 7",
            "SELECT * FROM pragma_user_version",
            "SELECT * FROM pragma_nope",
            "SELECT * FROM pragma_nope('p')",
            "SELECT name, type FROM pragma_table_info('p') WHERE pk = 0 ORDER BY name DESC",
            "SELECT m.name, p.cid, p.name, p.type, p.pk FROM sqlite_schema m JOIN pragma_table_info(m.name) p ORDER BY 1, 2",
            "SELECT m.name, p.name FROM pragma_table_info(m.name) p, sqlite_master m WHERE m.type = 'table' ORDER BY 1, 2",
            "SELECT m.name, i.name, i.origin, ii.seqno, ii.name FROM sqlite_schema m, pragma_index_list(m.name) i, pragma_index_info(i.name) ii WHERE m.type = 'table' ORDER BY 1, 2, 4",
            "SELECT m.name, count(f.id) FROM sqlite_schema m LEFT JOIN pragma_foreign_key_list(m.name) f GROUP BY 1 ORDER BY 1",
            "SELECT name, (SELECT group_concat(name, ',') FROM pragma_table_info(m.name)) FROM sqlite_schema m ORDER BY 1",
            "SELECT name FROM pragma_table_info('p') WHERE name IN (SELECT name FROM pragma_table_info('v')) ORDER BY 1",
            "SELECT a.name, b.name FROM pragma_table_info('p') a JOIN pragma_table_info('c') b ON a.cid = b.cid ORDER BY 1",
            "SELECT * FROM pragma_table_info('p') NATURAL JOIN pragma_table_xinfo('p')",
            "SELECT json_group_array(name) FROM pragma_table_info('lc')",
            "ALTER TABLE p ADD COLUMN added DEFAULT 5",
            "SELECT name, dflt_value FROM pragma_table_info('p') ORDER BY cid",
            "DROP INDEX cn",
            "SELECT name FROM pragma_index_list('c') ORDER BY 1",
        ]
        .map(String::from),
    );
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("pragma functions", queries.len(), &mismatches);
}

/// `table_list`, `database_list`, `encoding`, `page_size` and
/// `synchronous` (the values SQLite's in-memory database shares with
/// TinyJoin's default) as PRAGMAs and table-valued functions, and how
/// SQLite's PRAGMAs read a number (`sqlite3Atoi`: hex, leading zeros,
/// 32-bit range). Rows are compared in any order: SQLite lists
/// `table_list` in its hash table's order.
#[test]
fn table_list_and_database_settings_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT, g AS (id * 2), s AS (name || 'x') STORED)",
        "CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID",
        "CREATE TABLE s(a INT, b TEXT, c ANY) STRICT",
        "CREATE TABLE sw(a INT PRIMARY KEY, b TEXT) STRICT, WITHOUT ROWID",
        "CREATE TABLE \"q\"\"t\"(x UNIQUE)",
        "CREATE TABLE Mixed(a)",
        "CREATE INDEX pn ON p(name)",
        "CREATE VIEW v AS SELECT id, name, g + 1 FROM p",
        "CREATE VIEW vc(x, y, z) AS SELECT 1, 2, 3",
        "CREATE TRIGGER tr AFTER INSERT ON p BEGIN SELECT 1; END",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    // Before anything opens SQLite's temp schema, which `database_list`
    // lists from then on.
    let mut queries: Vec<String> = [
        "PRAGMA database_list",
        "PRAGMA main.database_list",
        "PRAGMA database_list(7)",
        "SELECT * FROM pragma_database_list",
        "SELECT seq, name, file, rowid FROM pragma_database_list()",
        "SELECT * FROM pragma_database_list(1)",
        "PRAGMA table_list",
        "PRAGMA main.table_list",
        "PRAGMA temp.table_list",
        "PRAGMA MAIN.table_list",
        "PRAGMA nope.table_list",
        "PRAGMA table_list(1)",
        "PRAGMA temp.table_list(p)",
        "SELECT * FROM pragma_table_list",
        "SELECT *, arg FROM pragma_table_list()",
        "SELECT *, arg, rowid FROM pragma_table_list('p')",
        "SELECT * FROM pragma_table_list(NULL)",
        "SELECT * FROM pragma_table_list('p', 'main')",
        "SELECT schema FROM pragma_table_list('p')",
        "SELECT name, ncol FROM pragma_table_list WHERE type = 'view'",
        "SELECT name FROM pragma_table_list WHERE wr AND strict",
        "SELECT m.name, l.ncol FROM sqlite_schema m JOIN pragma_table_list(m.name) l",
        "SELECT count(*) FROM pragma_table_list WHERE name NOT LIKE 'sqlite_%'",
        "PRAGMA encoding",
        "PRAGMA main.encoding",
        "PRAGMA encoding = 'UTF-8'",
        "PRAGMA encoding = 'utf8'",
        "PRAGMA encoding",
        "SELECT * FROM pragma_encoding",
        "SELECT encoding || '!' FROM pragma_encoding()",
        "SELECT * FROM pragma_encoding(1)",
        "PRAGMA page_size",
        "PRAGMA main.page_size",
        "PRAGMA page_size = 4096",
        "PRAGMA page_size(4096)",
        "SELECT * FROM pragma_page_size",
        "SELECT * FROM pragma_page_size(1)",
        "PRAGMA synchronous",
        "PRAGMA main.synchronous",
        "PRAGMA synchronous = FULL",
        "PRAGMA synchronous = 2",
        "PRAGMA synchronous = 'full'",
        "PRAGMA synchronous",
        "ALTER TABLE p ADD COLUMN added",
        "ALTER TABLE w RENAME TO w2",
        "DROP VIEW vc",
        "PRAGMA table_list",
        "BEGIN",
        "CREATE TABLE later(a, b, c)",
        "PRAGMA table_list",
        "ROLLBACK",
        "PRAGMA table_list",
    ]
    .map(String::from)
    .to_vec();
    for name in [
        "p",
        "'P'",
        "\"q\"\"t\"",
        "mixed",
        "v",
        "vc",
        "s",
        "sw",
        "pn",
        "tr",
        "gone",
        "sqlite_master",
        "sqlite_schema",
        "sqlite_temp_master",
        "sqlite_sequence",
    ] {
        queries.push(format!("PRAGMA table_list({name})"));
        queries.push(format!("PRAGMA main.table_list({name})"));
        queries.push(
            format!("SELECT *, arg FROM pragma_table_list({name:?})")
                .replace("\"'", "'")
                .replace("'\"", "'"),
        );
    }
    for v in [
        "'0x10'",
        "'0X1f'",
        "'00000000000042'",
        "'0x80000000'",
        "'0x7fffffff'",
        "'0x7fffffff1'",
        "'0x000000007fffffff'",
        "'0x'",
        "'0xg'",
        "'0x10zz'",
        "'-0x10'",
        "-2147483648",
        "'-2147483649'",
        "'+00012'",
        "'12abc'",
        "0x20",
    ] {
        queries.push(format!("PRAGMA user_version = {v}"));
        queries.push("PRAGMA user_version".to_string());
    }
    let mismatches = unordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("table_list and setting pragmas", queries.len(), &mismatches);

    // A view that no longer binds has 0 columns. (Alone: while SQLite
    // counts the columns of views, one that fails can keep it from
    // counting those after it in its hash table, which then show 0.)
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE gone(a, b)",
        "CREATE VIEW broken AS SELECT * FROM gone",
        "DROP TABLE gone",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let queries = ["PRAGMA table_list", "PRAGMA table_list(broken)"];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("table_list of a broken view", queries.len(), &mismatches);
}

/// `PRAGMA optimize` analyzes the tables SQLite 3.46 would, leaving the
/// same `sqlite_stat1`: with its listing bit (0x01) the statements it
/// would run, with 0x10000 every table whose size moved tenfold. No query
/// here reads statistics (SQLite also rechecks the tables whose
/// statistics the connection's queries used, which TinyJoin does not
/// track). Rows are compared in any order (SQLite walks its hash table).
#[test]
fn optimize_analyzes_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE a(x, y)",
        "CREATE INDEX ax ON a(x)",
        "CREATE INDEX axy ON a(x, y)",
        "CREATE TABLE b(x)",
        "CREATE TABLE \"q\"\"t\"(x UNIQUE)",
        "CREATE TABLE part(x, y)",
        "CREATE INDEX part_y ON part(y) WHERE y > 100",
        "CREATE VIEW va AS SELECT * FROM a",
        // Makes SQLite's sqlite_stat1 (TinyJoin's is always there); b is
        // empty, so it gets no statistics.
        "ANALYZE b",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let fill = |table: &str, from: u32, to: u32| {
        format!(
            "WITH RECURSIVE n(i) AS (SELECT {from} UNION ALL SELECT i + 1 FROM n WHERE i < {to}) \
             INSERT INTO {table} SELECT i % 7, i FROM n"
        )
    };
    let stat = "SELECT tbl, idx, stat FROM sqlite_stat1".to_string();
    let mut queries: Vec<String> = Vec::new();
    let step = |queries: &mut Vec<String>, sql: String| {
        for mask in ["1", "0x10003", "65539", "'0x3'", "2", "0"] {
            queries.push(format!("PRAGMA optimize({mask})"));
        }
        queries.push(sql);
        queries.push(stat.clone());
    };
    step(&mut queries, "PRAGMA optimize".into());
    queries.push("INSERT INTO b VALUES (1), (2)".into());
    queries.push("INSERT INTO \"q\"\"t\" VALUES (1)".into());
    queries.push(fill("a", 1, 30));
    queries.push(fill("part", 1, 50));
    step(&mut queries, "PRAGMA optimize".into());
    step(&mut queries, "PRAGMA main.optimize".into());
    queries.push(fill("a", 31, 400));
    step(&mut queries, "PRAGMA optimize(0x10002)".into());
    queries.push("CREATE INDEX bx ON b(x)".into());
    step(&mut queries, "PRAGMA optimize(-1)".into());
    // By rowid: a WHERE on x would plan with ax's statistics, after which
    // SQLite rechecks a's size at every optimize.
    queries.push("DELETE FROM a WHERE rowid > 7".into());
    step(&mut queries, "PRAGMA optimize(0x10002)".into());
    queries.push("DELETE FROM a".into());
    step(&mut queries, "PRAGMA optimize(0x10002)".into());
    queries.extend(
        [
            "BEGIN",
            "INSERT INTO b SELECT x + 2 FROM b",
            "CREATE INDEX by ON b(x, x)",
            "PRAGMA optimize",
            "SELECT tbl, idx, stat FROM sqlite_stat1",
            "ROLLBACK",
            "SELECT tbl, idx, stat FROM sqlite_stat1",
            "PRAGMA temp.optimize(0x10003)",
            "PRAGMA nope.optimize",
        ]
        .map(String::from),
    );
    let mismatches = unordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("optimize steps", queries.len(), &mismatches);
}

/// Foreign keys counted as SQLite counts them: an immediate one checked
/// when its statement ends (a child before its parent in one statement),
/// a deferred one (`DEFERRABLE INITIALLY DEFERRED`, or any under `PRAGMA
/// defer_foreign_keys`) at COMMIT, which fails and leaves the transaction
/// open while a violation stands; savepoints restoring the count; NO
/// ACTION, RESTRICT, CASCADE and SET NULL; self references. Each step's
/// outcome and then every table are compared.
#[test]
fn foreign_keys_counted_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE p(id INTEGER PRIMARY KEY, k TEXT UNIQUE)",
        "CREATE TABLE c(id INTEGER PRIMARY KEY, pid REFERENCES p(id))",
        "CREATE TABLE d(id INTEGER PRIMARY KEY, pid REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED, pk TEXT REFERENCES p(k) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED)",
        "CREATE TABLE r(id INTEGER PRIMARY KEY, pid REFERENCES p(id) ON DELETE RESTRICT)",
        "CREATE TABLE cc(id INTEGER PRIMARY KEY, pid REFERENCES p(id) ON DELETE CASCADE ON UPDATE CASCADE)",
        "CREATE TABLE t(id INTEGER PRIMARY KEY, up REFERENCES t(id))",
        "CREATE TABLE td(id INTEGER PRIMARY KEY, up REFERENCES td(id) DEFERRABLE INITIALLY DEFERRED)",
        "CREATE TABLE nd(id INTEGER PRIMARY KEY, pid REFERENCES p(id) NOT DEFERRABLE INITIALLY DEFERRED)",
    ]
    .map(String::from);
    run_on_both(&mut tj, &lite, &setup);
    let steps: Vec<&str> = vec![
        // Immediate: checked at the statement's end.
        "INSERT INTO t VALUES (2, 1), (1, NULL)",
        "INSERT INTO t VALUES (3, 4), (5, NULL)",
        "INSERT INTO t VALUES (6, 6)",
        "UPDATE t SET up = id + 1 WHERE id = 5",
        "DELETE FROM t WHERE id = 1",
        "DELETE FROM t WHERE id IN (1, 2)",
        "UPDATE t SET id = id + 10",
        "UPDATE t SET id = 20 WHERE id = 6",
        "INSERT INTO c VALUES (1, 1)",
        "INSERT INTO p VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO c VALUES (1, 1), (2, 2)",
        "INSERT INTO c SELECT 10 + id, id + 100 FROM p",
        "INSERT OR IGNORE INTO c VALUES (3, 99)",
        "INSERT OR FAIL INTO c VALUES (4, 1), (5, 99), (6, 2)",
        "UPDATE c SET pid = 3 WHERE id = 1",
        "DELETE FROM p WHERE id = 1",
        "UPDATE p SET id = 5 WHERE id = 2",
        // Deferred: checked at COMMIT.
        "INSERT INTO d VALUES (1, 7, NULL)",
        "BEGIN",
        "INSERT INTO d VALUES (1, 7, NULL)",
        "INSERT INTO d VALUES (2, 8, 'zz')",
        "SELECT * FROM d ORDER BY id",
        "COMMIT",
        "SELECT * FROM d ORDER BY id",
        "INSERT INTO p VALUES (7, 'zz')",
        "COMMIT",
        "DELETE FROM d WHERE id = 2",
        "COMMIT",
        "SELECT * FROM d ORDER BY id",
        "BEGIN",
        "DELETE FROM p WHERE id = 7",
        "COMMIT",
        "INSERT INTO p VALUES (7, 'zz')",
        "COMMIT",
        "BEGIN",
        "SAVEPOINT a",
        "INSERT INTO d VALUES (3, 9, NULL)",
        "SAVEPOINT b",
        "INSERT INTO d VALUES (4, 10, NULL)",
        "ROLLBACK TO b",
        "RELEASE b",
        "COMMIT",
        "ROLLBACK TO a",
        "COMMIT",
        "SAVEPOINT s",
        "INSERT INTO d VALUES (5, 11, NULL)",
        "RELEASE s",
        "SELECT count(*) FROM d",
        "DELETE FROM d WHERE id = 5",
        "RELEASE s",
        // A statement that fails leaves the count as it was.
        "BEGIN",
        "INSERT INTO d VALUES (6, 12, NULL), (6, 13, NULL)",
        "COMMIT",
        "INSERT INTO d VALUES (6, 12, NULL)",
        "INSERT INTO c VALUES (50, 999)",
        "ROLLBACK",
        // Deleting a parent a deferred child references: counted, then resolved.
        "INSERT INTO p VALUES (20, 'x')",
        "INSERT INTO d VALUES (20, 20, 'x')",
        "BEGIN",
        "DELETE FROM p WHERE id = 20",
        "SELECT * FROM d WHERE id = 20",
        "COMMIT",
        "INSERT INTO p VALUES (20, 'y')",
        "COMMIT",
        "SELECT * FROM d WHERE id = 20",
        // RESTRICT refuses at once, deferred pragma or not? Only without it.
        "INSERT INTO r VALUES (1, 20)",
        "DELETE FROM p WHERE id = 20",
        "BEGIN",
        "PRAGMA defer_foreign_keys = ON",
        "PRAGMA defer_foreign_keys",
        "DELETE FROM p WHERE id = 20",
        "INSERT INTO c VALUES (60, 600)",
        "COMMIT",
        "PRAGMA defer_foreign_keys",
        "INSERT INTO p VALUES (20, 'x2'), (600, 'q')",
        "COMMIT",
        "PRAGMA defer_foreign_keys",
        "BEGIN",
        "PRAGMA defer_foreign_keys = 1",
        "INSERT INTO c VALUES (61, 601)",
        "PRAGMA defer_foreign_keys = 0",
        "COMMIT",
        // (Committed without its parent: gone again, since SQLite's count
        // takes such rows away when their parent comes, where TinyJoin's
        // looks only while a violation is outstanding before the parent's
        // old key counts its children.)
        "DELETE FROM c WHERE id = 61",
        "BEGIN",
        "PRAGMA defer_foreign_keys = 1",
        "INSERT INTO c VALUES (62, 602)",
        "ROLLBACK",
        "PRAGMA defer_foreign_keys",
        // CASCADE and self references through the counts.
        "INSERT INTO cc VALUES (1, 600), (2, 600), (3, NULL)",
        "UPDATE p SET id = 601 WHERE id = 600",
        "DELETE FROM p WHERE id = 601",
        "BEGIN",
        "INSERT INTO td VALUES (1, 2)",
        "INSERT INTO td VALUES (2, 3)",
        "COMMIT",
        "UPDATE td SET up = 1 WHERE id = 2",
        "COMMIT",
        "DELETE FROM td WHERE id = 1",
        "DELETE FROM td",
        "INSERT INTO nd VALUES (1, 999)",
        "BEGIN",
        "INSERT INTO nd VALUES (1, 999)",
        "COMMIT",
        // Foreign keys off: nothing counted, and rows written then are not
        // counted when they are later resolved.
        "PRAGMA foreign_keys = OFF",
        "INSERT INTO c VALUES (70, 700)",
        "PRAGMA foreign_keys = ON",
        "INSERT INTO p VALUES (700, 'w')",
        "INSERT INTO c VALUES (71, 701), (72, NULL)",
        "UPDATE c SET id = 73 WHERE id = 70",
        "DELETE FROM p WHERE id = 700",
        "BEGIN",
        "INSERT INTO d VALUES (30, 31, NULL)",
        "INSERT INTO p VALUES (31, 'v')",
        "DELETE FROM p WHERE id = 31",
        "UPDATE d SET pid = NULL WHERE id = 30",
        "COMMIT",
        "DROP TABLE p",
        "BEGIN",
        "PRAGMA defer_foreign_keys = ON",
        "DELETE FROM c",
        "DELETE FROM cc",
        "DROP TABLE p",
        "COMMIT",
        "ROLLBACK",
    ];
    let tables = ["p", "c", "d", "r", "cc", "t", "td", "nd"];
    let mut mismatches = Vec::new();
    let mut compared = 0;
    for (i, step) in steps.iter().enumerate() {
        let step = &format!("[{i}] {step}");
        let sql = steps[i];
        let (x, y) = (tinyjoin_run(&mut tj, sql), sqlite_run(&lite, sql));
        compared += 1;
        if !same_outcome(&x, &y, true, false) {
            mismatches.push(format!("{step}\n  tinyjoin: {x:?}\n  sqlite:   {y:?}"));
        }
        for t in tables {
            let q = format!("SELECT * FROM {t} ORDER BY 1");
            let (x, y) = (tinyjoin_run(&mut tj, &q), sqlite_run(&lite, &q));
            compared += 1;
            if !same_outcome(&x, &y, true, false) {
                mismatches.push(format!(
                    "after {step}: {q}\n  tinyjoin: {x:?}\n  sqlite:   {y:?}"
                ));
            }
        }
        compared += 1;
        if tj.in_transaction() == lite.is_autocommit() {
            mismatches.push(format!(
                "after {step}: in a transaction: tinyjoin {}, sqlite {}",
                tj.in_transaction(),
                !lite.is_autocommit()
            ));
        }
    }
    assert_no_mismatches("foreign key counting steps", compared, &mismatches);
}

/// Random writes to parents and children under immediate and deferred
/// foreign keys (NO ACTION, CASCADE, SET NULL, self references) in and
/// out of transactions and savepoints, with `defer_foreign_keys` on and
/// off: each statement's outcome, whether a transaction is open and every
/// table compared with SQLite's after each. `SQL_VS_SQLITE_SEEDS=a..b`
/// runs other seeds. Of seeds 0..2000, 1542 differs: there TinyJoin's
/// COMMIT refuses, its count above zero, where SQLite's commits (no row
/// lacks its parent in either), after multi-row inserts into the
/// self-referencing table under `defer_foreign_keys`; not yet explained.
#[test]
fn foreign_keys_counted_at_random() {
    let seeds = common::seed_range("SQL_VS_SQLITE_SEEDS").unwrap_or(0..6);
    let mut mismatches = Vec::new();
    let mut compared = 0;
    for seed in seeds {
        let (mut tj, lite) = open_pair();
        let setup = [
            "CREATE TABLE p(id INTEGER PRIMARY KEY, k INT UNIQUE)",
            "CREATE TABLE c(id INTEGER PRIMARY KEY, a REFERENCES p(id), b REFERENCES p(k) DEFERRABLE INITIALLY DEFERRED)",
            "CREATE TABLE x(id INTEGER PRIMARY KEY, a REFERENCES p(id) ON DELETE CASCADE ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED, b REFERENCES p(k) ON DELETE SET NULL)",
            "CREATE TABLE t(id INTEGER PRIMARY KEY, up REFERENCES t(id) DEFERRABLE INITIALLY DEFERRED, up2 REFERENCES t(id))",
        ]
        .map(String::from);
        run_on_both(&mut tj, &lite, &setup);
        let mut rng = SmallRng::seed_from_u64(seed);
        let v = |rng: &mut SmallRng| match rng.gen_range(0..6) {
            0 => "NULL".to_string(),
            _ => rng.gen_range(1..7).to_string(),
        };
        for _ in 0..250 {
            let sql = match rng.gen_range(0..20) {
                0 => "BEGIN".to_string(),
                1 | 2 => "COMMIT".to_string(),
                3 => "ROLLBACK".to_string(),
                4 => "SAVEPOINT s".to_string(),
                5 => "RELEASE s".to_string(),
                6 => "ROLLBACK TO s".to_string(),
                // (Never off inside a transaction: that forgets the
                // violations it deferred, whose rows then commit without
                // parents, and SQLite's count takes such rows away when a
                // parent comes in an order TinyJoin's does not follow.)
                7 => "PRAGMA defer_foreign_keys = ON".to_string(),
                8 => format!("INSERT INTO p VALUES ({}, {})", v(&mut rng), v(&mut rng)),
                9 => format!("DELETE FROM p WHERE id = {}", v(&mut rng)),
                10 => format!(
                    "UPDATE p SET {} = {} WHERE id = {}",
                    common::pick(&mut rng, &["id", "k"]),
                    v(&mut rng),
                    v(&mut rng)
                ),
                11 => format!(
                    "INSERT INTO c VALUES ({}, {}, {}), ({}, {}, {})",
                    v(&mut rng),
                    v(&mut rng),
                    v(&mut rng),
                    v(&mut rng),
                    v(&mut rng),
                    v(&mut rng)
                ),
                12 => format!(
                    "INSERT OR REPLACE INTO x VALUES ({}, {}, {})",
                    v(&mut rng),
                    v(&mut rng),
                    v(&mut rng)
                ),
                13 => format!(
                    "UPDATE {} SET {} = {} WHERE id = {}",
                    common::pick(&mut rng, &["c", "x"]),
                    common::pick(&mut rng, &["a", "b"]),
                    v(&mut rng),
                    v(&mut rng)
                ),
                14 => format!(
                    "DELETE FROM {} WHERE id = {}",
                    common::pick(&mut rng, &["c", "x", "t"]),
                    v(&mut rng)
                ),
                15 => format!(
                    "INSERT INTO t VALUES ({}, {}, {}), ({}, {}, {})",
                    v(&mut rng),
                    v(&mut rng),
                    v(&mut rng),
                    v(&mut rng),
                    v(&mut rng),
                    v(&mut rng)
                ),
                16 => format!(
                    "UPDATE t SET {} = {} WHERE id = {}",
                    common::pick(&mut rng, &["id", "up", "up2"]),
                    v(&mut rng),
                    v(&mut rng)
                ),
                17 => "INSERT INTO p SELECT id + 10, NULL FROM p WHERE id < 3".to_string(),
                18 => format!("DELETE FROM p WHERE id > {}", v(&mut rng)),
                _ => format!("UPDATE p SET id = id + 1 WHERE id > {}", v(&mut rng)),
            };
            let (x, y) = (tinyjoin_run(&mut tj, &sql), sqlite_run(&lite, &sql));
            compared += 1;
            if !same_outcome(&x, &y, true, false) {
                mismatches.push(format!(
                    "seed {seed}: {sql}\n  tinyjoin: {x:?}\n  sqlite:   {y:?}"
                ));
                break;
            }
            if tj.in_transaction() == lite.is_autocommit() {
                mismatches.push(format!(
                    "seed {seed}: after {sql}: in a transaction differs"
                ));
                break;
            }
            let mut same = true;
            for t in ["p", "c", "x", "t"] {
                let q = format!("SELECT * FROM {t} ORDER BY 1");
                let (x, y) = (tinyjoin_run(&mut tj, &q), sqlite_run(&lite, &q));
                compared += 1;
                if !same_outcome(&x, &y, true, false) {
                    mismatches.push(format!(
                        "seed {seed}: after {sql}: {q}\n  tinyjoin: {x:?}\n  sqlite:   {y:?}"
                    ));
                    same = false;
                }
            }
            if !same {
                break;
            }
        }
    }
    assert_no_mismatches("random foreign key steps", compared, &mismatches);
}

/// `changes()`, `total_changes()` and `last_insert_rowid()` after each
/// statement of a session (DML of every kind, DDL, queries, failures,
/// foreign key actions, REPLACE, upserts, RETURNING, rollbacks), and read
/// inside a statement.
#[test]
fn connection_state_functions_as_sqlite() {
    let (mut tj, lite) = open_pair();
    lite.execute_batch("PRAGMA foreign_keys = ON")
        .expect("foreign keys on");
    let probe = "SELECT changes(), total_changes(), last_insert_rowid()";
    let session = [
        "CREATE TABLE p(id INTEGER PRIMARY KEY, v TEXT UNIQUE)",
        "CREATE TABLE c(id INTEGER PRIMARY KEY, p INTEGER REFERENCES p(id) ON DELETE CASCADE, n INTEGER)",
        "INSERT INTO p(v) VALUES ('a'), ('b'), ('c')",
        "INSERT INTO c(p, n) VALUES (1, 1), (1, 2), (2, 3), (3, 4)",
        "SELECT * FROM c",
        "UPDATE c SET n = n + 1 WHERE p = 1",
        "UPDATE c SET n = n WHERE 0",
        "DELETE FROM p WHERE id = 1",
        "INSERT INTO p(v) VALUES ('b')",
        "INSERT OR REPLACE INTO p(id, v) VALUES (10, 'c')",
        "INSERT INTO p(id, v) VALUES (2, 'x') ON CONFLICT(id) DO UPDATE SET v = 'y'",
        "INSERT OR IGNORE INTO p(v) VALUES ('y')",
        "INSERT INTO p(v) VALUES ('d') RETURNING id",
        "CREATE INDEX c_n ON c(n)",
        "BEGIN",
        "INSERT INTO p(v) VALUES ('e'), ('f')",
        "ROLLBACK",
        "INSERT INTO p(id, v) SELECT 100 + id, v || '2' FROM p",
        "DELETE FROM c",
        "INSERT INTO c(p, n) VALUES (2, changes()), (2, last_insert_rowid()), (2, total_changes())",
        "SELECT n FROM c ORDER BY id",
        "DROP TABLE c",
    ];
    for stmt in session {
        let (x, y) = (tinyjoin_run(&mut tj, stmt), sqlite_run(&lite, stmt));
        assert_eq!(x.is_ok(), y.is_ok(), "{stmt}: {x:?} vs {y:?}");
        let mismatches = ordered_mismatches(
            &mut tj,
            &lite,
            &[probe, "SELECT sqlite_version() >= '3.46'"],
        );
        assert_no_mismatches(&format!("after {stmt}"), 2, &mismatches);
    }
}

/// `json_each` / `json_tree` rows are made one at a time, again for each
/// row of the items before (as SQLite's virtual tables are), so documents
/// far larger than the batch limit are read through it; only a RIGHT /
/// FULL join's operand keeps its rows, and those fail with a typed error.
#[test]
fn json_each_streams_documents_larger_than_the_batch_limit() {
    let (mut tj, lite) = open_pair_with(DbOptions {
        batch_limit_bytes: 256 * 1024,
        ..DbOptions::default()
    });
    // Three documents of 8,000 objects (about 200 KB each, one per
    // transaction: the limit bounds a transaction's pages too); their rows
    // together are about 3 MB.
    let mut setup = vec!["CREATE TABLE d(id INTEGER PRIMARY KEY, doc TEXT)".to_string()];
    setup.extend((1..=3).map(|i| {
        format!(
            "INSERT INTO d SELECT {i}, json_group_array(json_object('n', j * {i}, 's', 'item ' || j)) \
             FROM (WITH RECURSIVE e(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM e WHERE j < 8000) SELECT j FROM e)"
        )
    }));
    run_on_both(&mut tj, &lite, &setup);
    let queries = [
        "SELECT count(*), sum(value ->> 'n') FROM d, json_each(d.doc)",
        "SELECT d.id, count(*), max(length(fullkey)) FROM d, json_tree(d.doc) GROUP BY d.id ORDER BY d.id",
        "SELECT count(*) FROM json_each((SELECT doc FROM d WHERE id = 2)) WHERE atom IS NULL",
        "SELECT j.key, j.value ->> 's' FROM d, json_each(d.doc) j WHERE j.value ->> 'n' = 7998 ORDER BY d.id",
        "SELECT count(*) FROM d a, json_each(a.doc, '$[7]') j, d b WHERE b.id = a.id",
    ]
    .map(String::from);
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("json_each over large documents", queries.len(), &mismatches);
    let kept = "SELECT count(*) FROM d RIGHT JOIN json_each((SELECT doc FROM d WHERE id = 1)) j ON j.key = d.id";
    match tj.execute(kept, &Params::None) {
        Err(tinyjoin_engine::Error::BatchLimitExceeded { .. }) => {}
        other => panic!("{kept}: {other:?}"),
    }
}

/// GROUP BY on one value finds most groups by an integer (numbers equal
/// to an integer below 2^53) and the others by their key encoding: the
/// groups, their order and their values must be SQLite's on values of
/// every kind, around that limit and across the two paths (an integer and
/// the equal real are one group; -0.0 is 0). Bare columns come from the
/// row SQLite takes: the group's first, or the row of its min() / max().
#[test]
fn group_by_on_edge_values() {
    let (mut tj, lite) = open_pair();
    let values = [
        "0",
        "-0.0",
        "0.0",
        "1",
        "1.0",
        "'1'",
        "1.5",
        "-3",
        "-3.0",
        "9007199254740991",
        "9007199254740991.0",
        "9007199254740992",
        "9007199254740992.0",
        "9007199254740993",
        "-9007199254740992",
        "-9007199254740992.0",
        "-9007199254740993",
        "9223372036854775807",
        "9.3e18",
        "-9223372036854775808",
        "NULL",
        "'x'",
        "'X'",
        "x'01'",
        "1e300",
    ];
    let mut setup = vec![
        "CREATE TABLE g(id INTEGER PRIMARY KEY, v, n INTEGER, t TEXT COLLATE NOCASE)".to_string(),
    ];
    for (i, v) in values.iter().enumerate() {
        for k in 0..3 {
            let id = i * 3 + k;
            setup.push(format!("INSERT INTO g VALUES ({id}, {v}, {id}, {v})"));
        }
    }
    run_on_both(&mut tj, &lite, &setup);
    let queries = [
        "SELECT v, count(*), sum(n) FROM g GROUP BY v",
        "SELECT count(*), max(n) FROM g GROUP BY v",
        "SELECT v + 0, count(*) FROM g GROUP BY v + 0",
        "SELECT t, count(*), min(n) FROM g GROUP BY t",
        "SELECT n % 4, count(*), sum(n) FROM g GROUP BY n % 4",
        "SELECT v, sum(n) FROM g GROUP BY v HAVING count(*) > 3",
        "SELECT count(*) FROM g GROUP BY v, t",
        "SELECT v, count(*) FROM g WHERE n > 100 GROUP BY v",
        // Bare columns: the group's first row, or the row of its one
        // min() / max().
        "SELECT v, n FROM g GROUP BY v",
        "SELECT typeof(v), v, n FROM g GROUP BY v + 0",
        "SELECT v, n FROM g GROUP BY v HAVING n % 3 = 1",
        "SELECT n, t, count(*) FROM g",
        "SELECT n, count(*) FROM g WHERE id > 30",
        "SELECT v, max(n), n FROM g GROUP BY v",
        "SELECT v, min(-n), n FROM g GROUP BY v",
        "SELECT t, n, sum(n) FROM g GROUP BY t",
    ];
    // Groups come out in key order in both engines, and their values (an
    // integer or a real when both share a group) from the same row.
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("GROUP BY queries", queries.len(), &mismatches);
}

/// Scalar function calls, which are resolved when they are bound: names
/// in any case, an unknown name or a wrong argument count refused, the
/// short-circuit forms (coalesce, ifnull, iif) leaving unneeded arguments
/// unevaluated (an argument that would overflow is never reached), calls
/// with many arguments, `IS [NOT] TRUE`, LIKE and GLOB as operators (with
/// ESCAPE), and lower/upper on text, non-ASCII text, blobs and numbers.
#[test]
fn function_calls_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE f(id INTEGER PRIMARY KEY, t, n, b)".to_string(),
        "INSERT INTO f VALUES (1, 'abc', 1, x'41'), (2, 'ABC', -9223372036854775808, NULL), \
         (3, 'a%c', -9223372036854775808, x'c3'), (4, NULL, 2.5, x''), \
         (5, 'Ünïcode É', 7, 'x'), (6, 'a_b', NULL, 3)"
            .to_string(),
    ];
    run_on_both(&mut tj, &lite, &setup);
    let queries = [
        "SELECT id, LOWER(t), Upper(t), lower(b), upper(n), lower(NULL) FROM f ORDER BY id",
        "SELECT id, coalesce(t, abs(n)) FROM f WHERE t IS NOT NULL ORDER BY id",
        "SELECT id, ifnull(t, 'none'), IFNULL(n, t) FROM f ORDER BY id",
        "SELECT id, iif(id > 1, 'big', abs(n)) FROM f WHERE id > 1 ORDER BY id",
        "SELECT id, iif(n IS NULL, abs(n), 'set') FROM f ORDER BY id",
        "SELECT id, coalesce(NULL, NULL, NULL, NULL, NULL, t, 'end') FROM f ORDER BY id",
        "SELECT char(72, 105, 33, 9786, 65, 66), printf('%d-%s-%d-%s-%d', 1, 'a', 2, 'b', 3), \
         max(1, 2, 3, 4, 5, 6), min(6, 5, 4, 3, 2, 1.5)",
        "SELECT id, substr(t, 2), length(t), replace(t, 'a', 'b'), instr(t, 'b') FROM f ORDER BY id",
        "SELECT id FROM f WHERE (t LIKE 'a%') IS TRUE ORDER BY id",
        "SELECT id FROM f WHERE (t LIKE 'a%') IS NOT TRUE ORDER BY id",
        "SELECT id, t LIKE 'A_c', t GLOB 'a*', t LIKE 'a!%c' ESCAPE '!', t NOT LIKE '%c', \
         t LIKE NULL, NULL GLOB t FROM f ORDER BY id",
        "SELECT id, like('a%', t), glob('*c', t), like('a$_b', t, '$') FROM f ORDER BY id",
        "SELECT typeof(CURRENT_TIMESTAMP), length(CURRENT_DATE), length(current_time)",
        "SELECT no_such_function(1)",
        "SELECT lower(1, 2)",
        "SELECT iif(1, 2)",
        "SELECT coalesce(1)",
        "SELECT id, abs(n) FROM f ORDER BY id",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("function calls", queries.len(), &mismatches);
}

/// LIKE and GLOB on text of one- to four-byte characters: `_` and `?`
/// take one character whatever its length, sets and ranges compare
/// characters, ESCAPE may be any character, and a NUL ends both operands.
#[test]
fn like_and_glob_on_multibyte_text() {
    let (mut tj, lite) = open_pair();
    let strings = [
        "",
        "a",
        "é",
        "aé",
        "éa",
        "日本語",
        "a日b",
        "ab_c",
        "a%c",
        "ÀÉ",
        "àé",
        "x\u{10348}y",
        "É",
        "a\0b",
        "éb",
    ];
    let patterns = [
        "_",
        "__",
        "%",
        "a_",
        "_a",
        "%é%",
        "é_",
        "日_語",
        "a%b",
        "[é-ü]*",
        "*[日]*",
        "?",
        "??",
        "*?",
        "a\\_c",
        "[^a]*",
        "x_y",
        "x?y",
        "%\u{10348}%",
        "é",
        "É",
        "a",
        "a\0c",
        "%_b",
        "*?b",
        "_%a",
        "%_y",
        "*?y",
    ];
    let lit = |s: &str| {
        format!(
            "'{}'",
            s.replace('\'', "''").replace('\0', "' || char(0) || '")
        )
    };
    let mut queries = Vec::new();
    for p in patterns {
        for s in strings {
            let (p, s) = (lit(p), lit(s));
            queries.push(format!(
                "SELECT {s} LIKE {p}, {s} GLOB {p}, {s} LIKE {p} ESCAPE '\\', {s} LIKE {p} ESCAPE 'é'"
            ));
        }
    }
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("LIKE / GLOB pairs", queries.len(), &mismatches);
}

/// Filters a scan decides from the stored rows before decoding them (a
/// column compared with an integer literal or parameter), in the places
/// where skipping a row means different things: a plain scan, a rowid
/// range under a join, and a LEFT JOIN's inner level, whose candidates a
/// WHERE term may not skip (a candidate that fails it still matched, so no
/// NULL row is produced; `IS NOT` is true on that NULL row). The column
/// holds integers, reals, text, NULLs and nothing (rows stored before the
/// column was added), alone or in arithmetic that overflows or divides by
/// zero on some rows; the constant is an integer, a text or a real.
#[test]
fn filters_read_from_stored_rows() {
    let (mut tj, lite) = open_pair();
    let setup = [
        "CREATE TABLE a(id INTEGER PRIMARY KEY, lo INTEGER, hi INTEGER)",
        "INSERT INTO a VALUES (1, 1, 3), (2, 4, 6), (3, 7, 9), (4, 10, 12), (5, 20, 21)",
        "CREATE TABLE b(id INTEGER PRIMARY KEY, w)",
        "INSERT INTO b VALUES (1, 5), (2, 5), (3, 5), (4, 4), (5, 5), (6, 6), (7, -5), (8, 9223372036854775807), (9, NULL)",
        "INSERT INTO b VALUES (10, 5.0), (11, '5'), (12, 'x'), (13, x'05')",
        "ALTER TABLE b ADD COLUMN v INTEGER DEFAULT 5",
        "INSERT INTO b VALUES (14, 6, 4), (15, NULL, 5)",
    ];
    for stmt in setup {
        let (x, y) = (tinyjoin_run(&mut tj, stmt), sqlite_run(&lite, stmt));
        assert!(same_outcome(&x, &y, true, false), "{stmt}: {x:?} vs {y:?}");
    }
    let cmps = ["=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT"];
    let shapes = [
        "SELECT id FROM b WHERE {l} {cmp} {r} ORDER BY id",
        "SELECT id FROM b WHERE id > 2 AND {l} {cmp} {r} ORDER BY id",
        "SELECT a.id, b.id FROM a JOIN b ON b.id BETWEEN a.lo AND a.hi WHERE {l} {cmp} {r} ORDER BY 1, 2",
        "SELECT a.id, b.id FROM a LEFT JOIN b ON b.id BETWEEN a.lo AND a.hi AND {l} {cmp} {r} ORDER BY 1, 2",
        "SELECT a.id, b.id FROM a LEFT JOIN b ON b.id BETWEEN a.lo AND a.hi WHERE {l} {cmp} {r} ORDER BY 1, 2",
    ];
    let constants: [(&str, Option<Value>); 6] = [
        ("5", None),
        ("-5", None),
        ("?", Some(Value::Integer(5))),
        ("?", Some(Value::Integer(i64::MAX))),
        ("?", Some(Value::Text("5".into()))),
        ("?", Some(Value::Real(5.0))),
    ];
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for shape in shapes {
        for column in [
            "b.w",
            "b.v",
            "(b.w % 7)",
            "(b.w + 9223372036854775807)",
            "(b.v / (b.w - 5))",
        ] {
            for cmp in cmps {
                for (constant, param) in &constants {
                    for (l, r) in [(column, *constant), (*constant, column)] {
                        let sql = shape
                            .replace("{l}", l)
                            .replace("{cmp}", cmp)
                            .replace("{r}", r);
                        compared += 1;
                        mismatches.extend(mismatch_with(&mut tj, &lite, &sql, param));
                    }
                }
            }
        }
    }
    assert_no_mismatches("filters", compared, &mismatches);
}

/// The same filters on a table long enough for a scan to try its checks
/// and drop those that reject too few rows (the first 256 rows), with rows
/// after that point that the dropped checks would have rejected, and the
/// reverse: checks kept because the first rows are rejected, then rows
/// they let through.
#[test]
fn filters_read_from_stored_rows_past_the_trial() {
    let (mut tj, lite) = open_pair();
    let mut setup = vec!["CREATE TABLE big(id INTEGER PRIMARY KEY, w, v INTEGER)".to_string()];
    for chunk in (1..=3000).collect::<Vec<i64>>().chunks(500) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|i| {
                let w = if *i <= 300 { 1 } else { i % 10 };
                let v = if *i <= 300 {
                    format!("{}", 100 + i)
                } else if i % 7 == 0 {
                    "'7'".into()
                } else {
                    format!("{}", i % 50)
                };
                format!("({i}, {w}, {v})")
            })
            .collect();
        setup.push(format!("INSERT INTO big VALUES {}", rows.join(", ")));
    }
    run_on_both(&mut tj, &lite, &setup);
    let queries = [
        "SELECT count(*), sum(id) FROM big WHERE w < 5",
        "SELECT count(*), sum(id) FROM big WHERE w = 1",
        "SELECT count(*), sum(id) FROM big WHERE v < 40",
        "SELECT count(*), sum(id) FROM big WHERE v >= 100",
        "SELECT count(*), sum(id) FROM big WHERE w < 5 AND v < 40",
        "SELECT count(*), sum(id) FROM big WHERE (w + v) % 3 = 1",
        "SELECT id FROM big WHERE v = 7 ORDER BY id",
    ];
    let mut mismatches = Vec::new();
    for sql in queries {
        let (x, y) = (tinyjoin_run(&mut tj, sql), sqlite_run(&lite, sql));
        if !same_outcome(&x, &y, true, false) {
            mismatches.push(format!("{sql}\n  tinyjoin: {x:?}\n  sqlite:   {y:?}"));
        }
    }
    assert_no_mismatches("long scans", queries.len(), &mismatches);
}

/// Filters comparing a column with text constants, which a scan decides
/// from the stored bytes when the comparison is bytewise (BINARY collation,
/// no numeric affinity): every declared type's affinity, collations on the
/// column and on the comparison, stored NULLs, numbers, blobs and text in
/// one column, a column added with a default, constants on either side,
/// parameters, BETWEEN, IN and NOT IN lists, LIKE (with ESCAPE, valid or
/// not) and GLOB, in WHERE and in a LEFT JOIN's ON.
#[test]
fn text_filters_read_from_stored_rows() {
    let (mut tj, lite) = open_pair();
    let values = [
        "'a'", "'B'", "'ab'", "'abc'", "''", "'é'", "'5'", "' 5'", "'5.0'", "'x y'", "NULL", "5",
        "5.5", "x'61'", "'b'", "'a%'", "'a!b'",
    ];
    let mut setup = vec![
        "CREATE TABLE a(id INTEGER PRIMARY KEY, lo INTEGER, hi INTEGER)".to_string(),
        "INSERT INTO a VALUES (1, 1, 3), (2, 4, 6), (3, 7, 9), (4, 10, 12), (5, 13, 30)"
            .to_string(),
        "CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT, n NUMERIC, i INTEGER, b BLOB, x, c TEXT COLLATE NOCASE)"
            .to_string(),
    ];
    for (k, v) in values.iter().enumerate() {
        let w = values[(k + 3) % values.len()];
        setup.push(format!(
            "INSERT INTO t VALUES ({}, {v}, {v}, {v}, {v}, {w}, {v})",
            k + 1
        ));
    }
    setup.push("ALTER TABLE t ADD COLUMN d TEXT DEFAULT 'ab'".into());
    setup.push("INSERT INTO t VALUES (100, 'a', 'a', 'a', 'a', 'a', 'a', 'zz'), (101, 'ab', NULL, NULL, NULL, NULL, NULL, NULL)".into());
    run_on_both(&mut tj, &lite, &setup);
    let shapes = [
        "SELECT id FROM t WHERE {f} ORDER BY id",
        "SELECT id FROM t WHERE id > 2 AND {f} ORDER BY id",
        "SELECT a.id, t.id FROM a LEFT JOIN t ON t.id BETWEEN a.lo AND a.hi AND {f} ORDER BY 1, 2",
        "SELECT a.id, t.id FROM a LEFT JOIN t ON t.id BETWEEN a.lo AND a.hi WHERE {f} ORDER BY 1, 2",
    ];
    let columns = ["t.s", "t.n", "t.i", "t.b", "t.x", "t.c", "t.d"];
    let constants: [(&str, Option<Value>); 6] = [
        ("'ab'", None),
        ("'5'", None),
        ("''", None),
        ("'é'", None),
        ("?", Some(Value::Text("a".into()))),
        ("?", Some(Value::Text("5".into()))),
    ];
    let mut filters = Vec::new();
    for column in columns {
        for (constant, param) in &constants {
            for cmp in ["=", "<>", "<", "<=", ">", ">="] {
                filters.push((format!("{column} {cmp} {constant}"), param.clone()));
                filters.push((format!("{constant} {cmp} {column}"), param.clone()));
            }
            filters.push((
                format!("{column} = {constant} COLLATE NOCASE"),
                param.clone(),
            ));
            filters.push((
                format!("{column} IN ({constant}, 'B', 'x y')"),
                param.clone(),
            ));
            filters.push((format!("{column} NOT IN ({constant}, 'b')"), param.clone()));
            filters.push((
                format!("{column} BETWEEN {constant} AND 'b'"),
                param.clone(),
            ));
            filters.push((
                format!("{column} NOT BETWEEN 'B' AND {constant}"),
                param.clone(),
            ));
        }
        filters.push((format!("{column} IN ('a', 5)"), None));
        filters.push((format!("{column} NOT IN ('a', NULL)"), None));
        for pattern in [
            "'a%'",
            "'_b%'",
            "'5'",
            "'%'",
            "'A'",
            "'é'",
            "'a!%' ESCAPE '!'",
            "'a' ESCAPE 'xy'",
            "'a' ESCAPE NULL",
            "NULL",
        ] {
            filters.push((format!("{column} LIKE {pattern}"), None));
            filters.push((format!("{column} NOT LIKE {pattern}"), None));
        }
        for pattern in ["'[a-b]*'", "'a*'", "'A*'", "'?'", "'*5*'"] {
            filters.push((format!("{column} GLOB {pattern}"), None));
            filters.push((format!("{column} NOT GLOB {pattern}"), None));
        }
        filters.push((format!("{column} LIKE ?"), Some(Value::Text("a%".into()))));
        filters.push((format!("{column} GLOB ?"), Some(Value::Text("*b".into()))));
        filters.push((format!("{column} LIKE ?"), Some(Value::Integer(5))));
    }
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for shape in shapes {
        for (f, param) in &filters {
            let sql = shape.replace("{f}", f);
            compared += 1;
            mismatches.extend(mismatch_with(&mut tj, &lite, &sql, param));
        }
    }
    assert_no_mismatches("text filters", compared, &mismatches);
}

/// Text filters on a table long enough for a scan to drop checks that
/// reject too few of its first 256 rows, with rows after that point the
/// dropped checks would have rejected, and the reverse.
#[test]
fn text_filters_read_from_stored_rows_past_the_trial() {
    let (mut tj, lite) = open_pair();
    let mut setup = vec!["CREATE TABLE big(id INTEGER PRIMARY KEY, s TEXT, u)".to_string()];
    for chunk in (1..=3000).collect::<Vec<i64>>().chunks(500) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|i| {
                let s = if *i <= 300 {
                    "'k'".to_string()
                } else {
                    format!("'k{}'", i % 10)
                };
                let u = match i % 5 {
                    0 => "NULL".to_string(),
                    1 => format!("{}", i % 3),
                    _ => format!("'u{}'", i % 3),
                };
                format!("({i}, {s}, {u})")
            })
            .collect();
        setup.push(format!("INSERT INTO big VALUES {}", rows.join(", ")));
    }
    run_on_both(&mut tj, &lite, &setup);
    let queries = [
        "SELECT count(*), sum(id) FROM big WHERE s = 'k'",
        "SELECT count(*), sum(id) FROM big WHERE s <> 'k'",
        "SELECT count(*), sum(id) FROM big WHERE s > 'k5'",
        "SELECT count(*), sum(id) FROM big WHERE s IN ('k1', 'k2')",
        "SELECT count(*), sum(id) FROM big WHERE s = 'k' AND u = 'u1'",
        "SELECT count(*), sum(id) FROM big WHERE u >= 'u1'",
        "SELECT count(*), sum(id) FROM big WHERE u NOT IN ('u0')",
        "SELECT count(*), sum(id) FROM big WHERE s LIKE 'K_'",
        "SELECT count(*), sum(id) FROM big WHERE s NOT GLOB 'k'",
        "SELECT count(*), sum(id) FROM big WHERE s BETWEEN 'k' AND 'k3'",
    ];
    assert_no_mismatches(
        "long text scans",
        queries.len(),
        &ordered_mismatches(&mut tj, &lite, &queries),
    );
}

/// `sql` with the parameter `param` (if any) on both engines: a description
/// of the difference when their outcomes differ (values compared strictly).
fn mismatch_with(
    tj: &mut Connection,
    lite: &rusqlite::Connection,
    sql: &str,
    param: &Option<Value>,
) -> Option<String> {
    let params: Vec<Value> = param.iter().cloned().collect();
    let x = tj
        .execute(sql, &Params::Positional(params.clone()))
        .map(|r| r.rows)
        .map_err(|e| e.to_string());
    let y = sqlite_run_with(lite, sql, &params);
    (!same_outcome(&x, &y, true, false))
        .then(|| format!("{sql} {params:?}\n  tinyjoin: {x:?}\n  sqlite:   {y:?}"))
}

/// ALTER TABLE gives the table its rewritten CREATE TABLE defines (a
/// column added before the table constraints has its CHECK tried first);
/// ADD COLUMN refuses, with SQLite's errors, only what the rows a table
/// already has could not take, and gives them a constant DEFAULT's value.
#[test]
fn altered_tables_are_their_rewritten_definition_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b, CHECK (b > 0))",
        "INSERT INTO t VALUES (1, 5)",
        "ALTER TABLE t ADD COLUMN c INT CHECK (c > 10) DEFAULT 20",
        "INSERT INTO t VALUES (2, -1, 5)",
        "INSERT INTO t VALUES (2, 1, 11)",
        "ALTER TABLE t ADD COLUMN d UNIQUE",
        "ALTER TABLE t ADD COLUMN d PRIMARY KEY",
        "ALTER TABLE t ADD COLUMN d NOT NULL",
        "ALTER TABLE t ADD COLUMN d AS (b + 1) STORED",
        "ALTER TABLE t ADD COLUMN d CHECK (d IN (SELECT 1))",
        "ALTER TABLE t ADD COLUMN d AS (b + 1)",
        "ALTER TABLE t ADD COLUMN b",
        "ALTER TABLE t RENAME COLUMN b TO bb",
        "ALTER TABLE t RENAME COLUMN zz TO y",
        "ALTER TABLE t DROP COLUMN bb",
        "ALTER TABLE t DROP COLUMN a",
        "ALTER TABLE t DROP COLUMN zz",
        "ALTER TABLE t DROP COLUMN c",
        "INSERT INTO t VALUES (3, -3)",
        "INSERT INTO t VALUES (3, 3)",
        "ALTER TABLE t RENAME TO u",
        "CREATE TABLE s(x TEXT) STRICT",
        "ALTER TABLE s ADD COLUMN y FOO",
        "ALTER TABLE s ADD COLUMN y INT DEFAULT 'abc'",
        "ALTER TABLE s ADD COLUMN y INT DEFAULT 3",
        "INSERT INTO s VALUES ('a', 'x')",
        "INSERT INTO s VALUES ('a', '4')",
        "CREATE TABLE k(a)",
        "ALTER TABLE k ADD COLUMN c CHECK (c > 10) DEFAULT 5",
        "INSERT INTO k VALUES (1, 20)",
        "ALTER TABLE k ADD COLUMN d CHECK (d > 10) DEFAULT 5",
        "ALTER TABLE k ADD COLUMN e CHECK (e > 10)",
        "ALTER TABLE k ADD COLUMN f CHECK (f > 10) DEFAULT 11",
        "ALTER TABLE k ADD COLUMN g REFERENCES p(x) DEFAULT 3",
        "ALTER TABLE k ADD COLUMN g REFERENCES p(x) DEFAULT NULL",
        "CREATE TABLE s2(x TEXT) STRICT",
        "INSERT INTO s2 VALUES ('a')",
        "ALTER TABLE s2 ADD COLUMN y INT DEFAULT 'abc'",
        "ALTER TABLE s2 ADD COLUMN y INT DEFAULT '7'",
        "CREATE TABLE e(a)",
        "ALTER TABLE e ADD COLUMN b NOT NULL",
        "ALTER TABLE e ADD COLUMN c AS (a) STORED",
        "ALTER TABLE e ADD COLUMN d REFERENCES p(x) DEFAULT 3",
        "ALTER TABLE e ADD COLUMN f DEFAULT (1 + 2)",
        "ALTER TABLE e ADD COLUMN g INT DEFAULT CURRENT_DATE",
        "CREATE TABLE n(a)",
        "INSERT INTO n VALUES (1)",
        "ALTER TABLE n ADD COLUMN b NOT NULL",
        "ALTER TABLE n ADD COLUMN b NOT NULL DEFAULT NULL",
        "ALTER TABLE n ADD COLUMN b AS (a) STORED",
        "ALTER TABLE n ADD COLUMN b DEFAULT (1 + 2)",
        "ALTER TABLE n ADD COLUMN b DEFAULT ('a' || 'b')",
        "ALTER TABLE n ADD COLUMN b DEFAULT (random())",
        "ALTER TABLE n ADD COLUMN b DEFAULT CURRENT_TIME",
        "ALTER TABLE n ADD COLUMN b AS (a + 1) NOT NULL",
        "ALTER TABLE n ADD COLUMN b AS (NULL) NOT NULL",
        "ALTER TABLE n ADD COLUMN c0 DEFAULT +5",
        "ALTER TABLE n ADD COLUMN c1 DEFAULT (-(1))",
        "ALTER TABLE n ADD COLUMN c2 DEFAULT (+1)",
        "ALTER TABLE n ADD COLUMN c3 DEFAULT (CAST(1 AS TEXT))",
        "ALTER TABLE n ADD COLUMN c4 DEFAULT (-'3')",
        "ALTER TABLE n ADD COLUMN c5 DEFAULT (- -2)",
        "ALTER TABLE n ADD COLUMN c6 DEFAULT -0x10",
        "ALTER TABLE n ADD COLUMN c7 DEFAULT (NULL)",
        "ALTER TABLE n ADD COLUMN c8 REAL DEFAULT (CAST('2.5e1' AS NUMERIC))",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let queries = [
        "SELECT * FROM u ORDER BY a",
        "SELECT * FROM s",
        "SELECT * FROM k",
        "SELECT *, typeof(y) FROM s2",
        "SELECT * FROM e",
        "PRAGMA table_xinfo(e)",
        "SELECT *, typeof(c3), typeof(c8) FROM n",
        "PRAGMA table_xinfo(u)",
        "PRAGMA table_info(s)",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("altered tables", queries.len(), &mismatches);
}

/// CREATE TRIGGER and DROP TRIGGER as SQLite: the checks and messages of
/// their definition, `sqlite_schema`'s rows, and the triggers a DROP TABLE
/// or DROP VIEW takes along. (Firing them is not implemented yet: no
/// statement here writes a table that has one.)
#[test]
fn trigger_definitions_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE x(a, b)",
        "CREATE TABLE log(w, v)",
        "CREATE VIEW v AS SELECT a FROM x",
        "CREATE TRIGGER x AFTER INSERT ON x BEGIN INSERT INTO log VALUES ('i', NEW.a); END",
        "CREATE TRIGGER x AFTER INSERT ON x BEGIN SELECT 1; END",
        "CREATE TRIGGER IF NOT EXISTS x AFTER INSERT ON x BEGIN SELECT 1; END",
        "CREATE TRIGGER t1 BEFORE UPDATE OF a, b ON x FOR EACH ROW WHEN NEW.a > OLD.a BEGIN SELECT RAISE(ABORT, 'no'); UPDATE log SET v = NEW.a WHERE w = 'u'; END",
        "CREATE TRIGGER t2 BEFORE DELETE ON x BEGIN SELECT CASE WHEN OLD.a THEN 1 END; DELETE FROM log WHERE v = OLD.a; END",
        "CREATE TRIGGER t3 AFTER INSERT ON x BEGIN INSERT INTO main.log VALUES (1, 2); END",
        "CREATE TRIGGER t4 AFTER INSERT ON x BEGIN SELECT ?; END",
        "CREATE TRIGGER t5 AFTER INSERT ON nosuch BEGIN SELECT 1; END",
        "CREATE TRIGGER t6 INSTEAD OF INSERT ON x BEGIN SELECT 1; END",
        "CREATE TRIGGER t7 AFTER INSERT ON v BEGIN SELECT 1; END",
        "CREATE TRIGGER t8 BEFORE INSERT ON v BEGIN SELECT 1; END",
        "CREATE TRIGGER sqlite_t AFTER INSERT ON x BEGIN SELECT 1; END",
        "CREATE TRIGGER t9 AFTER INSERT ON x BEGIN INSERT INTO log VALUES (1, 2) RETURNING w; END",
        "CREATE TRIGGER t10 AFTER INSERT ON x BEGIN SELECT 1 END",
        "CREATE TRIGGER t11 AFTER INSERT ON x BEGIN END",
        "CREATE TRIGGER t12 AFTER INSERT ON x BEGIN CREATE TABLE y(a); END",
        "CREATE TRIGGER t13 AFTER DELETE ON log BEGIN SELECT 1; END",
        "SELECT RAISE(IGNORE)",
        "DROP TRIGGER nosuch",
        "DROP TRIGGER IF EXISTS nosuch",
        "DROP TRIGGER t2",
        "DROP TRIGGER t2",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let schema = "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name";
    let queries = [schema];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("trigger definitions", queries.len(), &mismatches);
    // RENAME TO replaces the name after ON, quoted, and keeps the rest.
    let renames = [
        "CREATE TABLE r(a)",
        "CREATE TRIGGER r1 AFTER INSERT ON main . r /* c */ BEGIN SELECT 1; END",
        "CREATE TRIGGER r2 AFTER DELETE ON [r] BEGIN SELECT 2; END",
        "ALTER TABLE r RENAME TO \"we\"\"ird\"",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &renames);
    // (The table's own CREATE TABLE is rendered anew: README.)
    let triggers =
        ["SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name"];
    let mismatches = ordered_mismatches(&mut tj, &lite, &triggers);
    assert_no_mismatches("triggers after RENAME TO", triggers.len(), &mismatches);
    let drops = ["DROP TABLE x", "DROP TABLE log", "DROP TABLE \"we\"\"ird\""];
    run_with_sqlite_errors(&mut tj, &lite, &drops);
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("triggers after DROP TABLE", queries.len(), &mismatches);
}

/// INSERT triggers fire as SQLite's: BEFORE and AFTER, WHEN, NEW (the
/// rowid -1 before it is given), RAISE(IGNORE) skipping the row and
/// RAISE(ABORT) failing the statement, statements reading NEW in
/// subqueries, a trigger firing another but not itself, the outer
/// statement's OR clause overriding the body's, changes() counting the
/// statement's rows only and total_changes() the triggers' too.
#[test]
fn insert_triggers_fire_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, x, y DEFAULT 7, z AS (x || '!'))",
        "CREATE TABLE log(n INTEGER PRIMARY KEY, w, a, b, c)",
        "CREATE TABLE u(k UNIQUE, v)",
        "CREATE TRIGGER b BEFORE INSERT ON t BEGIN INSERT INTO log(w, a, b, c) VALUES ('bi', NEW.rowid, NEW.x, NEW.z); END",
        "CREATE TRIGGER a AFTER INSERT ON t BEGIN INSERT INTO log(w, a, b, c) VALUES ('ai', NEW.id, NEW.y, (SELECT count(*) FROM t WHERE t.x = NEW.x)); END",
        "CREATE TRIGGER g BEFORE INSERT ON t WHEN NEW.x < 0 BEGIN SELECT RAISE(IGNORE); END",
        "CREATE TRIGGER h BEFORE INSERT ON t WHEN NEW.x > 100 BEGIN SELECT RAISE(ABORT, 'too big'); END",
        "CREATE TRIGGER l AFTER INSERT ON log WHEN NEW.w = 'ai' BEGIN INSERT INTO log(w) VALUES ('nested'); END",
        "CREATE TRIGGER self AFTER INSERT ON u BEGIN INSERT INTO u VALUES (NEW.k + 1, 'from trigger'); END",
        "CREATE TRIGGER k AFTER INSERT ON t WHEN NEW.x = 5 BEGIN INSERT INTO u VALUES (1, NEW.x); END",
        "INSERT INTO t(x) VALUES ('5')",
        "INSERT INTO t VALUES (10, 1, 2)",
        "INSERT INTO t(x) VALUES (-1), (3)",
        "INSERT INTO t(x) VALUES (200)",
        "INSERT INTO t(x) VALUES (4), (200), (6)",
        "INSERT INTO u VALUES (1, 'direct')",
        "INSERT OR IGNORE INTO t(x) VALUES (5)",
        "INSERT INTO t(x) VALUES (5)",
        "CREATE TRIGGER bad AFTER INSERT ON log BEGIN SELECT OLD.w; END",
        "INSERT INTO log(w) VALUES ('x')",
        "DROP TRIGGER bad",
        "CREATE TRIGGER bad2 AFTER INSERT ON log BEGIN SELECT nosuch FROM log; END",
        "INSERT INTO log(w) VALUES ('x')",
        "DROP TRIGGER bad2",
        "INSERT INTO log(w) VALUES ('y')",
        "CREATE TRIGGER f BEFORE INSERT ON t WHEN NEW.x = 150 BEGIN SELECT RAISE(FAIL, 'failing'); END",
        "CREATE TRIGGER r AFTER INSERT ON t WHEN NEW.x = 160 BEGIN SELECT RAISE(ROLLBACK, 'rolled back'); END",
        "INSERT INTO t(x) VALUES (7), (150), (8)",
        "BEGIN",
        "INSERT INTO t(x) VALUES (9)",
        "INSERT INTO t(x) VALUES (160)",
        "COMMIT",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let queries = [
        "SELECT * FROM t ORDER BY id",
        "SELECT * FROM log ORDER BY n",
        "SELECT * FROM u ORDER BY k",
        "SELECT changes(), total_changes()",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("insert triggers", queries.len(), &mismatches);
}

/// UPDATE and DELETE triggers fire as SQLite's: OLD and NEW, UPDATE OF
/// firing only for the columns SET names, a BEFORE trigger that deletes or
/// changes the row (the columns SET does not name take what it left),
/// RAISE(IGNORE) keeping the row, audit and cascade-like triggers, an
/// upsert's DO UPDATE firing UPDATE triggers. (A
/// BEFORE UPDATE trigger's NEW of a generated column is left out: SQLite
/// gives NULL or the value depending on the columns SET names; TinyJoin
/// computes it.)
#[test]
fn update_and_delete_triggers_fire_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, x, y, z AS (x + y))",
        "CREATE TABLE log(n INTEGER PRIMARY KEY, w, a, b, c, d)",
        "CREATE INDEX tx ON t(x)",
        "INSERT INTO t(x, y) VALUES (1, 10), (2, 20), (3, 30), (4, 40), (5, 50)",
        "CREATE TRIGGER bu BEFORE UPDATE ON t BEGIN INSERT INTO log(w, a, b, c, d) VALUES ('bu', OLD.id, OLD.x, NEW.x, NEW.y); END",
        "CREATE TRIGGER au AFTER UPDATE OF y ON t BEGIN INSERT INTO log(w, a, b, c, d) VALUES ('au', OLD.y, NEW.y, NEW.z, (SELECT count(*) FROM t WHERE y > NEW.y)); END",
        "CREATE TRIGGER keep BEFORE UPDATE ON t WHEN NEW.x = 99 BEGIN SELECT RAISE(IGNORE); END",
        "CREATE TRIGGER nodel BEFORE DELETE ON t WHEN OLD.x = 3 BEGIN SELECT RAISE(ABORT, 'keep three'); END",
        "CREATE TRIGGER bd BEFORE DELETE ON t BEGIN INSERT INTO log(w, a, b) VALUES ('bd', OLD.id, OLD.z); END",
        "CREATE TRIGGER ad AFTER DELETE ON t BEGIN INSERT INTO log(w, a, b) VALUES ('ad', OLD.id, (SELECT count(*) FROM t)); END",
        "UPDATE t SET x = x * 10",
        "UPDATE t SET y = y + 1 WHERE id <= 2",
        "UPDATE t SET x = 99 WHERE id = 1",
        "UPDATE t SET x = 98 WHERE id = 1",
        "DELETE FROM t WHERE id = 3",
        "DELETE FROM t WHERE id = 2",
        "CREATE TRIGGER gone BEFORE UPDATE ON t WHEN OLD.id = 4 BEGIN DELETE FROM t WHERE id = 4; END",
        "CREATE TRIGGER other BEFORE UPDATE OF x ON t WHEN OLD.id = 5 BEGIN UPDATE t SET y = 777 WHERE id = 5; END",
        "UPDATE t SET x = 1000 WHERE id >= 4",
        "DELETE FROM t",
        "DELETE FROM t WHERE x = 30",
        "DROP TRIGGER nodel",
        "DELETE FROM t",
        "CREATE TABLE kv(k PRIMARY KEY, v, hits DEFAULT 0)",
        "CREATE TRIGGER kvu BEFORE UPDATE OF v ON kv BEGIN INSERT INTO log(w, a, b, c) VALUES ('kvu', OLD.k, OLD.v, NEW.v); END",
        "CREATE TRIGGER kva AFTER UPDATE ON kv BEGIN UPDATE kv SET hits = hits + 1 WHERE k = NEW.k; END",
        "CREATE TRIGGER kvi AFTER INSERT ON kv BEGIN INSERT INTO log(w, a) VALUES ('kvi', NEW.k); END",
        "INSERT INTO kv VALUES ('a', 1, 0), ('b', 2, 0)",
        "INSERT INTO kv VALUES ('a', 10, 0) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
        "INSERT INTO kv VALUES ('b', 20, 0) ON CONFLICT DO UPDATE SET hits = 5",
        "INSERT INTO kv VALUES ('c', 30, 0) ON CONFLICT DO UPDATE SET v = excluded.v",
        "CREATE TRIGGER kvx BEFORE UPDATE ON kv WHEN NEW.v = 0 BEGIN SELECT RAISE(IGNORE); END",
        "INSERT INTO kv VALUES ('a', 0, 0) ON CONFLICT DO UPDATE SET v = excluded.v",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let queries = [
        "SELECT * FROM t ORDER BY id",
        "SELECT * FROM log ORDER BY n",
        "SELECT * FROM kv ORDER BY k",
        "SELECT changes(), total_changes()",
        "PRAGMA integrity_check",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("update and delete triggers", queries.len(), &mismatches);
}

/// changes() and total_changes() after a statement a constraint stopped:
/// FAIL keeps the rows before the failing one, and they count; ABORT and
/// ROLLBACK count none.
#[test]
fn changes_after_a_stopped_statement_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE p(a UNIQUE, b)",
        "INSERT INTO p VALUES (0, 0)",
        "INSERT OR FAIL INTO p VALUES (1, 1), (2, 2), (1, 3)",
        "SELECT changes(), total_changes()",
        "INSERT INTO p VALUES (5, 5), (6, 6), (5, 7)",
        "SELECT changes(), total_changes()",
        "UPDATE OR FAIL p SET a = 10 WHERE a >= 1",
        "SELECT changes(), total_changes()",
        "BEGIN",
        "INSERT OR ROLLBACK INTO p VALUES (7, 7), (7, 8)",
        "SELECT changes(), total_changes()",
    ];
    let queries: Vec<String> = statements.iter().map(|s| s.to_string()).collect();
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches(
        "changes after stopped statements",
        queries.len(),
        &mismatches,
    );
}

/// Foreign key actions fire the child table's triggers, as SQLite's:
/// CASCADE's deletes its DELETE triggers, CASCADE's and SET NULL's updates
/// its UPDATE triggers (those naming a key column), and a BEFORE trigger
/// may skip the child row's change.
#[test]
fn foreign_key_actions_fire_child_triggers_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE p(id INTEGER PRIMARY KEY, name UNIQUE)",
        "CREATE TABLE c(id INTEGER PRIMARY KEY, pid REFERENCES p(id) ON DELETE CASCADE ON UPDATE CASCADE, pname REFERENCES p(name) ON DELETE SET NULL ON UPDATE SET NULL, note)",
        "CREATE TABLE log(n INTEGER PRIMARY KEY, w, a, b, c)",
        "INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO c VALUES (10, 1, 'a', 'x'), (11, 1, 'b', 'y'), (12, 2, 'c', 'keep'), (13, 3, 'c', 'z')",
        "CREATE TRIGGER cbd BEFORE DELETE ON c BEGIN INSERT INTO log(w, a, b) VALUES ('cbd', OLD.id, OLD.pid); END",
        "CREATE TRIGGER cad AFTER DELETE ON c BEGIN INSERT INTO log(w, a, b) VALUES ('cad', OLD.id, (SELECT count(*) FROM c)); END",
        "CREATE TRIGGER cup AFTER UPDATE OF pname ON c BEGIN INSERT INTO log(w, a, b, c) VALUES ('cup', OLD.id, OLD.pname, NEW.pname); END",
        "CREATE TRIGGER cpid AFTER UPDATE OF pid ON c BEGIN INSERT INTO log(w, a, b, c) VALUES ('cpid', OLD.id, OLD.pid, NEW.pid); END",
        "CREATE TRIGGER other AFTER UPDATE OF note ON c BEGIN INSERT INTO log(w) VALUES ('never'); END",
        "CREATE TRIGGER skip BEFORE DELETE ON c WHEN OLD.note = 'keep' BEGIN SELECT RAISE(IGNORE); END",
        "DELETE FROM p WHERE id = 1",
        "UPDATE p SET id = 20 WHERE id = 3",
        "UPDATE p SET name = 'cc' WHERE id = 20",
        "DELETE FROM p WHERE id = 2",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let queries = [
        "SELECT * FROM p ORDER BY id",
        "SELECT * FROM c ORDER BY id",
        "SELECT * FROM log ORDER BY n",
        "SELECT changes(), total_changes()",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("foreign key actions' triggers", queries.len(), &mismatches);
}

/// Views written through INSTEAD OF triggers as SQLite's: INSERT (with
/// and without a column list, VALUES, SELECT, DEFAULT VALUES), UPDATE
/// (OF lists, multi-column SET, FROM), DELETE, WHEN, RETURNING, OR
/// clauses, RAISE, changes() counting nothing and total_changes() the
/// triggers' rows; refusals and their messages (a view without such a
/// trigger, an upsert, a BEFORE trigger on a view, INSTEAD OF on a table);
/// a trigger's statement failing under FAIL stopping its outer statement
/// (a view's or a table's) as FAIL does.
#[test]
fn views_written_through_instead_of_triggers_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b)",
        "CREATE TABLE log(n INTEGER PRIMARY KEY, x)",
        "CREATE VIEW v AS SELECT a, b, a * 2 AS c FROM t",
        "CREATE TRIGGER bad BEFORE INSERT ON v BEGIN SELECT 1; END",
        "CREATE TRIGGER bad2 INSTEAD OF INSERT ON t BEGIN SELECT 1; END",
        "INSERT INTO v VALUES (1, 'x', 99)",
        "CREATE TRIGGER vi INSTEAD OF INSERT ON v BEGIN INSERT INTO t VALUES (new.a, new.b); INSERT INTO log(x) VALUES ('i ' || quote(new.a) || ' ' || quote(new.b) || ' ' || quote(new.c)); END",
        "INSERT INTO v VALUES (1, 'x', 99)",
        "SELECT changes(), total_changes()",
        "INSERT INTO v(b) VALUES ('y'), ('z')",
        "INSERT INTO v(b, a) SELECT 'w', 10",
        "INSERT INTO v DEFAULT VALUES",
        "INSERT INTO v VALUES (1, 2)",
        "INSERT INTO v(a, q) VALUES (1, 2)",
        "INSERT INTO v VALUES (1, 2, 3) ON CONFLICT DO NOTHING",
        "INSERT INTO v VALUES (1, 2, 3)",
        "INSERT INTO v VALUES (20, 'r', 0), (21, 's', 0) RETURNING *, c + 1",
        "CREATE TRIGGER vu INSTEAD OF UPDATE OF b ON v BEGIN UPDATE t SET b = new.b WHERE a = old.a; INSERT INTO log(x) VALUES ('u ' || old.a || ' ' || quote(old.b) || '->' || quote(new.b) || ' c ' || quote(new.c)); END",
        "UPDATE v SET b = 'B' WHERE a > 1 AND a < 20",
        "SELECT changes()",
        "UPDATE v SET c = 5",
        "UPDATE v SET zz = 1",
        "UPDATE v SET (b, c) = ('P', 7) WHERE a = 1",
        "UPDATE v SET b = b || '!' WHERE a >= 20 RETURNING a, b, c",
        "CREATE TRIGGER vd INSTEAD OF DELETE ON v WHEN old.a < 3 BEGIN DELETE FROM t WHERE a = old.a; END",
        "DELETE FROM v WHERE b = 'B' RETURNING *",
        "SELECT changes()",
        "CREATE TRIGGER vi2 INSTEAD OF INSERT ON v WHEN new.a > 1000 BEGIN INSERT INTO log(x) VALUES ('big'); END",
        "INSERT INTO v VALUES (2000, 'k', 0)",
        "CREATE TRIGGER vu2 INSTEAD OF UPDATE ON v BEGIN SELECT RAISE(ABORT, 'no updates of c') WHERE new.c IS NOT old.c; END",
        "UPDATE v SET c = 1 WHERE a = 10",
        "UPDATE v SET b = 'again' WHERE a = 10",
        "CREATE TABLE u(k UNIQUE)",
        "CREATE VIEW uv AS SELECT k FROM u",
        "CREATE TRIGGER ui INSTEAD OF INSERT ON uv BEGIN INSERT INTO u VALUES (new.k); END",
        "INSERT INTO u VALUES (2)",
        "INSERT OR IGNORE INTO uv VALUES (1), (2), (3)",
        "INSERT INTO uv VALUES (4), (2), (5)",
        "BEGIN",
        "INSERT OR FAIL INTO uv VALUES (6), (2), (7)",
        "COMMIT",
        "SELECT changes(), total_changes()",
        "DROP VIEW uv",
        "SELECT name FROM sqlite_schema WHERE type = 'trigger' ORDER BY name",
        // A trigger's statement failing under FAIL (its own clause or the
        // outer one overriding it) stops the outer statement as FAIL does.
        "CREATE TABLE s(k)",
        "CREATE TRIGGER si AFTER INSERT ON s BEGIN INSERT INTO u VALUES (new.k); END",
        "INSERT OR FAIL INTO s VALUES (16), (2), (17)",
        "SELECT changes(), total_changes()",
        "CREATE TABLE w(k)",
        "CREATE TRIGGER wi AFTER INSERT ON w BEGIN INSERT OR FAIL INTO u VALUES (new.k); END",
        "INSERT INTO w VALUES (18), (2), (19)",
        "SELECT changes(), total_changes()",
        "CREATE TABLE d(k)",
        "INSERT INTO d VALUES (30), (2), (31), (32), (33)",
        "CREATE TRIGGER dd AFTER DELETE ON d BEGIN INSERT OR FAIL INTO u VALUES (old.k); END",
        "DELETE FROM d WHERE k < 32",
        "SELECT changes(), total_changes()",
        "CREATE TRIGGER de BEFORE DELETE ON d WHEN old.k = 33 BEGIN SELECT RAISE(FAIL, 'not 33'); END",
        "DELETE FROM d WHERE k > 31",
        "SELECT changes(), total_changes()",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let queries = [
        "SELECT * FROM t ORDER BY a",
        "SELECT * FROM log ORDER BY n",
        "SELECT * FROM u ORDER BY k",
        "SELECT * FROM s ORDER BY rowid",
        "SELECT * FROM w ORDER BY rowid",
        "SELECT * FROM d ORDER BY rowid",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("writable views", queries.len(), &mismatches);
}

/// `PRAGMA recursive_triggers` as SQLite's: OFF by default (a trigger does
/// not fire inside itself), ON letting self and mutual recursion run to
/// their WHEN, an endless one failing with SQLite's message and undoing
/// its statement (in a transaction SQLite keeps the failed statement's
/// rows: not compared); with it ON, REPLACE firing the DELETE triggers of the
/// rows it deletes (INSERT, REPLACE, UPDATE OR REPLACE, the rowid's
/// conflict and a UNIQUE index's), a row those triggers write back that
/// conflicts failing the statement, and a trigger changing the row an
/// UPDATE OR REPLACE is updating failing it as SQLite's
/// SQLITE_CONSTRAINT_PINNED does (its indexes kept whole when the rowid
/// moves). Not compared after those: total_changes(), which counts the
/// trigger's statement that SQLite fails instead.
#[test]
fn recursive_triggers_and_replace_firing_delete_triggers_as_sqlite() {
    let (mut tj, lite) = open_pair();
    let statements = [
        "CREATE TABLE t(x)",
        "CREATE TRIGGER up AFTER INSERT ON t WHEN NEW.x < 40 BEGIN INSERT INTO t VALUES (NEW.x + 1); END",
        "INSERT INTO t VALUES (1)",
        "PRAGMA recursive_triggers = ON",
        "INSERT INTO t VALUES (10)",
        "CREATE TABLE a(n)",
        "CREATE TABLE b(n)",
        "CREATE TRIGGER ab AFTER INSERT ON a WHEN NEW.n > 0 BEGIN INSERT INTO b VALUES (NEW.n - 1); END",
        "CREATE TRIGGER ba BEFORE INSERT ON b WHEN NEW.n > 0 BEGIN INSERT INTO a VALUES (NEW.n - 1); END",
        "INSERT INTO a VALUES (20)",
        "CREATE TABLE c(id INTEGER PRIMARY KEY, v, hits DEFAULT 0)",
        "CREATE TRIGGER cu AFTER UPDATE OF v ON c WHEN NEW.v < 30 BEGIN UPDATE c SET v = NEW.v + 1, hits = hits + 1 WHERE id = NEW.id; END",
        "INSERT INTO c(id, v) VALUES (1, 0), (2, 25), (3, 40)",
        "UPDATE c SET v = v + 1",
        "CREATE TRIGGER forever AFTER INSERT ON a WHEN NEW.n = -5 BEGIN INSERT INTO a VALUES (-5); END",
        "INSERT INTO a VALUES (-5)",
        "CREATE TABLE tl(y)",
        "CREATE TABLE tm(z)",
        "CREATE TRIGGER ttl AFTER INSERT ON c WHEN NEW.v = 99 BEGIN INSERT INTO tl VALUES (1); INSERT INTO tl VALUES (5); END",
        "CREATE TRIGGER tlm AFTER INSERT ON tl WHEN NEW.y = 5 BEGIN INSERT INTO tm VALUES (1); SELECT RAISE(ABORT, 'no'); END",
        "INSERT INTO c(v) VALUES (99)",
        "SELECT changes(), total_changes()",
        "CREATE TABLE r(k INTEGER PRIMARY KEY, u UNIQUE, v)",
        "CREATE INDEX rv ON r(v)",
        "CREATE TABLE rlog(i INTEGER PRIMARY KEY, w, k, u, v)",
        "CREATE TRIGGER rbd BEFORE DELETE ON r BEGIN INSERT INTO rlog(w, k, u, v) VALUES ('bd', OLD.k, OLD.u, OLD.v); END",
        "CREATE TRIGGER rad AFTER DELETE ON r BEGIN INSERT INTO rlog(w, k, u, v) VALUES ('ad', OLD.k, OLD.u, OLD.v); END",
        "INSERT INTO r VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
        "INSERT OR REPLACE INTO r VALUES (1, 'b', 10)",
        "REPLACE INTO r VALUES (4, 'c', 11)",
        "UPDATE OR REPLACE r SET u = 'b' WHERE k = 4",
        "PRAGMA recursive_triggers = OFF",
        "INSERT OR REPLACE INTO r VALUES (5, 'b', 12)",
        "PRAGMA recursive_triggers = ON",
        "CREATE TABLE q(k INTEGER PRIMARY KEY, u UNIQUE)",
        "CREATE TRIGGER qd AFTER DELETE ON q WHEN OLD.k < 100 BEGIN INSERT INTO q VALUES (OLD.k + 100, OLD.u); END",
        "INSERT INTO q VALUES (1, 'x'), (2, 'y')",
        "INSERT OR REPLACE INTO q VALUES (3, 'x')",
        "INSERT OR REPLACE INTO q VALUES (2, 'z')",
        "SELECT changes(), total_changes()",
        "CREATE TABLE z(k INTEGER PRIMARY KEY, u UNIQUE, v)",
        "CREATE INDEX zv ON z(v)",
        "CREATE TABLE zo(x)",
        "CREATE TRIGGER zd BEFORE DELETE ON z WHEN OLD.k = 1 BEGIN UPDATE z SET v = 'touched' WHERE k = 2; END",
        "INSERT INTO z VALUES (1, 'a', 0), (2, 'b', 0), (3, 'c', 0), (5, 'e', 0), (6, 'f', 0)",
        "UPDATE OR REPLACE z SET u = 'a' WHERE k = 2",
        "UPDATE OR REPLACE z SET k = 1 WHERE k = 2",
        "CREATE TRIGGER zg AFTER DELETE ON z WHEN OLD.k = 3 BEGIN DELETE FROM z WHERE k = 5; INSERT INTO zo VALUES (OLD.k); END",
        "UPDATE OR REPLACE z SET u = 'c' WHERE k = 5",
        "UPDATE OR REPLACE z SET k = 3 WHERE k = 5",
        "CREATE TRIGGER zh BEFORE DELETE ON z WHEN OLD.k = 1 BEGIN INSERT INTO zo VALUES (OLD.u); END",
        "UPDATE OR REPLACE z SET u = 'b' WHERE k = 6",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let queries = [
        "PRAGMA recursive_triggers",
        "SELECT x FROM t ORDER BY rowid",
        "SELECT 'a', n FROM a UNION ALL SELECT 'b', n FROM b",
        "SELECT * FROM c ORDER BY id",
        "SELECT * FROM r ORDER BY k",
        "SELECT * FROM rlog ORDER BY i",
        "SELECT * FROM q ORDER BY k",
        "SELECT * FROM z ORDER BY k",
        "SELECT k FROM z WHERE v = 'touched'",
        "SELECT * FROM zo ORDER BY rowid",
        "SELECT k FROM z WHERE v = 0 ORDER BY k",
        "SELECT k FROM r WHERE v > 5 ORDER BY v",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("recursive triggers", queries.len(), &mismatches);
    let check = tinyjoin_run(&mut tj, "PRAGMA integrity_check");
    assert!(format!("{check:?}").contains("ok"), "{check:?}");
}

/// Nesting past what the stack holds (a CASCADE down a chain of 100,000
/// rows, a recursive trigger 100,000 deep) fails as SQLite's, "too many
/// levels of trigger recursion", and undoes the statement, instead of
/// overflowing the stack (it aborted the process before); 150 levels of
/// each work. (SQLite stops at 1000 levels; TinyJoin where the stack
/// bound comes first, which in this unoptimised build is between.)
#[test]
fn deep_cascades_and_recursion_fail_with_sqlites_error() {
    let (mut tj, lite) = open_pair();
    let chain = |n: u32| {
        format!(
            "WITH RECURSIVE c(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM c WHERE i < {n}) \
             INSERT INTO n SELECT i, i - 1 FROM c"
        )
    };
    let (short, long) = (chain(150), chain(100_000));
    let statements = [
        "CREATE TABLE n(id INTEGER PRIMARY KEY, p INTEGER REFERENCES n(id) ON DELETE CASCADE)",
        "CREATE INDEX n_p ON n(p)",
        "INSERT INTO n VALUES (1, NULL)",
        short.as_str(),
        "DELETE FROM n WHERE id = 1",
        "INSERT INTO n VALUES (1, NULL)",
        long.as_str(),
        "DELETE FROM n WHERE id = 1",
        "DELETE FROM n WHERE id = 99851",
        "CREATE TABLE t(x)",
        "PRAGMA recursive_triggers = ON",
        "CREATE TRIGGER up AFTER INSERT ON t WHEN NEW.x < 150 BEGIN INSERT INTO t VALUES (NEW.x + 1); END",
        "INSERT INTO t VALUES (1)",
        "DROP TRIGGER up",
        "CREATE TRIGGER up AFTER INSERT ON t WHEN NEW.x < 100000 BEGIN INSERT INTO t VALUES (NEW.x + 1); END",
        "INSERT INTO t VALUES (1000)",
    ];
    run_with_sqlite_errors(&mut tj, &lite, &statements);
    let queries = [
        "SELECT count(*), min(id), max(id) FROM n",
        "SELECT count(*), min(x), max(x) FROM t",
    ];
    let mismatches = ordered_mismatches(&mut tj, &lite, &queries);
    assert_no_mismatches("deep nesting", queries.len(), &mismatches);
}

/// Runs each statement on both engines: the outcomes must match, and an
/// error must say what SQLite's says.
/// A string or blob longer than SQLite's SQLITE_MAX_LENGTH (10^9 bytes)
/// fails as in SQLite, "string or blob too big", whichever expression
/// makes it: `||` (TinyJoin built the whole result before), hex, quote,
/// concat, concat_ws, group_concat, zeroblob and randomblob; shorter
/// results of the same expressions are unchanged. (The operands here are
/// zeroblobs, which cost no memory until they are read.)
#[test]
fn results_past_sqlites_length_limit_fail_as_sqlite() {
    let (mut tj, lite) = open_pair();
    run_with_sqlite_errors(
        &mut tj,
        &lite,
        &[
            "SELECT length(zeroblob(600000000) || zeroblob(600000000))",
            "SELECT length(hex(zeroblob(500000001)))",
            "SELECT length(quote(zeroblob(500000000)))",
            "SELECT length(concat(zeroblob(600000000), 'x', zeroblob(500000000)))",
            "SELECT length(concat_ws('-', zeroblob(600000000), zeroblob(500000000)))",
            "SELECT length(group_concat(zeroblob(600000000), 'x')) FROM (VALUES (1), (2))",
            "SELECT length(zeroblob(1000000001))",
            "SELECT length(randomblob(1000000001))",
            "SELECT length(zeroblob(6) || 'abc'), hex(x'0102') || 'z', quote(x'ff')",
            "SELECT concat('a', 1, x'62'), concat_ws('-', 'a', '', NULL, 2)",
            "SELECT group_concat(v, '') FROM (VALUES ('a'), ('b'))",
        ],
    );
}

fn run_with_sqlite_errors(tj: &mut Connection, lite: &rusqlite::Connection, stmts: &[&str]) {
    for &stmt in stmts {
        let (x, y) = (tinyjoin_run(tj, stmt), sqlite_run(lite, stmt));
        assert!(
            same_outcome(&x, &y, true, false),
            "{stmt}:\n  tinyjoin: {x:?}\n  sqlite:   {y:?}"
        );
        if let (Err(a), Err(b)) = (&x, &y) {
            // (rusqlite adds " in <statement> at offset N" to some.)
            let b = b
                .find(&format!(" in {stmt}"))
                .map_or(b.as_str(), |i| &b[..i]);
            assert!(a.contains(b), "{stmt}:\n  tinyjoin: {a}\n  sqlite:   {b}");
        }
    }
}

fn run_on_both(tj: &mut Connection, lite: &rusqlite::Connection, stmts: &[String]) {
    for stmt in stmts {
        let (x, y) = (tinyjoin_run(tj, stmt), sqlite_run(lite, stmt));
        assert!(same_outcome(&x, &y, true, false), "{stmt}: {x:?} vs {y:?}");
    }
}

/// Runs each query on both engines and lists those whose rows differ
/// (compared in order, values strictly).
fn ordered_mismatches(
    tj: &mut Connection,
    lite: &rusqlite::Connection,
    queries: &[impl AsRef<str>],
) -> Vec<String> {
    let mut mismatches = Vec::new();
    for sql in queries {
        let sql = sql.as_ref();
        let (x, y) = (tinyjoin_run(tj, sql), sqlite_run(lite, sql));
        if !same_outcome(&x, &y, true, false) {
            mismatches.push(format!("{sql}\n  tinyjoin: {x:?}\n  sqlite:   {y:?}"));
        }
    }
    mismatches
}

/// As [`ordered_mismatches`], rows compared in any order.
fn unordered_mismatches(
    tj: &mut Connection,
    lite: &rusqlite::Connection,
    queries: &[impl AsRef<str>],
) -> Vec<String> {
    let mut mismatches = Vec::new();
    for sql in queries {
        let sql = sql.as_ref();
        let (x, y) = (tinyjoin_run(tj, sql), sqlite_run(lite, sql));
        if !same_outcome(&x, &y, false, false) {
            mismatches.push(format!("{sql}\n  tinyjoin: {x:?}\n  sqlite:   {y:?}"));
        }
    }
    mismatches
}

fn sqlite_run_with(conn: &rusqlite::Connection, sql: &str, params: &[Value]) -> Outcome {
    let mut stmt = conn.prepare(sql).map_err(|e| e.to_string())?;
    let n = stmt.column_count();
    let values: Vec<rusqlite::types::Value> = params
        .iter()
        .map(|v| match v {
            Value::Null => rusqlite::types::Value::Null,
            Value::Integer(i) => rusqlite::types::Value::Integer(*i),
            Value::Real(r) => rusqlite::types::Value::Real(*r),
            Value::Text(t) => rusqlite::types::Value::Text(t.clone()),
            Value::Blob(b) => rusqlite::types::Value::Blob(b.clone()),
        })
        .collect();
    let mut rows = stmt
        .query(rusqlite::params_from_iter(values))
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(|e| e.to_string())? {
        let mut r = Vec::with_capacity(n);
        for i in 0..n {
            r.push(common::from_sqlite(
                row.get_ref(i).map_err(|e| e.to_string())?,
            ));
        }
        out.push(r);
    }
    Ok(out)
}

/// Prints how many statements were compared and fails with the first ten
/// mismatches in full, if any; past ten, the first line of every mismatch
/// (its seed and statement) is printed too, so a long search
/// (`SQL_VS_SQLITE_SEEDS`) can be sorted in one run.
fn assert_no_mismatches(what: &str, compared: usize, mismatches: &[String]) {
    println!(
        "{compared} {what} compared, {} mismatches",
        mismatches.len()
    );
    if mismatches.len() > 10 {
        for m in mismatches {
            println!("{}", m.lines().next().unwrap_or_default());
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn compare_random(default_seeds: std::ops::RangeInclusive<u64>, opts: DbOptions) {
    let seeds: Vec<u64> = match (
        std::env::var("SQL_VS_SQLITE_SEED"),
        common::seed_range("SQL_VS_SQLITE_SEEDS"),
    ) {
        (Ok(s), _) => vec![s.parse().expect("seed")],
        (_, Some(range)) => range.collect(),
        _ => default_seeds.collect(),
    };
    let mut mismatches = Vec::new();
    let mut compared = 0;
    for seed in seeds {
        let mut g = Gen {
            rng: SmallRng::seed_from_u64(seed),
        };
        let (mut tj, lite) = open_pair_with(opts.clone());
        let schema = g.schema();
        let mut shown = false;
        for stmt in &schema {
            let a = tinyjoin_run(&mut tj, stmt);
            let b = sqlite_run(&lite, stmt);
            assert!(
                same_outcome(&a, &b, true, false),
                "seed {seed}: setup {stmt}: {a:?} vs {b:?}"
            );
        }
        for _ in 0..100 {
            let (sql, ordered) = g.query();
            let a = tinyjoin_run(&mut tj, &sql);
            let b = sqlite_run(&lite, &sql);
            compared += 1;
            let upper = sql.to_ascii_uppercase();
            let loose = [
                "DISTINCT",
                "UNION",
                "INTERSECT",
                "EXCEPT",
                "GROUP BY",
                "ORDER BY",
            ]
            .iter()
            .any(|k| upper.contains(k));
            if !same_outcome(&a, &b, ordered, loose) {
                let setup = if shown {
                    String::new()
                } else {
                    format!("\n  schema: {}", schema.join("; "))
                };
                shown = true;
                mismatches.push(format!(
                    "seed {seed}: {sql}\n  tinyjoin: {a:?}\n  sqlite:   {b:?}{setup}"
                ));
            }
        }
        // Writes, each followed by a comparison of every table.
        let mut history = schema.clone();
        for _ in 0..20 {
            let stmt = g.dml();
            history.push(stmt.clone());
            let a = tinyjoin_run(&mut tj, &stmt);
            let b = sqlite_run(&lite, &stmt);
            compared += 1;
            let mut same = a.is_err() == b.is_err();
            for t in TABLES {
                let sql = format!("SELECT * FROM {t}");
                same &= same_outcome(
                    &tinyjoin_run(&mut tj, &sql),
                    &sqlite_run(&lite, &sql),
                    false,
                    false,
                );
            }
            if !same {
                mismatches.push(format!(
                    "seed {seed}: {stmt}\n  tinyjoin: {a:?}\n  sqlite:   {b:?}\n  history: {}",
                    history.join("; ")
                ));
                break;
            }
        }
    }
    assert_no_mismatches("queries", compared, &mismatches);
}

/// Tables of thousands of rows (many leaves per tree) behind a 16-page
/// cache, compared with SQLite through point and range reads, updates,
/// deletes and inserts interleaved: leaves are read back in page form,
/// copied and changed, and given slots when hot, all the time.
#[test]
fn many_leaves_through_a_tiny_page_cache() {
    let opts = DbOptions {
        cache_pages: 16,
        ..DbOptions::default()
    };
    let (mut tj, lite) = open_pair_with(opts);
    let both = |tj: &mut Connection, sql: &str| (tinyjoin_run(tj, sql), sqlite_run(&lite, sql));
    for sql in [
        "CREATE TABLE big(id INTEGER PRIMARY KEY, k INTEGER, s TEXT)",
        "CREATE INDEX big_k ON big(k)",
        "CREATE INDEX big_s ON big(s)",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000) \
         INSERT INTO big SELECT x, (x * 7919) % 1000, printf('s%05d', (x * 104729) % 3000) FROM c",
    ] {
        let (a, b) = both(&mut tj, sql);
        assert!(same_outcome(&a, &b, true, false), "{sql}: {a:?} vs {b:?}");
    }
    let mut rng = SmallRng::seed_from_u64(7);
    for step in 0..300 {
        let x = rng.gen_range(0..3300);
        let y = x + rng.gen_range(1..60);
        let (sql, ordered) = match rng.gen_range(0..8) {
            0 => (format!("SELECT * FROM big WHERE id = {x}"), true),
            1 => (
                format!(
                    "SELECT id, s FROM big WHERE k BETWEEN {} AND {} ORDER BY id",
                    x % 1000,
                    y % 1000
                ),
                true,
            ),
            2 => (
                format!("SELECT count(*), sum(k) FROM big WHERE s >= 's{x:05}' AND s < 's{y:05}'"),
                true,
            ),
            3 => (
                format!(
                    "UPDATE big SET k = (k + 7) % 1000, s = s || 'u' WHERE id BETWEEN {x} AND {y}"
                ),
                true,
            ),
            4 => (
                format!("DELETE FROM big WHERE id BETWEEN {x} AND {}", x + y % 7),
                true,
            ),
            5 => (
                format!(
                    "INSERT OR REPLACE INTO big VALUES ({x}, {}, 'n{step}')",
                    y % 1000
                ),
                true,
            ),
            6 => (
                "SELECT k, count(*) FROM big GROUP BY k ORDER BY k LIMIT 20".to_string(),
                true,
            ),
            _ => (format!("SELECT * FROM big WHERE k = {}", x % 1000), false),
        };
        let (a, b) = both(&mut tj, &sql);
        assert!(
            same_outcome(&a, &b, ordered, false),
            "step {step}: {sql}: {a:?} vs {b:?}"
        );
    }
    let all = "SELECT * FROM big ORDER BY id";
    let (a, b) = both(&mut tj, all);
    assert!(same_outcome(&a, &b, true, false), "final rows differ");
    let (a, b) = both(&mut tj, "SELECT s, id FROM big ORDER BY s, id");
    assert!(
        same_outcome(&a, &b, true, false),
        "final index order differs"
    );
}
