//! The catalog: every table, index and view of a database, as the binder,
//! planner and executor see them, and their persistence.
//!
//! Persistence: the tree [`SCHEMA_TREE`] maps each object's lowercase name
//! to a record `(type, name, table name, tree name, sql)`, where `sql` is the
//! object's CREATE statement re-rendered from its syntax tree (NULL for the
//! automatic indexes of UNIQUE / PRIMARY KEY constraints, which are derived
//! again from their table). The empty key holds `(next tree id, user_version)`. Opening a
//! database parses every stored statement again ([`Catalog::load`]).
//!
//! Triggers: the tree [`TRIGGER_TREE`] maps each trigger's lowercase name
//! to the record `(name, table name, sql, seq)`, `sql` its CREATE TRIGGER as
//! written and `seq` a value of the tree id counter taken when it was made
//! (a table's triggers fire newest first) (trigger names are apart from the other objects', so they have
//! a tree of their own).
//!
//! Statistics: `ANALYZE` (see `exec::analyze`) stores one [`TreeStats`]
//! per analyzed tree in the tree [`STAT_TREE`], keyed by the tree's name
//! (a table's tree for a table without indexes, an index's tree
//! otherwise: SQLite's `sqlite_stat1` rows). Tree names never change
//! (RENAME keeps them) and are never reused, so an entry follows its
//! object through renames and a dropped object's entry can only be stale,
//! never wrong; DROP removes it anyway. The catalog holds them in
//! [`Catalog::stats`], so they travel with it: an ANALYZE gives the
//! catalog a new version (cached plans plan again) and a rolled-back one
//! leaves the previous catalog, stats included.
//!
//! Layout of the data (the executor's contract with storage):
//! - a table is a tree keyed by `keycode::encode_rowid(rowid)` whose values
//!   are `record`s of every column (the INTEGER PRIMARY KEY column, which is
//!   the rowid, is stored as NULL and read back from the key);
//! - an index is a tree keyed by `keycode` of (indexed values..., rowid) with
//!   empty values; a UNIQUE index is checked by probing the prefix.
//!
//! Invariants: names are unique case-insensitively across tables, indexes and
//! views (SQLite's rule); every index names an existing table; tree names are
//! never reused within a database (ids only grow), so a renamed table keeps
//! its tree.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::sql::ast;
use crate::sql::value::{Affinity, Collation, Value};
use crate::{sql_err, Result};

/// The tree that stores the schema.
pub(crate) const SCHEMA_TREE: &str = "__schema";

/// The tree that stores the triggers (see the module doc), absent until
/// the first CREATE TRIGGER.
pub(crate) const TRIGGER_TREE: &str = "__trigger";

/// The tree that stores ANALYZE's statistics (see the module doc).
pub(crate) const STAT_TREE: &str = "__stat";

/// What ANALYZE measured of one tree: SQLite's `sqlite_stat1` `stat`
/// column, `"rows avg1 avg2 ..."`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TreeStats {
    /// Entries in the tree (rows of a table; entries of an index, which
    /// for a partial index are the rows its predicate holds for).
    pub rows: u64,
    /// For an index, `avg[k - 1]` is the average number of entries per
    /// distinct value of its first `k` key columns (rounded up, at least
    /// 1); empty for a table.
    pub avg: Vec<u64>,
}

/// One column of a table.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub name: String,
    /// The declared type as written (empty when none), without its
    /// parenthesized numbers.
    pub decl_type: String,
    /// The declared type with its numbers (`VARCHAR(10)`), as PRAGMA
    /// table_info shows it.
    pub type_text: String,
    pub affinity: Affinity,
    pub not_null: bool,
    /// The NOT NULL constraint's own `ON CONFLICT` algorithm, used when
    /// the statement names none.
    pub not_null_conflict: Option<ast::ConflictResolution>,
    pub default: Option<ast::Expr>,
    pub collation: Collation,
    /// Part of the PRIMARY KEY.
    pub primary_key: bool,
    /// In a STRICT table, the column's type (None otherwise).
    pub strict_type: Option<StrictType>,
    /// `GENERATED ALWAYS AS (expr)`: the value is computed from the row's
    /// other columns whenever the row is written (`exec::write`), VIRTUAL
    /// and STORED alike, and stored as any column's.
    pub generated: Option<Generated>,
}

