//! FOREIGN KEY enforcement: a child row's key must match a parent row, and
//! removing or changing a referenced parent key applies the child's ON
//! DELETE / ON UPDATE action.
//!
//! Lookups fetch by rowid when the key is the parent's INTEGER PRIMARY KEY;
//! otherwise they probe an index of the other table whose leading plain
//! columns are the key's columns (the parent's PRIMARY KEY / UNIQUE index;
//! a child index on the foreign key columns), when the columns' affinities
//! agree, so equal values have equal index keys. The index gives
//! candidates (a superset: its collation may fold more), which the same
//! comparison as the scan then filters. Without such an index, they scan.
//!
//! Violations are counted, as SQLite counts them (`fkey.c`), not refused
//! on the row: a row whose key finds no parent adds one, and the change
//! that gives it a parent (the parent row inserted, the child row deleted
//! or its key changed) takes one away; a parent row removed under NO
//! ACTION adds one per child row referencing it. An immediate foreign key
//! counts in the statement's count, checked when the statement ends (so
//! one statement may insert a child before its parent); a deferred one
//! (`DEFERRABLE INITIALLY DEFERRED`), and every one while `PRAGMA
//! defer_foreign_keys` is on, counts in the transaction's, checked at
//! COMMIT (the connection's, `db.rs`). The removals look only while the
//! count they would lower is not zero, so with no violation outstanding a
//! parent insert or a child delete looks nothing up. As in SQLite, a child
//! row is looked at only when its key changes (here: its values; SQLite
//! goes by the columns an UPDATE sets), and RESTRICT refuses at once
//! unless `defer_foreign_keys` is on. The counts live in thread-locals
//! for the statement the connection runs ([`start_statement`],
//! [`statement_counts`]), as the connection-state functions' do.

use std::cell::Cell;
use std::cmp::Ordering;
use std::rc::Rc;

use super::dml::{delete_by_rowid, delete_firing, DmlOptions};
use super::kv::Kv;
use super::scan::{index_key_rowid, index_prefix_range, key_columns, Row};
use super::trigger::{Event, Triggers};
use super::write::TableWriter;
use super::ExecCtx;
use crate::sql::ast::{ForeignKeyAction, TriggerTiming};
use crate::sql::catalog::{Catalog, ForeignKey, Table};
use crate::sql::keycode;
use crate::sql::nesting::Frame;
use crate::sql::value::{apply_affinity, compare, Affinity, Collation, Value};
use crate::{sql_err, ConstraintKind, Error, Result};

pub(crate) fn fk_error() -> Error {
    Error::Constraint {
        kind: ConstraintKind::ForeignKey,
        message: "FOREIGN KEY constraint failed".into(),
    }
}

/// A transaction's outstanding violations: of deferred foreign keys
/// (SQLite's `nDeferredCons`) and of the others, counted while `PRAGMA
/// defer_foreign_keys` was on (`nDeferredImmCons`, forgotten when the
/// pragma is turned off).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Deferred {
    pub declared: i64,
    pub by_pragma: i64,
}

impl Deferred {
    /// Whether COMMIT must refuse.
    pub(crate) fn outstanding(self) -> bool {
        self.declared + self.by_pragma > 0
    }
}

thread_local! {
    /// The running statement's violations of immediate foreign keys.
    static IMMEDIATE: Cell<i64> = const { Cell::new(0) };
    /// The transaction's, as the running statement leaves them.
    static DEFERRED: Cell<Deferred> = const {
        Cell::new(Deferred { declared: 0, by_pragma: 0 })
    };
}

/// Starts a statement's counts: none immediate, the transaction's
/// `deferred` (none outside a transaction).
pub(crate) fn start_statement(deferred: Deferred) {
    IMMEDIATE.with(|c| c.set(0));
    DEFERRED.with(|c| c.set(deferred));
}

