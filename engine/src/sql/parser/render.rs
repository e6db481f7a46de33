//! `Display` for AST nodes: SQL text that parses back to the same tree
//! (positions and `ResultColumn::Expr::text` aside). Used for `.dump`,
//! stored definitions and comparing expressions (index matching).
//!
//! Rules that make the round trip exact:
//! - An operand is parenthesised when its operator binds more loosely than
//!   the level its parent's parser reads it at (the left operand of a
//!   left-associative operator at the same level needs none, the right one
//!   does). Parentheses create no node, so they never change the tree.
//!   Nested prefix operators and negative literals are always
//!   parenthesised, so `-` never meets `-` (which would start a comment).
//! - Identifiers are written bare when they are plain words that are not
//!   keywords (nor TRUE/FALSE), otherwise in double quotes. An unqualified
//!   column that was not written in double quotes but needs quoting gets
//!   backticks, so that `ColumnRef::double_quoted` survives the round trip.
//! - Normalised spellings are written canonically (`<>` as `!=`, `ISNULL`
//!   as `IS NULL`, `LIMIT a, b` as `LIMIT b OFFSET a`, `REPLACE` as
//!   `INSERT OR REPLACE`).

use std::fmt::{self, Display, Formatter, Write};

use crate::sql::ast::*;
use crate::sql::lexer::{self, Keyword};

type R = fmt::Result;

/// Writes `name` as an identifier, quoting it with `"` when needed.
pub(super) fn ident(f: &mut Formatter<'_>, name: &str) -> R {
    if is_plain_word(name) {
        f.write_str(name)
    } else {
        quoted(f, name, '"')
    }
}

fn quoted(f: &mut Formatter<'_>, name: &str, quote: char) -> R {
    f.write_char(quote)?;
    for c in name.chars() {
        if c == quote {
            f.write_char(quote)?;
        }
        f.write_char(c)?;
    }
    f.write_char(quote)
}

/// Whether `name` reads back as the same identifier when written bare.
fn is_plain_word(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && lexer::is_ident_start(b[0])
        && b.iter().all(|&c| lexer::is_ident_char(c))
        && Keyword::lookup(b).is_none()
        && !name.eq_ignore_ascii_case("true")
        && !name.eq_ignore_ascii_case("false")
}

/// Writes `items` separated by `", "`.
pub(super) fn list<T>(
    f: &mut Formatter<'_>,
    items: &[T],
    mut each: impl FnMut(&mut Formatter<'_>, &T) -> R,
) -> R {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        each(f, item)?;
    }
    Ok(())
}

pub(super) fn idents(f: &mut Formatter<'_>, names: &[Ident]) -> R {
    f.write_char('(')?;
    list(f, names, |f, n| ident(f, n))?;
    f.write_char(')')
}

fn exprs(f: &mut Formatter<'_>, items: &[Expr]) -> R {
    list(f, items, |f, e| write!(f, "{e}"))
}

impl Display for QualifiedName {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        if let Some(schema) = &self.schema {
            ident(f, schema)?;
            f.write_char('.')?;
        }
        ident(f, &self.name)
    }
}

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------

/// The binding level of the node at the top of `e`, on the scale of the
/// parser's operator table (`expr.rs`): 1 (OR) to 11 (prefix `-`), and
/// [`LEVEL_ATOM`] for everything that needs no parentheses anywhere.
fn level(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary { op, .. } => binary_level(*op),
        ExprKind::Like { .. }
        | ExprKind::Between { .. }
        | ExprKind::InList { .. }
        | ExprKind::InSelect { .. }
        | ExprKind::InTable { .. }
        | ExprKind::IsNull { .. } => 4,
        ExprKind::Unary {
            op: UnaryOp::Not, ..
        } => 3,
        ExprKind::Unary { .. } => 11,
        ExprKind::Collate { .. } => 10,
        ExprKind::Literal(Literal::Integer(v)) if *v < 0 => 11,
        ExprKind::Literal(Literal::Real(v)) if v.is_sign_negative() => 11,
        _ => LEVEL_ATOM,
    }
}

/// The level of literals, columns, calls, CASE, CAST, subqueries, rows.
const LEVEL_ATOM: u8 = 12;

fn binary_level(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => 1,
        BinaryOp::And => 2,
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Is | BinaryOp::IsNot => 4,
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 5,
        BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::ShiftLeft | BinaryOp::ShiftRight => 6,
        BinaryOp::Add | BinaryOp::Sub => 7,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 8,
        BinaryOp::Concat | BinaryOp::JsonArrow | BinaryOp::JsonArrow2 => 9,
    }
}

