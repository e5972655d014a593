//! The tools around the model and the repository: CLI commands, amendment
//! review, exploration, fuzz corpus replay, traceability, the module graph,
//! docs and build scripts.

mod amendment_gate;
pub(crate) mod amendment_rows;
mod ci_workflows;
mod citations;
mod cli;
mod cli_conventions;
mod cli_help;
mod cli_model;
mod clusterfuzzlite;
mod explore_por;
mod explore_states;
mod model_folder;
mod module_graph;
mod mutants_setup;
mod pgo_setup;
mod profile_files;
mod proptest_regressions;
mod pub_surface;
mod review_pictures;
#[path = "../../../src/review/amend/revised_rfd082_tests.rs"]
#[allow(dead_code)] // the crate's amendment tests use the rest of it
mod revised_rfd082;
mod rfd_check;
mod traceability;
