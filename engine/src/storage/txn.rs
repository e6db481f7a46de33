//! [`WriteTxn`]: the one open write transaction. It changes trees by
//! copy-on-write into pages the committed state does not reach, keeps the
//! changed nodes in memory (spilling them to their pages when the retained
//! bytes near the batch limit), and hands everything to `commit`.
//!
//! Ownership and savepoints: every page the transaction allocates is
//! *owned*, tagged with the savepoint generation it was allocated in. A node
//! is changed in place only when it is owned and younger than the newest
//! open savepoint; otherwise it is copied, so rolling back to a savepoint
//! only has to forget what was allocated after it. Owned pages released
//! while an older savepoint may still need them wait in `limbo`.

use super::alloc::FreeSet;
use super::btree::{self, NodeSource, NodeStore};
use super::fasthash::FastMap;
use super::format::*;
use super::node::{leaf_entry_size, overflow_pages, value_is_inline, LeafValue, Node, RawValue};
use super::savepoint::{SavepointState, UndoLog};
use super::store::{
    catalog_meta, catalog_names, check_tree_name, no_such_tree, read_value, tree_get_with, Range,
    RangeSource, Shared, TreeMeta, TreeRead,
};
use crate::{corrupt, Error, Result};
use std::borrow::Cow;
use std::ops::Bound;
use std::rc::Rc;

mod compact;
mod load;
pub(crate) use compact::Pass;
pub use load::SortedSource;

/// Pages encoded per device write batch (64 pages = 256 KiB).
const WRITE_BATCH_PAGES: usize = 64;

/// The longest free run a transaction's first allocation looks for
/// (`WriteTxn::take_page`).
const MAX_RUN_WANT: u64 = 32;

/// Where a transaction's allocations go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    /// In runs beside the pages taken last (`WriteTxn::take_page`).
    Runs,
    /// The lowest free page (a compaction's packing pass).
    LowestFirst,
    /// New pages at the end of the file (a compaction's rebuild pass).
    AtEnd,
}

/// A page allocated by this transaction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owned {
    /// Savepoint generation at allocation.
    pub gen: u64,
    /// Checksum of the bytes last written to the page (0 until written).
    pub crc: u32,
}

/// A leaf of one tree that the transaction changes in place, and the key
/// range it holds in that tree.
#[derive(Debug)]
pub(crate) struct LeafHint {
    leaf: PageId,
    fences: btree::Fences,
}

/// The open write transaction. Dropping it rolls back.
pub struct WriteTxn {
    pub(crate) shared: Rc<Shared>,
    pub(crate) base: Superblock,
    /// Changed tree entries (None = dropped), written to the catalog at commit.
    pub(crate) trees: FastMap<String, Option<TreeMeta>>,
    pub(crate) dirty: FastMap<PageId, Rc<Node>>,
    pub(crate) owned: FastMap<PageId, Owned>,
    pub(crate) free: FreeSet,
    /// Pages of the base state this transaction stopped referencing.
    pub(crate) freed: Vec<PageId>,
    /// Owned pages released while a savepoint may still need them.
    pub(crate) limbo: Vec<(PageId, Owned)>,
    pub(crate) page_count: u64,
    /// Where the next allocation looks first: the page after the last one
    /// taken from the free set (see `take_page`).
    next_page: Option<u64>,
    /// The free run length `take_page` looks for when `next_page` is not
    /// free; 0 once no run that long is left.
    run_want: u64,
    /// `next_page` is the next new page at the end of the file.
    appending: bool,
    /// Where allocations go: in runs, or (a compaction's passes) lowest
    /// first or at the end of the file.
    placement: Placement,
    pub(crate) savepoints: Vec<SavepointState>,
    pub(crate) undo: UndoLog,
    pub(crate) gen: u64,
    pub(crate) next_savepoint: u64,
    /// Per tree, the leaf the last insert or removal changed and its key
    /// range (see `hinted_leaf`); replaced by the next descent into the
    /// tree, dropped when a split or merge moves that range and by
    /// anything else that changes the tree.
    pub(crate) leaf_hints: FastMap<String, LeafHint>,
    /// Key range buffers for the next descent.
    scratch: btree::Fences,
    pub(crate) finished: bool,
}

