//! Binding window function calls (`f(..) OVER (...)`): the window spec
//! (resolving `OVER name` and `base` windows of the WINDOW clause), its
//! frame, and the call's slot in the core's window list.

use super::expr::{AggCtx, Bound};
use super::scope::Scope;
use super::Binder;
use crate::sql::ast;
use crate::sql::planner::plan::{Expr, Frame, FrameBound, WindowCall, WINDOW_ONLY};
use crate::sql::value::Collation;
use crate::{sql_err, Result};

impl Binder<'_> {
    pub(super) fn bind_window_call(
        &mut self,
        call: &ast::FunctionCall,
        name: &str,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Bound> {
        if !agg.windows_allowed || agg.inside {
            return Err(sql_err!("misuse of window function {}()", call.name));
        }
        let is_agg = super::expr::is_aggregate_name(name, call.args.len()) || call.star;
        if !is_agg && !WINDOW_ONLY.contains(&name) {
            return Err(sql_err!("no such window function: {}", call.name));
        }
        let spec = match &call.over {
            Some(ast::Over::Spec(s)) => resolve_spec(s, &agg.named)?,
            Some(ast::Over::Named(n)) => named(n, &agg.named)?,
            None => return Err(sql_err!("missing OVER clause")),
        };
        if call.distinct {
            return Err(sql_err!("DISTINCT is not supported for window functions"));
        }
        if call.filter.is_some() && !is_agg {
            return Err(sql_err!(
                "FILTER clause may only be used with aggregate window functions"
            ));
        }
        let was_allowed = agg.windows_allowed;
        agg.windows_allowed = false;
        let result = self.bind_window_parts(call, name, &spec, scope, agg);
        agg.windows_allowed = was_allowed;
        let w = result?;
        agg.windows.push(w);
        Ok(Bound {
            expr: Expr::Window(agg.windows.len() - 1),
            aff: None,
            coll: super::expr::CollSource::None,
            decl_type: None,
        })
    }

    /// A window's or an aggregate call's ORDER BY: each term's expression,
    /// whether it is descending, whether NULLs come first, its collation.
    pub(super) fn bind_ordering_terms(
        &mut self,
        terms: &[ast::OrderingTerm],
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<Vec<(Expr, bool, bool, Collation)>> {
        let mut out = Vec::with_capacity(terms.len());
        for t in terms {
            let b = self.bind_expr(&t.expr, scope, agg)?;
            let (desc, nulls_first) = super::select::term_order(t);
            out.push((b.expr, desc, nulls_first, b.coll.or_binary()));
        }
        Ok(out)
    }

    fn bind_window_parts(
        &mut self,
        call: &ast::FunctionCall,
        name: &str,
        spec: &ast::WindowSpec,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<WindowCall> {
        let mut args = Vec::with_capacity(call.args.len());
        let mut collation = None;
        for a in &call.args {
            let b = self.bind_expr(a, scope, agg)?;
            collation.get_or_insert(b.coll.or_binary());
            args.push(b.expr);
        }
        let mut partition_by = Vec::with_capacity(spec.partition_by.len());
        let mut partition_collations = Vec::with_capacity(spec.partition_by.len());
        for a in &spec.partition_by {
            let b = self.bind_expr(a, scope, agg)?;
            partition_collations.push(b.coll.or_binary());
            partition_by.push(b.expr);
        }
        let order_by = self.bind_ordering_terms(&spec.order_by, scope, agg)?;
        let frame = match &spec.frame {
            Some(f) => Frame {
                units: f.units,
                start: self.bind_bound(&f.start, scope, agg)?,
                end: match &f.end {
                    Some(e) => self.bind_bound(e, scope, agg)?,
                    None => FrameBound::CurrentRow,
                },
                exclude: f.exclude.unwrap_or(ast::FrameExclude::NoOthers),
            },
            None => Frame {
                units: ast::FrameUnits::Range,
                start: FrameBound::UnboundedPreceding,
                end: FrameBound::CurrentRow,
                exclude: ast::FrameExclude::NoOthers,
            },
        };
        check_frame(&frame, order_by.len())?;
        let filter = match &call.filter {
            Some(f) => Some(self.bind_plain(f, scope, agg)?),
            None => None,
        };
        let name = if name == "string_agg" {
            "group_concat".to_string()
        } else {
            name.to_string()
        };
        Ok(WindowCall {
            name,
            args,
            partition_by,
            partition_collations,
            order_by,
            frame,
            filter,
            star: call.star,
            collation: collation.unwrap_or_default(),
        })
    }

    fn bind_bound(
        &mut self,
        b: &ast::FrameBound,
        scope: &Scope,
        agg: &mut AggCtx,
    ) -> Result<FrameBound> {
        // SQLite's `sqlite3WindowOffsetExpr`: an offset that is not
        // constant when parsed (a column, a function call, a subquery)
        // becomes NULL, which the frame then rejects.
        let mut offset = |e: &ast::Expr| -> Result<Expr> {
            if is_parse_time_constant(e) {
                self.bind_plain(e, scope, agg)
            } else {
                Ok(Expr::Literal(crate::sql::value::Value::Null))
            }
        };
        Ok(match b {
            ast::FrameBound::UnboundedPreceding => FrameBound::UnboundedPreceding,
            ast::FrameBound::Preceding(e) => FrameBound::Preceding(offset(e)?),
            ast::FrameBound::CurrentRow => FrameBound::CurrentRow,
            ast::FrameBound::Following(e) => FrameBound::Following(offset(e)?),
            ast::FrameBound::UnboundedFollowing => FrameBound::UnboundedFollowing,
        })
    }
}

/// True for an expression SQLite's parser takes for a constant: no column,
/// function call or subquery in it.
fn is_parse_time_constant(e: &ast::Expr) -> bool {
    let mut constant = true;
    super::expr::visit(e, &mut |x| {
        if matches!(
            x.kind,
            ast::ExprKind::Column(_)
                | ast::ExprKind::Function(_)
                | ast::ExprKind::Exists(_)
                | ast::ExprKind::Subquery(_)
                | ast::ExprKind::InSelect { .. }
                | ast::ExprKind::InTable { .. }
        ) {
            constant = false;
        }
    });
    constant
}

/// SQLite's frame rules: a frame may not start after the kind of bound it
/// ends at (`CURRENT ROW` then `n PRECEDING`; `n FOLLOWING` then `CURRENT
/// ROW` or `n PRECEDING`), and a RANGE frame with an offset needs exactly
/// one ORDER BY term.
fn check_frame(frame: &Frame, order_terms: usize) -> Result<()> {
    use FrameBound::{CurrentRow, Following, Preceding};
    let backwards = matches!(
        (&frame.start, &frame.end),
        (CurrentRow, Preceding(_)) | (Following(_), Preceding(_) | CurrentRow)
    );
    if backwards {
        return Err(sql_err!("unsupported frame specification"));
    }
    let offset = |b: &FrameBound| matches!(b, Preceding(_) | Following(_));
    if frame.units == ast::FrameUnits::Range
        && (offset(&frame.start) || offset(&frame.end))
        && order_terms != 1
    {
        return Err(sql_err!(
            "RANGE with offset PRECEDING/FOLLOWING requires one ORDER BY expression"
        ));
    }
    Ok(())
}

fn named(name: &str, windows: &[ast::NamedWindow]) -> Result<ast::WindowSpec> {
    let w = windows
        .iter()
        .find(|w| w.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| sql_err!("no such window: {name}"))?;
    resolve_spec(&w.spec, windows)
}

/// Merges a spec with the window it extends (`OVER (w ORDER BY ..)`).
fn resolve_spec(spec: &ast::WindowSpec, windows: &[ast::NamedWindow]) -> Result<ast::WindowSpec> {
    let Some(base) = &spec.base else {
        return Ok(spec.clone());
    };
    let b = named(base, windows)?;
    Ok(ast::WindowSpec {
        base: None,
        partition_by: b.partition_by,
        order_by: if spec.order_by.is_empty() {
            b.order_by
        } else {
            spec.order_by.clone()
        },
        frame: spec.frame.clone().or(b.frame),
    })
}
