//! `printf(format, ...)` / `format(...)`: SQLite's own printf
//! (`sqlite3_str_vappendf` with SQL-function arguments), not C's.
//!
//! Conversions: `%d %i %u %x %X %o %p %r %f %e %E %g %G %s %z %q %Q %w %c %n
//! %%`; flags `- + space # ! 0 ,`; width and precision, `*` for either;
//! `l`/`ll` are accepted and ignored. Missing arguments read as 0 / NULL. An
//! unknown conversion ends the output there, as in SQLite. Reals use
//! SQLite's digit generation (`value::decode`), at most 16 significant
//! digits (26 with `!`).

use super::{arg_text, c_bytes, text_result};
use crate::sql::value::{decode, Collation, Decoded, Digits, Value};
use crate::{Error, Result};

/// SQLite's SQLITE_MAX_LENGTH, as printf's widths are counted.
const MAX_LENGTH: i64 = super::MAX_LENGTH as i64;

/// Flags of one conversion.
#[derive(Clone, Copy, Default)]
pub(super) struct Flags {
    pub left_justify: bool,
    /// b'+', b' ' or 0.
    pub prefix: u8,
    pub alternate: bool,
    pub alt2: bool,
    pub zero_pad: bool,
    pub thousands: bool,
}

/// The SQL arguments after the format, consumed left to right.
struct Args<'a> {
    values: &'a [Value],
    used: usize,
}

impl Args<'_> {
    fn next(&mut self) -> Option<&Value> {
        let v = self.values.get(self.used);
        if v.is_some() {
            self.used += 1;
        }
        v
    }
    fn int(&mut self) -> i64 {
        self.next().map_or(0, Value::to_i64)
    }
    fn real(&mut self) -> f64 {
        self.next().map_or(0.0, Value::to_f64)
    }
    fn text(&mut self) -> Option<Vec<u8>> {
        self.next().and_then(arg_text)
    }
}

pub(super) fn printf(args: &[Value], _: Collation) -> Result<Value> {
    let Some(format) = args
        .first()
        .and_then(arg_text)
        .map(|f| c_bytes(&f).to_vec())
    else {
        return Ok(Value::Null);
    };
    let mut out = Vec::with_capacity(format.len() + 16);
    let mut args = Args {
        values: &args[1..],
        used: 0,
    };
    let mut pos = 0;
    // SQLite's accumulator returns NULL when nothing was ever appended (an
    // empty format, or one that starts with an invalid conversion); every
    // finished conversion appends, even zero bytes.
    let mut appended = false;
    while pos < format.len() {
        let Some(rel) = format[pos..].iter().position(|&b| b == b'%') else {
            out.extend_from_slice(&format[pos..]);
            appended = true;
            break;
        };
        out.extend_from_slice(&format[pos..pos + rel]);
        appended |= rel > 0;
        pos += rel + 1;
        if pos >= format.len() {
            out.push(b'%');
            appended = true;
            break;
        }
        match conversion(&format, &mut pos, &mut args, &mut out)? {
            Some(()) => appended = true,
            None => break,
        }
    }
    Ok(if appended {
        text_result(out)
    } else {
        Value::Null
    })
}

