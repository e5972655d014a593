#![no_main]
//! cargo-fuzz target `response_differential`: see `inquiry_model::fuzzing::response_differential`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::response_differential(data));
