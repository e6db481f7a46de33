//! The bound, planned form of a statement: what the binder and planner
//! produce and the executor runs.
//!
//! Row layout: a SELECT core's FROM clause produces one flat row, the
//! concatenation of every FROM item's columns in FROM order (a table item
//! contributes its columns followed by its rowid). The join order may
//! differ from FROM order; slots stay where FROM order put them. A
//! [`Expr::Column`] names a slot of the row `level` scopes out (0 is the
//! current query, 1 the query enclosing a subquery, ...).

use std::rc::Rc;

use crate::sql::ast;
use crate::sql::catalog::{Catalog, Index, Table};
use crate::sql::value::{Affinity, BinaryOp as ArithOp, Collation, Value};

/// A bound expression.
#[derive(Clone, Debug)]
pub(crate) enum Expr {
    Literal(Value),
    /// `RAISE(...)` in a trigger's statement: evaluating it fails the
    /// statement (`exec::trigger::raise`).
    Raise(crate::sql::ast::RaiseAction, Option<String>),
    /// A slot of a row in scope (see the module doc).
    Column {
        level: usize,
        index: usize,
    },
    /// A parameter, 0-based.
    Param(usize),
    Unary(ast::UnaryOp, Box<Expr>),
    /// AND / OR (three-valued).
    Logic {
        and: bool,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// A comparison: `=, <>, <, <=, >, >=, IS, IS NOT`, with the affinity to
    /// apply to each operand and the collation (SQLite's rules, decided at
    /// bind time).
    Compare {
        op: ast::BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
        cmp: CmpInfo,
    },
    /// A comparison of two row values (a row or a subquery's columns on
    /// each side, as wide): `cmp` for each pair of items.
    CompareRows {
        op: ast::BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
        cmp: Vec<CmpInfo>,
    },
    /// Arithmetic, bitwise and concatenation operators.
    Arith {
        op: ArithOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    IsNull {
        negated: bool,
        expr: Box<Expr>,
    },
    Like {
        op: ast::LikeOp,
        negated: bool,
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
    },
    Between {
        negated: bool,
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        low_cmp: CmpInfo,
        high_cmp: CmpInfo,
    },
    InList {
        negated: bool,
        expr: Box<Expr>,
        list: Vec<Expr>,
        cmp: Vec<CmpInfo>,
    },
    /// `expr IN (subquery)`; `expr` may be a row value.
    InQuery {
        negated: bool,
        expr: Box<Expr>,
        query: Rc<SubqueryPlan>,
        cmp: Vec<CmpInfo>,
    },
    Exists(Rc<SubqueryPlan>),
    /// A scalar subquery (its first row's values; a row value when it has
    /// several columns).
    Scalar(Rc<SubqueryPlan>),
    Case {
        operand: Option<Box<Expr>>,
        when_then: Vec<(Expr, Expr)>,
        else_expr: Option<Box<Expr>>,
        /// With an operand, how it compares with each WHEN value (one per
        /// pair, as `operand = value` would: each WHEN brings its own
        /// affinity and collation); empty without one.
        cmp: Vec<CmpInfo>,
    },
    Cast {
        expr: Box<Expr>,
        affinity: Affinity,
    },
    /// A scalar function call: what it runs, resolved from its name when
    /// it was bound.
    Function {
        callee: crate::sql::exec::builtin::Callee,
        args: Vec<Expr>,
        /// The collation its comparisons use (`min`, `max`, `nullif`):
        /// its first argument's that has one (SQLite's rule), else BINARY.
        collation: Collation,
    },
    /// The value of aggregate number `n` of the current core.
    Aggregate(usize),
    /// The value of window function number `n` of the current core.
    Window(usize),
    /// A row value `(a, b, ...)`.
    Row(Vec<Expr>),
}

/// How two operands are compared: the affinity applied to each before
/// comparing, and the collation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CmpInfo {
    pub left_affinity: Option<Affinity>,
    pub right_affinity: Option<Affinity>,
    pub collation: Collation,
}

impl CmpInfo {
    /// No conversion, binary collation.
    pub(crate) const PLAIN: CmpInfo = CmpInfo {
        left_affinity: None,
        right_affinity: None,
        collation: Collation::Binary,
    };
}

/// A subquery with its plan and whether it reads the enclosing rows.
#[derive(Debug)]
pub(crate) struct SubqueryPlan {
    /// Unique within a statement: the key of its cached result.
    pub id: usize,
    pub query: Query,
    /// True when it references a column of an enclosing query; otherwise
    /// its result is computed once per statement execution.
    pub correlated: bool,
}

/// A full query: a body (core or compound), ORDER BY, LIMIT/OFFSET.
#[derive(Clone, Debug)]
pub(crate) struct Query {
    pub body: Body,
    /// Sort keys over the body's output columns (which may include hidden
    /// sort-only columns past `columns.len()`).
    pub order_by: Vec<SortKey>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    /// The visible result column names.
    pub columns: Rc<[String]>,
    /// Declared types of the visible columns (empty for expressions).
    pub decl_types: Vec<String>,
}

/// One ORDER BY key over output column `column`.
#[derive(Clone, Debug)]
pub(crate) struct SortKey {
    pub column: usize,
    pub desc: bool,
    pub nulls_first: bool,
    pub collation: Collation,
}

/// What produces a query's rows.
#[derive(Clone, Debug)]
pub(crate) enum Body {
    Core(Box<Core>),
    /// Rows of constant expressions (VALUES).
    Values(Vec<Vec<Expr>>),
    Compound {
        op: ast::CompoundOperator,
        left: Box<Body>,
        right: Box<Body>,
        /// The collation under which UNION, INTERSECT and EXCEPT find
        /// equal rows, per visible column.
        collations: Vec<Collation>,
        /// The query sorts the rows (ORDER BY), so which of equal rows
        /// is kept is SQLite's merge of two sorted sides: for UNION the
        /// right side's first when it has one, else the left side's first;
        /// for INTERSECT and EXCEPT the left side's first. Without, it is
        /// its temporary index's: the last.
        sorted: bool,
    },
    /// A recursive CTE: `initial` then `steps` repeated over the rows the
    /// previous iteration added (read through the CTE's working table):
    /// one step per recursive SELECT (SQLite 3.34 allows several).
    Recursive {
        cte: usize,
        initial: Box<Body>,
        steps: Vec<Body>,
        union_all: bool,
        /// The collation under which UNION finds equal rows, per column.
        collations: Vec<Collation>,
    },
}

/// One SELECT core.
#[derive(Clone, Debug)]
pub(crate) struct Core {
    pub from: From,
    /// Conjuncts not attached to any join level (only constant ones).
    pub filter: Vec<Expr>,
    pub aggregate: Option<Aggregation>,
    pub windows: Vec<WindowCall>,
    /// Output expressions: visible columns, then hidden sort columns.
    pub output: Vec<Expr>,
    /// Number of visible columns.
    pub visible: usize,
    pub distinct: bool,
    /// Collation of each visible column (DISTINCT compares by it).
    pub collations: Vec<Collation>,
}

impl Core {
    /// A core that only finds the FROM clause's rows (an UPDATE's or a
    /// DELETE's scan): no output, aggregate or window.
    pub(crate) fn rows_of(from: From, filter: Vec<Expr>) -> Core {
        Core {
            from,
            filter,
            aggregate: None,
            windows: Vec::new(),
            output: Vec::new(),
            visible: 0,
            distinct: false,
            collations: Vec::new(),
        }
    }
}

/// GROUP BY, aggregates and HAVING of a core.
#[derive(Clone, Debug)]
pub(crate) struct Aggregation {
    pub group_by: Vec<Expr>,
    /// Collation of each GROUP BY term (groups compare by it).
    pub group_collations: Vec<Collation>,
    pub calls: Vec<AggCall>,
    pub having: Option<Expr>,
}

/// One aggregate function call.
#[derive(Clone, Debug)]
pub(crate) struct AggCall {
    /// Lowercase function name.
    pub name: String,
    pub args: Vec<Expr>,
    pub distinct: bool,
    /// `count(*)`.
    pub star: bool,
    pub filter: Option<Expr>,
    /// Collation for DISTINCT/min/max comparisons (of the first argument).
    pub collation: Collation,
    /// The call's own ORDER BY (`group_concat(x ORDER BY y DESC)`): terms
    /// as a window's (expression, descending, NULLs first, collation);
    /// the rows are stepped in this order. Empty when not written, and for
    /// `min` / `max`, whose result no order changes (SQLite ignores it).
    pub order_by: Vec<(Expr, bool, bool, Collation)>,
    /// DISTINCT whose one ORDER BY term is its argument: SQLite then keeps
    /// the last of equal values (its sorter replaces equal keys) where
    /// DISTINCT alone keeps the first.
    pub order_distinct_last: bool,
}

/// One window function call.
#[derive(Clone, Debug)]
pub(crate) struct WindowCall {
    pub name: String,
    pub args: Vec<Expr>,
    pub partition_by: Vec<Expr>,
    /// Each PARTITION BY term's collation: rows equal under it share a
    /// partition.
    pub partition_collations: Vec<Collation>,
    pub order_by: Vec<(Expr, bool, bool, Collation)>,
    pub frame: Frame,
    pub filter: Option<Expr>,
    pub star: bool,
    /// Collation for min/max comparisons (of the first argument).
    pub collation: Collation,
}

/// The window functions that are not aggregates.
pub(crate) const WINDOW_ONLY: [&str; 11] = [
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
];

impl WindowCall {
    /// True for an aggregate used as a window function.
    pub fn is_aggregate(&self) -> bool {
        !WINDOW_ONLY.contains(&self.name.as_str())
    }
}

/// A window frame, with bounds already bound.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub units: ast::FrameUnits,
    pub start: FrameBound,
    pub end: FrameBound,
    pub exclude: ast::FrameExclude,
}

