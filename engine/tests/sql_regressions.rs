//! Regression tests for SQL bugs found outside the differential suites.

use tinyjoin_engine::db::{Database, Params};

/// Bug: `SELECT z= ECT z` (found by the `parse` fuzz target) overflowed the
/// stack: the result alias `z` was expanded inside its own definition
/// `z = ECT`, again and again. An alias is no longer expanded within its
/// own expansion, so this is "no such column", as in SQLite.
#[test]
fn alias_referring_to_itself_is_an_error_not_a_stack_overflow() {
    let db = Database::open_in_memory().unwrap();
    let mut conn = db.connect();
    for sql in [
        "SELECT z= ECT z",
        "SELECT a + 1 AS a",
        "SELECT b AS a, a AS b",
        "SELECT 1 AS x ORDER BY x + (SELECT x)",
    ] {
        let r = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                let db = Database::open_in_memory().unwrap();
                let mut conn = db.connect();
                conn.execute(sql, &Params::None).map(|_| ())
            })
            .unwrap()
            .join()
            .expect("no panic or overflow");
        if let Err(e) = r {
            assert_eq!(e.code(), "SQL_ERROR", "{sql}: {e}");
        }
    }
    let r = conn.execute("SELECT 1 AS a ORDER BY a", &Params::None).unwrap();
    assert_eq!(r.rows.len(), 1);
}
