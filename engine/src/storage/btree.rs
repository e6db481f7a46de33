//! Copy-on-write B+tree algorithms over any node source: lookup, insert with
//! split (and a sorted-append fast path that leaves full pages), remove with
//! underflow repair (merge or redistribute), and root growth/collapse.
//!
//! A tree is named by its root page; every change returns the new root. The
//! functions never write the device: a [`NodeStore`] (the write transaction)
//! decides where a changed node lives and when it reaches disk.
//!
//! Invariants kept by every operation (checked by `check`):
//! - all leaves are at the same depth, at most `MAX_TREE_DEPTH`;
//! - keys are strictly increasing within a node and within the key range the
//!   parent's separators give the node;
//! - every node fits one page; a branch has at least one key; only the root
//!   may be emptier than `UNDERFLOW_SIZE`.

use super::format::{PageId, MAX_TREE_DEPTH, PAGE_SIZE};
use super::node::{cmp_keys, Branch, Leaf, LeafValue, Node};
use crate::{corrupt, Result};
use std::rc::Rc;

/// A node smaller than this after a removal is merged or refilled.
pub(crate) const UNDERFLOW_SIZE: usize = PAGE_SIZE / 4;

/// The key range of the leaf a descent reached, from the separators it
/// passed on the way down: keys `>= low` (when `has_low`) and `< high`
/// (when `has_high`). Child `i` of a branch holds the keys from separator
/// `i - 1` (included) to separator `i` (excluded). The buffers are reused
/// from one descent to the next.
#[derive(Default, Debug)]
pub(crate) struct Fences {
    low: Vec<u8>,
    high: Vec<u8>,
    has_low: bool,
    has_high: bool,
}

impl Fences {
    fn reset(&mut self) {
        self.has_low = false;
        self.has_high = false;
    }

    /// Narrows the range to child `ci` of `b`.
    fn narrow(&mut self, b: &Branch, ci: usize) {
        if ci > 0 {
            self.set_low(&b.keys()[ci - 1]);
        }
        if let Some(k) = b.keys().get(ci) {
            self.high.clear();
            self.high.extend_from_slice(k);
            self.has_high = true;
        }
    }

    fn set_low(&mut self, k: &[u8]) {
        self.low.clear();
        self.low.extend_from_slice(k);
        self.has_low = true;
    }

    /// True when `key` is in the range.
    pub(crate) fn holds(&self, key: &[u8]) -> bool {
        (!self.has_low || cmp_keys(key, &self.low).is_ge())
            && (!self.has_high || cmp_keys(key, &self.high).is_lt())
    }
}

/// Read access to nodes.
pub(crate) trait NodeSource {
    fn node(&self, id: PageId) -> Result<Rc<Node>>;
    /// A node a sequential scan passes through once: read like [`node`],
    /// but it only enters the cache while the cache has room, so one large
    /// scan does not evict the nodes lookups keep using.
    ///
    /// [`node`]: NodeSource::node
    fn scan_node(&self, id: PageId) -> Result<Rc<Node>> {
        self.node(id)
    }
    /// [`scan_node`] of `next[0]`, where `next` are the siblings a forward
    /// scan visits from there on, in order: a source may read those that
    /// follow `next[0]` in the file in the same device call.
    ///
    /// [`scan_node`]: NodeSource::scan_node
    fn scan_ahead(&self, next: &[PageId]) -> Result<Rc<Node>> {
        self.scan_node(next[0])
    }
}

/// Write access: what a write transaction provides to the algorithms.
pub(crate) trait NodeStore: NodeSource {
    /// A node this transaction may change, and its (possibly new) page. A
    /// node not yet owned by the transaction is copied to a fresh page and
    /// its old page is released once no snapshot needs it.
    fn make_mut(&mut self, id: PageId) -> Result<(PageId, &mut Node)>;
    /// Places a new node on a fresh page.
    fn alloc_node(&mut self, node: Node) -> Result<PageId>;
    /// Releases a page the tree no longer references.
    fn free_page(&mut self, id: PageId);
    /// Releases the overflow pages of a value that was replaced or removed.
    fn free_value(&mut self, value: &LeafValue);
}

