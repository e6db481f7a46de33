//! Byte keys into byte order, by a radix sort on eight-byte words: the
//! in-memory sort under CREATE INDEX ([`super::keysort::KeySorter`]) and
//! under a statement's queued index entries ([`super::keysort::KeyBatch`]).
//!
//! Each item carries a word: its key's eight bytes from `depth` on,
//! big-endian and zero-padded ([`key_prefix`]), so that word order is
//! key order whenever the words differ. Items are sorted by their words
//! with a least-significant-byte-first counting sort, skipping the byte
//! positions where every item has the same byte (an index key's first
//! bytes are a type tag and the high bytes of a number, often shared by
//! all). Runs of equal words are then ordered by their next eight bytes
//! the same way, and runs that are short, hold a key that ends within the
//! word, or lie past [`MAX_DEPTH`] are ordered by comparing the keys.
//!
//! A comparison sort of n keys compares about n·log2(n) times, each a
//! closure call and two loads; the counting sort reads and writes each
//! item once per distinct byte position. Measured: CREATE INDEX on lower(e)
//! over 200,000 rows 113-115 -> 105-107 ms natively (see HISTORY.md).
//!
//! [`key_prefix`]: crate::storage::key_prefix

use crate::storage::{cmp_keys_from, key_prefix};

/// Runs no longer than this are ordered by comparison: below it a counting
/// sort's fixed cost (its 2,048 counters) exceeds the comparisons'.
const SMALL: usize = 48;

/// How deep (in bytes) runs of equal words are split by further words;
/// past it, by comparison. Bounds the recursion for long keys.
const MAX_DEPTH: usize = 32;

/// One key to sort: a word of it (at first [`key_prefix`] of the whole
/// key; later words meanwhile) and the key's number for `key`.
pub(crate) type Item = (u64, u32);

/// Sorts `items` into the byte order of their keys (`key` gives key
/// number `i`), each item's word holding [`key_prefix`] of its key on
/// entry. Equal keys end up adjacent, in no particular order. One
/// function for every caller (keys reached through `key`, not a type
/// parameter): one copy of it in the module.
pub(crate) fn sort_by_key_bytes<'k>(items: &mut [Item], key: &dyn Fn(u32) -> &'k [u8]) {
    let mut scratch = Vec::new();
    sort_level(items, &mut scratch, 0, key);
}

/// Sorts `items`, whose keys are all longer than `depth` bytes (at depth
/// 0: any length) and equal before it, and whose words hold their bytes
/// `depth..depth + 8`.
fn sort_level<'k>(
    items: &mut [Item],
    scratch: &mut Vec<Item>,
    depth: usize,
    key: &dyn Fn(u32) -> &'k [u8],
) {
    if items.len() <= SMALL || depth > MAX_DEPTH {
        items.sort_unstable_by(|a, b| cmp_keys_from(key(a.1), key(b.1), depth));
        return;
    }
    radix_by_word(items, scratch);
    let next = depth + 8;
    let mut start = 0;
    while start < items.len() {
        let w = items[start].0;
        let mut end = start + 1;
        while end < items.len() && items[end].0 == w {
            end += 1;
        }
        let run = &mut items[start..end];
        if run.len() > 1 {
            if run.iter().all(|t| key(t.1).len() > next) {
                for t in run.iter_mut() {
                    t.0 = key_prefix(&key(t.1)[next..]);
                }
                sort_level(run, scratch, next, key);
            } else {
                // A key ends within this word: the zero padding may tie it
                // with a longer key, which the comparison orders by length.
                run.sort_unstable_by(|a, b| cmp_keys_from(key(a.1), key(b.1), depth));
            }
        }
        start = end;
    }
}

/// Stable counting sorts of `items` by their words' bytes, least
/// significant first, skipping the bytes every item shares.
fn radix_by_word(items: &mut [Item], scratch: &mut Vec<Item>) {
    let n = items.len();
    let mut counts = [[0u32; 256]; 8];
    for t in items.iter() {
        for (b, c) in counts.iter_mut().enumerate() {
            c[((t.0 >> (8 * b)) & 0xff) as usize] += 1;
        }
    }
    scratch.clear();
    scratch.extend_from_slice(items);
    // Which of `items` and `scratch` holds the order so far.
    let mut in_scratch = false;
    for (b, c) in counts.iter_mut().enumerate() {
        if c.iter().any(|&k| k as usize == n) {
            continue;
        }
        let mut at = 0u32;
        for k in c.iter_mut() {
            let here = *k;
            *k = at;
            at += here;
        }
        let (from, to): (&[Item], &mut [Item]) = match in_scratch {
            false => (items, scratch),
            true => (scratch, items),
        };
        for t in from {
            let slot = &mut c[((t.0 >> (8 * b)) & 0xff) as usize];
            to[*slot as usize] = *t;
            *slot += 1;
        }
        in_scratch = !in_scratch;
    }
    if in_scratch {
        items.copy_from_slice(scratch);
    }
}

#[cfg(test)]
mod tests {
    //! The radix order against `sort` of the same keys, over keys made to
    //! share words, end within words, hold zero bytes and run past the
    //! recursion's depth.

    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn sorted(keys: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut items: Vec<Item> = keys
            .iter()
            .zip(0..)
            .map(|(k, i)| (key_prefix(k), i))
            .collect();
        sort_by_key_bytes(&mut items, &|i| &keys[i as usize]);
        items.iter().map(|t| keys[t.1 as usize].clone()).collect()
    }

    #[test]
    fn radix_order_is_byte_order() {
        let mut rng = SmallRng::seed_from_u64(5);
        for round in 0..300 {
            let n = rng.gen_range(0..2_000);
            // A shared head of 0, 8, 13 or 40 bytes, then a short
            // alphabet: long runs of equal words at every depth.
            let head: Vec<u8> = (0..[0, 8, 13, 40][round % 4]).map(|_| rng.gen()).collect();
            let alphabet = [2u8, 3, 4, 255][round / 4 % 4];
            let keys: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let mut k = head.clone();
                    if rng.gen_range(0..4) == 0 {
                        k.truncate(rng.gen_range(0..=head.len()));
                    }
                    let len = rng.gen_range(0..30);
                    k.extend((0..len).map(|_| rng.gen_range(0..alphabet)));
                    k
                })
                .collect();
            let mut expected = keys.clone();
            expected.sort();
            assert_eq!(sorted(&keys), expected, "round {round}");
        }
    }

    #[test]
    fn numbers_with_row_ids_sort_like_their_bytes() {
        // An index's keys: a tag, a big-endian number, a row id.
        let mut rng = SmallRng::seed_from_u64(6);
        let keys: Vec<Vec<u8>> = (0..20_000u64)
            .map(|id| {
                let mut k = vec![0x20];
                k.extend_from_slice(&(rng.gen_range(0..1000u64) as f64).to_bits().to_be_bytes());
                k.extend_from_slice(&id.to_be_bytes());
                k
            })
            .collect();
        let mut expected = keys.clone();
        expected.sort();
        assert_eq!(sorted(&keys), expected);
    }
}
