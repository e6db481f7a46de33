//! Ordering and equality of values, SQLite's `sqlite3MemCompare`: NULL <
//! INTEGER/REAL (compared numerically, exactly) < TEXT (by collation) < BLOB
//! (memcmp), plus the affinity conversions applied before a comparison
//! operator (SQLite §4.2 "Type Conversions Prior To Comparison").
//!
//! Integer vs real is compared exactly (SQLite uses `long double`, which
//! holds every i64): 9007199254740993 > 9007199254740992.0 although the
//! integer rounds to that double.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::{text_as_number, Affinity, Value};

/// A collating sequence for TEXT comparisons.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Collation {
    /// Bytewise (memcmp of UTF-8).
    #[default]
    Binary,
    /// ASCII case folding only (`'a' = 'A'`, but `'é' != 'É'`).
    NoCase,
    /// Binary, ignoring trailing spaces (U+0020 only).
    RTrim,
}

impl Collation {
    /// Looks a collation up by name, case-insensitively.
    pub fn from_name(name: &str) -> Option<Collation> {
        match name.to_ascii_lowercase().as_str() {
            "binary" => Some(Collation::Binary),
            "nocase" => Some(Collation::NoCase),
            "rtrim" => Some(Collation::RTrim),
            _ => None,
        }
    }

    /// The name as SQLite spells it.
    pub fn name(self) -> &'static str {
        match self {
            Collation::Binary => "BINARY",
            Collation::NoCase => "NOCASE",
            Collation::RTrim => "RTRIM",
        }
    }

    /// Compares two texts under this collation.
    pub fn compare_text(self, a: &str, b: &str) -> Ordering {
        match self {
            Collation::Binary => a.as_bytes().cmp(b.as_bytes()),
            // SQLite compares the common prefix folded, then by length;
            // that is the lexicographic order of the folded bytes.
            Collation::NoCase => a
                .bytes()
                .map(|c| c.to_ascii_lowercase())
                .cmp(b.bytes().map(|c| c.to_ascii_lowercase())),
            Collation::RTrim => a
                .trim_end_matches(' ')
                .as_bytes()
                .cmp(b.trim_end_matches(' ').as_bytes()),
        }
    }
}

/// Exact comparison of an integer with a finite or infinite double.
pub(crate) fn compare_int_real(i: i64, r: f64) -> Ordering {
    if r.is_nan() {
        // SQLite treats NaN as NULL: every integer is greater.
        return Ordering::Greater;
    }
    if r >= 9_223_372_036_854_775_808.0 {
        return Ordering::Less;
    }
    if r < -9_223_372_036_854_775_808.0 {
        return Ordering::Greater;
    }
    // r is now within i64's range; compare the integer parts first, then the
    // fraction.
    let t = r.trunc();
    let ti = t as i64;
    match i.cmp(&ti) {
        Ordering::Equal => 0.0f64.partial_cmp(&(r - t)).unwrap_or(Ordering::Equal),
        other => other,
    }
}

