//! Randomized differential test of conflict resolution against SQLite:
//! random tables (INTEGER PRIMARY KEY, other primary keys, UNIQUE column and
//! table constraints, unique indexes, NOT NULL, DEFAULT, each constraint
//! with a random ON CONFLICT) and random INSERT / REPLACE / INSERT ...
//! SELECT / upsert / UPDATE / DELETE statements with random OR clauses (FAIL
//! and ROLLBACK too), run on both engines, for half the seeds inside one
//! transaction: each statement must succeed or fail on both, leave the same
//! rows and the same transaction state, and pass TinyJoin's integrity check.
//!
//! `CONFLICT_SEEDS=0..6000 cargo test --release -p tinyjoin-engine --test
//! conflict_fuzz -- --nocapture` runs more seeds (default 0..1000);
//! `CONFLICT_WIDE=1` the whole generator (see [`wide`]);
//! `CONFLICT_REPRO=file.sql` runs a script (one statement per line, lines
//! starting with `--` skipped) on both engines and prints each result.

mod common;

use common::{memory_pair, rows, sqlite_rows};
use tinyjoin_engine::{Connection, ConstraintKind, DbOptions, Error, Params, Value};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

const NAMES: [&str; 4] = ["a", "b", "c", "d"];

#[derive(Clone, Default)]
struct Col {
    name: &'static str,
    ipk: bool,
}

#[derive(Default)]
struct Schema {
    sql: Vec<String>,
    cols: Vec<Col>,
    /// Column sets that are unique (targets for upsert).
    unique_sets: Vec<Vec<&'static str>>,
}

/// The whole generator (`CONFLICT_WIDE=1`), which also finds the known
/// differences (README, SQL): UPDATE and INSERT ... SELECT row order under
/// IGNORE and REPLACE, and `excluded` before affinity on a rowid conflict.
/// Without it, statements pick rows by rowid (both engines visit them in
/// rowid order) and upserts on tables with an INTEGER PRIMARY KEY do not
/// read `excluded`.
fn wide() -> bool {
    std::env::var("CONFLICT_WIDE").is_ok()
}

/// A random conflict algorithm after `lead` (`ON CONFLICT` on a
/// constraint, `OR` in a statement), or none (twice as likely).
fn algorithm(r: &mut Rng, lead: &str) -> String {
    const ALGS: [&str; 7] = ["", "", "IGNORE", "REPLACE", "ABORT", "FAIL", "ROLLBACK"];
    match ALGS[r.below(7) as usize] {
        "" => String::new(),
        a => format!(" {lead} {a}"),
    }
}

fn alg(r: &mut Rng) -> String {
    algorithm(r, "ON CONFLICT")
}

fn stmt_alg(r: &mut Rng) -> String {
    algorithm(r, "OR")
}

fn value(r: &mut Rng) -> String {
    match r.below(12) {
        0 | 1 => "NULL".into(),
        2 => "'a'".into(),
        3 => "'b'".into(),
        _ => r.range(0, 6).to_string(),
    }
}

fn ipk_value(r: &mut Rng) -> String {
    match r.below(14) {
        0 | 1 => "NULL".into(),
        2 => "'a'".into(),
        _ => r.range(0, 6).to_string(),
    }
}

