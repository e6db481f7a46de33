//! The commit protocol, recovery on open, and the on-disk free list.
//!
//! Commit of state N+1 over durable state N (FORMAT.md, "Commit protocol"):
//! 1. write the changed tree entries into the catalog tree (copy-on-write);
//! 2. build the free list of N+1 (every page N+1 does not reach) into fresh
//!    pages;
//! 3. write every dirty page, adjacent pages in one device call;
//! 4. one-flush (`CommitMode::OneFlush`, the default): write superblock N+1
//!    listing the runs of pages this commit wrote and a CRC over their
//!    checksums into the slot N does not use, then flush once; when the
//!    runs do not fit, fall back to two flushes.
//!    Two-flush (`CommitMode::TwoFlush`): flush, write superblock N+1 into
//!    the slot N does not use, and flush again.
//!
//! Nothing of state N is written at any step, so a crash anywhere leaves N
//! whole. On open, [`recover`] takes the newest superblock whose checksum
//! holds and whose listed pages all carry the checksums it recorded; a torn
//! commit fails that test and the older superblock wins. A sync later
//! confirms a one-flush state (`Inner::confirm`): a copy of its superblock
//! without extents, which recovery takes as it is.

use super::alloc::FreeSet;
use super::btree;
use super::format::*;
use super::node::LeafValue;
use super::pager::Pager;
use super::store::{CommitMode, Inner, DEFERRED_HELD_LIMIT, DEFERRED_HELD_RUNS};
use super::txn::WriteTxn;
use crate::{corrupt, Result};
use std::collections::HashSet;

/// Commits `txn`; on error nothing of the shared state changes (and the
/// pager is poisoned if a write or flush failed).
pub(crate) fn commit(txn: &mut WriteTxn) -> Result<()> {
    let shrunk = txn.page_count < txn.base.page_count;
    if txn.trees.is_empty() && txn.owned.is_empty() && txn.freed.is_empty() && !shrunk {
        return Ok(());
    }
    let catalog_root = write_catalog(txn)?;
    let limbo = std::mem::take(&mut txn.limbo);
    for (id, _) in limbo {
        txn.dirty.remove(&id);
        txn.free.insert(id);
    }
    let old_chain = txn.shared.inner.borrow().freelist_pages.clone();
    for p in old_chain {
        txn.freed.push(p);
    }
    let chain = build_freelist(txn)?;
    write_dirty(txn, &chain)?;
    let mode = txn.shared.opts.commit;
    let new_txn = TxnId(txn.base.txn.0 + 1);
    let shared = txn.shared.clone();
    let mut inner = shared.inner.borrow_mut();
    let (extents, commit_crc) = match mode {
        CommitMode::Deferred => {
            // Every page the new state reaches that a commit since the last
            // sync wrote: all of them may still be with the OS only.
            let u = inner.unsynced.get_or_insert_with(Default::default);
            for p in &txn.freed {
                u.written.remove(p);
            }
            for (id, o) in &txn.owned {
                u.written.insert(*id, o.crc);
            }
            extents_of(u.written.iter().map(|(id, crc)| (*id, *crc)))
        }
        _ => commit_extents(txn),
    };
    let (held, held_runs) = inner
        .unsynced
        .as_ref()
        .map_or((0, 0), |u| (u.held.len(), u.held.runs()));
    let held = held + txn.freed.len() as u64;
    let fits = extents.len() <= SUPERBLOCK_MAX_EXTENTS;
    // Held pages are in every commit's free list until the sync: bound
    // their pages (file growth) and their runs (each commit's work).
    let holds = held <= DEFERRED_HELD_LIMIT as u64 && held_runs <= DEFERRED_HELD_RUNS;
    let protocol = match mode {
        CommitMode::Deferred if fits && holds => CommitMode::Deferred,
        CommitMode::OneFlush if fits => CommitMode::OneFlush,
        _ => CommitMode::TwoFlush,
    };
    let sb = Superblock {
        txn: new_txn,
        catalog_root,
        freelist_root: chain.first().map_or(PageId::NONE, |(id, _)| *id),
        page_count: txn.page_count,
        commit_crc,
        extents: (protocol != CommitMode::TwoFlush).then_some(extents),
    };
    if protocol == CommitMode::TwoFlush {
        // Everything written so far becomes durable, deferred commits too.
        inner.sync()?;
    }
    // Never the slot of the newest durable superblock: a crash must find it.
    let slot = inner.other_slot();
    let page = sb.encode(slot);
    inner.pager.write_pages(&[slot], &page.0)?;
    if protocol != CommitMode::Deferred {
        inner.pager.flush()?;
        inner.durable_slot = slot;
    }
    inner.sb_slot = slot;
    publish(
        &mut inner,
        txn,
        sb,
        chain.iter().map(|(id, _)| *id).collect(),
        protocol == CommitMode::Deferred,
    );
    Ok(())
}

