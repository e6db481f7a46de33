//! A scanned level's filters that compare one of its stored columns with
//! text constants (literals or parameters): `c = 'x'`, `c > ?`, `'a' <= c`,
//! `c BETWEEN 'a' AND 'm'`, `c IN ('x', 'y')`, `c NOT IN (...)`, `c LIKE
//! 'ab%'`, `c GLOB ?`. Each row is tested on its record's
//! bytes before it is decoded, and a row a check rejects is skipped, as
//! [`super::scan::IntChecks`] does for integers: a rejected row's text is
//! never copied out of the page nor checked as UTF-8.
//!
//! Only what the filter itself would decide from the bytes is decided here.
//! A check applies when the comparison is bytewise, which is when its
//! collation is BINARY and no numeric affinity applies (numeric affinity
//! may turn a text operand into a number): then a stored text compares with
//! the constant as their UTF-8 bytes do. A stored NULL makes the comparison
//! NULL, which no filter accepts: rejected. LIKE and GLOB read a stored
//! text as it is, whatever the collation and affinity, as they read a
//! value. Any other stored type, or a
//! column the record does not store (added since, its default applies),
//! passes to the filters as usual.

use std::cmp::Ordering;

use super::eval::{integer_truth, is_comparison};
use super::scan::{checked_terms, stored_field, Trial};
use super::ExecCtx;
use crate::sql::ast::{BinaryOp, LikeOp};
use crate::sql::catalog::Table;
use crate::sql::functions::TextPattern;
use crate::sql::planner::plan::{CmpInfo, Expr, FromItem, Level};
use crate::sql::record::{self, TextField};
use crate::sql::value::{comparison_affinity, Collation, Value};

#[derive(Clone, Debug, Default)]
pub(crate) struct TextChecks {
    checks: Vec<TextCheck>,
    trial: Trial,
}

#[derive(Clone, Debug)]
struct TextCheck {
    /// The record position of the compared column.
    field: usize,
    test: Test,
}

#[derive(Clone, Debug)]
enum Test {
    /// `field op constant` (a constant on the left is flipped over).
    Compare(BinaryOp, Box<[u8]>),
    /// `field BETWEEN low AND high`, or with `negated` `NOT BETWEEN`.
    Between {
        negated: bool,
        low: Box<[u8]>,
        high: Box<[u8]>,
    },
    /// `field IN (constants)`, or with `negated` `NOT IN`.
    In { negated: bool, set: Vec<Box<[u8]>> },
    /// `field LIKE pattern` or GLOB, or with `negated` `NOT LIKE` / `NOT GLOB`.
    Pattern { negated: bool, pattern: TextPattern },
}

