//! A fast hasher for the engine's in-memory maps: the storage layer's
//! (node cache, dirty and owned pages, tree entries of a transaction),
//! keyed by page numbers and short tree names and looked up on every node
//! access, and the SQL executor's hash tables (join builds, GROUP BY
//! groups, DISTINCT and compound sets), keyed by encoded values and looked
//! up once per row. There the standard library's DoS-resistant SipHash
//! costs more than the lookup it serves (a GROUP BY over 200k rows spent
//! 14% of its instructions in it). Multiply-rotate mixing (the scheme rustc
//! uses internally); a crafted file or crafted data can at worst slow these
//! maps down, never change their results.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hasher state.
#[derive(Clone, Copy, Default)]
pub(crate) struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8-byte chunk")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    /// The state mixed down: hashbrown
    /// places an entry by the hash's low bits (and tells entries apart by
    /// its top seven), and a multiply carries a word's differences only
    /// upwards, so keys that differ only in the high bytes of their last
    /// word (a fixed-length code's last characters, a big-endian number's
    /// low digits) had equal low bits and shared one probe sequence: a
    /// GROUP BY over 100,000 distinct 8-character texts took 364 ms, 141
    /// with this finish (natively).
    #[inline]
    fn finish(&self) -> u64 {
        // SplitMix64's finalizer: every bit of the state reaches every bit
        // of the hash.
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::format::PageId;

    #[test]
    fn maps_behave_as_maps() {
        let mut m: FastMap<PageId, u64> = FastMap::default();
        for i in 0..10_000u64 {
            m.insert(PageId(i * 7), i);
        }
        assert_eq!(m.len(), 10_000);
        assert!((0..10_000u64).all(|i| m.get(&PageId(i * 7)) == Some(&i)));
        assert!(!m.contains_key(&PageId(1)));
        let mut s: FastMap<String, usize> = FastMap::default();
        for (i, name) in ["", "a", "table:t", "index:t_b_with_a_long_name"]
            .iter()
            .enumerate()
        {
            assert!(s.insert(name.to_string(), i).is_none());
        }
        assert_eq!(s.get("table:t"), Some(&2));
        assert!(!s.contains_key("table:u"));
    }

    /// Keys that differ only in their last bytes, whatever their length,
    /// spread over a table's buckets: of 1,000 such keys (256 of one byte),
    /// at least half land in distinct buckets of 1,024 (about 63% would,
    /// by chance alone). Without `finish`'s mix, keys whose last word is
    /// full fell into one bucket.
    #[test]
    fn keys_differing_in_their_last_bytes_spread_over_the_low_bits() {
        use std::hash::BuildHasher;
        let hasher = BuildHasherDefault::<FastHasher>::default();
        for len in 1..=24usize {
            let n = if len == 1 { 256 } else { 1000 };
            let buckets: FastSet<u64> = (0..n as u32)
                .map(|i| {
                    let mut key = vec![b'A'; len];
                    let tail = len.min(2);
                    key[len - tail..].copy_from_slice(&i.to_be_bytes()[4 - tail..]);
                    hasher.hash_one(&key) & 1023
                })
                .collect();
            assert!(
                buckets.len() >= n / 2,
                "{len}-byte keys: {} buckets",
                buckets.len()
            );
            let ints: FastSet<u64> = (0..n as i64)
                .map(|i| hasher.hash_one(i << (8 * (len % 7))) & 1023)
                .collect();
            assert!(
                ints.len() >= n / 2,
                "integers << {}: {} buckets",
                8 * (len % 7),
                ints.len()
            );
        }
    }
}
