//! Date and time functions: `date`, `time`, `datetime`, `julianday`,
//! `unixepoch`, `strftime`, transcribed from SQLite's date.c.
//!
//! A moment is a Julian day number in milliseconds (`DateTime::jd`), with
//! lazily derived year/month/day and hour/minute/second, exactly as SQLite
//! keeps it, so every rounding and range rule matches. `modifier` applies
//! the modifier arguments.
//!
//! Simplifications, with their cost:
//! - `localtime` and `utc` treat local time as UTC (the engine has no time
//!   zone database; the browser's zone is not known to it). Results equal
//!   SQLite's on a UTC machine.
//! - `'now'` reads the statement time set with [`set_statement_time`]; when
//!   none is set it reads the system clock, except on wasm32 where there is
//!   none and the function returns NULL. SQLite keeps 'now' fixed within a
//!   statement; the executor gets that by setting the time per statement.

mod modifier;

use std::cell::Cell;

use super::printf::{format_real, Flags};
use crate::sql::value::{is_space, parse_real, Collation, RealSyntax, Value};
use crate::Result;
use modifier::parse_modifier;

/// Milliseconds between the Julian day epoch and the Unix epoch.
const UNIX_EPOCH_JD_MS: i64 = 210_866_760_000_000;
const DAY_MS: i64 = 86_400_000;
/// The largest valid Julian day in ms: 9999-12-31 23:59:59.999.
const MAX_JD_MS: i64 = 464_269_060_799_999;

thread_local! {
    static STATEMENT_TIME_MS: Cell<Option<i64>> = const { Cell::new(None) };
}

/// Fixes `'now'` (Unix milliseconds) for the statement about to run, or
/// clears it (`None`) to read the clock.
pub(crate) fn set_statement_time(unix_ms: Option<i64>) {
    STATEMENT_TIME_MS.with(|t| t.set(unix_ms));
}

fn now_unix_ms() -> Option<i64> {
    if let Some(ms) = STATEMENT_TIME_MS.with(Cell::get) {
        return Some(ms);
    }
    if cfg!(target_arch = "wasm32") {
        return None;
    }
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    i64::try_from(since.as_millis()).ok()
}

/// SQLite's `DateTime`.
#[derive(Clone, Copy, Debug, Default)]
struct DateTime {
    jd: i64,
    y: i32,
    mo: i32,
    d: i32,
    h: i32,
    mi: i32,
    /// Minutes east of UTC, from a "+HH:MM" suffix.
    tz: i32,
    s: f64,
    valid_jd: bool,
    valid_ymd: bool,
    valid_hms: bool,
    /// Days to subtract for the "floor" modifier.
    n_floor: i32,
    /// `s` holds a raw number that was not yet interpreted.
    raw_s: bool,
    is_error: bool,
    use_subsec: bool,
    /// Known to be UTC / known to be local time (SQLite's isUtc/isLocal).
    is_utc: bool,
    is_local: bool,
}

/// `getDigits`: fixed-width fields "NminMaxSep": reads `spec.len()` fields,
/// each of `digits` digits in `min..=max`, followed by `sep` (0 = any).
/// Returns the values read before the first failure.
fn get_digits(z: &[u8], spec: &[(usize, i32, i32, u8)]) -> Vec<i32> {
    let mut out = Vec::with_capacity(spec.len());
    let mut i = 0;
    for &(n, min, max, next) in spec {
        let mut val = 0;
        for _ in 0..n {
            match z.get(i) {
                Some(c) if c.is_ascii_digit() => val = val * 10 + i32::from(c - b'0'),
                _ => return out,
            }
            i += 1;
        }
        if val < min || val > max || (next != 0 && z.get(i).copied().unwrap_or(0) != next) {
            return out;
        }
        out.push(val);
        i += 1;
    }
    out
}

fn at(z: &[u8], i: usize) -> u8 {
    z.get(i).copied().unwrap_or(0)
}

