//! Reading and editing JSONB: path lookup with the edits of json_set /
//! json_insert / json_replace / json_remove (SQLite's `jsonLookupStep`),
//! RFC 7396 merge patch (`jsonMergePatch`), object label comparison, string
//! unescaping and the SQL value of an element (`jsonReturnFromBlob`).
//!
//! Paths are walked iteratively (an edited blob may nest deeper than any
//! parse); SQLite's recursion, which adjusts each enclosing container's
//! size on the way back, becomes a list of the containers passed through.

use super::blob::{
    append_header, at, hex_value, payload_size, to_text, Blob, ARRAY, FALSE, FLOAT, FLOAT5, INT,
    INT5, NULL, OBJECT, TEXT, TEXT5, TEXTJ, TEXTRAW, TRUE,
};
use crate::sql::value::{parse_real, RealSyntax, Value};

/// What a path lookup can end with besides finding an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Miss {
    /// The JSONB is malformed ("malformed JSON").
    Malformed,
    /// No such element.
    NotFound,
    /// The path is not valid ("bad JSON path").
    BadPath,
}

/// The edit a lookup applies where the path leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EditOp {
    /// Just find.
    None,
    /// json_remove: delete if it exists.
    Delete,
    /// json_replace: overwrite if it exists.
    Replace,
    /// json_insert: create if it does not exist.
    Insert,
    /// json_set: create or overwrite.
    Set,
}

impl EditOp {
    fn creates(self) -> bool {
        matches!(self, EditOp::Insert | EditOp::Set)
    }
}

/// Returned by [`unescape_one`] for an invalid escape.
pub(super) const INVALID_CHAR: u32 = 0x99999;

/// SQLite's `jsonBytesToBypass`: the length of the escaped line breaks
/// (`\` + LF, CR, CR LF, U+2028, U+2029) at the start of `z`.
fn bytes_to_bypass(z: &[u8]) -> usize {
    let n = z.len();
    let mut i = 0;
    while i + 1 < n {
        if z[i] != b'\\' {
            return i;
        }
        if z[i + 1] == b'\n' {
            i += 2;
        } else if z[i + 1] == b'\r' {
            i += if i + 2 < n && z[i + 2] == b'\n' { 3 } else { 2 };
        } else if z[i + 1] == 0xe2
            && i + 3 < n
            && z[i + 2] == 0x80
            && matches!(z[i + 3], 0xa8 | 0xa9)
        {
            i += 4;
        } else {
            break;
        }
    }
    i
}

/// `sqlite3Utf8ReadLimited`: one UTF-8 character of `z` (not validated,
/// at most 4 bytes): (code point, bytes used).
fn utf8_read(z: &[u8]) -> (u32, usize) {
    const TRANS1: [u8; 64] = [
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
        0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d,
        0x1e, 0x1f, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
        0x0d, 0x0e, 0x0f, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x00, 0x01, 0x02, 0x03,
        0x00, 0x01, 0x00, 0x00,
    ];
    let mut c = u32::from(z[0]);
    let mut i = 1;
    if c >= 0xc0 {
        c = u32::from(TRANS1[(c - 0xc0) as usize]);
        let n = z.len().min(4);
        while i < n && z[i] & 0xc0 == 0x80 {
            c = (c << 6) + u32::from(z[i] & 0x3f);
            i += 1;
        }
    }
    (c, i)
}

