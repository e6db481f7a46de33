//! [`Store`]: an open database file, its committed state, and read
//! snapshots ([`ReadTxn`]). Write transactions live in `txn`, the commit
//! protocol in `commit`.
//!
//! Page life cycle (the rules that make copy-on-write safe):
//! 1. A committed state N is a superblock plus every page reachable from it.
//!    No write ever touches such a page while N is the newest durable state
//!    or any open snapshot reads N or an older state.
//! 2. A page that commit `t` stops referencing goes to `pending[t]`. It joins
//!    the allocator (`free`) only when every open snapshot is at `t` or newer
//!    (an older one could still read it) -- checked when a write begins.
//! 3. The on-disk free list of state N lists every page of the file that N
//!    does not reach, pending ones included: after a reopen no snapshot
//!    exists, so all of them are free.

use super::alloc::FreeSet;
use super::btree::NodeSource;
use super::check::{self, CheckReport};
use super::cursor::Cursor;
use super::device::Device;
use super::fasthash::FastMap;
use super::format::*;
use super::node::{cmp_keys, LeafValue, Node, RawValue};
use super::pager::{Pager, PagerStats};
use super::txn::WriteTxn;
use crate::{corrupt, misuse, Error, Result};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::rc::Rc;

/// How much of the file `Store::open` verifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Validation {
    /// Every page: checksums, tree shape, key order, reachability.
    #[default]
    Full,
    /// The superblocks, the last commit's pages and the tree roots.
    Quick,
}

/// How a commit makes itself durable (FORMAT.md, "Commit protocol").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CommitMode {
    /// Flush the pages, then write and flush the superblock. A damaged page
    /// of the newest commit is always reported as corrupt.
    TwoFlush,
    /// The default. Write pages and superblock, flush once; the superblock
    /// records a CRC over the pages' checksums, checked on open. Half the
    /// flushes of `TwoFlush`, but until [`Store::sync`] confirms the newest
    /// commit (a write and a flush off the commit's path), a damaged page of
    /// it cannot be told from a torn commit, so open then falls back to the
    /// previous commit (as SQLite's WAL does with a damaged last frame). A
    /// commit whose pages do not fit the superblock's extents uses two
    /// flushes.
    #[default]
    OneFlush,
    /// Write pages and superblock without flushing (SQLite's WAL with
    /// `synchronous=NORMAL`): a commit survives its process, tab or browser
    /// crashing (its writes are with the operating system), and becomes
    /// durable against power loss or an OS crash at the next
    /// [`Store::sync`]. A crash before it leaves the state of the last sync
    /// or a newer committed one, whole. A commit syncs by itself when the
    /// pages written or freed since the last sync outgrow the superblock's
    /// extents, `DEFERRED_HELD_LIMIT` or `DEFERRED_HELD_RUNS`.
    Deferred,
}

/// Pages freed since the last sync (kept from reuse until then) beyond
/// which a deferred commit syncs: 4 MiB of file.
pub const DEFERRED_HELD_LIMIT: usize = 1024;

/// Runs of such pages beyond which a deferred commit syncs: every commit
/// lists them in its free list, so their number bounds its work.
pub const DEFERRED_HELD_RUNS: usize = 128;

/// Options for [`Store::open`].
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// Tree nodes kept in memory (a leaf read from the file costs about
    /// one page: see `node::Leaf`).
    pub cache_pages: usize,
    /// Memory a write transaction may retain before it spills dirty pages
    /// (and beyond which work that cannot spill fails).
    pub batch_limit_bytes: u64,
    pub validation: Validation,
    pub commit: CommitMode,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            cache_pages: 8192,
            batch_limit_bytes: 16 << 20,
            validation: Validation::Full,
            commit: CommitMode::default(),
        }
    }
}

/// A tree's entry in the catalog: root page and entry count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TreeMeta {
    pub root: PageId,
    pub len: u64,
}

impl TreeMeta {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(16);
        v.extend_from_slice(&self.root.0.to_le_bytes());
        v.extend_from_slice(&self.len.to_le_bytes());
        v
    }

    pub(crate) fn decode(b: &[u8], page: PageId) -> Result<TreeMeta> {
        if b.len() != 16 {
            return Err(corrupt!(page.0, "catalog entry of {} bytes", b.len()));
        }
        Ok(TreeMeta {
            root: PageId(read_u64(b, 0)),
            len: read_u64(b, 8),
        })
    }
}

