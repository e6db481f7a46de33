//! INSERT, UPDATE and DELETE of a view: its INSTEAD OF triggers fire once
//! per row the statement names, and only what they do changes the
//! database (SQLite's writable views).
//!
//! As in SQLite: the rows are all found first (an UPDATE's or DELETE's
//! are the view's rows its WHERE keeps; an INSERT's are its source's),
//! then the triggers fire row by row, `OLD` being the view's row and
//! `NEW` the row the statement would make (an UPDATE's SET applied; an
//! INSERT's columns not named NULL, no affinity applied). The statement
//! counts no rows in changes(); the triggers' writes count in
//! total_changes(). RETURNING gives `NEW` (`OLD` for a DELETE) for every
//! row, whatever the triggers did. A view no INSTEAD OF trigger of the
//! statement's kind is on (for an UPDATE, none naming a SET column in
//! its OF list) cannot be written; nor can one be the target of an upsert.

use std::rc::Rc;

use super::dml::{self, DmlOptions, DmlOutcome, SourcePlan};
use super::kv::Kv;
use super::trigger::{Event, Triggers};
use super::write::Halt;
use super::ExecCtx;
use crate::error::Position;
use crate::sql::ast::{self, TriggerTiming};
use crate::sql::binder::Binder;
use crate::sql::catalog::{key, Catalog, Column, Table, TableOptions, View};
use crate::sql::planner::plan::{Expr, Query};
use crate::sql::value::{Affinity, Value};
use crate::{sql_err, Result};

/// A bound write of a view.
pub(crate) struct ViewWrite {
    kind: Kind,
    /// The view's INSTEAD OF triggers for the statement's event.
    triggers: Triggers,
    /// The view's column count.
    n: usize,
    returning: Vec<Expr>,
    returning_columns: Rc<[String]>,
}

/// A row's `OLD` (UPDATE, DELETE) and `NEW` (INSERT, UPDATE).
type OldNew = (Option<Vec<Value>>, Option<Vec<Value>>);

enum Kind {
    /// Each source row's values go to these view columns.
    Insert {
        source: SourcePlan,
        targets: Vec<usize>,
        named: bool,
        view: String,
    },
    /// The query gives each row's view columns, then the new values of
    /// `sets` (view columns), in order.
    Update { query: Query, sets: Vec<usize> },
    /// The query gives each row's view columns.
    Delete { query: Query },
}

/// Whether `name` names a view (the statement then writes it through
/// its INSTEAD OF triggers).
pub(crate) fn is_view(cat: &Catalog, name: &ast::QualifiedName) -> bool {
    let main = name
        .schema
        .as_deref()
        .is_none_or(|s| s.eq_ignore_ascii_case("main"));
    main && cat.views.contains_key(&key(&name.name))
}

/// A view's columns as a table's, for binding `NEW.c` / `OLD.c` and
/// RETURNING: the names `SELECT *` gives, no affinity, no rowid.
pub(crate) fn view_table(cat: &Catalog, view: &View) -> Result<Rc<Table>> {
    let select = crate::sql::binder::select::select_star_from(&view.name, Position::default());
    let (query, _, _) = Binder::new(cat).bind_query_in(&select, None)?;
    let columns = query
        .columns
        .iter()
        .map(|name| Column {
            name: name.clone(),
            decl_type: String::new(),
            type_text: String::new(),
            affinity: Affinity::Blob,
            not_null: false,
            not_null_conflict: None,
            default: None,
            collation: Default::default(),
            primary_key: false,
            strict_type: None,
            generated: None,
        })
        .collect();
    Ok(Rc::new(Table {
        name: view.name.clone(),
        columns,
        rowid_alias: None,
        rowid_conflict: None,
        autoincrement: false,
        checks: Vec::new(),
        foreign_keys: Vec::new(),
        tree: String::new(),
        sql: view.sql.clone(),
        options: TableOptions {
            strict: false,
            without_rowid: true,
        },
    }))
}

fn view_of<'c>(cat: &'c Catalog, name: &ast::QualifiedName) -> Result<&'c Rc<View>> {
    cat.views
        .get(&key(&name.name))
        .ok_or_else(|| sql_err!("no such view: {}", name.name))
}

fn refused(view: &str) -> crate::Error {
    sql_err!("cannot modify {view} because it is a view")
}

