//! The retained batch limit: a large transaction stays within it by
//! spilling dirty pages, cross-checked with a counting global allocator;
//! work that cannot fit fails with `BatchLimitExceeded` and changes nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use tinyjoin_engine::storage::{FileDevice, MemoryDevice, Store, StoreOptions, TreeRead};
use tinyjoin_engine::Error;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[allow(unsafe_code)]
// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`, returning the peak heap growth above the level at the start.
fn peak_growth(f: impl FnOnce()) -> usize {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed) - base
}

// One test function: the counters are process-wide, so the measurements
// must not run concurrently with other tests in this binary.
#[test]
fn batch_limit() {
    five_thousand_1kib_rows_fit_the_default_limit();
    a_small_limit_spills_and_stays_bounded();
    a_value_over_the_limit_fails_and_changes_nothing();
}

/// A file device in a fresh temporary file: keeps the file's bytes off the
/// heap the test measures.
fn temp_file(name: &str) -> (FileDevice, std::path::PathBuf) {
    let path = std::env::temp_dir().join(format!("tinyjoin-batch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    (FileDevice::open(&path).unwrap(), path)
}

/// Cache kept small so the heap measurement is dominated by what the
/// transaction retains.
const CACHE_PAGES: usize = 64;
const CACHE_BYTES: usize = CACHE_PAGES * 8192;

fn five_thousand_1kib_rows_fit_the_default_limit() {
    let (dev, path) = temp_file("5000");
    let opts = StoreOptions {
        cache_pages: CACHE_PAGES,
        ..StoreOptions::default()
    };
    let store = Store::open(Box::new(dev), opts).unwrap();
    let limit = StoreOptions::default().batch_limit_bytes;
    let mut max_retained = 0;
    let peak = peak_growth(|| {
        let mut t = store.write().unwrap();
        t.create_tree("rows").unwrap();
        let value = vec![b'x'; 1024];
        for i in 0..5000u64 {
            t.insert("rows", &i.to_be_bytes(), &value).unwrap();
            max_retained = max_retained.max(t.retained_bytes());
        }
        t.commit().unwrap();
    });
    println!("5000 x 1 KiB: engine retained at most {max_retained} bytes, heap peak {peak} bytes");
    assert!(
        max_retained <= limit,
        "retained {max_retained} over the limit {limit}"
    );
    assert!(
        peak <= limit as usize + CACHE_BYTES,
        "heap peak {peak} beyond limit + cache"
    );
    assert_eq!(store.read().unwrap().tree_len("rows").unwrap(), 5000);
    std::fs::remove_file(path).unwrap();
}

fn a_small_limit_spills_and_stays_bounded() {
    let limit = 1u64 << 20;
    let (dev, path) = temp_file("spill");
    let opts = StoreOptions {
        batch_limit_bytes: limit,
        cache_pages: CACHE_PAGES,
        ..StoreOptions::default()
    };
    let store = Store::open(Box::new(dev), opts.clone()).unwrap();
    let mut max_retained = 0;
    let mut t = store.write().unwrap();
    t.create_tree("rows").unwrap();
    let value = vec![b'y'; 1024];
    let peak = peak_growth(|| {
        for i in 0..10_000u64 {
            t.insert("rows", &i.to_be_bytes(), &value).unwrap();
            max_retained = max_retained.max(t.retained_bytes());
        }
    });
    t.commit().unwrap();
    drop(store);
    println!(
        "10000 x 1 KiB under a 1 MiB limit: retained at most {max_retained}, heap peak {peak}"
    );
    assert!(
        max_retained <= limit,
        "retained {max_retained} over the limit {limit}"
    );
    assert!(
        peak <= limit as usize + CACHE_BYTES,
        "heap grew {peak} bytes, beyond limit + cache"
    );
    let store = Store::open(Box::new(FileDevice::open(&path).unwrap()), opts).unwrap();
    let r = store.read().unwrap();
    assert_eq!(r.tree_len("rows").unwrap(), 10_000);
    assert_eq!(
        r.get("rows", &9999u64.to_be_bytes()).unwrap().unwrap(),
        value
    );
    std::fs::remove_file(path).unwrap();
}

fn a_value_over_the_limit_fails_and_changes_nothing() {
    let dev = MemoryDevice::new();
    let opts = StoreOptions {
        batch_limit_bytes: 1 << 20,
        ..StoreOptions::default()
    };
    let store = Store::open(Box::new(dev.clone()), opts).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    t.insert("t", b"a", b"1").unwrap();
    t.commit().unwrap();
    let before = dev.to_bytes();
    let mut t = store.write().unwrap();
    let err = t.insert("t", b"b", &vec![0u8; (1 << 20) + 1]).unwrap_err();
    assert!(matches!(err, Error::BatchLimitExceeded { .. }), "{err:?}");
    t.rollback();
    assert_eq!(dev.to_bytes(), before, "the file changed");
    assert_eq!(store.read().unwrap().get("t", b"b").unwrap(), None);
}
