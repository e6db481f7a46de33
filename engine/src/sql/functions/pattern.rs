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

#[derive(Clone, Copy, Debug)]
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

/// `s` up to its first NUL.
fn until_nul(s: &str) -> &str {
    &s[..s.find('\0').unwrap_or(s.len())]
}

/// The character at byte offset `at` of `s` (a character boundary), if any.
fn char_at(s: &str, at: usize) -> Option<char> {
    s.get(at..)?.chars().next()
}

/// A value as the text LIKE and GLOB read: borrowed when it is text.
fn text_of(v: &Value) -> Option<std::borrow::Cow<'_, str>> {
    match v {
        Value::Text(s) => Some(std::borrow::Cow::Borrowed(s)),
        other => other.to_text().map(std::borrow::Cow::Owned),
    }
}

/// `like(pattern, string[, escape])`.
pub(super) fn like(args: &[Value], _: Collation) -> Result<Value> {
    like_values(&args[0], &args[1], args.get(2))
}

/// `glob(pattern, string)`.
pub(super) fn glob(args: &[Value], _: Collation) -> Result<Value> {
    glob_values(&args[0], &args[1])
}

/// `string LIKE pattern [ESCAPE escape]`, on borrowed operands.
pub(crate) fn like_values(
    pattern: &Value,
    string: &Value,
    escape: Option<&Value>,
) -> Result<Value> {
    let escape = match escape.map(text_of) {
        Some(None) => return Ok(Value::Null),
        Some(Some(e)) => Some(e),
        None => None,
    };
    matches(pattern, string, like_rules(escape.as_deref())?)
}

