//! Savepoints of a [`WriteTxn`]: two mechanisms behind one handle.
//!
//! - A *copy-on-write* savepoint ([`WriteTxn::savepoint`]) bumps the
//!   transaction's generation. Owned pages older than the newest such
//!   savepoint are copied before they change, so rolling back only forgets
//!   the pages allocated since, and restores the tree roots captured when it
//!   was taken. Cost: every page a later change touches is copied once.
//! - A *statement* savepoint ([`WriteTxn::statement_savepoint`]) changes
//!   nothing about page ownership: pages keep changing in place, and every
//!   insert and remove records its inverse in an undo log (the key and the
//!   value it replaced or removed). Rolling back replays the log backwards.
//!   Cost: one log record per change, which is what a statement that touches
//!   a few rows of a large transaction should pay.
//!
//! Freezing: an undo savepoint turns into a copy-on-write one at the point
//! where logging stops being possible or cheap: before a tree is created,
//! dropped or cleared (no per-key inverse), before a copy-on-write savepoint
//! is taken inside it, and when the log passes a quarter of the batch limit
//! (the log is retained memory). A frozen savepoint rolls back in two steps:
//! copy-on-write back to the freeze point, then the log recorded before it,
//! backwards. Every open undo savepoint freezes at the same moment, so an
//! outer one never misses changes an inner one did not log.
//!
//! Invariants:
//! - Records are appended only while the newest savepoint is an unfrozen
//!   undo savepoint; its records start at its `start` and run to the end of
//!   the log; a frozen one's run from `start` to its `frozen_at`.
//! - A value an undo record refers to stays intact: the overflow pages of a
//!   replaced or removed value are not freed while the record may replay it
//!   (`deferred`), and are freed when the savepoint is released into a
//!   state that no longer needs them.
//! - The rollback replay itself records nothing and frees what it displaces
//!   at once.

use super::btree::NodeStore;
use super::fasthash::FastMap;
use super::format::PageId;
use super::node::LeafValue;
use super::store::TreeMeta;
use super::txn::WriteTxn;
use crate::Result;

/// A point to roll back to inside a write transaction. Roll back with
/// [`WriteTxn::rollback_to`] (the savepoint stays open) and always end it
/// with [`WriteTxn::release`], or later changes keep paying for it.
#[derive(Debug)]
pub struct Savepoint {
    id: u64,
}

/// The copy-on-write part of a savepoint: what rolling back restores.
#[derive(Clone)]
struct CowState {
    gen: u64,
    trees: FastMap<String, Option<TreeMeta>>,
    freed_len: usize,
    limbo_len: usize,
}

/// The undo-log part of a statement savepoint.
#[derive(Clone, Copy)]
struct UndoMark {
    /// First record of this savepoint.
    start: usize,
    /// First deferred free of this savepoint.
    deferred_start: usize,
    /// Log length when it froze; records from here on are not its own.
    frozen_at: Option<usize>,
}

pub(crate) struct SavepointState {
    id: u64,
    /// Set for copy-on-write savepoints, and for undo ones once frozen.
    cow: Option<CowState>,
    undo: Option<UndoMark>,
}

/// One inverse change: put `old` back under the key (remove the key when
/// None). The key is `key_len` bytes at `key_at` in [`UndoLog::keys`].
struct UndoRecord {
    tree: u32,
    key_at: u32,
    key_len: u32,
    old: Option<LeafValue>,
}

/// The undo log shared by the open statement savepoints.
#[derive(Default)]
pub(crate) struct UndoLog {
    records: Vec<UndoRecord>,
    /// The records' keys, back to back in record order (one buffer, not an
    /// allocation per logged change).
    keys: Vec<u8>,
    /// Tree names the records refer to by index (few per statement; kept
    /// while the log is empty, so the next statement finds them).
    trees: Vec<String>,
    /// Overflow values replaced or removed while logged: freed on release.
    deferred: Vec<LeafValue>,
    /// Retained bytes of the records, for the batch-limit accounting.
    bytes: u64,
}

/// Fixed cost charged per undo record on top of its key and value.
const RECORD_OVERHEAD: u64 = 48;

impl UndoLog {
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    fn tree_index(&mut self, tree: &str) -> u32 {
        match self.trees.iter().rposition(|t| t == tree) {
            Some(i) => i as u32,
            None => {
                self.trees.push(tree.to_string());
                (self.trees.len() - 1) as u32
            }
        }
    }

    fn truncate(&mut self, len: usize) {
        if let Some(first) = self.records.get(len) {
            self.keys.truncate(first.key_at as usize);
        }
        for r in self.records.drain(len..) {
            self.bytes = self
                .bytes
                .saturating_sub(record_bytes(r.key_len, r.old.as_ref()));
        }
        if self.records.is_empty() {
            self.bytes = 0;
            // A log that grew large gives its memory back; a small one keeps
            // it (and its tree names) for the next statement.
            if self.keys.capacity() > KEEP_KEY_BYTES {
                self.keys = Vec::new();
            }
            if self.trees.len() > KEEP_TREES {
                self.trees.clear();
            }
        }
    }

