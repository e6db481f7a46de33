//! Reading rows: table rows from their tree, and the candidate rows of a
//! join level through its access path (scan, rowid lookup or range, index
//! probe), plus the index key layout shared with DML.
//!
//! Index key layout (shared by every caller that builds or probes index
//! keys: [`index_key`], [`index_prefix_range`], DML's uniqueness probe):
//! `keycode::encode_key(values, columns)` followed by the 8 raw bytes of
//! `keycode::encode_rowid(rowid)`.

use std::collections::{HashMap, HashSet};
use std::ops::Bound;
use std::rc::Rc;

use super::eval::Env;
use super::ExecCtx;
use crate::sql::catalog::{Index, Table};
use crate::sql::keycode::{self, KeyColumn};
use crate::sql::planner::plan::{Access, Expr, FromItem, Level, Source};
use crate::sql::record;
use crate::sql::value::{apply_affinity, Affinity, Collation, Value};
use crate::{corrupt, Result};

/// A row of values.
pub(crate) type Row = Vec<Value>;

const ROWID_SIZE: usize = 8;

/// Decodes a table entry into the item layout: every column, then the rowid.
pub(crate) fn table_row(table: &Table, key: &[u8], value: &[u8]) -> Result<Row> {
    let rowid = keycode::decode_rowid(key)?;
    let mut row = record::decode(value)?;
    let n = table.columns.len();
    if row.len() > n {
        return Err(corrupt!(
            0,
            "row {rowid} of {} has {} values for {n} columns",
            table.name,
            row.len()
        ));
    }
    for c in row.len()..n {
        row.push(default_literal(table, c));
    }
    if let Some(a) = table.rowid_alias {
        row[a] = Value::Integer(rowid);
    }
    row.push(Value::Integer(rowid));
    Ok(row)
}

/// The value of a column missing from an old record (added by ALTER TABLE
/// ADD COLUMN, whose DEFAULT must be a constant).
fn default_literal(table: &Table, c: usize) -> Value {
    use crate::sql::ast::{ExprKind, Literal, UnaryOp};
    let Some(d) = &table.columns[c].default else {
        return Value::Null;
    };
    let v = match &d.kind {
        ExprKind::Literal(Literal::Integer(i)) => Value::Integer(*i),
        ExprKind::Literal(Literal::Real(r)) => Value::Real(*r),
        ExprKind::Literal(Literal::Text(s)) => Value::Text(s.clone()),
        ExprKind::Literal(Literal::Blob(b)) => Value::Blob(b.clone()),
        ExprKind::Literal(Literal::Bool(b)) => Value::Integer(i64::from(*b)),
        ExprKind::Unary {
            op: UnaryOp::Neg,
            expr,
        } => match &expr.kind {
            ExprKind::Literal(Literal::Integer(i)) => Value::Integer(i.wrapping_neg()),
            ExprKind::Literal(Literal::Real(r)) => Value::Real(-r),
            _ => Value::Null,
        },
        _ => Value::Null,
    };
    apply_affinity(v, table.columns[c].affinity)
}

/// The key columns of an index.
pub(crate) fn key_columns(index: &Index) -> Vec<KeyColumn> {
    index
        .columns
        .iter()
        .map(|c| KeyColumn {
            desc: c.desc,
            collation: c.collation,
        })
        .collect()
}

/// The index key of (values, rowid).
pub(crate) fn index_key(values: &[Value], columns: &[KeyColumn], rowid: i64) -> Vec<u8> {
    let mut k = keycode::encode_key(values, columns);
    k.extend_from_slice(&keycode::encode_rowid(rowid));
    k
}

/// The rowid at the end of an index key.
pub(crate) fn index_key_rowid(key: &[u8]) -> Result<i64> {
    if key.len() < ROWID_SIZE {
        return Err(corrupt!(0, "index key of {} bytes is too short", key.len()));
    }
    keycode::decode_rowid(&key[key.len() - ROWID_SIZE..])
}

