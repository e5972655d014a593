//! The inputs of the stream commands: one path walker for `check`,
//! `summary` and `sanitize`, and one way to open what it yields, so the
//! commands agree on what a path means (`docs/decisions/cli.md` "Oracle
//! checks: a folder yields the files that look like streams").

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

/// One input of `check`, after folders are expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CheckInput {
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
    pub(crate) fn origin(&self) -> String {
        match self {
            CheckInput::Stdin => "<stdin>".to_owned(),
            CheckInput::File(p) | CheckInput::Unusable { path: p, .. } => p.display().to_string(),
        }
    }
}

/// Which files a folder yields beyond the defaults, and which it does not
/// (`check --include/--exclude`). Globs match the path relative to the
/// folder given, with `/` separators: `*` and `?` within one segment, `**`
/// any number of segments, `[abc]`/`[!a-z]` one character; a glob without
/// `/` matches any one segment (a file or folder name) at any depth
/// (decision "Oracle checks: a folder yields the files that look like
/// streams").
#[derive(Debug, Clone, Default)]
pub(crate) struct Selection {
    /// Files read whatever their name and shape.
    pub(crate) include: Vec<String>,
    /// Files and folders never read; wins over `include` and the defaults.
    pub(crate) exclude: Vec<String>,
}

/// What a list of paths expands to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Expansion {
    /// The inputs, in argument order, each folder's files sorted.
    pub(crate) inputs: Vec<CheckInput>,
    /// Files under the folders given that were not read because they are
    /// not streams (`*.json` of another shape, other extensions are not
    /// counted) or matched `--exclude`.
    pub(crate) skipped: usize,
}

/// Expands `check`'s paths with the default selection (see
/// [`expand_check_paths_with`]).
pub(crate) fn expand_check_paths(paths: &[PathBuf]) -> Vec<CheckInput> {
    expand_check_paths_with(paths, &Selection::default()).inputs
}

/// Expands `check`'s paths: `-` is stdin, a file named is itself (always
/// read), a folder is the stream files beneath it (decision "Oracle checks:
/// a folder yields the files that look like streams"): in a folder holding
/// `events.json` only that file; elsewhere every `*.jsonl` and every
/// `*.json` shaped like a persisted stream (a JSON array whose first event
/// object has a top-level `type` key), plus what `include` names, minus
/// what `exclude` names. Symlinked folders, VCS folders (`.git`, `.hg`,
/// `.svn`, `.jj`) and cache folders (holding a `CACHEDIR.TAG`, as cargo's
/// `target/`) are not entered. Each folder's files come sorted; a folder
/// with none is unusable.
pub(crate) fn expand_check_paths_with(paths: &[PathBuf], selection: &Selection) -> Expansion {
    let mut out = Expansion::default();
    for p in paths {
        if p.as_os_str() == "-" {
            out.inputs.push(CheckInput::Stdin);
            continue;
        }
        if !p.is_dir() {
            out.inputs.push(CheckInput::File(p.clone()));
            continue;
        }
        match stream_files_under(p, selection) {
            Ok((found, skipped)) if found.is_empty() => {
                out.skipped += skipped;
                out.inputs.push(CheckInput::Unusable {
                    path: p.clone(),
                    message: format!(
                        "no stream files here (events.json, *.jsonl, *.json holding an \
                         array of events; {})",
                        skipped_files(skipped)
                    ),
                })
            }
            Ok((found, skipped)) => {
                out.skipped += skipped;
                out.inputs.extend(found.into_iter().map(CheckInput::File));
            }
            Err(message) => out.inputs.push(CheckInput::Unusable {
                path: p.clone(),
                message,
            }),
        }
    }
    out
}

/// `skipped 3 files that are not streams`.
pub(crate) fn skipped_files(n: usize) -> String {
    match n {
        1 => "skipped 1 file that is not a stream".to_owned(),
        n => format!("skipped {n} files that are not streams"),
    }
}

/// Folders never entered: version control stores.
const VCS_FOLDERS: [&str; 4] = [".git", ".hg", ".svn", ".jj"];

fn stream_files_under(root: &Path, selection: &Selection) -> Result<(Vec<PathBuf>, usize), String> {
    let mut found = Vec::new();
    let mut skipped = 0;
    let mut stack = vec![root.to_path_buf()];
    let relative = |path: &Path| -> String {
        let rel = path.strip_prefix(root).unwrap_or(path);
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    };
    let excluded = |rel: &str| selection.exclude.iter().any(|g| glob_matches(g, rel));
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
            let rel = relative(&path);
            if kind.is_dir() {
                let vcs = VCS_FOLDERS.iter().any(|v| entry.file_name() == *v);
                if !vcs && !path.join("CACHEDIR.TAG").is_file() && !excluded(&rel) {
                    stack.push(path);
                }
            } else if kind.is_file() {
                files.push((path, rel));
            }
        }
        let conversation = files
            .iter()
            .any(|(f, _)| f.file_name().is_some_and(|n| n == "events.json"));
        for (path, rel) in files {
            let json = path.extension().is_some_and(|e| e == "json");
            let jsonl = path.extension().is_some_and(|e| e == "jsonl");
            let included = selection.include.iter().any(|g| glob_matches(g, &rel));
            let take = if excluded(&rel) {
                false
            } else if included {
                true
            } else if conversation {
                // A conversation folder's other files are its metadata.
                path.file_name().is_some_and(|n| n == "events.json")
            } else {
                jsonl || (json && looks_like_stream(&path))
            };
            if take {
                found.push(path);
            } else if json || jsonl || included {
                skipped += 1;
            }
        }
    }
    found.sort();
    Ok((found, skipped))
}

