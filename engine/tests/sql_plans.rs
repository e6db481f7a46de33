//! Plan tests for the benchmark workloads of issue 3 (`benches/sql.rs`):
//! `EXPLAIN QUERY PLAN` must choose the expected access path for each
//! one: a full scan where no index applies, the index (covering when the
//! query reads only its columns) for equality, range, composite and
//! expression lookups, a nested-loop index join (or, where every row of
//! the small side probes, a scan of the big side and a hash of the small
//! one) with the same plan whatever the FROM order, the LEFT JOIN order
//! kept, a hash join on a non-indexed column.
//!
//! The data is small (hundreds of rows) but shaped like the benchmark's:
//! the small join side is 10x smaller than the big one. The planner's row
//! statistics are the tree sizes and, since `ANALYZE` runs in the setup,
//! each index's rows per key prefix (`tests/sql_stats.rs` covers plans
//! before and after ANALYZE).
//!
//! Cases the planner gets wrong today are kept, marked `#[ignore]` with
//! the reason, so they start running when fixed (j7's hash side was fixed
//! by join.rs's swap of a scanned outer and a bigger hashed inner).

use tinyjoin_engine::{Connection, Database, Params, Value};

const SCHEMA: &str = "
CREATE TABLE t(id INTEGER PRIMARY KEY, g INTEGER, x INTEGER, y INTEGER, r REAL, s TEXT);
CREATE TABLE cust(id INTEGER PRIMARY KEY, name TEXT, region INTEGER, tier INTEGER, code INTEGER);
CREATE TABLE orders(id INTEGER PRIMARY KEY, cust_id INTEGER, amount INTEGER, cust_code INTEGER, status INTEGER);
CREATE TABLE items(id INTEGER PRIMARY KEY, order_id INTEGER, qty INTEGER, price INTEGER);
CREATE INDEX orders_cust ON orders(cust_id);
CREATE INDEX items_order ON items(order_id);
CREATE TABLE a(id INTEGER PRIMARY KEY, b INTEGER, c INTEGER, d INTEGER, e TEXT);
CREATE INDEX a_b ON a(b);
CREATE INDEX a_dc ON a(d, c);
CREATE INDEX a_le ON a(lower(e));
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
  INSERT INTO t SELECT i, i % 100, i % 1000, i % 10000, i / 7.0, 'x' || i FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
  INSERT INTO cust SELECT i, 'c' || i, i % 20, i % 10, i * 7 + 3 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
  INSERT INTO orders SELECT i, i % 45 + 1, i % 1000, (i % 45 + 1) * 7 + 3, i % 5 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
  INSERT INTO items SELECT i, i % 500 + 1, i % 10, i % 500 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
  INSERT INTO a SELECT i, i % 50, i % 1000, i % 100, 'Name' || (i % 125) FROM n;
ANALYZE;
";

fn setup() -> Connection {
    let db = Database::open_in_memory().expect("open");
    let mut c = db.connect();
    c.execute_batch(SCHEMA).expect("schema and data");
    c
}

/// The detail column of `EXPLAIN QUERY PLAN sql`, one string per step.
fn plan(c: &mut Connection, sql: &str) -> Vec<String> {
    let r = c
        .execute(&format!("EXPLAIN QUERY PLAN {sql}"), &Params::None)
        .unwrap_or_else(|e| panic!("EXPLAIN QUERY PLAN {sql}: {e:?}"));
    r.rows
        .iter()
        .map(|row| match row.last() {
            Some(Value::Text(s)) => s.clone(),
            other => panic!("plan detail is not text: {other:?}"),
        })
        .collect()
}

fn assert_plan(sql: &str, expected: &[&str]) {
    let mut c = setup();
    let got = plan(&mut c, sql);
    assert_eq!(got, expected, "plan of {sql}");
}

const J1: &str = "SELECT c.region, count(*), sum(o.amount) FROM cust c JOIN orders o \
                  ON o.cust_id = c.id GROUP BY c.region";
