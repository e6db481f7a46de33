//! Window functions: rows are partitioned and ordered per window call, each
//! call's value is computed per row (ranking, offset, value functions, and
//! aggregates over ROWS/RANGE/GROUPS frames), then the output expressions
//! are evaluated. Output is in the first window's partition/order order, as
//! SQLite's sorter produces it.
//!
//! Cost: peer groups are found once per partition, and a RANGE offset's
//! frame edge by binary search. An aggregate carries its state from one
//! row's frame to the next (frames only move forward): each row is added
//! once and, when the frame's start moves, removed once, as SQLite's
//! inverse functions do; so a partition costs linear time. Exceptions,
//! stepped afresh over each frame: min() and max() under a moving start
//! (they cannot remove a row), and frames with EXCLUDE (as SQLite).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::aggregate::Accumulator;
use super::eval::Env;
use super::scan::Row;
use super::ExecCtx;
use crate::sql::ast::{FrameExclude, FrameUnits};
use crate::sql::keycode;
use crate::sql::planner::plan::{AggCall, Core, FrameBound, SortKey, WindowCall};
use crate::sql::value::{apply_affinity, Affinity, BinaryOp, Value};
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
        let agg = call.is_aggregate().then(|| AggCall {
            name: call.name.clone(),
            args: call.args.clone(),
            distinct: false,
            star: call.star || call.args.is_empty(),
            filter: call.filter.clone(),
            collation: call.collation,
            order_by: Vec::new(),
            order_distinct_last: false,
        });
        // The frame's offsets, evaluated (and checked) once, before the
        // first row needs them, as SQLite does at the first partition.
        let mut offsets = None;
        let mut all = Vec::with_capacity(inputs.len());
        for (_, mut idx) in parts {
            super::select::sort_indexes_by_keys(&mut idx, &okeys, &keys);
            if offsets.is_none() && uses_frame(call) {
                offsets = Some(self.frame_offsets(call, outer)?);
            }
            let part = Partition {
                peers: Peers::new(&idx, &okeys, &keys),
                idx: &idx,
                inputs,
                okeys: &okeys,
                keys: &keys,
                offsets: offsets.as_ref().unwrap_or(&Offsets::NONE),
                outer,
            };
            let mut running = None;
            for (p, &input) in idx.iter().enumerate() {
                let v = self.window_value(call, agg.as_ref(), &part, p, &mut running)?;
                set(input, v);
            }
            all.extend(idx);
        }
        Ok(all)
    }

    /// The frame's PRECEDING / FOLLOWING offsets, with SQLite's checks: a
    /// ROWS or GROUPS offset is a non-negative integer, a RANGE offset a
    /// non-negative number.
    fn frame_offsets(&self, call: &WindowCall, outer: Option<&Env>) -> Result<Offsets> {
        let f = &call.frame;
        let env = Env::new(&[], outer);
        let one = |b: &FrameBound, which: &str| -> Result<Option<Value>> {
            let (FrameBound::Preceding(e) | FrameBound::Following(e)) = b else {
                return Ok(None);
            };
            let v = self.eval(e, &env)?;
            let checked = if f.units == FrameUnits::Range {
                match apply_affinity(v, Affinity::Numeric) {
                    n @ Value::Integer(0..) => Some(n),
                    Value::Real(r) if r >= 0.0 => Some(Value::Real(r)),
                    _ => None,
                }
            } else {
                must_be_int(&v).filter(|i| *i >= 0).map(Value::Integer)
            };
            match checked {
                Some(v) => Ok(Some(v)),
                None if f.units == FrameUnits::Range => Err(sql_err!(
                    "frame {which} offset must be a non-negative number"
                )),
                None => Err(sql_err!(
                    "frame {which} offset must be a non-negative integer"
                )),
            }
        };
        Ok(Offsets {
            start: one(&f.start, "starting")?,
            end: one(&f.end, "ending")?,
        })
    }

    /// The value of `call` at position `p` of a partition. `running`
    /// carries an aggregate's state from the previous position.
    fn window_value(
        &self,
        call: &WindowCall,
        agg: Option<&AggCall>,
        part: &Partition,
        p: usize,
        running: &mut Option<Running>,
    ) -> Result<Value> {
        let n = part.idx.len();
        let peers = &part.peers;
        let arg = |q: usize, a: usize| -> Result<Value> {
            match call.args.get(a) {
                Some(e) => self.eval(e, &part.env(q)),
                None => Ok(Value::Null),
            }
        };
        let rank = || peers.start(p) + 1;
        Ok(match call.name.as_str() {
            "row_number" => Value::Integer(p as i64 + 1),
            "rank" => Value::Integer(rank() as i64),
            "dense_rank" => Value::Integer(peers.group[p] as i64 + 1),
            "percent_rank" => Value::Real(if n <= 1 {
                0.0
            } else {
                (rank() - 1) as f64 / (n - 1) as f64
            }),
            "cume_dist" => Value::Real(peers.end(p) as f64 / n as f64),
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
                // SQLite seeks the row numbered this one's plus or minus
                // the offset, computed as SQL arithmetic: a NULL, or a
                // number that is not an integer, finds no row.
                let target = if call.args.len() > 1 {
                    let op = if call.name == "lag" {
                        BinaryOp::Subtract
                    } else {
                        BinaryOp::Add
                    };
                    must_be_int(&op.apply(&Value::Integer(p as i64), &arg(p, 1)?))
                } else if call.name == "lag" {
                    Some(p as i64 - 1)
                } else {
                    Some(p as i64 + 1)
                };
                match target {
                    Some(t) if (0..n as i64).contains(&t) => arg(t as usize, 0)?,
                    _ => arg(p, 2)?,
                }
            }
            _ => {
                let (start, end) = part.frame(call, p)?;
                let exclude = call.frame.exclude;
                let nth = |k: usize| -> Result<Value> {
                    if exclude == FrameExclude::NoOthers {
                        return match start.checked_add(k).filter(|q| *q < end) {
                            Some(q) => arg(q, 0),
                            None => Ok(Value::Null),
                        };
                    }
                    match (start..end)
                        .filter(|&q| !peers.excluded(exclude, p, q))
                        .nth(k)
                    {
                        Some(q) => arg(q, 0),
                        None => Ok(Value::Null),
                    }
                };
                match (call.name.as_str(), agg) {
                    ("first_value", _) => nth(0)?,
                    ("last_value", _) => {
                        let members = if exclude == FrameExclude::NoOthers {
                            end - start
                        } else {
                            (start..end)
                                .filter(|&q| !peers.excluded(exclude, p, q))
                                .count()
                        };
                        match members.checked_sub(1) {
                            Some(k) => nth(k)?,
                            None => Value::Null,
                        }
                    }
                    ("nth_value", _) => match must_be_int(&arg(p, 1)?) {
                        Some(k) if k > 0 => nth(usize::try_from(k - 1).unwrap_or(usize::MAX))?,
                        _ => {
                            return Err(sql_err!(
                                "second argument to nth_value must be a positive integer"
                            ))
                        }
                    },
                    (_, Some(agg)) if exclude == FrameExclude::NoOthers => {
                        let step_first = call.frame.units == FrameUnits::Range
                            && matches!(call.frame.start, FrameBound::Following(_));
                        self.running_value(agg, part, (start, end), step_first, running)?
                    }
                    (_, Some(agg)) => {
                        // EXCLUDE: the frame's members are stepped afresh
                        // for every row and finished (SQLite's full scan of
                        // the frame).
                        let mut acc = Accumulator::new(agg)?;
                        for q in (start..end).filter(|&q| !peers.excluded(exclude, p, q)) {
                            acc.step(self, agg, &part.env(q))?;
                        }
                        acc.finish(agg)?
                    }
                    (name, None) => return Err(sql_err!("no such window function: {name}")),
                }
            }
        })
    }

    /// An aggregate's window value over frame `[start, end)` without
    /// exclusions, carried over from the previous row's frame: rows that
    /// left it are removed (when the aggregate can remove rows) and rows
    /// that entered it added; an unchanged frame reuses its value. Frames
    /// only move forward, so a partition costs each row one step and at
    /// most one removal, except for min() and max() under a moving start,
    /// which are stepped afresh over each frame.
    ///
    /// The order is SQLite's, which rounding can tell apart: removals
    /// first, except for a RANGE frame starting FOLLOWING (`step_first`),
    /// whose end passes every row before its start does, so a row skipped
    /// between two frames is still added and removed.
    fn running_value(
        &self,
        agg: &AggCall,
        part: &Partition,
        (start, end): (usize, usize),
        step_first: bool,
        running: &mut Option<Running>,
    ) -> Result<Value> {
        if let Some(r) = running.as_mut() {
            if r.start == start && r.end == end {
                return Ok(r.value.clone());
            }
            let forward = start >= r.start && end >= r.end;
            if forward && (start == r.start || r.acc.supports_inverse()) {
                if step_first {
                    for q in r.end..end {
                        r.acc.step(self, agg, &part.env(q))?;
                    }
                    for q in r.start..start {
                        r.acc.inverse(self, agg, &part.env(q))?;
                    }
                } else {
                    for q in r.start..start.min(r.end) {
                        r.acc.inverse(self, agg, &part.env(q))?;
                    }
                    for q in r.end.max(start)..end {
                        r.acc.step(self, agg, &part.env(q))?;
                    }
                }
                r.start = start;
                r.end = end;
                r.value = r.acc.value()?;
                return Ok(r.value.clone());
            }
        }
        let mut acc = Accumulator::new(agg)?;
        for q in start..end {
            acc.step(self, agg, &part.env(q))?;
        }
        let value = acc.value()?;
        *running = Some(Running {
            acc,
            start,
            end,
            value: value.clone(),
        });
        Ok(value)
    }
}