/// Writes `e` as an operand that the parser reads at level `min` (it takes
/// every operator binding at least that tightly): parenthesised when its
/// own operator binds more loosely.
fn operand(f: &mut Formatter<'_>, e: &Expr, min: u8) -> R {
    if level(e) < min {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

/// Writes the operand of a prefix operator. Nested prefix operators and
/// negative literals are parenthesised so that `-` never meets `-` (which
/// would start a comment).
fn prefix_operand(f: &mut Formatter<'_>, e: &Expr, min: u8) -> R {
    if level(e) < min || level(e) == 11 {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

/// Writes a binary operator node. A left-deep chain of operators of one
/// level (`a + b + c + ...`, which the parser builds iteratively, up to
/// `MAX_DEPTH` high) is written iteratively and without parentheses, so
/// that rendering and re-parsing it costs no stack per link.
fn binary(f: &mut Formatter<'_>, op: BinaryOp, left: &Expr, right: &Expr) -> R {
    let chain_level = binary_level(op);
    let mut links = vec![(op, right)];
    let mut bottom = left;
    while let ExprKind::Binary { op, left, right } = &bottom.kind {
        if binary_level(*op) != chain_level {
            break;
        }
        links.push((*op, right));
        bottom = left;
    }
    operand(f, bottom, chain_level)?;
    for (op, right) in links.iter().rev() {
        write!(f, " {} ", op.as_str())?;
        operand(f, right, chain_level + 1)?;
    }
    Ok(())
}

impl Display for Literal {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        match self {
            Literal::Null => f.write_str("NULL"),
            Literal::Integer(v) => write!(f, "{v}"),
            Literal::Real(v) if v.is_infinite() => {
                f.write_str(if *v > 0.0 { "1e999" } else { "-1e999" })
            }
            // No literal is NaN; NULL is what SQLite makes of one.
            Literal::Real(v) if v.is_nan() => f.write_str("NULL"),
            Literal::Real(v) => write!(f, "{v:?}"),
            Literal::Text(s) => quoted(f, s, '\''),
            Literal::Blob(bytes) => {
                f.write_str("X'")?;
                for b in bytes {
                    write!(f, "{b:02X}")?;
                }
                f.write_char('\'')
            }
            Literal::Bool(true) => f.write_str("TRUE"),
            Literal::Bool(false) => f.write_str("FALSE"),
            Literal::CurrentTime => f.write_str("CURRENT_TIME"),
            Literal::CurrentDate => f.write_str("CURRENT_DATE"),
            Literal::CurrentTimestamp => f.write_str("CURRENT_TIMESTAMP"),
        }
    }
}

impl BinaryOp {
    /// The operator's canonical spelling.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Or => "OR",
            BinaryOp::And => "AND",
            BinaryOp::Eq => "=",
            BinaryOp::Ne => "!=",
            BinaryOp::Is => "IS",
            BinaryOp::IsNot => "IS NOT",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::ShiftLeft => "<<",
            BinaryOp::ShiftRight => ">>",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Concat => "||",
            BinaryOp::JsonArrow => "->",
            BinaryOp::JsonArrow2 => "->>",
        }
    }
}

impl LikeOp {
    /// The operator's keyword.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LikeOp::Like => "LIKE",
            LikeOp::Glob => "GLOB",
            LikeOp::Match => "MATCH",
            LikeOp::Regexp => "REGEXP",
        }
    }
}

fn not(negated: bool) -> &'static str {
    if negated {
        "NOT "
    } else {
        ""
    }
}

