//! Text → number conversion, exactly as SQLite does it (`sqlite3AtoF`,
//! `sqlite3Atoi64` in util.c), and the derived conversions every operator
//! uses: a value's integer view, real view and "numeric type".
//!
//! Why not `str::parse`? SQLite accepts leading/trailing ASCII whitespace,
//! ignores digits past the 19th, converts a *prefix* (`'12abc' + 1` is 13),
//! reports how much of the text was a number (which decides INTEGER vs REAL
//! vs "stays TEXT"), and rounds decimal → binary in `long double`
//! ([`super::extended`]); each of those decides an observable result.

use super::extended::{
    Extended, DOUBLE_MAX, TEN_POW_1, TEN_POW_10, TEN_POW_100, TEN_POW_MINUS_1, TEN_POW_MINUS_10,
    TEN_POW_MINUS_100,
};
use super::Value;

/// How much of a text `parse_real` recognised (SQLite's `sqlite3AtoF` result).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RealSyntax {
    /// The whole text (modulo surrounding whitespace) is an integer literal.
    Integer,
    /// The whole text is a number with a decimal point and/or exponent.
    Fractional,
    /// Only a prefix is a number, and that prefix has a `.` or exponent.
    FractionalPrefix,
    /// Not a number; the value is whatever integer-looking prefix there was.
    NotNumber,
}

/// How `parse_int` went (SQLite's `sqlite3Atoi64` result codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntSyntax {
    /// Every non-space byte was part of an in-range integer.
    Exact,
    /// An in-range integer followed by other text.
    Trailing,
    /// No digits at all (the value is 0).
    Empty,
    /// Out of range; the value saturated.
    Overflow,
}

/// SQLite's `sqlite3Isspace`: space, \t, \n, \v, \f, \r.
pub(crate) fn is_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// `sqlite3AtoF`: parses the longest numeric prefix of `z`.
pub(crate) fn parse_real(z: &[u8]) -> (f64, RealSyntax) {
    const SIGNIFICAND_LIMIT: u64 = (u64::MAX - 9) / 10;
    let end = z.len();
    let mut i = 0;
    while i < end && is_space(z[i]) {
        i += 1;
    }
    if i >= end {
        return (0.0, RealSyntax::NotNumber);
    }
    let mut negative = false;
    if z[i] == b'-' {
        negative = true;
        i += 1;
    } else if z[i] == b'+' {
        i += 1;
    }
    let mut s: u64 = 0;
    let mut d: i32 = 0;
    let mut digits = 0;
    let mut fractional = 0; // 1 per '.' and per exponent marker (SQLite's eType - 1)
    let mut exponent_valid = true;
    let mut e: i32 = 0;
    let mut e_negative = false;
    while i < end && z[i].is_ascii_digit() {
        s = s * 10 + u64::from(z[i] - b'0');
        i += 1;
        digits += 1;
        if s >= SIGNIFICAND_LIMIT {
            while i < end && z[i].is_ascii_digit() {
                i += 1;
                d += 1;
            }
        }
    }
    if i < end && z[i] == b'.' {
        i += 1;
        fractional += 1;
        while i < end && z[i].is_ascii_digit() {
            if s < SIGNIFICAND_LIMIT {
                s = s * 10 + u64::from(z[i] - b'0');
                d -= 1;
                digits += 1;
            }
            i += 1;
        }
    }
    if i < end && (z[i] == b'e' || z[i] == b'E') {
        i += 1;
        exponent_valid = false;
        fractional += 1;
        if i < end {
            if z[i] == b'-' {
                e_negative = true;
                i += 1;
            } else if z[i] == b'+' {
                i += 1;
            }
            while i < end && z[i].is_ascii_digit() {
                e = if e < 10000 {
                    e * 10 + i32::from(z[i] - b'0')
                } else {
                    10000
                };
                i += 1;
                exponent_valid = true;
            }
        }
    }
    while i < end && is_space(z[i]) {
        i += 1;
    }
    let magnitude = if s == 0 {
        0.0
    } else {
        scale_decimal(s, if e_negative { -e } else { e } + d)
    };
    let value = if negative { -magnitude } else { magnitude };
    let syntax = if i == end && digits > 0 && exponent_valid {
        if fractional == 0 {
            RealSyntax::Integer
        } else {
            RealSyntax::Fractional
        }
    } else if fractional >= 1 && (fractional == 2 || exponent_valid) && digits > 0 {
        RealSyntax::FractionalPrefix
    } else {
        RealSyntax::NotNumber
    };
    (value, syntax)
}