/// The statement's immediate violations and the transaction's counts as
/// it leaves them.
pub(crate) fn statement_counts() -> (i64, Deferred) {
    (IMMEDIATE.with(Cell::get), DEFERRED.with(Cell::get))
}

/// Adds `n` (negative to take away) to the count `fk` goes in (SQLite's
/// OP_FkCounter).
fn count(fk: &ForeignKey, opts: DmlOptions, n: i64) {
    if !opts.defer_foreign_keys && !fk.deferred {
        return IMMEDIATE.with(|c| c.set(c.get() + n));
    }
    DEFERRED.with(|c| {
        let mut d = c.get();
        match opts.defer_foreign_keys {
            true => d.by_pragma += n,
            false => d.declared += n,
        }
        c.set(d)
    });
}

/// Whether no violation of any foreign key is outstanding.
fn none_at_all() -> bool {
    IMMEDIATE.with(Cell::get) == 0 && DEFERRED.with(Cell::get) == Deferred::default()
}

/// Whether no violation a change to `fk`'s rows could resolve is
/// outstanding (SQLite's OP_FkIfZero): then there is nothing to take away.
fn none_outstanding(fk: &ForeignKey) -> bool {
    let d = DEFERRED.with(Cell::get);
    match fk.deferred {
        true => d.declared + d.by_pragma == 0,
        false => IMMEDIATE.with(Cell::get) == 0 && d.by_pragma == 0,
    }
}

/// The parent columns a foreign key references (its PRIMARY KEY when the
/// clause names none; `n` stands for the rowid).
fn parent_columns(parent: &Table, fk: &ForeignKey) -> Result<Vec<usize>> {
    if fk.parent_columns.is_empty() {
        if let Some(a) = parent.rowid_alias {
            return Ok(vec![a]);
        }
        let pk: Vec<usize> = (0..parent.columns.len())
            .filter(|&i| parent.columns[i].primary_key)
            .collect();
        if pk.is_empty() {
            return Ok(vec![parent.columns.len()]);
        }
        return Ok(pk);
    }
    fk.parent_columns
        .iter()
        .map(|c| {
            parent.column_index(c).ok_or_else(|| {
                sql_err!(
                    "foreign key mismatch - \"{}\" referencing \"{}\"",
                    fk.parent,
                    parent.name
                )
            })
        })
        .collect()
}

fn values_match(child: &[Value], parent: &[Value], affs: &[Affinity]) -> bool {
    let binary = vec![Collation::Binary; affs.len()];
    values_match_by(child, parent, affs, &binary)
}

/// True when the child values, with the parent's affinities, equal the
/// parent values under the parent columns' collations (SQLite's rule).
fn values_match_by(
    child: &[Value],
    parent: &[Value],
    affs: &[Affinity],
    colls: &[Collation],
) -> bool {
    child
        .iter()
        .zip(parent)
        .zip(affs.iter().zip(colls))
        .all(|((c, p), (a, coll))| {
            let c = apply_affinity(c.clone(), *a);
            compare(&c, p, *coll) == Ordering::Equal
        })
}

fn column_collation(t: &Table, i: usize) -> Collation {
    t.columns.get(i).map_or(Collation::Binary, |c| c.collation)
}

fn column_affinity(t: &Table, i: usize) -> Affinity {
    t.columns.get(i).map_or(Affinity::Integer, |c| c.affinity)
}

/// After `new` was written to `child` (replacing `old`, for an UPDATE):
/// counts a violation for each of its foreign keys whose key changed and
/// finds no parent row.
pub(crate) fn child_written(
    kv: &mut dyn Kv,
    cat: &Catalog,
    child: &Table,
    old: Option<&[Value]>,
    new: &[Value],
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    for fk in child
        .foreign_keys
        .iter()
        .filter(|fk| key_changed(child, fk, old, new))
    {
        if !parent_exists(kv, cat, child, fk, new, params, opts.batch_limit)? {
            count(fk, opts, 1);
        }
    }
    Ok(())
}

