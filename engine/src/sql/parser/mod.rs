//! The SQL parser: SQLite-dialect text to [`ast::Statement`]s, and back.
//!
//! Recursive descent for statements and clauses, precedence climbing for
//! expressions (SQLite's operator table is in `expr`). The parser never
//! panics: any input yields statements or a typed [`Error::Syntax`] (or
//! [`Error::Sql`] for valid SQLite syntax TinyJoin does not support, such as
//! triggers) whose position is a byte offset of the offending token.
//! Nesting is bounded by `cursor::MAX_DEPTH` and `cursor::MAX_PARSER_STACK`,
//! and statements by `cursor::MAX_STATEMENT_LEN`, so the parser's stack use
//! and every later recursive walk over the tree are bounded.
//!
//! - `cursor`: the token cursor, names, parameters, errors, depth bound.
//! - `statement`: entry points ([`parse`], [`parse_next`]) and small statements.
//! - `expr`: expressions.
//! - `select`: queries, FROM, ORDER BY, LIMIT, windows.
//! - `dml`: INSERT, UPDATE, DELETE.
//! - `ddl`: CREATE, DROP, ALTER.
//! - `render`: `Display` for expressions and queries (SQL text that parses
//!   back to the same tree).
//! - `render_statement`: `Display` for statements.
//!
//! [`ast::Statement`]: crate::sql::ast::Statement
//! [`Error::Syntax`]: crate::Error::Syntax
//! [`Error::Sql`]: crate::Error::Sql

mod cursor;
mod ddl;
mod dml;
mod expr;
mod render;
mod render_statement;
mod select;
mod statement;

pub(crate) use statement::{parse, parse_next};

#[cfg(test)]
mod tests;
