//! The rows of SQLite's table-valued functions `json_each(json [, path])`
//! and `json_tree(json [, path])`, as SQLite 3.46 gives them: a
//! transcription of json.c's `JsonEachCursor` (its `xFilter`, `xNext` and
//! `xColumn`), walking the document's JSONB ([`super::blob`]).
//!
//! The walk: `json_each` visits the children of the element the path
//! selects (or that element alone if it is a scalar); `json_tree` visits
//! that element, then every descendant depth first. A row's `id` is the
//! byte offset in the JSONB of the row's element, or of its label for an
//! object member (so `parent`, a container's `id`, is the offset of the
//! container's label when it has one). Paths are built as the walk goes:
//! `$[N]` for array elements, `$.label` for labels made of ASCII letters
//! and digits starting with a letter, `$."label"` (label as stored, escapes
//! kept) for any other.
//!
//! SQLite 3.46's quirks are kept, as the differential tests check:
//! - `json_each` of a path to a scalar gives one row whose `key` is NULL.
//! - `json_tree`'s first row, for a path other than `$`, takes its `key`
//!   and `path` from the text of the path: when its element is not the
//!   first child of its parent, `path` is `$` and `key` is the path text
//!   after `$.` (`json_tree('{"x":0,"a":{"b":[1]}}', '$.a.b')` gives key
//!   `a.b`); an index key is the number read from that text (`$[#-1]`
//!   gives 0).
//! - A path lookup failing on malformed JSONB is "bad JSON path".
//!
//! Each row is made whole, every column computed: SQLite computes only the
//! columns a query reads, so on malformed JSONB a query that does not read
//! the failing column can succeed in SQLite where this fails ("malformed
//! JSON"). Rows are made only while the walk advances (every row's element
//! has a valid header, else its `value` is the error), so their number is
//! bounded by the blob's length; there is no recursion.

use super::blob::{at, might_be_jsonb, payload_size, Blob, ARRAY, OBJECT, TYPE_NAMES};
use super::edit::{self, sql_value, text_value, EditOp, Miss};
use super::{bad_path, c_text, malformed, parse_arg};
use crate::sql::value::Value;
use crate::Result;

#[cfg(test)]
#[path = "each_tests.rs"]
mod each_tests;

/// One row of json_each / json_tree: the columns key, value, type, atom, id,
/// parent, fullkey, path, json, root (in that order, as SQLite declares them;
/// json and root are SQLite's hidden columns). In SQLite `value` carries the
/// JSON subtype exactly when `type` is 'array' or 'object' (what
/// [`super::EACH_VALUE`] gives it).
#[cfg(test)]
#[derive(Clone, Debug)]
pub(crate) struct EachRow {
    pub columns: [Value; 10],
}

/// The number of columns of a row.
pub(crate) const COLUMNS: usize = 10;

/// The rows of `json_each(json [, path])` (recursive = false) or
/// `json_tree(json [, path])` (recursive = true), made one at a time by
/// [`EachScan::next_row`]: memory holds the document and one row.
pub(crate) struct EachScan {
    cursor: Option<Cursor>,
}

impl EachScan {
    /// Parses the document and selects the path's element; the arguments
    /// are read as [`each_rows`] says.
    pub(crate) fn new(json: &Value, path: Option<&Value>, recursive: bool) -> Result<EachScan> {
        Ok(EachScan {
            cursor: Cursor::filter(json, path, recursive)?,
        })
    }

    /// Writes the next row's [`COLUMNS`] columns into `out` (only those
    /// `wanted` says, the others NULL; all without it). False when the
    /// rows are done.
    pub(crate) fn next_row(&mut self, out: &mut [Value], wanted: Option<&[bool]>) -> Result<bool> {
        let Some(cursor) = self.cursor.as_mut() else {
            return Ok(false);
        };
        if cursor.i >= cursor.end {
            return Ok(false);
        }
        cursor.fill(out, wanted)?;
        let before = cursor.i;
        cursor.next();
        // A row whose element's header is valid moves the walk forward; a
        // walk that stood still would repeat its row forever.
        if cursor.i <= before {
            return Err(malformed());
        }
        Ok(true)
    }
}

