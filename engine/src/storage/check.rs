//! Validation: walks one committed state and reports every problem it finds
//! (like SQLite's `integrity_check`): page checksums, node decoding, key
//! order and child key ranges, uniform leaf depth, entry counts against the
//! catalog, overflow runs, the free list, and that every page of the file is
//! reachable exactly once (trees + free list + superblocks = file).
//!
//! The walk reads pages from the device, never from the cache, so a check
//! sees what is on disk. Its loops are bounded by the file's page count and
//! `MAX_TREE_DEPTH`, whatever the bytes say.

use std::fmt;

use super::commit::load_freelist;
use super::format::*;
use super::node::{for_each_leaf_entry, overflow_pages, Branch, Node, RawValue};
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
    /// What the sequential pass learned of each page (full checks only).
    seen: Option<Vec<Seen>>,
}

/// What the sequential pass over the file learned about one page. Free
/// pages are summarized too (they may hold anything); only pages the walk
/// reaches are judged.
enum Seen {
    /// Failed its checksum or did not parse.
    Bad(String),
    Leaf {
        count: u64,
        first: Vec<u8>,
        last: Vec<u8>,
        overflow: Vec<(PageId, u64)>,
    },
    /// Branches are about 1% of the pages: kept decoded.
    Branch(Branch),
    /// A page of another kind whose checksum holds.
    Other(u8),
}

/// The parts of a tree node the walk checks.
struct Facts {
    first: Option<Vec<u8>>,
    last: Option<Vec<u8>>,
    /// Branch: children and separators. Leaf: `None`.
    branch: Option<Branch>,
    count: u64,
    overflow: Vec<(PageId, u64)>,
    /// Inline entries, for the catalog only.
    inline: Entries,
}

/// Pages read per device call in the sequential pass.
const SCAN_RUN_PAGES: u64 = 256;

/// Reads the whole file in large runs, verifying every page's checksum and
/// summarizing tree pages without copying their entries: validation then
/// walks the trees in memory, at close to the device's sequential speed.
fn scan(snap: &ReadTxn) -> Result<Vec<Seen>> {
    let pages = snap.sb.page_count;
    let mut seen = Vec::with_capacity(pages as usize);
    for _ in 0..FIRST_DATA_PAGE.min(pages) {
        seen.push(Seen::Other(KIND_SUPERBLOCK));
    }
    let mut buf = Vec::new();
    let mut at = FIRST_DATA_PAGE;
    while at < pages {
        let run = (pages - at).min(SCAN_RUN_PAGES);
        snap.shared
            .inner
            .borrow_mut()
            .pager
            .read_raw_run(PageId(at), run as usize, &mut buf)?;
        for (i, page) in buf.chunks(PAGE_SIZE).enumerate() {
            seen.push(summarize(page, PageId(at + i as u64)));
        }
        at += run;
    }
    Ok(seen)
}

/// One page's summary: a function of its own, out of line, so that V8
/// optimizes this per-page work once its first pages have run (a wasm
/// function switches tiers only between calls; inlined, the whole pass was
/// one function called once per open, whose optimized code nothing ran).
#[inline(never)]
fn summarize(page: &[u8], id: PageId) -> Seen {
    if let Err(e) = verify_page(page, id) {
        return Seen::Bad(e.to_string());
    }
    match page[KIND_OFFSET] {
        KIND_LEAF => {
            let (mut first, mut last, mut overflow): (Option<&[u8]>, &[u8], _) =
                (None, &[], Vec::new());
            let walked = for_each_leaf_entry(page, id, |k, v| {
                first.get_or_insert(k);
                last = k;
                if let Some(v) = v {
                    overflow.push(v);
                }
            });
            match walked {
                Ok(count) => Seen::Leaf {
                    count: count as u64,
                    first: first.unwrap_or_default().to_vec(),
                    last: last.to_vec(),
                    overflow,
                },
                Err(e) => Seen::Bad(e.to_string()),
            }
        }
        KIND_BRANCH => match Node::decode(page, id) {
            Ok(Node::Branch(b)) => Seen::Branch(b),
            Ok(Node::Leaf(_)) => Seen::Bad("expected a branch".into()),
            Err(e) => Seen::Bad(e.to_string()),
        },
        kind => Seen::Other(kind),
    }
}