/// A generated column's expression, and whether it was declared STORED
/// (which only decides what ALTER TABLE and `table_xinfo` allow and show).
#[derive(Clone, Debug)]
pub(crate) struct Generated {
    pub expr: ast::Expr,
    pub stored: bool,
}

/// A foreign key of a child table.
#[derive(Clone, Debug)]
pub(crate) struct ForeignKey {
    /// Child columns (indexes into the table's columns).
    pub columns: Vec<usize>,
    /// Written in the child column's definition (`REFERENCES`), not as a
    /// table constraint.
    pub column_constraint: bool,
    pub parent: String,
    /// Parent column names; empty means the parent's primary key.
    pub parent_columns: Vec<String>,
    pub on_delete: ast::ForeignKeyAction,
    pub on_update: ast::ForeignKeyAction,
    /// `DEFERRABLE INITIALLY DEFERRED`: its violations may stand until
    /// COMMIT (see `exec::fk`).
    pub deferred: bool,
}

/// A table definition.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    pub name: String,
    pub columns: Vec<Column>,
    /// The INTEGER PRIMARY KEY column, an alias of the rowid.
    pub rowid_alias: Option<usize>,
    /// That PRIMARY KEY's `ON CONFLICT` algorithm, used when the statement
    /// names none.
    pub rowid_conflict: Option<ast::ConflictResolution>,
    pub autoincrement: bool,
    /// CHECK constraints: (constraint name, expression, the column whose
    /// constraint it is when written in that column's definition).
    pub checks: Vec<(Option<String>, ast::Expr, Option<usize>)>,
    pub foreign_keys: Vec<ForeignKey>,
    pub tree: String,
    pub sql: String,
    pub options: TableOptions,
}

/// The table options of CREATE TABLE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TableOptions {
    /// STRICT: every column has a [`StrictType`], and a value that
    /// its affinity does not make of that type is refused
    /// (`exec::write::TableWriter::check_types`).
    pub strict: bool,
    /// WITHOUT ROWID: a PRIMARY KEY is required and its columns are NOT
    /// NULL (an INTEGER PRIMARY KEY too: a NULL is refused, not given the
    /// next rowid); SQL cannot name a rowid. The rows are stored as any
    /// table's, by rowid (an INTEGER PRIMARY KEY still being it), so a scan
    /// without ORDER BY gives them in that order, where SQLite gives
    /// PRIMARY KEY order.
    pub without_rowid: bool,
}

/// The types a STRICT table's columns may declare; `ANY` keeps values as
/// given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StrictType {
    Int,
    Integer,
    Real,
    Text,
    Blob,
    Any,
}

impl StrictType {
    const ALL: [StrictType; 6] = [
        StrictType::Int,
        StrictType::Integer,
        StrictType::Real,
        StrictType::Text,
        StrictType::Blob,
        StrictType::Any,
    ];

    /// The type a declaration names, in any case.
    pub(crate) fn parse(declared: &str) -> Option<StrictType> {
        Self::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(declared))
    }

    /// The type's name, as SQLite's messages spell it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            StrictType::Int => "INT",
            StrictType::Integer => "INTEGER",
            StrictType::Real => "REAL",
            StrictType::Text => "TEXT",
            StrictType::Blob => "BLOB",
            StrictType::Any => "ANY",
        }
    }

    /// Whether a value (after the column's affinity) is of this type;
    /// NULL always is.
    pub(crate) fn admits(self, v: &Value) -> bool {
        matches!(
            (self, v),
            (_, Value::Null)
                | (StrictType::Any, _)
                | (StrictType::Int | StrictType::Integer, Value::Integer(_))
                | (StrictType::Real, Value::Real(_))
                | (StrictType::Text, Value::Text(_))
                | (StrictType::Blob, Value::Blob(_))
        )
    }
}

