//! Writing table rows and their index entries, and the checks a row must
//! pass first: NOT NULL, CHECK, UNIQUE / PRIMARY KEY (with the conflicting
//! rows found for OR REPLACE / upsert) and FOREIGN KEY, with SQLite's error
//! messages.
//!
//! A [`TableWriter`] is built once per statement plan (and kept by a
//! prepared statement while the catalog version holds): it binds the
//! table's index expressions, partial-index predicates and CHECKs over a
//! one-table row layout (columns, then rowid), and notes whether any
//! foreign key references the table.

use std::cell::Cell;
use std::ops::Bound;
use std::rc::Rc;

use super::eval::Env;
use super::keysort::KeyBatch;
use super::kv::Kv;
use super::pending::PendingInserts;
use super::scan::{
    decode_into, index_key, index_key_rowid, index_prefix_range, key_columns, push_index_key,
    read_table_row, Row, Wanted,
};
use super::ExecCtx;
use crate::sql::ast::ConflictResolution;
use crate::sql::binder::expr::{contains_subquery, AggCtx};
use crate::sql::binder::scope::{Scope, ScopeColumn, ScopeItem};
use crate::sql::binder::Binder;
use crate::sql::catalog::{Catalog, Index, Table};
use crate::sql::keycode::{self, KeyColumn};
use crate::sql::planner::plan::Expr;
use crate::sql::record;
use crate::sql::value::{apply_affinity, Value};
use crate::{ConstraintKind, Error, Result};

/// Bound expressions of one index over the one-table row layout.
#[derive(Debug)]
pub(crate) struct IndexPlan {
    pub index: Rc<Index>,
    pub exprs: Vec<Expr>,
    pub predicate: Option<Expr>,
    pub cols: Vec<KeyColumn>,
    /// The row slots the key and predicate read (the rowid's included):
    /// an update that leaves them all as they were leaves the entry.
    pub reads: Vec<usize>,
}

/// The scope item of a table alone (columns at slots 0.., rowid last).
pub(crate) fn table_scope_item(table: &Table, name: &str) -> ScopeItem {
    ScopeItem {
        name: name.to_string(),
        columns: table
            .columns
            .iter()
            .map(|c| ScopeColumn {
                name: c.name.clone(),
                affinity: Some(c.affinity),
                collation: c.collation,
                decl_type: c.decl_type.clone(),
                hidden: false,
                shadowed: false,
            })
            .collect(),
        offset: 0,
        rowid: table.rowid_visible().then_some(table.columns.len()),
        json_each: false,
        hidden_columns: 0,
    }
}

/// Binds a table's generated columns over its row (which they read
/// without its rowid), each after the generated columns it reads; a cycle
/// is SQLite's "generated column loop" error.
pub(crate) fn generated_plan(cat: &Catalog, table: &Table) -> Result<Vec<(usize, Expr)>> {
    let mut pending = Vec::new();
    let mut item = table_scope_item(table, &table.name);
    item.rowid = None;
    let scope = Scope::new(vec![item], None);
    let mut binder = Binder::new(cat);
    for (i, c) in table.columns.iter().enumerate() {
        if let Some(g) = &c.generated {
            let mut agg = AggCtx::default();
            pending.push((i, binder.bind_plain(&g.expr, &scope, &mut agg)?));
        }
    }
    let mut ready: Vec<bool> = table
        .columns
        .iter()
        .map(|c| c.generated.is_none())
        .collect();
    let mut order = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let next = pending.iter().position(|(_, e)| {
            let mut inputs_ready = true;
            crate::sql::planner::plan::local_slots(e, &mut |s| {
                inputs_ready &= ready.get(s).copied().unwrap_or(true)
            });
            inputs_ready
        });
        let Some(k) = next else {
            let (i, _) = pending[pending.len() - 1];
            return Err(crate::sql_err!(
                "generated column loop on \"{}\"",
                table.columns[i].name
            ));
        };
        let (i, e) = pending.remove(k);
        ready[i] = true;
        order.push((i, e));
    }
    Ok(order)
}

/// Binds an index's key expressions and predicate.
pub(crate) fn index_plan(cat: &Catalog, table: &Table, index: &Rc<Index>) -> Result<IndexPlan> {
    let scope = Scope::new(vec![table_scope_item(table, &table.name)], None);
    let mut binder = Binder::new(cat);
    let mut agg = AggCtx::default();
    let mut exprs = Vec::with_capacity(index.columns.len());
    for c in &index.columns {
        exprs.push(match c.column {
            Some(i) => Expr::Column { level: 0, index: i },
            None => binder.bind_plain(&c.expr, &scope, &mut agg)?,
        });
    }
    let predicate = match &index.predicate {
        Some(p) => Some(binder.bind_plain(p, &scope, &mut agg)?),
        None => None,
    };
    let mut reads = vec![table.columns.len()];
    for e in exprs.iter().chain(predicate.iter()) {
        crate::sql::planner::plan::local_slots(e, &mut |slot| reads.push(slot));
    }
    reads.sort_unstable();
    reads.dedup();
    Ok(IndexPlan {
        index: index.clone(),
        exprs,
        predicate,
        cols: key_columns(index),
        reads,
    })
}

