//! ANALYZE's statistics and the planner's use of them.
//!
//! - Plans: with statistics the planner picks the more selective of two
//!   indexes (a 2-value `kind` against a 10,000-value `owner`), and a
//!   3-way join that the fixed heuristics (every equality keeps a tenth of
//!   the rows) order badly gets the good order, the same whichever FROM
//!   order it is written in. The plans before ANALYZE are printed.
//! - Persistence: statistics survive reopening the file, a second ANALYZE
//!   replaces them, DROP INDEX / DROP TABLE remove them, RENAME keeps
//!   them, a rolled-back ANALYZE leaves none, and `Database::check` stays
//!   clean throughout.
//! - Differential: `sqlite_stat1` holds what real SQLite (rusqlite,
//!   bundled) computes for the same data, and a set of queries returns the
//!   same rows before ANALYZE, after it, and in SQLite.

mod common;

use common::{plan, rows, sqlite_rows};
use tinyjoin_engine::storage::MemoryDevice;
use tinyjoin_engine::{Connection, Database, DbOptions, Params, Value};

fn open(device: &MemoryDevice) -> Database {
    Database::open(Box::new(device.clone()), DbOptions::default()).expect("open")
}

/// `sqlite_stat1` as (tbl, idx, stat) strings, sorted.
fn stat1(c: &mut Connection) -> Vec<(String, String, String)> {
    let text = |v: &Value| match v {
        Value::Text(s) => s.clone(),
        Value::Null => "NULL".to_string(),
        other => format!("{other:?}"),
    };
    let mut out: Vec<_> = rows(c, "SELECT tbl, idx, stat FROM sqlite_stat1")
        .iter()
        .map(|r| (text(&r[0]), text(&r[1]), text(&r[2])))
        .collect();
    out.sort();
    out
}

