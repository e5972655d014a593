//! `inquiry-model completions SHELL` and `inquiry-model man`: the shell
//! completion scripts (clap_complete) and the roff man pages (clap_mangen),
//! both written from the parser's own definition, so they name exactly the
//! subcommands and flags the binary takes (rule `CLI-COMPLETIONS`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{Cli, EXIT_OK, EXIT_UNUSABLE};

/// `inquiry-model completions`.
#[derive(Args, Debug)]
#[command(after_help = "\
Prints the completion script for SHELL on stdout. For example, bash: \
`inquiry-model completions bash > ~/.local/share/bash-completion/completions/inquiry-model`; \
zsh: `inquiry-model completions zsh > \"${fpath[1]}/_inquiry-model\"`; fish: \
`inquiry-model completions fish > ~/.config/fish/completions/inquiry-model.fish`.\n\n\
Exit 0: printed; 2: usage.")]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: Shell,
}

/// `inquiry-model man`.
#[derive(Args, Debug)]
#[command(after_help = "\
Without --dir, prints the main page (roff) on stdout: \
`inquiry-model man | man -l -`. With --dir, writes `inquiry-model.1` and one \
page per subcommand (`inquiry-model-check.1`, …) into DIR, which must exist \
(`make man` writes them to target/man/).\n\n\
Exit 0: written; 2: cannot write, or usage.")]
pub(crate) struct ManArgs {
    /// Write every page into this folder instead of the main page to stdout.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// `completions`.
pub(crate) fn completions_command(args: CompletionsArgs) -> i32 {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "inquiry-model", &mut out);
    match std::io::stdout().write_all(&out) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("inquiry-model completions: cannot write: {e}");
            EXIT_UNUSABLE
        }
    }
}

/// `man`.
pub(crate) fn man_command(args: ManArgs) -> i32 {
    let cmd = Cli::command();
    if let Some(dir) = args.dir {
        return match clap_mangen::generate_to(cmd, &dir) {
            Ok(()) => EXIT_OK,
            Err(e) => {
                eprintln!(
                    "inquiry-model man: cannot write the pages into {}: {e} (the folder must exist)",
                    dir.display()
                );
                EXIT_UNUSABLE
            }
        };
    }
    let mut out = Vec::new();
    if let Err(e) = clap_mangen::Man::new(cmd).render(&mut out) {
        eprintln!("inquiry-model man: cannot render: {e}");
        return EXIT_UNUSABLE;
    }
    match std::io::stdout().write_all(&out) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("inquiry-model man: cannot write: {e}");
            EXIT_UNUSABLE
        }
    }
}
