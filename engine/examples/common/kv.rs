//! The comparison's point-lookup data, shared by the profiling examples
//! (`profile_writes lookups`, and `profile_owner lookups` in the worker
//! crate): a xorshift generator, the 100,000 rows of table `kv` and the
//! 10,000 ids its warm lookups read.

use tinyjoin_engine::Value;

/// A xorshift generator: data of the comparison's shapes and distributions
/// (its own generator is another, so not the same values).
pub fn prng(seed: u32) -> impl FnMut() -> u32 {
    let mut s = seed.wrapping_mul(2_654_435_761) | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    }
}

pub const KV_TABLE: &str =
    "CREATE TABLE kv(id INTEGER PRIMARY KEY, k INTEGER NOT NULL, v TEXT NOT NULL)";
pub const KV_INSERT: &str = "INSERT INTO kv(id, k, v) VALUES (?, ?, ?)";
pub const KV_LOOKUP: &str = "SELECT k, v FROM kv WHERE id = ?";

/// The 100,000 rows of `kv` (id, k, a 48-character v), then the 10,000
/// ids the lookups read, drawn from one generator.
#[allow(dead_code)] // each example uses what it needs
pub fn kv_rows_and_ids() -> (Vec<Vec<Value>>, Vec<i64>) {
    let mut r = prng(2);
    let rows = (1..=100_000i64)
        .map(|i| {
            let v = format!("value-{i}-");
            vec![
                Value::Integer(i),
                Value::Integer(i64::from(r() % 100_000)),
                Value::Text(format!("{v:v<48}")),
            ]
        })
        .collect();
    let ids = (0..10_000).map(|_| 1 + i64::from(r() % 100_000)).collect();
    (rows, ids)
}
