//! SQLite's JSONB encoding, the one internal form of every JSON value here
//! (json.c keeps parsed JSON the same way): the text parser that produces
//! it, its translation back to (compact or pretty) text, and its validity
//! check.
//!
//! An element is a header and a payload. The header's first byte holds the
//! element type (low 4 bits, the constants below) and the payload size
//! (high 4 bits: 0..=11 the size itself; 12, 13, 14, 15 a 1, 2, 4, 8-byte
//! big-endian size follows). Scalars' payloads are their text as written
//! (numbers keep their spelling, strings their escapes, without quotes);
//! an array's payload is its elements, an object's its label/value pairs.
//!
//! Blobs made here are well formed. Blobs given as SQL arguments (JSONB
//! input) are not checked up front, exactly as SQLite does not: every
//! reader bounds-checks sizes and reports a malformed element instead of
//! reading past the end, so garbage gives an error or garbage, never a
//! panic.

/// JSON `null`.
pub(super) const NULL: u8 = 0;
/// JSON `true`.
pub(super) const TRUE: u8 = 1;
/// JSON `false`.
pub(super) const FALSE: u8 = 2;
/// An integer literal of both JSON and SQL.
pub(super) const INT: u8 = 3;
/// A JSON5 hexadecimal integer literal.
pub(super) const INT5: u8 = 4;
/// A floating-point literal of both JSON and SQL.
pub(super) const FLOAT: u8 = 5;
/// A JSON5 floating-point literal (missing digits beside the `.`).
pub(super) const FLOAT5: u8 = 6;
/// A string with no escapes and nothing to escape.
pub(super) const TEXT: u8 = 7;
/// A string with RFC-8259 escapes.
pub(super) const TEXTJ: u8 = 8;
/// A string with JSON5 escapes or raw characters JSON must escape.
pub(super) const TEXT5: u8 = 9;
/// SQL text: raw characters, escaped when written as JSON.
pub(super) const TEXTRAW: u8 = 10;
/// An array.
pub(super) const ARRAY: u8 = 11;
/// An object: label, value, label, value...
pub(super) const OBJECT: u8 = 12;

/// Deepest nesting of arrays and objects the parser accepts (SQLite's
/// `JSON_MAX_DEPTH`), and the strict JSONB check. Nesting costs heap, not
/// machine stack: every walk here and in [`super::edit`] is iterative.
pub(super) const MAX_DEPTH: u32 = 1000;

/// `json_type()`'s name of each element type.
pub(super) const TYPE_NAMES: [&str; 16] = [
    "null", "true", "false", "integer", "integer", "real", "real", "text", "text", "text", "text",
    "array", "object", "", "", "",
];

/// Bytes that may appear unescaped in a JSON string (SQLite's `jsonIsOk`):
/// all but control characters, `"`, `'` and `\`.
pub(super) fn is_ok(c: u8) -> bool {
    c >= 0x20 && c != b'"' && c != b'\'' && c != b'\\'
}

/// JSON's own whitespace: tab, newline, carriage return, space.
pub(super) fn is_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\r' | b' ')
}