fn skip_spaces(z: &[u8], mut i: usize) -> usize {
    while is_space(at(z, i)) {
        i += 1;
    }
    i
}

/// `parseTimezone`: true on error.
fn parse_timezone(z: &[u8], p: &mut DateTime) -> bool {
    let mut i = skip_spaces(z, 0);
    p.tz = 0;
    let sign = match at(z, i) {
        b'-' => -1,
        b'+' => 1,
        b'Z' | b'z' => {
            p.is_local = false;
            p.is_utc = true;
            i = skip_spaces(z, i + 1);
            return at(z, i) != 0;
        }
        c => return c != 0,
    };
    i += 1;
    let v = get_digits(&z[i..], &[(2, 0, 14, b':'), (2, 0, 59, 0)]);
    if v.len() != 2 {
        return true;
    }
    i += 5;
    p.tz = sign * (v[1] + v[0] * 60);
    i = skip_spaces(z, i);
    at(z, i) != 0
}

/// `parseHhMmSs`: true on error.
fn parse_hh_mm_ss(z: &[u8], p: &mut DateTime) -> bool {
    let v = get_digits(z, &[(2, 0, 24, b':'), (2, 0, 59, 0)]);
    if v.len() != 2 {
        return true;
    }
    let (h, m) = (v[0], v[1]);
    let mut i = 5;
    let mut s = 0;
    let mut ms = 0.0;
    if at(z, i) == b':' {
        i += 1;
        let v = get_digits(&z[i..], &[(2, 0, 59, 0)]);
        if v.len() != 1 {
            return true;
        }
        s = v[0];
        i += 2;
        if at(z, i) == b'.' && at(z, i + 1).is_ascii_digit() {
            let mut scale = 1.0;
            i += 1;
            while at(z, i).is_ascii_digit() {
                ms = ms * 10.0 + f64::from(at(z, i) - b'0');
                scale *= 10.0;
                i += 1;
            }
            ms /= scale;
        }
    }
    p.valid_jd = false;
    p.raw_s = false;
    p.valid_hms = true;
    p.h = h;
    p.mi = m;
    p.s = f64::from(s) + ms;
    parse_timezone(&z[i.min(z.len())..], p)
}

impl DateTime {
    fn error() -> DateTime {
        DateTime {
            is_error: true,
            ..DateTime::default()
        }
    }

    /// `computeJD`.
    fn compute_jd(&mut self) {
        if self.valid_jd {
            return;
        }
        let (mut y, mut m, d) = if self.valid_ymd {
            (self.y, self.mo, self.d)
        } else {
            (2000, 1, 1)
        };
        if !(-4713..=9999).contains(&y) || self.raw_s {
            *self = DateTime::error();
            return;
        }
        if m <= 2 {
            y -= 1;
            m += 12;
        }
        let a = y / 100;
        let b = 2 - a + (a / 4);
        let x1 = 36525 * (y + 4716) / 100;
        let x2 = 306_001 * (m + 1) / 10000;
        self.jd = ((f64::from(x1 + x2 + d + b) - 1524.5) * 86_400_000.0) as i64;
        self.valid_jd = true;
        if self.valid_hms {
            self.jd += i64::from(self.h) * 3_600_000
                + i64::from(self.mi) * 60000
                + (self.s * 1000.0 + 0.5) as i64;
            if self.tz != 0 {
                self.jd -= i64::from(self.tz) * 60000;
                self.valid_ymd = false;
                self.valid_hms = false;
                self.tz = 0;
                self.is_utc = true;
                self.is_local = false;
            }
        }
    }

    /// `computeFloor`.
    fn compute_floor(&mut self) {
        self.n_floor = if self.d <= 28 || (1 << self.mo) & 0x15aa != 0 {
            0
        } else if self.mo != 2 {
            i32::from(self.d == 31)
        } else if self.y % 4 != 0 || (self.y % 100 == 0 && self.y % 400 != 0) {
            self.d - 28
        } else {
            self.d - 29
        };
    }

