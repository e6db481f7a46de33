//! The public Rust API: [`Database`], [`Connection`], [`Statement`].
//!
//! Transactions, as SQLite: a statement outside BEGIN runs in its own
//! transaction (autocommit). A read-only statement outside a transaction
//! reads the latest committed snapshot and never waits for a writer; any
//! other statement takes the write transaction for its duration. BEGIN
//! takes the write transaction at once (TinyJoin has one writer; a BEGIN
//! while another connection writes fails with `Error::Busy`, as SQLite's
//! BEGIN IMMEDIATE does) and holds it until COMMIT or ROLLBACK. SAVEPOINT
//! outside a transaction starts one, and RELEASE of that outermost
//! savepoint commits it.
//!
//! Statement atomicity: each statement inside a transaction runs after a
//! storage statement savepoint (an undo log, cheap when nothing fails) and
//! is rolled back to it if it fails, leaving the transaction open and as
//! it was (SQLite's ABORT). A constraint failure under FAIL keeps the rows
//! the statement wrote before the failing one (committing them in
//! autocommit), one under ROLLBACK rolls back the whole transaction
//! (`Output::stopped` says which). Except in a transaction opened by
//! `Connection::begin_atomic`: there a failing statement rolls back the
//! whole transaction, so statements run without the savepoint.
//!
//! Catalog: the database holds the catalog of the latest commit; a
//! transaction shares it (`Rc`) and copies it only when DDL changes it
//! (`Rc::make_mut`), publishing it when it commits. Every change gives the
//! catalog a new version.
//!
//! Prepared statements keep their bound and planned form
//! (`statement::Plan`) and reuse it while the catalog they run against has
//! the version it was planned for (DDL in any connection, a ROLLBACK past
//! a DDL, all change the version) and the tables it sized kept roughly
//! their size; otherwise they plan again. Parameters are checked and bound
//! on every execution.
//!
//! Temp space: a database opened with [`Database::open_with_temp`] sorts
//! past the batch limit by writing sorted runs to the temp device (see
//! `sql/exec/spill.rs`); the connection installs it for each statement
//! and empties it when the statement ends. Without it such sorts fail
//! with `Error::BatchLimitExceeded`. [`Database::open_in_memory`] has temp
//! space in memory.
//!
//! `PRAGMA foreign_keys` is ON by default in TinyJoin (SQLite's default is
//! OFF): FOREIGN KEY constraints are enforced unless a connection turns
//! them off.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use crate::sql::ast;
use crate::sql::catalog::Catalog;
use crate::sql::exec::ddl::load_catalog;
use crate::sql::exec::dml::DmlOptions;
use crate::sql::exec::fk;
use crate::sql::exec::kv::Kv;
use crate::sql::exec::pending::PendingInserts;
use crate::sql::exec::spill::{self, TempSpace};
use crate::sql::exec::statement::{self, Output};
use crate::sql::exec::write::Halt;
use crate::sql::parser;
pub use crate::sql::value::Value;
pub use crate::storage::{CheckReport, CommitMode, Validation};
use crate::storage::{Device, MemoryDevice, Savepoint, Store, StoreOptions, WriteTxn};
use crate::{misuse, sql_err, Error, Result};

/// Options for [`Database::open`].
#[derive(Clone, Debug)]
pub struct DbOptions {
    /// Tree nodes kept in the page cache.
    pub cache_pages: usize,
    /// The retained batch limit of a write transaction, in bytes; also
    /// bounds the memory a statement's intermediate results may use.
    pub batch_limit_bytes: u64,
    /// How thoroughly the file is validated when opened.
    pub validation: Validation,
    /// How a commit makes itself durable: one flush (the default, at the
    /// cost [`CommitMode::OneFlush`] describes), two, or none until
    /// [`Database::sync`] ([`CommitMode::Deferred`]).
    pub commit: CommitMode,
}

impl Default for DbOptions {
    fn default() -> DbOptions {
        let s = StoreOptions::default();
        DbOptions {
            cache_pages: s.cache_pages,
            batch_limit_bytes: s.batch_limit_bytes,
            validation: s.validation,
            commit: s.commit,
        }
    }
}

struct Shared {
    store: Store,
    /// Scratch for sorts past the batch limit (see [`Database::open_with_temp`]).
    temp: Option<Rc<TempSpace>>,
    catalog: RefCell<Rc<Catalog>>,
    opts: DbOptions,
}

/// An open database. Cheap to clone; not `Send` (single-threaded).
#[derive(Clone)]
pub struct Database {
    shared: Rc<Shared>,
}

impl Database {
    /// Opens (creating if empty) the database on `device`, validating it
    /// and loading its catalog.
    ///
    /// Without temp space, a statement whose sort does not fit in the
    /// batch limit fails with `Error::BatchLimitExceeded`; see
    /// [`Database::open_with_temp`].
    pub fn open(device: Box<dyn Device>, opts: DbOptions) -> Result<Database> {
        Database::open_inner(device, None, opts)
    }

    /// Opens the database on `device`, as [`Database::open`], with `temp`
    /// as scratch space: a sort (ORDER BY, an INSERT's source rows,
    /// CREATE INDEX's keys) that outgrows a quarter of the batch limit
    /// writes sorted runs there and merges them, so it completes within
    /// the limit. `temp` may start with any content and is never flushed;
    /// the engine truncates it to zero here and after each statement that
    /// used it.
    /// It must not be another database's file: a temp file the host
    /// deletes on close (native), or an OPFS file of its own (browser).
    pub fn open_with_temp(
        device: Box<dyn Device>,
        mut temp: Box<dyn Device>,
        opts: DbOptions,
    ) -> Result<Database> {
        temp.truncate(0)?;
        Database::open_inner(device, Some(temp), opts)
    }

    fn open_inner(
        device: Box<dyn Device>,
        temp: Option<Box<dyn Device>>,
        opts: DbOptions,
    ) -> Result<Database> {
        let store = Store::open(
            device,
            StoreOptions {
                cache_pages: opts.cache_pages,
                batch_limit_bytes: opts.batch_limit_bytes,
                validation: opts.validation,
                commit: opts.commit,
            },
        )?;
        let catalog = load_catalog(&store.read()?)?;
        Ok(Database {
            shared: Rc::new(Shared {
                store,
                temp: temp.map(|t| Rc::new(TempSpace::new(t))),
                catalog: RefCell::new(Rc::new(catalog)),
                opts,
            }),
        })
    }

    /// A new, empty database in memory, with temp space in memory.
    pub fn open_in_memory() -> Result<Database> {
        Database::open_with_temp(
            Box::new(MemoryDevice::new()),
            Box::new(MemoryDevice::new()),
            DbOptions::default(),
        )
    }

    /// A new connection. Many may exist; one writes at a time.
    pub fn connect(&self) -> Connection {
        Connection {
            db: self.clone(),
            txn: None,
            foreign_keys: true,
            recursive_triggers: false,
            defer_foreign_keys: false,
            last_insert_rowid: 0,
            changes: 0,
            total_changes: 0,
        }
    }

    /// Full validation: pages, trees and free space (storage), then every
    /// index against its table (each holds exactly the entries the rows
    /// imply). Problems are reported, not returned as errors.
    ///
    /// The index check holds one table's index keys at a time, within the
    /// batch limit and past it in temp space (as CREATE INDEX does); without
    /// temp space a check that needs more fails with
    /// [`Error::BatchLimitExceeded`]. That error and the devices' failures
    /// say nothing of the file: they are returned, not reported.
    pub fn check(&self) -> Result<CheckReport> {
        let mut report = self.shared.store.check()?;
        if report.problems.is_empty() {
            let snapshot = self.shared.store.read()?;
            let cat = self.catalog();
            // PRAGMA integrity_check runs inside its statement, whose temp
            // space is installed already.
            let _scratch = spill::current()
                .is_none()
                .then(|| spill::install(self.shared.temp.clone()));
            match crate::sql::exec::integrity::check_catalog(
                &snapshot,
                &cat,
                self.shared.opts.batch_limit_bytes,
            ) {
                Ok(p) => report.problems.extend(p),
                // The device's failures and the limit say nothing of the
                // file: they are errors, not problems.
                Err(e @ (Error::BatchLimitExceeded { .. } | Error::Io(_) | Error::DiskFull)) => {
                    return Err(e)
                }
                Err(e) => report.problems.push(crate::storage::Problem {
                    page: 0,
                    detail: e.to_string(),
                }),
            }
        }
        Ok(report)
    }