const J3: &str = "SELECT c.region, count(*), sum(o.amount) FROM orders o JOIN cust c \
                  ON c.id = o.cust_id GROUP BY c.region";

// --- analytic workloads: no index applies, one scan ---

#[test]
fn a1_filter_sum_scans_once() {
    assert_plan("SELECT sum(x), count(*) FROM t WHERE y < 5000", &["SCAN t"]);
}

#[test]
fn a2_group_by_scans_once_and_groups() {
    assert_plan(
        "SELECT g, count(*), sum(x), min(y), max(y) FROM t GROUP BY g",
        &["SCAN t", "USE TEMP B-TREE FOR GROUP BY"],
    );
}

#[test]
fn a3_arithmetic_filter_scans_once() {
    assert_plan(
        "SELECT count(*), sum(x * y), avg(r) FROM t WHERE x * 3 + y / 2 > 2500 AND r < 500.0",
        &["SCAN t"],
    );
}

// --- joins ---

#[test]
fn j1_streams_orders_and_hashes_cust() {
    // Every customer probes `orders` and the index is not covering: the
    // probes would fetch most of `orders` one random lookup at a time, so
    // `orders` is scanned once and `cust` (small) is hashed by its rowid.
    assert_plan(
        J1,
        &[
            "SCAN orders AS o",
            "SCAN cust AS c (HASH JOIN)",
            "USE TEMP B-TREE FOR GROUP BY",
        ],
    );
}

#[test]
fn j2_selective_filter_on_small_side_drives_the_join() {
    assert_plan(
        "SELECT c.id, count(*), sum(o.amount) FROM cust c JOIN orders o ON o.cust_id = c.id \
         WHERE c.tier = 7 GROUP BY c.id",
        &[
            "SCAN cust AS c",
            "SEARCH orders AS o USING INDEX orders_cust (cust_id=?)",
            "USE TEMP B-TREE FOR GROUP BY",
        ],
    );
}

#[test]
fn j2_written_in_bad_order_gets_the_same_plan() {
    let mut c = setup();
    let good = plan(
        &mut c,
        "SELECT c.id, count(*), sum(o.amount) FROM cust c JOIN orders o ON o.cust_id = c.id \
         WHERE c.tier = 7 GROUP BY c.id",
    );
    let bad = plan(
        &mut c,
        "SELECT c.id, count(*), sum(o.amount) FROM orders o, cust c WHERE c.tier = 7 \
         AND c.id = o.cust_id GROUP BY c.id",
    );
    assert_eq!(good, bad);
}

#[test]
fn j3_bad_order_gets_the_j1_plan() {
    let mut c = setup();
    assert_eq!(plan(&mut c, J3), plan(&mut c, J1));
}

#[test]
fn j4_three_way_join_streams_its_biggest_table() {
    // The greedy order (cust scanned, orders by their index, items by
    // theirs) would fetch every item by a random table lookup: items is
    // scanned instead, orders found by rowid and the small cust hashed.
    assert_plan(
        "SELECT c.region, count(*), sum(i.qty * i.price) FROM cust c JOIN orders o \
         ON o.cust_id = c.id JOIN items i ON i.order_id = o.id GROUP BY c.region",
        &[
            "SCAN items AS i",
            "SEARCH orders AS o USING INTEGER PRIMARY KEY (rowid=?)",
            "SCAN cust AS c (HASH JOIN)",
            "USE TEMP B-TREE FOR GROUP BY",
        ],
    );
    // A filter on the small table narrows the greedy order's reads: it
    // stays.
    assert_plan(
        "SELECT c.region, count(*), sum(i.qty * i.price) FROM cust c JOIN orders o \
         ON o.cust_id = c.id JOIN items i ON i.order_id = o.id WHERE c.id = 3 GROUP BY c.region",
        &[
            "SEARCH cust AS c USING INTEGER PRIMARY KEY (rowid=?)",
            "SEARCH orders AS o USING COVERING INDEX orders_cust (cust_id=?)",
            "SEARCH items AS i USING INDEX items_order (order_id=?)",
            "USE TEMP B-TREE FOR GROUP BY",
        ],
    );
}

