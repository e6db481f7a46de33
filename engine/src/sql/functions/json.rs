//! SQLite's JSON functions (json1, built into SQLite since 3.38), with the
//! results of SQLite 3.46: json, json_array, json_array_length,
//! json_error_position, json_extract, json_insert, json_object, json_patch,
//! json_pretty, json_quote, json_remove, json_replace, json_set, json_type,
//! json_valid, the `->` / `->>` operators, and the running state of the
//! json_group_array / json_group_object aggregates (window frames too);
//! and the jsonb_* forms of those that make a document (jsonb,
//! jsonb_array, jsonb_extract, jsonb_insert, jsonb_object, jsonb_patch,
//! jsonb_remove, jsonb_replace, jsonb_set, jsonb_group_array,
//! jsonb_group_object), which give its JSONB bytes instead of its text.
//!
//! As in SQLite (json.c, which this transcribes), every JSON input is first
//! translated into SQLite's binary JSONB form ([`blob`]): JSON5 input is
//! accepted, numbers and string escapes keep their spelling unless JSON5
//! (so `json('{"a":1.50}')` keeps `1.50`), and output is canonical text.
//! Paths, edits and merge patches work on the JSONB ([`edit`]). The rows
//! of the table-valued functions json_each and json_tree: [`each`].
//!
//! Values: SQL NULL, integers and reals become JSON null and numbers (an
//! infinite real is written `9.0e+999`, or `9e999` inside edited
//! documents, as SQLite does); text becomes a JSON string unless it
//! carries SQLite's JSON subtype (the caller says so per argument: it is
//! the direct result of a function that returned JSON), in which case it
//! is embedded as JSON. Results with the subtype: json, json_array,
//! json_object, json_quote, json_insert / json_replace / json_set /
//! json_remove, json_patch, `->`, the aggregates, and json_extract when it
//! gives an array or object or has several paths; not json_pretty or `->>`.
//!
//! JSONB results are SQLite's bytes: a parsed or edited document as the
//! edit left it (an input JSONB blob comes back as it was given, headers
//! wider than needed too), and a document the function wrote as text
//! (jsonb_array, jsonb_object, several paths of jsonb_extract, the
//! aggregates) converted as SQLite's `jsonReturnStringAsBlob` does. They
//! carry no JSON subtype (it only matters for text), except the text `[]`
//! or `{}` that jsonb_group_array / jsonb_group_object give for no rows,
//! as SQLite 3.46 does.
//!
//! Blobs: a blob whose first JSONB header spans exactly the blob is taken
//! as JSONB, as SQLite 3.45+ does (read with SQLite's lazy checks); any other blob
//! is read as JSON text where JSON is expected ("malformed JSON" unless it
//! is valid JSON text, as SQLite does) and is an error where a value is
//! expected ("JSON cannot hold BLOB values").
//!
//! SQLite 3.46's own quirks are kept: `x -> -1` is "bad JSON path" (later
//! SQLite versions read a negative index as `[#-1]`), json_group_object
//! writes a NULL label as nothing (`{:1}`), `\v` in JSON5 text becomes
//! `\u0009`, a path index wraps at 2^32.
//!
//! Limits: input nesting deeper than 1000 is "malformed JSON" (SQLite's
//! JSON_MAX_DEPTH). Every walk over a document (parse, output, paths,
//! edits, merge patch, JSONB check) is iterative, so nesting, even the
//! unbounded nesting a path can create, costs heap, never machine stack.

mod blob;
mod each;
mod edit;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use blob::{
    append_node, append_string, at, element_text, might_be_jsonb, parse_text, payload_size,
    text_to_blob, to_pretty, to_text, validity_check, Blob, ARRAY, FLOAT, INT, NULL, OBJECT,
    TEXTRAW, TYPE_NAMES,
};
use edit::{array_count, merge_patch, sql_value, text_value, EditOp, Miss};

pub(crate) use each::{EachScan, COLUMNS as EACH_COLUMNS};

use crate::sql::value::{real_to_text, Value};
use crate::{sql_err, Error, Result};

