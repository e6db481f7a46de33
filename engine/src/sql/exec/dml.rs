//! INSERT, UPDATE and DELETE: each first computes every row it will write
//! (reading only), then writes them one by one through a
//! [`TableWriter`], checking constraints per row as SQLite does, and
//! evaluates RETURNING over each written row.
//!
//! Binding is done once, into an [`InsertPlan`] / [`UpdatePlan`] /
//! [`DeletePlan`] (the writer, the bound VALUES / SET / RETURNING / DEFAULT
//! expressions, the planned scan for WHERE), which a prepared statement
//! keeps and runs with each execution's parameters (see `statement.rs`).
//! The plans hold `Rc`s of the catalog objects they were bound against and
//! are valid only for that catalog version.
//!
//! Writes touch as little as they can: an UPDATE rewrites only the index
//! entries whose key changed; a planned row is read again before it is
//! written only when a REPLACE or a foreign key action may have changed
//! it; an INSERT probes its rowid only when a conflict could be resolved
//! rather than fail (otherwise writing the row reports it).
//!
//! Foreign keys (`PRAGMA foreign_keys`, ON by default in TinyJoin, unlike
//! SQLite) are checked immediately per row: a child row's key must exist in
//! the parent; deleting or changing a parent key that children reference
//! applies the child's ON DELETE/ON UPDATE action (CASCADE, SET NULL, SET
//! DEFAULT) or fails (NO ACTION, RESTRICT). DEFERRABLE constraints are
//! checked immediately too (a documented simplification).

use std::cell::Cell;
use std::rc::Rc;

use super::eval::Env;
use super::kv::Kv;
use super::pending::PendingInserts;
use super::scan::Row;
use super::spill::SortedRows;
use super::trigger::{Event, Triggers};
use super::write::{table_scope_item, ChangedValues, Halt, IndexQueue, TableWriter};
use super::ExecCtx;
use crate::sql::ast::{self, TriggerTiming};
use crate::sql::binder::expr::{contains_subquery, AggCtx};
use crate::sql::binder::scope::Scope;
use crate::sql::binder::Binder;
use crate::sql::catalog::{Catalog, Table};
use crate::sql::planner::plan::{Access, Core, Expr, Query, Source};
use crate::sql::value::{apply_affinity, Affinity, Collation, Value};
use crate::{sql_err, Error, Result};

/// What a DML statement did.
#[derive(Debug)]
pub(crate) struct DmlOutcome {
    pub changes: u64,
    pub last_rowid: Option<i64>,
    pub returning: Vec<Row>,
    pub returning_columns: Rc<[String]>,
    /// A row failed after the rows counted here, and how that ends the
    /// statement (`TableWriter::halted`): the caller undoes it (ABORT),
    /// keeps them (FAIL) or rolls back the transaction (ROLLBACK), and
    /// reports the error. The last rowid is still the connection's, as
    /// in SQLite.
    pub stopped: Option<(Halt, Error)>,
}

impl DmlOutcome {
    /// Nothing done yet; RETURNING names `returning_columns` (shared with the plan).
    pub(crate) fn new(returning_columns: &Rc<[String]>) -> DmlOutcome {
        DmlOutcome {
            changes: 0,
            last_rowid: None,
            returning: Vec::new(),
            returning_columns: returning_columns.clone(),
            stopped: None,
        }
    }
}

/// Settings of the connection that DML obeys.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DmlOptions {
    pub foreign_keys: bool,
    /// `PRAGMA recursive_triggers`: a trigger may fire inside itself, and
    /// REPLACE fires the DELETE triggers of the rows it deletes.
    pub recursive_triggers: bool,
    /// `PRAGMA defer_foreign_keys`: every foreign key counts its
    /// violations for COMMIT (`exec::fk`).
    pub defer_foreign_keys: bool,
    pub batch_limit: u64,
}

fn writable_table(cat: &Catalog, name: &str) -> Result<Rc<Table>> {
    if cat.views.contains_key(&crate::sql::catalog::key(name)) {
        return Err(sql_err!("cannot modify {name} because it is a view"));
    }
    if name.eq_ignore_ascii_case("sqlite_sequence") {
        // (DELETE and UPDATE of it are `exec::sequence`'s.)
        return Err(sql_err!("table {name} may not be modified"));
    }
    cat.table_or_err(name).cloned()
}

/// What the plans of an UPDATE and a DELETE start from: the target table
/// (never a view), the name its columns go by, its writer, RETURNING bound
/// over it, and a binder holding the statement's WITH and the planner's
/// statistics, for the scan of the rows to change.
struct WriteTarget<'c> {
    table: Rc<Table>,
    name: String,
    writer: TableWriter,
    returning: Vec<Expr>,
    returning_columns: Vec<String>,
    binder: Binder<'c>,
}

impl<'c> WriteTarget<'c> {
    fn new(
        cat: &'c Catalog,
        target: &ast::QualifiedName,
        alias: &Option<ast::Ident>,
        returning: &[ast::ResultColumn],
        with: &Option<ast::With>,
        stats: &'c dyn Fn(&str) -> u64,
    ) -> Result<WriteTarget<'c>> {
        let table = writable_table(cat, &target.name)?;
        let name = alias.clone().unwrap_or_else(|| table.name.clone());
        let writer = TableWriter::new(cat, &table)?;
        let (returning, returning_columns) = bind_returning(cat, &table, &name, returning)?;
        let mut binder = Binder::new(cat);
        binder.stats = Some(stats);
        if let Some(with) = with {
            binder.push_ctes(with)?;
        }
        Ok(WriteTarget {
            table,
            name,
            writer,
            returning,
            returning_columns,
            binder,
        })
    }
}

/// Binds RETURNING over the one-table layout.
pub(crate) fn bind_returning(
    cat: &Catalog,
    table: &Table,
    name: &str,
    cols: &[ast::ResultColumn],
) -> Result<(Vec<Expr>, Vec<String>)> {
    let scope = Scope::new(vec![table_scope_item(table, name)], None);
    let mut binder = Binder::new(cat);
    let mut agg = AggCtx::default();
    let mut exprs = Vec::new();
    let mut names = Vec::new();
    for c in cols {
        match c {
            ast::ResultColumn::Star { .. } | ast::ResultColumn::TableStar { .. } => {
                for (i, col) in table.columns.iter().enumerate() {
                    exprs.push(Expr::Column { level: 0, index: i });
                    names.push(col.name.clone());
                }
            }
            ast::ResultColumn::Expr { expr, alias, text } => {
                exprs.push(binder.bind_plain(expr, &scope, &mut agg)?);
                names.push(alias.clone().unwrap_or_else(|| match &expr.kind {
                    ast::ExprKind::Column(c) => c.column.clone(),
                    _ => text.clone(),
                }));
            }
        }
    }
    Ok((exprs, names))
}

pub(crate) fn eval_row(ctx: &ExecCtx, exprs: &[Expr], row: &[Value]) -> Result<Row> {
    let env = Env::new(row, None);
    exprs.iter().map(|e| ctx.eval(e, &env)).collect()
}

/// Runs a scan planned by [`Binder::bind_write_scan`], collecting its rows.
#[inline(never)]
fn matching_rows(ctx: &ExecCtx, core: &Core) -> Result<Vec<Row>> {
    if let Some(rows) = rowid_row(ctx, core)? {
        return Ok(rows);
    }
    let mut rows = Vec::new();
    ctx.join(core, None, &mut |row| {
        ctx.charge(super::row_size(row))?;
        rows.push(row.to_vec());
        Ok(true)
    })?;
    Ok(rows)
}

