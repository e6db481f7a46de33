//! SQLite's optional math functions (SQLITE_ENABLE_MATH_FUNCTIONS, on in
//! the official CLI and WASM builds): ceil/ceiling, floor, trunc, ln, log,
//! log10, log2, exp, pow/power, mod, sqrt, the trigonometric and hyperbolic
//! functions, radians, degrees, pi. Transcribed from func.c.
//!
//! Arguments must be numbers or numeric text (else NULL); results are reals
//! (NaN becomes NULL), except that ceil/floor/trunc return an integer
//! argument unchanged. Not covered by the differential tests: the bundled
//! oracle SQLite is built without these functions. The transcendental
//! functions use Rust's `f64` methods, which can differ from the C
//! library's in the last bit on some targets.

use crate::sql::value::{numeric_affinity, Collation, Value};
use crate::Result;

/// SQLite's `sqlite3_value_numeric_type` + `sqlite3_value_double`: the
/// argument as a number (integer flag, value), or `None` for NULL, blobs
/// and text that is not entirely a number.
fn number(v: &Value) -> Option<(bool, f64)> {
    match numeric_affinity(v.clone(), false) {
        Value::Integer(i) => Some((true, i as f64)),
        Value::Real(r) => Some((false, r)),
        _ => None,
    }
}

fn unary(args: &[Value], f: fn(f64) -> f64) -> Result<Value> {
    Ok(number(&args[0]).map_or(Value::Null, |(_, x)| Value::real(f(x))))
}

fn binary(args: &[Value], f: fn(f64, f64) -> f64) -> Result<Value> {
    Ok(match (number(&args[0]), number(&args[1])) {
        (Some((_, x)), Some((_, y))) => Value::real(f(x, y)),
        _ => Value::Null,
    })
}

/// ceil/floor/trunc: integers pass through unchanged.
fn rounding(args: &[Value], f: fn(f64) -> f64) -> Result<Value> {
    Ok(match numeric_affinity(args[0].clone(), false) {
        Value::Integer(i) => Value::Integer(i),
        Value::Real(r) => Value::real(f(r)),
        _ => Value::Null,
    })
}

pub(super) fn ceil(args: &[Value], _: Collation) -> Result<Value> {
    rounding(args, f64::ceil)
}

pub(super) fn floor(args: &[Value], _: Collation) -> Result<Value> {
    rounding(args, f64::floor)
}

pub(super) fn trunc(args: &[Value], _: Collation) -> Result<Value> {
    rounding(args, f64::trunc)
}

/// `log(x)` is base 10, `log(b, x)` base b; `ln` natural. Non-positive
/// arguments (and bases ≤ 1) give NULL.
fn log_impl(args: &[Value], single: fn(f64) -> f64) -> Result<Value> {
    let Some((_, x)) = number(&args[0]) else {
        return Ok(Value::Null);
    };
    if x <= 0.0 {
        return Ok(Value::Null);
    }
    if args.len() == 2 {
        let base = x.ln();
        if base <= 0.0 {
            return Ok(Value::Null);
        }
        // SQLite does not type-check the second argument (value_double).
        let y = args[1].to_f64();
        if y <= 0.0 {
            return Ok(Value::Null);
        }
        return Ok(Value::real(y.ln() / base));
    }
    Ok(Value::real(single(x)))
}

pub(super) fn ln(args: &[Value], _: Collation) -> Result<Value> {
    log_impl(args, f64::ln)
}

pub(super) fn log(args: &[Value], _: Collation) -> Result<Value> {
    log_impl(args, f64::log10)
}

pub(super) fn log10(args: &[Value], _: Collation) -> Result<Value> {
    log_impl(args, f64::log10)
}

pub(super) fn log2(args: &[Value], _: Collation) -> Result<Value> {
    log_impl(args, f64::log2)
}

pub(super) fn exp(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::exp)
}

pub(super) fn sqrt(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::sqrt)
}

pub(super) fn pow(args: &[Value], _: Collation) -> Result<Value> {
    binary(args, f64::powf)
}

/// `mod(x, y)`: C's fmod (the sign of x), NULL when y is 0.
pub(super) fn fmod(args: &[Value], _: Collation) -> Result<Value> {
    binary(args, |x, y| x % y)
}

pub(super) fn acos(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::acos)
}

pub(super) fn asin(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::asin)
}

pub(super) fn atan(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::atan)
}

pub(super) fn atan2(args: &[Value], _: Collation) -> Result<Value> {
    binary(args, f64::atan2)
}

pub(super) fn cos(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::cos)
}

pub(super) fn sin(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::sin)
}

pub(super) fn tan(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::tan)
}

pub(super) fn cosh(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::cosh)
}

pub(super) fn sinh(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::sinh)
}

pub(super) fn tanh(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::tanh)
}

pub(super) fn acosh(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::acosh)
}

pub(super) fn asinh(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::asinh)
}

pub(super) fn atanh(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, f64::atanh)
}

pub(super) fn radians(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, |x| x * (std::f64::consts::PI / 180.0))
}

pub(super) fn degrees(args: &[Value], _: Collation) -> Result<Value> {
    unary(args, |x| x * (180.0 / std::f64::consts::PI))
}

pub(super) fn pi(_: &[Value], _: Collation) -> Result<Value> {
    Ok(Value::Real(std::f64::consts::PI))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: fn(&[Value], Collation) -> Result<Value>, args: &[Value]) -> Value {
        f(args, Collation::Binary).unwrap()
    }

    #[test]
    fn follows_sqlite() {
        use Value::*;
        assert_eq!(call(ceil, &[Integer(5)]), Integer(5));
        assert_eq!(call(ceil, &[Real(1.2)]), Real(2.0));
        assert_eq!(call(floor, &[Text("-1.5".into())]), Real(-2.0));
        assert_eq!(call(floor, &[Text("abc".into())]), Null);
        assert_eq!(call(trunc, &[Real(-1.7)]), Real(-1.0));
        assert_eq!(call(log, &[Integer(100)]), Real(2.0));
        assert_eq!(call(log, &[Integer(2), Integer(8)]), Real(3.0));
        assert_eq!(call(ln, &[Integer(0)]), Null);
        assert_eq!(call(sqrt, &[Integer(-1)]), Null);
        assert_eq!(call(pow, &[Integer(2), Integer(10)]), Real(1024.0));
        assert_eq!(call(fmod, &[Integer(-7), Integer(3)]), Real(-1.0));
        assert_eq!(call(fmod, &[Integer(7), Integer(0)]), Null);
        assert_eq!(call(degrees, &[Real(std::f64::consts::PI)]), Real(180.0));
        assert_eq!(call(exp, &[Blob(vec![1])]), Null);
    }
}