/// The implementation of one JSON scalar function: evaluated arguments,
/// and for each whether it carries SQLite's JSON subtype (it is the direct
/// result of a JSON function that gave JSON: its text is JSON to embed,
/// not a string to quote). Returns the value and whether it carries the
/// JSON subtype.
pub(crate) type JsonImpl = fn(&[Value], &[bool]) -> Result<(Value, bool)>;

/// A JSON scalar function (or the `->` / `->>` operators, named so).
pub(crate) struct JsonFn {
    /// Lower-case name.
    pub name: &'static str,
    min_args: usize,
    /// `None` for any number from `min_args` on.
    max_args: Option<usize>,
    imp: JsonImpl,
}

impl std::fmt::Debug for JsonFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JsonFn({})", self.name)
    }
}

impl JsonFn {
    /// `Error::Sql("wrong number of arguments to function X()")` unless
    /// `count` arguments are allowed.
    pub(crate) fn check_arity(&self, count: usize) -> Result<()> {
        super::check_arity(self.name, self.min_args, self.max_args, count)
    }

    /// Evaluates the function.
    pub(crate) fn call(&self, args: &[Value], json: &[bool]) -> Result<(Value, bool)> {
        self.check_arity(args.len())?;
        (self.imp)(args, json)
    }
}

const fn func(
    name: &'static str,
    min_args: usize,
    max_args: Option<usize>,
    imp: JsonImpl,
) -> JsonFn {
    JsonFn {
        name,
        min_args,
        max_args,
        imp,
    }
}

/// Argument counts as SQLite registers them: the variadic functions take
/// any number (and give NULL, or their own error, for too few).
static FUNCTIONS: &[JsonFn] = &[
    func("->", 2, Some(2), arrow_json),
    func("->>", 2, Some(2), arrow_sql),
    func("json", 1, Some(1), json),
    func("json_array", 0, None, json_array),
    func("json_array_length", 1, Some(2), json_array_length),
    func("json_error_position", 1, Some(1), json_error_position),
    func("json_extract", 0, None, json_extract),
    func("json_insert", 0, None, json_insert),
    func("json_object", 0, None, json_object),
    func("json_patch", 2, Some(2), json_patch),
    func("json_pretty", 1, Some(2), json_pretty),
    func("json_quote", 1, Some(1), json_quote),
    func("json_remove", 0, None, json_remove),
    func("json_replace", 0, None, json_replace),
    func("json_set", 0, None, json_set),
    func("json_type", 1, Some(2), json_type),
    func("json_valid", 1, Some(2), json_valid),
    func("jsonb", 1, Some(1), jsonb),
    func("jsonb_array", 0, None, jsonb_array),
    func("jsonb_extract", 0, None, jsonb_extract),
    func("jsonb_insert", 0, None, jsonb_insert),
    func("jsonb_object", 0, None, jsonb_object),
    func("jsonb_patch", 2, Some(2), jsonb_patch),
    func("jsonb_remove", 0, None, jsonb_remove),
    func("jsonb_replace", 0, None, jsonb_replace),
    func("jsonb_set", 0, None, jsonb_set),
];

/// Looks a JSON function up by lower-case name.
pub(crate) fn lookup(name: &str) -> Option<&'static JsonFn> {
    FUNCTIONS.iter().find(|f| f.name == name)
}

/// The `value` column of a `json_each` / `json_tree` row, called with it
/// and the row's `type`: the value, with the JSON subtype when the type is
/// an array or an object, as SQLite gives it. Internal (no SQL name
/// reaches it): the binder reads that column through it.
pub(crate) static EACH_VALUE: JsonFn = func("value", 2, Some(2), each_value);

fn each_value(args: &[Value], _: &[bool]) -> Out {
    let json = matches!(&args[1], Value::Text(t) if t == "array" || t == "object");
    Ok((args[0].clone(), json))
}

type Out = Result<(Value, bool)>;

const NULL_OUT: Out = Ok((Value::Null, false));

fn malformed() -> Error {
    sql_err!("malformed JSON")
}

fn blob_error() -> Error {
    sql_err!("JSON cannot hold BLOB values")
}

/// SQLite's "bad JSON path: %Q".
fn bad_path(path: &[u8]) -> Error {
    let path = String::from_utf8_lossy(path).replace('\'', "''");
    sql_err!("bad JSON path: '{path}'")
}

