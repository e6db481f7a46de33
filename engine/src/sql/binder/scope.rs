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
    /// A parenthesized join's column whose name an earlier table of that
    /// join has: skipped by unqualified names (not by `*`).
    pub shadowed: bool,
}

impl ScopeColumn {
    /// Whether an unqualified name (or USING / NATURAL) can mean it.
    pub(crate) fn visible(&self) -> bool {
        !self.hidden && !self.shadowed
    }
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
    /// A `json_each` / `json_tree` item: its `value` column carries the
    /// JSON subtype when its `type` column says array or object.
    pub json_each: bool,
    /// How many of the last columns are a table-valued function's hidden
    /// ones (left out of `*`).
    pub hidden_columns: usize,
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
    /// A RIGHT / FULL join's merged column, named unqualified: the
    /// expression it stands for.
    pub merged: Option<ast::Expr>,
    /// A `json_each` / `json_tree` item's `value` column: the slot of its
    /// `type` column.
    pub json_type: Option<usize>,
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
    /// Columns a RIGHT / FULL join's USING or NATURAL merged, which an
    /// unqualified name resolving to their slot stands for.
    pub merged: Vec<Merged>,
}

/// A column a RIGHT / FULL join's USING or NATURAL merged.
#[derive(Clone, Debug)]
pub(crate) struct Merged {
    /// The left column's slot (its index among its item's columns, before
    /// the layout).
    pub slot: usize,
    /// What it stands for: the right column (RIGHT), `coalesce(left,
    /// right)` (FULL), or (merged inside a parenthesized join bound as one
    /// item) that item's column of it.
    pub expr: ast::Expr,
    /// `*` expands it as its bare name, as SQLite does for a join of this
    /// FROM clause (ambiguous when another table has the name); inside a
    /// parenthesized join, as `expr`.
    pub bare: bool,
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
            merged: Vec::new(),
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
                c.name.eq_ignore_ascii_case(column) && (table.is_some() || c.visible())
            });
            if let Some((i, c)) = hit {
                if found.is_some() {
                    return Err(sql_err!(
                        "ambiguous column name: {}",
                        display_name(table, column)
                    ));
                }
                let slot = item.offset + i;
                found = Some(Resolved {
                    level: 0,
                    slot,
                    affinity: c.affinity,
                    collation: c.collation,
                    decl_type: c.decl_type.clone(),
                    merged: table
                        .is_none()
                        .then(|| self.merged.iter().find(|m| m.slot == slot))
                        .flatten()
                        .map(|m| m.expr.clone()),
                    json_type: (item.json_each && i == 1).then_some(item.offset + 2),
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
                    merged: None,
                    json_type: None,
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
