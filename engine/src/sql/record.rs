//! The row encoding stored as B+tree values: a self-describing record of
//! [`Value`]s, compact, and readable one column at a time.
//!
//! Part of the on-disk format (mirrored in engine/FORMAT.md). Layout:
//!
//! ```text
//! record  := count:varint  type[count]:varint  body
//! body    := field[0] field[1] ... field[count-1]    (no padding)
//!
//! type  field bytes                  value
//! ----  ---------------------------  -------------------------------------
//!  0    0                            NULL
//!  1    0                            INTEGER 0
//!  2    0                            INTEGER 1
//!  3..=10  type-2 (1..=8)            INTEGER, big-endian two's complement,
//!                                    the fewest bytes that hold the value
//!  11   8                            REAL, IEEE-754 binary64 big-endian
//!  12+2n  n                          BLOB of n bytes
//!  13+2n  n                          TEXT of n bytes, UTF-8
//! ```
//!
//! `varint` is unsigned LEB128 (7 bits per byte, least significant group
//! first, high bit = "more bytes follow"), at most 10 bytes for a u64.
//!
//! Invariants: `count` equals the number of type varints; the body is exactly
//! as long as the types say (no trailing bytes); TEXT is valid UTF-8. A
//! record violating any of these is reported as corrupt, never decoded
//! loosely. NaN is never stored: a `Real(NaN)` is written as NULL, which is
//! what SQLite does with NaN. -0.0 is kept (bit-exact round trip).
//!
//! Reading one column scans the header (cheap varints) to sum the widths of
//! the fields before it, without decoding those fields; [`RecordReader`]
//! does that scan once and then serves any column. A record with fewer
//! columns than the table (rows written before `ALTER TABLE ADD COLUMN`)
//! reads the missing columns as `None`, for the caller to supply the
//! column's default.

use crate::sql::value::Value;
use crate::{corrupt, Result};

const TYPE_NULL: u64 = 0;
const TYPE_ZERO: u64 = 1;
const TYPE_ONE: u64 = 2;
/// Type codes 3..=10 are integers of `code - INT_TYPE_BASE` bytes.
const INT_TYPE_BASE: u64 = 2;
const TYPE_INT_MAX: u64 = INT_TYPE_BASE + 8;
const TYPE_REAL: u64 = 11;
const TYPE_BLOB_BASE: u64 = 12;
const TYPE_TEXT_BASE: u64 = 13;
const REAL_SIZE: usize = 8;
/// The longest LEB128 encoding of a u64.
const VARINT_MAX_LEN: usize = 10;

/// Appends `v` as unsigned LEB128.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads an unsigned LEB128 at `*pos`, advancing it. Rejects truncated,
/// over-long and overflowing encodings.
#[inline]
pub(crate) fn get_varint(bytes: &[u8], pos: &mut usize) -> Result<u64> {
    // Fast path: type codes of small fields and counts are one byte.
    if let Some(&b) = bytes.get(*pos) {
        if b & 0x80 == 0 {
            *pos += 1;
            return Ok(u64::from(b));
        }
    }
    get_long_varint(bytes, pos)
}

fn get_long_varint(bytes: &[u8], pos: &mut usize) -> Result<u64> {
    let mut v: u64 = 0;
    for i in 0..VARINT_MAX_LEN {
        let Some(&b) = bytes.get(*pos + i) else {
            return Err(corrupt!(0, "record: truncated varint at byte {}", *pos));
        };
        let group = u64::from(b & 0x7f);
        if i == VARINT_MAX_LEN - 1 && group > 1 {
            return Err(corrupt!(
                0,
                "record: varint overflows 64 bits at byte {}",
                *pos
            ));
        }
        v |= group << (7 * i);
        if b & 0x80 == 0 {
            *pos += i + 1;
            return Ok(v);
        }
    }
    Err(corrupt!(
        0,
        "record: varint longer than {VARINT_MAX_LEN} bytes at byte {}",
        *pos
    ))
}

/// The fewest big-endian two's-complement bytes that hold `i` (1..=8).
fn int_width(i: i64) -> usize {
    let significant = if i < 0 {
        64 - (!i).leading_zeros()
    } else {
        64 - i.leading_zeros()
    };
    (significant as usize + 1).div_ceil(8).max(1)
}

