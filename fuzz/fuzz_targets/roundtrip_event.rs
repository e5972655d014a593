#![no_main]
//! cargo-fuzz target `roundtrip_event`: see `inquiry_model::fuzzing::roundtrip_event`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::roundtrip_event(data));