/// Writes the changed tree entries into the catalog; the new catalog root.
#[inline(never)]
fn write_catalog(txn: &mut WriteTxn) -> Result<PageId> {
    let mut root = txn.base.catalog_root;
    let mut names: Vec<String> = txn.trees.keys().cloned().collect();
    names.sort();
    let mut fences = btree::Fences::default();
    for name in names {
        let key = name.as_bytes();
        root = match txn.trees[&name] {
            Some(m) => btree::insert(txn, root, key, LeafValue::Inline(m.encode()), &mut fences)?,
            None => btree::remove(txn, root, key, &mut fences)?,
        }
        .root;
    }
    Ok(root)
}

/// Allocates and encodes the free-list chain of the new state: every page
/// it does not reach (the allocator's, the ones this commit released, and
/// the ones still pending for old snapshots), minus the chain's own pages.
#[inline(never)]
fn build_freelist(txn: &mut WriteTxn) -> Result<Vec<(PageId, Box<PageBuf>)>> {
    let mut all = txn.free.clone();
    for &p in &txn.freed {
        all.insert(p);
    }
    {
        let inner = txn.shared.inner.borrow();
        for pages in inner.pending.values() {
            for &p in pages {
                all.insert(p);
            }
        }
        for e in inner.unsynced.iter().flat_map(|u| u.held.extents()) {
            all.insert_run(e.start, u64::from(e.len));
        }
    }
    let mut chain: Vec<PageId> = Vec::new();
    let extents = loop {
        let extents = all.extents();
        if chain.len() >= extents.len().div_ceil(FREELIST_MAX_EXTENTS) {
            break extents;
        }
        let p = txn.alloc_page();
        all.remove(p.0);
        chain.push(p);
    };
    let mut pages = Vec::with_capacity(chain.len());
    let mut chunks = extents.chunks(FREELIST_MAX_EXTENTS);
    for (i, &id) in chain.iter().enumerate() {
        let mut page = PageBuf::zeroed();
        let b = &mut page.0;
        b[KIND_OFFSET] = KIND_FREELIST;
        let chunk = chunks.next().unwrap_or(&[]);
        write_u16(b, COUNT_OFFSET, chunk.len() as u16);
        write_u64(b, FREELIST_NEXT_OFFSET, chain.get(i + 1).map_or(0, |p| p.0));
        for (j, e) in chunk.iter().enumerate() {
            let at = FREELIST_EXTENTS_OFFSET + j * EXTENT_LEN;
            write_u64(b, at, e.start);
            write_u32(b, at + 8, e.len);
        }
        seal_page(b, id);
        if let Some(o) = txn.owned.get_mut(&id) {
            o.crc = read_u32(b, CHECKSUM_OFFSET);
        }
        pages.push((id, page));
    }
    Ok(pages)
}