fn gen_schema(r: &mut Rng) -> Schema {
    let n = r.range(2, 4) as usize;
    let mut s = Schema::default();
    let ipk_at = if r.chance(40) {
        Some(r.below(n as u64) as usize)
    } else {
        None
    };
    // A non-integer primary key: 0 none, 1 column-level, 2 table-level.
    let pk_kind = if ipk_at.is_none() && r.chance(40) {
        1 + r.below(2)
    } else {
        0
    };
    let pk_col = r.below(n as u64) as usize;
    let mut defs = Vec::new();
    for (i, &name) in NAMES.iter().enumerate().take(n) {
        let mut d = String::from(name);
        let mut col = Col { name, ipk: false };
        if ipk_at == Some(i) {
            d += " INTEGER PRIMARY KEY";
            d += &alg(r);
            col.ipk = true;
            s.unique_sets.push(vec![name]);
        } else {
            let ty = *r.pick(&["", "", " INT", " TEXT", " INTEGER", " NUM"]);
            // A table-level PRIMARY KEY on an INTEGER column would be an
            // INTEGER PRIMARY KEY the generator does not know of.
            d += if !wide() && ty == " INTEGER" {
                " INT"
            } else {
                ty
            };
            if pk_kind == 1 && pk_col == i {
                d += " PRIMARY KEY";
                d += &alg(r);
                s.unique_sets.push(vec![name]);
            }
            if r.chance(40) {
                d += " NOT NULL";
                d += &alg(r);
            }
            if r.chance(40) {
                d += " DEFAULT ";
                d += &value(r);
            }
            if r.chance(25) {
                d += " UNIQUE";
                d += &alg(r);
                s.unique_sets.push(vec![name]);
            }
            if r.chance(10) {
                d += &format!(" CHECK ({name} < {})", r.range(2, 6));
            }
        }
        defs.push(d);
        s.cols.push(col);
    }
    let non_ipk: Vec<&'static str> = s.cols.iter().filter(|c| !c.ipk).map(|c| c.name).collect();
    let subset = |r: &mut Rng| -> Vec<&'static str> {
        let k = if non_ipk.len() >= 2 && r.chance(40) {
            2
        } else {
            1
        };
        let mut v: Vec<&'static str> = Vec::new();
        while v.len() < k {
            let c = *r.pick(&non_ipk);
            if !v.contains(&c) {
                v.push(c);
            }
        }
        v
    };
    if pk_kind == 2 && !non_ipk.is_empty() {
        let cols = subset(r);
        defs.push(format!("PRIMARY KEY({}){}", cols.join(", "), alg(r)));
        s.unique_sets.push(cols);
    }
    for _ in 0..2 {
        if !non_ipk.is_empty() && r.chance(30) {
            let cols = subset(r);
            defs.push(format!("UNIQUE({}){}", cols.join(", "), alg(r)));
            s.unique_sets.push(cols);
        }
    }
    s.sql.push(format!("CREATE TABLE t({})", defs.join(", ")));
    if r.chance(25) {
        let c = *r.pick(&NAMES[..n]);
        s.sql.push(format!("CREATE INDEX ti ON t({c})"));
    }
    if !non_ipk.is_empty() && r.chance(20) {
        let cols = subset(r);
        s.sql
            .push(format!("CREATE UNIQUE INDEX tu ON t({})", cols.join(", ")));
        s.unique_sets.push(cols);
    }
    s
}

fn col_expr(r: &mut Rng, s: &Schema) -> String {
    let c = r.pick(&s.cols).name;
    match r.below(10) {
        0..=2 => value(r),
        3 => "NULL".into(),
        4 | 5 => c.to_string(),
        6 | 7 => format!("{c} + {}", r.range(-2, 3)),
        8 => format!("coalesce({c}, {})", r.range(0, 6)),
        _ => format!("CASE WHEN {c} > {} THEN NULL ELSE {c} END", r.range(0, 4)),
    }
}

fn where_clause(r: &mut Rng, s: &Schema) -> String {
    if !wide() {
        return match r.below(3) {
            0 => String::new(),
            _ => format!(" WHERE rowid <= {}", r.range(1, 6)),
        };
    }
    let c = r.pick(&s.cols).name;
    match r.below(8) {
        0 | 1 => String::new(),
        2 => format!(" WHERE {c} = {}", r.range(0, 6)),
        3 | 4 => {
            let x = r.range(0, 5);
            format!(" WHERE {c} BETWEEN {x} AND {}", x + r.range(0, 2))
        }
        5 => format!(" WHERE {c} IS NULL"),
        6 => format!(" WHERE {c} > {}", r.range(0, 5)),
        _ => format!(" WHERE rowid <= {}", r.range(1, 6)),
    }
}