/// SQLite's `jsonUnescapeOneChar`: decodes the escape sequence at the start
/// of `z` (which starts with `\`): (code point or [`INVALID_CHAR`], bytes
/// used, at least 1).
pub(super) fn unescape_one(z: &[u8]) -> (u32, usize) {
    let n = z.len();
    if n < 2 {
        return (INVALID_CHAR, n.max(1));
    }
    let hex4 = |k: usize| (k..k + 4).fold(0u32, |v, p| (v << 4) + hex_value(at(z, p)));
    match z[1] {
        b'u' => {
            if n < 6 {
                return (INVALID_CHAR, n);
            }
            let v = hex4(2);
            if v & 0xfc00 == 0xd800 && n >= 12 && z[6] == b'\\' && z[7] == b'u' {
                let lo = hex4(8);
                if lo & 0xfc00 == 0xdc00 {
                    return (((v & 0x3ff) << 10) + (lo & 0x3ff) + 0x10000, 12);
                }
            }
            (v, 6)
        }
        b'b' => (0x08, 2),
        b'f' => (0x0c, 2),
        b'n' => (u32::from(b'\n'), 2),
        b'r' => (u32::from(b'\r'), 2),
        b't' => (u32::from(b'\t'), 2),
        b'v' => (0x0b, 2),
        b'0' => (0, 2),
        c @ (b'\'' | b'"' | b'/' | b'\\') => (u32::from(c), 2),
        b'x' => {
            if n < 4 {
                return (INVALID_CHAR, n);
            }
            ((hex_value(z[2]) << 4) | hex_value(z[3]), 4)
        }
        0xe2 | b'\r' | b'\n' => {
            let skip = bytes_to_bypass(z);
            if skip == 0 {
                (INVALID_CHAR, n)
            } else if skip == n {
                (0, n)
            } else if z[skip] == b'\\' {
                let (c, len) = unescape_one(&z[skip..]);
                (c, skip + len)
            } else {
                let (c, len) = utf8_read(&z[skip..]);
                (c, skip + len)
            }
        }
        _ => (INVALID_CHAR, 2),
    }
}

/// One character of an object label for comparison: (code point, bytes).
fn label_char(z: &[u8], raw: bool) -> (u32, usize) {
    match z.first() {
        None => (0, 0),
        Some(&c) if raw || c != b'\\' => {
            if c >= 0xc0 {
                utf8_read(z)
            } else {
                (u32::from(c), 1)
            }
        }
        Some(_) => unescape_one(z),
    }
}

/// SQLite's `jsonLabelCompare`: whether two labels are the same text, each
/// either raw or with JSON escapes to decode.
pub(super) fn label_eq(mut l: &[u8], raw_l: bool, mut r: &[u8], raw_r: bool) -> bool {
    if raw_l && raw_r {
        return l == r;
    }
    loop {
        let (cl, nl) = label_char(l, raw_l);
        let (cr, nr) = label_char(r, raw_r);
        l = &l[nl.min(l.len())..];
        r = &r[nr.min(r.len())..];
        if cl != cr {
            return false;
        }
        if cl == 0 {
            return true;
        }
    }
}

/// Whether a label element type holds its text without escapes.
fn is_raw_label(kind: u8) -> bool {
    kind == TEXT || kind == TEXTRAW
}

/// One parsed step of a path, for building missing structure.
enum Step<'a> {
    /// `.key` / `."key"` (raw: has no backslash, or was unquoted).
    Key(&'a [u8], bool),
    /// `[0]`, `[#]` and the like on an empty array.
    Append,
}

/// Parses the `.key` step at the start of `path` (which starts with `.`):
/// (key, raw, length of the step).
fn parse_key(path: &[u8]) -> Result<(&[u8], bool, usize), Miss> {
    let p = &path[1..];
    if at(p, 0) == b'"' {
        let close = p[1..]
            .iter()
            .position(|&c| c == b'"')
            .ok_or(Miss::BadPath)?;
        let key = &p[1..1 + close];
        Ok((key, !key.contains(&b'\\'), close + 3))
    } else {
        let len = p
            .iter()
            .position(|&c| c == b'.' || c == b'[')
            .unwrap_or(p.len());
        if len == 0 {
            return Err(Miss::BadPath);
        }
        Ok((&p[..len], true, len + 1))
    }
}

