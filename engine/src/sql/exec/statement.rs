//! Runs one parsed statement against a [`Kv`] and a catalog: binds it,
//! plans it, executes it. Transaction control (BEGIN, COMMIT, ROLLBACK,
//! SAVEPOINT, RELEASE) and connection pragmas belong to the connection
//! (`db.rs`), which calls this for everything else.
//!
//! Binding and planning are split from execution: [`prepare`] makes a
//! [`Plan`] (the bound query, or the bound INSERT/UPDATE/DELETE), which
//! [`execute`] runs with the parameters of one execution. A prepared
//! statement keeps its plan while [`Plan::is_current`] holds: the catalog
//! still has the version the plan was bound against (any DDL gives the
//! catalog a new version), and no table the planner sized has since grown
//! or shrunk several-fold (checked once per snapshot: a plan remembers the
//! committed state it last checked). DDL is not planned: it runs from the syntax tree
//! each time, and only it copies the catalog (`Rc::make_mut`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::dml::{self, DmlOptions};
use super::kv::Kv;
use super::pending::PendingInserts;
use super::scan::Row;
use super::view_write::{is_view, ViewWrite};
use super::write::Halt;
use super::ExecCtx;
use crate::sql::ast::{self, Statement};
use crate::sql::binder::Binder;
use crate::sql::catalog::Catalog;
use crate::sql::planner::plan::Query;
use crate::sql::value::Value;
use crate::{sql_err, Error, Result};

/// What running a statement produced.
#[derive(Debug)]
pub(crate) struct Output {
    pub columns: Rc<[String]>,
    pub rows: Vec<Row>,
    pub changes: u64,
    pub last_rowid: Option<i64>,
    /// The statement changed the catalog.
    pub schema_changed: bool,
    /// A failing row stopped the statement after the changes counted
    /// here: the caller undoes it (ABORT), keeps them (FAIL) or rolls back
    /// the transaction (ROLLBACK), then reports the error (`write::Halt`).
    pub stopped: Option<(Halt, Error)>,
}

impl Default for Output {
    fn default() -> Output {
        Output {
            columns: no_columns(),
            rows: Vec::new(),
            changes: 0,
            last_rowid: None,
            schema_changed: false,
            stopped: None,
        }
    }
}

/// The column names of a statement without rows: one shared empty list
/// (an `Rc<[String]>` of its own would be an allocation per statement).
pub(crate) fn no_columns() -> Rc<[String]> {
    thread_local! {
        static NONE: Rc<[String]> = Rc::from([]);
    }
    NONE.with(Rc::clone)
}

/// True when running the statement cannot change the database: SELECT
/// (and VALUES), EXPLAIN, and the PRAGMA forms that only read (a pragma
/// without a value, a schema pragma other than a user_version write or
/// `optimize`). Such a statement can run on a snapshot.
/// Transaction control is not read-only (BEGIN takes the write lock).
pub(crate) fn is_read_only(stmt: &Statement) -> bool {
    match stmt {
        Statement::Select(_) | Statement::Explain { .. } => true,
        // A schema pragma's argument names what it reads (`table_info(t)`).
        Statement::Pragma(p) if super::pragma::is_schema_pragma(p) => !super::pragma::writes(p),
        Statement::Pragma(p) => p.value.is_none(),
        _ => false,
    }
}

/// The row counts the planner read while binding, kept so a cached plan
/// can tell when the data it was planned for has changed a lot.
#[derive(Default)]
pub(crate) struct StatsLog(RefCell<Vec<(String, u64)>>);

impl StatsLog {
    /// The entry count of `tree`, recorded; 1000 when unknown (and then
    /// not recorded, so the plan does not depend on it).
    pub(crate) fn tree_len(&self, kv: &dyn Kv, tree: &str) -> u64 {
        let Ok(n) = kv.tree_len(tree) else {
            return 1000;
        };
        let mut seen = self.0.borrow_mut();
        if !seen.iter().any(|(t, _)| t == tree) {
            seen.push((tree.to_string(), n));
        }
        n
    }

    fn into_inner(self) -> Vec<(String, u64)> {
        self.0.into_inner()
    }
}

/// True when a table of `now` entries is close enough to the `then` the
/// planner saw for its plan to stand (within a factor of 2, or 64 rows).
fn similar_size(then: u64, now: u64) -> bool {
    let (lo, hi) = (then.min(now), then.max(now));
    hi <= lo.saturating_mul(2).saturating_add(64)
}

