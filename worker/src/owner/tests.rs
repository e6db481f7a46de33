//! The owner against the real engine on a memory device, driven by protocol bytes.

use super::*;
use crate::protocol::{decode_response, encode_request, BatchItem, WireValue};
use tinyjoin_engine::storage::CrashMode;

const LOCAL: &str = "owner-tab";

/// The options of these tests (and of other modules' owners under test).
pub(crate) fn opts() -> OwnerOptions {
    OwnerOptions {
        batch_limit_bytes: 16 << 20,
        validation: Validation::Full,
        cache_pages: 256,
        commit: CommitMode::TwoFlush,
    }
}

/// Sends `req` as `client` and decodes the replies (the warm-up's tests too).
pub(crate) fn send(
    o: &mut Owner,
    client: &str,
    request: u32,
    req: Request,
) -> Vec<(Route, Envelope, Response)> {
    let bytes = encode_request(
        &Envelope {
            epoch: o.epoch(),
            client: client.into(),
            request,
        },
        &req,
    );
    decode_all(o.handle(&bytes))
}

fn decode_all(replies: Vec<Reply>) -> Vec<(Route, Envelope, Response)> {
    replies
        .into_iter()
        .filter(|r| r.route != Route::Watch && r.route != Route::Import)
        .map(|r| {
            let (env, resp) = decode_response(&r.bytes).expect("owner replies decode");
            (r.route, env, resp)
        })
        .collect()
}

/// The single reply to a request, which must be addressed back to its sender.
fn one(o: &mut Owner, client: &str, request: u32, req: Request) -> Response {
    let mut out = send(o, client, request, req);
    assert_eq!(out.len(), 1, "{out:?}");
    let (_, env, resp) = out.remove(0);
    assert_eq!(
        (env.client.as_str(), env.request, env.epoch),
        (client, request, o.epoch())
    );
    resp
}

fn query(sql: &str, txn: Option<&str>) -> Request {
    Request::Query {
        txn: txn.map(Into::into),
        sql: sql.into(),
        params: Params::None,
    }
}

fn rows(resp: Response) -> Vec<Vec<WireValue>> {
    match resp {
        Response::Rows(rs) => rs.rows,
        other => panic!("expected rows, got {other:?}"),
    }
}

fn failed(resp: Response) -> WireError {
    match resp {
        Response::Failed(e) => e,
        other => panic!("expected an error, got {other:?}"),
    }
}

fn setup() -> Owner {
    let mut o = Owner::open_memory(LOCAL, &opts()).expect("open");
    let r = one(
        &mut o,
        LOCAL,
        1,
        Request::Exec {
            txn: Some("setup".into()),
            sql: "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT UNIQUE)".into(),
        },
    );
    assert_eq!(r, Response::Rows(ResultSet::default()));
    o
}

