//! Binding expressions: names to row slots, operators to their bound form
//! with SQLite's comparison affinity and collation decided once, aggregate
//! and window calls to slots of their core.

use std::rc::Rc;

use super::scope::Scope;
use super::select::ColumnTypes;
use super::Binder;
use crate::sql::ast::{self, BinaryOp, ExprKind};
use crate::sql::catalog::collation_by_name;
use crate::sql::exec::builtin::Callee;
use crate::sql::planner::plan::{AggCall, CmpInfo, Expr, SubqueryPlan, WindowCall};
use crate::sql::value::{Affinity, BinaryOp as ArithOp, Collation, Value};
use crate::{sql_err, Error, Result};

/// Where a bound expression's collation comes from (SQLite's precedence:
/// an explicit COLLATE beats a column's collation beats BINARY).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CollSource {
    None,
    Column(Collation),
    Explicit(Collation),
}

impl CollSource {
    /// The collation, BINARY when there is none.
    pub(crate) fn or_binary(self) -> Collation {
        match self {
            CollSource::Explicit(c) | CollSource::Column(c) => c,
            CollSource::None => Collation::Binary,
        }
    }

    /// `self` if it is an explicit COLLATE, else `next` if that is one,
    /// else none. Folded over an expression's operands in order, from
    /// `None`, it gives the first explicit COLLATE among them: SQLite's
    /// `sqlite3ExprCollSeq` carries an explicit COLLATE up through every
    /// operator, and a column's collation only through CAST and unary `+`.
    fn explicit_or(self, next: CollSource) -> CollSource {
        match (self, next) {
            (CollSource::Explicit(_), _) => self,
            (_, CollSource::Explicit(_)) => next,
            _ => CollSource::None,
        }
    }
}

/// What one item of a row value compares with: its affinity and collation.
type ItemType = (Option<Affinity>, CollSource);

/// A bound expression with its affinity and collation.
#[derive(Clone, Debug)]
pub(crate) struct Bound {
    pub expr: Expr,
    /// `None`: no affinity.
    pub aff: Option<Affinity>,
    pub coll: CollSource,
    /// The declared type when the expression is a plain column.
    pub decl_type: Option<String>,
}

impl Bound {
    fn plain(expr: Expr) -> Bound {
        Bound {
            expr,
            aff: None,
            coll: CollSource::None,
            decl_type: None,
        }
    }
}

/// What aggregate / window calls may appear where an expression is bound,
/// and where they are collected.
#[derive(Debug, Default)]
pub(crate) struct AggCtx {
    /// Aggregates are allowed (projection, HAVING, ORDER BY of an
    /// aggregate core).
    pub allowed: bool,
    /// Window functions are allowed (projection, ORDER BY).
    pub windows_allowed: bool,
    pub calls: Vec<AggCall>,
    pub windows: Vec<WindowCall>,
    /// Named windows of the core (`WINDOW w AS (...)`).
    pub named: Vec<ast::NamedWindow>,
    /// Inside an aggregate's arguments (nesting is an error).
    pub(crate) inside: bool,
}

/// The collation of a comparison between two operands.
pub(crate) fn comparison_collation(l: CollSource, r: CollSource) -> Collation {
    match (l, r) {
        (CollSource::Explicit(c), _) | (_, CollSource::Explicit(c)) => c,
        (CollSource::Column(c), _) | (_, CollSource::Column(c)) => c,
        _ => Collation::Binary,
    }
}

/// How two items of row values compare (as `a = b` would).
fn item_cmp(a: ItemType, b: ItemType) -> CmpInfo {
    CmpInfo {
        left_affinity: a.0,
        right_affinity: b.0,
        collation: comparison_collation(a.1, b.1),
    }
}

fn cmp_info(l: &Bound, r: &Bound) -> CmpInfo {
    item_cmp((l.aff, l.coll), (r.aff, r.coll))
}

/// The names SQLite treats as aggregate functions (when called without
/// OVER; `min`/`max` only with one argument).
pub(crate) fn is_aggregate_name(name: &str, nargs: usize) -> bool {
    match name.to_ascii_lowercase().as_str() {
        "count" | "sum" | "total" | "avg" | "group_concat" | "string_agg" | "json_group_array"
        | "json_group_object" | "jsonb_group_array" | "jsonb_group_object" => true,
        "min" | "max" => nargs == 1,
        _ => false,
    }
}

