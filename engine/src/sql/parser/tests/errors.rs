//! Syntax errors: the same message and byte position as SQLite's own
//! (`sqlite3_prepare` through rusqlite reports both), for common mistakes.

use crate::error::Error;
use crate::sql::parser::parse;

/// Malformed statements, each with its mistake.
const MISTAKES: &[&str] = &[
    "SELECT * FORM t",
    "SELECT a b c FROM t",
    "SELECT FROM t",
    "SELECT * FROM",
    "SELECT * FROM t WHERE",
    "SELECT * FROM t WHERE a = ",
    "SELECT (1 + 2",
    "SELECT 1 + 2)",
    "SELECT * FROM t ORDER a",
    "SELECT * FROM t GROUP a",
    "SELECT * FROM t LIMIT",
    "SELECT 'abc",
    "SELECT \"abc",
    "SELECT [abc",
    "SELECT x'abc'",
    "SELECT x'zz'",
    "SELECT 1abc",
    "SELECT #",
    "SELECT 1 !",
    "SELECT a FROM t WHERE a NOT 1",
    "SELECT CASE END",
    "SELECT CASE WHEN 1 END",
    "SELECT CAST(1 AS)",
    "SELECT CAST(1)",
    "SELECT count(*",
    "SELECT a BETWEEN 1",
    "SELECT a IN 1",
    "SELECT a IS",
    "INSERT INTO t VALUES",
    "INSERT INTO t VALUES (1,)",
    "INSERT INTO t (a, b VALUES (1, 2)",
    "INSERT t VALUES (1)",
    "INSERT INTO t VALUES (1) ON CONFLICT DO",
    "UPDATE t SET",
    "UPDATE t SET a",
    "UPDATE t a = 1",
    "DELETE t WHERE a = 1",
    "DELETE FROM WHERE a = 1",
    "CREATE TABLE t",
    "CREATE TABLE t ()",
    "CREATE TABLE t (a INT,)",
    "CREATE TABLE t (a INT PRIMARY)",
    "CREATE TABLE t (a VARCHAR(x))",
    "CREATE INDEX i ON t",
    "CREATE INDEX i t (a)",
    "CREATE VIEW v SELECT 1",
    "DROP t",
    "DROP TABLE",
    "ALTER TABLE tt ADD",
    "ALTER TABLE tt RENAME",
    "BEGIN FOO",
    "ROLLBACK TO",
    "PRAGMA",
    "SELECT 1 UNION",
    "SELECT 1 UNION ALL ALL SELECT 2",
    "WITH x AS SELECT 1 SELECT * FROM x",
    "WITH x AS (SELECT 1)",
    "VALUES (1) ORDER BY 1",
    "VALUES",
    "SELECT a FROM t JOIN",
    "SELECT a FROM t JOIN u ON",
    "SELECT a FROM t LEFT u ON 1",
    "SELECT sum(a) OVER (ROWS 1) FROM t",
    "EXPLAIN",
    "selectt 1",
    "SELECT * FROM t WHERE a = 1 AND",
    "SELECT * FROM t t2 t3",
];

/// SQLite's error for `sql`. SQLite gives "incomplete input" no offset;
/// ours is the end of the text, which is used for it.
fn sqlite_error(conn: &rusqlite::Connection, sql: &str) -> Option<(String, usize)> {
    match conn.execute_batch(sql) {
        Ok(()) => None,
        Err(rusqlite::Error::SqlInputError { msg, offset, .. }) => {
            let offset = usize::try_from(offset).unwrap_or(sql.len());
            Some((msg, offset))
        }
        Err(e) => Some((e.to_string(), sql.len())),
    }
}

#[test]
fn syntax_errors_match_sqlite_message_and_position() {
    let conn = rusqlite::Connection::open_in_memory().expect("sqlite opens");
    conn.execute_batch("CREATE TABLE tt(a)").expect("schema");
    let mut mismatches = Vec::new();
    for sql in MISTAKES {
        let ours = match parse(sql) {
            Err(Error::Syntax { message, position }) => Some((message, position)),
            _ => None,
        };
        let theirs = sqlite_error(&conn, sql);
        if ours != theirs {
            mismatches.push(format!(
                "{sql:?}\n    ours:   {ours:?}\n    SQLite: {theirs:?}"
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {}:\n{}",
        mismatches.len(),
        MISTAKES.len(),
        mismatches.join("\n")
    );
}

#[test]
fn positions_are_offsets_into_the_whole_script() {
    let sql = "SELECT 1; SELEC 2";
    match parse(sql) {
        Err(Error::Syntax { message, position }) => {
            assert_eq!(
                (message.as_str(), position),
                ("near \"SELEC\": syntax error", 10)
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn unsupported_statements_are_sql_errors() {
    for (sql, message) in [
        (
            "CREATE VIRTUAL TABLE f USING fts5(a)",
            "virtual tables are not supported",
        ),
        ("ATTACH 'x.db' AS x", "ATTACH is not supported"),
    ] {
        match parse(sql) {
            Err(Error::Sql {
                message: m,
                position: Some(0),
            }) => assert_eq!(m, message, "{sql}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
}
