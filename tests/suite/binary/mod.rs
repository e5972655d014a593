//! Running the `inquiry-model` binary from an integration test: one place
//! for the helpers every CLI test needs (each run also asserts that the
//! binary did not panic).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn no_panic(out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "the binary panicked:\n{err}");
}

/// Runs the binary with `args` in the folder `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    no_panic(&out);
    out
}

/// Runs the binary with `args` in the crate root.
pub fn run(args: &[&str]) -> Output {
    run_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// Runs the binary in the crate root with `stdin` as its standard input.
pub fn run_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(stdin)
        .expect("stdin takes the input");
    let out = child.wait_with_output().expect("the binary finishes");
    no_panic(&out);
    out
}

/// The exit code (a signal is a failure).
pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited with a code, not a signal")
}

/// Standard output, which must be UTF-8.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

/// Standard error, lossily.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
