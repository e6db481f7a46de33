//! The abstract syntax tree of TinyJoin's SQL dialect (SQLite's), as produced
//! by [`crate::sql::parser`] and consumed by the binder, planner and executor.
//!
//! Invariants the parser guarantees (consumers may rely on them):
//! - Every node that the executor may have to report an error about carries
//!   `pos`, the byte offset of its first token in the SQL text (for a binary
//!   operator: the operator token; for a function call: the function name).
//! - Identifiers are stored unquoted, with their case as written. SQL names
//!   are case-insensitive (ASCII), so consumers compare them with
//!   `eq_ignore_ascii_case`.
//! - Expression trees are at most `MAX_EXPR_DEPTH` (1000) levels high, so
//!   recursive walks over them (evaluation, binding, rendering, drop) are
//!   bounded. Lists (IN lists, VALUES rows, compound selects) are vectors.
//! - Syntactic sugar is normalised: `a == b` is `Eq`, `a <> b` is `Ne`,
//!   `a IS DISTINCT FROM b` is `IsNot`, `a IS NOT DISTINCT FROM b` is `Is`,
//!   `a ISNULL`/`a IS NULL` are `IsNull { negated: false }`,
//!   `a NOTNULL`/`a NOT NULL`/`a IS NOT NULL` are `IsNull { negated: true }`,
//!   `LIMIT a, b` is `Limit { limit: b, offset: Some(a) }`, a negative numeric
//!   literal in DEFAULT/PRAGMA is folded into the literal, and an integer
//!   literal too large for `i64` is a `Real` (as in SQLite), except
//!   `-9223372036854775808`, which is `Integer(i64::MIN)`.
//! - `NOT x` is `Unary { op: Not }`; `NOT EXISTS (..)` is `Not` over `Exists`.
//!
//! The SQL text of any node is re-rendered by its `Display` impl (in
//! `parser/render.rs` and `parser/render_statement.rs`); `parse(render(ast))`
//! yields `ast` again (positions and `ResultColumn::Expr::text` aside).
//! Rendering quotes identifiers that need it and parenthesises operands by
//! precedence, so it is canonical text, not the original: store the
//! original text where SQLite would (view and table definitions), since
//! unaliased result columns are named after their source text.

use crate::error::Position;

/// An SQL name (table, column, index, alias, collation...), unquoted.
pub(crate) type Ident = String;

// ---------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------

/// One SQL statement.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Statement {
    /// `SELECT ...`, `VALUES ...`, or a compound of them, with optional WITH.
    Select(Box<Select>),
    /// `INSERT`/`REPLACE`.
    Insert(Box<Insert>),
    /// `UPDATE`.
    Update(Box<Update>),
    /// `DELETE`.
    Delete(Box<Delete>),
    /// `CREATE TABLE`.
    CreateTable(Box<CreateTable>),
    /// `CREATE [UNIQUE] INDEX`.
    CreateIndex(Box<CreateIndex>),
    /// `CREATE VIEW`.
    CreateView(Box<CreateView>),
    /// `CREATE TRIGGER`.
    CreateTrigger(Box<CreateTrigger>),
    /// `DROP TABLE|INDEX|VIEW`.
    Drop(DropObject),
    /// `ALTER TABLE`.
    AlterTable(Box<AlterTable>),
    /// `BEGIN [DEFERRED|IMMEDIATE|EXCLUSIVE] [TRANSACTION]`.
    Begin {
        mode: TransactionMode,
        pos: Position,
    },
    /// `COMMIT` or `END` [TRANSACTION].
    Commit { pos: Position },
    /// `ROLLBACK [TRANSACTION] [TO [SAVEPOINT] name]`. `savepoint` is the
    /// name after TO; `None` rolls back the whole transaction.
    Rollback {
        savepoint: Option<Ident>,
        pos: Position,
    },
    /// `SAVEPOINT name`.
    Savepoint { name: Ident, pos: Position },
    /// `RELEASE [SAVEPOINT] name`.
    Release { name: Ident, pos: Position },
    /// `EXPLAIN stmt` (`query_plan: false`) or `EXPLAIN QUERY PLAN stmt`.
    /// `statement` is never itself an `Explain`.
    Explain {
        query_plan: bool,
        statement: Box<Statement>,
        pos: Position,
    },
    /// `PRAGMA [schema.]name [= value | (value)]`.
    Pragma(Pragma),
    /// `ANALYZE [schema.][name]`.
    Analyze {
        name: Option<QualifiedName>,
        pos: Position,
    },
    /// `VACUUM [schema] [INTO expr]`.
    Vacuum {
        schema: Option<Ident>,
        into: Option<Expr>,
        pos: Position,
    },
    /// `REINDEX [[schema.]name]` (a collation, table or index name).
    Reindex {
        name: Option<QualifiedName>,
        pos: Position,
    },
}

