//! Binding queries: WITH, compound bodies, SELECT cores (FROM, `*`
//! expansion, WHERE, GROUP BY, HAVING, result columns), ORDER BY and LIMIT.
//! The FROM clause's join order and access paths are left to
//! [`crate::sql::planner::join`].

use super::expr::{contains_aggregate, AggCtx, Bound, CollSource};
use super::from::{column_ref, layout};
use super::scope::{Merged, Scope, ScopeItem};
use super::{Binder, CteDef};
use crate::sql::ast;
use crate::sql::planner::join::{plan_from, Conjunct};
use crate::sql::planner::plan::{local_slots, Body, Core, Expr, FromItem, Query, SortKey, Source};
use crate::sql::value::{Affinity, Collation};
use crate::{sql_err, Result};

/// Records which slots of each FROM item the core reads (`used`), and
/// which it reads outside the conjuncts (`used_outside`), so the planner
/// can tell when an index covers an item.
fn mark_used(
    items: &mut [FromItem],
    conjuncts: &[Conjunct],
    output: &[Expr],
    group_by: &[Expr],
    having: Option<&Expr>,
    agg: &AggCtx,
) {
    let mut slots = Vec::new();
    let mut add = |e: &Expr| local_slots(e, &mut |s| slots.push(s));
    output
        .iter()
        .chain(group_by)
        .chain(having)
        .for_each(&mut add);
    for call in &agg.calls {
        call.args
            .iter()
            .chain(call.filter.iter())
            .chain(call.order_by.iter().map(|(e, ..)| e))
            .for_each(&mut add);
    }
    for w in &agg.windows {
        w.args
            .iter()
            .chain(&w.partition_by)
            .chain(w.filter.iter())
            .for_each(&mut add);
        w.order_by.iter().for_each(|(e, ..)| add(e));
    }
    for item in items.iter() {
        if let Source::Function { args, .. } = &item.source {
            args.iter().for_each(&mut add);
        }
    }
    let outside = slots.len();
    for c in conjuncts {
        local_slots(&c.expr, &mut |s| slots.push(s));
    }
    for item in items.iter_mut() {
        item.used = vec![false; item.width];
        item.used_outside = vec![false; item.width];
    }
    for (i, s) in slots.into_iter().enumerate() {
        if let Some(item) = items
            .iter_mut()
            .find(|it| s >= it.offset && s < it.offset + it.width)
        {
            item.used[s - item.offset] = true;
            if i < outside {
                item.used_outside[s - item.offset] = true;
            }
        }
    }
    // A RIGHT / FULL join's operand is told apart by its last slot (the
    // rowid, or a row number).
    for item in items.iter_mut().filter(|it| it.right_join) {
        if let (Some(u), Some(o)) = (item.used.last_mut(), item.used_outside.last_mut()) {
            (*u, *o) = (true, true);
        }
    }
}

/// `SELECT * FROM name` (for `x IN table`).
pub(crate) fn select_star_from(name: &str, pos: usize) -> ast::Select {
    select_from(
        vec![ast::ResultColumn::Star { pos }],
        table_from(name, None, pos),
        pos,
    )
}

/// `FROM name [AS alias]`.
pub(crate) fn table_from(name: &str, alias: Option<String>, pos: usize) -> ast::FromClause {
    ast::FromClause {
        first: ast::TableOrSubquery::Table {
            name: ast::QualifiedName {
                schema: None,
                name: name.to_string(),
                pos,
            },
            alias,
            indexed: None,
        },
        joins: Vec::new(),
    }
}

/// `[WITH ..] SELECT columns FROM name [AS alias] [WHERE ..]`: the rows a
/// write of something that is not a stored table (`sqlite_sequence`, a
/// view) changes, read by a query.
pub(crate) fn select_rows_of(
    columns: Vec<ast::ResultColumn>,
    (name, alias): (&str, &Option<String>),
    with: &Option<ast::With>,
    where_clause: &Option<ast::Expr>,
    pos: usize,
) -> ast::Select {
    let mut select = select_from(columns, table_from(name, alias.clone(), pos), pos);
    select.with.clone_from(with);
    if let ast::SelectCore::Select(core) = &mut select.first {
        core.where_clause.clone_from(where_clause);
    }
    select
}

