//! The pager: the only code that calls the [`Device`]. It verifies the
//! checksum of every page it reads, keeps a bounded cache of decoded tree
//! nodes, writes runs of adjacent pages in one device call, and poisons
//! itself after any failed write or flush.
//!
//! Invariants:
//! 1. Every page read from the device is checksum-verified before use.
//! 2. A cached node always equals the last bytes written to (or read from)
//!    its page: every node write replaces the cache entry, every raw page
//!    write (overflow, free list) evicts it.
//! 3. Once `poisoned` is set, every call fails with that error until the
//!    store is reopened: after a failed write the durable state is unknown,
//!    so carrying on could acknowledge a commit that is not on disk.

use super::device::Device;
use super::fasthash::FastMap;
use super::format::*;
use super::node::Node;
use crate::{corrupt, Error, Result};
use std::collections::VecDeque;
use std::rc::Rc;

/// Largest single device write the pager issues (pages coalesced per call).
const MAX_WRITE_RUN_PAGES: usize = 256;

/// Most pages one read of a sequential scan takes (see `Pager::scan_ahead`).
const SCAN_AHEAD_PAGES: usize = 16;

pub(crate) struct Pager {
    device: Box<dyn Device>,
    cache: NodeCache,
    poisoned: Option<Error>,
    /// Whether every page's key order is known good: set once full
    /// validation of the file passed. From then on a page read back either
    /// is one validation walked (its checksum says it is unchanged) or one
    /// this process wrote from its own nodes, so decoding checks offsets
    /// and lengths only and leaves stay in page form (`node::Leaf`).
    pub(crate) trust_order: bool,
    /// Device calls made, for tests and benchmarks.
    pub(crate) stats: PagerStats,
    /// The buffer `scan_ahead` reads its runs into, kept between calls.
    ahead_buf: Vec<u8>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct PagerStats {
    pub reads: u64,
    pub writes: u64,
    pub flushes: u64,
    pub cache_hits: u64,
}

impl Pager {
    pub(crate) fn new(device: Box<dyn Device>, cache_pages: usize) -> Pager {
        Pager {
            device,
            cache: NodeCache::new(cache_pages),
            poisoned: None,
            trust_order: false,
            stats: PagerStats::default(),
            ahead_buf: Vec::new(),
        }
    }

    pub(crate) fn check_poison(&self) -> Result<()> {
        match &self.poisoned {
            Some(e) => Err(Error::Closed(format!(
                "the database failed earlier and must be reopened ({e})"
            ))),
            None => Ok(()),
        }
    }

    /// Records a write-side failure: every later call fails.
    fn poison<T>(&mut self, e: Error) -> Result<T> {
        if self.poisoned.is_none() {
            self.poisoned = Some(e.clone());
        }
        Err(e)
    }

    /// Reads one page without verifying it (superblocks carry their own
    /// per-copy checksums).
    pub(crate) fn read_raw(&mut self, id: PageId, buf: &mut [u8]) -> Result<()> {
        self.check_poison()?;
        self.stats.reads += 1;
        self.device.read_at(id.offset(), &mut buf[..PAGE_SIZE])
    }

    /// Reads `count` consecutive pages without verifying them (the caller
    /// verifies each, and decides what a bad one means).
    pub(crate) fn read_raw_run(
        &mut self,
        first: PageId,
        count: usize,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.check_poison()?;
        buf.resize(count * PAGE_SIZE, 0);
        self.stats.reads += 1;
        self.device.read_at(first.offset(), buf)
    }

    /// Reads and verifies one page into `buf`.
    pub(crate) fn read_page(&mut self, id: PageId, buf: &mut [u8]) -> Result<()> {
        self.check_poison()?;
        self.stats.reads += 1;
        self.device.read_at(id.offset(), &mut buf[..PAGE_SIZE])?;
        verify_page(buf, id)
    }

    /// Reads `count` consecutive pages, verifying each.
    pub(crate) fn read_run(
        &mut self,
        first: PageId,
        count: usize,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.check_poison()?;
        buf.resize(count * PAGE_SIZE, 0);
        self.stats.reads += 1;
        self.device.read_at(first.offset(), buf)?;
        for (i, page) in buf.chunks(PAGE_SIZE).enumerate() {
            verify_page(page, PageId(first.0 + i as u64))?;
        }
        Ok(())
    }