/// `sqlite3Isxdigit`.
fn is_xdigit(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

/// SQLite's `jsonHexToInt` (only meaningful for hex digits).
pub(super) fn hex_value(c: u8) -> u32 {
    let h = u32::from(c);
    (h + 9 * (1 & (h >> 6))) & 0xf
}

/// The byte at `i`, or 0 past the end (the C code reads NUL-terminated
/// text; every caller's input is cut at its first NUL).
pub(super) fn at(z: &[u8], i: usize) -> u8 {
    z.get(i).copied().unwrap_or(0)
}

/// True if `z[i..]` starts with 4 hex digits.
pub(super) fn is_4hex(z: &[u8], i: usize) -> bool {
    (i..i + 4).all(|k| is_xdigit(at(z, k)))
}

/// A JSONB element under edit: the blob and the size change of the edit in
/// progress (SQLite's `JsonParse.aBlob` and `delta`; while an edit is
/// pending, containers' stored sizes are stale by `delta`).
#[derive(Clone, Debug, Default)]
pub(super) struct Blob {
    pub a: Vec<u8>,
    pub delta: i64,
}

/// Appends an element header for a payload of `size` bytes, in the
/// smallest form.
pub(super) fn append_header(out: &mut Vec<u8>, kind: u8, size: usize) {
    if size <= 11 {
        out.push(kind | ((size as u8) << 4));
    } else if size <= 0xff {
        out.extend_from_slice(&[kind | 0xc0, size as u8]);
    } else if size <= 0xffff {
        out.extend_from_slice(&[kind | 0xd0, (size >> 8) as u8, size as u8]);
    } else {
        let s = size as u32;
        out.push(kind | 0xe0);
        out.extend_from_slice(&s.to_be_bytes());
    }
}

/// Appends a whole element.
pub(super) fn append_node(out: &mut Vec<u8>, kind: u8, payload: &[u8]) {
    append_header(out, kind, payload.len());
    out.extend_from_slice(payload);
}

/// The header at `i`: (header length, payload size), without checking that
/// the payload fits; `None` if the header itself does not.
fn header(a: &[u8], i: usize) -> Option<(usize, usize)> {
    let x = *a.get(i)? >> 4;
    let byte = |k: usize| a.get(i + k).map(|&b| b as usize);
    Some(match x {
        0..=11 => (1, x as usize),
        12 => (2, byte(1)?),
        13 => (3, (byte(1)? << 8) | byte(2)?),
        14 => (
            5,
            (byte(1)? << 24) | (byte(2)? << 16) | (byte(3)? << 8) | byte(4)?,
        ),
        _ => {
            if (1..5).any(|k| byte(k) != Some(0)) {
                return None;
            }
            (
                9,
                (byte(5)? << 24) | (byte(6)? << 16) | (byte(7)? << 8) | byte(8)?,
            )
        }
    })
}

/// SQLite's `jsonbPayloadSize`: (header length, payload size) of the
/// element at `i`, or (0, 0) if it does not fit in the blob (allowing for
/// the pending edit's `delta`).
pub(super) fn payload_size(a: &[u8], i: usize, delta: i64) -> (usize, usize) {
    match header(a, i) {
        Some((n, sz)) => {
            // In i64: a corrupt size may not fit a 32-bit usize sum.
            let end = i as i64 + n as i64 + sz as i64;
            let len = a.len() as i64;
            if end > len && end > len - delta {
                (0, 0)
            } else {
                (n, sz)
            }
        }
        None => (0, 0),
    }
}

impl Blob {
    /// [`payload_size`] in this blob.
    pub(super) fn size(&self, i: usize) -> (usize, usize) {
        payload_size(&self.a, i, self.delta)
    }

    /// The type of the element at `i` (0 past the end).
    pub(super) fn kind(&self, i: usize) -> u8 {
        at(&self.a, i) & 0x0f
    }

    /// SQLite's `jsonBlobEdit`: replaces `del` bytes at `at` with `ins`.
    pub(super) fn edit(&mut self, at: usize, del: usize, ins: &[u8]) {
        let end = (at + del).min(self.a.len());
        let at = at.min(end);
        self.delta += ins.len() as i64 - (end - at) as i64;
        self.a.splice(at..end, ins.iter().copied());
    }

    /// SQLite's `jsonBlobChangePayloadSize`: rewrites the header at `i` for
    /// a payload of `size` bytes; returns the change in header length.
    pub(super) fn change_payload_size(&mut self, i: usize, size: usize) -> i64 {
        let Some(&first) = self.a.get(i) else {
            return 0;
        };
        let extra = match first >> 4 {
            0..=11 => 0,
            12 => 1,
            13 => 2,
            _ => 4,
        };
        let mut h = Vec::with_capacity(5);
        append_header(&mut h, first & 0x0f, size);
        let end = (i + 1 + extra).min(self.a.len());
        self.a.splice(i..end, h.iter().copied());
        h.len() as i64 - (1 + extra) as i64
    }

    /// SQLite's `jsonAfterEditSizeAdjust`: adds the pending `delta` to the
    /// stored payload size of the container at `root`.
    pub(super) fn after_edit_size_adjust(&mut self, root: usize) {
        let sz = header(&self.a, root).map_or(0, |(_, sz)| sz);
        // u32 arithmetic, as SQLite's: a corrupt size wraps (and is then
        // reported as malformed).
        let size = (sz as i64 + self.delta) as u32 as usize;
        self.delta += self.change_payload_size(root, size);
    }
}

/// SQLite's `jsonFuncArgMightBeBinary` / `jsonArgIsJsonb`: the blob's
/// first element header spans exactly the whole blob (all SQLite checks
/// before taking a blob as JSONB).
pub(super) fn might_be_jsonb(b: &[u8]) -> bool {
    let Some(&first) = b.first() else {
        return false;
    };
    if first & 0x0f > OBJECT {
        return false;
    }
    let (n, sz) = payload_size(b, 0, 0);
    n != 0 && n + sz == b.len() && (first & 0x0f > FALSE || sz == 0)
}

/// The number of JSON5 whitespace bytes (including comments) at `z[start..]`
/// (SQLite's `json5Whitespace`).
pub(super) fn json5_whitespace(z: &[u8], start: usize) -> usize {
    let c = |k: usize| at(z, k);
    let mut n = start;
    loop {
        match c(n) {
            0x09..=0x0d | 0x20 => n += 1,
            b'/' if c(n + 1) == b'*' && c(n + 2) != 0 => {
                let mut j = n + 3;
                while c(j) != b'/' || c(j - 1) != b'*' {
                    if c(j) == 0 {
                        return n - start;
                    }
                    j += 1;
                }
                n = j + 1;
            }
            b'/' if c(n + 1) == b'/' => {
                let mut j = n + 2;
                loop {
                    let ch = c(j);
                    if ch == 0 || ch == b'\n' || ch == b'\r' {
                        break;
                    }
                    if ch == 0xe2 && c(j + 1) == 0x80 && matches!(c(j + 2), 0xa8 | 0xa9) {
                        j += 2;
                        break;
                    }
                    j += 1;
                }
                n = j;
                if c(n) != 0 {
                    n += 1;
                }
            }
            0xc2 if c(n + 1) == 0xa0 => n += 2,
            0xe1 if c(n + 1) == 0x9a && c(n + 2) == 0x80 => n += 3,
            0xe2 if c(n + 1) == 0x80 && matches!(c(n + 2), 0x80..=0x8a | 0xa8 | 0xa9 | 0xaf) => {
                n += 3
            }
            0xe2 if c(n + 1) == 0x81 && c(n + 2) == 0x9f => n += 3,
            0xe3 if c(n + 1) == 0x80 && c(n + 2) == 0x80 => n += 3,
            0xef if c(n + 1) == 0xbb && c(n + 2) == 0xbf => n += 3,
            _ => return n - start,
        }
    }
}

/// SQLite's `sqlite3JsonId1`: may start a JSON5 unquoted label (letters,
/// `$`, `_`, non-ASCII bytes).
fn is_id1(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'$' || c == b'_' || c >= 0x80
}

/// `sqlite3JsonId2`: may continue an unquoted label (also digits).
fn is_id2(c: u8) -> bool {
    is_id1(c) || c.is_ascii_digit()
}

/// Case-insensitive ASCII prefix test of `z[i..]`.
fn starts_with_ci(z: &[u8], i: usize, pat: &[u8]) -> bool {
    pat.iter()
        .enumerate()
        .all(|(k, p)| at(z, i + k).eq_ignore_ascii_case(p))
}

/// Result codes of a translated element (besides the index past it):
/// SQLite's 0, -1, -2, -3, -4, -5.
const END: isize = 0;
const SYNTAX: isize = -1;
const CLOSE_BRACE: isize = -2;
const CLOSE_BRACKET: isize = -3;
const COMMA: isize = -4;
const COLON: isize = -5;

/// What [`TextParser::element`] found.
enum Scan {
    /// A complete element (the index past it) or a result code.
    Done(isize),
    /// An array (`false`) or object (`true`) starts at the index.
    Open(usize, bool),
}

/// Which element an open container's loop is waiting for.
#[derive(Clone, Copy)]
enum Pending {
    /// An array element, or an object label.
    Member,
    /// An object's `:` (after whitespace or comments).
    Colon,
    /// An object value.
    Value,
    /// A `,` or the closing bracket (after whitespace or comments).
    Separator,
}

/// An array or object being parsed (a frame of SQLite's recursion).
struct Container {
    object: bool,
    /// Where its header is in the blob.
    this: usize,
    /// Where its payload starts.
    start: usize,
    /// Where the pending label starts (objects).
    label_at: usize,
    /// The element it waits for, and where that element's text starts.
    at: Pending,
    j: usize,
}

impl Container {
    /// Waits for the element at `j`; `label_at`: the blob's length (where a
    /// label will start), for a member.
    fn call(&mut self, at: Pending, j: usize, label_at: usize) -> Resume {
        self.at = at;
        self.j = j;
        if matches!(at, Pending::Member) {
            self.label_at = label_at;
        }
        Resume::Call(j)
    }
}

/// What an open container does next.
enum Resume {
    /// Translate the element at this index, then resume.
    Call(usize),
    /// It is done: this is its result for its parent.
    Return(isize),
}

/// The JSON text (JSON5 accepted) → JSONB translator, SQLite's
/// `jsonTranslateTextToBlob`, transcribed so that what it accepts, the
/// blob it makes and where it reports an error are SQLite's.
struct TextParser<'a> {
    /// The text, cut at its first NUL.
    z: &'a [u8],
    out: Vec<u8>,
    /// Current nesting; at most [`MAX_DEPTH`].
    depth: u32,
    /// SQLite's `iErr`: set where an error (or a `}` `]` `,` `:` the caller
    /// looks at) was seen; never reset, as in SQLite.
    err: usize,
    /// The text used a JSON5 extension.
    nonstd: bool,
}