fn count(o: &mut Owner) -> i64 {
    match rows(one(o, LOCAL, 99, query("SELECT count(*) FROM t", None))).as_slice() {
        [row] => match row.as_slice() {
            [WireValue::Integer(n)] => *n,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

#[test]
fn epoch_grows_with_each_owner_of_the_same_file() {
    let dev = MemoryDevice::new();
    let first = Owner::open(Box::new(dev.clone()), LOCAL, &opts()).expect("open");
    assert_eq!(first.epoch(), 1);
    drop(first);
    let second = Owner::open(Box::new(dev), LOCAL, &opts()).expect("reopen");
    assert_eq!(second.epoch(), 2);
}

#[test]
fn local_and_follower_replies_are_routed() {
    let mut o = setup();
    let out = send(&mut o, "f1", 5, query("SELECT 1", None));
    assert_eq!(out[0].0, Route::Channel);
    let out = send(&mut o, LOCAL, 6, query("SELECT 1", None));
    assert_eq!(out[0].0, Route::Local);
    let watch = o.handle(&encode_request(
        &Envelope {
            epoch: 0,
            client: "f2".into(),
            request: 1,
        },
        &Request::Open,
    ));
    assert_eq!(
        watch[0],
        Reply {
            route: Route::Watch,
            bytes: b"f2".to_vec()
        },
        "the owner watches a new follower's lock"
    );
    assert_eq!(
        decode_response(&watch[1].bytes).expect("opened").1,
        Response::Opened {
            owner: LOCAL.into()
        }
    );
}

#[test]
fn client_transactions_are_serialized_and_reads_do_not_wait() {
    let mut o = setup();
    assert_eq!(
        one(&mut o, "a", 1, Request::Begin { txn: "ta".into() }),
        Response::Done
    );
    one(
        &mut o,
        "a",
        2,
        query("INSERT INTO t(v) VALUES ('a')", Some("ta")),
    );
    // B's BEGIN and B's autocommit write wait; B's read is answered at once from the committed state.
    assert!(send(&mut o, "b", 1, Request::Begin { txn: "tb".into() }).is_empty());
    assert_eq!(
        rows(one(
            &mut o,
            "c",
            1,
            query("SELECT count(*) FROM t", Some("tc-read"))
        )),
        vec![vec![WireValue::Integer(0)]]
    );
    assert!(send(
        &mut o,
        "c",
        2,
        query("INSERT INTO t(v) VALUES ('c')", Some("tc"))
    )
    .is_empty());
    // A commits: A's answer, then B's BEGIN runs; C's write still waits for B.
    let out = send(&mut o, "a", 3, Request::Commit { txn: "ta".into() });
    let who: Vec<(String, u32)> = out
        .iter()
        .map(|(_, e, _)| (e.client.clone(), e.request))
        .collect();
    assert_eq!(who, vec![("a".into(), 3), ("b".into(), 1)]);
    let out = send(&mut o, "b", 2, Request::Commit { txn: "tb".into() });
    assert_eq!(
        out.len(),
        2,
        "B's commit releases C's queued write: {out:?}"
    );
    assert_eq!(count(&mut o), 2);
}

#[test]
fn commit_records_answer_did_it_commit() {
    let mut o = setup();
    let status = |o: &mut Owner, txn: &str| one(o, "x", 9, Request::TxnStatus { txn: txn.into() });
    one(&mut o, "a", 1, Request::Begin { txn: "t1".into() });
    one(
        &mut o,
        "a",
        2,
        query("INSERT INTO t(v) VALUES ('1')", Some("t1")),
    );
    assert_eq!(
        status(&mut o, "t1"),
        Response::TxnState { committed: false }
    );
    one(&mut o, "a", 3, Request::Commit { txn: "t1".into() });
    assert_eq!(status(&mut o, "t1"), Response::TxnState { committed: true });

    one(&mut o, "a", 4, Request::Begin { txn: "t2".into() });
    one(
        &mut o,
        "a",
        5,
        query("INSERT INTO t(v) VALUES ('2')", Some("t2")),
    );
    one(&mut o, "a", 6, Request::Rollback { txn: "t2".into() });
    assert_eq!(
        status(&mut o, "t2"),
        Response::TxnState { committed: false }
    );

    one(
        &mut o,
        "a",
        7,
        query("INSERT INTO t(v) VALUES ('3')", Some("auto-w")),
    );
    assert_eq!(
        status(&mut o, "auto-w"),
        Response::TxnState { committed: true },
        "an autocommit write is recorded"
    );
    one(&mut o, "a", 8, query("SELECT * FROM t", Some("auto-r")));
    assert_eq!(
        status(&mut o, "auto-r"),
        Response::TxnState { committed: false },
        "a read records nothing"
    );
    let e = failed(one(
        &mut o,
        "a",
        9,
        query("INSERT INTO t(v) VALUES ('3')", Some("auto-dup")),
    ));
    assert_eq!(e.code, "CONSTRAINT_UNIQUE");
    assert_eq!(
        status(&mut o, "auto-dup"),
        Response::TxnState { committed: false },
        "a failed write records nothing"
    );
    assert_eq!(count(&mut o), 2);
}

#[test]
fn a_dead_clients_transaction_is_rolled_back_and_the_queue_moves() {
    let mut o = setup();
    one(&mut o, "a", 1, Request::Begin { txn: "ta".into() });
    one(
        &mut o,
        "a",
        2,
        query("INSERT INTO t(v) VALUES ('lost')", Some("ta")),
    );
    assert!(send(&mut o, "b", 1, Request::Begin { txn: "tb".into() }).is_empty());
    let out = decode_all(o.client_gone("a"));
    assert_eq!(out.len(), 1);
    assert_eq!(
        (out[0].1.client.as_str(), &out[0].2),
        ("b", &Response::Done)
    );
    one(
        &mut o,
        "b",
        2,
        query("INSERT INTO t(v) VALUES ('kept')", Some("tb")),
    );
    one(&mut o, "b", 3, Request::Commit { txn: "tb".into() });
    assert_eq!(
        rows(one(&mut o, "c", 1, query("SELECT v FROM t", None))),
        vec![vec![WireValue::Text("kept".into())]]
    );
}

#[test]
fn a_client_cannot_wait_for_its_own_transaction() {
    let mut o = setup();
    one(&mut o, "a", 1, Request::Begin { txn: "ta".into() });
    assert_eq!(
        failed(one(
            &mut o,
            "a",
            2,
            query("INSERT INTO t(v) VALUES ('x')", Some("other"))
        ))
        .code,
        code::MISUSE
    );
    assert_eq!(
        failed(one(&mut o, "a", 3, Request::Begin { txn: "tb".into() })).code,
        code::MISUSE
    );
    assert_eq!(
        failed(one(&mut o, "b", 1, Request::Commit { txn: "ta".into() })).code,
        code::MISUSE,
        "only its client commits a transaction"
    );
}

#[test]
fn stale_epochs_and_malformed_messages_get_typed_errors() {
    let mut o = setup();
    let stale = encode_request(
        &Envelope {
            epoch: o.epoch() + 1,
            client: "f".into(),
            request: 3,
        },
        &query("SELECT 1", None),
    );
    let out = decode_all(o.handle(&stale));
    assert_eq!(failed(out[0].2.clone()).code, code::STALE_EPOCH);

    let mut truncated = encode_request(
        &Envelope {
            epoch: o.epoch(),
            client: "f".into(),
            request: 4,
        },
        &query("SELECT 1", None),
    );
    truncated.truncate(truncated.len() - 1);
    let out = decode_all(o.handle(&truncated));
    assert_eq!(
        (out[0].1.request, failed(out[0].2.clone()).code.as_str()),
        (4, code::MALFORMED_MESSAGE)
    );

    assert!(
        o.handle(&[1, 2, 3]).is_empty(),
        "no envelope, nobody to answer"
    );
    assert!(
        o.handle(&o.ready()).is_empty(),
        "another owner's broadcast is ignored"
    );
    assert_eq!(count(&mut o), 0, "the owner keeps serving");
}

#[test]
fn sql_errors_keep_code_and_position() {
    let mut o = setup();
    let e = failed(one(&mut o, "a", 1, query("SELECT * FORM t", None)));
    assert_eq!(e.code, "SQL_SYNTAX");
    assert!(e.position.is_some(), "{e:?}");
    let e = failed(one(
        &mut o,
        "a",
        2,
        query("INSERT INTO t(k, v) VALUES (1, NULL), (1, NULL)", Some("w")),
    ));
    assert!(e.code.starts_with("CONSTRAINT_"), "{e:?}");
}

#[test]
fn prepared_statements_run_and_unknown_ones_are_misuse() {
    let mut o = setup();
    let Response::Prepared {
        stmt, param_count, ..
    } = one(
        &mut o,
        "a",
        1,
        Request::Prepare {
            sql: "INSERT INTO t(v) VALUES (?)".into(),
        },
    )
    else {
        panic!("prepared")
    };
    assert_eq!(param_count, 1);
    for (i, v) in ["x", "y"].iter().enumerate() {
        let params = Params::Positional(vec![WireValue::Text((*v).into())]);
        one(
            &mut o,
            "a",
            2 + i as u32,
            Request::Run {
                txn: Some(format!("r{i}")),
                stmt,
                params,
            },
        );
    }
    assert_eq!(count(&mut o), 2);
    one(&mut o, "a", 9, Request::Finalize { stmt });
    assert_eq!(
        failed(one(
            &mut o,
            "a",
            10,
            Request::Run {
                txn: None,
                stmt,
                params: Params::None
            }
        ))
        .code,
        code::MISUSE
    );
    assert_eq!(
        failed(one(
            &mut o,
            "b",
            1,
            Request::Run {
                txn: None,
                stmt: 1,
                params: Params::None
            }
        ))
        .code,
        code::MISUSE,
        "statements are per client"
    );
}

#[test]
fn a_batch_is_one_transaction() {
    let mut o = setup();
    let item = |sql: &str| BatchItem {
        sql: sql.into(),
        params: Params::None,
    };
    let ok = one(
        &mut o,
        "a",
        1,
        Request::Batch {
            txn: "b1".into(),
            items: vec![
                item("INSERT INTO t(v) VALUES ('1')"),
                item("SELECT count(*) FROM t"),
            ],
        },
    );
    let Response::BatchDone(sets) = ok else {
        panic!("{ok:?}")
    };
    assert_eq!(sets[1].rows, vec![vec![WireValue::Integer(1)]]);
    let bad = one(
        &mut o,
        "a",
        2,
        Request::Batch {
            txn: "b2".into(),
            items: vec![
                item("INSERT INTO t(v) VALUES ('2')"),
                item("INSERT INTO t(v) VALUES ('1')"),
            ],
        },
    );
    assert_eq!(failed(bad).code, "CONSTRAINT_UNIQUE");
    assert_eq!(count(&mut o), 1, "the failed batch left nothing");
    assert_eq!(
        one(&mut o, "a", 3, Request::TxnStatus { txn: "b1".into() }),
        Response::TxnState { committed: true }
    );
    assert_eq!(
        one(&mut o, "a", 4, Request::TxnStatus { txn: "b2".into() }),
        Response::TxnState { committed: false }
    );
}

#[test]
fn export_is_a_database_with_the_committed_data() {
    let mut o = setup();
    one(
        &mut o,
        "a",
        1,
        query("INSERT INTO t(v) VALUES ('exported')", Some("w")),
    );
    one(&mut o, "a", 2, Request::Begin { txn: "open".into() });
    one(
        &mut o,
        "a",
        3,
        query("INSERT INTO t(v) VALUES ('uncommitted')", Some("open")),
    );
    let Response::Bytes(bytes) = one(&mut o, "b", 1, Request::Export) else {
        panic!("bytes")
    };
    let mut copy = Owner::open(Box::new(MemoryDevice::from_bytes(bytes)), LOCAL, &opts())
        .expect("the export opens");
    assert_eq!(
        rows(one(&mut copy, LOCAL, 1, query("SELECT v FROM t", None))),
        vec![vec![WireValue::Text("exported".into())]]
    );
}

#[test]
fn import_replaces_the_database_after_validation() {
    let mut src = setup();
    one(
        &mut src,
        "a",
        1,
        query("INSERT INTO t(v) VALUES ('from the import')", Some("w")),
    );
    let Response::Bytes(good) = one(&mut src, "a", 2, Request::Export) else {
        panic!("bytes")
    };

    let mut o = setup();
    one(
        &mut o,
        "a",
        1,
        query("INSERT INTO t(v) VALUES ('old 1'), ('old 2')", Some("w")),
    );
    // A byte of every page past the superblocks flipped: some are free
    // pages, whose bytes nothing reads, but the trees' pages are there too.
    let mut bad = good.clone();
    for page in bad.chunks_mut(4096).skip(2) {
        page[100] ^= 0xff;
    }
    let e = failed(one(&mut o, "a", 2, Request::Import { bytes: bad }));
    assert_eq!(e.code, "CORRUPT", "{e:?}");
    assert_eq!(count(&mut o), 2, "a failed import changes nothing");

    let before = o.epoch();
    let out = send(&mut o, "a", 3, Request::Import { bytes: good });
    assert_eq!(
        (out[0].1.epoch, &out[0].2),
        (before, &Response::Done),
        "DONE in the epoch the importer knows"
    );
    assert!(o.epoch() > before);
    let ready: Vec<Route> = out[1..]
        .iter()
        .filter(|(_, _, r)| matches!(r, Response::Ready { .. }))
        .map(|(r, _, _)| *r)
        .collect();
    assert_eq!(
        ready,
        vec![Route::Channel, Route::Local],
        "every client learns the new epoch"
    );
    assert_eq!(
        rows(one(&mut o, "b", 1, query("SELECT v FROM t", None))),
        vec![vec![WireValue::Text("from the import".into())]]
    );
}

/// A file-backed owner (the OPFS owner's import mode) over `dev`, with table t.
fn file_owner(dev: MemoryDevice) -> Owner {
    let mut o = Owner::open(Box::new(dev), LOCAL, &opts()).expect("open");
    one(&mut o, LOCAL, 1, Request::Open);
    one(
        &mut o,
        LOCAL,
        2,
        Request::Exec {
            txn: Some("setup".into()),
            sql: "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT UNIQUE)".into(),
        },
    );
    o
}

fn exported(o: &mut Owner) -> Vec<u8> {
    match one(o, LOCAL, 90, Request::Export) {
        Response::Bytes(b) => b,
        other => panic!("{other:?}"),
    }
}

fn encode(o: &Owner, client: &str, request: u32, req: &Request) -> Vec<u8> {
    encode_request(
        &Envelope {
            epoch: o.epoch(),
            client: client.into(),
            request,
        },
        req,
    )
}

#[test]
fn a_file_import_is_staged_in_a_new_file_and_requests_wait_for_it() {
    let mut src = file_owner(MemoryDevice::new());
    one(
        &mut src,
        LOCAL,
        3,
        query("INSERT INTO t(v) VALUES ('new')", Some("n")),
    );
    let good = exported(&mut src);

    let old_file = MemoryDevice::new();
    let mut o = file_owner(old_file.clone());
    one(
        &mut o,
        LOCAL,
        3,
        query("INSERT INTO t(v) VALUES ('old')", Some("o")),
    );
    let old_bytes = exported(&mut o);
    let before = o.epoch();

    let out = o.handle(&encode(
        &o,
        LOCAL,
        4,
        &Request::Import {
            bytes: good.clone(),
        },
    ));
    assert_eq!(out.len(), 1, "only the staging request, no answer yet");
    assert_eq!((out[0].route, &out[0].bytes), (Route::Import, &good));
    assert!(o.importing());
    // A request while staging waits (no reply), and the live file is untouched.
    let out = o.handle(&encode(&o, "f1", 5, &query("SELECT v FROM t", None)));
    assert!(out.is_empty(), "{out:?}");
    let mut now = vec![0u8; old_bytes.len()];
    old_file.clone().read_at(0, &mut now).expect("read");
    assert_eq!(now, old_bytes, "the live file is never rewritten");

    let new_file = MemoryDevice::from_bytes(good.clone());
    o.stage_import(Box::new(new_file)).expect("stage");
    assert_eq!(o.epoch(), before, "nothing switched before finish_import");
    let out = decode_all(o.finish_import());
    assert_eq!(
        (out[0].1.request, out[0].1.epoch, &out[0].2),
        (4, before, &Response::Done)
    );
    assert!(o.epoch() > before);
    assert!(matches!(out[1].2, Response::Ready { .. }));
    assert!(matches!(out[2].2, Response::Ready { .. }));
    // The request that waited was addressed to the old epoch.
    assert_eq!(failed(out[3].2.clone()).code, "STALE_EPOCH");
    assert_eq!(out.len(), 4);
    assert_eq!(
        rows(one(&mut o, LOCAL, 6, query("SELECT v FROM t", None))),
        vec![vec![WireValue::Text("new".into())]]
    );
    assert!(!o.importing());
}

#[test]
fn a_failed_staging_leaves_the_old_database_serving() {
    let mut src = file_owner(MemoryDevice::new());
    let good = exported(&mut src);
    let mut o = file_owner(MemoryDevice::new());
    one(
        &mut o,
        LOCAL,
        3,
        query("INSERT INTO t(v) VALUES ('old')", Some("o")),
    );
    let before = o.epoch();
    let out = o.handle(&encode(
        &o,
        LOCAL,
        4,
        &Request::Import {
            bytes: good.clone(),
        },
    ));
    assert_eq!(out[0].route, Route::Import);
    let waiting = encode(&o, LOCAL, 5, &query("SELECT v FROM t", None));
    assert!(o.handle(&waiting).is_empty());
    // The new file came back short (a write that did not land): staging fails.
    let short = MemoryDevice::from_bytes(good[..good.len() / 2].to_vec());
    assert!(o.stage_import(Box::new(short)).is_err());
    let out = decode_all(o.abort_import(WireError::new("IO", "write failed"), false));
    assert_eq!(failed(out[0].2.clone()).code, "IO");
    assert_eq!(
        rows(out[1].2.clone()),
        vec![vec![WireValue::Text("old".into())]],
        "the waiting request ran against the old database"
    );
    assert_eq!(o.epoch(), before);
    // A poisoning abort (the manifest switch failed) fails everything after.
    let out = o.handle(&encode(&o, LOCAL, 6, &Request::Import { bytes: good }));
    assert_eq!(out[0].route, Route::Import);
    decode_all(o.abort_import(WireError::new("IO", "manifest"), true));
    let e = failed(one(&mut o, LOCAL, 7, query("SELECT 1", None)));
    assert_eq!(e.code, "IO");
}

#[test]
fn old_commit_records_are_pruned_and_recent_ones_kept() {
    let mut o = setup();
    o.prune = (10, 25);
    for i in 0..100u32 {
        let r = one(
            &mut o,
            "a",
            i,
            query(
                &format!("INSERT INTO t(v) VALUES ('{i}')"),
                Some(&format!("w{i}")),
            ),
        );
        assert!(matches!(r, Response::Rows(_)), "commit {i}: {r:?}");
    }
    let kept = rows(one(
        &mut o,
        "a",
        999,
        query(&format!("SELECT count(*) FROM {COMMITS_TABLE}"), None),
    ));
    let [WireValue::Integer(n)] = kept[0].as_slice() else {
        panic!("{kept:?}")
    };
    assert!((25..=35).contains(n), "{n} records kept");
    assert_eq!(
        one(&mut o, "a", 1000, Request::TxnStatus { txn: "w99".into() }),
        Response::TxnState { committed: true }
    );
    assert_eq!(
        one(&mut o, "a", 1001, Request::TxnStatus { txn: "w0".into() }),
        Response::TxnState { committed: false },
        "pruned"
    );
    assert_eq!(count(&mut o), 100);
}

/// Regression: one shared autocommit connection leaked one client's last
/// insert rowid into another client's results.
#[test]
fn each_client_has_its_own_connection_state() {
    let mut o = setup();
    for c in ["a", "b"] {
        one(&mut o, c, 0, Request::Open);
    }
    let rs = |r: Response| match r {
        Response::Rows(rs) => rs,
        other => panic!("{other:?}"),
    };
    let a = rs(one(
        &mut o,
        "a",
        1,
        query("INSERT INTO t(k, v) VALUES (41, 'a')", Some("ia")),
    ));
    assert_eq!(a.last_insert_rowid, 41);
    let b = rs(one(
        &mut o,
        "b",
        1,
        query("INSERT INTO t(k, v) VALUES (7, 'b')", Some("ib")),
    ));
    assert_eq!(b.last_insert_rowid, 7);
    let a2 = rs(one(&mut o, "a", 2, query("SELECT 1", None)));
    assert_eq!(a2.last_insert_rowid, 41, "a's rowid is a's own");
    // Regression: commit records numbered 1, 2, ... made the first INSERT
    // (rowid 1) after the recorded CREATE TABLE (record 1) look like "no insert".
    let mut fresh = setup();
    let first = rs(one(
        &mut fresh,
        LOCAL,
        2,
        query("INSERT INTO t(v) VALUES ('first')", Some("i1")),
    ));
    assert_eq!(first.last_insert_rowid, 1);
}

#[test]
fn sql_that_ends_a_client_transaction_is_reported_and_frees_the_slot() {
    let mut o = setup();
    one(&mut o, "a", 1, Request::Begin { txn: "ta".into() });
    let e = failed(one(
        &mut o,
        "a",
        2,
        Request::Exec {
            txn: Some("ta".into()),
            sql: "INSERT INTO t(v) VALUES ('x'); COMMIT".into(),
        },
    ));
    assert_eq!(e.code, code::MISUSE);
    assert_eq!(
        one(&mut o, "b", 1, Request::Begin { txn: "tb".into() }),
        Response::Done,
        "the slot is free"
    );
    one(&mut o, "b", 2, Request::Rollback { txn: "tb".into() });
    assert_eq!(
        one(&mut o, "a", 3, Request::Rollback { txn: "ta".into() }),
        Response::Done,
        "a late rollback is harmless"
    );
}

/// A device that counts flushes, over a shared memory device.
#[derive(Clone)]
struct CountingDevice {
    inner: MemoryDevice,
    flushes: Rc<RefCell<u32>>,
}

impl Device for CountingDevice {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.inner.read_at(offset, buf)
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        self.inner.write_at(offset, data)
    }
    fn flush(&mut self) -> Result<()> {
        *self.flushes.borrow_mut() += 1;
        self.inner.flush()
    }
    fn len(&mut self) -> Result<u64> {
        self.inner.len()
    }
    fn truncate(&mut self, len: u64) -> Result<()> {
        self.inner.truncate(len)
    }
}

#[test]
fn a_durable_single_row_commit_costs_only_the_engines_flushes() {
    let dev = CountingDevice {
        inner: MemoryDevice::new(),
        flushes: Rc::new(RefCell::new(0)),
    };
    let flushes = dev.flushes.clone();
    let mut o = Owner::open(Box::new(dev), LOCAL, &opts()).expect("open");
    one(&mut o, LOCAL, 1, Request::Open);
    one(
        &mut o,
        LOCAL,
        2,
        Request::Exec {
            txn: Some("setup".into()),
            sql: "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT UNIQUE)".into(),
        },
    );
    let before = *flushes.borrow();
    let r = one(
        &mut o,
        LOCAL,
        3,
        query("INSERT INTO t(v) VALUES ('a')", Some("auto-1")),
    );
    assert!(matches!(r, Response::Rows(_)), "{r:?}");
    let autocommit = *flushes.borrow() - before;
    let before = *flushes.borrow();
    one(&mut o, LOCAL, 4, Request::Begin { txn: "t-2".into() });
    one(
        &mut o,
        LOCAL,
        5,
        query("INSERT INTO t(v) VALUES ('b')", Some("t-2")),
    );
    one(&mut o, LOCAL, 6, Request::Commit { txn: "t-2".into() });
    let client_txn = *flushes.borrow() - before;
    let stmt = match one(
        &mut o,
        LOCAL,
        7,
        Request::Prepare {
            sql: "INSERT INTO t(v) VALUES (?)".into(),
        },
    ) {
        Response::Prepared { stmt, .. } => stmt,
        other => panic!("{other:?}"),
    };
    let before = *flushes.borrow();
    let r = one(
        &mut o,
        LOCAL,
        8,
        Request::Run {
            txn: Some("auto-3".into()),
            stmt,
            params: Params::Positional(vec![WireValue::Text("c".into())]),
        },
    );
    assert!(matches!(r, Response::Rows(_)), "{r:?}");
    let prepared = *flushes.borrow() - before;
    let before = *flushes.borrow();
    let r = one(
        &mut o,
        LOCAL,
        9,
        Request::Batch {
            txn: "b-4".into(),
            items: vec![BatchItem {
                sql: "INSERT INTO t(v) VALUES ('d')".into(),
                params: Params::None,
            }],
        },
    );
    assert!(matches!(r, Response::BatchDone(_)), "{r:?}");
    let batch = *flushes.borrow() - before;
    let before = *flushes.borrow();
    one(
        &mut o,
        LOCAL,
        10,
        query("SELECT * FROM t WHERE k = 1", Some("r-5")),
    );
    let read = *flushes.borrow() - before;
    eprintln!(
        "flushes: autocommit {autocommit}, client transaction {client_txn}, \
         prepared {prepared}, batch {batch}, read {read}"
    );
    // The engine's two-flush commit, and nothing more: the commit record is
    // written inside the same engine transaction. A read commits nothing.
    assert_eq!(
        (autocommit, client_txn, prepared, batch, read),
        (2, 2, 2, 2, 0)
    );
    for txn in ["auto-1", "t-2", "auto-3", "b-4"] {
        assert_eq!(
            one(&mut o, LOCAL, 11, Request::TxnStatus { txn: txn.into() }),
            Response::TxnState { committed: true },
            "{txn}"
        );
    }
}

#[test]
fn direct_local_calls_answer_exactly_as_messages_do() {
    let script: Vec<Request> = vec![
        Request::Exec {
            txn: Some("a".into()),
            sql: "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT UNIQUE)".into(),
        },
        query("INSERT INTO t(v) VALUES ('x')", Some("b")),
        query("INSERT INTO t(v) VALUES ('x')", Some("c")),
        query("SELECT k, v FROM t", Some("d")),
        query("SELEC 1", None),
        Request::Begin { txn: "e".into() },
        Request::Query {
            txn: Some("e".into()),
            sql: "INSERT INTO t(v) VALUES (?)".into(),
            params: Params::Positional(vec![WireValue::Text("y".into())]),
        },
        Request::Begin { txn: "f".into() },
        Request::Commit { txn: "e".into() },
        Request::Commit { txn: "e".into() },
        Request::Prepare {
            sql: "SELECT v FROM t WHERE k = :k".into(),
        },
        Request::Run {
            txn: Some("g".into()),
            stmt: 1,
            params: Params::Named(vec![(":k".into(), WireValue::Integer(2))]),
        },
        Request::Finalize { stmt: 1 },
        Request::Run {
            txn: Some("h".into()),
            stmt: 1,
            params: Params::None,
        },
        Request::Begin { txn: "i".into() },
        Request::Rollback { txn: "i".into() },
        query("SELECT count(*), last_insert_rowid() FROM t", None),
    ];
    let mut by_message = Owner::open_memory(LOCAL, &opts()).expect("open");
    let mut direct = Owner::open_memory(LOCAL, &opts()).expect("open");
    one(&mut by_message, LOCAL, 1, Request::Open);
    one(&mut direct, LOCAL, 1, Request::Open);
    for (i, req) in script.into_iter().enumerate() {
        let want = one(&mut by_message, LOCAL, 2 + i as u32, req.clone());
        let got = direct.call_local(&req).expect("answered at once");
        assert_eq!(got, want, "request {i}: {req:?}");
    }
    assert!(
        direct
            .call_local(&Request::Import { bytes: Vec::new() })
            .is_none(),
        "an import always goes as a message"
    );
}

#[test]
fn the_engine_decides_which_requests_only_read() {
    let dev = CountingDevice {
        inner: MemoryDevice::new(),
        flushes: Rc::new(RefCell::new(0)),
    };
    let flushes = dev.flushes.clone();
    let mut o = Owner::open(Box::new(dev), LOCAL, &opts()).expect("open");
    one(&mut o, LOCAL, 1, Request::Open);
    one(
        &mut o,
        LOCAL,
        2,
        Request::Exec {
            txn: Some("setup".into()),
            sql: "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT UNIQUE)".into(),
        },
    );
    let committed = |o: &mut Owner, txn: &str| {
        one(o, LOCAL, 50, Request::TxnStatus { txn: txn.into() })
            == Response::TxnState { committed: true }
    };
    // (SQL, whether it only reads)
    let cases = [
        ("WITH x(a) AS (SELECT 1) SELECT a FROM x", true),
        ("/* c */ SELECT 1 -- and a comment", true),
        ("SELECT 1;  -- trailing", true),
        ("VALUES (1), (2)", true),
        ("EXPLAIN QUERY PLAN SELECT * FROM t", true),
        ("PRAGMA foreign_keys", true),
        ("INSERT INTO t(v) VALUES ('a') RETURNING k", false),
        // The keyword check took this for a read: the INSERT ran unrecorded.
        ("SELECT 1; INSERT INTO t(v) VALUES ('b')", false),
        (
            "WITH x(a) AS (SELECT 'c') INSERT INTO t(v) SELECT a FROM x",
            false,
        ),
        ("PRAGMA foreign_keys = OFF", false),
    ];
    for (i, (sql, reads)) in cases.into_iter().enumerate() {
        let txn = format!("q{i}");
        let before = *flushes.borrow();
        let r = one(&mut o, LOCAL, 10 + i as u32, query(sql, Some(&txn)));
        assert!(matches!(r, Response::Rows(_)), "{sql}: {r:?}");
        let cost = *flushes.borrow() - before;
        assert_eq!(
            (cost == 0, committed(&mut o, &txn)),
            (reads, !reads),
            "{sql}: {cost} flushes"
        );
    }
    assert_eq!(
        rows(one(
            &mut o,
            LOCAL,
            30,
            query("SELECT v FROM t ORDER BY k", None)
        )),
        ["a", "b", "c"].map(|v| vec![WireValue::Text(v.into())])
    );
    // A prepared statement is judged the same way.
    for (sql, reads) in [
        ("WITH x(a) AS (SELECT 1) SELECT a FROM x", true),
        ("DELETE FROM t WHERE k < 0", false),
    ] {
        let Response::Prepared { stmt, .. } =
            one(&mut o, LOCAL, 31, Request::Prepare { sql: sql.into() })
        else {
            panic!("prepare {sql}")
        };
        let txn = format!("p{stmt}");
        one(
            &mut o,
            LOCAL,
            32,
            Request::Run {
                txn: Some(txn.clone()),
                stmt,
                params: Params::None,
            },
        );
        assert_eq!(committed(&mut o, &txn), !reads, "{sql}");
    }
    // A statement that does not prepare fails as it would running.
    assert_eq!(
        failed(one(
            &mut o,
            LOCAL,
            40,
            query("SELECT * FROM missing", Some("m"))
        ))
        .code,
        "SQL_ERROR"
    );
}

#[test]
fn an_owner_without_failover_records_no_commits() {
    let mut o = setup();
    o.set_record_commits(false);
    let r = one(
        &mut o,
        LOCAL,
        2,
        query("INSERT INTO t(v) VALUES ('a')", Some("w1")),
    );
    assert!(matches!(r, Response::Rows(_)), "{r:?}");
    one(&mut o, LOCAL, 3, Request::Begin { txn: "w2".into() });
    one(
        &mut o,
        LOCAL,
        4,
        query("INSERT INTO t(v) VALUES ('b')", Some("w2")),
    );
    one(&mut o, LOCAL, 5, Request::Commit { txn: "w2".into() });
    assert_eq!(count(&mut o), 2);
    assert_eq!(
        rows(one(
            &mut o,
            LOCAL,
            6,
            query(&format!("SELECT txn FROM {COMMITS_TABLE}"), None)
        )),
        vec![vec![WireValue::Text("setup".into())]],
        "only the commit made before records were turned off"
    );
    // The insert rowid the client sees is its own either way.
    let r = one(
        &mut o,
        LOCAL,
        7,
        query("INSERT INTO t(v) VALUES ('c')", Some("w3")),
    );
    let Response::Rows(rs) = r else {
        panic!("{r:?}")
    };
    assert_eq!(rs.last_insert_rowid, 3);
}

/// The `commit` open option reaches the database's options.
#[test]
fn the_commit_option_reaches_the_database() {
    for mode in [
        CommitMode::TwoFlush,
        CommitMode::OneFlush,
        CommitMode::Deferred,
    ] {
        let o = OwnerOptions {
            commit: mode,
            ..opts()
        };
        assert_eq!(Owner::db_options(&o).commit, mode);
    }
}

/// A new owner with deferred commits on a fault device, and the device's handle.
fn deferred_owner() -> (Owner, tinyjoin_engine::storage::FaultHandle) {
    let deferred = OwnerOptions {
        commit: CommitMode::Deferred,
        ..opts()
    };
    let (dev, handle) = tinyjoin_engine::storage::FaultDevice::new(Vec::new());
    let o = Owner::open(Box::new(dev), LOCAL, &deferred).expect("open");
    (o, handle)
}

/// A deferred owner (`commit: "deferred"`): its open syncs the epoch bump,
/// a commit then waits for `sync`, and a power loss before it keeps the
/// state of the open, with the new epoch.
#[test]
fn a_deferred_owner_syncs_its_open_and_waits_for_sync_after_a_commit() {
    let (mut o, handle) = deferred_owner();
    assert!(!o.needs_sync(), "the open's epoch bump is synced");
    let synced = handle.crash_image(CrashMode::DropUnflushed);
    send(&mut o, LOCAL, 1, query("CREATE TABLE t(v)", None));
    send(&mut o, LOCAL, 2, query("INSERT INTO t VALUES (1)", None));
    assert!(o.needs_sync());
    // Lost to a power loss now: the file opens at the synced state.
    let lost = handle.crash_image(CrashMode::DropUnflushed);
    assert_eq!(lost, synced);
    o.sync().expect("sync");
    assert!(!o.needs_sync());
    let image = handle.crash_image(CrashMode::DropUnflushed);
    let mut again =
        Owner::open(Box::new(MemoryDevice::from_bytes(image)), LOCAL, &opts()).expect("reopen");
    assert_eq!(again.epoch(), 2);
    let out = send(&mut again, LOCAL, 3, query("SELECT v FROM t", None));
    match &out[0].2 {
        Response::Rows(rs) => assert_eq!(rs.rows, vec![vec![WireValue::Integer(1)]]),
        other => panic!("{other:?}"),
    }
}

/// `SYNC` from a follower makes a deferred owner's commits durable before
/// it answers, even while another client's transaction is open; with
/// flushed commits it answers at once.
#[test]
fn sync_makes_deferred_commits_durable_before_it_answers() {
    let (mut o, handle) = deferred_owner();
    send(&mut o, "f", 1, Request::Open);
    send(&mut o, LOCAL, 2, query("CREATE TABLE t(v)", None));
    send(
        &mut o,
        "f",
        3,
        query("INSERT INTO t VALUES (1)", Some("f.1")),
    );
    send(&mut o, LOCAL, 4, Request::Begin { txn: "l.1".into() });
    send(
        &mut o,
        LOCAL,
        5,
        query("INSERT INTO t VALUES (2)", Some("l.1")),
    );
    assert!(o.needs_sync());
    let out = send(&mut o, "f", 6, Request::Sync);
    assert!(matches!(out[0].2, Response::Done), "{:?}", out[0].2);
    assert!(!o.needs_sync());
    let image = handle.crash_image(CrashMode::DropUnflushed);
    let mut again =
        Owner::open(Box::new(MemoryDevice::from_bytes(image)), LOCAL, &opts()).expect("reopen");
    let out = send(&mut again, LOCAL, 7, query("SELECT v FROM t", None));
    assert_eq!(rows(out[0].2.clone()), vec![vec![WireValue::Integer(1)]]);
    let mut flushed = Owner::open(Box::new(MemoryDevice::new()), LOCAL, &opts()).expect("open");
    let out = send(&mut flushed, LOCAL, 8, Request::Sync);
    assert!(matches!(out[0].2, Response::Done), "{:?}", out[0].2);
}
