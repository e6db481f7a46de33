//! LIKE and GLOB matching, a transcription of SQLite's `patternCompare`.
//!
//! LIKE: `%` matches any run, `_` one character, letters match ignoring
//! ASCII case only, an optional ESCAPE character makes the next pattern
//! character literal. GLOB: `*`, `?`, `[...]` / `[^...]` sets with ranges,
//! case-sensitive. As in SQLite, a NUL character ends both the pattern and
//! the string.

use crate::sql::value::{Collation, Value};
use crate::{sql_err, Result};

/// SQLite's SQLITE_MAX_LIKE_PATTERN_LENGTH.
const MAX_PATTERN_LEN: usize = 50_000;

#[derive(Clone, Copy)]
struct Rules {
    match_all: Option<char>,
    match_one: Option<char>,
    /// GLOB: '[' starts a set. LIKE: the escape character, if any.
    match_other: Option<char>,
    is_glob: bool,
    no_case: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Match,
    NoMatch,
    /// No match, and no later starting point can match either.
    NoWildcardMatch,
}

fn until_nul(s: &str) -> Vec<char> {
    s.chars().take_while(|&c| c != '\0').collect()
}

/// `like(pattern, string[, escape])`.
pub(super) fn like(args: &[Value], _: Collation) -> Result<Value> {
    let mut rules = Rules {
        match_all: Some('%'),
        match_one: Some('_'),
        match_other: None,
        is_glob: false,
        no_case: true,
    };
    if let Some(esc) = args.get(2) {
        let Some(esc) = esc.to_text() else {
            return Ok(Value::Null);
        };
        let mut chars = esc.chars();
        let escape = match (chars.next(), chars.next()) {
            (Some(c), None) => c,
            _ => return Err(sql_err!("ESCAPE expression must be a single character")),
        };
        if rules.match_all == Some(escape) {
            rules.match_all = None;
        }
        if rules.match_one == Some(escape) {
            rules.match_one = None;
        }
        rules.match_other = Some(escape);
    }
    matches(args, rules)
}

/// `glob(pattern, string)`.
pub(super) fn glob(args: &[Value], _: Collation) -> Result<Value> {
    let rules = Rules {
        match_all: Some('*'),
        match_one: Some('?'),
        match_other: Some('['),
        is_glob: true,
        no_case: false,
    };
    matches(args, rules)
}

fn matches(args: &[Value], rules: Rules) -> Result<Value> {
    let pattern_bytes = args[0].to_bytes().map_or(0, |b| b.len());
    if pattern_bytes > MAX_PATTERN_LEN {
        return Err(sql_err!("LIKE or GLOB pattern too complex"));
    }
    let (Some(pattern), Some(string)) = (args[0].to_text(), args[1].to_text()) else {
        return Ok(Value::Null);
    };
    let outcome = compare(&until_nul(&pattern), &until_nul(&string), &rules);
    Ok(Value::Integer(i64::from(outcome == Outcome::Match)))
}

fn lower(c: char) -> char {
    c.to_ascii_lowercase()
}

/// `patternCompare`: index-based over chars; `p` and `s` are positions.
fn compare(pat: &[char], s: &[char], rules: &Rules) -> Outcome {
    let (mut p, mut i) = (0usize, 0usize);
    // One past the last escaped pattern character (LIKE's ESCAPE).
    let mut escaped_end: Option<usize> = None;
    while p < pat.len() {
        let c = pat[p];
        p += 1;
        if Some(c) == rules.match_all {
            return match_wildcard(pat, p, s, i, rules);
        }
        let mut c = c;
        if Some(c) == rules.match_other {
            if !rules.is_glob {
                let Some(&next) = pat.get(p) else {
                    return Outcome::NoMatch;
                };
                p += 1;
                c = next;
                escaped_end = Some(p);
            } else {
                let Some(&sc) = s.get(i) else {
                    return Outcome::NoMatch;
                };
                i += 1;
                match match_set(pat, &mut p, sc) {
                    Some(true) => continue,
                    _ => return Outcome::NoMatch,
                }
            }
        }
        let c2 = s.get(i).copied();
        if c2.is_some() {
            i += 1;
        }
        if Some(c) == c2 {
            continue;
        }
        if let Some(c2) = c2 {
            if rules.no_case && c.is_ascii() && c2.is_ascii() && lower(c) == lower(c2) {
                continue;
            }
            if Some(c) == rules.match_one && escaped_end != Some(p) {
                continue;
            }
        }
        return Outcome::NoMatch;
    }
    if i == s.len() {
        Outcome::Match
    } else {
        Outcome::NoMatch
    }
}

