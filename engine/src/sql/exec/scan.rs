//! Reading rows: table rows from their tree, and the candidate rows of a
//! join level through its access path (scan, rowid lookup or range, index
//! probe, hash join), plus the index key layout shared with DML.
//!
//! A level's candidates are written into the level's slots of the join's
//! row buffer ([`ExecCtx::for_each_candidate`]); streamed table rows are
//! decoded there directly ([`decode_into`]), reading only the columns the
//! query uses and reusing text buffers, so a streamed row costs no
//! allocation. Invariant the partial decoding relies on: a level always
//! writes the same set of slots (its access path is fixed), so the slots
//! it never writes keep the NULL the buffer started with.
//!
//! Index key layout (shared by every caller that builds or probes index
//! keys: [`index_key`], [`index_prefix_range`], DML's uniqueness probe):
//! `keycode::encode_key(values, columns)` followed by the 8 raw bytes of
//! `keycode::encode_rowid(rowid)`.

use std::collections::HashSet;
use std::ops::Bound;
use std::rc::Rc;

use super::eval::{integer_truth, is_comparison, Env};
use super::json_each::json_each_row;
use super::text_checks::TextChecks;
use super::{row_size, ExecCtx, Kv};
use crate::sql::ast::BinaryOp;
use crate::sql::catalog::{Index, Table};
use crate::sql::keycode::{self, KeyColumn};
use crate::sql::planner::plan::{Access, Expr, From, FromItem, Level, Source, TableFunction};
use crate::sql::record::{self, FieldRef};
use crate::sql::value::{apply_affinity, Affinity, BinaryOp as ArithOp, Collation, Value};
use crate::storage::fasthash::{FastMap, FastSet};
use crate::{corrupt, Error, Result};

/// A row of values.
pub(crate) type Row = Vec<Value>;

/// Decodes a table entry into the item layout: every column, then the rowid.
pub(crate) fn table_row(table: &Table, key: &[u8], value: &[u8]) -> Result<Row> {
    let mut row = vec![Value::Null; table.columns.len() + 1];
    decode_into(table, &Wanted::new(table, None), key, value, &mut row)?;
    Ok(row)
}

/// The row of `table` with `rowid`, decoded from the stored bytes in place
/// (no copy of the record).
pub(crate) fn read_table_row(kv: &dyn Kv, table: &Table, rowid: i64) -> Result<Option<Row>> {
    let key = keycode::encode_rowid(rowid);
    let mut row = None;
    kv.get_with(&table.tree, &key, &mut |v| {
        row = Some(table_row(table, &key, v)?);
        Ok(())
    })?;
    Ok(row)
}

/// The columns of `table` a decode reads: all, or those `used` marks. Built
/// once per scan: the first 64 columns are a bit mask, tested per field
/// without a memory load.
#[derive(Clone, Copy)]
pub(crate) struct Wanted<'u> {
    columns: usize,
    low: u64,
    used: Option<&'u [bool]>,
}

