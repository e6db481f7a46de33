//! A sqllogictest runner: SQLite's conformance corpus, run against any
//! engine behind the small [`SltEngine`] trait.
//!
//! The rules (record format, `skipif`/`onlyif` for the `sqlite` dialect,
//! conditional `halt`, hash threshold 8 by default, rendering by type
//! letter, sort modes, labels, run-time errors ending a result) are those
//! of the reference harness as described in the corpus's README; each
//! module names the ones it owns:
//!
//! - `parse`: a file's text into [`Record`]s (lines, comments, CRLF, tokens).
//! - `format`: one value rendered by its column's type letter (`%d` of a C
//!   `int`, SQLite's `%.3f`, text with `(empty)` and `@`).
//! - `md5`: RFC 1321, for `N values hashing to <md5>` and labels.
//! - `engine`: the [`SltEngine`] trait and the values it returns.
//! - `run`: one file against one engine: comparison, sorting, hashing,
//!   labels, the per-file [`FileReport`].
//! - `corpus`: finding `*.test` files and running them in parallel, a fresh
//!   engine per file.
//! - `known`: the known-failures list (`path:line  reason`), stale entries.
//! - `cli`: the command line shared by runner binaries
//!   (`tinyjoin-slt [--known-failures FILE] [--jobs N] PATH...`).

mod cli;
mod corpus;
mod engine;
mod format;
mod known;
mod md5;
mod parse;
mod run;

pub use cli::run_cli;
pub use corpus::{collect_test_files, run_file, run_files};
pub use engine::{QueryOutcome, SltEngine, SltValue};
pub use format::{format_fixed3, format_real_as_text, render};
pub use known::{KnownFailures, Verdict};
pub use md5::Md5;
pub use parse::{parse, ColumnType, Condition, Query, Record, RecordKind, SortMode};
pub use run::{
    hash_values, pass_rate, run_script, Failure, FileReport, RunOptions, DEFAULT_HASH_THRESHOLD,
    DIALECT, SLOW_RECORD,
};
