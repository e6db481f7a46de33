//! Bulk load: an empty tree filled from entries in ascending key order,
//! bottom-up (CREATE INDEX's build).
//!
//! Inserting sorted keys one by one descends (or hits the leaf hint)
//! and hashes the tree's name several times per key, and splits a leaf
//! every few dozen keys. A load instead fills each leaf to [`LEAF_FILL`]
//! bytes, hands it to the transaction as a new dirty node, and remembers
//! its first key; when the entries end, the branches above are built as
//! full as a page allows from those first keys, level by level, until one
//! root is left. Pages come out in key order, so a later scan reads them
//! in sequence.
//!
//! Leaves keep a sixteenth of the page free (as InnoDB's sorted index
//! build does) because an index's later changes land all over it: an
//! UPDATE of an indexed column removes entries from and adds entries to
//! the same leaves, seldom exactly as many to each, and a full leaf that
//! gains one splits into two half-empty ones. Measured on the 10,000-row UPDATE of an indexed column
//! after CREATE INDEX on 200,000 rows (`profile_writes i8`): full leaves
//! split 1,787 times, 185 M instructions; with the sixteenth free, no
//! split, 165 M. The index takes 1/15 more pages.
//!
//! Invariants:
//! 1. Keys are strictly ascending; a key at or below the last one is a
//!    misuse error. On any error the pages built so far are freed and
//!    the tree is left as it was (empty).
//! 2. Every branch has at least two children: a last group of one child
//!    takes one from the group before it.
//! 3. The tree's meta (root, length) changes only when the load finishes:
//!    until then the tree reads as empty.
//! 4. Only for an empty tree while no savepoint logs changes key by key
//!    (creating a tree freezes the log, so a fresh tree qualifies);
//!    otherwise the entries are inserted one by one, with the same result.

use super::WriteTxn;
use crate::storage::btree::NodeStore;
use crate::storage::format::{PageId, PAGE_SIZE};
use crate::storage::node::{
    branch_entry_size, leaf_entry_size, Branch, Leaf, LeafValue, Node, BRANCH_SLOTS_OFFSET,
};
use crate::Result;

/// Entries in ascending key order, one at a time (a lending iterator:
/// each entry is borrowed until the next call).
pub trait SortedSource {
    /// The next entry, or `None` after the last.
    fn next_entry(&mut self) -> Result<Option<(&[u8], &[u8])>>;
}

/// The bytes a bulk-built leaf is filled to (an entry larger than that
/// alone still gets a leaf of its own).
const LEAF_FILL: usize = PAGE_SIZE - PAGE_SIZE / 16;

impl WriteTxn {
    /// Fills `tree` with `source`'s entries (strictly ascending keys);
    /// returns how many there were. An empty tree is built bottom-up
    /// (leaves filled to 15/16 of a page); any other is inserted into
    /// entry by entry.
    pub fn load_sorted(&mut self, tree: &str, source: &mut dyn SortedSource) -> Result<u64> {
        let meta = self.existing(tree)?;
        if !meta.root.is_none() || meta.len != 0 || self.logging() {
            let mut n = 0;
            while let Some((key, value)) = source.next_entry()? {
                self.insert(tree, key, value)?;
                n += 1;
            }
            return Ok(n);
        }
        self.leaf_hints.remove(tree);
        // First key and page of each finished leaf, then of each level above.
        let mut level: Vec<(Vec<u8>, PageId)> = Vec::new();
        let mut leaf = Leaf::new(Vec::new());
        let n = match self.load_leaves(source, &mut level, &mut leaf) {
            Ok(n) => n,
            Err(e) => {
                self.discard(&level, &leaf);
                return Err(e);
            }
        };
        if n == 0 {
            return Ok(0);
        }
        while level.len() > 1 {
            level = self.branches_over(level)?;
            self.maybe_spill()?;
        }
        let mut meta = meta;
        meta.root = level[0].1;
        meta.len = n;
        self.set_meta(tree, meta);
        Ok(n)
    }

