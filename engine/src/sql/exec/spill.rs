//! Temp space and the external merge sort: how ORDER BY, INSERT ... SELECT
//! and CREATE INDEX handle more rows than the batch limit allows in memory
//! (CREATE INDEX sorts its byte keys with `keysort.rs`, on the same runs).
//!
//! Temp space ([`TempSpace`]) is a scratch [`Device`] the application gives
//! the database (`Database::open_with_temp`). It is not part of the
//! database file and nothing in it survives a statement: space is handed
//! out by a bump allocator in extents, so several sorters spilling at once
//! (a subquery's ORDER BY under an outer one) never share bytes, and the
//! whole device is truncated to zero when the statement ends
//! ([`ScratchGuard`]). Simplification, with its cost: space is not reused
//! within a statement, so a sort that merges in several passes uses its
//! data's size once per pass in temp space.
//!
//! A [`Sorter`] takes rows in input order and keeps them in memory up to
//! its share of the budget (a quarter of the batch limit), charged to the
//! statement ([`Budget`]). When the share is full and temp space exists,
//! it sorts them (stable) and writes them as one run: rows as records
//! (`sql/record.rs`) with a length prefix, in sequential writes of a whole
//! write buffer (64 KiB or more unless the limit is tiny), and releases
//! their charge. Without temp space the charge simply grows and fails
//! with `BatchLimitExceeded` past the limit, as before spilling existed.
//! Finishing merges the runs k-way with one bounded read buffer per run;
//! when there are more runs than the share can give read buffers, groups
//! of consecutive runs are merged into longer runs first (passes).
//!
//! Invariants:
//! 1. Runs are numbered in input order and every run holds a contiguous
//!    stretch of the input; the merge breaks ties by run number, so the
//!    sort is stable (equal rows keep their input order), exactly as the
//!    in-memory `sort_by`.
//! 2. With a `keep` bound (ORDER BY ... LIMIT), only the first `keep` rows
//!    of the sorted order can be asked for: the buffer is cut to `keep`
//!    rows whenever it reaches twice that, and every run holds at most
//!    `keep` rows. Cutting a stably sorted prefix keeps invariant 1.
//! 3. When nothing spilled, the rows are sorted in place and handed out
//!    as they are (no copy, no encoding).

use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::rc::Rc;

use super::scan::Row;
use super::select::compare_by_keys;
use super::{row_size, Budget};
use crate::sql::planner::plan::SortKey;
use crate::sql::record;
use crate::sql::value::Value;
use crate::storage::Device;
use crate::{Error, Result};

/// Smallest and largest write buffer: a run is written in pieces of this
/// size (its last piece may be shorter).
const WRITE_MIN_BYTES: u64 = 4 << 10;
const WRITE_MAX_BYTES: u64 = 256 << 10;
/// Bounds of one run's read buffer during a merge.
const READ_MIN_BYTES: u64 = 4 << 10;
const READ_MAX_BYTES: u64 = 1 << 20;
/// How many read buffers a share holds at most per merge (the fan-in is
/// this, or fewer when the share is small).
const MERGE_WAYS_MAX: u64 = 64;

/// Scratch space on a device, for the statement that is running.
pub(crate) struct TempSpace {
    device: RefCell<Box<dyn Device>>,
    /// The first byte not yet handed out.
    next: Cell<u64>,
}

impl TempSpace {
    pub(crate) fn new(device: Box<dyn Device>) -> TempSpace {
        TempSpace {
            device: RefCell::new(device),
            next: Cell::new(0),
        }
    }

    /// Writes `data` at fresh space; returns where it went.
    fn append(&self, data: &[u8]) -> Result<Extent> {
        let offset = self.next.get();
        let len = data.len() as u64;
        let end = offset
            .checked_add(len)
            .ok_or_else(|| Error::Io("temp space exhausted".into()))?;
        self.device.borrow_mut().write_at(offset, data)?;
        self.next.set(end);
        Ok(Extent { offset, len })
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.device.borrow_mut().read_at(offset, buf)
    }

    /// Forgets everything written: the next statement starts at zero.
    pub(crate) fn reset(&self) -> Result<()> {
        let used = self.next.replace(0);
        if used > 0 {
            self.device.borrow_mut().truncate(0)?;
        }
        Ok(())
    }
}

