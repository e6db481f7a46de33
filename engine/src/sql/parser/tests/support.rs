//! Helpers shared by the parser tests.

use crate::sql::ast::{Expr, ExprKind, ResultColumn, SelectCore, Statement, UnaryOp};
use crate::sql::parser::parse;

/// The one statement in `sql`, or a panic naming the error.
pub(super) fn one(sql: &str) -> Statement {
    let mut statements = parse(sql).unwrap_or_else(|e| panic!("{sql:?} does not parse: {e}"));
    assert_eq!(statements.len(), 1, "{sql:?}");
    statements.pop().expect("one statement")
}

/// The expression `e` of `SELECT e`.
pub(super) fn expr(e: &str) -> Expr {
    let Statement::Select(select) = one(&format!("SELECT {e}")) else {
        panic!("not a select")
    };
    let SelectCore::Select(core) = select.first else {
        panic!("not a select core")
    };
    match core.columns.into_iter().next() {
        Some(ResultColumn::Expr { expr, .. }) => expr,
        other => panic!("not an expression column: {other:?}"),
    }
}

/// `e` parsed and written back with every operator node in parentheses,
/// which shows how the parser grouped it.
pub(super) fn grouped(e: &str) -> String {
    let full = parenthesised(&expr(e));
    match full.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        Some(inner) if is_operator(&expr(e)) => inner.to_string(),
        _ => full,
    }
}

fn is_operator(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Binary { .. }
            | ExprKind::Unary { .. }
            | ExprKind::Like { .. }
            | ExprKind::Between { .. }
            | ExprKind::InList { .. }
            | ExprKind::IsNull { .. }
            | ExprKind::Collate { .. }
    )
}

/// `SELECT e1, e2, ...` of `sql` with each expression written by
/// [`parenthesised`]; an error when `sql` does not parse.
pub(super) fn parenthesised_statement(sql: &str) -> crate::Result<String> {
    let mut statements = parse(sql)?;
    let Some(Statement::Select(select)) = statements.pop() else {
        panic!("not a select: {sql}")
    };
    let SelectCore::Select(core) = select.first else {
        panic!("not a select core: {sql}")
    };
    let columns: Vec<String> = core
        .columns
        .iter()
        .map(|c| match c {
            ResultColumn::Expr { expr, .. } => parenthesised(expr),
            other => other.to_string(),
        })
        .collect();
    let from = core.from.map(|f| format!(" FROM {f}")).unwrap_or_default();
    Ok(format!("SELECT {}{from}", columns.join(", ")))
}

/// `e` with every operator node parenthesised (other nodes as rendered).
fn parenthesised(e: &Expr) -> String {
    let not = |negated: bool| if negated { "NOT " } else { "" };
    match &e.kind {
        ExprKind::Binary { op, left, right } => {
            format!(
                "({} {} {})",
                parenthesised(left),
                op.as_str(),
                parenthesised(right)
            )
        }
        ExprKind::Unary { op, expr } => {
            let symbol = match op {
                UnaryOp::Neg => "-",
                UnaryOp::Plus => "+",
                UnaryOp::BitNot => "~",
                UnaryOp::Not => "NOT ",
            };
            format!("({symbol}{})", parenthesised(expr))
        }
        ExprKind::Like {
            op,
            negated,
            expr,
            pattern,
            escape,
        } => {
            let escape = escape
                .as_ref()
                .map(|e| format!(" ESCAPE {}", parenthesised(e)))
                .unwrap_or_default();
            format!(
                "({} {}{} {}{escape})",
                parenthesised(expr),
                not(*negated),
                op.as_str(),
                parenthesised(pattern)
            )
        }
        ExprKind::Between {
            negated,
            expr,
            low,
            high,
        } => format!(
            "({} {}BETWEEN {} AND {})",
            parenthesised(expr),
            not(*negated),
            parenthesised(low),
            parenthesised(high)
        ),
        ExprKind::InList {
            negated,
            expr,
            list,
        } => {
            let items: Vec<String> = list.iter().map(parenthesised).collect();
            format!(
                "({} {}IN ({}))",
                parenthesised(expr),
                not(*negated),
                items.join(", ")
            )
        }
        ExprKind::IsNull { negated, expr } => {
            format!("({} IS {}NULL)", parenthesised(expr), not(*negated))
        }
        ExprKind::Collate { expr, collation } => {
            format!("({} COLLATE {collation})", parenthesised(expr))
        }
        _ => e.to_string(),
    }
}

/// The `Debug` text of `value` with every `pos: N` set to 0 and every
/// `text: "..."` emptied, so trees from different source text compare.
pub(super) fn shape<T: std::fmt::Debug>(value: &T) -> String {
    let debug = format!("{value:?}");
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug.as_str();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("pos: ") {
            out.push_str("pos: 0");
            rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
        } else if let Some(after) = rest.strip_prefix("text: \"") {
            out.push_str("text: \"\"");
            let mut chars = after.char_indices();
            let mut end = after.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    _ => {}
                }
            }
            rest = &after[end..];
        } else {
            let c = rest.chars().next().expect("rest is not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Asserts that rendering `statement` and parsing the text again gives the
/// same tree.
pub(super) fn assert_round_trip(statement: &Statement, source: &str) {
    let rendered = statement.to_string();
    let again = parse(&rendered)
        .unwrap_or_else(|e| panic!("rendering of {source:?} does not parse: {e}\n{rendered}"));
    assert_eq!(again.len(), 1, "{rendered}");
    assert_eq!(
        shape(&again[0]),
        shape(statement),
        "round trip of {source:?} via {rendered:?}"
    );
}