impl TextParser<'_> {
    fn c(&self, i: usize) -> u8 {
        at(self.z, i)
    }

    /// `\uXXXX` in an unquoted label: makes the label TEXTJ.
    fn is_4hex_b(&self, i: usize, op: &mut u8) -> bool {
        if self.c(i) == b'u' && is_4hex(self.z, i + 1) {
            *op = TEXTJ;
            true
        } else {
            false
        }
    }

    /// Translates the element at `i` (SQLite's `jsonTranslateTextToBlob`
    /// without its recursion): an array or object is only opened, for
    /// [`TextParser::parse`] to go through.
    fn element(&mut self, mut i: usize) -> Scan {
        loop {
            match self.c(i) {
                b'{' => return Scan::Open(i, true),
                b'[' => return Scan::Open(i, false),
                q @ (b'\'' | b'"') => return Scan::Done(self.string(i, q)),
                b't' if self.z[i..].starts_with(b"true")
                    && !self.c(i + 4).is_ascii_alphanumeric() =>
                {
                    self.out.push(TRUE);
                    return Scan::Done((i + 4) as isize);
                }
                b'f' if self.z[i..].starts_with(b"false")
                    && !self.c(i + 5).is_ascii_alphanumeric() =>
                {
                    self.out.push(FALSE);
                    return Scan::Done((i + 5) as isize);
                }
                b't' | b'f' => {
                    self.err = i;
                    return Scan::Done(SYNTAX);
                }
                b'+' | b'.' | b'-' | b'0'..=b'9' => return Scan::Done(self.number(i)),
                b'}' => {
                    self.err = i;
                    return Scan::Done(CLOSE_BRACE);
                }
                b']' => {
                    self.err = i;
                    return Scan::Done(CLOSE_BRACKET);
                }
                b',' => {
                    self.err = i;
                    return Scan::Done(COMMA);
                }
                b':' => {
                    self.err = i;
                    return Scan::Done(COLON);
                }
                0 => return Scan::Done(END),
                b'\t' | b'\n' | b'\r' | b' ' => {
                    i += 1;
                    while is_space(self.c(i)) {
                        i += 1;
                    }
                }
                0x0b | 0x0c | b'/' | 0xc2 | 0xe1 | 0xe2 | 0xe3 | 0xef => {
                    let j = json5_whitespace(self.z, i);
                    if j == 0 {
                        self.err = i;
                        return Scan::Done(SYNTAX);
                    }
                    i += j;
                    self.nonstd = true;
                }
                b'n' if self.z[i..].starts_with(b"null")
                    && !self.c(i + 4).is_ascii_alphanumeric() =>
                {
                    self.out.push(NULL);
                    return Scan::Done((i + 4) as isize);
                }
                _ => return Scan::Done(self.nan_inf(i)),
            }
        }
    }

    /// NaN, Infinity and their variants (SQLite's `aNanInfName`).
    fn nan_inf(&mut self, i: usize) -> isize {
        const NAMES: [(&[u8], bool); 5] = [
            (b"inf", true),
            (b"infinity", true),
            (b"nan", false),
            (b"qnan", false),
            (b"snan", false),
        ];
        for (name, infinite) in NAMES {
            if starts_with_ci(self.z, i, name) && !self.c(i + name.len()).is_ascii_alphanumeric() {
                if infinite {
                    append_node(&mut self.out, FLOAT, b"9e999");
                } else {
                    self.out.push(NULL);
                }
                self.nonstd = true;
                return (i + name.len()) as isize;
            }
        }
        self.err = i;
        SYNTAX
    }

    /// Opens the array or object at `i`: its header (sized for the rest
    /// of the text, rewritten when it closes) and one more level of depth;
    /// `None` past [`MAX_DEPTH`].
    fn open(&mut self, i: usize, object: bool) -> Option<Container> {
        let this = self.out.len();
        append_header(
            &mut self.out,
            if object { OBJECT } else { ARRAY },
            self.z.len() - i,
        );
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.err = i;
            return None;
        }
        let start = self.out.len();
        Some(Container {
            object,
            this,
            start,
            label_at: start,
            at: Pending::Member,
            j: i + 1,
        })
    }

    /// Closes the container `f`, whose closing bracket is at `j`.
    fn close(&mut self, f: &Container, j: usize) -> Resume {
        let size = self.out.len() - f.start;
        let mut b = Blob {
            a: std::mem::take(&mut self.out),
            delta: 0,
        };
        b.change_payload_size(f.this, size);
        self.out = b.a;
        self.depth -= 1;
        Resume::Return((j + 1) as isize)
    }

    /// After a member ending at `j`: the next member after a `,`, the end at
    /// the closing bracket, or (past plain whitespace) a look at whatever
    /// element comes next.
    fn after_member(&mut self, f: &mut Container, mut j: usize) -> Resume {
        let close = if f.object { b'}' } else { b']' };
        for pass in 0..2 {
            match self.c(j) {
                b',' => return f.call(Pending::Member, j + 1, self.out.len()),
                c if c == close => return self.close(f, j),
                c if pass == 0 && is_space(c) => {
                    j += 1;
                    while is_space(self.c(j)) {
                        j += 1;
                    }
                }
                _ => break,
            }
        }
        f.call(Pending::Separator, j, self.out.len())
    }

    /// Resumes the container `f` with the result `x` of the element its
    /// pending call translated (the loops of SQLite's array and object
    /// cases, cut at each recursive call).
    fn resume(&mut self, f: &mut Container, x: isize) -> Resume {
        let mut j = f.j;
        let close_code = if f.object { CLOSE_BRACE } else { CLOSE_BRACKET };
        match f.at {
            Pending::Member if !f.object => {
                if x <= 0 {
                    if x == CLOSE_BRACKET {
                        j = self.err;
                        if self.out.len() != f.start {
                            self.nonstd = true;
                        }
                        return self.close(f, j);
                    }
                    if x != SYNTAX {
                        self.err = j;
                    }
                    return Resume::Return(SYNTAX);
                }
                self.after_member(f, x as usize)
            }
            Pending::Member => {
                let mut x = x;
                if x <= 0 {
                    if x == CLOSE_BRACE {
                        j = self.err;
                        if self.out.len() != f.start {
                            self.nonstd = true;
                        }
                        return self.close(f, j);
                    }
                    j += json5_whitespace(self.z, j);
                    let mut op = TEXT;
                    if is_id1(self.c(j)) || (self.c(j) == b'\\' && self.is_4hex_b(j + 1, &mut op)) {
                        let mut k = j + 1;
                        while (is_id2(self.c(k)) && json5_whitespace(self.z, k) == 0)
                            || (self.c(k) == b'\\' && self.is_4hex_b(k + 1, &mut op))
                        {
                            k += 1;
                        }
                        self.out.truncate(f.label_at);
                        append_node(&mut self.out, op, &self.z[j..k]);
                        self.nonstd = true;
                        x = k as isize;
                    } else {
                        if x != SYNTAX {
                            self.err = j;
                        }
                        return Resume::Return(SYNTAX);
                    }
                }
                let t = at(&self.out, f.label_at) & 0x0f;
                if !(TEXT..=TEXTRAW).contains(&t) {
                    self.err = j;
                    return Resume::Return(SYNTAX);
                }
                j = x as usize;
                if self.c(j) == b':' {
                    return f.call(Pending::Value, j + 1, 0);
                }
                if is_space(self.c(j)) {
                    j += 1;
                    while is_space(self.c(j)) {
                        j += 1;
                    }
                    if self.c(j) == b':' {
                        return f.call(Pending::Value, j + 1, 0);
                    }
                }
                f.call(Pending::Colon, j, 0)
            }
            Pending::Colon => {
                if x != COLON {
                    if x != SYNTAX {
                        self.err = j;
                    }
                    return Resume::Return(SYNTAX);
                }
                f.call(Pending::Value, self.err + 1, 0)
            }
            Pending::Value => {
                if x <= 0 {
                    if x != SYNTAX {
                        self.err = j;
                    }
                    return Resume::Return(SYNTAX);
                }
                self.after_member(f, x as usize)
            }
            Pending::Separator => {
                if x == COMMA {
                    return f.call(Pending::Member, self.err + 1, self.out.len());
                }
                if x == close_code {
                    let j = self.err;
                    return self.close(f, j);
                }
                self.err = j;
                Resume::Return(SYNTAX)
            }
        }
    }

    /// Translates the whole text from 0: SQLite's recursive descent, with
    /// the open arrays and objects on an explicit stack (so nesting costs
    /// no machine stack). Returns what the top-level call returns.
    fn parse(&mut self) -> isize {
        let mut stack: Vec<Container> = Vec::new();
        let mut call = 0;
        loop {
            let mut x = match self.element(call) {
                Scan::Done(x) => x,
                Scan::Open(i, object) => match self.open(i, object) {
                    Some(f) => {
                        call = f.j;
                        stack.push(f);
                        continue;
                    }
                    None => SYNTAX,
                },
            };
            loop {
                let Some(mut f) = stack.pop() else {
                    return x;
                };
                match self.resume(&mut f, x) {
                    Resume::Call(at) => {
                        call = at;
                        stack.push(f);
                        break;
                    }
                    Resume::Return(v) => x = v,
                }
            }
        }
    }

    /// The string quoted by `delim` at `i`, stored as written: TEXT, or
    /// TEXTJ with JSON escapes, or TEXT5 with JSON5 escapes, raw control
    /// characters or a raw `"`.
    fn string(&mut self, i: usize, delim: u8) -> isize {
        let mut opcode = TEXT;
        if delim == b'\'' {
            self.nonstd = true;
        }
        let mut j = i + 1;
        loop {
            let c = self.c(j);
            if is_ok(c) {
                j += 1;
                continue;
            }
            if c == delim {
                break;
            } else if c == b'\\' {
                j += 1;
                let c = self.c(j);
                if matches!(c, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
                    || (c == b'u' && is_4hex(self.z, j + 1))
                {
                    if opcode == TEXT {
                        opcode = TEXTJ;
                    }
                } else if matches!(c, b'\'' | b'0' | b'v' | b'\n')
                    || (c == 0xe2 && self.c(j + 1) == 0x80 && matches!(self.c(j + 2), 0xa8 | 0xa9))
                    || (c == b'x' && is_xdigit(self.c(j + 1)) && is_xdigit(self.c(j + 2)))
                {
                    opcode = TEXT5;
                    self.nonstd = true;
                } else if c == b'\r' {
                    if self.c(j + 1) == b'\n' {
                        j += 1;
                    }
                    opcode = TEXT5;
                    self.nonstd = true;
                } else {
                    self.err = j;
                    return SYNTAX;
                }
            } else if c <= 0x1f {
                if c == 0 {
                    self.err = j;
                    return SYNTAX;
                }
                opcode = TEXT5;
                self.nonstd = true;
            } else if c == b'"' {
                opcode = TEXT5;
            }
            j += 1;
        }
        append_node(&mut self.out, opcode, &self.z[i + 1..j]);
        (j + 1) as isize
    }

    /// The number at `i` (which starts with a sign, `.` or digit), stored
    /// as written (a leading `+` dropped): INT, FLOAT, or INT5 / FLOAT5 for
    /// hexadecimal and JSON5 decimal points; `+-Infinity` as `±9e999`.
    fn number(&mut self, mut i: usize) -> isize {
        let c = |k: usize| at(self.z, k);
        // Bit 0x01: JSON5. Bit 0x02: FLOAT.
        let mut t: u8 = 0;
        let mut j;
        let first = c(i);
        if first == b'.' {
            if !c(i + 1).is_ascii_digit() {
                self.err = i;
                return SYNTAX;
            }
            self.nonstd = true;
            t = 0x03;
        } else if first == b'+' {
            self.nonstd = true;
        }
        let mut hex_end = None;
        if first == b'0' {
            if matches!(c(i + 1), b'x' | b'X') && is_xdigit(c(i + 2)) {
                self.nonstd = true;
                t = 0x01;
                j = i + 3;
                while is_xdigit(c(j)) {
                    j += 1;
                }
                hex_end = Some(j);
            } else if c(i + 1).is_ascii_digit() {
                self.err = i + 1;
                return SYNTAX;
            }
        } else if first == b'-' || first == b'+' {
            if !c(i + 1).is_ascii_digit() {
                if matches!(c(i + 1), b'I' | b'i') && starts_with_ci(self.z, i + 1, b"inf") {
                    self.nonstd = true;
                    let text: &[u8] = if first == b'-' { b"-9e999" } else { b"9e999" };
                    append_node(&mut self.out, FLOAT, text);
                    let len = if starts_with_ci(self.z, i + 4, b"inity") {
                        9
                    } else {
                        4
                    };
                    return (i + len) as isize;
                }
                if c(i + 1) == b'.' {
                    self.nonstd = true;
                    t |= 0x01;
                } else {
                    self.err = i;
                    return SYNTAX;
                }
            } else if c(i + 1) == b'0' {
                if c(i + 2).is_ascii_digit() {
                    self.err = i + 1;
                    return SYNTAX;
                } else if matches!(c(i + 2), b'x' | b'X') && is_xdigit(c(i + 3)) {
                    self.nonstd = true;
                    t |= 0x01;
                    j = i + 4;
                    while is_xdigit(c(j)) {
                        j += 1;
                    }
                    hex_end = Some(j);
                }
            }
        }
        let j = match hex_end {
            Some(j) => j,
            None => {
                let mut seen_e = false;
                j = i + 1;
                loop {
                    let ch = c(j);
                    if ch.is_ascii_digit() {
                        j += 1;
                        continue;
                    }
                    if ch == b'.' {
                        if t & 0x02 != 0 {
                            self.err = j;
                            return SYNTAX;
                        }
                        t |= 0x02;
                        j += 1;
                        continue;
                    }
                    if ch == b'e' || ch == b'E' {
                        if c(j - 1) < b'0' {
                            if c(j - 1) == b'.' && j >= i + 2 && c(j - 2).is_ascii_digit() {
                                self.nonstd = true;
                                t |= 0x01;
                            } else {
                                self.err = j;
                                return SYNTAX;
                            }
                        }
                        if seen_e {
                            self.err = j;
                            return SYNTAX;
                        }
                        t |= 0x02;
                        seen_e = true;
                        let mut ch = c(j + 1);
                        if ch == b'+' || ch == b'-' {
                            j += 1;
                            ch = c(j + 1);
                        }
                        if !ch.is_ascii_digit() {
                            self.err = j;
                            return SYNTAX;
                        }
                        j += 1;
                        continue;
                    }
                    break;
                }
                if c(j - 1) < b'0' {
                    if c(j - 1) == b'.' && j >= i + 2 && c(j - 2).is_ascii_digit() {
                        self.nonstd = true;
                        t |= 0x01;
                    } else {
                        self.err = j;
                        return SYNTAX;
                    }
                }
                j
            }
        };
        if first == b'+' {
            i += 1;
        }
        append_node(&mut self.out, INT + t, &self.z[i..j]);
        j as isize
    }
}

