//! `make bench`: every performance figure next to its baseline,
//! measured in the same run, printed as one Markdown table.
//!
//! 1. `check` throughput over the real streams (the folder
//!    `INQUIRY_MODEL_REAL_STREAMS` names; the committed `tests/corpus/jp-like/`
//!    when unset), concatenated into a bigger stream at bench time, against serde_json deserializing the same bytes into
//!    `serde::de::IgnoredAny`, the floor for any serde_json reader.
//! 2. Scaling of read, `check` and `sanitize` from 10^4 to 10^6 events on
//!    ordinary streams and on the worst cases of rule `STREAM-LINEAR`: the
//!    time ratio per 10x (linear is 10x; the bar is 12), with a bare
//!    `HashMap` insert of the huge turn's keys as the memory-bound baseline.
//!    Each (shape, size) point runs in a fresh process of this binary (see
//!    [`in_child`]).
//! 3. Peak RSS of the release `inquiry-model check` on a generated 1 GB
//!    stream against a 10 MB one (bounded memory: about the same).
//! 4. Model throughput: coordinator steps and exploration scenarios per
//!    second with every invariant after every step, against the bare model;
//!    proptest cases per second of the main property against drawing the
//!    scenarios alone.
//! 5. The checker's heap in one turn of 10^6 answered pairs (rule
//!    `PERF-TURN-MEMORY`) against the IDs' own bytes.
//! 6. Each fuzz target's executions per second over its committed seeds,
//!    in process, beside the every-option variant where
//!    the entry draws one option per input.
//! 7. Peak RSS and time of `check --format sarif` on 400 000 findings
//!    against `--format json` on the same stream.
//!
//! Knobs (environment): `BENCH_BIG_MB` (default 1024), `BENCH_CORPUS_MB`
//! (default 64), `BENCH_STRIDE` (exploration stride, default 20),
//! `BENCH_CASES` (proptest cases, default 2000), `BENCH_ROUNDS` (rounds of
//! the scaling section, default 5), `BENCH_ONLY` (a comma list of
//! `throughput`, `scaling`, `memory`, `sarif`, `model`, `turn`, `fuzz`).
//!
//! Timings are medians of interleaved runs (A, B, A, B, …), so background
//! load hits measurement and baseline alike; the scaling rows compare the
//! fastest run of each size instead (see [`fastest`]). The spread column is
//! the (max - min) / median of the measured side. Nothing here asserts a
//! time.
//!
//! Run by `cargo test --all-targets` (no `--bench` argument), it only smoke-
//! tests every section on tiny inputs and prints one line.

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/shapes.rs"]
mod shapes;

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use inquiry_model::check::{self, ProfileMode};
use inquiry_model::explore;
use inquiry_model::generate::scenario::scenario_under;
use inquiry_model::invariants::{StreamMemo, check_runs, check_trace, known_violation};
use inquiry_model::profile::ProfileName;
use inquiry_model::scenario::{self, RunOptions};
use inquiry_model::stream::sanitize;
use inquiry_model::wire::{EventReader, Stream};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde::de::IgnoredAny;

/// Sizes and repetitions of one run.
struct Config {
    /// A real measurement (`cargo bench`), or a smoke test (`cargo test`).
    full: bool,
    corpus_bytes: u64,
    throughput_runs: usize,
    scaling_sizes: [usize; 3],
    big_mb: u64,
    small_mb: u64,
    /// Request/response pairs of the one long turn (rule `PERF-TURN-MEMORY`).
    long_turn_pairs: usize,
    stride: usize,
    cases: usize,
    rounds: usize,
    only: Option<Vec<String>>,
}

impl Config {
    fn from_env(full: bool) -> Config {
        let num = |name: &str, default: u64| -> u64 {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        let only = std::env::var("BENCH_ONLY")
            .ok()
            .map(|v| v.split(',').map(|s| s.trim().to_owned()).collect());
        if full {
            Config {
                full,
                corpus_bytes: num("BENCH_CORPUS_MB", 64) << 20,
                throughput_runs: 15,
                scaling_sizes: [10_000, 100_000, 1_000_000],
                big_mb: num("BENCH_BIG_MB", 1024),
                small_mb: 10,
                long_turn_pairs: 1_000_000,
                stride: num("BENCH_STRIDE", 20) as usize,
                cases: num("BENCH_CASES", 2000) as usize,
                rounds: num("BENCH_ROUNDS", 5).max(1) as usize,
                only,
            }
        } else {
            Config {
                full,
                corpus_bytes: 1 << 20,
                throughput_runs: 1,
                scaling_sizes: [100, 1_000, 10_000],
                big_mb: 2,
                small_mb: 1,
                long_turn_pairs: 10_000,
                stride: 5_000,
                cases: 20,
                rounds: 1,
                only,
            }
        }
    }

    fn wants(&self, section: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|s| s == section))
    }

    /// Rounds of the scaling section: each round measures every point
    /// (shape and size) once, each in a fresh process.
    fn rounds(&self) -> usize {
        if self.full { self.rounds } else { 1 }
    }

    /// Repetitions for a measurement of about `n` events in one round.
    fn runs(&self, n: usize) -> usize {
        match (self.full, n) {
            (false, _) => 1,
            (true, 1_000_000..) => 2,
            (true, 100_000..) => 3,
            (true, _) => 10,
        }
    }
}

/// One row of the table.
struct Row {
    figure: String,
    measured: String,
    baseline: String,
    ratio: String,
    bar: String,
    spread: String,
}

struct Table {
    rows: Vec<Row>,
    /// Lines printed under the table.
    notes: Vec<String>,
}

impl Table {
    fn push(
        &mut self,
        figure: impl Into<String>,
        measured: impl Into<String>,
        baseline: impl Into<String>,
        ratio: impl Into<String>,
        bar: impl Into<String>,
        spread: impl Into<String>,
    ) {
        self.rows.push(Row {
            figure: figure.into(),
            measured: measured.into(),
            baseline: baseline.into(),
            ratio: ratio.into(),
            bar: bar.into(),
            spread: spread.into(),
        });
    }

