//! Running one file's records against an engine and judging each record.
//!
//! Per file: the hash threshold starts at [`DEFAULT_HASH_THRESHOLD`] and a
//! `hash-threshold` record changes it for the rest of the file; labels are
//! remembered for the file only. For each query the runner
//!
//! 1. runs it (a prepare error fails the record; a run-time error after
//!    some rows just ends the result, as in the reference harness, unless
//!    [`RunOptions::strict_errors`] asks to fail it),
//! 2. checks the column count against the type string,
//! 3. renders every value by its column's letter (`format`),
//! 4. sorts as the sort mode says, byte-wise like `strcmp`,
//! 5. replaces the values by `N values hashing to <md5>` when there are
//!    more than the threshold, and compares with the expected lines,
//!    counts included,
//! 6. checks that every query with the same label hashed the same values.
//!
//! A record skipped by `skipif`/`onlyif` still lends its expected result
//! to its label (as the harness does in verify mode), so the `sqlite`
//! variant of a query is checked against the other dialects' answer.
//! A panic in the engine fails that record and the file goes on.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use super::engine::{QueryOutcome, SltEngine};
use super::format::render;
use super::md5::Md5;
use super::parse::{parse, Query, RecordKind, SortMode};

/// The dialect name `skipif`/`onlyif` are matched against.
pub const DIALECT: &str = "sqlite";
/// The reference harness's threshold when a file sets none.
pub const DEFAULT_HASH_THRESHOLD: i64 = 8;
/// A record slower than this is listed in [`FileReport::slow`].
pub const SLOW_RECORD: Duration = Duration::from_secs(1);
/// How many values of a result a failure message shows.
const DIFF_CONTEXT_VALUES: usize = 4;

/// One record that did not pass.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The line of the record's `statement`/`query` line (0: the file itself).
    pub line: usize,
    /// One line saying what went wrong.
    pub reason: String,
    /// More lines (a short diff), possibly empty.
    pub detail: String,
    /// The record's SQL, if it has any.
    pub sql: String,
}

/// The outcome of one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileReport {
    pub path: String,
    /// Statement records run (not skipped).
    pub statements: usize,
    /// Query records run (not skipped).
    pub queries: usize,
    pub passed: usize,
    pub failed: usize,
    /// Records excluded by `skipif`/`onlyif`, of any kind (a conditional
    /// `halt` that does not apply counts too, as in the reference harness
    /// and the corpus README's table).
    pub skipped: usize,
    /// Every failure, in file order.
    pub failures: Vec<Failure>,
    /// The line of the `halt` that stopped the file, if one did.
    pub halted_at: Option<usize>,
    /// Queries that passed although their result ended with an engine
    /// error: (line, error). Legitimate (an overflow in a later row), but
    /// also what an engine that fails at run time on a query expected to
    /// return nothing looks like, so the runner shows them.
    pub ended_by_error: Vec<(usize, String)>,
    /// Records that took longer than [`SLOW_RECORD`]: (line, time). A
    /// diagnostic for the planner, never a failure.
    pub slow: Vec<(usize, Duration)>,
    pub elapsed: Duration,
}

impl FileReport {
    /// A file that could not be run at all (unreadable, no engine): one
    /// failure at line 0.
    pub fn broken(path: &str, reason: String) -> FileReport {
        let failure = Failure {
            line: 0,
            reason,
            detail: String::new(),
            sql: String::new(),
        };
        FileReport {
            path: path.to_string(),
            failed: 1,
            failures: vec![failure],
            ..FileReport::default()
        }
    }

    /// Passed records as a percentage of run records (100 when none ran).
    pub fn pass_rate(&self) -> f64 {
        pass_rate(self.passed, self.failed)
    }
}

/// `passed` as a percentage of `passed + failed` (100 when both are 0).
pub fn pass_rate(passed: usize, failed: usize) -> f64 {
    if passed + failed == 0 {
        100.0
    } else {
        passed as f64 * 100.0 / (passed + failed) as f64
    }
}

/// How strictly a file is judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Fail a query whose result ended with an engine error, instead of
    /// keeping the rows so far as the reference harness does. Meant for
    /// engines that return no rows with an error: for them a query expected
    /// to return nothing passes on any run-time error, a bug included.
    pub strict_errors: bool,
}