/// Parses flags, width and precision at `format[*pos..]` (just after the
/// '%'), then renders the conversion into `out`. `Ok(None)` stops the
/// output (an unknown conversion).
fn conversion(
    format: &[u8],
    pos: &mut usize,
    args: &mut Args<'_>,
    out: &mut Vec<u8>,
) -> Result<Option<()>> {
    let mut flags = Flags::default();
    let mut width: i64 = 0;
    let mut precision: i64 = -1;
    let at = |i: usize| format.get(i).copied().unwrap_or(0);
    let mut c = at(*pos);
    loop {
        match c {
            b'-' => flags.left_justify = true,
            b'+' => flags.prefix = b'+',
            b' ' => flags.prefix = b' ',
            b'#' => flags.alternate = true,
            b'!' => flags.alt2 = true,
            b'0' => flags.zero_pad = true,
            b',' => flags.thousands = true,
            b'l' => {
                *pos += 1;
                c = at(*pos);
                if c == b'l' {
                    *pos += 1;
                    c = at(*pos);
                }
                break;
            }
            b'1'..=b'9' => {
                let mut w: u64 = 0;
                while at(*pos).is_ascii_digit() {
                    w = (w * 10 + u64::from(at(*pos) - b'0')) & 0xffff_ffff;
                    *pos += 1;
                }
                width = (w & 0x7fff_ffff) as i64;
                c = at(*pos);
                if c != b'.' && c != b'l' {
                    break;
                }
                continue;
            }
            b'*' => {
                width = i64::from(args.int() as i32);
                if width < 0 {
                    flags.left_justify = true;
                    width = if width >= -2_147_483_647 { -width } else { 0 };
                }
                let next = at(*pos + 1);
                if next != b'.' && next != b'l' {
                    *pos += 1;
                    c = next;
                    break;
                }
            }
            b'.' => {
                *pos += 1;
                c = at(*pos);
                if c == b'*' {
                    precision = i64::from(args.int() as i32);
                    if precision < 0 {
                        precision = if precision >= -2_147_483_647 {
                            -precision
                        } else {
                            -1
                        };
                    }
                    *pos += 1;
                    c = at(*pos);
                } else {
                    let mut p: u64 = 0;
                    while c.is_ascii_digit() {
                        p = (p * 10 + u64::from(c - b'0')) & 0xffff_ffff;
                        *pos += 1;
                        c = at(*pos);
                    }
                    precision = (p & 0x7fff_ffff) as i64;
                }
                if c == b'l' {
                    continue;
                }
                break;
            }
            _ => break,
        }
        *pos += 1;
        c = at(*pos);
        if c == 0 {
            break;
        }
    }
    *pos += 1; // past the conversion character
               // SQLite fails with SQLITE_TOOBIG past its length limit; refusing the
               // field up front also keeps a huge width from allocating gigabytes.
    if width > MAX_LENGTH || precision > MAX_LENGTH || out.len() as i64 > MAX_LENGTH {
        return Err(Error::TooLarge("string or blob too big".to_string()));
    }
    let Some((body, width)) = render(c, flags, width, precision, args, out) else {
        return Ok(None);
    };
    pad(out, &body, width, flags.left_justify);
    Ok(Some(()))
}