/// The locking mode of BEGIN. `Deferred` is also what a bare BEGIN means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TransactionMode {
    Deferred,
    Immediate,
    Exclusive,
}

/// `[schema.]name`, used for tables, indexes, views.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct QualifiedName {
    /// `main`, `temp`, or an attached database; `None` when not written.
    pub schema: Option<Ident>,
    pub name: Ident,
    pub pos: Position,
}

/// The conflict-resolution algorithm of `INSERT OR ...`, `UPDATE OR ...` and
/// of the `ON CONFLICT` clause of a column/table constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConflictResolution {
    Rollback,
    Abort,
    Fail,
    Ignore,
    Replace,
}

// ---------------------------------------------------------------------------
// SELECT
// ---------------------------------------------------------------------------

/// A full query: `[WITH ..] core [compound-op core]* [ORDER BY ..] [LIMIT ..]`.
///
/// Compound operators all have the same precedence and associate to the
/// left: `a UNION b EXCEPT c` is `(a UNION b) EXCEPT c`. ORDER BY and LIMIT
/// apply to the whole compound.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Select {
    pub with: Option<With>,
    /// The first SELECT/VALUES core.
    pub first: SelectCore,
    /// The following cores, each with the operator joining it to the
    /// result so far.
    pub compounds: Vec<(CompoundOperator, SelectCore)>,
    pub order_by: Vec<OrderingTerm>,
    pub limit: Option<Limit>,
    pub pos: Position,
}

/// `WITH [RECURSIVE] cte, ...`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct With {
    pub recursive: bool,
    pub ctes: Vec<Cte>,
    pub pos: Position,
}

/// One common table expression: `name [(cols)] AS [[NOT] MATERIALIZED] (select)`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Cte {
    pub name: Ident,
    /// Column names; empty when not written.
    pub columns: Vec<Ident>,
    /// `Some(true)` for MATERIALIZED, `Some(false)` for NOT MATERIALIZED.
    pub materialized: Option<bool>,
    pub select: Box<Select>,
    pub pos: Position,
}

/// `UNION`, `UNION ALL`, `INTERSECT`, `EXCEPT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CompoundOperator {
    Union,
    UnionAll,
    Intersect,
    Except,
}

/// One SELECT or VALUES clause of a (possibly compound) query.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SelectCore {
    Select(Box<SelectClause>),
    /// `VALUES (..), (..)`: every row has the same number of values (the
    /// parser checks this, like SQLite: "all VALUES must have the same
    /// number of terms").
    Values {
        rows: Vec<Vec<Expr>>,
        pos: Position,
    },
}

/// `SELECT [DISTINCT|ALL] cols [FROM ..] [WHERE ..] [GROUP BY ..] [HAVING ..] [WINDOW ..]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SelectClause {
    pub distinct: bool,
    pub columns: Vec<ResultColumn>,
    pub from: Option<FromClause>,
    pub where_clause: Option<Expr>,
    pub group_by: Vec<Expr>,
    pub having: Option<Expr>,
    /// `WINDOW name AS (spec), ...`
    pub windows: Vec<NamedWindow>,
    pub pos: Position,
}