impl Display for ColumnRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        if let Some(schema) = &self.schema {
            ident(f, schema)?;
            f.write_char('.')?;
        }
        if let Some(table) = &self.table {
            ident(f, table)?;
            f.write_char('.')?;
            return ident(f, &self.column);
        }
        if self.double_quoted {
            quoted(f, &self.column, '"')
        } else if is_plain_word(&self.column) {
            f.write_str(&self.column)
        } else {
            quoted(f, &self.column, '`')
        }
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        match &self.kind {
            ExprKind::Literal(l) => write!(f, "{l}"),
            ExprKind::Param {
                name: Some(name), ..
            } => f.write_str(name),
            ExprKind::Param { name: None, .. } => f.write_char('?'),
            ExprKind::Column(c) => write!(f, "{c}"),
            ExprKind::Unary { op, expr } => {
                f.write_str(match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Plus => "+",
                    UnaryOp::BitNot => "~",
                    UnaryOp::Not => "NOT ",
                })?;
                prefix_operand(f, expr, level(self))
            }
            ExprKind::Binary { op, left, right } => binary(f, *op, left, right),
            ExprKind::Like {
                op,
                negated,
                expr,
                pattern,
                escape,
            } => {
                operand(f, expr, 4)?;
                write!(f, " {}{} ", not(*negated), op.as_str())?;
                operand(f, pattern, 5)?;
                if let Some(escape) = escape {
                    f.write_str(" ESCAPE ")?;
                    operand(f, escape, 5)?;
                }
                Ok(())
            }
            ExprKind::Between {
                negated,
                expr,
                low,
                high,
            } => {
                operand(f, expr, 4)?;
                write!(f, " {}BETWEEN ", not(*negated))?;
                operand(f, low, 4)?;
                f.write_str(" AND ")?;
                operand(f, high, 5)
            }
            ExprKind::InList {
                negated,
                expr,
                list,
            } => {
                operand(f, expr, 4)?;
                write!(f, " {}IN (", not(*negated))?;
                exprs(f, list)?;
                f.write_char(')')
            }
            ExprKind::InSelect {
                negated,
                expr,
                select,
            } => {
                operand(f, expr, 4)?;
                write!(f, " {}IN ({select})", not(*negated))
            }
            ExprKind::InTable {
                negated,
                expr,
                table,
                args,
            } => {
                operand(f, expr, 4)?;
                write!(f, " {}IN {table}", not(*negated))?;
                if let Some(args) = args {
                    f.write_char('(')?;
                    exprs(f, args)?;
                    f.write_char(')')?;
                }
                Ok(())
            }
            ExprKind::IsNull { negated, expr } => {
                operand(f, expr, 4)?;
                write!(f, " IS {}NULL", not(*negated))
            }
            ExprKind::Cast { expr, type_name } => write!(f, "CAST({expr} AS {type_name})"),
            ExprKind::Case {
                operand: case_operand,
                when_then,
                else_expr,
            } => {
                f.write_str("CASE")?;
                if let Some(o) = case_operand {
                    write!(f, " {o}")?;
                }
                for (when, then) in when_then {
                    write!(f, " WHEN {when} THEN {then}")?;
                }
                if let Some(e) = else_expr {
                    write!(f, " ELSE {e}")?;
                }
                f.write_str(" END")
            }
            ExprKind::Exists(select) => write!(f, "EXISTS ({select})"),
            ExprKind::Raise { action, message } => {
                f.write_str(match action {
                    RaiseAction::Ignore => "RAISE(IGNORE",
                    RaiseAction::Rollback => "RAISE(ROLLBACK",
                    RaiseAction::Abort => "RAISE(ABORT",
                    RaiseAction::Fail => "RAISE(FAIL",
                })?;
                if let Some(m) = message {
                    f.write_str(", ")?;
                    Literal::Text(m.clone()).fmt(f)?;
                }
                f.write_char(')')
            }
            ExprKind::Subquery(select) => write!(f, "({select})"),
            ExprKind::Function(call) => write!(f, "{call}"),
            ExprKind::Collate { expr, collation } => {
                operand(f, expr, 10)?;
                f.write_str(" COLLATE ")?;
                ident(f, collation)
            }
            ExprKind::Row(items) => {
                f.write_char('(')?;
                exprs(f, items)?;
                f.write_char(')')
            }
        }
    }
}

impl Display for TypeName {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        // Words that read back as themselves are written bare; otherwise the
        // whole name is one quoted word, which reads back as the same name.
        if self.name.split(' ').all(is_plain_word) {
            f.write_str(&self.name)?;
        } else if !self.name.is_empty() {
            quoted(f, &self.name, '"')?;
        }
        if !self.args.is_empty() {
            f.write_char('(')?;
            list(f, &self.args, |f, a| f.write_str(a))?;
            f.write_char(')')?;
        }
        Ok(())
    }
}

