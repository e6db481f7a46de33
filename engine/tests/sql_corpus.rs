//! TinyJoin against the sqllogictest corpus, through the shared runner
//! (`tinyjoin_engine::slt`). `select1.test` must pass completely and runs
//! by default; the whole corpus runs with `--ignored` (it takes minutes),
//! or set `TINYJOIN_SLT_FILES` to a space-separated list of files.

use std::path::PathBuf;

use tinyjoin_engine::slt::{run_files, FileReport, QueryOutcome, RunOptions, SltEngine, SltValue};
use tinyjoin_engine::{Connection, Database, Params, Value};

struct TinyJoin {
    conn: Connection,
}

fn to_slt(v: &Value) -> SltValue {
    match v {
        Value::Null => SltValue::Null,
        Value::Integer(i) => SltValue::Integer(*i),
        Value::Real(r) => SltValue::Real(*r),
        Value::Text(s) => SltValue::Text(s.clone()),
        Value::Blob(b) => SltValue::Blob(b.clone()),
    }
}

impl SltEngine for TinyJoin {
    fn run_statement(&mut self, sql: &str) -> Result<(), String> {
        self.conn.execute_batch(sql).map_err(|e| e.to_string())
    }

    fn run_query(&mut self, sql: &str) -> Result<QueryOutcome, String> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| e.to_string())?;
        let columns = stmt.column_names().len();
        match stmt.execute(&mut self.conn, &Params::None) {
            Ok(r) => Ok(QueryOutcome {
                columns,
                rows: r
                    .rows
                    .iter()
                    .map(|row| row.iter().map(to_slt).collect())
                    .collect(),
                error: None,
            }),
            Err(e) => Ok(QueryOutcome {
                columns,
                rows: Vec::new(),
                error: Some(e.to_string()),
            }),
        }
    }
}

fn corpus() -> PathBuf {
    std::env::var_os("TINYJOIN_SLT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/sqllogictest")
        })
}

fn run(files: &[PathBuf]) -> Vec<FileReport> {
    let make = || {
        Database::open_in_memory()
            .map(|db| TinyJoin { conn: db.connect() })
            .map_err(|e| e.to_string())
    };
    run_files(files, 2, RunOptions::default(), make, |r| {
        println!(
            "{}: {} passed, {} failed, {} skipped",
            r.path, r.passed, r.failed, r.skipped
        );
        for f in r.failures.iter().take(5) {
            println!("  {f:?}");
        }
    })
}

#[test]
fn select1_passes_completely() {
    let path = corpus().join("select1.test");
    if !path.exists() {
        eprintln!("corpus not found at {}; skipped", path.display());
        return;
    }
    let reports = run(&[path]);
    assert_eq!(reports[0].failed, 0, "{:?}", reports[0].failures.first());
}

#[test]
#[ignore = "runs the whole corpus (minutes)"]
fn corpus_files() {
    let files: Vec<PathBuf> = match std::env::var("TINYJOIN_SLT_FILES") {
        Ok(list) => list.split_whitespace().map(PathBuf::from).collect(),
        Err(_) => [
            "select1.test",
            "select2.test",
            "select3.test",
            "select4.test",
            "select5.test",
        ]
        .iter()
        .map(|f| corpus().join(f))
        .collect(),
    };
    let reports = run(&files);
    let failed: usize = reports.iter().map(|r| r.failed).sum();
    let passed: usize = reports.iter().map(|r| r.passed).sum();
    println!("{passed} passed, {failed} failed");
}
