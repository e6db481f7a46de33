use std::time::Instant;
use tinyjoin_engine::storage::MemoryDevice;
use tinyjoin_engine::{Database, DbOptions, Params, Value};
fn main() {
    let db = Database::open(Box::new(MemoryDevice::new()), DbOptions::default()).unwrap();
    let mut c = db.connect();
    let lite = rusqlite::Connection::open_in_memory().unwrap();
    let ddl = "CREATE TABLE t(id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL, c TEXT NOT NULL)";
    c.execute(ddl, &Params::None).unwrap();
    lite.execute_batch(ddl).unwrap();
    let mut x: u64 = 3;
    let mut r = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    c.execute("BEGIN", &Params::None).unwrap();
    lite.execute_batch("BEGIN").unwrap();
    let mut ins = c.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)").unwrap();
    for i in 1..=200_000i64 {
        let v = vec![
            Value::Integer(i),
            Value::Integer((r() % 100) as i64),
            Value::Integer((r() % 1000) as i64),
            Value::Integer((r() % 1000) as i64),
            Value::Text(format!("c{}", r() % 50_000)),
        ];
        lite.execute(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
            rusqlite::params![
                i,
                match &v[1] {
                    Value::Integer(n) => *n,
                    _ => 0,
                },
                match &v[2] {
                    Value::Integer(n) => *n,
                    _ => 0,
                },
                match &v[3] {
                    Value::Integer(n) => *n,
                    _ => 0,
                },
                match &v[4] {
                    Value::Text(s) => s.clone(),
                    _ => String::new(),
                }
            ],
        )
        .unwrap();
        ins.execute(&mut c, &Params::Positional(v)).unwrap();
    }
    c.execute("COMMIT", &Params::None).unwrap();
    lite.execute_batch("COMMIT").unwrap();
    let qs = std::env::args().skip(1).collect::<Vec<_>>();
    for q in &qs {
        for _ in 0..3 {
            let t0 = Instant::now();
            let rows = measured_tj(&mut c, q);
            let a = t0.elapsed();
            let t0 = Instant::now();
            let n: i64 = lite.query_row(q, [], |r| r.get(0)).unwrap();
            let b = t0.elapsed();
            println!(
                "{q}: tinyjoin {:.2} ms {:?} | sqlite {:.2} ms {n}",
                a.as_secs_f64() * 1e3,
                rows[0][0],
                b.as_secs_f64() * 1e3
            );
        }
    }
}

#[inline(never)]
fn measured_tj(c: &mut tinyjoin_engine::Connection, q: &str) -> Vec<Vec<Value>> {
    c.execute(q, &Params::None).unwrap().rows
}
