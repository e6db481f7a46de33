//! The one code mirror of `engine/FORMAT.md`: every on-disk constant, the
//! page header, the checksum rule and the superblock. A test
//! (`tests/format_doc.rs`) compares FORMAT.md's tables with these constants.
//!
//! All integers are little-endian. Identifiers stored on disk are fixed-width
//! newtypes ([`PageId`], [`TxnId`]), never `usize`.

use crate::{corrupt, Result};

/// Size of every page, superblocks included.
pub const PAGE_SIZE: usize = 4096;
/// `PAGE_SIZE` as a device offset multiplier.
pub const PAGE_SIZE_U64: u64 = PAGE_SIZE as u64;
/// Format version written by this code.
pub const FORMAT_VERSION: u32 = 4;
/// Magic bytes at `SUPERBLOCK_MAGIC_OFFSET`.
pub const MAGIC: [u8; 8] = *b"TinyJoin";

/// Every page starts with its checksum (FORMAT.md, section 3) at this offset.
pub const CHECKSUM_OFFSET: usize = 0;
/// Width of the checksum field.
pub const CHECKSUM_LEN: usize = 4;
/// The page kind byte.
pub const KIND_OFFSET: usize = CHECKSUM_OFFSET + CHECKSUM_LEN;
/// Length of the common page header (checksum, kind, flags, count).
pub const PAGE_HEADER_LEN: usize = 8;
/// Offset of the u16 entry count in leaf, branch and free-list pages.
pub const COUNT_OFFSET: usize = 6;

/// Page kinds (the byte at `KIND_OFFSET`).
pub const KIND_LEAF: u8 = 1;
pub const KIND_BRANCH: u8 = 2;
pub const KIND_OVERFLOW: u8 = 3;
pub const KIND_FREELIST: u8 = 4;
pub const KIND_SUPERBLOCK: u8 = 5;

/// Superblock slots: pages 0 and 1. Data pages start after them.
pub const SUPERBLOCK_SLOTS: u64 = 2;
pub const FIRST_DATA_PAGE: u64 = SUPERBLOCK_SLOTS;

/// A superblock page holds two identical copies of the superblock, one per
/// half, each with its own checksum: a flipped bit in one copy leaves the
/// other readable, so damage to the newest superblock never silently rolls
/// the database back.
pub const SUPERBLOCK_COPY_LEN: usize = PAGE_SIZE / 2;
pub const SUPERBLOCK_COPIES: usize = PAGE_SIZE / SUPERBLOCK_COPY_LEN;
pub const SUPERBLOCK_MAGIC_OFFSET: usize = PAGE_HEADER_LEN;
pub const SUPERBLOCK_VERSION_OFFSET: usize = SUPERBLOCK_MAGIC_OFFSET + MAGIC.len();
pub const SUPERBLOCK_PAGE_SIZE_OFFSET: usize = SUPERBLOCK_VERSION_OFFSET + 4;
pub const SUPERBLOCK_TXN_OFFSET: usize = SUPERBLOCK_PAGE_SIZE_OFFSET + 4;
pub const SUPERBLOCK_CATALOG_OFFSET: usize = SUPERBLOCK_TXN_OFFSET + 8;
pub const SUPERBLOCK_FREELIST_OFFSET: usize = SUPERBLOCK_CATALOG_OFFSET + 8;
pub const SUPERBLOCK_PAGE_COUNT_OFFSET: usize = SUPERBLOCK_FREELIST_OFFSET + 8;
pub const SUPERBLOCK_COMMIT_CRC_OFFSET: usize = SUPERBLOCK_PAGE_COUNT_OFFSET + 8;
pub const SUPERBLOCK_EXTENT_COUNT_OFFSET: usize = SUPERBLOCK_COMMIT_CRC_OFFSET + 4;
pub const SUPERBLOCK_EXTENTS_OFFSET: usize = SUPERBLOCK_EXTENT_COUNT_OFFSET + 4;
/// One commit extent: first page (u64) and page count (u32).
pub const EXTENT_LEN: usize = 12;
/// Commit extents that fit in a superblock copy. A one-flush commit whose
/// pages form more runs than this falls back to the two-flush protocol.
pub const SUPERBLOCK_MAX_EXTENTS: usize =
    (SUPERBLOCK_COPY_LEN - SUPERBLOCK_EXTENTS_OFFSET) / EXTENT_LEN;
/// `extent_count` value meaning "two-flush commit: the pages were durable
/// before this superblock was written; nothing to verify".
pub const TWO_PHASE_MARKER: u32 = u32::MAX;

