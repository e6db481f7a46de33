//! Free space: a set of free page extents with first-fit allocation.
//!
//! The pager's allocator holds only pages that no committed state a reader
//! or a crash could fall back to still reaches (see `store` for the rules on
//! when freed pages join it). A transaction takes pages in runs, preferring
//! low ones (`WriteTxn::take_page`), so a file fills from the front and
//! commits write mostly adjacent pages.

use super::format::{Extent, PageId};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub(crate) struct FreeSet {
    /// start -> length, non-overlapping, never adjacent (always merged).
    extents: BTreeMap<u64, u64>,
    pages: u64,
}

impl FreeSet {
    pub(crate) fn new() -> FreeSet {
        FreeSet::default()
    }

    /// Number of free pages.
    pub(crate) fn len(&self) -> u64 {
        self.pages
    }

    /// Number of runs the free pages form.
    pub(crate) fn runs(&self) -> usize {
        self.extents.len()
    }

    pub(crate) fn contains(&self, page: u64) -> bool {
        self.extents
            .range(..=page)
            .next_back()
            .is_some_and(|(&s, &l)| page < s + l)
    }

    /// Adds `len` pages from `start`; they must not be free already.
    pub(crate) fn insert_run(&mut self, start: u64, len: u64) {
        if len == 0 {
            return;
        }
        self.pages += len;
        let mut start = start;
        let mut len = len;
        if let Some((&ps, &pl)) = self.extents.range(..start).next_back() {
            if ps + pl == start {
                self.extents.remove(&ps);
                start = ps;
                len += pl;
            }
        }
        if let Some(&nl) = self.extents.get(&(start + len)) {
            self.extents.remove(&(start + len));
            len += nl;
        }
        self.extents.insert(start, len);
    }

    pub(crate) fn insert(&mut self, page: PageId) {
        self.insert_run(page.0, 1);
    }

    /// The lowest free page.
    pub(crate) fn first(&self) -> Option<u64> {
        self.extents.keys().next().copied()
    }

    /// The first page of the first run of at least `n` free pages (what
    /// [`FreeSet::take_run`] would take).
    pub(crate) fn first_fit(&self, n: u64) -> Option<u64> {
        self.extents.iter().find(|(_, &l)| l >= n).map(|(&s, _)| s)
    }

    /// Takes the lowest free page.
    pub(crate) fn take_one(&mut self) -> Option<PageId> {
        self.take_run_start(1, 0)
    }

    /// Takes the first page of the first run of at least `n` free pages
    /// that starts at or after page `from`.
    pub(crate) fn take_run_start(&mut self, n: u64, from: u64) -> Option<PageId> {
        let (&s, &l) = self.extents.range(from..).find(|(_, &l)| l >= n)?;
        self.extents.remove(&s);
        if l > 1 {
            self.extents.insert(s + 1, l - 1);
        }
        self.pages -= 1;
        Some(PageId(s))
    }

    /// Takes `n` consecutive pages, first fit.
    pub(crate) fn take_run(&mut self, n: u64) -> Option<PageId> {
        let s = self.first_fit(n)?;
        let l = self.extents.remove(&s)?;
        if l > n {
            self.extents.insert(s + n, l - n);
        }
        self.pages -= n;
        Some(PageId(s))
    }

    /// Takes the free extent that ends exactly at `end`, if any, returning its start.
    pub(crate) fn take_tail(&mut self, end: u64) -> Option<u64> {
        let (&s, &l) = self.extents.iter().next_back()?;
        if s + l != end {
            return None;
        }
        self.extents.remove(&s);
        self.pages -= l;
        Some(s)
    }

    /// Removes one specific page (which must be free).
    pub(crate) fn remove(&mut self, page: u64) -> bool {
        let Some((&s, &l)) = self.extents.range(..=page).next_back() else {
            return false;
        };
        if page >= s + l {
            return false;
        }
        self.extents.remove(&s);
        if page > s {
            self.extents.insert(s, page - s);
        }
        if page + 1 < s + l {
            self.extents.insert(page + 1, s + l - page - 1);
        }
        self.pages -= 1;
        true
    }

    /// The extents in page order, split so each length fits a u32.
    pub(crate) fn extents(&self) -> Vec<Extent> {
        let mut out = Vec::with_capacity(self.extents.len());
        for (&s, &l) in &self.extents {
            let mut s = s;
            let mut l = l;
            while l > 0 {
                let n = l.min(u64::from(u32::MAX));
                out.push(Extent {
                    start: s,
                    len: n as u32,
                });
                s += n;
                l -= n;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_and_takes() {
        let mut f = FreeSet::new();
        f.insert_run(10, 2);
        f.insert_run(14, 2);
        f.insert_run(12, 2);
        assert_eq!(f.extents(), vec![Extent { start: 10, len: 6 }]);
        assert_eq!(f.len(), 6);
        assert!(f.remove(12));
        assert!(!f.contains(12) && f.contains(13));
        assert_eq!(f.take_run(3), Some(PageId(13)));
        assert_eq!(f.take_one(), Some(PageId(10)));
        assert_eq!(f.len(), 1);
        assert_eq!(f.take_tail(17), None);
        assert_eq!(f.take_tail(12), Some(11));
        assert_eq!(f.len(), 0);
    }

    #[test]
    fn takes_the_start_of_the_first_long_enough_run_from_a_page_on() {
        let mut f = FreeSet::new();
        f.insert_run(3, 1);
        f.insert_run(7, 2);
        f.insert_run(20, 4);
        f.insert_run(30, 5);
        assert_eq!(f.take_run_start(3, 0), Some(PageId(20)));
        assert_eq!(f.extents()[2], Extent { start: 21, len: 3 });
        assert_eq!(f.take_run_start(4, 21), Some(PageId(30)));
        assert_eq!(f.take_run_start(5, 25), None);
        assert_eq!(f.take_run_start(1, 0), Some(PageId(3)));
        assert_eq!(f.len(), 1 + 2 + 4 + 5 - 3);
    }
}