thread_local! {
    /// The temp space of the statement running on this thread, if any.
    static CURRENT: RefCell<Option<Rc<TempSpace>>> = const { RefCell::new(None) };
}

/// Makes `space` the running statement's temp space until the guard
/// drops, which empties it and restores whatever was installed before.
///
/// Why a per-thread slot rather than a parameter: the executor builds its
/// [`super::ExecCtx`] in a couple of dozen places (DML builds one per row
/// and per check); the connection knows the temp space and installs it
/// once per statement, as it sets the statement's clock
/// (`functions::set_statement_time`). The engine is single-threaded and a
/// statement never runs another one inside it.
pub(crate) fn install(space: Option<Rc<TempSpace>>) -> ScratchGuard {
    let prev = CURRENT.with(|c| c.replace(space));
    ScratchGuard { prev }
}

/// The temp space installed for the running statement.
pub(crate) fn current() -> Option<Rc<TempSpace>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Uninstalls (and empties) a statement's temp space when dropped.
pub(crate) struct ScratchGuard {
    prev: Option<Rc<TempSpace>>,
}

impl Drop for ScratchGuard {
    fn drop(&mut self) {
        let prev = self.prev.take();
        if let Some(space) = CURRENT.with(|c| c.replace(prev)) {
            // Nothing reads the scratch after its statement: a failed
            // truncate only leaves bytes the next statement overwrites
            // (its allocator starts at zero again either way).
            let _ = space.reset();
        }
    }
}

/// A contiguous piece of temp space.
#[derive(Clone, Copy, Debug)]
struct Extent {
    offset: u64,
    len: u64,
}

/// One sorted run in temp space: its pieces, in order.
#[derive(Debug, Default)]
pub(super) struct Run {
    extents: Vec<Extent>,
}

/// How a sorter orders rows.
#[derive(Clone, Debug)]
pub(crate) enum SortOrder {
    /// ORDER BY keys ([`compare_by_keys`]).
    Keys(Vec<SortKey>),
}

impl SortOrder {
    fn compare(&self, a: &[Value], b: &[Value]) -> Ordering {
        match self {
            SortOrder::Keys(keys) => compare_by_keys(a, b, keys),
        }
    }
}

/// Sizes derived from the batch limit, shared by every sorter.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shares {
    /// Bytes of rows a sorter holds before writing a run.
    pub(super) memory: u64,
    /// Write buffer size.
    pub(super) write: u64,
    /// Smallest read buffer per run in a merge.
    pub(super) read_min: u64,
    /// Most runs merged at once.
    pub(super) ways: usize,
}

impl Shares {
    pub(super) fn of(budget: &Budget) -> Shares {
        let memory = budget.memory_share();
        let write = memory.clamp(WRITE_MIN_BYTES, WRITE_MAX_BYTES);
        let read_min = (memory / MERGE_WAYS_MAX).clamp(READ_MIN_BYTES, READ_MAX_BYTES);
        let ways = (memory / read_min).clamp(2, MERGE_WAYS_MAX);
        Shares {
            memory,
            write,
            read_min,
            ways: ways as usize,
        }
    }
}

/// An external merge sort: push rows, then [`Sorter::finish`].
pub(crate) struct Sorter {
    order: Rc<SortOrder>,
    keep: Option<usize>,
    budget: Rc<Budget>,
    temp: Option<Rc<TempSpace>>,
    shares: Shares,
    rows: Vec<Row>,
    /// What `rows` is charged to the budget.
    charged: u64,
    runs: Vec<Run>,
}

impl Sorter {
    /// A sorter charging `budget`, spilling to `temp` when given. With
    /// `keep`, only the first `keep` rows of the result are wanted.
    pub(crate) fn new(
        order: SortOrder,
        keep: Option<usize>,
        budget: Rc<Budget>,
        temp: Option<Rc<TempSpace>>,
    ) -> Sorter {
        let shares = Shares::of(&budget);
        Sorter {
            order: Rc::new(order),
            keep,
            budget,
            temp,
            shares,
            rows: Vec::new(),
            charged: 0,
            runs: Vec::new(),
        }
    }

