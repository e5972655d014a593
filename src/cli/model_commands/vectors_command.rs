//! `inquiry-model vectors`: writes the conformance vectors.

use super::*;

/// `inquiry-model vectors`.
#[derive(Args, Debug)]
#[command(after_help = "\
Writes one `<name>.json` per vector ({name, description, rules, scenario, \
expected}) and an `index.json`. The curated vectors cover every routing path, \
guard and cancellation reason; `--count` generated ones follow, drawn with \
`--seed`. The output is deterministic for its arguments; the committed set in \
spec/vectors/ is `--seed 1 --count 20`.")]
pub struct VectorsArgs {
    /// The folder to write to (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the generated vectors.
    #[arg(long, default_value_t = conformance::COMMITTED.0)]
    pub seed: u64,
    /// How many generated vectors.
    #[arg(long, default_value_t = conformance::COMMITTED.1)]
    pub count: usize,
}

/// `vectors`: writes the conformance vectors.
pub fn vectors_command(args: VectorsArgs) -> i32 {
    let vectors = match conformance::vectors(args.seed, args.count) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("inquiry-model: {e}");
            return EXIT_UNUSABLE;
        }
    };
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
    out!(
        "wrote {} vectors ({} curated, {} generated with seed {}) to {}",
        vectors.len(),
        vectors.len() - args.count.min(vectors.len()),
        args.count,
        args.seed,
        args.out.display()
    );
    EXIT_OK
}
