//! The key-value view of storage that the SQL executor runs on.
//!
//! The executor never talks to the pager directly: it reads and writes named
//! trees of byte keys through [`Kv`]. Two implementations exist: the storage
//! layer's transactions (see `exec::store_kv`) and [`MemKv`], a `BTreeMap`
//! used by unit tests of the executor.
//!
//! Reads stream: [`Kv::visit`] hands each entry of a key range to a
//! callback as borrowed byte slices (no copy of keys or values out of the
//! tree's nodes) and stops when the callback says so. The visiting borrows
//! the `Kv` immutably, so nothing can modify the tree while it runs;
//! UPDATE/DELETE therefore collect what they need (rows or rowids) before
//! writing. [`Kv::scan`] is the collected form, built on `visit`, for
//! callers that need owned entries (DDL, integrity checks, small probes).

#[cfg(test)]
use std::collections::BTreeMap;
use std::ops::Bound;

use crate::storage::SortedSource;
#[cfg(doc)]
use crate::storage::WriteTxn;
use crate::{Error, Result};

/// One entry of a tree: key and value bytes.
pub(crate) type Entry = (Vec<u8>, Vec<u8>);

/// The callback of [`Kv::visit`]: one entry's key and value; `Ok(false)`
/// stops the visit.
pub(crate) type Visitor<'a> = dyn FnMut(&[u8], &[u8]) -> Result<bool> + 'a;

/// Read and write access to named trees. Writes fail with
/// [`Error::ReadOnly`] on a read snapshot.
pub(crate) trait Kv {
    /// The value stored under `key`, if any.
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>>;
    /// Calls `f` with the value stored under `key`, borrowed for the call
    /// only; false (and no call) if there is none.
    fn get_with(
        &self,
        tree: &str,
        key: &[u8],
        f: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<bool> {
        match self.get(tree, key)? {
            Some(v) => f(&v).map(|_| true),
            None => Ok(false),
        }
    }
    /// Calls `f` with each entry with `lo <= key <= hi` (per the bounds),
    /// ascending unless `reverse`, until `f` returns false. Key and value
    /// are borrowed for the duration of the call only.
    fn visit(
        &self,
        tree: &str,
        lo: Bound<Vec<u8>>,
        hi: Bound<Vec<u8>>,
        reverse: bool,
        f: &mut Visitor,
    ) -> Result<()>;
    /// Entries with `lo <= key <= hi` (per the bounds), ascending unless
    /// `reverse`, collected. At most `limit` entries when given.
    fn scan(
        &self,
        tree: &str,
        lo: Bound<Vec<u8>>,
        hi: Bound<Vec<u8>>,
        reverse: bool,
        limit: Option<usize>,
    ) -> Result<Vec<Entry>> {
        let limit = limit.unwrap_or(usize::MAX);
        let mut out = Vec::new();
        if limit == 0 {
            return Ok(out);
        }
        self.visit(tree, lo, hi, reverse, &mut |k, v| {
            out.push((k.to_vec(), v.to_vec()));
            Ok(out.len() < limit)
        })?;
        Ok(out)
    }
    /// Number of entries in the tree.
    fn tree_len(&self, tree: &str) -> Result<u64>;
    /// An id of the committed state this store reads, when it reads one
    /// that never changes (a read snapshot): equal ids, equal contents.
    /// `None` for a store with changes in flight.
    fn snapshot_id(&self) -> Option<u64> {
        None
    }
    /// Whether the tree exists.
    fn tree_exists(&self, tree: &str) -> Result<bool>;
    /// Creates an empty tree; false if it already existed.
    fn create_tree(&mut self, tree: &str) -> Result<bool>;
    /// Drops a tree and all its entries; false if it did not exist.
    fn drop_tree(&mut self, tree: &str) -> Result<bool>;
    /// Inserts or replaces; true if a value was replaced.
    fn insert(&mut self, tree: &str, key: &[u8], value: &[u8]) -> Result<bool>;
    /// [`Kv::insert`] of a value the caller gives away (a store may keep
    /// the buffer instead of copying it).
    fn insert_vec(&mut self, tree: &str, key: &[u8], value: Vec<u8>) -> Result<bool> {
        self.insert(tree, key, &value)
    }
    /// Removes; true if the key was present.
    fn remove(&mut self, tree: &str, key: &[u8]) -> Result<bool>;
    /// Removes `keys` (ascending). The store removes those sharing a leaf
    /// at once ([`WriteTxn::remove_sorted`]); this default one by one.
    fn remove_sorted(&mut self, tree: &str, keys: &[&[u8]]) -> Result<()> {
        keys.iter().try_for_each(|k| self.remove(tree, k).map(drop))
    }
    /// Inserts `keys` (ascending) with empty values: index entries. The
    /// store inserts those sharing a leaf at once
    /// ([`WriteTxn::insert_keys_sorted`]); this default one by one.
    fn insert_keys_sorted(&mut self, tree: &str, keys: &[&[u8]]) -> Result<()> {
        keys.iter()
            .try_for_each(|k| self.insert(tree, k, &[]).map(drop))
    }
    /// Fills `tree` with `source`'s entries (strictly ascending keys);
    /// returns how many. The store builds an empty tree bottom-up
    /// ([`WriteTxn::load_sorted`]); this default inserts one by one.
    fn load_sorted(&mut self, tree: &str, source: &mut dyn SortedSource) -> Result<u64> {
        let mut n = 0;
        while let Some((key, value)) = source.next_entry()? {
            self.insert(tree, key, value)?;
            n += 1;
        }
        Ok(n)
    }
}

/// An in-memory [`Kv`] for tests: a map of trees.
#[cfg(test)]
#[derive(Clone, Debug, Default)]
pub(crate) struct MemKv {
    trees: BTreeMap<String, BTreeMap<Vec<u8>, Vec<u8>>>,
    /// What [`Kv::snapshot_id`] answers (tests of plan reuse).
    pub snapshot: Option<u64>,
    /// How many times [`Kv::tree_len`] was asked.
    pub len_calls: std::cell::Cell<usize>,
}

#[cfg(test)]
impl MemKv {
    fn tree(&self, tree: &str) -> Result<&BTreeMap<Vec<u8>, Vec<u8>>> {
        self.trees
            .get(tree)
            .ok_or_else(|| crate::misuse!("no such tree: {tree}"))
    }