    /// The decoded node at `id`, from the cache or the device.
    pub(crate) fn node(&mut self, id: PageId) -> Result<Rc<Node>> {
        self.node_for(id, true)
    }

    /// Like [`Pager::node`], for a node a sequential scan reads once: it is
    /// cached only while the cache has room (scan resistance).
    pub(crate) fn scan_node(&mut self, id: PageId) -> Result<Rc<Node>> {
        self.node_for(id, false)
    }

    /// [`Pager::scan_node`] of page `next[0]`, where `next` are the nodes
    /// a forward scan visits from there on, in order, in a file of
    /// `page_count` pages: when `next[0]` must be read, the ones right
    /// after it in the file that follow it in `next` and are not cached
    /// come in the same device call (OPFS charges per call, not per byte)
    /// and wait in the cache, if it has room for all of them; otherwise
    /// `next[0]` alone is read. A page read ahead that fails its checksum
    /// or does not decode is left out: the scan reports it if it gets
    /// there.
    pub(crate) fn scan_ahead(&mut self, next: &[PageId], page_count: u64) -> Result<Rc<Node>> {
        self.check_poison()?;
        let first = next[0];
        if let Some(n) = self.cache.get(first) {
            self.stats.cache_hits += 1;
            return Ok(n);
        }
        let ahead = next[1..]
            .iter()
            .take(SCAN_AHEAD_PAGES - 1)
            .zip(first.0 + 1..)
            .take_while(|&(id, want)| {
                id.0 == want && want < page_count && !self.cache.contains(*id)
            })
            .count();
        if ahead == 0 || 1 + ahead > self.cache.room() {
            return self.read_and_keep(first, false);
        }
        let mut buf = std::mem::take(&mut self.ahead_buf);
        let read = self.read_raw_run(first, 1 + ahead, &mut buf);
        let node = read.and_then(|()| {
            let mut pages = buf.chunks(PAGE_SIZE).zip(first.0..);
            let (page, id) = pages.next().expect("the run holds its first page");
            verify_page(page, PageId(id))?;
            let node = self.decode_read(page, PageId(id))?;
            for (page, id) in pages {
                let id = PageId(id);
                if verify_page(page, id).is_ok() {
                    if let Ok(n) = self.decode_read(page, id) {
                        self.cache.insert(id, n);
                    }
                }
            }
            self.cache.insert(first, node.clone());
            Ok(node)
        });
        self.ahead_buf = buf;
        node
    }

    /// A node from page `id`'s verified bytes.
    fn decode_read(&self, page: &[u8], id: PageId) -> Result<Rc<Node>> {
        let page = super::node::page_vec(page);
        Ok(Rc::new(Node::decode_owned(page, id, self.trust_order)?))
    }

    /// Page `id`'s node for a writer that changes a copy of it (copy on
    /// write): taken out of the cache, so that the writer's `Rc::make_mut`
    /// does not clone it when nothing else holds it. Page `id` itself is
    /// unchanged; a later read decodes it again.
    pub(crate) fn take_node(&mut self, id: PageId) -> Result<Rc<Node>> {
        self.check_poison()?;
        if let Some(n) = self.cache.take(id) {
            self.stats.cache_hits += 1;
            return Ok(n);
        }
        self.read_node(id)
    }

    /// Reads and decodes page `id`'s node, past the cache.
    fn read_node(&mut self, id: PageId) -> Result<Rc<Node>> {
        let mut page = super::node::page_vec(&[]);
        self.read_page(id, &mut page)?;
        Ok(Rc::new(Node::decode_owned(page, id, self.trust_order)?))
    }

    /// Page `id`'s node, from the cache or read (see `read_and_keep`).
    fn node_for(&mut self, id: PageId, evict: bool) -> Result<Rc<Node>> {
        self.check_poison()?;
        if let Some(n) = self.cache.get(id) {
            self.stats.cache_hits += 1;
            return Ok(n);
        }
        self.read_and_keep(id, evict)
    }

