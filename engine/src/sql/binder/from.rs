//! Binding FROM clauses: tables, views, CTEs (recursive ones as a working
//! table), subqueries, `sqlite_schema`, joins with ON / USING / NATURAL,
//! and the flat row layout of the items.

use std::rc::Rc;

use super::expr::AggCtx;
use super::scope::{Scope, ScopeColumn, ScopeItem};
use super::Binder;
use crate::sql::ast;
use crate::sql::catalog::{Index, Table};
use crate::sql::planner::plan::{Body, Expr, FromItem, IndexInfo, Query, Source};
use crate::sql::value::{Affinity, Collation, Value};
use crate::{sql_err, Result};

/// Join conditions of a FROM clause: (item index, ON/USING condition).
pub(super) type JoinConditions = Vec<(usize, ast::Expr)>;

/// One FROM item during binding, before the scope exists.
pub(super) struct PendingItem {
    name: String,
    source: Source,
    columns: Vec<ScopeColumn>,
    has_rowid: bool,
    left_join: bool,
    rows: f64,
    indexes: Vec<Rc<Index>>,
}

impl Binder<'_> {
    /// Binds a FROM clause's items; returns them with the join conditions
    /// (item index, condition).
    pub(super) fn bind_from(
        &mut self,
        from: &ast::FromClause,
        parent: &Scope,
    ) -> Result<(Vec<PendingItem>, JoinConditions)> {
        let mut items = Vec::new();
        let mut conds = Vec::new();
        self.bind_from_item(&from.first, parent, false, &mut items, &mut conds)?;
        for join in &from.joins {
            let left = match join.operator.kind {
                ast::JoinKind::Left => true,
                ast::JoinKind::Right | ast::JoinKind::Full => {
                    return Err(sql_err!("RIGHT and FULL OUTER JOINs are not supported"));
                }
                _ => false,
            };
            let first_new = items.len();
            self.bind_from_item(&join.table, parent, left, &mut items, &mut conds)?;
            let using: Vec<String> = match &join.constraint {
                Some(ast::JoinConstraint::On(e)) => {
                    conds.push((first_new, e.clone()));
                    Vec::new()
                }
                Some(ast::JoinConstraint::Using(cols)) => cols.clone(),
                None if join.operator.natural => natural_columns(&items, first_new),
                None => Vec::new(),
            };
            for col in using {
                let left_item = (0..first_new)
                    .find(|&i| {
                        items[i]
                            .columns
                            .iter()
                            .any(|c| !c.hidden && c.name.eq_ignore_ascii_case(&col))
                    })
                    .ok_or_else(|| {
                        sql_err!(
                            "cannot join using column {col} - column not present in both tables"
                        )
                    })?;
                let right = &mut items[first_new];
                let rc = right
                    .columns
                    .iter_mut()
                    .find(|c| c.name.eq_ignore_ascii_case(&col))
                    .ok_or_else(|| {
                        sql_err!(
                            "cannot join using column {col} - column not present in both tables"
                        )
                    })?;
                rc.hidden = true;
                let qualified = |t: &str| ast::Expr {
                    kind: ast::ExprKind::Column(ast::ColumnRef {
                        schema: None,
                        table: Some(t.to_string()),
                        column: col.clone(),
                        double_quoted: false,
                    }),
                    pos: join.pos,
                };
                let cond = ast::Expr {
                    kind: ast::ExprKind::Binary {
                        op: ast::BinaryOp::Eq,
                        left: Box::new(qualified(&items[left_item].name)),
                        right: Box::new(qualified(&items[first_new].name)),
                    },
                    pos: join.pos,
                };
                conds.push((first_new, cond));
            }
        }
        Ok((items, conds))
    }

    fn bind_from_item(
        &mut self,
        t: &ast::TableOrSubquery,
        parent: &Scope,
        left_join: bool,
        items: &mut Vec<PendingItem>,
        conds: &mut Vec<(usize, ast::Expr)>,
    ) -> Result<()> {
        match t {
            ast::TableOrSubquery::Table { name, alias, .. } => {
                let item = self.bind_named_source(&name.name, alias.as_deref(), left_join)?;
                items.push(item);
            }
            ast::TableOrSubquery::Subquery { select, alias, .. } => {
                let (query, affs, correlated) = self.bind_query_in(select, Some(parent))?;
                let columns = query_columns(&query, &affs);
                let id = super::next_plan_id();
                let sub = Rc::new(crate::sql::planner::plan::SubqueryPlan {
                    id,
                    query,
                    correlated,
                });
                let name = alias.clone().unwrap_or_else(|| format!("(subquery-{id})"));
                items.push(PendingItem {
                    name,
                    source: Source::Query { query: sub },
                    columns,
                    has_rowid: false,
                    left_join,
                    rows: 100.0,
                    indexes: Vec::new(),
                });
            }
            ast::TableOrSubquery::Nested { from, .. } => {
                let (inner, inner_conds) = self.bind_from(from, parent)?;
                let base = items.len();
                for (i, mut it) in inner.into_iter().enumerate() {
                    if i == 0 {
                        it.left_join |= left_join;
                    }
                    items.push(it);
                }
                conds.extend(inner_conds.into_iter().map(|(i, c)| (i + base, c)));
            }
            ast::TableOrSubquery::Function { name, .. } => {
                return Err(sql_err!("no such table-valued function: {}", name.name));
            }
        }
        Ok(())
    }

    /// A table, view or CTE named in FROM.
    fn bind_named_source(
        &mut self,
        name: &str,
        alias: Option<&str>,
        left_join: bool,
    ) -> Result<PendingItem> {
        let shown = alias.unwrap_or(name).to_string();
        if let Some(pos) = self
            .ctes
            .iter()
            .rposition(|c| c.name.eq_ignore_ascii_case(name))
        {
            return self.bind_cte_ref(pos, shown, left_join);
        }
        if ["sqlite_schema", "sqlite_master"]
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
        {
            return Ok(self.schema_source(shown, left_join));
        }
        if name.eq_ignore_ascii_case("sqlite_stat1") {
            return Ok(self.stat1_source(shown, left_join));
        }
        if let Some(table) = self.catalog.table(name) {
            let columns = table
                .columns
                .iter()
                .map(|c| ScopeColumn {
                    name: c.name.clone(),
                    affinity: Some(c.affinity),
                    collation: c.collation,
                    decl_type: c.decl_type.clone(),
                    hidden: false,
                })
                .collect();
            let rows = self.stats.map_or(1000.0, |f| f(&table.tree) as f64);
            let indexes = self.catalog.table_indexes(&table.name);
            return Ok(PendingItem {
                name: shown,
                source: Source::Table(table.clone()),
                columns,
                has_rowid: true,
                left_join,
                rows,
                indexes,
            });
        }
        if let Some(view) = self
            .catalog
            .views
            .get(&crate::sql::catalog::key(name))
            .cloned()
        {
            if self.view_depth > 32 {
                return Err(sql_err!("view {} is circularly defined", view.name));
            }
            self.view_depth += 1;
            let saved = std::mem::take(&mut self.ctes);
            let bound = self.bind_query_in(&view.select, None);
            self.ctes = saved;
            self.view_depth -= 1;
            let (query, affs, _) = bound?;
            let mut columns = query_columns(&query, &affs);
            for (c, n) in columns.iter_mut().zip(view.columns.iter()) {
                c.name = n.clone();
            }
            let id = super::next_plan_id();
            let sub = Rc::new(crate::sql::planner::plan::SubqueryPlan {
                id,
                query,
                correlated: false,
            });
            return Ok(PendingItem {
                name: shown,
                source: Source::Query { query: sub },
                columns,
                has_rowid: false,
                left_join,
                rows: 100.0,
                indexes: Vec::new(),
            });
        }
        Err(sql_err!("no such table: {name}"))
    }

    /// `sqlite_schema` (alias `sqlite_master`): one row per table, index and
    /// view: (type, name, tbl_name, rootpage, sql). `rootpage` is 0:
    /// TinyJoin names trees instead of numbering pages.
    fn schema_source(&mut self, shown: String, left_join: bool) -> PendingItem {
        let text = |s: &str| Expr::Literal(Value::Text(s.to_string()));
        let mut rows = Vec::new();
        for t in self.catalog.tables.values() {
            rows.push(vec![
                text("table"),
                text(&t.name),
                text(&t.name),
                Expr::Literal(Value::Integer(0)),
                text(&t.sql),
            ]);
        }
        for ix in self.catalog.indexes.values() {
            let table = self
                .catalog
                .tables
                .get(&ix.table)
                .map_or(ix.table.clone(), |t| t.name.clone());
            let sql = ix.sql.as_deref().map_or(Expr::Literal(Value::Null), text);
            rows.push(vec![
                text("index"),
                text(&ix.name),
                text(&table),
                Expr::Literal(Value::Integer(0)),
                sql,
            ]);
        }
        for v in self.catalog.views.values() {
            rows.push(vec![
                text("view"),
                text(&v.name),
                text(&v.name),
                Expr::Literal(Value::Integer(0)),
                text(&v.sql),
            ]);
        }
        let names = ["type", "name", "tbl_name", "rootpage", "sql"];
        let types = ["TEXT", "TEXT", "TEXT", "INT", "TEXT"];
        Self::constant_source(shown, left_join, &names, &types, rows)
    }

    /// `sqlite_stat1`: ANALYZE's statistics, one row per analyzed index
    /// (or table without a full index): (tbl, idx, stat), read-only.
    fn stat1_source(&mut self, shown: String, left_join: bool) -> PendingItem {
        let rows = crate::sql::exec::analyze::stat1_rows(self.catalog)
            .into_iter()
            .map(|r| r.into_iter().map(Expr::Literal).collect())
            .collect();
        Self::constant_source(shown, left_join, &["tbl", "idx", "stat"], &[""; 3], rows)
    }

    /// A FROM item of constant rows (the catalog's tables `sqlite_schema`
    /// and `sqlite_stat1`): columns `names` of declared types `types`.
    fn constant_source(
        shown: String,
        left_join: bool,
        names: &[&str],
        types: &[&str],
        rows: Vec<Vec<Expr>>,
    ) -> PendingItem {
        let query = Query {
            body: Body::Values(rows),
            order_by: Vec::new(),
            limit: None,
            offset: None,
            columns: names.iter().map(|n| n.to_string()).collect(),
            decl_types: types.iter().map(|t| t.to_string()).collect(),
        };
        let columns = query_columns(&query, &vec![None; names.len()]);
        let id = super::next_plan_id();
        let sub = Rc::new(crate::sql::planner::plan::SubqueryPlan {
            id,
            query,
            correlated: false,
        });
        PendingItem {
            name: shown,
            source: Source::Query { query: sub },
            columns,
            has_rowid: false,
            left_join,
            rows: 10.0,
            indexes: Vec::new(),
        }
    }

    fn bind_cte_ref(&mut self, pos: usize, shown: String, left_join: bool) -> Result<PendingItem> {
        let cte = self.ctes[pos].clone();
        if let Some(columns) = &cte.working {
            // A reference from inside the recursive step.
            return Ok(PendingItem {
                name: shown,
                source: Source::CteWorking(cte.id),
                columns: columns.clone(),
                has_rowid: false,
                left_join,
                rows: 100.0,
                indexes: Vec::new(),
            });
        }
        // Bind with only the CTEs defined before (and including, if
        // recursive) this one visible.
        let saved = self.ctes.split_off(pos + 1);
        let bound = if cte.recursive {
            self.bind_recursive_cte(pos)
        } else {
            let own = self.ctes.pop();
            let r = self.bind_query_in(&cte.select, None);
            self.ctes.extend(own);
            r
        };
        self.ctes.extend(saved);
        let (query, affs, correlated) = bound?;
        let mut columns = query_columns(&query, &affs);
        if !cte.columns.is_empty() {
            if cte.columns.len() != columns.len() {
                return Err(sql_err!(
                    "table {} has {} values for {} columns",
                    cte.name,
                    columns.len(),
                    cte.columns.len()
                ));
            }
            for (c, n) in columns.iter_mut().zip(cte.columns.iter()) {
                c.name = n.clone();
            }
        }
        let id = super::next_plan_id();
        let sub = Rc::new(crate::sql::planner::plan::SubqueryPlan {
            id,
            query,
            correlated,
        });
        Ok(PendingItem {
            name: shown,
            source: Source::Query { query: sub },
            columns,
            has_rowid: false,
            left_join,
            rows: 100.0,
            indexes: Vec::new(),
        })
    }

    /// `WITH RECURSIVE name AS (initial UNION [ALL] step)`.
    fn bind_recursive_cte(&mut self, pos: usize) -> Result<(Query, Vec<Option<Affinity>>, bool)> {
        let cte = self.ctes[pos].clone();
        let select = &cte.select;
        let Some((op, step_core)) = select.compounds.last() else {
            return Err(sql_err!("recursive reference in a subquery: {}", cte.name));
        };
        if !matches!(
            op,
            ast::CompoundOperator::Union | ast::CompoundOperator::UnionAll
        ) {
            return Err(sql_err!("circular reference: {}", cte.name));
        }
        let mut initial_sel = select.clone();
        initial_sel.compounds.pop();
        initial_sel.order_by.clear();
        initial_sel.limit = None;
        let own = self.ctes.pop();
        let initial = self.bind_query_in(&initial_sel, None);
        self.ctes.extend(own);
        let (initial, affs, _) = initial?;
        let mut columns = query_columns(&initial, &affs);
        if !cte.columns.is_empty() {
            for (c, n) in columns.iter_mut().zip(cte.columns.iter()) {
                c.name = n.clone();
            }
        }
        self.ctes[pos].working = Some(columns);
        let mut marker = Scope::new(Vec::new(), None);
        marker.transparent = true;
        let step = self.bind_core(step_core, None, &marker);
        self.ctes[pos].working = None;
        let step = step?;
        let body = Body::Recursive {
            cte: cte.id,
            initial: Box::new(initial.body),
            step: Box::new(step.body),
            union_all: *op == ast::CompoundOperator::UnionAll,
        };
        let order_by = self.compound_order(
            &select.order_by,
            &initial.columns,
            &vec![None; initial.columns.len()],
            &vec![Collation::Binary; initial.columns.len()],
        )?;
        let (limit, offset) = match &select.limit {
            Some(l) => {
                let mut agg = AggCtx::default();
                let scope = Scope::new(Vec::new(), None);
                let lim = self.bind_plain(&l.limit, &scope, &mut agg)?;
                let off = match &l.offset {
                    Some(o) => Some(self.bind_plain(o, &scope, &mut agg)?),
                    None => None,
                };
                (Some(lim), off)
            }
            None => (None, None),
        };
        Ok((
            Query {
                body,
                order_by,
                limit,
                offset,
                columns: initial.columns,
                decl_types: initial.decl_types,
            },
            affs,
            false,
        ))
    }
}

