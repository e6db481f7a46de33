//! Differential tests of json_each / json_tree against real SQLite 3.46
//! (rusqlite, bundled): each case runs `SELECT key, value, type, atom, id,
//! parent, fullkey, path, json, root, subtype(value) FROM json_each(?1,
//! ?2)` (or json_tree, or the one-argument form) with the arguments bound,
//! and [`each_rows`] here; every row's ten columns (storage class and
//! value, reals bit for bit), the JSON subtype of `value` (SQLite's
//! `subtype()` gives 74, 'J', when it is set) and error messages must
//! agree; ours is what the executor gives `value` ([`EACH_VALUE`] of the
//! row's value and type). A case whose first argument carries the JSON
//! subtype is `json(?1)` in SQLite and our own json() of it here.
//!
//! The random tests are seeded and reproducible: each prints its seed; set
//! `TINYJOIN_SEED=<n>` to replay one.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::each_rows;
use crate::sql::functions::json::blob::{append_header, ARRAY};
use crate::sql::functions::json::test_docs::{gen_value, Doc};
use crate::sql::functions::json::{lookup, EACH_VALUE};
use crate::sql::value::Value;
use crate::sql::values_vs_sqlite::{from_row, same, seed, sqlite_eval, to_sqlite};

/// SQLite's `subtype()` of a value with the JSON subtype.
const JSON_SUBTYPE: i64 = 74;

/// One call: the first argument, whether it goes through json() first
/// (so carries the subtype), the path argument if any, json_tree or
/// json_each.
#[derive(Clone, Debug)]
struct Case {
    json: Value,
    via_json: bool,
    path: Option<Value>,
    tree: bool,
}

/// Each row's ten columns and whether `value` has the JSON subtype, or the
/// error message.
type Rows = Result<Vec<(Vec<Value>, bool)>, String>;