/// The array index step at the start of `path` (which starts with `[`)
/// against an array of `count` elements: (index, length of the step).
/// Indexes wrap at 2^32 as SQLite's do.
fn parse_index(path: &[u8], count: impl FnOnce() -> u32) -> Result<(u32, usize), Miss> {
    let mut k: u32 = 0;
    let mut i = 1;
    while at(path, i).is_ascii_digit() {
        k = k
            .wrapping_mul(10)
            .wrapping_add(u32::from(at(path, i) - b'0'));
        i += 1;
    }
    if i < 2 || at(path, i) != b']' {
        if at(path, 1) != b'#' {
            return Err(Miss::BadPath);
        }
        k = count();
        i = 2;
        if at(path, 2) == b'-' && at(path, 3).is_ascii_digit() {
            let mut nn: u32 = 0;
            i = 3;
            while at(path, i).is_ascii_digit() {
                nn = nn
                    .wrapping_mul(10)
                    .wrapping_add(u32::from(at(path, i) - b'0'));
                i += 1;
            }
            if nn > k {
                return Err(Miss::NotFound);
            }
            k -= nn;
        }
        if at(path, i) != b']' {
            return Err(Miss::BadPath);
        }
    }
    Ok((k, i + 1))
}

/// SQLite's `jsonbArrayCount` of the array at `root`.
pub(super) fn array_count(b: &Blob, root: usize) -> u32 {
    let (mut n, sz) = b.size(root);
    let end = root + n + sz;
    let mut k: u32 = 0;
    let mut i = root + n;
    while n > 0 && i < end {
        let (n2, sz2) = b.size(i);
        n = n2;
        i += n2 + sz2;
        k = k.wrapping_add(1);
    }
    k
}

/// SQLite's `jsonCreateEditSubstructure`: the JSONB to insert where a path
/// leaves the document: `value`, wrapped in the objects and arrays the rest
/// of the path (`tail`) names. Fails as the walk of `tail` through new,
/// empty containers would (a bad step, or an index other than 0 / `#`).
fn substructure(tail: &[u8], value: &[u8]) -> Result<Vec<u8>, Miss> {
    let mut steps = Vec::new();
    let mut rest = tail;
    while let Some(&c) = rest.first() {
        if c == b'.' {
            let (key, raw, len) = parse_key(rest)?;
            steps.push(Step::Key(key, raw));
            rest = &rest[len..];
        } else if c == b'[' {
            let (k, len) = parse_index(rest, || 0)?;
            if k > 0 {
                return Err(Miss::NotFound);
            }
            steps.push(Step::Append);
            rest = &rest[len..];
        } else {
            return Err(Miss::BadPath);
        }
    }
    let mut out = value.to_vec();
    for step in steps.iter().rev() {
        let mut wrapped = Vec::with_capacity(out.len() + 16);
        match step {
            Step::Key(key, raw) => {
                let mut label = Vec::with_capacity(key.len() + 5);
                append_header(&mut label, if *raw { TEXTRAW } else { TEXT5 }, key.len());
                label.extend_from_slice(key);
                append_header(&mut wrapped, OBJECT, label.len() + out.len());
                wrapped.extend_from_slice(&label);
            }
            Step::Append => append_header(&mut wrapped, ARRAY, out.len()),
        }
        wrapped.extend_from_slice(&out);
        out = wrapped;
    }
    Ok(out)
}

/// SQLite's `jsonLookupStep` from the root: finds the element `path`
/// (without its leading `$`) names and applies `op` there (with `ins`,
/// the JSONB of the new value). Returns the element's index (meaningless
/// after an edit).
pub(super) fn lookup(b: &mut Blob, path: &[u8], op: EditOp, ins: &[u8]) -> Result<usize, Miss> {
    b.delta = 0;
    let mut roots: Vec<usize> = Vec::new();
    let result = walk(b, path, op, ins, &mut roots);
    if b.delta != 0 {
        for &root in roots.iter().rev() {
            b.after_edit_size_adjust(root);
        }
    }
    result
}