    /// `computeYMD`.
    fn compute_ymd(&mut self) {
        if self.valid_ymd {
            return;
        }
        if !self.valid_jd {
            (self.y, self.mo, self.d) = (2000, 1, 1);
        } else if !(0..=MAX_JD_MS).contains(&self.jd) {
            *self = DateTime::error();
            return;
        } else {
            let z = ((self.jd + 43_200_000) / DAY_MS) as i32;
            let a = ((f64::from(z) - 1_867_216.25) / 36524.25) as i32;
            let a = z + 1 + a - (a / 4);
            let b = a + 1524;
            let c = ((f64::from(b) - 122.1) / 365.25) as i32;
            let d = (36525 * (c & 32767)) / 100;
            let e = (f64::from(b - d) / 30.6001) as i32;
            let x1 = (30.6001 * f64::from(e)) as i32;
            self.d = b - d - x1;
            self.mo = if e < 14 { e - 1 } else { e - 13 };
            self.y = if self.mo > 2 { c - 4716 } else { c - 4715 };
        }
        self.valid_ymd = true;
    }

    /// `computeHMS`.
    fn compute_hms(&mut self) {
        if self.valid_hms {
            return;
        }
        self.compute_jd();
        let day_ms = ((self.jd + 43_200_000) % DAY_MS) as i32;
        self.s = f64::from(day_ms % 60000) / 1000.0;
        let day_min = day_ms / 60000;
        self.mi = day_min % 60;
        self.h = day_min / 60;
        self.raw_s = false;
        self.valid_hms = true;
    }

    fn compute_ymd_hms(&mut self) {
        self.compute_ymd();
        self.compute_hms();
    }

    fn clear_ymd_hms_tz(&mut self) {
        self.valid_ymd = false;
        self.valid_hms = false;
        self.tz = 0;
    }

    fn set_raw_number(&mut self, r: f64) {
        self.s = r;
        self.raw_s = true;
        if (0.0..5_373_484.5).contains(&r) {
            self.jd = (r * 86_400_000.0 + 0.5) as i64;
            self.valid_jd = true;
        }
    }

    fn set_now(&mut self) -> bool {
        match now_unix_ms() {
            Some(ms) => {
                self.jd = ms + UNIX_EPOCH_JD_MS;
                self.valid_jd = true;
                self.is_utc = true;
                self.is_local = false;
                self.clear_ymd_hms_tz();
                false
            }
            None => true,
        }
    }
}

/// `parseYyyyMmDd`: true on error.
fn parse_yyyy_mm_dd(z: &[u8], p: &mut DateTime) -> bool {
    let (neg, z) = if at(z, 0) == b'-' {
        (true, &z[1..])
    } else {
        (false, z)
    };
    let v = get_digits(z, &[(4, 0, 9999, b'-'), (2, 1, 12, b'-'), (2, 1, 31, 0)]);
    if v.len() != 3 {
        return true;
    }
    let mut i = 10;
    while is_space(at(z, i)) || at(z, i) == b'T' {
        i += 1;
    }
    let rest = &z[i.min(z.len())..];
    if !parse_hh_mm_ss(rest, p) {
        // got the time
    } else if rest.is_empty() {
        p.valid_hms = false;
    } else {
        return true;
    }
    p.valid_jd = false;
    p.valid_ymd = true;
    p.y = if neg { -v[0] } else { v[0] };
    p.mo = v[1];
    p.d = v[2];
    p.compute_floor();
    if p.tz != 0 {
        p.compute_jd();
    }
    false
}

