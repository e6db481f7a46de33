//! Expressions: precedence climbing over SQLite's operator table.
//!
//! Binding power, loosest first (SQLite's `parse.y` precedence
//! declarations; "Operators, and Parse-Affecting Attributes" in its docs):
//!
//! | level | operators                                                        |
//! |-------|------------------------------------------------------------------|
//! | 1     | `OR`                                                             |
//! | 2     | `AND`                                                            |
//! | 3     | prefix `NOT`                                                     |
//! | 4     | `= == != <> IS [NOT] [DISTINCT FROM] IN LIKE GLOB MATCH REGEXP BETWEEN ISNULL NOTNULL NOT NULL` |
//! | 5     | `< <= > >=`                                                      |
//! | 6     | `& \| << >>`                                                     |
//! | 7     | `+ -`                                                            |
//! | 8     | `* / %`                                                          |
//! | 9     | `\|\| -> ->>`                                                    |
//! | 10    | postfix `COLLATE`                                                |
//! | 11    | prefix `- + ~`                                                   |
//!
//! All infix operators associate to the left. A prefix operator's operand
//! is parsed at the operator's own level, so `NOT a = b` is `NOT (a = b)`
//! and `-a COLLATE x` is `(-a) COLLATE x`, as in SQLite. The upper bound of
//! BETWEEN and the pattern of LIKE are parsed one level above equality, so
//! `a BETWEEN b AND c` never reads `AND` as a conjunction; the lower bound
//! also takes equality-level operators (see `negatable_operator`). A test
//! checks this grouping against SQLite itself on random expressions.

use crate::error::{Error, Result};
use crate::sql::ast::{
    BinaryOp, ColumnRef, Expr, ExprKind, FunctionCall, LikeOp, Literal, Over, QualifiedName,
    RaiseAction, TypeName, UnaryOp,
};
use crate::sql::lexer::{self, IntegerValue, Keyword, Quote, TokenKind};

use super::cursor::{is_name_keyword, Parser};

const LEVEL_OR: u8 = 1;
const LEVEL_AND: u8 = 2;
const LEVEL_NOT: u8 = 3;
const LEVEL_EQUALITY: u8 = 4;
const LEVEL_COMPARISON: u8 = 5;
const LEVEL_BITWISE: u8 = 6;
const LEVEL_ADDITIVE: u8 = 7;
const LEVEL_MULTIPLICATIVE: u8 = 8;
const LEVEL_CONCAT: u8 = 9;
const LEVEL_COLLATE: u8 = 10;
const LEVEL_UNARY: u8 = 11;

impl<'a> Parser<'a> {
    /// One expression.
    pub(super) fn expr(&mut self) -> Result<Expr> {
        self.expr_at(0)
    }

    /// `expr, expr, ...` (at least one).
    pub(super) fn expr_list(&mut self) -> Result<Vec<Expr>> {
        let mut list = vec![self.expr()?];
        while self.eat(TokenKind::Comma) {
            list.push(self.expr()?);
        }
        Ok(list)
    }

    /// An expression whose operators all bind at least as tightly as `min`.
    fn expr_at(&mut self, min: u8) -> Result<Expr> {
        self.enter()?;
        let mut levels = 1;
        let mut lhs = self.prefix()?;
        while let Some(level) = self.infix_level() {
            if level < min {
                break;
            }
            // Each node the loop builds is one more level of tree height.
            self.enter()?;
            levels += 1;
            lhs = self.infix(lhs, level)?;
        }
        self.leave(levels);
        Ok(lhs)
    }

