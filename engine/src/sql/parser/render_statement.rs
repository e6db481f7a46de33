//! `Display` for statements (DML, DDL, transactions, PRAGMA, ...), on top of
//! the expression and query rendering in `render`, whose round-trip rules
//! apply here too.

use std::fmt::{self, Display, Formatter, Write};

use super::render::{ident, idents, indexed, list};
use crate::sql::ast::*;

type R = fmt::Result;

fn conflict(resolution: ConflictResolution) -> &'static str {
    match resolution {
        ConflictResolution::Rollback => "ROLLBACK",
        ConflictResolution::Abort => "ABORT",
        ConflictResolution::Fail => "FAIL",
        ConflictResolution::Ignore => "IGNORE",
        ConflictResolution::Replace => "REPLACE",
    }
}

fn on_conflict(f: &mut Formatter<'_>, resolution: Option<ConflictResolution>) -> R {
    match resolution {
        Some(r) => write!(f, " ON CONFLICT {}", conflict(r)),
        None => Ok(()),
    }
}

fn with(f: &mut Formatter<'_>, with: &Option<With>) -> R {
    match with {
        Some(w) => write!(f, "{w} "),
        None => Ok(()),
    }
}

fn table_alias(f: &mut Formatter<'_>, alias: &Option<Ident>) -> R {
    if let Some(a) = alias {
        f.write_str(" AS ")?;
        ident(f, a)?;
    }
    Ok(())
}

fn where_clause(f: &mut Formatter<'_>, w: &Option<Expr>) -> R {
    match w {
        Some(e) => write!(f, " WHERE {e}"),
        None => Ok(()),
    }
}

fn returning(f: &mut Formatter<'_>, columns: &[ResultColumn]) -> R {
    if columns.is_empty() {
        return Ok(());
    }
    f.write_str(" RETURNING ")?;
    list(f, columns, |f, c| write!(f, "{c}"))
}

fn assignments(f: &mut Formatter<'_>, sets: &[Assignment]) -> R {
    list(f, sets, |f, a| {
        if a.columns.len() == 1 {
            ident(f, &a.columns[0])?;
        } else {
            idents(f, &a.columns)?;
        }
        write!(f, " = {}", a.value)
    })
}

fn indexed_columns(f: &mut Formatter<'_>, columns: &[IndexedColumn]) -> R {
    list(f, columns, |f, c| {
        write!(f, "{}", c.expr)?;
        match c.order {
            Some(SortOrder::Asc) => f.write_str(" ASC"),
            Some(SortOrder::Desc) => f.write_str(" DESC"),
            None => Ok(()),
        }
    })
}

