//! B+tree nodes: the decoded, in-memory form ([`Node`]) and its page
//! encoding. Clean nodes are decoded once and shared from the page cache;
//! a write transaction clones a node before changing it (copy-on-write) and
//! encodes it again when it commits or spills.
//!
//! Page layouts (byte diagrams in FORMAT.md):
//! - leaf: header, `count` u16 slot offsets, then entries `[head][key][value]`,
//!   the head one of (by its first byte, the tag): `0 | klen u16 | vlen u16`,
//!   `1 | klen u16 | len u64 | first u64` (overflow value), `2 | klen u8 |
//!   vlen u8`, `3 | klen u8 | vlen u16`, or a tag of 4 to 255 alone: a key of
//!   `tag - 4` bytes and an empty value (an index entry). The writer takes
//!   the shortest head that fits ([`inline_head`]).
//! - branch: header, `child0` u64, `count` u16 slot offsets, then entries
//!   `[klen u16][child u64][key]`; keys in child `i + 1` are >= key `i`, keys in
//!   child `i` are < key `i`.
//!
//! Decoding checks every length and offset and that keys are strictly
//! increasing, so a damaged page is `Corrupt`, never a panic or a wrong answer.

use super::format::*;
use crate::{corrupt, Error, Result};

/// Where a leaf entry's value lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeafValue {
    Inline(Vec<u8>),
    /// `len` bytes in consecutive overflow pages starting at `first`.
    Overflow {
        len: u64,
        first: PageId,
    },
}

impl LeafValue {
    /// This value, borrowed.
    pub fn as_raw(&self) -> RawValue<'_> {
        match self {
            LeafValue::Inline(v) => RawValue::Inline(v),
            LeafValue::Overflow { len, first } => RawValue::Overflow {
                len: *len,
                first: *first,
            },
        }
    }
}

/// The first 8 bytes of `key` as a big-endian word, zero-padded. When two
/// keys' prefixes differ they order as the keys do (a zero pad only ties
/// with a real zero byte), so searches compare prefixes first and read the
/// key bytes only on a tie.
#[inline]
pub fn key_prefix(key: &[u8]) -> u64 {
    if let Some(w) = key.first_chunk::<8>() {
        return u64::from_be_bytes(*w);
    }
    // Shorter keys: byte by byte (a variable-length copy is a library
    // call, and this runs on every comparison of a search).
    let mut w = 0u64;
    for (i, b) in key.iter().enumerate() {
        w |= u64::from(*b) << (56 - 8 * i);
    }
    w
}

/// Bytewise order of two keys whose [`key_prefix`]es are equal (so their
/// first `min(8, shorter length)` bytes are equal): [`cmp_keys`] from the
/// ninth byte on.
#[inline]
pub fn cmp_after_prefix(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    cmp_keys_from(a, b, 8.min(n))
}

/// Bytewise order of two keys (the order of `a.cmp(b)`) without a library
/// call: a slice comparison is one, and in wasm that memcmp steps a byte at
/// a time.
#[inline]
pub fn cmp_keys(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    cmp_keys_from(a, b, 0)
}

/// [`cmp_keys`] of two keys known equal before byte `at`. Words are
/// compared for equality as loaded (little-endian); in the first differing
/// word, the lowest set bit of their XOR falls in the first differing byte,
/// and those two bytes decide (wasm has no byte-swap instruction, and
/// swapping every word cost more than the byte loop it replaced). The tail
/// of fewer than eight bytes goes byte by byte.
#[inline]
pub fn cmp_keys_from(a: &[u8], b: &[u8], mut at: usize) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    while at + 8 <= n {
        let x = u64::from_le_bytes(a[at..at + 8].try_into().expect("8 bytes"));
        let y = u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        if x != y {
            let shift = (x ^ y).trailing_zeros() & !7;
            return ((x >> shift) as u8).cmp(&((y >> shift) as u8));
        }
        at += 8;
    }
    while at < n {
        if a[at] != b[at] {
            return a[at].cmp(&b[at]);
        }
        at += 1;
    }
    a.len().cmp(&b.len())
}

/// The first eight bytes of `key` as a little-endian word, zero-padded.
#[inline]
fn le_word(key: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    for (d, s) in w.iter_mut().zip(key) {
        *d = *s;
    }
    u64::from_le_bytes(w)
}

/// The eight bytes of `page` from where `key`, a slice of it, starts:
/// bytes past a shorter key included, for the caller to mask. `None` near
/// the page's end, and for an empty key read from a damaged entry, which
/// lies outside the page.
#[inline(always)]
fn page_word(page: &[u8; PAGE_SIZE], key: &[u8]) -> Option<[u8; 8]> {
    let at = (key.as_ptr() as usize).wrapping_sub(page.as_ptr() as usize);
    page.get(at..at.wrapping_add(8))?.try_into().ok()
}

/// [`cmp_keys`] of `k`, a key on `page`, and `probe`, whose [`le_word`]
/// is `word`: their first eight bytes compared as words, `k`'s loaded from
/// the page whatever its length (the bytes past a shorter key masked off).
#[inline(always)]
fn cmp_page_key(page: &[u8; PAGE_SIZE], k: &[u8], probe: &[u8], word: u64) -> std::cmp::Ordering {
    let Some(w) = page_word(page, k) else {
        return cmp_keys(k, probe);
    };
    let n = k.len().min(probe.len());
    let mask = match n {
        0..=7 => (1u64 << (8 * n)) - 1,
        _ => u64::MAX,
    };
    let (x, y) = (u64::from_le_bytes(w) & mask, word & mask);
    if x != y {
        // The lowest set bit of the XOR falls in the first differing byte.
        let shift = (x ^ y).trailing_zeros() & !7;
        return ((x >> shift) as u8).cmp(&((y >> shift) as u8));
    }
    match n {
        0..=7 => k.len().cmp(&probe.len()),
        _ => cmp_keys_from(k, probe, 8),
    }
}

/// Spare capacity of page-sized arenas: with it, two arenas allocated
/// back to back are not a multiple of 4 KiB (+8) apart, the distance at
/// which memcpy between them collapses (see DESIGN's machine facts).
const ARENA_SLACK: usize = 64;

/// A zeroed page buffer meant to become a leaf arena ([`Node::decode_owned`]).
pub fn page_vec(page: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(PAGE_SIZE + ARENA_SLACK);
    v.extend_from_slice(&page[..PAGE_SIZE.min(page.len())]);
    v.resize(PAGE_SIZE, 0);
    v
}

/// Fixed part of a branch entry: klen + child.
const BRANCH_ENTRY_FIXED: usize = 10;
const SLOT_LEN: usize = 2;
const BRANCH_CHILD0_OFFSET: usize = PAGE_HEADER_LEN;
pub(crate) const BRANCH_SLOTS_OFFSET: usize = BRANCH_CHILD0_OFFSET + 8;
pub(crate) const LEAF_SLOTS_OFFSET: usize = PAGE_HEADER_LEN;

/// Largest leaf entry (slot included) stored inline; larger values overflow.
/// Two such entries always fit one leaf, so a split always succeeds.
pub const MAX_INLINE_ENTRY: usize = (PAGE_SIZE - PAGE_HEADER_LEN) / 2;

/// Leaf entry tags (an entry's first byte): a value inline with u16
/// lengths, an overflow reference, a value inline with a u8 key length and
/// a u8 or u16 value length; every tag from [`TAG_KEY_ONLY`] up is a key of
/// `tag - TAG_KEY_ONLY` bytes with an empty value.
const TAG_INLINE: u8 = 0;
const TAG_OVERFLOW: u8 = 1;
const TAG_SHORT: u8 = 2;
const TAG_SHORT_WIDE: u8 = 3;
const TAG_KEY_ONLY: u8 = 4;
/// Longest key a one-byte head holds.
const KEY_ONLY_MAX: usize = (u8::MAX - TAG_KEY_ONLY) as usize;

/// Bytes of the head the writer gives an inline entry: the shortest form
/// its key and value lengths fit.
#[inline]
pub(crate) fn inline_head(klen: usize, vlen: usize) -> usize {
    match (klen, vlen) {
        (0..=KEY_ONLY_MAX, 0) => 1,
        (0..=255, 0..=255) => 3,
        (0..=255, _) => 4,
        _ => 5,
    }
}

/// Whether a value of `vlen` bytes under a key of `klen` bytes stays inline.
/// The single decision point: insert and the checker must agree on it.
pub fn value_is_inline(klen: usize, vlen: usize) -> bool {
    SLOT_LEN + inline_head(klen, vlen) + klen + vlen <= MAX_INLINE_ENTRY
}

/// Number of overflow pages that hold `len` bytes.
pub fn overflow_pages(len: u64) -> u64 {
    len.div_ceil(OVERFLOW_PAYLOAD_LEN as u64)
}

