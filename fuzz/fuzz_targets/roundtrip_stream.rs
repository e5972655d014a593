#![no_main]
//! cargo-fuzz target `roundtrip_stream`: see `inquiry_model::fuzzing::roundtrip_stream`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::roundtrip_stream(data));