/// The label a query's result hashed to first, and where.
struct LabelSeen {
    hash: String,
    line: usize,
}

/// Runs the file `text` (named `path` in the report) against `engine`.
pub fn run_script(
    path: &str,
    text: &str,
    engine: &mut dyn SltEngine,
    options: RunOptions,
) -> FileReport {
    let started = Instant::now();
    let mut run = ScriptRun {
        engine,
        options,
        hash_threshold: DEFAULT_HASH_THRESHOLD,
        labels: HashMap::new(),
        report: FileReport {
            path: path.to_string(),
            ..FileReport::default()
        },
    };
    for record in parse(text) {
        if !record.runs_on(DIALECT) {
            run.report.skipped += 1;
            if let RecordKind::Query(query) = &record.kind {
                run.lend_expected_to_label(record.line, query);
            }
            continue;
        }
        let record_started = Instant::now();
        let verdict = match record.kind {
            RecordKind::Statement { expect_error, sql } => {
                run.report.statements += 1;
                let verdict = run.statement(expect_error, &sql);
                verdict.map_err(|(reason, detail)| Failure {
                    line: record.line,
                    reason,
                    detail,
                    sql,
                })
            }
            RecordKind::Query(query) => {
                run.report.queries += 1;
                let verdict = run.query(record.line, &query);
                verdict.map_err(|(reason, detail)| Failure {
                    line: record.line,
                    reason,
                    detail,
                    sql: query.sql,
                })
            }
            RecordKind::HashThreshold(n) => {
                run.hash_threshold = n;
                continue;
            }
            RecordKind::Halt => {
                run.report.halted_at = Some(record.line);
                break;
            }
            RecordKind::Invalid {
                message,
                stops_file,
            } => {
                run.fail(Failure {
                    line: record.line,
                    reason: message,
                    detail: String::new(),
                    sql: String::new(),
                });
                if stops_file {
                    break;
                }
                continue;
            }
        };
        let took = record_started.elapsed();
        if took > SLOW_RECORD {
            run.report.slow.push((record.line, took));
        }
        match verdict {
            Ok(()) => run.report.passed += 1,
            Err(failure) => run.fail(failure),
        }
    }
    run.report.elapsed = started.elapsed();
    run.report
}

/// A failure's reason and detail.
type Verdict = Result<(), (String, String)>;

struct ScriptRun<'e> {
    engine: &'e mut dyn SltEngine,
    options: RunOptions,
    hash_threshold: i64,
    labels: HashMap<String, LabelSeen>,
    report: FileReport,
}

impl ScriptRun<'_> {
    fn fail(&mut self, failure: Failure) {
        self.report.failed += 1;
        self.report.failures.push(failure);
    }

    fn statement(&mut self, expect_error: bool, sql: &str) -> Verdict {
        let engine = &mut *self.engine;
        let result = guarded(|| engine.run_statement(sql))?;
        match (result, expect_error) {
            (Ok(()), false) | (Err(_), true) => Ok(()),
            (Ok(()), true) => Err((
                "statement succeeded but an error was expected".into(),
                String::new(),
            )),
            (Err(e), false) => Err((format!("statement failed: {e}"), String::new())),
        }
    }

    fn query(&mut self, line: usize, query: &Query) -> Verdict {
        let engine = &mut *self.engine;
        let outcome = guarded(|| engine.run_query(&query.sql))?
            .map_err(|e| (format!("query failed: {e}"), String::new()))?;
        if let (true, Some(error)) = (self.options.strict_errors, &outcome.error) {
            let reason = format!("the result ended with an error (--strict-errors): {error}");
            return Err((reason, String::new()));
        }
        let values = rendered_values(query, &outcome)?;
        let hash = hash_values(&values);
        let actual: Vec<String> =
            if self.hash_threshold > 0 && values.len() as u64 > self.hash_threshold as u64 {
                vec![format!("{} values hashing to {hash}", values.len())]
            } else {
                values
            };
        let mut verdict = compare(query, &actual, &outcome);
        if let (Ok(()), Some(error)) = (&verdict, &outcome.error) {
            self.report.ended_by_error.push((line, error.clone()));
        }
        if let Some(label) = &query.label {
            let seen = self.labels.entry(label.clone()).or_insert(LabelSeen {
                hash: hash.clone(),
                line,
            });
            if seen.hash != hash && verdict.is_ok() {
                let reason = format!(
                    "label {label} disagrees with the result of line {}",
                    seen.line
                );
                verdict = Err((
                    reason,
                    format!("  this result hashes to {hash}, that one to {}", seen.hash),
                ));
            }
        }
        verdict
    }

    /// A skipped labelled query: its expected result becomes the label's
    /// reference unless a query ran under that label before.
    fn lend_expected_to_label(&mut self, line: usize, query: &Query) {
        let Some(label) = &query.label else { return };
        let hash = match query.expected.first().and_then(|l| parse_hash_line(l)) {
            Some(hash) => hash.to_string(),
            None => hash_values(&query.expected),
        };
        self.labels
            .entry(label.clone())
            .or_insert(LabelSeen { hash, line });
    }
}