impl Display for Statement {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        match self {
            Statement::Select(s) => write!(f, "{s}"),
            Statement::Insert(i) => write!(f, "{i}"),
            Statement::Update(u) => write!(f, "{u}"),
            Statement::Delete(d) => write!(f, "{d}"),
            Statement::CreateTable(c) => write!(f, "{c}"),
            Statement::CreateIndex(c) => write!(f, "{c}"),
            Statement::CreateView(c) => {
                f.write_str(if c.temporary {
                    "CREATE TEMP VIEW "
                } else {
                    "CREATE VIEW "
                })?;
                if c.if_not_exists {
                    f.write_str("IF NOT EXISTS ")?;
                }
                write!(f, "{}", c.name)?;
                if !c.columns.is_empty() {
                    idents(f, &c.columns)?;
                }
                write!(f, " AS {}", c.select)
            }
            Statement::CreateTrigger(c) => write!(f, "{c}"),
            Statement::Drop(d) => {
                f.write_str(match d.kind {
                    DropKind::Table => "DROP TABLE ",
                    DropKind::Index => "DROP INDEX ",
                    DropKind::View => "DROP VIEW ",
                    DropKind::Trigger => "DROP TRIGGER ",
                })?;
                if d.if_exists {
                    f.write_str("IF EXISTS ")?;
                }
                write!(f, "{}", d.name)
            }
            Statement::AlterTable(a) => write!(f, "{a}"),
            Statement::Begin { mode, .. } => f.write_str(match mode {
                TransactionMode::Deferred => "BEGIN",
                TransactionMode::Immediate => "BEGIN IMMEDIATE",
                TransactionMode::Exclusive => "BEGIN EXCLUSIVE",
            }),
            Statement::Commit { .. } => f.write_str("COMMIT"),
            Statement::Rollback {
                savepoint: None, ..
            } => f.write_str("ROLLBACK"),
            Statement::Rollback {
                savepoint: Some(name),
                ..
            } => {
                f.write_str("ROLLBACK TO SAVEPOINT ")?;
                ident(f, name)
            }
            Statement::Savepoint { name, .. } => {
                f.write_str("SAVEPOINT ")?;
                ident(f, name)
            }
            Statement::Release { name, .. } => {
                f.write_str("RELEASE SAVEPOINT ")?;
                ident(f, name)
            }
            Statement::Explain {
                query_plan,
                statement,
                ..
            } => {
                f.write_str(if *query_plan {
                    "EXPLAIN QUERY PLAN "
                } else {
                    "EXPLAIN "
                })?;
                write!(f, "{statement}")
            }
            Statement::Pragma(p) => {
                write!(f, "PRAGMA {}", p.name)?;
                match &p.value {
                    Some(PragmaValue::Name(name)) => {
                        f.write_str(" = ")?;
                        ident(f, name)
                    }
                    Some(PragmaValue::Literal(l)) => write!(f, " = {l}"),
                    None => Ok(()),
                }
            }
            Statement::Analyze { name, .. } => match name {
                Some(n) => write!(f, "ANALYZE {n}"),
                None => f.write_str("ANALYZE"),
            },
            Statement::Vacuum { schema, into, .. } => {
                f.write_str("VACUUM")?;
                if let Some(s) = schema {
                    f.write_char(' ')?;
                    ident(f, s)?;
                }
                match into {
                    Some(e) => write!(f, " INTO {e}"),
                    None => Ok(()),
                }
            }
            Statement::Reindex { name, .. } => match name {
                Some(n) => write!(f, "REINDEX {n}"),
                None => f.write_str("REINDEX"),
            },
        }
    }
}

impl Display for Insert {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        with(f, &self.with)?;
        f.write_str("INSERT ")?;
        if let Some(or) = self.or {
            write!(f, "OR {} ", conflict(or))?;
        }
        write!(f, "INTO {}", self.table)?;
        table_alias(f, &self.alias)?;
        if !self.columns.is_empty() {
            f.write_char(' ')?;
            idents(f, &self.columns)?;
        }
        match &self.source {
            InsertSource::Values(rows) => {
                f.write_str(" VALUES ")?;
                list(f, rows, |f, row| {
                    f.write_char('(')?;
                    list(f, row, |f, e| write!(f, "{e}"))?;
                    f.write_char(')')
                })?;
            }
            InsertSource::Select(s) => write!(f, " {s}")?,
            InsertSource::DefaultValues => f.write_str(" DEFAULT VALUES")?,
        }
        for u in &self.upsert {
            f.write_str(" ON CONFLICT")?;
            if let Some(target) = &u.target {
                f.write_str(" (")?;
                indexed_columns(f, &target.columns)?;
                f.write_char(')')?;
                where_clause(f, &target.where_clause)?;
            }
            match &u.action {
                UpsertAction::Nothing => f.write_str(" DO NOTHING")?,
                UpsertAction::Update {
                    sets,
                    where_clause: w,
                } => {
                    f.write_str(" DO UPDATE SET ")?;
                    assignments(f, sets)?;
                    where_clause(f, w)?;
                }
            }
        }
        returning(f, &self.returning)
    }
}

impl Display for Update {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        with(f, &self.with)?;
        f.write_str("UPDATE ")?;
        if let Some(or) = self.or {
            write!(f, "OR {} ", conflict(or))?;
        }
        write!(f, "{}", self.table)?;
        table_alias(f, &self.alias)?;
        indexed(f, &self.indexed)?;
        f.write_str(" SET ")?;
        assignments(f, &self.sets)?;
        if let Some(from) = &self.from {
            write!(f, " FROM {from}")?;
        }
        where_clause(f, &self.where_clause)?;
        returning(f, &self.returning)
    }
}