fn assert_clean(db: &Database) {
    let report = db.check().expect("check");
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

// --- (a) the more selective index ---

const THINGS: &str = "
CREATE TABLE things(id INTEGER PRIMARY KEY, kind INTEGER, owner INTEGER, note TEXT);
CREATE INDEX things_kind ON things(kind);
CREATE INDEX things_owner ON things(owner);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
  INSERT INTO things SELECT i, i % 2, i % 10000, 'n' || i FROM n;
";

const KIND_AND_OWNER: &str = "SELECT id, note FROM things WHERE kind = ?1 AND owner = ?2";

#[test]
fn analyze_makes_the_selective_index_win() {
    let db = Database::open_in_memory().expect("open");
    let mut c = db.connect();
    c.execute_batch(THINGS).expect("schema and data");
    let before = plan(&mut c, KIND_AND_OWNER);
    println!("before ANALYZE: {before:?}");
    c.execute_batch("ANALYZE").expect("analyze");
    assert_eq!(
        plan(&mut c, KIND_AND_OWNER),
        ["SEARCH things USING INDEX things_owner (owner=?)"]
    );
    assert_eq!(
        stat1(&mut c),
        [
            ("things".into(), "things_kind".into(), "20000 10000".into()),
            ("things".into(), "things_owner".into(), "20000 2".into()),
        ]
    );
    // Written the other way round, the same.
    assert_eq!(
        plan(
            &mut c,
            "SELECT id, note FROM things WHERE owner = ?2 AND kind = ?1"
        ),
        ["SEARCH things USING INDEX things_owner (owner=?)"]
    );
}

#[test]
fn a_prepared_statement_plans_again_after_analyze() {
    let db = Database::open_in_memory().expect("open");
    let mut c = db.connect();
    c.execute_batch(THINGS).expect("schema and data");
    let mut explain = c
        .prepare(&format!("EXPLAIN QUERY PLAN {KIND_AND_OWNER}"))
        .expect("prepare");
    let detail = |c: &mut Connection, s: &mut tinyjoin_engine::Statement| {
        let r = s.execute(c, &Params::None).expect("explain");
        format!("{:?}", r.rows[0][3])
    };
    let before = detail(&mut c, &mut explain);
    assert!(before.contains("things_kind"), "{before}");
    c.execute_batch("ANALYZE things").expect("analyze");
    let after = detail(&mut c, &mut explain);
    assert!(after.contains("things_owner"), "{after}");
    let mut query = c.prepare(KIND_AND_OWNER).expect("prepare");
    let params = Params::Positional(vec![Value::Integer(1), Value::Integer(77)]);
    let r = query.execute(&mut c, &params).expect("query");
    assert_eq!(
        r.rows,
        [
            [Value::Integer(77), Value::Text("n77".into())],
            [Value::Integer(10077), Value::Text("n10077".into())],
        ]
    );
}

// --- (b) join order ---

const JOIN_SCHEMA: &str = "
CREATE TABLE a(id INTEGER PRIMARY KEY, kind INTEGER, bid INTEGER);
CREATE INDEX a_kind ON a(kind);
CREATE INDEX a_bid ON a(bid);
CREATE TABLE b(id INTEGER PRIMARY KEY, code INTEGER, cid INTEGER);
CREATE INDEX b_code ON b(code);
CREATE TABLE c(id INTEGER PRIMARY KEY, name TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
  INSERT INTO a SELECT i, i % 2, i % 1000 + 1 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
  INSERT INTO b SELECT i, i, i % 1000 + 1 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
  INSERT INTO c SELECT i, 'c' || i FROM n;
";

/// `b.code = 42` keeps one row of 20,000 and `a.kind = 1` half of 2,000;
/// the heuristics believe the opposite (2,000 against 200).
const JOIN_ABC: &str = "SELECT a.id, b.id, c.name FROM a, b, c \
                        WHERE a.bid = b.id AND b.cid = c.id AND a.kind = 1 AND b.code = 42";
const JOIN_CBA: &str = "SELECT a.id, b.id, c.name FROM c JOIN b ON b.cid = c.id \
                        JOIN a ON a.bid = b.id WHERE b.code = 42 AND a.kind = 1";

const GOOD_JOIN_PLAN: [&str; 3] = [
    "SEARCH b USING INDEX b_code (code=?)",
    "SEARCH c USING INTEGER PRIMARY KEY (rowid=?)",
    "SEARCH a USING INDEX a_bid (bid=?)",
];

#[test]
fn analyze_gives_a_three_way_join_the_good_order_whatever_the_from_order() {
    let db = Database::open_in_memory().expect("open");
    let mut c = db.connect();
    c.execute_batch(JOIN_SCHEMA).expect("schema and data");
    let before = plan(&mut c, JOIN_ABC);
    println!("before ANALYZE: {before:?}");
    println!("before ANALYZE (c, b, a): {:?}", plan(&mut c, JOIN_CBA));
    assert_ne!(before, GOOD_JOIN_PLAN, "the heuristics already find it");
    let expected = rows(&mut c, JOIN_ABC);
    c.execute_batch("ANALYZE").expect("analyze");
    assert_eq!(plan(&mut c, JOIN_ABC), GOOD_JOIN_PLAN);
    assert_eq!(plan(&mut c, JOIN_CBA), GOOD_JOIN_PLAN);
    assert_eq!(rows(&mut c, JOIN_ABC), expected);
    let mut cba = rows(&mut c, JOIN_CBA);
    cba.sort_by_key(|r| format!("{r:?}"));
    let mut abc = expected.clone();
    abc.sort_by_key(|r| format!("{r:?}"));
    assert_eq!(cba, abc);
    assert_eq!(abc.len(), 2);
}

// --- (c) persistence ---

#[test]
fn statistics_persist_are_replaced_and_dropped() {
    let device = MemoryDevice::new();
    let analyzed_plan;
    let first_stats;
    {
        let db = open(&device);
        let mut c = db.connect();
        c.execute_batch(JOIN_SCHEMA).expect("schema and data");
        assert!(stat1(&mut c).is_empty());
        c.execute_batch("ANALYZE").expect("analyze");
        analyzed_plan = plan(&mut c, JOIN_ABC);
        first_stats = stat1(&mut c);
        assert_eq!(
            first_stats,
            [
                ("a".into(), "a_bid".into(), "2000 2".into()),
                ("a".into(), "a_kind".into(), "2000 1000".into()),
                ("b".into(), "b_code".into(), "20000 1".into()),
                ("c".into(), "NULL".into(), "1000".into()),
            ]
        );
        assert_clean(&db);
    }
    let db = open(&device);
    let mut c = db.connect();
    assert_eq!(stat1(&mut c), first_stats, "after reopen");
    assert_eq!(plan(&mut c, JOIN_ABC), analyzed_plan, "after reopen");
    assert_clean(&db);

    // A second ANALYZE measures the data as it is now.
    c.execute_batch(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
           INSERT INTO a SELECT i + 2000, 7, 5 FROM n;
         ANALYZE a;",
    )
    .expect("more rows, analyze a");
    let second = stat1(&mut c);
    assert_eq!(second[0], ("a".into(), "a_bid".into(), "4000 4".into()));
    assert_eq!(second[1], ("a".into(), "a_kind".into(), "4000 1334".into()));
    assert_eq!(second[2..], first_stats[2..], "other tables untouched");

    // ANALYZE of one index measures that index only.
    c.execute_batch(
        "INSERT INTO b SELECT id + 20000, code, cid FROM b WHERE id <= 10;
         ANALYZE b_code;",
    )
    .expect("analyze an index");
    assert_eq!(
        stat1(&mut c)[2],
        ("b".into(), "b_code".into(), "20010 1".into())
    );

    // RENAME keeps the statistics under the new name; DROP removes them.
    c.execute_batch("ALTER TABLE c RENAME TO cc; DROP INDEX a_kind;")
        .expect("rename, drop index");
    assert_eq!(
        stat1(&mut c),
        [
            ("a".into(), "a_bid".into(), "4000 4".into()),
            ("b".into(), "b_code".into(), "20010 1".into()),
            ("cc".into(), "NULL".into(), "1000".into()),
        ]
    );
    c.execute_batch("DROP TABLE b").expect("drop table");
    let expected = [
        ("a".to_string(), "a_bid".to_string(), "4000 4".to_string()),
        ("cc".into(), "NULL".into(), "1000".into()),
    ];
    assert_eq!(stat1(&mut c), expected);
    assert_clean(&db);
    drop(c);
    drop(db);
    let db = open(&device);
    let mut c = db.connect();
    assert_eq!(stat1(&mut c), expected, "after the second reopen");
    // A new index of the same name starts without statistics.
    c.execute_batch("CREATE INDEX a_kind ON a(kind)")
        .expect("create index");
    assert_eq!(stat1(&mut c), expected);
    assert_clean(&db);
}

#[test]
fn analyze_names_what_it_measures() {
    let db = Database::open_in_memory().expect("open");
    let mut c = db.connect();
    c.execute_batch(
        "CREATE TABLE t(x INTEGER, y TEXT UNIQUE);
         CREATE INDEX t_x ON t(x);
         CREATE VIEW v AS SELECT x FROM t;
         INSERT INTO t VALUES (1, 'a'), (1, 'b'), (2, 'c');",
    )
    .expect("schema");
    c.execute_batch("ANALYZE t_x").expect("one index");
    assert_eq!(stat1(&mut c), [("t".into(), "t_x".into(), "3 2".into())]);
    c.execute_batch("ANALYZE main.t").expect("one table");
    assert_eq!(stat1(&mut c).len(), 2);
    c.execute_batch("ANALYZE v").expect("a view is accepted");
    c.execute_batch("ANALYZE main").expect("a schema");
    let err = c.execute("ANALYZE nosuch", &Params::None);
    assert!(err.is_err(), "{err:?}");
    let err = c.execute("ANALYZE other.t", &Params::None);
    assert!(err.is_err(), "{err:?}");
}

// --- (e) transactions ---

#[test]
fn a_rolled_back_analyze_leaves_no_statistics() {
    let device = MemoryDevice::new();
    let db = open(&device);
    let mut c = db.connect();
    c.execute_batch(THINGS).expect("schema and data");
    let heuristic = plan(&mut c, KIND_AND_OWNER);
    c.execute_batch("BEGIN; ANALYZE;")
        .expect("analyze in a transaction");
    assert_eq!(stat1(&mut c).len(), 2, "visible inside the transaction");
    let inside = plan(&mut c, KIND_AND_OWNER);
    assert_ne!(inside, heuristic);
    c.execute_batch("ROLLBACK").expect("rollback");
    assert!(stat1(&mut c).is_empty());
    assert_eq!(plan(&mut c, KIND_AND_OWNER), heuristic);
    // The same through a savepoint.
    c.execute_batch("BEGIN; SAVEPOINT s; ANALYZE things; ROLLBACK TO s; COMMIT;")
        .expect("savepoint");
    assert!(stat1(&mut c).is_empty());
    assert_clean(&db);
    drop(c);
    drop(db);
    let db = open(&device);
    let mut c = db.connect();
    assert!(stat1(&mut c).is_empty(), "after reopen");
    assert_eq!(plan(&mut c, KIND_AND_OWNER), heuristic);
    // A committed one stays.
    c.execute_batch("BEGIN; ANALYZE; COMMIT;").expect("commit");
    assert_eq!(stat1(&mut c).len(), 2);
    assert_eq!(plan(&mut c, KIND_AND_OWNER), inside);
}

// --- (d) differential ---

/// Tables with indexes of every kind (composite, UNIQUE, partial,
/// expression, NOCASE, DESC), NULLs, repeated values, an empty table and
/// a table without indexes.
const DIFF_SCHEMA: &str = "
CREATE TABLE p(id INTEGER PRIMARY KEY, g INTEGER, h TEXT COLLATE NOCASE, u TEXT UNIQUE, r REAL);
CREATE INDEX p_gh ON p(g, h);
CREATE INDEX p_h ON p(h DESC);
CREATE INDEX p_part ON p(r) WHERE g > 3;
CREATE INDEX p_expr ON p(g % 3, lower(u));
CREATE TABLE q(id INTEGER PRIMARY KEY, pid INTEGER, w INTEGER, z TEXT);
CREATE INDEX q_pid ON q(pid);
CREATE INDEX q_wz ON q(w, z);
CREATE TABLE s(k INTEGER, v TEXT);
CREATE TABLE e(k INTEGER, v TEXT);
CREATE INDEX e_k ON e(k);
CREATE TABLE o(k INTEGER, v TEXT);
CREATE INDEX o_part ON o(k) WHERE k > 100;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600)
  INSERT INTO p SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 9 END,
    CASE i % 4 WHEN 0 THEN 'Ab' WHEN 1 THEN 'aB' WHEN 2 THEN 'x' || (i % 13) ELSE NULL END,
    'u' || i, i / 8.0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
  INSERT INTO q SELECT i, i % 650, i % 11, CASE WHEN i % 5 = 0 THEN NULL ELSE 'z' || (i % 17) END FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
  INSERT INTO s SELECT i % 10, 'v' || i FROM n;
INSERT INTO o VALUES (1, 'a'), (2, 'b');
";

const DIFF_QUERIES: &[&str] = &[
    "SELECT id, g, h FROM p WHERE g = 4 AND h = 'ab'",
    "SELECT count(*) FROM p WHERE h = 'AB'",
    "SELECT id FROM p WHERE g = 2 AND r > 10.0",
    "SELECT id, u FROM p WHERE g % 3 = 1 AND lower(u) = 'u40'",
    "SELECT p.id, q.id FROM p, q WHERE q.pid = p.id AND p.g = 5 AND q.w = 3",
    "SELECT q.id, p.u FROM q JOIN p ON p.id = q.pid WHERE q.w = 2 AND q.z = 'z4'",
    "SELECT s.k, count(*) FROM s, q, p WHERE q.w = s.k AND p.id = q.pid AND p.h = 'x3' GROUP BY s.k",
    "SELECT p.g, sum(q.w) FROM p LEFT JOIN q ON q.pid = p.id WHERE p.g IN (1, 2) GROUP BY p.g",
    "SELECT s.v, e.v FROM s LEFT JOIN e ON e.k = s.k WHERE s.k < 3",
    "SELECT a.id, b.id FROM q a, q b WHERE a.w = b.w AND a.pid = 7 AND b.pid = 8",
    "SELECT count(*) FROM p, s WHERE p.g = s.k",
    "SELECT id FROM p WHERE u = 'u77'",
    "SELECT k FROM o WHERE k > 0",
    "SELECT id FROM q WHERE w = 3 AND z = 'z4' AND pid = 7",
    "SELECT q.id, p.id FROM p, q WHERE q.pid = p.id AND p.h = 'ab' AND q.w = 3 AND q.z = 'z4'",
    "SELECT count(*) FROM q a JOIN q b ON b.pid = a.w WHERE a.z = 'z1'",
];

fn bag(mut r: Vec<Vec<Value>>) -> Vec<Vec<Value>> {
    r.sort_by_key(|row| format!("{row:?}"));
    r
}

#[test]
fn results_are_the_same_before_and_after_analyze_and_in_sqlite() {
    let db = Database::open_in_memory().expect("open");
    let mut c = db.connect();
    c.execute_batch(DIFF_SCHEMA).expect("schema and data");
    let lite = rusqlite::Connection::open_in_memory().expect("sqlite");
    lite.execute_batch(DIFF_SCHEMA).expect("sqlite schema");
    let before: Vec<_> = DIFF_QUERIES.iter().map(|q| bag(rows(&mut c, q))).collect();
    let plans_before: Vec<_> = DIFF_QUERIES.iter().map(|q| plan(&mut c, q)).collect();
    c.execute_batch("ANALYZE").expect("analyze");
    lite.execute_batch("ANALYZE").expect("sqlite analyze");
    let mut changed = 0;
    for (i, q) in DIFF_QUERIES.iter().enumerate() {
        let after = bag(rows(&mut c, q));
        assert_eq!(after, before[i], "before/after ANALYZE: {q}");
        assert_eq!(after, bag(sqlite_rows(&lite, q)), "vs SQLite: {q}");
        let p = plan(&mut c, q);
        if p != plans_before[i] {
            changed += 1;
            println!("{q}\n  before: {:?}\n  after:  {p:?}", plans_before[i]);
        }
    }
    println!("{changed} of {} plans changed", DIFF_QUERIES.len());
    // sqlite_stat1 as SQLite computes it.
    let ours = bag(rows(&mut c, "SELECT tbl, idx, stat FROM sqlite_stat1"));
    let theirs = bag(sqlite_rows(
        &lite,
        "SELECT tbl, idx, stat FROM sqlite_stat1",
    ));
    assert_eq!(ours, theirs);
    assert_clean(&db);
}

// --- (d) seeded random joins ---

/// Random data whose value spreads differ per seed (so the statistics,
/// and with them the plans, differ), then random 2- and 3-way joins with
/// equality, range and IN filters, each written in several FROM orders:
/// the rows must be those of SQLite, with and without ANALYZE, and after
/// ANALYZE every FROM order must get the same plan. `SQL_STATS_SEED=<n>`
/// picks the seed; `SQL_STATS_SHOW=1` prints queries whose plans differ.
#[test]
fn random_joins_match_sqlite_after_analyze() {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let seed: u64 = std::env::var("SQL_STATS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20261130);
    println!("seed {seed} (SQL_STATS_SEED to reproduce)");
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut plans_seen = std::collections::BTreeSet::new();
    // Queries whose FROM orders all got one plan, without and with ANALYZE.
    let (mut same_plain, mut same_analyzed, mut queries) = (0, 0, 0);
    for round in 0..4 {
        let mut schema = String::from(
            "CREATE TABLE t0(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c TEXT);
             CREATE INDEX t0_a ON t0(a);
             CREATE INDEX t0_bc ON t0(b, c);
             CREATE TABLE t1(id INTEGER PRIMARY KEY, a INTEGER, t0id INTEGER, d INTEGER);
             CREATE INDEX t1_t0id ON t1(t0id);
             CREATE INDEX t1_d ON t1(d);
             CREATE TABLE t2(id INTEGER PRIMARY KEY, t1id INTEGER, e INTEGER);
             CREATE INDEX t2_e ON t2(e);
             CREATE INDEX t2_t1id ON t2(t1id);\n",
        );
        let n0 = rng.gen_range(20..300);
        let n1 = rng.gen_range(20..600);
        let n2 = rng.gen_range(20..600);
        let spread = |rng: &mut SmallRng| rng.gen_range(1..150);
        let (sa, sb, sc, sd, se) = (
            spread(&mut rng),
            spread(&mut rng),
            spread(&mut rng),
            spread(&mut rng),
            spread(&mut rng),
        );
        schema.push_str(&format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n0})
               INSERT INTO t0 SELECT i, (i * 7) % {sa}, (i * 13) % {sb},
                 CASE WHEN i % 11 = 0 THEN NULL ELSE 'c' || ((i * 3) % {sc}) END FROM n;
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n1})
               INSERT INTO t1 SELECT i, (i * 5) % {sa}, (i * 17) % {n0} + 1, (i * 19) % {sd} FROM n;
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n2})
               INSERT INTO t2 SELECT i, (i * 23) % {n1} + 1, (i * 29) % {se} FROM n;\n"
        ));
        let plain = Database::open_in_memory().expect("open");
        let mut plain = plain.connect();
        plain.execute_batch(&schema).expect("schema");
        let analyzed_db = Database::open_in_memory().expect("open");
        let mut analyzed = analyzed_db.connect();
        analyzed.execute_batch(&schema).expect("schema");
        analyzed.execute_batch("ANALYZE").expect("analyze");
        let lite = rusqlite::Connection::open_in_memory().expect("sqlite");
        lite.execute_batch(&schema).expect("sqlite schema");
        for _ in 0..25 {
            let three = rng.gen_bool(0.6);
            let mut conds = vec!["t1.t0id = t0.id".to_string()];
            if three {
                conds.push("t2.t1id = t1.id".into());
            }
            if rng.gen_bool(0.3) {
                conds.push("t0.a = t1.a".into());
            }
            let mut filters = vec![
                format!("t0.a = {}", rng.gen_range(0..sa)),
                format!("t0.b = {}", rng.gen_range(0..sb)),
                format!(
                    "t0.b = {} AND t0.c = 'c{}'",
                    rng.gen_range(0..sb),
                    rng.gen_range(0..sc)
                ),
                format!("t1.d = {}", rng.gen_range(0..sd)),
                format!("t1.d > {}", rng.gen_range(0..sd)),
                format!(
                    "t1.a IN ({}, {})",
                    rng.gen_range(0..sa),
                    rng.gen_range(0..sa)
                ),
                format!("t0.id < {}", rng.gen_range(1..n0 + 1)),
            ];
            if three {
                filters.push(format!("t2.e = {}", rng.gen_range(0..se)));
                filters.push(format!("t2.e < {}", rng.gen_range(0..se)));
            }
            for _ in 0..rng.gen_range(0..3) {
                let i = rng.gen_range(0..filters.len());
                conds.push(filters.swap_remove(i));
            }
            let tables: &[&str] = if three {
                &["t0", "t1", "t2"]
            } else {
                &["t0", "t1"]
            };
            let select = if three {
                "t0.id, t1.id, t2.id, t0.c"
            } else {
                "t0.id, t1.id, t0.c, t1.d"
            };
            let orders: Vec<Vec<&str>> = if three {
                vec![
                    vec![tables[0], tables[1], tables[2]],
                    vec![tables[2], tables[1], tables[0]],
                    vec![tables[1], tables[2], tables[0]],
                ]
            } else {
                vec![vec![tables[0], tables[1]], vec![tables[1], tables[0]]]
            };
            let mut expected = None;
            let mut plain_plans = std::collections::BTreeSet::new();
            let mut analyzed_plans = std::collections::BTreeSet::new();
            for order in orders {
                let sql = format!(
                    "SELECT {select} FROM {} WHERE {}",
                    order.join(", "),
                    conds.join(" AND ")
                );
                let want = expected.get_or_insert_with(|| bag(sqlite_rows(&lite, &sql)));
                assert_eq!(
                    &bag(rows(&mut plain, &sql)),
                    want,
                    "seed {seed} round {round}, before ANALYZE: {sql}"
                );
                assert_eq!(
                    &bag(rows(&mut analyzed, &sql)),
                    want,
                    "seed {seed} round {round}, after ANALYZE: {sql}"
                );
                let p = plan(&mut analyzed, &sql).join(" / ");
                plans_seen.insert(p.clone());
                analyzed_plans.insert(p);
                plain_plans.insert(plan(&mut plain, &sql).join(" / "));
            }
            queries += 1;
            same_plain += usize::from(plain_plans.len() == 1);
            same_analyzed += usize::from(analyzed_plans.len() == 1);
            if analyzed_plans.len() > 1 && std::env::var_os("SQL_STATS_SHOW").is_some() {
                println!("{conds:?}\n  {analyzed_plans:#?}");
            }
        }
        assert_clean(&analyzed_db);
    }
    println!("{} distinct plans after ANALYZE", plans_seen.len());
    assert_eq!(
        same_analyzed, queries,
        "after ANALYZE the FROM order must not change the plan (SQL_STATS_SHOW=1 prints them)"
    );
    println!(
        "one plan for every FROM order: {same_plain} of {queries} queries without ANALYZE, \
         {same_analyzed} with it"
    );
    assert!(plans_seen.len() > 10, "{plans_seen:?}");
}