    /// Adds a row (after every row pushed before it, for stability).
    pub(crate) fn push(&mut self, row: Row) -> Result<()> {
        let size = row_size(&row);
        if self.temp.is_some()
            && !self.rows.is_empty()
            && self.charged.saturating_add(size) > self.shares.memory
        {
            self.spill()?;
        }
        self.budget.charge(size)?;
        self.charged += size;
        self.rows.push(row);
        if let Some(k) = self.keep {
            if self.rows.len() >= k.saturating_mul(2).max(64) {
                self.sort_and_cut();
            }
        }
        Ok(())
    }

    /// Sorts the buffer and cuts it to `keep` rows, releasing the rest.
    fn sort_and_cut(&mut self) {
        let order = &*self.order;
        self.rows.sort_by(|a, b| order.compare(a, b));
        if let Some(k) = self.keep {
            if self.rows.len() > k {
                let freed: u64 = self.rows[k..].iter().map(|r| row_size(r)).sum();
                self.rows.truncate(k);
                self.budget.release(freed);
                self.charged -= freed;
            }
        }
    }

    /// Writes the buffer as one sorted run and releases its charge.
    fn spill(&mut self) -> Result<()> {
        let Some(temp) = self.temp.clone() else {
            return Ok(());
        };
        self.sort_and_cut();
        let mut writer = RunWriter::new(temp, self.shares.write, &self.budget)?;
        let rows = std::mem::take(&mut self.rows);
        let written = rows.iter().try_for_each(|r| writer.push(r));
        drop(rows);
        self.budget.release(self.charged);
        self.charged = 0;
        written?;
        self.runs.push(writer.finish()?);
        Ok(())
    }

    /// The rows in order. Nothing spilled: the buffer itself, sorted in
    /// place, its charge released (the receiver charges what it keeps).
    pub(crate) fn finish(mut self) -> Result<SortedRows> {
        if self.runs.is_empty() {
            self.sort_and_cut();
            self.budget.release(self.charged);
            self.charged = 0;
            let rows = std::mem::take(&mut self.rows);
            return Ok(SortedRows::Memory(rows.into_iter()));
        }
        if !self.rows.is_empty() {
            self.spill()?;
        }
        let runs = std::mem::take(&mut self.runs);
        let (temp, runs, per_run) = merge_passes(
            self.temp.as_ref(),
            &self.budget,
            &self.shares,
            runs,
            &mut |readers, charge, writer| {
                let mut merge =
                    Merger::new(self.order.clone(), readers, self.budget.clone(), charge)?;
                let mut n = 0usize;
                while let Some(row) = merge.next_row()? {
                    writer.push(&row)?;
                    n += 1;
                    if self.keep.is_some_and(|k| n >= k) {
                        break;
                    }
                }
                Ok(())
            },
        )?;
        let (readers, charge) = open_runs(&temp, runs, per_run, &self.budget)?;
        let merge = Merger::new(self.order.clone(), readers, self.budget.clone(), charge)?;
        Ok(SortedRows::Merge(merge))
    }
}

/// Readers over `runs`, each with a read buffer of `buffer` bytes, and
/// the buffers' charge to `budget` (the merger made of them releases it).
pub(super) fn open_runs(
    temp: &Rc<TempSpace>,
    runs: Vec<Run>,
    buffer: u64,
    budget: &Budget,
) -> Result<(Vec<RunReader>, u64)> {
    let charge = buffer.saturating_mul(runs.len() as u64);
    budget.charge(charge)?;
    let readers = runs
        .into_iter()
        .map(|r| RunReader::new(temp.clone(), r, buffer as usize))
        .collect();
    Ok((readers, charge))
}

/// Merges one group's readers (and their charge) into a run writer.
pub(super) type GroupMerge<'m> = dyn FnMut(Vec<RunReader>, u64, &mut RunWriter) -> Result<()> + 'm;

