//! SQLite's built-in scalar functions, with SQLite's argument conversions,
//! NULL handling and edge cases (transcribed from SQLite's func.c).
//!
//! The executor resolves a call by name with [`scalar`], checks the
//! argument count at bind time with [`ScalarFn::check_arity`], and
//! evaluates with [`ScalarFn::call`]. Names that are aggregates when called
//! with one argument (`min`, `max`) must be looked up in
//! [`crate::sql::aggregate`] first; here they are the multi-argument scalar
//! forms. `coalesce`, `ifnull` and `iif` are provided as plain functions of
//! evaluated arguments; an executor that wants SQLite's short-circuit
//! evaluation treats them as special forms with the same results.
//! Operators with function spellings: `x LIKE p ESCAPE e` is `like(p, x, e)`,
//! `x GLOB p` is `glob(p, x)`.
//!
//! - `text`: length, lower/upper, substr, trim, replace, instr, hex, unhex,
//!   quote, char, unicode, concat.
//! - `numeric`: abs, round, sign, random, randomblob, zeroblob.
//! - `choice`: min/max, coalesce/ifnull, nullif, iif, likely, typeof.
//! - `printf`: printf/format.
//! - `pattern`: LIKE and GLOB matching.
//! - `datetime`: date, time, datetime, julianday, unixepoch, strftime,
//!   timediff.
//! - `math`: SQLite's optional math functions (ceil, floor, ln, pow, ...).
//! - `json`: the JSON functions, `->` and `->>`, and the state of the
//!   `json_group_array` / `json_group_object` aggregates (called through
//!   their own interface: they see which arguments carry JSON).
//!
//! Date/time functions are provided (see `datetime` for what 'now' and
//! 'localtime' mean here), and so are the math functions of SQLite builds
//! with SQLITE_ENABLE_MATH_FUNCTIONS (unit-tested only: the oracle SQLite
//! lacks them). The connection-state functions (changes, total_changes,
//! last_insert_rowid) and sqlite_version read what the connection set:
//! `connection`.

mod choice;
mod connection;
mod datetime;
pub(crate) mod json;
mod math;
mod numeric;
mod pattern;
mod printf;
mod text;

pub(crate) use connection::{
    action_changes, count_action_change, count_trigger_changes, set_connection_state,
    trigger_changes, ConnectionState,
};
pub(crate) use datetime::set_statement_time;

use crate::sql::value::{Collation, Value};
use crate::{sql_err, Result};

/// The signature of every scalar function: evaluated arguments and the
/// collating sequence of the call (used by min, max and nullif only).
pub(crate) type ScalarImpl = fn(&[Value], Collation) -> Result<Value>;

/// A built-in scalar function.
#[derive(Clone, Copy)]
pub(crate) struct ScalarFn {
    /// Lower-case name.
    pub name: &'static str,
    min_args: usize,
    /// `None` for any number from `min_args` on.
    max_args: Option<usize>,
    deterministic: bool,
    imp: ScalarImpl,
}

impl std::fmt::Debug for ScalarFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ScalarFn({})", self.name)
    }
}

impl ScalarFn {
    /// `Error::Sql("wrong number of arguments to function X()")` unless
    /// `count` arguments are allowed.
    pub(crate) fn check_arity(&self, count: usize) -> Result<()> {
        check_arity(self.name, self.min_args, self.max_args, count)
    }

    /// False for functions whose result differs between calls with the same
    /// arguments (random, randomblob): never constant-fold or index them.
    pub(crate) fn is_deterministic(&self) -> bool {
        self.deterministic
    }

    /// Evaluates the function (checking the argument count first); a
    /// string or blob longer than [`MAX_LENGTH`] fails, as in SQLite.
    pub(crate) fn call(&self, args: &[Value], collation: Collation) -> Result<Value> {
        self.check_arity(args.len())?;
        within_max_length((self.imp)(args, collation)?)
    }
}

/// SQLite's SQLITE_MAX_LENGTH: the longest string or blob an expression
/// may make. Longer fails with SQLite's "string or blob too big"
/// (`TOO_LARGE`), checked before the bytes are built where their length
/// is known first (`||`, hex, quote, concat, group_concat, zeroblob,
/// randomblob, printf, replace) and on every function's result.
pub(crate) const MAX_LENGTH: usize = 1_000_000_000;

