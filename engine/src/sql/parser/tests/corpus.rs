//! Every `statement ok` and `query` record of the sqllogictest corpus that
//! runs for SQLite must parse.

use std::path::{Path, PathBuf};

use super::support::assert_round_trip;
use crate::slt::{self, RecordKind, DIALECT};

/// The corpus lives next to the repository (`/work/shared/sqllogictest`);
/// `TINYJOIN_SLT_DIR` overrides it.
pub(super) fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TINYJOIN_SLT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/sqllogictest"));
    dir.is_dir().then_some(dir)
}

/// Round-tripping every record through rendering takes ~20 s; a fixed
/// sample of one in five keeps the test quick and still covers every file.
const ROUND_TRIP_EVERY: usize = 5;

/// Also checks that sampled statements render back to the same tree.
#[test]
fn every_sqlite_statement_and_query_in_the_corpus_parses() {
    let Some(dir) = corpus_dir() else {
        eprintln!("sqllogictest corpus not found; skipping");
        return;
    };
    let files = slt::collect_test_files(&[dir]).expect("corpus files are listable");
    assert!(!files.is_empty());
    let (mut parsed, mut failures) = (0usize, Vec::new());
    for file in &files {
        let text = std::fs::read_to_string(file).expect("corpus file is UTF-8");
        for record in slt::parse(&text) {
            if !record.runs_on(DIALECT) {
                continue;
            }
            let sql = match &record.kind {
                RecordKind::Statement {
                    expect_error: false,
                    sql,
                } => sql,
                RecordKind::Query(query) => &query.sql,
                _ => continue,
            };
            match crate::sql::parser::parse(sql) {
                Ok(statements) if !statements.is_empty() => {
                    parsed += 1;
                    if parsed % ROUND_TRIP_EVERY == 0 {
                        for statement in &statements {
                            assert_round_trip(statement, sql);
                        }
                    }
                }
                Ok(_) => failures.push(format!("{}:{}: no statement", file.display(), record.line)),
                Err(e) => failures.push(format!(
                    "{}:{}: {e}\n    {sql}",
                    file.display(),
                    record.line
                )),
            }
        }
    }
    eprintln!("parsed {parsed} corpus records from {} files", files.len());
    assert!(
        failures.is_empty(),
        "{} of {} records failed:\n{}",
        failures.len(),
        parsed + failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}
