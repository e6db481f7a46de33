//! Binding FROM clauses: tables, views, CTEs (recursive ones as a working
//! table), subqueries, `sqlite_schema`, joins with ON / USING / NATURAL,
//! and the flat row layout of the items.
//!
//! A FROM clause is flat: one item per table, each joined to everything
//! before it (LEFT: the item's columns are NULL for a row of the left side
//! that no row of the item matches; RIGHT: the left side's columns are
//! NULL for a row of the item that matched no row of the left side; FULL:
//! both). A parenthesized join on the right of an outer join, or holding
//! a RIGHT / FULL join itself (other than first in FROM), is not
//! associative with its neighbours, so it becomes one item: a subquery
//! over the join whose columns are the tables' columns (and rowids),
//! still named by the tables' names ([`Part`]).

use std::ops::Range;
use std::rc::Rc;

use super::expr::AggCtx;
use super::scope::{Merged, Scope, ScopeColumn, ScopeItem};
use super::select::{first_collation_of_each, ColumnTypes};
use super::Binder;
use crate::error::Position;
use crate::sql::ast;
use crate::sql::catalog::{Catalog, Index, IndexOrigin, Table};
use crate::sql::planner::join::plan_from;
use crate::sql::planner::plan::{
    Body, Core, Expr, FromItem, IndexInfo, Query, Source, TableFunction,
};
use crate::sql::value::{Affinity, Collation, Value};
use crate::{sql_err, Result};

/// Join conditions of a FROM clause: (item index, ON/USING condition).
pub(super) type JoinConditions = Vec<(usize, ast::Expr)>;

/// The name of a composite item's placeholder for a table's rowid (no SQL
/// name can reach it: it is hidden and holds a NUL).
const ROWID_COLUMN: &str = "\0rowid";

/// One FROM item during binding, before the scope exists.
pub(super) struct PendingItem {
    name: String,
    source: Source,
    columns: Vec<ScopeColumn>,
    has_rowid: bool,
    left_join: bool,
    /// The right operand of a RIGHT or FULL join.
    right_join: bool,
    rows: f64,
    indexes: Vec<Rc<Index>>,
    /// A parenthesized join bound as one item: the tables it holds, each a
    /// range of `columns` (empty for any other item).
    parts: Vec<Part>,
    /// Columns that a RIGHT / FULL join's USING or NATURAL merged (slots
    /// are indexes in `columns`).
    merged: Vec<Merged>,
    /// A table-valued function's arguments, bound once the FROM clause's
    /// scope exists (they may read the items before it).
    function_args: Vec<ast::Expr>,
}

/// One table of a composite item: its name, its columns' range in the
/// item's columns and its rowid's index there.
pub(super) struct Part {
    name: String,
    columns: Range<usize>,
    rowid: Option<usize>,
}

impl PendingItem {
    fn new(name: String, source: Source, columns: Vec<ScopeColumn>, left_join: bool) -> Self {
        PendingItem {
            name,
            source,
            columns,
            has_rowid: false,
            left_join,
            right_join: false,
            rows: 100.0,
            indexes: Vec::new(),
            parts: Vec::new(),
            merged: Vec::new(),
            function_args: Vec::new(),
        }
    }

    /// The name that qualifies column `col` (a composite's table's name).
    fn qualifier(&self, col: usize) -> &str {
        self.parts
            .iter()
            .find(|p| p.columns.contains(&col))
            .map_or(&self.name, |p| &p.name)
    }

    /// `name.column` for column `col`, or its merged expression.
    fn column_expr(&self, col: usize, pos: Position) -> ast::Expr {
        if let Some(m) = self.merged.iter().find(|m| m.slot == col) {
            return m.expr.clone();
        }
        column_ref(Some(self.qualifier(col)), &self.columns[col].name, pos)
    }

