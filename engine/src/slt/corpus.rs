//! Finding test files and running many of them in parallel.
//!
//! Files run in parallel with each other, never within one: records of a
//! file depend on the ones before. Every file gets a fresh engine from the
//! factory, created on the worker thread that runs it, so an engine need
//! not be `Send` (TinyJoin's `Database` is not).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;

use super::engine::SltEngine;
use super::run::{run_script, FileReport, RunOptions};

/// The extension of sqllogictest files.
const TEST_EXTENSION: &str = "test";

/// Every `*.test` file under each path (a file is taken as given, a folder
/// is searched recursively), sorted and without duplicates.
pub fn collect_test_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        let meta = fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if meta.is_dir() {
            collect_dir(path, &mut files)?;
        } else {
            files.push(path.clone());
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

fn collect_dir(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            collect_dir(&path, files)?;
        } else if path.extension().is_some_and(|e| e == TEST_EXTENSION) {
            files.push(path);
        }
    }
    Ok(())
}

/// Runs one file on a fresh engine. The report names the file as
/// `path.display()` shows it.
pub fn run_file<E: SltEngine>(
    path: &Path,
    options: RunOptions,
    make_engine: impl FnOnce() -> Result<E, String>,
) -> FileReport {
    let name = path.display().to_string();
    // Test files are read as bytes and decoded leniently: the corpus is
    // ASCII, and a stray invalid byte should fail one record, not the file.
    let text = match fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return FileReport::broken(&name, format!("cannot read the file: {e}")),
    };
    match make_engine() {
        Ok(mut engine) => run_script(&name, &text, &mut engine, options),
        Err(e) => FileReport::broken(&name, format!("cannot create an engine: {e}")),
    }
}

/// Runs `files` with up to `jobs` threads, calling `on_done` as each file
/// finishes (from the thread that ran it). Returns the reports in the order
/// of `files`.
pub fn run_files<E, F>(
    files: &[PathBuf],
    jobs: usize,
    options: RunOptions,
    make_engine: F,
    on_done: impl Fn(&FileReport) + Sync,
) -> Vec<FileReport>
where
    E: SltEngine,
    F: Fn() -> Result<E, String> + Sync,
{
    let next = AtomicUsize::new(0);
    let reports: Mutex<Vec<Option<FileReport>>> = Mutex::new(vec![None; files.len()]);
    let workers = jobs.clamp(1, files.len().max(1));
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(index) else { break };
                let report = run_file(path, options, &make_engine);
                on_done(&report);
                // A poisoned lock only means another worker panicked in
                // `on_done`; the slots are still plain data.
                let mut slots = reports.lock().unwrap_or_else(|e| e.into_inner());
                slots[index] = Some(report);
            });
        }
    });
    let slots = reports.into_inner().unwrap_or_else(|e| e.into_inner());
    slots
        .into_iter()
        .zip(files)
        .map(|(slot, path)| {
            slot.unwrap_or_else(|| {
                FileReport::broken(
                    &path.display().to_string(),
                    "the worker running it panicked".into(),
                )
            })
        })
        .collect()
}