/// The view's triggers for `event`, or the error of a view that cannot be
/// written so.
fn instead_of(
    cat: &Catalog,
    table: &Rc<Table>,
    event: Event,
    set: &[usize],
    or: Option<ast::ConflictResolution>,
) -> Result<Triggers> {
    match Triggers::of(cat, table, event, set, or) {
        Some(t) if t.has_instead() => Ok(t),
        _ => Err(refused(&table.name)),
    }
}

/// A statement's WHERE-filtered rows of the view: its columns, then
/// `extra` expressions, over the view (as `alias`) and `from`.
fn rows_query(
    cat: &Catalog,
    view: &str,
    alias: &Option<String>,
    with: &Option<ast::With>,
    from: &Option<ast::FromClause>,
    where_clause: &Option<ast::Expr>,
    extra: Vec<ast::Expr>,
) -> Result<Query> {
    let pos = Position::default();
    let mut columns = vec![ast::ResultColumn::TableStar {
        table: alias.clone().unwrap_or_else(|| view.to_string()),
        pos,
    }];
    columns.extend(extra.into_iter().map(|expr| ast::ResultColumn::Expr {
        expr,
        alias: None,
        text: String::new(),
    }));
    let mut select =
        crate::sql::binder::select::select_rows_of(columns, (view, alias), with, where_clause, pos);
    // UPDATE ... FROM: the view's rows joined with the FROM items.
    if let (Some(more), ast::SelectCore::Select(core)) = (from, &mut select.first) {
        if let Some(clause) = &mut core.from {
            clause.joins.push(ast::Join {
                operator: ast::JoinOperator {
                    natural: false,
                    kind: ast::JoinKind::Comma,
                },
                table: more.first.clone(),
                constraint: None,
                pos,
            });
            clause.joins.extend(more.joins.iter().cloned());
        }
    }
    Ok(Binder::new(cat).bind_query_in(&select, None)?.0)
}

impl ViewWrite {
    /// Plans an INSERT into a view.
    pub(crate) fn insert(cat: &Catalog, ins: &ast::Insert) -> Result<ViewWrite> {
        let view = view_of(cat, &ins.table)?;
        if !ins.upsert.is_empty() {
            return Err(sql_err!("cannot UPSERT a view"));
        }
        let table = view_table(cat, view)?;
        let triggers = instead_of(cat, &table, Event::Insert, &[], ins.or)?;
        let n = table.columns.len();
        let targets = match ins.columns.is_empty() {
            true => (0..n).collect(),
            false => ins
                .columns
                .iter()
                .map(|c| {
                    table
                        .column_index(c)
                        .ok_or_else(|| sql_err!("table {} has no column named {c}", view.name))
                })
                .collect::<Result<_>>()?,
        };
        let name = ins.alias.clone().unwrap_or_else(|| view.name.clone());
        let (returning, returning_columns) =
            dml::bind_returning(cat, &table, &name, &ins.returning)?;
        Ok(ViewWrite {
            kind: Kind::Insert {
                source: dml::bind_source(cat, ins)?,
                targets,
                named: !ins.columns.is_empty(),
                view: view.name.clone(),
            },
            triggers,
            n,
            returning,
            returning_columns: returning_columns.into(),
        })
    }

    /// Plans an UPDATE of a view.
    pub(crate) fn update(cat: &Catalog, up: &ast::Update) -> Result<ViewWrite> {
        let view = view_of(cat, &up.table)?;
        if up.indexed.is_some() {
            return Err(sql_err!("cannot use INDEXED BY on view {}", view.name));
        }
        let table = view_table(cat, view)?;
        // As SQLite: the triggers are found by the SET names first (an
        // unknown name matches none), so a view no trigger writes is
        // refused before its names are checked.
        let known = dml::set_columns(&table, &up.sets);
        let triggers = instead_of(cat, &table, Event::Update, &known, up.or)?;
        let mut sets = Vec::new();
        let mut values = Vec::new();
        for a in &up.sets {
            let exprs = match (&a.columns[..], &a.value.kind) {
                ([_], _) => vec![a.value.clone()],
                (cols, ast::ExprKind::Row(items)) if items.len() == cols.len() => items.clone(),
                (cols, _) => {
                    return Err(sql_err!(
                        "{} columns assigned {} values",
                        cols.len(),
                        match &a.value.kind {
                            ast::ExprKind::Row(items) => items.len(),
                            _ => 1,
                        }
                    ))
                }
            };
            for (c, e) in a.columns.iter().zip(exprs) {
                let i = table
                    .column_index(c)
                    .ok_or_else(|| sql_err!("no such column: {c}"))?;
                sets.push(i);
                values.push(e);
            }
        }
        let query = rows_query(
            cat,
            &view.name,
            &up.alias,
            &up.with,
            &up.from,
            &up.where_clause,
            values,
        )?;
        let name = up.alias.clone().unwrap_or_else(|| view.name.clone());
        let (returning, returning_columns) =
            dml::bind_returning(cat, &table, &name, &up.returning)?;
        Ok(ViewWrite {
            kind: Kind::Update { query, sets },
            n: table.columns.len(),
            triggers,
            returning,
            returning_columns: returning_columns.into(),
        })
    }

