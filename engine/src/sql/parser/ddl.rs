//! Schema statements: CREATE TABLE (columns, constraints, options, AS
//! SELECT), CREATE INDEX, CREATE VIEW, CREATE TRIGGER, DROP, ALTER TABLE.
//! CREATE VIRTUAL TABLE is recognised and rejected as unsupported.

use crate::error::Result;
use crate::sql::ast::{
    AlterAction, AlterTable, ColumnConstraint, ColumnConstraintKind, ColumnDef, CreateIndex,
    CreateTable, CreateTableBody, CreateTrigger, CreateView, DropKind, DropObject, Expr, ExprKind,
    ForeignKeyAction, ForeignKeyClause, IndexedColumn, Literal, Statement, TableConstraint,
    TableConstraintKind, TriggerEvent, TriggerTiming, UnaryOp,
};
use crate::sql::lexer::{self, Keyword, TokenKind};

use super::cursor::Parser;

impl<'a> Parser<'a> {
    /// `CREATE ...`.
    pub(super) fn create(&mut self) -> Result<Statement> {
        let pos = self.expect_kw(Keyword::Create)?.start;
        let temporary = self.eat_kw(Keyword::Temp) || self.eat_kw(Keyword::Temporary);
        match self.peek() {
            TokenKind::Keyword(Keyword::Table) => self.create_table(temporary, pos),
            TokenKind::Keyword(Keyword::View) => self.create_view(temporary, pos),
            TokenKind::Keyword(Keyword::Unique | Keyword::Index) if !temporary => {
                self.create_index(pos)
            }
            TokenKind::Keyword(Keyword::Trigger) => self.create_trigger(temporary, pos),
            TokenKind::Keyword(Keyword::Virtual) if !temporary => {
                Err(self.unsupported(pos, "virtual tables are"))
            }
            _ => Err(self.unexpected()),
        }
    }

    /// `IF NOT EXISTS`, if present.
    fn if_not_exists(&mut self) -> Result<bool> {
        if !self.eat_kw(Keyword::If) {
            return Ok(false);
        }
        self.expect_kw(Keyword::Not)?;
        self.expect_kw(Keyword::Exists)?;
        Ok(true)
    }