impl WriteTxn {
    pub(crate) fn begin(shared: Rc<Shared>) -> Result<WriteTxn> {
        let mut inner = shared.inner.borrow_mut();
        if inner.writer_open {
            return Err(Error::Busy("a write transaction is already open".into()));
        }
        // Fails fast when poisoned, without a device call (an OPFS call
        // per transaction).
        inner.pager.check_poison()?;
        inner.release_pending();
        inner.writer_open = true;
        let base = inner.sb.clone();
        let free = inner.free.clone();
        let run_want = inner.last_commit_pages.clamp(1, MAX_RUN_WANT);
        drop(inner);
        Ok(WriteTxn {
            page_count: base.page_count,
            next_page: None,
            run_want,
            appending: false,
            placement: Placement::Runs,
            base,
            shared,
            trees: FastMap::default(),
            dirty: FastMap::default(),
            owned: FastMap::default(),
            free,
            freed: Vec::new(),
            limbo: Vec::new(),
            savepoints: Vec::new(),
            undo: UndoLog::default(),
            gen: 1,
            next_savepoint: 1,
            leaf_hints: FastMap::default(),
            scratch: btree::Fences::default(),
            finished: false,
        })
    }

    pub(crate) fn limit(&self) -> u64 {
        self.shared.opts.batch_limit_bytes
    }

    /// Memory this transaction retains: its dirty nodes and bookkeeping.
    pub fn retained_bytes(&self) -> u64 {
        let nodes = self.dirty.len() as u64 * (PAGE_SIZE as u64 + 64);
        let books = (self.owned.len() + self.freed.len() + self.limbo.len()) as u64 * 32;
        let trees = self.savepoint_trees() + self.trees.len();
        nodes + books + trees as u64 * 320 + self.undo.bytes()
    }

    pub(crate) fn meta(&self, name: &str) -> Result<Option<TreeMeta>> {
        if let Some(m) = self.trees.get(name) {
            return Ok(*m);
        }
        catalog_meta(self, self.base.catalog_root, name)
    }

    fn existing(&self, name: &str) -> Result<TreeMeta> {
        self.meta(name)?.ok_or_else(|| no_such_tree(name))
    }

    /// Creates an empty tree; false if it already exists.
    pub fn create_tree(&mut self, name: &str) -> Result<bool> {
        check_tree_name(name)?;
        self.freeze_undo();
        if self.meta(name)?.is_some() {
            return Ok(false);
        }
        self.trees.insert(
            name.to_string(),
            Some(TreeMeta {
                root: PageId::NONE,
                len: 0,
            }),
        );
        Ok(true)
    }

    /// Drops a tree and frees its pages; false if it did not exist.
    pub fn drop_tree(&mut self, name: &str) -> Result<bool> {
        self.freeze_undo();
        self.leaf_hints.remove(name);
        let Some(m) = self.meta(name)? else {
            return Ok(false);
        };
        self.free_tree(m.root)?;
        self.trees.insert(name.to_string(), None);
        Ok(true)
    }

    /// Removes every entry of a tree.
    pub fn clear_tree(&mut self, name: &str) -> Result<()> {
        self.freeze_undo();
        self.leaf_hints.remove(name);
        let m = self.existing(name)?;
        self.free_tree(m.root)?;
        self.trees.insert(
            name.to_string(),
            Some(TreeMeta {
                root: PageId::NONE,
                len: 0,
            }),
        );
        Ok(())
    }