impl TextChecks {
    /// The checks of `level`'s terms on `item` (a table scan), built once per scan.
    #[inline(never)]
    pub(crate) fn new(cx: &ExecCtx, level: &Level, item: &FromItem, table: &Table) -> TextChecks {
        let field = |e: &Expr| match e {
            Expr::Column { level: 0, index } => stored_field(item, table, *index),
            _ => None,
        };
        let checks = checked_terms(level, item)
            .iter()
            .filter_map(|t| match t {
                Expr::Compare {
                    op,
                    left,
                    right,
                    cmp,
                } if is_comparison(*op) && !matches!(op, BinaryOp::Is | BinaryOp::IsNot) => {
                    if !bytewise(cmp) {
                        return None;
                    }
                    let (field, op, constant) = match (field(left), field(right)) {
                        (Some(f), None) => (f, *op, text_bytes(right, cx)?),
                        (None, Some(f)) => (f, op.flipped(), text_bytes(left, cx)?),
                        _ => return None,
                    };
                    Some(TextCheck {
                        field,
                        test: Test::Compare(op, constant),
                    })
                }
                Expr::Between {
                    negated,
                    expr,
                    low,
                    high,
                    low_cmp,
                    high_cmp,
                } if bytewise(low_cmp) && bytewise(high_cmp) => Some(TextCheck {
                    field: field(expr)?,
                    test: Test::Between {
                        negated: *negated,
                        low: text_bytes(low, cx)?,
                        high: text_bytes(high, cx)?,
                    },
                }),
                Expr::InList {
                    negated,
                    expr,
                    list,
                    cmp,
                } if !list.is_empty() && cmp.iter().all(bytewise) => Some(TextCheck {
                    field: field(expr)?,
                    test: Test::In {
                        negated: *negated,
                        set: list
                            .iter()
                            .map(|e| text_bytes(e, cx))
                            .collect::<Option<_>>()?,
                    },
                }),
                Expr::Like {
                    op,
                    negated,
                    expr,
                    pattern,
                    escape,
                } => {
                    let glob = match op {
                        LikeOp::Like => false,
                        LikeOp::Glob => true,
                        _ => return None,
                    };
                    let escape = match escape {
                        Some(e) => Some(text_constant(e, cx)?),
                        None => None,
                    };
                    let pattern = TextPattern::new(glob, text_constant(pattern, cx)?, escape)?;
                    Some(TextCheck {
                        field: field(expr)?,
                        test: Test::Pattern {
                            negated: *negated,
                            pattern,
                        },
                    })
                }
                _ => None,
            })
            .collect();
        TextChecks {
            checks,
            trial: Trial::default(),
        }
    }

    /// Whether a check rejects the row stored as `record`.
    #[inline]
    pub(crate) fn reject(&mut self, record: &[u8]) -> bool {
        if self.checks.is_empty() {
            return false;
        }
        let rejected = self.checks.iter().any(|c| c.rejects(record));
        if !self.trial.keep(rejected) {
            self.checks.clear();
        }
        rejected
    }
}

impl TextCheck {
    fn rejects(&self, record: &[u8]) -> bool {
        let text = match record::text_field(record, self.field) {
            TextField::Other => return false,
            TextField::Null => return true,
            TextField::Text(t) => t,
        };
        match &self.test {
            Test::Compare(op, constant) => {
                let ord = text.cmp(constant);
                integer_truth(*op, ord as i64, Ordering::Equal as i64) == Some(false)
            }
            Test::Between { negated, low, high } => (**low <= *text && *text <= **high) == *negated,
            Test::In { negated, set } => set.iter().any(|s| **s == *text) == *negated,
            // The pattern's literal prefix decides from the bytes alone when
            // it can (a string without it cannot match). Otherwise text that
            // is not UTF-8 passes: decoding the row reports it.
            Test::Pattern { negated, pattern } => match pattern.prefix_decides(text) {
                Some(false) => !*negated,
                Some(true) if !*negated => false,
                _ => std::str::from_utf8(text).is_ok_and(|s| pattern.matches(s) == *negated),
            },
        }
    }
}

/// Whether a comparison under `cmp` of a stored text with a text constant
/// is the comparison of their bytes: BINARY collation, and no numeric
/// affinity applied (which may turn a text operand into a number).
fn bytewise(cmp: &CmpInfo) -> bool {
    cmp.collation == Collation::Binary
        && !comparison_affinity(cmp.left_affinity, cmp.right_affinity)
            .is_some_and(|a| a.is_numeric())
}

/// The text of `e` when it is a text constant: a literal or a bound parameter.
fn text_constant<'a>(e: &'a Expr, cx: &'a ExecCtx) -> Option<&'a str> {
    let v = match e {
        Expr::Literal(v) => v,
        Expr::Param(p) => cx.params.get(*p)?,
        _ => return None,
    };
    match v {
        Value::Text(s) => Some(s),
        _ => None,
    }
}

/// [`text_constant`]'s bytes, kept by a check.
fn text_bytes(e: &Expr, cx: &ExecCtx) -> Option<Box<[u8]>> {
    text_constant(e, cx).map(|s| s.as_bytes().into())
}
