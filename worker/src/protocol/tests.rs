//! Round trips, truncations, bit flips and limits of the protocol codec.

use super::*;

fn env() -> Envelope {
    Envelope {
        epoch: 7,
        client: "c1".into(),
        request: 42,
    }
}

fn all_requests() -> Vec<Request> {
    let vals = vec![
        WireValue::Null,
        WireValue::Integer(-1 << 60),
        WireValue::Real(1.5),
        WireValue::Text("héllo".into()),
        WireValue::Blob(vec![0, 255, 7]),
    ];
    vec![
        Request::Open,
        Request::Exec {
            txn: None,
            sql: "CREATE TABLE t(a)".into(),
        },
        Request::Exec {
            txn: Some("t1".into()),
            sql: "".into(),
        },
        Request::Query {
            txn: None,
            sql: "SELECT ?".into(),
            params: Params::Positional(vals.clone()),
        },
        Request::Query {
            txn: Some("x".into()),
            sql: "SELECT :a".into(),
            params: Params::Named(vec![(":a".into(), WireValue::Integer(3))]),
        },
        Request::Prepare {
            sql: "SELECT 1".into(),
        },
        Request::Run {
            txn: None,
            stmt: 9,
            params: Params::None,
        },
        Request::Finalize { stmt: 9 },
        Request::Batch {
            txn: "b".into(),
            items: vec![BatchItem {
                sql: "INSERT".into(),
                params: Params::Positional(vals),
            }],
        },
        Request::Begin { txn: "t".into() },
        Request::Commit { txn: "t".into() },
        Request::Rollback { txn: "t".into() },
        Request::TxnStatus { txn: "t".into() },
        Request::Export,
        Request::Close,
        Request::Import { bytes: vec![9; 10] },
        Request::Check,
        Request::Sync,
    ]
}

fn all_responses() -> Vec<Response> {
    let rs = ResultSet {
        columns: vec!["a".to_string(), "b".to_string()].into(),
        rows: vec![
            vec![WireValue::Integer(1), WireValue::Text("x".into())],
            vec![WireValue::Null, WireValue::Blob(vec![])],
        ],
        changes: 2,
        last_insert_rowid: -5,
    };
    vec![
        Response::Ready { owner: "o".into() },
        Response::Opened { owner: "o".into() },
        Response::Done,
        Response::Rows(rs.clone()),
        Response::Rows(ResultSet::default()),
        Response::Prepared {
            stmt: 3,
            param_count: 2,
            columns: vec!["c".into()],
        },
        Response::BatchDone(vec![rs, ResultSet::default()]),
        Response::TxnState { committed: true },
        Response::TxnState { committed: false },
        Response::Bytes(vec![1, 2, 3]),
        Response::Failed(WireError {
            code: "SQL_SYNTAX".into(),
            message: "near x".into(),
            position: Some(4),
        }),
        Response::Failed(WireError::new(code::MISUSE, "no")),
        Response::Checked(CheckSummary {
            problems: vec![CheckProblem {
                page: 3,
                detail: "bad".into(),
            }],
            pages: 9,
            trees: 2,
            entries: 5,
            free_pages: 1,
        }),
    ]
}

#[test]
fn requests_round_trip() {
    for req in all_requests() {
        let bytes = encode_request(&env(), &req);
        assert_eq!(decode_request(&bytes), Ok((env(), req)));
    }
}

#[test]
fn responses_round_trip() {
    for resp in all_responses() {
        let bytes = encode_response(&env(), &resp);
        assert_eq!(decode_response(&bytes), Ok((env(), resp)));
    }
}

/// Every strict prefix of every valid message is refused with a typed
/// error, and no prefix panics.
#[test]
fn truncated_messages_are_refused() {
    for req in all_requests() {
        let bytes = encode_request(&env(), &req);
        for cut in 0..bytes.len() {
            let err = decode_request(&bytes[..cut]).unwrap_err();
            assert_eq!(
                err.error.code,
                code::MALFORMED_MESSAGE,
                "{req:?} cut at {cut}"
            );
        }
    }
    for resp in all_responses() {
        let bytes = encode_response(&env(), &resp);
        for cut in 0..bytes.len() {
            assert!(
                decode_response(&bytes[..cut]).is_err(),
                "{resp:?} cut at {cut}"
            );
        }
    }
}