/// One end of a frame.
#[derive(Clone, Debug)]
pub(crate) enum FrameBound {
    UnboundedPreceding,
    Preceding(Expr),
    CurrentRow,
    Following(Expr),
    UnboundedFollowing,
}

/// A FROM clause: its items (in FROM order) and the join plan.
#[derive(Clone, Debug, Default)]
pub(crate) struct From {
    pub items: Vec<FromItem>,
    /// Execution order: one level per item.
    pub levels: Vec<Level>,
    /// Width of the flat row.
    pub width: usize,
}

/// One item of a FROM clause.
#[derive(Clone, Debug)]
pub(crate) struct FromItem {
    /// The name it is referenced by (alias or table name).
    pub name: String,
    pub source: Source,
    /// First slot of the item's columns in the flat row.
    pub offset: usize,
    /// Number of slots (for a table: columns + 1 for the rowid).
    pub width: usize,
    /// Joined with LEFT JOIN semantics (a LEFT or FULL join's right
    /// operand).
    pub left_join: bool,
    /// A RIGHT or FULL join's right operand: once every row of the items
    /// before it is joined, each of its rows that no such row matched
    /// (by the ON conditions) is joined with NULLs for them. Its rows are
    /// told apart by its last slot: the rowid, or (a subquery) a row
    /// number the executor appends.
    pub right_join: bool,
    /// Estimated number of rows (the planner's statistics).
    pub rows: f64,
    /// The table's indexes (empty for other sources), with their key
    /// expressions bound at this item's slots.
    pub indexes: Vec<IndexInfo>,
    /// Which of the item's slots the query reads (for covering indexes);
    /// all true when unknown.
    pub used: Vec<bool>,
    /// Which slots the query reads outside its WHERE and ON conjuncts
    /// (result columns, ORDER BY, GROUP BY, HAVING, aggregates, windows);
    /// all true when unknown. [`super::join::plan_from`] uses it to tell
    /// whether dropping the conjuncts an index enforces exactly lets the
    /// index cover the item.
    pub used_outside: Vec<bool>,
}