/// Whether a `*.json` file starts as a persisted stream does: a JSON array
/// whose first element is an event object with a top-level `type` key (RFD
/// 082's events are internally tagged by `type`; a real writer may put
/// `timestamp` before it). Reads at most the first 4 KiB; a file that
/// cannot be opened, or whose first object is still open at 4 KiB, counts
/// as a stream, so its error is reported rather than a real stream hidden.
fn looks_like_stream(path: &Path) -> bool {
    use std::io::Read;
    let Ok(f) = File::open(path) else {
        return true;
    };
    let mut head = Vec::with_capacity(4096);
    if f.take(4096).read_to_end(&mut head).is_err() {
        return true;
    }
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    first_object_has_type(head)
}

/// Whether `head` opens an array whose first element is an object with a
/// top-level `"type"` key; `true` when `head` ends inside that object
/// before the question is settled.
fn first_object_has_type(head: &[u8]) -> bool {
    let skip_ws = |mut i: usize| {
        while head.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let i = skip_ws(0);
    if head.get(i) != Some(&b'[') {
        return false;
    }
    let mut i = skip_ws(i + 1);
    if head.get(i) != Some(&b'{') {
        return false;
    }
    i += 1;
    // Depth 1 is the first object itself; a key is a string met at depth 1
    // right after `{` or `,`.
    let (mut depth, mut expect_key) = (1usize, true);
    while let Some(&b) = head.get(i) {
        match b {
            b'"' => {
                let start = i + 1;
                let mut j = start;
                loop {
                    match head.get(j) {
                        None => return true,
                        Some(b'\\') => j += 2,
                        Some(b'"') => break,
                        Some(_) => j += 1,
                    }
                }
                if depth == 1 && expect_key {
                    if &head[start..j] == b"type" {
                        return true;
                    }
                    expect_key = false;
                }
                i = j + 1;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return false;
                }
            }
            b',' if depth == 1 => expect_key = true,
            _ => {}
        }
        i += 1;
    }
    true
}

/// Whether `glob` matches the `/`-separated relative path `path`; a glob
/// without `/` matches any one of its segments.
pub(crate) fn glob_matches(glob: &str, path: &str) -> bool {
    let glob = glob.trim_start_matches("./").trim_end_matches('/');
    let path_segments: Vec<&str> = path.split('/').collect();
    if !glob.contains('/') {
        return path_segments
            .iter()
            .any(|s| segment_matches(glob.as_bytes(), s.as_bytes()));
    }
    let glob_segments: Vec<&str> = glob.split('/').collect();
    // A glob naming a folder also takes what lies beneath it.
    segments_match(&glob_segments, &path_segments)
        || (1..path_segments.len()).any(|n| segments_match(&glob_segments, &path_segments[..n]))
}

fn segments_match(glob: &[&str], path: &[&str]) -> bool {
    match glob.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| segments_match(rest, &path[skip..])),
        Some((g, rest)) => match path.split_first() {
            Some((p, path_rest)) => {
                segment_matches(g.as_bytes(), p.as_bytes()) && segments_match(rest, path_rest)
            }
            None => false,
        },
    }
}

/// One segment against one glob segment: `*`, `?`, `[…]`, literal bytes.
fn segment_matches(glob: &[u8], name: &[u8]) -> bool {
    match glob.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len()).any(|skip| segment_matches(rest, &name[skip..])),
        Some((b'?', rest)) => !name.is_empty() && segment_matches(rest, &name[1..]),
        Some((b'[', rest)) => {
            let Some(close) = rest.iter().skip(1).position(|&b| b == b']').map(|i| i + 1) else {
                // No closing bracket: a literal `[`.
                return name.first() == Some(&b'[') && segment_matches(rest, &name[1..]);
            };
            let (class, after) = (&rest[..close], &rest[close + 1..]);
            let (negated, class) = match class.first() {
                Some(b'!' | b'^') => (true, &class[1..]),
                _ => (false, class),
            };
            let Some(&c) = name.first() else {
                return false;
            };
            let mut hit = false;
            let mut i = 0;
            while i < class.len() {
                if i + 2 < class.len() && class[i + 1] == b'-' {
                    hit |= class[i] <= c && c <= class[i + 2];
                    i += 3;
                } else {
                    hit |= class[i] == c;
                    i += 1;
                }
            }
            hit != negated && segment_matches(after, &name[1..])
        }
        Some((g, rest)) => name.first() == Some(g) && segment_matches(rest, &name[1..]),
    }
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