/// `parseDateOrTime`: true on error.
fn parse_date_or_time(z: &[u8], p: &mut DateTime) -> bool {
    if !parse_yyyy_mm_dd(z, p) {
        return false;
    }
    *p = DateTime::default();
    if !parse_hh_mm_ss(z, p) {
        return false;
    }
    *p = DateTime::default();
    if z.eq_ignore_ascii_case(b"now") {
        return p.set_now();
    }
    let (r, syntax) = parse_real(z);
    if matches!(syntax, RealSyntax::Integer | RealSyntax::Fractional) {
        p.set_raw_number(r);
        return false;
    }
    if z.eq_ignore_ascii_case(b"subsec") || z.eq_ignore_ascii_case(b"subsecond") {
        p.use_subsec = true;
        return p.set_now();
    }
    true
}

/// Zero-argument forms of `date()`, `time()` and `datetime()`.
pub(super) fn current_date(_: &[Value], c: Collation) -> Result<Value> {
    date(&[], c)
}

pub(super) fn current_time(_: &[Value], c: Collation) -> Result<Value> {
    time(&[], c)
}

pub(super) fn current_timestamp(_: &[Value], c: Collation) -> Result<Value> {
    datetime(&[], c)
}

/// `isDate`: the moment described by the arguments, or `None` (→ NULL).
fn is_date(args: &[Value]) -> Option<DateTime> {
    let mut p = DateTime::default();
    match args.first() {
        None => {
            if p.set_now() {
                return None;
            }
        }
        Some(Value::Integer(_) | Value::Real(_)) => p.set_raw_number(args[0].to_f64()),
        Some(v) => {
            let text = v.to_bytes()?;
            if parse_date_or_time(&text, &mut p) {
                return None;
            }
        }
    }
    for (i, m) in args.iter().enumerate().skip(1) {
        let m = m.to_bytes()?;
        if parse_modifier(&m, &mut p, i) {
            return None;
        }
    }
    p.compute_jd();
    if p.is_error || !(0..=MAX_JD_MS).contains(&p.jd) {
        return None;
    }
    if args.len() == 1 && p.valid_ymd && p.d > 28 {
        p.valid_ymd = false;
    }
    Some(p)
}

fn ymd(p: &DateTime) -> String {
    let sign = if p.y < 0 { "-" } else { "" };
    format!("{sign}{:04}-{:02}-{:02}", p.y.abs() % 10000, p.mo, p.d)
}

fn hms(p: &DateTime) -> String {
    if p.use_subsec {
        let s = (1000.0 * p.s + 0.5) as i32;
        format!(
            "{:02}:{:02}:{:02}.{:03}",
            p.h,
            p.mi,
            (s / 1000) % 100,
            s % 1000
        )
    } else {
        format!("{:02}:{:02}:{:02}", p.h, p.mi, (p.s as i32) % 100)
    }
}

pub(super) fn date(args: &[Value], _: Collation) -> Result<Value> {
    Ok(is_date(args).map_or(Value::Null, |mut p| {
        p.compute_ymd();
        Value::Text(ymd(&p))
    }))
}

pub(super) fn time(args: &[Value], _: Collation) -> Result<Value> {
    Ok(is_date(args).map_or(Value::Null, |mut p| {
        p.compute_hms();
        Value::Text(hms(&p))
    }))
}

pub(super) fn datetime(args: &[Value], _: Collation) -> Result<Value> {
    Ok(is_date(args).map_or(Value::Null, |mut p| {
        p.compute_ymd_hms();
        Value::Text(format!("{} {}", ymd(&p), hms(&p)))
    }))
}

pub(super) fn julianday(args: &[Value], _: Collation) -> Result<Value> {
    Ok(is_date(args).map_or(Value::Null, |p| Value::Real(p.jd as f64 / 86_400_000.0)))
}

pub(super) fn unixepoch(args: &[Value], _: Collation) -> Result<Value> {
    Ok(is_date(args).map_or(Value::Null, |p| {
        if p.use_subsec {
            Value::Real((p.jd - UNIX_EPOCH_JD_MS) as f64 / 1000.0)
        } else {
            Value::Integer(p.jd / 1000 - UNIX_EPOCH_JD_MS / 1000)
        }
    }))
}

