//! The parser's cursor over one statement's tokens: lookahead, keyword and
//! punctuation expectations, the identifier rules, parameter numbering,
//! SQLite-style error messages, and the nesting-depth bound.
//!
//! A statement's tokens are lexed up front, up to and including its `;`
//! (or the end of the text, or the first illegal token), which gives the
//! parser cheap arbitrary lookahead. A `;` ends every statement but CREATE
//! TRIGGER, whose body holds statements each ended by one: its tokens run
//! to the `;` after the END that closes its body ([`TriggerEnd`]), so this
//! never lexes into the next statement either.
//!
//! Depth: every recursive descent into an expression or query goes through
//! [`Parser::enter`], and every expression node built by the iterative
//! operator loop counts as one level too, so the height of every tree the
//! parser builds is at most [`MAX_DEPTH`] (SQLite's SQLITE_MAX_EXPR_DEPTH is
//! also 1000). That bounds every later recursive walk over the tree
//! (binding, evaluation, rendering, drop).
//!
//! Stack: a level of nesting costs the parser between ~0.6 and ~5 KiB of
//! stack in a release build and up to ~20 KiB in an unoptimised one (a
//! scalar subquery), so a depth bound alone cannot keep a 1 MiB stack (a
//! wasm32 default) safe in every build. [`Parser::enter`] therefore also
//! measures the stack used since the statement's parse began, by comparing
//! the addresses of locals, and fails past [`MAX_PARSER_STACK`]. Both limits
//! produce the same typed error. (On a platform whose stack grew upwards the
//! measurement would read 0 and only the depth bound would apply; wasm32
//! and every native target TinyJoin builds for grow downwards.)

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::sql::ast::Ident;
use crate::sql::lexer::{self, Keyword, Lexer, Token, TokenKind};
use crate::sql::nesting::stack_address;

/// The deepest nesting of expressions and queries the parser accepts.
pub(crate) const MAX_DEPTH: u32 = 1000;

/// The most stack, in bytes, the parser may use for one statement: a third
/// of a 1 MiB stack, leaving the rest to the caller and to later walks over
/// the tree.
pub(crate) const MAX_PARSER_STACK: usize = 384 << 10;

/// The longest statement, in bytes, the parser accepts (SQLite's default
/// SQLITE_MAX_SQL_LENGTH is 1e9; a smaller bound keeps a runaway statement
/// from exhausting a wasm heap before it is rejected).
pub(crate) const MAX_STATEMENT_LEN: usize = 256 << 20;

/// The initial capacity of a statement's token buffer.
const TYPICAL_TOKEN_COUNT: usize = 48;

/// The largest `?NNN` parameter number (SQLite's SQLITE_MAX_VARIABLE_NUMBER).
pub(crate) const MAX_PARAM_INDEX: u32 = 32766;

/// Where a CREATE TRIGGER's tokens end, as its tokens are lexed: a
/// statement whose first keywords are CREATE [TEMP | TEMPORARY] TRIGGER is
/// in its body from its BEGIN until the END that closes it, and a `;` there
/// ends a statement of the body, not the trigger. Inside the body END also
/// closes a CASE, so CASE ... END pairs are counted. (An END used as a bare
/// name inside a body would end it early, and the statement then fails to
/// parse: quote such a name.)
#[derive(Default)]
struct TriggerEnd {
    state: TriggerState,
    /// CASE expressions open in the body.
    cases: u32,
}

#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum TriggerState {
    /// Nothing seen yet.
    #[default]
    Start,
    /// CREATE seen.
    Create,
    /// CREATE TEMP seen.
    CreateTemp,
    /// CREATE [TEMP] TRIGGER seen, not yet its BEGIN.
    Head,
    /// In the body.
    Body,
    /// Another statement, or past the body.
    Other,
}

impl TriggerEnd {
    fn see(&mut self, kind: TokenKind) {
        use TriggerState::*;
        let k = match kind {
            TokenKind::Keyword(k) => Some(k),
            _ => None,
        };
        self.state = match (self.state, k) {
            (Start, Some(Keyword::Create)) => Create,
            (Create, Some(Keyword::Temp | Keyword::Temporary)) => CreateTemp,
            (Create | CreateTemp, Some(Keyword::Trigger)) => Head,
            (Head, Some(Keyword::Begin)) => Body,
            (Head, _) => Head,
            (Body, Some(Keyword::Case)) => {
                self.cases += 1;
                Body
            }
            (Body, Some(Keyword::End)) if self.cases > 0 => {
                self.cases -= 1;
                Body
            }
            (Body, Some(Keyword::End)) => Other,
            (Body, _) => Body,
            _ => Other,
        };
    }