    /// The tables this item puts in scope: (name, column range, rowid index).
    fn scope_parts(&self) -> Vec<(String, Range<usize>, Option<usize>)> {
        if self.parts.is_empty() {
            let n = self.columns.len();
            return vec![(self.name.clone(), 0..n, self.has_rowid.then_some(n))];
        }
        self.parts
            .iter()
            .map(|p| (p.name.clone(), p.columns.clone(), p.rowid))
            .collect()
    }
}

/// The columns of `json_each` and `json_tree`, as SQLite declares them;
/// the last two are hidden ([`Source::hidden_columns`]).
const JSON_EACH_COLUMNS: [&str; 10] = [
    "key", "value", "type", "atom", "id", "parent", "fullkey", "path", "json", "root",
];

/// A table-valued function named in FROM: `json_each` or `json_tree`
/// (at most two arguments), or `pragma_<name>` for a reading PRAGMA (as
/// many as it has hidden columns); in `main`.
fn table_function(
    catalog: &Catalog,
    (schema, name): (Option<&str>, &str),
    args: &[ast::Expr],
    alias: Option<&str>,
    left_join: bool,
) -> Result<PendingItem> {
    let lower = name.to_ascii_lowercase();
    let pragma = crate::sql::exec::pragma::table_function(name);
    let (function, names, max): (_, Vec<&str>, usize) = match (lower.as_str(), pragma) {
        ("json_each", _) => (
            TableFunction::Json { tree: false },
            JSON_EACH_COLUMNS.to_vec(),
            2,
        ),
        ("json_tree", _) => (
            TableFunction::Json { tree: true },
            JSON_EACH_COLUMNS.to_vec(),
            2,
        ),
        (_, Some((pragma, columns))) => {
            let function = TableFunction::Pragma {
                name: pragma,
                catalog: Rc::new(catalog.clone()),
            };
            let mut names = columns.to_vec();
            let hidden = crate::sql::exec::pragma::hidden_columns(pragma);
            names.extend(hidden);
            let max = hidden.len();
            (function, names, max)
        }
        _ => return Err(sql_err!("no such table-valued function: {name}")),
    };
    if let Some(schema) = schema {
        if !schema.eq_ignore_ascii_case("main") {
            return Err(sql_err!("no such table: {schema}.{name}"));
        }
    }
    if args.len() > max {
        return Err(sql_err!("too many arguments on {name}() - max {max}"));
    }
    let shown = alias.map_or(lower, str::to_string);
    let mut item = function_item(function, &names, shown, left_join);
    item.function_args = args.to_vec();
    Ok(item)
}

/// The FROM item of a table-valued function with columns `names` (then a
/// rowid), its arguments bound later.
fn function_item(
    function: TableFunction,
    names: &[&str],
    shown: String,
    left_join: bool,
) -> PendingItem {
    let columns = names
        .iter()
        .map(|c| ScopeColumn {
            name: (*c).to_string(),
            affinity: None,
            collation: Collation::Binary,
            decl_type: String::new(),
            hidden: false,
            shadowed: false,
        })
        .collect();
    let source = Source::Function {
        function,
        args: Vec::new(),
    };
    let mut item = PendingItem::new(shown, source, columns, left_join);
    item.has_rowid = true;
    item
}

/// `table.column` as written, or `column` alone.
pub(super) fn column_ref(table: Option<&str>, column: &str, pos: Position) -> ast::Expr {
    ast::Expr {
        kind: ast::ExprKind::Column(ast::ColumnRef {
            schema: None,
            table: table.map(str::to_string),
            column: column.to_string(),
            double_quoted: false,
        }),
        pos,
    }
}