/// Writes every dirty node and the free-list pages.
#[inline(never)]
fn write_dirty(txn: &mut WriteTxn, chain: &[(PageId, Box<PageBuf>)]) -> Result<()> {
    let mut ids: Vec<PageId> = txn.dirty.keys().copied().collect();
    ids.sort();
    {
        let mut inner = txn.shared.inner.borrow_mut();
        for (id, _) in chain {
            inner.pager.uncache(*id);
        }
    }
    let refs: Vec<(PageId, &[u8])> = chain.iter().map(|(id, p)| (*id, &p.0[..])).collect();
    txn.write_nodes_with(&ids, &refs)
}

/// The runs of pages this commit wrote and the CRC over their checksums.
#[inline(never)]
fn commit_extents(txn: &WriteTxn) -> (Vec<Extent>, u32) {
    let mut ids: Vec<(PageId, u32)> = txn.owned.iter().map(|(id, o)| (*id, o.crc)).collect();
    ids.sort_by_key(|(id, _)| *id);
    extents_of(ids.into_iter())
}

/// The runs of `pages` (ascending) and the CRC over their checksums.
fn extents_of(pages: impl Iterator<Item = (PageId, u32)>) -> (Vec<Extent>, u32) {
    let mut h = crc32fast::Hasher::new();
    let mut extents: Vec<Extent> = Vec::new();
    for (id, crc) in pages {
        h.update(&crc.to_le_bytes());
        match extents.last_mut() {
            Some(e) if e.start + u64::from(e.len) == id.0 && e.len < u32::MAX => e.len += 1,
            _ => extents.push(Extent {
                start: id.0,
                len: 1,
            }),
        }
    }
    (extents, h.finalize())
}

/// Makes the committed state the store's current one. The pages it
/// stopped reaching wait for older snapshots, or, after a deferred commit,
/// for the next sync (the synced state may reach them).
#[inline(never)]
fn publish(
    inner: &mut Inner,
    txn: &mut WriteTxn,
    sb: Superblock,
    chain: Vec<PageId>,
    deferred: bool,
) {
    for (id, node) in txn.dirty.drain() {
        inner.pager.cache_node(id, node);
    }
    inner.free = std::mem::take(&mut txn.free);
    let freed = std::mem::take(&mut txn.freed);
    match inner.unsynced.as_mut() {
        Some(u) if deferred => {
            for p in freed {
                u.held.insert(p);
            }
        }
        _ => {
            inner.pending.insert(sb.txn, freed);
        }
    }
    inner.freelist_pages = chain;
    inner.last_commit_pages = txn.owned.len() as u64;
    inner.sb = sb;
}