fn type_of(v: &Value) -> u64 {
    match v {
        Value::Null => TYPE_NULL,
        Value::Real(r) if r.is_nan() => TYPE_NULL,
        Value::Integer(0) => TYPE_ZERO,
        Value::Integer(1) => TYPE_ONE,
        Value::Integer(i) => INT_TYPE_BASE + int_width(*i) as u64,
        Value::Real(_) => TYPE_REAL,
        Value::Blob(b) => TYPE_BLOB_BASE + 2 * b.len() as u64,
        Value::Text(s) => TYPE_TEXT_BASE + 2 * s.len() as u64,
    }
}

/// The number of body bytes a field of type `t` occupies.
fn field_len(t: u64) -> Result<usize> {
    let len = match t {
        TYPE_NULL | TYPE_ZERO | TYPE_ONE => 0,
        3..=TYPE_INT_MAX => t - INT_TYPE_BASE,
        TYPE_REAL => REAL_SIZE as u64,
        _ => (t - TYPE_BLOB_BASE) / 2,
    };
    usize::try_from(len)
        .map_err(|_| corrupt!(0, "record: field of {len} bytes does not fit in memory"))
}

/// Encodes `values` as a record.
pub(crate) fn encode(values: &[Value]) -> Vec<u8> {
    encode_masked(values, None)
}

/// The record of `values` with the value at `null_at`, when given, stored
/// as NULL (a table row's INTEGER PRIMARY KEY column, which is the key),
/// in one allocation of about its size.
pub(crate) fn encode_masked(values: &[Value], null_at: Option<usize>) -> Vec<u8> {
    let body: usize = values
        .iter()
        .map(|v| match v {
            Value::Text(s) => s.len() + 2,
            Value::Blob(b) => b.len() + 2,
            _ => 9,
        })
        .sum();
    let mut out = Vec::with_capacity(2 + values.len() + body);
    encode_masked_into(values, null_at, &mut out);
    out
}

/// Appends the record of `values` to `out`.
pub(crate) fn encode_into(values: &[Value], out: &mut Vec<u8>) {
    encode_masked_into(values, None, out);
}

/// Appends [`encode_masked`]'s record to `out`.
pub(crate) fn encode_masked_into(values: &[Value], null_at: Option<usize>, out: &mut Vec<u8>) {
    const NULL: &Value = &Value::Null;
    let value = |(i, v)| if Some(i) == null_at { NULL } else { v };
    put_varint(out, values.len() as u64);
    for v in values.iter().enumerate().map(value) {
        put_varint(out, type_of(v));
    }
    for v in values.iter().enumerate().map(value) {
        match v {
            Value::Integer(i) if type_of(v) > TYPE_ONE => {
                let w = int_width(*i);
                out.extend_from_slice(&i.to_be_bytes()[8 - w..]);
            }
            Value::Real(r) if !r.is_nan() => out.extend_from_slice(&r.to_bits().to_be_bytes()),
            Value::Text(s) => out.extend_from_slice(s.as_bytes()),
            Value::Blob(b) => out.extend_from_slice(b),
            _ => {}
        }
    }
}

/// Decodes every column of a record.
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<Value>> {
    let reader = RecordReader::new(bytes)?;
    (0..reader.len()).map(|i| reader.field(i)).collect()
}

/// A field as it sits in a record, borrowed: what [`visit_fields`] hands
/// out so a reader can copy a text into a buffer it already owns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum FieldRef<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

impl FieldRef<'_> {
    /// The owned value.
    #[inline]
    pub(crate) fn to_value(self) -> Value {
        match self {
            FieldRef::Null => Value::Null,
            FieldRef::Integer(i) => Value::Integer(i),
            FieldRef::Real(r) => Value::Real(r),
            FieldRef::Text(s) => Value::Text(s.to_string()),
            FieldRef::Blob(b) => Value::Blob(b.to_vec()),
        }
    }
}

