//! The `inquiry-model` command line.

/// The command line allocates through mimalloc: the model's runs and
/// `check`'s events allocate many small records, where glibc's allocator
/// spends about half of a model step (docs/decisions/performance.md,
/// "Performance: the binaries' allocator").
#[global_allocator]
static GLOBAL: inquiry_model::cli::Allocator = inquiry_model::cli::Allocator;

fn main() {
    std::process::exit(inquiry_model::cli::main());
}