#[test]
fn j4_written_in_reverse_order_gets_the_same_plan() {
    let mut c = setup();
    let good = plan(
        &mut c,
        "SELECT c.region, count(*), sum(i.qty * i.price) FROM cust c JOIN orders o \
         ON o.cust_id = c.id JOIN items i ON i.order_id = o.id GROUP BY c.region",
    );
    let bad = plan(
        &mut c,
        "SELECT c.region, count(*), sum(i.qty * i.price) FROM items i, orders o, cust c \
         WHERE i.order_id = o.id AND o.cust_id = c.id GROUP BY c.region",
    );
    assert_eq!(good, bad);
}

#[test]
fn j5_point_join_is_two_rowid_lookups() {
    assert_plan(
        "SELECT o.id, o.amount, c.name, c.region FROM orders o JOIN cust c ON c.id = o.cust_id \
         WHERE o.id = ?",
        &[
            "SEARCH orders AS o USING INTEGER PRIMARY KEY (rowid=?)",
            "SEARCH cust AS c USING INTEGER PRIMARY KEY (rowid=?)",
        ],
    );
}

#[test]
fn j6_left_join_keeps_its_order_and_hashes_the_right_side_it_reads_whole() {
    // Every customer probes orders: one pass hashing them beats a table
    // lookup per order.
    assert_plan(
        "SELECT c.region, count(*), count(o.id), sum(o.amount) FROM cust c LEFT JOIN orders o \
         ON o.cust_id = c.id GROUP BY c.region",
        &[
            "SCAN cust AS c",
            "SCAN orders AS o (HASH JOIN)",
            "USE TEMP B-TREE FOR GROUP BY",
        ],
    );
    // A few customers probe a few orders: the index.
    assert_plan(
        "SELECT c.region, count(*), count(o.id), sum(o.amount) FROM cust c LEFT JOIN orders o \
         ON o.cust_id = c.id WHERE c.id < 3 GROUP BY c.region",
        &[
            "SEARCH cust AS c USING INTEGER PRIMARY KEY (rowid<?)",
            "SEARCH orders AS o USING INDEX orders_cust (cust_id=?)",
            "USE TEMP B-TREE FOR GROUP BY",
        ],
    );
}

const J7: &str = "SELECT c.region, count(*), sum(o.amount) FROM orders o JOIN cust c \
                  ON c.code = o.cust_code GROUP BY c.region";

#[test]
fn j7_non_indexed_join_is_a_hash_join() {
    let mut c = setup();
    let p = plan(&mut c, J7);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p[1].ends_with("(HASH JOIN)"), "{p:?}");
    assert_eq!(p[2], "USE TEMP B-TREE FOR GROUP BY");
}

#[test]
fn j7_hash_table_is_built_on_the_small_side() {
    assert_plan(
        J7,
        &[
            "SCAN orders AS o",
            "SCAN cust AS c (HASH JOIN)",
            "USE TEMP B-TREE FOR GROUP BY",
        ],
    );
}

// --- index workloads on `a` ---

#[test]
fn equality_lookup_uses_the_index() {
    assert_plan(
        "SELECT count(*), sum(c), max(id) FROM a WHERE b = ?",
        &["SEARCH a USING INDEX a_b (b=?)"],
    );
}

#[test]
fn equality_count_is_a_covering_index_search() {
    assert_plan(
        "SELECT count(*), max(id) FROM a WHERE b = ?",
        &["SEARCH a USING COVERING INDEX a_b (b=?)"],
    );
}

#[test]
fn range_lookup_uses_the_index() {
    assert_plan(
        "SELECT count(*), sum(c), max(id) FROM a WHERE b >= ? AND b < ?",
        &["SEARCH a USING INDEX a_b (b>? AND b<?)"],
    );
}

