//! Binding queries: WITH, compound bodies, SELECT cores (FROM, `*`
//! expansion, WHERE, GROUP BY, HAVING, result columns), ORDER BY and LIMIT.
//! The FROM clause's join order and access paths are left to
//! [`crate::sql::planner::join`].

use std::rc::Rc;

use super::expr::{contains_aggregate, AggCtx, Bound, CollSource};
use super::scope::{Scope, ScopeColumn, ScopeItem};
use super::{Binder, CteDef};
use crate::sql::ast;
use crate::sql::planner::join::{plan_from, Conjunct};
use crate::sql::planner::plan::{Body, Core, Expr, FromItem, Query, SortKey, Source};
use crate::sql::value::{Affinity, Collation, Value};
use crate::{sql_err, Result};

/// `SELECT * FROM name` (for `x IN table`).
pub(crate) fn select_star_from(name: &str, pos: usize) -> ast::Select {
    ast::Select {
        with: None,
        first: ast::SelectCore::Select(Box::new(ast::SelectClause {
            distinct: false,
            columns: vec![ast::ResultColumn::Star { pos }],
            from: Some(ast::FromClause {
                first: ast::TableOrSubquery::Table {
                    name: ast::QualifiedName {
                        schema: None,
                        name: name.to_string(),
                        pos,
                    },
                    alias: None,
                    indexed: None,
                },
                joins: Vec::new(),
            }),
            where_clause: None,
            group_by: Vec::new(),
            having: None,
            windows: Vec::new(),
            pos,
        })),
        compounds: Vec::new(),
        order_by: Vec::new(),
        limit: None,
        pos,
    }
}

/// A bound core plus what ORDER BY over a compound needs to know.
struct BoundCore {
    body: Body,
    columns: Vec<String>,
    decl_types: Vec<String>,
    affinities: Vec<Option<Affinity>>,
    collations: Vec<Collation>,
    /// The result expressions as written (for compound ORDER BY matching).
    result_exprs: Vec<Option<ast::Expr>>,
    /// ORDER BY keys when the core bound them itself (simple SELECT).
    order: Option<Vec<SortKey>>,
}

/// Join conditions of a FROM clause: (item index, ON/USING condition).
type JoinConditions = Vec<(usize, ast::Expr)>;

/// One FROM item during binding, before the scope exists.
struct PendingItem {
    name: String,
    source: Source,
    columns: Vec<ScopeColumn>,
    has_rowid: bool,
    left_join: bool,
    rows: f64,
    indexes: Vec<Rc<crate::sql::catalog::Index>>,
}

