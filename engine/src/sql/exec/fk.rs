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

fn fk_error() -> Error {
    Error::Constraint {
        kind: ConstraintKind::ForeignKey,
        message: "FOREIGN KEY constraint failed".into(),
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

/// Checks that `row` of `child` references existing parent rows.
pub(crate) fn check_child(
    kv: &mut dyn Kv,
    cat: &Catalog,
    child: &Table,
    row: &[Value],
    params: &[Value],
    limit: u64,
) -> Result<()> {
    for fk in &child.foreign_keys {
        check_child_key(kv, cat, child, fk, row, params, limit)?;
    }
    Ok(())
}

/// Checks one foreign key `fk` of `row`. Out of line: most tables have no
/// foreign key, and the statements calling [`check_child`] stay small for the
/// wasm engine's compilers (see scripts/build-wasm).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(crate) fn check_child_key(
    kv: &mut dyn Kv,
    cat: &Catalog,
    child: &Table,
    fk: &ForeignKey,
    row: &[Value],
    params: &[Value],
    limit: u64,
) -> Result<()> {
    let vals: Vec<Value> = fk.columns.iter().map(|&i| row[i].clone()).collect();
    if vals.iter().any(Value::is_null) {
        return Ok(());
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
    let ctx = ExecCtx::new(&*kv, params, limit);
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
    if !found {
        return Err(fk_error());
    }
    Ok(())
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
        let key: Vec<Value> = pcols.iter().map(|&i| row[i].clone()).collect();
        let affs: Vec<Affinity> = pcols.iter().map(|&i| column_affinity(parent, i)).collect();
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
        let own_id = row.get(parent.columns.len()).cloned();
        let refs: Vec<Row> = refs
            .into_iter()
            .filter(|r| {
                !(child.name.eq_ignore_ascii_case(&parent.name) && Some(&r[n]) == own_id.as_ref())
            })
            .collect();
        if refs.is_empty() {
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
                ForeignKeyAction::SetNull | ForeignKeyAction::SetDefault => {
                    set_child_key(kv, cat, &writer, triggers, &r, &fk, None, (params, opts))?
                }
                ForeignKeyAction::NoAction | ForeignKeyAction::Restrict => return Err(fk_error()),
            };
            if !done {
                refuse_skipped(&*kv, &writer, &r, &fk, &key, &affs)?;
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
        let old_key: Vec<Value> = pcols.iter().map(|&i| old[i].clone()).collect();
        let new_key: Vec<Value> = pcols.iter().map(|&i| new[i].clone()).collect();
        let affs: Vec<Affinity> = pcols.iter().map(|&i| column_affinity(parent, i)).collect();
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
        let writer = TableWriter::new(cat, &child)?;
        let triggers = Triggers::of(cat, &child, Event::Update, &fk.columns, None);
        let triggers = triggers.as_ref();
        for r in refs {
            crate::sql::functions::count_action_change();
            let key = match fk.on_update {
                ForeignKeyAction::Cascade => Some(new_key.as_slice()),
                ForeignKeyAction::SetNull | ForeignKeyAction::SetDefault => None,
                ForeignKeyAction::NoAction | ForeignKeyAction::Restrict => return Err(fk_error()),
            };
            if !set_child_key(kv, cat, &writer, triggers, &r, &fk, key, (params, opts))? {
                refuse_skipped(&*kv, &writer, &r, &fk, &old_key, &affs)?;
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

/// After a trigger skipped an action's change of child row `row`: an
/// error when the row, as it is now, still references `key` (the parent
/// key going away), as SQLite's statement-end check finds.
fn refuse_skipped(
    kv: &dyn Kv,
    w: &TableWriter,
    row: &[Value],
    fk: &ForeignKey,
    key: &[Value],
    affs: &[Affinity],
) -> Result<()> {
    let Value::Integer(id) = row[w.table.columns.len()] else {
        return Ok(());
    };
    let Some(now) = w.read(kv, id)? else {
        return Ok(());
    };
    let child: Vec<Value> = fk.columns.iter().map(|&i| now[i].clone()).collect();
    match child.iter().any(Value::is_null) || !values_match(&child, key, affs) {
        true => Ok(()),
        false => Err(fk_error()),
    }
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
