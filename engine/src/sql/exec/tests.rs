//! Golden-script tests of the executor and planner, run on an in-memory
//! [`MemKv`]: each file in `src/sql/testscripts/<topic>/` is a sequence of
//! `> statement` lines, each followed by its output (rows as `a|b|c`, or
//! `Error: message`). The test re-runs every statement and compares the
//! whole transcript with the file; `UPDATE_GOLDEN=1` rewrites the files
//! instead, so a plan change is reviewed as a diff.

use std::path::{Path, PathBuf};

use super::dml::DmlOptions;
use super::kv::MemKv;
use super::statement;
use crate::sql::catalog::Catalog;
use crate::sql::parser;
use crate::sql::value::{real_to_text, Value};

fn render(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => real_to_text(*r),
        Value::Text(s) => s.clone(),
        Value::Blob(b) => format!(
            "x'{}'",
            b.iter().map(|x| format!("{x:02x}")).collect::<String>()
        ),
    }
}

/// Runs a script's statements and returns the transcript.
fn transcript(script: &str) -> String {
    let mut kv = MemKv::default();
    let mut cat = Catalog::default();
    let opts = DmlOptions {
        foreign_keys: true,
        recursive_triggers: false,
        defer_foreign_keys: false,
        batch_limit: 16 << 20,
    };
    let mut out = String::new();
    for line in script.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let Some(sql) = line.strip_prefix("> ") else {
            continue;
        };
        out.push_str(line);
        out.push('\n');
        // Statement atomicity, as the connection's savepoints give it.
        let (kv_before, cat_before) = (kv.clone(), cat.clone());
        let result = parser::parse(sql).and_then(|stmts| {
            let mut rows = Vec::new();
            for s in &stmts {
                rows = statement::run(&mut kv, &mut cat, s, sql, &[], opts)?.rows;
            }
            Ok(rows)
        });
        match result {
            Ok(rows) => {
                for r in rows {
                    out.push_str(&r.iter().map(render).collect::<Vec<_>>().join("|"));
                    out.push('\n');
                }
            }
            Err(e) => {
                out.push_str(&format!("Error: {e}\n"));
                kv = kv_before;
                cat = cat_before;
            }
        }
    }
    out
}

fn scripts(topic: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/sql/testscripts")
        .join(topic);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "test"))
        .collect();
    files.sort();
    files
}

fn check_topic(topic: &str) {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut mismatches = Vec::new();
    for path in scripts(topic) {
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        let actual = transcript(&expected);
        if update {
            std::fs::write(&path, &actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        } else if actual != expected {
            mismatches.push(format!("{}:\n{actual}", path.display()));
        }
    }
    assert!(
        mismatches.is_empty(),
        "golden mismatch (UPDATE_GOLDEN=1 to accept):\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn plans() {
    check_topic("plans");
}

#[test]
fn semantics() {
    check_topic("semantics");
}
