//! The crate's module graph has no import cycle, and the modules whose rules
//! are decided once import only downwards, along the layers of
//! `docs/decisions/code.md` "Each rule decided once".
//!
//! The graph is read from the sources: every `crate::<module>` path outside
//! a comment (in `use` lines and inline), and every module named in a
//! `crate::{…}` group, is an edge from the file's top-level module to that
//! module. `super::` stays inside a module and is not an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The layer of each top-level module, bottom up (`docs/decisions/code.md`, after
/// the suggested layout). A module imports only from its own
/// layer or below.
const LAYERS: &[(&str, u8)] = &[
    ("wire", 1),
    ("rule", 1),
    ("profile", 1),
    ("cache_key", 1),
    ("predicates", 1),
    ("words", 1),
    ("tool", 2),
    ("stream", 2),
    ("check", 3),
    ("routing", 3),
    ("prompt", 3),
    ("ask_user", 3),
    ("inquiry", 4),
    ("builtins", 4),
    ("coordinator", 5),
    ("config", 5),
    ("scenario", 6),
    ("testkit", 6),
    ("profile_file", 2),
    ("generate", 7),
    ("invariants", 7),
    ("mermaid", 7),
    ("explore", 8),
    ("conformance", 8),
    ("fuzzing", 8),
    ("amend", 8),
    ("rfd_check", 8),
    ("cli", 9),
];

/// The modules whose imports this test holds to the layers: the ones the
/// "decide each rule once" work reshaped, the oracle (`check`, which never
/// needs the model) and the rule IDs. (The rest are held to acyclicity.)
const LAYERED: &[&str] = &[
    "wire",
    "predicates",
    "profile",
    "cache_key",
    "tool",
    "stream",
    "routing",
    "prompt",
    "ask_user",
    "inquiry",
    "builtins",
    "coordinator",
    "config",
    "check",
    "rule",
    "invariants",
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

/// The folders that group modules without being one: `src/model/` (the
/// spec core) and `src/review/` (the reviewer's tools). A module inside one
/// is a node of its own.
const WINGS: &[&str] = &["model", "review"];

/// The modules a path after `crate::` names: a group's items, or the first
/// segment (the one after a wing's name).
fn path_modules(rest: &str, out: &mut Vec<String>) {
    if let Some(group) = rest.strip_prefix('{') {
        let end = group.find('}').unwrap_or(group.len());
        for item in group[..end].split(',') {
            path_modules(item.trim(), out);
        }
        return;
    }
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if name.is_empty() {
        return;
    }
    match rest[name.len()..].strip_prefix("::") {
        Some(inner) if WINGS.contains(&name.as_str()) => path_modules(inner, out),
        _ => out.push(name),
    }
}

/// The modules a line of Rust names through `crate::`.
fn crate_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        // `crate::` inside a longer identifier (`my_crate::`) is not ours.
        let before = &rest[..at];
        let standalone = !before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        rest = &rest[at + "crate::".len()..];
        if standalone {
            path_modules(rest, &mut out);
        }
    }
    out
}

/// The import graph of the crate's sources under `src/`.
fn crate_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = Graph::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            // A unit-test module in a file of its own (`*_tests.rs`, declared
            // under `#[cfg(test)]`) is not part of the library's import graph
            // either, as with the inline ones below.
            if path
                .file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|s| s.ends_with("_tests"))
            {
                continue;
            }
            let rel = path.strip_prefix(&src).expect("under src");
            let mut parts = rel.components().map(|c| {
                c.as_os_str()
                    .to_str()
                    .expect("UTF-8 path")
                    .trim_end_matches(".rs")
            });
            let mut top = parts.next().expect("a component").to_owned();
            // The crate root, the binary and the wings' own files are not
            // modules of the graph; a module inside a wing is.
            if top == "lib"
                || top == "bin"
                || (WINGS.contains(&top.as_str()) && rel.components().count() == 1)
            {
                continue;
            }
            if WINGS.contains(&top.as_str()) {
                top = parts.next().expect("a file inside the wing").to_owned();
            }
            let text = std::fs::read_to_string(&path).expect("a readable source");
            let node = graph.entry(top.clone()).or_default();
            // A unit-test module (by convention the file's last item) is
            // not part of the library's import graph: the oracle's own
            // tests may draw from the generators without the oracle
            // depending on them.
            let library = text.split("\n#[cfg(test)]").next().unwrap_or("");
            for line in library.lines() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for m in crate_paths(line) {
                    if m != top {
                        node.insert(m);
                    }
                }
            }
        }
    }
    graph
}

