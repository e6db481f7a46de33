//! Order-preserving ("memcomparable") encoding of value tuples for B+tree
//! keys: for two tuples `a` and `b` encoded with the same column specs,
//! `encode(a).cmp(&encode(b))` equals SQLite's ORDER BY comparison of the
//! tuples (column by column, [`crate::sql::value::compare`] under each
//! column's collation, reversed for DESC columns).
//!
//! Part of the on-disk format (index keys; mirrored in engine/FORMAT.md).
//! One column is encoded as a tag byte and a payload:
//!
//! ```text
//! NULL     0x05
//! number   0x10  f:1..10  [delta:2]
//! text     0x20  escaped(bytes)  0x00 0x00
//! blob     0x30  escaped(bytes)  0x00 0x00
//! ```
//!
//! - **Numbers** (INTEGER and REAL in one class, so they interleave
//!   numerically): `f` is the largest double `d ≤ x` (x itself for a real)
//!   as a 64-bit order-preserving integer `u` (sign bit flipped for
//!   positives, all bits flipped for negatives), written in groups of 7
//!   bits from the most significant, one group per byte as `group << 1 |
//!   more` (`more` = 1 on every byte but the last), trailing zero groups
//!   left out (at least one byte; the tenth group holds `u`'s last bit as
//!   its top bit). Byte order is `u`'s order: where two encodings first
//!   differ, either their groups differ, or one ends (`more` = 0, its
//!   remaining groups zero) where the other goes on (`more` = 1, a
//!   non-zero group still to come). Small integers take 3 bytes (1000 is
//!   `0xC08F4` followed by zeros). When `|d| ≥ 2^53`, where doubles are
//!   farther apart than 1, a 2-byte big-endian `delta = x - d` (0 ≤ delta
//!   < 2048) follows; it is decided by `d` alone, so the encoding stays
//!   prefix-free. **Numerically equal values encode identically**: 1 and
//!   1.0, 0.0 and -0.0 (so a UNIQUE index sees them as duplicates, as
//!   SQLite does), which also means the key does not say which storage
//!   class (or which zero) was stored. [`decode_key`] returns an INTEGER
//!   when the number is an integer within i64, a REAL otherwise; an index
//!   that must return the exact stored value reads it from the table row.
//!   A decoder rejects an encoding with a trailing zero group or more than
//!   ten bytes (each number has exactly one encoding).
//! - **Text and blobs**: bytes with each 0x00 written as 0x00 0xFF, then the
//!   terminator 0x00 0x00, which sorts before any content byte, so shorter
//!   prefixes sort first. Text is encoded in its collation's *sort form*:
//!   BINARY the UTF-8 bytes, NOCASE with ASCII letters lower-cased, RTRIM
//!   with trailing spaces removed. Decoding a NOCASE or RTRIM key therefore
//!   yields the folded text, not the original: an index on such a column
//!   needs the original value from the table.
//! - **DESC** columns have every byte of their encoding (tag included)
//!   inverted, which reverses their order and keeps them prefix-free.
//!
//! Row ids (table keys) use [`encode_rowid`]: a tag byte, `0x80 + n` for a
//! non-negative id of `n` significant bytes (0 to 8; 0 for the id 0) or
//! `0x7F - n` for a negative id whose complement `!id` has `n` significant
//! bytes, then the id's low `n` bytes big-endian (1 to 9 bytes; ids below
//! 2^24 take at most 4). Byte order is numeric order: a larger magnitude
//! has a larger tag for positives and a smaller one for negatives, and
//! among ids of one tag the low bytes order them. An index key ends with
//! its row id so encoded and then one byte holding that encoding's length
//! ([`push_index_rowid`], [`split_index_key`]); the row id's encoding is
//! prefix-free, so that last byte never decides an order.

use crate::sql::value::{Collation, Value};
use crate::{corrupt, Result};

const TAG_NULL: u8 = 0x05;
const TAG_NUMBER: u8 = 0x10;
const TAG_TEXT: u8 = 0x20;
const TAG_BLOB: u8 = 0x30;
const ESCAPE: u8 = 0xff;
const TERMINATOR: [u8; 2] = [0x00, 0x00];
/// Most bytes of a number's `f` (ten groups of 7 bits cover 64).
const MAX_FLOAT_LEN: usize = 10;
const DELTA_SIZE: usize = 2;
/// From this magnitude on, consecutive doubles are 2 or more apart.
const DELTA_THRESHOLD: f64 = 9_007_199_254_740_992.0; // 2^53
const SIGN_BIT: u64 = 1 << 63;