    /// Page `id`'s node, which the cache does not hold: read, and kept in
    /// the cache when it has room or, with `evict`, in place of another.
    fn read_and_keep(&mut self, id: PageId, evict: bool) -> Result<Rc<Node>> {
        let node = self.read_node(id)?;
        if evict || self.cache.has_room() {
            self.cache.insert(id, node.clone());
        }
        Ok(node)
    }

    /// Reads an overflow value of `len` bytes from consecutive pages at `first`.
    pub(crate) fn read_overflow(
        &mut self,
        first: PageId,
        len: u64,
        page_count: u64,
    ) -> Result<Vec<u8>> {
        let pages = super::node::overflow_pages(len);
        if first
            .0
            .checked_add(pages)
            .is_none_or(|end| end > page_count)
        {
            return Err(corrupt!(
                first.0,
                "overflow run of {pages} pages runs past the file"
            ));
        }
        let mut buf = Vec::new();
        self.read_run(first, pages as usize, &mut buf)?;
        let mut out = Vec::with_capacity(len as usize);
        for (i, page) in buf.chunks(PAGE_SIZE).enumerate() {
            if page[KIND_OFFSET] != KIND_OVERFLOW {
                return Err(corrupt!(first.0 + i as u64, "expected an overflow page"));
            }
            let take = (len as usize - out.len()).min(OVERFLOW_PAYLOAD_LEN);
            out.extend_from_slice(&page[OVERFLOW_PAYLOAD_OFFSET..OVERFLOW_PAYLOAD_OFFSET + take]);
        }
        Ok(out)
    }

    /// Writes sealed pages: `ids` ascending, page `i` at
    /// `pages[i * PAGE_SIZE..]`. Pages with adjacent ids go out in one
    /// device call, straight from `pages` (no copy).
    pub(crate) fn write_pages(&mut self, ids: &[PageId], pages: &[u8]) -> Result<()> {
        self.check_poison()?;
        debug_assert_eq!(ids.len() * PAGE_SIZE, pages.len());
        let mut i = 0;
        while i < ids.len() {
            let mut j = i + 1;
            while j < ids.len() && ids[j].0 == ids[j - 1].0 + 1 && j - i < MAX_WRITE_RUN_PAGES {
                j += 1;
            }
            self.stats.writes += 1;
            let run = &pages[i * PAGE_SIZE..j * PAGE_SIZE];
            if let Err(e) = self.device.write_at(ids[i].offset(), run) {
                return self.poison(e);
            }
            i = j;
        }
        Ok(())
    }

    /// Writes one contiguous buffer of whole sealed pages at `first`.
    pub(crate) fn write_run(&mut self, first: PageId, bytes: &[u8]) -> Result<()> {
        self.check_poison()?;
        for i in 0..bytes.len() / PAGE_SIZE {
            self.cache.remove(PageId(first.0 + i as u64));
        }
        self.stats.writes += 1;
        match self.device.write_at(first.offset(), bytes) {
            Ok(()) => Ok(()),
            Err(e) => self.poison(e),
        }
    }

    pub(crate) fn flush(&mut self) -> Result<()> {
        self.check_poison()?;
        self.stats.flushes += 1;
        match self.device.flush() {
            Ok(()) => Ok(()),
            Err(e) => self.poison(e),
        }
    }

    /// Cuts the file to `len` bytes when it is longer: pages past every
    /// state's `page_count`. A failure poisons the pager, as any failed
    /// device call does (though bytes past the pages in use are ignored).
    pub(crate) fn truncate(&mut self, len: u64) -> Result<()> {
        self.check_poison()?;
        let longer = match self.device.len() {
            Ok(n) => n > len,
            Err(e) => return self.poison(e),
        };
        if longer {
            if let Err(e) = self.device.truncate(len) {
                return self.poison(e);
            }
        }
        Ok(())
    }

    /// Puts a node just written (or committed) into the cache.
    pub(crate) fn cache_node(&mut self, id: PageId, node: Rc<Node>) {
        self.cache.insert(id, node);
    }

