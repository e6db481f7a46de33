//! [`PendingInserts`]: index entries that INSERT statements of the open
//! transaction made but have not written yet, so that a run of single-row
//! INSERTs (an import, a loop of prepared statements in one transaction)
//! writes each index's entries in key order, a batch at a time, instead of
//! descending into a random leaf per row and index.
//!
//! Invariant: no tree holding pending entries is read while they wait.
//! The connection keeps that true by deciding per statement, before the
//! statement's savepoint is taken (see `Connection::run_statement`):
//! entries wait only across statements that [`InsertPlan::defers_to`]
//! accepts, and those never read the indexes concerned (they write one
//! table, do not replace rows, run no subquery, no foreign key check
//! touching the table and no RETURNING). Any other statement, and COMMIT,
//! SAVEPOINT and RELEASE, first writes the entries out
//! ([`PendingInserts::apply`]); ROLLBACK and ROLLBACK TO drop them
//! (SAVEPOINT wrote out everything older than the savepoint). A failed
//! statement drops the entries it added ([`PendingInserts::truncate`] to
//! the marks taken before it) as its savepoint undoes its other writes.
//!
//! Only entries of indexes that are not UNIQUE wait: UNIQUE ones are read
//! by later rows' conflict checks. Each entry holds its row's rowid, so
//! entries never collide and their order does not matter.
//!
//! Memory: the entries are charged against no page budget, so they are
//! bounded apart: at most a sixteenth of the batch limit (1 MiB at the
//! default) waits; past it a row's entries are written at once, and the
//! next statement writes the batch out before it starts.
//!
//! [`InsertPlan::defers_to`]: super::dml::InsertPlan::defers_to

use super::keysort::KeyBatch;
use super::kv::Kv;
use super::write::TableWriter;
use crate::Result;

/// Index entries waiting to be inserted, for one table at a time.
#[derive(Debug, Default)]
pub(crate) struct PendingInserts {
    /// The table's tree (empty while nothing waits).
    table: String,
    /// Per index of the table's writer: its tree and its waiting keys.
    indexes: Vec<(String, KeyBatch)>,
    /// Approximate memory the waiting keys take.
    bytes: usize,
    /// Most bytes that may wait.
    cap: usize,
}

impl PendingInserts {
    /// Nothing waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.indexes.iter().all(|(_, keys)| keys.is_empty())
    }

    /// Whether the next statement, an INSERT into the table with tree
    /// `table`, may add to what waits; otherwise the caller applies the
    /// entries first. Past half the cap the batch is written out between
    /// statements, so one statement rarely meets a full queue.
    pub(crate) fn accepts(&self, table: &str) -> bool {
        self.is_empty() || (self.table == table && self.bytes < self.cap / 2)
    }

    /// The count of waiting keys per index: what [`PendingInserts::truncate`]
    /// returns to when the statement about to run fails.
    pub(crate) fn marks(&self) -> Vec<usize> {
        self.indexes.iter().map(|(_, keys)| keys.len()).collect()
    }

    /// Drops the keys added since `marks` were taken.
    pub(crate) fn truncate(&mut self, marks: &[usize]) {
        for (i, (_, keys)) in self.indexes.iter_mut().enumerate() {
            keys.truncate(marks.get(i).copied().unwrap_or(0));
        }
        self.bytes = self.indexes.iter().map(|(_, keys)| keys.memory()).sum();
    }

    /// Drops every waiting key (the transaction, or the savepoint they
    /// followed, is rolled back).
    pub(crate) fn clear(&mut self) {
        for (_, keys) in &mut self.indexes {
            keys.clear();
        }
        self.bytes = 0;
    }

    /// Writes every waiting key, each index's in key order.
    pub(crate) fn apply(&mut self, kv: &mut dyn Kv) -> Result<()> {
        for (tree, keys) in &mut self.indexes {
            kv.insert_keys_sorted(tree, &keys.sorted_keys())?;
            keys.clear();
        }
        self.bytes = 0;
        Ok(())
    }

    /// Makes `w`'s table the one whose entries wait (a no-op when it is
    /// already), with at most `cap` bytes waiting. The caller applied any
    /// other table's entries first; if some still waited that would be a
    /// bug, reported rather than dropping them.
    pub(crate) fn target(&mut self, w: &TableWriter, cap: usize) -> Result<()> {
        let tree = &w.table.tree;
        let same = self.table == *tree
            && self.indexes.len() == w.indexes.len()
            && self
                .indexes
                .iter()
                .zip(&w.indexes)
                .all(|((t, _), p)| *t == p.index.tree);
        if same {
            return Ok(());
        }
        if !self.is_empty() {
            return Err(crate::sql_err!(
                "internal: index entries of another table still wait"
            ));
        }
        self.table.clone_from(tree);
        self.indexes = w
            .indexes
            .iter()
            .map(|p| (p.index.tree.clone(), KeyBatch::default()))
            .collect();
        self.bytes = 0;
        self.cap = cap;
        Ok(())
    }

    /// Queues for index `i` the key `write` appends; false, without
    /// calling it, when the queue is full (the caller writes the key at once).
    pub(crate) fn push_with(&mut self, i: usize, write: impl FnOnce(&mut Vec<u8>)) -> bool {
        if self.bytes >= self.cap {
            return false;
        }
        let keys = &mut self.indexes[i].1;
        let before = keys.memory();
        keys.push_with(write);
        self.bytes += keys.memory() - before;
        true
    }
}