/// One item of a result column list (also used by RETURNING).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ResultColumn {
    /// `*`
    Star { pos: Position },
    /// `table.*`
    TableStar { table: Ident, pos: Position },
    /// `expr [[AS] alias]`. `text` is the expression's source text exactly as
    /// written (SQLite names an unaliased result column by it, e.g. `a+1`).
    Expr {
        expr: Expr,
        alias: Option<Ident>,
        text: String,
    },
}

/// A FROM clause: a left-deep sequence of joins. `first` is joined with
/// `joins[0].table`, the result with `joins[1].table`, and so on.
/// `FROM a, b` is `first: a, joins: [Join { operator: Comma, table: b }]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FromClause {
    pub first: TableOrSubquery,
    pub joins: Vec<Join>,
}

/// One join step of a [`FromClause`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Join {
    pub operator: JoinOperator,
    pub table: TableOrSubquery,
    pub constraint: Option<JoinConstraint>,
    /// Position of the join operator (the comma or the first join keyword).
    pub pos: Position,
}

/// How a join step combines rows. `natural` adds an implicit USING over
/// the common column names (then `constraint` is `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct JoinOperator {
    pub natural: bool,
    pub kind: JoinKind,
}

/// The kind of a join. `Comma` and `Inner` mean the same; `Cross` too, except
/// that SQLite's planner keeps the written order for CROSS JOIN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JoinKind {
    Comma,
    Inner,
    Cross,
    Left,
    Right,
    Full,
}

/// `ON expr` or `USING (cols)`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum JoinConstraint {
    On(Expr),
    Using(Vec<Ident>),
}

/// One item of a FROM clause.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TableOrSubquery {
    /// A table, view or CTE: `[schema.]name [[AS] alias] [INDEXED BY i | NOT INDEXED]`.
    Table {
        name: QualifiedName,
        alias: Option<Ident>,
        indexed: Option<Indexed>,
    },
    /// A table-valued function such as `json_each(x) [AS alias]`.
    Function {
        name: QualifiedName,
        args: Vec<Expr>,
        alias: Option<Ident>,
    },
    /// `(select) [[AS] alias]`.
    Subquery {
        select: Box<Select>,
        alias: Option<Ident>,
        pos: Position,
    },
    /// A parenthesised join `(a JOIN b ON ..)` without an alias. (The parser
    /// flattens a parenthesised single item, `(t) AS x` being `t AS x`, and
    /// turns an aliased join `(a JOIN b) AS x` into the subquery
    /// `(SELECT * FROM a JOIN b) AS x`, as SQLite does.)
    Nested {
        from: Box<FromClause>,
        pos: Position,
    },
}

/// `INDEXED BY name` or `NOT INDEXED`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Indexed {
    By(Ident),
    NotIndexed,
}

/// `WINDOW name AS (spec)`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NamedWindow {
    pub name: Ident,
    pub spec: WindowSpec,
    pub pos: Position,
}

/// An ORDER BY term (also a window's ORDER BY and an aggregate's ORDER BY).
/// A `COLLATE` after the expression is part of `expr` (an `ExprKind::Collate`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OrderingTerm {
    pub expr: Expr,
    /// `None` when neither ASC nor DESC was written (means ascending).
    pub order: Option<SortOrder>,
    /// `None` when no NULLS FIRST/LAST was written: SQLite puts NULLs first
    /// when ascending and last when descending.
    pub nulls: Option<NullsOrder>,
}

/// ASC or DESC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SortOrder {
    Asc,
    Desc,
}

/// NULLS FIRST or NULLS LAST.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NullsOrder {
    First,
    Last,
}

/// `LIMIT limit [OFFSET offset]`; `LIMIT a, b` is stored as limit `b`,
/// offset `a` (SQLite's order).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Limit {
    pub limit: Expr,
    pub offset: Option<Expr>,
}

// ---------------------------------------------------------------------------
// DML
// ---------------------------------------------------------------------------

