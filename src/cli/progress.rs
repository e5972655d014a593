//! The progress of a long command on stderr: a bar with the count, the rate
//! and the time left on a terminal, drawn only once the command has run for
//! [`DELAY`] and fitted to the terminal's width; with `--progress always`
//! into a pipe or a file, the same count as a plain line about once a
//! second. Nothing is drawn with `-q`, `--progress never`, or (`--progress
//! auto`) when stderr is not a terminal or `TERM` is `dumb`. Standard output
//! never sees it, and what a command writes to stdout while the bar is up
//! goes through [`AboveProgress`], which takes the bar away first, so the
//! bar never overwrites a line of the report.

use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

use super::GlobalArgs;

/// A count of done items out of a known total, drawn on stderr as
/// [`GlobalArgs::progress_on`] says. `inc` may be called from several
/// threads at once.
#[derive(Debug)]
pub(crate) struct Progress {
    bar: ProgressBar,
    /// Progress is on (`--progress`, `-q`, the terminal).
    on: bool,
    terminal: bool,
    /// The terminal target, held back until [`DELAY`] has passed.
    pending: Mutex<Option<ProgressDrawTarget>>,
    /// `pending` holds a target (a cheap check before its lock).
    waiting: AtomicBool,
    /// The bar is drawn on the terminal now.
    visible: AtomicBool,
    started: Instant,
    delay: Duration,
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
                "{prefix}: [{bar:30}] {human_pos}/{human_len} {wide_msg} ({rate}, {eta} left)",
                "{prefix}: {pos}/{len} {msg} ({rate}, {eta} left)",
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
                "{prefix}: [{bar:30}] {bytes}/{total_bytes} {wide_msg} ({bytes_per_sec}, {eta} left)",
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
        let on = global.progress_on();
        let mut pending = None;
        let (target, template) = if !on {
            (ProgressDrawTarget::hidden(), "")
        } else if terminal {
            // Drawn once the delay has passed (see `poll`).
            pending = Some(ProgressDrawTarget::stderr_with_hz(10));
            (ProgressDrawTarget::hidden(), on_terminal)
        } else {
            (
                ProgressDrawTarget::term_like(Box::new(Lines::default())),
                in_lines,
            )
        };
        // A whole number of items a second (`65964/s`), not indicatif's four
        // decimals.
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0}/s", s.per_sec());
                },
            )
            .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(total), target)
            .with_style(style)
            .with_prefix(what.to_owned())
            .with_message(unit.to_owned());
        let delay = std::env::var("INQUIRY_MODEL_PROGRESS_DELAY_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(DELAY, Duration::from_millis);
        Progress {
            bar,
            on,
            terminal,
            waiting: AtomicBool::new(pending.is_some()),
            pending: Mutex::new(pending),
            visible: AtomicBool::new(false),
            started: Instant::now(),
            delay,
            verbose: global.verbose > 0 && !global.quiet,
            bytes,
        }
    }

    /// Whether the count is drawn or summed up at the end (else counting is
    /// wasted work).
    pub(crate) fn shown(&self) -> bool {
        self.verbose || self.on
    }

    /// Gives the bar its terminal once the delay has passed.
    fn poll(&self) {
        if !self.waiting.load(Ordering::Relaxed) || self.started.elapsed() < self.delay {
            return;
        }
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(target) = pending.take() {
            self.bar.set_draw_target(target);
            self.visible.store(true, Ordering::Relaxed);
            self.waiting.store(false, Ordering::Relaxed);
        }
    }

    /// Whether the bar is on the terminal now (stdout must go around it).
    pub(crate) fn visible(&self) -> bool {
        self.visible.load(Ordering::Relaxed)
    }

    /// Sets what follows the count (e.g. the file being read).
    pub(crate) fn set_message(&self, message: String) {
        self.poll();
        self.bar.set_message(message);
    }

    /// Runs `f` (which writes to stderr or the terminal) with the bar out of
    /// its way.
    pub(crate) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Counts `n` more items done.
    pub(crate) fn inc(&self, n: u64) {
        self.poll();
        self.bar.inc(n);
    }

    /// Sets the count to `done` and what follows it (the unit, and whatever
    /// else the command reports as it goes).
    pub(crate) fn set(&self, done: u64, unit: String) {
        self.poll();
        self.bar.set_position(done);
        self.bar.set_message(unit);
    }

    /// Takes the bar off the terminal for good (before a command's last
    /// lines); no-op elsewhere. [`Progress::finish`] still reports.
    pub(crate) fn clear(&self) {
        self.waiting.store(false, Ordering::Relaxed);
        if self.terminal && self.visible.swap(false, Ordering::Relaxed) {
            self.bar.finish_and_clear();
        }
    }

    /// Ends the count: on a terminal the bar is erased (the report follows
    /// on stdout); in a pipe, and with `-v`, the last count is written with
    /// the time taken.
    pub(crate) fn finish(self) {
        if self.terminal || !self.on {
            self.bar.finish_and_clear();
        } else {
            self.bar.abandon();
        }
        if self.verbose || (self.on && !self.terminal) {
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

/// How long a command runs before its bar is drawn on a terminal: a quick
/// run shows none (cargo's and ruff's convention; the bar of a 500-byte
/// file would only flash). `INQUIRY_MODEL_PROGRESS_DELAY_MS` sets it (the
/// tests draw at once).
pub(crate) const DELAY: Duration = Duration::from_millis(500);

/// Standard output written while a bar may be on the same terminal: whole
/// lines only, each batch written with the bar taken off and drawn again
/// below it (at most ten batches a second), so no report line is
/// overwritten or split by a redraw. Without a visible bar it is the inner
/// writer.
pub(crate) struct AboveProgress<'a, W: Write> {
    progress: &'a Progress,
    inner: W,
    buf: Vec<u8>,
    last: Instant,
}

impl<'a, W: Write> AboveProgress<'a, W> {
    /// Wraps `inner`.
    pub(crate) fn new(progress: &'a Progress, inner: W) -> Self {
        AboveProgress {
            progress,
            inner,
            buf: Vec::new(),
            last: Instant::now(),
        }
    }

    /// Writes the first `n` buffered bytes with the bar out of the way.
    fn emit(&mut self, n: usize) -> io::Result<()> {
        let chunk: Vec<u8> = self.buf.drain(..n).collect();
        let inner = &mut self.inner;
        self.last = Instant::now();
        self.progress.suspend(|| {
            inner.write_all(&chunk)?;
            inner.flush()
        })
    }
}

impl<W: Write> Write for AboveProgress<'_, W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if !self.progress.visible() {
            if !self.buf.is_empty() {
                let rest = std::mem::take(&mut self.buf);
                self.inner.write_all(&rest)?;
            }
            return self.inner.write(data);
        }
        self.buf.extend_from_slice(data);
        if let Some(nl) = self.buf.iter().rposition(|&b| b == b'\n')
            && (self.last.elapsed() >= Duration::from_millis(100) || self.buf.len() >= 1 << 16)
        {
            self.emit(nl + 1)?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.progress.visible() {
            self.emit(self.buf.len())
        } else {
            let rest = std::mem::take(&mut self.buf);
            self.inner.write_all(&rest)?;
            self.inner.flush()
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
