//! Validation of the sqllogictest runner itself (`tinyjoin_engine::slt`),
//! with real SQLite (rusqlite, bundled) behind the `SltEngine` trait.
//!
//! SQLite passes every record of the corpus (its README: 298,026 of
//! 298,026, with 37,205 skipped), so any failure here is a runner bug. Each
//! file's run/skipped counts are compared with the README's table, which
//! checks the parser and the `skipif`/`onlyif`/`halt` rules as well.
//! The value rendering is also compared directly with SQLite's own `printf`
//! and conversions on seeded random inputs.
//!
//! The corpus is `../shared/sqllogictest` next to the repository, or the
//! folder named by `TINYJOIN_SLT_CORPUS`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use tinyjoin_engine::slt::{
    format_fixed3, format_real_as_text, render, run_cli, run_files, ColumnType, FileReport,
    QueryOutcome, RunOptions, SltEngine, SltValue,
};

/// SQLite as an `SltEngine`: one in-memory database per file.
struct Sqlite {
    conn: Connection,
}

impl Sqlite {
    fn open() -> Result<Sqlite, String> {
        Connection::open_in_memory()
            .map(|conn| Sqlite { conn })
            .map_err(|e| e.to_string())
    }
}

impl SltEngine for Sqlite {
    fn run_statement(&mut self, sql: &str) -> Result<(), String> {
        self.conn.execute_batch(sql).map_err(|e| e.to_string())
    }

    fn run_query(&mut self, sql: &str) -> Result<QueryOutcome, String> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| e.to_string())?;
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).map_err(|e| e.to_string())?;
        let mut outcome = QueryOutcome {
            columns,
            rows: Vec::new(),
            error: None,
        };
        loop {
            match rows.next() {
                Ok(Some(row)) => {
                    let values = (0..columns)
                        .map(|i| row.get_ref(i).map(slt_value).map_err(|e| e.to_string()))
                        .collect::<Result<Vec<_>, _>>()?;
                    outcome.rows.push(values);
                }
                Ok(None) => break,
                Err(e) => {
                    outcome.error = Some(e.to_string());
                    break;
                }
            }
        }
        Ok(outcome)
    }
}

fn slt_value(value: ValueRef<'_>) -> SltValue {
    match value {
        ValueRef::Null => SltValue::Null,
        ValueRef::Integer(i) => SltValue::Integer(i),
        ValueRef::Real(r) => SltValue::Real(r),
        ValueRef::Text(t) => SltValue::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => SltValue::Blob(b.to_vec()),
    }
}

fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("TINYJOIN_SLT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/sqllogictest"));
    assert!(
        dir.join("README.md").is_file(),
        "no sqllogictest corpus at {} (set TINYJOIN_SLT_CORPUS)",
        dir.display()
    );
    dir
}

/// Per file of the README's table: (statements + queries run, skipped).
fn readme_counts(corpus: &Path) -> BTreeMap<String, (usize, usize)> {
    let readme = std::fs::read_to_string(corpus.join("README.md")).expect("README.md is readable");
    let number = |cell: &str| {
        cell.trim()
            .replace(',', "")
            .parse::<usize>()
            .expect("a number in the README table")
    };
    readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            // | file | bytes | statements | queries | run | skipped |
            (cells.len() == 8 && cells[1].ends_with(".test"))
                .then(|| (cells[1].to_string(), (number(cells[5]), number(cells[6]))))
        })
        .collect()
}

/// Runs `names` (relative to the corpus) on SQLite and checks that every
/// record passes and that the counts are the README's.
fn run_on_sqlite(names: &[&str]) -> Vec<FileReport> {
    let corpus = corpus_dir();
    let expected = readme_counts(&corpus);
    let files: Vec<PathBuf> = names.iter().map(|n| corpus.join(n)).collect();
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let reports = run_files(&files, jobs, RunOptions::default(), Sqlite::open, |_| {});
    for (name, report) in names.iter().zip(&reports) {
        let first = report
            .failures
            .first()
            .map(|f| format!("line {}: {} {}", f.line, f.reason, f.detail));
        assert_eq!(
            report.failed, 0,
            "{name}: {} failures, first: {first:?}",
            report.failed
        );
        let counts = (report.statements + report.queries, report.skipped);
        assert_eq!(
            Some(&counts),
            expected.get(*name),
            "{name}: (run, skipped) differs from the README"
        );
        assert_eq!(report.passed, report.statements + report.queries, "{name}");
    }
    reports
}