/// `[WITH ..] INSERT [OR conflict] INTO t [AS alias] [(cols)] source [upsert]* [RETURNING ..]`;
/// `REPLACE INTO` is `or: Some(Replace)`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Insert {
    pub with: Option<With>,
    pub or: Option<ConflictResolution>,
    pub table: QualifiedName,
    pub alias: Option<Ident>,
    /// Target columns; empty when not written (all columns in order).
    pub columns: Vec<Ident>,
    pub source: InsertSource,
    /// ON CONFLICT clauses, in the order written (only the last may omit its
    /// target, which the parser checks).
    pub upsert: Vec<Upsert>,
    pub returning: Vec<ResultColumn>,
    pub pos: Position,
}

/// Where inserted rows come from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum InsertSource {
    /// A plain `VALUES (..), (..)` (no compound, ORDER BY or LIMIT); every row
    /// has the same length.
    Values(Vec<Vec<Expr>>),
    /// Any other query, including a VALUES with compounds.
    Select(Box<Select>),
    /// `DEFAULT VALUES`.
    DefaultValues,
}

/// `ON CONFLICT [(cols) [WHERE e]] DO NOTHING | DO UPDATE SET .. [WHERE e]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Upsert {
    /// The conflict target; `None` matches any uniqueness constraint.
    pub target: Option<UpsertTarget>,
    pub action: UpsertAction,
    pub pos: Position,
}

/// The `(indexed-columns) [WHERE expr]` of an upsert.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct UpsertTarget {
    pub columns: Vec<IndexedColumn>,
    pub where_clause: Option<Expr>,
}

/// What an upsert does on conflict.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum UpsertAction {
    Nothing,
    /// `DO UPDATE SET .. [WHERE ..]`. Inside, `excluded.col` names the row
    /// that failed to insert (an ordinary qualified column reference).
    Update {
        sets: Vec<Assignment>,
        where_clause: Option<Expr>,
    },
}

/// `col = expr` or `(a, b) = expr` (the expr is then a row value or a
/// subquery with as many columns).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Assignment {
    /// One or more column names (more only for the parenthesised form).
    pub columns: Vec<Ident>,
    pub value: Expr,
    pub pos: Position,
}

/// `[WITH ..] UPDATE [OR conflict] t [AS alias] [INDEXED BY ..] SET .. [FROM ..] [WHERE ..] [RETURNING ..]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Update {
    pub with: Option<With>,
    pub or: Option<ConflictResolution>,
    pub table: QualifiedName,
    pub alias: Option<Ident>,
    pub indexed: Option<Indexed>,
    pub sets: Vec<Assignment>,
    pub from: Option<FromClause>,
    pub where_clause: Option<Expr>,
    pub returning: Vec<ResultColumn>,
    pub pos: Position,
}

/// `[WITH ..] DELETE FROM t [AS alias] [INDEXED BY ..] [WHERE ..] [RETURNING ..]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Delete {
    pub with: Option<With>,
    pub table: QualifiedName,
    pub alias: Option<Ident>,
    pub indexed: Option<Indexed>,
    pub where_clause: Option<Expr>,
    pub returning: Vec<ResultColumn>,
    pub pos: Position,
}

// ---------------------------------------------------------------------------
// DDL
// ---------------------------------------------------------------------------

/// `CREATE [TEMP] TABLE [IF NOT EXISTS] name (defs) [options] | AS select`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CreateTable {
    pub temporary: bool,
    pub if_not_exists: bool,
    pub name: QualifiedName,
    pub body: CreateTableBody,
    pub pos: Position,
}

/// The two forms of CREATE TABLE.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CreateTableBody {
    /// Column definitions (at least one) and table constraints.
    Columns {
        columns: Vec<ColumnDef>,
        constraints: Vec<TableConstraint>,
        without_rowid: bool,
        strict: bool,
    },
    /// `AS select`.
    AsSelect(Box<Select>),
}