    /// Whether a `;` here ends a statement of a trigger's body.
    fn in_body(&self) -> bool {
        self.state == TriggerState::Body
    }
}

/// The parser state for one statement.
pub(crate) struct Parser<'a> {
    pub(super) sql: &'a str,
    tokens: Vec<Token>,
    next: usize,
    depth: u32,
    /// [`stack_address`] when the statement's parse began.
    stack_base: usize,
    /// Parameter slots so far: `params[i]` is parameter `i + 1`'s name.
    pub(super) params: Vec<Option<String>>,
    /// Named parameters seen so far, to their index (a map, so a statement
    /// with thousands of names stays linear).
    param_index: HashMap<&'a str, u32>,
}

impl<'a> Parser<'a> {
    /// A parser for the statement that starts at or after byte `start` of
    /// `sql` (leading whitespace, comments and empty statements skipped).
    /// `Ok(None)` when no statement is left.
    pub(super) fn for_statement_at(sql: &'a str, start: usize) -> Result<Option<Parser<'a>>> {
        let mut lexer = Lexer::new(sql, start);
        let mut first = lexer.next_token();
        while first.kind == TokenKind::Semicolon {
            first = lexer.next_token();
        }
        if first.kind == TokenKind::Eof {
            return Ok(None);
        }
        // Most statements have a few dozen tokens; starting there saves the
        // early reallocations (a measurable share of parsing a short one).
        let mut tokens = Vec::with_capacity(TYPICAL_TOKEN_COUNT);
        tokens.push(first);
        let mut last = first;
        let mut trigger = TriggerEnd::default();
        trigger.see(last.kind);
        while !matches!(last.kind, TokenKind::Eof | TokenKind::Illegal)
            && (last.kind != TokenKind::Semicolon || trigger.in_body())
        {
            last = lexer.next_token();
            trigger.see(last.kind);
            if last.end - first.start > MAX_STATEMENT_LEN {
                return Err(Error::Syntax {
                    message: format!("statement too long (the limit is {MAX_STATEMENT_LEN} bytes)"),
                    position: first.start,
                });
            }
            tokens.push(last);
        }
        if last.kind != TokenKind::Eof {
            // Parsing stops at `;` or an illegal token; a sentinel keeps
            // lookahead past it in bounds.
            tokens.push(Token {
                kind: TokenKind::Eof,
                start: last.end,
                end: last.end,
            });
        }
        Ok(Some(Parser {
            sql,
            tokens,
            next: 0,
            depth: 0,
            stack_base: stack_address(),
            params: Vec::new(),
            param_index: HashMap::new(),
        }))
    }

    // --- lookahead ------------------------------------------------------

    /// The current token.
    pub(super) fn tok(&self) -> Token {
        self.tokens[self.next.min(self.tokens.len() - 1)]
    }

    /// The current token's kind.
    pub(super) fn peek(&self) -> TokenKind {
        self.tok().kind
    }

    /// The kind of the token `n` places after the current one (`Eof` past
    /// the end).
    pub(super) fn peek_at(&self, n: usize) -> TokenKind {
        self.tokens
            .get(self.next + n)
            .map_or(TokenKind::Eof, |t| t.kind)
    }

    /// The token `n` places after the current one (the final token past
    /// the end).
    pub(super) fn token_at(&self, n: usize) -> Token {
        self.tokens[(self.next + n).min(self.tokens.len() - 1)]
    }

    /// Whether the token `n` places ahead can be a name (see [`Parser::at_name`]).
    pub(super) fn name_at(&self, n: usize) -> bool {
        match self.peek_at(n) {
            TokenKind::Ident | TokenKind::QuotedIdent(_) | TokenKind::String => true,
            TokenKind::Keyword(k) => !k.is_reserved() || is_name_keyword(k),
            _ => false,
        }
    }

    /// Whether a query (`SELECT`, `VALUES` or `WITH`) starts at the cursor.
    pub(super) fn at_select_start(&self) -> bool {
        matches!(
            self.peek(),
            TokenKind::Keyword(Keyword::Select | Keyword::Values | Keyword::With)
        )
    }

    /// The byte position of the current token.
    pub(super) fn pos(&self) -> usize {
        self.tok().start
    }

    /// The text of `t`.
    pub(super) fn text(&self, t: Token) -> &'a str {
        &self.sql[t.start..t.end]
    }

    /// The end offset of the last consumed token.
    pub(super) fn prev_end(&self) -> usize {
        match self.next {
            0 => self.tok().start,
            n => self.tokens[n - 1].end,
        }
    }