/// The rows of a scan planned as one rowid probe (`WHERE id = ?`: a single
/// table level, one candidate value, no constant filter), read directly
/// instead of through the join; `None` for any other plan. The same rows as
/// the join gives: the value converts as the join's rowid access converts it
/// (numeric affinity, an integer or nothing), and the level's filters decide.
fn rowid_row(ctx: &ExecCtx, core: &Core) -> Result<Option<Vec<Row>>> {
    let [level] = core.from.levels.as_slice() else {
        return Ok(None);
    };
    let (Access::RowidEq(values), true) = (&level.access, core.filter.is_empty()) else {
        return Ok(None);
    };
    let item = &core.from.items[level.item];
    let ([value], Source::Table(table), false) = (values.as_slice(), &item.source, item.left_join)
    else {
        return Ok(None);
    };
    if item.offset != 0 || item.width != table.columns.len() + 1 || !level.on.is_empty() {
        return Ok(None);
    }
    // The probe value reads no slot of the row it looks for: NULLs stand in.
    static NULLS: [Value; 16] = [const { Value::Null }; 16];
    let many;
    let unbound: &[Value] = match NULLS.get(..core.from.width) {
        Some(few) => few,
        None => {
            many = vec![Value::Null; core.from.width];
            &many
        }
    };
    let id = match apply_affinity(
        ctx.eval(value, &Env::new(unbound, None))?,
        Affinity::Numeric,
    ) {
        Value::Integer(id) => id,
        _ => return Ok(Some(Vec::new())),
    };
    let Some(row) = ctx.table_row_by_id(table, id)? else {
        return Ok(Some(Vec::new()));
    };
    if !ctx.all_true(&level.filters, &Env::new(&row, None))? {
        return Ok(Some(Vec::new()));
    }
    ctx.charge(super::row_size(&row))?;
    Ok(Some(vec![row]))
}

/// Where an INSERT's rows come from, bound.
pub(crate) enum SourcePlan {
    DefaultValues,
    Values(Vec<Vec<Expr>>),
    Query(Box<Query>),
}

/// A bound INSERT: everything but the rows' values.
pub(crate) struct InsertPlan {
    /// Target slot of each supplied value: a column, or n for the rowid.
    targets: Vec<usize>,
    writer: TableWriter,
    returning: Vec<Expr>,
    returning_columns: Rc<[String]>,
    source: SourcePlan,
    /// What each upsert clause's conflict target names.
    upserts: Vec<UpsertOn>,
    /// For an AUTOINCREMENT table, its sequence while the INSERT runs
    /// (`exec::sequence`): read when it starts, raised by each row's
    /// rowid, written back when it ends.
    sequence: Option<Cell<i64>>,
    /// The table's INSERT triggers.
    triggers: Option<Triggers>,
    /// For each upsert clause, the UPDATE triggers its DO UPDATE fires.
    upsert_triggers: Vec<Option<Triggers>>,
}

/// What an upsert clause's conflict target names, resolved when the INSERT
/// is bound.
#[derive(Clone, Copy, Debug, PartialEq)]
enum UpsertOn {
    /// No target: every uniqueness constraint.
    Any,
    /// The rowid.
    Rowid,
    /// The UNIQUE index `i` of the writer's indexes.
    Index(usize),
}

impl UpsertOn {
    /// True when the clause resolves a conflict on index `index` of the
    /// writer's indexes (`None`: the rowid).
    fn covers(self, index: Option<usize>) -> bool {
        match self {
            UpsertOn::Any => true,
            UpsertOn::Rowid => index.is_none(),
            UpsertOn::Index(i) => index == Some(i),
        }
    }
}

/// Resolves an upsert's conflict target as SQLite does
/// (`sqlite3UpsertAnalyzeTarget`): the rowid (one term, a rowid name or
/// the INTEGER PRIMARY KEY, without COLLATE), or the first UNIQUE index in
/// the writer's order with as many key columns as the target has terms,
/// each equal to some term: the same column, or for an index on an
/// expression the same expression (compared bound, so names are resolved),
/// and a term's COLLATE, if any, the key column's collation. A partial
/// index matches only a target whose WHERE is its predicate. A target
/// matching neither is an error.
fn upsert_target(cat: &Catalog, w: &TableWriter, u: &ast::Upsert) -> Result<UpsertOn> {
    use crate::sql::catalog::{collation_by_name, strip_collate};
    use crate::sql::planner::plan::expr_key;
    let Some(target) = &u.target else {
        return Ok(UpsertOn::Any);
    };
    let table = &w.table;
    let n = table.columns.len();
    let scope = Scope::new(vec![table_scope_item(table, &table.name)], None);
    let mut binder = Binder::new(cat);
    let mut bind = |e: &ast::Expr| -> Result<String> {
        Ok(expr_key(&binder.bind_plain(
            e,
            &scope,
            &mut AggCtx::default(),
        )?))
    };
    /// A target term: a column (`n` for the rowid) or a bound expression's
    /// key; and its COLLATE, if any (`None` inside for a name that is no
    /// collation: no key column has it).
    type Term = (
        std::result::Result<usize, String>,
        Option<Option<Collation>>,
    );
    let mut terms: Vec<Term> = Vec::with_capacity(target.columns.len());
    for ic in &target.columns {
        let (inner, coll) = strip_collate(&ic.expr);
        let what = match &inner.kind {
            ast::ExprKind::Column(cr) => match table.column_index(&cr.column) {
                Some(i) => Ok(i),
                None if is_rowid_name(&cr.column) && table.rowid_visible() => Ok(n),
                None => return Err(sql_err!("no such column: {}", cr.column)),
            },
            _ => Err(bind(inner)?),
        };
        terms.push((what, coll.map(|c| collation_by_name(c).ok())));
    }
    if let [(Ok(c), None)] = terms.as_slice() {
        if *c == n || Some(*c) == table.rowid_alias {
            return Ok(UpsertOn::Rowid);
        }
    }
    let target_where = match &target.where_clause {
        Some(e) => Some(bind(e)?),
        None => None,
    };
    w.indexes
        .iter()
        .position(|p| {
            let ix = &p.index;
            let predicate_matches = match (&p.predicate, &target_where) {
                (None, _) => true,
                (Some(pred), Some(wh)) => expr_key(pred) == *wh,
                (Some(_), None) => false,
            };
            ix.unique
                && predicate_matches
                && ix.columns.len() == terms.len()
                && ix.columns.iter().zip(&p.exprs).all(|(kc, ke)| {
                    terms.iter().any(|(what, coll)| {
                        let same = match (what, kc.column) {
                            (Ok(i), Some(c)) => *i == c,
                            (Err(key), None) => *key == expr_key(ke),
                            _ => false,
                        };
                        same && coll.is_none_or(|c| c == Some(kc.collation))
                    })
                })
        })
        .map(UpsertOn::Index)
        .ok_or_else(|| {
            sql_err!("ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint")
        })
}