    /// Plans a DELETE from a view.
    pub(crate) fn delete(cat: &Catalog, d: &ast::Delete) -> Result<ViewWrite> {
        let view = view_of(cat, &d.table)?;
        if d.indexed.is_some() {
            return Err(sql_err!("cannot use INDEXED BY on view {}", view.name));
        }
        let table = view_table(cat, view)?;
        let triggers = instead_of(cat, &table, Event::Delete, &[], None)?;
        let query = rows_query(
            cat,
            &view.name,
            &d.alias,
            &d.with,
            &None,
            &d.where_clause,
            Vec::new(),
        )?;
        let name = d.alias.clone().unwrap_or_else(|| view.name.clone());
        let (returning, returning_columns) = dml::bind_returning(cat, &table, &name, &d.returning)?;
        Ok(ViewWrite {
            kind: Kind::Delete { query },
            n: table.columns.len(),
            triggers,
            returning,
            returning_columns: returning_columns.into(),
        })
    }

    /// Finds the rows, then fires the triggers for each. A trigger that
    /// fails stops the statement as a failed row does a table's
    /// (`DmlOutcome::stopped`).
    pub(crate) fn run(
        &self,
        kv: &mut dyn Kv,
        cat: &Catalog,
        params: &[Value],
        opts: DmlOptions,
    ) -> Result<DmlOutcome> {
        let rows = self.rows(&*kv, params, opts)?;
        let mut out = DmlOutcome::new(&self.returning_columns);
        for (old, new) in rows {
            let fired = self.triggers.fire(
                TriggerTiming::InsteadOf,
                kv,
                cat,
                old.as_deref(),
                new.as_deref(),
                opts,
            );
            if let Err(e) = fired {
                let halt = super::trigger::take_halt().unwrap_or(Halt::Abort);
                out.stopped = Some((halt, e));
                break;
            }
            if !self.returning.is_empty() {
                let row = new.as_deref().or(old.as_deref()).unwrap_or_default();
                let r = ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
                    dml::eval_row(ctx, &self.returning, row)
                })?;
                out.returning.push(r);
            }
        }
        Ok(out)
    }

    /// Each row's `OLD` and `NEW` (the view's columns, then a NULL rowid).
    fn rows(&self, kv: &dyn Kv, params: &[Value], opts: DmlOptions) -> Result<Vec<OldNew>> {
        let n = self.n;
        let with_rowid = |mut r: Vec<Value>| {
            r.truncate(n);
            r.resize(n + 1, Value::Null);
            r
        };
        ExecCtx::scoped(kv, params, opts.batch_limit, |ctx| match &self.kind {
            Kind::Insert {
                source,
                targets,
                named,
                view,
            } => {
                let mut source = dml::source_rows(ctx, source)?;
                let mut out = Vec::new();
                while let Some(values) = source.next_row()? {
                    if !values.is_empty() && values.len() != targets.len() {
                        return Err(match named {
                            false => sql_err!(
                                "table {view} has {} columns but {} values were supplied",
                                targets.len(),
                                values.len()
                            ),
                            true => {
                                sql_err!("{} values for {} columns", values.len(), targets.len())
                            }
                        });
                    }
                    let mut new = vec![Value::Null; n + 1];
                    for (v, &t) in values.into_iter().zip(targets) {
                        new[t] = v;
                    }
                    out.push((None, Some(new)));
                }
                Ok(out)
            }
            Kind::Update { query, sets } => {
                let rows = ctx.run_result(query)?;
                Ok(rows
                    .into_iter()
                    .map(|row| {
                        let mut new = row[..n].to_vec();
                        for (&c, v) in sets.iter().zip(&row[n..]) {
                            new[c] = v.clone();
                        }
                        (Some(with_rowid(row)), Some(with_rowid(new)))
                    })
                    .collect())
            }
            Kind::Delete { query } => {
                let rows = ctx.run_result(query)?;
                Ok(rows
                    .into_iter()
                    .map(|r| (Some(with_rowid(r)), None))
                    .collect())
            }
        })
    }
}
