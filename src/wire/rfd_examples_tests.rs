//! The RFDs' JSON examples, kept as data in `spec/rfd-examples/` so the
//! tests that read them need nothing beside the clone.
//!
//! `spec/rfd-examples/index.json` lists every fenced `json`/`jsonc` block of
//! the RFD texts: its file, the RFD, the source text, the section heading it
//! sits under and its first line there. When `INQUIRY_MODEL_RFDS` names the
//! folder of the RFD texts (`.ci/run` sets it when the project's shared
//! folder is beside the clone), a test
//! extracts the blocks again and checks that the committed copies still
//! match the RFD text byte for byte; `INQUIRY_MODEL_UPDATE_RFD_EXAMPLES=1`
//! rewrites them instead.

use crate::external;

use std::path::PathBuf;

use serde_json::{Value, json};

/// The RFD texts the examples are taken from: (RFD number, file name).
const SOURCES: [(&str, &str); 4] = [
    ("082", "000_d985dc4a01ca8a03.txt"),
    ("004", "002_391791dea807fe5a.txt"),
    ("083", "003_b512057d08f923a0.txt"),
    ("028", "004_338892cdbba9236b.txt"),
];

fn examples_dir() -> PathBuf {
    external::root().join("spec/rfd-examples")
}

/// One fenced JSON block of an RFD.
#[derive(Debug, Clone, PartialEq)]
struct Block {
    file: String,
    rfd: String,
    source: String,
    section: String,
    line: usize,
    lang: String,
    body: String,
}

fn slug(heading: &str) -> String {
    let mut out = String::new();
    for c in heading.trim_start_matches('#').trim().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// Every fenced block whose info string starts with `json`, with the
/// heading it sits under, named `rfd<N>-<section slug>-<k>.<lang>`. The
/// reading is the library's (`rfd_check::json_blocks`, which `rfd-check`
/// uses on an RFD's text).
fn extract(rfd: &str, source: &str, text: &str) -> Vec<Block> {
    let mut per_section = std::collections::BTreeMap::<String, usize>::new();
    crate::review::rfd_check::json_blocks(text)
        .into_iter()
        .map(|b| {
            let k = per_section.entry(b.section.clone()).or_default();
            *k += 1;
            Block {
                file: format!("rfd{rfd}-{}-{k}.{}", slug(&b.section), b.lang),
                rfd: rfd.to_owned(),
                source: source.to_owned(),
                section: b.section,
                line: b.line,
                lang: b.lang,
                body: b.body,
            }
        })
        .collect()
}

/// The committed index, as blocks (bodies read from their files).
fn committed() -> Vec<Block> {
    let index: Value = serde_json::from_slice(
        &std::fs::read(examples_dir().join("index.json")).expect("spec/rfd-examples/index.json"),
    )
    .expect("the index is JSON");
    index["examples"]
        .as_array()
        .expect("`examples` is an array")
        .iter()
        .map(|e| {
            let s = |k: &str| {
                e[k].as_str()
                    .unwrap_or_else(|| panic!("{k} in {e}"))
                    .to_owned()
            };
            let file = s("file");
            Block {
                body: std::fs::read_to_string(examples_dir().join(&file))
                    .unwrap_or_else(|err| panic!("{file}: {err}")),
                file,
                rfd: s("rfd"),
                source: s("source"),
                section: s("section"),
                line: e["line"].as_u64().expect("line") as usize,
                lang: s("lang"),
            }
        })
        .collect()
}

fn write(blocks: &[Block]) {
    let dir = examples_dir();
    for entry in std::fs::read_dir(&dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path
            .extension()
            .is_some_and(|x| x == "json" || x == "jsonc")
            && path.file_name().is_some_and(|n| n != "index.json")
        {
            std::fs::remove_file(path).unwrap();
        }
    }
    std::fs::create_dir_all(&dir).unwrap();
    let entries: Vec<Value> = blocks
        .iter()
        .map(|b| {
            std::fs::write(dir.join(&b.file), &b.body).unwrap();
            json!({"file": b.file, "rfd": b.rfd, "source": b.source, "section": b.section, "line": b.line, "lang": b.lang})
        })
        .collect();
    let index = json!({
        "description": "Every fenced json/jsonc block of the RFD texts, byte for byte (src/wire/rfd_examples_tests.rs checks them against the RFD texts when INQUIRY_MODEL_RFDS names their folder). A block may hold several top-level JSON values, as the RFD prints them.",
        "examples": entries,
    });
    let mut text = serde_json::to_string_pretty(&index).unwrap();
    text.push('\n');
    std::fs::write(dir.join("index.json"), text).unwrap();
}

/// The top-level JSON values of a `json` block. (`jsonc` blocks are
/// schematic: pseudo-types, `...`, trailing commas; only their text is
/// kept.)
fn values(block: &Block) -> Vec<Value> {
    serde_json::Deserializer::from_str(&block.body)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", block.file))
}

/// `line` up to a `//` that is not inside a string.
fn strip_line_comment(line: &str) -> &str {
    let mut in_string = false;
    let mut escaped = false;
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        let c = bytes[i];
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                (false, _) => {}
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            return &line[..i];
        }
    }
    line
}