/// Mutable state shared by the store, its snapshots and its writer.
pub(crate) struct Inner {
    pub pager: Pager,
    /// The newest committed state.
    pub sb: Superblock,
    /// The superblock slot `sb` was written to.
    pub sb_slot: PageId,
    /// The slot of the newest flushed superblock: no commit writes it (the
    /// next superblock goes to the other slot).
    pub durable_slot: PageId,
    /// Deferred commits since the last sync: the pages they wrote that
    /// `sb` still reaches, with their checksums (the next superblock's
    /// extents), and the pages they freed, not reused before the sync
    /// (the synced state may reach them).
    pub unsynced: Option<Unsynced>,
    /// Pages any write may allocate now.
    pub free: FreeSet,
    /// Pages released by commit `t`, waiting for older snapshots to close.
    pub pending: BTreeMap<TxnId, Vec<PageId>>,
    /// Open snapshots by the state they read, with counts; the newest
    /// state's entry may be zero (see `ReadTxn`'s drop).
    pub snapshots: BTreeMap<TxnId, usize>,
    pub writer_open: bool,
    /// Pages of the current on-disk free-list chain.
    pub freelist_pages: Vec<PageId>,
    /// Pages the last commit wrote: the run the next transaction's
    /// allocation starts in should hold as many (`WriteTxn::take_page`).
    pub last_commit_pages: u64,
    /// The tree entries looked up in the newest state's catalog, shared by
    /// the snapshots of that state (a state never changes, and each
    /// autocommit read opens a new snapshot of, usually, the same one).
    pub metas: Option<(TxnId, SharedMetas)>,
}

/// What deferred commits changed since the last sync (see `Inner::unsynced`).
#[derive(Default)]
pub(crate) struct Unsynced {
    pub written: BTreeMap<PageId, u32>,
    /// Mostly runs: each commit frees the previous versions of the pages
    /// it changes, which the commits before it allocated side by side.
    pub held: FreeSet,
}

/// Tree entries found in one state's catalog, by tree name (`None`: no
/// such tree).
pub(crate) type SharedMetas = Rc<RefCell<FastMap<String, Option<TreeMeta>>>>;

/// A tree node reference must name a data page inside the file.
fn check_node_ref(id: PageId, page_count: u64) -> Result<()> {
    if id.0 < FIRST_DATA_PAGE || id.0 >= page_count {
        return Err(corrupt!(
            id.0,
            "page reference out of range (file has {page_count} pages)"
        ));
    }
    Ok(())
}

impl Inner {
    /// Reads a tree node of a state whose file is `page_count` pages long.
    pub(crate) fn node(&mut self, id: PageId, page_count: u64) -> Result<Rc<Node>> {
        check_node_ref(id, page_count)?;
        self.pager.node(id)
    }

    /// [`Inner::node`] for a writer's copy (see [`Pager::take_node`]).
    pub(crate) fn take_node(&mut self, id: PageId, page_count: u64) -> Result<Rc<Node>> {
        check_node_ref(id, page_count)?;
        self.pager.take_node(id)
    }

    /// [`Inner::node`] for a scan (see [`Pager::scan_node`]).
    pub(crate) fn scan_node(&mut self, id: PageId, page_count: u64) -> Result<Rc<Node>> {
        check_node_ref(id, page_count)?;
        self.pager.scan_node(id)
    }

    /// [`Inner::scan_node`] of `next[0]`, reading ahead the siblings in
    /// `next` that follow it in the file (see [`Pager::scan_ahead`]).
    pub(crate) fn scan_ahead(&mut self, next: &[PageId], page_count: u64) -> Result<Rc<Node>> {
        check_node_ref(next[0], page_count)?;
        self.pager.scan_ahead(next, page_count)
    }

