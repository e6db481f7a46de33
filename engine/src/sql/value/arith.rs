//! Operators on values, transcribed from SQLite's VDBE (`OP_Add` ...
//! `OP_Remainder`, `OP_BitAnd` ... `OP_ShiftRight`, `OP_BitNot`,
//! `OP_Concat`) and CAST (`sqlite3VdbeMemCast`).
//!
//! Arithmetic: NULL in, NULL out. When both operands are (or read as)
//! integers the operation is done in i64, and `+ - *` that overflow, and
//! `i64::MIN / -1`, are redone in f64. Otherwise both operands are read as
//! reals. Division or remainder by zero is NULL; a NaN result is NULL.
//! `%` on reals truncates both operands to integers and returns a real.

use super::numeric::{
    parse_int, parse_real, real_same_as_int, real_to_i64, IntSyntax, Number, RealSyntax,
};
use super::{Affinity, Value};

/// A binary operator on values. Comparison operators are not here (see
/// [`super::compare_with_affinity`]); AND/OR are three-valued logic the
/// executor evaluates with [`Value::is_true`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Subtract,
    /// `*`
    Multiply,
    /// `/` (integer division truncates toward zero)
    Divide,
    /// `%`
    Remainder,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `<<`
    ShiftLeft,
    /// `>>` (arithmetic)
    ShiftRight,
    /// `||`
    Concat,
}

/// The target of `CAST(x AS type)`: SQLite maps the type name with the
/// declared-type rules, so this is an [`Affinity`]
/// (`Affinity::from_declared_type("VARCHAR")` is Text, "" is Blob).
pub type CastType = Affinity;

impl BinaryOp {
    /// Applies the operator with SQLite's semantics. Never fails.
    pub fn apply(self, a: &Value, b: &Value) -> Value {
        match (a, b) {
            (Value::Null, _) | (_, Value::Null) => return Value::Null,
            // The common case, without the general path's conversions.
            (Value::Integer(x), Value::Integer(y)) => {
                if let Some(v) = self.exact(*x, *y) {
                    return v;
                }
            }
            _ => {}
        }
        match self {
            BinaryOp::Concat => concat(a, b),
            BinaryOp::BitAnd => Value::Integer(a.to_i64() & b.to_i64()),
            BinaryOp::BitOr => Value::Integer(a.to_i64() | b.to_i64()),
            BinaryOp::ShiftLeft => Value::Integer(shift(a.to_i64(), b.to_i64(), true)),
            BinaryOp::ShiftRight => Value::Integer(shift(a.to_i64(), b.to_i64(), false)),
            _ => self.arithmetic(a, b),
        }
    }

    /// `+ - * / %` on two integers: the result, or `None` when it must be
    /// redone in f64 (overflow, `i64::MIN / -1`) or the operator is not
    /// one of these.
    #[inline]
    pub(crate) fn exact(self, x: i64, y: i64) -> Option<Value> {
        let exact = match self {
            BinaryOp::Add => x.checked_add(y),
            BinaryOp::Subtract => x.checked_sub(y),
            BinaryOp::Multiply => x.checked_mul(y),
            BinaryOp::Divide if y == 0 => return Some(Value::Null),
            BinaryOp::Divide => x.checked_div(y),
            BinaryOp::Remainder if y == 0 => return Some(Value::Null),
            BinaryOp::Remainder => Some(x % if y == -1 { 1 } else { y }),
            _ => return None,
        };
        exact.map(Value::Integer)
    }

    fn arithmetic(self, a: &Value, b: &Value) -> Value {
        if let (Some(Number::Integer(x)), Some(Number::Integer(y))) = (a.to_number(), b.to_number())
        {
            if let Some(v) = self.exact(x, y) {
                return v;
            }
        }
        let (x, y) = (a.to_f64(), b.to_f64());
        let r = match self {
            BinaryOp::Add => x + y,
            BinaryOp::Subtract => x - y,
            BinaryOp::Multiply => x * y,
            BinaryOp::Divide if y == 0.0 => return Value::Null,
            BinaryOp::Divide => x / y,
            _ => {
                // SQLite reads both operands as integers here (text by its
                // integer prefix: '1e3' % 7 is 1 % 7).
                let (i, j) = (a.to_i64(), b.to_i64());
                if j == 0 {
                    return Value::Null;
                }
                (i % if j == -1 { 1 } else { j }) as f64
            }
        };
        Value::real(r)
    }
}

/// `a << n` (or `>>`), SQLite style: a negative count shifts the other way,
/// counts of 64 or more give 0 (or -1 for a right shift of a negative).
fn shift(a: i64, n: i64, left: bool) -> i64 {
    if n == 0 {
        return a;
    }
    let (left, n) = if n < 0 {
        (!left, if n > -64 { -n } else { 64 })
    } else {
        (left, n)
    };
    if n >= 64 {
        return if a >= 0 || left { 0 } else { -1 };
    }
    if left {
        ((a as u64) << n) as i64
    } else {
        a >> n
    }
}

fn concat(a: &Value, b: &Value) -> Value {
    let mut bytes = a.to_bytes().unwrap_or_default();
    bytes.extend(b.to_bytes().unwrap_or_default());
    match String::from_utf8(bytes) {
        Ok(s) => Value::Text(s),
        Err(e) => Value::text_from_bytes(e.as_bytes()),
    }
}

