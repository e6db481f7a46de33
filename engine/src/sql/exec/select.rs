//! Running queries: the nested-loop join over a core's levels, projection,
//! aggregation, DISTINCT, compound bodies (UNION/INTERSECT/EXCEPT, whose
//! output is in key order as SQLite's temp-index implementation gives it),
//! recursive CTEs, ORDER BY and LIMIT/OFFSET.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use super::aggregate::Accumulator;
use super::eval::Env;
use super::scan::{copy_value, LevelCache, Row};
use super::{row_size, ExecCtx};
use crate::sql::ast::CompoundOperator;
use crate::sql::keycode::{self, KeyColumn};
use crate::sql::planner::plan::{local_slots, Body, Core, Query, SortKey};
use crate::sql::value::{compare, Value};
use crate::{sql_err, Result};

/// Where the join loop sends each complete row; `Ok(false)` stops it.
type Sink<'s> = dyn FnMut(&[Value]) -> Result<bool> + 's;

impl ExecCtx<'_> {
    /// Runs a query to its visible result rows.
    pub(crate) fn run_query(&self, q: &Query, outer: Option<&Env>) -> Result<Vec<Row>> {
        let empty: Vec<Value> = Vec::new();
        let env = Env::new(&empty, outer);
        let limit = match &q.limit {
            Some(e) => limit_value(self.eval(e, &env)?)?,
            None => None,
        };
        let offset = match &q.offset {
            Some(e) => limit_value(self.eval(e, &env)?)?.unwrap_or(0),
            None => 0,
        };
        let hint = match (limit, q.order_by.is_empty()) {
            (Some(l), true) => Some(l.saturating_add(offset)),
            _ => None,
        };
        if limit == Some(0) {
            return Ok(Vec::new());
        }
        let mut rows = self.run_body(&q.body, outer, hint)?;
        if !q.order_by.is_empty() {
            sort_rows(&mut rows, &q.order_by);
        }
        let visible = q.columns.len();
        let take = limit.unwrap_or(usize::MAX);
        Ok(rows
            .into_iter()
            .skip(offset)
            .take(take)
            .map(|mut r| {
                r.truncate(visible);
                r
            })
            .collect())
    }

    fn run_body(&self, body: &Body, outer: Option<&Env>, hint: Option<usize>) -> Result<Vec<Row>> {
        match body {
            Body::Core(core) => self.run_core(core, outer, hint),
            Body::Values(rows) => {
                let empty: Vec<Value> = Vec::new();
                let env = Env::new(&empty, outer);
                rows.iter()
                    .map(|r| r.iter().map(|e| self.eval(e, &env)).collect())
                    .collect()
            }
            Body::Compound { op, left, right } => {
                let l = self.run_body(left, outer, None)?;
                let r = self.run_body(right, outer, None)?;
                self.compound(*op, l, r)
            }
            Body::Recursive {
                cte,
                initial,
                step,
                union_all,
            } => self.recursive(*cte, initial, step, *union_all, outer, hint),
        }
    }

    fn compound(&self, op: CompoundOperator, left: Vec<Row>, right: Vec<Row>) -> Result<Vec<Row>> {
        if op == CompoundOperator::UnionAll {
            let mut l = left;
            l.extend(right);
            return Ok(l);
        }
        let key = |r: &Row| keycode::encode_key(r, &[]);
        let mut out: BTreeMap<Vec<u8>, Row> = BTreeMap::new();
        match op {
            CompoundOperator::Union => {
                // SQLite's temp index keeps the last of equal rows (1 vs 1.0).
                for r in left.into_iter().chain(right) {
                    self.charge(row_size(&r))?;
                    out.insert(key(&r), r);
                }
            }
            CompoundOperator::Intersect => {
                let rk: HashSet<Vec<u8>> = right.iter().map(key).collect();
                for r in left {
                    let k = key(&r);
                    if rk.contains(&k) {
                        out.insert(k, r);
                    }
                }
            }
            CompoundOperator::Except => {
                let rk: HashSet<Vec<u8>> = right.iter().map(key).collect();
                for r in left {
                    let k = key(&r);
                    if !rk.contains(&k) {
                        out.insert(k, r);
                    }
                }
            }
            CompoundOperator::UnionAll => {}
        }
        Ok(out.into_values().collect())
    }

    fn recursive(
        &self,
        cte: usize,
        initial: &Body,
        step: &Body,
        union_all: bool,
        outer: Option<&Env>,
        hint: Option<usize>,
    ) -> Result<Vec<Row>> {
        let mut all = Vec::new();
        let mut seen = HashSet::new();
        let mut frontier = Vec::new();
        for r in self.run_body(initial, outer, None)? {
            if union_all || seen.insert(keycode::encode_key(&r, &[])) {
                frontier.push(r);
            }
        }
        while !frontier.is_empty() {
            for r in &frontier {
                self.charge(row_size(r))?;
            }
            all.extend(frontier.iter().cloned());
            if hint.is_some_and(|h| all.len() >= h) {
                break;
            }
            self.working
                .borrow_mut()
                .insert(cte, Rc::new(std::mem::take(&mut frontier)));
            self.cache.borrow_mut().clear();
            for r in self.run_body(step, outer, None)? {
                if union_all || seen.insert(keycode::encode_key(&r, &[])) {
                    frontier.push(r);
                }
            }
        }
        self.working.borrow_mut().remove(&cte);
        Ok(all)
    }

    /// Runs one SELECT core to its output rows (visible + hidden columns).
    fn run_core(&self, core: &Core, outer: Option<&Env>, hint: Option<usize>) -> Result<Vec<Row>> {
        let mut out: Vec<Row> = Vec::new();
        if let Some(agg) = &core.aggregate {
            return self.run_aggregate(core, agg, outer);
        }
        if !core.windows.is_empty() {
            let mut source = Vec::new();
            self.join(core, outer, &mut |row| {
                self.charge(row_size(row))?;
                source.push(row.to_vec());
                Ok(true)
            })?;
            let rows = self.run_windows(core, source, outer)?;
            return Ok(self.distinct(core, rows));
        }
        let mut seen = HashSet::new();
        let keys = distinct_keys(core);
        self.join(core, outer, &mut |row| {
            let env = Env::new(row, outer);
            let mut o = Vec::with_capacity(core.output.len());
            for e in &core.output {
                o.push(self.eval(e, &env)?);
            }
            if core.distinct && !seen.insert(keycode::encode_key(&o[..core.visible], &keys)) {
                return Ok(true);
            }
            self.charge(row_size(&o))?;
            out.push(o);
            Ok(hint.is_none_or(|h| out.len() < h))
        })?;
        Ok(out)
    }

    pub(crate) fn distinct(&self, core: &Core, rows: Vec<Row>) -> Vec<Row> {
        if !core.distinct {
            return rows;
        }
        let keys = distinct_keys(core);
        let mut seen = HashSet::new();
        rows.into_iter()
            .filter(|r| seen.insert(keycode::encode_key(&r[..core.visible], &keys)))
            .collect()
    }

    /// The nested-loop join: calls `sink` with each row of the FROM clause
    /// that passes every conjunct.
    pub(crate) fn join(&self, core: &Core, outer: Option<&Env>, sink: &mut Sink) -> Result<()> {
        let mut row = vec![Value::Null; core.from.width];
        {
            let env = Env::new(&row, outer);
            if !self.all_true(&core.filter, &env)? {
                return Ok(());
            }
        }
        let mut caches = vec![LevelCache::default(); core.from.levels.len()];
        self.join_level(core, 0, &mut row, outer, &mut caches, sink)?;
        Ok(())
    }

    /// Binds level `depth` (and, recursively, the levels after it) for the
    /// row bound so far; `caches[0]` is this level's cache. Returns false
    /// when the sink stopped the join.
    fn join_level(
        &self,
        core: &Core,
        depth: usize,
        row: &mut Vec<Value>,
        outer: Option<&Env>,
        caches: &mut [LevelCache],
        sink: &mut Sink,
    ) -> Result<bool> {
        let Some(level) = core.from.levels.get(depth) else {
            return sink(row);
        };
        let item = &core.from.items[level.item];
        let Some((cache, rest)) = caches.split_first_mut() else {
            return Err(sql_err!("internal: no cache for join level {depth}"));
        };
        let mut matched = false;
        let go = self.for_each_candidate(&core.from, depth, row, outer, cache, &mut |row| {
            let env = Env::new(row, outer);
            if !self.all_true(&level.on, &env)? {
                return Ok(true);
            }
            matched = true;
            if self.all_true(&level.filters, &env)? {
                return self.join_level(core, depth + 1, row, outer, rest, sink);
            }
            Ok(true)
        })?;
        if !go {
            return Ok(false);
        }
        if item.left_join && !matched {
            for v in &mut row[item.offset..item.offset + item.width] {
                *v = Value::Null;
            }
            let env = Env::new(row, outer);
            if self.all_true(&level.filters, &env)?
                && !self.join_level(core, depth + 1, row, outer, rest, sink)?
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Runs an aggregate core: rows stream from the join into their
    /// group's accumulators. Groups are found by the key encoding of their
    /// GROUP BY values (a hash lookup with a reused key buffer) and come
    /// out in key order, as SQLite's sorter gives them.
    fn run_aggregate(
        &self,
        core: &Core,
        agg: &crate::sql::planner::plan::Aggregation,
        outer: Option<&Env>,
    ) -> Result<Vec<Row>> {
        struct Group {
            key: Vec<u8>,
            /// The row that supplies bare columns: the last one, or the
            /// one that last changed a min/max.
            repr: Row,
            accs: Vec<Accumulator>,
        }
        let new_accs = || {
            agg.calls
                .iter()
                .map(Accumulator::new)
                .collect::<Result<Vec<_>>>()
        };
        let mut groups: Vec<Group> = Vec::new();
        let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
        let agg_keys: Vec<KeyColumn> = agg
            .group_collations
            .iter()
            .map(|c| KeyColumn {
                desc: false,
                collation: *c,
            })
            .collect();
        let has_extreme = new_accs()?.iter().any(Accumulator::is_extreme);
        // The row slots anything evaluated per group reads: only those of
        // the representative row need to follow it (none, often).
        let mut repr_slots = Vec::new();
        for e in core.output.iter().chain(agg.having.iter()) {
            local_slots(e, &mut |s| repr_slots.push(s));
        }
        for w in &core.windows {
            for e in w.args.iter().chain(&w.partition_by).chain(w.filter.iter()) {
                local_slots(e, &mut |s| repr_slots.push(s));
            }
            for (e, ..) in &w.order_by {
                local_slots(e, &mut |s| repr_slots.push(s));
            }
        }
        repr_slots.sort_unstable();
        repr_slots.dedup();
        repr_slots.retain(|&s| s < core.from.width);
        let mut key = Vec::new();
        self.join(core, outer, &mut |row| {
            let env = Env::new(row, outer);
            key.clear();
            for (i, g) in agg.group_by.iter().enumerate() {
                let v = self.eval(g, &env)?;
                keycode::append_value(&mut key, &v, agg_keys.get(i).copied().unwrap_or_default());
            }
            let slot = if agg.group_by.is_empty() && !groups.is_empty() {
                0
            } else if let Some(&i) = index.get(key.as_slice()) {
                i
            } else {
                self.charge(row_size(row) + key.len() as u64)?;
                groups.push(Group {
                    key: key.clone(),
                    repr: row.to_vec(),
                    accs: new_accs()?,
                });
                index.insert(key.clone(), groups.len() - 1);
                groups.len() - 1
            };
            let group = &mut groups[slot];
            let mut changed_extreme = false;
            for (acc, call) in group.accs.iter_mut().zip(&agg.calls) {
                changed_extreme |= acc.step(self, call, &env)?;
            }
            if changed_extreme || !has_extreme {
                for &s in &repr_slots {
                    copy_value(&mut group.repr[s], &row[s]);
                }
            }
            Ok(true)
        })?;
        drop(index);
        if groups.is_empty() && agg.group_by.is_empty() {
            groups.push(Group {
                key: Vec::new(),
                repr: vec![Value::Null; core.from.width],
                accs: new_accs()?,
            });
        }
        groups.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        let mut rows = Vec::with_capacity(groups.len());
        let mut sources = Vec::new();
        for g in groups {
            let aggs = g
                .accs
                .into_iter()
                .map(Accumulator::finish)
                .collect::<Result<Vec<_>>>()?;
            let env = Env {
                row: &g.repr,
                aggs: &aggs,
                windows: &[],
                outer,
            };
            if let Some(h) = &agg.having {
                if self.eval(h, &env)?.is_true() != Some(true) {
                    continue;
                }
            }
            if !core.windows.is_empty() {
                sources.push((g.repr, aggs));
                continue;
            }
            let mut o = Vec::with_capacity(core.output.len());
            for e in &core.output {
                o.push(self.eval(e, &env)?);
            }
            rows.push(o);
        }
        if !core.windows.is_empty() {
            rows = self.run_windows_grouped(core, sources, outer)?;
        }
        Ok(self.distinct(core, rows))
    }
}

/// How DISTINCT compares a core's visible columns: by their collations.
fn distinct_keys(core: &Core) -> Vec<KeyColumn> {
    core.collations
        .iter()
        .map(|c| KeyColumn {
            desc: false,
            collation: *c,
        })
        .collect()
}

/// LIMIT/OFFSET value: an integer (negative means none).
fn limit_value(v: Value) -> Result<Option<usize>> {
    let v = crate::sql::value::apply_affinity(v, crate::sql::value::Affinity::Numeric);
    match v {
        Value::Integer(i) if i < 0 => Ok(None),
        Value::Integer(i) => Ok(Some(usize::try_from(i).unwrap_or(usize::MAX))),
        _ => Err(sql_err!("datatype mismatch")),
    }
}

/// Sorts rows by ORDER BY keys (stable, so ties keep their order).
pub(crate) fn sort_rows(rows: &mut [Row], keys: &[SortKey]) {
    rows.sort_by(|a, b| compare_by_keys(a, b, keys));
}

/// Compares two rows by sort keys.
pub(crate) fn compare_by_keys(a: &[Value], b: &[Value], keys: &[SortKey]) -> Ordering {
    for k in keys {
        let (x, y) = (&a[k.column], &b[k.column]);
        let ord = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => {
                if k.nulls_first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (false, true) => {
                if k.nulls_first {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            _ => {
                let o = compare(x, y, k.collation);
                if k.desc {
                    o.reverse()
                } else {
                    o
                }
            }
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}
