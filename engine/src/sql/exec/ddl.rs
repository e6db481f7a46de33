//! DDL: CREATE/DROP TABLE, INDEX and VIEW, ALTER TABLE, and the catalog's
//! persistence in the schema tree (see [`crate::sql::catalog`]).
//!
//! ANALYZE's statistics are loaded with the catalog and removed with the
//! objects they describe (`exec::analyze`).
//!
//! A table's stored `sql` is its CREATE TABLE text followed by every ALTER
//! TABLE applied since, `;`-separated; [`load_catalog`] replays them. That
//! keeps the original text (as SQLite does) without a renderer.

use std::ops::Bound;
use std::rc::Rc;

use super::keysort::{KeySorter, SortedKeys};
use super::kv::Kv;
use super::write::{visit_index_keys, RowDecode};
use super::ExecCtx;
use crate::sql::ast;
use crate::sql::binder::expr::contains_subquery;
use crate::sql::catalog::{
    index_from_ast, key, schema_record, table_from_ast, Catalog, Index, Table, TableOptions, View,
    SCHEMA_TREE,
};
use crate::sql::parser;
use crate::sql::record;
use crate::sql::value::Value;
use crate::storage::SortedSource;
use crate::{corrupt, sql_err, ConstraintKind, Error, Result};

const META_KEY: &[u8] = b"";

/// Reads the catalog from the schema tree (an empty catalog when the
/// database is new).
pub(crate) fn load_catalog(kv: &dyn Kv) -> Result<Catalog> {
    let mut cat = Catalog::default();
    if !kv.tree_exists(SCHEMA_TREE)? {
        return Ok(cat);
    }
    let entries = kv.scan(SCHEMA_TREE, Bound::Unbounded, Bound::Unbounded, false, None)?;
    let mut records = Vec::new();
    for (k, v) in entries {
        let rec = record::decode(&v)?;
        if k == META_KEY {
            if let Some(Value::Integer(n)) = rec.first() {
                cat.next_id = *n as u64;
            }
            if let Some(Value::Integer(v)) = rec.get(1) {
                cat.user_version = *v;
            }
            continue;
        }
        let text = |i: usize| match rec.get(i) {
            Some(Value::Text(s)) => Some(s.clone()),
            _ => None,
        };
        let (Some(kind), Some(name), Some(table), Some(tree)) =
            (text(0), text(1), text(2), text(3))
        else {
            return Err(corrupt!(0, "malformed schema entry"));
        };
        records.push((kind, name, table, tree, text(4)));
    }
    for pass in ["table", "index", "view"] {
        for (kind, name, table, tree, sql) in records.iter().filter(|r| r.0 == pass) {
            let entry = StoredObject {
                kind,
                name,
                table,
                tree,
                sql: sql.as_deref(),
            };
            load_object(&mut cat, &entry, &records)?;
        }
    }
    super::trigger::load(kv, &mut cat)?;
    cat.stats = super::analyze::load_stats(kv, &cat)?;
    cat.bump_version();
    Ok(cat)
}

/// One schema entry as stored: (type, name, table, tree, sql).
struct StoredObject<'a> {
    kind: &'a str,
    name: &'a str,
    /// The table an index belongs to (kept current by ALTER TABLE RENAME,
    /// while the CREATE INDEX text keeps the old name).
    table: &'a str,
    tree: &'a str,
    sql: Option<&'a str>,
}

type SchemaRecords = [(String, String, String, String, Option<String>)];

fn load_object(cat: &mut Catalog, entry: &StoredObject, records: &SchemaRecords) -> Result<()> {
    let StoredObject {
        kind,
        name,
        table: owner,
        tree,
        sql,
    } = *entry;
    let bad = |what: &str| corrupt!(0, "schema entry {name}: {what}");
    match kind {
        "table" => {
            let sql = sql.ok_or_else(|| bad("missing sql"))?;
            let ct = folded_definition(sql).map_err(|e| bad(&e.to_string()))?;
            // A table made before TinyJoin merged identical UNIQUE /
            // PRIMARY KEY constraints has an automatic index for each
            // (their names number them in order, so merging them now would
            // give an index another's tree): its stored automatic indexes
            // tell which way it was made.
            let stored = records
                .iter()
                .filter(|r| r.0 == "index" && r.4.is_none() && r.2.eq_ignore_ascii_case(name))
                .count();
            let (mut t, mut autos) = table_from_stored(cat, entry, &ct, false)?;
            if autos.len() > stored {
                (t, autos) = table_from_stored(cat, entry, &ct, true)?;
            }
            t.name = name.to_string();
            t.sql = sql.to_string();
            for mut ix in autos {
                if let Some(r) = records
                    .iter()
                    .find(|r| r.0 == "index" && r.1.eq_ignore_ascii_case(&ix.name))
                {
                    ix.tree = r.3.clone();
                }
                ix.table = key(name);
                cat.indexes.insert(key(&ix.name), Rc::new(ix));
            }
            cat.tables.insert(key(name), Rc::new(t));
        }
        "index" => {
            let Some(sql) = sql else { return Ok(()) }; // automatic: loaded with its table
            let stmts = parser::parse(sql)?;
            let Some(ast::Statement::CreateIndex(ci)) = stmts.first() else {
                return Err(bad("not CREATE INDEX"));
            };
            let table = cat.table_or_err(owner)?.clone();
            let ix = index_from_ast(&table, ci, sql.to_string(), tree.to_string())?;
            cat.indexes.insert(key(name), Rc::new(ix));
        }
        "view" => {
            let sql = sql.ok_or_else(|| bad("missing sql"))?;
            let stmts = parser::parse(sql)?;
            let Some(ast::Statement::CreateView(cv)) = stmts.first() else {
                return Err(bad("not CREATE VIEW"));
            };
            cat.views.insert(
                key(name),
                Rc::new(View {
                    name: name.to_string(),
                    columns: cv.columns.clone(),
                    select: (*cv.select).clone(),
                    sql: sql.to_string(),
                }),
            );
        }
        _ => return Err(bad("unknown kind")),
    }
    Ok(())
}

/// The table (and its automatic indexes, with scratch tree names) that
/// the stored definition `ct` of `entry` defines; `merge` as in
/// [`table_from_ast`].
fn table_from_stored(
    cat: &Catalog,
    entry: &StoredObject,
    ct: &ast::CreateTable,
    merge: bool,
) -> Result<(Table, Vec<Index>)> {
    let mut scratch = cat.clone();
    let sql = entry.sql.unwrap_or_default();
    let mut def = |options| {
        table_from_definition(
            &mut scratch,
            ct,
            options,
            entry.name,
            sql.to_string(),
            entry.tree.to_string(),
            merge,
        )
    };
    // A table made before STRICT and WITHOUT ROWID were checked may break
    // their rules (no PRIMARY KEY, another type): it reads back as the
    // ordinary table it was made.
    let options = create_options(ct);
    match def(options) {
        Err(_) if options != TableOptions::default() => def(TableOptions::default()),
        other => other,
    }
}