    fn free_tree(&mut self, root: PageId) -> Result<()> {
        if root.is_none() {
            return Ok(());
        }
        let mut stack = vec![(root, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            if depth > MAX_TREE_DEPTH {
                return Err(corrupt!(id.0, "tree deeper than {MAX_TREE_DEPTH} levels"));
            }
            let node = self.node(id)?;
            match &*node {
                Node::Branch(b) => stack.extend(b.children().iter().map(|&c| (c, depth + 1))),
                Node::Leaf(l) => {
                    for (_, v) in l.iter() {
                        self.free_value(&v.to_owned());
                    }
                }
            }
            self.free_page(id);
        }
        Ok(())
    }

    /// Inserts or replaces; true if a value was replaced.
    pub fn insert(&mut self, tree: &str, key: &[u8], value: &[u8]) -> Result<bool> {
        self.insert_cow(tree, key, Cow::Borrowed(value))
    }

    /// [`WriteTxn::insert`] of a borrowed or owned value: the leaf copies
    /// it either way, and an owned one spares the copy a descent from the
    /// root makes of a borrowed one.
    pub fn insert_cow(&mut self, tree: &str, key: &[u8], value: Cow<'_, [u8]>) -> Result<bool> {
        load::check_entry(key, &value)?;
        if value.len() as u64 > self.limit() {
            return Err(Error::BatchLimitExceeded {
                limit: self.limit(),
                needed: value.len() as u64,
            });
        }
        let overflow = match value_is_inline(key.len(), value.len()) {
            true => None,
            false => Some(self.write_overflow(&value)?),
        };
        // In the hinted leaf the value is copied from where it is, and an
        // inline value it replaces only when an undo log keeps it.
        let raw = overflow
            .as_ref()
            .map_or(RawValue::Inline(&value), LeafValue::as_raw);
        let keep = self.logging();
        let old = match self.try_hinted_insert(tree, key, raw, keep) {
            Some(old) => self.counted(tree, old)?,
            None => {
                let stored = overflow.unwrap_or_else(|| LeafValue::Inline(value.into_owned()));
                self.put_descending(tree, key, stored)?
            }
        };
        let replaced = old.is_some();
        self.displaced(tree, key, old);
        self.maybe_spill()?;
        Ok(replaced)
    }

    /// Removes a key; true if it was there.
    pub fn remove(&mut self, tree: &str, key: &[u8]) -> Result<bool> {
        let Some(old) = self.remove_value(tree, key)? else {
            return Ok(false);
        };
        self.displaced(tree, key, Some(old));
        self.maybe_spill()?;
        Ok(true)
    }

    /// Removes `keys` (ascending) from `tree`; returns how many were there.
    /// The keys that fall in the leaf the last change left (see
    /// `hinted_leaf`) leave it in one pass (`Leaf::remove_run`); a key
    /// outside it, or whose removal would underfill it, is removed alone,
    /// and the leaf that descent reaches serves the keys after it.
    pub fn remove_sorted(&mut self, tree: &str, keys: &[&[u8]]) -> Result<u64> {
        let (mut at, mut present) = (0, 0);
        let mut removed = Vec::new();
        while at < keys.len() {
            let done = match self.hinted_run(tree, &keys[at..], usize::MAX) {
                Some((l, held)) => {
                    l.remove_run(&keys[at..at + held], btree::UNDERFLOW_SIZE, &mut removed)
                }
                None => 0,
            };
            if done == 0 {
                present += u64::from(self.remove(tree, keys[at])?);
                at += 1;
                continue;
            }
            let gone = removed.len() as u64;
            if gone > 0 {
                self.count_entries(tree, |n| n.saturating_sub(gone))?;
            }
            let run = removed.drain(..).map(|(k, old)| (keys[at + k], Some(old)));
            self.finish_run(tree, run)?;
            present += gone;
            at += done;
        }
        Ok(present)
    }

    /// Inserts `keys` (ascending) into `tree` with empty values (an
    /// index's entries), replacing any there. As [`WriteTxn::remove_sorted`]:
    /// the keys that fall in the hinted leaf and fit it go in at once
    /// (`Leaf::insert_run`), any other alone.
    pub fn insert_keys_sorted(&mut self, tree: &str, keys: &[&[u8]]) -> Result<()> {
        let mut at = 0;
        while at < keys.len() {
            // A key over the limit is left to `insert`, which reports it.
            let done = match self.hinted_run(tree, &keys[at..], MAX_KEY_LEN) {
                Some((l, held)) => l.insert_run(&keys[at..at + held], PAGE_SIZE),
                None => 0,
            };
            if done == 0 {
                self.insert(tree, keys[at], &[])?;
                at += 1;
                continue;
            }
            self.count_entries(tree, |n| n + done as u64)?;
            let run = keys[at..at + done].iter().map(|&key| (key, None));
            self.finish_run(tree, run)?;
            at += done;
        }
        Ok(())
    }

    /// After a run of changes made to a leaf at once, each key with the
    /// value it displaced: logs or frees every one ([`WriteTxn::log_or_free`])
    /// before the log may freeze, then spills if the transaction holds too
    /// much.
    fn finish_run<'k>(
        &mut self,
        tree: &str,
        run: impl Iterator<Item = (&'k [u8], Option<LeafValue>)>,
    ) -> Result<()> {
        let mut logged = false;
        for (key, old) in run {
            logged |= self.log_or_free(tree, key, old);
        }
        if logged {
            self.freeze_if_long();
        }
        self.maybe_spill()
    }

    /// The hinted leaf (see `hinted_leaf`) when it holds `keys[0]`, and
    /// how many of `keys` (ascending), from the first, it holds that are
    /// at most `max_len` bytes long.
    fn hinted_run(
        &mut self,
        tree: &str,
        keys: &[&[u8]],
        max_len: usize,
    ) -> Option<(&mut super::node::Leaf, usize)> {
        let h = self.leaf_hints.get(tree)?;
        let held = keys
            .iter()
            .take_while(|k| k.len() <= max_len && h.fences.holds(k))
            .count();
        if held == 0 {
            return None;
        }
        Some((self.hinted_leaf(tree, keys[0])?, held))
    }

    /// Puts `value` under `key` in the tree; returns the value it replaced,
    /// not yet freed.
    pub(crate) fn put_value(
        &mut self,
        tree: &str,
        key: &[u8],
        value: LeafValue,
    ) -> Result<Option<LeafValue>> {
        match self.try_hinted_insert(tree, key, value.as_raw(), true) {
            Some(old) => self.counted(tree, old),
            None => self.put_descending(tree, key, value),
        }
    }

    /// After a put into the hinted leaf that replaced `old`: one more
    /// entry in the tree when it replaced nothing.
    fn counted(&mut self, tree: &str, old: Option<LeafValue>) -> Result<Option<LeafValue>> {
        if old.is_none() {
            self.count_entries(tree, |n| n + 1)?;
        }
        Ok(old)
    }

    /// [`WriteTxn::put_value`] by a descent from the root.
    fn put_descending(
        &mut self,
        tree: &str,
        key: &[u8],
        value: LeafValue,
    ) -> Result<Option<LeafValue>> {
        let mut m = self.existing(tree)?;
        let mut fences = std::mem::take(&mut self.scratch);
        let changed = btree::insert(self, m.root, key, value, &mut fences);
        let c = self.after_descent(tree, false, changed, fences)?;
        m.root = c.root;
        if c.old.is_none() {
            m.len += 1;
        }
        self.set_meta(tree, m);
        Ok(c.old)
    }

    /// Removes `key` from the tree; returns its value, not yet freed.
    pub(crate) fn remove_value(&mut self, tree: &str, key: &[u8]) -> Result<Option<LeafValue>> {
        if let Some(old) = self.try_hinted_remove(tree, key) {
            if old.is_some() {
                self.count_entries(tree, |n| n.saturating_sub(1))?;
            }
            return Ok(old);
        }
        let mut m = self.existing(tree)?;
        let mut fences = std::mem::take(&mut self.scratch);
        let changed = btree::remove(self, m.root, key, &mut fences);
        let c = self.after_descent(tree, true, changed, fences)?;
        if c.old.is_some() {
            m.root = c.root;
            m.len = m.len.saturating_sub(1);
            self.set_meta(tree, m);
        }
        Ok(c.old)
    }

    /// Records the leaf a descent into `tree` (a `removal` or an insert)
    /// reported, or forgets the tree's hint when it reported none; keeps
    /// the range buffers.
    fn after_descent(
        &mut self,
        tree: &str,
        removal: bool,
        changed: Result<btree::Changed>,
        mut fences: btree::Fences,
    ) -> Result<btree::Changed> {
        let leaf = match &changed {
            // A removal of a missing key changed nothing: the hint holds.
            Ok(c) if removal && c.old.is_none() => {
                self.scratch = fences;
                return changed;
            }
            Ok(c) => c.leaf,
            Err(_) => None,
        };
        match (leaf, self.leaf_hints.get_mut(tree)) {
            (Some(leaf), Some(h)) => {
                h.leaf = leaf;
                std::mem::swap(&mut h.fences, &mut fences);
            }
            (Some(leaf), None) => {
                let fences = std::mem::take(&mut fences);
                self.leaf_hints
                    .insert(tree.to_string(), LeafHint { leaf, fences });
            }
            (None, _) => {
                self.leaf_hints.remove(tree);
            }
        }
        self.scratch = fences;
        changed
    }

    /// The leaf of `tree`'s hint, when `key` is in its range and the
    /// transaction still changes that leaf in place (owned, younger than
    /// the newest savepoint, not spilled). A change there that neither
    /// overfills nor underfills the leaf needs no descent and changes
    /// nothing above it: same page, same range.
    ///
    /// Sorted work meets the same leaf over and over: sequential row ids,
    /// index builds, an UPDATE's or DELETE's index entries applied in key
    /// order, a table's rows rewritten in rowid order.
    fn hinted_leaf(&mut self, tree: &str, key: &[u8]) -> Option<&mut super::node::Leaf> {
        let h = self.leaf_hints.get(tree)?;
        if !h.fences.holds(key) {
            return None;
        }
        let leaf = h.leaf;
        let gen = self.inplace_gen();
        if self.owned.get(&leaf).is_none_or(|o| o.gen < gen) {
            return None;
        }
        match Rc::make_mut(self.dirty.get_mut(&leaf)?) {
            Node::Leaf(l) => Some(l),
            Node::Branch(_) => None,
        }
    }

    /// Inserts or replaces in the hinted leaf: `Some(replaced value)`, or
    /// `None` when the hint does not apply or the leaf would overflow. An
    /// inline value replaced comes back empty unless `keep_inline` (see
    /// [`Leaf::replace_raw`]).
    ///
    /// [`Leaf::replace_raw`]: super::node::Leaf::replace_raw
    fn try_hinted_insert(
        &mut self,
        tree: &str,
        key: &[u8],
        value: RawValue<'_>,
        keep_inline: bool,
    ) -> Option<Option<LeafValue>> {
        let l = self.hinted_leaf(tree, key)?;
        let added = leaf_entry_size(key, value);
        match l.search(key) {
            Ok(i) if l.encoded_size() - l.entry_size(i) + added <= PAGE_SIZE => {
                Some(Some(l.replace_raw(i, value, keep_inline)))
            }
            Err(i) if l.encoded_size() + added <= PAGE_SIZE => {
                l.insert_raw(i, key, value);
                Some(None)
            }
            _ => None,
        }
    }

    /// Removes from the hinted leaf: `Some(removed value)` (`Some(None)`
    /// when the key is not in the tree), or `None` when the hint does not
    /// apply or the leaf would fall below the underflow size.
    fn try_hinted_remove(&mut self, tree: &str, key: &[u8]) -> Option<Option<LeafValue>> {
        let l = self.hinted_leaf(tree, key)?;
        match l.search(key) {
            Err(_) => Some(None),
            Ok(i) if l.encoded_size() - l.entry_size(i) >= btree::UNDERFLOW_SIZE => {
                Some(Some(l.remove(i)))
            }
            Ok(_) => None,
        }
    }

    /// Sets `tree`'s entry count to `f` of it after a change its root did
    /// not see (a hinted leaf's): one map lookup when the transaction
    /// already holds the tree's meta, as it does after any descent into it.
    fn count_entries(&mut self, tree: &str, f: impl FnOnce(u64) -> u64) -> Result<()> {
        if let Some(Some(m)) = self.trees.get_mut(tree) {
            m.len = f(m.len);
            return Ok(());
        }
        let mut m = self.existing(tree)?;
        m.len = f(m.len);
        self.set_meta(tree, m);
        Ok(())
    }

    fn set_meta(&mut self, tree: &str, m: TreeMeta) {
        match self.trees.get_mut(tree) {
            Some(slot) => *slot = Some(m),
            None => {
                self.trees.insert(tree.to_string(), Some(m));
            }
        }
    }

    /// After a change to `key` displaced `old`: log its inverse when a
    /// statement savepoint is logging, and free `old` unless the log keeps it.
    fn displaced(&mut self, tree: &str, key: &[u8], old: Option<LeafValue>) {
        if self.log_or_free(tree, key, old) {
            self.freeze_if_long();
        }
    }

    /// [`WriteTxn::displaced`] without the freeze: true when it logged. A
    /// run of changes made to a leaf at once logs every one of them before
    /// the log may freeze (a freeze between them would leave the rest,
    /// already made in place, out of both the log and the copy-on-write
    /// state, and a rollback would keep them).
    fn log_or_free(&mut self, tree: &str, key: &[u8], old: Option<LeafValue>) -> bool {
        if self.logging() {
            self.record_change(tree, key, old);
            return true;
        }
        if let Some(v) = old {
            self.free_value(&v);
        }
        false
    }

    /// Writes a large value to fresh consecutive overflow pages right away:
    /// nothing references them until commit, so they cost no memory.
    fn write_overflow(&mut self, value: &[u8]) -> Result<LeafValue> {
        let n = overflow_pages(value.len() as u64);
        let first = self.alloc_run(n);
        let mut buf = vec![0u8; n as usize * PAGE_SIZE];
        for (i, (page, chunk)) in buf
            .chunks_mut(PAGE_SIZE)
            .zip(value.chunks(OVERFLOW_PAYLOAD_LEN))
            .enumerate()
        {
            page[KIND_OFFSET] = KIND_OVERFLOW;
            page[OVERFLOW_PAYLOAD_OFFSET..OVERFLOW_PAYLOAD_OFFSET + chunk.len()]
                .copy_from_slice(chunk);
            let id = PageId(first.0 + i as u64);
            seal_page(page, id);
            let crc = read_u32(page, CHECKSUM_OFFSET);
            self.owned.insert(id, Owned { gen: self.gen, crc });
        }
        self.shared
            .inner
            .borrow_mut()
            .pager
            .write_run(first, &buf)?;
        Ok(LeafValue::Overflow {
            len: value.len() as u64,
            first,
        })
    }

    /// Allocates one page (see [`WriteTxn::take_page`]).
    pub(crate) fn alloc_page(&mut self) -> PageId {
        let id = self.take_page();
        self.owned.insert(
            id,
            Owned {
                gen: self.gen,
                crc: 0,
            },
        );
        id
    }

    /// Moves the node at `id` to a page allocated for it and frees `id`;
    /// returns the new page. The node moves as it is, out of the cache: it
    /// is cloned only when changed while a snapshot holds it.
    pub(crate) fn move_to_new_page(&mut self, id: PageId) -> Result<PageId> {
        let node = match self.dirty.get(&id) {
            Some(n) => n.clone(),
            None => self
                .shared
                .inner
                .borrow_mut()
                .take_node(id, self.page_count)?,
        };
        let new_id = self.alloc_page();
        self.dirty.insert(new_id, node);
        self.free_page(id);
        Ok(new_id)
    }

    /// Picks a page so that a commit's pages lie side by side, each run of
    /// them one device write (on OPFS 8-60 µs per call whatever its size):
    /// the page after the one taken last while it is free (or the next new
    /// one, when the run began at the end of the file); else the first page
    /// of the first free run as long as the last commit wrote (`run_want`);
    /// else the lowest free page; else a new page at the end.
    ///
    /// Lowest-first alone keeps a steady stream of small commits writing
    /// two runs each: commit N+1 may only take pages free in state N, and
    /// the pages of N and N-1 interleave ({4,5,6} and {3,7,8} in turn for
    /// single-row INSERTs, with no other page free). So when no run is long
    /// enough and at most twice `run_want` pages are free, the run begins
    /// at the end of the file instead: the file grows by one commit's pages
    /// once (at most [`MAX_RUN_WANT`]), and the commits then take two runs
    /// in turn ({9,10,11}, then {3,4,5}, then {6,7,8}, ...). With more pages
    /// free and none in a long enough run, the lowest ones are taken, as
    /// before: the file grows only while at most 2 x `MAX_RUN_WANT`
    /// pages are free.
    fn take_page(&mut self) -> PageId {
        match self.placement {
            Placement::Runs => {}
            Placement::LowestFirst => {
                return match self.free.take_one() {
                    Some(p) => p,
                    None => self.new_page(),
                }
            }
            Placement::AtEnd => return self.new_page(),
        }
        match self.next_page {
            // (A run of new pages ends where `alloc_run` extended the file.)
            Some(next) if self.appending && next == self.page_count => return self.new_page(),
            Some(next) if !self.appending && self.free.remove(next) => {
                self.next_page = Some(next + 1);
                return PageId(next);
            }
            _ => {}
        }
        let page = self.start_run();
        self.next_page = Some(page.0 + 1);
        page
    }

    /// The first page of a new run (see [`WriteTxn::take_page`]).
    fn start_run(&mut self) -> PageId {
        self.appending = false;
        if self.run_want > 1 {
            // Runs before the last one started only shrank since.
            let from = self.next_page.unwrap_or(0);
            if let Some(p) = self.free.take_run_start(self.run_want, from) {
                return p;
            }
            let few_free = self.free.len() <= 2 * self.run_want;
            // Runs only shrink while the transaction allocates (but for
            // pages it frees again): stop looking.
            self.run_want = 0;
            if few_free {
                return self.new_page();
            }
        }
        match self.free.take_one() {
            Some(p) => p,
            None => self.new_page(),
        }
    }

    /// A new page at the end of the file; the run goes on there.
    fn new_page(&mut self) -> PageId {
        self.appending = true;
        self.page_count += 1;
        self.next_page = Some(self.page_count);
        PageId(self.page_count - 1)
    }

    /// Allocates `n` consecutive pages (first fit, else at the end, reusing
    /// a free tail). The caller marks them owned.
    fn alloc_run(&mut self, n: u64) -> PageId {
        if self.placement == Placement::AtEnd {
            self.page_count += n;
            return PageId(self.page_count - n);
        }
        if let Some(p) = self.free.take_run(n) {
            return p;
        }
        let start = self
            .free
            .take_tail(self.page_count)
            .unwrap_or(self.page_count);
        self.page_count = start + n;
        PageId(start)
    }

    /// Spills dirty nodes to their pages once they pass 5/8 of the limit.
    /// A spill writes every dirty node, and a workload whose pages are
    /// touched at random (inserts into several indexes) dirties them all
    /// again: the higher the threshold, the fewer rewrites (100k rows with
    /// three indexes under the default limit: 1/2 -> 5/8 cut the time
    /// about 15%). The rest of the limit covers what the estimate in
    /// `retained_bytes` leaves out (a decoded node's heap exceeds its page);
    /// `storage_batch_limit` checks the heap stays under the limit.
    fn maybe_spill(&mut self) -> Result<()> {
        if self.retained_bytes() <= self.limit() / 8 * 5 {
            return Ok(());
        }
        let mut ids: Vec<PageId> = self.dirty.keys().copied().collect();
        ids.sort();
        self.write_nodes(&ids)
    }

    /// Encodes and writes the given dirty nodes (ascending ids), recording
    /// their checksums and moving them into the shared cache as clean nodes.
    /// Works in batches of `WRITE_BATCH_PAGES`, which bounds the page
    /// buffers a spill or commit needs on top of the dirty nodes.
    pub(crate) fn write_nodes(&mut self, ids: &[PageId]) -> Result<()> {
        self.write_nodes_with(ids, &[])
    }

    /// [`WriteTxn::write_nodes`], with `extra` pages (already encoded,
    /// ascending ids, none of them dirty) written in the same device calls
    /// as the last batch: a small commit's free-list pages go out with its
    /// nodes, adjacent pages in one call.
    pub(crate) fn write_nodes_with(
        &mut self,
        ids: &[PageId],
        extra: &[(PageId, &[u8])],
    ) -> Result<()> {
        let batches = ids.chunks(WRITE_BATCH_PAGES).count().max(1);
        let mut limbo_at: Option<FastMap<PageId, usize>> = None;
        // A batch's pages in id order, back to back: a run of adjacent
        // pages is one slice of it, written without a copy.
        let mut order: Vec<PageId> = Vec::new();
        let mut pages: Vec<u8> = Vec::new();
        for (b, batch) in ids
            .chunks(WRITE_BATCH_PAGES)
            .chain((ids.is_empty()).then_some(&[][..]))
            .enumerate()
        {
            let extra = if b + 1 == batches { extra } else { &[] };
            order.clear();
            let (mut d, mut x) = (0, 0);
            while d < batch.len() || x < extra.len() {
                if x == extra.len() || (d < batch.len() && batch[d] < extra[x].0) {
                    order.push(batch[d]);
                    d += 1;
                } else {
                    order.push(extra[x].0);
                    x += 1;
                }
            }
            pages.clear();
            // Zeroed: a node encodes into a zeroed page.
            pages.resize(order.len() * PAGE_SIZE, 0);
            let (mut x, slots) = (0, pages.chunks_exact_mut(PAGE_SIZE));
            for (&id, page) in order.iter().zip(slots) {
                if x < extra.len() && extra[x].0 == id {
                    page.copy_from_slice(extra[x].1);
                    x += 1;
                    continue;
                }
                let node = self.dirty.get(&id).expect("write_nodes takes dirty ids");
                node.encode(page, id);
                let crc = read_u32(page, CHECKSUM_OFFSET);
                if let Some(o) = self.owned.get_mut(&id) {
                    o.crc = crc;
                } else {
                    // A page a savepoint may bring back (`limbo`, still
                    // dirty) written by a spill: when it comes back, a
                    // one-flush commit lists it with this checksum.
                    let at = limbo_at.get_or_insert_with(|| {
                        self.limbo
                            .iter()
                            .enumerate()
                            .map(|(i, (p, _))| (*p, i))
                            .collect()
                    });
                    if let Some(&i) = at.get(&id) {
                        self.limbo[i].1.crc = crc;
                    }
                }
            }
            let mut inner = self.shared.inner.borrow_mut();
            inner.pager.write_pages(&order, &pages)?;
            for &id in batch {
                if let Some(node) = self.dirty.remove(&id) {
                    inner.pager.cache_node(id, node);
                }
            }
        }
        Ok(())
    }

    /// Makes the transaction durable; returns once it is.
    pub fn commit(mut self) -> Result<()> {
        self.clear_savepoints();
        let result = super::commit::commit(&mut self);
        self.finish();
        result
    }

    /// Discards the transaction.
    pub fn rollback(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        if !self.finished {
            self.finished = true;
            if let Ok(mut inner) = self.shared.inner.try_borrow_mut() {
                inner.writer_open = false;
            }
        }
    }
}

impl Drop for WriteTxn {
    fn drop(&mut self) {
        self.finish();
    }
}

impl NodeSource for WriteTxn {
    fn node(&self, id: PageId) -> Result<Rc<Node>> {
        if let Some(n) = self.dirty.get(&id) {
            return Ok(n.clone());
        }
        self.shared.inner.borrow_mut().node(id, self.page_count)
    }