    fn print(&self) {
        let head = ["figure", "measured", "baseline", "ratio", "bar", "spread"];
        let cells: Vec<[&str; 6]> = self
            .rows
            .iter()
            .map(|r| {
                [
                    r.figure.as_str(),
                    r.measured.as_str(),
                    r.baseline.as_str(),
                    r.ratio.as_str(),
                    r.bar.as_str(),
                    r.spread.as_str(),
                ]
            })
            .collect();
        let width = |k: usize| {
            cells
                .iter()
                .map(|c| c[k].chars().count())
                .chain([head[k].len()])
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..6).map(width).collect();
        let line = |c: [&str; 6]| {
            let mut s = String::from("|");
            for (k, cell) in c.iter().enumerate() {
                let pad = widths[k] - cell.chars().count();
                if k == 0 {
                    s.push_str(&format!(" {cell}{} |", " ".repeat(pad)));
                } else {
                    s.push_str(&format!(" {}{cell} |", " ".repeat(pad)));
                }
            }
            s
        };
        println!("{}", line(head));
        let mut sep = String::from("|");
        for (k, w) in widths.iter().enumerate() {
            sep.push(' ');
            sep.push_str(&"-".repeat(w.saturating_sub(1)));
            sep.push_str(if k == 0 { "- |" } else { ": |" });
        }
        println!("{sep}");
        for c in cells {
            println!("{}", line(c));
        }
    }
}