impl InsertPlan {
    pub(crate) fn new(cat: &Catalog, ins: &ast::Insert) -> Result<InsertPlan> {
        let table = writable_table(cat, &ins.table.name)?;
        let name = ins.alias.clone().unwrap_or_else(|| table.name.clone());
        let n = table.columns.len();
        // Generated columns take no values: left out of the default list,
        // refused in a written one.
        let targets: Vec<usize> = if ins.columns.is_empty() {
            (0..n)
                .filter(|&i| table.columns[i].generated.is_none())
                .collect()
        } else {
            ins.columns
                .iter()
                .map(|c| match table.column_index(c) {
                    Some(i) if table.columns[i].generated.is_some() => Err(sql_err!(
                        "cannot INSERT into generated column \"{}\"",
                        table.columns[i].name
                    )),
                    Some(i) => Ok(i),
                    None if is_rowid_name(c) && table.rowid_visible() => Ok(n),
                    None => Err(sql_err!("table {} has no column named {c}", table.name)),
                })
                .collect::<Result<_>>()?
        };
        let writer = TableWriter::new(cat, &table)?;
        let (returning, returning_columns) = bind_returning(cat, &table, &name, &ins.returning)?;
        let source = bind_source(cat, ins)?;
        let upserts = ins
            .upsert
            .iter()
            .map(|u| upsert_target(cat, &writer, u))
            .collect::<Result<_>>()?;
        let triggers = Triggers::of(cat, &table, Event::Insert, &[], ins.or);
        let upsert_triggers = ins
            .upsert
            .iter()
            .map(|u| match &u.action {
                ast::UpsertAction::Update { sets, .. } => {
                    let set = set_columns(&table, sets);
                    Triggers::of(cat, &table, Event::Update, &set, ins.or)
                }
                ast::UpsertAction::Nothing => None,
            })
            .collect();
        Ok(InsertPlan {
            triggers,
            upsert_triggers,
            targets,
            sequence: table.autoincrement.then(|| Cell::new(0)),
            writer,
            returning,
            returning_columns: returning_columns.into(),
            source,
            upserts,
        })
    }

    /// Runs the INSERT `ins` this plan was made from.
    /// The tree of the table whose index entries this INSERT may leave
    /// waiting in a [`PendingInserts`] (see `exec::pending`), when nothing
    /// it does reads them: no REPLACE or upsert (they delete rows, whose
    /// entries may be waiting), no subquery, WITH or RETURNING, no CHECK
    /// reading tables, no foreign key of or to the table while they are
    /// enforced, and some index that is not UNIQUE.
    pub(crate) fn defers_to(&self, ins: &ast::Insert, opts: DmlOptions) -> Option<&str> {
        let w = &self.writer;
        let plain_source = match &ins.source {
            ast::InsertSource::DefaultValues => true,
            ast::InsertSource::Values(rows) => !rows.iter().flatten().any(contains_subquery),
            ast::InsertSource::Select(_) => false,
        };
        let ok = plain_source
            && self.triggers.is_none()
            && ins.upsert.is_empty()
            && !w.may_replace(ins.or)
            && ins.with.is_none()
            && self.returning.is_empty()
            && !w.checks_read_tables
            && (!opts.foreign_keys || (w.table.foreign_keys.is_empty() && !w.referenced))
            && w.indexes.iter().any(|p| !p.index.unique);
        ok.then_some(w.table.tree.as_str())
    }

    /// Runs the INSERT; with `pending` (only when [`InsertPlan::defers_to`]
    /// named this table), entries of its indexes that are not UNIQUE wait
    /// there.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(crate) fn run(
        &self,
        kv: &mut dyn Kv,
        cat: &Catalog,
        ins: &ast::Insert,
        params: &[Value],
        opts: DmlOptions,
        mut pending: Option<&mut PendingInserts>,
    ) -> Result<DmlOutcome> {
        if let Some(p) = pending.as_deref_mut() {
            let cap = usize::try_from(opts.batch_limit / 16)
                .unwrap_or(usize::MAX)
                .min(1 << 20);
            p.target(&self.writer, cap)?;
        }
        let table = &self.writer.table;
        let n = table.columns.len();
        let targets = &self.targets;
        let start = match &self.sequence {
            Some(seq) => {
                seq.set(super::sequence::read(&*kv, &table.name)?);
                seq.get()
            }
            None => 0,
        };
        let mut source = ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
            source_rows(ctx, &self.source)
        })?;
        let mut out = DmlOutcome::new(&self.returning_columns);
        while let Some(values) = source.next_row()? {
            if !values.is_empty() && values.len() != targets.len() {
                return Err(if ins.columns.is_empty() {
                    sql_err!(
                        "table {} has {} columns but {} values were supplied",
                        table.name,
                        targets.len(),
                        values.len()
                    )
                } else {
                    sql_err!("{} values for {} columns", values.len(), targets.len())
                });
            }
            let mut row = vec![Value::Null; n + 1];
            let mut given = vec![false; n + 1];
            for (v, &t) in values.into_iter().zip(targets) {
                row[t] = v;
                given[t] = true;
            }
            {
                // A context only for a row that takes a DEFAULT.
                let mut ctx = None;
                for i in 0..n {
                    if !given[i] {
                        if let Some(d) = &self.writer.defaults[i] {
                            let ctx = ctx.get_or_insert_with(|| {
                                ExecCtx::new(&*kv, params, opts.batch_limit)
                            });
                            row[i] = ctx.eval(d, &Env::new(&[], None))?;
                        }
                    }
                    row[i] = apply_affinity(
                        std::mem::replace(&mut row[i], Value::Null),
                        table.columns[i].affinity,
                    );
                }
            }
            if let Some(t) = &self.triggers {
                match self.fire_before(kv, cat, t, &row, params, opts) {
                    Ok(true) => {}
                    Ok(false) => continue,
                    Err(e) => {
                        out.stopped = Some(self.writer.halted(e));
                        break;
                    }
                }
            }
            let p = pending.as_deref_mut();
            let written = match insert_one(kv, cat, self, ins, row, params, opts, p) {
                Ok(written) => written,
                Err(e) => {
                    out.stopped = Some(self.writer.halted(e));
                    break;
                }
            };
            if let Some((row, inserted)) = written {
                // Counted before its AFTER triggers run (a row they fail
                // under FAIL stays counted, as in SQLite).
                out.changes += 1;
                // An upsert's DO UPDATE changes a row but inserts none.
                if inserted {
                    out.last_rowid = row[n].to_i64_opt();
                    if let Some(t) = &self.triggers {
                        if let Err(e) =
                            t.fire(TriggerTiming::After, kv, cat, None, Some(&row), opts)
                        {
                            out.stopped = Some(self.writer.halted(e));
                            break;
                        }
                    }
                }
                if !self.returning.is_empty() {
                    let r = ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
                        eval_row(ctx, &self.returning, &row)
                    })?;
                    out.returning.push(r);
                }
            }
        }
        // Written when the statement ends; one a constraint stops (even
        // under FAIL, which keeps its rows) leaves the sequence, as in
        // SQLite.
        let raised = self.sequence.as_ref().filter(|s| s.get() != start);
        if let (Some(seq), None) = (raised, &out.stopped) {
            super::sequence::write(kv, &table.name, seq.get())?;
        }
        Ok(out)
    }
}

impl InsertPlan {
    /// The BEFORE INSERT triggers for `row` (defaults and affinities
    /// applied): they see its generated columns computed and, for a rowid
    /// not given, -1 (SQLite's value); false when one skips the row.
    fn fire_before(
        &self,
        kv: &mut dyn Kv,
        cat: &Catalog,
        triggers: &Triggers,
        row: &[Value],
        params: &[Value],
        opts: DmlOptions,
    ) -> Result<bool> {
        let table = &self.writer.table;
        let n = table.columns.len();
        let mut new = row.to_vec();
        ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
            self.writer.compute_generated(ctx, &mut new)
        })?;
        let given = match table.rowid_alias {
            Some(a) if !new[a].is_null() => Some(new[a].clone()),
            _ => Some(new[n].clone()).filter(|v| !v.is_null()),
        };
        let rowid = given.unwrap_or(Value::Integer(-1));
        new[n] = rowid.clone();
        if let Some(a) = table.rowid_alias {
            new[a] = rowid;
        }
        triggers.fire(TriggerTiming::Before, kv, cat, None, Some(&new), opts)
    }
}

