//! Data-changing statements: INSERT/REPLACE (with upsert), UPDATE, DELETE,
//! and their shared pieces (conflict clauses, SET lists, RETURNING).

use crate::error::Result;
use crate::sql::ast::{
    Assignment, ConflictResolution, Delete, ExprKind, Insert, InsertSource, ResultColumn, Select,
    SelectCore, Statement, Update, Upsert, UpsertAction, UpsertTarget, With,
};
use crate::sql::lexer::{Keyword, TokenKind};

use super::cursor::Parser;

impl<'a> Parser<'a> {
    /// `INSERT [OR x] INTO ...` or `REPLACE INTO ...`, after an optional WITH.
    pub(super) fn insert(&mut self, with: Option<With>) -> Result<Statement> {
        let pos = with.as_ref().map_or(self.pos(), |w| w.pos);
        let or = if self.eat_kw(Keyword::Replace) {
            Some(ConflictResolution::Replace)
        } else {
            self.expect_kw(Keyword::Insert)?;
            self.or_conflict()?
        };
        self.expect_kw(Keyword::Into)?;
        let table = self.qualified_name()?;
        let alias = if self.eat_kw(Keyword::As) {
            Some(self.name()?)
        } else {
            None
        };
        let columns = if self.peek() == TokenKind::LParen {
            self.name_list()?
        } else {
            Vec::new()
        };
        let source = if self.eat_kw(Keyword::Default) {
            self.expect_kw(Keyword::Values)?;
            InsertSource::DefaultValues
        } else {
            if !self.at_select_start() {
                return Err(self.unexpected());
            }
            let select = self.select()?;
            let plain_values = select.with.is_none()
                && select.compounds.is_empty()
                && select.order_by.is_empty()
                && select.limit.is_none()
                && matches!(select.first, SelectCore::Values { .. });
            match select.first {
                SelectCore::Values { rows, .. } if plain_values => InsertSource::Values(rows),
                _ => InsertSource::Select(Box::new(select)),
            }
        };
        let mut upsert = Vec::new();
        while self.is_kw(Keyword::On) {
            if upsert.last().is_some_and(|u: &Upsert| u.target.is_none()) {
                return Err(self.error_at(
                    self.pos(),
                    "only the last ON CONFLICT clause may omit the conflict target",
                ));
            }
            if matches!(source, InsertSource::DefaultValues) {
                return Err(self.unexpected());
            }
            upsert.push(self.upsert()?);
        }
        let returning = self.returning()?;
        Ok(Statement::Insert(Box::new(Insert {
            with,
            or,
            table,
            alias,
            columns,
            source,
            upsert,
            returning,
            pos,
        })))
    }

    /// `ON CONFLICT [(cols) [WHERE e]] DO NOTHING | DO UPDATE SET .. [WHERE e]`.
    fn upsert(&mut self) -> Result<Upsert> {
        let pos = self.expect_kw(Keyword::On)?.start;
        self.expect_kw(Keyword::Conflict)?;
        let target = if self.eat(TokenKind::LParen) {
            let columns = self.indexed_columns()?;
            let where_clause = if self.eat_kw(Keyword::Where) {
                Some(self.expr()?)
            } else {
                None
            };
            Some(UpsertTarget {
                columns,
                where_clause,
            })
        } else {
            None
        };
        self.expect_kw(Keyword::Do)?;
        let action = if self.eat_kw(Keyword::Nothing) {
            UpsertAction::Nothing
        } else {
            self.expect_kw(Keyword::Update)?;
            self.expect_kw(Keyword::Set)?;
            let sets = self.assignments()?;
            let where_clause = if self.eat_kw(Keyword::Where) {
                Some(self.expr()?)
            } else {
                None
            };
            UpsertAction::Update { sets, where_clause }
        };
        Ok(Upsert {
            target,
            action,
            pos,
        })
    }

