//! Parser tests: hand-written cases per construct (`expressions`,
//! `statements`, `errors`), the sqllogictest corpus (`corpus`), rendering
//! round trips (`roundtrip`), precedence against SQLite itself
//! (`precedence_vs_sqlite`), and property tests on arbitrary input (`props`).

mod acceptance_vs_sqlite;
mod corpus;
mod errors;
mod expressions;
mod limits;
mod precedence_vs_sqlite;
mod props;
mod statements;
mod support;
