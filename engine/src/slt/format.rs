//! Rendering one result value as the text a sqllogictest file expects.
//!
//! The rendering depends on the record's type letter, not on the value's own
//! type, because the reference harness (`slt_sqlite.c`) asks SQLite for
//! `sqlite3_column_int`, `sqlite3_column_double` or `sqlite3_column_text`
//! according to the letter and prints that with SQLite's own `printf`:
//!
//! | value   | `I` (`%d` of a C `int`)     | `R` (`%.3f`)          | `T`                        |
//! |---------|-----------------------------|-----------------------|----------------------------|
//! | NULL    | `NULL`                      | `NULL`                | `NULL`                     |
//! | integer | the integer                 | as a double           | decimal                    |
//! | real    | truncated, saturating       | the real              | `%!.15g` (`1.0`, `1.0e+20`) |
//! | text    | leading integer prefix      | leading number prefix | the text, `(empty)`, `@`   |
//!
//! Conversions reproduce SQLite 3.46 exactly where the corpus can observe
//! them: `%.3f` first rounds to at most 16 significant digits and then
//! rounds half up at the third decimal (`-0.0625` → `-0.063`, `2^63` →
//! `9223372036854776000.000`); `-0.0` prints `0.000`, while a negative value
//! that rounds to zero keeps its sign (`-0.0001` → `-0.000`), as SQLite's
//! `printf` does. An `I` value goes through a 32-bit C `int` (wrapping), as
//! `sqlite3_column_int` does.
//!
//! Simplifications and their cost:
//! - SQLite computes the decimal digits of a double with extended-precision
//!   arithmetic that is not exact beyond ~18 digits; we use the exact
//!   expansion (Rust's formatter). The two can only differ when digits 17
//!   to 26 of a value sit exactly on a rounding boundary (the differential
//!   test against SQLite's `printf` checks 20,000 awkward doubles).
//! - Text in an `R` column is converted to the correctly rounded double.
//!   SQLite 3.46 scales by powers of ten in x87 `long double`, which can
//!   land one ULP away when the text has a large exponent (`'83e25'`), and
//!   `%.3f` may then show a different 16th digit. The corpus never renders
//!   such a text in an `R` column; the differential test covers the rest.

use super::engine::SltValue;
use super::parse::ColumnType;

/// Renders `value` for a column declared with `column`'s letter.
pub fn render(value: &SltValue, column: ColumnType) -> String {
    if let SltValue::Null = value {
        return "NULL".to_string();
    }
    match column {
        ColumnType::Integer => column_int(value).to_string(),
        ColumnType::Real => format_fixed3(column_double(value)),
        ColumnType::Text => printable_text(&column_text(value)),
    }
}

/// `sqlite3_column_int`: the value as a 64-bit integer, then truncated to a
/// C `int` (the harness prints an `int`).
fn column_int(value: &SltValue) -> i32 {
    let wide = match value {
        SltValue::Null => 0,
        SltValue::Integer(i) => *i,
        // `as` saturates at the 64-bit limits like SQLite's doubleToInt64.
        SltValue::Real(r) => *r as i64,
        SltValue::Text(t) => integer_prefix(t.as_bytes()),
        SltValue::Blob(b) => integer_prefix(b),
    };
    // Truncation to 32 bits is the harness's behaviour, not an accident.
    wide as i32
}

/// `sqlite3_column_double`.
fn column_double(value: &SltValue) -> f64 {
    match value {
        SltValue::Null => 0.0,
        SltValue::Integer(i) => *i as f64,
        SltValue::Real(r) => *r,
        SltValue::Text(t) => real_prefix(t.as_bytes()),
        SltValue::Blob(b) => real_prefix(b),
    }
}