/// A leaf: sorted keys and their values, kept compact: every key and
/// inline value lives in one byte arena (`data`), addressed by a slot per
/// entry in key order. Decoding a page costs two allocations, and so does
/// the copy a write makes before changing a shared node. Bytes of replaced
/// or removed entries stay in the arena as `garbage` until it is compacted.
/// The encoded size is kept up to date by every change, so the overflow
/// check after an insert is O(1).
///
/// A leaf decoded from a trusted page (the pager trusts pages once full
/// validation passed: see `Pager::trust_order`) starts in page form: `data`
/// is the page itself, `raw` counts its entries, `slots` is empty and
/// entries are read through the page's own slot array, each checked as it
/// is read ([`page_slot`]), so a cache miss costs no per-entry work. The
/// first change builds the slots and the size (`own`).
#[derive(Debug)]
pub struct Leaf {
    data: Vec<u8>,
    slots: Vec<Slot>,
    /// [`key_prefix`] of each slot's key, in their own array so a search
    /// touches 8 bytes per step (always as long as `slots`).
    prefixes: Vec<u64>,
    /// Entries while in page form (0 once `slots` holds them).
    raw: usize,
    /// The encoded size; not kept in page form (see `encoded_size`).
    size: usize,
    garbage: usize,
}

/// Where an entry's key and value sit in the arena: 16 bytes, so that
/// inserting into or removing from the middle of a leaf's slot array moves
/// little. An overflow value's reference (its length and first page, u64
/// LE each, as on the page) lies in the arena like an inline value's bytes.
#[derive(Clone, Copy, Debug)]
struct Slot {
    key_at: u32,
    /// At most `MAX_KEY_LEN`.
    key_len: u16,
    overflow: bool,
    /// Bytes of the record's head, before the key (the overflow reference
    /// included).
    head: u8,
    value_at: u32,
    /// The value's bytes in the arena: an inline value's length, or
    /// [`OVERFLOW_REF_LEN`].
    value_len: u32,
}

/// The bytes of an overflow reference: length and first page, u64 each.
const OVERFLOW_REF_LEN: u32 = 16;
/// Bytes of an overflow entry's head: tag, klen u16 and the reference.
const OVERFLOW_HEAD: u32 = 3 + OVERFLOW_REF_LEN;

const _: () = assert!(std::mem::size_of::<Slot>() == 16);

/// A branch: `keys.len() + 1` children, encoded size kept up to date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    keys: Vec<Vec<u8>>,
    /// [`key_prefix`] of each key, searched before the keys themselves.
    prefixes: Vec<u64>,
    children: Vec<PageId>,
    size: usize,
}

/// Encoded size of a leaf entry, slot included.
pub fn leaf_entry_size(key: &[u8], value: RawValue<'_>) -> usize {
    SLOT_LEN
        + match value {
            RawValue::Inline(v) => inline_head(key.len(), v.len()) + key.len() + v.len(),
            RawValue::Overflow { .. } => OVERFLOW_HEAD as usize + key.len(),
        }
}

pub fn branch_entry_size(key: &[u8]) -> usize {
    SLOT_LEN + BRANCH_ENTRY_FIXED + key.len()
}

impl Leaf {
    pub fn new(entries: Vec<(Vec<u8>, LeafValue)>) -> Leaf {
        let mut l = Leaf::with_capacity(entries.len());
        for (k, v) in &entries {
            l.push(k, v.as_raw());
        }
        l
    }

    fn with_capacity(entries: usize) -> Leaf {
        Leaf {
            data: Vec::new(),
            slots: Vec::with_capacity(entries),
            prefixes: Vec::with_capacity(entries),
            raw: 0,
            size: LEAF_SLOTS_OFFSET,
            garbage: 0,
        }
    }

    /// Entry `i`'s slot, from `slots` or, in page form, from the page.
    #[inline]
    fn slot(&self, i: usize) -> Slot {
        if self.raw == 0 {
            return self.slots[i];
        }
        let (page, at) = self.page_entry_at(i);
        page_slot(page, at)
    }

    /// A page-form leaf's page and where entry `i`'s record starts on it.
    /// The page as an array: the checks of [`page_entry`] and [`page_slot`]
    /// are against its constant length, which lets the compiler drop the
    /// slicing's own.
    #[inline(always)]
    fn page_entry_at(&self, i: usize) -> (&[u8; PAGE_SIZE], usize) {
        let page = self
            .data
            .first_chunk::<PAGE_SIZE>()
            .expect("a page-form leaf's arena holds its page");
        let at = LEAF_SLOTS_OFFSET + SLOT_LEN * i;
        (page, u16::from_le_bytes([page[at], page[at + 1]]) as usize)
    }

    /// Leaves page form: builds the slots a change needs, and that make
    /// searches of a hot leaf faster (the pager calls it for leaves hit
    /// again while still cached).
    pub fn own(&mut self) {
        if self.raw == 0 {
            return;
        }
        let mut slots = Vec::with_capacity(self.raw);
        let mut prefixes = Vec::with_capacity(self.raw);
        let mut size = LEAF_SLOTS_OFFSET;
        for i in 0..self.raw {
            let (page, at) = self.page_entry_at(i);
            let s = page_slot(page, at);
            let key = s.key(page);
            // The key's prefix from a word of the page, the bytes past a
            // shorter key masked off: no byte loop.
            let prefix = match page_word(page, key) {
                Some(w) if key.len() < 8 => u64::from_be_bytes(w) & !(u64::MAX >> (8 * key.len())),
                Some(w) => u64::from_be_bytes(w),
                None => key_prefix(key),
            };
            prefixes.push(prefix);
            size += s.entry_size();
            slots.push(s);
        }
        self.slots = slots;
        self.prefixes = prefixes;
        self.raw = 0;
        self.size = size;
        debug_assert_eq!(self.size, self.recounted_size());
    }

    /// Appends an entry after every other (the caller keeps keys sorted).
    fn push(&mut self, key: &[u8], value: RawValue<'_>) {
        self.own();
        let slot = self.store(key, value);
        self.slots.push(slot);
        self.prefixes.push(key_prefix(key));
    }

    /// Copies an entry into the arena as a whole record and accounts for
    /// its size.
    fn store(&mut self, key: &[u8], value: RawValue<'_>) -> Slot {
        let slot = write_record(&mut self.data, key.len(), value, |d| {
            d.extend_from_slice(key)
        });
        self.size += slot.entry_size();
        slot
    }

    pub fn len(&self) -> usize {
        self.raw + self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The encoded size: kept by every change, counted entry by entry
    /// while in page form (until the first change, which builds the slots).
    #[inline]
    pub fn encoded_size(&self) -> usize {
        match self.raw {
            0 => self.size,
            _ => self.recounted_size(),
        }
    }

    /// Key `i`.
    pub fn key(&self, i: usize) -> &[u8] {
        self.entry(i).0
    }

    /// Value `i`, borrowed.
    pub fn value(&self, i: usize) -> RawValue<'_> {
        self.entry(i).1
    }

    /// Entry `i`, borrowed.
    #[inline]
    pub fn entry(&self, i: usize) -> (&[u8], RawValue<'_>) {
        if self.raw > 0 {
            let (page, at) = self.page_entry_at(i);
            return page_entry(page, at);
        }
        let s = self.slots[i];
        (s.key(&self.data), s.value(&self.data))
    }