/// Runs `call`, turning a panic into a failure so the file can go on.
fn guarded<T>(call: impl FnOnce() -> T) -> Result<T, (String, String)> {
    catch_unwind(AssertUnwindSafe(call)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".to_string());
        (format!("the engine panicked: {message}"), String::new())
    })
}

/// The rendered values of `outcome`, sorted as `query` says.
fn rendered_values(query: &Query, outcome: &QueryOutcome) -> Result<Vec<String>, (String, String)> {
    let columns = query.types.len();
    if outcome.columns != columns {
        let reason = format!("expected {columns} result columns, got {}", outcome.columns);
        return Err((reason, String::new()));
    }
    let mut rows = Vec::with_capacity(outcome.rows.len());
    for row in &outcome.rows {
        if row.len() != columns {
            return Err((
                format!(
                    "the engine returned a row of {} values for {columns} columns",
                    row.len()
                ),
                String::new(),
            ));
        }
        rows.push(
            row.iter()
                .zip(&query.types)
                .map(|(v, &t)| render(v, t))
                .collect::<Vec<_>>(),
        );
    }
    // `String`'s order is byte-wise, the same as the harness's `strcmp`.
    if query.sort == SortMode::RowSort {
        rows.sort();
    }
    let mut values: Vec<String> = rows.into_iter().flatten().collect();
    if query.sort == SortMode::ValueSort {
        values.sort();
    }
    Ok(values)
}

/// MD5 of every value followed by a newline, in lowercase hex.
pub fn hash_values(values: &[String]) -> String {
    let mut md5 = Md5::new();
    for value in values {
        md5.update(value.as_bytes());
        md5.update(b"\n");
    }
    md5.finish_hex()
}

/// The hash of an `N values hashing to <md5>` line.
fn parse_hash_line(line: &str) -> Option<&str> {
    let (count, rest) = line.split_once(' ')?;
    count.parse::<u64>().ok()?;
    let hash = rest.strip_prefix("values hashing to ")?;
    Some(hash.trim_end())
}