/// An index of a FROM item's table, bound at the item's slots so the
/// planner can match conjuncts against its key expressions structurally.
#[derive(Clone, Debug)]
pub(crate) struct IndexInfo {
    pub index: Rc<Index>,
    /// Each key column as a bound expression (plain columns included).
    pub exprs: Vec<Expr>,
    /// The partial-index predicate's conjuncts, bound.
    pub predicate: Vec<Expr>,
}

/// The structural identity of a bound expression (its debug form), used to
/// match a conjunct's operand with an index's key expression.
pub(crate) fn expr_key(e: &Expr) -> String {
    format!("{e:?}")
}

/// Where a FROM item's rows come from.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    Table(Rc<Table>),
    /// A subquery, view or non-recursive CTE: materialized once per
    /// execution of the core (or per outer row when correlated).
    Query {
        query: Rc<SubqueryPlan>,
    },
    /// The working table of recursive CTE number `n`.
    CteWorking(usize),
    /// A table-valued function: its rows are made from the arguments,
    /// which may read the items bound before it (the planner binds the
    /// items they read first) and the enclosing queries.
    Function {
        function: TableFunction,
        args: Vec<Expr>,
    },
}

impl Source {
    /// How many of the item's last columns (before its rowid) are hidden:
    /// named as any other but left out of `*` and NATURAL joins.
    pub(crate) fn hidden_columns(&self) -> usize {
        match self {
            Source::Function { function, .. } => function.hidden_columns(),
            _ => 0,
        }
    }
}