/// The error of a failed path lookup (`NotFound` is not an error).
fn miss_error(miss: Miss, path: &[u8]) -> Error {
    match miss {
        Miss::BadPath => bad_path(path),
        Miss::Malformed | Miss::NotFound => malformed(),
    }
}

/// A value's text as SQLite's `sqlite3_value_text` gives it (numbers
/// rendered, blobs' bytes as they are); `None` for NULL.
fn value_bytes(v: &Value) -> Option<Cow<'_, [u8]>> {
    match v {
        Value::Null => None,
        Value::Integer(i) => Some(Cow::Owned(i.to_string().into_bytes())),
        Value::Real(r) => Some(Cow::Owned(real_to_text(*r).into_bytes())),
        Value::Text(s) => Some(Cow::Borrowed(s.as_bytes())),
        Value::Blob(b) => Some(Cow::Borrowed(b)),
    }
}

/// A value's text as a C string (cut at its first NUL), as SQLite reads
/// paths, labels of json_group_object and json_pretty's indent.
fn c_text(v: &Value) -> Option<Vec<u8>> {
    let z = value_bytes(v)?;
    let end = z.iter().position(|&b| b == 0).unwrap_or(z.len());
    Some(z[..end].to_vec())
}

/// SQLite's `jsonParseFuncArg`: the JSON argument as JSONB; `None` for
/// NULL (the function's result is NULL).
fn parse_arg(v: &Value) -> Result<Option<Blob>> {
    let z = match v {
        Value::Null => return Ok(None),
        Value::Blob(b) if might_be_jsonb(b) => {
            return Ok(Some(Blob {
                a: b.clone(),
                delta: 0,
            }))
        }
        other => value_bytes(other).unwrap_or_default(),
    };
    if z.is_empty() {
        return Err(malformed());
    }
    let parsed = parse_text(&z).map_err(|_| malformed())?;
    Ok(Some(Blob {
        a: parsed.blob,
        delta: 0,
    }))
}

/// The whole document as JSON text.
fn doc_text(b: &Blob) -> Result<Value> {
    element_text(&b.a, 0)
        .map(text_value)
        .map_err(|_| malformed())
}

/// What a function gives: JSON text with the subtype, or JSONB.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Text,
    Jsonb,
}

/// SQLite's `jsonReturnParse`: the document as text, or its bytes as
/// they are.
fn doc_out(b: Blob, form: Form) -> Out {
    match form {
        Form::Text => Ok((doc_text(&b)?, true)),
        Form::Jsonb => Ok((Value::Blob(b.a), false)),
    }
}

/// JSON text a function wrote, as its result: the text with the subtype,
/// or (SQLite's `jsonReturnStringAsBlob`) its JSONB translation.
fn written_out(text: Vec<u8>, form: Form) -> Out {
    match form {
        Form::Text => Ok((text_value(text), true)),
        Form::Jsonb => Ok((Value::Blob(text_to_blob(&text)), false)),
    }
}

fn flag(json: &[bool], i: usize) -> bool {
    json.get(i).copied().unwrap_or(false)
}

/// SQLite's `jsonAppendSeparator`: a comma unless just after `[` or `{`.
fn append_separator(out: &mut Vec<u8>) {
    if !matches!(out.last(), None | Some(b'[' | b'{')) {
        out.push(b',');
    }
}

/// Why SQL values could not be written as JSON, as SQLite's JsonString
/// accumulates it: appending goes on after an error; a blob that is not
/// JSONB is reported only as the first error; a malformed JSONB sets a flag
/// that wins at the end, except that after an error SQLite skips the
/// contents of JSONB arrays and objects (only a malformed scalar counts).
#[derive(Clone, Copy, Debug, Default)]
struct ValueErrors {
    /// A blob that is not JSONB ("JSON cannot hold BLOB values").
    blob: bool,
    /// A malformed JSONB blob ("malformed JSON").
    malformed: bool,
}