    /// Packs `source`'s entries into leaves of up to [`LEAF_FILL`] bytes
    /// (a larger entry gets one of its own): each finished one goes
    /// to `level` (first key, page); the last is left in `leaf`, then
    /// finished too unless empty. Returns the number of entries.
    fn load_leaves(
        &mut self,
        source: &mut dyn SortedSource,
        level: &mut Vec<(Vec<u8>, PageId)>,
        leaf: &mut Leaf,
    ) -> Result<u64> {
        let mut first: Vec<u8> = Vec::new();
        let mut last: Option<Vec<u8>> = None;
        let mut n = 0u64;
        while let Some((key, value)) = source.next_entry()? {
            check_entry(key, value)?;
            if let Some(prev) = &mut last {
                if key <= prev.as_slice() {
                    return Err(crate::misuse!("load_sorted: keys out of order"));
                }
                prev.clear();
                prev.extend_from_slice(key);
            } else {
                last = Some(key.to_vec());
            }
            let stored = self.stored_value(key, value)?;
            if !leaf.is_empty()
                && leaf.encoded_size() + leaf_entry_size(key, stored.as_raw()) > LEAF_FILL
            {
                let full = std::mem::replace(leaf, Leaf::new(Vec::new()));
                let id = self.alloc_node(Node::Leaf(full))?;
                level.push((std::mem::take(&mut first), id));
                self.maybe_spill()?;
            }
            if leaf.is_empty() {
                first.clear();
                first.extend_from_slice(key);
            }
            leaf.insert(leaf.len(), key, stored);
            n += 1;
        }
        if !leaf.is_empty() {
            let full = std::mem::replace(leaf, Leaf::new(Vec::new()));
            let id = self.alloc_node(Node::Leaf(full))?;
            level.push((first, id));
        }
        Ok(n)
    }

    /// After a failed load: frees the leaves built so far (`level`) and
    /// the overflow pages of the entries in them and in `leaf`.
    fn discard(&mut self, level: &[(Vec<u8>, PageId)], leaf: &Leaf) {
        for (_, v) in leaf.iter() {
            self.free_value(&v.to_owned());
        }
        for &(_, id) in level {
            // A leaf of this transaction (in memory, or spilled and read
            // back): if it cannot be read, its pages stay allocated and
            // unreferenced until the transaction rolls back.
            let _ = self.free_tree(id);
        }
    }

    /// One level of branches over `children` (first key, page), each as
    /// full as a page allows and with at least two children.
    fn branches_over(
        &mut self,
        children: Vec<(Vec<u8>, PageId)>,
    ) -> Result<Vec<(Vec<u8>, PageId)>> {
        // Group boundaries first, so the last two groups can be evened out.
        let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
        let mut start = 0;
        let mut size = BRANCH_SLOTS_OFFSET;
        for (i, (key, _)) in children.iter().enumerate().skip(1) {
            let add = branch_entry_size(key);
            if size + add > PAGE_SIZE {
                groups.push(start..i);
                start = i;
                size = BRANCH_SLOTS_OFFSET;
            } else {
                size += add;
            }
        }
        groups.push(start..children.len());
        if let [.., a, b] = groups.as_mut_slice() {
            if b.len() < 2 {
                // The previous group is full, so giving one child away
                // leaves it at least two; the last group gains a key
                // (its old first key) and loses none: it fits as one
                // key of at most MAX_KEY_LEN beside another.
                a.end -= 1;
                b.start -= 1;
            }
        }
        let mut out = Vec::with_capacity(groups.len());
        let mut children = children.into_iter();
        for g in groups {
            let mut members: Vec<(Vec<u8>, PageId)> = children.by_ref().take(g.len()).collect();
            let ids = members.iter().map(|(_, id)| *id).collect();
            let first = std::mem::take(&mut members[0].0);
            let keys = members.into_iter().skip(1).map(|(k, _)| k).collect();
            let id = self.alloc_node(Node::Branch(Branch::new(keys, ids)))?;
            out.push((first, id));
        }
        Ok(out)
    }

    /// `value` as a leaf stores it: inline, or written out to overflow
    /// pages now.
    fn stored_value(&mut self, key: &[u8], value: &[u8]) -> Result<LeafValue> {
        Ok(
            if crate::storage::node::value_is_inline(key.len(), value.len()) {
                LeafValue::Inline(value.to_vec())
            } else {
                self.write_overflow(value)?
            },
        )
    }
}

/// The size limits every stored entry keeps.
pub(super) fn check_entry(key: &[u8], value: &[u8]) -> Result<()> {
    use crate::storage::format::{MAX_KEY_LEN, MAX_VALUE_LEN};
    if key.len() > MAX_KEY_LEN {
        return Err(crate::Error::TooLarge(format!(
            "key of {} bytes (the limit is {MAX_KEY_LEN})",
            key.len()
        )));
    }
    if value.len() as u64 > MAX_VALUE_LEN {
        return Err(crate::Error::TooLarge(format!(
            "value of {} bytes (the limit is {MAX_VALUE_LEN})",
            value.len()
        )));
    }
    Ok(())
}