/// How one key column is ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyColumn {
    pub desc: bool,
    pub collation: Collation,
}

/// Most bytes of a row id's encoding: its tag and 8 bytes.
pub(crate) const MAX_ROWID_LEN: usize = 9;
/// Tag of the row id 0; `ROWID_ZERO + n` for a positive id of `n` bytes.
const ROWID_ZERO: u8 = 0x80;
/// Tag of the row id -1; `ROWID_MINUS_ONE - n` for a negative id of `n`.
const ROWID_MINUS_ONE: u8 = 0x7f;

/// A row id's key bytes (see [`encode_rowid`]); derefs to them.
#[derive(Clone, Copy)]
pub(crate) struct RowidKey {
    buf: [u8; MAX_ROWID_LEN],
    len: u8,
}

impl std::ops::Deref for RowidKey {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }
}

/// Significant bytes of `m` (0 for 0).
#[inline]
fn significant_bytes(m: u64) -> usize {
    (64 - m.leading_zeros() as usize).div_ceil(8)
}

/// `i64` → 1 to 9 bytes whose byte order is numeric order (module doc).
#[inline]
pub(crate) fn encode_rowid(rowid: i64) -> RowidKey {
    let (tag, n) = if rowid >= 0 {
        let n = significant_bytes(rowid as u64);
        (ROWID_ZERO + n as u8, n)
    } else {
        let n = significant_bytes(!rowid as u64);
        (ROWID_MINUS_ONE - n as u8, n)
    };
    // The id's low n bytes, moved to the top of a big-endian word: one
    // fixed-size store instead of a copy of n bytes.
    let mut buf = [0u8; MAX_ROWID_LEN];
    buf[0] = tag;
    let low = (rowid as u64).checked_shl(8 * (8 - n as u32)).unwrap_or(0);
    buf[1..].copy_from_slice(&low.to_be_bytes());
    RowidKey {
        buf,
        len: 1 + n as u8,
    }
}

/// The inverse of [`encode_rowid`]; errors unless `bytes` is exactly one
/// row id's encoding (the shortest one).
#[inline]
pub(crate) fn decode_rowid(bytes: &[u8]) -> Result<i64> {
    if let [tag, rest @ ..] = bytes {
        // The tag gives the sign and the length; the shortest form has no
        // leading sign-extension byte (0x00, or 0xFF for a negative id).
        let negative = *tag < ROWID_ZERO;
        let (n, pad, init) = match negative {
            false => (tag - ROWID_ZERO, 0x00, 0),
            true => (ROWID_MINUS_ONE.wrapping_sub(*tag), 0xff, u64::MAX),
        };
        if usize::from(n) == rest.len() && n <= 8 && rest.first() != Some(&pad) {
            let id = rest.iter().fold(init, |v, &b| v << 8 | u64::from(b)) as i64;
            if (id < 0) == negative {
                return Ok(id);
            }
        }
    }
    Err(bad_rowid(bytes))
}

#[cold]
#[inline(never)]
fn bad_rowid(bytes: &[u8]) -> crate::Error {
    corrupt!(0, "row id key {bytes:02x?} is not a valid encoding")
}

/// Appends what an index key ends with: `rowid`'s encoding and its length.
#[inline]
pub(crate) fn push_index_rowid(out: &mut Vec<u8>, rowid: i64) {
    let r = encode_rowid(rowid);
    out.extend_from_slice(&r);
    out.push(r.len() as u8);
}

/// An index key's column values (still encoded) and its row id.
#[inline]
pub(crate) fn split_index_key(key: &[u8]) -> Result<(&[u8], i64)> {
    if let Some((&len, rest)) = key.split_last() {
        if let Some(at) = rest.len().checked_sub(usize::from(len)) {
            if let Ok(rowid) = decode_rowid(&rest[at..]) {
                return Ok((&rest[..at], rowid));
            }
        }
    }
    Err(bad_index_key(key.len()))
}

#[cold]
#[inline(never)]
fn bad_index_key(len: usize) -> crate::Error {
    corrupt!(0, "index key of {len} bytes has no valid row id")
}

