//! An implementation in any language, run as a subprocess speaking JSON
//! Lines on stdin/stdout (`spec/conform-protocol.md`, rule `CONF-PROTOCOL`):
//! one `init` handshake, then one `run` message per scenario, answered by
//! `run_ok` with the log of what happened (a list of [`Record`]s, replayed
//! through a [`crate::conformance::Recorder`]) or `error` (the implementation failed).
//!
//! It does I/O, so it lives under `cli`, the only module that does.
//!
//! Nothing of the adapter outlives `conform` (rule `CONF-ADAPTER-LIFETIME`):
//! the adapter runs in its own process group, and the whole group is
//! killed (SIGTERM, then SIGKILL after a short grace) and its leader
//! reaped at the reply time limit, when it dies, when the [`Subprocess`]
//! is dropped (at exit too), and at once (SIGKILL) on SIGINT or SIGTERM,
//! which also set the process-wide flag [`interrupted`] for the run loop.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::conformance::environment::Environment;
use crate::conformance::{
    Attempt, Capabilities, Implementation, ImplementationError, Observed, Record,
};
use crate::profile::ProfileName;
use crate::scenario::Scenario;

/// The protocol name and version sent in `init`.
pub(crate) const PROTOCOL: &str = "inquiry-model-conform/1";

/// Set by SIGINT or SIGTERM.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The most adapter processes run at once (`conform --jobs`).
pub(crate) const MAX_JOBS: usize = 64;

/// The running adapters' process groups (0: a free slot), for the signal
/// handler, which can only walk a fixed array.
static ADAPTER_GROUPS: [AtomicI32; MAX_JOBS] = [const { AtomicI32::new(0) }; MAX_JOBS];