/// `name [type] [constraint]*`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ColumnDef {
    pub name: Ident,
    /// `None` when no type was written (affinity BLOB).
    pub type_name: Option<TypeName>,
    pub constraints: Vec<ColumnConstraint>,
    pub pos: Position,
}

/// A type name: one or more words and up to two signed numbers, e.g.
/// `VARCHAR(255)`, `UNSIGNED BIG INT`, `DECIMAL(10, 2)`. Column affinity is
/// derived from `name` by SQLite's substring rules.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TypeName {
    /// The words, unquoted, joined by one space. Empty only in `CAST(x AS )`
    /// style, which SQLite accepts.
    pub name: String,
    /// The numbers inside the parentheses, as written (`"-5"`, `"10"`).
    pub args: Vec<String>,
}

/// `[CONSTRAINT name] kind`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ColumnConstraint {
    pub name: Option<Ident>,
    pub kind: ColumnConstraintKind,
    pub pos: Position,
}

/// The column constraints SQLite knows.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ColumnConstraintKind {
    /// `PRIMARY KEY [ASC|DESC] [ON CONFLICT ..] [AUTOINCREMENT]`. A column
    /// of type exactly `INTEGER` with this constraint (not DESC) is the rowid.
    PrimaryKey {
        order: Option<SortOrder>,
        conflict: Option<ConflictResolution>,
        autoincrement: bool,
    },
    /// `NOT NULL [ON CONFLICT ..]`.
    NotNull {
        conflict: Option<ConflictResolution>,
    },
    /// `NULL`: allowed and meaningless (SQLite accepts it).
    Null,
    /// `UNIQUE [ON CONFLICT ..]`.
    Unique {
        conflict: Option<ConflictResolution>,
    },
    /// `CHECK (expr)`.
    Check(Expr),
    /// `DEFAULT literal | signed-number | (expr) | identifier`. A bare
    /// identifier is stored as a text literal, TRUE/FALSE as `Literal::Bool`
    /// (both as SQLite does); a parenthesised expression is stored without
    /// its parentheses.
    Default(Expr),
    /// `COLLATE name`.
    Collate(Ident),
    /// `REFERENCES t [(cols)] [actions]`.
    References(ForeignKeyClause),
    /// `[GENERATED ALWAYS] AS (expr) [STORED|VIRTUAL]`.
    Generated { expr: Expr, stored: bool },
}

/// A table constraint: `[CONSTRAINT name] kind`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TableConstraint {
    pub name: Option<Ident>,
    pub kind: TableConstraintKind,
    pub pos: Position,
}

/// The table constraints SQLite knows.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TableConstraintKind {
    /// `PRIMARY KEY (cols) [ON CONFLICT ..]`.
    PrimaryKey {
        columns: Vec<IndexedColumn>,
        conflict: Option<ConflictResolution>,
        autoincrement: bool,
    },
    /// `UNIQUE (cols) [ON CONFLICT ..]`.
    Unique {
        columns: Vec<IndexedColumn>,
        conflict: Option<ConflictResolution>,
    },
    /// `CHECK (expr)`.
    Check(Expr),
    /// `FOREIGN KEY (cols) REFERENCES ...`.
    ForeignKey {
        columns: Vec<Ident>,
        clause: ForeignKeyClause,
    },
}

/// `REFERENCES table [(cols)] [ON DELETE a] [ON UPDATE a] [MATCH n] [[NOT] DEFERRABLE [INITIALLY DEFERRED|IMMEDIATE]]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ForeignKeyClause {
    pub table: Ident,
    /// Referenced columns; empty means the parent's primary key.
    pub columns: Vec<Ident>,
    pub on_delete: Option<ForeignKeyAction>,
    pub on_update: Option<ForeignKeyAction>,
    /// `DEFERRABLE INITIALLY DEFERRED`: checked at commit instead of at
    /// each statement.
    pub deferred: bool,
}