/// A statement bound and planned, ready to run any number of times.
pub(crate) struct Plan {
    /// The catalog version the plan was bound against.
    version: u64,
    /// Entry counts of the trees the planner sized.
    stats: Vec<(String, u64)>,
    /// The snapshot (`Kv::snapshot_id`) whose sizes were last found
    /// similar to `stats`: running again on it needs no size check (each
    /// autocommit read is a new snapshot of, usually, the same state; the
    /// check reads every sized table's entry in the catalog tree).
    sized_at: Cell<Option<u64>>,
    kind: PlanKind,
}

enum PlanKind {
    Query(Query),
    Explain(Vec<Row>),
    Insert(dml::InsertPlan),
    Update(dml::UpdatePlan),
    Delete(dml::DeletePlan),
    /// A DELETE or UPDATE of `sqlite_sequence`.
    Sequence(super::sequence::SequenceWrite),
    /// An INSERT, UPDATE or DELETE of a view (its INSTEAD OF triggers).
    View(super::view_write::ViewWrite),
    /// Runs from the syntax tree each time (DDL, no-ops, errors).
    Direct,
}

impl Plan {
    /// True while the plan may run on `cat` and `kv`: the catalog is the
    /// one it was bound against and the tables it sized kept their size
    /// (within a factor of 2).
    pub(crate) fn is_current(&self, kv: &dyn Kv, cat: &Catalog) -> bool {
        if self.version != cat.version {
            return false;
        }
        let snapshot = kv.snapshot_id();
        if snapshot.is_some() && snapshot == self.sized_at.get() {
            return true;
        }
        let similar = self
            .stats
            .iter()
            .all(|(tree, then)| kv.tree_len(tree).is_ok_and(|now| similar_size(*then, now)));
        if similar {
            self.sized_at.set(snapshot);
        }
        similar
    }

    /// The result column names of a query plan (empty otherwise).
    pub(crate) fn columns(&self) -> Rc<[String]> {
        match &self.kind {
            PlanKind::Query(q) => q.columns.clone(),
            _ => no_columns(),
        }
    }
}

/// Binds and plans `stmt` against `cat`, sizing tables in `kv`.
pub(crate) fn prepare(kv: &dyn Kv, cat: &Catalog, stmt: &Statement) -> Result<Plan> {
    let log = StatsLog::default();
    let stats = |tree: &str| log.tree_len(kv, tree);
    let kind = match stmt {
        Statement::Select(s) => {
            let mut binder = Binder::new(cat);
            binder.stats = Some(&stats);
            PlanKind::Query(binder.bind_query_in(s, None)?.0)
        }
        Statement::Explain { statement, .. } => {
            let Statement::Select(s) = statement.as_ref() else {
                return Err(sql_err!(
                    "EXPLAIN QUERY PLAN supports SELECT statements only"
                ));
            };
            let mut binder = Binder::new(cat);
            binder.stats = Some(&stats);
            let (q, _, _) = binder.bind_query_in(s, None)?;
            PlanKind::Explain(super::explain::explain(&q))
        }
        Statement::Insert(i) if is_view(cat, &i.table) => {
            PlanKind::View(ViewWrite::insert(cat, i)?)
        }
        Statement::Update(u) if is_view(cat, &u.table) => {
            PlanKind::View(ViewWrite::update(cat, u)?)
        }
        Statement::Delete(d) if is_view(cat, &d.table) => {
            PlanKind::View(ViewWrite::delete(cat, d)?)
        }
        Statement::Insert(i) => PlanKind::Insert(dml::InsertPlan::new(cat, i)?),
        Statement::Update(u) if super::sequence::is_sequence_table(&u.table) => {
            let refused = !u.returning.is_empty() || u.from.is_some() || u.or.is_some();
            let sets = Some(u.sets.as_slice());
            PlanKind::Sequence(super::sequence::SequenceWrite::new(
                cat,
                &u.with,
                &u.alias,
                sets,
                &u.where_clause,
                refused,
            )?)
        }
        Statement::Delete(d) if super::sequence::is_sequence_table(&d.table) => {
            let refused = !d.returning.is_empty();
            PlanKind::Sequence(super::sequence::SequenceWrite::new(
                cat,
                &d.with,
                &d.alias,
                None,
                &d.where_clause,
                refused,
            )?)
        }
        Statement::Update(u) => PlanKind::Update(dml::UpdatePlan::new(cat, u, &stats)?),
        Statement::Delete(d) => PlanKind::Delete(dml::DeletePlan::new(cat, d, &stats)?),
        _ => PlanKind::Direct,
    };
    Ok(Plan {
        version: cat.version,
        stats: log.into_inner(),
        sized_at: Cell::new(None),
        kind,
    })
}

