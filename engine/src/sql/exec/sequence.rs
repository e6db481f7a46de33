//! AUTOINCREMENT's sequences: for each table declared with it, the largest
//! rowid an INSERT ever gave it, so a new rowid never reuses one of a
//! deleted row (SQLite's guarantee; without AUTOINCREMENT a new rowid is
//! the largest present plus one).
//!
//! Storage: the tree [`SEQ_TREE`] (absent until the first INSERT into such
//! a table) maps a table's lowercase name to the record `(name, seq)`. An
//! INSERT reads its table's entry when it starts, raises it with each
//! row's rowid (as soon as the rowid is known: a row a constraint then
//! skips counts too) and writes it back when it ends, unless a constraint
//! stopped it (SQLite's behaviour, FAIL included); DROP TABLE removes the
//! entry and RENAME TO moves it. SQL reads the entries as SQLite's table
//! `sqlite_sequence` (`name`, `seq`), which, unlike SQLite's, cannot be
//! written and is not listed in `sqlite_schema`.

use std::ops::Bound;

use super::kv::Kv;
use super::scan::Row;
use super::ExecCtx;
use crate::sql::catalog::key;
use crate::sql::record;
use crate::sql::value::Value;
use crate::Result;

/// The tree of the sequences.
pub(crate) const SEQ_TREE: &str = "__seq";

/// The largest rowid an INSERT gave table `name` (0 when none did).
pub(crate) fn read(kv: &dyn Kv, name: &str) -> Result<i64> {
    if !kv.tree_exists(SEQ_TREE)? {
        return Ok(0);
    }
    let mut seq = 0;
    kv.get_with(SEQ_TREE, key(name).as_bytes(), &mut |v| {
        if let Some(Value::Integer(n)) = record::decode(v)?.get(1) {
            seq = *n;
        }
        Ok(())
    })?;
    Ok(seq)
}

/// Stores `seq` as table `name`'s sequence.
pub(crate) fn write(kv: &mut dyn Kv, name: &str, seq: i64) -> Result<()> {
    kv.create_tree(SEQ_TREE)?;
    let value = record::encode(&[Value::Text(name.to_string()), Value::Integer(seq)]);
    kv.insert(SEQ_TREE, key(name).as_bytes(), &value)?;
    Ok(())
}

/// Forgets table `name`'s sequence (DROP TABLE).
pub(crate) fn remove(kv: &mut dyn Kv, name: &str) -> Result<()> {
    if kv.tree_exists(SEQ_TREE)? {
        kv.remove(SEQ_TREE, key(name).as_bytes())?;
    }
    Ok(())
}

/// Moves table `old`'s sequence to its new name `new` (RENAME TO).
pub(crate) fn rename(kv: &mut dyn Kv, old: &str, new: &str) -> Result<()> {
    if kv.tree_exists(SEQ_TREE)? && kv.get(SEQ_TREE, key(old).as_bytes())?.is_some() {
        let seq = read(kv, old)?;
        remove(kv, old)?;
        write(kv, new, seq)?;
    }
    Ok(())
}

impl ExecCtx<'_> {
    /// The rows of `sqlite_sequence`: `(name, seq)` then the rowid (from
    /// 1), in name order; charged to the statement.
    pub(crate) fn sequence_rows(&self) -> Result<Vec<Row>> {
        let mut rows = Vec::new();
        if !self.kv.tree_exists(SEQ_TREE)? {
            return Ok(rows);
        }
        let mut failed = None;
        self.kv.visit(
            SEQ_TREE,
            Bound::Unbounded,
            Bound::Unbounded,
            false,
            &mut |_, v| {
                let mut row = record::decode(v)?;
                row.resize(2, Value::Null);
                row.push(Value::Integer(rows.len() as i64 + 1));
                if let Err(e) = self.charge(super::row_size(&row)) {
                    failed = Some(e);
                    return Ok(false);
                }
                rows.push(row);
                Ok(true)
            },
        )?;
        match failed {
            Some(e) => Err(e),
            None => Ok(rows),
        }
    }
}
