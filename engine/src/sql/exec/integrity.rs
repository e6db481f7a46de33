//! The SQL half of `Database::check`: every table and index tree exists,
//! and each index holds exactly the entries its table's rows imply (one
//! per row inside a partial index's predicate, none else), as SQLite's
//! `integrity_check` verifies.
//!
//! A table is read once, in key order, each row's index keys computed as it
//! passes into one buffer per index ([`KeyBatch`]); each index's expected
//! keys are then sorted and merged with the index's entries, read in order.
//! Only the keys are held, never the rows.
//! The per-row and per-entry work are functions of their own: V8 switches a
//! wasm function to optimized code only between calls, and a check runs
//! once (an import checks the whole file).

use std::ops::Bound;

use super::keysort::KeyBatch;
use super::kv::Kv;
use super::scan::{push_index_key, table_row};
use super::write::{index_plan, index_values, IndexPlan};
use super::ExecCtx;
use crate::sql::catalog::{Catalog, Table};
use crate::storage::Problem;
use crate::Result;

fn problem(detail: String) -> Problem {
    Problem { page: 0, detail }
}

/// Checks the catalog's trees against each other; returns every problem.
pub(crate) fn check_catalog(kv: &dyn Kv, cat: &Catalog, limit: u64) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for table in cat.tables.values() {
        check_table(kv, cat, table, limit, &mut problems)?;
    }
    Ok(problems)
}

/// One table's tree against its indexes' trees.
#[inline(never)]
fn check_table(
    kv: &dyn Kv,
    cat: &Catalog,
    table: &Table,
    limit: u64,
    problems: &mut Vec<Problem>,
) -> Result<()> {
    if !kv.tree_exists(&table.tree)? {
        problems.push(problem(format!(
            "table {} has no tree {}",
            table.name, table.tree
        )));
        return Ok(());
    }
    // Each index with a tree, and the keys its table's rows imply.
    let mut indexes: Vec<(IndexPlan, KeyBatch)> = Vec::new();
    for ix in cat.table_indexes(&table.name) {
        if !kv.tree_exists(&ix.tree)? {
            problems.push(problem(format!(
                "index {} has no tree {}",
                ix.name, ix.tree
            )));
            continue;
        }
        indexes.push((index_plan(cat, table, &ix)?, KeyBatch::default()));
    }
    let params = [];
    let ctx = ExecCtx::new(kv, &params, limit);
    kv.visit(
        &table.tree,
        Bound::Unbounded,
        Bound::Unbounded,
        false,
        &mut |k, v| {
            row_keys(&ctx, table, k, v, &mut indexes, problems)?;
            Ok(true)
        },
    )?;
    for (plan, expected) in indexes {
        let (missing, extra) = compare_index(kv, &plan.index.tree, &expected)?;
        if missing > 0 || extra > 0 {
            problems.push(problem(format!(
                "index {} of {}: {missing} entries missing, {extra} entries without a row",
                plan.index.name, table.name
            )));
        }
    }
    Ok(())
}

/// Adds the index keys of the row stored under `key` (its record `value`)
/// to each index's list; a row that does not decode is a problem.
#[inline(never)]
fn row_keys(
    ctx: &ExecCtx,
    table: &Table,
    key: &[u8],
    value: &[u8],
    indexes: &mut [(IndexPlan, KeyBatch)],
    problems: &mut Vec<Problem>,
) -> Result<()> {
    let row = match table_row(table, key, value) {
        Ok(r) => r,
        Err(e) => {
            problems.push(problem(format!("table {}: {e}", table.name)));
            return Ok(());
        }
    };
    let rowid = row[table.columns.len()].to_i64();
    for (plan, keys) in indexes {
        if let Some(vals) = index_values(ctx, plan, &row)? {
            keys.push_with(|out| push_index_key(out, &vals, &plan.cols, rowid));
        }
    }
    Ok(())
}

/// How many of the keys in `expected` the index tree lacks, and how many
/// of its entries `expected` lacks: the two merged in key order (a key
/// pushed twice counts once).
#[inline(never)]
fn compare_index(kv: &dyn Kv, tree: &str, expected: &KeyBatch) -> Result<(usize, usize)> {
    let mut prev: Option<&[u8]> = None;
    let mut want = expected
        .iter_sorted()
        .filter(move |k| {
            let new = prev != Some(*k);
            prev = Some(k);
            new
        })
        .peekable();
    let (mut missing, mut extra) = (0, 0);
    kv.visit(
        tree,
        Bound::Unbounded,
        Bound::Unbounded,
        false,
        &mut |k, _| {
            while want.next_if(|e| *e < k).is_some() {
                missing += 1;
            }
            if want.next_if(|e| *e == k).is_none() {
                extra += 1;
            }
            Ok(true)
        },
    )?;
    Ok((missing + want.count(), extra))
}