/// The rows of `json_each(json [, path])` (recursive = false) or
/// `json_tree(json [, path])` (recursive = true).
///
/// `json` is read as SQLite reads it: NULL gives no rows; a blob whose
/// header spans it is JSONB; anything else is JSON text (JSON5 accepted;
/// "malformed JSON" if not). `_json_flag`, whether it carries the JSON
/// subtype, changes nothing: SQLite's json_each ignores the subtype. The
/// path, when given, must start with `$` ("bad JSON path: '...'"); a NULL
/// path, or one that matches nothing, gives no rows.
#[cfg(test)]
pub(crate) fn each_rows(
    json: &Value,
    _json_flag: bool,
    path: Option<&Value>,
    recursive: bool,
) -> Result<Vec<EachRow>> {
    let mut scan = EachScan::new(json, path, recursive)?;
    let mut rows = Vec::new();
    let mut row: [Value; COLUMNS] = std::array::from_fn(|_| Value::Null);
    while scan.next_row(&mut row, None)? {
        rows.push(EachRow {
            columns: row.clone(),
        });
    }
    Ok(rows)
}

/// An array or object the walk is in (SQLite's `JsonParent`).
struct Parent {
    /// Its row's id: its label's offset if it has one, else its own.
    head: usize,
    /// Its offset.
    value: usize,
    /// The offset past its end.
    end: usize,
    /// The length of the cursor's path before this container's name.
    path_len: usize,
    /// The index of the element being visited (arrays).
    key: i64,
}

/// The walk (SQLite's `JsonEachCursor`).
struct Cursor {
    b: Blob,
    /// The element of the current row, or its label in an object.
    i: usize,
    /// The walk ends at this offset: the end of the selected element.
    end: usize,
    /// The type of the container holding element `i` (0 at the top).
    kind: u8,
    recursive: bool,
    parents: Vec<Parent>,
    /// The path of the container holding element `i`: the root path
    /// (`$` or the path argument), then the names of the containers
    /// entered since.
    path: Vec<u8>,
    /// The length of the root path at the start of `path`.
    root_len: usize,
    /// json_tree's first row's `path` length (see [`Selected::root_path_len`]).
    first_path_len: usize,
    /// The number of rows made so far.
    row: u64,
    /// The `json` column: the first argument (its text up to any NUL,
    /// unless JSONB).
    json: Value,
}

impl Cursor {
    /// SQLite's `jsonEachFilter`: parses the document, then selects the
    /// element `path` names; `None` for no rows.
    fn filter(json: &Value, path: Option<&Value>, recursive: bool) -> Result<Option<Cursor>> {
        let Some(mut b) = parse_arg(json)? else {
            return Ok(None);
        };
        let json = match json {
            Value::Blob(bytes) if might_be_jsonb(bytes) => json.clone(),
            other => text_value(c_text(other).unwrap_or_default()),
        };
        let root = match path {
            None => b"$".to_vec(),
            Some(p) => match c_text(p) {
                Some(root) => root,
                None => return Ok(None),
            },
        };
        if root.first() != Some(&b'$') {
            return Err(bad_path(&root));
        }
        // The selected element, and the row's id (its label's offset when
        // the path's last step is a label) and container type.
        let (value, i, kind, first_path_len) = if root.len() == 1 {
            (0, 0, 0, 1)
        } else {
            let value = match edit::lookup(&mut b, &root[1..], EditOp::None, &[]) {
                Ok(v) => v,
                Err(Miss::NotFound) => return Ok(None),
                Err(Miss::BadPath | Miss::Malformed) => return Err(bad_path(&root)),
            };
            // The lookups `find` repeats are the one that just succeeded.
            let Some(selected) = Selected::find(&mut b, &root, value) else {
                return Err(malformed());
            };
            let (i, kind) = selected.label.map_or((value, ARRAY), |l| (l, OBJECT));
            (value, i, kind, selected.root_path_len(&b, i))
        };
        let (n, sz) = payload_size(&b.a, value, 0);
        let end = value + n + sz;
        let mut cursor = Cursor {
            i,
            end,
            kind,
            recursive,
            parents: Vec::new(),
            root_len: root.len(),
            path: root,
            first_path_len,
            row: 0,
            json,
            b,
        };
        let x = cursor.type_at(value);
        if x >= ARRAY && !recursive {
            cursor.i = value + n;
            cursor.kind = x;
            cursor.parents.push(Parent {
                head: cursor.i,
                value,
                end,
                path_len: 0,
                key: 0,
            });
        }
        Ok(Some(cursor))
    }

    /// The element type at `i` (0 past the end).
    fn type_at(&self, i: usize) -> u8 {
        at(&self.b.a, i) & 0x0f
    }

    /// SQLite's `jsonSkipLabel`: the current element, past its label.
    fn skip_label(&self) -> usize {
        if self.kind == OBJECT {
            let (n, sz) = payload_size(&self.b.a, self.i, 0);
            self.i + n + sz
        } else {
            self.i
        }
    }