/// `s × 10^e` the way SQLite computes it with `long double`.
fn scale_decimal(mut s: u64, mut e: i32) -> f64 {
    while e > 0 && s < u64::MAX / 10 {
        s *= 10;
        e -= 1;
    }
    while e < 0 && s.is_multiple_of(10) {
        s /= 10;
        e += 1;
    }
    if e == 0 {
        return s as f64;
    }
    let mut r = Extended::from_u64(s);
    if e > 0 {
        while e >= 100 {
            e -= 100;
            r = r.mul(TEN_POW_100);
        }
        while e >= 10 {
            e -= 10;
            r = r.mul(TEN_POW_10);
        }
        while e >= 1 {
            e -= 1;
            r = r.mul(TEN_POW_1);
        }
    } else {
        while e <= -100 {
            e += 100;
            r = r.mul(TEN_POW_MINUS_100);
        }
        while e <= -10 {
            e += 10;
            r = r.mul(TEN_POW_MINUS_10);
        }
        while e <= -1 {
            e += 1;
            r = r.mul(TEN_POW_MINUS_1);
        }
    }
    if r > DOUBLE_MAX {
        f64::INFINITY
    } else {
        r.to_f64()
    }
}

/// `sqlite3Atoi64`: parses an optionally signed decimal integer after
/// optional whitespace; saturates on overflow.
pub(crate) fn parse_int(z: &[u8]) -> (i64, IntSyntax) {
    let end = z.len();
    let mut i = 0;
    while i < end && is_space(z[i]) {
        i += 1;
    }
    let mut negative = false;
    if i < end {
        if z[i] == b'-' {
            negative = true;
            i += 1;
        } else if z[i] == b'+' {
            i += 1;
        }
    }
    let start = i;
    while i < end && z[i] == b'0' {
        i += 1;
    }
    let digits_start = i;
    let mut u: u64 = 0;
    while i < end && z[i].is_ascii_digit() {
        u = u.wrapping_mul(10).wrapping_add(u64::from(z[i] - b'0'));
        i += 1;
    }
    let n_digits = i - digits_start;
    let mut value = if u > i64::MAX as u64 {
        if negative {
            i64::MIN
        } else {
            i64::MAX
        }
    } else if negative {
        -(u as i64)
    } else {
        u as i64
    };
    let mut syntax = if n_digits == 0 && start == digits_start {
        IntSyntax::Empty
    } else if z[i..].iter().any(|&b| !is_space(b)) {
        IntSyntax::Trailing
    } else {
        IntSyntax::Exact
    };
    if n_digits >= 19 {
        // Compare the digits against 9223372036854775808 (2^63).
        let ordering = if n_digits > 19 {
            std::cmp::Ordering::Greater
        } else {
            z[digits_start..i].cmp(b"9223372036854775808".as_slice())
        };
        if ordering != std::cmp::Ordering::Less {
            value = if negative { i64::MIN } else { i64::MAX };
            if ordering == std::cmp::Ordering::Greater || !negative {
                syntax = IntSyntax::Overflow;
            }
        }
    }
    (value, syntax)
}

/// The number a value stands for in arithmetic (SQLite's `numericType`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Number {
    Integer(i64),
    Real(f64),
}

/// Text or blob bytes as a number, by SQLite's prefix rules
/// (`computeNumericType`): `'12abc'` → 12, `'abc'` → 0, `'1.5e2x'` → 150.0.
pub(crate) fn bytes_to_number(z: &[u8]) -> Number {
    let (r, syntax) = parse_real(z);
    match syntax {
        RealSyntax::NotNumber => match parse_int(z) {
            (i, IntSyntax::Exact | IntSyntax::Trailing | IntSyntax::Empty) => Number::Integer(i),
            (_, IntSyntax::Overflow) => Number::Real(r),
        },
        RealSyntax::FractionalPrefix | RealSyntax::Fractional => Number::Real(r),
        RealSyntax::Integer => match parse_int(z) {
            (i, IntSyntax::Exact) => Number::Integer(i),
            _ => Number::Real(r),
        },
    }
}