/// An `ON DELETE`/`ON UPDATE` action. `None` in the clause means NO ACTION.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ForeignKeyAction {
    SetNull,
    SetDefault,
    Cascade,
    Restrict,
    NoAction,
}

/// An indexed column (CREATE INDEX, PRIMARY KEY/UNIQUE table constraints,
/// upsert targets): `expr [COLLATE c] [ASC|DESC]`. A plain column is an
/// `ExprKind::Column`; a COLLATE is an `ExprKind::Collate` around it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IndexedColumn {
    pub expr: Expr,
    pub order: Option<SortOrder>,
    pub pos: Position,
}

/// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table (cols) [WHERE expr]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CreateIndex {
    pub unique: bool,
    pub if_not_exists: bool,
    pub name: QualifiedName,
    pub table: Ident,
    pub columns: Vec<IndexedColumn>,
    /// The partial-index predicate.
    pub where_clause: Option<Expr>,
    pub pos: Position,
}

/// `CREATE [TEMP] VIEW [IF NOT EXISTS] name [(cols)] AS select`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CreateView {
    pub temporary: bool,
    pub if_not_exists: bool,
    pub name: QualifiedName,
    pub columns: Vec<Ident>,
    pub select: Box<Select>,
    pub pos: Position,
}

/// `CREATE [TEMP] TRIGGER [IF NOT EXISTS] name [BEFORE | AFTER | INSTEAD
/// OF] DELETE | INSERT | UPDATE [OF columns] ON table [FOR EACH ROW] [WHEN
/// expr] BEGIN statement; ... END`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CreateTrigger {
    pub temporary: bool,
    pub if_not_exists: bool,
    pub name: QualifiedName,
    pub timing: TriggerTiming,
    pub event: TriggerEvent,
    /// The table (or, for INSTEAD OF, the view); never schema-qualified
    /// beyond `main`.
    pub table: QualifiedName,
    pub when: Option<Expr>,
    /// INSERT, UPDATE, DELETE and SELECT statements, at least one, whose
    /// expressions may name the row as `NEW.c` / `OLD.c` and call RAISE.
    pub body: Vec<Statement>,
    pub pos: Position,
}

/// When a trigger runs, against the row's change. Without one written,
/// BEFORE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TriggerTiming {
    Before,
    After,
    InsteadOf,
}

/// The change a trigger runs for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TriggerEvent {
    Delete,
    Insert,
    /// `UPDATE [OF columns]`: an UPDATE setting any column, or one of
    /// these (empty: any).
    Update(Vec<Ident>),
}

/// `DROP TABLE|INDEX|VIEW|TRIGGER [IF EXISTS] name`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DropObject {
    pub kind: DropKind,
    pub if_exists: bool,
    pub name: QualifiedName,
    pub pos: Position,
}

/// What a DROP removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DropKind {
    Table,
    Index,
    View,
    Trigger,
}

/// `ALTER TABLE name action`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AlterTable {
    pub table: QualifiedName,
    pub action: AlterAction,
    pub pos: Position,
}

/// The ALTER TABLE actions.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum AlterAction {
    /// `RENAME TO new`.
    RenameTable(Ident),
    /// `RENAME [COLUMN] old TO new`.
    RenameColumn { old: Ident, new: Ident },
    /// `ADD [COLUMN] coldef`.
    AddColumn(ColumnDef),
    /// `DROP [COLUMN] name`.
    DropColumn(Ident),
}

/// `PRAGMA [schema.]name [= value | (value)]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pragma {
    pub name: QualifiedName,
    pub value: Option<PragmaValue>,
    pub pos: Position,
}

/// A pragma's argument.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PragmaValue {
    /// A bare word or quoted name: `ON`, `wal`, `"main"`, a table name.
    Name(Ident),
    /// A string or (possibly signed) numeric literal.
    Literal(Literal),
}

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------