/// LIKE's rules, with `escape` (the ESCAPE operand's text) if any.
fn like_rules(escape: Option<&str>) -> Result<Rules> {
    let mut rules = Rules {
        match_all: Some('%'),
        match_one: Some('_'),
        match_other: None,
        is_glob: false,
        no_case: true,
    };
    if let Some(esc) = escape {
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
    Ok(rules)
}

const GLOB_RULES: Rules = Rules {
    match_all: Some('*'),
    match_one: Some('?'),
    match_other: Some('['),
    is_glob: true,
    no_case: false,
};

/// `string GLOB pattern`, on borrowed operands.
pub(crate) fn glob_values(pattern: &Value, string: &Value) -> Result<Value> {
    matches(pattern, string, GLOB_RULES)
}

fn matches(pattern: &Value, string: &Value, rules: Rules) -> Result<Value> {
    let text = text_of(pattern);
    // The limit counts a blob's own bytes, not its text's.
    let pattern_bytes = match pattern {
        Value::Blob(b) => b.len(),
        _ => text.as_ref().map_or(0, |t| t.len()),
    };
    if pattern_bytes > MAX_PATTERN_LEN {
        return Err(sql_err!("LIKE or GLOB pattern too complex"));
    }
    let (Some(pattern), Some(string)) = (text, text_of(string)) else {
        return Ok(Value::Null);
    };
    let outcome = compare(until_nul(&pattern), until_nul(&string), &rules);
    Ok(Value::Integer(i64::from(outcome == Outcome::Match)))
}

/// A LIKE or GLOB whose pattern (and escape) are text constants, prepared
/// once to test many strings: a scan's filter on its stored text.
#[derive(Clone, Debug)]
pub(crate) struct TextPattern {
    pattern: Box<str>,
    rules: Rules,
    /// The pattern's literal characters before its first wildcard or
    /// escape character, as UTF-8 bytes, ASCII letters lowercased for
    /// LIKE: a string that does not begin with them cannot match.
    prefix: Box<[u8]>,
    /// The pattern is `prefix` followed by match-alls only (`'ab%'`): a
    /// string that begins with `prefix` matches.
    prefix_then_any: bool,
}

impl TextPattern {
    /// The pattern, when LIKE / GLOB accept it: `None` where they would
    /// fail (a pattern too long, an escape of more than one character).
    pub(crate) fn new(glob: bool, pattern: &str, escape: Option<&str>) -> Option<TextPattern> {
        let (pattern, rules) = constant_pattern(glob, pattern, escape)?;
        let literal = literal_len(pattern, &rules);
        let mut prefix: Box<[u8]> = pattern.as_bytes()[..literal].into();
        if rules.no_case {
            prefix.make_ascii_lowercase();
        }
        let prefix_then_any = literal < pattern.len()
            && pattern[literal..]
                .chars()
                .all(|c| Some(c) == rules.match_all);
        Some(TextPattern {
            pattern: pattern.into(),
            rules,
            prefix,
            prefix_then_any,
        })
    }

    /// Whether `s LIKE pattern` (or GLOB) is true.
    pub(crate) fn matches(&self, s: &str) -> bool {
        compare(&self.pattern, until_nul(s), &self.rules) == Outcome::Match
    }

    /// What the pattern's literal prefix alone decides about the string
    /// whose UTF-8 bytes are `s` (not checked as UTF-8): `Some(false)` when
    /// `s` does not begin with the prefix (no match), `Some(true)` when it
    /// does and the rest of the pattern is match-alls (a match), `None`
    /// otherwise ([`TextPattern::matches`] decides).
    ///
    /// Literal pattern characters match one string character each, equal
    /// or, for LIKE, equal ignoring ASCII case; UTF-8 being
    /// self-synchronising, that is the bytes' equality (ASCII letters
    /// folded). A NUL in `s` ends the string: the prefix holds no NUL, so a
    /// NUL within `s`'s first bytes is a mismatch, and one after them leaves
    /// the prefix matched.
    #[inline]
    pub(crate) fn prefix_decides(&self, s: &[u8]) -> Option<bool> {
        let Some(head) = s.get(..self.prefix.len()) else {
            return Some(false);
        };
        let same = if self.rules.no_case {
            head.iter()
                .zip(self.prefix.iter())
                .all(|(a, b)| a.to_ascii_lowercase() == *b)
        } else {
            head == &*self.prefix
        };
        match (same, self.prefix_then_any) {
            (false, _) => Some(false),
            (true, true) => Some(true),
            (true, false) => None,
        }
    }
}

/// The byte length of `pattern`'s literal characters before its first
/// wildcard or escape character under `rules`.
fn literal_len(pattern: &str, rules: &Rules) -> usize {
    let special = |c: char| {
        Some(c) == rules.match_all || Some(c) == rules.match_one || Some(c) == rules.match_other
    };
    pattern.find(special).unwrap_or(pattern.len())
}

/// The literal characters a LIKE (or with `glob` a GLOB) pattern begins
/// with, up to its first wildcard or escape character (or NUL, which ends
/// the pattern): every string the pattern matches begins with them, for
/// LIKE ignoring ASCII case. `None` where LIKE would fail (an escape of
/// more than one character, a pattern too long).
pub(crate) fn literal_prefix<'p>(
    glob: bool,
    pattern: &'p str,
    escape: Option<&str>,
) -> Option<&'p str> {
    let (pattern, rules) = constant_pattern(glob, pattern, escape)?;
    Some(&pattern[..literal_len(pattern, &rules)])
}

/// A constant pattern up to its NUL and its rules, when LIKE (or with
/// `glob` GLOB) accepts them: `None` where it would fail (a pattern too
/// long, an escape of more than one character).
fn constant_pattern<'p>(
    glob: bool,
    pattern: &'p str,
    escape: Option<&str>,
) -> Option<(&'p str, Rules)> {
    if pattern.len() > MAX_PATTERN_LEN {
        return None;
    }
    let rules = if glob {
        GLOB_RULES
    } else {
        like_rules(escape).ok()?
    };
    Some((until_nul(pattern), rules))
}

fn lower(c: char) -> char {
    c.to_ascii_lowercase()
}

