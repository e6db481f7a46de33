//! The executor's side of aggregate calls: FILTER, evaluating the
//! arguments per row, noticing when `min`/`max` takes a new value (that
//! row then supplies the group's bare columns, as in SQLite), and a call's
//! own ORDER BY. The accumulators themselves, with SQLite's arithmetic and
//! NULL rules, are [`crate::sql::aggregate`].
//!
//! An aggregate with an ORDER BY (`group_concat(x, ',' ORDER BY y DESC)`)
//! works as SQLite's (select.c, `iOBTab`): each row FILTER and DISTINCT
//! admit is held (its arguments, whether each carries the JSON subtype,
//! and its ORDER BY values), charged to the batch limit; when the group
//! ends the rows are sorted by the ORDER BY terms, ties in the order they
//! came, and stepped in that order. DISTINCT keeps the first of equal
//! values as it arrives, except when its ORDER BY is its argument alone:
//! SQLite then sorts into a unique index, where a later equal value
//! replaces the earlier one, so the last is kept (`1` and `1.0` give
//! `1.0`).

use std::cmp::Ordering;

use super::eval::Env;
use super::scan::Row;
use super::select::{compare_by_keys, sort_indexes_by_keys};
use super::ExecCtx;
use crate::sql::aggregate as agg;
use crate::sql::planner::plan::{AggCall, SortKey};
use crate::sql::value::Value;
use crate::{sql_err, Result};

/// The running state of one aggregate call over one group.
#[derive(Debug)]
pub(crate) struct Accumulator {
    inner: agg::Accumulator,
    /// The argument values of the current row (a buffer reused per row).
    args: Vec<Value>,
    /// For a call with an ORDER BY: the rows held until the group ends.
    ordered: Option<Ordered>,
}

/// An ordered aggregate's held rows.
#[derive(Debug, Default)]
struct Ordered {
    /// Each admitted row's ORDER BY values.
    order: Vec<Row>,
    /// Each admitted row's arguments, and whether each carries the JSON
    /// subtype (JSON aggregates only; empty otherwise).
    held: Vec<(Row, Vec<bool>)>,
}

impl Accumulator {
    /// A fresh accumulator for `call` (validated at bind time).
    pub(crate) fn new(call: &AggCall) -> Result<Accumulator> {
        let nargs = if call.star { 0 } else { call.args.len() };
        let kind = agg::lookup(&call.name, nargs, call.distinct)?
            .ok_or_else(|| sql_err!("no such aggregate function: {}", call.name))?;
        let ordered = (!call.order_by.is_empty()).then(Ordered::default);
        // The last-of-equal DISTINCT is the sort's, not the accumulator's.
        let distinct = call.distinct && !call.order_distinct_last;
        Ok(Accumulator {
            inner: agg::Accumulator::new(kind, distinct, call.collation),
            args: Vec::with_capacity(call.args.len()),
            ordered,
        })
    }

    /// Feeds one row. Returns true when a min/max value changed.
    pub(crate) fn step(&mut self, ctx: &ExecCtx, call: &AggCall, env: &Env) -> Result<bool> {
        if let Some(f) = &call.filter {
            if ctx.eval(f, env)?.is_true() != Some(true) {
                return Ok(false);
            }
        }
        if self.ordered.is_some() {
            return self.hold(ctx, call, env).map(|()| false);
        }
        // Only min/max report a change (a strictly smaller or greater value).
        if self.inner.is_json() {
            // The JSON aggregates see whether each argument carries the
            // JSON subtype.
            self.args.clear();
            let mut json = Vec::with_capacity(call.args.len());
            for a in &call.args {
                let (v, j) = ctx.eval_json(a, env)?;
                self.args.push(v);
                json.push(j);
            }
            return self.inner.step_with_json(&self.args, &json);
        }
        if call.star {
            return self.inner.step_reporting(&[]);
        }
        if let [a] = call.args.as_slice() {
            // One argument, the usual case: a column is read in place.
            let v = ctx.operand(a, env)?;
            return self.inner.step_reporting(std::slice::from_ref(&*v));
        }
        self.args.clear();
        for a in &call.args {
            self.args.push(ctx.eval(a, env)?);
        }
        self.inner.step_reporting(&self.args)
    }

    /// An ordered aggregate's [`Accumulator::step`]: holds the row if
    /// DISTINCT admits it.
    fn hold(&mut self, ctx: &ExecCtx, call: &AggCall, env: &Env) -> Result<()> {
        let mut args = Vec::with_capacity(call.args.len());
        let mut json = Vec::new();
        for a in &call.args {
            if self.inner.is_json() {
                let (v, j) = ctx.eval_json(a, env)?;
                args.push(v);
                json.push(j);
            } else {
                args.push(ctx.eval(a, env)?);
            }
        }
        if !self.inner.admit(args.first().unwrap_or(&Value::Null)) {
            return Ok(());
        }
        let mut order = Vec::with_capacity(call.order_by.len());
        for (e, ..) in &call.order_by {
            order.push(ctx.eval(e, env)?);
        }
        ctx.charge(super::row_size(&args) + super::row_size(&order) + json.len() as u64)?;
        if let Some(o) = &mut self.ordered {
            o.order.push(order);
            o.held.push((args, json));
        }
        Ok(())
    }

    /// Removes one row fed earlier by [`Accumulator::step`] (a window
    /// frame's oldest), when [`Accumulator::supports_inverse`].
    pub(crate) fn inverse(&mut self, ctx: &ExecCtx, call: &AggCall, env: &Env) -> Result<()> {
        if let Some(f) = &call.filter {
            if ctx.eval(f, env)?.is_true() != Some(true) {
                return Ok(());
            }
        }
        self.args.clear();
        if !call.star {
            for a in &call.args {
                self.args.push(ctx.eval(a, env)?);
            }
        }
        self.inner.inverse(&self.args)
    }

    /// Whether rows can be removed (not for min, max or DISTINCT).
    pub(crate) fn supports_inverse(&self) -> bool {
        self.inner.supports_inverse()
    }

    /// The value so far (a window frame's; see [`agg::Accumulator::value`]).
    pub(crate) fn value(&self) -> Result<Value> {
        self.inner.value()
    }

    /// The aggregate's value for the group (an ordered one's rows stepped
    /// now, in `call`'s order).
    pub(crate) fn finish(self, call: &AggCall) -> Result<Value> {
        let mut inner = self.inner;
        if let Some(o) = self.ordered {
            let keys: Vec<SortKey> = call
                .order_by
                .iter()
                .enumerate()
                .map(|(column, &(_, desc, nulls_first, collation))| SortKey {
                    column,
                    desc,
                    nulls_first,
                    collation,
                })
                .collect();
            // Stable: ties keep the order the rows came in.
            let mut idx: Vec<usize> = (0..o.order.len()).collect();
            sort_indexes_by_keys(&mut idx, &o.order, &keys);
            for (n, &i) in idx.iter().enumerate() {
                // DISTINCT ordered by its argument: of equal rows, the last.
                if call.order_distinct_last
                    && idx.get(n + 1).is_some_and(|&next| {
                        compare_by_keys(&o.order[i], &o.order[next], &keys) == Ordering::Equal
                    })
                {
                    continue;
                }
                let (args, json) = &o.held[i];
                inner.step_admitted(args, json)?;
            }
        }
        inner.finish()
    }
}
