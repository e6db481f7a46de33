//! The SQL layer: SQLite's dialect, from text to rows.
//!
//! The life of a statement:
//! 1. [`lexer::Lexer`] cuts the text into tokens with byte positions.
//! 2. [`parser::parse`] / [`parser::parse_next`] build an [`ast::Statement`]
//!    (one per `;`-separated statement), with positions for errors.
//! 3. The binder, planner and executor (their modules below) resolve names
//!    against the catalog, plan and run it.
//!
//! - `ast`: the syntax tree types (the parser's output contract).
//! - `lexer`: tokens, keywords, literals' lexical rules.
//! - `parser`: recursive-descent parser and the SQL renderer (`Display`).
//! - `value`: SQL values and SQLite's typing rules (affinity, comparison,
//!   arithmetic, CAST, number ⇄ text).
//! - `record`: the row encoding stored as B+tree values (on-disk format).
//! - `aggregate`: aggregate accumulators (count, sum, avg, min, group_concat...).
//! - `functions`: SQLite's built-in scalar functions.
//! - `keycode`: order-preserving index key encoding (on-disk format).
//! - `catalog`: tables, indexes, views and their persistence layout.
//! - `binder`: name resolution and the bound form of statements.
//! - `planner`: bound plan types, access paths, join order.
//! - `exec`: the executor (queries, DML, DDL, EXPLAIN QUERY PLAN).

pub(crate) mod ast;
pub(crate) mod binder;
pub(crate) mod catalog;
pub(crate) mod exec;
pub(crate) mod planner;
pub(crate) mod lexer;
pub(crate) mod parser;
pub(crate) mod aggregate;
pub(crate) mod functions;
pub(crate) mod keycode;
pub(crate) mod record;
pub mod value;
#[cfg(test)]
mod values_vs_sqlite;