/// Whether a parenthesized join holds a RIGHT or FULL join, at any depth.
fn has_right_join(from: &ast::FromClause) -> bool {
    let nested = |t: &ast::TableOrSubquery| match t {
        ast::TableOrSubquery::Nested { from, .. } => has_right_join(from),
        _ => false,
    };
    nested(&from.first)
        || from.joins.iter().any(|j| {
            matches!(j.operator.kind, ast::JoinKind::Right | ast::JoinKind::Full)
                || nested(&j.table)
        })
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
        self.bind_from_item(&from.first, parent, false, false, &mut items, &mut conds)?;
        for join in &from.joins {
            let (left, right) = match join.operator.kind {
                ast::JoinKind::Left => (true, false),
                ast::JoinKind::Right => (false, true),
                ast::JoinKind::Full => (true, true),
                _ => (false, false),
            };
            let first_new = items.len();
            let composite = left
                || right
                || matches!(&join.table, ast::TableOrSubquery::Nested { from, .. } if has_right_join(from));
            self.bind_from_item(&join.table, parent, left, composite, &mut items, &mut conds)?;
            items[first_new].right_join = right;
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
                let missing = || {
                    sql_err!("cannot join using column {col} - column not present in both tables")
                };
                let (left_item, left_col) = (0..first_new)
                    .find_map(|i| {
                        items[i]
                            .columns
                            .iter()
                            .position(|c| c.visible() && c.name.eq_ignore_ascii_case(&col))
                            .map(|c| (i, c))
                    })
                    .ok_or_else(missing)?;
                let right_col = items[first_new]
                    .columns
                    .iter()
                    .position(|c| !c.shadowed && c.name.eq_ignore_ascii_case(&col))
                    .ok_or_else(missing)?;
                items[first_new].columns[right_col].hidden = true;
                let left_expr = items[left_item].column_expr(left_col, join.pos);
                let right_expr = items[first_new].column_expr(right_col, join.pos);
                if right {
                    // As in SQLite: a RIGHT join's merged column is the
                    // right side's value (every row has one), a FULL join's
                    // the left side's when there is one, else the right's.
                    let merged = match left {
                        false => right_expr.clone(),
                        true => ast::Expr {
                            kind: ast::ExprKind::Function(Box::new(ast::FunctionCall {
                                name: "coalesce".to_string(),
                                distinct: false,
                                star: false,
                                args: vec![left_expr.clone(), right_expr.clone()],
                                order_by: Vec::new(),
                                filter: None,
                                over: None,
                            })),
                            pos: join.pos,
                        },
                    };
                    let m = &mut items[left_item].merged;
                    m.retain(|m| m.slot != left_col);
                    m.push(Merged {
                        slot: left_col,
                        expr: merged,
                        bare: true,
                    });
                }
                let cond = ast::Expr {
                    kind: ast::ExprKind::Binary {
                        op: ast::BinaryOp::Eq,
                        left: Box::new(left_expr),
                        right: Box::new(right_expr),
                    },
                    pos: join.pos,
                };
                conds.push((first_new, cond));
            }
        }
        Ok((items, conds))
    }

    /// Binds one FROM item (a parenthesized join flattened into its items,
    /// or, when `composite`, bound as one).
    fn bind_from_item(
        &mut self,
        t: &ast::TableOrSubquery,
        parent: &Scope,
        left_join: bool,
        composite: bool,
        items: &mut Vec<PendingItem>,
        conds: &mut Vec<(usize, ast::Expr)>,
    ) -> Result<()> {
        match t {
            ast::TableOrSubquery::Table { name, alias, .. } => {
                let item = self.bind_named_source(&name.name, alias.as_deref(), left_join)?;
                items.push(item);
            }
            ast::TableOrSubquery::Subquery { select, alias, .. } => {
                let (query, types, correlated) = self.bind_query_in(select, Some(parent))?;
                let columns = query_columns(&query, &types);
                let id = super::next_plan_id();
                let sub = Rc::new(crate::sql::planner::plan::SubqueryPlan {
                    id,
                    query,
                    correlated,
                });
                let name = alias.clone().unwrap_or_else(|| format!("(subquery-{id})"));
                items.push(PendingItem::new(
                    name,
                    Source::Query { query: sub },
                    columns,
                    left_join,
                ));
            }
            ast::TableOrSubquery::Nested { from, pos } if composite => {
                let item = self.bind_composite(from, *pos, parent, left_join)?;
                items.push(item);
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
            ast::TableOrSubquery::Function { name, args, alias } => {
                let name = (name.schema.as_deref(), name.name.as_str());
                items.push(table_function(
                    self.catalog,
                    name,
                    args,
                    alias.as_deref(),
                    left_join,
                )?);
            }
        }
        Ok(())
    }

    /// A parenthesized join as one item: `SELECT` of every column (hidden
    /// ones too) and rowid of its tables, in order, over the join; each
    /// table stays in scope under its name, over its range of the columns.
    fn bind_composite(
        &mut self,
        from: &ast::FromClause,
        pos: Position,
        parent: &Scope,
        left_join: bool,
    ) -> Result<PendingItem> {
        let (inner, _) = self.bind_from(from, parent)?;
        let mut columns: Vec<ScopeColumn> = Vec::new();
        let mut parts = Vec::new();
        let mut merged = Vec::new();
        let mut select_list = Vec::new();
        let hidden = |name: String, affinity| ScopeColumn {
            name,
            affinity,
            collation: Collation::Binary,
            decl_type: String::new(),
            hidden: true,
            shadowed: false,
        };
        for it in &inner {
            for (name, range, rowid) in it.scope_parts() {
                let start = columns.len();
                let first = range.start;
                for c in range.clone() {
                    let col = &it.columns[c];
                    select_list.push(ast::ResultColumn::Expr {
                        expr: column_ref(Some(&name), &col.name, pos),
                        alias: None,
                        text: col.name.clone(),
                    });
                    columns.push(col.clone());
                }
                // A column an inner RIGHT / FULL join merged: its merged
                // value too, in a hidden column of the same table.
                for c in range {
                    if let Some(m) = it.merged.iter().find(|m| m.slot == c) {
                        let hidden_name = format!("\0merged{}", merged.len());
                        merged.push(Merged {
                            slot: start + c - first,
                            expr: column_ref(Some(&name), &hidden_name, pos),
                            bare: false,
                        });
                        select_list.push(ast::ResultColumn::Expr {
                            expr: m.expr.clone(),
                            alias: None,
                            text: hidden_name.clone(),
                        });
                        columns.push(hidden(hidden_name, None));
                    }
                }
                let end = columns.len();
                let rowid = rowid.map(|_| {
                    select_list.push(ast::ResultColumn::Expr {
                        expr: column_ref(Some(&name), "rowid", pos),
                        alias: None,
                        text: "rowid".to_string(),
                    });
                    columns.push(ScopeColumn {
                        decl_type: "INTEGER".to_string(),
                        ..hidden(ROWID_COLUMN.to_string(), Some(Affinity::Integer))
                    });
                    end
                });
                parts.push(Part {
                    name,
                    columns: start..end,
                    rowid,
                });
            }
        }
        // As in SQLite's subquery for a parenthesized join, a name that
        // several of its tables have means the first one's column when
        // not qualified (the others are reached by table name).
        for i in 0..columns.len() {
            let (before, rest) = columns.split_at_mut(i);
            let c = &mut rest[0];
            c.shadowed = !c.hidden
                && before
                    .iter()
                    .any(|b| !b.hidden && b.name.eq_ignore_ascii_case(&c.name));
        }
        let select = super::select::select_from(select_list, from.clone(), pos);
        let (query, _, correlated) = self.bind_query_in(&select, Some(parent))?;
        let id = super::next_plan_id();
        let sub = Rc::new(crate::sql::planner::plan::SubqueryPlan {
            id,
            query,
            correlated,
        });
        let mut item = PendingItem::new(
            format!("(join-{id})"),
            Source::Query { query: sub },
            columns,
            left_join,
        );
        item.parts = parts;
        item.merged = merged;
        Ok(item)
    }

    /// Binds the arguments of the FROM clause's table-valued functions in
    /// its scope: they may read any other item (the planner binds those
    /// first) and the enclosing queries, not aggregates or windows.
    pub(super) fn bind_function_args(
        &mut self,
        items: &mut [FromItem],
        function_args: Vec<(usize, Vec<ast::Expr>)>,
        scope: &Scope,
    ) -> Result<()> {
        for (i, args) in function_args {
            let mut agg = AggCtx::default();
            let bound = args
                .iter()
                .map(|a| self.bind_plain(a, scope, &mut agg))
                .collect::<Result<Vec<_>>>()?;
            if let Source::Function { args, .. } = &mut items[i].source {
                *args = bound;
            }
        }
        Ok(())
    }

    /// A table of the catalog as a FROM item named `shown`.
    fn table_item(&self, table: &Rc<Table>, shown: String, left_join: bool) -> PendingItem {
        let columns = crate::sql::exec::write::table_scope_item(table, &shown).columns;
        let rows = self.stats.map_or(1000.0, |f| f(&table.tree) as f64);
        let indexes = self.catalog.table_indexes(&table.name);
        let mut item = PendingItem::new(shown, Source::Table(table.clone()), columns, left_join);
        item.has_rowid = true;
        item.rows = rows;
        item.indexes = indexes;
        item
    }

    /// An UPDATE's or DELETE's scan: the rows of the target table (every
    /// column, then the rowid, at slots 0..=n) that WHERE keeps, joined
    /// (UPDATE ... FROM) with the FROM clause's tables, planned as a
    /// SELECT's join; and the scope SET binds in. A FROM clause holding a
    /// RIGHT / FULL join is joined as one item (the target is not on its
    /// left).
    pub(crate) fn bind_write_scan(
        &mut self,
        table: &Rc<Table>,
        name: &str,
        from: Option<&ast::FromClause>,
        where_clause: Option<&ast::Expr>,
        pos: Position,
    ) -> Result<(Core, Scope<'static>)> {
        let outside = Scope::new(Vec::new(), None);
        let (joined, conds) = match from {
            None => (Vec::new(), Vec::new()),
            Some(from) if has_right_join(from) => (
                vec![self.bind_composite(from, pos, &outside, false)?],
                Vec::new(),
            ),
            Some(from) => self.bind_from(from, &outside)?,
        };
        let mut pending = vec![self.table_item(table, name.to_string(), false)];
        pending.extend(joined);
        let conds: JoinConditions = conds.into_iter().map(|(i, c)| (i + 1, c)).collect();
        let Layout {
            mut items,
            scope_items,
            width,
            merged,
            function_args,
        } = layout(self, pending);
        let mut scope = Scope::new(scope_items, None);
        scope.merged = merged;
        self.bind_function_args(&mut items, function_args, &scope)?;
        let conjuncts = self.bind_conjuncts(&items, where_clause, &conds, &scope)?;
        let (from, filter) = plan_from(self.catalog, items, conjuncts, width)?;
        Ok((Core::rows_of(from, filter), scope))
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
        if name.eq_ignore_ascii_case("sqlite_sequence") {
            let columns = ["name", "seq"];
            return Ok(function_item(
                TableFunction::Sequence,
                &columns,
                shown,
                left_join,
            ));
        }
        if let Some(table) = self.catalog.table(name) {
            return Ok(self.table_item(table, shown, left_join));
        }
        if let Some(view) = self
            .catalog
            .views
            .get(&crate::sql::catalog::key(name))
            .cloned()
        {
            let key = crate::sql::catalog::key(name);
            if self.views.contains(&key) {
                return Err(sql_err!("view {} is circularly defined", view.name));
            }
            if self.views.len() >= super::MAX_VIEW_DEPTH {
                let outer = self
                    .catalog
                    .views
                    .get(&self.views[0])
                    .map(|v| v.name.as_str());
                return Err(sql_err!(
                    "view {} nests more than {} views inside each other",
                    outer.unwrap_or(name),
                    super::MAX_VIEW_DEPTH
                ));
            }
            self.enter_expansion(&view.name)?;
            self.views.push(key);
            let saved = std::mem::take(&mut self.ctes);
            let bound = self.bind_query_in(&view.select, None);
            self.ctes = saved;
            self.views.pop();
            self.leave_expansion();
            let (query, types, _) = bound?;
            let mut columns = query_columns(&query, &types);
            for (c, n) in columns.iter_mut().zip(view.columns.iter()) {
                c.name = n.clone();
            }
            let id = super::next_plan_id();
            let sub = Rc::new(crate::sql::planner::plan::SubqueryPlan {
                id,
                query,
                correlated: false,
            });
            return Ok(PendingItem::new(
                shown,
                Source::Query { query: sub },
                columns,
                left_join,
            ));
        }
        // `FROM pragma_user_version`: a table-valued function without
        // arguments.
        if crate::sql::exec::pragma::table_function(name).is_some() {
            return table_function(self.catalog, (None, name), &[], alias, left_join);
        }
        Err(sql_err!("no such table: {name}"))
    }

    /// `sqlite_schema` (alias `sqlite_master`): one row per table, index,
    /// view and trigger: (type, name, tbl_name, rootpage, sql). `rootpage` is 0:
    /// TinyJoin names trees instead of numbering pages. A WITHOUT ROWID
    /// table's PRIMARY KEY index is not listed: in SQLite it is the table.
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
            let owner = self.catalog.tables.get(&ix.table);
            let is_the_table = ix.origin == IndexOrigin::PrimaryKey
                && owner.is_some_and(|t| t.options.without_rowid);
            if is_the_table {
                continue;
            }
            let table = owner.map_or(ix.table.clone(), |t| t.name.clone());
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
        for tr in self.catalog.triggers.values() {
            let on = &tr.def.table.name;
            let table = match self.catalog.tables.get(&tr.table) {
                Some(t) => &t.name,
                None => self.catalog.views.get(&tr.table).map_or(on, |v| &v.name),
            };
            rows.push(vec![
                text("trigger"),
                text(&tr.name),
                text(table),
                Expr::Literal(Value::Integer(0)),
                text(&tr.sql),
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
        let columns = query_columns(&query, &ColumnTypes::plain(names.len()));
        let id = super::next_plan_id();
        let sub = Rc::new(crate::sql::planner::plan::SubqueryPlan {
            id,
            query,
            correlated: false,
        });
        PendingItem {
            rows: 10.0,
            ..PendingItem::new(shown, Source::Query { query: sub }, columns, left_join)
        }
    }

    fn bind_cte_ref(&mut self, pos: usize, shown: String, left_join: bool) -> Result<PendingItem> {
        let cte = self.ctes[pos].clone();
        if let Some((columns, depth)) = &cte.working {
            // A reference from inside the recursive step: its FROM clause
            // reads the working table; a subquery may not.
            if *depth != self.depth {
                return Err(sql_err!("multiple recursive references: {}", cte.name));
            }
            return Ok(PendingItem::new(
                shown,
                Source::CteWorking(cte.id),
                columns.clone(),
                left_join,
            ));
        }
        if let Some(message) = cte.refused {
            return Err(sql_err!("{message}: {}", cte.name));
        }
        // Bind with the CTEs of its WITH clause and the enclosing ones
        // visible (not those of WITH clauses nested where it is read), and
        // this one refusing references from its own body.
        self.enter_expansion(&cte.name)?;
        let saved = self.ctes.split_off(cte.with_end);
        let bound = if cte.recursive {
            self.bind_recursive_cte(pos)
        } else {
            self.ctes[pos].refused = Some("circular reference");
            let r = self.bind_query_in(&cte.select, None);
            self.ctes[pos].refused = None;
            r
        };
        self.ctes.extend(saved);
        self.leave_expansion();
        let (query, types, correlated) = bound?;
        let mut columns = query_columns(&query, &types);
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
        Ok(PendingItem::new(
            shown,
            Source::Query { query: sub },
            columns,
            left_join,
        ))
    }

    /// `WITH [RECURSIVE] name AS (initial UNION [ALL] step [UNION [ALL]
    /// step ...])`: the recursive SELECTs are the last ones, each joined by
    /// the last one's operator and naming the CTE in its FROM clause (SQLite
    /// 3.34's rule); the SELECTs before them are the initial part.
    fn bind_recursive_cte(&mut self, pos: usize) -> Result<(Query, ColumnTypes, bool)> {
        let cte = self.ctes[pos].clone();
        let select = &cte.select;
        let Some(&(op, _)) = select.compounds.last() else {
            return Err(sql_err!("recursive reference in a subquery: {}", cte.name));
        };
        if !matches!(
            op,
            ast::CompoundOperator::Union | ast::CompoundOperator::UnionAll
        ) {
            return Err(sql_err!("circular reference: {}", cte.name));
        }
        let mut initial_sel = select.clone();
        let mut step_cores = Vec::new();
        while let Some((o, core)) = initial_sel.compounds.last() {
            let refs = super::select::direct_references(core, &cte.name);
            if *o != op || refs == 0 {
                break;
            }
            if refs > 1 {
                return Err(sql_err!(
                    "multiple references to recursive table: {}",
                    cte.name
                ));
            }
            step_cores.extend(initial_sel.compounds.pop().map(|(_, c)| c));
        }
        step_cores.reverse();
        initial_sel.order_by.clear();
        initial_sel.limit = None;
        self.ctes[pos].refused = Some("circular reference");
        let initial = self.bind_query_in(&initial_sel, None);
        self.ctes[pos].refused = None;
        let (initial, mut types, _) = initial?;
        let mut columns = query_columns(&initial, &types);
        if !cte.columns.is_empty() {
            for (c, n) in columns.iter_mut().zip(cte.columns.iter()) {
                c.name = n.clone();
            }
        }
        self.ctes[pos].working = Some((columns, self.depth));
        let mut marker = Scope::new(Vec::new(), None);
        marker.transparent = true;
        let mut steps = Vec::with_capacity(step_cores.len());
        for core in &step_cores {
            let step = self.bind_core(core, None, &marker);
            let step = match step {
                Ok(step) if step.columns.len() == initial.columns.len() => step,
                Ok(_) => {
                    self.ctes[pos].working = None;
                    return Err(sql_err!(
                        "SELECTs to the left and right of {} do not have the same number of result columns",
                        if op == ast::CompoundOperator::UnionAll { "UNION ALL" } else { "UNION" }
                    ));
                }
                Err(e) => {
                    self.ctes[pos].working = None;
                    return Err(e);
                }
            };
            first_collation_of_each(&mut types.compound_collations, &step.coll_sources);
            types.in_collations = step.coll_sources;
            types.in_affinities = step.affinities;
            steps.push(step.body);
        }
        self.ctes[pos].working = None;
        let collations: Vec<Collation> = types
            .compound_collations
            .iter()
            .map(|c| c.or_binary())
            .collect();
        let order_by = self.compound_order(
            &select.order_by,
            &initial.columns,
            &vec![None; initial.columns.len()],
            &collations,
        )?;
        let body = Body::Recursive {
            cte: cte.id,
            initial: Box::new(initial.body),
            steps,
            union_all: op == ast::CompoundOperator::UnionAll,
            collations,
        };
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
            types,
            false,
        ))
    }
}

