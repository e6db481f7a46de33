//! The executor's side of aggregate calls: FILTER, evaluating the
//! arguments per row, and noticing when `min`/`max` takes a new value (that
//! row then supplies the group's bare columns, as in SQLite). The
//! accumulators themselves, with SQLite's arithmetic and NULL rules, are
//! [`crate::sql::aggregate`].

use super::eval::Env;
use super::ExecCtx;
use crate::sql::aggregate as agg;
use crate::sql::planner::plan::AggCall;
use crate::sql::value::Value;
use crate::{sql_err, Result};

/// The running state of one aggregate call over one group.
#[derive(Debug)]
pub(crate) struct Accumulator {
    inner: agg::Accumulator,
    /// The argument values of the current row (a buffer reused per row).
    args: Vec<Value>,
}

impl Accumulator {
    /// A fresh accumulator for `call` (validated at bind time).
    pub(crate) fn new(call: &AggCall) -> Result<Accumulator> {
        let nargs = if call.star { 0 } else { call.args.len() };
        let kind = agg::lookup(&call.name, nargs, call.distinct)?
            .ok_or_else(|| sql_err!("no such aggregate function: {}", call.name))?;
        Ok(Accumulator {
            inner: agg::Accumulator::new(kind, call.distinct, call.collation),
            args: Vec::with_capacity(call.args.len()),
        })
    }

    /// Feeds one row. Returns true when a min/max value changed.
    pub(crate) fn step(&mut self, ctx: &ExecCtx, call: &AggCall, env: &Env) -> Result<bool> {
        if let Some(f) = &call.filter {
            if ctx.eval(f, env)?.is_true() != Some(true) {
                return Ok(false);
            }
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

    /// The aggregate's value for the group.
    pub(crate) fn finish(self) -> Result<Value> {
        self.inner.finish()
    }
}