/// The walk of [`lookup`]; pushes each container it edits within (or
/// passes through) onto `roots`.
fn walk(
    b: &mut Blob,
    mut path: &[u8],
    op: EditOp,
    ins: &[u8],
    roots: &mut Vec<usize>,
) -> Result<usize, Miss> {
    let mut root = 0;
    let mut label = 0;
    loop {
        let Some(&first) = path.first() else {
            let (n, sz) = b.size(root);
            match op {
                EditOp::None | EditOp::Insert => {}
                EditOp::Delete => {
                    let (start, len) = if label > 0 {
                        (label, n + sz + root - label)
                    } else {
                        (root, n + sz)
                    };
                    b.edit(start, len, &[]);
                }
                EditOp::Replace | EditOp::Set => b.edit(root, n + sz, ins),
            }
            return Ok(root);
        };
        if first == b'.' {
            let (key, raw_key, len) = parse_key(path)?;
            if b.kind(root) != OBJECT {
                return Err(Miss::NotFound);
            }
            let (n, sz) = b.size(root);
            let mut j = root + n;
            let end = j + sz;
            let mut found = None;
            while j < end {
                let kind = b.kind(j);
                if !(TEXT..=TEXTRAW).contains(&kind) {
                    return Err(Miss::Malformed);
                }
                let (n, sz) = b.size(j);
                if n == 0 {
                    return Err(Miss::Malformed);
                }
                let k = j + n;
                if k + sz >= end {
                    return Err(Miss::Malformed);
                }
                let v = k + sz;
                if label_eq(key, raw_key, &b.a[k..v], is_raw_label(kind)) {
                    if b.kind(v) > OBJECT {
                        return Err(Miss::Malformed);
                    }
                    let (n, sz) = b.size(v);
                    if n == 0 || v + n + sz > end {
                        return Err(Miss::Malformed);
                    }
                    found = Some(v);
                    break;
                }
                if b.kind(v) > OBJECT {
                    return Err(Miss::Malformed);
                }
                let (n, sz) = b.size(v);
                if n == 0 {
                    return Err(Miss::Malformed);
                }
                j = v + n + sz;
            }
            if let Some(v) = found {
                roots.push(root);
                label = j;
                root = v;
                path = &path[len..];
                continue;
            }
            if j > end {
                return Err(Miss::Malformed);
            }
            if !op.creates() {
                return Err(Miss::NotFound);
            }
            let value = substructure(&path[len..], ins)?;
            let mut new = Vec::with_capacity(key.len() + value.len() + 5);
            append_header(&mut new, if raw_key { TEXTRAW } else { TEXT5 }, key.len());
            new.extend_from_slice(key);
            new.extend_from_slice(&value);
            b.edit(j, 0, &new);
            roots.push(root);
            return Ok(0);
        } else if first == b'[' {
            if b.kind(root) != ARRAY {
                return Err(Miss::NotFound);
            }
            let (mut k, len) = parse_index(path, || array_count(b, root))?;
            let (n, sz) = b.size(root);
            let mut j = root + n;
            let end = j + sz;
            let mut found = false;
            while j < end {
                if k == 0 {
                    found = true;
                    break;
                }
                k -= 1;
                let (n, sz) = b.size(j);
                if n == 0 {
                    return Err(Miss::Malformed);
                }
                j += n + sz;
            }
            if found {
                roots.push(root);
                label = 0;
                root = j;
                path = &path[len..];
                continue;
            }
            if j > end {
                return Err(Miss::Malformed);
            }
            if k > 0 || !op.creates() {
                return Err(Miss::NotFound);
            }
            let value = substructure(&path[len..], ins)?;
            b.edit(j, 0, &value);
            roots.push(root);
            return Ok(0);
        } else {
            return Err(Miss::BadPath);
        }
    }
}

/// Why a merge patch failed ("malformed JSON": a malformed JSONB input).
#[derive(Debug)]
pub(super) struct BadMerge;

/// An object patch being applied to a target object (a frame of SQLite's
/// `jsonMergePatch` recursion).
struct Merge {
    /// The target object.
    it: usize,
    /// The next patch member, and the end of the patch's members.
    pc: usize,
    p_end: usize,
    /// The target's first member, and its end before any edit (the
    /// current end adds the blob's `delta`).
    t_start: usize,
    t_end_before: i64,
    /// The enclosing merge's `delta`, added back when this one is done.
    saved_delta: i64,
}

