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