/// Before `old` leaves `child` (deleted, or replaced by `new`): takes
/// away the violation each of its foreign keys whose key changes counted
/// for it, if it finds no parent row and the count is not zero.
pub(crate) fn child_removed(
    kv: &mut dyn Kv,
    cat: &Catalog,
    child: &Table,
    old: &[Value],
    new: Option<&[Value]>,
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    for fk in &child.foreign_keys {
        if none_outstanding(fk) || new.is_some_and(|n| !key_changed(child, fk, Some(old), n)) {
            continue;
        }
        if !parent_exists(kv, cat, child, fk, old, params, opts.batch_limit)? {
            count(fk, opts, -1);
        }
    }
    Ok(())
}

/// Whether `fk` of `child` is to be looked at for an update from `old`
/// to `new`: always without `old`, and always for a key referencing its
/// own table (whose parent row may be the row updated), as in SQLite;
/// otherwise when its key's values change.
fn key_changed(child: &Table, fk: &ForeignKey, old: Option<&[Value]>, new: &[Value]) -> bool {
    let Some(old) = old else {
        return true;
    };
    fk.parent.eq_ignore_ascii_case(&child.name)
        || fk.columns.iter().any(|&i| !same_value(&old[i], &new[i]))
}

/// The same stored value (type and bytes: 1 and 1.0 differ).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// Before `new` is written to `parent` (replacing `old`, for an UPDATE):
/// takes away the violations its key resolves, one per child row
/// referencing it, for each foreign key whose parent key is new (for an
/// UPDATE, changed) and whose count is not zero (SQLite counts them all,
/// also child rows written while foreign keys were off).
pub(crate) fn parent_added(
    kv: &mut dyn Kv,
    cat: &Catalog,
    parent: &Table,
    new: &[Value],
    old: Option<&[Value]>,
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    // The common case, looked at once per row: nothing to resolve.
    if none_at_all() {
        return Ok(());
    }
    let replacing = old.and_then(|o| o.get(parent.columns.len()));
    for (child, fk) in children(cat, parent) {
        if none_outstanding(&fk) {
            continue;
        }
        let pcols = parent_columns(parent, &fk)?;
        if old.is_some_and(|o| pcols.iter().all(|&i| same_value(&o[i], &new[i]))) {
            continue;
        }
        let (key, affs) = parent_key(parent, &pcols, new);
        let refs = referencing_rows(
            &*kv,
            cat,
            &child,
            &fk,
            &key,
            &affs,
            params,
            opts.batch_limit,
        )?;
        // The row being replaced is not a child of its own new key: in
        // SQLite it is gone while the key is looked for.
        let resolved = refs
            .iter()
            .filter(|r| !is_own_row(&child, parent, r, replacing))
            .count();
        count(&fk, opts, -(resolved as i64));
    }
    Ok(())
}