/// `sqlite3_column_text` as the harness sees it: a C string, so it ends at
/// the first NUL byte.
fn column_text(value: &SltValue) -> Vec<u8> {
    let bytes = match value {
        SltValue::Null => Vec::new(),
        SltValue::Integer(i) => i.to_string().into_bytes(),
        SltValue::Real(r) => format_real_as_text(*r).into_bytes(),
        SltValue::Text(t) => t.as_bytes().to_vec(),
        SltValue::Blob(b) => b.clone(),
    };
    match bytes.iter().position(|&b| b == 0) {
        Some(nul) => bytes[..nul].to_vec(),
        None => bytes,
    }
}

/// `(empty)` for the empty string; every byte outside `0x20..=0x7E` becomes
/// `@` (byte by byte, so a two-byte UTF-8 character gives `@@`).
fn printable_text(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "(empty)".to_string();
    }
    bytes
        .iter()
        .map(|&b| {
            if (0x20..=0x7e).contains(&b) {
                b as char
            } else {
                '@'
            }
        })
        .collect()
}

/// SQLite's `sqlite3Isspace`.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `sqlite3Atoi64` as used by `sqlite3_column_int` on text: leading spaces,
/// an optional sign, then as many digits as there are; anything else ends
/// the number. Out-of-range values saturate.
fn integer_prefix(bytes: &[u8]) -> i64 {
    let mut i = bytes.iter().take_while(|&&b| is_space(b)).count();
    let negative = bytes.get(i) == Some(&b'-');
    if matches!(bytes.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    // Accumulate the magnitude as a negative number so i64::MIN fits.
    let mut value: i64 = 0;
    for &b in bytes[i..].iter().take_while(|b| b.is_ascii_digit()) {
        let digit = i64::from(b - b'0');
        value = match value.checked_mul(10).and_then(|v| v.checked_sub(digit)) {
            Some(v) => v,
            None => return if negative { i64::MIN } else { i64::MAX },
        };
    }
    if negative {
        value
    } else {
        value.checked_neg().unwrap_or(i64::MAX)
    }
}

/// `sqlite3AtoF` on a prefix: leading spaces, sign, digits, an optional
/// fraction and an optional exponent (only if digits follow the `e`).
/// Text with no leading number is 0.0.
fn real_prefix(bytes: &[u8]) -> f64 {
    let start = bytes.iter().take_while(|&&b| is_space(b)).count();
    let rest = &bytes[start..];
    let mut end = usize::from(matches!(rest.first(), Some(b'-' | b'+')));
    let digits = |from: usize| {
        rest[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let whole = digits(end);
    end += whole;
    let mut fraction = 0;
    if rest.get(end) == Some(&b'.') {
        fraction = digits(end + 1);
        end += 1 + fraction;
    }
    if whole + fraction == 0 {
        return 0.0;
    }
    let mut number = String::from_utf8_lossy(&rest[..end]).into_owned();
    if matches!(rest.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(rest.get(end + 1), Some(b'-' | b'+')));
        let exponent = digits(end + 1 + sign);
        if exponent > 0 {
            number.push_str(&String::from_utf8_lossy(
                &rest[end..end + 1 + sign + exponent],
            ));
        }
    }
    // Rust's parser wants a digit before a trailing '.', e.g. "5." is fine,
    // "." alone was excluded above; "+.5" and "-.5" parse as well.
    number.parse::<f64>().unwrap_or(0.0)
}

/// The decimal digits of a positive finite double: `0.d1d2d3... × 10^point`.
#[derive(Debug, PartialEq)]
struct Decimal {
    digits: Vec<u8>,
    point: i32,
}

/// Digits taken from the exact expansion before SQLite-style rounding: more
/// than SQLite's 16 so the digit after the rounding position is exact.
const DECODE_DIGITS: usize = 26;

impl Decimal {
    fn of(value: f64) -> Decimal {
        let text = format!("{:.*e}", DECODE_DIGITS - 1, value);
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let digits = mantissa.bytes().filter(u8::is_ascii_digit).collect();
        let exponent: i32 = exponent.parse().unwrap_or(0);
        Decimal {
            digits,
            point: exponent + 1,
        }
    }

    /// Keeps `keep` (≥ 1) significant digits, rounding half up on the digit
    /// string as SQLite's `sqlite3FpDecode` does.
    fn round_half_up(&mut self, keep: usize) {
        if self.digits.len() <= keep {
            return;
        }
        let round_up = self.digits[keep] >= b'5';
        self.digits.truncate(keep);
        if !round_up {
            return;
        }
        for d in self.digits.iter_mut().rev() {
            if *d == b'9' {
                *d = b'0';
            } else {
                *d += 1;
                return;
            }
        }
        // All nines: 0.999 → 1.000 one decimal place up.
        self.digits.insert(0, b'1');
        self.digits.truncate(keep);
        self.point += 1;
    }

    fn digit(&self, index: i32) -> char {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.digits.get(i))
            .map_or('0', |&d| d as char)
    }
}

/// Most significant digits SQLite's `%f` keeps (`mxRound` without the `!`
/// flag): a double has no more meaningful decimal digits than that.
const FIXED_MAX_DIGITS: i32 = 16;
/// The precision of the harness's `%.3f`.
const FIXED_DECIMALS: i32 = 3;

/// SQLite's `printf("%.3f", value)`.
pub fn format_fixed3(value: f64) -> String {
    if let Some(special) = special_real(value) {
        return special.to_string();
    }
    if value == 0.0 {
        return "0.000".to_string();
    }
    let mut decimal = Decimal::of(value.abs());
    let keep = decimal.point + FIXED_DECIMALS;
    if keep == 0 && decimal.digits[0] >= b'5' {
        // The value is just below the last printed decimal and rounds up to it.
        decimal = Decimal {
            digits: vec![b'1'],
            point: decimal.point + 1,
        };
    } else if keep > 0 {
        decimal.round_half_up(keep.min(FIXED_MAX_DIGITS) as usize);
    }
    let mut out = String::new();
    if value < 0.0 {
        out.push('-');
    }
    if decimal.point <= 0 {
        out.push('0');
    } else {
        out.extend((0..decimal.point).map(|i| decimal.digit(i)));
    }
    out.push('.');
    out.extend((decimal.point..decimal.point + FIXED_DECIMALS).map(|i| decimal.digit(i)));
    out
}

/// Significant digits of SQLite's text form of a real (`%!.15g`).
const TEXT_REAL_DIGITS: usize = 15;

/// SQLite's text form of a real, `printf("%!.15g", value)`: 15 significant
/// digits, trailing zeros removed but at least one decimal (`1.0`), and the
/// exponent form outside `1e-4 ..< 1e15` (`1.0e+20`).
pub fn format_real_as_text(value: f64) -> String {
    if let Some(special) = special_real(value) {
        return special.to_string();
    }
    if value == 0.0 {
        return "0.0".to_string();
    }
    let mut decimal = Decimal::of(value.abs());
    decimal.round_half_up(TEXT_REAL_DIGITS);
    while decimal.digits.len() > 1 && decimal.digits.last() == Some(&b'0') {
        decimal.digits.pop();
    }
    let sign = if value < 0.0 { "-" } else { "" };
    let exponent = decimal.point - 1;
    if exponent < -4 || exponent >= TEXT_REAL_DIGITS as i32 {
        let first = decimal.digit(0);
        let rest: String = decimal.digits[1..].iter().map(|&d| d as char).collect();
        let rest = if rest.is_empty() {
            "0".to_string()
        } else {
            rest
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}.{rest}e{exp_sign}{:02}", exponent.abs());
    }
    let integer: String = if decimal.point <= 0 {
        "0".to_string()
    } else {
        (0..decimal.point).map(|i| decimal.digit(i)).collect()
    };
    let last = (decimal.digits.len() as i32).max(decimal.point + 1);
    let fraction: String = (decimal.point..last).map(|i| decimal.digit(i)).collect();
    format!("{sign}{integer}.{fraction}")
}

/// SQLite's `printf` spelling of the non-finite doubles.
fn special_real(value: f64) -> Option<&'static str> {
    if value.is_nan() {
        Some("NaN")
    } else if value == f64::INFINITY {
        Some("Inf")
    } else if value == f64::NEG_INFINITY {
        Some("-Inf")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ColumnType::{Integer as I, Real as R, Text as T};

    fn text(s: &str) -> SltValue {
        SltValue::Text(s.to_string())
    }

    /// The README's table, row by row.
    #[test]
    fn readme_formatting_table() {
        let cases: Vec<(SltValue, ColumnType, &str)> = vec![
            (SltValue::Null, I, "NULL"),
            (SltValue::Null, R, "NULL"),
            (SltValue::Null, T, "NULL"),
            (SltValue::Integer(-42), I, "-42"),
            (SltValue::Integer(7), R, "7.000"),
            (SltValue::Integer(-7), T, "-7"),
            (SltValue::Real(7832.0), I, "7832"),
            (SltValue::Real(-3.99), I, "-3"),
            (SltValue::Real(2.5), R, "2.500"),
            (SltValue::Real(1.0), T, "1.0"),
            (SltValue::Real(0.5), T, "0.5"),
            (SltValue::Real(1.0e20), T, "1.0e+20"),
            (text("12abc"), I, "12"),
            (text("abc"), I, "0"),
            (text("  -34.9x"), I, "-34"),
            (text("12.5abc"), R, "12.500"),
            (text("abc"), R, "0.000"),
            (text("1e2x"), R, "100.000"),
            (text("1ex"), R, "1.000"),
            (text("hello"), T, "hello"),
            (text(""), T, "(empty)"),
            (text("a\tb\u{e9}"), T, "a@b@@"),
            (SltValue::Blob(b"ab\0cd".to_vec()), T, "ab"),
            (SltValue::Blob(vec![0, 1]), T, "(empty)"),
        ];
        for (value, column, expected) in cases {
            assert_eq!(render(&value, column), expected, "{value:?} as {column:?}");
        }
    }

    /// `%.3f` edge cases: SQLite rounds half up after rounding to 16
    /// significant digits, and never prints `-0.000` for zero itself.
    #[test]
    fn fixed3_follows_sqlite_printf() {
        let cases: [(f64, &str); 16] = [
            (-0.0625, "-0.063"),
            (0.0625, "0.063"),
            (9223372036854775808.0, "9223372036854776000.000"),
            (-0.0, "0.000"),
            (0.0, "0.000"),
            (0.0005, "0.001"),
            (0.0004, "0.000"),
            (-0.0001, "-0.000"),
            (0.9995, "1.000"), // 0.99950000000000005507 in binary
            (999.9996, "1000.000"),
            (1.0e-10, "0.000"),
            (123456789.125, "123456789.125"),
            (1.0e20, "100000000000000000000.000"),
            (-1.5, "-1.500"),
            (f64::INFINITY, "Inf"),
            (f64::NEG_INFINITY, "-Inf"),
        ];
        for (value, expected) in cases {
            assert_eq!(format_fixed3(value), expected, "{value:e}");
        }
    }

    #[test]
    fn integer_column_goes_through_a_c_int() {
        assert_eq!(render(&SltValue::Integer(1 << 32), I), "0");
        assert_eq!(
            render(&SltValue::Real(1e30), I),
            (i64::MAX as i32).to_string()
        );
        assert_eq!(
            render(&text("99999999999999999999"), I),
            (i64::MAX as i32).to_string()
        );
        assert_eq!(render(&text("-2147483648"), I), "-2147483648");
    }

    #[test]
    fn real_as_text_uses_15_significant_digits() {
        let cases: [(f64, &str); 8] = [
            (0.1 + 0.2, "0.3"),
            (-2.25, "-2.25"),
            (1.0e15, "1.0e+15"),
            (123456789012345.0, "123456789012345.0"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (1.0 / 3.0, "0.333333333333333"),
            (1.0e100, "1.0e+100"),
        ];
        for (value, expected) in cases {
            assert_eq!(format_real_as_text(value), expected, "{value:e}");
        }
    }
}
