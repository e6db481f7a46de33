//! ANALYZE: statistics of tables and indexes for the planner, their
//! persistence, and their read-only view `sqlite_stat1`.
//!
//! What is measured is SQLite's `sqlite_stat1`: for each non-empty index,
//! one pass over its entries in key order gives its entry count and, for
//! each prefix of `k` key columns, the number of distinct prefixes, stored
//! as the average number of entries per distinct prefix (rounded up, and
//! 2 written as 1 when the prefix is nearly unique, as SQLite does); for a
//! non-empty table with no index other than partial ones, its row count.
//! An empty table gets no entries (SQLite's rule too), and an analyzed
//! empty partial index has 0 entries: for both the planner uses its
//! fixed heuristics, as for a never-analyzed table.
//!
//! Storage: the tree [`STAT_TREE`] maps a tree's name (the analyzed
//! table's or index's, which RENAME keeps and nothing reuses) to the
//! record `(rows, avg1, avg2, ...)` of integers. [`load_stats`] reads it
//! into [`Catalog::stats`] when the catalog is loaded; [`forget`] removes
//! an entry (DROP TABLE, DROP INDEX, and before an entry is measured
//! again). Entries naming no tree of the catalog are ignored on load.
//!
//! `ANALYZE` forms (SQLite's): no name, or a schema name (`main`), analyzes
//! every table; an index name analyzes that index; a table name analyzes
//! the table and all its indexes (replacing all their entries); a view is
//! accepted and has no statistics. The statement changes the catalog
//! (its caller gives it a new version, so cached plans plan again), and
//! like any write it is undone by a rollback.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::rc::Rc;

use super::kv::Kv;
use super::scan::key_columns;
use crate::sql::ast;
use crate::sql::catalog::{key, Catalog, Index, Table, TreeStats, STAT_TREE};
use crate::sql::keycode;
use crate::sql::record;
use crate::sql::value::Value;
use crate::{corrupt, sql_err, Result};

/// Runs `ANALYZE [name]` against `kv`, updating `cat.stats`.
pub(crate) fn analyze(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    name: Option<&ast::QualifiedName>,
) -> Result<()> {
    let target = match name {
        None => None,
        Some(q) => match &q.schema {
            Some(s) if s.eq_ignore_ascii_case("main") => Some(q.name.as_str()),
            Some(s) if s.eq_ignore_ascii_case("temp") => {
                return Err(sql_err!("no such table: {s}.{}", q.name))
            }
            Some(s) => return Err(sql_err!("unknown database {s}")),
            None if q.name.eq_ignore_ascii_case("main") => None,
            // The temp schema holds no tables in TinyJoin.
            None if q.name.eq_ignore_ascii_case("temp") => return Ok(()),
            None => Some(q.name.as_str()),
        },
    };
    let Some(target) = target else {
        let tables: Vec<Rc<Table>> = cat.tables.values().cloned().collect();
        for t in tables {
            analyze_table(kv, cat, &t)?;
        }
        return Ok(());
    };
    let k = key(target);
    if let Some(ix) = cat.indexes.get(&k).cloned() {
        return analyze_index(kv, cat, &ix);
    }
    if let Some(t) = cat.tables.get(&k).cloned() {
        return analyze_table(kv, cat, &t);
    }
    if cat.views.contains_key(&k) {
        return Ok(());
    }
    Err(sql_err!("no such table: {target}"))
}