impl Display for Delete {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        with(f, &self.with)?;
        write!(f, "DELETE FROM {}", self.table)?;
        table_alias(f, &self.alias)?;
        indexed(f, &self.indexed)?;
        where_clause(f, &self.where_clause)?;
        returning(f, &self.returning)
    }
}

impl Display for CreateTable {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        f.write_str(if self.temporary {
            "CREATE TEMP TABLE "
        } else {
            "CREATE TABLE "
        })?;
        if self.if_not_exists {
            f.write_str("IF NOT EXISTS ")?;
        }
        write!(f, "{}", self.name)?;
        match &self.body {
            CreateTableBody::AsSelect(select) => write!(f, " AS {select}"),
            CreateTableBody::Columns {
                columns,
                constraints,
                without_rowid,
                strict,
            } => {
                f.write_str(" (")?;
                list(f, columns, |f, c| write!(f, "{c}"))?;
                for c in constraints {
                    write!(f, ", {c}")?;
                }
                f.write_char(')')?;
                let mut sep = " ";
                if *without_rowid {
                    f.write_str(" WITHOUT ROWID")?;
                    sep = ", ";
                }
                if *strict {
                    write!(f, "{sep}STRICT")?;
                }
                Ok(())
            }
        }
    }
}

impl Display for ColumnDef {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        ident(f, &self.name)?;
        if let Some(t) = &self.type_name {
            write!(f, " {t}")?;
        }
        for c in &self.constraints {
            write!(f, " {c}")?;
        }
        Ok(())
    }
}

fn constraint_name(f: &mut Formatter<'_>, name: &Option<Ident>) -> R {
    if let Some(n) = name {
        f.write_str("CONSTRAINT ")?;
        ident(f, n)?;
        f.write_char(' ')?;
    }
    Ok(())
}

impl Display for ColumnConstraint {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        constraint_name(f, &self.name)?;
        match &self.kind {
            ColumnConstraintKind::PrimaryKey {
                order,
                conflict: c,
                autoincrement,
            } => {
                f.write_str("PRIMARY KEY")?;
                match order {
                    Some(SortOrder::Asc) => f.write_str(" ASC")?,
                    Some(SortOrder::Desc) => f.write_str(" DESC")?,
                    None => {}
                }
                on_conflict(f, *c)?;
                if *autoincrement {
                    f.write_str(" AUTOINCREMENT")?;
                }
                Ok(())
            }
            ColumnConstraintKind::NotNull { conflict: c } => {
                f.write_str("NOT NULL")?;
                on_conflict(f, *c)
            }
            ColumnConstraintKind::Null => f.write_str("NULL"),
            ColumnConstraintKind::Unique { conflict: c } => {
                f.write_str("UNIQUE")?;
                on_conflict(f, *c)
            }
            ColumnConstraintKind::Check(e) => write!(f, "CHECK ({e})"),
            // A literal is written bare so that a negative number folds back
            // into the literal (`DEFAULT -1`); anything else in parentheses.
            ColumnConstraintKind::Default(Expr {
                kind: ExprKind::Literal(l),
                ..
            }) => write!(f, "DEFAULT {l}"),
            ColumnConstraintKind::Default(e) => write!(f, "DEFAULT ({e})"),
            ColumnConstraintKind::Collate(name) => {
                f.write_str("COLLATE ")?;
                ident(f, name)
            }
            ColumnConstraintKind::References(clause) => write!(f, "{clause}"),
            ColumnConstraintKind::Generated { expr, stored } => {
                write!(f, "GENERATED ALWAYS AS ({expr})")?;
                if *stored {
                    f.write_str(" STORED")?;
                }
                Ok(())
            }
        }
    }
}