impl Table {
    /// Whether SQL can name the rowid (not in a WITHOUT ROWID table).
    pub(crate) fn rowid_visible(&self) -> bool {
        !self.options.without_rowid
    }

    /// Whether slot `c` of a row of this table (its columns, then the
    /// rowid) holds the rowid: the rowid's own slot or the INTEGER PRIMARY
    /// KEY column that aliases it.
    pub(crate) fn is_rowid_slot(&self, c: usize) -> bool {
        c == self.columns.len() || Some(c) == self.rowid_alias
    }

    /// The index of the column named `name` (case-insensitive).
    pub(crate) fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }
}

/// One key column of an index.
#[derive(Clone, Debug)]
pub(crate) struct IndexColumn {
    /// The indexed expression (a plain column is an `ExprKind::Column`).
    pub expr: ast::Expr,
    /// The table column when the expression is a plain column.
    pub column: Option<usize>,
    pub desc: bool,
    pub collation: Collation,
}

/// Why an index exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IndexOrigin {
    /// CREATE INDEX.
    Created,
    /// A UNIQUE constraint.
    Unique,
    /// A PRIMARY KEY that is not the rowid.
    PrimaryKey,
}

/// An index definition.
#[derive(Clone, Debug)]
pub(crate) struct Index {
    pub name: String,
    /// The table's name as stored in the catalog (lowercase key).
    pub table: String,
    pub columns: Vec<IndexColumn>,
    pub unique: bool,
    /// The partial-index predicate.
    pub predicate: Option<ast::Expr>,
    pub origin: IndexOrigin,
    /// The `ON CONFLICT` algorithm of the UNIQUE or PRIMARY KEY constraint
    /// behind an automatic index, used when the statement names none.
    pub on_conflict: Option<ast::ConflictResolution>,
    pub tree: String,
    /// The CREATE INDEX text; `None` for automatic indexes.
    pub sql: Option<String>,
}

impl Index {
    /// When the index was created, relative to the catalog's others: tree
    /// names count up from one counter ([`Catalog::new_tree_name`]).
    pub(crate) fn created(&self) -> u64 {
        self.tree.get(1..).and_then(|n| n.parse().ok()).unwrap_or(0)
    }
}

/// A view definition.
#[derive(Clone, Debug)]
pub(crate) struct View {
    pub name: String,
    pub columns: Vec<String>,
    pub select: ast::Select,
    pub sql: String,
}

/// A trigger, as its CREATE TRIGGER defines it.
#[derive(Clone, Debug)]
pub(crate) struct Trigger {
    pub name: String,
    /// The key of the table (or view) it is on.
    pub table: String,
    pub def: ast::CreateTrigger,
    /// The CREATE TRIGGER as written (as SQLite keeps it).
    pub sql: String,
    /// Orders triggers by creation (a value of the catalog's `next_id`):
    /// a table's fire newest first, as SQLite's do.
    pub seq: u64,
}

/// Every schema object of a database. Cheap to clone (objects are shared).
#[derive(Clone, Debug, Default)]
pub(crate) struct Catalog {
    pub tables: BTreeMap<String, Rc<Table>>,
    pub indexes: BTreeMap<String, Rc<Index>>,
    pub views: BTreeMap<String, Rc<View>>,
    /// By lowercase name: their names are apart from the other objects'
    /// (a trigger may share a table's name, as in SQLite).
    pub triggers: BTreeMap<String, Rc<Trigger>>,
    /// The next id for a tree name.
    pub next_id: u64,
    /// `PRAGMA user_version`: an integer the application keeps with the
    /// schema (0 until set).
    pub user_version: i64,
    /// ANALYZE's statistics, by tree name (see the module doc).
    pub stats: BTreeMap<String, Rc<TreeStats>>,
    /// Names these exact contents: a catalog that changes takes a version
    /// no catalog had before ([`Catalog::bump_version`]), so a plan bound
    /// against version `v` is valid for any catalog whose version is `v`
    /// (prepared statements key their cached plans on it). `Default`
    /// gives 0, shared by catalogs that are still empty.
    pub version: u64,
}