    /// Shrinks the file to the pages its tables and indexes use (SQL's
    /// `VACUUM`; see [`crate::storage::Store::compact`]): pages are moved
    /// from the end of the file into free ones before them, in ordinary
    /// commits, and the file is cut after its last page in use. Rows and
    /// schema stay as they are. `Busy` while a write transaction is open.
    pub fn compact(&self) -> Result<crate::storage::Compaction> {
        self.shared.store.compact()
    }

    /// Makes every commit so far durable and confirms the newest (see
    /// [`crate::storage::Store::sync`]): a flush when a deferred commit
    /// ([`CommitMode::Deferred`]) waits, a confirmed superblock copy and a
    /// flush when the newest commit is one-flush or deferred, nothing
    /// otherwise.
    pub fn sync(&self) -> Result<()> {
        self.shared.store.sync()
    }

    /// Whether [`Database::sync`] has anything to do.
    pub fn needs_sync(&self) -> bool {
        self.shared.store.needs_sync()
    }

    fn catalog(&self) -> Rc<Catalog> {
        self.shared.catalog.borrow().clone()
    }
}

/// Parameters of a statement.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Params {
    #[default]
    None,
    /// `?`, `?N` in order of their index (the first value is parameter 1).
    Positional(Vec<Value>),
    /// `:name`, `@name`, `$name` (the name with or without its prefix).
    Named(Vec<(String, Value)>),
}

/// The result of a statement.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryResult {
    /// The result column names, shared with the statement's plan (running
    /// a statement again does not copy them).
    pub columns: Rc<[String]>,
    pub rows: Vec<Vec<Value>>,
    /// Rows inserted, updated or deleted by the statement.
    pub changes: u64,
    /// The connection's last inserted rowid after the statement.
    pub last_insert_rowid: i64,
}

impl Default for QueryResult {
    /// No columns (the shared empty list), no rows, nothing changed.
    fn default() -> QueryResult {
        QueryResult {
            columns: statement::no_columns(),
            rows: Vec::new(),
            changes: 0,
            last_insert_rowid: 0,
        }
    }
}

/// An open write transaction of a connection.
struct Txn {
    write: WriteTxn,
    catalog: Rc<Catalog>,
    /// Named savepoints, innermost last, with the catalog and the
    /// outstanding foreign key violations at each.
    savepoints: Vec<(String, Savepoint, Rc<Catalog>, fk::Deferred)>,
    /// Started by SAVEPOINT rather than BEGIN (RELEASE of the last commits).
    by_savepoint: bool,
    /// Started by [`Connection::begin_atomic`]: a failing statement rolls
    /// the whole transaction back, so statements keep no undo log.
    atomic: bool,
    /// Index entries of INSERTs not yet written (`exec::pending`): written
    /// out before any statement that could read them, at COMMIT, SAVEPOINT
    /// and RELEASE, dropped by ROLLBACK and ROLLBACK TO.
    pending: PendingInserts,
    /// Violations of deferred foreign keys its statements left (`exec::fk`):
    /// COMMIT refuses while any is outstanding.
    fk: fk::Deferred,
}

impl Txn {
    /// Writes out the waiting index entries (outside any statement
    /// savepoint, so no later statement's failure can undo them).
    fn settle(&mut self) -> Result<()> {
        self.pending.apply(&mut self.write)
    }
}

/// A connection: its transaction state and settings.
pub struct Connection {
    db: Database,
    /// Boxed: a connection is moved in and out of its holder on every
    /// request of the owner, and the open transaction is large.
    txn: Option<Box<Txn>>,
    foreign_keys: bool,
    /// `PRAGMA recursive_triggers` (OFF by default, as in SQLite).
    recursive_triggers: bool,
    /// `PRAGMA defer_foreign_keys`: every foreign key's violations wait
    /// for COMMIT; switched off by every COMMIT and ROLLBACK, as in SQLite.
    defer_foreign_keys: bool,
    last_insert_rowid: i64,
    /// Rows the last INSERT, UPDATE or DELETE changed (SQL's `changes()`).
    changes: u64,
    /// Rows every INSERT, UPDATE and DELETE since the connection opened
    /// changed (SQL's `total_changes()`).
    total_changes: u64,
}

/// A prepared statement. It keeps its bound and planned form between
/// executions and plans again when the schema changes.
pub struct Statement {
    sql: String,
    parsed: Parsed,
    columns: Rc<[String]>,
    /// The cached plan (`None` until first needed, or after a failure).
    plan: Option<statement::Plan>,
}

impl Statement {
    /// Runs the statement with `params` on `conn` (one value per slot: bound in place, uncopied).
    pub fn execute(&mut self, conn: &mut Connection, params: &Params) -> Result<QueryResult> {
        let values = bind_params_ref(&self.parsed, params)?;
        self.run_bound(conn, &values)
    }

    /// [`Statement::execute`] taking the parameters by value: every shape
    /// is bound without copying its text and blobs.
    pub fn execute_owned(&mut self, conn: &mut Connection, params: Params) -> Result<QueryResult> {
        let values = bind_params(&self.parsed, params)?;
        self.run_bound(conn, &values)
    }

    /// Runs the statement with one value per parameter slot.
    fn run_bound(&mut self, conn: &mut Connection, values: &[Value]) -> Result<QueryResult> {
        let r = conn.run_parsed(&self.sql, &self.parsed, values, &mut self.plan)?;
        // A query planned again after a schema change may have new columns.
        // The names are shared with the plan: the same allocation unless it was planned again.
        if matches!(self.parsed.statement, ast::Statement::Select(_))
            && !Rc::ptr_eq(&r.columns, &self.columns)
            && r.columns != self.columns
        {
            self.columns = r.columns.clone();
        }
        Ok(r)
    }

    /// True when executing the statement cannot modify the database:
    /// SELECT (and VALUES), EXPLAIN, and a PRAGMA that only reads (one
    /// without a value, such as `PRAGMA foreign_keys` or
    /// `PRAGMA integrity_check`). False for everything else, including
    /// BEGIN, COMMIT, ROLLBACK, SAVEPOINT and RELEASE (BEGIN takes the
    /// write lock) and pragmas that set a value.
    pub fn is_read_only(&self) -> bool {
        statement::is_read_only(&self.parsed.statement)
    }

    /// Whether this is `VACUUM`, which runs outside any transaction (it
    /// commits as it goes: [`Database::compact`]).
    pub fn is_vacuum(&self) -> bool {
        matches!(self.parsed.statement, ast::Statement::Vacuum { .. })
    }

    /// The result column names (empty for statements without rows).
    pub fn column_names(&self) -> &[String] {
        &self.columns
    }

    /// The rest of `sql` after this statement (when `sql` is the text it
    /// was prepared from), for running a script statement by statement.
    pub fn tail<'s>(&self, sql: &'s str) -> &'s str {
        sql.get(self.parsed.end..).unwrap_or("")
    }

    /// The number of parameters to bind (the largest parameter index).
    pub fn param_count(&self) -> usize {
        self.parsed.params.len()
    }
}