/// Encodes a tuple; `columns[i]` describes `values[i]` (missing specs mean
/// ASC BINARY, so `&[]` encodes a plain ascending key).
pub(crate) fn encode_key(values: &[Value], columns: &[KeyColumn]) -> Vec<u8> {
    encode_key_with_room(values, columns, 0)
}

/// [`encode_key`] into a vector with room for `extra` more bytes (an index
/// key's rowid): sized once, not grown while encoding.
pub(crate) fn encode_key_with_room(
    values: &[Value],
    columns: &[KeyColumn],
    extra: usize,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(key_capacity(values) + extra);
    append_key(&mut out, values, columns);
    out
}

/// Appends [`encode_key`]'s bytes to `out`.
pub(crate) fn append_key(out: &mut Vec<u8>, values: &[Value], columns: &[KeyColumn]) {
    for (i, v) in values.iter().enumerate() {
        append_value(out, v, columns.get(i).copied().unwrap_or_default());
    }
}

/// The bytes [`encode_key`] takes for `values`, but for the escape byte
/// after each zero byte of a text or blob.
fn key_capacity(values: &[Value]) -> usize {
    values
        .iter()
        .map(|v| match v {
            Value::Text(s) => 1 + s.len() + TERMINATOR.len(),
            Value::Blob(b) => 1 + b.len() + TERMINATOR.len(),
            _ => 1 + MAX_FLOAT_LEN + DELTA_SIZE,
        })
        .sum()
}

/// Appends one column's encoding to `out`.
pub(crate) fn append_value(out: &mut Vec<u8>, value: &Value, column: KeyColumn) {
    let start = out.len();
    match value {
        Value::Null => out.push(TAG_NULL),
        Value::Real(r) if r.is_nan() => out.push(TAG_NULL),
        Value::Integer(i) => append_number(out, floor_double(*i), *i),
        Value::Real(r) => {
            out.push(TAG_NUMBER);
            push_float(out, *r);
            if r.abs() >= DELTA_THRESHOLD {
                out.extend_from_slice(&[0; DELTA_SIZE]);
            }
        }
        Value::Text(s) => {
            out.push(TAG_TEXT);
            match column.collation {
                Collation::Binary => push_escaped(out, s.as_bytes()),
                Collation::NoCase => push_escaped(out, &s.as_bytes().to_ascii_lowercase()),
                Collation::RTrim => push_escaped(out, s.trim_end_matches(' ').as_bytes()),
            }
        }
        Value::Blob(b) => {
            out.push(TAG_BLOB);
            push_escaped(out, b);
        }
    }
    if column.desc {
        out[start..].iter_mut().for_each(|b| *b = !*b);
    }
}

/// The largest double not above `i`.
fn floor_double(i: i64) -> f64 {
    // The nearest double, which may be above `i`; exact below 2^53 (the
    // common case, and then no 128-bit library call).
    let d = i as f64;
    if i.unsigned_abs() <= 1 << 53 {
        return d;
    }
    if (d as i128) > i128::from(i) {
        next_down(d)
    } else {
        d
    }
}

fn next_down(d: f64) -> f64 {
    // d is finite and non-zero here (|d| ≥ 2^53).
    if d > 0.0 {
        f64::from_bits(d.to_bits() - 1)
    } else {
        f64::from_bits(d.to_bits() + 1)
    }
}

fn append_number(out: &mut Vec<u8>, d: f64, i: i64) {
    out.push(TAG_NUMBER);
    push_float(out, d);
    if d.abs() >= DELTA_THRESHOLD {
        let delta = (i128::from(i) - d as i128) as u16; // 0..2048 by construction
        out.extend_from_slice(&delta.to_be_bytes());
    }
}

fn push_float(out: &mut Vec<u8>, r: f64) {
    let r = if r == 0.0 { 0.0 } else { r }; // -0.0 sorts and encodes as 0.0
    let bits = r.to_bits();
    let ordered = if bits & SIGN_BIT != 0 {
        !bits
    } else {
        bits ^ SIGN_BIT
    };
    push_groups(out, ordered);
}

/// `u` in groups of 7 bits, trailing zero groups left out (module doc).
#[inline]
fn push_groups(out: &mut Vec<u8>, u: u64) {
    let groups = ((64 - u.trailing_zeros() as usize).div_ceil(7)).max(1);
    for i in 0..groups {
        let group = ((u << (7 * i)) >> 57) as u8;
        out.push(group << 1 | u8::from(i + 1 < groups));
    }
}

