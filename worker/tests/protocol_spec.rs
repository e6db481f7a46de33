//! Keeps worker/PROTOCOL.md, the Rust mirror (src/protocol/) and the golden
//! vectors (protocol-vectors.txt, also checked by the TypeScript mirror's
//! tests) in agreement. Set UPDATE_PROTOCOL_VECTORS=1 to rewrite the vectors
//! after a deliberate change (which must also bump PROTOCOL_VERSION).

use tinyjoin_worker::protocol::*;

const SPEC: &str = include_str!("../PROTOCOL.md");
const VECTORS_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/protocol-vectors.txt");

/// The rows of the markdown table under `heading`, as trimmed cells.
fn table(heading: &str) -> Vec<Vec<String>> {
    let start = SPEC
        .find(heading)
        .unwrap_or_else(|| panic!("PROTOCOL.md has no {heading}"));
    SPEC[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

fn hex_u8(s: &str) -> u8 {
    u8::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("bad kind {s}"))
}

#[test]
fn kinds_table_matches_the_code() {
    let doc: Vec<(String, u8)> = table("## Kinds")
        .iter()
        .map(|r| (r[1].clone(), hex_u8(&r[0])))
        .collect();
    let code: Vec<(String, u8)> = kind::ALL.iter().map(|(n, k)| (n.to_string(), *k)).collect();
    assert_eq!(doc, code);
}

#[test]
fn value_tags_table_matches_the_code() {
    let doc: Vec<(String, u8)> = table("## Values")
        .iter()
        .map(|r| (r[1].clone(), r[0].parse().expect("tag")))
        .collect();
    let code: Vec<(String, u8)> = tag::ALL.iter().map(|(n, t)| (n.to_string(), *t)).collect();
    assert_eq!(doc, code);
}

#[test]
fn error_codes_table_matches_the_code() {
    let doc: Vec<String> = table("## Error codes")
        .iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(
        doc,
        code::ALL.iter().map(|c| c.to_string()).collect::<Vec<_>>()
    );
}

#[test]
fn envelope_table_matches_the_code() {
    let rows = table("## Envelope");
    assert!(
        rows[1][3].contains(&format!("now `{PROTOCOL_VERSION}`")),
        "{}",
        rows[1][3]
    );
    assert!(
        rows[0][3].contains(&format!("0x{MAGIC:02X}")),
        "{}",
        rows[0][3]
    );
}

fn vectors() -> Vec<(&'static str, Vec<u8>)> {
    let env = Envelope {
        epoch: 3,
        client: "c-1".into(),
        request: 258,
    };
    let rs = ResultSet {
        columns: vec!["id".to_string(), "name".to_string()].into(),
        rows: vec![
            vec![WireValue::Integer(1), WireValue::Text("é".into())],
            vec![WireValue::Real(-0.5), WireValue::Blob(vec![0xde, 0xad])],
        ],
        changes: 1,
        last_insert_rowid: 9_007_199_254_740_993,
    };
    vec![
        ("open", encode_request(&env, &Request::Open)),
        (
            "exec",
            encode_request(
                &env,
                &Request::Exec {
                    txn: Some("t-1".into()),
                    sql: "CREATE TABLE t(a)".into(),
                },
            ),
        ),
        (
            "query",
            encode_request(
                &env,
                &Request::Query {
                    txn: None,
                    sql: "SELECT ?, ?, ?, ?, ?".into(),
                    params: Params::Positional(vec![
                        WireValue::Null,
                        WireValue::Integer(-(1 << 60)),
                        WireValue::Real(2.5),
                        WireValue::Text("x".into()),
                        WireValue::Blob(vec![1, 2]),
                    ]),
                },
            ),
        ),
        (
            "query_named",
            encode_request(
                &env,
                &Request::Query {
                    txn: Some("t".into()),
                    sql: "SELECT :a".into(),
                    params: Params::Named(vec![(":a".into(), WireValue::Integer(7))]),
                },
            ),
        ),
        (
            "run",
            encode_request(
                &env,
                &Request::Run {
                    txn: Some("t".into()),
                    stmt: 5,
                    params: Params::None,
                },
            ),
        ),
        (
            "batch",
            encode_request(
                &env,
                &Request::Batch {
                    txn: "b".into(),
                    items: vec![BatchItem {
                        sql: "INSERT INTO t VALUES (?)".into(),
                        params: Params::Positional(vec![WireValue::Integer(1)]),
                    }],
                },
            ),
        ),
        (
            "commit",
            encode_request(&env, &Request::Commit { txn: "t-1".into() }),
        ),
        (
            "txn_status",
            encode_request(&env, &Request::TxnStatus { txn: "t-1".into() }),
        ),
        (
            "import",
            encode_request(
                &env,
                &Request::Import {
                    bytes: vec![1, 2, 3],
                },
            ),
        ),
        ("check", encode_request(&env, &Request::Check)),
        ("sync", encode_request(&env, &Request::Sync)),
        (
            "checked",
            encode_response(
                &env,
                &Response::Checked(CheckSummary {
                    problems: vec![CheckProblem {
                        page: 7,
                        detail: "checksum mismatch".into(),
                    }],
                    pages: 10,
                    trees: 3,
                    entries: 42,
                    free_pages: 2,
                }),
            ),
        ),
        (
            "ready",
            encode_response(&env, &Response::Ready { owner: "o".into() }),
        ),
        ("rows", encode_response(&env, &Response::Rows(rs.clone()))),
        (
            "prepared",
            encode_response(
                &env,
                &Response::Prepared {
                    stmt: 2,
                    param_count: 1,
                    columns: vec!["a".into()],
                },
            ),
        ),
        (
            "batch_done",
            encode_response(&env, &Response::BatchDone(vec![rs, ResultSet::default()])),
        ),
        (
            "txn_state",
            encode_response(&env, &Response::TxnState { committed: true }),
        ),
        (
            "failed",
            encode_response(
                &env,
                &Response::Failed(WireError {
                    code: "SQL_SYNTAX".into(),
                    message: "near \"FORM\"".into(),
                    position: Some(9),
                }),
            ),
        ),
    ]
}

#[test]
fn golden_vectors_match_the_encoder() {
    let text: String = vectors()
        .iter()
        .map(|(name, bytes)| {
            format!(
                "{name} {}\n",
                bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
            )
        })
        .collect();
    if std::env::var_os("UPDATE_PROTOCOL_VECTORS").is_some() {
        std::fs::write(VECTORS_PATH, &text).expect("write vectors");
    }
    let on_disk = std::fs::read_to_string(VECTORS_PATH)
        .expect("protocol-vectors.txt (run with UPDATE_PROTOCOL_VECTORS=1 once)");
    assert_eq!(
        on_disk, text,
        "protocol-vectors.txt disagrees with the encoder"
    );
}