impl Binder<'_> {
    /// Binds a full query with `parent` as the enclosing scope. Returns the
    /// plan, each result column's affinity, and whether it is correlated.
    pub(crate) fn bind_query_in(
        &mut self,
        select: &ast::Select,
        parent: Option<&Scope>,
    ) -> Result<(Query, Vec<Option<Affinity>>, bool)> {
        let pushed = match &select.with {
            Some(w) => self.push_ctes(w)?,
            None => 0,
        };
        let result = self.bind_query_body(select, parent);
        let len = self.ctes.len();
        self.ctes.truncate(len - pushed);
        result
    }

    fn push_ctes(&mut self, with: &ast::With) -> Result<usize> {
        for cte in &with.ctes {
            let id = self.next_subquery;
            self.next_subquery += 1;
            let recursive = with.recursive && select_mentions(&cte.select, &cte.name);
            self.ctes.push(CteDef {
                name: cte.name.clone(),
                columns: cte.columns.clone(),
                select: (*cte.select).clone(),
                id,
                recursive,
                working: None,
            });
        }
        Ok(with.ctes.len())
    }

    fn bind_query_body(
        &mut self,
        select: &ast::Select,
        parent: Option<&Scope>,
    ) -> Result<(Query, Vec<Option<Affinity>>, bool)> {
        let mut marker = Scope::new(Vec::new(), parent);
        marker.transparent = true;
        let simple = select.compounds.is_empty();
        let order = if simple {
            Some(select.order_by.as_slice())
        } else {
            None
        };
        let first = self.bind_core(&select.first, order, &marker)?;
        let mut body = first.body;
        for (op, core) in &select.compounds {
            let next = self.bind_core(core, None, &marker)?;
            if next.columns.len() != first.columns.len() {
                return Err(sql_err!(
                    "SELECTs to the left and right of {} do not have the same number of result columns",
                    compound_name(*op)
                ));
            }
            body = Body::Compound {
                op: *op,
                left: Box::new(body),
                right: Box::new(next.body),
            };
        }
        let order_by = match first.order {
            Some(keys) => keys,
            None => self.compound_order(
                &select.order_by,
                &first.columns,
                &first.result_exprs,
                &first.collations,
            )?,
        };
        let (limit, offset) = match &select.limit {
            Some(l) => {
                let mut agg = AggCtx::default();
                let lim = self.bind_plain(&l.limit, &marker, &mut agg)?;
                let off = match &l.offset {
                    Some(o) => Some(self.bind_plain(o, &marker, &mut agg)?),
                    None => None,
                };
                (Some(lim), off)
            }
            None => (None, None),
        };
        let correlated = marker.correlated.get();
        let query = Query {
            body,
            order_by,
            limit,
            offset,
            columns: first.columns,
            decl_types: first.decl_types,
        };
        Ok((query, first.affinities, correlated))
    }

    /// ORDER BY of a compound: each term must name a result column.
    fn compound_order(
        &mut self,
        terms: &[ast::OrderingTerm],
        columns: &[String],
        exprs: &[Option<ast::Expr>],
        collations: &[Collation],
    ) -> Result<Vec<SortKey>> {
        let mut keys = Vec::new();
        for (n, term) in terms.iter().enumerate() {
            let (inner, coll) = crate::sql::catalog::strip_collate(&term.expr);
            let column = match &inner.kind {
                ast::ExprKind::Literal(ast::Literal::Integer(k)) => {
                    if *k < 1 || *k as usize > columns.len() {
                        return Err(order_range_error(n, columns.len()));
                    }
                    Some(*k as usize - 1)
                }
                ast::ExprKind::Column(c) if c.table.is_none() => columns
                    .iter()
                    .position(|x| x.eq_ignore_ascii_case(&c.column))
                    .or_else(|| {
                        exprs
                            .iter()
                            .position(|e| e.as_ref().is_some_and(|e| same_expr(e, inner)))
                    }),
                _ => exprs
                    .iter()
                    .position(|e| e.as_ref().is_some_and(|e| same_expr(e, inner))),
            };
            let column = column.ok_or_else(|| {
                sql_err!(
                    "{} ORDER BY term does not match any column in the result set",
                    ordinal(n + 1)
                )
            })?;
            let collation = match coll {
                Some(c) => crate::sql::catalog::collation_by_name(c)?,
                None => collations[column],
            };
            keys.push(sort_key(term, column, collation));
        }
        Ok(keys)
    }

    fn bind_core(
        &mut self,
        core: &ast::SelectCore,
        order: Option<&[ast::OrderingTerm]>,
        parent: &Scope,
    ) -> Result<BoundCore> {
        match core {
            ast::SelectCore::Values { rows, .. } => self.bind_values(rows, order, parent),
            ast::SelectCore::Select(clause) => self.bind_select_clause(clause, order, parent),
        }
    }

    fn bind_values(
        &mut self,
        rows: &[Vec<ast::Expr>],
        order: Option<&[ast::OrderingTerm]>,
        parent: &Scope,
    ) -> Result<BoundCore> {
        let scope = Scope::new(Vec::new(), Some(parent));
        let mut agg = AggCtx::default();
        let mut bound = Vec::with_capacity(rows.len());
        for row in rows {
            bound.push(
                row.iter()
                    .map(|e| self.bind_plain(e, &scope, &mut agg))
                    .collect::<Result<Vec<_>>>()?,
            );
        }
        if scope.correlated.get() {
            parent.correlated.set(true);
        }
        let width = rows.first().map_or(0, Vec::len);
        let columns: Vec<String> = (1..=width).map(|i| format!("column{i}")).collect();
        let mut result = BoundCore {
            body: Body::Values(bound),
            decl_types: vec![String::new(); width],
            affinities: vec![None; width],
            collations: vec![Collation::Binary; width],
            result_exprs: vec![None; width],
            order: None,
            columns,
        };
        if let Some(terms) = order {
            let keys = self.compound_order(
                terms,
                &result.columns,
                &result.result_exprs,
                &result.collations,
            )?;
            result.order = Some(keys);
        }
        Ok(result)
    }

    fn bind_select_clause(
        &mut self,
        clause: &ast::SelectClause,
        order: Option<&[ast::OrderingTerm]>,
        parent: &Scope,
    ) -> Result<BoundCore> {
        let (pending, joins) = match &clause.from {
            Some(from) => self.bind_from(from, parent)?,
            None => (Vec::new(), Vec::new()),
        };
        let (items, scope_items, width) = layout(pending);
        let scope = Scope::new(scope_items, Some(parent));
        let results = expand_columns(&clause.columns, &scope)?;
        let is_agg = !clause.group_by.is_empty()
            || results.iter().any(|(e, _)| contains_aggregate(e))
            || clause.having.as_ref().is_some_and(contains_aggregate)
            || order.is_some_and(|o| o.iter().any(|t| contains_aggregate(&t.expr)));
        if clause.having.is_some() && !is_agg {
            return Err(sql_err!("a GROUP BY clause is required before HAVING"));
        }
        *scope.aliases.borrow_mut() = clause
            .columns
            .iter()
            .filter_map(|c| match c {
                ast::ResultColumn::Expr {
                    expr,
                    alias: Some(a),
                    ..
                } if !contains_aggregate(expr) => Some((a.clone(), expr.clone())),
                _ => None,
            })
            .collect();
        // WHERE and join conditions.
        let mut conjuncts = Vec::new();
        let mut no_agg = AggCtx::default();
        if let Some(w) = &clause.where_clause {
            for c in split_and(w) {
                let e = self.bind_plain(c, &scope, &mut no_agg)?;
                conjuncts.push(Conjunct::new(e, None, &items));
            }
        }
        for (item, cond) in &joins {
            for c in split_and(cond) {
                let e = self.bind_plain(c, &scope, &mut no_agg)?;
                let on = if items[*item].left_join {
                    Some(*item)
                } else {
                    None
                };
                conjuncts.push(Conjunct::new(e, on, &items));
            }
        }
        let mut agg = AggCtx {
            allowed: is_agg,
            windows_allowed: true,
            named: clause.windows.clone(),
            ..AggCtx::default()
        };
        let group_by = self.bind_group_by(&clause.group_by, &results, &scope)?;
        let mut output = Vec::with_capacity(results.len());
        let mut names = Vec::new();
        let mut decl_types = Vec::new();
        let mut affinities = Vec::new();
        let mut collations = Vec::new();
        for (e, name) in &results {
            let b = self.bind_expr(e, &scope, &mut agg)?;
            names.push(name.clone());
            decl_types.push(b.decl_type.clone().unwrap_or_default());
            affinities.push(b.aff);
            collations.push(coll_of(&b));
            output.push(b.expr);
        }
        let having = match &clause.having {
            Some(h) => {
                agg.windows_allowed = false;
                let e = self.bind_plain(h, &scope, &mut agg)?;
                agg.windows_allowed = true;
                Some(e)
            }
            None => None,
        };
        let visible = output.len();
        let keys = match order {
            Some(terms) => Some(self.bind_core_order(
                terms,
                &results,
                &scope,
                &mut agg,
                &mut output,
                &collations,
            )?),
            None => None,
        };
        let from = plan_from(self.catalog, items, conjuncts, width)?;
        let (from, filter) = from;
        let aggregate = if is_agg {
            Some(crate::sql::planner::plan::Aggregation {
                group_by,
                calls: std::mem::take(&mut agg.calls),
                having,
            })
        } else {
            None
        };
        let core = Core {
            from,
            filter,
            aggregate,
            windows: std::mem::take(&mut agg.windows),
            output,
            visible,
            distinct: clause.distinct,
        };
        Ok(BoundCore {
            body: Body::Core(Box::new(core)),
            columns: names,
            decl_types,
            affinities,
            collations,
            result_exprs: results.iter().map(|(e, _)| Some(e.clone())).collect(),
            order: keys,
        })
    }

    fn bind_group_by(
        &mut self,
        terms: &[ast::Expr],
        results: &[(ast::Expr, String)],
        scope: &Scope,
    ) -> Result<Vec<Expr>> {
        let mut out = Vec::with_capacity(terms.len());
        let mut agg = AggCtx::default();
        for (n, t) in terms.iter().enumerate() {
            let e = match &t.kind {
                ast::ExprKind::Literal(ast::Literal::Integer(k)) => {
                    if *k < 1 || *k as usize > results.len() {
                        return Err(sql_err!(
                            "{} GROUP BY term out of range - should be between 1 and {}",
                            ordinal(n + 1),
                            results.len()
                        ));
                    }
                    &results[*k as usize - 1].0
                }
                _ => t,
            };
            if contains_aggregate(e) {
                return Err(sql_err!(
                    "aggregate functions are not allowed in the GROUP BY clause"
                ));
            }
            out.push(self.bind_plain(e, scope, &mut agg)?);
        }
        Ok(out)
    }

    /// ORDER BY of a simple SELECT: result column numbers, aliases, or any
    /// expression over the FROM clause (added as a hidden output column).
    fn bind_core_order(
        &mut self,
        terms: &[ast::OrderingTerm],
        results: &[(ast::Expr, String)],
        scope: &Scope,
        agg: &mut AggCtx,
        output: &mut Vec<Expr>,
        collations: &[Collation],
    ) -> Result<Vec<SortKey>> {
        let mut keys = Vec::with_capacity(terms.len());
        for (n, term) in terms.iter().enumerate() {
            let (inner, coll) = crate::sql::catalog::strip_collate(&term.expr);
            let explicit = match coll {
                Some(c) => Some(crate::sql::catalog::collation_by_name(c)?),
                None => None,
            };
            let by_position = match &inner.kind {
                ast::ExprKind::Literal(ast::Literal::Integer(k)) => {
                    if *k < 1 || *k as usize > results.len() {
                        return Err(order_range_error(n, results.len()));
                    }
                    Some(*k as usize - 1)
                }
                ast::ExprKind::Column(c) if c.table.is_none() => {
                    let alias_hit = results.iter().position(|(e, name)| {
                        name.eq_ignore_ascii_case(&c.column)
                            && !matches!(&e.kind, ast::ExprKind::Column(_))
                    });
                    alias_hit.filter(|_| scope.resolve(None, &c.column).ok().flatten().is_none())
                }
                _ => None,
            };
            let key = match by_position {
                Some(i) => sort_key(term, i, explicit.unwrap_or(collations[i])),
                None => {
                    let b = self.bind_expr(inner, scope, agg)?;
                    let collation = explicit.unwrap_or_else(|| coll_of(&b));
                    let found = results.iter().position(|(e, _)| same_expr(e, inner));
                    let column = match found {
                        Some(i) => i,
                        None => {
                            output.push(b.expr);
                            output.len() - 1
                        }
                    };
                    sort_key(term, column, collation)
                }
            };
            keys.push(key);
        }
        Ok(keys)
    }

    /// Binds a FROM clause's items; returns them with the join conditions
    /// (item index, condition).
    fn bind_from(
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
                let id = self.next_subquery;
                self.next_subquery += 1;
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
            let id = self.next_subquery;
            self.next_subquery += 1;
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
        let query = Query {
            body: Body::Values(rows),
            order_by: Vec::new(),
            limit: None,
            offset: None,
            columns: names.iter().map(|n| n.to_string()).collect(),
            decl_types: vec![
                "TEXT".into(),
                "TEXT".into(),
                "TEXT".into(),
                "INT".into(),
                "TEXT".into(),
            ],
        };
        let columns = query_columns(&query, &[None; 5]);
        let id = self.next_subquery;
        self.next_subquery += 1;
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
        let id = self.next_subquery;
        self.next_subquery += 1;
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

fn query_columns(query: &Query, affs: &[Option<Affinity>]) -> Vec<ScopeColumn> {
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

/// Assigns slots: each item's columns, then (tables) the rowid.
fn layout(pending: Vec<PendingItem>) -> (Vec<FromItem>, Vec<ScopeItem>, usize) {
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
            indexes: p.indexes,
        });
        offset += width;
    }
    (items, scope_items, offset)
}