/// `patternCompare`, over the characters of `pat` and `s`; `p` and `i`
/// are byte offsets, always at character boundaries.
fn compare(pat: &str, s: &str, rules: &Rules) -> Outcome {
    let (mut p, mut i) = (0usize, 0usize);
    // One past the last escaped pattern character (LIKE's ESCAPE).
    let mut escaped_end: Option<usize> = None;
    while let Some(c) = char_at(pat, p) {
        p += c.len_utf8();
        if Some(c) == rules.match_all {
            return match_wildcard(pat, p, s, i, rules);
        }
        let mut c = c;
        if Some(c) == rules.match_other {
            if !rules.is_glob {
                let Some(next) = char_at(pat, p) else {
                    return Outcome::NoMatch;
                };
                p += next.len_utf8();
                c = next;
                escaped_end = Some(p);
            } else {
                let Some(sc) = char_at(s, i) else {
                    return Outcome::NoMatch;
                };
                i += sc.len_utf8();
                match match_set(pat, &mut p, sc) {
                    Some(true) => continue,
                    _ => return Outcome::NoMatch,
                }
            }
        }
        let c2 = char_at(s, i);
        if let Some(c2) = c2 {
            i += c2.len_utf8();
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

/// The pattern had a match-all just before byte `p`; `i` is the string's
/// byte offset.
fn match_wildcard(pat: &str, mut p: usize, s: &str, mut i: usize, rules: &Rules) -> Outcome {
    // Skip further match-alls and match-ones (each of which eats a char).
    let mut c = None;
    while let Some(pc) = char_at(pat, p) {
        p += pc.len_utf8();
        if Some(pc) == rules.match_all {
            continue;
        }
        if Some(pc) == rules.match_one {
            let Some(sc) = char_at(s, i) else {
                return Outcome::NoWildcardMatch;
            };
            i += sc.len_utf8();
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
            let Some(next) = char_at(pat, p) else {
                return Outcome::NoWildcardMatch;
            };
            p += next.len_utf8();
            c = next;
        } else {
            // "[...]" right after "*": try every starting point. The '['
            // is one byte, just before `p`.
            while let Some(sc) = char_at(s, i) {
                let outcome = compare(&pat[p - 1..], &s[i..], rules);
                if outcome != Outcome::NoMatch {
                    return outcome;
                }
                i += sc.len_utf8();
            }
            return Outcome::NoWildcardMatch;
        }
    }
    // c is a literal: try each later position where it occurs.
    while let Some(sc) = char_at(s, i) {
        i += sc.len_utf8();
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
fn match_set(pat: &str, p: &mut usize, c: char) -> Option<bool> {
    let next = |p: &mut usize| {
        let ch = char_at(pat, *p);
        if let Some(ch) = ch {
            *p += ch.len_utf8();
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
        let following = char_at(pat, *p);
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
    fn prefix_decides_what_it_can() {
        let like = TextPattern::new(false, "iTem12%%", None).unwrap();
        assert_eq!(like.prefix_decides(b"ITEM123"), Some(true));
        assert_eq!(like.prefix_decides(b"item1"), Some(false));
        assert_eq!(like.prefix_decides(b"item13"), Some(false));
        assert_eq!(like.prefix_decides(b"item\x0012"), Some(false));
        let inner = TextPattern::new(false, "ab_c", None).unwrap();
        assert_eq!(inner.prefix_decides(b"abxc"), None);
        assert_eq!(inner.prefix_decides(b"aXxc"), Some(false));
        let glob = TextPattern::new(true, "Ab*", None).unwrap();
        assert_eq!(glob.prefix_decides(b"ab"), Some(false));
        assert_eq!(glob.prefix_decides(b"Abz"), Some(true));
        let escaped = TextPattern::new(false, "a!%%", Some("!")).unwrap();
        assert_eq!(escaped.prefix_decides(b"ab"), None);
        assert_eq!(escaped.prefix_decides(b"b%"), Some(false));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Whatever the literal prefix decides, the whole pattern decides
        /// alike: LIKE (with and without an escape) and GLOB.
        #[test]
        fn prefix_agrees_with_the_whole_pattern(
            pattern in "[aAb%_!*?^\\[\\]é\\x00-]{0,5}",
            string in "[aAbé%!\\x00]{0,4}",
        ) {
            for (glob, escape) in [(false, None), (false, Some("!")), (false, Some("%")), (true, None)] {
                let p = TextPattern::new(glob, &pattern, escape).unwrap();
                if let Some(decided) = p.prefix_decides(string.as_bytes()) {
                    proptest::prop_assert_eq!(decided, p.matches(&string), "{} {:?} {:?}", glob, escape, pattern);
                }
            }
        }
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