/// The message of a UNIQUE violation of `index`.
pub(crate) fn unique_message(table: &Table, index: &Index) -> String {
    if index.columns.iter().all(|c| c.column.is_some()) {
        let cols: Vec<String> = index
            .columns
            .iter()
            .filter_map(|c| c.column)
            .map(|i| format!("{}.{}", table.name, table.columns[i].name))
            .collect();
        format!("UNIQUE constraint failed: {}", cols.join(", "))
    } else {
        format!("UNIQUE constraint failed: index '{}'", index.name)
    }
}

fn constraint(kind: ConstraintKind, message: String) -> Error {
    Error::Constraint { kind, message }
}

/// Everything needed to write rows of one table.
pub(crate) struct TableWriter {
    pub table: Rc<Table>,
    pub indexes: Vec<IndexPlan>,
    pub checks: Vec<(String, Expr)>,
    /// A CHECK constraint has a subquery (only tables created before such
    /// checks were refused): checking a row may read an index.
    pub checks_read_tables: bool,
    /// Some table's FOREIGN KEY names this one as its parent (deleting or
    /// changing a row may need foreign key actions).
    pub referenced: bool,
    /// The DEFAULT of each column, bound (`None` without one, and for
    /// the INTEGER PRIMARY KEY, which takes a new rowid instead): what an
    /// INSERT leaving the column out writes, and what REPLACE puts in
    /// place of a NULL in a NOT NULL column.
    pub defaults: Vec<Option<Expr>>,
    /// The generated columns' expressions ([`generated_plan`]).
    generated: Vec<(usize, Expr)>,
    /// The rowid or a UNIQUE constraint says `ON CONFLICT REPLACE`: a
    /// write may delete the rows it conflicts with.
    replaces: bool,
    /// Set by a constraint failure whose algorithm is FAIL or ROLLBACK
    /// right before its error is returned, which goes straight up to the
    /// statement's row loop; the loop takes it with [`Self::halted`].
    /// Nothing between the two can catch the error (an error that OR
    /// IGNORE swallows never sets it), so it is never stale.
    halt: Cell<Option<Halt>>,
    /// The table's DELETE triggers as REPLACE fires them (recursive_triggers
    /// ON; their statements under OR REPLACE), found and planned once per
    /// writer, when a REPLACE first deletes a row ([`Self::replace_triggers`]).
    replace_triggers: std::cell::OnceCell<Option<super::trigger::Triggers>>,
    /// The buffer `put_row` encodes rows into, kept from row to row (and
    /// with the plan of a prepared statement) while at most
    /// [`RECORD_BUFFER_KEPT`] bytes.
    record: Cell<Vec<u8>>,
}

/// The largest row buffer a writer keeps between rows.
const RECORD_BUFFER_KEPT: usize = 16 << 10;

/// How a failing row ends its statement (SQLite's conflict algorithms):
/// ABORT undoes the statement and keeps the transaction, as any error
/// does; FAIL, only for a constraint failure under it, keeps what the
/// statement wrote before the failing row; ROLLBACK undoes the whole
/// transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Halt {
    Abort,
    Fail,
    Rollback,
}

impl Halt {
    fn of(alg: Option<ConflictResolution>) -> Option<Halt> {
        match alg {
            Some(ConflictResolution::Fail) => Some(Halt::Fail),
            Some(ConflictResolution::Rollback) => Some(Halt::Rollback),
            _ => None,
        }
    }
}

/// Index entries waiting to be removed or inserted, per index
/// ([`TableWriter::delete_deferred`], [`TableWriter::replace`] with a
/// queue): applied in key order by [`TableWriter::apply_queued`].
#[derive(Default)]
pub(crate) struct IndexQueue {
    removals: Vec<KeyBatch>,
    insertions: Vec<KeyBatch>,
}

impl IndexQueue {
    /// The removals and the insertions of index `i` of `indexes`.
    fn batches(&mut self, indexes: usize, i: usize) -> (&mut KeyBatch, &mut KeyBatch) {
        self.removals.resize_with(indexes, KeyBatch::default);
        self.insertions.resize_with(indexes, KeyBatch::default);
        (&mut self.removals[i], &mut self.insertions[i])
    }

    /// The memory the queued keys take.
    fn memory(&self) -> usize {
        self.removals
            .iter()
            .chain(&self.insertions)
            .map(KeyBatch::memory)
            .sum()
    }
}

/// Queued index keys are applied once they take this much memory (a
/// sixteenth of the default batch limit), so a huge statement holds a
/// bounded queue.
const INDEX_QUEUE_BYTES: usize = 1 << 20;