/// The table-valued functions of FROM.
#[derive(Clone)]
pub(crate) enum TableFunction {
    /// `json_each(json [, path])`, or `json_tree` when `tree`. Its
    /// columns are `key, value, type, atom, id, parent, fullkey, path`,
    /// the hidden `json` and `root`, then the rowid (the row's number).
    Json { tree: bool },
    /// `pragma_<name>([arg [, schema]])`: the rows of the schema PRAGMA
    /// `name` (`exec::pragma`), read from the catalog the statement was
    /// planned against (a plan lives only while that catalog is current).
    /// Its columns are the PRAGMA's, then, for one taking an argument, the
    /// hidden `arg` and `schema`, then the rowid.
    Pragma {
        name: &'static str,
        catalog: Rc<Catalog>,
    },
    /// The table `sqlite_sequence` (`name`, `seq`): AUTOINCREMENT's
    /// sequences (`exec::sequence`), read when the statement runs.
    Sequence,
}

impl TableFunction {
    /// The function's name, as messages show it.
    pub(crate) fn name(&self) -> String {
        match self {
            TableFunction::Json { tree: false } => "json_each".to_string(),
            TableFunction::Json { tree: true } => "json_tree".to_string(),
            TableFunction::Pragma { name, .. } => format!("pragma_{name}"),
            TableFunction::Sequence => "sqlite_sequence".to_string(),
        }
    }

    /// See [`Source::hidden_columns`].
    pub(crate) fn hidden_columns(&self) -> usize {
        match self {
            TableFunction::Json { .. } => 2,
            TableFunction::Sequence => 0,
            TableFunction::Pragma { name, .. } => {
                crate::sql::exec::pragma::hidden_columns(name).len()
            }
        }
    }
}

// By name: a plan's debug form (see `expr_key`) does not print a catalog.
impl std::fmt::Debug for TableFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// One level of the nested-loop join.
#[derive(Clone, Debug)]
pub(crate) struct Level {
    /// The FROM item this level binds.
    pub item: usize,
    pub access: Access,
    /// For a LEFT JOIN item: the ON conjuncts deciding whether a row
    /// matches. For other items: empty.
    pub on: Vec<Expr>,
    /// Conjuncts evaluated once this level's row (or NULL row) is bound.
    pub filters: Vec<Expr>,
}

