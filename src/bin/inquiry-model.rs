//! The `inquiry-model` command line.

fn main() {
    std::process::exit(inquiry_model::cli::main());
}