/// True for the statements that change the catalog.
fn is_ddl(stmt: &Statement) -> bool {
    matches!(
        stmt,
        Statement::CreateTable(_)
            | Statement::CreateIndex(_)
            | Statement::CreateView(_)
            | Statement::CreateTrigger(_)
            | Statement::Drop(_)
            | Statement::AlterTable(_)
            | Statement::Analyze { .. }
    ) || matches!(stmt, Statement::Pragma(p) if super::pragma::writes(p))
}

/// Runs `plan`, made by [`prepare`] from `stmt` (whose text is `sql`) and
/// current for `cat` ([`Plan::is_current`]). DDL copies the catalog if it
/// is shared and gives it a new version.
/// The tree of the table whose index entries `stmt` may leave waiting in
/// a [`PendingInserts`] across statements (see `exec::pending`): an INSERT
/// that reads none of them. `None` for every other statement.
pub(crate) fn defers_index_entries<'p>(
    plan: &'p Plan,
    stmt: &Statement,
    opts: DmlOptions,
) -> Option<&'p str> {
    match (&plan.kind, stmt) {
        (PlanKind::Insert(p), Statement::Insert(i)) => p.defers_to(i, opts),
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn execute(
    kv: &mut dyn Kv,
    cat: &mut Rc<Catalog>,
    plan: &Plan,
    stmt: &Statement,
    sql: &str,
    params: &[Value],
    opts: DmlOptions,
    pending: Option<&mut PendingInserts>,
) -> Result<Output> {
    let mut out = Output::default();
    match (&plan.kind, stmt) {
        (PlanKind::Query(q), _) => {
            out.rows = ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| ctx.run_result(q))?;
            out.columns = q.columns.clone();
            return Ok(out);
        }
        (PlanKind::Explain(rows), _) => {
            out.rows = rows.clone();
            out.columns = explain_columns().into();
            return Ok(out);
        }
        (PlanKind::Insert(p), Statement::Insert(i)) => {
            dml_output(&mut out, p.run(kv, cat, i, params, opts, pending)?)
        }
        (PlanKind::Update(p), Statement::Update(u)) => {
            dml_output(&mut out, p.run(kv, cat, u, params, opts)?)
        }
        (PlanKind::Delete(p), Statement::Delete(_)) => {
            dml_output(&mut out, p.run(kv, cat, params, opts)?)
        }
        (PlanKind::Sequence(p), _) => out.changes = p.run(kv, params, opts.batch_limit)?,
        (PlanKind::View(p), _) => dml_output(&mut out, p.run(kv, cat, params, opts)?),
        (PlanKind::Direct, stmt) if is_ddl(stmt) => {
            let cat = Rc::make_mut(cat);
            let r = run_direct(kv, cat, stmt, sql, params, opts);
            // Even a failed DDL may have changed the (discarded) copy.
            cat.bump_version();
            // (DROP TABLE deletes a parent's rows first.)
            return r.and_then(immediate_foreign_keys_hold);
        }
        (PlanKind::Direct, stmt) => {
            return run_direct(kv, &mut Catalog::clone(cat), stmt, sql, params, opts)
        }
        _ => return Err(sql_err!("internal: plan of another statement")),
    }
    immediate_foreign_keys_hold(out)
}

/// A write statement's end: it fails, undone whole, if it leaves a
/// violation of an immediate foreign key (`exec::fk`), unless a
/// constraint already stopped it under ABORT or ROLLBACK.
fn immediate_foreign_keys_hold(out: Output) -> Result<Output> {
    let kept = matches!(out.stopped, None | Some((Halt::Fail, _)));
    if kept && super::fk::statement_counts().0 > 0 {
        return Err(super::fk::fk_error());
    }
    Ok(out)
}

