//! The command line's allocator: mimalloc, called directly
//! ([`Allocator`], the global allocator of `src/bin/inquiry-model.rs`, the
//! bench and the measuring examples), returning freed memory to the
//! operating system at once.
//!
//! mimalloc purges a freed page 10 ms after it is freed, and a page of its
//! arenas 10 times later (`purge_delay`, `arena_purge_mult`). On one turn
//! of 10^6 answered pairs (rule `PERF-TURN-MEMORY`) the checker's live
//! heap is 56 MiB and the process's peak was 71 MiB; with no delay it is
//! 63 MiB, in the same time (docs/decisions/performance.md, "Performance:
//! the binaries' allocator").

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_option_set_default, mi_option_t, mi_realloc,
    mi_realloc_aligned, mi_zalloc, mi_zalloc_aligned,
};
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// The global allocator of the command line, the bench and the measuring
/// examples: mimalloc, asked through its plain entry points whenever the
/// alignment is at most a word's.
///
/// Every block mimalloc hands out is word-aligned (its size classes are
/// whole words and its pages start aligned), so a layout aligned to a word
/// or less needs no aligned call. The `mimalloc` crate's allocator sends
/// every layout through `mi_malloc_aligned`, whose fast path only takes a
/// free block that happens to be aligned, and whose slow path, once a size
/// class's page has no free block, serves a class that is not a power of
/// two (48, 80, 96 bytes) by over-allocating: 8% of the model's
/// allocations went that way (rule `PERF-ALLOCATOR`;
/// docs/decisions/performance.md, "Performance: the binaries' allocator").
/// Larger alignments keep mimalloc's aligned calls.
pub struct Allocator;

/// The alignment every mimalloc block has: one machine word.
const WORD: usize = std::mem::size_of::<usize>();

/// Whether `layout` takes mimalloc's plain calls: the one place the line
/// between the plain and the aligned calls is drawn (rule `PERF-ALLOCATOR`).
#[inline]
fn plain(layout: Layout) -> bool {
    layout.align() <= WORD
}

