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
/// (`check --include/--exclude`). Globs are `.gitignore` lines matched
/// against the path relative to the folder given: `*` and `?` within one
/// segment, `**` any number of segments, `[abc]`/`[!a-z]` one character; a
/// glob without `/` matches a file or folder name at any depth
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
/// what `exclude` names and what `.gitignore`/`.ignore` files ignore.
/// Symlinked folders, VCS folders (`.git`, `.hg`, `.svn`, `.jj`) and cache
/// folders (holding a `CACHEDIR.TAG`, as cargo's `target/`) are not entered. Each folder's files come sorted; a folder
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

/// A matcher of `--include`/`--exclude` globs relative to `root`, in
/// `.gitignore` syntax (the `ignore` crate's): a glob without `/` matches a
/// name at any depth, one with `/` is anchored at `root`, and a folder that
/// matches takes what lies beneath it.
fn globs(root: &Path, globs: &[String]) -> Result<ignore::gitignore::Gitignore, String> {
    let mut builder = ignore::gitignore::GitignoreBuilder::new(root);
    for g in globs {
        let g = g.strip_prefix("./").unwrap_or(g);
        builder
            .add_line(None, g)
            .map_err(|e| format!("bad glob `{g}`: {e}"))?;
    }
    builder.build().map_err(|e| format!("bad glob: {e}"))
}

/// Whether `path` (under the matcher's root) or a folder above it matches.
fn matches(m: &ignore::gitignore::Gitignore, path: &Path, is_dir: bool) -> bool {
    !m.is_empty() && m.matched_path_or_any_parents(path, is_dir).is_ignore()
}

/// The stream files under `root` and the count of skipped ones. The walk is
/// the `ignore` crate's (ripgrep's): `.gitignore` (inside a git work tree),
/// `.ignore` and git's `info/exclude` and global excludes are honoured;
/// hidden folders are entered (the writer's own folder is `.jp/`), VCS
/// stores and cache folders are not, nor symlinked folders.
fn stream_files_under(root: &Path, selection: &Selection) -> Result<(Vec<PathBuf>, usize), String> {
    let include = globs(root, &selection.include)?;
    let exclude = globs(root, &selection.exclude)?;
    let skip_folder = {
        let exclude = exclude.clone();
        move |entry: &ignore::DirEntry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if !is_dir || entry.depth() == 0 {
                return false;
            }
            VCS_FOLDERS.iter().any(|v| entry.file_name() == *v)
                || entry.path().join("CACHEDIR.TAG").is_file()
                || matches(&exclude, entry.path(), true)
        }
    };
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .follow_links(false)
        .filter_entry(move |e| !skip_folder(e))
        .build();
    // Each folder's files, to tell a conversation folder (holding
    // `events.json`) from any other.
    let mut by_folder: std::collections::BTreeMap<PathBuf, Vec<PathBuf>> = Default::default();
    for entry in walk {
        let entry = entry.map_err(|e| format!("cannot read folder {}: {e}", root.display()))?;
        if entry.file_type().is_some_and(|t| t.is_file()) {
            let path = entry.into_path();
            let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
            by_folder.entry(folder).or_default().push(path);
        }
    }
    let mut found = Vec::new();
    let mut skipped = 0;
    for files in by_folder.values() {
        let conversation = files
            .iter()
            .any(|f| f.file_name().is_some_and(|n| n == "events.json"));
        for path in files {
            let json = path.extension().is_some_and(|e| e == "json");
            let jsonl = path.extension().is_some_and(|e| e == "jsonl");
            let included = matches(&include, path, false);
            let take = if matches(&exclude, path, false) {
                false
            } else if included {
                true
            } else if conversation {
                // A conversation folder's other files are its metadata.
                path.file_name().is_some_and(|n| n == "events.json")
            } else {
                jsonl || (json && looks_like_stream(path))
            };
            if take {
                found.push(path.clone());
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