/// `TooLarge` when a string or blob of `len` bytes would pass [`MAX_LENGTH`].
pub(crate) fn check_length(len: usize) -> Result<()> {
    if len > MAX_LENGTH {
        return Err(crate::Error::TooLarge("string or blob too big".to_string()));
    }
    Ok(())
}

/// The bytes of a string or blob (0 for a number, whose text is short,
/// or NULL): what a result built from it takes at least, so a result's
/// length can be checked against [`MAX_LENGTH`] before it is built.
pub(crate) fn bytes_len(v: &Value) -> usize {
    match v {
        Value::Text(s) => s.len(),
        Value::Blob(b) => b.len(),
        _ => 0,
    }
}

/// `v`, unless it is a string or blob longer than [`MAX_LENGTH`].
pub(crate) fn within_max_length(v: Value) -> Result<Value> {
    check_length(bytes_len(&v))?;
    Ok(v)
}

/// `Error::Sql("wrong number of arguments to function {name}()")` unless
/// `min..=max` (no upper bound for `None`) holds `count`.
pub(crate) fn check_arity(name: &str, min: usize, max: Option<usize>, count: usize) -> Result<()> {
    if count < min || max.is_some_and(|max| count > max) {
        return Err(sql_err!("wrong number of arguments to function {name}()"));
    }
    Ok(())
}

const fn f(
    name: &'static str,
    min_args: usize,
    max_args: Option<usize>,
    imp: ScalarImpl,
) -> ScalarFn {
    ScalarFn {
        name,
        min_args,
        max_args,
        deterministic: true,
        imp,
    }
}

const fn volatile(
    name: &'static str,
    min_args: usize,
    max_args: Option<usize>,
    imp: ScalarImpl,
) -> ScalarFn {
    ScalarFn {
        name,
        min_args,
        max_args,
        deterministic: false,
        imp,
    }
}

static FUNCTIONS: &[ScalarFn] = &[
    f("abs", 1, Some(1), numeric::abs),
    f("acos", 1, Some(1), math::acos),
    f("acosh", 1, Some(1), math::acosh),
    f("asin", 1, Some(1), math::asin),
    f("asinh", 1, Some(1), math::asinh),
    f("atan", 1, Some(1), math::atan),
    f("atan2", 2, Some(2), math::atan2),
    f("atanh", 1, Some(1), math::atanh),
    f("ceil", 1, Some(1), math::ceil),
    f("ceiling", 1, Some(1), math::ceil),
    volatile("changes", 0, Some(0), connection::changes),
    f("char", 0, None, text::char),
    f("coalesce", 2, None, choice::coalesce),
    f("concat", 1, None, text::concat),
    f("concat_ws", 2, None, text::concat_ws),
    f("cos", 1, Some(1), math::cos),
    f("cosh", 1, Some(1), math::cosh),
    volatile("current_date", 0, Some(0), datetime::current_date),
    volatile("current_time", 0, Some(0), datetime::current_time),
    volatile("current_timestamp", 0, Some(0), datetime::current_timestamp),
    volatile("date", 0, None, datetime::date),
    volatile("datetime", 0, None, datetime::datetime),
    f("degrees", 1, Some(1), math::degrees),
    f("exp", 1, Some(1), math::exp),
    f("floor", 1, Some(1), math::floor),
    f("format", 0, None, printf::printf),
    f("glob", 2, Some(2), pattern::glob),
    f("hex", 1, Some(1), text::hex),
    f("ifnull", 2, Some(2), choice::coalesce),
    f("iif", 3, Some(3), choice::iif),
    f("instr", 2, Some(2), text::instr),
    volatile("julianday", 0, None, datetime::julianday),
    volatile(
        "last_insert_rowid",
        0,
        Some(0),
        connection::last_insert_rowid,
    ),
    f("length", 1, Some(1), text::length),
    f("like", 2, Some(3), pattern::like),
    f("likelihood", 2, Some(2), choice::first),
    f("likely", 1, Some(1), choice::first),
    f("ln", 1, Some(1), math::ln),
    f("log", 1, Some(2), math::log),
    f("log10", 1, Some(1), math::log10),
    f("log2", 1, Some(1), math::log2),
    f("lower", 1, Some(1), text::lower),
    f("ltrim", 1, Some(2), text::ltrim),
    f("max", 2, None, choice::max),
    f("min", 2, None, choice::min),
    f("mod", 2, Some(2), math::fmod),
    f("nullif", 2, Some(2), choice::nullif),
    f("octet_length", 1, Some(1), text::octet_length),
    f("pi", 0, Some(0), math::pi),
    f("pow", 2, Some(2), math::pow),
    f("power", 2, Some(2), math::pow),
    f("printf", 0, None, printf::printf),
    f("quote", 1, Some(1), text::quote),
    f("radians", 1, Some(1), math::radians),
    volatile("random", 0, Some(0), numeric::random),
    volatile("randomblob", 1, Some(1), numeric::randomblob),
    f("replace", 3, Some(3), text::replace),
    f("round", 1, Some(2), numeric::round),
    f("rtrim", 1, Some(2), text::rtrim),
    f("sign", 1, Some(1), numeric::sign),
    f("sin", 1, Some(1), math::sin),
    f("sinh", 1, Some(1), math::sinh),
    f("sqlite_version", 0, Some(0), connection::sqlite_version),
    f("sqrt", 1, Some(1), math::sqrt),
    volatile("strftime", 0, None, datetime::strftime),
    f("substr", 2, Some(3), text::substr),
    f("substring", 2, Some(3), text::substr),
    f("tan", 1, Some(1), math::tan),
    f("tanh", 1, Some(1), math::tanh),
    volatile("time", 0, None, datetime::time),
    f("timediff", 2, Some(2), datetime::timediff),
    volatile("total_changes", 0, Some(0), connection::total_changes),
    f("trim", 1, Some(2), text::trim),
    f("trunc", 1, Some(1), math::trunc),
    f("typeof", 1, Some(1), choice::type_of),
    f("unhex", 1, Some(2), text::unhex),
    f("unicode", 1, Some(1), text::unicode),
    volatile("unixepoch", 0, None, datetime::unixepoch),
    f("unlikely", 1, Some(1), choice::first),
    f("upper", 1, Some(1), text::upper),
    f("zeroblob", 1, Some(1), numeric::zeroblob),
];

