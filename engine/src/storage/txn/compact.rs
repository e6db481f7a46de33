//! Compaction (SQL's VACUUM): the passes of [`Store::compact`], each inside
//! a write transaction. Copy-on-write never overwrites a page a committed
//! state reaches, so a file cannot be packed in place in one commit.
//!
//! A *packing pass*
//! 1. drops the free pages at the end of the file from the state (the
//!    commit records the shorter `page_count`; the store cuts the file once
//!    no superblock names a longer one), and
//! 2. moves every tree page (catalog and overflow runs included) that lies
//!    at or above the *limit* -- the page count the file would have with no
//!    free page -- into the lowest free pages below it: first the overflow
//!    runs, each into the first free run below the limit long enough for
//!    it (before single nodes fill the holes they need), then the nodes. A
//!    moved page's parent changes (its child's page, or a leaf its value's
//!    first page), so it is copied too, as low as it can go.
//!
//! The pages a pass moves away become free once its commit is durable, and
//! the next pass drops them from the end. Pages an open snapshot may still
//! read are never free (`store`'s page life cycle), so neither they nor
//! anything after them is dropped while it lives.
//!
//! Every commit writes the free list anew (into the lowest free pages in a
//! pass) and frees the pages of the old one, which the new one then lists:
//! a file never has fewer than one free page and one free-list page once
//! anything was freed. So a pass moves pages only while more than
//! [`RESERVE`] pages stay free (for the branches, catalog pages and free
//! list its commit copies), and a drop that would leave no free page keeps
//! the first page of the free end for the free list: a packing pass never
//! grows the file.
//!
//! An overflow run needs consecutive free pages, and the holes deleted rows
//! leave are often single pages between pages still in use, overflow runs
//! included: packing passes then stop short. A *rebuild pass* copies every
//! tree page and overflow run to new pages after the end of the file (which
//! grows by the pages in use); once it is committed, every page before
//! those is free, in one run, and packing passes move everything back into
//! it, overflow runs side by side. It writes the pages in use twice and
//! needs room for them twice, as SQLite's VACUUM does.
//!
//! [`Store::compact`]: super::super::Store::compact

use super::super::btree::{NodeSource, NodeStore};
use super::super::format::*;
use super::super::node::{overflow_pages, LeafValue, Node, RawValue};
use super::super::store::{read_value, TreeRead};
use super::{Placement, WriteTxn};
use crate::{corrupt, Result};

/// Free pages a packing pass keeps for what its commit copies besides the
/// pages it moves (on top of twice the free list's pages).
const RESERVE: u64 = 16;

/// What one compaction pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pass {
    /// Free pages dropped from the end of the file.
    pub dropped: u64,
    /// Tree and overflow pages moved.
    pub moved: u64,
}

/// Where a walk moves pages to.
#[derive(Clone, Copy)]
enum Goal {
    /// The pages at or above `limit`, into the lowest free pages below it,
    /// while more than `reserve` pages stay free.
    Below { limit: u64, reserve: u64 },
    /// The pages below this page, to new pages at the end of the file.
    End(u64),
}

/// What a walk of a tree moves.
#[derive(Clone, Copy)]
enum Moving {
    Overflow,
    Nodes,
}

impl WriteTxn {
    /// Runs one packing pass (see the module docs) in this transaction,
    /// which must have changed nothing yet; the caller commits it when the
    /// pass did something. From here on the transaction takes the lowest
    /// free page for every page it allocates.
    pub(crate) fn packing_pass(&mut self) -> Result<Pass> {
        self.placement = Placement::LowestFirst;
        self.leaf_hints.clear();
        let mut pass = Pass::default();
        // Free pages are neither kept for a snapshot nor held for a sync
        // (`store`'s page life cycle): none of them is listed past the
        // shorter end.
        if let Some(start) = self.free.take_tail(self.page_count) {
            // Room for the free list the commit writes.
            let keep = u64::from(self.free.len() == 0);
            if self.page_count - start > keep {
                pass.dropped = self.page_count - start - keep;
                self.page_count = start + keep;
                self.free.insert_run(start, keep);
            } else {
                self.free.insert_run(start, self.page_count - start);
            }
        }
        let chain = self.shared.inner.borrow().freelist_pages.len() as u64;
        let limit = self
            .page_count
            .saturating_sub(self.free.len() + chain)
            .max(FIRST_DATA_PAGE);
        let reserve = RESERVE + 2 * chain;
        pass.moved = self.move_all(Goal::Below { limit, reserve })?;
        Ok(pass)
    }

    /// Runs the rebuild pass (see the module docs): every tree page and
    /// overflow run to new pages after the end of the file.
    pub(crate) fn rebuild_pass(&mut self) -> Result<Pass> {
        self.placement = Placement::AtEnd;
        self.leaf_hints.clear();
        let moved = self.move_all(Goal::End(self.page_count))?;
        Ok(Pass { dropped: 0, moved })
    }