/// The columns of `table` that `sets` assign (names it lacks left out):
/// which UPDATE OF triggers a write fires.
pub(crate) fn set_columns(table: &Table, sets: &[ast::Assignment]) -> Vec<usize> {
    sets.iter()
        .flat_map(|a| a.columns.iter())
        .filter_map(|c| table.column_index(c))
        .collect()
}

/// True for the names of the rowid (`rowid`, `oid`, `_rowid_`).
pub(crate) fn is_rowid_name(c: &str) -> bool {
    ["rowid", "oid", "_rowid_"]
        .iter()
        .any(|r| r.eq_ignore_ascii_case(c))
}

trait IntOpt {
    fn to_i64_opt(&self) -> Option<i64>;
}

impl IntOpt for Value {
    fn to_i64_opt(&self) -> Option<i64> {
        match self {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }
}

/// Binds where an INSERT's rows come from.
pub(crate) fn bind_source(cat: &Catalog, ins: &ast::Insert) -> Result<SourcePlan> {
    match &ins.source {
        ast::InsertSource::DefaultValues => Ok(SourcePlan::DefaultValues),
        ast::InsertSource::Values(rows) => {
            let scope = Scope::new(Vec::new(), None);
            let mut binder = Binder::new(cat);
            let mut agg = AggCtx::default();
            let rows = rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|e| binder.bind_plain(e, &scope, &mut agg))
                        .collect::<Result<Vec<_>>>()
                })
                .collect::<Result<_>>()?;
            Ok(SourcePlan::Values(rows))
        }
        ast::InsertSource::Select(select) => {
            let mut select = (**select).clone();
            if select.with.is_none() {
                select.with = ins.with.clone();
            }
            let mut binder = Binder::new(cat);
            let (q, _, _) = binder.bind_query_in(&select, None)?;
            Ok(SourcePlan::Query(Box::new(q)))
        }
    }
}

/// The rows an INSERT supplies, computed before anything is written
/// (held in memory, or in temp space when a query's are many).
#[inline(never)]
pub(crate) fn source_rows(ctx: &ExecCtx, source: &SourcePlan) -> Result<SortedRows> {
    let rows = match source {
        SourcePlan::DefaultValues => vec![Vec::new()],
        SourcePlan::Values(rows) => {
            let env = Env::new(&[], None);
            rows.iter()
                .map(|r| r.iter().map(|e| ctx.eval(e, &env)).collect())
                .collect::<Result<Vec<Row>>>()?
        }
        SourcePlan::Query(q) => return ctx.spool_query(q),
    };
    Ok(SortedRows::Memory(rows.into_iter()))
}

/// Resolves the rowid of a new row and writes it, handling conflicts.
/// Returns the written row and whether it was inserted (not an upsert's
/// update), or `None` when skipped (OR IGNORE, DO NOTHING).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn insert_one(
    kv: &mut dyn Kv,
    cat: &Catalog,
    plan: &InsertPlan,
    ins: &ast::Insert,
    mut row: Row,
    params: &[Value],
    opts: DmlOptions,
    pending: Option<&mut PendingInserts>,
) -> Result<Option<(Row, bool)>> {
    let w = &plan.writer;
    let table = &w.table;
    let n = table.columns.len();
    // A WITHOUT ROWID table's INTEGER PRIMARY KEY is NOT NULL: a NULL
    // there is resolved (or refused) before it could take the next rowid.
    if let (Some(a), false) = (table.rowid_alias, table.rowid_visible()) {
        if row[a].is_null()
            && !ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
                w.resolve_nulls(ctx, &mut row, ins.or)
            })?
        {
            return Ok(None);
        }
    }
    let explicit = match table.rowid_alias {
        Some(a) if !row[a].is_null() => Some(row[a].clone()),
        _ if !row[n].is_null() => Some(row[n].clone()),
        _ => None,
    };
    let rowid = match explicit.clone() {
        Some(v) => match apply_affinity(v, Affinity::Integer) {
            Value::Integer(i) => i,
            // SQLITE_MISMATCH: a type error, not a constraint (IGNORE
            // and REPLACE do not apply).
            _ => return Err(sql_err!("datatype mismatch")),
        },
        // AUTOINCREMENT: past every rowid the table ever gave too.
        None => match w
            .max_rowid(&*kv)?
            .max(plan.sequence.as_ref().map(Cell::get))
        {
            None | Some(0) => 1,
            Some(i64::MAX) => return Err(sql_err!("database or disk is full")),
            Some(m) => m + 1,
        },
    };
    row[n] = Value::Integer(rowid);
    if let Some(a) = table.rowid_alias {
        row[a] = Value::Integer(rowid);
    }
    // As in SQLite, the rowid counts for AUTOINCREMENT even if a
    // constraint then skips the row or an upsert updates another.
    if let Some(seq) = &plan.sequence {
        seq.set(seq.get().max(rowid));
    }
    // NULLs in NOT NULL columns first (skipped, replaced by the DEFAULT
    // or failed, by their algorithm); then a row still failing NOT NULL
    // or CHECK is skipped under OR IGNORE and fails the statement under
    // every other algorithm, REPLACE included.
    let index_vals = ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
        if !w.admit(ctx, &mut row, ins.or)? {
            return Ok(None);
        }
        w.all_index_values(ctx, &row).map(Some)
    })?;
    let Some(index_vals) = index_vals else {
        return Ok(None);
    };
    // The rowid needs no probe when it is new (max + 1), nor when a
    // conflict on it can only abort the statement and no UNIQUE index
    // could conflict first: writing the row then reports it (the row it
    // overwrote comes back with the statement's undo; FAIL, which keeps
    // the statement's writes, probes first).
    let late_rowid_check = explicit.is_some()
        && w.resolution(None, ins.or) == ast::ConflictResolution::Abort
        && ins.upsert.is_empty()
        && !w.has_unique();
    let probe_rowid = explicit.is_some() && !late_rowid_check;
    let conflicts = w.find_conflicts(&*kv, &index_vals, rowid, None, probe_rowid)?;
    if !conflicts.is_empty() {
        let upserts = &plan.upserts;
        let mut resolved =
            resolve_conflicts(kv, cat, w, &conflicts, ins.or, upserts, params, opts)?;
        if let Resolved::Write = resolved {
            // Deleting may reveal further conflicts on other indexes.
            let more = w.find_conflicts(&*kv, &index_vals, rowid, None, true)?;
            resolved = resolve_conflicts(kv, cat, w, &more, ins.or, upserts, params, opts)?;
        }
        match resolved {
            Resolved::Write => {}
            Resolved::Recheck => recheck(&*kv, w, &index_vals, rowid, None)?,
            Resolved::Skip => return Ok(None),
            Resolved::Upsert(k, rowid) => {
                return match &ins.upsert[k].action {
                    ast::UpsertAction::Nothing => Ok(None),
                    ast::UpsertAction::Update { sets, where_clause } => upsert_update(
                        kv,
                        cat,
                        w,
                        rowid,
                        &row,
                        (sets, where_clause.as_ref()),
                        plan.upsert_triggers.get(k).and_then(Option::as_ref),
                        params,
                        opts,
                    )
                    .map(|r| r.map(|r| (r, false))),
                };
            }
        }
    }
    if opts.foreign_keys && w.referenced {
        super::fk::parent_added(kv, cat, table, &row, None, params, opts)?;
    }
    if late_rowid_check {
        w.insert_new(kv, &index_vals, &row, pending)?;
    } else {
        w.insert(kv, &index_vals, &row, pending)?;
    }
    if opts.foreign_keys {
        super::fk::child_written(kv, cat, table, None, &row, params, opts)?;
    }
    Ok(Some((row, true)))
}