/// The last catalog version handed out (process-wide, so versions never
/// repeat across databases either).
static LAST_VERSION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The catalog key of a name: SQL names are case-insensitive (ASCII).
pub(crate) fn key(name: &str) -> String {
    name.to_ascii_lowercase()
}

impl Catalog {
    /// Gives the catalog a version no catalog had before; called after
    /// every change to its objects.
    pub(crate) fn bump_version(&mut self) {
        self.version = LAST_VERSION.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    }

    /// The table named `name`, if any.
    pub(crate) fn table(&self, name: &str) -> Option<&Rc<Table>> {
        self.tables.get(&key(name))
    }

    /// The table named `name`, or the error SQLite gives.
    pub(crate) fn table_or_err(&self, name: &str) -> Result<&Rc<Table>> {
        self.table(name)
            .ok_or_else(|| sql_err!("no such table: {name}"))
    }

    /// The indexes of table `table`, in name order.
    pub(crate) fn table_indexes(&self, table: &str) -> Vec<Rc<Index>> {
        let k = key(table);
        self.indexes
            .values()
            .filter(|i| i.table == k)
            .cloned()
            .collect()
    }

    /// True when some object (table, index or view) is named `name`.
    pub(crate) fn name_taken(&self, name: &str) -> bool {
        let k = key(name);
        self.tables.contains_key(&k) || self.indexes.contains_key(&k) || self.views.contains_key(&k)
    }

    /// The triggers on table (or view) `name`, newest first (the order
    /// SQLite fires them in).
    pub(crate) fn table_triggers(&self, name: &str) -> Vec<Rc<Trigger>> {
        let k = key(name);
        let mut found: Vec<Rc<Trigger>> = self
            .triggers
            .values()
            .filter(|t| t.table == k)
            .cloned()
            .collect();
        found.sort_by_key(|t| std::cmp::Reverse(t.seq));
        found
    }

    /// A fresh tree name with the given prefix (`t` tables, `i` indexes).
    pub(crate) fn new_tree_name(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }
}

/// The collation named `name`, or an error naming it.
pub(crate) fn collation_by_name(name: &str) -> Result<Collation> {
    Collation::from_name(name).ok_or_else(|| sql_err!("no such collation sequence: {name}"))
}

/// Strips `COLLATE` wrappers: the expression and the outermost collation.
pub(crate) fn strip_collate(expr: &ast::Expr) -> (&ast::Expr, Option<&str>) {
    match &expr.kind {
        ast::ExprKind::Collate {
            expr: inner,
            collation,
        } => (strip_collate(inner).0, Some(collation)),
        _ => (expr, None),
    }
}

