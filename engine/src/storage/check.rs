//! Validation: walks one committed state and reports every problem it finds
//! (like SQLite's `integrity_check`): page checksums, node decoding, key
//! order and child key ranges, uniform leaf depth, entry counts against the
//! catalog, overflow runs, the free list, and that every page of the file is
//! reachable exactly once (trees + free list + superblocks = file).
//!
//! The walk reads pages from the device, never from the cache, so a check
//! sees what is on disk. Its loops are bounded by the file's page count and
//! `MAX_TREE_DEPTH`, whatever the bytes say.

use super::commit::load_freelist;
use super::format::*;
use super::node::{overflow_pages, LeafValue, Node};
use super::store::{ReadTxn, TreeMeta};
use crate::Result;

/// One problem found by a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The page at fault (0 when none is).
    pub page: u64,
    pub detail: String,
}

/// The outcome of a check: empty `problems` means the file is sound.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    pub problems: Vec<Problem>,
    /// Pages in the file.
    pub pages: u64,
    /// Trees in the catalog.
    pub trees: u64,
    /// Entries over all trees.
    pub entries: u64,
    /// Free pages.
    pub free_pages: u64,
}

impl CheckReport {
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Most problems one report lists; past it the check stops adding.
const MAX_PROBLEMS: usize = 1000;

/// Key-value pairs collected from a tree walk (the catalog's entries).
type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// A page still to visit: its id, depth, and the key range its parent
/// gives it (lower bound inclusive, upper bound exclusive).
struct Visit {
    id: PageId,
    depth: usize,
    lo: Option<Vec<u8>>,
    hi: Option<Vec<u8>>,
}

struct Walker<'a> {
    snap: &'a ReadTxn,
    used: Vec<bool>,
    report: CheckReport,
}

impl Walker<'_> {
    fn problem(&mut self, page: u64, detail: String) {
        if self.report.problems.len() < MAX_PROBLEMS {
            self.report.problems.push(Problem { page, detail });
        }
    }

    /// Marks a page as referenced; false (and a problem) if out of range or
    /// referenced before.
    fn claim(&mut self, page: u64, what: &str) -> bool {
        if page < FIRST_DATA_PAGE || page >= self.report.pages {
            self.problem(page, format!("{what} points outside the file"));
            return false;
        }
        if std::mem::replace(&mut self.used[page as usize], true) {
            self.problem(page, format!("{what} is referenced twice"));
            return false;
        }
        true
    }

    fn read_node(&mut self, id: PageId) -> Option<Node> {
        let mut page = PageBuf::zeroed();
        let read = self
            .snap
            .shared
            .inner
            .borrow_mut()
            .pager
            .read_page(id, &mut page.0);
        match read.and_then(|_| Node::decode(&page.0, id)) {
            Ok(n) => Some(n),
            Err(e) => {
                self.problem(id.0, e.to_string());
                None
            }
        }
    }

    /// Walks one tree; returns its entries (for the catalog) and their count.
    fn tree(&mut self, name: &str, root: PageId, collect: bool) -> (Entries, u64) {
        let mut out = Vec::new();
        let mut count = 0u64;
        if root.is_none() {
            return (out, 0);
        }
        let mut leaf_depth: Option<usize> = None;
        // (page, depth, lower bound inclusive, upper bound exclusive)
        let mut stack = vec![Visit {
            id: root,
            depth: 0,
            lo: None,
            hi: None,
        }];
        while let Some(Visit { id, depth, lo, hi }) = stack.pop() {
            if depth > MAX_TREE_DEPTH {
                self.problem(
                    id.0,
                    format!("tree {name} is deeper than {MAX_TREE_DEPTH} levels"),
                );
                continue;
            }
            if !self.claim(id.0, &format!("a page of tree {name}")) {
                continue;
            }
            let Some(node) = self.read_node(id) else {
                continue;
            };
            let keys: Vec<&[u8]> = match &node {
                Node::Leaf(l) => l.entries().iter().map(|(k, _)| k.as_slice()).collect(),
                Node::Branch(b) => b.keys().iter().map(|k| k.as_slice()).collect(),
            };
            let below = lo
                .as_deref()
                .is_some_and(|lo| keys.first().is_some_and(|k| *k < lo));
            let above = hi
                .as_deref()
                .is_some_and(|hi| keys.last().is_some_and(|k| *k >= hi));
            if below || above {
                self.problem(
                    id.0,
                    format!("keys of tree {name} outside the range its parent gives"),
                );
            }
            match node {
                Node::Branch(b) => {
                    for (i, &child) in b.children().iter().enumerate().rev() {
                        let clo = if i == 0 {
                            lo.clone()
                        } else {
                            Some(b.keys()[i - 1].clone())
                        };
                        let chi = if i == b.keys().len() {
                            hi.clone()
                        } else {
                            Some(b.keys()[i].clone())
                        };
                        stack.push(Visit {
                            id: child,
                            depth: depth + 1,
                            lo: clo,
                            hi: chi,
                        });
                    }
                }
                Node::Leaf(l) => {
                    if *leaf_depth.get_or_insert(depth) != depth {
                        self.problem(id.0, format!("leaves of tree {name} at different depths"));
                    }
                    if l.is_empty() && depth > 0 {
                        self.problem(id.0, format!("empty non-root leaf in tree {name}"));
                    }
                    count += l.len() as u64;
                    for (k, v) in l.into_entries() {
                        match v {
                            LeafValue::Overflow { len, first } => self.overflow(first, len),
                            LeafValue::Inline(v) if collect => out.push((k, v)),
                            LeafValue::Inline(_) => {}
                        }
                    }
                }
            }
        }
        (out, count)
    }

    fn overflow(&mut self, first: PageId, len: u64) {
        let n = overflow_pages(len);
        let mut buf = Vec::new();
        for i in 0..n {
            let p = first.0 + i;
            if !self.claim(p, "an overflow value") {
                return;
            }
        }
        // Claimed, so within the file: verify checksums and kinds in runs.
        let mut done = 0;
        while done < n {
            let run = (n - done).min(256);
            let r = self.snap.shared.inner.borrow_mut().pager.read_run(
                PageId(first.0 + done),
                run as usize,
                &mut buf,
            );
            match r {
                Ok(()) => {
                    for (i, page) in buf.chunks(PAGE_SIZE).enumerate() {
                        if page[KIND_OFFSET] != KIND_OVERFLOW {
                            self.problem(
                                first.0 + done + i as u64,
                                "expected an overflow page".into(),
                            );
                        }
                    }
                }
                Err(e) => self.problem(corrupt_page(&e).unwrap_or(first.0 + done), e.to_string()),
            }
            done += run;
        }
    }
}

