//! Prepares arbitrary text as SQL against a small schema: the lexer, the
//! parser (and the binder behind `prepare`) must return a statement or a
//! typed error, never panic, hang or overflow the stack.
#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use tinyjoin_engine::db::{Connection, Database};

thread_local! {
    static CONNECTION: RefCell<Connection> = RefCell::new({
        let db = Database::open_in_memory().expect("an in-memory database opens");
        let mut conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
             CREATE TABLE u(x, y, z);
             CREATE INDEX t_b ON t(b);
             CREATE VIEW v AS SELECT a, b FROM t;",
        )
        .expect("the fuzz schema is valid");
        conn
    });
}

fuzz_target!(|data: &[u8]| {
    let Ok(sql) = std::str::from_utf8(data) else {
        return;
    };
    CONNECTION.with(|conn| {
        let _ = conn.borrow_mut().prepare(sql);
    });
});
