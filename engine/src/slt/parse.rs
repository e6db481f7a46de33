//! Parsing a sqllogictest file into records.
//!
//! A file is a sequence of records separated by one or more blank lines.
//! Lines are cut at `\n`, lose one trailing `\r`, and a line of only
//! whitespace is blank. A line starting with `#` is a comment and vanishes
//! before anything else looks at the file, even inside a record: it neither
//! ends a record nor becomes SQL or an expected value. These rules, and the
//! tokenising of a record's first line into whitespace-separated words
//! (extra words ignored), are those of the reference harness
//! (`sqllogictest.c`), so a file means the same thing to both.
//!
//! Parsing never fails as a whole: a record the harness would reject
//! (unknown record type, bad type letter, unknown sort mode) becomes
//! [`RecordKind::Invalid`], which the runner counts as one failure at that
//! line, unless a `skipif`/`onlyif` excludes it first, as in the harness.

/// How a query column's values are rendered: the letter in the type string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// `I`: as a C `int`.
    Integer,
    /// `R`: as a double with three decimals.
    Real,
    /// `T`: as text.
    Text,
}

impl ColumnType {
    fn from_letter(letter: char) -> Option<ColumnType> {
        match letter {
            'I' => Some(ColumnType::Integer),
            'R' => Some(ColumnType::Real),
            'T' => Some(ColumnType::Text),
            _ => None,
        }
    }
}

/// How a query's rendered values are ordered before comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortMode {
    /// Keep the engine's order.
    NoSort,
    /// Sort rows, column by column, byte-wise.
    RowSort,
    /// Sort all values as one flat list, byte-wise.
    ValueSort,
}

/// A `skipif <db>` or `onlyif <db>` line in front of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    SkipIf(String),
    OnlyIf(String),
}

/// A `query` record.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub types: Vec<ColumnType>,
    pub sort: SortMode,
    /// Queries sharing a label must give identical (sorted) results.
    pub label: Option<String>,
    pub sql: String,
    /// The lines after `----`: one value per line, or one hash line.
    pub expected: Vec<String>,
}

/// What a record asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordKind {
    /// `statement ok` / `statement error`: run every statement in `sql`.
    Statement {
        expect_error: bool,
        sql: String,
    },
    Query(Query),
    /// `hash-threshold N`, read like C's `atoi`; 0 or less means never hash.
    HashThreshold(i64),
    /// `halt`: stop processing the file.
    Halt,
    /// A record the harness rejects; `stops_file` when the harness also
    /// stops reading the file there (unknown record type, no type string).
    Invalid {
        message: String,
        stops_file: bool,
    },
}

/// One record, with the line number of its `statement`/`query`/... line.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub line: usize,
    pub conditions: Vec<Condition>,
    pub kind: RecordKind,
}

impl Record {
    /// Whether the record runs for `dialect`: no `skipif` names it and every
    /// `onlyif` does. Names compare case-insensitively.
    pub fn runs_on(&self, dialect: &str) -> bool {
        self.conditions.iter().all(|c| match c {
            Condition::SkipIf(name) => !name.eq_ignore_ascii_case(dialect),
            Condition::OnlyIf(name) => name.eq_ignore_ascii_case(dialect),
        })
    }
}

/// The file's lines after comment removal: (1-based line number, text),
/// with blank lines as empty text.
fn significant_lines(text: &str) -> Vec<(usize, &str)> {
    text.split('\n')
        .enumerate()
        .map(|(i, line)| (i + 1, line.strip_suffix('\r').unwrap_or(line)))
        .map(|(n, line)| {
            (
                n,
                if line.trim_start_matches(is_c_space).is_empty() {
                    ""
                } else {
                    line
                },
            )
        })
        .filter(|(_, line)| !line.starts_with('#'))
        .collect()
}

/// C's `isspace` in the "C" locale.
fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{0b}' | '\u{0c}' | '\r')
}

/// Parses a whole file.
pub fn parse(text: &str) -> Vec<Record> {
    let lines = significant_lines(text);
    let mut records = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].1.is_empty() {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && !lines[i].1.is_empty() {
            i += 1;
        }
        records.push(parse_record(&lines[start..i]));
    }
    records
}

/// Parses one record: its non-blank lines, at least one.
fn parse_record(lines: &[(usize, &str)]) -> Record {
    let mut conditions = Vec::new();
    let mut rest = lines;
    while let Some(((line, text), tail)) = rest.split_first() {
        let words: Vec<&str> = text.split(is_c_space).filter(|w| !w.is_empty()).collect();
        let name = words.get(1).map_or(String::new(), |w| w.to_string());
        match words.first().copied() {
            Some("skipif") => conditions.push(Condition::SkipIf(name)),
            Some("onlyif") => conditions.push(Condition::OnlyIf(name)),
            _ => {
                let kind = parse_kind(&words, tail);
                return Record {
                    line: *line,
                    conditions,
                    kind,
                };
            }
        }
        rest = tail;
    }
    // Only conditions: the harness reads the blank line after them as a
    // record of unknown (empty) type.
    let line = lines.last().map_or(0, |(n, _)| *n);
    let kind = invalid("a condition is not followed by a record", true);
    Record {
        line,
        conditions,
        kind,
    }
}

fn invalid(message: impl Into<String>, stops_file: bool) -> RecordKind {
    RecordKind::Invalid {
        message: message.into(),
        stops_file,
    }
}

