//! Differential tests of the value rules against real SQLite (rusqlite,
//! bundled): random expressions over random values, evaluated by our
//! `value`, `functions` and `aggregate` modules and by `SELECT <expr>` with
//! the same values bound as parameters; results must agree exactly (storage
//! class and value; reals bit for bit).
//!
//! Seeded and reproducible: each test prints its seed; set
//! `TINYJOIN_SEED=<n>` to replay one.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rusqlite::types::Value as SqliteValue;

use crate::sql::value::{
    apply_affinity, bit_not, cast, compare_with_affinity, negate, Affinity, BinaryOp, Collation,
    Value,
};

/// The run's seed: `TINYJOIN_SEED` when set, else a random one; printed
/// so that a failing run can be replayed. Shared by the differential tests.
pub(crate) fn seed() -> u64 {
    let seed = std::env::var("TINYJOIN_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::thread_rng().gen());
    println!("seed = {seed} (replay with TINYJOIN_SEED={seed})");
    seed
}

pub(crate) fn to_sqlite(v: &Value) -> SqliteValue {
    match v {
        Value::Null => SqliteValue::Null,
        Value::Integer(i) => SqliteValue::Integer(*i),
        Value::Real(r) => SqliteValue::Real(*r),
        Value::Text(s) => SqliteValue::Text(s.clone()),
        Value::Blob(b) => SqliteValue::Blob(b.clone()),
    }
}

/// Reads column `i` of a row, keeping text bytes that are not UTF-8.
pub(crate) fn from_row(row: &rusqlite::Row<'_>, i: usize) -> Value {
    use rusqlite::types::ValueRef;
    match row.get_ref(i).expect("column exists") {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Integer(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) => Value::text_from_bytes(t),
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
    }
}

/// Exact equality: same storage class, reals compared by bits.
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

const NUMERIC_TEXTS: &[&str] = &[
    "12",
    " 12 ",
    "12abc",
    "abc",
    "",
    " ",
    "1e3",
    "1.5e2x",
    "0x10",
    "-0",
    "-0.0",
    "+5",
    ".5",
    "5.",
    "1e",
    "1.5e",
    "-",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999",
    "1e308",
    "1e309",
    "-1e400",
    "0.1",
    "3.0",
    "00012",
    "1.0",
    " 1e3 ",
    "12 x",
    "\t7\n",
    "1E+2",
    "1e-2",
    "123456789012345678",
    "0.30000000000000004",
    "NaN",
    "Inf",
    "12.7",
    "-12.7",
    "ABC",
    "aBc",
    "abc ",
    "1,5",
    "é",
    "ÉCOLE",
];

/// A random value biased towards SQLite's edge cases.
pub(crate) fn random_value(rng: &mut SmallRng) -> Value {
    match rng.gen_range(0..16) {
        0 => Value::Null,
        1 => Value::Integer(rng.gen_range(-10..=10)),
        2 => Value::Integer(
            *[
                i64::MAX,
                i64::MIN,
                i64::MAX - 1,
                i64::MIN + 1,
                1 << 53,
                (1 << 53) + 1,
                -(1 << 62),
            ]
            .get(rng.gen_range(0..7))
            .unwrap_or(&0),
        ),
        3 => Value::Integer(rng.gen()),
        4 => Value::Integer(rng.gen_range(-100_000..100_000)),
        5 => Value::Real(rng.gen_range(-1000.0..1000.0)),
        6 => Value::Real(f64::from_bits(rng.gen::<u64>())).filter_nan(),
        7 => Value::Real(
            *[
                0.0,
                -0.0,
                0.5,
                -0.5,
                1.5,
                2.5,
                1e20,
                -1e20,
                1e15,
                9.223372036854776e18,
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.1,
                1e-5,
                123.456,
            ]
            .get(rng.gen_range(0..15))
            .unwrap_or(&0.0),
        ),
        8 => Value::Real(rng.gen_range(-1e6f64..1e6).round() / 100.0),
        9..=11 => Value::Text(NUMERIC_TEXTS[rng.gen_range(0..NUMERIC_TEXTS.len())].to_string()),
        12 => Value::Text(format!("{}", rng.gen_range(-1e5f64..1e5))),
        13 => Value::Blob(
            NUMERIC_TEXTS[rng.gen_range(0..NUMERIC_TEXTS.len())]
                .as_bytes()
                .to_vec(),
        ),
        14 => Value::Blob(
            (0..rng.gen_range(0..4))
                .map(|_| rng.gen_range(0x20..0x7f))
                .collect(),
        ),
        _ => Value::Text(
            (0..rng.gen_range(0..6))
                .map(|_| char::from(rng.gen_range(b' '..b'~')))
                .collect::<String>(),
        ),
    }
}

trait FilterNan {
    fn filter_nan(self) -> Value;
}

impl FilterNan for Value {
    fn filter_nan(self) -> Value {
        match self {
            Value::Real(r) if r.is_nan() => Value::Real(1.0),
            other => other,
        }
    }
}

fn connection() -> rusqlite::Connection {
    rusqlite::Connection::open_in_memory().expect("in-memory SQLite opens")
}

/// Evaluates `sql` (one result column) with `params` bound in SQLite.
pub(crate) fn sqlite_eval(
    conn: &rusqlite::Connection,
    sql: &str,
    params: &[Value],
) -> Result<Value, String> {
    let mut stmt = conn.prepare_cached(sql).map_err(|e| e.to_string())?;
    let params: Vec<SqliteValue> = params.iter().map(to_sqlite).collect();
    stmt.query_row(rusqlite::params_from_iter(params), |row| {
        Ok(from_row(row, 0))
    })
    .map_err(|e| e.to_string())
}

const BINARY_OPS: &[(BinaryOp, &str)] = &[
    (BinaryOp::Add, "+"),
    (BinaryOp::Subtract, "-"),
    (BinaryOp::Multiply, "*"),
    (BinaryOp::Divide, "/"),
    (BinaryOp::Remainder, "%"),
    (BinaryOp::BitAnd, "&"),
    (BinaryOp::BitOr, "|"),
    (BinaryOp::ShiftLeft, "<<"),
    (BinaryOp::ShiftRight, ">>"),
    (BinaryOp::Concat, "||"),
];

#[test]
fn binary_operators_match_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    let mut failures = Vec::new();
    for _ in 0..6000 {
        let (op, sym) = BINARY_OPS[rng.gen_range(0..BINARY_OPS.len())];
        let a = random_value(&mut rng);
        let b = random_value(&mut rng);
        let ours = op.apply(&a, &b);
        let theirs = sqlite_eval(
            &conn,
            &format!("SELECT ?1 {sym} ?2"),
            &[a.clone(), b.clone()],
        )
        .expect("evaluates");
        if !same(&ours, &theirs) {
            failures.push(format!(
                "{a:?} {sym} {b:?}: ours {ours:?}, sqlite {theirs:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}

#[test]
fn unary_operators_casts_and_truth_match_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    let mut failures = Vec::new();
    let casts = [
        (Affinity::Integer, "INTEGER"),
        (Affinity::Real, "REAL"),
        (Affinity::Numeric, "NUMERIC"),
        (Affinity::Text, "TEXT"),
        (Affinity::Blob, "BLOB"),
    ];
    for _ in 0..4000 {
        let a = random_value(&mut rng);
        let mut check = |sql: &str, ours: Value| {
            let theirs = sqlite_eval(&conn, sql, std::slice::from_ref(&a)).expect("evaluates");
            if !same(&ours, &theirs) {
                failures.push(format!(
                    "{sql} with {a:?}: ours {ours:?}, sqlite {theirs:?}"
                ));
            }
        };
        check("SELECT -?1", negate(&a));
        check("SELECT ~?1", bit_not(&a));
        check("SELECT typeof(?1)", Value::Text(a.type_name().to_string()));
        let truth = match a.is_true() {
            None => Value::Null,
            Some(t) => Value::Integer(i64::from(t)),
        };
        check("SELECT CASE WHEN ?1 THEN 1 WHEN NOT ?1 THEN 0 END", truth);
        for (aff, name) in casts {
            check(&format!("SELECT CAST(?1 AS {name})"), cast(&a, aff));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}

const COLUMN_TYPES: &[&str] = &["INTEGER", "REAL", "NUMERIC", "TEXT", "BLOB"];

#[test]
fn column_affinity_on_store_matches_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    conn.execute_batch("CREATE TABLE t(i INTEGER, r REAL, n NUMERIC, t TEXT, b BLOB)")
        .expect("create");
    let mut failures = Vec::new();
    for _ in 0..3000 {
        let a = random_value(&mut rng);
        conn.execute("DELETE FROM t", []).expect("delete");
        conn.execute("INSERT INTO t VALUES (?1, ?1, ?1, ?1, ?1)", [to_sqlite(&a)])
            .expect("insert");
        let mut stmt = conn
            .prepare_cached("SELECT i, r, n, t, b FROM t")
            .expect("prepare");
        let row: Vec<Value> = stmt
            .query_row([], |row| Ok((0..5).map(|i| from_row(row, i)).collect()))
            .expect("row");
        for (i, declared) in COLUMN_TYPES.iter().enumerate() {
            let ours = apply_affinity(a.clone(), Affinity::from_declared_type(declared));
            if !same(&ours, &row[i]) {
                failures.push(format!(
                    "{a:?} into {declared}: ours {ours:?}, sqlite {:?}",
                    row[i]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}

#[test]
fn comparisons_with_affinity_and_collation_match_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    conn.execute_batch("CREATE TABLE t(i INTEGER, r REAL, n NUMERIC, t TEXT, b BLOB)")
        .expect("create");
    let collations = [
        (Collation::Binary, "BINARY"),
        (Collation::NoCase, "NOCASE"),
        (Collation::RTrim, "RTRIM"),
    ];
    let mut failures = Vec::new();
    for _ in 0..2000 {
        let a = random_value(&mut rng);
        let b = random_value(&mut rng);
        conn.execute("DELETE FROM t", []).expect("delete");
        conn.execute("INSERT INTO t VALUES (?1, ?1, ?1, ?1, ?1)", [to_sqlite(&a)])
            .expect("insert");
        let col = rng.gen_range(0..COLUMN_TYPES.len());
        let col2 = rng.gen_range(0..COLUMN_TYPES.len());
        let aff = Affinity::from_declared_type(COLUMN_TYPES[col]);
        let aff2 = Affinity::from_declared_type(COLUMN_TYPES[col2]);
        let stored = apply_affinity(a.clone(), aff);
        let stored2 = apply_affinity(a.clone(), aff2);
        let (coll, coll_name) = collations[rng.gen_range(0..3)];
        let name = ["i", "r", "n", "t", "b"][col];
        let name2 = ["i", "r", "n", "t", "b"][col2];
        for (op, sym) in [(0, "<"), (1, "="), (2, ">")] {
            let expect = |o: Option<std::cmp::Ordering>| match o {
                None => Value::Null,
                Some(o) => Value::Integer(i64::from(o as i32 == op - 1)),
            };
            let cases = [
                (
                    format!("SELECT {name} {sym} ?1 COLLATE {coll_name} FROM t"),
                    compare_with_affinity(&stored, Some(aff), &b, None, coll),
                ),
                (
                    format!("SELECT ?1 {sym} {name} COLLATE {coll_name} FROM t"),
                    compare_with_affinity(&b, None, &stored, Some(aff), coll),
                ),
                (
                    format!("SELECT {name} {sym} {name2} COLLATE {coll_name} FROM t"),
                    compare_with_affinity(&stored, Some(aff), &stored2, Some(aff2), coll),
                ),
                (
                    format!("SELECT ?1 {sym} ?2 COLLATE {coll_name}"),
                    compare_with_affinity(&a, None, &b, None, coll),
                ),
            ];
            for (sql, ours) in cases {
                let ours = expect(ours);
                let params = match (sql.contains("?1"), sql.contains("?2")) {
                    (_, true) => vec![a.clone(), b.clone()],
                    (true, false) => vec![b.clone()],
                    _ => vec![],
                };
                let theirs = sqlite_eval(&conn, &sql, &params).expect("evaluates");
                if !same(&ours, &theirs) {
                    failures.push(format!(
                        "{sql} with a={a:?} b={b:?}: ours {ours:?}, sqlite {theirs:?}"
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}

#[test]
fn real_rendering_matches_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    let mut failures = Vec::new();
    for i in 0..20000 {
        let r = match i % 4 {
            0 => f64::from_bits(rng.gen::<u64>()),
            1 => rng.gen_range(-1e6..1e6),
            2 => rng.gen_range(-1.0..1.0) * 10f64.powi(rng.gen_range(-30..30)),
            _ => (rng.gen_range(-1e9..1e9f64)).round() / 10f64.powi(rng.gen_range(0..8)),
        };
        if r.is_nan() {
            continue;
        }
        let v = Value::Real(r);
        let theirs = sqlite_eval(&conn, "SELECT CAST(?1 AS TEXT)", std::slice::from_ref(&v))
            .expect("evaluates");
        let ours = Value::Text(crate::sql::value::real_to_text(r));
        if !same(&ours, &theirs) {
            failures.push(format!("{r:e}: ours {ours:?}, sqlite {theirs:?}"));
        }
        // And back: text → real through SQLite's parser.
        if let Value::Text(text) = &theirs {
            let back = sqlite_eval(
                &conn,
                "SELECT CAST(?1 AS REAL)",
                std::slice::from_ref(&theirs),
            )
            .expect("evaluates");
            let ours_back = cast(&Value::Text(text.clone()), Affinity::Real);
            if !same(&ours_back, &back) {
                failures.push(format!(
                    "parse {text:?}: ours {ours_back:?}, sqlite {back:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}

const FORMATS: &[&str] = &[
    "%d",
    "%5d|%-5d|%05d",
    "%+d % d",
    "%,d",
    "%x %X %#x %#o %o",
    "%u",
    "%s|%10s|%-10s|%.2s",
    "%q|%Q|%w",
    "%c|%3c|%.3c",
    "%f",
    "%.2f",
    "%10.3f",
    "%-10.1f|",
    "%e",
    "%.3E",
    "%g",
    "%G",
    "%.10g",
    "%#g",
    "%!.20g",
    "%!.15g",
    "%.0f",
    "%,.2f",
    "%%|%5%",
    "%n%d",
    "%*d|%-*d",
    "%.*f",
    "%lld %ld",
    "%z",
    "%r",
    "%p",
    "%y after",
    "trailing %",
    "%5",
    "%!s %!.2s",
    "%08.3f",
    "%+.1e",
    "%.0e",
    "%#.0f",
    "%!f",
    "%.20f",
    "%40.30e",
];

const PATTERNS: &[&str] = &[
    "a%", "%b%", "_", "%", "", "a_c", "A%", "%é%", "[a-c]*", "*[^a]", "?b*", "*", "[]]*", "a*b?c",
    "%\\%%", "x_%_y", "[a-]", "12%", "%1", "*1*", "[0-9]*", "abc", "ABC",
];

/// Arguments biased towards what the function cares about.
fn function_arg(rng: &mut SmallRng, name: &str, position: usize) -> Value {
    match (name, position) {
        ("printf" | "format", 0) if rng.gen_bool(0.9) => {
            Value::Text(FORMATS[rng.gen_range(0..FORMATS.len())].to_string())
        }
        ("like" | "glob", 0) if rng.gen_bool(0.8) => {
            Value::Text(PATTERNS[rng.gen_range(0..PATTERNS.len())].to_string())
        }
        ("like", 2) if rng.gen_bool(0.8) => {
            Value::Text(["\\", "%", "_", "ab", ""][rng.gen_range(0..5)].to_string())
        }
        ("substr" | "substring" | "round", 1 | 2) if rng.gen_bool(0.8) => {
            Value::Integer(rng.gen_range(-6..8))
        }
        ("trim" | "ltrim" | "rtrim", 1) if rng.gen_bool(0.6) => {
            Value::Text(["ab", " ", "1", "xé", ""][rng.gen_range(0..5)].to_string())
        }
        ("unhex", 0) if rng.gen_bool(0.7) => Value::Text(
            ["414243", "41 42", "4", "zz", "4a-4B", ""][rng.gen_range(0..6)].to_string(),
        ),
        ("unhex", 1) => Value::Text([" ", "-", "", " -"][rng.gen_range(0..4)].to_string()),
        ("char", _) if rng.gen_bool(0.8) => Value::Integer(rng.gen_range(-1..0x200)),
        ("zeroblob", 0) => Value::Integer(rng.gen_range(-2..5)),
        ("replace" | "instr", _) if rng.gen_bool(0.5) => {
            Value::Text(["a", "b", "", "ab", "1"][rng.gen_range(0..5)].to_string())
        }
        _ => random_value(rng),
    }
}

const FUNCTIONS: &[(&str, usize, usize)] = &[
    ("abs", 1, 1),
    ("char", 0, 4),
    ("coalesce", 2, 4),
    ("concat", 1, 4),
    ("concat_ws", 2, 4),
    ("format", 1, 4),
    ("glob", 2, 2),
    ("hex", 1, 1),
    ("ifnull", 2, 2),
    ("iif", 3, 3),
    ("instr", 2, 2),
    ("length", 1, 1),
    ("like", 2, 3),
    ("lower", 1, 1),
    ("ltrim", 1, 2),
    ("max", 2, 4),
    ("min", 2, 4),
    ("nullif", 2, 2),
    ("octet_length", 1, 1),
    ("printf", 1, 4),
    ("quote", 1, 1),
    ("replace", 3, 3),
    ("round", 1, 2),
    ("rtrim", 1, 2),
    ("sign", 1, 1),
    ("substr", 2, 3),
    ("substring", 2, 3),
    ("trim", 1, 2),
    ("typeof", 1, 1),
    ("unhex", 1, 2),
    ("unicode", 1, 1),
    ("upper", 1, 1),
    ("zeroblob", 1, 1),
    ("likely", 1, 1),
    ("unlikely", 1, 1),
];

#[test]
fn scalar_functions_match_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    let mut failures = Vec::new();
    let mut checked = 0;
    for _ in 0..20000 {
        let (name, min, max) = FUNCTIONS[rng.gen_range(0..FUNCTIONS.len())];
        let n = rng.gen_range(min..=max);
        let args: Vec<Value> = (0..n).map(|i| function_arg(&mut rng, name, i)).collect();
        let huge_width = |v: &Value| v.to_i64().unsigned_abs() > 1000 || v.to_f64().abs() > 1000.0;
        if matches!(name, "printf" | "format") && args.iter().skip(1).any(huge_width) {
            continue; // `*` widths of billions: SQLite would build gigabyte strings
        }
        let placeholders: Vec<String> = (1..=n).map(|i| format!("?{i}")).collect();
        let sql = format!("SELECT {name}({})", placeholders.join(", "));
        let function = crate::sql::functions::scalar(name).expect("function exists");
        let ours = function.call(&args, Collation::Binary);
        let theirs = sqlite_eval(&conn, &sql, &args);
        checked += 1;
        let agree = match (&ours, &theirs) {
            (Ok(a), Ok(b)) => same(a, b),
            (Err(_), Err(_)) => true,
            _ => false,
        };
        if !agree {
            let mut message = format!("{sql} with {args:?}: ours {ours:?}, sqlite {theirs:?}");
            message.truncate(400);
            failures.push(message);
        }
    }
    println!("{checked} calls checked");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
}

#[test]
fn arity_errors_match_sqlite() {
    let conn = connection();
    for (name, min, max) in FUNCTIONS {
        for n in [min.saturating_sub(1), max + 1] {
            if (*min..=*max).contains(&n)
                || [
                    "char",
                    "coalesce",
                    "concat",
                    "concat_ws",
                    "format",
                    "printf",
                    "max",
                    "min",
                ]
                .contains(name)
            {
                continue;
            }
            let args: Vec<String> = (0..n).map(|_| "1".to_string()).collect();
            let sql = format!("SELECT {name}({})", args.join(", "));
            let theirs = conn.prepare(&sql).map(|_| ()).map_err(|e| e.to_string());
            let ours = crate::sql::functions::scalar(name)
                .expect("exists")
                .check_arity(n);
            assert_eq!(
                theirs.is_err(),
                ours.is_err(),
                "{sql}: sqlite {theirs:?}, ours {ours:?}"
            );
            if let (Err(t), Err(o)) = (theirs, ours) {
                assert!(
                    t.contains(&o.to_string()),
                    "{sql}: sqlite says {t:?}, we say {o}"
                );
            }
        }
    }
}

#[test]
fn aggregates_match_sqlite() {
    use crate::sql::aggregate::{lookup, Accumulator};
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    conn.execute_batch("CREATE TABLE t(x, s)").expect("create");
    let calls = [
        ("count(*)", "count", 0, false),
        ("count(x)", "count", 1, false),
        ("count(DISTINCT x)", "count", 1, true),
        ("sum(x)", "sum", 1, false),
        ("sum(DISTINCT x)", "sum", 1, true),
        ("total(x)", "total", 1, false),
        ("avg(x)", "avg", 1, false),
        ("avg(DISTINCT x)", "avg", 1, true),
        ("min(x)", "min", 1, false),
        ("max(x)", "max", 1, false),
        ("max(x COLLATE NOCASE)", "max", 1, false),
        ("group_concat(x)", "group_concat", 1, false),
        ("group_concat(DISTINCT x)", "group_concat", 1, true),
        ("group_concat(x, s)", "group_concat", 2, false),
        ("string_agg(x, s)", "string_agg", 2, false),
    ];
    let mut failures = Vec::new();
    for _ in 0..800 {
        conn.execute("DELETE FROM t", []).expect("delete");
        let n = rng.gen_range(0..8);
        let rows: Vec<(Value, Value)> = (0..n)
            .map(|_| {
                let x = if rng.gen_bool(0.3) {
                    Value::Integer(rng.gen_range(-3..4))
                } else {
                    random_value(&mut rng)
                };
                let s = [
                    Value::Null,
                    Value::Text("-".into()),
                    Value::Text("".into()),
                    Value::Integer(7),
                ][rng.gen_range(0..4)]
                .clone();
                (x, s)
            })
            .collect();
        for (x, s) in &rows {
            conn.execute(
                "INSERT INTO t VALUES (?1, ?2)",
                [to_sqlite(x), to_sqlite(s)],
            )
            .expect("insert");
        }
        for (sql, name, args, distinct) in calls {
            let collation = if sql.contains("NOCASE") {
                Collation::NoCase
            } else {
                Collation::Binary
            };
            let kind = lookup(name, args, distinct)
                .expect("valid")
                .expect("aggregate");
            let mut acc = Accumulator::new(kind, distinct, collation);
            let mut ours = Ok(());
            for (x, s) in &rows {
                let call_args = match args {
                    0 => vec![],
                    1 => vec![x.clone()],
                    _ => vec![x.clone(), s.clone()],
                };
                ours = ours.and_then(|()| acc.step(&call_args));
            }
            let ours = ours.and_then(|()| acc.finish());
            let theirs = sqlite_eval(&conn, &format!("SELECT {sql} FROM t"), &[]);
            let agree = match (&ours, &theirs) {
                (Ok(a), Ok(b)) => same(a, b),
                (Err(_), Err(_)) => true,
                _ => false,
            };
            if !agree {
                failures.push(format!(
                    "{sql} over {rows:?}: ours {ours:?}, sqlite {theirs:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[test]
fn decimal_text_parsing_matches_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    let mut failures = Vec::new();
    let mut differs_from_rust = 0;
    for _ in 0..20000 {
        let digits: String = (0..rng.gen_range(1..22))
            .map(|_| char::from(b'0' + rng.gen_range(0..10)))
            .collect();
        let point = rng.gen_range(0..=digits.len());
        let mut text = format!("{}.{}", &digits[..point], &digits[point..]);
        if rng.gen_bool(0.5) {
            text.push_str(&format!("e{}", rng.gen_range(-330..310)));
        }
        let v = Value::Text(text.clone());
        let theirs = sqlite_eval(&conn, "SELECT CAST(?1 AS REAL)", std::slice::from_ref(&v))
            .expect("evaluates");
        let ours = cast(&v, Affinity::Real);
        if !same(&ours, &theirs) {
            failures.push(format!("{text}: ours {ours:?}, sqlite {theirs:?}"));
        }
        if text
            .parse::<f64>()
            .ok()
            .map(Value::Real)
            .is_some_and(|r| !same(&r, &theirs))
        {
            differs_from_rust += 1;
        }
    }
    println!(
        "{differs_from_rust} of 20000 texts parse differently with Rust's correctly rounded parser"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[test]
fn sliding_window_aggregates_match_sqlite() {
    use crate::sql::aggregate::{lookup, Accumulator};
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    conn.execute_batch("CREATE TABLE t(x, s)").expect("create");
    let calls = [
        ("count(x)", "count", 1),
        ("sum(x)", "sum", 1),
        ("total(x)", "total", 1),
        ("avg(x)", "avg", 1),
        ("group_concat(x)", "group_concat", 1),
        ("group_concat(x, s)", "group_concat", 2),
    ];
    let mut failures = Vec::new();
    for _ in 0..300 {
        conn.execute("DELETE FROM t", []).expect("delete");
        let n = rng.gen_range(1..8);
        let rows: Vec<(Value, Value)> = (0..n)
            .map(|_| {
                let x = if rng.gen_bool(0.5) {
                    Value::Integer(rng.gen_range(-3..4))
                } else {
                    random_value(&mut rng)
                };
                let s = [Value::Null, Value::Text("-".into()), Value::Text("".into())]
                    [rng.gen_range(0..3)]
                .clone();
                (x, s)
            })
            .collect();
        for (x, s) in &rows {
            conn.execute(
                "INSERT INTO t VALUES (?1, ?2)",
                [to_sqlite(x), to_sqlite(s)],
            )
            .expect("insert");
        }
        for (sql, name, args) in calls {
            let query = format!("SELECT {sql} OVER (ORDER BY rowid ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t");
            let mut stmt = conn.prepare(&query).expect("prepare");
            let theirs: Vec<Result<Value, String>> =
                match stmt.query_map([], |row| Ok(from_row(row, 0))) {
                    Ok(iter) => iter.map(|r| r.map_err(|e| e.to_string())).collect(),
                    Err(e) => vec![Err(e.to_string())],
                };
            let kind = lookup(name, args, false)
                .expect("valid")
                .expect("aggregate");
            let mut acc = Accumulator::new(kind, false, Collation::Binary);
            let call = |(x, s): &(Value, Value)| {
                if args == 1 {
                    vec![x.clone()]
                } else {
                    vec![x.clone(), s.clone()]
                }
            };
            let mut ours = Vec::new();
            for (i, row) in rows.iter().enumerate() {
                if i >= 2 {
                    acc.inverse(&call(&rows[i - 2])).expect("inverse");
                }
                acc.step(&call(row)).expect("step");
                ours.push(acc.value().map_err(|e| e.to_string()));
            }
            let agree = theirs.iter().zip(&ours).all(|(t, o)| match (t, o) {
                (Ok(a), Ok(b)) => same(a, b),
                (Err(_), Err(_)) => true,
                _ => false,
            }) && (theirs.len() == ours.len() || theirs.iter().any(Result::is_err));
            if !agree {
                failures.push(format!(
                    "{sql} over {rows:?}: ours {ours:?}, sqlite {theirs:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

#[test]
fn date_time_functions_match_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    let bases = [
        "2024-02-29",
        "2024-01-31 10:00:00",
        "2000-01-01T12:34:56.789",
        "12:30",
        "12:30:45.5",
        "2024-03-10 23:59:59.999+05:30",
        "2024-03-10 01:00Z",
        "-0044-03-15",
        "9999-12-31 23:59:59",
        "0000-01-01",
        "2460000.5",
        "1700000000",
        "abc",
        "2024-13-01",
        "2024-02-30",
        "2023-02-29 00:00",
        " 2024-01-01",
        "2024-01-01 ",
        "2024-05-05 24:00",
        "1970-01-01 00:00:00 -02:00",
    ];
    let modifiers = [
        "+1 day",
        "-3 months",
        "+1.5 hours",
        "start of month",
        "start of year",
        "start of day",
        "weekday 0",
        "weekday 3",
        "unixepoch",
        "julianday",
        "auto",
        "subsec",
        "+10:30",
        "-01:00:30.5",
        "+0001-02-03",
        "-0000-11-00 12:00",
        "ceiling",
        "floor",
        "+1 month",
        "+12 years",
        "utc",
        "localtime",
        "bogus",
        "+5 seconds",
        "-100 minutes",
        "+2 days ",
        "+1 mons",
        "-1.25 years",
        "+400000 days",
        "weekday 7",
        "start of week",
    ];
    let formats = [
        "%Y-%m-%d %H:%M:%f",
        "%j %J %s",
        "%w %u %U %W %V %G %g",
        "%e|%k|%l|%I|%p|%P",
        "%R %T %F %%",
        "%Q",
        "",
        "x%",
    ];
    let functions = [
        "timediff",
        "date",
        "time",
        "datetime",
        "julianday",
        "unixepoch",
        "strftime",
    ];
    let mut failures = Vec::new();
    for _ in 0..6000 {
        let name = functions[rng.gen_range(0..functions.len())];
        let mut args = Vec::new();
        if name == "strftime" {
            args.push(Value::Text(
                formats[rng.gen_range(0..formats.len())].to_string(),
            ));
        }
        args.push(match rng.gen_range(0..6) {
            0 => Value::Integer(rng.gen_range(-1_000_000_000..4_000_000_000)),
            1 => Value::Real(rng.gen_range(0.0..5_000_000.0)),
            2 => Value::Text(format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
                rng.gen_range(0..10000),
                rng.gen_range(1..13),
                rng.gen_range(1..32),
                rng.gen_range(0..24),
                rng.gen_range(0..60),
                rng.gen_range(0..60)
            )),
            _ => Value::Text(bases[rng.gen_range(0..bases.len())].to_string()),
        });
        if name == "timediff" {
            args.push(Value::Text(format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}",
                rng.gen_range(0..10000),
                rng.gen_range(1..13),
                rng.gen_range(1..32),
                rng.gen_range(0..24),
                rng.gen_range(0..60),
                rng.gen_range(0..60),
                rng.gen_range(0..1000)
            )));
        } else {
            for _ in 0..rng.gen_range(0..3) {
                args.push(Value::Text(
                    modifiers[rng.gen_range(0..modifiers.len())].to_string(),
                ));
            }
        }
        let placeholders: Vec<String> = (1..=args.len()).map(|i| format!("?{i}")).collect();
        let sql = format!("SELECT {name}({})", placeholders.join(", "));
        let ours = crate::sql::functions::scalar(name)
            .expect("exists")
            .call(&args, Collation::Binary);
        let theirs = sqlite_eval(&conn, &sql, &args);
        let agree = match (&ours, &theirs) {
            (Ok(a), Ok(b)) => same(a, b),
            (Err(_), Err(_)) => true,
            _ => false,
        };
        if !agree {
            failures.push(format!(
                "{sql} with {args:?}: ours {ours:?}, sqlite {theirs:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(25)].join("\n")
    );
}

/// A random expression over parameters, for the nested-expression test.
enum Expr {
    Param(usize),
    Binary(BinaryOp, &'static str, Box<Expr>, Box<Expr>),
    Negate(Box<Expr>),
    BitNot(Box<Expr>),
    Cast(Box<Expr>, Affinity, &'static str),
    Compare(&'static str, Box<Expr>, Box<Expr>),
    Call(&'static str, Vec<Expr>),
}

const NESTED_FUNCTIONS: &[(&str, usize)] = &[
    ("abs", 1),
    ("length", 1),
    ("lower", 1),
    ("upper", 1),
    ("substr", 3),
    ("trim", 1),
    ("replace", 3),
    ("instr", 2),
    ("hex", 1),
    ("quote", 1),
    ("round", 2),
    ("coalesce", 2),
    ("nullif", 2),
    ("iif", 3),
    ("typeof", 1),
    ("max", 2),
    ("min", 2),
    ("printf", 2),
    ("like", 2),
    ("sign", 1),
    ("unicode", 1),
    ("char", 1),
    ("ifnull", 2),
    ("concat", 2),
];

fn random_expr(rng: &mut SmallRng, depth: u32, params: &mut Vec<Value>) -> Expr {
    if depth == 0 || rng.gen_bool(0.3) {
        params.push(random_value(rng));
        return Expr::Param(params.len());
    }
    let mut sub = |rng: &mut SmallRng| Box::new(random_expr(rng, depth - 1, params));
    match rng.gen_range(0..10) {
        0..=3 => {
            let (op, sym) = BINARY_OPS[rng.gen_range(0..BINARY_OPS.len())];
            Expr::Binary(op, sym, sub(rng), sub(rng))
        }
        4 => Expr::Negate(sub(rng)),
        5 => Expr::BitNot(sub(rng)),
        6 => {
            let (aff, name) = [
                (Affinity::Integer, "INTEGER"),
                (Affinity::Real, "REAL"),
                (Affinity::Numeric, "NUMERIC"),
                (Affinity::Text, "TEXT"),
                (Affinity::Blob, "BLOB"),
            ][rng.gen_range(0..5)];
            Expr::Cast(sub(rng), aff, name)
        }
        7 => Expr::Compare(
            ["<", "=", ">", "<=", ">=", "!="][rng.gen_range(0..6)],
            sub(rng),
            sub(rng),
        ),
        _ => {
            let (name, n) = NESTED_FUNCTIONS[rng.gen_range(0..NESTED_FUNCTIONS.len())];
            Expr::Call(name, (0..n).map(|_| *sub(rng)).collect())
        }
    }
}

impl Expr {
    fn sql(&self) -> String {
        match self {
            Expr::Param(i) => format!("?{i}"),
            Expr::Binary(_, sym, a, b) => format!("({} {sym} {})", a.sql(), b.sql()),
            Expr::Negate(a) => format!("(- {})", a.sql()),
            Expr::BitNot(a) => format!("(~ {})", a.sql()),
            Expr::Cast(a, _, name) => format!("CAST({} AS {name})", a.sql()),
            Expr::Compare(op, a, b) => format!("({} {op} {})", a.sql(), b.sql()),
            Expr::Call(name, args) => {
                format!(
                    "{name}({})",
                    args.iter().map(Expr::sql).collect::<Vec<_>>().join(", ")
                )
            }
        }
    }

    /// Whether a `char()` in the tree is given a UTF-16 surrogate code
    /// point. SQLite writes one as three ill-formed bytes; our text is
    /// always UTF-8 and holds U+FFFD instead (a documented difference).
    fn chars_a_surrogate(&self, params: &[Value]) -> bool {
        match self {
            Expr::Param(_) => false,
            Expr::Binary(_, _, a, b) | Expr::Compare(_, a, b) => {
                a.chars_a_surrogate(params) || b.chars_a_surrogate(params)
            }
            Expr::Negate(a) | Expr::BitNot(a) | Expr::Cast(a, _, _) => a.chars_a_surrogate(params),
            Expr::Call(name, args) => args.iter().any(|a| {
                a.chars_a_surrogate(params)
                    || (*name == "char"
                        && a.eval(params)
                            .is_ok_and(|v| (0xd800..=0xdfff).contains(&v.to_i64())))
            }),
        }
    }

    /// The expression's affinity for comparisons: a CAST has its type's.
    fn affinity(&self) -> Option<Affinity> {
        match self {
            Expr::Cast(_, aff, _) => Some(*aff),
            _ => None,
        }
    }

    fn eval(&self, params: &[Value]) -> crate::Result<Value> {
        Ok(match self {
            Expr::Param(i) => params[i - 1].clone(),
            Expr::Binary(op, _, a, b) => op.apply(&a.eval(params)?, &b.eval(params)?),
            Expr::Negate(a) => negate(&a.eval(params)?),
            Expr::BitNot(a) => bit_not(&a.eval(params)?),
            Expr::Cast(a, aff, _) => cast(&a.eval(params)?, *aff),
            Expr::Compare(op, a, b) => {
                let (x, y) = (a.eval(params)?, b.eval(params)?);
                match compare_with_affinity(&x, a.affinity(), &y, b.affinity(), Collation::Binary) {
                    None => Value::Null,
                    Some(o) => Value::Integer(i64::from(match *op {
                        "<" => o.is_lt(),
                        "=" => o.is_eq(),
                        ">" => o.is_gt(),
                        "<=" => o.is_le(),
                        ">=" => o.is_ge(),
                        _ => o.is_ne(),
                    })),
                }
            }
            // SQLite evaluates these lazily (an error in an unused argument
            // never happens), as the executor must.
            Expr::Call("coalesce" | "ifnull", args) => {
                for a in args {
                    let v = a.eval(params)?;
                    if !v.is_null() {
                        return Ok(v);
                    }
                }
                Value::Null
            }
            Expr::Call("iif", args) => {
                if args[0].eval(params)?.is_true() == Some(true) {
                    args[1].eval(params)?
                } else {
                    args[2].eval(params)?
                }
            }
            Expr::Call(name, args) => {
                let values = args
                    .iter()
                    .map(|a| a.eval(params))
                    .collect::<crate::Result<Vec<_>>>()?;
                crate::sql::functions::scalar(name)
                    .expect("exists")
                    .call(&values, Collation::Binary)?
            }
        })
    }
}

#[test]
fn nested_expressions_match_sqlite() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    let mut failures = Vec::new();
    for _ in 0..5000 {
        let mut params = Vec::new();
        let expr = random_expr(&mut rng, 3, &mut params);
        if params.len() > 20 || expr.chars_a_surrogate(&params) {
            continue;
        }
        let sql = format!("SELECT {}", expr.sql());
        let ours = expr.eval(&params);
        let theirs = sqlite_eval(&conn, &sql, &params);
        let agree = match (&ours, &theirs) {
            (Ok(a), Ok(b)) => same(a, b),
            (Err(_), Err(_)) => true,
            _ => false,
        };
        if !agree {
            let mut message = format!("{sql} with {params:?}: ours {ours:?}, sqlite {theirs:?}");
            message.truncate(600);
            failures.push(message);
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(15)].join("\n")
    );
}

#[test]
fn index_key_order_matches_sqlite_order_by() {
    use crate::sql::keycode::{encode_key, KeyColumn};
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = connection();
    conn.execute_batch("CREATE TABLE t(a, b)").expect("create");
    let collations = [
        (Collation::Binary, "BINARY"),
        (Collation::NoCase, "NOCASE"),
        (Collation::RTrim, "RTRIM"),
    ];
    for _ in 0..200 {
        conn.execute("DELETE FROM t", []).expect("delete");
        let rows: Vec<(Value, Value)> = (0..rng.gen_range(2..30))
            .map(|_| {
                let mut v = || match rng.gen_range(0..4) {
                    0 => Value::Text(
                        ["a", "A", "a ", "b", "B", "", " "][rng.gen_range(0..7)].to_string(),
                    ),
                    1 => Value::Integer(rng.gen_range(-2..3)),
                    2 => Value::Real(
                        [0.5, -0.0, 1.0, 9.007199254740993e15, 1e300][rng.gen_range(0..5)],
                    ),
                    _ => random_value(&mut rng),
                };
                (v(), v())
            })
            .collect();
        for (a, b) in &rows {
            conn.execute(
                "INSERT INTO t VALUES (?1, ?2)",
                [to_sqlite(a), to_sqlite(b)],
            )
            .expect("insert");
        }
        let (c1, n1) = collations[rng.gen_range(0..3)];
        let (c2, n2) = collations[rng.gen_range(0..3)];
        let (d1, d2) = (rng.gen_bool(0.5), rng.gen_bool(0.5));
        let dir = |d: bool| if d { "DESC" } else { "ASC" };
        let sql = format!(
            "SELECT a, b FROM t ORDER BY a COLLATE {n1} {}, b COLLATE {n2} {}",
            dir(d1),
            dir(d2)
        );
        let mut stmt = conn.prepare(&sql).expect("prepare");
        let theirs: Vec<(Value, Value)> = stmt
            .query_map([], |row| Ok((from_row(row, 0), from_row(row, 1))))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect();
        let columns = [
            KeyColumn {
                desc: d1,
                collation: c1,
            },
            KeyColumn {
                desc: d2,
                collation: c2,
            },
        ];
        let key = |(a, b): &(Value, Value)| encode_key(&[a.clone(), b.clone()], &columns);
        // SQLite's sort is not stable on ties, so compare the key sequence.
        let their_keys: Vec<Vec<u8>> = theirs.iter().map(key).collect();
        let mut our_keys: Vec<Vec<u8>> = rows.iter().map(key).collect();
        our_keys.sort();
        assert_eq!(our_keys, their_keys, "{sql} over {rows:?}");
    }
}
