//! The planner: the bound plan types the executor runs, access path
//! selection and join ordering.
//!
//! - `plan`: bound expressions and relational plans (the executor's input).
//! - `access`: choosing a rowid lookup, index probe or scan per FROM item.
//! - `join`: join order and where each conjunct is evaluated.

pub(crate) mod access;
pub(crate) mod join;
pub(crate) mod plan;
