//! The wasm build's memory allocator: size-class free lists for small
//! blocks in front of the standard allocator (dlmalloc on wasm32).
//!
//! Why: the engine allocates and frees many small blocks per row and per
//! statement (row vectors, text values, keys). dlmalloc's `free` coalesces
//! neighbours and keeps bins; without glibc's thread cache that bookkeeping
//! was most of the allocator's cost. Here a small block is popped from, or
//! pushed onto, a singly linked list of its size class: a handful of
//! instructions, no header, no coalescing.
//!
//! How:
//! - A request of at most [`SMALL_MAX_SIZE`] bytes with alignment of at most
//!   [`SMALL_ALIGN`] is rounded up to one of [`CLASS_SIZES`]. Its block comes
//!   from that class's free list, else from the current chunk: a
//!   [`CHUNK_SIZE`]-byte region taken from the backing allocator and handed
//!   out front to back. Everything else goes to the backing allocator.
//! - `dealloc` receives the block's layout (Rust's allocator contract), so
//!   the class is recomputed from the size: blocks carry no header.
//! - A free block holds the address of the next free block of its class in
//!   its first word; every class is at least a pointer wide.
//!
//! Invariants: a block in a free list is not live and belongs to exactly
//! one list; a live small block was handed out once and lies inside one
//! chunk; `bump..end` is the unused tail of the current chunk.
//!
//! Memory growth: the standard allocator grows the wasm memory by about
//! what a request lacks (64 KiB steps), so filling the page cache grew it
//! hundreds of times, and V8 makes each `memory.grow` expensive (a new
//! buffer object, and collections it triggers): in Node 20, 77 growths
//! during a cold join's first run (2,000 rows fetched) made it 36-61 ms
//! against 27-44 without them, and the next run, with nothing left to
//! read, 20-127 ms against 10-16. [`GrowAhead`] in front of it reserves
//! more whenever a request grew the memory: about an eighth of the memory
//! (at least [`GROW_AHEAD_MIN`]) is taken and freed at once, so the
//! standard allocator keeps it as free space and the next requests need no
//! growth. The memory grows O(log n) times for n bytes, at the cost of up
//! to an eighth more memory than the peak use.
//!
//! Cost (the simplification): chunks are never given back and a freed small
//! block serves only its own class. Memory held for small blocks is the sum
//! of each class's peak, not the peak of their total. WebAssembly memory
//! never shrinks anyway; what this loses is reuse across classes and by
//! large blocks after a burst of small ones.

use std::alloc::{GlobalAlloc, Layout};
use std::ptr;

/// Block sizes of the small classes, ascending: 8-byte steps to 64, then
/// four steps per doubling to 512 (at most 25% rounding waste).
pub const CLASS_SIZES: [usize; 20] = [
    8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512,
];

/// The largest request served from a class.
pub const SMALL_MAX_SIZE: usize = CLASS_SIZES[CLASS_SIZES.len() - 1];

/// The largest alignment a class block guarantees (every class size and the
/// chunk start are multiples of it).
pub const SMALL_ALIGN: usize = 8;

/// Bytes taken from the backing allocator at a time for small blocks.
pub const CHUNK_SIZE: usize = 64 * 1024;

/// Bytes at the start of each chunk linking it to the previous one (so
/// [`Pools`] can give chunks back when dropped).
const CHUNK_LINK_SIZE: usize = SMALL_ALIGN;

/// Granularity of [`CLASS_OF`]: requests are looked up in 8-byte steps.
const LOOKUP_STEP: usize = 8;

/// The class index of each request size rounded up to [`LOOKUP_STEP`]:
/// entry `i` serves sizes `(i - 1) * 8 + 1 ..= i * 8` (entry 0: size 0).
const CLASS_OF: [u8; SMALL_MAX_SIZE / LOOKUP_STEP + 1] = class_table();

const fn class_table() -> [u8; SMALL_MAX_SIZE / LOOKUP_STEP + 1] {
    let mut table = [0u8; SMALL_MAX_SIZE / LOOKUP_STEP + 1];
    let mut i = 0;
    let mut class = 0;
    while i < table.len() {
        while CLASS_SIZES[class] < i * LOOKUP_STEP {
            class += 1;
        }
        table[i] = class as u8;
        i += 1;
    }
    table
}

