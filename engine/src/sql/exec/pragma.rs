//! The PRAGMAs that read or write the schema, as SQLite's: `user_version`
//! (read, and written with the transaction like DDL), `table_info`,
//! `table_xinfo`, `index_list`, `index_info`, `index_xinfo`, `foreign_key_list`,
//! `table_list`, `foreign_key_check` (which reads the rows) and `optimize`
//! (which analyzes tables, `exec::analyze::optimize`); and the database's
//! fixed settings `database_list`, `encoding` (UTF-8) and `page_size` (4096),
//! which accept being set only to what they are. The connection's own
//! (`foreign_keys`, `synchronous`, `integrity_check`, ...) are in `db.rs`.
//! Each reading one is also the table-valued function `pragma_<name>` of
//! FROM ([`ExecCtx::pragma_function_rows`]), read from the catalog its
//! statement was planned against, with SQLite's hidden columns.
//!
//! An unknown table or index gives no rows, as in SQLite. Differences:
//! `dflt_value` is the DEFAULT as the engine writes it back (`1 + 2` where
//! SQLite keeps the text as typed, `1+2`), and a type's numbers are written
//! `(10, 2)`; `table_list` gives its rows in name order (SQLite's follow its
//! hash table) and lists neither `sqlite_sequence` nor `sqlite_stat1`
//! (TinyJoin's `sqlite_schema` does not either); `database_list` never
//! lists `temp` and gives `main` no file name.

use std::rc::Rc;

use super::eval::Env;
use super::kv::Kv;
use super::scan::Row;
use super::statement::Output;
use super::ExecCtx;
use crate::sql::ast::{self, ForeignKeyAction, Literal, Pragma, PragmaValue};
use crate::sql::binder::Binder;
use crate::sql::catalog::{
    key, Catalog, Index, IndexOrigin, StrictType, Table, TableOptions, View,
};
use crate::sql::planner::plan::Expr;
use crate::sql::value::{Collation, Value};
use crate::storage::format::PAGE_SIZE;
use crate::{sql_err, Result};

/// Whether the pragma is one of this module's.
pub(crate) fn is_schema_pragma(p: &Pragma) -> bool {
    let name = &p.name.name;
    ["foreign_key_check", "optimize"]
        .iter()
        .any(|n| n.eq_ignore_ascii_case(name))
        || function(name).is_some()
}

/// Whether running the pragma changes the database (`optimize` may
/// analyze tables).
pub(crate) fn writes(p: &Pragma) -> bool {
    let name = &p.name.name;
    (name.eq_ignore_ascii_case("user_version") && p.value.is_some())
        || name.eq_ignore_ascii_case("optimize")
}