    fn tree_mut(&mut self, tree: &str) -> Result<&mut BTreeMap<Vec<u8>, Vec<u8>>> {
        self.trees
            .get_mut(tree)
            .ok_or_else(|| crate::misuse!("no such tree: {tree}"))
    }
}

#[cfg(test)]
impl Kv for MemKv {
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.tree(tree)?.get(key).cloned())
    }

    fn visit(
        &self,
        tree: &str,
        lo: Bound<Vec<u8>>,
        hi: Bound<Vec<u8>>,
        reverse: bool,
        f: &mut Visitor,
    ) -> Result<()> {
        let t = self.tree(tree)?;
        if bounds_empty(&lo, &hi) {
            return Ok(());
        }
        let mut range = t.range((lo, hi));
        loop {
            let next = if reverse {
                range.next_back()
            } else {
                range.next()
            };
            match next {
                Some((k, v)) if f(k, v)? => {}
                _ => return Ok(()),
            }
        }
    }

    fn tree_len(&self, tree: &str) -> Result<u64> {
        self.len_calls.set(self.len_calls.get() + 1);
        Ok(self.tree(tree)?.len() as u64)
    }

    fn snapshot_id(&self) -> Option<u64> {
        self.snapshot
    }

    fn tree_exists(&self, tree: &str) -> Result<bool> {
        Ok(self.trees.contains_key(tree))
    }

    fn create_tree(&mut self, tree: &str) -> Result<bool> {
        if self.trees.contains_key(tree) {
            return Ok(false);
        }
        self.trees.insert(tree.to_string(), BTreeMap::new());
        Ok(true)
    }

    fn drop_tree(&mut self, tree: &str) -> Result<bool> {
        Ok(self.trees.remove(tree).is_some())
    }

    fn insert(&mut self, tree: &str, key: &[u8], value: &[u8]) -> Result<bool> {
        Ok(self
            .tree_mut(tree)?
            .insert(key.to_vec(), value.to_vec())
            .is_some())
    }

    fn remove(&mut self, tree: &str, key: &[u8]) -> Result<bool> {
        Ok(self.tree_mut(tree)?.remove(key).is_some())
    }
}

/// True when the bounds select nothing; `BTreeMap::range` panics on
/// inverted bounds, so callers check first.
pub(crate) fn bounds_empty(lo: &Bound<Vec<u8>>, hi: &Bound<Vec<u8>>) -> bool {
    match (lo, hi) {
        (Bound::Included(a), Bound::Included(b)) => a > b,
        (Bound::Included(a), Bound::Excluded(b))
        | (Bound::Excluded(a), Bound::Included(b))
        | (Bound::Excluded(a), Bound::Excluded(b)) => a >= b,
        _ => false,
    }
}

/// The error a read-only [`Kv`] returns for a write.
pub(crate) fn read_only_error() -> Error {
    Error::ReadOnly("a read-only statement cannot modify the database".to_string())
}