    /// SQLite's `jsonAppendPathName`: appends the current element's name
    /// within its container (`[N]`, `.label` or `."label"`) to `out`.
    fn append_path_name(&self, out: &mut Vec<u8>) {
        let Some(top) = self.parents.last() else {
            return;
        };
        if self.kind == ARRAY {
            out.extend_from_slice(format!("[{}]", top.key).as_bytes());
            return;
        }
        let (n, sz) = payload_size(&self.b.a, self.i, 0);
        let k = self.i + n;
        let label = self.b.a.get(k..k + sz).unwrap_or_default();
        let plain = label.first().is_some_and(u8::is_ascii_alphabetic)
            && label.iter().all(u8::is_ascii_alphanumeric);
        // printf's "%.*s": the label up to any NUL.
        let label = label.split(|&c| c == 0).next().unwrap_or_default();
        if plain {
            out.push(b'.');
            out.extend_from_slice(label);
        } else {
            out.extend_from_slice(b".\"");
            out.extend_from_slice(label);
            out.push(b'"');
        }
    }

    /// SQLite's `jsonEachNext`.
    fn next(&mut self) {
        let i = self.skip_label();
        let (n, sz) = payload_size(&self.b.a, i, 0);
        if self.recursive {
            let x = self.type_at(i);
            let mut level_change = false;
            if x == OBJECT || x == ARRAY {
                level_change = true;
                let path_len = self.path.len();
                if self.kind != 0 && !self.parents.is_empty() {
                    let mut path = std::mem::take(&mut self.path);
                    self.append_path_name(&mut path);
                    self.path = path;
                }
                self.parents.push(Parent {
                    head: self.i,
                    value: i,
                    end: i + n + sz,
                    path_len,
                    key: -1,
                });
                self.i = i + n;
            } else {
                self.i = i + n + sz;
            }
            while let Some(top) = self.parents.last() {
                if self.i < top.end {
                    break;
                }
                self.path.truncate(top.path_len);
                self.parents.pop();
                level_change = true;
            }
            if level_change {
                self.kind = self.parents.last().map_or(0, |p| self.type_at(p.value));
            }
        } else {
            self.i = i + n + sz;
        }
        if self.kind == ARRAY {
            if let Some(top) = self.parents.last_mut() {
                top.key += 1;
            }
        }
        self.row += 1;
    }

    /// SQLite's `jsonEachPathLength`: the length of the `path` column.
    fn path_len(&self) -> usize {
        if self.row == 0 && self.recursive {
            self.first_path_len
        } else {
            self.path.len()
        }
    }

    /// The `key` of a row at the top (json_each of a scalar, json_tree's
    /// first row): read from the text of the root path.
    fn root_key(&self) -> Value {
        if self.root_len == 1 {
            return Value::Null;
        }
        let j = self.path_len();
        let n = self.root_len.saturating_sub(j);
        let z = &self.path[..self.root_len];
        if n == 0 {
            Value::Null
        } else if at(z, j) == b'[' {
            Value::Integer(atoi64_digits(z.get(j + 1..).unwrap_or_default()))
        } else if at(z, j + 1) == b'"' {
            text_value(
                z.get(j + 2..(j + n).saturating_sub(1))
                    .unwrap_or_default()
                    .to_vec(),
            )
        } else {
            text_value(z.get(j + 1..).unwrap_or_default().to_vec())
        }
    }

    /// SQLite's `jsonEachColumn`, for the `wanted` columns (all without
    /// it) of the current row, written into `out` (the others NULL). As in
    /// SQLite, a column not read is not made, nor can it fail.
    fn fill(&self, out: &mut [Value], wanted: Option<&[bool]>) -> Result<()> {
        let want = |c: usize| wanted.is_none_or(|w| w.get(c) == Some(&true));
        let a = &self.b.a;
        let value_at = self.skip_label();
        let x = self.type_at(value_at);
        out[0] = match self.parents.last() {
            _ if !want(0) => Value::Null,
            None => self.root_key(),
            Some(_) if self.kind == OBJECT => sql_value(a, self.i).map_err(|_| malformed())?.0,
            Some(top) => Value::Integer(top.key),
        };
        let scalar = x < ARRAY;
        let value = match want(1) || (want(3) && scalar) {
            true => sql_value(a, value_at).map_err(|_| malformed())?.0,
            false => Value::Null,
        };
        out[3] = match want(3) && scalar {
            true => value.clone(),
            false => Value::Null,
        };
        out[1] = value;
        out[2] = match want(2) {
            true => Value::Text(TYPE_NAMES[usize::from(x)].to_string()),
            false => Value::Null,
        };
        out[4] = Value::Integer(self.i as i64);
        out[5] = match self.parents.last() {
            Some(top) if self.recursive => Value::Integer(top.head as i64),
            _ => Value::Null,
        };
        out[6] = match want(6) {
            true => {
                let mut full_key = self.path.clone();
                self.append_path_name(&mut full_key);
                text_value(full_key)
            }
            false => Value::Null,
        };
        out[7] = match want(7) {
            true => text_value(self.path[..self.path_len()].to_vec()),
            false => Value::Null,
        };
        out[8] = match want(8) {
            true => self.json.clone(),
            false => Value::Null,
        };
        out[9] = match want(9) {
            true => text_value(self.path[..self.root_len].to_vec()),
            false => Value::Null,
        };
        Ok(())
    }
}

