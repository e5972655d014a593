#![no_main]
//! cargo-fuzz target `scenario`: see `inquiry_model::fuzzing::scenario`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::scenario(data));