/// `indexes` (in the order they were created) in the order SQLite checks
/// their uniqueness: its list of a table's indexes, where each new index
/// goes first, except that one whose conflict clause is REPLACE goes after
/// the ones at the front that are not (`sqlite3CreateIndex`). So the
/// newest constraint is checked first and REPLACE ones last, and when a
/// row breaks several constraints with different algorithms, the same one
/// decides as in SQLite.
fn check_order(indexes: Vec<Rc<Index>>) -> Vec<Rc<Index>> {
    let replaces = |ix: &Rc<Index>| ix.on_conflict == Some(ConflictResolution::Replace);
    // Insertion keeps this small (`sort_by_key` adds kilobytes of wasm).
    let mut created: Vec<(u64, Rc<Index>)> = Vec::with_capacity(indexes.len());
    for ix in indexes {
        let when = ix.created();
        let at = created.partition_point(|(w, _)| *w <= when);
        created.insert(at, (when, ix));
    }
    let mut order: Vec<Rc<Index>> = Vec::with_capacity(created.len());
    for (_, ix) in created {
        let at = match order.first() {
            Some(head) if replaces(&ix) && !replaces(head) => {
                order.iter().position(replaces).unwrap_or(order.len())
            }
            _ => 0,
        };
        order.insert(at, ix);
    }
    order
}

/// A uniqueness conflict: which constraint, and the rowid of the row
/// already holding the key.
#[derive(Debug)]
pub(crate) struct Conflict {
    /// Index into `TableWriter::indexes`, or `None` for the rowid.
    pub index: Option<usize>,
    pub rowid: i64,
}