/// Runs a trigger's statement `stmt` by its `plan` with the trigger's row
/// as `params`: a query's rows are read to the end and dropped; a write's
/// changes count in `total_changes()`, not `changes()`. A write a constraint stopped is
/// the statement's error.
pub(crate) fn run_in_trigger(
    kv: &mut dyn Kv,
    cat: &Catalog,
    plan: &Plan,
    stmt: &Statement,
    params: &[Value],
    opts: DmlOptions,
) -> Result<()> {
    let outcome = match (&plan.kind, stmt) {
        (PlanKind::Query(q), _) => {
            ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| ctx.run_result(q))?;
            return Ok(());
        }
        (PlanKind::Insert(p), Statement::Insert(i)) => p.run(kv, cat, i, params, opts, None)?,
        (PlanKind::Update(p), Statement::Update(u)) => p.run(kv, cat, u, params, opts)?,
        (PlanKind::Delete(p), Statement::Delete(_)) => p.run(kv, cat, params, opts)?,
        (PlanKind::View(p), _) => p.run(kv, cat, params, opts)?,
        _ => {
            return Err(sql_err!(
                "internal: a trigger's statement has no plan of its kind"
            ))
        }
    };
    // A statement stopped by ABORT or ROLLBACK is undone: its rows do not
    // count (those of the trigger statements it completed do).
    if !matches!(outcome.stopped, Some((Halt::Abort | Halt::Rollback, _))) {
        crate::sql::functions::count_trigger_changes(outcome.changes);
    }
    match outcome.stopped {
        Some((halt, e)) => {
            super::trigger::halt_outer(halt);
            Err(e)
        }
        None => Ok(()),
    }
}

fn explain_columns() -> Vec<String> {
    vec![
        "id".into(),
        "parent".into(),
        "notused".into(),
        "detail".into(),
    ]
}

/// The result columns a statement will produce (for prepared statements),
/// without running it.
pub(crate) fn columns_of(
    kv: &dyn Kv,
    cat: &Catalog,
    stmt: &Statement,
) -> Result<(Rc<[String]>, usize)> {
    let stats = |tree: &str| kv.tree_len(tree).unwrap_or(1000);
    let mut binder = Binder::new(cat);
    binder.stats = Some(&stats);
    match stmt {
        Statement::Select(s) => {
            let (q, _, _) = binder.bind_query_in(s, None)?;
            Ok((q.columns, binder.param_count))
        }
        Statement::Explain { .. } => Ok((explain_columns().into(), 0)),
        _ => Ok((no_columns(), 0)),
    }
}

/// Runs `stmt` (whose text is `sql`) once: [`prepare`], then [`execute`].
#[cfg(test)]
pub(crate) fn run(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    stmt: &Statement,
    sql: &str,
    params: &[Value],
    opts: DmlOptions,
) -> Result<Output> {
    let plan = prepare(&*kv, cat, stmt)?;
    super::fk::start_statement(super::fk::Deferred::default());
    let mut shared = Rc::new(std::mem::take(cat));
    // As an autocommit statement runs: an INSERT's waiting index entries
    // are written when it is done.
    let mut pending = PendingInserts::default();
    let defer = defers_index_entries(&plan, stmt, opts).is_some();
    let r = execute(
        kv,
        &mut shared,
        &plan,
        stmt,
        sql,
        params,
        opts,
        defer.then_some(&mut pending),
    )
    .and_then(|mut out| {
        pending.apply(kv)?;
        // A stopped statement reports its error; the caller undoes what
        // it must (none of this function's callers keeps a FAIL's rows).
        match out.stopped.take() {
            Some((_, e)) => Err(e),
            None => Ok(out),
        }
    });
    *cat = Rc::try_unwrap(shared).unwrap_or_else(|rc| (*rc).clone());
    r
}