impl ValueErrors {
    /// Appends `v`, recording its error.
    fn append(&mut self, out: &mut Vec<u8>, v: &Value, json: bool) {
        let earlier = self.blob || self.malformed;
        match append_sql_value(out, v, json) {
            Ok(()) => {}
            Err(e) if !earlier => *self = e,
            Err(e) => {
                let scalar =
                    matches!(v, Value::Blob(b) if b.first().is_some_and(|&x| x & 0x0f < ARRAY));
                self.malformed |= e.malformed && scalar;
            }
        }
    }

    fn check(self) -> Result<()> {
        if self.malformed {
            Err(malformed())
        } else if self.blob {
            Err(blob_error())
        } else {
            Ok(())
        }
    }
}

/// SQLite's `jsonAppendSqlValue`: an SQL value (an argument of json_array,
/// json_object, json_quote, the aggregates) as JSON text.
fn append_sql_value(
    out: &mut Vec<u8>,
    v: &Value,
    json: bool,
) -> std::result::Result<(), ValueErrors> {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        // printf("%!0.15g"): infinities as 9.0e+999.
        Value::Real(r) if r.is_infinite() => {
            out.extend_from_slice(if *r < 0.0 { b"-9.0e+999" } else { b"9.0e+999" })
        }
        Value::Real(r) => out.extend_from_slice(real_to_text(*r).as_bytes()),
        Value::Integer(i) => out.extend_from_slice(i.to_string().as_bytes()),
        Value::Text(s) if json => out.extend_from_slice(s.as_bytes()),
        Value::Text(s) => append_string(out, s.as_bytes()),
        Value::Blob(b) if might_be_jsonb(b) => {
            to_text(b, 0, out).map_err(|_| ValueErrors {
                blob: false,
                malformed: true,
            })?;
        }
        Value::Blob(_) => {
            return Err(ValueErrors {
                blob: true,
                malformed: false,
            })
        }
    }
    Ok(())
}

/// SQLite's `jsonFunctionArgToBlob`: a value argument of json_set /
/// json_insert / json_replace as JSONB.
fn value_to_jsonb(v: &Value, json: bool) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    match v {
        Value::Null => out.push(NULL),
        Value::Blob(b) if might_be_jsonb(b) => out.extend_from_slice(b),
        Value::Blob(_) => return Err(blob_error()),
        Value::Text(s) if json => {
            out = parse_text(s.as_bytes()).map_err(|_| malformed())?.blob;
        }
        Value::Text(s) => append_node(&mut out, TEXTRAW, s.as_bytes()),
        Value::Real(r) => {
            let text = match real_to_text(*r) {
                t if t == "Inf" => "9e999".to_string(),
                t if t == "-Inf" => "-9e999".to_string(),
                t => t,
            };
            append_node(&mut out, FLOAT, text.as_bytes());
        }
        Value::Integer(i) => append_node(&mut out, INT, i.to_string().as_bytes()),
    }
    Ok(out)
}

fn json(args: &[Value], _: &[bool]) -> Out {
    document(args, Form::Text)
}

fn jsonb(args: &[Value], _: &[bool]) -> Out {
    document(args, Form::Jsonb)
}

fn document(args: &[Value], form: Form) -> Out {
    match parse_arg(&args[0])? {
        Some(b) => doc_out(b, form),
        None => NULL_OUT,
    }
}

fn json_array(args: &[Value], json: &[bool]) -> Out {
    array(args, json, Form::Text)
}

fn jsonb_array(args: &[Value], json: &[bool]) -> Out {
    array(args, json, Form::Jsonb)
}

fn array(args: &[Value], json: &[bool], form: Form) -> Out {
    let mut out = vec![b'['];
    let mut errors = ValueErrors::default();
    for (i, v) in args.iter().enumerate() {
        append_separator(&mut out);
        errors.append(&mut out, v, flag(json, i));
    }
    errors.check()?;
    out.push(b']');
    written_out(out, form)
}

fn json_object(args: &[Value], json: &[bool]) -> Out {
    object(args, json, Form::Text)
}

fn jsonb_object(args: &[Value], json: &[bool]) -> Out {
    object(args, json, Form::Jsonb)
}