/// Looks `key` up: the leaf that holds it and its index there.
pub(crate) fn find(
    src: &dyn NodeSource,
    root: PageId,
    key: &[u8],
) -> Result<Option<(Rc<Node>, usize)>> {
    Ok(match find_leaf(src, root, key)? {
        Some((leaf, Ok(i))) => Some((leaf, i)),
        _ => None,
    })
}

/// A leaf and where a key is in it (`Ok`) or would go (`Err`).
pub(crate) type LeafHit = (Rc<Node>, std::result::Result<usize, usize>);

/// The leaf whose key range holds `key` (None for an empty tree), and
/// where `key` is in it or would go.
pub(crate) fn find_leaf(src: &dyn NodeSource, root: PageId, key: &[u8]) -> Result<Option<LeafHit>> {
    if root.is_none() {
        return Ok(None);
    }
    let mut id = root;
    for _ in 0..=MAX_TREE_DEPTH {
        let node = src.node(id)?;
        match &*node {
            Node::Branch(b) => id = b.children()[b.child_index(key)],
            Node::Leaf(l) => {
                let at = l.search(key);
                return Ok(Some((node.clone(), at)));
            }
        }
    }
    Err(corrupt!(root.0, "tree deeper than {MAX_TREE_DEPTH} levels"))
}

/// Looks `key` up; the value as stored (inline or an overflow reference).
pub(crate) fn get(src: &dyn NodeSource, root: PageId, key: &[u8]) -> Result<Option<LeafValue>> {
    let Some((leaf, i)) = find(src, root, key)? else {
        return Ok(None);
    };
    match &*leaf {
        Node::Leaf(l) => Ok(Some(l.value(i).to_owned())),
        Node::Branch(_) => Err(corrupt!(root.0, "lookup did not end in a leaf")),
    }
}

/// What an insert or a removal did.
pub(crate) struct Changed {
    /// The tree's new root (NONE when a removal emptied it).
    pub root: PageId,
    /// The value replaced or removed.
    pub old: Option<LeafValue>,
    /// The leaf that now holds the key (or held it), when the key range
    /// `fences` describes is exactly that leaf's: set unless a split or a
    /// merge moved the range of a leaf the operation touched.
    pub leaf: Option<PageId>,
}

/// Inserts or replaces. `fences` receives the key range of the leaf
/// reported in [`Changed::leaf`].
pub(crate) fn insert(
    st: &mut dyn NodeStore,
    root: PageId,
    key: &[u8],
    value: LeafValue,
    fences: &mut Fences,
) -> Result<Changed> {
    fences.reset();
    if root.is_none() {
        let leaf = Leaf::new(vec![(key.to_vec(), value)]);
        let root = st.alloc_node(Node::Leaf(leaf))?;
        return Ok(Changed {
            root,
            old: None,
            leaf: Some(root),
        });
    }
    let (new_root, split, old, leaf) = insert_rec(st, root, key, value, true, 0, fences)?;
    match split {
        None => Ok(Changed {
            root: new_root,
            old,
            leaf,
        }),
        Some(split) => Ok(Changed {
            root: grow_root(st, new_root, split)?,
            old,
            leaf,
        }),
    }
}

/// A new root over the old one, `left`, and the page its split made.
fn grow_root(
    st: &mut dyn NodeStore,
    left: PageId,
    (sep, right): (Vec<u8>, PageId),
) -> Result<PageId> {
    st.alloc_node(Node::Branch(Branch::new(vec![sep], vec![left, right])))
}

type Split = Option<(Vec<u8>, PageId)>;

/// The new page of the node, its split, the replaced value and the leaf
/// reported in [`Changed::leaf`].
type Inserted = (PageId, Split, Option<LeafValue>, Option<PageId>);