/// Runs a statement that has no plan (DDL and the rest) from its syntax.
#[inline(never)]
fn run_direct(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    stmt: &Statement,
    sql: &str,
    params: &[Value],
    opts: DmlOptions,
) -> Result<Output> {
    let mut out = Output::default();
    match stmt {
        Statement::CreateTable(ct) => {
            out.schema_changed = match &ct.body {
                ast::CreateTableBody::Columns { .. } => super::ddl::create_table(kv, cat, ct, sql)?,
                ast::CreateTableBody::AsSelect(select) => {
                    let (rows, columns, decl) = {
                        let ctx = ExecCtx::new(&*kv, params, opts.batch_limit);
                        let mut binder = Binder::new(cat);
                        // The new table's columns take the query's
                        // affinities, not its collations (as SQLite's do).
                        let (q, types, _) = binder.bind_query_in(select, None)?;
                        let decl: Vec<String> = types
                            .affinities
                            .iter()
                            .map(|a| affinity_type_name(*a).to_string())
                            .collect();
                        (ctx.run_query(&q, None)?, q.columns, decl)
                    };
                    super::ddl::create_table_as(kv, cat, ct, &columns, &decl, rows)?
                }
            };
        }
        Statement::CreateIndex(ci) => {
            out.schema_changed = super::ddl::create_index(kv, cat, ci, sql, opts.batch_limit)?
        }
        Statement::CreateView(cv) => {
            out.schema_changed = super::ddl::create_view(kv, cat, cv, sql)?
        }
        Statement::CreateTrigger(ct) => {
            out.schema_changed = super::trigger::create(kv, cat, ct, sql)?
        }
        Statement::Drop(d) => out.schema_changed = super::ddl::drop(kv, cat, d, opts)?,
        Statement::AlterTable(at) => {
            super::ddl::alter_table(kv, cat, at, opts.foreign_keys)?;
            out.schema_changed = true;
        }
        Statement::Analyze { name, .. } => {
            super::analyze::analyze(kv, cat, name.as_ref())?;
            out.schema_changed = true;
        }
        // The indexes use the built-in collations only, which never change.
        Statement::Reindex { .. } => {}
        Statement::Vacuum { .. } => {
            return Err(sql_err!("internal: VACUUM reached run_direct"));
        }
        Statement::Pragma(p) if super::pragma::is_schema_pragma(p) => {
            return super::pragma::run(kv, cat, p)
        }
        Statement::Pragma(p) => return Err(sql_err!("unsupported pragma: {}", p.name.name)),
        Statement::Select(_)
        | Statement::Explain { .. }
        | Statement::Insert(_)
        | Statement::Update(_)
        | Statement::Delete(_) => {
            return Err(sql_err!("internal: a planned statement reached run_direct"));
        }
        Statement::Begin { .. }
        | Statement::Commit { .. }
        | Statement::Rollback { .. }
        | Statement::Savepoint { .. }
        | Statement::Release { .. } => {
            return Err(sql_err!(
                "internal: transaction control reached the executor"
            ));
        }
    }
    Ok(out)
}

fn dml_output(out: &mut Output, d: dml::DmlOutcome) {
    out.changes = d.changes;
    out.last_rowid = d.last_rowid;
    out.rows = d.returning;
    out.columns = d.returning_columns;
    out.stopped = d.stopped;
}

/// The declared type CREATE TABLE AS gives a column of this affinity
/// (SQLite's `sqlite3AffinityType` inverse used by createTableStmt).
fn affinity_type_name(a: Option<crate::sql::value::Affinity>) -> &'static str {
    use crate::sql::value::Affinity;
    match a {
        Some(Affinity::Integer) => "INT",
        Some(Affinity::Real) => "REAL",
        Some(Affinity::Numeric) => "NUM",
        Some(Affinity::Text) => "TEXT",
        Some(Affinity::Blob) | None => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::exec::kv::MemKv;
    use crate::sql::parser;

    fn exec(kv: &mut MemKv, cat: &mut Catalog, sql: &str) {
        let opts = DmlOptions {
            foreign_keys: true,
            recursive_triggers: false,
            defer_foreign_keys: false,
            batch_limit: 16 << 20,
        };
        for s in parser::parse(sql).unwrap() {
            run(kv, cat, &s, sql, &[], opts).unwrap();
        }
    }

    #[test]
    fn a_plan_checks_table_sizes_once_per_snapshot() {
        let (mut kv, mut cat) = (MemKv::default(), Catalog::default());
        exec(
            &mut kv,
            &mut cat,
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b)",
        );
        exec(&mut kv, &mut cat, "INSERT INTO t VALUES (1, 1), (2, 2)");
        let stmt = parser::parse("SELECT b FROM t WHERE b = 1")
            .unwrap()
            .remove(0);
        let plan = prepare(&kv, &cat, &stmt).unwrap();
        let sized = |kv: &MemKv, cat: &Catalog| {
            kv.len_calls.set(0);
            let current = plan.is_current(kv, cat);
            (current, kv.len_calls.get())
        };
        // Changes in flight: sizes are checked every time.
        assert_eq!(sized(&kv, &cat), (true, 1));
        assert_eq!(sized(&kv, &cat), (true, 1));
        // A snapshot: checked once, then trusted while it is the same one.
        kv.snapshot = Some(7);
        assert_eq!(sized(&kv, &cat), (true, 1));
        assert_eq!(sized(&kv, &cat), (true, 0));
        // Another snapshot where the table grew past the plan's sizes.
        exec(
            &mut kv,
            &mut cat,
            "WITH RECURSIVE n(i) AS (SELECT 3 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
               INSERT INTO t SELECT i, i FROM n",
        );
        kv.snapshot = Some(8);
        assert_eq!(sized(&kv, &cat), (false, 1));
        assert_eq!(
            sized(&kv, &cat),
            (false, 1),
            "a stale plan is never trusted"
        );
    }
}