fn object(args: &[Value], json: &[bool], form: Form) -> Out {
    if args.len() % 2 == 1 {
        return Err(sql_err!(
            "json_object() requires an even number of arguments"
        ));
    }
    let mut out = vec![b'{'];
    let mut errors = ValueErrors::default();
    for (i, pair) in args.chunks(2).enumerate() {
        let Value::Text(label) = &pair[0] else {
            return Err(sql_err!("json_object() labels must be TEXT"));
        };
        append_separator(&mut out);
        append_string(&mut out, label.as_bytes());
        out.push(b':');
        errors.append(&mut out, &pair[1], flag(json, 2 * i + 1));
    }
    errors.check()?;
    out.push(b'}');
    written_out(out, form)
}

fn json_quote(args: &[Value], json: &[bool]) -> Out {
    let mut out = Vec::new();
    let mut errors = ValueErrors::default();
    errors.append(&mut out, &args[0], flag(json, 0));
    errors.check()?;
    Ok((text_value(out), true))
}

fn json_array_length(args: &[Value], _: &[bool]) -> Out {
    let Some(mut b) = parse_arg(&args[0])? else {
        return NULL_OUT;
    };
    let mut i = 0;
    if let Some(arg) = args.get(1) {
        let Some(path) = c_text(arg) else {
            return NULL_OUT;
        };
        let rest: &[u8] = match path.first() {
            Some(b'$') => &path[1..],
            _ => b"@",
        };
        i = match edit::lookup(&mut b, rest, EditOp::None, &[]) {
            Ok(i) => i,
            Err(Miss::NotFound) => return NULL_OUT,
            Err(miss) => return Err(miss_error(miss, &path)),
        };
    }
    let count = if b.kind(i) == ARRAY {
        array_count(&b, i)
    } else {
        0
    };
    Ok((Value::Integer(i64::from(count)), false))
}

fn json_error_position(args: &[Value], _: &[bool]) -> Out {
    let pos = match &args[0] {
        Value::Blob(b) if might_be_jsonb(b) => validity_check(b, 0, b.len(), 1),
        v => {
            let Some(z) = value_bytes(v) else {
                return NULL_OUT;
            };
            match parse_text(&z) {
                Ok(_) => 0,
                // The byte offset as a 1-based character position.
                Err(e) => {
                    1 + z
                        .iter()
                        .take(e)
                        .take_while(|&&c| c != 0)
                        .filter(|&&c| c & 0xc0 != 0x80)
                        .count()
                }
            }
        }
    };
    Ok((Value::Integer(pos as i64), false))
}

/// How json_extract, jsonb_extract and the operators give what they find.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extract {
    /// json_extract: SQL values for scalars, JSON text for containers.
    Mixed,
    /// jsonb_extract: SQL values for scalars, JSONB for containers (and
    /// for the array of several paths' results).
    MixedJsonb,
    /// `->`: always JSON text.
    Json,
    /// `->>`: always an SQL value.
    Sql,
}

/// The operators' abbreviated right operand as a path without `$`
/// (SQLite: integer N → `[N]`, alphanumeric label → `.label`, `[...]` as
/// is, other text → `."text"`).
fn abbreviated_path(arg: &Value, path: &[u8]) -> Vec<u8> {
    let mut full = Vec::with_capacity(path.len() + 3);
    if matches!(arg, Value::Integer(_)) {
        full.push(b'[');
        full.extend_from_slice(path);
        full.push(b']');
    } else if path.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_') {
        full.push(b'.');
        full.extend_from_slice(path);
    } else if path.len() >= 3 && path[0] == b'[' && path[path.len() - 1] == b']' {
        full.extend_from_slice(path);
    } else {
        full.extend_from_slice(b".\"");
        full.extend_from_slice(path);
        full.push(b'"');
    }
    full
}

