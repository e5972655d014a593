#![no_main]
//! cargo-fuzz target `check_bytes`: see `inquiry_model::fuzzing::check_bytes`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::check_bytes(data));
