//! The executor's side of aggregate calls: FILTER, evaluating the
//! arguments per row, and noticing when `min`/`max` takes a new value (that
//! row then supplies the group's bare columns, as in SQLite). The
//! accumulators themselves, with SQLite's arithmetic and NULL rules, are
//! [`crate::sql::aggregate`].

use super::eval::Env;
use super::ExecCtx;
use crate::sql::aggregate::{self as agg, AggregateKind};
use crate::sql::planner::plan::AggCall;
use crate::sql::value::Value;
use crate::{sql_err, Result};

/// The running state of one aggregate call over one group.
#[derive(Debug)]
pub(crate) struct Accumulator {
    inner: agg::Accumulator,
    /// `min`/`max`: report when the value changes.
    extreme: bool,
}

impl Accumulator {
    /// A fresh accumulator for `call` (validated at bind time).
    pub(crate) fn new(call: &AggCall) -> Result<Accumulator> {
        let nargs = if call.star { 0 } else { call.args.len() };
        let kind = agg::lookup(&call.name, nargs, call.distinct)?
            .ok_or_else(|| sql_err!("no such aggregate function: {}", call.name))?;
        Ok(Accumulator {
            inner: agg::Accumulator::new(kind, call.distinct, call.collation),
            extreme: matches!(kind, AggregateKind::Min | AggregateKind::Max),
        })
    }

    /// Feeds one row. Returns true when a min/max value changed.
    pub(crate) fn step(&mut self, ctx: &ExecCtx, call: &AggCall, env: &Env) -> Result<bool> {
        if let Some(f) = &call.filter {
            if ctx.eval(f, env)?.is_true() != Some(true) {
                return Ok(false);
            }
        }
        let mut args = Vec::with_capacity(call.args.len());
        if !call.star {
            for a in &call.args {
                args.push(ctx.eval(a, env)?);
            }
        }
        if !self.extreme {
            self.inner.step(&args)?;
            return Ok(false);
        }
        let before = self.inner.value()?;
        self.inner.step(&args)?;
        Ok(self.inner.value()? != before)
    }

    /// The aggregate's value for the group.
    pub(crate) fn finish(self) -> Result<Value> {
        self.inner.finish()
    }
}