fn message(e: crate::Error) -> String {
    match e {
        crate::Error::Sql { message, .. } => message,
        other => other.to_string(),
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

/// Runs cases in SQLite and here, and keeps the differences.
struct Oracle {
    conn: rusqlite::Connection,
    cases: usize,
    rows: usize,
    errors: usize,
    failures: Vec<String>,
}

impl Oracle {
    fn new() -> Oracle {
        Oracle {
            conn: rusqlite::Connection::open_in_memory().expect("in-memory SQLite opens"),
            cases: 0,
            rows: 0,
            errors: 0,
            failures: Vec::new(),
        }
    }

    fn sqlite(&self, c: &Case) -> Rows {
        let function = if c.tree { "json_tree" } else { "json_each" };
        let json = if c.via_json { "json(?1)" } else { "?1" };
        let args = if c.path.is_some() {
            format!("{json}, ?2")
        } else {
            json.to_string()
        };
        let sql = format!(
            "SELECT key, value, type, atom, id, parent, fullkey, path, json, root, \
             subtype(value) FROM {function}({args})"
        );
        let sqlite_message = |e: rusqlite::Error| match e {
            rusqlite::Error::SqliteFailure(_, Some(m)) => m,
            other => other.to_string(),
        };
        let mut stmt = self.conn.prepare_cached(&sql).map_err(sqlite_message)?;
        let mut params = vec![to_sqlite(&c.json)];
        params.extend(c.path.iter().map(to_sqlite));
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |row| {
                let columns: Vec<Value> = (0..10).map(|i| from_row(row, i)).collect();
                let json = matches!(from_row(row, 10), Value::Integer(JSON_SUBTYPE));
                Ok((columns, json))
            })
            .map_err(sqlite_message)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(sqlite_message)
    }

    fn ours(c: &Case) -> Rows {
        let (json, flag) = if c.via_json {
            lookup("json")
                .expect("json() exists")
                .call(std::slice::from_ref(&c.json), &[false])
                .map_err(message)?
        } else {
            (c.json.clone(), false)
        };
        let rows = each_rows(&json, flag, c.path.as_ref(), c.tree).map_err(message)?;
        rows.into_iter()
            .map(|r| {
                let (_, json) = EACH_VALUE
                    .call(&[r.columns[1].clone(), r.columns[2].clone()], &[false; 2])
                    .map_err(message)?;
                Ok((r.columns.to_vec(), json))
            })
            .collect()
    }

    fn check(&mut self, c: &Case) {
        self.cases += 1;
        let theirs = self.sqlite(c);
        let ours = Oracle::ours(c);
        let agree = match (&theirs, &ours) {
            (Ok(a), Ok(b)) => {
                self.rows += a.len();
                a.len() == b.len()
                    && a.iter().zip(b).all(|((ca, ja), (cb, jb))| {
                        ja == jb && ca.iter().zip(cb).all(|(x, y)| same(x, y))
                    })
            }
            (Err(a), Err(b)) => {
                self.errors += 1;
                a == b
            }
            _ => false,
        };
        if !agree && self.failures.len() < 20 {
            self.failures
                .push(format!("{c:?}\n  sqlite: {theirs:?}\n  ours:   {ours:?}"));
        }
    }

    /// Checks json_each and json_tree of `json`, as it is and through
    /// json(), with and without `path`.
    fn check_all(&mut self, json: &Value, path: Option<&Value>) {
        for tree in [false, true] {
            for via_json in [false, true] {
                self.check(&Case {
                    json: json.clone(),
                    via_json,
                    path: path.cloned(),
                    tree,
                });
            }
        }
    }

    fn finish(self, what: &str) {
        println!(
            "{what}: {} cases ({} rows, {} errors) compared with SQLite",
            self.cases, self.rows, self.errors
        );
        assert!(
            self.failures.is_empty(),
            "{} differences, first ones:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

/// Documents for json_each: labels needing quotes or with escapes,
/// duplicates, JSON5 numbers and strings, empty containers, malformed.
const DOCUMENTS: &[&str] = &[
    "null",
    "true",
    "false",
    "0",
    "-7",
    "1.50",
    "1e400",
    "-1e400",
    "0x1F",
    "-0xab",
    "0xFFFFFFFFFFFFFFFFFF",
    "9223372036854775808",
    "-9223372036854775808",
    "+3",
    ".5",
    "5.",
    "Infinity",
    "-Infinity",
    "NaN",
    r#""s""#,
    r#""a\"b\\c\u00e9\n""#,
    r#""\ud83d\ude00""#,
    "'single'",
    r#""\x41\v\0""#,
    "[]",
    "{}",
    "[[]]",
    "[{}]",
    "[1,2,3]",
    "[0,[5,[6]]]",
    r#"[[1],[2,3],[]]"#,
    r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
    r#"{"a":{},"b":[],"c":[[],{}]}"#,
    r#"{"a":1,"a":2,"a":{"a":3}}"#,
    r#"{"x":0,"q":{"y":0,"a":[1,{"z":2}]}}"#,
    r#"{"x":0,"q":{"a":[1,{"z":2}]}}"#,
    r#"{"a b":1,"é":2,"":3,"a\"b":4,"a1":5,"1a":6,"a_b":7,"A":8,"$x":9}"#,
    r#"{"a\u0062":1,"ab":2,"\u00e9":3,"a\/b":4}"#,
    r#"{"a.b":{"c":1},"a[0]":[2],"[1]":3}"#,
    "{a:1,$b:2,_c:3,'d e':4,\\u0041x:5,é:6}",
    "{'it\\'s':[.5,+1,0x10,],\"t\":\"\t\"}",
    "/* c */ [1 // x\n, {a:'b'}]",
    r#"[{"a":[]},{"a":{}},{"a":null}]"#,
    r#"{"a":[1,2,[3,[4,{"b":[5]}]]]}"#,
    "[1,2]\u{0}junk",
    "",
    " ",
    "[",
    "{\"a\"}",
    "[1,,2]",
    "{\"a\":1}}",
];

fn paths() -> Vec<Option<Value>> {
    let mut p: Vec<Option<Value>> = [
        "$",
        "$.a",
        "$.b",
        "$.c",
        "$.q",
        "$.q.a",
        "$.q.a[1]",
        "$.q.a[1].z",
        "$.a.a",
        "$.\"a\"",
        "$.a b",
        "$.\"a b\"",
        "$.\"a.b\"",
        "$.\"a.b\".c",
        "$.\"a[0]\"",
        "$.\"a[0]\"[0]",
        "$.\"[1]\"",
        "$.\"\"",
        "$.é",
        "$.\"é\"",
        "$.ab",
        "$.\"a\\u0062\"",
        "$.a1",
        "$.$x",
        "$.d e",
        "$.\"d e\"",
        "$.it's",
        "$[0]",
        "$[1]",
        "$[2]",
        "$[3]",
        "$[1][1]",
        "$[1][1][0]",
        "$[#]",
        "$[#-1]",
        "$[#-1][#-1]",
        "$[#-9]",
        "$[0][0]",
        "$[0].a",
        "$[1].a",
        "$.a[2][1][1].b",
        "$.a[2][1][1].b[0]",
        "$[4294967296]",
        "$[99999999999999999999]",
        "$[00]",
        "",
        "x",
        "@",
        "$.",
        "$..a",
        "$[",
        "$[-1]",
        "$[a]",
        "$.\"a",
        "$ ",
        "$x",
        "$\u{0}.a",
        "$.a\u{0}.b",
    ]
    .iter()
    .map(|s| Some(text(s)))
    .collect();
    p.extend([
        None,
        Some(Value::Null),
        Some(Value::Integer(0)),
        Some(Value::Real(1.5)),
        Some(Value::Blob(b"$.a".to_vec())),
    ]);
    p
}

#[test]
fn documents_match_sqlite() {
    let mut o = Oracle::new();
    for doc in DOCUMENTS {
        for path in paths() {
            o.check_all(&text(doc), path.as_ref());
        }
    }
    // Long arrays and members: the ids follow JSONB header sizes (1, 2, 3
    // and 5 bytes).
    let numbers: Vec<String> = (0..300).map(|k| k.to_string()).collect();
    let long = "y".repeat(70_000);
    for doc in [
        format!("[{}]", numbers.join(",")),
        format!(
            r#"{{"a":[{}],"b":"{long}","c":["{long}",1]}}"#,
            numbers.join(",")
        ),
        format!(r#"[[{}],{{"{long}":[1,2]}}]"#, numbers[..20].join(",")),
    ] {
        for path in [
            None,
            Some(text("$.a")),
            Some(text("$.c")),
            Some(text("$.c[1]")),
            Some(text("$[0]")),
            Some(text("$[1]")),
            Some(text(&format!("$[1].{long}"))),
            Some(text("$[299]")),
        ] {
            o.check_all(&text(&doc), path.as_ref());
        }
    }
    // Other kinds of first argument.
    let firsts = [
        Value::Null,
        Value::Integer(42),
        Value::Integer(-1),
        Value::Real(1.5),
        Value::Real(f64::INFINITY),
        Value::Real(-0.0),
        Value::Blob(b"[1,{\"a\":2}]".to_vec()),
        Value::Blob(b"[1]\0x".to_vec()),
        Value::Blob(b"not json".to_vec()),
        Value::Blob(Vec::new()),
        Value::Blob(vec![0x00]),
        Value::Blob(vec![0x13, b'5']),
        Value::Blob(vec![0x0b]),
        Value::Blob(vec![0x0c]),
        Value::Blob(vec![0x2b, 0x13, b'7']),
        Value::Blob(vec![0x3c, 0x17, b'a', 0x00]),
        Value::Blob(vec![0x5c, 0x17, b'a', 0x13, b'1', 0x00]),
        Value::Blob(vec![0x4c, 0x13, b'1', 0x13, b'2']),
        Value::Blob(vec![0x4c, 0x1a, 0x00, 0x13, b'2']),
        Value::Blob(vec![0x4c, 0x1a, b'a', 0x1b, 0x00]),
        Value::Blob(vec![0x3b, 0x1b, 0x0d, 0x00]),
        Value::Blob(vec![0x2b, 0xf0, 0x00]),
        Value::Blob(vec![0x4b, 0x2b, 0x13, b'1', 0x00]),
        Value::Blob(vec![0x3b, 0x1d, 0x13, b'1']),
        Value::Blob(vec![0x5c, 0x27, b'a', b' ', 0x13, b'1']),
        Value::Blob(vec![0x4b, 0x13, b'1', 0x13, b'x']),
    ];
    for first in &firsts {
        for path in [
            None,
            Some(text("$")),
            Some(text("$[0]")),
            Some(text("$[1]")),
            Some(text("$[0][0]")),
            Some(text("$.a")),
            Some(Value::Null),
            Some(text("x")),
        ] {
            o.check_all(first, path.as_ref());
        }
    }
    o.finish("hand-picked documents");
}

/// JSONB blobs made by SQLite's jsonb() from the hand-picked documents.
#[test]
fn jsonb_documents_match_sqlite() {
    let mut o = Oracle::new();
    for doc in DOCUMENTS {
        let Ok(blob) = sqlite_eval(&o.conn, "SELECT jsonb(?1)", &[text(doc)]) else {
            continue;
        };
        for path in paths() {
            o.check_all(&blob, path.as_ref());
        }
    }
    o.finish("JSONB documents");
}

fn gen_doc(rng: &mut SmallRng) -> Doc {
    let mut text = String::new();
    let mut paths = Vec::new();
    let json5 = rng.gen_bool(0.3);
    gen_value(rng, 0, json5, "$", &mut text, &mut paths);
    if rng.gen_range(0..40) == 0 {
        // Damaged text.
        let cut = rng.gen_range(0..=text.len());
        if text.is_char_boundary(cut) {
            text.truncate(cut);
        }
    }
    Doc { text, paths }
}

/// A path: mostly one of the document's own, sometimes changed.
fn random_path(rng: &mut SmallRng, doc: &Doc) -> Option<Value> {
    let base = doc.paths[rng.gen_range(0..doc.paths.len())].clone();
    let p = match rng.gen_range(0..16) {
        0 => format!("{base}[#-1]"),
        1 => format!("{base}[{}]", rng.gen_range(0..4)),
        2 => format!(
            "{base}.{}",
            ["a", "b", "\"x y\"", "zz"][rng.gen_range(0..4)]
        ),
        3 => ["$.", "$[", "x", "$[-1]", "$.a.", "", "$[#-0]"][rng.gen_range(0..7)].to_string(),
        4 => return None,
        5 if rng.gen_bool(0.2) => return Some(Value::Null),
        _ => base,
    };
    Some(Value::Text(p))
}

/// `blob` with its first header rewritten to span the rest of it.
fn refit_root_header(blob: &[u8]) -> Vec<u8> {
    let Some(&first) = blob.first() else {
        return Vec::new();
    };
    let header_len = match first >> 4 {
        0..=11 => 1,
        12 => 2,
        13 => 3,
        14 => 5,
        _ => 9,
    };
    let payload = blob.get(header_len..).unwrap_or_default();
    let mut out = Vec::with_capacity(payload.len() + 5);
    append_header(&mut out, first & 0x0f, payload.len());
    out.extend_from_slice(payload);
    out
}

#[test]
fn random_documents_match_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let mut o = Oracle::new();
    for _ in 0..2500 {
        let doc = gen_doc(&mut rng);
        let json = text(&doc.text);
        let path = random_path(&mut rng, &doc);
        o.check(&Case {
            json: json.clone(),
            via_json: rng.gen_bool(0.2),
            path: path.clone(),
            tree: rng.gen(),
        });
        o.check(&Case {
            json: json.clone(),
            via_json: false,
            path: None,
            tree: true,
        });
        // The same document as SQLite's JSONB, sometimes damaged (a byte
        // or a type changed, a byte dropped or added: SQLite reads JSONB
        // lazily), mostly with the root header fitted to the damaged blob
        // so that it is still taken as JSONB.
        let Ok(Value::Blob(mut blob)) = sqlite_eval(&o.conn, "SELECT jsonb(?1)", &[json]) else {
            continue;
        };
        if rng.gen_range(0..3) == 0 && !blob.is_empty() {
            let at = rng.gen_range(0..blob.len());
            match rng.gen_range(0..4) {
                0 => blob[at] = rng.gen(),
                1 => blob[at] = (blob[at] & 0xf0) | rng.gen_range(0..16),
                2 => {
                    blob.remove(at);
                }
                _ => blob.insert(at, rng.gen()),
            }
            if rng.gen_bool(0.7) {
                blob = refit_root_header(&blob);
            }
        }
        o.check(&Case {
            json: Value::Blob(blob),
            via_json: false,
            path,
            tree: rng.gen(),
        });
    }
    o.finish("random documents");
}

/// Nesting as deep as SQLite's parser allows (1000), compared with SQLite;
/// then ours alone on a 128 KiB stack (the walk, paths and values are
/// iterative: nesting costs heap, not stack), with JSONB nested far deeper
/// than any text can be.
#[test]
fn deep_nesting_matches_sqlite_on_a_small_stack() {
    let deep_arr = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
    let deep_obj = format!("{}1{}", "{\"a\":".repeat(1000), "}".repeat(1000));
    let mut o = Oracle::new();
    for doc in [&deep_arr, &deep_obj] {
        let json = text(doc);
        let blob = sqlite_eval(&o.conn, "SELECT jsonb(?1)", std::slice::from_ref(&json))
            .expect("SQLite makes JSONB");
        for path in [
            None,
            Some(text(&format!("${}", "[0]".repeat(999)))),
            Some(text(&format!("${}", ".a".repeat(999)))),
            Some(text(&format!("${}", ".a".repeat(1000)))),
            Some(text(&format!("${}", "[0]".repeat(500)))),
        ] {
            o.check_all(&json, path.as_ref());
            o.check_all(&blob, path.as_ref());
        }
    }
    o.finish("deep nesting");

    // 100000 nested arrays as JSONB (each level's header as small as it
    // can be, as SQLite writes), and the path to the innermost.
    const DEPTH: usize = 100_000;
    let mut blob = Vec::new();
    for _ in 0..DEPTH {
        let mut wrapped = Vec::with_capacity(blob.len() + 5);
        append_header(&mut wrapped, ARRAY, blob.len());
        wrapped.extend_from_slice(&blob);
        blob = wrapped;
    }
    let text_len = 2 * (DEPTH - 1);
    std::thread::Builder::new()
        .stack_size(128 << 10)
        .spawn(move || {
            let deep = Value::Blob(blob);
            let rows = each_rows(&deep, false, None, false).expect("json_each reads it");
            assert_eq!(rows.len(), 1);
            assert!(matches!(&rows[0].columns[1], Value::Text(t) if t.len() == text_len));
            let inner = text(&format!("${}", "[0]".repeat(DEPTH - 3)));
            let rows = each_rows(&deep, false, Some(&inner), true).expect("json_tree reads it");
            let keys: Vec<&Value> = rows.iter().map(|r| &r.columns[0]).collect();
            assert_eq!(
                keys,
                [&Value::Integer(0), &Value::Integer(0), &Value::Integer(0)]
            );
            assert!(
                matches!(&rows[2].columns[6], Value::Text(t) if t.len() == 3 * (DEPTH - 1) + 1)
            );
            let deep_text = text(&deep_arr);
            assert_eq!(
                each_rows(&deep_text, false, None, true)
                    .expect("json_tree reads it")
                    .len(),
                1000
            );
        })
        .expect("thread starts")
        .join()
        .expect("no overflow on a small stack");
}