    fn scan_node(&self, id: PageId) -> Result<Rc<Node>> {
        if let Some(n) = self.dirty.get(&id) {
            return Ok(n.clone());
        }
        self.shared
            .inner
            .borrow_mut()
            .scan_node(id, self.page_count)
    }
}

impl NodeStore for WriteTxn {
    fn make_mut(&mut self, id: PageId) -> Result<(PageId, &mut Node)> {
        let inplace = self
            .owned
            .get(&id)
            .is_some_and(|o| o.gen >= self.inplace_gen());
        let target = if inplace {
            if !self.dirty.contains_key(&id) {
                // A spilled page of this transaction: no snapshot can reach
                // it, so its clean copy leaves the cache and the node
                // changes without being copied.
                let node = self.node(id)?;
                self.shared.inner.borrow_mut().pager.uncache(id);
                self.dirty.insert(id, node);
            }
            id
        } else {
            self.move_to_new_page(id)?
        };
        let node = self.dirty.get_mut(&target).expect("inserted above");
        Ok((target, Rc::make_mut(node)))
    }

    fn alloc_node(&mut self, node: Node) -> Result<PageId> {
        let id = self.alloc_page();
        self.dirty.insert(id, Rc::new(node));
        Ok(id)
    }

    fn free_page(&mut self, id: PageId) {
        match self.owned.remove(&id) {
            Some(o) if o.gen >= self.inplace_gen() => {
                self.dirty.remove(&id);
                self.free.insert(id);
            }
            // A savepoint may bring it back: keep its content.
            Some(o) => self.limbo.push((id, o)),
            None => self.freed.push(id),
        }
    }

