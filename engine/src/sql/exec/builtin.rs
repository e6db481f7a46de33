//! The executor's bridge to the scalar function library
//! ([`crate::sql::functions`]): arity checks at bind time
//! ([`check_function`]), calls at run time ([`call`]), and LIKE/GLOB as
//! operators ([`pattern_match`]). The truth tests `x IS [NOT] TRUE` are
//! bound as the internal functions `$is_true` / `$is_not_true`, evaluated
//! in `eval`.

use super::ExecCtx;
use crate::sql::functions;
use crate::sql::value::{Collation, Value};
use crate::{sql_err, Result};

/// Errors unless `name` is a scalar function taking `nargs` arguments.
pub(crate) fn check_function(name: &str, nargs: usize) -> Result<()> {
    if name == "$is_true" || name == "$is_not_true" {
        return Ok(());
    }
    match functions::scalar(name) {
        None => Err(sql_err!("no such function: {name}")),
        Some(f) => f.check_arity(nargs),
    }
}

/// Calls scalar function `name` on evaluated arguments.
pub(crate) fn call(_ctx: &ExecCtx, name: &str, args: &[Value]) -> Result<Value> {
    match functions::scalar(name) {
        Some(f) => f.call(args, Collation::Binary),
        None => Err(sql_err!("no such function: {name}")),
    }
}

/// `x LIKE pattern [ESCAPE e]` or `x GLOB pattern`; `None` for NULL.
pub(crate) fn pattern_match(
    glob: bool,
    pattern: &Value,
    x: &Value,
    escape: Option<&Value>,
) -> Result<Option<bool>> {
    let mut args = vec![pattern.clone(), x.clone()];
    if let Some(e) = escape {
        args.push(e.clone());
    }
    let r = if glob {
        call_named("glob", &args)?
    } else {
        call_named("like", &args)?
    };
    Ok(r.is_true())
}

fn call_named(name: &str, args: &[Value]) -> Result<Value> {
    functions::scalar(name)
        .ok_or_else(|| sql_err!("no such function: {name}"))?
        .call(args, Collation::Binary)
}
