//! Syntax acceptance against SQLite itself: every statement form, and
//! random one-token mutations of them and of the sqllogictest corpus's
//! statements (a token deleted, inserted or replaced), must be rejected as
//! a syntax error by both parsers or by neither. SQLite checks some names while it parses, so it runs against a
//! schema with the tables the statements use, and statements whose first
//! clause SQLite resolves before parsing the rest (ALTER TABLE, CREATE of an
//! existing table, transactions) are left out. Seeded: `TINYJOIN_SEED=<n>`.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::statements::STATEMENTS;
use crate::error::Error;
use crate::slt::{self, RecordKind, DIALECT};
use crate::sql::lexer::{Lexer, TokenKind};
use crate::sql::parser::parse;
use crate::sql::values_vs_sqlite::seed;

fn tokens(sql: &str) -> Vec<&str> {
    let mut lexer = Lexer::new(sql, 0);
    let mut out = Vec::new();
    loop {
        let t = lexer.next_token();
        if matches!(t.kind, TokenKind::Eof | TokenKind::Illegal) {
            return out;
        }
        out.push(&sql[t.start..t.end]);
    }
}

/// `base` with one random token deleted, inserted (from `vocabulary`) or
/// replaced.
fn mutate(rng: &mut SmallRng, base: &[&str], vocabulary: &[&str]) -> String {
    let mut t = base.to_vec();
    let word = vocabulary[rng.gen_range(0..vocabulary.len())];
    match rng.gen_range(0..3) {
        0 if !t.is_empty() => {
            let i = rng.gen_range(0..t.len());
            t.remove(i);
        }
        1 => t.insert(rng.gen_range(0..=t.len()), word),
        _ if !t.is_empty() => {
            let i = rng.gen_range(0..t.len());
            t[i] = word;
        }
        _ => {}
    }
    t.join(" ")
}

fn sqlite_with_schema() -> rusqlite::Connection {
    let conn = rusqlite::Connection::open_in_memory().expect("sqlite opens");
    let columns = "a, b, c, d, x, y, z, id, name, price, neg, r, s, flag, w, f, g, h, n, ts";
    for table in [
        "t",
        "u",
        "w",
        "p",
        "q",
        "a",
        "b",
        "c",
        "d",
        "e",
        "f",
        "g",
        "x",
        "left",
        "\"order\"",
    ] {
        conn.execute_batch(&format!("CREATE TABLE {table}({columns});"))
            .expect("schema");
    }
    conn.execute_batch("CREATE VIEW v AS SELECT 1 AS a; CREATE INDEX i ON t(b);")
        .expect("schema");
    conn
}

/// Whether SQLite's error for `sql` comes from its parser. Some errors
/// SQLite raises while parsing are plain syntax errors for us.
fn sqlite_rejects_syntax(conn: &rusqlite::Connection, sql: &str) -> Option<String> {
    let e = conn.prepare(sql).err()?.to_string();
    let syntax = [
        "syntax error",
        "incomplete input",
        "unrecognized token",
        "a JOIN clause is required before",
        "unknown join type",
        "all VALUES must have the same number of terms",
        "unknown table option",
        "columns assigned",
        "should come after",
    ];
    syntax.iter().any(|s| e.contains(s)).then_some(e)
}

/// Statements whose mutations SQLite judges partly by schema lookups made
/// before it has parsed the whole text.
fn skipped(sql: &str) -> bool {
    [
        "ALTER",
        "CREATE TABLE",
        "CREATE TEMP",
        "CREATE INDEX",
        "CREATE UNIQUE",
        "CREATE VIEW",
        "DROP",
        "ROLLBACK",
    ]
    .iter()
    .any(|p| sql.starts_with(p))
        || [
            "SAVEPOINT",
            "RELEASE",
            "BEGIN",
            "COMMIT",
            "END",
            "VACUUM",
            "REINDEX",
            "ANALYZE",
            ";",
        ]
        .iter()
        .any(|w| sql.contains(w))
}

