//! `tinyjoin-slt`: runs sqllogictest files against TinyJoin.
//!
//! ```text
//! cargo run --release -p tinyjoin-engine --bin tinyjoin-slt -- \
//!     [--known-failures FILE] [--write-known-failures FILE] [--jobs N]
//!     [--show N] [--strict-errors] PATH...
//! ```
//!
//! Run from the repository root, so that the default known-failures list
//! (`engine/tests/slt-known-failures.txt`) is found and paths are named
//! as in it (`../shared/sqllogictest/...`).
//!
//! The runner itself (rules, report, known failures) is
//! `tinyjoin_engine::slt`; this file is only the adapter from TinyJoin's
//! public API (`tinyjoin_engine::db`) to its `SltEngine` trait. Each file
//! gets a fresh in-memory database, in autocommit mode.
//!
//! A query is prepared first: a failure there (syntax, unknown table or
//! column) fails the record, as in the reference harness. An error from
//! running the prepared statement ends its result set. TinyJoin returns no
//! rows with an error, so that result is empty: stricter than the harness
//! when rows came before the error, but a query expected to return nothing
//! then passes whatever the error. The runner lists those queries in a note;
//! `--strict-errors` fails them instead.

use std::process::ExitCode;

use tinyjoin_engine::db::{Connection, Database, Params, Value};
use tinyjoin_engine::slt::{run_cli, QueryOutcome, SltEngine, SltValue};

/// One fresh in-memory TinyJoin database and a connection to it.
struct TinyJoin {
    // Kept so the database lives as long as the connection.
    _database: Database,
    connection: Connection,
}

impl TinyJoin {
    fn open() -> Result<TinyJoin, String> {
        let database = Database::open_in_memory().map_err(|e| e.to_string())?;
        let connection = database.connect();
        Ok(TinyJoin {
            _database: database,
            connection,
        })
    }
}

impl SltEngine for TinyJoin {
    fn run_statement(&mut self, sql: &str) -> Result<(), String> {
        self.connection
            .execute_batch(sql)
            .map_err(|e| e.to_string())
    }

    fn run_query(&mut self, sql: &str) -> Result<QueryOutcome, String> {
        let mut statement = self.connection.prepare(sql).map_err(|e| e.to_string())?;
        let columns = statement.column_names().len();
        match statement.execute(&mut self.connection, &Params::None) {
            Ok(result) => {
                let rows = result
                    .rows
                    .into_iter()
                    .map(|row| row.into_iter().map(slt_value).collect())
                    .collect();
                Ok(QueryOutcome {
                    columns,
                    rows,
                    error: None,
                })
            }
            Err(e) => Ok(QueryOutcome {
                columns,
                rows: Vec::new(),
                error: Some(e.to_string()),
            }),
        }
    }
}

fn slt_value(value: Value) -> SltValue {
    match value {
        Value::Null => SltValue::Null,
        Value::Integer(i) => SltValue::Integer(i),
        Value::Real(r) => SltValue::Real(r),
        Value::Text(t) => SltValue::Text(t),
        Value::Blob(b) => SltValue::Blob(b),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = run_cli(&args, TinyJoin::open, &mut std::io::stdout());
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
