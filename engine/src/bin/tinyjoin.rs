//! `tinyjoin`: the native shell over a database file.
//!
//! ```text
//! tinyjoin FILE "SQL; SQL; ..."   run the statements, print rows
//! tinyjoin FILE                   read statements and dot-commands from stdin
//! tinyjoin :memory: ...           the same on a database in memory (as
//!                                 `sqlite3`; `./:memory:` names a file)
//! tinyjoin --help                 print the usage (no argument starting
//!                                 with '-' is taken for a file name)
//! ```
//!
//! Rows print like `sqlite3`'s default list mode: values separated by `|`,
//! NULL as an empty string. Dot-commands: `.tables`, `.schema [TABLE]`,
//! `.check` (full validation), `.dump` (SQL text that recreates the
//! database). Errors go to stderr and make the exit status non-zero.
//!
//! Sorts larger than the batch limit spill to a temp file in
//! `std::env::temp_dir()`, removed when the shell exits (on Unix it is
//! unlinked as soon as it is open, so even a crash leaves nothing).

use std::io::{BufRead, Write};
use std::process::ExitCode;

use tinyjoin_engine::storage::FileDevice;
use tinyjoin_engine::{Connection, Database, DbOptions, Params, Value};

/// The shell's temp file: a fresh name in the system temp directory,
/// removed when this is dropped (and, on Unix, as soon as it is open).
struct TempFile {
    path: std::path::PathBuf,
}

impl TempFile {
    fn new() -> TempFile {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!("tinyjoin-temp-{}-{nanos}", std::process::id());
        TempFile {
            path: std::env::temp_dir().join(name),
        }
    }