fn upsert(r: &mut Rng, s: &Schema) -> String {
    let mut out = String::new();
    let clauses = if r.chance(20) { 2 } else { 1 };
    for i in 0..clauses {
        let last = i + 1 == clauses;
        let target = if (last && r.chance(30)) || s.unique_sets.is_empty() {
            None
        } else {
            Some(r.pick(&s.unique_sets).clone())
        };
        out += " ON CONFLICT";
        if let Some(t) = &target {
            out += &format!("({})", t.join(", "));
        }
        if r.chance(35) {
            out += " DO NOTHING";
        } else {
            let mut sets = Vec::new();
            let k = r.range(1, 2);
            for _ in 0..k {
                let c = r.pick(&s.cols).name;
                let e = match r.below(6) {
                    0 | 1 if wide() || !s.cols.iter().any(|c| c.ipk) => {
                        format!("excluded.{}", r.pick(&s.cols).name)
                    }
                    2 => format!("{c} + {}", r.range(1, 3)),
                    3 => "NULL".into(),
                    _ => value(r),
                };
                if is_ipk(s, c) {
                    sets.push(format!("{c} = coalesce({e}, 9)"));
                } else {
                    sets.push(format!("{c} = {e}"));
                }
            }
            out += &format!(" DO UPDATE SET {}", sets.join(", "));
            if r.chance(20) {
                let c = r.pick(&s.cols).name;
                out += &format!(" WHERE {c} < {}", r.range(1, 5));
            }
        }
        if target.is_none() {
            break;
        }
    }
    out
}

fn col_list(r: &mut Rng, s: &Schema) -> Vec<&'static str> {
    if r.chance(30) {
        return s.cols.iter().map(|c| c.name).collect();
    }
    let mut v: Vec<&'static str> = s.cols.iter().map(|c| c.name).collect();
    // Shuffle then take a prefix.
    for i in (1..v.len()).rev() {
        let j = r.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
    let k = r.range(1, v.len() as i64) as usize;
    v.truncate(k);
    v
}

fn is_ipk(s: &Schema, name: &str) -> bool {
    s.cols.iter().any(|c| c.ipk && c.name == name)
}

