//! Date/time modifiers (`'+1 day'`, `'start of month'`, `'weekday N'`,
//! `'unixepoch'`, `'localtime'`, ...), SQLite's `parseModifier`.

use super::{at, get_digits, parse_hh_mm_ss, skip_spaces, DateTime, DAY_MS, UNIX_EPOCH_JD_MS};
use crate::sql::value::{is_space, parse_real, RealSyntax};

/// The "NNN units" transforms: name, limit, seconds per unit.
/// The limits are C `float`s in SQLite, hence the `f32` rounding.
const TRANSFORMS: [(&str, f32, f64); 6] = [
    ("second", 4.6427e14, 1.0),
    ("minute", 7.7379e12, 60.0),
    ("hour", 1.2897e11, 3600.0),
    ("day", 5_373_485.0, 86400.0),
    ("month", 176_546.0, 30.0 * 86400.0),
    ("year", 14713.0, 365.0 * 86400.0),
];

fn add_months(p: &mut DateTime, months: i32) {
    p.mo += months;
    let x = if p.mo > 0 {
        (p.mo - 1) / 12
    } else {
        (p.mo - 12) / 12
    };
    p.y += x;
    p.mo -= x * 12;
}

/// `toLocaltime` with the local zone taken to be UTC: the same state
/// changes as SQLite's (including its year shifting outside 1970..2038 and
/// clearing an error), with an identity clock conversion.
fn to_localtime(p: &mut DateTime) {
    p.compute_jd();
    let (jd, year_diff) = if p.jd < 210_866_760_000_000 || p.jd > 213_014_145_600_000 {
        let mut x = *p;
        x.compute_ymd_hms();
        let diff = (2000 + x.y % 4) - x.y;
        x.y += diff;
        x.valid_jd = false;
        x.compute_jd();
        (x.jd, diff)
    } else {
        (p.jd, 0)
    };
    let t = jd / 1000 - UNIX_EPOCH_JD_MS / 1000;
    let mut tm = DateTime {
        jd: t * 1000 + UNIX_EPOCH_JD_MS,
        valid_jd: true,
        ..DateTime::default()
    };
    tm.compute_ymd_hms();
    p.y = tm.y - year_diff;
    p.mo = tm.mo;
    p.d = tm.d;
    p.h = tm.h;
    p.mi = tm.mi;
    p.s = f64::from(tm.s as i32) + (p.jd % 1000) as f64 * 0.001;
    p.valid_ymd = true;
    p.valid_hms = true;
    p.valid_jd = false;
    p.raw_s = false;
    p.tz = 0;
    p.is_error = false;
}

/// The `utc` modifier: SQLite's fixed-point search for the UTC time whose
/// local time is `p`, with the local zone taken to be UTC.
fn from_localtime(p: &mut DateTime) {
    p.compute_jd();
    let original = p.jd;
    let mut guess = original;
    let mut err = 0;
    for _ in 0..4 {
        guess -= err;
        let mut new = DateTime {
            jd: guess,
            valid_jd: true,
            ..DateTime::default()
        };
        to_localtime(&mut new);
        new.compute_jd();
        err = new.jd - original;
        if err == 0 {
            break;
        }
    }
    *p = DateTime {
        jd: guess,
        valid_jd: true,
        is_utc: true,
        ..DateTime::default()
    };
}

/// `parseModifier`: true on error. `idx` is the argument position.
pub(super) fn parse_modifier(z: &[u8], p: &mut DateTime, idx: usize) -> bool {
    let lower = z.to_ascii_lowercase();
    let is = |s: &str| lower == s.as_bytes();
    match lower.first().copied().unwrap_or(0) {
        b'a' if is("auto") => {
            if idx > 1 {
                return true;
            }
            if !p.raw_s || p.valid_jd {
                p.raw_s = false;
            } else if p.s >= -210_866_760_000.0 && p.s <= 253_402_300_799.0 {
                let r = p.s * 1000.0 + 210_866_760_000_000.0;
                p.clear_ymd_hms_tz();
                p.jd = (r + 0.5) as i64;
                p.valid_jd = true;
                p.raw_s = false;
            }
            false
        }
        b'c' if is("ceiling") => {
            p.compute_jd();
            p.clear_ymd_hms_tz();
            p.n_floor = 0;
            false
        }
        b'f' if is("floor") => {
            p.compute_jd();
            p.jd -= i64::from(p.n_floor) * DAY_MS;
            p.clear_ymd_hms_tz();
            false
        }
        b'j' if is("julianday") => {
            if idx > 1 || !(p.valid_jd && p.raw_s) {
                return true;
            }
            p.raw_s = false;
            false
        }
        b'l' if is("localtime") => {
            if !p.is_local {
                to_localtime(p);
            }
            p.is_utc = false;
            p.is_local = true;
            false
        }
        b'u' if is("unixepoch") && p.raw_s => {
            if idx > 1 {
                return true;
            }
            let r = p.s * 1000.0 + 210_866_760_000_000.0;
            if !(0.0..464_269_060_800_000.0).contains(&r) {
                return true;
            }
            p.clear_ymd_hms_tz();
            p.jd = (r + 0.5) as i64;
            p.valid_jd = true;
            p.raw_s = false;
            false
        }
        b'u' if is("utc") => {
            if !p.is_utc {
                from_localtime(p);
            }
            false
        }
        b'w' if lower.starts_with(b"weekday ") => weekday(&z[8..], p),
        b's' => start_of(&lower, p),
        b'+' | b'-' | b'0'..=b'9' => numeric_modifier(z, p),
        _ => true,
    }
}