fn compare_reals(a: f64, b: f64) -> Ordering {
    // Both non-NaN in practice; NaN compares equal, like C's `<`/`>` chain.
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// SQLite's `sqlite3MemCompare`: the total order used by ORDER BY, DISTINCT,
/// GROUP BY, min/max and indexes. Two NULLs are equal here (SQL `=` on NULL
/// is the caller's business). `collation` applies to TEXT vs TEXT only.
pub fn compare(a: &Value, b: &Value, collation: Collation) -> Ordering {
    use Value::*;
    match (a, b) {
        (Null, Null) => Ordering::Equal,
        (Null, _) => Ordering::Less,
        (_, Null) => Ordering::Greater,
        (Integer(x), Integer(y)) => x.cmp(y),
        (Real(x), Real(y)) => compare_reals(*x, *y),
        (Integer(x), Real(y)) => compare_int_real(*x, *y),
        (Real(x), Integer(y)) => compare_int_real(*y, *x).reverse(),
        (Integer(_) | Real(_), _) => Ordering::Less,
        (_, Integer(_) | Real(_)) => Ordering::Greater,
        (Text(x), Text(y)) => collation.compare_text(x, y),
        (Text(_), Blob(_)) => Ordering::Less,
        (Blob(_), Text(_)) => Ordering::Greater,
        (Blob(x), Blob(y)) => x.cmp(y),
    }
}

/// Compares the operands of a comparison operator (`=`, `<`, `IN`, ...)
/// after SQLite's conversions, given each operand's affinity (`None` for an
/// expression with no affinity: a literal, a function result, arithmetic):
///
/// - both operands have an affinity: if either is numeric, numeric affinity
///   is applied to both; otherwise nothing is converted;
/// - only one has: that affinity (numeric, or TEXT) is applied to both;
/// - neither: nothing is converted.
///
/// Numeric affinity here converts only text that is entirely a number (and
/// keeps `'1.0'` a real); TEXT affinity renders numbers as text, and is only
/// applied when one side is text. Returns `None` when either side is NULL
/// (the SQL result of the comparison is then NULL).
pub fn compare_with_affinity(
    a: &Value,
    aff_a: Option<Affinity>,
    b: &Value,
    aff_b: Option<Affinity>,
    collation: Collation,
) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    let affinity = comparison_affinity(aff_a, aff_b);
    let any_text = matches!(a, Value::Text(_)) || matches!(b, Value::Text(_));
    match affinity {
        Some(aff) if aff.is_numeric() && any_text => {
            let a = numeric_operand(a);
            let b = numeric_operand(b);
            Some(compare(&a, &b, collation))
        }
        Some(Affinity::Text) if any_text => {
            let a = text_operand(a);
            let b = text_operand(b);
            Some(compare(&a, &b, collation))
        }
        _ => Some(compare(a, b, collation)),
    }
}

/// The affinity a comparison applies to both operands, given theirs (the
/// rules above [`compare_with_affinity`]).
pub(crate) fn comparison_affinity(a: Option<Affinity>, b: Option<Affinity>) -> Option<Affinity> {
    match (a, b) {
        (Some(x), Some(y)) if x.is_numeric() || y.is_numeric() => Some(Affinity::Numeric),
        (Some(_), Some(_)) => None,
        (Some(x), None) | (None, Some(x)) => Some(x),
        (None, None) => None,
    }
}

/// `v` under numeric affinity: a copy only for text that converts (numeric
/// affinity changes nothing else), so a text column compared with text
/// allocates nothing per row.
fn numeric_operand(v: &Value) -> Cow<'_, Value> {
    match v {
        Value::Text(s) => match text_as_number(s, false) {
            Some(n) => Cow::Owned(n),
            None => Cow::Borrowed(v),
        },
        _ => Cow::Borrowed(v),
    }
}

/// `v` under text affinity: numbers rendered as text, anything else borrowed.
fn text_operand(v: &Value) -> Cow<'_, Value> {
    match v {
        Value::Integer(_) | Value::Real(_) => {
            Cow::Owned(Value::Text(v.to_text().unwrap_or_default()))
        }
        other => Cow::Borrowed(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_reals_compare_exactly() {
        assert_eq!(
            compare_int_real(9_007_199_254_740_993, 9_007_199_254_740_992.0),
            Ordering::Greater
        );
        assert_eq!(
            compare_int_real(i64::MAX, 9_223_372_036_854_775_808.0),
            Ordering::Less
        );
        assert_eq!(
            compare_int_real(i64::MIN, -9_223_372_036_854_775_808.0),
            Ordering::Equal
        );
        assert_eq!(compare_int_real(1, 1.5), Ordering::Less);
        assert_eq!(compare_int_real(-1, -1.5), Ordering::Greater);
        assert_eq!(compare_int_real(0, -0.0), Ordering::Equal);
    }

    #[test]
    fn storage_classes_order() {
        let v = [
            Value::Null,
            Value::Integer(-5),
            Value::Real(2.5),
            Value::Text("A".into()),
            Value::Text("a".into()),
            Value::Blob(vec![0]),
        ];
        for w in v.windows(2) {
            assert_eq!(
                compare(&w[0], &w[1], Collation::Binary),
                Ordering::Less,
                "{w:?}"
            );
        }
        assert_eq!(compare(&v[3], &v[4], Collation::NoCase), Ordering::Equal);
        let rtrim = Collation::RTrim.compare_text("ab  ", "ab");
        assert_eq!(rtrim, Ordering::Equal);
    }
}
