//! Every citation of a document's section names a section that exists in
//! the named file. Code, tests and documents cite a decision or a spec
//! section by its file and its heading (or the heading's start) in quotes —
//! `spec/DECISIONS.md "Wire: float round-trips"`, the reverse
//! `"Wire: float round-trips" in spec/DECISIONS.md`, or a bare
//! `decision "Wire: float round-trips"` — so a heading that is renamed, or a
//! section that moves to another file (`spec/DECISIONS.md` holds what the
//! model does, `docs/decisions/` how the tools work), must take every
//! citation of it along, or this check fails.

use std::path::Path;

/// One citation: the file it names (`None` for the bare word decision
/// before the quote, which may cite any decision file) and the quoted
/// heading (or its start).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Citation {
    file: Option<String>,
    quote: String,
}

/// The files a reader of the repository reads prose in, as `(path relative
/// to root, text)`: sources, Markdown and scripts, outside build output,
/// fuzz corpora and the generated vectors.
fn prose_files(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if !matches!(
                name,
                "target" | "corpus" | "findings" | "vectors" | "work" | ".git"
            ) {
                prose_files(root, &p, out);
            }
        } else if ["rs", "md", "toml", "yml", "yaml", "sh", "py", "tsv", "json"]
            .iter()
            .any(|x| p.extension().is_some_and(|e| e == *x))
            || name == "Makefile"
            || name == "run"
        {
            let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
            out.push((rel, std::fs::read_to_string(&p).unwrap_or_default()));
        }
    }
}