/// What resolving a row's uniqueness conflicts decided.
enum Resolved {
    /// Write the row (the rows it conflicted with under REPLACE are gone).
    Write,
    /// Skip it (IGNORE).
    Skip,
    /// Run upsert clause `.0` on the row with rowid `.1`.
    Upsert(usize, i64),
    /// Write the row once [`recheck`] finds no conflict: REPLACE fired
    /// DELETE triggers, which may have written conflicting rows.
    Recheck,
}

/// Resolves a row's uniqueness conflicts one by one in the order SQLite
/// checks them ([`conflict_order`]): one that an upsert clause covers runs
/// that clause; the others go by their algorithm
/// ([`TableWriter::resolution`]): REPLACE deletes the conflicting row and
/// goes on, IGNORE skips the row, the others fail the statement.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn resolve_conflicts(
    kv: &mut dyn Kv,
    cat: &Catalog,
    w: &TableWriter,
    conflicts: &[super::write::Conflict],
    or: Option<ast::ConflictResolution>,
    upserts: &[UpsertOn],
    params: &[Value],
    opts: DmlOptions,
) -> Result<Resolved> {
    let mut deleted = Vec::new();
    // With recursive_triggers ON, the table's DELETE triggers fire for
    // the rows REPLACE deletes.
    let triggers = || {
        opts.recursive_triggers
            .then(|| w.replace_triggers(cat))
            .flatten()
    };
    let mut fired = false;
    for c in conflict_order(w, conflicts, or, upserts) {
        if deleted.contains(&c.rowid) {
            continue;
        }
        if let Some(k) = upserts.iter().position(|u| u.covers(c.index)) {
            return Ok(Resolved::Upsert(k, c.rowid));
        }
        match w.resolution(c.index, or) {
            ast::ConflictResolution::Replace => {
                match triggers() {
                    Some(t) => {
                        fired = true;
                        if let Some(row) = w.read(&*kv, c.rowid)? {
                            delete_firing(kv, cat, w, t, &row, params, opts)?;
                        }
                    }
                    None => delete_by_rowid(kv, cat, w, c.rowid, params, opts)?,
                }
                deleted.push(c.rowid);
            }
            ast::ConflictResolution::Ignore => return Ok(Resolved::Skip),
            alg => {
                w.halt_on(Some(alg));
                return Err(w.conflict_error(c));
            }
        }
    }
    Ok(if fired {
        Resolved::Recheck
    } else {
        Resolved::Write
    })
}

/// After triggers a REPLACE fired: the row's uniqueness checked again,
/// any conflict (a row the triggers wrote) failing the statement (ABORT),
/// as SQLite does.
fn recheck(
    kv: &dyn Kv,
    w: &TableWriter,
    vals: &[Option<Vec<Value>>],
    rowid: i64,
    old: Option<i64>,
) -> Result<()> {
    match w.find_conflicts(kv, vals, rowid, old, true)?.first() {
        Some(c) => {
            w.halt_on(Some(ast::ConflictResolution::Abort));
            Err(w.conflict_error(c))
        }
        None => Ok(()),
    }
}

/// `conflicts` (the rowid's first, then the indexes' in the writer's
/// order, which is SQLite's: see `write::check_order`) in the order SQLite
/// checks them. Without upserts the rowid goes first, or last when it
/// resolves by its own ON CONFLICT REPLACE (not the statement's OR
/// REPLACE), which orders the DELETE triggers REPLACE fires. With upserts, the indexes that clauses target go
/// first, in the clauses' order, then the others; the rowid goes after the
/// indexes of the clauses before the first that targets the rowid or
/// none (`sqlite3GenerateConstraintChecks`, `sqlite3UpsertNextIsIPK`).
fn conflict_order<'a>(
    w: &TableWriter,
    conflicts: &'a [super::write::Conflict],
    or: Option<ast::ConflictResolution>,
    upserts: &[UpsertOn],
) -> Vec<&'a super::write::Conflict> {
    let rank = |c: &super::write::Conflict| match (upserts, c.index) {
        ([], None)
            if or.is_none() && w.resolution(None, or) == ast::ConflictResolution::Replace =>
        {
            usize::MAX
        }
        ([], _) => 0,
        (_, None) => {
            let leading = upserts
                .iter()
                .take_while(|u| matches!(u, UpsertOn::Index(_)))
                .count();
            (2 * leading).saturating_sub(1)
        }
        (_, Some(i)) => match upserts.iter().position(|u| *u == UpsertOn::Index(i)) {
            Some(k) => 2 * k,
            None => usize::MAX,
        },
    };
    // A stable insertion by rank, each rank computed once (`sort_by_key`
    // adds kilobytes of wasm).
    let mut order: Vec<(usize, &super::write::Conflict)> = Vec::with_capacity(conflicts.len());
    for c in conflicts {
        let r = rank(c);
        let at = order.partition_point(|o| o.0 <= r);
        order.insert(at, (r, c));
    }
    order.into_iter().map(|(_, c)| c).collect()
}

#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn upsert_update(
    kv: &mut dyn Kv,
    cat: &Catalog,
    w: &TableWriter,
    rowid: i64,
    excluded: &[Value],
    (sets, where_clause): (&[ast::Assignment], Option<&ast::Expr>),
    triggers: Option<&Triggers>,
    params: &[Value],
    opts: DmlOptions,
) -> Result<Option<Row>> {
    let table = &w.table;
    let Some(old) = w.read(&*kv, rowid)? else {
        return Ok(None);
    };
    // Scope: the table row, then `excluded` (same layout) right after it.
    let mut ex_item = table_scope_item(table, "excluded");
    ex_item.offset = table.columns.len() + 1;
    ex_item.rowid = Some(ex_item.offset + table.columns.len());
    // Unqualified names mean the target row; `excluded.x` must be qualified.
    for c in &mut ex_item.columns {
        c.hidden = true;
    }
    let scope = Scope::new(vec![table_scope_item(table, &table.name), ex_item], None);
    let mut binder = Binder::new(cat);
    let mut agg = AggCtx::default();
    let mut env_row = old.clone();
    env_row.extend_from_slice(excluded);
    let ctx = ExecCtx::new(&*kv, params, opts.batch_limit);
    if let Some(wc) = where_clause {
        let e = binder.bind_plain(wc, &scope, &mut agg)?;
        if ctx.eval(&e, &Env::new(&env_row, None))?.is_true() != Some(true) {
            return Ok(None);
        }
    }
    let sets = bind_sets(&mut binder, &scope, table, sets)?;
    let mut new_row = apply_sets(&ctx, &sets, table, &old, &env_row)?;
    drop(ctx);
    let mut old = old;
    if let Some(t) = triggers {
        let is_set = |i| sets.iter().any(|s| s.targets.contains(&i));
        match t.before_update(kv, cat, w, &old, &mut new_row, &is_set, (params, opts))? {
            Some(now) => old = now,
            None => return Ok(None),
        }
    }
    let written = write_update(
        kv,
        cat,
        w,
        &old,
        new_row,
        Some(ast::ConflictResolution::Abort),
        params,
        opts,
        None,
        &mut ChangedValues::default(),
    )?;
    if let (Some(t), Some(row)) = (triggers, &written) {
        t.fire(TriggerTiming::After, kv, cat, Some(&old), Some(row), opts)?;
    }
    Ok(written)
}

