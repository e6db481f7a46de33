//! The PRAGMAs that read or write the schema, as SQLite's: `user_version`
//! (read, and written with the transaction like DDL), `table_info`,
//! `table_xinfo`, `index_list`, `index_info`, `index_xinfo`, `foreign_key_list`
//! and `foreign_key_check` (which reads the rows). The connection's own
//! (`foreign_keys`, `integrity_check`, `quick_check`) are in `db.rs`.
//! Each is also the table-valued function `pragma_<name>` of FROM
//! ([`ExecCtx::pragma_function_rows`]), read from the catalog its
//! statement was planned against.
//!
//! An unknown table or index gives no rows, as in SQLite. Differences:
//! `dflt_value` is the DEFAULT as the engine writes it back (`1 + 2` where
//! SQLite keeps the text as typed, `1+2`), and a type's numbers are written
//! `(10, 2)`.

use std::rc::Rc;

use super::eval::Env;
use super::kv::Kv;
use super::scan::Row;
use super::statement::Output;
use super::ExecCtx;
use crate::sql::ast::{self, ForeignKeyAction, Literal, Pragma, PragmaValue};
use crate::sql::binder::Binder;
use crate::sql::catalog::{key, Catalog, Index, IndexOrigin, StrictType, Table};
use crate::sql::planner::plan::Expr;
use crate::sql::value::{Collation, Value};
use crate::{sql_err, Result};

/// Whether the pragma is one of this module's.
pub(crate) fn is_schema_pragma(p: &Pragma) -> bool {
    let name = &p.name.name;
    name.eq_ignore_ascii_case("foreign_key_check") || function(name).is_some()
}

/// Whether running the pragma changes the database.
pub(crate) fn writes(p: &Pragma) -> bool {
    p.name.name.eq_ignore_ascii_case("user_version") && p.value.is_some()
}

/// Runs a schema pragma.
#[inline(never)]
pub(crate) fn run(kv: &mut dyn Kv, cat: &mut Catalog, p: &Pragma) -> Result<Output> {
    if let Some(schema) = &p.name.schema {
        if !schema.eq_ignore_ascii_case("main") {
            return Err(sql_err!("unknown database {schema}"));
        }
    }
    let name = p.name.name.to_ascii_lowercase();
    let arg = p.value.as_ref().map(argument_text);
    let (columns, rows): (&[&str], Vec<Row>) = match (name.as_str(), arg) {
        ("user_version", Some(v)) => {
            cat.user_version = user_version(&v);
            super::ddl::save_meta(kv, cat)?;
            return Ok(Output {
                schema_changed: true,
                ..Output::default()
            });
        }
        ("foreign_key_check", t) => (FOREIGN_KEY_CHECK, foreign_key_check(kv, cat, t)?),
        (name, arg) => match function(name) {
            // `PRAGMA table_info` without a table gives nothing, not even
            // columns, as in SQLite.
            Some(_) if arg.is_none() && takes_argument(name) => return Ok(Output::default()),
            Some((name, columns)) => (columns, read_rows(cat, name, arg.as_deref())?),
            None => return Err(sql_err!("unsupported pragma: {}", p.name.name)),
        },
    };
    Ok(Output {
        columns: columns
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .into(),
        rows,
        ..Output::default()
    })
}

/// The PRAGMAs that only read the schema ([`read_rows`]), each also the
/// table-valued function `pragma_<name>`: (name, columns, takes an
/// argument).
const FUNCTIONS: [(&str, &[&str], bool); 7] = [
    ("table_info", TABLE_INFO, true),
    ("table_xinfo", TABLE_XINFO, true),
    ("index_list", INDEX_LIST, true),
    ("index_info", INDEX_INFO, true),
    ("index_xinfo", INDEX_XINFO, true),
    ("foreign_key_list", FOREIGN_KEY_LIST, true),
    ("user_version", &["user_version"], false),
];

