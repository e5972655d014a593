#![no_main]
//! cargo-fuzz target `sanitize`: see `inquiry_model::fuzzing::sanitize`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::sanitize(data));