/// The options a CREATE TABLE declares.
fn create_options(ct: &ast::CreateTable) -> TableOptions {
    match &ct.body {
        ast::CreateTableBody::Columns {
            without_rowid,
            strict,
            ..
        } => TableOptions {
            strict: *strict,
            without_rowid: *without_rowid,
        },
        _ => TableOptions::default(),
    }
}

/// [`table_from_ast`] of a CREATE TABLE's columns and constraints, with
/// `options` (not necessarily the ones it declares: see
/// [`table_from_stored`]).
fn table_from_definition(
    cat: &mut Catalog,
    ct: &ast::CreateTable,
    options: TableOptions,
    name: &str,
    sql: String,
    tree: String,
    merge: bool,
) -> Result<(Table, Vec<Index>)> {
    let ast::CreateTableBody::Columns {
        columns,
        constraints,
        ..
    } = &ct.body
    else {
        return Err(sql_err!("internal: {name} is not defined by columns"));
    };
    table_from_ast(cat, name, columns, constraints, options, sql, tree, merge)
}

fn ensure_schema_tree(kv: &mut dyn Kv) -> Result<()> {
    kv.create_tree(SCHEMA_TREE)?;
    Ok(())
}

/// Writes the schema tree's meta record: `(next tree id, user_version)`
/// (a record without the second field, as older files have, reads as
/// user_version 0).
pub(crate) fn save_meta(kv: &mut dyn Kv, cat: &Catalog) -> Result<()> {
    ensure_schema_tree(kv)?;
    kv.insert(
        SCHEMA_TREE,
        META_KEY,
        &record::encode(&[
            Value::Integer(cat.next_id as i64),
            Value::Integer(cat.user_version),
        ]),
    )?;
    Ok(())
}

fn save_object(
    kv: &mut dyn Kv,
    kind: &str,
    name: &str,
    table: &str,
    tree: &str,
    sql: Option<&str>,
) -> Result<()> {
    ensure_schema_tree(kv)?;
    kv.insert(
        SCHEMA_TREE,
        key(name).as_bytes(),
        &record::encode(&schema_record(kind, name, table, tree, sql)),
    )?;
    Ok(())
}

fn already_exists(cat: &Catalog, name: &str) -> Error {
    let k = key(name);
    let kind = if cat.indexes.contains_key(&k) {
        "index"
    } else if cat.views.contains_key(&k) {
        "view"
    } else {
        "table"
    };
    sql_err!("{kind} {name} already exists")
}

/// CREATE TABLE with a column list. Returns false when IF NOT EXISTS
/// skipped it.
pub(crate) fn create_table(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    ct: &ast::CreateTable,
    sql: &str,
) -> Result<bool> {
    let name = &ct.name.name;
    if cat.name_taken(name) {
        if ct.if_not_exists && cat.table(name).is_some() {
            return Ok(false);
        }
        return Err(already_exists(cat, name));
    }
    if name.to_ascii_lowercase().starts_with("sqlite_") {
        return Err(sql_err!("object name reserved for internal use: {name}"));
    }
    let ast::CreateTableBody::Columns {
        columns,
        constraints,
        without_rowid,
        strict,
    } = &ct.body
    else {
        return Err(sql_err!(
            "internal: CREATE TABLE AS goes through create_table_as"
        ));
    };
    let tree = cat.new_tree_name("t");
    let options = TableOptions {
        strict: *strict,
        without_rowid: *without_rowid,
    };
    let (table, autos) = table_from_ast(
        cat,
        name,
        columns,
        constraints,
        options,
        sql.to_string(),
        tree,
        true,
    )?;
    // As in SQLite: a row's checks depend on the row alone (a statement
    // may then maintain its indexes in any order).
    if table.checks.iter().any(|(_, e, _)| contains_subquery(e)) {
        return Err(sql_err!("subqueries prohibited in CHECK constraints"));
    }
    if table.columns.iter().any(|c| c.generated.is_some()) {
        check_generated(cat, &table)?;
    }
    install_table(kv, cat, table, autos)?;
    Ok(true)
}

fn install_table(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    table: Table,
    autos: Vec<Index>,
) -> Result<()> {
    kv.create_tree(&table.tree)?;
    save_object(
        kv,
        "table",
        &table.name,
        &table.name,
        &table.tree,
        Some(&table.sql),
    )?;
    for ix in autos {
        kv.create_tree(&ix.tree)?;
        save_object(kv, "index", &ix.name, &table.name, &ix.tree, None)?;
        cat.indexes.insert(key(&ix.name), Rc::new(ix));
    }
    save_meta(kv, cat)?;
    cat.tables.insert(key(&table.name), Rc::new(table));
    Ok(())
}

/// CREATE TABLE ... AS SELECT: columns named and typed after the result.
pub(crate) fn create_table_as(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    ct: &ast::CreateTable,
    columns: &[String],
    decl: &[String],
    rows: Vec<Vec<Value>>,
) -> Result<bool> {
    let name = &ct.name.name;
    if cat.name_taken(name) {
        if ct.if_not_exists && cat.table(name).is_some() {
            return Ok(false);
        }
        return Err(already_exists(cat, name));
    }
    // The text SQLite's createTableStmt writes: names quoted only where
    // they must be, a type only where there is affinity, and one line unless
    // the names are long.
    let ident_len = |n: &str| n.len() + n.matches('"').count() + 2;
    let long = columns.iter().map(|c| ident_len(c) + 5).sum::<usize>() + ident_len(name) >= 50;
    let (sep, sep2, end) = if long {
        ("\n  ", ",\n  ", "\n)")
    } else {
        ("", ",", ")")
    };
    let cols: Vec<String> = columns
        .iter()
        .zip(decl.iter())
        .map(|(c, t)| {
            if t.is_empty() {
                ident_sql(c)
            } else {
                format!("{} {t}", ident_sql(c))
            }
        })
        .collect();
    let sql = format!(
        "CREATE TABLE {}({sep}{}{end}",
        ident_sql(name),
        cols.join(sep2)
    );
    let stmts = parser::parse(&sql)?;
    let Some(ast::Statement::CreateTable(inner)) = stmts.first() else {
        return Err(sql_err!("internal: CREATE TABLE AS rendering"));
    };
    create_table(kv, cat, inner, &sql)?;
    let table = cat.table_or_err(name)?.clone();
    for (i, row) in rows.into_iter().enumerate() {
        let row: Vec<Value> = row
            .into_iter()
            .zip(table.columns.iter())
            .map(|(v, c)| crate::sql::value::apply_affinity(v, c.affinity))
            .collect();
        kv.insert(
            &table.tree,
            &crate::sql::keycode::encode_rowid(i as i64 + 1),
            &record::encode(&row),
        )?;
    }
    Ok(true)
}