/// Merge passes: while there are more runs than one merge can give a
/// read buffer each (`shares.ways`), consecutive groups of runs (so run
/// order stays input order) are merged into one longer run each by
/// `merge_group`, which gets the group's readers, their charge (for the
/// merger it builds to release) and the writer of the new run. Returns
/// the temp space (an error without one: runs cannot exist then), the
/// runs left and the read buffer each gets in the final merge.
pub(super) fn merge_passes(
    temp: Option<&Rc<TempSpace>>,
    budget: &Budget,
    shares: &Shares,
    mut runs: Vec<Run>,
    merge_group: &mut GroupMerge,
) -> Result<(Rc<TempSpace>, Vec<Run>, u64)> {
    let Some(temp) = temp.cloned() else {
        return Err(Error::Io("internal: runs without temp space".into()));
    };
    while runs.len() > shares.ways {
        let mut next = Vec::with_capacity(runs.len() / shares.ways + 1);
        let mut rest = runs.into_iter();
        loop {
            let group: Vec<Run> = rest.by_ref().take(shares.ways).collect();
            if group.is_empty() {
                break;
            }
            let (readers, charge) = open_runs(&temp, group, shares.read_min, budget)?;
            let mut writer = RunWriter::new(temp.clone(), shares.write, budget)?;
            merge_group(readers, charge, &mut writer)?;
            next.push(writer.finish()?);
        }
        runs = next;
    }
    let per_run = (shares.memory / runs.len() as u64).clamp(shares.read_min, READ_MAX_BYTES);
    Ok((temp, runs, per_run))
}

impl Drop for Sorter {
    fn drop(&mut self) {
        self.budget.release(self.charged);
    }
}

/// A sorter's output, read row by row.
pub(crate) enum SortedRows {
    /// Nothing spilled: the sorted buffer.
    Memory(std::vec::IntoIter<Row>),
    /// Runs in temp space, merged as rows are asked for.
    Merge(Merger),
    /// Rows of another source past `skip` of them, at most `take`, each
    /// cut to `visible` columns (OFFSET, LIMIT, hidden sort columns).
    Window {
        rows: Box<SortedRows>,
        skip: usize,
        take: usize,
        visible: usize,
    },
}

impl SortedRows {
    /// The next row in order.
    pub(crate) fn next_row(&mut self) -> Result<Option<Row>> {
        match self {
            SortedRows::Memory(rows) => Ok(rows.next()),
            SortedRows::Merge(m) => m.next_row(),
            SortedRows::Window {
                rows,
                skip,
                take,
                visible,
            } => {
                while *skip > 0 {
                    if rows.next_row()?.is_none() {
                        return Ok(None);
                    }
                    *skip -= 1;
                }
                if *take == 0 {
                    return Ok(None);
                }
                *take -= 1;
                let mut row = rows.next_row()?;
                if let Some(r) = &mut row {
                    r.truncate(*visible);
                }
                Ok(row)
            }
        }
    }

    /// Bytes of the rows held in memory (none once spilled).
    pub(crate) fn memory_size(&self) -> u64 {
        match self {
            SortedRows::Memory(rows) => rows.as_slice().iter().map(|r| row_size(r)).sum(),
            SortedRows::Merge(_) => 0,
            SortedRows::Window { rows, .. } => rows.memory_size(),
        }
    }

    /// These rows past `skip`, at most `take` (`usize::MAX`: all), cut to
    /// `visible` columns.
    pub(crate) fn window(self, skip: usize, take: usize, visible: usize) -> SortedRows {
        SortedRows::Window {
            rows: Box::new(self),
            skip,
            take,
            visible,
        }
    }
}

/// Writes one run through a write buffer: records, each a varint length
/// then its bytes.
pub(super) struct RunWriter<'b> {
    temp: Rc<TempSpace>,
    buf: Vec<u8>,
    record: Vec<u8>,
    size: usize,
    run: Run,
    budget: &'b Budget,
}

impl<'b> RunWriter<'b> {
    pub(super) fn new(temp: Rc<TempSpace>, size: u64, budget: &'b Budget) -> Result<RunWriter<'b>> {
        budget.charge(size)?;
        let size = size as usize;
        Ok(RunWriter {
            temp,
            buf: Vec::with_capacity(size),
            record: Vec::new(),
            size,
            run: Run::default(),
            budget,
        })
    }

    fn push(&mut self, row: &[Value]) -> Result<()> {
        let mut record = std::mem::take(&mut self.record);
        record.clear();
        record::encode_into(row, &mut record);
        let pushed = self.push_parts(&record, &[]);
        self.record = record;
        pushed
    }

    /// Appends one record made of `head` then `tail`.
    pub(super) fn push_parts(&mut self, head: &[u8], tail: &[u8]) -> Result<()> {
        record::put_varint(&mut self.buf, (head.len() + tail.len()) as u64);
        self.buf.extend_from_slice(head);
        self.buf.extend_from_slice(tail);
        if self.buf.len() >= self.size {
            self.write()?;
        }
        Ok(())
    }

    fn write(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.run.extents.push(self.temp.append(&self.buf)?);
            self.buf.clear();
        }
        Ok(())
    }