/// For `pragma_<name>` (`name` in any case): the PRAGMA's name and its
/// columns (without the hidden `arg` and `schema`).
pub(crate) fn function(name: &str) -> Option<(&'static str, &'static [&'static str])> {
    FUNCTIONS
        .iter()
        .find(|(n, ..)| n.eq_ignore_ascii_case(name))
        .map(|&(n, columns, _)| (n, columns))
}

/// For a FROM name `pragma_<name>` (the prefix in any case): what
/// [`function`] gives for `<name>`.
pub(crate) fn table_function(from_name: &str) -> Option<(&'static str, &'static [&'static str])> {
    let prefixed = from_name
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case("pragma_"));
    function(from_name.get(7..).filter(|_| prefixed)?)
}

/// Whether `pragma_<name>` takes an argument (and so has the hidden
/// columns `arg` and `schema`).
pub(crate) fn takes_argument(name: &str) -> bool {
    FUNCTIONS.iter().any(|&(n, _, arg)| arg && n == name)
}

impl ExecCtx<'_> {
    /// The rows of `pragma_<name>(args)` on `cat`, the arguments evaluated
    /// against `env`: each the PRAGMA's columns, then the hidden `arg` and
    /// `schema` (the arguments as given) for one taking an argument, then
    /// the rowid (from 1); charged to the statement. As in SQLite, no
    /// argument, a NULL one or one naming nothing gives no rows, and so
    /// does the schema `temp`; another schema than `main` is an error.
    pub(crate) fn pragma_function_rows(
        &self,
        name: &str,
        cat: &Catalog,
        args: &[Expr],
        env: &Env,
    ) -> Result<Vec<Row>> {
        let values = args
            .iter()
            .map(|a| self.eval(a, env))
            .collect::<Result<Vec<_>>>()?;
        // The arguments as text (SQLite's `sqlite3_value_text`), as the
        // hidden columns show them too.
        let texts: Vec<Option<String>> = values.iter().map(Value::to_text).collect();
        let hidden_value = |i: usize| {
            texts
                .get(i)
                .cloned()
                .flatten()
                .map_or(Value::Null, Value::Text)
        };
        let schema_text = texts.get(1).cloned().flatten();
        if let Some(s) = &schema_text {
            if !["main", "temp"].iter().any(|m| m.eq_ignore_ascii_case(s)) {
                return Err(sql_err!("unknown database '{s}'"));
            }
        }
        let arg = texts.first().cloned().flatten();
        let temp = schema_text.is_some_and(|s| s.eq_ignore_ascii_case("temp"));
        let found = match temp {
            true if takes_argument(name) => Vec::new(),
            _ => read_rows(cat, name, arg.as_deref())?,
        };
        let hidden = takes_argument(name);
        let mut rows = Vec::with_capacity(found.len());
        for (n, mut row) in found.into_iter().enumerate() {
            if hidden {
                row.extend([hidden_value(0), hidden_value(1)]);
            }
            row.push(Value::Integer(n as i64 + 1));
            self.charge(super::row_size(&row))?;
            rows.push(row);
        }
        Ok(rows)
    }
}

/// The rows of the schema-reading PRAGMA `name` (one of [`FUNCTIONS`],
/// in lower case) with its argument: none without one, for a PRAGMA
/// that takes one.
fn read_rows(cat: &Catalog, name: &str, arg: Option<&str>) -> Result<Vec<Row>> {
    Ok(match (name, arg) {
        ("user_version", _) => vec![vec![Value::Integer(cat.user_version)]],
        (_, None) => Vec::new(),
        ("table_info", Some(t)) => table_info(cat, t, false)?,
        ("table_xinfo", Some(t)) => table_info(cat, t, true)?,
        ("index_list", Some(t)) => index_list(cat, t),
        ("index_info", Some(i)) => index_info(cat, i, false),
        ("index_xinfo", Some(i)) => index_info(cat, i, true),
        ("foreign_key_list", Some(t)) => foreign_key_list(cat, t),
        _ => return Err(sql_err!("unsupported pragma: {name}")),
    })
}

const TABLE_INFO: &[&str] = &["cid", "name", "type", "notnull", "dflt_value", "pk"];
const TABLE_XINFO: &[&str] = &[
    "cid",
    "name",
    "type",
    "notnull",
    "dflt_value",
    "pk",
    "hidden",
];
const FOREIGN_KEY_CHECK: &[&str] = &["table", "rowid", "parent", "fkid"];
const INDEX_LIST: &[&str] = &["seq", "name", "unique", "origin", "partial"];
const INDEX_INFO: &[&str] = &["seqno", "cid", "name"];
const INDEX_XINFO: &[&str] = &["seqno", "cid", "name", "desc", "coll", "key"];
const FOREIGN_KEY_LIST: &[&str] = &[
    "id",
    "seq",
    "table",
    "from",
    "to",
    "on_update",
    "on_delete",
    "match",
];

/// The argument as a name or text (`table_info(t)`, `table_info('t')`).
fn argument_text(v: &PragmaValue) -> String {
    match v {
        PragmaValue::Name(n) => n.clone(),
        PragmaValue::Literal(Literal::Text(s)) => s.clone(),
        PragmaValue::Literal(l) => l.to_string(),
    }
}