/// Walks a record's header once and calls `f(column, field)` for each
/// column `wanted` accepts, in column order; other fields are skipped
/// without being read or checked (no allocation either way). The header
/// and the body length are validated as [`RecordReader::new`] does.
/// Returns the number of columns the record stores. Inlined into its
/// callers, so that `f` is too: a scan runs it for every row.
#[inline(always)]
pub(crate) fn visit_fields(
    bytes: &[u8],
    wanted: impl Fn(usize) -> bool,
    f: impl FnMut(usize, FieldRef<'_>) -> Result<()>,
) -> Result<usize> {
    // Usually the count and every type are one byte ([`one_byte_types`]):
    // the body follows the types.
    if let Some(types) = one_byte_types(bytes) {
        let type_of = |c: usize| Ok(u64::from(types[c]));
        return visit_body(bytes, 1 + types.len(), types.len(), type_of, wanted, f);
    }
    let mut pos = 0;
    let count = get_varint(bytes, &mut pos)?;
    if count > (bytes.len() - pos) as u64 {
        return Err(corrupt!(
            0,
            "record: {count} columns in a {}-byte record",
            bytes.len()
        ));
    }
    let count = count as usize;
    // The body starts after the header: find its end by counting varint
    // terminators (bytes without the continuation bit); the types are
    // decoded, and checked, as the body is walked.
    let Some(body) = body_start(bytes, pos, count as u64) else {
        return Err(corrupt!(0, "record: truncated header of {count} types"));
    };
    let type_of = |_| get_varint(bytes, &mut pos);
    visit_body(bytes, body, count, type_of, wanted, f)
}

/// The body walk of [`visit_fields`]: `count` fields from `body` on;
/// `type_of(c)` is field `c`'s type, asked for in column order.
#[inline(always)]
fn visit_body(
    bytes: &[u8],
    mut body: usize,
    count: usize,
    mut type_of: impl FnMut(usize) -> Result<u64>,
    wanted: impl Fn(usize) -> bool,
    mut f: impl FnMut(usize, FieldRef<'_>) -> Result<()>,
) -> Result<usize> {
    // The body walk runs for every row a scan reads: its bounds are checked
    // where a field is read and once at the end (a length that overflows
    // saturates, so it fails both), and its errors are built out of line.
    for c in 0..count {
        let t = type_of(c)?;
        let start = body;
        body = body.saturating_add(body_len(t));
        if wanted(c) {
            let Some(data) = bytes.get(start..body) else {
                return Err(past_end(t));
            };
            f(c, field_ref(data, t, c)?)?;
        }
    }
    if body != bytes.len() {
        return Err(bad_length(body, bytes.len()));
    }
    Ok(count)
}

/// [`field_len`] without an error: `usize::MAX` for a length no memory
/// holds. Types below 128 (one-byte varints, the usual ones) by table.
#[inline(always)]
fn body_len(t: u64) -> usize {
    const SMALL: [u8; 128] = {
        let mut lens = [0u8; 128];
        let mut t = 3;
        while t < 128 {
            lens[t] = match t as u64 {
                3..=TYPE_INT_MAX => (t as u64 - INT_TYPE_BASE) as u8,
                TYPE_REAL => REAL_SIZE as u8,
                _ => ((t as u64 - TYPE_BLOB_BASE) / 2) as u8,
            };
            t += 1;
        }
        lens
    };
    match SMALL.get(t as usize) {
        Some(&len) if t < 128 => usize::from(len),
        _ => field_len(t).unwrap_or(usize::MAX),
    }
}

#[cold]
#[inline(never)]
fn past_end(t: u64) -> crate::Error {
    corrupt!(0, "record: field of type {t} runs past the end")
}

#[cold]
#[inline(never)]
fn bad_length(body: usize, len: usize) -> crate::Error {
    if body > len {
        corrupt!(
            0,
            "record: fields run past the end of the {len}-byte record"
        )
    } else {
        corrupt!(0, "record: {} trailing bytes", len - body)
    }
}

/// The type bytes of a record in the usual form, where the count and
/// every type are one byte (fewer than 128 columns, fields shorter than 58
/// bytes): the `count` bytes after the count, the body right after them.
/// `None` for any other record.
#[inline(always)]
fn one_byte_types(bytes: &[u8]) -> Option<&[u8]> {
    let (&count, rest) = bytes.split_first()?;
    if count & 0x80 != 0 {
        return None;
    }
    let types = rest.get(..usize::from(count))?;
    types.iter().all(|t| t & 0x80 == 0).then_some(types)
}

/// [`integer_fields`] of one column (a scan's usual filter), specialized:
/// the header's type bytes are read once, without the per-column loop.
pub(crate) fn integer_field(bytes: &[u8], column: usize) -> Option<i64> {
    let (t, at, len) = locate(bytes, column)?;
    integer_of(bytes, at, len, t)
}

/// The integers a record stores in `columns` (ascending), into `out` (one
/// per column): `None` where it stores another type, has fewer columns, or
/// is malformed up to that field (the caller then decodes the record, which
/// reports the damage). One walk of the header up to the last of them,
/// nothing after it: a scan uses it to reject rows by their integer
/// filters before decoding them.
#[inline(always)]
pub(crate) fn integer_fields(bytes: &[u8], columns: &[usize], out: &mut [Option<i64>]) {
    out.fill(None);
    // Usually the types are one byte each ([`one_byte_types`]).
    if let Some(types) = one_byte_types(bytes) {
        let mut body = 1 + types.len();
        let mut next = 0;
        for (column, &t) in types.iter().enumerate() {
            let Some(&want) = columns.get(next) else {
                return;
            };
            let len = body_len(u64::from(t));
            if column == want {
                out[next] = integer_of(bytes, body, len, u64::from(t));
                next += 1;
            }
            body += len;
        }
        return;
    }
    let mut pos = 0;
    let Ok(count) = get_varint(bytes, &mut pos) else {
        return;
    };
    let Some(mut body) = body_start(bytes, pos, count) else {
        return;
    };
    let mut next = 0;
    let mut column = 0;
    while next < columns.len() && (column as u64) < count {
        let Ok(t) = get_varint(bytes, &mut pos) else {
            return;
        };
        let Ok(len) = field_len(t) else {
            return;
        };
        let Some(end) = body.checked_add(len) else {
            return;
        };
        if column == columns[next] {
            out[next] = integer_of(bytes, body, len, t);
            next += 1;
        }
        body = end;
        column += 1;
    }
}

/// Where the body of a record whose `count` types start at `types` begins:
/// after `count` varint terminators (bytes without the continuation bit).
/// `None` when the header runs past the end.
fn body_start(bytes: &[u8], types: usize, count: u64) -> Option<usize> {
    let mut at = types;
    let mut ends = 0;
    while ends < count {
        at += 1;
        if bytes.get(at - 1)? & 0x80 == 0 {
            ends += 1;
        }
    }
    Some(at)
}

/// A stored field as a scan's text filters read it, in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TextField<'a> {
    /// Not decided from the bytes: another type, a column the record does
    /// not store (added since: its default applies), a malformed header.
    Other,
    Null,
    /// The text's bytes, not yet checked as UTF-8 (decoding checks them).
    Text(&'a [u8]),
}

/// The field a record stores in `column`, as [`TextField`]: one walk of the
/// header up to it, as [`integer_field`].
pub(crate) fn text_field(bytes: &[u8], column: usize) -> TextField<'_> {
    let Some((t, at, len)) = locate(bytes, column) else {
        return TextField::Other;
    };
    match t {
        TYPE_NULL => TextField::Null,
        t if t >= TYPE_TEXT_BASE && t % 2 == 1 => at
            .checked_add(len)
            .and_then(|end| bytes.get(at..end))
            .map_or(TextField::Other, TextField::Text),
        _ => TextField::Other,
    }
}

/// Field `column`'s type, body offset and length, when the header reaches
/// it. In the usual record the lengths of the fields before `column` give
/// its place; nothing after it is walked but the type bytes.
#[inline]
fn locate(bytes: &[u8], column: usize) -> Option<(u64, usize, usize)> {
    if let Some(types) = one_byte_types(bytes) {
        let &t = types.get(column)?;
        let body = 1
            + types.len()
            + types[..column]
                .iter()
                .map(|&t| body_len(u64::from(t)))
                .sum::<usize>();
        return Some((u64::from(t), body, body_len(u64::from(t))));
    }
    locate_slow(bytes, column)
}

/// [`locate`] in any other record (long header, many columns), out of
/// line: the usual case's code stays small.
#[inline(never)]
fn locate_slow(bytes: &[u8], column: usize) -> Option<(u64, usize, usize)> {
    let mut pos = 0;
    let count = get_varint(bytes, &mut pos).ok()?;
    if column as u64 >= count {
        return None;
    }
    let mut body = body_start(bytes, pos, count)?;
    for _ in 0..column {
        let t = get_varint(bytes, &mut pos).ok()?;
        body = body.checked_add(field_len(t).ok()?)?;
    }
    let t = get_varint(bytes, &mut pos).ok()?;
    Some((t, body, field_len(t).ok()?))
}

/// The integer a field of type `t` and `len` bytes at `at` holds, if it
/// is an integer and lies within `bytes`.
#[inline(always)]
fn integer_of(bytes: &[u8], at: usize, len: usize, t: u64) -> Option<i64> {
    match t {
        TYPE_ZERO => Some(0),
        TYPE_ONE => Some(1),
        3..=TYPE_INT_MAX => bytes.get(at..at.checked_add(len)?).map(be_int),
        _ => None,
    }
}

/// The big-endian two's complement integer in `data` (1 to 8 bytes),
/// sign-extended. Byte by byte: a copy of a variable length is a library
/// call, and this runs for every integer column read.
#[inline]
fn be_int(data: &[u8]) -> i64 {
    let Some((&first, rest)) = data.split_first() else {
        return 0;
    };
    let mut v = i64::from(first as i8);
    for &b in rest {
        v = (v << 8) | i64::from(b);
    }
    v
}

/// The field of type `t` whose body bytes are `data`. Inlined: it runs
/// for every column read, and returned through memory its result costs a
/// store-forwarding stall.
#[inline(always)]
fn field_ref(data: &[u8], t: u64, index: usize) -> Result<FieldRef<'_>> {
    Ok(match t {
        TYPE_NULL => FieldRef::Null,
        TYPE_ZERO => FieldRef::Integer(0),
        TYPE_ONE => FieldRef::Integer(1),
        3..=TYPE_INT_MAX => FieldRef::Integer(be_int(data)),
        TYPE_REAL => {
            let mut buf = [0u8; REAL_SIZE];
            buf.copy_from_slice(data);
            let r = f64::from_bits(u64::from_be_bytes(buf));
            if r.is_nan() {
                return Err(corrupt!(0, "record: NaN stored in column {index}"));
            }
            FieldRef::Real(r)
        }
        t if t % 2 == 0 => FieldRef::Blob(data),
        _ => FieldRef::Text(
            std::str::from_utf8(data)
                .map_err(|_| corrupt!(0, "record: column {index} is not valid UTF-8"))?,
        ),
    })
}

