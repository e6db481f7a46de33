//! Property tests on arbitrary input: the parser never panics, every error
//! is typed and positioned inside the text, and whatever parses renders
//! back to the same tree.

use proptest::prelude::*;

use super::statements::STATEMENTS;
use super::support::{assert_round_trip, shape};
use crate::error::Error;
use crate::sql::parser::{parse, parse_next};

/// Tokens (and fragments of tokens) to build streams from.
const VOCABULARY: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP",
    "BY",
    "ORDER",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "INSERT",
    "INTO",
    "VALUES",
    "UPDATE",
    "SET",
    "DELETE",
    "CREATE",
    "TABLE",
    "INDEX",
    "VIEW",
    "DROP",
    "ALTER",
    "ADD",
    "RENAME",
    "TO",
    "WITH",
    "RECURSIVE",
    "AS",
    "ON",
    "USING",
    "JOIN",
    "LEFT",
    "CROSS",
    "NATURAL",
    "UNION",
    "ALL",
    "EXCEPT",
    "INTERSECT",
    "DISTINCT",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "CAST",
    "EXISTS",
    "IN",
    "NOT",
    "NULL",
    "IS",
    "AND",
    "OR",
    "BETWEEN",
    "LIKE",
    "GLOB",
    "ESCAPE",
    "COLLATE",
    "ISNULL",
    "NOTNULL",
    "DISTINCT",
    "PRIMARY",
    "KEY",
    "UNIQUE",
    "CHECK",
    "DEFAULT",
    "REFERENCES",
    "CONFLICT",
    "DO",
    "NOTHING",
    "REPLACE",
    "RETURNING",
    "OVER",
    "PARTITION",
    "FILTER",
    "WINDOW",
    "ROWS",
    "RANGE",
    "PRECEDING",
    "FOLLOWING",
    "CURRENT",
    "ROW",
    "UNBOUNDED",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "RELEASE",
    "PRAGMA",
    "EXPLAIN",
    "QUERY",
    "PLAN",
    "TRUE",
    "FALSE",
    "a",
    "b",
    "t",
    "u",
    "\"q\"",
    "[b r]",
    "`x`",
    "count",
    "sum",
    "(",
    ")",
    ",",
    ";",
    ".",
    "*",
    "+",
    "-",
    "/",
    "%",
    "=",
    "==",
    "!=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "||",
    "<<",
    ">>",
    "&",
    "|",
    "~",
    "->",
    "->>",
    "?",
    "?3",
    ":p",
    "@p",
    "$p",
    "1",
    "0x1F",
    "2.5",
    ".5",
    "1e3",
    "9223372036854775808",
    "'s'",
    "'it''s'",
    "X'00'",
    "x'0'",
    "'unterminated",
    "/*",
    "--",
    "\n",
    "#",
    "!",
    "é",
];

fn token_stream() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCABULARY), 0..40)
        .prop_map(|tokens| tokens.join(" "))
}

/// Checks the contract on any input: no panic, errors positioned within the
/// text, and a round trip for everything that parses.
fn check(sql: &str) {
    match parse(sql) {
        Ok(statements) => {
            for statement in &statements {
                assert_round_trip(statement, sql);
            }
        }
        Err(Error::Syntax { position, message }) => {
            assert!(
                position <= sql.len(),
                "{message} at {position} > {}",
                sql.len()
            );
            assert!(sql.is_char_boundary(position));
        }
        Err(Error::Sql {
            position: Some(position),
            ..
        }) => assert!(position <= sql.len()),
        Err(other) => panic!("unexpected error kind for {sql:?}: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_token_streams_parse_or_fail_with_a_position(sql in token_stream()) {
        check(&sql);
    }

    #[test]
    fn random_text_parses_or_fails_with_a_position(sql in "\\PC{0,80}") {
        check(&sql);
    }

    #[test]
    fn random_bytes_parse_or_fail_with_a_position(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_statements_parse_or_fail_with_a_position(
        index in 0..STATEMENTS.len(),
        cut in 0usize..400,
        insert in prop::sample::select(VOCABULARY),
    ) {
        let sql = STATEMENTS[index];
        let mut at = cut.min(sql.len());
        while !sql.is_char_boundary(at) {
            at -= 1;
        }
        check(&sql[..at]);
        check(&format!("{} {insert} {}", &sql[..at], &sql[at..]));
    }
}

#[test]
fn parse_next_walks_a_script_like_parse() {
    let script = STATEMENTS.join(";\n");
    let all = parse(&script).expect("the statement list parses as a script");
    let mut offset = 0;
    let mut one_by_one = Vec::new();
    while let Some(parsed) = parse_next(&script, offset).expect("each statement parses") {
        assert!(parsed.start >= offset && parsed.end > parsed.start && parsed.end <= script.len());
        offset = parsed.end;
        one_by_one.push(parsed.statement);
    }
    assert_eq!(shape(&all), shape(&one_by_one));
    assert_eq!(all.len(), STATEMENTS.len());
}
