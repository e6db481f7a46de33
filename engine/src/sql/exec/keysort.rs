//! The external sort of CREATE INDEX: byte keys (an index entry's encoded
//! values then its rowid), each with one flag bit, sorted bytewise.
//!
//! The general [`super::spill::Sorter`] holds rows of [`Value`]s, one
//! allocation per row and per blob; an index build pushes one key per
//! table row, so it keeps keys back to back in one byte buffer instead
//! and sorts small fixed-size entries (the key's first eight bytes, where
//! it starts, its length) that point into it. Budget, temp space, run
//! format and merge passes are the general sorter's ([`super::spill`]):
//! past the budget's memory share the sorted keys are written as one run
//! (a record per key: the key then a flag byte), and finishing merges the
//! runs k-way.
//!
//! Keys that are equal bytewise are indistinguishable to the caller (an
//! index key ends in the rowid, so it never happens there): the sort is
//! not stable.
//!
//! [`KeyBatch`] is the in-memory case of the same idea, for the index
//! entries that statements queue and write at the end in key order
//! (`exec::pending`, `write::IndexQueue`): keys back to back, no
//! allocation per key.
//!
//! [`Value`]: crate::sql::value::Value

use std::cmp::Ordering;
use std::rc::Rc;

use super::bytesort::{sort_by_key_bytes, Item};
use super::spill::{
    merge_passes, open_runs, sift_down, sift_up, Run, RunReader, RunWriter, Shares, TempSpace,
};
use super::Budget;
use crate::storage::{cmp_keys, key_prefix};
use crate::{Error, Result};

/// What one buffered key is charged besides its bytes: where it ends, its
/// flag, and its sort item with the item's copy while the buffer is sorted
/// ([`sort_by_key_bytes`]).
const ENTRY_BYTES: u64 =
    (std::mem::size_of::<usize>() + 1 + 2 * std::mem::size_of::<Item>()) as u64;

/// Sorts byte keys: push them in any order, then [`KeySorter::finish`].
pub(crate) struct KeySorter {
    budget: Rc<Budget>,
    temp: Option<Rc<TempSpace>>,
    shares: Shares,
    keys: KeyBatch,
    /// Each key's flag, in the order pushed.
    flags: Vec<bool>,
    /// What `keys` and `flags` are charged to the budget.
    charged: u64,
    runs: Vec<Run>,
}

impl KeySorter {
    /// A sorter charging `budget`, spilling to `temp` when given.
    pub(crate) fn new(budget: Rc<Budget>, temp: Option<Rc<TempSpace>>) -> KeySorter {
        let shares = Shares::of(&budget);
        KeySorter {
            budget,
            temp,
            shares,
            keys: KeyBatch::default(),
            flags: Vec::new(),
            charged: 0,
            runs: Vec::new(),
        }
    }

    /// Adds `key` with its `flag`.
    pub(crate) fn push(&mut self, key: &[u8], flag: bool) -> Result<()> {
        if u32::try_from(self.flags.len()).is_err() {
            return Err(Error::TooLarge("index build of 2^32 keys".into()));
        }
        let size = key.len() as u64 + ENTRY_BYTES;
        if self.temp.is_some()
            && !self.flags.is_empty()
            && self.charged.saturating_add(size) > self.shares.memory
        {
            self.spill()?;
        }
        self.budget.charge(size)?;
        self.charged += size;
        self.keys.push_with(|out| out.extend_from_slice(key));
        self.flags.push(flag);
        Ok(())
    }

    /// Writes the buffer as one sorted run and releases its charge.
    fn spill(&mut self) -> Result<()> {
        let Some(temp) = self.temp.clone() else {
            return Ok(());
        };
        let order = self.keys.sorted();
        let written = (|| {
            let mut writer = RunWriter::new(temp, self.shares.write, &self.budget)?;
            for &(_, i) in &order {
                let i = i as usize;
                writer.push_parts(self.keys.key(i), &[u8::from(self.flags[i])])?;
            }
            writer.finish()
        })();
        self.keys.clear();
        self.flags.clear();
        self.budget.release(self.charged);
        self.charged = 0;
        self.runs.push(written?);
        Ok(())
    }

