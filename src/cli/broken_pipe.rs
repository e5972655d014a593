//! A closed standard output ends the command quietly with exit 0, as
//! ruff's and most Unix filters' do: `inquiry-model check . | head -1`
//! prints one line and no error (rule `CLI-BROKEN-PIPE`).
//!
//! Rust ignores SIGPIPE, so a write to a pipe whose reader is gone fails
//! with `EPIPE` at each of the many places a command writes. Instead of
//! teaching every one of them, SIGPIPE gets a handler: when the pipe that
//! broke is standard output (`poll` reports an error on descriptor 1), it
//! kills any `conform` adapter still running and ends the process with
//! exit 0; any other pipe (a `conform` adapter's standard input) is left to
//! the write's own `EPIPE` error, as before.

use std::sync::Once;

/// The SIGPIPE handler: only async-signal-safe calls (`poll`, `kill`
/// through the adapter list, `_exit`).
extern "C" fn on_sigpipe(_signal: libc::c_int) {
    let mut fd = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: poll(2) is async-signal-safe; one valid pollfd, no wait.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    if ready > 0 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0 {
        super::conform_command::subprocess::kill_adapters_from_signal();
        // SAFETY: _exit(2) is async-signal-safe and ends the process at
        // once: nothing is left to flush for a reader that is gone.
        unsafe { libc::_exit(super::EXIT_OK) }
    }
}

/// Installs [`on_sigpipe`], once per process.
pub(crate) fn exit_quietly_on_broken_stdout() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: a zeroed sigaction with a plain handler and an empty
        // mask is valid; `on_sigpipe` only makes async-signal-safe calls.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigpipe as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            action.sa_flags = libc::SA_RESTART;
            libc::sigaction(libc::SIGPIPE, &action, std::ptr::null_mut());
        }
    });
}