/// One parsed statement and where it is in its text (the parser's output,
/// kept by prepared statements).
#[derive(Clone, Debug)]
struct Parsed {
    statement: ast::Statement,
    /// Byte offsets of the statement in the text (end past its `;`).
    start: usize,
    end: usize,
    /// Parameter slots: `params[i]` names parameter `i + 1` (`None` for `?`).
    params: Vec<Option<String>>,
}

/// The next statement of `sql` at or after `offset`.
fn parse_next(sql: &str, offset: usize) -> Result<Option<Parsed>> {
    Ok(parser::parse_next(sql, offset)?.map(|p| Parsed {
        statement: p.statement,
        start: p.start,
        end: p.end,
        params: p.params,
    }))
}

/// [`bind_params`] of borrowed parameters: values that fill every slot in
/// order are used where they are, others copied.
fn bind_params_ref<'a>(parsed: &Parsed, params: &'a Params) -> Result<Cow<'a, [Value]>> {
    match params {
        Params::Positional(v) if v.len() == parsed.params.len() => Ok(Cow::Borrowed(v)),
        Params::None if parsed.params.is_empty() => Ok(Cow::Borrowed(&[])),
        _ => bind_params(parsed, params.clone()).map(Cow::Owned),
    }
}

/// Maps `params` onto the statement's parameter slots.
fn bind_params(parsed: &Parsed, params: Params) -> Result<Vec<Value>> {
    let slots = parsed.params.len();
    match params {
        Params::None => Ok(vec![Value::Null; slots]),
        Params::Positional(v) => {
            if v.len() > slots {
                return Err(misuse!(
                    "{} parameters given, the statement has {slots}",
                    v.len()
                ));
            }
            let mut out = v;
            out.resize(slots, Value::Null);
            Ok(out)
        }
        Params::Named(pairs) => {
            let mut out = vec![Value::Null; slots];
            for (name, value) in pairs {
                let i = parsed
                    .params
                    .iter()
                    .position(|p| {
                        p.as_deref()
                            .is_some_and(|p| p == name || p.get(1..) == Some(name.as_str()))
                    })
                    .ok_or_else(|| misuse!("no parameter named {name}"))?;
                out[i] = value;
            }
            Ok(out)
        }
    }
}

impl Connection {
    /// Runs every statement of `sql` (like `sqlite3_exec`), discarding rows.
    /// Stops at the first error; earlier statements keep their effects.
    pub fn execute_batch(&mut self, sql: &str) -> Result<()> {
        let mut offset = 0;
        while let Some(parsed) = parse_next(sql, offset)? {
            offset = parsed.end;
            let values = vec![Value::Null; parsed.params.len()];
            self.run_parsed(sql, &parsed, &values, &mut None)?;
        }
        Ok(())
    }

    /// Runs `sql`, which holds one statement (a trailing `;` and further
    /// statements are allowed; the result is the last statement's).
    pub fn execute(&mut self, sql: &str, params: &Params) -> Result<QueryResult> {
        let mut offset = 0;
        let mut last = None;
        while let Some(parsed) = parse_next(sql, offset)? {
            offset = parsed.end;
            let values = bind_params_ref(&parsed, params)?;
            last = Some(self.run_parsed(sql, &parsed, &values, &mut None)?);
        }
        last.ok_or_else(|| misuse!("no statement to execute"))
    }

    /// Prepares the first statement of `sql`.
    pub fn prepare(&mut self, sql: &str) -> Result<Statement> {
        let parsed = parse_next(sql, 0)?.ok_or_else(|| misuse!("no statement to prepare"))?;
        // A query is planned now (its columns come from the plan, and a
        // query that does not bind fails here); so is an INSERT, UPDATE or
        // DELETE that binds (as SQLite compiles a statement when it is
        // prepared: its first run only runs), but one that does not is
        // planned again, and fails, on its first run; others run from the
        // syntax tree.
        let query = matches!(parsed.statement, ast::Statement::Select(_));
        let write = matches!(
            parsed.statement,
            ast::Statement::Insert(_) | ast::Statement::Update(_) | ast::Statement::Delete(_)
        );
        let plan = if query || write {
            let planned =
                self.with_read_kv(|kv, cat| statement::prepare(kv, cat, &parsed.statement));
            if query {
                Some(planned?)
            } else {
                planned.ok()
            }
        } else {
            None
        };
        let columns = match &plan {
            Some(p) => p.columns(),
            None => self
                .with_read_kv(|kv, cat| Ok(statement::columns_of(kv, cat, &parsed.statement)?.0))?,
        };
        Ok(Statement {
            sql: sql.to_string(),
            parsed,
            columns,
            plan,
        })
    }

    /// True while an explicit transaction (BEGIN or SAVEPOINT) is open.
    pub fn in_transaction(&self) -> bool {
        self.txn.is_some()
    }

    /// Opens a transaction like `BEGIN`, except that a statement that fails
    /// in it rolls the whole transaction back (the connection is then
    /// outside any transaction) instead of being undone alone, as SQLite
    /// does for some errors. Its statements keep no undo log: a large one
    /// retains less memory and runs faster. For callers that end the
    /// transaction on any error anyway, such as a request run as a
    /// transaction of its own.
    pub fn begin_atomic(&mut self) -> Result<()> {
        self.begin_with(false, true)
    }

    /// Rolls back the open transaction, if any.
    pub fn rollback_open_transaction(&mut self) {
        if let Some(t) = self.txn.take() {
            t.write.rollback();
            self.defer_foreign_keys = false;
        }
    }

    /// The rowid of the last successful INSERT on this connection.
    pub fn last_insert_rowid(&self) -> i64 {
        self.last_insert_rowid
    }

    fn opts(&self) -> DmlOptions {
        DmlOptions {
            foreign_keys: self.foreign_keys,
            recursive_triggers: self.recursive_triggers,
            defer_foreign_keys: self.defer_foreign_keys,
            batch_limit: self.db.shared.opts.batch_limit_bytes,
        }
    }

    fn with_read_kv<T>(&mut self, f: impl FnOnce(&dyn Kv, &Catalog) -> Result<T>) -> Result<T> {
        match &self.txn {
            Some(t) => f(&t.write, &t.catalog),
            None => {
                let snapshot = self.db.shared.store.read()?;
                let cat = self.db.catalog();
                f(&snapshot, &cat)
            }
        }
    }

    fn run_parsed(
        &mut self,
        sql: &str,
        parsed: &Parsed,
        params: &[Value],
        plan: &mut Option<statement::Plan>,
    ) -> Result<QueryResult> {
        // 'now' is one instant for the whole statement, as in SQLite.
        crate::sql::functions::set_statement_time(statement_clock());
        crate::sql::functions::set_connection_state(crate::sql::functions::ConnectionState {
            last_insert_rowid: self.last_insert_rowid,
            changes: self.changes,
            total_changes: self.total_changes,
        });
        crate::sql::exec::trigger::reset();
        let scratch = spill::install(self.db.shared.temp.clone());
        let result = self.run_parsed_at(sql, parsed, params, plan);
        drop(scratch);
        crate::sql::functions::set_statement_time(None);
        result
    }

