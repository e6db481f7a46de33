//! The seam between the runner and a database engine: [`SltEngine`].
//!
//! The runner knows nothing of any engine; an adapter converts the engine's
//! values into [`SltValue`]s and its errors into strings. Errors are only
//! ever counted, never compared, because sqllogictest files give no error
//! messages. Each file gets a fresh engine (see `corpus::run_files`), so an
//! adapter needs no reset.

/// One value of a query result, as an engine produced it (before the
/// runner renders it by the record's type letter).
#[derive(Clone, Debug, PartialEq)]
pub enum SltValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// What running a query produced.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryOutcome {
    /// The number of result columns of the prepared statement (known even
    /// when there are no rows).
    pub columns: usize,
    /// The rows produced, each of `columns` values.
    pub rows: Vec<Vec<SltValue>>,
    /// An error raised while producing rows, after `rows` were produced.
    /// The reference harness ignores it: the result set just ends there.
    pub error: Option<String>,
}

/// A database engine the runner can drive.
pub trait SltEngine {
    /// Runs every statement in `sql`, in order, like `sqlite3_exec`: the rows
    /// of a query among them are discarded. Fails with the first error; the
    /// statements before it keep their effects.
    fn run_statement(&mut self, sql: &str) -> Result<(), String>;

    /// Runs one query. `Err` means it could not be prepared (syntax error,
    /// unknown table or column, ...). An error while producing rows is not
    /// an `Err`: return the rows so far with [`QueryOutcome::error`] set.
    fn run_query(&mut self, sql: &str) -> Result<QueryOutcome, String>;
}
