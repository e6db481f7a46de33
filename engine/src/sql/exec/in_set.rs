//! `x IN (SELECT ...)`: the subquery's rows as a sorted set, searched
//! once per evaluation instead of compared one by one.
//!
//! Semantics are SQLite's for an IN over a subquery (its ephemeral index),
//! which are not quite those of `=`: each column's comparison affinity
//! (the left operand's and the subquery column's, combined as for `=`) is
//! applied to both sides as a column applies its affinity to a stored value,
//! whatever the other side is. So under TEXT affinity every number becomes
//! text, and under REAL affinity every integer becomes a real (`x IN
//! (SELECT r ...)` on a REAL column finds 2^63 - 1 among values equal to
//! 2^63 as reals). Then values compare by [`compare`] under each column's
//! collation.
//!
//! Invariant: `sorted` holds the rows without a NULL, keyed (affinity
//! applied) and sorted by [`compare`] column by column. Keyed values are
//! never NULL and reals are never NaN, so that order is a total preorder
//! and a binary search finds a row exactly when one compares equal.

use std::cmp::Ordering;

use crate::sql::planner::plan::CmpInfo;
use crate::sql::value::{apply_affinity, compare, comparison_affinity, Affinity, Collation, Value};

/// A subquery's rows prepared for `x IN (...)`.
pub(crate) struct InSet {
    /// The affinity applied to each column on both sides, and its collation.
    columns: Vec<(Option<Affinity>, Collation)>,
    /// The keyed rows without a NULL, sorted (see the module invariant).
    sorted: Vec<Vec<Value>>,
    /// The keyed rows with a NULL in a column: they cannot match, but make
    /// the result NULL instead of false when all else is equal.
    with_null: Vec<Vec<Value>>,
}

impl InSet {
    /// Prepares `rows` (each at least `cmp.len()` columns; extra ones are
    /// dropped, shorter rows never match) for comparing under `cmp`.
    pub(crate) fn new(rows: Vec<Vec<Value>>, cmp: &[CmpInfo]) -> InSet {
        let columns: Vec<(Option<Affinity>, Collation)> = cmp
            .iter()
            .map(|c| {
                (
                    comparison_affinity(c.left_affinity, c.right_affinity),
                    c.collation,
                )
            })
            .collect();
        let width = columns.len();
        let mut sorted = Vec::with_capacity(rows.len());
        let mut with_null = Vec::new();
        for mut row in rows {
            if row.len() < width {
                continue;
            }
            row.truncate(width);
            for (v, (aff, _)) in row.iter_mut().zip(&columns) {
                *v = key(std::mem::replace(v, Value::Null), *aff);
            }
            if row.iter().any(Value::is_null) {
                with_null.push(row);
            } else {
                sorted.push(row);
            }
        }
        sorted.sort_by(|a, b| compare_rows(a, b, &columns));
        InSet {
            columns,
            sorted,
            with_null,
        }
    }

    /// `x IN (these rows)`: true on a match, false when nothing can match,
    /// `None` (NULL) when no row matches but one might had its NULLs (or
    /// `x`'s) been values. An empty set is false even for a NULL `x`.
    pub(crate) fn contains(&self, x: &[Value]) -> Option<bool> {
        if self.sorted.is_empty() && self.with_null.is_empty() {
            return Some(false);
        }
        let x: Vec<Value> = x
            .iter()
            .zip(&self.columns)
            .map(|(v, (aff, _))| key(v.clone(), *aff))
            .collect();
        let x_has_null = x.iter().any(Value::is_null);
        if !x_has_null
            && self
                .sorted
                .binary_search_by(|row| compare_rows(row, &x, &self.columns))
                .is_ok()
        {
            return Some(true);
        }
        // No match. NULL when a row equals `x` in every column where
        // neither side is NULL; the sorted rows need checking only when `x`
        // has a NULL (else the search above compared them exactly).
        let candidates = if x_has_null {
            &self.sorted[..]
        } else {
            &[][..]
        };
        let maybe = candidates
            .iter()
            .chain(&self.with_null)
            .any(|row| might_equal(row, &x, &self.columns));
        if maybe {
            None
        } else {
            Some(false)
        }
    }
}

/// `v` with the comparison affinity applied (nothing for none or BLOB).
fn key(v: Value, aff: Option<Affinity>) -> Value {
    match aff {
        Some(a) if !v.is_null() => apply_affinity(v, a),
        _ => v,
    }
}

fn compare_rows(a: &[Value], b: &[Value], columns: &[(Option<Affinity>, Collation)]) -> Ordering {
    for ((x, y), (_, coll)) in a.iter().zip(b).zip(columns) {
        match compare(x, y, *coll) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    Ordering::Equal
}

/// True when every column pair without a NULL compares equal.
fn might_equal(a: &[Value], b: &[Value], columns: &[(Option<Affinity>, Collation)]) -> bool {
    a.iter().zip(b).zip(columns).all(|((x, y), (_, coll))| {
        x.is_null() || y.is_null() || compare(x, y, *coll) == Ordering::Equal
    })
}