    pub(crate) fn uncache(&mut self, id: PageId) {
        self.cache.remove(id);
    }
}

/// Hits after which a cached leaf leaves page form (`Leaf::own`). Building
/// the slots reads every entry, a search of the page form a few: a leaf a
/// join fetches a row or two from on each run is cheaper left as it is
/// (wasm: J2's second run 6.4-8.6 -> 3.9-5.0 ms against owning on the
/// second hit), while 10,000 point lookups cost the same either way.
const OWN_AFTER_HITS: u8 = 8;

/// A bounded map of decoded nodes with clock (second-chance) eviction.
/// Branch nodes -- the hot upper levels every lookup passes through -- are
/// pinned while they take at most a quarter of the capacity.
struct NodeCache {
    capacity: usize,
    /// Each node and its hits since the clock last passed it.
    map: FastMap<PageId, (Rc<Node>, u8)>,
    clock: VecDeque<PageId>,
    branches: usize,
}

fn is_branch(n: &Node) -> bool {
    matches!(n, Node::Branch(_))
}

impl NodeCache {
    fn new(capacity: usize) -> NodeCache {
        NodeCache {
            capacity: capacity.max(16),
            map: FastMap::default(),
            clock: VecDeque::new(),
            branches: 0,
        }
    }

    fn has_room(&self) -> bool {
        self.room() > 0
    }

    /// How many more nodes fit before the capacity is reached.
    fn room(&self) -> usize {
        self.capacity.saturating_sub(self.map.len())
    }

    fn contains(&self, id: PageId) -> bool {
        self.map.contains_key(&id)
    }

    fn get(&mut self, id: PageId) -> Option<Rc<Node>> {
        let e = self.map.get_mut(&id)?;
        e.1 = e.1.saturating_add(1);
        // A leaf hit this often before the clock cleared its hits is hot:
        // give it slots (faster searches) if nothing else holds it.
        if e.1 >= OWN_AFTER_HITS {
            if let Some(Node::Leaf(l)) = Rc::get_mut(&mut e.0) {
                l.own();
            }
        }
        Some(e.0.clone())
    }

    fn insert(&mut self, id: PageId, node: Rc<Node>) {
        self.branches += usize::from(is_branch(&node));
        match self.map.insert(id, (node, 0)) {
            None => self.clock.push_back(id),
            Some((old, _)) => self.branches -= usize::from(is_branch(&old)),
        }
        // Terminates: while over capacity, more than 3/4 of the entries are
        // leaves, which lose their second chance and are evicted.
        while self.map.len() > self.capacity {
            let Some(victim) = self.clock.pop_front() else {
                break;
            };
            let pinned = self.branches <= self.capacity / 4;
            match self.map.get_mut(&victim) {
                Some(e) if e.1 > 0 => {
                    e.1 = 0;
                    self.clock.push_back(victim);
                }
                Some(e) if pinned && is_branch(&e.0) => self.clock.push_back(victim),
                Some(_) => self.remove(victim),
                None => {}
            }
        }
        // Removed or re-inserted ids leave stale or duplicate slots behind;
        // rebuild the ring when they dominate.
        if self.clock.len() > 4 * self.capacity {
            self.clock = self.map.keys().copied().collect();
        }
    }

    fn remove(&mut self, id: PageId) {
        self.take(id);
    }

    fn take(&mut self, id: PageId) -> Option<Rc<Node>> {
        let (old, _) = self.map.remove(&id)?;
        self.branches -= usize::from(is_branch(&old));
        Some(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::node::{Branch, Leaf};

    #[test]
    fn cache_is_bounded_and_keeps_branches() {
        let mut c = NodeCache::new(20);
        let branch = Rc::new(Node::Branch(Branch::new(
            vec![b"k".to_vec()],
            vec![PageId(2), PageId(3)],
        )));
        for i in 0..4 {
            c.insert(PageId(1000 + i), branch.clone());
        }
        for i in 0..500 {
            c.insert(PageId(10 + i), Rc::new(Node::Leaf(Leaf::default())));
            c.get(PageId(10 + i / 2));
        }
        assert!(c.map.len() <= 20);
        for i in 0..4 {
            assert!(c.get(PageId(1000 + i)).is_some(), "branch {i} was evicted");
        }
        c.remove(PageId(1000));
        assert_eq!(c.branches, 3);
        assert!(c.clock.len() <= 4 * 20);
    }
}