/// The smallest byte string greater than every string starting with `p`.
pub(crate) fn prefix_successor(p: &[u8]) -> Bound<Vec<u8>> {
    let mut v = p.to_vec();
    while let Some(last) = v.pop() {
        if last != 0xff {
            v.push(last + 1);
            return Bound::Excluded(v);
        }
    }
    Bound::Unbounded
}

/// Key bounds of every entry starting with `prefix`.
pub(crate) fn index_prefix_range(prefix: &[u8]) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    (Bound::Included(prefix.to_vec()), prefix_successor(prefix))
}

/// Converts a probe value the way the comparison converts it.
fn convert(v: Value, aff: Affinity) -> Value {
    match aff {
        Affinity::Blob => v,
        other => apply_affinity(v, other),
    }
}

impl ExecCtx<'_> {
    /// Every row of a table, decoded.
    pub(crate) fn scan_table(&self, table: &Table) -> Result<Vec<Row>> {
        let entries = self
            .kv
            .scan(&table.tree, Bound::Unbounded, Bound::Unbounded, false, None)?;
        self.charge(
            entries
                .iter()
                .map(|(k, v)| (k.len() + v.len()) as u64)
                .sum(),
        )?;
        entries
            .iter()
            .map(|(k, v)| table_row(table, k, v))
            .collect()
    }

    /// The row with `rowid`, if any.
    pub(crate) fn table_row_by_id(&self, table: &Table, rowid: i64) -> Result<Option<Row>> {
        let key = keycode::encode_rowid(rowid);
        match self.kv.get(&table.tree, &key)? {
            Some(v) => Ok(Some(table_row(table, &key, &v)?)),
            None => Ok(None),
        }
    }

    /// The candidate rows of a join level, given the rows bound so far.
    pub(crate) fn level_rows(
        &self,
        item: &FromItem,
        level: &Level,
        env: &Env,
        lc: &mut LevelCache,
    ) -> Result<Rc<Vec<Row>>> {
        if let Access::Hash {
            build,
            probe,
            affinities,
            collations,
        } = &level.access
        {
            let rows = self.source_rows(item, env, &mut lc.rows)?;
            if lc.hash.is_none() {
                lc.hash = Some(hash_rows(&rows, build, collations));
            }
            let mut key = Vec::new();
            for ((e, aff), coll) in probe.iter().zip(affinities).zip(collations) {
                let v = convert(self.eval(e, env)?, *aff);
                if v.is_null() {
                    return Ok(Rc::new(Vec::new()));
                }
                keycode::append_value(
                    &mut key,
                    &v,
                    KeyColumn {
                        desc: false,
                        collation: *coll,
                    },
                );
            }
            let hits = lc.hash.as_ref().and_then(|h| h.get(&key));
            return Ok(Rc::new(hits.map_or_else(Vec::new, |ix| {
                ix.iter().map(|&i| rows[i].clone()).collect()
            })));
        }
        let Source::Table(table) = &item.source else {
            return self.source_rows(item, env, &mut lc.rows);
        };
        match &level.access {
            Access::Scan | Access::Hash { .. } => self.source_rows(item, env, &mut lc.rows),
            Access::RowidEq(values) => {
                let mut out = Vec::new();
                let mut seen = HashSet::new();
                for v in values {
                    if let Value::Integer(id) = convert(self.eval(v, env)?, Affinity::Numeric) {
                        if seen.insert(id) {
                            out.extend(self.table_row_by_id(table, id)?);
                        }
                    }
                }
                Ok(Rc::new(out))
            }
            Access::RowidRange { lo, hi } => self
                .rowid_range(table, lo.as_ref(), hi.as_ref(), env)
                .map(Rc::new),
            Access::Index {
                index,
                eq,
                affinities,
                lo,
                hi,
                covering,
            } => {
                let probe = IndexProbe {
                    eq,
                    affinities,
                    lo: lo.as_ref(),
                    hi: hi.as_ref(),
                    covering: *covering,
                };
                self.index_rows(table, index, &probe, env).map(Rc::new)
            }
        }
    }

    /// Every row of a level's source, cached for the statement (tables,
    /// uncorrelated subqueries) or per outer row (correlated subqueries).
    fn source_rows(
        &self,
        item: &FromItem,
        env: &Env,
        cache: &mut Option<Rc<Vec<Row>>>,
    ) -> Result<Rc<Vec<Row>>> {
        let correlated = matches!(&item.source, Source::Query { query } if query.correlated);
        if let (Some(rows), false) = (cache.as_ref(), correlated) {
            return Ok(rows.clone());
        }
        let rows = match &item.source {
            Source::Table(t) => Rc::new(self.scan_table(t)?),
            Source::Query { query } => Rc::new(self.run_query(&query.query, env.outer)?),
            Source::CteWorking(id) => self.working.borrow().get(id).cloned().unwrap_or_default(),
        };
        *cache = Some(rows.clone());
        Ok(rows)
    }

    fn rowid_range(
        &self,
        table: &Table,
        lo: Option<&(Expr, bool)>,
        hi: Option<&(Expr, bool)>,
        env: &Env,
    ) -> Result<Vec<Row>> {
        let mut lo_b = Bound::Unbounded;
        let mut hi_b = Bound::Unbounded;
        if let Some((e, _)) = lo {
            match convert(self.eval(e, env)?, Affinity::Numeric) {
                Value::Null => return Ok(Vec::new()),
                Value::Integer(i) => lo_b = Bound::Included(keycode::encode_rowid(i).to_vec()),
                Value::Real(r) => {
                    lo_b = Bound::Included(
                        keycode::encode_rowid(r.floor().max(i64::MIN as f64) as i64).to_vec(),
                    )
                }
                _ => {}
            }
        }
        if let Some((e, _)) = hi {
            match convert(self.eval(e, env)?, Affinity::Numeric) {
                Value::Null => return Ok(Vec::new()),
                Value::Integer(i) => hi_b = Bound::Included(keycode::encode_rowid(i).to_vec()),
                Value::Real(r) => {
                    hi_b = Bound::Included(
                        keycode::encode_rowid(r.ceil().min(i64::MAX as f64) as i64).to_vec(),
                    )
                }
                _ => {}
            }
        }
        let entries = self.kv.scan(&table.tree, lo_b, hi_b, false, None)?;
        entries
            .iter()
            .map(|(k, v)| table_row(table, k, v))
            .collect()
    }

    fn index_rows(
        &self,
        table: &Table,
        index: &Index,
        probe: &IndexProbe,
        env: &Env,
    ) -> Result<Vec<Row>> {
        let IndexProbe {
            eq,
            affinities,
            lo,
            hi,
            covering,
        } = *probe;
        let cols = key_columns(index);
        // Every combination of the equality values (IN lists multiply).
        let mut prefixes: Vec<Vec<Value>> = vec![Vec::new()];
        for (i, values) in eq.iter().enumerate() {
            let mut next = Vec::new();
            let mut seen = HashSet::new();
            for v in values {
                let v = convert(self.eval(v, env)?, affinities[i]);
                if v.is_null()
                    || !seen.insert(keycode::encode_key(std::slice::from_ref(&v), &cols[i..=i]))
                {
                    continue;
                }
                for p in &prefixes {
                    let mut p = p.clone();
                    p.push(v.clone());
                    next.push(p);
                }
            }
            prefixes = next;
        }
        let range_col = eq.len();
        let range_aff = affinities.get(range_col).copied().unwrap_or(Affinity::Blob);
        let bound_value = |b: Option<&(Expr, bool)>| -> Result<Option<Option<(Value, bool)>>> {
            match b {
                None => Ok(Some(None)),
                Some((e, inc)) => {
                    let v = convert(self.eval(e, env)?, range_aff);
                    if v.is_null() {
                        Ok(None)
                    } else {
                        Ok(Some(Some((v, *inc))))
                    }
                }
            }
        };
        let (Some(lo_v), Some(hi_v)) = (bound_value(lo)?, bound_value(hi)?) else {
            return Ok(Vec::new());
        };
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for p in prefixes {
            let prefix = keycode::encode_key(&p, &cols);
            let (lo_k, hi_k) = if range_col < cols.len() && (lo_v.is_some() || hi_v.is_some()) {
                range_bounds(&prefix, cols[range_col], lo_v.as_ref(), hi_v.as_ref())
            } else {
                index_prefix_range(&prefix)
            };
            for (k, _) in self.kv.scan(&index.tree, lo_k, hi_k, false, None)? {
                let rowid = index_key_rowid(&k)?;
                if !seen.insert(rowid) {
                    continue;
                }
                if covering {
                    out.push(row_from_key(table, index, &cols, &k, rowid)?);
                } else {
                    out.extend(self.table_row_by_id(table, rowid)?);
                }
            }
        }
        Ok(out)
    }
}

