//! The SQL lexer: cuts SQLite-dialect text into [`Token`]s with byte spans.
//!
//! Tokens carry only a kind and a span (`start..end` into the text); the
//! parser reads a token's text from the span and decodes it with the helpers
//! at the bottom of this file ([`unquote_identifier`], [`unescape_string`],
//! [`decode_blob`], [`parse_integer`], [`parse_real`]). This keeps lexing
//! allocation-free: a statement's tokens are one `Vec` of small `Copy` values.
//!
//! Lexical rules follow SQLite's tokenizer (`tokenize.c`):
//! - Keywords are case-insensitive; every SQLite keyword is recognised, and
//!   [`Keyword::is_reserved`] says which ones may not serve as identifiers.
//! - Identifiers: `[A-Za-z_\x80-\xff][A-Za-z0-9_$\x80-\xff]*`, or quoted with
//!   `"..."` (`""` escapes), `[...]` or `` `...` `` (` `` ` escapes).
//! - Strings `'...'` (`''` escapes); blobs `X'hex'` (even number of digits).
//! - Numbers: decimal integers, `0x` hex integers, reals (`1.5`, `.5`, `1.`,
//!   `1e5`, `1.5E-3`). A number directly followed by an identifier character
//!   is an error, as in SQLite (`1abc`).
//! - Parameters `?`, `?NNN`, `:name`, `@name`, `$name`.
//! - Comments `-- ...` to end of line and `/* ... */` (an unterminated block
//!   comment runs to the end of the text, as in SQLite).
//!
//! An unrecognised character, an unterminated string, quoted identifier or
//! blob, or a malformed number produces an [`TokenKind::Illegal`] token; the
//! parser reports it (`unrecognized token: "..."`) when it reaches it, so an
//! earlier syntax error is reported first, as SQLite does.

/// What kind of token; the text is in the token's span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    Keyword(Keyword),
    /// A bare identifier (not a keyword).
    Ident,
    /// An identifier in `"..."`, `[...]` or `` `...` ``.
    QuotedIdent(Quote),
    /// `'...'`
    String,
    /// `X'...'`
    Blob,
    /// A decimal or hex integer literal (may still overflow `i64`).
    Integer,
    /// A real literal.
    Real,
    /// A number written with `_` digit separators (`1_000`, `0xff_ff`,
    /// `1_0.5e1_0`: SQLite 3.46's TK_QNUMBER). Only an expression's term
    /// (and DEFAULT's) takes one; [`dequote_number`] removes them.
    QNumber,
    /// `?`, `?NNN`, `:name`, `@name`, `$name`.
    Param,
    LParen,
    RParen,
    Comma,
    Semicolon,
    Dot,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    /// `=` or `==`
    Eq,
    /// `!=` or `<>`
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `||`
    Concat,
    ShiftLeft,
    ShiftRight,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `~`
    Tilde,
    /// `->`
    Arrow,
    /// `->>`
    Arrow2,
    /// Text no token starts with, or an unterminated literal; the span covers
    /// the offending text.
    Illegal,
    /// End of input (empty span at the end).
    Eof,
}

/// How a quoted identifier was quoted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quote {
    /// `"..."`: SQLite may read it as a string literal if no such column exists.
    Double,
    /// `[...]`
    Bracket,
    /// `` `...` ``
    Backtick,
}

/// One token: its kind and its byte span in the SQL text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

