//! GitHub Actions workflow commands (`--format github` of `check` and
//! `conform`): one `::error …::message` or `::warning …::message` line per
//! finding, which the runner turns into an annotation on the file and line
//! (GitHub's "Workflow commands for GitHub Actions": `::error
//! file={name},line={line},col={col},title={title}::{message}`).

/// The level of one annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// `::error`.
    Error,
    /// `::warning`.
    Warning,
}

/// Where and what one annotation says.
#[derive(Debug, Clone, Default)]
pub(crate) struct Annotation<'a> {
    /// The file, relative to the repository root (none for standard input).
    pub(crate) file: Option<&'a str>,
    /// 1-based line.
    pub(crate) line: Option<usize>,
    /// 1-based column.
    pub(crate) col: Option<usize>,
    /// The title (a rule ID, or a case name).
    pub(crate) title: &'a str,
    /// The text.
    pub(crate) message: &'a str,
}

/// The command's message escaped as the runner unescapes it: `%`, CR, LF.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value escaped: as data, and `:` and `,`, which end a value.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The command line for one annotation (without the newline).
pub(crate) fn command(level: Level, a: &Annotation<'_>) -> String {
    let name = match level {
        Level::Error => "error",
        Level::Warning => "warning",
    };
    let mut props = Vec::new();
    if let Some(file) = a.file {
        let file = file.strip_prefix("./").unwrap_or(file).replace('\\', "/");
        props.push(format!("file={}", escape_property(&file)));
    }
    if let Some(line) = a.line {
        props.push(format!("line={line}"));
    }
    if let Some(col) = a.col {
        props.push(format!("col={col}"));
    }
    props.push(format!("title={}", escape_property(a.title)));
    format!("::{name} {}::{}", props.join(","), escape_data(a.message))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule: CLI-CHECK-GITHUB — a message or a file name holding the
    /// command's own delimiters cannot end the command early.
    #[test]
    fn delimiters_are_escaped() {
        let line = command(
            Level::Warning,
            &Annotation {
                file: Some("./a,b:c.jsonl"),
                line: Some(3),
                col: Some(1),
                title: "CHECK-PAIRED",
                message: "100% bad\nsecond line",
            },
        );
        assert_eq!(
            line,
            "::warning file=a%2Cb%3Ac.jsonl,line=3,col=1,title=CHECK-PAIRED::100%25 bad%0Asecond line"
        );
        assert!(!line.contains('\n'));
    }
}