    /// The level of the infix/postfix operator at the cursor, if any.
    fn infix_level(&self) -> Option<u8> {
        use Keyword as K;
        Some(match self.peek() {
            TokenKind::Keyword(K::Or) => LEVEL_OR,
            TokenKind::Keyword(K::And) => LEVEL_AND,
            TokenKind::Keyword(
                K::Is
                | K::In
                | K::Like
                | K::Glob
                | K::Match
                | K::Regexp
                | K::Between
                | K::Isnull
                | K::Notnull,
            ) => LEVEL_EQUALITY,
            // After an operand, NOT can only start `NOT IN|LIKE|..|NULL`; what
            // follows it is checked there, so the error names that token, as
            // SQLite's does.
            TokenKind::Keyword(K::Not) => LEVEL_EQUALITY,
            TokenKind::Eq | TokenKind::Ne => LEVEL_EQUALITY,
            TokenKind::Lt | TokenKind::Le | TokenKind::Gt | TokenKind::Ge => LEVEL_COMPARISON,
            TokenKind::BitAnd | TokenKind::BitOr | TokenKind::ShiftLeft | TokenKind::ShiftRight => {
                LEVEL_BITWISE
            }
            TokenKind::Plus | TokenKind::Minus => LEVEL_ADDITIVE,
            TokenKind::Star | TokenKind::Slash | TokenKind::Percent => LEVEL_MULTIPLICATIVE,
            TokenKind::Concat | TokenKind::Arrow | TokenKind::Arrow2 => LEVEL_CONCAT,
            TokenKind::Keyword(K::Collate) => LEVEL_COLLATE,
            _ => return None,
        })
    }

    /// Parses the operator at the cursor (of `level`) and its right side.
    fn infix(&mut self, lhs: Expr, level: u8) -> Result<Expr> {
        let pos = self.pos();
        if let TokenKind::Keyword(
            Keyword::In
            | Keyword::Like
            | Keyword::Glob
            | Keyword::Match
            | Keyword::Regexp
            | Keyword::Between,
        ) = self.peek()
        {
            return self.negatable_operator(lhs, false, pos);
        }
        let op_token = self.advance();
        let op = match op_token.kind {
            TokenKind::Keyword(Keyword::Or) => BinaryOp::Or,
            TokenKind::Keyword(Keyword::And) => BinaryOp::And,
            TokenKind::Eq => BinaryOp::Eq,
            TokenKind::Ne => BinaryOp::Ne,
            TokenKind::Lt => BinaryOp::Lt,
            TokenKind::Le => BinaryOp::Le,
            TokenKind::Gt => BinaryOp::Gt,
            TokenKind::Ge => BinaryOp::Ge,
            TokenKind::BitAnd => BinaryOp::BitAnd,
            TokenKind::BitOr => BinaryOp::BitOr,
            TokenKind::ShiftLeft => BinaryOp::ShiftLeft,
            TokenKind::ShiftRight => BinaryOp::ShiftRight,
            TokenKind::Plus => BinaryOp::Add,
            TokenKind::Minus => BinaryOp::Sub,
            TokenKind::Star => BinaryOp::Mul,
            TokenKind::Slash => BinaryOp::Div,
            TokenKind::Percent => BinaryOp::Rem,
            TokenKind::Concat => BinaryOp::Concat,
            TokenKind::Arrow => BinaryOp::JsonArrow,
            TokenKind::Arrow2 => BinaryOp::JsonArrow2,
            TokenKind::Keyword(Keyword::Collate) => {
                let collation = self.ids()?;
                return Ok(Expr {
                    kind: ExprKind::Collate {
                        expr: Box::new(lhs),
                        collation,
                    },
                    pos,
                });
            }
            TokenKind::Keyword(Keyword::Isnull) => return Ok(is_null(lhs, false, pos)),
            TokenKind::Keyword(Keyword::Notnull) => return Ok(is_null(lhs, true, pos)),
            TokenKind::Keyword(Keyword::Is) => return self.is_operator(lhs, pos),
            TokenKind::Keyword(Keyword::Not) => {
                if self.eat_kw(Keyword::Null) {
                    return Ok(is_null(lhs, true, pos));
                }
                return self.negatable_operator(lhs, true, pos);
            }
            _ => return Err(self.near(op_token)),
        };
        let rhs = self.expr_at(level + 1)?;
        Ok(Expr {
            kind: ExprKind::Binary {
                op,
                left: Box::new(lhs),
                right: Box::new(rhs),
            },
            pos,
        })
    }

