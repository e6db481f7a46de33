//! The native shell (`src/bin/tinyjoin.rs`): statements from the command
//! line print their rows, and the shell confirms its last commit when it
//! exits, so the file it leaves needs no sync.

use std::process::Command;
use tinyjoin_engine::storage::{FileDevice, Store, StoreOptions};

#[test]
fn the_shell_runs_statements_and_leaves_its_last_commit_confirmed() {
    let path = std::env::temp_dir().join(format!("tinyjoin-cli-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let shell = |sql: &str| {
        Command::new(env!("CARGO_BIN_EXE_tinyjoin"))
            .arg(&path)
            .arg(sql)
            .output()
            .expect("the shell runs")
    };
    let made = shell("CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, NULL)");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let read = shell("SELECT a, b FROM t ORDER BY a");
    assert!(read.status.success());
    assert_eq!(String::from_utf8_lossy(&read.stdout), "1|x\n2|\n");
    let store = Store::open(
        Box::new(FileDevice::open(&path).unwrap()),
        StoreOptions::default(),
    )
    .unwrap();
    assert!(
        !store.needs_sync(),
        "the shell left its last commit unconfirmed"
    );
    drop(store);
    let bad = shell("SELEC 1");
    assert!(
        !bad.status.success(),
        "a syntax error makes the exit status non-zero"
    );
    let _ = std::fs::remove_file(&path);
}

#[test]
fn an_option_is_never_taken_for_a_file_name() {
    let dir = std::env::temp_dir().join(format!("tinyjoin-cli-opt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |arg: &str| {
        Command::new(env!("CARGO_BIN_EXE_tinyjoin"))
            .current_dir(&dir)
            .arg(arg)
            .output()
            .expect("the shell runs")
    };
    let help = run("--help");
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).starts_with("usage: tinyjoin FILE"));
    let unknown = run("--frobnicate");
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown option --frobnicate"));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "the shell created {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `.dump` recreates the database: restored into a new file it gives the
/// same rows (generated columns computed again, not inserted) and keeps
/// AUTOINCREMENT's sequence past deleted rows, and its triggers (created
/// after the rows, which do not fire them again); `:memory:` names no file.
#[test]
fn a_dump_restores_generated_columns_sequences_and_triggers() {
    let dir = std::env::temp_dir().join(format!("tinyjoin-cli-dump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |file: &str, sql: Option<&str>, stdin: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tinyjoin"));
        cmd.current_dir(&dir).arg(file);
        if let Some(sql) = sql {
            cmd.arg(sql);
        }
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("the shell runs");
        if let Some(input) = stdin {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
        }
        drop(child.stdin.take());
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    run(
        "a.db",
        Some(
            "CREATE TABLE g(id INTEGER PRIMARY KEY AUTOINCREMENT, a, \"o'd\" TEXT, b AS (a * 2), c AS (a || 'x') STORED);
             CREATE TABLE log(x);
             CREATE TRIGGER gl AFTER INSERT ON g BEGIN INSERT INTO log VALUES (new.a); END;
             CREATE VIEW gv AS SELECT id, a FROM g;
             CREATE TRIGGER gvi INSTEAD OF INSERT ON gv BEGIN INSERT INTO g(a) VALUES (new.a * 10); END;
             INSERT INTO g(a, \"o'd\") VALUES (1, 'q'), (2, 'it''s'), (3, NULL);
             DELETE FROM g WHERE id = 3;
             CREATE INDEX gb ON g(b)",
        ),
        None,
    );
    let dump = run("a.db", None, Some(".dump\n"));
    run("b.db", None, Some(&dump));
    let read = "SELECT * FROM g ORDER BY id; SELECT * FROM sqlite_sequence; INSERT INTO g(a) VALUES (9) RETURNING id";
    assert_eq!(
        run("b.db", Some(read), None),
        "1|1|q|2|1x\n2|2|it's|4|2x\ng|3\n4\n"
    );
    // The triggers came back after the rows (which did not fire them again).
    let fired = "INSERT INTO gv(a) VALUES (5); SELECT x FROM log ORDER BY rowid";
    assert_eq!(run("b.db", Some(fired), None), "1\n2\n3\n9\n50\n");
    assert_eq!(run(":memory:", Some("SELECT 1"), None), "1\n");
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".db"))
        .collect();
    assert!(left.is_empty(), "the shell created {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
