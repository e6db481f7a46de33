//! Runs one parsed statement against a [`Kv`] and a catalog: binds it,
//! plans it, executes it. Transaction control (BEGIN, COMMIT, ROLLBACK,
//! SAVEPOINT, RELEASE) and connection pragmas belong to the connection
//! (`db.rs`), which calls this for everything else.

use super::dml::{self, DmlOptions};
use super::kv::Kv;
use super::scan::Row;
use super::ExecCtx;
use crate::sql::ast::{self, Statement};
use crate::sql::binder::Binder;
use crate::sql::catalog::Catalog;
use crate::sql::value::Value;
use crate::{sql_err, Result};

/// What running a statement produced.
#[derive(Debug, Default)]
pub(crate) struct Output {
    pub columns: Vec<String>,
    pub decl_types: Vec<String>,
    pub rows: Vec<Row>,
    pub changes: u64,
    pub last_rowid: Option<i64>,
    /// The statement changed the catalog.
    pub schema_changed: bool,
}

/// True when the statement only reads (it can run on a snapshot).
pub(crate) fn is_read_only(stmt: &Statement) -> bool {
    matches!(stmt, Statement::Select(_) | Statement::Explain { .. })
}

/// The result columns a statement will produce (for prepared statements),
/// without running it.
pub(crate) fn columns_of(
    kv: &dyn Kv,
    cat: &Catalog,
    stmt: &Statement,
) -> Result<(Vec<String>, usize)> {
    let stats = |tree: &str| kv.tree_len(tree).unwrap_or(1000);
    let mut binder = Binder::new(cat);
    binder.stats = Some(&stats);
    match stmt {
        Statement::Select(s) => {
            let (q, _, _) = binder.bind_query_in(s, None)?;
            Ok((q.columns, binder.param_count))
        }
        Statement::Explain { .. } => Ok((
            vec![
                "id".into(),
                "parent".into(),
                "notused".into(),
                "detail".into(),
            ],
            0,
        )),
        _ => Ok((Vec::new(), 0)),
    }
}

/// Runs `stmt` (whose text is `sql`).
pub(crate) fn run(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    stmt: &Statement,
    sql: &str,
    params: &[Value],
    opts: DmlOptions,
) -> Result<Output> {
    let mut out = Output::default();
    match stmt {
        Statement::Select(s) => {
            let ctx = ExecCtx::new(&*kv, params, opts.batch_limit);
            let stats = |tree: &str| ctx.kv.tree_len(tree).unwrap_or(1000);
            let mut binder = Binder::new(cat);
            binder.stats = Some(&stats);
            let (q, _, _) = binder.bind_query_in(s, None)?;
            out.rows = ctx.run_query(&q, None)?;
            out.columns = q.columns;
            out.decl_types = q.decl_types;
        }
        Statement::Insert(i) => dml_output(&mut out, dml::insert(kv, cat, i, params, opts)?),
        Statement::Update(u) => dml_output(&mut out, dml::update(kv, cat, u, params, opts)?),
        Statement::Delete(d) => dml_output(&mut out, dml::delete(kv, cat, d, params, opts)?),
        Statement::CreateTable(ct) => {
            out.schema_changed = match &ct.body {
                ast::CreateTableBody::Columns { .. } => super::ddl::create_table(kv, cat, ct, sql)?,
                ast::CreateTableBody::AsSelect(select) => {
                    let (rows, columns, decl) = {
                        let ctx = ExecCtx::new(&*kv, params, opts.batch_limit);
                        let mut binder = Binder::new(cat);
                        let (q, affs, _) = binder.bind_query_in(select, None)?;
                        let decl: Vec<String> = affs
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
        Statement::Drop(d) => out.schema_changed = super::ddl::drop(kv, cat, d, opts)?,
        Statement::AlterTable(at) => {
            super::ddl::alter_table(kv, cat, at, sql)?;
            out.schema_changed = true;
        }
        Statement::Explain { statement, .. } => {
            let Statement::Select(s) = statement.as_ref() else {
                return Err(sql_err!(
                    "EXPLAIN QUERY PLAN supports SELECT statements only"
                ));
            };
            let stats = |tree: &str| kv.tree_len(tree).unwrap_or(1000);
            let mut binder = Binder::new(cat);
            binder.stats = Some(&stats);
            let (q, _, _) = binder.bind_query_in(s, None)?;
            out.rows = super::explain::explain(&q);
            out.columns = vec![
                "id".into(),
                "parent".into(),
                "notused".into(),
                "detail".into(),
            ];
        }
        Statement::Analyze { .. } | Statement::Vacuum { .. } | Statement::Reindex { .. } => {}
        Statement::Pragma(p) => return Err(sql_err!("unsupported pragma: {}", p.name.name)),
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