impl Display for FunctionCall {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        ident(f, &self.name)?;
        f.write_char('(')?;
        if self.star {
            f.write_char('*')?;
        } else {
            if self.distinct {
                f.write_str("DISTINCT ")?;
            }
            exprs(f, &self.args)?;
            if !self.order_by.is_empty() {
                f.write_char(' ')?;
                order_by(f, &self.order_by)?;
            }
        }
        f.write_char(')')?;
        if let Some(filter) = &self.filter {
            write!(f, " FILTER (WHERE {filter})")?;
        }
        match &self.over {
            Some(Over::Named(name)) => {
                f.write_str(" OVER ")?;
                ident(f, name)
            }
            Some(Over::Spec(spec)) => write!(f, " OVER ({spec})"),
            None => Ok(()),
        }
    }
}

impl Display for WindowSpec {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        let mut sep = "";
        if let Some(base) = &self.base {
            ident(f, base)?;
            sep = " ";
        }
        if !self.partition_by.is_empty() {
            write!(f, "{sep}PARTITION BY ")?;
            exprs(f, &self.partition_by)?;
            sep = " ";
        }
        if !self.order_by.is_empty() {
            f.write_str(sep)?;
            order_by(f, &self.order_by)?;
            sep = " ";
        }
        if let Some(frame) = &self.frame {
            write!(f, "{sep}{frame}")?;
        }
        Ok(())
    }
}

impl Display for Frame {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        f.write_str(match self.units {
            FrameUnits::Rows => "ROWS ",
            FrameUnits::Range => "RANGE ",
            FrameUnits::Groups => "GROUPS ",
        })?;
        match &self.end {
            Some(end) => write!(f, "BETWEEN {} AND {end}", self.start)?,
            None => write!(f, "{}", self.start)?,
        }
        match self.exclude {
            Some(FrameExclude::NoOthers) => f.write_str(" EXCLUDE NO OTHERS"),
            Some(FrameExclude::CurrentRow) => f.write_str(" EXCLUDE CURRENT ROW"),
            Some(FrameExclude::Group) => f.write_str(" EXCLUDE GROUP"),
            Some(FrameExclude::Ties) => f.write_str(" EXCLUDE TIES"),
            None => Ok(()),
        }
    }
}

impl Display for FrameBound {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        match self {
            FrameBound::UnboundedPreceding => f.write_str("UNBOUNDED PRECEDING"),
            FrameBound::Preceding(e) => {
                operand(f, e, LEVEL_ATOM)?;
                f.write_str(" PRECEDING")
            }
            FrameBound::CurrentRow => f.write_str("CURRENT ROW"),
            FrameBound::Following(e) => {
                operand(f, e, LEVEL_ATOM)?;
                f.write_str(" FOLLOWING")
            }
            FrameBound::UnboundedFollowing => f.write_str("UNBOUNDED FOLLOWING"),
        }
    }
}

// ---------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------

fn order_by(f: &mut Formatter<'_>, terms: &[OrderingTerm]) -> R {
    f.write_str("ORDER BY ")?;
    list(f, terms, |f, t| write!(f, "{t}"))
}

impl Display for OrderingTerm {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        write!(f, "{}", self.expr)?;
        match self.order {
            Some(SortOrder::Asc) => f.write_str(" ASC")?,
            Some(SortOrder::Desc) => f.write_str(" DESC")?,
            None => {}
        }
        match self.nulls {
            Some(NullsOrder::First) => f.write_str(" NULLS FIRST"),
            Some(NullsOrder::Last) => f.write_str(" NULLS LAST"),
            None => Ok(()),
        }
    }
}

impl Display for With {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        f.write_str(if self.recursive {
            "WITH RECURSIVE "
        } else {
            "WITH "
        })?;
        list(f, &self.ctes, |f, cte| {
            ident(f, &cte.name)?;
            if !cte.columns.is_empty() {
                idents(f, &cte.columns)?;
            }
            f.write_str(" AS ")?;
            match cte.materialized {
                Some(true) => f.write_str("MATERIALIZED ")?,
                Some(false) => f.write_str("NOT MATERIALIZED ")?,
                None => {}
            }
            write!(f, "({})", cte.select)
        })
    }
}

impl Display for Select {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        if let Some(with) = &self.with {
            write!(f, "{with} ")?;
        }
        write!(f, "{}", self.first)?;
        for (op, core) in &self.compounds {
            let op = match op {
                CompoundOperator::Union => "UNION",
                CompoundOperator::UnionAll => "UNION ALL",
                CompoundOperator::Intersect => "INTERSECT",
                CompoundOperator::Except => "EXCEPT",
            };
            write!(f, " {op} {core}")?;
        }
        if !self.order_by.is_empty() {
            f.write_char(' ')?;
            order_by(f, &self.order_by)?;
        }
        if let Some(limit) = &self.limit {
            write!(f, " LIMIT {}", limit.limit)?;
            if let Some(offset) = &limit.offset {
                write!(f, " OFFSET {offset}")?;
            }
        }
        Ok(())
    }
}