    fn run_parsed_at(
        &mut self,
        sql: &str,
        parsed: &Parsed,
        params: &[Value],
        plan: &mut Option<statement::Plan>,
    ) -> Result<QueryResult> {
        let text = sql
            .get(parsed.start..parsed.end)
            .unwrap_or(sql)
            .trim()
            .trim_end_matches(';')
            .trim();
        let out = match &parsed.statement {
            ast::Statement::Begin { .. } => self.begin(false).map(|_| Output::default()),
            ast::Statement::Commit { .. } => self.commit().map(|_| Output::default()),
            ast::Statement::Rollback {
                savepoint: None, ..
            } => self.rollback().map(|_| Output::default()),
            ast::Statement::Rollback {
                savepoint: Some(name),
                ..
            } => self.rollback_to(name).map(|_| Output::default()),
            ast::Statement::Savepoint { name, .. } => {
                self.savepoint(name).map(|_| Output::default())
            }
            ast::Statement::Release { name, .. } => self.release(name).map(|_| Output::default()),
            ast::Statement::Pragma(p) if !crate::sql::exec::is_schema_pragma(p) => self.pragma(p),
            ast::Statement::Vacuum { schema, into, .. } => {
                self.vacuum(schema.as_deref(), into.is_some())
            }
            stmt => self.run_statement(stmt, text, params, plan),
        };
        // Outside a transaction each statement is one, and its end (commit
        // or rollback, a refused COMMIT's too) switches `defer_foreign_keys`
        // off, as in SQLite; only a PRAGMA or BEGIN leaves it. (SQLite
        // also leaves it after a statement that reads no table, such as
        // `SELECT 1`.)
        let ends = !matches!(
            parsed.statement,
            ast::Statement::Pragma(_) | ast::Statement::Begin { .. }
        );
        if ends && self.txn.is_none() {
            self.defer_foreign_keys = false;
        }
        let dml = matches!(
            parsed.statement,
            ast::Statement::Insert(_) | ast::Statement::Update(_) | ast::Statement::Delete(_)
        );
        // A failed INSERT, UPDATE or DELETE changed nothing (SQLite's
        // changes() is 0 after one), unless FAIL kept its rows (they count
        // as a successful statement's do).
        let kept = |o: &Output| matches!(o.stopped, None | Some((Halt::Fail, _)));
        if dml && !out.as_ref().is_ok_and(kept) {
            self.changes = 0;
            // Its triggers' changes still count (SQLite's total_changes()).
            self.total_changes += crate::sql::functions::trigger_changes();
        }
        let out = out?;
        if let Some(id) = out.last_rowid {
            self.last_insert_rowid = id;
        }
        if dml && kept(&out) {
            self.changes = out.changes;
            self.total_changes += out.changes
                + crate::sql::functions::action_changes()
                + crate::sql::functions::trigger_changes();
        }
        if let Some((_, e)) = out.stopped {
            return Err(e);
        }
        Ok(QueryResult {
            columns: out.columns,
            rows: out.rows,
            changes: out.changes,
            last_insert_rowid: self.last_insert_rowid,
        })
    }

    fn run_statement(
        &mut self,
        stmt: &ast::Statement,
        text: &str,
        params: &[Value],
        plan: &mut Option<statement::Plan>,
    ) -> Result<Output> {
        let opts = self.opts();
        if let Some(t) = &mut self.txn {
            let planned = current_plan(plan, &t.write, &t.catalog, stmt);
            let defers = planned
                .as_ref()
                .ok()
                .and_then(|p| statement::defers_index_entries(p, stmt, opts));
            // Waiting index entries stay only for a statement that cannot
            // read them (exec::pending); for any other they are written
            // now, before its savepoint. If that fails the transaction
            // cannot go on as it was: it is rolled back.
            if !defers.is_some_and(|tree| t.pending.accepts(tree)) && !t.pending.is_empty() {
                self.settle_or_end()?;
            }
            let t = self.open_txn()?;
            let marks = t.pending.marks();
            fk::start_statement(t.fk);
            // Statement atomicity: undo this statement alone on error (not
            // in an atomic transaction, which ends whole instead). The
            // savepoint is released either way, or every later statement
            // would copy the pages it changes and keep the old ones.
            let undo = (!t.atomic).then(|| (t.write.statement_savepoint(), t.catalog.clone()));
            let r = planned.and_then(|p| {
                let pending = defers.map(|_| &mut t.pending);
                statement::execute(
                    &mut t.write,
                    &mut t.catalog,
                    p,
                    stmt,
                    text,
                    params,
                    opts,
                    pending,
                )
            });
            // A row that failed stopped the statement (`Output::stopped`):
            // ABORT undoes it like any error, FAIL keeps the rows written
            // before the failing one, ROLLBACK ends the transaction, as
            // any failure does in an atomic one.
            let halt = match &r {
                Ok(out) => out.stopped.as_ref().map(|s| s.0),
                Err(_) => Some(Halt::Abort),
            };
            match undo {
                Some(_) if halt == Some(Halt::Rollback) => self.rollback_open_transaction(),
                Some((sp, saved)) => {
                    if halt == Some(Halt::Abort) {
                        t.pending.truncate(&marks);
                        // A statement left half undone (a page unreadable
                        // while replaying its log) must not be committed
                        // later: the whole transaction ends here.
                        if let Err(e) = t.write.rollback_to(&sp) {
                            self.rollback_open_transaction();
                            return Err(e);
                        }
                        t.catalog = saved;
                    }
                    t.write.release(sp)?;
                }
                None if halt.is_some() => self.rollback_open_transaction(),
                None => {}
            }
            // A statement kept (whole, or up to a FAIL) keeps its counts.
            if let (false, Some(t)) = (halt == Some(Halt::Abort), self.txn.as_deref_mut()) {
                t.fk = fk::statement_counts().1;
            }
            return r;
        }
        let mut cat = self.db.catalog();
        if statement::is_read_only(stmt) {
            let mut snapshot = self.db.shared.store.read()?;
            let p = current_plan(plan, &snapshot, &cat, stmt)?;
            return statement::execute(&mut snapshot, &mut cat, p, stmt, text, params, opts, None);
        }
        let mut write = self.db.shared.store.write()?;
        fk::start_statement(fk::Deferred::default());
        let r = current_plan(plan, &write, &cat, stmt).and_then(|p| {
            // One INSERT of many rows writes its index entries in key order
            // too (exec::pending), before the commit.
            let mut pending = PendingInserts::default();
            let defer = statement::defers_index_entries(p, stmt, opts).is_some();
            let out = statement::execute(
                &mut write,
                &mut cat,
                p,
                stmt,
                text,
                params,
                opts,
                defer.then_some(&mut pending),
            )?;
            if matches!(out.stopped, None | Some((Halt::Fail, _))) {
                // The statement is its transaction: what it leaves of
                // deferred foreign keys' violations fails its commit.
                if fk::statement_counts().1.outstanding() {
                    return Err(fk::fk_error());
                }
                pending.apply(&mut write)?;
            }
            Ok(out)
        });
        match r {
            // A stopped statement is undone, except that OR FAIL commits
            // the rows written before the failing one.
            Ok(out) if matches!(out.stopped, Some((Halt::Abort | Halt::Rollback, _))) => {
                write.rollback();
                Ok(out)
            }
            Ok(out) => {
                write.commit()?;
                if out.schema_changed {
                    *self.db.shared.catalog.borrow_mut() = cat;
                }
                Ok(out)
            }
            Err(e) => {
                write.rollback();
                Err(e)
            }
        }
    }

    fn begin(&mut self, by_savepoint: bool) -> Result<()> {
        self.begin_with(by_savepoint, false)
    }

    fn begin_with(&mut self, by_savepoint: bool, atomic: bool) -> Result<()> {
        if self.txn.is_some() {
            return Err(sql_err!("cannot start a transaction within a transaction"));
        }
        let write = self.db.shared.store.write()?;
        let catalog = self.db.catalog();
        self.txn = Some(Box::new(Txn {
            write,
            catalog,
            savepoints: Vec::new(),
            by_savepoint,
            atomic,
            pending: PendingInserts::default(),
            fk: fk::Deferred::default(),
        }));
        Ok(())
    }

    /// COMMIT; refused, the transaction staying open, while deferred
    /// foreign keys' violations are outstanding (SQLite's rule).
    fn commit(&mut self) -> Result<()> {
        if self.txn.as_ref().is_some_and(|t| t.fk.outstanding()) {
            return Err(fk::fk_error());
        }
        let mut t = self
            .txn
            .take()
            .ok_or_else(|| sql_err!("cannot commit - no transaction is active"))?;
        self.defer_foreign_keys = false;
        // A failure here drops `t`: the transaction is rolled back.
        t.settle()?;
        t.write.commit()?;
        *self.db.shared.catalog.borrow_mut() = t.catalog;
        Ok(())
    }