    /// The keys in order. Nothing spilled: the buffer, sorted in place
    /// (still charged until the result drops).
    pub(crate) fn finish(mut self) -> Result<SortedKeys> {
        if self.runs.is_empty() {
            let order = self.keys.sorted();
            return Ok(SortedKeys::Memory {
                sorter: self,
                order,
                next: 0,
            });
        }
        if !self.flags.is_empty() {
            self.spill()?;
        }
        let runs = std::mem::take(&mut self.runs);
        let (temp, runs, per_run) = merge_passes(
            self.temp.as_ref(),
            &self.budget,
            &self.shares,
            runs,
            &mut |readers, charge, writer| {
                let mut merge = KeyMerger::new(readers, self.budget.clone(), charge)?;
                while let Some((key, flag)) = merge.next()? {
                    writer.push_parts(key, &[u8::from(flag)])?;
                }
                Ok(())
            },
        )?;
        let (readers, charge) = open_runs(&temp, runs, per_run, &self.budget)?;
        Ok(SortedKeys::Merge(KeyMerger::new(
            readers,
            self.budget.clone(),
            charge,
        )?))
    }
}

impl Drop for KeySorter {
    fn drop(&mut self) {
        self.budget.release(self.charged);
    }
}

/// Byte keys kept back to back in one buffer, with no allocation per key,
/// and listed in byte order by [`KeyBatch::sorted_keys`]: the index
/// entries a statement or a run of INSERTs writes at the end, in key order.
/// Equal keys are listed once each.
#[derive(Debug, Default)]
pub(crate) struct KeyBatch {
    bytes: Vec<u8>,
    /// Where each key ends in `bytes`.
    ends: Vec<usize>,
}

impl KeyBatch {
    /// Appends one key, written by `write` at the end of the buffer.
    pub(crate) fn push_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        write(&mut self.bytes);
        self.ends.push(self.bytes.len());
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Key `i`, in the order pushed.
    pub(crate) fn key(&self, i: usize) -> &[u8] {
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1],
        };
        &self.bytes[start..self.ends[i]]
    }

    /// The key pushed last.
    pub(crate) fn last(&self) -> Option<&[u8]> {
        self.len().checked_sub(1).map(|i| self.key(i))
    }

    /// Forgets the key pushed last.
    pub(crate) fn pop(&mut self) {
        self.truncate(self.len().saturating_sub(1));
    }

    /// Keeps the first `n` keys.
    pub(crate) fn truncate(&mut self, n: usize) {
        if n < self.ends.len() {
            self.ends.truncate(n);
            self.bytes.truncate(self.ends.last().copied().unwrap_or(0));
        }
    }

    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    /// The bytes the keys take with their bookkeeping (a sort takes 32 more
    /// per key meanwhile: its order and the radix sort's copy of it).
    pub(crate) fn memory(&self) -> usize {
        self.bytes.len() + self.ends.len() * std::mem::size_of::<usize>()
    }

    /// The keys' numbers (with a word of each) in the keys' byte order,
    /// by [`sort_by_key_bytes`]: 16-byte items, so that the keys
    /// themselves are read only where their first eight bytes tie.
    fn sorted(&self) -> Vec<Item> {
        let mut order: Vec<Item> = (0..self.len())
            .map(|i| (key_prefix(self.key(i)), i as u32))
            .collect();
        sort_by_key_bytes(&mut order, &|i| self.key(i as usize));
        order
    }

    /// Every key, in byte order.
    pub(crate) fn sorted_keys(&self) -> Vec<&[u8]> {
        self.sorted()
            .into_iter()
            .map(|(_, i)| self.key(i as usize))
            .collect()
    }
}

