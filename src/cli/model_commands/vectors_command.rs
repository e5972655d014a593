//! `inquiry-model vectors`: writes the conformance vectors.

use super::*;

/// `inquiry-model vectors`.
#[derive(Args, Debug)]
#[command(after_help = "\
Writes one `<name>.json` per vector ({name, description, rules, scenario, \
expected}); each file opens with its name, description and rules. The curated vectors cover every routing path, \
guard and cancellation reason; `--count` generated ones follow, drawn with \
`--seed`. `--profile` (repeatable) and `--language core` keep only the vectors \
of those profiles and inside the core scenario language (what a `conform` \
adapter declaring them runs). The output is deterministic for its arguments; \
the committed set in spec/vectors/ is `--seed 1 --count 20`.")]
pub(crate) struct VectorsArgs {
    /// The folder to write to (created if missing).
    #[arg(long)]
    pub(crate) out: PathBuf,
    /// Seed of the generated vectors.
    #[arg(long, default_value_t = conformance::COMMITTED.0)]
    pub(crate) seed: u64,
    /// How many generated vectors.
    #[arg(long, default_value_t = conformance::COMMITTED.1)]
    pub(crate) count: usize,
    /// Only vectors of these profiles (repeatable; default all).
    #[arg(long, value_name = "PROFILE", value_parser = crate::cli::profile_arg::BuiltinProfileParser)]
    pub(crate) profile: Vec<crate::profile::ProfileName>,
    /// `full` (default) or `core`: only vectors inside the core scenario
    /// language (`conformance::core_scenario`).
    #[arg(long, value_enum, default_value_t = Language::Full)]
    pub(crate) language: Language,
}

/// How much of the scenario language the written vectors may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Language {
    /// All of it.
    Full,
    /// The core language only (`conformance::core_scenario`).
    Core,
}

/// `vectors`: writes the conformance vectors.
pub(crate) fn vectors_command(args: VectorsArgs) -> i32 {
    let vectors = match conformance::vectors(args.seed, args.count) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("inquiry-model: {e}");
            return EXIT_UNUSABLE;
        }
    };
    let drawn = vectors
        .iter()
        .filter(|v| v.name.starts_with("generated-"))
        .count();
    let vectors: Vec<conformance::Vector> = vectors
        .into_iter()
        .filter(|v| args.profile.is_empty() || args.profile.contains(&v.scenario.profile))
        .filter(|v| match args.language {
            Language::Full => true,
            Language::Core => conformance::core_scenario(&v.scenario),
        })
        .collect();
    let generated = vectors
        .iter()
        .filter(|v| v.name.starts_with("generated-"))
        .count();
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("inquiry-model: {}: cannot create: {e}", args.out.display());
        return EXIT_UNUSABLE;
    }
    let files = conformance::vector_files(&vectors);
    for (name, text) in &files {
        let path = args.out.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("inquiry-model: {}: cannot write: {e}", path.display());
            return EXIT_UNUSABLE;
        }
    }
    if generated < drawn {
        // The generator draws from the whole language and every profile;
        // the filters leave some (or all) of its scenarios out: say so,
        // rather than a silent `0 generated`.
        eprintln!(
            "inquiry-model: warning: {} of the {drawn} generated scenarios {} outside the {} asked and left out; a larger --count draws more",
            drawn - generated,
            if drawn - generated == 1 {
                "was"
            } else {
                "were"
            },
            match (args.profile.is_empty(), args.language) {
                (true, Language::Core) => "core language",
                (false, Language::Core) => "profiles and core language",
                (false, Language::Full) => "profiles",
                (true, Language::Full) => "selection",
            }
        );
    }
    out!(
        "wrote {} ({} curated, {} generated with seed {}) to {}",
        crate::cli::count(vectors.len(), "vector"),
        vectors.len() - generated,
        generated,
        args.seed,
        args.out.display()
    );
    EXIT_OK
}