/// True for a call whose value depends on its frame.
fn uses_frame(call: &WindowCall) -> bool {
    call.is_aggregate()
        || matches!(
            call.name.as_str(),
            "first_value" | "last_value" | "nth_value"
        )
}

/// SQLite's `OP_MustBeInt`: the value as an integer when numeric affinity
/// makes it one, else `None`.
fn must_be_int(v: &Value) -> Option<i64> {
    match apply_affinity(v.clone(), Affinity::Numeric) {
        Value::Integer(i) => Some(i),
        _ => None,
    }
}

/// A frame's checked offsets (`None` for a bound without one).
struct Offsets {
    start: Option<Value>,
    end: Option<Value>,
}

impl Offsets {
    const NONE: Offsets = Offsets {
        start: None,
        end: None,
    };
}

/// An aggregate's state over the previous row's frame.
struct Running {
    acc: Accumulator,
    start: usize,
    end: usize,
    value: Value,
}

/// Peer groups of a sorted partition: rows equal under its ORDER BY.
struct Peers {
    /// The peer group number of each position.
    group: Vec<usize>,
    /// The first position of each group, and one past its last.
    bounds: Vec<(usize, usize)>,
}

impl Peers {
    fn new(idx: &[usize], okeys: &[Row], keys: &[SortKey]) -> Peers {
        let mut group = Vec::with_capacity(idx.len());
        let mut bounds: Vec<(usize, usize)> = Vec::new();
        for p in 0..idx.len() {
            let new = p == 0
                || super::select::compare_by_keys(&okeys[idx[p - 1]], &okeys[idx[p]], keys)
                    != Ordering::Equal;
            if new {
                if let Some(last) = bounds.last_mut() {
                    last.1 = p;
                }
                bounds.push((p, idx.len()));
            }
            group.push(bounds.len() - 1);
        }
        Peers { group, bounds }
    }