/// The inverse of [`push_groups`], from `*pos` (un-inverted for DESC),
/// advancing `pos`.
#[inline]
fn take_groups(key: &[u8], pos: &mut usize, flip: u8) -> Result<u64> {
    let mut u = 0u64;
    for i in 0..MAX_FLOAT_LEN {
        let [b] = take::<1>(key, pos, flip)?;
        let group = u64::from(b >> 1);
        if i + 1 < MAX_FLOAT_LEN {
            u |= group << (57 - 7 * i);
        } else if group & 0x3f == 0 {
            u |= group >> 6;
        } else {
            break;
        }
        if b & 1 == 0 {
            // The shortest form: no trailing zero group.
            if group == 0 && i > 0 {
                break;
            }
            return Ok(u);
        }
    }
    Err(corrupt!(0, "index key: bad number at byte {}", *pos - 1))
}

fn push_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len() + TERMINATOR.len());
    // Copied in runs up to each zero byte, which gets its escape after it.
    let mut rest = bytes;
    while let Some(z) = rest.iter().position(|&b| b == 0) {
        out.extend_from_slice(&rest[..=z]);
        out.push(ESCAPE);
        rest = &rest[z + 1..];
    }
    out.extend_from_slice(rest);
    out.extend_from_slice(&TERMINATOR);
}

#[cfg(test)] // used by tests only; the executor does not need it yet
/// The smallest byte string greater than every key that starts with
/// `prefix`, for the exclusive upper bound of a prefix range scan; `None`
/// when there is none (the prefix is empty or all 0xFF).
pub(crate) fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last != 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// Decodes a key made by [`encode_key`] with the same column specs, in
/// canonical form (see the module doc: numbers as INTEGER when integral and
/// in range, folded text for NOCASE/RTRIM). Errors on malformed bytes or a
/// column count different from `columns.len()`.
#[cfg(test)] // the executor visits keys with `visit_key`
pub(crate) fn decode_key(key: &[u8], columns: &[KeyColumn]) -> Result<Vec<Value>> {
    let mut values = Vec::with_capacity(columns.len());
    visit_key(key, columns, |_, v| values.push(v))?;
    Ok(values)
}

/// Decodes a key as [`decode_key`] does, handing each column's value (with
/// its position) to `f` instead of collecting them; the errors are the
/// same, and a value already handed out stays handed out.
pub(crate) fn visit_key(
    key: &[u8],
    columns: &[KeyColumn],
    mut f: impl FnMut(usize, Value),
) -> Result<()> {
    let mut pos = 0;
    for (i, column) in columns.iter().enumerate() {
        f(i, decode_value(key, &mut pos, column.desc)?);
    }
    if pos != key.len() {
        return Err(corrupt!(
            0,
            "index key: {} bytes after {} columns",
            key.len() - pos,
            columns.len()
        ));
    }
    Ok(())
}

/// The `N` bytes at `*pos` (un-inverted for a DESC column), advancing `pos`.
fn take<const N: usize>(key: &[u8], pos: &mut usize, flip: u8) -> Result<[u8; N]> {
    let start = *pos;
    let bytes = key
        .get(start..start + N)
        .ok_or_else(|| corrupt!(0, "index key: truncated at byte {start}"))?;
    let mut out = [0u8; N];
    for (o, b) in out.iter_mut().zip(bytes) {
        *o = b ^ flip;
    }
    *pos += N;
    Ok(out)
}