/// Runs a schema pragma.
#[inline(never)]
pub(crate) fn run(kv: &mut dyn Kv, cat: &mut Catalog, p: &Pragma) -> Result<Output> {
    let name = p.name.name.to_ascii_lowercase();
    let schema = p.name.schema.as_deref();
    if let Some(s) = schema {
        // `temp` holds no objects in TinyJoin: only the PRAGMAs that do
        // not read objects take it (`table_list` lists its schema table,
        // `optimize` has nothing to do there).
        let temp_ok = matches!(
            name.as_str(),
            "table_list" | "optimize" | "database_list" | "encoding" | "page_size"
        );
        let known = s.eq_ignore_ascii_case("main") || (temp_ok && s.eq_ignore_ascii_case("temp"));
        if !known {
            return Err(sql_err!("unknown database {s}"));
        }
    }
    let arg = p.value.as_ref().map(argument_text);
    let (columns, rows): (&[&str], Vec<Row>) = match (name.as_str(), arg) {
        ("user_version", Some(v)) => {
            cat.user_version = i64::from(atoi(&v));
            super::ddl::save_meta(kv, cat)?;
            return Ok(Output {
                schema_changed: true,
                ..Output::default()
            });
        }
        ("encoding", Some(v)) => return set_encoding(&v),
        ("page_size", Some(v)) => return set_page_size(&v),
        ("optimize", mask) => {
            let temp = schema.is_some_and(|s| s.eq_ignore_ascii_case("temp"));
            let mask = mask.map_or(0xfffe, |m| atoi(&m) as u32);
            let chosen = match temp {
                true => Vec::new(),
                false => super::analyze::optimize(kv, cat, mask)?,
            };
            let changed = mask & 0x01 == 0 && !chosen.is_empty();
            let rows = match mask & 0x01 {
                0 => Vec::new(),
                _ => chosen.into_iter().map(|s| vec![Value::Text(s)]).collect(),
            };
            return Ok(Output {
                columns: Rc::from(["optimize".to_string()]),
                rows,
                schema_changed: changed,
                ..Output::default()
            });
        }
        ("foreign_key_check", t) => (FOREIGN_KEY_CHECK, foreign_key_check(kv, cat, t)?),
        (name, arg) => match FUNCTIONS.iter().find(|f| f.name == name) {
            // `PRAGMA table_info` without a table gives nothing, not even
            // columns, as in SQLite.
            Some(f) if arg.is_none() && f.needs_argument => return Ok(Output::default()),
            Some(f) => (f.columns, read_rows(cat, f.name, arg.as_deref(), schema)?),
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

/// A PRAGMA that only reads ([`read_rows`]), also the table-valued
/// function `pragma_<name>`.
struct Function {
    name: &'static str,
    columns: &'static [&'static str],
    /// The function's hidden columns, in argument order: `arg` for the
    /// PRAGMA's argument, `schema` for its schema (SQLite's, per PRAGMA).
    hidden: &'static [&'static str],
    /// Without its argument the PRAGMA gives nothing (`table_info`).
    needs_argument: bool,
}

const ARG_SCHEMA: &[&str] = &["arg", "schema"];

static FUNCTIONS: [Function; 11] = [
    Function::of("table_info", TABLE_INFO, ARG_SCHEMA, true),
    Function::of("table_xinfo", TABLE_XINFO, ARG_SCHEMA, true),
    Function::of("index_list", INDEX_LIST, ARG_SCHEMA, true),
    Function::of("index_info", INDEX_INFO, ARG_SCHEMA, true),
    Function::of("index_xinfo", INDEX_XINFO, ARG_SCHEMA, true),
    Function::of("foreign_key_list", FOREIGN_KEY_LIST, ARG_SCHEMA, true),
    Function::of("table_list", TABLE_LIST, &["arg"], false),
    Function::of("database_list", &["seq", "name", "file"], &[], false),
    Function::of("user_version", &["user_version"], &[], false),
    Function::of("encoding", &["encoding"], &[], false),
    Function::of("page_size", &["page_size"], &[], false),
];

impl Function {
    const fn of(
        name: &'static str,
        columns: &'static [&'static str],
        hidden: &'static [&'static str],
        needs_argument: bool,
    ) -> Function {
        Function {
            name,
            columns,
            hidden,
            needs_argument,
        }
    }
}

/// For `pragma_<name>` (`name` in any case): the PRAGMA's name and its
/// columns (without the hidden ones).
pub(crate) fn function(name: &str) -> Option<(&'static str, &'static [&'static str])> {
    let name = name.to_ascii_lowercase();
    FUNCTIONS
        .iter()
        .find(|f| f.name == name)
        .map(|f| (f.name, f.columns))
}

/// For a FROM name `pragma_<name>` (the prefix in any case): what
/// [`function`] gives for `<name>`.
pub(crate) fn table_function(from_name: &str) -> Option<(&'static str, &'static [&'static str])> {
    let prefixed = from_name
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case("pragma_"));
    function(from_name.get(7..).filter(|_| prefixed)?)
}

/// The hidden columns of `pragma_<name>`, which its arguments fill.
pub(crate) fn hidden_columns(name: &str) -> &'static [&'static str] {
    FUNCTIONS
        .iter()
        .find(|f| f.name == name)
        .map_or(&[], |f| f.hidden)
}