/// The class serving `layout`, or `None` when the backing allocator does.
#[inline]
fn class_of(layout: Layout) -> Option<usize> {
    if layout.size() > SMALL_MAX_SIZE || layout.align() > SMALL_ALIGN {
        return None;
    }
    Some(CLASS_OF[layout.size().div_ceil(LOOKUP_STEP)] as usize)
}

/// Small-block pools over a backing allocator `B`. Not thread-safe: the
/// caller serializes every call (the wasm build has one thread).
pub struct Pools<B: GlobalAlloc> {
    backing: B,
    /// Head of each class's free list (null when empty).
    free: [*mut u8; CLASS_SIZES.len()],
    /// Unused tail of the current chunk.
    bump: *mut u8,
    end: *mut u8,
    /// The newest chunk (each links to the one before), null before the first.
    chunks: *mut u8,
}

impl<B: GlobalAlloc> Pools<B> {
    pub const fn new(backing: B) -> Pools<B> {
        Pools {
            backing,
            free: [ptr::null_mut(); CLASS_SIZES.len()],
            bump: ptr::null_mut(),
            end: ptr::null_mut(),
            chunks: ptr::null_mut(),
        }
    }

    /// [`GlobalAlloc::alloc`].
    ///
    /// # Safety
    /// As `GlobalAlloc::alloc`: `layout` has a non-zero size.
    pub unsafe fn alloc(&mut self, layout: Layout) -> *mut u8 {
        match class_of(layout) {
            Some(c) => self.alloc_small(c),
            None => self.backing.alloc(layout),
        }
    }

    /// [`GlobalAlloc::alloc_zeroed`].
    ///
    /// # Safety
    /// As `GlobalAlloc::alloc_zeroed`.
    pub unsafe fn alloc_zeroed(&mut self, layout: Layout) -> *mut u8 {
        match class_of(layout) {
            Some(c) => {
                let p = self.alloc_small(c);
                if !p.is_null() {
                    ptr::write_bytes(p, 0, layout.size());
                }
                p
            }
            None => self.backing.alloc_zeroed(layout),
        }
    }

    /// [`GlobalAlloc::dealloc`].
    ///
    /// # Safety
    /// As `GlobalAlloc::dealloc`: `p` came from this pool with `layout`.
    pub unsafe fn dealloc(&mut self, p: *mut u8, layout: Layout) {
        match class_of(layout) {
            Some(c) => {
                p.cast::<*mut u8>().write(self.free[c]);
                self.free[c] = p;
            }
            None => self.backing.dealloc(p, layout),
        }
    }

    /// [`GlobalAlloc::realloc`]: a small block stays in place while the new
    /// size is in its class; two large ones are the backing allocator's.
    ///
    /// # Safety
    /// As `GlobalAlloc::realloc`.
    pub unsafe fn realloc(&mut self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return ptr::null_mut();
        };
        match (class_of(layout), class_of(new_layout)) {
            (None, None) => self.backing.realloc(p, layout, new_size),
            (Some(a), Some(b)) if a == b => p,
            _ => {
                let q = self.alloc(new_layout);
                if !q.is_null() {
                    ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                    self.dealloc(p, layout);
                }
                q
            }
        }
    }

    #[inline]
    unsafe fn alloc_small(&mut self, c: usize) -> *mut u8 {
        let head = self.free[c];
        if !head.is_null() {
            self.free[c] = head.cast::<*mut u8>().read();
            return head;
        }
        let size = CLASS_SIZES[c];
        if (self.end as usize) - (self.bump as usize) < size && !self.new_chunk() {
            return ptr::null_mut();
        }
        let p = self.bump;
        self.bump = p.add(size);
        p
    }

    /// Starts a fresh chunk (the old one's tail, under one block, is left
    /// unused); false when the backing allocator is out of memory.
    #[cold]
    unsafe fn new_chunk(&mut self) -> bool {
        let chunk = self.backing.alloc(chunk_layout());
        if chunk.is_null() {
            return false;
        }
        chunk.cast::<*mut u8>().write(self.chunks);
        self.chunks = chunk;
        self.bump = chunk.add(CHUNK_LINK_SIZE);
        self.end = chunk.add(CHUNK_SIZE);
        true
    }
}