/// A key sorter's output, read key by key.
pub(crate) enum SortedKeys {
    Memory {
        sorter: KeySorter,
        order: Vec<Item>,
        next: usize,
    },
    Merge(KeyMerger),
}

impl SortedKeys {
    /// The next key in order and its flag.
    pub(crate) fn next(&mut self) -> Result<Option<(&[u8], bool)>> {
        match self {
            SortedKeys::Memory {
                sorter,
                order,
                next,
            } => {
                let Some(&(_, i)) = order.get(*next) else {
                    return Ok(None);
                };
                *next += 1;
                let i = i as usize;
                Ok(Some((sorter.keys.key(i), sorter.flags[i])))
            }
            SortedKeys::Merge(m) => m.next(),
        }
    }
}

/// A k-way merge of key runs: a binary heap of run numbers ordered by each
/// run's current key.
pub(crate) struct KeyMerger {
    readers: Vec<RunReader>,
    /// Each run's current key and flag; `None` once the run is done.
    heads: Vec<Option<(Vec<u8>, bool)>>,
    heap: Vec<usize>,
    /// The key handed out last (its buffer is reused for the run's next).
    out: (Vec<u8>, bool),
    budget: Rc<Budget>,
    charged: u64,
}

impl KeyMerger {
    fn new(mut readers: Vec<RunReader>, budget: Rc<Budget>, charged: u64) -> Result<KeyMerger> {
        let mut heads = Vec::with_capacity(readers.len());
        for r in &mut readers {
            let mut key = Vec::new();
            heads.push(read_key(r, &mut key)?.map(|flag| (key, flag)));
        }
        let mut m = KeyMerger {
            readers,
            heads,
            heap: Vec::new(),
            out: (Vec::new(), false),
            budget,
            charged,
        };
        for i in 0..m.heads.len() {
            if m.heads[i].is_some() {
                m.heap.push(i);
                let (last, heads) = (m.heap.len() - 1, &m.heads);
                sift_up(&mut m.heap, last, |a, b| before(heads, a, b));
            }
        }
        Ok(m)
    }

    fn next(&mut self) -> Result<Option<(&[u8], bool)>> {
        let Some(&top) = self.heap.first() else {
            return Ok(None);
        };
        let Some(head) = self.heads[top].as_mut() else {
            return Err(Error::Io(
                "internal: merge heap names a finished run".into(),
            ));
        };
        std::mem::swap(head, &mut self.out);
        match read_key(&mut self.readers[top], &mut head.0)? {
            Some(flag) => head.1 = flag,
            None => {
                self.heads[top] = None;
                let last = self.heap.len() - 1;
                self.heap.swap(0, last);
                self.heap.pop();
            }
        }
        let heads = &self.heads;
        sift_down(&mut self.heap, 0, |a, b| before(heads, a, b));
        Ok(Some((&self.out.0, self.out.1)))
    }
}

impl Drop for KeyMerger {
    fn drop(&mut self) {
        self.budget.release(self.charged);
    }
}

/// True when run `a`'s head comes before run `b`'s.
fn before(heads: &[Option<(Vec<u8>, bool)>], a: usize, b: usize) -> bool {
    let ord = match (&heads[a], &heads[b]) {
        (Some(x), Some(y)) => cmp_keys(&x.0, &y.0),
        _ => Ordering::Equal,
    };
    ord.then(a.cmp(&b)) == Ordering::Less
}

/// Reads a run's next key into `key`; its flag, or `None` at the run's end.
fn read_key(reader: &mut RunReader, key: &mut Vec<u8>) -> Result<Option<bool>> {
    let Some(record) = reader.next_bytes()? else {
        return Ok(None);
    };
    let Some((&flag, bytes)) = record.split_last() else {
        return Err(Error::Io("temp space: empty key record".into()));
    };
    key.clear();
    key.extend_from_slice(bytes);
    Ok(Some(flag != 0))
}

#[cfg(test)]
mod tests {
    //! Spilled and in-memory key sorts against `sort` of the same keys,
    //! over random keys and budgets, including many-pass merges.