/// A cycle of the graph, if it has one (depth-first search, colouring).
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        Open,
        Done,
    }
    fn visit(
        graph: &Graph,
        node: &str,
        colour: &mut BTreeMap<String, Colour>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match colour.get(node) {
            Some(Colour::Done) => return None,
            Some(Colour::Open) => {
                let from = path.iter().position(|n| n == node).unwrap_or(0);
                let mut cycle = path[from..].to_vec();
                cycle.push(node.to_owned());
                return Some(cycle);
            }
            None => {}
        }
        colour.insert(node.to_owned(), Colour::Open);
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(graph, next, colour, path) {
                return Some(c);
            }
        }
        path.pop();
        colour.insert(node.to_owned(), Colour::Done);
        None
    }
    let mut colour = BTreeMap::new();
    for node in graph.keys() {
        if let Some(c) = visit(graph, node, &mut colour, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

/// The edges from `modules` that go up a layer, or to a module with no
/// layer.
fn upward_edges(graph: &Graph, modules: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for from in modules {
        let Some(lf) = layer(from) else {
            out.push(format!("{from} has no layer"));
            continue;
        };
        for to in graph.get(*from).into_iter().flatten() {
            match layer(to) {
                Some(lt) if lt <= lf => {}
                Some(lt) => out.push(format!("{from} (layer {lf}) imports {to} (layer {lt})")),
                None => out.push(format!("{from} imports {to}, which has no layer")),
            }
        }
    }
    out
}

fn graph_of(edges: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (a, b) in edges {
        g.entry((*a).to_owned())
            .or_default()
            .insert((*b).to_owned());
        g.entry((*b).to_owned()).or_default();
    }
    g
}

/// No import cycle among modules.
#[test]
fn the_module_graph_has_no_cycle() {
    let graph = crate_graph();
    assert!(graph.contains_key("coordinator") && graph.contains_key("stream"));
    assert_eq!(find_cycle(&graph), None, "graph: {graph:#?}");
}

/// The reshaped modules import only from their layer or below.
#[test]
fn reshaped_modules_import_only_downwards() {
    let graph = crate_graph();
    let up = upward_edges(&graph, LAYERED);
    assert!(up.is_empty(), "{up:#?}");
}

/// The two checks can fail: a hand-made cycle (the `config` ⇄ `ask_user`
/// pair this work removed) is found, an acyclic graph is not, and an edge up
/// a layer is reported.
#[test]
fn the_checks_catch_hand_made_cycles_and_upward_edges() {
    let cyclic = graph_of(&[
        ("config", "ask_user"),
        ("ask_user", "config"),
        ("config", "tool"),
    ]);
    let cycle = find_cycle(&cyclic).expect("the cycle is found");
    assert_eq!(cycle.first(), cycle.last());
    assert!(cycle.contains(&"config".to_owned()) && cycle.contains(&"ask_user".to_owned()));
    let longer = graph_of(&[("a", "b"), ("b", "c"), ("c", "a")]);
    assert_eq!(find_cycle(&longer).map(|c| c.len()), Some(4));
    let acyclic = graph_of(&[
        ("config", "builtins"),
        ("builtins", "ask_user"),
        ("config", "ask_user"),
    ]);
    assert_eq!(find_cycle(&acyclic), None);
    let upward = graph_of(&[("stream", "check"), ("tool", "wire")]);
    assert_eq!(
        upward_edges(&upward, &["stream", "tool"]),
        ["stream (layer 2) imports check (layer 3)"]
    );
    assert_eq!(
        upward_edges(&upward, &["nowhere"]),
        ["nowhere has no layer"]
    );
}

/// The path reader finds inline paths and groups, and ignores look-alikes.
#[test]
fn crate_paths_are_read_from_use_lines_groups_and_inline_paths() {
    assert_eq!(
        crate_paths("use crate::model::routing::{self, Route};"),
        ["routing"]
    );
    assert_eq!(
        crate_paths("use crate::{config, wire::Event};"),
        ["config", "wire"]
    );
    assert_eq!(
        crate_paths(
            "let x = crate::model::builtins::find(k).map(crate::model::config::registered_config);"
        ),
        ["builtins", "config"]
    );
    assert_eq!(
        crate_paths("use crate::model::{coordinator::Call, tool}; use crate::review::amend;"),
        ["coordinator", "tool", "amend"]
    );
    assert_eq!(crate_paths("use crate::model::routing;"), ["routing"]);
    assert!(crate_paths("use my_crate::thing;").is_empty());
}