fn insert_rec(
    st: &mut dyn NodeStore,
    id: PageId,
    key: &[u8],
    value: LeafValue,
    rightmost: bool,
    depth: usize,
    fences: &mut Fences,
) -> Result<Inserted> {
    if depth > MAX_TREE_DEPTH {
        return Err(corrupt!(id.0, "tree deeper than {MAX_TREE_DEPTH} levels"));
    }
    // Only plain data leaves this block: holding the node's `Rc` across
    // `make_mut` would force a full copy of a node the transaction owns.
    let descend = match &*st.node(id)? {
        Node::Branch(b) => {
            let ci = b.child_index(key);
            fences.narrow(b, ci);
            Some((ci, ci == b.children().len() - 1, b.children()[ci]))
        }
        Node::Leaf(_) => None,
    };
    if let Some((ci, last, child_id)) = descend {
        let (child, split, old, leaf) = insert_rec(
            st,
            child_id,
            key,
            value,
            rightmost && last,
            depth + 1,
            fences,
        )?;
        let (new_id, n) = st.make_mut(id)?;
        let Node::Branch(b) = n else {
            unreachable!("page {new_id:?} was a branch a moment ago")
        };
        b.set_child(ci, child);
        if let Some((sep, right)) = split {
            b.insert(ci, sep, right);
        }
        if b.encoded_size() <= PAGE_SIZE {
            return Ok((new_id, None, old, leaf));
        }
        let at = if rightmost && last {
            b.keys().len() - 2
        } else {
            branch_split_point(b)
        };
        let (sep, right) = b.split(at);
        let right_id = st.alloc_node(Node::Branch(right))?;
        return Ok((new_id, Some((sep, right_id)), old, leaf));
    }
    let (new_id, n) = st.make_mut(id)?;
    let Node::Leaf(l) = n else {
        unreachable!("page {new_id:?} was a leaf a moment ago")
    };
    let (pos, old) = match l.search(key) {
        Ok(i) => (i, Some(l.replace(i, value))),
        Err(i) => {
            l.insert(i, key, value);
            (i, None)
        }
    };
    let appended = rightmost && old.is_none() && pos == l.len() - 1;
    if l.encoded_size() <= PAGE_SIZE {
        return Ok((new_id, None, old, Some(new_id)));
    }
    let at = leaf_split_point(l, appended);
    let right = l.split_off(at);
    let sep = right.key(0).to_vec();
    let right_id = st.alloc_node(Node::Leaf(right))?;
    if appended {
        // Sorted appends go on into the right page (the split point leaves
        // it non-empty: the new key, the last one, is there), whose range
        // starts at the separator.
        fences.set_low(&sep);
        return Ok((new_id, Some((sep, right_id)), old, Some(right_id)));
    }
    Ok((new_id, Some((sep, right_id)), old, None))
}

/// Where to split an overfull leaf: both halves must fit a page; prefer the
/// byte midpoint, or (sorted appends) leave the left page as full as possible.
fn leaf_split_point(l: &Leaf, appended: bool) -> usize {
    let header = super::node::LEAF_SLOTS_OFFSET;
    split_point(
        (0..l.len()).map(|i| l.entry_size(i)),
        l.encoded_size() - header,
        header,
        appended,
    )
}

/// Chooses `i` so entries `..i` and `i..` (whose sizes `sizes` yields in
/// order, `total` in all) both fit a page with `header` bytes of fixed
/// overhead each, closest to the byte midpoint (or as far right as
/// possible when `fill_left`).
fn split_point(
    sizes: impl Iterator<Item = usize>,
    total: usize,
    header: usize,
    fill_left: bool,
) -> usize {
    let cap = PAGE_SIZE - header;
    let mut best = 1;
    let mut best_score = usize::MAX;
    let mut prefix = 0;
    for (i, s) in sizes.enumerate() {
        if i > 0 {
            let left = prefix;
            let right = total - prefix;
            if left <= cap && right <= cap {
                let score = if fill_left {
                    cap - left
                } else {
                    left.abs_diff(right)
                };
                if score < best_score {
                    best_score = score;
                    best = i;
                }
            }
        }
        prefix += s;
    }
    best
}