impl<B: GlobalAlloc> Drop for Pools<B> {
    fn drop(&mut self) {
        let mut chunk = self.chunks;
        while !chunk.is_null() {
            // SAFETY: every chunk came from `backing` with `chunk_layout()`
            // and holds the previous chunk's address in its first word.
            unsafe {
                let prev = chunk.cast::<*mut u8>().read();
                self.backing.dealloc(chunk, chunk_layout());
                chunk = prev;
            }
        }
    }
}

fn chunk_layout() -> Layout {
    // CHUNK_SIZE is a non-zero multiple of the power-of-two SMALL_ALIGN.
    Layout::from_size_align(CHUNK_SIZE, SMALL_ALIGN).expect("constant chunk layout is valid")
}

/// The least memory [`GrowAhead`] reserves after a growth.
pub const GROW_AHEAD_MIN: usize = 4 << 20;

/// The size of the memory a backing allocator draws from.
pub trait MemorySize {
    fn bytes(&self) -> usize;
}

/// A backing allocator `B` that, whenever a call made the memory `M` grow,
/// reserves more at once: takes a block of an eighth of the memory (at
/// least [`GROW_AHEAD_MIN`]) and frees it, leaving it to `B` as free
/// space (see the module doc).
pub struct GrowAhead<B, M> {
    backing: B,
    memory: M,
}

impl<B: GlobalAlloc, M: MemorySize> GrowAhead<B, M> {
    pub const fn new(backing: B, memory: M) -> GrowAhead<B, M> {
        GrowAhead { backing, memory }
    }

    /// Reserves ahead if the memory is no longer `before` bytes.
    #[inline]
    unsafe fn after(&self, before: usize) {
        let now = self.memory.bytes();
        if now != before {
            self.reserve(now);
        }
    }

    #[cold]
    unsafe fn reserve(&self, now: usize) {
        let size = (now / 8).max(GROW_AHEAD_MIN);
        let Ok(layout) = Layout::from_size_align(size, SMALL_ALIGN) else {
            return;
        };
        // Out of memory for the reserve is not a failure: it is only ahead.
        let p = self.backing.alloc(layout);
        if !p.is_null() {
            self.backing.dealloc(p, layout);
        }
    }
}

unsafe impl<B: GlobalAlloc, M: MemorySize> GlobalAlloc for GrowAhead<B, M> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let before = self.memory.bytes();
        let p = self.backing.alloc(layout);
        self.after(before);
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let before = self.memory.bytes();
        let p = self.backing.alloc_zeroed(layout);
        self.after(before);
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        self.backing.dealloc(p, layout)
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let before = self.memory.bytes();
        let q = self.backing.realloc(p, layout, new_size);
        self.after(before);
        q
    }
}

/// The wasm module's memory (index 0), as `memory.size` reports it.
#[cfg(target_arch = "wasm32")]
pub(crate) struct WasmMemory;

#[cfg(target_arch = "wasm32")]
impl MemorySize for WasmMemory {
    #[inline]
    fn bytes(&self) -> usize {
        core::arch::wasm32::memory_size(0) << 16
    }
}

/// The global allocator of the wasm build: [`Pools`] over the standard
/// allocator, which grows the memory ahead ([`GrowAhead`]).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
pub(crate) struct WasmAllocator(
    std::cell::UnsafeCell<Pools<GrowAhead<std::alloc::System, WasmMemory>>>,
);

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
impl WasmAllocator {
    pub(crate) const fn new() -> WasmAllocator {
        WasmAllocator(std::cell::UnsafeCell::new(Pools::new(GrowAhead::new(
            std::alloc::System,
            WasmMemory,
        ))))
    }
}