    /// The key of record `r`.
    fn key(&self, r: &UndoRecord) -> &[u8] {
        &self.keys[r.key_at as usize..(r.key_at + r.key_len) as usize]
    }
}

/// Key bytes and tree names an empty undo log keeps for the next statement.
const KEEP_KEY_BYTES: usize = 64 << 10;
const KEEP_TREES: usize = 16;

fn record_bytes(key_len: u32, old: Option<&LeafValue>) -> u64 {
    let v = match old {
        Some(LeafValue::Inline(v)) => v.len() as u64,
        _ => 0,
    };
    RECORD_OVERHEAD + u64::from(key_len) + v
}

impl WriteTxn {
    /// Marks a point this transaction can roll back to, by copy-on-write:
    /// right for long-lived savepoints (SQL SAVEPOINT).
    pub fn savepoint(&mut self) -> Savepoint {
        self.freeze_undo();
        let cow = self.cow_state();
        self.push_savepoint(Some(cow), None)
    }

    /// Marks a point this transaction can roll back to, by an undo log:
    /// right for one statement, whose changes it logs instead of copying
    /// the pages they touch (see the module docs).
    pub fn statement_savepoint(&mut self) -> Savepoint {
        let undo = UndoMark {
            start: self.undo.records.len(),
            deferred_start: self.undo.deferred.len(),
            frozen_at: None,
        };
        self.push_savepoint(None, Some(undo))
    }

    fn push_savepoint(&mut self, cow: Option<CowState>, undo: Option<UndoMark>) -> Savepoint {
        let id = self.next_savepoint;
        self.next_savepoint += 1;
        self.savepoints.push(SavepointState { id, cow, undo });
        Savepoint { id }
    }

    /// A copy-on-write snapshot of now, in a new generation.
    fn cow_state(&mut self) -> CowState {
        self.gen += 1;
        CowState {
            gen: self.gen,
            trees: self.trees.clone(),
            freed_len: self.freed.len(),
            limbo_len: self.limbo.len(),
        }
    }

    /// The newest copy-on-write generation: owned pages at least this young
    /// may change in place.
    pub(crate) fn inplace_gen(&self) -> u64 {
        self.savepoints
            .iter()
            .rev()
            .find_map(|s| s.cow.as_ref().map(|c| c.gen))
            .unwrap_or(0)
    }

    /// Whether changes are being logged (the newest savepoint is an
    /// unfrozen undo savepoint).
    pub(crate) fn logging(&self) -> bool {
        self.savepoints
            .last()
            .is_some_and(|s| s.cow.is_none() && s.undo.is_some())
    }

    /// Logs the inverse of a change to `key` that displaced `old`, and keeps
    /// `old`'s overflow pages for the log. The caller checks the freeze
    /// ([`WriteTxn::freeze_if_long`]) once the changes it made together
    /// are all logged (a leaf's run of changes: `WriteTxn::remove_sorted`).
    pub(crate) fn record_change(&mut self, tree: &str, key: &[u8], old: Option<LeafValue>) {
        let t = self.undo.tree_index(tree);
        self.undo.bytes += record_bytes(key.len() as u32, old.as_ref());
        if let Some(v @ LeafValue::Overflow { .. }) = &old {
            self.undo.deferred.push(v.clone());
        }
        let key_at = self.undo.keys.len() as u32;
        self.undo.keys.extend_from_slice(key);
        self.undo.records.push(UndoRecord {
            tree: t,
            key_at,
            key_len: key.len() as u32,
            old,
        });
    }

    /// Freezes the undo savepoints once the log passes a quarter of the
    /// batch limit.
    pub(crate) fn freeze_if_long(&mut self) {
        if self.undo.bytes > self.limit() / 4 {
            self.freeze_undo();
        }
    }

    /// Freezes every unfrozen undo savepoint (see the module docs).
    pub(crate) fn freeze_undo(&mut self) {
        if !self.logging() {
            return;
        }
        let cow = self.cow_state();
        let at = self.undo.records.len();
        for s in self.savepoints.iter_mut().rev() {
            match (&s.cow, &mut s.undo) {
                (None, Some(u)) => {
                    u.frozen_at = Some(at);
                    s.cow = Some(cow.clone());
                }
                _ => break,
            }
        }
    }

    fn savepoint_index(&self, sp: &Savepoint) -> Result<usize> {
        self.savepoints
            .iter()
            .position(|s| s.id == sp.id)
            .ok_or_else(|| crate::misuse!("savepoint is no longer open"))
    }

