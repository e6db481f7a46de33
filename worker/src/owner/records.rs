//! The owner's bookkeeping rows in the database: the epoch in `META_TABLE`
//! and the commit records in `COMMITS_TABLE` (invariants 3 and 4 of the
//! parent module), written inside the transactions they describe.
//!
//! Cost: a commit record makes the commit write one more tree than the
//! user's changes. The table is a plain rowid table (`seq`), without an
//! index on `txn` (databases created before this kept a UNIQUE one, which
//! still works): an index would be a third tree written by every commit,
//! while "did X commit?" is asked only after a failover, where scanning the
//! at most `KEPT_COMMITS` rows is cheap. The INSERT is prepared once per
//! database.

use tinyjoin_engine::db::{Connection, Params as DbParams};
use tinyjoin_engine::{Error, Result, Value};

use super::{Owner, COMMITS_TABLE, META_TABLE};

impl Owner {
    /// Sets the stored epoch to one more than both the stored one and
    /// `at_least` (an import brings the epoch of another file), and commits.
    pub(super) fn bump_epoch(conn: &mut Connection, at_least: u32) -> Result<u32> {
        conn.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS {META_TABLE}(key TEXT PRIMARY KEY, value INTEGER NOT NULL);\
             CREATE TABLE IF NOT EXISTS {COMMITS_TABLE}(seq INTEGER PRIMARY KEY, txn TEXT NOT NULL);"
        ))?;
        conn.execute_batch("BEGIN")?;
        let r = (|| {
            let q = conn.execute(
                &format!("SELECT value FROM {META_TABLE} WHERE key = 'epoch'"),
                &DbParams::None,
            )?;
            let old = match q.rows.first().and_then(|r| r.first()) {
                Some(Value::Integer(e)) => *e,
                _ => 0,
            };
            let epoch =
                u32::try_from(old.max(i64::from(at_least)).saturating_add(1)).map_err(|_| {
                    Error::Corrupt {
                        page: 0,
                        detail: format!("owner epoch {old} out of range"),
                    }
                })?;
            conn.execute(
                &format!("INSERT OR REPLACE INTO {META_TABLE}(key, value) VALUES ('epoch', ?)"),
                &DbParams::Positional(vec![Value::Integer(i64::from(epoch))]),
            )?;
            Ok(epoch)
        })();
        match r {
            Ok(epoch) => {
                conn.execute_batch("COMMIT")?;
                Ok(epoch)
            }
            Err(e) => {
                conn.rollback_open_transaction();
                Err(e)
            }
        }
    }

    /// Inserts the commit record of `txn` (and now and then prunes old ones)
    /// inside the connection's open transaction.
    pub(super) fn record(&mut self, conn: &mut Connection, txn: &str) -> Result<()> {
        if !self.record_commits {
            return Ok(());
        }
        let seq = self.next_seq;
        let stmt = match &mut self.record_stmt {
            Some(stmt) => stmt,
            empty => empty.insert(conn.prepare(&format!(
                "INSERT INTO {COMMITS_TABLE}(seq, txn) VALUES (?, ?)"
            ))?),
        };
        stmt.execute(
            conn,
            &DbParams::Positional(vec![Value::Integer(seq), Value::Text(txn.to_string())]),
        )?;
        // A rolled-back transaction leaves a gap in the sequence; harmless.
        self.next_seq = seq.saturating_sub(1);
        self.commits_since_prune += 1;
        let (every, kept) = self.prune;
        if self.commits_since_prune >= every {
            self.commits_since_prune = 0;
            let oldest_kept = seq.saturating_add(i64::try_from(kept).unwrap_or(i64::MAX) - 1);
            conn.execute(
                &format!("DELETE FROM {COMMITS_TABLE} WHERE seq > ?"),
                &DbParams::Positional(vec![Value::Integer(oldest_kept)]),
            )?;
        }
        Ok(())
    }

    /// The sequence number of the next commit record. Records count down
    /// from -1: the record is an INSERT and moves the connection's last
    /// insert rowid, and negative rowids tell it apart from the client's
    /// own (positive, in practice) rowids (see `user_rowid`).
    pub(super) fn load_next_seq(conn: &mut Connection) -> Result<i64> {
        let q = conn.execute(
            &format!("SELECT min(seq) FROM {COMMITS_TABLE}"),
            &DbParams::None,
        )?;
        let min = match q.rows.first().and_then(|r| r.first()) {
            Some(Value::Integer(m)) => (*m).min(0),
            _ => 0,
        };
        Ok(min.saturating_sub(1))
    }
}