#[test]
fn composite_lookup_uses_prefix_and_range() {
    assert_plan(
        "SELECT count(*), sum(b), max(id) FROM a WHERE d = ? AND c > 500",
        &["SEARCH a USING INDEX a_dc (d=? AND c>?)"],
    );
}

#[test]
fn composite_lookup_reading_only_key_columns_is_covering() {
    assert_plan(
        "SELECT count(*), sum(c), max(id) FROM a WHERE d = ? AND c > 500",
        &["SEARCH a USING COVERING INDEX a_dc (d=? AND c>?)"],
    );
}

#[test]
fn expression_lookup_with_literal_uses_the_expression_index() {
    assert_plan(
        "SELECT id, e FROM a WHERE lower(e) = 'name3'",
        &["SEARCH a USING INDEX a_le (<expr>=?)"],
    );
}

#[test]
fn expression_lookup_with_parameter_uses_the_expression_index() {
    assert_plan(
        "SELECT id, e FROM a WHERE lower(e) = ?",
        &["SEARCH a USING INDEX a_le (<expr>=?)"],
    );
}

#[test]
fn expression_lookup_reading_only_the_rowid_is_covering() {
    // I7: the seek enforces lower(e) = ? exactly, so e is not read.
    assert_plan(
        "SELECT id FROM a WHERE lower(e) = ?",
        &["SEARCH a USING COVERING INDEX a_le (<expr>=?)"],
    );
}

#[test]
fn rowid_range_of_update_and_delete_is_a_primary_key_search() {
    // The WHERE of the UPDATE and DELETE workloads, as a query.
    assert_plan(
        "SELECT b FROM a WHERE id > ?1 AND id <= ?2",
        &["SEARCH a USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"],
    );
}

#[test]
#[ignore = "EXPLAIN QUERY PLAN supports SELECT statements only (exec/statement.rs)"]
fn update_and_delete_explain_their_rowid_range() {
    let expected = ["SEARCH a USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"];
    assert_plan(
        "UPDATE a SET b = (b + 1) % ?3 WHERE id > ?1 AND id <= ?2",
        &expected,
    );
    assert_plan("DELETE FROM a WHERE id > ?1 AND id <= ?2", &expected);
}

#[test]
fn indexes_are_consistent_after_the_write_workloads() {
    // The benchmark's writes, then the lookups through each index agree
    // with a full scan (NOT INDEXED is not needed: `+b` defeats the index).
    let mut c = setup();
    c.execute_batch(
        "UPDATE a SET b = (b + 1) % 50 WHERE id > 100 AND id <= 200;
         DELETE FROM a WHERE id > 300 AND id <= 350;
         INSERT INTO a SELECT id + 1000, b, c, d, upper(e) FROM a WHERE id <= 40;",
    )
    .expect("writes");
    let q = |c: &mut Connection, sql: &str| {
        let mut rows = c.execute(sql, &Params::None).expect(sql).rows;
        rows.sort_by_key(|r| format!("{r:?}"));
        rows
    };
    for (indexed, scanned) in [
        (
            "SELECT id FROM a WHERE b = 7",
            "SELECT id FROM a WHERE +b = 7",
        ),
        (
            "SELECT id FROM a WHERE d = 7 AND c > 500",
            "SELECT id FROM a WHERE +d = 7 AND +c > 500",
        ),
        (
            "SELECT id FROM a WHERE lower(e) = 'name7'",
            "SELECT id FROM a WHERE lower(e) || '' = 'name7'",
        ),
    ] {
        assert_eq!(q(&mut c, indexed), q(&mut c, scanned), "{indexed}");
    }
    assert_eq!(
        c.execute("PRAGMA integrity_check", &Params::None)
            .expect("check")
            .rows,
        vec![vec![Value::Text("ok".into())]]
    );
}
