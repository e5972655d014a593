//! `make pgo` and `make bench-pgo` (`scripts/pgo.sh`), run with stand-in
//! `cargo`, `rustc`, `llvm-profdata` and binaries that log what they are
//! asked: the order of the three steps and how each is built, without
//! building anything.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// What one run of the script did: its exit code and the log of every
/// stand-in call, one line each (`cargo|CARGO_TARGET_DIR|RUSTFLAGS|args`,
/// `gen|args`, `gen_stream|args`, `profdata|args`).
struct Run {
    code: i32,
    log: Vec<String>,
    /// The folder the script was given as `PGO_DIR`.
    pgo: PathBuf,
}

/// Runs `scripts/pgo.sh STEP` with stand-ins first in `PATH` and an
/// empty `BENCH_TUNABLES`; the instrumented binary exits `gen_exit` from
/// each training command.
fn run_script(step: &str, gen_exit: i32) -> Run {
    run_script_with(step, gen_exit, Some(""))
}

/// [`run_script`] with `BENCH_TUNABLES` set to `tunables`, or unset.
fn run_script_with(step: &str, gen_exit: i32, tunables: Option<&str>) -> Run {
    let tmp = std::env::temp_dir().join(format!(
        "inquiry-model-pgo-{}-{step}-{gen_exit}-{}",
        std::process::id(),
        tunables.is_some()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    let bin = tmp.join("bin");
    let sysroot = tmp.join("sysroot");
    let tools = sysroot.join("lib/rustlib/stub-host/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&tools).unwrap();
    let log = tmp.join("log");
    let log = log.display();
    let script = |path: &Path, body: String| {
        std::fs::write(path, format!("#!/bin/bash\n{body}")).unwrap();
        Command::new("chmod").arg("+x").arg(path).status().unwrap();
    };
    // Each build leaves the binaries the script runs next, as cargo would.
    script(
        &bin.join("cargo"),
        format!(
            r#"echo "cargo|$CARGO_TARGET_DIR|$RUSTFLAGS|$*" >> {log}
mkdir -p "$CARGO_TARGET_DIR/release/examples"
printf '#!/bin/bash\necho "gen|$*" >> {log}\nexit {gen_exit}\n' > "$CARGO_TARGET_DIR/release/inquiry-model"
printf '#!/bin/bash\necho "gen_stream|$*" >> {log}\n: > "$1"\n' > "$CARGO_TARGET_DIR/release/examples/gen_stream"
chmod +x "$CARGO_TARGET_DIR/release/inquiry-model" "$CARGO_TARGET_DIR/release/examples/gen_stream"
"#
        ),
    );
    script(
        &bin.join("rustc"),
        format!(
            "case \"$*\" in\n  '--print sysroot') echo {} ;;\n  -vV) echo 'host: stub-host' ;;\nesac\n",
            sysroot.display()
        ),
    );
    script(
        &tools.join("llvm-profdata"),
        format!("echo \"profdata|$*\" >> {log}\n: > \"$3\"\n"),
    );
    let pgo = tmp.join("pgo");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("scripts/pgo.sh"))
        .arg(step)
        .env("PATH", path)
        .env("CARGO", bin.join("cargo"))
        .env("CARGO_TARGET_DIR", tmp.join("plain"))
        .env("PGO_DIR", &pgo)
        .env_remove("RUSTFLAGS");
    match tunables {
        Some(t) => cmd.env("BENCH_TUNABLES", t),
        None => cmd.env_remove("BENCH_TUNABLES"),
    };
    let out = cmd.output().unwrap();
    let log = std::fs::read_to_string(tmp.join("log")).unwrap_or_default();
    let pgo = pgo.canonicalize().unwrap_or(pgo);
    let _ = std::fs::remove_dir_all(&tmp);
    Run {
        code: out.status.code().unwrap_or(-1),
        log: log.lines().map(str::to_owned).collect(),
        pgo,
    }
}

/// The logged cargo calls as (target folder, RUSTFLAGS, arguments).
fn cargo_calls(run: &Run) -> Vec<(String, String, String)> {
    run.log
        .iter()
        .filter_map(|l| l.strip_prefix("cargo|"))
        .map(|l| {
            let mut parts = l.splitn(3, '|');
            let mut next = || parts.next().unwrap_or_default().to_owned();
            (next(), next(), next())
        })
        .collect()
}

/// Rule: PERF-PGO-SAME-BUILD — the instrumented build compiles the crate
/// as the build that uses the profile does (the bench's build for `make
/// bench-pgo`, the command line's for `make pgo`), in its own folder; the
/// training runs the instrumented command line, and the last build reads
/// the merged profile.
#[test]
fn the_instrumented_build_is_built_as_the_one_that_uses_the_profile() {
    for (step, instrumented, last) in [
        (
            "bench",
            "bench --quiet --locked --bench perf --no-run",
            "bench --locked --bench perf",
        ),
        (
            "build",
            "build --quiet --release --locked --bin inquiry-model",
            "build --quiet --release --locked",
        ),
    ] {
        let run = run_script(step, 0);
        assert_eq!(run.code, 0, "{step}: {:#?}", run.log);
        let pgo = run.pgo.display().to_string();
        let calls = cargo_calls(&run);
        let first = calls.first().expect("an instrumented build");
        assert_eq!(first.0, format!("{pgo}/gen"), "{step}");
        assert_eq!(first.1, format!("-Cprofile-generate={pgo}/raw"), "{step}");
        assert_eq!(first.2, instrumented, "{step}");
        let final_build = calls.last().expect("a final build");
        assert_eq!(final_build.0, format!("{pgo}/use"), "{step}");
        assert_eq!(
            final_build.1,
            format!("-Cprofile-use={pgo}/merged.profdata"),
            "{step}"
        );
        assert_eq!(final_build.2, last, "{step}");
        // The stream writer is a plain build, outside the profiled folders.
        assert!(
            calls[1..calls.len() - 1]
                .iter()
                .all(|c| c.1.is_empty() && !c.0.starts_with(&pgo)),
            "{step}: {calls:#?}"
        );
        // Training: the instrumented binary runs explore, diff-profiles and
        // check of both layouts, all before the merge and the last build.
        let trained: Vec<&str> = run
            .log
            .iter()
            .filter_map(|l| l.strip_prefix("gen|"))
            .map(|a| a.split(' ').next().unwrap_or_default())
            .collect();
        assert_eq!(
            trained,
            ["explore", "diff-profiles", "check", "check"],
            "{step}"
        );
        let at = |prefix: &str| run.log.iter().position(|l| l.starts_with(prefix));
        let last_gen = run.log.iter().rposition(|l| l.starts_with("gen|"));
        assert!(last_gen < at("profdata|merge"), "{step}: {:#?}", run.log);
        let last_cargo = run.log.iter().rposition(|l| l.starts_with("cargo|"));
        assert!(at("profdata|merge") < last_cargo, "{step}: {:#?}", run.log);
    }
}

/// Rule: PERF-PGO-SAME-BUILD — a training command that fails stops the
/// script before any profile is merged or used; an unknown step is a usage
/// error.
#[test]
fn a_failed_training_run_or_an_unknown_step_builds_nothing_with_a_profile() {
    let run = run_script("bench", 2);
    assert_ne!(run.code, 0, "{:#?}", run.log);
    assert!(
        !run.log.iter().any(|l| l.contains("-Cprofile-use")),
        "{:#?}",
        run.log
    );
    assert!(!run.log.iter().any(|l| l.starts_with("profdata|")));
    let run = run_script("install", 0);
    assert_eq!(run.code, 2);
    assert!(run.log.is_empty(), "{:#?}", run.log);
}

/// Rule: PERF-PGO-SAME-BUILD — the bench step runs under the glibc
/// settings `make bench` sets, which only the Makefile spells: without
/// `BENCH_TUNABLES` it is a usage error before anything is built.
#[test]
fn the_bench_step_needs_the_makefiles_tunables() {
    let run = run_script_with("bench", 0, None);
    assert_eq!(run.code, 2, "{:#?}", run.log);
    assert!(run.log.is_empty(), "{:#?}", run.log);
}