/// One SET assignment, bound: the target slots (a column, or n for the
/// rowid) and the value (a row value or subquery when several targets).
struct BoundSet {
    targets: Vec<usize>,
    value: Expr,
}

/// Binds SET assignments over `scope`.
fn bind_sets(
    binder: &mut Binder,
    scope: &Scope,
    table: &Table,
    sets: &[ast::Assignment],
) -> Result<Vec<BoundSet>> {
    let n = table.columns.len();
    let mut agg = AggCtx::default();
    sets.iter()
        .map(|a| {
            let value = binder.bind_plain(&a.value, scope, &mut agg)?;
            let targets = a
                .columns
                .iter()
                .map(|c| match table.column_index(c) {
                    Some(i) if table.columns[i].generated.is_some() => Err(sql_err!(
                        "cannot UPDATE generated column \"{}\"",
                        table.columns[i].name
                    )),
                    Some(i) => Ok(i),
                    None if is_rowid_name(c) && table.rowid_visible() => Ok(n),
                    None => Err(sql_err!("no such column: {c}")),
                })
                .collect::<Result<_>>()?;
            Ok(BoundSet { targets, value })
        })
        .collect()
}

/// Applies bound SET assignments to `old`, evaluating in `env_row`.
#[inline(never)]
fn apply_sets(
    ctx: &ExecCtx,
    sets: &[BoundSet],
    table: &Table,
    old: &[Value],
    env_row: &[Value],
) -> Result<Row> {
    let n = table.columns.len();
    let mut row = old.to_vec();
    let env = Env::new(env_row, None);
    for a in sets {
        if let [i] = a.targets[..] {
            // One column: no list of values (an UPDATE's common case, per row).
            let v = ctx.eval(&a.value, &env)?;
            assign_slot(&mut row, table, n, i, v);
            continue;
        }
        let values: Vec<Value> = match &a.value {
            Expr::Row(items) if items.len() == a.targets.len() => items
                .iter()
                .map(|x| ctx.eval(x, &env))
                .collect::<Result<_>>()?,
            Expr::Scalar(q) => {
                let rows = ctx.subquery_rows(q, &env)?;
                rows.first()
                    .cloned()
                    .unwrap_or_else(|| vec![Value::Null; a.targets.len()])
            }
            _ => {
                return Err(sql_err!(
                    "{} columns assigned {} values",
                    a.targets.len(),
                    1
                ))
            }
        };
        for (&i, v) in a.targets.iter().zip(values) {
            assign_slot(&mut row, table, n, i, v);
        }
    }
    Ok(row)
}

/// The row SET evaluates in: the target's row `old`, then (UPDATE ...
/// FROM) the joined tables' columns.
fn env_row<'a>(old: &'a [Value], joined: &[Value]) -> std::borrow::Cow<'a, [Value]> {
    match joined {
        [] => std::borrow::Cow::Borrowed(old),
        _ => std::borrow::Cow::Owned([old, joined].concat()),
    }
}

/// Stores assigned value `v` in slot `i` of `row` (`n` columns, then the
/// rowid) with the column's affinity, keeping a rowid alias and the rowid
/// slot equal.
fn assign_slot(row: &mut [Value], table: &Table, n: usize, i: usize, v: Value) {
    row[i] = if i < n {
        apply_affinity(v, table.columns[i].affinity)
    } else {
        v
    };
    if Some(i) == table.rowid_alias {
        row[n] = row[i].clone();
    } else if i == n {
        if let Some(a) = table.rowid_alias {
            row[a] = row[n].clone();
        }
    }
}

/// Replaces `old` by `new` (which may have a different rowid); with a
/// `queue`, entries of indexes that are not UNIQUE wait there. `vals`
/// holds the index values meanwhile (reused from row to row).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn write_update(
    kv: &mut dyn Kv,
    cat: &Catalog,
    w: &TableWriter,
    old: &[Value],
    mut new: Row,
    or: Option<ast::ConflictResolution>,
    params: &[Value],
    opts: DmlOptions,
    queue: Option<&mut IndexQueue>,
    vals: &mut ChangedValues,
) -> Result<Option<Row>> {
    let table = &w.table;
    let n = table.columns.len();
    let old_id = old[n].to_i64_opt().unwrap_or_default();
    // A WITHOUT ROWID table's INTEGER PRIMARY KEY set to NULL: NOT NULL.
    if let (Some(a), false) = (table.rowid_alias, table.rowid_visible()) {
        if new[n].is_null() || new[a].is_null() {
            new[a] = Value::Null;
            if !ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
                w.resolve_nulls(ctx, &mut new, or)
            })? {
                return Ok(None);
            }
            new[n] = new[a].clone();
        }
    }
    // A rowid set to NULL or to what is not an integer fails, as in SQLite.
    let new_id = match apply_affinity(new[n].clone(), Affinity::Integer) {
        Value::Integer(i) => i,
        _ => return Err(sql_err!("datatype mismatch")),
    };
    new[n] = Value::Integer(new_id);
    if let Some(a) = table.rowid_alias {
        new[a] = Value::Integer(new_id);
    }
    // NULLs in NOT NULL columns and CHECK as in `insert_one`. Indexes
    // whose inputs the update leaves identical keep their entries: no key
    // to compute, no conflict to look for.
    let admitted = ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
        if !w.admit(ctx, &mut new, or)? {
            return Ok(false);
        }
        w.changed_index_values(ctx, old, &new, vals)?;
        Ok(true)
    })?;
    if !admitted {
        return Ok(None);
    }
    let conflicts = w.find_conflicts(&*kv, &vals.after, new_id, Some(old_id), true)?;
    let current;
    let mut old = old;
    if !conflicts.is_empty() {
        match resolve_conflicts(kv, cat, w, &conflicts, or, &[], params, opts)? {
            Resolved::Write => {}
            Resolved::Recheck => {
                // The DELETE triggers may have changed or deleted the row.
                // Keeping its rowid, it must be as it was (SQLite pins it,
                // SQLITE_CONSTRAINT_PINNED); moving, it is skipped if gone.
                let now = w.read(&*kv, old_id)?;
                if new_id == old_id && now.as_deref() != Some(old) {
                    w.halt_on(Some(ast::ConflictResolution::Abort));
                    return Err(Error::Constraint {
                        kind: crate::ConstraintKind::Trigger,
                        message: "constraint failed: the DELETE triggers of a REPLACE \
                                  changed the row being updated"
                            .into(),
                    });
                }
                let Some(now) = now else {
                    return Ok(None);
                };
                current = now;
                old = &current;
                ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
                    w.changed_index_values(ctx, old, &new, vals)
                })?;
                recheck(&*kv, w, &vals.after, new_id, Some(old_id))?;
            }
            _ => return Ok(None),
        }
    }
    let (old_vals, new_vals) = (&vals.before, &vals.after);
    if opts.foreign_keys {
        super::fk::child_removed(kv, cat, table, old, Some(&new), params, opts)?;
        if w.referenced {
            // Before the actions, which may give children the new key.
            super::fk::parent_added(kv, cat, table, &new, Some(old), params, opts)?;
            super::fk::on_parent_update(kv, cat, table, old, &new, params, opts)?;
        }
    }
    w.replace(kv, old_vals, old_id, new_vals, &new, queue)?;
    if opts.foreign_keys {
        super::fk::child_written(kv, cat, table, Some(old), &new, params, opts)?;
    }
    Ok(Some(new))
}