    /// Moves pending pages no open snapshot can reach into the allocator.
    pub(crate) fn release_pending(&mut self) {
        self.snapshots.retain(|_, n| *n > 0);
        let oldest = self.snapshots.keys().next().copied();
        let ready: Vec<TxnId> = self
            .pending
            .keys()
            .copied()
            .filter(|&t| oldest.is_none_or(|s| s >= t))
            .collect();
        for t in ready {
            for p in self.pending.remove(&t).unwrap_or_default() {
                self.free.insert(p);
            }
        }
    }

    /// Flushes the device: every state written so far is durable. Pages
    /// deferred commits freed become pending (free once no snapshot reads
    /// them).
    pub(crate) fn sync(&mut self) -> Result<()> {
        self.pager.flush()?;
        self.durable_slot = self.sb_slot;
        if let Some(u) = self.unsynced.take() {
            let pages = u
                .held
                .extents()
                .into_iter()
                .flat_map(|e| e.start..e.start + u64::from(e.len));
            self.pending
                .entry(self.sb.txn)
                .or_default()
                .extend(pages.map(PageId));
        }
        Ok(())
    }

    /// [`Inner::sync`] when a deferred commit waits for it.
    fn sync_deferred(&mut self) -> Result<()> {
        if self.unsynced.is_some() {
            self.sync()?;
        }
        Ok(())
    }

    /// The superblock slot that does not hold the newest durable superblock:
    /// the only one a new superblock may go to.
    pub(crate) fn other_slot(&self) -> PageId {
        PageId((self.durable_slot.0 + 1) % SUPERBLOCK_SLOTS)
    }

    /// Whether the newest superblock lists the pages of its commit (one-flush
    /// or deferred) and has no confirmed copy yet: until [`Inner::confirm`],
    /// a damaged page of that commit reads as a torn commit on open.
    pub(crate) fn unconfirmed(&self) -> bool {
        self.sb.extents.as_ref().is_some_and(|e| !e.is_empty())
    }

    /// Confirms the newest state once it is durable (FORMAT.md, "Commit
    /// protocol"): writes a copy of its superblock without extents into the
    /// other slot and flushes. Either copy names the same durable state, so
    /// a crash at any point leaves it; from then on recovery takes the
    /// confirmed copy as it is, and validation reports a damaged page of the
    /// commit as corrupt. The next commit goes into the slot of the copy
    /// with extents.
    fn confirm(&mut self) -> Result<()> {
        debug_assert!(self.unsynced.is_none() && self.durable_slot == self.sb_slot);
        let slot = self.other_slot();
        let confirmed = Superblock {
            extents: None,
            ..self.sb.clone()
        };
        self.pager.write_pages(&[slot], &confirmed.encode(slot).0)?;
        self.pager.flush()?;
        self.sb = confirmed;
        self.sb_slot = slot;
        self.durable_slot = slot;
        Ok(())
    }
}

pub(crate) struct Shared {
    pub inner: RefCell<Inner>,
    pub opts: StoreOptions,
}

/// An open database file. Clones share it.
#[derive(Clone)]
pub struct Store {
    shared: Rc<Shared>,
}

impl Store {
    /// Opens the store on `device`, creating an empty one if the device is
    /// empty, and validates it as `opts.validation` says.
    pub fn open(mut device: Box<dyn Device>, opts: StoreOptions) -> Result<Store> {
        if device.len()? == 0 {
            create(device.as_mut())?;
        }
        let mut pager = Pager::new(device, opts.cache_pages);
        let (sb, sb_slot) = super::commit::recover(&mut pager)?;
        let (free, freelist_pages) = super::commit::load_freelist(&mut pager, &sb)?;
        // A superblock written without a flush after it (one-flush or
        // deferred) may be with the OS only: flush before the next commit
        // overwrites the other slot, the only other state.
        if sb.extents.is_some() {
            pager.flush()?;
        }
        let inner = Inner {
            pager,
            sb,
            sb_slot,
            durable_slot: sb_slot,
            unsynced: None,
            free,
            pending: BTreeMap::new(),
            snapshots: BTreeMap::new(),
            writer_open: false,
            freelist_pages,
            last_commit_pages: 1,
            metas: None,
        };
        let store = Store {
            shared: Rc::new(Shared {
                inner: RefCell::new(inner),
                opts,
            }),
        };
        let report = match store.shared.opts.validation {
            Validation::Full => store.check()?,
            Validation::Quick => check::quick(&store.read()?)?,
        };
        if let Some(p) = report.problems.first() {
            return Err(Error::Corrupt {
                page: p.page,
                detail: p.detail.clone(),
            });
        }
        if store.shared.opts.validation == Validation::Full {
            store.shared.inner.borrow_mut().pager.trust_order = true;
        }
        Ok(store)
    }