/// Whether foreign key `fk` of `row` needs no parent (a NULL in its key)
/// or finds its parent row. Out of line: most tables have no foreign key,
/// and the statements calling [`child_written`] stay small for the wasm
/// engine's compilers (see scripts/build-wasm).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(crate) fn parent_exists(
    kv: &dyn Kv,
    cat: &Catalog,
    child: &Table,
    fk: &ForeignKey,
    row: &[Value],
    params: &[Value],
    limit: u64,
) -> Result<bool> {
    let vals: Vec<Value> = fk.columns.iter().map(|&i| row[i].clone()).collect();
    if vals.iter().any(Value::is_null) {
        return Ok(true);
    }
    let parent = cat
        .table(&fk.parent)
        .ok_or_else(|| sql_err!("no such table: main.{}", fk.parent))?;
    let pcols = parent_columns(parent, fk)?;
    if pcols.len() != vals.len() {
        return Err(sql_err!(
            "foreign key mismatch - \"{}\" referencing \"{}\"",
            child.name,
            parent.name
        ));
    }
    let affs: Vec<Affinity> = pcols.iter().map(|&i| column_affinity(parent, i)).collect();
    let colls: Vec<Collation> = pcols.iter().map(|&i| column_collation(parent, i)).collect();
    let ctx = ExecCtx::new(kv, params, limit);
    let found = if pcols.len() == 1
        && (Some(pcols[0]) == parent.rowid_alias || pcols[0] == parent.columns.len())
    {
        match apply_affinity(vals[0].clone(), Affinity::Integer) {
            Value::Integer(id) => ctx.table_row_by_id(parent, id)?.is_some(),
            _ => false,
        }
    } else if let Some(rows) = {
        // Parent values are stored with the parent's affinities.
        let probe: Vec<Value> = vals
            .iter()
            .zip(&affs)
            .map(|(v, a)| apply_affinity(v.clone(), *a))
            .collect();
        rows_by_index(&ctx, cat, parent, &pcols, &probe, &colls)?
    } {
        rows.iter().any(|p| {
            let pv: Vec<Value> = pcols.iter().map(|&i| p[i].clone()).collect();
            values_match_by(&vals, &pv, &affs, &colls)
        })
    } else {
        ctx.scan_table(parent)?.iter().any(|p| {
            let pv: Vec<Value> = pcols.iter().map(|&i| p[i].clone()).collect();
            values_match_by(&vals, &pv, &affs, &colls)
        })
    };
    Ok(found)
}

/// The values of `row`'s parent columns `pcols` and their affinities.
fn parent_key(parent: &Table, pcols: &[usize], row: &[Value]) -> (Vec<Value>, Vec<Affinity>) {
    let key = pcols.iter().map(|&i| row[i].clone()).collect();
    let affs = pcols.iter().map(|&i| column_affinity(parent, i)).collect();
    (key, affs)
}

/// Whether child row `r` is the parent row with rowid `own_id` itself
/// (of a table referencing itself).
fn is_own_row(child: &Table, parent: &Table, r: &[Value], own_id: Option<&Value>) -> bool {
    own_id.is_some()
        && r.get(child.columns.len()) == own_id
        && child.name.eq_ignore_ascii_case(&parent.name)
}

/// Every (child table, foreign key) referencing `parent`.
fn children(cat: &Catalog, parent: &Table) -> Vec<(Rc<Table>, ForeignKey)> {
    let mut out = Vec::new();
    for t in cat.tables.values() {
        for (i, fk) in t.foreign_keys.iter().enumerate() {
            if fk.parent.eq_ignore_ascii_case(&parent.name) {
                // A tree name is a letter and the id counter's value when
                // the table was made (catalog module doc).
                let made: u64 = t.tree.get(1..).and_then(|n| n.parse().ok()).unwrap_or(0);
                out.push(((made, i), t.clone(), fk.clone()));
            }
        }
    }
    // SQLite's order: the newest table's keys first, and a table's last
    // declared key first (its actions, and the triggers they fire, run in
    // that order).
    out.sort_by_key(|(order, ..)| std::cmp::Reverse(*order));
    out.into_iter().map(|(_, t, fk)| (t, fk)).collect()
}