impl TableWriter {
    pub(crate) fn new(cat: &Catalog, table: &Rc<Table>) -> Result<TableWriter> {
        let indexes = check_order(cat.table_indexes(&table.name))
            .iter()
            .map(|ix| index_plan(cat, table, ix))
            .collect::<Result<Vec<_>>>()?;
        let scope = Scope::new(vec![table_scope_item(table, &table.name)], None);
        let mut binder = Binder::new(cat);
        let mut agg = AggCtx::default();
        let mut checks = Vec::new();
        for (name, e, _) in &table.checks {
            let bound = binder.bind_plain(e, &scope, &mut agg)?;
            let label = name.clone().unwrap_or_else(|| check_text(e));
            checks.push((label, bound));
        }
        let referenced = cat.tables.values().any(|t| {
            t.foreign_keys
                .iter()
                .any(|fk| fk.parent.eq_ignore_ascii_case(&table.name))
        });
        let checks_read_tables = table.checks.iter().any(|(_, e, _)| contains_subquery(e));
        let no_scope = Scope::new(Vec::new(), None);
        let defaults = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| match &c.default {
                Some(d) if Some(i) != table.rowid_alias => {
                    Ok(Some(binder.bind_plain(d, &no_scope, &mut agg)?))
                }
                _ => Ok(None),
            })
            .collect::<Result<Vec<_>>>()?;
        let generated = generated_plan(cat, table)?;
        let replace = Some(ConflictResolution::Replace);
        let replaces = table.rowid_conflict == replace
            || indexes.iter().any(|p| p.index.on_conflict == replace);
        Ok(TableWriter {
            table: table.clone(),
            indexes,
            checks,
            checks_read_tables,
            referenced,
            defaults,
            generated,
            replaces,
            halt: Cell::new(None),
            replace_triggers: std::cell::OnceCell::new(),
            record: Cell::new(Vec::new()),
        })
    }

    /// True when a statement with conflict clause `or` may delete rows
    /// that conflict with the ones it writes (REPLACE, from the statement
    /// or a constraint's `ON CONFLICT`).
    pub(crate) fn may_replace(&self, or: Option<ConflictResolution>) -> bool {
        match or {
            Some(or) => or == ConflictResolution::Replace,
            None => self.replaces,
        }
    }

    /// The algorithm that resolves a uniqueness conflict on index `index`
    /// of [`Self::indexes`] (`None`: the rowid) under the statement's
    /// clause `or`: the statement's, else the constraint's `ON CONFLICT`,
    /// else ABORT (SQLite's rule).
    pub(crate) fn resolution(
        &self,
        index: Option<usize>,
        or: Option<ConflictResolution>,
    ) -> ConflictResolution {
        let own = match index {
            None => self.table.rowid_conflict,
            Some(i) => self.indexes[i].index.on_conflict,
        };
        or.or(own).unwrap_or(ConflictResolution::Abort)
    }

    /// The DELETE triggers a REPLACE fires for the rows it deletes
    /// (`None` when the table has none).
    pub(crate) fn replace_triggers(&self, cat: &Catalog) -> Option<&super::trigger::Triggers> {
        self.replace_triggers
            .get_or_init(|| {
                let replace = Some(ConflictResolution::Replace);
                let event = super::trigger::Event::Delete;
                super::trigger::Triggers::of(cat, &self.table, event, &[], replace)
            })
            .as_ref()
    }

    /// Notes that a constraint failure under algorithm `alg` is about to
    /// be returned (see [`Self::halt`]).
    pub(crate) fn halt_on(&self, alg: Option<ConflictResolution>) {
        self.halt.set(Halt::of(alg));
    }

    /// A row's error `e` with how it stops the statement: by the
    /// algorithm of the constraint failure that raised it, or of a
    /// trigger's RAISE(FAIL | ROLLBACK) (for the statement outside every
    /// trigger, which it stops), else ABORT.
    pub(crate) fn halted(&self, e: Error) -> (Halt, Error) {
        let raised = super::trigger::take_halt();
        (self.halt.take().or(raised).unwrap_or(Halt::Abort), e)
    }

    /// Computes `row`'s generated columns from its other columns, each
    /// with its column's affinity.
    pub(crate) fn compute_generated(&self, ctx: &ExecCtx, row: &mut [Value]) -> Result<()> {
        for (i, e) in &self.generated {
            let v = ctx.eval(e, &Env::new(row, None))?;
            row[*i] = apply_affinity(v, self.table.columns[*i].affinity);
        }
        Ok(())
    }

    /// Readies `row` for writing under the statement's clause `or`: its
    /// generated columns computed, NULLs in NOT NULL columns resolved
    /// ([`Self::resolve_nulls`]), then CHECKs. False when the row is skipped:
    /// by IGNORE on a NULL, or by the statement's OR IGNORE on a failed check
    /// (SQLite's rule; a CHECK fails the statement under every other
    /// algorithm, REPLACE as ABORT).
    pub(crate) fn admit(
        &self,
        ctx: &ExecCtx,
        row: &mut [Value],
        or: Option<ConflictResolution>,
    ) -> Result<bool> {
        self.compute_generated(ctx, row)?;
        if !self.resolve_nulls(ctx, row, or)? {
            return Ok(false);
        }
        self.check_types(row)?;
        match self.check_checks(ctx, row) {
            Err(_) if or == Some(ConflictResolution::Ignore) => Ok(false),
            Err(e) => {
                // A failed CHECK goes by the statement's clause; an error
                // evaluating one stops the statement as ABORT.
                if let Error::Constraint { .. } = e {
                    self.halt_on(or);
                }
                Err(e)
            }
            Ok(()) => Ok(true),
        }
    }

    /// Resolves the NULLs of NOT NULL columns in `row` as SQLite does,
    /// column by column: under IGNORE the row is skipped (`Ok(false)`);
    /// under REPLACE the column's DEFAULT takes the NULL's place (without
    /// a DEFAULT REPLACE acts as ABORT); under ABORT, FAIL and ROLLBACK
    /// the constraint fails. A NULL that a REPLACE's DEFAULT leaves fails
    /// only after every column, as ABORT, so a later column's IGNORE or
    /// failure decides first.
    pub(crate) fn resolve_nulls(
        &self,
        ctx: &ExecCtx,
        row: &mut [Value],
        or: Option<ConflictResolution>,
    ) -> Result<bool> {
        let mut left = None;
        for (i, c) in self.table.columns.iter().enumerate() {
            if !c.not_null || !row[i].is_null() || self.assigns_rowid(i) {
                continue;
            }
            match (or.or(c.not_null_conflict), &self.defaults[i]) {
                (Some(ConflictResolution::Ignore), _) => return Ok(false),
                (Some(ConflictResolution::Replace), Some(d)) => {
                    row[i] = apply_affinity(ctx.eval(d, &Env::new(&[], None))?, c.affinity);
                    if row[i].is_null() {
                        left.get_or_insert(i);
                    }
                }
                (alg, _) => {
                    self.halt_on(alg);
                    return Err(self.not_null_error(i));
                }
            }
        }
        match left {
            Some(i) => Err(self.not_null_error(i)),
            None => Ok(true),
        }
    }

    /// The key values of index `i` for `row`, or `None` when the row is
    /// outside a partial index.
    pub(crate) fn index_values(
        &self,
        ctx: &ExecCtx,
        i: usize,
        row: &[Value],
    ) -> Result<Option<Vec<Value>>> {
        index_values(ctx, &self.indexes[i], row)
    }

    /// NOT NULL and CHECK constraints; a violation is an error.
    pub(crate) fn check_row(&self, ctx: &ExecCtx, row: &[Value]) -> Result<()> {
        let first_null = self
            .table
            .columns
            .iter()
            .enumerate()
            .position(|(i, c)| c.not_null && row[i].is_null() && !self.assigns_rowid(i));
        if let Some(i) = first_null {
            return Err(self.not_null_error(i));
        }
        self.check_types(row)?;
        self.check_checks(ctx, row)
    }

    /// Whether a NULL in column `i` gets the next rowid: the INTEGER
    /// PRIMARY KEY's, except in a WITHOUT ROWID table (NOT NULL there).
    fn assigns_rowid(&self, i: usize) -> bool {
        Some(i) == self.table.rowid_alias && self.table.rowid_visible()
    }

    /// A STRICT table's column types ([`check_types`]).
    pub(crate) fn check_types(&self, row: &[Value]) -> Result<()> {
        check_types(&self.table, row)
    }

    /// The CHECK constraints; a violation is an error.
    fn check_checks(&self, ctx: &ExecCtx, row: &[Value]) -> Result<()> {
        let env = Env::new(row, None);
        for (label, e) in &self.checks {
            if ctx.eval(e, &env)?.is_true() == Some(false) {
                return Err(constraint(
                    ConstraintKind::Check,
                    format!("CHECK constraint failed: {label}"),
                ));
            }
        }
        Ok(())
    }

    /// The NOT NULL failure of column `i`.
    fn not_null_error(&self, i: usize) -> Error {
        let c = &self.table.columns[i];
        constraint(
            ConstraintKind::NotNull,
            format!("NOT NULL constraint failed: {}.{}", self.table.name, c.name),
        )
    }

    /// True when some index is UNIQUE (or a non-rowid PRIMARY KEY).
    pub(crate) fn has_unique(&self) -> bool {
        self.indexes.iter().any(|p| p.index.unique)
    }

    /// The uniqueness conflicts of a row with rowid `rowid` and index key
    /// values `index_vals` (one per index, `None` where the row has no
    /// entry or the caller knows the key did not change) against rows
    /// other than `own` (the row being updated): at most one per UNIQUE
    /// index, and the rowid's when `probe_rowid` (else the caller knows it
    /// is free, or checks it itself).
    pub(crate) fn find_conflicts(
        &self,
        kv: &dyn Kv,
        index_vals: &[Option<Vec<Value>>],
        rowid: i64,
        own: Option<i64>,
        probe_rowid: bool,
    ) -> Result<Vec<Conflict>> {
        let mut out = Vec::new();
        if probe_rowid
            && own != Some(rowid)
            && kv.get_with(&self.table.tree, &keycode::encode_rowid(rowid), &mut |_| {
                Ok(())
            })?
        {
            out.push(Conflict { index: None, rowid });
        }
        for (i, (plan, vals)) in self.indexes.iter().zip(index_vals).enumerate() {
            let Some(vals) = vals.as_ref().filter(|_| plan.index.unique) else {
                continue;
            };
            if vals.iter().any(Value::is_null) {
                continue;
            }
            let prefix = keycode::encode_key(vals, &plan.cols);
            let (lo, hi) = index_prefix_range(prefix);
            // Two entries at most: `own`'s and another (a UNIQUE index holds
            // one entry per key, except while a statement moves keys around).
            let mut seen = 0;
            let mut other = None;
            kv.visit(&plan.index.tree, lo, hi, false, &mut |k, _| {
                let id = index_key_rowid(k)?;
                seen += 1;
                if Some(id) != own {
                    other = Some(id);
                    return Ok(false);
                }
                Ok(seen < 2)
            })?;
            if let Some(rowid) = other {
                out.push(Conflict {
                    index: Some(i),
                    rowid,
                });
            }
        }
        Ok(out)
    }

    /// The error for a conflict.
    #[inline(never)]
    pub(crate) fn conflict_error(&self, c: &Conflict) -> Error {
        match c.index {
            None => {
                let col = match self.table.rowid_alias {
                    Some(a) => format!("{}.{}", self.table.name, self.table.columns[a].name),
                    None => format!("{}.rowid", self.table.name),
                };
                constraint(
                    ConstraintKind::PrimaryKey,
                    format!("UNIQUE constraint failed: {col}"),
                )
            }
            Some(i) => {
                let ix = &self.indexes[i].index;
                let kind = if ix.origin == crate::sql::catalog::IndexOrigin::PrimaryKey {
                    ConstraintKind::PrimaryKey
                } else {
                    ConstraintKind::Unique
                };
                constraint(kind, unique_message(&self.table, ix))
            }
        }
    }

    /// Writes a new row (`row` has every column then the rowid) and its
    /// index entries.
    /// With `pending`, the entries of indexes that are not UNIQUE wait
    /// there (see `exec::pending`).
    pub(crate) fn insert(
        &self,
        kv: &mut dyn Kv,
        index_vals: &[Option<Vec<Value>>],
        row: &[Value],
        pending: Option<&mut PendingInserts>,
    ) -> Result<()> {
        let (rowid, _) = self.put_row(kv, row)?;
        self.insert_entries(kv, index_vals, rowid, pending)
    }

    /// Inserts the index entries of row `rowid`, the ones of indexes that
    /// are not UNIQUE into `pending` while it has room.
    fn insert_entries(
        &self,
        kv: &mut dyn Kv,
        index_vals: &[Option<Vec<Value>>],
        rowid: i64,
        mut pending: Option<&mut PendingInserts>,
    ) -> Result<()> {
        for (i, (plan, vals)) in self.indexes.iter().zip(index_vals).enumerate() {
            let Some(v) = vals else { continue };
            let queued = match pending.as_deref_mut().filter(|_| !plan.index.unique) {
                Some(p) => p.push_with(i, |out| push_index_key(out, v, &plan.cols, rowid)),
                None => false,
            };
            if !queued {
                kv.insert(&plan.index.tree, &index_key(v, &plan.cols, rowid), &[])?;
            }
        }
        Ok(())
    }

    /// Writes a new row and its index entries, failing with the rowid's
    /// UNIQUE error (after writing the table entry: the caller's statement
    /// is rolled back) when a row already has its rowid.
    pub(crate) fn insert_new(
        &self,
        kv: &mut dyn Kv,
        index_vals: &[Option<Vec<Value>>],
        row: &[Value],
        pending: Option<&mut PendingInserts>,
    ) -> Result<()> {
        let (rowid, replaced) = self.put_row(kv, row)?;
        if replaced {
            return Err(self.conflict_error(&Conflict { index: None, rowid }));
        }
        self.insert_entries(kv, index_vals, rowid, pending)
    }

    /// Writes the table entry of `row` (every column, then the rowid),
    /// replacing any row with its rowid; returns the rowid and whether a
    /// row was replaced.
    fn put_row(&self, kv: &mut dyn Kv, row: &[Value]) -> Result<(i64, bool)> {
        let n = self.table.columns.len();
        let Value::Integer(rowid) = row[n] else {
            return Err(crate::sql_err!("internal: row without an integer rowid"));
        };
        // The INTEGER PRIMARY KEY column is stored as NULL (it is the key).
        // Encoded into the writer's buffer, which the store copies from.
        let mut buf = self.record.take();
        buf.clear();
        record::encode_masked_into(&row[..n], self.table.rowid_alias, &mut buf);
        let replaced = kv.insert(&self.table.tree, &keycode::encode_rowid(rowid), &buf);
        if buf.capacity() <= RECORD_BUFFER_KEPT {
            self.record.set(buf);
        }
        Ok((rowid, replaced?))
    }

    /// Replaces row `old` (rowid `old_id`, index values `old_vals`) by
    /// `new` (index values `new_vals`), touching only the index entries
    /// whose key changes. With a `queue`, the entries of indexes that are
    /// not UNIQUE wait there (see [`TableWriter::apply_queued`]); the
    /// caller makes sure nothing reads those indexes meanwhile. UNIQUE
    /// ones change now: later rows' conflict checks read them.
    pub(crate) fn replace(
        &self,
        kv: &mut dyn Kv,
        old_vals: &[Option<Vec<Value>>],
        old_id: i64,
        new_vals: &[Option<Vec<Value>>],
        new: &[Value],
        mut queue: Option<&mut IndexQueue>,
    ) -> Result<()> {
        let n = self.table.columns.len();
        let Value::Integer(new_id) = new[n] else {
            return Err(crate::sql_err!("internal: row without an integer rowid"));
        };
        if new_id != old_id {
            kv.remove(&self.table.tree, &keycode::encode_rowid(old_id))?;
        }
        self.put_row(kv, new)?;
        let n = self.indexes.len();
        for (i, ((plan, old), new)) in self.indexes.iter().zip(old_vals).zip(new_vals).enumerate() {
            let (old, new) = (old.as_deref(), new.as_deref());
            if old.is_none() && new.is_none() {
                continue;
            }
            match queue.as_deref_mut().filter(|_| !plan.index.unique) {
                Some(q) => {
                    let (removals, insertions) = q.batches(n, i);
                    if let Some(v) = old {
                        removals.push_with(|out| push_index_key(out, v, &plan.cols, old_id));
                    }
                    if let Some(v) = new {
                        insertions.push_with(|out| push_index_key(out, v, &plan.cols, new_id));
                    }
                    // The same key out and back in: the entry stays.
                    if old.is_some() && new.is_some() && removals.last() == insertions.last() {
                        removals.pop();
                        insertions.pop();
                    }
                }
                None => {
                    let old_key = old.map(|v| index_key(v, &plan.cols, old_id));
                    let new_key = new.map(|v| index_key(v, &plan.cols, new_id));
                    if old_key == new_key {
                        continue;
                    }
                    if let Some(k) = old_key {
                        kv.remove(&plan.index.tree, &k)?;
                    }
                    if let Some(k) = new_key {
                        kv.insert(&plan.index.tree, &k, &[])?;
                    }
                }
            }
        }
        match queue {
            Some(q) if q.memory() >= INDEX_QUEUE_BYTES => self.apply_queued(kv, q),
            _ => Ok(()),
        }
    }

    /// Removes a row and its index entries.
    pub(crate) fn delete(
        &self,
        kv: &mut dyn Kv,
        index_vals: &[Option<Vec<Value>>],
        rowid: i64,
    ) -> Result<()> {
        kv.remove(&self.table.tree, &keycode::encode_rowid(rowid))?;
        for (plan, vals) in self.indexes.iter().zip(index_vals) {
            if let Some(v) = vals {
                kv.remove(&plan.index.tree, &index_key(v, &plan.cols, rowid))?;
            }
        }
        Ok(())
    }

    /// Removes a row from the table now and queues its index entries in
    /// `queue` (keys computed from `index_vals`), removed in key order by
    /// [`TableWriter::remove_queued`]: a statement deleting many rows then
    /// walks each index once in order instead of jumping to a random leaf
    /// per row, and changes each leaf in one stretch (a transaction that
    /// spills writes it once, not again after each later change).
    pub(crate) fn delete_deferred(
        &self,
        kv: &mut dyn Kv,
        index_vals: &[Option<Vec<Value>>],
        rowid: i64,
        queue: &mut IndexQueue,
    ) -> Result<()> {
        kv.remove(&self.table.tree, &keycode::encode_rowid(rowid))?;
        let n = self.indexes.len();
        for (i, (plan, vals)) in self.indexes.iter().zip(index_vals).enumerate() {
            if let Some(v) = vals {
                let removals = queue.batches(n, i).0;
                removals.push_with(|out| push_index_key(out, v, &plan.cols, rowid));
            }
        }
        if queue.memory() >= INDEX_QUEUE_BYTES {
            self.apply_queued(kv, queue)?;
        }
        Ok(())
    }

    /// Applies the queued index changes, each index's in key order: first
    /// the removals, then the insertions. Their order within a statement
    /// does not matter: every key holds its row's rowid, and a row moved
    /// onto the rowid of a row still to be changed is a conflict (an error,
    /// or the row is skipped), so no key is inserted and later removed.
    pub(crate) fn apply_queued(&self, kv: &mut dyn Kv, queue: &mut IndexQueue) -> Result<()> {
        for (plan, keys) in self.indexes.iter().zip(&mut queue.removals) {
            kv.remove_sorted(&plan.index.tree, &keys.sorted_keys())?;
            keys.clear();
        }
        for (plan, keys) in self.indexes.iter().zip(&mut queue.insertions) {
            kv.insert_keys_sorted(&plan.index.tree, &keys.sorted_keys())?;
            keys.clear();
        }
        Ok(())
    }

    /// Every index's key values for `row`.
    pub(crate) fn all_index_values(&self, ctx: &ExecCtx, row: &[Value]) -> Result<IndexValues> {
        (0..self.indexes.len())
            .map(|i| self.index_values(ctx, i, row))
            .collect()
    }

    /// The key values, before and after an update from `old` to `new`
    /// (full rows, rowid last), of the indexes the update may change:
    /// those reading a slot whose value is not identical. Index
    /// expressions are deterministic, so an index whose inputs are all
    /// identical keeps its entry: `None` on both sides for it (as for an
    /// entry a partial index leaves out). Into `out`, whose lists a
    /// statement reuses from row to row.
    pub(crate) fn changed_index_values(
        &self,
        ctx: &ExecCtx,
        old: &[Value],
        new: &[Value],
        out: &mut ChangedValues,
    ) -> Result<()> {
        let n = self.indexes.len();
        out.before.resize_with(n, || None);
        out.after.resize_with(n, || None);
        let ChangedValues {
            before,
            after,
            spare,
        } = out;
        for ((plan, b), a) in self.indexes.iter().zip(before).zip(after) {
            if plan.reads.iter().any(|&c| !identical(&old[c], &new[c])) {
                let list = b.take().or_else(|| spare.pop()).unwrap_or_default();
                *b = index_values_in(ctx, plan, old, list)?;
                let list = a.take().or_else(|| spare.pop()).unwrap_or_default();
                *a = index_values_in(ctx, plan, new, list)?;
            } else {
                spare.extend(b.take());
                spare.extend(a.take());
            }
        }
        Ok(())
    }

    /// Reads the row with `rowid`.
    pub(crate) fn read(&self, kv: &dyn Kv, rowid: i64) -> Result<Option<Row>> {
        read_table_row(kv, &self.table, rowid)
    }

    /// The largest rowid in the table, if any.
    #[inline(never)]
    pub(crate) fn max_rowid(&self, kv: &dyn Kv) -> Result<Option<i64>> {
        let last = kv.scan(
            &self.table.tree,
            Bound::Unbounded,
            Bound::Unbounded,
            true,
            Some(1),
        )?;
        match last.first() {
            Some((k, _)) => Ok(Some(keycode::decode_rowid(k)?)),
            None => Ok(None),
        }
    }
}