    /// A snapshot of the newest committed state. Never waits for a writer.
    pub fn read(&self) -> Result<ReadTxn> {
        let mut inner = self.shared.inner.borrow_mut();
        let sb = inner.sb.without_extents();
        *inner.snapshots.entry(sb.txn).or_insert(0) += 1;
        let metas = match &inner.metas {
            Some((txn, m)) if *txn == sb.txn => m.clone(),
            _ => {
                let m = SharedMetas::default();
                inner.metas = Some((sb.txn, m.clone()));
                m
            }
        };
        Ok(ReadTxn {
            shared: self.shared.clone(),
            sb,
            metas,
            recent: RefCell::default(),
        })
    }

    /// Begins the write transaction; `Busy` if one is already open.
    pub fn write(&self) -> Result<WriteTxn> {
        WriteTxn::begin(self.shared.clone())
    }

    /// Validates the whole file and lists every problem found.
    pub fn check(&self) -> Result<CheckReport> {
        check::full(&self.read()?)
    }

    /// Device calls made so far.
    pub fn stats(&self) -> PagerStats {
        self.shared.inner.borrow().pager.stats
    }

    /// The newest committed transaction id.
    pub fn last_txn(&self) -> u64 {
        self.shared.inner.borrow().sb.txn.0
    }

    /// Makes every commit so far durable and confirms the newest one: a
    /// flush when a deferred commit waits, then, when the newest superblock
    /// lists its commit's pages (one-flush or deferred), a confirmed copy of
    /// it and a second flush (after which a damaged page of that commit is
    /// reported as corrupt rather than taken for a torn commit). Does nothing
    /// when neither is needed. See [`CommitMode::OneFlush`].
    pub fn sync(&self) -> Result<()> {
        let mut inner = self.shared.inner.borrow_mut();
        // An open write transaction does not matter: what it wrote is in
        // pages no committed state reaches.
        if inner.unsynced.is_some() {
            inner.sync()?;
        }
        if inner.unconfirmed() {
            inner.confirm()?;
        }
        Ok(())
    }

    /// Shrinks the file to the pages its trees use (SQL's VACUUM; the
    /// passes are `txn::compact`'s): packing passes move the pages at the
    /// end of the file into free pages before them and drop the free pages
    /// left at the end, each committed as any transaction is, until a pass
    /// finds nothing to do (at most [`COMPACT_PASSES`]). When more than a
    /// sixteenth of the file (and more than [`COMPACT_SLACK`] pages) is still
    /// unused then, because overflow runs find no free runs long enough, and
    /// no snapshot is open, a rebuild pass copies every page in use after
    /// the end of the file and packing passes move it all back. Then both
    /// superblock slots name the last state and the file is cut after its
    /// last page. Pages an open snapshot may read stay, and so do those
    /// after them. `Busy` while a write transaction is open. A crash at any
    /// point leaves the last committed pass or the one before, whole.
    pub fn compact(&self) -> Result<Compaction> {
        self.sync()?;
        let before = self.shared.inner.borrow().sb.page_count;
        let mut passes = self.packing_passes()?;
        let (pages, unused) = self.page_counts();
        let snapshots = self
            .shared
            .inner
            .borrow()
            .snapshots
            .values()
            .any(|&n| n > 0);
        let rebuilt = unused > COMPACT_SLACK.max(pages / 16) && !snapshots;
        if rebuilt {
            let mut txn = self.write()?;
            txn.rebuild_pass()?;
            txn.commit()?;
            self.shared.inner.borrow_mut().sync_deferred()?;
            passes += 1 + self.packing_passes()?;
        }
        let mut inner = self.shared.inner.borrow_mut();
        // The other slot may name an older, longer state: write the last
        // state there too before cutting what that one reaches.
        inner.confirm()?;
        let after = inner.sb.page_count;
        inner.pager.truncate(after * PAGE_SIZE as u64)?;
        Ok(Compaction {
            pages_before: before,
            pages_after: after,
            passes,
            rebuilt,
        })
    }

