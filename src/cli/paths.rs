//! The inputs of the stream commands: one path walker for `check`,
//! `summary` and `sanitize`, and one way to open what it yields, so the
//! commands agree on what a path means (decision "Oracle checks: which files
//! a folder yields").

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

/// One input of `check`, after folders are expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckInput {
    /// Standard input (`-`).
    Stdin,
    /// A file to read.
    File(PathBuf),
    /// A path that yields nothing to read, with the reason.
    Unusable {
        /// The path as given.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

impl CheckInput {
    /// The input's name in messages: the path as given, or `<stdin>`.
    pub fn origin(&self) -> String {
        match self {
            CheckInput::Stdin => "<stdin>".to_owned(),
            CheckInput::File(p) | CheckInput::Unusable { path: p, .. } => p.display().to_string(),
        }
    }
}

/// Expands `check`'s paths: `-` is stdin, a file is itself, a folder is the
/// stream files beneath it (decision "Oracle checks: which files a folder
/// yields"): in a folder holding `events.json` only that file, elsewhere every
/// `*.json` and `*.jsonl`; symlinked folders are not followed. Each folder's
/// files come sorted; a folder with none is unusable.
pub fn expand_check_paths(paths: &[PathBuf]) -> Vec<CheckInput> {
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(CheckInput::Stdin);
            continue;
        }
        if !p.is_dir() {
            out.push(CheckInput::File(p.clone()));
            continue;
        }
        match stream_files_under(p) {
            Ok(found) if found.is_empty() => out.push(CheckInput::Unusable {
                path: p.clone(),
                message: "no stream files here (events.json, *.json, *.jsonl)".to_owned(),
            }),
            Ok(found) => out.extend(found.into_iter().map(CheckInput::File)),
            Err(message) => out.push(CheckInput::Unusable {
                path: p.clone(),
                message,
            }),
        }
    }
    out
}

fn stream_files_under(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| format!("cannot read folder {}: {e}", dir.display()))?;
        let mut files = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read folder {}: {e}", dir.display()))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            if kind.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e == "json" || e == "jsonl")
            {
                files.push(path);
            }
        }
        let conversation = files
            .iter()
            .any(|f| f.file_name().is_some_and(|n| n == "events.json"));
        if conversation {
            files.retain(|f| f.file_name().is_some_and(|n| n == "events.json"));
        }
        found.extend(files);
    }
    found.sort();
    Ok(found)
}

/// Opens one input: stdin, or a file with its size (for progress).
pub(crate) fn open_input(input: &CheckInput) -> Result<(Box<dyn BufRead>, Option<u64>), String> {
    match input {
        CheckInput::Stdin => Ok((Box::new(BufReader::new(io::stdin())), None)),
        CheckInput::File(path) => {
            let f =
                File::open(path).map_err(|e| format!("{}: cannot open: {e}", path.display()))?;
            let size = f.metadata().ok().map(|m| m.len());
            Ok((Box::new(BufReader::with_capacity(1 << 16, f)), size))
        }
        CheckInput::Unusable { path, message } => Err(format!("{}: {message}", path.display())),
    }
}

/// One path of a one-file command (`sanitize`): `-` is stdin, anything
/// else a file, as the walker yields them but without expanding folders.
fn single(path: &Path) -> CheckInput {
    if path.as_os_str() == "-" {
        CheckInput::Stdin
    } else {
        CheckInput::File(path.to_path_buf())
    }
}

/// Opens one path of a one-file command, as [`open_input`] opens the
/// walker's inputs.
pub(crate) fn open(path: &Path) -> Result<Box<dyn BufRead>, String> {
    open_input(&single(path)).map(|(reader, _)| reader)
}

/// The name of one path in messages: the path as given, or `<stdin>`.
pub(crate) fn origin(path: &Path) -> String {
    single(path).origin()
}