/// The element a path argument selected, and where it sits.
struct Selected {
    /// The offset of its label, when the path's last step is a label.
    label: Option<usize>,
    /// Its parent container's offset.
    parent: usize,
    /// Where the path's last step starts, in the path after its `$`.
    last_step: usize,
}

impl Selected {
    /// Finds what SQLite's lookup leaves in `iLabel` and the parent of the
    /// element `value` that the path `root` (starting `$`, whose lookup
    /// succeeded) leads to: the lookup of the path without its last step
    /// gives the parent, then the member whose value is `value` gives the
    /// label. `None` only if those lookups disagree with the first one.
    fn find(b: &mut Blob, root: &[u8], value: usize) -> Option<Selected> {
        let steps = &root[1..];
        let (last_step, is_label) = last_step(steps);
        let parent = edit::lookup(b, &steps[..last_step], EditOp::None, &[]).ok()?;
        if !is_label {
            return Some(Selected {
                label: None,
                parent,
                last_step,
            });
        }
        let (n, sz) = payload_size(&b.a, parent, 0);
        let end = parent + n + sz;
        let mut j = parent + n;
        while j < end {
            let (ln, lsz) = payload_size(&b.a, j, 0);
            let v = j + ln + lsz;
            if v == value {
                return Some(Selected {
                    label: Some(j),
                    parent,
                    last_step,
                });
            }
            let (vn, vsz) = payload_size(&b.a, v, 0);
            if ln == 0 || vn == 0 {
                return None;
            }
            j = v + vn + vsz;
        }
        None
    }

    /// json_tree's first row's `path` length (SQLite's
    /// `jsonEachPathLength` for row 0), for the row's id `i`: SQLite scans
    /// the path backwards for a `.` or `[` whose prefix leads to an element
    /// whose payload starts at `i`, else stops at 1 (just `$`). Only the
    /// parent can qualify: a prefix ending inside a quoted label is a bad
    /// path, and every higher ancestor's payload starts before the
    /// parent's offset, which is before `i`. So the scan stops at the last
    /// step when the element (or its label) is its parent's first member.
    fn root_path_len(&self, b: &Blob, i: usize) -> usize {
        let (n, _) = payload_size(&b.a, self.parent, 0);
        if self.parent + n == i {
            1 + self.last_step
        } else {
            1
        }
    }
}

/// Where the last step of a valid path (after its `$`) starts, and whether
/// it is a label (`.key`, `."key"`) rather than an index (`[...]`). The
/// steps are read as SQLite's lookup reads them: a quoted label ends at the
/// next `"` (no escapes), an unquoted one at the next `.` or `[`, an index
/// at the next `]`.
fn last_step(path: &[u8]) -> (usize, bool) {
    let mut last = (0, false);
    let mut k = 0;
    while k < path.len() {
        let rest = &path[k..];
        let len = match rest[0] {
            b'.' if at(rest, 1) == b'"' => rest[2..]
                .iter()
                .position(|&c| c == b'"')
                .map_or(rest.len(), |p| p + 3),
            b'.' => {
                1 + rest[1..]
                    .iter()
                    .position(|&c| c == b'.' || c == b'[')
                    .unwrap_or(rest.len() - 1)
            }
            _ => rest
                .iter()
                .position(|&c| c == b']')
                .map_or(rest.len(), |p| p + 1),
        };
        last = (k, rest[0] == b'.');
        k += len;
    }
    last
}

/// `sqlite3Atoi64`'s value for text that starts with digits (or none, as
/// after `[#`): the leading digits' number, `i64::MAX` if larger.
fn atoi64_digits(z: &[u8]) -> i64 {
    z.iter()
        .take_while(|c| c.is_ascii_digit())
        .fold(0i64, |v, &d| {
            v.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        })
}