/// A text as its reader reads it, in paragraphs: a Rust string's line
/// continuation (`\` at the end of a line) joined as Rust joins it, comment
/// markers (`///`, `//!`, `//`, `#`) at the start of a line dropped, every
/// run of whitespace one space. A blank line, and in Markdown a heading
/// line, ends a paragraph, so a citation never runs into the next one.
fn paragraphs(text: &str, markdown: bool) -> Vec<String> {
    let mut joined = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("\\\n") {
        joined.push_str(&rest[..i]);
        rest = rest[i + 2..].trim_start();
    }
    joined.push_str(rest);
    let mut out = vec![String::new()];
    for line in joined.lines() {
        let t = line.trim();
        if t.is_empty() || (markdown && t.starts_with('#')) {
            out.push(String::new());
            continue;
        }
        let t = if markdown {
            t
        } else {
            t.strip_prefix("///")
                .or_else(|| t.strip_prefix("//!"))
                .or_else(|| t.strip_prefix("//"))
                .unwrap_or_else(|| t.trim_start_matches('#'))
        };
        let last = out.last_mut().expect("never empty");
        for w in t.split_whitespace() {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(w);
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// The quoted text opening at `at` (a `"`, after an optional `\`): up to the
/// next `"`, at most 200 bytes, any escaping backslash dropped.
fn quote_at(p: &str, at: usize) -> Option<String> {
    let s = p[at..].strip_prefix('\\').unwrap_or(&p[at..]);
    let s = s.strip_prefix('"')?;
    let end = s.find('"')?;
    let q = s[..end].trim_end_matches('\\').trim();
    (!q.is_empty() && q.len() <= 200).then(|| q.to_owned())
}

/// The citations in one paragraph.
fn citations(p: &str) -> Vec<Citation> {
    let bytes = p.as_bytes();
    let path_byte = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-');
    let mut out = Vec::new();
    // `FILE "quote"` and `"quote" in FILE`, FILE a `spec/`/`docs/` Markdown
    // path or `DECISIONS.md`.
    let mut from = 0;
    while let Some(i) = p[from..].find(".md") {
        let end = from + i + 3;
        from = end;
        let mut start = end - 3;
        while start > 0 && path_byte(bytes[start - 1]) {
            start -= 1;
        }
        let file = &p[start..end];
        let file = match file {
            "DECISIONS.md" => "spec/DECISIONS.md",
            f if f.starts_with("spec/") || f.starts_with("docs/") => f,
            _ => continue,
        };
        if start > 0 && bytes[start - 1] == b'"' {
            continue; // a string literal holding the path itself
        }
        // Forward: FILE[`][,] [section ][(][\]"quote"
        let mut k = end;
        for skip in ["`", ","] {
            if p[k..].starts_with(skip) {
                k += 1;
            }
        }
        if p[k..].starts_with(' ') {
            k += 1;
            for skip in ["section ", "("] {
                if p[k..].starts_with(skip) {
                    k += skip.len();
                }
            }
            if let Some(quote) = quote_at(p, k) {
                out.push(Citation {
                    file: Some(file.to_owned()),
                    quote,
                });
            }
        }
        // Reverse: "quote"[,] in|of [`]FILE
        let before = p[..start].trim_end_matches('`');
        for link in ["\" in ", "\" of ", "\", in "] {
            if let Some(head) = before.strip_suffix(link) {
                let head = head.trim_end_matches('\\');
                if let Some(open) = head.rfind('"') {
                    let q = head[open + 1..].trim_end_matches('\\').trim();
                    if !q.is_empty() && q.len() <= 200 {
                        out.push(Citation {
                            file: Some(file.to_owned()),
                            quote: q.to_owned(),
                        });
                    }
                }
            }
        }
    }
    // Bare: the word decision or decisions (a comma and a parenthesis may
    // follow) before the quote, and the file's stem in capitals.
    let lower = p.to_ascii_lowercase();
    for word in ["decision", "decisions"]
        .into_iter()
        .flat_map(|w| [format!("{w} "), format!("{w}, ")])
    {
        let mut from = 0;
        while let Some(i) = lower[from..].find(&word) {
            let start = from + i;
            from = start + word.len();
            if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
                continue;
            }
            let mut k = start + word.len();
            if p[k..].starts_with('(') {
                k += 1;
            }
            let file =
                (&p[start..start + 9] == "DECISIONS").then(|| "spec/DECISIONS.md".to_owned());
            if let Some(quote) = quote_at(p, k) {
                out.push(Citation { file, quote });
            }
        }
    }
    out
}

/// The sections of a Markdown document: every heading (any level) and
/// every bold label (`**…**`, a paragraph's name inside a section), each
/// with its whitespace collapsed.
fn sections(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in doc.lines() {
        if let Some(h) = line.strip_prefix('#') {
            let h = h.trim_start_matches('#');
            if h.starts_with(' ') {
                out.push(h.split_whitespace().collect::<Vec<_>>().join(" "));
            }
        }
    }
    for p in paragraphs(doc, true) {
        let mut parts = p.split("**");
        parts.next();
        while let (Some(bold), Some(_)) = (parts.next(), parts.next()) {
            out.push(bold.to_owned());
        }
    }
    out
}

/// Whether one of `sections` is the cited section: a quote may be a
/// heading's start, and may end in the sentence's own punctuation.
fn names_a_section(quote: &str, sections: &[String]) -> bool {
    let quote = quote.split_whitespace().collect::<Vec<_>>().join(" ");
    let trimmed = quote.trim_end_matches(['.', ',', ';']);
    sections
        .iter()
        .any(|s| s.starts_with(&quote) || (!trimmed.is_empty() && s.starts_with(trimmed)))
}

/// What is wrong with the citations of `files`, read against the documents
/// under `root`: a named file that does not exist, or a quote that is no
/// section of it (for a bare decision, of no decision file).
fn wrong_citations(root: &Path, files: &[(String, String)]) -> (usize, Vec<String>) {
    let mut docs = std::collections::BTreeMap::<String, Option<Vec<String>>>::new();
    let mut read = |f: &str| {
        docs.entry(f.to_owned())
            .or_insert_with(|| {
                std::fs::read_to_string(root.join(f))
                    .ok()
                    .map(|t| sections(&t))
            })
            .clone()
    };
    let mut decision_files = vec!["spec/DECISIONS.md".to_owned()];
    if let Ok(entries) = std::fs::read_dir(root.join("docs/decisions")) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") && name != "README.md" {
                decision_files.push(format!("docs/decisions/{name}"));
            }
        }
    }
    decision_files.sort();
    let all_decisions: Vec<String> = decision_files
        .iter()
        .flat_map(|f| read(f).unwrap_or_default())
        .collect();
    let mut count = 0;
    let mut wrong = Vec::new();
    for (path, text) in files {
        let markdown = path.ends_with(".md");
        for p in paragraphs(text, markdown) {
            for c in citations(&p) {
                count += 1;
                match &c.file {
                    Some(f) => match read(f) {
                        None => {
                            wrong.push(format!("{path}: cites {f} {:?}: no such file", c.quote))
                        }
                        Some(s) if !names_a_section(&c.quote, &s) => wrong.push(format!(
                            "{path}: cites {f} {:?}: no such section in {f}",
                            c.quote
                        )),
                        Some(_) => {}
                    },
                    None if !names_a_section(&c.quote, &all_decisions) => wrong.push(format!(
                        "{path}: cites decision {:?}: no such section in {}",
                        c.quote,
                        decision_files.join(", ")
                    )),
                    None => {}
                }
            }
        }
    }
    (count, wrong)
}