#[test]
fn trailing_bytes_are_refused() {
    let mut bytes = encode_request(&env(), &Request::Open);
    bytes.push(0);
    let err = decode_request(&bytes).unwrap_err();
    assert_eq!(
        err.envelope,
        Some(env()),
        "the sender can still be answered"
    );
    assert!(
        err.error.message.contains("unexpected bytes"),
        "{}",
        err.error.message
    );
}

#[test]
fn bad_header_fields_are_refused() {
    let good = encode_request(&env(), &Request::Open);
    let mut bad_magic = good.clone();
    bad_magic[0] = 0;
    assert_eq!(decode_request(&bad_magic).unwrap_err().envelope, None);

    let mut new_version = good.clone();
    new_version[1] = PROTOCOL_VERSION + 1;
    let err = decode_request(&new_version).unwrap_err();
    assert_eq!(err.error.code, code::PROTOCOL_VERSION);
    assert_eq!(
        err.envelope,
        Some(env()),
        "the envelope layout is the same in every version"
    );

    let mut unknown_kind = good.clone();
    unknown_kind[2] = 0x3F;
    let err = decode_request(&unknown_kind).unwrap_err();
    assert!(
        err.error.message.contains("unknown request kind"),
        "{}",
        err.error.message
    );

    let no_client = encode_request(
        &Envelope {
            client: String::new(),
            ..env()
        },
        &Request::Open,
    );
    assert_eq!(
        decode_request(&no_client).unwrap_err().error.code,
        code::MALFORMED_MESSAGE
    );

    let mut long_client = good;
    long_client[ENVELOPE_PREFIX_LEN] = (MAX_ID_LEN + 1) as u8;
    assert!(decode_request(&long_client).is_err());
}

/// A count far beyond the message's size is refused before allocation.
#[test]
fn huge_counts_do_not_allocate() {
    let mut w = Writer::message(kind::QUERY, &env());
    w.opt_short_str(None);
    w.str("SELECT ?");
    w.u8(params_tag::POSITIONAL);
    w.u32(u32::MAX);
    let err = decode_request(&w.finish()).unwrap_err();
    assert!(
        err.error.message.contains("larger than the message"),
        "{}",
        err.error.message
    );

    let mut w = Writer::message(kind::ROWS, &env());
    w.u32(1);
    w.str("a");
    w.u32(u32::MAX);
    assert!(decode_response(&w.finish()).is_err());
}

#[test]
fn invalid_utf8_and_tags_are_refused() {
    let mut w = Writer::message(kind::EXEC, &env());
    w.opt_short_str(None);
    w.bytes(&[0xff, 0xfe]);
    let err = decode_request(&w.finish()).unwrap_err();
    assert!(err.error.message.contains("UTF-8"), "{}", err.error.message);

    let mut w = Writer::message(kind::QUERY, &env());
    w.opt_short_str(None);
    w.str("SELECT ?");
    w.u8(params_tag::POSITIONAL);
    w.u32(1);
    w.u8(9);
    let err = decode_request(&w.finish()).unwrap_err();
    assert!(
        err.error.message.contains("unknown value tag"),
        "{}",
        err.error.message
    );

    let mut w = Writer::message(kind::BEGIN, &env());
    w.u8(0);
    assert!(decode_request(&w.finish()).is_err(), "empty transaction id");
}

/// Deterministic pseudo-random byte flips never panic the decoder.
#[test]
fn flipped_bytes_never_panic() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for req in all_requests() {
        let bytes = encode_request(&env(), &req);
        for _ in 0..200 {
            let mut b = bytes.clone();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let i = (seed % b.len() as u64) as usize;
            b[i] ^= (seed >> 32) as u8 | 1;
            let _ = decode_request(&b);
        }
    }
}

#[test]
fn engine_errors_keep_code_and_position() {
    let e = tinyjoin_engine::Error::Syntax {
        message: "near FROM".into(),
        position: 7,
    };
    let w = WireError::from(&e);
    assert_eq!(w.code, "SQL_SYNTAX");
    assert_eq!(w.position, Some(7));
    assert_eq!(
        WireError::from(&tinyjoin_engine::Error::DiskFull).code,
        "QUOTA_EXCEEDED"
    );
}
