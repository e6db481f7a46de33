//! SQL values and SQLite's rules for them: storage classes, column affinity,
//! conversions, comparison, arithmetic and CAST.
//!
//! A [`Value`] is one of SQLite's five storage classes. SQLite semantics are
//! the contract (SQLite is the oracle of our differential tests), so every
//! rule here is a transcription of a named SQLite routine, not a
//! reinterpretation:
//!
//! - [`Affinity`]: declared type → affinity (`sqlite3AffinityType`) and
//!   [`apply_affinity`] on store (`applyAffinity`).
//! - `numeric`: text → number (`sqlite3AtoF`, `sqlite3Atoi64`), the prefix
//!   rules of arithmetic (`'12abc' + 1` is 13).
//! - `render`: number → text (`%!.15g`, `sqlite3FpDecode`).
//! - `extended`: the x87 `long double` arithmetic SQLite's conversions use,
//!   emulated so results are bit-identical on every target.
//! - `compare`: the cross-type order NULL < numbers < text < blob, exact
//!   integer/real comparison, collations, comparison affinity.
//! - `arith`: `+ - * / %`, bitwise operators, `||`, unary minus, truthiness,
//!   CAST.
//!
//! Simplification, with its cost: TEXT is a Rust `String`. SQLite lets text
//! hold any bytes; we convert invalid UTF-8 (a blob cast to text, say) with
//! replacement characters, so such a cast can differ from SQLite's bytes.

mod arith;
mod compare;
mod extended;
mod numeric;
mod render;

pub use arith::{bit_not, cast, negate, BinaryOp, CastType};
pub(crate) use compare::comparison_affinity;
pub use compare::{compare, compare_with_affinity, Collation};
pub(crate) use numeric::{is_space, parse_int, parse_real, IntSyntax, RealSyntax};
pub use render::real_to_text;
pub(crate) use render::{decode, Decoded, Digits};

use numeric::{real_as_exact_int, real_same_as_int};

/// One SQL value: SQLite's five storage classes.
///
/// Invariant kept by every constructor in this module: a `Real` is never NaN
/// when it comes out of arithmetic (SQLite turns NaN into NULL).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A 64-bit signed integer.
    Integer(i64),
    /// An IEEE-754 double (never NaN once stored).
    Real(f64),
    /// UTF-8 text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

/// A column's or expression's type affinity (SQLite §3 "Type Affinity").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Affinity {
    /// No conversion ("BLOB", formerly "NONE"): a column with no declared type.
    Blob,
    /// Numbers stored into the column become text.
    Text,
    /// Text that is a number becomes INTEGER (when exact) or REAL.
    Numeric,
    /// As Numeric (the difference is only visible in CAST).
    Integer,
    /// As Numeric, then integers become reals.
    Real,
}

impl Affinity {
    /// The affinity of a declared column type by SQLite's five rules, in
    /// order: contains "INT" → Integer; "CHAR", "CLOB" or "TEXT" → Text;
    /// "BLOB" or empty → Blob; "REAL", "FLOA" or "DOUB" → Real; else Numeric.
    pub fn from_declared_type(declared: &str) -> Affinity {
        let upper = declared.to_ascii_uppercase();
        let has = |s: &str| upper.contains(s);
        if has("INT") {
            Affinity::Integer
        } else if has("CHAR") || has("CLOB") || has("TEXT") {
            Affinity::Text
        } else if has("BLOB") || upper.trim().is_empty() {
            Affinity::Blob
        } else if has("REAL") || has("FLOA") || has("DOUB") {
            Affinity::Real
        } else {
            Affinity::Numeric
        }
    }

    /// Integer, Real and Numeric are the numeric affinities.
    pub fn is_numeric(self) -> bool {
        matches!(self, Affinity::Numeric | Affinity::Integer | Affinity::Real)
    }
}

impl Value {
    /// The name `typeof()` returns: "null", "integer", "real", "text", "blob".
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Integer(_) => "integer",
            Value::Real(_) => "real",
            Value::Text(_) => "text",
            Value::Blob(_) => "blob",
        }
    }

    /// True for [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// A real result of arithmetic: NaN becomes NULL, as in SQLite.
    pub fn real(r: f64) -> Value {
        if r.is_nan() {
            Value::Null
        } else {
            Value::Real(r)
        }
    }

    /// Text from bytes that may not be UTF-8 (blob → text conversions):
    /// invalid sequences become U+FFFD (see the module doc).
    pub fn text_from_bytes(bytes: &[u8]) -> Value {
        Value::Text(String::from_utf8_lossy(bytes).into_owned())
    }

    /// The value as text the way SQLite renders it (`sqlite3VdbeMemStringify`
    /// for numbers), or `None` for NULL. Blobs are reinterpreted as UTF-8.
    pub fn to_text(&self) -> Option<String> {
        match self {
            Value::Null => None,
            Value::Integer(i) => Some(i.to_string()),
            Value::Real(r) => Some(real_to_text(*r)),
            Value::Text(s) => Some(s.clone()),
            Value::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
        }
    }

    /// The value's bytes as text or blob content (numbers rendered as text),
    /// `None` for NULL. Used where SQLite reads `sqlite3_value_text/blob`.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        match self {
            Value::Blob(b) => Some(b.clone()),
            other => other.to_text().map(String::into_bytes),
        }
    }

    /// SQLite's truth test for WHERE, CASE, AND/OR, NOT: `None` for NULL,
    /// otherwise whether the numeric value is non-zero (text and blobs are
    /// read as a real prefix: `'1abc'` is true, `'abc'` and `'0.0'` false).
    pub fn is_true(&self) -> Option<bool> {
        match self {
            Value::Null => None,
            Value::Integer(i) => Some(*i != 0),
            other => Some(other.to_f64() != 0.0),
        }
    }
}

