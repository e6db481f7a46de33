//! The engine's one error type, grouped by cause rather than by call site.
//!
//! Every variant maps to exactly one stable code string ([`Error::code`]); the
//! worker and the TypeScript client carry that code unchanged, so callers decide
//! by code, never by message text. Constructors are kept to one line with the
//! macros at the bottom of this file.

use std::fmt;

/// Where in a SQL statement an error was found: a byte offset into the text.
pub type Position = usize;

/// The kinds of constraint a write can violate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstraintKind {
    Unique,
    PrimaryKey,
    NotNull,
    Check,
    ForeignKey,
    /// A STRICT table's column refused a value of another type.
    Datatype,
    /// A trigger's RAISE(ABORT | FAIL | ROLLBACK, message).
    Trigger,
}

/// Every failure the engine reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Bytes read from the device are not what the format allows: a checksum
    /// mismatch, an impossible length, a broken tree. `page` names the page
    /// where it was found (0 when no single page is at fault).
    Corrupt { page: u64, detail: String },
    /// The device failed a call. The pager is poisoned afterwards.
    Io(String),
    /// The device ran out of space. Nothing committed is lost; the pager is
    /// poisoned until reopen.
    DiskFull,
    /// A write transaction needed to retain more memory than the configured
    /// batch limit allows; the statement or transaction was rolled back.
    BatchLimitExceeded { limit: u64, needed: u64 },
    /// A key or value exceeds a hard size limit of the format.
    TooLarge(String),
    /// The SQL text could not be parsed. `position` is a byte offset.
    Syntax { message: String, position: Position },
    /// The SQL parsed but cannot run: unknown table or column, wrong number of
    /// arguments, a type error, and the like.
    Sql {
        message: String,
        position: Option<Position>,
    },
    /// A write violated a constraint.
    Constraint {
        kind: ConstraintKind,
        message: String,
    },
    /// A write was attempted where only reads are allowed.
    ReadOnly(String),
    /// A write transaction is already open on this database.
    Busy(String),
    /// The database or statement was closed, or the pager is poisoned after
    /// a failed write.
    Closed(String),
    /// An API was used out of order (committing twice, binding a parameter
    /// that does not exist, ...).
    Misuse(String),
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The stable code shared with the worker and the TypeScript client.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Corrupt { .. } => "CORRUPT",
            Error::Io(_) => "IO",
            Error::DiskFull => "QUOTA_EXCEEDED",
            Error::BatchLimitExceeded { .. } => "BATCH_LIMIT_EXCEEDED",
            Error::TooLarge(_) => "TOO_LARGE",
            Error::Syntax { .. } => "SQL_SYNTAX",
            Error::Sql { .. } => "SQL_ERROR",
            Error::Constraint { kind, .. } => match kind {
                ConstraintKind::Unique => "CONSTRAINT_UNIQUE",
                ConstraintKind::PrimaryKey => "CONSTRAINT_PRIMARY_KEY",
                ConstraintKind::NotNull => "CONSTRAINT_NOT_NULL",
                ConstraintKind::Check => "CONSTRAINT_CHECK",
                ConstraintKind::ForeignKey => "CONSTRAINT_FOREIGN_KEY",
                ConstraintKind::Datatype => "CONSTRAINT_DATATYPE",
                ConstraintKind::Trigger => "CONSTRAINT_TRIGGER",
            },
            Error::ReadOnly(_) => "READ_ONLY",
            Error::Busy(_) => "BUSY",
            Error::Closed(_) => "CLOSED",
            Error::Misuse(_) => "MISUSE",
        }
    }

    /// The byte position in the SQL text, for SQL errors that have one.
    pub fn position(&self) -> Option<Position> {
        match self {
            Error::Syntax { position, .. } => Some(*position),
            Error::Sql { position, .. } => *position,
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Corrupt { page, detail } => write!(f, "database is corrupt at page {page}: {detail}"),
            Error::Io(m) => write!(f, "I/O error: {m}"),
            Error::DiskFull => write!(f, "disk full: the storage quota is exhausted"),
            Error::BatchLimitExceeded { limit, needed } => write!(
                f,
                "transaction needs {needed} bytes of retained memory, over the batch limit of {limit} bytes"
            ),
            Error::TooLarge(m) => write!(f, "too large: {m}"),
            Error::Syntax { message, position } => write!(f, "syntax error at byte {position}: {message}"),
            Error::Sql { message, position: Some(p) } => write!(f, "{message} (at byte {p})"),
            Error::Sql { message, position: None } => write!(f, "{message}"),
            Error::Constraint { message, .. } => write!(f, "constraint failed: {message}"),
            Error::ReadOnly(m) => write!(f, "read-only: {m}"),
            Error::Busy(m) => write!(f, "busy: {m}"),
            Error::Closed(m) => write!(f, "closed: {m}"),
            Error::Misuse(m) => write!(f, "misuse: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// `corrupt!(page, "format", args..)` builds an [`Error::Corrupt`].
#[macro_export]
macro_rules! corrupt {
    ($page:expr, $($arg:tt)*) => {
        $crate::Error::Corrupt { page: $page as u64, detail: format!($($arg)*) }
    };
}

/// `sql_err!("format", args..)` builds an [`Error::Sql`] without a position.
#[macro_export]
macro_rules! sql_err {
    ($($arg:tt)*) => {
        $crate::Error::Sql { message: format!($($arg)*), position: None }
    };
}

/// `misuse!("format", args..)` builds an [`Error::Misuse`].
#[macro_export]
macro_rules! misuse {
    ($($arg:tt)*) => {
        $crate::Error::Misuse(format!($($arg)*))
    };
}