impl Walker<'_> {
    fn problem(&mut self, page: u64, detail: String) {
        if self.report.problems.len() < MAX_PROBLEMS {
            self.report.problems.push(Problem { page, detail });
        }
    }

    /// Marks a page as referenced; false (and a problem) if out of range or
    /// referenced before. `what` names the referrer, formatted only for a
    /// problem.
    fn claim(&mut self, page: u64, what: fmt::Arguments<'_>) -> bool {
        let fault = if page < FIRST_DATA_PAGE || page >= self.report.pages {
            "points outside the file"
        } else if std::mem::replace(&mut self.used[page as usize], true) {
            "is referenced twice"
        } else {
            return true;
        };
        self.problem(page, format!("{what} {fault}"));
        false
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

    /// What the walk needs of node `id`: from the sequential pass when there
    /// was one (and the entries themselves are not wanted), else decoded.
    fn facts(&mut self, id: PageId, collect: bool) -> Option<Facts> {
        if let (Some(seen), false) = (&self.seen, collect) {
            let facts = match &seen[id.0 as usize] {
                Seen::Bad(e) => Err(e.clone()),
                Seen::Leaf {
                    count,
                    first,
                    last,
                    overflow,
                } => Ok(Facts {
                    first: (*count > 0).then(|| first.clone()),
                    last: (*count > 0).then(|| last.clone()),
                    branch: None,
                    count: *count,
                    overflow: overflow.clone(),
                    inline: Vec::new(),
                }),
                Seen::Branch(b) => Ok(Facts {
                    first: b.keys().first().cloned(),
                    last: b.keys().last().cloned(),
                    branch: Some(b.clone()),
                    count: 0,
                    overflow: Vec::new(),
                    inline: Vec::new(),
                }),
                Seen::Other(k) => Err(format!("expected a tree page, found kind {k}")),
            };
            return facts.map_err(|e| self.problem(id.0, e)).ok();
        }
        Some(match self.read_node(id)? {
            Node::Branch(b) => Facts {
                first: b.keys().first().cloned(),
                last: b.keys().last().cloned(),
                branch: Some(b),
                count: 0,
                overflow: Vec::new(),
                inline: Vec::new(),
            },
            Node::Leaf(l) => {
                let mut f = Facts {
                    first: (!l.is_empty()).then(|| l.key(0).to_vec()),
                    last: (!l.is_empty()).then(|| l.key(l.len() - 1).to_vec()),
                    branch: None,
                    count: l.len() as u64,
                    overflow: Vec::new(),
                    inline: Vec::new(),
                };
                for (k, v) in l.iter() {
                    match v {
                        RawValue::Overflow { len, first } => f.overflow.push((first, len)),
                        RawValue::Inline(v) if collect => f.inline.push((k.to_vec(), v.to_vec())),
                        RawValue::Inline(_) => {}
                    }
                }
                f
            }
        })
    }

    /// Walks one tree; returns its entries (for the catalog) and their count.
    fn tree(&mut self, name: &str, root: PageId, collect: bool) -> (Entries, u64) {
        let mut out = Vec::new();
        let mut count = 0u64;
        if root.is_none() {
            return (out, 0);
        }
        let mut leaf_depth: Option<usize> = None;
        let mut stack = vec![Visit {
            id: root,
            depth: 0,
            lo: None,
            hi: None,
        }];
        while let Some(v) = stack.pop() {
            self.visit(
                name,
                v,
                collect,
                &mut stack,
                &mut leaf_depth,
                &mut count,
                &mut out,
            );
        }
        (out, count)
    }

    /// One node of [`Walker::tree`]'s walk: checked, its children pushed on
    /// `stack`, a leaf's entries counted (and collected into `out` when
    /// `collect`). Out of line for the same reason as [`summarize`]: the
    /// per-node work is what V8 should optimize, not the whole walk.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn visit(
        &mut self,
        name: &str,
        Visit { id, depth, lo, hi }: Visit,
        collect: bool,
        stack: &mut Vec<Visit>,
        leaf_depth: &mut Option<usize>,
        count: &mut u64,
        out: &mut Entries,
    ) {
        if depth > MAX_TREE_DEPTH {
            self.problem(
                id.0,
                format!("tree {name} is deeper than {MAX_TREE_DEPTH} levels"),
            );
            return;
        }
        if !self.claim(id.0, format_args!("a page of tree {name}")) {
            return;
        }
        let Some(facts) = self.facts(id, collect) else {
            return;
        };
        let below = lo
            .as_deref()
            .is_some_and(|lo| facts.first.as_deref().is_some_and(|k| k < lo));
        let above = hi
            .as_deref()
            .is_some_and(|hi| facts.last.as_deref().is_some_and(|k| k >= hi));
        if below || above {
            self.problem(
                id.0,
                format!("keys of tree {name} outside the range its parent gives"),
            );
        }
        if let Some(b) = &facts.branch {
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
            return;
        }
        if *leaf_depth.get_or_insert(depth) != depth {
            self.problem(id.0, format!("leaves of tree {name} at different depths"));
        }
        if facts.count == 0 && depth > 0 {
            self.problem(id.0, format!("empty non-root leaf in tree {name}"));
        }
        *count += facts.count;
        for (first, len) in facts.overflow {
            self.overflow(first, len);
        }
        out.extend(facts.inline);
    }

    fn overflow(&mut self, first: PageId, len: u64) {
        let n = overflow_pages(len);
        let mut buf = Vec::new();
        for i in 0..n {
            let p = first.0 + i;
            if !self.claim(p, format_args!("an overflow value")) {
                return;
            }
        }
        if let Some(seen) = &self.seen {
            let mut problems = Vec::new();
            for p in first.0..first.0 + n {
                match &seen[p as usize] {
                    Seen::Other(KIND_OVERFLOW) => {}
                    Seen::Bad(e) => problems.push((p, e.clone())),
                    _ => problems.push((p, "expected an overflow page".to_string())),
                }
            }
            for (p, e) in problems {
                self.problem(p, e);
            }
            return;
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
        seen: Some(scan(snap)?),
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
                w.claim(p.0, format_args!("a free-list page"));
            }
            for e in free.extents() {
                for p in e.start..e.start + u64::from(e.len) {
                    w.claim(p, format_args!("a free page"));
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
        seen: None,
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
