//! The owner's request loop: the one place that runs clients' requests
//! against the engine. Plain Rust, driven by bytes in and reply lists out, so
//! it is tested natively; `lib.rs` only forwards bytes from the Worker.
//!
//! Invariants:
//! 1. At most one client transaction is open (`writer`); it runs on its own
//!    connection (`txn_conn`). Every other request runs on the shared
//!    autocommit connection (`auto`) and completes within one `handle` call,
//!    so reads see the latest committed snapshot and never wait for a writer.
//! 2. A request that must write while another client's transaction is open
//!    (a `BEGIN`, a `BATCH`, or an autocommit write that hit `Busy`) waits in
//!    `queue`, in arrival order, and runs when the slot frees. A client whose
//!    own transaction holds the slot gets `MISUSE` instead of waiting for
//!    itself.
//! 3. Every write transaction with an id commits that id into
//!    `_tinyjoin_commits` in the same commit, so `TXN_STATUS` answers "did X
//!    commit?" after a failover. Read-only autocommit statements record
//!    nothing and pay no commit. An owner without failover (in-worker API,
//!    memory databases) records nothing (`set_record_commits`).
//! 4. The epoch is read, incremented and committed in `_tinyjoin_meta` when
//!    the owner opens, so it grows across owners; requests for another epoch
//!    are refused with `STALE_EPOCH`, which tells the client it talks to a
//!    new owner and that its request did not run.
//! 5. Malformed requests are answered with a typed error when their sender is
//!    known and dropped otherwise; the owner keeps serving either way.
//! 6. An import never rewrites the live file. On a file-backed owner it is
//!    staged: the validated bytes go out as a [`Route::Import`] reply, the
//!    Worker writes and flushes them into a new file, [`Owner::stage_import`]
//!    opens that file (full validation) and bumps its epoch, the Worker
//!    switches its manifest to it, and [`Owner::finish_import`] swaps it in
//!    ([`Owner::abort_import`] on any failure). Until then every request
//!    waits in `queue`, so nothing runs against a half-switched database.

//!
//! - `records`: the epoch and the commit records, written in the
//!   transactions they describe.

mod records;

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use tinyjoin_engine::db::{
    Connection, Database, DbOptions, Params as DbParams, QueryResult, Statement,
};
use tinyjoin_engine::storage::{CommitMode, Device, MemoryDevice, Validation};
use tinyjoin_engine::Value;
use tinyjoin_engine::{Error, Result};

use crate::protocol::{
    code, decode_request, encode_response, kind, CheckProblem, CheckSummary, Envelope, Params,
    Request, Response, ResultSet, WireError,
};

/// The table recording committed transaction ids (invariant 3).
pub const COMMITS_TABLE: &str = "_tinyjoin_commits";
/// The table holding the owner epoch (invariant 4).
pub const META_TABLE: &str = "_tinyjoin_meta";
/// How many recent transaction ids are kept; older ones are pruned. A client
/// asks about its transaction right after a failover, so this bounds the
/// table without losing an answer anyone waits for.
pub const KEPT_COMMITS: u64 = 10_000;
/// Pruning runs once per this many recorded commits.
const PRUNE_EVERY: u32 = 1_000;

/// The parameters of a statement that takes none.
static NO_PARAMS: DbParams = DbParams::None;

/// Whether a script begins with the word VACUUM (after white space): the
/// scripts worth preparing to see whether they are one VACUUM alone.
fn starts_with_vacuum(sql: &str) -> bool {
    sql.trim_start()
        .get(..6)
        .is_some_and(|w| w.eq_ignore_ascii_case("vacuum"))
}

/// Where a reply goes (the reply list's route byte; see owner-runtime.ts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// To the owner tab's own client, by postMessage.
    Local = 0,
    /// Broadcast on the channel to followers.
    Channel = 1,
    /// Not a message: watch this client's lock (bytes = its id).
    Watch = 2,
    /// Not a message: an import to stage (bytes = the validated database
    /// file): write it to a new file, flush, then call
    /// [`Owner::stage_import`] (invariant 6).
    Import = 3,
}

/// One reply of a `handle` call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub route: Route,
    pub bytes: Vec<u8>,
}

/// Encodes replies for the wasm boundary: route `u8`, length `u32` LE, bytes.
pub fn encode_replies(replies: &[Reply]) -> Vec<u8> {
    let mut out = Vec::with_capacity(replies.iter().map(|r| 5 + r.bytes.len()).sum());
    for r in replies {
        out.push(r.route as u8);
        out.extend_from_slice(
            &u32::try_from(r.bytes.len())
                .unwrap_or(u32::MAX)
                .to_le_bytes(),
        );
        out.extend_from_slice(&r.bytes);
    }
    out
}

/// A device shared between the engine and the owner, so `EXPORT` can copy
/// the file between requests (when no commit is in progress, the file is
/// exactly the last committed state plus unreferenced free pages).
#[derive(Clone)]
struct SharedDevice(Rc<RefCell<Box<dyn Device>>>);

impl Device for SharedDevice {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.0.borrow_mut().read_at(offset, buf)
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        self.0.borrow_mut().write_at(offset, data)
    }
    fn flush(&mut self) -> Result<()> {
        self.0.borrow_mut().flush()
    }
    fn len(&mut self) -> Result<u64> {
        self.0.borrow_mut().len()
    }
    fn truncate(&mut self, len: u64) -> Result<()> {
        self.0.borrow_mut().truncate(len)
    }
}