    fn rollback(&mut self) -> Result<()> {
        let t = self
            .txn
            .take()
            .ok_or_else(|| sql_err!("cannot rollback - no transaction is active"))?;
        self.defer_foreign_keys = false;
        t.write.rollback();
        Ok(())
    }

    #[inline(never)]
    fn savepoint(&mut self, name: &str) -> Result<()> {
        if self.txn.is_none() {
            self.begin(true)?;
        }
        // Entries made before the savepoint are written before it, so
        // that rolling back to it keeps them.
        self.settle_or_end()?;
        let t = self.open_txn()?;
        let sp = t.write.savepoint();
        t.savepoints
            .push((name.to_string(), sp, t.catalog.clone(), t.fk));
        Ok(())
    }

    /// The open transaction (callers have checked there is one).
    fn open_txn(&mut self) -> Result<&mut Txn> {
        self.txn
            .as_deref_mut()
            .ok_or_else(|| sql_err!("internal: no transaction"))
    }

    /// Writes out the open transaction's waiting index entries; if that
    /// fails, the transaction cannot go on as it was and is rolled back.
    fn settle_or_end(&mut self) -> Result<()> {
        let r = self.open_txn()?.settle();
        if r.is_err() {
            self.rollback_open_transaction();
        }
        r
    }

    fn find_savepoint(&self, name: &str) -> Result<usize> {
        let t = self
            .txn
            .as_ref()
            .ok_or_else(|| sql_err!("no such savepoint: {name}"))?;
        t.savepoints
            .iter()
            .rposition(|(n, ..)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| sql_err!("no such savepoint: {name}"))
    }

    #[inline(never)]
    fn rollback_to(&mut self, name: &str) -> Result<()> {
        let i = self.find_savepoint(name)?;
        let t = self.open_txn()?;
        t.savepoints.truncate(i + 1);
        // Every waiting entry was made after the savepoint (SAVEPOINT
        // wrote out the older ones).
        t.pending.clear();
        let (_, sp, cat, fk) = &t.savepoints[i];
        let (cat, fk) = (cat.clone(), *fk);
        if let Err(e) = t.write.rollback_to(sp) {
            // Half rolled back: nothing of it may be committed.
            self.rollback_open_transaction();
            return Err(e);
        }
        let t = self.open_txn()?;
        t.catalog = cat;
        t.fk = fk;
        Ok(())
    }

    #[inline(never)]
    fn release(&mut self, name: &str) -> Result<()> {
        let i = self.find_savepoint(name)?;
        // A RELEASE that would commit is refused, releasing nothing, as
        // COMMIT is.
        if self
            .txn
            .as_ref()
            .is_some_and(|t| i == 0 && t.by_savepoint && t.fk.outstanding())
        {
            return Err(fk::fk_error());
        }
        self.settle_or_end()?;
        let t = self.open_txn()?;
        let (_, sp, ..) = t.savepoints.remove(i);
        t.savepoints.truncate(i);
        // Releases the storage savepoint and every newer one with it.
        t.write.release(sp)?;
        if i == 0 && t.by_savepoint {
            self.commit()?;
        }
        Ok(())
    }

    #[inline(never)]
    /// `VACUUM [schema]`: compacts the file ([`Database::compact`]). As in
    /// SQLite, not inside a transaction; the schema `temp` has nothing to
    /// compact. `VACUUM INTO` (a copy into another file) is refused.
    fn vacuum(&mut self, schema: Option<&str>, into: bool) -> Result<Output> {
        match schema {
            Some(s) if s.eq_ignore_ascii_case("temp") => return Ok(Output::default()),
            Some(s) if !s.eq_ignore_ascii_case("main") => {
                return Err(sql_err!("unknown database {s}"))
            }
            _ => {}
        }
        if into {
            return Err(sql_err!(
                "VACUUM INTO is not supported: export the database (exportBytes) instead"
            ));
        }
        if self.txn.is_some() {
            return Err(sql_err!("cannot VACUUM from within a transaction"));
        }
        self.db.compact()?;
        Ok(Output::default())
    }

    fn pragma(&mut self, p: &ast::Pragma) -> Result<Output> {
        let name = p.name.name.to_ascii_lowercase();
        match (name.as_str(), &p.value) {
            ("foreign_keys", v) => bool_pragma(&name, &mut self.foreign_keys, v.as_ref()),
            ("recursive_triggers", v) => {
                bool_pragma(&name, &mut self.recursive_triggers, v.as_ref())
            }
            ("defer_foreign_keys", v) => {
                let out = bool_pragma(&name, &mut self.defer_foreign_keys, v.as_ref());
                // Turned off, it forgets the violations it deferred
                // (SQLite's `nDeferredImmCons = 0`).
                if let (false, Some(t)) = (self.defer_foreign_keys, self.txn.as_mut()) {
                    t.fk.by_pragma = 0;
                }
                out
            }
            // The newest committed state's, in 4 KiB pages; the free ones
            // are the pages VACUUM can give back.
            ("page_count" | "freelist_count", None) => {
                let (pages, unused) = self.db.shared.store.page_counts();
                let n = if name == "page_count" { pages } else { unused };
                Ok(Output {
                    columns: Rc::from([name]),
                    rows: vec![vec![Value::Integer(n as i64)]],
                    ..Output::default()
                })
            }
            ("integrity_check" | "quick_check", None) => {
                let report = self.db.check()?;
                let rows = if report.problems.is_empty() {
                    vec![vec![Value::Text("ok".into())]]
                } else {
                    report
                        .problems
                        .iter()
                        .map(|p| vec![Value::Text(format!("{p:?}"))])
                        .collect()
                };
                Ok(Output {
                    columns: Rc::from([name]),
                    rows,
                    ..Output::default()
                })
            }
            ("synchronous", v) => synchronous(self.db.shared.opts.commit, v.as_ref()),
            _ => Err(sql_err!(
                "unsupported pragma: {}{}",
                p.name.name,
                refused_pragma_reason(&name)
            )),
        }
    }
}

/// `PRAGMA synchronous`: the level of SQLite's WAL that gives the commit
/// mode's guarantee (FULL, 2: a commit is durable when it returns;
/// NORMAL, 1: [`CommitMode::Deferred`]'s). Setting it names that level
/// (by name or number) or fails: the commit mode is chosen at open, for
/// every connection of the database.
fn synchronous(mode: CommitMode, value: Option<&ast::PragmaValue>) -> Result<Output> {
    let (level, word) = match mode {
        CommitMode::Deferred => (1, "NORMAL"),
        CommitMode::OneFlush | CommitMode::TwoFlush => (2, "FULL"),
    };
    let Some(v) = value else {
        return Ok(Output {
            columns: Rc::from(["synchronous".to_string()]),
            rows: vec![vec![Value::Integer(level)]],
            ..Output::default()
        });
    };
    let asked = match v {
        ast::PragmaValue::Name(n) => n.to_string(),
        ast::PragmaValue::Literal(ast::Literal::Text(s)) => s.clone(),
        ast::PragmaValue::Literal(l) => l.to_string(),
    };
    if asked.eq_ignore_ascii_case(word) || asked == level.to_string() {
        return Ok(Output::default());
    }
    Err(sql_err!(
        "cannot set synchronous to {asked}: it is {word}, chosen when the database is \
         opened (the commit option: \"deferred\" for NORMAL, the default for FULL)"
    ))
}

