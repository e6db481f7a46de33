//! [`Kv`] over the storage layer: a [`WriteTxn`] reads and writes, a
//! [`ReadTxn`] snapshot reads and refuses writes.

use std::ops::Bound;

use super::kv::{bounds_empty, read_only_error, Kv, Visitor};
use crate::storage::{ReadTxn, SortedSource, TreeRead, WriteTxn};
use crate::Result;

fn visit_tree(
    t: &dyn TreeRead,
    tree: &str,
    lo: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
    reverse: bool,
    f: &mut Visitor,
) -> Result<()> {
    if bounds_empty(&lo, &hi) {
        return Ok(());
    }
    t.range(tree, lo, hi)?.visit(reverse, f)
}

/// The read half of [`Kv`], the same for both transaction kinds: it
/// forwards to [`TreeRead`].
macro_rules! kv_reads {
    () => {
        fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
            TreeRead::get(self, tree, key)
        }
        fn get_with(
            &self,
            tree: &str,
            key: &[u8],
            f: &mut dyn FnMut(&[u8]) -> Result<()>,
        ) -> Result<bool> {
            TreeRead::get_with(self, tree, key, f)
        }
        fn visit(
            &self,
            tree: &str,
            lo: Bound<Vec<u8>>,
            hi: Bound<Vec<u8>>,
            reverse: bool,
            f: &mut Visitor,
        ) -> Result<()> {
            visit_tree(self, tree, lo, hi, reverse, f)
        }
        fn tree_len(&self, tree: &str) -> Result<u64> {
            TreeRead::tree_len(self, tree)
        }
        fn tree_exists(&self, tree: &str) -> Result<bool> {
            TreeRead::tree_exists(self, tree)
        }
    };
}

impl Kv for WriteTxn {
    kv_reads!();
    fn create_tree(&mut self, tree: &str) -> Result<bool> {
        WriteTxn::create_tree(self, tree)
    }
    fn drop_tree(&mut self, tree: &str) -> Result<bool> {
        WriteTxn::drop_tree(self, tree)
    }
    fn insert(&mut self, tree: &str, key: &[u8], value: &[u8]) -> Result<bool> {
        WriteTxn::insert(self, tree, key, value)
    }
    fn insert_vec(&mut self, tree: &str, key: &[u8], value: Vec<u8>) -> Result<bool> {
        WriteTxn::insert_cow(self, tree, key, value.into())
    }
    fn remove(&mut self, tree: &str, key: &[u8]) -> Result<bool> {
        WriteTxn::remove(self, tree, key)
    }
    fn remove_sorted(&mut self, tree: &str, keys: &[&[u8]]) -> Result<()> {
        WriteTxn::remove_sorted(self, tree, keys).map(drop)
    }
    fn insert_keys_sorted(&mut self, tree: &str, keys: &[&[u8]]) -> Result<()> {
        WriteTxn::insert_keys_sorted(self, tree, keys)
    }
    fn load_sorted(&mut self, tree: &str, source: &mut dyn SortedSource) -> Result<u64> {
        WriteTxn::load_sorted(self, tree, source)
    }
}

impl Kv for ReadTxn {
    fn snapshot_id(&self) -> Option<u64> {
        Some(self.txn_id())
    }
    kv_reads!();
    fn create_tree(&mut self, _tree: &str) -> Result<bool> {
        Err(read_only_error())
    }
    fn drop_tree(&mut self, _tree: &str) -> Result<bool> {
        Err(read_only_error())
    }
    fn insert(&mut self, _tree: &str, _key: &[u8], _value: &[u8]) -> Result<bool> {
        Err(read_only_error())
    }
    fn remove(&mut self, _tree: &str, _key: &[u8]) -> Result<bool> {
        Err(read_only_error())
    }
}
