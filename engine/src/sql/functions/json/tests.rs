//! Differential tests of the JSON functions against real SQLite 3.46
//! (rusqlite, bundled): each case runs `SELECT f(?1, ...), json_quote(f(?1,
//! ...))` in SQLite with the arguments bound, and `lookup(f).call(..)` here;
//! the value (storage class and value, reals bit for bit), the JSON subtype
//! (seen through json_quote, which embeds subtyped text as is and quotes
//! other text) and error messages must agree. An argument that carries the
//! JSON subtype is `json(?N)` in SQLite and our own json() of it here.
//! Every case of a function with a jsonb_* form runs that form too, whose
//! JSONB bytes must be SQLite's.
//!
//! The random tests are seeded and reproducible: each prints its seed; set
//! `TINYJOIN_SEED=<n>` to replay one.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rusqlite::types::Value as SqliteValue;

use super::test_docs::{gen_value, Doc};
use super::{lookup, GroupJson};
use crate::sql::value::Value;
use crate::sql::values_vs_sqlite::{from_row, same, seed, to_sqlite};

/// A function argument; `.1`: passed through json() (carries the subtype).
#[derive(Clone, Debug)]
struct Arg(Value, bool);

fn t(s: &str) -> Arg {
    Arg(Value::Text(s.to_string()), false)
}
fn j(s: &str) -> Arg {
    Arg(Value::Text(s.to_string()), true)
}
fn i(n: i64) -> Arg {
    Arg(Value::Integer(n), false)
}
fn r(x: f64) -> Arg {
    Arg(Value::Real(x), false)
}
fn null() -> Arg {
    Arg(Value::Null, false)
}
fn blob(b: &[u8]) -> Arg {
    Arg(Value::Blob(b.to_vec()), false)
}

fn our_message(e: crate::Error) -> String {
    match e {
        crate::Error::Sql { message, .. } => message,
        other => other.to_string(),
    }
}

/// SQLite's message, without the statement it adds to prepare errors.
fn sqlite_message(e: rusqlite::Error) -> String {
    let m = match e {
        rusqlite::Error::SqliteFailure(_, Some(m)) => m,
        other => other.to_string(),
    };
    match m.find(" in SELECT ") {
        Some(n) => m[..n].to_string(),
        None => m,
    }
}

type Outcome = Result<(Value, Value), String>;

/// Runs cases in SQLite and here, and keeps the differences.
struct Oracle {
    conn: rusqlite::Connection,
    cases: usize,
    failures: Vec<String>,
}

impl Oracle {
    fn new() -> Oracle {
        Oracle {
            conn: rusqlite::Connection::open_in_memory().expect("in-memory SQLite opens"),
            cases: 0,
            failures: Vec::new(),
        }
    }

    fn sqlite(&self, name: &str, args: &[Arg]) -> Outcome {
        let params: Vec<String> = args
            .iter()
            .enumerate()
            .map(|(k, a)| {
                if a.1 {
                    format!("json(?{})", k + 1)
                } else {
                    format!("?{}", k + 1)
                }
            })
            .collect();
        let call = if name.starts_with('-') {
            format!("{} {name} {}", params[0], params[1])
        } else {
            format!("{name}({})", params.join(","))
        };
        let sql = format!("SELECT {call}, json_quote({call})");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(sqlite_message)?;
        let values: Vec<SqliteValue> = args.iter().map(|a| to_sqlite(&a.0)).collect();
        stmt.query_row(rusqlite::params_from_iter(values), |row| {
            Ok((from_row(row, 0), from_row(row, 1)))
        })
        .map_err(sqlite_message)
    }

    fn ours(name: &str, args: &[Arg]) -> Outcome {
        let call = |name: &str, vals: &[Value], flags: &[bool]| {
            lookup(name)
                .ok_or_else(|| format!("no such function: {name}"))?
                .call(vals, flags)
                .map_err(our_message)
        };
        let mut vals = Vec::new();
        let mut flags = Vec::new();
        for a in args {
            if a.1 {
                let (v, sub) = call("json", std::slice::from_ref(&a.0), &[false])?;
                vals.push(v);
                flags.push(sub);
            } else {
                vals.push(a.0.clone());
                flags.push(false);
            }
        }
        let (v, sub) = call(name, &vals, &flags)?;
        let (q, _) = call("json_quote", std::slice::from_ref(&v), &[sub])?;
        Ok((v, q))
    }

    fn check(&mut self, name: &str, args: &[Arg]) {
        if let Some(jsonb) = jsonb_form(name) {
            self.check_one(&jsonb, args);
        }
        self.check_one(name, args);
    }

    fn check_one(&mut self, name: &str, args: &[Arg]) {
        self.cases += 1;
        let theirs = self.sqlite(name, args);
        let ours = Oracle::ours(name, args);
        let agree = match (&theirs, &ours) {
            (Ok((v1, q1)), Ok((v2, q2))) => same(v1, v2) && same(q1, q2),
            (Err(e1), Err(e2)) => e1 == e2,
            _ => false,
        };
        if !agree && self.failures.len() < 40 {
            self.failures.push(format!(
                "{name}{args:?}\n  sqlite: {theirs:?}\n  ours:   {ours:?}"
            ));
        }
    }