/// CREATE [UNIQUE] INDEX: builds the entries of the existing rows.
pub(crate) fn create_index(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    ci: &ast::CreateIndex,
    sql: &str,
    limit: u64,
) -> Result<bool> {
    let name = &ci.name.name;
    if cat.name_taken(name) {
        if ci.if_not_exists && cat.indexes.contains_key(&key(name)) {
            return Ok(false);
        }
        return Err(already_exists(cat, name));
    }
    let table = cat
        .table(&ci.table)
        .cloned()
        .ok_or_else(|| sql_err!("no such table: {}", ci.table))?;
    let tree = cat.new_tree_name("i");
    let index = index_from_ast(&table, ci, sql.to_string(), tree)?;
    check_deterministic(ci)?;
    let index = Rc::new(index);
    let plan = super::write::index_plan(cat, &table, &index)?;
    kv.create_tree(&index.tree)?;
    // Every entry's key, computed in one pass over the table, then sorted
    // (in memory, or in runs in temp space when the keys outgrow their
    // share of the batch limit) and inserted in key order (each insert
    // lands next to the last). A key's flag `counts` is set when the
    // entry counts for UNIQUE (no NULL value).
    let mut sorted = {
        let params: Vec<Value> = Vec::new();
        let ctx = ExecCtx::new(&*kv, &params, limit);
        let mut sorter = KeySorter::new(ctx.budget().clone(), ctx.temp.clone());
        // Only the columns the key and predicate read are decoded.
        visit_index_keys(
            &ctx,
            &table,
            std::slice::from_ref(&plan),
            RowDecode::Read,
            &|_, _| {},
            &mut Err,
            &mut |_, key, counts| sorter.push(key, counts),
        )?;
        sorter.finish()?
    };
    let mut source = IndexEntries {
        keys: &mut sorted,
        unique: index.unique,
        last: None,
        error: || Error::Constraint {
            kind: ConstraintKind::Unique,
            message: super::write::unique_message(&table, &index),
        },
    };
    kv.load_sorted(&index.tree, &mut source)?;
    save_object(kv, "index", name, &table.name, &index.tree, Some(sql))?;
    save_meta(kv, cat)?;
    cat.indexes.insert(key(name), index);
    Ok(true)
}

/// A new index's sorted keys as entries for [`Kv::load_sorted`] (empty
/// values), checking UNIQUE on the way: keys are the values' encoding then
/// the rowid's, so equal values sort next to each other and each key
/// that counts for UNIQUE is compared with the last one that did.
struct IndexEntries<'a, E: Fn() -> Error> {
    keys: &'a mut SortedKeys,
    unique: bool,
    /// The last key that counts for UNIQUE, while the one after it is read.
    last: Option<Vec<u8>>,
    error: E,
}

impl<E: Fn() -> Error> SortedSource for IndexEntries<'_, E> {
    fn next_entry(&mut self) -> Result<Option<(&[u8], &[u8])>> {
        let Some((key, counts)) = self.keys.next()? else {
            return Ok(None);
        };
        if self.unique {
            let values = |k| crate::sql::keycode::split_index_key(k).map(|(v, _)| v);
            match (&mut self.last, counts) {
                (Some(prev), true) => {
                    if values(prev)? == values(key)? {
                        return Err((self.error)());
                    }
                    prev.clear();
                    prev.extend_from_slice(key);
                }
                (None, true) => self.last = Some(key.to_vec()),
                (_, false) => self.last = None,
            }
        }
        Ok(Some((key, &[])))
    }
}

/// An index expression or predicate must give the same key every time,
/// from the row alone: SQLite's "non-deterministic functions prohibited"
/// and "subqueries prohibited" rules (a subquery's answer changes with
/// other rows and tables, which would leave entries no row implies).
fn check_deterministic(ci: &ast::CreateIndex) -> Result<()> {
    if ci.columns.iter().any(|c| contains_subquery(&c.expr)) {
        return Err(sql_err!("subqueries prohibited in index expressions"));
    }
    if ci.columns.iter().any(|c| qualified_column(&c.expr)) {
        return Err(sql_err!(
            "the \".\" operator prohibited in index expressions"
        ));
    }
    if ci.where_clause.as_ref().is_some_and(contains_subquery) {
        return Err(sql_err!(
            "subqueries prohibited in partial index WHERE clauses"
        ));
    }
    let exprs = ci
        .columns
        .iter()
        .map(|c| &c.expr)
        .chain(ci.where_clause.iter());
    match exprs.filter_map(nondeterministic_call).next() {
        Some(name) => Err(sql_err!(
            "non-deterministic functions prohibited in index expressions: {name}()"
        )),
        None => Ok(()),
    }
}

/// Whether `e` names a column with its table (`t.a`), which an index's key
/// and a generated column may not (SQLite's rule: the definition must not
/// depend on the table's name).
fn qualified_column(e: &ast::Expr) -> bool {
    let mut found = false;
    crate::sql::binder::expr::visit(e, &mut |x| {
        found |= matches!(&x.kind, ast::ExprKind::Column(c) if c.table.is_some());
    });
    found
}

/// The name of a non-deterministic function `e` calls, if any.
fn nondeterministic_call(e: &ast::Expr) -> Option<String> {
    let mut bad = None;
    crate::sql::binder::expr::visit(e, &mut |x| {
        if let ast::ExprKind::Function(f) = &x.kind {
            if crate::sql::functions::scalar(&f.name).is_some_and(|s| !s.is_deterministic()) {
                bad = Some(f.name.clone());
            }
        }
    });
    bad
}

