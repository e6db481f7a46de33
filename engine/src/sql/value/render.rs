//! Number → text, exactly as SQLite renders it.
//!
//! A real becomes text through `printf("%!.15g")` (vdbemem.c,
//! `vdbeMemRenderNum`), whose digits come from `sqlite3FpDecode`: scale the
//! double into [1e17, 1e19) in `long double` ([`super::extended`]), truncate
//! to an integer, then round the decimal digit string half-up. [`Digits`] is
//! that decoding, shared with `printf`'s `%f/%e/%g` and `round()` (callers
//! that must agree: [`real_to_text`], functions::printf, functions::round).

use super::extended::{
    Extended, TEN_POW_1, TEN_POW_10, TEN_POW_100, TEN_POW_119, TEN_POW_17, TEN_POW_19, TEN_POW_29,
    TEN_POW_7, TEN_POW_MINUS_1, TEN_POW_MINUS_10, TEN_POW_MINUS_100, TEN_POW_MINUS_97,
};

/// The decimal digits of a finite double (SQLite's `FpDecode`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Digits {
    /// True for values below zero (never for -0.0, which SQLite prints as 0).
    pub negative: bool,
    /// Significant digits, ASCII, no trailing zeros, at least one digit.
    pub digits: Vec<u8>,
    /// Position of the decimal point: value = 0.d1d2d3... × 10^decimal_point.
    pub decimal_point: i32,
}

/// What `sqlite3FpDecode` says about a double.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Decoded {
    Finite(Digits),
    Infinite { negative: bool },
    NaN,
}

/// `sqlite3FpDecode(r, round, max_round)`: `round > 0` keeps that many
/// significant digits, `round <= 0` keeps `-round` digits after the decimal
/// point; at most `max_round` significant digits are ever kept.
pub(crate) fn decode(r: f64, round: i32, max_round: i32) -> Decoded {
    if r.is_nan() {
        return Decoded::NaN;
    }
    let negative = r < 0.0;
    if r == 0.0 {
        return Decoded::Finite(Digits {
            negative: false,
            digits: vec![b'0'],
            decimal_point: 1,
        });
    }
    if r.is_infinite() {
        return Decoded::Infinite { negative };
    }
    let (v, exp) = scale_to_integer(Extended::from_f64(r));
    // Digits of v, most significant first, with one spare slot in front for
    // a carry out of the rounding.
    let mut z: Vec<u8> = v.to_string().into_bytes();
    let mut n = z.len() as i32;
    let mut decimal_point = n + exp;
    let mut round = round;
    if round <= 0 {
        round = decimal_point - round;
        if round == 0 && z[0] >= b'5' {
            round = 1;
            z.insert(0, b'0');
            n += 1;
            decimal_point += 1;
        }
    }
    if round > 0 && (round < n || n > max_round) {
        let keep = round.min(max_round) as usize;
        let round_up = z.get(keep).is_some_and(|&d| d >= b'5');
        z.truncate(keep);
        if round_up {
            let mut j = keep;
            loop {
                if j == 0 {
                    z.insert(0, b'1');
                    decimal_point += 1;
                    break;
                }
                j -= 1;
                if z[j] == b'9' {
                    z[j] = b'0';
                } else {
                    z[j] += 1;
                    break;
                }
            }
        }
    }
    while z.len() > 1 && z.last() == Some(&b'0') {
        z.pop();
    }
    if z.is_empty() || z == b"0" {
        // Rounded away entirely (e.g. 0.001 to 0 places): SQLite keeps one
        // "0" digit; the caller prints zeros.
        z = vec![b'0'];
    }
    Decoded::Finite(Digits {
        negative,
        digits: z,
        decimal_point,
    })
}

/// Multiplies `rr` by powers of ten until it lies in [1e17, 1e19), then
/// truncates it: returns the integer and the power of ten it stands for.
fn scale_to_integer(mut rr: Extended) -> (u64, i32) {
    let mut exp = 0;
    if rr >= TEN_POW_19 {
        while rr >= TEN_POW_119 {
            exp += 100;
            rr = rr.mul(TEN_POW_MINUS_100);
        }
        while rr >= TEN_POW_29 {
            exp += 10;
            rr = rr.mul(TEN_POW_MINUS_10);
        }
        while rr >= TEN_POW_19 {
            exp += 1;
            rr = rr.mul(TEN_POW_MINUS_1);
        }
    } else {
        while rr < TEN_POW_MINUS_97 {
            exp -= 100;
            rr = rr.mul(TEN_POW_100);
        }
        while rr < TEN_POW_7 {
            exp -= 10;
            rr = rr.mul(TEN_POW_10);
        }
        while rr < TEN_POW_17 {
            exp -= 1;
            rr = rr.mul(TEN_POW_1);
        }
    }
    (rr.to_u64_trunc(), exp)
}

/// A real as SQLite renders it in text contexts (`CAST(r AS TEXT)`, `||`,
/// storing into a TEXT column): `%!.15g` — 15 significant digits, always a
/// decimal point (`1.0`), exponent form outside 1e-4..1e15 (`1.0e+20`),
/// `-0.0` as `0.0`, infinities as `Inf` / `-Inf`, NaN as `NaN`.
pub fn real_to_text(r: f64) -> String {
    let digits = match decode(r, 15, 26) {
        Decoded::NaN => return "NaN".to_string(),
        Decoded::Infinite { negative } => return if negative { "-Inf" } else { "Inf" }.to_string(),
        Decoded::Finite(d) => d,
    };
    let mut out = String::with_capacity(24);
    if digits.negative {
        out.push('-');
    }
    let exp = digits.decimal_point - 1;
    let z = &digits.digits;
    let digit = |j: usize| z.get(j).map_or('0', |&b| char::from(b));
    if !(-4..=14).contains(&exp) {
        out.push(digit(0));
        out.push('.');
        let rest: String = (1..z.len()).map(digit).collect();
        out.push_str(if rest.is_empty() { "0" } else { &rest });
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        z.iter().for_each(|&b| out.push(char::from(b)));
    } else {
        let int_len = (exp + 1) as usize;
        (0..int_len).for_each(|j| out.push(digit(j)));
        out.push('.');
        if z.len() > int_len {
            z[int_len..].iter().for_each(|&b| out.push(char::from(b)));
        } else {
            out.push('0');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_sqlite() {
        assert_eq!(real_to_text(1.0), "1.0");
        assert_eq!(real_to_text(0.1), "0.1");
        assert_eq!(real_to_text(-0.0), "0.0");
        assert_eq!(real_to_text(1e20), "1.0e+20");
        assert_eq!(
            real_to_text(1.234_567_890_123_456e15),
            "1.23456789012346e+15"
        );
        assert_eq!(real_to_text(123_456_789_012_345.0), "123456789012345.0");
        assert_eq!(real_to_text(0.0001), "0.0001");
        assert_eq!(real_to_text(0.00001), "1.0e-05");
        assert_eq!(real_to_text(f64::INFINITY), "Inf");
        assert_eq!(real_to_text(f64::NEG_INFINITY), "-Inf");
        assert_eq!(real_to_text(1e100), "1.0e+100");
        assert_eq!(real_to_text(-2.5), "-2.5");
    }
}