/// Why a PRAGMA of SQLite's that TinyJoin refuses has no equivalent, for
/// the ones applications commonly set; empty for others.
fn refused_pragma_reason(name: &str) -> &'static str {
    match name {
        "journal_mode" | "wal_checkpoint" | "wal_autocheckpoint" | "journal_size_limit" => {
            " (TinyJoin has no journal: a commit writes new pages, then the superblock \
             naming them, and readers never wait for the writer)"
        }
        "busy_timeout" => {
            " (TinyJoin does not wait for locks: a BEGIN while another connection \
             writes fails at once with BUSY)"
        }
        "cache_size" | "mmap_size" | "temp_store" | "locking_mode" => {
            " (memory and files are set by the options the database is opened with)"
        }
        _ => "",
    }
}

/// The plan in `slot` when it is current for `cat` and `kv`, else a new
/// one, stored in `slot` (cleared if planning fails).
fn current_plan<'p>(
    slot: &'p mut Option<statement::Plan>,
    kv: &dyn Kv,
    cat: &Catalog,
    stmt: &ast::Statement,
) -> Result<&'p statement::Plan> {
    if !slot.as_ref().is_some_and(|p| p.is_current(kv, cat)) {
        *slot = None;
        *slot = Some(statement::prepare(kv, cat, stmt)?);
    }
    slot.as_ref().ok_or_else(|| sql_err!("internal: no plan"))
}

/// The wall clock in Unix milliseconds, where the platform has one without
/// a host call (not on wasm32, where the date functions read their own).
fn statement_clock() -> Option<i64> {
    if cfg!(target_arch = "wasm32") {
        return None;
    }
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    i64::try_from(since.as_millis()).ok()
}

/// A connection's ON / OFF pragma: reading it gives one row of 0 or 1
/// under its name, setting it (`value`) gives nothing.
fn bool_pragma(name: &str, setting: &mut bool, value: Option<&ast::PragmaValue>) -> Result<Output> {
    match value {
        None => Ok(Output {
            columns: Rc::from([name.to_string()]),
            rows: vec![vec![Value::Integer(i64::from(*setting))]],
            ..Output::default()
        }),
        Some(v) => {
            *setting = pragma_bool(v)?;
            Ok(Output::default())
        }
    }
}