    /// Consumes and returns the current token (never past the final `Eof`,
    /// `;` or illegal token).
    pub(super) fn advance(&mut self) -> Token {
        let t = self.tok();
        if !matches!(
            t.kind,
            TokenKind::Eof | TokenKind::Semicolon | TokenKind::Illegal
        ) {
            self.next += 1;
        }
        t
    }

    /// Whether the current token is keyword `k`.
    pub(super) fn is_kw(&self, k: Keyword) -> bool {
        self.peek() == TokenKind::Keyword(k)
    }

    /// Whether the token `n` places ahead is keyword `k`.
    pub(super) fn is_kw_at(&self, n: usize, k: Keyword) -> bool {
        self.peek_at(n) == TokenKind::Keyword(k)
    }

    /// Consumes keyword `k` if it is next.
    pub(super) fn eat_kw(&mut self, k: Keyword) -> bool {
        let hit = self.is_kw(k);
        if hit {
            self.next += 1;
        }
        hit
    }

    /// Consumes keyword `k` or fails with a syntax error at the current token.
    pub(super) fn expect_kw(&mut self, k: Keyword) -> Result<Token> {
        if self.is_kw(k) {
            Ok(self.advance())
        } else {
            Err(self.unexpected())
        }
    }

    /// Consumes the `;` that ends a statement of a trigger's body (any
    /// other `;` ends the whole statement and is never consumed).
    pub(super) fn expect_body_semicolon(&mut self) -> Result<()> {
        if self.peek() != TokenKind::Semicolon {
            return Err(self.unexpected());
        }
        self.next += 1;
        Ok(())
    }

    /// Consumes a token of `kind` if it is next.
    pub(super) fn eat(&mut self, kind: TokenKind) -> bool {
        let hit = self.peek() == kind && !matches!(kind, TokenKind::Eof | TokenKind::Semicolon);
        if hit {
            self.next += 1;
        }
        hit
    }

    /// Consumes a token of `kind` or fails with a syntax error.
    pub(super) fn expect(&mut self, kind: TokenKind) -> Result<Token> {
        if self.peek() == kind {
            Ok(self.advance())
        } else {
            Err(self.unexpected())
        }
    }

    // --- errors ---------------------------------------------------------

    /// The error for the current token being where it is, worded like
    /// SQLite's: `near "X": syntax error`, `incomplete input`, or
    /// `unrecognized token: "X"`.
    pub(super) fn unexpected(&self) -> Error {
        self.near(self.tok())
    }

    /// The syntax error for token `t` (see [`Parser::unexpected`]).
    pub(super) fn near(&self, t: Token) -> Error {
        let message = match t.kind {
            TokenKind::Eof => "incomplete input".to_string(),
            TokenKind::Illegal => format!("unrecognized token: \"{}\"", self.text(t)),
            _ => format!("near \"{}\": syntax error", self.text(t)),
        };
        Error::Syntax {
            message,
            position: t.start,
        }
    }

    /// A syntax error with a custom message at `position`.
    pub(super) fn error_at(&self, position: usize, message: impl Into<String>) -> Error {
        Error::Syntax {
            message: message.into(),
            position,
        }
    }

    /// An error for valid SQLite syntax that TinyJoin does not support.
    pub(super) fn unsupported(&self, position: usize, what: &str) -> Error {
        Error::Sql {
            message: format!("{what} not supported"),
            position: Some(position),
        }
    }

    // --- depth ------------------------------------------------------------