/// Converts `value` for storage in (or comparison as) a column of affinity
/// `affinity` (SQLite's `applyAffinity` followed by the REAL-column read
/// conversion, so the result is what a later SELECT of the column returns):
///
/// - Text: numbers become their text rendering; blobs and NULL unchanged.
/// - Numeric / Integer: text that is entirely a number (surrounding spaces
///   allowed) becomes an integer when it is one exactly (`'1e3'` → 1000,
///   `' 12 '` → 12, `'1.0'` → 1), else a real; other text stays text
///   (`'0x10'`, `'12abc'`); a real with an exact integer value becomes that
///   integer (`3.0` → 3, but 1e20 stays real).
/// - Real: as Numeric, then integers become reals.
/// - Blob: unchanged.
pub fn apply_affinity(value: Value, affinity: Affinity) -> Value {
    match affinity {
        Affinity::Blob => value,
        Affinity::Text => match value {
            Value::Integer(_) | Value::Real(_) => Value::Text(value.to_text().unwrap_or_default()),
            other => other,
        },
        Affinity::Numeric | Affinity::Integer => numeric_affinity(value, true),
        Affinity::Real => match numeric_affinity(value, true) {
            Value::Integer(i) => Value::Real(i as f64),
            other => other,
        },
    }
}

/// SQLite's `applyNumericAffinity` (for text) and, when `try_for_int`,
/// `sqlite3VdbeIntegerAffinity` (for reals). Non-text values other than
/// reals are returned unchanged.
pub(crate) fn numeric_affinity(value: Value, try_for_int: bool) -> Value {
    match value {
        Value::Text(s) => match text_as_number(&s, try_for_int) {
            Some(v) => v,
            None => Value::Text(s),
        },
        Value::Real(r) if try_for_int => match real_as_exact_int(r) {
            Some(i) => Value::Integer(i),
            None => Value::Real(r),
        },
        other => other,
    }
}

/// The number a text is, if all of it (modulo spaces) is one.
fn text_as_number(s: &str, try_for_int: bool) -> Option<Value> {
    let (r, syntax) = parse_real(s.as_bytes());
    match syntax {
        RealSyntax::NotNumber | RealSyntax::FractionalPrefix => None,
        RealSyntax::Integer => {
            let i = numeric::real_to_i64(r);
            if real_same_as_int(r, i) {
                return Some(Value::Integer(i));
            }
            match parse_int(s.as_bytes()) {
                (i, IntSyntax::Exact) => Some(Value::Integer(i)),
                _ => Some(real_maybe_int(r, try_for_int)),
            }
        }
        RealSyntax::Fractional => Some(real_maybe_int(r, try_for_int)),
    }
}

fn real_maybe_int(r: f64, try_for_int: bool) -> Value {
    match real_as_exact_int(r) {
        Some(i) if try_for_int => Value::Integer(i),
        _ => Value::Real(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_follow_the_five_rules() {
        assert_eq!(Affinity::from_declared_type("INTEGER"), Affinity::Integer);
        assert_eq!(
            Affinity::from_declared_type("FLOATING POINT"),
            Affinity::Integer
        );
        assert_eq!(Affinity::from_declared_type("varchar(10)"), Affinity::Text);
        assert_eq!(Affinity::from_declared_type("CHARINT"), Affinity::Integer);
        assert_eq!(Affinity::from_declared_type(""), Affinity::Blob);
        assert_eq!(Affinity::from_declared_type("blob"), Affinity::Blob);
        assert_eq!(
            Affinity::from_declared_type("DOUBLE PRECISION"),
            Affinity::Real
        );
        assert_eq!(
            Affinity::from_declared_type("DECIMAL(10,5)"),
            Affinity::Numeric
        );
        assert_eq!(Affinity::from_declared_type("STRING"), Affinity::Numeric);
    }

    #[test]
    fn affinity_on_store() {
        let t = |s: &str| Value::Text(s.to_string());
        assert_eq!(
            apply_affinity(t("12"), Affinity::Integer),
            Value::Integer(12)
        );
        assert_eq!(
            apply_affinity(t(" 12 "), Affinity::Numeric),
            Value::Integer(12)
        );
        assert_eq!(
            apply_affinity(t("1e3"), Affinity::Integer),
            Value::Integer(1000)
        );
        assert_eq!(apply_affinity(t("0x10"), Affinity::Integer), t("0x10"));
        assert_eq!(
            apply_affinity(t("1.5"), Affinity::Integer),
            Value::Real(1.5)
        );
        assert_eq!(
            apply_affinity(Value::Real(3.0), Affinity::Integer),
            Value::Integer(3)
        );
        assert_eq!(
            apply_affinity(Value::Integer(3), Affinity::Real),
            Value::Real(3.0)
        );
        assert_eq!(apply_affinity(Value::Real(1.0), Affinity::Text), t("1.0"));
        assert_eq!(
            apply_affinity(Value::Blob(vec![1]), Affinity::Text),
            Value::Blob(vec![1])
        );
    }
}