/// SQLite's `jsonExtractFunc`.
fn extract(args: &[Value], mode: Extract) -> Out {
    if args.len() < 2 {
        return NULL_OUT;
    }
    let Some(mut b) = parse_arg(&args[0])? else {
        return NULL_OUT;
    };
    let several = args.len() > 2;
    let mut out = vec![b'['];
    let mut bad = false;
    for arg in &args[1..] {
        let Some(path) = c_text(arg) else {
            return NULL_OUT;
        };
        let found = if path.first() == Some(&b'$') {
            edit::lookup(&mut b, &path[1..], EditOp::None, &[])
        } else if matches!(mode, Extract::Json | Extract::Sql) {
            edit::lookup(&mut b, &abbreviated_path(arg, &path), EditOp::None, &[])
        } else {
            return Err(bad_path(&path));
        };
        match found {
            Ok(j) if !several => {
                return match mode {
                    Extract::Json => element_text(&b.a, j).map(|t| (text_value(t), true)),
                    Extract::Sql => sql_value(&b.a, j).map(|(v, _)| (v, false)),
                    Extract::Mixed => sql_value(&b.a, j),
                    Extract::MixedJsonb => jsonb_value(&b.a, j),
                }
                .map_err(|_| malformed());
            }
            Ok(j) => {
                append_separator(&mut out);
                bad |= to_text(&b.a, j, &mut out).is_err();
            }
            Err(Miss::NotFound) if !several => return NULL_OUT,
            Err(Miss::NotFound) => {
                append_separator(&mut out);
                out.extend_from_slice(b"null");
            }
            Err(miss) => return Err(miss_error(miss, &path)),
        }
    }
    if bad {
        return Err(malformed());
    }
    out.push(b']');
    let form = match mode {
        Extract::MixedJsonb => Form::Jsonb,
        _ => Form::Text,
    };
    written_out(out, form)
}

/// jsonb_extract's value of the element at `i` (SQLite's
/// `jsonReturnFromBlob` with JSON_BLOB): an array or object as its own
/// bytes, a scalar as json_extract gives it.
fn jsonb_value(a: &[u8], i: usize) -> std::result::Result<(Value, bool), ()> {
    if !matches!(at(a, i) & 0x0f, ARRAY | OBJECT) {
        return sql_value(a, i);
    }
    let (n, sz) = payload_size(a, i, 0);
    if n == 0 {
        return Err(());
    }
    let element = a.get(i..i + n + sz).ok_or(())?;
    Ok((Value::Blob(element.to_vec()), false))
}

fn json_extract(args: &[Value], _: &[bool]) -> Out {
    extract(args, Extract::Mixed)
}

fn jsonb_extract(args: &[Value], _: &[bool]) -> Out {
    extract(args, Extract::MixedJsonb)
}

fn arrow_json(args: &[Value], _: &[bool]) -> Out {
    extract(args, Extract::Json)
}

fn arrow_sql(args: &[Value], _: &[bool]) -> Out {
    extract(args, Extract::Sql)
}

/// json_set, json_insert, json_replace (SQLite's `jsonInsertIntoBlob`):
/// each path/value pair in order; NULL paths are skipped.
fn insert_into(args: &[Value], json: &[bool], op: EditOp, form: Form) -> Out {
    if args.is_empty() {
        return NULL_OUT;
    }
    if args.len().is_multiple_of(2) {
        // SQLite names the text form's function, whichever was called.
        let name = match op {
            EditOp::Insert => "insert",
            EditOp::Replace => "replace",
            _ => "set",
        };
        return Err(sql_err!("json_{name}() needs an odd number of arguments"));
    }
    let Some(mut b) = parse_arg(&args[0])? else {
        return NULL_OUT;
    };
    for (pair, i) in args[1..].chunks(2).zip((1..).step_by(2)) {
        let Some(path) = c_text(&pair[0]) else {
            continue;
        };
        if path.first() != Some(&b'$') {
            return Err(bad_path(&path));
        }
        let value = value_to_jsonb(&pair[1], flag(json, i + 1))?;
        if path.len() == 1 {
            if op == EditOp::Replace || op == EditOp::Set {
                b.a = value;
            }
            continue;
        }
        match edit::lookup(&mut b, &path[1..], op, &value) {
            Ok(_) | Err(Miss::NotFound) => {}
            Err(miss) => return Err(miss_error(miss, &path)),
        }
    }
    doc_out(b, form)
}

fn json_set(args: &[Value], json: &[bool]) -> Out {
    insert_into(args, json, EditOp::Set, Form::Text)
}

