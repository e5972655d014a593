//! Test builds only: the unit tests' global allocator counts the bytes each
//! thread holds, so a structure's own `heap_bytes` figure (the number rule
//! `PERF-TURN-MEMORY` is judged by) can be compared with what the allocator
//! actually gave it, an independent source.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// The highest `LIVE` since [`peak_above`] last reset it.
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(n: isize) {
    // `try_with`: a thread being torn down still frees memory.
    let _ = LIVE.try_with(|c| {
        let live = c.get() + n;
        c.set(live);
        let _ = PEAK.try_with(|p| p.set(p.get().max(live)));
    });
}

/// The system allocator, counting.
struct Counting;

// SAFETY: every call is forwarded unchanged to `System`; the counter is a
// `const`-initialized thread-local without a destructor, which allocates
// nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        add(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Bytes allocated and not yet freed by this thread.
pub(crate) fn live() -> isize {
    LIVE.with(Cell::get)
}

/// The bytes `build` leaves allocated on this thread (what it returns holds),
/// and what it returns.
pub(crate) fn held_by<T>(build: impl FnOnce() -> T) -> (usize, T) {
    let before = live();
    let t = build();
    let after = live();
    (usize::try_from(after - before).unwrap_or(0), t)
}

/// The most bytes `run` had allocated at once on this thread beyond what
/// was live when it started (what it returns included), and what it
/// returns: a transient buffer shows here, not in [`held_by`].
pub(crate) fn peak_above<T>(run: impl FnOnce() -> T) -> (usize, T) {
    let before = live();
    PEAK.with(|p| p.set(before));
    let t = run();
    let peak = PEAK.with(Cell::get);
    (usize::try_from(peak - before).unwrap_or(0), t)
}

/// Asserts that a structure's own heap figure (`counted`) is between
/// `low` and all of what the allocator holds for it (`held`): never over.
pub(crate) fn assert_counted(what: &str, counted: usize, held: usize, low: f64) {
    let r = counted as f64 / held as f64;
    assert!(
        (low..=1.0).contains(&r),
        "{what}: counted {counted} of {held} bytes held ({r:.3})"
    );
}
