//! `x IN (SELECT ...)`: the subquery's rows as a set of keys, looked up
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
//! Each row without a NULL is kept as its memcomparable key
//! ([`keycode::encode_key`] under the columns' collations), which is equal
//! for two rows exactly when [`compare`] finds every column equal; rows
//! with a NULL are kept as values, for deciding between false and NULL.

use std::cmp::Ordering;

use crate::sql::keycode::{self, KeyColumn};
use crate::sql::planner::plan::CmpInfo;
use crate::sql::value::{apply_affinity, compare, comparison_affinity, Affinity, Value};
use crate::storage::fasthash::FastSet;

/// A subquery's rows prepared for `x IN (...)`.
pub(crate) struct InSet {
    /// The affinity applied to each column on both sides.
    affinities: Vec<Option<Affinity>>,
    /// Each column's collation, as a key column.
    columns: Vec<KeyColumn>,
    /// The keys of the rows without a NULL.
    keys: FastSet<Vec<u8>>,
    /// Those rows' values, kept (affinity applied) only when a row value
    /// with a NULL may need them compared one by one.
    rows: Vec<Vec<Value>>,
    /// The rows with a NULL (affinity applied): they cannot match, but make
    /// the result NULL instead of false when all else is equal.
    with_null: Vec<Vec<Value>>,
}

impl InSet {
    /// Prepares `rows` (each at least `cmp.len()` columns; extra ones are
    /// dropped, shorter rows never match) for comparing under `cmp`, and
    /// returns it with the bytes its keys hold.
    pub(crate) fn new(rows: Vec<Vec<Value>>, cmp: &[CmpInfo]) -> (InSet, u64) {
        let affinities: Vec<Option<Affinity>> = cmp
            .iter()
            .map(|c| comparison_affinity(c.left_affinity, c.right_affinity))
            .collect();
        let columns: Vec<KeyColumn> = cmp
            .iter()
            .map(|c| KeyColumn {
                desc: false,
                collation: c.collation,
            })
            .collect();
        let width = cmp.len();
        let mut set = InSet {
            affinities,
            columns,
            keys: FastSet::default(),
            rows: Vec::new(),
            with_null: Vec::new(),
        };
        let mut bytes = 0;
        for mut row in rows {
            if row.len() < width {
                continue;
            }
            row.truncate(width);
            for (v, aff) in row.iter_mut().zip(&set.affinities) {
                *v = key(std::mem::replace(v, Value::Null), *aff);
            }
            if row.iter().any(Value::is_null) {
                set.with_null.push(row);
                continue;
            }
            let k = keycode::encode_key(&row, &set.columns);
            bytes += k.len() as u64;
            set.keys.insert(k);
            if width > 1 {
                set.rows.push(row);
            }
        }
        (set, bytes)
    }

    /// `x IN (these rows)`: true on a match, false when nothing can match,
    /// `None` (NULL) when no row matches but one might had its NULLs (or
    /// `x`'s) been values. An empty set is false even for a NULL `x`.
    pub(crate) fn contains(&self, x: &[Value]) -> Option<bool> {
        if self.keys.is_empty() && self.with_null.is_empty() {
            return Some(false);
        }
        let x: Vec<Value> = x
            .iter()
            .zip(&self.affinities)
            .map(|(v, aff)| key(v.clone(), *aff))
            .collect();
        let x_has_null = x.iter().any(Value::is_null);
        if !x_has_null && self.keys.contains(&keycode::encode_key(&x, &self.columns)) {
            return Some(true);
        }
        // No match. NULL when a row equals `x` in every column where
        // neither side is NULL: any row at all for a NULL `x` of one
        // column; else the rows without a NULL need comparing only when
        // `x` has one (the key lookup compared them exactly).
        if x_has_null && x.len() == 1 {
            return None;
        }
        let candidates = if x_has_null { &self.rows[..] } else { &[][..] };
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

/// True when every column pair without a NULL compares equal.
fn might_equal(a: &[Value], b: &[Value], columns: &[KeyColumn]) -> bool {
    a.iter().zip(b).zip(columns).all(|((x, y), c)| {
        x.is_null() || y.is_null() || compare(x, y, c.collation) == Ordering::Equal
    })
}
