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
//! `sqlite_sequence` (`name`, `seq`), not listed in `sqlite_schema` (unlike
//! SQLite's); DELETE and UPDATE change them ([`SequenceWrite`]), as a
//! test or an app resetting a counter does.

use std::ops::Bound;

use super::kv::Kv;
use super::scan::Row;
use super::ExecCtx;
use crate::error::Position;
use crate::sql::ast;
use crate::sql::binder::Binder;
use crate::sql::catalog::{key, Catalog};
use crate::sql::planner::plan::Query;
use crate::sql::record;
use crate::sql::value::{apply_affinity, Affinity, Value};
use crate::{sql_err, Result};

/// The tree of the sequences.
pub(crate) const SEQ_TREE: &str = "__seq";

/// The largest rowid an INSERT gave table `name` (0 when none did).
pub(crate) fn read(kv: &dyn Kv, name: &str) -> Result<i64> {
    Ok(stored(kv, name)?.unwrap_or(0))
}

/// Table `name`'s stored sequence, if it has one.
fn stored(kv: &dyn Kv, name: &str) -> Result<Option<i64>> {
    if !kv.tree_exists(SEQ_TREE)? {
        return Ok(None);
    }
    let mut seq = None;
    kv.get_with(SEQ_TREE, key(name).as_bytes(), &mut |v| {
        seq = match record::decode(v)?.get(1) {
            Some(Value::Integer(n)) => Some(*n),
            _ => Some(0),
        };
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
    if let Some(seq) = stored(kv, old)? {
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

/// A DELETE or UPDATE of `sqlite_sequence`, planned as the query giving,
/// for each entry it changes, the entry's name, then (UPDATE) its new name
/// and sequence.
pub(crate) struct SequenceWrite {
    query: Query,
    delete: bool,
}

/// Whether `name` names `sqlite_sequence` (in `main`).
pub(crate) fn is_sequence_table(name: &ast::QualifiedName) -> bool {
    name.name.eq_ignore_ascii_case("sqlite_sequence")
        && name
            .schema
            .as_deref()
            .is_none_or(|s| s.eq_ignore_ascii_case("main"))
}

impl SequenceWrite {
    /// Plans a DELETE (`sets` None) or an UPDATE of `sqlite_sequence`.
    /// RETURNING, UPDATE ... FROM and conflict clauses other than the
    /// default are refused, as are multi-column assignments.
    pub(crate) fn new(
        cat: &Catalog,
        with: &Option<ast::With>,
        alias: &Option<String>,
        sets: Option<&[ast::Assignment]>,
        where_clause: &Option<ast::Expr>,
        refused: bool,
    ) -> Result<SequenceWrite> {
        if refused {
            return Err(sql_err!(
                "RETURNING, FROM and OR are not supported on sqlite_sequence"
            ));
        }
        let pos = Position::default();
        let column = |c: &str| ast::Expr {
            kind: ast::ExprKind::Column(ast::ColumnRef {
                schema: None,
                table: None,
                column: c.to_string(),
                double_quoted: false,
            }),
            pos,
        };
        let mut exprs = vec![column("name")];
        if let Some(sets) = sets {
            let mut new = [column("name"), column("seq")];
            for a in sets {
                let [c] = a.columns.as_slice() else {
                    return Err(sql_err!("sqlite_sequence takes one column per assignment"));
                };
                let i = ["name", "seq"]
                    .iter()
                    .position(|n| n.eq_ignore_ascii_case(c))
                    .ok_or_else(|| sql_err!("no such column: {c}"))?;
                new[i] = a.value.clone();
            }
            exprs.extend(new);
        }
        let columns = exprs
            .into_iter()
            .map(|expr| ast::ResultColumn::Expr {
                expr,
                alias: None,
                text: String::new(),
            })
            .collect();
        let select = crate::sql::binder::select::select_rows_of(
            columns,
            ("sqlite_sequence", alias),
            with,
            where_clause,
            pos,
        );
        let (query, _, _) = Binder::new(cat).bind_query_in(&select, None)?;
        Ok(SequenceWrite {
            query,
            delete: sets.is_none(),
        })
    }

    /// Applies the write; returns how many entries it changed.
    pub(crate) fn run(&self, kv: &mut dyn Kv, params: &[Value], limit: u64) -> Result<u64> {
        let rows = ExecCtx::scoped(&*kv, params, limit, |ctx| ctx.run_result(&self.query))?;
        for row in &rows {
            let Some(Value::Text(name)) = row.first() else {
                continue;
            };
            remove(kv, name)?;
            if self.delete {
                continue;
            }
            let new_name = row[1].to_text().unwrap_or_default();
            let seq = match apply_affinity(row[2].clone(), Affinity::Integer) {
                Value::Integer(n) => n,
                _ => 0,
            };
            write(kv, &new_name, seq)?;
        }
        Ok(rows.len() as u64)
    }
}
