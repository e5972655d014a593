//! The command line's allocator settings: mimalloc (the binary's global
//! allocator, `src/bin/inquiry-model.rs`) returns freed memory to the
//! operating system at once.
//!
//! mimalloc purges a freed page 10 ms after it is freed, and a page of its
//! arenas 10 times later (`purge_delay`, `arena_purge_mult`). On one turn
//! of 10^6 answered pairs (rule `PERF-TURN-MEMORY`) the checker's live
//! heap is 56 MiB and the process's peak was 71 MiB; with no delay it is
//! 63 MiB, in the same time (docs/decisions/performance.md, "Performance:
//! the binaries' allocator").

use libmimalloc_sys::{mi_option_set_default, mi_option_t};

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
