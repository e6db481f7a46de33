//! Text and blob scalar functions. Arguments are read the way SQLite's C
//! code reads them: `sqlite3_value_text` (numbers rendered, blobs as their
//! bytes) unless the function distinguishes blobs itself (length, substr,
//! instr, hex).

use super::{arg_i32, arg_text, bytes_len, c_str, check_length, text_result};
use crate::sql::value::{parse_real, real_to_text, Collation, Value};
use crate::Result;

pub(super) fn length(args: &[Value], _: Collation) -> Result<Value> {
    Ok(match &args[0] {
        Value::Null => Value::Null,
        Value::Text(s) => Value::Integer(c_str(s).chars().count() as i64),
        Value::Blob(b) => Value::Integer(b.len() as i64),
        other => Value::Integer(other.to_text().map_or(0, |t| t.len()) as i64),
    })
}

pub(super) fn octet_length(args: &[Value], _: Collation) -> Result<Value> {
    Ok(match arg_text(&args[0]) {
        None => Value::Null,
        Some(bytes) => Value::Integer(bytes.len() as i64),
    })
}

pub(super) fn lower(args: &[Value], _: Collation) -> Result<Value> {
    Ok(match &args[0] {
        // ASCII case mapping keeps text valid UTF-8: no copy to check.
        Value::Text(s) => Value::Text(s.to_ascii_lowercase()),
        other => arg_text(other).map_or(Value::Null, |b| text_result(b.to_ascii_lowercase())),
    })
}

pub(super) fn upper(args: &[Value], _: Collation) -> Result<Value> {
    Ok(match &args[0] {
        Value::Text(s) => Value::Text(s.to_ascii_uppercase()),
        other => arg_text(other).map_or(Value::Null, |b| text_result(b.to_ascii_uppercase())),
    })
}

/// `substr(x, start[, len])` with SQLite's rules for zero and negative
/// positions and lengths; characters for text, bytes for blobs.
pub(super) fn substr(args: &[Value], _: Collation) -> Result<Value> {
    if args[1].is_null() || args.get(2).is_some_and(Value::is_null) || args[0].is_null() {
        return Ok(Value::Null);
    }
    if matches!(&args[0], Value::Blob(b) if b.is_empty()) {
        return Ok(Value::Null); // SQLite reads an empty blob as a NULL pointer
    }
    let mut p1 = arg_i32(&args[1]);
    let (mut p2, neg_p2) = match args.get(2) {
        Some(v) => {
            let p2 = arg_i32(v);
            (p2.abs(), p2 < 0)
        }
        None => (1_000_000_000, false), // SQLITE_LIMIT_LENGTH
    };
    let blob = match &args[0] {
        Value::Blob(b) => Some(b.as_slice()),
        _ => None,
    };
    let text = c_str(&args[0].to_text().unwrap_or_default()).to_string();
    let chars: Vec<char> = if blob.is_none() {
        text.chars().collect()
    } else {
        Vec::new()
    };
    let len = blob.map_or(chars.len(), <[u8]>::len) as i64;
    if p1 < 0 {
        p1 += len;
        if p1 < 0 {
            p2 += p1;
            if p2 < 0 {
                p2 = 0;
            }
            p1 = 0;
        }
    } else if p1 > 0 {
        p1 -= 1;
    } else if p2 > 0 {
        p2 -= 1;
    }
    if neg_p2 {
        p1 -= p2;
        if p1 < 0 {
            p2 += p1;
            p1 = 0;
        }
    }
    let start = p1.min(len) as usize;
    let end = (p1 + p2).min(len).max(p1.min(len)) as usize;
    Ok(match blob {
        Some(b) => Value::Blob(b[start..end].to_vec()),
        None => Value::Text(chars[start..end].iter().collect()),
    })
}

fn trim_impl(args: &[Value], left: bool, right: bool) -> Result<Value> {
    let Some(input) = arg_text(&args[0]) else {
        return Ok(Value::Null);
    };
    let set: Vec<Vec<u8>> = match args.get(1) {
        None => vec![b" ".to_vec()],
        Some(v) => match v.to_text() {
            None => return Ok(Value::Null),
            Some(s) => c_str(&s)
                .chars()
                .map(|c| c.to_string().into_bytes())
                .collect(),
        },
    };
    let mut s: &[u8] = &input;
    if left {
        while let Some(c) = set.iter().find(|c| s.starts_with(c)) {
            s = &s[c.len()..];
        }
    }
    if right {
        while let Some(c) = set.iter().find(|c| s.ends_with(c)) {
            s = &s[..s.len() - c.len()];
        }
    }
    Ok(text_result(s.to_vec()))
}