/// Options the owner opens the database with (from the client's `open`).
#[derive(Clone, Debug)]
pub struct OwnerOptions {
    pub batch_limit_bytes: u64,
    pub validation: Validation,
    pub cache_pages: usize,
    pub commit: CommitMode,
}

/// A prepared statement kept for a client.
struct Prepared {
    stmt: Statement,
}

#[derive(Default)]
struct ClientState {
    stmts: BTreeMap<u32, Prepared>,
    next_stmt: u32,
    /// The client's own autocommit connection (once it has run something),
    /// so per-connection state (PRAGMA settings, last insert rowid) is the
    /// client's alone, as with one SQLite connection per client.
    conn: Option<Connection>,
    /// The rowid of the client's last INSERT, as SQLite's
    /// `last_insert_rowid()` would report it (see `Owner::user_rowid`).
    last_rowid: i64,
    /// The client's last transaction that a statement in it ended (its
    /// SQL committed or rolled it back, or OR ROLLBACK did): requests
    /// naming it are refused, not run as requests of their own.
    ended: Option<String>,
}

/// What serving a request led to.
enum Outcome {
    Reply(Response),
    /// The request needs the write slot another client holds: queue it.
    Wait,
    /// An import waits for its new file (invariant 6); answered later by
    /// `finish_import` or `abort_import`.
    Staging(Vec<u8>),
}

/// How an owner applies an import.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ImportMode {
    /// A memory database: the new database replaces it in one step.
    InMemory,
    /// A file: staged in a new file by the Worker (invariant 6).
    NewFile,
}

/// A database opened and ready to replace the current one.
struct Staged {
    db: Database,
    device: SharedDevice,
    auto: Connection,
    epoch: u32,
    next_seq: i64,
}

/// An import in progress on a file-backed owner.
struct Importing {
    /// The IMPORT request's envelope, for its answer.
    env: Envelope,
    staged: Option<Staged>,
}

type Served = std::result::Result<Outcome, WireError>;

/// The owner of one database.
pub struct Owner {
    db: Database,
    device: SharedDevice,
    /// Scratch space for sorts that outgrow the batch limit (an OPFS file of
    /// its own, or memory for a memory database); every database this owner
    /// opens (imports too) gets it. `None`: such sorts fail as
    /// `BATCH_LIMIT_EXCEEDED`.
    temp: Option<SharedDevice>,
    epoch: u32,
    local: Rc<str>,
    /// The shared autocommit connection; `None` only while a request runs on it.
    auto: Option<Connection>,
    writer: Option<(String, String)>,
    txn_conn: Option<Connection>,
    /// Registered clients by id. Ordered maps: a handful of entries,
    /// looked up on every request, where hashing a string costs more than
    /// comparing a few.
    clients: BTreeMap<String, ClientState>,
    queue: VecDeque<(Envelope, Request)>,
    commits_since_prune: u32,
    /// `(PRUNE_EVERY, KEPT_COMMITS)`; smaller in tests so pruning runs.
    prune: (u32, u64),
    /// The next commit record's sequence number (negative, counting down).
    next_seq: i64,
    opts: OwnerOptions,
    /// A validated and opened in-memory import, installed right after its
    /// DONE reply is out (so that reply carries the epoch the importer knows).
    pending_import: Option<Staged>,
    import_mode: ImportMode,
    /// The file import in progress, if any (invariant 6).
    importing: Option<Importing>,
    /// Set when an import could not be applied: every request fails with it.
    poisoned: Option<WireError>,
    /// Whether commits are recorded (invariant 3); off for an owner nobody
    /// can fail over from (`set_record_commits`).
    record_commits: bool,
    /// The commit record's INSERT, prepared once per database.
    record_stmt: Option<Statement>,
}

fn to_result_set(r: QueryResult) -> ResultSet {
    ResultSet {
        columns: r.columns,
        rows: r.rows,
        changes: r.changes,
        last_insert_rowid: r.last_insert_rowid,
    }
}

fn check_summary(r: tinyjoin_engine::storage::CheckReport) -> CheckSummary {
    CheckSummary {
        problems: r
            .problems
            .into_iter()
            .map(|p| CheckProblem {
                page: p.page,
                detail: p.detail,
            })
            .collect(),
        pages: r.pages,
        trees: r.trees,
        entries: r.entries,
        free_pages: r.free_pages,
    }
}

fn misuse(m: impl Into<String>) -> WireError {
    WireError::new(code::MISUSE, m)
}