/// How an index is probed: equality values per key column, a range on
/// the next, and whether the key alone answers the query.
#[derive(Clone, Copy)]
struct IndexProbe<'p> {
    eq: &'p [Vec<Expr>],
    affinities: &'p [Affinity],
    lo: Option<&'p (Expr, bool)>,
    hi: Option<&'p (Expr, bool)>,
    covering: bool,
}

/// A row rebuilt from an index key (covering scans): the indexed columns
/// (their column affinity restores the storage class the key folds, 2 vs
/// 2.0) and the rowid; other columns are NULL, and unread.
fn row_from_key(
    table: &Table,
    index: &Index,
    cols: &[KeyColumn],
    key: &[u8],
    rowid: i64,
) -> Result<Row> {
    let n = table.columns.len();
    let values = keycode::decode_key(&key[..key.len() - ROWID_SIZE], cols)?;
    let mut row = vec![Value::Null; n + 1];
    for (ic, v) in index.columns.iter().zip(values) {
        if let Some(c) = ic.column {
            row[c] = apply_affinity(v, table.columns[c].affinity);
        }
    }
    if let Some(a) = table.rowid_alias {
        row[a] = Value::Integer(rowid);
    }
    row[n] = Value::Integer(rowid);
    Ok(row)
}

/// What a join level keeps between probes: its source rows (when they do
/// not depend on the outer rows) and its hash table.
#[derive(Clone, Debug, Default)]
pub(crate) struct LevelCache {
    pub rows: Option<Rc<Vec<Row>>>,
    pub hash: Option<HashMap<Vec<u8>, Vec<usize>>>,
}

