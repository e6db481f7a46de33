//! Running queries: the nested-loop join over a core's levels, projection,
//! aggregation, DISTINCT, compound bodies (UNION/INTERSECT/EXCEPT, whose
//! output is in key order as SQLite's temp-index implementation gives it),
//! recursive CTEs, ORDER BY and LIMIT/OFFSET.
//!
//! A query's rows go to a sink as they are made: straight to the caller
//! when there is no ORDER BY (LIMIT stops the join), else into a
//! [`super::spill::Sorter`] (which keeps only LIMIT + OFFSET rows, and
//! spills to temp space past its share of the budget). Three callers,
//! three ways to hold the result: [`ExecCtx::run_query`] (an intermediate
//! result, charged), [`ExecCtx::run_result`] (the statement's rows, not
//! charged) and [`ExecCtx::spool_query`] (an INSERT's source, which may
//! stay in temp space).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::aggregate::Accumulator;
use super::eval::Env;
use super::scan::{copy_value, LevelCache, Row};
use super::spill::{SortOrder, SortedRows};
use super::{row_size, ExecCtx};
use crate::sql::ast::CompoundOperator;
use crate::sql::keycode::{self, KeyColumn};
use crate::sql::planner::plan::{
    local_slots, Access, Body, Core, From, FromItem, Level, Query, SortKey, Source,
};
use crate::sql::value::{compare, Collation, Value};
use crate::storage::fasthash::{FastMap, FastSet};
use crate::{sql_err, Result};

/// Where the join loop sends each complete row; `Ok(false)` stops it.
type Sink<'s> = dyn FnMut(&[Value]) -> Result<bool> + 's;

/// A GROUP BY value's group as an integer: an integer, or a real equal to
/// one, of magnitude below 2^53, where numbers' key encodings are exact
/// (`keycode::append_value` gives such a real and its integer one key).
fn small_int_key(v: &Value) -> Option<i64> {
    const LIMIT: i64 = 1 << 53;
    match *v {
        Value::Integer(i) if i > -LIMIT && i < LIMIT => Some(i),
        Value::Real(r) if r.fract() == 0.0 && r.abs() < LIMIT as f64 => Some(r as i64),
        _ => None,
    }
}