/// `PRAGMA encoding = e`: the text is UTF-8 and stays so; SQLite's other
/// encoding names are refused, as an unknown name is.
fn set_encoding(e: &str) -> Result<Output> {
    let lower = e.to_ascii_lowercase();
    let suffix = lower.strip_prefix("utf-").or(lower.strip_prefix("utf"));
    match suffix {
        Some("8") => Ok(Output::default()),
        Some("16" | "16le" | "16be") => Err(sql_err!(
            "unsupported encoding: {e} (TinyJoin stores text as UTF-8 only)"
        )),
        _ => Err(sql_err!("unsupported encoding: {e}")),
    }
}

/// `PRAGMA page_size = n`: every TinyJoin database has 4 KiB pages, so
/// only that size is accepted.
fn set_page_size(n: &str) -> Result<Output> {
    match atoi(n) as usize {
        PAGE_SIZE => Ok(Output::default()),
        _ => Err(sql_err!(
            "unsupported page size: {n} (TinyJoin's pages are {PAGE_SIZE} bytes)"
        )),
    }
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
        let hidden = hidden_columns(name);
        let given = |column: &str| {
            let i = hidden.iter().position(|h| *h == column)?;
            texts.get(i).cloned().flatten()
        };
        let schema_text = given("schema");
        if let Some(s) = &schema_text {
            if !["main", "temp"].iter().any(|m| m.eq_ignore_ascii_case(s)) {
                return Err(sql_err!("unknown database '{s}'"));
            }
        }
        let arg = given("arg");
        let temp = schema_text.is_some_and(|s| s.eq_ignore_ascii_case("temp"));
        let found = match temp {
            true if hidden.contains(&"arg") => Vec::new(),
            _ => read_rows(cat, name, arg.as_deref(), None)?,
        };
        let mut rows = Vec::with_capacity(found.len());
        for (n, mut row) in found.into_iter().enumerate() {
            row.extend((0..hidden.len()).map(|i| {
                texts
                    .get(i)
                    .cloned()
                    .flatten()
                    .map_or(Value::Null, Value::Text)
            }));
            row.push(Value::Integer(n as i64 + 1));
            self.charge(super::row_size(&row))?;
            rows.push(row);
        }
        Ok(rows)
    }
}

