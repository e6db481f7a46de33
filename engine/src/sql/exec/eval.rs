//! Expression evaluation over the rows in scope, with SQLite's semantics:
//! three-valued logic, comparison with affinity and collation, IN / EXISTS /
//! scalar subqueries (uncorrelated ones computed once per statement).

use std::borrow::Cow;
use std::cmp::Ordering;
use std::rc::Rc;

use super::in_set::InSet;
use super::ExecCtx;
use crate::sql::ast::{BinaryOp, LikeOp, UnaryOp};
use crate::sql::exec::builtin::Callee;
use crate::sql::functions::json::JsonFn;
use crate::sql::functions::{bytes_len, check_length, within_max_length};
use crate::sql::planner::plan::{CmpInfo, Expr, SubqueryPlan};
use crate::sql::value::{self, compare_with_affinity, Collation, Value};
use crate::{sql_err, Result};

/// The rows an expression can read: the current row, its aggregate and
/// window values, and the enclosing query's environment.
#[derive(Clone, Copy)]
pub(crate) struct Env<'a> {
    pub row: &'a [Value],
    pub aggs: &'a [Value],
    pub windows: &'a [Value],
    pub outer: Option<&'a Env<'a>>,
}

impl<'a> Env<'a> {
    /// An environment of one row.
    pub(crate) fn new(row: &'a [Value], outer: Option<&'a Env<'a>>) -> Env<'a> {
        Env {
            row,
            aggs: &[],
            windows: &[],
            outer,
        }
    }

    fn column(&self, level: usize, index: usize) -> Result<Value> {
        self.column_ref(level, index).cloned()
    }

    fn column_ref(&self, level: usize, index: usize) -> Result<&'a Value> {
        let mut env: &Env<'a> = self;
        for _ in 0..level {
            env = env
                .outer
                .ok_or_else(|| sql_err!("internal: column reference out of scope"))?;
        }
        env.row
            .get(index)
            .ok_or_else(|| sql_err!("internal: column slot {index} out of range"))
    }
}

fn truth(v: &Value) -> Option<bool> {
    v.is_true()
}

fn bool_value(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Integer(i64::from(b)),
    }
}

/// The truth of comparison `op` between two integers (affinity and
/// collation change nothing for them); `None` for an operator that is not a
/// comparison.
#[inline(always)]
pub(crate) fn integer_truth(op: BinaryOp, x: i64, y: i64) -> Option<bool> {
    Some(match op {
        BinaryOp::Eq | BinaryOp::Is => x == y,
        BinaryOp::Ne | BinaryOp::IsNot => x != y,
        BinaryOp::Lt => x < y,
        BinaryOp::Le => x <= y,
        BinaryOp::Gt => x > y,
        BinaryOp::Ge => x >= y,
        _ => return None,
    })
}

/// True for the operators [`integer_truth`] decides.
pub(crate) fn is_comparison(op: BinaryOp) -> bool {
    integer_truth(op, 0, 0).is_some()
}

/// Compares two values as a comparison operator does; `None` is NULL.
pub(crate) fn compare_values(a: &Value, b: &Value, cmp: &CmpInfo) -> Option<Ordering> {
    compare_with_affinity(a, cmp.left_affinity, b, cmp.right_affinity, cmp.collation)
}

fn apply_compare(op: BinaryOp, a: &Value, b: &Value, cmp: &CmpInfo) -> Value {
    bool_value(compare_truth(op, a, b, cmp))
}