fn decode_value(key: &[u8], pos: &mut usize, desc: bool) -> Result<Value> {
    let flip = if desc { 0xff } else { 0 };
    let [tag] = take::<1>(key, pos, flip)?;
    match tag {
        TAG_NULL => Ok(Value::Null),
        TAG_NUMBER => {
            let start = *pos;
            let ordered = take_groups(key, pos, flip)?;
            let bits = if ordered & SIGN_BIT != 0 {
                ordered ^ SIGN_BIT
            } else {
                !ordered
            };
            let d = f64::from_bits(bits);
            if d.is_nan() {
                return Err(corrupt!(0, "index key: NaN at byte {start}"));
            }
            let delta = if d.abs() >= DELTA_THRESHOLD {
                i128::from(u16::from_be_bytes(take::<DELTA_SIZE>(key, pos, flip)?))
            } else {
                0
            };
            Ok(canonical_number(d, delta))
        }
        TAG_TEXT | TAG_BLOB => {
            let mut bytes = Vec::new();
            loop {
                let [b] = take::<1>(key, pos, flip)?;
                if b != 0 {
                    bytes.push(b);
                    continue;
                }
                match take::<1>(key, pos, flip)? {
                    [0] => break,
                    [ESCAPE] => bytes.push(0),
                    [other] => return Err(corrupt!(0, "index key: bad escape 0x00 0x{other:02x}")),
                }
            }
            if tag == TAG_BLOB {
                Ok(Value::Blob(bytes))
            } else {
                String::from_utf8(bytes)
                    .map(Value::Text)
                    .map_err(|_| corrupt!(0, "index key: text is not UTF-8"))
            }
        }
        other => Err(corrupt!(0, "index key: unknown tag 0x{other:02x}")),
    }
}