/// `PRAGMA user_version = v`: SQLite's `sqlite3Atoi` of `v`'s text: an
/// optional sign and the digits after it, up to the first other
/// character; 0 when there are none or they pass a 32-bit integer.
fn user_version(text: &str) -> i64 {
    let (neg, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let digits = &rest[..end];
    let n: i64 = match digits.len() {
        1..=10 => digits.parse().unwrap_or(0),
        _ => 0,
    };
    let n = if neg { -n } else { n };
    if i32::try_from(n).is_ok() {
        n
    } else {
        0
    }
}

fn int(b: bool) -> Value {
    Value::Integer(i64::from(b))
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

/// The PRIMARY KEY's columns in key order (the rowid alias alone for an
/// INTEGER PRIMARY KEY).
fn primary_key(cat: &Catalog, t: &Table) -> Vec<usize> {
    if let Some(a) = t.rowid_alias {
        return vec![a];
    }
    cat.table_indexes(&t.name)
        .iter()
        .find(|ix| ix.origin == IndexOrigin::PrimaryKey)
        .map(|ix| ix.columns.iter().filter_map(|c| c.column).collect())
        .unwrap_or_default()
}

fn table_info(cat: &Catalog, name: &str, hidden: bool) -> Result<Vec<Row>> {
    let Some(t) = cat.table(name) else {
        return view_info(cat, name, hidden);
    };
    let pk = primary_key(cat, t);
    // Generated columns are hidden: left out of table_info, which numbers
    // the others from 0 without them, and shown by table_xinfo (hidden 2
    // for VIRTUAL, 3 for STORED).
    Ok(t.columns
        .iter()
        .enumerate()
        .filter(|(_, c)| hidden || c.generated.is_none())
        .enumerate()
        .map(|(cid, (i, c))| {
            let mut row = vec![
                Value::Integer(cid as i64),
                text(&c.name),
                text(shown_type(&c.type_text)),
                int(c.not_null),
                c.default
                    .as_ref()
                    .map_or(Value::Null, |d| text(&default_text(d))),
                Value::Integer(pk.iter().position(|&p| p == i).map_or(0, |k| k as i64 + 1)),
            ];
            if hidden {
                let kind = c.generated.as_ref().map_or(0, |g| 2 + i64::from(g.stored));
                row.push(Value::Integer(kind));
            }
            row
        })
        .collect())
}

/// A declared type as `table_info` shows it: one of the types a STRICT
/// table may declare in upper case (SQLite 3.37's rule, for every table),
/// any other as written.
fn shown_type(declared: &str) -> &str {
    StrictType::parse(declared).map_or(declared, |t| t.name())
}

/// A DEFAULT as written back; a blob literal `x'..'` as usually typed.
fn default_text(d: &ast::Expr) -> String {
    match &d.kind {
        ast::ExprKind::Literal(Literal::Blob(b)) => {
            let hex: String = b.iter().map(|x| format!("{x:02X}")).collect();
            format!("x'{hex}'")
        }
        _ => d.to_string(),
    }
}

/// A view's columns (their declared types where a column of a table gives
/// one); none for a name that is no view either.
fn view_info(cat: &Catalog, name: &str, hidden: bool) -> Result<Vec<Row>> {
    let Some(v) = cat.views.get(&key(name)) else {
        return Ok(Vec::new());
    };
    let (q, _, _) = Binder::new(cat).bind_query_in(&v.select, None)?;
    // The view's column list, else its SELECT's names.
    let names: Vec<String> = match v.columns.is_empty() {
        true => q.columns.to_vec(),
        false => v.columns.clone(),
    };
    Ok(names
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut row = vec![
                Value::Integer(i as i64),
                text(c),
                text(shown_type(q.decl_types.get(i).map_or("", String::as_str))),
                int(false),
                Value::Null,
                Value::Integer(0),
            ];
            if hidden {
                row.push(Value::Integer(0));
            }
            row
        })
        .collect())
}

fn index_list(cat: &Catalog, table: &str) -> Vec<Row> {
    if cat.table(table).is_none() {
        return Vec::new();
    }
    let mut indexes: Vec<Rc<Index>> = cat.table_indexes(table);
    // Newest first, as SQLite lists them.
    indexes.sort_by_key(|ix| std::cmp::Reverse(ix.created()));
    indexes
        .iter()
        .enumerate()
        .map(|(seq, ix)| {
            let origin = match ix.origin {
                IndexOrigin::Created => "c",
                IndexOrigin::Unique => "u",
                IndexOrigin::PrimaryKey => "pk",
            };
            vec![
                Value::Integer(seq as i64),
                text(&ix.name),
                int(ix.unique),
                text(origin),
                int(ix.predicate.is_some()),
            ]
        })
        .collect()
}