/// Free-list page: header, then `next` page, then extents.
pub const FREELIST_NEXT_OFFSET: usize = PAGE_HEADER_LEN;
pub const FREELIST_EXTENTS_OFFSET: usize = FREELIST_NEXT_OFFSET + 8;
pub const FREELIST_MAX_EXTENTS: usize = (PAGE_SIZE - FREELIST_EXTENTS_OFFSET) / EXTENT_LEN;

/// Overflow page: header, then payload.
pub const OVERFLOW_PAYLOAD_OFFSET: usize = PAGE_HEADER_LEN;
pub const OVERFLOW_PAYLOAD_LEN: usize = PAGE_SIZE - OVERFLOW_PAYLOAD_OFFSET;

/// Longest key a tree accepts.
pub const MAX_KEY_LEN: usize = 1024;
/// Longest tree name.
pub const MAX_TREE_NAME_LEN: usize = 255;
/// Largest value (values beyond the inline limit go to overflow pages).
pub const MAX_VALUE_LEN: u64 = 1 << 30;
/// Deepest tree a valid file can hold; deeper means corrupt (guards recursion).
pub const MAX_TREE_DEPTH: usize = 32;

/// A page number. Page `n` lives at byte `n * PAGE_SIZE`. 0 never names a
/// tree page (it is a superblock), so 0 means "none" in root fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct PageId(pub u64);

impl PageId {
    pub const NONE: PageId = PageId(0);

    /// Byte offset of this page on the device.
    pub fn offset(self) -> u64 {
        self.0 * PAGE_SIZE_U64
    }

    pub fn is_none(self) -> bool {
        self.0 == 0
    }
}

/// A commit's transaction id; increases by one per commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TxnId(pub u64);

/// A page buffer aligned to 4 KiB, so page copies never hit the slow memcpy
/// path two back-to-back `Vec<u8>` allocations can give.
#[repr(C, align(4096))]
pub struct PageBuf(pub [u8; PAGE_SIZE]);

impl PageBuf {
    pub fn zeroed() -> Box<PageBuf> {
        Box::new(PageBuf([0; PAGE_SIZE]))
    }
}

/// The checksum rule, used by every reader and writer of pages: the low 32
/// bits of XXH64 of bytes `CHECKSUM_LEN..PAGE_SIZE` seeded with the page
/// number, so a page written to the wrong place fails as surely as a
/// flipped bit.
pub fn page_checksum(page: &[u8], id: PageId) -> u32 {
    super::xxh64::xxh64(&page[CHECKSUM_LEN..PAGE_SIZE], id.0) as u32
}

/// Stamps the checksum into a page about to be written.
pub fn seal_page(page: &mut [u8], id: PageId) {
    let crc = page_checksum(page, id);
    page[CHECKSUM_OFFSET..CHECKSUM_OFFSET + CHECKSUM_LEN].copy_from_slice(&crc.to_le_bytes());
}

/// Verifies a page just read; `Corrupt { page }` on mismatch.
pub fn verify_page(page: &[u8], id: PageId) -> Result<()> {
    let stored = read_u32(page, CHECKSUM_OFFSET);
    let actual = page_checksum(page, id);
    if stored != actual {
        return Err(corrupt!(
            id.0,
            "checksum mismatch (stored {stored:#010x}, computed {actual:#010x})"
        ));
    }
    Ok(())
}

pub fn read_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub fn read_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

pub fn write_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

pub fn write_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

pub fn write_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// A run of consecutive pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    pub start: u64,
    pub len: u32,
}

/// The decoded superblock: the root of one committed state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Superblock {
    pub txn: TxnId,
    pub catalog_root: PageId,
    pub freelist_root: PageId,
    /// Logical length of the file in pages (superblocks included).
    pub page_count: u64,
    /// CRC-32 over the checksums of every page this commit wrote, in page
    /// order; checked on open when `extents` is `Some`.
    pub commit_crc: u32,
    /// The pages this commit wrote, or `None` for a two-flush commit.
    pub extents: Option<Vec<Extent>>,
}

impl Superblock {
    /// A copy without `extents`, for a read snapshot: it reads the roots and
    /// the page count only, and the pages the last commit wrote (kept for
    /// that commit's confirmation) would be a copy per read transaction.
    pub fn without_extents(&self) -> Superblock {
        Superblock {
            txn: self.txn,
            catalog_root: self.catalog_root,
            freelist_root: self.freelist_root,
            page_count: self.page_count,
            commit_crc: self.commit_crc,
            extents: None,
        }
    }

    /// Encodes into a page for slot `slot`: two sealed copies.
    pub fn encode(&self, slot: PageId) -> Box<PageBuf> {
        let mut p = PageBuf::zeroed();
        let (first, second) = p.0.split_at_mut(SUPERBLOCK_COPY_LEN);
        self.encode_copy(first);
        seal_superblock_copy(first, slot);
        second.copy_from_slice(first);
        p
    }