/// `timediff(a, b)`: "±YYYY-MM-DD HH:MM:SS.SSS" such that
/// `datetime(b, timediff(a, b)) = datetime(a)`.
pub(super) fn timediff(args: &[Value], _: Collation) -> Result<Value> {
    let (Some(mut d1), Some(mut d2)) = (is_date(&args[..1]), is_date(&args[1..2])) else {
        return Ok(Value::Null);
    };
    d1.compute_ymd_hms();
    d2.compute_ymd_hms();
    let reset = |d2: &mut DateTime| {
        d2.valid_jd = false;
        d2.compute_jd();
    };
    let forward = d1.jd >= d2.jd;
    let (mut y, mut m) = if forward {
        (d1.y - d2.y, d1.mo - d2.mo)
    } else {
        (d2.y - d1.y, d2.mo - d1.mo)
    };
    if y != 0 {
        d2.y = d1.y;
        reset(&mut d2);
    }
    if m < 0 {
        y -= 1;
        m += 12;
    }
    if m != 0 {
        d2.mo = d1.mo;
        reset(&mut d2);
    }
    while (forward && d1.jd < d2.jd) || (!forward && d1.jd > d2.jd) {
        m -= 1;
        if m < 0 {
            m = 11;
            y -= 1;
        }
        if forward {
            d2.mo -= 1;
            if d2.mo < 1 {
                d2.mo = 12;
                d2.y -= 1;
            }
        } else {
            d2.mo += 1;
            if d2.mo > 12 {
                d2.mo = 1;
                d2.y += 1;
            }
        }
        reset(&mut d2);
    }
    d1.jd = if forward {
        d1.jd - d2.jd
    } else {
        d2.jd - d1.jd
    } + 148_699_540_800_000;
    d1.clear_ymd_hms_tz();
    d1.compute_ymd_hms();
    let flags = Flags {
        zero_pad: true,
        ..Flags::default()
    };
    Ok(Value::Text(format!(
        "{}{:04}-{:02}-{:02} {:02}:{:02}:{}",
        if forward { '+' } else { '-' },
        y,
        m,
        d1.d - 1,
        d1.h,
        d1.mi,
        real_text(d1.s, b'f', 3, flags, 6)
    )))
}

fn days_after_jan01(p: &DateTime) -> i64 {
    let mut jan01 = *p;
    jan01.valid_jd = false;
    jan01.mo = 1;
    jan01.d = 1;
    jan01.compute_jd();
    (p.jd - jan01.jd + 43_200_000) / DAY_MS
}

fn days_after_monday(p: &DateTime) -> i64 {
    ((p.jd + 43_200_000) / DAY_MS) % 7
}

fn days_after_sunday(p: &DateTime) -> i64 {
    ((p.jd + 129_600_000) / DAY_MS) % 7
}

/// The Thursday of `p`'s ISO week.
fn iso_thursday(p: &DateTime) -> DateTime {
    let mut y = *p;
    y.jd += (3 - days_after_monday(p)) * DAY_MS;
    y.valid_ymd = false;
    y.compute_ymd();
    y
}

fn real_text(r: f64, conv: u8, precision: i64, flags: Flags, width: i64) -> String {
    String::from_utf8_lossy(&format_real(r, conv, precision, flags, width)).into_owned()
}

