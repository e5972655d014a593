#![no_main]
//! cargo-fuzz target `roundtrip_response`: see `inquiry_model::fuzzing::roundtrip_response`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::roundtrip_response(data));