impl Display for TableConstraint {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        constraint_name(f, &self.name)?;
        match &self.kind {
            TableConstraintKind::PrimaryKey {
                columns,
                conflict: c,
                autoincrement,
            } => {
                f.write_str("PRIMARY KEY (")?;
                indexed_columns(f, columns)?;
                f.write_str(if *autoincrement {
                    " AUTOINCREMENT)"
                } else {
                    ")"
                })?;
                on_conflict(f, *c)
            }
            TableConstraintKind::Unique {
                columns,
                conflict: c,
            } => {
                f.write_str("UNIQUE (")?;
                indexed_columns(f, columns)?;
                f.write_char(')')?;
                on_conflict(f, *c)
            }
            TableConstraintKind::Check(e) => write!(f, "CHECK ({e})"),
            TableConstraintKind::ForeignKey { columns, clause } => {
                f.write_str("FOREIGN KEY ")?;
                idents(f, columns)?;
                write!(f, " {clause}")
            }
        }
    }
}

impl Display for ForeignKeyClause {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        f.write_str("REFERENCES ")?;
        ident(f, &self.table)?;
        if !self.columns.is_empty() {
            idents(f, &self.columns)?;
        }
        let action = |a: ForeignKeyAction| match a {
            ForeignKeyAction::SetNull => "SET NULL",
            ForeignKeyAction::SetDefault => "SET DEFAULT",
            ForeignKeyAction::Cascade => "CASCADE",
            ForeignKeyAction::Restrict => "RESTRICT",
            ForeignKeyAction::NoAction => "NO ACTION",
        };
        if let Some(a) = self.on_delete {
            write!(f, " ON DELETE {}", action(a))?;
        }
        if let Some(a) = self.on_update {
            write!(f, " ON UPDATE {}", action(a))?;
        }
        if self.deferred {
            f.write_str(" DEFERRABLE INITIALLY DEFERRED")?;
        }
        Ok(())
    }
}

impl Display for CreateIndex {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        f.write_str(if self.unique {
            "CREATE UNIQUE INDEX "
        } else {
            "CREATE INDEX "
        })?;
        if self.if_not_exists {
            f.write_str("IF NOT EXISTS ")?;
        }
        write!(f, "{} ON ", self.name)?;
        ident(f, &self.table)?;
        f.write_str(" (")?;
        indexed_columns(f, &self.columns)?;
        f.write_char(')')?;
        where_clause(f, &self.where_clause)
    }
}

impl Display for AlterTable {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        write!(f, "ALTER TABLE {} ", self.table)?;
        match &self.action {
            AlterAction::RenameTable(name) => {
                f.write_str("RENAME TO ")?;
                ident(f, name)
            }
            AlterAction::RenameColumn { old, new } => {
                f.write_str("RENAME COLUMN ")?;
                ident(f, old)?;
                f.write_str(" TO ")?;
                ident(f, new)
            }
            AlterAction::AddColumn(def) => write!(f, "ADD COLUMN {def}"),
            AlterAction::DropColumn(name) => {
                f.write_str("DROP COLUMN ")?;
                ident(f, name)
            }
        }
    }
}

impl Display for CreateTrigger {
    fn fmt(&self, f: &mut Formatter<'_>) -> R {
        f.write_str(if self.temporary {
            "CREATE TEMP TRIGGER "
        } else {
            "CREATE TRIGGER "
        })?;
        if self.if_not_exists {
            f.write_str("IF NOT EXISTS ")?;
        }
        write!(f, "{} ", self.name)?;
        f.write_str(match self.timing {
            TriggerTiming::Before => "BEFORE ",
            TriggerTiming::After => "AFTER ",
            TriggerTiming::InsteadOf => "INSTEAD OF ",
        })?;
        match &self.event {
            TriggerEvent::Delete => f.write_str("DELETE")?,
            TriggerEvent::Insert => f.write_str("INSERT")?,
            TriggerEvent::Update(columns) => {
                f.write_str("UPDATE")?;
                for (i, c) in columns.iter().enumerate() {
                    f.write_str(if i == 0 { " OF " } else { ", " })?;
                    ident(f, c)?;
                }
            }
        }
        write!(f, " ON {}", self.table)?;
        if let Some(w) = &self.when {
            write!(f, " WHEN {w}")?;
        }
        f.write_str(" BEGIN")?;
        for s in &self.body {
            write!(f, " {s};")?;
        }
        f.write_str(" END")
    }
}