/// A parsed JSON text.
#[derive(Debug)]
pub(super) struct Parsed {
    pub blob: Vec<u8>,
    /// The text used JSON5 extensions (so `json_valid(x, 1)` is false).
    pub nonstd: bool,
}

/// Parses JSON text (JSON5 accepted) into JSONB, as SQLite's
/// `jsonConvertTextToBlob`; `Err(i)` gives SQLite's error offset `iErr`
/// (a byte offset into the text). The text is read up to its first NUL.
pub(super) fn parse_text(z: &[u8]) -> Result<Parsed, usize> {
    let z = z.iter().position(|&b| b == 0).map_or(z, |n| &z[..n]);
    let mut p = TextParser {
        z,
        out: Vec::with_capacity(z.len()),
        depth: 0,
        err: 0,
        nonstd: false,
    };
    let i = p.parse();
    if i <= 0 {
        return Err(p.err);
    }
    let mut i = i as usize;
    while is_space(at(z, i)) {
        i += 1;
    }
    if i < z.len() {
        i += json5_whitespace(z, i);
        if i < z.len() {
            return Err(p.err);
        }
        p.nonstd = true;
    }
    Ok(Parsed {
        blob: p.out,
        nonstd: p.nonstd,
    })
}

/// SQLite's `jsonReturnStringAsBlob`: JSON text a function wrote (json_array
/// and the like, for their jsonb_* forms) translated into JSONB. The text is
/// well-formed, except json_group_object's after a NULL label (`{:1}`): then,
/// as SQLite, this keeps whatever the translation wrote before it failed.
pub(super) fn text_to_blob(z: &[u8]) -> Vec<u8> {
    let mut p = TextParser {
        z,
        out: Vec::with_capacity(z.len()),
        depth: 0,
        err: 0,
        nonstd: false,
    };
    p.parse();
    p.out
}