/// An iterator-like lexer over SQL text, starting at a byte offset.
pub(crate) struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer over `sql` that starts at byte `start` (positions stay
    /// relative to the whole text). `start` must be on a char boundary or at
    /// the end; a larger value is clamped to the end.
    pub(crate) fn new(sql: &'a str, start: usize) -> Lexer<'a> {
        let src = sql.as_bytes();
        Lexer {
            src,
            pos: start.min(src.len()),
        }
    }

    /// The next token, skipping whitespace and comments. Returns `Eof`
    /// forever at the end of the text.
    pub(crate) fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos;
        let kind = match self.src.get(start) {
            None => TokenKind::Eof,
            Some(&c) => self.token_kind(c),
        };
        Token {
            kind,
            start,
            end: self.pos,
        }
    }

    fn peek_at(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    /// Skips whitespace and comments.
    fn skip_trivia(&mut self) {
        loop {
            match self.peek_at(self.pos) {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0c => self.pos += 1,
                b'-' if self.peek_at(self.pos + 1) == b'-' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'/' if self.peek_at(self.pos + 1) == b'*' => {
                    self.pos += 2;
                    loop {
                        if self.pos >= self.src.len() {
                            break;
                        }
                        if self.src[self.pos] == b'*' && self.peek_at(self.pos + 1) == b'/' {
                            self.pos += 2;
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// Lexes the token starting with byte `c` at `self.pos`, advancing past it.
    fn token_kind(&mut self, c: u8) -> TokenKind {
        let next = self.peek_at(self.pos + 1);
        let (kind, len) = match c {
            b'(' => (TokenKind::LParen, 1),
            b')' => (TokenKind::RParen, 1),
            b',' => (TokenKind::Comma, 1),
            b';' => (TokenKind::Semicolon, 1),
            b'+' => (TokenKind::Plus, 1),
            b'*' => (TokenKind::Star, 1),
            b'/' => (TokenKind::Slash, 1),
            b'%' => (TokenKind::Percent, 1),
            b'&' => (TokenKind::BitAnd, 1),
            b'~' => (TokenKind::Tilde, 1),
            b'-' if next == b'>' && self.peek_at(self.pos + 2) == b'>' => (TokenKind::Arrow2, 3),
            b'-' if next == b'>' => (TokenKind::Arrow, 2),
            b'-' => (TokenKind::Minus, 1),
            b'=' if next == b'=' => (TokenKind::Eq, 2),
            b'=' => (TokenKind::Eq, 1),
            b'<' => match next {
                b'=' => (TokenKind::Le, 2),
                b'>' => (TokenKind::Ne, 2),
                b'<' => (TokenKind::ShiftLeft, 2),
                _ => (TokenKind::Lt, 1),
            },
            b'>' => match next {
                b'=' => (TokenKind::Ge, 2),
                b'>' => (TokenKind::ShiftRight, 2),
                _ => (TokenKind::Gt, 1),
            },
            b'!' if next == b'=' => (TokenKind::Ne, 2),
            b'|' if next == b'|' => (TokenKind::Concat, 2),
            b'|' => (TokenKind::BitOr, 1),
            b'.' if next.is_ascii_digit() => return self.number(),
            b'.' => (TokenKind::Dot, 1),
            b'0'..=b'9' => return self.number(),
            b'\'' => return self.quoted(b'\'', TokenKind::String),
            b'"' => return self.quoted(b'"', TokenKind::QuotedIdent(Quote::Double)),
            b'`' => return self.quoted(b'`', TokenKind::QuotedIdent(Quote::Backtick)),
            b'[' => return self.bracketed(),
            b'?' => {
                self.pos += 1;
                self.skip_while(|b| b.is_ascii_digit());
                return TokenKind::Param;
            }
            b':' | b'@' | b'$' => return self.named_param(),
            b'x' | b'X' if next == b'\'' => return self.blob(),
            c if is_ident_start(c) => return self.word(),
            _ => return self.illegal_char(),
        };
        self.pos += len;
        kind
    }

    fn skip_while(&mut self, f: impl Fn(u8) -> bool) {
        while self.pos < self.src.len() && f(self.src[self.pos]) {
            self.pos += 1;
        }
    }

    /// One unrecognised character (a whole UTF-8 sequence, so spans stay on
    /// char boundaries).
    fn illegal_char(&mut self) -> TokenKind {
        self.pos += 1;
        self.skip_while(|b| (b & 0xC0) == 0x80);
        TokenKind::Illegal
    }

    fn word(&mut self) -> TokenKind {
        let start = self.pos;
        self.skip_while(is_ident_char);
        match Keyword::lookup(&self.src[start..self.pos]) {
            Some(k) => TokenKind::Keyword(k),
            None => TokenKind::Ident,
        }
    }

    fn number(&mut self) -> TokenKind {
        let src = self.src;
        let start = self.pos;
        let mut kind = TokenKind::Integer;
        // Each run of digits may hold `_` separators (checked when the
        // token is read: [`dequote_number`]).
        let digits = |b: u8| b.is_ascii_digit() || b == b'_';
        if src[self.pos] == b'0'
            && matches!(self.peek_at(self.pos + 1), b'x' | b'X')
            && self.peek_at(self.pos + 2).is_ascii_hexdigit()
        {
            self.pos += 2;
            self.skip_while(|b| b.is_ascii_hexdigit() || b == b'_');
        } else {
            self.skip_while(digits);
            if self.peek_at(self.pos) == b'.' {
                kind = TokenKind::Real;
                self.pos += 1;
                self.skip_while(digits);
            }
            if matches!(self.peek_at(self.pos), b'e' | b'E') {
                let mut p = self.pos + 1;
                if matches!(self.peek_at(p), b'+' | b'-') {
                    p += 1;
                }
                if self.peek_at(p).is_ascii_digit() {
                    kind = TokenKind::Real;
                    self.pos = p;
                    self.skip_while(digits);
                }
            }
        }
        if src[start..self.pos].contains(&b'_') {
            kind = TokenKind::QNumber;
        }
        if self.pos < src.len() && is_ident_char(src[self.pos]) {
            // SQLite: "1abc" is one unrecognised token.
            self.skip_while(is_ident_char);
            return TokenKind::Illegal;
        }
        kind
    }

    /// A `quote`-delimited token where a doubled quote escapes it.
    fn quoted(&mut self, quote: u8, kind: TokenKind) -> TokenKind {
        self.pos += 1;
        loop {
            match self.src.get(self.pos) {
                None => return TokenKind::Illegal,
                Some(&b) if b == quote => {
                    if self.peek_at(self.pos + 1) == quote {
                        self.pos += 2;
                    } else {
                        self.pos += 1;
                        return kind;
                    }
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    fn bracketed(&mut self) -> TokenKind {
        match self.src[self.pos..].iter().position(|&b| b == b']') {
            Some(i) => {
                self.pos += i + 1;
                TokenKind::QuotedIdent(Quote::Bracket)
            }
            None => {
                self.pos = self.src.len();
                TokenKind::Illegal
            }
        }
    }

    fn named_param(&mut self) -> TokenKind {
        self.pos += 1;
        let name_start = self.pos;
        self.skip_while(is_ident_char);
        if self.pos == name_start {
            return TokenKind::Illegal;
        }
        TokenKind::Param
    }

    fn blob(&mut self) -> TokenKind {
        self.pos += 2;
        let digits_start = self.pos;
        self.skip_while(|b| b.is_ascii_hexdigit());
        let digits = self.pos - digits_start;
        if self.peek_at(self.pos) != b'\'' || !digits.is_multiple_of(2) {
            // Swallow up to the closing quote so the error names the literal.
            self.skip_while(|b| b != b'\'');
            if self.pos < self.src.len() {
                self.pos += 1;
            }
            return TokenKind::Illegal;
        }
        self.pos += 1;
        TokenKind::Blob
    }
}

/// Whether `c` may start an unquoted identifier (SQLite counts every
/// non-ASCII byte as an identifier character).
pub(crate) fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// Whether `c` may continue an unquoted identifier.
pub(crate) fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// The name inside a quoted identifier token's text (`"a""b"` → `a"b`);
/// text that is not quoted is returned as is.
pub(crate) fn unquote_identifier(text: &str) -> String {
    let b = text.as_bytes();
    if b.len() < 2 {
        return text.to_string();
    }
    match b[0] {
        b'"' => text[1..text.len() - 1].replace("\"\"", "\""),
        b'`' => text[1..text.len() - 1].replace("``", "`"),
        b'\'' => text[1..text.len() - 1].replace("''", "'"),
        b'[' => text[1..text.len() - 1].to_string(),
        _ => text.to_string(),
    }
}

/// The value of a string literal token's text (`'it''s'` → `it's`).
pub(crate) fn unescape_string(text: &str) -> String {
    let inner = text.get(1..text.len().saturating_sub(1)).unwrap_or("");
    if inner.contains("''") {
        inner.replace("''", "'")
    } else {
        inner.to_string()
    }
}

/// The bytes of a blob literal token's text (`X'0aFF'`). The lexer only
/// emits `Blob` tokens with an even number of hex digits.
pub(crate) fn decode_blob(text: &str) -> Vec<u8> {
    let hex = text
        .as_bytes()
        .get(2..text.len().saturating_sub(1))
        .unwrap_or(&[]);
    hex.chunks_exact(2)
        .map(|pair| (hex_value(pair[0]) << 4) | hex_value(pair[1]))
        .collect()
}

fn hex_value(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

/// A [`TokenKind::QNumber`]'s text without its separators, and whether it
/// is then an integer (else a real); `None` when a `_` is not between two
/// digits (hex digits in a hex literal), which SQLite reports as an
/// unrecognized token.
pub(crate) fn dequote_number(text: &str) -> Option<(String, bool)> {
    let b = text.as_bytes();
    let hex = b.len() > 1 && b[0] == b'0' && matches!(b[1], b'x' | b'X');
    let digit = |c: Option<&u8>| {
        c.is_some_and(|c| {
            if hex {
                c.is_ascii_hexdigit()
            } else {
                c.is_ascii_digit()
            }
        })
    };
    let mut out = String::with_capacity(text.len());
    let mut integer = true;
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            if i == 0 || !digit(b.get(i - 1)) || !digit(b.get(i + 1)) {
                return None;
            }
        } else {
            integer &= hex || !matches!(c, b'.' | b'e' | b'E');
            out.push(c as char);
        }
    }
    Some((out, integer))
}

/// The numeric value of an integer literal token's text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum IntegerValue {
    /// Fits in `i64`.
    Int(i64),
    /// A decimal literal too large for `i64`: SQLite makes it a REAL. Exactly
    /// 9223372036854775808 is flagged so that `-9223372036854775808` can be
    /// folded into `i64::MIN`.
    TooBig {
        value: f64,
        is_i64_min_magnitude: bool,
    },
    /// A hex literal with more than 16 digits: an error in SQLite
    /// ("hex literal too big").
    HexTooBig,
}

/// Decodes an integer literal token's text: decimal, or `0x` hex (which,
/// as in SQLite, is the two's-complement bit pattern: `0xffffffffffffffff`
/// is -1).
pub(crate) fn parse_integer(text: &str) -> IntegerValue {
    let b = text.as_bytes();
    if b.len() > 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X') {
        let digits = text[2..].trim_start_matches('0');
        if digits.len() > 16 {
            return IntegerValue::HexTooBig;
        }
        return match u64::from_str_radix(digits, 16) {
            Ok(v) => IntegerValue::Int(v as i64),
            Err(_) if digits.is_empty() => IntegerValue::Int(0),
            Err(_) => IntegerValue::HexTooBig,
        };
    }
    match text.parse::<i64>() {
        Ok(v) => IntegerValue::Int(v),
        Err(_) => IntegerValue::TooBig {
            value: parse_real(text),
            is_i64_min_magnitude: text.trim_start_matches('0') == "9223372036854775808",
        },
    }
}

/// Decodes a real literal token's text (`1.5`, `.5`, `1.`, `1e5`).
pub(crate) fn parse_real(text: &str) -> f64 {
    // Rust's float parser accepts every form the lexer emits except a
    // trailing '.' before an exponent ("1.e5"), which it also accepts; the
    // fallback only guards against an impossible case.
    text.parse::<f64>().unwrap_or_else(|_| {
        let fixed = text.replace(".e", ".0e").replace(".E", ".0E");
        fixed.parse::<f64>().unwrap_or(0.0)
    })
}

macro_rules! keywords {
    ($($variant:ident $text:literal $reserved:literal,)*) => {
        /// Every SQLite keyword.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Keyword {
            $($variant,)*
        }

        impl Keyword {
            #[cfg(test)] // used by tests only; the executor does not need it yet
            /// The keyword's canonical (upper-case) spelling.
            pub(crate) fn as_str(self) -> &'static str {
                match self {
                    $(Keyword::$variant => $text,)*
                }
            }

            /// Whether the keyword may not be used as an unquoted identifier.
            /// The others are SQLite's "fallback" keywords: they serve as
            /// names wherever a keyword is not expected (`CREATE TABLE t(key,
            /// action, replace)`), and as function names (`replace(..)`).
            pub(crate) fn is_reserved(self) -> bool {
                match self {
                    $(Keyword::$variant => $reserved,)*
                }
            }

            /// The keyword spelled by `word` (any case), if any: one hash and
            /// (almost always) one comparison, since every identifier of every
            /// statement passes through here.
            pub(crate) fn lookup(word: &[u8]) -> Option<Keyword> {
                if word.len() < MIN_KEYWORD_LEN || word.len() > MAX_KEYWORD_LEN {
                    return None;
                }
                let mut buf = [0u8; MAX_KEYWORD_LEN];
                for (d, s) in buf.iter_mut().zip(word) {
                    *d = s.to_ascii_uppercase();
                }
                let upper = &buf[..word.len()];
                let mut slot = keyword_hash(upper);
                loop {
                    let index = KEYWORD_TABLE[slot];
                    if index == EMPTY_SLOT {
                        return None;
                    }
                    let (text, keyword) = KEYWORDS[index as usize];
                    if text.as_bytes() == upper {
                        return Some(keyword);
                    }
                    slot = (slot + 1) % KEYWORD_TABLE_LEN;
                }
            }
        }

        /// Every keyword with its spelling, sorted by spelling (a test checks
        /// the order).
        const KEYWORDS: &[(&str, Keyword)] = &[$(($text, Keyword::$variant),)*];
    };
}

const MIN_KEYWORD_LEN: usize = 2;
const MAX_KEYWORD_LEN: usize = 17;

/// Slots of the keyword hash table: a power of two over three times the
/// number of keywords, so probe sequences stay short.
const KEYWORD_TABLE_LEN: usize = 512;
const EMPTY_SLOT: u8 = u8::MAX;

/// FNV-1a over an upper-case word, reduced to a table slot.
const fn keyword_hash(upper: &[u8]) -> usize {
    let mut hash: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < upper.len() {
        hash ^= upper[i] as u32;
        hash = hash.wrapping_mul(0x0100_0193);
        i += 1;
    }
    hash as usize % KEYWORD_TABLE_LEN
}

/// Open-addressing table from [`keyword_hash`] to an index into `KEYWORDS`
/// (linear probing), built at compile time.
const KEYWORD_TABLE: [u8; KEYWORD_TABLE_LEN] = {
    assert!(KEYWORDS.len() < EMPTY_SLOT as usize && KEYWORDS.len() * 3 < KEYWORD_TABLE_LEN);
    let mut table = [EMPTY_SLOT; KEYWORD_TABLE_LEN];
    let mut i = 0;
    while i < KEYWORDS.len() {
        let mut slot = keyword_hash(KEYWORDS[i].0.as_bytes());
        while table[slot] != EMPTY_SLOT {
            slot = (slot + 1) % KEYWORD_TABLE_LEN;
        }
        table[slot] = i as u8;
        i += 1;
    }
    table
};

// Reserved = not in SQLite's `%fallback ID` list (parse.y). The join
// keywords are reserved here although SQLite accepts them as table and
// column names in a few positions; quote such names.
keywords! {
    Abort "ABORT" false,
    Action "ACTION" false,
    Add "ADD" true,
    After "AFTER" false,
    All "ALL" true,
    Alter "ALTER" true,
    Always "ALWAYS" false,
    Analyze "ANALYZE" false,
    And "AND" true,
    As "AS" true,
    Asc "ASC" false,
    Attach "ATTACH" false,
    Autoincrement "AUTOINCREMENT" true,
    Before "BEFORE" false,
    Begin "BEGIN" false,
    Between "BETWEEN" true,
    By "BY" false,
    Cascade "CASCADE" false,
    Case "CASE" true,
    Cast "CAST" false,
    Check "CHECK" true,
    Collate "COLLATE" true,
    Column "COLUMN" false,
    Commit "COMMIT" true,
    Conflict "CONFLICT" false,
    Constraint "CONSTRAINT" true,
    Create "CREATE" true,
    Cross "CROSS" true,
    Current "CURRENT" false,
    CurrentDate "CURRENT_DATE" false,
    CurrentTime "CURRENT_TIME" false,
    CurrentTimestamp "CURRENT_TIMESTAMP" false,
    Database "DATABASE" false,
    Default "DEFAULT" true,
    Deferrable "DEFERRABLE" true,
    Deferred "DEFERRED" false,
    Delete "DELETE" true,
    Desc "DESC" false,
    Detach "DETACH" false,
    Distinct "DISTINCT" true,
    Do "DO" false,
    Drop "DROP" true,
    Each "EACH" false,
    Else "ELSE" true,
    End "END" false,
    Escape "ESCAPE" true,
    Except "EXCEPT" true,
    Exclude "EXCLUDE" false,
    Exclusive "EXCLUSIVE" false,
    Exists "EXISTS" true,
    Explain "EXPLAIN" false,
    Fail "FAIL" false,
    Filter "FILTER" false,
    First "FIRST" false,
    Following "FOLLOWING" false,
    For "FOR" false,
    Foreign "FOREIGN" true,
    From "FROM" true,
    Full "FULL" true,
    Generated "GENERATED" false,
    Glob "GLOB" false,
    Group "GROUP" true,
    Groups "GROUPS" false,
    Having "HAVING" true,
    If "IF" false,
    Ignore "IGNORE" false,
    Immediate "IMMEDIATE" false,
    In "IN" true,
    Index "INDEX" true,
    Indexed "INDEXED" true,
    Initially "INITIALLY" false,
    Inner "INNER" true,
    Insert "INSERT" true,
    Instead "INSTEAD" false,
    Intersect "INTERSECT" true,
    Into "INTO" true,
    Is "IS" true,
    Isnull "ISNULL" true,
    Join "JOIN" true,
    Key "KEY" false,
    Last "LAST" false,
    Left "LEFT" true,
    Like "LIKE" false,
    Limit "LIMIT" true,
    Match "MATCH" false,
    Materialized "MATERIALIZED" false,
    Natural "NATURAL" true,
    No "NO" false,
    Not "NOT" true,
    Nothing "NOTHING" true,
    Notnull "NOTNULL" true,
    Null "NULL" true,
    Nulls "NULLS" false,
    Of "OF" false,
    Offset "OFFSET" false,
    On "ON" true,
    Or "OR" true,
    Order "ORDER" true,
    Others "OTHERS" false,
    Outer "OUTER" true,
    Over "OVER" false,
    Partition "PARTITION" false,
    Plan "PLAN" false,
    Pragma "PRAGMA" false,
    Preceding "PRECEDING" false,
    Primary "PRIMARY" true,
    Query "QUERY" false,
    Raise "RAISE" false,
    Range "RANGE" false,
    Recursive "RECURSIVE" false,
    References "REFERENCES" true,
    Regexp "REGEXP" false,
    Reindex "REINDEX" false,
    Release "RELEASE" false,
    Rename "RENAME" false,
    Replace "REPLACE" false,
    Restrict "RESTRICT" false,
    Returning "RETURNING" true,
    Right "RIGHT" true,
    Rollback "ROLLBACK" false,
    Row "ROW" false,
    Rows "ROWS" false,
    Savepoint "SAVEPOINT" false,
    Select "SELECT" true,
    Set "SET" true,
    Table "TABLE" true,
    Temp "TEMP" false,
    Temporary "TEMPORARY" false,
    Then "THEN" true,
    Ties "TIES" false,
    To "TO" true,
    Transaction "TRANSACTION" true,
    Trigger "TRIGGER" false,
    Unbounded "UNBOUNDED" false,
    Union "UNION" true,
    Unique "UNIQUE" true,
    Update "UPDATE" true,
    Using "USING" true,
    Vacuum "VACUUM" false,
    Values "VALUES" true,
    View "VIEW" false,
    Virtual "VIRTUAL" false,
    When "WHEN" true,
    Where "WHERE" true,
    Window "WINDOW" false,
    With "WITH" false,
    Without "WITHOUT" false,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(sql: &str) -> Vec<(TokenKind, &str)> {
        let mut lexer = Lexer::new(sql, 0);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token();
            if t.kind == TokenKind::Eof {
                return out;
            }
            out.push((t.kind, &sql[t.start..t.end]));
        }
    }

    #[test]
    fn keywords_are_case_insensitive_and_identifiers_are_not_keywords() {
        use TokenKind::*;
        assert_eq!(
            kinds("select SeLeCt foo _x1$ ä"),
            vec![
                (Keyword(super::Keyword::Select), "select"),
                (Keyword(super::Keyword::Select), "SeLeCt"),
                (Ident, "foo"),
                (Ident, "_x1$"),
                (Ident, "ä"),
            ]
        );
        assert_eq!(
            super::Keyword::lookup(b"current_timestamp"),
            Some(super::Keyword::CurrentTimestamp)
        );
        assert_eq!(super::Keyword::lookup(b"selectx"), None);
    }

    #[test]
    fn every_keyword_is_found_in_any_case_and_nothing_else_is() {
        assert!(KEYWORDS.windows(2).all(|w| w[0].0 < w[1].0));
        for (text, k) in KEYWORDS {
            assert_eq!(k.as_str(), *text);
            assert!((MIN_KEYWORD_LEN..=MAX_KEYWORD_LEN).contains(&text.len()));
            assert_eq!(Keyword::lookup(text.as_bytes()), Some(*k));
            assert_eq!(
                Keyword::lookup(text.to_ascii_lowercase().as_bytes()),
                Some(*k)
            );
            let longer = format!("{text}X");
            assert_eq!(Keyword::lookup(longer.as_bytes()), None);
            assert_eq!(
                Keyword::lookup(&text.as_bytes()[..text.len() - 1]).map(|k| k.as_str().len()),
                {
                    // A prefix may itself be a keyword (CURRENT of CURRENT_DATE).
                    KEYWORDS
                        .iter()
                        .find(|(t, _)| *t == &text[..text.len() - 1])
                        .map(|(t, _)| t.len())
                }
            );
        }
        for word in ["", "a", "x", "rowid", "true", "strict", "stored", "selec"] {
            assert_eq!(Keyword::lookup(word.as_bytes()), None, "{word}");
        }
    }

    #[test]
    fn quoted_identifiers_strings_and_blobs() {
        use TokenKind::*;
        assert_eq!(
            kinds(r#""a""b" [x y] `c``d` 'it''s' X'0aFf' x''"#),
            vec![
                (QuotedIdent(Quote::Double), r#""a""b""#),
                (QuotedIdent(Quote::Bracket), "[x y]"),
                (QuotedIdent(Quote::Backtick), "`c``d`"),
                (String, "'it''s'"),
                (Blob, "X'0aFf'"),
                (Blob, "x''"),
            ]
        );
        assert_eq!(unquote_identifier(r#""a""b""#), "a\"b");
        assert_eq!(unquote_identifier("[x y]"), "x y");
        assert_eq!(unquote_identifier("`c``d`"), "c`d");
        assert_eq!(unescape_string("'it''s'"), "it's");
        assert_eq!(decode_blob("X'0aFf'"), vec![0x0a, 0xff]);
        assert_eq!(decode_blob("x''"), Vec::<u8>::new());
    }

    #[test]
    fn numbers() {
        use TokenKind::*;
        assert_eq!(
            kinds("1 0x1F 1.5 .5 1. 1e5 1E-3 2.5e+2 1e"),
            vec![
                (Integer, "1"),
                (Integer, "0x1F"),
                (Real, "1.5"),
                (Real, ".5"),
                (Real, "1."),
                (Real, "1e5"),
                (Real, "1E-3"),
                (Real, "2.5e+2"),
                (Illegal, "1e"),
            ]
        );
        assert_eq!(kinds("1abc"), vec![(Illegal, "1abc")]);
        assert_eq!(parse_integer("0x1F"), IntegerValue::Int(31));
        assert_eq!(parse_integer("0xffffffffffffffff"), IntegerValue::Int(-1));
        assert_eq!(
            parse_integer("0x10000000000000000"),
            IntegerValue::HexTooBig
        );
        assert_eq!(
            parse_integer("9223372036854775808"),
            IntegerValue::TooBig {
                value: 9.223_372_036_854_776e18,
                is_i64_min_magnitude: true
            }
        );
        assert_eq!(parse_real("1."), 1.0);
        assert_eq!(parse_real(".5"), 0.5);
        assert_eq!(parse_real("1.e2"), 100.0);
    }

    #[test]
    fn digit_separators() {
        use TokenKind::*;
        assert_eq!(
            kinds("1_000 0xff_ff 1_0.5e1_0 1__0 1_ 1_e5 1e_5 1_x"),
            vec![
                (QNumber, "1_000"),
                (QNumber, "0xff_ff"),
                (QNumber, "1_0.5e1_0"),
                (QNumber, "1__0"),
                (QNumber, "1_"),
                (QNumber, "1_e5"),
                (Illegal, "1e_5"),
                (Illegal, "1_x"),
            ]
        );
        assert_eq!(dequote_number("1_000"), Some(("1000".into(), true)));
        assert_eq!(dequote_number("0xf_F"), Some(("0xfF".into(), true)));
        assert_eq!(dequote_number("0x1_e"), Some(("0x1e".into(), true)));
        assert_eq!(dequote_number("1_0.5e1_0"), Some(("10.5e10".into(), false)));
        for bad in ["1__0", "1_", "1_e5", "1_.5", "1._5", "0x1_"] {
            assert_eq!(dequote_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn operators_params_and_comments() {
        use TokenKind::*;
        assert_eq!(
            kinds("|| << >> == != <> -> ->> <= >= | & ~ -- comment\n ? ?12 :a @b $c /* x */ ;"),
            vec![
                (Concat, "||"),
                (ShiftLeft, "<<"),
                (ShiftRight, ">>"),
                (Eq, "=="),
                (Ne, "!="),
                (Ne, "<>"),
                (Arrow, "->"),
                (Arrow2, "->>"),
                (Le, "<="),
                (Ge, ">="),
                (BitOr, "|"),
                (BitAnd, "&"),
                (Tilde, "~"),
                (Param, "?"),
                (Param, "?12"),
                (Param, ":a"),
                (Param, "@b"),
                (Param, "$c"),
                (Semicolon, ";"),
            ]
        );
        assert_eq!(kinds("/* unterminated"), vec![]);
    }

    #[test]
    fn illegal_tokens() {
        use TokenKind::*;
        assert_eq!(kinds("#"), vec![(Illegal, "#")]);
        assert_eq!(kinds("'abc"), vec![(Illegal, "'abc")]);
        assert_eq!(kinds("\"abc"), vec![(Illegal, "\"abc")]);
        assert_eq!(kinds("[abc"), vec![(Illegal, "[abc")]);
        assert_eq!(kinds("X'abc'"), vec![(Illegal, "X'abc'")]);
        assert_eq!(kinds("X'zz'"), vec![(Illegal, "X'zz'")]);
        assert_eq!(kinds("!"), vec![(Illegal, "!")]);
        assert_eq!(kinds(":"), vec![(Illegal, ":")]);
        assert_eq!(kinds("é€"), vec![(Ident, "é€")]);
        assert_eq!(kinds("\u{0}"), vec![(Illegal, "\u{0}")]);
    }
}