    fn open(&self) -> tinyjoin_engine::Result<FileDevice> {
        let device = FileDevice::open(&self.path)?;
        if cfg!(unix) {
            // The open handle keeps the file; the name is no longer needed.
            let _ = std::fs::remove_file(&self.path);
        }
        Ok(device)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    const USAGE: &str = "usage: tinyjoin FILE [SQL]  (a FILE starting with '-' is written ./-name)";
    let Some(path) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    // An option is never taken for a file name: `tinyjoin --help` must not
    // create a database called "--help".
    if path.starts_with('-') {
        if path == "-h" || path == "--help" {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        eprintln!("Error: unknown option {path}\n{USAGE}");
        return ExitCode::from(2);
    }
    let temp = TempFile::new();
    let db = match temp.open().and_then(|t| {
        if path == ":memory:" {
            let d = tinyjoin_engine::storage::MemoryDevice::new();
            return Database::open_with_temp(Box::new(d), Box::new(t), DbOptions::default());
        }
        let d = FileDevice::open(path)?;
        Database::open_with_temp(Box::new(d), Box::new(t), DbOptions::default())
    }) {
        Ok(db) => db,
        Err(e) => {
            eprintln!("Error: cannot open {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let mut conn = db.connect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let ok = match args.get(1) {
        Some(sql) => run_input(&db, &mut conn, sql, &mut out),
        None => {
            let mut all_ok = true;
            let mut pending = String::new();
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if pending.trim().is_empty() && line.trim_start().starts_with('.') {
                    all_ok &= run_input(&db, &mut conn, &line, &mut out);
                    continue;
                }
                pending.push_str(&line);
                pending.push('\n');
                if line.trim_end().ends_with(';') {
                    all_ok &= run_input(&db, &mut conn, &pending, &mut out);
                    pending.clear();
                }
            }
            if !pending.trim().is_empty() {
                all_ok &= run_input(&db, &mut conn, &pending, &mut out);
            }
            all_ok
        }
    };
    drop(conn);
    // Closing confirms the newest commit (engine/FORMAT.md, "Confirmation"):
    // damage to it is then reported on the next open, which need not re-read
    // its pages either.
    let ok = match db.sync() {
        Ok(()) => ok,
        Err(e) => {
            eprintln!("Error: {e}");
            false
        }
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Runs SQL text or one dot-command; reports errors on stderr.
fn run_input(db: &Database, conn: &mut Connection, input: &str, out: &mut dyn Write) -> bool {
    let trimmed = input.trim();
    let result = if let Some(cmd) = trimmed.strip_prefix('.') {
        dot_command(db, conn, cmd, out)
    } else {
        run_sql(conn, trimmed, out)
    };
    match result {
        Ok(()) => true,
        Err(e) => {
            eprintln!("Error: {e}");
            false
        }
    }
}

fn render(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => tinyjoin_engine::sql::value::real_to_text(*r),
        Value::Text(s) => s.clone(),
        Value::Blob(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// SQL literal text of a value (for `.dump`).
fn literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Text(s) => format!("'{}'", s.replace('\'', "''")),
        Value::Blob(b) => format!(
            "X'{}'",
            b.iter().map(|x| format!("{x:02X}")).collect::<String>()
        ),
        other => render(other),
    }
}

/// Runs each statement of `sql`, printing the rows of those that return some.
fn run_sql(conn: &mut Connection, sql: &str, out: &mut dyn Write) -> Result<(), String> {
    let mut rest = sql;
    while !rest.trim().is_empty() {
        let mut stmt = conn.prepare(rest).map_err(|e| e.to_string())?;
        let result = stmt
            .execute(conn, &Params::None)
            .map_err(|e| e.to_string())?;
        for row in &result.rows {
            let line: Vec<String> = row.iter().map(render).collect();
            writeln!(out, "{}", line.join("|")).map_err(|e| e.to_string())?;
        }
        rest = stmt.tail(rest);
    }
    Ok(())
}

fn query(conn: &mut Connection, sql: &str) -> Result<Vec<Vec<Value>>, String> {
    conn.execute(sql, &Params::None)
        .map(|r| r.rows)
        .map_err(|e| e.to_string())
}

fn dot_command(
    db: &Database,
    conn: &mut Connection,
    cmd: &str,
    out: &mut dyn Write,
) -> Result<(), String> {
    let mut words = cmd.split_whitespace();
    let w = |e: std::io::Error| e.to_string();
    match words.next().unwrap_or("") {
        "tables" => {
            let rows = query(
                conn,
                "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name",
            )?;
            let names: Vec<String> = rows.iter().map(|r| render(&r[0])).collect();
            writeln!(out, "{}", names.join("  ")).map_err(w)
        }
        "schema" => {
            let sql = match words.next() {
                Some(t) => format!(
                    "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND lower(tbl_name) = lower('{}') ORDER BY type DESC, name",
                    t.replace('\'', "''")
                ),
                None => "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY type DESC, name".into(),
            };
            for r in query(conn, &sql)? {
                writeln!(out, "{};", render(&r[0])).map_err(w)?;
            }
            Ok(())
        }
        "check" => {
            let report = db.check().map_err(|e| e.to_string())?;
            if report.problems.is_empty() {
                writeln!(out, "ok").map_err(w)
            } else {
                for p in &report.problems {
                    writeln!(out, "{p:?}").map_err(w)?;
                }
                Err(format!("{} problems found", report.problems.len()))
            }
        }
        "dump" => dump(conn, out),
        other => Err(format!("unknown command: .{other}")),
    }
}

fn dump(conn: &mut Connection, out: &mut dyn Write) -> Result<(), String> {
    let w = |e: std::io::Error| e.to_string();
    writeln!(out, "BEGIN TRANSACTION;").map_err(w)?;
    let tables = query(
        conn,
        "SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY name",
    )?;
    for t in &tables {
        let name = render(&t[0]);
        writeln!(out, "{};", render(&t[1])).map_err(w)?;
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        // Generated columns are computed again by the INSERTs, which name
        // the others.
        let columns: Vec<String> = query(
            conn,
            &format!(
                "SELECT name FROM pragma_table_xinfo({}) WHERE hidden = 0",
                literal(&t[0])
            ),
        )?
        .iter()
        .map(|c| format!("\"{}\"", render(&c[0]).replace('"', "\"\"")))
        .collect();
        let list = columns.join(",");
        for row in query(conn, &format!("SELECT {list} FROM {quoted}"))? {
            let values: Vec<String> = row.iter().map(literal).collect();
            writeln!(
                out,
                "INSERT INTO {quoted}({list}) VALUES({});",
                values.join(",")
            )
            .map_err(w)?;
        }
    }
    // AUTOINCREMENT's sequences, once the rows that create them are back.
    for r in query(conn, "SELECT name, seq FROM sqlite_sequence ORDER BY name")? {
        writeln!(
            out,
            "UPDATE sqlite_sequence SET seq = {} WHERE name = {};",
            literal(&r[1]),
            literal(&r[0])
        )
        .map_err(w)?;
    }
    // Triggers last: after the rows (which must not fire them again) and
    // the views (an INSTEAD OF trigger's).
    for r in query(conn, "SELECT sql FROM sqlite_schema WHERE type IN ('index', 'view', 'trigger') AND sql IS NOT NULL ORDER BY type = 'trigger', type, name")? {
        writeln!(out, "{};", render(&r[0])).map_err(w)?;
    }
    writeln!(out, "COMMIT;").map_err(w)
}