/// Unary minus of a non-literal: SQLite computes `0 - x`, so
/// `-(i64::MIN)` is the real 9.223372036854776e18 and `-(0.0)` is `0.0`.
/// (A negated numeric *literal* is folded by the parser instead: `-0.0` is
/// the real -0.0 and `-9223372036854775808` the integer i64::MIN.)
pub fn negate(v: &Value) -> Value {
    BinaryOp::Subtract.apply(&Value::Integer(0), v)
}

/// `~x`: bitwise complement of the integer view; NULL stays NULL.
pub fn bit_not(v: &Value) -> Value {
    if v.is_null() {
        Value::Null
    } else {
        Value::Integer(!v.to_i64())
    }
}

/// `CAST(v AS type)` (SQLite's `sqlite3VdbeMemCast`). NULL stays NULL.
///
/// - Integer: reals truncate and saturate (`1e20` → i64::MAX), text and
///   blobs read their integer prefix (`'12.7'` → 12, `'1e3'` → 1).
/// - Real: text and blobs read their real prefix (`'1e3x'` → 1000.0).
/// - Numeric: text and blobs become an integer when their prefix is an
///   integer or a real with an exact small integer value, else a real;
///   numbers are unchanged.
/// - Text: numbers rendered as text; blob bytes read as text.
/// - Blob: text bytes (numbers rendered first).
pub fn cast(v: &Value, to: CastType) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    match to {
        Affinity::Integer => Value::Integer(v.to_i64()),
        Affinity::Real => Value::Real(v.to_f64()),
        Affinity::Text => match v {
            Value::Text(_) => v.clone(),
            Value::Blob(b) => Value::text_from_bytes(b),
            other => Value::Text(other.to_text().unwrap_or_default()),
        },
        Affinity::Blob => Value::Blob(v.to_bytes().unwrap_or_default()),
        Affinity::Numeric => match v {
            Value::Text(s) => numerify(s.as_bytes()),
            Value::Blob(b) => numerify(b),
            other => other.clone(),
        },
    }
}

/// `sqlite3VdbeMemNumerify` for text and blob bytes.
fn numerify(z: &[u8]) -> Value {
    let (r, syntax) = parse_real(z);
    if matches!(syntax, RealSyntax::NotNumber | RealSyntax::Integer) {
        let (i, int_syntax) = parse_int(z);
        if int_syntax != IntSyntax::Overflow {
            return Value::Integer(i);
        }
    }
    let i = real_to_i64(r);
    if real_same_as_int(r, i) {
        Value::Integer(i)
    } else {
        Value::Real(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Value {
        Value::Text(s.to_string())
    }

    #[test]
    fn arithmetic_edges() {
        use BinaryOp::*;
        assert_eq!(
            Add.apply(&t("12abc"), &Value::Integer(1)),
            Value::Integer(13)
        );
        assert_eq!(Add.apply(&t("abc"), &Value::Integer(1)), Value::Integer(1));
        assert_eq!(
            Add.apply(&Value::Integer(i64::MAX), &Value::Integer(1)),
            Value::Real(9.223372036854776e18)
        );
        assert_eq!(
            Divide.apply(&Value::Integer(7), &Value::Integer(2)),
            Value::Integer(3)
        );
        assert_eq!(
            Divide.apply(&Value::Integer(-7), &Value::Integer(2)),
            Value::Integer(-3)
        );
        assert_eq!(
            Divide.apply(&Value::Integer(7), &Value::Integer(0)),
            Value::Null
        );
        assert_eq!(
            Remainder.apply(&Value::Real(5.5), &Value::Integer(2)),
            Value::Real(1.0)
        );
        assert_eq!(
            Remainder.apply(&Value::Integer(i64::MIN), &Value::Integer(-1)),
            Value::Integer(0)
        );
        assert_eq!(
            negate(&Value::Integer(i64::MIN)),
            Value::Real(9.223372036854776e18)
        );
        assert_eq!(
            Concat.apply(&Value::Real(1.0), &Value::Integer(2)),
            t("1.02")
        );
        assert_eq!(
            ShiftLeft.apply(&Value::Integer(1), &Value::Integer(-1)),
            Value::Integer(0)
        );
        assert_eq!(
            ShiftRight.apply(&Value::Integer(-8), &Value::Integer(100)),
            Value::Integer(-1)
        );
    }

    #[test]
    fn casts() {
        assert_eq!(cast(&t("12.7"), Affinity::Integer), Value::Integer(12));
        assert_eq!(
            cast(&Value::Real(1e20), Affinity::Integer),
            Value::Integer(i64::MAX)
        );
        assert_eq!(
            cast(&Value::Blob(b"12".to_vec()), Affinity::Integer),
            Value::Integer(12)
        );
        assert_eq!(cast(&t("1e3"), Affinity::Numeric), Value::Integer(1000));
        assert_eq!(cast(&t("1.5"), Affinity::Numeric), Value::Real(1.5));
        assert_eq!(
            cast(&Value::Integer(5), Affinity::Blob),
            Value::Blob(b"5".to_vec())
        );
    }
}