/// Rule: WIRE-RFD-EXAMPLES — the committed examples are exactly the RFD
/// texts' JSON blocks, each under its section (runs when
/// `INQUIRY_MODEL_RFDS` names the RFD folder).
#[test]
fn committed_examples_match_the_rfd_text() {
    let Some(dir) = external::rfds("rfd_examples::committed_examples_match_the_rfd_text") else {
        return;
    };
    let mut fresh = Vec::new();
    for (rfd, source) in SOURCES {
        let text = std::fs::read_to_string(dir.join(source))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(source).display()));
        fresh.extend(extract(rfd, source, &text));
    }
    if std::env::var_os("INQUIRY_MODEL_UPDATE_RFD_EXAMPLES").is_some() {
        write(&fresh);
    }
    assert_eq!(
        committed(),
        fresh,
        "spec/rfd-examples/ no longer matches the RFD text; rerun with INQUIRY_MODEL_UPDATE_RFD_EXAMPLES=1 to rewrite it, then review the diff"
    );
}

/// Rule: WIRE-RFD-EXAMPLES — the index lists every example file once, and
/// every example parses as the JSON values the RFD prints.
#[test]
fn index_lists_every_example_and_each_parses() {
    let blocks = committed();
    assert!(blocks.len() >= 6, "{} examples", blocks.len());
    let mut on_disk: Vec<String> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "index.json")
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = blocks.iter().map(|b| b.file.clone()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
    for b in &blocks {
        assert!(
            SOURCES
                .iter()
                .any(|(rfd, src)| *rfd == b.rfd && *src == b.source),
            "{}: unknown source",
            b.file
        );
        match b.lang.as_str() {
            "json" => assert!(!values(b).is_empty(), "{}: no JSON value", b.file),
            "jsonc" => assert!(
                b.body
                    .lines()
                    .any(|l| !strip_line_comment(l).trim().is_empty()),
                "{}: empty",
                b.file
            ),
            other => panic!("{}: unexpected language {other}", b.file),
        }
    }
}

/// The extractor finds fenced blocks under their headings and nothing else
/// (hand-written Markdown).
#[test]
fn extract_reads_fences_under_headings() {
    let text =
        "# T\n```json\n{\"a\": 1}\n```\n## Two\n```rust\nfn x() {}\n```\n```jsonc\n// c\n{}\n```\n";
    let got = extract("999", "x.txt", text);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].file, "rfd999-t-1.json");
    assert_eq!(got[0].line, 2);
    assert_eq!(got[0].body, "{\"a\": 1}\n");
    assert_eq!(got[1].file, "rfd999-two-1.jsonc");
    assert_eq!(got[1].section, "## Two");
    assert_eq!(
        strip_line_comment(r#"{"u": "http://x"} // c"#),
        r#"{"u": "http://x"} "#
    );
}
