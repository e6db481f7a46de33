//! The binder: turns a parsed statement into the bound form the executor
//! runs ([`crate::sql::planner::plan`]), resolving every name against the
//! catalog and the enclosing scopes, deciding comparison affinities and
//! collations, and handing each FROM clause to the join planner.
//!
//! - `scope`: name scopes and column resolution.
//! - `expr`: expressions, aggregate and scalar function calls.
//! - `select`: queries, cores, ORDER BY, LIMIT.
//! - `from`: FROM clauses: tables, views, CTEs, subqueries, joins.
//! - `window`: window function calls.

pub(crate) mod expr;
pub(crate) mod from;
pub(crate) mod scope;
pub(crate) mod select;
mod window;

use crate::sql::ast;
use crate::sql::catalog::Catalog;

use self::scope::ScopeColumn;

/// A common table expression visible to the query being bound.
#[derive(Clone, Debug)]
pub(crate) struct CteDef {
    pub name: String,
    pub columns: Vec<String>,
    pub select: ast::Select,
    /// Id of the working table when recursive.
    pub id: usize,
    /// Whether its body is SQLite's recursive shape (see
    /// [`select::is_recursive_cte`]); the RECURSIVE keyword does not
    /// matter, as in SQLite.
    pub recursive: bool,
    /// While its own body (a recursive one's initial SELECTs) is bound:
    /// the error a reference to it gives there, SQLite's "circular
    /// reference". A CTE's name hides a table of that name in its body.
    pub refused: Option<&'static str>,
    /// While binding the recursive step: the working table's columns, and
    /// the [`Binder::depth`] of the step's own FROM clause, the only place
    /// that may name it (SQLite refuses a reference from a subquery).
    pub working: Option<(Vec<ScopeColumn>, usize)>,
    /// The end of its WITH clause in [`Binder::ctes`]: its body sees every
    /// CTE of that clause, those after it too, as SQLite's does.
    pub with_end: usize,
}

/// A fresh id for a subquery or CTE. Ids key the executor's per-statement
/// caches of uncorrelated subquery results, so they must be unique across
/// every binder a statement uses (DML binds its WHERE, SET, RETURNING and
/// index expressions separately): one process-wide counter.
pub(crate) fn next_plan_id() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The most views a query may expand inside each other. A query nests
/// each view's query as a subquery, and the parser's stack bound lets one
/// statement nest about 50 subqueries in FROM; SQLite has no such bound.
pub(crate) const MAX_VIEW_DEPTH: usize = 32;

/// Binds statements against one catalog.
pub(crate) struct Binder<'c> {
    pub catalog: &'c Catalog,
    /// Highest parameter index seen (1-based count).
    pub param_count: usize,
    pub ctes: Vec<CteDef>,
    /// The views being expanded, outermost first (their keys): one among
    /// them again is a cycle, and at most [`MAX_VIEW_DEPTH`] nest.
    views: Vec<String>,
    /// CTEs and views being expanded, the stack address where the first
    /// began, and its name ([`Binder::enter_expansion`]).
    expansions: (usize, usize, String),
    /// Row count of a table's tree, for the planner's estimates.
    pub stats: Option<&'c dyn Fn(&str) -> u64>,
    /// Result aliases being expanded (lower-cased): an alias met again
    /// inside its own expansion (`SELECT a = b AS b`, or a cycle through
    /// several aliases) is not expanded again, so binding cannot recurse
    /// without end.
    expanding_aliases: Vec<String>,
    /// In a trigger's statements, the row `NEW.c` / `OLD.c` name.
    pub trigger: Option<crate::sql::exec::trigger::RowContext>,
    /// How many queries the one being bound is nested in (subqueries, CTE
    /// and view bodies).
    depth: usize,
}

impl<'c> Binder<'c> {
    pub(crate) fn new(catalog: &'c Catalog) -> Binder<'c> {
        Binder {
            catalog,
            param_count: 0,
            ctes: Vec::new(),
            views: Vec::new(),
            expansions: (0, 0, String::new()),
            stats: None,
            expanding_aliases: Vec::new(),
            trigger: crate::sql::exec::trigger::binding(),
            depth: 0,
        }
    }

    /// Enters the binding of a CTE's or a view's query where `name` reads
    /// it. Each nests a subquery, so a chain of them (`c2` reading `c1`
    /// reading ...) recurses once per link, here and when it runs: past
    /// the stack bound triggers share (`sql::nesting::stack_exhausted`)
    /// it fails instead of overflowing the stack. Paired with
    /// [`Binder::leave_expansion`].
    fn enter_expansion(&mut self, name: &str) -> crate::Result<()> {
        if self.expansions.0 == 0 {
            self.expansions = (0, crate::sql::nesting::stack_address(), name.to_string());
        }
        if crate::sql::nesting::stack_exhausted(self.expansions.1) {
            return Err(crate::sql_err!(
                "{} nests too many CTEs or views inside each other",
                self.expansions.2
            ));
        }
        self.expansions.0 += 1;
        Ok(())
    }

    fn leave_expansion(&mut self) {
        self.expansions.0 = self.expansions.0.saturating_sub(1);
    }

    /// Binds as inside view `name`, which counts toward [`MAX_VIEW_DEPTH`]
    /// as it will when read (for CREATE VIEW's check of its query).
    pub(crate) fn inside_view(mut self, name: &str) -> Self {
        self.views.push(crate::sql::catalog::key(name));
        self
    }
}