/// Per index of a table (in `TableWriter::indexes` order), its key values
/// for one row, or `None` where the row has no entry to write or change.
pub(crate) type IndexValues = Vec<Option<Vec<Value>>>;

/// The key values of an index for `row`, or `None` outside a partial index.
pub(crate) fn index_values(
    ctx: &ExecCtx,
    plan: &IndexPlan,
    row: &[Value],
) -> Result<Option<Vec<Value>>> {
    index_values_in(ctx, plan, row, Vec::with_capacity(plan.exprs.len()))
}

/// [`index_values`] in `vals` (emptied first).
pub(crate) fn index_values_in(
    ctx: &ExecCtx,
    plan: &IndexPlan,
    row: &[Value],
    mut vals: Vec<Value>,
) -> Result<Option<Vec<Value>>> {
    let env = Env::new(row, None);
    if let Some(p) = &plan.predicate {
        if ctx.eval(p, &env)?.is_true() != Some(true) {
            return Ok(None);
        }
    }
    vals.clear();
    for e in &plan.exprs {
        vals.push(ctx.eval(e, &env)?);
    }
    Ok(Some(vals))
}

/// How [`visit_index_keys`] decodes a table's rows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowDecode {
    /// Only the columns the plans read: an index build.
    Read,
    /// Every column, so that a record that does not decode is found: a
    /// full check.
    All,
}