    /// After `IS`: `[NOT] [DISTINCT FROM] rhs`.
    fn is_operator(&mut self, lhs: Expr, pos: usize) -> Result<Expr> {
        let not = self.eat_kw(Keyword::Not);
        let distinct = self.eat_kw(Keyword::Distinct);
        if distinct {
            self.expect_kw(Keyword::From)?;
        }
        let rhs = self.expr_at(LEVEL_EQUALITY + 1)?;
        if !distinct && rhs.kind == ExprKind::Literal(Literal::Null) {
            return Ok(is_null(lhs, not, pos));
        }
        // IS DISTINCT FROM is IS NOT; IS NOT DISTINCT FROM is IS.
        let op = if not != distinct {
            BinaryOp::IsNot
        } else {
            BinaryOp::Is
        };
        Ok(Expr {
            kind: ExprKind::Binary {
                op,
                left: Box::new(lhs),
                right: Box::new(rhs),
            },
            pos,
        })
    }

    /// `IN`, `LIKE`-family and `BETWEEN`, after an optional `NOT`.
    fn negatable_operator(&mut self, lhs: Expr, negated: bool, pos: usize) -> Result<Expr> {
        let t = self.tok();
        let like = match t.kind {
            TokenKind::Keyword(Keyword::In) => {
                self.advance();
                return self.in_operator(lhs, negated, pos);
            }
            TokenKind::Keyword(Keyword::Between) => {
                self.advance();
                // SQLite's LALR parser shifts any operator but AND into the
                // lower bound (`a BETWEEN b = c AND d`), so the lower bound
                // takes equality-level operators; the upper bound does not
                // (`a BETWEEN b AND c = d` is `(a BETWEEN b AND c) = d`).
                let low = self.expr_at(LEVEL_EQUALITY)?;
                self.expect_kw(Keyword::And)?;
                let high = self.expr_at(LEVEL_EQUALITY + 1)?;
                let kind = ExprKind::Between {
                    negated,
                    expr: Box::new(lhs),
                    low: Box::new(low),
                    high: Box::new(high),
                };
                return Ok(Expr { kind, pos });
            }
            TokenKind::Keyword(Keyword::Like) => LikeOp::Like,
            TokenKind::Keyword(Keyword::Glob) => LikeOp::Glob,
            TokenKind::Keyword(Keyword::Match) => LikeOp::Match,
            TokenKind::Keyword(Keyword::Regexp) => LikeOp::Regexp,
            _ => return Err(self.unexpected()),
        };
        self.advance();
        let pattern = self.expr_at(LEVEL_EQUALITY + 1)?;
        let escape = if self.eat_kw(Keyword::Escape) {
            Some(Box::new(self.expr_at(LEVEL_EQUALITY + 1)?))
        } else {
            None
        };
        let kind = ExprKind::Like {
            op: like,
            negated,
            expr: Box::new(lhs),
            pattern: Box::new(pattern),
            escape,
        };
        Ok(Expr { kind, pos })
    }

    /// After `[NOT] IN`: `(select)`, `(list)`, `table` or `tablefn(args)`.
    fn in_operator(&mut self, lhs: Expr, negated: bool, pos: usize) -> Result<Expr> {
        let expr = Box::new(lhs);
        if self.eat(TokenKind::LParen) {
            let kind = if self.at_select_start() {
                let select = Box::new(self.select()?);
                ExprKind::InSelect {
                    negated,
                    expr,
                    select,
                }
            } else if self.peek() == TokenKind::RParen {
                ExprKind::InList {
                    negated,
                    expr,
                    list: Vec::new(),
                }
            } else {
                ExprKind::InList {
                    negated,
                    expr,
                    list: self.expr_list()?,
                }
            };
            self.expect(TokenKind::RParen)?;
            return Ok(Expr { kind, pos });
        }
        let table = self.qualified_name()?;
        let args = if self.eat(TokenKind::LParen) {
            let args = if self.peek() == TokenKind::RParen {
                Vec::new()
            } else {
                self.expr_list()?
            };
            self.expect(TokenKind::RParen)?;
            Some(args)
        } else {
            None
        };
        Ok(Expr {
            kind: ExprKind::InTable {
                negated,
                expr,
                table,
                args,
            },
            pos,
        })
    }