pub(super) fn query_columns(query: &Query, affs: &[Option<Affinity>]) -> Vec<ScopeColumn> {
    query
        .columns
        .iter()
        .enumerate()
        .map(|(i, n)| ScopeColumn {
            name: n.clone(),
            affinity: affs.get(i).copied().flatten(),
            collation: Collation::Binary,
            decl_type: query.decl_types.get(i).cloned().unwrap_or_default(),
            hidden: false,
        })
        .collect()
}

/// Assigns slots: each item's columns, then (tables) the rowid; binds each
/// table's index expressions at its slots.
pub(super) fn layout(
    binder: &mut Binder,
    pending: Vec<PendingItem>,
) -> (Vec<FromItem>, Vec<ScopeItem>, usize) {
    let mut offset = 0;
    let mut items = Vec::with_capacity(pending.len());
    let mut scope_items = Vec::with_capacity(pending.len());
    for p in pending {
        let width = p.columns.len() + usize::from(p.has_rowid);
        let rowid = if p.has_rowid {
            Some(offset + p.columns.len())
        } else {
            None
        };
        let indexes = match &p.source {
            Source::Table(t) => index_infos(binder, t, &p.indexes, offset),
            _ => Vec::new(),
        };
        scope_items.push(ScopeItem {
            name: p.name.clone(),
            columns: p.columns,
            offset,
            rowid,
        });
        items.push(FromItem {
            name: p.name,
            source: p.source,
            offset,
            width,
            left_join: p.left_join,
            rows: p.rows,
            indexes,
            used: vec![true; width],
            used_outside: vec![true; width],
        });
        offset += width;
    }
    (items, scope_items, offset)
}