    fn encode_copy(&self, b: &mut [u8]) {
        b[KIND_OFFSET] = KIND_SUPERBLOCK;
        b[SUPERBLOCK_MAGIC_OFFSET..SUPERBLOCK_MAGIC_OFFSET + MAGIC.len()].copy_from_slice(&MAGIC);
        write_u32(b, SUPERBLOCK_VERSION_OFFSET, FORMAT_VERSION);
        write_u32(b, SUPERBLOCK_PAGE_SIZE_OFFSET, PAGE_SIZE as u32);
        write_u64(b, SUPERBLOCK_TXN_OFFSET, self.txn.0);
        write_u64(b, SUPERBLOCK_CATALOG_OFFSET, self.catalog_root.0);
        write_u64(b, SUPERBLOCK_FREELIST_OFFSET, self.freelist_root.0);
        write_u64(b, SUPERBLOCK_PAGE_COUNT_OFFSET, self.page_count);
        write_u32(b, SUPERBLOCK_COMMIT_CRC_OFFSET, self.commit_crc);
        match &self.extents {
            None => write_u32(b, SUPERBLOCK_EXTENT_COUNT_OFFSET, TWO_PHASE_MARKER),
            Some(ext) => {
                // Callers pass at most SUPERBLOCK_MAX_EXTENTS (commit checks).
                let n = ext.len().min(SUPERBLOCK_MAX_EXTENTS);
                write_u32(b, SUPERBLOCK_EXTENT_COUNT_OFFSET, n as u32);
                for (i, e) in ext.iter().take(n).enumerate() {
                    let at = SUPERBLOCK_EXTENTS_OFFSET + i * EXTENT_LEN;
                    write_u64(b, at, e.start);
                    write_u32(b, at + 8, e.len);
                }
            }
        }
    }

    /// Decodes both copies of a superblock page read from `slot`: the valid
    /// ones (one, two, or none with the first error).
    pub fn decode_page(page: &[u8], slot: PageId) -> Result<Vec<Superblock>> {
        let mut out = Vec::new();
        let mut err = None;
        for copy in page.chunks(SUPERBLOCK_COPY_LEN) {
            match Superblock::decode_copy(copy, slot) {
                Ok(sb) if !out.contains(&sb) => out.push(sb),
                Ok(_) => {}
                Err(e) => err = Some(e),
            }
        }
        match (out.is_empty(), err) {
            (true, Some(e)) => Err(e),
            _ => Ok(out),
        }
    }

    /// Decodes and checks one superblock copy.
    fn decode_copy(b: &[u8], slot: PageId) -> Result<Superblock> {
        let stored = read_u32(b, CHECKSUM_OFFSET);
        if stored != superblock_copy_checksum(b, slot) {
            let version = read_u32(b, SUPERBLOCK_VERSION_OFFSET);
            if version < FORMAT_VERSION && b[SUPERBLOCK_MAGIC_OFFSET..][..8] == MAGIC {
                // Format 1 checksummed with CRC-32 (FORMAT.md, section 14).
                return Err(corrupt!(
                    slot.0,
                    "format version {version} (written by an older TinyJoin) is not supported \
                     by this version (format {FORMAT_VERSION})"
                ));
            }
            return Err(corrupt!(slot.0, "superblock checksum mismatch"));
        }
        if b[KIND_OFFSET] != KIND_SUPERBLOCK
            || b[SUPERBLOCK_MAGIC_OFFSET..SUPERBLOCK_MAGIC_OFFSET + 8] != MAGIC
        {
            return Err(corrupt!(slot.0, "not a TinyJoin superblock"));
        }
        let version = read_u32(b, SUPERBLOCK_VERSION_OFFSET);
        if version < FORMAT_VERSION {
            // Format 2's bytes differ only in the SQL layer's keys (FORMAT.md,
            // section 14): its superblock checks, its keys would misorder.
            return Err(corrupt!(
                slot.0,
                "format version {version} (written by an older TinyJoin) is not supported \
                 by this version (format {FORMAT_VERSION})"
            ));
        }
        if version != FORMAT_VERSION {
            return Err(corrupt!(slot.0, "unsupported format version {version}"));
        }
        let page_size = read_u32(b, SUPERBLOCK_PAGE_SIZE_OFFSET);
        if page_size as usize != PAGE_SIZE {
            return Err(corrupt!(slot.0, "unsupported page size {page_size}"));
        }
        let page_count = read_u64(b, SUPERBLOCK_PAGE_COUNT_OFFSET);
        let in_range = |p: u64| p == 0 || (p >= FIRST_DATA_PAGE && p < page_count);
        let catalog_root = read_u64(b, SUPERBLOCK_CATALOG_OFFSET);
        let freelist_root = read_u64(b, SUPERBLOCK_FREELIST_OFFSET);
        if page_count < FIRST_DATA_PAGE || !in_range(catalog_root) || !in_range(freelist_root) {
            return Err(corrupt!(slot.0, "superblock fields out of range"));
        }
        let count = read_u32(b, SUPERBLOCK_EXTENT_COUNT_OFFSET);
        let extents = if count == TWO_PHASE_MARKER {
            None
        } else {
            if count as usize > SUPERBLOCK_MAX_EXTENTS {
                return Err(corrupt!(slot.0, "superblock lists {count} extents"));
            }
            let mut v = Vec::with_capacity(count as usize);
            for i in 0..count as usize {
                let at = SUPERBLOCK_EXTENTS_OFFSET + i * EXTENT_LEN;
                let e = Extent {
                    start: read_u64(b, at),
                    len: read_u32(b, at + 8),
                };
                let end = e.start.checked_add(u64::from(e.len));
                if e.start < FIRST_DATA_PAGE || end.is_none_or(|end| end > page_count) {
                    return Err(corrupt!(slot.0, "commit extent out of range"));
                }
                v.push(e);
            }
            Some(v)
        };
        Ok(Superblock {
            txn: TxnId(read_u64(b, SUPERBLOCK_TXN_OFFSET)),
            catalog_root: PageId(catalog_root),
            freelist_root: PageId(freelist_root),
            page_count,
            commit_crc: read_u32(b, SUPERBLOCK_COMMIT_CRC_OFFSET),
            extents,
        })
    }
}