    /// A prefix operator and its operand, or a primary expression.
    fn prefix(&mut self) -> Result<Expr> {
        let pos = self.pos();
        let op = match self.peek() {
            TokenKind::Minus => {
                if matches!(self.peek_at(1), TokenKind::Integer | TokenKind::QNumber) {
                    let digits = self.number_text(self.token_at(1))?;
                    if let (
                        IntegerValue::TooBig {
                            is_i64_min_magnitude: true,
                            ..
                        },
                        TokenKind::Integer,
                    ) = (lexer::parse_integer(&digits.0), digits.1)
                    {
                        self.advance();
                        self.advance();
                        return Ok(Expr {
                            kind: ExprKind::Literal(Literal::Integer(i64::MIN)),
                            pos,
                        });
                    }
                }
                UnaryOp::Neg
            }
            TokenKind::Plus => UnaryOp::Plus,
            TokenKind::Tilde => UnaryOp::BitNot,
            TokenKind::Keyword(Keyword::Not) => UnaryOp::Not,
            _ => return self.primary(),
        };
        self.advance();
        let level = if op == UnaryOp::Not {
            LEVEL_NOT
        } else {
            LEVEL_UNARY
        };
        let operand = self.expr_at(level)?;
        Ok(Expr {
            kind: ExprKind::Unary {
                op,
                expr: Box::new(operand),
            },
            pos,
        })
    }

    /// Literals, parameters, names, calls, parentheses, CAST, CASE, EXISTS.
    pub(super) fn primary(&mut self) -> Result<Expr> {
        let t = self.tok();
        let pos = t.start;
        let literal = |l: Literal| {
            Ok(Expr {
                kind: ExprKind::Literal(l),
                pos,
            })
        };
        match t.kind {
            TokenKind::Integer | TokenKind::Real | TokenKind::QNumber => {
                let (text, kind) = self.number_text(t)?;
                self.advance();
                if kind == TokenKind::Real {
                    return literal(Literal::Real(lexer::parse_real(&text)));
                }
                match lexer::parse_integer(&text) {
                    IntegerValue::Int(v) => literal(Literal::Integer(v)),
                    IntegerValue::TooBig { value, .. } => literal(Literal::Real(value)),
                    IntegerValue::HexTooBig => {
                        Err(self.error_at(pos, format!("hex literal too big: {text}")))
                    }
                }
            }
            // SQLite takes a string before `.` as a qualifier: `'t'.a`.
            TokenKind::String if self.peek_at(1) == TokenKind::Dot => self.name_expr(),
            TokenKind::String => {
                self.advance();
                literal(Literal::Text(lexer::unescape_string(self.text(t))))
            }
            TokenKind::Blob => {
                self.advance();
                literal(Literal::Blob(lexer::decode_blob(self.text(t))))
            }
            TokenKind::Param => {
                self.advance();
                let (index, name) = self.param(t)?;
                Ok(Expr {
                    kind: ExprKind::Param { index, name },
                    pos,
                })
            }
            TokenKind::LParen => self.parenthesized(),
            TokenKind::Keyword(k) => self.keyword_primary(k),
            TokenKind::Ident | TokenKind::QuotedIdent(_) => self.name_expr(),
            _ => Err(self.unexpected()),
        }
    }