    /// Undoes everything since `sp` (which stays open). An error here (an
    /// unreadable page while replaying the log) leaves the transaction
    /// unusable: roll it back.
    pub fn rollback_to(&mut self, sp: &Savepoint) -> Result<()> {
        let i = self.savepoint_index(sp)?;
        self.savepoints.truncate(i + 1);
        self.leaf_hints.clear();
        let s = &self.savepoints[i];
        let (cow, undo) = (s.cow.clone(), s.undo);
        if let Some(c) = &cow {
            self.cow_rollback(c);
        }
        if let Some(u) = undo {
            let end = u.frozen_at.unwrap_or(self.undo.records.len());
            self.undo.truncate(end);
            self.replay(u.start)?;
            self.undo.deferred.truncate(u.deferred_start);
        }
        // From here on, pages are younger than the savepoint: a frozen one
        // re-freezes here (its log is replayed; the replay made new pages).
        // Enclosing undo savepoints frozen by the same event re-freeze too:
        // the replay consumed records they share, and the state now is
        // their snapshot with their remaining records still to replay.
        if let Some(old) = &cow {
            let c = self.cow_state();
            let start = undo.map(|u| u.start);
            for j in (0..=i).rev() {
                let s = &mut self.savepoints[j];
                let same_event = j == i || s.cow.as_ref().is_some_and(|x| x.gen == old.gen);
                if !same_event || (j < i && s.undo.is_none()) {
                    break;
                }
                s.cow = Some(c.clone());
                if let (Some(u), Some(start)) = (&mut s.undo, start) {
                    u.frozen_at = Some(start);
                }
            }
        }
        Ok(())
    }

    /// Restores the copy-on-write snapshot `c`: tree roots, frees, and the
    /// pages allocated since.
    fn cow_rollback(&mut self, c: &CowState) {
        self.trees = c.trees.clone();
        self.freed.truncate(c.freed_len);
        for (id, o) in self.limbo.split_off(c.limbo_len) {
            self.owned.insert(id, o);
        }
        let young: Vec<PageId> = self
            .owned
            .iter()
            .filter(|(_, o)| o.gen >= c.gen)
            .map(|(&id, _)| id)
            .collect();
        for id in young {
            self.owned.remove(&id);
            self.dirty.remove(&id);
            self.free.insert(id);
        }
    }

    /// Replays the log backwards down to record `start`, removing the
    /// records; frees whatever the replay displaces.
    fn replay(&mut self, start: usize) -> Result<()> {
        while self.undo.records.len() > start {
            let r = self.undo.records.pop().expect("len > start");
            self.undo.bytes = self
                .undo
                .bytes
                .saturating_sub(record_bytes(r.key_len, r.old.as_ref()));
            let tree = self.undo.trees[r.tree as usize].clone();
            let key = self.undo.key(&r).to_vec();
            self.undo.keys.truncate(r.key_at as usize);
            let displaced = match r.old {
                Some(v) => self.put_value(&tree, &key, v)?,
                None => self.remove_value(&tree, &key)?,
            };
            if let Some(v) = displaced {
                self.free_value(&v);
            }
        }
        self.undo.truncate(start);
        Ok(())
    }

    /// Forgets `sp` (and any newer savepoint), keeping their changes.
    pub fn release(&mut self, sp: Savepoint) -> Result<()> {
        let i = self.savepoint_index(&sp)?;
        let released = self.savepoints.drain(i..).next().expect("index is valid");
        if let Some(u) = released.undo {
            // The enclosing savepoint still needs these records when it is
            // logging, or was frozen by the same event (its snapshot is
            // later than the records).
            let needed = self.savepoints.last().is_some_and(|outer| {
                outer.undo.is_some()
                    && match (&outer.cow, &released.cow) {
                        (None, _) => true,
                        (Some(a), Some(b)) => a.gen == b.gen,
                        (Some(_), None) => false,
                    }
            });
            if !needed {
                self.undo.truncate(u.start);
                for v in self.undo.deferred.split_off(u.deferred_start) {
                    self.free_value(&v);
                }
            }
        }
        let keep_from = self.inplace_gen();
        let limbo = std::mem::take(&mut self.limbo);
        for (id, o) in limbo {
            if o.gen >= keep_from {
                self.dirty.remove(&id);
                self.free.insert(id);
            } else {
                self.limbo.push((id, o));
            }
        }
        Ok(())
    }

    /// Drops every savepoint (commit).
    pub(crate) fn clear_savepoints(&mut self) {
        self.savepoints.clear();
        let undo = std::mem::take(&mut self.undo);
        for v in &undo.deferred {
            self.free_value(v);
        }
    }

    /// Tree entries captured by open savepoints, for the accounting.
    pub(crate) fn savepoint_trees(&self) -> usize {
        self.savepoints
            .iter()
            .filter_map(|s| s.cow.as_ref())
            .map(|c| c.trees.len())
            .sum()
    }
}