    /// The first position of `p`'s peer group.
    fn start(&self, p: usize) -> usize {
        self.bounds[self.group[p]].0
    }

    /// One past the last position of `p`'s peer group.
    fn end(&self, p: usize) -> usize {
        self.bounds[self.group[p]].1
    }

    /// Whether the frame of position `p` excludes position `q`.
    fn excluded(&self, ex: FrameExclude, p: usize, q: usize) -> bool {
        match ex {
            FrameExclude::NoOthers => false,
            FrameExclude::CurrentRow => q == p,
            FrameExclude::Group => self.group[q] == self.group[p],
            FrameExclude::Ties => q != p && self.group[q] == self.group[p],
        }
    }
}

/// One sorted partition of a window call's rows.
struct Partition<'a> {
    peers: Peers,
    /// Input indexes in window order.
    idx: &'a [usize],
    inputs: &'a [Input],
    /// ORDER BY values by input index, and their sort keys.
    okeys: &'a [Row],
    keys: &'a [SortKey],
    offsets: &'a Offsets,
    outer: Option<&'a Env<'a>>,
}

impl<'a> Partition<'a> {
    fn env(&self, q: usize) -> Env<'a> {
        let input = &self.inputs[self.idx[q]];
        Env {
            row: &input.row,
            aggs: &input.aggs,
            windows: &[],
            outer: self.outer,
        }
    }

    /// The frame of position `p` as a half-open range of positions. Both
    /// ends are non-decreasing in `p`, which [`ExecCtx::running_value`]
    /// relies on.
    fn frame(&self, call: &WindowCall, p: usize) -> Result<(usize, usize)> {
        let f = &call.frame;
        let start = self.bound(f.units, &f.start, self.offsets.start.as_ref(), true, p)?;
        let end = self.bound(f.units, &f.end, self.offsets.end.as_ref(), false, p)?;
        Ok((start, end.max(start)))
    }

    fn bound(
        &self,
        units: FrameUnits,
        b: &FrameBound,
        offset: Option<&Value>,
        is_start: bool,
        p: usize,
    ) -> Result<usize> {
        let n = self.idx.len();
        let preceding = matches!(b, FrameBound::Preceding(_));
        let k = || match offset {
            Some(v) => Ok(v.clone()),
            None => Err(sql_err!("internal: frame offset not evaluated")),
        };
        // A count of rows or groups (checked non-negative when evaluated).
        let count = || k().map(|v| usize::try_from(v.to_i64()).unwrap_or(usize::MAX));
        Ok(match (units, b) {
            (_, FrameBound::UnboundedPreceding) => 0,
            (_, FrameBound::UnboundedFollowing) => n,
            (FrameUnits::Rows, FrameBound::CurrentRow) => p + usize::from(!is_start),
            (_, FrameBound::CurrentRow) => {
                if is_start {
                    self.peers.start(p)
                } else {
                    self.peers.end(p)
                }
            }
            (FrameUnits::Rows, _) => {
                let edge = p + usize::from(!is_start);
                if preceding {
                    edge.saturating_sub(count()?)
                } else {
                    edge.saturating_add(count()?).min(n)
                }
            }
            (FrameUnits::Groups, _) => {
                // The group `k` before or after this row's; a start before
                // the first group is 0, an end there is 0 (an empty frame).
                let g = self.peers.group[p];
                let k = count()?;
                let target = if preceding {
                    g.checked_sub(k)
                } else {
                    Some(g.saturating_add(k))
                };
                match target {
                    None => 0,
                    Some(t) if t >= self.peers.bounds.len() => n,
                    Some(t) if is_start => self.peers.bounds[t].0,
                    Some(t) => self.peers.bounds[t].1,
                }
            }
            (FrameUnits::Range, _) => {
                // SQLite adds the offset to (or subtracts it from) a
                // numeric key only; a NULL, text or blob key is its own
                // target. The frame edge is where the sorted keys pass the
                // target, in the window's order and collation.
                let cur = self.okeys[self.idx[p]].first().unwrap_or(&Value::Null);
                let desc = self.keys.first().is_some_and(|k| k.desc);
                let target = if matches!(cur, Value::Integer(_) | Value::Real(_)) {
                    let op = if preceding != desc {
                        BinaryOp::Subtract
                    } else {
                        BinaryOp::Add
                    };
                    op.apply(cur, &k()?)
                } else {
                    cur.clone()
                };
                let target = std::slice::from_ref(&target);
                let first_key = &self.keys[..self.keys.len().min(1)];
                let side = |q: usize| {
                    super::select::compare_by_keys(&self.okeys[self.idx[q]], target, first_key)
                };
                if is_start {
                    partition_point(n, |q| side(q) == Ordering::Less)
                } else {
                    partition_point(n, |q| side(q) != Ordering::Greater)
                }
            }
        })
    }
}

/// The first position in `0..n` where `pred` is false, for a `pred` that
/// is true on a prefix.
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