    /// A primary expression that starts with keyword `k`.
    fn keyword_primary(&mut self, k: Keyword) -> Result<Expr> {
        let pos = self.pos();
        let call_follows = self.peek_at(1) == TokenKind::LParen;
        let literal = match k {
            Keyword::Null => Literal::Null,
            Keyword::CurrentTime => Literal::CurrentTime,
            Keyword::CurrentDate => Literal::CurrentDate,
            Keyword::CurrentTimestamp => Literal::CurrentTimestamp,
            // CAST starts a cast wherever an expression may start; SQLite's
            // grammar has no name fallback for it there (`SELECT cast` fails).
            Keyword::Cast => return self.cast(),
            Keyword::Case => return self.case(),
            Keyword::Exists => {
                self.advance();
                self.expect(TokenKind::LParen)?;
                let select = self.select()?;
                self.expect(TokenKind::RParen)?;
                return Ok(Expr {
                    kind: ExprKind::Exists(Box::new(select)),
                    pos,
                });
            }
            Keyword::Raise if call_follows => return self.raise(),
            _ if !k.is_reserved() || is_name_keyword(k) => return self.name_expr(),
            _ => return Err(self.unexpected()),
        };
        self.advance();
        Ok(Expr {
            kind: ExprKind::Literal(literal),
            pos,
        })
    }

    /// `RAISE(IGNORE)` or `RAISE(ROLLBACK | ABORT | FAIL, message)` (the
    /// binder allows it only in a trigger's statements).
    fn raise(&mut self) -> Result<Expr> {
        let pos = self.advance().start;
        self.expect(TokenKind::LParen)?;
        let action = match self.peek() {
            TokenKind::Keyword(Keyword::Ignore) => RaiseAction::Ignore,
            TokenKind::Keyword(Keyword::Rollback) => RaiseAction::Rollback,
            TokenKind::Keyword(Keyword::Abort) => RaiseAction::Abort,
            TokenKind::Keyword(Keyword::Fail) => RaiseAction::Fail,
            _ => return Err(self.unexpected()),
        };
        self.advance();
        let message = match action {
            RaiseAction::Ignore => None,
            _ => {
                self.expect(TokenKind::Comma)?;
                Some(self.name()?)
            }
        };
        self.expect(TokenKind::RParen)?;
        Ok(Expr {
            kind: ExprKind::Raise { action, message },
            pos,
        })
    }

    /// `( select )`, `( expr )` or a row value `( expr, expr, ... )`.
    fn parenthesized(&mut self) -> Result<Expr> {
        let pos = self.pos();
        self.advance();
        if self.at_select_start() {
            let select = self.select()?;
            self.expect(TokenKind::RParen)?;
            return Ok(Expr {
                kind: ExprKind::Subquery(Box::new(select)),
                pos,
            });
        }
        let mut list = self.expr_list()?;
        self.expect(TokenKind::RParen)?;
        if list.len() == 1 {
            return Ok(list.pop().expect("list has one element"));
        }
        Ok(Expr {
            kind: ExprKind::Row(list),
            pos,
        })
    }

    /// A column reference, TRUE/FALSE, or a function call: the current
    /// token is a name (or a keyword allowed as a function name).
    fn name_expr(&mut self) -> Result<Expr> {
        let t = self.advance();
        let pos = t.start;
        let first = lexer::unquote_identifier(self.text(t));
        if self.peek() == TokenKind::LParen {
            return self.function_call(first, pos);
        }
        if self.eat(TokenKind::Dot) {
            let second = self.name()?;
            let column = if self.eat(TokenKind::Dot) {
                let column = self.name()?;
                ColumnRef {
                    schema: Some(first),
                    table: Some(second),
                    column,
                    double_quoted: false,
                }
            } else {
                ColumnRef {
                    schema: None,
                    table: Some(first),
                    column: second,
                    double_quoted: false,
                }
            };
            return Ok(Expr {
                kind: ExprKind::Column(column),
                pos,
            });
        }
        if t.kind == TokenKind::Ident {
            if first.eq_ignore_ascii_case("true") {
                return Ok(Expr {
                    kind: ExprKind::Literal(Literal::Bool(true)),
                    pos,
                });
            }
            if first.eq_ignore_ascii_case("false") {
                return Ok(Expr {
                    kind: ExprKind::Literal(Literal::Bool(false)),
                    pos,
                });
            }
        }
        let double_quoted = t.kind == TokenKind::QuotedIdent(Quote::Double);
        let column = ColumnRef {
            schema: None,
            table: None,
            column: first,
            double_quoted,
        };
        Ok(Expr {
            kind: ExprKind::Column(column),
            pos,
        })
    }

