//! The executor's bridge to the scalar function library
//! ([`crate::sql::functions`]): a call's function resolved once, when it is
//! bound ([`Callee::resolve`], with its arity check), and LIKE/GLOB as
//! operators ([`pattern_match`]). The truth tests `x IS [NOT] TRUE` are
//! bound as calls of [`Callee::IsTrue`], evaluated in `eval`.

use crate::sql::functions::json::{self, JsonFn};
use crate::sql::functions::{self, ScalarFn};
use crate::sql::value::Value;
use crate::{sql_err, Result};

/// What a bound function call runs: resolved from its name when the call
/// is bound, so that evaluating it looks nothing up.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Callee {
    /// `coalesce` / `ifnull`: arguments evaluated lazily, up to the first
    /// that is not NULL.
    Coalesce,
    /// `iif(c, a, b)`: only the branch taken is evaluated.
    Iif,
    /// `x IS TRUE` (true) or `x IS NOT TRUE` (false), as the binder
    /// writes those tests.
    IsTrue(bool),
    /// Any other scalar function, its arguments evaluated first.
    Scalar(&'static ScalarFn),
    /// A JSON function (or `->`, `->>`), which sees whether each argument
    /// carries SQLite's JSON subtype: an argument that is itself a JSON
    /// function's call carries it when that call's result does, and one
    /// whose bit is set in `json_args` (a `json_group_array` or
    /// `json_group_object` aggregate or window value) always does.
    Json { f: &'static JsonFn, json_args: u32 },
}

impl Callee {
    /// The function `name` (lower case) called with `nargs` arguments;
    /// errors as SQLite does for an unknown name or a wrong count.
    pub(crate) fn resolve(name: &str, nargs: usize) -> Result<Callee> {
        if let Some(f) = json::lookup(name) {
            f.check_arity(nargs)?;
            return Ok(Callee::Json { f, json_args: 0 });
        }
        let Some(f) = functions::scalar(name) else {
            return Err(sql_err!("no such function: {name}"));
        };
        f.check_arity(nargs)?;
        Ok(match name {
            "coalesce" | "ifnull" => Callee::Coalesce,
            "iif" => Callee::Iif,
            _ => Callee::Scalar(f),
        })
    }
}

/// `x LIKE pattern [ESCAPE e]` or `x GLOB pattern`; `None` for NULL.
pub(crate) fn pattern_match(
    glob: bool,
    pattern: &Value,
    x: &Value,
    escape: Option<&Value>,
) -> Result<Option<bool>> {
    let r = match glob {
        true => functions::glob_values(pattern, x),
        false => functions::like_values(pattern, x, escape),
    }?;
    Ok(r.is_true())
}