/// The pattern had a match-all at `p - 1`; `i` is the string position.
fn match_wildcard(pat: &[char], mut p: usize, s: &[char], mut i: usize, rules: &Rules) -> Outcome {
    // Skip further match-alls and match-ones (each of which eats a char).
    let mut c = None;
    while p < pat.len() {
        let pc = pat[p];
        p += 1;
        if Some(pc) == rules.match_all {
            continue;
        }
        if Some(pc) == rules.match_one {
            if i >= s.len() {
                return Outcome::NoWildcardMatch;
            }
            i += 1;
            continue;
        }
        c = Some(pc);
        break;
    }
    let Some(mut c) = c else {
        return Outcome::Match;
    };
    if Some(c) == rules.match_other {
        if !rules.is_glob {
            let Some(&next) = pat.get(p) else {
                return Outcome::NoWildcardMatch;
            };
            p += 1;
            c = next;
        } else {
            // "[...]" right after "*": try every starting point.
            while i < s.len() {
                let outcome = compare(&pat[p - 1..], &s[i..], rules);
                if outcome != Outcome::NoMatch {
                    return outcome;
                }
                i += 1;
            }
            return Outcome::NoWildcardMatch;
        }
    }
    // c is a literal: try each later position where it occurs.
    while i < s.len() {
        let sc = s[i];
        i += 1;
        let same = if rules.no_case && c.is_ascii() {
            lower(sc) == lower(c)
        } else {
            sc == c
        };
        if !same {
            continue;
        }
        let outcome = compare(&pat[p..], &s[i..], rules);
        if outcome != Outcome::NoMatch {
            return outcome;
        }
    }
    Outcome::NoWildcardMatch
}

/// Matches `c` against the GLOB set starting at `pat[*p]` (just after the
/// '['), advancing `p` past the ']'. `None` if the set is unterminated.
fn match_set(pat: &[char], p: &mut usize, c: char) -> Option<bool> {
    let next = |p: &mut usize| {
        let ch = pat.get(*p).copied();
        if ch.is_some() {
            *p += 1;
        }
        ch
    };
    let mut seen = false;
    let mut invert = false;
    let mut prior: Option<char> = None;
    let mut c2 = next(p);
    if c2 == Some('^') {
        invert = true;
        c2 = next(p);
    }
    if c2 == Some(']') {
        if c == ']' {
            seen = true;
        }
        c2 = next(p);
    }
    while let Some(ch) = c2 {
        if ch == ']' {
            break;
        }
        let following = pat.get(*p).copied();
        if ch == '-' && following.is_some_and(|f| f != ']') && prior.is_some() {
            let hi = next(p)?;
            if prior.is_some_and(|lo| c >= lo && c <= hi) {
                seen = true;
            }
            prior = None;
        } else {
            if c == ch {
                seen = true;
            }
            prior = Some(ch);
        }
        c2 = next(p);
    }
    c2?;
    Some(seen != invert)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn like2(p: &str, s: &str) -> bool {
        like(
            &[Value::Text(p.into()), Value::Text(s.into())],
            Collation::Binary,
        )
        .unwrap()
            == Value::Integer(1)
    }

    fn glob2(p: &str, s: &str) -> bool {
        glob(
            &[Value::Text(p.into()), Value::Text(s.into())],
            Collation::Binary,
        )
        .unwrap()
            == Value::Integer(1)
    }

    #[test]
    fn like_basics() {
        assert!(like2("a%", "ABC"));
        assert!(like2("%b_", "abc"));
        assert!(!like2("%b_", "ab"));
        assert!(like2("", ""));
        assert!(!like2("é", "É"));
    }

    #[test]
    fn glob_basics() {
        assert!(glob2("a*", "abc"));
        assert!(!glob2("A*", "abc"));
        assert!(glob2("[a-c]?", "bz"));
        assert!(glob2("[^a-c]*", "dz"));
        assert!(glob2("*[]]", "x]"));
        assert!(!glob2("[a-", "a"));
    }
}
