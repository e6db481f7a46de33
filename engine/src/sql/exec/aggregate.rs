//! Aggregate accumulators with SQLite's rules: `count`, `sum` (integer
//! until a real arrives; integer overflow is an error), `total` (always
//! real), `avg`, `min`/`max` (NULLs ignored, collation-aware),
//! `group_concat`, each optionally DISTINCT and FILTERed.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::eval::Env;
use super::ExecCtx;
use crate::sql::keycode::{self, KeyColumn};
use crate::sql::planner::plan::AggCall;
use crate::sql::value::{compare, Collation, Value};
use crate::{sql_err, Result};

/// The running state of one aggregate call over one group.
#[derive(Debug)]
pub(crate) struct Accumulator {
    kind: Kind,
    seen: Option<HashSet<Vec<u8>>>,
    collation: Collation,
}

#[derive(Debug)]
enum Kind {
    Count(i64),
    Sum {
        int: i64,
        real: f64,
        any: bool,
        is_real: bool,
        overflow: bool,
    },
    Total(f64),
    Avg {
        sum: f64,
        n: i64,
    },
    Min(Option<Value>),
    Max(Option<Value>),
    GroupConcat(Option<String>),
}

impl Accumulator {
    pub(crate) fn new(call: &AggCall) -> Accumulator {
        let kind = match call.name.as_str() {
            "count" => Kind::Count(0),
            "sum" => Kind::Sum {
                int: 0,
                real: 0.0,
                any: false,
                is_real: false,
                overflow: false,
            },
            "total" => Kind::Total(0.0),
            "avg" => Kind::Avg { sum: 0.0, n: 0 },
            "min" => Kind::Min(None),
            "max" => Kind::Max(None),
            _ => Kind::GroupConcat(None),
        };
        Accumulator {
            kind,
            seen: call.distinct.then(HashSet::new),
            collation: call.collation,
        }
    }

    /// Feeds one row. Returns true when a min/max value changed (the row
    /// then supplies the group's bare columns, as in SQLite).
    pub(crate) fn step(&mut self, ctx: &ExecCtx, call: &AggCall, env: &Env) -> Result<bool> {
        if let Some(f) = &call.filter {
            if ctx.eval(f, env)?.is_true() != Some(true) {
                return Ok(false);
            }
        }
        if call.star {
            if let Kind::Count(n) = &mut self.kind {
                *n += 1;
            }
            return Ok(false);
        }
        let v = ctx.eval(&call.args[0], env)?;
        if v.is_null() {
            return Ok(false);
        }
        if let Some(seen) = &mut self.seen {
            let col = KeyColumn {
                desc: false,
                collation: self.collation,
            };
            if !seen.insert(keycode::encode_key(std::slice::from_ref(&v), &[col])) {
                return Ok(false);
            }
        }
        let sep = match call.args.get(1) {
            Some(e) => Some(ctx.eval(e, env)?),
            None => None,
        };
        Ok(self.add(v, sep))
    }

    fn add(&mut self, v: Value, sep: Option<Value>) -> bool {
        let want = if matches!(self.kind, Kind::Min(_)) {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        match &mut self.kind {
            Kind::Count(n) => *n += 1,
            Kind::Sum {
                int,
                real,
                any,
                is_real,
                overflow,
            } => {
                *any = true;
                // sqlite3_value_numeric_type: text that is a number counts
                // as that number.
                let v = match v {
                    Value::Text(_) | Value::Blob(_) => {
                        crate::sql::value::numeric_affinity(v, false)
                    }
                    other => other,
                };
                match v {
                    Value::Integer(i) if !*is_real => match int.checked_add(i) {
                        Some(s) => *int = s,
                        None => *overflow = true,
                    },
                    other => {
                        if !*is_real {
                            *is_real = true;
                            *real = *int as f64;
                        }
                        *real += other.to_f64();
                    }
                }
            }
            Kind::Total(t) => *t += v.to_f64(),
            Kind::Avg { sum, n } => {
                *sum += v.to_f64();
                *n += 1;
            }
            Kind::Min(m) | Kind::Max(m) => {
                let better = m
                    .as_ref()
                    .is_none_or(|cur| compare(&v, cur, self.collation) == want);
                if better {
                    *m = Some(v);
                    return true;
                }
            }
            Kind::GroupConcat(acc) => {
                let text = v.to_text().unwrap_or_default();
                match acc {
                    None => *acc = Some(text),
                    Some(s) => {
                        let sep = match sep {
                            Some(Value::Null) => String::new(),
                            Some(x) => x.to_text().unwrap_or_default(),
                            None => ",".to_string(),
                        };
                        s.push_str(&sep);
                        s.push_str(&text);
                    }
                }
            }
        }
        false
    }

    /// The aggregate's value for the group.
    pub(crate) fn finish(self) -> Result<Value> {
        Ok(match self.kind {
            Kind::Count(n) => Value::Integer(n),
            Kind::Sum { any: false, .. } => Value::Null,
            Kind::Sum {
                overflow: true,
                is_real: false,
                ..
            } => return Err(sql_err!("integer overflow")),
            Kind::Sum {
                is_real: true,
                real,
                ..
            } => Value::Real(real),
            Kind::Sum { int, .. } => Value::Integer(int),
            Kind::Total(t) => Value::Real(t),
            Kind::Avg { n: 0, .. } => Value::Null,
            Kind::Avg { sum, n } => Value::Real(sum / n as f64),
            Kind::Min(m) | Kind::Max(m) => m.unwrap_or(Value::Null),
            Kind::GroupConcat(s) => s.map_or(Value::Null, Value::Text),
        })
    }
}