    pub(super) fn finish(mut self) -> Result<Run> {
        self.write()?;
        Ok(std::mem::take(&mut self.run))
    }
}

impl Drop for RunWriter<'_> {
    fn drop(&mut self) {
        self.budget.release(self.size as u64);
    }
}

/// Reads one run's records back through a bounded buffer.
pub(super) struct RunReader {
    temp: Rc<TempSpace>,
    run: Run,
    /// Next extent to read from, and how far into it.
    extent: usize,
    extent_pos: u64,
    buf: Vec<u8>,
    pos: usize,
    capacity: usize,
}

impl RunReader {
    pub(super) fn new(temp: Rc<TempSpace>, run: Run, capacity: usize) -> RunReader {
        RunReader {
            temp,
            run,
            extent: 0,
            extent_pos: 0,
            buf: Vec::with_capacity(capacity),
            pos: 0,
            capacity,
        }
    }

    /// Makes at least `need` unread bytes available when the run has
    /// them, reading a whole buffer (or more, for a long record) at once.
    fn fill(&mut self, need: usize) -> Result<()> {
        if self.buf.len() - self.pos >= need {
            return Ok(());
        }
        self.buf.drain(..self.pos);
        self.pos = 0;
        let target = need.max(self.capacity);
        while self.buf.len() < target {
            let Some(e) = self.run.extents.get(self.extent).copied() else {
                break;
            };
            let left = e.len - self.extent_pos;
            let n = left.min((target - self.buf.len()) as u64) as usize;
            let start = self.buf.len();
            self.buf.resize(start + n, 0);
            self.temp
                .read(e.offset + self.extent_pos, &mut self.buf[start..])?;
            self.extent_pos += n as u64;
            if self.extent_pos == e.len {
                self.extent += 1;
                self.extent_pos = 0;
            }
        }
        Ok(())
    }

    fn next_row(&mut self) -> Result<Option<Row>> {
        let Some(bytes) = self.next_bytes()? else {
            return Ok(None);
        };
        let row =
            record::decode(bytes).map_err(|e| Error::Io(format!("temp space: bad record: {e}")))?;
        Ok(Some(row))
    }

    /// The next record's bytes; `None` at the run's end.
    pub(super) fn next_bytes(&mut self) -> Result<Option<&[u8]>> {
        self.fill(VARINT_MAX_LEN)?;
        if self.pos == self.buf.len() {
            return Ok(None);
        }
        let mut p = self.pos;
        let len = record::get_varint(&self.buf, &mut p)
            .map_err(|_| Error::Io("temp space: bad record length".into()))?;
        let len =
            usize::try_from(len).map_err(|_| Error::Io("temp space: record too long".into()))?;
        self.pos = p;
        self.fill(len)?;
        let start = self.pos;
        let end = start + len;
        if end > self.buf.len() {
            return Err(Error::Io("temp space: run ends inside a record".into()));
        }
        self.pos = end;
        Ok(Some(&self.buf[start..end]))
    }
}

/// The longest varint a record length can take.
const VARINT_MAX_LEN: usize = 10;

/// A k-way merge of runs: a binary heap of run numbers ordered by each
/// run's current row, ties by run number (stability).
pub(crate) struct Merger {
    order: Rc<SortOrder>,
    readers: Vec<RunReader>,
    heads: Vec<Option<Row>>,
    heap: Vec<usize>,
    budget: Rc<Budget>,
    charged: u64,
}

