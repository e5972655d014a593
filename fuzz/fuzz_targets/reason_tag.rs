#![no_main]
//! cargo-fuzz target `reason_tag`: see `inquiry_model::fuzzing::reason_tag`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::reason_tag(data));