fn pragma_bool(v: &ast::PragmaValue) -> Result<bool> {
    let word = match v {
        ast::PragmaValue::Name(n) => n.to_ascii_lowercase(),
        ast::PragmaValue::Literal(ast::Literal::Integer(i)) => return Ok(*i != 0),
        ast::PragmaValue::Literal(ast::Literal::Bool(b)) => return Ok(*b),
        ast::PragmaValue::Literal(ast::Literal::Text(s)) => s.to_ascii_lowercase(),
        ast::PragmaValue::Literal(_) => String::new(),
    };
    match word.as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(Error::Sql {
            message: format!("invalid boolean: {word}"),
            position: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    //! Prepared statements keep their plan only while it is valid: after
    //! DDL in the same or another connection, and after a ROLLBACK past
    //! DDL, they plan again (an INSERT planned before CREATE INDEX must
    //! maintain the new index). Also `Statement::is_read_only`.

    use super::*;

    fn int(i: i64) -> Value {
        Value::Integer(i)
    }

    fn rows(c: &mut Connection, sql: &str) -> Vec<Vec<Value>> {
        c.execute(sql, &Params::None)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .rows
    }

    fn run(st: &mut Statement, c: &mut Connection, p: Vec<Value>) -> QueryResult {
        st.execute(c, &Params::Positional(p))
            .unwrap_or_else(|e| panic!("{}: {e}", st.sql))
    }

    fn assert_consistent(db: &Database) {
        let report = db.check().unwrap();
        assert!(report.problems.is_empty(), "{:?}", report.problems);
    }

    fn setup() -> (Database, Connection) {
        let db = Database::open_in_memory().unwrap();
        let mut c = db.connect();
        c.execute_batch(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, b INTEGER, c TEXT);
             INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 10, 'z');",
        )
        .unwrap();
        (db, c)
    }

    #[test]
    fn plans_follow_ddl_in_the_same_connection() {
        let (db, mut c) = setup();
        let mut sel = c
            .prepare("SELECT id FROM t WHERE b = ? ORDER BY id")
            .unwrap();
        let mut ins = c.prepare("INSERT INTO t(b, c) VALUES (?, ?)").unwrap();
        let mut del = c.prepare("DELETE FROM t WHERE b = ?").unwrap();
        let mut upd = c.prepare("UPDATE t SET b = b + 1 WHERE id = ?").unwrap();
        assert_eq!(
            run(&mut sel, &mut c, vec![int(10)]).rows,
            vec![vec![int(1)], vec![int(3)]]
        );
        run(&mut ins, &mut c, vec![int(10), Value::Text("w".into())]);
        c.execute_batch("CREATE INDEX t_b ON t(b)").unwrap();
        // The cached INSERT/UPDATE/DELETE now maintain t_b.
        run(&mut ins, &mut c, vec![int(10), Value::Text("v".into())]);
        run(&mut upd, &mut c, vec![int(1)]);
        assert_consistent(&db);
        assert_eq!(
            run(&mut sel, &mut c, vec![int(10)]).rows,
            vec![vec![int(3)], vec![int(4)], vec![int(5)]]
        );
        assert_eq!(run(&mut del, &mut c, vec![int(11)]).changes, 1);
        assert_consistent(&db);
        // DROP INDEX: plans that read or wrote t_b must not touch it.
        c.execute_batch("DROP INDEX t_b").unwrap();
        assert_eq!(
            run(&mut sel, &mut c, vec![int(10)]).rows,
            vec![vec![int(3)], vec![int(4)], vec![int(5)]]
        );
        run(&mut ins, &mut c, vec![int(30), Value::Text("u".into())]);
        run(&mut upd, &mut c, vec![int(3)]);
        assert_eq!(run(&mut del, &mut c, vec![int(30)]).changes, 1);
        assert_consistent(&db);
        // ALTER TABLE: new columns are seen, renamed ones are rebound.
        let mut star = c.prepare("SELECT * FROM t WHERE id = 2").unwrap();
        assert_eq!(star.column_names(), ["id", "b", "c"]);
        c.execute_batch("ALTER TABLE t ADD COLUMN d INTEGER DEFAULT 7")
            .unwrap();
        let r = run(&mut star, &mut c, vec![]);
        assert_eq!(r.columns[..], ["id", "b", "c", "d"]);
        // Later runs share the plan's names instead of copying them.
        let again = run(&mut star, &mut c, vec![]);
        assert!(Rc::ptr_eq(&r.columns, &again.columns));
        assert_eq!(
            r.rows,
            vec![vec![int(2), int(20), Value::Text("y".into()), int(7)]]
        );
        assert_eq!(star.column_names(), ["id", "b", "c", "d"]);
        run(&mut ins, &mut c, vec![int(40), Value::Text("t".into())]);
        assert_eq!(
            rows(&mut c, "SELECT d FROM t WHERE b = 40"),
            vec![vec![int(7)]]
        );
        c.execute_batch("ALTER TABLE t RENAME COLUMN b TO bb")
            .unwrap();
        let e = sel.execute(&mut c, &Params::Positional(vec![int(10)]));
        assert!(e.is_err(), "{e:?}");
        c.execute_batch("ALTER TABLE t RENAME COLUMN bb TO b")
            .unwrap();
        assert_eq!(
            run(&mut sel, &mut c, vec![int(10)]).rows,
            vec![vec![int(4)], vec![int(5)]]
        );
    }

    #[test]
    fn plans_follow_ddl_of_another_connection() {
        let (db, mut c) = setup();
        let mut other = db.connect();
        let mut ins = c.prepare("INSERT INTO t VALUES (?, ?, ?)").unwrap();
        let mut sel = c.prepare("SELECT count(*) FROM t WHERE b = ?").unwrap();
        run(&mut ins, &mut c, vec![int(4), int(10), Value::Null]);
        assert_eq!(
            run(&mut sel, &mut c, vec![int(10)]).rows,
            vec![vec![int(3)]]
        );
        other
            .execute_batch("CREATE UNIQUE INDEX t_c ON t(c)")
            .unwrap();
        run(
            &mut ins,
            &mut c,
            vec![int(5), int(10), Value::Text("q".into())],
        );
        assert_consistent(&db);
        // The cached INSERT enforces the new UNIQUE index.
        let dup = ins.execute(
            &mut c,
            &Params::Positional(vec![int(6), int(1), Value::Text("q".into())]),
        );
        assert!(matches!(dup, Err(Error::Constraint { .. })), "{dup:?}");
        other
            .execute_batch("DROP INDEX t_c; CREATE INDEX t_b ON t(b)")
            .unwrap();
        run(
            &mut ins,
            &mut c,
            vec![int(6), int(10), Value::Text("q".into())],
        );
        assert_eq!(
            run(&mut sel, &mut c, vec![int(10)]).rows,
            vec![vec![int(5)]]
        );
        assert_consistent(&db);
        other.execute_batch("DROP TABLE t").unwrap();
        assert!(sel
            .execute(&mut c, &Params::Positional(vec![int(10)]))
            .is_err());
        other
            .execute_batch("CREATE TABLE t(id INTEGER PRIMARY KEY, b INTEGER, c TEXT)")
            .unwrap();
        assert_eq!(
            run(&mut sel, &mut c, vec![int(10)]).rows,
            vec![vec![int(0)]]
        );
    }

    #[test]
    fn plans_follow_rollback_past_ddl() {
        let (db, mut c) = setup();
        let mut ins = c.prepare("INSERT INTO t(b) VALUES (?)").unwrap();
        c.execute_batch("BEGIN; CREATE INDEX t_b ON t(b)").unwrap();
        run(&mut ins, &mut c, vec![int(50)]);
        c.execute_batch("ROLLBACK").unwrap();
        run(&mut ins, &mut c, vec![int(51)]);
        assert_consistent(&db);
        c.execute_batch("BEGIN; SAVEPOINT s; CREATE INDEX t_b ON t(b)")
            .unwrap();
        run(&mut ins, &mut c, vec![int(52)]);
        c.execute_batch("ROLLBACK TO s").unwrap();
        run(&mut ins, &mut c, vec![int(53)]);
        c.execute_batch("COMMIT").unwrap();
        assert_consistent(&db);
        assert_eq!(
            rows(&mut c, "SELECT b FROM t WHERE b > 40 ORDER BY b"),
            vec![vec![int(51)], vec![int(53)]]
        );
    }

    #[test]
    fn parameters_are_checked_on_every_run() {
        let (_db, mut c) = setup();
        let mut sel = c.prepare("SELECT c FROM t WHERE id = ?").unwrap();
        assert_eq!(sel.param_count(), 1);
        assert_eq!(
            run(&mut sel, &mut c, vec![int(2)]).rows,
            vec![vec![Value::Text("y".into())]]
        );
        let e = sel.execute(&mut c, &Params::Positional(vec![int(1), int(2)]));
        assert!(matches!(e, Err(Error::Misuse(_))), "{e:?}");
        assert_eq!(
            run(&mut sel, &mut c, vec![int(3)]).rows,
            vec![vec![Value::Text("z".into())]]
        );
        assert_eq!(
            sel.execute(&mut c, &Params::None).unwrap().rows,
            Vec::<Vec<Value>>::new()
        );
    }

    #[test]
    fn read_only_statements() {
        let (_db, mut c) = setup();
        for (sql, ro) in [
            ("SELECT * FROM t", true),
            ("VALUES (1), (2)", true),
            ("WITH x AS (SELECT 1) SELECT * FROM x", true),
            ("EXPLAIN QUERY PLAN SELECT * FROM t", true),
            ("PRAGMA foreign_keys", true),
            ("PRAGMA integrity_check", true),
            ("PRAGMA foreign_keys = OFF", false),
            ("PRAGMA table_info(t)", true),
            ("PRAGMA user_version", true),
            ("PRAGMA user_version = 1", false),
            ("PRAGMA table_list", true),
            ("PRAGMA database_list", true),
            ("PRAGMA page_size", true),
            ("PRAGMA synchronous", true),
            ("PRAGMA optimize", false),
            ("PRAGMA optimize(0x10003)", false),
            ("INSERT INTO t(b) VALUES (1)", false),
            ("UPDATE t SET b = 1", false),
            ("DELETE FROM t", false),
            ("CREATE TABLE u(x)", false),
            ("CREATE INDEX t_b ON t(b)", false),
            ("DROP TABLE t", false),
            ("ALTER TABLE t ADD COLUMN z", false),
            ("BEGIN", false),
            ("COMMIT", false),
            ("SAVEPOINT s", false),
        ] {
            let st = c.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
            assert_eq!(st.is_read_only(), ro, "{sql}");
        }
    }

    /// Runs `script` on TinyJoin and SQLite (foreign keys on in both),
    /// then compares every query of `queries` and checks TinyJoin's
    /// indexes against its tables.
    fn same_as_sqlite(script: &[&str], queries: &[&str]) {
        let db = Database::open_in_memory().unwrap();
        let mut c = db.connect();
        let sq = rusqlite::Connection::open_in_memory().unwrap();
        sq.execute_batch("PRAGMA foreign_keys = ON").unwrap();
        for sql in script {
            let a = c.execute_batch(sql).map_err(|e| e.to_string());
            let b = sq.execute_batch(sql).map_err(|e| e.to_string());
            assert_eq!(a.is_ok(), b.is_ok(), "{sql}: TinyJoin {a:?}, SQLite {b:?}");
        }
        assert_consistent(&db);
        for q in queries {
            let a = rows(&mut c, q);
            let mut st = sq.prepare(q).unwrap();
            let n = st.column_count();
            let b: Vec<Vec<Value>> = st
                .query_map([], |r| {
                    Ok((0..n)
                        .map(|i| crate::sql::values_vs_sqlite::from_row(r, i))
                        .collect())
                })
                .unwrap()
                .collect::<std::result::Result<_, _>>()
                .unwrap();
            assert_eq!(a, b, "{q}");
        }
    }

    #[test]
    fn updates_touch_only_changed_index_entries_correctly() {
        same_as_sqlite(
            &[
                "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b TEXT COLLATE NOCASE, c INT)",
                "CREATE INDEX t_a ON t(a)",
                "CREATE INDEX t_b ON t(b)",
                "CREATE INDEX t_lc ON t(lower(b), c)",
                "CREATE INDEX t_p ON t(c) WHERE a > 5",
                "CREATE UNIQUE INDEX t_u ON t(c, a)",
                "INSERT INTO t VALUES (1, 1, 'x', 10), (2, 6, 'Y', 20), (3, 7, 'z', 30)",
                // Unchanged keys, a case-only change under NOCASE, rows
                // entering and leaving the partial index, a rowid change.
                "UPDATE t SET c = c WHERE id = 1",
                "UPDATE t SET b = upper(b)",
                "UPDATE t SET a = 10 - a",
                "UPDATE t SET id = id + 10 WHERE id = 2",
                "UPDATE t SET a = 1.0 WHERE id = 1",
                "UPDATE t SET c = 30, a = 3 WHERE id = 1",
                "UPDATE OR REPLACE t SET c = 30, a = 3 WHERE id = 12",
                // A REPLACE removes a row the statement has yet to update.
                "CREATE TABLE r(id INTEGER PRIMARY KEY, u INT UNIQUE, v INT)",
                "CREATE INDEX r_v ON r(v)",
                "INSERT INTO r VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3), (5, 5, 5)",
                "UPDATE OR REPLACE r SET u = u + 1, v = v * 10",
                // A cascade removes rows the statement has yet to delete.
                "CREATE TABLE s(id INTEGER PRIMARY KEY, up INT REFERENCES s(id) ON DELETE CASCADE)",
                "CREATE INDEX s_up ON s(up)",
                "INSERT INTO s VALUES (1, NULL), (2, 1), (3, 2), (4, NULL), (5, 4)",
                "DELETE FROM s WHERE id IN (1, 3, 4)",
            ],
            &[
                "SELECT * FROM t ORDER BY id",
                "SELECT id FROM t WHERE a > 5 AND c > 0 ORDER BY id",
                "SELECT id FROM t WHERE b = 'y' ORDER BY id",
                "SELECT id FROM t WHERE lower(b) = 'z' ORDER BY id",
                "SELECT * FROM r ORDER BY id",
                "SELECT id FROM r WHERE v > 0 ORDER BY v",
                "SELECT * FROM s ORDER BY id",
            ],
        );
    }

    #[test]
    fn update_sees_rows_changed_by_earlier_cascades() {
        same_as_sqlite(
            &[
                "CREATE TABLE p(id INTEGER PRIMARY KEY, k INT UNIQUE, \
                 pk INT REFERENCES p(k) ON UPDATE CASCADE, v INT)",
                "INSERT INTO p VALUES (1, 1, NULL, 0), (2, 2, 1, 0), (3, 3, 2, 0)",
                "UPDATE p SET k = k + 10, v = pk",
                "CREATE TABLE c(id INTEGER PRIMARY KEY, pk INT REFERENCES p(k) ON DELETE CASCADE)",
                "INSERT INTO c VALUES (1, 11), (2, 12), (3, 13)",
                "DELETE FROM p WHERE id = 3",
            ],
            &["SELECT * FROM p ORDER BY id", "SELECT * FROM c ORDER BY id"],
        );
    }

    #[test]
    fn create_index_matches_sqlite() {
        same_as_sqlite(
            &[
                "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b TEXT)",
                "INSERT INTO t VALUES (1, 3, 'a'), (2, NULL, 'b'), (3, NULL, 'B'), \
                 (4, 1, NULL), (5, 3, 'c'), (7, -2, 'A')",
                "CREATE INDEX t_a ON t(a DESC, b)",
                "CREATE UNIQUE INDEX t_u ON t(a)",
                "CREATE UNIQUE INDEX t_n ON t(b COLLATE NOCASE)",
                "CREATE UNIQUE INDEX t_bn ON t(b)",
                "CREATE UNIQUE INDEX t_p ON t(a) WHERE id <> 5",
                "INSERT INTO t VALUES (8, 3, 'd')",
                "INSERT INTO t VALUES (9, 4, 'd')",
            ],
            &[
                "SELECT id FROM t WHERE a = 3 ORDER BY id",
                "SELECT id FROM t WHERE b = 'd' ORDER BY id",
                "SELECT a, b FROM t ORDER BY a DESC, b",
            ],
        );
    }

    #[test]
    fn insert_rowid_conflicts_leave_the_row_and_indexes_intact() {
        same_as_sqlite(
            &[
                "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b TEXT)",
                "CREATE INDEX t_a ON t(a)",
                "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y')",
                "INSERT INTO t VALUES (3, 30, 'z'), (1, 11, 'dup')",
                "BEGIN",
                "INSERT INTO t VALUES (4, 40, 'w')",
                "INSERT INTO t VALUES (2, 21, 'dup')",
                "INSERT INTO t(rowid, a) VALUES (2, 22)",
                "INSERT OR IGNORE INTO t VALUES (2, 23, 'ign'), (5, 50, 'v')",
                "INSERT OR REPLACE INTO t VALUES (1, 12, 'rep')",
                "INSERT INTO t(a) VALUES (60)",
                "COMMIT",
                "CREATE TABLE u(x TEXT, y INT UNIQUE)",
                "INSERT INTO u(rowid, x, y) VALUES (1, 'a', 1), (2, 'b', 2)",
                // Both the rowid and the UNIQUE y conflict: the rowid's
                // error comes first in both.
                "INSERT INTO u(rowid, x, y) VALUES (1, 'c', 2)",
                "INSERT INTO u(x, y) VALUES ('d', 3)",
            ],
            &[
                "SELECT * FROM t ORDER BY id",
                "SELECT id FROM t WHERE a >= 10 ORDER BY a",
                "SELECT rowid, * FROM u ORDER BY rowid",
            ],
        );
        let db = Database::open_in_memory().unwrap();
        let mut c = db.connect();
        c.execute_batch(
            "CREATE TABLE u(x TEXT, y INT UNIQUE); INSERT INTO u(rowid, x, y) VALUES (1, 'a', 1), (2, 'b', 2)",
        )
        .unwrap();
        let e = c
            .execute_batch("INSERT INTO u(rowid, x, y) VALUES (1, 'c', 2)")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "constraint failed: UNIQUE constraint failed: u.rowid"
        );
    }

    #[test]
    fn foreign_keys_through_indexes_match_sqlite() {
        same_as_sqlite(
            &[
                "CREATE TABLE p(id INTEGER PRIMARY KEY, k TEXT COLLATE NOCASE UNIQUE, \
                 a INT, b INT, UNIQUE(b, a))",
                "CREATE TABLE c(id INTEGER PRIMARY KEY, pk TEXT REFERENCES p(k) ON DELETE CASCADE, \
                 x INT, y INT, FOREIGN KEY(x, y) REFERENCES p(a, b) ON UPDATE CASCADE)",
                "CREATE INDEX c_pk ON c(pk)",
                "CREATE INDEX c_yx ON c(y, x, id)",
                "CREATE TABLE d(id INTEGER PRIMARY KEY, pk INT REFERENCES p(k))",
                "INSERT INTO p VALUES (1, 'Ab', 1, 10), (2, 'cd', 2, 20), (3, '5', 3, 30)",
                "INSERT INTO c VALUES (1, 'Ab', 1, 10), (2, 'cd', 2, 20), (3, 'ab', NULL, 20)",
                "INSERT INTO c VALUES (4, 'zz', NULL, NULL)",
                "INSERT INTO c VALUES (5, NULL, 3, 31)",
                "INSERT INTO c VALUES (6, NULL, 3, 30)",
                "INSERT INTO d VALUES (1, 5)",
                "INSERT INTO d VALUES (2, '5')",
                "UPDATE p SET a = 7 WHERE id = 1",
                "UPDATE p SET b = 33 WHERE id = 3",
                "DELETE FROM p WHERE id = 2",
                "DELETE FROM p WHERE id = 1",
                "DELETE FROM p WHERE id = 3",
                "DELETE FROM d",
                "DELETE FROM p WHERE id = 3",
            ],
            &[
                "SELECT * FROM p ORDER BY id",
                "SELECT * FROM c ORDER BY id",
                "SELECT * FROM d ORDER BY id",
            ],
        );
    }

    #[test]
    fn plans_are_redone_when_a_table_grows_a_lot() {
        let (db, mut c) = setup();
        let mut sel = c.prepare("SELECT count(*) FROM t WHERE b = ?").unwrap();
        let current = |st: &Statement| {
            let snapshot = db.shared.store.read().unwrap();
            st.plan
                .as_ref()
                .is_some_and(|p| p.is_current(&snapshot, &db.catalog()))
        };
        assert_eq!(
            run(&mut sel, &mut c, vec![int(10)]).rows,
            vec![vec![int(2)]]
        );
        assert!(current(&sel));
        c.execute_batch("INSERT INTO t(b) VALUES (10), (11)")
            .unwrap();
        assert!(current(&sel), "a few rows more keep the plan");
        c.execute_batch(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) \
             INSERT INTO t(b) SELECT i % 50 FROM n",
        )
        .unwrap();
        assert!(!current(&sel), "a table 40 times larger is planned again");
        assert_eq!(
            run(&mut sel, &mut c, vec![int(10)]).rows,
            vec![vec![int(7)]]
        );
        assert!(current(&sel));
    }
}