/// Appends `body` padded with spaces to `width` bytes.
fn pad(out: &mut Vec<u8>, body: &[u8], width: i64, left: bool) {
    let fill = (width - body.len() as i64).max(0) as usize;
    if !left {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(body);
    if left {
        out.resize(out.len() + fill, b' ');
    }
}

/// Renders one conversion; returns the field body and the width to pad to.
fn render(
    c: u8,
    flags: Flags,
    width: i64,
    precision: i64,
    args: &mut Args<'_>,
    out: &mut Vec<u8>,
) -> Option<(Vec<u8>, i64)> {
    Some(match c {
        b'd' | b'i' | b'u' | b'r' | b'x' | b'X' | b'p' | b'o' => {
            let radix = Radix::of(c);
            let flags = if radix.base == 10 && c != b'r' {
                flags
            } else {
                no_thousands(flags)
            };
            (integer(args.int(), radix, flags, width, precision), width)
        }
        b'f' | b'e' | b'E' | b'g' | b'G' => {
            let body = format_real(args.real(), c, precision, flags, width);
            (body, width)
        }
        b'n' => (Vec::new(), 0),
        b'%' => (b"%".to_vec(), width),
        b'c' => return Some(character(args, flags, width, precision, out)),
        b's' | b'z' => {
            let s = c_bytes(&args.text().unwrap_or_default()).to_vec();
            let len = if precision >= 0 {
                prefix_len(&s, precision as usize, flags.alt2)
            } else {
                s.len()
            };
            let body = s[..len].to_vec();
            let width = utf8_width(&body, width, flags.alt2);
            (body, width)
        }
        b'q' | b'Q' | b'w' => {
            let body = escape(args.text(), c, precision, flags.alt2);
            let width = utf8_width(&body, width, flags.alt2);
            (body, width)
        }
        _ => return None,
    })
}

fn no_thousands(flags: Flags) -> Flags {
    Flags {
        thousands: false,
        ..flags
    }
}

/// With `!`, width counts characters: add one per UTF-8 continuation byte.
fn utf8_width(body: &[u8], width: i64, alt2: bool) -> i64 {
    if alt2 && width > 0 {
        width + body.iter().filter(|&&b| b & 0xc0 == 0x80).count() as i64
    } else {
        width
    }
}

/// Bytes in the first `n` bytes (or characters, with `!`) of `s`.
fn prefix_len(s: &[u8], n: usize, chars: bool) -> usize {
    if !chars {
        return n.min(s.len());
    }
    let mut i = 0;
    for _ in 0..n {
        if i >= s.len() {
            break;
        }
        i += 1;
        if s[i - 1] >= 0xc0 {
            while i < s.len() && s[i] & 0xc0 == 0x80 {
                i += 1;
            }
        }
    }
    i
}

/// How an integer conversion writes its digits (SQLite's `fmtinfo` rows).
struct Radix {
    base: u64,
    signed: bool,
    digits: &'static [u8; 16],
    /// Written before the digits with `#`.
    alt_prefix: &'static [u8],
    ordinal: bool,
}

impl Radix {
    fn of(c: u8) -> Radix {
        const UPPER: &[u8; 16] = b"0123456789ABCDEF";
        const LOWER: &[u8; 16] = b"0123456789abcdef";
        let (base, signed, digits, alt_prefix): (u64, bool, &'static [u8; 16], &'static [u8]) =
            match c {
                b'x' => (16, false, LOWER, b"0x"),
                b'X' => (16, false, UPPER, b"0X"),
                b'p' => (16, false, UPPER, b"0x"),
                b'o' => (8, false, UPPER, b"0"),
                b'u' => (10, false, UPPER, b""),
                _ => (10, true, UPPER, b""),
            };
        Radix {
            base,
            signed,
            digits,
            alt_prefix,
            ordinal: c == b'r',
        }
    }
}

fn integer(v: i64, radix: Radix, flags: Flags, width: i64, precision: i64) -> Vec<u8> {
    let Radix {
        base,
        signed,
        alt_prefix,
        ordinal,
        ..
    } = radix;
    let (magnitude, sign) = if signed && v < 0 {
        (v.unsigned_abs(), b'-')
    } else {
        (v as u64, if signed { flags.prefix } else { 0 })
    };
    let alternate = flags.alternate && magnitude != 0;
    let mut precision = precision;
    if flags.zero_pad && precision < width - i64::from(sign != 0) {
        precision = width - i64::from(sign != 0);
    }
    let digits_set = radix.digits;
    let mut digits = Vec::new();
    let mut x = magnitude;
    loop {
        digits.push(digits_set[(x % base) as usize]);
        x /= base;
        if x == 0 {
            break;
        }
    }
    while (digits.len() as i64) < precision {
        digits.push(b'0');
    }
    digits.reverse();
    if flags.thousands {
        let mut grouped = Vec::with_capacity(digits.len() * 4 / 3);
        for (k, d) in digits.iter().enumerate() {
            if k > 0 && (digits.len() - k) % 3 == 0 {
                grouped.push(b',');
            }
            grouped.push(*d);
        }
        digits = grouped;
    }
    let mut body = Vec::with_capacity(digits.len() + 4);
    if alternate {
        body.extend_from_slice(alt_prefix);
    }
    if sign != 0 {
        body.push(sign);
    }
    body.extend_from_slice(&digits);
    if ordinal {
        let last = magnitude % 10;
        let suffix: &[u8] = match last {
            _ if (magnitude / 10) % 10 == 1 => b"th",
            1 => b"st",
            2 => b"nd",
            3 => b"rd",
            _ => b"th",
        };
        body.extend_from_slice(suffix);
    }
    body
}

/// `%c`: the first character of the argument's text, `precision` times.
fn character(
    args: &mut Args<'_>,
    flags: Flags,
    width: i64,
    precision: i64,
    out: &mut Vec<u8>,
) -> (Vec<u8>, i64) {
    let text = args.text();
    let ch: Vec<u8> = match text.as_deref() {
        None | Some([]) => vec![0],
        Some(t) => t[..prefix_len(t, 1, true).max(1)]
            .iter()
            .take(4)
            .copied()
            .collect(),
    };
    let mut width = width;
    if precision > 1 {
        width -= precision - 1;
        if width > 1 && !flags.left_justify {
            out.resize(out.len() + (width - 1) as usize, b' ');
            width = 0;
        }
        for _ in 0..precision - 1 {
            out.extend_from_slice(&ch);
        }
    }
    let width = utf8_width(&ch, width, true);
    (ch, width)
}

/// `%q` (double the '), `%Q` (also quote; NULL → NULL), `%w` (double the ").
fn escape(arg: Option<Vec<u8>>, c: u8, precision: i64, alt2: bool) -> Vec<u8> {
    let quote = if c == b'w' { b'"' } else { b'\'' };
    let is_null = arg.is_none();
    let text = arg.map(|a| c_bytes(&a).to_vec()).unwrap_or_else(|| {
        if c == b'Q' {
            b"NULL".to_vec()
        } else {
            b"(NULL)".to_vec()
        }
    });
    let len = if precision >= 0 {
        prefix_len(&text, precision as usize, alt2)
    } else {
        text.len()
    };
    let needs_quotes = !is_null && c == b'Q';
    let mut body = Vec::with_capacity(len + 4);
    if needs_quotes {
        body.push(quote);
    }
    for &b in &text[..len] {
        body.push(b);
        if b == quote {
            body.push(b);
        }
    }
    if needs_quotes {
        body.push(quote);
    }
    body
}

/// `%f %e %E %g %G` of `r` (the body, zero-padded to `width` if asked).
pub(super) fn format_real(r: f64, conv: u8, precision: i64, flags: Flags, width: i64) -> Vec<u8> {
    let mut precision = if precision < 0 { 6 } else { precision };
    let generic = conv == b'g' || conv == b'G';
    let exp_char = if conv == b'E' || conv == b'G' {
        b'E'
    } else {
        b'e'
    };
    let round = match conv {
        b'f' => -precision,
        _ if generic => {
            if precision == 0 {
                precision = 1;
            }
            precision
        }
        _ => precision + 1,
    };
    let decoded = decode(
        r,
        round.clamp(-i64::from(i32::MAX), i64::from(i32::MAX)) as i32,
        if flags.alt2 { 26 } else { 16 },
    );
    let digits = match decoded {
        Decoded::NaN => {
            return if flags.zero_pad {
                b"null".to_vec()
            } else {
                b"NaN".to_vec()
            }
        }
        Decoded::Infinite { negative } if !flags.zero_pad => {
            let mut body = Vec::new();
            if negative {
                body.push(b'-');
            } else if flags.prefix != 0 {
                body.push(flags.prefix);
            }
            body.extend_from_slice(b"Inf");
            return body;
        }
        Decoded::Infinite { negative } => Digits {
            negative,
            digits: b"9".to_vec(),
            decimal_point: 1000,
        },
        Decoded::Finite(d) => d,
    };
    let sign = if digits.negative { b'-' } else { flags.prefix };
    let exp = i64::from(digits.decimal_point) - 1;
    let (is_exp, rtz) = if generic {
        precision -= 1;
        let is_exp = exp < -4 || exp > precision;
        if !is_exp {
            precision -= exp;
        }
        (is_exp, !flags.alternate)
    } else {
        (conv != b'f', flags.alt2)
    };
    let mut body = Vec::new();
    if sign != 0 {
        body.push(sign);
    }
    let z = &digits.digits;
    let mut j = 0usize;
    let mut next_digit = || {
        let d = z.get(j).copied().unwrap_or(b'0');
        j += 1;
        d
    };
    let mut e2 = if is_exp { 0 } else { exp };
    if e2 < 0 {
        body.push(b'0');
    } else {
        while e2 >= 0 {
            body.push(next_digit());
            if flags.thousands && e2 % 3 == 0 && e2 > 1 {
                body.push(b',');
            }
            e2 -= 1;
        }
    }
    let dp = precision > 0 || flags.alternate || flags.alt2;
    if dp {
        body.push(b'.');
    }
    e2 += 1;
    while e2 < 0 && precision > 0 {
        body.push(b'0');
        precision -= 1;
        e2 += 1;
    }
    while precision > 0 {
        body.push(next_digit());
        precision -= 1;
    }
    if rtz && dp {
        while body.last() == Some(&b'0') {
            body.pop();
        }
        if body.last() == Some(&b'.') {
            if flags.alt2 {
                body.push(b'0');
            } else {
                body.pop();
            }
        }
    }
    if is_exp {
        let mut e = exp;
        body.push(exp_char);
        body.push(if e < 0 { b'-' } else { b'+' });
        e = e.abs();
        if e >= 100 {
            body.push(b'0' + (e / 100) as u8);
            e %= 100;
        }
        body.push(b'0' + (e / 10) as u8);
        body.push(b'0' + (e % 10) as u8);
    }
    if flags.zero_pad && !flags.left_justify && (body.len() as i64) < width {
        let fill = (width - body.len() as i64) as usize;
        let at = usize::from(sign != 0);
        body.splice(at..at, std::iter::repeat_n(b'0', fill));
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(format: &str, args: &[Value]) -> String {
        let mut all = vec![Value::Text(format.to_string())];
        all.extend_from_slice(args);
        match printf(&all, Collation::Binary).unwrap() {
            Value::Text(s) => s,
            other => panic!("printf returned {other:?}"),
        }
    }

    #[test]
    fn common_conversions() {
        assert_eq!(
            p(
                "%d|%5d|%-5d|%05d",
                &[
                    Value::Integer(42),
                    Value::Integer(-7),
                    Value::Integer(3),
                    Value::Integer(-12)
                ]
            ),
            "42|   -7|3    |-0012"
        );
        assert_eq!(
            p(
                "%.2f %e %g",
                &[Value::Real(2.5), Value::Real(1234.5), Value::Real(0.0001)]
            ),
            "2.50 1.234500e+03 0.0001"
        );
        assert_eq!(
            p(
                "%x %X %#x %o",
                &[
                    Value::Integer(255),
                    Value::Integer(255),
                    Value::Integer(255),
                    Value::Integer(8)
                ]
            ),
            "ff FF 0xff 10"
        );
        assert_eq!(
            p(
                "%s|%.2s|%q|%Q|%Q",
                &[
                    Value::Text("hey".into()),
                    Value::Text("hey".into()),
                    Value::Text("it's".into()),
                    Value::Text("a'b".into()),
                    Value::Null
                ]
            ),
            "hey|he|it''s|'a''b'|NULL"
        );
        assert_eq!(
            p(
                "%c%%%,d",
                &[Value::Text("xyz".into()), Value::Integer(1234567)]
            ),
            "x%1,234,567"
        );
        assert_eq!(p("%d %s", &[]), "0 ");
        assert_eq!(p("abc%", &[]), "abc%");
        assert_eq!(p("a%yb", &[]), "a");
        let huge = [
            Value::Text("%*d".into()),
            Value::Integer(2_000_000_000),
            Value::Integer(1),
        ];
        assert!(
            printf(&huge, Collation::Binary).is_err(),
            "a 2 GB field is refused"
        );
    }
}