/// Looks a scalar function up by name (any case).
pub(crate) fn scalar(name: &str) -> Option<&'static ScalarFn> {
    let lower = name.to_ascii_lowercase();
    FUNCTIONS.iter().find(|f| f.name == lower)
}

pub(crate) use pattern::{glob_values, like_values, literal_prefix, TextPattern};

/// SQLite's `sqlite3_value_int`: the integer view truncated to 32 bits, as
/// SQLite's C code reads some arguments (substr positions, round digits).
fn arg_i32(v: &Value) -> i64 {
    i64::from(v.to_i64() as i32)
}

/// SQLite's `sqlite3_value_text` as bytes: `None` for NULL, numbers rendered.
fn arg_text(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Null => None,
        Value::Text(s) => Some(s.as_bytes().to_vec()),
        Value::Blob(b) => Some(b.clone()),
        other => other.to_text().map(String::into_bytes),
    }
}

/// The part of `s` before its first NUL: what SQLite's C code sees when it
/// reads a text argument as a NUL-terminated string (printf, quote,
/// length, substr, trim's set, unhex, unicode).
fn c_str(s: &str) -> &str {
    s.split('\0').next().unwrap_or_default()
}

/// [`c_str`] for bytes.
fn c_bytes(b: &[u8]) -> &[u8] {
    b.split(|&c| c == 0).next().unwrap_or_default()
}

/// Text result from bytes built by byte-level SQLite algorithms.
fn text_result(bytes: Vec<u8>) -> Value {
    match String::from_utf8(bytes) {
        Ok(s) => Value::Text(s),
        Err(e) => Value::text_from_bytes(e.as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_case_insensitive_and_checks_arity() {
        let substr = scalar("SUBSTR").unwrap();
        assert!(substr.check_arity(2).is_ok());
        let err = substr.check_arity(1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "wrong number of arguments to function substr()"
        );
        assert!(scalar("no_such_function").is_none());
        assert!(!scalar("random").unwrap().is_deterministic());
    }

    #[test]
    fn the_table_is_sorted_and_unique() {
        for w in FUNCTIONS.windows(2) {
            assert!(w[0].name < w[1].name, "{} before {}", w[0].name, w[1].name);
        }
    }
}
