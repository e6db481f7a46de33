//! The command line of a runner binary, independent of the engine:
//!
//! ```text
//! tinyjoin-slt [--known-failures FILE] [--write-known-failures FILE]
//!              [--jobs N] [--show N] [--strict-errors] PATH...
//! ```
//!
//! PATHs are files or folders (searched for `*.test`). Files are named
//! relative to the current directory (with `..` where needed) however they
//! were given, so known-failure entries match across invocations from the
//! same directory. Output, in this order: per file as it finishes, the line
//! `file: passed P, failed F, skipped S (rate%)` and its first `--show`
//! (default 3) unexpected failures with `file:line`, reason and a short
//! diff; then stale known-failure entries; last, the line
//! `N passed, N failed, N skipped`. The exit code is 0 only when every
//! failure is listed and no entry is stale (or when the list was just
//! rewritten with `--write-known-failures`), 2 for a usage error.
//!
//! `--strict-errors` fails a query whose result ended with an engine error
//! (see [`RunOptions::strict_errors`]); without it such a query is judged
//! by the rows it produced, as in the reference harness, and listed as a
//! note, because an engine that returns no rows with its error passes
//! every query expected to be empty that it fails to run.

use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use super::corpus::{collect_test_files, run_files};
use super::engine::SltEngine;
use super::known::KnownFailures;
use super::run::{pass_rate, FileReport, RunOptions};

/// The list read when `--known-failures` is not given, relative to the
/// directory the runner is started in (the repository root).
const DEFAULT_KNOWN_FAILURES: &str = "engine/tests/slt-known-failures.txt";
/// Unexpected failures shown per file unless `--show` says otherwise.
const DEFAULT_SHOWN_FAILURES: usize = 3;
/// Characters of a failing record's SQL that are shown.
const SHOWN_SQL_CHARS: usize = 160;

const USAGE: &str = "usage: tinyjoin-slt [--known-failures FILE] [--write-known-failures FILE] [--jobs N] [--show N] [--strict-errors] PATH...";

/// Exit code for a run with an unexpected failure or a stale entry.
const EXIT_FAILED: i32 = 1;
/// Exit code for bad arguments or an unreadable list.
const EXIT_USAGE: i32 = 2;

struct Options {
    known_failures: Option<PathBuf>,
    write_known_failures: Option<PathBuf>,
    jobs: usize,
    show: usize,
    run: RunOptions,
    paths: Vec<PathBuf>,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut options = Options {
        known_failures: None,
        write_known_failures: None,
        jobs,
        show: DEFAULT_SHOWN_FAILURES,
        run: RunOptions::default(),
        paths: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match arg.as_str() {
            "--known-failures" => options.known_failures = Some(value(arg)?.into()),
            "--write-known-failures" => options.write_known_failures = Some(value(arg)?.into()),
            "--jobs" => options.jobs = value(arg)?.parse().map_err(|e| format!("--jobs: {e}"))?,
            "--show" => options.show = value(arg)?.parse().map_err(|e| format!("--show: {e}"))?,
            "--strict-errors" => options.run.strict_errors = true,
            "-h" | "--help" => return Err(String::new()),
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            path => options.paths.push(path.into()),
        }
    }
    if options.paths.is_empty() {
        return Err("no PATH given".into());
    }
    Ok(options)
}

/// Runs the command line `args` (without the program name), printing to
/// `out`, and returns the process exit code.
pub fn run_cli<E, F>(args: &[String], make_engine: F, out: &mut (dyn Write + Send)) -> i32
where
    E: SltEngine,
    F: Fn() -> Result<E, String> + Sync,
{
    match run_cli_checked(args, make_engine, out) {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(
                out,
                "{}{USAGE}",
                if message.is_empty() {
                    String::new()
                } else {
                    format!("error: {message}\n")
                }
            );
            EXIT_USAGE
        }
    }
}

fn run_cli_checked<E, F>(
    args: &[String],
    make_engine: F,
    out: &mut (dyn Write + Send),
) -> Result<i32, String>
where
    E: SltEngine,
    F: Fn() -> Result<E, String> + Sync,
{
    let options = parse_args(args)?;
    let known = read_known_failures(options.known_failures.as_deref())?;
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let files: Vec<PathBuf> = collect_test_files(&options.paths)?
        .iter()
        .map(|f| relative_to(f, &cwd))
        .collect();
    let started = Instant::now();
    let out = Mutex::new(out);
    let reports = run_files(&files, options.jobs, options.run, make_engine, |report| {
        let text = file_summary(report, &known, options.show);
        let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    });
    let out = out.into_inner().unwrap_or_else(|e| e.into_inner());
    let (passed, failed, skipped) = reports.iter().fold((0, 0, 0), |(p, f, s), r| {
        (p + r.passed, f + r.failed, s + r.skipped)
    });
    let verdict = known.judge(&reports);
    let mut text = String::new();
    if !verdict.stale.is_empty() {
        text.push_str("stale known-failure entries (these records pass now; remove them):\n");
        for (path, line, reason) in &verdict.stale {
            text.push_str(&format!("  {path}:{line}  {reason}\n"));
        }
    }
    let ended_by_error: usize = reports.iter().map(|r| r.ended_by_error.len()).sum();
    if ended_by_error > 0 {
        text.push_str(&format!(
            "{ended_by_error} queries passed although their result ended with an error \
             (--strict-errors fails them)\n"
        ));
    }
    text.push_str(&format!(
        "{} files in {:.1}s, {:.2}% passed; {} unexpected failures, {} known, {} stale entries\n",
        reports.len(),
        started.elapsed().as_secs_f64(),
        pass_rate(passed, failed),
        verdict.unexpected.len(),
        verdict.known,
        verdict.stale.len()
    ));
    let mut code = if verdict.is_clean() { 0 } else { EXIT_FAILED };
    if let Some(target) = &options.write_known_failures {
        let updated = known.updated(&reports);
        std::fs::write(target, updated.render())
            .map_err(|e| format!("{}: {e}", target.display()))?;
        text.push_str(&format!(
            "wrote {} entries to {}\n",
            updated.len(),
            target.display()
        ));
        code = 0;
    }
    text.push_str(&format!(
        "{passed} passed, {failed} failed, {skipped} skipped\n"
    ));
    out.write_all(text.as_bytes())
        .map_err(|e| format!("writing the report: {e}"))?;
    Ok(code)
}