    /// Moves the pages of every tree (the catalog last) toward `goal`:
    /// overflow runs first, then nodes. Returns the pages moved.
    #[inline(never)]
    fn move_all(&mut self, goal: Goal) -> Result<u64> {
        let names = TreeRead::tree_names(self)?;
        let mut moved = 0;
        for what in [Moving::Overflow, Moving::Nodes] {
            for name in &names {
                let Some(mut m) = self.meta(name)? else {
                    continue;
                };
                let root = self.relocate_tree(m.root, goal, what, &mut moved)?;
                if root != m.root {
                    m.root = root;
                    self.set_meta(name, m);
                }
            }
            // The catalog holds no overflow values.
            let root = self.base.catalog_root;
            self.base.catalog_root = self.relocate_tree(root, goal, what, &mut moved)?;
        }
        self.leaf_hints.clear();
        Ok(moved)
    }

    /// Moves the pages of the tree at `root` toward `goal` (its nodes or its
    /// overflow runs, as `what` says), copying the nodes above a moved page;
    /// returns the tree's root. Walks the tree depth first, children before
    /// their parent, with a stack of its own (no recursion).
    #[inline(never)]
    fn relocate_tree(
        &mut self,
        root: PageId,
        goal: Goal,
        what: Moving,
        moved: &mut u64,
    ) -> Result<PageId> {
        if root.is_none() {
            return Ok(root);
        }
        // (page, index of the next child to visit)
        let mut stack: Vec<(PageId, usize)> = vec![(root, 0)];
        // The page of the child just finished, for its parent.
        let mut finished: Option<PageId> = None;
        while let Some(&(id, next)) = stack.last() {
            if stack.len() > MAX_TREE_DEPTH + 1 {
                return Err(corrupt!(id.0, "tree deeper than {MAX_TREE_DEPTH} levels"));
            }
            let node = self.node(id)?;
            if let Some(child) = finished.take() {
                let Node::Branch(b) = &*node else {
                    return Err(corrupt!(id.0, "a leaf with children"));
                };
                if b.children()[next - 1] != child {
                    let (at, n) = self.make_mut(id)?;
                    if let Node::Branch(b) = n {
                        b.set_child(next - 1, child);
                    }
                    stack.last_mut().expect("the parent is on the stack").0 = at;
                    self.maybe_spill()?;
                    continue;
                }
            }
            if let Node::Branch(b) = &*node {
                if let Some(&child) = b.children().get(next) {
                    stack.last_mut().expect("the node is on the stack").1 += 1;
                    stack.push((child, 0));
                    continue;
                }
            }
            stack.pop();
            finished = Some(match (what, &*node) {
                (Moving::Overflow, Node::Leaf(_)) => self.relocate_overflow(id, goal, moved)?,
                (Moving::Overflow, Node::Branch(_)) => id,
                (Moving::Nodes, _) => self.move_node(id, goal, moved)?,
            });
        }
        Ok(finished.unwrap_or(root))
    }

    /// Moves the node at `id` when `goal` wants it moved and there is room
    /// (see the module docs); returns the node's page.
    #[inline(never)]
    fn move_node(&mut self, id: PageId, goal: Goal, moved: &mut u64) -> Result<PageId> {
        let go = match goal {
            Goal::Below { limit, reserve } => {
                id.0 >= limit
                    && self.free.len() > reserve
                    && self.free.first().is_some_and(|p| p < limit)
            }
            // A page this pass already wrote at the end stays.
            Goal::End(end) => id.0 < end,
        };
        if !go {
            return Ok(id);
        }
        let to = self.move_to_new_page(id)?;
        *moved += 1;
        self.maybe_spill()?;
        Ok(to)
    }

    /// Moves each overflow run of the leaf at `id` that `goal` wants moved
    /// (for [`Goal::Below`], into the first free run below the limit long
    /// enough for it, when there is one), changing the leaf (copied unless
    /// this transaction owns it); returns the leaf's page.
    #[inline(never)]
    fn relocate_overflow(&mut self, mut id: PageId, goal: Goal, moved: &mut u64) -> Result<PageId> {
        let runs: Vec<(usize, u64, PageId)> = match &*self.node(id)? {
            Node::Leaf(l) => (0..l.len())
                .filter_map(|i| match l.value(i) {
                    RawValue::Overflow { len, first } => Some((i, len, first)),
                    RawValue::Inline(_) => None,
                })
                .collect(),
            Node::Branch(_) => Vec::new(),
        };
        for (i, len, first) in runs {
            let n = overflow_pages(len);
            let go = match goal {
                Goal::Below { limit, reserve } => {
                    first.0 + n > limit
                        && self.free.len() > reserve + n
                        && self
                            .free
                            .first_fit(n)
                            .is_some_and(|s| s + n <= limit && s < first.0)
                }
                Goal::End(end) => first.0 < end,
            };
            if !go {
                continue;
            }
            let value = read_value(
                &self.shared,
                LeafValue::Overflow { len, first },
                self.page_count,
            )?;
            let copy = self.write_overflow(&value)?;
            let (at, node) = self.make_mut(id)?;
            id = at;
            let Node::Leaf(l) = node else {
                return Err(corrupt!(id.0, "a leaf turned into a branch"));
            };
            let old = l.replace(i, copy);
            self.free_value(&old);
            *moved += n;
            self.maybe_spill()?;
        }
        Ok(id)
    }
}