/// Every file of the corpus: all 298,026 records run and pass, 37,205 are
/// skipped. Fast enough to run always (about 5 s in the test profile on
/// two shared cores, 3 s in release), so it is not `#[ignore]`d.
#[test]
fn whole_corpus_passes_on_sqlite() {
    let names: Vec<String> = readme_counts(&corpus_dir()).into_keys().collect();
    assert_eq!(names.len(), 40, "the README's table lists 40 files");
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let reports = run_on_sqlite(&names);
    let passed: usize = reports.iter().map(|r| r.passed).sum();
    let skipped: usize = reports.iter().map(|r| r.skipped).sum();
    let statements: usize = reports.iter().map(|r| r.statements).sum();
    assert_eq!((passed, skipped, statements), (298_026, 37_205, 26_532));
    // The one record whose result ends with a run-time error (sum()
    // overflows) and passes because the rows so far (none) are kept.
    let ended_by_error: Vec<(&str, usize)> = names
        .iter()
        .zip(&reports)
        .flat_map(|(name, r)| r.ended_by_error.iter().map(move |(line, _)| (*name, *line)))
        .collect();
    assert_eq!(
        ended_by_error,
        vec![("evidence/slt_lang_aggfunc.test", 480)]
    );
}

fn sqlite_text(conn: &Connection, sql: &str, value: impl rusqlite::ToSql) -> String {
    conn.query_row(sql, [value], |row| row.get::<_, String>(0))
        .expect("SQLite evaluates the expression")
}

/// Doubles that stress `%.3f`: near rounding boundaries, tiny, huge, and
/// random bit patterns.
fn awkward_double(rng: &mut SmallRng) -> f64 {
    let sign = if rng.gen_bool(0.5) { -1.0 } else { 1.0 };
    let magnitude = match rng.gen_range(0..6) {
        0 => f64::from(rng.gen_range(0..2_000_000)) / 1000.0 + 0.0005,
        1 => f64::from(rng.gen_range(0..100_000)) / 16.0,
        2 => rng.gen_range(0.0..1e-3),
        3 => 10f64.powi(rng.gen_range(10..25)) * rng.gen_range(1.0..10.0),
        4 => f64::from_bits(rng.gen::<u64>() >> 2),
        _ => rng.gen_range(-1e6..1e6),
    };
    sign * magnitude
}

#[test]
fn real_rendering_matches_sqlite_printf() {
    let conn = Connection::open_in_memory().expect("in-memory SQLite");
    let mut rng = SmallRng::seed_from_u64(0x5e1_7e57);
    for _ in 0..20_000 {
        let value = awkward_double(&mut rng);
        if !value.is_finite() {
            continue;
        }
        assert_eq!(
            format_fixed3(value),
            sqlite_text(&conn, "SELECT printf('%.3f', ?1)", value),
            "%.3f of {value:e}"
        );
        let text = sqlite_text(&conn, "SELECT printf('%!.15g', ?1)", value);
        assert_eq!(format_real_as_text(value), text, "%!.15g of {value:e}");
    }
}

/// Whether the leading number of `text` has an exponent of two or more
/// digits: SQLite 3.46 scales those in `long double` and can land one ULP
/// away from the correctly rounded double the runner computes (see the
/// simplification noted in `slt::format`).
fn has_two_digit_exponent(text: &str) -> bool {
    let bytes = text.trim_start().as_bytes();
    let mut i = usize::from(matches!(bytes.first(), Some(b'-' | b'+')));
    let digits = |i: usize| bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    let whole = digits(i);
    i += whole;
    if bytes.get(i) == Some(&b'.') {
        let fraction = digits(i + 1);
        i += 1 + fraction;
        if whole + fraction == 0 {
            return false;
        }
    } else if whole == 0 {
        return false;
    }
    if !matches!(bytes.get(i), Some(b'e' | b'E')) {
        return false;
    }
    i += 1;
    i += usize::from(matches!(bytes.get(i), Some(b'-' | b'+')));
    digits(i) >= 2
}