/// `callee` with, for a JSON function, the arguments that always carry
/// SQLite's JSON subtype marked: the values of `json_group_array` and
/// `json_group_object`, as aggregates or window functions (and of their
/// jsonb_* forms, whose only text value, `[]` or `{}` for no rows, has it).
fn json_callee(callee: Callee, args: &[Expr], agg: &AggCtx) -> Callee {
    let Callee::Json { f, .. } = callee else {
        return callee;
    };
    let is_json = |name: &str| {
        matches!(
            name,
            "json_group_array" | "json_group_object" | "jsonb_group_array" | "jsonb_group_object"
        )
    };
    let mut json_args = 0u32;
    for (i, a) in args.iter().enumerate().take(32) {
        let json = match a {
            Expr::Aggregate(n) => agg.calls.get(*n).is_some_and(|c| is_json(&c.name)),
            Expr::Window(n) => agg.windows.get(*n).is_some_and(|w| is_json(&w.name)),
            _ => false,
        };
        if json {
            json_args |= 1 << i;
        }
    }
    Callee::Json { f, json_args }
}

/// Refuses an aggregate whose arguments (FILTER and ORDER BY included)
/// read columns of enclosing queries and none of its own. SQLite makes such
/// an aggregate one of the enclosing query's (`SELECT (SELECT sum(t.a)) FROM
/// t` is one row, the sum over `t`); the binder has bound its query
/// already, so it fails here rather than compute it per row (wrong rows).
fn check_aggregate_reads_its_query(call: &AggCall, depth: usize) -> Result<()> {
    let exprs = || {
        call.args
            .iter()
            .chain(call.filter.iter())
            .chain(call.order_by.iter().map(|(e, ..)| e))
    };
    let reads_at = |level: usize| {
        let mut hit = false;
        for e in exprs() {
            crate::sql::planner::plan::slots_at(e, level, &mut |_| hit = true);
        }
        hit
    };
    if !reads_at(0) && (1..=depth).any(reads_at) {
        return Err(sql_err!(
            "{}() over only an enclosing query's columns is not supported (SQLite makes it an aggregate of that query)",
            call.name
        ));
    }
    Ok(())
}

/// Whether an expression contains an aggregate call of its own query
/// (subqueries are not searched).
pub(crate) fn contains_aggregate(e: &ast::Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        if let ExprKind::Function(f) = &x.kind {
            if f.over.is_none() && (f.star || is_aggregate_name(&f.name, f.args.len())) {
                found = true;
            }
        }
    });
    found
}

/// Whether an expression contains a subquery (or `IN table`): whether
/// evaluating it may read a table.
pub(crate) fn contains_subquery(e: &ast::Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        if matches!(
            x.kind,
            ExprKind::Exists(_)
                | ExprKind::Subquery(_)
                | ExprKind::InSelect { .. }
                | ExprKind::InTable { .. }
        ) {
            found = true;
        }
    });
    found
}