fn weekday(arg: &[u8], p: &mut DateTime) -> bool {
    let (r, syntax) = parse_real(arg);
    let n = r as i64;
    if !matches!(syntax, RealSyntax::Integer | RealSyntax::Fractional)
        || !(0.0..7.0).contains(&r)
        || n as f64 != r
    {
        return true;
    }
    p.compute_ymd_hms();
    p.tz = 0;
    p.valid_jd = false;
    p.compute_jd();
    let mut z = ((p.jd + 129_600_000) / DAY_MS) % 7;
    if z > n {
        z -= 7;
    }
    p.jd += (n - z) * DAY_MS;
    p.clear_ymd_hms_tz();
    false
}

fn start_of(lower: &[u8], p: &mut DateTime) -> bool {
    let Some(unit) = lower.strip_prefix(b"start of ") else {
        if lower == b"subsec" || lower == b"subsecond" {
            p.use_subsec = true;
            return false;
        }
        return true;
    };
    if !p.valid_jd && !p.valid_ymd && !p.valid_hms {
        return true;
    }
    p.compute_ymd();
    p.valid_hms = true;
    p.h = 0;
    p.mi = 0;
    p.s = 0.0;
    p.raw_s = false;
    p.tz = 0;
    p.valid_jd = false;
    match unit {
        b"month" => p.d = 1,
        b"year" => {
            p.mo = 1;
            p.d = 1;
        }
        b"day" => {}
        _ => return true,
    }
    false
}

/// "±NNN units", "±HH:MM[:SS.FFF]" and "±YYYY-MM-DD[ HH:MM...]".
fn numeric_modifier(z: &[u8], p: &mut DateTime) -> bool {
    let z0 = z[0];
    let mut n = 1;
    while n < z.len() {
        let c = z[n];
        if c == b':' || is_space(c) {
            break;
        }
        if c == b'-'
            && ((n == 5 && get_digits(&z[1..], &[(4, 0, 9999, 0)]).len() == 1)
                || (n == 6 && get_digits(&z[1..], &[(5, 0, 14712, 0)]).len() == 1))
        {
            break;
        }
        n += 1;
    }
    let (mut r, syntax) = parse_real(&z[..n]);
    if !matches!(syntax, RealSyntax::Integer | RealSyntax::Fractional) {
        return true;
    }
    let mut z2: &[u8] = z;
    if at(z, n) == b'-' {
        if z0 != b'+' && z0 != b'-' {
            return true;
        }
        let mut zz = z;
        let v = if n == 5 {
            get_digits(
                &z[1..],
                &[(4, 0, 9999, b'-'), (2, 0, 11, b'-'), (2, 0, 30, 0)],
            )
        } else {
            zz = &z[1..];
            get_digits(
                &z[1..],
                &[(5, 0, 14712, b'-'), (2, 0, 11, b'-'), (2, 0, 30, 0)],
            )
        };
        if v.len() != 3 {
            return true;
        }
        let (y, m, mut d) = (v[0], v[1], v[2]);
        p.compute_ymd_hms();
        p.valid_jd = false;
        if z0 == b'-' {
            p.y -= y;
            p.mo -= m;
            d = -d;
        } else {
            p.y += y;
            p.mo += m;
        }
        add_months(p, 0);
        p.compute_floor();
        p.compute_jd();
        p.valid_hms = false;
        p.valid_ymd = false;
        p.jd += i64::from(d) * DAY_MS;
        if at(zz, 11) == 0 {
            return false;
        }
        if is_space(at(zz, 11))
            && get_digits(&zz[12.min(zz.len())..], &[(2, 0, 24, b':'), (2, 0, 59, 0)]).len() == 2
        {
            z2 = &zz[12..];
            n = 2;
        } else {
            return true;
        }
    }
    if at(z2, n) == b':' {
        let z2 = if z2[0].is_ascii_digit() { z2 } else { &z2[1..] };
        let mut tx = DateTime::default();
        if parse_hh_mm_ss(z2, &mut tx) {
            return true;
        }
        tx.compute_jd();
        tx.jd -= 43_200_000;
        let day = tx.jd / DAY_MS;
        tx.jd -= day * DAY_MS;
        if z0 == b'-' {
            tx.jd = -tx.jd;
        }
        p.compute_jd();
        p.clear_ymd_hms_tz();
        p.jd += tx.jd;
        return false;
    }
    // "NNN units"
    let unit_start = skip_spaces(z, n);
    let mut unit = &z[unit_start.min(z.len())..];
    if unit.len() < 3 || unit.len() > 10 {
        return true;
    }
    if unit.last().is_some_and(|c| c.eq_ignore_ascii_case(&b's')) {
        unit = &unit[..unit.len() - 1];
    }
    p.compute_jd();
    let rounder = if r < 0.0 { -0.5 } else { 0.5 };
    p.n_floor = 0;
    let mut failed = true;
    for (i, (name, limit, seconds)) in TRANSFORMS.iter().enumerate() {
        let limit = f64::from(*limit);
        if !unit.eq_ignore_ascii_case(name.as_bytes()) || r <= -limit || r >= limit {
            continue;
        }
        if i == 4 {
            p.compute_ymd_hms();
            add_months(p, r as i32);
            p.compute_floor();
            p.valid_jd = false;
            r -= f64::from(r as i32);
        } else if i == 5 {
            p.compute_ymd_hms();
            p.y += r as i32;
            p.compute_floor();
            p.valid_jd = false;
            r -= f64::from(r as i32);
        }
        p.compute_jd();
        p.jd += (r * 1000.0 * seconds + rounder) as i64;
        failed = false;
        break;
    }
    p.clear_ymd_hms_tz();
    failed
}