/// Rows of `table` whose columns `cols` may equal `vals` under collations
/// `colls` (a superset of the equal ones), found through an index without
/// predicate whose leading plain columns are exactly `cols` (in any
/// order) and whose collations find every such row (the same, or the
/// comparison is BINARY); `None` when there is no such index.
fn rows_by_index(
    ctx: &ExecCtx,
    cat: &Catalog,
    table: &Table,
    cols: &[usize],
    vals: &[Value],
    colls: &[Collation],
) -> Result<Option<Vec<Row>>> {
    if vals.iter().any(Value::is_null) {
        return Ok(Some(Vec::new()));
    }
    let k = cols.len();
    let index = cat.table_indexes(&table.name).into_iter().find(|ix| {
        ix.predicate.is_none()
            && ix.columns.len() >= k
            && ix.columns[..k]
                .iter()
                .all(|c| c.column.is_some_and(|i| cols.contains(&i)))
            && cols.iter().zip(colls).all(|(i, coll)| {
                ix.columns[..k].iter().any(|c| {
                    c.column == Some(*i) && (c.collation == *coll || *coll == Collation::Binary)
                })
            })
    });
    let Some(index) = index else {
        return Ok(None);
    };
    // The values in the index's column order.
    let mut ordered = Vec::with_capacity(k);
    for c in &index.columns[..k] {
        let Some(j) = cols.iter().position(|&i| c.column == Some(i)) else {
            return Ok(None);
        };
        ordered.push(vals[j].clone());
    }
    let key_cols = key_columns(&index);
    let prefix = keycode::encode_key(&ordered, &key_cols[..k]);
    let (lo, hi) = index_prefix_range(prefix);
    let mut rows = Vec::new();
    for (key, _) in ctx.kv.scan(&index.tree, lo, hi, false, None)? {
        if let Some(row) = ctx.table_row_by_id(table, index_key_rowid(&key)?)? {
            rows.push(row);
        }
    }
    Ok(Some(rows))
}

/// Child rows referencing `key` (the parent key values).
#[allow(clippy::too_many_arguments)]
fn referencing_rows(
    kv: &dyn Kv,
    cat: &Catalog,
    child: &Table,
    fk: &ForeignKey,
    key: &[Value],
    affs: &[Affinity],
    params: &[Value],
    limit: u64,
) -> Result<Vec<Row>> {
    let ctx = ExecCtx::new(kv, params, limit);
    // The child's values equal the key only if, with the parent's
    // affinity applied, they compare equal: an index finds them when the
    // child columns have those affinities already.
    let same_affinity = fk
        .columns
        .iter()
        .zip(affs)
        .all(|(&i, a)| column_affinity(child, i) == *a);
    let colls: Vec<Collation> = match cat.table(&fk.parent) {
        Some(parent) => parent_columns(parent, fk)?
            .iter()
            .map(|&i| column_collation(parent, i))
            .collect(),
        None => vec![Collation::Binary; key.len()],
    };
    let candidates = match same_affinity {
        true => rows_by_index(&ctx, cat, child, &fk.columns, key, &colls)?,
        false => None,
    };
    let candidates = match candidates {
        Some(rows) => rows,
        None => ctx.scan_table(child)?,
    };
    Ok(candidates
        .into_iter()
        .filter(|r| {
            let cv: Vec<Value> = fk.columns.iter().map(|&i| r[i].clone()).collect();
            !cv.iter().any(Value::is_null) && values_match_by(&cv, key, affs, &colls)
        })
        .collect())
}

/// The frame an action (CASCADE, SET NULL, SET DEFAULT) runs in for one
/// parent row, as SQLite's action triggers do, so a cascade down a chain
/// of rows stops with a typed error where the stack or 1000 levels end.
fn action_frame(action: ForeignKeyAction) -> Result<Option<Frame>> {
    match action {
        ForeignKeyAction::NoAction | ForeignKeyAction::Restrict => Ok(None),
        _ => Frame::enter().map(Some),
    }
}