    fn free_value(&mut self, value: &LeafValue) {
        if let LeafValue::Overflow { len, first } = value {
            for i in 0..overflow_pages(*len) {
                self.free_page(PageId(first.0 + i));
            }
        }
    }
}

impl RangeSource for WriteTxn {
    fn value(&self, v: LeafValue) -> Result<Vec<u8>> {
        read_value(&self.shared, v, self.page_count)
    }
}

impl TreeRead for WriteTxn {
    fn get_with(
        &self,
        tree: &str,
        key: &[u8],
        f: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<bool> {
        tree_get_with(self, self.existing(tree)?.root, key, f)
    }

    fn range(&self, tree: &str, lo: Bound<Vec<u8>>, hi: Bound<Vec<u8>>) -> Result<Range<'_>> {
        let m = self.existing(tree)?;
        Ok(Range::new(self, m.root, lo, hi))
    }

    fn tree_exists(&self, tree: &str) -> Result<bool> {
        Ok(self.meta(tree)?.is_some())
    }

    fn tree_names(&self) -> Result<Vec<String>> {
        let mut names: std::collections::BTreeSet<String> =
            catalog_names(self, self.base.catalog_root)?
                .into_iter()
                .collect();
        for (name, m) in &self.trees {
            match m {
                Some(_) => names.insert(name.clone()),
                None => names.remove(name),
            };
        }
        Ok(names.into_iter().collect())
    }