    /// Packing passes until one finds nothing to do (at most
    /// [`COMPACT_PASSES`]); returns how many were committed.
    fn packing_passes(&self) -> Result<usize> {
        let mut passes = 0;
        while passes < COMPACT_PASSES {
            let mut txn = self.write()?;
            if txn.packing_pass()? == super::txn::Pass::default() {
                txn.rollback();
                break;
            }
            txn.commit()?;
            self.shared.inner.borrow_mut().sync_deferred()?;
            passes += 1;
        }
        Ok(passes)
    }

    /// The newest state's pages: (pages in the file, superblocks included;
    /// pages of those it does not reach, free or kept for open snapshots).
    pub fn page_counts(&self) -> (u64, u64) {
        let inner = self.shared.inner.borrow();
        let pending: usize = inner.pending.values().map(Vec::len).sum();
        let held = inner.unsynced.as_ref().map_or(0, |u| u.held.len());
        let unused = inner.free.len() + pending as u64 + held + inner.freelist_pages.len() as u64;
        (inner.sb.page_count, unused)
    }

    /// Whether [`Store::sync`] has anything to do: a deferred commit is not
    /// yet durable, or the newest commit is not yet confirmed.
    pub fn needs_sync(&self) -> bool {
        let inner = self.shared.inner.borrow();
        inner.unsynced.is_some() || inner.unconfirmed()
    }
}

/// Packing passes [`Store::compact`] commits at most in a row. A pass
/// moves every page it can; the ones after it catch the branches copied on
/// the way (about one a hundred leaves) and drop what the moves freed.
pub const COMPACT_PASSES: usize = 16;

/// Unused pages [`Store::compact`] leaves without a rebuild pass (when they
/// are also at most a sixteenth of the file).
pub const COMPACT_SLACK: u64 = 64;

/// What [`Store::compact`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compaction {
    /// The file's pages (superblocks included) before and after.
    pub pages_before: u64,
    pub pages_after: u64,
    /// Passes committed.
    pub passes: usize,
    /// Whether a rebuild pass ran (see [`Store::compact`]).
    pub rebuilt: bool,
}

/// Writes the two superblocks of an empty store.
fn create(device: &mut dyn Device) -> Result<()> {
    for txn in [0u64, 1] {
        let sb = Superblock {
            txn: TxnId(txn),
            catalog_root: PageId::NONE,
            freelist_root: PageId::NONE,
            page_count: FIRST_DATA_PAGE,
            commit_crc: crc32fast::hash(&[]),
            extents: Some(Vec::new()),
        };
        let slot = PageId(txn % SUPERBLOCK_SLOTS);
        device.write_at(slot.offset(), &sb.encode(slot).0)?;
    }
    device.flush()
}

/// Read access shared by snapshots and the write transaction (which sees
/// its own changes).
pub trait TreeRead {
    /// The value under `key`, if any (a copy of what [`TreeRead::get_with`]
    /// lends).
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut out = None;
        self.get_with(tree, key, &mut |v| {
            out = Some(v.to_vec());
            Ok(())
        })?;
        Ok(out)
    }
    /// Calls `f` with the value under `key`, borrowed from its node (an
    /// overflow value is read into a temporary); false if there is none.
    fn get_with(
        &self,
        tree: &str,
        key: &[u8],
        f: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<bool>;
    /// Entries with keys within the bounds, in either direction.
    fn range(&self, tree: &str, lo: Bound<Vec<u8>>, hi: Bound<Vec<u8>>) -> Result<Range<'_>>;
    fn tree_exists(&self, tree: &str) -> Result<bool>;
    fn tree_names(&self) -> Result<Vec<String>>;
    /// Number of entries (O(1)).
    fn tree_len(&self, tree: &str) -> Result<u64>;
}

/// What a [`Range`] needs from the transaction it iterates.
pub(crate) trait RangeSource: NodeSource {
    fn value(&self, v: LeafValue) -> Result<Vec<u8>>;
}