/// A parsed record header: each field's type and body offset, ready to
/// decode any column on demand.
#[derive(Debug)]
pub(crate) struct RecordReader<'a> {
    bytes: &'a [u8],
    /// (type code, start offset in `bytes`) per field.
    fields: Vec<(u64, usize)>,
}

impl<'a> RecordReader<'a> {
    /// Parses and validates the header (types and total length).
    pub(crate) fn new(bytes: &'a [u8]) -> Result<RecordReader<'a>> {
        let mut pos = 0;
        let count = get_varint(bytes, &mut pos)?;
        // Each type takes at least one byte, which bounds a corrupt count.
        if count > (bytes.len() - pos) as u64 {
            return Err(corrupt!(
                0,
                "record: {count} columns in a {}-byte record",
                bytes.len()
            ));
        }
        let mut types = Vec::with_capacity(count as usize);
        for _ in 0..count {
            types.push(get_varint(bytes, &mut pos)?);
        }
        let mut fields = Vec::with_capacity(types.len());
        for t in types {
            fields.push((t, pos));
            pos = pos
                .checked_add(field_len(t)?)
                .filter(|&end| end <= bytes.len())
                .ok_or_else(|| corrupt!(0, "record: field of type {t} runs past the end"))?;
        }
        if pos != bytes.len() {
            return Err(corrupt!(0, "record: {} trailing bytes", bytes.len() - pos));
        }
        Ok(RecordReader { bytes, fields })
    }

    /// The number of columns stored.
    pub(crate) fn len(&self) -> usize {
        self.fields.len()
    }

    fn field(&self, index: usize) -> Result<Value> {
        let (t, start) = self.fields[index];
        decode_field(self.bytes, t, start, index)
    }
}

/// Decodes the field of type `t` starting at `bytes[start]`.
fn decode_field(bytes: &[u8], t: u64, start: usize, index: usize) -> Result<Value> {
    let data = start
        .checked_add(field_len(t)?)
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| corrupt!(0, "record: column {index} runs past the end"))?;
    Ok(field_ref(data, t, index)?.to_value())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn value_strategy() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::Integer),
            (-300i64..300).prop_map(Value::Integer),
            any::<f64>()
                .prop_filter("no NaN", |r| !r.is_nan())
                .prop_map(Value::Real),
            ".{0,20}".prop_map(Value::Text),
            proptest::collection::vec(any::<u8>(), 0..20).prop_map(Value::Blob),
            // Fields of 58 bytes or more have type codes of two bytes: the
            // record walk's general path, beside its one-byte fast path.
            "[a-z]{50,90}".prop_map(Value::Text),
            proptest::collection::vec(any::<u8>(), 50..90).prop_map(Value::Blob),
        ]
    }

    fn bitwise_eq(a: &[Value], b: &[Value]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| match (x, y) {
                (Value::Real(p), Value::Real(q)) => p.to_bits() == q.to_bits(),
                _ => x == y,
            })
    }

    proptest! {
        #[test]
        fn round_trips(values in proptest::collection::vec(value_strategy(), 0..12)) {
            let bytes = encode(&values);
            let back = decode(&bytes).unwrap();
            prop_assert!(bitwise_eq(&values, &back));
        }

        #[test]
        fn a_masked_value_is_encoded_as_null(values in proptest::collection::vec(value_strategy(), 1..12), at in any::<prop::sample::Index>()) {
            let at = at.index(values.len());
            let mut nulled = values.clone();
            nulled[at] = Value::Null;
            prop_assert_eq!(encode_masked(&values, Some(at)), encode(&nulled));
        }

        #[test]
        fn visiting_every_field_agrees_with_decode(values in proptest::collection::vec(value_strategy(), 0..12)) {
            let bytes = encode(&values);
            let mut seen = Vec::new();
            let n = visit_fields(&bytes, |_| true, |c, f| {
                seen.push((c, f.to_value()));
                Ok(())
            }).unwrap();
            prop_assert_eq!(n, values.len());
            let back: Vec<Value> = seen.iter().map(|(_, v)| v.clone()).collect();
            prop_assert!(bitwise_eq(&values, &back));
            prop_assert!(seen.iter().enumerate().all(|(i, (c, _))| i == *c));
        }

        #[test]
        fn visiting_some_fields_agrees_with_decode(
            values in proptest::collection::vec(value_strategy(), 0..12),
            mask in any::<u16>(),
        ) {
            let bytes = encode(&values);
            let wanted = |c: usize| mask >> c & 1 != 0;
            let mut seen = Vec::new();
            let n = visit_fields(&bytes, wanted, |c, f| {
                seen.push((c, f.to_value()));
                Ok(())
            }).unwrap();
            prop_assert_eq!(n, values.len());
            let expected: Vec<(usize, Value)> = values
                .iter()
                .enumerate()
                .filter(|(c, _)| wanted(*c))
                .map(|(c, v)| (c, v.clone()))
                .collect();
            prop_assert_eq!(seen.len(), expected.len());
            for ((c, v), (d, w)) in seen.iter().zip(&expected) {
                prop_assert_eq!(c, d);
                prop_assert!(bitwise_eq(std::slice::from_ref(v), std::slice::from_ref(w)));
            }
        }

        #[test]
        fn visiting_garbage_agrees_with_decode(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let mut seen = Vec::new();
            let visited = visit_fields(&bytes, |_| true, |_, f| {
                seen.push(f.to_value());
                Ok(())
            });
            match decode(&bytes) {
                Ok(values) => {
                    prop_assert!(visited.is_ok());
                    prop_assert!(bitwise_eq(&values, &seen));
                }
                Err(_) => prop_assert!(visited.is_err()),
            }
        }

        #[test]
        fn integer_fields_are_what_decode_reads(
            values in proptest::collection::vec(value_strategy(), 0..12),
            mask in any::<u16>(),
        ) {
            let bytes = encode(&values);
            let columns: Vec<usize> = (0..14).filter(|c| mask >> c & 1 != 0).collect();
            let mut got = vec![Some(-1); columns.len()];
            integer_fields(&bytes, &columns, &mut got);
            let expected = integers_at(&values, &columns);
            for (&c, e) in columns.iter().zip(&expected) {
                prop_assert_eq!(integer_field(&bytes, c), *e);
            }
            prop_assert_eq!(got, expected);
        }

        #[test]
        fn integer_fields_of_garbage_never_contradict_decode(
            bytes in proptest::collection::vec(any::<u8>(), 0..40),
            mask in any::<u8>(),
        ) {
            // Where decode reads the record, each integer (if any) is its
            // field; where decode fails, any answer is fine but a panic.
            let columns: Vec<usize> = (0..8).filter(|c| mask >> c & 1 != 0).collect();
            let mut got = vec![None; columns.len()];
            integer_fields(&bytes, &columns, &mut got);
            if let Ok(values) = decode(&bytes) {
                prop_assert_eq!(got, integers_at(&values, &columns));
            }
        }

        #[test]
        fn text_fields_are_what_decode_reads(
            values in proptest::collection::vec(value_strategy(), 0..12),
            column in 0usize..14,
        ) {
            let bytes = encode(&values);
            prop_assert_eq!(text_field(&bytes, column), text_at(&values, column));
        }

        #[test]
        fn text_fields_of_garbage_never_contradict_decode(
            bytes in proptest::collection::vec(any::<u8>(), 0..40),
            column in 0usize..8,
        ) {
            let got = text_field(&bytes, column);
            if let Ok(values) = decode(&bytes) {
                prop_assert_eq!(got, text_at(&values, column));
            }
        }

        #[test]
        fn garbage_is_an_error_or_a_value_never_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            // Either outcome is fine; a panic fails the test.
            let _ = decode(&bytes);
        }
    }

    /// What `text_field` should read from a record of `values`.
    fn text_at(values: &[Value], column: usize) -> TextField<'_> {
        match values.get(column) {
            Some(Value::Null) => TextField::Null,
            Some(Value::Text(s)) => TextField::Text(s.as_bytes()),
            _ => TextField::Other,
        }
    }

    /// What `integer_fields` should read from a record of `values`.
    fn integers_at(values: &[Value], columns: &[usize]) -> Vec<Option<i64>> {
        columns
            .iter()
            .map(|&c| match values.get(c) {
                Some(Value::Integer(i)) => Some(*i),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn integers_use_the_fewest_bytes() {
        assert_eq!(encode(&[Value::Integer(0)]), vec![1, TYPE_ZERO as u8]);
        assert_eq!(encode(&[Value::Integer(127)]), vec![1, 3, 127]);
        assert_eq!(encode(&[Value::Integer(128)]), vec![1, 4, 0, 128]);
        assert_eq!(encode(&[Value::Integer(-128)]), vec![1, 3, 0x80]);
        assert_eq!(encode(&[Value::Integer(-129)]), vec![1, 4, 0xff, 0x7f]);
        assert_eq!(encode(&[Value::Integer(i64::MIN)]).len(), 2 + 8);
    }

    #[test]
    fn nan_is_stored_as_null_and_minus_zero_survives() {
        assert_eq!(
            decode(&encode(&[Value::Real(f64::NAN)])).unwrap(),
            vec![Value::Null]
        );
        let back = decode(&encode(&[Value::Real(-0.0)])).unwrap();
        assert!(matches!(back[0], Value::Real(r) if r.to_bits() == (-0.0f64).to_bits()));
    }

    #[test]
    fn corrupt_records_are_rejected() {
        let good = encode(&[Value::Text("abc".into()), Value::Integer(300)]);
        assert!(decode(&good[..good.len() - 1]).is_err(), "truncated body");
        let mut long = good.clone();
        long.push(0);
        assert!(decode(&long).is_err(), "trailing byte");
        assert!(
            decode(&[1, TYPE_TEXT_BASE as u8 + 2, 0xff]).is_err(),
            "invalid UTF-8"
        );
        assert!(decode(&[0xff; 12]).is_err(), "over-long varint");
        assert!(decode(&[200, 1]).is_err(), "count larger than the record");
    }
}