    /// `name( [DISTINCT] args [ORDER BY ..] | * ) [FILTER (WHERE e)] [OVER ..]`,
    /// the cursor on `(`.
    fn function_call(&mut self, name: String, pos: usize) -> Result<Expr> {
        self.expect(TokenKind::LParen)?;
        let mut call = FunctionCall {
            name,
            distinct: false,
            star: false,
            args: Vec::new(),
            order_by: Vec::new(),
            filter: None,
            over: None,
        };
        if self.eat(TokenKind::Star) {
            call.star = true;
        } else if self.peek() != TokenKind::RParen {
            call.distinct = self.eat_kw(Keyword::Distinct);
            if !call.distinct {
                self.eat_kw(Keyword::All);
            }
            // SQLite's grammar lets the list be empty after DISTINCT/ALL
            // (`f(ALL)` is `f()`; `count(DISTINCT)` fails when bound), and
            // before an ORDER BY, which a call without arguments ignores
            // (its names are not even resolved: SQLite drops it unread).
            if self.peek() != TokenKind::RParen {
                if !self.is_kw(Keyword::Order) {
                    call.args = self.expr_list()?;
                }
                if self.is_kw(Keyword::Order) {
                    let order_by = self.order_by()?;
                    if !call.args.is_empty() {
                        call.order_by = order_by;
                    }
                }
            }
        }
        self.expect(TokenKind::RParen)?;
        if self.is_kw(Keyword::Filter)
            && self.peek_at(1) == TokenKind::LParen
            && self.is_kw_at(2, Keyword::Where)
        {
            self.advance();
            self.advance();
            self.advance();
            call.filter = Some(Box::new(self.expr()?));
            self.expect(TokenKind::RParen)?;
        }
        // OVER is a keyword only when a window follows (SQLite's rule), so
        // `SELECT f(x) over FROM t` still reads `over` as an alias.
        if self.is_kw(Keyword::Over) && (self.peek_at(1) == TokenKind::LParen || self.id_at(1)) {
            self.advance();
            call.over = Some(if self.eat(TokenKind::LParen) {
                let spec = self.window_spec()?;
                Over::Spec(spec)
            } else {
                Over::Named(self.name()?)
            });
            if !call.order_by.is_empty() {
                // A window function's input order is its window's: SQLite
                // refuses this while parsing.
                return Err(Error::Sql {
                    message: format!(
                        "ORDER BY may not be used with non-aggregate {}()",
                        call.name
                    ),
                    position: Some(pos),
                });
            }
        }
        Ok(Expr {
            kind: ExprKind::Function(Box::new(call)),
            pos,
        })
    }

    /// `CAST ( expr AS type )`.
    fn cast(&mut self) -> Result<Expr> {
        let pos = self.advance().start;
        self.expect(TokenKind::LParen)?;
        let expr = self.expr()?;
        self.expect_kw(Keyword::As)?;
        let type_name = self.type_name()?.unwrap_or(TypeName {
            name: String::new(),
            args: Vec::new(),
        });
        self.expect(TokenKind::RParen)?;
        Ok(Expr {
            kind: ExprKind::Cast {
                expr: Box::new(expr),
                type_name,
            },
            pos,
        })
    }