/// An iterator over a key range of one tree, from either end. It borrows
/// its transaction: a write transaction cannot change while one is alive.
pub struct Range<'a> {
    src: &'a dyn RangeSource,
    root: PageId,
    lo: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
    front: Option<Cursor>,
    back: Option<Cursor>,
    /// Last keys returned from each end: the ends stop when they meet.
    front_key: Option<Vec<u8>>,
    back_key: Option<Vec<u8>>,
}

impl<'a> Range<'a> {
    pub(crate) fn new(
        src: &'a dyn RangeSource,
        root: PageId,
        lo: Bound<Vec<u8>>,
        hi: Bound<Vec<u8>>,
    ) -> Range<'a> {
        Range {
            src,
            root,
            lo,
            hi,
            front: None,
            back: None,
            front_key: None,
            back_key: None,
        }
    }

    /// The next entry in ascending key order.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        if self.front.is_none() {
            self.front = Some(Cursor::seek(self.src, self.root, &self.lo)?);
        }
        let cursor = self.front.as_mut().expect("set above");
        let Some((k, v)) = cursor.next(self.src)? else {
            return Ok(None);
        };
        if past_hi(&k, &self.hi)
            || self
                .back_key
                .as_ref()
                .is_some_and(|b| cmp_keys(&k, b).is_ge())
        {
            self.front = Some(Cursor::seek(self.src, PageId::NONE, &Bound::Unbounded)?);
            return Ok(None);
        }
        self.front_key = Some(k.clone());
        Ok(Some((k, self.src.value(v)?)))
    }

    /// The next entry in descending key order.
    pub fn next_back(&mut self) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        if self.back.is_none() {
            self.back = Some(Cursor::seek_back(self.src, self.root, &self.hi)?);
        }
        let cursor = self.back.as_mut().expect("set above");
        let Some((k, v)) = cursor.prev(self.src)? else {
            return Ok(None);
        };
        if before_lo(&k, &self.lo)
            || self
                .front_key
                .as_ref()
                .is_some_and(|f| cmp_keys(&k, f).is_le())
        {
            self.back = Some(Cursor::seek(self.src, PageId::NONE, &Bound::Unbounded)?);
            return Ok(None);
        }
        self.back_key = Some(k.clone());
        Ok(Some((k, self.src.value(v)?)))
    }
}

/// True when `k` lies above the upper bound `hi` (a range walking up stops).
#[inline]
fn past_hi(k: &[u8], hi: &Bound<Vec<u8>>) -> bool {
    match hi {
        Bound::Unbounded => false,
        Bound::Included(h) => cmp_keys(k, h).is_gt(),
        Bound::Excluded(h) => cmp_keys(k, h).is_ge(),
    }
}

/// True when `k` lies below the lower bound `lo` (a range walking down stops).
#[inline]
fn before_lo(k: &[u8], lo: &Bound<Vec<u8>>) -> bool {
    match lo {
        Bound::Unbounded => false,
        Bound::Included(l) => cmp_keys(k, l).is_lt(),
        Bound::Excluded(l) => cmp_keys(k, l).is_le(),
    }
}

impl Range<'_> {
    /// Calls `f` with each entry of the range, ascending (descending when
    /// `reverse`), until `f` returns false. Keys and inline values are
    /// borrowed from the tree's nodes, not copied; an overflow value is read
    /// into a temporary. Visits the whole range from that end, whatever
    /// `next`/`next_back` returned before; consumes the range.
    pub fn visit(
        self,
        reverse: bool,
        mut f: impl FnMut(&[u8], &[u8]) -> Result<bool>,
    ) -> Result<()> {
        let src = self.src;
        let (lo, hi) = (&self.lo, &self.hi);
        let mut cursor = if reverse {
            Cursor::seek_back(src, self.root, hi)?
        } else {
            Cursor::seek(src, self.root, lo)?
        };
        cursor.visit(src, !reverse, |k, v| {
            let outside = if reverse {
                before_lo(k, lo)
            } else {
                past_hi(k, hi)
            };
            if outside {
                return Ok(false);
            }
            match v {
                RawValue::Inline(b) => f(k, b),
                RawValue::Overflow { .. } => {
                    let b = src.value(v.to_owned())?;
                    f(k, &b)
                }
            }
        })
    }
}