/// Applies ON DELETE actions for a parent row about to be deleted.
#[inline(never)]
pub(crate) fn on_parent_delete(
    kv: &mut dyn Kv,
    cat: &Catalog,
    parent: &Table,
    row: &[Value],
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    // NO ACTION is checked when the statement ends in SQLite: after every
    // action (which may remove the rows it would find).
    let mut kids = children(cat, parent);
    kids.sort_by_key(|(_, fk)| fk.on_delete == ForeignKeyAction::NoAction);
    for (child, fk) in kids {
        let _frame = action_frame(fk.on_delete)?;
        let pcols = parent_columns(parent, &fk)?;
        let (key, affs) = parent_key(parent, &pcols, row);
        let n = child.columns.len();
        let refs = referencing_rows(
            &*kv,
            cat,
            &child,
            &fk,
            &key,
            &affs,
            params,
            opts.batch_limit,
        )?;
        // A row referencing itself goes away with the delete.
        let own_id = row.get(parent.columns.len());
        let refs: Vec<Row> = refs
            .into_iter()
            .filter(|r| !is_own_row(&child, parent, r, own_id))
            .collect();
        if refs.is_empty() {
            continue;
        }
        if let Some(n) = no_action(fk.on_delete, refs.len(), opts)? {
            count(&fk, opts, n);
            continue;
        }
        let writer = TableWriter::new(cat, &child)?;
        // The child's triggers fire for the action's changes, as SQLite's.
        let event = match fk.on_delete {
            ForeignKeyAction::Cascade => Event::Delete,
            _ => Event::Update,
        };
        let triggers = Triggers::of(cat, &child, event, &fk.columns, None);
        let triggers = triggers.as_ref();
        for r in refs {
            let Value::Integer(id) = r[n] else { continue };
            crate::sql::functions::count_action_change();
            let done = match fk.on_delete {
                ForeignKeyAction::Cascade => match triggers {
                    None => delete_by_rowid(kv, cat, &writer, id, params, opts).map(|_| true)?,
                    Some(t) => delete_firing(kv, cat, &writer, t, &r, params, opts)?,
                },
                _ => set_child_key(kv, cat, &writer, triggers, &r, &fk, None, (params, opts))?,
            };
            if !done {
                count_skipped(&*kv, &writer, &r, &fk, &key, &affs, opts)?;
            }
        }
    }
    Ok(())
}

/// Applies ON UPDATE actions when a parent row's key changes.
#[inline(never)]
pub(crate) fn on_parent_update(
    kv: &mut dyn Kv,
    cat: &Catalog,
    parent: &Table,
    old: &[Value],
    new: &[Value],
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    // NO ACTION after the actions, as on delete.
    let mut kids = children(cat, parent);
    kids.sort_by_key(|(_, fk)| fk.on_update == ForeignKeyAction::NoAction);
    for (child, fk) in kids {
        let _frame = action_frame(fk.on_update)?;
        let pcols = parent_columns(parent, &fk)?;
        let (old_key, affs) = parent_key(parent, &pcols, old);
        let new_key: Vec<Value> = pcols.iter().map(|&i| new[i].clone()).collect();
        if values_match(&old_key, &new_key, &affs) {
            continue;
        }
        let refs = referencing_rows(
            &*kv,
            cat,
            &child,
            &fk,
            &old_key,
            &affs,
            params,
            opts.batch_limit,
        )?;
        if refs.is_empty() {
            continue;
        }
        // A row referencing its own old key is not counted (SQLite's
        // rule); an action changes it too.
        let own_id = old.get(parent.columns.len());
        let others = refs
            .iter()
            .filter(|r| !is_own_row(&child, parent, r, own_id))
            .count();
        if let Some(n) = no_action(fk.on_update, others, opts)? {
            count(&fk, opts, n);
            continue;
        }
        let writer = TableWriter::new(cat, &child)?;
        let triggers = Triggers::of(cat, &child, Event::Update, &fk.columns, None);
        let triggers = triggers.as_ref();
        for r in refs {
            crate::sql::functions::count_action_change();
            let key = match fk.on_update {
                ForeignKeyAction::Cascade => Some(new_key.as_slice()),
                _ => None,
            };
            if !set_child_key(kv, cat, &writer, triggers, &r, &fk, key, (params, opts))? {
                count_skipped(&*kv, &writer, &r, &fk, &old_key, &affs, opts)?;
            }
        }
    }
    Ok(())
}