/// Hashes rows by the key of their `build` columns (NULL keys left out:
/// they never equal anything).
fn hash_rows(
    rows: &[Row],
    build: &[usize],
    collations: &[Collation],
) -> HashMap<Vec<u8>, Vec<usize>> {
    let mut map: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
    'rows: for (i, r) in rows.iter().enumerate() {
        let mut key = Vec::new();
        for (&c, coll) in build.iter().zip(collations) {
            if r[c].is_null() {
                continue 'rows;
            }
            keycode::append_value(
                &mut key,
                &r[c],
                KeyColumn {
                    desc: false,
                    collation: *coll,
                },
            );
        }
        map.entry(key).or_default().push(i);
    }
    map
}

/// Key bounds for `prefix` + a range on the next column.
fn range_bounds(
    prefix: &[u8],
    col: KeyColumn,
    lo: Option<&(Value, bool)>,
    hi: Option<&(Value, bool)>,
) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let enc = |v: &Value| {
        let mut k = prefix.to_vec();
        keycode::append_value(&mut k, v, col);
        k
    };
    // In key order, a DESC column's lower value bound is an upper key bound.
    let (key_lo, key_hi) = if col.desc { (hi, lo) } else { (lo, hi) };
    let lo_k = match key_lo {
        None => Bound::Included(prefix.to_vec()),
        Some((v, inc)) => {
            let k = enc(v);
            if *inc {
                Bound::Included(k)
            } else {
                match prefix_successor(&k) {
                    Bound::Excluded(s) => Bound::Included(s),
                    other => other,
                }
            }
        }
    };
    let hi_k = match key_hi {
        None => prefix_successor(prefix),
        Some((v, inc)) => {
            let k = enc(v);
            if *inc {
                prefix_successor(&k)
            } else {
                Bound::Excluded(k)
            }
        }
    };
    (lo_k, hi_k)
}