/// One pass over `ctx`'s table `table` in key order, making the key of
/// every entry of `plans` each row implies (in the row's order, plan by
/// plan): the bytes `prefix` writes for the plan's number, then the key.
/// One row and one key buffer are reused from row to row. `each` gets
/// the plan's number, the key and whether the entry counts for UNIQUE (no
/// NULL value); a row that does not decode goes to `bad_row`, whose error
/// ends the pass.
pub(crate) fn visit_index_keys(
    ctx: &ExecCtx,
    table: &Table,
    plans: &[IndexPlan],
    decode: RowDecode,
    prefix: &dyn Fn(usize, &mut Vec<u8>),
    bad_row: &mut dyn FnMut(Error) -> Result<()>,
    each: &mut KeySink<'_>,
) -> Result<()> {
    let n = table.columns.len();
    let mut used = vec![decode == RowDecode::All; n];
    for slot in plans.iter().flat_map(|p| &p.reads) {
        if let Some(u) = used.get_mut(*slot) {
            *u = true;
        }
    }
    let wanted = Wanted::new(table, Some(&used));
    let mut row = vec![Value::Null; n + 1];
    let mut vals = Vec::new();
    let mut key = Vec::new();
    ctx.kv.visit(
        &table.tree,
        Bound::Unbounded,
        Bound::Unbounded,
        false,
        &mut |k, v| {
            if let Err(e) = decode_into(table, &wanted, k, v, &mut row) {
                bad_row(e)?;
                return Ok(true);
            }
            let Value::Integer(rowid) = row[n] else {
                return Ok(true);
            };
            for (i, plan) in plans.iter().enumerate() {
                let taken = std::mem::take(&mut vals);
                if let Some(got) = index_values_in(ctx, plan, &row, taken)? {
                    key.clear();
                    prefix(i, &mut key);
                    push_index_key(&mut key, &got, &plan.cols, rowid);
                    each(i, &key, !got.iter().any(Value::is_null))?;
                    vals = got;
                }
            }
            Ok(true)
        },
    )
}