/// Starts applying the patch element at `ip` to the target element at
/// `it`: a patch that is not an object replaces the target (`None`: done);
/// an object patch makes the target an object (emptied if it was not one)
/// and gives the frame that merges the members.
fn start_merge(
    t: &mut Blob,
    it: usize,
    patch: &[u8],
    ip: usize,
) -> Result<Option<Merge>, BadMerge> {
    if at(patch, ip) & 0x0f != OBJECT {
        let (n, sz) = payload_size(patch, ip, 0);
        let replacement = patch.get(ip..ip + n + sz).ok_or(BadMerge)?;
        let (n, sz) = t.size(it);
        t.edit(it, n + sz, replacement);
        return Ok(None);
    }
    if t.kind(it) != OBJECT {
        let (n, sz) = t.size(it);
        t.edit(it + n, sz, &[]);
        if let Some(x) = t.a.get_mut(it) {
            *x = (*x & 0xf0) | OBJECT;
        }
    }
    let (n, sz) = payload_size(patch, ip, 0);
    if n == 0 {
        return Err(BadMerge);
    }
    let pc = ip + n;
    let p_end = pc + sz;
    let (n, sz) = t.size(it);
    if n == 0 {
        return Err(BadMerge);
    }
    Ok(Some(Merge {
        it,
        pc,
        p_end,
        t_start: it + n,
        t_end_before: (it + n + sz) as i64,
        saved_delta: 0,
    }))
}

/// SQLite's `jsonMergePatch` (RFC 7396): applies `patch` to the target
/// document `t` in place. Members are matched by label (the first target
/// member with the patch member's label, escapes decoded); a null patch
/// value deletes, an object patch value merges, any other replaces or is
/// appended. Nested object patches are frames on an explicit stack.
pub(super) fn merge_patch(t: &mut Blob, patch: &[u8]) -> Result<(), BadMerge> {
    let mut stack: Vec<Merge> = Vec::new();
    stack.extend(start_merge(t, 0, patch, 0)?);
    while let Some(f) = stack.last_mut() {
        if f.pc >= f.p_end {
            if t.delta != 0 {
                t.after_edit_size_adjust(f.it);
            }
            t.delta += f.saved_delta;
            stack.pop();
            continue;
        }
        let p_label = f.pc;
        let p_label_kind = at(patch, p_label) & 0x0f;
        if !(TEXT..=TEXTRAW).contains(&p_label_kind) {
            return Err(BadMerge);
        }
        let (npl, szpl) = payload_size(patch, p_label, 0);
        if npl == 0 {
            return Err(BadMerge);
        }
        let p_value = p_label + npl + szpl;
        if p_value >= f.p_end {
            return Err(BadMerge);
        }
        let (npv, szpv) = payload_size(patch, p_value, 0);
        if npv == 0 {
            return Err(BadMerge);
        }
        f.pc = p_value + npv + szpv;
        if f.pc > f.p_end {
            return Err(BadMerge);
        }
        let p_label_text = &patch[p_label + npl..p_value];

        let t_end = (f.t_end_before + t.delta).max(0) as usize;
        let mut tc = f.t_start;
        let mut matched = None;
        while tc < t_end {
            let t_label_kind = t.kind(tc);
            if !(TEXT..=TEXTRAW).contains(&t_label_kind) {
                return Err(BadMerge);
            }
            let (ntl, sztl) = t.size(tc);
            if ntl == 0 {
                return Err(BadMerge);
            }
            let t_value = tc + ntl + sztl;
            if t_value >= t_end {
                return Err(BadMerge);
            }
            let (ntv, sztv) = t.size(t_value);
            if ntv == 0 || t_value + ntv + sztv > t_end {
                return Err(BadMerge);
            }
            let t_label_text = t.a.get(tc + ntl..t_value).ok_or(BadMerge)?;
            if label_eq(
                p_label_text,
                is_raw_label(p_label_kind),
                t_label_text,
                is_raw_label(t_label_kind),
            ) {
                matched = Some((tc, t_value, ntv + sztv));
                break;
            }
            tc = t_value + ntv + sztv;
        }
        let p_value_kind = at(patch, p_value) & 0x0f;
        // Where a nested merge of the patch value goes, if any.
        let child = match matched {
            Some((t_label, t_value, value_len)) if p_value_kind == NULL => {
                t.edit(t_label, t_value - t_label + value_len, &[]);
                None
            }
            Some((_, t_value, _)) => Some(t_value),
            None if p_value_kind == NULL => None,
            None => {
                let label = &patch[p_label..p_value];
                let mut new = label.to_vec();
                if p_value_kind != OBJECT {
                    new.extend_from_slice(&patch[p_value..p_value + npv + szpv]);
                    t.edit(t_end, 0, &new);
                    None
                } else {
                    new.push(NULL);
                    t.edit(t_end, 0, &new);
                    Some(t_end + label.len())
                }
            }
        };
        if let Some(target) = child {
            let saved = t.delta;
            t.delta = 0;
            match start_merge(t, target, patch, p_value)? {
                Some(mut frame) => {
                    frame.saved_delta = saved;
                    stack.push(frame);
                }
                None => t.delta += saved,
            }
        }
    }
    Ok(())
}