/// SQLite's `jsonAppendControlChar`.
fn append_control_char(out: &mut Vec<u8>, c: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match c {
        0x08 => out.extend_from_slice(b"\\b"),
        0x09 => out.extend_from_slice(b"\\t"),
        0x0a => out.extend_from_slice(b"\\n"),
        0x0c => out.extend_from_slice(b"\\f"),
        0x0d => out.extend_from_slice(b"\\r"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(c >> 4)],
            HEX[usize::from(c & 0xf)],
        ]),
    }
}

/// Appends `z` as a JSON string (SQLite's `jsonAppendString`): quoted,
/// with `"` and `\` escaped and control characters as `\b \t \n \f \r` or
/// `\u00XX`; everything else (DEL, non-ASCII) as is.
pub(super) fn append_string(out: &mut Vec<u8>, z: &[u8]) {
    out.push(b'"');
    for &c in z {
        if c == b'"' || c == b'\\' {
            out.extend_from_slice(&[b'\\', c]);
        } else if c < 0x20 {
            append_control_char(out, c);
        } else {
            out.push(c);
        }
    }
    out.push(b'"');
}

/// The JSON text of a scalar element (not an array or object) at `i`, as
/// SQLite's `jsonTranslateBlobToText`; returns the index past it (which
/// for null/true/false is `i + 1` whatever their stored size, as in
/// SQLite), or `Err` for a malformed element.
fn scalar_to_text(a: &[u8], i: usize, n: usize, sz: usize, out: &mut Vec<u8>) -> Result<usize, ()> {
    let payload = a.get(i + n..i + n + sz).ok_or(())?;
    match at(a, i) & 0x0f {
        NULL => {
            out.extend_from_slice(b"null");
            return Ok(i + 1);
        }
        TRUE => {
            out.extend_from_slice(b"true");
            return Ok(i + 1);
        }
        FALSE => {
            out.extend_from_slice(b"false");
            return Ok(i + 1);
        }
        INT | FLOAT if sz > 0 => out.extend_from_slice(payload),
        INT5 if sz > 0 => {
            let mut k = 2;
            if payload[0] == b'-' {
                out.push(b'-');
                k += 1;
            } else if payload[0] == b'+' {
                k += 1;
            }
            let mut u: u64 = 0;
            let mut overflow = false;
            for &d in payload.iter().skip(k) {
                if !is_xdigit(d) {
                    return Err(());
                } else if u >> 60 != 0 {
                    overflow = true;
                } else {
                    u = u * 16 + u64::from(hex_value(d));
                }
            }
            if overflow {
                out.extend_from_slice(b"9.0e999");
            } else {
                out.extend_from_slice(u.to_string().as_bytes());
            }
        }
        FLOAT5 if sz > 0 => {
            let mut k = 0;
            if payload[0] == b'-' {
                out.push(b'-');
                k = 1;
            }
            if at(payload, k) == b'.' {
                out.push(b'0');
            }
            while k < sz {
                out.push(payload[k]);
                if payload[k] == b'.' && (k + 1 == sz || !payload[k + 1].is_ascii_digit()) {
                    out.push(b'0');
                }
                k += 1;
            }
        }
        TEXT | TEXTJ => {
            out.push(b'"');
            out.extend_from_slice(payload);
            out.push(b'"');
        }
        TEXT5 => text5_to_json(payload, out)?,
        TEXTRAW => append_string(out, payload),
        _ => return Err(()),
    }
    Ok(i + n + sz)
}