/// `PRAGMA optimize(mask)`: SQLite 3.46's choice of tables to analyze,
/// each analyzed as by `ANALYZE main.t`; gives their `ANALYZE` statements.
/// Mask bit 0x02 (in the default 0xfffe) analyzes; 0x01 only lists what
/// would be analyzed; 0x10000 checks every table's size. A table (not one
/// named `sqlite_...`) is analyzed when it has rows and an index without
/// statistics, or, under 0x10000, when its size left the tenfold range
/// around the size its statistics record (SQLite's LogEst test: within
/// 33, where a never-analyzed table counts as 2^20 rows, SQLite's
/// default). SQLite also rechecks the tables whose statistics a query of
/// the connection used; TinyJoin does not track that use, so without
/// 0x10000 only tables with an unanalyzed index are looked at. Bit 0x10
/// (SQLite's analysis limit) changes nothing: TinyJoin's ANALYZE always
/// reads every entry.
pub(crate) fn optimize(kv: &mut dyn Kv, cat: &mut Catalog, mask: u32) -> Result<Vec<String>> {
    let mut chosen = Vec::new();
    if mask & 0x02 == 0 {
        return Ok(chosen);
    }
    let tables: Vec<Rc<Table>> = cat.tables.values().cloned().collect();
    for t in tables {
        if t.name
            .get(..7)
            .is_some_and(|p| p.eq_ignore_ascii_case("sqlite_"))
        {
            continue;
        }
        let indexes = cat.table_indexes(&t.name);
        let unanalyzed = indexes.iter().any(|ix| !cat.stats.contains_key(&ix.tree));
        if !unanalyzed && mask & 0x10000 == 0 {
            continue;
        }
        let rows = kv.tree_len(&t.tree)?;
        let analyze = match unanalyzed {
            true => rows > 0,
            false => {
                let recorded = recorded_rows(cat, &t, &indexes).map_or(200, log_est);
                let size = if rows == 0 { -1 } else { log_est(rows) };
                let low = if recorded >= 33 { recorded - 33 } else { -1 };
                size < low || size > recorded + 33
            }
        };
        if analyze {
            if mask & 0x01 == 0 {
                analyze_table(kv, cat, &t)?;
            }
            chosen.push(format!(
                "ANALYZE \"main\".\"{}\"",
                t.name.replace('"', "\"\"")
            ));
        }
    }
    Ok(chosen)
}

/// The row count the statistics of `table` record: a full index's entry
/// count, else the table's own entry (SQLite's `nRowLogEst` source).
fn recorded_rows(cat: &Catalog, table: &Table, indexes: &[Rc<Index>]) -> Option<u64> {
    let full = indexes.iter().filter(|ix| ix.predicate.is_none());
    full.map(|ix| &ix.tree)
        .chain(std::iter::once(&table.tree))
        .find_map(|tree| cat.stats.get(tree))
        .map(|s| s.rows)
}

/// SQLite's `sqlite3LogEst`: about 10 * log2(n), 0 for n < 2.
fn log_est(mut n: u64) -> i32 {
    const FRACTION: [i32; 8] = [0, 2, 3, 5, 6, 7, 8, 9];
    let mut y = 40;
    if n < 8 {
        if n < 2 {
            return 0;
        }
        while n < 8 {
            y -= 10;
            n <<= 1;
        }
    } else {
        while n > 255 {
            y += 40;
            n >>= 4;
        }
        while n > 15 {
            y += 10;
            n >>= 1;
        }
    }
    FRACTION[(n & 7) as usize] + y - 10
}

/// Measures `table` and every index of it, replacing their entries.
fn analyze_table(kv: &mut dyn Kv, cat: &mut Catalog, table: &Table) -> Result<()> {
    let indexes = cat.table_indexes(&table.name);
    forget(kv, cat, &table.tree)?;
    for ix in &indexes {
        analyze_index(kv, cat, ix)?;
    }
    // SQLite counts the table only when no full index gives its size.
    if indexes.iter().all(|ix| ix.predicate.is_some()) {
        let rows = kv.tree_len(&table.tree)?;
        if rows > 0 {
            let stats = TreeStats {
                rows,
                avg: Vec::new(),
            };
            store(kv, cat, &table.tree, stats)?;
        }
    }
    Ok(())
}