impl<'u> Wanted<'u> {
    pub(crate) fn new(table: &Table, used: Option<&'u [bool]>) -> Wanted<'u> {
        let columns = table.columns.len();
        let mut low = 0u64;
        for c in 0..columns.min(64) {
            if used.is_none_or(|u| u.get(c).copied().unwrap_or(false)) {
                low |= 1 << c;
            }
        }
        Wanted { columns, low, used }
    }

    #[inline(always)]
    fn has(&self, c: usize) -> bool {
        if c < 64 {
            self.low >> c & 1 != 0
        } else {
            c < self.columns && self.used.is_none_or(|u| u.get(c).copied().unwrap_or(false))
        }
    }
}

/// Decodes a table entry into `dst` (the item's slots: columns, then the
/// rowid). Only the `wanted` columns are read; the others are neither
/// decoded nor written (a streamed level's unread slots stay NULL).
/// A text or blob slot's buffer is reused when the new value has the same
/// type, so a streamed scan does not allocate per row.
pub(crate) fn decode_into(
    table: &Table,
    wanted: &Wanted,
    key: &[u8],
    value: &[u8],
    dst: &mut [Value],
) -> Result<()> {
    let rowid = keycode::decode_rowid(key)?;
    let n = table.columns.len();
    let wanted = |c: usize| wanted.has(c);
    let count = record::visit_fields(value, wanted, |c, f| {
        assign(&mut dst[c], f);
        Ok(())
    })?;
    if count > n {
        return Err(corrupt!(
            0,
            "row {rowid} of {} has {count} values for {n} columns",
            table.name
        ));
    }
    if count < n {
        for (c, slot) in dst.iter_mut().enumerate().take(n).skip(count) {
            if wanted(c) {
                *slot = default_literal(table, c);
            }
        }
    }
    if let Some(a) = table.rowid_alias {
        set_integer(&mut dst[a], rowid);
    }
    set_integer(&mut dst[n], rowid);
    Ok(())
}

/// Stores integer `i` in `dst`, in place when it holds one (no drop).
#[inline(always)]
fn set_integer(dst: &mut Value, i: i64) {
    match dst {
        Value::Integer(d) => *d = i,
        _ => *dst = Value::Integer(i),
    }
}

/// Stores `f` in `dst`, reusing `dst`'s text or blob buffer when it has one.
/// Always inlined, and so is the integer case: it runs for every column a
/// scan reads, and the rest, kept out of line, would stop its caller (the
/// record walk's visitor) from being inlined.
#[inline(always)]
fn assign(dst: &mut Value, f: FieldRef<'_>) {
    match (&mut *dst, f) {
        (Value::Integer(d), FieldRef::Integer(i)) => *d = i,
        (dst, f) => assign_other(dst, f),
    }
}

#[inline(never)]
fn assign_other(dst: &mut Value, f: FieldRef<'_>) {
    match (&mut *dst, f) {
        (Value::Text(s), FieldRef::Text(t)) => {
            s.clear();
            s.push_str(t);
        }
        (Value::Blob(b), FieldRef::Blob(x)) => {
            b.clear();
            b.extend_from_slice(x);
        }
        (_, f) => *dst = f.to_value(),
    }
}

/// Copies `src` into `dst` slot by slot, reusing text and blob buffers;
/// only the `used` slots when given (the others are never read).
fn copy_row(dst: &mut [Value], src: &[Value], used: Option<&[bool]>) {
    for (i, (d, s)) in dst.iter_mut().zip(src).enumerate() {
        if used.is_none_or(|u| u[i]) {
            copy_value(d, s);
        }
    }
}

/// Copies `src` into `dst`, reusing `dst`'s text or blob buffer.
pub(crate) fn copy_value(dst: &mut Value, src: &Value) {
    match (&mut *dst, src) {
        (Value::Text(a), Value::Text(b)) => {
            a.clear();
            a.push_str(b);
        }
        (Value::Blob(a), Value::Blob(b)) => {
            a.clear();
            a.extend_from_slice(b);
        }
        _ => dst.clone_from(src),
    }
}

/// The value of a column missing from an old record (added by ALTER TABLE
/// ADD COLUMN, whose DEFAULT is then a constant: [`constant_default`]).
fn default_literal(table: &Table, c: usize) -> Value {
    let column = &table.columns[c];
    let v = column.default.as_ref().and_then(constant_default);
    apply_affinity(v.unwrap_or(Value::Null), column.affinity)
}

/// The value of a DEFAULT that ADD COLUMN may give the rows a table
/// already has, as SQLite's `sqlite3ValueFromExpr` computes it: a literal
/// other than CURRENT_TIME and its kind, signed or CAST any number of
/// times; None for any other expression (ADD COLUMN then refuses it for a
/// table with rows).
pub(crate) fn constant_default(e: &crate::sql::ast::Expr) -> Option<Value> {
    use crate::sql::ast::{ExprKind, Literal, UnaryOp};
    use crate::sql::value::{cast, negate};
    Some(match &e.kind {
        ExprKind::Literal(
            Literal::CurrentTime | Literal::CurrentDate | Literal::CurrentTimestamp,
        ) => return None,
        ExprKind::Literal(l) => crate::sql::binder::expr::literal(l),
        ExprKind::Unary {
            op: UnaryOp::Neg,
            expr,
        } => negate(&constant_default(expr)?),
        ExprKind::Unary {
            op: UnaryOp::Plus,
            expr,
        } => constant_default(expr)?,
        ExprKind::Cast { expr, type_name } => cast(
            &constant_default(expr)?,
            Affinity::from_declared_type(&type_name.name),
        ),
        _ => return None,
    })
}

/// The key columns of an index.
pub(crate) fn key_columns(index: &Index) -> Vec<KeyColumn> {
    index
        .columns
        .iter()
        .map(|c| KeyColumn {
            desc: c.desc,
            collation: c.collation,
        })
        .collect()
}

/// The index key of (values, rowid).
pub(crate) fn index_key(values: &[Value], columns: &[KeyColumn], rowid: i64) -> Vec<u8> {
    let mut k = keycode::encode_key_with_room(values, columns, keycode::MAX_ROWID_LEN + 1);
    keycode::push_index_rowid(&mut k, rowid);
    k
}

/// Appends [`index_key`]'s bytes to `out`.
pub(crate) fn push_index_key(
    out: &mut Vec<u8>,
    values: &[Value],
    columns: &[KeyColumn],
    rowid: i64,
) {
    keycode::append_key(out, values, columns);
    keycode::push_index_rowid(out, rowid);
}

/// The rowid at the end of an index key.
pub(crate) fn index_key_rowid(key: &[u8]) -> Result<i64> {
    keycode::split_index_key(key).map(|(_, rowid)| rowid)
}

/// The smallest byte string greater than every string starting with `p`.
pub(crate) fn prefix_successor(p: &[u8]) -> Bound<Vec<u8>> {
    let mut v = p.to_vec();
    while let Some(last) = v.pop() {
        if last != 0xff {
            v.push(last + 1);
            return Bound::Excluded(v);
        }
    }
    Bound::Unbounded
}

/// Key bounds of every entry starting with `prefix` (which becomes the
/// lower bound).
pub(crate) fn index_prefix_range(prefix: Vec<u8>) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let hi = prefix_successor(&prefix);
    (Bound::Included(prefix), hi)
}

/// Converts a probe value the way the comparison converts it.
fn convert(v: Value, aff: Affinity) -> Value {
    match aff {
        Affinity::Blob => v,
        other => apply_affinity(v, other),
    }
}

/// Where a join level sends each candidate, once it is written into the
/// row's slots; `Ok(false)` stops the level.
pub(crate) type CandidateSink<'s> = dyn FnMut(&mut Vec<Value>) -> Result<bool> + 's;

/// Key bounds of one storage range.
type KeyRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

