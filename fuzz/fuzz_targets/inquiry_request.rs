#![no_main]
//! cargo-fuzz target `inquiry_request`: see `inquiry_model::fuzzing::inquiry_request`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::inquiry_request(data));