/// How a level finds its candidate rows. Every access path returns a
/// superset of the matching rows; the level's filters decide, so an access
/// path only has to be conservative.
#[derive(Clone, Debug)]
pub(crate) enum Access {
    Scan,
    /// The rows whose rowid equals one of the values.
    RowidEq(Vec<Expr>),
    /// Rowids in a range.
    RowidRange {
        lo: Option<(Expr, bool)>,
        hi: Option<(Expr, bool)>,
    },
    /// An index: equality on a prefix of its columns (each with one or more
    /// candidate values, an IN list), then an optional range on the next.
    Index {
        index: Rc<Index>,
        eq: Vec<Vec<Expr>>,
        /// Affinity applied to each probe value (the column's).
        affinities: Vec<Affinity>,
        lo: Option<(Expr, bool)>,
        hi: Option<(Expr, bool)>,
        /// The range is a LIKE / GLOB prefix's (`access::like_term`): its
        /// text bounds are scanned again as blobs.
        blobs_too: bool,
        /// Every column the query needs is in the index.
        covering: bool,
        /// The [`expr_key`]s of the conjuncts `target = value` and `target
        /// IN (values)` (a column, or an indexed expression) that this
        /// access's equality prefix enforces exactly: every key it finds
        /// satisfies them, so an inner join level drops them from its
        /// filters ([`super::join::plan_from`]). Why a key found for a
        /// value satisfies `target = value` (and so the IN list holding it):
        /// - the seek compares under the conjunct's collation and converts
        ///   the value as the comparison does (`value::compare_with_affinity`),
        ///   and it is used only when that conversion leaves the stored
        ///   values as they are (`access::index_conversion`): numeric
        ///   affinity on a numeric column (whose text values are never
        ///   numbers: storing converts those), text affinity on a text
        ///   column (which stores no numbers), or none at all; an indexed
        ///   expression's values have no affinity, so only an unconverted
        ///   comparison qualifies;
        /// - keys are equal exactly when their values compare equal under
        ///   the key column's collation (`keycode`: 1 and 1.0 encode
        ///   alike, distinct numbers never do, text is encoded in its
        ///   collation's sort form);
        /// - a NULL value seeks nothing, and `=` with NULL is never true.
        ///
        /// Every other access path is only a superset (the level's
        /// filters decide).
        exact: Vec<String>,
    },
    /// Hash join: the item's rows are hashed once by their `build` columns
    /// (column numbers within the item); each probe looks up the converted
    /// `probe` values (SQLite's equality: 1 and 1.0 are one key, text by
    /// collation).
    ///
    /// `filters`: conjuncts that read only this item (and constants),
    /// applied while the rows are hashed, so rows that could never pass
    /// are not kept. They stay among the level's conjuncts too: dropping
    /// a row early cannot change a result, only its memory.
    ///
    /// `fallback`: the per-probe path (an index or the rowid) to use
    /// instead when the item's rows do not fit a quarter of the batch
    /// limit; set when the planner chose the hash over it
    /// ([`super::access::hash_instead`]).
    Hash {
        build: Vec<usize>,
        probe: Vec<Expr>,
        affinities: Vec<Affinity>,
        collations: Vec<Collation>,
        filters: Vec<Expr>,
        fallback: Option<Box<Access>>,
    },
}

impl Access {
    /// Calls `f` for every expression the access path evaluates: probe
    /// values and bounds, a hash's probe values and build filters, and its
    /// fallback's. They read the slots of the items bound before (a hash's
    /// build filters, its own item's).
    pub(crate) fn for_each_expr(&self, f: &mut dyn FnMut(&Expr)) {
        let bounds =
            |lo: &Option<(Expr, bool)>, hi: &Option<(Expr, bool)>, f: &mut dyn FnMut(&Expr)| {
                lo.iter().chain(hi).for_each(|(e, _)| f(e));
            };
        match self {
            Access::Scan => {}
            Access::RowidEq(values) => values.iter().for_each(f),
            Access::RowidRange { lo, hi } => bounds(lo, hi, f),
            Access::Index { eq, lo, hi, .. } => {
                eq.iter().flatten().for_each(&mut *f);
                bounds(lo, hi, f);
            }
            Access::Hash {
                probe,
                filters,
                fallback,
                ..
            } => {
                probe.iter().chain(filters).for_each(&mut *f);
                if let Some(fb) = fallback {
                    fb.for_each_expr(f);
                }
            }
        }
    }
}

/// Calls `f(slot)` for every column reference of `e` to the current
/// query's row (level 0), including references from inside correlated
/// subqueries. The planner uses it to find which FROM items a conjunct
/// needs.
pub(crate) fn local_slots(e: &Expr, f: &mut dyn FnMut(usize)) {
    walk(e, 0, f);
}

/// The slots of the query `level` scopes out that `e` reads ([`local_slots`]
/// is level 0).
pub(crate) fn slots_at(e: &Expr, level: usize, f: &mut dyn FnMut(usize)) {
    walk(e, level, f);
}