/// The fastest run: what a scaling ratio compares. On a shared machine
/// noise only ever adds time, and a slow spell that hits one size's runs
/// and not the other's moves a ratio of medians by a third; the fastest of
/// runs spread over rounds in fresh processes (see [`confirmed`]) is the
/// closest to the code's own cost.
fn fastest(xs: &[Duration]) -> Duration {
    xs.iter().min().copied().unwrap_or_default()
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// (max - min) / median, as a percentage.
fn spread(xs: &[Duration]) -> String {
    spread_f64(&xs.iter().map(Duration::as_secs_f64).collect::<Vec<_>>())
}

/// [`median`] of ratios.
fn median_f64(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// [`spread`] of numbers.
fn spread_f64(xs: &[f64]) -> String {
    let med = median_f64(xs);
    if xs.len() < 2 || med == 0.0 {
        return "-".to_owned();
    }
    let (min, max) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    format!("{:.0}%", 100.0 * (max - min) / med)
}

/// Times each closure `runs` times, interleaved (round-robin), after one
/// untimed warm-up round. Each closure returns the time of its own timed
/// section, so set-up (cloning an input) stays outside the clock.
fn interleaved(runs: usize, fs: &mut [&mut dyn FnMut() -> Duration]) -> Vec<Vec<Duration>> {
    for f in fs.iter_mut() {
        black_box(f());
    }
    let mut out = vec![Vec::with_capacity(runs); fs.len()];
    for _ in 0..runs {
        for (k, f) in fs.iter_mut().enumerate() {
            out[k].push(f());
        }
    }
    out
}

/// Evicts the caches (writes a buffer twice the size of this machine's
/// 32 MiB L3), so every size starts cold: otherwise a small input cloned
/// just before its run is still in cache and a big one is not.
fn flush_caches() {
    let mut buf = vec![0u8; 64 << 20];
    for i in (0..buf.len()).step_by(64) {
        buf[i] = buf[i].wrapping_add(1);
    }
    black_box(&buf);
}

fn timed<T>(f: impl FnOnce() -> T) -> Duration {
    let t = Instant::now();
    let out = f();
    let d = t.elapsed();
    drop(black_box(out));
    d
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

/// A temporary folder removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("inquiry-model-bench-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("cannot create a temporary folder");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------------------
// 1. check throughput over the fixture corpus
// ---------------------------------------------------------------------------

fn check_count(bytes: &[u8]) -> (usize, usize) {
    let mut found = 0usize;
    let (summary, error) =
        check::check_reader(bytes, "corpus", ProfileMode::Auto, &mut |_| found += 1);
    assert!(error.is_none(), "the corpus must read: {error:?}");
    (summary.events, found)
}

fn read_count(bytes: &[u8]) -> usize {
    let mut n = 0;
    for e in EventReader::new(bytes, "corpus") {
        e.expect("the corpus must read");
        n += 1;
    }
    n
}

fn ignored_any(bytes: &[u8]) {
    serde_json::from_slice::<IgnoredAny>(bytes).expect("the corpus is JSON");
}

fn ignored_any_lines(bytes: &[u8]) -> usize {
    let mut n = 0;
    for v in serde_json::Deserializer::from_slice(bytes).into_iter::<IgnoredAny>() {
        v.expect("the corpus is JSON Lines");
        n += 1;
    }
    n
}

/// The `check` and read rows against serde_json's `IgnoredAny` on the same
/// bytes. A row's ratio is the median of the rounds' own ratios, each
/// round's time against the same round's `IgnoredAny`, taken a few tens of
/// milliseconds apart; its spread is theirs. A ratio of the two medians
/// mixed rounds the host ran at different speeds (docs/decisions/
/// performance.md, "Performance: the `check` rows compare each round with
/// its own floor").
fn throughput(cfg: &Config, table: &mut Table) {
    let events = corpus::fixture_events().expect("the fixture streams must be readable");
    let dir = TempDir::new("corpus");
    for (layout, name) in [
        (corpus::Layout::Array, "pretty array"),
        (corpus::Layout::JsonLines, "JSON Lines"),
    ] {
        // Written to a file and read back, as a user would; timed in memory,
        // where serde_json's floor is defined.
        let path = dir
            .0
            .join(format!("corpus-{}.json", name.replace(' ', "-")));
        corpus::write_stream_file(&events, cfg.corpus_bytes, layout, &path)
            .expect("cannot write the corpus");
        let bytes = std::fs::read(&path).expect("cannot read the corpus back");
        let (n, found) = check_count(&bytes);
        assert_eq!(found, 0, "the fixture corpus is clean under auto");
        let floor: &mut dyn FnMut() -> Duration = &mut || match layout {
            corpus::Layout::Array => timed(|| ignored_any(&bytes)),
            corpus::Layout::JsonLines => timed(|| ignored_any_lines(&bytes)),
        };
        let mut read = || timed(|| read_count(&bytes));
        let mut checked = || timed(|| check_count(&bytes));
        let times = interleaved(cfg.throughput_runs, &mut [floor, &mut read, &mut checked]);
        let base = median(times[0].clone());
        let size = format!("{:.0} MB, {n} events", bytes.len() as f64 / 1e6);
        for (k, what) in [(2, "check"), (1, "read (EventReader)")] {
            let t = median(times[k].clone());
            // Each round's time against the same round's floor.
            let ratios: Vec<f64> = times[0]
                .iter()
                .zip(&times[k])
                .map(|(f, x)| x.as_secs_f64() / f.as_secs_f64())
                .collect();
            let ratio = median_f64(&ratios);
            table.push(
                format!("{what} throughput, corpus as {name} ({size})"),
                format!("{:.0} MB/s", mbps(bytes.len(), t)),
                format!("{:.0} MB/s serde_json IgnoredAny", mbps(bytes.len(), base)),
                format!("{ratio:.2}x time"),
                if k == 2 {
                    goal_bar(ratio <= 1.0, "<= 1.00x")
                } else {
                    "-".to_owned()
                },
                spread_f64(&ratios),
            );
        }
    }
}

/// The bar of a row that has one: met or not met.
fn goal_bar(ok: bool, bar: &str) -> String {
    format!("{bar} {}", if ok { "met" } else { "NOT MET" })
}

fn verdict(ok: bool, bar: &str) -> String {
    format!("{bar} {}", if ok { "ok" } else { "MISSED" })
}

// ---------------------------------------------------------------------------
// 2. scaling of read, check and sanitize
// ---------------------------------------------------------------------------

fn scaling(cfg: &Config, table: &mut Table) {
    let sizes = cfg.scaling_sizes;
    let rounds = cfg.rounds();
    // Per shape, operation and size: the run times with their round. A
    // round visits every point once, so the rounds of one point lie half a
    // minute apart and a slow spell of the machine rarely covers all of them.
    let mut all: Vec<[[Vec<Sample>; 3]; 3]> = vec![Default::default(); shapes::SHAPES.len()];
    for round in 0..rounds {
        for (k, times) in all.iter_mut().enumerate() {
            for (s, &n) in sizes.iter().enumerate() {
                let point = in_child(cfg, &format!("shape:{k}:{n}:{}", cfg.runs(n)));
                for (op, t) in point.into_iter().enumerate() {
                    times[op][s].extend(t.into_iter().map(|time| Sample { time, round }));
                }
            }
        }
    }
    let mut unconfirmed = Vec::new();
    for ((name, _), times) in shapes::SHAPES.iter().zip(&all) {
        // Per operation, the fastest time at each size.
        let mut best: [[Duration; 3]; 3] = Default::default();
        let mut spreads: [[String; 3]; 3] = Default::default();
        for op in 0..3 {
            for s in 0..3 {
                let t: Vec<Duration> = times[op][s].iter().map(|x| x.time).collect();
                best[op][s] = fastest(&t);
                spreads[op][s] = spread(&t);
                if !confirmed(&times[op][s]) {
                    let what = ["read", "check", "sanitize"][op];
                    unconfirmed.push(format!("{what}, {name}, {}", sizes[s]));
                }
            }
        }
        for (op, what) in ["read", "check", "sanitize"].iter().enumerate() {
            for s in 1..3 {
                let (before, now) = (best[op][s - 1], best[op][s]);
                let ratio = now.as_secs_f64() / before.as_secs_f64();
                table.push(
                    format!(
                        "scaling: {what}, {name}, {} -> {} events",
                        sizes[s - 1],
                        sizes[s]
                    ),
                    format!("{:.1} ms", now.as_secs_f64() * 1e3),
                    format!("{:.1} ms", before.as_secs_f64() * 1e3),
                    format!("{ratio:.1}x per 10x"),
                    verdict(ratio <= 12.0, "<= 12"),
                    spreads[op][s].clone(),
                );
            }
        }
    }
    // The memory-bound baseline: the huge turn's distinct keys inserted in a
    // bare std HashMap (SipHash), the work every by-ID structure must do.
    let mut times: [Vec<Duration>; 3] = Default::default();
    for _ in 0..rounds.min(2) {
        for (s, &n) in sizes.iter().enumerate() {
            let round = in_child(cfg, &format!("keys:{n}:{}", cfg.runs(n)));
            times[s].extend(round.into_iter().flatten());
        }
    }
    let best: Vec<Duration> = times.iter().map(|t| fastest(t)).collect();
    let spreads: Vec<String> = times.iter().map(|t| spread(t)).collect();
    for s in 1..3 {
        let ratio = best[s].as_secs_f64() / best[s - 1].as_secs_f64();
        table.push(
            format!(
                "baseline: bare HashMap insert of the huge turn's {} -> {} keys",
                sizes[s - 1] / 2,
                sizes[s] / 2
            ),
            format!("{:.1} ms", best[s].as_secs_f64() * 1e3),
            format!("{:.1} ms", best[s - 1].as_secs_f64() * 1e3),
            format!("{ratio:.1}x per 10x"),
            "-",
            spreads[s].clone(),
        );
    }
    table.notes.push(format!(
        "scaling: {rounds} rounds; the ratios compare the fastest run of each size, confirmed \
         when runs of two rounds come within 10% of it (BENCH_ROUNDS=N for more)"
    ));
    if cfg.full && !unconfirmed.is_empty() {
        table.notes.push(format!(
            "scaling: NOT CONFIRMED after {rounds} rounds (the machine stayed noisy; rerun): {}",
            unconfirmed.join("; ")
        ));
    }
}

/// One timed run of a scaling point, and the round it ran in.
#[derive(Debug, Clone, Copy)]
struct Sample {
    time: Duration,
    round: usize,
}

/// A point's fastest time is confirmed when runs of at least two rounds
/// (two processes, half a minute apart) come within 10% of it (the two
/// speeds of this machine are 65% apart): a figure no other round came near
/// is reported as such.
fn confirmed(samples: &[Sample]) -> bool {
    let Some(best) = samples.iter().map(|x| x.time).min() else {
        return false;
    };
    let near = best.as_secs_f64() * 1.10;
    let mut rounds: Vec<usize> = samples
        .iter()
        .filter(|x| x.time.as_secs_f64() <= near)
        .map(|x| x.round)
        .collect();
    rounds.sort_unstable();
    rounds.dedup();
    rounds.len() >= 2
}

/// The environment variable that makes this binary measure one scaling
/// point and print its times instead of the table.
const POINT: &str = "BENCH_POINT";

/// Measures one scaling point in a fresh process of this same binary. Each
/// point gets a heap of its own: measured in one process, the 10^6-event
/// runs inherit a heap fragmented by every earlier shape and size, which
/// slows the same code by up to 1.6x and says nothing about the code.
fn in_child(cfg: &Config, point: &str) -> Vec<Vec<Duration>> {
    let exe = std::env::current_exe().expect("the bench binary knows its path");
    let mut cmd = Command::new(exe);
    if cfg.full {
        cmd.arg("--bench");
    }
    let out = cmd
        .env(POINT, point)
        .stderr(Stdio::inherit())
        .output()
        .expect("the bench binary runs");
    assert!(out.status.success(), "scaling point {point} failed");
    let text = String::from_utf8(out.stdout).expect("the child prints ASCII");
    text.trim()
        .split(';')
        .map(|op| {
            op.split(',')
                .map(|ns| Duration::from_nanos(ns.parse().expect("the child prints nanoseconds")))
                .collect()
        })
        .collect()
}

/// The child's side of [`in_child`]: `shape:K:N:R` times read, check and
/// sanitize of shape `K` at `N` events, `R` runs each; `keys:N:R` the bare
/// `HashMap` insert.
/// Prints each operation's run times in nanoseconds, comma-separated, one
/// operation after another, separated by `;`.
fn scaling_point(point: &str) {
    let parts: Vec<&str> = point.split(':').collect();
    let times = match parts.as_slice() {
        ["shape", k, n, runs] => {
            let build = shapes::SHAPES[k.parse::<usize>().expect("a shape index")].1;
            shape_times(
                build,
                n.parse().expect("an event count"),
                runs.parse().expect("a run count"),
            )
        }
        ["keys", n, runs] => key_times(
            n.parse().expect("an event count"),
            runs.parse().expect("a run count"),
        ),
        _ => panic!("unknown {POINT} {point:?}"),
    };
    let line: Vec<String> = times
        .iter()
        .map(|op| {
            op.iter()
                .map(|d| d.as_nanos().to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    println!("{}", line.join(";"));
}

/// Read, check and sanitize of one stream of about `n` events, interleaved.
fn shape_times(build: shapes::Build, n: usize, runs: usize) -> Vec<Vec<Duration>> {
    let events = build(n);
    let mut bytes = Vec::new();
    Stream::new(events.clone())
        .write_json_lines(&mut bytes)
        .expect("writing to a Vec cannot fail");
    let mut read = || {
        flush_caches();
        timed(|| {
            let mut n = 0;
            for e in EventReader::new(&bytes[..], "scaling").typed() {
                e.expect("generated streams read");
                n += 1;
            }
            n
        })
    };
    let mut checked = || {
        flush_caches();
        timed(|| {
            let mut found = 0usize;
            check::check_reader(&bytes[..], "scaling", ProfileMode::Auto, &mut |_| {
                found += 1
            });
            found
        })
    };
    let mut sanitized = || {
        let input = events.clone();
        flush_caches();
        let t = Instant::now();
        let out = black_box(sanitize(black_box(input)));
        let d = t.elapsed();
        drop(out);
        d
    };
    interleaved(runs, &mut [&mut read, &mut checked, &mut sanitized])
}

/// The huge turn's `n / 2` distinct keys inserted in a bare `HashMap`.
fn key_times(n: usize, runs: usize) -> Vec<Vec<Duration>> {
    let keys = shapes::huge_turn_ids(n);
    let mut insert = || {
        let keys = keys.clone();
        flush_caches();
        let t = Instant::now();
        let mut m: HashMap<_, usize> = HashMap::new();
        for (i, k) in keys.into_iter().enumerate() {
            m.insert(k, i);
        }
        let d = t.elapsed();
        drop(black_box(m));
        d
    };
    interleaved(runs, &mut [&mut insert])
}

// ---------------------------------------------------------------------------
// 3. peak memory of the release binary
// ---------------------------------------------------------------------------

/// Peak RSS (KiB) and wall time of `inquiry-model check FILE`.
fn peak_rss(file: &Path) -> (u64, Duration) {
    peak_rss_of(&[], file)
}

/// Peak RSS (KiB) and wall time of `inquiry-model check ARGS… FILE`.
fn peak_rss_of(args: &[&str], file: &Path) -> (u64, Duration) {
    let bin = env!("CARGO_BIN_EXE_inquiry-model");
    let time = Path::new("/usr/bin/time");
    let t = Instant::now();
    if time.exists() {
        let out = Command::new(time)
            .env_remove("GLIBC_TUNABLES")
            .arg("-v")
            .arg(bin)
            .arg("check")
            .args(args)
            .arg(file)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("cannot run /usr/bin/time");
        let wall = t.elapsed();
        let text = String::from_utf8_lossy(&out.stderr);
        let kib = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no peak RSS in /usr/bin/time's report:\n{text}"));
        return (kib, wall);
    }
    // No /usr/bin/time: poll the child's high-water mark until it exits.
    let mut child = Command::new(bin)
        .env_remove("GLIBC_TUNABLES")
        .arg("check")
        .args(args)
        .arg(file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot run inquiry-model");
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    loop {
        if let Ok(s) = std::fs::read_to_string(&status)
            && let Some(kib) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        {
            peak = peak.max(kib);
        }
        if child
            .try_wait()
            .expect("cannot wait for inquiry-model")
            .is_some()
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    (peak, t.elapsed())
}

fn memory(cfg: &Config, table: &mut Table) {
    let events = corpus::fixture_events().expect("the fixture streams must be readable");
    let dir = TempDir::new("memory");
    let measure = |mb: u64| {
        let path = dir.0.join(format!("stream-{mb}mb.json"));
        let w = corpus::write_stream_file(&events, mb << 20, corpus::Layout::Array, &path)
            .expect("cannot write the stream");
        // Warm the page cache, then take the median of three runs.
        let _ = peak_rss(&path);
        let runs: Vec<(u64, Duration)> = (0..if cfg.full { 3 } else { 1 })
            .map(|_| peak_rss(&path))
            .collect();
        std::fs::remove_file(&path).expect("cannot remove the stream");
        let mut kib: Vec<u64> = runs.iter().map(|r| r.0).collect();
        kib.sort();
        let wall = median(runs.iter().map(|r| r.1).collect());
        (w.bytes, kib[kib.len() / 2], wall)
    };
    let (small_bytes, small_kib, small_wall) = measure(cfg.small_mb);
    let (big_bytes, big_kib, big_wall) = measure(cfg.big_mb);
    let ratio = big_kib as f64 / small_kib as f64;
    table.push(
        format!(
            "peak RSS, `inquiry-model check` on a {:.0} MB stream",
            big_bytes as f64 / 1e6
        ),
        format!("{:.1} MiB", big_kib as f64 / 1024.0),
        format!(
            "{:.1} MiB on {:.0} MB",
            small_kib as f64 / 1024.0,
            small_bytes as f64 / 1e6
        ),
        format!("{ratio:.2}x"),
        verdict(ratio <= 1.25, "~1x"),
        "-",
    );
    // One turn of distinct answered pairs (rule `PERF-TURN-MEMORY`): what
    // grows is the turn's distinct IDs, compactly; the bar is 64 MiB at
    // 10^6 pairs.
    let pairs = cfg.long_turn_pairs;
    let path = dir.0.join("long-turn.jsonl");
    shapes::write_long_turn(pairs, &path).expect("cannot write the long turn");
    let _ = peak_rss(&path);
    let mut long: Vec<u64> = (0..if cfg.full { 3 } else { 1 })
        .map(|_| peak_rss(&path).0)
        .collect();
    std::fs::remove_file(&path).expect("cannot remove the long turn");
    long.sort();
    let long_kib = long[long.len() / 2];
    table.push(
        format!("peak RSS, `inquiry-model check` on one turn of {pairs} answered pairs"),
        format!("{:.1} MiB", long_kib as f64 / 1024.0),
        format!(
            "{:.1} MiB on {:.0} MB of many turns",
            small_kib as f64 / 1024.0,
            small_bytes as f64 / 1e6
        ),
        format!(
            "{:.1} B/pair above it",
            long_kib.saturating_sub(small_kib) as f64 * 1024.0 / pairs as f64
        ),
        verdict(long_kib <= 64 * 1024, "<= 64 MiB"),
        "-",
    );
    table.push(
        format!(
            "`inquiry-model check` end to end (file, process), {:.0} MB",
            big_bytes as f64 / 1e6
        ),
        format!("{:.0} MB/s", mbps(big_bytes as usize, big_wall)),
        format!(
            "{:.0} MB/s on {:.0} MB",
            mbps(small_bytes as usize, small_wall),
            small_bytes as f64 / 1e6
        ),
        "-",
        "-",
        "-",
    );
}

/// `check --format sarif` on a stream with many findings (400 000 with
/// `--bench`): peak RSS and time against `--format json` on the same file.
/// SARIF is written as the findings come, so its memory does not grow with
/// them (the bar: under 200 MiB at 400 000 findings).
fn sarif_memory(cfg: &Config, table: &mut Table) {
    let findings: usize = if cfg.full { 400_000 } else { 1_000 };
    let dir = TempDir::new("sarif");
    let path = dir.0.join("findings.jsonl");
    // One turn per finding: a response that answers no request
    // (CHECK-PAIRED), so the checker's per-turn state stays small.
    let mut text = String::with_capacity(findings * 100);
    for i in 0..findings {
        text.push_str("{\"type\":\"turn_start\"}\n");
        text.push_str(&format!(
            "{{\"type\":\"inquiry_response\",\"outcome\":\"answered\",\"id\":\"c{i}.q.1\",\"answer\":true}}\n"
        ));
    }
    std::fs::write(&path, text).expect("cannot write the stream");
    let runs = if cfg.full { 3 } else { 1 };
    let measure = |format: &str| {
        let _ = peak_rss_of(&["--format", format], &path);
        let mut r: Vec<(u64, Duration)> = (0..runs)
            .map(|_| peak_rss_of(&["--format", format], &path))
            .collect();
        r.sort();
        r[r.len() / 2]
    };
    let (sarif_kib, sarif_wall) = measure("sarif");
    let (json_kib, json_wall) = measure("json");
    table.push(
        format!("peak RSS, `inquiry-model check --format sarif`, {findings} findings"),
        format!(
            "{:.1} MiB, {:.1} s",
            sarif_kib as f64 / 1024.0,
            sarif_wall.as_secs_f64()
        ),
        format!(
            "{:.1} MiB, {:.1} s as `--format json`",
            json_kib as f64 / 1024.0,
            json_wall.as_secs_f64()
        ),
        format!("{:.2}x", sarif_kib as f64 / json_kib as f64),
        verdict(sarif_kib <= 200 * 1024, "< 200 MiB"),
        "-",
    );
}

// ---------------------------------------------------------------------------
// 4. model throughput
// ---------------------------------------------------------------------------

/// Runs `inquiry-model explore ARGS --format json -q` (the searches are
/// the command's; the library exposes only the families they enumerate)
/// and returns the command's own timing of its search (`seconds`, which
/// leaves out the process start) and its report. A violation or an error
/// fails the command, and so the bench.
fn explore_command(args: &[&str]) -> (Duration, serde_json::Value) {
    let bin = env!("CARGO_BIN_EXE_inquiry-model");
    let out = Command::new(bin)
        .arg("explore")
        .args(args)
        .args(["--format", "json", "-q"])
        .output()
        .expect("cannot run inquiry-model explore");
    assert!(
        out.status.success(),
        "explore {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("explore --format json prints JSON");
    let seconds = doc["seconds"].as_f64().expect("the report's seconds");
    (Duration::from_secs_f64(seconds), doc["report"].clone())
}

/// A count of an `explore` report.
fn count(report: &serde_json::Value, key: &str) -> usize {
    report[key]
        .as_u64()
        .unwrap_or_else(|| panic!("the report's {key}")) as usize
}

/// The scenarios (or, searching states, runs) an `explore` report checked.
fn explored(report: &serde_json::Value) -> usize {
    report["scenarios"]
        .as_object()
        .expect("the report's scenarios")
        .values()
        .map(|v| v.as_u64().unwrap_or(0) as usize)
        .sum()
}

/// The roots an `explore --states` report searched.
fn roots(report: &serde_json::Value) -> usize {
    report["roots"]
        .as_object()
        .expect("the report's roots")
        .values()
        .map(|v| v.as_u64().unwrap_or(0) as usize)
        .sum()
}

fn model(cfg: &Config, table: &mut Table) {
    // Every `stride`-th scenario of the small scope, as `explore` enumerates it.
    let scenarios = explore::scenarios(cfg.stride, 0, 0);
    // The bare model: every scenario run step by step, observed by a no-op.
    let mut bare_steps = 0usize;
    let mut bare = || {
        bare_steps = 0;
        timed(|| {
            for s in &scenarios {
                scenario::run_observed(s, RunOptions::default(), &mut |_, _| bare_steps += 1)
                    .expect("explored scenarios run");
            }
        })
    };
    let mut steps = 0usize;
    let mut total = 0usize;
    let stride = cfg.stride.to_string();
    let mut checked = || {
        let (d, report) =
            explore_command(&["--scope", "small", "--stride", &stride, "--threads", "1"]);
        steps = count(&report, "steps");
        total = explored(&report);
        d
    };
    let runs = if cfg.full { 3 } else { 1 };
    let times = interleaved(runs, &mut [&mut bare, &mut checked]);
    let (tb, tc) = (median(times[0].clone()), median(times[1].clone()));
    assert_eq!(total, scenarios.len());
    assert_eq!(steps, bare_steps);
    let per_s = |n: usize, d: Duration| n as f64 / d.as_secs_f64();
    table.push(
        format!(
            "coordinator steps/s, every invariant after every step ({steps} steps, stride {})",
            cfg.stride
        ),
        format!("{:.0} steps/s", per_s(steps, tc)),
        format!("{:.0} steps/s bare model", per_s(steps, tb)),
        format!("{:.2}x time", tc.as_secs_f64() / tb.as_secs_f64()),
        "-",
        spread(&times[1]),
    );
    table.push(
        format!(
            "exhaustive exploration scenarios/s ({total} of 680448, stride {})",
            cfg.stride
        ),
        format!("{:.0} scenarios/s", per_s(total, tc)),
        format!("{:.0} scenarios/s bare model", per_s(total, tb)),
        format!("{:.2}x time", tc.as_secs_f64() / tb.as_secs_f64()),
        "-",
        spread(&times[1]),
    );
    // The main property: draw, run, check_trace.
    let strategy = scenario_under(prop_oneof![
        Just(ProfileName::Rfd082),
        Just(ProfileName::Rfd083)
    ]);
    let draw = |n: usize| {
        let mut runner = TestRunner::deterministic();
        (0..n)
            .map(|_| {
                strategy
                    .new_tree(&mut runner)
                    .expect("the strategy draws")
                    .current()
            })
            .collect::<Vec<_>>()
    };
    let cases = cfg.cases;
    let mut gen_only = || timed(|| draw(cases));
    let mut property = || {
        timed(|| {
            for s in draw(cases) {
                let trace = scenario::run(&s).expect("generated scenarios are valid");
                // As the property judges: the known violations (RFD 082's
                // separator flaw on IDs holding the separator) are excused.
                assert!(check_trace(&trace, &s).iter().all(|d| known_violation(
                    &s,
                    &trace.rules,
                    d.rule
                )));
            }
        })
    };
    let times = interleaved(runs, &mut [&mut gen_only, &mut property]);
    let (tg, tp) = (median(times[0].clone()), median(times[1].clone()));
    table.push(
        format!("proptest cases/s, every_invariant_holds_after_every_run ({cases} cases)"),
        format!("{:.0} cases/s", per_s(cases, tp)),
        format!("{:.0} cases/s drawing only", per_s(cases, tg)),
        format!("{:.2}x time", tp.as_secs_f64() / tg.as_secs_f64()),
        "-",
        spread(&times[1]),
    );
}

// ---------------------------------------------------------------------------
// 5. the checker's memory in one huge turn
// ---------------------------------------------------------------------------

/// What the checker holds of one turn of `long_turn_pairs` (10^6) answered
/// requests with distinct IDs (rule `PERF-TURN-MEMORY`), counted by its own
/// accessor at the turn's end (`Checker::turn_heap_bytes`, buffer
/// capacities, the measurement of `tests/suite/oracle/check_memory.rs`), beside the IDs'
/// own bytes; the bar is the rule's 64 MiB at 10^6 pairs. The process's
/// peak RSS on the same turn is the memory section's row.
fn turn_memory(cfg: &Config, table: &mut Table) {
    use inquiry_model::check::Checker;
    use inquiry_model::generate::stream::{
        answered, inquiry_request, tool_call_request, tool_call_response, turn_start,
    };
    use inquiry_model::wire::InquiryId;
    let pairs = cfg.long_turn_pairs;
    let mut c = Checker::new("long", ProfileMode::Auto);
    let mut found = c.push_event(&turn_start()).len();
    found += c.push_event(&tool_call_request("c1")).len();
    let mut ids = 0usize;
    let mut peak = 0usize;
    let t = Instant::now();
    for k in 0..pairs {
        let id = InquiryId::new("c1", &format!("q{k}"), 1);
        ids += id.as_str().len();
        found += c.push_event(&inquiry_request(id.clone())).len();
        found += c.push_event(&answered(id, serde_json::json!(true))).len();
        if k % 4096 == 0 {
            peak = peak.max(c.turn_heap_bytes());
        }
    }
    let bytes = peak.max(c.turn_heap_bytes());
    let took = t.elapsed();
    found += c.push_event(&tool_call_response("c1")).len();
    found += c.finish().len();
    assert_eq!(found, 0, "the long turn is clean");
    let mib = |b: usize| b as f64 / (1024.0 * 1024.0);
    table.push(
        format!(
            "checker heap in one turn of {pairs} answered pairs (PERF-TURN-MEMORY; {:.1} s)",
            took.as_secs_f64()
        ),
        format!(
            "{:.1} MiB, {:.0} B/pair",
            mib(bytes),
            bytes as f64 / pairs as f64
        ),
        format!("{:.1} MiB of ID text", mib(ids)),
        format!("{:.2}x", bytes as f64 / ids as f64),
        goal_bar(bytes <= 64 << 20, "<= 64 MiB"),
        "-",
    );
}

// ---------------------------------------------------------------------------
// 6. fuzz targets' executions per second
// ---------------------------------------------------------------------------

/// Executions per second of each fuzz target's entry
/// (`inquiry_model::fuzzing`, what the cargo-fuzz target calls), replaying
/// the committed seed corpus (`fuzz/corpus/<target>/`) in process for about
/// a second each: the stable stand-in for `make fuzz-smoke`'s exec/s (no
/// sanitizer, no coverage instrumentation, no mutation), so it compares the
/// entries' own cost from commit to commit. Where the entry draws one
/// option per input, the baseline is the same checks with
/// every option on every input (`Target::replay`, what the entry did
/// before), interleaved in the same run.
fn fuzz_rates(cfg: &Config, table: &mut Table) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let budget = Duration::from_millis(if cfg.full { 1500 } else { 0 });
    let structured = ["scenario", "stream_reader", "sanitize", "check_bytes"];
    for t in inquiry_model::fuzzing::TARGETS {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(t.name))
            .expect("every target has a seed corpus")
            .map(|e| e.expect("a corpus entry").path())
            .collect();
        files.sort();
        let inputs: Vec<Vec<u8>> = files
            .iter()
            .map(|f| std::fs::read(f).expect("a corpus file"))
            .collect();
        let drawn = t.replay as usize != t.entry as usize;
        let entries: Vec<fn(&[u8])> = if drawn {
            vec![t.entry, t.replay]
        } else {
            vec![t.entry]
        };
        // Five rounds of at least a tenth of the budget per entry; the rate
        // is the median round's, the spread across rounds.
        let mut rounds: Vec<Vec<Duration>> = vec![Vec::new(); entries.len()];
        let mut rates: Vec<Vec<f64>> = vec![Vec::new(); entries.len()];
        for _ in 0..if cfg.full { 5 } else { 1 } {
            for (k, entry) in entries.iter().enumerate() {
                let start = Instant::now();
                let mut runs = 0usize;
                loop {
                    for input in &inputs {
                        entry(black_box(input));
                    }
                    runs += inputs.len();
                    if start.elapsed() >= budget / 10 {
                        break;
                    }
                }
                let d = start.elapsed();
                rounds[k].push(d.div_f64(runs as f64 / inputs.len() as f64));
                rates[k].push(runs as f64 / d.as_secs_f64());
            }
        }
        let median_rate = |r: &mut Vec<f64>| {
            r.sort_by(f64::total_cmp);
            r[r.len() / 2]
        };
        let rate = median_rate(&mut rates[0]);
        let (baseline, ratio, bar) = match (drawn, structured.contains(&t.name)) {
            (true, _) => {
                let before = median_rate(&mut rates[1]);
                (
                    format!("{before:.0} exec/s every option per input"),
                    format!("{:.1}x", rate / before),
                    goal_bar(rate >= 10.0 * before, ">= 10x"),
                )
            }
            // No same-run "before" for these two (their checks changed,
            // see docs/performance-log.md "Fuzz targets: what a run checks and
            // costs"): the bar is judged there and in the README from
            // instructions per execution and libFuzzer's own exec/s.
            (false, true) => ("-".to_owned(), "-".to_owned(), goal_bar(false, ">= 10x")),
            (false, false) => ("-".to_owned(), "-".to_owned(), "-".to_owned()),
        };
        table.push(
            format!(
                "fuzz target `{}` executions/s ({} seeds, in process)",
                t.name,
                inputs.len()
            ),
            format!("{rate:.0} exec/s"),
            baseline,
            ratio,
            bar,
            spread(&rounds[0]),
        );
    }
}

// ---------------------------------------------------------------------------
// 4b. model bars
// ---------------------------------------------------------------------------

/// How many scenarios [`model_bars`] runs bare, then checked (or the other
/// way round), before it switches: about 30 ms of the bare model. A
/// slice of 512 read the invariants about 4% higher than one pass over
/// every scenario (likely because each checked slice finds the memo's
/// tables pushed out of the cache by the bare slice before it), one of
/// 4 096 about 2% (docs/decisions/performance.md, "Performance: the model
/// rows alternate slices of a round").
const MODEL_SLICE: usize = 4096;

/// The model rows with their bars: the bare model at 1 000 000
/// coordinator steps/s or more (2 000 000 the aim); every invariant after
/// every step and at the end ([`check_runs`], as `explore` checks its
/// scenarios) at 1.5x the bare model's time or less, on the same prebuilt
/// scenarios; and the exploration with its worker threads against one
/// thread.
///
/// A round runs every scenario bare and checked, [`MODEL_SLICE`]
/// scenarios at a time, the two alternating slice by slice (which goes
/// first alternates too), and sums each one's slices: the host switches
/// between two speeds for seconds at a time, and a round's two times
/// share the host's speed only if they are taken close together. The
/// checked slices of a round share one memo, as one `check_runs` over
/// every scenario would. The invariants' ratio is the median of the
/// rounds' own ratios, its spread theirs. Seven rounds: each is a second
/// or so.
fn model_bars(cfg: &Config, table: &mut Table) {
    // Every `stride`-th scenario of the small scope, as `explore` enumerates it.
    let scenarios = explore::scenarios(cfg.stride, 0, 0);
    let mut steps = 0usize;
    let bare = |slice: &[scenario::Scenario], steps: &mut usize| {
        timed(|| {
            for s in slice {
                scenario::run_observed(s, RunOptions::default(), &mut |_, _| *steps += 1)
                    .expect("explored scenarios run");
            }
        })
    };
    let checked = |slice: &[scenario::Scenario], memo: &mut StreamMemo| {
        timed(|| {
            check_runs(slice, memo, |_, _, found| {
                std::hint::black_box(found.expect("explored scenarios run"));
            });
        })
    };
    let mut round = || {
        let mut memo = StreamMemo::new();
        let (mut tb, mut tc) = (Duration::ZERO, Duration::ZERO);
        steps = 0;
        for (k, slice) in scenarios.chunks(MODEL_SLICE).enumerate() {
            if k % 2 == 0 {
                tb += bare(slice, &mut steps);
                tc += checked(slice, &mut memo);
            } else {
                tc += checked(slice, &mut memo);
                tb += bare(slice, &mut steps);
            }
        }
        (tb, tc)
    };
    let runs = if cfg.full { 7 } else { 1 };
    // One untimed round first, as `interleaved` does.
    black_box(round());
    let mut times = [Vec::with_capacity(runs), Vec::with_capacity(runs)];
    for _ in 0..runs {
        let (tb, tc) = round();
        times[0].push(tb);
        times[1].push(tc);
    }
    let (tb, tc) = (median(times[0].clone()), median(times[1].clone()));
    // Each round's checked time against its own bare time.
    let ratios: Vec<f64> = times[0]
        .iter()
        .zip(&times[1])
        .map(|(b, c)| c.as_secs_f64() / b.as_secs_f64())
        .collect();
    let per_s = |n: usize, d: Duration| n as f64 / d.as_secs_f64();
    let bare_rate = per_s(steps, tb);
    table.push(
        format!(
            "bare model, coordinator steps/s ({steps} steps, {} scenarios, stride {})",
            scenarios.len(),
            cfg.stride
        ),
        format!("{bare_rate:.0} steps/s"),
        // The performance goal's floor is 1 000 000 steps/s, its aim
        // 2 000 000: the verdict is the floor's, the aim stands beside it.
        "1000000 steps/s floor (2000000 aim)",
        format!("{:.2}x", bare_rate / 1_000_000.0),
        verdict(bare_rate >= 1_000_000.0, ">= 1.00x"),
        spread(&times[0]),
    );
    let ratio = median_f64(&ratios);
    table.push(
        format!(
            "every invariant after every step and at the end, incremental (same scenarios, alternated {MODEL_SLICE} at a time; median of the rounds' ratios)"
        ),
        format!("{:.0} steps/s", per_s(steps, tc)),
        format!("{bare_rate:.0} steps/s bare model"),
        format!("{ratio:.2}x time"),
        verdict(ratio <= 1.5, "<= 1.50x"),
        spread_f64(&ratios),
    );
    // Exploration: worker threads against one, same stride otherwise.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (stride, workers) = (cfg.stride.to_string(), cores.to_string());
    let mut total = 0usize;
    let mut distinct = 0usize;
    let mut one = || explore_command(&["--stride", &stride, "--threads", "1"]).0;
    let mut many = || {
        let (d, r) = explore_command(&["--stride", &stride, "--threads", &workers]);
        total = explored(&r);
        distinct = count(&r, "distinct_streams");
        d
    };
    let times = interleaved(runs, &mut [&mut one, &mut many]);
    let (t1, tn) = (median(times[0].clone()), median(times[1].clone()));
    table.push(
        format!(
            "exploration scenarios/s, {cores} worker threads ({total} scenarios, {distinct} distinct streams, stride {})",
            cfg.stride
        ),
        format!("{:.0} scenarios/s", per_s(total, tn)),
        format!("{:.0} scenarios/s 1 thread", per_s(total, t1)),
        format!("{:.2}x time", tn.as_secs_f64() / t1.as_secs_f64()),
        "-",
        spread(&times[1]),
    );
    // The state search: every interleaving of a stride of
    // the pairs family's roots, deduplicating (the state with its history)
    // against running every interleaving; one thread each.
    let root_stride = (cfg.stride * 50).to_string();
    let states = |more: &[&'static str]| {
        let mut args = vec!["--scope", "pairs", "--states", "--threads", "1"];
        args.extend_from_slice(more);
        move |stride: &str| {
            let mut all = args.clone();
            all.extend(["--stride", stride]);
            explore_command(&all)
        }
    };
    let mut runs_full = 0usize;
    let mut seen = (0usize, 0usize);
    let mut runs_off = 0usize;
    let mut full = || {
        let (d, r) = states(&["--dedup", "full"])(&root_stride);
        runs_full = explored(&r);
        seen = (count(&r, "distinct_states"), count(&r, "revisited_states"));
        d
    };
    let mut off = || {
        let (d, r) = states(&["--dedup", "off"])(&root_stride);
        runs_off = explored(&r);
        d
    };
    let times = interleaved(runs, &mut [&mut full, &mut off]);
    let (tf, to) = (median(times[0].clone()), median(times[1].clone()));
    table.push(
        format!(
            "state search runs/s, pairs roots every interleaving, dedup ({runs_full} of {runs_off} interleavings run, {} distinct states, {} met again; root stride {})",
            seen.0,
            seen.1,
            cfg.stride * 50
        ),
        format!("{:.0} runs/s", per_s(runs_full, tf)),
        format!("{:.0} runs/s no dedup", per_s(runs_off, to)),
        format!("{:.2}x time", tf.as_secs_f64() / to.as_secs_f64()),
        "-",
        spread(&times[0]),
    );
    // Forking against replaying (every interleaving both), then the
    // sleep-set reduction on the pairs and the triples roots; one thread.
    let mut runs_fork = 0usize;
    let mut fork = || {
        let (d, r) = states(&["--por", "--dedup", "off"])(&root_stride);
        runs_fork = explored(&r);
        d
    };
    let mut replay = || {
        let (d, r) = states(&["--dedup", "off"])(&root_stride);
        runs_off = explored(&r);
        d
    };
    let times = interleaved(runs, &mut [&mut fork, &mut replay]);
    let (tk, tr) = (median(times[0].clone()), median(times[1].clone()));
    table.push(
        format!(
            "state search runs/s, pairs roots every interleaving, forking vs replaying ({runs_fork} runs; root stride {})",
            cfg.stride * 50
        ),
        format!("{:.0} runs/s forking", per_s(runs_fork, tk)),
        format!("{:.0} runs/s replaying", per_s(runs_off, tr)),
        format!("{:.2}x time", tk.as_secs_f64() / tr.as_secs_f64()),
        "-",
        spread(&times[0]),
    );
    for (family, stride) in [("pairs", cfg.stride * 50), ("triples", cfg.stride * 400)] {
        let stride_arg = stride.to_string();
        let mut report = None;
        let mut reduced = || {
            let (d, r) = explore_command(&[
                "--scope",
                family,
                "--states",
                "--por",
                "--threads",
                "1",
                "--stride",
                &stride_arg,
            ]);
            report = Some(r);
            d
        };
        let times = interleaved(runs, &mut [&mut reduced]);
        let t = median(times[0].clone());
        let r = report.expect("the search ran");
        let classes = explored(&r);
        let interleavings = r["interleavings"]
            .as_u64()
            .expect("the report's interleavings");
        table.push(
            format!(
                "sleep-set search, {family} roots ({} roots, {classes} classes of {interleavings} interleavings; root stride {stride})",
                roots(&r),
            ),
            format!("{:.0} classes/s", per_s(classes, t)),
            format!("{:.0} interleavings/s covered", interleavings as f64 / t.as_secs_f64().max(1e-9)),
            format!("{:.1}x fewer runs", interleavings as f64 / classes.max(1) as f64),
            "-",
            spread(&times[0]),
        );
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let cfg = Config::from_env(full);
    if let Ok(point) = std::env::var(POINT) {
        scaling_point(&point);
        return;
    }
    let start = Instant::now();
    let load_before = load_average();
    let mut table = Table {
        rows: Vec::new(),
        notes: Vec::new(),
    };
    if cfg.wants("throughput") {
        throughput(&cfg, &mut table);
    }
    if cfg.wants("scaling") {
        scaling(&cfg, &mut table);
    }
    if cfg.wants("memory") {
        memory(&cfg, &mut table);
    }
    if cfg.wants("sarif") {
        sarif_memory(&cfg, &mut table);
    }
    if cfg.wants("model") {
        model(&cfg, &mut table);
        model_bars(&cfg, &mut table);
    }
    if cfg.wants("turn") {
        turn_memory(&cfg, &mut table);
    }
    if cfg.wants("fuzz") {
        fuzz_rates(&cfg, &mut table);
    }
    if !full {
        println!(
            "perf bench smoke run: {} figures computed on tiny inputs in {:.1} s \
             (run `make bench` for the measurements)",
            table.rows.len(),
            start.elapsed().as_secs_f64()
        );
        return;
    }
    table.print();
    println!();
    println!(
        "{} cores; load average {} at start, {} at end; {:.0} s in all. MB = 10^6 bytes; \
         times are medians of interleaved runs, and the ratios of the check, read and \
         every-invariant rows medians of each round's own ratio; scaling rows compare the \
         fastest run of each size (each size in a fresh process), with cold caches.",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_before,
        load_average(),
        start.elapsed().as_secs_f64()
    );
    for note in &table.notes {
        println!("{note}");
    }
    match std::env::var("GLIBC_TUNABLES") {
        Ok(t) => println!("allocator: GLIBC_TUNABLES={t} (freed memory is kept, at every size)"),
        Err(_) => {
            println!("allocator: glibc defaults (buffers over 32 MiB are fresh pages on every run)")
        }
    }
}

/// The allocator the command line ships with, so the figures are those of
/// the binary a user runs (docs/decisions/performance.md, "Performance:
/// the binaries' allocator").
#[global_allocator]
static GLOBAL: inquiry_model::cli::Allocator = inquiry_model::cli::Allocator;
