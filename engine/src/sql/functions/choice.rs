//! Functions that return one of their arguments: min/max (multi-argument),
//! coalesce/ifnull, nullif, iif, likely/unlikely/likelihood, and typeof,
//! which names an argument's storage class.

use std::cmp::Ordering;

use crate::sql::value::{compare, Collation, Value};
use crate::Result;

/// Multi-argument `min`: NULL if any argument is NULL; on ties the later
/// argument wins (observable as `min(1, 1.0)` = 1.0).
pub(super) fn min(args: &[Value], collation: Collation) -> Result<Value> {
    best(args, collation, |o| o != Ordering::Less)
}

/// Multi-argument `max`: NULL if any argument is NULL; on ties the first wins.
pub(super) fn max(args: &[Value], collation: Collation) -> Result<Value> {
    best(args, collation, |o| o == Ordering::Less)
}

fn best(args: &[Value], collation: Collation, replace: impl Fn(Ordering) -> bool) -> Result<Value> {
    let mut best = &args[0];
    if best.is_null() {
        return Ok(Value::Null);
    }
    for v in &args[1..] {
        if v.is_null() {
            return Ok(Value::Null);
        }
        if replace(compare(best, v, collation)) {
            best = v;
        }
    }
    Ok(best.clone())
}

/// `coalesce(...)` and `ifnull(a, b)`: the first non-NULL argument.
pub(super) fn coalesce(args: &[Value], _: Collation) -> Result<Value> {
    Ok(args
        .iter()
        .find(|v| !v.is_null())
        .cloned()
        .unwrap_or(Value::Null))
}

/// `nullif(a, b)`: NULL when a equals b (by the total order, collation
/// aware), else a.
pub(super) fn nullif(args: &[Value], collation: Collation) -> Result<Value> {
    if compare(&args[0], &args[1], collation) == Ordering::Equal {
        Ok(Value::Null)
    } else {
        Ok(args[0].clone())
    }
}

/// `iif(c, a, b)`: a when c is true, else b (NULL counts as false).
pub(super) fn iif(args: &[Value], _: Collation) -> Result<Value> {
    Ok(if args[0].is_true() == Some(true) {
        args[1].clone()
    } else {
        args[2].clone()
    })
}

pub(super) fn type_of(args: &[Value], _: Collation) -> Result<Value> {
    Ok(Value::Text(args[0].type_name().to_string()))
}

/// `likely(x)`, `unlikely(x)`, `likelihood(x, p)`: planner hints; x.
pub(super) fn first(args: &[Value], _: Collation) -> Result<Value> {
    Ok(args[0].clone())
}
