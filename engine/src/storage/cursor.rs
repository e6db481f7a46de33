//! Ordered iteration over one tree: a path of (node, index) from the root
//! to a leaf position, moving forward or backward across leaves through the
//! parents. A cursor holds `Rc`s of the nodes on its path, so the snapshot it
//! reads stays consistent even while the cache evicts those pages.

use super::btree::NodeSource;
use super::format::{PageId, MAX_TREE_DEPTH};
use super::node::{Leaf, LeafValue, Node, RawValue};
use crate::{corrupt, Result};
use std::ops::Bound;
use std::rc::Rc;

/// A position in a tree. `path.last()` is a leaf; its index is the next
/// entry a forward step returns (`len` = past the end of that leaf).
pub(crate) struct Cursor {
    path: Vec<(Rc<Node>, usize)>,
}

impl Cursor {
    /// Positions before the first entry >= / > `bound` (forward iteration).
    pub(crate) fn seek(
        src: &dyn NodeSource,
        root: PageId,
        bound: &Bound<Vec<u8>>,
    ) -> Result<Cursor> {
        Cursor::descend(src, root, bound, true)
    }

    /// Positions after the last entry <= / < `bound` (backward iteration):
    /// the leaf index is one past the entry `prev` returns next.
    pub(crate) fn seek_back(
        src: &dyn NodeSource,
        root: PageId,
        bound: &Bound<Vec<u8>>,
    ) -> Result<Cursor> {
        Cursor::descend(src, root, bound, false)
    }

    /// The descent both seeks share; they differ only where an unbounded
    /// end starts and on which side of an equal key the leaf index lands.
    fn descend(
        src: &dyn NodeSource,
        root: PageId,
        bound: &Bound<Vec<u8>>,
        forward: bool,
    ) -> Result<Cursor> {
        let mut c = Cursor { path: Vec::new() };
        if root.is_none() {
            return Ok(c);
        }
        let mut id = root;
        loop {
            if c.path.len() > MAX_TREE_DEPTH {
                return Err(corrupt!(root.0, "tree deeper than {MAX_TREE_DEPTH} levels"));
            }
            let node = src.node(id)?;
            match &*node {
                Node::Branch(b) => {
                    let i = match bound {
                        Bound::Unbounded if forward => 0,
                        Bound::Unbounded => b.children().len() - 1,
                        Bound::Included(k) | Bound::Excluded(k) => b.child_index(k),
                    };
                    id = b.children()[i];
                    c.path.push((node.clone(), i));
                }
                Node::Leaf(l) => {
                    // Past an equal key: forward from an excluded bound, or
                    // backward from an included one.
                    let i = match bound {
                        Bound::Unbounded if forward => 0,
                        Bound::Unbounded => l.len(),
                        Bound::Included(k) | Bound::Excluded(k) => {
                            let past = forward == matches!(bound, Bound::Excluded(_));
                            match l.search(k) {
                                Ok(i) if past => i + 1,
                                Ok(i) | Err(i) => i,
                            }
                        }
                    };
                    c.path.push((node.clone(), i));
                    return Ok(c);
                }
            }
        }
    }

    /// The next entry forward, or `None` at the end of the tree.
    pub(crate) fn next(&mut self, src: &dyn NodeSource) -> Result<Option<(Vec<u8>, LeafValue)>> {
        loop {
            let Some((node, i)) = self.path.last_mut() else {
                return Ok(None);
            };
            let Node::Leaf(l) = &**node else {
                return Err(corrupt!(0, "cursor path does not end in a leaf"));
            };
            if *i < l.len() {
                let (k, v) = l.entry(*i);
                *i += 1;
                return Ok(Some((k.to_vec(), v.to_owned())));
            }
            if !self.step_leaf(src, true)? {
                self.path.clear();
                return Ok(None);
            }
        }
    }