fn json_insert(args: &[Value], json: &[bool]) -> Out {
    insert_into(args, json, EditOp::Insert, Form::Text)
}

fn json_replace(args: &[Value], json: &[bool]) -> Out {
    insert_into(args, json, EditOp::Replace, Form::Text)
}

fn jsonb_set(args: &[Value], json: &[bool]) -> Out {
    insert_into(args, json, EditOp::Set, Form::Jsonb)
}

fn jsonb_insert(args: &[Value], json: &[bool]) -> Out {
    insert_into(args, json, EditOp::Insert, Form::Jsonb)
}

fn jsonb_replace(args: &[Value], json: &[bool]) -> Out {
    insert_into(args, json, EditOp::Replace, Form::Jsonb)
}

fn json_remove(args: &[Value], _: &[bool]) -> Out {
    remove(args, Form::Text)
}

fn jsonb_remove(args: &[Value], _: &[bool]) -> Out {
    remove(args, Form::Jsonb)
}

fn remove(args: &[Value], form: Form) -> Out {
    let Some(first) = args.first() else {
        return NULL_OUT;
    };
    let Some(mut b) = parse_arg(first)? else {
        return NULL_OUT;
    };
    for arg in &args[1..] {
        let Some(path) = c_text(arg) else {
            return NULL_OUT;
        };
        if path.first() != Some(&b'$') {
            return Err(bad_path(&path));
        }
        if path.len() == 1 {
            return NULL_OUT;
        }
        match edit::lookup(&mut b, &path[1..], EditOp::Delete, &[]) {
            Ok(_) | Err(Miss::NotFound) => {}
            Err(miss) => return Err(miss_error(miss, &path)),
        }
    }
    doc_out(b, form)
}

fn json_type(args: &[Value], _: &[bool]) -> Out {
    let Some(mut b) = parse_arg(&args[0])? else {
        return NULL_OUT;
    };
    let mut i = 0;
    if let Some(arg) = args.get(1) {
        let Some(path) = c_text(arg) else {
            return NULL_OUT;
        };
        if path.first() != Some(&b'$') {
            return Err(bad_path(&path));
        }
        i = match edit::lookup(&mut b, &path[1..], EditOp::None, &[]) {
            Ok(i) => i,
            Err(Miss::NotFound) => return NULL_OUT,
            Err(miss) => return Err(miss_error(miss, &path)),
        };
    }
    let name = TYPE_NAMES[usize::from(b.kind(i))];
    Ok((Value::Text(name.to_string()), false))
}

/// json_valid(X, FLAGS): FLAGS 1 RFC-8259 text, 2 JSON5 text, 4 a blob
/// that looks like JSONB, 8 strictly valid JSONB (bits combine; default 1).
fn json_valid(args: &[Value], _: &[bool]) -> Out {
    let mut flags = 1;
    if let Some(f) = args.get(1) {
        let f = f.to_i64();
        if !(1..=15).contains(&f) {
            return Err(sql_err!(
                "FLAGS parameter to json_valid() must be between 1 and 15"
            ));
        }
        flags = f as u8;
    }
    let valid = match &args[0] {
        Value::Null => return NULL_OUT,
        Value::Blob(b) if might_be_jsonb(b) => {
            flags & 0x04 != 0 || (flags & 0x08 != 0 && validity_check(b, 0, b.len(), 1) == 0)
        }
        v => {
            let z = value_bytes(v).unwrap_or_default();
            flags & 0x03 != 0
                && !z.is_empty()
                && parse_text(&z).is_ok_and(|p| flags & 0x02 != 0 || !p.nonstd)
        }
    };
    Ok((Value::Integer(i64::from(valid)), false))
}

fn json_patch(args: &[Value], _: &[bool]) -> Out {
    patch_doc(args, Form::Text)
}

fn jsonb_patch(args: &[Value], _: &[bool]) -> Out {
    patch_doc(args, Form::Jsonb)
}

fn patch_doc(args: &[Value], form: Form) -> Out {
    let Some(mut target) = parse_arg(&args[0])? else {
        return NULL_OUT;
    };
    let Some(patch) = parse_arg(&args[1])? else {
        return NULL_OUT;
    };
    merge_patch(&mut target, &patch.a).map_err(|_| malformed())?;
    doc_out(target, form)
}