#[test]
fn text_conversions_match_sqlite() {
    let conn = Connection::open_in_memory().expect("in-memory SQLite");
    let mut rng = SmallRng::seed_from_u64(7);
    let alphabet: Vec<char> = " \t-+.eE0123456789x".chars().collect();
    for _ in 0..20_000 {
        let len = rng.gen_range(0..14);
        let text: String = (0..len)
            .map(|_| alphabet[rng.gen_range(0..alphabet.len())])
            .collect();
        let value = SltValue::Text(text.clone());
        let real = sqlite_text(&conn, "SELECT printf('%.3f', CAST(?1 AS REAL))", &text);
        if !has_two_digit_exponent(&text) {
            assert_eq!(render(&value, ColumnType::Real), real, "R of {text:?}");
        }
        let wide: i64 = conn
            .query_row("SELECT CAST(?1 AS INTEGER)", [&text], |r| r.get(0))
            .expect("CAST");
        assert_eq!(
            render(&value, ColumnType::Integer),
            (wide as i32).to_string(),
            "I of {text:?}"
        );
    }
}

/// A scratch folder for one test, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("tinyjoin-slt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).expect("scratch folder");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn cli(args: &[&Path]) -> (i32, String) {
    let args: Vec<String> = args.iter().map(|a| a.display().to_string()).collect();
    let mut out = Vec::new();
    let code = run_cli(&args, Sqlite::open, &mut out);
    (code, String::from_utf8(out).expect("the report is UTF-8"))
}

/// The command line: per-file lines, the closing line, the exit code, and
/// the known-failures list (regeneration, acceptance, stale entries).
#[test]
fn command_line_with_known_failures() {
    let scratch = Scratch::new("cli");
    let good =
        "statement ok\nCREATE TABLE t(a INTEGER)\n\nstatement ok\nINSERT INTO t VALUES(1),(2)\n\n\
                query I rowsort\nSELECT a FROM t\n----\n1\n2\n";
    let bad = "query I\nSELECT 1\n----\n1\n\nquery I\nSELECT 2\n----\n3\n\nskipif sqlite\nquery I\nSELECT 4\n----\n5\n";
    std::fs::write(scratch.0.join("good.test"), good).expect("write");
    std::fs::write(scratch.0.join("sub/bad.test"), bad).expect("write");
    std::fs::write(scratch.0.join("notes.txt"), "not a test").expect("write");
    let list = scratch.0.join("known.txt");
    let known = Path::new("--known-failures");
    let write = Path::new("--write-known-failures");

    std::fs::write(&list, "").expect("write");
    let (code, out) = cli(&[known, &list, &scratch.0]);
    assert_eq!(code, 1, "{out}");
    assert!(out.ends_with("4 passed, 1 failed, 1 skipped\n"), "{out}");
    assert!(
        out.contains("good.test: passed 3, failed 0, skipped 0 (100.0%)"),
        "{out}"
    );
    assert!(
        out.contains("bad.test: passed 1, failed 1, skipped 1 (50.0%)"),
        "{out}"
    );
    assert!(out.contains("bad.test:6: wrong result at value 1"), "{out}");

    let (code, out) = cli(&[known, &list, write, &list, &scratch.0]);
    assert_eq!(code, 0, "{out}");
    let written = std::fs::read_to_string(&list).expect("the list was written");
    assert!(
        written
            .lines()
            .any(|l| l.ends_with("sub/bad.test:6  unclassified")),
        "{written}"
    );

    let (code, out) = cli(&[known, &list, &scratch.0]);
    assert_eq!(code, 0, "a listed failure is accepted: {out}");

    std::fs::write(
        scratch.0.join("sub/bad.test"),
        bad.replace("----\n3", "----\n2"),
    )
    .expect("write");
    let (code, out) = cli(&[known, &list, &scratch.0]);
    assert_eq!(code, 1, "a listed record that passes is stale: {out}");
    assert!(out.contains("stale known-failure entries"), "{out}");

    let (code, out) = cli(&[known, &scratch.0.join("missing.txt"), &scratch.0]);
    assert_eq!(code, 2, "{out}");

    // sum() overflows at run time; the expected result is empty. The
    // harness's rule passes it, with a note; --strict-errors fails it.
    let overflow = "statement ok\nCREATE TABLE t(x INTEGER)\n\n\
                    statement ok\nINSERT INTO t VALUES(9223372036854775807),(1)\n\n\
                    query I\nSELECT sum(x) FROM t\n----\n";
    std::fs::write(scratch.0.join("good.test"), overflow).expect("write");
    let file = scratch.0.join("good.test");
    let (code, out) = cli(&[known, &list, &file]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("good.test:7 passed although its result ended with an error"),
        "{out}"
    );
    let (code, out) = cli(&[known, &list, Path::new("--strict-errors"), &file]);
    assert_eq!(code, 1, "{out}");
    assert!(out.ends_with("2 passed, 1 failed, 0 skipped\n"), "{out}");
}