/// An expression with the byte position of the token that names it (see
/// the module doc).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub pos: Position,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ExprKind {
    Literal(Literal),
    /// A bound parameter. `index` is 1-based and follows SQLite's rules: `?`
    /// takes the largest index used so far plus one, `?NNN` is NNN, and a
    /// named parameter (`:a`, `@a`, `$a`) gets the next index the first time
    /// its name is seen and that same index afterwards. `name` includes the
    /// prefix character (`":a"`, `"?3"`); `None` for a bare `?`.
    Param {
        index: u32,
        name: Option<String>,
    },
    /// A column reference, possibly qualified.
    Column(ColumnRef),
    Unary {
        op: UnaryOp,
        expr: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `expr [NOT] LIKE|GLOB|MATCH|REGEXP pattern [ESCAPE escape]`.
    Like {
        op: LikeOp,
        negated: bool,
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
    },
    /// `expr [NOT] BETWEEN low AND high`.
    Between {
        negated: bool,
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
    },
    /// `expr [NOT] IN (list)`; the list may be empty (SQLite allows `IN ()`).
    InList {
        negated: bool,
        expr: Box<Expr>,
        list: Vec<Expr>,
    },
    /// `expr [NOT] IN (select)`.
    InSelect {
        negated: bool,
        expr: Box<Expr>,
        select: Box<Select>,
    },
    /// `expr [NOT] IN [schema.]table` or `IN tablefn(args)`; `args` is
    /// `None` for a plain table.
    InTable {
        negated: bool,
        expr: Box<Expr>,
        table: QualifiedName,
        args: Option<Vec<Expr>>,
    },
    /// `expr IS NULL` (`negated: false`) / `expr IS NOT NULL` and their
    /// ISNULL, NOTNULL, NOT NULL spellings.
    IsNull {
        negated: bool,
        expr: Box<Expr>,
    },
    /// `CAST(expr AS type)`.
    Cast {
        expr: Box<Expr>,
        type_name: TypeName,
    },
    /// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`; at least one WHEN.
    Case {
        operand: Option<Box<Expr>>,
        when_then: Vec<(Expr, Expr)>,
        else_expr: Option<Box<Expr>>,
    },
    /// `EXISTS (select)`.
    Exists(Box<Select>),
    /// `RAISE(IGNORE)` or `RAISE(ROLLBACK | ABORT | FAIL, message)`, only
    /// in a trigger's statements.
    Raise {
        action: RaiseAction,
        /// The error message (a string or a name in SQLite 3.46's grammar);
        /// none for IGNORE.
        message: Option<String>,
    },
    /// `(select)` used as a value (or a row value if it has several columns).
    Subquery(Box<Select>),
    /// A function call, aggregate or window function.
    Function(Box<FunctionCall>),
    /// `expr COLLATE name`.
    Collate {
        expr: Box<Expr>,
        collation: Ident,
    },
    /// A parenthesised row value `(a, b, ...)` with at least two elements.
    /// (A single parenthesised expression is just that expression.)
    Row(Vec<Expr>),
}

/// A literal value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Literal {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
    /// `TRUE` or `FALSE` (unquoted, case-insensitive, not qualified): the
    /// integers 1 and 0, except that `x IS [NOT] TRUE|FALSE` is a truth test
    /// in SQLite (`x IS TRUE` is true when x is a non-NULL, non-zero value).
    /// SQLite lets a column named `true`/`false` shadow these; TinyJoin does
    /// not: quote such a column's name.
    Bool(bool),
    /// `CURRENT_TIME` (`HH:MM:SS`, UTC).
    CurrentTime,
    /// `CURRENT_DATE` (`YYYY-MM-DD`, UTC).
    CurrentDate,
    /// `CURRENT_TIMESTAMP` (`YYYY-MM-DD HH:MM:SS`, UTC).
    CurrentTimestamp,
}