impl Merger {
    fn new(
        order: Rc<SortOrder>,
        mut readers: Vec<RunReader>,
        budget: Rc<Budget>,
        charged: u64,
    ) -> Result<Merger> {
        let mut heads = Vec::with_capacity(readers.len());
        for r in &mut readers {
            heads.push(r.next_row()?);
        }
        let mut m = Merger {
            order,
            readers,
            heads,
            heap: Vec::new(),
            budget,
            charged,
        };
        for i in 0..m.heads.len() {
            if m.heads[i].is_some() {
                m.heap.push(i);
                let (last, order, heads) = (m.heap.len() - 1, &m.order, &m.heads);
                sift_up(&mut m.heap, last, |a, b| before(order, heads, a, b));
            }
        }
        Ok(m)
    }

    fn next_row(&mut self) -> Result<Option<Row>> {
        let Some(&top) = self.heap.first() else {
            return Ok(None);
        };
        let row = self.heads[top].take();
        self.heads[top] = self.readers[top].next_row()?;
        if self.heads[top].is_none() {
            let last = self.heap.len() - 1;
            self.heap.swap(0, last);
            self.heap.pop();
        }
        let (order, heads) = (&self.order, &self.heads);
        sift_down(&mut self.heap, 0, |a, b| before(order, heads, a, b));
        Ok(row)
    }
}

/// True when run `a`'s head row comes before run `b`'s, ties by run
/// number (stability).
fn before(order: &SortOrder, heads: &[Option<Row>], a: usize, b: usize) -> bool {
    let ord = match (&heads[a], &heads[b]) {
        (Some(x), Some(y)) => order.compare(x, y),
        _ => Ordering::Equal,
    };
    ord.then(a.cmp(&b)) == Ordering::Less
}

/// Restores a binary heap of run numbers (`before(a, b)`: run `a` comes
/// first) after `heap[i]` got an earlier head.
pub(super) fn sift_up(heap: &mut [usize], mut i: usize, before: impl Fn(usize, usize) -> bool) {
    while i > 0 {
        let parent = (i - 1) / 2;
        if !before(heap[i], heap[parent]) {
            break;
        }
        heap.swap(i, parent);
        i = parent;
    }
}

/// Restores the heap after `heap[i]` got a later head.
pub(super) fn sift_down(heap: &mut [usize], mut i: usize, before: impl Fn(usize, usize) -> bool) {
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut best = i;
        if l < heap.len() && before(heap[l], heap[best]) {
            best = l;
        }
        if r < heap.len() && before(heap[r], heap[best]) {
            best = r;
        }
        if best == i {
            return;
        }
        heap.swap(i, best);
        i = best;
    }
}

impl Drop for Merger {
    fn drop(&mut self) {
        self.budget.release(self.charged);
    }
}

#[cfg(test)]
mod tests {
    //! The spilled sort against the in-memory stable sort, over random
    //! rows (every value type, many ties), keys and budgets; and device
    //! errors surfacing as errors.

    use super::*;
    use crate::sql::value::Collation;
    use crate::storage::MemoryDevice;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn random_value(rng: &mut SmallRng) -> Value {
        match rng.gen_range(0..6) {
            0 => Value::Null,
            1 => Value::Integer(rng.gen_range(-3..4)),
            2 => Value::Real(f64::from(rng.gen_range(-3..4)) / 2.0),
            3 => {
                let len = rng.gen_range(0..40);
                let s: String = (0..len)
                    .map(|_| *b"aAbB c".get(rng.gen_range(0..6)).unwrap_or(&b'a') as char)
                    .collect();
                Value::Text(s)
            }
            4 => Value::Blob((0..rng.gen_range(0..30)).map(|_| rng.gen()).collect()),
            _ => Value::Text("x".repeat(rng.gen_range(0..3000))),
        }
    }

    fn random_keys(rng: &mut SmallRng, width: usize) -> Vec<SortKey> {
        let collations = [Collation::Binary, Collation::NoCase, Collation::RTrim];
        (0..rng.gen_range(0..3))
            .map(|_| SortKey {
                column: rng.gen_range(0..width),
                desc: rng.gen(),
                nulls_first: rng.gen(),
                collation: collations[rng.gen_range(0..collations.len())],
            })
            .collect()
    }

    fn drain(mut rows: SortedRows) -> Vec<Row> {
        let mut out = Vec::new();
        while let Some(r) = rows.next_row().unwrap() {
            out.push(r);
        }
        out
    }

