//! Statement parsing: one case per statement form, each also checked to
//! render back to an identical tree.

use super::support::{assert_round_trip, one};
use crate::sql::ast::*;

/// Every statement form the parser supports, in SQLite syntax.
pub(super) const STATEMENTS: &[&str] = &[
    // Queries.
    "SELECT 1",
    "SELECT DISTINCT a, b AS c, t.*, * FROM t",
    "SELECT ALL a x, b 'y' FROM t AS u, v w WHERE a > 1 GROUP BY a, b HAVING count(*) > 1",
    "SELECT * FROM a JOIN b ON a.x = b.x LEFT JOIN c USING (x, y) LEFT OUTER JOIN d CROSS JOIN e NATURAL JOIN f INNER JOIN g ON 1",
    "SELECT * FROM a RIGHT JOIN b ON 1 FULL OUTER JOIN c ON 1 NATURAL LEFT JOIN d",
    "SELECT * FROM (SELECT 1 AS x) AS s, (a JOIN b ON 1), json_each('[1]') AS j",
    "SELECT * FROM t INDEXED BY i WHERE x",
    "SELECT * FROM t NOT INDEXED",
    "SELECT * FROM main.t",
    "SELECT left.right, inner(outer) FROM left AS natural JOIN \"cross\"",
    "VALUES (1, 'a'), (2, 'b')",
    "SELECT * FROM (VALUES (1), (2))",
    "SELECT a FROM t UNION SELECT b FROM u UNION ALL SELECT c FROM v INTERSECT SELECT d FROM w EXCEPT VALUES (1) EXCEPT SELECT 2 ORDER BY 1 DESC NULLS LAST, 2 COLLATE nocase ASC NULLS FIRST LIMIT 10 OFFSET 5",
    "SELECT a FROM t LIMIT 5, 10",
    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 10) SELECT n FROM c",
    "WITH a AS MATERIALIZED (SELECT 1), b AS NOT MATERIALIZED (SELECT 2) SELECT * FROM a, b",
    "SELECT sum(x) OVER w, rank() OVER (w ORDER BY y) FROM t WINDOW w AS (PARTITION BY z), v AS (ORDER BY x RANGE UNBOUNDED PRECEDING)",
    "SELECT sum(x) OVER (ORDER BY y GROUPS BETWEEN UNBOUNDED PRECEDING AND 2 FOLLOWING EXCLUDE TIES) FROM t",
    "SELECT sum(x) OVER (ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE NO OTHERS) FROM t",
    "SELECT sum(x) OVER (ROWS 3 PRECEDING EXCLUDE CURRENT ROW), sum(x) OVER (ROWS 3 PRECEDING EXCLUDE GROUP) FROM t",
    "SELECT x FROM t WHERE x IN (SELECT y FROM u) AND EXISTS (SELECT 1 FROM v WHERE v.a = t.a)",
    "SELECT (SELECT 1), (1, 2) = (SELECT 1, 2), x -> '$.a', x ->> '$.b'",
    "SELECT CASE WHEN a IS NULL THEN 'x' WHEN a ISNULL THEN 'y' END, a NOTNULL, a NOT NULL",
    "SELECT a COLLATE \"NOCASE\" FROM t ORDER BY a COLLATE binary",
    "SELECT ?1, :name, @v, $w, ?",
    "SELECT key, action, replace(a, b, c), \"select\", [from], `where` FROM \"order\"",
    // Data changes.
    "INSERT INTO t VALUES (1, 2), (3, 4)",
    "INSERT INTO main.t AS x (a, b) VALUES (1, 2) RETURNING *, a + 1 AS b",
    "INSERT OR REPLACE INTO t SELECT * FROM u",
    "INSERT OR IGNORE INTO t DEFAULT VALUES",
    "INSERT OR ABORT INTO t VALUES (1)",
    "INSERT OR FAIL INTO t VALUES (1)",
    "INSERT OR ROLLBACK INTO t VALUES (1)",
    "REPLACE INTO t (a) VALUES (1)",
    "INSERT INTO t (a, b) VALUES (1, 2) ON CONFLICT (a) DO UPDATE SET b = excluded.b WHERE b < excluded.b",
    "INSERT INTO t VALUES (1) ON CONFLICT (a COLLATE nocase, b DESC) WHERE a > 0 DO NOTHING ON CONFLICT DO NOTHING",
    "INSERT INTO t SELECT * FROM u WHERE true ON CONFLICT DO UPDATE SET (a, b) = (1, 2)",
    "INSERT INTO t VALUES (1) UNION SELECT 2",
    "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x",
    "UPDATE t SET a = 1, b = b + 1 WHERE c = 2 RETURNING a",
    "UPDATE OR IGNORE main.t AS x INDEXED BY i SET (a, b) = (SELECT 1, 2) FROM u WHERE x.id = u.id",
    "WITH x AS (SELECT 1) UPDATE t SET a = (SELECT * FROM x)",
    "DELETE FROM t WHERE a = 1 RETURNING *",
    "DELETE FROM main.t AS x NOT INDEXED",
    "WITH x AS (SELECT 1) DELETE FROM t WHERE a IN x",
    // Schema.
    "CREATE TABLE t (a)",
    "CREATE TABLE IF NOT EXISTS main.t (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE COLLATE NOCASE, price DECIMAL(10, 2) DEFAULT 0, neg INT DEFAULT -1, r REAL DEFAULT +1.5, s TEXT DEFAULT 'x', d DEFAULT (datetime('now')), b BLOB DEFAULT x'00', n DEFAULT NULL, ts DEFAULT CURRENT_TIMESTAMP, flag BOOL DEFAULT true, w DEFAULT word, c CHECK (c > 0), f INTEGER REFERENCES p(id) ON DELETE CASCADE ON UPDATE SET NULL, g AS (a + 1) STORED, h GENERATED ALWAYS AS (a * 2) VIRTUAL)",
    "CREATE TABLE t (a INT CONSTRAINT pk PRIMARY KEY DESC ON CONFLICT REPLACE, b UNSIGNED BIG INT NULL, c VARCHAR(-5), PRIMARY KEY (a, b), UNIQUE (b) ON CONFLICT IGNORE, CONSTRAINT ck CHECK (a < b), FOREIGN KEY (c) REFERENCES p (x) ON DELETE SET DEFAULT ON UPDATE RESTRICT DEFERRABLE INITIALLY DEFERRED, FOREIGN KEY (a) REFERENCES q ON DELETE NO ACTION MATCH simple NOT DEFERRABLE) WITHOUT ROWID, STRICT",
    "CREATE TABLE t (a INTEGER, PRIMARY KEY (a AUTOINCREMENT)) STRICT",
    "CREATE TABLE t (a TEXT DEFAULT -'x', b REFERENCES p NOT DEFERRABLE, c TEXT GENERATED, d INT) , WITHOUT ROWID",
    "CREATE TABLE t (a, b, UNIQUE (a) CHECK (b))",
    "CREATE TEMP TABLE t AS SELECT * FROM u",
    "CREATE TEMPORARY TABLE \"my table\" ([my col] \"my type\", 'x' TEXT)",
    "CREATE INDEX i ON t (a)",
    "CREATE UNIQUE INDEX IF NOT EXISTS main.i ON t (lower(a) COLLATE nocase DESC, b ASC) WHERE b IS NOT NULL",
    "CREATE VIEW v AS SELECT * FROM t",
    "CREATE TEMP VIEW IF NOT EXISTS v (a, b) AS SELECT 1, 2",
    "DROP TABLE t",
    "DROP TABLE IF EXISTS main.t",
    "DROP INDEX IF EXISTS i",
    "DROP VIEW v",
    "ALTER TABLE t RENAME TO u",
    "ALTER TABLE t RENAME COLUMN a TO b",
    "ALTER TABLE t RENAME a TO b",
    "ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 0",
    "ALTER TABLE t ADD c",
    "ALTER TABLE t DROP COLUMN c",
    "ALTER TABLE t DROP c",
    // Transactions and the rest.
    "BEGIN",
    "BEGIN DEFERRED TRANSACTION",
    "BEGIN IMMEDIATE",
    "BEGIN EXCLUSIVE TRANSACTION",
    "COMMIT",
    "END TRANSACTION",
    "COMMIT TRANSACTION",
    "ROLLBACK",
    "ROLLBACK TRANSACTION",
    "ROLLBACK TO sp",
    "ROLLBACK TRANSACTION TO SAVEPOINT sp",
    "SAVEPOINT sp",
    "RELEASE sp",
    "RELEASE SAVEPOINT sp",
    "EXPLAIN SELECT 1",
    "EXPLAIN QUERY PLAN SELECT * FROM t WHERE a = 1",
    "PRAGMA foreign_keys",
    "PRAGMA foreign_keys = ON",
    "PRAGMA main.journal_mode = 'wal'",
    "PRAGMA synchronous = FULL",
    "PRAGMA cache_size = -2000",
    "PRAGMA table_info(t)",
    "PRAGMA table_info('t')",
    "ANALYZE",
    "ANALYZE main.t",
    "VACUUM",
    "VACUUM main INTO 'file.db'",
    "REINDEX",
    "REINDEX t",
];