/// Deletes one row by rowid (index entries and foreign key actions too).
#[inline(never)]
pub(crate) fn delete_by_rowid(
    kv: &mut dyn Kv,
    cat: &Catalog,
    w: &TableWriter,
    rowid: i64,
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    let Some(row) = w.read(&*kv, rowid)? else {
        return Ok(());
    };
    delete_row(kv, cat, w, &row, params, opts)
}

/// The delete of row `row` of `w`'s table (as stored: every column,
/// then the rowid) by a foreign key's CASCADE or a REPLACE, with the
/// table's DELETE `triggers` firing around it; false when a BEFORE
/// trigger skipped it.
pub(crate) fn delete_firing(
    kv: &mut dyn Kv,
    cat: &Catalog,
    w: &TableWriter,
    triggers: &Triggers,
    row: &[Value],
    params: &[Value],
    opts: DmlOptions,
) -> Result<bool> {
    if !triggers.fire(TriggerTiming::Before, kv, cat, Some(row), None, opts)? {
        return Ok(false);
    }
    let Value::Integer(id) = row[w.table.columns.len()] else {
        return Ok(true);
    };
    let Some(now) = w.read(&*kv, id)? else {
        return Ok(true);
    };
    delete_by_rowid(kv, cat, w, id, params, opts)?;
    triggers.fire(TriggerTiming::After, kv, cat, Some(&now), None, opts)?;
    Ok(true)
}

/// Deletes `row` (as stored now: every column, then the rowid), its index
/// entries, and applies foreign key actions.
#[inline(never)]
fn delete_row(
    kv: &mut dyn Kv,
    cat: &Catalog,
    w: &TableWriter,
    row: &[Value],
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    let rowid = row[w.table.columns.len()].to_i64_opt().unwrap_or_default();
    if opts.foreign_keys {
        super::fk::child_removed(kv, cat, &w.table, row, None, params, opts)?;
        if w.referenced {
            super::fk::on_parent_delete(kv, cat, &w.table, row, params, opts)?;
        }
    }
    let vals = ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
        w.all_index_values(ctx, row)
    })?;
    w.delete(kv, &vals, rowid)
}

/// A bound UPDATE: the scan for its rows and its assignments.
pub(crate) struct UpdatePlan {
    writer: TableWriter,
    returning: Vec<Expr>,
    returning_columns: Rc<[String]>,
    scan: Core,
    sets: Vec<BoundSet>,
    /// A SET value reads tables (a subquery): as in SQLite, each row's new
    /// values are then computed when that row is written, so they see the
    /// rows this statement changed before it.
    sets_read_tables: bool,
    /// The table's UPDATE triggers for the columns SET names.
    triggers: Option<Triggers>,
}

impl UpdatePlan {
    pub(crate) fn new(
        cat: &Catalog,
        up: &ast::Update,
        stats: &dyn Fn(&str) -> u64,
    ) -> Result<UpdatePlan> {
        let mut t = WriteTarget::new(cat, &up.table, &up.alias, &up.returning, &up.with, stats)?;
        let (scan, scope) = t.binder.bind_write_scan(
            &t.table,
            &t.name,
            up.from.as_ref(),
            up.where_clause.as_ref(),
            up.pos,
        )?;
        let sets = bind_sets(&mut t.binder, &scope, &t.table, &up.sets)?;
        let set: Vec<usize> = sets
            .iter()
            .flat_map(|s| s.targets.iter().copied())
            .collect();
        let triggers = Triggers::of(cat, &t.table, Event::Update, &set, up.or);
        Ok(UpdatePlan {
            triggers,
            writer: t.writer,
            returning: t.returning,
            returning_columns: t.returning_columns.into(),
            scan,
            sets,
            sets_read_tables: up.sets.iter().any(|a| contains_subquery(&a.value)),
        })
    }

    /// Runs the UPDATE `up` this plan was made from.
    #[inline(never)]
    pub(crate) fn run(
        &self,
        kv: &mut dyn Kv,
        cat: &Catalog,
        up: &ast::Update,
        params: &[Value],
        opts: DmlOptions,
    ) -> Result<DmlOutcome> {
        let table = &self.writer.table;
        // The rows to update, found before any is written, each with its
        // new values unless a SET subquery must see earlier rows' changes.
        // Uncorrelated subqueries run once per statement, as in SQLite:
        // their results carry from row to row in `cache`.
        // With FROM, a row of the target is followed by the FROM tables'
        // columns (what SET reads besides the row): the first row of the
        // join for each target row counts, as in SQLite one of them does.
        let n = table.columns.len();
        let (planned, mut cache) = ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
            let rows = matching_rows(ctx, &self.scan)?;
            let mut seen = crate::storage::fasthash::FastSet::default();
            let mut planned: Vec<(Row, Option<Row>, Row)> = Vec::with_capacity(rows.len());
            for mut old in rows {
                let joined = old.split_off(n + 1);
                if !joined.is_empty() && !seen.insert(old[n].to_i64_opt().unwrap_or_default()) {
                    continue;
                }
                let new = match self.sets_read_tables {
                    true => None,
                    false => Some(apply_sets(
                        ctx,
                        &self.sets,
                        table,
                        &old,
                        &env_row(&old, &joined),
                    )?),
                };
                planned.push((old, new, joined));
            }
            Ok::<_, Error>((planned, ctx.cache.take()))
        })?;
        let or = up.or;
        let mut out = DmlOutcome::new(&self.returning_columns);
        // Only a REPLACE or a foreign key action can change a row this
        // statement has yet to update; without them no row is read again.
        let may_change = self.writer.may_replace(or)
            || (opts.foreign_keys && self.writer.referenced)
            || self.triggers.is_some();
        // Without them, and when neither foreign key checks, CHECK
        // constraints nor RETURNING can read an index while the statement
        // runs, the entries of indexes that are not UNIQUE change at the
        // end in key order: each index is walked once instead of a random
        // leaf per row. Rows keeping their rowid only (see `apply_queued`).
        let moves_rowid = self.sets.iter().any(|s| {
            s.targets
                .iter()
                .any(|&t| t == n || Some(t) == table.rowid_alias)
        });
        let defer = planned.len() > 1
            && !may_change
            && !moves_rowid
            && self.returning.is_empty()
            && !self.writer.checks_read_tables
            && !self.sets_read_tables
            && (!opts.foreign_keys || table.foreign_keys.is_empty());
        let mut queue = IndexQueue::default();
        let mut vals = ChangedValues::default();
        for (old, planned_new, joined) in planned {
            // The row may have been removed or changed by an earlier
            // REPLACE or cascade: update what is there now, with new
            // values computed from it.
            let rowid = old[n].to_i64_opt().unwrap_or_default();
            let current = match may_change {
                true => match self.writer.read(&*kv, rowid)? {
                    Some(row) => Some(row),
                    None => continue,
                },
                false => None,
            };
            let (old, new) = match (current, planned_new) {
                (Some(current), _) if current != old => (current, None),
                (_, planned) => (old, planned),
            };
            let mut new = match new {
                Some(new) => new,
                None => self.sets_now(&*kv, params, opts, &old, &joined, &mut cache)?,
            };
            let mut old = old;
            if let Some(t) = &self.triggers {
                let is_set = |i| self.sets.iter().any(|s| s.targets.contains(&i));
                let w = &self.writer;
                match t.before_update(kv, cat, w, &old, &mut new, &is_set, (params, opts)) {
                    Ok(Some(now)) => old = now,
                    Ok(None) => continue,
                    Err(e) => {
                        out.stopped = Some(self.writer.halted(e));
                        break;
                    }
                }
            }
            let q = if defer { Some(&mut queue) } else { None };
            let written = match write_update(
                kv,
                cat,
                &self.writer,
                &old,
                new,
                or,
                params,
                opts,
                q,
                &mut vals,
            ) {
                Ok(written) => written,
                Err(e) => {
                    out.stopped = Some(self.writer.halted(e));
                    break;
                }
            };
            if let Some(row) = written {
                out.changes += 1;
                if let Some(t) = &self.triggers {
                    if let Err(e) =
                        t.fire(TriggerTiming::After, kv, cat, Some(&old), Some(&row), opts)
                    {
                        out.stopped = Some(self.writer.halted(e));
                        break;
                    }
                }
                if !self.returning.is_empty() {
                    out.returning.push(self.returned(&*kv, params, opts, &row)?);
                }
            }
        }
        // Under FAIL the rows before the failing one stay: their entries too.
        if matches!(out.stopped, None | Some((Halt::Fail, _))) {
            self.writer.apply_queued(kv, &mut queue)?;
        }
        Ok(out)
    }

    /// Row `old`'s new values computed as it is written (SET reads tables),
    /// with the FROM tables' columns `joined`, the statement's subquery
    /// results carried in `cache`. Out of line, as the other rare paths of
    /// `run`: a function's first call compiles all of it in V8's baseline
    /// tier.
    #[inline(never)]
    fn sets_now(
        &self,
        kv: &dyn Kv,
        params: &[Value],
        opts: DmlOptions,
        old: &[Value],
        joined: &[Value],
        cache: &mut super::ResultsById,
    ) -> Result<Row> {
        ExecCtx::scoped(kv, params, opts.batch_limit, |ctx| {
            *ctx.cache.borrow_mut() = std::mem::take(cache);
            let new = apply_sets(
                ctx,
                &self.sets,
                &self.writer.table,
                old,
                &env_row(old, joined),
            );
            *cache = ctx.cache.take();
            new
        })
    }

    /// The RETURNING row of written row `row`.
    #[inline(never)]
    fn returned(
        &self,
        kv: &dyn Kv,
        params: &[Value],
        opts: DmlOptions,
        row: &[Value],
    ) -> Result<Row> {
        ExecCtx::scoped(kv, params, opts.batch_limit, |ctx| {
            eval_row(ctx, &self.returning, row)
        })
    }
}