/// Picks the newest superblock whose commit is whole, and its slot.
pub(crate) fn recover(pager: &mut Pager) -> Result<(Superblock, PageId)> {
    let mut candidates = Vec::new();
    let mut first_error = None;
    for slot in 0..SUPERBLOCK_SLOTS {
        let slot = PageId(slot);
        let mut page = PageBuf::zeroed();
        let decoded = pager
            .read_raw(slot, &mut page.0)
            .and_then(|_| Superblock::decode_page(&page.0, slot));
        match decoded {
            Ok(sbs) => candidates.extend(sbs.into_iter().map(|sb| (sb, slot))),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    // Newest first; of two copies of one state (a commit and its confirmed
    // copy, `Inner::confirm`), the confirmed one, which is taken as it is.
    candidates.sort_by_key(|(sb, _)| (std::cmp::Reverse(sb.txn), sb.extents.is_some()));
    for (sb, slot) in candidates {
        match verify_commit(pager, &sb) {
            Ok(()) => return Ok((sb, slot)),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    let why = first_error.map_or_else(String::new, |e| e.to_string());
    Err(corrupt!(0, "no valid superblock ({why})"))
}

/// Checks that every page a one-flush commit wrote carries the checksum the
/// superblock recorded for it.
fn verify_commit(pager: &mut Pager, sb: &Superblock) -> Result<()> {
    let Some(extents) = &sb.extents else {
        return Ok(());
    };
    let mut h = crc32fast::Hasher::new();
    let mut buf = Vec::new();
    for e in extents {
        let mut done = 0u64;
        while done < u64::from(e.len) {
            let n = (u64::from(e.len) - done).min(256);
            pager.read_run(PageId(e.start + done), n as usize, &mut buf)?;
            for page in buf.chunks(PAGE_SIZE) {
                h.update(&page[CHECKSUM_OFFSET..CHECKSUM_OFFSET + CHECKSUM_LEN]);
            }
            done += n;
        }
    }
    if h.finalize() != sb.commit_crc {
        return Err(corrupt!(0, "commit {} is incomplete", sb.txn.0));
    }
    Ok(())
}

/// Reads the free-list chain of `sb`: the free pages and the chain's pages.
pub(crate) fn load_freelist(pager: &mut Pager, sb: &Superblock) -> Result<(FreeSet, Vec<PageId>)> {
    let mut free = FreeSet::new();
    let mut chain = Vec::new();
    let mut seen = HashSet::new();
    let mut next = sb.freelist_root;
    while !next.is_none() {
        if next.0 < FIRST_DATA_PAGE || next.0 >= sb.page_count || !seen.insert(next) {
            return Err(corrupt!(
                next.0,
                "free-list chain points out of range or loops"
            ));
        }
        let mut page = PageBuf::zeroed();
        pager.read_page(next, &mut page.0)?;
        let b = &page.0;
        let count = read_u16(b, COUNT_OFFSET) as usize;
        if b[KIND_OFFSET] != KIND_FREELIST || count > FREELIST_MAX_EXTENTS {
            return Err(corrupt!(next.0, "not a valid free-list page"));
        }
        for j in 0..count {
            let at = FREELIST_EXTENTS_OFFSET + j * EXTENT_LEN;
            let (start, len) = (read_u64(b, at), u64::from(read_u32(b, at + 8)));
            let end = start.checked_add(len).filter(|&e| e <= sb.page_count);
            if start < FIRST_DATA_PAGE || len == 0 || end.is_none() {
                return Err(corrupt!(next.0, "free extent {start}+{len} out of range"));
            }
            if (start..start + len).any(|p| free.contains(p)) {
                return Err(corrupt!(next.0, "free extents overlap"));
            }
            free.insert_run(start, len);
        }
        chain.push(next);
        next = PageId(read_u64(b, FREELIST_NEXT_OFFSET));
    }
    Ok((free, chain))
}

#[cfg(test)]
mod tests {
    use super::super::format::{PAGE_SIZE, SUPERBLOCK_SLOTS};
    use super::super::{DeviceCall, FaultDevice, Store, StoreOptions};

    /// A commit writes its nodes and its free-list pages together: apart
    /// from the superblock, no two device calls write adjacent pages.
    #[test]
    fn a_commit_writes_adjacent_pages_in_one_call() {
        let (dev, log) = FaultDevice::new(Vec::new());
        let store = Store::open(Box::new(dev), StoreOptions::default()).unwrap();
        let mut t = store.write().unwrap();
        t.create_tree("t").unwrap();
        t.commit().unwrap();
        let page = PAGE_SIZE as u64;
        for i in 0..200u32 {
            log.take_log();
            let mut t = store.write().unwrap();
            // Keys spread out: new leaves, copies of branches, a free list.
            t.insert(
                "t",
                &(i.wrapping_mul(2_654_435_761)).to_be_bytes(),
                &[7; 40],
            )
            .unwrap();
            t.commit().unwrap();
            let calls = log.take_log();
            let flush = calls.iter().position(|c| *c == DeviceCall::Flush).unwrap();
            let mut w: Vec<(u64, u64)> = calls[..flush]
                .iter()
                .map(|c| match *c {
                    DeviceCall::Write { offset, len } => (offset / page, (offset + len) / page),
                    DeviceCall::Flush => unreachable!("before the first flush"),
                })
                // The superblock (one-flush: before the flush) goes apart.
                .filter(|&(first, _)| first >= SUPERBLOCK_SLOTS)
                .collect();
            w.sort_unstable();
            for pair in w.windows(2) {
                assert!(pair[0].1 < pair[1].0, "commit {i}: adjacent writes {w:?}");
            }
        }
    }
}