    /// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`.
    fn case(&mut self) -> Result<Expr> {
        let pos = self.advance().start;
        let operand = if self.is_kw(Keyword::When) {
            None
        } else {
            Some(Box::new(self.expr()?))
        };
        let mut when_then = Vec::new();
        while self.eat_kw(Keyword::When) {
            let when = self.expr()?;
            self.expect_kw(Keyword::Then)?;
            when_then.push((when, self.expr()?));
        }
        if when_then.is_empty() {
            return Err(self.unexpected());
        }
        let else_expr = if self.eat_kw(Keyword::Else) {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        self.expect_kw(Keyword::End)?;
        Ok(Expr {
            kind: ExprKind::Case {
                operand,
                when_then,
                else_expr,
            },
            pos,
        })
    }

    /// A type name (words and optional `(n[, m])`); `None` when no word is
    /// at the cursor. Stops at `GENERATED ALWAYS`, which starts a column
    /// constraint. (SQLite's parser reads those two words into the type and
    /// drops them again when the generated column is added, so the declared
    /// type is the same; a lone GENERATED stays a type word there and here.)
    pub(super) fn type_name(&mut self) -> Result<Option<TypeName>> {
        let mut name = String::new();
        while (self.at_implicit_alias() || self.at_window_clause())
            && !(self.is_kw(Keyword::Generated) && self.is_kw_at(1, Keyword::Always))
        {
            if !name.is_empty() {
                name.push(' ');
            }
            name.push_str(&self.ids()?);
        }
        if name.is_empty() {
            return Ok(None);
        }
        let mut args = Vec::new();
        if self.eat(TokenKind::LParen) {
            args.push(self.signed_number_text()?);
            if self.eat(TokenKind::Comma) {
                args.push(self.signed_number_text()?);
            }
            self.expect(TokenKind::RParen)?;
        }
        Ok(Some(TypeName { name, args }))
    }

    /// A number token's text, its `_` separators removed, and whether it
    /// is an integer or a real ([`TokenKind::Integer`] or
    /// [`TokenKind::Real`]); SQLite's error for a misplaced separator.
    pub(super) fn number_text(
        &self,
        t: crate::sql::lexer::Token,
    ) -> Result<(std::borrow::Cow<'a, str>, TokenKind)> {
        let text = self.text(t);
        match t.kind {
            TokenKind::QNumber => match lexer::dequote_number(text) {
                Some((clean, true)) => Ok((clean.into(), TokenKind::Integer)),
                Some((clean, false)) => Ok((clean.into(), TokenKind::Real)),
                None => Err(self.error_at(t.start, format!("unrecognized token: \"{text}\""))),
            },
            kind => Ok((text.into(), kind)),
        }
    }

    /// `[+|-] number`, as written without spaces.
    fn signed_number_text(&mut self) -> Result<String> {
        let mut text = String::new();
        if matches!(self.peek(), TokenKind::Plus | TokenKind::Minus) {
            let t = self.advance();
            text.push_str(self.text(t));
        }
        match self.peek() {
            TokenKind::Integer | TokenKind::Real => {
                let t = self.advance();
                text.push_str(self.text(t));
                Ok(text)
            }
            _ => Err(self.unexpected()),
        }
    }

    /// `[schema.]name`.
    pub(super) fn qualified_name(&mut self) -> Result<QualifiedName> {
        let pos = self.pos();
        let first = self.name()?;
        if self.eat(TokenKind::Dot) {
            let name = self.name()?;
            return Ok(QualifiedName {
                schema: Some(first),
                name,
                pos,
            });
        }
        Ok(QualifiedName {
            schema: None,
            name: first,
            pos,
        })
    }
}

fn is_null(expr: Expr, negated: bool, pos: usize) -> Expr {
    Expr {
        kind: ExprKind::IsNull {
            negated,
            expr: Box::new(expr),
        },
        pos,
    }
}