/// The truth of a comparison; `None` is NULL (IS and IS NOT are never NULL).
fn compare_truth(op: BinaryOp, a: &Value, b: &Value, cmp: &CmpInfo) -> Option<bool> {
    match op {
        BinaryOp::Is | BinaryOp::IsNot => {
            let same = match (a.is_null(), b.is_null()) {
                (true, true) => true,
                (true, false) | (false, true) => false,
                _ => compare_values(a, b, cmp) == Some(Ordering::Equal),
            };
            Some(same == (op == BinaryOp::Is))
        }
        _ => {
            // Two integers compare as numbers whatever the affinities and
            // collation (affinity converts only text): the common case,
            // without the general path's calls.
            let ord = match (a, b) {
                (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
                _ => compare_values(a, b, cmp)?,
            };
            Some(match op {
                BinaryOp::Eq => ord == Ordering::Equal,
                BinaryOp::Ne => ord != Ordering::Equal,
                BinaryOp::Lt => ord == Ordering::Less,
                BinaryOp::Le => ord != Ordering::Greater,
                BinaryOp::Gt => ord == Ordering::Greater,
                BinaryOp::Ge => ord != Ordering::Less,
                _ => false,
            })
        }
    }
}

impl ExecCtx<'_> {
    /// The value of `e` when it is an integer column of this row, literal
    /// or parameter, or `+ - * / %` of such whose result is an integer (no
    /// overflow, no division by zero); `None` otherwise, for the general
    /// path to evaluate (no errors are possible here, so nothing is lost).
    /// Inlined for the plain operands; arithmetic recurses through
    /// [`Self::integer_arith`].
    #[inline(always)]
    pub(crate) fn integer(&self, e: &Expr, env: &Env) -> Option<i64> {
        let v = match e {
            Expr::Column { level: 0, index } => env.row.get(*index)?,
            Expr::Literal(v) => v,
            Expr::Param(i) => self.params.get(*i)?,
            Expr::Arith { op, left, right } => return self.integer_arith(*op, left, right, env),
            _ => return None,
        };
        match v {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }

    fn integer_arith(
        &self,
        op: value::BinaryOp,
        left: &Expr,
        right: &Expr,
        env: &Env,
    ) -> Option<i64> {
        let (x, y) = (self.integer(left, env)?, self.integer(right, env)?);
        match op.exact(x, y)? {
            Value::Integer(i) => Some(i),
            _ => None,
        }
    }

    /// Evaluates an operand that is only read: a column, literal or
    /// parameter is borrowed instead of cloned (no copy of its text).
    pub(crate) fn operand<'v>(&'v self, e: &'v Expr, env: &'v Env) -> Result<Cow<'v, Value>> {
        Ok(match e {
            Expr::Literal(v) => Cow::Borrowed(v),
            Expr::Column { level, index } => Cow::Borrowed(env.column_ref(*level, *index)?),
            Expr::Param(i) => match self.params.get(*i) {
                Some(v) => Cow::Borrowed(v),
                None => Cow::Owned(Value::Null),
            },
            _ => Cow::Owned(self.eval(e, env)?),
        })
    }

    /// Evaluates `e` in `env`.
    ///
    /// The kinds every row meets (columns, literals, parameters, scalar
    /// comparisons and arithmetic) are handled here, in a small function
    /// whose frame is cheap to set up; the rest go to [`Self::eval_kind`],
    /// which hands those kinds back here, so each is implemented once.
    pub(crate) fn eval(&self, e: &Expr, env: &Env) -> Result<Value> {
        match e {
            Expr::Literal(v) => Ok(v.clone()),
            Expr::Column { level, index } => env.column(*level, *index),
            Expr::Param(i) => Ok(self.params.get(*i).cloned().unwrap_or(Value::Null)),
            Expr::Compare {
                op,
                left,
                right,
                cmp,
            } if !matches!(**left, Expr::Row(_)) && !matches!(**right, Expr::Row(_)) => {
                let a = self.operand(left, env)?;
                let b = self.operand(right, env)?;
                Ok(apply_compare(*op, &a, &b, cmp))
            }
            Expr::Arith { op, left, right } => {
                let a = self.operand(left, env)?;
                let b = self.operand(right, env)?;
                // Two integers: computed here, without the call.
                if let (Value::Integer(x), Value::Integer(y)) = (&*a, &*b) {
                    if let Some(v) = op.exact(*x, *y) {
                        return Ok(v);
                    }
                }
                if *op == value::BinaryOp::Concat {
                    return concat(&a, &b);
                }
                Ok(op.apply(&a, &b))
            }
            _ => self.eval_kind(e, env),
        }
    }

    // One arm per bound expression kind (about 160 lines), kept in one
    // exhaustive match so every kind's SQL semantics (NULL handling, short
    // circuits) reads in one place; row values, calls and subqueries have
    // their own functions.
    #[inline(never)]
    fn eval_kind(&self, e: &Expr, env: &Env) -> Result<Value> {
        Ok(match e {
            // Handled by `eval` before it calls here.
            Expr::Literal(_) | Expr::Column { .. } | Expr::Param(_) | Expr::Arith { .. } => {
                return self.eval(e, env);
            }
            Expr::Unary(op, x) => {
                let v = self.eval(x, env)?;
                match op {
                    UnaryOp::Neg => value::negate(&v),
                    UnaryOp::Plus => v,
                    UnaryOp::BitNot => value::bit_not(&v),
                    UnaryOp::Not => bool_value(truth(&v).map(|b| !b)),
                }
            }
            Expr::Logic { and, left, right } => {
                let l = truth(&self.eval(left, env)?);
                if *and && l == Some(false) {
                    return Ok(Value::Integer(0));
                }
                if !*and && l == Some(true) {
                    return Ok(Value::Integer(1));
                }
                let r = truth(&self.eval(right, env)?);
                bool_value(if *and {
                    match (l, r) {
                        (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    }
                } else {
                    match (l, r) {
                        (_, Some(true)) => Some(true),
                        (Some(false), Some(false)) => Some(false),
                        _ => None,
                    }
                })
            }
            // `eval` compares scalars itself: what arrives here has a row
            // value on one side.
            Expr::Compare {
                op,
                left,
                right,
                cmp,
            } => return self.compare_rows(*op, left, right, std::slice::from_ref(cmp), env),
            Expr::CompareRows {
                op,
                left,
                right,
                cmp,
            } => return self.compare_rows(*op, left, right, cmp, env),
            Expr::IsNull { negated, expr } => {
                let v = self.eval(expr, env)?;
                Value::Integer(i64::from(v.is_null() != *negated))
            }
            Expr::Like {
                op,
                negated,
                expr,
                pattern,
                escape,
            } => {
                let x = self.operand(expr, env)?;
                let p = self.operand(pattern, env)?;
                let esc = match escape {
                    Some(e) => Some(self.operand(e, env)?),
                    None => None,
                };
                let r = super::builtin::pattern_match(*op == LikeOp::Glob, &p, &x, esc.as_deref())?;
                bool_value(r.map(|b| b != *negated))
            }
            Expr::Between {
                negated,
                expr,
                low,
                high,
                low_cmp,
                high_cmp,
            } => {
                let x = self.eval(expr, env)?;
                let lo = self.eval(low, env)?;
                let hi = self.eval(high, env)?;
                let a = truth(&apply_compare(BinaryOp::Ge, &x, &lo, low_cmp));
                let b = truth(&apply_compare(BinaryOp::Le, &x, &hi, high_cmp));
                let r = match (a, b) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                bool_value(r.map(|b| b != *negated))
            }
            Expr::InList {
                negated,
                expr,
                list,
                cmp,
            } => {
                if list.is_empty() {
                    return Ok(Value::Integer(i64::from(*negated)));
                }
                let x = self.eval(expr, env)?;
                let mut values = Vec::with_capacity(list.len());
                for item in list {
                    values.push(self.eval(item, env)?);
                }
                bool_value(in_values(&x, &values, cmp).map(|b| b != *negated))
            }
            Expr::InQuery {
                negated,
                expr,
                query,
                cmp,
            } => {
                // A row value (a row, or a subquery's columns) or one value.
                let x = if cmp.len() > 1 {
                    self.row_values(expr, env)?
                } else {
                    vec![self.eval(expr, env)?]
                };
                let found = self.in_set(query, cmp, env)?.contains(&x);
                bool_value(found.map(|b| b != *negated))
            }
            Expr::Exists(q) => {
                let rows = self.subquery_rows(q, env)?;
                Value::Integer(i64::from(!rows.is_empty()))
            }
            Expr::Scalar(q) => {
                let rows = self.subquery_rows(q, env)?;
                match rows.first() {
                    None => Value::Null,
                    Some(r) if r.len() == 1 => r[0].clone(),
                    Some(_) => return Err(sql_err!("row value misused")),
                }
            }
            Expr::Case {
                operand,
                when_then,
                else_expr,
                cmp,
            } => match self.case_branch(
                operand.as_deref(),
                when_then,
                else_expr.as_deref(),
                cmp,
                env,
            )? {
                Some(e) => return self.eval(e, env),
                None => Value::Null,
            },
            Expr::Cast { expr, affinity } => value::cast(&self.eval(expr, env)?, *affinity),
            Expr::Function {
                callee,
                args,
                collation,
            } => return self.call_function(*callee, args, *collation, env),
            Expr::Aggregate(i) => env.aggs.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Window(i) => env.windows.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Row(_) => return Err(sql_err!("row value misused")),
            Expr::Raise(action, message) => {
                return Err(super::trigger::raise(*action, message.as_deref()))
            }
        })
    }

    /// Evaluates a conjunct list: true only when every one is true.
    pub(crate) fn all_true(&self, exprs: &[Expr], env: &Env) -> Result<bool> {
        for e in exprs {
            if !self.is_true(e, env)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether `e` is true (neither false nor NULL), as a filter reads it.
    /// A scalar comparison is decided without building its 0/1 value; an
    /// AND stops at a left side that is not true (false or NULL), as
    /// SQLite's jump-if-false code for a WHERE term does.
    fn is_true(&self, e: &Expr, env: &Env) -> Result<bool> {
        match e {
            Expr::Compare {
                op,
                left,
                right,
                cmp,
            } if !matches!(**left, Expr::Row(_)) && !matches!(**right, Expr::Row(_)) => {
                // Two integer operands (a column against a constant, or
                // integer arithmetic on columns: the usual filters): decided
                // here, without building values.
                if let Some(x) = self.integer(left, env) {
                    if let Some(t) = self
                        .integer(right, env)
                        .and_then(|y| integer_truth(*op, x, y))
                    {
                        return Ok(t);
                    }
                }
                let a = self.operand(left, env)?;
                let b = self.operand(right, env)?;
                Ok(compare_truth(*op, &a, &b, cmp) == Some(true))
            }
            Expr::Logic {
                and: true,
                left,
                right,
            } => Ok(self.is_true(left, env)? && self.is_true(right, env)?),
            // Three integers (`id BETWEEN ? AND ?`, a range's usual form):
            // compared here, as the two comparisons would compare them.
            Expr::Between {
                negated,
                expr,
                low,
                high,
                ..
            } => match (
                self.integer(expr, env),
                self.integer(low, env),
                self.integer(high, env),
            ) {
                (Some(x), Some(lo), Some(hi)) => Ok((lo <= x && x <= hi) != *negated),
                _ => Ok(truth(&self.eval(e, env)?) == Some(true)),
            },
            _ => Ok(truth(&self.eval(e, env)?) == Some(true)),
        }
    }

    fn call_function(
        &self,
        callee: Callee,
        args: &[Expr],
        collation: Collation,
        env: &Env,
    ) -> Result<Value> {
        let f = match callee {
            // Short-circuit functions evaluate lazily.
            Callee::Coalesce => return self.coalesce(args, env).map(|(v, _)| v),
            Callee::Iif => return self.eval(self.iif_branch(args, env)?, env),
            Callee::IsTrue(want) => {
                let v = truth(&self.eval(&args[0], env)?) == Some(true);
                return Ok(Value::Integer(i64::from(v == want)));
            }
            Callee::Scalar(f) => f,
            Callee::Json { f, json_args } => {
                return self.call_json(f, json_args, args, env).map(|(v, _)| v)
            }
        };
        // Most calls take a few arguments: those are evaluated into an
        // array on the stack rather than a new vector.
        const FEW: usize = 4;
        let mut few = [const { Value::Null }; FEW];
        let mut many = Vec::new();
        let values = match few.get_mut(..args.len()) {
            Some(values) => values,
            None => {
                many.resize(args.len(), Value::Null);
                &mut many[..]
            }
        };
        for (slot, a) in values.iter_mut().zip(args) {
            *slot = self.eval(a, env)?;
        }
        f.call(values, collation)
    }

    /// A JSON function's call: its value and whether it carries the JSON
    /// subtype. An argument carries one as [`Self::eval_json`] says (a
    /// subtype does not survive a column of a table, view or subquery here).
    fn call_json(
        &self,
        f: &'static JsonFn,
        json_args: u32,
        args: &[Expr],
        env: &Env,
    ) -> Result<(Value, bool)> {
        let mut values = Vec::with_capacity(args.len());
        let mut json = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            let (v, j) = self.eval_json(a, env)?;
            values.push(v);
            json.push(j || (i < 32 && json_args & (1 << i) != 0));
        }
        let (v, json) = f.call(&values, &json)?;
        Ok((within_max_length(v)?, json))
    }

    /// An expression's value and whether it carries SQLite's JSON subtype:
    /// a JSON function's call whose result is JSON, or a CASE, `iif`,
    /// `coalesce` or `ifnull` whose chosen operand is one (SQLite passes
    /// their operands' values on as they are).
    pub(crate) fn eval_json(&self, e: &Expr, env: &Env) -> Result<(Value, bool)> {
        match e {
            Expr::Function {
                callee: Callee::Json { f, json_args },
                args,
                ..
            } => self.call_json(f, *json_args, args, env),
            Expr::Function {
                callee: Callee::Coalesce,
                args,
                ..
            } => self.coalesce(args, env),
            Expr::Function {
                callee: Callee::Iif,
                args,
                ..
            } => self.eval_json(self.iif_branch(args, env)?, env),
            Expr::Case {
                operand,
                when_then,
                else_expr,
                cmp,
            } => match self.case_branch(
                operand.as_deref(),
                when_then,
                else_expr.as_deref(),
                cmp,
                env,
            )? {
                Some(e) => self.eval_json(e, env),
                None => Ok((Value::Null, false)),
            },
            other => Ok((self.eval(other, env)?, false)),
        }
    }

    /// `coalesce` (and `ifnull`), evaluated lazily: the first operand that
    /// is not NULL, with its JSON subtype.
    fn coalesce(&self, args: &[Expr], env: &Env) -> Result<(Value, bool)> {
        for a in args {
            let (v, json) = self.eval_json(a, env)?;
            if !v.is_null() {
                return Ok((v, json));
            }
        }
        Ok((Value::Null, false))
    }

    /// The operand `iif(c, yes, no)` takes; the other is never evaluated.
    fn iif_branch<'e>(&self, args: &'e [Expr], env: &Env) -> Result<&'e Expr> {
        let [c, yes, no] = args else {
            return Err(sql_err!("wrong number of arguments to function iif()"));
        };
        Ok(if truth(&self.eval(c, env)?) == Some(true) {
            yes
        } else {
            no
        })
    }

    /// The branch a CASE takes: the THEN of its first WHEN that holds
    /// (equals the operand under that WHEN's rules, or is true), else its
    /// ELSE; `None` for no ELSE (NULL).
    fn case_branch<'e>(
        &self,
        operand: Option<&Expr>,
        when_then: &'e [(Expr, Expr)],
        else_expr: Option<&'e Expr>,
        cmp: &[CmpInfo],
        env: &Env,
    ) -> Result<Option<&'e Expr>> {
        let base = match operand {
            Some(o) => Some(self.eval(o, env)?),
            None => None,
        };
        for (i, (w, t)) in when_then.iter().enumerate() {
            let wv = self.eval(w, env)?;
            let hit = match &base {
                Some(b) => {
                    let c = cmp.get(i).unwrap_or(&CmpInfo::PLAIN);
                    compare_values(b, &wv, c) == Some(Ordering::Equal)
                }
                None => truth(&wv) == Some(true),
            };
            if hit {
                return Ok(Some(t));
            }
        }
        Ok(else_expr)
    }

    /// Compares two row values item by item, `cmp[i]` for the i-th pair.
    /// `=` and `<>` are decided by any unequal pair, else NULL when a pair
    /// has a NULL; `IS` and `IS NOT` treat NULLs as equal values; an
    /// ordering is decided by the first pair that is not equal, NULL when
    /// that pair has a NULL (SQLite's rules).
    fn compare_rows(
        &self,
        op: BinaryOp,
        left: &Expr,
        right: &Expr,
        cmp: &[CmpInfo],
        env: &Env,
    ) -> Result<Value> {
        let l = self.row_values(left, env)?;
        let r = self.row_values(right, env)?;
        if l.len() != r.len() {
            return Err(sql_err!("row value misused"));
        }
        let info = |i: usize| cmp.get(i).copied().unwrap_or(CmpInfo::PLAIN);
        let pairs = l.iter().zip(r.iter()).enumerate();
        Ok(match op {
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Is | BinaryOp::IsNot => {
                let null_safe = matches!(op, BinaryOp::Is | BinaryOp::IsNot);
                let mut equal = Some(true);
                for (i, (a, b)) in pairs {
                    let same = match (a.is_null(), b.is_null()) {
                        (true, true) if null_safe => Some(true),
                        (true, _) | (_, true) if null_safe => Some(false),
                        _ => compare_values(a, b, &info(i)).map(|o| o == Ordering::Equal),
                    };
                    match same {
                        Some(false) => {
                            equal = Some(false);
                            break;
                        }
                        None => equal = None,
                        Some(true) => {}
                    }
                }
                let negate = matches!(op, BinaryOp::Ne | BinaryOp::IsNot);
                bool_value(equal.map(|e| e != negate))
            }
            _ => {
                for (i, (a, b)) in pairs {
                    match compare_values(a, b, &info(i)) {
                        None => return Ok(Value::Null),
                        Some(Ordering::Equal) => {}
                        Some(_) => return Ok(apply_compare(op, a, b, &info(i))),
                    }
                }
                // Every pair equal.
                Value::Integer(i64::from(matches!(op, BinaryOp::Le | BinaryOp::Ge)))
            }
        })
    }

    fn row_values(&self, e: &Expr, env: &Env) -> Result<Vec<Value>> {
        match e {
            Expr::Row(items) => items.iter().map(|x| self.eval(x, env)).collect(),
            Expr::Scalar(q) => {
                let rows = self.subquery_rows(q, env)?;
                Ok(rows
                    .first()
                    .cloned()
                    .unwrap_or_else(|| vec![Value::Null; q.query.columns.len()]))
            }
            other => Ok(vec![self.eval(other, env)?]),
        }
    }

    /// The rows of an IN's subquery as a set: made once per statement
    /// when uncorrelated (its keys charged with its rows), else on every
    /// evaluation (charged while made, then given back).
    fn in_set(&self, q: &Rc<SubqueryPlan>, cmp: &[CmpInfo], env: &Env) -> Result<Rc<InSet>> {
        if !q.correlated {
            if let Some(set) = self.in_sets.borrow().get(&q.id) {
                return Ok(set.clone());
            }
        }
        if q.correlated {
            let rows = self.run_correlated(&q.query, Some(env))?;
            return Ok(Rc::new(InSet::new(rows, cmp).0));
        }
        let (set, key_bytes) = InSet::new(self.run_query(&q.query, Some(env))?, cmp);
        self.charge(key_bytes)?;
        let set = Rc::new(set);
        self.in_sets.borrow_mut().insert(q.id, set.clone());
        Ok(set)
    }

    /// The rows of a subquery: cached per statement when uncorrelated;
    /// a correlated one's are made for each evaluation and not retained.
    pub(crate) fn subquery_rows(
        &self,
        q: &Rc<SubqueryPlan>,
        env: &Env,
    ) -> Result<Rc<Vec<Vec<Value>>>> {
        if !q.correlated {
            if let Some(rows) = self.cache.borrow().get(&q.id) {
                return Ok(rows.clone());
            }
        }
        if q.correlated {
            return Ok(Rc::new(self.run_correlated(&q.query, Some(env))?));
        }
        let rows = Rc::new(self.run_query(&q.query, Some(env))?);
        self.cache.borrow_mut().insert(q.id, rows.clone());
        Ok(rows)
    }
}

/// `x IN (values)`: true on a match, NULL when no match but a NULL was
/// involved, else false.
fn in_values(x: &Value, values: &[Value], cmp: &[CmpInfo]) -> Option<bool> {
    if x.is_null() {
        return None;
    }
    let mut saw_null = false;
    for (i, v) in values.iter().enumerate() {
        let c = cmp.get(i).copied().unwrap_or(CmpInfo::PLAIN);
        match compare_values(x, v, &c) {
            Some(Ordering::Equal) => return Some(true),
            None => saw_null = true,
            Some(_) => {}
        }
    }
    if saw_null {
        None
    } else {
        Some(false)
    }
}

/// `a || b`, failing as SQLite does when the result would be longer than
/// `MAX_LENGTH`: the operands' string and blob bytes are counted before
/// the result is built, and the result (numbers' text included) after.
fn concat(a: &Value, b: &Value) -> Result<Value> {
    check_length(bytes_len(a) + bytes_len(b))?;
    within_max_length(value::BinaryOp::Concat.apply(a, b))
}