impl ExecCtx<'_> {
    /// Every row of a table, decoded and charged to the statement.
    pub(crate) fn scan_table(&self, table: &Table) -> Result<Vec<Row>> {
        self.collect_table(table, None)
    }

    /// Every row of a table, with only the `used` columns decoded when
    /// given, charged to the statement.
    fn collect_table(&self, table: &Table, used: Option<&[bool]>) -> Result<Vec<Row>> {
        let width = table.columns.len() + 1;
        let mut scratch = vec![Value::Null; width];
        self.collect_build(table, used, &[], 0..width, &mut scratch, None)
    }

    /// A hash build's rows: the table's rows that pass the build
    /// `filters` (each decoded into the item's `slots` of the query `row`
    /// to be tested), with only the `used` columns decoded, charged to the
    /// statement.
    #[inline(never)]
    fn collect_build(
        &self,
        table: &Table,
        used: Option<&[bool]>,
        filters: &[Expr],
        slots: std::ops::Range<usize>,
        row: &mut [Value],
        outer: Option<&Env>,
    ) -> Result<Vec<Row>> {
        let mut rows = Vec::new();
        let wanted = Wanted::new(table, used);
        self.kv.visit(
            &table.tree,
            Bound::Unbounded,
            Bound::Unbounded,
            false,
            &mut |k, v| {
                decode_into(table, &wanted, k, v, &mut row[slots.clone()])?;
                if !filters.is_empty() && !self.all_true(filters, &Env::new(row, outer))? {
                    return Ok(true);
                }
                // Moved out (the slots are decoded afresh for the next row;
                // unused ones stay NULL).
                let kept: Row = row[slots.clone()]
                    .iter_mut()
                    .map(|v| std::mem::replace(v, Value::Null))
                    .collect();
                self.charge(row_size(&kept))?;
                rows.push(kept);
                Ok(true)
            },
        )?;
        Ok(rows)
    }

    /// The row with `rowid`, if any.
    pub(crate) fn table_row_by_id(&self, table: &Table, rowid: i64) -> Result<Option<Row>> {
        read_table_row(self.kv, table, rowid)
    }

    /// Decodes the row with `rowid` into `dst` (see [`decode_into`]);
    /// false when there is no such row.
    fn row_by_id_into(
        &self,
        table: &Table,
        wanted: &Wanted,
        rowid: i64,
        dst: &mut [Value],
    ) -> Result<bool> {
        let key = keycode::encode_rowid(rowid);
        self.kv.get_with(&table.tree, &key, &mut |v| {
            decode_into(table, wanted, &key, v, dst)
        })
    }

    /// The rowid a lookup's value `e` names: `e` converted with numeric
    /// affinity (the rowid's comparison), if that gives an integer. An
    /// integer operand (a column, a parameter) is read in place: numeric
    /// affinity leaves it as it is.
    #[inline]
    fn rowid_probe(&self, e: &Expr, env: &Env) -> Result<Option<i64>> {
        if let Some(id) = self.integer(e, env) {
            return Ok(Some(id));
        }
        Ok(match convert(self.eval(e, env)?, Affinity::Numeric) {
            Value::Integer(id) => Some(id),
            _ => None,
        })
    }

    /// Writes each candidate row of a join level into the level's slots of
    /// `row` (given the rows bound so far) and calls `f`. Returns false when
    /// `f` stopped it.
    ///
    /// Table rows are streamed from storage, decoding only the columns the
    /// query reads: a scan of the outermost level (which runs once), rowid lookups and ranges, index probes. Other sources, inner
    /// scans and hash-join builds are materialized once per execution of
    /// the core (charged to the statement) and copied in.
    pub(crate) fn for_each_candidate(
        &self,
        from: &From,
        depth: usize,
        row: &mut Vec<Value>,
        outer: Option<&Env>,
        lc: &mut LevelCache,
        f: &mut CandidateSink,
    ) -> Result<bool> {
        let level = &from.levels[depth];
        let item = &from.items[level.item];
        let (off, w) = (item.offset, item.width);
        let used = (item.used.len() == w).then_some(item.used.as_slice());
        let access = match (&level.access, lc.fallen_back) {
            (
                Access::Hash {
                    fallback: Some(f), ..
                },
                true,
            ) => &**f,
            (a, _) => a,
        };
        if let (0, Source::Query { query }, Access::Scan) = (depth, &item.source, access) {
            // The first level is read once per execution of the join: its
            // subquery's rows stream from it instead of being held (a
            // recursive CTE of any length, a large view).
            let mut go = true;
            self.query_rows(&query.query, outer, &mut |r| {
                copy_row(&mut row[off..off + w], &r[..w], None);
                go = f(row)?;
                Ok(go)
            })?;
            return Ok(go);
        }
        let table = match (&item.source, access) {
            (Source::Table(t), Access::Scan) if depth == 0 => t,
            (Source::Table(t), Access::RowidEq(_) | Access::RowidRange { .. })
            | (Source::Table(t), Access::Index { .. }) => t,
            (
                Source::Table(t),
                Access::Hash {
                    fallback: Some(_),
                    filters,
                    ..
                },
            ) if lc.rows.is_none() => {
                // The hash the planner preferred to a per-probe path: build
                // it if the table's rows fit the budget's memory share (the
                // one a sort keeps, so the rest of the statement keeps
                // room), else go back to that path for the rest of this
                // execution.
                let mark = self.budget().used();
                let share = self.budget().memory_share();
                match self.collect_build(t, used, filters, off..off + w, row, outer) {
                    Ok(rows) if self.budget().used() - mark <= share => {
                        lc.rows = Some(Rc::new(rows))
                    }
                    Ok(_) | Err(Error::BatchLimitExceeded { .. }) => {
                        self.budget().release(self.budget().used() - mark);
                        lc.fallen_back = true;
                    }
                    Err(e) => return Err(e),
                }
                return self.for_each_candidate(from, depth, row, outer, lc, f);
            }
            (
                Source::Function {
                    function: TableFunction::Json { tree },
                    args,
                },
                _,
            ) if !item.right_join => {
                // Made again for each row of the levels before, one row at
                // a time, as SQLite's virtual table is: only a RIGHT / FULL
                // join's operand keeps its rows (for its second pass).
                let mut scan = self.json_each_scan(*tree, args, &Env::new(row, outer))?;
                let mut n = 0;
                while json_each_row(&mut scan, &mut row[off..off + w], used, n)? {
                    n += 1;
                    if !f(row)? {
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
            (
                Source::Function {
                    function: function @ (TableFunction::Pragma { .. } | TableFunction::Sequence),
                    args,
                },
                _,
            ) if !item.right_join => {
                let rows = self.function_rows(function, args, &Env::new(row, outer), None)?;
                for r in rows {
                    row[off..off + w].clone_from_slice(&r);
                    if !f(row)? {
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
            _ => return self.materialized_candidates(item, level, row, outer, lc, f),
        };
        if let Access::Index { index, .. } = access {
            if lc.key_cols.len() != index.columns.len() {
                lc.key_cols = key_columns(index);
            }
        }
        let cols = lc.key_cols.as_slice();
        let wanted = Wanted::new(table, used);
        let ranges: Vec<KeyRange> = {
            let env = Env::new(row, outer);
            match access {
                Access::RowidEq(values) if values.len() == 1 => {
                    // The common case (`id = ?`, a join on the rowid): one
                    // lookup, and no list of ids to drop repeats from.
                    let Some(id) = self.rowid_probe(&values[0], &env)? else {
                        return Ok(true);
                    };
                    let found = self.row_by_id_into(table, &wanted, id, &mut row[off..off + w])?;
                    return Ok(!found || f(row)?);
                }
                Access::RowidEq(values) => {
                    let mut ids: Vec<i64> = Vec::with_capacity(values.len());
                    for v in values {
                        if let Some(id) = self.rowid_probe(v, &env)? {
                            if !ids.contains(&id) {
                                ids.push(id);
                            }
                        }
                    }
                    for id in ids {
                        if self.row_by_id_into(table, &wanted, id, &mut row[off..off + w])?
                            && !f(row)?
                        {
                            return Ok(false);
                        }
                    }
                    return Ok(true);
                }
                Access::RowidRange { lo, hi } => {
                    match self.rowid_bounds(lo.as_ref(), hi.as_ref(), &env)? {
                        Some(r) => vec![r],
                        None => Vec::new(),
                    }
                }
                Access::Index {
                    eq,
                    affinities,
                    lo,
                    hi,
                    blobs_too,
                    ..
                } => {
                    let probe = IndexProbe {
                        eq,
                        affinities,
                        lo: lo.as_ref(),
                        hi: hi.as_ref(),
                        blobs_too: *blobs_too,
                    };
                    self.index_ranges(cols, &probe, &env)?
                }
                _ => vec![(Bound::Unbounded, Bound::Unbounded)],
            }
        };
        if let Access::Index {
            index, covering, ..
        } = access
        {
            let mut seen = HashSet::new();
            let multi = ranges.len() > 1;
            for (lo, hi) in ranges {
                let mut go = true;
                self.kv.visit(&index.tree, lo, hi, false, &mut |k, _| {
                    let rowid = index_key_rowid(k)?;
                    if multi && !seen.insert(rowid) {
                        return Ok(true);
                    }
                    let dst = &mut row[off..off + w];
                    if *covering {
                        key_into_row(table, index, cols, k, rowid, dst)?;
                    } else if !self.row_by_id_into(table, &wanted, rowid, dst)? {
                        return Ok(true);
                    }
                    go = f(row)?;
                    Ok(go)
                })?;
                if !go {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        let checks = lc
            .checks
            .get_or_insert_with(|| IntChecks::new(self, level, item, table));
        let text_checks = lc
            .text_checks
            .get_or_insert_with(|| TextChecks::new(self, level, item, table));
        for (lo, hi) in ranges {
            let mut go = true;
            self.kv.visit(&table.tree, lo, hi, false, &mut |k, v| {
                if checks.reject(v) || text_checks.reject(v) {
                    return Ok(true);
                }
                decode_into(table, &wanted, k, v, &mut row[off..off + w])?;
                go = f(row)?;
                Ok(go)
            })?;
            if !go {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The rows of a table-valued function (or `sqlite_sequence`) with
    /// arguments `args` evaluated against `env`; for JSON's, only the
    /// columns `used` marks are filled.
    fn function_rows(
        &self,
        function: &TableFunction,
        args: &[Expr],
        env: &Env,
        used: Option<&[bool]>,
    ) -> Result<Vec<Row>> {
        match function {
            TableFunction::Json { tree } => self.json_each_rows(*tree, args, env, used),
            TableFunction::Pragma { name, catalog } => {
                self.pragma_function_rows(name, catalog, args, env)
            }
            TableFunction::Sequence => self.sequence_rows(),
        }
    }

    /// The candidates of a level whose rows are kept: a hash join's build
    /// side (probed by the current row's key), a scan below the outermost
    /// level, a subquery or CTE.
    #[inline(never)]
    fn materialized_candidates(
        &self,
        item: &FromItem,
        level: &Level,
        row: &mut Vec<Value>,
        outer: Option<&Env>,
        lc: &mut LevelCache,
        f: &mut CandidateSink,
    ) -> Result<bool> {
        let (off, w) = (item.offset, item.width);
        // A table's rows hold only the columns the query reads.
        let used = (matches!(item.source, Source::Table(_)) && item.used.len() == w)
            .then_some(item.used.as_slice());
        if let (Source::Table(t), Access::Hash { filters, .. }, None) =
            (&item.source, &level.access, &lc.rows)
        {
            if !filters.is_empty() {
                let rows = self.collect_build(t, used, filters, off..off + w, row, outer)?;
                lc.rows = Some(Rc::new(rows));
            }
        }
        let rows = {
            let env = Env::new(row, outer);
            self.source_rows(item, &env, &mut lc.rows)?
        };
        let Access::Hash {
            build,
            probe,
            affinities,
            collations,
            ..
        } = &level.access
        else {
            for r in rows.iter() {
                copy_row(&mut row[off..off + w], &r[..w], used);
                if !f(row)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        };
        if lc.hash.is_none() {
            lc.hash = Some(JoinHash::build(&rows, build, collations));
        }
        let hits: &[usize] = match &lc.hash {
            Some(JoinHash::Ints { spans, rows }) => {
                let env = Env::new(row, outer);
                // An integer operand is read in place: no conversion, a
                // numeric one and an integer one leave it as it is.
                let as_is = matches!(
                    affinities[0],
                    Affinity::Blob | Affinity::Numeric | Affinity::Integer
                );
                let key = match self.integer(&probe[0], &env) {
                    Some(k) if as_is => Some(k),
                    _ => int_key(&convert(self.eval(&probe[0], &env)?, affinities[0])),
                };
                match key.and_then(|k| spans.get(&k)) {
                    Some(&(at, n)) => &rows[at as usize..(at + n) as usize],
                    None => return Ok(true),
                }
            }
            Some(JoinHash::Keys(map)) => {
                let key = &mut lc.key;
                key.clear();
                let env = Env::new(row, outer);
                for ((e, aff), coll) in probe.iter().zip(affinities).zip(collations) {
                    let v = convert(self.eval(e, &env)?, *aff);
                    if v.is_null() {
                        return Ok(true);
                    }
                    keycode::append_value(
                        key,
                        &v,
                        KeyColumn {
                            desc: false,
                            collation: *coll,
                        },
                    );
                }
                match map.get(key.as_slice()) {
                    Some(hits) => hits,
                    None => return Ok(true),
                }
            }
            None => return Ok(true),
        };
        for &i in hits {
            copy_row(&mut row[off..off + w], &rows[i][..w], used);
            if !f(row)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Every row of a level's source, cached for the statement (tables,
    /// uncorrelated subqueries) or per outer row (correlated subqueries).
    #[inline(never)]
    pub(crate) fn source_rows(
        &self,
        item: &FromItem,
        env: &Env,
        cache: &mut Option<Rc<Vec<Row>>>,
    ) -> Result<Rc<Vec<Row>>> {
        // (A table-valued function's rows reach here only as a RIGHT /
        // FULL join's operand, which the planner allows only when its
        // arguments read no other item: they are the same for the whole
        // join.)
        let correlated = matches!(&item.source, Source::Query { query } if query.correlated);
        if let (Some(rows), false) = (cache.as_ref(), correlated) {
            return Ok(rows.clone());
        }
        let rows = match &item.source {
            Source::Table(t) => {
                let used = (item.used.len() == item.width).then_some(item.used.as_slice());
                Rc::new(self.collect_table(t, used)?)
            }
            // A correlated one's rows are made again for each outer row.
            Source::Query { query } if query.correlated => {
                Rc::new(self.run_correlated(&query.query, env.outer)?)
            }
            Source::Query { query } => Rc::new(self.run_query(&query.query, env.outer)?),
            Source::CteWorking(id) => self.working.borrow().get(id).cloned().unwrap_or_default(),
            Source::Function { function, args } => {
                let used = (item.used.len() == item.width).then_some(item.used.as_slice());
                Rc::new(self.function_rows(function, args, env, used)?)
            }
        };
        let rows = match &item.source {
            // A RIGHT / FULL join's operand: each row numbered in its last
            // slot, which tells the join's rows apart.
            Source::Query { .. } | Source::CteWorking(_) if item.right_join => {
                let mut rows = Rc::unwrap_or_clone(rows);
                for (i, r) in rows.iter_mut().enumerate() {
                    r.truncate(item.width - 1);
                    r.push(Value::Integer(i as i64));
                }
                Rc::new(rows)
            }
            _ => rows,
        };
        *cache = Some(rows.clone());
        Ok(rows)
    }

    /// The key range of a rowid range; `None` when a bound is NULL (no
    /// row matches).
    #[inline(never)]
    fn rowid_bounds(
        &self,
        lo: Option<&(Expr, bool)>,
        hi: Option<&(Expr, bool)>,
        env: &Env,
    ) -> Result<Option<KeyRange>> {
        let mut lo_b = Bound::Unbounded;
        let mut hi_b = Bound::Unbounded;
        if let Some((e, _)) = lo {
            match convert(self.eval(e, env)?, Affinity::Numeric) {
                Value::Null => return Ok(None),
                Value::Integer(i) => lo_b = Bound::Included(keycode::encode_rowid(i).to_vec()),
                Value::Real(r) => {
                    lo_b = Bound::Included(
                        keycode::encode_rowid(r.floor().max(i64::MIN as f64) as i64).to_vec(),
                    )
                }
                _ => {}
            }
        }
        if let Some((e, _)) = hi {
            match convert(self.eval(e, env)?, Affinity::Numeric) {
                Value::Null => return Ok(None),
                Value::Integer(i) => hi_b = Bound::Included(keycode::encode_rowid(i).to_vec()),
                Value::Real(r) => {
                    hi_b = Bound::Included(
                        keycode::encode_rowid(r.ceil().min(i64::MAX as f64) as i64).to_vec(),
                    )
                }
                _ => {}
            }
        }
        Ok(Some((lo_b, hi_b)))
    }

    /// The index key ranges a probe reads: one per combination of the
    /// equality values (IN lists multiply), narrowed by the range on the
    /// next column. Empty when a probe value is NULL.
    #[inline(never)]
    fn index_ranges(
        &self,
        cols: &[KeyColumn],
        probe: &IndexProbe,
        env: &Env,
    ) -> Result<Vec<KeyRange>> {
        let IndexProbe {
            eq,
            affinities,
            lo,
            hi,
            blobs_too,
        } = *probe;
        let range_col = eq.len();
        let range_aff = affinities.get(range_col).copied().unwrap_or(Affinity::Blob);
        let bound_value = |b: Option<&(Expr, bool)>| -> Result<Option<Option<(Value, bool)>>> {
            match b {
                None => Ok(Some(None)),
                Some((e, inc)) => {
                    let v = convert(self.eval(e, env)?, range_aff);
                    if v.is_null() {
                        Ok(None)
                    } else {
                        Ok(Some(Some((v, *inc))))
                    }
                }
            }
        };
        let (Some(lo_v), Some(hi_v)) = (bound_value(lo)?, bound_value(hi)?) else {
            return Ok(Vec::new());
        };
        // Encoded key prefixes, one per combination of equality values.
        let mut prefixes: Vec<Vec<u8>> = vec![Vec::new()];
        for (i, values) in eq.iter().enumerate() {
            let mut encoded: Vec<Vec<u8>> = Vec::with_capacity(values.len());
            for v in values {
                let v = convert(self.eval(v, env)?, affinities[i]);
                if v.is_null() {
                    continue;
                }
                let mut k = Vec::new();
                keycode::append_value(&mut k, &v, cols[i]);
                if !encoded.contains(&k) {
                    encoded.push(k);
                }
            }
            prefixes = if encoded.len() == 1 {
                for p in &mut prefixes {
                    p.extend_from_slice(&encoded[0]);
                }
                prefixes
            } else {
                let mut next = Vec::with_capacity(prefixes.len() * encoded.len());
                for k in &encoded {
                    for p in &prefixes {
                        let mut p = p.clone();
                        p.extend_from_slice(k);
                        next.push(p);
                    }
                }
                next
            };
        }
        let ranged = range_col < cols.len() && (lo_v.is_some() || hi_v.is_some());
        let as_blob = |b: &Option<(Value, bool)>| {
            b.as_ref().map(|(v, inc)| match v {
                Value::Text(t) => (Value::Blob(t.as_bytes().to_vec()), *inc),
                other => (other.clone(), *inc),
            })
        };
        // A LIKE / GLOB prefix's second pass, its bounds as blobs.
        let blob_bounds = (ranged && blobs_too).then(|| (as_blob(&lo_v), as_blob(&hi_v)));
        let mut ranges =
            Vec::with_capacity(prefixes.len() * (1 + usize::from(blob_bounds.is_some())));
        for prefix in prefixes {
            if !ranged {
                let hi = prefix_successor(&prefix);
                ranges.push((Bound::Included(prefix), hi));
                continue;
            }
            let col = cols[range_col];
            ranges.push(range_bounds(&prefix, col, lo_v.as_ref(), hi_v.as_ref()));
            if let Some((lo_b, hi_b)) = &blob_bounds {
                ranges.push(range_bounds(&prefix, col, lo_b.as_ref(), hi_b.as_ref()));
            }
        }
        Ok(ranges)
    }
}

/// How an index is probed: equality values per key column, a range on
/// the next, and whether the key alone answers the query.
#[derive(Clone, Copy)]
struct IndexProbe<'p> {
    eq: &'p [Vec<Expr>],
    affinities: &'p [Affinity],
    lo: Option<&'p (Expr, bool)>,
    hi: Option<&'p (Expr, bool)>,
    /// A LIKE / GLOB prefix's range: scanned again with its bounds as blobs.
    blobs_too: bool,
}

/// Writes a row rebuilt from an index key (covering scans) into `dst`:
/// the indexed columns (their column affinity restores the storage class
/// the key folds, 2 vs 2.0) and the rowid; other slots are left alone, and
/// stay NULL (the query does not read them).
fn key_into_row(
    table: &Table,
    index: &Index,
    cols: &[KeyColumn],
    key: &[u8],
    rowid: i64,
    dst: &mut [Value],
) -> Result<()> {
    let n = table.columns.len();
    let (values, _) = keycode::split_index_key(key)?;
    keycode::visit_key(values, cols, |i, v| {
        if let Some(c) = index.columns.get(i).and_then(|ic| ic.column) {
            dst[c] = apply_affinity(v, table.columns[c].affinity);
        }
    })?;
    if let Some(a) = table.rowid_alias {
        dst[a] = Value::Integer(rowid);
    }
    dst[n] = Value::Integer(rowid);
    Ok(())
}

/// What a join level keeps between probes: its source rows (when they do
/// not depend on the outer rows) and its hash table.
#[derive(Clone, Debug, Default)]
pub(crate) struct LevelCache {
    pub rows: Option<Rc<Vec<Row>>>,
    pub hash: Option<JoinHash>,
    /// The probe key buffer, reused across probes.
    pub key: Vec<u8>,
    /// An index level's key columns, computed once.
    pub key_cols: Vec<KeyColumn>,
    /// A hash level whose table did not fit the batch limit: it uses its
    /// fallback path from then on.
    pub fallen_back: bool,
    /// A table scan's filters read from the stored rows, built once.
    pub checks: Option<IntChecks>,
    /// Its filters comparing a text column with a text constant, the same way.
    pub text_checks: Option<TextChecks>,
    /// A RIGHT / FULL join's operand: the rows (by their last slot) an ON
    /// condition matched so far.
    pub matched: Option<FastSet<i64>>,
}

/// The filters of a scanned level that compare integer expressions of its
/// stored columns and constants (literals, parameters, `+ - * / %`): each
/// row is tested on its record before it is decoded, and a row a filter
/// rejects is skipped. A row passes when an operand is not an integer
/// there (a column holding another type, overflow, division by zero): the
/// filter is then evaluated on the decoded row as usual. So only the case
/// `is_true` decides from the integers alone is decided here, the same way.
/// A check costs a walk of each row's header; a rejection saves decoding
/// the row and everything after it. The first rows of a scan try the
/// checks, and checks that reject fewer than a quarter of them are dropped
/// for the rest of the scan (the filters still decide every row).
#[derive(Clone, Debug, Default)]
pub(crate) struct IntChecks {
    checks: Vec<IntCheck>,
    /// The record positions the checks read, ascending; an operand's
    /// field is an index into it.
    fields: Vec<usize>,
    /// When every check compares the one field with a constant (`b < 100`,
    /// `7 = cat`, `x > 1 AND x <= 9`): the integers they all accept,
    /// `lo..=hi` (empty when `lo > hi`), tested in place of the checks.
    range: Option<(i64, i64)>,
    trial: Trial,
}

/// The first rows of a scan that try a level's record checks.
const TRIAL_ROWS: u32 = 256;

/// A scan's trial of its record checks ([`IntChecks`], [`TextChecks`]):
/// rows tried so far (up to [`TRIAL_ROWS`]) and those rejected.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Trial {
    tried: u32,
    rejected: u32,
}

impl Trial {
    /// Counts a tried row; false once the trial is over and its checks
    /// rejected fewer than a quarter of the rows: they cost more than
    /// they save, and are dropped.
    #[inline]
    pub(crate) fn keep(&mut self, rejected: bool) -> bool {
        if self.tried < TRIAL_ROWS {
            self.tried += 1;
            self.rejected += u32::from(rejected);
            if self.tried == TRIAL_ROWS && self.rejected * 4 < TRIAL_ROWS {
                return false;
            }
        }
        true
    }
}

/// The terms a scanned level's record checks may use: a LEFT JOIN's
/// candidate that fails a filter still matched (its NULL row is not
/// produced), so only its ON terms may skip it.
pub(crate) fn checked_terms<'a>(level: &'a Level, item: &FromItem) -> &'a [Expr] {
    if item.left_join {
        &level.on
    } else {
        &level.filters
    }
}

/// The record position of row slot `index` when it is one of `item`'s
/// stored columns (not the rowid alias, which the record holds as NULL).
/// Slots of the items bound before it lie below its offset.
pub(crate) fn stored_field(item: &FromItem, table: &Table, index: usize) -> Option<usize> {
    index
        .checked_sub(item.offset)
        .filter(|&f| f < table.columns.len() && table.rowid_alias != Some(f))
}

#[derive(Clone, Debug)]
struct IntCheck {
    op: BinaryOp,
    left: IntOperand,
    right: IntOperand,
}

#[derive(Clone, Debug)]
enum IntOperand {
    Field(usize),
    Constant(i64),
    Arith(ArithOp, Box<IntOperand>, Box<IntOperand>),
}

/// At most this many distinct columns are read (on the stack, per row).
const MAX_CHECKED_FIELDS: usize = 8;

impl IntChecks {
    fn new(cx: &ExecCtx, level: &Level, item: &FromItem, table: &Table) -> IntChecks {
        let field = |index: usize| stored_field(item, table, index);
        let mut checks: Vec<IntCheck> = checked_terms(level, item)
            .iter()
            .filter_map(|t| {
                let Expr::Compare {
                    op, left, right, ..
                } = t
                else {
                    return None;
                };
                if !is_comparison(*op) {
                    return None;
                }
                let left = IntOperand::of(left, &field, cx)?;
                let right = IntOperand::of(right, &field, cx)?;
                Some(IntCheck {
                    op: *op,
                    left,
                    right,
                })
            })
            .collect();
        let mut fields = Vec::new();
        for c in &checks {
            c.left.fields(&mut fields);
            c.right.fields(&mut fields);
        }
        fields.sort_unstable();
        fields.dedup();
        if fields.is_empty() || fields.len() > MAX_CHECKED_FIELDS {
            return IntChecks::default();
        }
        for c in &mut checks {
            c.left.number_fields(&fields);
            c.right.number_fields(&fields);
        }
        let range = if fields.len() == 1 {
            accepted_range(&checks)
        } else {
            None
        };
        IntChecks {
            checks,
            fields,
            range,
            trial: Trial::default(),
        }
    }

    /// Whether a check rejects the row stored as `record`.
    #[inline]
    fn reject(&mut self, record: &[u8]) -> bool {
        if self.checks.is_empty() {
            return false;
        }
        let rejected = if let [column] = self.fields.as_slice() {
            let value = record::integer_field(record, *column);
            match self.range {
                Some((lo, hi)) => value.is_some_and(|v| v < lo || v > hi),
                None => self.decide(&[value]),
            }
        } else {
            let mut values = [None; MAX_CHECKED_FIELDS];
            let values = &mut values[..self.fields.len()];
            record::integer_fields(record, &self.fields, values);
            self.decide(values)
        };
        if !self.trial.keep(rejected) {
            self.checks.clear();
        }
        rejected
    }

    /// Whether a check is false given the checked fields' integers.
    #[inline(always)]
    fn decide(&self, values: &[Option<i64>]) -> bool {
        self.checks.iter().any(|c| {
            let (Some(x), Some(y)) = (c.left.value(values), c.right.value(values)) else {
                return false;
            };
            integer_truth(c.op, x, y) == Some(false)
        })
    }
}

/// The integers every one of `checks` accepts, `lo..=hi`, when each
/// compares the one field with a constant (see [`IntCheck::accepted`]).
fn accepted_range(checks: &[IntCheck]) -> Option<(i64, i64)> {
    checks.iter().try_fold((i64::MIN, i64::MAX), |(lo, hi), c| {
        let (lo2, hi2) = c.accepted()?;
        Some((lo.max(lo2), hi.min(hi2)))
    })
}

impl IntCheck {
    /// The integers this check accepts, `lo..=hi`, when it compares the
    /// (one) field with a constant by an ordering or an equality.
    fn accepted(&self) -> Option<(i64, i64)> {
        let (op, c) = match (&self.left, &self.right) {
            (IntOperand::Field(_), IntOperand::Constant(c)) => (self.op, *c),
            (IntOperand::Constant(c), IntOperand::Field(_)) => (self.op.flipped(), *c),
            _ => return None,
        };
        // An empty range is (MAX, MIN): below MIN or above MAX accepts none.
        Some(match op {
            BinaryOp::Eq | BinaryOp::Is => (c, c),
            BinaryOp::Lt => c
                .checked_sub(1)
                .map_or((i64::MAX, i64::MIN), |h| (i64::MIN, h)),
            BinaryOp::Le => (i64::MIN, c),
            BinaryOp::Gt => c
                .checked_add(1)
                .map_or((i64::MAX, i64::MIN), |l| (l, i64::MAX)),
            BinaryOp::Ge => (c, i64::MAX),
            _ => return None,
        })
    }
}

impl IntOperand {
    /// `e` as an operand, when it is one; `field` maps a row slot to the
    /// record position of a stored column of the scanned table.
    fn of(e: &Expr, field: &dyn Fn(usize) -> Option<usize>, cx: &ExecCtx) -> Option<IntOperand> {
        Some(match e {
            Expr::Column { level: 0, index } => IntOperand::Field(field(*index)?),
            Expr::Literal(Value::Integer(i)) => IntOperand::Constant(*i),
            Expr::Param(p) => match cx.params.get(*p)? {
                Value::Integer(i) => IntOperand::Constant(*i),
                _ => return None,
            },
            Expr::Arith { op, left, right } => IntOperand::Arith(
                *op,
                Box::new(IntOperand::of(left, field, cx)?),
                Box::new(IntOperand::of(right, field, cx)?),
            ),
            _ => return None,
        })
    }

    /// Adds the record positions the operand reads to `out`.
    fn fields(&self, out: &mut Vec<usize>) {
        match self {
            IntOperand::Field(c) => out.push(*c),
            IntOperand::Constant(_) => {}
            IntOperand::Arith(_, l, r) => {
                l.fields(out);
                r.fields(out);
            }
        }
    }

    /// Replaces each record position by its index in `fields`.
    fn number_fields(&mut self, fields: &[usize]) {
        match self {
            IntOperand::Field(c) => *c = fields.binary_search(c).unwrap_or(0),
            IntOperand::Constant(_) => {}
            IntOperand::Arith(_, l, r) => {
                l.number_fields(fields);
                r.number_fields(fields);
            }
        }
    }

    /// The operand's integer, as `is_true` computes it from the decoded
    /// row, given the record's integers; `None` when that is not an integer.
    #[inline(always)]
    fn value(&self, values: &[Option<i64>]) -> Option<i64> {
        match self {
            IntOperand::Field(i) => values.get(*i).copied().flatten(),
            IntOperand::Constant(i) => Some(*i),
            IntOperand::Arith(op, l, r) => arith_value(*op, l, r, values),
        }
    }
}

fn arith_value(op: ArithOp, l: &IntOperand, r: &IntOperand, values: &[Option<i64>]) -> Option<i64> {
    match op.exact(l.value(values)?, r.value(values)?)? {
        Value::Integer(i) => Some(i),
        _ => None,
    }
}

/// A hash join's table: the row numbers of each build key.
#[derive(Clone, Debug)]
pub(crate) enum JoinHash {
    /// One build column holding only integers (and NULLs, left out): the
    /// rows of key `k` are `rows[at..at + n]` for `spans[k] = (at, n)`, in
    /// row order. No key bytes, one lookup per probe.
    Ints {
        spans: FastMap<i64, (u32, u32)>,
        rows: Vec<usize>,
    },
    /// Any other build: the rows by their encoded key ([`hash_rows`]).
    Keys(FastMap<Vec<u8>, Vec<usize>>),
}

impl JoinHash {
    fn build(rows: &[Row], build: &[usize], collations: &[Collation]) -> JoinHash {
        if let [c] = build {
            let ints = rows
                .iter()
                .all(|r| matches!(r[*c], Value::Integer(_) | Value::Null));
            if ints && rows.len() < u32::MAX as usize {
                let mut pairs: Vec<(i64, usize)> = rows
                    .iter()
                    .enumerate()
                    .filter_map(|(i, r)| match r[*c] {
                        Value::Integer(k) => Some((k, i)),
                        _ => None,
                    })
                    .collect();
                pairs.sort_unstable();
                let mut spans = FastMap::default();
                for (at, &(k, _)) in pairs.iter().enumerate() {
                    spans
                        .entry(k)
                        .and_modify(|e: &mut (u32, u32)| e.1 += 1)
                        .or_insert((at as u32, 1));
                }
                let rows = pairs.into_iter().map(|(_, i)| i).collect();
                return JoinHash::Ints { spans, rows };
            }
        }
        JoinHash::Keys(hash_rows(rows, build, collations))
    }
}

/// The integer a probe value equals, SQLite's way: an integer, or a real
/// with exactly that value. Anything else (NULL, a fraction, text, blob)
/// equals no integer key.
fn int_key(v: &Value) -> Option<i64> {
    match *v {
        Value::Integer(i) => Some(i),
        // In range (the upper bound is 2^63 exactly), integral, and exact
        // after the round trip.
        Value::Real(r) if r.fract() == 0.0 && r >= i64::MIN as f64 && r < -(i64::MIN as f64) => {
            let i = r as i64;
            (i as f64 == r).then_some(i)
        }
        _ => None,
    }
}

/// Hashes rows by the key of their `build` columns (NULL keys left out:
/// they never equal anything).
fn hash_rows(
    rows: &[Row],
    build: &[usize],
    collations: &[Collation],
) -> FastMap<Vec<u8>, Vec<usize>> {
    // The keys are the database's own values: at worst a crafted column
    // slows this map down (see `fasthash`), never changes a result.
    let mut map: FastMap<Vec<u8>, Vec<usize>> = FastMap::default();
    'rows: for (i, r) in rows.iter().enumerate() {
        let mut key = Vec::new();
        for (&c, coll) in build.iter().zip(collations) {
            if r[c].is_null() {
                continue 'rows;
            }
            keycode::append_value(
                &mut key,
                &r[c],
                KeyColumn {
                    desc: false,
                    collation: *coll,
                },
            );
        }
        map.entry(key).or_default().push(i);
    }
    map
}

/// Key bounds for `prefix` + a range on the next column.
fn range_bounds(
    prefix: &[u8],
    col: KeyColumn,
    lo: Option<&(Value, bool)>,
    hi: Option<&(Value, bool)>,
) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let enc = |v: &Value| {
        let mut k = prefix.to_vec();
        keycode::append_value(&mut k, v, col);
        k
    };
    // In key order, a DESC column's lower value bound is an upper key bound.
    let (key_lo, key_hi) = if col.desc { (hi, lo) } else { (lo, hi) };
    let lo_k = match key_lo {
        None => Bound::Included(prefix.to_vec()),
        Some((v, inc)) => {
            let k = enc(v);
            if *inc {
                Bound::Included(k)
            } else {
                match prefix_successor(&k) {
                    Bound::Excluded(s) => Bound::Included(s),
                    other => other,
                }
            }
        }
    };
    let hi_k = match key_hi {
        None => prefix_successor(prefix),
        Some((v, inc)) => {
            let k = enc(v);
            if *inc {
                prefix_successor(&k)
            } else {
                Bound::Excluded(k)
            }
        }
    };
    (lo_k, hi_k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_range_rejects_exactly_what_the_checks_reject() {
        // Every set of up to three checks of one field against constants
        // near the edges, the constant on either side: the range stands in
        // for `decide` on every value near those edges (and NULL).
        let ops = [
            BinaryOp::Eq,
            BinaryOp::Is,
            BinaryOp::Ne,
            BinaryOp::Lt,
            BinaryOp::Le,
            BinaryOp::Gt,
            BinaryOp::Ge,
        ];
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            -2,
            -1,
            0,
            1,
            2,
            i64::MAX - 1,
            i64::MAX,
        ];
        let check = |k: usize| {
            let (op, c, flip) = (ops[k % 7], edges[k / 7 % 9], k / 63 % 2 == 1);
            let (f, c) = (IntOperand::Field(0), IntOperand::Constant(c));
            let (left, right) = if flip { (c, f) } else { (f, c) };
            IntCheck { op, left, right }
        };
        let mut ranged = 0;
        for n in 1..=3u32 {
            for mut k in 0..126usize.pow(n) {
                let mut checks = Vec::new();
                for _ in 0..n {
                    checks.push(check(k % 126));
                    k /= 126;
                }
                let Some((lo, hi)) = accepted_range(&checks) else {
                    assert!(checks.iter().any(|c| matches!(c.op, BinaryOp::Ne)));
                    continue;
                };
                ranged += 1;
                let ic = IntChecks {
                    checks,
                    fields: vec![0],
                    range: None,
                    trial: Trial::default(),
                };
                for v in edges.iter().map(|&e| Some(e)).chain([None]) {
                    let by_range = v.is_some_and(|v| v < lo || v > hi);
                    assert_eq!(by_range, ic.decide(&[v]), "{:?} at {v:?}", ic.checks);
                }
            }
        }
        assert!(ranged > 1_000_000, "{ranged} sets ranged");
    }

    #[test]
    fn int_keys_follow_sqlite_equality() {
        assert_eq!(int_key(&Value::Integer(-7)), Some(-7));
        assert_eq!(int_key(&Value::Real(5.0)), Some(5));
        assert_eq!(int_key(&Value::Real(-0.0)), Some(0));
        assert_eq!(int_key(&Value::Real(5.5)), None);
        assert_eq!(int_key(&Value::Real(f64::INFINITY)), None);
        assert_eq!(int_key(&Value::Real(-(i64::MIN as f64))), None);
        assert_eq!(int_key(&Value::Real(i64::MIN as f64)), Some(i64::MIN));
        assert_eq!(int_key(&Value::Text("5".into())), None);
        assert_eq!(int_key(&Value::Null), None);
    }

    #[test]
    fn integer_builds_keep_row_order_per_key_and_others_use_keys() {
        let rows: Vec<Row> = [3, 1, 3, 2, 3]
            .iter()
            .map(|&k| vec![Value::Integer(k)])
            .chain([vec![Value::Null]])
            .collect();
        let JoinHash::Ints { spans, rows: order } =
            JoinHash::build(&rows, &[0], &[Collation::Binary])
        else {
            panic!("an integer column builds the integer table");
        };
        let (at, n) = spans[&3];
        assert_eq!(&order[at as usize..(at + n) as usize], &[0, 2, 4]);
        assert!(!spans.contains_key(&0));
        let mixed = vec![vec![Value::Integer(1)], vec![Value::Real(1.5)]];
        assert!(matches!(
            JoinHash::build(&mixed, &[0], &[Collation::Binary]),
            JoinHash::Keys(_)
        ));
    }
}