    /// Every entry in key order, borrowed.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&[u8], RawValue<'_>)> + '_ {
        (0..self.len()).map(|i| self.entry(i))
    }

    /// Encoded size of entry `i`, slot included.
    pub fn entry_size(&self, i: usize) -> usize {
        self.slot(i).entry_size()
    }

    /// Index of `key`, or where it would be inserted.
    pub fn search(&self, key: &[u8]) -> Result<usize, usize> {
        if self.raw > 0 {
            // Page form has no prefixes: each key's first eight bytes are
            // loaded from the page as one word (past the key when it is
            // shorter, masked off) and compared with the probe's without
            // the byte swap a prefix costs in wasm.
            let word = le_word(key);
            let (mut lo, mut hi) = (0, self.raw);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let (page, at) = self.page_entry_at(mid);
                let k = page_entry(page, at).0;
                match cmp_page_key(page, k, key, word) {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => return Ok(mid),
                }
            }
            return Err(lo);
        }
        let p = key_prefix(key);
        let (mut lo, mut hi) = (0, self.slots.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let ord = self.prefixes[mid]
                .cmp(&p)
                .then_with(|| cmp_after_prefix(self.key(mid), key));
            match ord {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    pub fn insert(&mut self, i: usize, key: &[u8], value: LeafValue) {
        self.insert_raw(i, key, value.as_raw());
    }

    /// [`Leaf::insert`] with a borrowed value.
    pub fn insert_raw(&mut self, i: usize, key: &[u8], value: RawValue<'_>) {
        self.own();
        let slot = self.store(key, value);
        self.slots.insert(i, slot);
        self.prefixes.insert(i, key_prefix(key));
    }

    /// Replaces entry `i`'s value, returning the old one.
    pub fn replace(&mut self, i: usize, value: LeafValue) -> LeafValue {
        self.replace_raw(i, value.as_raw(), true)
    }

    /// [`Leaf::replace`] with a borrowed value. The old value comes back
    /// whole when it is an overflow reference (its pages are the caller's
    /// to free) or `keep_inline` says so (an undo log keeps it); otherwise
    /// an inline one comes back empty, saving its copy.
    pub fn replace_raw(&mut self, i: usize, value: RawValue<'_>, keep_inline: bool) -> LeafValue {
        self.own();
        let old = match self.value(i) {
            RawValue::Inline(_) if !keep_inline => LeafValue::Inline(Vec::new()),
            v => v.to_owned(),
        };
        let was = self.slots[i];
        self.garbage += was.arena_len();
        // A new record, key copied too: records stay whole (see `Slot::record`).
        let key = was.key_at as usize..was.key_at as usize + was.key_len as usize;
        let slot = write_record(&mut self.data, key.len(), value, |d| {
            d.extend_from_within(key)
        });
        self.size = self.size + slot.entry_size() - was.entry_size();
        self.slots[i] = slot;
        self.maybe_compact();
        old
    }

    /// Removes entry `i`, returning its value (the caller has the key).
    pub fn remove(&mut self, i: usize) -> LeafValue {
        self.own();
        let value = self.value(i).to_owned();
        self.size -= self.entry_size(i);
        let s = self.slots.remove(i);
        self.prefixes.remove(i);
        self.garbage += s.arena_len();
        self.maybe_compact();
        value
    }

    /// Index of `key` among entries `from..` of a leaf out of page form
    /// (the caller knows no earlier entry is greater), or where it would
    /// be inserted.
    fn search_from(&self, from: usize, key: &[u8]) -> Result<usize, usize> {
        debug_assert_eq!(self.raw, 0);
        let p = key_prefix(key);
        let (mut lo, mut hi) = (from, self.slots.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let ord = self.prefixes[mid]
                .cmp(&p)
                .then_with(|| cmp_after_prefix(self.slots[mid].key(&self.data), key));
            match ord {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    /// Removes the entries of `keys` (ascending, all within this leaf's
    /// range) while the leaf stays at least `min_size` bytes, closing the
    /// slot array's gaps in one pass rather than shifting it once per
    /// entry. Each removed entry's index in `keys` and value go to
    /// `removed`. Returns how many of `keys`, from the first, were dealt
    /// with (removed, or not in the leaf); 0 when the first one's removal
    /// would underfill it.
    pub fn remove_run(
        &mut self,
        keys: &[&[u8]],
        min_size: usize,
        removed: &mut Vec<(usize, LeafValue)>,
    ) -> usize {
        self.own();
        let mut gone: Vec<usize> = Vec::new();
        let (mut from, mut size, mut done) = (0, self.size, keys.len());
        for (k, key) in keys.iter().enumerate() {
            match self.search_from(from, key) {
                Ok(i) => {
                    let s = self.slots[i];
                    if size - s.entry_size() < min_size {
                        done = k;
                        break;
                    }
                    size -= s.entry_size();
                    self.garbage += s.arena_len();
                    removed.push((k, s.value(&self.data).to_owned()));
                    gone.push(i);
                    from = i + 1;
                }
                // Not in the leaf (or a repeat of a key just removed).
                Err(i) => from = i,
            }
        }
        if let Some(&first) = gone.first() {
            let len = self.slots.len();
            let mut to = first;
            for (j, &i) in gone.iter().enumerate() {
                let end = gone.get(j + 1).copied().unwrap_or(len);
                self.slots.copy_within(i + 1..end, to);
                self.prefixes.copy_within(i + 1..end, to);
                to += end - (i + 1);
            }
            self.slots.truncate(to);
            self.prefixes.truncate(to);
            self.size = size;
            self.maybe_compact();
        }
        debug_assert_eq!(self.size, self.recounted_size());
        done
    }

    /// Inserts `keys` (ascending, all within this leaf's range) with empty
    /// values while the leaf stays at most `max_size` bytes, moving each
    /// slot once rather than shifting the slot array once per entry.
    /// Stops at a key already in the leaf or repeated (a replacement is
    /// the caller's, one by one). Returns how many of `keys`, from the
    /// first, were inserted.
    pub fn insert_run(&mut self, keys: &[&[u8]], max_size: usize) -> usize {
        self.own();
        // Each new entry's place among the old ones, its slot and prefix.
        let mut new: Vec<(usize, Slot, u64)> = Vec::new();
        let mut from = 0;
        for (k, key) in keys.iter().enumerate() {
            if k > 0 && keys[k - 1] == *key {
                break;
            }
            let Err(i) = self.search_from(from, key) else {
                break;
            };
            if self.size + leaf_entry_size(key, RawValue::Inline(&[])) > max_size {
                break;
            }
            new.push((i, self.store(key, RawValue::Inline(&[])), key_prefix(key)));
            from = i;
        }
        // From the back: the old entries after each new one move up by the
        // number of new ones at or before it.
        let old = self.slots.len();
        if let Some(&(_, slot, _)) = new.first() {
            self.slots.resize(old + new.len(), slot);
            self.prefixes.resize(old + new.len(), 0);
        }
        let mut end = old;
        for (j, &(i, slot, prefix)) in new.iter().enumerate().rev() {
            self.slots.copy_within(i..end, i + j + 1);
            self.prefixes.copy_within(i..end, i + j + 1);
            self.slots[i + j] = slot;
            self.prefixes[i + j] = prefix;
            end = i;
        }
        debug_assert_eq!(self.size, self.recounted_size());
        new.len()
    }

    /// Rebuilds the arena once most of it is garbage.
    fn maybe_compact(&mut self) {
        if self.garbage > PAGE_SIZE / 2 && self.garbage * 2 > self.data.len() {
            self.data = rebase(&mut self.slots, &self.data);
            self.garbage = 0;
        }
    }

    /// The encoded size recounted from the entries: a page-form leaf's,
    /// and what the running `size` bookkeeping is checked against. Out of
    /// line: callers of `encoded_size` mostly hold leaves a change took out
    /// of page form.
    #[inline(never)]
    fn recounted_size(&self) -> usize {
        LEAF_SLOTS_OFFSET + (0..self.len()).map(|i| self.entry_size(i)).sum::<usize>()
    }

    /// Moves entries `at..` into a new leaf. Both halves get an arena of
    /// their own live bytes (as a freshly built leaf has, so a split leaves
    /// no garbage behind), made by moving the slots and copying each
    /// entry's bytes once.
    pub fn split_off(&mut self, at: usize) -> Leaf {
        self.own();
        let mut right = Leaf {
            data: Vec::new(),
            slots: self.slots.split_off(at),
            prefixes: self.prefixes.split_off(at),
            raw: 0,
            size: 0,
            garbage: 0,
        };
        right.size = right.recounted_size();
        self.size -= right.size - LEAF_SLOTS_OFFSET;
        right.data = rebase(&mut right.slots, &self.data);
        self.data = rebase(&mut self.slots, &self.data);
        self.garbage = 0;
        right
    }

    /// Appends all of `other`'s entries (which sort after this leaf's).
    pub fn append(&mut self, other: Leaf) {
        for (k, v) in other.iter() {
            self.push(k, v);
        }
    }
}

/// A compact arena for `slots`, whose bytes are in `old`: each slot's
/// record copied once, the slot pointed at its new place.
fn rebase(slots: &mut [Slot], old: &[u8]) -> Vec<u8> {
    let bytes: usize = slots.iter().map(|s| s.arena_len()).sum();
    let mut data = Vec::with_capacity(bytes + ARENA_SLACK);
    for s in slots {
        let r = s.record();
        let (from, to) = (r.start as u32, data.len() as u32);
        data.extend_from_slice(&old[r]);
        s.key_at = s.key_at - from + to;
        s.value_at = s.value_at - from + to;
    }
    data
}

/// Appends an entry's record to `data` in the page's entry layout (header,
/// key, inline value; `key` appends the `klen` key bytes) and returns its
/// slot, whose [`Slot::record`] is then whole.
fn write_record(
    data: &mut Vec<u8>,
    klen: usize,
    value: RawValue<'_>,
    key: impl FnOnce(&mut Vec<u8>),
) -> Slot {
    let at = data.len() as u32;
    let key_len = klen as u16;
    match value {
        RawValue::Inline(v) => {
            let head = inline_head(klen, v.len());
            match head {
                1 => data.push(TAG_KEY_ONLY + klen as u8),
                3 => data.extend_from_slice(&[TAG_SHORT, klen as u8, v.len() as u8]),
                4 => {
                    data.extend_from_slice(&[TAG_SHORT_WIDE, klen as u8]);
                    data.extend_from_slice(&(v.len() as u16).to_le_bytes());
                }
                _ => {
                    data.push(TAG_INLINE);
                    data.extend_from_slice(&key_len.to_le_bytes());
                    data.extend_from_slice(&(v.len() as u16).to_le_bytes());
                }
            }
            key(data);
            data.extend_from_slice(v);
            Slot::inline(at, head as u8, key_len, v.len() as u32)
        }
        RawValue::Overflow { len, first } => {
            data.push(TAG_OVERFLOW);
            data.extend_from_slice(&key_len.to_le_bytes());
            data.extend_from_slice(&len.to_le_bytes());
            data.extend_from_slice(&first.0.to_le_bytes());
            key(data);
            Slot::overflow(at, key_len)
        }
    }
}

impl Clone for Leaf {
    fn clone(&self) -> Leaf {
        let mut data = Vec::with_capacity(self.data.len() + ARENA_SLACK);
        data.extend_from_slice(&self.data);
        Leaf {
            data,
            slots: self.slots.clone(),
            prefixes: self.prefixes.clone(),
            raw: self.raw,
            size: self.size,
            garbage: self.garbage,
        }
    }
}

impl PartialEq for Leaf {
    fn eq(&self, other: &Leaf) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl Eq for Leaf {}

impl Default for Leaf {
    fn default() -> Leaf {
        Leaf::new(Vec::new())
    }
}

impl Branch {
    pub fn new(keys: Vec<Vec<u8>>, children: Vec<PageId>) -> Branch {
        debug_assert_eq!(keys.len() + 1, children.len());
        let size = BRANCH_SLOTS_OFFSET + keys.iter().map(|k| branch_entry_size(k)).sum::<usize>();
        let prefixes = keys.iter().map(|k| key_prefix(k)).collect();
        Branch {
            keys,
            prefixes,
            children,
            size,
        }
    }

    pub fn keys(&self) -> &[Vec<u8>] {
        &self.keys
    }

    pub fn children(&self) -> &[PageId] {
        &self.children
    }

    pub fn set_child(&mut self, i: usize, id: PageId) {
        self.children[i] = id;
    }

    pub fn encoded_size(&self) -> usize {
        self.size
    }

    /// Index of the child whose key range holds `key`.
    pub fn child_index(&self, key: &[u8]) -> usize {
        let p = key_prefix(key);
        let (mut lo, mut hi) = (0, self.keys.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let ord = self.prefixes[mid]
                .cmp(&p)
                .then_with(|| cmp_after_prefix(&self.keys[mid], key));
            match ord {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return mid + 1,
            }
        }
        lo
    }

    /// Inserts separator `key` at `i` with `right` as child `i + 1`.
    pub fn insert(&mut self, i: usize, key: Vec<u8>, right: PageId) {
        self.size += branch_entry_size(&key);
        self.prefixes.insert(i, key_prefix(&key));
        self.keys.insert(i, key);
        self.children.insert(i + 1, right);
    }

    /// Replaces separator `i`.
    pub fn set_key(&mut self, i: usize, key: Vec<u8>) {
        self.size = self.size + key.len() - self.keys[i].len();
        self.prefixes[i] = key_prefix(&key);
        self.keys[i] = key;
    }

    /// Removes separator `i` and child `i + 1`.
    pub fn remove(&mut self, i: usize) {
        let k = self.keys.remove(i);
        self.prefixes.remove(i);
        self.size -= branch_entry_size(&k);
        self.children.remove(i + 1);
    }

    /// Splits around separator `m`: this branch keeps keys `..m`, the
    /// returned key is promoted, the new branch gets keys `m + 1..`.
    pub fn split(&mut self, m: usize) -> (Vec<u8>, Branch) {
        let right_keys = self.keys.split_off(m + 1);
        let promoted = self.keys.pop().expect("split point within the keys");
        self.prefixes.truncate(m);
        let right_children = self.children.split_off(m + 1);
        let right = Branch::new(right_keys, right_children);
        self.size -= right.size - BRANCH_SLOTS_OFFSET + branch_entry_size(&promoted);
        (promoted, right)
    }

    /// Appends separator `sep` and all of `other` (whose keys sort after).
    pub fn merge(&mut self, sep: Vec<u8>, other: Branch) {
        self.size += branch_entry_size(&sep) + other.size - BRANCH_SLOTS_OFFSET;
        self.prefixes.push(key_prefix(&sep));
        self.prefixes.extend(other.prefixes);
        self.keys.push(sep);
        self.keys.extend(other.keys);
        self.children.extend(other.children);
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Leaf(Leaf),
    Branch(Branch),
}

impl Node {
    /// Encodes into `page` (which must be zeroed) and seals it for `id`.
    pub fn encode(&self, page: &mut [u8], id: PageId) {
        match self {
            Node::Leaf(l) => encode_leaf(l, page),
            Node::Branch(b) => encode_branch(b, page),
        }
        seal_page(page, id);
    }

    /// Decodes a page already verified by its checksum.
    pub fn decode(page: &[u8], id: PageId) -> Result<Node> {
        match page[KIND_OFFSET] {
            KIND_LEAF => decode_leaf(page_vec(page), id, false).map(Node::Leaf),
            KIND_BRANCH => decode_branch(page, id).map(Node::Branch),
            k => Err(corrupt!(id.0, "expected a tree page, found kind {k}")),
        }
    }

    /// [`Node::decode`] taking the page buffer, which a leaf keeps as its
    /// arena (no copy). `page` should come from [`page_vec`]. With
    /// `trusted`, a leaf's key order is not checked again and it stays in
    /// page form (see [`Leaf`]); offsets and lengths are always checked.
    pub fn decode_owned(page: Vec<u8>, id: PageId, trusted: bool) -> Result<Node> {
        if page.len() < PAGE_SIZE {
            return Err(corrupt!(id.0, "short page of {} bytes", page.len()));
        }
        match page[KIND_OFFSET] {
            KIND_LEAF => decode_leaf(page, id, trusted).map(Node::Leaf),
            KIND_BRANCH => decode_branch(&page, id).map(Node::Branch),
            k => Err(corrupt!(id.0, "expected a tree page, found kind {k}")),
        }
    }
}

fn encode_leaf(l: &Leaf, b: &mut [u8]) {
    debug_assert_eq!(
        l.encoded_size(),
        l.recounted_size(),
        "leaf size bookkeeping drifted"
    );
    b[KIND_OFFSET] = KIND_LEAF;
    let n = l.len();
    write_u16(b, COUNT_OFFSET, n as u16);
    let start = LEAF_SLOTS_OFFSET + SLOT_LEN * n;
    let (head, body) = b.split_at_mut(start);
    let offsets = head[LEAF_SLOTS_OFFSET..].chunks_exact_mut(SLOT_LEN);
    // Entries follow the slot array in key order. Records lying back to
    // back in the arena (a page's, or entries written one after another)
    // are copied as one run: `run` is the arena range waiting to be copied
    // to `body[run_to..]`, and always ends at `at`.
    let mut at = 0;
    let mut run = 0..0;
    let mut run_to = 0;
    for (i, off) in (0..n).zip(offsets) {
        off.copy_from_slice(&((start + at) as u16).to_le_bytes());
        let r = l.slot(i).record();
        if r.start != run.end {
            body[run_to..at].copy_from_slice(&l.data[run]);
            run = r.start..r.start;
            run_to = at;
        }
        at += r.len();
        run.end = r.end;
    }
    body[run_to..at].copy_from_slice(&l.data[run]);
}

fn encode_branch(br: &Branch, b: &mut [u8]) {
    debug_assert_eq!(
        br.size,
        Branch::new(br.keys.clone(), br.children.clone()).size,
        "branch size drifted"
    );
    debug_assert!(
        br.keys
            .iter()
            .map(|k| key_prefix(k))
            .eq(br.prefixes.iter().copied()),
        "branch key prefixes drifted"
    );
    b[KIND_OFFSET] = KIND_BRANCH;
    write_u16(b, COUNT_OFFSET, br.keys.len() as u16);
    write_u64(b, BRANCH_CHILD0_OFFSET, br.children[0].0);
    let mut at = BRANCH_SLOTS_OFFSET + SLOT_LEN * br.keys.len();
    for (i, k) in br.keys.iter().enumerate() {
        write_u16(b, BRANCH_SLOTS_OFFSET + SLOT_LEN * i, at as u16);
        write_u16(b, at, k.len() as u16);
        write_u64(b, at + 2, br.children[i + 1].0);
        at += BRANCH_ENTRY_FIXED;
        b[at..at + k.len()].copy_from_slice(k);
        at += k.len();
    }
}

/// Bounds-checked slice of `page`.
fn slice(page: &[u8], at: usize, len: usize, id: PageId) -> Result<&[u8]> {
    at.checked_add(len)
        .filter(|&end| end <= PAGE_SIZE)
        .map(|end| &page[at..end])
        .ok_or_else(|| past_the_page(id, at, len))
}

fn check_order(prev: Option<&[u8]>, key: &[u8], id: PageId) -> Result<()> {
    match prev {
        Some(p) if p >= key => Err(corrupt!(id.0, "keys out of order")),
        _ if key.len() > MAX_KEY_LEN => Err(corrupt!(id.0, "key of {} bytes", key.len())),
        _ => Ok(()),
    }
}

/// A leaf entry's value as it sits in a page or a leaf, borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawValue<'a> {
    Inline(&'a [u8]),
    Overflow { len: u64, first: PageId },
}

impl RawValue<'_> {
    pub fn to_owned(self) -> LeafValue {
        match self {
            RawValue::Inline(v) => LeafValue::Inline(v.to_vec()),
            RawValue::Overflow { len, first } => LeafValue::Overflow { len, first },
        }
    }
}

/// Parses a verified leaf page: the slot of every entry in key order, its
/// offsets pointing into `page`, checking every offset and length and that
/// keys strictly increase. The one parser of leaf pages: validation and
/// the decoding of untrusted pages use it, so it runs for every page an
/// open validates (a trusted page's leaf checks each entry as it reads it
/// instead: [`page_slot`]): one pass, each entry's header read once,
/// failures out of line. `f` gets each slot and its key.
fn parse_leaf<'p>(page: &'p [u8], id: PageId, mut f: impl FnMut(Slot, &'p [u8])) -> Result<usize> {
    let count = read_u16(page, COUNT_OFFSET) as usize;
    let slots = slice(page, LEAF_SLOTS_OFFSET, count * SLOT_LEN, id)?;
    let Some(page) = page.get(..PAGE_SIZE) else {
        return Err(corrupt!(id.0, "short page of {} bytes", page.len()));
    };
    let mut prev: Option<&[u8]> = None;
    for at in slots.chunks_exact(SLOT_LEN) {
        let slot = slot_at(page, u16::from_le_bytes([at[0], at[1]]) as usize, id)?;
        let key = slot.key(page);
        if prev.is_some_and(|p| cmp_keys(p, key).is_ge()) {
            return Err(corrupt!(id.0, "keys out of order"));
        }
        prev = Some(key);
        f(slot, key);
    }
    Ok(count)
}

/// The slot of the leaf entry at offset `at` (< 2^16) of `page` (one
/// page long), every offset and length checked against the page first:
/// [`decode_head`]'s checks, with the error saying which failed.
#[inline(always)]
fn slot_at(page: &[u8], at: usize, id: PageId) -> Result<Slot> {
    let Ok(page) = <&[u8; PAGE_SIZE]>::try_from(page) else {
        return Err(corrupt!(id.0, "short page of {} bytes", page.len()));
    };
    match decode_head(page, at) {
        Ok(head) => Ok(head.slot(at)),
        Err(BadHead::Past(from, len)) => Err(past_the_page(id, from, len)),
        Err(BadHead::KeyLen(len)) => Err(corrupt!(id.0, "key of {len} bytes")),
        Err(BadHead::OverflowRef) => Err(corrupt!(id.0, "bad overflow reference")),
    }
}

/// [`slice`]'s error: `len` bytes at `at` do not fit the page.
#[cold]
#[inline(never)]
fn past_the_page(id: PageId, at: usize, len: usize) -> Error {
    corrupt!(id.0, "entry at {at} of length {len} runs past the page")
}

impl Slot {
    /// The slot of an inline-value record starting at `at` with a head of
    /// `head` bytes.
    #[inline(always)]
    fn inline(at: u32, head: u8, key_len: u16, value_len: u32) -> Slot {
        let key_at = at + u32::from(head);
        Slot {
            key_at,
            key_len,
            overflow: false,
            head,
            value_at: key_at + u32::from(key_len),
            value_len,
        }
    }

    /// The slot of an overflow-value record starting at `at`.
    #[inline(always)]
    fn overflow(at: u32, key_len: u16) -> Slot {
        Slot {
            key_at: at + OVERFLOW_HEAD,
            key_len,
            overflow: true,
            head: OVERFLOW_HEAD as u8,
            value_at: at + 3,
            value_len: OVERFLOW_REF_LEN,
        }
    }

    /// The key this slot addresses in `data` (its leaf's arena or page).
    #[inline]
    fn key(self, data: &[u8]) -> &[u8] {
        let at = self.key_at as usize;
        &data[at..at + self.key_len as usize]
    }

    /// Bytes the slot's record takes in an arena: header, key, and value
    /// or overflow reference.
    #[inline]
    fn arena_len(self) -> usize {
        self.record().len()
    }

    /// Where the entry's record (`[head][key][value]`, the page's entry
    /// layout, an overflow reference inside the head) lies in the arena.
    /// Records are always
    /// whole: a page's entries are, and a leaf writes every entry as one
    /// ([`write_record`]) and moves records whole ([`rebase`]), so encoding
    /// a leaf copies runs of adjacent records at once.
    #[inline]
    fn record(self) -> std::ops::Range<usize> {
        let start = self.key_at as usize - self.head as usize;
        let key_end = self.key_at as usize + self.key_len as usize;
        if self.overflow {
            debug_assert_eq!(self.value_at + OVERFLOW_REF_LEN, self.key_at);
            start..key_end
        } else {
            debug_assert_eq!(self.value_at as usize, key_end);
            start..key_end + self.value_len as usize
        }
    }

    /// The bytes of the value, or of the overflow reference, in `data`.
    #[inline]
    fn value_bytes(self, data: &[u8]) -> &[u8] {
        &data[self.value_at as usize..(self.value_at + self.value_len) as usize]
    }

    /// The value this slot addresses in `data`.
    #[inline]
    fn value(self, data: &[u8]) -> RawValue<'_> {
        let bytes = self.value_bytes(data);
        if self.overflow {
            RawValue::Overflow {
                len: read_u64(bytes, 0),
                first: PageId(read_u64(bytes, 8)),
            }
        } else {
            RawValue::Inline(bytes)
        }
    }

    /// The encoded size of the entry this slot addresses, its slot in the
    /// page's slot array included.
    #[inline]
    fn entry_size(self) -> usize {
        SLOT_LEN + self.record().len()
    }
}

/// The slot of the entry at `at` of a trusted leaf page, read without a
/// pass over the page first: the checks of [`slot_at`], without an error.
/// A trusted page either is one full validation walked (its checksum says
/// it is unchanged) or one this process encoded from a well-formed leaf, so
/// every check holds unless damage got past the checksum (a 2^-32 chance,
/// the one trusting the key order already takes); such an entry then reads
/// as an empty key with an empty value instead of reaching past the page.
#[inline(always)]
fn page_slot(page: &[u8; PAGE_SIZE], at: usize) -> Slot {
    match page_head(page, at) {
        Some(head) => head.slot(at),
        None => Slot::inline(0, 0, 0, 0),
    }
}

/// An entry's head on a leaf page, checked ([`decode_head`]).
enum Head {
    Inline {
        head: usize,
        key_len: usize,
        value_len: usize,
    },
    Overflow {
        key_len: usize,
        len: u64,
        first: u64,
    },
}

impl Head {
    /// The slot of the entry at `at` this head starts.
    #[inline(always)]
    fn slot(self, at: usize) -> Slot {
        match self {
            Head::Inline {
                head,
                key_len,
                value_len,
            } => Slot::inline(at as u32, head as u8, key_len as u16, value_len as u32),
            Head::Overflow { key_len, .. } => Slot::overflow(at as u32, key_len as u16),
        }
    }
}

/// Why [`decode_head`] refused an entry head.
enum BadHead {
    /// `.1` bytes from offset `.0` (the head, or the key and value after
    /// it) run past the page.
    Past(usize, usize),
    /// A key longer than `MAX_KEY_LEN`.
    KeyLen(usize),
    /// An overflow value of no bytes, past `MAX_VALUE_LEN`, or starting
    /// below `FIRST_DATA_PAGE`.
    OverflowRef,
}

/// The head of the entry at `at` of a leaf page, refused unless its key
/// length is at most `MAX_KEY_LEN`, the whole entry lies in the page and
/// an overflow reference is sound. The layout (module docs): a tag, then
/// the lengths its form has, or for an overflow value the key length and
/// the value's length and first page (u64 each); then the key and an
/// inline value's bytes.
#[inline(always)]
fn decode_head(page: &[u8; PAGE_SIZE], at: usize) -> std::result::Result<Head, BadHead> {
    let head_bytes = |n: usize| page.get(at + 1..at + n).ok_or(BadHead::Past(at, n));
    let tag = *page.get(at).ok_or(BadHead::Past(at, 1))?;
    let (head, key_len, value_len) = match tag {
        TAG_INLINE => {
            let h = head_bytes(5)?;
            (
                5,
                u16::from_le_bytes([h[0], h[1]]) as usize,
                u16::from_le_bytes([h[2], h[3]]) as usize,
            )
        }
        TAG_OVERFLOW => {
            let r = head_bytes(OVERFLOW_HEAD as usize)?;
            let key_len = u16::from_le_bytes([r[0], r[1]]) as usize;
            let len = u64::from_le_bytes(r[2..10].try_into().expect("8 bytes"));
            let first = u64::from_le_bytes(r[10..18].try_into().expect("8 bytes"));
            let key_at = at + OVERFLOW_HEAD as usize;
            if key_len > MAX_KEY_LEN {
                return Err(BadHead::KeyLen(key_len));
            }
            if key_at + key_len > PAGE_SIZE {
                return Err(BadHead::Past(key_at, key_len));
            }
            if len == 0 || len > MAX_VALUE_LEN || first < FIRST_DATA_PAGE {
                return Err(BadHead::OverflowRef);
            }
            return Ok(Head::Overflow {
                key_len,
                len,
                first,
            });
        }
        TAG_SHORT => {
            let h = head_bytes(3)?;
            (3, h[0] as usize, h[1] as usize)
        }
        TAG_SHORT_WIDE => {
            let h = head_bytes(4)?;
            (4, h[0] as usize, u16::from_le_bytes([h[1], h[2]]) as usize)
        }
        tag => (1, (tag - TAG_KEY_ONLY) as usize, 0),
    };
    if key_len > MAX_KEY_LEN {
        return Err(BadHead::KeyLen(key_len));
    }
    if at + head + key_len + value_len > PAGE_SIZE {
        return Err(BadHead::Past(at + head, key_len + value_len));
    }
    Ok(Head::Inline {
        head,
        key_len,
        value_len,
    })
}

/// [`decode_head`] for a trusted page, which cares only whether it holds.
#[inline(always)]
fn page_head(page: &[u8; PAGE_SIZE], at: usize) -> Option<Head> {
    decode_head(page, at).ok()
}

/// The key and value [`page_slot`] addresses, sliced straight from the
/// page ([`page_head`]'s checks keep them in it): a scan of a page-form
/// leaf reads every entry this way.
#[inline(always)]
fn page_entry(page: &[u8; PAGE_SIZE], at: usize) -> (&[u8], RawValue<'_>) {
    match page_head(page, at) {
        Some(Head::Inline {
            head,
            key_len,
            value_len,
        }) => {
            let key_at = at + head;
            let (key, value) = page[key_at..key_at + key_len + value_len].split_at(key_len);
            (key, RawValue::Inline(value))
        }
        Some(Head::Overflow {
            key_len,
            len,
            first,
        }) => {
            let key_at = at + OVERFLOW_HEAD as usize;
            (
                &page[key_at..key_at + key_len],
                RawValue::Overflow {
                    len,
                    first: PageId(first),
                },
            )
        }
        None => (&[], RawValue::Inline(&[])),
    }
}

/// Walks a verified leaf page's entries in key order without copying them
/// (see [`parse_leaf`] for what is checked): `f` gets each key and, for a
/// value stored in overflow pages, its first page and length.
pub fn for_each_leaf_entry<'p>(
    page: &'p [u8],
    id: PageId,
    mut f: impl FnMut(&'p [u8], Option<(PageId, u64)>),
) -> Result<usize> {
    parse_leaf(page, id, |s, key| match s.value(page) {
        RawValue::Overflow { len, first } => f(key, Some((first, len))),
        RawValue::Inline(_) => f(key, None),
    })
}

/// Decodes a verified leaf page without copying its entries: the page
/// buffer becomes the leaf's arena. The bytes of the header, slot array and
/// free space stay in the arena untracked (at most one page); `garbage`
/// counts only what later changes discard. With `trusted` (see
/// `Pager::trust_order`) the leaf stays in page form with only its slot
/// array checked against the page (each entry is checked as it is read:
/// [`page_slot`]); otherwise every slot is built, its offsets and lengths
/// and the key order checked.
fn decode_leaf(page: Vec<u8>, id: PageId, trusted: bool) -> Result<Leaf> {
    let count = read_u16(&page, COUNT_OFFSET) as usize;
    if trusted {
        slice(&page, LEAF_SLOTS_OFFSET, count * SLOT_LEN, id)?;
        return Ok(Leaf {
            data: page,
            slots: Vec::new(),
            prefixes: Vec::new(),
            raw: count,
            size: LEAF_SLOTS_OFFSET,
            garbage: 0,
        });
    }
    let mut slots = Vec::with_capacity(count.min(PAGE_SIZE / SLOT_LEN));
    let mut prefixes = Vec::with_capacity(slots.capacity());
    let mut size = LEAF_SLOTS_OFFSET;
    parse_leaf(&page, id, |s, key| {
        size += s.entry_size();
        prefixes.push(key_prefix(key));
        slots.push(s);
    })?;
    Ok(Leaf {
        data: page,
        slots,
        prefixes,
        raw: 0,
        size,
        garbage: 0,
    })
}

fn decode_branch(page: &[u8], id: PageId) -> Result<Branch> {
    let count = read_u16(page, COUNT_OFFSET) as usize;
    if count == 0 {
        return Err(corrupt!(id.0, "branch without keys"));
    }
    slice(page, BRANCH_SLOTS_OFFSET, count * SLOT_LEN, id)?;
    let mut keys: Vec<Vec<u8>> = Vec::with_capacity(count);
    let mut children = Vec::with_capacity(count + 1);
    children.push(PageId(read_u64(page, BRANCH_CHILD0_OFFSET)));
    for i in 0..count {
        let at = read_u16(page, BRANCH_SLOTS_OFFSET + SLOT_LEN * i) as usize;
        let fixed = slice(page, at, BRANCH_ENTRY_FIXED, id)?;
        let klen = read_u16(fixed, 0) as usize;
        children.push(PageId(read_u64(fixed, 2)));
        let key = slice(page, at + BRANCH_ENTRY_FIXED, klen, id)?;
        check_order(keys.last().map(|k| k.as_slice()), key, id)?;
        keys.push(key.to_vec());
    }
    if children.iter().any(|c| c.0 < FIRST_DATA_PAGE) {
        return Err(corrupt!(id.0, "branch points at a superblock"));
    }
    Ok(Branch::new(keys, children))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_round_trip() {
        let leaf = Leaf::new(vec![
            (b"a".to_vec(), LeafValue::Inline(b"one".to_vec())),
            (
                b"b".to_vec(),
                LeafValue::Overflow {
                    len: 9000,
                    first: PageId(7),
                },
            ),
        ]);
        let mut page = [0u8; PAGE_SIZE];
        Node::Leaf(leaf.clone()).encode(&mut page, PageId(5));
        verify_page(&page, PageId(5)).unwrap();
        assert_eq!(
            Node::decode(&page, PageId(5)).unwrap(),
            Node::Leaf(leaf.clone())
        );
        assert!(leaf.encoded_size() < 64);
    }

    #[test]
    fn branch_round_trip() {
        let br = Branch::new(
            vec![b"k".to_vec(), b"m".to_vec()],
            vec![PageId(3), PageId(4), PageId(9)],
        );
        let mut page = [0u8; PAGE_SIZE];
        Node::Branch(br.clone()).encode(&mut page, PageId(2));
        assert_eq!(
            Node::decode(&page, PageId(2)).unwrap(),
            Node::Branch(br.clone())
        );
        assert_eq!(br.child_index(b"a"), 0);
        assert_eq!(br.child_index(b"k"), 1);
        assert_eq!(br.child_index(b"z"), 2);
    }

    proptest::proptest! {
        /// Keys sharing a prefix of any length, differing anywhere after
        /// it (or only in length): both comparators order as slices do.
        #[test]
        fn key_comparisons_order_as_slices_do(
            common in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
            a_tail in proptest::collection::vec(0u8..4, 0..12),
            b_tail in proptest::collection::vec(0u8..4, 0..12),
        ) {
            let a = [common.clone(), a_tail].concat();
            let b = [common, b_tail].concat();
            proptest::prop_assert_eq!(cmp_keys(&a, &b), a.cmp(&b));
            if key_prefix(&a) == key_prefix(&b) {
                proptest::prop_assert_eq!(cmp_after_prefix(&a, &b), a.cmp(&b));
            }
        }
    }

    /// A leaf's entries, every value inline.
    fn inline_entries(leaf: &Leaf) -> Vec<(Vec<u8>, Vec<u8>)> {
        leaf.iter()
            .map(|(k, v)| match v {
                RawValue::Inline(v) => (k.to_vec(), v.to_vec()),
                RawValue::Overflow { .. } => unreachable!("inline values only"),
            })
            .collect()
    }

    proptest::proptest! {
        /// Inserts, removals, replacements and splits of a leaf (split
        /// halves edited further) agree with a sorted model: entries, the
        /// size bookkeeping (against a freshly built leaf) and the page
        /// encoding.
        #[test]
        fn leaf_edits_and_splits_agree_with_a_model(
            ops in proptest::collection::vec((0u8..4, 0u16..300, 0usize..40), 1..400),
        ) {
            use std::collections::BTreeMap;
            let mut leaf = Leaf::default();
            let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
            let check = |leaf: &Leaf, model: &BTreeMap<Vec<u8>, Vec<u8>>| {
                let got = inline_entries(leaf);
                let want: Vec<(Vec<u8>, Vec<u8>)> =
                    model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                assert_eq!(got, want);
                assert_eq!(leaf.encoded_size(), leaf.recounted_size());
                if leaf.encoded_size() <= PAGE_SIZE {
                    let mut page = [0u8; PAGE_SIZE];
                    Node::Leaf(leaf.clone()).encode(&mut page, PageId(3));
                    assert_eq!(Node::decode(&page, PageId(3)).unwrap(), Node::Leaf(leaf.clone()));
                }
            };
            for (op, k, vlen) in ops {
                let key = format!("k{k:05}").into_bytes();
                match op {
                    0 | 1 => {
                        let value = vec![k as u8; vlen];
                        match leaf.search(&key) {
                            Ok(i) => {
                                leaf.replace(i, LeafValue::Inline(value.clone()));
                            }
                            Err(i) => leaf.insert(i, &key, LeafValue::Inline(value.clone())),
                        }
                        model.insert(key, value);
                    }
                    2 => {
                        if let Ok(i) = leaf.search(&key) {
                            leaf.remove(i);
                            model.remove(&key);
                        }
                    }
                    _ if leaf.len() >= 2 => {
                        // Keep the right half half of the time, as either
                        // side goes on being edited after a real split.
                        let at = 1 + vlen % (leaf.len() - 1);
                        let right = leaf.split_off(at);
                        let right_model = model.split_off(right.key(0));
                        check(&leaf, &model);
                        check(&right, &right_model);
                        if vlen % 2 == 0 {
                            leaf = right;
                            model = right_model;
                        }
                    }
                    _ => {}
                }
                check(&leaf, &model);
            }
        }
    }

    proptest::proptest! {
        /// `remove_run` and `insert_run` over a leaf of short-keyed
        /// entries with sorted batches (repeats, keys absent or present)
        /// and size bounds that may stop them early: they deal with a
        /// prefix of the batch, exactly as one removal or insertion per
        /// key would, report that prefix and what they removed, keep the
        /// size bookkeeping, and the leaf encodes and decodes as built.
        #[test]
        fn runs_agree_with_one_change_per_key(
            start in proptest::collection::btree_set(0u16..600, 0..300),
            batch in proptest::collection::vec(0u16..600, 0..200),
            insert in proptest::prelude::any::<bool>(),
            bound in 0usize..PAGE_SIZE + 1,
            vlen in 0usize..6,
        ) {
            use std::collections::BTreeMap;
            let key = |k: u16| format!("k{k:04}").into_bytes();
            let mut leaf = Leaf::default();
            let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
            for (i, &k) in start.iter().enumerate() {
                let v = vec![k as u8; vlen];
                leaf.insert(i, &key(k), LeafValue::Inline(v.clone()));
                model.insert(key(k), v);
            }
            let mut keys: Vec<Vec<u8>> = batch.iter().map(|&k| key(k)).collect();
            keys.sort();
            let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
            // The same changes one key at a time, up to where the run
            // must stop.
            let mut size = leaf.encoded_size();
            let mut expected_removed = Vec::new();
            let mut done = refs.len();
            for (n, k) in refs.iter().enumerate() {
                if insert {
                    let add = leaf_entry_size(k, RawValue::Inline(&[]));
                    let repeat = n > 0 && refs[n - 1] == *k;
                    if repeat || model.contains_key(*k) || size + add > bound {
                        done = n;
                        break;
                    }
                    size += add;
                    model.insert(k.to_vec(), Vec::new());
                } else if let Some(v) = model.get(*k) {
                    let entry = leaf_entry_size(k, RawValue::Inline(v));
                    if size - entry < bound {
                        done = n;
                        break;
                    }
                    size -= entry;
                    expected_removed.push((n, v.clone()));
                    model.remove(*k);
                }
            }
            let mut removed = Vec::new();
            let got = match insert {
                true => leaf.insert_run(&refs, bound),
                false => leaf.remove_run(&refs, bound, &mut removed),
            };
            proptest::prop_assert_eq!(got, done);
            let removed: Vec<(usize, Vec<u8>)> = removed
                .into_iter()
                .map(|(n, v)| match v {
                    LeafValue::Inline(v) => (n, v),
                    LeafValue::Overflow { .. } => unreachable!("inline values only"),
                })
                .collect();
            proptest::prop_assert_eq!(removed, expected_removed);
            let want: Vec<(Vec<u8>, Vec<u8>)> = model.into_iter().collect();
            proptest::prop_assert_eq!(inline_entries(&leaf), want);
            proptest::prop_assert_eq!(leaf.encoded_size(), size);
            proptest::prop_assert_eq!(leaf.encoded_size(), leaf.recounted_size());
            if leaf.encoded_size() <= PAGE_SIZE {
                let mut page = [0u8; PAGE_SIZE];
                Node::Leaf(leaf.clone()).encode(&mut page, PageId(3));
                proptest::prop_assert_eq!(Node::decode(&page, PageId(3)).unwrap(), Node::Leaf(leaf));
            }
        }
    }

    #[test]
    fn key_prefixes_order_as_keys_do() {
        let keys: Vec<Vec<u8>> = vec![
            vec![],
            vec![0],
            vec![0, 0, 0, 0, 0, 0, 0, 0],
            vec![0, 0, 0, 0, 0, 0, 0, 0, 0],
            vec![1, 2, 3, 4, 5, 6, 7, 8, 9],
            vec![1, 2, 3, 4, 5, 6, 7, 9],
            vec![0x80; 12],
            vec![0xff; 8],
            vec![0xff; 9],
            vec![1, 2, 3],
            vec![1, 2, 3, 0],
            vec![9; 17],
            vec![9; 24],
            [vec![9; 16], vec![1]].concat(),
            [vec![9; 8], vec![0; 8], vec![2]].concat(),
            [vec![9; 8], vec![0; 9]].concat(),
        ];
        for a in &keys {
            for b in &keys {
                let (pa, pb) = (key_prefix(a), key_prefix(b));
                if pa != pb {
                    assert_eq!(pa.cmp(&pb), a.cmp(b), "{a:?} vs {b:?}");
                } else {
                    assert_eq!(cmp_after_prefix(a, b), a.cmp(b), "{a:?} vs {b:?}");
                }
                assert_eq!(cmp_keys(a, b), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
        let l = Leaf::new(
            keys.iter()
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .map(|k| (k.clone(), LeafValue::Inline(vec![])))
                .collect(),
        );
        let sorted: Vec<&Vec<u8>> = keys
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let br = Branch::new(
            sorted.iter().map(|k| k.to_vec()).collect(),
            (0..=sorted.len() as u64).map(|i| PageId(i + 2)).collect(),
        );
        let mut page = PageBuf::zeroed();
        let l = Node::Leaf(l);
        l.encode(&mut page.0, PageId(7));
        let Node::Leaf(l) = l else { unreachable!() };
        let Ok(Node::Leaf(raw)) = Node::decode_owned(page_vec(&page.0), PageId(7), true) else {
            panic!("the leaf decodes");
        };
        assert!(raw.raw > 0, "a trusted page decodes in page form");
        for probe in keys
            .iter()
            .chain([vec![0, 0, 0, 0, 0, 0, 0, 0, 5], vec![2]].iter())
        {
            let want = sorted.binary_search(&probe);
            assert_eq!(l.search(probe), want, "{probe:?}");
            assert_eq!(raw.search(probe), want, "page form, {probe:?}");
            let want_child = match want {
                Ok(i) => i + 1,
                Err(i) => i,
            };
            assert_eq!(br.child_index(probe), want_child, "{probe:?}");
        }
    }

    #[test]
    fn garbage_pages_are_corrupt_not_panics() {
        let mut page = [0xffu8; PAGE_SIZE];
        for kind in [KIND_LEAF, KIND_BRANCH, 9] {
            page[KIND_OFFSET] = kind;
            assert!(Node::decode(&page, PageId(3)).is_err());
        }
    }

    /// A small deterministic generator for the randomized tests here.
    fn lcg(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        }
    }

    /// Entry heads of every form, built by the layout FORMAT.md gives and
    /// set near each check's edge (key lengths around the limit, values
    /// running to or past the page's end, overflow references with a zero,
    /// huge or too-low page), at offsets near the page's end too, decode
    /// to exactly the entry written when it is sound and to an error
    /// otherwise, never a panic; a trusted page's entry (`page_entry`)
    /// reads the same key and value.
    #[test]
    fn entry_heads_of_every_form_decode_as_written_or_fail() {
        let mut next = lcg(5u64);
        for _ in 0..100_000 {
            let mut page = [0u8; PAGE_SIZE];
            let at = match next() % 3 {
                0 => PAGE_SIZE - (next() as usize) % 1200,
                _ => LEAF_SLOTS_OFFSET + (next() as usize) % 3000,
            };
            let tag = [0u8, 1, 2, 3, 4, 4 + (next() % 252) as u8, 255][(next() % 7) as usize];
            let key_len = match (tag, next() % 4) {
                (4.., _) => (tag - 4) as usize,
                (2 | 3, _) => (next() % 256) as usize,
                (_, 0) => MAX_KEY_LEN - 2 + (next() as usize) % 5,
                _ => (next() as usize) % 700,
            };
            let value_len = match tag {
                0 | 3 => (next() % 3000) as usize,
                2 => (next() % 256) as usize,
                _ => 0,
            };
            let (len, first) = (
                [0, 1, MAX_VALUE_LEN, MAX_VALUE_LEN + 1, next()][(next() % 5) as usize],
                [0, 1, FIRST_DATA_PAGE, 3, next()][(next() % 5) as usize],
            );
            let mut head = vec![tag];
            match tag {
                0 => {
                    head.extend_from_slice(&(key_len as u16).to_le_bytes());
                    head.extend_from_slice(&(value_len as u16).to_le_bytes());
                }
                1 => {
                    head.extend_from_slice(&(key_len as u16).to_le_bytes());
                    head.extend_from_slice(&len.to_le_bytes());
                    head.extend_from_slice(&first.to_le_bytes());
                }
                2 => head.extend_from_slice(&[key_len as u8, value_len as u8]),
                3 => {
                    head.push(key_len as u8);
                    head.extend_from_slice(&(value_len as u16).to_le_bytes());
                }
                _ => {}
            }
            for (i, b) in head.iter().enumerate() {
                if let Some(x) = page.get_mut(at + i) {
                    *x = *b;
                }
            }
            let sound = at + head.len() + key_len + value_len <= PAGE_SIZE
                && key_len <= MAX_KEY_LEN
                && (tag != 1 || (len != 0 && len <= MAX_VALUE_LEN && first >= FIRST_DATA_PAGE));
            let decoded = slot_at(&page, at, PageId(4));
            assert_eq!(decoded.is_ok(), sound, "tag {tag} at {at}: {head:?}");
            let Ok(slot) = decoded else { continue };
            assert_eq!(
                (slot.key_at as usize, slot.key_len as usize, slot.overflow),
                (at + head.len(), key_len, tag == 1)
            );
            match slot.value(&page) {
                RawValue::Inline(v) => assert_eq!(v.len(), value_len),
                RawValue::Overflow { len: l, first: f } => assert_eq!((l, f.0), (len, first)),
            }
            assert_eq!(
                slot.entry_size(),
                SLOT_LEN + head.len() + key_len + value_len
            );
            assert_eq!(page_entry(&page, at), (slot.key(&page), slot.value(&page)));
        }
    }

    /// The writer takes the shortest head each entry fits, and what it
    /// writes reads back.
    #[test]
    fn the_writer_takes_the_shortest_head() {
        for (klen, vlen, head) in [
            (0, 0, 1),
            (9, 0, 1),
            (251, 0, 1),
            (252, 0, 3),
            (255, 0, 3),
            (256, 0, 5),
            (3, 1, 3),
            (3, 255, 3),
            (3, 256, 4),
            (255, 1700, 4),
            (300, 1, 5),
        ] {
            assert_eq!(inline_head(klen, vlen), head, "{klen} {vlen}");
            let (key, value) = (vec![7u8; klen], vec![9u8; vlen]);
            let mut data = vec![0u8; 8];
            let slot = write_record(&mut data, klen, RawValue::Inline(&value), |d| {
                d.extend_from_slice(&key)
            });
            assert_eq!(slot.record(), 8..data.len());
            assert_eq!(slot.entry_size(), SLOT_LEN + head + klen + vlen);
            data.resize(PAGE_SIZE, 0);
            let page: &[u8; PAGE_SIZE] = data.as_slice().try_into().unwrap();
            let again = slot_at(page, 8, PageId(4)).unwrap();
            assert_eq!(again.key(page), &key[..]);
            assert_eq!(again.value(page), RawValue::Inline(&value));
        }
    }

    /// A leaf decoded in page form (trusted) behaves exactly like one
    /// decoded slot by slot, before and after changes.
    #[test]
    fn page_form_leaves_match_decoded_ones() {
        let mut next = lcg(7u64);
        for round in 0..200 {
            let n = (next() % 60) as usize;
            let mut keys: Vec<Vec<u8>> = (0..n)
                .map(|_| (0..next() % 20).map(|_| (next() % 4) as u8).collect())
                .collect();
            keys.sort();
            keys.dedup();
            let entries: Vec<(Vec<u8>, LeafValue)> = keys
                .iter()
                .map(|k| {
                    let v = if next().is_multiple_of(5) {
                        LeafValue::Overflow {
                            len: 5000 + next() % 100,
                            first: PageId(2 + next() % 50),
                        }
                    } else {
                        LeafValue::Inline(vec![round as u8; (next() % 30) as usize])
                    };
                    (k.clone(), v)
                })
                .collect();
            let mut page = [0u8; PAGE_SIZE];
            Node::Leaf(Leaf::new(entries)).encode(&mut page, PageId(4));
            let decode = |trusted| match Node::decode_owned(page_vec(&page), PageId(4), trusted) {
                Ok(Node::Leaf(l)) => l,
                other => panic!("not a leaf: {other:?}"),
            };
            let (mut a, mut b) = (decode(true), decode(false));
            assert!(a.raw == a.len() && b.raw == 0);
            for step in 0..6 {
                assert_eq!(a, b);
                assert_eq!(a.encoded_size(), b.encoded_size());
                for i in 0..a.len() {
                    assert_eq!(a.entry_size(i), b.entry_size(i));
                    assert_eq!(a.search(a.key(i)), Ok(i));
                }
                for _ in 0..20 {
                    let probe: Vec<u8> = (0..next() % 20).map(|_| (next() % 5) as u8).collect();
                    assert_eq!(a.search(&probe), b.search(&probe), "probe {probe:?}");
                }
                let c = a.clone();
                assert_eq!(c, a);
                match (step, a.len()) {
                    (0, _) | (_, 0) => {
                        let k = vec![9u8; 1 + step];
                        let at = a.search(&k).unwrap_or_else(|i| i);
                        a.insert(at, &k, LeafValue::Inline(vec![1, 2]));
                        b.insert(at, &k, LeafValue::Inline(vec![1, 2]));
                    }
                    (1, len) => {
                        let i = (next() as usize) % len;
                        assert_eq!(a.key(i), b.key(i));
                        assert_eq!(a.remove(i), b.remove(i));
                    }
                    (_, len) => {
                        let i = (next() as usize) % len;
                        let v = LeafValue::Inline(vec![3; step]);
                        assert_eq!(a.replace(i, v.clone()), b.replace(i, v));
                    }
                }
            }
        }
    }

    /// An untrusted page's bad offsets are `Corrupt`; a trusted page's leaf
    /// checks each entry as it reads it, and reads a bad one as an empty
    /// key and value, never past the page.
    #[test]
    fn corrupt_offsets_fail_untrusted_and_stay_in_the_page_trusted() {
        let leaf = Leaf::new(vec![
            (b"a".to_vec(), LeafValue::Inline(b"1".to_vec())),
            (b"k".to_vec(), LeafValue::Inline(b"v".to_vec())),
        ]);
        let mut page = [0u8; PAGE_SIZE];
        Node::Leaf(leaf).encode(&mut page, PageId(4));
        write_u16(
            &mut page,
            LEAF_SLOTS_OFFSET + SLOT_LEN,
            (PAGE_SIZE - 2) as u16,
        );
        assert!(Node::decode_owned(page_vec(&page), PageId(4), false).is_err());
        let Ok(Node::Leaf(mut l)) = Node::decode_owned(page_vec(&page), PageId(4), true) else {
            panic!("a trusted page decodes without a pass over its entries");
        };
        assert_eq!(l.entry(0), (&b"a"[..], RawValue::Inline(b"1")));
        assert_eq!(l.entry(1), (&b""[..], RawValue::Inline(&[])));
        assert_eq!(l.encoded_size(), l.recounted_size());
        l.own();
        assert_eq!(l.key(1), b"");
        // A slot array longer than the page is caught even when trusted.
        write_u16(&mut page, COUNT_OFFSET, PAGE_SIZE as u16);
        assert!(Node::decode_owned(page_vec(&page), PageId(4), true).is_err());
    }

    /// Random damage to a trusted page (as if its checksum had missed it)
    /// never makes reading or changing its leaf panic, and the page form
    /// reads it as the slots built from it do: the same entries (a bad one
    /// empty in both) and the same search results.
    #[test]
    fn damaged_trusted_pages_never_panic() {
        let mut next = lcg(11u64);
        let entries: Vec<(Vec<u8>, LeafValue)> = (0..40u8)
            .map(|i| {
                let v = match i % 7 {
                    0 => LeafValue::Overflow {
                        len: 5000,
                        first: PageId(9),
                    },
                    _ => LeafValue::Inline(vec![i; usize::from(i % 13)]),
                };
                (vec![i, i, i], v)
            })
            .collect();
        let mut clean = [0u8; PAGE_SIZE];
        Node::Leaf(Leaf::new(entries)).encode(&mut clean, PageId(4));
        for _ in 0..2000 {
            let mut page = clean;
            // Damage lands in the header, slot array and entry heads most.
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % 400;
                page[at] = next() as u8;
            }
            let Ok(Node::Leaf(mut l)) = Node::decode_owned(page_vec(&page), PageId(4), true) else {
                continue;
            };
            let probes: Vec<Vec<u8>> = (0..8)
                .map(|_| (0..next() % 12).map(|_| (next() % 42) as u8).collect())
                .collect();
            let found: Vec<_> = probes.iter().map(|p| l.search(p)).collect();
            let entries: Vec<_> = l.iter().map(|(k, v)| (k.to_vec(), v.to_owned())).collect();
            let size = l.encoded_size();
            if !l.is_empty() {
                let _ = l.entry_size(0);
                l.own();
                let owned: Vec<_> = l.iter().map(|(k, v)| (k.to_vec(), v.to_owned())).collect();
                assert_eq!(owned, entries);
                assert_eq!(l.encoded_size(), size);
                assert_eq!(l.encoded_size(), l.recounted_size());
                // Damage can break the key order, and a search with it.
                if entries.windows(2).all(|w| w[0].0 < w[1].0) {
                    let again: Vec<_> = probes.iter().map(|p| l.search(p)).collect();
                    assert_eq!(again, found, "probes {probes:?}");
                }
            }
        }
    }

    #[test]
    fn two_max_entries_fit_a_leaf() {
        let k = vec![1u8; MAX_KEY_LEN];
        let vlen = (0..PAGE_SIZE)
            .rev()
            .find(|&n| value_is_inline(k.len(), n))
            .unwrap();
        let e = leaf_entry_size(&k, RawValue::Inline(&vec![0; vlen]));
        assert!(LEAF_SLOTS_OFFSET + 2 * e <= PAGE_SIZE);
        let e = leaf_entry_size(
            &k,
            RawValue::Overflow {
                len: 1,
                first: PageId(2),
            },
        );
        assert!(LEAF_SLOTS_OFFSET + 2 * e <= PAGE_SIZE);
        assert!(BRANCH_SLOTS_OFFSET + 3 * branch_entry_size(&k) <= PAGE_SIZE);
    }
}