/// `sqlite3RealToI64`: truncation toward zero, saturating.
pub(crate) fn real_to_i64(r: f64) -> i64 {
    if r < -9_223_372_036_854_774_784.0 {
        i64::MIN
    } else if r > 9_223_372_036_854_774_784.0 {
        i64::MAX
    } else {
        r as i64
    }
}

/// `sqlite3RealSameAsInt`: `r` is exactly `i` and small enough that the
/// integer form loses nothing (|i| < 2^51), or `r` is ±0.
pub(crate) fn real_same_as_int(r: f64, i: i64) -> bool {
    r == 0.0
        || (r.to_bits() == (i as f64).to_bits()
            && (-2_251_799_813_685_248..2_251_799_813_685_248).contains(&i))
}

/// `sqlite3VdbeIntegerAffinity`: a real that is exactly an integer strictly
/// inside the i64 range becomes that integer.
pub(crate) fn real_as_exact_int(r: f64) -> Option<i64> {
    let i = real_to_i64(r);
    (r == i as f64 && i > i64::MIN && i < i64::MAX).then_some(i)
}

impl Value {
    /// The number this value stands for in arithmetic; `None` for NULL.
    pub(crate) fn to_number(&self) -> Option<Number> {
        match self {
            Value::Null => None,
            Value::Integer(i) => Some(Number::Integer(*i)),
            Value::Real(r) => Some(Number::Real(*r)),
            Value::Text(s) => Some(bytes_to_number(s.as_bytes())),
            Value::Blob(b) => Some(bytes_to_number(b)),
        }
    }

    /// SQLite's `sqlite3VdbeIntValue`: reals truncate, text/blob parse an
    /// integer prefix, NULL is 0.
    pub fn to_i64(&self) -> i64 {
        match self {
            Value::Null => 0,
            Value::Integer(i) => *i,
            Value::Real(r) => real_to_i64(*r),
            Value::Text(s) => parse_int(s.as_bytes()).0,
            Value::Blob(b) => parse_int(b).0,
        }
    }

    /// SQLite's `sqlite3VdbeRealValue`: text/blob parse a real prefix, NULL is 0.0.
    pub fn to_f64(&self) -> f64 {
        match self {
            Value::Null => 0.0,
            Value::Integer(i) => *i as f64,
            Value::Real(r) => *r,
            Value::Text(s) => parse_real(s.as_bytes()).0,
            Value::Blob(b) => parse_real(b).0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_follow_sqlite() {
        assert_eq!(bytes_to_number(b"12abc"), Number::Integer(12));
        assert_eq!(bytes_to_number(b"abc"), Number::Integer(0));
        assert_eq!(bytes_to_number(b"1.5e2x"), Number::Real(150.0));
        assert_eq!(bytes_to_number(b" 12 "), Number::Integer(12));
        assert_eq!(bytes_to_number(b"1e3"), Number::Real(1000.0));
        assert_eq!(
            bytes_to_number(b"9223372036854775808"),
            Number::Real(9.223372036854776e18)
        );
        assert_eq!(
            bytes_to_number(b"-9223372036854775808"),
            Number::Integer(i64::MIN)
        );
        assert_eq!(parse_real(b"1e").1, RealSyntax::NotNumber);
        assert_eq!(parse_real(b"1.5e").1, RealSyntax::FractionalPrefix);
        assert_eq!(parse_real(b"0x10").1, RealSyntax::NotNumber);
    }

    #[test]
    fn decimal_scaling_matches_common_literals() {
        for text in [
            "0.1",
            "3.14159",
            "1e308",
            "2.5e-300",
            "123456789.123456789",
            "1e-320",
        ] {
            let expected: f64 = text.parse().unwrap_or_default();
            assert_eq!(parse_real(text.as_bytes()).0, expected, "{text}");
        }
        assert_eq!(parse_real(b"1e309").0, f64::INFINITY);
    }
}