/// Every citation of a section in the repository names a section its file
/// has.
#[test]
fn every_cited_section_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "src", "tests", "spec", "docs", "examples", "benches", "scripts", "fuzz", ".github", ".ci",
    ] {
        prose_files(root, &root.join(dir), &mut files);
    }
    for name in ["README.md", "Makefile", "Cargo.toml", "build.rs"] {
        if let Ok(t) = std::fs::read_to_string(root.join(name)) {
            files.push((name.to_owned(), t));
        }
    }
    let (count, wrong) = wrong_citations(root, &files);
    assert!(
        count > 150,
        "only {count} citations found: the scan is broken"
    );
    assert!(
        wrong.is_empty(),
        "citations of sections that do not exist:\n{}",
        wrong.join("\n")
    );
}

/// The scan reads each citation form (wrapped across comment lines, inside
/// an escaped string, reversed, bare), and a citation of a section the
/// named file does not hold — a made-up heading, or a real one cited in the
/// file it moved out of — is reported. (The citations are built at run time,
/// so this file holds none for the repository scan to read.)
#[test]
fn citations_of_missing_sections_are_reported() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = format!("spec/{}.md", "DECISIONS");
    let docs = format!("docs/decisions/{}.md", "exploration");
    let q = '"';
    let text = format!(
        "/// Wrapped ({spec} {q}Wire: float\n/// round-trips{q}).\n\
         let s = \"({spec} \\{q}Configuration driving the lifecycle\\{q})\";\n\
         /// {q}Exploration: shards are k modulo n{q} in `{docs}`.\n\
         /// A bare decision {q}Tests: proptest regressions sit{q}.\n\
         /// A bold label: {spec} {q}The result-delivery prompt{q}.\n"
    );
    let found: Vec<Citation> = paragraphs(&text, false)
        .iter()
        .flat_map(|p| citations(p))
        .collect();
    let cite = |file: Option<&str>, quote: &str| Citation {
        file: file.map(str::to_owned),
        quote: quote.to_owned(),
    };
    assert_eq!(
        found,
        vec![
            cite(Some(&spec), "Wire: float round-trips"),
            cite(Some(&spec), "Configuration driving the lifecycle"),
            cite(Some(&docs), "Exploration: shards are k modulo n"),
            cite(Some(&spec), "The result-delivery prompt"),
            cite(None, "Tests: proptest regressions sit"),
        ]
    );
    let (count, wrong) = wrong_citations(root, &[("ok.rs".to_owned(), text)]);
    assert_eq!((count, wrong), (5, Vec::<String>::new()));

    for planted in [
        // A heading no decision file has.
        format!("// ({spec} {q}Wire: floats are rounded{q})"),
        // A section cited in the file it moved out of.
        format!("// ({spec} {q}Exploration: shards are k modulo n{q})"),
        format!("// ({docs} {q}Wire: float round-trips{q})"),
        // A file that does not exist.
        format!("// (docs/decisions/{}.md {q}CLI: counts{q})", "nothing"),
        // A bare decision no decision file holds.
        format!("// (decision {q}Exploration: shards are random{q})"),
    ] {
        let (count, wrong) = wrong_citations(root, &[("planted.rs".to_owned(), planted.clone())]);
        assert_eq!(count, 1, "{planted}");
        assert_eq!(wrong.len(), 1, "{planted} not reported");
    }
}
