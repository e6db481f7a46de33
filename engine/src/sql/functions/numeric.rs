//! Numeric and generated-value functions: abs, round, sign, random,
//! randomblob, zeroblob.

use std::cell::Cell;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use super::{arg_i32, check_length};
use crate::sql::value::{parse_real, Collation, RealSyntax, Value};
use crate::Result;

pub(super) fn abs(args: &[Value], _: Collation) -> Result<Value> {
    Ok(match &args[0] {
        Value::Null => Value::Null,
        Value::Integer(i) => Value::Integer(
            i.checked_abs()
                .ok_or_else(|| crate::sql_err!("integer overflow"))?,
        ),
        other => {
            // Not f64::abs: SQLite negates only values below zero, so -0.0 stays.
            let r = other.to_f64();
            Value::Real(if r < 0.0 { -r } else { r })
        }
    })
}

/// `round(x[, n])`: SQLite rounds half away from zero for n = 0 with
/// `(i64)(x ± 0.5)`, and otherwise prints `%.nf` and reads it back.
pub(super) fn round(args: &[Value], _: Collation) -> Result<Value> {
    let mut n = 0;
    if let Some(digits) = args.get(1) {
        if digits.is_null() {
            return Ok(Value::Null);
        }
        n = arg_i32(digits).clamp(0, 30) as i32;
    }
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    let r = args[0].to_f64();
    Ok(Value::Real(round_real(r, n)))
}

fn round_real(r: f64, n: i32) -> f64 {
    if !(-4_503_599_627_370_496.0..=4_503_599_627_370_496.0).contains(&r) {
        return r; // no fractional part (or not finite)
    }
    if n == 0 {
        return ((r + if r < 0.0 { -0.5 } else { 0.5 }) as i64) as f64;
    }
    parse_real(&fixed_point(r, n)).0
}

/// `printf("%!.*f", n, r)`.
fn fixed_point(r: f64, n: i32) -> Vec<u8> {
    let flags = super::printf::Flags {
        alt2: true,
        ..Default::default()
    };
    super::printf::format_real(r, b'f', i64::from(n), flags, 0)
}

/// `sign(x)`: -1, 0 or 1 for numbers and numeric text, else NULL.
pub(super) fn sign(args: &[Value], _: Collation) -> Result<Value> {
    let x = match &args[0] {
        Value::Integer(i) => *i as f64,
        Value::Real(r) => *r,
        Value::Text(s) => match parse_real(s.as_bytes()) {
            (r, RealSyntax::Integer | RealSyntax::Fractional) => r,
            _ => return Ok(Value::Null),
        },
        _ => return Ok(Value::Null),
    };
    Ok(Value::Integer(if x < 0.0 {
        -1
    } else if x > 0.0 {
        1
    } else {
        0
    }))
}

thread_local! {
    static RANDOM_STATE: Cell<u64> = Cell::new(seed());
}

/// A per-thread seed from the standard library's hash randomisation (no
/// OS dependency, so it works on wasm32 too, where it may be fixed).
fn seed() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_usize(&h as *const _ as usize);
    h.finish() | 1
}

/// xorshift64*: fast, not cryptographic (neither is SQLite's random()).
fn next_random() -> u64 {
    RANDOM_STATE.with(|state| {
        let mut x = state.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        state.set(x);
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    })
}

/// `random()`: a random i64 (never i64::MIN, as in SQLite).
pub(super) fn random(_: &[Value], _: Collation) -> Result<Value> {
    let r = next_random() as i64;
    Ok(Value::Integer(if r < 0 { -(r & i64::MAX) } else { r }))
}

fn blob_len(v: &Value) -> Result<usize> {
    let n = v.to_i64().max(0);
    check_length(usize::try_from(n).unwrap_or(usize::MAX))?;
    Ok(n as usize)
}

/// `randomblob(n)`: n random bytes (at least 1).
pub(super) fn randomblob(args: &[Value], _: Collation) -> Result<Value> {
    let n = blob_len(&args[0])?.max(1);
    let mut bytes = Vec::with_capacity(n + 8);
    while bytes.len() < n {
        bytes.extend_from_slice(&next_random().to_le_bytes());
    }
    bytes.truncate(n);
    Ok(Value::Blob(bytes))
}

/// `zeroblob(n)`: n zero bytes (negative n is 0).
pub(super) fn zeroblob(args: &[Value], _: Collation) -> Result<Value> {
    Ok(Value::Blob(vec![0; blob_len(&args[0])?]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_follows_sqlite() {
        assert_eq!(round_real(2.5, 0), 3.0);
        assert_eq!(round_real(-2.5, 0), -3.0);
        assert_eq!(round_real(1.005, 2), 1.0);
        assert_eq!(round_real(1.235, 2), 1.24);
    }

    #[test]
    fn random_never_returns_min() {
        for _ in 0..1000 {
            assert_ne!(
                random(&[], Collation::Binary).unwrap(),
                Value::Integer(i64::MIN)
            );
        }
        assert_eq!(
            randomblob(&[Value::Integer(0)], Collation::Binary)
                .unwrap()
                .to_bytes()
                .unwrap()
                .len(),
            1
        );
    }
}