pub(super) fn trim(args: &[Value], _: Collation) -> Result<Value> {
    trim_impl(args, true, true)
}

pub(super) fn ltrim(args: &[Value], _: Collation) -> Result<Value> {
    trim_impl(args, true, false)
}

pub(super) fn rtrim(args: &[Value], _: Collation) -> Result<Value> {
    trim_impl(args, false, true)
}

/// `replace(x, from, to)`: non-overlapping, left to right, bytewise.
pub(super) fn replace(args: &[Value], _: Collation) -> Result<Value> {
    let Some(s) = arg_text(&args[0]) else {
        return Ok(Value::Null);
    };
    let Some(pattern) = arg_text(&args[1]) else {
        return Ok(Value::Null);
    };
    if pattern.first().is_none_or(|&b| b == 0) {
        return Ok(text_result(s));
    }
    let Some(rep) = arg_text(&args[2]) else {
        return Ok(Value::Null);
    };
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(&pattern) {
            check_length(out.len() + rep.len())?;
            out.extend_from_slice(&rep);
            i += pattern.len();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    Ok(text_result(out))
}

/// `instr(haystack, needle)`: 1-based position of the first match
/// (characters for text, bytes when both are blobs), 0 if none.
pub(super) fn instr(args: &[Value], _: Collation) -> Result<Value> {
    let (h, n) = (&args[0], &args[1]);
    if h.is_null() || n.is_null() {
        return Ok(Value::Null);
    }
    if let (Value::Blob(h), Value::Blob(n)) = (h, n) {
        if n.is_empty() {
            return Ok(Value::Integer(1));
        }
        let pos = h.windows(n.len()).position(|w| w == n.as_slice());
        return Ok(Value::Integer(pos.map_or(0, |p| p as i64 + 1)));
    }
    let h = h.to_text().unwrap_or_default();
    let n = n.to_text().unwrap_or_default();
    if n.is_empty() {
        return Ok(Value::Integer(1));
    }
    Ok(Value::Integer(
        h.find(&n)
            .map_or(0, |byte| h[..byte].chars().count() as i64 + 1),
    ))
}

const HEX_DIGITS: &[u8; 16] = b"0123456789ABCDEF";

fn push_hex(out: &mut String, bytes: &[u8]) {
    for b in bytes {
        out.push(char::from(HEX_DIGITS[usize::from(b >> 4)]));
        out.push(char::from(HEX_DIGITS[usize::from(b & 0xf)]));
    }
}

/// `hex(x)`: upper-case hex of the blob or text bytes (NULL gives '').
pub(super) fn hex(args: &[Value], _: Collation) -> Result<Value> {
    check_length(bytes_len(&args[0]) * 2)?;
    let bytes = arg_text(&args[0]).unwrap_or_default();
    let mut out = String::with_capacity(bytes.len() * 2);
    push_hex(&mut out, &bytes);
    Ok(Value::Text(out))
}

/// `unhex(x[, ignore])`: the blob of hex digit pairs; characters in
/// `ignore` may appear between pairs; anything else gives NULL.
pub(super) fn unhex(args: &[Value], _: Collation) -> Result<Value> {
    let Some(hex) = args[0].to_text().map(|h| c_str(&h).to_string()) else {
        return Ok(Value::Null);
    };
    let pass = match args.get(1) {
        None => String::new(),
        Some(v) => match v.to_text() {
            None => return Ok(Value::Null),
            Some(p) => p,
        },
    };
    let mut out = Vec::with_capacity(hex.len() / 2);
    let mut chars = hex.chars().peekable();
    while let Some(&c) = chars.peek() {
        if !c.is_ascii_hexdigit() {
            if !pass.contains(c) {
                return Ok(Value::Null);
            }
            chars.next();
            continue;
        }
        chars.next();
        let Some(d) = chars.next().filter(char::is_ascii_hexdigit) else {
            return Ok(Value::Null);
        };
        let digit = |c: char| c.to_digit(16).unwrap_or(0) as u8;
        out.push((digit(c) << 4) | digit(d));
    }
    Ok(Value::Blob(out))
}

/// `quote(x)`: an SQL literal for x.
pub(super) fn quote(args: &[Value], _: Collation) -> Result<Value> {
    Ok(Value::Text(match &args[0] {
        Value::Null => "NULL".to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => quote_real(*r),
        Value::Text(s) => {
            check_length(s.len() + 2)?;
            format!("'{}'", c_str(s).replace('\'', "''"))
        }
        Value::Blob(b) => {
            check_length(b.len() * 2 + 3)?;
            let mut out = String::with_capacity(b.len() * 2 + 3);
            out.push_str("X'");
            push_hex(&mut out, b);
            out.push('\'');
            out
        }
    }))
}

/// `%!0.15g`, or `%!0.20e` when 15 digits do not read back as `r`.
fn quote_real(r: f64) -> String {
    if r.is_nan() {
        return "null".to_string();
    }
    let short = real_to_text(r);
    if parse_real(short.as_bytes()).0 == r {
        return short;
    }
    let flags = super::printf::Flags {
        alt2: true,
        zero_pad: true,
        ..Default::default()
    };
    text_result(super::printf::format_real(r, b'e', 20, flags, 0))
        .to_text()
        .unwrap_or(short)
}

/// `char(x, ...)`: the string of those code points; out-of-range ones
/// become U+FFFD. SQLite writes surrogates (U+D800..U+DFFF) as raw 3-byte
/// sequences, which are not UTF-8; we build the same bytes and replace the
/// invalid ones, as any text boundary of ours does.
pub(super) fn char(args: &[Value], _: Collation) -> Result<Value> {
    let mut out = Vec::with_capacity(args.len() * 4);
    for v in args {
        let x = v.to_i64();
        let c = if (0..=0x10ffff).contains(&x) {
            x as u32
        } else {
            0xfffd
        };
        match c {
            0..=0x7f => out.push(c as u8),
            0x80..=0x7ff => {
                out.extend_from_slice(&[0xc0 | (c >> 6) as u8, 0x80 | (c & 0x3f) as u8])
            }
            0x800..=0xffff => out.extend_from_slice(&[
                0xe0 | (c >> 12) as u8,
                0x80 | ((c >> 6) & 0x3f) as u8,
                0x80 | (c & 0x3f) as u8,
            ]),
            _ => out.extend_from_slice(&[
                0xf0 | (c >> 18) as u8,
                0x80 | ((c >> 12) & 0x3f) as u8,
                0x80 | ((c >> 6) & 0x3f) as u8,
                0x80 | (c & 0x3f) as u8,
            ]),
        }
    }
    Ok(text_result(out))
}

/// `unicode(x)`: the code point of the first character, NULL if empty.
pub(super) fn unicode(args: &[Value], _: Collation) -> Result<Value> {
    // A leading NUL ends the C string SQLite reads: empty, so NULL.
    Ok(
        match args[0]
            .to_text()
            .and_then(|s| s.chars().next())
            .filter(|&c| c != '\0')
        {
            Some(c) => Value::Integer(i64::from(u32::from(c))),
            None => Value::Null,
        },
    )
}

/// `concat(x, ...)`: the texts of the non-NULL arguments.
pub(super) fn concat(args: &[Value], _: Collation) -> Result<Value> {
    check_length(args.iter().map(bytes_len).sum())?;
    Ok(text_result(
        args.iter().filter_map(arg_text).flatten().collect(),
    ))
}

/// `concat_ws(sep, x, ...)`: non-empty, non-NULL texts joined by sep.
pub(super) fn concat_ws(args: &[Value], _: Collation) -> Result<Value> {
    let Some(sep) = arg_text(&args[0]) else {
        return Ok(Value::Null);
    };
    let parts = args[1..]
        .iter()
        .filter(|a| bytes_len(a) > 0 || matches!(a, Value::Integer(_) | Value::Real(_)));
    let (count, len) = parts.fold((0usize, 0), |(n, len), a| (n + 1, len + bytes_len(a)));
    check_length(len + sep.len() * count.saturating_sub(1))?;
    let mut out = Vec::new();
    for part in args[1..]
        .iter()
        .filter_map(arg_text)
        .filter(|p| !p.is_empty())
    {
        if !out.is_empty() {
            out.extend_from_slice(&sep);
        }
        out.extend_from_slice(&part);
    }
    Ok(text_result(out))
}
