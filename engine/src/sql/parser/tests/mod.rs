//! Parser tests.
//!
//! - `expressions`, `statements`: hand-written cases per construct; every
//!   statement form also renders back to the same tree.
//! - `errors`: syntax errors with SQLite's exact message and position.
//! - `corpus`: every sqlite record of the sqllogictest corpus parses (and a
//!   sample round-trips through rendering).
//! - `precedence_vs_sqlite`: operator grouping and acceptance of random
//!   expressions, judged by SQLite itself.
//! - `acceptance_vs_sqlite`: random mutations of the statement forms are
//!   rejected exactly when SQLite rejects them.
//! - `props`: arbitrary bytes, text and token streams never panic, errors
//!   carry positions inside the text, and whatever parses round-trips.
//! - `limits`: nesting and chains end in typed errors on a 1 MiB stack.
//! - `support`: shared helpers (tree shapes without positions, grouping).

mod acceptance_vs_sqlite;
mod corpus;
mod errors;
mod expressions;
mod limits;
mod precedence_vs_sqlite;
mod props;
mod statements;
mod support;