/// The list named on the command line (which must exist), else the
/// default one if it exists, else an empty list.
fn read_known_failures(path: Option<&Path>) -> Result<KnownFailures, String> {
    let (path, required) = match path {
        Some(path) => (path, true),
        None => (Path::new(DEFAULT_KNOWN_FAILURES), false),
    };
    match std::fs::read_to_string(path) {
        Ok(text) => KnownFailures::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if required || e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("{}: {e}", path.display()))
        }
        Err(_) => Ok(KnownFailures::default()),
    }
}

/// The per-file line and its first `show` unexpected failures.
fn file_summary(report: &FileReport, known: &KnownFailures, show: usize) -> String {
    let mut rate = pass_rate(report.passed, report.failed);
    if report.failed > 0 {
        // Never print 100.0% for a file with failures.
        rate = rate.min(99.9);
    }
    let mut text = format!(
        "{}: passed {}, failed {}, skipped {} ({rate:.1}%)\n",
        report.path, report.passed, report.failed, report.skipped
    );
    let unexpected: Vec<_> = report
        .failures
        .iter()
        .filter(|f| !known.contains(&report.path, f.line))
        .collect();
    for failure in unexpected.iter().take(show) {
        text.push_str(&format!(
            "  {}:{}: {}\n",
            report.path, failure.line, failure.reason
        ));
        if !failure.detail.is_empty() {
            text.push_str(&format!("  {}\n", failure.detail.replace('\n', "\n  ")));
        }
        if !failure.sql.is_empty() {
            let sql: String = failure.sql.split_whitespace().collect::<Vec<_>>().join(" ");
            let shown: String = sql.chars().take(SHOWN_SQL_CHARS).collect();
            let more = if sql.chars().count() > SHOWN_SQL_CHARS {
                " ..."
            } else {
                ""
            };
            text.push_str(&format!("    sql: {shown}{more}\n"));
        }
    }
    if unexpected.len() > show {
        text.push_str(&format!(
            "  ... and {} more unexpected failures\n",
            unexpected.len() - show
        ));
    }
    if let Some(line) = report.halted_at {
        text.push_str(&format!("  {}:{line}: halt\n", report.path));
    }
    for (line, error) in report.ended_by_error.iter().take(show) {
        let path = &report.path;
        text.push_str(&format!(
            "  note: {path}:{line} passed although its result ended with an error: {error}\n"
        ));
    }
    for (line, took) in report.slow.iter().take(show) {
        text.push_str(&format!(
            "  note: {}:{line} took {:.1}s\n",
            report.path,
            took.as_secs_f64()
        ));
    }
    text
}

/// `path` relative to `base` (both made absolute and free of `.`/`..`
/// and symbolic links where possible), with `..` steps where it lies
/// outside `base`.
fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let (Ok(path_abs), Ok(base_abs)) = (path.canonicalize(), base.canonicalize()) else {
        return path.to_path_buf();
    };
    let path_parts: Vec<Component> = path_abs.components().collect();
    let base_parts: Vec<Component> = base_abs.components().collect();
    let common = path_parts
        .iter()
        .zip(&base_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut relative = PathBuf::new();
    for _ in common..base_parts.len() {
        relative.push("..");
    }
    for part in &path_parts[common..] {
        relative.push(part);
    }
    relative
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_walk_up_where_needed() {
        let dir = std::env::temp_dir().join(format!("tinyjoin-slt-rel-{}", std::process::id()));
        let (a, b) = (dir.join("a"), dir.join("b/c"));
        std::fs::create_dir_all(&a).expect("temp dir");
        std::fs::create_dir_all(&b).expect("temp dir");
        std::fs::write(b.join("x.test"), "").expect("temp file");
        assert_eq!(
            relative_to(&b.join("x.test"), &a),
            PathBuf::from("../b/c/x.test")
        );
        assert_eq!(
            relative_to(&a.join("../b/c/x.test"), &dir),
            PathBuf::from("b/c/x.test")
        );
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn bad_arguments_are_usage_errors() {
        assert!(parse_args(&[]).is_err());
        assert!(parse_args(&["--jobs".into()]).is_err());
        assert!(parse_args(&["--jobs".into(), "x".into(), "a".into()]).is_err());
        assert!(parse_args(&["--frob".into(), "a".into()]).is_err());
        let options =
            parse_args(&["--jobs".into(), "3".into(), "a".into(), "b".into()]).expect("valid");
        assert_eq!((options.jobs, options.paths.len()), (3, 2));
    }
}
