//! The operations of the comparison's mixed transactions, shared by the
//! profiling examples (`profile_writes`, and `profile_owner` in the worker
//! crate).

use tinyjoin_engine::Value;

/// The operations of one mixed transaction over `n` rows (the comparison's
/// `mixedOps`): (0 insert | 1 update | 2 delete, parameters); updates hit
/// odd initial ids, deletes even ones. `payload` makes an inserted row's payload.
pub fn mixed_ops(n: i64, payload: impl Fn(i64) -> String) -> Vec<(usize, Vec<Value>)> {
    let (mut u, mut d) = (0, 0);
    (0..n)
        .map(|k| match k % 3 {
            0 => {
                let id = n + 1 + k;
                let row = vec![
                    Value::Integer(id),
                    Value::Text(format!("n{id}")),
                    Value::Text(payload(id)),
                ];
                (0, row)
            }
            1 => {
                let id = 2 * u + 1;
                u += 1;
                (
                    1,
                    vec![Value::Text(format!("u{id}-{k}")), Value::Integer(id)],
                )
            }
            _ => {
                d += 1;
                (2, vec![Value::Integer(2 * d)])
            }
        })
        .collect()
}