    fn finish(self, what: &str) {
        println!("{what}: {} cases compared with SQLite", self.cases);
        assert!(
            self.failures.is_empty(),
            "{} differences, first ones:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

/// The jsonb_* form of a JSON function, if it has one.
fn jsonb_form(name: &str) -> Option<String> {
    let forms = [
        "json",
        "json_array",
        "json_extract",
        "json_insert",
        "json_object",
        "json_patch",
        "json_remove",
        "json_replace",
        "json_set",
    ];
    forms
        .contains(&name)
        .then(|| name.replacen("json", "jsonb", 1))
}

/// JSON texts: canonical, JSON5, malformed, edge cases.
fn documents() -> Vec<String> {
    let mut docs: Vec<String> = [
        r#"{"a":1.50,"b":"\u0041"}"#,
        "null",
        "true",
        "false",
        "0",
        "-0",
        "1",
        "-1",
        "123456789012345678901234567890",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "1.5",
        "1e5",
        "1E+5",
        "-1.5e-5",
        "0.0",
        "-0.0",
        "1.0e+300",
        "1e999",
        "-1e999",
        "0x1F",
        "-0x1f",
        "0xFFFFFFFFFFFFFFFF",
        "-0x8000000000000000",
        "0x10000000000000000",
        "0x00000000000000001",
        "+1",
        ".5",
        "5.",
        "-.5",
        "+.5",
        "1.e5",
        "Infinity",
        "-Infinity",
        "+Infinity",
        "-inf",
        "NaN",
        "-NaN",
        "inf",
        "QNaN",
        "snan",
        "infinityx",
        r#""abc""#,
        r#""a\"b""#,
        r#""\u00e9\n\t\\\/\b\f\r""#,
        r#""\ud83d\ude00""#,
        r#""\ud800""#,
        r#""\udc00x""#,
        r#""\u0000z""#,
        "'single'",
        r#"'it\'s'"#,
        r#"'a"b'"#,
        r#""\x41\v\0""#,
        "\"line\\\ncont\"",
        "\"cr\\\r\nlf\\\r\"",
        "\"ls\\\u{2028}x\"",
        "\"end\\\n\"",
        "\"tab\there\"",
        "\"\u{7f}é😀\"",
        "\"a\u{1}b\"",
        "[]",
        "{}",
        "[1,2,3]",
        "[1,[2,[3,[4]]]]",
        r#"{"a":{"b":{"c":[10,20,{"d":"e"}]}}}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"a\u0062":1,"ab":2}"#,
        "{a:1,b:'x',$c:[],_d:{},é:2}",
        "{\\u0041b:1}",
        "{a\\u0041:1}",
        "[1,2,]",
        "{\"a\":1,}",
        "/* c */ [1 // x\n, 2]",
        "\u{a0}[1]\u{feff}",
        "\u{2028}[1\u{3000}]",
        " [ 1 , 2 ] ",
        "[1 , 2\n]\n",
        "{ \"a\" : 1 , \"b\" : [ true , false , null ] }",
        r#"{"x y":1,"a.b":2,"k\"q":3,"":4,"A":5}"#,
        r#"[{"a":[]},{"a":{}},{"a":null}]"#,
        "",
        " ",
        "[",
        "]",
        "{",
        "[1,]x",
        "[1 2]",
        "{\"a\"}",
        "{\"a\":}",
        "{a b:1}",
        "01",
        "-01",
        "-",
        "1.",
        "tru",
        "nul",
        "\"abc",
        "'abc",
        "[1,,2]",
        "{,}",
        "[,]",
        "{:1}",
        "1 2",
        "\"\\q\"",
        "\"\\u12\"",
        "\"\\x4\"",
        "[\"a\",'b\",]",
        "{\"a\":1 \"b\":2}",
        "0x",
        "1e",
        "1e+",
        ".e1",
        "--1",
        "+-1",
        "[1]]",
        "{\"a\":1}}",
        "{1:2}",
        "{true:1}",
        "{nullx:1}",
        "{Infinity:1}",
        "{[]:1}",
        "/* unterminated",
        "[1] // comment",
        "[1] /* c */",
        "[1] x",
        "{a:1} x",
        "[1,] x",
        "[1]\0junk",
        "\0",
        "1\u{c2}",
        "{\"a\"\n:\n1}",
        "{\"a\"/**/:1}",
        "[1/**/,2]",
        "[1/**/]",
        "{'a':1/**/}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    docs.push(format!("{}{}", "[".repeat(1000), "]".repeat(1000)));
    docs.push(format!("{}{}", "[".repeat(1001), "]".repeat(1001)));
    docs.push(format!("{}1{}", "{\"a\":".repeat(999), "}".repeat(999)));
    docs
}

fn paths() -> Vec<Arg> {
    let mut p: Vec<Arg> = [
        "$",
        "$.a",
        "$.b",
        "$.a.b",
        "$.a.b.c",
        "$.a.b.c[2].d",
        "$.\"a\"",
        "$.\"a\".b",
        "$[0]",
        "$[1]",
        "$[2]",
        "$[3]",
        "$[#]",
        "$[#-1]",
        "$[#-3]",
        "$[#-4]",
        "$[#-0]",
        "$[4294967296]",
        "$[4294967297]",
        "$[01]",
        "$.a[0]",
        "$.a[#]",
        "$.c",
        "$.$c",
        "$._d",
        "$.Ab",
        "$.ab",
        "$.\"ab\"",
        "$.\"a\\u0062\"",
        "$.\"x y\"",
        "$.x y",
        "$.\"a.b\"",
        "$.\"\"",
        "$.A",
        "$.é",
        "",
        "a",
        "$.",
        "$..a",
        "$[",
        "$[a]",
        "$[-1]",
        "$[ 1]",
        "$[#+1]",
        "$[1",
        "$x",
        "$.\"a",
        "$.a.",
        "$.a[",
        "$[0].",
        "$.\"a\"b",
        "x$",
        "$[#-1].a.b",
        "@",
        "$[0][0][0]",
        "$.a\0.b",
    ]
    .iter()
    .map(|s| t(s))
    .collect();
    p.push(null());
    p.push(i(0));
    p
}

fn values() -> Vec<Arg> {
    vec![
        null(),
        i(0),
        i(-1),
        i(i64::MAX),
        i(i64::MIN),
        r(1.0),
        r(1.5),
        r(-0.0),
        r(1e300),
        r(1e-7),
        r(0.1),
        r(f64::INFINITY),
        r(f64::NEG_INFINITY),
        r(123_456_789.0),
        r(1e15),
        r(1e16),
        r(-2.5e-300),
        t("abc"),
        t(""),
        t("a\"b\\c/"),
        t("\u{1}\u{1f}\n\t\r\u{8}\u{c}\u{b}"),
        t("\u{7f}é😀\u{2028}"),
        t("'"),
        t("[1,2]"),
        t("null"),
        t("a\0b"),
        j("[1,2]"),
        j("{\"a\":null}"),
        j("\"s\""),
        j("1e5"),
        j("'x'"),
        j("{a:1,'b':[.5,]}"),
        j("null"),
        j("0x10"),
        j("not json"),
        j(""),
        blob(b"abc"),
        blob(&[0x00]),
        blob(&[0x01]),
        blob(&[0x02]),
        blob(&[0x13, b'5']),
        blob(&[0x17, b'x']),
        blob(&[0x0b]),
        blob(&[0x2b, 0x13, b'7']),
        blob(&[0x1c, 0x00]),
        blob(&[0x03]),
        blob(b"[1]"),
        blob(b"{\"a\":[1,2]}"),
        blob(&[]),
    ]
}

#[test]
fn scalar_functions_match_sqlite() {
    let mut o = Oracle::new();
    let docs = documents();
    for d in &docs {
        let doc = t(d);
        for f in [
            "json",
            "json_valid",
            "json_error_position",
            "json_type",
            "json_array_length",
        ] {
            o.check(f, std::slice::from_ref(&doc));
        }
        o.check("json_pretty", std::slice::from_ref(&doc));
        o.check("json_pretty", &[doc.clone(), t("\t")]);
        o.check("json_pretty", &[doc.clone(), t("")]);
        o.check("json_pretty", &[doc.clone(), null()]);
        o.check("json_quote", std::slice::from_ref(&doc));
        o.check("json_quote", &[j(d)]);
        o.check("json_array", &[j(d), doc.clone()]);
        for flags in [
            i(1),
            i(2),
            i(3),
            i(4),
            i(6),
            i(8),
            i(9),
            i(10),
            i(0),
            i(16),
            i(-1),
            t("2"),
            r(2.9),
            null(),
        ] {
            o.check("json_valid", &[doc.clone(), flags]);
        }
        o.check("json", &[Arg(Value::Blob(d.as_bytes().to_vec()), false)]);
        o.check(
            "json_error_position",
            &[Arg(Value::Blob(d.as_bytes().to_vec()), false)],
        );
    }
    for d in docs.iter().filter(|d| d.len() < 200) {
        let doc = t(d);
        for p in paths() {
            for f in [
                "json_extract",
                "json_type",
                "json_array_length",
                "->",
                "->>",
                "json_remove",
            ] {
                o.check(f, &[doc.clone(), p.clone()]);
            }
            for f in ["json_set", "json_insert", "json_replace"] {
                o.check(f, &[doc.clone(), p.clone(), i(99)]);
                o.check(f, &[doc.clone(), p.clone(), j("[7,{\"z\":8}]")]);
            }
            o.check("json_extract", &[doc.clone(), p.clone(), t("$[0]")]);
        }
    }
    o.finish("scalar functions");
}

#[test]
fn values_and_special_cases_match_sqlite() {
    let mut o = Oracle::new();
    let vals = values();
    for v in &vals {
        o.check("json_quote", std::slice::from_ref(v));
        o.check("json_array", std::slice::from_ref(v));
        o.check("json_array", &[v.clone(), i(1), v.clone()]);
        o.check("json_object", &[t("k"), v.clone()]);
        o.check("json_object", &[v.clone(), i(1)]);
        o.check("json", std::slice::from_ref(v));
        o.check("json_valid", std::slice::from_ref(v));
        o.check("json_valid", &[v.clone(), i(8)]);
        o.check("json_valid", &[v.clone(), i(4)]);
        o.check("json_error_position", std::slice::from_ref(v));
        o.check("json_type", std::slice::from_ref(v));
        o.check("json_extract", &[v.clone(), t("$")]);
        o.check("->", &[v.clone(), t("$")]);
        o.check("->>", &[v.clone(), t("$")]);
        o.check("json_set", &[t("{}"), t("$.a"), v.clone()]);
        o.check("json_set", &[t("{}"), t("$"), v.clone()]);
        o.check("json_insert", &[t("[1]"), t("$[#]"), v.clone()]);
        o.check("json_replace", &[t("{\"a\":0}"), t("$.a"), v.clone()]);
        o.check(
            "json_set",
            &[
                t("{\"a\":[1,2]}"),
                t("$.a[1]"),
                v.clone(),
                t("$.b.c[0]"),
                v.clone(),
            ],
        );
        o.check("json_extract", &[Arg(Value::Null, false), v.clone()]);
        o.check("json_patch", &[t("{\"a\":1}"), v.clone()]);
        o.check("json_patch", &[v.clone(), t("{\"a\":1}")]);
        o.check("json_pretty", std::slice::from_ref(v));
        o.check("json_array_length", std::slice::from_ref(v));
        for path in [
            i(0),
            i(1),
            i(-1),
            i(5),
            t("a"),
            t("b"),
            t("x y"),
            t(""),
            t("[0]"),
            t("[#-1]"),
            t("$.a"),
            r(1.5),
            null(),
            t("a\"b"),
            t("[0"),
            t("[]"),
            t("é"),
        ] {
            for doc in [
                t("[{\"a\":[1,2]},\"x\"]"),
                t("{\"a\":[1,2],\"x y\":3,\"1.5\":4,\"\":5,\"é\":6,\"[0]\":7}"),
                v.clone(),
            ] {
                o.check("->", &[doc.clone(), path.clone()]);
                o.check("->>", &[doc, path.clone()]);
            }
        }
    }
    // Edits: several pairs in order, append, deep creation, duplicates.
    let edits: Vec<(&str, Vec<Arg>)> = vec![
        (
            "json_set",
            vec![t("{\"a\":1}"), t("$.a"), i(2), t("$.a"), i(3)],
        ),
        (
            "json_set",
            vec![t("{\"a\":1}"), t("$.b"), i(2), t("$.c"), i(3)],
        ),
        (
            "json_set",
            vec![t("[1,2]"), t("$[#]"), i(3), t("$[#]"), i(4)],
        ),
        ("json_set", vec![t("[1,2]"), t("$[2]"), i(3)]),
        ("json_set", vec![t("[1,2]"), t("$[5]"), i(3)]),
        ("json_insert", vec![t("[1,2]"), t("$[1]"), i(3)]),
        ("json_replace", vec![t("[1,2]"), t("$[2]"), i(3)]),
        ("json_set", vec![t("{}"), t("$.a.b.c"), i(1)]),
        ("json_set", vec![t("{}"), t("$.a[0].b"), i(1)]),
        ("json_set", vec![t("{}"), t("$.a[1].b"), i(1)]),
        ("json_set", vec![t("{}"), t("$.a[#].b[#]"), i(1)]),
        ("json_set", vec![t("{}"), t("$.a[#-1]"), i(1)]),
        ("json_set", vec![t("{}"), t("$.a[#-0]"), i(1)]),
        ("json_set", vec![t("{}"), t("$.a.\"x\\\"y\""), i(1)]),
        ("json_set", vec![t("{}"), t("$.\"a\\u0041\""), i(1)]),
        ("json_set", vec![t("{}"), t("$.a\"b"), i(1)]),
        ("json_set", vec![t("{}"), t("$.a."), i(1)]),
        ("json_set", vec![t("{}"), t("$.a[x]"), i(1)]),
        ("json_set", vec![t("{}"), t("$.a[1]."), i(1)]),
        ("json_set", vec![t("{}"), t("$.a@"), i(1)]),
        ("json_set", vec![t("{}"), t("$.a.b@"), i(1)]),
        ("json_set", vec![t("{\"a\":1,\"a\":2}"), t("$.a"), i(3)]),
        ("json_remove", vec![t("{\"a\":1,\"a\":2}"), t("$.a")]),
        (
            "json_remove",
            vec![t("{\"a\":1,\"a\":2}"), t("$.a"), t("$.a")],
        ),
        ("json_remove", vec![t("[0,1,2,3]"), t("$[1]"), t("$[1]")]),
        ("json_remove", vec![t("[0,1,2,3]"), t("$[#-1]"), t("$[0]")]),
        ("json_remove", vec![t("[0,1,2]"), t("$")]),
        ("json_remove", vec![t("[0,1,2]"), null()]),
        ("json_remove", vec![t("[0,1,2]")]),
        ("json_remove", vec![]),
        ("json_remove", vec![null(), t("x")]),
        ("json_set", vec![t("{a:1}"), null(), i(2), t("$.b"), i(3)]),
        ("json_set", vec![t("{a:1}"), t("$.b")]),
        ("json_set", vec![t("{a:1}")]),
        ("json_set", vec![]),
        ("json_insert", vec![t("{a:1}"), t("$.b"), i(1), t("$.c")]),
        ("json_replace", vec![t("{a:1}"), t("$.b")]),
        ("json_set", vec![t("{a:1}"), t("b"), blob(b"x")]),
        ("json_set", vec![t("{a:1}"), t("$.b"), blob(b"x")]),
        ("json_set", vec![t("{a:1}"), t("$.b"), j("{")]),
        ("json_insert", vec![t("{a:1}"), t("$"), i(5)]),
        ("json_replace", vec![t("{a:1}"), t("$"), i(5)]),
        (
            "json_set",
            vec![
                t("{\"a\":{\"b\":[1,{\"c\":2}]}}"),
                t("$.a.b[1].c"),
                t("xyz"),
                t("$.a.b[0]"),
                j("{\"n\":[]}"),
            ],
        ),
        (
            "json_set",
            vec![t("[[[]]]"), t("$[0][0][#]"), i(1), t("$[0][#]"), i(2)],
        ),
        (
            "json_set",
            vec![
                t(&format!("[{}1]", "1,".repeat(300))),
                t("$[#]"),
                t(&"y".repeat(70000)),
            ],
        ),
        (
            "json_set",
            vec![t("{}"), t(&format!("${}", ".a".repeat(1500))), i(1)],
        ),
        ("json_extract", vec![]),
        ("json_extract", vec![t("[1]")]),
        ("json_extract", vec![t("{")]),
        ("json_extract", vec![t("[1,2]"), t("$[0]"), null()]),
        (
            "json_extract",
            vec![t("[1,2]"), t("$[0]"), t("$[9]"), t("$[1]")],
        ),
        ("json_extract", vec![t("[1,2]"), t("$[0]"), t("x")]),
        (
            "json_extract",
            vec![t("{\"a\":\"x\",\"b\":[1]}"), t("$.a"), t("$.b")],
        ),
        ("json_object", vec![]),
        ("json_object", vec![t("a")]),
        ("json_object", vec![t("a"), i(1), t("a"), i(2)]),
        ("json_object", vec![t("a"), blob(b"x"), i(2), i(3)]),
        ("json_object", vec![t("a\0b"), t("c\0d")]),
        ("json_array", vec![]),
        ("json_array", vec![blob(b"x"), blob(&[0x1c, 0x00])]),
        ("json_array", vec![blob(&[0x1c, 0x00]), blob(b"x")]),
        (
            "json_object",
            vec![t("a"), blob(&[0x1c, 0x00]), t("b"), blob(b"x")],
        ),
        (
            "json_object",
            vec![t("a"), blob(b"x"), t("b"), blob(&[0x1c, 0x00])],
        ),
        ("json_array", vec![j("[]"), j("{}"), t("[]")]),
        ("json_patch", vec![t("{\"a\":\"b\"}"), t("{\"a\":\"c\"}")]),
        ("json_patch", vec![t("{\"a\":\"b\"}"), t("{\"b\":\"c\"}")]),
        ("json_patch", vec![t("{\"a\":\"b\"}"), t("{\"a\":null}")]),
        (
            "json_patch",
            vec![t("{\"a\":\"b\",\"b\":\"c\"}"), t("{\"a\":null}")],
        ),
        ("json_patch", vec![t("{\"a\":[\"b\"]}"), t("{\"a\":\"c\"}")]),
        ("json_patch", vec![t("{\"a\":\"c\"}"), t("{\"a\":[\"b\"]}")]),
        (
            "json_patch",
            vec![
                t("{\"a\":{\"b\":\"c\"}}"),
                t("{\"a\":{\"b\":\"d\",\"c\":null}}"),
            ],
        ),
        (
            "json_patch",
            vec![t("{\"a\":[{\"b\":\"c\"}]}"), t("{\"a\":[1]}")],
        ),
        ("json_patch", vec![t("[\"a\",\"b\"]"), t("[\"c\",\"d\"]")]),
        ("json_patch", vec![t("{\"a\":\"b\"}"), t("[\"c\"]")]),
        ("json_patch", vec![t("{\"a\":\"foo\"}"), t("null")]),
        ("json_patch", vec![t("{\"a\":\"foo\"}"), t("\"bar\"")]),
        ("json_patch", vec![t("{\"e\":null}"), t("{\"a\":1}")]),
        (
            "json_patch",
            vec![t("[1,2]"), t("{\"a\":\"b\",\"c\":null}")],
        ),
        (
            "json_patch",
            vec![t("{}"), t("{\"a\":{\"bb\":{\"ccc\":null}}}")],
        ),
        ("json_patch", vec![t("{\"a\":1,\"a\":2}"), t("{\"a\":3}")]),
        (
            "json_patch",
            vec![t("{\"a\":1,\"a\":2}"), t("{\"a\":null}")],
        ),
        ("json_patch", vec![t("{}"), t("{\"a\":1,\"a\":2}")]),
        (
            "json_patch",
            vec![t("{}"), t("{\"a\":{\"x\":1},\"a\":{\"y\":null,\"z\":2}}")],
        ),
        (
            "json_patch",
            vec![t("{a:1,'b':{c:.5}}"), t("{b:{c:0x10,d:'x'},\"\\u0061\":9}")],
        ),
        ("json_patch", vec![t("{\"a\\u0062\":1}"), t("{\"ab\":2}")]),
        ("json_patch", vec![t("5"), t("{\"a\":{\"b\":null}}")]),
        (
            "json_patch",
            vec![t("{\"a\":5}"), t("{\"a\":{\"b\":{\"c\":1}}}")],
        ),
        ("json_patch", vec![null(), t("{")]),
        ("json_patch", vec![t("{"), null()]),
        ("json_patch", vec![t("{}"), null()]),
        (
            "json_pretty",
            vec![t("{\"a\":[1,{\"b\":[]},{}],\"c\":{\"d\":null}}"), t("--")],
        ),
        ("json_pretty", vec![t("[[[[1]]],{}]"), i(7)]),
        ("json_pretty", vec![t("{'a':'b\"',c:[.5,]}"), t("a\0b")]),
        ("json_valid", vec![t("{}"), t("x")]),
        ("json_array_length", vec![t("[1,2]"), null()]),
        ("json_array_length", vec![t("{"), null()]),
        ("json_type", vec![t("[1,2]"), null()]),
        ("json_type", vec![t("[1]"), t("x")]),
    ];
    for (f, args) in &edits {
        o.check(f, args);
    }
    // Wrong argument counts (errors at prepare in SQLite).
    for (f, n) in [
        ("json", 0),
        ("json", 2),
        ("json_array_length", 0),
        ("json_array_length", 3),
        ("json_error_position", 2),
        ("json_patch", 1),
        ("json_patch", 3),
        ("json_pretty", 3),
        ("json_quote", 0),
        ("json_quote", 2),
        ("json_type", 3),
        ("json_valid", 0),
        ("json_valid", 3),
    ] {
        o.check(f, &vec![t("[1]"); n]);
    }
    o.finish("values and special cases");
}

const KEYS: [&str; 10] = ["a", "b", "c", "ab", "x y", "a.b", "é", "k\"q", "", "A"];

fn gen_doc(rng: &mut SmallRng) -> Doc {
    let json5 = rng.gen_bool(0.3);
    let mut text = String::new();
    let mut paths = Vec::new();
    gen_value(rng, 0, json5, "$", &mut text, &mut paths);
    if rng.gen_bool(0.08) {
        // Damage it.
        let mut chars: Vec<char> = text.chars().collect();
        let at = rng.gen_range(0..=chars.len());
        if rng.gen_bool(0.5) && at < chars.len() {
            chars.remove(at);
        } else {
            let junk = [
                '{', '}', '[', ']', ',', ':', '"', '\'', '\\', ' ', 'x', '0', '.',
            ];
            chars.insert(at, junk[rng.gen_range(0..junk.len())]);
        }
        text = chars.into_iter().collect();
    }
    Doc { text, paths }
}

fn random_path(rng: &mut SmallRng, doc: &Doc) -> Arg {
    let base = doc.paths[rng.gen_range(0..doc.paths.len())].clone();
    let p = match rng.gen_range(0..10) {
        0 => format!("{base}[#]"),
        1 => format!("{base}[#-1]"),
        2 => format!("{base}.{}", KEYS[rng.gen_range(0..KEYS.len())]),
        3 => format!("{base}[{}]", rng.gen_range(0..4)),
        4 => format!("{base}.new[0].x"),
        5 if rng.gen_bool(0.3) => {
            ["$.", "$[", "x", "$[-1]", "$.a.", ""][rng.gen_range(0..6)].to_string()
        }
        _ => base,
    };
    t(&p)
}

fn random_value(rng: &mut SmallRng, docs: &[Doc]) -> Arg {
    match rng.gen_range(0..6) {
        0 => {
            let vals = values();
            vals[rng.gen_range(0..vals.len())].clone()
        }
        1 => i(rng.gen_range(-1000..1000)),
        2 => r(rng.gen_range(-1e6..1e6)),
        3 => j(&docs[rng.gen_range(0..docs.len())].text),
        4 => t(&docs[rng.gen_range(0..docs.len())].text),
        _ => t(KEYS[rng.gen_range(0..KEYS.len())]),
    }
}

#[test]
fn random_documents_match_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let mut o = Oracle::new();
    let docs: Vec<Doc> = (0..300).map(|_| gen_doc(&mut rng)).collect();
    for (n, doc) in docs.iter().enumerate() {
        let d = t(&doc.text);
        o.check("json", std::slice::from_ref(&d));
        o.check("json_valid", &[d.clone(), i(rng.gen_range(1..=3))]);
        o.check("json_error_position", std::slice::from_ref(&d));
        o.check("json_pretty", std::slice::from_ref(&d));
        let other = t(&docs[(n * 7 + 3) % docs.len()].text);
        o.check("json_patch", &[d.clone(), other.clone()]);
        o.check("json_patch", &[other, d.clone()]);
        for _ in 0..8 {
            let p = random_path(&mut rng, doc);
            let v = random_value(&mut rng, &docs);
            match rng.gen_range(0..12) {
                0 => o.check("json_extract", &[d.clone(), p]),
                1 => o.check("json_extract", &[d.clone(), p, random_path(&mut rng, doc)]),
                2 => o.check("->", &[d.clone(), p]),
                3 => o.check("->>", &[d.clone(), p]),
                4 => o.check("json_type", &[d.clone(), p]),
                5 => o.check("json_array_length", &[d.clone(), p]),
                6 => o.check("json_remove", &[d.clone(), p, random_path(&mut rng, doc)]),
                7 => o.check(
                    "json_set",
                    &[
                        d.clone(),
                        p,
                        v,
                        random_path(&mut rng, doc),
                        random_value(&mut rng, &docs),
                    ],
                ),
                8 => o.check("json_insert", &[d.clone(), p, v]),
                9 => o.check("json_replace", &[d.clone(), p, v]),
                10 => o.check("json_array", &[v, random_value(&mut rng, &docs)]),
                _ => o.check("json_object", &[t(KEYS[rng.gen_range(0..KEYS.len())]), v]),
            }
        }
    }
    o.finish("random documents");
}

/// One row of an aggregate test: label, value, value passed through json().
#[derive(Clone, Debug)]
struct Row(Value, Value, bool);

/// Runs `sql` (one result column per row) in SQLite over table t(i, k, v).
fn sqlite_rows(conn: &rusqlite::Connection, sql: &str) -> Result<Vec<Value>, String> {
    let mut stmt = conn.prepare(sql).map_err(sqlite_message)?;
    let rows = stmt
        .query_map([], |row| Ok(from_row(row, 0)))
        .map_err(sqlite_message)?;
    rows.collect::<Result<Vec<_>, _>>().map_err(sqlite_message)
}

/// Our aggregate over a window frame of `before` preceding and `after`
/// following rows (None: the whole table as one group).
fn our_rows(
    rows: &[Row],
    object: bool,
    jsonb: bool,
    frame: Option<(usize, usize)>,
) -> Result<Vec<Value>, String> {
    let mut group = GroupJson::new(object, jsonb);
    let step = |group: &mut GroupJson, row: &Row| -> Result<(), String> {
        let (v, json) = if row.2 {
            lookup("json")
                .ok_or("no json")?
                .call(std::slice::from_ref(&row.1), &[false])
                .map_err(our_message)?
        } else {
            (row.1.clone(), false)
        };
        let args = if object {
            vec![row.0.clone(), v]
        } else {
            vec![v]
        };
        group
            .step(&args, &[false, json][2 - args.len()..])
            .map_err(our_message)
    };
    let Some((before, after)) = frame else {
        for row in rows {
            step(&mut group, row)?;
        }
        return Ok(vec![group.value()]);
    };
    let mut out = Vec::new();
    let (mut start, mut end) = (0, 0);
    for r in 0..rows.len() {
        while end < rows.len() && end <= r + after {
            step(&mut group, &rows[end])?;
            end += 1;
        }
        while start + before < r {
            group.inverse();
            start += 1;
        }
        out.push(group.value());
    }
    Ok(out)
}

#[test]
fn aggregates_match_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = rusqlite::Connection::open_in_memory().expect("in-memory SQLite opens");
    let labels = [
        t("a"),
        t("b\"c"),
        null(),
        i(3),
        r(2.5),
        t("x\0y"),
        t(""),
        t("é\n"),
    ];
    let plain = [
        i(1),
        r(0.5),
        r(f64::INFINITY),
        t("s,t"),
        t("[\"q\\\"]"),
        null(),
        t("{}"),
        t("\\"),
        blob(&[0x13, b'5']),
        blob(&[0x2b, 0x17, b',']),
    ];
    let jsons = ["[1,\"a,b\"]", "{\"k\":[{}]}", "\"s\\\"t\"", "2", "{a:'x]'}"];
    let mut cases = 0;
    for round in 0..60 {
        let n = rng.gen_range(0..8);
        let rows: Vec<Row> = (0..n)
            .map(|_| {
                let k = labels[rng.gen_range(0..labels.len())].0.clone();
                match rng.gen_range(0..10) {
                    0 if round % 4 == 3 => Row(k, Value::Blob(vec![0x78]), false),
                    1..=3 => Row(
                        k,
                        Value::Text(jsons[rng.gen_range(0..jsons.len())].to_string()),
                        true,
                    ),
                    _ => Row(k, plain[rng.gen_range(0..plain.len())].0.clone(), false),
                }
            })
            .collect();
        conn.execute_batch(
            "DROP TABLE IF EXISTS t; CREATE TABLE t(i INTEGER PRIMARY KEY, k, v, j)",
        )
        .expect("table");
        for (idx, row) in rows.iter().enumerate() {
            conn.execute(
                "INSERT INTO t VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![idx as i64, to_sqlite(&row.0), to_sqlite(&row.1), row.2],
            )
            .expect("insert");
        }
        let arg = "CASE WHEN j THEN json(v) ELSE v END";
        for (object, jsonb) in [(false, false), (true, false), (false, true), (true, true)] {
            let b = if jsonb { "b" } else { "" };
            let call = if object {
                format!("json{b}_group_object(k, {arg})")
            } else {
                format!("json{b}_group_array({arg})")
            };
            let mut frames = vec![(None, format!("SELECT {call} FROM t"))];
            for (before, after) in [(0, 0), (1, 0), (2, 0), (1, 1), (0, 2), (3, 1)] {
                frames.push((
                    Some((before, after)),
                    format!(
                        "SELECT {call} OVER (ORDER BY i ROWS BETWEEN {before} PRECEDING AND {after} FOLLOWING) FROM t ORDER BY i"
                    ),
                ));
            }
            for (frame, sql) in frames {
                cases += 1;
                let theirs = sqlite_rows(&conn, &sql);
                let ours = our_rows(&rows, object, jsonb, frame);
                let agree = match (&theirs, &ours) {
                    (Ok(a), Ok(b)) => {
                        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
                    }
                    (Err(a), Err(b)) => a == b,
                    _ => false,
                };
                assert!(
                    agree,
                    "{sql}\nrows {rows:?}\n  sqlite: {theirs:?}\n  ours:   {ours:?}"
                );
            }
        }
    }
    println!("aggregates: {cases} queries compared with SQLite");
}

/// Random short texts over JSON's alphabet: the parser's error positions
/// and JSON5 corners.
#[test]
fn random_texts_match_sqlite() {
    const ALPHABET: &[u8] = b"{}[],:\"'\\ \t\n0123456789.eE+-xXabtrufalsnIiNy/*";
    let mut rng = SmallRng::seed_from_u64(seed());
    let mut o = Oracle::new();
    for _ in 0..3000 {
        let len = rng.gen_range(0..10);
        let text: String = (0..len)
            .map(|_| char::from(ALPHABET[rng.gen_range(0..ALPHABET.len())]))
            .collect();
        let d = t(&text);
        o.check("json", std::slice::from_ref(&d));
        o.check("json_error_position", std::slice::from_ref(&d));
        o.check("json_valid", &[d.clone(), i(1)]);
        o.check("json_valid", &[d.clone(), i(2)]);
        o.check(
            "json_extract",
            &[d.clone(), t(&format!("${}", &text[..len.min(4)]))],
        );
    }
    o.finish("random texts");
}

/// JSONB blobs made by SQLite's jsonb() from random documents, as they are
/// and damaged (a byte changed, dropped or added: SQLite's lazy checks).
#[test]
fn jsonb_blobs_match_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let mut o = Oracle::new();
    let docs: Vec<Doc> = (0..400).map(|_| gen_doc(&mut rng)).collect();
    for doc in &docs {
        let Ok(Value::Blob(mut b)) = crate::sql::values_vs_sqlite::sqlite_eval(
            &o.conn,
            "SELECT jsonb(?1)",
            &[Value::Text(doc.text.clone())],
        ) else {
            continue;
        };
        if rng.gen_bool(0.5) && !b.is_empty() {
            let at = rng.gen_range(0..b.len());
            match rng.gen_range(0..3) {
                0 => b[at] = rng.gen(),
                1 => {
                    b.remove(at);
                }
                _ => b.insert(at, rng.gen()),
            }
        }
        let blob = Arg(Value::Blob(b), false);
        let p = random_path(&mut rng, doc);
        let v = random_value(&mut rng, &docs);
        for f in [
            "json",
            "json_error_position",
            "json_pretty",
            "json_type",
            "json_array_length",
            "json_quote",
            "json_array",
        ] {
            o.check(f, std::slice::from_ref(&blob));
        }
        for flags in [i(1), i(2), i(4), i(8)] {
            o.check("json_valid", &[blob.clone(), flags]);
        }
        for f in [
            "json_extract",
            "->",
            "->>",
            "json_type",
            "json_array_length",
            "json_remove",
        ] {
            o.check(f, &[blob.clone(), p.clone()]);
        }
        o.check("json_set", &[blob.clone(), p.clone(), v.clone()]);
        o.check("json_insert", &[blob.clone(), p.clone(), v.clone()]);
        o.check("json_replace", &[blob.clone(), p.clone(), v]);
        o.check("json_set", &[t("{\"a\":[1]}"), t("$.a[0]"), blob.clone()]);
        o.check("json_object", &[t("k"), blob.clone()]);
        let other = t(&docs[rng.gen_range(0..docs.len())].text);
        o.check("json_patch", &[blob.clone(), other.clone()]);
        o.check("json_patch", &[other, blob]);
    }
    o.finish("JSONB blobs");
}

/// The deepest inputs (nesting 1000, JSONB as deep, paths creating 100000
/// levels) on a 128 KiB stack: every walk is iterative, so nesting costs
/// heap, not stack (a wasm32 stack is 1 MiB, shared with the executor).
#[test]
fn deep_nesting_runs_on_a_small_stack() {
    let deep_obj = format!("{}1{}", "{\"a\":".repeat(1000), "}".repeat(1000));
    let deep_arr = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
    let conn = rusqlite::Connection::open_in_memory().expect("in-memory SQLite opens");
    let jsonb = crate::sql::values_vs_sqlite::sqlite_eval(
        &conn,
        "SELECT jsonb(?1)",
        &[Value::Text(deep_obj.clone())],
    )
    .expect("SQLite makes JSONB");
    let expected_obj = crate::sql::values_vs_sqlite::sqlite_eval(
        &conn,
        "SELECT json(?1)",
        &[Value::Text(deep_obj.clone())],
    )
    .expect("SQLite reads it");
    let sqlite = |sql: &str, v: &Value| {
        crate::sql::values_vs_sqlite::sqlite_eval(&conn, sql, std::slice::from_ref(v)).ok()
    };
    let valid8 = sqlite("SELECT json_valid(?1, 8)", &jsonb);
    let error_position = sqlite("SELECT json_error_position(?1)", &jsonb);
    std::thread::Builder::new()
        .stack_size(128 << 10)
        .spawn(move || {
            let call = |name: &str, args: &[Value]| {
                lookup(name)
                    .expect("function exists")
                    .call(args, &vec![false; args.len()])
                    .map(|(v, _)| v)
            };
            let text = |s: &str| Value::Text(s.to_string());
            let obj = text(&deep_obj);
            assert_eq!(
                call("json_valid", &[text(&deep_arr)]).ok(),
                Some(Value::Integer(1))
            );
            assert_eq!(
                call("json", std::slice::from_ref(&obj)).ok(),
                Some(expected_obj.clone())
            );
            assert_eq!(
                call("json", std::slice::from_ref(&jsonb)).ok(),
                Some(expected_obj.clone())
            );
            assert!(call("json_pretty", std::slice::from_ref(&obj)).is_ok());
            assert_eq!(
                call("json_patch", &[obj.clone(), jsonb.clone()]).ok(),
                Some(expected_obj.clone())
            );
            assert_eq!(
                call("json_patch", &[text("1"), obj.clone()]).ok(),
                Some(expected_obj)
            );
            assert_eq!(
                call("json_valid", &[jsonb.clone(), Value::Integer(8)]).ok(),
                valid8
            );
            assert_eq!(
                call("json_error_position", std::slice::from_ref(&jsonb)).ok(),
                error_position
            );
            let too_deep = format!("[{deep_arr}]");
            assert!(call("json", &[text(&too_deep)]).is_err());
            // SQLite builds any depth along a path (its recursion is C's).
            let path = format!("${}", ".a".repeat(100_000));
            let Ok(Value::Text(built)) =
                call("json_set", &[text("{}"), text(&path), Value::Integer(1)])
            else {
                panic!("json_set builds the path");
            };
            assert_eq!(built.len(), 100_000 * 6 + 1);
            assert_eq!(
                call("json_extract", &[text(&built), text("$.a")]).ok(),
                None
            );
            assert!(call("json_pretty", &[jsonb.clone(), text("  ")]).is_ok());
        })
        .expect("thread starts")
        .join()
        .expect("no overflow on a small stack");
}