fn values(f: &mut Formatter<'_>, rows: &[Vec<Expr>]) -> R {
    f.write_str("VALUES ")?;
    list(f, rows, |f, row| {
        f.write_char('(')?;
        exprs(f, row)?;
        f.write_char(')')
    })
}

impl Display for SelectCore {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        match self {
            SelectCore::Values { rows, .. } => values(f, rows),
            SelectCore::Select(s) => {
                f.write_str(if s.distinct {
                    "SELECT DISTINCT "
                } else {
                    "SELECT "
                })?;
                list(f, &s.columns, |f, c| write!(f, "{c}"))?;
                if let Some(from) = &s.from {
                    write!(f, " FROM {from}")?;
                }
                if let Some(w) = &s.where_clause {
                    write!(f, " WHERE {w}")?;
                }
                if !s.group_by.is_empty() {
                    f.write_str(" GROUP BY ")?;
                    exprs(f, &s.group_by)?;
                }
                if let Some(h) = &s.having {
                    write!(f, " HAVING {h}")?;
                }
                if !s.windows.is_empty() {
                    f.write_str(" WINDOW ")?;
                    list(f, &s.windows, |f, w| {
                        ident(f, &w.name)?;
                        write!(f, " AS ({})", w.spec)
                    })?;
                }
                Ok(())
            }
        }
    }
}

fn alias(f: &mut Formatter<'_>, alias: &Option<Ident>) -> R {
    if let Some(a) = alias {
        f.write_str(" AS ")?;
        ident(f, a)?;
    }
    Ok(())
}

impl Display for ResultColumn {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        match self {
            ResultColumn::Star { .. } => f.write_char('*'),
            ResultColumn::TableStar { table, .. } => {
                ident(f, table)?;
                f.write_str(".*")
            }
            ResultColumn::Expr { expr, alias: a, .. } => {
                write!(f, "{expr}")?;
                alias(f, a)
            }
        }
    }
}

impl Display for FromClause {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        write!(f, "{}", self.first)?;
        for join in &self.joins {
            let op = &join.operator;
            if op.kind == JoinKind::Comma {
                f.write_str(", ")?;
            } else {
                f.write_str(if op.natural { " NATURAL " } else { " " })?;
                f.write_str(match op.kind {
                    JoinKind::Left => "LEFT JOIN ",
                    JoinKind::Right => "RIGHT JOIN ",
                    JoinKind::Full => "FULL JOIN ",
                    JoinKind::Cross => "CROSS JOIN ",
                    JoinKind::Inner | JoinKind::Comma => "JOIN ",
                })?;
            }
            write!(f, "{}", join.table)?;
            match &join.constraint {
                Some(JoinConstraint::On(e)) => write!(f, " ON {e}")?,
                Some(JoinConstraint::Using(cols)) => {
                    f.write_str(" USING ")?;
                    idents(f, cols)?;
                }
                None => {}
            }
        }
        Ok(())
    }
}

pub(super) fn indexed(f: &mut Formatter<'_>, indexed: &Option<Indexed>) -> R {
    match indexed {
        Some(Indexed::By(name)) => {
            f.write_str(" INDEXED BY ")?;
            ident(f, name)
        }
        Some(Indexed::NotIndexed) => f.write_str(" NOT INDEXED"),
        None => Ok(()),
    }
}

impl Display for TableOrSubquery {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        match self {
            TableOrSubquery::Table {
                name,
                alias: a,
                indexed: i,
            } => {
                write!(f, "{name}")?;
                alias(f, a)?;
                indexed(f, i)
            }
            TableOrSubquery::Function {
                name,
                args,
                alias: a,
            } => {
                write!(f, "{name}(")?;
                exprs(f, args)?;
                f.write_char(')')?;
                alias(f, a)
            }
            TableOrSubquery::Subquery {
                select, alias: a, ..
            } => {
                write!(f, "({select})")?;
                alias(f, a)
            }
            TableOrSubquery::Nested { from, .. } => write!(f, "({from})"),
        }
    }
}