/// A query's result columns as the columns of a FROM item.
pub(super) fn query_columns(query: &Query, types: &ColumnTypes) -> Vec<ScopeColumn> {
    query
        .columns
        .iter()
        .enumerate()
        .map(|(i, n)| ScopeColumn {
            name: n.clone(),
            affinity: types.affinities.get(i).copied().flatten(),
            collation: types
                .collations
                .get(i)
                .copied()
                .unwrap_or(Collation::Binary),
            decl_type: query.decl_types.get(i).cloned().unwrap_or_default(),
            hidden: false,
            shadowed: false,
        })
        .collect()
}

/// Assigns slots: each item's columns, then (tables) the rowid, then (the
/// right operand of a RIGHT / FULL join that is not a table) a row number
/// the join tells its rows apart by; binds each table's index expressions
/// at its slots. Also returns the merged columns' slots and expressions.
pub(super) fn layout(binder: &mut Binder, pending: Vec<PendingItem>) -> Layout {
    let mut offset = 0;
    let mut items = Vec::with_capacity(pending.len());
    let mut scope_items = Vec::with_capacity(pending.len());
    let mut merged = Vec::new();
    let mut function_args = Vec::new();
    for p in pending {
        let identity = p.right_join && !p.has_rowid;
        let width = p.columns.len() + usize::from(p.has_rowid) + usize::from(identity);
        let indexes = match &p.source {
            Source::Table(t) => index_infos(binder, t, &p.indexes, offset),
            _ => Vec::new(),
        };
        if p.parts.is_empty() {
            // One table or subquery: its columns move into the scope.
            // A WITHOUT ROWID table's rows have one, which SQL cannot name.
            let named = !matches!(&p.source, Source::Table(t) if !t.rowid_visible());
            scope_items.push(ScopeItem {
                name: p.name.clone(),
                rowid: (p.has_rowid && named).then_some(offset + p.columns.len()),
                columns: p.columns,
                offset,
                json_each: matches!(
                    p.source,
                    Source::Function {
                        function: TableFunction::Json { .. },
                        ..
                    }
                ),
                hidden_columns: p.source.hidden_columns(),
            });
            if !p.function_args.is_empty() {
                function_args.push((items.len(), p.function_args));
            }
        } else {
            for part in &p.parts {
                scope_items.push(ScopeItem {
                    name: part.name.clone(),
                    columns: p.columns[part.columns.clone()].to_vec(),
                    offset: offset + part.columns.start,
                    rowid: part.rowid.map(|r| offset + r),
                    json_each: false,
                    hidden_columns: 0,
                });
            }
        }
        merged.extend(p.merged.into_iter().map(|m| Merged {
            slot: offset + m.slot,
            ..m
        }));
        items.push(FromItem {
            name: p.name,
            source: p.source,
            offset,
            width,
            left_join: p.left_join,
            right_join: p.right_join,
            rows: p.rows,
            indexes,
            used: vec![true; width],
            used_outside: vec![true; width],
        });
        offset += width;
    }
    Layout {
        items,
        scope_items,
        width: offset,
        merged,
        function_args,
    }
}

/// A FROM clause's slots: see [`layout`].
pub(super) struct Layout {
    pub items: Vec<FromItem>,
    pub scope_items: Vec<ScopeItem>,
    pub width: usize,
    /// The columns RIGHT / FULL joins merged, at their slots.
    pub merged: Vec<Merged>,
    /// The arguments of the table-valued functions: (item, arguments),
    /// for [`Binder::bind_function_args`].
    pub function_args: Vec<(usize, Vec<ast::Expr>)>,
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
    // The columns NATURAL can join on: not a table-valued function's hidden ones.
    fn joinable(it: &PendingItem) -> impl Iterator<Item = &ScopeColumn> {
        let n = it.columns.len() - it.source.hidden_columns();
        it.columns[..n].iter().filter(|c| c.visible())
    }
    joinable(&items[right])
        .filter(|c| {
            items[..right]
                .iter()
                .any(|it| joinable(it).any(|l| l.name.eq_ignore_ascii_case(&c.name)))
        })
        .map(|c| c.name.clone())
        .collect()
}