    fn create_table(&mut self, temporary: bool, pos: usize) -> Result<Statement> {
        self.expect_kw(Keyword::Table)?;
        let if_not_exists = self.if_not_exists()?;
        let name = self.qualified_name()?;
        if self.eat_kw(Keyword::As) {
            let select = Box::new(self.select()?);
            let body = CreateTableBody::AsSelect(select);
            return Ok(Statement::CreateTable(Box::new(CreateTable {
                temporary,
                if_not_exists,
                name,
                body,
                pos,
            })));
        }
        self.expect(TokenKind::LParen)?;
        let mut columns = Vec::new();
        let mut constraints = Vec::new();
        loop {
            if self.at_table_constraint() {
                // Once table constraints start, only constraints follow; the
                // commas between them are optional (SQLite's grammar).
                loop {
                    constraints.push(self.table_constraint()?);
                    if !self.eat(TokenKind::Comma) && !self.at_table_constraint() {
                        break;
                    }
                }
                break;
            }
            columns.push(self.column_def()?);
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        if columns.is_empty() {
            return Err(self.unexpected());
        }
        self.expect(TokenKind::RParen)?;
        let (mut without_rowid, mut strict) = (false, false);
        // SQLite's option list is `[option] (, option)*`: a comma may come
        // first (after the empty list) but never last.
        let mut option_required = self.eat(TokenKind::Comma);
        loop {
            if self.eat_kw(Keyword::Without) {
                let t = self.expect(TokenKind::Ident)?;
                if !self.text(t).eq_ignore_ascii_case("rowid") {
                    let message = format!("unknown table option: {}", self.text(t));
                    return Err(self.error_at(t.start, message));
                }
                without_rowid = true;
            } else if self.peek() == TokenKind::Ident
                && self.text(self.tok()).eq_ignore_ascii_case("strict")
            {
                self.advance();
                strict = true;
            } else if option_required {
                return Err(self.unexpected());
            } else {
                break;
            }
            if !self.eat(TokenKind::Comma) {
                break;
            }
            option_required = true;
        }
        let body = CreateTableBody::Columns {
            columns,
            constraints,
            without_rowid,
            strict,
        };
        Ok(Statement::CreateTable(Box::new(CreateTable {
            temporary,
            if_not_exists,
            name,
            body,
            pos,
        })))
    }

    fn at_table_constraint(&self) -> bool {
        matches!(
            self.peek(),
            TokenKind::Keyword(
                Keyword::Constraint
                    | Keyword::Primary
                    | Keyword::Unique
                    | Keyword::Check
                    | Keyword::Foreign
            )
        )
    }

    /// `name [type] [constraint]*`.
    pub(super) fn column_def(&mut self) -> Result<ColumnDef> {
        let pos = self.pos();
        let name = self.name()?;
        let type_name = self.type_name()?;
        let mut constraints: Vec<ColumnConstraint> = Vec::new();
        loop {
            // SQLite also takes a deferral clause on its own among column
            // constraints; it applies to the column's foreign key, if any.
            if let Some(deferred) = self.defer_subclause()? {
                if let Some(ColumnConstraintKind::References(clause)) =
                    constraints.last_mut().map(|c| &mut c.kind)
                {
                    clause.deferred = deferred;
                }
                continue;
            }
            match self.column_constraint()? {
                Some(constraint) => constraints.push(constraint),
                None => break,
            }
        }
        Ok(ColumnDef {
            name,
            type_name,
            constraints,
            pos,
        })
    }

    /// One column constraint, or `None` when none starts at the cursor.
    fn column_constraint(&mut self) -> Result<Option<ColumnConstraint>> {
        let pos = self.pos();
        let name = if self.eat_kw(Keyword::Constraint) {
            Some(self.name()?)
        } else {
            None
        };
        let TokenKind::Keyword(k) = self.peek() else {
            return if name.is_some() {
                Err(self.unexpected())
            } else {
                Ok(None)
            };
        };
        let kind = match k {
            Keyword::Primary => {
                self.advance();
                self.expect_kw(Keyword::Key)?;
                let order = self.sort_order();
                let conflict = self.on_conflict()?;
                let autoincrement = self.eat_kw(Keyword::Autoincrement);
                ColumnConstraintKind::PrimaryKey {
                    order,
                    conflict,
                    autoincrement,
                }
            }
            Keyword::Not => {
                self.advance();
                self.expect_kw(Keyword::Null)?;
                ColumnConstraintKind::NotNull {
                    conflict: self.on_conflict()?,
                }
            }
            Keyword::Null => {
                self.advance();
                self.on_conflict()?;
                ColumnConstraintKind::Null
            }
            Keyword::Unique => {
                self.advance();
                ColumnConstraintKind::Unique {
                    conflict: self.on_conflict()?,
                }
            }
            Keyword::Check => {
                self.advance();
                ColumnConstraintKind::Check(self.parenthesized_expr()?)
            }
            Keyword::Default => {
                self.advance();
                ColumnConstraintKind::Default(self.default_value()?)
            }
            Keyword::Collate => {
                self.advance();
                ColumnConstraintKind::Collate(self.name()?)
            }
            Keyword::References => ColumnConstraintKind::References(self.foreign_key_clause()?),
            Keyword::Generated | Keyword::As => {
                if self.eat_kw(Keyword::Generated) {
                    self.expect_kw(Keyword::Always)?;
                }
                self.expect_kw(Keyword::As)?;
                let expr = self.parenthesized_expr()?;
                let stored = if self.peek() == TokenKind::Ident
                    && self.text(self.tok()).eq_ignore_ascii_case("stored")
                {
                    self.advance();
                    true
                } else {
                    self.eat_kw(Keyword::Virtual);
                    false
                };
                ColumnConstraintKind::Generated { expr, stored }
            }
            _ if name.is_some() => return Err(self.unexpected()),
            _ => return Ok(None),
        };
        Ok(Some(ColumnConstraint { name, kind, pos }))
    }

    /// `( expr )`.
    fn parenthesized_expr(&mut self) -> Result<Expr> {
        self.expect(TokenKind::LParen)?;
        let expr = self.expr()?;
        self.expect(TokenKind::RParen)?;
        Ok(expr)
    }

    /// The value after DEFAULT: `(expr)`, a literal, a signed number, or a
    /// bare word (a text literal; TRUE/FALSE are booleans), as in SQLite.
    fn default_value(&mut self) -> Result<Expr> {
        let t = self.tok();
        let pos = t.start;
        let literal = match t.kind {
            TokenKind::LParen => return self.parenthesized_expr(),
            TokenKind::Plus | TokenKind::Minus
                if !matches!(
                    self.peek_at(1),
                    TokenKind::Integer | TokenKind::Real | TokenKind::QNumber
                ) =>
            {
                // `DEFAULT -'x'`: a sign before any other term.
                let op = if t.kind == TokenKind::Minus {
                    UnaryOp::Neg
                } else {
                    UnaryOp::Plus
                };
                self.advance();
                let operand = Box::new(self.primary()?);
                return Ok(Expr {
                    kind: ExprKind::Unary { op, expr: operand },
                    pos,
                });
            }
            TokenKind::Plus
            | TokenKind::Minus
            | TokenKind::Integer
            | TokenKind::Real
            | TokenKind::QNumber => self.signed_number(true)?,
            TokenKind::String => {
                // A literal, never a `'t'.column` qualifier (SQLite's `term`).
                self.advance();
                Literal::Text(lexer::unescape_string(self.text(t)))
            }
            TokenKind::Blob => return self.primary(),
            TokenKind::Keyword(
                Keyword::Null
                | Keyword::CurrentTime
                | Keyword::CurrentDate
                | Keyword::CurrentTimestamp,
            ) => return self.primary(),
            TokenKind::Ident | TokenKind::QuotedIdent(_) => {
                self.advance();
                let word = lexer::unquote_identifier(self.text(t));
                if t.kind == TokenKind::Ident && word.eq_ignore_ascii_case("true") {
                    Literal::Bool(true)
                } else if t.kind == TokenKind::Ident && word.eq_ignore_ascii_case("false") {
                    Literal::Bool(false)
                } else {
                    Literal::Text(word)
                }
            }
            TokenKind::Keyword(k) if !k.is_reserved() => {
                self.advance();
                Literal::Text(self.text(t).to_string())
            }
            _ => return Err(self.unexpected()),
        };
        Ok(Expr {
            kind: ExprKind::Literal(literal),
            pos,
        })
    }

    /// `ON CONFLICT resolution`, if present (column and table constraints).
    fn on_conflict(&mut self) -> Result<Option<crate::sql::ast::ConflictResolution>> {
        if !(self.is_kw(Keyword::On) && self.is_kw_at(1, Keyword::Conflict)) {
            return Ok(None);
        }
        self.advance();
        self.advance();
        self.conflict_resolution().map(Some)
    }

    /// `REFERENCES t [(cols)] [ON DELETE|UPDATE action | MATCH name]* [[NOT] DEFERRABLE [INITIALLY ..]]`.
    fn foreign_key_clause(&mut self) -> Result<ForeignKeyClause> {
        self.expect_kw(Keyword::References)?;
        let table = self.name()?;
        let columns = if self.peek() == TokenKind::LParen {
            self.name_list()?
        } else {
            Vec::new()
        };
        let mut clause = ForeignKeyClause {
            table,
            columns,
            on_delete: None,
            on_update: None,
            deferred: false,
        };
        loop {
            if self.is_kw(Keyword::On) && !self.is_kw_at(1, Keyword::Conflict) {
                self.advance();
                let is_delete = self.eat_kw(Keyword::Delete);
                if !is_delete {
                    self.expect_kw(Keyword::Update)?;
                }
                let action = self.foreign_key_action()?;
                if is_delete {
                    clause.on_delete = Some(action);
                } else {
                    clause.on_update = Some(action);
                }
            } else if self.eat_kw(Keyword::Match) {
                self.name()?;
            } else {
                break;
            }
        }
        if let Some(deferred) = self.defer_subclause()? {
            clause.deferred = deferred;
        }
        Ok(clause)
    }

    /// `[NOT] DEFERRABLE [INITIALLY DEFERRED|IMMEDIATE]`, if present: whether
    /// it makes a foreign key deferred.
    fn defer_subclause(&mut self) -> Result<Option<bool>> {
        let not = self.is_kw(Keyword::Not) && self.is_kw_at(1, Keyword::Deferrable);
        if not {
            self.advance();
        }
        if !self.eat_kw(Keyword::Deferrable) {
            return Ok(None);
        }
        let mut deferred = false;
        if self.eat_kw(Keyword::Initially) {
            if self.eat_kw(Keyword::Deferred) {
                deferred = !not;
            } else {
                self.expect_kw(Keyword::Immediate)?;
            }
        }
        Ok(Some(deferred))
    }

    fn foreign_key_action(&mut self) -> Result<ForeignKeyAction> {
        if self.eat_kw(Keyword::Set) {
            if self.eat_kw(Keyword::Null) {
                return Ok(ForeignKeyAction::SetNull);
            }
            self.expect_kw(Keyword::Default)?;
            return Ok(ForeignKeyAction::SetDefault);
        }
        if self.eat_kw(Keyword::Cascade) {
            return Ok(ForeignKeyAction::Cascade);
        }
        if self.eat_kw(Keyword::Restrict) {
            return Ok(ForeignKeyAction::Restrict);
        }
        self.expect_kw(Keyword::No)?;
        self.expect_kw(Keyword::Action)?;
        Ok(ForeignKeyAction::NoAction)
    }

    /// One table constraint.
    fn table_constraint(&mut self) -> Result<TableConstraint> {
        let pos = self.pos();
        let name = if self.eat_kw(Keyword::Constraint) {
            Some(self.name()?)
        } else {
            None
        };
        let kind = match self.peek() {
            TokenKind::Keyword(Keyword::Primary) => {
                self.advance();
                self.expect_kw(Keyword::Key)?;
                self.expect(TokenKind::LParen)?;
                let columns = self.indexed_columns_until_autoincrement()?;
                let autoincrement = self.eat_kw(Keyword::Autoincrement);
                self.expect(TokenKind::RParen)?;
                TableConstraintKind::PrimaryKey {
                    columns,
                    conflict: self.on_conflict()?,
                    autoincrement,
                }
            }
            TokenKind::Keyword(Keyword::Unique) => {
                self.advance();
                self.expect(TokenKind::LParen)?;
                let columns = self.indexed_columns()?;
                TableConstraintKind::Unique {
                    columns,
                    conflict: self.on_conflict()?,
                }
            }
            TokenKind::Keyword(Keyword::Check) => {
                self.advance();
                let expr = self.parenthesized_expr()?;
                self.on_conflict()?;
                TableConstraintKind::Check(expr)
            }
            TokenKind::Keyword(Keyword::Foreign) => {
                self.advance();
                self.expect_kw(Keyword::Key)?;
                let columns = self.name_list()?;
                TableConstraintKind::ForeignKey {
                    columns,
                    clause: self.foreign_key_clause()?,
                }
            }
            _ => return Err(self.unexpected()),
        };
        Ok(TableConstraint { name, kind, pos })
    }

    /// `col [ASC|DESC], ... )` after the `(`, through the `)`.
    pub(super) fn indexed_columns(&mut self) -> Result<Vec<IndexedColumn>> {
        let columns = self.indexed_columns_until_autoincrement()?;
        self.expect(TokenKind::RParen)?;
        Ok(columns)
    }

    /// `col [ASC|DESC], ...` without the closing `)`.
    fn indexed_columns_until_autoincrement(&mut self) -> Result<Vec<IndexedColumn>> {
        let mut columns = Vec::new();
        loop {
            let pos = self.pos();
            let expr = self.expr()?;
            let order = self.sort_order();
            columns.push(IndexedColumn { expr, order, pos });
            if !self.eat(TokenKind::Comma) {
                return Ok(columns);
            }
        }
    }

    /// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON t (cols) [WHERE e]`.
    fn create_index(&mut self, pos: usize) -> Result<Statement> {
        let unique = self.eat_kw(Keyword::Unique);
        self.expect_kw(Keyword::Index)?;
        let if_not_exists = self.if_not_exists()?;
        let name = self.qualified_name()?;
        self.expect_kw(Keyword::On)?;
        let table = self.name()?;
        self.expect(TokenKind::LParen)?;
        let columns = self.indexed_columns()?;
        let where_clause = if self.eat_kw(Keyword::Where) {
            Some(self.expr()?)
        } else {
            None
        };
        let index = CreateIndex {
            unique,
            if_not_exists,
            name,
            table,
            columns,
            where_clause,
            pos,
        };
        Ok(Statement::CreateIndex(Box::new(index)))
    }

    /// `CREATE [TEMP] VIEW [IF NOT EXISTS] name [(cols)] AS select`.
    fn create_view(&mut self, temporary: bool, pos: usize) -> Result<Statement> {
        self.expect_kw(Keyword::View)?;
        let if_not_exists = self.if_not_exists()?;
        let name = self.qualified_name()?;
        let columns = if self.peek() == TokenKind::LParen {
            self.name_list()?
        } else {
            Vec::new()
        };
        self.expect_kw(Keyword::As)?;
        let select = Box::new(self.select()?);
        Ok(Statement::CreateView(Box::new(CreateView {
            temporary,
            if_not_exists,
            name,
            columns,
            select,
            pos,
        })))
    }

    /// `CREATE [TEMP] TRIGGER [IF NOT EXISTS] name [BEFORE | AFTER | INSTEAD
    /// OF] DELETE | INSERT | UPDATE [OF columns] ON table [FOR EACH ROW]
    /// [WHEN expr] BEGIN statement; ... END`, the body's statements being
    /// INSERT, UPDATE, DELETE and SELECT.
    fn create_trigger(&mut self, temporary: bool, pos: usize) -> Result<Statement> {
        self.expect_kw(Keyword::Trigger)?;
        let if_not_exists = self.if_not_exists()?;
        let name = self.qualified_name()?;
        let timing = if self.eat_kw(Keyword::Before) {
            TriggerTiming::Before
        } else if self.eat_kw(Keyword::After) {
            TriggerTiming::After
        } else if self.eat_kw(Keyword::Instead) {
            self.expect_kw(Keyword::Of)?;
            TriggerTiming::InsteadOf
        } else {
            TriggerTiming::Before
        };
        let event = if self.eat_kw(Keyword::Delete) {
            TriggerEvent::Delete
        } else if self.eat_kw(Keyword::Insert) {
            TriggerEvent::Insert
        } else if self.eat_kw(Keyword::Update) {
            let mut columns = Vec::new();
            if self.eat_kw(Keyword::Of) {
                columns.push(self.name()?);
                while self.eat(TokenKind::Comma) {
                    columns.push(self.name()?);
                }
            }
            TriggerEvent::Update(columns)
        } else {
            return Err(self.unexpected());
        };
        self.expect_kw(Keyword::On)?;
        let table = self.qualified_name()?;
        if self.eat_kw(Keyword::For) {
            self.expect_kw(Keyword::Each)?;
            self.expect_kw(Keyword::Row)?;
        }
        let params_before = self.params.len();
        let when = if self.eat_kw(Keyword::When) {
            Some(self.expr()?)
        } else {
            None
        };
        self.expect_kw(Keyword::Begin)?;
        let mut body = Vec::new();
        loop {
            let start = self.pos();
            let statement = match self.peek() {
                TokenKind::Keyword(
                    Keyword::Insert
                    | Keyword::Replace
                    | Keyword::Update
                    | Keyword::Delete
                    | Keyword::Select
                    | Keyword::Values
                    | Keyword::With,
                ) => self.statement_body()?,
                _ => return Err(self.unexpected()),
            };
            if let Some(message) = trigger_statement_error(&statement) {
                return Err(crate::Error::Syntax {
                    message: message.to_string(),
                    position: start,
                });
            }
            body.push(statement);
            self.expect_body_semicolon()?;
            if self.eat_kw(Keyword::End) {
                break;
            }
        }
        if self.params.len() > params_before {
            return Err(crate::Error::Syntax {
                message: "trigger cannot use variables".into(),
                position: pos,
            });
        }
        Ok(Statement::CreateTrigger(Box::new(CreateTrigger {
            temporary,
            if_not_exists,
            name,
            timing,
            event,
            table,
            when,
            body,
            pos,
        })))
    }

    /// `DROP TABLE|INDEX|VIEW|TRIGGER [IF EXISTS] name`.
    pub(super) fn drop(&mut self) -> Result<Statement> {
        let pos = self.expect_kw(Keyword::Drop)?.start;
        let kind = match self.peek() {
            TokenKind::Keyword(Keyword::Table) => DropKind::Table,
            TokenKind::Keyword(Keyword::Index) => DropKind::Index,
            TokenKind::Keyword(Keyword::View) => DropKind::View,
            TokenKind::Keyword(Keyword::Trigger) => DropKind::Trigger,
            _ => return Err(self.unexpected()),
        };
        self.advance();
        let if_exists = if self.eat_kw(Keyword::If) {
            self.expect_kw(Keyword::Exists)?;
            true
        } else {
            false
        };
        let name = self.qualified_name()?;
        Ok(Statement::Drop(DropObject {
            kind,
            if_exists,
            name,
            pos,
        }))
    }

    /// `ALTER TABLE t RENAME TO n | RENAME [COLUMN] a TO b | ADD [COLUMN] def | DROP [COLUMN] c`.
    pub(super) fn alter_table(&mut self) -> Result<Statement> {
        let pos = self.expect_kw(Keyword::Alter)?.start;
        self.expect_kw(Keyword::Table)?;
        let table = self.qualified_name()?;
        let action = match self.peek() {
            TokenKind::Keyword(Keyword::Rename) => {
                self.advance();
                if self.eat_kw(Keyword::To) {
                    AlterAction::RenameTable(self.name()?)
                } else {
                    self.eat_kw(Keyword::Column);
                    let old = self.name()?;
                    self.expect_kw(Keyword::To)?;
                    AlterAction::RenameColumn {
                        old,
                        new: self.name()?,
                    }
                }
            }
            TokenKind::Keyword(Keyword::Add) => {
                self.advance();
                self.eat_kw(Keyword::Column);
                AlterAction::AddColumn(self.column_def()?)
            }
            TokenKind::Keyword(Keyword::Drop) => {
                self.advance();
                self.eat_kw(Keyword::Column);
                AlterAction::DropColumn(self.name()?)
            }
            _ => return Err(self.unexpected()),
        };
        Ok(Statement::AlterTable(Box::new(AlterTable {
            table,
            action,
            pos,
        })))
    }
}

/// What SQLite's grammar refuses in a statement of a trigger's body: a
/// schema-qualified target of INSERT, UPDATE or DELETE, and RETURNING.
fn trigger_statement_error(s: &Statement) -> Option<&'static str> {
    let (table, returning) = match s {
        Statement::Insert(i) => (&i.table, !i.returning.is_empty()),
        Statement::Update(u) => (&u.table, !u.returning.is_empty()),
        Statement::Delete(d) => (&d.table, !d.returning.is_empty()),
        _ => return None,
    };
    if table.schema.is_some() {
        return Some(
            "qualified table names are not allowed on INSERT, UPDATE, and DELETE statements within triggers",
        );
    }
    returning.then_some("cannot use RETURNING in a trigger")
}