/// Compares the actual lines with the expected ones; on a difference, a
/// reason and a short diff around the first differing line.
fn compare(query: &Query, actual: &[String], outcome: &QueryOutcome) -> Verdict {
    let expected = &query.expected;
    if expected == actual {
        return Ok(());
    }
    let first = expected
        .iter()
        .zip(actual)
        .take_while(|(e, a)| e == a)
        .count();
    let columns = query.types.len().max(1);
    let reason = if expected.len() != actual.len() {
        format!(
            "wrong result: expected {} lines, got {}",
            expected.len(),
            actual.len()
        )
    } else {
        format!(
            "wrong result at value {} (row {}, column {})",
            first + 1,
            first / columns + 1,
            first % columns + 1
        )
    };
    let window = |lines: &[String]| {
        let shown: Vec<&str> = lines
            .iter()
            .skip(first)
            .take(DIFF_CONTEXT_VALUES)
            .map(String::as_str)
            .collect();
        let more = if lines.len() > first + DIFF_CONTEXT_VALUES {
            " | ..."
        } else {
            ""
        };
        format!("{}{more}", shown.join(" | "))
    };
    let mut detail = format!(
        "  expected: {}\n  actual:   {}",
        window(expected),
        window(actual)
    );
    if let Some(error) = &outcome.error {
        detail.push_str(&format!(
            "\n  (the result ended early with an error: {error})"
        ));
    }
    Err((reason, detail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slt::engine::SltValue;

    /// An engine that answers queries from a table and records statements.
    #[derive(Default)]
    struct Fake {
        answers: HashMap<&'static str, Result<QueryOutcome, String>>,
        statements: Vec<String>,
    }

    impl SltEngine for Fake {
        fn run_statement(&mut self, sql: &str) -> Result<(), String> {
            self.statements.push(sql.to_string());
            if sql.contains("bad") {
                Err("syntax error".into())
            } else {
                Ok(())
            }
        }

        fn run_query(&mut self, sql: &str) -> Result<QueryOutcome, String> {
            assert_ne!(sql, "PANIC", "the fake engine was asked to panic");
            self.answers
                .get(sql)
                .cloned()
                .unwrap_or_else(|| Err(format!("no such query: {sql}")))
        }
    }

    fn rows(columns: usize, rows: &[&[i64]]) -> Result<QueryOutcome, String> {
        let rows = rows
            .iter()
            .map(|r| r.iter().map(|&v| SltValue::Integer(v)).collect())
            .collect();
        Ok(QueryOutcome {
            columns,
            rows,
            error: None,
        })
    }

    fn run(fake: &mut Fake, text: &str) -> FileReport {
        run_script("t.test", text, fake, RunOptions::default())
    }

    fn failing_lines(report: &FileReport) -> Vec<usize> {
        report.failures.iter().map(|f| f.line).collect()
    }

    #[test]
    fn hash_of_values_with_trailing_newlines() {
        let values: Vec<String> = (1..10).map(|i| i.to_string()).collect();
        assert_eq!(hash_values(&values), "22e400a2ddbb013acf2a5852d6ab69fc");
        assert_eq!(hash_values(&[]), "d41d8cd98f00b204e9800998ecf8427e");
    }

    #[test]
    fn default_threshold_is_8_values_not_rows() {
        let mut fake = Fake::default();
        fake.answers.insert(
            "nine",
            rows(1, &[&[1], &[2], &[3], &[4], &[5], &[6], &[7], &[8], &[9]]),
        );
        fake.answers
            .insert("eight", rows(2, &[&[1, 2], &[3, 4], &[5, 6], &[7, 8]]));
        let text = "query I\nnine\n----\n9 values hashing to 22e400a2ddbb013acf2a5852d6ab69fc\n\n\
                    query II\neight\n----\n1\n2\n3\n4\n5\n6\n7\n8\n\n\
                    hash-threshold 0\n\nquery I\nnine\n----\n1\n2\n3\n4\n5\n6\n7\n8\n9\n\n\
                    query I\nnine\n----\n9 values hashing to 22e400a2ddbb013acf2a5852d6ab69fc\n";
        let report = run(&mut fake, text);
        assert_eq!((report.passed, report.queries), (3, 4), "{report:#?}");
        assert_eq!(failing_lines(&report), vec![33]);
    }

    #[test]
    fn too_many_or_too_few_values_fail() {
        let mut fake = Fake::default();
        fake.answers.insert("two", rows(1, &[&[1], &[2]]));
        let report = run(
            &mut fake,
            "query I\ntwo\n----\n1\n\nquery I\ntwo\n----\n1\n2\n3\n\nquery I\ntwo\n",
        );
        assert_eq!(failing_lines(&report), vec![1, 6, 13]);
        assert!(
            report.failures[0]
                .reason
                .contains("expected 1 lines, got 2"),
            "{:?}",
            report.failures[0]
        );
    }

    #[test]
    fn rowsort_and_valuesort_compare_bytes() {
        let mut fake = Fake::default();
        fake.answers
            .insert("q", rows(2, &[&[9, 1], &[10, 2], &[10, 1]]));
        let text = "query II rowsort\nq\n----\n10\n1\n10\n2\n9\n1\n\n\
                    query II valuesort\nq\n----\n1\n1\n10\n10\n2\n9\n\n\
                    query II nosort\nq\n----\n9\n1\n10\n2\n10\n1\n";
        let report = run(&mut fake, text);
        assert_eq!((report.passed, report.failed), (3, 0), "{report:#?}");
    }

    #[test]
    fn wrong_column_count_fails() {
        let mut fake = Fake::default();
        fake.answers.insert("q", rows(2, &[]));
        let report = run(&mut fake, "query I\nq\n----\n");
        assert_eq!(failing_lines(&report), vec![1]);
        assert!(report.failures[0]
            .reason
            .contains("expected 1 result columns, got 2"));
    }

    #[test]
    fn labels_must_agree() {
        let mut fake = Fake::default();
        fake.answers.insert("a", rows(1, &[&[1]]));
        fake.answers.insert("b", rows(1, &[&[2]]));
        let text = "query I nosort label-1\na\n----\n1\n\n\
                    query I nosort label-1\nb\n----\n2\n\n\
                    query I nosort label-2\na\n----\n1\n\n\
                    query I nosort label-2\na\n----\n1\n";
        let report = run(&mut fake, text);
        assert_eq!(failing_lines(&report), vec![6]);
        assert!(report.failures[0]
            .reason
            .contains("label-1 disagrees with the result of line 1"));
    }

    #[test]
    fn a_skipped_query_lends_its_expected_result_to_its_label() {
        let mut fake = Fake::default();
        fake.answers.insert("b", rows(1, &[&[2]]));
        let text = "onlyif mysql\nquery I nosort label-1\na\n----\n1\n\nquery I nosort label-1\nb\n----\n2\n";
        let report = run(&mut fake, text);
        assert_eq!((report.skipped, report.queries), (1, 1));
        assert_eq!(failing_lines(&report), vec![7]);
    }

    #[test]
    fn halt_stops_only_when_its_conditions_hold() {
        let mut fake = Fake::default();
        let text = "onlyif mssql\nhalt\n\nskipif sqlite\nhalt\n\nstatement ok\nfirst\n\n\
                    onlyif sqlite # yes\nhalt\n\nstatement ok\nnever\n";
        let report = run(&mut fake, text);
        assert_eq!(fake.statements, vec!["first"]);
        assert_eq!(
            (report.halted_at, report.passed, report.skipped),
            (Some(11), 1, 2)
        );
    }

    #[test]
    fn statements_and_skips() {
        let mut fake = Fake::default();
        let text = "statement ok\nCREATE t;\nINSERT bad;\n\nstatement error\nbad\n\nstatement error\ngood\n\n\
                    skipif sqlite\nstatement ok\nbad\n\nonlyif postgresql\nquery I\nnothing\n\nunknown record\n\nstatement ok\nafter\n";
        let report = run(&mut fake, text);
        assert_eq!(failing_lines(&report), vec![1, 8, 19]);
        assert_eq!(
            (
                report.statements,
                report.queries,
                report.passed,
                report.skipped
            ),
            (3, 0, 1, 2)
        );
        // An unknown record type stops the file, as in the reference harness.
        assert!(!fake.statements.contains(&"after".to_string()));
    }

    #[test]
    fn a_run_time_error_ends_the_result_set() {
        let mut fake = Fake::default();
        let partial = QueryOutcome {
            columns: 1,
            rows: vec![vec![SltValue::Integer(1)]],
            error: Some("overflow".into()),
        };
        fake.answers.insert("q", Ok(partial));
        let report = run(&mut fake, "query I\nq\n----\n1\n\nquery I\nq\n----\n");
        assert_eq!(failing_lines(&report), vec![6]);
        assert!(report.failures[0].detail.contains("overflow"));
        assert_eq!(report.ended_by_error, vec![(1, "overflow".to_string())]);
        let strict = RunOptions {
            strict_errors: true,
        };
        let report = run_script("t.test", "query I\nq\n----\n1\n", &mut fake, strict);
        assert_eq!(failing_lines(&report), vec![1]);
    }

    #[test]
    fn a_panicking_engine_fails_the_record_and_the_file_goes_on() {
        let mut fake = Fake::default();
        fake.answers.insert("q", rows(1, &[&[1]]));
        let report = run(
            &mut fake,
            "query I\nPANIC\n----\n1\n\nquery I\nq\n----\n1\n",
        );
        assert_eq!((report.passed, failing_lines(&report)), (1, vec![1]));
        assert!(report.failures[0].reason.contains("panicked"));
    }
}