/// A TEXT5 payload as an RFC-8259 string (SQLite writes `\v` as `\u0009`;
/// kept).
fn text5_to_json(mut z: &[u8], out: &mut Vec<u8>) -> Result<(), ()> {
    out.push(b'"');
    while !z.is_empty() {
        let k = z.iter().take_while(|&&c| is_ok(c) || c == b'\'').count();
        out.extend_from_slice(&z[..k]);
        z = &z[k..];
        let Some(&c) = z.first() else {
            break;
        };
        if c == b'"' {
            out.extend_from_slice(b"\\\"");
            z = &z[1..];
            continue;
        }
        if c <= 0x1f {
            append_control_char(out, c);
            z = &z[1..];
            continue;
        }
        // A backslash.
        if z.len() < 2 {
            return Err(());
        }
        match z[1] {
            b'\'' => out.push(b'\''),
            b'v' => out.extend_from_slice(b"\\u0009"),
            b'x' => {
                if z.len() < 4 {
                    return Err(());
                }
                out.extend_from_slice(b"\\u00");
                out.extend_from_slice(&z[2..4]);
                z = &z[2..];
            }
            b'0' => out.extend_from_slice(b"\\u0000"),
            b'\r' => {
                if z.len() > 2 && z[2] == b'\n' {
                    z = &z[1..];
                }
            }
            b'\n' => {}
            0xe2 => {
                if z.len() < 4 || z[2] != 0x80 || (z[3] != 0xa8 && z[3] != 0xa9) {
                    return Err(());
                }
                z = &z[2..];
            }
            _ => out.extend_from_slice(&z[..2]),
        }
        z = &z[2..];
    }
    out.push(b'"');
    Ok(())
}