/// json_pretty(X, INDENT): no JSON subtype on the result, as in SQLite.
fn json_pretty(args: &[Value], _: &[bool]) -> Out {
    let Some(b) = parse_arg(&args[0])? else {
        return NULL_OUT;
    };
    let indent = args
        .get(1)
        .and_then(c_text)
        .unwrap_or_else(|| b"    ".to_vec());
    let mut out = Vec::new();
    to_pretty(&b.a, 0, &indent, &mut out).map_err(|_| malformed())?;
    Ok((text_value(out), false))
}

/// SQLite's `jsonGroupInverse`: removes the first element of the array or
/// object text in `buf` (through the first comma outside strings and
/// nested containers).
fn remove_first(buf: &mut Vec<u8>) {
    let mut in_str = false;
    let mut nest = 0i64;
    let mut i = 1;
    while i < buf.len() {
        let c = buf[i];
        if c == b',' && !in_str && nest == 0 {
            break;
        }
        if c == b'"' {
            in_str = !in_str;
        } else if c == b'\\' {
            i += 1;
        } else if !in_str {
            match c {
                b'{' | b'[' => nest += 1,
                b'}' | b']' => nest -= 1,
                _ => {}
            }
        }
        i += 1;
    }
    buf.drain(1..(i + 1).min(buf.len()));
}

/// `json_group_array(x)` / `json_group_object(k, v)`'s running state (and
/// their jsonb_* forms'): the array or object text so far, without its
/// closing bracket (`None` before the first row), as SQLite keeps it.
#[derive(Clone, Debug)]
pub(crate) struct GroupJson {
    object: bool,
    /// jsonb_group_array / jsonb_group_object.
    jsonb: bool,
    text: Option<Vec<u8>>,
}

impl GroupJson {
    /// An empty `json_group_array` (`object` false) or `json_group_object`,
    /// or with `jsonb` their jsonb_* forms.
    pub(crate) fn new(object: bool, jsonb: bool) -> GroupJson {
        GroupJson {
            object,
            jsonb,
            text: None,
        }
    }

    /// Adds one row's element: `args` is the value for an array, the label
    /// and the value for an object, and `json` says which of them carries
    /// the JSON subtype. As in SQLite 3.46, an object's label is the
    /// label's text up to any NUL, and a NULL label writes nothing before
    /// the `:` (the result is not valid JSON).
    pub(crate) fn step(&mut self, args: &[Value], json: &[bool]) -> Result<()> {
        let open = if self.object { b'{' } else { b'[' };
        let buf = self.text.get_or_insert_with(|| vec![open]);
        if buf.len() > 1 {
            buf.push(b',');
        }
        let at = usize::from(self.object);
        if self.object {
            if let Some(label) = args.first().and_then(c_text) {
                append_string(buf, &label);
            }
            buf.push(b':');
        }
        let mut errors = ValueErrors::default();
        let value = args.get(at).unwrap_or(&Value::Null);
        errors.append(buf, value, json.get(at) == Some(&true));
        errors.check()
    }

    /// Removes the oldest row still in (a window frame's).
    pub(crate) fn inverse(&mut self) {
        if let Some(buf) = &mut self.text {
            remove_first(buf);
        }
    }

    /// The text so far with its closing bracket (`[]` or `{}` for no rows),
    /// or for the jsonb_* forms its JSONB (but still the text `[]` or `{}`
    /// for no rows, as SQLite 3.46 gives).
    pub(crate) fn value(&self) -> Value {
        let (empty, close): (&[u8], u8) = if self.object {
            (b"{}", b'}')
        } else {
            (b"[]", b']')
        };
        let mut out = self
            .text
            .as_deref()
            .map_or_else(|| empty.to_vec(), <[u8]>::to_vec);
        if self.text.is_some() {
            out.push(close);
            if self.jsonb {
                return Value::Blob(text_to_blob(&out));
            }
        }
        text_value(out)
    }
}

// Declared last: a line added above would move the line numbers the
// runtime's panic locations carry, and with them the wasm's bytes.
#[cfg(test)]
mod test_docs;