impl ExecCtx<'_> {
    /// Runs a query to its visible result rows, held as an intermediate
    /// result (a subquery, a CTE, an INSERT's source): every row is
    /// charged to the statement.
    pub(crate) fn run_query(&self, q: &Query, outer: Option<&Env>) -> Result<Vec<Row>> {
        let mut out = Vec::new();
        self.query_rows(q, outer, &mut |row| {
            self.charge(row_size(&row))?;
            out.push(row);
            Ok(true)
        })?;
        Ok(out)
    }

    /// [`Self::run_query`] for a correlated subquery, run again for each
    /// row that reads it: its rows are charged while they are made (one
    /// evaluation's rows must fit the limit) and given back once made, as
    /// they live for that evaluation only, not for the statement.
    pub(crate) fn run_correlated(&self, q: &Query, outer: Option<&Env>) -> Result<Vec<Row>> {
        let before = self.budget().used();
        let rows = self.run_query(q, outer);
        let made = self.budget().used().saturating_sub(before);
        self.budget().release(made);
        rows
    }

    /// Runs a statement's query to the rows it returns. They are the
    /// caller's, not intermediate results, so they are not charged; the
    /// work behind them (a sort, a DISTINCT, ...) is.
    #[inline(never)]
    pub(crate) fn run_result(&self, q: &Query) -> Result<Vec<Row>> {
        let mut out = Vec::new();
        self.query_rows(q, None, &mut |row| {
            out.push(row);
            Ok(true)
        })?;
        Ok(out)
    }

    /// Runs a query to its rows, computed completely before the first is
    /// read (so its source tables may change while they are read), held
    /// in memory or, past the sort share of the limit, in temp space: an
    /// INSERT's source. Without temp space rows held in memory are
    /// charged as [`ExecCtx::run_query`] charges them.
    pub(crate) fn spool_query(&self, q: &Query) -> Result<SortedRows> {
        let rows = if q.order_by.is_empty() {
            // Unsorted: a sorter without keys keeps input order (stable).
            let mut spool = self.sorter(SortOrder::Keys(Vec::new()), None);
            self.query_rows(q, None, &mut |row| spool.push(row).map(|()| true))?;
            spool.finish()?
        } else {
            let Some((sorted, skip, take)) = self.sorted_rows(q, None)? else {
                return Ok(SortedRows::Memory(Vec::new().into_iter()));
            };
            sorted.window(skip, take, q.columns.len())
        };
        // Kept in memory: charged as an intermediate result.
        self.charge(rows.memory_size())?;
        Ok(rows)
    }

    /// Calls `sink` with each visible result row of `q`, in order, until
    /// it returns false.
    #[inline(never)]
    pub(crate) fn query_rows(
        &self,
        q: &Query,
        outer: Option<&Env>,
        sink: &mut dyn FnMut(Row) -> Result<bool>,
    ) -> Result<()> {
        let visible = q.columns.len();
        if !q.order_by.is_empty() {
            let Some((mut sorted, skip, take)) = self.sorted_rows(q, outer)? else {
                return Ok(());
            };
            let (mut skipped, mut taken) = (0, 0);
            while taken < take {
                let Some(mut row) = sorted.next_row()? else {
                    break;
                };
                if skipped < skip {
                    skipped += 1;
                    continue;
                }
                taken += 1;
                row.truncate(visible);
                if !sink(row)? {
                    break;
                }
            }
            return Ok(());
        }
        let Some((offset, take)) = self.limits(q, outer)? else {
            return Ok(());
        };
        let (mut skipped, mut taken) = (0, 0);
        let hint = (take != usize::MAX).then(|| take.saturating_add(offset));
        self.body_rows(&q.body, outer, hint, &mut |mut row| {
            if skipped < offset {
                skipped += 1;
                return Ok(true);
            }
            taken += 1;
            row.truncate(visible);
            Ok(sink(row)? && taken < take)
        })
    }

    /// OFFSET and LIMIT (`usize::MAX` for none); `None` for LIMIT 0.
    fn limits(&self, q: &Query, outer: Option<&Env>) -> Result<Option<(usize, usize)>> {
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
        if limit == Some(0) {
            return Ok(None);
        }
        Ok(Some((offset, limit.unwrap_or(usize::MAX))))
    }

    /// The rows of a query with ORDER BY, sorted (all columns), with the
    /// OFFSET and LIMIT still to apply; `None` for LIMIT 0. With a LIMIT
    /// the sorter keeps only the rows that can be returned.
    fn sorted_rows(
        &self,
        q: &Query,
        outer: Option<&Env>,
    ) -> Result<Option<(SortedRows, usize, usize)>> {
        let Some((offset, take)) = self.limits(q, outer)? else {
            return Ok(None);
        };
        let keep = (take != usize::MAX).then(|| take.saturating_add(offset));
        let mut sorter = self.sorter(SortOrder::Keys(q.order_by.clone()), keep);
        self.body_rows(&q.body, outer, None, &mut |row| {
            sorter.push(row)?;
            Ok(true)
        })?;
        Ok(Some((sorter.finish()?, offset, take)))
    }

    /// Calls `sink` with each row of `body` (visible and hidden columns)
    /// until it returns false. A plain core streams from the join; the
    /// others are computed first.
    fn body_rows(
        &self,
        body: &Body,
        outer: Option<&Env>,
        hint: Option<usize>,
        sink: &mut dyn FnMut(Row) -> Result<bool>,
    ) -> Result<()> {
        let rows = match body {
            Body::Core(core) if core.aggregate.is_none() && core.windows.is_empty() => {
                return self.stream_core(core, outer, sink);
            }
            Body::Core(core) => self.run_core(core, outer)?,
            Body::Values(rows) => {
                let empty: Vec<Value> = Vec::new();
                let env = Env::new(&empty, outer);
                rows.iter()
                    .map(|r| r.iter().map(|e| self.eval(e, &env)).collect())
                    .collect::<Result<Vec<Row>>>()?
            }
            Body::Compound {
                op,
                left,
                right,
                collations,
                sorted,
            } => {
                let l = self.collect_body(left, outer)?;
                let r = self.collect_body(right, outer)?;
                self.compound(*op, l, r, &key_columns(collations), *sorted)?
            }
            Body::Recursive {
                cte,
                initial,
                steps,
                union_all,
                collations,
            } => {
                let keys = if *union_all {
                    None
                } else {
                    Some(key_columns(collations))
                };
                return self.recursive(*cte, initial, steps, keys.as_deref(), outer, hint, sink);
            }
        };
        for r in rows {
            if !sink(r)? {
                break;
            }
        }
        Ok(())
    }

    /// The rows of `body`, held and charged.
    fn collect_body(&self, body: &Body, outer: Option<&Env>) -> Result<Vec<Row>> {
        let mut out = Vec::new();
        self.body_rows(body, outer, None, &mut |row| {
            self.charge(row_size(&row))?;
            out.push(row);
            Ok(true)
        })?;
        Ok(out)
    }

    /// UNION, INTERSECT or EXCEPT of two row sets, in key order, rows
    /// equal under `keys` (each column's collation) being one row: which
    /// one is `Body::Compound::sorted`'s rule.
    #[inline(never)]
    fn compound(
        &self,
        op: CompoundOperator,
        left: Vec<Row>,
        right: Vec<Row>,
        keys: &[KeyColumn],
        sorted: bool,
    ) -> Result<Vec<Row>> {
        if op == CompoundOperator::UnionAll {
            let mut l = left;
            l.extend(right);
            return Ok(l);
        }
        let key = |r: &Row| keycode::encode_key(r, keys);
        // Each kept row, and whether it came from the right side.
        let mut out: BTreeMap<Vec<u8>, (Row, bool)> = BTreeMap::new();
        let keep = |out: &mut BTreeMap<Vec<u8>, (Row, bool)>, k: Vec<u8>, r: Row, right| {
            use std::collections::btree_map::Entry;
            match out.entry(k) {
                Entry::Vacant(e) => {
                    e.insert((r, right));
                }
                Entry::Occupied(mut e) => {
                    if !sorted || (right && !e.get().1) {
                        e.insert((r, right));
                    }
                }
            }
        };
        match op {
            CompoundOperator::Union => {
                for (r, from_right) in left
                    .into_iter()
                    .map(|r| (r, false))
                    .chain(right.into_iter().map(|r| (r, true)))
                {
                    self.charge(row_size(&r))?;
                    keep(&mut out, key(&r), r, from_right);
                }
            }
            CompoundOperator::Intersect | CompoundOperator::Except => {
                let rk: FastSet<Vec<u8>> = right.iter().map(key).collect();
                let wanted = op == CompoundOperator::Intersect;
                for r in left {
                    let k = key(&r);
                    if rk.contains(&k) == wanted {
                        keep(&mut out, k, r, false);
                    }
                }
            }
            CompoundOperator::UnionAll => {}
        }
        Ok(out.into_values().map(|(r, _)| r).collect())
    }

    /// A recursive CTE's rows, streamed to `sink` one generation at a time
    /// (the initial rows, then each step's new rows over the previous
    /// generation, until a step adds none, `sink` returns false or `hint`
    /// rows went out). With several steps, each row of a generation in turn
    /// is the working table for every step, in order, so the rows come in
    /// the order of SQLite's queue (a row's results by the first step, then
    /// by the second, ..., then the next row's). With `distinct` (UNION: each column's collation) a
    /// row equal to one seen before is dropped. Only the current
    /// generation is held (and charged while it is), and for UNION the
    /// keys of the rows seen, so a long
    /// recursion such as a series of a million numbers needs no more
    /// memory than its widest generation. `sink` may evaluate this CTE
    /// again (another reference to it): that evaluation has finished when
    /// it returns, and the working table is set again before each step.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn recursive(
        &self,
        cte: usize,
        initial: &Body,
        steps: &[Body],
        distinct: Option<&[KeyColumn]>,
        outer: Option<&Env>,
        hint: Option<usize>,
        sink: &mut dyn FnMut(Row) -> Result<bool>,
    ) -> Result<()> {
        let mut seen = FastSet::default();
        let mut fresh = |r: &Row| -> Result<bool> {
            let Some(keys) = distinct else {
                return Ok(true);
            };
            let key = keycode::encode_key(r, keys);
            if seen.contains(&key) {
                return Ok(false);
            }
            self.charge(key.len() as u64 + 24)?;
            seen.insert(key);
            Ok(true)
        };
        // A generation's rows and the bytes charged for holding them.
        let generation = |body: &Body, fresh: &mut dyn FnMut(&Row) -> Result<bool>| {
            let (mut rows, mut bytes) = (Vec::new(), 0);
            self.body_rows(body, outer, None, &mut |row| {
                if fresh(&row)? {
                    let size = row_size(&row);
                    self.charge(size)?;
                    bytes += size;
                    rows.push(row);
                }
                Ok(true)
            })?;
            Result::Ok((rows, bytes))
        };
        let (mut frontier, mut held) = generation(initial, &mut fresh)?;
        let mut sent = 0usize;
        while !frontier.is_empty() {
            for r in &frontier {
                sent += 1;
                if !sink(r.clone())? || hint.is_some_and(|h| sent >= h) {
                    return Ok(());
                }
            }
            // The step's subqueries may read the working table: it starts
            // with no cached results and leaves none, and the results
            // cached for the rest of the statement (the sink's) stay.
            let saved = std::mem::take(&mut *self.cache.borrow_mut());
            let next = if let [step] = steps {
                self.working
                    .borrow_mut()
                    .insert(cte, Rc::new(std::mem::take(&mut frontier)));
                generation(step, &mut fresh)
            } else {
                let (mut rows, mut bytes) = (Vec::new(), 0);
                let mut each = || {
                    for r in std::mem::take(&mut frontier) {
                        self.working.borrow_mut().insert(cte, Rc::new(vec![r]));
                        for step in steps {
                            let (more, b) = generation(step, &mut fresh)?;
                            rows.extend(more);
                            bytes += b;
                        }
                    }
                    Result::Ok(())
                };
                each().map(|()| (rows, bytes))
            };
            *self.cache.borrow_mut() = saved;
            // The previous generation is dropped with the working table,
            // which is set only while a step runs.
            self.working.borrow_mut().remove(&cte);
            self.budget().release(held);
            (frontier, held) = next?;
        }
        Ok(())
    }

    /// Runs a SELECT core with aggregates or window functions to its
    /// output rows (visible + hidden columns).
    #[inline(never)]
    fn run_core(&self, core: &Core, outer: Option<&Env>) -> Result<Vec<Row>> {
        if let Some(agg) = &core.aggregate {
            return self.run_aggregate(core, agg, outer);
        }
        let mut source = Vec::new();
        self.join(core, outer, &mut |row| {
            self.charge(row_size(row))?;
            source.push(row.to_vec());
            Ok(true)
        })?;
        let rows = self.run_windows(core, source, outer)?;
        Ok(self.distinct(core, rows))
    }

    /// Streams a plain SELECT core's output rows (visible + hidden
    /// columns) to `sink`, dropping DISTINCT duplicates.
    #[inline(never)]
    fn stream_core(
        &self,
        core: &Core,
        outer: Option<&Env>,
        sink: &mut dyn FnMut(Row) -> Result<bool>,
    ) -> Result<()> {
        let mut seen = FastSet::default();
        let keys = if core.distinct {
            distinct_keys(core)
        } else {
            Vec::new()
        };
        self.join(core, outer, &mut |row| {
            let env = Env::new(row, outer);
            let mut o = Vec::with_capacity(core.output.len());
            for e in &core.output {
                o.push(self.eval(e, &env)?);
            }
            if core.distinct {
                let key = keycode::encode_key(&o[..core.visible], &keys);
                if seen.contains(&key) {
                    return Ok(true);
                }
                self.charge(key.len() as u64 + 24)?;
                seen.insert(key);
            }
            sink(o)
        })
    }

    pub(crate) fn distinct(&self, core: &Core, rows: Vec<Row>) -> Vec<Row> {
        if !core.distinct {
            return rows;
        }
        let keys = distinct_keys(core);
        let mut seen = FastSet::default();
        rows.into_iter()
            .filter(|r| seen.insert(keycode::encode_key(&r[..core.visible], &keys)))
            .collect()
    }

    /// The nested-loop join: calls `sink` with each row of the FROM clause
    /// that passes every conjunct. Then, for each RIGHT / FULL join in
    /// order, the rows of its operand that nothing matched, joined with
    /// NULLs for the items before it ([`Self::unmatched_rows`]).
    pub(crate) fn join(&self, core: &Core, outer: Option<&Env>, sink: &mut Sink) -> Result<()> {
        let mut row = vec![Value::Null; core.from.width];
        {
            let env = Env::new(&row, outer);
            if !self.all_true(&core.filter, &env)? {
                return Ok(());
            }
        }
        let mut caches = vec![LevelCache::default(); core.from.levels.len()];
        if !self.join_level(core, 0, &mut row, outer, &mut caches, sink)? {
            return Ok(());
        }
        for depth in 1..core.from.levels.len() {
            let item = &core.from.items[core.from.levels[depth].item];
            if item.right_join
                && !self.unmatched_rows(core, depth, &mut row, outer, &mut caches, sink)?
            {
                break;
            }
        }
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
        // A RIGHT / FULL join's operand: the rows an ON condition matched.
        let mut seen = item
            .right_join
            .then(|| cache.matched.take().unwrap_or_default());
        let id_slot = item.offset + item.width - 1;
        let go = self.for_each_candidate(&core.from, depth, row, outer, cache, &mut |row| {
            let env = Env::new(row, outer);
            if !self.all_true(&level.on, &env)? {
                return Ok(true);
            }
            matched = true;
            if let (Some(seen), Value::Integer(id)) = (seen.as_mut(), &row[id_slot]) {
                if seen.insert(*id) {
                    self.charge(16)?;
                }
            }
            if self.all_true(&level.filters, &env)? {
                if depth + 1 == core.from.levels.len() {
                    // The innermost level: the row is complete.
                    return sink(row);
                }
                return self.join_level(core, depth + 1, row, outer, rest, sink);
            }
            Ok(true)
        })?;
        if seen.is_some() {
            cache.matched = seen;
        }
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

    /// A RIGHT / FULL join's second pass: each row of level `depth`'s item
    /// that no row of the items before it matched, with those items'
    /// columns NULL, through the level's filters and the levels after it
    /// (which a later RIGHT join's pass then counts as matches too).
    /// Returns false when the sink stopped the join.
    fn unmatched_rows(
        &self,
        core: &Core,
        depth: usize,
        row: &mut Vec<Value>,
        outer: Option<&Env>,
        caches: &mut [LevelCache],
        sink: &mut Sink,
    ) -> Result<bool> {
        let level = &core.from.levels[depth];
        let item = &core.from.items[level.item];
        let Some((cache, rest)) = caches[depth..].split_first_mut() else {
            return Err(sql_err!("internal: no cache for join level {depth}"));
        };
        let seen = cache.matched.take().unwrap_or_default();
        let (off, w) = (item.offset, item.width);
        // The items before are bound in FROM order, at the slots before.
        for v in &mut row[..off] {
            *v = Value::Null;
        }
        let mut emit = |row: &mut Vec<Value>| -> Result<bool> {
            if let Value::Integer(id) = &row[off + w - 1] {
                if seen.contains(id) {
                    return Ok(true);
                }
            }
            let env = Env::new(row, outer);
            if !self.all_true(&level.filters, &env)? {
                return Ok(true);
            }
            self.join_level(core, depth + 1, row, outer, rest, sink)
        };
        if let Source::Table(_) = item.source {
            // One pass over the table, as the first level of a join.
            let scan = From {
                items: vec![FromItem {
                    indexes: Vec::new(),
                    ..item.clone()
                }],
                levels: vec![Level {
                    item: 0,
                    access: Access::Scan,
                    on: Vec::new(),
                    filters: Vec::new(),
                }],
                width: core.from.width,
            };
            return self.for_each_candidate(
                &scan,
                0,
                row,
                outer,
                &mut LevelCache::default(),
                &mut emit,
            );
        }
        let rows = {
            let env = Env::new(row, outer);
            self.source_rows(item, &env, &mut cache.rows)?
        };
        for r in rows.iter() {
            row[off..off + w].clone_from_slice(&r[..w]);
            if !emit(row)? {
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
            /// The row that supplies bare columns: the group's first, or
            /// the one that last changed a min/max (SQLite's choices).
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
        let mut index: FastMap<Vec<u8>, usize> = FastMap::default();
        let agg_keys: Vec<KeyColumn> = agg
            .group_collations
            .iter()
            .map(|c| KeyColumn {
                desc: false,
                collation: *c,
            })
            .collect();
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
        // One GROUP BY value that is a number equal to an integer of fewer
        // than 54 bits (the usual group key) is looked up as that integer,
        // without encoding it: such numbers, and only they, have the key
        // encoding of that integer, so the two maps never hold one group
        // twice. The group keeps the encoding for the final order.
        let mut small_index: FastMap<i64, usize> = FastMap::default();
        let key_col = |i: usize| agg_keys.get(i).copied().unwrap_or_default();
        let mut key = Vec::new();
        self.join(core, outer, &mut |row| {
            let env = Env::new(row, outer);
            let mut small = None;
            key.clear();
            if let [g] = agg.group_by.as_slice() {
                let v = self.operand(g, &env)?;
                small = small_int_key(&v);
                if small.is_none() {
                    keycode::append_value(&mut key, &v, key_col(0));
                }
            } else {
                for (i, g) in agg.group_by.iter().enumerate() {
                    let v = self.operand(g, &env)?;
                    keycode::append_value(&mut key, &v, key_col(i));
                }
            }
            let slot = if agg.group_by.is_empty() && !groups.is_empty() {
                0
            } else if let Some(&i) = match small {
                Some(k) => small_index.get(&k),
                None => index.get(key.as_slice()),
            } {
                i
            } else {
                if let Some(k) = small {
                    keycode::append_value(&mut key, &Value::Integer(k), key_col(0));
                }
                // The representative row keeps only the slots read per
                // group (a large column the join alone reads stays out).
                let mut repr = vec![Value::Null; row.len()];
                for &s in &repr_slots {
                    repr[s] = row[s].clone();
                }
                self.charge(row_size(&repr) + key.len() as u64)?;
                groups.push(Group {
                    key: key.clone(),
                    repr,
                    accs: new_accs()?,
                });
                match small {
                    Some(k) => small_index.insert(k, groups.len() - 1),
                    None => index.insert(key.clone(), groups.len() - 1),
                };
                groups.len() - 1
            };
            let group = &mut groups[slot];
            let mut changed_extreme = false;
            for (acc, call) in group.accs.iter_mut().zip(&agg.calls) {
                changed_extreme |= acc.step(self, call, &env)?;
            }
            if changed_extreme {
                for &s in &repr_slots {
                    copy_value(&mut group.repr[s], &row[s]);
                }
            }
            Ok(true)
        })?;
        drop(index);
        drop(small_index);
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
                .zip(&agg.calls)
                .map(|(acc, call)| acc.finish(call))
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
    key_columns(&core.collations)
}

/// Ascending key columns under `collations`.
pub(super) fn key_columns(collations: &[Collation]) -> Vec<KeyColumn> {
    collations
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

/// Sorts `idx`, indexes into `rows`, by `keys` over those rows; stable, so
/// equal rows keep the order they had (one instance for every caller).
pub(crate) fn sort_indexes_by_keys(idx: &mut [usize], rows: &[Row], keys: &[SortKey]) {
    idx.sort_by(|a, b| compare_by_keys(&rows[*a], &rows[*b], keys));
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