fn gen_statement(r: &mut Rng, s: &Schema) -> String {
    match r.below(100) {
        0..=34 => {
            // INSERT ... VALUES
            let cols = col_list(r, s);
            let nrows = if r.chance(35) { r.range(2, 4) } else { 1 };
            let tuples: Vec<String> = (0..nrows)
                .map(|_| {
                    let vs: Vec<String> = cols
                        .iter()
                        .map(|c| if is_ipk(s, c) { ipk_value(r) } else { value(r) })
                        .collect();
                    format!("({})", vs.join(", "))
                })
                .collect();
            let (verb, up) = if r.chance(12) {
                ("REPLACE".to_string(), String::new())
            } else {
                let up = if r.chance(30) {
                    upsert(r, s)
                } else {
                    String::new()
                };
                (format!("INSERT{}", stmt_alg(r)), up)
            };
            format!(
                "{verb} INTO t({}) VALUES {}{up}",
                cols.join(", "),
                tuples.join(", ")
            )
        }
        35..=44 => {
            // INSERT ... SELECT from the same table with shifted keys.
            let cols = col_list(r, s);
            let exprs: Vec<String> = cols
                .iter()
                .map(|c| match r.below(6) {
                    0 | 1 => format!("{c} + {}", r.range(1, 4)),
                    2 => c.to_string(),
                    3 => r.pick(&s.cols).name.to_string(),
                    4 => "NULL".into(),
                    _ => value(r),
                })
                .collect();
            let mut w = where_clause(r, s);
            if w.is_empty() {
                w = " WHERE 1".into();
            }
            let up = if r.chance(30) {
                upsert(r, s)
            } else {
                String::new()
            };
            let verb = if r.chance(10) {
                "REPLACE".to_string()
            } else {
                format!("INSERT{}", stmt_alg(r))
            };
            format!(
                "{verb} INTO t({}) SELECT {} FROM t{w}{}{up}",
                cols.join(", "),
                exprs.join(", "),
                if wide() { "" } else { " ORDER BY rowid" }
            )
        }
        45..=47 => format!("INSERT{} INTO t DEFAULT VALUES", stmt_alg(r)),
        48..=89 => {
            let k = r.range(1, 2);
            let mut sets = Vec::new();
            let mut used = Vec::new();
            for _ in 0..k {
                let c = r.pick(&s.cols).name;
                if used.contains(&c) {
                    continue;
                }
                used.push(c);
                if is_ipk(s, c) {
                    sets.push(format!("{c} = coalesce({}, 9)", col_expr(r, s)));
                } else {
                    sets.push(format!("{c} = {}", col_expr(r, s)));
                }
            }
            format!(
                "UPDATE{} t SET {}{}",
                stmt_alg(r),
                sets.join(", "),
                where_clause(r, s)
            )
        }
        _ => {
            let mut w = where_clause(r, s);
            if w.is_empty() {
                w = " WHERE rowid = 1".into();
            }
            format!("DELETE FROM t{w}")
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Ok(u64),
    Constraint(&'static str),
    Other(String),
}

fn tj_kind(k: ConstraintKind) -> &'static str {
    match k {
        ConstraintKind::Unique => "UNIQUE",
        ConstraintKind::PrimaryKey => "PRIMARYKEY",
        ConstraintKind::NotNull => "NOTNULL",
        ConstraintKind::Check => "CHECK",
        ConstraintKind::ForeignKey => "FOREIGNKEY",
        ConstraintKind::Datatype => "DATATYPE",
        ConstraintKind::Trigger => "TRIGGER",
    }
}

fn run_tj(tj: &mut Connection, sql: &str) -> (Outcome, Option<Error>) {
    match tj.execute(sql, &Params::None) {
        Ok(r) => (Outcome::Ok(r.changes), None),
        Err(Error::Constraint { kind, .. }) => (Outcome::Constraint(tj_kind(kind)), None),
        Err(e) => (Outcome::Other(format!("{e:?}")), Some(e)),
    }
}

fn run_lite(lite: &rusqlite::Connection, sql: &str) -> Outcome {
    match lite.execute(sql, []) {
        Ok(n) => Outcome::Ok(n as u64),
        Err(rusqlite::Error::SqliteFailure(e, msg)) => match e.extended_code {
            2067 => Outcome::Constraint("UNIQUE"),
            1555 => Outcome::Constraint("PRIMARYKEY"),
            1299 => Outcome::Constraint("NOTNULL"),
            275 => Outcome::Constraint("CHECK"),
            787 => Outcome::Constraint("FOREIGNKEY"),
            3091 => Outcome::Constraint("DATATYPE"),
            _ => Outcome::Other(format!("{e:?} {msg:?}")),
        },
        Err(e) => Outcome::Other(format!("{e:?}")),
    }
}

fn same_detail(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Other(_), Outcome::Other(_)) => true,
        _ => a == b,
    }
}

fn read_sql(ncols: usize) -> String {
    let order: Vec<String> = (1..=ncols).map(|i| i.to_string()).collect();
    format!("SELECT * FROM t ORDER BY {}", order.join(", "))
}

fn try_rows(tj: &mut Connection, sql: &str) -> Result<Vec<Vec<Value>>, String> {
    tj.execute(sql, &Params::None)
        .map(|r| r.rows)
        .map_err(|e| format!("{e:?}"))
}