/// `sqlite3Atoi64` on UTF-8 `z`: (value, SQLite's result code: -1 no
/// digits, 0 exact, 1 trailing text, 2 too large, 3 exactly 2^63).
fn atoi64(z: &[u8]) -> (i64, i32) {
    let end = z.len();
    let mut i = 0;
    while i < end && crate::sql::value::is_space(z[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < end && (z[i] == b'-' || z[i] == b'+') {
        neg = z[i] == b'-';
        i += 1;
    }
    let start = i;
    while i < end && z[i] == b'0' {
        i += 1;
    }
    let digits = i;
    let mut u: u64 = 0;
    while i < end && z[i].is_ascii_digit() {
        u = u.wrapping_mul(10).wrapping_add(u64::from(z[i] - b'0'));
        i += 1;
    }
    let nd = i - digits;
    let mut value = if u > i64::MAX as u64 {
        if neg {
            i64::MIN
        } else {
            i64::MAX
        }
    } else if neg {
        -(u as i64)
    } else {
        u as i64
    };
    let mut rc = if nd == 0 && start == digits {
        -1
    } else if z[i..].iter().any(|&c| !crate::sql::value::is_space(c)) {
        1
    } else {
        0
    };
    if nd >= 19 {
        let c = if nd > 19 {
            std::cmp::Ordering::Greater
        } else {
            z[digits..i].cmp(b"9223372036854775808".as_slice())
        };
        if c != std::cmp::Ordering::Less {
            value = if neg { i64::MIN } else { i64::MAX };
            if c == std::cmp::Ordering::Greater {
                rc = 2;
            } else if !neg {
                rc = 3;
            }
        }
    }
    (value, rc)
}

/// `sqlite3DecOrHexToI64` on a NUL-free `z`.
fn dec_or_hex_to_i64(z: &[u8]) -> (i64, i32) {
    if z.len() >= 2 && z[0] == b'0' && (z[1] == b'x' || z[1] == b'X') {
        let mut i = 2;
        while at(z, i) == b'0' {
            i += 1;
        }
        let mut k = i;
        let mut u: u64 = 0;
        while at(z, k).is_ascii_hexdigit() {
            u = u.wrapping_mul(16).wrapping_add(u64::from(hex_value(z[k])));
            k += 1;
        }
        let rc = if k - i > 16 {
            2
        } else if k < z.len() {
            1
        } else {
            0
        };
        (u as i64, rc)
    } else {
        let mut n = z
            .iter()
            .take_while(|c| b"+- \n\t0123456789".contains(c))
            .count();
        if n < z.len() {
            n += 1;
        }
        atoi64(&z[..n])
    }
}

/// `sqlite3AtoF` of a payload, as JSON's number → REAL: `None` unless the
/// whole text is a number.
fn text_to_real(z: &[u8]) -> Option<f64> {
    let z = z.iter().position(|&b| b == 0).map_or(z, |n| &z[..n]);
    match parse_real(z) {
        (r, RealSyntax::Integer | RealSyntax::Fractional) => Some(r),
        _ => None,
    }
}

/// Decodes a TEXTJ / TEXT5 payload into the string's bytes (invalid
/// escapes dropped, lone surrogates encoded as 3 bytes, as SQLite does).
pub(super) fn unescape(z: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(z.len());
    let mut i = 0;
    while i < z.len() {
        let c = z[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let (v, len) = unescape_one(&z[i..]);
        if v <= 0x7f {
            out.push(v as u8);
        } else if v <= 0x7ff {
            out.extend_from_slice(&[0xc0 | (v >> 6) as u8, 0x80 | (v & 0x3f) as u8]);
        } else if v < 0x10000 {
            out.extend_from_slice(&[
                0xe0 | (v >> 12) as u8,
                0x80 | ((v >> 6) & 0x3f) as u8,
                0x80 | (v & 0x3f) as u8,
            ]);
        } else if v != INVALID_CHAR {
            out.extend_from_slice(&[
                0xf0 | (v >> 18) as u8,
                0x80 | ((v >> 12) & 0x3f) as u8,
                0x80 | ((v >> 6) & 0x3f) as u8,
                0x80 | (v & 0x3f) as u8,
            ]);
        }
        i += len;
    }
    out
}

/// Text from bytes that may not be UTF-8 (invalid sequences become
/// U+FFFD, as values read from SQLite do).
pub(super) fn text_value(bytes: Vec<u8>) -> Value {
    match String::from_utf8(bytes) {
        Ok(s) => Value::Text(s),
        Err(e) => Value::Text(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// SQLite's `jsonReturnFromBlob`: the SQL value of the element at `i`
/// (null → NULL, true/false → 1/0, numbers → INTEGER or REAL, strings
/// unescaped) and whether it is JSON text (arrays and objects), or `Err`
/// for a malformed element.
pub(super) fn sql_value(a: &[u8], i: usize) -> Result<(Value, bool), ()> {
    let (n, sz) = payload_size(a, i, 0);
    if n == 0 {
        return Err(());
    }
    let payload = a.get(i + n..i + n + sz).ok_or(())?;
    let value = match at(a, i) & 0x0f {
        NULL | TRUE | FALSE if sz > 0 => return Err(()),
        NULL => Value::Null,
        TRUE => Value::Integer(1),
        FALSE => Value::Integer(0),
        INT | INT5 => {
            let (neg, digits) = match payload.first() {
                None => return Err(()),
                Some(b'-') if sz < 2 => return Err(()),
                Some(b'-') => (true, &payload[1..]),
                Some(_) => (false, payload),
            };
            let digits = digits
                .iter()
                .position(|&b| b == 0)
                .map_or(digits, |k| &digits[..k]);
            match dec_or_hex_to_i64(digits) {
                (v, 0) => Value::Integer(if neg { v.wrapping_neg() } else { v }),
                (_, 3) if neg => Value::Integer(i64::MIN),
                (_, 1) => return Err(()),
                _ => Value::Real(text_to_real(payload).ok_or(())?),
            }
        }
        FLOAT | FLOAT5 if sz > 0 => Value::Real(text_to_real(payload).ok_or(())?),
        TEXT | TEXTRAW => text_value(payload.to_vec()),
        TEXTJ | TEXT5 => text_value(unescape(payload)),
        ARRAY | OBJECT => {
            // SQLite renders the container as a blob of its own: its
            // elements must fit in it.
            let mut out = Vec::new();
            to_text(&a[i..i + n + sz], 0, &mut out)?;
            return Ok((text_value(out), true));
        }
        _ => return Err(()),
    };
    Ok((value, false))
}