// SAFETY: wasm32 without the atomics feature has exactly one thread, so
// calls never overlap, and no allocator call re-enters another (`Pools`
// calls only the system allocator).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl Sync for WasmAllocator {}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
// One out-of-line copy of each entry point: inlined into every allocation
// site they grew the module by about 40 KB.
unsafe impl GlobalAlloc for WasmAllocator {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        (*self.0.get()).alloc(layout)
    }
    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        (*self.0.get()).alloc_zeroed(layout)
    }
    #[inline(never)]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        (*self.0.get()).dealloc(p, layout)
    }
    #[inline(never)]
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        (*self.0.get()).realloc(p, layout, new_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::System;

    #[test]
    fn classes_cover_every_small_size_tightly() {
        for size in 1..=SMALL_MAX_SIZE {
            let c = class_of(Layout::from_size_align(size, 1).unwrap()).unwrap();
            assert!(
                CLASS_SIZES[c] >= size,
                "size {size} in class {}",
                CLASS_SIZES[c]
            );
            assert!(
                c == 0 || CLASS_SIZES[c - 1] < size,
                "size {size} skips a smaller class"
            );
        }
        assert!(CLASS_SIZES.iter().all(|s| s % SMALL_ALIGN == 0));
        assert!(CLASS_SIZES[0] >= std::mem::size_of::<*mut u8>());
        assert_eq!(
            class_of(Layout::from_size_align(SMALL_MAX_SIZE + 1, 1).unwrap()),
            None
        );
        assert_eq!(class_of(Layout::from_size_align(8, 16).unwrap()), None);
    }

    /// A deterministic generator (xorshift) for the sequences below.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// A live block: where, its layout, and the byte it was filled with.
    struct Live {
        p: *mut u8,
        layout: Layout,
        fill: u8,
    }

    unsafe fn check(b: &Live) {
        for i in 0..b.layout.size() {
            assert_eq!(
                *b.p.add(i),
                b.fill,
                "block {:p} byte {i} was overwritten",
                b.p
            );
        }
    }

    /// Random allocations, frees and reallocations of small and large
    /// blocks: every live block keeps its bytes, is aligned, and no two
    /// live blocks overlap.
    #[test]
    fn random_use_keeps_blocks_intact_and_apart() {
        for seed in 1..=20u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let mut pools = Pools::new(System);
            let mut live: Vec<Live> = Vec::new();
            for step in 0..4000u32 {
                let fill = step as u8;
                match rng.next() % 4 {
                    0 | 1 => {
                        let size = match rng.next() % 8 {
                            0 => 513 + (rng.next() % 5000) as usize,
                            _ => 1 + (rng.next() % SMALL_MAX_SIZE as u64) as usize,
                        };
                        let align = [1, 2, 4, 8, 16][(rng.next() % 5) as usize];
                        let layout = Layout::from_size_align(size, align).unwrap();
                        let zeroed = rng.next().is_multiple_of(4);
                        unsafe {
                            let p = if zeroed {
                                pools.alloc_zeroed(layout)
                            } else {
                                pools.alloc(layout)
                            };
                            assert!(!p.is_null());
                            assert_eq!(p as usize % align, 0, "misaligned {size}/{align}");
                            if zeroed {
                                assert!((0..size).all(|i| *p.add(i) == 0), "alloc_zeroed not zero");
                            }
                            ptr::write_bytes(p, fill, size);
                            live.push(Live { p, layout, fill });
                        }
                    }
                    2 if !live.is_empty() => {
                        let b = live.swap_remove((rng.next() % live.len() as u64) as usize);
                        unsafe {
                            check(&b);
                            pools.dealloc(b.p, b.layout);
                        }
                    }
                    _ if !live.is_empty() => {
                        let i = (rng.next() % live.len() as u64) as usize;
                        let new_size = 1 + (rng.next() % 700) as usize;
                        let b = &mut live[i];
                        unsafe {
                            check(b);
                            let q = pools.realloc(b.p, b.layout, new_size);
                            assert!(!q.is_null());
                            let kept = b.layout.size().min(new_size);
                            assert!((0..kept).all(|k| *q.add(k) == b.fill), "realloc lost bytes");
                            ptr::write_bytes(q, fill, new_size);
                            b.p = q;
                            b.layout = Layout::from_size_align(new_size, b.layout.align()).unwrap();
                            b.fill = fill;
                        }
                    }
                    _ => {}
                }
            }
            let mut spans: Vec<(usize, usize)> = live
                .iter()
                .map(|b| (b.p as usize, b.p as usize + b.layout.size()))
                .collect();
            spans.sort();
            for w in spans.windows(2) {
                assert!(w[0].1 <= w[1].0, "live blocks overlap: {w:?}");
            }
            for b in live {
                unsafe {
                    check(&b);
                    pools.dealloc(b.p, b.layout);
                }
            }
        }
    }

    /// A freed block is handed out again for its class before the chunk
    /// grows, and a reallocation within the class keeps the address.
    #[test]
    fn freed_blocks_are_reused_within_their_class() {
        let mut pools = Pools::new(System);
        let l24 = Layout::from_size_align(20, 8).unwrap();
        unsafe {
            let a = pools.alloc(l24);
            let b = pools.alloc(l24);
            pools.dealloc(a, l24);
            assert_eq!(pools.alloc(Layout::from_size_align(24, 4).unwrap()), a);
            assert_eq!(
                pools.realloc(b, l24, 17),
                b,
                "17 and 20 bytes share the 24-byte class"
            );
            let c = pools.realloc(b, Layout::from_size_align(17, 8).unwrap(), 100);
            assert_ne!(c, b);
            assert_eq!(pools.alloc(Layout::from_size_align(24, 8).unwrap()), b);
        }
    }

    /// A heap that, like the standard allocator on wasm, carves blocks
    /// from the free space at its top and grows the memory by what a
    /// request lacks (64 KiB steps); a freed block at the top joins the
    /// free space. Counts its growths.
    struct FakeHeap {
        inner: std::cell::RefCell<FakeInner>,
    }
    struct FakeInner {
        memory: usize,
        top: usize,
        grows: usize,
    }
    impl FakeHeap {
        fn new() -> FakeHeap {
            FakeHeap {
                inner: std::cell::RefCell::new(FakeInner {
                    memory: 1 << 20,
                    top: 1 << 20,
                    grows: 0,
                }),
            }
        }
    }
    unsafe impl GlobalAlloc for &FakeHeap {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let mut h = self.inner.borrow_mut();
            if h.top + layout.size() > h.memory {
                h.memory = (h.top + layout.size()).next_multiple_of(64 << 10);
                h.grows += 1;
            }
            let p = h.top;
            h.top += layout.size();
            // Addresses only: the tests never dereference them.
            ptr::without_provenance_mut(p)
        }
        unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
            let mut h = self.inner.borrow_mut();
            if p as usize + layout.size() == h.top {
                h.top = p as usize;
            }
        }
    }
    impl MemorySize for &FakeHeap {
        fn bytes(&self) -> usize {
            self.inner.borrow().memory
        }
    }

    /// Without growing ahead, 8,000 page-sized blocks grow the memory
    /// thousands of times; with it, a handful, and never by more than an
    /// eighth of the memory (or the minimum) past what is used.
    #[test]
    fn growing_ahead_makes_growths_few() {
        let page = Layout::from_size_align(4104, 8).unwrap();
        let plain = FakeHeap::new();
        for _ in 0..8000 {
            unsafe { (&plain).alloc(page) };
        }
        let fake = FakeHeap::new();
        let ahead = GrowAhead::new(&fake, &fake);
        for _ in 0..8000 {
            assert!(!unsafe { ahead.alloc(page) }.is_null());
        }
        let (plain, fake) = (plain.inner.borrow(), fake.inner.borrow());
        assert!(plain.grows > 400, "{} growths without", plain.grows);
        assert!(fake.grows <= 40, "{} growths with", fake.grows);
        assert_eq!(fake.top, (1 << 20) + 8000 * 4104);
        assert!(fake.memory - fake.top <= (fake.memory / 8).max(GROW_AHEAD_MIN) + (64 << 10));
    }

    /// More small blocks than one chunk holds: the pools chain new chunks.
    #[test]
    fn many_blocks_span_chunks() {
        let mut pools = Pools::new(System);
        let layout = Layout::from_size_align(512, 8).unwrap();
        let blocks: Vec<*mut u8> = (0..1000).map(|_| unsafe { pools.alloc(layout) }).collect();
        let mut sorted = blocks.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), blocks.len());
        for p in blocks {
            unsafe { pools.dealloc(p, layout) };
        }
    }
}