    #[test]
    fn spilled_sort_equals_the_stable_in_memory_sort() {
        let mut rng = SmallRng::seed_from_u64(0x5011);
        let mut spills = 0;
        for case in 0..60 {
            let width = 3;
            let n = rng.gen_range(0..3000);
            // Column 2 numbers the rows, so a tie shows its input order.
            let rows: Vec<Row> = (0..n)
                .map(|i| {
                    vec![
                        random_value(&mut rng),
                        random_value(&mut rng),
                        Value::Integer(i),
                    ]
                })
                .collect();
            let keys = random_keys(&mut rng, width - 1);
            let keep = rng.gen_bool(0.3).then(|| rng.gen_range(0..2000));
            let limit = [32u64 << 10, 64 << 10, 256 << 10][rng.gen_range(0..3)];
            let mut expected = rows.clone();
            expected.sort_by(|a, b| compare_by_keys(a, b, &keys));
            if let Some(k) = keep {
                expected.truncate(k);
            }
            let budget = Rc::new(Budget::new(limit));
            let temp = Rc::new(TempSpace::new(Box::new(MemoryDevice::new())));
            let mut sorter = Sorter::new(
                SortOrder::Keys(keys.clone()),
                keep,
                budget.clone(),
                Some(temp.clone()),
            );
            for r in rows {
                sorter.push(r).unwrap();
            }
            let spilled = !sorter.runs.is_empty();
            spills += usize::from(spilled);
            let mut got = drain(sorter.finish().unwrap());
            if let Some(k) = keep {
                got.truncate(k);
            }
            assert_eq!(
                got, expected,
                "case {case}: {n} rows, keys {keys:?}, limit {limit}, spilled {spilled}"
            );
            assert_eq!(budget.used.get(), 0, "case {case}: every charge released");
            temp.reset().unwrap();
        }
        assert!(spills >= 20, "only {spills} cases spilled");
    }

    #[test]
    fn many_runs_merge_in_passes() {
        // 32 KiB limit: 8 KiB of rows a run, two runs merged at once.
        let budget = Rc::new(Budget::new(32 << 10));
        let temp = Rc::new(TempSpace::new(Box::new(MemoryDevice::new())));
        let keys = vec![SortKey {
            column: 0,
            desc: true,
            nulls_first: false,
            collation: Collation::Binary,
        }];
        let mut sorter = Sorter::new(SortOrder::Keys(keys), None, budget.clone(), Some(temp));
        for i in 0..5000i64 {
            sorter
                .push(vec![Value::Integer(i % 97), Value::Integer(i)])
                .unwrap();
        }
        assert!(sorter.runs.len() > 8, "{} runs", sorter.runs.len());
        let got = drain(sorter.finish().unwrap());
        let mut expected: Vec<Row> = (0..5000i64)
            .map(|i| vec![Value::Integer(i % 97), Value::Integer(i)])
            .collect();
        expected.sort_by(|a, b| match (&b[0], &a[0]) {
            (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
            _ => Ordering::Equal,
        });
        assert_eq!(got, expected);
        assert_eq!(budget.used.get(), 0);
    }

    /// A device that fails every write.
    struct Failing;

    impl Device for Failing {
        fn read_at(&mut self, _: u64, buf: &mut [u8]) -> Result<()> {
            buf.fill(0);
            Ok(())
        }
        fn write_at(&mut self, _: u64, _: &[u8]) -> Result<()> {
            Err(Error::Io("no space for you".into()))
        }
        fn flush(&mut self) -> Result<()> {
            Ok(())
        }
        fn len(&mut self) -> Result<u64> {
            Ok(0)
        }
        fn truncate(&mut self, _: u64) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failing_device_is_an_io_error() {
        let budget = Rc::new(Budget::new(32 << 10));
        let temp = Rc::new(TempSpace::new(Box::new(Failing)));
        let mut sorter = Sorter::new(
            SortOrder::Keys(Vec::new()),
            None,
            budget.clone(),
            Some(temp),
        );
        let r = (0..5000i64).try_for_each(|i| sorter.push(vec![Value::Integer(i)]));
        assert!(matches!(r, Err(Error::Io(_))), "{r:?}");
        drop(sorter);
        assert_eq!(budget.used.get(), 0);
    }
}
