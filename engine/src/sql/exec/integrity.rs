//! The SQL half of `Database::check`: every table and index tree exists,
//! and each index holds exactly the entries its table's rows imply (one
//! per row inside a partial index's predicate, none else), as SQLite's
//! `integrity_check` verifies.
//!
//! A table is read once, in key order, each row's index keys computed as it
//! passes, and pushed into one [`KeySorter`] for all the table's indexes,
//! each key behind its index's number; sorted, the keys come index by
//! index, each index's in its own order, and are merged with the index's
//! entries, read in order. Only the keys are held, never the rows, and
//! they are held as an index build holds them: within the batch limit's
//! memory share, past it in sorted runs in temp space. Without temp space
//! a check that needs more fails with `BatchLimitExceeded`.
//! Each row is decoded whole into one reused row, so that a record that
//! does not decode is reported even in a table without indexes.
//! The per-table and per-index work are functions of their own: V8
//! switches a wasm function to optimized code only between calls, and a
//! check runs once (an import checks the whole file).

use std::ops::Bound;

use super::keysort::{KeySorter, SortedKeys};
use super::kv::Kv;
use super::write::{index_plan, visit_index_keys, IndexPlan, RowDecode};
use super::ExecCtx;
use crate::sql::catalog::{Catalog, Table};
use crate::storage::Problem;
use crate::{Error, Result};

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
    // Each index with a tree; the keys its table's rows imply go to one
    // sorter for all.
    let mut plans: Vec<IndexPlan> = Vec::new();
    for ix in cat.table_indexes(&table.name) {
        if !kv.tree_exists(&ix.tree)? {
            problems.push(problem(format!(
                "index {} has no tree {}",
                ix.name, ix.tree
            )));
            continue;
        }
        plans.push(index_plan(cat, table, &ix)?);
    }
    // Every row is decoded whole, so that a record that does not decode
    // is found even where no index reads it.
    let params = [];
    let ctx = ExecCtx::new(kv, &params, limit);
    let mut sorter = KeySorter::new(ctx.budget().clone(), ctx.temp.clone());
    let tag = Tag::for_indexes(plans.len());
    visit_index_keys(
        &ctx,
        table,
        &plans,
        RowDecode::All,
        &|number, out| tag.push(number, out),
        &mut |e| {
            problems.push(problem(format!("table {}: {e}", table.name)));
            Ok(())
        },
        &mut |_, key, _| sorter.push(key, false),
    )?;
    let mut expected = Expected {
        sorted: sorter.finish()?,
        tag,
        current: None,
    };
    expected.advance()?;
    for (number, plan) in plans.iter().enumerate() {
        let (missing, extra) = compare_index(kv, &plan.index.tree, number, &mut expected)?;
        if missing > 0 || extra > 0 {
            problems.push(problem(format!(
                "index {} of {}: {missing} entries missing, {extra} entries without a row",
                plan.index.name, table.name
            )));
        }
    }
    Ok(())
}

/// How an expected key names its index: the index's number, big-endian,
/// in as few bytes as the table's count of indexes needs (so that a key's
/// first eight bytes, which the sort compares first, are mostly its own).
#[derive(Clone, Copy)]
struct Tag {
    width: usize,
}

impl Tag {
    fn for_indexes(count: usize) -> Tag {
        let width = match count {
            0..=0x100 => 1,
            0x101..=0x1_0000 => 2,
            _ => 4,
        };
        Tag { width }
    }

    fn push(self, number: usize, out: &mut Vec<u8>) {
        let bytes = (number as u32).to_be_bytes();
        out.extend_from_slice(&bytes[4 - self.width..]);
    }

    /// The index number and the key behind it; `None` for a record too
    /// short to hold a tag (temp space handed back something else).
    fn split(self, tagged: &[u8]) -> Option<(usize, &[u8])> {
        let (tag, key) = tagged.split_at_checked(self.width)?;
        let number = tag.iter().fold(0usize, |n, &b| (n << 8) | usize::from(b));
        Some((number, key))
    }
}

/// The expected keys read back in order, one ahead.
struct Expected {
    sorted: SortedKeys,
    tag: Tag,
    /// The next key not yet matched: its index's number and the key.
    current: Option<(usize, Vec<u8>)>,
}

impl Expected {
    /// Moves to the next key (each is distinct: an index key ends in its
    /// row's rowid).
    fn advance(&mut self) -> Result<()> {
        let Some((tagged, _)) = self.sorted.next()? else {
            self.current = None;
            return Ok(());
        };
        let Some((number, key)) = self.tag.split(tagged) else {
            return Err(Error::Io("temp space: an index key without its tag".into()));
        };
        let (n, k) = self.current.get_or_insert_with(|| (number, Vec::new()));
        *n = number;
        k.clear();
        k.extend_from_slice(key);
        Ok(())
    }

    /// The next key if it belongs to index `number`.
    fn of(&self, number: usize) -> Option<&[u8]> {
        match &self.current {
            Some((n, k)) if *n == number => Some(k),
            _ => None,
        }
    }
}

/// How many of index `number`'s expected keys its tree lacks, and how
/// many of its entries they lack: the two merged in key order. Leaves
/// `expected` at the next index's first key.
#[inline(never)]
fn compare_index(
    kv: &dyn Kv,
    tree: &str,
    number: usize,
    expected: &mut Expected,
) -> Result<(usize, usize)> {
    let (mut missing, mut extra) = (0, 0);
    kv.visit(
        tree,
        Bound::Unbounded,
        Bound::Unbounded,
        false,
        &mut |k, _| {
            while expected.of(number).is_some_and(|e| e < k) {
                missing += 1;
                expected.advance()?;
            }
            if expected.of(number) == Some(k) {
                expected.advance()?;
            } else {
                extra += 1;
            }
            Ok(true)
        },
    )?;
    while expected.of(number).is_some() {
        missing += 1;
        expected.advance()?;
    }
    Ok((missing, extra))
}
