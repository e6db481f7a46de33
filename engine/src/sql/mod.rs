//! The SQL layer: SQLite's dialect, from text to rows.
//!
//! The life of a statement:
//! 1. `lexer::Lexer` cuts the text into tokens with byte positions.
//! 2. `parser::parse` / `parser::parse_next` build an `ast::Statement`
//!    (one per `;`-separated statement), with positions for errors.
//! 3. `db::Connection` picks the transaction: a snapshot (`ReadTxn`) for a
//!    read outside BEGIN, else the write transaction (`WriteTxn`) behind a
//!    storage `Savepoint` that undoes the statement if it fails; both are
//!    seen by the executor as an `exec::kv::Kv`. The `catalog::Catalog`
//!    is the last commit's (or the transaction's own copy).
//! 4. `exec::statement::run` dispatches: transaction control stayed in
//!    the connection; DDL goes to `exec::ddl` (catalog plus schema tree);
//!    queries and DML are bound first.
//! 5. `binder::Binder` resolves names through `binder::scope::Scope`s
//!    into a `planner::plan::Query` of bound `planner::plan::Expr`s
//!    (row slots, comparison affinity and collation decided once).
//! 6. `planner::join::plan_from` orders each FROM clause (greedy, by
//!    `planner::access::choose_access` estimates from tree sizes and the
//!    catalog's ANALYZE statistics, `exec::analyze`) into
//!    `planner::plan::Level`s, each with an `planner::plan::Access`
//!    path (rowid, index, covering index, hash join, scan) and the
//!    conjuncts evaluated there.
//! 7. `exec::ExecCtx` runs the plan: the nested-loop join streams rows
//!    into projection, aggregation (`exec::aggregate` over
//!    `aggregate`), windows, DISTINCT, set operations, ORDER BY, LIMIT;
//!    `exec::eval` evaluates expressions with `value` and
//!    `functions`. DML writes rows and index entries through
//!    `exec::write::TableWriter`, checking constraints per row.
//! 8. The connection commits (autocommit) or keeps the transaction open,
//!    and returns a `db::QueryResult`.
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

pub(crate) mod aggregate;
pub(crate) mod ast;
pub(crate) mod binder;
pub(crate) mod catalog;
pub(crate) mod exec;
pub(crate) mod functions;
pub(crate) mod keycode;
pub(crate) mod lexer;
pub(crate) mod nesting;
pub(crate) mod parser;
pub(crate) mod planner;
pub(crate) mod record;
pub mod value;
#[cfg(test)]
pub(crate) mod values_vs_sqlite;