    fn tree_len(&self, tree: &str) -> Result<u64> {
        Ok(self.existing(tree)?.len)
    }
}

#[cfg(test)]
mod tests {
    use super::super::btree::NodeSource;
    use super::super::{MemoryDevice, Store, StoreOptions};
    use std::rc::Rc;

    /// The first change of a committed page starts from the cached node
    /// itself when nothing else holds it (no clone), and from a copy when a
    /// reader still holds it, which keeps seeing the old content.
    #[test]
    fn a_first_change_takes_the_cached_node_unless_it_is_held() {
        let store = Store::open(Box::new(MemoryDevice::new()), StoreOptions::default()).unwrap();
        let mut t = store.write().unwrap();
        t.create_tree("t").unwrap();
        t.insert("t", b"a", b"1").unwrap();
        t.commit().unwrap();

        let mut t = store.write().unwrap();
        let root = t.meta("t").unwrap().unwrap().root;
        let cached = Rc::as_ptr(&t.node(root).unwrap());
        t.insert("t", b"b", b"2").unwrap();
        assert!(
            t.dirty.values().any(|n| Rc::as_ptr(n) == cached),
            "the changed leaf is a clone of an unshared cached node"
        );
        t.commit().unwrap();

        let mut t = store.write().unwrap();
        let root = t.meta("t").unwrap().unwrap().root;
        let held = t.node(root).unwrap();
        t.insert("t", b"c", b"3").unwrap();
        assert!(t.dirty.values().all(|n| !Rc::ptr_eq(n, &held)));
        let super::super::node::Node::Leaf(l) = &*held else {
            panic!("a one-leaf tree's root is a leaf")
        };
        assert_eq!(l.len(), 2, "the held node changed under its reader");
    }
}