/// Binds the key expressions and predicates of `table`'s indexes as if the
/// table's row started at slot `offset` (an index that fails to bind is
/// left out: the planner just does not use it).
pub(crate) fn index_infos(
    binder: &mut Binder,
    table: &Table,
    indexes: &[Rc<Index>],
    offset: usize,
) -> Vec<IndexInfo> {
    // The table's scope, built only for an index on an expression or a
    // partial one (plain columns need no binding).
    let mut scope: Option<Scope> = None;
    let table_scope = || {
        let mut item = crate::sql::exec::write::table_scope_item(table, &table.name);
        item.offset = offset;
        item.rowid = Some(offset + table.columns.len());
        Scope::new(vec![item], None)
    };
    let mut agg = AggCtx::default();
    let mut out = Vec::new();
    'indexes: for ix in indexes {
        let mut exprs = Vec::with_capacity(ix.columns.len());
        for c in &ix.columns {
            match c.column {
                Some(col) => exprs.push(Expr::Column {
                    level: 0,
                    index: offset + col,
                }),
                None => {
                    let scope = scope.get_or_insert_with(table_scope);
                    match binder.bind_plain(&c.expr, scope, &mut agg) {
                        Ok(e) => exprs.push(e),
                        Err(_) => continue 'indexes,
                    }
                }
            }
        }
        let mut predicate = Vec::new();
        if let Some(p) = &ix.predicate {
            let scope = scope.get_or_insert_with(table_scope);
            for c in super::select::split_and(p) {
                match binder.bind_plain(c, scope, &mut agg) {
                    Ok(e) => predicate.push(e),
                    Err(_) => continue 'indexes,
                }
            }
        }
        out.push(IndexInfo {
            index: ix.clone(),
            exprs,
            predicate,
        });
    }
    out
}

fn natural_columns(items: &[PendingItem], right: usize) -> Vec<String> {
    items[right]
        .columns
        .iter()
        .filter(|c| {
            items[..right].iter().any(|it| {
                it.columns
                    .iter()
                    .any(|l| !l.hidden && l.name.eq_ignore_ascii_case(&c.name))
            })
        })
        .map(|c| c.name.clone())
        .collect()
}