// SAFETY: each method hands the layout's size (and, above a word, its
// alignment) to the mimalloc call of the same contract; a block taken by
// either kind of call is freed and resized by mimalloc's own `mi_free` and
// `mi_realloc*`, which accept both. A plain call's block is word-aligned,
// which meets any alignment up to a word (tested by
// `every_layout_gets_a_block_aligned_as_it_asks`).
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's allocation calls take any size and any
        // power-of-two alignment (a `Layout`'s alignment is one).
        unsafe {
            if plain(layout) {
                mi_malloc(layout.size()).cast()
            } else {
                mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe {
            if plain(layout) {
                mi_zalloc(layout.size()).cast()
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator, so from mimalloc.
        unsafe { mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`'s alignment,
        // which the resized block keeps.
        unsafe {
            if plain(layout) {
                mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

/// mimalloc's `mi_option_purge_delay`: its place in the `mi_option_e`
/// enumeration of the mimalloc the crate builds (v3's `mimalloc.h`;
/// libmimalloc-sys names only some options). The tests read it back
/// through `MIMALLOC_PURGE_DELAY`, so a mimalloc that numbers its options
/// otherwise fails them.
const PURGE_DELAY: mi_option_t = 15;

/// Makes mimalloc purge freed memory at once, unless the user set
/// `MIMALLOC_PURGE_DELAY` (the environment still decides). Called at the
/// process's entry, before any thread starts.
pub(super) fn purge_freed_memory_at_once() {
    // SAFETY: `mi_option_set_default` takes any option number mimalloc
    // knows (an unknown one is ignored) and is called before the process
    // starts a thread, as mimalloc asks of its option setters.
    unsafe { mi_option_set_default(PURGE_DELAY, 0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// The sizes the alignment tests ask for: every size up to two small
    /// pages' worth of classes, then sizes around mimalloc's larger
    /// classes and past its huge-object threshold.
    fn sizes() -> impl Iterator<Item = usize> {
        (1..=1100).chain([
            4095,
            4096,
            4097,
            8191,
            65_536,
            65_537,
            1 << 20,
            (1 << 20) + 8,
            33 << 20,
        ])
    }

    /// Rule: PERF-ALLOCATOR — the command line's allocator meets every
    /// layout's alignment, through the plain calls (a word or less) and the
    /// aligned ones alike: each block of every size from 1 to 1 100 bytes,
    /// and of larger and huge sizes, at every alignment from 1 to 4 096, is
    /// aligned as asked, holds what is written to all of it, is zero when
    /// asked zeroed, and keeps its bytes and alignment when grown and
    /// shrunk. Thirty blocks of each layout are held at once, so a size
    /// class runs past its first page's free blocks.
    #[test]
    fn every_layout_gets_a_block_aligned_as_it_asks() {
        for align in (0..=12).map(|shift| 1usize << shift) {
            for size in sizes() {
                let layout = Layout::from_size_align(size, align).expect("a layout");
                let mut held = Vec::new();
                for round in 0..30u8 {
                    let zeroed = round % 2 == 1;
                    // SAFETY: a non-zero size; each block is freed below
                    // with its layout.
                    let p = unsafe {
                        if zeroed {
                            Allocator.alloc_zeroed(layout)
                        } else {
                            Allocator.alloc(layout)
                        }
                    };
                    assert!(!p.is_null(), "size {size}, align {align}: no block");
                    assert_eq!(p as usize % align, 0, "size {size}, align {align}: {p:p}");
                    // SAFETY: the block holds `size` bytes.
                    let bytes = unsafe { std::slice::from_raw_parts_mut(p, size) };
                    if zeroed {
                        assert!(bytes.iter().all(|b| *b == 0), "size {size}: not zeroed");
                    }
                    bytes.fill(round);
                    held.push((p, round));
                    if size > 4096 && round > 1 {
                        break;
                    }
                }
                for (p, round) in held {
                    let grown = size * 2 + 8;
                    // SAFETY: `p` came from `Allocator` with `layout`.
                    let q = unsafe { Allocator.realloc(p, layout, grown) };
                    assert_eq!(q as usize % align, 0, "grown {size}, align {align}");
                    // SAFETY: the grown block holds `grown` bytes, the first
                    // `size` of them copied.
                    let kept = unsafe { std::slice::from_raw_parts(q, size) };
                    assert!(kept.iter().all(|b| *b == round), "grown {size}: bytes lost");
                    let shrunk = size.div_ceil(2);
                    let grown_layout = Layout::from_size_align(grown, align).expect("a layout");
                    // SAFETY: `q` came from `Allocator` with `grown_layout`.
                    let r = unsafe { Allocator.realloc(q, grown_layout, shrunk) };
                    assert_eq!(r as usize % align, 0, "shrunk {size}, align {align}");
                    // SAFETY: the shrunk block keeps its first `shrunk` bytes.
                    let kept = unsafe { std::slice::from_raw_parts(r, shrunk) };
                    assert!(
                        kept.iter().all(|b| *b == round),
                        "shrunk {size}: bytes lost"
                    );
                    let shrunk_layout = Layout::from_size_align(shrunk, align).expect("a layout");
                    // SAFETY: `r` came from `Allocator` with `shrunk_layout`.
                    unsafe { Allocator.dealloc(r, shrunk_layout) };
                }
            }
        }
    }

    /// Rule: PERF-ALLOCATOR — the line between the plain and the aligned
    /// calls is where it must be: mimalloc's plain call gives every block
    /// a word's alignment, but not two words' (blocks of one word sit a
    /// word apart), so an allocator that sent larger alignments to the
    /// plain call would return misaligned blocks.
    #[test]
    fn plain_blocks_are_word_aligned_and_no_more() {
        let mut off_two_words = 0;
        let mut held = Vec::new();
        for _ in 0..64 {
            // SAFETY: a non-zero size; freed below.
            let p = unsafe { mi_malloc(WORD) };
            assert_eq!(p as usize % WORD, 0, "{p:p}");
            off_two_words += usize::from(!(p as usize).is_multiple_of(2 * WORD));
            held.push(p);
        }
        for p in held {
            // SAFETY: from `mi_malloc`.
            unsafe { mi_free(p) };
        }
        assert!(
            off_two_words > 0,
            "every one-word block was two-word aligned"
        );
    }

    /// The environment variable that makes a run of this test binary the
    /// child of [`the_purge_delay_option_is_mimallocs`].
    const CHILD: &str = "INQUIRY_MODEL_ALLOCATOR_CHILD";

    /// Rule: PERF-TURN-MEMORY — the option set is mimalloc's purge delay:
    /// in a process whose environment sets `MIMALLOC_PURGE_DELAY=777` the
    /// option reads 777 (mimalloc read it from the environment under that
    /// name, and the setting left it alone); in one that does not, it
    /// reads 0, the setting. With another option's number the first reads
    /// that option's value.
    ///
    /// Each reading is taken in a fresh process, this test run again as
    /// [`CHILD`]: mimalloc reads an option's environment variable once per
    /// process, and the setting must come before any other thread starts.
    #[test]
    fn the_purge_delay_option_is_mimallocs() {
        if std::env::var_os(CHILD).is_some() {
            purge_freed_memory_at_once();
            // SAFETY: reading an option; the child runs this one test alone.
            let got = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
            println!("purge_delay={got}");
            return;
        }
        let me = std::env::current_exe().expect("the test binary");
        let name = format!("{}::the_purge_delay_option_is_mimallocs", module_path!());
        let name = name.split_once("::").map_or(name.as_str(), |(_, n)| n);
        for (env, expected) in [(Some("777"), "777"), (None, "0")] {
            let mut child = Command::new(&me);
            child.args(["--exact", name, "--nocapture", "--test-threads", "1"]);
            child.env(CHILD, "1").env_remove("MIMALLOC_PURGE_DELAY");
            if let Some(v) = env {
                child.env("MIMALLOC_PURGE_DELAY", v);
            }
            let out = child.output().expect("the test binary runs");
            let text = String::from_utf8_lossy(&out.stdout);
            // The harness prints the test's name on the same line.
            let read = text
                .split_once("purge_delay=")
                .and_then(|(_, rest)| rest.split_whitespace().next());
            assert!(
                out.status.success() && read == Some(expected),
                "MIMALLOC_PURGE_DELAY={env:?}: expected {expected}, read {read:?}: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}
