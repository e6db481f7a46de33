//! FORMAT.md's constants table must match `storage::format`, because prose
//! drifts: every row of the table is compared with the constant it names,
//! and every constant listed here must appear in the table.

use tinyjoin_engine::storage::format::*;

fn constants() -> Vec<(&'static str, u64)> {
    vec![
        ("PAGE_SIZE", PAGE_SIZE as u64),
        ("FORMAT_VERSION", u64::from(FORMAT_VERSION)),
        ("CHECKSUM_OFFSET", CHECKSUM_OFFSET as u64),
        ("CHECKSUM_LEN", CHECKSUM_LEN as u64),
        ("KIND_OFFSET", KIND_OFFSET as u64),
        ("COUNT_OFFSET", COUNT_OFFSET as u64),
        ("PAGE_HEADER_LEN", PAGE_HEADER_LEN as u64),
        ("KIND_LEAF", u64::from(KIND_LEAF)),
        ("KIND_BRANCH", u64::from(KIND_BRANCH)),
        ("KIND_OVERFLOW", u64::from(KIND_OVERFLOW)),
        ("KIND_FREELIST", u64::from(KIND_FREELIST)),
        ("KIND_SUPERBLOCK", u64::from(KIND_SUPERBLOCK)),
        ("SUPERBLOCK_SLOTS", SUPERBLOCK_SLOTS),
        ("FIRST_DATA_PAGE", FIRST_DATA_PAGE),
        ("SUPERBLOCK_COPY_LEN", SUPERBLOCK_COPY_LEN as u64),
        ("SUPERBLOCK_MAGIC_OFFSET", SUPERBLOCK_MAGIC_OFFSET as u64),
        (
            "SUPERBLOCK_VERSION_OFFSET",
            SUPERBLOCK_VERSION_OFFSET as u64,
        ),
        (
            "SUPERBLOCK_PAGE_SIZE_OFFSET",
            SUPERBLOCK_PAGE_SIZE_OFFSET as u64,
        ),
        ("SUPERBLOCK_TXN_OFFSET", SUPERBLOCK_TXN_OFFSET as u64),
        (
            "SUPERBLOCK_CATALOG_OFFSET",
            SUPERBLOCK_CATALOG_OFFSET as u64,
        ),
        (
            "SUPERBLOCK_FREELIST_OFFSET",
            SUPERBLOCK_FREELIST_OFFSET as u64,
        ),
        (
            "SUPERBLOCK_PAGE_COUNT_OFFSET",
            SUPERBLOCK_PAGE_COUNT_OFFSET as u64,
        ),
        (
            "SUPERBLOCK_COMMIT_CRC_OFFSET",
            SUPERBLOCK_COMMIT_CRC_OFFSET as u64,
        ),
        (
            "SUPERBLOCK_EXTENT_COUNT_OFFSET",
            SUPERBLOCK_EXTENT_COUNT_OFFSET as u64,
        ),
        (
            "SUPERBLOCK_EXTENTS_OFFSET",
            SUPERBLOCK_EXTENTS_OFFSET as u64,
        ),
        ("EXTENT_LEN", EXTENT_LEN as u64),
        ("SUPERBLOCK_MAX_EXTENTS", SUPERBLOCK_MAX_EXTENTS as u64),
        ("TWO_PHASE_MARKER", u64::from(TWO_PHASE_MARKER)),
        ("FREELIST_NEXT_OFFSET", FREELIST_NEXT_OFFSET as u64),
        ("FREELIST_EXTENTS_OFFSET", FREELIST_EXTENTS_OFFSET as u64),
        ("FREELIST_MAX_EXTENTS", FREELIST_MAX_EXTENTS as u64),
        ("OVERFLOW_PAYLOAD_OFFSET", OVERFLOW_PAYLOAD_OFFSET as u64),
        ("OVERFLOW_PAYLOAD_LEN", OVERFLOW_PAYLOAD_LEN as u64),
        ("MAX_KEY_LEN", MAX_KEY_LEN as u64),
        ("MAX_TREE_NAME_LEN", MAX_TREE_NAME_LEN as u64),
        ("MAX_VALUE_LEN", MAX_VALUE_LEN),
        ("MAX_TREE_DEPTH", MAX_TREE_DEPTH as u64),
    ]
}

#[test]
fn format_md_constants_match_the_code() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/FORMAT.md")).unwrap();
    let mut table = std::collections::HashMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() >= 4 && cells[1].starts_with('`') && cells[1].ends_with('`') {
            if let Ok(v) = cells[2].parse::<u64>() {
                table.insert(cells[1].trim_matches('`').to_string(), v);
            }
        }
    }
    for (name, value) in constants() {
        assert_eq!(
            table.get(name),
            Some(&value),
            "FORMAT.md's row for {name} disagrees with format.rs"
        );
    }
    assert_eq!(
        table.len(),
        constants().len(),
        "FORMAT.md lists constants this test does not know"
    );
    assert_eq!(&MAGIC, b"TinyJoin");
    assert!(doc.contains("\"TinyJoin\""));
}
