//! FOREIGN KEY enforcement: a child row's key must match a parent row, and
//! removing or changing a referenced parent key applies the child's ON
//! DELETE / ON UPDATE action. Lookups scan the other table (or fetch by
//! rowid when the key is the parent's INTEGER PRIMARY KEY); simple and
//! linear, which is fine for the table sizes foreign keys usually guard.

use std::cmp::Ordering;
use std::rc::Rc;

use super::dml::{delete_by_rowid, DmlOptions};
use super::kv::Kv;
use super::scan::Row;
use super::write::TableWriter;
use super::ExecCtx;
use crate::sql::ast::ForeignKeyAction;
use crate::sql::catalog::{Catalog, ForeignKey, Table};
use crate::sql::value::{apply_affinity, compare, Affinity, Value};
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
    child.iter().zip(parent).zip(affs).all(|((c, p), a)| {
        let c = apply_affinity(c.clone(), *a);
        compare(&c, p, crate::sql::value::Collation::Binary) == Ordering::Equal
    })
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
        let vals: Vec<Value> = fk.columns.iter().map(|&i| row[i].clone()).collect();
        if vals.iter().any(Value::is_null) {
            continue;
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
        let ctx = ExecCtx::new(&*kv, params, limit);
        let found = if pcols.len() == 1
            && (Some(pcols[0]) == parent.rowid_alias || pcols[0] == parent.columns.len())
        {
            match apply_affinity(vals[0].clone(), Affinity::Integer) {
                Value::Integer(id) => ctx.table_row_by_id(parent, id)?.is_some(),
                _ => false,
            }
        } else {
            ctx.scan_table(parent)?.iter().any(|p| {
                let pv: Vec<Value> = pcols.iter().map(|&i| p[i].clone()).collect();
                values_match(&vals, &pv, &affs)
            })
        };
        if !found {
            return Err(fk_error());
        }
    }
    Ok(())
}

/// Every (child table, foreign key) referencing `parent`.
fn children(cat: &Catalog, parent: &Table) -> Vec<(Rc<Table>, ForeignKey)> {
    let mut out = Vec::new();
    for t in cat.tables.values() {
        for fk in &t.foreign_keys {
            if fk.parent.eq_ignore_ascii_case(&parent.name) {
                out.push((t.clone(), fk.clone()));
            }
        }
    }
    out
}

/// Child rows referencing `key` (the parent key values).
fn referencing_rows(
    kv: &dyn Kv,
    child: &Table,
    fk: &ForeignKey,
    key: &[Value],
    affs: &[Affinity],
    params: &[Value],
    limit: u64,
) -> Result<Vec<Row>> {
    let ctx = ExecCtx::new(kv, params, limit);
    Ok(ctx
        .scan_table(child)?
        .into_iter()
        .filter(|r| {
            let cv: Vec<Value> = fk.columns.iter().map(|&i| r[i].clone()).collect();
            !cv.iter().any(Value::is_null) && values_match(&cv, key, affs)
        })
        .collect())
}

/// Applies ON DELETE actions for a parent row about to be deleted.
pub(crate) fn on_parent_delete(
    kv: &mut dyn Kv,
    cat: &Catalog,
    parent: &Table,
    row: &[Value],
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    for (child, fk) in children(cat, parent) {
        let pcols = parent_columns(parent, &fk)?;
        let key: Vec<Value> = pcols.iter().map(|&i| row[i].clone()).collect();
        let affs: Vec<Affinity> = pcols.iter().map(|&i| column_affinity(parent, i)).collect();
        let n = child.columns.len();
        let refs = referencing_rows(&*kv, &child, &fk, &key, &affs, params, opts.batch_limit)?;
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
        for r in refs {
            let Value::Integer(id) = r[n] else { continue };
            match fk.on_delete {
                ForeignKeyAction::Cascade => delete_by_rowid(kv, cat, &writer, id, params, opts)?,
                ForeignKeyAction::SetNull | ForeignKeyAction::SetDefault => {
                    set_child_key(kv, &writer, &r, &fk, None, params, opts)?;
                }
                ForeignKeyAction::NoAction | ForeignKeyAction::Restrict => return Err(fk_error()),
            }
        }
    }
    Ok(())
}

/// Applies ON UPDATE actions when a parent row's key changes.
pub(crate) fn on_parent_update(
    kv: &mut dyn Kv,
    cat: &Catalog,
    parent: &Table,
    old: &[Value],
    new: &[Value],
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    for (child, fk) in children(cat, parent) {
        let pcols = parent_columns(parent, &fk)?;
        let old_key: Vec<Value> = pcols.iter().map(|&i| old[i].clone()).collect();
        let new_key: Vec<Value> = pcols.iter().map(|&i| new[i].clone()).collect();
        let affs: Vec<Affinity> = pcols.iter().map(|&i| column_affinity(parent, i)).collect();
        if values_match(&old_key, &new_key, &affs) {
            continue;
        }
        let refs = referencing_rows(&*kv, &child, &fk, &old_key, &affs, params, opts.batch_limit)?;
        if refs.is_empty() {
            continue;
        }
        let writer = TableWriter::new(cat, &child)?;
        for r in refs {
            match fk.on_update {
                ForeignKeyAction::Cascade => {
                    set_child_key(kv, &writer, &r, &fk, Some(&new_key), params, opts)?
                }
                ForeignKeyAction::SetNull | ForeignKeyAction::SetDefault => {
                    set_child_key(kv, &writer, &r, &fk, None, params, opts)?
                }
                ForeignKeyAction::NoAction | ForeignKeyAction::Restrict => return Err(fk_error()),
            }
        }
    }
    Ok(())
}

/// Rewrites a child row's foreign key columns (to `key`, or NULL).
fn set_child_key(
    kv: &mut dyn Kv,
    w: &TableWriter,
    row: &[Value],
    fk: &ForeignKey,
    key: Option<&[Value]>,
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    let mut new = row.to_vec();
    for (j, &i) in fk.columns.iter().enumerate() {
        new[i] = key.map_or(Value::Null, |k| {
            apply_affinity(k[j].clone(), w.table.columns[i].affinity)
        });
    }
    let n = w.table.columns.len();
    let Value::Integer(id) = row[n] else {
        return Ok(());
    };
    let (old_vals, new_vals) = {
        let ctx = ExecCtx::new(&*kv, params, opts.batch_limit);
        w.check_row(&ctx, &new)?;
        (
            w.all_index_values(&ctx, row)?,
            w.all_index_values(&ctx, &new)?,
        )
    };
    w.delete(kv, &old_vals, id)?;
    w.insert(kv, &new_vals, &new)
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