    /// Enters one level of nesting; fails past [`MAX_DEPTH`] levels or
    /// [`MAX_PARSER_STACK`] bytes of stack.
    pub(super) fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_at(
                self.pos(),
                format!("expression tree is too large (maximum depth {MAX_DEPTH})"),
            ));
        }
        if self.stack_base.saturating_sub(stack_address()) > MAX_PARSER_STACK {
            return Err(self.error_at(
                self.pos(),
                "expression tree is too large (nested too deeply)",
            ));
        }
        Ok(())
    }

    /// Leaves `levels` levels of nesting entered with [`Parser::enter`].
    pub(super) fn leave(&mut self, levels: u32) {
        self.depth -= levels;
    }

    // --- names ------------------------------------------------------------

    /// Whether the current token can be a name (`nm` in SQLite's grammar):
    /// an identifier, a quoted identifier, a string, a non-reserved keyword,
    /// or one of the reserved keywords SQLite also takes as names (the join
    /// keywords and INDEXED, see [`is_name_keyword`]).
    pub(super) fn at_name(&self) -> bool {
        self.name_at(0)
    }

    /// Consumes a name (see [`Parser::at_name`]) and returns it unquoted.
    pub(super) fn name(&mut self) -> Result<Ident> {
        if !self.at_name() {
            return Err(self.unexpected());
        }
        let t = self.advance();
        Ok(lexer::unquote_identifier(self.text(t)))
    }

    /// Whether the current token can be an alias written without AS (`ids`
    /// in SQLite's grammar): an identifier, quoted identifier, string or
    /// non-reserved keyword, except WINDOW when it starts a WINDOW clause.
    pub(super) fn at_implicit_alias(&self) -> bool {
        match self.peek() {
            TokenKind::Ident | TokenKind::QuotedIdent(_) | TokenKind::String => true,
            TokenKind::Keyword(k) => !k.is_reserved() && !self.at_window_clause(),
            _ => false,
        }
    }

    /// Whether a WINDOW clause starts here: SQLite's tokenizer reads WINDOW
    /// as a keyword only before `name AS`, and as an identifier otherwise.
    pub(super) fn at_window_clause(&self) -> bool {
        self.is_kw(Keyword::Window) && self.id_at(1) && self.is_kw_at(2, Keyword::As)
    }

    /// Whether the token `n` places ahead counts as an identifier for
    /// SQLite's tokenizer when it decides whether WINDOW and OVER are
    /// keywords (`getToken` in `tokenize.c`): any name but INDEXED.
    pub(super) fn id_at(&self, n: usize) -> bool {
        self.name_at(n) && self.peek_at(n) != TokenKind::Keyword(Keyword::Indexed)
    }

    /// Consumes an `ids` (see [`Parser::at_implicit_alias`]; WINDOW
    /// included): the names SQLite allows for collations and type words.
    pub(super) fn ids(&mut self) -> Result<Ident> {
        if !(self.at_implicit_alias() || self.at_window_clause()) {
            return Err(self.unexpected());
        }
        let t = self.advance();
        Ok(lexer::unquote_identifier(self.text(t)))
    }

    /// `[AS] alias`, if present.
    pub(super) fn alias(&mut self) -> Result<Option<Ident>> {
        if self.eat_kw(Keyword::As) {
            return self.name().map(Some);
        }
        if self.at_implicit_alias() {
            return self.name().map(Some);
        }
        Ok(None)
    }

    /// `( name, ... )`.
    pub(super) fn name_list(&mut self) -> Result<Vec<Ident>> {
        self.expect(TokenKind::LParen)?;
        let mut names = vec![self.name()?];
        while self.eat(TokenKind::Comma) {
            names.push(self.name()?);
        }
        self.expect(TokenKind::RParen)?;
        Ok(names)
    }

    // --- parameters -------------------------------------------------------

    /// The slot of the parameter token `t` (see `ExprKind::Param`), as
    /// `(index, name)`.
    pub(super) fn param(&mut self, t: Token) -> Result<(u32, Option<String>)> {
        let text = self.text(t);
        if text == "?" {
            if self.params.len() >= MAX_PARAM_INDEX as usize {
                return Err(self.error_at(t.start, "too many SQL variables"));
            }
            self.params.push(None);
            return Ok((self.params.len() as u32, None));
        }
        if let Some(&index) = self.param_index.get(text) {
            return Ok((index, Some(text.to_string())));
        }
        let index = if let Some(digits) = text.strip_prefix('?') {
            let index = digits
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=MAX_PARAM_INDEX).contains(n));
            let index = index.ok_or_else(|| {
                self.error_at(
                    t.start,
                    format!("variable number must be between ?1 and ?{MAX_PARAM_INDEX}"),
                )
            })?;
            let slot = index as usize - 1;
            if self.params.len() <= slot {
                self.params.resize(slot + 1, None);
            }
            if self.params[slot].is_none() {
                self.params[slot] = Some(text.to_string());
            }
            index
        } else {
            if self.params.len() >= MAX_PARAM_INDEX as usize {
                return Err(self.error_at(t.start, "too many SQL variables"));
            }
            self.params.push(Some(text.to_string()));
            self.params.len() as u32
        };
        self.param_index.insert(text, index);
        Ok((index, Some(text.to_string())))
    }
}

/// The reserved keywords SQLite nevertheless accepts as names of tables,
/// columns and functions (`idj` in its grammar): the join keywords and
/// INDEXED. They are never implicit aliases, so `FROM a LEFT JOIN b` still
/// reads LEFT as a join.
pub(super) fn is_name_keyword(k: Keyword) -> bool {
    matches!(
        k,
        Keyword::Left
            | Keyword::Right
            | Keyword::Full
            | Keyword::Inner
            | Keyword::Cross
            | Keyword::Natural
            | Keyword::Outer
            | Keyword::Indexed
    )
}
