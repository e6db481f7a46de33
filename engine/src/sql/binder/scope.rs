//! Name scopes: which FROM items (and their columns) a name can refer to,
//! and how a column reference becomes a row slot.
//!
//! A [`Scope`] is one query level; a subquery's scope points to its
//! parent's. Resolution looks in the current scope first, then outwards
//! (SQLite's rule), and a reference that crosses into a parent marks every
//! scope it crossed as correlated, so their subqueries are not cached.

use std::cell::{Cell, RefCell};

use crate::sql::ast;
use crate::sql::value::{Affinity, Collation};
use crate::{sql_err, Result};

/// A column as the binder sees it.
#[derive(Clone, Debug)]
pub(crate) struct ScopeColumn {
    pub name: String,
    /// `None`: no affinity (an expression column of a subquery).
    pub affinity: Option<Affinity>,
    pub collation: Collation,
    pub decl_type: String,
    /// Merged away by USING/NATURAL: skipped by `*` and unqualified names.
    pub hidden: bool,
}

/// One FROM item in scope.
#[derive(Clone, Debug)]
pub(crate) struct ScopeItem {
    /// Alias, else table name.
    pub name: String,
    pub columns: Vec<ScopeColumn>,
    /// First slot in the flat row.
    pub offset: usize,
    /// The rowid's slot, for tables.
    pub rowid: Option<usize>,
}

/// What a resolved name is.
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    /// How many scopes out (0 = this one).
    pub level: usize,
    pub slot: usize,
    pub affinity: Option<Affinity>,
    pub collation: Collation,
    pub decl_type: String,
}

/// One query level's names.
#[derive(Debug)]
pub(crate) struct Scope<'p> {
    pub items: Vec<ScopeItem>,
    pub parent: Option<&'p Scope<'p>>,
    /// Set when a name inside resolved to an enclosing scope.
    pub correlated: Cell<bool>,
    /// Result-column aliases usable in WHERE/GROUP BY/HAVING/ORDER BY (a
    /// SQLite extension), with the expression they stand for.
    pub aliases: RefCell<Vec<(String, ast::Expr)>>,
    /// A query-level scope with no row of its own (it holds a compound
    /// query's cores): crossing it does not count as a level.
    pub transparent: bool,
}

const ROWID_NAMES: [&str; 3] = ["rowid", "oid", "_rowid_"];

impl<'p> Scope<'p> {
    pub(crate) fn new(items: Vec<ScopeItem>, parent: Option<&'p Scope<'p>>) -> Scope<'p> {
        Scope {
            items,
            parent,
            correlated: Cell::new(false),
            aliases: RefCell::new(Vec::new()),
            transparent: false,
        }
    }

    /// Resolves `table.column` or `column` in this scope only.
    fn resolve_here(&self, table: Option<&str>, column: &str) -> Result<Option<Resolved>> {
        let mut found: Option<Resolved> = None;
        for item in &self.items {
            if let Some(t) = table {
                if !item.name.eq_ignore_ascii_case(t) {
                    continue;
                }
            }
            let hit = item.columns.iter().enumerate().find(|(_, c)| {
                c.name.eq_ignore_ascii_case(column) && (table.is_some() || !c.hidden)
            });
            if let Some((i, c)) = hit {
                if found.is_some() {
                    return Err(sql_err!(
                        "ambiguous column name: {}",
                        display_name(table, column)
                    ));
                }
                found = Some(Resolved {
                    level: 0,
                    slot: item.offset + i,
                    affinity: c.affinity,
                    collation: c.collation,
                    decl_type: c.decl_type.clone(),
                });
            }
        }
        if found.is_none() && ROWID_NAMES.iter().any(|n| n.eq_ignore_ascii_case(column)) {
            let mut candidates = self
                .items
                .iter()
                .filter(|it| table.is_none_or(|t| it.name.eq_ignore_ascii_case(t)))
                .filter_map(|it| it.rowid);
            if let Some(slot) = candidates.next() {
                if candidates.next().is_some() {
                    return Err(sql_err!(
                        "ambiguous column name: {}",
                        display_name(table, column)
                    ));
                }
                found = Some(Resolved {
                    level: 0,
                    slot,
                    affinity: Some(Affinity::Integer),
                    collation: Collation::Binary,
                    decl_type: "INTEGER".to_string(),
                });
            }
        }
        Ok(found)
    }

    /// Resolves a column reference in this scope, then outwards. `Ok(None)`
    /// when no scope has it (the caller then tries aliases or reports).
    pub(crate) fn resolve(&self, table: Option<&str>, column: &str) -> Result<Option<Resolved>> {
        let mut scope = self;
        let mut level = 0;
        loop {
            if let Some(mut r) = scope.resolve_here(table, column)? {
                r.level = level;
                // Every scope crossed on the way out reads an outer row.
                let mut s = self;
                while !std::ptr::eq(s, scope) {
                    s.correlated.set(true);
                    match s.parent {
                        Some(p) => s = p,
                        None => break,
                    }
                }
                return Ok(Some(r));
            }
            match scope.parent {
                Some(p) => {
                    scope = p;
                    if !p.transparent {
                        level += 1;
                    }
                }
                None => return Ok(None),
            }
        }
    }

    /// The alias expression for `name` in this scope, if any.
    pub(crate) fn alias(&self, name: &str) -> Option<ast::Expr> {
        self.aliases
            .borrow()
            .iter()
            .find(|(a, _)| a.eq_ignore_ascii_case(name))
            .map(|(_, e)| e.clone())
    }
}

fn display_name(table: Option<&str>, column: &str) -> String {
    match table {
        Some(t) => format!("{t}.{column}"),
        None => column.to_string(),
    }
}