/// The result columns with `*` and `t.*` expanded: (expression, name).
fn expand_columns(
    columns: &[ast::ResultColumn],
    scope: &Scope,
) -> Result<Vec<(ast::Expr, String)>> {
    let mut out = Vec::new();
    for c in columns {
        match c {
            ast::ResultColumn::Star { pos } => {
                if scope.items.is_empty() {
                    return Err(sql_err!("no tables specified"));
                }
                for item in &scope.items {
                    push_item_columns(item, *pos, &mut out);
                }
            }
            ast::ResultColumn::TableStar { table, pos } => {
                let item = scope
                    .items
                    .iter()
                    .find(|i| i.name.eq_ignore_ascii_case(table))
                    .ok_or_else(|| sql_err!("no such table: {table}"))?;
                push_item_columns(item, *pos, &mut out);
            }
            ast::ResultColumn::Expr { expr, alias, text } => {
                let name = match (alias, &expr.kind) {
                    (Some(a), _) => a.clone(),
                    (None, ast::ExprKind::Column(c)) => c.column.clone(),
                    (None, _) => text.clone(),
                };
                out.push((expr.clone(), name));
            }
        }
    }
    Ok(out)
}

fn push_item_columns(item: &ScopeItem, pos: usize, out: &mut Vec<(ast::Expr, String)>) {
    for col in item.columns.iter().filter(|c| !c.hidden) {
        let e = ast::Expr {
            kind: ast::ExprKind::Column(ast::ColumnRef {
                schema: None,
                table: Some(item.name.clone()),
                column: col.name.clone(),
                double_quoted: false,
            }),
            pos,
        };
        out.push((e, col.name.clone()));
    }
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

/// Splits `a AND b AND c` into its conjuncts.
pub(crate) fn split_and(e: &ast::Expr) -> Vec<&ast::Expr> {
    match &e.kind {
        ast::ExprKind::Binary {
            op: ast::BinaryOp::And,
            left,
            right,
        } => {
            let mut v = split_and(left);
            v.extend(split_and(right));
            v
        }
        _ => vec![e],
    }
}

/// Structural equality of expressions, ignoring positions.
pub(crate) fn same_expr(a: &ast::Expr, b: &ast::Expr) -> bool {
    format!("{:?}", strip_pos(a)) == format!("{:?}", strip_pos(b))
}

fn strip_pos(e: &ast::Expr) -> String {
    let s = format!("{e:?}");
    // Positions are the only numbers after "pos: "; blank them out.
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(i) = rest.find("pos: ") {
        out.push_str(&rest[..i + 5]);
        rest = rest[i + 5..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    // Qualifier-insensitive: `t.a` and `a` differ; keep as is.
    out
}

fn sort_key(term: &ast::OrderingTerm, column: usize, collation: Collation) -> SortKey {
    let desc = term.order == Some(ast::SortOrder::Desc);
    let nulls_first = match term.nulls {
        Some(ast::NullsOrder::First) => true,
        Some(ast::NullsOrder::Last) => false,
        None => !desc,
    };
    SortKey {
        column,
        desc,
        nulls_first,
        collation,
    }
}

fn coll_of(b: &Bound) -> Collation {
    match b.coll {
        CollSource::Explicit(c) | CollSource::Column(c) => c,
        CollSource::None => Collation::Binary,
    }
}

fn order_range_error(n: usize, len: usize) -> crate::Error {
    sql_err!(
        "{} ORDER BY term out of range - should be between 1 and {}",
        ordinal(n + 1),
        len
    )
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn compound_name(op: ast::CompoundOperator) -> &'static str {
    match op {
        ast::CompoundOperator::Union => "UNION",
        ast::CompoundOperator::UnionAll => "UNION ALL",
        ast::CompoundOperator::Intersect => "INTERSECT",
        ast::CompoundOperator::Except => "EXCEPT",
    }
}

/// Whether a query mentions table `name` anywhere (to detect recursive CTEs).
fn select_mentions(select: &ast::Select, name: &str) -> bool {
    let text = format!("{select:?}");
    let needle = format!("name: {:?}", name);
    text.to_ascii_lowercase()
        .contains(&needle.to_ascii_lowercase())
}