/// A bound DELETE: the scan for its rows.
pub(crate) struct DeletePlan {
    writer: TableWriter,
    returning: Vec<Expr>,
    returning_columns: Rc<[String]>,
    scan: Core,
    /// The table's DELETE triggers.
    triggers: Option<Triggers>,
}

impl DeletePlan {
    pub(crate) fn new(
        cat: &Catalog,
        del: &ast::Delete,
        stats: &dyn Fn(&str) -> u64,
    ) -> Result<DeletePlan> {
        let mut t = WriteTarget::new(
            cat,
            &del.table,
            &del.alias,
            &del.returning,
            &del.with,
            stats,
        )?;
        let (scan, _) = t.binder.bind_write_scan(
            &t.table,
            &t.name,
            None,
            del.where_clause.as_ref(),
            del.pos,
        )?;
        let triggers = Triggers::of(cat, &t.table, Event::Delete, &[], None);
        Ok(DeletePlan {
            writer: t.writer,
            returning: t.returning,
            returning_columns: t.returning_columns.into(),
            scan,
            triggers,
        })
    }

    /// Deletes one of the rows the scan found, unless a foreign key action
    /// removed it or a BEFORE trigger skipped it (`None`): its RETURNING
    /// row, and the row deleted when its AFTER triggers are to see it.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn delete_one(
        &self,
        kv: &mut dyn Kv,
        cat: &Catalog,
        params: &[Value],
        opts: DmlOptions,
        row: &[Value],
        may_change: bool,
        single: bool,
        queue: &mut IndexQueue,
    ) -> Result<Option<(Option<Row>, Option<Row>)>> {
        let n = self.writer.table.columns.len();
        let rowid = row[n].to_i64_opt().unwrap_or_default();
        // A cascade may have removed or changed the row meanwhile.
        let mut current = match may_change {
            true => match self.writer.read(&*kv, rowid)? {
                Some(current) => Some(current),
                None => return Ok(None),
            },
            false => None,
        };
        if let (Some(t), Some(old)) = (&self.triggers, &current) {
            // Its BEFORE triggers may skip it, or delete or change it.
            if !t.fire(TriggerTiming::Before, kv, cat, Some(old), None, opts)? {
                return Ok(None);
            }
            current = match self.writer.read(&*kv, rowid)? {
                Some(now) => Some(now),
                None => return Ok(None),
            };
        }
        let returned = match self.returning.is_empty() {
            true => None,
            false => Some(ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
                eval_row(ctx, &self.returning, row)
            })?),
        };
        match current.as_ref() {
            Some(current) => {
                delete_row(kv, cat, &self.writer, current, params, opts)?;
            }
            None => {
                if opts.foreign_keys {
                    let table = &self.writer.table;
                    super::fk::child_removed(kv, cat, table, row, None, params, opts)?;
                }
                // No foreign key action can look at the indexes while
                // the statement runs: their entries go in key order
                // (a single row's go at once, nothing to order).
                let vals = ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
                    self.writer.all_index_values(ctx, row)
                })?;
                match single {
                    true => self.writer.delete(kv, &vals, rowid)?,
                    false => self.writer.delete_deferred(kv, &vals, rowid, queue)?,
                }
            }
        }
        Ok(Some((returned, current)))
    }

    /// Runs the DELETE this plan was made from.
    #[inline(never)]
    pub(crate) fn run(
        &self,
        kv: &mut dyn Kv,
        cat: &Catalog,
        params: &[Value],
        opts: DmlOptions,
    ) -> Result<DmlOutcome> {
        let rows = ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
            matching_rows(ctx, &self.scan)
        })?;
        let mut out = DmlOutcome::new(&self.returning_columns);
        // Only a foreign key action or a trigger can change a row this
        // statement has yet to delete; without one no row is read again.
        let may_change = (opts.foreign_keys && self.writer.referenced) || self.triggers.is_some();
        let mut queue = IndexQueue::default();
        let single = rows.len() == 1;
        for row in rows {
            let step = self.delete_one(kv, cat, params, opts, &row, may_change, single, &mut queue);
            let after = match step {
                Ok(None) => continue,
                Ok(Some((returned, deleted))) => {
                    // Counted before its AFTER triggers run, as in SQLite.
                    out.changes += 1;
                    out.returning.extend(returned);
                    match (&self.triggers, deleted) {
                        (Some(t), Some(old)) => {
                            t.fire(TriggerTiming::After, kv, cat, Some(&old), None, opts)
                        }
                        _ => Ok(true),
                    }
                }
                Err(e) => Err(e),
            };
            if let Err(e) = after {
                out.stopped = Some(self.writer.halted(e));
                break;
            }
        }
        // Under FAIL the rows before the failing one stay deleted: their
        // entries go too.
        if !matches!(out.stopped, None | Some((Halt::Fail, _))) {
            return Ok(out);
        }
        self.writer.apply_queued(kv, &mut queue)?;
        Ok(out)
    }
}