/// The key index to promote when splitting an overfull branch.
fn branch_split_point(b: &Branch) -> usize {
    let sizes: Vec<usize> = b
        .keys()
        .iter()
        .map(|k| super::node::branch_entry_size(k))
        .collect();
    // Promoting key `m` leaves keys ..m on the left and m+1.. on the right.
    let total: usize = sizes.iter().sum();
    let mut prefix = 0;
    for (m, s) in sizes.iter().enumerate() {
        if m > 0 && prefix + s / 2 >= total / 2 {
            return m.min(b.keys().len() - 2);
        }
        prefix += s;
    }
    b.keys().len() / 2
}

/// Removes `key`: the new root is NONE when the tree became empty. A
/// missing key changes nothing and copies no page (and reports no leaf).
pub(crate) fn remove(
    st: &mut dyn NodeStore,
    root: PageId,
    key: &[u8],
    fences: &mut Fences,
) -> Result<Changed> {
    fences.reset();
    let unchanged = Changed {
        root,
        old: None,
        leaf: None,
    };
    if root.is_none() {
        return Ok(unchanged);
    }
    let (new_root, split, old, _, leaf) = remove_rec(st, root, key, 0, fences)?;
    if old.is_none() {
        return Ok(unchanged);
    }
    if let Some(split) = split {
        return Ok(Changed {
            root: grow_root(st, new_root, split)?,
            old,
            leaf,
        });
    }
    let node = st.node(new_root)?;
    let collapsed = match &*node {
        Node::Branch(b) if b.keys().is_empty() => Some(b.children()[0]),
        Node::Leaf(l) if l.is_empty() => Some(PageId::NONE),
        _ => None,
    };
    match collapsed {
        Some(child) => {
            st.free_page(new_root);
            Ok(Changed {
                root: child,
                old,
                leaf: None,
            })
        }
        None => Ok(Changed {
            root: new_root,
            old,
            leaf,
        }),
    }
}

/// The node's new page, its split, the removed value, whether the node
/// fell below the underflow size, and the leaf reported in
/// [`Changed::leaf`]. A removal can split a branch: refilling an underfull
/// child from its sibling replaces their separator in the branch with a
/// key that may be longer (up to `MAX_KEY_LEN`), and the branch may then
/// no longer fit its page.
type Removed = (PageId, Split, Option<LeafValue>, bool, Option<PageId>);