/// Defines a walk over an expression and its sub-expressions (not
/// entering subqueries), by shared or by mutable reference: one body for
/// [`visit`] and [`visit_mut`].
macro_rules! expr_walk {
    ($(#[$doc:meta])* $name:ident, $($m:ident)?) => {
        $(#[$doc])*
        pub(crate) fn $name(e: &$($m)? ast::Expr, f: &mut dyn FnMut(&$($m)? ast::Expr)) {
            f(e);
            match &$($m)? e.kind {
                ExprKind::Literal(_) | ExprKind::Param { .. } | ExprKind::Column(_) => {}
                ExprKind::Exists(_) | ExprKind::Subquery(_) | ExprKind::Raise { .. } => {}
                ExprKind::Unary { expr, .. }
                | ExprKind::IsNull { expr, .. }
                | ExprKind::Cast { expr, .. }
                | ExprKind::Collate { expr, .. }
                | ExprKind::InSelect { expr, .. }
                | ExprKind::InTable { expr, .. } => $name(expr, f),
                ExprKind::Binary { left, right, .. } => {
                    $name(left, f);
                    $name(right, f);
                }
                ExprKind::Like {
                    expr,
                    pattern,
                    escape,
                    ..
                } => {
                    $name(expr, f);
                    $name(pattern, f);
                    if let Some(x) = escape {
                        $name(x, f);
                    }
                }
                ExprKind::Between {
                    expr, low, high, ..
                } => {
                    $name(expr, f);
                    $name(low, f);
                    $name(high, f);
                }
                ExprKind::InList { expr, list, .. } => {
                    $name(expr, f);
                    for x in list {
                        $name(x, f);
                    }
                }
                ExprKind::Case {
                    operand,
                    when_then,
                    else_expr,
                } => {
                    if let Some(x) = operand {
                        $name(x, f);
                    }
                    for (w, t) in when_then {
                        $name(w, f);
                        $name(t, f);
                    }
                    if let Some(x) = else_expr {
                        $name(x, f);
                    }
                }
                ExprKind::Function(call) => {
                    for x in &$($m)? call.args {
                        $name(x, f);
                    }
                    if let Some(x) = &$($m)? call.filter {
                        $name(x, f);
                    }
                    for t in &$($m)? call.order_by {
                        $name(&$($m)? t.expr, f);
                    }
                }
                ExprKind::Row(list) => {
                    for x in list {
                        $name(x, f);
                    }
                }
            }
        }
    };
}

expr_walk!(
    /// Calls `f` on `e` and every sub-expression, not entering subqueries.
    visit,
);
expr_walk!(
    /// [`visit`], with each expression mutable (`f` sees a node before
    /// its sub-expressions).
    visit_mut,
    mut
);

/// A literal's value (never one of the CURRENT_TIME kind, which are bound
/// as calls).
pub(crate) fn literal(l: &ast::Literal) -> Value {
    match l {
        ast::Literal::Null => Value::Null,
        ast::Literal::Integer(i) => Value::Integer(*i),
        ast::Literal::Real(r) => Value::Real(*r),
        ast::Literal::Text(s) => Value::Text(s.clone()),
        ast::Literal::Blob(b) => Value::Blob(b.clone()),
        ast::Literal::Bool(b) => Value::Integer(i64::from(*b)),
        // Never reached: `bind_kind` turns these into function calls.
        ast::Literal::CurrentTime | ast::Literal::CurrentDate | ast::Literal::CurrentTimestamp => {
            Value::Null
        }
    }
}

/// `CURRENT_TIME`/`CURRENT_DATE`/`CURRENT_TIMESTAMP` as the equivalent
/// date function call, evaluated per statement like SQLite.
fn current_time_call(l: &ast::Literal) -> Option<Expr> {
    let (name, fmt) = match l {
        ast::Literal::CurrentTime => ("time", "now"),
        ast::Literal::CurrentDate => ("date", "now"),
        ast::Literal::CurrentTimestamp => ("datetime", "now"),
        _ => return None,
    };
    let callee = Callee::resolve(name, 1).ok()?;
    Some(Expr::Function {
        callee,
        args: vec![Expr::Literal(Value::Text(fmt.to_string()))],
        collation: Collation::Binary,
    })
}

fn arith_op(op: BinaryOp) -> Option<ArithOp> {
    Some(match op {
        BinaryOp::Add => ArithOp::Add,
        BinaryOp::Sub => ArithOp::Subtract,
        BinaryOp::Mul => ArithOp::Multiply,
        BinaryOp::Div => ArithOp::Divide,
        BinaryOp::Rem => ArithOp::Remainder,
        BinaryOp::BitAnd => ArithOp::BitAnd,
        BinaryOp::BitOr => ArithOp::BitOr,
        BinaryOp::ShiftLeft => ArithOp::ShiftLeft,
        BinaryOp::ShiftRight => ArithOp::ShiftRight,
        BinaryOp::Concat => ArithOp::Concat,
        _ => return None,
    })
}

impl Binder<'_> {
    /// Binds `e` in `scope`.
    pub(crate) fn bind_expr(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        let with_pos = |err: Error| match err {
            Error::Sql {
                message,
                position: None,
            } => Error::Sql {
                message,
                position: Some(e.pos),
            },
            other => other,
        };
        self.bind_kind(e, scope, agg).map_err(with_pos)
    }

    /// Binds `e` and returns only the expression.
    pub(crate) fn bind_plain(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Expr> {
        Ok(self.bind_expr(e, scope, agg)?.expr)
    }

    // One arm per expression kind: keeping the whole AST-to-plan mapping in
    // one match lets the compiler check it is exhaustive; the longer cases
    // (columns, binary operators, LIKE, IN, CASE, calls) have functions of
    // their own, kept out of line. Inlined, they made this one function
    // 19.8 KB of wasm; V8 counts a baseline function's budget for its
    // optimizing tier in bytes of code passed through, so a call through
    // so large a body used it up after a few hundred expressions, and the
    // optimizing compile (16-46 ms in Node 20) then ran on the second core
    // while the statements after it ran, in Node during the mixed
    // transactions (`scripts/inworker-timing/tiering.mjs --workload=mixed`).
    fn bind_kind(&mut self, e: &ast::Expr, scope: &Scope, agg: &mut AggCtx) -> Result<Bound> {
        Ok(match &e.kind {
            ExprKind::Literal(l) => match current_time_call(l) {
                Some(call) => Bound::plain(call),
                None => Bound::plain(Expr::Literal(literal(l))),
            },
            ExprKind::Param { index, .. } => {
                let i = *index as usize;
                self.param_count = self.param_count.max(i);
                Bound::plain(Expr::Param(i.saturating_sub(1)))
            }
            ExprKind::Column(c) => return self.bind_column(c, scope, agg),
            ExprKind::Unary { op, expr } => {
                let inner = self.bind_expr(expr, scope, agg)?;
                let coll = match op {
                    ast::UnaryOp::Plus => inner.coll,
                    _ => inner.coll.explicit_or(CollSource::None),
                };
                Bound {
                    coll,
                    ..Bound::plain(Expr::Unary(*op, Box::new(inner.expr)))
                }
            }
            ExprKind::Binary { op, left, right } => {
                return self.bind_binary(*op, left, right, scope, agg)
            }
            ExprKind::Like {
                op,
                negated,
                expr,
                pattern,
                escape,
            } => {
                return self.bind_like(*op, *negated, expr, pattern, escape.as_deref(), scope, agg)
            }
            ExprKind::Between {
                negated,
                expr,
                low,
                high,
            } => {
                let x = self.bind_expr(expr, scope, agg)?;
                let lo = self.bind_expr(low, scope, agg)?;
                let hi = self.bind_expr(high, scope, agg)?;
                Bound::plain(Expr::Between {
                    negated: *negated,
                    low_cmp: cmp_info(&x, &lo),
                    high_cmp: cmp_info(&x, &hi),
                    expr: Box::new(x.expr),
                    low: Box::new(lo.expr),
                    high: Box::new(hi.expr),
                })
            }
            ExprKind::InList {
                negated,
                expr,
                list,
            } => return self.bind_in_list(*negated, expr, list, scope, agg),
            ExprKind::InSelect {
                negated,
                expr,
                select,
            } => return self.bind_in_select(*negated, expr, select, scope, agg),
            ExprKind::InTable {
                negated,
                expr,
                table,
                args,
            } => {
                if args.is_some() {
                    return Err(sql_err!("no such table-valued function: {}", table.name));
                }
                let select = crate::sql::binder::select::select_star_from(&table.name, e.pos);
                let wrapped = ast::Expr {
                    kind: ExprKind::InSelect {
                        negated: *negated,
                        expr: expr.clone(),
                        select: Box::new(select),
                    },
                    pos: e.pos,
                };
                return self.bind_expr(&wrapped, scope, agg);
            }
            ExprKind::IsNull { negated, expr } => {
                let x = self.bind_plain(expr, scope, agg)?;
                Bound::plain(Expr::IsNull {
                    negated: *negated,
                    expr: Box::new(x),
                })
            }
            ExprKind::Cast { expr, type_name } => {
                let x = self.bind_expr(expr, scope, agg)?;
                let affinity = Affinity::from_declared_type(&type_name.name);
                Bound {
                    expr: Expr::Cast {
                        expr: Box::new(x.expr),
                        affinity,
                    },
                    aff: Some(affinity),
                    // A CAST keeps its operand's collation, as in SQLite:
                    // `CAST(a AS TEXT) = t` compares under a's, not t's.
                    coll: x.coll,
                    decl_type: None,
                }
            }
            ExprKind::Case {
                operand,
                when_then,
                else_expr,
            } => {
                return self.bind_case(
                    operand.as_deref(),
                    when_then,
                    else_expr.as_deref(),
                    scope,
                    agg,
                )
            }
            ExprKind::Exists(select) => {
                let (sub, _) = self.bind_subquery(select, scope)?;
                Bound::plain(Expr::Exists(sub))
            }
            ExprKind::Raise { action, message } => {
                if self.trigger.is_none() {
                    return Err(sql_err!(
                        "RAISE() may only be used within a trigger-program"
                    ));
                }
                Bound::plain(Expr::Raise(*action, message.clone()))
            }
            ExprKind::Subquery(select) => {
                let (sub, types) = self.bind_subquery(select, scope)?;
                // A scalar subquery keeps its column's affinity but no
                // collation (SQLite's `sqlite3ExprCollSeq` has none for it).
                let aff = if sub.query.columns.len() == 1 {
                    types.affinities.first().copied().flatten()
                } else {
                    None
                };
                Bound {
                    expr: Expr::Scalar(sub),
                    aff,
                    coll: CollSource::None,
                    decl_type: None,
                }
            }
            ExprKind::Function(call) => return self.bind_function(call, scope, agg),
            ExprKind::Collate { expr, collation } => {
                let mut b = self.bind_expr(expr, scope, agg)?;
                b.coll = CollSource::Explicit(collation_by_name(collation)?);
                b
            }
            ExprKind::Row(list) => {
                let items = list
                    .iter()
                    .map(|x| self.bind_plain(x, scope, agg))
                    .collect::<Result<Vec<_>>>()?;
                Bound::plain(Expr::Row(items))
            }
        })
    }

    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn bind_like(
        &mut self,
        op: ast::LikeOp,
        negated: bool,
        expr: &ast::Expr,
        pattern: &ast::Expr,
        escape: Option<&ast::Expr>,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        let x = self.bind_plain(expr, scope, agg)?;
        let p = self.bind_plain(pattern, scope, agg)?;
        let esc = match escape {
            Some(x) => Some(Box::new(self.bind_plain(x, scope, agg)?)),
            None => None,
        };
        if matches!(op, ast::LikeOp::Match | ast::LikeOp::Regexp) {
            return Err(sql_err!(
                "no such function: {}",
                if op == ast::LikeOp::Match {
                    "match"
                } else {
                    "regexp"
                }
            ));
        }
        // GLOB is the two-argument glob(): an ESCAPE is a third argument.
        if op == ast::LikeOp::Glob && esc.is_some() {
            return Err(sql_err!("wrong number of arguments to function GLOB()"));
        }
        Ok(Bound::plain(Expr::Like {
            op,
            negated,
            expr: Box::new(x),
            pattern: Box::new(p),
            escape: esc,
        }))
    }

    #[inline(never)]
    fn bind_in_list(
        &mut self,
        negated: bool,
        expr: &ast::Expr,
        list: &[ast::Expr],
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        let x = self.bind_expr(expr, scope, agg)?;
        let mut items = Vec::with_capacity(list.len());
        let mut cmps = Vec::with_capacity(list.len());
        for item in list {
            let b = self.bind_expr(item, scope, agg)?;
            // SQLite compares an IN list with the left operand's affinity
            // and collation only (exprINAffinity, and sqlite3ExprCodeIN's
            // collation): an item's own, even an explicit COLLATE, does
            // not count.
            cmps.push(CmpInfo {
                left_affinity: x.aff,
                right_affinity: None,
                collation: x.coll.or_binary(),
            });
            items.push(b.expr);
        }
        Ok(Bound::plain(Expr::InList {
            negated,
            expr: Box::new(x.expr),
            list: items,
            cmp: cmps,
        }))
    }

    #[inline(never)]
    fn bind_in_select(
        &mut self,
        negated: bool,
        expr: &ast::Expr,
        select: &ast::Select,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        // A row value's items each compare with their column under their
        // own affinity and collation, as `item = column` would.
        let (x, items) = self.bind_row_operand(true, expr, scope, agg)?;
        let width = items.len();
        let (sub, types) = self.bind_subquery(select, scope)?;
        if sub.query.columns.len() != width {
            return Err(sql_err!(
                "sub-select returns {} columns - expected {}",
                sub.query.columns.len(),
                width
            ));
        }
        // The column is taken as the subquery's result expression.
        let cmp = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let column = (
                    types.in_affinities.get(i).copied().flatten(),
                    types
                        .in_collations
                        .get(i)
                        .copied()
                        .unwrap_or(CollSource::None),
                );
                item_cmp(*item, column)
            })
            .collect();
        Ok(Bound::plain(Expr::InQuery {
            negated,
            expr: Box::new(x),
            query: sub,
            cmp,
        }))
    }

    #[inline(never)]
    fn bind_column(
        &mut self,
        c: &ast::ColumnRef,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        if let Some(r) = scope.resolve(c.table.as_deref(), &c.column)? {
            if let Some(e) = r.merged {
                return self.bind_expr(&e, scope, agg);
            }
            let column = |index| Expr::Column {
                level: r.level,
                index,
            };
            if let Some(t) = r.json_type {
                // A json_each value: carries its JSON subtype on.
                return Ok(Bound {
                    expr: Expr::Function {
                        callee: Callee::Json {
                            f: &crate::sql::functions::json::EACH_VALUE,
                            json_args: 0,
                        },
                        args: vec![column(r.slot), column(t)],
                        collation: Collation::Binary,
                    },
                    aff: None,
                    coll: CollSource::Column(Collation::Binary),
                    decl_type: Some(String::new()),
                });
            }
            return Ok(Bound {
                expr: Expr::Column {
                    level: r.level,
                    index: r.slot,
                },
                aff: r.affinity,
                coll: CollSource::Column(r.collation),
                decl_type: Some(r.decl_type),
            });
        }
        if c.table.is_none() {
            if let Some(alias) = scope.alias(&c.column) {
                let name = c.column.to_ascii_lowercase();
                if !self.expanding_aliases.contains(&name) {
                    self.expanding_aliases.push(name);
                    let bound = self.bind_expr(&alias, scope, agg);
                    self.expanding_aliases.pop();
                    return bound;
                }
            }
            if c.double_quoted {
                return Ok(Bound::plain(Expr::Literal(Value::Text(c.column.clone()))));
            }
            return Err(sql_err!("no such column: {}", c.column));
        }
        let t = c.table.as_deref().unwrap_or_default();
        if let Some(row) = self.trigger.as_ref().filter(|_| c.schema.is_none()) {
            if let Some((param, i)) = row.param(t, &c.column)? {
                let (aff, coll, decl) = match row.table.columns.get(i) {
                    Some(col) => (col.affinity, col.collation, col.decl_type.clone()),
                    None => (Affinity::Integer, Collation::Binary, "INTEGER".to_string()),
                };
                return Ok(Bound {
                    expr: Expr::Param(param),
                    aff: Some(aff),
                    coll: CollSource::Column(coll),
                    decl_type: Some(decl),
                });
            }
        }
        Err(sql_err!("no such column: {}.{}", t, c.column))
    }

    #[inline(never)]
    fn bind_binary(
        &mut self,
        op: BinaryOp,
        left: &ast::Expr,
        right: &ast::Expr,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        // `x IS TRUE` / `x IS NOT FALSE` ... are truth tests in SQLite.
        if matches!(op, BinaryOp::Is | BinaryOp::IsNot) {
            if let ExprKind::Literal(ast::Literal::Bool(b)) = right.kind {
                let x = self.bind_plain(left, scope, agg)?;
                let want = b == (op == BinaryOp::Is);
                return Ok(Bound::plain(Expr::Function {
                    callee: Callee::IsTrue(want),
                    args: vec![x],
                    collation: Collation::Binary,
                }));
            }
        }
        if crate::sql::exec::eval::is_comparison(op) {
            return self.bind_comparison(op, left, right, scope, agg);
        }
        let l = self.bind_expr(left, scope, agg)?;
        let r = self.bind_expr(right, scope, agg)?;
        let expr = match op {
            BinaryOp::And | BinaryOp::Or => Expr::Logic {
                and: op == BinaryOp::And,
                left: Box::new(l.expr),
                right: Box::new(r.expr),
            },
            BinaryOp::JsonArrow | BinaryOp::JsonArrow2 => {
                let name = if op == BinaryOp::JsonArrow {
                    "->"
                } else {
                    "->>"
                };
                let args = vec![l.expr, r.expr];
                Expr::Function {
                    callee: json_callee(Callee::resolve(name, 2)?, &args, agg),
                    args,
                    collation: Collation::Binary,
                }
            }
            other => {
                let aop = arith_op(other).ok_or_else(|| sql_err!("unsupported operator"))?;
                Expr::Arith {
                    op: aop,
                    left: Box::new(l.expr),
                    right: Box::new(r.expr),
                }
            }
        };
        // `||` keeps no affinity; an explicit collation carries through.
        Ok(Bound {
            expr,
            aff: None,
            coll: l.coll.explicit_or(r.coll),
            decl_type: None,
        })
    }

    /// A comparison: of two values, or of two row values item by item,
    /// each pair under its own affinities and collation.
    #[inline(never)]
    fn bind_comparison(
        &mut self,
        op: BinaryOp,
        left: &ast::Expr,
        right: &ast::Expr,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        let split = matches!(op, BinaryOp::Eq | BinaryOp::Is);
        let (l, litems) = self.bind_row_operand(!split, left, scope, agg)?;
        let (r, ritems) = self.bind_row_operand(!split, right, scope, agg)?;
        if litems.len() != ritems.len() {
            return Err(sql_err!("row value misused"));
        }
        let mut cmp: Vec<CmpInfo> = litems
            .iter()
            .zip(&ritems)
            .map(|(a, b)| item_cmp(*a, *b))
            .collect();
        if cmp.len() != 1 {
            return Ok(Bound::plain(Expr::CompareRows {
                op,
                left: Box::new(l),
                right: Box::new(r),
                cmp,
            }));
        }
        Ok(Bound {
            coll: litems[0].1.explicit_or(ritems[0].1),
            ..Bound::plain(Expr::Compare {
                op,
                left: Box::new(l),
                right: Box::new(r),
                cmp: cmp.swap_remove(0),
            })
        })
    }

    /// A comparison's operand, and the affinity and collation of each item
    /// it compares: a row value's items, a subquery's columns, or the
    /// operand itself. A subquery of one column is a scalar one, with no
    /// collation; the columns of a wider one have their last SELECT's
    /// expression's when `subquery_collations` (not under `=` and IS, which
    /// SQLite splits into one comparison per column, with no collation,
    /// when they are WHERE terms).
    fn bind_row_operand(
        &mut self,
        subquery_collations: bool,
        e: &ast::Expr,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<(Expr, Vec<ItemType>)> {
        match &e.kind {
            ExprKind::Row(list) => {
                let mut items = Vec::with_capacity(list.len());
                let mut exprs = Vec::with_capacity(list.len());
                for x in list {
                    let b = self.bind_expr(x, scope, agg)?;
                    items.push((b.aff, b.coll));
                    exprs.push(b.expr);
                }
                Ok((Expr::Row(exprs), items))
            }
            ExprKind::Subquery(select) => {
                let (sub, types) = self.bind_subquery(select, scope)?;
                let carried = types.affinities.len() > 1 && subquery_collations;
                let items = types
                    .affinities
                    .iter()
                    .zip(&types.in_collations)
                    .map(|(a, c)| (*a, if carried { *c } else { CollSource::None }))
                    .collect();
                Ok((Expr::Scalar(sub), items))
            }
            _ => {
                let b = self.bind_expr(e, scope, agg)?;
                Ok((b.expr, vec![(b.aff, b.coll)]))
            }
        }
    }

    #[inline(never)]
    fn bind_case(
        &mut self,
        operand: Option<&ast::Expr>,
        when_then: &[(ast::Expr, ast::Expr)],
        else_expr: Option<&ast::Expr>,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        let op = match operand {
            Some(x) => Some(self.bind_expr(x, scope, agg)?),
            None => None,
        };
        // The first explicit COLLATE among the operand, the WHEN and THEN
        // expressions in order and the ELSE is the CASE's.
        let mut coll = op
            .as_ref()
            .map_or(CollSource::None, |o| o.coll.explicit_or(CollSource::None));
        let mut pairs = Vec::with_capacity(when_then.len());
        let mut cmp = Vec::new();
        for (w, t) in when_then {
            let wb = self.bind_expr(w, scope, agg)?;
            if let Some(o) = &op {
                cmp.push(cmp_info(o, &wb));
            }
            let tb = self.bind_expr(t, scope, agg)?;
            coll = coll.explicit_or(wb.coll).explicit_or(tb.coll);
            pairs.push((wb.expr, tb.expr));
        }
        let else_b = match else_expr {
            Some(x) => {
                let b = self.bind_expr(x, scope, agg)?;
                coll = coll.explicit_or(b.coll);
                Some(Box::new(b.expr))
            }
            None => None,
        };
        Ok(Bound {
            coll,
            ..Bound::plain(Expr::Case {
                operand: op.map(|o| Box::new(o.expr)),
                when_then: pairs,
                else_expr: else_b,
                cmp,
            })
        })
    }

    #[inline(never)]
    fn bind_function(
        &mut self,
        call: &ast::FunctionCall,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        let name = call.name.to_ascii_lowercase();
        if call.over.is_some() {
            return self.bind_window_call(call, &name, scope, agg);
        }
        if call.star && name != "count" {
            return Err(sql_err!(
                "wrong number of arguments to function {}()",
                call.name
            ));
        }
        if call.star || is_aggregate_name(&name, call.args.len()) {
            return self.bind_aggregate(call, &name, scope, agg);
        }
        if call.distinct {
            return Err(sql_err!(
                "DISTINCT aggregates must have exactly one argument"
            ));
        }
        if call.filter.is_some() {
            return Err(sql_err!(
                "FILTER may not be used with non-aggregate {}()",
                call.name
            ));
        }
        if !call.order_by.is_empty() {
            return Err(sql_err!(
                "ORDER BY may not be used with non-aggregate {}()",
                call.name
            ));
        }
        let mut args = Vec::with_capacity(call.args.len());
        let mut coll = CollSource::None;
        let mut compare_under = None;
        for a in &call.args {
            let b = self.bind_expr(a, scope, agg)?;
            coll = coll.explicit_or(b.coll);
            if compare_under.is_none() && !matches!(b.coll, CollSource::None) {
                compare_under = Some(b.coll.or_binary());
            }
            args.push(b.expr);
        }
        let callee = json_callee(Callee::resolve(&name, args.len())?, &args, agg);
        Ok(Bound {
            expr: Expr::Function {
                callee,
                args,
                collation: compare_under.unwrap_or(Collation::Binary),
            },
            aff: None,
            coll,
            decl_type: None,
        })
    }

    #[inline(never)]
    fn bind_aggregate(
        &mut self,
        call: &ast::FunctionCall,
        name: &str,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        if !agg.allowed || agg.inside {
            return Err(sql_err!("misuse of aggregate function {}()", call.name));
        }
        let nargs = call.args.len();
        if crate::sql::aggregate::lookup(name, nargs, call.distinct)?.is_none() {
            return Err(sql_err!(
                "wrong number of arguments to function {}()",
                call.name
            ));
        }
        agg.inside = true;
        let result = (|| -> Result<AggCall> {
            let mut args = Vec::with_capacity(nargs);
            let mut collation = Collation::Binary;
            for (i, a) in call.args.iter().enumerate() {
                let b = self.bind_expr(a, scope, agg)?;
                if i == 0 {
                    collation = comparison_collation(b.coll, CollSource::None);
                }
                args.push(b.expr);
            }
            let filter = match &call.filter {
                Some(f) => Some(self.bind_plain(f, scope, agg)?),
                None => None,
            };
            // The ORDER BY's names resolve (and fail) for every aggregate;
            // min and max drop it, as SQLite does, since no order changes
            // their result.
            let mut order_by = self.bind_ordering_terms(&call.order_by, scope, agg)?;
            if matches!(name, "min" | "max") {
                order_by.clear();
            }
            let order_distinct_last = call.distinct
                && !order_by.is_empty()
                && matches!(
                    (call.args.as_slice(), call.order_by.as_slice()),
                    ([a], [t]) if super::select::same_expr(a, &t.expr)
                );
            let name = if name == "string_agg" {
                "group_concat".to_string()
            } else {
                name.to_string()
            };
            Ok(AggCall {
                name,
                args,
                distinct: call.distinct,
                star: call.star || (nargs == 0),
                filter,
                collation,
                order_by,
                order_distinct_last,
            })
        })();
        agg.inside = false;
        let call = result?;
        check_aggregate_reads_its_query(&call, self.depth)?;
        agg.calls.push(call);
        Ok(Bound::plain(Expr::Aggregate(agg.calls.len() - 1)))
    }

    /// Binds a subquery in a child scope of `scope`; returns the plan and
    /// what its result columns carry.
    pub(crate) fn bind_subquery(
        &mut self,
        select: &ast::Select,
        scope: &Scope,
    ) -> Result<(Rc<SubqueryPlan>, ColumnTypes)> {
        let (query, types, correlated) = self.bind_query_in(select, Some(scope))?;
        let id = super::next_plan_id();
        Ok((
            Rc::new(SubqueryPlan {
                id,
                query,
                correlated,
            }),
            types,
        ))
    }
}
