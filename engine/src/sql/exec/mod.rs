//! The executor: runs bound plans against a [`kv::Kv`] view of storage.
//!
//! Shape: a streaming nested-loop join feeding materializing operators.
//! The join binds one FROM item per level; each level writes its candidate
//! rows into one reused row buffer and calls the level below, and the last
//! level calls a sink (projection, DISTINCT, aggregation, or a collector),
//! stopping early when a LIMIT is satisfied. Table rows stream straight
//! from storage ([`kv::Kv::visit`] hands out borrowed entries) for the
//! outermost level's scan and for every rowid lookup, rowid range and
//! index probe, decoding only the columns the query reads
//! (`FromItem::used`); nothing of a streamed table is kept. What must be
//! kept is materialized: an inner level's plain scan (read once, reused
//! for every outer row), a hash join's build side, subqueries and CTEs,
//! and above the join the rows of window functions, ORDER BY, DISTINCT's
//! seen keys and compound bodies. Each is charged to the statement's
//! budget ([`ExecCtx::charge`], a [`Budget`]), so a query whose buffers
//! exceed the batch limit fails with `BatchLimitExceeded` instead of
//! growing without bound. Sorts spill: with temp space (`spill`), ORDER
//! BY, an INSERT's source rows and CREATE INDEX's keys hold a quarter of
//! the limit in memory and write sorted runs past it, merged as the rows
//! are read; without temp space they are charged like the rest.
//! Simplification, with its cost: the other buffers still live in memory
//! only. Not charged: streamed rows (a scan, filter or aggregate over any
//! amount of data runs in constant memory, plus its groups) and the rows a
//! statement returns (the caller's, `ExecCtx::run_result`).
//!
//! - `kv`: the key-value view of storage; `store_kv` implements it for the
//!   storage layer's transactions.
//! - `eval`: expression evaluation.
//! - `builtin`: scalar functions and LIKE/GLOB.
//! - `in_set`: a subquery's rows as keys for `x IN (SELECT ...)`.
//! - `json_each`: the rows of `json_each` and `json_tree`.
//! - `scan`: table rows and access paths.
//! - `select`: SELECT cores, compound bodies, ORDER BY, LIMIT.
//! - `spill`: temp space and the external merge sort.
//! - `aggregate`: aggregate accumulators.
//! - `window`: window functions.
//! - `write`: writing rows and index entries; NOT NULL, CHECK, UNIQUE.
//! - `fk`: FOREIGN KEY checks and actions.
//! - `dml`: INSERT, UPDATE, DELETE.
//! - `ddl`: CREATE/DROP/ALTER and catalog persistence.
//! - `pragma`: the PRAGMAs that read or write the schema.
//! - `explain`: EXPLAIN QUERY PLAN rows.
//! - `analyze`: ANALYZE's statistics, stored and shown as `sqlite_stat1`.
//! - `integrity`: index-versus-table consistency for `Database::check`.
//! - `statement`: runs one parsed statement (everything but transaction
//!   control, which the connection in `db.rs` owns).

pub(crate) mod aggregate;
pub(crate) mod analyze;
pub(crate) mod builtin;
mod bytesort;
pub(crate) mod ddl;
pub(crate) mod dml;
pub(crate) mod eval;
pub(crate) mod explain;
pub(crate) mod fk;
mod in_set;
pub(crate) mod integrity;
mod json_each;
pub(crate) mod keysort;
pub(crate) mod kv;
pub(crate) mod pending;
pub(crate) mod pragma;
pub(crate) use pragma::is_schema_pragma;
pub(crate) mod scan;
pub(crate) mod select;
pub(crate) mod sequence;
pub(crate) mod spill;
pub(crate) mod statement;
pub(crate) mod store_kv;
#[cfg(test)]
mod tests;
pub(crate) mod text_checks;
pub(crate) mod trigger;
pub(crate) mod view_write;
pub(crate) mod window;
pub(crate) mod write;

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

use crate::sql::value::Value;
use crate::storage::fasthash::FastMap;
use crate::{Error, Result};

use self::kv::Kv;

/// Materialized results by subquery or CTE id: [`ExecCtx::cache`] and
/// [`ExecCtx::working`].
pub(crate) type ResultsById = FastMap<usize, Rc<Vec<Vec<Value>>>>;

/// The state of one statement execution.
pub(crate) struct ExecCtx<'a> {
    pub kv: &'a dyn Kv,
    pub params: &'a [Value],
    /// Results of uncorrelated subqueries, by subquery id. (Fast-hashed:
    /// a context is made for every statement and most never use these, so
    /// making one must not seed a SipHash state.)
    pub cache: RefCell<ResultsById>,
    /// The sets of uncorrelated `x IN (SELECT ...)` subqueries, by
    /// subquery id (such a subquery's rows are kept here, not in `cache`).
    pub in_sets: RefCell<FastMap<usize, Rc<in_set::InSet>>>,
    /// Working tables of recursive CTEs, by CTE id.
    pub working: RefCell<ResultsById>,
    /// What the statement's materialized results may use: made on first
    /// use ([`ExecCtx::budget`]), as most contexts (one per row an UPDATE
    /// writes, for its index keys) never charge anything.
    budget: OnceCell<Rc<Budget>>,
    /// The batch limit `budget` is made with.
    limit: u64,
    /// Scratch for sorts that outgrow their share of the budget.
    pub temp: Option<Rc<spill::TempSpace>>,
}