    /// The next entry backward, or `None` at the start of the tree.
    pub(crate) fn prev(&mut self, src: &dyn NodeSource) -> Result<Option<(Vec<u8>, LeafValue)>> {
        loop {
            let Some((node, i)) = self.path.last_mut() else {
                return Ok(None);
            };
            let Node::Leaf(l) = &**node else {
                return Err(corrupt!(0, "cursor path does not end in a leaf"));
            };
            if *i > 0 {
                *i -= 1;
                let (k, v) = l.entry(*i);
                return Ok(Some((k.to_vec(), v.to_owned())));
            }
            if !self.step_leaf(src, false)? {
                self.path.clear();
                return Ok(None);
            }
        }
    }

    /// Calls `f` with each entry from the current position onward (forward)
    /// or backward, borrowed from the leaf that holds it, until `f` returns
    /// false or the tree ends. The position advances past every entry `f`
    /// saw, so `next`/`prev` continue after the last one.
    pub(crate) fn visit(
        &mut self,
        src: &dyn NodeSource,
        forward: bool,
        mut f: impl FnMut(&[u8], RawValue<'_>) -> Result<bool>,
    ) -> Result<()> {
        loop {
            let Some((node, i)) = self.path.last_mut() else {
                return Ok(());
            };
            // A clone of the leaf's `Rc` keeps it alive while `f` runs.
            let leaf = node.clone();
            let Node::Leaf(l) = &*leaf else {
                return Err(corrupt!(0, "cursor path does not end in a leaf"));
            };
            if !visit_leaf(l, i, forward, &mut f)? {
                return Ok(());
            }
            if !self.step_leaf(src, forward)? {
                self.path.clear();
                return Ok(());
            }
        }
    }

    /// Moves to the neighbouring leaf (positioned at its start when going
    /// forward, at its end going backward). False at the tree's edge.
    fn step_leaf(&mut self, src: &dyn NodeSource, forward: bool) -> Result<bool> {
        self.path.pop();
        // Climb to the nearest ancestor with a sibling in that direction.
        loop {
            let Some((node, i)) = self.path.last_mut() else {
                return Ok(false);
            };
            let Node::Branch(b) = &**node else {
                return Err(corrupt!(0, "cursor path broken"));
            };
            if forward && *i + 1 < b.children().len() {
                *i += 1;
                break;
            }
            if !forward && *i > 0 {
                *i -= 1;
                break;
            }
            self.path.pop();
        }
        // Descend to the edge of that subtree.
        loop {
            let (node, i) = self.path.last().expect("climb stopped at a branch");
            let Node::Branch(b) = &**node else {
                unreachable!("climb stopped at a branch")
            };
            let child = b.children()[*i];
            if self.path.len() > MAX_TREE_DEPTH {
                return Err(corrupt!(
                    child.0,
                    "tree deeper than {MAX_TREE_DEPTH} levels"
                ));
            }
            // Forward, the siblings after `child` are what the scan reads
            // next: the source may read them with it.
            let n = match forward {
                true => src.scan_ahead(&b.children()[*i..])?,
                false => src.scan_node(child)?,
            };
            match &*n {
                Node::Branch(cb) => {
                    let j = if forward { 0 } else { cb.children().len() - 1 };
                    self.path.push((n.clone(), j));
                }
                Node::Leaf(l) => {
                    let j = if forward { 0 } else { l.len() };
                    self.path.push((n.clone(), j));
                    return Ok(true);
                }
            }
        }
    }
}

/// Calls `f` on the entries of leaf `l` from position `*i` on (forward) or
/// before it (backward), moving `*i` along; false when `f` stopped.
///
/// Its own function, called once per leaf: WebAssembly engines cannot swap
/// optimized code into a loop that is running, only into the next call, so
/// a scan's per-entry loop (with `f` inlined into it) gets the optimizing
/// tier from the next leaf on instead of after the whole scan.
#[inline(never)]
fn visit_leaf(
    l: &Leaf,
    i: &mut usize,
    forward: bool,
    f: &mut impl FnMut(&[u8], RawValue<'_>) -> Result<bool>,
) -> Result<bool> {
    if forward {
        while *i < l.len() {
            let (k, v) = l.entry(*i);
            *i += 1;
            if !f(k, v)? {
                return Ok(false);
            }
        }
    } else {
        while *i > 0 {
            *i -= 1;
            let (k, v) = l.entry(*i);
            if !f(k, v)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}