/// A table's generated columns, as SQLite requires them: some column is
/// not generated, and each expression reads only the row (no subquery,
/// parameter or non-deterministic function), binds over the table's
/// columns (not its rowid) and is part of no cycle.
fn check_generated(cat: &Catalog, table: &Table) -> Result<()> {
    if table.columns.iter().all(|c| c.generated.is_some()) {
        return Err(sql_err!("must have at least one non-generated column"));
    }
    for g in table.columns.iter().filter_map(|c| c.generated.as_ref()) {
        if contains_subquery(&g.expr) {
            return Err(sql_err!("subqueries prohibited in generated columns"));
        }
        if qualified_column(&g.expr) {
            return Err(sql_err!(
                "the \".\" operator prohibited in generated columns"
            ));
        }
        let mut param = false;
        crate::sql::binder::expr::visit(&g.expr, &mut |x| {
            param |= matches!(x.kind, ast::ExprKind::Param { .. });
        });
        if param {
            return Err(sql_err!("parameters prohibited in generated columns"));
        }
        if nondeterministic_call(&g.expr).is_some() {
            return Err(sql_err!(
                "non-deterministic functions prohibited in generated columns"
            ));
        }
    }
    super::write::generated_plan(cat, table).map(|_| ())
}

/// CREATE VIEW.
pub(crate) fn create_view(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    cv: &ast::CreateView,
    sql: &str,
) -> Result<bool> {
    let name = &cv.name.name;
    if cat.name_taken(name) {
        if cv.if_not_exists && cat.views.contains_key(&key(name)) {
            return Ok(false);
        }
        return Err(already_exists(cat, name));
    }
    let view = View {
        name: name.clone(),
        columns: cv.columns.clone(),
        select: (*cv.select).clone(),
        sql: sql.to_string(),
    };
    // Bind once so a broken view fails at CREATE, as in SQLite.
    cat.views.insert(key(name), Rc::new(view));
    let check = crate::sql::binder::Binder::new(cat)
        .inside_view(name)
        .bind_query_in(&cv.select, None)
        .map(|_| ());
    if let Err(e) = check {
        cat.views.remove(&key(name));
        return Err(e);
    }
    save_object(kv, "view", name, name, "", Some(sql))?;
    Ok(true)
}

/// DROP TABLE/INDEX/VIEW/TRIGGER (a table's or view's triggers go with it).
pub(crate) fn drop(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    d: &ast::DropObject,
    opts: super::dml::DmlOptions,
) -> Result<bool> {
    let name = &d.name.name;
    let k = key(name);
    match d.kind {
        ast::DropKind::Table => {
            let Some(table) = cat.tables.get(&k).cloned() else {
                return if d.if_exists {
                    Ok(false)
                } else {
                    Err(sql_err!("no such table: {name}"))
                };
            };
            super::fk::before_drop(kv, cat, &table, &[], opts)?;
            for ix in cat.table_indexes(name) {
                super::analyze::forget(kv, cat, &ix.tree)?;
                kv.drop_tree(&ix.tree)?;
                kv.remove(SCHEMA_TREE, key(&ix.name).as_bytes())?;
                cat.indexes.remove(&key(&ix.name));
            }
            super::analyze::forget(kv, cat, &table.tree)?;
            if table.autoincrement {
                super::sequence::remove(kv, &table.name)?;
            }
            super::trigger::drop_all_on(kv, cat, name)?;
            kv.drop_tree(&table.tree)?;
            kv.remove(SCHEMA_TREE, k.as_bytes())?;
            cat.tables.remove(&k);
        }
        ast::DropKind::Index => {
            let Some(ix) = cat.indexes.get(&k).cloned() else {
                return if d.if_exists {
                    Ok(false)
                } else {
                    Err(sql_err!("no such index: {name}"))
                };
            };
            if ix.sql.is_none() {
                return Err(sql_err!(
                    "index associated with UNIQUE or PRIMARY KEY constraint cannot be dropped"
                ));
            }
            super::analyze::forget(kv, cat, &ix.tree)?;
            kv.drop_tree(&ix.tree)?;
            kv.remove(SCHEMA_TREE, k.as_bytes())?;
            cat.indexes.remove(&k);
        }
        ast::DropKind::View => {
            if cat.views.remove(&k).is_none() {
                return if d.if_exists {
                    Ok(false)
                } else {
                    Err(sql_err!("no such view: {name}"))
                };
            }
            super::trigger::drop_all_on(kv, cat, name)?;
            kv.remove(SCHEMA_TREE, k.as_bytes())?;
        }
        ast::DropKind::Trigger => return super::trigger::drop(kv, cat, d),
    }
    Ok(true)
}

