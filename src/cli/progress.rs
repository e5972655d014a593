//! The progress of a long command on stderr: a bar with the count, the rate
//! and the time left on a terminal; with `--progress always` into a pipe or
//! a file, the same count as a plain line about once a second. Nothing is
//! drawn with `-q`, `--progress never`, or (`--progress auto`) when stderr
//! is not a terminal. Standard output never sees it.

use std::io::{self, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

use super::GlobalArgs;

/// A count of done items out of a known total, drawn on stderr as
/// [`GlobalArgs::progress_on`] says. `inc` may be called from several
/// threads at once.
#[derive(Debug)]
pub(crate) struct Progress {
    bar: ProgressBar,
    terminal: bool,
    /// `-v`: the final count and time on stderr, progress shown or not.
    verbose: bool,
    /// The count is of bytes (shown `12.00 MiB`), not of items.
    bytes: bool,
}

impl Progress {
    /// Starts counting `total` items of `what` (e.g. `explore`), each an
    /// `unit` (e.g. `scenarios`).
    pub(crate) fn start(global: &GlobalArgs, what: &str, total: u64, unit: &str) -> Progress {
        Progress::with_templates(
            global,
            what,
            total,
            unit,
            [
                "{prefix}: [{bar:30}] {human_pos}/{human_len} {msg} ({per_sec}, {eta} left)",
                "{prefix}: {pos}/{len} {msg} ({per_sec}, {eta} left)",
            ],
            false,
        )
    }

    /// Starts counting the bytes of `total` that `what` reads (e.g.
    /// `check`), shown in binary units (`512 B`, `1.50 MiB`) with the rate;
    /// `about` follows the count (e.g. the file being read, through
    /// [`Progress::set_message`]).
    pub(crate) fn start_bytes(
        global: &GlobalArgs,
        what: &str,
        total: u64,
        about: &str,
    ) -> Progress {
        Progress::with_templates(
            global,
            what,
            total,
            about,
            [
                "{prefix}: [{bar:30}] {bytes}/{total_bytes} {msg} ({bytes_per_sec}, {eta} left)",
                "{prefix}: {bytes}/{total_bytes} {msg} ({bytes_per_sec}, {eta} left)",
            ],
            true,
        )
    }

    /// [`Progress::start`] with the templates for a terminal and for plain
    /// lines.
    fn with_templates(
        global: &GlobalArgs,
        what: &str,
        total: u64,
        unit: &str,
        [on_terminal, in_lines]: [&str; 2],
        bytes: bool,
    ) -> Progress {
        use std::io::IsTerminal;
        let terminal = io::stderr().is_terminal();
        let (target, template) = if !global.progress_on() {
            (ProgressDrawTarget::hidden(), "")
        } else if terminal {
            (ProgressDrawTarget::stderr_with_hz(10), on_terminal)
        } else {
            (
                ProgressDrawTarget::term_like(Box::new(Lines::default())),
                in_lines,
            )
        };
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(total), target)
            .with_style(style)
            .with_prefix(what.to_owned())
            .with_message(unit.to_owned());
        Progress {
            bar,
            terminal,
            verbose: global.verbose > 0 && !global.quiet,
            bytes,
        }
    }

    /// Whether the count is drawn or summed up at the end (else counting is
    /// wasted work).
    pub(crate) fn shown(&self) -> bool {
        self.verbose || !self.bar.is_hidden()
    }

    /// Sets what follows the count (e.g. the file being read).
    pub(crate) fn set_message(&self, message: String) {
        self.bar.set_message(message);
    }

    /// Runs `f` (which writes to stderr) with the bar out of its way.
    pub(crate) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Counts `n` more items done.
    pub(crate) fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Sets the count to `done` and what follows it (the unit, and whatever
    /// else the command reports as it goes).
    pub(crate) fn set(&self, done: u64, unit: String) {
        self.bar.set_position(done);
        self.bar.set_message(unit);
    }

    /// Ends the count: on a terminal the bar is erased (the report follows
    /// on stdout); in a pipe, and with `-v`, the last count is written with
    /// the time taken.
    pub(crate) fn finish(self) {
        if self.terminal || self.bar.is_hidden() {
            self.bar.finish_and_clear();
        } else {
            self.bar.abandon();
        }
        if self.verbose || !(self.terminal || self.bar.is_hidden()) {
            let (done, total) = (self.bar.position(), self.bar.length().unwrap_or(0));
            let (done, total) = if self.bytes {
                (HumanBytes(done).to_string(), HumanBytes(total).to_string())
            } else {
                (done.to_string(), total.to_string())
            };
            eprintln!(
                "{}: {done}/{total} {} in {:.1} s",
                self.bar.prefix(),
                self.bar.message(),
                self.bar.elapsed().as_secs_f64()
            );
        }
    }
}

/// Stderr that is not a terminal: a redraw is a new line, at most one a
/// second, with no cursor movement and no escape codes.
#[derive(Debug, Default)]
struct Lines {
    last: Mutex<Option<Instant>>,
}

impl TermLike for Lines {
    fn width(&self) -> u16 {
        100
    }

    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        self.write_str(s)
    }

    /// Only text: the spaces a terminal redraw pads with are dropped.
    fn write_str(&self, s: &str) -> io::Result<()> {
        if s.trim().is_empty() {
            return Ok(());
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            return Ok(());
        }
        *last = Some(Instant::now());
        writeln!(io::stderr(), "{s}")
    }

    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }

    fn flush(&self) -> io::Result<()> {
        io::stderr().flush()
    }
}