/// An array or object being written: where it ends, whether it is an
/// object, how many elements were written, whether it is non-empty.
struct Open {
    end: usize,
    object: bool,
    count: u32,
    nonempty: bool,
}

/// The compact JSON text of the element at `i` (SQLite's
/// `jsonTranslateBlobToText`, iterative: edited blobs may nest deeper than
/// any parse); returns the index past the element, or `Err` if the blob is
/// malformed (SQLite's "malformed JSON").
pub(super) fn to_text(a: &[u8], i: usize, out: &mut Vec<u8>) -> Result<usize, ()> {
    let mut stack: Vec<Open> = Vec::new();
    let mut j = i;
    loop {
        let (n, sz) = payload_size(a, j, 0);
        if n == 0 {
            return Err(());
        }
        let kind = at(a, j) & 0x0f;
        let mut separator = true;
        if kind == ARRAY || kind == OBJECT {
            out.push(if kind == ARRAY { b'[' } else { b'{' });
            stack.push(Open {
                end: j + n + sz,
                object: kind == OBJECT,
                count: 0,
                nonempty: sz > 0,
            });
            j += n;
            separator = false;
        } else {
            j = scalar_to_text(a, j, n, sz, out)?;
        }
        loop {
            let Some(top) = stack.last_mut() else {
                return Ok(j);
            };
            if separator {
                out.push(if top.object && top.count & 1 == 0 {
                    b':'
                } else {
                    b','
                });
                top.count += 1;
            }
            if j < top.end {
                break;
            }
            if j > top.end || (top.object && top.count & 1 == 1) {
                return Err(());
            }
            if top.nonempty {
                out.pop();
            }
            out.push(if top.object { b'}' } else { b']' });
            j = top.end;
            stack.pop();
            separator = true;
        }
    }
}

/// The JSON text of the element at `i`, as a new buffer.
pub(super) fn element_text(a: &[u8], i: usize) -> Result<Vec<u8>, ()> {
    let mut out = Vec::new();
    to_text(a, i, &mut out)?;
    Ok(out)
}

/// `json_pretty()`'s rendering of the element at `i` (SQLite's
/// `jsonTranslateBlobToPrettyText`, iterative): one element per line,
/// each level indented by `indent`, `": "` after labels.
pub(super) fn to_pretty(a: &[u8], i: usize, indent: &[u8], out: &mut Vec<u8>) -> Result<(), ()> {
    let newline_indent = |out: &mut Vec<u8>, level: usize| {
        for _ in 0..level {
            out.extend_from_slice(indent);
        }
    };
    // (end, is object) of each open container.
    let mut stack: Vec<(usize, bool)> = Vec::new();
    let mut j = i;
    // True when `j` starts the next member of the innermost container.
    let mut member = false;
    loop {
        if member {
            let Some(&(end, object)) = stack.last() else {
                return Ok(());
            };
            newline_indent(out, stack.len());
            if object {
                j = to_text(a, j, out)?;
                if j > end {
                    return Err(());
                }
                out.extend_from_slice(b": ");
            }
        }
        let (n, sz) = payload_size(a, j, 0);
        if n == 0 {
            return Err(());
        }
        let kind = at(a, j) & 0x0f;
        if kind == ARRAY || kind == OBJECT {
            out.push(if kind == ARRAY { b'[' } else { b'{' });
            let end = j + n + sz;
            if j + n < end {
                out.push(b'\n');
                stack.push((end, kind == OBJECT));
                j += n;
                member = true;
                continue;
            }
            out.push(if kind == ARRAY { b']' } else { b'}' });
            j = end;
        } else {
            j = to_text(a, j, out)?;
        }
        // The element ended at `j`: close every container it completes.
        loop {
            let Some(&(end, object)) = stack.last() else {
                return Ok(());
            };
            if j < end {
                out.extend_from_slice(b",\n");
                member = true;
                break;
            }
            out.push(b'\n');
            stack.pop();
            newline_indent(out, stack.len());
            out.push(if object { b'}' } else { b']' });
            j = end;
        }
    }
}

/// An array or object being checked by [`validity_check`].
struct Check {
    object: bool,
    /// The next element, and the end of the elements.
    j: usize,
    end: usize,
    count: u32,
    depth: u32,
}

/// What [`validity_check`] makes of one element.
enum Checked {
    /// Bad: the 1-based offset to report.
    Bad(usize),
    /// A well-formed scalar.
    Good,
    /// An array or object whose elements are to be checked.
    Container(Check),
}