/// The checksum of one superblock copy: the low 32 bits of XXH64 of its
/// bytes after the checksum field, seeded with the slot's page number.
fn superblock_copy_checksum(copy: &[u8], slot: PageId) -> u32 {
    super::xxh64::xxh64(&copy[CHECKSUM_LEN..SUPERBLOCK_COPY_LEN], slot.0) as u32
}

fn seal_superblock_copy(copy: &mut [u8], slot: PageId) {
    let crc = superblock_copy_checksum(copy, slot);
    write_u32(copy, CHECKSUM_OFFSET, crc);
}

const _: () = assert!(SUPERBLOCK_MAX_EXTENTS >= 160);
const _: () = assert!(FREELIST_MAX_EXTENTS >= 300);
const _: () = assert!(std::mem::size_of::<PageBuf>() == PAGE_SIZE);

#[cfg(test)]
mod tests {
    use super::*;

    fn superblock() -> Superblock {
        Superblock {
            txn: TxnId(3),
            catalog_root: PageId(FIRST_DATA_PAGE),
            freelist_root: PageId::NONE,
            page_count: FIRST_DATA_PAGE + 1,
            commit_crc: 0,
            extents: None,
        }
    }

    #[test]
    fn a_superblock_round_trips_and_its_slot_is_bound() {
        let page = superblock().encode(PageId(1));
        assert_eq!(
            Superblock::decode_page(&page.0, PageId(1)).unwrap(),
            vec![superblock()]
        );
        assert!(Superblock::decode_page(&page.0, PageId(0)).is_err());
    }

    /// The error opening a superblock page of format `version` whose
    /// copies carry the checksums `checksum` gives (that format's own).
    fn older_format_error(version: u32, checksum: impl Fn(&[u8]) -> u32) -> String {
        let mut page = superblock().encode(PageId(0));
        for copy in page.0.chunks_mut(SUPERBLOCK_COPY_LEN) {
            write_u32(copy, SUPERBLOCK_VERSION_OFFSET, version);
            let sum = checksum(copy);
            write_u32(copy, CHECKSUM_OFFSET, sum);
        }
        Superblock::decode_page(&page.0, PageId(0))
            .unwrap_err()
            .to_string()
    }

    /// A format 1 superblock (CRC-32 checksums) is refused by name, not as
    /// damage.
    #[test]
    fn a_format_1_file_is_refused_with_its_version() {
        let e = older_format_error(1, |copy| {
            let mut h = crc32fast::Hasher::new();
            h.update(&copy[CHECKSUM_LEN..]);
            h.update(&0u64.to_le_bytes());
            h.finalize()
        });
        assert!(e.contains("format version 1"), "{e}");
    }

    /// Format 2 and 3 superblocks (same checksums; older SQL keys, older
    /// leaf entry heads) are refused by name too.
    #[test]
    fn format_2_and_3_files_are_refused_with_their_version() {
        for version in [2, 3] {
            let e = older_format_error(version, |copy| superblock_copy_checksum(copy, PageId(0)));
            assert!(e.contains(&format!("format version {version}")), "{e}");
            assert!(e.contains("older TinyJoin"), "{e}");
        }
    }
}
