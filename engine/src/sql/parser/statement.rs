//! The parser's entry points ([`parse`], [`parse_next`]) and the dispatch on
//! a statement's first keyword, with the small statements parsed here:
//! transactions and savepoints, EXPLAIN, PRAGMA, ANALYZE, VACUUM, REINDEX.

use crate::error::Result;
use crate::sql::ast::{Literal, Pragma, PragmaValue, Statement, TransactionMode};
use crate::sql::lexer::{self, IntegerValue, Keyword, TokenKind};

use super::cursor::Parser;

/// One parsed statement and where it was in the text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Parsed {
    pub statement: Statement,
    /// Byte offset of the statement's first token.
    pub start: usize,
    /// Byte offset just past the statement's terminating `;`, or the
    /// length of the text when it has none. Parsing the rest of a script
    /// continues from here.
    pub end: usize,
    /// The statement's parameter slots: `params[i]` describes parameter
    /// `i + 1` (see `ExprKind::Param`), `Some(name)` for named ones (with
    /// their prefix: `":a"`, `"?3"`) and `None` for anonymous `?`. Its length
    /// is the number of parameters to bind (SQLite's
    /// `sqlite3_bind_parameter_count`).
    pub params: Vec<Option<String>>,
}

/// Parses every statement of `sql` (`;`-separated; empty statements are
/// skipped). Fails at the first statement that does not parse.
pub(crate) fn parse(sql: &str) -> Result<Vec<Statement>> {
    let mut statements = Vec::new();
    let mut offset = 0;
    while let Some(parsed) = parse_next(sql, offset)? {
        offset = parsed.end;
        statements.push(parsed.statement);
    }
    Ok(statements)
}

/// Parses the first statement at or after byte `start` of `sql`, for
/// preparing a script one statement at a time (like `sqlite3_prepare` with
/// its tail pointer). `Ok(None)` when only whitespace, comments and `;`s
/// remain. Error positions are offsets into the whole of `sql`. A `start`
/// that is not a char boundary of `sql` is an error.
pub(crate) fn parse_next(sql: &str, start: usize) -> Result<Option<Parsed>> {
    if !sql.is_char_boundary(start.min(sql.len())) {
        return Err(crate::Error::Misuse(format!(
            "parse offset {start} is not a character boundary"
        )));
    }
    let Some(mut parser) = Parser::for_statement_at(sql, start)? else {
        return Ok(None);
    };
    let start = parser.pos();
    let statement = parser.statement()?;
    let end = match parser.peek() {
        TokenKind::Semicolon => parser.tok().end,
        TokenKind::Eof => sql.len(),
        _ => return Err(parser.unexpected()),
    };
    Ok(Some(Parsed {
        statement,
        start,
        end,
        params: std::mem::take(&mut parser.params),
    }))
}

impl<'a> Parser<'a> {
    /// One statement, with an optional EXPLAIN [QUERY PLAN] prefix.
    pub(super) fn statement(&mut self) -> Result<Statement> {
        let pos = self.pos();
        if !self.eat_kw(Keyword::Explain) {
            return self.statement_body();
        }
        let query_plan = self.eat_kw(Keyword::Query);
        if query_plan {
            self.expect_kw(Keyword::Plan)?;
        }
        if self.is_kw(Keyword::Explain) {
            return Err(self.unexpected());
        }
        let statement = Box::new(self.statement_body()?);
        Ok(Statement::Explain {
            query_plan,
            statement,
            pos,
        })
    }

    pub(super) fn statement_body(&mut self) -> Result<Statement> {
        let pos = self.pos();
        let TokenKind::Keyword(k) = self.peek() else {
            return Err(self.unexpected());
        };
        match k {
            Keyword::Select | Keyword::Values => Ok(Statement::Select(Box::new(self.select()?))),
            Keyword::With => {
                let with = Some(self.with()?);
                match self.peek() {
                    TokenKind::Keyword(Keyword::Insert | Keyword::Replace) => self.insert(with),
                    TokenKind::Keyword(Keyword::Update) => self.update(with),
                    TokenKind::Keyword(Keyword::Delete) => self.delete(with),
                    _ => Ok(Statement::Select(Box::new(
                        self.select_after_with(with, pos)?,
                    ))),
                }
            }
            Keyword::Insert | Keyword::Replace => self.insert(None),
            Keyword::Update => self.update(None),
            Keyword::Delete => self.delete(None),
            Keyword::Create => self.create(),
            Keyword::Drop => self.drop(),
            Keyword::Alter => self.alter_table(),
            Keyword::Begin => self.begin(),
            Keyword::Commit | Keyword::End => {
                self.advance();
                self.transaction_name()?;
                Ok(Statement::Commit { pos })
            }
            Keyword::Rollback => self.rollback(),
            Keyword::Savepoint => {
                self.advance();
                Ok(Statement::Savepoint {
                    name: self.name()?,
                    pos,
                })
            }
            Keyword::Release => {
                self.advance();
                self.eat_kw(Keyword::Savepoint);
                Ok(Statement::Release {
                    name: self.name()?,
                    pos,
                })
            }
            Keyword::Pragma => self.pragma(),
            Keyword::Analyze => {
                self.advance();
                let name = if self.at_name() {
                    Some(self.qualified_name()?)
                } else {
                    None
                };
                Ok(Statement::Analyze { name, pos })
            }
            Keyword::Vacuum => {
                self.advance();
                let schema = if self.at_name() {
                    Some(self.name()?)
                } else {
                    None
                };
                let into = if self.eat_kw(Keyword::Into) {
                    Some(self.expr()?)
                } else {
                    None
                };
                Ok(Statement::Vacuum { schema, into, pos })
            }
            Keyword::Reindex => {
                self.advance();
                let name = if self.at_name() {
                    Some(self.qualified_name()?)
                } else {
                    None
                };
                Ok(Statement::Reindex { name, pos })
            }
            Keyword::Attach => Err(self.unsupported(pos, "ATTACH is")),
            Keyword::Detach => Err(self.unsupported(pos, "DETACH is")),
            _ => Err(self.unexpected()),
        }
    }