/// SQLite's `jsonbValidityCheck`: 0 if the element at `i`, ending at
/// `end`, is well-formed JSONB, else the 1-based byte offset of the first
/// problem found. Nesting past [`MAX_DEPTH`] (counting from `depth`) is a
/// problem; containers are walked with an explicit stack.
pub(super) fn validity_check(a: &[u8], i: usize, end: usize, depth: u32) -> usize {
    let mut stack: Vec<Check> = Vec::new();
    match check_element(a, i, end, depth) {
        Checked::Bad(at) => return at,
        Checked::Good => return 0,
        Checked::Container(c) => stack.push(c),
    }
    while let Some(c) = stack.last_mut() {
        if c.j >= c.end {
            if c.object && c.count & 1 != 0 {
                return c.j + 1;
            }
            stack.pop();
            continue;
        }
        let j = c.j;
        let (n, sz) = payload_size(a, j, 0);
        if n == 0 || j + n + sz > c.end {
            return j + 1;
        }
        if c.object && c.count & 1 == 0 && !(TEXT..=TEXTRAW).contains(&(at(a, j) & 0x0f)) {
            return j + 1;
        }
        c.count += 1;
        c.j = j + n + sz;
        let depth = c.depth + 1;
        match check_element(a, j, j + n + sz, depth) {
            Checked::Bad(at) => return at,
            Checked::Good => {}
            Checked::Container(child) => stack.push(child),
        }
    }
    0
}

/// One element of [`validity_check`]: scalars are checked here.
fn check_element(a: &[u8], i: usize, end: usize, depth: u32) -> Checked {
    if depth > MAX_DEPTH {
        return Checked::Bad(i + 1);
    }
    let (n, sz) = payload_size(a, i, 0);
    if n == 0 || i + n + sz != end {
        return Checked::Bad(i + 1);
    }
    let x = at(a, i) & 0x0f;
    if x == ARRAY || x == OBJECT {
        return Checked::Container(Check {
            object: x == OBJECT,
            j: i + n,
            end,
            count: 0,
            depth,
        });
    }
    match scalar_check(a, i, n, sz, x) {
        0 => Checked::Good,
        bad => Checked::Bad(bad),
    }
}

/// The scalar cases of SQLite's `jsonbValidityCheck` (type `x`, header
/// length `n`, payload size `sz`): 0 or the offset to report.
fn scalar_check(a: &[u8], i: usize, n: usize, sz: usize, x: u8) -> usize {
    let z = |k: usize| at(a, k);
    let mut j = i + n;
    let k = j + sz;
    match x {
        NULL | TRUE | FALSE => {
            if n + sz == 1 {
                0
            } else {
                i + 1
            }
        }
        INT => {
            if sz < 1 {
                return i + 1;
            }
            if z(j) == b'-' {
                j += 1;
                if sz < 2 {
                    return i + 1;
                }
            }
            (j..k)
                .find(|&p| !z(p).is_ascii_digit())
                .map_or(0, |p| p + 1)
        }
        INT5 => {
            if sz < 3 {
                return i + 1;
            }
            if z(j) == b'-' {
                if sz < 4 {
                    return i + 1;
                }
                j += 1;
            }
            if z(j) != b'0' {
                return i + 1;
            }
            if z(j + 1) != b'x' && z(j + 1) != b'X' {
                return j + 2;
            }
            (j + 2..k).find(|&p| !is_xdigit(z(p))).map_or(0, |p| p + 1)
        }
        FLOAT | FLOAT5 => float_check(a, i, j, k, x == FLOAT),
        TEXT => (j..k)
            .find(|&p| !is_ok(z(p)) && z(p) != b'\'')
            .map_or(0, |p| p + 1),
        TEXTJ | TEXT5 => {
            while j < k {
                let c = z(j);
                if !is_ok(c) && c != b'\'' {
                    if c == b'"' || c <= 0x1f {
                        if x == TEXTJ {
                            return j + 1;
                        }
                    } else if j + 1 >= k {
                        return j + 1;
                    } else if matches!(
                        z(j + 1),
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' | 0
                    ) {
                        j += 1;
                    } else if z(j + 1) == b'u' {
                        if j + 5 >= k || !is_4hex(a, j + 2) {
                            return j + 1;
                        }
                        j += 1;
                    } else if x != TEXT5 {
                        return j + 1;
                    } else {
                        let (c, len) = super::edit::unescape_one(&a[j..k]);
                        if c == super::edit::INVALID_CHAR {
                            return j + 1;
                        }
                        j += len - 1;
                    }
                }
                j += 1;
            }
            0
        }
        TEXTRAW => 0,
        _ => i + 1,
    }
}

/// The FLOAT / FLOAT5 part of [`validity_check`]: payload `a[j..k]`.
fn float_check(a: &[u8], i: usize, mut j: usize, k: usize, strict: bool) -> usize {
    let z = |p: usize| at(a, p);
    // 0: initial, 1: '.' seen, 2: 'e' seen.
    let mut seen = 0;
    if k - j < 2 {
        return i + 1;
    }
    if z(j) == b'-' {
        j += 1;
        if k - j < 2 {
            return i + 1;
        }
    }
    if z(j) == b'.' {
        if strict || !z(j + 1).is_ascii_digit() {
            return j + 1;
        }
        j += 2;
        seen = 1;
    } else if z(j) == b'0' && strict {
        if j + 3 > k {
            return j + 1;
        }
        if !matches!(z(j + 1), b'.' | b'e' | b'E') {
            return j + 1;
        }
        j += 1;
    }
    while j < k {
        match z(j) {
            b'0'..=b'9' => {}
            b'.' => {
                if seen > 0 || (strict && (j == k - 1 || !z(j + 1).is_ascii_digit())) {
                    return j + 1;
                }
                seen = 1;
            }
            b'e' | b'E' => {
                if seen == 2 || j == k - 1 {
                    return j + 1;
                }
                if z(j + 1) == b'+' || z(j + 1) == b'-' {
                    j += 1;
                    if j == k - 1 {
                        return j + 1;
                    }
                }
                seen = 2;
            }
            _ => return j + 1,
        }
        j += 1;
    }
    if seen == 0 {
        i + 1
    } else {
        0
    }
}