/// Bytes of materialized intermediate results a statement holds, against
/// the batch limit. Shared (`Rc`) with the sorters and row streams that
/// outlive the [`ExecCtx`] that made them (an INSERT's source rows).
pub(crate) struct Budget {
    used: Cell<u64>,
    limit: u64,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Budget {
        Budget {
            used: Cell::new(0),
            limit,
        }
    }

    /// The bytes one memory-hungry operator (a sort's in-memory rows, a
    /// hash join's build) may hold: a quarter of the limit, so that the
    /// rest of the statement (another sort's run buffer, a later build)
    /// keeps room.
    pub(crate) fn memory_share(&self) -> u64 {
        (self.limit / 4).max(1)
    }

    /// Charges `bytes`; fails once the total passes the limit.
    pub(crate) fn charge(&self, bytes: u64) -> Result<()> {
        let used = self.used.get().saturating_add(bytes);
        self.used.set(used);
        if used > self.limit {
            return Err(Error::BatchLimitExceeded {
                limit: self.limit,
                needed: used,
            });
        }
        Ok(())
    }

    /// Bytes charged now.
    pub(crate) fn used(&self) -> u64 {
        self.used.get()
    }

    /// Gives back `bytes` charged earlier (a buffer written to temp space
    /// or dropped).
    pub(crate) fn release(&self, bytes: u64) {
        self.used.set(self.used.get().saturating_sub(bytes));
    }
}

impl<'a> ExecCtx<'a> {
    pub(crate) fn new(kv: &'a dyn Kv, params: &'a [Value], limit: u64) -> ExecCtx<'a> {
        ExecCtx {
            kv,
            params,
            cache: RefCell::new(FastMap::default()),
            in_sets: RefCell::new(FastMap::default()),
            working: RefCell::new(FastMap::default()),
            budget: OnceCell::new(),
            limit,
            temp: spill::current(),
        }
    }

    /// Runs `f` with a new context, made and dropped out of line.
    ///
    /// Write paths make a context per row (its reads borrow `kv`, which
    /// the row's writes then take mutably). Made and dropped in place, each
    /// inlined a thread-local read and two maps' drop loops into the
    /// caller: a few KB of wasm per statement path, which V8 compiles on
    /// the path's first call and again when it optimizes it.
    #[inline]
    pub(crate) fn scoped<R>(
        kv: &'a dyn Kv,
        params: &'a [Value],
        limit: u64,
        f: impl FnOnce(&ExecCtx<'a>) -> R,
    ) -> R {
        let mut f = Some(f);
        let mut out = None;
        with_new_ctx(kv, params, limit, &mut |ctx| {
            if let Some(f) = f.take() {
                out = Some(f(ctx));
            }
        });
        match out {
            Some(out) => out,
            None => unreachable!("with_new_ctx calls its closure once"),
        }
    }

    /// Charges `bytes` of materialized intermediate results to the
    /// statement; fails once the total passes the batch limit.
    pub(crate) fn charge(&self, bytes: u64) -> Result<()> {
        self.budget().charge(bytes)
    }

    /// The statement's budget (made now if nothing has used it yet).
    pub(crate) fn budget(&self) -> &Rc<Budget> {
        self.budget.get_or_init(|| Rc::new(Budget::new(self.limit)))
    }

    /// A sorter charging this statement and spilling to its temp space.
    pub(crate) fn sorter(&self, order: spill::SortOrder, keep: Option<usize>) -> spill::Sorter {
        spill::Sorter::new(order, keep, self.budget().clone(), self.temp.clone())
    }
}

/// [`ExecCtx::scoped`]'s one copy of a context's making and dropping.
#[inline(never)]
fn with_new_ctx<'a>(
    kv: &'a dyn Kv,
    params: &'a [Value],
    limit: u64,
    f: &mut dyn FnMut(&ExecCtx<'a>),
) {
    f(&ExecCtx::new(kv, params, limit));
}

/// Approximate in-memory size of a row, for [`ExecCtx::charge`].
pub(crate) fn row_size(row: &[Value]) -> u64 {
    row.iter()
        .map(|v| match v {
            Value::Text(s) => 24 + s.len() as u64,
            Value::Blob(b) => 24 + b.len() as u64,
            _ => 16,
        })
        .sum::<u64>()
        + 24
}
