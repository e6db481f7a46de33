//! The functions that read the connection, not their arguments:
//! `changes()`, `total_changes()`, `last_insert_rowid()` (SQLite's
//! connection-state functions) and `sqlite_version()`.
//!
//! The connection sets its state with [`set_connection_state`] before each
//! statement runs (the engine is single-threaded, as `'now'`'s statement
//! time is), so a statement reads it as it was when the statement began:
//! `changes()` counts the rows the last INSERT, UPDATE or DELETE before it
//! changed directly, `total_changes()` those of every such statement since
//! the connection opened, with the rows their foreign key actions changed
//! (which the executor counts here, [`count_action_change`], as SQLite
//! counts its actions' trigger programs).

use std::cell::Cell;

use crate::sql::value::{Collation, Value};
use crate::Result;

/// What the connection-state functions read.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConnectionState {
    pub last_insert_rowid: i64,
    pub changes: u64,
    pub total_changes: u64,
}

/// The version of SQLite whose dialect and results the engine follows
/// (the differential tests' oracle): what `sqlite_version()` gives, so an
/// application's feature checks (RETURNING, `->`, ...) pass.
pub(crate) const SQLITE_VERSION: &str = "3.46.0";

thread_local! {
    static STATE: Cell<ConnectionState> = const {
        Cell::new(ConnectionState {
            last_insert_rowid: 0,
            changes: 0,
            total_changes: 0,
        })
    };
    static ACTION_CHANGES: Cell<u64> = const { Cell::new(0) };
    static TRIGGER_CHANGES: Cell<u64> = const { Cell::new(0) };
}

/// Sets what the next statement's connection-state functions read, and
/// starts its count of foreign key action changes at zero.
pub(crate) fn set_connection_state(state: ConnectionState) {
    STATE.with(|s| s.set(state));
    ACTION_CHANGES.with(|c| c.set(0));
    TRIGGER_CHANGES.with(|c| c.set(0));
}

/// Counts a row a foreign key action (CASCADE, SET NULL, SET DEFAULT)
/// deleted or changed.
pub(crate) fn count_action_change() {
    ACTION_CHANGES.with(|c| c.set(c.get() + 1));
}

/// The rows the statement's foreign key actions changed.
pub(crate) fn action_changes() -> u64 {
    ACTION_CHANGES.with(Cell::get)
}

/// Counts `n` rows a trigger's statement inserted, changed or deleted.
pub(crate) fn count_trigger_changes(n: u64) {
    TRIGGER_CHANGES.with(|c| c.set(c.get() + n));
}

/// The rows the statement's triggers changed: SQLite counts them in
/// total_changes() even when the statement then fails.
pub(crate) fn trigger_changes() -> u64 {
    TRIGGER_CHANGES.with(Cell::get)
}

fn state() -> ConnectionState {
    STATE.with(Cell::get)
}

fn count(n: u64) -> Value {
    Value::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

pub(super) fn changes(_: &[Value], _: Collation) -> Result<Value> {
    Ok(count(state().changes))
}

pub(super) fn total_changes(_: &[Value], _: Collation) -> Result<Value> {
    Ok(count(state().total_changes))
}

pub(super) fn last_insert_rowid(_: &[Value], _: Collation) -> Result<Value> {
    Ok(Value::Integer(state().last_insert_rowid))
}

pub(super) fn sqlite_version(_: &[Value], _: Collation) -> Result<Value> {
    Ok(Value::Text(SQLITE_VERSION.to_string()))
}
