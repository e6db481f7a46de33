//! Window functions: rows are partitioned and ordered per window call, each
//! call's value is computed per row (ranking, offset, value functions, and
//! aggregates over ROWS/RANGE/GROUPS frames), then the output expressions
//! are evaluated. Output is in the first window's partition/order order, as
//! SQLite's sorter produces it. Simplification, with its cost: a frame
//! aggregate is recomputed per row (quadratic in the partition size).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::aggregate::Accumulator;
use super::eval::Env;
use super::scan::Row;
use super::ExecCtx;
use crate::sql::ast::{FrameExclude, FrameUnits};
use crate::sql::keycode;
use crate::sql::planner::plan::{AggCall, Core, FrameBound, SortKey, WindowCall};
use crate::sql::value::{BinaryOp, Value};
use crate::{sql_err, Result};

/// One input row of the window stage: the source row and its aggregates.
struct Input {
    row: Row,
    aggs: Vec<Value>,
}

impl ExecCtx<'_> {
    /// Window stage over plain source rows.
    pub(crate) fn run_windows(
        &self,
        core: &Core,
        source: Vec<Row>,
        outer: Option<&Env>,
    ) -> Result<Vec<Row>> {
        let inputs = source
            .into_iter()
            .map(|row| Input {
                row,
                aggs: Vec::new(),
            })
            .collect();
        self.window_stage(core, inputs, outer)
    }

    /// Window stage over groups (aggregate query with window functions).
    pub(crate) fn run_windows_grouped(
        &self,
        core: &Core,
        groups: Vec<(Row, Vec<Value>)>,
        outer: Option<&Env>,
    ) -> Result<Vec<Row>> {
        let inputs = groups
            .into_iter()
            .map(|(row, aggs)| Input { row, aggs })
            .collect();
        self.window_stage(core, inputs, outer)
    }

    fn window_stage(
        &self,
        core: &Core,
        inputs: Vec<Input>,
        outer: Option<&Env>,
    ) -> Result<Vec<Row>> {
        let n = inputs.len();
        let mut values = vec![vec![Value::Null; core.windows.len()]; n];
        let mut order: Vec<usize> = (0..n).collect();
        for (w, call) in core.windows.iter().enumerate().rev() {
            let sorted = self.compute_window(call, &inputs, outer, |i, v| values[i][w] = v)?;
            if w == 0 {
                order = sorted;
            }
        }
        let mut out = Vec::with_capacity(n);
        for i in order {
            let env = Env {
                row: &inputs[i].row,
                aggs: &inputs[i].aggs,
                windows: &values[i],
                outer,
            };
            let mut o = Vec::with_capacity(core.output.len());
            for e in &core.output {
                o.push(self.eval(e, &env)?);
            }
            out.push(o);
        }
        Ok(out)
    }

    /// Computes one window call for every input; returns the input indexes
    /// in partition/order order.
    fn compute_window(
        &self,
        call: &WindowCall,
        inputs: &[Input],
        outer: Option<&Env>,
        mut set: impl FnMut(usize, Value),
    ) -> Result<Vec<usize>> {
        // Partition key and order key values per input.
        let mut parts: BTreeMap<Vec<u8>, Vec<usize>> = BTreeMap::new();
        let partition_keys = super::select::key_columns(&call.partition_collations);
        let mut okeys: Vec<Row> = Vec::with_capacity(inputs.len());
        for (i, inp) in inputs.iter().enumerate() {
            let env = Env {
                row: &inp.row,
                aggs: &inp.aggs,
                windows: &[],
                outer,
            };
            let mut pk = Vec::with_capacity(call.partition_by.len());
            for e in &call.partition_by {
                pk.push(self.eval(e, &env)?);
            }
            let mut ok = Vec::with_capacity(call.order_by.len());
            for (e, ..) in &call.order_by {
                ok.push(self.eval(e, &env)?);
            }
            okeys.push(ok);
            parts
                .entry(keycode::encode_key(&pk, &partition_keys))
                .or_default()
                .push(i);
        }
        let keys: Vec<SortKey> = call
            .order_by
            .iter()
            .enumerate()
            .map(|(k, (_, desc, nulls_first, collation))| SortKey {
                column: k,
                desc: *desc,
                nulls_first: *nulls_first,
                collation: *collation,
            })
            .collect();
        let mut all = Vec::with_capacity(inputs.len());
        for (_, mut idx) in parts {
            idx.sort_by(|a, b| super::select::compare_by_keys(&okeys[*a], &okeys[*b], &keys));
            let peers = |a: usize, b: usize| {
                super::select::compare_by_keys(&okeys[idx[a]], &okeys[idx[b]], &keys)
                    == Ordering::Equal
            };
            // Peer group number of each position.
            let mut group = vec![0usize; idx.len()];
            for p in 1..idx.len() {
                group[p] = group[p - 1] + usize::from(!peers(p - 1, p));
            }
            for p in 0..idx.len() {
                let v = self.window_value(call, inputs, &idx, &group, &okeys, p, outer)?;
                set(idx[p], v);
            }
            all.extend(idx);
        }
        Ok(all)
    }

    #[allow(clippy::too_many_arguments)]
    fn window_value(
        &self,
        call: &WindowCall,
        inputs: &[Input],
        idx: &[usize],
        group: &[usize],
        okeys: &[Row],
        p: usize,
        outer: Option<&Env>,
    ) -> Result<Value> {
        let n = idx.len();
        let env_of = |q: usize| Env {
            row: &inputs[idx[q]].row,
            aggs: &inputs[idx[q]].aggs,
            windows: &[],
            outer,
        };
        let arg = |q: usize, a: usize| -> Result<Value> {
            match call.args.get(a) {
                Some(e) => self.eval(e, &env_of(q)),
                None => Ok(Value::Null),
            }
        };
        let rank = || group.iter().position(|g| *g == group[p]).unwrap_or(0) + 1;
        Ok(match call.name.as_str() {
            "row_number" => Value::Integer(p as i64 + 1),
            "rank" => Value::Integer(rank() as i64),
            "dense_rank" => Value::Integer(group[p] as i64 + 1),
            "percent_rank" => Value::Real(if n <= 1 {
                0.0
            } else {
                (rank() - 1) as f64 / (n - 1) as f64
            }),
            "cume_dist" => {
                let last = group.iter().rposition(|g| *g == group[p]).unwrap_or(p);
                Value::Real((last + 1) as f64 / n as f64)
            }
            "ntile" => {
                let buckets = arg(p, 0)?.to_i64();
                if buckets <= 0 {
                    return Err(sql_err!("argument of ntile must be a positive integer"));
                }
                let b = buckets as usize;
                let size = n / b;
                let extra = n % b;
                let big = extra * (size + 1);
                let t = if p < big {
                    p / (size + 1)
                } else {
                    extra + (p - big) / size.max(1)
                };
                Value::Integer(t as i64 + 1)
            }
            "lag" | "lead" => {
                let off = if call.args.len() > 1 {
                    arg(p, 1)?.to_i64()
                } else {
                    1
                };
                let target = if call.name == "lag" {
                    p as i64 - off
                } else {
                    p as i64 + off
                };
                if target >= 0 && (target as usize) < n {
                    arg(target as usize, 0)?
                } else {
                    arg(p, 2)?
                }
            }
            _ => {
                let (start, end) = self.frame(call, group, okeys, idx, p, outer)?;
                let members: Vec<usize> = (start..end)
                    .filter(|&q| !excluded(call.frame.exclude, group, p, q))
                    .collect();
                match call.name.as_str() {
                    "first_value" => match members.first() {
                        Some(&q) => arg(q, 0)?,
                        None => Value::Null,
                    },
                    "last_value" => match members.last() {
                        Some(&q) => arg(q, 0)?,
                        None => Value::Null,
                    },
                    "nth_value" => {
                        let k = arg(p, 1)?.to_i64();
                        if k <= 0 {
                            return Err(sql_err!(
                                "second argument to nth_value must be a positive integer"
                            ));
                        }
                        match members.get(k as usize - 1) {
                            Some(&q) => arg(q, 0)?,
                            None => Value::Null,
                        }
                    }
                    _ => {
                        let agg = AggCall {
                            name: call.name.clone(),
                            args: call.args.clone(),
                            distinct: call.distinct,
                            star: call.star || call.args.is_empty(),
                            filter: call.filter.clone(),
                            collation: call.collation,
                        };
                        let mut acc = Accumulator::new(&agg)?;
                        for q in members {
                            acc.step(self, &agg, &env_of(q))?;
                        }
                        acc.finish()?
                    }
                }
            }
        })
    }

    /// The frame of position `p` as a half-open range of positions.
    fn frame(
        &self,
        call: &WindowCall,
        group: &[usize],
        okeys: &[Row],
        idx: &[usize],
        p: usize,
        outer: Option<&Env>,
    ) -> Result<(usize, usize)> {
        let n = idx.len();
        let f = &call.frame;
        let empty: Vec<Value> = Vec::new();
        let env = Env::new(&empty, outer);
        let offset = |e: &crate::sql::planner::plan::Expr| -> Result<Value> { self.eval(e, &env) };
        let peer_start = |q: usize| group.iter().position(|g| *g == group[q]).unwrap_or(q);
        let peer_end = |q: usize| {
            group
                .iter()
                .rposition(|g| *g == group[q])
                .map_or(q + 1, |e| e + 1)
        };
        let bound = |b: &FrameBound, is_start: bool| -> Result<usize> {
            Ok(match (f.units, b) {
                (_, FrameBound::UnboundedPreceding) => 0,
                (_, FrameBound::UnboundedFollowing) => n,
                (FrameUnits::Rows, FrameBound::CurrentRow) => {
                    if is_start {
                        p
                    } else {
                        p + 1
                    }
                }
                (_, FrameBound::CurrentRow) => {
                    if is_start {
                        peer_start(p)
                    } else {
                        peer_end(p)
                    }
                }
                (FrameUnits::Rows, FrameBound::Preceding(e)) => {
                    let k = offset(e)?.to_i64().max(0) as usize;
                    if is_start {
                        p.saturating_sub(k)
                    } else {
                        (p + 1).saturating_sub(k)
                    }
                }
                (FrameUnits::Rows, FrameBound::Following(e)) => {
                    let k = offset(e)?.to_i64().max(0) as usize;
                    if is_start {
                        (p + k).min(n)
                    } else {
                        (p + k + 1).min(n)
                    }
                }
                (FrameUnits::Groups, FrameBound::Preceding(e) | FrameBound::Following(e)) => {
                    let k = offset(e)?.to_i64().max(0) as usize;
                    let g = if matches!(b, FrameBound::Preceding(_)) {
                        group[p].saturating_sub(k)
                    } else {
                        group[p] + k
                    };
                    if is_start {
                        group.iter().position(|x| *x >= g).unwrap_or(n)
                    } else {
                        group.iter().rposition(|x| *x <= g).map_or(0, |e| e + 1)
                    }
                }
                (FrameUnits::Range, FrameBound::Preceding(e) | FrameBound::Following(e)) => {
                    let k = offset(e)?;
                    let desc = call.order_by.first().is_some_and(|o| o.1);
                    let cur = okeys[idx[p]].first().cloned().unwrap_or(Value::Null);
                    let sub = matches!(b, FrameBound::Preceding(_)) != desc;
                    let target = if sub {
                        BinaryOp::Subtract.apply(&cur, &k)
                    } else {
                        BinaryOp::Add.apply(&cur, &k)
                    };
                    let before = |q: usize| {
                        let v = okeys[idx[q]].first().cloned().unwrap_or(Value::Null);
                        let o = crate::sql::value::compare(
                            &v,
                            &target,
                            crate::sql::value::Collation::Binary,
                        );
                        if desc {
                            o == Ordering::Greater
                        } else {
                            o == Ordering::Less
                        }
                    };
                    let after = |q: usize| {
                        let v = okeys[idx[q]].first().cloned().unwrap_or(Value::Null);
                        let o = crate::sql::value::compare(
                            &v,
                            &target,
                            crate::sql::value::Collation::Binary,
                        );
                        if desc {
                            o == Ordering::Less
                        } else {
                            o == Ordering::Greater
                        }
                    };
                    if is_start {
                        (0..n).find(|&q| !before(q)).unwrap_or(n)
                    } else {
                        (0..n).rev().find(|&q| !after(q)).map_or(0, |e| e + 1)
                    }
                }
            })
        };
        let start = bound(&f.start, true)?;
        let end = bound(&f.end, false)?;
        Ok((start, end.max(start)))
    }
}

fn excluded(ex: FrameExclude, group: &[usize], p: usize, q: usize) -> bool {
    match ex {
        FrameExclude::NoOthers => false,
        FrameExclude::CurrentRow => q == p,
        FrameExclude::Group => group[q] == group[p],
        FrameExclude::Ties => q != p && group[q] == group[p],
    }
}