/// Builds the [`Table`] (and the automatic indexes of its UNIQUE / PRIMARY
/// KEY constraints, with tree names from `catalog`) for a CREATE TABLE with
/// column definitions. With `merge`, identical constraints share one index,
/// as in SQLite; without, each has its own, as tables made before
/// TinyJoin merged them have (see `exec::ddl::load_object`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn table_from_ast(
    catalog: &mut Catalog,
    name: &str,
    columns: &[ast::ColumnDef],
    constraints: &[ast::TableConstraint],
    options: TableOptions,
    sql: String,
    tree: String,
    merge: bool,
) -> Result<(Table, Vec<Index>)> {
    let mut table = Table {
        name: name.to_string(),
        columns: Vec::new(),
        rowid_alias: None,
        rowid_conflict: None,
        autoincrement: false,
        checks: Vec::new(),
        foreign_keys: Vec::new(),
        tree,
        sql,
        options,
    };
    // (columns, origin) of every uniqueness constraint, in definition order.
    let mut unique_sets: UniqueSets = Vec::new();
    for def in columns {
        if table.column_index(&def.name).is_some() {
            return Err(sql_err!("duplicate column name: {}", def.name));
        }
        let col_no = table.columns.len();
        let mut column = column_from_ast(def, &mut table, col_no, &mut unique_sets)?;
        if options.strict {
            let ty = &column.decl_type;
            if ty.is_empty() {
                return Err(sql_err!("missing datatype for {name}.{}", column.name));
            }
            let strict = StrictType::parse(ty).filter(|_| column.type_text == *ty);
            let Some(strict) = strict else {
                return Err(sql_err!(
                    "unknown datatype for {name}.{}: \"{}\"",
                    column.name,
                    column.type_text
                ));
            };
            if strict == StrictType::Any {
                // Values are kept as given (a non-STRICT ANY is NUMERIC).
                column.affinity = Affinity::Blob;
            }
            column.strict_type = Some(strict);
        }
        table.columns.push(column);
    }
    for c in constraints {
        table_constraint(&mut table, c, &mut unique_sets)?;
    }
    if table
        .columns
        .iter()
        .any(|c| c.primary_key && c.generated.is_some())
    {
        return Err(sql_err!(
            "generated columns cannot be part of the PRIMARY KEY"
        ));
    }
    if unique_sets
        .iter()
        .filter(|(_, o, _)| *o == IndexOrigin::PrimaryKey)
        .count()
        > 1
    {
        return Err(sql_err!("table \"{name}\" has more than one primary key"));
    }
    if options.without_rowid {
        if table.autoincrement {
            return Err(sql_err!(
                "AUTOINCREMENT not allowed on WITHOUT ROWID tables"
            ));
        }
        let Some((cols, _, _)) = unique_sets
            .iter()
            .find(|(_, o, _)| *o == IndexOrigin::PrimaryKey)
        else {
            return Err(sql_err!("PRIMARY KEY missing on table {name}"));
        };
        for (c, _, _) in cols {
            table.columns[*c].not_null = true;
        }
    }
    let mut indexes = Vec::new();
    let mut seq = 0;
    for (cols, origin, on_conflict) in unique_sets {
        if origin == IndexOrigin::PrimaryKey && cols.len() == 1 {
            let (c, desc, _) = &cols[0];
            if table.columns[*c].decl_type.eq_ignore_ascii_case("INTEGER") && !desc {
                table.rowid_alias = Some(*c);
                table.rowid_conflict = on_conflict;
                continue;
            }
        }
        if origin == IndexOrigin::PrimaryKey {
            for (c, _, _) in &cols {
                table.columns[*c].primary_key = true;
            }
        }
        let index_columns = cols
            .iter()
            .map(|(c, desc, coll)| {
                let collation = match coll {
                    Some(n) => collation_by_name(n)?,
                    None => table.columns[*c].collation,
                };
                Ok(IndexColumn {
                    expr: column_expr(&table.columns[*c].name),
                    column: Some(*c),
                    desc: *desc,
                    collation,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // As in SQLite, a constraint on the same columns in the same order
        // with the same collations as an earlier one adds no index: the
        // earlier one takes its ON CONFLICT (two different ones are an
        // error) and becomes the PRIMARY KEY's.
        let same = |ix: &&mut Index| {
            ix.columns.len() == index_columns.len()
                && ix
                    .columns
                    .iter()
                    .zip(&index_columns)
                    .all(|(a, b)| a.column == b.column && a.collation == b.collation)
        };
        if let Some(earlier) = indexes.iter_mut().filter(|_| merge).find(same) {
            match (earlier.on_conflict, on_conflict) {
                (Some(a), Some(b)) if a != b => {
                    return Err(sql_err!("conflicting ON CONFLICT clauses specified"))
                }
                (None, b) => earlier.on_conflict = b,
                _ => {}
            }
            if origin == IndexOrigin::PrimaryKey {
                earlier.origin = origin;
            }
            continue;
        }
        seq += 1;
        indexes.push(Index {
            name: format!("sqlite_autoindex_{}_{}", name, seq),
            table: key(name),
            columns: index_columns,
            unique: true,
            predicate: None,
            origin,
            on_conflict,
            tree: catalog.new_tree_name("i"),
            sql: None,
        });
    }
    if table.autoincrement && table.rowid_alias.is_none() {
        return Err(sql_err!(
            "AUTOINCREMENT is only allowed on an INTEGER PRIMARY KEY"
        ));
    }
    Ok((table, indexes))
}

/// A plain column reference expression for `name`.
pub(crate) fn column_expr(name: &str) -> ast::Expr {
    ast::Expr {
        kind: ast::ExprKind::Column(ast::ColumnRef {
            schema: None,
            table: None,
            column: name.to_string(),
            double_quoted: false,
        }),
        pos: 0,
    }
}

/// Each uniqueness constraint's (column, descending, collation) list,
/// origin and `ON CONFLICT` algorithm.
type UniqueSets = Vec<(
    Vec<(usize, bool, Option<String>)>,
    IndexOrigin,
    Option<ast::ConflictResolution>,
)>;

fn column_from_ast(
    def: &ast::ColumnDef,
    table: &mut Table,
    col_no: usize,
    unique_sets: &mut UniqueSets,
) -> Result<Column> {
    let decl_type = def
        .type_name
        .as_ref()
        .map(|t| t.name.clone())
        .unwrap_or_default();
    let type_text = match def.type_name.as_ref() {
        Some(t) if !t.args.is_empty() => format!("{}({})", t.name, t.args.join(", ")),
        _ => decl_type.clone(),
    };
    let mut column = Column {
        name: def.name.clone(),
        affinity: Affinity::from_declared_type(&decl_type),
        decl_type,
        type_text,
        not_null: false,
        not_null_conflict: None,
        default: None,
        collation: Collation::Binary,
        primary_key: false,
        strict_type: None,
        generated: None,
    };
    for c in &def.constraints {
        match &c.kind {
            ast::ColumnConstraintKind::PrimaryKey {
                order,
                autoincrement,
                conflict,
            } => {
                column.primary_key = true;
                table.autoincrement |= *autoincrement;
                unique_sets.push((
                    vec![(col_no, *order == Some(ast::SortOrder::Desc), None)],
                    IndexOrigin::PrimaryKey,
                    *conflict,
                ));
            }
            ast::ColumnConstraintKind::NotNull { conflict } => {
                column.not_null = true;
                column.not_null_conflict = *conflict;
            }
            ast::ColumnConstraintKind::Null => {}
            ast::ColumnConstraintKind::Unique { conflict } => {
                unique_sets.push((vec![(col_no, false, None)], IndexOrigin::Unique, *conflict));
            }
            ast::ColumnConstraintKind::Check(e) => {
                table.checks.push((c.name.clone(), e.clone(), Some(col_no)))
            }
            ast::ColumnConstraintKind::Default(e) => column.default = Some(e.clone()),
            ast::ColumnConstraintKind::Collate(n) => column.collation = collation_by_name(n)?,
            ast::ColumnConstraintKind::References(fk) => table.foreign_keys.push(ForeignKey {
                columns: vec![col_no],
                column_constraint: true,
                parent: fk.table.clone(),
                parent_columns: fk.columns.clone(),
                on_delete: fk.on_delete.unwrap_or(ast::ForeignKeyAction::NoAction),
                on_update: fk.on_update.unwrap_or(ast::ForeignKeyAction::NoAction),
                deferred: fk.deferred,
            }),
            ast::ColumnConstraintKind::Generated { expr, stored } => {
                column.generated = Some(Generated {
                    expr: expr.clone(),
                    stored: *stored,
                })
            }
        }
    }
    if column.generated.is_some() && column.default.is_some() {
        return Err(sql_err!("cannot use DEFAULT on a generated column"));
    }
    Ok(column)
}

fn table_constraint(
    table: &mut Table,
    c: &ast::TableConstraint,
    unique_sets: &mut UniqueSets,
) -> Result<()> {
    let resolve = |table: &Table,
                   cols: &[ast::IndexedColumn]|
     -> Result<Vec<(usize, bool, Option<String>)>> {
        cols.iter()
            .map(|ic| {
                let (inner, coll) = strip_collate(&ic.expr);
                let ast::ExprKind::Column(cr) = &inner.kind else {
                    return Err(sql_err!(
                        "expressions prohibited in PRIMARY KEY and UNIQUE constraints"
                    ));
                };
                let i = table
                    .column_index(&cr.column)
                    .ok_or_else(|| sql_err!("no such column: {}", cr.column))?;
                Ok((
                    i,
                    ic.order == Some(ast::SortOrder::Desc),
                    coll.map(str::to_string),
                ))
            })
            .collect()
    };
    match &c.kind {
        ast::TableConstraintKind::PrimaryKey {
            columns,
            autoincrement,
            conflict,
        } => {
            let cols = resolve(table, columns)?;
            table.autoincrement |= *autoincrement;
            for (i, _, _) in &cols {
                table.columns[*i].primary_key = true;
            }
            unique_sets.push((cols, IndexOrigin::PrimaryKey, *conflict));
        }
        ast::TableConstraintKind::Unique { columns, conflict } => {
            let cols = resolve(table, columns)?;
            unique_sets.push((cols, IndexOrigin::Unique, *conflict));
        }
        ast::TableConstraintKind::Check(e) => table.checks.push((c.name.clone(), e.clone(), None)),
        ast::TableConstraintKind::ForeignKey { columns, clause } => {
            let cols = columns
                .iter()
                .map(|n| {
                    table
                        .column_index(n)
                        .ok_or_else(|| sql_err!("unknown column \"{n}\" in foreign key definition"))
                })
                .collect::<Result<Vec<_>>>()?;
            table.foreign_keys.push(ForeignKey {
                columns: cols,
                column_constraint: false,
                parent: clause.table.clone(),
                parent_columns: clause.columns.clone(),
                on_delete: clause.on_delete.unwrap_or(ast::ForeignKeyAction::NoAction),
                on_update: clause.on_update.unwrap_or(ast::ForeignKeyAction::NoAction),
                deferred: clause.deferred,
            });
        }
    }
    Ok(())
}

/// Builds an [`Index`] for CREATE INDEX over `table`.
pub(crate) fn index_from_ast(
    table: &Table,
    ci: &ast::CreateIndex,
    sql: String,
    tree: String,
) -> Result<Index> {
    let mut columns = Vec::new();
    for ic in &ci.columns {
        let (inner, coll) = strip_collate(&ic.expr);
        let column = match &inner.kind {
            ast::ExprKind::Column(cr) if cr.table.is_none() => Some(
                table
                    .column_index(&cr.column)
                    .ok_or_else(|| sql_err!("no such column: {}", cr.column))?,
            ),
            _ => None,
        };
        let collation = match (coll, column) {
            (Some(n), _) => collation_by_name(n)?,
            (None, Some(c)) => table.columns[c].collation,
            (None, None) => Collation::Binary,
        };
        columns.push(IndexColumn {
            expr: inner.clone(),
            column,
            desc: ic.order == Some(ast::SortOrder::Desc),
            collation,
        });
    }
    Ok(Index {
        name: ci.name.name.clone(),
        table: key(&table.name),
        columns,
        unique: ci.unique,
        predicate: ci.where_clause.clone(),
        origin: IndexOrigin::Created,
        on_conflict: None,
        tree,
        sql: Some(sql),
    })
}

/// The schema record of an object: (type, name, table, tree, sql).
pub(crate) fn schema_record(
    kind: &str,
    name: &str,
    table: &str,
    tree: &str,
    sql: Option<&str>,
) -> Vec<Value> {
    vec![
        Value::Text(kind.to_string()),
        Value::Text(name.to_string()),
        Value::Text(table.to_string()),
        Value::Text(tree.to_string()),
        sql.map_or(Value::Null, |s| Value::Text(s.to_string())),
    ]
}