/// The errors of an ALTER TABLE that its table's definition shows
/// (SQLite's messages); for DROP COLUMN, the dropped column's index.
fn refuse_alter(t: &Table, action: &ast::AlterAction) -> Result<Option<usize>> {
    match action {
        ast::AlterAction::RenameTable(_) => {}
        ast::AlterAction::RenameColumn { old, new } => {
            if t.column_index(old).is_none() {
                return Err(sql_err!("no such column: \"{old}\""));
            }
            if t.column_index(new).is_some() {
                return Err(sql_err!("duplicate column name: {new}"));
            }
        }
        ast::AlterAction::AddColumn(def) => {
            if t.column_index(&def.name).is_some() {
                return Err(sql_err!("duplicate column name: {}", def.name));
            }
            let has = |f: fn(&ast::ColumnConstraintKind) -> bool| {
                def.constraints.iter().any(|c| f(&c.kind))
            };
            if has(|k| matches!(k, ast::ColumnConstraintKind::PrimaryKey { .. })) {
                return Err(sql_err!("Cannot add a PRIMARY KEY column"));
            }
            if has(|k| matches!(k, ast::ColumnConstraintKind::Unique { .. })) {
                return Err(sql_err!("Cannot add a UNIQUE column"));
            }
        }
        ast::AlterAction::DropColumn(name) => {
            let i = t
                .column_index(name)
                .ok_or_else(|| sql_err!("no such column: \"{name}\""))?;
            if t.columns[i].primary_key || t.rowid_alias == Some(i) {
                return Err(sql_err!("cannot drop PRIMARY KEY column: \"{name}\""));
            }
            if t.columns.len() == 1 {
                return Err(sql_err!(
                    "cannot drop column \"{name}\": no other columns exist"
                ));
            }
            // The column's own CHECK and REFERENCES constraints go with it,
            // as in SQLite; a table constraint that reads it, or another
            // column's CHECK that does, refuses the drop.
            let others = t.columns.iter().enumerate().filter(|&(j, _)| j != i);
            if others.clone().all(|(_, c)| c.generated.is_some()) {
                return Err(sql_err!(
                    "error in table {} after drop column: must have at least one non-generated column",
                    t.name
                ));
            }
            let generated = others.filter_map(|(_, c)| {
                let g = c.generated.as_ref()?;
                Some(&g.expr)
            });
            let checks = t.checks.iter().filter(|(_, _, own)| *own != Some(i));
            if checks
                .map(|(_, e, _)| e)
                .chain(generated)
                .any(|e| mentions_column(e, name))
            {
                return Err(sql_err!(
                    "error in table {} after drop column: no such column: {name}",
                    t.name
                ));
            }
            if t.foreign_keys
                .iter()
                .any(|fk| fk.columns.contains(&i) && !fk.column_constraint)
            {
                return Err(sql_err!(
                    "cannot drop column \"{name}\": a foreign key uses it"
                ));
            }
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// The new column of ADD COLUMN, last in `t`: what SQLite refuses for a
/// table with rows, which would take a value it cannot give them.
fn refuse_added_column(t: &Table, foreign_keys: bool) -> Result<()> {
    let Some(col) = t.columns.last() else {
        return Ok(());
    };
    if let Some(g) = &col.generated {
        return match g.stored {
            true => Err(sql_err!("cannot add a STORED column")),
            false => Ok(()),
        };
    }
    let default = col
        .default
        .as_ref()
        .filter(|d| !matches!(d.kind, ast::ExprKind::Literal(ast::Literal::Null)));
    let references = t
        .foreign_keys
        .iter()
        .any(|fk| fk.columns == [t.columns.len() - 1]);
    if foreign_keys && references && default.is_some() {
        return Err(sql_err!(
            "Cannot add a REFERENCES column with non-NULL default value"
        ));
    }
    if col.not_null && default.is_none() {
        return Err(sql_err!(
            "Cannot add a NOT NULL column with default value NULL"
        ));
    }
    if default.is_some_and(|d| super::scan::constant_default(d).is_none()) {
        return Err(sql_err!("Cannot add a column with non-constant default"));
    }
    Ok(())
}

/// Whether `e` reads column `name` (a CHECK or an index reads only its
/// own table's columns).
fn mentions_column(e: &ast::Expr, name: &str) -> bool {
    let mut found = false;
    crate::sql::binder::expr::visit(e, &mut |x| {
        if let ast::ExprKind::Column(c) = &x.kind {
            found |= c.column.eq_ignore_ascii_case(name);
        }
    });
    found
}

/// Renames the references to column `old` of `table` in `e` (bare, or
/// qualified by the table's name) to `new`; true if there were any.
fn rename_column_refs(e: &mut ast::Expr, table: &str, old: &str, new: &str) -> bool {
    let mut renamed = false;
    crate::sql::binder::expr::visit_mut(e, &mut |x| {
        if let ast::ExprKind::Column(c) = &mut x.kind {
            let ours = c
                .table
                .as_ref()
                .is_none_or(|t| t.eq_ignore_ascii_case(table));
            if ours && c.column.eq_ignore_ascii_case(old) {
                c.column = new.to_string();
                renamed = true;
            }
        }
    });
    renamed
}

/// An index of table `renamed` after a RENAME of the table or of one of
/// its columns: made again from its CREATE INDEX with the table or column
/// renamed wherever the statement names it, its text rendered anew
/// (`table` is the renamed definition); `None` when the statement does not
/// change (or the index is a constraint's automatic one).
fn renamed_index(
    ix: &Index,
    table: &Table,
    renamed: &str,
    action: &ast::AlterAction,
) -> Result<Option<Index>> {
    let Some(sql) = &ix.sql else {
        return Ok(None);
    };
    let Some(ast::Statement::CreateIndex(mut ci)) = parser::parse(sql)?.into_iter().next() else {
        return Err(sql_err!(
            "internal: index {} is not a CREATE INDEX",
            ix.name
        ));
    };
    let exprs = ci.columns.iter_mut().map(|c| &mut c.expr);
    let exprs = exprs.chain(ci.where_clause.as_mut());
    // (`fold`, not `any`: every expression is renamed.)
    let changed = match action {
        ast::AlterAction::RenameTable(new) => {
            let qualified = exprs.fold(false, |c, e| rename_qualifier(e, renamed, new) | c);
            let on = ci.table.eq_ignore_ascii_case(renamed);
            if on {
                ci.table.clone_from(new);
            }
            qualified | on
        }
        ast::AlterAction::RenameColumn { old, new } => {
            exprs.fold(false, |c, e| rename_column_refs(e, renamed, old, new) | c)
        }
        _ => return Ok(None),
    };
    if !changed {
        return Ok(None);
    }
    let sql = ci.to_string();
    index_from_ast(table, &ci, sql, ix.tree.clone()).map(Some)
}

/// Renames the qualifier `old` of column references in `e` to `new` (a
/// table's CHECKs and its indexes' WHERE after RENAME TO); true if there
/// were any.
fn rename_qualifier(e: &mut ast::Expr, old: &str, new: &str) -> bool {
    let mut renamed = false;
    crate::sql::binder::expr::visit_mut(e, &mut |x| {
        if let ast::ExprKind::Column(c) = &mut x.kind {
            if let Some(t) = c.table.as_mut().filter(|t| t.eq_ignore_ascii_case(old)) {
                *t = new.to_string();
                renamed = true;
            }
        }
    });
    renamed
}

/// A table's stored definition as one CREATE TABLE: the ALTER statements
/// files written before TinyJoin rewrote the CREATE keep after it applied
/// to it ([`alter_definition`]).
fn folded_definition(sql: &str) -> Result<Box<ast::CreateTable>> {
    let mut statements = parser::parse(sql)?.into_iter();
    let Some(ast::Statement::CreateTable(mut ct)) = statements.next() else {
        return Err(sql_err!(
            "internal: a table definition is not a CREATE TABLE"
        ));
    };
    for s in statements {
        let ast::Statement::AlterTable(at) = s else {
            return Err(sql_err!(
                "internal: a table definition holds another statement"
            ));
        };
        alter_definition(&mut ct, &at.action);
    }
    Ok(ct)
}

/// Applies an ALTER TABLE to the table's CREATE TABLE, as SQLite rewrites
/// the stored text: a new column goes after the last one, a dropped one
/// goes with its own constraints, and a rename renames the table in its
/// own foreign keys or the column wherever the definition names it.
fn alter_definition(ct: &mut ast::CreateTable, action: &ast::AlterAction) {
    let table = ct.name.name.clone();
    match action {
        ast::AlterAction::RenameTable(new) => {
            let rename = ParentRename::Table(new);
            for_each_part(
                ct,
                &mut |e| {
                    rename_qualifier(e, &table, new);
                },
                &mut |c| rename.apply(&table, &mut c.table, &mut c.columns),
                &mut |_| {},
            );
            ct.name.name.clone_from(new);
        }
        ast::AlterAction::RenameColumn { old, new } => {
            let rename = ParentRename::Column { old, new };
            let mut name = |n: &mut String| {
                if n.eq_ignore_ascii_case(old) {
                    n.clone_from(new);
                }
            };
            for_each_part(
                ct,
                &mut |e| {
                    rename_column_refs(e, &table, old, new);
                },
                &mut |c| rename.apply(&table, &mut c.table, &mut c.columns),
                &mut name,
            );
        }
        ast::AlterAction::AddColumn(def) => {
            if let ast::CreateTableBody::Columns { columns, .. } = &mut ct.body {
                columns.push(def.clone());
            }
        }
        ast::AlterAction::DropColumn(name) => {
            if let ast::CreateTableBody::Columns { columns, .. } = &mut ct.body {
                columns.retain(|d| !d.name.eq_ignore_ascii_case(name));
            }
        }
    }
}

/// Calls `exprs` on each expression of a CREATE TABLE that reads the row
/// (the CHECKs, the generated columns' and the PRIMARY KEY / UNIQUE
/// columns), `keys` on each foreign key clause (the columns' REFERENCES
/// and the FOREIGN KEY constraints) and `names` on each column name it
/// declares or a FOREIGN KEY lists.
fn for_each_part(
    ct: &mut ast::CreateTable,
    exprs: &mut dyn FnMut(&mut ast::Expr),
    keys: &mut dyn FnMut(&mut ast::ForeignKeyClause),
    names: &mut dyn FnMut(&mut String),
) {
    let ast::CreateTableBody::Columns {
        columns,
        constraints,
        ..
    } = &mut ct.body
    else {
        return;
    };
    for d in columns.iter_mut() {
        names(&mut d.name);
        for c in &mut d.constraints {
            match &mut c.kind {
                ast::ColumnConstraintKind::Check(e)
                | ast::ColumnConstraintKind::Generated { expr: e, .. } => exprs(e),
                ast::ColumnConstraintKind::References(clause) => keys(clause),
                _ => {}
            }
        }
    }
    for c in constraints.iter_mut() {
        match &mut c.kind {
            ast::TableConstraintKind::PrimaryKey { columns, .. }
            | ast::TableConstraintKind::Unique { columns, .. } => {
                columns.iter_mut().for_each(|ic| exprs(&mut ic.expr))
            }
            ast::TableConstraintKind::Check(e) => exprs(e),
            ast::TableConstraintKind::ForeignKey { columns, clause } => {
                columns.iter_mut().for_each(&mut *names);
                keys(clause)
            }
        }
    }
}

/// A RENAME, as it changes a foreign key naming the renamed table.
enum ParentRename<'a> {
    Table(&'a str),
    Column { old: &'a str, new: &'a str },
}

impl ParentRename<'_> {
    /// Renames in one foreign key's parent table and columns, when the
    /// parent is `renamed` (the table's name before the rename).
    fn apply(&self, renamed: &str, parent: &mut String, columns: &mut [String]) {
        if !parent.eq_ignore_ascii_case(renamed) {
            return;
        }
        match *self {
            ParentRename::Table(new) => *parent = new.to_string(),
            ParentRename::Column { old, new } => {
                for c in columns.iter_mut().filter(|c| c.eq_ignore_ascii_case(old)) {
                    *c = new.to_string();
                }
            }
        }
    }
}

/// After a RENAME of table `renamed` or of one of its columns: the other
/// tables whose foreign keys name it follow, as SQLite rewrites them. Their
/// definitions are rendered anew ([`folded_definition`]).
fn rename_in_children(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    renamed: &str,
    rename: &ParentRename,
) -> Result<()> {
    let names = |fk: &crate::sql::catalog::ForeignKey| {
        let mut parent = fk.parent.clone();
        let mut columns = fk.parent_columns.clone();
        rename.apply(renamed, &mut parent, &mut columns);
        parent != fk.parent || columns != fk.parent_columns
    };
    let children: Vec<Rc<Table>> = cat
        .tables
        .values()
        .filter(|c| c.foreign_keys.iter().any(names))
        .cloned()
        .collect();
    for child in children {
        let mut ct = folded_definition(&child.sql)?;
        for_each_part(
            &mut ct,
            &mut |_| {},
            &mut |c| rename.apply(renamed, &mut c.table, &mut c.columns),
            &mut |_| {},
        );
        let mut t = (*child).clone();
        t.sql = ct.to_string();
        for fk in &mut t.foreign_keys {
            rename.apply(renamed, &mut fk.parent, &mut fk.parent_columns);
        }
        save_object(kv, "table", &t.name, &t.name, &t.tree, Some(&t.sql))?;
        cat.tables.insert(key(&t.name), Rc::new(t));
    }
    Ok(())
}

/// An index of a table whose column `dropped` was dropped (the index does
/// not use it): the columns after it move one place down.
fn shift_index_columns(ix: &mut Index, dropped: usize) {
    for c in ix.columns.iter_mut().filter_map(|c| c.column.as_mut()) {
        after_drop(c, dropped);
    }
}

/// Column index `c` once column `dropped` (not `c`) is gone.
fn after_drop(c: &mut usize, dropped: usize) {
    *c -= usize::from(*c > dropped);
}

/// Whether table tree `tree` holds a row.
fn has_rows(kv: &dyn Kv, tree: &str) -> Result<bool> {
    let first = kv.scan(tree, Bound::Unbounded, Bound::Unbounded, false, Some(1))?;
    Ok(!first.is_empty())
}

/// Removes value `i` from every row of table tree `tree` (rows written
/// before a later ADD COLUMN may be shorter), a batch of rows at a time.
fn drop_column_values(kv: &mut dyn Kv, tree: &str, i: usize) -> Result<()> {
    let mut from = Bound::Unbounded;
    loop {
        let batch = kv.scan(tree, from, Bound::Unbounded, false, Some(256))?;
        let Some((last, _)) = batch.last() else {
            return Ok(());
        };
        from = Bound::Excluded(last.clone());
        for (k, v) in batch {
            let mut values = crate::sql::record::decode(&v)?;
            if values.len() > i {
                values.remove(i);
                kv.insert_vec(tree, &k, crate::sql::record::encode(&values))?;
            }
        }
    }
}

/// After ADD COLUMN to a table with rows: each row, the new column's
/// value in it (a generated column's computed, and stored, a batch of
/// rows at a time), must keep the table's NOT NULL, type and CHECK
/// constraints (SQLite checks them when the table has CHECKs, is STRICT,
/// or the column is generated).
fn check_added_column(kv: &mut dyn Kv, cat: &Catalog, name: &str) -> Result<()> {
    let table = cat.table_or_err(name)?.clone();
    let generated = table.columns.last().is_some_and(|c| c.generated.is_some());
    if !generated && table.checks.is_empty() && !table.options.strict {
        return Ok(());
    }
    let writer = super::write::TableWriter::new(cat, &table)?;
    let n = table.columns.len();
    let mut from = Bound::Unbounded;
    loop {
        let batch = kv.scan(&table.tree, from, Bound::Unbounded, false, Some(256))?;
        let Some((last, _)) = batch.last() else {
            return Ok(());
        };
        from = Bound::Excluded(last.clone());
        for (k, v) in batch {
            let mut row = super::scan::table_row(&table, &k, &v)?;
            {
                let ctx = ExecCtx::new(&*kv, &[], u64::MAX);
                writer.compute_generated(&ctx, &mut row)?;
                writer.check_row(&ctx, &row).map_err(|e| match e {
                    Error::Constraint {
                        kind: crate::error::ConstraintKind::Datatype,
                        ..
                    } => sql_err!("type mismatch on DEFAULT"),
                    e => e,
                })?;
            }
            if generated {
                let value = crate::sql::record::encode_masked(&row[..n], table.rowid_alias);
                kv.insert_vec(&table.tree, &k, value)?;
            }
        }
    }
}

/// DROP COLUMN's checks that need the catalog: SQLite refuses a column
/// an index uses (a UNIQUE constraint's, or a CREATE INDEX's key or
/// WHERE), or another table's foreign key names as its parent key.
fn refuse_drop_in_use(cat: &Catalog, table: &Table, column: &str) -> Result<()> {
    let Some(i) = table
        .column_index(column)
        .filter(|&i| !table.columns[i].primary_key)
    else {
        // "no such column" or "cannot drop PRIMARY KEY column", from
        // refuse_alter.
        return Ok(());
    };
    for ix in cat.table_indexes(&table.name) {
        let uses = ix.columns.iter().any(|c| {
            c.column == Some(i) || (c.column.is_none() && mentions_column(&c.expr, column))
        }) || ix
            .predicate
            .as_ref()
            .is_some_and(|p| mentions_column(p, column));
        if uses && ix.sql.is_none() {
            return Err(sql_err!("cannot drop UNIQUE column: \"{column}\""));
        }
        if uses {
            return Err(sql_err!(
                "error in index {} after drop column: no such column: {column}",
                ix.name
            ));
        }
    }
    let parent_key = cat.tables.values().any(|other| {
        other.foreign_keys.iter().any(|fk| {
            fk.parent.eq_ignore_ascii_case(&table.name)
                && fk
                    .parent_columns
                    .iter()
                    .any(|p| p.eq_ignore_ascii_case(column))
        })
    });
    if parent_key {
        return Err(sql_err!(
            "cannot drop column \"{column}\": a foreign key refers to it"
        ));
    }
    Ok(())
}

/// ALTER TABLE.
pub(crate) fn alter_table(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    at: &ast::AlterTable,
    foreign_keys: bool,
) -> Result<()> {
    let name = &at.table.name;
    let old = cat.table_or_err(name)?.clone();
    if let ast::AlterAction::DropColumn(c) = &at.action {
        refuse_drop_in_use(cat, &old, c)?;
    }
    let dropped = refuse_alter(&old, &at.action)?;
    if let ast::AlterAction::RenameTable(new) = &at.action {
        if cat.name_taken(new) {
            return Err(sql_err!(
                "there is already another table or index with this name: {new}"
            ));
        }
    }
    // The new definition is the stored CREATE TABLE as SQLite rewrites it,
    // and the table is what it defines (its automatic indexes are the
    // ones it has: an ALTER adds or drops none). `merge` does not change
    // the table, only those indexes.
    let mut ct = folded_definition(&old.sql)?;
    alter_definition(&mut ct, &at.action);
    let (t, _) = table_from_definition(
        &mut Catalog::default(),
        &ct,
        old.options,
        &ct.name.name,
        ct.to_string(),
        old.tree.clone(),
        false,
    )
    .map_err(|e| match e {
        Error::Sql { message, .. } if old.options.strict && message.contains("datatype") => {
            sql_err!("error in table {} after add column: {message}", old.name)
        }
        e => e,
    })?;
    let adds = matches!(&at.action, ast::AlterAction::AddColumn(_));
    if let ast::AlterAction::AddColumn(def) = &at.action {
        if has_rows(kv, &t.tree)? {
            refuse_added_column(&t, foreign_keys)?;
        }
        // Refused here, not while a stored schema is read back.
        let subquery = def.constraints.iter().any(|c| match &c.kind {
            ast::ColumnConstraintKind::Check(e) => contains_subquery(e),
            _ => false,
        });
        if subquery {
            return Err(sql_err!(
                "error in table {} after add column: subqueries prohibited in CHECK constraints",
                old.name
            ));
        }
        if def
            .constraints
            .iter()
            .any(|c| matches!(c.kind, ast::ColumnConstraintKind::Generated { .. }))
        {
            check_generated(cat, &t)?;
        }
    }
    if let Some(i) = dropped {
        drop_column_values(kv, &t.tree, i)?;
    }
    kv.remove(SCHEMA_TREE, key(name).as_bytes())?;
    save_object(kv, "table", &t.name, &t.name, &t.tree, Some(&t.sql))?;
    cat.tables.remove(&key(name));
    let new_key = key(&t.name);
    for ix in cat.table_indexes(name) {
        let mut ix2 = (*ix).clone();
        if let Some(renamed) = renamed_index(&ix2, &t, &old.name, &at.action)? {
            ix2 = renamed;
        }
        ix2.table = new_key.clone();
        if let Some(i) = dropped {
            shift_index_columns(&mut ix2, i);
        }
        if ix2.sql.is_none() {
            // Automatic indexes are named after their table (and found
            // by that name when the table is loaded).
            let seq = ix2.name.rsplit('_').next().unwrap_or("1").to_string();
            kv.remove(SCHEMA_TREE, key(&ix2.name).as_bytes())?;
            cat.indexes.remove(&key(&ix2.name));
            ix2.name = format!("sqlite_autoindex_{}_{seq}", t.name);
        }
        save_object(
            kv,
            "index",
            &ix2.name,
            &t.name,
            &ix2.tree,
            ix2.sql.as_deref(),
        )?;
        cat.indexes.insert(key(&ix2.name), Rc::new(ix2));
    }
    cat.tables.insert(new_key.clone(), Rc::new(t));
    if adds {
        check_added_column(kv, cat, &new_key)?;
    }
    match &at.action {
        ast::AlterAction::RenameTable(new) => {
            if old.autoincrement {
                super::sequence::rename(kv, &old.name, new)?;
            }
            super::trigger::rename_table(kv, cat, &old.name, new)?;
            rename_in_children(kv, cat, &old.name, &ParentRename::Table(new))?
        }
        ast::AlterAction::RenameColumn { old: o, new: n } => {
            let rename = ParentRename::Column { old: o, new: n };
            rename_in_children(kv, cat, &old.name, &rename)?
        }
        _ => {}
    }
    // Views keep their text: after a rename or a dropped column, one that
    // no longer binds makes the ALTER fail (the statement is rolled back);
    // SQLite rewrites such views instead. As in SQLite, ADD COLUMN checks
    // no view (a view already broken does not stop it).
    if matches!(&at.action, ast::AlterAction::AddColumn(_)) {
        return Ok(());
    }
    let views: Vec<Rc<View>> = cat.views.values().cloned().collect();
    for v in views {
        if let Err(e) = crate::sql::binder::Binder::new(cat).bind_query_in(&v.select, None) {
            return Err(sql_err!("error in view {}: {e}", v.name));
        }
    }
    super::trigger::check_all(kv, cat)
}

/// A name as SQLite writes it into a statement it makes: bare when it is
/// letters, digits and underscores, not starting with a digit and not a
/// keyword; else in double quotes.
fn ident_sql(name: &str) -> String {
    let plain = !name.is_empty()
        && !name.as_bytes()[0].is_ascii_digit()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && crate::sql::lexer::Keyword::lookup(name.as_bytes()).is_none();
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Rec<'a> = (&'a str, &'a str, &'a str, &'a str, Option<&'a str>);

    /// A catalog loaded from schema entries `(type, name, table, tree, sql)`.
    fn load(records: &[Rec]) -> Result<Catalog> {
        let records: Vec<_> = records
            .iter()
            .map(|(k, n, t, tr, sql)| {
                let s = |x: &str| x.to_string();
                (s(k), s(n), s(t), s(tr), sql.map(s))
            })
            .collect();
        let mut cat = Catalog::default();
        for pass in ["table", "index"] {
            for r in records.iter().filter(|r| r.0 == pass) {
                let entry = StoredObject {
                    kind: &r.0,
                    name: &r.1,
                    table: &r.2,
                    tree: &r.3,
                    sql: r.4.as_deref(),
                };
                load_object(&mut cat, &entry, &records)?;
            }
        }
        Ok(cat)
    }

    /// The tree of the index on column `c` alone.
    fn tree_of(cat: &Catalog, c: usize) -> Option<String> {
        let ix = cat
            .indexes
            .values()
            .find(|ix| ix.columns[0].column == Some(c));
        ix.map(|ix| ix.tree.clone())
    }

    /// Identical UNIQUE constraints now share one automatic index; a table
    /// made before has one per constraint, numbered in order, and must
    /// still find each index's own tree (merging on load would give the
    /// index on `c` the second index on `a`'s tree) and open although its
    /// two conflict clauses differ.
    #[test]
    fn tables_made_before_identical_constraints_merged_keep_their_indexes() {
        let sql = "CREATE TABLE t(a UNIQUE ON CONFLICT IGNORE, b UNIQUE, c, \
                   UNIQUE(a) ON CONFLICT REPLACE, UNIQUE(c))";
        let before = load(&[
            ("table", "t", "t", "t1", Some(sql)),
            ("index", "sqlite_autoindex_t_1", "t", "i2", None),
            ("index", "sqlite_autoindex_t_2", "t", "i3", None),
            ("index", "sqlite_autoindex_t_3", "t", "i4", None),
            ("index", "sqlite_autoindex_t_4", "t", "i5", None),
        ])
        .unwrap();
        assert_eq!(before.indexes.len(), 4);
        assert_eq!(tree_of(&before, 2).as_deref(), Some("i5"));
        let sql = "CREATE TABLE t(a UNIQUE, b UNIQUE, c, UNIQUE(a) ON CONFLICT REPLACE, UNIQUE(c))";
        let since = load(&[
            ("table", "t", "t", "t1", Some(sql)),
            ("index", "sqlite_autoindex_t_1", "t", "i2", None),
            ("index", "sqlite_autoindex_t_2", "t", "i3", None),
            ("index", "sqlite_autoindex_t_3", "t", "i4", None),
        ])
        .unwrap();
        assert_eq!(since.indexes.len(), 3);
        assert_eq!(tree_of(&since, 2).as_deref(), Some("i4"));
        let a = since
            .indexes
            .values()
            .find(|ix| ix.columns[0].column == Some(0));
        assert_eq!(
            a.and_then(|ix| ix.on_conflict),
            Some(ast::ConflictResolution::Replace)
        );
    }

    /// Files written before ALTER TABLE rewrote the CREATE TABLE keep the
    /// ALTER statements after it: they still load, to the same table the
    /// folded CREATE TABLE (what an ALTER now stores) defines.
    #[test]
    fn stored_alter_chains_load_as_their_folded_definition() {
        let chain = "CREATE TABLE p(a PRIMARY KEY, s REFERENCES p(a), w, CHECK (a > 0));\n\
                     ALTER TABLE p ADD COLUMN t REFERENCES p(a);\n\
                     ALTER TABLE p RENAME TO p2;\n\
                     ALTER TABLE p2 RENAME COLUMN a TO b;\n\
                     ALTER TABLE p2 DROP COLUMN w";
        let folded = folded_definition(chain).unwrap().to_string();
        assert_eq!(
            folded,
            "CREATE TABLE p2 (b PRIMARY KEY, s REFERENCES p2(b), t REFERENCES p2(b), CHECK (b > 0))"
        );
        let auto = ("index", "sqlite_autoindex_p2_1", "p2", "i2", None);
        let old = load(&[("table", "p2", "p2", "t1", Some(chain)), auto]).unwrap();
        let new = load(&[("table", "p2", "p2", "t1", Some(&folded)), auto]).unwrap();
        let shape = |cat: &Catalog| {
            let t = cat.table("p2").unwrap();
            let names: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
            let keys: Vec<(String, Vec<String>, Vec<usize>)> = t
                .foreign_keys
                .iter()
                .map(|fk| {
                    (
                        fk.parent.clone(),
                        fk.parent_columns.clone(),
                        fk.columns.clone(),
                    )
                })
                .collect();
            let checks: Vec<String> = t.checks.iter().map(|(_, e, _)| e.to_string()).collect();
            format!("{names:?} {keys:?} {checks:?} {:?}", cat.indexes.keys())
        };
        assert_eq!(shape(&old), shape(&new));
        assert!(shape(&new).contains("\"p2\", [\"b\"]"), "{}", shape(&new));
    }
}