/// Rewrites a child row's foreign key columns (to `key`, or NULL), its
/// UPDATE `triggers` firing around it; false when a BEFORE trigger
/// skipped it.
#[allow(clippy::too_many_arguments)]
fn set_child_key(
    kv: &mut dyn Kv,
    cat: &Catalog,
    w: &TableWriter,
    triggers: Option<&Triggers>,
    row: &[Value],
    fk: &ForeignKey,
    key: Option<&[Value]>,
    (params, opts): (&[Value], DmlOptions),
) -> Result<bool> {
    let mut row = std::borrow::Cow::Borrowed(row);
    let mut new = row.to_vec();
    for (j, &i) in fk.columns.iter().enumerate() {
        new[i] = key.map_or(Value::Null, |k| {
            apply_affinity(k[j].clone(), w.table.columns[i].affinity)
        });
    }
    let n = w.table.columns.len();
    let Value::Integer(id) = row[n] else {
        return Ok(true);
    };
    if let Some(t) = triggers {
        let is_set = |i| fk.columns.contains(&i);
        match t.before_update(kv, cat, w, &row, &mut new, &is_set, (params, opts))? {
            Some(now) => row = std::borrow::Cow::Owned(now),
            // Skipped (or gone: `refuse_skipped` then finds nothing).
            None => return Ok(false),
        }
    }
    let row = row.as_ref();
    let (old_vals, new_vals) = {
        let ctx = ExecCtx::new(&*kv, params, opts.batch_limit);
        w.compute_generated(&ctx, &mut new)?;
        w.check_row(&ctx, &new)?;
        (
            w.all_index_values(&ctx, row)?,
            w.all_index_values(&ctx, &new)?,
        )
    };
    w.delete(kv, &old_vals, id)?;
    w.insert(kv, &new_vals, &new, None)?;
    if let Some(t) = triggers {
        t.fire(TriggerTiming::After, kv, cat, Some(row), Some(&new), opts)?;
    }
    Ok(true)
}

/// For a parent key going away under NO ACTION (or RESTRICT while
/// `defer_foreign_keys` is on, as in SQLite): the violations `refs` child
/// rows make, to count; `None` for an action to apply. RESTRICT otherwise
/// refuses at once, deferred or not.
fn no_action(action: ForeignKeyAction, refs: usize, opts: DmlOptions) -> Result<Option<i64>> {
    match action {
        ForeignKeyAction::Restrict if !opts.defer_foreign_keys => Err(fk_error()),
        ForeignKeyAction::NoAction | ForeignKeyAction::Restrict => Ok(Some(refs as i64)),
        _ => Ok(None),
    }
}

/// After a trigger skipped an action's change of child row `row`: a
/// violation when the row, as it is now, still references `key` (the
/// parent key going away), as SQLite's count finds it.
fn count_skipped(
    kv: &dyn Kv,
    w: &TableWriter,
    row: &[Value],
    fk: &ForeignKey,
    key: &[Value],
    affs: &[Affinity],
    opts: DmlOptions,
) -> Result<()> {
    let Value::Integer(id) = row[w.table.columns.len()] else {
        return Ok(());
    };
    let Some(now) = w.read(kv, id)? else {
        return Ok(());
    };
    let child: Vec<Value> = fk.columns.iter().map(|&i| now[i].clone()).collect();
    if !child.iter().any(Value::is_null) && values_match(&child, key, affs) {
        count(fk, opts, 1);
    }
    Ok(())
}

/// DROP TABLE of a parent: deletes its rows first so child actions run
/// (SQLite's implicit DELETE FROM).
pub(crate) fn before_drop(
    kv: &mut dyn Kv,
    cat: &Catalog,
    table: &Rc<Table>,
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    if !opts.foreign_keys
        || children(cat, table)
            .iter()
            .all(|(c, _)| c.name.eq_ignore_ascii_case(&table.name))
    {
        return Ok(());
    }
    let writer = TableWriter::new(cat, table)?;
    let rows = {
        let ctx = ExecCtx::new(&*kv, params, opts.batch_limit);
        ctx.scan_table(table)?
    };
    let n = table.columns.len();
    for r in rows {
        if let Value::Integer(id) = r[n] {
            delete_by_rowid(kv, cat, &writer, id, params, opts)?;
        }
    }
    Ok(())
}