/// What an autocommit request runs: SQL text, the one statement of a SQL
/// text prepared to learn whether it only reads, a client's prepared
/// statement, or a script.
enum Work<'a> {
    Query(&'a str, &'a Params),
    Once(Box<Statement>, &'a Params),
    Prepared(u32, &'a Params),
    Script(&'a str),
}

impl Owner {
    /// Opens the database on `device` (creating it if empty), bumps the epoch.
    pub fn open(device: Box<dyn Device>, local: &str, opts: &OwnerOptions) -> Result<Owner> {
        Self::open_with_temp(device, None, local, opts)
    }

    /// [`Owner::open`] with `temp` as the scratch space of big sorts
    /// (`Database::open_with_temp`).
    pub fn open_with_temp(
        device: Box<dyn Device>,
        temp: Option<Box<dyn Device>>,
        local: &str,
        opts: &OwnerOptions,
    ) -> Result<Owner> {
        let device = SharedDevice(Rc::new(RefCell::new(device)));
        let temp = temp.map(|t| SharedDevice(Rc::new(RefCell::new(t))));
        let db = Self::open_db(device.clone(), &temp, Self::db_options(opts))?;
        let mut auto = db.connect();
        let epoch = Self::bump_epoch(&mut auto, 0)?;
        // A deferred commit mode still makes the new epoch durable at once
        // (and a one-flush one confirms it).
        db.sync()?;
        let next_seq = Self::load_next_seq(&mut auto)?;
        Ok(Owner {
            db,
            device,
            temp,
            epoch,
            local: Rc::from(local),
            auto: Some(auto),
            writer: None,
            txn_conn: None,
            clients: BTreeMap::new(),
            queue: VecDeque::new(),
            commits_since_prune: 0,
            prune: (PRUNE_EVERY, KEPT_COMMITS),
            next_seq,
            opts: opts.clone(),
            pending_import: None,
            import_mode: ImportMode::NewFile,
            importing: None,
            poisoned: None,
            record_commits: true,
            record_stmt: None,
        })
    }

    /// Opens an empty in-memory database.
    pub fn open_memory(local: &str, opts: &OwnerOptions) -> Result<Owner> {
        let temp: Box<dyn Device> = Box::new(MemoryDevice::new());
        let mut o = Self::open_with_temp(Box::new(MemoryDevice::new()), Some(temp), local, opts)?;
        o.import_mode = ImportMode::InMemory;
        Ok(o)
    }

    /// Opens `device`, with `temp` as its scratch space when there is one.
    fn open_db(
        device: SharedDevice,
        temp: &Option<SharedDevice>,
        opts: DbOptions,
    ) -> Result<Database> {
        match temp {
            Some(t) => Database::open_with_temp(Box::new(device), Box::new(t.clone()), opts),
            None => Database::open(Box::new(device), opts),
        }
    }

    fn db_options(opts: &OwnerOptions) -> DbOptions {
        DbOptions {
            cache_pages: opts.cache_pages,
            batch_limit_bytes: opts.batch_limit_bytes,
            validation: opts.validation,
            commit: opts.commit,
        }
    }

    /// Turns commit records (invariant 3) off or on. They answer "did X
    /// commit?" after a failover; an owner whose only client runs in its
    /// own thread (the in-worker API, a memory database) has no failover:
    /// if it dies its client dies with it, and a request that the client
    /// sees lost in flight (sent as a message while an import replaced the
    /// database) never ran, so "no" is the right answer. Such an owner
    /// skips the records, and its commits write only the user's changes.
    pub fn set_record_commits(&mut self, on: bool) {
        self.record_commits = on;
    }

    /// This owner's epoch.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The id of the client in this owner's own tab.
    pub fn local(&self) -> &str {
        &self.local
    }

    /// The options this owner opened with.
    pub fn options(&self) -> &OwnerOptions {
        &self.opts
    }

    /// Whether commits write records (`set_record_commits`).
    pub fn records_commits(&self) -> bool {
        self.record_commits
    }

    /// Makes every commit durable (`CommitMode::Deferred`) and confirms the
    /// newest (one-flush or deferred): the runtime calls it shortly after a
    /// commit, and before closing. Fails as a device error does; the
    /// database is then poisoned like after any failed write.
    pub fn sync(&mut self) -> Result<()> {
        self.db.sync()
    }

    /// Whether [`Owner::sync`] has anything to do.
    pub fn needs_sync(&self) -> bool {
        self.db.needs_sync()
    }

    /// The READY announcement.
    pub fn ready(&self) -> Vec<u8> {
        let env = Envelope {
            epoch: self.epoch,
            client: self.local.to_string(),
            request: 0,
        };
        encode_response(
            &env,
            &Response::Ready {
                owner: self.local.to_string(),
            },
        )
    }

    fn reply(&self, client: &str, request: u32, resp: &Response) -> Reply {
        let env = Envelope {
            epoch: self.epoch,
            client: client.to_string(),
            request,
        };
        let route = if client == &*self.local {
            Route::Local
        } else {
            Route::Channel
        };
        Reply {
            route,
            bytes: encode_response(&env, resp),
        }
    }

    /// Handles one message; returns the replies to send, in order.
    pub fn handle(&mut self, bytes: &[u8]) -> Vec<Reply> {
        let mut out = Vec::new();
        // Another owner's responses on the channel (a stale owner, briefly): not for us.
        if bytes.len() > 2 && bytes[2] >= kind::READY {
            return out;
        }
        match decode_request(bytes) {
            Ok((env, req)) => {
                self.dispatch(env, req, &mut out);
                self.drain_queue(&mut out);
            }
            Err(e) => {
                if let Some(env) = e.envelope.filter(|env| !env.client.is_empty()) {
                    out.push(self.reply(&env.client, env.request, &Response::Failed(e.error)));
                }
            }
        }
        out
    }

    /// Serves a request of the local client directly, for the in-worker
    /// API (one client, no channel): the same `serve` as [`Owner::handle`],
    /// without decoding, epochs or routing. `None` when the request cannot
    /// be answered now (an import is being staged, requests are queued, it
    /// would wait for the write slot, or it is an import itself): the caller
    /// then sends it as a message, which queues in order.
    pub fn call_local(&mut self, req: &Request) -> Option<Response> {
        if self.importing.is_some()
            || !self.queue.is_empty()
            || matches!(req, Request::Import { .. })
        {
            return None;
        }
        if let Some(e) = &self.poisoned {
            return Some(Response::Failed(e.clone()));
        }
        let client = Rc::clone(&self.local);
        match self.serve(&client, req) {
            Ok(Outcome::Reply(r)) => Some(r),
            // Only an IMPORT stages (refused above); a request that must wait
            // did nothing yet (`slot_busy` runs first; a write that met BUSY
            // was rolled back).
            Ok(Outcome::Wait | Outcome::Staging(_)) => None,
            Err(e) => Some(Response::Failed(e)),
        }
    }

    /// A client is gone (its lock was released): roll back its transaction,
    /// forget its statements and queued requests.
    pub fn client_gone(&mut self, client: &str) -> Vec<Reply> {
        let mut out = Vec::new();
        self.end_client(client);
        self.drain_queue(&mut out);
        out
    }

    fn end_client(&mut self, client: &str) {
        if self.writer.as_ref().is_some_and(|(c, _)| c == client) {
            self.release_writer();
        }
        self.clients.remove(client);
        self.queue.retain(|(env, _)| env.client != client);
    }

    fn release_writer(&mut self) {
        if let Some(mut conn) = self.txn_conn.take() {
            if conn.in_transaction() {
                conn.rollback_open_transaction();
            }
        }
        self.writer = None;
    }

    /// The error a request is refused with before it runs: the owner is
    /// poisoned, or the request is addressed to another epoch.
    fn refusal(&self, env: &Envelope, req: &Request) -> Option<WireError> {
        if let Some(e) = &self.poisoned {
            return Some(e.clone());
        }
        if !matches!(req, Request::Open) && env.epoch != self.epoch {
            return Some(WireError::new(
                code::STALE_EPOCH,
                format!(
                    "request for owner epoch {} reached the owner of epoch {}",
                    env.epoch, self.epoch
                ),
            ));
        }
        None
    }

    fn dispatch(&mut self, env: Envelope, req: Request, out: &mut Vec<Reply>) {
        if let Some(e) = self.refusal(&env, &req) {
            out.push(self.reply(&env.client, env.request, &Response::Failed(e)));
            return;
        }
        if matches!(req, Request::Open)
            && *env.client != *self.local
            && !self.clients.contains_key(&env.client)
        {
            out.push(Reply {
                route: Route::Watch,
                bytes: env.client.as_bytes().to_vec(),
            });
        }
        if self.importing.is_some() {
            self.queue.push_back((env, req));
            return;
        }
        if let Some(waiting) = self.serve_one(env, req, out) {
            self.queue.push_back(waiting);
        }
    }

    /// Serves one admitted request; gives it back if it must wait.
    fn serve_one(
        &mut self,
        env: Envelope,
        req: Request,
        out: &mut Vec<Reply>,
    ) -> Option<(Envelope, Request)> {
        match self.serve(&env.client, &req) {
            Ok(Outcome::Reply(resp)) => out.push(self.reply(&env.client, env.request, &resp)),
            Ok(Outcome::Wait) => return Some((env, req)),
            Ok(Outcome::Staging(bytes)) => self.start_staging(env, bytes, out),
            Err(e) => out.push(self.reply(&env.client, env.request, &Response::Failed(e))),
        }
        self.apply_import(out);
        None
    }

    /// Runs queued requests in order while the write slot is free and no
    /// import is being staged. A request queued before an import finished
    /// is checked again: its epoch may be stale now.
    fn drain_queue(&mut self, out: &mut Vec<Reply>) {
        while self.writer.is_none() && self.importing.is_none() {
            let Some((env, req)) = self.queue.pop_front() else {
                return;
            };
            if let Some(e) = self.refusal(&env, &req) {
                out.push(self.reply(&env.client, env.request, &Response::Failed(e)));
                continue;
            }
            if let Some(waiting) = self.serve_one(env, req, out) {
                self.queue.push_front(waiting);
                return;
            }
        }
    }

    /// Whether `client` must wait for the write slot (another client holds
    /// it), or misuses it (it holds it itself, under another transaction id).
    fn slot_busy(&self, client: &str, txn: Option<&str>) -> Option<Served> {
        let (holder, held) = self.writer.as_ref()?;
        if holder == client {
            let m = match txn {
                Some(t) if t == held => return None,
                _ => format!("client {client} has transaction {held} open; run the statement through that transaction or end it first"),
            };
            return Some(Err(misuse(m)));
        }
        Some(Ok(Outcome::Wait))
    }

    fn serve(&mut self, client: &str, req: &Request) -> Served {
        // The requests of every statement, here; the rest out of line
        // (`serve_rest`), which keeps this function small for the wasm
        // engine's optimizing compiler (it compiles a function whole).
        match req {
            Request::Exec { txn, sql } => self.statement(client, txn.as_deref(), Work::Script(sql)),
            Request::Query { txn, sql, params } => {
                self.statement(client, txn.as_deref(), Work::Query(sql, params))
            }
            Request::Run { txn, stmt, params } => {
                self.statement(client, txn.as_deref(), Work::Prepared(*stmt, params))
            }
            Request::Begin { txn } => self.begin(client, txn),
            Request::Commit { txn } => self.commit(client, txn),
            _ => self.serve_rest(client, req),
        }
    }

    /// The requests [`Owner::serve`] does not answer itself.
    #[inline(never)]
    fn serve_rest(&mut self, client: &str, req: &Request) -> Served {
        match req {
            Request::Open => {
                self.clients.entry(client.to_string()).or_default();
                Ok(Outcome::Reply(Response::Opened {
                    owner: self.local.to_string(),
                }))
            }
            Request::Exec { .. }
            | Request::Query { .. }
            | Request::Run { .. }
            | Request::Begin { .. }
            | Request::Commit { .. } => Err(misuse("internal: a statement request in serve_rest")),
            Request::Prepare { sql } => self.prepare(client, sql),
            Request::Finalize { stmt } => {
                if let Some(c) = self.clients.get_mut(client) {
                    c.stmts.remove(stmt);
                }
                Ok(Outcome::Reply(Response::Done))
            }
            Request::Batch { txn, items } => {
                if let Some(s) = self.slot_busy(client, None) {
                    return s;
                }
                self.in_recorded_txn(client, txn, |owner, conn| {
                    let mut sets = Vec::with_capacity(items.len());
                    for it in items {
                        let before = conn.last_insert_rowid();
                        let r = conn.execute(&it.sql, &it.params);
                        let mut rs = r.map(to_result_set).map_err(|e| WireError::from(&e))?;
                        owner.user_rowid(client, before, conn.last_insert_rowid(), &mut rs);
                        sets.push(rs);
                    }
                    Ok(sets)
                })
                .map(|sets| Outcome::Reply(Response::BatchDone(sets)))
            }
            Request::Rollback { txn } => {
                if self
                    .writer
                    .as_ref()
                    .is_some_and(|(c, t)| c == client && t == txn)
                {
                    self.release_writer();
                }
                Ok(Outcome::Reply(Response::Done))
            }
            Request::TxnStatus { txn } => {
                let q = self.auto_conn()?.execute(
                    &format!("SELECT 1 FROM {COMMITS_TABLE} WHERE txn = ?"),
                    &DbParams::Positional(vec![Value::Text(txn.clone())]),
                );
                q.map(|r| {
                    Outcome::Reply(Response::TxnState {
                        committed: !r.rows.is_empty(),
                    })
                })
                .map_err(|e| WireError::from(&e))
            }
            Request::Export => self
                .export()
                .map(|b| Outcome::Reply(Response::Bytes(b)))
                .map_err(|e| WireError::from(&e)),
            Request::Close => {
                self.end_client(client);
                Ok(Outcome::Reply(Response::Done))
            }
            Request::Sync => self
                .db
                .sync()
                .map(|()| Outcome::Reply(Response::Done))
                .map_err(|e| WireError::from(&e)),
            Request::Check => self
                .db
                .check()
                .map(|r| Outcome::Reply(Response::Checked(check_summary(r))))
                .map_err(|e| WireError::from(&e)),
            Request::Import { bytes } => {
                if let Some(s) = self.slot_busy(client, None) {
                    return s;
                }
                let memory = SharedDevice(Rc::new(RefCell::new(Box::new(
                    MemoryDevice::from_bytes(bytes.clone()),
                ))));
                let db = Self::open_checked(memory.clone(), &self.temp, &self.opts)
                    .map_err(|e| WireError::from(&e))?;
                match self.import_mode {
                    ImportMode::NewFile => Ok(Outcome::Staging(bytes.clone())),
                    ImportMode::InMemory => {
                        let staged =
                            Self::stage(db, memory, self.epoch).map_err(|e| WireError::from(&e))?;
                        self.pending_import = Some(staged);
                        Ok(Outcome::Reply(Response::Done))
                    }
                }
            }
        }
    }

    /// Opens the database on `device` with full validation and runs the
    /// full check on it (indexes against tables too); a file that fails is
    /// `CORRUPT`.
    fn open_checked(
        device: SharedDevice,
        temp: &Option<SharedDevice>,
        opts: &OwnerOptions,
    ) -> Result<Database> {
        let full = OwnerOptions {
            validation: Validation::Full,
            ..opts.clone()
        };
        let db = Self::open_db(device, temp, Self::db_options(&full))?;
        let report = db.check()?;
        match report.problems.first() {
            None => Ok(db),
            Some(p) => Err(Error::Corrupt {
                page: p.page,
                detail: format!(
                    "the imported file fails validation: {} ({} problems in all)",
                    p.detail,
                    report.problems.len()
                ),
            }),
        }
    }

    /// Makes an opened import ready to replace the current database: its
    /// epoch is bumped past ours (and committed in it).
    fn stage(db: Database, device: SharedDevice, current_epoch: u32) -> Result<Staged> {
        let mut auto = db.connect();
        let epoch = Self::bump_epoch(&mut auto, current_epoch)?;
        db.sync()?;
        let next_seq = Self::load_next_seq(&mut auto)?;
        Ok(Staged {
            db,
            device,
            auto,
            epoch,
            next_seq,
        })
    }

    /// Replaces the database with a staged one: every client's prepared
    /// statements and connection state are gone (they re-`OPEN` on READY).
    fn install(&mut self, staged: Staged) {
        self.release_writer();
        for c in self.clients.values_mut() {
            c.stmts.clear();
            c.conn = None;
        }
        self.db = staged.db;
        self.device = staged.device;
        self.auto = Some(staged.auto);
        self.epoch = staged.epoch;
        self.next_seq = staged.next_seq;
        self.commits_since_prune = 0;
        self.record_stmt = None;
        // As at open (warm_up.rs), on the database now installed: its schema
        // reaches more of the statement code than an empty one's. A failure
        // meets the next request too, which reports it.
        let (local, warm_up) = (Rc::clone(&self.local), crate::warm_up::request(self));
        let _ = self.serve(&local, &warm_up);
    }

    /// Announces the current epoch to every client, ours by postMessage too.
    fn announce(&self, out: &mut Vec<Reply>) {
        let ready = self.ready();
        out.push(Reply {
            route: Route::Channel,
            bytes: ready.clone(),
        });
        out.push(Reply {
            route: Route::Local,
            bytes: ready,
        });
    }

    /// Installs a staged in-memory import after its DONE reply is out, and
    /// announces the new epoch.
    fn apply_import(&mut self, out: &mut Vec<Reply>) {
        if let Some(staged) = self.pending_import.take() {
            self.install(staged);
            self.announce(out);
        }
    }

    /// A file import was validated: from now on requests wait, and the
    /// Worker is asked to write the bytes to a new file (invariant 6).
    fn start_staging(&mut self, env: Envelope, bytes: Vec<u8>, out: &mut Vec<Reply>) {
        self.importing = Some(Importing { env, staged: None });
        out.push(Reply {
            route: Route::Import,
            bytes,
        });
    }

    /// Whether a file import is waiting for `stage_import` / `finish_import`.
    pub fn importing(&self) -> bool {
        self.importing.is_some()
    }

    /// The Worker wrote and flushed the import into a new file on `device`:
    /// opens it (full validation and check, read back from the file) and
    /// bumps its epoch in it. The file is not yet the database; on error the
    /// Worker calls [`Owner::abort_import`].
    pub fn stage_import(&mut self, device: Box<dyn Device>) -> Result<()> {
        let Some(importing) = self.importing.as_mut() else {
            return Err(Error::Misuse("no import is being staged".into()));
        };
        let device = SharedDevice(Rc::new(RefCell::new(device)));
        let db = Self::open_checked(device.clone(), &self.temp, &self.opts)?;
        importing.staged = Some(Self::stage(db, device, self.epoch)?);
        Ok(())
    }

    /// The Worker made the staged file the database (its manifest names it,
    /// durably): answers the import with DONE in the old epoch, swaps the
    /// staged database in, announces the new epoch and runs what waited.
    pub fn finish_import(&mut self) -> Vec<Reply> {
        let mut out = Vec::new();
        let Some(importing) = self.importing.take() else {
            return out;
        };
        let env = importing.env;
        match importing.staged {
            Some(staged) => {
                out.push(self.reply(&env.client, env.request, &Response::Done));
                self.install(staged);
                self.announce(&mut out);
            }
            None => {
                let e = misuse("the import was finished before its file was staged");
                out.push(self.reply(&env.client, env.request, &Response::Failed(e)));
            }
        }
        self.drain_queue(&mut out);
        out
    }

    /// The import failed (writing, flushing or opening the new file): the
    /// importer gets `error` and the current database stays. With `poison`
    /// (the manifest switch failed, so which file is current is unknown
    /// until the next open), every later request fails with `error` too.
    pub fn abort_import(&mut self, error: WireError, poison: bool) -> Vec<Reply> {
        let mut out = Vec::new();
        let Some(importing) = self.importing.take() else {
            return out;
        };
        let env = importing.env;
        out.push(self.reply(&env.client, env.request, &Response::Failed(error.clone())));
        if poison {
            self.auto = None;
            self.drop_conns();
            self.release_writer();
            self.poisoned = Some(error);
        }
        self.drain_queue(&mut out);
        out
    }

    fn prepare(&mut self, client: &str, sql: &str) -> Served {
        let stmt = self
            .auto_conn()?
            .prepare(sql)
            .map_err(|e| WireError::from(&e))?;
        let state = self.clients.entry(client.to_string()).or_default();
        state.next_stmt = state.next_stmt.wrapping_add(1);
        let id = state.next_stmt;
        let columns = stmt.column_names().to_vec();
        let param_count = u32::try_from(stmt.param_count()).unwrap_or(u32::MAX);
        state.stmts.insert(id, Prepared { stmt });
        Ok(Outcome::Reply(Response::Prepared {
            stmt: id,
            param_count,
            columns,
        }))
    }

    fn begin(&mut self, client: &str, txn: &str) -> Served {
        if let Some(s) = self.slot_busy(client, None) {
            return s;
        }
        let mut conn = self.db.connect();
        conn.execute_batch("BEGIN")
            .map_err(|e| WireError::from(&e))?;
        self.writer = Some((client.to_string(), txn.to_string()));
        self.txn_conn = Some(conn);
        Ok(Outcome::Reply(Response::Done))
    }

    fn commit(&mut self, client: &str, txn: &str) -> Served {
        if !self
            .writer
            .as_ref()
            .is_some_and(|(c, t)| c == client && t == txn)
        {
            return Err(misuse(format!(
                "transaction {txn} of client {client} is not open"
            )));
        }
        let mut conn = self
            .txn_conn
            .take()
            .ok_or_else(|| misuse("no connection for the open transaction"))?;
        self.writer = None;
        let r = self
            .record(&mut conn, txn)
            .and_then(|()| conn.execute_batch("COMMIT"));
        match r {
            Ok(()) => Ok(Outcome::Reply(Response::Done)),
            Err(e) => {
                if conn.in_transaction() {
                    conn.rollback_open_transaction();
                }
                Err(WireError::from(&e))
            }
        }
    }

    /// The client's autocommit connection, taken out while a request runs on it.
    fn take_conn(&mut self, client: &str) -> Connection {
        match self.clients.get_mut(client).and_then(|c| c.conn.take()) {
            Some(conn) => conn,
            None => self.db.connect(),
        }
    }

    /// Drops every client's connection (the database is gone or poisoned).
    fn drop_conns(&mut self) {
        for c in self.clients.values_mut() {
            c.conn = None;
        }
    }

    /// Puts a client's connection back; one of a client that never opened
    /// (or is gone) is dropped, so unknown senders cannot make the owner
    /// accumulate connections.
    fn put_conn(&mut self, client: &str, conn: Connection) {
        if let Some(c) = self.clients.get_mut(client) {
            c.conn = Some(conn);
        }
    }

    fn auto_conn(&mut self) -> std::result::Result<&mut Connection, WireError> {
        self.auto
            .as_mut()
            .ok_or_else(|| misuse("the autocommit connection is in use"))
    }

    /// Runs `f` on the client's autocommit connection inside BEGIN … COMMIT,
    /// recording `txn` in the same commit; rolls back on any error.
    fn in_recorded_txn<T>(
        &mut self,
        client: &str,
        txn: &str,
        f: impl FnOnce(&mut Self, &mut Connection) -> std::result::Result<T, WireError>,
    ) -> std::result::Result<T, WireError> {
        let mut conn = self.take_conn(client);
        let wire = |e: Error| WireError::from(&e);
        // Atomic: the request fails as a whole, so its statements need no
        // undo log of their own (a failing one rolls everything back).
        let r = conn
            .begin_atomic()
            .map_err(wire)
            .and_then(|()| f(self, &mut conn))
            .and_then(|v| {
                self.record(&mut conn, txn).map_err(wire)?;
                conn.execute_batch("COMMIT").map_err(wire)?;
                Ok(v)
            });
        if r.is_err() && conn.in_transaction() {
            conn.rollback_open_transaction();
        }
        self.put_conn(client, conn);
        r
    }

    /// EXEC / QUERY / RUN, routed by `txn` (PROTOCOL.md, "Meaning of the requests").
    fn statement(&mut self, client: &str, txn: Option<&str>, mut work: Work<'_>) -> Served {
        let in_open_txn =
            matches!((&self.writer, txn), (Some((c, t)), Some(x)) if c == client && t == x);
        if let Some(t) = txn.filter(|t| {
            !in_open_txn && self.clients.get(client).and_then(|c| c.ended.as_deref()) == Some(*t)
        }) {
            return Err(misuse(format!(
                "transaction {t} has ended: a statement in it committed or rolled it back"
            )));
        }
        if in_open_txn {
            let mut conn = self
                .txn_conn
                .take()
                .ok_or_else(|| misuse("no connection for the open transaction"))?;
            let r = self.run_user_work(&mut conn, client, &mut work);
            if !conn.in_transaction() {
                // The SQL itself ended the transaction (COMMIT, ROLLBACK, END,
                // RELEASE), or a failure rolled it back (OR ROLLBACK, a
                // statement left half undone): its outcome is no longer the
                // client's commit to decide, and no record of it was
                // written. Say so (a failure by its own error), and free the
                // slot for the others.
                self.writer = None;
                if let (Some(state), Some(t)) = (self.clients.get_mut(client), txn) {
                    state.ended = Some(t.to_string());
                }
                return Err(match r {
                    Err(e) => e,
                    Ok(_) => ended_by_statement(txn.unwrap_or_default()),
                });
            }
            self.txn_conn = Some(conn);
            return r.map(|rs| Outcome::Reply(Response::Rows(rs)));
        }
        // Whether the request runs unrecorded: it only reads, so it runs on
        // the latest snapshot and records nothing (PROTOCOL.md): the engine decides
        // (`Statement::is_read_only`). SQL text is prepared for that (and
        // then runs as prepared); a text of several statements, and any
        // script, counts as a write: it pays one commit with its
        // transaction id recorded, which is always correct.
        //
        // VACUUM commits as it goes and cannot run inside BEGIN … COMMIT:
        // it runs alone, unrecorded, as a read does. It changes no row, so
        // running it again (a retry after a failover) is harmless.
        let unrecorded = match work {
            Work::Query(sql, params) if txn.is_some() => match self.single_statement(sql)? {
                Some(stmt) => {
                    let unrecorded = stmt.is_read_only() || stmt.is_vacuum();
                    work = Work::Once(Box::new(stmt), params);
                    unrecorded
                }
                None => false,
            },
            Work::Script(sql) if txn.is_some() && starts_with_vacuum(sql) => {
                match self.single_statement(sql)? {
                    Some(stmt) => {
                        let vacuum = stmt.is_vacuum();
                        work = Work::Once(Box::new(stmt), &NO_PARAMS);
                        vacuum
                    }
                    None => false,
                }
            }
            Work::Query(..) | Work::Once(..) | Work::Script(_) => false,
            Work::Prepared(id, _) => {
                let stmt = &self.prepared(client, id)?.stmt;
                stmt.is_read_only() || stmt.is_vacuum()
            }
        };
        let r = match txn {
            Some(txn) if !unrecorded => {
                if let Some(s) = self.slot_busy(client, None) {
                    return s;
                }
                self.in_recorded_txn(client, txn, |owner, conn| {
                    owner.run_user_work(conn, client, &mut work)
                })
            }
            _ => {
                let mut conn = self.take_conn(client);
                let r = self.run_user_work(&mut conn, client, &mut work);
                self.put_conn(client, conn);
                r
            }
        };
        match r {
            // A write that met another client's open transaction waits for it.
            Err(e) if e.code == "BUSY" => self.slot_busy(client, txn).unwrap_or(Err(e)),
            r => r.map(|rs| Outcome::Reply(Response::Rows(rs))),
        }
    }

    /// The statement of `sql` prepared, if `sql` holds exactly one (else
    /// `None`); an error if the first does not prepare (the error running
    /// it would report).
    #[inline(never)]
    fn single_statement(&mut self, sql: &str) -> std::result::Result<Option<Statement>, WireError> {
        let conn = self.auto_conn()?;
        let stmt = conn.prepare(sql).map_err(|e| WireError::from(&e))?;
        let rest = stmt.tail(sql);
        let alone = rest
            .trim_matches(|c: char| c.is_whitespace() || c == ';')
            .is_empty()
            // Only comments left: there is no statement to prepare.
            || matches!(conn.prepare(rest), Err(Error::Misuse(_)));
        Ok(alone.then_some(stmt))
    }

    /// Runs a client's statement and reports the client's own last insert
    /// rowid with it.
    fn run_user_work(
        &mut self,
        conn: &mut Connection,
        client: &str,
        work: &mut Work<'_>,
    ) -> std::result::Result<ResultSet, WireError> {
        let before = conn.last_insert_rowid();
        let mut rs = self.run_work(conn, client, work)?;
        self.user_rowid(client, before, conn.last_insert_rowid(), &mut rs);
        Ok(rs)
    }

    /// The commit record is an INSERT too, and it moves the connection's last
    /// insert rowid; clients must not see that. A statement that moved the
    /// rowid (from `before` to `after`) inserted: its rowid becomes the
    /// client's; any other statement reports the client's previous one.
    /// `before` is a commit record's negative sequence number or the client's
    /// own last rowid, so only a user INSERT of exactly that rowid again is
    /// mistaken for "no insert" (it then reports the same value anyway, or,
    /// after a record, the client's previous rowid).
    fn user_rowid(&mut self, client: &str, before: i64, after: i64, rs: &mut ResultSet) {
        if let Some(state) = self.clients.get_mut(client) {
            if after != before {
                state.last_rowid = after;
            }
            rs.last_insert_rowid = state.last_rowid;
        }
    }

    fn prepared(&self, client: &str, id: u32) -> std::result::Result<&Prepared, WireError> {
        self.clients
            .get(client)
            .and_then(|c| c.stmts.get(&id))
            .ok_or_else(|| misuse(format!("prepared statement {id} does not exist for client {client} (finalized, or prepared at an earlier owner)")))
    }

    fn run_work(
        &mut self,
        conn: &mut Connection,
        client: &str,
        work: &mut Work<'_>,
    ) -> std::result::Result<ResultSet, WireError> {
        let r = match work {
            Work::Query(sql, params) => conn.execute(sql, params),
            Work::Once(stmt, params) => stmt.execute(conn, params),
            Work::Script(sql) => conn.execute_batch(sql).map(|()| QueryResult::default()),
            Work::Prepared(id, params) => {
                let p = self
                    .clients
                    .get_mut(client)
                    .and_then(|c| c.stmts.get_mut(&*id))
                    .ok_or_else(|| no_such_statement(*id, client))?;
                p.stmt.execute(conn, params)
            }
        };
        r.map(to_result_set).map_err(|e| WireError::from(&e))
    }

    /// A copy of the database file: between requests no commit is in progress,
    /// so the file holds the last committed state (plus free pages no
    /// superblock references).
    fn export(&mut self) -> Result<Vec<u8>> {
        let mut dev = self.device.0.borrow_mut();
        let len = dev.len()?;
        let len = usize::try_from(len).map_err(|_| {
            Error::TooLarge(format!(
                "database of {len} bytes cannot be exported in memory"
            ))
        })?;
        let mut buf = vec![0u8; len];
        dev.read_at(0, &mut buf)?;
        Ok(buf)
    }
}

/// The error of a statement that ended its client's transaction itself.
#[cold]
#[inline(never)]
fn ended_by_statement(txn: &str) -> WireError {
    misuse(format!(
        "a statement ended transaction {txn} (COMMIT, ROLLBACK, END or RELEASE); \
         its changes were committed or rolled back by that statement. \
         End transactions by returning from (or throwing in) the transaction callback"
    ))
}

/// The error of a prepared statement id the client does not hold.
#[cold]
#[inline(never)]
fn no_such_statement(id: u32, client: &str) -> WireError {
    misuse(format!(
        "prepared statement {id} does not exist for client {client}"
    ))
}

#[cfg(test)]
pub(crate) mod tests;