    use super::*;
    use crate::storage::MemoryDevice;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn sorted(limit: u64, temp: bool, keys: &[(Vec<u8>, bool)]) -> Result<Vec<(Vec<u8>, bool)>> {
        let budget = Rc::new(Budget::new(limit));
        let temp = temp.then(|| Rc::new(TempSpace::new(Box::new(MemoryDevice::new()))));
        let mut s = KeySorter::new(budget.clone(), temp);
        for (k, f) in keys {
            s.push(k, *f)?;
        }
        let mut out = Vec::new();
        let mut rows = s.finish()?;
        while let Some((k, f)) = rows.next()? {
            out.push((k.to_vec(), f));
        }
        drop(rows);
        assert_eq!(budget.used(), 0, "every charge released");
        Ok(out)
    }

    fn random_keys(rng: &mut SmallRng, n: usize) -> Vec<(Vec<u8>, bool)> {
        let mut seen = std::collections::HashSet::new();
        let mut keys = Vec::new();
        while keys.len() < n {
            // Short keys, often sharing their first eight bytes.
            let len = rng.gen_range(0..24);
            let key: Vec<u8> = (0..len).map(|_| rng.gen_range(0..3u8)).collect();
            if seen.insert(key.clone()) {
                let flag = key.first().is_some_and(|&b| b == 1);
                keys.push((key, flag));
            }
        }
        keys
    }

    #[test]
    fn spilled_and_in_memory_sorts_equal_a_plain_sort() {
        let mut rng = SmallRng::seed_from_u64(7);
        for round in 0..20 {
            let n = rng.gen_range(0..3000);
            let keys = random_keys(&mut rng, n);
            let mut expected = keys.clone();
            expected.sort();
            let limit = if round % 2 == 0 {
                1 << 30
            } else {
                rng.gen_range(40_000..200_000)
            };
            assert_eq!(
                sorted(limit, true, &keys).unwrap(),
                expected,
                "round {round}"
            );
        }
    }

    #[test]
    fn key_batches_visit_keys_sorted() {
        let mut rng = SmallRng::seed_from_u64(11);
        for round in 0..200 {
            // Short alphabets and lengths around 16 make equal prefixes,
            // keys that are prefixes of others, and zero bytes common.
            let mut keys: Vec<Vec<u8>> = (0..rng.gen_range(0..300))
                .map(|_| {
                    let len = rng.gen_range(0..34);
                    (0..len)
                        .map(|_| rng.gen_range(0..=(round % 4) as u8))
                        .collect()
                })
                .collect();
            let mut batch = KeyBatch::default();
            for k in &keys {
                batch.push_with(|out| out.extend_from_slice(k));
            }
            // A truncated tail is forgotten.
            let kept = rng.gen_range(0..=keys.len());
            batch.truncate(kept);
            keys.truncate(kept);
            assert_eq!(batch.len(), kept);
            let mut expected = keys.clone();
            expected.sort();
            let got: Vec<Vec<u8>> = batch
                .sorted_keys()
                .into_iter()
                .map(<[u8]>::to_vec)
                .collect();
            assert_eq!(got, expected, "round {round}");
        }
    }

    #[test]
    fn many_runs_merge_in_passes() {
        let mut rng = SmallRng::seed_from_u64(9);
        let keys = random_keys(&mut rng, 20_000);
        let mut expected = keys.clone();
        expected.sort();
        // A tiny share: runs of a few dozen keys, more than one merge takes.
        assert_eq!(sorted(64 << 10, true, &keys).unwrap(), expected);
    }

    #[test]
    fn without_temp_space_the_limit_fails_cleanly() {
        let mut rng = SmallRng::seed_from_u64(11);
        let keys = random_keys(&mut rng, 5_000);
        let err = sorted(10_000, false, &keys).unwrap_err();
        assert!(matches!(err, Error::BatchLimitExceeded { .. }), "{err:?}");
    }
}