/// Records `group` in a free slot (every slot taken: none, and a signal
/// then kills it through [`Subprocess::stop`] at exit only).
fn register_group(group: i32) {
    for slot in &ADAPTER_GROUPS {
        if slot
            .compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// Frees `group`'s slot.
fn unregister_group(group: i32) {
    for slot in &ADAPTER_GROUPS {
        let _ = slot.compare_exchange(group, 0, Ordering::SeqCst, Ordering::SeqCst);
    }
}

/// Kills every running adapter's process group, from a signal handler
/// (only atomics and `kill`): the broken-pipe exit
/// (`crate::cli::broken_pipe`) leaves no adapter behind.
pub(crate) fn kill_adapters_from_signal() {
    for slot in &ADAPTER_GROUPS {
        let group = slot.swap(0, Ordering::SeqCst);
        if group > 0 {
            // SAFETY: kill(2) is async-signal-safe; a negative pid names
            // an adapter's process group, which holds nothing of ours.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
    }
}

/// Whether `conform` was sent SIGINT or SIGTERM: the run loop stops and
/// reports what it found so far. (A second signal ends the process at
/// once, the adapter's group already killed by the first.)
pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The SIGINT/SIGTERM handler: only async-signal-safe calls (atomics,
/// `kill`, `signal`, `raise`).
extern "C" fn on_signal(signal: libc::c_int) {
    // The flag first, the kill after: whoever sees an adapter die of this
    // signal then also sees the flag, and does not take the death for the
    // adapter's failure (rule `CONF-INTERRUPT-NOT-A-VERDICT`).
    let second = INTERRUPTED.swap(true, Ordering::SeqCst);
    for slot in &ADAPTER_GROUPS {
        let group = slot.swap(0, Ordering::SeqCst);
        if group > 0 {
            // SAFETY: kill(2) is async-signal-safe; a negative pid names
            // an adapter's process group, which holds nothing of ours.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
    }
    if second {
        // SAFETY: signal(2) and raise(3) are async-signal-safe: the second
        // signal takes its default action (ends the process).
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
}

/// Installs [`on_signal`] for SIGINT and SIGTERM, once per process.
fn install_signal_handlers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: a zeroed sigaction with a plain handler and an empty
            // mask is valid; `on_signal` only makes async-signal-safe calls.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut action.sa_mask);
                action.sa_flags = libc::SA_RESTART;
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    });
}

/// Sends `signal` to process group `group` (ESRCH, nothing left, is fine).
fn kill_group(group: i32, signal: libc::c_int) {
    if group > 0 {
        // SAFETY: kill(2) with a negative pid signals the adapter's own
        // process group (it was started as its leader).
        unsafe {
            libc::kill(-group, signal);
        }
    }
}

/// Waits up to `within` for `child` to exit; its status if it did.
fn exit_status(child: &mut Child, within: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + within;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Err(_) => return None,
            Ok(None) if Instant::now() >= deadline => return None,
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// Waits up to `grace` for `child` to exit; whether it did.
fn exited_within(child: &mut Child, grace: Duration) -> bool {
    let deadline = Instant::now() + grace;
    loop {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return true,
            Ok(None) if Instant::now() >= deadline => return false,
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// Why an adapter cannot be used at all (exit 2 of `conform`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unusable(pub String);

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unusable {}

/// Consecutive replies that did not come in time, counted across every
/// adapter process of one run (`--jobs`): at `limit` of them in a row the
/// run gives up on the adapter (rule `CONF-GIVE-UP`); any reply that comes
/// starts the count again.
#[derive(Debug)]
pub(crate) struct Watch {
    consecutive: AtomicU32,
    limit: u32,
    gave_up: AtomicBool,
}

impl Watch {
    /// A watch giving up after `limit` consecutive timeouts (at least 1).
    pub(crate) fn new(limit: u32) -> Arc<Watch> {
        Arc::new(Watch {
            consecutive: AtomicU32::new(0),
            limit: limit.max(1),
            gave_up: AtomicBool::new(false),
        })
    }

    /// Whether the run gave up on the adapter.
    pub(crate) fn gave_up(&self) -> bool {
        self.gave_up.load(Ordering::SeqCst)
    }

    /// The consecutive timeouts it gives up after.
    pub(crate) fn limit(&self) -> u32 {
        self.limit
    }

    fn timed_out(&self) {
        if self.consecutive.fetch_add(1, Ordering::SeqCst) + 1 >= self.limit {
            self.gave_up.store(true, Ordering::SeqCst);
        }
    }

    fn answered(&self) {
        self.consecutive.store(0, Ordering::SeqCst);
    }
}

/// A running adapter process.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
}

/// An adapter command, started on demand and restarted after it dies.
pub(crate) struct Subprocess {
    command: String,
    timeout: Duration,
    watch: Arc<Watch>,
    process: Option<Process>,
    next_id: u64,
    /// The adapter's name, from `init_ok`.
    pub(crate) name: String,
    /// The profiles the adapter implements, from `init_ok` (all when it
    /// does not say).
    pub(crate) profiles: Vec<ProfileName>,
    /// The adapter covers only the core scenario language
    /// (`conformance::core_scenario`): `init_ok` says `"language": "core"`.
    pub(crate) core_only: bool,
    /// What the adapter lets the harness steer and see (`init_ok`'s
    /// `scheduler` and `observes`), and the witness budget `conform` sets.
    pub(crate) capabilities: Capabilities,
    /// What the adapter's environment can produce (`init_ok`'s
    /// `environment`).
    pub(crate) environment: Environment,
    /// The amendment `init` announces (`conform --profile FILE`).
    amendment: Option<Value>,
    /// The adapter declared it implements the amendment (`init_ok`'s
    /// `"amendment": true`).
    pub(crate) implements_amendment: bool,
}

impl Subprocess {
    /// Starts `command` (run by `sh -c`) and performs the handshake; its
    /// timeouts are counted by `watch`.
    pub(crate) fn start(
        command: &str,
        timeout: Duration,
        watch: Arc<Watch>,
        amendment: Option<&Value>,
    ) -> Result<Subprocess, Unusable> {
        let mut s = Subprocess {
            command: command.to_owned(),
            timeout,
            watch,
            process: None,
            next_id: 0,
            name: String::new(),
            profiles: ProfileName::ALL.to_vec(),
            core_only: false,
            capabilities: Capabilities::default(),
            environment: Environment::default(),
            amendment: amendment.cloned(),
            implements_amendment: false,
        };
        install_signal_handlers();
        let reply = s.spawn().map_err(|e| Unusable(e.0))?;
        s.name = reply
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or(command)
            .to_owned();
        if let Some(list) = reply.get("profiles") {
            let parsed: Result<Vec<ProfileName>, _> = serde_json::from_value(list.clone());
            s.profiles = parsed.map_err(|e| {
                Unusable(format!(
                    "init_ok: `profiles` is not a list of profiles: {e}"
                ))
            })?;
        }
        s.capabilities = Capabilities::from_init_ok(&reply).map_err(Unusable)?;
        s.environment = Environment::from_init_ok(&reply).map_err(Unusable)?;
        s.implements_amendment = match reply.get("amendment") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(Unusable(format!(
                    "init_ok: `amendment` is true or false, not {other}"
                )));
            }
        };
        s.core_only = match reply.get("language") {
            None => false,
            Some(Value::String(l)) if l == "full" => false,
            Some(Value::String(l)) if l == "core" => true,
            Some(other) => {
                return Err(Unusable(format!(
                    "init_ok: `language` is \"core\" or \"full\", not {other}"
                )));
            }
        };
        Ok(s)
    }

    /// Another process of the same adapter, as this one declared itself,
    /// started at its first scenario (`--jobs`), its timeouts counted by
    /// the same watch.
    pub(crate) fn sibling(&self) -> Subprocess {
        Subprocess {
            command: self.command.clone(),
            timeout: self.timeout,
            watch: Arc::clone(&self.watch),
            process: None,
            next_id: 0,
            name: self.name.clone(),
            profiles: self.profiles.clone(),
            core_only: self.core_only,
            capabilities: self.capabilities.clone(),
            environment: self.environment.clone(),
            amendment: self.amendment.clone(),
            implements_amendment: self.implements_amendment,
        }
    }

    /// Spawns the process and returns its `init_ok`.
    fn spawn(&mut self) -> Result<Value, ImplementationError> {
        if interrupted() {
            return Err(ImplementationError(
                "interrupted: the adapter is not restarted".to_owned(),
            ));
        }
        if self.watch.gave_up() {
            return Err(ImplementationError(format!(
                "given up on the adapter after {} consecutive replies did not come in time",
                self.watch.limit
            )));
        }
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            // Its own process group (led by `sh`), so that everything it
            // starts is killed with it.
            .process_group(0)
            .spawn()
            .map_err(|e| ImplementationError(format!("cannot start `{}`: {e}", self.command)))?;
        let group = i32::try_from(child.id()).unwrap_or(0);
        register_group(group);
        if interrupted() {
            // A signal between the check above and the store: the handler
            // did not see this group.
            kill_group(group, libc::SIGKILL);
        }
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            kill_group(group, libc::SIGKILL);
            let _ = child.wait();
            return Err(ImplementationError("no pipes to the adapter".to_owned()));
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        self.process = Some(Process {
            child,
            stdin,
            lines: rx,
        });
        let id = self.fresh_id();
        let mut init = json!({"type": "init", "id": id, "protocol": PROTOCOL});
        if let Some(a) = &self.amendment {
            init["amendment"] = a.clone();
        }
        let reply = self.exchange(init)?;
        match reply.get("type").and_then(Value::as_str) {
            Some("init_ok") if reply.get("in_reply_to") == Some(&json!(id)) => Ok(reply),
            _ => {
                self.stop();
                Err(ImplementationError(format!(
                    "the adapter did not answer `init` with `init_ok` (in_reply_to {id}): {reply}"
                )))
            }
        }
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends one message and reads one reply line.
    fn exchange(&mut self, message: Value) -> Result<Value, ImplementationError> {
        let timeout = self.timeout;
        let Some(p) = self.process.as_mut() else {
            return Err(ImplementationError("the adapter is not running".to_owned()));
        };
        let sent = writeln!(p.stdin, "{message}").and_then(|()| p.stdin.flush());
        if let Err(e) = sent {
            self.stop();
            return Err(ImplementationError(format!(
                "cannot write to the adapter (did it exit?): {e}"
            )));
        }
        let line = loop {
            match p.lines.recv_timeout(timeout) {
                Ok(Ok(l)) if l.trim().is_empty() => continue,
                Ok(Ok(l)) => break Ok(l),
                Ok(Err(e)) => break Err(format!("the adapter's stdout: {e}")),
                Err(RecvTimeoutError::Timeout) => {
                    self.watch.timed_out();
                    break Err(format!("no reply within {} s", timeout.as_secs_f32()));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // Its status says how: an exit code, or the signal
                    // of a crash (`signal: 11 (SIGSEGV)`).
                    break Err(match exit_status(&mut p.child, Duration::from_secs(1)) {
                        Some(status) => {
                            format!("the adapter exited ({status}; stdout closed)")
                        }
                        None => "the adapter closed its stdout".to_owned(),
                    });
                }
            }
        };
        match line {
            Ok(l) => serde_json::from_str(&l).map_err(|e| {
                ImplementationError(format!("the adapter's reply is not JSON ({e}): {l}"))
            }),
            Err(e) => {
                self.stop();
                Err(ImplementationError(e))
            }
        }
    }

    /// Ends the adapter and everything it started: end of input, a short
    /// wait for it to exit by itself, SIGTERM to its group, a short grace,
    /// SIGKILL to its group (what is left of it, stragglers included), and
    /// the leader reaped.
    fn stop(&mut self) {
        if let Some(mut p) = self.process.take() {
            let group = i32::try_from(p.child.id()).unwrap_or(0);
            unregister_group(group);
            drop(p.stdin);
            if !exited_within(&mut p.child, Duration::from_millis(100)) {
                kill_group(group, libc::SIGTERM);
                exited_within(&mut p.child, Duration::from_millis(200));
            }
            kill_group(group, libc::SIGKILL);
            let _ = p.child.wait();
        }
    }
}

impl Drop for Subprocess {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Implementation for Subprocess {
    fn capabilities(&self) -> Capabilities {
        self.capabilities.clone()
    }

    fn run(&mut self, scenario: &Scenario) -> Result<Observed, ImplementationError> {
        match self.attempt(scenario) {
            Attempt::Ran(r) => r,
            Attempt::Unsupported(why) => Err(ImplementationError(format!(
                "the adapter cannot set the scenario up (unsupported): {why}"
            ))),
        }
    }

    fn attempt(&mut self, scenario: &Scenario) -> Attempt {
        Attempt::Ran(match self.exchange_run(scenario) {
            Ok(Reply::Observed(o)) => Ok(o),
            Ok(Reply::Unsupported(why)) => return Attempt::Unsupported(why),
            Err(e) => Err(e),
        })
    }
}

/// An adapter's reply to `run`.
enum Reply {
    /// `run_ok`.
    Observed(Observed),
    /// `unsupported` (rule `CONF-UNSUPPORTED`).
    Unsupported(String),
}

impl Subprocess {
    /// Sends `run` and reads its reply: `run_ok`, `unsupported`, or an
    /// error (`error`, or anything else).
    fn exchange_run(&mut self, scenario: &Scenario) -> Result<Reply, ImplementationError> {
        if self.process.is_none() {
            self.spawn()?;
        }
        let id = self.fresh_id();
        let reply = self.exchange(json!({"type": "run", "id": id, "scenario": scenario}))?;
        // A reply to `run` (not `init`, which a silent adapter still
        // answers) starts the count of consecutive timeouts again.
        self.watch.answered();
        if reply.get("in_reply_to") != Some(&json!(id)) {
            return Err(ImplementationError(format!(
                "reply to `run` {id} has in_reply_to {}",
                reply.get("in_reply_to").unwrap_or(&Value::Null)
            )));
        }
        let text = || {
            reply
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or("(no text)")
                .to_owned()
        };
        match reply.get("type").and_then(Value::as_str) {
            Some("run_ok") => {
                let log = reply.get("log").cloned().unwrap_or(Value::Null);
                let records: Vec<Record> = serde_json::from_value(log).map_err(|e| {
                    ImplementationError(format!("run_ok: `log` is not a list of records: {e}"))
                })?;
                Ok(Reply::Observed(Observed::from_records(records)))
            }
            Some("unsupported") => Ok(Reply::Unsupported(text())),
            Some("error") => Err(ImplementationError(format!(
                "the adapter reported an error: {}",
                text()
            ))),
            _ => Err(ImplementationError(format!(
                "expected `run_ok`, `unsupported` or `error`, got: {reply}"
            ))),
        }
    }
}