    /// `[WITH ..] UPDATE [OR x] t [AS a] [INDEXED ..] SET .. [FROM ..] [WHERE ..] [RETURNING ..]`.
    pub(super) fn update(&mut self, with: Option<With>) -> Result<Statement> {
        let pos = with.as_ref().map_or(self.pos(), |w| w.pos);
        self.expect_kw(Keyword::Update)?;
        let or = self.or_conflict()?;
        let table = self.qualified_name()?;
        let alias = if self.eat_kw(Keyword::As) {
            Some(self.name()?)
        } else {
            None
        };
        let indexed = self.indexed()?;
        self.expect_kw(Keyword::Set)?;
        let sets = self.assignments()?;
        let from = if self.eat_kw(Keyword::From) {
            Some(self.from()?)
        } else {
            None
        };
        let where_clause = if self.eat_kw(Keyword::Where) {
            Some(self.expr()?)
        } else {
            None
        };
        let returning = self.returning()?;
        let update = Update {
            with,
            or,
            table,
            alias,
            indexed,
            sets,
            from,
            where_clause,
            returning,
            pos,
        };
        Ok(Statement::Update(Box::new(update)))
    }

    /// `[WITH ..] DELETE FROM t [AS a] [INDEXED ..] [WHERE ..] [RETURNING ..]`.
    pub(super) fn delete(&mut self, with: Option<With>) -> Result<Statement> {
        let pos = with.as_ref().map_or(self.pos(), |w| w.pos);
        self.expect_kw(Keyword::Delete)?;
        self.expect_kw(Keyword::From)?;
        let table = self.qualified_name()?;
        let alias = if self.eat_kw(Keyword::As) {
            Some(self.name()?)
        } else {
            None
        };
        let indexed = self.indexed()?;
        let where_clause = if self.eat_kw(Keyword::Where) {
            Some(self.expr()?)
        } else {
            None
        };
        let returning = self.returning()?;
        Ok(Statement::Delete(Box::new(Delete {
            with,
            table,
            alias,
            indexed,
            where_clause,
            returning,
            pos,
        })))
    }

    /// `OR ROLLBACK|ABORT|FAIL|IGNORE|REPLACE`, if present.
    fn or_conflict(&mut self) -> Result<Option<ConflictResolution>> {
        if !self.eat_kw(Keyword::Or) {
            return Ok(None);
        }
        self.conflict_resolution().map(Some)
    }

    /// `ROLLBACK|ABORT|FAIL|IGNORE|REPLACE`.
    pub(super) fn conflict_resolution(&mut self) -> Result<ConflictResolution> {
        let resolution = match self.peek() {
            TokenKind::Keyword(Keyword::Rollback) => ConflictResolution::Rollback,
            TokenKind::Keyword(Keyword::Abort) => ConflictResolution::Abort,
            TokenKind::Keyword(Keyword::Fail) => ConflictResolution::Fail,
            TokenKind::Keyword(Keyword::Ignore) => ConflictResolution::Ignore,
            TokenKind::Keyword(Keyword::Replace) => ConflictResolution::Replace,
            _ => return Err(self.unexpected()),
        };
        self.advance();
        Ok(resolution)
    }

    /// `col = e` or `(a, b) = e`, comma-separated.
    fn assignments(&mut self) -> Result<Vec<Assignment>> {
        let mut sets = Vec::new();
        loop {
            let pos = self.pos();
            let columns = if self.peek() == TokenKind::LParen {
                self.name_list()?
            } else {
                vec![self.name()?]
            };
            self.expect(TokenKind::Eq)?;
            let value = self.expr()?;
            if columns.len() > 1 {
                // SQLite checks this while parsing; the width of a subquery
                // with `*` is only known once it is bound.
                let values = match &value.kind {
                    ExprKind::Row(items) => items.len(),
                    ExprKind::Subquery(select) => select_width(select).unwrap_or(columns.len()),
                    _ => 1,
                };
                if values != columns.len() {
                    let message = format!("{} columns assigned {values} values", columns.len());
                    return Err(self.error_at(value.pos, message));
                }
            }
            sets.push(Assignment {
                columns,
                value,
                pos,
            });
            if !self.eat(TokenKind::Comma) {
                return Ok(sets);
            }
        }
    }

    /// `RETURNING cols`, if present (empty when absent).
    fn returning(&mut self) -> Result<Vec<crate::sql::ast::ResultColumn>> {
        if self.eat_kw(Keyword::Returning) {
            self.result_columns()
        } else {
            Ok(Vec::new())
        }
    }
}

/// The number of columns `select` yields, when it is known without the
/// schema (no `*` in its first core).
fn select_width(select: &Select) -> Option<usize> {
    match &select.first {
        SelectCore::Values { rows, .. } => rows.first().map(Vec::len),
        SelectCore::Select(core) => {
            let star = core
                .columns
                .iter()
                .any(|c| !matches!(c, ResultColumn::Expr { .. }));
            (!star).then_some(core.columns.len())
        }
    }
}