/// Walks `e` as seen from `level` scopes inside the current query.
fn walk(e: &Expr, level: usize, f: &mut dyn FnMut(usize)) {
    match e {
        Expr::Literal(_)
        | Expr::Param(_)
        | Expr::Aggregate(_)
        | Expr::Window(_)
        | Expr::Raise(..) => {}
        Expr::Column { level: l, index } => {
            if *l == level {
                f(*index)
            }
        }
        Expr::Unary(_, a) | Expr::Cast { expr: a, .. } | Expr::IsNull { expr: a, .. } => {
            walk(a, level, f)
        }
        Expr::Logic { left, right, .. }
        | Expr::Compare { left, right, .. }
        | Expr::CompareRows { left, right, .. }
        | Expr::Arith { left, right, .. } => {
            walk(left, level, f);
            walk(right, level, f);
        }
        Expr::Like {
            expr,
            pattern,
            escape,
            ..
        } => {
            walk(expr, level, f);
            walk(pattern, level, f);
            if let Some(x) = escape {
                walk(x, level, f);
            }
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            walk(expr, level, f);
            walk(low, level, f);
            walk(high, level, f);
        }
        Expr::InList { expr, list, .. } => {
            walk(expr, level, f);
            list.iter().for_each(|x| walk(x, level, f));
        }
        Expr::InQuery { expr, query, .. } => {
            walk(expr, level, f);
            if query.correlated {
                walk_query(&query.query, level + 1, f);
            }
        }
        Expr::Exists(q) | Expr::Scalar(q) => {
            if q.correlated {
                walk_query(&q.query, level + 1, f);
            }
        }
        Expr::Case {
            operand,
            when_then,
            else_expr,
            ..
        } => {
            if let Some(x) = operand {
                walk(x, level, f);
            }
            for (w, t) in when_then {
                walk(w, level, f);
                walk(t, level, f);
            }
            if let Some(x) = else_expr {
                walk(x, level, f);
            }
        }
        Expr::Function { args, .. } | Expr::Row(args) => {
            args.iter().for_each(|x| walk(x, level, f))
        }
    }
}

/// Walks every expression of a query (conservatively: all of them).
fn walk_query(q: &Query, level: usize, f: &mut dyn FnMut(usize)) {
    walk_body(&q.body, level, f);
    for x in q.limit.iter().chain(q.offset.iter()) {
        walk(x, level, f);
    }
}

fn walk_body(b: &Body, level: usize, f: &mut dyn FnMut(usize)) {
    match b {
        Body::Core(c) => {
            for item in &c.from.items {
                match &item.source {
                    // A FROM item's subquery reads the rows outside its core
                    // at the levels its core does.
                    Source::Query { query } if query.correlated => {
                        walk_query(&query.query, level, f)
                    }
                    Source::Function { args, .. } => args.iter().for_each(|x| walk(x, level, f)),
                    _ => {}
                }
            }
            for lv in &c.from.levels {
                lv.on
                    .iter()
                    .chain(lv.filters.iter())
                    .for_each(|x| walk(x, level, f));
                lv.access.for_each_expr(&mut |x| walk(x, level, f));
            }
            c.filter
                .iter()
                .chain(c.output.iter())
                .for_each(|x| walk(x, level, f));
            if let Some(a) = &c.aggregate {
                a.group_by
                    .iter()
                    .chain(a.having.iter())
                    .for_each(|x| walk(x, level, f));
                for call in &a.calls {
                    call.args
                        .iter()
                        .chain(call.filter.iter())
                        .chain(call.order_by.iter().map(|(x, ..)| x))
                        .for_each(|x| walk(x, level, f));
                }
            }
            for w in &c.windows {
                w.args
                    .iter()
                    .chain(w.partition_by.iter())
                    .for_each(|x| walk(x, level, f));
                w.order_by.iter().for_each(|(x, ..)| walk(x, level, f));
            }
        }
        Body::Values(rows) => rows.iter().flatten().for_each(|x| walk(x, level, f)),
        Body::Compound { left, right, .. } => {
            walk_body(left, level, f);
            walk_body(right, level, f);
        }
        Body::Recursive { initial, steps, .. } => {
            walk_body(initial, level, f);
            steps.iter().for_each(|s| walk_body(s, level, f));
        }
    }
}