/// A reference to a column: `[[schema.]table.]column`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ColumnRef {
    pub schema: Option<Ident>,
    pub table: Option<Ident>,
    pub column: Ident,
    /// The column name was written in double quotes and unqualified. SQLite
    /// then treats it as a string literal if no column of that name exists
    /// (its "double-quoted string literal" compatibility rule).
    pub double_quoted: bool,
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x` (no-op that still removes a column's affinity, as in SQLite).
    Plus,
    /// `~x`
    BitNot,
    /// `NOT x`
    Not,
}

/// Infix operators, grouped by SQLite precedence (lowest first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinaryOp {
    Or,
    And,
    /// `=` or `==`
    Eq,
    /// `!=` or `<>`
    Ne,
    /// `IS` or `IS NOT DISTINCT FROM`
    Is,
    /// `IS NOT` or `IS DISTINCT FROM`
    IsNot,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitOr,
    ShiftLeft,
    ShiftRight,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// `||`
    Concat,
    /// `->` (JSON extract, returns JSON text)
    JsonArrow,
    /// `->>` (JSON extract, returns an SQL value)
    JsonArrow2,
}

impl BinaryOp {
    /// The operator with its operands swapped (`a < b` is `b > a`); other
    /// operators are their own.
    pub(crate) fn flipped(self) -> BinaryOp {
        match self {
            BinaryOp::Lt => BinaryOp::Gt,
            BinaryOp::Le => BinaryOp::Ge,
            BinaryOp::Gt => BinaryOp::Lt,
            BinaryOp::Ge => BinaryOp::Le,
            other => other,
        }
    }
}

/// The pattern-matching operators (all at equality precedence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LikeOp {
    Like,
    Glob,
    Match,
    Regexp,
}

/// `name([DISTINCT] args | *) [FILTER (WHERE e)] [OVER window]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FunctionCall {
    /// As written (compare case-insensitively).
    pub name: Ident,
    pub distinct: bool,
    /// `f(*)`, as in `count(*)`; `args` is then empty.
    pub star: bool,
    pub args: Vec<Expr>,
    /// An aggregate's `ORDER BY` inside the parentheses
    /// (`group_concat(x, ',' ORDER BY y)`); empty when not written.
    pub order_by: Vec<OrderingTerm>,
    /// `FILTER (WHERE expr)`.
    pub filter: Option<Box<Expr>>,
    /// `OVER ...`: makes this a window function call.
    pub over: Option<Over>,
}

/// The OVER clause of a window function call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Over {
    /// `OVER name`: a window from the WINDOW clause.
    Named(Ident),
    /// `OVER (spec)`.
    Spec(WindowSpec),
}

/// `([base] [PARTITION BY ..] [ORDER BY ..] [frame])`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WindowSpec {
    /// The name of a window this one extends.
    pub base: Option<Ident>,
    pub partition_by: Vec<Expr>,
    pub order_by: Vec<OrderingTerm>,
    /// `None`: the default frame (RANGE BETWEEN UNBOUNDED PRECEDING AND
    /// CURRENT ROW).
    pub frame: Option<Frame>,
}

/// `ROWS|RANGE|GROUPS start` or `... BETWEEN start AND end`, `[EXCLUDE ..]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Frame {
    pub units: FrameUnits,
    pub start: FrameBound,
    /// `None` when the single-bound form was used (end = CURRENT ROW).
    pub end: Option<FrameBound>,
    /// `None` means EXCLUDE NO OTHERS.
    pub exclude: Option<FrameExclude>,
}

/// ROWS, RANGE or GROUPS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameUnits {
    Rows,
    Range,
    Groups,
}

/// One end of a window frame.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FrameBound {
    UnboundedPreceding,
    Preceding(Box<Expr>),
    CurrentRow,
    Following(Box<Expr>),
    UnboundedFollowing,
}

/// `EXCLUDE CURRENT ROW | GROUP | TIES | NO OTHERS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameExclude {
    NoOthers,
    CurrentRow,
    Group,
    Ties,
}

/// What `RAISE` does: IGNORE ends the trigger and skips the row's change;
/// the others fail with the message, as that conflict algorithm does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RaiseAction {
    Ignore,
    Rollback,
    Abort,
    Fail,
}