fn corrupt_page(e: &crate::Error) -> Option<u64> {
    match e {
        crate::Error::Corrupt { page, .. } => Some(*page),
        _ => None,
    }
}

/// Full validation of the state `snap` reads.
pub(crate) fn full(snap: &ReadTxn) -> Result<CheckReport> {
    let pages = snap.sb.page_count;
    let mut w = Walker {
        snap,
        used: vec![false; pages as usize],
        report: CheckReport {
            pages,
            ..Default::default()
        },
    };
    for s in 0..FIRST_DATA_PAGE.min(pages) {
        w.used[s as usize] = true;
    }
    let (catalog, _) = w.tree("(catalog)", snap.sb.catalog_root, true);
    for (name, value) in catalog {
        let name = String::from_utf8_lossy(&name).into_owned();
        let meta = match TreeMeta::decode(&value, snap.sb.catalog_root) {
            Ok(m) => m,
            Err(e) => {
                w.problem(snap.sb.catalog_root.0, e.to_string());
                continue;
            }
        };
        let (_, count) = w.tree(&name, meta.root, false);
        if count != meta.len {
            w.problem(
                meta.root.0,
                format!(
                    "tree {name} holds {count} entries, the catalog says {}",
                    meta.len
                ),
            );
        }
        w.report.trees += 1;
        w.report.entries += count;
    }
    let freelist = load_freelist(&mut snap.shared.inner.borrow_mut().pager, &snap.sb);
    match freelist {
        Ok((free, chain)) => {
            for p in chain {
                w.claim(p.0, "a free-list page");
            }
            for e in free.extents() {
                for p in e.start..e.start + u64::from(e.len) {
                    w.claim(p, "a free page");
                }
            }
            w.report.free_pages = free.len();
        }
        Err(e) => w.problem(corrupt_page(&e).unwrap_or(0), e.to_string()),
    }
    if w.report.problems.is_empty() {
        let lost: Vec<u64> = (FIRST_DATA_PAGE..pages)
            .filter(|&p| !w.used[p as usize])
            .take(10)
            .collect();
        for p in lost {
            w.problem(p, "page is neither reachable nor free".into());
        }
    }
    Ok(w.report)
}

/// Quick validation: the catalog and every tree root decode.
pub(crate) fn quick(snap: &ReadTxn) -> Result<CheckReport> {
    let pages = snap.sb.page_count;
    let mut w = Walker {
        snap,
        used: vec![false; pages as usize],
        report: CheckReport {
            pages,
            ..Default::default()
        },
    };
    let root = snap.sb.catalog_root;
    if !root.is_none() {
        w.read_node(root);
    }
    if w.report.problems.is_empty() {
        for name in crate::storage::TreeRead::tree_names(snap)? {
            if let Some(m) = snap.meta(&name)? {
                if !m.root.is_none() {
                    w.read_node(m.root);
                }
                w.report.trees += 1;
            }
        }
    }
    Ok(w.report)
}