/// Measures one index, replacing its entry. An index of an empty table
/// gets none; an empty partial index of a non-empty table gets `0 0 ...`
/// (both as SQLite).
fn analyze_index(kv: &mut dyn Kv, cat: &mut Catalog, index: &Index) -> Result<()> {
    forget(kv, cat, &index.tree)?;
    let table_tree = match cat.tables.get(&index.table) {
        Some(t) => t.tree.clone(),
        None => return Err(corrupt!(0, "index {} has no table", index.name)),
    };
    if kv.tree_len(&table_tree)? == 0 {
        return Ok(());
    }
    let stats = measure_index(&*kv, index)?;
    store(kv, cat, &index.tree, stats)
}

/// One pass over `index` in key order: entries, and for each key prefix
/// length the number of times the prefix changes from the previous key.
/// Keys encode equal values identically (collation sort form, 1 = 1.0),
/// so two decoded prefixes are equal exactly when the index would call
/// them equal; NULLs count as equal to each other, as in SQLite's stat1.
fn measure_index(kv: &dyn Kv, index: &Index) -> Result<TreeStats> {
    let columns = key_columns(index);
    let n = columns.len();
    let mut distinct = vec![0u64; n];
    let mut prev = vec![Value::Null; n];
    let mut cur = vec![Value::Null; n];
    let mut rows = 0u64;
    kv.visit(
        &index.tree,
        Bound::Unbounded,
        Bound::Unbounded,
        false,
        &mut |k, _| {
            let (values, _) = keycode::split_index_key(k)
                .map_err(|_| corrupt!(0, "index {}: key of {} bytes", index.name, k.len()))?;
            keycode::visit_key(values, &columns, |i, v| cur[i] = v)?;
            let first_change = if rows == 0 {
                0
            } else {
                (0..n).find(|&i| cur[i] != prev[i]).unwrap_or(n)
            };
            for d in &mut distinct[first_change..] {
                *d += 1;
            }
            std::mem::swap(&mut prev, &mut cur);
            rows += 1;
            Ok(true)
        },
    )?;
    let avg = distinct
        .iter()
        .map(|&d| average_per_prefix(rows, d))
        .collect();
    Ok(TreeStats { rows, avg })
}

/// SQLite's `stat1` average for `distinct` prefixes over `rows` entries:
/// rounded up, and 2 written as 1 when the prefix is within 10% of unique
/// (`analyze.c`, statGet), so near-unique columns rank as unique.
fn average_per_prefix(rows: u64, distinct: u64) -> u64 {
    if distinct == 0 {
        return 0;
    }
    let avg = rows.div_ceil(distinct);
    if avg == 2 && rows.saturating_mul(10) <= distinct.saturating_mul(11) {
        1
    } else {
        avg
    }
}

/// Writes the entry of `tree` and records it in the catalog.
fn store(kv: &mut dyn Kv, cat: &mut Catalog, tree: &str, stats: TreeStats) -> Result<()> {
    kv.create_tree(STAT_TREE)?;
    let fields: Vec<Value> = std::iter::once(stats.rows)
        .chain(stats.avg.iter().copied())
        .map(|n| Value::Integer(i64::try_from(n).unwrap_or(i64::MAX)))
        .collect();
    kv.insert(STAT_TREE, tree.as_bytes(), &record::encode(&fields))?;
    cat.stats.insert(tree.to_string(), Rc::new(stats));
    Ok(())
}

/// Removes the statistics of `tree`, if any (the catalog's and the
/// stored entry: the two are kept equal).
pub(crate) fn forget(kv: &mut dyn Kv, cat: &mut Catalog, tree: &str) -> Result<()> {
    if cat.stats.remove(tree).is_some() {
        kv.remove(STAT_TREE, tree.as_bytes())?;
    }
    Ok(())
}