/// The rows of the reading PRAGMA `name` (one of [`FUNCTIONS`], in lower
/// case) with its argument (none without one, for a PRAGMA that needs
/// one) and the schema it was qualified with (only `table_list` reads it).
fn read_rows(
    cat: &Catalog,
    name: &str,
    arg: Option<&str>,
    schema: Option<&str>,
) -> Result<Vec<Row>> {
    Ok(match (name, arg) {
        ("user_version", _) => vec![vec![Value::Integer(cat.user_version)]],
        ("table_list", arg) => table_list(cat, arg, schema),
        // `temp` is never open as a database of its own in TinyJoin.
        ("database_list", _) => vec![vec![Value::Integer(0), text("main"), text("")]],
        ("encoding", _) => vec![vec![text("UTF-8")]],
        ("page_size", _) => vec![vec![Value::Integer(PAGE_SIZE as i64)]],
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

/// `table_list`: the tables of `main`, then its views, each in name order, then its
/// schema table, then `temp`'s (which holds nothing else in TinyJoin:
/// `CREATE TEMP` makes ordinary objects), as SQLite's columns: schema,
/// name, type, column count (a table's generated columns included; 0 for
/// a view that no longer binds, as in SQLite), WITHOUT ROWID, STRICT.
/// `arg` keeps the one so named (the schema tables by their old names,
/// `sqlite_master` and `sqlite_temp_master`, as SQLite matches them);
/// `schema` keeps one schema.
#[inline(never)]
fn table_list(cat: &Catalog, arg: Option<&str>, schema: Option<&str>) -> Vec<Row> {
    let in_schema = |s: &str| schema.is_none_or(|q| q.eq_ignore_ascii_case(s));
    let wanted = |n: &str| arg.is_none_or(|a| a.eq_ignore_ascii_case(n));
    let mut rows = Vec::new();
    let mut push = |schema: &str, name: &str, view: bool, ncol: usize, options: TableOptions| {
        rows.push(vec![
            text(schema),
            text(name),
            text(if view { "view" } else { "table" }),
            Value::Integer(ncol as i64),
            int(options.without_rowid),
            int(options.strict),
        ])
    };
    if in_schema("main") {
        for t in cat.tables.values().filter(|t| wanted(&t.name)) {
            push("main", &t.name, false, t.columns.len(), t.options);
        }
        for v in cat.views.values().filter(|v| wanted(&v.name)) {
            let ncol = view_columns(cat, v).map_or(0, |(names, _)| names.len());
            push("main", &v.name, true, ncol, TableOptions::default());
        }
        if wanted("sqlite_master") {
            push("main", "sqlite_schema", false, 5, TableOptions::default());
        }
    }
    if in_schema("temp") && wanted("sqlite_temp_master") {
        push(
            "temp",
            "sqlite_temp_schema",
            false,
            5,
            TableOptions::default(),
        );
    }
    rows
}

const TABLE_INFO: &[&str] = &["cid", "name", "type", "notnull", "dflt_value", "pk"];
const TABLE_LIST: &[&str] = &["schema", "name", "type", "ncol", "wr", "strict"];
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

/// SQLite's `sqlite3Atoi`, how its PRAGMAs read a number: an optional
/// sign and decimal digits up to the first other character, or (unsigned)
/// `0x` and at most 8 hex digits; 0 when there are none or the value does
/// not fit a 32-bit signed integer.
fn atoi(text: &str) -> i32 {
    let b = text.as_bytes();
    let digit = |c: u8, radix: u32| char::from(c).to_digit(radix).map(u64::from);
    let hex = b.len() > 2 && b[0] == b'0' && matches!(b[1], b'x' | b'X');
    let (neg, radix, max_len, start) = match b.first() {
        _ if hex && b[2].is_ascii_hexdigit() => (false, 16, 8, 2),
        Some(b'-') => (true, 10, 10, 1),
        Some(b'+') => (false, 10, 10, 1),
        _ => (false, 10, 10, 0),
    };
    let digits = &b[start..];
    let zeros = digits.iter().take_while(|&&c| c == b'0').count();
    let digits = &digits[zeros..];
    let mut n: u64 = 0;
    let mut len = 0;
    while let Some(d) = digits.get(len).and_then(|&c| digit(c, radix)) {
        if len == max_len {
            // Too long for an int (hex: more than 8 digits).
            return 0;
        }
        n = n * u64::from(radix) + d;
        len += 1;
    }
    let n = if neg { -(n as i64) } else { n as i64 };
    i32::try_from(n).unwrap_or(0)
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
    let (names, decl_types) = view_columns(cat, v)?;
    Ok(names
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut row = vec![
                Value::Integer(i as i64),
                text(c),
                text(shown_type(decl_types.get(i).map_or("", String::as_str))),
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

/// A view's column names (its column list, else its SELECT's) and their
/// declared types, from binding its SELECT: an error when it no longer
/// binds.
#[inline(never)]
fn view_columns(cat: &Catalog, v: &View) -> Result<(Vec<String>, Vec<String>)> {
    let (q, _, _) = Binder::new(cat).bind_query_in(&v.select, None)?;
    let names = match v.columns.is_empty() {
        true => q.columns.to_vec(),
        false => v.columns.clone(),
    };
    Ok((names, q.decl_types.to_vec()))
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
                        !super::fk::parent_exists(&*kv, cat, t, fk, &row, &[], u64::MAX)?
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