#[test]
fn every_statement_form_parses_and_round_trips() {
    for sql in STATEMENTS {
        assert_round_trip(&one(sql), sql);
    }
}

#[test]
fn select_shape() {
    let Statement::Select(s) = one("SELECT a AS x, b FROM t WHERE c LIMIT 1, 2") else {
        panic!("select")
    };
    let SelectCore::Select(core) = &s.first else {
        panic!("core")
    };
    assert_eq!(core.columns.len(), 2);
    let ResultColumn::Expr { alias, text, .. } = &core.columns[0] else {
        panic!("expr column")
    };
    assert_eq!((alias.as_deref(), text.as_str()), (Some("x"), "a"));
    let limit = s.limit.as_ref().expect("limit");
    assert_eq!(limit.limit.kind, ExprKind::Literal(Literal::Integer(2)));
    assert_eq!(
        limit.offset.as_ref().map(|e| &e.kind),
        Some(&ExprKind::Literal(Literal::Integer(1)))
    );
}

#[test]
fn result_column_text_is_the_source_span() {
    let Statement::Select(s) = one("SELECT a+1 , count( * ) c FROM t") else {
        panic!("select")
    };
    let SelectCore::Select(core) = &s.first else {
        panic!("core")
    };
    let texts: Vec<&str> = core
        .columns
        .iter()
        .map(|c| match c {
            ResultColumn::Expr { text, .. } => text.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(texts, vec!["a+1", "count( * )"]);
}

#[test]
fn insert_values_and_upsert_shape() {
    let Statement::Insert(i) = one("INSERT INTO t(a) VALUES (1), (2) ON CONFLICT(a) DO NOTHING")
    else {
        panic!("insert")
    };
    assert_eq!(i.columns, vec!["a".to_string()]);
    let InsertSource::Values(rows) = &i.source else {
        panic!("values")
    };
    assert_eq!(rows.len(), 2);
    assert_eq!(i.upsert.len(), 1);
    assert_eq!(i.upsert[0].action, UpsertAction::Nothing);
    let Statement::Insert(i) = one("REPLACE INTO t VALUES (1)") else {
        panic!("insert")
    };
    assert_eq!(i.or, Some(ConflictResolution::Replace));
}

#[test]
fn create_table_shape() {
    let Statement::CreateTable(c) =
        one("CREATE TABLE t (id INTEGER PRIMARY KEY, name varchar(20) NOT NULL DEFAULT 'x', UNIQUE (name))")
    else {
        panic!("create table")
    };
    let CreateTableBody::Columns {
        columns,
        constraints,
        without_rowid,
        strict,
    } = &c.body
    else {
        panic!("columns")
    };
    assert_eq!(columns.len(), 2);
    assert_eq!(constraints.len(), 1);
    assert!(!without_rowid && !strict);
    assert_eq!(
        columns[0].type_name.as_ref().map(|t| t.name.as_str()),
        Some("INTEGER")
    );
    assert_eq!(
        columns[1].type_name,
        Some(TypeName {
            name: "varchar".into(),
            args: vec!["20".into()]
        })
    );
    assert_eq!(columns[1].constraints.len(), 2);
    let ColumnConstraintKind::Default(d) = &columns[1].constraints[1].kind else {
        panic!("default")
    };
    assert_eq!(d.kind, ExprKind::Literal(Literal::Text("x".into())));
}

#[test]
fn explain_wraps_the_statement() {
    let Statement::Explain {
        query_plan: true,
        statement,
        ..
    } = one("EXPLAIN QUERY PLAN DELETE FROM t")
    else {
        panic!("explain")
    };
    assert!(matches!(*statement, Statement::Delete(_)));
}

#[test]
fn rendering_examples() {
    let cases = [
        (
            "select a<>b, x not between 1 and 2 from t where not a",
            "SELECT a != b, x NOT BETWEEN 1 AND 2 FROM t WHERE NOT a",
        ),
        (
            "SELECT - -1, -(-9223372036854775808)",
            "SELECT -(-1), -(-9223372036854775808)",
        ),
        (
            "insert into t values(1,'a''b',x'ff',null,1.5e10)",
            "INSERT INTO t VALUES (1, 'a''b', X'FF', NULL, 15000000000.0)",
        ),
        (
            "create table \"t t\"(\"a\"\"b\" int default -1)",
            "CREATE TABLE \"t t\" (\"a\"\"b\" int DEFAULT -1)",
        ),
        (
            "select * from t limit 1, 2",
            "SELECT * FROM t LIMIT 2 OFFSET 1",
        ),
    ];
    for (sql, expected) in cases {
        assert_eq!(one(sql).to_string(), expected);
    }
}