/// Reads the stored statistics of the trees of `cat` (empty when the
/// database was never analyzed).
pub(crate) fn load_stats(kv: &dyn Kv, cat: &Catalog) -> Result<BTreeMap<String, Rc<TreeStats>>> {
    let mut out = BTreeMap::new();
    if !kv.tree_exists(STAT_TREE)? {
        return Ok(out);
    }
    let known = |tree: &str| {
        cat.tables.values().any(|t| t.tree == tree) || cat.indexes.values().any(|i| i.tree == tree)
    };
    for (k, v) in kv.scan(STAT_TREE, Bound::Unbounded, Bound::Unbounded, false, None)? {
        let tree = String::from_utf8(k).map_err(|_| corrupt!(0, "statistics: bad tree name"))?;
        let bad = || corrupt!(0, "statistics of {tree}: malformed entry");
        let numbers = record::decode(&v)?
            .iter()
            .map(|f| match f {
                Value::Integer(n) => u64::try_from(*n).map_err(|_| bad()),
                _ => Err(bad()),
            })
            .collect::<Result<Vec<u64>>>()?;
        let Some((&rows, avg)) = numbers.split_first() else {
            return Err(bad());
        };
        if known(&tree) {
            let avg = avg.to_vec();
            out.insert(tree, Rc::new(TreeStats { rows, avg }));
        }
    }
    Ok(out)
}

/// The rows of `sqlite_stat1`: (table, index or NULL, `"rows avg1 ..."`),
/// in table then index name order.
pub(crate) fn stat1_rows(cat: &Catalog) -> Vec<[Value; 3]> {
    let mut rows = Vec::new();
    for t in cat.tables.values() {
        let text = |s: &TreeStats| {
            let mut out = s.rows.to_string();
            for a in &s.avg {
                out.push(' ');
                out.push_str(&a.to_string());
            }
            Value::Text(out)
        };
        if let Some(s) = cat.stats.get(&t.tree) {
            rows.push([Value::Text(t.name.clone()), Value::Null, text(s)]);
        }
        for ix in cat.table_indexes(&t.name) {
            if let Some(s) = cat.stats.get(&ix.tree) {
                rows.push([
                    Value::Text(t.name.clone()),
                    Value::Text(ix.name.clone()),
                    text(s),
                ]);
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::exec::kv::MemKv;
    use crate::Error;

    #[test]
    fn averages_round_up_and_near_unique_prefixes_count_as_unique() {
        assert_eq!(average_per_prefix(0, 0), 0);
        assert_eq!(average_per_prefix(7, 2), 4);
        assert_eq!(average_per_prefix(10, 5), 2);
        // 11 entries, 10 distinct: within 10% of unique.
        assert_eq!(average_per_prefix(11, 10), 1);
        assert_eq!(average_per_prefix(20, 20), 1);
    }

    #[test]
    fn stored_entries_load_and_malformed_ones_are_corrupt() {
        let mut kv = MemKv::default();
        let mut cat = Catalog::default();
        let stmt = crate::sql::parser::parse("CREATE TABLE t(x)").expect("parse");
        crate::sql::exec::statement::run(
            &mut kv,
            &mut cat,
            &stmt[0],
            "CREATE TABLE t(x)",
            &[],
            crate::sql::exec::dml::DmlOptions {
                foreign_keys: true,
                recursive_triggers: false,
                defer_foreign_keys: false,
                batch_limit: 1 << 20,
            },
        )
        .expect("create");
        let tree = cat.tables["t"].tree.clone();
        kv.create_tree(STAT_TREE).expect("tree");
        let entry = record::encode(&[Value::Integer(5)]);
        kv.insert(STAT_TREE, tree.as_bytes(), &entry)
            .expect("insert");
        kv.insert(STAT_TREE, b"t999", &entry).expect("insert");
        let loaded = load_stats(&kv, &cat).expect("load");
        assert_eq!(
            loaded.keys().collect::<Vec<_>>(),
            [&tree],
            "unknown trees ignored"
        );
        assert_eq!(loaded[&tree].rows, 5);
        for bad in [
            record::encode(&[]),
            record::encode(&[Value::Integer(-1)]),
            record::encode(&[Value::Integer(3), Value::Text("x".into())]),
        ] {
            kv.insert(STAT_TREE, tree.as_bytes(), &bad).expect("insert");
            let r = load_stats(&kv, &cat);
            assert!(matches!(r, Err(Error::Corrupt { .. })), "{r:?}");
        }
    }
}
