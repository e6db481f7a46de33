//! Opens arbitrary bytes as a database and walks everything it can reach:
//! the only acceptable outcomes are a typed error or consistent reads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::ops::Bound;
use tinyjoin_engine::storage::{MemoryDevice, Store, StoreOptions, TreeRead, Validation};

fn walk(store: &Store) {
    let Ok(r) = store.read() else { return };
    let Ok(names) = r.tree_names() else { return };
    for name in names {
        if let Ok(mut it) = r.range(&name, Bound::Unbounded, Bound::Unbounded) {
            while let Ok(Some(_)) = it.next() {}
        }
        if let Ok(mut it) = r.range(&name, Bound::Unbounded, Bound::Unbounded) {
            while let Ok(Some(_)) = it.next_back() {}
        }
    }
    let _ = store.check();
    // A write on top must either work or fail cleanly.
    if let Ok(mut t) = store.write() {
        let _ = t.create_tree("fuzz");
        let _ = t.insert("fuzz", b"k", b"v");
        let _ = t.commit();
    }
}

fuzz_target!(|data: &[u8]| {
    for validation in [Validation::Full, Validation::Quick] {
        let opts = StoreOptions {
            validation,
            cache_pages: 16,
            ..StoreOptions::default()
        };
        if let Ok(store) = Store::open(Box::new(MemoryDevice::from_bytes(data.to_vec())), opts) {
            walk(&store);
        }
    }
});
