#![no_main]
//! cargo-fuzz target `inquiry_response`: see `inquiry_model::fuzzing::inquiry_response`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::inquiry_response(data));