fn fmt_rows(rs: &[Vec<Value>]) -> String {
    rs.iter()
        .map(|r| {
            let cells: Vec<String> = r
                .iter()
                .map(|v| match v {
                    Value::Null => "NULL".into(),
                    Value::Integer(i) => i.to_string(),
                    Value::Real(f) => format!("{f:?}"),
                    Value::Text(t) => format!("'{t}'"),
                    Value::Blob(b) => format!("x{b:?}"),
                })
                .collect();
            format!("({})", cells.join(","))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn seeds() -> std::ops::Range<u64> {
    common::seed_range("CONFLICT_SEEDS").unwrap_or(0..1000)
}

#[test]
fn conflict_resolution_matches_sqlite_on_random_schemas() {
    let mut hard = Vec::new();
    let mut soft = Vec::new();
    let mut unsupported = Vec::new();
    let (mut nseeds, mut nstmts, mut bad_schema) = (0u64, 0u64, 0u64);
    let mut ok_stmts = 0u64;
    for seed in seeds() {
        nseeds += 1;
        let mut r = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x00C0_FFEE);
        let s = gen_schema(&mut r);
        let (db, lite) = memory_pair(DbOptions::default());
        let mut tj = db.connect();
        let schema = s.sql.join("; ");
        let lite_ok = lite.execute_batch(&schema);
        if lite_ok.is_err() {
            bad_schema += 1;
            continue;
        }
        if let Err(e) = tj.execute_batch(&schema) {
            unsupported.push(format!("seed {seed}: schema {schema}: {e:?}"));
            continue;
        }
        let read = read_sql(s.cols.len());
        let mut history: Vec<String> = Vec::new();
        let mut soft_seen = false;
        let n = r.range(10, 30) as usize;
        // Fill: a few plain single-row inserts of every column.
        let fill = r.range(2, 5) as usize;
        // Half the seeds run their statements in one transaction, where
        // FAIL keeps a statement's earlier rows and ROLLBACK ends it.
        let begin = r.chance(50);
        for i in 0..fill + n {
            let sql = if i == fill && begin {
                "BEGIN".to_string()
            } else if i < fill {
                let vs: Vec<String> = s
                    .cols
                    .iter()
                    .map(|c| {
                        if c.ipk {
                            ipk_value(&mut r)
                        } else {
                            value(&mut r)
                        }
                    })
                    .collect();
                format!("INSERT INTO t VALUES ({})", vs.join(", "))
            } else {
                gen_statement(&mut r, &s)
            };
            history.push(sql.clone());
            nstmts += 1;
            let (ours, tj_err) = run_tj(&mut tj, &sql);
            let theirs = run_lite(&lite, &sql);
            let report = |what: String| {
                format!(
                    "seed {seed}: {what}\n  schema: {schema}\n  statements:\n    {}\n",
                    history.join(";\n    ")
                )
            };
            if matches!(ours, Outcome::Ok(_)) {
                ok_stmts += 1;
            }
            let ours_ok = matches!(ours, Outcome::Ok(_));
            let theirs_ok = matches!(theirs, Outcome::Ok(_));
            if ours_ok != theirs_ok {
                let msg = format!("outcome: tinyjoin {ours:?} vs sqlite {theirs:?}");
                let th = format!("{theirs:?}");
                if th.contains("datatype mismatch") {
                    unsupported.push(format!("TYPE {}", report(msg)));
                } else if th.contains("ON CONFLICT clause does not match") {
                    unsupported.push(format!("UPSERT_TARGET {}", report(msg)));
                } else if matches!(tj_err, Some(Error::Syntax { .. }) | Some(Error::Sql { .. })) {
                    unsupported.push(report(msg));
                } else {
                    hard.push(report(msg));
                }
                break;
            }
            let mine = match try_rows(&mut tj, &read) {
                Ok(x) => x,
                Err(e) => {
                    hard.push(report(format!("read failed after statement: {e}")));
                    break;
                }
            };
            let want = sqlite_rows(&lite, &read);
            if mine != want {
                let msg = format!(
                    "contents (ours {ours:?}, sqlite {theirs:?}):\n    tinyjoin: {}\n    sqlite:   {}",
                    fmt_rows(&mine),
                    fmt_rows(&want)
                );
                // In a transaction, SQLite keeps the rows an OR REPLACE
                // statement wrote before one of its rowids fails with
                // "datatype mismatch" (it keeps no statement journal for a
                // statement it judges cannot abort); TinyJoin undoes the
                // statement (README, SQL).
                if format!("{theirs:?}").contains("datatype mismatch") {
                    unsupported.push(format!("TYPE {}", report(msg)));
                } else {
                    hard.push(report(msg));
                }
                break;
            }
            if tj.in_transaction() == lite.is_autocommit() {
                hard.push(report(format!(
                    "in a transaction: tinyjoin {}, sqlite {}",
                    tj.in_transaction(),
                    !lite.is_autocommit()
                )));
                break;
            }
            let check = try_rows(&mut tj, "PRAGMA integrity_check");
            if check != Ok(vec![vec![Value::Text("ok".into())]]) {
                hard.push(report(format!("integrity_check: {check:?}")));
                break;
            }
            // (SQLite's count after BEGIN is the previous statement's.)
            if !soft_seen && sql != "BEGIN" && !same_detail(&ours, &theirs) {
                soft_seen = true;
                soft.push(report(format!(
                    "result detail: tinyjoin {ours:?} vs sqlite {theirs:?}"
                )));
            }
            if !soft_seen {
                let rq = "SELECT rowid, * FROM t ORDER BY rowid";
                if let Ok(mine) = try_rows(&mut tj, rq) {
                    let want = sqlite_rows(&lite, rq);
                    if mine != want {
                        soft_seen = true;
                        soft.push(report(format!(
                            "rowids:\n    tinyjoin: {}\n    sqlite:   {}",
                            fmt_rows(&mine),
                            fmt_rows(&want)
                        )));
                    }
                }
            }
        }
    }
    println!(
        "conflict_fuzz: {nseeds} seeds ({bad_schema} schemas SQLite rejected), {nstmts} statements ({ok_stmts} succeeded in TinyJoin); {} hard mismatches, {} soft, {} unsupported",
        hard.len(),
        soft.len(),
        unsupported.len()
    );
    for u in &unsupported {
        println!("UNSUPPORTED {u}");
    }
    for u in &soft {
        println!("SOFT {u}");
    }
    for h in &hard {
        println!("HARD {h}");
    }
    assert!(
        hard.is_empty(),
        "{} hard mismatches (see output)",
        hard.len()
    );
}

#[test]
fn conflict_repro() {
    let Ok(path) = std::env::var("CONFLICT_REPRO") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let (db, lite) = memory_pair(DbOptions::default());
    let mut tj = db.connect();
    for line in text.lines() {
        let sql = line.trim().trim_end_matches(';');
        if sql.is_empty() || sql.starts_with("--") {
            continue;
        }
        let (ours, err) = run_tj(&mut tj, sql);
        let theirs = run_lite(&lite, sql);
        println!(
            "> {sql}\n  tinyjoin: {ours:?} {}\n  sqlite:   {theirs:?}",
            err.map(|_| "").unwrap_or("")
        );
        if sql.starts_with("CREATE") {
            continue;
        }
        let rq = "SELECT rowid, * FROM t ORDER BY rowid";
        let mine = try_rows(&mut tj, rq).map(|r| fmt_rows(&r));
        let want = fmt_rows(&sqlite_rows(&lite, rq));
        let mark = if mine.as_deref() == Ok(want.as_str()) {
            ""
        } else {
            "   <<< DIFF"
        };
        println!("  tj rows:  {mine:?}{mark}\n  sq rows:  {want}");
    }
    let _ = rows(&mut tj, "PRAGMA integrity_check");
}