/// The index values before and after one row's update
/// ([`TableWriter::changed_index_values`]), with the lists of earlier rows
/// kept for the next: an UPDATE of many rows allocates them once.
#[derive(Debug, Default)]
pub(crate) struct ChangedValues {
    pub(crate) before: IndexValues,
    pub(crate) after: IndexValues,
    /// Lists no index needs now, for the next row's values (emptied as
    /// they are reused).
    spare: Vec<Vec<Value>>,
}

/// A CHECK constraint's label when it has no name: its expression, as
/// SQLite's message shows it.
fn check_text(e: &crate::sql::ast::Expr) -> String {
    e.to_string()
}

/// The same value, bit for bit (a REAL's sign of zero and NaN payload
/// included): what "unchanged" means for an index entry.
fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// What [`visit_index_keys`] hands each key to: the plan's number, the
/// key, and whether the entry counts for UNIQUE.
pub(crate) type KeySink<'a> = dyn FnMut(usize, &[u8], bool) -> Result<()> + 'a;

/// A STRICT table's column types: each value that is not NULL must be
/// of its column's type once its affinity applied, else the row is
/// refused whatever the conflict algorithm (SQLite's rule: the check
/// follows NOT NULL and comes before CHECK).
pub(crate) fn check_types(table: &Table, row: &[Value]) -> Result<()> {
    if !table.options.strict {
        return Ok(());
    }
    for (c, v) in table.columns.iter().zip(row) {
        let Some(ty) = c.strict_type.filter(|t| !t.admits(v)) else {
            continue;
        };
        let given = match v {
            Value::Integer(_) => "INT",
            Value::Real(_) => "REAL",
            Value::Text(_) => "TEXT",
            _ => "BLOB",
        };
        return Err(constraint(
            ConstraintKind::Datatype,
            format!(
                "cannot store {given} value in {} column {}.{}",
                ty.name(),
                table.name,
                c.name
            ),
        ));
    }
    Ok(())
}