pub(super) fn strftime(args: &[Value], _: Collation) -> Result<Value> {
    let Some(format) = args.first().and_then(Value::to_bytes) else {
        return Ok(Value::Null);
    };
    let Some(mut x) = is_date(&args[1..]) else {
        return Ok(Value::Null);
    };
    x.compute_jd();
    x.compute_ymd_hms();
    let mut out = String::new();
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' {
            let start = i;
            while i < format.len() && format[i] != b'%' {
                i += 1;
            }
            out.push_str(&String::from_utf8_lossy(&format[start..i]));
            continue;
        }
        i += 1;
        let Some(&cf) = format.get(i) else {
            return Ok(Value::Null);
        };
        i += 1;
        let piece = match cf {
            b'd' => format!("{:02}", x.d),
            b'e' => format!("{:2}", x.d),
            b'f' => {
                let flags = Flags {
                    zero_pad: true,
                    ..Flags::default()
                };
                real_text(x.s.min(59.999), b'f', 3, flags, 6)
            }
            b'F' => format!("{:04}-{:02}-{:02}", x.y, x.mo, x.d),
            b'G' => format!("{:04}", iso_thursday(&x).y),
            b'g' => format!("{:02}", iso_thursday(&x).y % 100),
            b'H' => format!("{:02}", x.h),
            b'k' => format!("{:2}", x.h),
            b'I' | b'l' => {
                let h = match x.h {
                    0 => 12,
                    h if h > 12 => h - 12,
                    h => h,
                };
                if cf == b'I' {
                    format!("{h:02}")
                } else {
                    format!("{h:2}")
                }
            }
            b'j' => format!("{:03}", days_after_jan01(&x) + 1),
            b'J' => real_text(x.jd as f64 / 86_400_000.0, b'g', 16, Flags::default(), 0),
            b'm' => format!("{:02}", x.mo),
            b'M' => format!("{:02}", x.mi),
            b'p' => (if x.h >= 12 { "PM" } else { "AM" }).to_string(),
            b'P' => (if x.h >= 12 { "pm" } else { "am" }).to_string(),
            b'R' => format!("{:02}:{:02}", x.h, x.mi),
            b's' if x.use_subsec => real_text(
                (x.jd - UNIX_EPOCH_JD_MS) as f64 / 1000.0,
                b'f',
                3,
                Flags::default(),
                0,
            ),
            b's' => (x.jd / 1000 - UNIX_EPOCH_JD_MS / 1000).to_string(),
            b'S' => format!("{:02}", x.s as i32),
            b'T' => format!("{:02}:{:02}:{:02}", x.h, x.mi, x.s as i32),
            b'u' => {
                let d = days_after_sunday(&x);
                (if d == 0 { 7 } else { d }).to_string()
            }
            b'w' => days_after_sunday(&x).to_string(),
            b'U' => format!(
                "{:02}",
                (days_after_jan01(&x) - days_after_sunday(&x) + 7) / 7
            ),
            b'V' => format!("{:02}", days_after_jan01(&iso_thursday(&x)) / 7 + 1),
            b'W' => format!(
                "{:02}",
                (days_after_jan01(&x) - days_after_monday(&x) + 7) / 7
            ),
            b'Y' => format!("{:04}", x.y),
            b'%' => "%".to_string(),
            _ => return Ok(Value::Null),
        };
        out.push_str(&piece);
    }
    Ok(Value::Text(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: fn(&[Value], Collation) -> Result<Value>, args: &[&str]) -> Value {
        let args: Vec<Value> = args.iter().map(|s| Value::Text(s.to_string())).collect();
        f(&args, Collation::Binary).unwrap()
    }

    #[test]
    fn basics() {
        assert_eq!(
            call(date, &["2024-02-29", "+1 year"]),
            Value::Text("2025-03-01".into())
        );
        assert_eq!(
            call(datetime, &["2024-01-31 10:00:00", "+1 month"]),
            Value::Text("2024-03-02 10:00:00".into())
        );
        assert_eq!(
            call(time, &["12:34:56.789", "subsec"]),
            Value::Text("12:34:56.789".into())
        );
        assert_eq!(call(date, &["nonsense"]), Value::Null);
        assert_eq!(
            call(timediff, &["2024-03-01", "2024-02-28 12:00"]),
            Value::Text("+0000-00-01 12:00:00.000".into())
        );
        set_statement_time(Some(0));
        assert_eq!(
            call(datetime, &["now"]),
            Value::Text("1970-01-01 00:00:00".into())
        );
        set_statement_time(None);
    }
}
