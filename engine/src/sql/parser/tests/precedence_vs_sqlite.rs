//! Operator precedence against SQLite itself: random expressions are
//! written as flat text (no parentheses beyond the ones generated), parsed
//! by us, written back with every operator node parenthesised, and both
//! texts are evaluated by SQLite. If our grouping differs from SQLite's, the
//! two results differ (the generator mixes operators whose regroupings give
//! different values). Seeded and reproducible: set `TINYJOIN_SEED=<n>`.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rusqlite::types::Value as SqliteValue;

use super::support::{grouped, parenthesised_statement};
use crate::sql::values_vs_sqlite::seed;

const OPERANDS: &[&str] = &[
    "0", "1", "2", "3", "-1", "NULL", "'a'", "'B'", "1.5", "x", "y", "''", "'1'",
];
const BINARY: &[&str] = &[
    "OR",
    "AND",
    "=",
    "==",
    "!=",
    "<>",
    "IS",
    "IS NOT",
    "IS DISTINCT FROM",
    "IS NOT DISTINCT FROM",
    "<",
    "<=",
    ">",
    ">=",
    "&",
    "|",
    "<<",
    ">>",
    "+",
    "-",
    "*",
    "/",
    "%",
    "||",
];
const PREFIX: &[&str] = &["- ", "+", "~", "NOT "];
const POSTFIX: &[&str] = &[
    "ISNULL",
    "NOTNULL",
    "NOT NULL",
    "IS NULL",
    "IS NOT NULL",
    "COLLATE NOCASE",
];

/// A random expression as flat text.
fn generate(rng: &mut SmallRng, depth: u32) -> String {
    if depth == 0 || rng.gen_bool(0.25) {
        return OPERANDS[rng.gen_range(0..OPERANDS.len())].to_string();
    }
    let sub = |rng: &mut SmallRng| generate(rng, depth - 1);
    match rng.gen_range(0..20) {
        0..=7 => {
            let (a, b) = (sub(rng), sub(rng));
            format!("{a} {} {b}", BINARY[rng.gen_range(0..BINARY.len())])
        }
        8 | 9 => format!("{}{}", PREFIX[rng.gen_range(0..PREFIX.len())], sub(rng)),
        10 => format!("{} {}", sub(rng), POSTFIX[rng.gen_range(0..POSTFIX.len())]),
        11 => {
            let (a, b, c) = (sub(rng), sub(rng), sub(rng));
            format!(
                "{a} {}BETWEEN {b} AND {c}",
                if rng.gen_bool(0.5) { "NOT " } else { "" }
            )
        }
        12 => {
            let (a, b, c) = (sub(rng), sub(rng), sub(rng));
            format!(
                "{a} {}IN ({b}, {c})",
                if rng.gen_bool(0.5) { "NOT " } else { "" }
            )
        }
        13 => {
            let (a, b) = (sub(rng), sub(rng));
            let op = ["LIKE", "NOT LIKE", "GLOB", "NOT GLOB"][rng.gen_range(0..4)];
            format!("{a} {op} {b}")
        }
        14 => format!("({})", sub(rng)),
        15 => {
            let (a, b, c) = (sub(rng), sub(rng), sub(rng));
            format!("CASE WHEN {a} THEN {b} ELSE {c} END")
        }
        16 => format!("CAST({} AS INTEGER)", sub(rng)),
        17 => format!("coalesce({}, {})", sub(rng), sub(rng)),
        _ => {
            let (a, b) = (sub(rng), sub(rng));
            format!(
                "{a} {} {b}",
                ["AND", "OR", "=", "<", "+", "*", "||"][rng.gen_range(0..7)]
            )
        }
    }
}

fn eval(conn: &rusqlite::Connection, expr: &str) -> Result<SqliteValue, String> {
    conn.query_row(&format!("SELECT {expr} FROM v"), [], |row| {
        row.get::<_, SqliteValue>(0)
    })
    .map_err(|e| e.to_string())
}

const ROUNDS: usize = 10_000;

#[test]
fn grouping_matches_sqlite_on_random_expressions() {
    let mut rng = SmallRng::seed_from_u64(seed());
    let conn = rusqlite::Connection::open_in_memory().expect("sqlite opens");
    conn.execute_batch("CREATE TABLE v(x, y); INSERT INTO v VALUES (2, 'b');")
        .expect("setup");
    let (mut compared, mut sqlite_rejects) = (0, 0);
    for _ in 0..ROUNDS {
        let depth = rng.gen_range(1..6);
        let text = generate(&mut rng, depth);
        let expected = match eval(&conn, &text) {
            Ok(value) => value,
            Err(e) => {
                // Whatever SQLite cannot parse, we must not parse either.
                if e.contains("syntax error") || e.contains("incomplete input") {
                    let ours = parenthesised_statement(&format!("SELECT {text}"));
                    assert!(
                        ours.is_err(),
                        "SQLite rejects `{text}` ({e}) but we parse it as {ours:?}"
                    );
                }
                sqlite_rejects += 1;
                continue;
            }
        };
        let ours = parenthesised_statement(&format!("SELECT {text}"))
            .unwrap_or_else(|e| panic!("SQLite accepts `{text}` but we do not: {e}"));
        let ours = ours.strip_prefix("SELECT ").expect("a select");
        let actual = eval(&conn, ours)
            .unwrap_or_else(|e| panic!("our grouping `{ours}` of `{text}` fails: {e}"));
        assert_eq!(
            actual,
            expected,
            "`{text}` grouped by us as `{ours}` ({})",
            grouped(&text)
        );
        compared += 1;
    }
    println!("compared {compared} expressions; {sqlite_rejects} rejected by SQLite");
    assert!(compared > ROUNDS * 3 / 4);
}