    /// `[TRANSACTION [name]]` after BEGIN/COMMIT/END/ROLLBACK (the name is
    /// accepted and ignored, as in SQLite).
    fn transaction_name(&mut self) -> Result<()> {
        if self.eat_kw(Keyword::Transaction) && self.at_name() {
            self.name()?;
        }
        Ok(())
    }

    fn begin(&mut self) -> Result<Statement> {
        let pos = self.advance().start;
        let mode = if self.eat_kw(Keyword::Immediate) {
            TransactionMode::Immediate
        } else if self.eat_kw(Keyword::Exclusive) {
            TransactionMode::Exclusive
        } else {
            self.eat_kw(Keyword::Deferred);
            TransactionMode::Deferred
        };
        self.transaction_name()?;
        Ok(Statement::Begin { mode, pos })
    }

    fn rollback(&mut self) -> Result<Statement> {
        let pos = self.advance().start;
        self.transaction_name()?;
        let savepoint = if self.eat_kw(Keyword::To) {
            self.eat_kw(Keyword::Savepoint);
            Some(self.name()?)
        } else {
            None
        };
        Ok(Statement::Rollback { savepoint, pos })
    }

    /// `PRAGMA [schema.]name [= value | (value)]`.
    fn pragma(&mut self) -> Result<Statement> {
        let pos = self.advance().start;
        let name = self.qualified_name()?;
        let value = if self.eat(TokenKind::Eq) {
            Some(self.pragma_value()?)
        } else if self.eat(TokenKind::LParen) {
            let value = self.pragma_value()?;
            self.expect(TokenKind::RParen)?;
            Some(value)
        } else {
            None
        };
        Ok(Statement::Pragma(Pragma { name, value, pos }))
    }

    /// A pragma argument: a signed number, a string, or a name, including
    /// the keywords SQLite allows there (`ON`, `DELETE`, `DEFAULT`, and the
    /// join keywords such as `FULL`).
    fn pragma_value(&mut self) -> Result<PragmaValue> {
        let t = self.tok();
        match t.kind {
            TokenKind::Plus | TokenKind::Minus | TokenKind::Integer | TokenKind::Real => {
                Ok(PragmaValue::Literal(self.signed_number(false)?))
            }
            TokenKind::String => {
                self.advance();
                Ok(PragmaValue::Literal(Literal::Text(lexer::unescape_string(
                    self.text(t),
                ))))
            }
            TokenKind::Ident | TokenKind::QuotedIdent(_) | TokenKind::Keyword(_)
                if self.at_name()
                    || self.is_kw(Keyword::On)
                    || self.is_kw(Keyword::Delete)
                    || self.is_kw(Keyword::Default) =>
            {
                self.advance();
                Ok(PragmaValue::Name(lexer::unquote_identifier(self.text(t))))
            }
            _ => Err(self.unexpected()),
        }
    }

    /// `[+|-] number` as a literal, the sign folded in (DEFAULT and PRAGMA).
    pub(super) fn signed_number(&mut self, separators: bool) -> Result<Literal> {
        let negative = match self.peek() {
            TokenKind::Minus => {
                self.advance();
                true
            }
            TokenKind::Plus => {
                self.advance();
                false
            }
            _ => false,
        };
        let t = self.tok();
        // DEFAULT takes a number with `_` separators, a pragma does not
        // (SQLite's grammar: `term` against `number`).
        let (text, kind) = match t.kind {
            TokenKind::QNumber if !separators => return Err(self.unexpected()),
            _ => self.number_text(t)?,
        };
        let text: &str = &text;
        let value = match kind {
            TokenKind::Integer => match lexer::parse_integer(text) {
                IntegerValue::Int(v) if negative => v
                    .checked_neg()
                    .map_or(Literal::Real(-(v as f64)), Literal::Integer),
                IntegerValue::Int(v) => Literal::Integer(v),
                IntegerValue::TooBig {
                    is_i64_min_magnitude: true,
                    ..
                } if negative => Literal::Integer(i64::MIN),
                IntegerValue::TooBig { value, .. } => {
                    Literal::Real(if negative { -value } else { value })
                }
                IntegerValue::HexTooBig => {
                    return Err(self.error_at(t.start, format!("hex literal too big: {text}")))
                }
            },
            TokenKind::Real => {
                let v = lexer::parse_real(text);
                Literal::Real(if negative { -v } else { v })
            }
            _ => return Err(self.unexpected()),
        };
        self.advance();
        Ok(value)
    }
}