fn index_info(cat: &Catalog, name: &str, extended: bool) -> Vec<Row> {
    let Some(ix) = cat.indexes.get(&key(name)) else {
        return Vec::new();
    };
    let Some(t) = cat.table(&ix.table) else {
        return Vec::new();
    };
    let mut rows: Vec<Row> = ix
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (cid, name) = match c.column {
                Some(col) => (col as i64, text(&t.columns[col].name)),
                None => (-2, Value::Null),
            };
            let mut row = vec![Value::Integer(i as i64), Value::Integer(cid), name];
            if extended {
                row.extend([int(c.desc), text(collation_name(c.collation)), int(true)]);
            }
            row
        })
        .collect();
    if extended && t.rowid_visible() {
        // The rowid, the last field of every entry.
        rows.push(vec![
            Value::Integer(ix.columns.len() as i64),
            Value::Integer(-1),
            Value::Null,
            int(false),
            text("BINARY"),
            int(false),
        ]);
    }
    rows
}

fn collation_name(c: Collation) -> &'static str {
    match c {
        Collation::Binary => "BINARY",
        Collation::NoCase => "NOCASE",
        Collation::RTrim => "RTRIM",
    }
}

fn action(a: ForeignKeyAction) -> Value {
    text(match a {
        ForeignKeyAction::SetNull => "SET NULL",
        ForeignKeyAction::SetDefault => "SET DEFAULT",
        ForeignKeyAction::Cascade => "CASCADE",
        ForeignKeyAction::Restrict => "RESTRICT",
        ForeignKeyAction::NoAction => "NO ACTION",
    })
}

/// `foreign_key_check [(table)]`: each row of the table (of every table,
/// by name, without one) whose foreign key finds no parent row, as
/// `(table, rowid, parent, fkid)`: rows in rowid order, each row's keys
/// in `foreign_key_list`'s order (`fkid` its `id`). A key with a NULL
/// needs no parent; a missing parent table has none. Such rows exist
/// only if they were written while `PRAGMA foreign_keys` was OFF.
fn foreign_key_check(kv: &mut dyn Kv, cat: &Catalog, table: Option<String>) -> Result<Vec<Row>> {
    let tables: Vec<Rc<Table>> = match &table {
        Some(t) => vec![cat
            .table(t)
            .ok_or_else(|| sql_err!("no such table: {t}"))?
            .clone()],
        None => cat.tables.values().cloned().collect(),
    };
    let mut out = Vec::new();
    for t in tables.iter().filter(|t| !t.foreign_keys.is_empty()) {
        let mut from = std::ops::Bound::Unbounded;
        loop {
            let batch = kv.scan(&t.tree, from, std::ops::Bound::Unbounded, false, Some(256))?;
            let Some((last, _)) = batch.last() else {
                break;
            };
            from = std::ops::Bound::Excluded(last.clone());
            for (k, v) in batch {
                let row = super::scan::table_row(t, &k, &v)?;
                for (id, fk) in t.foreign_keys.iter().rev().enumerate() {
                    let orphan = if cat.table(&fk.parent).is_none() {
                        fk.columns.iter().all(|&c| !row[c].is_null())
                    } else {
                        match super::fk::check_child_key(kv, cat, t, fk, &row, &[], u64::MAX) {
                            Ok(()) => false,
                            Err(crate::Error::Constraint { .. }) => true,
                            Err(e) => return Err(e),
                        }
                    };
                    if orphan {
                        let rowid = match t.rowid_visible() {
                            true => row[t.columns.len()].clone(),
                            false => Value::Null,
                        };
                        out.push(vec![
                            text(&t.name),
                            rowid,
                            text(&fk.parent),
                            Value::Integer(id as i64),
                        ]);
                    }
                }
            }
        }
    }
    Ok(out)
}

fn foreign_key_list(cat: &Catalog, table: &str) -> Vec<Row> {
    let Some(t) = cat.table(table) else {
        return Vec::new();
    };
    // Numbered from the last defined, as SQLite keeps them.
    let mut rows = Vec::new();
    for (id, fk) in t.foreign_keys.iter().rev().enumerate() {
        for (seq, &c) in fk.columns.iter().enumerate() {
            rows.push(vec![
                Value::Integer(id as i64),
                Value::Integer(seq as i64),
                text(&fk.parent),
                text(&t.columns[c].name),
                fk.parent_columns.get(seq).map_or(Value::Null, |p| text(p)),
                action(fk.on_update),
                action(fk.on_delete),
                text("NONE"),
            ]);
        }
    }
    rows
}
