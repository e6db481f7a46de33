//! The SQL half of `Database::check`: every table and index tree exists,
//! and each index holds exactly the entries its table's rows imply (one
//! per row inside a partial index's predicate, none else), as SQLite's
//! `integrity_check` verifies.

use std::collections::BTreeSet;
use std::ops::Bound;

use super::kv::Kv;
use super::scan::{index_key, table_row};
use super::write::index_plan;
use super::ExecCtx;
use crate::sql::catalog::Catalog;
use crate::storage::Problem;
use crate::Result;

fn problem(detail: String) -> Problem {
    Problem { page: 0, detail }
}

/// Checks the catalog's trees against each other; returns every problem.
pub(crate) fn check_catalog(kv: &dyn Kv, cat: &Catalog, limit: u64) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for table in cat.tables.values() {
        if !kv.tree_exists(&table.tree)? {
            problems.push(problem(format!(
                "table {} has no tree {}",
                table.name, table.tree
            )));
            continue;
        }
        let entries = kv.scan(&table.tree, Bound::Unbounded, Bound::Unbounded, false, None)?;
        let mut rows = Vec::with_capacity(entries.len());
        for (k, v) in &entries {
            match table_row(table, k, v) {
                Ok(r) => rows.push(r),
                Err(e) => problems.push(problem(format!("table {}: {e}", table.name))),
            }
        }
        let params = [];
        let ctx = ExecCtx::new(kv, &params, limit);
        for ix in cat.table_indexes(&table.name) {
            if !kv.tree_exists(&ix.tree)? {
                problems.push(problem(format!(
                    "index {} has no tree {}",
                    ix.name, ix.tree
                )));
                continue;
            }
            let plan = index_plan(cat, table, &ix)?;
            let mut expected = BTreeSet::new();
            for row in &rows {
                let Some(vals) = super::write::index_values(&ctx, &plan, row)? else {
                    continue;
                };
                let rowid = row[table.columns.len()].to_i64();
                expected.insert(index_key(&vals, &plan.cols, rowid));
            }
            let actual: BTreeSet<Vec<u8>> = kv
                .scan(&ix.tree, Bound::Unbounded, Bound::Unbounded, false, None)?
                .into_iter()
                .map(|(k, _)| k)
                .collect();
            let missing = expected.difference(&actual).count();
            let extra = actual.difference(&expected).count();
            if missing > 0 || extra > 0 {
                problems.push(problem(format!(
                    "index {} of {}: {missing} entries missing, {extra} entries without a row",
                    ix.name, table.name
                )));
            }
        }
    }
    Ok(problems)
}