/// `SELECT columns FROM from`, nothing else.
pub(crate) fn select_from(
    columns: Vec<ast::ResultColumn>,
    from: ast::FromClause,
    pos: usize,
) -> ast::Select {
    ast::Select {
        with: None,
        first: ast::SelectCore::Select(Box::new(ast::SelectClause {
            distinct: false,
            columns,
            from: Some(from),
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

/// What a query's result columns carry to the query that uses it.
pub(crate) struct ColumnTypes {
    /// Each column's affinity (`None`: none): its first SELECT's
    /// expression's, unless a later SELECT of a compound may give values
    /// that affinity would convert (SQLite's `sqlite3SubqueryColumnTypes`):
    /// then none.
    pub affinities: Vec<Option<Affinity>>,
    /// Each column's affinity as the right side of `x IN (SELECT ...)`:
    /// its last SELECT's expression's.
    pub(super) in_affinities: Vec<Option<Affinity>>,
    /// Each column's collation as a column of a FROM item (a view, a
    /// subquery, a CTE): its first SELECT's expression's, BINARY when that
    /// has none. It is an implicit collation, like a table column's, even
    /// when it came from an explicit COLLATE (SQLite's
    /// `sqlite3SubqueryColumnTypes`, and its flattener, which keeps the
    /// collation and drops the COLLATE's precedence).
    pub collations: Vec<Collation>,
    /// Each column's collation in the query's compound operators and its
    /// ORDER BY: the first SELECT's from the left whose expression has one
    /// (SQLite's `multiSelectCollSeq`; BINARY when none has).
    pub(super) compound_collations: Vec<CollSource>,
    /// Each column's collation as the right side of `x IN (SELECT ...)`:
    /// its last SELECT's expression's, explicit or not, as SQLite's
    /// `sqlite3BinaryCompareCollSeq` reads it (from the compound's last
    /// SELECT, the one its parse tree points to).
    pub(super) in_collations: Vec<CollSource>,
}

impl ColumnTypes {
    /// `width` columns without affinity or collation (constant rows).
    pub(super) fn plain(width: usize) -> ColumnTypes {
        ColumnTypes {
            affinities: vec![None; width],
            in_affinities: vec![None; width],
            collations: vec![Collation::Binary; width],
            compound_collations: vec![CollSource::None; width],
            in_collations: vec![CollSource::None; width],
        }
    }
}

/// A bound core plus what ORDER BY over a compound needs to know.
pub(super) struct BoundCore {
    pub(super) body: Body,
    pub(super) columns: Vec<String>,
    decl_types: Vec<String>,
    pub(super) affinities: Vec<Option<Affinity>>,
    /// Where each result column's collation comes from (BINARY when none:
    /// [`CollSource::or_binary`]).
    pub(super) coll_sources: Vec<CollSource>,
    /// The kinds of value each result column may give ([`data_types`]).
    data_types: Vec<u8>,
    /// Whether each result column is a CAST.
    casts: Vec<bool>,
    /// The result expressions as written (for compound ORDER BY matching).
    result_exprs: Vec<Option<ast::Expr>>,
    /// ORDER BY keys when the core bound them itself (simple SELECT).
    order: Option<Vec<SortKey>>,
}

impl Binder<'_> {
    /// Binds a full query with `parent` as the enclosing scope. Returns the
    /// plan, what its result columns carry, and whether it is correlated.
    pub(crate) fn bind_query_in(
        &mut self,
        select: &ast::Select,
        parent: Option<&Scope>,
    ) -> Result<(Query, ColumnTypes, bool)> {
        let pushed = match &select.with {
            Some(w) => self.push_ctes(w)?,
            None => 0,
        };
        self.depth += 1;
        let result = self.bind_query_body(select, parent);
        self.depth -= 1;
        let len = self.ctes.len();
        self.ctes.truncate(len - pushed);
        result
    }

    /// Puts `with`'s CTEs in scope for what is bound next; returns how
    /// many.
    pub(crate) fn push_ctes(&mut self, with: &ast::With) -> Result<usize> {
        let with_end = self.ctes.len() + with.ctes.len();
        for cte in &with.ctes {
            let id = super::next_plan_id();
            self.ctes.push(CteDef {
                name: cte.name.clone(),
                columns: cte.columns.clone(),
                select: (*cte.select).clone(),
                id,
                recursive: is_recursive_cte(&cte.select, &cte.name),
                refused: None,
                working: None,
                with_end,
            });
        }
        Ok(with.ctes.len())
    }

    fn bind_query_body(
        &mut self,
        select: &ast::Select,
        parent: Option<&Scope>,
    ) -> Result<(Query, ColumnTypes, bool)> {
        let mut marker = Scope::new(Vec::new(), parent);
        marker.transparent = true;
        let simple = select.compounds.is_empty();
        let order = if simple {
            Some(select.order_by.as_slice())
        } else {
            None
        };
        let mut first = self.bind_core(&select.first, order, &marker)?;
        let mut body = first.body;
        let collations = first.coll_sources.iter().map(|c| c.or_binary()).collect();
        let mut compound_collations = first.coll_sources.clone();
        let mut in_collations = std::mem::take(&mut first.coll_sources);
        let mut in_affinities = first.affinities.clone();
        // Each SELECT's result affinities and kinds of value, in order.
        let mut arms = vec![(
            first.affinities.clone(),
            std::mem::take(&mut first.data_types),
        )];
        for (op, core) in &select.compounds {
            let next = self.bind_core(core, None, &marker)?;
            if next.columns.len() != first.columns.len() {
                return Err(sql_err!(
                    "SELECTs to the left and right of {} do not have the same number of result columns",
                    compound_name(*op)
                ));
            }
            first_collation_of_each(&mut compound_collations, &next.coll_sources);
            body = Body::Compound {
                op: *op,
                left: Box::new(body),
                right: Box::new(next.body),
                collations: compound_collations.iter().map(|c| c.or_binary()).collect(),
                sorted: !select.order_by.is_empty(),
            };
            in_collations = next.coll_sources;
            in_affinities = next.affinities.clone();
            arms.push((next.affinities, next.data_types));
        }
        let order_by = match first.order {
            Some(keys) => keys,
            None => self.compound_order(
                &select.order_by,
                &first.columns,
                &first.result_exprs,
                &compound_collations
                    .iter()
                    .map(|c| c.or_binary())
                    .collect::<Vec<_>>(),
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
            columns: first.columns.into(),
            decl_types: first.decl_types,
        };
        let affinities = if select.compounds.is_empty() {
            first.affinities
        } else {
            compound_affinities(&arms, &first.casts)
        };
        let types = ColumnTypes {
            affinities,
            in_affinities,
            collations,
            compound_collations,
            in_collations,
        };
        Ok((query, types, correlated))
    }

    /// ORDER BY of a compound: each term must name a result column.
    pub(super) fn compound_order(
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

    pub(super) fn bind_core(
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
            coll_sources: vec![CollSource::None; width],
            data_types: vec![0x07; width],
            casts: vec![false; width],
            result_exprs: vec![None; width],
            order: None,
            columns,
        };
        if let Some(terms) = order {
            let keys = self.compound_order(
                terms,
                &result.columns,
                &result.result_exprs,
                &vec![Collation::Binary; width],
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
        let super::from::Layout {
            mut items,
            scope_items,
            width,
            merged,
            function_args,
        } = layout(self, pending);
        let mut scope = Scope::new(scope_items, Some(parent));
        scope.merged = merged;
        self.bind_function_args(&mut items, function_args, &scope)?;
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
        let conjuncts =
            self.bind_conjuncts(&items, clause.where_clause.as_ref(), &joins, &scope)?;
        let mut agg = AggCtx {
            allowed: is_agg,
            windows_allowed: true,
            named: clause.windows.clone(),
            ..AggCtx::default()
        };
        let (group_by, group_collations) =
            self.bind_group_by(&clause.group_by, &results, &scope)?;
        let mut output = Vec::with_capacity(results.len());
        let mut names = Vec::new();
        let mut decl_types = Vec::new();
        let mut affinities = Vec::new();
        let mut collations = Vec::new();
        let mut coll_sources = Vec::new();
        let mut types = Vec::new();
        let mut casts = Vec::new();
        for (e, name) in &results {
            let b = self.bind_expr(e, &scope, &mut agg)?;
            types.push(data_types(e, &scope));
            casts.push(matches!(e.kind, ast::ExprKind::Cast { .. }));
            names.push(name.clone());
            decl_types.push(b.decl_type.clone().unwrap_or_default());
            affinities.push(b.aff);
            collations.push(coll_of(&b));
            coll_sources.push(b.coll);
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
        mark_used(
            &mut items,
            &conjuncts,
            &output,
            &group_by,
            having.as_ref(),
            &agg,
        );
        let (from, filter) = plan_from(self.catalog, items, conjuncts, width)?;
        let aggregate = if is_agg {
            Some(crate::sql::planner::plan::Aggregation {
                group_by,
                group_collations,
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
            collations,
        };
        Ok(BoundCore {
            body: Body::Core(Box::new(core)),
            columns: names,
            decl_types,
            affinities,
            coll_sources,
            data_types: types,
            casts,
            result_exprs: results.iter().map(|(e, _)| Some(e.clone())).collect(),
            order: keys,
        })
    }

    /// A FROM clause's WHERE and join conditions, split into conjuncts
    /// (an outer join's ON conditions marked with its item).
    pub(super) fn bind_conjuncts(
        &mut self,
        items: &[FromItem],
        where_clause: Option<&ast::Expr>,
        joins: &super::from::JoinConditions,
        scope: &Scope,
    ) -> Result<Vec<Conjunct>> {
        let mut conjuncts = Vec::new();
        let mut no_agg = AggCtx::default();
        // A RIGHT / FULL join adds its rows once every row before it is
        // joined: a condition on the join's result (WHERE, the ON of an
        // inner join after it) must not filter the rows before it first,
        // so it is evaluated no earlier than that join's operand is bound
        // (for WHERE, the last such operand).
        let last_right = |upto: usize| items[..upto].iter().rposition(|i| i.right_join);
        let not_before = |c: &mut Conjunct, k: Option<usize>| {
            if let Some(k) = k.filter(|_| !c.items.is_empty()) {
                if !c.items.contains(&k) {
                    c.items.push(k);
                    c.items.sort_unstable();
                }
            }
        };
        if let Some(w) = where_clause {
            for c in split_and(w) {
                let e = self.bind_plain(c, scope, &mut no_agg)?;
                let mut c = Conjunct::new(e, None, items);
                not_before(&mut c, last_right(items.len()));
                conjuncts.push(c);
            }
        }
        for (item, cond) in joins {
            let outer = items[*item].left_join || items[*item].right_join;
            for c in split_and(cond) {
                let e = self.bind_plain(c, scope, &mut no_agg)?;
                let mut c = Conjunct::new(e, outer.then_some(*item), items);
                if !outer {
                    not_before(&mut c, last_right(*item + 1));
                }
                conjuncts.push(c);
            }
        }
        Ok(conjuncts)
    }

    fn bind_group_by(
        &mut self,
        terms: &[ast::Expr],
        results: &[(ast::Expr, String)],
        scope: &Scope,
    ) -> Result<(Vec<Expr>, Vec<Collation>)> {
        let mut out = Vec::with_capacity(terms.len());
        let mut collations = Vec::with_capacity(terms.len());
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
            let b = self.bind_expr(e, scope, &mut agg)?;
            collations.push(coll_of(&b));
            out.push(b.expr);
        }
        Ok((out, collations))
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
                    push_item_columns(item, &scope.merged, *pos, &mut out);
                }
            }
            ast::ResultColumn::TableStar { table, pos } => {
                let item = scope
                    .items
                    .iter()
                    .find(|i| i.name.eq_ignore_ascii_case(table))
                    .ok_or_else(|| sql_err!("no such table: {table}"))?;
                push_item_columns(item, &[], *pos, &mut out);
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

/// `item`'s visible columns as `item.column`; for `*`, a column a RIGHT /
/// FULL join merged as its bare name (which resolves to the merged value)
/// or, merged inside a parenthesized join, as that join's merged column.
fn push_item_columns(
    item: &ScopeItem,
    merged: &[Merged],
    pos: usize,
    out: &mut Vec<(ast::Expr, String)>,
) {
    // A table-valued function's hidden columns are left out too.
    let n = item.columns.len();
    let shown = n - item.hidden_columns;
    for (i, col) in item.columns[..shown]
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.hidden)
    {
        let e = match merged.iter().find(|m| m.slot == item.offset + i) {
            Some(m) if !m.bare => m.expr.clone(),
            // SQLite's expansion: the unqualified name (ambiguous when
            // another table in FROM has the column too).
            Some(_) => column_ref(None, &col.name, pos),
            None => column_ref(Some(&item.name), &col.name, pos),
        };
        out.push((e, col.name.clone()));
    }
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

/// An ordering term's direction: whether it is descending, and whether
/// NULLs come first (SQLite's default: first when ascending).
pub(super) fn term_order(term: &ast::OrderingTerm) -> (bool, bool) {
    let desc = term.order == Some(ast::SortOrder::Desc);
    let nulls_first = match term.nulls {
        Some(ast::NullsOrder::First) => true,
        Some(ast::NullsOrder::Last) => false,
        None => !desc,
    };
    (desc, nulls_first)
}

fn sort_key(term: &ast::OrderingTerm, column: usize, collation: Collation) -> SortKey {
    let (desc, nulls_first) = term_order(term);
    SortKey {
        column,
        desc,
        nulls_first,
        collation,
    }
}

fn coll_of(b: &Bound) -> Collation {
    b.coll.or_binary()
}

/// The kinds of value an expression may give, as SQLite's
/// `sqlite3ExprDataType` guesses them: 1 a number, 2 text, 4 a blob (0
/// when it is always NULL). A column or a CAST may give what its affinity
/// leaves; a function call or a parameter anything; an operator other than
/// `||` a number.
fn data_types(e: &ast::Expr, scope: &Scope) -> u8 {
    use ast::{ExprKind, Literal};
    let by_affinity = |a: Option<Affinity>| match a {
        Some(Affinity::Text) => 0x06,
        Some(a) if a.is_numeric() => 0x05,
        _ => 0x07,
    };
    match &e.kind {
        ExprKind::Collate { expr, .. }
        | ExprKind::Unary {
            op: ast::UnaryOp::Plus,
            expr,
        } => data_types(expr, scope),
        ExprKind::Literal(Literal::Null) => 0,
        ExprKind::Literal(Literal::Text(_)) => 0x02,
        ExprKind::Literal(Literal::Blob(_)) => 0x04,
        ExprKind::Literal(Literal::Integer(_) | Literal::Real(_) | Literal::Bool(_)) => 0x01,
        ExprKind::Literal(_) | ExprKind::Param { .. } | ExprKind::Function(_) => 0x07,
        ExprKind::Binary {
            op: ast::BinaryOp::Concat,
            ..
        } => 0x06,
        ExprKind::Column(c) => by_affinity(
            scope
                .resolve(c.table.as_deref(), &c.column)
                .ok()
                .flatten()
                .and_then(|r| r.affinity),
        ),
        ExprKind::Cast { type_name, .. } => {
            by_affinity(Some(Affinity::from_declared_type(&type_name.name)))
        }
        ExprKind::Subquery(_) | ExprKind::Row(_) => 0x07,
        ExprKind::Case {
            when_then,
            else_expr,
            ..
        } => when_then
            .iter()
            .map(|(_, t)| data_types(t, scope))
            .chain(else_expr.iter().map(|x| data_types(x, scope)))
            .fold(0, |a, b| a | b),
        _ => 0x01,
    }
}

/// A compound's column affinities, by SQLite's rule
/// (`sqlite3SubqueryColumnTypes`): the affinity of the first SELECT whose
/// expression has one (a column without a declared type has BLOB's), none
/// for a TEXT column that a later SELECT may give a number in, or a numeric
/// one it may give text in; NUMERIC for a numeric column whose first
/// SELECT's expression is a CAST (SQLite's FLEXNUM). `arms` holds each
/// SELECT's affinities and [`data_types`], in order.
fn compound_affinities(
    arms: &[(Vec<Option<Affinity>>, Vec<u8>)],
    first_casts: &[bool],
) -> Vec<Option<Affinity>> {
    let width = arms.first().map_or(0, |a| a.0.len());
    (0..width)
        .map(|i| {
            let aff_of = |arm: usize| arms[arm].0.get(i).copied().flatten();
            let types_of = |arm: usize| arms[arm].1.get(i).copied().unwrap_or(0x07);
            let mut arm = 0;
            let mut seen = 0u8;
            while aff_of(arm).is_none() && arm + 1 < arms.len() {
                seen |= types_of(arm);
                arm += 1;
            }
            let aff = aff_of(arm)?;
            let later = (arm + 1..arms.len()).fold(seen, |m, a| m | types_of(a));
            match aff {
                Affinity::Text if later & 0x01 != 0 => None,
                a if a.is_numeric() && later & 0x02 != 0 => None,
                a if a.is_numeric() && first_casts.get(i) == Some(&true) => Some(Affinity::Numeric),
                a => Some(a),
            }
        })
        .collect()
}

/// Folds the next SELECT of a compound into `sources`: each column keeps
/// the collation of the first SELECT that has one.
pub(super) fn first_collation_of_each(sources: &mut [CollSource], next: &[CollSource]) {
    for (s, n) in sources.iter_mut().zip(next) {
        if matches!(s, CollSource::None) {
            *s = *n;
        }
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

/// Whether CTE `name` with body `select` is recursive, by SQLite's rule
/// (`resolveFromTermToCte`, which ignores the RECURSIVE keyword): its last
/// SELECT is joined by UNION or UNION ALL and names `name` in its own FROM
/// clause (not in a subquery).
pub(crate) fn is_recursive_cte(select: &ast::Select, name: &str) -> bool {
    matches!(
        select.compounds.last(),
        Some((
            ast::CompoundOperator::Union | ast::CompoundOperator::UnionAll,
            core
        )) if direct_references(core, name) > 0
    )
}

/// How many times `core`'s FROM clause names table `name` itself: its
/// items, and those of a parenthesized join that comes first (which
/// SQLite's parser merges into the clause; a later one is a subquery).
pub(crate) fn direct_references(core: &ast::SelectCore, name: &str) -> usize {
    fn count(from: &ast::FromClause, name: &str) -> usize {
        let item = |t: &ast::TableOrSubquery, first: bool| match t {
            ast::TableOrSubquery::Table { name: n, .. } => {
                usize::from(n.schema.is_none() && n.name.eq_ignore_ascii_case(name))
            }
            ast::TableOrSubquery::Nested { from, .. } if first => count(from, name),
            _ => 0,
        };
        item(&from.first, true)
            + from
                .joins
                .iter()
                .map(|j| item(&j.table, false))
                .sum::<usize>()
    }
    match core {
        ast::SelectCore::Select(c) => c.from.as_ref().map_or(0, |f| count(f, name)),
        _ => 0,
    }
}