/// Interprets a record from the words of its first line and its body lines.
fn parse_kind(words: &[&str], body: &[(usize, &str)]) -> RecordKind {
    let join =
        |lines: &[(usize, &str)]| lines.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n");
    match words.first().copied() {
        Some("statement") => match words.get(1).copied() {
            Some("ok") => RecordKind::Statement {
                expect_error: false,
                sql: join(body),
            },
            Some("error") => RecordKind::Statement {
                expect_error: true,
                sql: join(body),
            },
            other => invalid(
                format!("statement must be 'ok' or 'error', not {other:?}"),
                false,
            ),
        },
        Some("query") => parse_query(words, body, join),
        Some("hash-threshold") => {
            RecordKind::HashThreshold(c_atoi(words.get(1).copied().unwrap_or("")))
        }
        Some("halt") => RecordKind::Halt,
        other => invalid(
            format!("unknown record type {:?}", other.unwrap_or("")),
            true,
        ),
    }
}

fn parse_query(
    words: &[&str],
    body: &[(usize, &str)],
    join: impl Fn(&[(usize, &str)]) -> String,
) -> RecordKind {
    let letters = words.get(1).copied().unwrap_or("");
    if letters.is_empty() {
        return invalid("query without a type string", true);
    }
    let Some(types) = letters
        .chars()
        .map(ColumnType::from_letter)
        .collect::<Option<Vec<_>>>()
    else {
        return invalid(format!("unknown letter in type string {letters:?}"), false);
    };
    let sort = match words.get(2).copied() {
        None | Some("nosort") => SortMode::NoSort,
        Some("rowsort") => SortMode::RowSort,
        Some("valuesort") => SortMode::ValueSort,
        Some(other) => return invalid(format!("unknown sort mode {other:?}"), false),
    };
    let label = words.get(3).map(|w| w.to_string());
    let separator = body.iter().position(|(_, l)| *l == "----");
    let (sql, expected) = match separator {
        Some(at) => (
            join(&body[..at]),
            body[at + 1..].iter().map(|(_, l)| l.to_string()).collect(),
        ),
        None => (join(body), Vec::new()),
    };
    RecordKind::Query(Query {
        types,
        sort,
        label,
        sql,
        expected,
    })
}

/// C's `atoi`: optional leading spaces and sign, then digits; anything else
/// ends the number, and no digits at all is 0. Saturates instead of
/// overflowing.
fn c_atoi(text: &str) -> i64 {
    let text = text.trim_start_matches(is_c_space);
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |acc, d| {
            acc.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement(sql: &str) -> RecordKind {
        RecordKind::Statement {
            expect_error: false,
            sql: sql.to_string(),
        }
    }

    #[test]
    fn crlf_comments_and_whitespace_lines() {
        let text = "# header\r\nstatement ok\r\nCREATE TABLE t(a)\r\n# inside\r\n, b\r\n \t \r\n\r\nhalt\r\n";
        let records = parse(text);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].line, 2);
        assert_eq!(records[0].kind, statement("CREATE TABLE t(a)\n, b"));
        assert_eq!(records[1].line, 8);
        assert_eq!(records[1].kind, RecordKind::Halt);
    }

    #[test]
    fn query_with_types_sort_label_and_results() {
        let text = "query IRT rowsort label-7 extra\nSELECT 1,\n 2.0, 'x'\n----\n1\n2.000\nx\n\nquery I\nSELECT 1\n";
        let records = parse(text);
        let RecordKind::Query(q) = &records[0].kind else {
            panic!("not a query: {records:?}")
        };
        assert_eq!(
            q.types,
            vec![ColumnType::Integer, ColumnType::Real, ColumnType::Text]
        );
        assert_eq!(q.sort, SortMode::RowSort);
        assert_eq!(q.label.as_deref(), Some("label-7"));
        assert_eq!(q.sql, "SELECT 1,\n 2.0, 'x'");
        assert_eq!(q.expected, vec!["1", "2.000", "x"]);
        let RecordKind::Query(q) = &records[1].kind else {
            panic!("not a query: {records:?}")
        };
        assert_eq!(
            (q.sort, q.sql.as_str(), q.expected.len()),
            (SortMode::NoSort, "SELECT 1", 0)
        );
    }

    #[test]
    fn conditions_with_trailing_comments() {
        let text = "skipif mysql # not compatible\nonlyif SQLite\nstatement error\nSELECT x\n\nonlyif mssql\nhalt\n";
        let records = parse(text);
        assert_eq!(records[0].line, 3);
        assert_eq!(
            records[0].conditions,
            vec![
                Condition::SkipIf("mysql".into()),
                Condition::OnlyIf("SQLite".into())
            ]
        );
        assert!(records[0].runs_on("sqlite"));
        assert_eq!(records[1].kind, RecordKind::Halt);
        assert!(!records[1].runs_on("sqlite"));
        let skipped = parse("skipif sqlite\nhalt\n");
        assert!(!skipped[0].runs_on("sqlite"));
    }

    #[test]
    fn invalid_records() {
        let kinds: Vec<RecordKind> = parse("query IX\nSELECT 1\n\nquery I sideways\nSELECT 1\n\nfrobnicate\n\nstatement maybe\nSELECT 1\n")
            .into_iter()
            .map(|r| r.kind)
            .collect();
        let stops: Vec<Option<bool>> = kinds
            .iter()
            .map(|k| match k {
                RecordKind::Invalid { stops_file, .. } => Some(*stops_file),
                _ => None,
            })
            .collect();
        assert_eq!(
            stops,
            vec![Some(false), Some(false), Some(true), Some(false)]
        );
    }

    #[test]
    fn hash_threshold_reads_like_atoi() {
        let values: Vec<RecordKind> =
            parse("hash-threshold 12\n\nhash-threshold x\n\nhash-threshold -3abc\n")
                .into_iter()
                .map(|r| r.kind)
                .collect();
        assert_eq!(
            values,
            vec![
                RecordKind::HashThreshold(12),
                RecordKind::HashThreshold(0),
                RecordKind::HashThreshold(-3)
            ]
        );
    }
}