/// A tree's entry in the catalog tree at `catalog_root`.
pub(crate) fn catalog_meta(
    src: &dyn NodeSource,
    catalog_root: PageId,
    name: &str,
) -> Result<Option<TreeMeta>> {
    match super::btree::get(src, catalog_root, name.as_bytes())? {
        Some(LeafValue::Inline(v)) => Ok(Some(TreeMeta::decode(&v, catalog_root)?)),
        Some(LeafValue::Overflow { .. }) => {
            Err(corrupt!(catalog_root.0, "catalog entry overflows"))
        }
        None => Ok(None),
    }
}

/// Every tree name in the catalog tree at `catalog_root`, ascending.
pub(crate) fn catalog_names(src: &dyn RangeSource, catalog_root: PageId) -> Result<Vec<String>> {
    let mut names = Vec::new();
    let mut r = Range::new(src, catalog_root, Bound::Unbounded, Bound::Unbounded);
    while let Some((k, _)) = r.next()? {
        names.push(
            String::from_utf8(k).map_err(|_| corrupt!(catalog_root.0, "tree name is not UTF-8"))?,
        );
    }
    Ok(names)
}

/// Calls `f` with the value under `key` in the tree at `root`, borrowed
/// from its leaf; false when the key is absent.
pub(crate) fn tree_get_with(
    src: &dyn RangeSource,
    root: PageId,
    key: &[u8],
    f: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<bool> {
    match super::btree::find_leaf(src, root, key)? {
        Some((leaf, at)) => call_with_value(src, &leaf, at, f),
        None => Ok(false),
    }
}

/// Calls `f` with the value at `at` in `leaf` (an overflow value read into
/// a temporary); false, and no call, when the key was not found there.
fn call_with_value(
    src: &dyn RangeSource,
    leaf: &Node,
    at: std::result::Result<usize, usize>,
    f: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<bool> {
    let (Node::Leaf(l), Ok(i)) = (leaf, at) else {
        return Ok(false);
    };
    match l.value(i) {
        RawValue::Inline(v) => f(v)?,
        v @ RawValue::Overflow { .. } => f(&src.value(v.to_owned())?)?,
    }
    Ok(true)
}

/// A stored value's bytes: inline as is, overflow read from its pages
/// (which must lie below `page_count`).
pub(crate) fn read_value(shared: &Shared, v: LeafValue, page_count: u64) -> Result<Vec<u8>> {
    match v {
        LeafValue::Inline(v) => Ok(v),
        LeafValue::Overflow { len, first } => shared
            .inner
            .borrow_mut()
            .pager
            .read_overflow(first, len, page_count),
    }
}

/// Checks a tree name against the format's limits.
pub(crate) fn check_tree_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_TREE_NAME_LEN {
        return Err(misuse!("tree name must be 1 to {MAX_TREE_NAME_LEN} bytes"));
    }
    Ok(())
}

pub(crate) fn no_such_tree(name: &str) -> Error {
    misuse!("no such tree: {name}")
}

/// A consistent read-only view of one committed state.
pub struct ReadTxn {
    pub(crate) shared: Rc<Shared>,
    pub(crate) sb: Superblock,
    metas: SharedMetas,
    /// The leaf the last lookups in a few trees ended in, by tree root: a
    /// snapshot never changes, so a key within a leaf's first..last keys
    /// can only be in that leaf, and lookups that move forward through a
    /// tree (joins on ascending keys) skip the descent.
    /// Newest first; an array, so a snapshot allocates nothing for it.
    recent: RefCell<[Option<RecentLeaf>; RECENT_LEAVES]>,
}

/// A tree's root and the leaf a snapshot's last lookup in it ended in.
type RecentLeaf = (PageId, Rc<Node>);

/// Trees whose last leaf a snapshot remembers.
const RECENT_LEAVES: usize = 4;

impl ReadTxn {
    /// The transaction id of the state this snapshot reads.
    pub fn txn_id(&self) -> u64 {
        self.sb.txn.0
    }

    pub(crate) fn meta(&self, name: &str) -> Result<Option<TreeMeta>> {
        if let Some(m) = self.metas.borrow().get(name) {
            return Ok(*m);
        }
        let m = catalog_meta(self, self.sb.catalog_root, name)?;
        self.metas.borrow_mut().insert(name.to_string(), m);
        Ok(m)
    }

    fn existing(&self, name: &str) -> Result<TreeMeta> {
        self.meta(name)?.ok_or_else(|| no_such_tree(name))
    }
}

impl Drop for ReadTxn {
    fn drop(&mut self) {
        if let Ok(mut inner) = self.shared.inner.try_borrow_mut() {
            let newest = inner.sb.txn;
            if let Some(n) = inner.snapshots.get_mut(&self.sb.txn) {
                *n -= 1;
                // The newest state's entry stays, at zero: the next
                // autocommit read, usually of that same state, finds it
                // instead of the map building a node again.
                // `release_pending` ignores and drops zero entries.
                if *n == 0 && self.sb.txn != newest {
                    inner.snapshots.remove(&self.sb.txn);
                }
            }
        }
    }
}

impl NodeSource for ReadTxn {
    fn node(&self, id: PageId) -> Result<Rc<Node>> {
        self.shared.inner.borrow_mut().node(id, self.sb.page_count)
    }

    fn scan_node(&self, id: PageId) -> Result<Rc<Node>> {
        self.shared
            .inner
            .borrow_mut()
            .scan_node(id, self.sb.page_count)
    }

    /// A snapshot's pages are all in the file and stay as they are while
    /// it lives: reading some ahead is safe (a writer's pages are not: its
    /// source keeps the default).
    fn scan_ahead(&self, next: &[PageId]) -> Result<Rc<Node>> {
        self.shared
            .inner
            .borrow_mut()
            .scan_ahead(next, self.sb.page_count)
    }
}

impl RangeSource for ReadTxn {
    fn value(&self, v: LeafValue) -> Result<Vec<u8>> {
        read_value(&self.shared, v, self.sb.page_count)
    }
}

impl ReadTxn {
    /// The remembered leaf of the tree at `root` whose key range holds
    /// `key`, if any.
    fn recent_leaf(&self, root: PageId, key: &[u8]) -> Option<Rc<Node>> {
        let recent = self.recent.borrow();
        let (_, node) = recent.iter().flatten().find(|(r, _)| *r == root)?;
        let Node::Leaf(l) = &**node else { return None };
        let covers = !l.is_empty()
            && cmp_keys(l.key(0), key).is_le()
            && cmp_keys(key, l.key(l.len() - 1)).is_le();
        covers.then(|| node.clone())
    }

    fn remember_leaf(&self, root: PageId, leaf: Rc<Node>) {
        let mut recent = self.recent.borrow_mut();
        if let Some(e) = recent.iter_mut().flatten().find(|(r, _)| *r == root) {
            e.1 = leaf;
            return;
        }
        // The oldest (last) goes.
        recent.rotate_right(1);
        recent[0] = Some((root, leaf));
    }
}

impl TreeRead for ReadTxn {
    fn get_with(
        &self,
        tree: &str,
        key: &[u8],
        f: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<bool> {
        let root = self.existing(tree)?.root;
        let (leaf, at) = match self.recent_leaf(root, key) {
            Some(leaf) => {
                let Node::Leaf(l) = &*leaf else {
                    return Err(corrupt!(root.0, "remembered node is not a leaf"));
                };
                let at = l.search(key);
                (leaf, at)
            }
            None => match super::btree::find_leaf(self, root, key)? {
                None => return Ok(false),
                Some((leaf, at)) => {
                    self.remember_leaf(root, leaf.clone());
                    (leaf, at)
                }
            },
        };
        call_with_value(self, &leaf, at, f)
    }

    fn range(&self, tree: &str, lo: Bound<Vec<u8>>, hi: Bound<Vec<u8>>) -> Result<Range<'_>> {
        let m = self.existing(tree)?;
        Ok(Range::new(self, m.root, lo, hi))
    }

    fn tree_exists(&self, tree: &str) -> Result<bool> {
        Ok(self.meta(tree)?.is_some())
    }

    fn tree_names(&self) -> Result<Vec<String>> {
        catalog_names(self, self.sb.catalog_root)
    }

    fn tree_len(&self, tree: &str) -> Result<u64> {
        Ok(self.existing(tree)?.len)
    }
}