fn agree(conn: &rusqlite::Connection, sql: &str) -> Result<(), String> {
    let theirs = sqlite_rejects_syntax(conn, sql);
    // SQLite also says this of a compound whose `*` expands to a different
    // width, which only the binder can tell.
    if theirs
        .as_deref()
        .is_some_and(|e| e.contains("all VALUES must have"))
    {
        return Ok(());
    }
    let ours = match parse(sql) {
        Err(e @ Error::Syntax { .. }) => Some(e.to_string()),
        _ => None,
    };
    // SQLite checks the width of a row assignment's subquery only after
    // resolving the subquery, so an error found there (a HAVING without an
    // aggregate, an unknown name) is the one it reports: both reject the
    // statement, with different first errors.
    if theirs.is_none()
        && ours
            .as_deref()
            .is_some_and(|e| e.contains("columns assigned"))
        && conn.prepare(sql).is_err()
    {
        return Ok(());
    }
    match (&ours, &theirs) {
        (Some(_), None) | (None, Some(_)) => {
            Err(format!("{sql}\n    ours: {ours:?}\n    SQLite: {theirs:?}"))
        }
        _ => Ok(()),
    }
}

#[test]
fn statement_forms_are_valid_sqlite() {
    let conn = sqlite_with_schema();
    for sql in STATEMENTS {
        assert_eq!(sqlite_rejects_syntax(&conn, sql), None, "{sql}");
    }
}

#[test]
fn mutated_statements_are_rejected_exactly_when_sqlite_rejects_them() {
    let conn = sqlite_with_schema();
    let mut rng = SmallRng::seed_from_u64(seed());
    let vocabulary: Vec<&str> = STATEMENTS.iter().flat_map(|s| tokens(s)).collect();
    let bases: Vec<Vec<&str>> = STATEMENTS
        .iter()
        .filter(|s| !skipped(s))
        .map(|s| tokens(s))
        .collect();
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for _ in 0..20_000 {
        let base = &bases[rng.gen_range(0..bases.len())];
        let sql = mutate(&mut rng, base, &vocabulary);
        if skipped(&sql) {
            continue;
        }
        checked += 1;
        if let Err(d) = agree(&conn, &sql) {
            disagreements.push(d);
        }
    }
    println!("checked {checked} mutations");
    assert!(
        disagreements.is_empty(),
        "{} disagreements, e.g.:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(20)].join("\n")
    );
}

/// Per corpus file: its schema is built in SQLite by running its
/// statements, then mutations of its statements and queries are judged.
#[test]
fn mutated_corpus_statements_are_rejected_exactly_when_sqlite_rejects_them() {
    const MUTATIONS_PER_FILE: usize = 300;
    let Some(dir) = super::corpus::corpus_dir() else {
        eprintln!("sqllogictest corpus not found; skipping");
        return;
    };
    let files = slt::collect_test_files(&[dir]).expect("corpus files are listable");
    let mut rng = SmallRng::seed_from_u64(seed());
    let mut disagreements = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("corpus file is UTF-8");
        let conn = rusqlite::Connection::open_in_memory().expect("sqlite opens");
        let mut sources = Vec::new();
        for record in slt::parse(&text) {
            match &record.kind {
                RecordKind::Statement { sql, .. } if record.runs_on(DIALECT) => {
                    // Only the schema matters; failures are part of the corpus.
                    let _ = conn.execute_batch(sql);
                    sources.push(sql.clone());
                }
                RecordKind::Query(query) if record.runs_on(DIALECT) => {
                    sources.push(query.sql.clone())
                }
                _ => {}
            }
        }
        let vocabulary: Vec<&str> = sources.iter().take(200).flat_map(|s| tokens(s)).collect();
        if sources.is_empty() || vocabulary.is_empty() {
            continue;
        }
        for _ in 0..MUTATIONS_PER_FILE {
            let base = tokens(&sources[rng.gen_range(0..sources.len())]);
            let sql = mutate(&mut rng, &base, &vocabulary);
            if skipped(&sql) {
                continue;
            }
            if let Err(d) = agree(&conn, &sql) {
                disagreements.push(d);
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements, e.g.:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(20)].join("\n")
    );
}