fn canonical_number(d: f64, delta: i128) -> Value {
    // Only |d| < 2^64 can be an i64 (with its delta); larger d would also
    // overflow the i128 sum on a corrupt delta.
    if d.fract() == 0.0 && d.abs() < 2f64.powi(64) {
        if let Ok(i) = i64::try_from(d as i128 + delta) {
            return Value::Integer(i);
        }
    }
    Value::Real(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::value::compare;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    fn value_strategy() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::Integer),
            (-3i64..3).prop_map(Value::Integer),
            prop_oneof![
                Just(i64::MAX),
                Just(i64::MIN),
                Just((1 << 53) + 1),
                Just(-(1 << 53) - 1)
            ]
            .prop_map(Value::Integer),
            any::<f64>()
                .prop_filter("no NaN", |r| !r.is_nan())
                .prop_map(Value::Real),
            (-3i64..3).prop_map(|i| Value::Real(i as f64 / 2.0)),
            prop_oneof![
                Just(9.223372036854776e18),
                Just(-9.223372036854776e18),
                Just(9007199254740992.0),
                Just(-0.0)
            ]
            .prop_map(Value::Real),
            "[a-cA-C \\x00]{0,5}".prop_map(Value::Text),
            proptest::collection::vec(0u8..3, 0..5).prop_map(Value::Blob),
        ]
    }

    fn rowid_strategy() -> impl Strategy<Value = i64> {
        prop_oneof![
            any::<i64>(),
            -300i64..300,
            (0u32..64).prop_map(|s| 1i64.wrapping_shl(s)),
            (0u32..64).prop_map(|s| 1i64.wrapping_shl(s).wrapping_sub(1)),
            (0u32..64).prop_map(|s| 1i64.wrapping_shl(s).wrapping_neg()),
            Just(i64::MIN),
            Just(i64::MAX),
        ]
    }

    fn column_strategy() -> impl Strategy<Value = KeyColumn> {
        (
            any::<bool>(),
            prop_oneof![
                Just(Collation::Binary),
                Just(Collation::NoCase),
                Just(Collation::RTrim)
            ],
        )
            .prop_map(|(desc, collation)| KeyColumn { desc, collation })
    }

    fn sqlite_order(a: &[Value], b: &[Value], columns: &[KeyColumn]) -> Ordering {
        for ((x, y), c) in a.iter().zip(b).zip(columns) {
            let o = compare(x, y, c.collation);
            let o = if c.desc { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn byte_order_is_sqlite_order(
            pairs in proptest::collection::vec((value_strategy(), value_strategy(), column_strategy()), 1..4)
        ) {
            let a: Vec<Value> = pairs.iter().map(|p| p.0.clone()).collect();
            let b: Vec<Value> = pairs.iter().map(|p| p.1.clone()).collect();
            let columns: Vec<KeyColumn> = pairs.iter().map(|p| p.2).collect();
            let (ka, kb) = (encode_key(&a, &columns), encode_key(&b, &columns));
            prop_assert_eq!(ka.cmp(&kb), sqlite_order(&a, &b, &columns), "{:?} vs {:?}", a, b);
            let back = decode_key(&ka, &columns).unwrap();
            prop_assert_eq!(sqlite_order(&a, &back, &columns), Ordering::Equal);
            prop_assert_eq!(encode_key(&back, &columns), ka);
        }

        #[test]
        fn prefix_end_bounds_every_extension(
            prefix in proptest::collection::vec(any::<u8>(), 0..6),
            suffix in proptest::collection::vec(any::<u8>(), 0..6),
        ) {
            let mut key = prefix.clone();
            key.extend_from_slice(&suffix);
            match prefix_end(&prefix) {
                Some(end) => {
                    prop_assert!(key < end);
                    prop_assert!(prefix < end);
                }
                None => prop_assert!(prefix.iter().all(|&b| b == 0xff)),
            }
        }

        #[test]
        fn rowids_round_trip_in_order(a in rowid_strategy(), b in rowid_strategy()) {
            prop_assert_eq!(encode_rowid(a).cmp(&encode_rowid(b)), a.cmp(&b));
            prop_assert_eq!(decode_rowid(&encode_rowid(a)).unwrap(), a);
        }

        #[test]
        fn index_keys_order_by_values_then_rowid(
            a in value_strategy(), b in value_strategy(),
            ra in rowid_strategy(), rb in rowid_strategy(),
        ) {
            let key = |v: &Value, r: i64| {
                let mut k = encode_key(std::slice::from_ref(v), &[]);
                push_index_rowid(&mut k, r);
                k
            };
            let (ka, kb) = (key(&a, ra), key(&b, rb));
            let expected = compare(&a, &b, Collation::Binary).then(ra.cmp(&rb));
            prop_assert_eq!(ka.cmp(&kb), expected);
            let (values, rowid) = split_index_key(&ka).unwrap();
            prop_assert_eq!(rowid, ra);
            prop_assert_eq!(values, &encode_key(&[a], &[])[..]);
        }

        #[test]
        fn garbage_rowids_are_rejected_or_canonical(bytes in proptest::collection::vec(any::<u8>(), 0..11)) {
            // Whatever decodes re-encodes to the same bytes: one encoding
            // per row id, so equal ids are equal keys.
            if let Ok(id) = decode_rowid(&bytes) {
                prop_assert_eq!(&encode_rowid(id)[..], &bytes[..]);
            }
            let _ = split_index_key(&bytes);
        }

        #[test]
        fn garbage_numbers_are_rejected_or_canonical(bytes in proptest::collection::vec(any::<u8>(), 0..14)) {
            let mut key = vec![TAG_NUMBER];
            key.extend_from_slice(&bytes);
            if let Ok(values) = decode_key(&key, &[KeyColumn::default()]) {
                if let [Value::Real(r)] = values[..] {
                    prop_assert!(!r.is_nan());
                }
            }
        }

        #[test]
        fn garbage_keys_do_not_panic(bytes in proptest::collection::vec(any::<u8>(), 0..30)) {
            let _ = decode_key(&bytes, &[KeyColumn::default(), KeyColumn { desc: true, ..Default::default() }]);
        }
    }

    #[test]
    fn small_numbers_and_rowids_are_short() {
        let k = |v: Value| encode_key(&[v], &[]).len();
        assert_eq!(k(Value::Integer(0)), 2);
        assert_eq!(k(Value::Integer(1000)), 4);
        assert_eq!(k(Value::Real(0.5)), 3);
        assert_eq!(encode_rowid(0).len(), 1);
        assert_eq!(encode_rowid(-1).len(), 1);
        assert_eq!(encode_rowid(255).len(), 2);
        assert_eq!(encode_rowid(200_000).len(), 4);
        assert_eq!(encode_rowid(i64::MIN).len(), 9);
        let mut suffix = Vec::new();
        push_index_rowid(&mut suffix, 200_000);
        assert_eq!(suffix, [0x83, 0x03, 0x0d, 0x40, 4]);
    }

    #[test]
    fn equal_numbers_encode_equal() {
        let k = |v: Value| encode_key(&[v], &[]);
        assert_eq!(k(Value::Integer(1)), k(Value::Real(1.0)));
        assert_eq!(k(Value::Real(0.0)), k(Value::Real(-0.0)));
        assert_eq!(
            k(Value::Integer(1 << 60)),
            k(Value::Real((1u64 << 60) as f64))
        );
        assert!(k(Value::Integer((1 << 53) + 1)) > k(Value::Real((1u64 << 53) as f64)));
        assert!(k(Value::Integer(i64::MAX)) < k(Value::Real(9.223372036854776e18)));
    }
}