fn remove_rec(
    st: &mut dyn NodeStore,
    id: PageId,
    key: &[u8],
    depth: usize,
    fences: &mut Fences,
) -> Result<Removed> {
    if depth > MAX_TREE_DEPTH {
        return Err(corrupt!(id.0, "tree deeper than {MAX_TREE_DEPTH} levels"));
    }
    // As in insert_rec: no `Rc` of the node may live across `make_mut`.
    let descend = match &*st.node(id)? {
        Node::Leaf(l) => match l.search(key) {
            Ok(i) => Err(i),
            Err(_) => return Ok((id, None, None, false, None)),
        },
        Node::Branch(b) => {
            let ci = b.child_index(key);
            fences.narrow(b, ci);
            Ok((ci, b.children()[ci]))
        }
    };
    match descend {
        Err(i) => {
            let (new_id, n) = st.make_mut(id)?;
            let Node::Leaf(l) = n else {
                unreachable!("page {new_id:?} was a leaf a moment ago")
            };
            let old = l.remove(i);
            let underflow = l.encoded_size() < UNDERFLOW_SIZE;
            Ok((
                new_id,
                None,
                Some(old),
                underflow,
                (!underflow).then_some(new_id),
            ))
        }
        Ok((ci, child_id)) => {
            let (child, split, old, underflow, leaf) =
                remove_rec(st, child_id, key, depth + 1, fences)?;
            if old.is_none() {
                return Ok((id, None, None, false, None));
            }
            let (new_id, n) = st.make_mut(id)?;
            let Node::Branch(b) = n else {
                unreachable!("page {new_id:?} was a branch a moment ago")
            };
            b.set_child(ci, child);
            let child_split = split.is_some();
            if let Some((sep, right)) = split {
                b.insert(ci, sep, right);
            }
            if underflow {
                rebalance(st, new_id, ci)?;
            }
            let (_, n) = st.make_mut(new_id)?;
            let Node::Branch(b) = n else {
                unreachable!("page {new_id:?} was a branch a moment ago")
            };
            if b.encoded_size() > PAGE_SIZE {
                let (sep, right) = b.split(branch_split_point(b));
                let right_id = st.alloc_node(Node::Branch(right))?;
                return Ok((new_id, Some((sep, right_id)), old, false, None));
            }
            // A rebalance or split below moved the ranges of the leaves
            // under this node; above it, an underflow of this node may
            // move them.
            let leaf = leaf.filter(|_| !underflow && !child_split);
            Ok((new_id, None, old, b.encoded_size() < UNDERFLOW_SIZE, leaf))
        }
    }
}

/// Repairs child `ci` of branch `parent` (owned) after it fell below
/// `UNDERFLOW_SIZE`: merges it with a sibling when both fit one page,
/// otherwise redistributes so both halves are balanced.
fn rebalance(st: &mut dyn NodeStore, parent: PageId, ci: usize) -> Result<()> {
    let parent_node = st.node(parent)?;
    let Node::Branch(b) = &*parent_node else {
        return Err(corrupt!(parent.0, "expected a branch"));
    };
    let (li, ri) = if ci > 0 { (ci - 1, ci) } else { (ci, ci + 1) };
    if ri >= b.children().len() {
        return Ok(());
    }
    let sep = b.keys()[li].clone();
    let (left_page, right_page) = (b.children()[li], b.children()[ri]);
    drop(parent_node);
    let left = (*st.node(left_page)?).clone();
    let right = (*st.node(right_page)?).clone();
    let (new_left, split) = match (left, right) {
        (Node::Leaf(mut l), Node::Leaf(r)) => {
            l.append(r);
            if l.encoded_size() <= PAGE_SIZE {
                (Node::Leaf(l), None)
            } else {
                let at = leaf_split_point(&l, false);
                let right = l.split_off(at);
                let sep = right.key(0).to_vec();
                (Node::Leaf(l), Some((sep, Node::Leaf(right))))
            }
        }
        (Node::Branch(mut l), Node::Branch(r)) => {
            l.merge(sep, r);
            if l.encoded_size() <= PAGE_SIZE {
                (Node::Branch(l), None)
            } else {
                let m = branch_split_point(&l);
                let (promoted, right) = l.split(m);
                (Node::Branch(l), Some((promoted, Node::Branch(right))))
            }
        }
        _ => return Err(corrupt!(parent.0, "siblings at different depths")),
    };
    let (lid, ln) = st.make_mut(left_page)?;
    *ln = new_left;
    let rid = match &split {
        Some(_) => Some(st.make_mut(right_page)?.0),
        None => None,
    };
    if let (Some(rid), Some((_, node))) = (rid, &split) {
        let (_, rn) = st.make_mut(rid)?;
        *rn = node.clone();
    }
    if rid.is_none() {
        st.free_page(right_page);
    }
    let (_, n) = st.make_mut(parent)?;
    let Node::Branch(b) = n else {
        unreachable!("parent was a branch above")
    };
    b.set_child(li, lid);
    match (rid, split) {
        (Some(rid), Some((sep, _))) => {
            b.set_child(ri, rid);
            b.set_key(li, sep);
        }
        _ => b.remove(li),
    }
    Ok(())
}
